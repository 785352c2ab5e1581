//! The renderers of a comparison: [`text`] (side by side, one column per
//! report), [`table`] (the fleet table), and the JSON document.

pub mod table;
pub mod text;

use super::comparison::Comparison;

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
