//! How a timed step spends its loop delay: as K interleaved trials (each
//! step of a section runs K times, in shuffled rounds, as `--repeat` runs
//! them), or as one block when the delay is too short for at least
//! [`MIN_TRIALS`] useful trials. Pure arithmetic: the runner asks, the
//! plan and the report say.
//!
//! Why K trials and not one block (randomized multiple interleaved trials:
//! Abedi & Brecht, ICPE 2017), and why [`TARGET_TRIALS`] = 6: docs/METHOD.md
//! "Trials within the loop delay".
//!
//! The time stays the step's: K trials of a CPU loop or memory step share
//! the loop delay; a storage line's trials each start after the jobs'
//! rest (`dd_io::SETTLE`), so K − 1 rests come out of the delay, and a
//! storage line takes one delay and one rest, as one block did.

use std::time::Duration;

/// The trials a step aims at (see the module's doc for why 6).
pub const TARGET_TRIALS: u32 = 6;
/// Fewer than this and the step runs as one block: 3 is the fewest from
/// which a spread is measured (`stats::verdict::MEASURED_FROM`).
pub const MIN_TRIALS: u32 = 3;
/// Most trials `--trials` allows: more only cuts the delay finer.
pub const MAX_TRIALS: u32 = 20;

/// The kinds of timed step, each with its shortest useful trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// A `[ CPU loop ]` step.
    CpuLoop,
    /// The `[ Memory ]` bandwidth.
    Memory,
    /// A storage bandwidth line.
    Storage,
}

impl StepKind {
    /// The shortest trial that still measures the step rather than its
    /// start, measured (`benches/trial-length.sh`, numbers in
    /// `benches/README.md`): the trials' spread hardly falls with their
    /// length (the noise is slow, shared by neighbouring trials), so short
    /// trials lose nothing there; what they lose is the figure. CPU loop
    /// trials read 12, 9, 9 and 3 % low at 50, 100, 250 and 500 ms against
    /// 1 s trials on a 2-vCPU VM (a vCPU idle between trials comes back
    /// slower for a few hundred ms): 500 ms. Memory trials showed no trend
    /// above 100 ms (within ±4 %, its noise): 250 ms keeps its copy well
    /// past the first blocks. Storage trials read 4 % low at 250 ms and
    /// level at 500 ms; 300 ms keeps six trials in a 3 s delay, and its
    /// sub-interval samples (50 ms) a few per trial.
    pub fn min_trial(self) -> Duration {
        match self {
            StepKind::CpuLoop => Duration::from_millis(500),
            StepKind::Memory => Duration::from_millis(250),
            StepKind::Storage => Duration::from_millis(300),
        }
    }

    /// What each trial costs beyond its own time: a storage line's rest
    /// before its gate opens; nothing for the others.
    pub fn overhead(self) -> Duration {
        match self {
            StepKind::CpuLoop | StepKind::Memory => Duration::ZERO,
            StepKind::Storage => crate::dd_io::SETTLE,
        }
    }
}

/// How a step spends its loop delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrialPlan {
    /// Trials per loop delay (1: one block, as the original).
    pub trials: u32,
    /// How long each trial runs.
    pub trial: Duration,
}

impl TrialPlan {
    /// One block of the whole delay.
    pub fn once(delay: Duration) -> Self {
        TrialPlan {
            trials: 1,
            trial: delay,
        }
    }
}

/// The length of each of `k` trials of a step of kind `kind` within
/// `delay`: the delay less the rests of the k − 1 extra trials, shared.
/// `None` when the rests eat the delay.
fn share(kind: StepKind, delay: Duration, k: u32) -> Option<Duration> {
    let rests = kind.overhead() * (k - 1);
    delay.checked_sub(rests).map(|left| left / k)
}

/// The trials of a step of kind `kind` and loop delay `delay`: `asked`
/// (`--trials K`) when given, else the most trials up to
/// [`TARGET_TRIALS`], not fewer than [`MIN_TRIALS`], whose length is at
/// least the kind's shortest useful trial; else one block.
///
/// With `--trials K` the rests still come out of the delay, as long as
/// each trial keeps half its share; beyond that the trials get their
/// share and the step takes longer.
pub fn plan(kind: StepKind, delay: Duration, asked: Option<u32>) -> TrialPlan {
    if let Some(k) = asked {
        let k = k.clamp(1, MAX_TRIALS);
        let trial = share(kind, delay, k)
            .filter(|t| *t >= delay / (2 * k))
            .unwrap_or(delay / k);
        return TrialPlan { trials: k, trial };
    }
    (MIN_TRIALS..=TARGET_TRIALS)
        .rev()
        .find_map(|k| {
            share(kind, delay, k)
                .filter(|t| *t >= kind.min_trial())
                .map(|trial| TrialPlan { trials: k, trial })
        })
        .unwrap_or(TrialPlan::once(delay))
}

/// One K for a whole run: the fewest any of its `kinds` allows at `delay`
/// (so that the `Run` line names one number and every section's steps
/// compare alike), each kind's trial length then from that K.
pub fn run_trials(kinds: &[StepKind], delay: Duration, asked: Option<u32>) -> u32 {
    kinds
        .iter()
        .map(|&k| plan(k, delay, asked).trials)
        .min()
        .unwrap_or(1)
}

/// The plan of a step of kind `kind` within a run of `k` trials a step
/// ([`run_trials`]).
pub fn plan_with(kind: StepKind, delay: Duration, k: u32) -> TrialPlan {
    if k <= 1 {
        return TrialPlan::once(delay);
    }
    plan(kind, delay, Some(k))
}

/// Where `--budget` stops adding trials to a step: its interval's half-width
/// within this share of its figure, well inside compare's ±5 % margin so
/// that a host that did not move reads ≈.
pub const BUDGET_TARGET: f64 = 0.02;

/// compare's margin, which the widest intervals are ranked against.
pub const MARGIN: f64 = 0.05;

pub use crate::model::trials::BudgetStop;

/// Most trials a step may get under `--budget`.
pub const MAX_BUDGET_TRIALS: usize = 60;

/// The half-width of the 95 % Student t interval of the mean log rate of
/// `rates`, as a share of the figure (exp(h) − 1): the trials' spread in
/// the scale the ratio B/A is judged in (Student 1908; log rates because
/// rates are ratios). `None` under 2 trials or with a rate not above 0.
pub fn half_width(rates: &[f64]) -> Option<f64> {
    if rates.len() < 2 || !rates.iter().all(|r| r.is_finite() && *r > 0.0) {
        return None;
    }
    let logs: Vec<f64> = rates.iter().map(|r| r.ln()).collect();
    let n = logs.len() as f64;
    let sd = crate::stats::describe::sample_sd(&logs)?;
    let t = crate::stats::dist::t_quantile(0.975, n - 1.0);
    Some((t * sd / n.sqrt()).exp_m1())
}

/// Spends `budget` on extra trials after a first pass (`rates`, each
/// step's trial rates so far; `cost[i]`, what one more trial of step i
/// takes): each time, the step whose half-width is widest relative to
/// [`MARGIN`] among those not stopped gets one trial (`run(i)` runs it and
/// returns its rate), until every step is within [`BUDGET_TARGET`], has
/// [`MAX_BUDGET_TRIALS`], or cannot be paid for; `run` returning `None`
/// (a Ctrl-C, an error) stops every step not yet stopped. Returns why
/// each stopped and the budget left. A step without a half-width yet (under 2 trials,
/// a zero rate) ranks first: it has no interval at all.
pub fn spend_budget(
    rates: &mut [Vec<f64>],
    cost: &[Duration],
    mut budget: Duration,
    mut run: impl FnMut(usize) -> Option<f64>,
) -> (Vec<BudgetStop>, Duration) {
    let mut stop: Vec<Option<BudgetStop>> = vec![None; rates.len()];
    loop {
        for (i, s) in stop.iter_mut().enumerate() {
            if s.is_some() {
                continue;
            }
            if half_width(&rates[i]).is_some_and(|h| h <= BUDGET_TARGET) {
                *s = Some(BudgetStop::WithinTarget);
            } else if rates[i].len() >= MAX_BUDGET_TRIALS {
                *s = Some(BudgetStop::MostTrials);
            } else if cost[i] > budget {
                *s = Some(BudgetStop::BudgetSpent);
            }
        }
        let widest = (0..rates.len())
            .filter(|&i| stop[i].is_none())
            .max_by(|&a, &b| {
                let w = |i: usize| half_width(&rates[i]).map_or(f64::INFINITY, |h| h / MARGIN);
                w(a).total_cmp(&w(b)).then(b.cmp(&a))
            });
        let Some(i) = widest else { break };
        budget -= cost[i];
        match run(i) {
            Some(rate) => rates[i].push(rate),
            None => {
                for s in stop.iter_mut().filter(|s| s.is_none()) {
                    *s = Some(BudgetStop::Interrupted);
                }
            }
        }
    }
    (
        stop.into_iter()
            .map(|s| s.expect("every step stopped"))
            .collect(),
        budget,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: f64) -> Duration {
        Duration::from_secs_f64(secs)
    }

    /// Equal to a nanosecond a trial (a delay shared by k truncates).
    fn near(a: Duration, b: Duration) {
        assert!(
            a.abs_diff(b) <= Duration::from_nanos(10),
            "{a:?} against {b:?}"
        );
    }

    #[test]
    fn a_long_delay_is_six_trials_sharing_it() {
        let p = plan(StepKind::CpuLoop, s(30.0), None);
        assert_eq!(
            p,
            TrialPlan {
                trials: 6,
                trial: s(5.0)
            }
        );
        assert_eq!(
            p.trial * p.trials,
            s(30.0),
            "the CPU loop's time is the delay"
        );
        // A storage line: 5 extra rests of 0.2 s come out of the delay, so
        // that six trials take one delay and one rest, as one block did.
        let p = plan(StepKind::Storage, s(30.0), None);
        assert_eq!(p.trials, 6);
        near(p.trial, s(29.0 / 6.0));
        near(p.trial * 6 + StepKind::Storage.overhead() * 6, s(30.2));
    }

    #[test]
    fn a_three_second_delay_still_has_six_trials_of_each_kind() {
        assert_eq!(plan(StepKind::CpuLoop, s(3.0), None).trial, s(0.5));
        assert_eq!(plan(StepKind::Memory, s(3.0), None).trials, 6);
        let p = plan(StepKind::Storage, s(3.0), None);
        assert_eq!((p.trials, p.trial), (6, s(2.0 / 6.0)));
        assert!(p.trial >= StepKind::Storage.min_trial());
    }

    #[test]
    fn shorter_delays_take_fewer_trials_then_one_block() {
        // 1 s: four memory trials of 250 ms, but 3 CPU trials would be
        // 333 ms, shorter than useful: one block; storage: 3 trials would
        // be (1 - 0.4)/3 = 0.2 s: one block.
        assert_eq!(plan(StepKind::Memory, s(1.0), None).trials, 4);
        assert_eq!(
            plan(StepKind::CpuLoop, s(1.0), None),
            TrialPlan::once(s(1.0))
        );
        // 2 s: four CPU trials of 500 ms.
        assert_eq!(plan(StepKind::CpuLoop, s(2.0), None).trials, 4);
        assert_eq!(
            plan(StepKind::Storage, s(1.0), None),
            TrialPlan::once(s(1.0))
        );
        // 2 s: storage 4 trials of (2 - 0.6)/4 = 0.35 s.
        let p = plan(StepKind::Storage, s(2.0), None);
        assert_eq!((p.trials, p.trial), (4, s(0.35)));
        // Under 3 useful trials: one block.
        assert_eq!(
            plan(StepKind::CpuLoop, s(1.4), None),
            TrialPlan::once(s(1.4))
        );
        assert_eq!(plan(StepKind::CpuLoop, s(1.5), None).trials, 3);
        assert_eq!(plan(StepKind::Memory, s(0.75), None).trials, 3);
        // One K for the run: the fewest of its kinds.
        let all = [StepKind::CpuLoop, StepKind::Memory, StepKind::Storage];
        assert_eq!(run_trials(&all, s(1.0), None), 1);
        assert_eq!(run_trials(&all[..2], s(1.0), None), 1);
        assert_eq!(run_trials(&all[..2], s(2.0), None), 4);
        assert_eq!(run_trials(&all, s(3.0), None), 6);
        assert_eq!(run_trials(&[], s(3.0), None), 1);
    }

    #[test]
    fn trials_asked_are_given_even_when_short() {
        let p = plan(StepKind::CpuLoop, s(1.0), Some(10));
        assert_eq!((p.trials, p.trial), (10, s(0.1)));
        // 10 storage trials in 1 s: 9 rests (1.8 s) exceed the delay, so
        // each trial gets its share and the line takes longer.
        let p = plan(StepKind::Storage, s(1.0), Some(10));
        assert_eq!((p.trials, p.trial), (10, s(0.1)));
        let p = plan(StepKind::Storage, s(30.0), Some(3));
        assert_eq!(p.trials, 3);
        near(p.trial, s(29.6 / 3.0));
        assert_eq!(
            plan(StepKind::Memory, s(3.0), Some(1)),
            TrialPlan::once(s(3.0))
        );
        assert_eq!(plan(StepKind::Memory, s(3.0), Some(0)).trials, 1);
        assert_eq!(plan(StepKind::Memory, s(3.0), Some(99)).trials, MAX_TRIALS);
        assert_eq!(
            plan_with(StepKind::Storage, s(3.0), 1),
            TrialPlan::once(s(3.0))
        );
        assert_eq!(plan_with(StepKind::Storage, s(3.0), 6).trials, 6);
    }

    // Reference: scipy 1.x, `stats.t.ppf(0.975, n - 1) *
    // np.log(x).std(ddof=1) / np.sqrt(n)`, then `np.expm1`.
    #[test]
    fn the_half_width_is_the_t_interval_of_the_log_rates() {
        let h = half_width(&[100.0, 102.0, 98.0, 101.0, 99.0, 100.5]).unwrap();
        assert!((h - 0.015115487915296414).abs() < 1e-12, "{h}");
        let h = half_width(&[100.0, 110.0, 90.0]).unwrap();
        assert!((h - 0.28319235491352956).abs() < 1e-12, "{h}");
        assert_eq!(half_width(&[1.0]), None);
        assert_eq!(half_width(&[1.0, 0.0]), None);
    }

    #[test]
    fn the_budget_goes_to_the_widest_step_until_each_is_within_target_or_spent() {
        // Step 0 is quiet (within 2 % already), step 1 noisy, step 2 a
        // little noisy; each trial costs 1 s.
        let mut rates = vec![
            vec![100.0, 100.5, 99.5, 100.2, 99.8, 100.1],
            vec![100.0, 120.0, 85.0, 110.0, 90.0, 105.0],
            vec![100.0, 104.0, 97.0, 102.0, 98.0, 101.0],
        ];
        let cost = [s(1.0); 3];
        let mut order = Vec::new();
        // Every new trial lands on the figure: the spread shrinks.
        let (stops, left) = spend_budget(&mut rates, &cost, s(10.0), |i| {
            order.push(i);
            Some(100.0)
        });
        assert_eq!(stops[0], BudgetStop::WithinTarget, "no trial for it");
        assert_eq!(rates[0].len(), 6);
        assert_eq!(order[0], 1, "the widest first");
        assert_eq!(left, Duration::ZERO);
        assert_eq!(order.len(), 10);
        assert_eq!(stops[1], BudgetStop::BudgetSpent);
        // Step 1 stays wider than step 2 through the 10 s: all of them.
        assert!(order.iter().all(|&i| i == 1), "{order:?}");
        assert_eq!(stops[2], BudgetStop::BudgetSpent);
        // A large budget: every step ends within the target.
        let mut rates = vec![vec![100.0, 104.0, 97.0], vec![100.0, 100.1, 99.9]];
        let (stops, left) = spend_budget(&mut rates, &[s(0.5); 2], s(100.0), |_| Some(100.0));
        assert_eq!(stops, [BudgetStop::WithinTarget, BudgetStop::WithinTarget]);
        assert!(rates[0].len() > 3, "the wide step got trials");
        assert_eq!(rates[1].len(), 3, "the narrow one needed none");
        assert!(left > s(90.0), "{left:?}");
        // A noisy step that never settles stops at the most trials.
        let mut k = 0.0;
        let mut rates = vec![vec![50.0, 150.0]];
        let (stops, _) = spend_budget(&mut rates, &[s(0.1)], s(1000.0), |_| {
            k += 1.0;
            Some(if k % 2.0 == 0.0 { 50.0 } else { 150.0 })
        });
        assert_eq!(stops, [BudgetStop::MostTrials]);
        assert_eq!(rates[0].len(), MAX_BUDGET_TRIALS);
        // No budget: the first pass only.
        let mut rates = vec![vec![100.0, 120.0, 80.0]];
        let (stops, left) = spend_budget(&mut rates, &[s(1.0)], s(0.5), |_| unreachable!());
        assert_eq!((stops[0], left), (BudgetStop::BudgetSpent, s(0.5)));
        // A Ctrl-C during the added trials stops every step not stopped.
        let mut rates = vec![
            vec![100.0, 120.0, 80.0],
            vec![1.0, 1.0, 1.0],
            vec![5.0, 9.0],
        ];
        let mut ran = 0;
        let (stops, left) = spend_budget(&mut rates, &[s(1.0); 3], s(10.0), |_| {
            ran += 1;
            (ran < 2).then_some(100.0)
        });
        assert_eq!(
            stops,
            [
                BudgetStop::Interrupted,
                BudgetStop::WithinTarget,
                BudgetStop::Interrupted
            ]
        );
        assert_eq!((ran, left), (2, s(8.0)), "the cut trial is paid for");
    }
}
