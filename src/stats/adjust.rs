//! Multiple comparisons: a comparison of two reports judges 30 to 60
//! figures at once, and at 5 % each, two or three would differ by chance.
//!
//! Holm's step-down procedure (Holm, "A simple sequentially rejective
//! multiple test procedure", Scand. J. Statist. 6, 1979) keeps the chance
//! of *any* false claim in the family at α, uniformly more powerful than
//! Bonferroni. Benjamini & Hochberg (JRSS B 57, 1995) control the expected
//! share of false claims (the false discovery rate) instead; when every
//! null hypothesis is true (an A/A comparison) that is the chance of any
//! false claim, and when many figures really differ together (all storage
//! lines, all CPU steps) it keeps far more power than Holm, whose first
//! claim needs α/m, beyond the reach of a rank test with few trials.
//! NaN p-values (tests that could not be made) are left out of the count
//! and come back NaN, as in R's `p.adjust`.

/// Indices of the non-NaN p-values, sorted by p ascending (stable).
fn order(p: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    idx
}

/// Holm-adjusted p-values, as R's `p.adjust(p, method = "holm")`:
/// with p₍₁₎ ≤ … ≤ p₍ₘ₎, p̃₍ᵢ₎ = min(1, maxⱼ≤ᵢ (m − j + 1) p₍ⱼ₎).
pub fn holm(p: &[f64]) -> Vec<f64> {
    let idx = order(p);
    let m = idx.len() as f64;
    let mut out = vec![f64::NAN; p.len()];
    let mut running: f64 = 0.0;
    for (rank, &i) in idx.iter().enumerate() {
        running = running.max((m - rank as f64) * p[i]);
        out[i] = running.min(1.0);
    }
    out
}

/// Benjamini–Hochberg adjusted p-values, as R's
/// `p.adjust(p, method = "BH")`: p̃₍ᵢ₎ = min(1, minⱼ≥ᵢ m p₍ⱼ₎ / j).
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let idx = order(p);
    let m = idx.len() as f64;
    let mut out = vec![f64::NAN; p.len()];
    let mut running = f64::INFINITY;
    for (rank, &i) in idx.iter().enumerate().rev() {
        running = running.min(m / (rank + 1) as f64 * p[i]);
        out[i] = running.min(1.0);
    }
    out
}

/// The significance level at which each test's confidence interval must be
/// read so that the intervals agree with Holm's procedure at family level
/// `alpha`.
///
/// Holm rejects p₍₁₎, p₍₂₎, … while p₍ⱼ₎ ≤ α/(m − j + 1) and stops at the
/// first k + 1 that fails. A test ranked j ≤ k is read at α/(m − j + 1)
/// (its interval then excludes the null, by the duality of tests and
/// intervals); every other test at α/(m − k), the level at which Holm
/// stopped, which its p-value does not reach either. For the hypotheses
/// not rejected these are the compatible intervals of Strassburger & Bretz
/// ("Compatible simultaneous lower confidence bounds for the Holm procedure
/// and other Bonferroni-based closed tests", Stat. Med. 27, 2008); for the
/// rejected ones we keep the step's level, which shows how far beyond the
/// margin a figure is, rather than their bound at the margin itself. NaN
/// p-values get NaN.
pub fn holm_levels(p: &[f64], alpha: f64) -> Vec<f64> {
    let idx = order(p);
    let m = idx.len();
    let mut out = vec![f64::NAN; p.len()];
    let mut rejected = 0;
    while rejected < m && p[idx[rejected]] <= alpha / (m - rejected) as f64 {
        rejected += 1;
    }
    for (rank, &i) in idx.iter().enumerate() {
        out[i] = alpha / (m - rank.min(rejected)) as f64;
    }
    out
}

/// The significance level at which each test's confidence interval must be
/// read so that the intervals agree with the Benjamini–Hochberg procedure
/// at level `q`: the false coverage-statement rate (FCR) adjusted
/// intervals of Benjamini & Yekutieli ("False discovery rate–adjusted
/// multiple confidence intervals for selected parameters", JASA 100,
/// 2005). BH selects the R tests with p₍ⱼ₎ ≤ R q/m (R the largest such
/// rank); each selected test's interval is read at level 1 − R q/m, which
/// keeps the expected share of intervals that miss among those shown at
/// most q, and excludes the null by the duality of tests and intervals.
/// Every other test is read at (R + 1) q/m, the level at which BH would
/// have selected one more, which its p-value does not reach (for a rank
/// beyond R, p₍ₖ₎ > k q/m ≥ (R + 1) q/m): its interval does not exclude
/// the null either, so interval and selection agree. NaN p-values get NaN.
pub fn bh_levels(p: &[f64], q: f64) -> Vec<f64> {
    let idx = order(p);
    let m = idx.len();
    let selected = (1..=m)
        .rev()
        .find(|&k| p[idx[k - 1]] <= k as f64 * q / m as f64)
        .unwrap_or(0);
    let mut out = vec![f64::NAN; p.len()];
    for (rank, &i) in idx.iter().enumerate() {
        let r = if rank < selected {
            selected
        } else {
            (selected + 1).min(m)
        };
        out[i] = r as f64 * q / m as f64;
    }
    out
}

// Reference values are written as R and scipy print them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    fn all_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            if w.is_nan() {
                assert!(g.is_nan(), "{got:?} vs {want:?}");
            } else {
                assert!((g - w).abs() <= 1e-14 * w, "{got:?} vs {want:?}");
            }
        }
    }

    // Reference values: tests/stats_reference.py, section "adjust: …"
    // (R 4.2.2: p.adjust(p, "holm") and p.adjust(p, "BH"), NA left out).
    const P: [f64; 8] = [0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.9, 0.0001];

    #[test]
    fn holm_matches_r() {
        all_close(
            &holm(&P),
            &[0.06, 0.16, 0.15, 0.035, 0.4, 0.16, 0.9, 0.0008],
        );
        all_close(&holm(&[0.02, f64::NAN, 0.01]), &[0.02, f64::NAN, 0.02]);
    }

    #[test]
    fn bh_matches_r() {
        all_close(
            &benjamini_hochberg(&P),
            &[
                0.02666666666666666491,
                0.05333333333333332982,
                0.05333333333333332982,
                0.02,
                0.22857142857142856429,
                0.05333333333333332982,
                0.9,
                0.0008,
            ],
        );
        all_close(
            &benjamini_hochberg(&[0.02, f64::NAN, 0.01, 0.04]),
            &[0.03, f64::NAN, 0.03, 0.04],
        );
    }

    // Reference values: tests/stats_reference.py, section "adjust: BH
    // levels" (R 4.2.2: which(p.adjust(p, "BH") <= 0.05) selects ranks
    // 1..R; the levels are R q/m for those, (R + 1) q/m for the others).
    #[test]
    fn bh_levels_agree_with_r_selection() {
        // R: p.adjust(P, "BH") <= 0.05 -> T F F T F F F T: R = 3 of 8.
        let levels = bh_levels(&P, 0.05);
        let (sel, rest) = (3.0 * 0.05 / 8.0, 4.0 * 0.05 / 8.0);
        all_close(&levels, &[sel, rest, rest, sel, rest, rest, rest, sel]);
        for ((p, l), adj) in P.iter().zip(&levels).zip(benjamini_hochberg(&P)) {
            assert_eq!(p <= l, adj <= 0.05, "p {p}, level {l}, adjusted {adj}");
        }
        // Step-up: every p at 0.0079 (five trials a side, the smallest a
        // rank test gives) over 50 figures: all selected, read at q itself.
        // R: p.adjust(rep(0.0079, 50), "BH") -> 0.0079 each, all <= 0.05.
        let all = vec![0.0079; 50];
        assert!(benjamini_hochberg(&all)
            .iter()
            .all(|a| (a - 0.0079).abs() < 1e-15));
        assert!(bh_levels(&all, 0.05)
            .iter()
            .all(|l| (l - 0.05).abs() < 1e-15));
        // One such p among 49 nulls: 0.0079 > 0.05/50, nothing selected,
        // every level q/m. R: p.adjust(c(0.0079, rep(0.5, 49)), "BH")[1]
        // -> 0.395.
        let mut one = vec![0.5; 50];
        one[0] = 0.0079;
        all_close(&benjamini_hochberg(&one)[..1], &[0.395]);
        assert!(bh_levels(&one, 0.05)
            .iter()
            .all(|l| (l - 0.001).abs() < 1e-15));
        // NaN left out of m, as in R.
        let l = bh_levels(&[0.02, f64::NAN, 0.01, 0.04], 0.05);
        assert!(l[1].is_nan());
        // R: p.adjust(c(0.02, 0.01, 0.04), "BH") -> 0.03 0.03 0.04: all three.
        all_close(&[l[0], l[2], l[3]], &[0.05, 0.05, 0.05]);
    }

    #[test]
    fn holm_levels_follow_the_step_down() {
        // Sorted: 0.0001 ≤ .05/8, 0.005 ≤ .05/7, 0.01 > .05/6: two rejected,
        // the rest read at .05/6.
        let levels = holm_levels(&P, 0.05);
        let want = [
            0.05 / 6.0,
            0.05 / 6.0,
            0.05 / 6.0,
            0.05 / 7.0,
            0.05 / 6.0,
            0.05 / 6.0,
            0.05 / 6.0,
            0.05 / 8.0,
        ];
        all_close(&levels, &want);
        // Consistent with the adjusted p-values: rejected exactly where the
        // p-value is within its level.
        for ((p, l), adj) in P.iter().zip(&levels).zip(holm(&P)) {
            assert_eq!(p <= l, adj <= 0.05);
        }
    }
}
