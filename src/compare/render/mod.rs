//! The renderers of a comparison: [`text`] (side by side, one column per
//! report), [`table`] (the fleet table), [`html`] (one self-contained
//! page), and the JSON document.

pub mod html;
pub mod table;
pub mod text;

use super::comparison::{Comparison, Row};
use super::verdict::Verdict;
use crate::units::dd_rate;

/// The `--json` document: the comparison serialized.
pub fn render_json(c: &Comparison) -> String {
    serde_json::to_string_pretty(c).expect("a comparison serializes") + "\n"
}

/// The heading of report `n`'s column: `A`, `B` for two reports (the
/// header says who they are), the report's name for more.
fn column(c: &Comparison, n: usize) -> String {
    if c.reports.len() == 2 {
        ["A", "B"][n].to_string()
    } else {
        c.reports[n].name.clone()
    }
}

fn header_text(c: &Comparison) -> String {
    let mut out = String::new();
    for (n, r) in c.reports.iter().enumerate() {
        let when = r
            .timestamp_utc
            .as_deref()
            .map_or("date unknown".into(), |t| {
                t.replace('T', " ").replace('Z', " UTC")
            });
        let col = column(c, n);
        let who = if col == r.name {
            String::new()
        } else {
            format!("{}, ", r.name)
        };
        out.push_str(&format!(
            "{col}: {} ({who}{}, {when}){}\n",
            r.file,
            r.origin,
            if n == 0 { ", the reference" } else { "" }
        ));
    }
    out.push_str(&format!(
        "Figures relative to {}; within \u{b1}5 % is \u{2248}; latency: lower is better.\n",
        column(c, 0)
    ));
    for w in &c.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
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
    match &row.verdicts[n] {
        Verdict::Reference => String::new(),
        Verdict::Equal => format!("\u{2248} {}", ratio_text(row.ratios[n])),
        Verdict::Better => format!("{} better", ratio_text(row.ratios[n])),
        Verdict::Worse => format!("{} worse", ratio_text(row.ratios[n])),
        Verdict::Same => "same".into(),
        Verdict::Different => "different".into(),
        Verdict::NotComparable { why } => format!("not comparable: {why}"),
        Verdict::Missing => "missing".into(),
    }
}

fn ratio_text(r: Option<f64>) -> String {
    r.map_or("?".into(), |r| format!("x{r:.2}"))
}

/// A section's title: storage sections name each report's device and
/// filesystem when they differ.
fn section_title(c: &Comparison, section: &str) -> String {
    if !section.starts_with("Storage bandwidth - ") {
        return section.to_string();
    }
    let storage = c
        .rows
        .iter()
        .find(|r| r.section == "Storage bandwidth" && r.label == "Storage");
    match storage {
        Some(r) if r.texts.iter().any(|t| *t != r.texts[0]) => {
            let both: Vec<String> = (0..c.reports.len())
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
        None => section.to_string(),
    }
}

/// A figure in a few characters: `30.9 GB/s` for bytes per second, else
/// the integer.
fn short(v: f64, unit: &str) -> String {
    if unit == "B/s" {
        return dd_rate(v.max(0.0) as u64, 1_000_000_001);
    }
    format!("{}", v.max(0.0) as u64)
}
