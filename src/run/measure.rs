//! What measures: the [`Measure`] of a run and its [`Storage`]
//! workspace, and the live system behind them.

use std::time::Duration;

use crate::conditions::procs::{busiest, ProcSnapshot, ProcessShare};
use crate::conditions::Sampler;
use crate::cpu_loop::mhz::{self, ClockProbe};
use crate::cpu_loop::smt::SmtContention;
use crate::cpu_loop::{self, LoopStep};
use crate::dd_io::{self, Advisory, Direction, IoConfig, IoSkip, LineResult};
use crate::membw::dram::{self, DramBandwidth};
use crate::membw::{self, DdBandwidth};
use crate::model::added::Rate;
use crate::model::BlockSize;
use crate::sysinfo::cgroup::CgroupLimits;
use crate::{signals, Sysroot};

/// Everything that measures. Each method returns plain data.
pub trait Measure {
    /// One CPU loop step of `jobs` jobs; `poll` is called every 10 ms or
    /// so while it runs (the step's sampler reads the CPUs' clock).
    fn cpu_step(&self, jobs: u32, delay: Duration, poll: &dyn Fn()) -> LoopStep;
    /// The dd-like memory bandwidth.
    fn memory_bandwidth(&self, sys: &Sysroot, delay: Duration) -> anyhow::Result<DdBandwidth>;
    /// Opens the storage workspace, or says why the sections cannot run.
    fn open_storage(&self, cfg: &IoConfig) -> Result<Box<dyn Storage>, IoSkip>;
    /// The SMT contention test of `-x`.
    fn smt_contention(&self, sys: &Sysroot, delay: Duration) -> SmtContention;
    /// The DRAM bandwidth of `-x`, its arrays within the cgroup `limits`.
    fn dram(&self, sys: &Sysroot, limits: &CgroupLimits, delay: Duration) -> DramBandwidth;
    /// Starts sampling what else the host did during a step (other
    /// processes, steal, cgroup throttling), if it can be read.
    fn load_sampler(&self, sys: &Sysroot, cpus: &[u32], limits: &CgroupLimits) -> Option<Sampler>;
    /// The seed of the shuffles of `--repeat`'s rounds.
    fn trial_seed(&self) -> u64;
    /// The measured clock of `cpus` ([`mhz::probe`]); `None` when nothing
    /// is probed (the stand-in).
    fn clock_probe(&self, cpus: &[u32]) -> Option<ClockProbe>;
    /// The other processes that used at least `percent` of a CPU during
    /// `window` from now, busiest first (empty for the stand-in).
    fn busy_now(&self, sys: &Sysroot, window: Duration, percent: f64) -> Vec<ProcessShare>;
    /// A timed figure of an added section (`sections::Measurer::timed`):
    /// `live` measured, or `stand_in`.
    fn timed(
        &self,
        live: &mut dyn FnMut() -> anyhow::Result<Rate>,
        stand_in: Rate,
    ) -> anyhow::Result<Rate>;
}

/// An open storage workspace.
pub trait Storage {
    /// What stderr should say before the lines run.
    fn advisories(&self) -> Vec<Advisory>;
    /// O_DIRECT reaching the device, and the memory filesystem measured.
    fn title_facts(&self) -> (bool, Option<String>);
    /// Runs one line.
    fn run_line(&mut self, bs: BlockSize, dir: Direction, jobs: u32, delay: Duration)
        -> LineResult;
    /// Samples the counters of these devices around each line.
    fn watch_devices(&mut self, devices: &[String]);
}

/// The live system.
pub struct Live;

impl Measure for Live {
    fn cpu_step(&self, jobs: u32, delay: Duration, poll: &dyn Fn()) -> LoopStep {
        cpu_loop::run_step(jobs, delay, &|| {
            poll();
            signals::stop_requested()
        })
    }

    fn memory_bandwidth(&self, sys: &Sysroot, delay: Duration) -> anyhow::Result<DdBandwidth> {
        membw::measure(sys, delay, &signals::stop_requested)
    }

    fn open_storage(&self, cfg: &IoConfig) -> Result<Box<dyn Storage>, IoSkip> {
        Ok(Box::new(dd_io::prepare(cfg)?))
    }

    fn smt_contention(&self, sys: &Sysroot, delay: Duration) -> SmtContention {
        cpu_loop::smt::measure(sys, delay, &signals::stop_requested)
    }

    fn dram(&self, sys: &Sysroot, limits: &CgroupLimits, delay: Duration) -> DramBandwidth {
        dram::measure(sys, limits, delay, &signals::stop_requested)
    }

    fn load_sampler(&self, sys: &Sysroot, cpus: &[u32], limits: &CgroupLimits) -> Option<Sampler> {
        Sampler::start(sys, cpus, limits).ok()
    }

    fn clock_probe(&self, cpus: &[u32]) -> Option<ClockProbe> {
        Some(mhz::probe(cpus, mhz::PER_CPU))
    }

    fn busy_now(&self, sys: &Sysroot, window: Duration, percent: f64) -> Vec<ProcessShare> {
        let own = std::process::id();
        let t0 = std::time::Instant::now();
        let before = ProcSnapshot::take(sys, own);
        std::thread::sleep(window);
        let after = ProcSnapshot::take(sys, own);
        let ticks = crate::conditions::load::clock_ticks_per_s();
        let elapsed = t0.elapsed().as_nanos() as u64;
        let mut v = busiest(&before, &after, elapsed, ticks);
        v.retain(|p| p.cpu_percent >= percent);
        v
    }

    fn timed(
        &self,
        live: &mut dyn FnMut() -> anyhow::Result<Rate>,
        _stand_in: Rate,
    ) -> anyhow::Result<Rate> {
        live()
    }

    /// The clock's nanoseconds: another order each run. Kept below 2^53 so
    /// that the JSON's readers (doubles, in JavaScript or jq) read it
    /// exactly.
    fn trial_seed(&self) -> u64 {
        crate::clock::unix_now_ns() & ((1 << 53) - 1)
    }
}

impl Storage for dd_io::Workspace {
    fn advisories(&self) -> Vec<Advisory> {
        dd_io::Workspace::advisories(self).to_vec()
    }
    fn title_facts(&self) -> (bool, Option<String>) {
        let (direct, fs) = dd_io::Workspace::title_facts(self);
        (direct, fs.map(str::to_string))
    }
    fn run_line(
        &mut self,
        bs: BlockSize,
        dir: Direction,
        jobs: u32,
        delay: Duration,
    ) -> LineResult {
        dd_io::Workspace::run_line(self, bs.bytes(), dir, jobs, delay, signals::stop_flag())
    }
    fn watch_devices(&mut self, devices: &[String]) {
        self.set_stat_devices(devices);
    }
}
