//! The trials of `--repeat N`: every timed step of the standard report
//! (each CPU loop step, the memory bandwidth, each storage line) measured
//! N times, interleaved with the other steps of its section.
//!
//! A step keeps all its trials, in the order they ran, each the full
//! figure of that run (value, load, marks, end state) with its round. The
//! step's own fields, which the text report prints, are those of its
//! median trial by its main figure: one real measurement, whose latency
//! and marks belong to it, not an average of several. With N = 1 there
//! are no trials and the JSON is what it always was.

use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize};

use crate::conditions::{CpuConditions, LineConditions, Measured, MemoryConditions};
use crate::cpu_loop::LoopStep;
use crate::dd_io::{Direction, LineResult};
use crate::end::End;
use crate::membw::DdBandwidth;

/// Most trials `--repeat` allows: 20 rounds of a 30 s report already take
/// hours, and 20 trials a side give a rank test all the power it needs.
pub const MAX_REPEAT: u32 = 20;

/// One trial of a step: the figure of that run, wrapped as the step is,
/// and the round it ran in (1 to N). In the JSON, the step's keys and
/// `round`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trial<M> {
    /// The round it ran in, from 1.
    pub round: u32,
    /// What that run measured.
    #[serde(flatten)]
    pub step: M,
}

/// A step of the report with the trials it was chosen from. It reads as
/// its step (`step.jobs`, `step.marks`). In the JSON, the step's keys,
/// then `median_trial` and `trials` when there were several trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repeated<M> {
    /// The median trial's figure (what the text prints), or the only run.
    #[serde(flatten)]
    pub step: M,
    /// Which of `trials` the step is (its index), when there are trials.
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub median_trial: Option<usize>,
    /// Every trial, in the order they ran; empty without `--repeat`.
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub trials: Vec<Trial<M>>,
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

/// What a trial is judged by: its main figure, and how it ended.
pub trait TrialFigure {
    /// The figure the median is taken of (loops/s, bytes/s, IO/s).
    fn main_figure(&self) -> f64;
    /// How the trial ended.
    fn end(&self) -> &End;
    /// How the trial ended, to say that the step was cut.
    fn end_mut(&mut self) -> &mut End;
    /// Its marks, to add those of the step's trials together (drift).
    fn marks_mut(&mut self) -> &mut Vec<crate::conditions::Mark>;
}

impl TrialFigure for Measured<LoopStep, CpuConditions> {
    fn main_figure(&self) -> f64 {
        self.loops_per_s_mean
    }
    fn end(&self) -> &End {
        &self.figure.end
    }
    fn end_mut(&mut self) -> &mut End {
        &mut self.figure.end
    }
    fn marks_mut(&mut self) -> &mut Vec<crate::conditions::Mark> {
        &mut self.marks
    }
}

impl TrialFigure for Measured<DdBandwidth, MemoryConditions> {
    fn main_figure(&self) -> f64 {
        self.bytes_per_s()
    }
    fn end(&self) -> &End {
        &self.figure.end
    }
    fn end_mut(&mut self) -> &mut End {
        &mut self.figure.end
    }
    fn marks_mut(&mut self) -> &mut Vec<crate::conditions::Mark> {
        &mut self.marks
    }
}

impl TrialFigure for Measured<LineResult, LineConditions> {
    fn main_figure(&self) -> f64 {
        self.iops
    }
    fn end(&self) -> &End {
        &self.figure.end
    }
    fn end_mut(&mut self) -> &mut End {
        &mut self.figure.end
    }
    fn marks_mut(&mut self) -> &mut Vec<crate::conditions::Mark> {
        &mut self.marks
    }
}

impl<M> Repeated<M> {
    /// A step measured once (no `--repeat`): no trials.
    pub fn once(step: M) -> Self {
        Repeated {
            step,
            median_trial: None,
            trials: Vec::new(),
        }
    }
}

impl<M: TrialFigure + Clone> Repeated<M> {
    /// The step of `trials` (at least one, in the order they ran): the
    /// lower median trial by the main figure among those that ran their
    /// whole time (among all when none did). A Ctrl-C that cut one of the
    /// trials, or an error that stopped one, is said on the step too, so
    /// that the text shows that the step did not run as asked.
    pub fn of_trials(trials: Vec<Trial<M>>) -> Self {
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
    ) -> Vec<Trial<Measured<LoopStep, CpuConditions>>> {
        steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| Trial {
                round: i as u32 + 1,
                step,
            })
            .collect()
    }

    #[test]
    fn the_step_is_its_median_trial_and_says_a_cut() {
        let r = Repeated::of_trials(trials(vec![
            cpu(3.0, End::Complete),
            cpu(1.0, End::Complete),
            cpu(2.0, End::Complete),
        ]));
        assert_eq!((r.loops_per_s_mean, r.median_trial), (2.0, Some(2)));
        assert!(r.end.is_complete());
        // A cut trial is not a candidate while complete ones exist, and
        // the step says that it was cut.
        let r = Repeated::of_trials(trials(vec![
            cpu(3.0, End::Complete),
            cpu(0.5, End::Interrupted),
            cpu(2.0, End::Complete),
        ]));
        assert_eq!((r.loops_per_s_mean, r.median_trial), (2.0, Some(2)));
        assert_eq!(r.end, End::Interrupted);
        assert_eq!(
            r.trials[2].step.end,
            End::Complete,
            "the trial stays as it ran"
        );
        // All cut: the median of them.
        let r = Repeated::of_trials(trials(vec![cpu(0.5, End::Interrupted)]));
        assert_eq!((r.loops_per_s_mean, r.median_trial), (0.5, Some(0)));
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
            Trial {
                round: 1,
                step: l(10.0, End::Complete),
            },
            Trial {
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
        assert_eq!(v["loops_per_s_mean"], 1.0);
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
