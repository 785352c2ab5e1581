//! The comparison as CSV (`compare --csv`, RFC 4180: a header row, CRLF
//! line ends, a field quoted when it holds a comma, a quote or a line
//! break, its quotes doubled), for a spreadsheet or a script.
//!
//! Two sides: one row per line of the comparison (`kind` says figure or
//! information), each side's figure as a number in `unit` (the `--json`
//! document's `values`), as printed, its marks, then B/A with its interval
//! and the verdict (its name, and its words as the text shows them). More
//! sides: the fleet table, one row per side, a column per key figure (its
//! unit in its heading), the outliers and those not comparable, and a last
//! row, `median`. Numbers are in Rust's shortest round-trip form, so that a
//! reader gets back the `--json` figures exactly; a figure that is missing
//! (or not finite) is an empty field.

use super::verdict_words;
use crate::compare::comparison::Comparison;
use crate::compare::comparison::Row;

/// The comparison as CSV: one row per line for two sides, one row per
/// side (and the median) for more.
pub fn render_csv(c: &Comparison) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    if c.sides.len() > 2 {
        fleet(c, &mut rows);
    } else {
        pair(c, &mut rows);
    }
    let mut out = String::new();
    for r in rows {
        let fields: Vec<String> = r.iter().map(|f| field(f)).collect();
        out.push_str(&fields.join(","));
        out.push_str("\r\n");
    }
    out
}

fn pair(c: &Comparison, rows: &mut Vec<Vec<String>>) {
    rows.push(
        [
            "section",
            "line",
            "kind",
            "unit",
            "better",
            "a",
            "b",
            "a_text",
            "b_text",
            "a_marks",
            "b_marks",
            "ratio",
            "ratio_low",
            "ratio_high",
            "verdict",
            "verdict_text",
        ]
        .map(String::from)
        .to_vec(),
    );
    for r in &c.rows {
        let b = c.sides.len() - 1;
        let judged = r.judged.get(b).and_then(|j| j.as_ref());
        let interval = judged.and_then(|j| j.interval.as_ref());
        rows.push(vec![
            r.section.title(),
            r.label.clone(),
            word(&r.kind),
            word(&r.unit),
            word(&r.better),
            number(r.values[0]),
            number(r.values.get(b).copied().flatten()),
            r.texts[0].clone().unwrap_or_default(),
            r.texts.get(b).cloned().flatten().unwrap_or_default(),
            r.marks[0].join("; "),
            r.marks.get(b).map(|m| m.join("; ")).unwrap_or_default(),
            number(r.ratios.get(b).copied().flatten()),
            number(interval.map(|i| i.lo)),
            number(interval.map(|i| i.hi)),
            verdict_name(r, b),
            verdict_words(r, b),
        ]);
    }
}

/// A field as the `--json` document writes it (`figure`, `B/s`,
/// `higher`), empty where it writes `null`: one spelling for both.
fn word<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// The verdict's name, as the `--json` document's `verdict` field says it
/// (`equal`, `better`, `inconclusive`, `same`...).
fn verdict_name(r: &Row, n: usize) -> String {
    r.verdicts
        .get(n)
        .and_then(|v| serde_json::to_value(v).ok())
        .and_then(|v| v.get("verdict").and_then(|s| s.as_str()).map(String::from))
        .unwrap_or_default()
}

fn fleet(c: &Comparison, rows: &mut Vec<Vec<String>>) {
    let Some(t) = &c.table else { return };
    let mut head = vec!["row".to_string(), "name".to_string()];
    head.extend(
        t.columns
            .iter()
            .map(|col| format!("{} ({})", col.name, col.unit)),
    );
    head.push("outliers".into());
    head.push("not_comparable".into());
    rows.push(head);
    for r in &t.rows {
        let mut row = vec!["side".to_string(), r.name.clone()];
        row.extend(r.values.iter().map(|v| number(*v)));
        let names = |flag: &dyn Fn(usize) -> bool| {
            (0..t.columns.len())
                .filter(|&i| flag(i))
                .map(|i| t.columns[i].name)
                .collect::<Vec<_>>()
                .join("; ")
        };
        row.push(names(&|i| r.outlier[i].is_some()));
        row.push(names(&|i| r.not_comparable[i]));
        rows.push(row);
    }
    let mut median = vec!["median".to_string(), String::new()];
    median.extend(t.median.iter().map(|v| number(*v)));
    median.extend([String::new(), String::new()]);
    rows.push(median);
}

/// A figure in its shortest round-trip form; empty when missing or not
/// finite.
fn number(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or_else(String::new, |v| format!("{v}"))
}

/// One field: quoted when it holds a comma, a double quote, a line break
/// (or starts or ends with a space, which some readers trim), its double
/// quotes doubled.
fn field(s: &str) -> String {
    let quote = s.contains([',', '"', '\r', '\n']) || s.starts_with(' ') || s.ends_with(' ');
    if quote {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{field, number};

    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(field(""), "");
    }

    #[test]
    fn numbers_round_trip_and_missing_is_empty() {
        assert_eq!(number(Some(30.9e9)), "30900000000");
        assert_eq!(number(Some(0.1 + 0.2)).parse::<f64>().unwrap(), 0.1 + 0.2);
        assert_eq!(number(None), "");
        assert_eq!(number(Some(f64::NAN)), "");
    }
}
