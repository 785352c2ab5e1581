//! The renderers of a comparison: [`text`] (side by side, one column per
//! report), [`table`] (the fleet table), [`html`] (one self-contained
//! page), [`markdown`] and [`csv`] (for tickets and spreadsheets), and the
//! JSON document.

pub mod csv;
pub mod html;
pub mod markdown;
pub mod table;
pub mod text;

use super::comparison::{Comparison, Row};
use super::fact::Section;
use super::verdict::{assumed_run_cv, ratio_text, Verdict, EQUAL_WITHIN, KINDS};
use crate::conditions::{Mark, MarkKind};
use crate::stats::Spread;

/// The `--json` document: the comparison serialized.
pub fn render_json(c: &Comparison) -> String {
    serde_json::to_string_pretty(c).expect("a comparison serializes") + "\n"
}

/// The heading of side `n`'s column: `A`, `B` for two sides (the header
/// says who they are), the side's name for more.
fn column(c: &Comparison, n: usize) -> String {
    if c.sides.len() == 2 {
        ["A", "B"][n].to_string()
    } else {
        c.sides[n].name.clone()
    }
}

fn when(t: Option<&str>) -> String {
    t.map_or("date unknown".into(), |t| {
        t.replace('T', " ").replace('Z', " UTC")
    })
}

/// Who side `n` is: `before.txt (vm (before.txt), quickbench, 2026-...)`
/// for one report, `vm, 3 reports (a1.json, a2.json, a3.json; quickbench,
/// 2026-... to 2026-...)` for several.
pub(super) fn side_text(c: &Comparison, n: usize) -> String {
    let side = &c.sides[n];
    let col = column(c, n);
    if let [only] = side.reports[..] {
        let r = &c.reports[only];
        let who = if col == r.name {
            String::new()
        } else {
            format!("{}, ", r.name)
        };
        return format!(
            "{} ({who}{}, {})",
            r.file,
            r.origin,
            when(r.timestamp_utc.as_deref())
        );
    }
    let reports: Vec<_> = side.reports.iter().map(|&i| &c.reports[i]).collect();
    let files: Vec<&str> = reports.iter().map(|r| r.file.as_str()).collect();
    let mut origins: Vec<&str> = reports.iter().map(|r| r.origin).collect();
    origins.dedup();
    let mut times: Vec<&str> = reports
        .iter()
        .filter_map(|r| r.timestamp_utc.as_deref())
        .collect();
    times.sort_unstable();
    let span = match (times.first(), times.last()) {
        (Some(a), Some(b)) if a != b => format!("{} to {}", when(Some(a)), when(Some(b))),
        (Some(a), _) => when(Some(a)),
        _ => "dates unknown".into(),
    };
    format!(
        "{}, {} reports ({}; {}, {span})",
        side.name,
        reports.len(),
        files.join(", "),
        origins.join(" and ")
    )
}

fn header_text(c: &Comparison) -> String {
    let mut out = String::new();
    for n in 0..c.sides.len() {
        out.push_str(&format!(
            "{}: {}{}\n",
            column(c, n),
            side_text(c, n),
            if n == 0 { ", the reference" } else { "" }
        ));
    }
    for l in legend(c) {
        out.push_str(&l);
        out.push('\n');
    }
    for w in &c.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

/// What the verdicts mean, for this comparison: the lines of the legend,
/// read by the text and the page alike. Only the kinds of judgement that
/// occur are explained.
pub fn legend(c: &Comparison) -> Vec<String> {
    let mut out = vec![format!(
        "Figures relative to {}, latency: lower is better. B/A [interval]: \u{2248} the whole interval within \u{b1}{} %, better/worse beyond it, ~ it straddles a bound (and the runs a side that would decide); false claims held to 5 % of the figures (Benjamini-Hochberg; a storage line's MB/s, IO/s and latency, one measurement, count once).",
        column(c, 0),
        (EQUAL_WITHIN * 100.0).round()
    )];
    let spreads = || {
        c.rows
            .iter()
            .flat_map(|r| r.judged.iter().flatten())
            .map(|j| j.spread)
            .chain(c.unjudged_spreads.iter().copied())
    };
    if spreads().any(|s| matches!(s, Spread::WithinRunOnly { .. })) {
        let cvs: Vec<String> = KINDS
            .iter()
            .map(|(k, name)| format!("{name} {:.0} %", assumed_run_cv(*k) * 100.0))
            .collect();
        out.push(format!(
            "Run-to-run spread assumed ({}): measured within each run only; 3 reports a side (or --repeat 3) measure it.",
            cvs.join(", ")
        ));
    }
    if spreads().any(|s| matches!(s, Spread::None)) {
        out.push(format!(
            "Figures with no samples: a text report or an older one; the fixed \u{b1}{} % band on the ratio, no interval.",
            (EQUAL_WITHIN * 100.0).round()
        ));
    }
    let drift = crate::conditions::MarkKind::Drift.word();
    if c.rows
        .iter()
        .flat_map(|r| r.marks.iter().flatten())
        .any(|m| m.starts_with(&format!("{drift} ")))
    {
        out.push(
            "drift: the figure moved one way across that side's rounds of trials (credits running out, a host heating up, a neighbour arriving): its interval spans a moving figure, so the verdict says how the host did over that run, not how it does now; the trials stay in the verdict. Rerun once it is steady, or compare its first or last rounds."
                .to_string(),
        );
    }
    let busy: Vec<String> = (0..c.sides.len())
        .filter(|&n| c.rows.iter().any(|r| marked_busy(&r.marks[n])))
        .map(|n| column(c, n))
        .collect();
    if !busy.is_empty() {
        let (runs, them) = if busy.len() == 1 {
            ("that run", "it")
        } else {
            ("those runs", "them")
        };
        out.push(format!(
            "Marked busy in {}: other work used the CPUs during {runs} (often a build just before); rerun {them} on a quiet host.",
            busy.join(" and ")
        ));
    }
    out
}

/// Whether one of these marks (as printed) says the host was busy.
fn marked_busy(marks: &[String]) -> bool {
    marks
        .iter()
        .filter_map(|m| Mark::parse(m))
        .any(|m| m.kind() == MarkKind::Busy)
}

/// A figure as people read it: the printed text, and the bash original's
/// rates as printed too.
fn cell_text(row: &Row, n: usize) -> String {
    let mut t = row.texts[n].clone().unwrap_or_else(|| "-".into());
    if !row.marks[n].is_empty() {
        t.push_str(&format!(" ({})", row.marks[n].join(", ")));
    }
    t
}

fn verdict_words(row: &Row, n: usize) -> String {
    if let Some(j) = &row.judged[n] {
        return j.words.clone();
    }
    let ratio = || row.ratios[n].map_or("?".into(), ratio_text);
    match &row.verdicts[n] {
        Verdict::Reference => String::new(),
        Verdict::Equal => format!("\u{2248} {}", ratio()),
        Verdict::Better => format!("{} better", ratio()),
        Verdict::Worse => format!("{} worse", ratio()),
        Verdict::Inconclusive => format!("~ {}", ratio()),
        Verdict::Same => "same".into(),
        Verdict::Different => "different".into(),
        Verdict::NotComparable { why } => format!("not comparable: {why}"),
        Verdict::Distorted { why, ratio } => {
            format!(
                "~ {} distorted: {why}",
                ratio.map_or("?".into(), ratio_text)
            )
        }
        Verdict::Missing => "missing".into(),
        Verdict::NotJudged => String::new(),
    }
}

/// A section's title: storage sections name each report's device and
/// filesystem when they differ.
fn section_title(c: &Comparison, section: Section) -> String {
    if !matches!(section, Section::StorageLines(_)) {
        return section.title();
    }
    let storage = c
        .rows
        .iter()
        .find(|r| r.section == Section::StorageBandwidth && r.label == "Storage");
    match storage {
        Some(r) if r.texts.iter().any(|t| *t != r.texts[0]) => {
            let both: Vec<String> = (0..c.sides.len())
                .map(|n| {
                    format!(
                        "{}: {}",
                        column(c, n),
                        r.texts[n].clone().unwrap_or_else(|| "?".into())
                    )
                })
                .collect();
            format!("{section} ({})", both.join(", "))
        }
        Some(r) => format!("{section} ({})", r.texts[0].clone().unwrap_or_default()),
        None => section.title(),
    }
}
