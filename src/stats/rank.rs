//! Rank-based two-sample methods: the Mann–Whitney U test and the
//! Hodges–Lehmann shift estimate with its distribution-free (Moses)
//! confidence interval.
//!
//! They assume neither normality nor one mode: a figure that flips between
//! two levels from run to run (some storage lines do) is compared as fairly
//! as a unimodal one. They match scipy's `mannwhitneyu` and R's
//! `wilcox.test(x, y, conf.int = TRUE)` (see the tests for the reference
//! values and `tests/stats_reference.py` for their commands).

use super::describe::median;
use super::dist::{normal_quantile, normal_sf};

/// The exact null distribution of the Mann–Whitney statistic U (the number
/// of pairs (xᵢ, yⱼ) with xᵢ > yⱼ) for sample sizes m and n without ties.
///
/// PValueMethod: the recurrence of Mann & Whitney (Ann. Math. Statist. 18, 1947)
/// on probabilities: the largest of the m + n values is an x with
/// probability m/(m+n) (it then beats all n y's), else a y, so
/// p_{m,n}(u) = m/(m+n)·p_{m−1,n}(u−n) + n/(m+n)·p_{m,n−1}(u).
/// Only additions of positive terms: the tails keep their digits. Work is
/// about m²n²/4 steps (1.5 M for 49 a side, R's limit for the exact case).
#[derive(Debug, Clone)]
pub struct UDistribution {
    m: usize,
    n: usize,
    /// cdf[u] = P(U ≤ u), u = 0 ..= m·n.
    cdf: Vec<f64>,
}

impl UDistribution {
    /// The distribution for sample sizes `m` and `n`.
    pub fn new(m: usize, n: usize) -> Self {
        // prev[j]: the pmf for (i − 1, j); cur[j]: for (i, j).
        let mut prev: Vec<Vec<f64>> = vec![vec![1.0]; n + 1];
        for i in 1..=m {
            let mut cur: Vec<Vec<f64>> = Vec::with_capacity(n + 1);
            cur.push(vec![1.0]);
            for j in 1..=n {
                let total = (i + j) as f64;
                let (wx, wy) = (i as f64 / total, j as f64 / total);
                let mut pmf = vec![0.0; i * j + 1];
                for (u, p) in prev[j].iter().enumerate() {
                    pmf[u + j] += wx * p;
                }
                for (u, p) in cur[j - 1].iter().enumerate() {
                    pmf[u] += wy * p;
                }
                cur.push(pmf);
            }
            prev = cur;
        }
        let mut acc = 0.0;
        let cdf = prev[n]
            .iter()
            .map(|p| {
                acc += p;
                acc.min(1.0)
            })
            .collect();
        UDistribution { m, n, cdf }
    }

    /// The sample sizes (m, n).
    pub fn sizes(&self) -> (usize, usize) {
        (self.m, self.n)
    }

    /// P(U ≤ u).
    pub fn cdf(&self, u: i64) -> f64 {
        if u < 0 {
            0.0
        } else {
            self.cdf[(u as usize).min(self.cdf.len() - 1)]
        }
    }

    /// P(U ≥ u), through the symmetry P(U ≥ u) = P(U ≤ mn − u) so that an
    /// upper tail is a sum of small terms, not 1 minus a sum.
    pub fn sf(&self, u: i64) -> f64 {
        self.cdf((self.m * self.n) as i64 - u)
    }

    /// The smallest q with P(U ≤ q) ≥ p, as R's `qwilcox` (with its fuzz of
    /// 10 machine epsilons below p, for p ≤ ½).
    pub fn quantile(&self, p: f64) -> usize {
        let target = p - 10.0 * f64::EPSILON;
        self.cdf
            .iter()
            .position(|&c| c >= target)
            .unwrap_or(self.cdf.len() - 1)
    }
}

#[cfg(test)]
/// The alternative hypothesis of a test of x against y.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alternative {
    /// x and y differ in location.
    TwoSided,
    /// x is stochastically larger than y.
    Greater,
    /// x is stochastically smaller than y.
    Less,
}

#[cfg(test)]
/// How a Mann–Whitney p-value is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PValueMethod {
    /// scipy's choice: exact when there are no ties and one sample has at
    /// most 8 values, else asymptotic.
    Auto,
    /// The exact distribution (falls back to asymptotic with ties, where it
    /// is not defined).
    Exact,
    /// The normal approximation with tie and continuity corrections.
    Asymptotic,
}

#[cfg(test)]
/// A Mann–Whitney U test result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// U of the first sample: pairs with xᵢ > yⱼ, ties counting ½.
    pub u1: f64,
    /// The p-value.
    pub p_value: f64,
    /// Whether the exact distribution gave it.
    pub exact: bool,
}

/// Average ranks (1-based, ties get the mean of their ranks) and the tie
/// term Σ(t³ − t) over groups of t tied values.
fn ranks(values: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && values[order[j]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j + 1) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = rank;
        }
        let t = (j - i) as f64;
        tie_term += t * t * t - t;
        i = j;
    }
    (ranks, tie_term)
}

/// The standard deviation of U under the null hypothesis with the tie
/// correction (Lehmann, *Nonparametrics: Statistical Methods Based on
/// Ranks*, 1975, ch. 1; scipy's and R's formula): √(mn/12 · ((N+1) − Σ(t³−t)/(N(N−1)))).
fn u_sigma(m: usize, n: usize, tie_term: f64) -> f64 {
    let (mf, nf) = (m as f64, n as f64);
    let big_n = mf + nf;
    (mf * nf / 12.0 * ((big_n + 1.0) - tie_term / (big_n * (big_n - 1.0)))).sqrt()
}

/// The Mann–Whitney U test of x against y (Mann & Whitney 1947), as
/// `scipy.stats.mannwhitneyu(x, y, alternative, method, use_continuity=True)`:
/// U₁ = R₁ − m(m+1)/2 from the average ranks; the exact p-value is
/// P(U ≥ U_obs) (doubled for two sides, from the larger of U₁ and U₂); the
/// asymptotic one is the normal survival of (U − mn/2 − ½)/σ with σ
/// tie-corrected. `None` when a sample is empty.
#[cfg(test)]
pub fn mann_whitney_u(
    x: &[f64],
    y: &[f64],
    alternative: Alternative,
    method: PValueMethod,
) -> Option<MannWhitney> {
    let (m, n) = (x.len(), y.len());
    if m == 0 || n == 0 {
        return None;
    }
    let all: Vec<f64> = x.iter().chain(y).copied().collect();
    let (r, tie_term) = ranks(&all);
    let r1: f64 = r[..m].iter().sum();
    let u1 = r1 - (m * (m + 1)) as f64 / 2.0;
    let u2 = (m * n) as f64 - u1;
    let (u, factor) = match alternative {
        Alternative::Greater => (u1, 1.0),
        Alternative::Less => (u2, 1.0),
        Alternative::TwoSided => (u1.max(u2), 2.0),
    };
    let ties = tie_term > 0.0;
    let exact = match method {
        PValueMethod::Auto => (m <= 8 || n <= 8) && !ties,
        PValueMethod::Exact => !ties,
        PValueMethod::Asymptotic => false,
    };
    let p = if exact {
        UDistribution::new(m, n).sf(u as i64)
    } else {
        let sigma = u_sigma(m, n, tie_term);
        if sigma > 0.0 {
            normal_sf((u - (m * n) as f64 / 2.0 - 0.5) / sigma)
        } else {
            1.0
        }
    };
    Some(MannWhitney {
        u1,
        p_value: (p * factor).clamp(0.0, 1.0),
        exact,
    })
}

/// The shift of x against y (x − y) estimated by Hodges–Lehmann, with its
/// confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShiftInterval {
    /// The Hodges–Lehmann estimate: the median of the m·n differences.
    pub estimate: f64,
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// The confidence level asked for.
    pub level: f64,
    /// The confidence level the interval has: with few values the exact
    /// distribution has coarse steps, and the widest interval (all the
    /// differences) may fall short of `level`.
    pub achieved: f64,
    /// Whether `level` was reached; when not, the interval is the widest
    /// there is and no claim at `level` may rest on it.
    pub attainable: bool,
    /// Exact distribution (else the normal approximation).
    pub exact: bool,
}

/// Everything about the shift of x against y that the interval and the
/// margin tests share: computed once per figure.
///
/// The statistic for a shift d is U(d) = #{(i,j): xᵢ − d > yⱼ} (ties ½),
/// which only changes at the pairwise differences xᵢ − yⱼ; inverting the
/// Mann–Whitney test in d gives the Moses interval (Moses, in Walker & Lev,
/// *Statistical Inference*, 1953; Bauer, "Constructing confidence sets
/// using rank statistics", JASA 67, 1972; Hollander & Wolfe,
/// *Nonparametric Statistical Methods*, §4.3).
#[derive(Debug, Clone)]
pub struct Shift {
    m: usize,
    n: usize,
    x: Vec<f64>,
    y: Vec<f64>,
    /// All x − y differences, ascending.
    diffs: Vec<f64>,
    /// Σ(t³ − t) over ties within x and within y (those survive any shift).
    within_ties: f64,
    /// The exact distribution, when R would use it: both samples under 50
    /// values and no ties in the pooled sample.
    dist: Option<UDistribution>,
}

impl Shift {
    /// Prepares the shift of `x` against `y`; `None` when a sample is
    /// empty or a value is not finite. `dist` may pass a cached exact
    /// distribution for these sizes (it is used only when it fits).
    pub fn new(x: &[f64], y: &[f64], dist: Option<&UDistribution>) -> Option<Shift> {
        let (m, n) = (x.len(), y.len());
        if m == 0 || n == 0 || x.iter().chain(y).any(|v| !v.is_finite()) {
            return None;
        }
        let mut diffs = Vec::with_capacity(m * n);
        for xi in x {
            for yj in y {
                diffs.push(xi - yj);
            }
        }
        diffs.sort_by(f64::total_cmp);
        let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
        let pooled_ties = ranks(&pooled).1 > 0.0;
        let within_ties = ranks(x).1 + ranks(y).1;
        let exact = m < 50 && n < 50 && !pooled_ties;
        let dist = exact.then(|| match dist {
            Some(d) if d.sizes() == (m, n) => d.clone(),
            _ => UDistribution::new(m, n),
        });
        Some(Shift {
            m,
            n,
            x: x.to_vec(),
            y: y.to_vec(),
            diffs,
            within_ties,
            dist,
        })
    }

    /// Whether the exact distribution is used.
    pub fn exact(&self) -> bool {
        self.dist.is_some()
    }

    /// The sample sizes (m, n).
    pub fn sizes(&self) -> (usize, usize) {
        (self.m, self.n)
    }

    /// The Hodges–Lehmann estimate of the shift (Hodges & Lehmann, Ann.
    /// Math. Statist. 34, 1963): the median of the pairwise differences.
    /// R's exact branch returns the same; its asymptotic branch returns the
    /// root of the uncorrected normal score found by `uniroot` to 1e-4,
    /// which is at the middle differences within that tolerance.
    pub fn estimate(&self) -> f64 {
        median(&self.diffs).unwrap_or(f64::NAN)
    }

    fn mn(&self) -> f64 {
        (self.m * self.n) as f64
    }

    /// σ of U for a shift that ties no x with a y.
    fn sigma(&self) -> f64 {
        u_sigma(self.m, self.n, self.within_ties)
    }

    /// The continuity-corrected standard score of U, as R's `W(d)`.
    fn score(&self, u: f64) -> f64 {
        let dz = u - self.mn() / 2.0;
        (dz - 0.5 * sign(dz)) / self.sigma()
    }

    /// U(d): the differences above d, those equal to d counting ½.
    fn u_at(&self, d: f64) -> f64 {
        let at_most = self.diffs.partition_point(|&v| v <= d);
        let below = self.diffs.partition_point(|&v| v < d);
        (self.diffs.len() - at_most) as f64 + 0.5 * (at_most - below) as f64
    }

    /// The p-value of H₀: shift ≤ `delta` against shift > `delta`: the
    /// Mann–Whitney test of x − delta against y, alternative "greater", as
    /// R's `wilcox.test(x, y, mu = delta, alternative = "greater")`.
    pub fn p_greater(&self, delta: f64) -> f64 {
        let u = self.u_at(delta);
        self.p_upper(u, delta)
    }

    /// The p-value of H₀: shift ≥ `delta` against shift < `delta`.
    pub fn p_less(&self, delta: f64) -> f64 {
        // The statistic of y against x − delta: #{xᵢ − yⱼ < delta}, ties ½,
        // which is mn − U(delta).
        let u = self.u_at(delta);
        self.p_upper(self.mn() - u, delta)
    }

    /// P(U ≥ u) under the null, for the pooled sample x − delta, y. The
    /// exact branch takes the conservative side when a difference equals
    /// delta (u is then half-integer and the exact law undefined); the
    /// normal one counts the ties that delta makes, as R does.
    fn p_upper(&self, u: f64, delta: f64) -> f64 {
        match &self.dist {
            Some(d) => d.sf(u.floor() as i64),
            None => {
                let pooled: Vec<f64> = self
                    .x
                    .iter()
                    .map(|v| v - delta)
                    .chain(self.y.iter().copied())
                    .collect();
                let sigma = u_sigma(self.m, self.n, ranks(&pooled).1);
                if sigma > 0.0 {
                    normal_sf((u - self.mn() / 2.0 - 0.5) / sigma)
                } else {
                    1.0
                }
            }
        }
    }

    /// The confidence interval of the shift at `level` (two-sided), as R's
    /// `wilcox.test(x, y, conf.int = TRUE, conf.level = level)$conf.int`.
    ///
    /// Exact: with q = qwilcox((1 − level)/2, m, n) (1 if 0), the interval is
    /// [D₍q₎, D₍mn−q+1₎] of the ascending differences; it covers with
    /// probability 1 − 2·P(U ≤ q − 1). Asymptotic: each end is the
    /// difference at which the continuity-corrected score of U(d) crosses
    /// ∓z₍₁₋α/₂₎; R finds that crossing with `uniroot` (tolerance 1e-4), we
    /// find the exact step, which is where R's root converges to.
    pub fn interval(&self, level: f64) -> ShiftInterval {
        let alpha = 1.0 - level;
        let estimate = self.estimate();
        let k = self.diffs.len();
        match &self.dist {
            Some(d) => {
                let raw = d.quantile(alpha / 2.0);
                let q = raw.max(1);
                let achieved_alpha = 2.0 * d.cdf(q as i64 - 1);
                ShiftInterval {
                    estimate,
                    lo: self.diffs[q - 1],
                    hi: self.diffs[k - q],
                    level,
                    achieved: 1.0 - achieved_alpha,
                    // R's test: reached unless the steps fall short of alpha.
                    attainable: raw >= 1 || achieved_alpha <= alpha * (1.0 + 1e-9),
                    exact: true,
                }
            }
            None => {
                let z = normal_quantile(1.0 - alpha / 2.0);
                let best = self.score(self.mn());
                let lo = self.crossing(z);
                let hi = self.crossing(-z);
                let attainable = best > z;
                ShiftInterval {
                    estimate,
                    lo,
                    hi,
                    level,
                    achieved: if attainable {
                        level
                    } else {
                        1.0 - 2.0 * normal_sf(best)
                    },
                    attainable,
                    exact: false,
                }
            }
        }
    }

    /// The smallest difference D at which the score of U just above D is
    /// at most `zq` (the score falls as d grows); the largest difference
    /// when it never is.
    fn crossing(&self, zq: f64) -> f64 {
        let k = self.diffs.len();
        let mut i = 0;
        while i < k {
            let d = self.diffs[i];
            let mut j = i + 1;
            while j < k && self.diffs[j] == d {
                j += 1;
            }
            if self.score((k - j) as f64) <= zq {
                return d;
            }
            i = j;
        }
        self.diffs[k - 1]
    }
}

fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// The Hodges–Lehmann estimate of the shift of `x` against `y` with its
/// confidence interval at `level`: R's
/// `wilcox.test(x, y, conf.int = TRUE, conf.level = level)` (exact below 50
/// values a side without ties, else the normal approximation with tie and
/// continuity corrections). `None` when a sample is empty.
#[cfg(test)]
pub fn hodges_lehmann(x: &[f64], y: &[f64], level: f64) -> Option<ShiftInterval> {
    Some(Shift::new(x, y, None)?.interval(level))
}

// Reference values are written as R and scipy print them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got:e}, want {want:e}");
    }

    /// p-values: relative, as the normal tail is good to about 1e-14.
    fn rel(got: f64, want: f64) {
        assert!(
            (got - want).abs() <= 1e-13 * want,
            "got {got:e}, want {want:e}"
        );
    }

    /// An end of an asymptotic interval against R's: R's `uniroot` stops
    /// within 1e-4 of the step where the score crosses, somewhere on the
    /// flat stretch next to it; ours is the step itself. So no difference
    /// may lie strictly between the two (which 1e-4 alone would not catch
    /// where the differences are closer than that).
    fn same_step(s: &Shift, ours: f64, r: f64) {
        let (lo, hi) = (ours.min(r), ours.max(r));
        let between = s.diffs.iter().filter(|&&d| d > lo && d < hi).count();
        assert!(
            (ours - r).abs() <= 1e-4 && between == 0,
            "ours {ours}, R {r}: {between} differences between"
        );
    }

    fn logs(v: &[f64]) -> Vec<f64> {
        v.iter().map(|x| x.ln()).collect()
    }

    // Reference values: tests/stats_reference.py, section "rank:
    // scipy.stats.mannwhitneyu" (scipy 1.17.1, use_continuity=True).
    #[test]
    fn mann_whitney_exact_matches_scipy() {
        let (x, y) = ([3.1, 4.7, 2.2, 5.9, 4.1], [1.2, 2.9, 0.7, 3.4]);
        let two = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Auto).unwrap();
        assert_eq!(two.u1, 17.0);
        assert!(two.exact);
        rel(two.p_value, 0.1111111111111111);
        let greater = mann_whitney_u(&x, &y, Alternative::Greater, PValueMethod::Auto).unwrap();
        rel(greater.p_value, 0.05555555555555555);
        let less = mann_whitney_u(&x, &y, Alternative::Less, PValueMethod::Auto).unwrap();
        rel(less.p_value, 0.9682539682539683);
        let asym = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Asymptotic).unwrap();
        assert!(!asym.exact);
        rel(asym.p_value, 0.11134688653314041);

        // 8 against 12: exact under scipy's rule (one side of 8 or fewer).
        let x = [0.81, 1.93, 1.12, 2.45, 0.33, 1.71, 2.02, 1.27];
        let y = [
            1.05, 0.42, 0.66, 1.38, 0.95, 0.18, 1.51, 0.77, 0.29, 1.16, 0.58, 0.88,
        ];
        let two = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Auto).unwrap();
        assert_eq!(two.u1, 75.0);
        assert!(two.exact);
        rel(two.p_value, 0.038707628800508063);
        let greater = mann_whitney_u(&x, &y, Alternative::Greater, PValueMethod::Auto).unwrap();
        rel(greater.p_value, 0.019353814400254032);
        let less = mann_whitney_u(&x, &y, Alternative::Less, PValueMethod::Auto).unwrap();
        rel(less.p_value, 0.9842899102961022);
        let asym = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Asymptotic).unwrap();
        rel(asym.p_value, 0.040902264159613795);
        assert!(mann_whitney_u(&[], &y, Alternative::TwoSided, PValueMethod::Auto).is_none());
    }

    #[test]
    fn mann_whitney_asymptotic_with_ties_matches_scipy() {
        let x = [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 4.0, 5.0, 6.0, 7.0];
        let y = [3.0, 3.0, 4.0, 5.0, 5.0, 6.0, 8.0, 8.0, 9.0, 9.0, 10.0];
        let two = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Auto).unwrap();
        assert_eq!(two.u1, 24.0);
        assert!(!two.exact);
        rel(two.p_value, 0.030521749085373338);
        let greater = mann_whitney_u(&x, &y, Alternative::Greater, PValueMethod::Auto).unwrap();
        rel(greater.p_value, 0.9872643517143966);
        let less = mann_whitney_u(&x, &y, Alternative::Less, PValueMethod::Auto).unwrap();
        rel(less.p_value, 0.015260874542686669);
        // Exact is not defined with ties: the normal approximation is used.
        let forced = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Exact).unwrap();
        assert!(!forced.exact);
        rel(forced.p_value, 0.030521749085373338);
    }

    #[test]
    fn mann_whitney_large_samples_match_scipy() {
        let x = [
            10.0025, 10.5975, 9.4517, 8.2188, 9.0907, 8.0167, 10.1203, 12.6804, 9.0156, 8.7591,
            10.9797, 10.7138,
        ];
        let y = [
            11.2108, 9.1391, 10.9415, 12.3906, 8.3116, 10.0848, 7.1976, 8.4209, 7.3165, 10.5298,
            8.4651, 11.5425, 11.3135, 10.6261, 5.9665,
        ];
        let auto = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Auto).unwrap();
        assert_eq!(auto.u1, 91.0);
        assert!(!auto.exact);
        rel(auto.p_value, 0.9805355409897708);
        let less = mann_whitney_u(&x, &y, Alternative::Less, PValueMethod::Auto).unwrap();
        rel(less.p_value, 0.529173534919482);
        let exact = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Exact).unwrap();
        rel(exact.p_value, 0.9808685757938687);

        let x = [
            -0.53869, -0.0485, 0.11331, -1.53014, -0.47775, -0.97852, -0.80884, 1.0609, -0.80753,
            -0.03252, 0.88439, -0.5836, -0.1117, 0.11046, 0.06378, -1.22506, 0.07614, 1.35882,
            -1.54714, 0.85938,
        ];
        let y = [
            0.71935, -0.04147, 2.60042, 1.36226, -0.59929, 0.67452, 1.17669, 0.41122, 1.28291,
            0.53348, 1.26725, 2.03852, -0.07566, 0.80314, 0.13669, 0.72727, -0.58719, 0.0207,
            0.4038, 1.49876,
        ];
        let auto = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Auto).unwrap();
        assert_eq!(auto.u1, 90.0);
        rel(auto.p_value, 0.003056629228174791);
        let less = mann_whitney_u(&x, &y, Alternative::Less, PValueMethod::Auto).unwrap();
        rel(less.p_value, 0.0015283146140873955);
        let exact = mann_whitney_u(&x, &y, Alternative::TwoSided, PValueMethod::Exact).unwrap();
        rel(exact.p_value, 0.002393533495724335);
    }

    #[test]
    fn u_distribution_is_a_distribution() {
        let d = UDistribution::new(4, 6);
        assert_eq!(d.cdf(-1), 0.0);
        close(d.cdf(24), 1.0, 1e-15);
        // C(10, 4) = 210 arrangements, one with U = 0.
        close(d.cdf(0), 1.0 / 210.0, 1e-17);
        for u in 0..=24 {
            close(d.sf(u), 1.0 - d.cdf(u - 1), 1e-15);
        }
        // qwilcox(0.025, 5, 5) = 3 in R (P(U <= 2) = 4/252 < 0.025 <= 7/252).
        assert_eq!(UDistribution::new(5, 5).quantile(0.025), 3);
    }

    // Reference values: tests/stats_reference.py, section "rank: R
    // wilcox.test" (R 4.2.2: wilcox.test(log(b), log(a), conf.int = TRUE,
    // conf.level = level); the achieved confidence of an exact interval is
    // 1 - 2 pwilcox(q - 1, n_b, n_a) with q = max(1, qwilcox(alpha/2, …))).
    #[test]
    fn hodges_lehmann_exact_matches_r() {
        let a = [100.0, 103.0, 98.0, 101.0, 99.5];
        let b = [110.0, 108.5, 112.0, 109.0, 111.2];
        let s = Shift::new(&logs(&b), &logs(&a), None).unwrap();
        assert!(s.exact());
        let ci = s.interval(0.95);
        close(ci.estimate, 0.0953101798043247683, 1e-15);
        close(ci.lo, 0.0657513775627807107, 1e-15);
        close(ci.hi, 0.1183412271305472885, 1e-15);
        close(ci.achieved, 0.96825396825396826, 1e-15);
        assert!(ci.attainable);
        // 99.9 % is out of reach with 5 a side: R warns and gives the widest
        // interval at 1 - 2/252.
        let ci = s.interval(0.999);
        close(ci.lo, 0.0520211847508784686, 1e-15);
        close(ci.hi, 0.1335313926245218497, 1e-15);
        close(ci.achieved, 0.99206349206349209, 1e-15);
        assert!(!ci.attainable);
        // R's p-value of H0: no shift (exact), from the two one-sided ones.
        let p = (2.0 * s.p_greater(0.0).min(s.p_less(0.0))).min(1.0);
        rel(p, 0.0079365079365079361);

        let a = [50.2, 51.7, 49.9, 50.8, 52.3, 50.5, 51.1];
        let b = [49.0, 50.9, 48.7, 50.1, 49.6, 51.4];
        let s = Shift::new(&logs(&b), &logs(&a), None).unwrap();
        let ci = s.interval(0.99);
        close(ci.estimate, -0.018982096882843136, 1e-15);
        close(ci.lo, -0.053637483403757180, 1e-15);
        close(ci.hi, 0.017664836179805299, 1e-15);
        close(ci.achieved, 0.99184149184149184, 1e-15);
        let ci = s.interval(0.9);
        close(ci.lo, -0.0419641990990324842, 1e-15);
        close(ci.hi, 0.0040000053333462127, 1e-15);
        close(ci.achieved, 0.92657342657342656, 1e-15);
        let p = (2.0 * s.p_greater(0.0).min(s.p_less(0.0))).min(1.0);
        rel(p, 0.137529137529137535);
    }

    #[test]
    fn hodges_lehmann_with_ties_matches_r() {
        let a = [200.0, 210.0, 210.0, 205.0, 200.0, 215.0];
        let b = [220.0, 215.0, 230.0, 220.0, 225.0, 210.0];
        let s = Shift::new(&logs(&b), &logs(&a), None).unwrap();
        assert!(!s.exact());
        let ci = s.interval(0.95);
        // numpy's median of the differences; R's uniroot estimate
        // 0.068854692254160257 lies between the middle two differences
        // (0.06744128079553313, 0.06899287148695166).
        close(ci.estimate, 0.0682170761412424, 1e-15);
        same_step(&s, ci.lo, 0.022996139711543524);
        same_step(&s, ci.hi, 0.095326099409888565);
        assert!(ci.attainable);
        assert_eq!(ci.achieved, 0.95);
        // R's continuity-corrected p-value of H0: no shift, with the ties
        // between the samples counted.
        let p = (2.0 * s.p_greater(0.0).min(s.p_less(0.0))).min(1.0);
        rel(p, 0.015021210118070085);
    }

    #[test]
    fn hodges_lehmann_large_samples_match_r() {
        let s = Shift::new(&logs(&H4_B), &logs(&H4_A), None).unwrap();
        assert!(!s.exact());
        // numpy's median of the differences (R's root: 0.0613316187983113381,
        // within its 1e-4 tolerance).
        close(s.estimate(), 0.06137183480791686, 1e-15);
        let ci = s.interval(0.95);
        same_step(&s, ci.lo, 0.0345791539058988920);
        same_step(&s, ci.hi, 0.0928584530376289352);
        let ci = s.interval(0.999);
        same_step(&s, ci.lo, 0.0126731752644987442);
        same_step(&s, ci.hi, 0.1114270780276718636);
        let p = (2.0 * s.p_greater(0.0).min(s.p_less(0.0))).min(1.0);
        rel(p, 0.0000421051484670381);
        let via_fn = hodges_lehmann(&logs(&H4_B), &logs(&H4_A), 0.95).unwrap();
        assert_eq!(via_fn.lo, s.interval(0.95).lo);
    }

    const H4_A: [f64; 60] = [
        148.82, 165.468, 163.691, 142.476, 144.917, 142.282, 155.334, 147.749, 157.551, 128.024,
        168.229, 147.273, 156.715, 146.801, 143.98, 154.015, 158.533, 146.028, 146.61, 156.782,
        138.431, 131.479, 153.178, 140.661, 127.278, 139.056, 142.964, 134.901, 131.71, 148.849,
        159.458, 145.671, 139.842, 153.055, 157.178, 144.894, 155.023, 161.326, 145.976, 139.062,
        152.599, 151.382, 162.05, 133.919, 140.762, 138.788, 129.189, 149.922, 154.814, 139.896,
        165.812, 158.5, 156.052, 153.26, 160.205, 133.412, 155.884, 155.745, 128.841, 152.591,
    ];

    const H4_B: [f64; 55] = [
        152.928, 166.089, 150.637, 155.795, 160.361, 145.46, 163.676, 154.718, 162.292, 149.643,
        170.187, 163.762, 153.816, 164.113, 172.566, 180.061, 137.567, 167.444, 161.937, 154.855,
        143.95, 172.531, 141.042, 163.262, 173.148, 137.281, 152.292, 140.508, 159.099, 176.117,
        183.439, 135.335, 149.009, 165.056, 177.035, 161.37, 146.982, 159.776, 155.815, 153.5,
        147.119, 160.932, 159.913, 154.866, 153.28, 140.781, 150.071, 171.832, 153.662, 139.049,
        173.6, 162.784, 184.684, 156.805, 150.369,
    ];
}
