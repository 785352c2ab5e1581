//! The runner: the report's sections in order, each measured through a
//! [`Measure`] chosen once ([`measure_for`]: the live system, or the
//! deterministic stand-in of the golden tests), each adding its part to the
//! [`Report`] and handing it to the [`Output`] as soon as it is known.
//!
//! The runner decides nothing about text: it says *what* is known
//! ([`Item`]), the renderers say how it reads. Messages for the user
//! (warnings, what to do) go to stderr through the [`Console`].

mod added;
mod cpu;
mod extended;
mod measure;
mod memory;
mod outputs;
mod rounds;
mod stand_in;
mod storage;
mod tenancy;

use std::io;
use std::time::Duration;

use crate::blockdev::{self, Target};
use crate::cli::{Config, Section};
use crate::conditions::{mark, Mark, MarkKind, Sampler, StepLoad};
use crate::cpu_loop;
use crate::model::{Report, TrialOrder};
use crate::report::Console;
use crate::sink::{Item, Output};
use crate::stats::rng::Rng;
use crate::sysinfo::cgroup::{self, CgroupLimits};
use crate::trials::{self, StepKind};
use crate::{plan, signals, sysinfo, Sysroot};

use crate::model::trials::TrialFigure;
pub use measure::{Live, Measure, Storage};
pub use outputs::outputs;
use rounds::{Budget, Countdown, Rounds};
pub use stand_in::StandIn;

/// Another process over this share of one CPU before the run starts is
/// named on stderr: a tenth of a CPU is a compile, a backup or a stuck
/// process, not an idle server's background (well under 5 %).
pub const BUSY_AT_START_PERCENT: f64 = 10.0;

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

/// The measure of this run, chosen once: the stand-in when the hidden
/// `--stand-in` asks for it, else the live system.
pub fn measure_for(cfg: &Config) -> Box<dyn Measure> {
    if cfg.stand_in {
        Box::new(StandIn::default())
    } else {
        Box::new(Live)
    }
}

/// The whole report, every section in report order, measured as `cfg`
/// says ([`measure_for`]) and handed to `out` as it goes: what the binary
/// runs.
pub fn report(cfg: &Config, out: &mut dyn Output, console: &Console) -> Result<Report, Stop> {
    let measure = measure_for(cfg);
    let mut run = Run::start(cfg, measure.as_ref(), out, console);
    run.header()?;
    run.cpu_info()?;
    run.cpu_loop()?;
    run.memory()?;
    run.storage_info()?;
    run.storage_bandwidth()?;
    run.extended()?;
    run.added()?;
    run.plan()?;
    run.finish()
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
    /// The CPUs' measured clock before the first CPU loop step.
    cold_clock: Option<crate::cpu_loop::mhz::ClockProbe>,
    /// The marks have been explained on stderr.
    marks_explained: bool,
    /// The kinds of mark whose advice stderr has given.
    advised: Vec<MarkKind>,
    /// What shuffles the rounds of the trials.
    rng: Rng,
    /// Trials within each loop delay (K), one for the whole run.
    per_delay: u32,
    /// What `--budget` leaves beyond the first pass, when given.
    budget: Option<Budget>,
    /// The last timed trial ran out of the cgroup's CPU quota: the next
    /// one waits for the quota to refill first.
    quota_spent: bool,
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
        // The added sections' steps are cut in trials as the others.
        .chain(
            crate::sections::added()
                .iter()
                .filter(|s| cfg.extended && sections.runs(s.section()))
                .map(|s| s.kind()),
        )
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
                cpu_loop_added: Vec::new(),
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
        let budget = cfg.budget.filter(|_| !cfg.dry_run).map(|b| {
            report.budget_s = Some(b.as_secs_f64());
            let steps = |s: Section, n: usize| if sections.runs(s) { n as u32 } else { 0 };
            let io = cfg.io_blocks.len() * 2 * cfg.io_jobs.len();
            let first = first_pass(
                cfg,
                StepKind::CpuLoop,
                steps(Section::Cpu, cpu_jobs(&sys).len()),
            ) + first_pass(cfg, StepKind::Memory, steps(Section::Memory, 1))
                + first_pass(cfg, StepKind::Storage, steps(Section::Io, io));
            Budget {
                pool: b.saturating_sub(time_left),
                first_left: first,
            }
        });
        let time_left = cfg.budget.map_or(time_left, |b| b.max(time_left));
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
            cold_clock: None,
            marks_explained: false,
            advised: Vec::new(),
            rng: Rng::new(seed),
            per_delay,
            budget,
            quota_spent: false,
        };
        for note in &run.limits.notes {
            console.warn(&format!("cgroup limits: {note}"));
        }
        run.report.limits = Some(run.limits.clone());
        run.check_host();
        // The header's Run line names the filesystem and device.
        if cfg.runs(Section::Storage) || cfg.runs(Section::Io) {
            run.target();
        }
        run
    }

    /// Reads the frequency settings and warns about those that lower or
    /// unsettle CPU figures; warns when other processes already keep the
    /// host busy (over [`BUSY_AT_START_PERCENT`] of a CPU over one
    /// second, or the loop delay when shorter), naming them.
    fn check_host(&mut self) {
        let freq = sysinfo::cpufreq::read_cpufreq(&self.sys);
        if let Some(f) = &freq {
            for x in f.findings(&self.sys) {
                self.console.warn(&format!(
                    "cpufreq: {}; for steady full-speed figures, as root: echo {} > {}",
                    x.what, x.fix, x.path
                ));
            }
        }
        self.report.cpufreq = freq;
        let wants_cpu = self.cfg.runs(Section::Cpu) || self.cfg.runs(Section::Memory);
        if !wants_cpu {
            return;
        }
        let window = self.cfg.loop_delay.min(std::time::Duration::from_secs(1));
        let busy = self
            .measure
            .busy_now(&self.sys, window, BUSY_AT_START_PERCENT);
        if !busy.is_empty() {
            let names: Vec<String> = busy
                .iter()
                .map(|p| {
                    format!(
                        "{} (pid {}, {:.0} % of a CPU)",
                        p.comm, p.pid, p.cpu_percent
                    )
                })
                .collect();
            self.console.warn(&format!(
                "the host is already busy: {} over the last {:.1} s; figures will be marked busy \
                 while they run",
                names.join(", "),
                window.as_secs_f64()
            ));
        }
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

    /// The progress display's name of `step` in `round`: with `--repeat`,
    /// which trial it is.
    fn trial_label(&self, step: &str, round: u32) -> String {
        match self.rounds() {
            n if round > n => format!("{step}, added trial {}", round - n),
            1 => step.to_string(),
            n => format!("{step}, trial {round}/{n}"),
        }
    }

    /// Under `--budget`, after the first pass of a section (`rounds`, its
    /// steps of `kind`): trials added one at a time to the step whose
    /// interval is widest against compare's margin
    /// ([`trials::spend_budget`]), within the section's share of the
    /// budget; `trial` runs step i's trial of round r (`None`: it failed,
    /// and said so). A Ctrl-C stops the added trials, as it stops rounds.
    fn spend<M: TrialFigure + Clone>(
        &mut self,
        rounds: &mut Rounds<M>,
        kind: StepKind,
        what: &str,
        mut trial: impl FnMut(&mut Self, usize, u32) -> Option<M>,
    ) -> Result<Vec<usize>, Stop> {
        let mut added = Vec::new();
        let Some(mut budget) = self.budget.take() else {
            return Ok(added);
        };
        let mut rates = rounds.rates();
        let allowance = budget.allowance(first_pass(self.cfg, kind, rates.len() as u32));
        let stops = if rounds.whole() {
            let cost = vec![self.trial_plan(kind).trial + kind.overhead(); rates.len()];
            let mut stop = None;
            let (stops, left) = trials::spend_budget(&mut rates, &cost, allowance, |i| {
                let round = rounds.next_round(i);
                let step = trial(self, i, round)?;
                added.push(i);
                let rate = step.main_figure();
                let interrupted = step.end().interrupted();
                rounds.add(i, round, step);
                match self.after_step(what, interrupted, false) {
                    Ok(false) => Some(rate),
                    Ok(true) => None,
                    Err(e) => {
                        stop = Some(e);
                        None
                    }
                }
            });
            budget.pool = budget.pool.saturating_sub(allowance - left);
            if let Some(e) = stop {
                return Err(e);
            }
            stops
        } else {
            vec![trials::BudgetStop::Interrupted; rates.len()]
        };
        self.budget = Some(budget);
        rounds.release(stops);
        Ok(added)
    }

    /// Whether a budget holds each section's steps until it is spent.
    fn budgeted(&self) -> bool {
        self.budget.is_some()
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
    fn sample(&mut self) -> Option<Sampler> {
        self.settle_quota();
        self.measure
            .load_sampler(&self.sys, &self.cpus, &self.limits)
    }

    /// Notes whether a trial's load ran out of the CPU quota.
    fn note_quota(&mut self, load: Option<&StepLoad>) {
        self.quota_spent = load
            .and_then(|l| l.throttle)
            .is_some_and(|t| t.throttled_periods > 0);
    }

    /// After a trial that ran out of the cgroup's CPU quota (a 2-job step
    /// under a 1-CPU quota does every period), waits one quota period: the
    /// cgroup stays throttled until the period ends, and a trial started
    /// in that remainder (the 1-job step, interleaved right after) would
    /// wait up to a period for nothing it did, and be marked throttled.
    fn settle_quota(&mut self) {
        if !std::mem::take(&mut self.quota_spent) {
            return;
        }
        if let Some(q) = &self.limits.cpu_quota {
            // The CFS period is 1 ms to 1 s.
            std::thread::sleep(Duration::from_micros(q.period_us.min(1_000_000)));
        }
    }

    /// Says once on stderr what the marks after a figure mean, and once
    /// per kind what to do about it.
    fn explain(&mut self, marks: &[Mark]) {
        if !marks.is_empty() && !self.marks_explained {
            self.marks_explained = true;
            self.console.warn(&mark::explanation());
        }
        for kind in marks.iter().map(Mark::kind) {
            if let Some(advice) = kind.advice().filter(|_| !self.advised.contains(&kind)) {
                self.advised.push(kind);
                self.console.warn(advice);
            }
        }
    }

    /// The header.
    pub fn header(&mut self) -> Result<(), Stop> {
        self.emit(Item::Header)
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

/// The first pass's time of `steps` steps of `kind`: each its loop delay
/// (and each storage line its rest), `--repeat` times.
fn first_pass(cfg: &Config, kind: StepKind, steps: u32) -> Duration {
    (cfg.loop_delay + kind.overhead()) * steps * cfg.repeat.max(1)
}

/// The least `--budget` this run takes: its first pass
/// ([`plan::budget_minimum`]).
pub fn budget_minimum(cfg: &Config) -> Duration {
    let sys = cfg.sysroot.clone().map(Sysroot::new).unwrap_or_default();
    plan::budget_minimum(&plan_input(cfg), cpu_jobs(&sys).len())
}

/// What makes this run bad usage before anything is measured: a
/// `--prometheus` path that cannot take the textfile, a `--budget` the
/// first pass already exceeds. The message says what to give instead.
pub fn check_before(cfg: &Config) -> Result<(), String> {
    if let Some(path) = &cfg.prometheus {
        if let Err(e) = crate::report::textfile::check_writable(path) {
            return Err(format!(
                "--prometheus {}: cannot write there: {e} (give a file in an existing, writable directory)",
                path.display()
            ));
        }
    }
    if let Some(budget) = cfg.budget.filter(|_| !cfg.dry_run) {
        let min = budget_minimum(cfg);
        if budget < min {
            return Err(format!(
                "--budget {}: less than this run's first pass of trials, which takes about {} \
                 (every timed step's loop delay, every storage line's rest): give at least \
                 --budget {}s, or a shorter loop delay, or fewer sections with --only",
                plan::human_duration(budget.as_secs_f64()),
                plan::human_duration(min.as_secs_f64()),
                min.as_secs()
            ));
        }
    }
    Ok(())
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
        budget: cfg.budget,
        device: cfg
            .device
            .as_ref()
            .map(|d| (d.path.clone(), d.destroy.is_some())),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::model::BlockSize;

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
                budget: None,
                device: None,
            }
        );
    }
}
