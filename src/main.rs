//! quickbench: one command, the Quickbench report of this host.
//!
//! This file reads like the report: header, CPU info, CPU loop, memory,
//! storage info, storage bandwidth (then the plan of `--dry-run`). The
//! measuring modules return plain structs; `report` turns them into lines
//! (or, with `--json`, one document at the end); stdout gets nothing else.

use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Duration;

use quickbench::blockdev::details::DeviceDetails;
use quickbench::blockdev::{self, Target};
use quickbench::cli::{self, Config, Section};
use quickbench::dd_io::{self, Direction, IoConfig, LineResult};
use quickbench::progress::Progress;
use quickbench::report::extended;
use quickbench::report::json::{self, CpuInfoJson, ExtendedJson, JsonReport, MemoryJson};
use quickbench::report::{self, Header, Report};
use quickbench::sysinfo::procstat;
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

/// What to do about an I/O error, for stderr.
fn errno_hint(errno: Option<i32>) -> &'static str {
    match errno {
        Some(libc::EIO) => {
            "; the device reported an I/O error: check dmesg and the device's health"
        }
        Some(libc::ENOSPC) => "; the filesystem is full: free space or lower --max-size",
        Some(libc::EDQUOT) => {
            "; your disk quota is exceeded: lower --max-size or use --dir elsewhere"
        }
        Some(libc::EROFS) => "; the filesystem became read-only (often after errors): check dmesg",
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "; permission denied: use --dir on a directory you may write"
        }
        _ => "",
    }
}

/// Below this region per job, the storage figures may come from caches.
const SMALL_REGION_BYTES: u64 = 16 << 20;

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
    let mut rep = Report::with_progress(out, Progress::stderr(cfg.quiet));
    match run(&cfg, &mut rep) {
        Ok(code) => ExitCode::from(code),
        Err(Stop::BrokenPipe) => ExitCode::from(EXIT_BROKEN_PIPE),
        Err(Stop::Aborted(sig)) => {
            rep.warn(&format!("aborted by {}", signals::name(sig)));
            ExitCode::from(signals::exit_code(sig) as u8)
        }
        Err(Stop::Error(e)) => {
            rep.warn(&format!("{e:#}"));
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
    report::stderr_line(&format!("{reason} (see 'quickbench --help')"));
    ExitCode::from(2)
}

/// Checks for an abort after a step, and clears a one-time cut.
fn after_step<W: Write>(rep: &Report<W>, what: &str, cut_short: bool) -> Result<(), Stop> {
    if let Some(sig) = signals::abort_signal() {
        return Err(Stop::Aborted(sig));
    }
    if cut_short || signals::cut_requested() {
        rep.warn(&format!(
            "{what} cut short by Ctrl-C (its figure covers the time it ran); \
             press Ctrl-C twice within 2 s to abort"
        ));
    }
    signals::clear_cut();
    Ok(())
}

/// Time left in the run, for the progress display: timed steps not yet
/// started, each one loop delay long.
struct Countdown {
    steps_left: u32,
    delay: Duration,
}

impl Countdown {
    /// A step of `steps` delays starts: what is left, this step included.
    fn start(&mut self, steps: u32) -> Duration {
        let left = self.delay * self.steps_left.max(steps);
        self.steps_left = self.steps_left.saturating_sub(steps);
        left
    }
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
        extended: None,
        failed_sections: Vec::new(),
    };

    if !cfg.dry_run && cfg.loop_delay.as_secs_f64() < cli::ADVISED_DELAY_S {
        rep.warn(&format!(
            "warning: a loop delay under {} s may give unreliable results; use at least 30 s for meaningful figures",
            cli::ADVISED_DELAY_S
        ));
    }
    for (dir, probe, fix) in [
        ("/proc", "/proc/self", "mount -t proc proc /proc"),
        ("/sys", "/sys/devices", "mount -t sysfs sysfs /sys"),
        ("/dev", "/dev/null", "mount -t devtmpfs devtmpfs /dev"),
    ] {
        if sys.is_live() && !sys.exists(probe) {
            rep.warn(&format!(
                "{} is not mounted (no {}): CPU info, memory and storage need it; as root: {fix}",
                sys.path(dir).display(),
                sys.path(probe).display()
            ));
        }
    }
    let cpu_jobs = cpu_loop::job_counts(sysinfo::usable_cpus(&sys));
    let mut countdown = Countdown {
        steps_left: if cfg.dry_run {
            0
        } else {
            plan::estimate(cfg, cpu_jobs.len()).0
        },
        delay: cfg.loop_delay,
    };
    let mut ext = ExtendedJson::default();

    // Header
    rep.lines(&header.lines())?;

    // CPU info
    if cfg.runs(Section::Cpuinfo) {
        let summary = sysinfo::cpu::read_summary(&sys);
        for note in &summary.notes {
            rep.warn(&format!("CPU info: {note}"));
        }
        let lines = summary.lines();
        rep.section("CPU info")?;
        rep.lines(&lines)?;
        if lines.is_empty() {
            rep.line("unavailable (see stderr)")?;
            rep.warn(&format!(
                "CPU info: no CPU found in {} (is /proc mounted?)",
                sys.path("/proc/cpuinfo").display()
            ));
            doc.failed_sections.push("cpuinfo".into());
        }
        doc.cpu_info = Some(CpuInfoJson { lines, summary });
    }

    // CPU loop
    if cfg.runs(Section::Cpu) && !cfg.dry_run {
        rep.section("CPU loop")?;
        for &jobs in &cpu_jobs {
            let left = countdown.start(1);
            rep.progress()
                .step("CPU loop", &format!("{jobs} // jobs"), cfg.loop_delay, left);
            let step = if cfg.fake_figures {
                cpu_loop::fake_step(jobs, cfg.loop_delay)
            } else {
                cpu_step(&sys, jobs, cfg.loop_delay)
            };
            after_step(rep, "CPU loop step", step.cut_short)?;
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
                rep.warn(&format!("memory: {e:#}"));
                rep.line("Total    : unavailable (see stderr)")?;
                doc.failed_sections.push("memory".into());
            }
        }
        if !cfg.dry_run {
            let left = countdown.start(1);
            rep.progress()
                .step("Memory", "Bandwidth", cfg.loop_delay, left);
            let bw = if cfg.fake_figures {
                Ok(membw::fake())
            } else {
                membw::measure(&sys, cfg.loop_delay, &signals::stop_requested)
            };
            match bw {
                Ok(bw) => {
                    after_step(rep, "memory bandwidth", bw.cut_short)?;
                    rep.line(&report::memory_bandwidth_line(&bw))?;
                    mem.dd_bandwidth_bytes_per_s = Some(bw.bytes_per_s());
                    mem.dd_bandwidth_text = Some(units::dd_rate(bw.bytes, bw.elapsed_ns));
                    mem.dd_bandwidth = Some(bw);
                }
                Err(e) => {
                    rep.warn(&format!("memory bandwidth: {e:#}"));
                    rep.line("Bandwidth: unavailable (see stderr)")?;
                    doc.failed_sections.push("memory".into());
                }
            }
        }
        doc.memory = Some(mem);
    }

    // The storage behind the benchmark directory (for the stack, the
    // bandwidth titles and the plan).
    let needs_target = cfg.runs(Section::Storage) || cfg.runs(Section::Io);
    let target = if needs_target {
        match blockdev::resolve_dir(&sys, &cfg.dir) {
            Ok(t) => Some(t),
            Err(e) => {
                rep.warn(&format!("storage: {e:#}"));
                doc.failed_sections.push("storage".into());
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
        if let Err(reason) =
            storage_bandwidth(cfg, &sys, target.as_ref(), rep, &mut doc, &mut countdown)?
        {
            rep.warn(&format!("storage bandwidth: {reason}"));
            doc.storage_bandwidth_skipped = Some(reason);
            doc.failed_sections.push("io".into());
        }
    }

    // Extended sections
    if cfg.extended && !cfg.dry_run {
        extended_sections(
            cfg,
            &sys,
            &doc,
            target.as_ref(),
            rep,
            &mut countdown,
            &mut ext,
        )?;
        doc.extended = Some(ext);
    }

    // Plan
    if cfg.dry_run {
        let cpu_steps = cpu_loop::job_counts(sysinfo::usable_cpus(&sys)).len();
        let plan = plan::build(cfg, target.as_ref(), &uname.release, cpu_steps, &sys);
        rep.section("Plan")?;
        rep.lines(&plan.lines(cfg))?;
        doc.plan = Some(plan);
    }

    rep.progress().idle();
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
struct SettleOnDrop<'a> {
    dir: &'a std::path::Path,
    /// Free blocks of the filesystem before the temporary file existed.
    free_before: Option<u64>,
}

/// How long to wait at most for a filesystem to give the space back.
const SETTLE_MAX: Duration = Duration::from_secs(3);

// fsblkcnt_t is 32-bit on some targets: the cast is needed there.
#[allow(clippy::unnecessary_cast)]
fn free_blocks(dir: &std::path::Path) -> Option<u64> {
    nix::sys::statvfs::statvfs(dir)
        .ok()
        .map(|s| s.blocks_free() as u64)
}

impl<'a> SettleOnDrop<'a> {
    fn new(dir: &'a std::path::Path) -> Self {
        SettleOnDrop {
            dir,
            free_before: free_blocks(dir),
        }
    }
}

impl Drop for SettleOnDrop<'_> {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        if let Ok(d) = std::fs::File::open(self.dir) {
            // SAFETY: syncfs only reads the descriptor, which `d` keeps open.
            unsafe { libc::syncfs(d.as_raw_fd()) };
        }
        // xfs frees an unlinked file from a background worker even after
        // syncfs: wait (briefly, bounded) until the space is back. Other
        // writers may change the figure meanwhile; 1 MiB of 4 KiB blocks of
        // slack keeps their noise from costing the full wait.
        let Some(before) = self.free_before else {
            return;
        };
        let t0 = std::time::Instant::now();
        while free_blocks(self.dir).is_some_and(|now| now + 256 < before)
            && t0.elapsed() < SETTLE_MAX
        {
            std::thread::sleep(Duration::from_millis(20));
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
    countdown: &mut Countdown,
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
    if let Some(t) = target.filter(|t| plan::PSEUDO_FS.contains(&t.fs_type.as_str())) {
        let reason = format!(
            "{} is on {} ({}), a kernel pseudo-filesystem, not storage: use --dir on a disk-backed filesystem",
            cfg.dir.display(),
            t.mount_point,
            t.fs_type
        );
        rep.section("Storage bandwidth")?;
        rep.line(&format!("Skipped: {reason}"))?;
        return Ok(Err(reason));
    }
    // Declared before the workspace, so dropped after it on every path
    // (including an abort's early return).
    let _settle = SettleOnDrop::new(&cfg.dir);
    let mut ws = match dd_io::prepare(&io_cfg) {
        Ok(ws) => ws,
        Err(skip) => {
            rep.section("Storage bandwidth")?;
            rep.line(&format!("Skipped: {}", skip.reason))?;
            return Ok(Err(skip.reason));
        }
    };
    for w in ws.warnings() {
        rep.warn(&format!("storage bandwidth: {w}"));
    }
    // ext4 with data=journal accepts O_DIRECT but serves it through the
    // page cache and the journal: say so, as for a refused O_DIRECT.
    let journaled = target.is_some_and(|t| {
        t.fs_type.starts_with("ext") && t.super_options.split(',').any(|o| o == "data=journal")
    });
    if journaled {
        rep.warn("storage bandwidth: ext4 with data=journal does buffered I/O despite O_DIRECT: the figures include the page cache and the journal");
    }
    let direct_io = ws.direct_io() && !journaled;
    let max_jobs = cfg.io_jobs.iter().copied().max().unwrap_or(1).max(1);
    let region_bytes = ws.file_size_bytes() / u64::from(max_jobs);
    if region_bytes < SMALL_REGION_BYTES {
        rep.warn(&format!(
            "storage bandwidth: the temporary file is only {} MiB, {} MiB per job with {max_jobs} jobs: \
             jobs rewrite and reread the same few blocks, which caches may serve; \
             a larger --max-size (or more free space) gives sounder figures",
            ws.file_size_bytes() >> 20,
            region_bytes >> 20
        ));
    }
    let mut errors = 0;
    for (bs, label) in BLOCK_SIZES
        .into_iter()
        .filter(|(bs, _)| cfg.io_blocks.contains(bs))
    {
        rep.section(&report::storage_bandwidth_title(
            label,
            &display,
            ws.memory_fs(),
            direct_io,
        ))?;
        for dir in [Direction::Write, Direction::Read] {
            for &jobs in &cfg.io_jobs {
                let left = countdown.start(1);
                let what = match dir {
                    Direction::Write => "Writes",
                    Direction::Read => "Reads",
                };
                rep.progress().step(
                    &format!("Storage bandwidth {label}"),
                    &format!("{what} ({jobs} thread[s])"),
                    cfg.loop_delay,
                    left,
                );
                let line: LineResult =
                    ws.run_line(bs, dir, jobs, cfg.loop_delay, signals::stop_flag());
                if let Some(e) = &line.error {
                    rep.warn(&format!(
                        "storage bandwidth ({label}, {jobs} job(s)): {e}{}",
                        errno_hint(line.error_errno)
                    ));
                    errors += 1;
                }
                after_step(rep, "storage bandwidth line", line.cut_short)?;
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

/// One CPU loop step, with steal time and clock sampled around and during
/// it (when /proc/stat is readable).
fn cpu_step(sys: &Sysroot, jobs: u32, delay: Duration) -> cpu_loop::LoopStep {
    match procstat::Sampler::start(sys) {
        Ok(sampler) => {
            let mut step = cpu_loop::run_step(jobs, delay, &|| {
                sampler.poll();
                signals::stop_requested()
            });
            step.conditions = sampler.finish().ok();
            step
        }
        Err(_) => cpu_loop::run_step(jobs, delay, &signals::stop_requested),
    }
}

/// The sections of `--extended`, after the standard report.
fn extended_sections<W: Write>(
    cfg: &Config,
    sys: &Sysroot,
    doc: &JsonReport,
    target: Option<&Target>,
    rep: &mut Report<W>,
    countdown: &mut Countdown,
    ext: &mut ExtendedJson,
) -> Result<(), Stop> {
    if cfg.runs(Section::Cpu) {
        let left = countdown.start(1);
        rep.progress()
            .step("Extended: CPU", "SMT probe", cfg.loop_delay, left);
        let probe = cpu_loop::smt::probe(sys, cfg.loop_delay, &signals::stop_requested);
        after_step(rep, "SMT probe", probe.cut_short)?;
        rep.section("Extended: CPU")?;
        rep.lines(&extended::cpu_lines(&doc.cpu_loop, Some(&probe)))?;
        ext.smt_probe = Some(probe);
    }
    if cfg.runs(Section::Memory) {
        let left = countdown.start(2);
        rep.progress().step(
            "Extended: Memory",
            "DRAM copy and triad",
            cfg.loop_delay * 2,
            left,
        );
        let dram = membw::dram::measure(sys, cfg.loop_delay, &signals::stop_requested);
        let cut = dram.single.cut_short || dram.all.as_ref().is_some_and(|r| r.cut_short);
        after_step(rep, "DRAM bandwidth", cut)?;
        rep.section("Extended: Memory (DRAM, STREAM-like)")?;
        rep.lines(&extended::memory_lines(&dram))?;
        ext.dram = Some(dram);
    }
    if cfg.runs(Section::Io) || cfg.runs(Section::Storage) {
        let devices: Vec<DeviceDetails> = target
            .map(|t| {
                t.devices
                    .iter()
                    .map(|d| blockdev::details::device_details(sys, d))
                    .collect()
            })
            .unwrap_or_default();
        rep.section("Extended: Storage")?;
        rep.lines(&extended::storage_lines(&doc.storage_bandwidth, &devices))?;
        ext.device_details = devices;
    }
    Ok(())
}
