//! The conditions of a measurement: what else the host did while a step
//! ran, and the marks a distorted figure earns, so that the report names
//! why a figure dropped rather than let the reader blame the hardware. The
//! runner takes one [`Sampler`] around each step and wraps the figure the
//! measuring module returned with what it sampled, as a [`Measured`]
//! figure; the measuring modules know nothing of it. Nothing here prints.
//!
//! * [`load`]: the sampler and the CPU arithmetic (others' CPU time, steal,
//!   cgroup throttling), as a [`StepLoad`]; [`clock`]: the CPUs' clock.
//! * [`procs`]: the other processes' CPU time during a step.
//! * [`io`]: the I/O on each device of a storage line that was not ours.
//! * [`reach`]: whether a storage line's bytes reached its devices.
//! * [`mark`]: the [`Mark`]s: threshold, text, parse, explanation, steps.

pub mod clock;
pub mod io;
pub mod load;
pub mod mark;
pub mod procs;
pub mod reach;
pub mod tenancy;

use std::ops::Deref;

use serde::{Deserialize, Serialize};

pub use clock::Clock;

use crate::cpu_loop::mhz::ClockProbe;
pub use load::{Sample, Sampler, StepLoad};
pub use mark::{Mark, MarkKind, Step};

use reach::Reach;
pub use tenancy::Tenancy;

/// A figure with the conditions it was measured under and the marks they
/// earned. In the JSON, one object: the figure's keys, the conditions'
/// keys, then `marks`. It reads as its figure (`step.jobs`).
///
/// Read through `model::wire` (flat, in one pass) for the report's steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured<F, C> {
    /// What the measuring module returned.
    #[serde(flatten)]
    pub figure: F,
    /// What the runner sampled around it.
    #[serde(flatten)]
    pub conditions: C,
    /// What distorted the figure, when something did: printed after it.
    #[serde(default)]
    pub marks: Vec<Mark>,
    /// For a step of several trials, in how many of them each of `marks`
    /// was earned (same order); empty for one run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks_in_trials: Vec<mark::InTrials>,
}

impl<F, C: Default> Measured<F, C> {
    /// A figure with nothing sampled around it (a stand-in, a report read
    /// from text, a harness).
    pub fn plain(figure: F) -> Self {
        Measured {
            figure,
            conditions: C::default(),
            marks: Vec::new(),
            marks_in_trials: Vec::new(),
        }
    }
}

impl<F, C> Deref for Measured<F, C> {
    type Target = F;
    fn deref(&self) -> &F {
        &self.figure
    }
}

/// The measured clock around a CPU loop step
/// ([`crate::cpu_loop::mhz`]): the probe before the CPU loop's first step
/// (cold) and the one right after this step (hot).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbedClock {
    /// Before the first CPU loop step.
    pub cold: ClockProbe,
    /// Right after this step.
    pub hot: ClockProbe,
}

impl ProbedClock {
    /// The mean cold and hot clocks, MHz, when both have a figure.
    pub fn mhz(&self) -> Option<(f64, f64)> {
        Some((self.cold.mean_mhz()?, self.hot.mean_mhz()?))
    }
}

/// What the runner samples around a CPU loop step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuConditions {
    /// Steal and clock during the step (`conditions` in the JSON), when
    /// `/proc/stat` could be read.
    #[serde(rename = "conditions")]
    pub clock: Option<Clock>,
    /// Other processes, steal and cgroup throttling during the step.
    #[serde(default)]
    pub load: Option<StepLoad>,
    /// The measured clock before the CPU loop and right after the step
    /// (absent from reports of the stand-in and of older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbedClock>,
    /// Whether the core was alone or shared, from the core probe's
    /// samples (flat: `alone_rate`, `shared_fraction`, ...).
    #[serde(flatten)]
    pub tenancy: Option<Tenancy>,
}

/// What the runner samples around the dd-like memory step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryConditions {
    /// Other processes, steal and cgroup throttling during the step.
    #[serde(default)]
    pub load: Option<StepLoad>,
    /// Whether the core was alone or shared (flat, as the CPU loop's).
    #[serde(flatten)]
    pub tenancy: Option<Tenancy>,
}

/// What the runner samples around a storage line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LineConditions {
    /// Other processes, steal, throttling and other I/O on the devices
    /// during the line.
    #[serde(default)]
    pub load: Option<StepLoad>,
    /// Whether our bytes reached the target's devices.
    #[serde(default)]
    pub reach: Option<Reach>,
}

/// `part` over `whole` in percent; 0 when `whole` is not positive.
fn percent(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        // the ratio first: part <= whole keeps it <= 1, so the share <= 100
        100.0 * (part / whole)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu_loop::LoopStep;
    use crate::dd_io::{Direction, LineResult};

    /// True when `keys` appear in this order in the JSON `text`.
    fn in_order(text: &str, keys: &[&str]) -> bool {
        let at: Vec<Option<usize>> = keys
            .iter()
            .map(|k| text.find(&format!("\"{k}\":")))
            .collect();
        at.iter().all(Option::is_some) && at.windows(2).all(|w| w[0] < w[1])
    }

    #[test]
    fn one_json_object_figure_then_conditions_then_marks() {
        let step = Measured {
            figure: LoopStep {
                jobs: 2,
                loops_per_s_each: vec![1.0, 3.0],
                loops_per_s_mean: 2.0,
                elapsed_ns: 5,
                samples: Default::default(),
                end: crate::end::End::Interrupted,
            },
            conditions: CpuConditions {
                clock: None,
                load: Some(StepLoad::default()),
                probe: None,
                tenancy: None,
            },
            marks: vec![Mark::Steal { percent: 3.0 }],
            marks_in_trials: Vec::new(),
        };
        let text = serde_json::to_string(&step).unwrap();
        let all = [
            "jobs",
            "loops_per_s_each",
            "loops_per_s_mean",
            "elapsed_ns",
            "samples",
            "sample_interval_ns",
            "sample_summary",
            "cut_short",
            "conditions",
            "load",
            "marks",
        ];
        assert!(in_order(&text, &all), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v.as_object().unwrap().len(), all.len(), "{text}");
        let back: Measured<LoopStep, CpuConditions> = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        assert_eq!(back.jobs, 2, "reads as its figure");

        let line: Measured<LineResult, LineConditions> =
            Measured::plain(LineResult::empty(4096, Direction::Read, 1));
        let text = serde_json::to_string(&line).unwrap();
        let tail = [
            "file_size_bytes",
            "cut_short",
            "error",
            "error_errno",
            "load",
            "reach",
            "marks",
        ];
        assert!(in_order(&text, &tail), "{text}");
        assert!(text.ends_with("\"reach\":null,\"marks\":[]}"), "{text}");
        let v = serde_json::to_value(&line).unwrap();
        // Older documents without the conditions' keys still read.
        let mut o = v.as_object().unwrap().clone();
        for gone in ["load", "reach", "marks"] {
            o.remove(gone);
        }
        let old: Measured<LineResult, LineConditions> =
            serde_json::from_value(serde_json::Value::Object(o)).unwrap();
        assert!(old.marks.is_empty() && old.conditions == LineConditions::default());
    }
}
