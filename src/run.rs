//! The runner: the report's sections in order, each measured through a
//! [`Measure`] chosen once ([`measure_for`]: the live system, or the
//! deterministic stand-in of the golden tests), each adding its part to the
//! [`Report`] and handing it to the [`Output`] as soon as it is known.
//!
//! The runner decides nothing about text: it says *what* is known
//! ([`Item`]), the renderers say how it reads. Messages for the user
//! (warnings, what to do) go to stderr through the [`Console`].

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::time::Duration;

use crate::blockdev::{self, Target};
use crate::cli::{Config, Section};
use crate::conditions::io::{other_io, OurIo};
use crate::conditions::{
    mark, reach, Conditions, CpuConditions, LineConditions, Mark, Sampler, Step,
};
use crate::cpu_loop::smt::{SmtPlan, SmtProbe};
use crate::cpu_loop::{self, LoopStep};
use crate::dd_io::{self, Advisory, Direction, IoConfig, IoSkip, LineResult};
use crate::end::End;
use crate::membw::dram::{self, DramBandwidth, DramRun};
use crate::membw::{self, DdBandwidth};
use crate::model::trials::{LineKey, StorageRounds, TrialFigure};
use crate::model::{
    BlockSize, CpuInfo, CpuTrial, Extended, IoSetup, IoTrial, Memory, MemoryTrial, Repeated,
    Report, Trial, TrialOrder,
};
use crate::report::Console;
use crate::samples::{self, Samples};
use crate::sink::{Item, Output};
use crate::stats::rng::Rng;
use crate::sysinfo::cgroup::{self, CgroupLimits};
use crate::trials::{self, StepKind};
use crate::{plan, signals, sysinfo, Sysroot};

/// Why the run stopped early.
#[derive(Debug)]
pub enum Stop {
    /// A signal aborted it (second Ctrl-C, SIGTERM, SIGHUP).
    Aborted(i32),
    /// stdout was closed (`quickbench | head -3`).
    BrokenPipe,
    /// Any other error, printed with its chain.
    Error(anyhow::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Stop::BrokenPipe
        } else {
            Stop::Error(anyhow::Error::new(e).context("writing the report"))
        }
    }
}

/// Everything that measures. Each method returns plain data.
pub trait Measure {
    /// One CPU loop step of `jobs` jobs; `poll` is called every 10 ms or
    /// so while it runs (the step's sampler reads the CPUs' clock).
    fn cpu_step(&self, jobs: u32, delay: Duration, poll: &dyn Fn()) -> LoopStep;
    /// The dd-like memory bandwidth.
    fn memory_bandwidth(&self, sys: &Sysroot, delay: Duration) -> anyhow::Result<DdBandwidth>;
    /// Opens the storage workspace, or says why the sections cannot run.
    fn open_storage(&self, cfg: &IoConfig) -> Result<Box<dyn Storage>, IoSkip>;
    /// The SMT probe of `-x`.
    fn smt_probe(&self, sys: &Sysroot, delay: Duration) -> SmtProbe;
    /// The DRAM bandwidth of `-x`, its arrays within the cgroup `limits`.
    fn dram(&self, sys: &Sysroot, limits: &CgroupLimits, delay: Duration) -> DramBandwidth;
    /// Starts sampling what else the host did during a step (other
    /// processes, steal, cgroup throttling), if it can be read.
    fn load_sampler(&self, sys: &Sysroot, cpus: &[u32], limits: &CgroupLimits) -> Option<Sampler>;
    /// The seed of the shuffles of `--repeat`'s rounds.
    fn trial_seed(&self) -> u64;
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

/// The measure of this run, chosen once: the stand-in when the hidden
/// `--fake-figures` asks for it, else the live system.
pub fn measure_for(cfg: &Config) -> Box<dyn Measure> {
    if cfg.fake_figures {
        Box::new(StandIn::default())
    } else {
        Box::new(Live)
    }
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

    fn smt_probe(&self, sys: &Sysroot, delay: Duration) -> SmtProbe {
        cpu_loop::smt::probe(sys, delay, &signals::stop_requested)
    }

    fn dram(&self, sys: &Sysroot, limits: &CgroupLimits, delay: Duration) -> DramBandwidth {
        dram::measure(sys, limits, delay, &signals::stop_requested)
    }

    fn load_sampler(&self, sys: &Sysroot, cpus: &[u32], limits: &CgroupLimits) -> Option<Sampler> {
        Sampler::start(sys, cpus, limits).ok()
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

/// Deterministic stand-in figures (`--fake-figures`), for the golden
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

    fn smt_probe(&self, _: &Sysroot, _: Duration) -> SmtProbe {
        SmtProbe {
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

    fn trial_seed(&self) -> u64 {
        STAND_IN_SEED
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

/// Time left in the run, for the progress display: the timed runs (every
/// trial of every step) not yet started.
struct Countdown {
    left: Duration,
}

impl Countdown {
    /// A run of `time` starts: what is left, this run included.
    fn start(&mut self, time: Duration) -> Duration {
        let left = self.left.max(time);
        self.left = self.left.saturating_sub(time);
        left
    }
}

/// One run of the report, section by section.
pub struct Run<'a> {
    cfg: &'a Config,
    sys: Sysroot,
    release: String,
    measure: &'a dyn Measure,
    out: &'a mut dyn Output,
    console: &'a Console,
    report: Report,
    countdown: Countdown,
    /// The storage behind the benchmark directory, resolved once.
    target: Option<Option<Target>>,
    /// The cgroup limits of this process.
    limits: CgroupLimits,
    /// The CPUs this process may run on.
    cpus: Vec<u32>,
    /// The marks have been explained on stderr.
    marks_explained: bool,
    /// What shuffles the rounds of the trials.
    rng: Rng,
    /// Trials within each loop delay (K), one for the whole run.
    per_delay: u32,
}

impl<'a> Run<'a> {
    /// Starts a run: checks what it needs and warns on stderr.
    pub fn start(
        cfg: &'a Config,
        measure: &'a dyn Measure,
        out: &'a mut dyn Output,
        console: &'a Console,
    ) -> Run<'a> {
        let sys = cfg.sysroot.clone().map(Sysroot::new).unwrap_or_default();
        let uname = sysinfo::uname(&sys);
        let mut report = Report::new(uname.line(), uname.nodename.clone());
        report.timestamp_utc = Some(crate::report::json::rfc3339_utc(crate::clock::unix_now_s()));
        report.loop_delay_s = Some(cfg.loop_delay.as_secs_f64());
        report.sections = cfg.sections.clone();
        // Live, the directory as the kernel resolves it (`.` says little in
        // a report read elsewhere); in a dump, as given. The plan names it
        // from the report.
        let dir = match blockdev::real_dir(&sys, &cfg.dir) {
            Ok(real) if sys.is_live() => real,
            _ => cfg.dir.clone(),
        };
        report.dir = Some(dir.display().to_string());
        report.dry_run = cfg.dry_run;
        report.repeat = cfg.repeat;
        let sections = plan_input(cfg);
        let kinds: Vec<StepKind> = [
            (Section::Cpu, StepKind::CpuLoop),
            (Section::Memory, StepKind::Memory),
            (Section::Io, StepKind::Storage),
        ]
        .into_iter()
        .filter(|(s, _)| sections.runs(*s))
        .map(|(_, k)| k)
        .collect();
        let per_delay = trials::run_trials(&kinds, cfg.loop_delay, cfg.trials);
        if !cfg.dry_run {
            report.trials_per_delay = per_delay;
        }
        let seed = measure.trial_seed();
        if report.trials_per_step() > 1 && !cfg.dry_run {
            report.trial_order = Some(TrialOrder {
                seed,
                cpu_loop: Vec::new(),
                storage_bandwidth: Vec::new(),
            });
        }
        if !cfg.dry_run && cfg.loop_delay.as_secs_f64() < crate::cli::ADVISED_DELAY_S {
            console.warn(&format!(
                "warning: a loop delay under {} s may give unreliable results; use at least {} s for meaningful figures",
                crate::cli::ADVISED_DELAY_S,
                crate::cli::DEFAULT_DELAY_S
            ));
        }
        for (dir, probe, fix) in [
            ("/proc", "/proc/self", "mount -t proc proc /proc"),
            ("/sys", "/sys/devices", "mount -t sysfs sysfs /sys"),
            ("/dev", "/dev/null", "mount -t devtmpfs devtmpfs /dev"),
        ] {
            if sys.is_live() && !sys.exists(probe) {
                console.warn(&format!(
                    "{} is not mounted (no {}): CPU info, memory and storage need it; as root: {fix}",
                    sys.path(dir).display(),
                    sys.path(probe).display()
                ));
            }
        }
        let time_left = if cfg.dry_run {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(plan::estimate(&sections, cpu_jobs(&sys).len()).run_s)
        };
        let limits = cgroup::read_limits(&sys);
        let cpus = crate::cpu_loop::smt::usable_cpu_list(&sys);
        let mut run = Run {
            cfg,
            release: uname.release,
            sys,
            measure,
            out,
            console,
            report,
            countdown: Countdown { left: time_left },
            target: None,
            limits,
            cpus,
            marks_explained: false,
            rng: Rng::new(seed),
            per_delay,
        };
        for note in &run.limits.notes {
            console.warn(&format!("cgroup limits: {note}"));
        }
        run.report.limits = Some(run.limits.clone());
        // The header's Run line names the filesystem and device.
        if cfg.runs(Section::Storage) || cfg.runs(Section::Io) {
            run.target();
        }
        run
    }

    fn emit(&mut self, item: Item) -> Result<(), Stop> {
        self.out.item(&self.report, item).map_err(Stop::from)
    }

    /// Checks for an abort after a step (or a trial), and clears a
    /// one-time cut; says whether Ctrl-C cut it. `rounds_left`: rounds of
    /// `--repeat` remain in its section, which a cut skips.
    fn after_step(&self, what: &str, cut_short: bool, rounds_left: bool) -> Result<bool, Stop> {
        if let Some(sig) = signals::abort_signal() {
            return Err(Stop::Aborted(sig));
        }
        let cut = cut_short || signals::cut_requested();
        if cut {
            let skipped = if rounds_left {
                "; the rounds left of its section are skipped"
            } else {
                ""
            };
            self.console.warn(&format!(
                "{what} cut short by Ctrl-C (its figure covers the time it ran){skipped}; \
                 press Ctrl-C twice within 2 s to abort"
            ));
        }
        signals::clear_cut();
        Ok(cut)
    }

    /// Trials of each step in all: `--repeat` rounds of the trials within
    /// a delay.
    fn rounds(&self) -> u32 {
        self.cfg.repeat.max(1) * self.per_delay
    }

    /// How a step of `kind` spends its loop delay in this run.
    fn trial_plan(&self, kind: StepKind) -> trials::TrialPlan {
        trials::plan_with(kind, self.cfg.loop_delay, self.per_delay)
    }

    /// The progress display's name of `step` in `round`: with trials,
    /// which trial it is.
    fn trial_label(&self, step: &str, round: u32) -> String {
        match self.rounds() {
            1 => step.to_string(),
            n => format!("{step}, trial {round}/{n}"),
        }
    }

    /// The order of a round of `steps` steps (indexes in report order):
    /// shuffled with trials (Fisher–Yates, Knuth's Algorithm P, TAOCP
    /// vol. 2, 3.4.2), the report's order without them or when `fixed`.
    fn round_order(&mut self, steps: usize, fixed: bool) -> Vec<usize> {
        let mut order: Vec<usize> = (0..steps).collect();
        if self.rounds() > 1 && !fixed {
            for i in (1..steps).rev() {
                let j = self.rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
        }
        order
    }

    fn progress(&mut self, section: &str, step: &str, time: Duration) {
        let left = self.countdown.start(time);
        self.console.progress().step(section, step, time, left);
    }

    /// Starts sampling the host's load around a step.
    fn sample(&self) -> Option<Sampler> {
        self.measure
            .load_sampler(&self.sys, &self.cpus, &self.limits)
    }

    /// Says once on stderr what the marks after a figure mean.
    fn explain(&mut self, marks: &[Mark]) {
        if marks.is_empty() || self.marks_explained {
            return;
        }
        self.marks_explained = true;
        self.console.warn(&mark::explanation());
    }

    /// The header.
    pub fn header(&mut self) -> Result<(), Stop> {
        self.emit(Item::Header)
    }

    /// `[ CPU info ]`.
    pub fn cpu_info(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Cpuinfo) {
            return Ok(());
        }
        let summary = sysinfo::cpu::read_summary(&self.sys);
        for note in &summary.notes {
            self.console.warn(&format!("CPU info: {note}"));
        }
        let info = CpuInfo::from_summary(summary);
        if info.lines.is_empty() {
            let why = format!(
                "no CPU found in {} (is /proc mounted?)",
                self.sys.path("/proc/cpuinfo").display()
            );
            self.console.warn(&format!("CPU info: {why}"));
            self.report.failed_sections.add(Section::Cpuinfo, why);
        }
        self.report.cpu_info = Some(info);
        self.emit(Item::CpuInfo)
    }

    /// `[ CPU loop ]`: 1, 2, 4 ... jobs, up to the CPUs this process may
    /// use; with `--repeat N`, N rounds of every step, each round in its
    /// own shuffled order.
    pub fn cpu_loop(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Cpu) || self.cfg.dry_run {
            return Ok(());
        }
        self.emit(Item::CpuLoopTitle)?;
        let jobs = cpu_jobs(&self.sys);
        let mut rounds = Rounds::new(jobs.len(), self.rounds());
        let mut round = 1;
        while round <= rounds.last {
            let order = self.round_order(jobs.len(), false);
            if let Some(o) = &mut self.report.trial_order {
                o.cpu_loop.push(order.iter().map(|&i| jobs[i]).collect());
            }
            for i in order {
                let step = self.cpu_trial(jobs[i], round);
                let rounds_left = round < rounds.last;
                if self.after_step("CPU loop step", step.end.interrupted(), rounds_left)? {
                    rounds.cut(round);
                }
                rounds.add(i, round, step);
                for step in rounds.ready() {
                    self.report.cpu_loop.push(step);
                    self.emit(Item::CpuStep(self.report.cpu_loop.len() - 1))?;
                }
            }
            round += 1;
        }
        Ok(())
    }

    /// One run of the CPU loop step of `jobs` jobs, with its conditions.
    fn cpu_trial(&mut self, jobs: u32, round: u32) -> CpuTrial {
        let label = self.trial_label(&format!("{jobs} // jobs"), round);
        let time = self.trial_plan(StepKind::CpuLoop).trial;
        self.progress("CPU loop", &label, time);
        // One sampler: the load the marks judge and the clock of -x.
        let sampler = self.sample().map(Sampler::with_clock);
        let poll = || sampler.iter().for_each(Sampler::poll);
        let figure = self.measure.cpu_step(jobs, time, &poll);
        let sample = sampler.map(|s| s.finish(f64::from(jobs)));
        let step = CpuTrial {
            figure,
            marks: mark::marks(Step::Cpu, sample.as_ref().map(|s| &s.load), None),
            conditions: CpuConditions {
                clock: sample.as_ref().and_then(|s| s.clock),
                load: sample.map(|s| s.load),
            },
        };
        self.explain(&step.marks);
        step
    }

    /// `[ Memory ]`: the total, then the dd-like bandwidth.
    pub fn memory(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Memory) {
            return Ok(());
        }
        let total = match sysinfo::mem_total_kib(&self.sys) {
            Ok(kib) => Some(kib),
            Err(e) => {
                self.console.warn(&format!("memory: {e:#}"));
                self.report
                    .failed_sections
                    .add(Section::Memory, format!("{e:#}"));
                None
            }
        };
        self.report.memory = Some(Memory {
            mem_total_kib: total,
            dd_bandwidth: None,
        });
        self.emit(Item::MemoryTotal)?;
        if self.cfg.dry_run {
            return Ok(());
        }
        // With --repeat, its trials one after the other: no other step of
        // its section to interleave with.
        let mut rounds = Rounds::new(1, self.rounds());
        let time = self.trial_plan(StepKind::Memory).trial;
        let mut round = 1;
        while round <= rounds.last {
            let label = self.trial_label("Bandwidth", round);
            self.progress("Memory", &label, time);
            let sampler = self.sample();
            match self.measure.memory_bandwidth(&self.sys, time) {
                Ok(figure) => {
                    let load = sampler.map(|s| s.finish(1.0).load);
                    let bw = MemoryTrial {
                        figure,
                        marks: mark::marks(Step::Memory, load.as_ref(), None),
                        conditions: Conditions { load },
                    };
                    self.explain(&bw.marks);
                    let rounds_left = round < rounds.last;
                    if self.after_step("memory bandwidth", bw.end.interrupted(), rounds_left)? {
                        rounds.cut(round);
                    }
                    rounds.add(0, round, bw);
                }
                Err(e) => {
                    self.console.warn(&format!("memory bandwidth: {e:#}"));
                    self.report
                        .failed_sections
                        .add(Section::Memory, format!("{e:#}"));
                    // The trials done, if any, are the step.
                    rounds.cut(round - 1);
                }
            }
            round += 1;
        }
        if let (Some(bw), Some(m)) = (rounds.ready().pop(), &mut self.report.memory) {
            m.dd_bandwidth = Some(bw);
        }
        self.emit(Item::MemoryBandwidth)
    }

    /// The storage behind the benchmark directory, resolved once (for the
    /// stack, the bandwidth titles and the plan).
    fn target(&mut self) -> Option<Target> {
        if self.target.is_none() {
            let t = match blockdev::resolve_dir(&self.sys, &self.cfg.dir) {
                Ok(t) => Some(t),
                Err(e) => {
                    self.console.warn(&format!("storage: {e:#}"));
                    self.report
                        .failed_sections
                        .add(Section::Storage, format!("{e:#}"));
                    None
                }
            };
            self.report.storage_target = t.clone();
            self.target = Some(t);
        }
        self.target.clone().flatten()
    }

    /// `[ Storage info ]`, and `[ Storage device stack ]` when stacked.
    pub fn storage_info(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Storage) {
            return Ok(());
        }
        self.report.storage_info = Some(blockdev::storage_table(&self.sys));
        self.emit(Item::StorageInfo)?;
        let stack = self
            .target()
            .and_then(|t| blockdev::device_stack(&self.sys, &t));
        if let Some(stack) = stack {
            self.report.storage_stack = Some(stack);
            self.emit(Item::StorageStack)?;
        }
        Ok(())
    }

    /// The two `[ Storage bandwidth ]` sections: writes then reads with
    /// each job count, 4k then 1M.
    pub fn storage_bandwidth(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Io) || self.cfg.dry_run {
            return Ok(());
        }
        let target = self.target();
        let io_cfg = IoConfig {
            dir: self.cfg.dir.clone(),
            max_size_bytes: self.cfg.max_size_bytes,
            sysroot: self.sys.clone(),
            stat_dev: target.as_ref().and_then(|t| match t.devices.as_slice() {
                [one] => Some(one.clone()),
                _ => None,
            }),
            max_jobs: self.cfg.io_jobs.iter().copied().max().unwrap_or(1),
            target: target.clone(),
        };
        let mut ws = match self.measure.open_storage(&io_cfg) {
            Ok(ws) => ws,
            Err(skip) => {
                self.report.storage_bandwidth_skipped = Some(skip.reason.clone());
                self.emit(Item::StorageSkipped)?;
                self.console
                    .warn(&format!("storage bandwidth: {}", skip.reason));
                self.report.failed_sections.add(Section::Io, skip.reason);
                return Ok(());
            }
        };
        for a in ws.advisories() {
            self.console.warn(&format!("storage bandwidth: {a}"));
        }
        // Every device under the target (through a FUSE mount, the local
        // filesystem behind it): their counters say whether our bytes
        // reached them and what I/O was not ours.
        let layout = target.as_ref().map(|t| {
            let fuse = blockdev::fuse_backing(&self.sys, t);
            blockdev::check_layout(&self.sys, t, &fuse)
        });
        if let Some(l) = &layout {
            ws.watch_devices(&l.leaf_names());
        }
        let (direct_io, memory_fs) = ws.title_facts();
        self.report.storage_io = Some(IoSetup {
            remote: target
                .as_ref()
                .is_some_and(|t| t.kind == blockdev::TargetKind::Network),
            device: Some(target.map_or_else(|| "unknown device".into(), |t| t.display)),
            memory_fs,
            direct_io,
        });
        let mut errors = 0;
        let blocks = BlockSize::ALL
            .into_iter()
            .filter(|b| self.cfg.io_blocks.contains(b));
        let lines: Vec<LineKey> = [Direction::Write, Direction::Read]
            .into_iter()
            .flat_map(|direction| {
                self.cfg
                    .io_jobs
                    .iter()
                    .map(move |&jobs| LineKey { direction, jobs })
            })
            .collect();
        for bs in blocks {
            self.emit(Item::BandwidthTitle(bs))?;
            let mut rounds = Rounds::new(lines.len(), self.rounds());
            let mut orders = Vec::new();
            let mut round = 1;
            while round <= rounds.last {
                // Round 1 writes before it reads (reads only touch blocks
                // written); later rounds read what round 1 wrote.
                let order = self.round_order(lines.len(), round == 1);
                orders.push(order.iter().map(|&i| lines[i]).collect());
                for i in order {
                    let line = self.io_trial(ws.as_mut(), layout.as_ref(), bs, lines[i], round);
                    let rounds_left = round < rounds.last;
                    let interrupted = line.end.interrupted();
                    if self.after_step("storage bandwidth line", interrupted, rounds_left)? {
                        rounds.cut(round);
                    }
                    rounds.add(i, round, line);
                    for line in rounds.ready() {
                        errors += usize::from(line.end.error().is_some());
                        self.report.storage_bandwidth.push(line);
                        self.emit(Item::BandwidthLine(self.report.storage_bandwidth.len() - 1))?;
                    }
                }
                round += 1;
            }
            if let Some(o) = &mut self.report.trial_order {
                o.storage_bandwidth.push(StorageRounds {
                    block_size_bytes: bs.bytes(),
                    rounds: orders,
                });
            }
        }
        drop(ws);
        if errors > 0 {
            let reason = format!("{errors} line(s) stopped early (marked in the report)");
            self.console.warn(&format!("storage bandwidth: {reason}"));
            self.report.storage_bandwidth_skipped = Some(reason.clone());
            self.report.failed_sections.add(Section::Io, reason);
        }
        Ok(())
    }

    /// One run of storage line `key` of block size `bs`, with its
    /// conditions (load, other I/O, reach against `layout`); says on
    /// stderr when an error stopped it.
    fn io_trial(
        &mut self,
        ws: &mut dyn Storage,
        layout: Option<&blockdev::DeviceLayout>,
        bs: BlockSize,
        key: LineKey,
        round: u32,
    ) -> IoTrial {
        let LineKey { direction, jobs } = key;
        let label = self.trial_label(&format!("{} ({jobs} thread[s])", direction.label()), round);
        let time = self.trial_plan(StepKind::Storage).trial;
        self.progress(&format!("Storage bandwidth {}", bs.label()), &label, time);
        let sampler = self.sample();
        let figure = ws.run_line(bs, direction, jobs, time);
        let needed = f64::from(jobs.min(self.cpus.len().max(1) as u32));
        let mut load = sampler.map(|s| s.finish(needed).load).unwrap_or_default();
        let deltas: Vec<(String, crate::blockdev::BlockStat)> = figure
            .device_deltas
            .iter()
            .map(|d| (d.device.clone(), d.delta))
            .collect();
        load.io = other_io(&OurIo::of_line(&figure), &deltas);
        let reach = layout.map(|layout| reach::judge_line(&figure, layout));
        let line = IoTrial {
            marks: mark::marks(Step::Storage, Some(&load), reach.as_ref()),
            conditions: LineConditions {
                load: Some(load),
                reach,
            },
            figure,
        };
        self.explain(&line.marks);
        if let Some(e) = line.end.error() {
            let hint = match line.end.errno() {
                Some(errno) => format!("; {}", dd_io::errno_hint(Some(errno))),
                None => String::new(),
            };
            let trial = match self.rounds() {
                1 => String::new(),
                n => format!(", trial {round} of {n}"),
            };
            self.console.warn(&format!(
                "storage bandwidth ({}, {jobs} job(s){trial}): {e}{hint}",
                bs.label()
            ));
        }
        line
    }

    /// The sections of `--extended`, after the standard report.
    pub fn extended(&mut self) -> Result<(), Stop> {
        if !self.cfg.extended || self.cfg.dry_run {
            return Ok(());
        }
        self.report.extended = Some(Extended::default());
        if self.cfg.runs(Section::Cpu) {
            self.progress("Extended: CPU", "SMT probe", self.cfg.loop_delay);
            let sampler = self.sample();
            let probe = self.measure.smt_probe(&self.sys, self.cfg.loop_delay);
            // Two jobs at a time, on two CPUs.
            let load = sampler.map(|s| s.finish(2.0).load);
            self.explain(&mark::marks(Step::Cpu, load.as_ref(), None));
            self.after_step("SMT probe", probe.cut_short, false)?;
            if let Some(x) = &mut self.report.extended {
                x.smt_probe = Some(probe);
                x.smt_probe_load = load;
            }
            self.emit(Item::ExtendedCpu)?;
        }
        if self.cfg.runs(Section::Memory) {
            self.progress(
                "Extended: Memory",
                "DRAM copy and triad",
                self.cfg.loop_delay * 2,
            );
            let sampler = self.sample();
            let dram = self
                .measure
                .dram(&self.sys, &self.limits, self.cfg.loop_delay);
            // The all-CPU run needs every CPU.
            let load = sampler.map(|s| s.finish(self.cpus.len().max(1) as f64).load);
            self.explain(&mark::marks(Step::Memory, load.as_ref(), None));
            let cut = dram.single.cut_short || dram.all.as_ref().is_some_and(|r| r.cut_short);
            self.after_step("DRAM bandwidth", cut, false)?;
            if let Some(x) = &mut self.report.extended {
                x.dram = Some(dram);
                x.dram_load = load;
            }
            self.emit(Item::ExtendedMemory)?;
        }
        if self.cfg.runs(Section::Io) || self.cfg.runs(Section::Storage) {
            let devices = self.target().map(|t| t.devices).unwrap_or_default();
            let details = devices
                .iter()
                .map(|d| blockdev::details::device_details(&self.sys, d))
                .collect();
            if let Some(x) = &mut self.report.extended {
                x.device_details = details;
            }
            self.emit(Item::ExtendedStorage)?;
        }
        Ok(())
    }

    /// `[ Plan ]` of `--dry-run`: what a full run would do.
    pub fn plan(&mut self) -> Result<(), Stop> {
        if !self.cfg.dry_run {
            return Ok(());
        }
        let target = if self.cfg.runs(Section::Io) || self.cfg.runs(Section::Storage) {
            self.target()
        } else {
            None
        };
        let steps = cpu_jobs(&self.sys).len();
        self.report.plan = Some(plan::build(
            &plan_input(self.cfg),
            target.as_ref(),
            &self.release,
            steps,
            &self.sys,
            &self.limits,
            self.report.dir.as_deref().unwrap_or_default(),
        ));
        self.emit(Item::Plan)
    }

    /// Ends the run: the progress display stops, the outputs finish, and
    /// the report is handed back.
    pub fn finish(self) -> Result<Report, Stop> {
        self.console.progress().idle();
        self.out.finish(&self.report)?;
        Ok(self.report)
    }
}

/// Job counts of the CPU loop steps.
fn cpu_jobs(sys: &Sysroot) -> Vec<u32> {
    cpu_loop::job_counts(sysinfo::usable_cpus(sys))
}

/// What the plan needs of the command line.
fn plan_input(cfg: &Config) -> plan::PlanInput {
    plan::PlanInput {
        dir: cfg.dir.clone(),
        sections: cfg.sections.clone(),
        extended: cfg.extended,
        loop_delay: cfg.loop_delay,
        io_blocks: cfg.io_blocks.clone(),
        io_jobs: cfg.io_jobs.clone(),
        max_size_bytes: cfg.max_size_bytes,
        repeat: cfg.repeat,
    }
}

/// The trials of one section's steps while its rounds run, and which
/// steps are done, so that each step's line goes out, in report order, as
/// soon as its last trial has run.
struct Rounds<M> {
    /// Trials of each step, in report order.
    trials: Vec<Vec<Trial<M>>>,
    /// The section's last round: N, or the round that a Ctrl-C cut.
    last: u32,
    /// Trials asked for (`--repeat`).
    repeat: u32,
    /// Steps handed out so far.
    done: usize,
}

impl<M: TrialFigure + Clone> Rounds<M> {
    fn new(steps: usize, repeat: u32) -> Self {
        Rounds {
            trials: vec![Vec::new(); steps],
            last: repeat,
            repeat,
            done: 0,
        }
    }

    /// Step `i` ran in `round`.
    fn add(&mut self, i: usize, round: u32, step: M) {
        self.trials[i].push(Trial { round, step });
    }

    /// No round after `round` runs.
    fn cut(&mut self, round: u32) {
        self.last = self.last.min(round);
    }

    /// The steps, in report order, whose last round has run and that were
    /// not handed out yet. Without `--repeat`, a step is its one run.
    fn ready(&mut self) -> Vec<Repeated<M>> {
        let mut out = Vec::new();
        while let Some(t) = self.trials.get_mut(self.done) {
            if t.last().map(|t| t.round) != Some(self.last) {
                break;
            }
            let trials = std::mem::take(t);
            out.push(match self.repeat {
                1 => Repeated::once(trials.into_iter().next().expect("one trial").step),
                _ => Repeated::of_trials(trials),
            });
            self.done += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut r = Rounds::new(3, 2);
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
        assert_eq!(out, [0.0, 1.0], "the lower medians of steps 0 and 1");
        r.add(2, 2, cpu(30.0));
        let out = r.ready();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].trials.len(), 2);
        assert!(r.ready().is_empty(), "handed out once");
    }

    #[test]
    fn a_cut_makes_its_round_the_last() {
        let mut r = Rounds::new(2, 3);
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
        let mut r = Rounds::new(1, 1);
        r.add(0, 1, cpu(5.0));
        let out = r.ready();
        assert!(out[0].trials.is_empty() && out[0].median_trial.is_none());
        // No run at all (the memory step failed in round 1): no step.
        let mut r: Rounds<CpuTrial> = Rounds::new(1, 2);
        r.cut(0);
        assert!(r.ready().is_empty());
    }

    #[test]
    fn rounds_are_shuffled_only_with_repeat() {
        let cfg = crate::cli::parse(["quickbench", "--repeat", "4"]).unwrap();
        let once = crate::cli::parse(["quickbench"]).unwrap();
        let mut out = Vec::new();
        let console = Console::new(crate::progress::Progress::disabled());
        let measure = StandIn::default();
        let mut run = Run::start(&cfg, &measure, &mut out, &console);
        let orders: Vec<Vec<usize>> = (0..8).map(|_| run.round_order(6, false)).collect();
        for o in &orders {
            let mut sorted = o.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..6).collect::<Vec<_>>(), "a permutation");
        }
        assert!(orders.iter().any(|o| *o != orders[0]), "{orders:?}");
        assert_eq!(run.round_order(6, true), (0..6).collect::<Vec<_>>());
        let mut out = Vec::new();
        let mut run = Run::start(&once, &measure, &mut out, &console);
        assert_eq!(run.round_order(6, false), (0..6).collect::<Vec<_>>());
    }

    #[test]
    fn the_plan_reads_what_the_command_line_asked() {
        let cfg = crate::cli::parse([
            "quickbench",
            "2.5",
            "-x",
            "--dir",
            "/srv",
            "--only",
            "cpu,io",
            "--max-size",
            "512M",
            "--repeat",
            "3",
        ])
        .unwrap();
        assert_eq!(
            plan_input(&cfg),
            plan::PlanInput {
                dir: "/srv".into(),
                sections: vec![Section::Cpu, Section::Io],
                extended: true,
                loop_delay: Duration::from_millis(2500),
                io_blocks: vec![BlockSize::K4, BlockSize::M1],
                io_jobs: vec![1, 4, 16],
                max_size_bytes: 512 << 20,
                repeat: 3,
            }
        );
    }
}
