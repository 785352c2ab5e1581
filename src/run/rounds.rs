//! The rounds of `--repeat` while a section runs, and the time left for
//! the progress display.

use std::time::Duration;

use crate::conditions::Mark;
use crate::model::trials::{BudgetStop, TrialFigure};
use crate::model::{Repeated, RoundTrial};
use crate::stats::trend::seasonal_kendall;

/// What is left of `--budget` beyond the first pass, shared out among the
/// sections in proportion to their first pass's time, so that the CPU
/// loop, which runs first, does not spend what the storage lines need;
/// what a section leaves goes on to the next ones.
pub(super) struct Budget {
    /// Not yet spent.
    pub(super) pool: Duration,
    /// The first pass's time of the timed sections not yet run.
    pub(super) first_left: Duration,
}

impl Budget {
    /// A section whose first pass took `first` may spend this much.
    pub(super) fn allowance(&mut self, first: Duration) -> Duration {
        let share = if self.first_left <= first {
            1.0
        } else {
            first.as_secs_f64() / self.first_left.as_secs_f64()
        };
        self.first_left = self.first_left.saturating_sub(first);
        self.pool.mul_f64(share).min(self.pool)
    }
}

/// Time left in the run, for the progress display: the timed runs (every
/// trial of every step) not yet started.
pub(super) struct Countdown {
    pub(super) left: Duration,
}

impl Countdown {
    /// A run of `time` starts: what is left, this run included.
    pub(super) fn start(&mut self, time: Duration) -> Duration {
        let left = self.left.max(time);
        self.left = self.left.saturating_sub(time);
        left
    }
}

/// The trials of one section's steps while its rounds run, and which
/// steps are done, so that each step's line goes out, in report order, as
/// soon as its last trial has run.
pub(super) struct Rounds<M> {
    /// Trials of each step, in report order.
    trials: Vec<Vec<RoundTrial<M>>>,
    /// The main figure of each step's complete trials, in the order they
    /// ran (kept after a step is handed out: the drift test reads them).
    figures: Vec<Vec<f64>>,
    /// The section's last round: N, or the round that a Ctrl-C cut.
    pub(super) last: u32,
    /// Trials asked for (`--repeat`).
    repeat: u32,
    /// Steps handed out so far.
    done: usize,
    /// Whether a trend across the rounds earns a drift mark.
    drift: bool,
    /// With `--budget`: nothing is handed out until the added trials have
    /// run ([`Rounds::release`]).
    hold: bool,
    /// Why each step got no more trials, once released under `--budget`.
    stops: Vec<Option<BudgetStop>>,
}

impl<M: TrialFigure + Clone> Rounds<M> {
    /// `hold`: the section spends a budget after its rounds.
    pub(super) fn new(steps: usize, repeat: u32, hold: bool) -> Self {
        Rounds {
            trials: vec![Vec::new(); steps],
            figures: vec![Vec::new(); steps],
            last: repeat,
            repeat,
            done: 0,
            drift: true,
            hold,
            stops: vec![None; steps],
        }
    }

    /// Whether every round ran (no Ctrl-C cut them).
    pub(super) fn whole(&self) -> bool {
        self.last == self.repeat
    }

    /// Each step's trial rates so far.
    pub(super) fn rates(&self) -> Vec<Vec<f64>> {
        self.trials
            .iter()
            .map(|t| t.iter().map(|t| t.step.main_figure()).collect())
            .collect()
    }

    /// The round of step `i`'s next trial: after its last.
    pub(super) fn next_round(&self, i: usize) -> u32 {
        self.trials[i].last().map_or(1, |t| t.round + 1)
    }

    /// The budget's trials have run: every step may be handed out, with
    /// why it got no more (`stops`, in report order).
    pub(super) fn release(&mut self, stops: Vec<BudgetStop>) {
        self.hold = false;
        self.stops = stops.into_iter().map(Some).collect();
        self.stops.resize(self.trials.len(), None);
    }

    /// No drift mark for this section: its first round is not like the
    /// others by design (storage: round 1 writes the file that later
    /// rounds overwrite and read). Ten runs of `quickbench 2` here had
    /// 29 storage lines marked drifting upward, their first trial the
    /// slowest, against 4 CPU steps on a host kept busy by others.
    pub(super) fn without_drift(mut self) -> Self {
        self.drift = false;
        self
    }

    /// Step `i` ran in `round`. A budget's added trials come after the
    /// rounds and go to the end of their step's figures: each step's
    /// series stays in the order run, which is all the drift test (a rank
    /// trend within each step) asks; uneven spacing does not bias it.
    pub(super) fn add(&mut self, i: usize, round: u32, step: M) {
        if step.end().is_complete() && step.main_figure().is_finite() {
            self.figures[i].push(step.main_figure());
        }
        self.trials[i].push(RoundTrial { round, step });
    }

    /// No round after `round` runs.
    pub(super) fn cut(&mut self, round: u32) {
        self.last = self.last.min(round);
    }

    /// The steps, in report order, whose last round has run and that were
    /// not handed out yet. Without `--repeat`, a step is its one run.
    ///
    /// With `--repeat`, a step whose figure moved one way across its
    /// rounds gets a drift mark ([`Mark::drift`]): the section's trend is
    /// tested on every trial of its steps run so far (the steps share
    /// their rounds, so a change of the host shows in all of them;
    /// [`crate::stats::trend`]). A step handed out before the others' last
    /// trials ran is judged without them: its line is printed at once.
    pub(super) fn ready(&mut self) -> Vec<Repeated<M>> {
        let mut out = Vec::new();
        if self.hold {
            return out;
        }
        let released = self.stops.iter().any(Option::is_some);
        while let Some(t) = self.trials.get_mut(self.done) {
            let last_ran = t.last().map(|t| t.round) == Some(self.last);
            if t.is_empty() || !(last_ran || released) {
                break;
            }
            let trials = std::mem::take(t);
            let budget_stop = self.stops[self.done];
            out.push(match (self.repeat, trials.len()) {
                (1, 1) => Repeated::once(trials.into_iter().next().expect("one trial").step),
                _ => {
                    let mut step = Repeated::of_trials(trials);
                    if self.drift {
                        let trend = seasonal_kendall(&self.figures);
                        if let Some(m) = Mark::drift(&trend, &self.figures[self.done]) {
                            step.step.marks_mut().push(m);
                        }
                    }
                    step
                }
            });
            if let Some(step) = out.last_mut() {
                step.budget_stop = budget_stop;
            }
            self.done += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu_loop::LoopStep;
    use crate::end::End;
    use crate::model::CpuTrial;
    use crate::samples::Samples;

    fn cpu(rate: f64) -> CpuTrial {
        CpuTrial::plain(LoopStep {
            jobs: 1,
            loops_per_s_each: vec![rate],
            loops_per_s_mean: rate,
            elapsed_ns: 1,
            samples: Samples::default(),
            end: End::Complete,
        })
    }

    #[test]
    fn a_step_is_handed_out_when_its_last_round_has_run_in_report_order() {
        let mut r = Rounds::new(3, 2, false);
        // Round 1, in the order 2, 0, 1: nothing is done.
        for i in [2, 0, 1] {
            r.add(i, 1, cpu(i as f64));
            assert!(r.ready().is_empty());
        }
        // Round 2, in the order 1, 0, 2: step 1 waits for step 0.
        r.add(1, 2, cpu(10.0));
        assert!(r.ready().is_empty());
        r.add(0, 2, cpu(20.0));
        let out: Vec<f64> = r.ready().iter().map(|s| s.loops_per_s_mean).collect();
        assert_eq!(out, [10.0, 5.5], "the pooled rates of steps 0 and 1");
        r.add(2, 2, cpu(30.0));
        let out = r.ready();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].trials.len(), 2);
        assert!(r.ready().is_empty(), "handed out once");
    }

    #[test]
    fn a_drop_halfway_through_the_rounds_is_a_drift_and_a_steady_section_is_not() {
        // Two steps, six rounds, a quota from round 4 on: both drop.
        let mut r = Rounds::new(2, 6, false);
        let one = [100.0, 102.0, 99.0, 51.0, 50.0, 52.0];
        let two = [200.0, 197.0, 203.0, 100.0, 99.0, 103.0];
        for round in 1..=6 {
            r.add(1, round, cpu(two[round as usize - 1]));
            r.add(0, round, cpu(one[round as usize - 1]));
        }
        let out = r.ready();
        assert_eq!(out.len(), 2);
        for s in &out {
            let drift: Vec<&Mark> = s
                .marks
                .iter()
                .filter(|m| matches!(m, Mark::Drift { .. }))
                .collect();
            assert_eq!(drift.len(), 1, "{:?}", s.marks);
            let Mark::Drift { percent } = drift[0] else {
                unreachable!()
            };
            assert!((-51.0..=-49.0).contains(percent), "{percent}");
            assert!(
                s.trials.iter().all(|t| t.step.marks.is_empty()),
                "the trials keep their own marks"
            );
        }
        // The same figures shuffled across the rounds: no trend.
        let mut r = Rounds::new(2, 6, false);
        let one = [51.0, 100.0, 50.0, 102.0, 52.0, 99.0];
        let two = [200.0, 100.0, 197.0, 99.0, 203.0, 103.0];
        for round in 1..=6 {
            r.add(0, round, cpu(one[round as usize - 1]));
            r.add(1, round, cpu(two[round as usize - 1]));
        }
        assert!(r.ready().iter().all(|s| s.marks.is_empty()));
        // A section without drift marks (storage): none.
        let mut r = Rounds::new(1, 6, false).without_drift();
        for (round, v) in [100.0, 90.0, 80.0, 70.0, 60.0, 50.0]
            .into_iter()
            .enumerate()
        {
            r.add(0, round as u32 + 1, cpu(v));
        }
        assert!(r.ready()[0].marks.is_empty());
        // A steady trend smaller than the threshold: no mark.
        let mut r = Rounds::new(1, 6, false);
        for (round, v) in [100.0, 99.5, 99.0, 98.5, 98.0, 97.5]
            .into_iter()
            .enumerate()
        {
            r.add(0, round as u32 + 1, cpu(v));
        }
        assert!(r.ready()[0].marks.is_empty());
    }

    #[test]
    fn a_cut_makes_its_round_the_last() {
        let mut r = Rounds::new(2, 3, false);
        r.add(1, 1, cpu(1.0));
        r.add(0, 1, cpu(2.0));
        r.add(0, 2, cpu(3.0));
        r.cut(2);
        assert_eq!(r.ready().len(), 1, "step 0 has run its last round");
        r.add(1, 2, cpu(4.0));
        let out = r.ready();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].trials.len(), 2);
        // Without --repeat: the one run, no trials.
        let mut r = Rounds::new(1, 1, false);
        r.add(0, 1, cpu(5.0));
        let out = r.ready();
        assert!(out[0].trials.is_empty() && out[0].median_trial.is_none());
        // No run at all (the memory step failed in round 1): no step.
        let mut r: Rounds<CpuTrial> = Rounds::new(1, 2, false);
        r.cut(0);
        assert!(r.ready().is_empty());
    }

    #[test]
    fn under_a_budget_steps_wait_for_their_added_trials() {
        let mut r = Rounds::new(2, 1, true);
        r.add(1, 1, cpu(1.0));
        r.add(0, 1, cpu(2.0));
        assert!(r.ready().is_empty(), "held");
        assert_eq!(r.rates(), [vec![2.0], vec![1.0]]);
        assert_eq!(r.next_round(0), 2);
        r.add(0, 2, cpu(4.0));
        assert!(r.whole());
        r.release(vec![BudgetStop::BudgetSpent, BudgetStop::WithinTarget]);
        let out = r.ready();
        assert_eq!(out.len(), 2);
        assert_eq!(
            out[0].trials.len(),
            2,
            "the added trial is one of its trials"
        );
        assert_eq!(out[0].loops_per_s_mean, 3.0);
        assert_eq!(out[0].budget_stop, Some(BudgetStop::BudgetSpent));
        assert!(out[1].trials.is_empty(), "one trial in all: the plain step");
        assert_eq!(out[1].budget_stop, Some(BudgetStop::WithinTarget));
        // The shares of the budget: in proportion to the first passes.
        let s = Duration::from_secs;
        let mut b = Budget {
            pool: s(60),
            first_left: s(30),
        };
        assert_eq!(b.allowance(s(10)), s(20));
        b.pool -= s(5);
        assert_eq!(b.allowance(s(20)), s(55), "the last takes what is left");
    }
}
