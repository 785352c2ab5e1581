//! The fleet table: one row per report, the key figures as columns, their
//! median and the outliers.

use std::collections::HashMap;

use serde::Serialize;

use super::comparison::ReportInfo;
use super::facts::Better;
use super::load::Input;
use crate::dd_io::Direction;
use crate::model::{BlockSize, Report};

/// In the fleet table, a figure this much worse than the median is marked.
pub const OUTLIER_BEYOND: f64 = 0.15;

/// The fleet table: one row per report, the key figures as columns.
#[derive(Debug, Clone, Serialize)]
pub struct FleetTable {
    /// The columns' headings.
    pub columns: Vec<FleetColumn>,
    /// One row per report, in input order.
    pub rows: Vec<FleetRow>,
    /// The median of each column (over the reports that have it and whose
    /// figure is comparable with the first report's).
    pub median: Vec<Option<f64>>,
}

/// A column of the fleet table.
#[derive(Debug, Clone, Serialize)]
pub struct FleetColumn {
    /// Short heading.
    pub name: &'static str,
    /// Unit of the values.
    pub unit: &'static str,
    /// Which way is better.
    pub better: Better,
}

/// A report's row of the fleet table.
#[derive(Debug, Clone, Serialize)]
pub struct FleetRow {
    /// The report's name.
    pub name: String,
    /// The figures (`null` when the report lacks it).
    pub values: Vec<Option<f64>>,
    /// True where the figure is more than 15 % worse than the median.
    pub outlier: Vec<bool>,
    /// True where the figure is not comparable with the others (another
    /// loop definition, the bash latency column, an interrupted line).
    pub not_comparable: Vec<bool>,
}

/// A key figure of one report: its value, and why it does not compare
/// with the usual one when it does not (`interrupted`, `bash loop`).
type KeyCell = Option<(f64, Option<String>)>;

/// The key figures: (heading, unit, better, how to find it).
type KeyFigure = (
    &'static str,
    &'static str,
    Better,
    fn(&Report) -> Option<(f64, Option<String>)>,
);

fn io_figure(
    r: &Report,
    bs: BlockSize,
    dir: Direction,
    jobs: u32,
    pick: fn(&crate::dd_io::LineResult) -> f64,
) -> KeyCell {
    let l = r
        .lines_of(bs)
        .find(|l| l.direction == dir && l.jobs == jobs)?;
    let bad = l.cut_short || l.error.is_some();
    Some((pick(l).trunc(), bad.then(|| "interrupted".into())))
}

const KEY_FIGURES: [KeyFigure; 10] = [
    ("CPU 1 job", "loop/job/s", Better::Higher, |r| {
        let s = r.cpu_loop.first()?;
        Some((s.loops_per_s_mean.trunc(), cpu_method(r, s.cut_short)))
    }),
    ("CPU max jobs", "loop/job/s", Better::Higher, |r| {
        let s = r.cpu_loop.last()?;
        Some((s.loops_per_s_mean.trunc(), cpu_method(r, s.cut_short)))
    }),
    ("Memory", "B/s", Better::Higher, |r| {
        let b = r.memory.as_ref()?.dd_bandwidth.as_ref()?;
        Some((b.bytes_per_s(), b.cut_short.then(|| "interrupted".into())))
    }),
    ("4k W 1j", "IO/s", Better::Higher, |r| {
        io_figure(r, BlockSize::K4, Direction::Write, 1, |l| l.iops)
    }),
    ("4k W 16j", "IO/s", Better::Higher, |r| {
        io_figure(r, BlockSize::K4, Direction::Write, 16, |l| l.iops)
    }),
    ("4k R 1j", "IO/s", Better::Higher, |r| {
        io_figure(r, BlockSize::K4, Direction::Read, 1, |l| l.iops)
    }),
    ("4k R 16j", "IO/s", Better::Higher, |r| {
        io_figure(r, BlockSize::K4, Direction::Read, 16, |l| l.iops)
    }),
    ("1M W 16j", "MB/s", Better::Higher, |r| {
        io_figure(r, BlockSize::M1, Direction::Write, 16, |l| l.mb_per_s)
    }),
    ("1M R 16j", "MB/s", Better::Higher, |r| {
        io_figure(r, BlockSize::M1, Direction::Read, 16, |l| l.mb_per_s)
    }),
    ("4k R 1j lat", "µs", Better::Lower, |r| {
        let (v, bad) = io_figure(r, BlockSize::K4, Direction::Read, 1, |l| l.lat_mean_us)?;
        let bad = bad.or(r.original.as_ref().map(|_| "bash queue time".into()));
        Some((v, bad))
    }),
];

/// The CPU loop's method tag: other loop definitions never compare.
fn cpu_method(r: &Report, cut: bool) -> Option<String> {
    if cut {
        return Some("interrupted".into());
    }
    Some(match &r.original {
        Some(_) => "bash loop".into(),
        None => format!("loop v{}", r.quickbench.loop_version),
    })
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The fleet table of `inputs`.
pub fn fleet_table(inputs: &[Input], reports: &[ReportInfo]) -> FleetTable {
    let cells: Vec<Vec<KeyCell>> = inputs
        .iter()
        .map(|i| KEY_FIGURES.iter().map(|k| (k.3)(&i.report)).collect())
        .collect();
    // A figure is comparable when its method is the most common one of its
    // column (CPU figures: the loop definition most reports used).
    let mut usual: Vec<Option<String>> = Vec::new();
    for c in 0..KEY_FIGURES.len() {
        let mut count: HashMap<Option<String>, usize> = HashMap::new();
        for row in &cells {
            if let Some((_, m)) = &row[c] {
                if m.as_deref() != Some("interrupted") {
                    *count.entry(m.clone()).or_default() += 1;
                }
            }
        }
        usual.push(
            count
                .into_iter()
                .max_by_key(|(m, n)| (*n, m.clone()))
                .and_then(|(m, _)| m),
        );
    }
    let ok = |c: usize, cell: &Option<(f64, Option<String>)>| matches!(cell, Some((_, m)) if m.as_deref() != Some("interrupted") && (m.is_none() || *m == usual[c]));
    let medians: Vec<Option<f64>> = (0..KEY_FIGURES.len())
        .map(|c| {
            median(
                cells
                    .iter()
                    .filter(|row| ok(c, &row[c]))
                    .filter_map(|row| row[c].as_ref().map(|(v, _)| *v))
                    .collect(),
            )
        })
        .collect();
    let rows = cells
        .iter()
        .zip(reports)
        .map(|(row, info)| FleetRow {
            name: info.name.clone(),
            values: row.iter().map(|c| c.as_ref().map(|(v, _)| *v)).collect(),
            outlier: row
                .iter()
                .enumerate()
                .map(|(c, cell)| match (cell, medians[c]) {
                    (Some((v, _)), Some(m)) if ok(c, cell) && m > 0.0 => match KEY_FIGURES[c].2 {
                        Better::Higher => *v < m * (1.0 - OUTLIER_BEYOND),
                        Better::Lower => *v > m * (1.0 + OUTLIER_BEYOND),
                    },
                    _ => false,
                })
                .collect(),
            not_comparable: row
                .iter()
                .enumerate()
                .map(|(c, cell)| cell.is_some() && !ok(c, cell))
                .collect(),
        })
        .collect();
    FleetTable {
        columns: KEY_FIGURES
            .iter()
            .map(|k| FleetColumn {
                name: k.0,
                unit: k.1,
                better: k.2,
            })
            .collect(),
        rows,
        median: medians,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(vec![]), None);
    }
}
