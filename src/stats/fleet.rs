//! Outliers of a fleet: one figure across many hosts, which hosts are
//! clearly worse than the rest.
//!
//! Method: the modified z-score of Iglewicz & Hoaglin (*How to Detect and
//! Handle Outliers*, ASQC Basic References in Quality Control vol. 16,
//! 1993): Mᵢ = 0.6745 (xᵢ − x̃) / MAD, with x̃ the median and MAD the
//! raw median absolute deviation (0.6745 = Φ⁻¹(3/4) makes it a z-score for
//! normal data), and their cut |Mᵢ| > 3.5. Median and MAD are not dragged
//! by the outliers they look for, as the mean and sd would be. Two
//! guards fit a benchmark: only the *worse* direction is flagged (a host
//! faster than the fleet is not a problem to chase), and a host must also
//! be more than a practical floor (5 %) worse than the median, so that a
//! fleet of identical hosts, whose MAD is tiny, does not flag noise.

use serde::Serialize;

use super::describe::{mad, median};
use super::Better;

/// Iglewicz & Hoaglin's cut on the modified z-score.
pub const Z_CUT: f64 = 3.5;
/// A host is flagged only when also this much worse than the median.
pub const FLOOR: f64 = 0.05;

/// Iglewicz & Hoaglin's constant Φ⁻¹(3/4), rounded as they give it.
const Z_FACTOR: f64 = 0.6745;
/// √(π/2): makes the mean absolute deviation estimate σ for normal data.
const MEAN_AD_NORMAL: f64 = 1.253314;

/// A host flagged as worse than the fleet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FleetOutlier {
    /// Its index in the values given.
    pub index: usize,
    /// Its modified z-score (negative: below the median).
    pub z: f64,
    /// How much worse than the median, as a fraction (0.12 = 12 % worse:
    /// below it for a higher-is-better figure, above it for a latency).
    pub worse_by: f64,
}

/// The modified z-score of every value; `None` when there are fewer than
/// three values or all are equal.
///
/// When more than half the values are equal the MAD is 0 and Iglewicz &
/// Hoaglin's score is undefined; we then scale by the mean absolute
/// deviation around the median, times 1.253314 (≈ √(π/2), its consistency
/// constant for normal data) instead of the MAD times 1.4826, as IBM's
/// documentation of the modified z-score does, so the scores stay
/// comparable in size.
pub fn modified_z_scores(values: &[f64]) -> Option<Vec<f64>> {
    if values.len() < 3 {
        return None;
    }
    let m = median(values)?;
    let raw_mad = mad(values)?;
    let scale = if raw_mad > 0.0 {
        raw_mad / Z_FACTOR
    } else {
        let mean_ad = values.iter().map(|v| (v - m).abs()).sum::<f64>() / values.len() as f64;
        MEAN_AD_NORMAL * mean_ad
    };
    if scale <= 0.0 {
        return None;
    }
    Some(values.iter().map(|v| (v - m) / scale).collect())
}

/// The hosts whose figure is an outlier on the worse side: modified
/// z-score beyond [`Z_CUT`] that way, and more than [`FLOOR`] worse than
/// the median. `values` holds one figure per host (only hosts that have
/// it); the median must be positive for the floor to mean anything.
pub fn fleet_outliers(values: &[f64], better: Better) -> Vec<FleetOutlier> {
    let Some(z) = modified_z_scores(values) else {
        return Vec::new();
    };
    let Some(m) = median(values).filter(|m| *m > 0.0) else {
        return Vec::new();
    };
    values
        .iter()
        .zip(z)
        .enumerate()
        .filter_map(|(index, (&v, z))| {
            let (worse_by, beyond) = match better {
                Better::Higher => ((m - v) / m, z < -Z_CUT),
                Better::Lower => ((v - m) / m, z > Z_CUT),
            };
            (beyond && worse_by > FLOOR).then_some(FleetOutlier { index, z, worse_by })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values: tests/stats_reference.py, section "fleet: …" (numpy:
    // 0.6745 * (x - np.median(x)) / np.median(np.abs(x - np.median(x)))).
    const HOSTS: [f64; 10] = [
        1000.0, 1012.0, 995.0, 1003.0, 990.0, 1007.0, 850.0, 1001.0, 1200.0, 998.0,
    ];

    #[test]
    fn modified_z_matches_numpy() {
        let z = modified_z_scores(&HOSTS).unwrap();
        let want = [
            -0.05620833333333333,
            1.2927916666666668,
            -0.6182916666666667,
            0.2810416666666667,
            -1.180375,
            0.7307083333333333,
            -16.91870833333333,
            0.05620833333333333,
            22.427125,
            -0.2810416666666667,
        ];
        for (g, w) in z.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{z:?}");
        }
    }

    #[test]
    fn only_the_worse_side_is_flagged() {
        let low = fleet_outliers(&HOSTS, Better::Higher);
        assert_eq!(low.len(), 1);
        assert_eq!(low[0].index, 6);
        assert!(low[0].z < -3.5);
        assert!((low[0].worse_by - (1000.5 - 850.0) / 1000.5).abs() < 1e-12);
        // As a latency, the 1200 is the worse one.
        let high = fleet_outliers(&HOSTS, Better::Lower);
        assert_eq!(high.iter().map(|o| o.index).collect::<Vec<_>>(), vec![8]);
    }

    #[test]
    fn identical_hosts_do_not_flag_noise() {
        // MAD tiny: the 2 % slower host has a huge z but is within the floor.
        let v = [500.0, 500.1, 499.9, 500.0, 490.0, 500.05];
        let z = modified_z_scores(&v).unwrap();
        assert!(z[4] < -3.5);
        assert!(fleet_outliers(&v, Better::Higher).is_empty());
        // MAD = 0 (most hosts equal): the mean-AD fallback still scores the
        // odd host, and a real 20 % gap is flagged.
        let v = [100.0, 100.0, 100.0, 100.0, 100.0, 80.0];
        let out = fleet_outliers(&v, Better::Higher);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].index, 5);
        // numpy: (80 - median) / (1.253314 * mean(|v - median|)).
        assert!((out[0].z - -4.787307889323824).abs() < 1e-12, "{out:?}");
        // All equal: no score, nothing flagged.
        assert!(modified_z_scores(&[3.0; 5]).is_none());
        assert!(fleet_outliers(&[3.0; 5], Better::Higher).is_empty());
        assert!(fleet_outliers(&[1.0, 100.0], Better::Higher).is_empty());
    }
}
