//! The renderers of a comparison: [`text`] (side by side, one column per
//! report), [`table`] (the fleet table), [`html`] (one self-contained
//! page), [`markdown`] and [`csv`] (for tickets and spreadsheets), and the
//! JSON document.

pub mod csv;
pub mod html;
pub mod markdown;
mod output;
pub mod table;
pub mod text;

pub use output::{
    for_stdout, CsvRenderer, HtmlRenderer, JsonRenderer, MarkdownRenderer, Render, TableRenderer,
    TextRenderer,
};

use super::comparison::{Comparison, Row};
use super::fact::RowSection;
use super::verdict::{assumed_run_cv, bounded, ratio_text, Verdict, EQUAL_WITHIN, KINDS};
use crate::conditions::{Mark, MarkKind};
use crate::stats::RunsNeeded;
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

/// Who the sides are, then the legend, each line wrapped to `width`.
/// Warnings go to stderr (the caller writes them), not here.
fn header_text(c: &Comparison, width: usize, legend_lines: &[String]) -> String {
    let mut out = String::new();
    for n in 0..c.sides.len() {
        out.push_str(&wrap(
            &format!(
                "{}: {}{}",
                column(c, n),
                side_text(c, n),
                if n == 0 { ", the reference" } else { "" }
            ),
            width,
        ));
    }
    for l in legend_lines {
        out.push_str(&wrap(l, width));
    }
    out
}

/// `text` broken at spaces into lines of at most `width` characters (a
/// longer word stands alone), each ended by a newline.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// What the verdicts mean, for this comparison: the lines of the legend,
/// read by the text and the page alike. Only the kinds of judgement that
/// occur are explained.
pub fn legend(c: &Comparison) -> Vec<String> {
    // The method (the interval, the false-claim control) is told in
    // docs/METHOD.md; the legend says only how to read the verdicts.
    let mut out = vec![format!(
        "B/A [interval] against {}, latency lower is better: \u{2248} within \u{b1}{} %, better or worse beyond it, \"no difference found\" when the interval holds x1.00 but is too wide to tell, ~ not yet decided.",
        column(c, 0),
        (EQUAL_WITHIN * 100.0).round()
    )];
    let sections_spreads = || {
        c.rows
            .iter()
            .flat_map(|r| r.judged.iter().flatten().map(|j| (r.section, j.spread)))
            .chain(c.unjudged_spreads.iter().copied())
    };
    let spreads = || sections_spreads().map(|(_, s)| s);
    if spreads().any(|s| matches!(s, Spread::WithinRunOnly { .. })) {
        let cvs: Vec<String> = KINDS
            .iter()
            .map(|(k, name)| format!("{name} {:.0} %", assumed_run_cv(*k) * 100.0))
            .collect();
        out.push(format!(
            "The run-to-run spread is assumed ({}), since each side is one run: 3 reports a side (or --repeat 3) measure it.",
            cvs.join(", ")
        ));
    }
    // A line per kind of figure given a floor, in report order.
    let mut floors: Vec<(String, &str, f64)> = Vec::new();
    for (section, spread) in sections_spreads() {
        let Spread::MeasuredWithFloor { run_cv, .. } = spread else {
            continue;
        };
        let (what, shared) = floor_scope(section);
        if !floors.iter().any(|(w, _, cv)| *w == what && *cv == run_cv) {
            floors.push((what, shared, run_cv));
        }
    }
    for (what, shared, cv) in floors {
        out.push(format!(
            "{what} add {:.0} % of run-to-run spread, shared over a side's reports, to their trials' own, since the trials of one run share {shared}.",
            cv * 100.0
        ));
    }
    if spreads().any(|s| matches!(s, Spread::None)) {
        out.push(format!(
            "Figures with no samples (a text report or an older one) are judged on the ratio alone against the fixed \u{b1}{} % band.",
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
            "drift: the figure moved one way across that side's rounds of trials (credits running out, a host heating up, a neighbour arriving), so its verdict says how the host did over that run, not how it does now; rerun once it is steady."
                .to_string(),
        );
    }
    out.extend(busy_legend(c));
    out
}

/// What the figures of `section` given a run-to-run floor are called in
/// the legend, and what the trials of one run share that the next run's
/// do not.
fn floor_scope(section: RowSection) -> (String, &'static str) {
    match section {
        RowSection::StorageLines(bs) => (
            format!("{} lines", bs.label()),
            "its file and the device's moment",
        ),
        s => (format!("{s} figures"), "its moment"),
    }
}

/// The legend's line on sides marked busy, if any: the fleet outputs,
/// which judge no pair, show it alone.
pub fn busy_legend(c: &Comparison) -> Option<String> {
    let busy: Vec<String> = (0..c.sides.len())
        .filter(|&n| c.rows.iter().any(|r| marked_busy(&r.marks[n])))
        .map(|n| {
            let names = busy_names(c.rows.iter().flat_map(|r| &r.marks[n]));
            if names.is_empty() {
                column(c, n)
            } else {
                format!("{} (by {})", column(c, n), names.join(", "))
            }
        })
        .collect();
    if busy.is_empty() {
        return None;
    }
    let (runs, them) = if busy.len() == 1 {
        ("that run", "it")
    } else {
        ("those runs", "them")
    };
    Some(format!(
        "Marked busy in {}: other work used the CPUs during {runs} (often a build just before); rerun {them} on a quiet host.",
        busy.join(" and ")
    ))
}

/// The processes that busy marks (as printed) name, busiest first as
/// each mark lists them, each once, at most three: what kept the host
/// busy, for the line that says to rerun.
fn busy_names<'a>(marks: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for m in marks.filter_map(|m| Mark::parse(m)) {
        if let Mark::Busy { processes, .. } = m {
            for p in processes {
                if names.len() < 3 && !names.contains(&p.comm) {
                    names.push(p.comm);
                }
            }
        }
    }
    names
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
    let mut t = plain_cell(row, n);
    if !row.marks[n].is_empty() {
        t.push_str(&format!(" ({})", row.marks[n].join(", ")));
    }
    t
}

/// A figure's text without its marks (the text writes them on a line of
/// their own, so that a mark does not widen its column).
fn plain_cell(row: &Row, n: usize) -> String {
    row.texts[n].clone().unwrap_or_else(|| "-".into())
}

/// The verdict in one piece: `no difference found (x1.00 [0.75, 1.46];
/// ±5 % needs more than 30 runs a side)`.
fn verdict_words(row: &Row, n: usize) -> String {
    match verdict_parts(row, n) {
        (w, d) if d.is_empty() => w,
        (w, d) => format!("{w} ({d})"),
    }
}

/// The verdict as its words and their detail (empty when none): an
/// undecided figure whose interval holds x1.00 reads "no difference
/// found", the ratio, the interval and the runs a side that a ±5 % answer
/// needs in the detail. The JSON keeps the judge's own words.
pub(super) fn verdict_parts(row: &Row, n: usize) -> (String, String) {
    if let Some(j) = &row.judged[n] {
        let holds_one = j.interval.is_some_and(|i| i.lo <= 1.0 && 1.0 <= i.hi);
        if row.verdicts[n] == Verdict::Inconclusive && holds_one && j.out_of_reach.is_none() {
            let i = j.interval.expect("checked above");
            let mut d = format!(
                "{} [{}, {}]",
                ratio_text(j.ratio),
                bounded(i.lo, 2),
                bounded(i.hi, 2)
            );
            let band = (EQUAL_WITHIN * 100.0).round();
            match j.runs_needed {
                Some(RunsNeeded::PerSide { runs, .. }) => {
                    d.push_str(&format!("; \u{b1}{band} % needs {runs} runs a side"))
                }
                Some(RunsNeeded::MoreThan { runs, .. }) => {
                    d.push_str(&format!("; \u{b1}{band} % needs over {runs} runs a side"))
                }
                Some(RunsNeeded::CannotDecide) | None => {}
            }
            if j.left_out_a + j.left_out_b > 0 {
                if let Some(k) = j.words.rfind(" (") {
                    d.push_str("; ");
                    d.push_str(j.words[k + 2..].trim_end_matches(')'));
                }
            }
            return ("no difference found".into(), d);
        }
        return (j.words.clone(), String::new());
    }
    let ratio = || row.ratios[n].map_or("?".into(), ratio_text);
    let w = match &row.verdicts[n] {
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
    };
    (w, String::new())
}

/// A section's title: storage sections name each report's device and
/// filesystem when they differ.
fn section_title(c: &Comparison, section: RowSection) -> String {
    if !matches!(section, RowSection::StorageLines(_)) {
        return section.title();
    }
    let storage = c
        .rows
        .iter()
        .find(|r| r.section == RowSection::StorageBandwidth && r.label == "Storage");
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

#[cfg(test)]
mod tests {
    use super::{busy_names, legend, Comparison, RowSection};
    use crate::model::BlockSize;
    use crate::stats::Spread;

    /// A fleet of three sides, no report, whose only figures are
    /// `spreads`, unjudged (as the fleet table has them).
    fn unjudged(spreads: &[(RowSection, f64)]) -> Comparison {
        Comparison {
            compare_schema_version: 2,
            reports: Vec::new(),
            sides: ["a", "b", "c"]
                .iter()
                .map(|n| crate::compare::sides::Side {
                    name: n.to_string(),
                    hostname: None,
                    reports: Vec::new(),
                })
                .collect(),
            warnings: Vec::new(),
            rows: Vec::new(),
            missing: Vec::new(),
            table: None,
            unjudged_spreads: spreads
                .iter()
                .map(|&(s, run_cv)| {
                    let spread = if run_cv > 0.0 {
                        Spread::MeasuredWithFloor {
                            n_a: 6,
                            n_b: 6,
                            run_cv,
                        }
                    } else {
                        Spread::Measured { n_a: 6, n_b: 6 }
                    };
                    (s, spread)
                })
                .collect(),
        }
    }

    #[test]
    fn the_floor_legend_names_each_kind_of_figure_given_a_floor() {
        let m1 = RowSection::StorageLines(BlockSize::M1);
        let tally = RowSection::Added("Tally");
        let floors = |c: &Comparison| -> Vec<String> {
            legend(c)
                .into_iter()
                .filter(|l| l.contains("of run-to-run spread, shared"))
                .collect()
        };
        let c = unjudged(&[(m1, 0.07), (m1, 0.07), (RowSection::CpuLoop, 0.0)]);
        assert_eq!(
            floors(&c),
            ["1M lines add 7 % of run-to-run spread, shared over a side's reports, to their trials' own, since the trials of one run share its file and the device's moment."]
        );
        let c = unjudged(&[(tally, 0.05), (m1, 0.07), (tally, 0.05)]);
        assert_eq!(
            floors(&c),
            [
                "Tally figures add 5 % of run-to-run spread, shared over a side's reports, to their trials' own, since the trials of one run share its moment.",
                "1M lines add 7 % of run-to-run spread, shared over a side's reports, to their trials' own, since the trials of one run share its file and the device's moment.",
            ]
        );
        assert!(floors(&unjudged(&[(RowSection::CpuLoop, 0.0)])).is_empty());
    }

    #[test]
    fn the_rerun_line_names_what_kept_the_host_busy_once_each() {
        let marks: Vec<String> = [
            "busy 48 %: cc1plus, cargo",
            "steal 12 %",
            "busy 30 %: cargo, rustc, ld",
            "busy: other processes used 40 % of a CPU",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(busy_names(marks.iter()), ["cc1plus", "cargo", "rustc"]);
        let old_form = ["busy: other processes used 40 % of a CPU".to_string()];
        assert!(busy_names(old_form.iter()).is_empty());
    }
}
