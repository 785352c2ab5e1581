//! The deterministic stand-in of the golden tests (`--stand-in`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

use crate::conditions::Sampler;
use crate::cpu_loop::smt::{SmtContention, SmtPlan};
use crate::cpu_loop::LoopStep;
use crate::dd_io::{self, Advisory, Direction, IoConfig, IoSkip, LineResult};
use crate::end::End;
use crate::membw::dram::{self, DramBandwidth, DramRun};
use crate::membw::DdBandwidth;
use crate::model::added::Rate;
use crate::model::BlockSize;
use crate::samples::{self, Samples};
use crate::sysinfo::cgroup::CgroupLimits;
use crate::Sysroot;

use super::{Measure, Storage};

/// Deterministic stand-in figures (`--stand-in`), for the golden
/// tests: nothing is measured, no file is written, but every decision of
/// the runner and of the storage policy is the live one.
#[derive(Default)]
pub struct StandIn {
    runs: RunCounts,
}

/// How many times each stand-in step has run, by name: its figure changes
/// from one trial to the next (see [`stand_in_factor`]).
#[derive(Default)]
struct RunCounts(RefCell<BTreeMap<String, u32>>);

impl RunCounts {
    /// The factor of this run of step `key` (its first run: 1).
    fn factor(&self, key: String) -> f64 {
        let mut runs = self.0.borrow_mut();
        let k = runs.entry(key).or_insert(0);
        *k += 1;
        stand_in_factor(*k - 1)
    }
}

/// The stand-in's figure of the `k`-th run of a step (from 0), relative to
/// the first: 1, 1.02, 1.01, 0.99, then again, so that the median of 3
/// trials is the third one and not the first.
fn stand_in_factor(k: u32) -> f64 {
    [1.0, 1.02, 1.01, 0.99][k as usize % 4]
}

/// The seed of the stand-in's shuffles: a fixed one, so that its reports
/// are the same every time.
const STAND_IN_SEED: u64 = 0x5eed;

/// The stand-in's samples of a step of `delay` whose figure is `figure`:
/// one per sub-interval of the live rule, spread over ±2 % in a fixed
/// pattern, so that the renderers of the spread have something to show.
fn stand_in_samples(figure: f64, delay: Duration) -> Samples {
    let interval = samples::interval_for(delay);
    let n = (delay.as_nanos() / interval.as_nanos()).max(1) as usize;
    let rates = (0..n)
        .map(|k| figure * (1.0 + 0.004 * (((k * 7) % 11) as f64 - 5.0)))
        .collect();
    Samples::new(rates, Some(interval))
}

impl Measure for StandIn {
    fn cpu_step(&self, jobs: u32, delay: Duration, _: &dyn Fn()) -> LoopStep {
        let each =
            (400_000_000.0 - 1_000.0 * f64::from(jobs)) * self.runs.factor(format!("cpu {jobs}"));
        LoopStep {
            jobs,
            loops_per_s_each: vec![each; jobs as usize],
            loops_per_s_mean: each,
            elapsed_ns: delay.as_nanos() as u64,
            samples: stand_in_samples(each, delay),
            end: End::Complete,
        }
    }

    /// 30.9 GB/s.
    fn memory_bandwidth(&self, _: &Sysroot, delay: Duration) -> anyhow::Result<DdBandwidth> {
        let bytes = (30_900_000_000.0 * self.runs.factor("memory".into())) as u64;
        Ok(DdBandwidth {
            bytes,
            elapsed_ns: 1_000_000_001,
            samples: stand_in_samples(bytes as f64 / 1.000_000_001, delay),
            end: End::Complete,
        })
    }

    fn open_storage(&self, cfg: &IoConfig) -> Result<Box<dyn Storage>, IoSkip> {
        let policy = dd_io::check_target(cfg)?;
        let file_bytes = 1 << 30;
        let mut advisories: Vec<Advisory> = dd_io::small_region(file_bytes, cfg.max_jobs)
            .into_iter()
            .collect();
        if policy.journaled {
            advisories.push(Advisory::Journaled);
        }
        Ok(Box::new(StandInStorage {
            advisories,
            direct_io: !policy.journaled,
            file_bytes,
            runs: RunCounts::default(),
        }))
    }

    fn smt_contention(&self, _: &Sysroot, _: Duration) -> SmtContention {
        SmtContention {
            plan: SmtPlan::NoSiblings,
            siblings_loops_per_s_each: None,
            separate_loops_per_s_each: None,
            ratio: None,
            cut_short: false,
            samples: Default::default(),
        }
    }

    fn dram(&self, _: &Sysroot, _: &CgroupLimits, delay: Duration) -> DramBandwidth {
        let plan = dram::plan_arrays_for(Some(32 << 20), Some(16 << 20));
        let run = |threads: u32| DramRun {
            threads,
            cpus: (0..threads).collect(),
            pinned: true,
            array_bytes: plan.array_bytes,
            stores: dram::Stores::Cached,
            copy_gb_per_s: 10.0 * f64::from(threads),
            triad_gb_per_s: 11.0 * f64::from(threads),
            passes: 3,
            // three passes, the best of which is the figure
            copy_samples: Samples::new(
                [0.97, 1.0, 0.985]
                    .map(|f| f * 10.0 * f64::from(threads))
                    .to_vec(),
                None,
            ),
            triad_samples: Samples::new(
                [0.98, 0.99, 1.0]
                    .map(|f| f * 11.0 * f64::from(threads))
                    .to_vec(),
                None,
            ),
            elapsed_ns: delay.as_nanos() as u64,
            cut_short: false,
            verified: true,
        };
        DramBandwidth {
            single: run(1),
            all: Some(run(2)),
            plan,
        }
    }

    /// Nothing is sampled: the stand-in's figures are never distorted.
    fn load_sampler(&self, _: &Sysroot, _: &[u32], _: &CgroupLimits) -> Option<Sampler> {
        None
    }

    /// Nothing is probed: the stand-in's clock is not measured.
    fn clock_probe(&self, _: &[u32]) -> Option<crate::cpu_loop::mhz::ClockProbe> {
        None
    }

    fn busy_now(
        &self,
        _: &Sysroot,
        _: std::time::Duration,
        _: f64,
    ) -> Vec<crate::conditions::procs::ProcessShare> {
        Vec::new()
    }

    fn trial_seed(&self) -> u64 {
        STAND_IN_SEED
    }

    fn timed(
        &self,
        _live: &mut dyn FnMut() -> anyhow::Result<Rate>,
        stand_in: Rate,
    ) -> anyhow::Result<Rate> {
        Ok(stand_in)
    }
}

struct StandInStorage {
    advisories: Vec<Advisory>,
    direct_io: bool,
    file_bytes: u64,
    /// How many times each line has run.
    runs: RunCounts,
}

impl Storage for StandInStorage {
    fn watch_devices(&mut self, _: &[String]) {}

    fn advisories(&self) -> Vec<Advisory> {
        self.advisories.clone()
    }
    fn title_facts(&self) -> (bool, Option<String>) {
        (self.direct_io, None)
    }
    /// 1 job does 25,000 4k IO/s or 900 1M IO/s; up to 4 jobs scale it.
    fn run_line(
        &mut self,
        bs: BlockSize,
        dir: Direction,
        jobs: u32,
        delay: Duration,
    ) -> LineResult {
        let factor = self
            .runs
            .factor(format!("{} {} {jobs}", bs.label(), dir.label()));
        let iops = match bs {
            BlockSize::K4 => 25_000.0,
            BlockSize::M1 => 900.0,
        } * f64::from(jobs.min(4))
            * factor;
        let lat_us = f64::from(jobs) * 1e6 / iops;
        let ios = iops as u64;
        LineResult {
            bytes: ios * bs.bytes(),
            ios,
            elapsed_ns: 1_000_000_000,
            samples: stand_in_samples(iops, delay),
            mb_per_s: (ios * bs.bytes()) as f64 / 1e6,
            iops,
            lat_mean_us: lat_us,
            lat_p50_us: lat_us,
            lat_p90_us: lat_us,
            lat_p99_us: lat_us,
            lat_p999_us: lat_us,
            lat_max_us: lat_us,
            direct_io: self.direct_io,
            file_size_bytes: self.file_bytes,
            ..LineResult::empty(bs.bytes(), dir, jobs)
        }
    }
}
