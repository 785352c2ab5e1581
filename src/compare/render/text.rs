//! The text of a comparison: two sides side by side, or one column per
//! side.

use super::{
    column, header_text, legend, plain_cell, section_title, table::render_table, verdict_parts,
    verdict_words, wrap,
};
use crate::compare::comparison::{Comparison, Row, RowKind};
use crate::compare::fact::RowSection;
use crate::compare::style::Style;
use crate::compare::verdict::Verdict;

/// The text of a comparison: two sides side by side, or one column per
/// side when they fit `style.width`, else the fleet table.
pub fn render_text(c: &Comparison, style: &Style, table: bool) -> String {
    if shows_table(c, style, table) {
        return render_table(c, style);
    }
    let mut out = header_text(c, style.width, &legend(c));
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
                .map(|r| plain_cell(r, n).chars().count())
                .chain([column(c, n).chars().count()])
                .max()
                .unwrap_or(1)
                .min(40)
        })
        .collect();
    let mut section: Option<RowSection> = None;
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
            line.push_str(&format!("  {:>w$}", plain_cell(r, n), w = *w));
        }
        if c.sides.len() == 2 {
            out.push_str(&verdict_lines(line, r, style));
        } else {
            let words: Vec<String> = (1..c.sides.len())
                .map(|n| style.paint(&verdict_words(r, n), &r.verdicts[n]))
                .collect();
            line.push_str("  ");
            line.push_str(&words.join(" | "));
            out.push_str(line.trim_end());
            out.push('\n');
        }
        // the marks on a line of their own: a mark widens no column
        let marks: Vec<String> = (0..c.sides.len())
            .filter(|&n| !r.marks[n].is_empty())
            .map(|n| format!("{} {}", column(c, n), r.marks[n].join(", ")))
            .collect();
        if !marks.is_empty() {
            out.push_str(&under(
                &format!("marked: {}", marks.join("; ")),
                4,
                None,
                style,
            ));
        }
    }
    if !c.missing.is_empty() {
        out.push_str("\n[ Missing ]\n");
        for m in &c.missing {
            out.push_str(&format!("{m}\n"));
        }
    }
    out
}

/// A figure's line of two sides (`line`, its label and cells) with the
/// verdict after it, and the verdict's detail after that while the line
/// stays within `style.width`; what does not fit goes on the next line,
/// under the verdict when there is room, else indented.
fn verdict_lines(line: String, r: &Row, style: &Style) -> String {
    let (words, detail) = verdict_parts(r, 1);
    let at = line.chars().count() + 2;
    let (wn, dn) = (words.chars().count(), detail.chars().count());
    let painted = style.paint(&words, &r.verdicts[1]);
    let mut out = line;
    if words.is_empty() {
        return out.trim_end().to_string() + "\n";
    }
    let both = if detail.is_empty() { wn } else { wn + 2 + dn };
    if at + both <= style.width {
        out.push_str(&format!("  {painted}"));
        if !detail.is_empty() {
            out.push_str(&format!("  {detail}"));
        }
        return out + "\n";
    }
    if at + wn <= style.width {
        out.push_str(&format!("  {painted}\n"));
    } else {
        out = out.trim_end().to_string() + "\n";
        out.push_str(&under(&words, at, Some(&r.verdicts[1]), style));
    }
    if !detail.is_empty() {
        out.push_str(&under(&detail, at, None, style));
    }
    out
}

/// `text` on lines of its own: from column `at` when it fits there, else
/// 4 columns in, wrapped to the width (left whole when under 20 columns
/// would be left); each line painted as `verdict` says, if given.
fn under(text: &str, at: usize, verdict: Option<&Verdict>, style: &Style) -> String {
    let paint = |t: &str| verdict.map_or_else(|| t.to_string(), |v| style.paint(t, v));
    if at + text.chars().count() <= style.width {
        return format!("{}{}\n", " ".repeat(at), paint(text));
    }
    const INDENT: usize = 4;
    let lines = if style.width >= INDENT + 20 {
        wrap(text, style.width - INDENT)
    } else {
        text.to_string()
    };
    lines
        .lines()
        .map(|l| format!("{}{}\n", " ".repeat(INDENT), paint(l)))
        .collect()
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
        let text = format!("same: {}", r.texts[0].clone().unwrap_or_default());
        return format!(
            "{:<label_w$}  {}",
            r.label,
            hanging(&text, label_w + 2, style)
        );
    }
    let mut s = format!("{:<label_w$}  ", r.label);
    let parts: Vec<String> = (0..c.sides.len())
        .map(|n| {
            let t = r.texts[n].clone().unwrap_or_else(|| "(missing)".into());
            style.paint(&format!("{}: {t}", column(c, n)), &r.verdicts[n])
        })
        .collect();
    let text = format!("different: {}", parts.join(" | "));
    if style.color {
        // colour codes count no columns: left whole rather than cut
        s.push_str(&text);
        s.push('\n');
    } else if label_w + 2 + text.chars().count() <= style.width {
        s.push_str(&text);
        s.push('\n');
    } else {
        // too long for one line: each side on its own
        s.push_str("different:\n");
        for p in &parts {
            s.push_str(&" ".repeat(label_w + 2));
            s.push_str(&hanging(p, label_w + 2, style));
        }
    }
    s
}

/// `text` wrapped to the width left after `indent` columns, its next
/// lines indented by as much; unwrapped when too little is left.
fn hanging(text: &str, indent: usize, style: &Style) -> String {
    if style.width < indent + 20 {
        return format!("{text}\n");
    }
    let pad = " ".repeat(indent);
    let wrapped = wrap(text, style.width - indent);
    let mut out = String::new();
    for (i, l) in wrapped.lines().enumerate() {
        if i > 0 {
            out.push_str(&pad);
        }
        out.push_str(l);
        out.push('\n');
    }
    out
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
        .flat_map(|r| (0..c.sides.len()).map(move |n| plain_cell(r, n).chars().count()))
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

#[cfg(test)]
mod tests {
    use super::under;
    use crate::compare::style::Style;
    use crate::compare::verdict::Verdict;

    const LONG: &str =
        "x0.98 [0.73, 1.34]; ±5 % needs over 30 runs a side; 1 other I/O trial left out";

    #[test]
    fn what_fits_nowhere_is_wrapped_four_columns_in() {
        let style = |width| Style {
            color: false,
            width,
        };
        // Under the verdict when it fits there.
        assert_eq!(
            under(LONG, 10, None, &style(100)),
            format!("{}{LONG}\n", " ".repeat(10))
        );
        // Else 4 columns in, every line within the width, no word lost.
        for width in [40, 60, 80] {
            let text = under(LONG, 42, None, &style(width));
            assert!(text.lines().count() > 1, "{text}");
            for l in text.lines() {
                assert!(
                    l.starts_with("    ") && l.chars().count() <= width,
                    "{width}: {l:?}"
                );
            }
            let words: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(words, LONG.split_whitespace().collect::<Vec<_>>());
        }
        // Too narrow to wrap: left whole.
        assert_eq!(under(LONG, 42, None, &style(20)), format!("    {LONG}\n"));
        // Each line painted, so a colour never spans a line break.
        let colored = Style {
            color: true,
            width: 40,
        };
        for l in under(LONG, 42, Some(&Verdict::Better), &colored).lines() {
            assert!(
                l.starts_with("    \x1b[32m") && l.ends_with("\x1b[0m"),
                "{l:?}"
            );
        }
    }
}
