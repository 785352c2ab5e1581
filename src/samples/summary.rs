//! The summary a step keeps of its rate samples: median, min, max,
//! coefficient of variation, and a 95 % confidence interval of the step's
//! mean rate. The statistics are [`crate::stats`]'s (one definition):
//! [`crate::stats::Summary::of`], whose interval is by non-overlapping
//! batch means (Law & Kelton, *Simulation Modeling and Analysis*, 3rd ed.,
//! § 9.5.3; see [`crate::stats::batch`]), because successive sub-interval
//! rates are autocorrelated. This is its plain-data form, as the report's
//! JSON carries it and reads it back.

use serde::{Deserialize, Serialize};

use crate::stats::IntervalMethod;

/// What [`summarize`] says about a series of rates (all in the series'
/// own unit).
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
    /// an interval, fewer than [`crate::stats::batch::MIN_SAMPLES`]).
    pub batches: Option<usize>,
    /// Lower end of the 95 % batch-means interval of the mean rate.
    pub ci95_lo: Option<f64>,
    /// Upper end of the 95 % batch-means interval of the mean rate.
    pub ci95_hi: Option<f64>,
}

impl Summary {
    /// Half the width of the 95 % interval, when there is one.
    pub fn ci95_half_width(&self) -> Option<f64> {
        Some((self.ci95_hi? - self.ci95_lo?) / 2.0)
    }
}

/// The summary of `samples`; `None` when there is none. Non-finite values
/// are left out (a rate over a zero duration).
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    let finite: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    let s = crate::stats::Summary::of(&finite)?;
    Some(Summary {
        n: s.n,
        mean: s.mean,
        median: s.median,
        min: s.min,
        max: s.max,
        cv: s.cv,
        batches: match s.method {
            IntervalMethod::BatchMeans { batches, .. } => Some(batches),
            IntervalMethod::TooFewSamples => None,
        },
        ci95_lo: s.ci95_lo,
        ci95_hi: s.ci95_hi,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
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
        let s = summarize(&x).unwrap();
        assert_eq!(s.n, 10);
        assert!(close(s.mean, 98.1), "{s:?}");
        assert_eq!((s.median, s.min, s.max), (99.5, 90.0, 103.0));
        assert!(close(s.cv.unwrap(), 0.044679389938366273), "{s:?}");
        assert_eq!(s.batches, Some(3));
        assert!(close(s.ci95_lo.unwrap(), 88.079660784765), "{s:?}");
        assert!(close(s.ci95_hi.unwrap(), 107.69811699301275), "{s:?}");
        assert!(close(s.ci95_half_width().unwrap(), 9.809228104123875));
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
        let s = summarize(&x).unwrap();
        assert_eq!(s.batches, Some(4));
        assert!(close(s.ci95_lo.unwrap(), 8.825227537925842), "{s:?}");
        assert!(close(s.ci95_hi.unwrap(), 16.174772462074156), "{s:?}");
        assert!(s.ci95_half_width().unwrap() > (13.634550658554144 - 11.365449341445856) / 2.0);
    }

    #[test]
    fn small_and_degenerate_series() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[f64::NAN, f64::INFINITY]), None);
        let one = summarize(&[7.0]).unwrap();
        assert_eq!(
            (one.n, one.median, one.cv, one.batches),
            (1, 7.0, None, None)
        );
        assert_eq!(one.ci95_half_width(), None);
        // three samples: a spread, but too few for an interval
        let three = summarize(&[4.0, 6.0, 5.0]).unwrap();
        assert_eq!(
            (three.median, three.batches, three.ci95_lo),
            (5.0, None, None)
        );
        let flat = summarize(&[3.0; 9]).unwrap();
        assert_eq!(flat.cv, Some(0.0));
        assert_eq!((flat.ci95_lo, flat.ci95_hi), (Some(3.0), Some(3.0)));
        let zero = summarize(&[0.0, 0.0]).unwrap();
        assert_eq!(zero.cv, None);
        // a non-finite sample is left out, not propagated
        let s = summarize(&[1.0, f64::NAN, 3.0]).unwrap();
        assert_eq!((s.n, s.mean), (2, 2.0));
    }
}
