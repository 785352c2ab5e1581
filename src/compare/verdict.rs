//! Verdicts: one report's figure or line against the reference's, within
//! ±5 % equal, else better or worse by the figure's direction, or not
//! comparable and why.

use serde::Serialize;

use super::facts::{Better, Fact};

/// Differences within this fraction read as equal.
pub const EQUAL_WITHIN: f64 = 0.05;

/// The verdict on one report's figure or line, against the first report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// The first report: what the others are compared with.
    Reference,
    /// Within ±5 %.
    Equal,
    /// Beyond 5 %, in the figure's better direction.
    Better,
    /// Beyond 5 %, in the worse direction.
    Worse,
    /// An information line, the same as the first report's.
    Same,
    /// An information line that differs.
    Different,
    /// No ratio: it would mislead.
    NotComparable {
        /// Why.
        why: String,
    },
    /// The line is not in this report (or not in the first one).
    Missing,
}

/// The verdict on report `n`'s line (`cell`) against the first report's
/// (`reference`).
pub fn verdict(n: usize, reference: Option<&Fact>, cell: Option<&Fact>) -> Verdict {
    let Some(c) = cell else {
        return Verdict::Missing;
    };
    if n == 0 {
        return Verdict::Reference;
    }
    let Some(a) = reference else {
        return Verdict::Missing;
    };
    match c.figure {
        None if c.text == a.text => Verdict::Same,
        None => Verdict::Different,
        Some((better, _)) => judge(a, c, better),
    }
}

/// The figure of `cell` over the first report's, where the two compare.
pub fn ratio(reference: Option<&Fact>, cell: Option<&Fact>) -> Option<f64> {
    match (reference.and_then(|f| f.value), cell.and_then(|f| f.value)) {
        (Some(a), Some(b)) if a > 0.0 && comparable(reference, cell).is_none() => Some(b / a),
        _ => None,
    }
}

/// Why two facts' figures cannot be compared, if they cannot.
fn comparable(a: Option<&Fact>, b: Option<&Fact>) -> Option<String> {
    let (a, b) = (a?, b?);
    // Load and cache marks are shown beside the figures; a line cut short
    // or stopped has no figure to compare.
    let ended = |m: &&String| m.starts_with("interrupted") || m.starts_with("stopped");
    if let Some(m) = a.marks.iter().chain(&b.marks).find(ended) {
        return Some(format!("a line {m}"));
    }
    if a.method != b.method {
        return Some(match (a.method.as_deref(), b.method.as_deref()) {
            (Some("bash queue time"), _) | (_, Some("bash queue time")) => {
                "the bash original's latency column is queue time per I/O, not a latency".into()
            }
            (Some(x), Some(y)) => format!("{x} against {y}: other loop definitions"),
            _ => "measured differently".into(),
        });
    }
    None
}

fn judge(a: &Fact, b: &Fact, better: Better) -> Verdict {
    if let Some(why) = comparable(Some(a), Some(b)) {
        return Verdict::NotComparable { why };
    }
    match (a.value, b.value) {
        (Some(x), Some(y)) if x > 0.0 => {
            let r = y / x;
            if (r - 1.0).abs() <= EQUAL_WITHIN + 1e-9 {
                Verdict::Equal
            } else if (r > 1.0) == (better == Better::Higher) {
                Verdict::Better
            } else {
                Verdict::Worse
            }
        }
        (Some(x), Some(y)) if x == y => Verdict::Equal,
        _ => Verdict::NotComparable {
            why: "a zero figure has no ratio".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_equal_band_and_directions() {
        let f = |v: f64, better| Fact {
            section: "S".into(),
            label: "x".into(),
            figure: Some((better, "u")),
            value: Some(v),
            text: v.to_string(),
            marks: Vec::new(),
            method: None,
        };
        assert_eq!(
            judge(
                &f(100.0, Better::Higher),
                &f(105.0, Better::Higher),
                Better::Higher
            ),
            Verdict::Equal
        );
        assert_eq!(
            judge(
                &f(100.0, Better::Higher),
                &f(94.0, Better::Higher),
                Better::Higher
            ),
            Verdict::Worse
        );
        assert_eq!(
            judge(
                &f(100.0, Better::Higher),
                &f(106.0, Better::Higher),
                Better::Higher
            ),
            Verdict::Better
        );
        assert_eq!(
            judge(
                &f(100.0, Better::Lower),
                &f(80.0, Better::Lower),
                Better::Lower
            ),
            Verdict::Better
        );
        assert_eq!(
            judge(
                &f(100.0, Better::Lower),
                &f(120.0, Better::Lower),
                Better::Lower
            ),
            Verdict::Worse
        );
    }
}
