//! quickbench: one command, the Quickbench report of this host.
//!
//! This file reads like the report: header, CPU info, CPU loop, memory,
//! storage info, storage bandwidth. The measuring modules return plain
//! structs; `report` turns them into lines; stdout gets nothing else.

use std::io::{self, Write};
use std::process::ExitCode;

use quickbench::cli::{self, Config, Section};
use quickbench::report::{self, Header, Report};
use quickbench::{blockdev, cpu_loop, membw, plan, signals, sysinfo, Sysroot};

/// Why the run stopped early.
#[derive(Debug)]
enum Stop {
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
            Stop::Error(anyhow::Error::new(e).context("writing the report to stdout"))
        }
    }
}

/// Exit status when stdout was closed early: 128 + SIGPIPE, as a shell
/// reports a program killed by SIGPIPE, but quietly.
const EXIT_BROKEN_PIPE: u8 = 141;

fn main() -> ExitCode {
    let cfg = match cli::parse(std::env::args_os()) {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    signals::install();
    let stdout = io::stdout();
    let mut rep = Report::new(stdout.lock());
    match run(&cfg, &mut rep) {
        Ok(code) => ExitCode::from(code),
        Err(Stop::BrokenPipe) => ExitCode::from(EXIT_BROKEN_PIPE),
        Err(Stop::Aborted(sig)) => {
            eprintln!("quickbench: aborted by {}", signals::name(sig));
            ExitCode::from(signals::exit_code(sig) as u8)
        }
        Err(Stop::Error(e)) => {
            eprintln!("quickbench: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Help and version go to stdout (exit 0); bad usage is one line on
/// stderr (exit 2).
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("bad usage");
    let reason = first.strip_prefix("error: ").unwrap_or(first);
    eprintln!("quickbench: {reason} (see 'quickbench --help')");
    ExitCode::from(2)
}

/// Checks for an abort after a step, and clears a one-time cut.
fn after_step(what: &str, cut_short: bool) -> Result<(), Stop> {
    if let Some(sig) = signals::abort_signal() {
        return Err(Stop::Aborted(sig));
    }
    if cut_short || signals::cut_requested() {
        eprintln!(
            "quickbench: {what} cut short by Ctrl-C (its figure covers the time it ran); \
             press Ctrl-C twice within 2 s to abort"
        );
    }
    signals::clear_cut();
    Ok(())
}

/// Runs the selected sections; returns the exit status (0, or 1 when a
/// section could not run).
fn run<W: Write>(cfg: &Config, rep: &mut Report<W>) -> Result<u8, Stop> {
    let sys = cfg.sysroot.clone().map(Sysroot::new).unwrap_or_default();
    let mut failed: Vec<&str> = Vec::new();

    for (flag, on) in [("--json", cfg.json), ("--extended", cfg.extended)] {
        if on {
            eprintln!("quickbench: {flag} is not implemented yet; printing the standard report");
        }
    }
    if !cfg.dry_run && cfg.loop_delay.as_secs_f64() < cli::ADVISED_DELAY_S {
        eprintln!(
            "quickbench: warning: a loop delay under {} s may give unreliable results; use at least 30 s for meaningful figures",
            cli::ADVISED_DELAY_S
        );
    }

    // Header
    let uname = sysinfo::uname(&sys);
    rep.lines(&Header::this_build(uname.line()).lines())?;

    // CPU info
    if cfg.runs(Section::Cpuinfo) {
        rep.section("CPU info")?;
        rep.lines(&sysinfo::cpu::read_summary(&sys).lines())?;
    }

    // CPU loop
    if cfg.runs(Section::Cpu) && !cfg.dry_run {
        rep.section("CPU loop")?;
        for jobs in cpu_loop::job_counts(sysinfo::usable_cpus(&sys)) {
            let step = if cfg.fake_figures {
                cpu_loop::fake_step(jobs, cfg.loop_delay)
            } else {
                cpu_loop::run_step(jobs, cfg.loop_delay, &signals::stop_requested)
            };
            after_step("CPU loop step", step.cut_short)?;
            rep.line(&report::cpu_loop_line(&step))?;
        }
    }

    // Memory
    if cfg.runs(Section::Memory) {
        rep.section("Memory")?;
        match sysinfo::mem_total_kib(&sys) {
            Ok(kib) => rep.line(&report::memory_total_line(kib))?,
            Err(e) => {
                eprintln!("quickbench: memory: {e:#}");
                rep.line("Total    : unavailable (see stderr)")?;
                failed.push("memory");
            }
        }
        if !cfg.dry_run {
            let bw = if cfg.fake_figures {
                Ok(membw::fake())
            } else {
                membw::measure(&sys, cfg.loop_delay, &signals::stop_requested)
            };
            match bw {
                Ok(bw) => {
                    after_step("memory bandwidth", bw.cut_short)?;
                    rep.line(&report::memory_bandwidth_line(&bw))?;
                }
                Err(e) => {
                    eprintln!("quickbench: memory bandwidth: {e:#}");
                    rep.line("Bandwidth: unavailable (see stderr)")?;
                    failed.push("memory");
                }
            }
        }
    }

    // The storage behind the benchmark directory (for the stack, the
    // bandwidth titles and the plan).
    let needs_target = cfg.runs(Section::Storage) || cfg.runs(Section::Io) || cfg.dry_run;
    let target = if needs_target {
        match blockdev::resolve_dir(&sys, &cfg.dir) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("quickbench: storage: {e:#}");
                None
            }
        }
    } else {
        None
    };

    // Storage info
    if cfg.runs(Section::Storage) {
        rep.section("Storage info")?;
        rep.lines(&blockdev::render_table(&blockdev::storage_table(&sys)))?;
        if let Some(stack) = target
            .as_ref()
            .and_then(|t| blockdev::render_stack(&sys, t))
        {
            rep.section("Storage device stack")?;
            rep.lines(&stack)?;
        }
    }

    // Storage bandwidth: see dd_io.
    if cfg.runs(Section::Io) && !cfg.dry_run {
        eprintln!("quickbench: the io section is not implemented yet");
        failed.push("io");
    }

    // Plan
    if cfg.dry_run {
        let cpu_steps = cpu_loop::job_counts(sysinfo::usable_cpus(&sys)).len();
        let plan = plan::build(
            cfg,
            target.as_ref(),
            &uname.release,
            cpu_steps,
            sys.is_live(),
        );
        rep.section("Plan")?;
        rep.lines(&plan.lines(cfg))?;
    }

    if failed.is_empty() {
        Ok(0)
    } else {
        Ok(1)
    }
}
