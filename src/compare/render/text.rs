//! The text of a comparison: two sides side by side, or one column per
//! side.

use super::{cell_text, column, header_text, section_title, table::render_table, verdict_words};
use crate::compare::comparison::{Comparison, Row, RowKind};
use crate::compare::fact::Section;
use crate::compare::style::Style;
use crate::compare::verdict::Verdict;

/// The text of a comparison: two sides side by side, or one column per
/// side when they fit `style.width`, else the fleet table.
pub fn render_text(c: &Comparison, style: &Style, table: bool) -> String {
    if shows_table(c, style, table) {
        return render_table(c, style);
    }
    let mut out = header_text(c);
    let label_w = c
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(10, 40);
    let widths: Vec<usize> = (0..c.sides.len())
        .map(|n| {
            c.rows
                .iter()
                .filter(|r| r.kind == RowKind::Figure)
                .map(|r| cell_text(r, n).chars().count())
                .chain([column(c, n).chars().count()])
                .max()
                .unwrap_or(1)
                .min(40)
        })
        .collect();
    let mut section: Option<Section> = None;
    for r in &c.rows {
        if section != Some(r.section) {
            section = Some(r.section);
            out.push_str(&format!("\n[ {} ]\n", section_title(c, r.section)));
            if r.kind == RowKind::Figure
                || c.rows
                    .iter()
                    .any(|x| x.section == r.section && x.kind == RowKind::Figure)
            {
                let mut h = format!("{:<label_w$}", "");
                for (n, w) in widths.iter().enumerate() {
                    h.push_str(&format!("  {:>w$}", column(c, n), w = *w));
                }
                out.push_str(h.trim_end());
                out.push('\n');
            }
        }
        if r.kind == RowKind::Info {
            out.push_str(&info_line(r, c, label_w, style));
            continue;
        }
        let mut line = format!("{:<label_w$}", r.label);
        for (n, w) in widths.iter().enumerate() {
            line.push_str(&format!("  {:>w$}", cell_text(r, n), w = *w));
        }
        let words: Vec<String> = (1..c.sides.len())
            .map(|n| style.paint(&verdict_words(r, n), &r.verdicts[n]))
            .collect();
        line.push_str("  ");
        line.push_str(&words.join(" | "));
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !c.missing.is_empty() {
        out.push_str("\n[ Missing ]\n");
        for m in &c.missing {
            out.push_str(&format!("{m}\n"));
        }
    }
    out
}

/// Whether [`render_text`] writes the fleet table (asked for, or more
/// than two sides whose columns do not fit `style.width`) rather than
/// the rows and their verdicts. Read before any verdict is decided.
pub fn shows_table(c: &Comparison, style: &Style, table: bool) -> bool {
    table || (c.sides.len() > 2 && !columns_fit(c, style.width))
}

fn info_line(r: &Row, c: &Comparison, label_w: usize, style: &Style) -> String {
    let all_same = r
        .verdicts
        .iter()
        .all(|v| matches!(v, Verdict::Reference | Verdict::Same));
    if all_same {
        return format!(
            "{:<label_w$}  same: {}\n",
            r.label,
            r.texts[0].clone().unwrap_or_default()
        );
    }
    let mut s = format!("{:<label_w$}  ", r.label);
    let parts: Vec<String> = (0..c.sides.len())
        .map(|n| {
            let t = r.texts[n].clone().unwrap_or_else(|| "(missing)".into());
            style.paint(&format!("{}: {t}", column(c, n)), &r.verdicts[n])
        })
        .collect();
    s.push_str(&format!("different: {}\n", parts.join(" | ")));
    s
}

/// The width one column per report takes.
fn columns_fit(c: &Comparison, width: usize) -> bool {
    let label = c
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0);
    let per = c
        .rows
        .iter()
        .filter(|r| r.kind == RowKind::Figure)
        .flat_map(|r| (0..c.sides.len()).map(move |n| cell_text(r, n).chars().count()))
        .max()
        .unwrap_or(8)
        .max(
            c.sides
                .iter()
                .map(|r| r.name.chars().count())
                .max()
                .unwrap_or(0),
        );
    // label, a column per side, and the verdicts (about 36 each, with
    // their interval)
    label + c.sides.len() * (per + 2) + (c.sides.len() - 1) * 36 <= width
}
