//! The sides of a comparison: which reports are trials of one host.
//!
//! With explicit groups (`compare A1 A2 -- B1 B2`) each group is a side.
//! Otherwise, when the inputs name two or more hosts, the reports of one
//! host name form one side (a fleet of hosts, each run several times);
//! reports of a single host stay one side each (before and after on the
//! same machine). A side's trials of a figure are its reports' trials
//! ([`trials_of`]).

use std::collections::HashMap;

use serde::Serialize;

use super::fact::{Fact, Figure};
use super::load::Input;
use super::verdict::{conflict, SideFact};
use crate::conditions::MarkKind;
use crate::stats::describe::median;
use crate::stats::TrialValue;

/// Who a report is, for the header of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct ReportInfo {
    /// The report's name: the host name, else the file name (made unique).
    pub name: String,
    /// The input as named.
    pub file: String,
    /// Host name, when known.
    pub hostname: Option<String>,
    /// `quickbench` (this port) or `bash original`.
    pub origin: &'static str,
    /// The loop delay, seconds, when known.
    pub loop_delay_s: Option<f64>,
    /// When it ran, UTC, when known.
    pub timestamp_utc: Option<String>,
}

/// How the reports are grouped into sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// By host name when the inputs name two or more hosts, else one
    /// report a side.
    Auto,
    /// The first `n` reports are side A, the others side B (`--`).
    Split(usize),
}

/// A side: one or more reports, compared as trials of one host.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    /// The column's name: the host name (made unique), or the report's.
    pub name: String,
    /// The host name its reports share, when they share one.
    pub hostname: Option<String>,
    /// Its reports: indices into the comparison's `reports`.
    pub reports: Vec<usize>,
}

/// The sides of `inputs`.
pub fn sides(inputs: &[Input], reports: &[ReportInfo], grouping: Grouping) -> Vec<Side> {
    let host = |i: usize| -> Option<String> {
        let h = inputs[i].report.hostname.trim();
        (!h.is_empty() && h != "unknown").then(|| h.to_string())
    };
    let groups: Vec<Vec<usize>> = match grouping {
        Grouping::Split(n) if n > 0 && n < inputs.len() => {
            vec![(0..n).collect(), (n..inputs.len()).collect()]
        }
        _ => {
            let mut hosts: Vec<Option<String>> = Vec::new();
            let mut by_host: Vec<Vec<usize>> = Vec::new();
            for i in 0..inputs.len() {
                let h = host(i);
                match hosts.iter().position(|x| h.is_some() && *x == h) {
                    Some(k) => by_host[k].push(i),
                    None => {
                        hosts.push(h);
                        by_host.push(vec![i]);
                    }
                }
            }
            if hosts.iter().flatten().count() >= 2 {
                by_host
            } else {
                (0..inputs.len()).map(|i| vec![i]).collect()
            }
        }
    };
    let mut out: Vec<Side> = groups
        .into_iter()
        .map(|g| {
            let h = host(g[0]).filter(|h| g.iter().all(|&i| host(i).as_ref() == Some(h)));
            let name = match (&h, g.len()) {
                (_, 1) => reports[g[0]].name.clone(),
                (Some(h), _) => h.clone(),
                (None, _) => "mixed hosts".to_string(),
            };
            Side {
                name,
                hostname: h,
                reports: g,
            }
        })
        .collect();
    // Two sides of one name (the same host before and after, with `--`):
    // numbered in order.
    let mut count: HashMap<String, usize> = HashMap::new();
    for s in &out {
        *count.entry(s.name.clone()).or_default() += 1;
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for s in &mut out {
        if count[&s.name] > 1 {
            let k = seen.entry(s.name.clone()).or_default();
            *k += 1;
            s.name = format!("{} ({})", s.name, k);
        }
    }
    out
}

pub fn report_infos(inputs: &[Input]) -> Vec<ReportInfo> {
    let mut names: Vec<String> = inputs
        .iter()
        .map(|i| {
            let h = i.report.hostname.trim();
            if h.is_empty() || h == "unknown" {
                file_name(&i.file)
            } else {
                h.to_string()
            }
        })
        .collect();
    // The same host twice (before and after): tell them apart by file.
    let mut count: HashMap<String, usize> = HashMap::new();
    for n in &names {
        *count.entry(n.clone()).or_default() += 1;
    }
    for (n, i) in names.iter_mut().zip(inputs) {
        if count[n.as_str()] > 1 {
            *n = format!("{n} ({})", file_name(&i.file));
        }
    }
    inputs
        .iter()
        .zip(names)
        .map(|(i, name)| ReportInfo {
            name,
            file: i.file.clone(),
            hostname: Some(i.report.hostname.clone()).filter(|h| !h.is_empty()),
            origin: if i.report.original.is_some() {
                "bash original"
            } else {
                "quickbench"
            },
            loop_delay_s: i.report.loop_delay_s,
            timestamp_utc: i.report.timestamp_utc.clone(),
        })
        .collect()
}

fn file_name(file: &str) -> String {
    if file == "-" {
        return "stdin".into();
    }
    std::path::Path::new(file)
        .file_name()
        .map_or(file.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The trials of a figure in a side: every trial of it in each of the
/// side's reports that has the line (one per report, or the trials of
/// `--repeat`), split into those a verdict reads and the marks of those
/// it leaves out, distorted ([`crate::conditions::MarkKind::distorts`]).
/// Which trials are left out depends on what ran beside them, never on
/// their values, so leaving them out biases no verdict. The one place a
/// side's trials are gathered.
pub fn trials_of(figures: &[&Figure]) -> (Vec<TrialValue>, Vec<MarkKind>) {
    let mut clean = Vec::new();
    let mut left_out = Vec::new();
    for t in figures.iter().flat_map(|f| &f.trials) {
        match t.distorted {
            Some(k) => left_out.push(k),
            None => clean.push(t.trial.clone()),
        }
    }
    (clean, left_out)
}

/// A side's view of one line, from the facts of its reports that have it
/// (`None` when none has).
pub fn side_fact(facts: &[&Fact]) -> Option<SideFact> {
    let first = *facts.first()?;
    let mut marks: Vec<String> = Vec::new();
    for m in facts.iter().flat_map(|f| f.mark_words()) {
        if !marks.contains(&m) {
            marks.push(m);
        }
    }
    let figures: Vec<&Figure> = facts.iter().filter_map(|f| f.figure()).collect();
    let head = first.figure();
    let (value, text) = match head {
        _ if facts.len() == 1 => (first.value(), first.text().to_string()),
        None => {
            let text = if facts.iter().all(|f| f.text() == first.text()) {
                first.text().to_string()
            } else {
                "differs within side".to_string()
            };
            (None, text)
        }
        Some(f) => {
            let values: Vec<f64> = figures.iter().map(|f| f.value).collect();
            let m = median(&values);
            (m, m.map_or("-".into(), |v| f.unit.text(v)))
        }
    };
    let (trials, left_out) = trials_of(&figures);
    Some(SideFact {
        figure: head.map(|f| (f.better, f.unit)),
        kind: head.map(|f| f.kind),
        value,
        text,
        marks,
        conflict: head.and_then(|_| conflict(&figures)),
        method: head.and_then(|f| f.method.clone()),
        trials,
        left_out,
        measure: head.and_then(|f| f.measure.clone()),
        runs: figures.len().max(1),
    })
}
