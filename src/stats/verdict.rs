//! The verdict of a figure between two sides (A, the reference, and B),
//! and of a whole comparison's figures at once. A side is one or more
//! trials (each may carry the [`Summary`] of its sub-interval samples); the
//! ratio B/A gets an interval, read against the margin (±5 % by default):
//! **Better / Worse** when the whole interval lies beyond it, **Same** (≈)
//! inside it, **Inconclusive** (~) across a bound, with the runs that would
//! decide. Methods (each cited in docs/METHOD.md "The verdict's interval,
//! its level and the family"): 3+ trials a side, the Hodges–Lehmann / Moses
//! rank interval; with a run floor, a one-way random-effects model (Searle,
//! Casella & McCulloch 1992); 1–2 trials with samples, batch means and the
//! delta method with Welch–Satterthwaite degrees of freedom (Welch 1947);
//! else the fixed band. The family: Benjamini–Hochberg with FCR-adjusted
//! intervals (Benjamini & Yekutieli 2005), or Holm.

use std::collections::HashMap;

use serde::Serialize;

use super::adjust::{benjamini_hochberg, bh_levels, holm, holm_levels};
use super::bootstrap::{median_ratio_interval, resamples_for, seed_of, RESAMPLES};
use super::describe::{median, Summary};
use super::dist::{t_cdf, t_quantile, t_sf};
use super::rank::{Shift, UDistribution};
use super::Better;

/// The practical margin: differences within ±5 % read as the same.
pub const DEFAULT_MARGIN: f64 = 0.05;
/// The error rate of the claims of one comparison (BH's q, or Holm's α).
pub const FAMILY_ALPHA: f64 = 0.05;
/// Trials a side from which the run-to-run spread is measured.
pub const MEASURED_FROM: usize = 3;
/// Beyond this many runs a side, "runs needed" reads "more than 30": a
/// count that large is a guess from a spread measured on a few trials,
/// and the test would need a series no one runs to compare two hosts.
pub const RUNS_CAP: u32 = 30;

/// One trial of a figure: its value, and the summary of its sub-interval
/// samples when it has them.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialValue {
    /// The figure (e.g. loops/s, MB/s, a latency).
    pub value: f64,
    /// Its sub-interval samples, summed up.
    pub within: Option<Summary>,
}

impl TrialValue {
    /// A trial known only by its value.
    pub fn value(value: f64) -> TrialValue {
        TrialValue {
            value,
            within: None,
        }
    }

    /// A trial with its sub-interval samples.
    #[cfg(test)]
    pub fn with_samples(value: f64, samples: &[f64]) -> TrialValue {
        TrialValue {
            value,
            within: Summary::of(samples),
        }
    }

    fn relative_se(&self) -> Option<(f64, f64)> {
        self.within.as_ref()?.relative_se()
    }
}

/// One figure to judge: the two sides and how to read them.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureInput {
    /// Which way is better.
    pub better: Better,
    /// Side A, the reference: one entry per trial.
    pub a: Vec<TrialValue>,
    /// Side B.
    pub b: Vec<TrialValue>,
    /// The practical margin (0.05 = ±5 %).
    pub margin: f64,
    /// The run-to-run coefficient of variation assumed for this kind of
    /// figure when it cannot be measured (e.g. 0.03 for a CPU loop, 0.10
    /// for 4k storage lines); used only with 1–2 trials a side.
    pub assumed_run_cv: f64,
    /// The run-to-run floor, when the figure's runs move more than the
    /// trials of one run show (see the module's notes); none by default.
    pub run_floor: Option<RunFloor>,
    /// Another form of the measurement of an earlier figure of the same
    /// family (its index there): a storage line's MB/s and mean latency
    /// are its IO/s scaled or inverted. Such a figure is judged on its own
    /// data but takes no place of its own in the family: it is read at
    /// the level of the figure it follows, so that one measurement printed
    /// three ways counts once (see [`judge_all`]).
    pub follows: Option<usize>,
}

impl FigureInput {
    /// A figure with the default margin.
    pub fn new(
        better: Better,
        assumed_run_cv: f64,
        a: Vec<TrialValue>,
        b: Vec<TrialValue>,
    ) -> Self {
        FigureInput {
            better,
            a,
            b,
            margin: DEFAULT_MARGIN,
            assumed_run_cv,
            run_floor: None,
            follows: None,
        }
    }

    /// The same figure with a run-to-run floor: each side's runs (its
    /// reports) add `cv`² over their number to its variance.
    pub fn with_run_floor(self, floor: RunFloor) -> Self {
        FigureInput {
            run_floor: (floor.cv > 0.0).then_some(floor),
            ..self
        }
    }

    /// The same figure, as another form of the measurement of figure
    /// `index` of its family.
    pub fn following(self, index: usize) -> Self {
        FigureInput {
            follows: Some(index),
            ..self
        }
    }
}

/// The run-to-run spread that a figure's trials of one run cannot show:
/// its coefficient of variation and the runs behind each side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunFloor {
    /// The run-to-run coefficient of variation beyond the trials' own.
    pub cv: f64,
    /// Runs (reports) behind side A (at least 1).
    pub runs_a: usize,
    /// Runs behind side B.
    pub runs_b: usize,
}

impl RunFloor {
    /// Its share of the variance of the log ratio: cv²(1/R_A + 1/R_B).
    fn variance(&self) -> f64 {
        let inv = |r: usize| 1.0 / r.max(1) as f64;
        self.cv * self.cv * (inv(self.runs_a) + inv(self.runs_b))
    }
}

/// How the claims of a family are controlled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adjustment {
    /// Benjamini–Hochberg at q = alpha, with FCR-adjusted intervals: false
    /// claims at most alpha of the claims, and any false claim at most
    /// alpha when nothing differs.
    BenjaminiHochberg,
    /// Holm's step-down procedure: family-wise error at alpha.
    Holm,
    /// Each figure at alpha on its own (as benchstat does): about alpha of
    /// the figures of an A/A comparison may be flagged.
    PerFigure,
}

/// The error control of one comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Family {
    /// Family-wise (or per-figure) error rate.
    pub alpha: f64,
    /// How it is shared among the figures.
    pub adjustment: Adjustment,
    /// Resamples of the bootstrap interval reported beside each measured
    /// figure (0: none; it never changes a verdict).
    pub bootstrap_resamples: usize,
}

impl Default for Family {
    fn default() -> Self {
        Family {
            alpha: FAMILY_ALPHA,
            adjustment: Adjustment::BenjaminiHochberg,
            bootstrap_resamples: RESAMPLES,
        }
    }
}

/// The call an interval makes on one figure (compare turns it into the
/// verdict of a cell, which may also be missing or not comparable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Call {
    /// B is better than A beyond the margin.
    Better,
    /// B is worse than A beyond the margin.
    Worse,
    /// B is within the margin of A (≈).
    Same,
    /// Cannot tell yet (~).
    Inconclusive,
}

/// What the interval knows of the run-to-run spread.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Spread {
    /// Measured from the trials (rank-based interval).
    Measured {
        /// Trials of side A.
        n_a: usize,
        /// Trials of side B.
        n_b: usize,
    },
    /// Measured from the trials, with a run-to-run floor added (t interval
    /// on the logs).
    MeasuredWithFloor {
        /// Trials of side A.
        n_a: usize,
        /// Trials of side B.
        n_b: usize,
        /// The floor's coefficient of variation.
        run_cv: f64,
    },
    /// Within-run noise measured, run-to-run spread assumed.
    WithinRunOnly {
        /// The run-to-run coefficient of variation assumed.
        assumed_run_cv: f64,
    },
    /// Nothing known: the fixed band on the ratio.
    None,
}

/// How many runs a side would decide an inconclusive figure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RunsNeeded {
    /// About this many runs a side, if the spread stays as observed, would
    /// give this verdict.
    PerSide {
        /// Runs a side.
        runs: u32,
        /// The verdict they would likely give.
        toward: Call,
    },
    /// More than [`RUNS_CAP`] runs a side (held in `runs`) would be
    /// needed for this verdict: the estimate sits near a margin bound, or
    /// the spread is wide for the difference.
    MoreThan {
        /// [`RUNS_CAP`].
        runs: u32,
        /// The verdict they would likely give.
        toward: Call,
    },
    /// The estimate sits on a margin bound: no number of runs decides.
    CannotDecide,
}

/// An interval of the ratio B/A.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RatioInterval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// The confidence level asked for (1 − the figure's alpha).
    pub level: f64,
    /// The confidence it has (rank intervals move in steps).
    pub achieved: f64,
}

/// The judgement of one figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    /// The verdict.
    pub call: Call,
    /// The point estimate of B/A (Hodges–Lehmann with measured spread, the
    /// ratio of geometric means with within-run noise only, else the ratio
    /// of medians).
    pub ratio: f64,
    /// The interval of B/A the verdict reads; `None` with the fixed band,
    /// and when the level is out of reach of the trials (see
    /// [`Judgement::out_of_reach`]): a narrower interval at a lower level
    /// is not what the verdict was read from, so none is given.
    pub interval: Option<RatioInterval>,
    /// The level the figure needed, when its trials cannot reach it (a
    /// rank interval of n trials a side reaches at most 1 − 2/C(2n, n)),
    /// with the fewest trials a side that do.
    pub out_of_reach: Option<OutOfReach>,
    /// The p-value of "B differs from A beyond the margin".
    pub p_value: Option<f64>,
    /// That p-value adjusted across the family (BH or Holm).
    pub p_adjusted: Option<f64>,
    /// What the interval knows of the run-to-run spread.
    pub spread: Spread,
    /// For an inconclusive figure, the runs a side that would decide.
    pub runs_needed: Option<RunsNeeded>,
    /// The percentile bootstrap interval of median(B)/median(A) at the same
    /// level, with 3 or more trials a side (not used by the verdict).
    pub bootstrap: Option<(f64, f64)>,
}

/// A level out of reach of the trials a side: the verdict is `~`, with
/// no interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OutOfReach {
    /// The confidence level the family asks of this figure.
    pub level: f64,
    /// The highest confidence the trials a side allow.
    pub achievable: f64,
    /// The fewest trials a side whose rank interval reaches `level`.
    pub trials_needed: u32,
}

/// Why a figure cannot be judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Unjudgeable {
    /// The reason, in words.
    pub why: &'static str,
}

impl std::fmt::Display for Unjudgeable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.why)
    }
}

/// What the data of one figure supports.
enum Model {
    /// Rank-based, on the logs of the trials.
    Ranks { shift: Shift },
    /// Normal theory on the log scale with an assumed run-to-run part:
    /// the trials' samples and the assumed spread, or the trials and a
    /// run-to-run floor (as `spread` says).
    Within {
        est: f64,
        se: f64,
        df: f64,
        spread: Spread,
    },
    /// The fixed band on the ratio of medians.
    Band { ratio: f64 },
}

/// The margin as bounds on the log of the ratio: ln(1 − m) < 0 < ln(1 + m).
fn bounds(margin: f64) -> (f64, f64) {
    ((1.0 - margin).ln(), (1.0 + margin).ln())
}

fn validate(f: &FigureInput) -> Result<(), Unjudgeable> {
    if f.a.is_empty() || f.b.is_empty() {
        return Err(Unjudgeable {
            why: "a side has no trial",
        });
    }
    if f.a
        .iter()
        .chain(&f.b)
        .any(|t| !(t.value.is_finite() && t.value > 0.0))
    {
        return Err(Unjudgeable {
            why: "a figure that is zero, negative or not a number has no ratio",
        });
    }
    if !((0.0..1.0).contains(&f.margin) && f.assumed_run_cv >= 0.0) {
        return Err(Unjudgeable {
            why: "the margin must be in [0, 1) and the assumed spread not negative",
        });
    }
    Ok(())
}

fn logs(side: &[TrialValue]) -> Vec<f64> {
    side.iter().map(|t| t.value.ln()).collect()
}

/// The log-scale mean of a side and its variance: the variance of the
/// mean of n trials, each with within-run relative variance seᵢ² (df ᵢ)
/// plus the assumed run-to-run cv², is (Σ seᵢ² + n cv²)/n². Returns the
/// mean, the variance and Σ over trials of (seᵢ²/n²)²/dfᵢ for Welch.
fn within_side(side: &[TrialValue], cv: f64) -> Option<(f64, f64, f64)> {
    let n = side.len() as f64;
    let mut var = cv * cv * n;
    let mut welch = 0.0;
    for t in side {
        let (rse, df) = t.relative_se()?;
        let part = rse * rse / (n * n);
        var += rse * rse;
        welch += part * part / df;
    }
    let mean = side.iter().map(|t| t.value.ln()).sum::<f64>() / n;
    Some((mean, var / (n * n), welch))
}

/// How [`judge_all`] would read `f`, without judging it: what its
/// interval would know of the spread (the model [`model`] picks from the
/// trials' counts and samples alone), or why it cannot be judged. For an
/// output that says how figures are judged but shows no verdict.
pub fn spread_of(f: &FigureInput) -> Result<Spread, Unjudgeable> {
    validate(f)?;
    let (n_a, n_b) = (f.a.len(), f.b.len());
    Ok(if n_a >= MEASURED_FROM && n_b >= MEASURED_FROM {
        match f.run_floor {
            Some(floor) => Spread::MeasuredWithFloor {
                n_a,
                n_b,
                run_cv: floor.cv,
            },
            None => Spread::Measured { n_a, n_b },
        }
    } else if within_side(&f.a, f.assumed_run_cv).is_some()
        && within_side(&f.b, f.assumed_run_cv).is_some()
    {
        Spread::WithinRunOnly {
            assumed_run_cv: f.assumed_run_cv,
        }
    } else {
        Spread::None
    })
}

fn model(f: &FigureInput, cache: &mut HashMap<(usize, usize), UDistribution>) -> Model {
    let (na, nb) = (f.a.len(), f.b.len());
    // Shift::new fails only on an empty side or a value that is not
    // finite, which `validate` has refused: `spread_of` relies on it.
    if na >= MEASURED_FROM && nb >= MEASURED_FROM {
        if let Some(floor) = f.run_floor {
            return floored(f, floor);
        }
        let (x, y) = (logs(&f.b), logs(&f.a));
        let dist = (na < 50 && nb < 50).then(|| {
            &*cache
                .entry((nb, na))
                .or_insert_with(|| UDistribution::new(nb, na))
        });
        if let Some(shift) = Shift::new(&x, &y, dist) {
            return Model::Ranks { shift };
        }
    }
    if let (Some((ma, va, wa)), Some((mb, vb, wb))) = (
        within_side(&f.a, f.assumed_run_cv),
        within_side(&f.b, f.assumed_run_cv),
    ) {
        let var = va + vb;
        let welch = wa + wb;
        let df = if welch > 0.0 {
            var * var / welch
        } else {
            f64::INFINITY
        };
        return Model::Within {
            est: mb - ma,
            se: var.sqrt(),
            df,
            spread: Spread::WithinRunOnly {
                assumed_run_cv: f.assumed_run_cv,
            },
        };
    }
    let med = |side: &[TrialValue]| median(&side.iter().map(|t| t.value).collect::<Vec<f64>>());
    Model::Band {
        ratio: med(&f.b).unwrap_or(f64::NAN) / med(&f.a).unwrap_or(f64::NAN),
    }
}

/// The t model of 3 or more trials a side with a run-to-run floor (see
/// the module's notes): the difference of mean logs, its variance the
/// sample variances over n plus the floor's, Welch–Satterthwaite degrees
/// of freedom from the sample parts alone.
fn floored(f: &FigureInput, floor: RunFloor) -> Model {
    let part = |side: &[TrialValue]| {
        let x = logs(side);
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var / n, n - 1.0)
    };
    let ((ma, va, da), (mb, vb, db)) = (part(&f.a), part(&f.b));
    let var = va + vb + floor.variance();
    let welch = va * va / da + vb * vb / db;
    Model::Within {
        est: mb - ma,
        se: var.sqrt(),
        df: if welch > 0.0 {
            var * var / welch
        } else {
            f64::INFINITY
        },
        spread: Spread::MeasuredWithFloor {
            n_a: f.a.len(),
            n_b: f.b.len(),
            run_cv: floor.cv,
        },
    }
}

/// The p-value of "the log ratio lies beyond (lo, hi)": twice the smaller
/// of the two one-sided p-values (each side of the margin tested at
/// alpha/2, as the two-sided interval reads it). `None` for the band.
fn margin_p(model: &Model, (lo, hi): (f64, f64)) -> Option<f64> {
    let (up, down) = match model {
        Model::Ranks { shift } => (shift.p_greater(hi), shift.p_less(lo)),
        Model::Within { est, se, df, .. } => {
            if *se > 0.0 {
                (t_sf((est - hi) / se, *df), t_cdf((est - lo) / se, *df))
            } else {
                (
                    if *est > hi { 0.0 } else { 1.0 },
                    if *est < lo { 0.0 } else { 1.0 },
                )
            }
        }
        Model::Band { .. } => return None,
    };
    Some((2.0 * up.min(down)).min(1.0))
}

/// The smallest n with 2/C(2n, n) ≤ alpha: the fewest trials a side with
/// which a rank interval can reach confidence 1 − alpha.
pub fn min_runs_for(alpha: f64) -> u32 {
    let mut n = 1u32;
    let mut c = 2.0; // C(2, 1)
    while 2.0 / c > alpha && n < 1000 {
        // C(2n+2, n+1) = C(2n, n) · (2n+1)(2n+2)/(n+1)²
        let nf = f64::from(n);
        c *= (2.0 * nf + 1.0) * (2.0 * nf + 2.0) / ((nf + 1.0) * (nf + 1.0));
        n += 1;
    }
    n
}

/// Reads an interval of the log ratio against the margin.
fn read(lo: f64, hi: f64, (mlo, mhi): (f64, f64), better: Better) -> Call {
    let up = if better == Better::Higher {
        Call::Better
    } else {
        Call::Worse
    };
    let down = if better == Better::Higher {
        Call::Worse
    } else {
        Call::Better
    };
    if lo > mhi {
        up
    } else if hi < mlo {
        down
    } else if lo >= mlo && hi <= mhi {
        Call::Same
    } else {
        Call::Inconclusive
    }
}

/// Runs a side that would decide, from the observed interval: its
/// half-width scales as √(1/n_a + 1/n_b), so n a side gives the width
/// times √((1/n_a + 1/n_b)/(2/n)); it must fall below the distance from
/// the estimate to the margin bound(s) it has to clear. Never fewer than
/// the rank interval needs for the level (`min_runs`).
#[allow(clippy::too_many_arguments)]
fn runs_needed(
    est: f64,
    lo: f64,
    hi: f64,
    (mlo, mhi): (f64, f64),
    better: Better,
    n_a: usize,
    n_b: usize,
    min_runs: u32,
) -> RunsNeeded {
    // An estimate on a bound (to rounding: B = 1.05 × A exactly) is on
    // neither side of it, however many runs.
    let on_bound = |b: f64| (est - b).abs() <= 1e-12;
    if on_bound(mlo) || on_bound(mhi) {
        return RunsNeeded::CannotDecide;
    }
    let (factor, toward) = if est > mhi {
        (
            (est - lo) / (est - mhi),
            read(f64::INFINITY, f64::INFINITY, (mlo, mhi), better),
        )
    } else if est < mlo {
        (
            (hi - est) / (mlo - est),
            read(f64::NEG_INFINITY, f64::NEG_INFINITY, (mlo, mhi), better),
        )
    } else if est > mlo && est < mhi {
        (
            ((hi - est) / (mhi - est)).max((est - lo) / (est - mlo)),
            Call::Same,
        )
    } else {
        // A NaN estimate (or bound): nothing to read.
        return RunsNeeded::CannotDecide;
    };
    let scale = 1.0 / n_a as f64 + 1.0 / n_b as f64;
    let runs = (2.0 * factor * factor / scale).ceil();
    let floor = (n_a.max(n_b) + 1) as f64;
    let runs = runs
        .max(floor)
        .max(f64::from(min_runs))
        .max(MEASURED_FROM as f64);
    if runs.is_nan() {
        RunsNeeded::CannotDecide
    } else if runs > f64::from(RUNS_CAP) {
        RunsNeeded::MoreThan {
            runs: RUNS_CAP,
            toward,
        }
    } else {
        RunsNeeded::PerSide {
            runs: runs as u32,
            toward,
        }
    }
}

/// Judges every figure of one comparison, with the claims controlled
/// across the family (Benjamini–Hochberg by default). Figures that cannot
/// be judged (an empty side, a zero value) are left out of the family and
/// come back as `Err`; figures on the fixed band have no p-value and are
/// left out too.
///
/// The family counts measurements, not printed figures: a figure that
/// [`FigureInput::follows`] another is left out of the procedure and read
/// at the level, with the adjusted p-value, of the figure it follows.
/// Why (the arithmetic of a standard report): docs/METHOD.md "Counting
/// measurements, not printed figures".
pub fn judge_all(figures: &[FigureInput], family: &Family) -> Vec<Result<Judgement, Unjudgeable>> {
    let mut cache = HashMap::new();
    let models: Vec<Result<Model, Unjudgeable>> = figures
        .iter()
        .map(|f| validate(f).map(|()| model(f, &mut cache)))
        .collect();
    let p: Vec<f64> = models
        .iter()
        .zip(figures)
        .map(|(m, f)| {
            m.as_ref()
                .ok()
                .and_then(|m| margin_p(m, bounds(f.margin)))
                .unwrap_or(f64::NAN)
        })
        .collect();
    // The figure whose place in the family each figure takes: itself, or
    // the (judgeable, sampled) figure it follows.
    let leader: Vec<usize> = figures
        .iter()
        .enumerate()
        .map(|(i, f)| match f.follows {
            Some(j) if j < i && figures[j].follows.is_none() && !p[j].is_nan() => j,
            _ => i,
        })
        .collect();
    let tested: Vec<f64> = (0..p.len())
        .map(|i| if leader[i] == i { p[i] } else { f64::NAN })
        .collect();
    let (levels, adjusted) = match family.adjustment {
        Adjustment::BenjaminiHochberg => (
            bh_levels(&tested, family.alpha),
            benjamini_hochberg(&tested),
        ),
        Adjustment::Holm => (holm_levels(&tested, family.alpha), holm(&tested)),
        Adjustment::PerFigure => (
            tested
                .iter()
                .map(|v| if v.is_nan() { f64::NAN } else { family.alpha })
                .collect(),
            tested.clone(),
        ),
    };
    models
        .into_iter()
        .zip(figures)
        .enumerate()
        .map(|(i, (m, f))| {
            let m = m?;
            let l = if p[i].is_nan() { i } else { leader[i] };
            Ok(judge_one(
                f,
                &m,
                p[i],
                adjusted[l],
                levels[l],
                family.bootstrap_resamples,
            ))
        })
        .collect()
}

/// Judges one figure on its own (a family of one at [`FAMILY_ALPHA`]).
pub fn judge(figure: &FigureInput) -> Result<Judgement, Unjudgeable> {
    judge_all(std::slice::from_ref(figure), &Family::default())
        .pop()
        .unwrap_or(Err(Unjudgeable {
            why: "nothing to judge",
        }))
}

fn judge_one(
    f: &FigureInput,
    model: &Model,
    p: f64,
    p_adj: f64,
    alpha: f64,
    resamples: usize,
) -> Judgement {
    let margin = bounds(f.margin);
    let (n_a, n_b) = (f.a.len(), f.b.len());
    let level = 1.0 - alpha;
    let (est, lo, hi, achieved, attainable, spread) = match model {
        Model::Band { ratio } => {
            // As `compare` always did: within ±margin of 1 is the same.
            let verdict = if (ratio - 1.0).abs() <= f.margin + 1e-9 {
                Call::Same
            } else {
                read(ratio.ln(), ratio.ln(), margin, f.better)
            };
            return Judgement {
                call: verdict,
                ratio: *ratio,
                interval: None,
                out_of_reach: None,
                p_value: None,
                p_adjusted: None,
                spread: Spread::None,
                runs_needed: None,
                bootstrap: None,
            };
        }
        Model::Ranks { shift } => {
            let ci = shift.interval(level);
            (
                ci.estimate,
                ci.lo,
                ci.hi,
                ci.achieved,
                ci.attainable,
                Spread::Measured { n_a, n_b },
            )
        }
        Model::Within {
            est,
            se,
            df,
            spread,
        } => {
            let half = t_quantile(1.0 - alpha / 2.0, *df) * se;
            (*est, est - half, est + half, level, true, *spread)
        }
    };
    let verdict = if attainable {
        read(lo, hi, margin, f.better)
    } else {
        Call::Inconclusive
    };
    // With a run-to-run floor, both parts of the variance shrink with the
    // runs (reports) a side, not with the trials of one run: the count is
    // of runs, and no rank minimum applies.
    let (units_a, units_b, min_runs) = match (spread, f.run_floor) {
        (Spread::MeasuredWithFloor { .. }, Some(floor)) => (floor.runs_a, floor.runs_b, 1),
        _ => (n_a, n_b, min_runs_for(alpha)),
    };
    let runs_needed = (verdict == Call::Inconclusive)
        .then(|| runs_needed(est, lo, hi, margin, f.better, units_a, units_b, min_runs));
    let bootstrap = (matches!(spread, Spread::Measured { .. }) && resamples > 0)
        .then(|| {
            let a: Vec<f64> = f.a.iter().map(|t| t.value).collect();
            let b: Vec<f64> = f.b.iter().map(|t| t.value).collect();
            let resamples = resamples_for(a.len() + b.len(), resamples);
            median_ratio_interval(&a, &b, level, resamples, seed_of(&a, &b))
        })
        .flatten();
    // Out of reach, the interval computed is at a lower level than the
    // verdict needs: it is not shown, its words say so instead.
    // Ties among the trials can keep even that many from the level: then
    // one more a side.
    let out_of_reach = (!attainable).then(|| OutOfReach {
        level,
        achievable: achieved,
        trials_needed: (min_runs_for(alpha) as usize).max(n_a.max(n_b) + 1) as u32,
    });
    Judgement {
        call: verdict,
        ratio: est.exp(),
        interval: attainable.then_some(RatioInterval {
            lo: lo.exp(),
            hi: hi.exp(),
            level,
            achieved,
        }),
        out_of_reach,
        p_value: Some(p),
        p_adjusted: Some(p_adj),
        spread,
        runs_needed,
        bootstrap,
    }
}

// Reference values are written as R and scipy print them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_says_what_judge_all_would_read() {
        let plain = |v: &[f64]| v.iter().map(|&x| TrialValue::value(x)).collect::<Vec<_>>();
        let sampled = |v: &[f64]| {
            v.iter()
                .map(|&x| {
                    TrialValue::with_samples(x, &[x, x * 1.01, x * 0.99, x, x * 1.02, x * 0.98])
                })
                .collect::<Vec<_>>()
        };
        let cases = [
            (plain(&[100.0]), plain(&[105.0])),
            (sampled(&[100.0]), sampled(&[130.0])),
            (sampled(&[100.0, 101.0]), plain(&[100.0, 99.0])),
            (plain(&[100.0, 101.0, 99.0]), plain(&[120.0, 118.0, 121.0])),
            (
                sampled(&[100.0, 101.0, 99.0]),
                sampled(&[99.0, 98.0, 101.0, 100.0]),
            ),
            (plain(&[0.0]), plain(&[5.0])),
        ];
        for (a, b) in cases {
            let f = FigureInput::new(Better::Higher, 0.1, a, b);
            let judged = judge(&f).map(|j| j.spread);
            assert_eq!(spread_of(&f), judged, "{f:?}");
        }
    }

    fn trials(values: &[f64]) -> Vec<TrialValue> {
        values.iter().map(|&v| TrialValue::value(v)).collect()
    }

    fn close(got: f64, want: f64, rel: f64) {
        assert!(
            (got - want).abs() <= rel * want.abs(),
            "got {got:e}, want {want:e}"
        );
    }

    #[test]
    fn without_samples_the_fixed_band_is_used_and_said() {
        let f = |a: f64, b: f64, better| FigureInput::new(better, 0.03, trials(&[a]), trials(&[b]));
        let j = judge(&f(100.0, 108.0, Better::Higher)).unwrap();
        assert_eq!(j.call, Call::Better);
        assert_eq!(j.spread, Spread::None);
        assert_eq!(j.interval, None);
        assert_eq!(j.p_value, None);
        close(j.ratio, 1.08, 1e-15);
        assert_eq!(
            judge(&f(100.0, 108.0, Better::Lower)).unwrap().call,
            Call::Worse
        );
        assert_eq!(
            judge(&f(100.0, 105.0, Better::Higher)).unwrap().call,
            Call::Same
        );
        assert_eq!(
            judge(&f(100.0, 95.0, Better::Higher)).unwrap().call,
            Call::Same
        );
        assert_eq!(
            judge(&f(100.0, 94.0, Better::Higher)).unwrap().call,
            Call::Worse
        );
        // Two trials a side without samples: the ratio of medians.
        let two = FigureInput::new(
            Better::Higher,
            0.03,
            trials(&[100.0, 102.0]),
            trials(&[90.0, 92.0]),
        );
        let j = judge(&two).unwrap();
        close(j.ratio, 91.0 / 101.0, 1e-15);
        assert_eq!(j.call, Call::Worse);
    }

    #[test]
    fn figures_without_a_ratio_are_not_judged() {
        let empty = FigureInput::new(Better::Higher, 0.03, vec![], trials(&[1.0]));
        assert!(judge(&empty).is_err());
        let zero = FigureInput::new(Better::Higher, 0.03, trials(&[0.0]), trials(&[1.0]));
        assert!(judge(&zero).unwrap_err().why.contains("zero"));
        let mut bad = FigureInput::new(Better::Higher, 0.03, trials(&[1.0]), trials(&[1.0]));
        bad.margin = 1.5;
        assert!(judge(&bad).is_err());
        // An unjudgeable figure takes no part in the family.
        let ok = FigureInput::new(
            Better::Higher,
            0.03,
            trials(&[1.0; 3]),
            trials(&[2.0, 2.1, 2.2]),
        );
        let all = judge_all(&[zero, ok], &Family::default());
        assert!(all[0].is_err());
        assert_eq!(all[1].as_ref().unwrap().out_of_reach.unwrap().level, 0.95);
    }

    // Reference values: tests/stats_reference.py, section "verdict: measured
    // spread" (R 4.2.2: wilcox.test on the logs; the p-value is twice the
    // smaller of the one-sided tests at mu = log(1.05) and log(0.95)).
    #[test]
    fn measured_spread_uses_the_rank_interval() {
        let a = trials(&[100.0, 103.0, 98.0, 101.0, 99.5]);
        let b = trials(&[110.0, 108.5, 112.0, 109.0, 111.2]);
        let j = judge(&FigureInput::new(
            Better::Higher,
            0.03,
            a.clone(),
            b.clone(),
        ))
        .unwrap();
        assert_eq!(j.spread, Spread::Measured { n_a: 5, n_b: 5 });
        assert_eq!(j.call, Call::Better);
        close(j.ratio, 1.0999999999999998668, 1e-15);
        let ci = j.interval.unwrap();
        close(ci.lo, 1.0679611650485438812, 1e-15);
        close(ci.hi, 1.1256281407035173547, 1e-15);
        close(j.p_value.unwrap(), 0.0079365079365079361, 1e-13);
        assert_eq!(j.p_value, j.p_adjusted);
        assert_eq!(j.runs_needed, None);
        let (lo, hi) = j.bootstrap.unwrap();
        assert!(lo <= 1.1 && 1.1 <= hi && lo > 1.0, "{lo} {hi}");
        // As a latency the same figures are worse.
        let j = judge(&FigureInput::new(Better::Lower, 0.03, a, b)).unwrap();
        assert_eq!(j.call, Call::Worse);
    }

    // Reference values: numpy/scipy by the formulas of the module's notes
    // (np.log of the trials, var(ddof=1)/n a side, cv²(1/R_A + 1/R_B)
    // added, df = var²/Σ(vᵢ²/(nᵢ−1)), scipy.stats.t.ppf(0.975, df) and
    // the margin p-value 2·min(t.sf((est − ln 1.05)/se), t.cdf((est −
    // ln 0.95)/se))).
    #[test]
    fn a_run_to_run_floor_widens_the_trials_interval() {
        let a: Vec<TrialValue> = [1531.0, 1498.0, 1602.0, 1555.0, 1510.0, 1580.0]
            .map(TrialValue::value)
            .to_vec();
        let b: Vec<TrialValue> = [1927.0, 1880.0, 1990.0, 1951.0, 1902.0, 1960.0]
            .map(TrialValue::value)
            .to_vec();
        let plain = FigureInput::new(Better::Higher, 0.4, a.clone(), b.clone());
        // Without a floor: ranks, and a x1.25 of tight trials is better.
        assert_eq!(judge(&plain).unwrap().call, Call::Better);
        let floor = |runs_a, runs_b| {
            plain.clone().with_run_floor(RunFloor {
                cv: 0.07,
                runs_a,
                runs_b,
            })
        };
        let j = judge(&floor(1, 1)).unwrap();
        assert_eq!(
            j.spread,
            Spread::MeasuredWithFloor {
                n_a: 6,
                n_b: 6,
                run_cv: 0.07
            }
        );
        close(j.ratio, 1.251748534772393, 1e-12);
        let ci = j.interval.unwrap();
        close(ci.lo, 1.0290886678107467, 1e-10);
        close(ci.hi, 1.5225844412786658, 1e-10);
        close(j.p_value.unwrap(), 0.07863213784372174, 1e-9);
        // One run a side cannot tell x1.25 from a run's own move; the
        // runs that would are reports: the half-width (0.1962 in logs)
        // against the distance to ln 1.05 (0.1758) asks 2·(0.1962 /
        // 0.1758)² / (1/1 + 1/1) = 1.25 runs, at least 2 (one more than
        // now) and 3 (a spread measured).
        assert_eq!(j.call, Call::Inconclusive);
        assert_eq!(
            j.runs_needed,
            Some(RunsNeeded::PerSide {
                runs: 3,
                toward: Call::Better
            })
        );
        assert_eq!(j.bootstrap, None);
        // Three reports against two shrink the floor's share.
        let j = judge(&floor(3, 2)).unwrap();
        let ci = j.interval.unwrap();
        close(ci.lo, 1.1012503263989846, 1e-10);
        close(ci.hi, 1.4228140112597356, 1e-10);
        close(j.p_value.unwrap(), 0.007173365134088934, 1e-9);
        assert_eq!(j.call, Call::Better);
        // A floor of zero is no floor.
        let none = plain.clone().with_run_floor(RunFloor {
            cv: 0.0,
            runs_a: 1,
            runs_b: 1,
        });
        assert!(matches!(
            judge(&none).unwrap().spread,
            Spread::Measured { .. }
        ));
    }

    // Reference values: tests/stats_reference.py, section "verdict:
    // within-run only" (numpy/scipy by the textbook formulas).
    #[test]
    fn within_run_noise_is_combined_and_the_run_to_run_part_assumed() {
        let sa = [
            1003.0, 998.0, 1010.0, 995.0, 1001.0, 1007.0, 990.0, 1004.0, 999.0, 1002.0,
        ];
        let sb = [
            1096.0, 1104.0, 1099.0, 1110.0, 1093.0, 1101.0, 1098.0, 1107.0, 1102.0, 1095.0,
        ];
        let figure = |cv| {
            FigureInput::new(
                Better::Higher,
                cv,
                vec![TrialValue::with_samples(1000.0, &sa)],
                vec![TrialValue::with_samples(1100.0, &sb)],
            )
        };
        let j = judge(&figure(0.03)).unwrap();
        assert_eq!(
            j.spread,
            Spread::WithinRunOnly {
                assumed_run_cv: 0.03
            }
        );
        close(j.ratio, 1.1, 1e-14);
        let ci = j.interval.unwrap();
        close(ci.lo, 1.0121394655726879, 1e-12);
        close(ci.hi, 1.1954874216028708, 1e-12);
        close(j.p_value.unwrap(), 0.27338142689063827, 1e-11);
        // A 10 % gain, but 3 % run-to-run assumed on each side: cannot tell.
        assert_eq!(j.call, Call::Inconclusive);
        assert!(matches!(
            j.runs_needed,
            Some(RunsNeeded::PerSide {
                toward: Call::Better,
                ..
            })
        ));
        assert_eq!(j.bootstrap, None);
        // Nothing assumed: the within-run noise alone decides (Welch df 2.56).
        let j = judge(&figure(0.0)).unwrap();
        let ci = j.interval.unwrap();
        close(ci.lo, 1.0924084840980635, 1e-12);
        close(ci.hi, 1.1076442719126491, 1e-12);
        close(j.p_value.unwrap(), 0.00046184507974816137, 1e-10);
        assert_eq!(j.call, Call::Better);
        // One trial without samples: back to the band.
        let mut f = figure(0.03);
        f.b[0].within = None;
        assert_eq!(judge(&f).unwrap().spread, Spread::None);
    }

    #[test]
    fn out_of_reach_levels_are_inconclusive_with_the_runs_that_reach_them() {
        assert_eq!(min_runs_for(0.1), 3);
        assert_eq!(min_runs_for(0.05), 4);
        assert_eq!(min_runs_for(0.01), 5);
        assert_eq!(min_runs_for(0.05 / 50.0), 7);
        // A standard report's family: 15 to 23 measurements (2 to 10 CPU
        // loop steps, memory, 12 storage lines) ask 1 - 0.05/m of each
        // figure that did not move; 6 trials a side reach it
        // (2/C(12, 6) = 0.00216 <= 0.05/23 = 0.00217), 24 need 7.
        assert_eq!(min_runs_for(0.05 / 15.0), 6);
        assert_eq!(min_runs_for(0.05 / 23.0), 6);
        assert_eq!(min_runs_for(0.05 / 24.0), 7);
        // Three trials a side cannot reach 95 % with ranks (best: 90 %), even
        // for a 20 % gain.
        let f = FigureInput::new(
            Better::Higher,
            0.03,
            trials(&[100.0, 101.0, 99.0]),
            trials(&[120.0, 121.0, 119.0]),
        );
        let j = judge(&f).unwrap();
        assert_eq!(j.call, Call::Inconclusive);
        // No interval is shown: the 90 % one is not what the verdict read.
        assert_eq!(j.interval, None);
        let reach = j.out_of_reach.unwrap();
        close(reach.level, 0.95, 1e-15);
        close(reach.achievable, 0.9, 1e-15);
        assert_eq!(reach.trials_needed, 4);
        assert_eq!(
            j.runs_needed,
            Some(RunsNeeded::PerSide {
                runs: 4,
                toward: Call::Better
            })
        );
        // Per figure at 10 %, the same data decide.
        let family = Family {
            alpha: 0.1,
            ..Family::default()
        };
        let j = judge_all(&[f], &family).pop().unwrap().unwrap();
        assert_eq!(j.call, Call::Better);
    }

    #[test]
    fn an_estimate_on_the_margin_cannot_be_decided() {
        // B/A ≈ 1.05 exactly, with a wide spread.
        let a = trials(&[100.0, 90.0, 110.0, 95.0, 105.0]);
        let b: Vec<TrialValue> = a
            .iter()
            .map(|t| TrialValue::value(t.value * 1.05))
            .collect();
        let j = judge(&FigureInput::new(Better::Higher, 0.03, a, b)).unwrap();
        assert_eq!(j.call, Call::Inconclusive);
        assert_eq!(j.runs_needed, Some(RunsNeeded::CannotDecide));
    }

    #[test]
    fn a_clear_shift_in_wide_noise_needs_more_than_the_cap() {
        // B/A ≈ 0.89, A spread over ±15 %: the direction is plain, the
        // count beyond a series anyone runs.
        let a = trials(&[
            28504.0, 30613.0, 29723.0, 26530.0, 22352.0, 31013.0, 25076.0, 30160.0,
        ]);
        let b = trials(&[
            26171.0, 26118.0, 26123.0, 26139.0, 26151.0, 26139.0, 26146.0, 25694.0,
        ]);
        let j = judge(&FigureInput::new(Better::Higher, 0.03, a, b)).unwrap();
        assert_eq!(j.call, Call::Inconclusive);
        assert_eq!(
            j.runs_needed,
            Some(RunsNeeded::MoreThan {
                runs: RUNS_CAP,
                toward: Call::Worse
            })
        );
    }

    #[test]
    fn a_measurement_printed_three_ways_counts_once() {
        // Three figures 20 % better (2 CPU steps and memory, 5 trials a
        // side, fully separated) among 12 storage lines that did not move,
        // each printed as MB/s, IO/s and latency.
        let base = [100.0, 103.0, 98.0, 101.0, 99.5];
        let moved = FigureInput::new(
            Better::Higher,
            0.03,
            trials(&base),
            trials(&base.map(|v| v * 1.2)),
        );
        let still = |k: f64| {
            let a = base.map(|v| v * k);
            let b = [a[1], a[0], a[3], a[2], a[4]];
            FigureInput::new(Better::Higher, 0.03, trials(&a), trials(&b))
        };
        let mut copies = vec![moved.clone(), moved.clone(), moved];
        let mut grouped = copies.clone();
        for line in 0..12 {
            let k = 1.0 + line as f64;
            let first = grouped.len();
            grouped.push(still(k));
            grouped.push(still(k).following(first));
            grouped.push(still(k).following(first));
            copies.extend([still(k), still(k), still(k)]);
        }
        let family = Family::default();
        let verdicts = |all: &[Result<Judgement, Unjudgeable>]| -> Vec<Call> {
            all.iter().map(|j| j.as_ref().unwrap().call).collect()
        };
        // 15 measurements: BH reads the first three at 1 - 3q/15 = 0.99,
        // which 5 trials a side reach (2/C(10, 5) = 0.0079).
        let g = judge_all(&grouped, &family);
        assert_eq!(verdicts(&g[..3]), vec![Call::Better; 3]);
        close(g[0].as_ref().unwrap().interval.unwrap().level, 0.99, 1e-12);
        // A follower reads at its leader's level, with its adjusted p.
        for line in 0..12 {
            let lead = g[3 + 3 * line].as_ref().unwrap();
            for f in &g[4 + 3 * line..6 + 3 * line] {
                let f = f.as_ref().unwrap();
                assert_eq!(f.interval.unwrap().level, lead.interval.unwrap().level);
                assert_eq!(f.p_adjusted, lead.p_adjusted);
            }
            assert_ne!(lead.call, Call::Better);
        }
        // The same figures as 39 separate tests: 3q/39 is out of reach.
        let c = judge_all(&copies, &family);
        assert_eq!(verdicts(&c[..3]), vec![Call::Inconclusive; 3]);
        // Grouping is exactly BH over the leaders alone.
        let leaders: Vec<FigureInput> = grouped
            .iter()
            .filter(|f| f.follows.is_none())
            .cloned()
            .collect();
        let alone = judge_all(&leaders, &family);
        let led: Vec<&Result<Judgement, Unjudgeable>> = g
            .iter()
            .zip(&grouped)
            .filter(|(_, f)| f.follows.is_none())
            .map(|(j, _)| j)
            .collect();
        for (x, y) in led.iter().zip(&alone) {
            assert_eq!(x.as_ref().unwrap(), y.as_ref().unwrap());
        }
    }

    #[test]
    fn holm_widens_the_intervals_of_a_family() {
        let a = trials(&[100.0, 103.0, 98.0, 101.0, 99.5, 100.5, 102.0, 99.0]);
        let b = trials(&[110.0, 108.5, 112.0, 109.0, 111.2, 110.5, 109.5, 111.0]);
        let one = FigureInput::new(Better::Higher, 0.03, a.clone(), b);
        let same = FigureInput::new(Better::Higher, 0.03, a.clone(), a);
        let mut family = vec![one.clone()];
        family.extend(std::iter::repeat_n(same, 19));
        let holm = Family {
            adjustment: Adjustment::Holm,
            ..Family::default()
        };
        let all = judge_all(&family, &holm);
        let first = all[0].as_ref().unwrap();
        // The clear 10 % gain survives 20 figures: read at 0.05/20.
        assert_eq!(first.call, Call::Better);
        close(first.interval.unwrap().level, 1.0 - 0.05 / 20.0, 1e-15);
        close(
            first.p_adjusted.unwrap(),
            20.0 * first.p_value.unwrap(),
            1e-12,
        );
        // The others are read at 0.05/19 (Holm stopped after one).
        for j in &all[1..] {
            let j = j.as_ref().unwrap();
            close(j.interval.unwrap().level, 1.0 - 0.05 / 19.0, 1e-15);
            assert_ne!(j.call, Call::Better);
        }
        let alone = judge(&one).unwrap();
        assert!(alone.interval.unwrap().lo > first.interval.unwrap().lo);
    }
}
