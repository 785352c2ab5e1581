//! The comparison as data: every report's facts lined up by key, the
//! reports grouped into sides ([`super::sides`]), the first side being the
//! reference, with a verdict in every cell.

use std::collections::HashMap;

use serde::Serialize;

use super::fact::{Better, Fact, RowSection, Unit};
use super::fleet::{fleet_table, FleetTable};
use super::load::Input;
use super::sides::{report_infos, side_fact, sides, Grouping, ReportInfo, Side};
use super::verdict::{judge_pair, spreads_of_pair, Detail, Judged, SideFact, Verdict};
use crate::stats::Spread;

/// Version of the `--json` comparison's layout. 2: the per-column arrays
/// of a row are per side (a side may hold several reports), and a
/// figure's verdict reads its interval (`judged`), not the ratio alone.
pub const COMPARE_SCHEMA_VERSION: u32 = 2;

/// One line of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The section.
    pub section: RowSection,
    /// The line's label.
    pub label: String,
    /// A figure or an information line.
    pub kind: RowKind,
    /// For figures: which way is better.
    pub better: Option<Better>,
    /// For figures: the unit of `values`.
    pub unit: Option<Unit>,
    /// Per side: the figure, the median of its reports' (`null` when
    /// missing or not a figure).
    pub values: Vec<Option<f64>>,
    /// Per side: as printed (`null` when missing).
    pub texts: Vec<Option<String>>,
    /// Per side: the line's marks.
    pub marks: Vec<Vec<String>>,
    /// Per side: the estimate of its figure over the first side's (`null`
    /// when none).
    pub ratios: Vec<Option<f64>>,
    /// Per side: the verdict.
    pub verdicts: Vec<Verdict>,
    /// Per side: how the figure was judged (`null` for the reference, an
    /// information line, or a figure not compared).
    pub judged: Vec<Option<Judged>>,
}

/// What a row holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// A figure, with its verdicts.
    Figure,
    /// An information line: same or different.
    Info,
}

/// The comparison of two or more sides.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Version of this document's layout.
    pub compare_schema_version: u32,
    /// The reports, in input order.
    pub reports: Vec<ReportInfo>,
    /// The sides (the columns), the first being the reference.
    pub sides: Vec<Side>,
    /// What makes the figures less comparable (different loop delays...).
    pub warnings: Vec<String>,
    /// Every line of every report, in report order.
    pub rows: Vec<Row>,
    /// `report: [ section ] line` for each line a report lacks.
    pub missing: Vec<String>,
    /// With more than two sides: the fleet table.
    pub table: Option<FleetTable>,
    /// For an output that shows no verdict ([`Detail::KeyFigures`]): how
    /// each figure that would be judged would be read, and its section,
    /// for the legend.
    #[serde(skip)]
    pub unjudged_spreads: Vec<(RowSection, Spread)>,
}

/// Lines up `inputs`' facts, grouped into sides automatically
/// ([`Grouping::Auto`]), and decides every verdict.
pub fn compare(inputs: &[Input]) -> Comparison {
    compare_grouped(inputs, Grouping::Auto)
}

/// Lines up `inputs`' facts, grouped into sides as `grouping` says, and
/// decides every verdict.
pub fn compare_grouped(inputs: &[Input], grouping: Grouping) -> Comparison {
    compare_for(inputs, grouping, |_| Detail::Full)
}

/// Lines up `inputs`' facts, grouped into sides as `grouping` says, and
/// computes what the output shows: `detail` reads the comparison before
/// any verdict (its sides, rows and texts) and says how much of each
/// pair's judgement it needs. The fleet table and page need none; the
/// text no bootstrap.
pub fn compare_for(
    inputs: &[Input],
    grouping: Grouping,
    detail: impl FnOnce(&Comparison) -> Detail,
) -> Comparison {
    let all: Vec<&[Fact]> = inputs.iter().map(|i| i.facts.as_slice()).collect();
    // The keys in report order: sections in the order they first appear,
    // lines within a section in the order they first appear.
    let mut sections: Vec<RowSection> = Vec::new();
    let mut keys: Vec<(usize, RowSection, &str)> = Vec::new();
    let mut index: HashMap<(RowSection, &str), usize> = HashMap::new();
    for f in all.iter().flat_map(|fs| fs.iter()) {
        let s = match sections.iter().position(|s| *s == f.section()) {
            Some(s) => s,
            None => {
                sections.push(f.section());
                sections.len() - 1
            }
        };
        if let std::collections::hash_map::Entry::Vacant(e) = index.entry((f.section(), f.label()))
        {
            e.insert(keys.len());
            keys.push((s, f.section(), f.label()));
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| (keys[i].0, i));
    let by_key: Vec<HashMap<(RowSection, &str), &Fact>> = all
        .iter()
        .map(|fs| fs.iter().map(|f| ((f.section(), f.label()), f)).collect())
        .collect();
    let reports = report_infos(inputs);
    let sides = sides(inputs, &reports, grouping);
    let mut missing = Vec::new();
    // Each side's view of each line, in row order.
    let mut cells: Vec<Vec<Option<SideFact>>> = Vec::with_capacity(order.len());
    for &i in &order {
        let (_, section, label) = keys[i];
        let key = (section, label);
        for (n, m) in by_key.iter().enumerate() {
            if !m.contains_key(&key) {
                missing.push(format!("{}: [ {section} ] {label}", reports[n].name));
            }
        }
        cells.push(
            sides
                .iter()
                .map(|s| {
                    let facts: Vec<&Fact> = s
                        .reports
                        .iter()
                        .filter_map(|&n| by_key[n].get(&key).copied())
                        .collect();
                    side_fact(&facts)
                })
                .collect(),
        );
    }
    let build = |judged: &dyn Fn(usize, usize) -> (Verdict, Option<Judged>)| -> Vec<Row> {
        order
            .iter()
            .enumerate()
            .map(|(r, &i)| {
                let (_, section, label) = keys[i];
                row(section, label, &cells[r], |n| judged(n, r))
            })
            .collect()
    };
    let table = (sides.len() > 2).then(|| fleet_table(&all, &sides));
    let mut c = Comparison {
        compare_schema_version: COMPARE_SCHEMA_VERSION,
        warnings: warnings(inputs, &reports),
        reports,
        sides,
        rows: build(&|_, _| (Verdict::NotJudged, None)),
        missing,
        table,
        unjudged_spreads: Vec::new(),
    };
    // One family per pair of sides: the reference against side n.
    let pair = |n: usize| -> Vec<(Option<&SideFact>, Option<&SideFact>)> {
        cells
            .iter()
            .map(|c| (c[0].as_ref(), c[n].as_ref()))
            .collect()
    };
    match detail(&c) {
        Detail::KeyFigures => {
            c.unjudged_spreads = (1..c.sides.len())
                .flat_map(|n| spreads_of_pair(&pair(n)))
                .map(|(r, s)| (c.rows[r].section, s))
                .collect();
        }
        d => {
            let judged = judge_pairs(c.sides.len(), &|n| judge_pair(&pair(n), d));
            c.rows = build(&|n, r| judged[n - 1][r].clone());
        }
    }
    c
}

/// The judgement of every pair (side n against the reference, n from 1),
/// in side order. A fleet's pairs are independent and each is a family of
/// its own, so they are judged on every CPU this process may use, in
/// contiguous runs of sides; the result is the same as one after the
/// other (each judgement depends on its pair alone, the bootstrap's seed
/// on its data).
fn judge_pairs<T: Send>(sides: usize, judge: &(dyn Fn(usize) -> T + Sync)) -> Vec<T> {
    let pairs: Vec<usize> = (1..sides).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(pairs.len() / PAIRS_A_THREAD)
        .max(1);
    if threads == 1 {
        return pairs.into_iter().map(judge).collect();
    }
    let chunk = pairs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = pairs
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|&n| judge(n)).collect::<Vec<T>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a judging thread panicked"))
            .collect()
    })
}

/// Pairs below which another thread costs more than it saves (a pair of
/// two reports' ~45 figures is judged in well under a millisecond).
const PAIRS_A_THREAD: usize = 16;

fn warnings(inputs: &[Input], reports: &[ReportInfo]) -> Vec<String> {
    let mut w = Vec::new();
    let delays: Vec<String> = reports
        .iter()
        .map(|r| {
            r.loop_delay_s
                .map_or("unknown".into(), |d| format!("{d} s"))
        })
        .collect();
    if delays.iter().any(|d| *d != delays[0]) {
        w.push(format!(
            "loop delays differ ({}): a short delay gives noisier figures, and the bash original's figures depend on it",
            each(reports, &delays)
        ));
    }
    // With --repeat, a step's trials run interleaved with the section's
    // other steps, round after round; run once, each step follows the
    // one before. Figures are comparable either way, but not measured
    // alike, and a side of 1 or 2 trials has its run-to-run spread
    // assumed where a side of 3 or more has it measured.
    // Trials within a delay are the same: a step's trials of --repeat
    // rounds of K trials each.
    let repeats: Vec<u32> = inputs.iter().map(|i| i.report.trials_per_step()).collect();
    if repeats.iter().any(|&n| n != repeats[0]) {
        w.push(format!(
            "trials per step differ ({}): steps repeated by --repeat or split into trials run interleaved, round after round, and a side of fewer than 3 trials has its run-to-run spread assumed; run every report with the same --repeat and --trials",
            each(reports, &repeats)
        ));
    }
    let bash: Vec<&str> = reports
        .iter()
        .filter(|r| r.origin == "bash original")
        .map(|r| r.name.as_str())
        .collect();
    if !bash.is_empty() && bash.len() < reports.len() {
        w.push(format!(
            "{} by the bash original: its CPU loop counts bash iterations (not comparable with this port's loop) and its latency column is queue time per I/O, not a latency",
            bash.join(", ")
        ));
    }
    for (i, r) in inputs.iter().zip(reports) {
        if !i.report.failed_sections.is_empty() {
            let names: Vec<&str> = i
                .report
                .failed_sections
                .iter()
                .map(|f| f.section.name())
                .collect();
            w.push(format!(
                "{}: sections that could not run: {}",
                r.name,
                names.join(", ")
            ));
        }
    }
    w
}

/// `a 30 s, b 5 s`: each report's name and its value, for a warning.
fn each(reports: &[ReportInfo], values: &[impl std::fmt::Display]) -> String {
    reports
        .iter()
        .zip(values)
        .map(|(r, v)| format!("{} {v}", r.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn row(
    section: RowSection,
    label: &str,
    cells: &[Option<SideFact>],
    judged: impl Fn(usize) -> (Verdict, Option<Judged>),
) -> Row {
    let first = cells.iter().flatten().next();
    let fig = first.and_then(|f| f.figure);
    let (verdicts, judged): (Vec<Verdict>, Vec<Option<Judged>>) = cells
        .iter()
        .enumerate()
        .map(|(n, c)| match (n, c) {
            (_, None) => (Verdict::Missing, None),
            (0, Some(_)) => (Verdict::Reference, None),
            _ => judged(n),
        })
        .unzip();
    Row {
        section,
        label: label.into(),
        kind: if fig.is_some() {
            RowKind::Figure
        } else {
            RowKind::Info
        },
        better: fig.map(|f| f.0),
        unit: fig.map(|f| f.1),
        values: cells
            .iter()
            .map(|c| c.as_ref().and_then(|f| f.value))
            .collect(),
        texts: cells
            .iter()
            .map(|c| c.as_ref().map(|f| f.text.clone()))
            .collect(),
        marks: cells
            .iter()
            .map(|c| c.as_ref().map(|f| f.marks.clone()).unwrap_or_default())
            .collect(),
        ratios: judged
            .iter()
            .zip(cells)
            .enumerate()
            .map(|(n, (j, c))| match (n, c) {
                (0, Some(c)) => c.value.filter(|v| *v > 0.0 && fig.is_some()).map(|_| 1.0),
                _ => j.as_ref().map(|j| j.ratio),
            })
            .collect(),
        verdicts,
        judged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_judged_on_several_threads_come_back_in_side_order() {
        for sides in [0, 1, 2, 17, 33, 100, 1001] {
            let seen = std::sync::Mutex::new(std::collections::HashSet::new());
            let got = judge_pairs(sides, &|n| {
                seen.lock().unwrap().insert(std::thread::current().id());
                n * 3
            });
            let want: Vec<usize> = (1..sides).map(|n| n * 3).collect();
            assert_eq!(got, want, "{sides} sides");
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            if sides > 2 * PAIRS_A_THREAD && cpus > 1 {
                assert!(
                    seen.lock().unwrap().len() > 1,
                    "{sides} sides on one thread"
                );
            }
        }
    }
}
