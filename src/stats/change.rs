//! One change point in a rate series: where a line's rate stepped to
//! another level and stayed there (burst credits spent, a provider's IOPS
//! cap, an SSD's write cache full), as against a slow drift.
//!
//! Method: the least-squares single change point in the mean (Hinkley,
//! Biometrika 57(1), 1970; the first step of binary segmentation, Scott &
//! Knott, Biometrics 30(3), 1974), on log rates so that a step is a ratio
//! whatever the level: the split k minimising
//! SSE(k) = Σ_{i<k} (y_i − ȳ_{<k})² + Σ_{i≥k} (y_i − ȳ_{≥k})²,
//! with y = ln(max(rate, m/10)), m the series' median: a stalled
//! sub-interval (rate 0, a loaded host) is one low value, not minus
//! infinity that would outweigh every other.
//! Beside it, the squared error a straight line leaves (ordinary least
//! squares on the index): a drift is fitted by the line at least as well
//! as by two levels, a step much better by the levels.
//!
//! Reference values: `tests/stats_reference.py` (`change point`).

/// The best split of a series into a level before and a level after.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepChange {
    /// Index of the first value after the step.
    pub split: usize,
    /// Median of the values before the split.
    pub before: f64,
    /// Median of the values from the split on.
    pub after: f64,
    /// SSE of the two levels over the SSE of the straight line (both on
    /// log rates): below 1 when the step fits better.
    pub fit_ratio: f64,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// SSE of the least-squares line through `y` against its index.
fn line_sse(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    let mx = (n - 1.0) / 2.0;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (i, v) in y.iter().enumerate() {
        let dx = i as f64 - mx;
        let dy = v - my;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 {
        return syy;
    }
    (syy - sxy * sxy / sxx).max(0.0)
}

/// The best single split of `rates` (in time order) with at least
/// `min_len` values on each side; `None` when the series is too short or
/// holds a negative or non-finite value.
pub fn best_split(rates: &[f64], min_len: usize) -> Option<StepChange> {
    let min_len = min_len.max(1);
    let n = rates.len();
    if n < 2 * min_len || rates.iter().any(|r| !r.is_finite() || *r < 0.0) {
        return None;
    }
    let floor = (median(rates) / 10.0).max(f64::MIN_POSITIVE);
    let y: Vec<f64> = rates.iter().map(|r| r.max(floor).ln()).collect();
    // prefix sums of y and y², so that each split costs O(1)
    let mut s = vec![0.0; n + 1];
    let mut q = vec![0.0; n + 1];
    for i in 0..n {
        s[i + 1] = s[i] + y[i];
        q[i + 1] = q[i] + y[i] * y[i];
    }
    let sse = |a: usize, b: usize| {
        let len = (b - a) as f64;
        let sum = s[b] - s[a];
        (q[b] - q[a] - sum * sum / len).max(0.0)
    };
    let (split, best) = (min_len..=n - min_len)
        .map(|k| (k, sse(0, k) + sse(k, n)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let line = line_sse(&y);
    // rounding leaves a flat series a tiny error: no line to compare with
    let flat = line <= 1e-12 * n as f64;
    let fit_ratio = if flat { 1.0 } else { best / line };
    Some(StepChange {
        split,
        before: median(&rates[..split]),
        after: median(&rates[split..]),
        fit_ratio,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_step_is_found_where_it_is() {
        let x = [100.0, 100.0, 100.0, 100.0, 50.0, 50.0, 50.0];
        let c = best_split(&x, 2).unwrap();
        assert_eq!(c.split, 4);
        assert_eq!((c.before, c.after), (100.0, 50.0));
        // the levels leave no error, the line some
        assert_eq!(c.fit_ratio, 0.0);
    }

    #[test]
    fn a_noisy_step_and_a_ramp_match_numpy() {
        // tests/stats_reference.py, section "change point"
        let step = [
            3010.0, 2950.0, 3080.0, 2990.0, 3020.0, 1010.0, 990.0, 1005.0, 1000.0, 985.0,
        ];
        let c = best_split(&step, 2).unwrap();
        assert_eq!(c.split, 5);
        assert_eq!((c.before, c.after), (3010.0, 1000.0));
        assert!(
            (c.fit_ratio - 0.001_938_920).abs() < 1e-6,
            "{}",
            c.fit_ratio
        );
        let ramp: Vec<f64> = (0..10).map(|i| 1000.0 - 40.0 * i as f64).collect();
        let c = best_split(&ramp, 2).unwrap();
        assert_eq!(c.split, 5);
        assert!((c.fit_ratio - 63.391_28).abs() < 1e-3, "{}", c.fit_ratio);
    }

    #[test]
    fn too_short_or_invalid_series_have_no_split() {
        assert_eq!(best_split(&[1.0, 2.0, 3.0], 2), None);
        assert_eq!(best_split(&[1.0, f64::NAN, 3.0, 4.0], 1), None);
        assert_eq!(best_split(&[1.0, -1.0, 3.0, 4.0], 1), None);
        // a flat series: any split, no better than the line
        let c = best_split(&[5.0; 6], 2).unwrap();
        assert_eq!(c.fit_ratio, 1.0);
        // a zero rate (a stalled sub-interval) is a low value like the others
        assert!(best_split(&[9.0, 9.0, 0.0, 0.0], 1).is_some());
        let stalls = [5e3, 0.0, 5e3, 5e3, 0.0, 5e3, 5e3, 5e3, 0.0, 5e3];
        assert!(best_split(&stalls, 3).unwrap().fit_ratio > 0.5);
    }
}
