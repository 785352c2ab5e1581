//! How steady a step's rate was, as `-x` prints it: `± 1.2 % (60 x 500 ms)`
//! (the half-width of the 95 % interval of the step's mean rate relative
//! to its figure, and the samples behind it), `±    ? % (1 x 20 ms)` with
//! too few samples for an interval, `(3 passes)` for samples that are
//! passes. [`render`] and [`parse`] are the one definition of it:
//! `render(&parse(t)?, f) == t` for every `t` that [`render`] printed.

use crate::samples::{PrintedSpread, Samples};

/// The words, or `None` without samples.
pub fn render(s: &Samples, figure: f64) -> Option<String> {
    let n = s.count();
    if n == 0 {
        return None;
    }
    let pct = s
        .half_width_percent(figure)
        .map_or_else(|| "   ?".to_string(), |p| format!("{p:4.1}"));
    let basis = match s.sample_interval_ns {
        Some(ns) => format!("{n} x {:.0} ms", ns as f64 / 1e6),
        None => format!("{n} passes"),
    };
    Some(format!("± {pct} % ({basis})"))
}

/// The samples a text report describes with these words: none listed,
/// their count, interval and printed spread kept.
pub fn parse(text: &str) -> Option<Samples> {
    let rest = text.strip_prefix("± ")?;
    let (pct, basis) = rest.split_once(" % (")?;
    let basis = basis.strip_suffix(')')?;
    let half_width_percent = match pct.trim_start() {
        "?" => None,
        p => Some(finite(p)?),
    };
    let (n, interval_ns) = match basis.strip_suffix(" passes") {
        Some(n) => (n, None),
        None => {
            let (n, ms) = basis.split_once(" x ")?;
            let ms: u64 = ms.strip_suffix(" ms")?.parse().ok()?;
            (n, Some(ms.checked_mul(1_000_000)?))
        }
    };
    let n: usize = n.parse().ok().filter(|n| *n > 0)?;
    Some(Samples {
        sample_interval_ns: interval_ns,
        printed: Some(PrintedSpread {
            n,
            half_width_percent,
        }),
        ..Samples::default()
    })
}

/// A plain decimal number (`1.2`, `12`): no sign, exponent, or `inf`.
pub fn finite(text: &str) -> Option<f64> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().next().is_some_and(|b| b.is_ascii_digit());
    plain.then(|| text.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn printed_spreads_read_back_to_the_same_words() {
        // Ten samples around 100: half-width 9.81 (scipy, in stats::describe).
        let ten = Samples::new(
            vec![
                100.0, 102.0, 98.0, 101.0, 90.0, 91.0, 99.0, 103.0, 100.0, 97.0,
            ],
            Some(Duration::from_millis(500)),
        );
        let words = render(&ten, 981.0).unwrap();
        assert_eq!(words, "±  1.0 % (10 x 500 ms)");
        let back = parse(&words).unwrap();
        assert!(back.samples.is_empty());
        assert_eq!(back.count(), 10);
        assert_eq!(back.sample_interval_ns, Some(500_000_000));
        assert_eq!(back.half_width_percent(1.0), Some(1.0));
        // Any figure: the printed spread is already relative.
        assert_eq!(render(&back, 5.0).unwrap(), words);
        for t in [
            "±    ? % (1 x 20 ms)",
            "± 12.5 % (3 passes)",
            "± 100.0 % (600 x 33 ms)",
        ] {
            assert_eq!(render(&parse(t).unwrap(), 7.0).unwrap(), t, "{t}");
        }
    }

    #[test]
    fn other_words_are_not_a_spread() {
        for t in [
            "",
            "± 1.0 %",
            "± -1.0 % (3 passes)",
            "± 1.0 % (0 passes)",
            "± inf % (3 passes)",
            "± 1.0 % (3 x 5 s)",
            "± 1e3 % (3 passes)",
            "±  1.0 % (99999999999999999999 x 500 ms)",
        ] {
            assert_eq!(parse(t), None, "{t}");
        }
    }
}
