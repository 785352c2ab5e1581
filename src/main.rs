//! quickbench: one command, the Quickbench report of this host.
//!
//! This file reads like the report: header, CPU info, CPU loop, memory,
//! storage info, storage bandwidth (then the plan of `--dry-run`). The
//! measuring modules return plain structs; `report` turns them into lines
//! (or, with `--json`, one document at the end); stdout gets nothing else.

use std::io::{self, Write};
use std::process::ExitCode;

use quickbench::blockdev::{self, Target};
use quickbench::cli::{self, Config, Section};
use quickbench::dd_io::{self, Direction, IoConfig, LineResult};
use quickbench::report::json::{self, CpuInfoJson, JsonReport, MemoryJson};
use quickbench::report::{self, Header, Report};
use quickbench::{cpu_loop, membw, plan, signals, sysinfo, units, Sysroot};

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

/// The storage bandwidth block sizes, in report order.
const BLOCK_SIZES: [(u64, &str); 2] = [(4 << 10, "4k"), (1 << 20, "1M")];

fn main() -> ExitCode {
    let cfg = match cli::parse(std::env::args_os()) {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    signals::install();
    let out: Box<dyn Write> = if cfg.json {
        Box::new(io::sink())
    } else {
        Box::new(io::stdout().lock())
    };
    let mut rep = Report::new(out);
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
    let uname = sysinfo::uname(&sys);
    let header = Header::this_build(uname.line());
    let mut doc = JsonReport {
        schema_version: json::SCHEMA_VERSION,
        quickbench: header.clone(),
        hostname: uname.nodename.clone(),
        timestamp_utc: json::now_utc(),
        loop_delay_s: cfg.loop_delay.as_secs_f64(),
        sections: cfg.sections.iter().map(|s| s.name().to_string()).collect(),
        dry_run: cfg.dry_run,
        storage_target: None,
        cpu_info: None,
        cpu_loop: Vec::new(),
        memory: None,
        storage_info: None,
        storage_stack: None,
        storage_bandwidth: Vec::new(),
        storage_bandwidth_skipped: None,
        plan: None,
        failed_sections: Vec::new(),
    };

    if cfg.extended {
        eprintln!("quickbench: --extended is not implemented yet; printing the standard report");
    }
    if !cfg.dry_run && cfg.loop_delay.as_secs_f64() < cli::ADVISED_DELAY_S {
        eprintln!(
            "quickbench: warning: a loop delay under {} s may give unreliable results; use at least 30 s for meaningful figures",
            cli::ADVISED_DELAY_S
        );
    }

    // Header
    rep.lines(&header.lines())?;

    // CPU info
    if cfg.runs(Section::Cpuinfo) {
        let summary = sysinfo::cpu::read_summary(&sys);
        for note in &summary.notes {
            eprintln!("quickbench: CPU info: {note}");
        }
        let lines = summary.lines();
        rep.section("CPU info")?;
        rep.lines(&lines)?;
        doc.cpu_info = Some(CpuInfoJson { lines, summary });
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
            doc.cpu_loop.push(step);
        }
    }

    // Memory
    if cfg.runs(Section::Memory) {
        rep.section("Memory")?;
        let mut mem = MemoryJson {
            mem_total_kib: None,
            total_mb: None,
            dd_bandwidth: None,
            dd_bandwidth_bytes_per_s: None,
            dd_bandwidth_text: None,
        };
        match sysinfo::mem_total_kib(&sys) {
            Ok(kib) => {
                rep.line(&report::memory_total_line(kib))?;
                mem.mem_total_kib = Some(kib);
                mem.total_mb = Some(kib >> 10);
            }
            Err(e) => {
                eprintln!("quickbench: memory: {e:#}");
                rep.line("Total    : unavailable (see stderr)")?;
                doc.failed_sections.push("memory".into());
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
                    mem.dd_bandwidth_bytes_per_s = Some(bw.bytes_per_s());
                    mem.dd_bandwidth_text = Some(units::dd_rate(bw.bytes, bw.elapsed_ns));
                    mem.dd_bandwidth = Some(bw);
                }
                Err(e) => {
                    eprintln!("quickbench: memory bandwidth: {e:#}");
                    rep.line("Bandwidth: unavailable (see stderr)")?;
                    doc.failed_sections.push("memory".into());
                }
            }
        }
        doc.memory = Some(mem);
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
        let rows = blockdev::storage_table(&sys);
        rep.section("Storage info")?;
        rep.lines(&blockdev::render_table(&rows))?;
        doc.storage_info = Some(rows);
        if let Some(stack) = target
            .as_ref()
            .and_then(|t| blockdev::render_stack(&sys, t))
        {
            rep.section("Storage device stack")?;
            rep.lines(&stack)?;
            doc.storage_stack = Some(stack);
        }
    }

    // Storage bandwidth
    if cfg.runs(Section::Io) && !cfg.dry_run {
        if let Err(reason) = storage_bandwidth(cfg, &sys, target.as_ref(), rep, &mut doc)? {
            eprintln!("quickbench: storage bandwidth: {reason}");
            doc.storage_bandwidth_skipped = Some(reason);
            doc.failed_sections.push("io".into());
        }
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
        doc.plan = Some(plan);
    }

    doc.storage_target = target;
    doc.failed_sections.dedup();
    if cfg.json {
        let mut out = io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &doc)
            .map_err(|e| Stop::Error(anyhow::Error::new(e).context("writing the JSON report")))?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(if doc.failed_sections.is_empty() { 0 } else { 1 })
}

/// Once the temporary file is closed, asks the filesystem to finish
/// freeing it (xfs and btrfs release the space of an unlinked file in the
/// background; `syncfs` completes that), so that the free space is back to
/// where it was when quickbench exits.
struct SettleOnDrop<'a>(&'a std::path::Path);

impl Drop for SettleOnDrop<'_> {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        if let Ok(d) = std::fs::File::open(self.0) {
            // SAFETY: syncfs only reads the descriptor, which `d` keeps open.
            unsafe { libc::syncfs(d.as_raw_fd()) };
        }
    }
}

/// The two `[ Storage bandwidth ]` sections. `Ok(Err(reason))` when they
/// could not run at all (the report says so, the caller tells stderr).
fn storage_bandwidth<W: Write>(
    cfg: &Config,
    sys: &Sysroot,
    target: Option<&Target>,
    rep: &mut Report<W>,
    doc: &mut JsonReport,
) -> Result<Result<(), String>, Stop> {
    let display = target.map_or_else(|| "unknown device".to_string(), |t| t.display.clone());
    if cfg.fake_figures {
        for (bs, label) in BLOCK_SIZES {
            rep.section(&report::storage_bandwidth_title(
                label, &display, None, true,
            ))?;
            for dir in [Direction::Write, Direction::Read] {
                for &jobs in &cfg.io_jobs {
                    let line = report::fake_line(bs, dir, jobs);
                    rep.line(&dd_io::format_line(&line))?;
                    doc.storage_bandwidth.push(line);
                }
            }
        }
        return Ok(Ok(()));
    }
    let io_cfg = IoConfig {
        dir: cfg.dir.clone(),
        max_size_bytes: cfg.max_size_bytes,
        sysroot: sys.clone(),
        stat_dev: target.and_then(|t| match t.devices.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }),
    };
    // Declared before the workspace, so dropped after it on every path
    // (including an abort's early return).
    let _settle = SettleOnDrop(&cfg.dir);
    let mut ws = match dd_io::prepare(&io_cfg) {
        Ok(ws) => ws,
        Err(skip) => {
            rep.section("Storage bandwidth")?;
            rep.line(&format!("Skipped: {}", skip.reason))?;
            return Ok(Err(skip.reason));
        }
    };
    for w in ws.warnings() {
        eprintln!("quickbench: storage bandwidth: {w}");
    }
    let mut errors = 0;
    for (bs, label) in BLOCK_SIZES {
        rep.section(&report::storage_bandwidth_title(
            label,
            &display,
            ws.memory_fs(),
            ws.direct_io(),
        ))?;
        for dir in [Direction::Write, Direction::Read] {
            for &jobs in &cfg.io_jobs {
                let line: LineResult =
                    ws.run_line(bs, dir, jobs, cfg.loop_delay, signals::stop_flag());
                if let Some(e) = &line.error {
                    eprintln!("quickbench: storage bandwidth ({label}, {jobs} jobs): {e}");
                    errors += 1;
                }
                after_step("storage bandwidth line", line.cut_short)?;
                rep.line(&dd_io::format_line(&line))?;
                doc.storage_bandwidth.push(line);
            }
        }
    }
    drop(ws);
    if errors > 0 {
        return Ok(Err(format!(
            "{errors} line(s) stopped early (marked in the report)"
        )));
    }
    Ok(Ok(()))
}
