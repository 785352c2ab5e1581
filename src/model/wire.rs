//! How a timed step is read from JSON: one flat struct per kind of step
//! that names every key the step, its conditions, its marks and its
//! trials write, deserialized in one pass and then moved into the nested
//! types (`Repeated` of `Measured` of the figure, its `Samples` and
//! `End`).
//!
//! The nested types write one flat object (`#[serde(flatten)]` on
//! output), but reading them back through `flatten` makes serde buffer
//! every key of the object into a generic tree first and walk it once per
//! level (three levels for a storage trial): on a fleet of reports that
//! was most of `compare`'s reading time and memory. The JSON layout is
//! unchanged; the struct literals below name every field of the figures,
//! so a field added to one does not compile until it is read here too.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

use super::trials::{BudgetStop, Repeated, RoundTrial};
use crate::blockdev::BlockStat;
use crate::conditions::clock::Clock;
use crate::conditions::mark::InTrials;
use crate::conditions::reach::Reach;
use crate::conditions::tenancy::{LevelFrom, Tenancy, Unjudged};
use crate::conditions::{
    CpuConditions, LineConditions, Mark, Measured, MemoryConditions, ProbedClock, StepLoad,
};
use crate::cpu_loop::LoopStep;
use crate::dd_io::{DeviceDelta, Direction, LineResult};
use crate::end::End;
use crate::membw::DdBandwidth;
use crate::samples::core::CoreSamples;
use crate::samples::Samples;
use crate::stats::Summary;

/// A step read from its flat JSON object, and what the object holds
/// besides the step: the keys of a trial (`round`) or of a step of
/// trials (`median_trial`, `trials`, `budget_stop`).
pub trait FromWire: Sized {
    /// The flat object: every key of the step and of its trials.
    type Wire: DeserializeOwned;
    /// Moves the flat object into the nested step, and returns the keys
    /// of its trials beside it.
    fn unflatten(w: Self::Wire) -> (Self, TrialKeys<Self::Wire>);
}

/// The keys of a step's object that are not the step's own: its trial
/// round, or its trials and their median.
pub struct TrialKeys<W> {
    /// A trial's round.
    round: Option<u32>,
    /// A step's median trial.
    median_trial: Option<usize>,
    /// A step's trials, still flat.
    trials: Vec<W>,
    /// Why `--budget` gave the step no more trials.
    budget_stop: Option<BudgetStop>,
}

/// A trial, from its flat object: `round` is required.
fn trial<M: FromWire, E: serde::de::Error>(w: M::Wire) -> Result<RoundTrial<M>, E> {
    let (step, keys) = M::unflatten(w);
    let round = keys.round.ok_or_else(|| E::missing_field("round"))?;
    Ok(RoundTrial { round, step })
}

impl<'de, M: FromWire> Deserialize<'de> for Repeated<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (step, keys) = M::unflatten(M::Wire::deserialize(d)?);
        let trials = keys
            .trials
            .into_iter()
            .map(trial::<M, D::Error>)
            .collect::<Result<_, _>>()?;
        Ok(Repeated {
            step,
            median_trial: keys.median_trial,
            trials,
            budget_stop: keys.budget_stop,
        })
    }
}

impl<'de, M: FromWire> Deserialize<'de> for RoundTrial<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        trial(M::Wire::deserialize(d)?)
    }
}

/// The flat `Measured` objects: the figure, its conditions and marks
/// (the keys around them, a trial's or a step's, are left out).
macro_rules! measured_from_wire {
    ($f:ty, $c:ty) => {
        impl<'de> Deserialize<'de> for Measured<$f, $c> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let w = <Self as FromWire>::Wire::deserialize(d)?;
                Ok(<Self as FromWire>::unflatten(w).0)
            }
        }
    };
}
measured_from_wire!(LoopStep, CpuConditions);
measured_from_wire!(DdBandwidth, MemoryConditions);
measured_from_wire!(LineResult, LineConditions);

/// `Samples`' keys, as `Samples` reads them.
fn samples(
    samples: Vec<f64>,
    sample_interval_ns: Option<u64>,
    sample_summary: Option<Summary>,
    core: Option<CoreSamples>,
) -> Samples {
    Samples {
        samples,
        sample_interval_ns,
        sample_summary,
        printed: None,
        core,
    }
}

/// `Tenancy`'s keys; `None` in reports written before the core probe.
fn tenancy(
    alone_rate: Option<f64>,
    shared_fraction: Option<f64>,
    shared_loss_percent: Option<f64>,
    per_cycle_level: Option<f64>,
    per_cycle_level_from: Option<LevelFrom>,
    sample_classes: Option<String>,
    tenancy_unjudged: Option<Unjudged>,
) -> Option<Tenancy> {
    Some(Tenancy {
        alone_rate,
        shared_fraction,
        shared_loss_percent,
        per_cycle_level,
        per_cycle_level_from,
        sample_classes: sample_classes?,
        tenancy_unjudged,
    })
}

/// A CPU loop step or trial, flat.
#[derive(Deserialize)]
pub struct CpuWire {
    jobs: u32,
    loops_per_s_each: Vec<f64>,
    loops_per_s_mean: f64,
    elapsed_ns: u64,
    #[serde(default)]
    samples: Vec<f64>,
    #[serde(default)]
    sample_interval_ns: Option<u64>,
    #[serde(default)]
    sample_summary: Option<Summary>,
    #[serde(default)]
    core_samples: Option<CoreSamples>,
    #[serde(with = "crate::end::cut_short")]
    cut_short: End,
    conditions: Option<Clock>,
    #[serde(default)]
    load: Option<StepLoad>,
    #[serde(default)]
    probe: Option<ProbedClock>,
    #[serde(default)]
    alone_rate: Option<f64>,
    #[serde(default)]
    shared_fraction: Option<f64>,
    #[serde(default)]
    shared_loss_percent: Option<f64>,
    #[serde(default)]
    per_cycle_level: Option<f64>,
    #[serde(default)]
    per_cycle_level_from: Option<LevelFrom>,
    #[serde(default)]
    sample_classes: Option<String>,
    #[serde(default)]
    tenancy_unjudged: Option<Unjudged>,
    #[serde(default)]
    marks: Vec<Mark>,
    #[serde(default)]
    marks_in_trials: Vec<InTrials>,
    round: Option<u32>,
    #[serde(default)]
    median_trial: Option<usize>,
    #[serde(default)]
    trials: Vec<CpuWire>,
    #[serde(default)]
    budget_stop: Option<BudgetStop>,
}

impl FromWire for Measured<LoopStep, CpuConditions> {
    type Wire = CpuWire;
    fn unflatten(w: CpuWire) -> (Self, TrialKeys<CpuWire>) {
        let step = Measured {
            figure: LoopStep {
                jobs: w.jobs,
                loops_per_s_each: w.loops_per_s_each,
                loops_per_s_mean: w.loops_per_s_mean,
                elapsed_ns: w.elapsed_ns,
                samples: samples(
                    w.samples,
                    w.sample_interval_ns,
                    w.sample_summary,
                    w.core_samples,
                ),
                end: w.cut_short,
            },
            conditions: CpuConditions {
                clock: w.conditions,
                load: w.load,
                probe: w.probe,
                tenancy: tenancy(
                    w.alone_rate,
                    w.shared_fraction,
                    w.shared_loss_percent,
                    w.per_cycle_level,
                    w.per_cycle_level_from,
                    w.sample_classes,
                    w.tenancy_unjudged,
                ),
            },
            marks: w.marks,
            marks_in_trials: w.marks_in_trials,
        };
        let keys = TrialKeys {
            round: w.round,
            median_trial: w.median_trial,
            trials: w.trials,
            budget_stop: w.budget_stop,
        };
        (step, keys)
    }
}

/// The memory bandwidth step or trial, flat.
#[derive(Deserialize)]
pub struct MemoryWire {
    bytes: u64,
    elapsed_ns: u64,
    #[serde(default)]
    samples: Vec<f64>,
    #[serde(default)]
    sample_interval_ns: Option<u64>,
    #[serde(default)]
    sample_summary: Option<Summary>,
    #[serde(default)]
    core_samples: Option<CoreSamples>,
    #[serde(with = "crate::end::cut_short")]
    cut_short: End,
    #[serde(default)]
    load: Option<StepLoad>,
    #[serde(default)]
    alone_rate: Option<f64>,
    #[serde(default)]
    shared_fraction: Option<f64>,
    #[serde(default)]
    shared_loss_percent: Option<f64>,
    #[serde(default)]
    per_cycle_level: Option<f64>,
    #[serde(default)]
    per_cycle_level_from: Option<LevelFrom>,
    #[serde(default)]
    sample_classes: Option<String>,
    #[serde(default)]
    tenancy_unjudged: Option<Unjudged>,
    #[serde(default)]
    marks: Vec<Mark>,
    #[serde(default)]
    marks_in_trials: Vec<InTrials>,
    round: Option<u32>,
    #[serde(default)]
    median_trial: Option<usize>,
    #[serde(default)]
    trials: Vec<MemoryWire>,
    #[serde(default)]
    budget_stop: Option<BudgetStop>,
}

impl FromWire for Measured<DdBandwidth, MemoryConditions> {
    type Wire = MemoryWire;
    fn unflatten(w: MemoryWire) -> (Self, TrialKeys<MemoryWire>) {
        let step = Measured {
            figure: DdBandwidth {
                bytes: w.bytes,
                elapsed_ns: w.elapsed_ns,
                samples: samples(
                    w.samples,
                    w.sample_interval_ns,
                    w.sample_summary,
                    w.core_samples,
                ),
                end: w.cut_short,
            },
            conditions: MemoryConditions {
                load: w.load,
                tenancy: tenancy(
                    w.alone_rate,
                    w.shared_fraction,
                    w.shared_loss_percent,
                    w.per_cycle_level,
                    w.per_cycle_level_from,
                    w.sample_classes,
                    w.tenancy_unjudged,
                ),
            },
            marks: w.marks,
            marks_in_trials: w.marks_in_trials,
        };
        let keys = TrialKeys {
            round: w.round,
            median_trial: w.median_trial,
            trials: w.trials,
            budget_stop: w.budget_stop,
        };
        (step, keys)
    }
}

/// A storage line or trial, flat.
#[derive(Deserialize)]
pub struct LineWire {
    block_size_bytes: u64,
    direction: Direction,
    jobs: u32,
    bytes: u64,
    ios: u64,
    elapsed_ns: u64,
    #[serde(default)]
    samples: Vec<f64>,
    #[serde(default)]
    sample_interval_ns: Option<u64>,
    #[serde(default)]
    sample_summary: Option<Summary>,
    fdatasync_ns: Option<u64>,
    mb_per_s: f64,
    iops: f64,
    lat_mean_us: f64,
    lat_p50_us: f64,
    lat_p90_us: f64,
    lat_p99_us: f64,
    lat_p999_us: f64,
    lat_max_us: f64,
    device_stat_delta: Option<BlockStat>,
    #[serde(default)]
    device_deltas: Vec<DeviceDelta>,
    direct_io: bool,
    memory_backed: bool,
    file_size_bytes: u64,
    #[serde(default)]
    read_check: Option<crate::dd_io::ReadCheck>,
    cut_short: bool,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    error_errno: Option<i32>,
    #[serde(default)]
    load: Option<StepLoad>,
    #[serde(default)]
    reach: Option<Reach>,
    #[serde(default)]
    marks: Vec<Mark>,
    #[serde(default)]
    marks_in_trials: Vec<InTrials>,
    round: Option<u32>,
    #[serde(default)]
    median_trial: Option<usize>,
    #[serde(default)]
    trials: Vec<LineWire>,
    #[serde(default)]
    budget_stop: Option<BudgetStop>,
}

impl FromWire for Measured<LineResult, LineConditions> {
    type Wire = LineWire;
    fn unflatten(w: LineWire) -> (Self, TrialKeys<LineWire>) {
        let step = Measured {
            figure: LineResult {
                block_size_bytes: w.block_size_bytes,
                direction: w.direction,
                jobs: w.jobs,
                bytes: w.bytes,
                ios: w.ios,
                elapsed_ns: w.elapsed_ns,
                samples: samples(w.samples, w.sample_interval_ns, w.sample_summary, None),
                fdatasync_ns: w.fdatasync_ns,
                mb_per_s: w.mb_per_s,
                iops: w.iops,
                lat_mean_us: w.lat_mean_us,
                lat_p50_us: w.lat_p50_us,
                lat_p90_us: w.lat_p90_us,
                lat_p99_us: w.lat_p99_us,
                lat_p999_us: w.lat_p999_us,
                lat_max_us: w.lat_max_us,
                device_stat_delta: w.device_stat_delta,
                device_deltas: w.device_deltas,
                direct_io: w.direct_io,
                memory_backed: w.memory_backed,
                file_size_bytes: w.file_size_bytes,
                read_check: w.read_check,
                end: End::from_keys(w.cut_short, w.error, w.error_errno),
            },
            conditions: LineConditions {
                load: w.load,
                reach: w.reach,
            },
            marks: w.marks,
            marks_in_trials: w.marks_in_trials,
        };
        let keys = TrialKeys {
            round: w.round,
            median_trial: w.median_trial,
            trials: w.trials,
            budget_stop: w.budget_stop,
        };
        (step, keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::reach::ReachVerdict;
    use crate::model::IoLine;

    /// A storage line with every key holding something other than its
    /// default, and two trials.
    fn line() -> IoLine {
        let mut f = LineResult::empty(4096, Direction::Write, 2);
        (f.bytes, f.ios, f.elapsed_ns) = (8192, 2, 1_000);
        f.samples = Samples::new(vec![1.0, 2.0, 3.0, 4.0, 5.0], None);
        f.samples.sample_interval_ns = Some(20_000_000);
        f.fdatasync_ns = Some(7);
        (f.mb_per_s, f.iops, f.lat_mean_us) = (8.192, 2000.0, 1.5);
        (f.lat_p50_us, f.lat_p90_us, f.lat_p99_us) = (1.0, 2.0, 3.0);
        (f.lat_p999_us, f.lat_max_us) = (4.0, 5.0);
        let delta = BlockStat {
            write_ios: 2,
            ..BlockStat::default()
        };
        f.device_stat_delta = Some(delta);
        f.device_deltas = vec![DeviceDelta {
            device: "vda".into(),
            delta,
        }];
        (f.direct_io, f.memory_backed, f.file_size_bytes) = (false, true, 1 << 20);
        f.end = End::Stopped {
            error: "No space left on device".into(),
            errno: Some(28),
            interrupted: true,
        };
        let step = Measured {
            figure: f,
            conditions: LineConditions {
                load: Some(StepLoad {
                    thermal_events: Some(3),
                    ..StepLoad::default()
                }),
                reach: Some(Reach {
                    direction: Direction::Write,
                    engine_bytes: 8192,
                    devices: vec!["vda".into()],
                    device_bytes: Some(8192),
                    device_equivalent_bytes: Some(8192),
                    device_share_percent: Some(100.0),
                    verdict: ReachVerdict::Reached,
                }),
            },
            marks: vec![Mark::Steal { percent: 3.0 }],
            marks_in_trials: vec![InTrials { trials: 1, of: 2 }],
        };
        Repeated {
            step: step.clone(),
            median_trial: Some(1),
            trials: vec![
                RoundTrial {
                    round: 1,
                    step: step.clone(),
                },
                RoundTrial { round: 2, step },
            ],
            budget_stop: Some(BudgetStop::BudgetSpent),
        }
    }

    #[test]
    fn every_key_of_a_line_and_its_trials_reads_back() {
        let text = serde_json::to_string(&line()).unwrap();
        for key in [
            "\"error_errno\":28",
            "\"device_deltas\":[{",
            "\"thermal_events\":3",
            "\"verdict\":",
            "\"marks_in_trials\":[{",
            "\"round\":2",
            "\"median_trial\":1",
            "\"budget_stop\":\"budget_spent\"",
            "\"sample_interval_ns\":20000000",
            "\"fdatasync_ns\":7",
        ] {
            assert!(text.contains(key), "{key} in {text}");
        }
        let back: IoLine = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        assert_eq!(back.trials[1].round, 2);
        assert_eq!(back.end.errno(), Some(28));
    }

    #[test]
    fn a_trial_without_its_round_is_refused() {
        let mut v = serde_json::to_value(line()).unwrap();
        v["trials"][1].as_object_mut().unwrap().remove("round");
        let e = serde_json::from_value::<IoLine>(v).unwrap_err().to_string();
        assert!(e.contains("missing field `round`"), "{e}");
        // A required key of the figure is named as before.
        let mut v = serde_json::to_value(line()).unwrap();
        v["trials"][0].as_object_mut().unwrap().remove("iops");
        let e = serde_json::from_value::<IoLine>(v).unwrap_err().to_string();
        assert!(e.contains("missing field `iops`"), "{e}");
    }
}
