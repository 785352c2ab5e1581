//! A rank trend test across the rounds of `--repeat`: did a section's
//! figures move one way from the first rounds to the last (credits of a
//! burstable instance running out, a host heating up, a quota applied)?
//!
//! Method: the Mann–Kendall test (Mann, Econometrica 13, 1945; Kendall,
//! *Rank Correlation Methods*, 1975) in its seasonal form (Hirsch, Slack &
//! Smith, Water Resources Research 18(1), 1982): each step of a section is
//! a "season" with its own level, and the rounds are the years. Per step,
//! S = Σ_{i<j} sgn(x_j − x_i) over its trials in the order they ran, with
//! Var(S) = [n(n−1)(2n+5) − Σ_t t(t−1)(2t+5)]/18 (t the sizes of tied
//! groups); the section's S and Var(S) are the sums, and
//! Z = (S − sgn(S))/√Var(S) (continuity correction), two-sided p from the
//! normal. The steps of a section share their rounds, so a change of the
//! host shows in all of them: testing them together gives a 2-step
//! section (a 2-CPU host) with a clean halfway drop a 78 % chance of
//! p < 0.05 where one 6-trial step alone has 14 % (simulated, 2 % noise).
//! Rank-based: one wild trial moves S by at most n − 1.
//!
//! Reference values: pymannkendall 1.4.3 (`original_test`,
//! `seasonal_test`), cross-checked with scipy's `kendalltau`.

use super::dist::normal_sf;

/// The Mann–Kendall statistic of one series and its null variance with
/// the ties correction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KendallS {
    /// Σ_{i<j} sgn(x_j − x_i): positive for a rising series.
    pub s: f64,
    /// Var(S) under no trend, ties corrected.
    pub var_s: f64,
}

/// S and Var(S) of `x` in time order; non-finite values are left out.
pub fn kendall_s(x: &[f64]) -> KendallS {
    let v: Vec<f64> = x.iter().copied().filter(|f| f.is_finite()).collect();
    let n = v.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += match v[j].partial_cmp(&v[i]) {
                Some(std::cmp::Ordering::Greater) => 1.0,
                Some(std::cmp::Ordering::Less) => -1.0,
                _ => 0.0,
            };
        }
    }
    let mut sorted = v.clone();
    sorted.sort_by(f64::total_cmp);
    let term = |t: f64| t * (t - 1.0) * (2.0 * t + 5.0);
    let mut ties = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i + 1;
        while j < sorted.len() && sorted[j] == sorted[i] {
            j += 1;
        }
        ties += term((j - i) as f64);
        i = j;
    }
    KendallS {
        s,
        var_s: (term(n as f64) - ties) / 18.0,
    }
}

/// The seasonal Mann–Kendall test of a section.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trend {
    /// The sum of the steps' S.
    pub s: f64,
    /// The sum of their variances.
    pub var_s: f64,
    /// The normal score, continuity corrected; 0 when S is 0 or Var(S) is.
    pub z: f64,
    /// Two-sided p-value; 1 without variance.
    pub p: f64,
}

/// The seasonal Mann–Kendall test of `series` (each a step's trials in
/// the order they ran). One series is the plain Mann–Kendall test.
pub fn seasonal_kendall(series: &[Vec<f64>]) -> Trend {
    let (mut s, mut var_s) = (0.0, 0.0);
    for x in series {
        let k = kendall_s(x);
        s += k.s;
        var_s += k.var_s;
    }
    let z = if var_s <= 0.0 || s == 0.0 {
        0.0
    } else {
        (s - s.signum()) / var_s.sqrt()
    };
    let p = if var_s <= 0.0 {
        1.0
    } else {
        (2.0 * normal_sf(z.abs())).min(1.0)
    };
    Trend { s, var_s, z, p }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    // Reference values, pymannkendall 1.4.3 with numpy 2.4:
    //   mk.original_test([10.0, 9.8, 9.9, 9.1, 8.7, 8.8])
    //   mk.original_test([5, 5, 6, 7, 7, 7, 8, 6])
    //   mk.seasonal_test(np.array([100, 205, 101, 200, 99, 198, 60, 120,
    //                              52, 118, 55, 110], float), period=2)
    //   mk.seasonal_test(np.array([3, 1, 2, 3, 1, 2, 3, 1, 2], float), period=3)
    // (seasonal_test takes the series round by round: period = steps.)
    #[test]
    fn matches_pymannkendall() {
        let t = seasonal_kendall(&[vec![10.0, 9.8, 9.9, 9.1, 8.7, 8.8]]);
        assert_eq!(t.s, -11.0);
        assert!(close(t.var_s, 28.333333333333332), "{t:?}");
        assert!(close(t.z, -1.8786728732554487), "{t:?}");
        assert!(close(t.p, 0.060289173990602185), "{t:?}");

        let ties = [5.0, 5.0, 6.0, 7.0, 7.0, 7.0, 8.0, 6.0];
        let t = seasonal_kendall(&[ties.to_vec()]);
        assert_eq!(t.s, 15.0);
        assert!(close(t.var_s, 59.666666666666664), "{t:?}");
        assert!(close(t.z, 1.812433778408833), "{t:?}");
        assert!(close(t.p, 0.06991919751932074), "{t:?}");

        // Two steps (1 and 2 jobs), six rounds, a drop after round 3.
        let one = vec![100.0, 101.0, 99.0, 60.0, 52.0, 55.0];
        let two = vec![205.0, 200.0, 198.0, 120.0, 118.0, 110.0];
        let t = seasonal_kendall(&[one, two]);
        assert_eq!(t.s, -26.0);
        assert!(close(t.var_s, 56.666666666666664), "{t:?}");
        assert!(close(t.z, -3.3210558207753573), "{t:?}");
        assert!(close(t.p, 0.0008967759951759025), "{t:?}");

        // Every step flat: no variance, no trend.
        let t = seasonal_kendall(&[vec![3.0; 3], vec![1.0; 3], vec![2.0; 3]]);
        assert_eq!((t.s, t.var_s, t.z, t.p), (0.0, 0.0, 0.0, 1.0));
    }

    #[test]
    fn scipy_kendalltau_agrees_on_the_statistic() {
        // scipy.stats.kendalltau(range(6), [10.0, 9.8, 9.9, 9.1, 8.7, 8.8])
        // gives tau = -0.7333333333333333 = S / (n(n-1)/2) without ties.
        let k = kendall_s(&[10.0, 9.8, 9.9, 9.1, 8.7, 8.8]);
        assert!(close(k.s / 15.0, -0.7333333333333333));
    }

    #[test]
    fn short_and_odd_series() {
        assert_eq!(seasonal_kendall(&[]).p, 1.0);
        assert_eq!(seasonal_kendall(&[vec![1.0]]).p, 1.0);
        // Non-finite trials are left out, not ranked.
        let k = kendall_s(&[1.0, f64::NAN, 2.0, 3.0]);
        assert_eq!((k.s, k.var_s), (3.0, 3.0 * 2.0 * 11.0 / 18.0));
        // A rising series is positive, a falling one negative.
        assert!(seasonal_kendall(&[vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]).z > 0.0);
        assert!(seasonal_kendall(&[vec![6.0, 5.0, 4.0, 3.0, 2.0, 1.0]]).z < 0.0);
    }
}
