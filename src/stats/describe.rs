//! Descriptive statistics of one list of values, and the [`Summary`] of one
//! step's sub-interval samples.
//!
//! Every function takes finite values (a NaN has no place in a sample; the
//! callers drop what they could not measure) and returns `None` when the
//! statistic is undefined (empty input, too few values, zero mean).

use serde::Serialize;

use super::batch::{batch_means, BatchMeans};

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
pub fn mad_scaled(values: &[f64]) -> Option<f64> {
    mad(values).map(|m| MAD_NORMAL * m)
}

/// How the interval of a [`Summary`] was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum IntervalMethod {
    /// Non-overlapping batch means (see [`super::batch`]).
    BatchMeans {
        /// Mean of the samples the batches kept (the estimate the interval
        /// is about; the first samples may be dropped).
        mean: f64,
        /// Number of batches.
        batches: usize,
        /// Samples in each batch.
        batch_size: usize,
        /// Standard error of the mean rate.
        se: f64,
        /// Degrees of freedom of the t quantile (batches − 1).
        df: f64,
    },
    /// Fewer than [`super::batch::MIN_SAMPLES`] samples: no interval.
    TooFewSamples,
}

/// One step's sub-interval samples (e.g. a CPU loop's rate every 500 ms)
/// summed up: their spread and a 95 % interval of their mean that respects
/// autocorrelation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Mean of the samples.
    pub mean: f64,
    /// Median of the samples.
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Coefficient of variation of the samples (sample sd / mean); `None`
    /// for one sample or a zero mean.
    pub cv: Option<f64>,
    /// Lower end of the 95 % batch-means interval of the mean.
    pub ci95_lo: Option<f64>,
    /// Upper end of the 95 % batch-means interval of the mean.
    pub ci95_hi: Option<f64>,
    /// How the interval was obtained, or why there is none.
    pub method: IntervalMethod,
}

impl Summary {
    /// Summarizes one step's samples; `None` when there are none, or one
    /// is not finite.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|s| !s.is_finite()) {
            return None;
        }
        let bm: Option<BatchMeans> = batch_means(samples, 0.95);
        Some(Summary {
            n: samples.len(),
            mean: mean(samples)?,
            median: median(samples)?,
            min: min(samples)?,
            max: max(samples)?,
            cv: cv(samples),
            ci95_lo: bm.map(|b| b.lo),
            ci95_hi: bm.map(|b| b.hi),
            method: bm.map_or(IntervalMethod::TooFewSamples, |b| {
                IntervalMethod::BatchMeans {
                    mean: b.mean,
                    batches: b.batches,
                    batch_size: b.batch_size,
                    se: b.se,
                    df: b.df,
                }
            }),
        })
    }

    /// The standard error of the mean relative to the mean, with its
    /// degrees of freedom: what the verdict combines across trials (delta
    /// method on the log scale). `None` without an interval or at a mean
    /// that is not positive.
    pub fn relative_se(&self) -> Option<(f64, f64)> {
        match self.method {
            IntervalMethod::BatchMeans { mean, se, df, .. } if mean > 0.0 => Some((se / mean, df)),
            _ => None,
        }
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
        assert_eq!(s.method, IntervalMethod::TooFewSamples);
        assert_eq!(s.relative_se(), None);
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN, 2.0, 3.0]).is_none());
        let s = Summary::of(&[10.0, 11.0, 12.0, 13.0, 9.0]).unwrap();
        assert!(s.ci95_lo.unwrap() < s.mean && s.mean < s.ci95_hi.unwrap());
        assert!(matches!(
            s.method,
            IntervalMethod::BatchMeans {
                batches: 2,
                batch_size: 2,
                ..
            }
        ));
    }
}
