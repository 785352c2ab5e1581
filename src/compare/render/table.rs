//! The fleet table as text: one row per report, the key figures, their
//! median, and `*` after every outlier.

use super::{busy_legend, header_text};
use crate::compare::comparison::Comparison;
use crate::compare::fleet::{outlier_rule, FleetTable};
use crate::compare::style::Style;
use crate::compare::verdict::Verdict;

/// The fleet table's legend line on the dagger.
pub(super) const NOT_COMPARABLE: &str = "\u{2020} not comparable: another loop definition, an interrupted line, the bash latency column, or a figure marked busy, steal or other I/O.";

/// The fleet table: one row per report, the key figures as columns, the
/// median, and `*` after every outlier (`fleet::outliers`, its rule in
/// `outlier_rule`).
pub fn render_table(c: &Comparison, style: &Style) -> String {
    let t = c.table.clone().unwrap_or_else(|| FleetTable {
        columns: Vec::new(),
        rows: Vec::new(),
        median: Vec::new(),
    });
    // Only what the table shows: its marks, not the pair verdicts.
    let mut legend = vec![
        format!("* an outlier: {}.", outlier_rule()),
        NOT_COMPARABLE.to_string(),
    ];
    legend.extend(busy_legend(c));
    let mut out = header_text(c, style.width, &legend);
    out.push('\n');
    let name_w = t
        .rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    // A figure that says its unit (the memory's `30.9 GB/s`): the header
    // says the unit when every cell shares it, the cells then only the
    // number; cells of several prefixes keep theirs under an empty unit.
    let shared: Vec<Option<String>> = (0..t.columns.len())
        .map(|c| {
            if !t.columns[c].unit.in_text() {
                return Some(t.columns[c].unit.to_string());
            }
            let mut units = t
                .rows
                .iter()
                .filter_map(|r| r.values[c])
                .chain(t.median[c])
                .map(|v| {
                    let s = t.columns[c].unit.short(v);
                    s.rsplit_once(' ')
                        .map_or(String::new(), |(_, u)| u.to_string())
                });
            let first = units.next()?;
            units.all(|u| u == first).then_some(first)
        })
        .collect();
    let cell = |v: Option<f64>, c: usize, mark: &str| {
        v.map_or("-".to_string(), |v| {
            let s = t.columns[c].unit.short(v);
            let s = match (&shared[c], t.columns[c].unit.in_text()) {
                (Some(u), true) => s.trim_end_matches(u.as_str()).trim_end().to_string(),
                _ => s,
            };
            format!("{s}{mark}")
        })
    };
    let mut widths: Vec<usize> = t
        .columns
        .iter()
        .zip(&shared)
        .map(|(col, u)| {
            col.name
                .chars()
                .count()
                .max(u.as_deref().unwrap_or("").chars().count())
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
    let mut table: Vec<(String, Vec<String>)> = vec![
        (
            "report".into(),
            t.columns.iter().map(|c| c.name.to_string()).collect(),
        ),
        (
            String::new(),
            shared
                .iter()
                .map(|u| u.clone().unwrap_or_default())
                .collect(),
        ),
    ];
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
        table.push((r.name.clone(), cells));
    }
    table.push((
        "median".into(),
        (0..t.columns.len())
            .map(|c| cell(t.median[c], c, ""))
            .collect(),
    ));
    // Columns that do not fit the width go to a next block, each block
    // led by the report names.
    let mut blocks: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = name_w;
    for (c, w) in widths.iter().enumerate() {
        let last = blocks.last_mut().expect("one block");
        if !last.is_empty() && used + 2 + w > style.width {
            blocks.push(vec![c]);
            used = name_w + 2 + w;
        } else {
            last.push(c);
            used += 2 + w;
        }
    }
    for (b, cols) in blocks.iter().enumerate() {
        if b > 0 {
            out.push('\n');
        }
        for (name, cells) in &table {
            let mut s = format!("{name:<name_w$}");
            for &c in cols {
                s.push_str(&format!("  {:>w$}", cells[c], w = widths[c]));
            }
            out.push_str(s.trim_end());
            out.push('\n');
        }
    }
    out
}
