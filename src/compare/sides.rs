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

use super::comparison::ReportInfo;
use super::facts::Fact;
use super::load::Input;
use super::verdict::{conflict, SideFact};
use crate::conditions::MarkKind;
use crate::stats::describe::median;
use crate::stats::TrialValue;
use crate::units::dd_rate;

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

/// The trials of a figure in a side: every trial of it in each of the
/// side's reports that has the line (one per report, or the trials of
/// `--repeat`), split into those a verdict reads and the marks of those
/// it leaves out, distorted ([`crate::conditions::MarkKind::distorts`]).
/// Which trials are left out depends on what ran beside them, never on
/// their values, so leaving them out biases no verdict. The one place a
/// side's trials are gathered.
pub fn trials_of(facts: &[&Fact]) -> (Vec<TrialValue>, Vec<MarkKind>) {
    let mut clean = Vec::new();
    let mut left_out = Vec::new();
    for t in facts.iter().flat_map(|f| &f.trials) {
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
    for m in facts.iter().flat_map(|f| &f.marks) {
        if !marks.contains(m) {
            marks.push(m.clone());
        }
    }
    let (value, text) = if facts.len() == 1 {
        (first.value, first.text.clone())
    } else if first.figure.is_none() {
        let text = if facts.iter().all(|f| f.text == first.text) {
            first.text.clone()
        } else {
            "differs within side".to_string()
        };
        (None, text)
    } else {
        let values: Vec<f64> = facts.iter().filter_map(|f| f.value).collect();
        let m = median(&values);
        let unit = first.figure.map(|f| f.1).unwrap_or("");
        let text = m.map_or("-".into(), |v| {
            if unit == "B/s" {
                dd_rate(v.max(0.0) as u64, 1_000_000_000)
            } else {
                format!("{}", v.max(0.0) as u64)
            }
        });
        (m, text)
    };
    let (trials, left_out) = trials_of(facts);
    Some(SideFact {
        figure: first.figure,
        kind: first.kind,
        value,
        text,
        marks,
        conflict: first.figure.and_then(|_| conflict(facts)),
        method: first.method,
        trials,
        left_out,
        measure: first.measure.clone(),
    })
}
