//! An interval for the mean rate of one step from its sub-interval samples,
//! by non-overlapping batch means.
//!
//! Successive sub-interval rates of one step are autocorrelated (a slow
//! second is followed by another: page cache, thermal state, a neighbour's
//! burst), so the textbook s/√n interval is too narrow. Batch means (Law &
//! Kelton, *Simulation Modeling and Analysis*, 3rd ed. §9.5.3; Alexopoulos
//! & Seila, "Output Data Analysis", ch. 7 of Banks (ed.), *Handbook of
//! Simulation*, 1998) cut the series into k consecutive batches of b
//! samples; the batch means are nearly independent once b outgrows the
//! correlation length, and a Student t interval with k − 1 degrees of
//! freedom on them is honest. We take k = ⌊√n⌋ (at least 2) batches of
//! b = ⌊n/k⌋: both the number and the size of the batches grow with n,
//! which is what makes the variance estimate consistent (Flegal & Jones,
//! "Batch means and spectral variance estimators in Markov chain Monte
//! Carlo", Annals of Statistics 38 (2010), with b = ⌊n^½⌋). A step of 60 s
//! sampled every 500 ms gives 10 batches of 12; the minimum of 4 samples
//! gives 2 batches of 2 (1 degree of freedom: a wide, honest interval).
//! When k does not divide n, the first n − k·b samples are dropped: the
//! start of a step is where a ramp-up would be (Law & Kelton's warm-up
//! deletion).

use super::dist::t_quantile;

/// Fewer samples than this give no interval: with 3 the only split is
/// into batches of one, which is the naive interval again.
pub const MIN_SAMPLES: usize = 4;

/// The batch-means estimate of a mean with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchMeans {
    /// Mean of the samples kept (the mean of the batch means).
    pub mean: f64,
    /// Standard error of that mean: sd of the batch means / √k.
    pub se: f64,
    /// Degrees of freedom: k − 1.
    pub df: f64,
    /// Number of batches k.
    pub batches: usize,
    /// Samples per batch b.
    pub batch_size: usize,
    /// Lower end of the interval.
    pub lo: f64,
    /// Upper end of the interval.
    pub hi: f64,
}

/// The batch-means interval of the mean of `samples` at confidence
/// `level` (e.g. 0.95); `None` with fewer than [`MIN_SAMPLES`] samples.
pub fn batch_means(samples: &[f64], level: f64) -> Option<BatchMeans> {
    let n = samples.len();
    if n < MIN_SAMPLES || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let batches = ((n as f64).sqrt().floor() as usize).max(2);
    let batch_size = n / batches;
    let kept = &samples[n - batches * batch_size..];
    let means: Vec<f64> = kept
        .chunks_exact(batch_size)
        .map(|c| c.iter().sum::<f64>() / batch_size as f64)
        .collect();
    let k = batches as f64;
    let mean = means.iter().sum::<f64>() / k;
    let var = means.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>() / (k - 1.0);
    let se = (var / k).sqrt();
    let df = k - 1.0;
    let half = t_quantile(0.5 + level / 2.0, df) * se;
    Some(BatchMeans {
        mean,
        se,
        df,
        batches,
        batch_size,
        lo: mean - half,
        hi: mean + half,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // An AR(1) series (φ = 0.7, innovations sd 20, around 1000) and its
    // batch-means interval by the textbook formula: tests/stats_reference.py,
    // section "batch: …" (numpy default_rng(2024); scipy.stats.t.ppf(0.975, 6)).
    const AR1: [f64; 50] = [
        1028.813756,
        1053.00803,
        1060.040012,
        1022.564418,
        987.93909,
        992.90129,
        1012.257922,
        1018.764281,
        1049.340708,
        1049.555365,
        1047.483947,
        1018.612312,
        990.874278,
        1023.300106,
        1017.288322,
        1028.332228,
        992.304103,
        985.885457,
        964.297987,
        959.495018,
        989.707774,
        963.183815,
        963.546814,
        977.758541,
        971.061573,
        974.697306,
        977.850883,
        992.85839,
        986.375782,
        995.908261,
        998.272167,
        1007.281902,
        1009.596199,
        1039.87102,
        1014.636193,
        1034.229078,
        1015.908106,
        991.977151,
        1018.607895,
        1004.235408,
        995.212068,
        968.874774,
        936.248406,
        968.059903,
        954.336605,
        983.601083,
        1025.484104,
        1015.542914,
        988.347738,
        999.7274,
    ];

    #[test]
    fn batch_means_matches_the_textbook_formula() {
        let bm = batch_means(&AR1, 0.95).unwrap();
        assert_eq!((bm.batches, bm.batch_size), (7, 7));
        assert_eq!(bm.df, 6.0);
        let close =
            |got: f64, want: f64| assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
        close(bm.mean, 1000.7600842244899);
        close(bm.se, 7.539940633207266);
        close(bm.lo, 982.3105141321655);
        close(bm.hi, 1019.2096543168143);
        // The naive s/√n is 4.0166 here: batch means widen it by the
        // autocorrelation, which is the point.
        assert!(bm.se > 1.8 * 4.016634220591455);
    }

    #[test]
    fn too_few_samples_give_no_interval() {
        assert!(batch_means(&[1.0, 2.0, 3.0], 0.95).is_none());
        let bm = batch_means(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95).unwrap();
        // 2 batches of 2; the first sample (the ramp-up) is dropped.
        assert_eq!((bm.batches, bm.batch_size), (2, 2));
        assert_eq!(bm.mean, 3.5);
        assert!(batch_means(&AR1, 1.0).is_none());
    }
}
