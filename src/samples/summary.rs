//! The summary of a step's rate samples: median, min, max, coefficient of
//! variation, and a 95 % confidence interval of the step's mean rate.
//!
//! STATS ROUTING: this is a minimal, self-contained version written beside
//! the sampler so that the samples could ship before the statistics module
//! (`src/stats/`). When that module lands, route [`summarize`] (and
//! [`t_975`]) through it and keep this file's tests as the reference.
//!
//! **The interval respects autocorrelation.** Successive sub-interval rates
//! of one step are not independent (a slow second is often followed by
//! another: a neighbour's burst, a clock change), so the textbook
//! `mean ± t·s/√n` over the raw samples would be too narrow. The method of
//! non-overlapping batch means (Law & Kelton, *Simulation Modeling and
//! Analysis*, 3rd ed., § 9.5.3) groups the `n` samples into `k` batches of
//! `m` consecutive samples; batch means are close to independent when the
//! batches are longer than the correlation, and the interval is
//! `Ȳ ± t(k−1, 0.975) · s_Ȳ / √k` over the `k` batch means. Here
//! `k = max(2, ⌊√n⌋)` (batches and batch length grow together),
//! `m = ⌊n / k⌋`, and the first `n − k·m` samples (the start of the step,
//! the least settled) are left out.

use serde::{Deserialize, Serialize};

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
    /// Batches of the batch-means interval (`None`: fewer than two samples).
    pub batches: Option<usize>,
    /// Lower end of the 95 % batch-means interval of the mean rate.
    pub ci95_low: Option<f64>,
    /// Upper end of the 95 % batch-means interval of the mean rate.
    pub ci95_high: Option<f64>,
}

impl Summary {
    /// Half the width of the 95 % interval, when there is one.
    pub fn ci95_half_width(&self) -> Option<f64> {
        Some((self.ci95_high? - self.ci95_low?) / 2.0)
    }
}

/// Student's t quantile at 0.975 for 1..=30 degrees of freedom
/// (`scipy.stats.t.ppf(0.975, df)`, scipy 1.17.1).
const T_975: [f64; 30] = [
    12.706204736174694,
    4.302652729749462,
    3.1824463052837078,
    2.7764451051977934,
    2.5705818356363146,
    2.4469118511449786,
    2.364624251592784,
    2.306004135204166,
    2.262157162798205,
    2.228138851986274,
    2.200985160091639,
    2.1788128296672284,
    2.1603686564627913,
    2.144786687917804,
    2.131449545559776,
    2.1199052992212546,
    2.1098155778333156,
    2.1009220402410382,
    2.0930240544083087,
    2.085963447265864,
    2.0796138447276795,
    2.0738730679040254,
    2.0686576104190486,
    2.0638985616280245,
    2.0595385527532972,
    2.0555294386428735,
    2.0518305164802846,
    2.0484071417952454,
    2.045229642132703,
    2.0422724563012378,
];

/// The two-sided 95 % quantile of Student's t with `df` degrees of
/// freedom: the table for 1..=30, the normal 1.96 beyond (t(31) is 2.040,
/// within 4 % of it, and only steps of more than 1000 samples get there).
/// `None` for 0.
pub fn t_975(df: usize) -> Option<f64> {
    match df {
        0 => None,
        1..=30 => Some(T_975[df - 1]),
        _ => Some(1.959963984540054),
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Sample standard deviation (n − 1); 0 for fewer than two values.
fn stdev(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = mean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

/// The summary of `samples`; `None` when there is none. Non-finite values
/// are left out (a rate over a zero duration).
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    let v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    let n = v.len();
    let mut sorted = v.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let m = mean(&v);
    let cv = (n >= 2 && m != 0.0).then(|| stdev(&v) / m.abs());
    let (batches, low, high) = match batch_means_interval(&v) {
        Some((k, lo, hi)) => (Some(k), Some(lo), Some(hi)),
        None => (None, None, None),
    };
    Some(Summary {
        n,
        mean: m,
        median,
        min: sorted[0],
        max: sorted[n - 1],
        cv,
        batches,
        ci95_low: low,
        ci95_high: high,
    })
}

/// The batch-means interval (see the module doc): `(batches, low, high)`,
/// or `None` with fewer than two samples.
fn batch_means_interval(v: &[f64]) -> Option<(usize, f64, f64)> {
    let n = v.len();
    if n < 2 {
        return None;
    }
    let k = ((n as f64).sqrt().floor() as usize).max(2);
    let m = n / k;
    let used = &v[n - k * m..];
    let means: Vec<f64> = used.chunks_exact(m).map(mean).collect();
    let grand = mean(&means);
    let half = t_975(k - 1)? * stdev(&means) / (k as f64).sqrt();
    Some((k, grand - half, grand + half))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn the_t_table_matches_scipy() {
        // python3 -c "import scipy.stats as st;
        //   print([st.t.ppf(0.975, df) for df in (1, 2, 5, 10, 29, 30)], st.norm.ppf(0.975))"
        // scipy 1.17.1
        let want = [
            (1, 12.706204736174694),
            (2, 4.302652729749462),
            (5, 2.5705818356363146),
            (10, 2.228138851986274),
            (29, 2.045229642132703),
            (30, 2.0422724563012378),
            (31, 1.959963984540054),
            (1000, 1.959963984540054),
        ];
        for (df, t) in want {
            assert_eq!(t_975(df), Some(t), "df {df}");
        }
        assert_eq!(t_975(0), None);
        // the table decreases towards the normal quantile
        assert!(T_975.windows(2).all(|w| w[0] > w[1]));
        assert!(t_975(30).unwrap() > t_975(31).unwrap());
    }

    /// Ten rates of a step, with a slow stretch in the middle.
    const TEN: [f64; 10] = [
        100.0, 102.0, 98.0, 101.0, 90.0, 91.0, 99.0, 103.0, 100.0, 97.0,
    ];

    #[test]
    fn a_ten_sample_summary_matches_scipy() {
        // import numpy as np, scipy.stats as st
        // x = np.array([100,102,98,101,90,91,99,103,100,97.])
        // np.median(x), x.min(), x.max(), x.std(ddof=1)/x.mean()
        //   -> 99.5 90.0 103.0 0.044679389938366273
        // k = 3 batches of 3, the first sample left out:
        // b = x[1:].reshape(3, 3).mean(axis=1)
        // st.t.interval(0.95, 2, loc=b.mean(), scale=st.sem(b))
        //   -> (88.079660784765, 107.69811699301275)
        let s = summarize(&TEN).unwrap();
        assert_eq!(s.n, 10);
        assert!(close(s.mean, 98.1), "{s:?}");
        assert_eq!((s.median, s.min, s.max), (99.5, 90.0, 103.0));
        assert!(close(s.cv.unwrap(), 0.044679389938366273), "{s:?}");
        assert_eq!(s.batches, Some(3));
        assert!(close(s.ci95_low.unwrap(), 88.079660784765), "{s:?}");
        assert!(close(s.ci95_high.unwrap(), 107.69811699301275), "{s:?}");
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
        assert!(close(s.ci95_low.unwrap(), 8.825227537925842), "{s:?}");
        assert!(close(s.ci95_high.unwrap(), 16.174772462074156), "{s:?}");
        assert!(s.ci95_half_width().unwrap() > (13.634550658554144 - 11.365449341445856) / 2.0);
    }

    #[test]
    fn two_samples_make_two_batches_of_one() {
        // st.t.interval(0.95, 1, loc=5.0, scale=st.sem([4., 6.]))
        //   -> (-7.706204736174694, 17.706204736174694)
        let s = summarize(&[4.0, 6.0]).unwrap();
        assert_eq!(s.batches, Some(2));
        assert!(close(s.ci95_low.unwrap(), -7.706204736174694), "{s:?}");
        assert!(close(s.ci95_high.unwrap(), 17.706204736174694), "{s:?}");
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
        let flat = summarize(&[3.0; 9]).unwrap();
        assert_eq!(flat.cv, Some(0.0));
        assert_eq!((flat.ci95_low, flat.ci95_high), (Some(3.0), Some(3.0)));
        let zero = summarize(&[0.0, 0.0]).unwrap();
        assert_eq!(zero.cv, None);
        // a non-finite sample is left out, not propagated
        let s = summarize(&[1.0, f64::NAN, 3.0]).unwrap();
        assert_eq!((s.n, s.mean), (2, 2.0));
    }
}
