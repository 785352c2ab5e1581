//! The fleet table: one row per side (a host, with all its reports), the
//! key figures as columns, their median and the outliers by the robust
//! rule of [`crate::stats::fleet`].

use std::collections::HashMap;

use serde::Serialize;

use super::fact::{distortion, Better, Fact, Figure, FigureKey, LineId, Method, RowSection, Unit};
use super::sides::Side;
use super::verdict::bounded;
use crate::dd_io::Direction::{self, Read, Write};
use crate::model::BlockSize;
use crate::stats::describe::median;
use crate::stats::fleet::{fleet_outliers, FLOOR, Z_CUT};

/// The fleet table: one row per side, the key figures as columns.
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
    pub unit: Unit,
    /// Which way is better.
    pub better: Better,
}

/// A side's row of the fleet table.
#[derive(Debug, Clone, Serialize)]
pub struct FleetRow {
    /// The side's name.
    pub name: String,
    /// The figures, the median of the side's reports' (`null` when they
    /// lack it).
    pub values: Vec<Option<f64>>,
    /// Per figure, why it is flagged as an outlier ([`outliers`]), `None`
    /// where it is not; the JSON says `true` where flagged.
    #[serde(serialize_with = "flagged")]
    pub outlier: Vec<Option<String>>,
    /// True where the figure is not comparable with the others (another
    /// loop definition, the bash latency column, an interrupted line, a
    /// figure marked busy, steal or other I/O).
    pub not_comparable: Vec<bool>,
}

/// Why a key figure may not compare with the others of its column.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Tag {
    /// Its step did not run its whole time: it never compares.
    Ended,
    /// Its step was marked busy, steal or other I/O: it reads what ran
    /// beside it, as in a verdict, and never compares.
    Distorted,
    /// Measured so: it compares with the figures measured the same way.
    Method(Method),
}

/// A key figure of one report: its value, and its tag.
type KeyCell = Option<(f64, Option<Tag>)>;

/// Where a key figure is among a report's facts.
#[derive(Debug, Clone, Copy)]
enum Key {
    /// The first figure of a section (the CPU loop's 1 job).
    First(RowSection),
    /// The last figure of a section (the CPU loop's most jobs).
    Last(RowSection),
    /// The figure of this identity.
    Line(FigureKey),
}

/// The key figure of a storage line.
const fn storage(section: RowSection, direction: Direction, jobs: u32, unit: Unit) -> Key {
    Key::Line(FigureKey {
        section,
        line: LineId::Storage { direction, jobs },
        unit,
    })
}

/// The key figures: heading, unit, which way is better, and where each is.
const KEY_FIGURES: [(&str, Unit, Better, Key); 11] = {
    use Better::Higher;
    use RowSection::{CpuLoop, Memory, StorageLines};
    use Unit::{BytesPerSecond, IoPerSecond, LoopsPerJobPerSecond, MegabytesPerSecond};
    let k4 = StorageLines(BlockSize::K4);
    let m1 = StorageLines(BlockSize::M1);
    [
        (
            "CPU 1 job",
            LoopsPerJobPerSecond,
            Higher,
            Key::First(CpuLoop),
        ),
        (
            "CPU max jobs",
            LoopsPerJobPerSecond,
            Higher,
            Key::Last(CpuLoop),
        ),
        (
            "CPU 1j not shared",
            Unit::PercentOfTime,
            Higher,
            Key::Line(FigureKey {
                section: CpuLoop,
                line: LineId::NotShared(Some(1)),
                unit: Unit::PercentOfTime,
            }),
        ),
        (
            "Memory",
            BytesPerSecond,
            Higher,
            Key::Line(FigureKey {
                section: Memory,
                line: LineId::MemoryBandwidth,
                unit: BytesPerSecond,
            }),
        ),
        (
            "4k W 1j",
            IoPerSecond,
            Higher,
            storage(k4, Write, 1, IoPerSecond),
        ),
        (
            "4k W 16j",
            IoPerSecond,
            Higher,
            storage(k4, Write, 16, IoPerSecond),
        ),
        (
            "4k R 1j",
            IoPerSecond,
            Higher,
            storage(k4, Read, 1, IoPerSecond),
        ),
        (
            "4k R 16j",
            IoPerSecond,
            Higher,
            storage(k4, Read, 16, IoPerSecond),
        ),
        (
            "1M W 16j",
            MegabytesPerSecond,
            Higher,
            storage(m1, Write, 16, MegabytesPerSecond),
        ),
        (
            "1M R 16j",
            MegabytesPerSecond,
            Higher,
            storage(m1, Read, 16, MegabytesPerSecond),
        ),
        (
            "4k R 1j lat",
            // The heading names the mean; the unit is plain µs.
            Unit::Microseconds,
            Better::Lower,
            storage(k4, Read, 1, Unit::MeanLatencyMicroseconds),
        ),
    ]
};

/// A report's key figure, found among its facts.
fn key_cell(facts: &[Fact], key: Key) -> KeyCell {
    let mut figures = facts.iter().filter_map(Fact::figure);
    let f = match key {
        // The section's steps, not the rows of their tenancy.
        Key::First(s) => figures.find(|f| f.section == s && f.line.is_step()),
        Key::Last(s) => figures.rfind(|f| f.section == s && f.line.is_step()),
        Key::Line(key) => figures.find(|f| f.key() == key),
    }?;
    Some((f.value, tag(f)))
}

/// Why a key figure may not compare with others: a step that did not run
/// its whole time, or that a mark distorted; else the method it shares
/// only with figures measured alike (another loop definition, the bash
/// original's latency column). Our latency column compares with every
/// figure of its column that is not the bash one's.
fn tag(f: &Figure) -> Option<Tag> {
    if !f.end.is_complete() {
        Some(Tag::Ended)
    } else if distortion(&f.marks).is_some() {
        Some(Tag::Distorted)
    } else {
        f.method
            .clone()
            .filter(|m| *m != Method::CompletionLatency)
            .map(Tag::Method)
    }
}

/// A side's key figure: the median of its reports' figures when they
/// share one tag; else the first report's, not comparable. Distorted
/// figures count only when the side has no other.
fn side_cell(cells: &[&KeyCell]) -> KeyCell {
    let mut present: Vec<&(f64, Option<Tag>)> = cells.iter().filter_map(|c| c.as_ref()).collect();
    if present.iter().any(|c| c.1 != Some(Tag::Distorted)) {
        present.retain(|c| c.1 != Some(Tag::Distorted));
    }
    let first = present.first()?;
    let tag = &first.1;
    if present.iter().all(|c| c.1 == *tag) {
        let values: Vec<f64> = present.iter().map(|c| c.0).collect();
        return Some((median(&values)?, tag.clone()));
    }
    Some((first.0, Some(Tag::Ended)))
}

/// The fleet table of `sides`, from each report's facts.
pub fn fleet_table(facts: &[&[Fact]], sides: &[Side]) -> FleetTable {
    let per_report: Vec<Vec<KeyCell>> = facts
        .iter()
        .map(|fs| KEY_FIGURES.iter().map(|k| key_cell(fs, k.3)).collect())
        .collect();
    let cells: Vec<Vec<KeyCell>> = sides
        .iter()
        .map(|s| {
            (0..KEY_FIGURES.len())
                .map(|c| {
                    let of: Vec<&KeyCell> = s.reports.iter().map(|&n| &per_report[n][c]).collect();
                    side_cell(&of)
                })
                .collect()
        })
        .collect();
    // A figure is comparable when its method is the most common one of its
    // column (CPU figures: the loop definition most reports used).
    let mut usual: Vec<Option<Tag>> = Vec::new();
    for c in 0..KEY_FIGURES.len() {
        let mut count: HashMap<Option<Tag>, usize> = HashMap::new();
        for row in &cells {
            if let Some((_, m)) = &row[c] {
                if !matches!(m, Some(Tag::Ended | Tag::Distorted)) {
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
    let ok = |c: usize, cell: &KeyCell| matches!(cell, Some((_, m)) if !matches!(m, Some(Tag::Ended | Tag::Distorted)) && (m.is_none() || *m == usual[c]));
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
        .zip(sides)
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

/// The outlier rule, in words: what `*`, the page's red dots and "why
/// flagged" mean. The fleet table's legend and the page's read it here.
pub fn outlier_rule() -> String {
    format!(
        "robust z beyond {Z_CUT} on the worse side (modified z-score: the distance to the median over 1.4826 \u{d7} the MAD) and more than {} % worse than the median",
        (FLOOR * 100.0).round()
    )
}

/// The outlier rule, for one key figure: the median of the comparable
/// figures (`comparable[n]`: side `n`'s figure, `None` when it lacks it or
/// it does not compare), and for each side why its figure is flagged
/// (`None`: it is not). Flagged by [`fleet_outliers`]: a modified z-score
/// (Iglewicz & Hoaglin) beyond [`Z_CUT`] on the worse side and more than
/// [`FLOOR`] worse than the median. The fleet table and every renderer
/// take the decision and its reason from here.
pub fn outliers(comparable: &[Option<f64>], better: Better) -> (Option<f64>, Vec<Option<String>>) {
    let (at, values): (Vec<usize>, Vec<f64>) = comparable
        .iter()
        .enumerate()
        .filter_map(|(n, v)| v.map(|v| (n, v)))
        .unzip();
    let m = median(&values);
    let mut why = vec![None; comparable.len()];
    let side = match better {
        Better::Higher => "below",
        Better::Lower => "above",
    };
    for o in fleet_outliers(&values, better) {
        why[at[o.index]] = Some(format!(
            "{} % {side} the median, robust z {} (limit {Z_CUT})",
            bounded(o.worse_by * 100.0, 0),
            bounded(o.z, 1)
        ));
    }
    (m, why)
}

/// `outlier` in the JSON: `true` where flagged.
fn flagged<S: serde::Serializer>(why: &[Option<String>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(why.iter().map(Option::is_some))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::fact::FigureKind;

    #[test]
    fn a_key_figure_is_found_by_its_identity_not_its_words() {
        let figure = |label: &str, direction, unit, value| {
            let mut f = Figure::new(
                RowSection::StorageLines(BlockSize::K4),
                label,
                (Better::Higher, unit, FigureKind::Storage4k),
                value,
                format!("{value}"),
            );
            f.line = LineId::Storage { direction, jobs: 1 };
            Fact::Figure(f)
        };
        // Labels worded any way: the key reads the typed line and unit.
        let facts = [
            figure("w1 iops", Write, Unit::IoPerSecond, 10.0),
            figure("r1 mbps", Read, Unit::MegabytesPerSecond, 20.0),
            figure("r1 iops", Read, Unit::IoPerSecond, 30.0),
        ];
        let at = |heading: &str| KEY_FIGURES.iter().find(|k| k.0 == heading).unwrap().3;
        assert_eq!(key_cell(&facts, at("4k W 1j")).map(|c| c.0), Some(10.0));
        assert_eq!(key_cell(&facts, at("4k R 1j")).map(|c| c.0), Some(30.0));
        assert_eq!(key_cell(&facts, at("4k R 16j")), None);
    }

    #[test]
    fn outliers_by_the_robust_rule_say_why() {
        // The hosts of stats::fleet's reference test (numpy: z of 850 is
        // -16.9187, of 1200 +22.4271; the median 1000.5).
        let hosts = [
            1000.0, 1012.0, 995.0, 1003.0, 990.0, 1007.0, 850.0, 1001.0, 1200.0, 998.0,
        ];
        let mut v: Vec<Option<f64>> = hosts.iter().copied().map(Some).collect();
        v.push(None);
        let (m, why) = outliers(&v, Better::Higher);
        assert_eq!(m, Some(1000.5));
        assert_eq!(
            why[6].as_deref(),
            Some("15 % below the median, robust z -16.9 (limit 3.5)")
        );
        assert_eq!(why.iter().filter(|w| w.is_some()).count(), 1, "{why:?}");
        // latency: higher is worse
        let (_, why) = outliers(&v, Better::Lower);
        assert_eq!(
            why[8].as_deref(),
            Some("20 % above the median, robust z 22.4 (limit 3.5)")
        );
        assert_eq!(why.iter().filter(|w| w.is_some()).count(), 1, "{why:?}");
        // equal hosts and one 3 % slower: within the floor
        let (_, why) = outliers(
            &[Some(100.0), Some(100.0), Some(100.0), Some(97.0)],
            Better::Higher,
        );
        assert!(why.iter().all(Option::is_none));
        // a zero median flags nothing
        let (_, why) = outliers(&[Some(0.0), Some(0.0), Some(5.0)], Better::Lower);
        assert!(why.iter().all(Option::is_none));
        assert!(outlier_rule().contains("3.5") && outlier_rule().contains("5 %"));
    }

    #[test]
    fn a_side_of_several_reports_is_their_median() {
        let m = Some(Tag::Method(Method::Loop(1)));
        let c = |v: f64| Some((v, m.clone()));
        let (a, b, d) = (c(10.0), c(30.0), c(20.0));
        assert_eq!(side_cell(&[&a, &b, &d]), Some((20.0, m.clone())));
        let ended = Some((5.0, Some(Tag::Ended)));
        assert_eq!(side_cell(&[&a, &ended]).unwrap().1, Some(Tag::Ended));
        assert_eq!(side_cell(&[&None, &a]), a);
        assert_eq!(side_cell(&[&None]), None);
        // a busy report is left out while the side has another
        let busy = Some((1.0, Some(Tag::Distorted)));
        assert_eq!(side_cell(&[&busy, &a, &b]), Some((20.0, m.clone())));
        assert_eq!(side_cell(&[&busy]).unwrap().1, Some(Tag::Distorted));
    }
}
