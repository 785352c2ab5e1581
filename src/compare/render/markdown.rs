//! The comparison as GitHub-flavoured Markdown (`compare --markdown`), to
//! paste into a ticket or a pull request: who each side is and the
//! legend as paragraphs, then for two sides one pipe table per section
//! (the line, A, B and the verdict with its glyph and interval, as the
//! text shows them), or for more sides the fleet table (one row per side,
//! the key figures, `*` after an outlier, `†` after a figure that does
//! not compare, the median).
//!
//! Every text taken from a report (host, file and device names, model
//! names) can hold Markdown: each cell and line escapes the punctuation
//! that GFM reads inline (`|` ends a cell, `*` and `_` emphasise, `<`
//! opens HTML, `[` a link...), and line breaks become spaces, so that a
//! name cannot break a table or add markup.

use super::{cell_text, column, legend, section_title, side_text, verdict_words};
use crate::compare::comparison::Comparison;
use crate::compare::fleet::outlier_rule;

/// The comparison as Markdown: two sides, or the fleet table for more.
pub fn render_markdown(c: &Comparison) -> String {
    let mut out = String::new();
    for n in 0..c.sides.len() {
        out.push_str(&format!(
            "- **{}**: {}{}\n",
            md(&column(c, n)),
            md(&side_text(c, n)),
            if n == 0 { ", the reference" } else { "" }
        ));
    }
    out.push('\n');
    for l in legend(c) {
        out.push_str(&format!("{}\n\n", md(&l)));
    }
    for w in &c.warnings {
        out.push_str(&format!("**Warning**: {}\n\n", md(w)));
    }
    if c.sides.len() > 2 {
        fleet(c, &mut out);
    } else {
        pair(c, &mut out);
    }
    if !c.missing.is_empty() {
        out.push_str("\n### Missing\n\n");
        for m in &c.missing {
            out.push_str(&format!("- {}\n", md(m)));
        }
    }
    out
}

/// One table per section: the line, each side's figure (with its marks),
/// and the verdict of B against A (`same` / `different` for information
/// lines).
fn pair(c: &Comparison, out: &mut String) {
    let mut section = None;
    for (i, r) in c.rows.iter().enumerate() {
        if section != Some(&r.section) {
            section = Some(&r.section);
            out.push_str(&format!("### {}\n\n", md(&section_title(c, r.section))));
            let mut head = String::from("| |");
            let mut rule = String::from("| --- |");
            for n in 0..c.sides.len() {
                head.push_str(&format!(" {} |", md(&column(c, n))));
                rule.push_str(" ---: |");
            }
            head.push_str(" B/A |\n");
            rule.push_str(" --- |\n");
            out.push_str(&head);
            out.push_str(&rule);
        }
        let mut line = format!("| {} |", md(&r.label));
        for n in 0..c.sides.len() {
            line.push_str(&format!(" {} |", md(&cell_text(r, n))));
        }
        let words: Vec<String> = (1..c.sides.len()).map(|n| verdict_words(r, n)).collect();
        line.push_str(&format!(" {} |\n", md(&words.join(" | "))));
        out.push_str(&line);
        if c.rows.get(i + 1).is_none_or(|x| x.section != r.section) {
            out.push('\n');
        }
    }
}

/// The fleet table: one row per side, the key figures, the median.
fn fleet(c: &Comparison, out: &mut String) {
    let Some(t) = &c.table else { return };
    out.push_str(&format!(
        "{}\n\n",
        md(&format!(
            "* {}; \u{2020} not comparable (another loop definition, an interrupted line, the bash latency column, a figure marked busy, steal or other I/O)",
            outlier_rule()
        ))
    ));
    let mut head = String::from("| report |");
    let mut rule = String::from("| --- |");
    for col in &t.columns {
        head.push_str(&format!(" {} ({}) |", md(col.name), md(col.unit.as_str())));
        rule.push_str(" ---: |");
    }
    out.push_str(&format!("{head}\n{rule}\n"));
    let cell = |v: Option<f64>, col: usize, mark: &str| {
        v.map_or("-".to_string(), |v| {
            format!("{}{mark}", t.columns[col].unit.short(v))
        })
    };
    for r in &t.rows {
        let mut line = format!("| {} |", md(&r.name));
        for col in 0..t.columns.len() {
            let mark = if r.outlier[col].is_some() {
                "*"
            } else if r.not_comparable[col] {
                "\u{2020}"
            } else {
                ""
            };
            line.push_str(&format!(" {} |", md(&cell(r.values[col], col, mark))));
        }
        out.push_str(&line);
        out.push('\n');
    }
    let mut line = String::from("| median |");
    for (col, m) in t.median.iter().enumerate() {
        line.push_str(&format!(" {} |", md(&cell(*m, col, ""))));
    }
    out.push_str(&line);
    out.push('\n');
}

/// `s` as inline Markdown text that renders as itself: line breaks and
/// other control characters become spaces, and the punctuation GFM reads
/// inline (backslash, `|`, `*`, `_`, `` ` ``, `[`, `]`, `<`, `>`, `&`,
/// `~`, `#`) is backslash-escaped.
pub fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '&' | '~' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::md;

    #[test]
    fn markup_in_names_is_escaped() {
        assert_eq!(md("a|b"), "a\\|b");
        assert_eq!(md("<b>x</b>"), "\\<b\\>x\\</b\\>");
        assert_eq!(md("c:\\dir *x* _y_"), "c:\\\\dir \\*x\\* \\_y\\_");
        assert_eq!(md("two\nlines\r"), "two lines ");
        assert_eq!(md("≈ x1.03 [0.99, 1.07]"), "≈ x1.03 \\[0.99, 1.07\\]");
    }
}
