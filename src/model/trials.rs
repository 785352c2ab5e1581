//! The trials of `--repeat N`: every timed step of the standard report
//! (each CPU loop step, the memory bandwidth, each storage line) measured
//! N times, interleaved with the other steps of its section.
//!
//! A step keeps all its trials, in the order they ran, each the full
//! figure of that run (value, load, marks, end state) with its round. The
//! step's rate, which the text report prints, is the original's: all its
//! trials' work over all their time (loops, bytes or I/Os summed over
//! the summed elapsed time), so that K trials within a loop delay print
//! what one block of that delay printed. What cannot be pooled (latency
//! percentiles, the sampled conditions) is the median trial's, and its
//! marks are every trial's, each with how many trials earned it. With
//! N = 1 there are no trials and the JSON is what it always was.

use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize};

use crate::conditions::mark::{self, InTrials};
use crate::conditions::{Mark, Measured};
use crate::cpu_loop::LoopStep;
use crate::dd_io::{Direction, LineResult};
use crate::end::End;
use crate::membw::DdBandwidth;
use crate::samples::Samples;

/// Most trials `--repeat` allows: 20 rounds of a 30 s report already take
/// hours, and 20 trials a side give a rank test all the power it needs.
pub const MAX_REPEAT: u32 = 20;

/// One trial of a step: the figure of that run, wrapped as the step is,
/// and the round it ran in (1 to N). In the JSON, the step's keys and
/// `round`.
///
/// Read through [`super::wire`] (flat, in one pass).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundTrial<M> {
    /// The round it ran in, from 1.
    pub round: u32,
    /// What that run measured.
    #[serde(flatten)]
    pub step: M,
}

/// A step of the report with the trials it was chosen from. It reads as
/// its step (`step.jobs`, `step.marks`). In the JSON, the step's keys,
/// then `median_trial` and `trials` when there were several trials.
///
/// Read through [`super::wire`] (flat, in one pass).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Repeated<M> {
    /// The pooled figure of all trials (what the text prints) over the
    /// median trial's other fields, or the only run.
    #[serde(flatten)]
    pub step: M,
    /// Which of `trials` is the median by the main figure (its index), when
    /// there are trials: the trial whose latency percentiles and
    /// conditions the step keeps.
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub median_trial: Option<usize>,
    /// Every trial, in the order they ran; empty without `--repeat`.
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub trials: Vec<RoundTrial<M>>,
    /// With `--budget`: why the step got no more trials. Absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_stop: Option<BudgetStop>,
}

/// Why a step got no more trials under `--budget` (JSON `budget_stop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetStop {
    /// Its interval's half-width reached the target (2 % of its figure).
    WithinTarget,
    /// The budget left could not pay for one more of its trials.
    BudgetSpent,
    /// It reached the most trials a step may get.
    MostTrials,
    /// A Ctrl-C or an error stopped the added trials.
    Interrupted,
}

impl<M> Deref for Repeated<M> {
    type Target = M;
    fn deref(&self) -> &M {
        &self.step
    }
}

/// For the readers, which fill a step read from text line by line (a
/// report read from text has no trials); the runner builds each step whole.
impl<M> DerefMut for Repeated<M> {
    fn deref_mut(&mut self) -> &mut M {
        &mut self.step
    }
}

impl<M> From<M> for Repeated<M> {
    fn from(step: M) -> Self {
        Repeated::once(step)
    }
}

/// What a trial is judged by: its main figure, and how it ended; and the
/// step's marks, set from its trials'. Implemented once, for every
/// [`Measured`] figure that pools ([`Pooled`]).
pub trait TrialFigure {
    /// The figure the median is taken of (loops/s, bytes/s, IO/s).
    fn main_figure(&self) -> f64;
    /// How the trial ended.
    fn end(&self) -> &End;
    /// How the trial ended, to say that the step was cut.
    fn end_mut(&mut self) -> &mut End;
    /// Sets the step's rates to the pooled rate of `trials`: their summed
    /// work over their summed time (the original's figure of one block).
    fn pool(&mut self, trials: &[&Self]);
    /// The marks of this trial (for the step's marks in N of K trials).
    fn marks(&self) -> &[Mark];
    /// The step's marks, set from its trials'.
    fn set_marks(&mut self, marks: Vec<Mark>, in_trials: Vec<InTrials>);
    /// The step's marks, to add one of its trials together (drift).
    fn marks_mut(&mut self) -> &mut Vec<Mark>;
}

/// A measuring module's figure, as trials pool it: [`TrialFigure`]'s
/// figure part, the marks being [`Measured`]'s.
pub trait Pooled {
    /// The figure the median is taken of (loops/s, bytes/s, IO/s).
    fn main_figure(&self) -> f64;
    /// How the trial ended.
    fn end(&self) -> &End;
    /// How the trial ended, to say that the step was cut.
    fn end_mut(&mut self) -> &mut End;
    /// Sets the rates to the pooled rate of `trials`.
    fn pool(&mut self, trials: &[&Self]);
}

impl<F: Pooled, C> TrialFigure for Measured<F, C> {
    fn main_figure(&self) -> f64 {
        self.figure.main_figure()
    }
    fn end(&self) -> &End {
        self.figure.end()
    }
    fn end_mut(&mut self) -> &mut End {
        self.figure.end_mut()
    }
    fn pool(&mut self, trials: &[&Self]) {
        let figures: Vec<&F> = trials.iter().map(|t| &t.figure).collect();
        self.figure.pool(&figures);
    }
    fn marks(&self) -> &[Mark] {
        &self.marks
    }
    fn set_marks(&mut self, marks: Vec<Mark>, in_trials: Vec<InTrials>) {
        (self.marks, self.marks_in_trials) = (marks, in_trials);
    }
    fn marks_mut(&mut self) -> &mut Vec<Mark> {
        &mut self.marks
    }
}

/// Σ wᵢ·xᵢ / Σ wᵢ, or the plain mean when no weight is positive.
fn weighted(pairs: impl Iterator<Item = (f64, f64)> + Clone) -> f64 {
    let w: f64 = pairs.clone().map(|(_, w)| w).sum();
    if w > 0.0 {
        pairs.map(|(x, w)| x * w).sum::<f64>() / w
    } else {
        let n = pairs.clone().count().max(1) as f64;
        pairs.map(|(x, _)| x).sum::<f64>() / n
    }
}

/// The samples of all trials one after the other, when they share one
/// sub-interval (else `None`: the median trial's stay).
fn joined(all: &[&Samples]) -> Option<Samples> {
    let interval = all.first()?.sample_interval_ns;
    if interval.is_none() || all.iter().any(|s| s.sample_interval_ns != interval) {
        return None;
    }
    let rates = all.iter().flat_map(|s| s.samples.iter().copied()).collect();
    let mut joined = Samples::new(rates, interval.map(std::time::Duration::from_nanos));
    if all.iter().all(|s| s.core.is_some()) {
        let mut core = crate::samples::core::CoreSamples::default();
        for c in all.iter().filter_map(|s| s.core.as_ref()) {
            core.mhz.extend(&c.mhz);
            core.per_cycle.extend(&c.per_cycle);
            core.on_cpu.extend(&c.on_cpu);
        }
        joined.core = Some(core);
    }
    Some(joined)
}

impl Pooled for LoopStep {
    fn main_figure(&self) -> f64 {
        self.loops_per_s_mean
    }
    fn end(&self) -> &End {
        &self.end
    }
    fn end_mut(&mut self) -> &mut End {
        &mut self.end
    }
    /// Each job's loops over the trials' time; the mean of the jobs.
    fn pool(&mut self, trials: &[&Self]) {
        for (j, each) in self.loops_per_s_each.iter_mut().enumerate() {
            *each = weighted(trials.iter().map(|t| {
                let x = t.loops_per_s_each.get(j).copied();
                (x.unwrap_or(t.loops_per_s_mean), t.elapsed_ns as f64)
            }));
        }
        self.loops_per_s_mean = weighted(
            trials
                .iter()
                .map(|t| (t.loops_per_s_mean, t.elapsed_ns as f64)),
        );
        self.elapsed_ns = trials.iter().map(|t| t.elapsed_ns).sum();
        let samples: Vec<&Samples> = trials.iter().map(|t| &t.samples).collect();
        if let Some(s) = joined(&samples) {
            self.samples = s;
        }
    }
}

impl Pooled for DdBandwidth {
    fn main_figure(&self) -> f64 {
        self.bytes_per_s()
    }
    fn end(&self) -> &End {
        &self.end
    }
    fn end_mut(&mut self) -> &mut End {
        &mut self.end
    }
    /// The bytes copied over the trials' time.
    fn pool(&mut self, trials: &[&Self]) {
        self.bytes = trials.iter().map(|t| t.bytes).sum();
        self.elapsed_ns = trials.iter().map(|t| t.elapsed_ns).sum();
        let samples: Vec<&Samples> = trials.iter().map(|t| &t.samples).collect();
        if let Some(s) = joined(&samples) {
            self.samples = s;
        }
    }
}

impl Pooled for LineResult {
    fn main_figure(&self) -> f64 {
        self.iops
    }
    fn end(&self) -> &End {
        &self.end
    }
    fn end_mut(&mut self) -> &mut End {
        &mut self.end
    }
    /// Bytes and I/Os over the trials' time; the mean latency weighted by
    /// I/Os and the largest of the trials' maxima (the percentiles, which
    /// do not add up, stay the median trial's).
    fn pool(&mut self, trials: &[&Self]) {
        self.bytes = trials.iter().map(|t| t.bytes).sum();
        self.ios = trials.iter().map(|t| t.ios).sum();
        self.elapsed_ns = trials.iter().map(|t| t.elapsed_ns).sum();
        if trials.iter().all(|t| t.fdatasync_ns.is_some()) {
            self.fdatasync_ns = Some(trials.iter().filter_map(|t| t.fdatasync_ns).sum());
        }
        if self.elapsed_ns > 0 {
            let secs = self.elapsed_ns as f64 / 1e9;
            self.mb_per_s = self.bytes as f64 / 1e6 / secs;
            self.iops = self.ios as f64 / secs;
        }
        self.lat_mean_us = weighted(trials.iter().map(|t| (t.lat_mean_us, t.ios as f64)));
        self.lat_max_us = trials.iter().map(|t| t.lat_max_us).fold(0.0, f64::max);
        let samples: Vec<&Samples> = trials.iter().map(|t| &t.samples).collect();
        if let Some(s) = joined(&samples) {
            self.samples = s;
        }
    }
}

impl<M> Repeated<M> {
    /// A step measured once (no `--repeat`): no trials.
    pub fn once(step: M) -> Self {
        Repeated {
            step,
            median_trial: None,
            trials: Vec::new(),
            budget_stop: None,
        }
    }
}

impl<M: TrialFigure + Clone> Repeated<M> {
    /// The step of `trials` (at least one, in the order they ran): the
    /// pooled rate of all of them (their work over their time, as one
    /// block of the same time measures), over the fields of the lower
    /// median trial by the main figure among those that ran their whole
    /// time (among all when none did); the marks of every trial, each
    /// with how many trials earned it. A Ctrl-C that cut one of the
    /// trials, or an error that stopped one, is said on the step too, so
    /// that the text shows that the step did not run as asked.
    pub fn of_trials(trials: Vec<RoundTrial<M>>) -> Self {
        assert!(!trials.is_empty(), "a step of no trials");
        let complete: Vec<usize> = (0..trials.len())
            .filter(|&i| trials[i].step.end().is_complete())
            .collect();
        let candidates: Vec<usize> = if complete.is_empty() {
            (0..trials.len()).collect()
        } else {
            complete
        };
        let figures: Vec<f64> = candidates
            .iter()
            .map(|&i| trials[i].step.main_figure())
            .collect();
        let at = candidates[lower_median_index(&figures).expect("candidates")];
        let mut step = trials[at].step.clone();
        let all: Vec<&M> = trials.iter().map(|t| &t.step).collect();
        step.pool(&all);
        let (marks, in_trials) = mark::of_trials(all.iter().map(|t| t.marks()));
        step.set_marks(marks, in_trials);
        if trials.iter().any(|t| t.step.end().interrupted()) {
            step.end_mut().interrupt();
        }
        if let Some(e) = trials
            .iter()
            .map(|t| t.step.end())
            .find(|e| e.error().is_some())
        {
            let (error, errno) = (e.error().unwrap_or_default().to_string(), e.errno());
            step.end_mut().stop(error, errno);
        }
        Repeated {
            step,
            median_trial: Some(at),
            trials,
            budget_stop: None,
        }
    }
}

/// The index of the lower median of `values`: the value of rank
/// ⌈n/2⌉ in increasing order (for odd n the median, for even n the lower
/// of the two middle values; numpy's `percentile(x, 50, method='lower')`),
/// ties going to the earliest. `None` when empty. The lower median, not
/// the mean of the two middle values, so that the step is one real trial.
pub fn lower_median_index(values: &[f64]) -> Option<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    order.get(values.len().checked_sub(1)? / 2).copied()
}

/// The order the trials ran in, so that a run can be explained and
/// reproduced: the seed of the shuffles and, per section, each round's
/// order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialOrder {
    /// The seed of the generator that shuffled each round (below 2^53, so
    /// that every JSON reader reads it exactly).
    pub seed: u64,
    /// `[ CPU loop ]`: for each round, the job counts in the order run.
    #[serde(default)]
    pub cpu_loop: Vec<Vec<u32>>,
    /// With `--budget`: the job counts of the CPU loop trials added after
    /// the rounds, in the order run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_loop_added: Vec<u32>,
    /// `[ Storage bandwidth ]`: per block size, each round's lines in the
    /// order run (round 1 writes then reads, the later ones shuffled).
    #[serde(default)]
    pub storage_bandwidth: Vec<StorageRounds>,
}

/// The rounds of one storage bandwidth section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageRounds {
    /// The section's block size.
    pub block_size_bytes: u64,
    /// For each round, its lines in the order run.
    pub rounds: Vec<Vec<LineKey>>,
    /// With `--budget`: the lines of the trials added after the rounds, in
    /// the order run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<LineKey>,
}

/// Which storage line: its direction and job count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineKey {
    /// Writes or reads.
    pub direction: Direction,
    /// Its number of jobs.
    pub jobs: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::{CpuConditions, LineConditions, MemoryConditions};

    // Reference: numpy 1.26/2.x, `np.percentile(x, 50, method='lower')`,
    // whose value is at the index given (the first of equal values).
    #[test]
    fn the_lower_median_is_numpys_lower_percentile() {
        let cases: [(&[f64], usize); 6] = [
            (&[3.0, 1.0, 2.0], 2),
            (&[4.0, 1.0, 3.0, 2.0], 3),
            (&[5.0], 0),
            (&[2.0, 2.0, 1.0, 3.0], 0),
            (&[10.0, 30.0, 20.0, 40.0, 50.0, 60.0], 1),
            (&[0.9, 1.1], 0),
        ];
        for (values, want) in cases {
            assert_eq!(lower_median_index(values), Some(want), "{values:?}");
        }
        assert_eq!(lower_median_index(&[]), None);
    }

    fn cpu(rate: f64, end: End) -> Measured<LoopStep, CpuConditions> {
        Measured::plain(LoopStep {
            jobs: 2,
            loops_per_s_each: vec![rate; 2],
            loops_per_s_mean: rate,
            elapsed_ns: 1,
            samples: Default::default(),
            end,
        })
    }

    fn trials(
        steps: Vec<Measured<LoopStep, CpuConditions>>,
    ) -> Vec<RoundTrial<Measured<LoopStep, CpuConditions>>> {
        steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| RoundTrial {
                round: i as u32 + 1,
                step,
            })
            .collect()
    }

    fn timed(rate: f64, elapsed_ns: u64, end: End) -> Measured<LoopStep, CpuConditions> {
        let mut m = cpu(rate, end);
        m.figure.elapsed_ns = elapsed_ns;
        m.figure.loops_per_s_each = vec![rate, rate * 3.0];
        m
    }

    #[test]
    fn the_steps_rate_is_all_trials_work_over_their_time_and_says_a_cut() {
        // 3 loops/s for 1 s, 1 for 2 s, 2 for 1 s: 3 + 2 + 2 = 7 loops
        // in 4 s, 1.75 loops/s (the median trial would say 2).
        let r = Repeated::of_trials(trials(vec![
            timed(3.0, 1_000_000_000, End::Complete),
            timed(1.0, 2_000_000_000, End::Complete),
            timed(2.0, 1_000_000_000, End::Complete),
        ]));
        assert_eq!(r.loops_per_s_mean, 1.75);
        assert_eq!(r.loops_per_s_each, [1.75, 5.25], "each job pooled alike");
        assert_eq!(r.elapsed_ns, 4_000_000_000);
        assert_eq!(r.median_trial, Some(2), "the median trial, by rate");
        assert!(r.end.is_complete());
        // A cut trial's work and time count too (the original's figure of
        // a cut step covers the time it ran); it is not the median while
        // complete ones exist, and the step says that it was cut.
        let r = Repeated::of_trials(trials(vec![
            timed(3.0, 1_000_000_000, End::Complete),
            timed(0.5, 2_000_000_000, End::Interrupted),
            timed(2.0, 1_000_000_000, End::Complete),
        ]));
        assert_eq!((r.loops_per_s_mean, r.median_trial), (1.5, Some(2)));
        assert_eq!(r.end, End::Interrupted);
        assert_eq!(
            r.trials[2].step.end,
            End::Complete,
            "the trial stays as it ran"
        );
        // One trial: itself.
        let r = Repeated::of_trials(trials(vec![cpu(0.5, End::Interrupted)]));
        assert_eq!((r.loops_per_s_mean, r.median_trial), (0.5, Some(0)));
    }

    #[test]
    fn pooled_memory_and_storage_figures() {
        let bw = |bytes: u64, ns: u64| {
            Measured::<DdBandwidth, MemoryConditions>::plain(DdBandwidth {
                bytes,
                elapsed_ns: ns,
                samples: Samples::new(
                    vec![bytes as f64],
                    Some(std::time::Duration::from_millis(50)),
                ),
                end: End::Complete,
            })
        };
        let r = Repeated::of_trials(trials_of(vec![
            bw(300, 1_000),
            bw(100, 1_000),
            bw(200, 2_000),
        ]));
        assert_eq!((r.bytes, r.elapsed_ns), (600, 4_000));
        assert_eq!(r.bytes_per_s(), 1.5e8);
        assert_eq!(
            r.samples.samples,
            [300.0, 100.0, 200.0],
            "every trial's samples"
        );
        let line = |ios: u64, ns: u64, lat: f64| {
            let mut l = LineResult::empty(4096, Direction::Write, 1);
            (l.ios, l.bytes, l.elapsed_ns) = (ios, ios * 4096, ns);
            l.iops = ios as f64 * 1e9 / ns as f64;
            (l.lat_mean_us, l.lat_p99_us, l.lat_max_us) = (lat, lat * 2.0, lat * 3.0);
            Measured::<LineResult, LineConditions>::plain(l)
        };
        let r = Repeated::of_trials(trials_of(vec![
            line(1000, 1_000_000_000, 10.0),
            line(3000, 1_000_000_000, 30.0),
            line(2000, 2_000_000_000, 40.0),
        ]));
        assert_eq!((r.ios, r.elapsed_ns), (6000, 4_000_000_000));
        assert_eq!(r.iops, 1500.0);
        assert_eq!(r.mb_per_s, 6000.0 * 4096.0 / 1e6 / 4.0);
        // Mean latency weighted by I/Os: (10 + 90 + 80) x 1000 / 6000.
        assert_eq!(r.lat_mean_us, 30.0);
        assert_eq!(r.lat_max_us, 120.0, "the largest maximum");
        // The lower median trial by IO/s (1000, 3000, 1000) is the third
        // (ties keep their order, and rank 2 of 3 is the later 1000): its
        // percentile stays.
        assert_eq!((r.median_trial, r.lat_p99_us), (Some(2), 80.0));
    }

    fn trials_of<M>(steps: Vec<M>) -> Vec<RoundTrial<M>> {
        steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| RoundTrial {
                round: i as u32 + 1,
                step,
            })
            .collect()
    }

    #[test]
    fn the_steps_marks_are_its_trials_with_their_count() {
        let mut busy = timed(1.0, 1, End::Complete);
        busy.marks = vec![Mark::Busy {
            others_cpu_percent: 30.0,
            others_percent_of_needed: 15.0,
            processes: Vec::new(),
        }];
        let r = Repeated::of_trials(trials(vec![
            timed(1.0, 1, End::Complete),
            busy,
            timed(1.0, 1, End::Complete),
        ]));
        assert_eq!(r.marks.len(), 1);
        assert_eq!(r.marks_in_trials, [InTrials { trials: 1, of: 3 }]);
        assert!(
            r.trials[0].step.marks.is_empty(),
            "each trial keeps its own"
        );
    }

    #[test]
    fn an_error_in_any_trial_stops_the_step() {
        let l = |iops: f64, end: End| {
            let mut line = LineResult::empty(4096, Direction::Write, 1);
            line.iops = iops;
            line.end = end;
            Measured::<LineResult, LineConditions>::plain(line)
        };
        let stopped = End::Stopped {
            error: "/d: EIO".into(),
            errno: Some(5),
            interrupted: false,
        };
        let r = Repeated::of_trials(vec![
            RoundTrial {
                round: 1,
                step: l(10.0, End::Complete),
            },
            RoundTrial {
                round: 2,
                step: l(1.0, stopped.clone()),
            },
        ]);
        assert_eq!(r.iops, 10.0);
        assert_eq!(r.end, stopped);
    }

    #[test]
    fn json_has_the_steps_keys_and_reads_back() {
        let once: Repeated<_> = cpu(2.0, End::Complete).into();
        let v = serde_json::to_value(&once).unwrap();
        assert_eq!(v, serde_json::to_value(cpu(2.0, End::Complete)).unwrap());
        let r = Repeated::of_trials(trials(vec![
            cpu(3.0, End::Complete),
            cpu(1.0, End::Complete),
        ]));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["loops_per_s_mean"], 2.0);
        assert_eq!(v["median_trial"], 1);
        assert_eq!(v["trials"][0]["round"], 1);
        assert_eq!(v["trials"][0]["loops_per_s_mean"], 3.0);
        assert!(v["trials"][0].get("trials").is_none());
        let back: Repeated<Measured<LoopStep, CpuConditions>> =
            serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), v);
        assert_eq!(back.trials.len(), 2);
    }
}
