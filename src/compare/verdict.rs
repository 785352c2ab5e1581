//! Verdicts: one report's figure or line against the reference's, within
//! ±5 % equal, else better or worse by the figure's direction, or not
//! comparable and why.

use serde::Serialize;

use super::facts::{Better, Fact, Method};
use crate::report::text::end_text;

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
    if let Some(how) = [&a.end, &b.end].into_iter().find_map(end_text) {
        return Some(format!("a line {how}"));
    }
    if a.method != b.method {
        return Some(match (a.method, b.method) {
            (Some(Method::BashQueueTime), _) | (_, Some(Method::BashQueueTime)) => {
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
            end: crate::end::End::Complete,
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

    #[test]
    fn the_judge_reads_the_types_not_the_words() {
        use crate::end::End;
        let f = |v: f64| Fact {
            section: "S".into(),
            label: "x".into(),
            figure: Some((Better::Higher, "u")),
            value: Some(v),
            text: v.to_string(),
            marks: Vec::new(),
            end: End::Complete,
            method: None,
        };
        let why = |a: &Fact, b: &Fact| match judge(a, b, Better::Higher) {
            Verdict::NotComparable { why } => Some(why),
            _ => None,
        };
        // A stopped line, whatever its marks say.
        let mut stopped = f(100.0);
        stopped.end = End::Stopped {
            error: "/d: read at offset 0: EIO".into(),
            errno: Some(libc::EIO),
            interrupted: false,
        };
        assert_eq!(
            why(&f(100.0), &stopped).as_deref(),
            Some("a line stopped: EIO")
        );
        let mut cut = f(90.0);
        cut.end = End::Interrupted;
        assert_eq!(why(&cut, &stopped).as_deref(), Some("a line interrupted"));
        // Words in the marks decide nothing.
        let mut worded = f(100.0);
        worded.marks = vec!["interrupted".into()];
        assert_eq!(judge(&f(100.0), &worded, Better::Higher), Verdict::Equal);
        // Methods.
        let with = |m: Method| Fact {
            method: Some(m),
            ..f(100.0)
        };
        assert!(why(
            &with(Method::CompletionLatency),
            &with(Method::BashQueueTime)
        )
        .unwrap()
        .contains("not a latency"));
        assert_eq!(
            why(&with(Method::Loop(1)), &with(Method::Loop(2))).as_deref(),
            Some("loop v1 against loop v2: other loop definitions")
        );
        assert_eq!(
            judge(
                &with(Method::Loop(1)),
                &with(Method::Loop(1)),
                Better::Higher
            ),
            Verdict::Equal
        );
    }
}
