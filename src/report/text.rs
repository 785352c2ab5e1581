//! The text renderer: every piece of the text report's formatting, from a
//! [`Report`] only (it never reads /proc or /sys).
//!
//! A report is a sequence of [`Item`]s (of [`crate::sink`]) in report
//! order ([`items`]). The
//! runner hands each item to a [`TextSink`] as soon as its figure is known,
//! which writes its lines at once (the progress display erased first), with
//! one blank line before each section title but the first; [`render`]
//! writes a finished report the same way, so the streamed text and the
//! rendered text are one.

use std::io::{self, Write};

use crate::blockdev::DiskRow;
use crate::conditions::mark::InTrials;
use crate::conditions::{mark, Mark, StepLoad};
use crate::cpu_loop::LoopStep;
use crate::dd_io::LineResult;
use crate::end::End;
use crate::membw::DdBandwidth;
pub use crate::model::forms::cpuinfo::render as cpu_info_lines;
pub use crate::model::forms::stack::{
    notes_line, render as stack_lines, NOTES_LABEL, NOTES_SEPARATOR,
};
use crate::model::{
    BlockSize, IoSetup, Original, Plan, RawAccess, Report, Section, ORIGINAL_VERSION,
};
use crate::plan::{human_bytes, human_duration};
use crate::progress::Progress;
use crate::sections;
use crate::sink::{Item, Output};
use crate::sysinfo::cgroup::CpuQuota;
use crate::units::dd_rate;

/// The items of a finished report, in report order: what the runner
/// streams while it builds the same report.
pub fn items(r: &Report) -> Vec<Item> {
    let mut v = vec![Item::Header];
    if r.cpu_info.is_some() {
        v.push(Item::CpuInfo);
    }
    if r.runs(Section::Cpu) && !r.dry_run {
        v.push(Item::CpuLoopTitle);
        v.extend((0..r.cpu_loop.len()).map(Item::CpuStep));
    }
    if let Some(m) = &r.memory {
        v.push(Item::MemoryTotal);
        let failed = r.failed_sections.contains(Section::Memory) && m.mem_total_kib.is_some();
        if !r.dry_run && (m.dd_bandwidth.is_some() || failed) {
            v.push(Item::MemoryBandwidth);
        }
    }
    if r.storage_info.is_some() {
        v.push(Item::StorageInfo);
    }
    if r.storage_stack.is_some() {
        v.push(Item::StorageStack);
    }
    if r.storage_bandwidth.is_empty() && r.storage_bandwidth_skipped.is_some() {
        v.push(Item::StorageSkipped);
    } else {
        for bs in r.block_sizes() {
            v.push(Item::BandwidthTitle(bs));
            v.extend(
                r.storage_bandwidth
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.block_size_bytes == bs.bytes())
                    .map(|(i, _)| Item::BandwidthLine(i)),
            );
        }
    }
    if let Some(x) = r.extended.as_ref().filter(|x| !x.kept_as_text) {
        if x.smt_contention.is_some() {
            v.push(Item::ExtendedCpu);
        }
        if x.dram.is_some() {
            v.push(Item::ExtendedMemory);
        }
        if r.runs(Section::Io) || r.runs(Section::Storage) {
            v.push(Item::ExtendedStorage);
        }
    }
    // Kept `-x` sections go where the structured ones would: the reader
    // takes their figures only when both forms render the same, which an
    // added section after them would otherwise prevent.
    let kept_x = |i: &usize| is_extended_title(r, &r.raw_sections[*i].title);
    v.extend((0..r.raw_sections.len()).filter(kept_x).map(Item::Raw));
    let added = sections::added();
    v.extend(
        (0..added.len())
            .filter(|&i| added[i].present(r))
            .map(Item::Added),
    );
    if r.plan.is_some() {
        v.push(Item::Plan);
    }
    v.extend(
        (0..r.raw_sections.len())
            .filter(|i| !kept_x(i))
            .map(Item::Raw),
    );
    v
}

/// Whether `t` is one of the `-x` sections' titles.
fn is_extended_title(r: &Report, t: &str) -> bool {
    [
        Item::ExtendedCpu,
        Item::ExtendedMemory,
        Item::ExtendedStorage,
    ]
    .into_iter()
    .any(|i| title(r, i).as_deref() == Some(t))
}

/// The section title an item opens, if it opens one.
fn title(r: &Report, item: Item) -> Option<String> {
    Some(match item {
        Item::Header | Item::CpuStep(_) | Item::MemoryBandwidth | Item::BandwidthLine(_) => {
            return None
        }
        Item::CpuInfo => "CPU info".into(),
        Item::CpuLoopTitle => "CPU loop".into(),
        Item::MemoryTotal => "Memory".into(),
        Item::StorageInfo => "Storage info".into(),
        Item::StorageStack => "Storage device stack".into(),
        Item::StorageSkipped => "Storage bandwidth".into(),
        Item::BandwidthTitle(bs) => bandwidth_title(r.storage_io.as_ref(), bs),
        Item::ExtendedCpu => "Extended: CPU".into(),
        Item::ExtendedMemory => "Extended: Memory (DRAM, STREAM-like)".into(),
        Item::ExtendedStorage => "Extended: Storage".into(),
        Item::Added(i) => sections::added()[i].title().into(),
        Item::Plan => "Plan".into(),
        Item::Raw(i) => r.raw_sections[i].title.clone(),
    })
}

/// The lines of an item, its title excluded.
fn body(r: &Report, item: Item) -> Vec<String> {
    match item {
        Item::Header => header_lines(r),
        Item::CpuInfo => {
            let info = r.cpu_info.as_ref().expect("an item for a present section");
            let lines = cpu_info_lines(info);
            if lines.is_empty() {
                vec!["unavailable (see stderr)".into()]
            } else {
                lines
            }
        }
        Item::CpuLoopTitle => r
            .limits
            .as_ref()
            .and_then(|l| l.cpu_quota.as_ref())
            .map(CpuQuota::limit_line)
            .into_iter()
            .collect(),
        Item::CpuStep(i) => {
            let s = &r.cpu_loop[i];
            vec![marked_in(cpu_loop_line(s), &s.marks, &s.marks_in_trials)]
        }
        Item::MemoryTotal => {
            let total = r.memory.as_ref().and_then(|m| m.mem_total_kib);
            let mut line = memory_total_line(total);
            let limit = r.limits.as_ref().and_then(|l| l.memory_limit_bytes);
            if let (Some(kib), Some(limit)) = (total, limit) {
                if limit < kib << 10 {
                    line.push_str(&format!(" (cgroup limit {} MB)", limit >> 20));
                }
            }
            vec![line]
        }
        Item::MemoryBandwidth => {
            let bw = r.memory.as_ref().and_then(|m| m.dd_bandwidth.as_ref());
            let line = memory_bandwidth_line(bw.map(|b| &b.figure));
            vec![match bw {
                Some(b) => marked_in(line, &b.marks, &b.marks_in_trials),
                None => line,
            }]
        }
        Item::StorageInfo => table_lines(r.storage_info.as_deref().unwrap_or_default()),
        Item::StorageStack => r
            .storage_stack
            .as_ref()
            .map(stack_lines)
            .unwrap_or_default(),
        Item::StorageSkipped => vec![format!(
            "Skipped: {}",
            r.storage_bandwidth_skipped.as_deref().unwrap_or_default()
        )],
        Item::BandwidthTitle(_) => match &r.storage_io {
            Some(IoSetup {
                raw: Some(RawAccess::ReadOnly),
                device: Some(d),
                ..
            }) => vec![writes_not_run_line(d)],
            _ => Vec::new(),
        },
        Item::BandwidthLine(i) => {
            let l = &r.storage_bandwidth[i];
            vec![marked_in(io_line(l), &l.marks, &l.marks_in_trials)]
        }
        Item::ExtendedCpu => {
            let x = r.extended.as_ref();
            let mut v = super::extended::cpu_lines(
                &r.cpu_loop,
                r.cpufreq.as_ref(),
                x.and_then(|x| x.smt_contention.as_ref()),
            );
            v.extend(
                x.and_then(|x| x.smt_contention_load.as_ref())
                    .and_then(|l| load_line("SMT probe", l, mark::Step::Cpu)),
            );
            v
        }
        Item::ExtendedMemory => {
            let dd = r.memory.as_ref().and_then(|m| m.dd_bandwidth.as_ref());
            let dd_load = dd.and_then(super::extended::dd_bandwidth_line);
            let dd_core = dd.and_then(super::extended::dd_core_line);
            let x = r.extended.as_ref();
            dd_load
                .into_iter()
                .chain(dd_core)
                .chain(
                    x.and_then(|x| x.dram.as_ref())
                        .map(super::extended::memory_lines)
                        .unwrap_or_default(),
                )
                .chain(
                    x.and_then(|x| x.dram_load.as_ref())
                        .and_then(|l| load_line("DRAM runs", l, mark::Step::Memory)),
                )
                .collect()
        }
        Item::ExtendedStorage => super::extended::storage_lines(
            &r.storage_bandwidth,
            r.extended
                .as_ref()
                .map(|x| x.device_details.as_slice())
                .unwrap_or_default(),
        ),
        Item::Added(i) => sections::added()[i].lines(r),
        Item::Plan => r
            .plan
            .as_ref()
            .map(|p| plan_lines(p, r))
            .unwrap_or_default(),
        Item::Raw(i) => r.raw_sections[i].lines.clone(),
    }
}

/// Writes the text report item by item, flushing each line; one blank
/// line before every section title but the first block. The progress
/// display (stderr) is erased before each line.
pub struct TextSink<'p, W: Write> {
    out: W,
    started: bool,
    progress: &'p Progress,
}

impl<'p, W: Write> TextSink<'p, W> {
    /// A sink writing to `out`, erasing `progress` before each line.
    pub fn new(out: W, progress: &'p Progress) -> Self {
        TextSink {
            out,
            started: false,
            progress,
        }
    }

    /// Writes the lines of `item` of `r`.
    pub fn write_item(&mut self, r: &Report, item: Item) -> io::Result<()> {
        if let Some(t) = title(r, item) {
            if self.started {
                self.line("")?;
            }
            self.line(&format!("[ {t} ]"))?;
        }
        for l in body(r, item) {
            self.line(&l)?;
        }
        Ok(())
    }

    fn line(&mut self, text: &str) -> io::Result<()> {
        self.started = true;
        let out = &mut self.out;
        self.progress.cleared(|| {
            writeln!(out, "{text}")?;
            out.flush()
        })
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Output for TextSink<'_, W> {
    fn item(&mut self, r: &Report, item: Item) -> io::Result<()> {
        self.write_item(r, item)
    }

    fn finish(&mut self, _: &Report) -> io::Result<()> {
        Ok(())
    }
}

/// The whole text of a finished report.
pub fn render(r: &Report) -> String {
    let progress = Progress::disabled();
    let mut sink = TextSink::new(Vec::new(), &progress);
    for item in items(r) {
        sink.write_item(r, item).expect("writing to memory");
    }
    String::from_utf8(sink.into_inner()).expect("the report is UTF-8")
}

/// The header lines: ours (version, kernel, build, CPU loop definition),
/// or the bash original's (version, kernel, bash, dd).
pub fn header_lines(r: &Report) -> Vec<String> {
    let h = &r.quickbench;
    if let Some(o) = &r.original {
        return original_header_lines(o, &h.kernel);
    }
    vec![
        format!(
            "Quickbench: {} (Rust port of Bearstech's Quickbench {ORIGINAL_VERSION})",
            h.port_version
        ),
        format!("Kernel    : {}", h.kernel),
        format!(
            "Build     : {}, {}, {}",
            h.rustc,
            h.target,
            if h.static_build { "static" } else { "dynamic" }
        ),
        format!(
            "CPU loop  : loop v{} ({}), not comparable with the bash original's figures",
            h.loop_version, h.loop_description
        ),
    ]
    .into_iter()
    .chain(run_line(r))
    .collect()
}

/// `Run       : loop delay 30 s, /var/tmp (ext4 on vda), 2026-12-03 18:20 UTC`:
/// how the run was made, so that two reports can be compared fairly; with
/// `--repeat 5`, `loop delay 30 s × 5 trials, ...`; with 6 trials within
/// each delay, `loop delay 30 s in 6 trials, ...`, and both,
/// `loop delay 30 s × 5 in 30 trials, ...`. Absent when the
/// report does not know it (read from an older text).
pub fn run_line(r: &Report) -> Option<String> {
    let delay = r.loop_delay_s?;
    let (dir, fs_dev) = r.place()?;
    let place = match fs_dev {
        Some((fs, dev)) => format!("{dir} ({fs} on {dev})"),
        None => dir,
    };
    let date = r
        .timestamp_utc
        .as_deref()
        .and_then(minutes_utc)
        .unwrap_or_else(|| "date unknown".into());
    let trials = match (r.repeat, r.trials_per_delay) {
        (1, 1) => String::new(),
        (n, 1) => format!(" {TRIALS_SIGN} {n} trials"),
        (1, k) => format!(" in {k} trials"),
        (n, k) => format!(" {TRIALS_SIGN} {n} in {} trials", n * k),
    };
    // `--budget`, as typed: the trials above are the first pass's.
    let budget = r
        .budget_s
        .map(|b| format!(", budget {}", crate::model::forms::budget::render(b as u64)))
        .unwrap_or_default();
    Some(format!(
        "Run       : loop delay {delay} s{trials}{budget}, {place}, {date}"
    ))
}

/// Between the loop delay and the number of trials on the `Run` line.
pub const TRIALS_SIGN: char = '\u{d7}';

/// `2026-12-03T18:20:07Z` as `2026-12-03 18:20 UTC`.
fn minutes_utc(rfc3339: &str) -> Option<String> {
    let (date, time) = rfc3339.split_once('T')?;
    Some(format!("{date} {} UTC", time.get(..5)?))
}

fn original_header_lines(o: &Original, kernel: &str) -> Vec<String> {
    let mut v = vec![
        format!("Quickbench: {}", o.version),
        format!("Kernel    : {kernel}"),
    ];
    if let Some(b) = &o.bash {
        v.push(format!("Bash      : {b}"));
    }
    if let Some(d) = &o.dd {
        v.push(format!("dd        : {d}"));
    }
    v
}

/// `line`, then ` (interrupted)` or ` (stopped: EIO)` when the step ended
/// early.
fn ended(mut line: String, end: &End) -> String {
    if let Some(t) = end.text() {
        line.push_str(&format!(" ({t})"));
    }
    line
}

/// `printf "%2d // jobs : %10d loop/job/s"` (the figure truncated), and
/// how it ended when it did not run its whole time (its marks follow:
/// [`marked`]).
pub fn cpu_loop_line(step: &LoopStep) -> String {
    let line = format!(
        "{:2} // jobs : {:10} loop/job/s",
        step.jobs,
        step.loops_per_s_mean.max(0.0) as u64
    );
    ended(line, &step.end)
}

/// `Load      : during the SMT probe; others 3 % of a CPU, steal 0.1 %
/// (busy: ...)`: an extended measurement's load, and its marks.
fn load_line(what: &str, l: &StepLoad, step: mark::Step) -> Option<String> {
    let words = super::extended::load_words(l);
    if words.is_empty() {
        // Nothing was read (an SMT contention test with nothing to run): no line.
        return None;
    }
    let s = format!("Load      : during the {what}{words}");
    Some(marked(s, &mark::marks(step, Some(l), None)))
}

/// `line`, then each mark between parentheses: ` (busy: other processes
/// used 48 % of a CPU) (steal 12 %)`.
pub fn marked(mut line: String, marks: &[Mark]) -> String {
    for m in marks {
        line.push_str(&format!(" ({})", m.text()));
    }
    line
}

/// `line`, then each of a step's marks between parentheses, with in how
/// many of its trials when only some earned it: ` (busy: other processes
/// used 48 % of a CPU, in 2 of 6 trials)`.
pub fn marked_in(mut line: String, marks: &[Mark], in_trials: &[InTrials]) -> String {
    for (i, m) in marks.iter().enumerate() {
        line.push_str(&format!(" ({})", mark::text_in(m, in_trials.get(i))));
    }
    line
}

/// `Total    : <MemTotal kB >> 10> MB`.
pub fn memory_total_line(mem_total_kib: Option<u64>) -> String {
    match mem_total_kib {
        Some(kib) => format!("Total    : {} MB", kib >> 10),
        None => "Total    : unavailable (see stderr)".into(),
    }
}

/// `Bandwidth: <GNU dd's rate text>`, and ` (interrupted)` when it was.
pub fn memory_bandwidth_line(bw: Option<&DdBandwidth>) -> String {
    match bw {
        Some(bw) => ended(
            format!("Bandwidth: {}", dd_rate(bw.bytes, bw.elapsed_ns)),
            &bw.end,
        ),
        None => "Bandwidth: unavailable (see stderr)".into(),
    }
}

/// The storage table's header line, as the original prints it.
pub const TABLE_HEADER: &str = "Name      Bus     Size(GB)  QDepth  Model";

/// The header and one line per row: `%-8s  %-6s  %7d   %6s  %s`.
pub fn table_lines(rows: &[DiskRow]) -> Vec<String> {
    let mut out = vec![TABLE_HEADER.to_string()];
    for r in rows {
        let qd = r
            .queue_depth
            .map_or_else(|| "?".to_string(), |q| q.to_string());
        out.push(format!(
            "{:<8}  {:<6}  {:>7}   {:>6}  {}",
            r.name,
            r.bus,
            r.size_gib,
            qd,
            r.model.as_deref().unwrap_or("?")
        ));
    }
    out
}

/// `Storage bandwidth - 4k blocks (vda)`, saying when memory or the page
/// cache is measured instead of a device.
pub fn bandwidth_title(setup: Option<&IoSetup>, bs: BlockSize) -> String {
    let label = bs.label();
    let Some(s) = setup else {
        return format!("Storage bandwidth - {label} blocks");
    };
    let Some(device) = &s.device else {
        return format!("Storage bandwidth - {label} blocks");
    };
    let mut what = device.clone();
    if let Some(fs) = &s.memory_fs {
        what = if fs == device {
            format!("{fs}{MEMORY_NOTE}")
        } else {
            format!("{device} on {fs}{MEMORY_NOTE}")
        };
    } else if s.remote {
        what.push_str(REMOTE_NOTE);
    }
    if !s.direct_io {
        what.push_str(BUFFERED_NOTE);
    }
    match s.raw {
        Some(RawAccess::ReadOnly) => what.push_str(RAW_READ_ONLY_NOTE),
        Some(RawAccess::Write) => what.push_str(RAW_NOTE),
        None => {}
    }
    format!("Storage bandwidth - {label} blocks ({what})")
}

/// What a title adds when a raw device was written and read.
pub const RAW_NOTE: &str = ", raw";
/// ... and when it was only read.
pub const RAW_READ_ONLY_NOTE: &str = ", raw, read only";
/// How the line that stands for the write lines of a device read only
/// starts.
pub const WRITES_NOT_RUN: &str = "Writes: not run";

/// The line under a raw device's title when it was only read: why the
/// write lines did not run and what would run them.
pub fn writes_not_run_line(device: &str) -> String {
    format!(
        "{WRITES_NOT_RUN}: the device is opened read only; --destroy /dev/{device} would run \
         them, destroying its data"
    )
}

/// What a title adds when a memory-backed filesystem is measured.
pub const MEMORY_NOTE: &str = ": memory, not a disk";
/// What a title adds when there is no local block device.
pub const REMOTE_NOTE: &str = ": its server or daemon decides what reaches a disk";
/// What a title adds when O_DIRECT did not reach the device.
pub const BUFFERED_NOTE: &str = ", buffered: page cache";

/// The report line, as the original's
/// `printf "%-6s (%2d thread[s]): %6d MB/s  %6d IO/s  %6d µs avg. lat."`.
/// The three figures are truncated toward zero, as the original's shell
/// arithmetic does. A line that was cut short or stopped by an error says
/// so after it (` (interrupted)` or ` (stopped: ENOSPC)`); its marks
/// follow ([`marked`]).
pub fn io_line(r: &LineResult) -> String {
    let s = format!(
        "{:<6} ({:>2} thread[s]): {:>6} MB/s  {:>6} IO/s  {:>6} \u{b5}s avg. lat.",
        r.direction.label(),
        r.jobs,
        r.mb_per_s as u64,
        r.iops as u64,
        r.lat_mean_us as u64
    );
    ended(s, &r.end)
}

fn run_time_line(p: &Plan, r: &Report) -> String {
    let delay = r.loop_delay_s.unwrap_or_default();
    let once = p.steps_once.unwrap_or_default();
    let mut line = format!(
        "Run time  : about {} ({} timed steps of {delay} s",
        human_duration(p.estimated_run_s),
        p.timed_steps - once.min(p.timed_steps),
    );
    if let Some(n) = p.repeat {
        line.push_str(&format!(" {TRIALS_SIGN} {n} trials"));
        // The steps run once: `-x`'s, and each added section's.
        let added = sections::timed(|s| p.extended && r.runs(s));
        let x_once = once - added.iter().map(|(_, n)| n).sum::<u32>().min(once);
        let words: Vec<String> = (x_once > 0)
            .then(|| format!("{x_once} of -x"))
            .into_iter()
            .chain(added.iter().map(|(title, n)| format!("{n} of {title}")))
            .collect();
        if !words.is_empty() {
            line.push_str(&format!(" and {} once", words.join(" and ")));
        }
    }
    let each = if p.repeat.is_some() {
        "each trial of"
    } else {
        "each of"
    };
    match p.io_lines {
        0 => line.push(')'),
        n => line.push_str(&format!(
            ", {each} the {n} I/O lines after a {} s rest)",
            p.io_rest_s
        )),
    }
    if let Some(b) = p.dram_bytes {
        line.push_str(&format!(
            ", plus allocating {} for the DRAM test",
            human_bytes(b)
        ));
        if p.dram_bounded_by_cgroup {
            line.push_str(", bounded by the cgroup's memory");
        }
    }
    line
}

/// `Limits    : 1 CPU (cgroup quota); memory 1 GiB (cgroup limit)`, when
/// a cgroup limits the run.
fn limits_line(r: &Report) -> Option<String> {
    let l = r.limits.as_ref()?;
    let mut parts = Vec::new();
    if let Some(q) = &l.cpu_quota {
        parts.push(q.limit_line().trim_start_matches("Limited to ").to_string());
    }
    if let Some(m) = l.memory_limit_bytes {
        let mut p = format!("memory {} (cgroup limit", human_bytes(m));
        if let Some(h) = l.memory_headroom_bytes {
            p.push_str(&format!(", {} still free", human_bytes(h)));
        }
        p.push(')');
        parts.push(p);
    }
    (!parts.is_empty()).then(|| format!("Limits    : {}", parts.join("; ")))
}

/// The lines of the `[ Plan ]` section.
pub fn plan_lines(p: &Plan, r: &Report) -> Vec<String> {
    let unknown = || "unknown".to_string();
    let mut v = Vec::new();
    if !r.runs(Section::Io) {
        v.extend(super::extended::cpufreq_line(r.cpufreq.as_ref()));
        v.extend(limits_line(r));
        v.push(run_time_line(p, r));
        v.extend(budget_line(p));
        return v;
    }
    match p.raw {
        Some(RawAccess::ReadOnly) => v.push(format!(
            "Device    : {}, raw, read only: the read lines only, nothing written",
            p.dir
        )),
        Some(RawAccess::Write) => v.push(format!(
            "Device    : {}, raw: written (destroying its data), then read back",
            p.dir
        )),
        None => {
            v.push(format!("Directory : {}", p.dir));
            v.push(format!(
                "Mount     : {} ({}, {})",
                p.mount_point.clone().unwrap_or_else(unknown),
                p.fs_type.clone().unwrap_or_else(unknown),
                p.source.clone().unwrap_or_else(unknown)
            ));
        }
    }
    v.push(format!(
        "Device(s) : {}",
        p.devices_display.clone().unwrap_or_else(unknown)
    ));
    if !p.notes.is_empty() {
        v.push(notes_line(&p.notes));
    }
    v.push(match (p.file_bytes_max, p.free_bytes, &p.skip_reason) {
        _ if p.raw.is_some() => "File      : none: the device itself, all of it split among the jobs".into(),
        (_, _, Some(why)) => {
            format!("File      : none: {why} (storage bandwidth would be skipped)")
        }
        (Some(b), Some(f), None) => format!(
            "File      : one unnamed temporary file, at most {} (--max-size {}, half of {} free)",
            human_bytes(b),
            human_bytes(p.max_size_bytes),
            human_bytes(f)
        ),
        _ => format!(
            "File      : one unnamed temporary file, at most {} (--max-size) and half the free space",
            human_bytes(p.max_size_bytes)
        ),
    });
    v.push(format!("O_DIRECT  : {}", p.direct_io));
    if let Some(c) = &p.cache_caveat {
        v.push(format!("Caches    : {c}"));
    }
    v.extend(super::extended::cpufreq_line(r.cpufreq.as_ref()));
    v.extend(limits_line(r));
    v.push(run_time_line(p, r));
    v.extend(budget_line(p));
    v
}

/// `--budget`'s line of the plan: the budget, and its minimum (the first
/// pass of trials, which the run time above is).
fn budget_line(p: &Plan) -> Option<String> {
    let (budget, min) = (p.budget_s?, p.budget_min_s.unwrap_or_default());
    Some(format!(
        "Budget    : {} (at least {}, the first pass; the rest adds trials where the figures are noisiest)",
        human_duration(budget),
        human_duration(min)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::Measured;
    use crate::dd_io::Direction;
    use crate::model::{CpuInfo, CpuInfoLine, CpuStep, Memory};

    fn step(jobs: u32, rate: f64) -> CpuStep {
        Measured::plain(LoopStep {
            jobs,
            loops_per_s_each: vec![rate; jobs as usize],
            loops_per_s_mean: rate,
            elapsed_ns: 1,
            samples: Default::default(),
            end: End::Complete,
        })
        .into()
    }

    #[test]
    fn cpu_loop_lines_have_the_originals_layout() {
        assert_eq!(
            cpu_loop_line(&step(1, 374_339.9)),
            " 1 // jobs :     374339 loop/job/s"
        );
        assert_eq!(
            cpu_loop_line(&step(16, 1_234_567_890.0)),
            "16 // jobs : 1234567890 loop/job/s"
        );
    }

    #[test]
    fn memory_lines_have_the_originals_layout() {
        assert_eq!(memory_total_line(Some(24_683_584)), "Total    : 24105 MB");
        let bw = DdBandwidth {
            bytes: 30_900_000_000,
            elapsed_ns: 1_000_000_001,
            samples: Default::default(),
            end: End::Complete,
        };
        assert_eq!(memory_bandwidth_line(Some(&bw)), "Bandwidth: 30.9 GB/s");
    }

    /// Layout of the bash original's lines, as it printed them on a
    /// 2-vCPU KVM guest: `Writes ( 1 thread[s]):     66 MB/s   16256 IO/s       0 µs avg. lat.`
    #[test]
    fn io_lines_match_the_original_layout() {
        let line = |direction, jobs, mb, iops, lat| LineResult {
            elapsed_ns: 1,
            mb_per_s: mb,
            iops,
            lat_mean_us: lat,
            ..LineResult::empty(4096, direction, jobs)
        };
        assert_eq!(
            io_line(&line(Direction::Write, 1, 66.9, 16256.7, 0.2)),
            "Writes ( 1 thread[s]):     66 MB/s   16256 IO/s       0 µs avg. lat."
        );
        assert_eq!(
            io_line(&line(Direction::Read, 16, 657.0, 766.0, 2.0)),
            "Reads  (16 thread[s]):    657 MB/s     766 IO/s       2 µs avg. lat."
        );
        let mut r = line(Direction::Write, 4, 1.0, 2.0, 3.0);
        r.end.interrupt();
        assert!(io_line(&r).ends_with("avg. lat. (interrupted)"));
        r.end.stop("x".into(), Some(libc::ENOSPC));
        assert!(io_line(&r).ends_with("avg. lat. (stopped: ENOSPC)"));
        r.end = End::Stopped {
            error: "x".into(),
            errno: None,
            interrupted: false,
        };
        assert!(io_line(&r).ends_with("avg. lat. (stopped)"));
    }

    #[test]
    fn the_table_renders_like_the_original() {
        let rows = [
            DiskRow {
                name: "vda".into(),
                bus: "virtio".into(),
                size_gib: 256,
                queue_depth: None,
                model: None,
            },
            DiskRow {
                name: "sda".into(),
                bus: "scsi".into(),
                size_gib: 3726,
                queue_depth: Some(32),
                model: Some("WDC WD40EFRX-68N".into()),
            },
        ];
        assert_eq!(
            table_lines(&rows),
            vec![
                "Name      Bus     Size(GB)  QDepth  Model",
                "vda       virtio      256        ?  ?",
                "sda       scsi       3726       32  WDC WD40EFRX-68N",
            ]
        );
    }

    #[test]
    fn sections_are_separated_by_one_blank_line_and_labels_padded() {
        let mut r = Report::new("Linux vm 6.1 #1 x86_64 GNU/Linux".into(), "vm".into());
        r.sections = vec![Section::Cpuinfo, Section::Cpu, Section::Memory];
        r.cpu_info = Some(CpuInfo {
            label_width_chars: 19,
            lines: vec![CpuInfoLine {
                label: "Socket(s):".into(),
                value: "1".into(),
            }],
            summary: None,
        });
        r.cpu_loop.push(step(1, 5.0));
        r.memory = Some(Memory {
            mem_total_kib: Some(2048),
            dd_bandwidth: None,
        });
        let text = render(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "Kernel    : Linux vm 6.1 #1 x86_64 GNU/Linux");
        for l in &lines[1..4] {
            assert_eq!(&l[10..12], ": ", "{l}");
        }
        assert!(lines[3].contains("not comparable with the bash original"));
        assert_eq!(
            lines[4..].join("\n"),
            "\n[ CPU info ]\nSocket(s):          1\n\n[ CPU loop ]\n 1 // jobs :          5 loop/job/s\n\n[ Memory ]\nTotal    : 2 MB"
        );
    }
}
