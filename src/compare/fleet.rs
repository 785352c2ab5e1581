//! The fleet table: one row per report, the key figures as columns, their
//! median and the outliers.

use std::collections::HashMap;

use serde::Serialize;

use super::comparison::ReportInfo;
use super::facts::{Better, Method};
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
    /// Per figure, why it is flagged as an outlier ([`outliers`]), `None`
    /// where it is not; the JSON says `true` where flagged.
    #[serde(serialize_with = "flagged")]
    pub outlier: Vec<Option<String>>,
    /// True where the figure is not comparable with the others (another
    /// loop definition, the bash latency column, an interrupted line).
    pub not_comparable: Vec<bool>,
}

/// Why a key figure may not compare with the others of its column.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Tag {
    /// Its step did not run its whole time: it never compares.
    Ended,
    /// Measured so: it compares with the figures measured the same way.
    Method(Method),
}

/// A key figure of one report: its value, and its tag.
type KeyCell = Option<(f64, Option<Tag>)>;

/// The key figures: (heading, unit, better, how to find it).
type KeyFigure = (&'static str, &'static str, Better, fn(&Report) -> KeyCell);

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
    Some((
        pick(l).trunc(),
        (!l.end.is_complete()).then_some(Tag::Ended),
    ))
}

const KEY_FIGURES: [KeyFigure; 10] = [
    ("CPU 1 job", "loop/job/s", Better::Higher, |r| {
        let s = r.cpu_loop.first()?;
        Some((
            s.loops_per_s_mean.trunc(),
            cpu_method(r, !s.end.is_complete()),
        ))
    }),
    ("CPU max jobs", "loop/job/s", Better::Higher, |r| {
        let s = r.cpu_loop.last()?;
        Some((
            s.loops_per_s_mean.trunc(),
            cpu_method(r, !s.end.is_complete()),
        ))
    }),
    ("Memory", "B/s", Better::Higher, |r| {
        let b = r.memory.as_ref()?.dd_bandwidth.as_ref()?;
        Some((
            b.bytes_per_s(),
            (!b.end.is_complete()).then_some(Tag::Ended),
        ))
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
        let bad = bad.or(r
            .original
            .as_ref()
            .map(|_| Tag::Method(Method::BashQueueTime)));
        Some((v, bad))
    }),
];

/// The CPU loop's tag: other loop definitions never compare.
fn cpu_method(r: &Report, cut: bool) -> Option<Tag> {
    if cut {
        return Some(Tag::Ended);
    }
    Some(Tag::Method(match &r.original {
        Some(_) => Method::BashLoop,
        None => Method::Loop(r.quickbench.loop_version),
    }))
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
    let mut usual: Vec<Option<Tag>> = Vec::new();
    for c in 0..KEY_FIGURES.len() {
        let mut count: HashMap<Option<Tag>, usize> = HashMap::new();
        for row in &cells {
            if let Some((_, m)) = &row[c] {
                if *m != Some(Tag::Ended) {
                    *count.entry(m.clone()).or_default() += 1;
                }
            }
        }
        // Ties go to the method named last in alphabetical order.
        let name = |m: &Option<Tag>| match m {
            Some(Tag::Method(m)) => Some(m.to_string()),
            _ => None,
        };
        usual.push(
            count
                .into_iter()
                .max_by_key(|(m, n)| (*n, name(m)))
                .and_then(|(m, _)| m),
        );
    }
    let ok = |c: usize, cell: &KeyCell| matches!(cell, Some((_, m)) if *m != Some(Tag::Ended) && (m.is_none() || *m == usual[c]));
    let columns: Vec<(Option<f64>, Vec<Option<String>>)> = (0..KEY_FIGURES.len())
        .map(|c| {
            let comparable: Vec<Option<f64>> = cells
                .iter()
                .map(|row| ok(c, &row[c]).then(|| row[c].as_ref().map(|(v, _)| *v))?)
                .collect();
            outliers(&comparable, KEY_FIGURES[c].2)
        })
        .collect();
    let rows = cells
        .iter()
        .zip(reports)
        .enumerate()
        .map(|(n, (row, info))| FleetRow {
            name: info.name.clone(),
            values: row.iter().map(|c| c.as_ref().map(|(v, _)| *v)).collect(),
            outlier: columns.iter().map(|(_, why)| why[n].clone()).collect(),
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
        median: columns.into_iter().map(|(m, _)| m).collect(),
    }
}

/// The outlier rule, in words: what `*` and the page's red dots mean.
pub fn outlier_rule() -> String {
    format!(
        "more than {} % worse than the median",
        (OUTLIER_BEYOND * 100.0) as u32
    )
}

/// The outlier rule, for one key figure: the median of the comparable
/// figures (`comparable[n]`: report `n`'s figure, `None` when it lacks it
/// or it does not compare), and for each report why its figure is flagged
/// (`None`: it is not). Flagged: more than [`OUTLIER_BEYOND`] worse than
/// the median in the figure's direction. The fleet table and every
/// renderer take the decision and its reason from here.
pub fn outliers(comparable: &[Option<f64>], better: Better) -> (Option<f64>, Vec<Option<String>>) {
    let m = median(comparable.iter().flatten().copied().collect());
    let why = comparable
        .iter()
        .map(|v| {
            let (v, m) = ((*v)?, m.filter(|m| *m > 0.0)?);
            let off = match better {
                Better::Higher if v < m * (1.0 - OUTLIER_BEYOND) => (1.0 - v / m, "below"),
                Better::Lower if v > m * (1.0 + OUTLIER_BEYOND) => (v / m - 1.0, "above"),
                _ => return None,
            };
            Some(format!(
                "{:.0} % {} the median (the limit: {} % worse)",
                off.0 * 100.0,
                off.1,
                (OUTLIER_BEYOND * 100.0) as u32
            ))
        })
        .collect();
    (m, why)
}

/// `outlier` in the JSON: `true` where flagged.
fn flagged<S: serde::Serializer>(why: &[Option<String>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(why.iter().map(Option::is_some))
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

    #[test]
    fn outliers_are_more_than_15_percent_worse_than_the_median() {
        let (m, why) = outliers(
            &[
                Some(100.0),
                Some(100.0),
                Some(100.0),
                Some(84.0),
                Some(86.0),
                None,
            ],
            Better::Higher,
        );
        assert_eq!(m, Some(100.0));
        assert_eq!(
            why[3].as_deref(),
            Some("16 % below the median (the limit: 15 % worse)")
        );
        assert_eq!(why.iter().filter(|w| w.is_some()).count(), 1, "{why:?}");
        // latency: higher is worse
        let (m, why) = outliers(
            &[
                Some(40.0),
                Some(40.0),
                Some(40.0),
                Some(48.0),
                Some(45.0),
                Some(20.0),
            ],
            Better::Lower,
        );
        assert_eq!(m, Some(40.0));
        assert_eq!(
            why[3].as_deref(),
            Some("20 % above the median (the limit: 15 % worse)")
        );
        assert_eq!(why.iter().filter(|w| w.is_some()).count(), 1, "{why:?}");
        // a zero median flags nothing
        let (_, why) = outliers(&[Some(0.0), Some(0.0), Some(5.0)], Better::Lower);
        assert!(why.iter().all(Option::is_none));
    }
}
