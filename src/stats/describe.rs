//! Descriptive statistics of one list of values, and the [`Summary`] of one
//! step's sub-interval samples.
//!
//! Every function takes finite values (a NaN has no place in a sample; the
//! callers drop what they could not measure) and returns `None` when the
//! statistic is undefined (empty input, too few values, zero mean).

use serde::{Deserialize, Serialize};

use super::batch::{batch_means, BatchMeans};
use super::dist::t_quantile;

/// The consistency constant that makes the MAD estimate the standard
/// deviation of normal data: 1/Φ⁻¹(3/4) = 1.4826… (Rousseeuw & Croux,
/// JASA 88 (1993); R's `mad` uses the same 1.4826).
pub const MAD_NORMAL: f64 = 1.4826;

/// The values sorted ascending.
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// The arithmetic mean.
pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some(values.iter().sum::<f64>() / values.len() as f64)
}

/// The smallest value.
pub fn min(values: &[f64]) -> Option<f64> {
    values.iter().copied().min_by(f64::total_cmp)
}

/// The largest value.
pub fn max(values: &[f64]) -> Option<f64> {
    values.iter().copied().max_by(f64::total_cmp)
}

/// The sample standard deviation (denominator n − 1, two passes so that a
/// large common offset does not cancel digits); needs two values.
pub fn sample_sd(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let m = mean(values)?;
    let ss: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    Some((ss / (values.len() - 1) as f64).sqrt())
}

/// The coefficient of variation: sample standard deviation over the mean
/// (undefined at a zero mean).
pub fn cv(values: &[f64]) -> Option<f64> {
    let m = mean(values)?;
    if m == 0.0 {
        return None;
    }
    Some(sample_sd(values)? / m.abs())
}

/// Linear interpolation as numpy's `_lerp` computes it (from the nearer
/// end), so that quantiles agree with numpy to the last bit where they can.
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// The `p` quantile (0 ≤ p ≤ 1) of values already sorted ascending.
///
/// Method: Hyndman & Fan (1996) type 7, the default of R's `quantile` and
/// numpy's `quantile` (`method="linear"`): h = (n − 1) p, then linear
/// interpolation between the order statistics around h.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    Some(lerp(sorted[lo], sorted[hi], h - lo as f64))
}

/// The `p` quantile of `values` (type 7, as [`quantile_sorted`]).
pub fn quantile(values: &[f64], p: f64) -> Option<f64> {
    quantile_sorted(&sorted(values), p)
}

/// The median (the mean of the two middle values for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    quantile(values, 0.5)
}

/// The median absolute deviation, raw: median(|x − median(x)|).
pub fn mad(values: &[f64]) -> Option<f64> {
    let m = median(values)?;
    let dev: Vec<f64> = values.iter().map(|v| (v - m).abs()).collect();
    median(&dev)
}

/// The MAD scaled by [`MAD_NORMAL`] to estimate a standard deviation, as
/// R's `mad(x)` (constant 1.4826) computes it.
#[cfg(test)]
pub fn mad_scaled(values: &[f64]) -> Option<f64> {
    mad(values).map(|m| MAD_NORMAL * m)
}

/// One step's sub-interval samples (e.g. a CPU loop's rate every 500 ms)
/// summed up: their spread and a 95 % interval of their mean that respects
/// autocorrelation (non-overlapping batch means, Law & Kelton, *Simulation
/// Modeling and Analysis*, 3rd ed., § 9.5.3; see [`super::batch`]). The
/// report's JSON carries it as is (`sample_summary`) and reads it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Their arithmetic mean.
    pub mean: f64,
    /// Their median (mean of the two middle ones for an even count).
    pub median: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
    /// Sample standard deviation (n − 1) over the mean; `None` with fewer
    /// than two samples or a zero mean.
    pub cv: Option<f64>,
    /// Batches of the batch-means interval (`None`: too few samples for
    /// an interval, fewer than [`super::batch::MIN_SAMPLES`]).
    pub batches: Option<usize>,
    /// Lower end of the 95 % batch-means interval of the mean rate.
    pub ci95_lo: Option<f64>,
    /// Upper end of the 95 % batch-means interval of the mean rate.
    pub ci95_hi: Option<f64>,
}

/// The confidence level of [`Summary`]'s interval.
const LEVEL: f64 = 0.95;

impl Summary {
    /// Summarizes one step's samples; `None` when there are none, or one
    /// is not finite.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|s| !s.is_finite()) {
            return None;
        }
        let bm: Option<BatchMeans> = batch_means(samples, LEVEL);
        Some(Summary {
            n: samples.len(),
            mean: mean(samples)?,
            median: median(samples)?,
            min: min(samples)?,
            max: max(samples)?,
            cv: cv(samples),
            batches: bm.map(|b| b.batches),
            ci95_lo: bm.map(|b| b.lo),
            ci95_hi: bm.map(|b| b.hi),
        })
    }

    /// The summary of the finite ones of `samples` (a rate over a zero
    /// duration is left out, not propagated); `None` when none is.
    pub fn of_finite(samples: &[f64]) -> Option<Summary> {
        let finite: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        Summary::of(&finite)
    }

    /// Half the width of the 95 % interval, when there is one.
    pub fn ci95_half_width(&self) -> Option<f64> {
        Some((self.ci95_hi? - self.ci95_lo?) / 2.0)
    }

    /// The standard error of the mean relative to the mean, with its
    /// degrees of freedom: what the verdict combines across trials (delta
    /// method on the log scale). Read back from the interval, which is
    /// the batch means' mean ± t(0.975, k − 1)·se, so that a summary read
    /// from JSON gives what the measured one gave. `None` without an
    /// interval or at a mean that is not positive.
    pub fn relative_se(&self) -> Option<(f64, f64)> {
        let (lo, hi, k) = (self.ci95_lo?, self.ci95_hi?, self.batches?);
        let df = k.checked_sub(1).filter(|&d| d > 0)? as f64;
        let centre = (lo + hi) / 2.0;
        let se = (hi - lo) / 2.0 / t_quantile(0.5 + LEVEL / 2.0, df);
        (centre > 0.0).then_some((se / centre, df))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, rel: f64) {
        let err = (got - want).abs() / want.abs().max(1e-300);
        assert!(err <= rel, "got {got:e}, want {want:e}");
    }

    // Reference values: tests/stats_reference.py, section "describe: …"
    // (numpy 2.4.6: np.quantile default method 'linear', np.std(ddof=1);
    // scipy 1.17.1 median_abs_deviation with scale=1 and scale=1/1.4826;
    // R 4.2.2 mad(x)).
    const X: [f64; 9] = [3.2, 1.5, 9.75, 4.0, 4.0, 2.25, 11.5, 0.5, 6.125];

    #[test]
    fn quantiles_match_numpy() {
        for (p, want) in [
            (0.0, 0.5),
            (0.1, 1.3),
            (0.25, 2.25),
            (0.33, 2.858),
            (0.5, 4.0),
            (0.9, 10.1),
            (1.0, 11.5),
        ] {
            close(quantile(&X, p).unwrap(), want, 1e-15);
        }
        close(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5).unwrap(), 2.5, 0.0);
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&X, 1.5), None);
        assert_eq!(median(&[7.0]), Some(7.0));
    }

    #[test]
    fn spread_matches_numpy_and_scipy() {
        close(mean(&X).unwrap(), 4.758333333333334, 1e-15);
        close(sample_sd(&X).unwrap(), 3.722482370676858, 1e-14);
        close(cv(&X).unwrap(), 0.7823080288637879, 1e-14);
        close(mad(&X).unwrap(), 2.125, 1e-15);
        // R's mad(x) and scipy's median_abs_deviation(x, scale=1/1.4826).
        close(mad_scaled(&X).unwrap(), 3.150525, 1e-14);
        assert_eq!(min(&X), Some(0.5));
        assert_eq!(max(&X), Some(11.5));
        assert_eq!(sample_sd(&[1.0]), None);
        assert_eq!(cv(&[-1.0, 1.0]), None);
        assert_eq!(mad(&[2.0, 2.0, 2.0, 9.0]), Some(0.0));
    }

    #[test]
    fn summary_of_too_few_samples_has_no_interval() {
        let s = Summary::of(&[10.0, 11.0, 12.0]).unwrap();
        assert_eq!(s.n, 3);
        assert_eq!(s.median, 11.0);
        assert_eq!(s.ci95_lo, None);
        assert_eq!(s.batches, None);
        assert_eq!(s.relative_se(), None);
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN, 2.0, 3.0]).is_none());
        let s = Summary::of(&[10.0, 11.0, 12.0, 13.0, 9.0]).unwrap();
        assert!(s.ci95_lo.unwrap() < s.mean && s.mean < s.ci95_hi.unwrap());
        assert_eq!(s.batches, Some(2));
    }

    #[test]
    fn relative_se_is_the_batch_means_standard_error() {
        let x: Vec<f64> = (0..37).map(|i| 100.0 + ((i * 7) % 11) as f64).collect();
        let b = batch_means(&x, 0.95).unwrap();
        let (rse, df) = Summary::of(&x).unwrap().relative_se().unwrap();
        assert_eq!(df, b.df);
        close(rse, b.se / b.mean, 1e-12);
        // and a summary read back from JSON gives the same
        let s = Summary::of(&x).unwrap();
        let back: Summary = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.relative_se(), s.relative_se());
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn a_ten_sample_summary_matches_scipy() {
        // import numpy as np, scipy.stats as st   (numpy 2, scipy 1.17.1)
        // x = np.array([100,102,98,101,90,91,99,103,100,97.])
        // np.median(x), x.min(), x.max(), x.std(ddof=1)/x.mean()
        //   -> 99.5 90.0 103.0 0.044679389938366273
        // k = 3 batches of 3, the first sample left out:
        // b = x[1:].reshape(3, 3).mean(axis=1)
        // st.t.interval(0.95, 2, loc=b.mean(), scale=st.sem(b))
        //   -> (88.079660784765, 107.69811699301275)
        let x = [
            100.0, 102.0, 98.0, 101.0, 90.0, 91.0, 99.0, 103.0, 100.0, 97.0,
        ];
        let s = Summary::of_finite(&x).unwrap();
        assert_eq!(s.n, 10);
        assert!(near(s.mean, 98.1), "{s:?}");
        assert_eq!((s.median, s.min, s.max), (99.5, 90.0, 103.0));
        assert!(near(s.cv.unwrap(), 0.044679389938366273), "{s:?}");
        assert_eq!(s.batches, Some(3));
        assert!(near(s.ci95_lo.unwrap(), 88.079660784765), "{s:?}");
        assert!(near(s.ci95_hi.unwrap(), 107.69811699301275), "{s:?}");
        assert!(near(s.ci95_half_width().unwrap(), 9.809228104123875));
    }

    #[test]
    fn batch_means_widen_the_interval_of_correlated_samples() {
        // 16 samples, 4 batches of 4; a slow half then a fast half (strongly
        // autocorrelated): the batch means see it, the naive interval does not.
        // x = np.array([10., 11, 10, 11] * 2 + [14., 15, 14, 15] * 2)
        // b = x.reshape(4, 4).mean(axis=1)
        // st.t.interval(0.95, 3, loc=b.mean(), scale=st.sem(b))
        //   -> (8.825227537925842, 16.174772462074156)
        // st.t.interval(0.95, 15, loc=x.mean(), scale=st.sem(x))
        //   -> (11.365449341445856, 13.634550658554144)
        let x: Vec<f64> = [10.0, 11.0, 10.0, 11.0]
            .repeat(2)
            .into_iter()
            .chain([14.0, 15.0, 14.0, 15.0].repeat(2))
            .collect();
        let s = Summary::of_finite(&x).unwrap();
        assert_eq!(s.batches, Some(4));
        assert!(near(s.ci95_lo.unwrap(), 8.825227537925842), "{s:?}");
        assert!(near(s.ci95_hi.unwrap(), 16.174772462074156), "{s:?}");
        assert!(s.ci95_half_width().unwrap() > (13.634550658554144 - 11.365449341445856) / 2.0);
    }

    #[test]
    fn small_and_degenerate_series() {
        assert_eq!(Summary::of_finite(&[]), None);
        assert_eq!(Summary::of_finite(&[f64::NAN, f64::INFINITY]), None);
        let one = Summary::of_finite(&[7.0]).unwrap();
        assert_eq!(
            (one.n, one.median, one.cv, one.batches),
            (1, 7.0, None, None)
        );
        assert_eq!(one.ci95_half_width(), None);
        // three samples: a spread, but too few for an interval
        let three = Summary::of_finite(&[4.0, 6.0, 5.0]).unwrap();
        assert_eq!(
            (three.median, three.batches, three.ci95_lo),
            (5.0, None, None)
        );
        let flat = Summary::of_finite(&[3.0; 9]).unwrap();
        assert_eq!(flat.cv, Some(0.0));
        assert_eq!((flat.ci95_lo, flat.ci95_hi), (Some(3.0), Some(3.0)));
        let zero = Summary::of_finite(&[0.0, 0.0]).unwrap();
        assert_eq!(zero.cv, None);
        // a non-finite sample is left out, not propagated
        let s = Summary::of_finite(&[1.0, f64::NAN, 3.0]).unwrap();
        assert_eq!((s.n, s.mean), (2, 2.0));
    }
}
