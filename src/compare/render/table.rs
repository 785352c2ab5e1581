//! The fleet table as text: one row per report, the key figures, their
//! median, and `*` after every outlier.

use super::header_text;
use crate::compare::comparison::Comparison;
use crate::compare::fleet::{outlier_rule, FleetTable};
use crate::compare::style::Style;
use crate::compare::verdict::Verdict;

/// The fleet table: one row per report, the key figures as columns, the
/// median, and `*` after every outlier (`fleet::outliers`, its rule in
/// `outlier_rule`).
pub fn render_table(c: &Comparison, style: &Style) -> String {
    let t = c.table.clone().unwrap_or_else(|| FleetTable {
        columns: Vec::new(),
        rows: Vec::new(),
        median: Vec::new(),
    });
    let mut out = header_text(c);
    out.push_str(&format!(
        "* {}; \u{2020} not comparable (another loop definition, an interrupted line, the bash latency column, a figure marked busy, steal or other I/O)\n\n",
        outlier_rule()
    ));
    let name_w = t
        .rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let cell = |v: Option<f64>, c: usize, mark: &str| {
        v.map_or("-".to_string(), |v| {
            format!("{}{mark}", t.columns[c].unit.short(v))
        })
    };
    let mut widths: Vec<usize> = t
        .columns
        .iter()
        .map(|col| {
            col.name
                .chars()
                .count()
                .max(col.unit.as_str().chars().count())
        })
        .collect();
    for r in &t.rows {
        for (c, v) in r.values.iter().enumerate() {
            widths[c] = widths[c].max(cell(*v, c, "*").chars().count());
        }
    }
    for (c, m) in t.median.iter().enumerate() {
        widths[c] = widths[c].max(cell(*m, c, "").chars().count());
    }
    let line = |name: &str, cells: Vec<String>| {
        let mut s = format!("{name:<name_w$}");
        for (c, text) in cells.iter().enumerate() {
            s.push_str(&format!("  {text:>w$}", w = widths[c]));
        }
        s.trim_end().to_string() + "\n"
    };
    out.push_str(&line(
        "report",
        t.columns.iter().map(|c| c.name.to_string()).collect(),
    ));
    out.push_str(&line(
        "",
        t.columns.iter().map(|c| c.unit.to_string()).collect(),
    ));
    for r in &t.rows {
        let cells = (0..t.columns.len())
            .map(|c| {
                let mark = if r.outlier[c].is_some() {
                    "*"
                } else if r.not_comparable[c] {
                    "\u{2020}"
                } else {
                    ""
                };
                let text = cell(r.values[c], c, mark);
                let text = format!("{text:>w$}", w = widths[c]);
                if r.outlier[c].is_some() {
                    style.paint(&text, &Verdict::Worse)
                } else {
                    text
                }
            })
            .collect();
        out.push_str(&line(&r.name, cells));
    }
    out.push_str(&line(
        "median",
        (0..t.columns.len())
            .map(|c| cell(t.median[c], c, ""))
            .collect(),
    ));
    out
}
