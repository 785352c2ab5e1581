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
    let cells = Cells {
        t: &t,
        shared: shared_units(&t),
    };
    let widths = cells.widths();
    let table = cells.lines(&widths, style);
    for (b, cols) in blocks(&widths, name_w, style.width).iter().enumerate() {
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

/// A figure that says its unit (the memory's `30.9 GB/s`): the header
/// says the unit when every cell shares it, the cells then only the
/// number; cells of several prefixes keep theirs under an empty unit.
/// One per column: `None` where the cells keep their units.
fn shared_units(t: &FleetTable) -> Vec<Option<String>> {
    (0..t.columns.len())
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
        .collect()
}

/// The table's cells, their units in the header where the column shares
/// one.
struct Cells<'a> {
    t: &'a FleetTable,
    shared: Vec<Option<String>>,
}

impl Cells<'_> {
    /// The text of value `v` of column `c`, `mark` after it; `-` for none.
    fn cell(&self, v: Option<f64>, c: usize, mark: &str) -> String {
        let unit = self.t.columns[c].unit;
        v.map_or("-".to_string(), |v| {
            let s = unit.short(v);
            let s = match (&self.shared[c], unit.in_text()) {
                (Some(u), true) => s.trim_end_matches(u.as_str()).trim_end().to_string(),
                _ => s,
            };
            format!("{s}{mark}")
        })
    }

    /// Each column's width: its name, its unit, its widest cell.
    fn widths(&self) -> Vec<usize> {
        let t = self.t;
        let mut widths: Vec<usize> = t
            .columns
            .iter()
            .zip(&self.shared)
            .map(|(col, u)| {
                col.name
                    .chars()
                    .count()
                    .max(u.as_deref().unwrap_or("").chars().count())
            })
            .collect();
        for r in &t.rows {
            for (c, v) in r.values.iter().enumerate() {
                widths[c] = widths[c].max(self.cell(*v, c, "*").chars().count());
            }
        }
        for (c, m) in t.median.iter().enumerate() {
            widths[c] = widths[c].max(self.cell(*m, c, "").chars().count());
        }
        widths
    }

    /// The table's lines, each a name and its cells: the figures' names,
    /// their units, a report a line (an outlier painted), the median.
    fn lines(&self, widths: &[usize], style: &Style) -> Vec<(String, Vec<String>)> {
        let t = self.t;
        let mut table: Vec<(String, Vec<String>)> = vec![
            (
                "report".into(),
                t.columns.iter().map(|c| c.name.to_string()).collect(),
            ),
            (
                String::new(),
                self.shared
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
                    let text = self.cell(r.values[c], c, mark);
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
                .map(|c| self.cell(t.median[c], c, ""))
                .collect(),
        ));
        table
    }
}

/// Columns that do not fit the width go to a next block, each block led
/// by the report names: the columns of each block.
fn blocks(widths: &[usize], name_w: usize, width: usize) -> Vec<Vec<usize>> {
    let mut blocks: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = name_w;
    for (c, w) in widths.iter().enumerate() {
        let last = blocks.last_mut().expect("one block");
        if !last.is_empty() && used + 2 + w > width {
            blocks.push(vec![c]);
            used = name_w + 2 + w;
        } else {
            last.push(c);
            used += 2 + w;
        }
    }
    blocks
}
