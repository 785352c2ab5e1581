//! The report model: plain typed data for a whole run, or for a report read
//! back from text or JSON.
//!
//! The bottom of the report's layers: it embeds the measuring modules'
//! data types and imports nothing that renders, reads, plans or runs. The
//! runner fills a [`Report`] section by section; the renderers turn it
//! into the text report or the JSON document; the readers turn our text,
//! our JSON and the bash original's text back into it. The JSON document
//! *is* this model, serialized: a few parts are written in their printed
//! form (the CPU info lines, the device stack's lines, the failed
//! sections' names), through small serde views below and the render and
//! parse pairs of [`forms`]. Facts that only a text report carries (the
//! bash original's header, sections this model does not structure) are
//! kept beside it, never in the JSON.

pub mod added;
pub mod forms;
pub mod trials;
pub mod wire;

use serde::{Deserialize, Serialize};

pub use crate::blockdev::{Stack, StackNode};

use crate::blockdev::details::DeviceDetails;
use crate::blockdev::{DiskRow, Target};
use crate::conditions::{CpuConditions, LineConditions, Measured, MemoryConditions, StepLoad};
use crate::cpu_loop::smt::SmtContention;
use crate::cpu_loop::LoopStep;
use crate::dd_io::LineResult;
use crate::membw::dram::DramBandwidth;
use crate::membw::DdBandwidth;
use crate::sysinfo::cpu::CpuSummary;

/// Version of the JSON document's layout: bumped (major) whenever a key
/// changes meaning or disappears; new keys keep it.
pub const SCHEMA_VERSION: u32 = 1;

/// The version of the bash original whose report this port reproduces.
pub const ORIGINAL_VERSION: &str = "1.0";

pub use added::{LatencyFigure, WorkFigure};
pub use trials::{Repeated, RoundTrial, TrialOrder};

/// One run of a `[ CPU loop ]` step with its conditions (load, clock) and
/// marks.
pub type CpuTrial = Measured<LoopStep, CpuConditions>;

/// A `[ CPU loop ]` step: its median run, and its trials with `--repeat`.
pub type CpuStep = Repeated<CpuTrial>;

/// One run of the memory `Bandwidth` step with its conditions and marks.
pub type MemoryTrial = Measured<DdBandwidth, MemoryConditions>;

/// The memory `Bandwidth` step: its median run, and its trials.
pub type MemoryStep = Repeated<MemoryTrial>;

/// One run of a `[ Storage bandwidth ]` line with its conditions (load,
/// reach) and marks.
pub type IoTrial = Measured<LineResult, LineConditions>;

/// A `[ Storage bandwidth ]` line: its median run, and its trials.
pub type IoLine = Repeated<IoTrial>;

/// A section of the report that `--only` / `--skip` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    /// `[ CPU info ]`
    Cpuinfo,
    /// `[ CPU loop ]`
    Cpu,
    /// `[ Memory ]`
    Memory,
    /// `[ Storage info ]` (and the device stack)
    Storage,
    /// `[ Storage bandwidth - ... ]`
    Io,
    /// `[ Extended: CPU work ]` (with `-x`)
    Work,
    /// `[ Extended: Memory latency ]` (with `-x`)
    Latency,
}

impl Section {
    /// Every section, in report order.
    pub const ALL: [Section; 7] = [
        Section::Cpuinfo,
        Section::Cpu,
        Section::Memory,
        Section::Storage,
        Section::Io,
        Section::Work,
        Section::Latency,
    ];

    /// The name used on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Section::Cpuinfo => "cpuinfo",
            Section::Cpu => "cpu",
            Section::Memory => "memory",
            Section::Storage => "storage",
            Section::Io => "io",
            Section::Work => "work",
            Section::Latency => "latency",
        }
    }

    /// Its title and its description in the man page (`--only` and
    /// `--skip`'s list), written beside the variant so that a new section
    /// is described where it is declared.
    pub fn doc(self) -> (&'static str, &'static str) {
        match self {
            Section::Cpuinfo => (
                "[ CPU info ]",
                "The model name, threads per core, cores per socket and sockets, as lscpu \
                 prints them; as root, the model name the firmware gives.",
            ),
            Section::Cpu => (
                "[ CPU loop ]",
                "A busy loop on 1, 2, 4 ... parallel jobs, up to the CPUs this process may \
                 use: loops per second of one job. A drop at some job count means the \
                 extra CPUs are SMT threads sharing cores.",
            ),
            Section::Memory => (
                "[ Memory ]",
                "MemTotal, and the bandwidth of dd if=/dev/zero of=/dev/null bs=1M (a cache \
                 bandwidth, not a DRAM one).",
            ),
            Section::Storage => (
                "[ Storage info ]",
                "Each block device with its bus, size, queue depth and model, and the \
                 device stack (LVM, LUKS, md, btrfs, ZFS, loop) under the benchmarked \
                 filesystem.",
            ),
            Section::Io => (
                "[ Storage bandwidth ]",
                "On the filesystem of the benchmark directory: synchronous O_DIRECT writes, \
                 then reads, with 1, 4 and 16 jobs, in 4k and in 1M blocks: MB/s, IO/s and \
                 the mean completion latency.",
            ),
            Section::Work => (
                "[ Extended: CPU work ]",
                "With -x: zstd compression and decompression of synthetic text, and \
                 SHA-256, on 1 job and on all CPUs: MB/s of one job, with each \
                 workload's version and its library's.",
            ),
            Section::Latency => (
                "[ Extended: Memory latency ]",
                "With -x: a dependent pointer chase over random cache lines of buffers \
                 of 16 KiB to 1 GiB, and over more 4 KiB pages than a TLB holds: ns \
                 per load, and whether huge pages backed the buffer.",
            ),
        }
    }
}

/// A block size of the storage bandwidth sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BlockSize {
    /// 4 KiB: the IOPS-bound section.
    K4,
    /// 1 MiB: the bandwidth-bound section.
    M1,
}

impl BlockSize {
    /// Both, in report order.
    pub const ALL: [BlockSize; 2] = [BlockSize::K4, BlockSize::M1];

    /// Bytes per I/O.
    pub fn bytes(self) -> u64 {
        match self {
            BlockSize::K4 => 4 << 10,
            BlockSize::M1 => 1 << 20,
        }
    }

    /// The label of the report and the command line: `4k`, `1M`.
    pub fn label(self) -> &'static str {
        match self {
            BlockSize::K4 => "4k",
            BlockSize::M1 => "1M",
        }
    }

    /// The block size of `bytes`, if it is one of ours.
    pub fn from_bytes(bytes: u64) -> Option<BlockSize> {
        BlockSize::ALL.into_iter().find(|b| b.bytes() == bytes)
    }

    /// The block size labelled `label` (`4k`, `1M`).
    pub fn from_label(label: &str) -> Option<BlockSize> {
        BlockSize::ALL.into_iter().find(|b| b.label() == label)
    }
}

/// What the header states so that two reports can be compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// This port's version (Cargo.toml).
    pub port_version: String,
    /// What `uname -a` prints.
    pub kernel: String,
    /// `rustc --version` at build time.
    pub rustc: String,
    /// The target triple built for.
    pub target: String,
    /// True for a statically linked executable.
    pub static_build: bool,
    /// The CPU loop's definition version.
    pub loop_version: u32,
    /// A few words on what one loop is.
    pub loop_description: String,
}

impl Header {
    /// The header of this build, for the given `uname -a` text.
    pub fn this_build(kernel: String) -> Header {
        Header {
            port_version: env!("CARGO_PKG_VERSION").to_string(),
            kernel,
            rustc: env!("QB_RUSTC_VERSION").to_string(),
            target: env!("QB_TARGET").to_string(),
            static_build: cfg!(target_feature = "crt-static"),
            loop_version: crate::cpu_loop::LOOP_VERSION,
            loop_description: crate::cpu_loop::LOOP_DESCRIPTION.to_string(),
        }
    }
}

/// The header of a report printed by the bash original, which names the
/// bash and dd versions its figures depend on instead of a build.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Original {
    /// `Quickbench: 1.0`.
    pub version: String,
    /// The `Bash      :` line's value, when present.
    pub bash: Option<String>,
    /// The `dd        :` line's value, when present.
    pub dd: Option<String>,
}

/// One `Label: value` line of `[ CPU info ]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuInfoLine {
    /// With its colon: `Model name:`.
    pub label: String,
    /// The value, as lscpu prints it.
    pub value: String,
}

/// `[ CPU info ]`: the lines lscpu would print, and the summary behind them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "CpuInfoWire", try_from = "CpuInfoWire")]
pub struct CpuInfo {
    /// lscpu's label column width, in characters (values start one space
    /// after it).
    pub label_width_chars: usize,
    /// The lines, in order; empty when no CPU was found.
    pub lines: Vec<CpuInfoLine>,
    /// The structured summary (live runs and JSON only).
    pub summary: Option<CpuSummary>,
}

impl CpuInfo {
    /// The info of a summary.
    pub fn from_summary(summary: CpuSummary) -> CpuInfo {
        CpuInfo {
            label_width_chars: summary.label_width_chars,
            lines: summary
                .entries()
                .into_iter()
                .map(|(label, value)| CpuInfoLine { label, value })
                .collect(),
            summary: Some(summary),
        }
    }
}

/// The JSON form of [`CpuInfo`]: the exact text lines and the summary.
#[derive(Serialize, Deserialize)]
struct CpuInfoWire {
    lines: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    summary: Option<CpuSummary>,
}

impl From<CpuInfo> for CpuInfoWire {
    fn from(c: CpuInfo) -> Self {
        CpuInfoWire {
            lines: forms::cpuinfo::render(&c),
            summary: c.summary,
        }
    }
}

impl TryFrom<CpuInfoWire> for CpuInfo {
    type Error = String;
    fn try_from(w: CpuInfoWire) -> Result<Self, String> {
        let mut info = forms::cpuinfo::parse(&w.lines)?;
        info.summary = w.summary;
        Ok(info)
    }
}

/// `[ Memory ]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "MemoryWire", from = "MemoryWire")]
pub struct Memory {
    /// `MemTotal` of /proc/meminfo, KiB (what `Total` shows, `>> 10`).
    pub mem_total_kib: Option<u64>,
    /// The dd-equivalent measurement (`/dev/zero` to `/dev/null`, 1 MiB).
    /// Read back from text, it is a rate equal to the printed one (the
    /// bytes of one second).
    pub dd_bandwidth: Option<MemoryStep>,
}

/// The JSON form of [`Memory`], with the printed figures beside the raw ones.
#[derive(Serialize, Deserialize)]
struct MemoryWire {
    mem_total_kib: Option<u64>,
    total_mb: Option<u64>,
    dd_bandwidth: Option<MemoryStep>,
    dd_bandwidth_bytes_per_s: Option<f64>,
    dd_bandwidth_text: Option<String>,
}

impl From<Memory> for MemoryWire {
    fn from(m: Memory) -> Self {
        MemoryWire {
            mem_total_kib: m.mem_total_kib,
            total_mb: m.mem_total_kib.map(|k| k >> 10),
            dd_bandwidth_bytes_per_s: m.dd_bandwidth.as_ref().map(|b| b.bytes_per_s()),
            dd_bandwidth_text: m
                .dd_bandwidth
                .as_ref()
                .map(|b| crate::units::dd_rate(b.bytes, b.elapsed_ns)),
            dd_bandwidth: m.dd_bandwidth,
        }
    }
}

impl From<MemoryWire> for Memory {
    fn from(w: MemoryWire) -> Self {
        Memory {
            mem_total_kib: w.mem_total_kib.or(w.total_mb.map(|mb| mb << 10)),
            dd_bandwidth: w.dd_bandwidth,
        }
    }
}

/// `[ Storage device stack ]` in the JSON: its printed lines
/// ([`forms::stack`]), `null` when there is none.
mod stack_lines {
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};

    use super::{forms, Stack};

    pub fn serialize<S: Serializer>(stack: &Option<Stack>, s: S) -> Result<S::Ok, S::Error> {
        stack.as_ref().map(forms::stack::render).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Stack>, D::Error> {
        Option::<Vec<String>>::deserialize(d)?
            .map(|lines| forms::stack::parse(&lines))
            .transpose()
            .map_err(D::Error::custom)
    }
}

/// How the storage bandwidth sections ran: what their titles say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoSetup {
    /// The device name of the titles (`vda`, `dm-1`, `tmpfs`); `None` for
    /// the bash original's releases that printed no device.
    pub device: Option<String>,
    /// The memory-backed filesystem measured (tmpfs, ramfs), if any.
    pub memory_fs: Option<String>,
    /// O_DIRECT reached the device (false: buffered fallback, or ext4
    /// `data=journal`, which serves O_DIRECT through the page cache).
    pub direct_io: bool,
    /// No local block device (FUSE, NFS, CIFS, 9p, virtiofs): what reaches
    /// a disk is up to the filesystem's server or daemon.
    #[serde(default)]
    pub remote: bool,
    /// A raw block device was measured (`--device`): read only, or
    /// written with consent (`--destroy`); absent for a filesystem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<RawAccess>,
}

/// How a raw device was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RawAccess {
    /// Opened read-only: the read lines only.
    ReadOnly,
    /// Written (`--destroy`), then read back.
    Write,
}

/// The sections `--extended` adds (steal time and clock are in each CPU
/// loop step's `conditions`; latency percentiles and device counters in
/// each storage line).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Extended {
    /// Two jobs on SMT siblings against two on separate cores.
    #[serde(rename = "smt_probe")]
    pub smt_contention: Option<SmtContention>,
    /// DRAM copy and triad, 1 thread and all CPUs.
    pub dram: Option<DramBandwidth>,
    /// Queue settings of the benchmarked device(s).
    pub device_details: Vec<DeviceDetails>,
    /// What else the host did during the SMT contention test.
    #[serde(default, rename = "smt_probe_load")]
    pub smt_contention_load: Option<StepLoad>,
    /// What else the host did during the DRAM runs.
    #[serde(default)]
    pub dram_load: Option<StepLoad>,
    /// Read from a text report whose extended sections do not render back
    /// the same from what was read of them (an older layout, a line the
    /// reader does not know): their lines are kept in
    /// [`Report::raw_sections`] and printed from there.
    #[serde(skip)]
    pub kept_as_text: bool,
    /// Read from a text report: the storage lines (indices into
    /// [`Report::storage_bandwidth`]) whose `-x` latency line did not
    /// read. Their percentiles are unknown, not zero: they stay at the
    /// line's default and nothing compares them.
    #[serde(skip)]
    pub latency_unread: Vec<usize>,
}

impl Extended {
    /// Whether storage line `i`'s latency percentiles were read (always,
    /// but from a text report whose `-x` line for it did not read).
    pub fn has_latency(&self, i: usize) -> bool {
        !self.latency_unread.contains(&i)
    }
}

/// `[ Plan ]` of `--dry-run`: what a full run would do (computed by
/// `crate::plan`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Plan {
    /// The benchmark directory, as given.
    pub dir: String,
    /// Its mount point, filesystem type and source, when resolved.
    pub mount_point: Option<String>,
    /// Filesystem type (`ext4`).
    pub fs_type: Option<String>,
    /// Mount source (`/dev/vda`).
    pub source: Option<String>,
    /// The name used in the bandwidth titles.
    pub devices_display: Option<String>,
    /// Bytes available to an unprivileged user at plan time.
    pub free_bytes: Option<u64>,
    /// Upper bound of the temporary file in bytes (`--max-size` and half the
    /// free space); `None` when the free space is unknown.
    pub file_bytes_max: Option<u64>,
    /// Why the storage bandwidth sections would be skipped, if they would.
    pub skip_reason: Option<String>,
    /// Whether O_DIRECT is expected to work, in words.
    pub direct_io: String,
    /// Estimated wall time of the full report for this loop delay (and
    /// `--repeat`: every trial counted).
    pub estimated_run_s: f64,
    /// Number of timed steps that make up the estimate (each once, however
    /// many trials `--repeat` asks).
    pub timed_steps: u32,
    /// `-x`: the extended sections are counted, the added ones among them.
    #[serde(default)]
    pub extended: bool,
    /// Memory the `-x` DRAM test would use (three arrays), bytes.
    pub dram_bytes: Option<u64>,
    /// What the device names do not show (partition of which disk, dm
    /// name, md level, loop backing file, overlay upper directory).
    #[serde(default)]
    pub notes: Vec<String>,
    /// When the figures may come from a cache rather than the device
    /// (FUSE, a network filesystem, ext4 `data=journal`, memory), why.
    #[serde(default)]
    pub cache_caveat: Option<String>,
    /// True when the cgroup's memory headroom bounds the DRAM arrays.
    #[serde(default)]
    pub dram_bounded_by_cgroup: bool,
    /// The `--max-size` in force, bytes.
    #[serde(default)]
    pub max_size_bytes: u64,
    /// Number of storage bandwidth lines the run would have.
    #[serde(default)]
    pub io_lines: u32,
    /// The rest before each storage line, seconds.
    #[serde(default)]
    pub io_rest_s: f64,
    /// Trials of each timed step (`--repeat`), when more than one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// With `--repeat`: how many of `timed_steps` run once all the same
    /// (those of `-x`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_once: Option<u32>,
    /// `--budget`, seconds: the whole run's time, the first pass included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// With `--budget`: the least budget it takes, the first pass of
    /// trials (`estimated_run_s` without the budget), seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_min_s: Option<f64>,
    /// A raw device would be measured (`--device`), `dir` naming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<RawAccess>,
}

/// A section that could not run, and why (the exit status is 1 when there
/// is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The section.
    pub section: Section,
    /// What went wrong, in words (empty when read from a JSON document,
    /// which keeps only the names).
    pub reason: String,
}

/// The failed sections, once each, in report order. In the JSON: names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Vec<Section>", from = "Vec<Section>")]
pub struct Failures(Vec<Failure>);

impl Failures {
    /// Records a failure of `section` (the first reason is kept).
    pub fn add(&mut self, section: Section, reason: impl Into<String>) {
        if !self.contains(section) {
            self.0.push(Failure {
                section,
                reason: reason.into(),
            });
            self.0.sort_by_key(|f| f.section);
        }
    }

    /// True when `section` failed.
    pub fn contains(&self, section: Section) -> bool {
        self.0.iter().any(|f| f.section == section)
    }

    /// True when nothing failed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The failures, in report order.
    pub fn iter(&self) -> impl Iterator<Item = &Failure> {
        self.0.iter()
    }
}

impl From<Failures> for Vec<Section> {
    fn from(f: Failures) -> Self {
        f.0.into_iter().map(|f| f.section).collect()
    }
}

impl From<Vec<Section>> for Failures {
    fn from(v: Vec<Section>) -> Self {
        let mut f = Failures::default();
        for s in v {
            f.add(s, "");
        }
        f
    }
}

/// A section kept as its printed lines: one that this model does not
/// structure when read from text (the extended sections, the plan).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSection {
    /// The title, without the brackets.
    pub title: String,
    /// Its lines.
    pub lines: Vec<String>,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// A whole report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// Version of the JSON document's layout ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Build and version facts (the text header). For a report of the bash
    /// original, only `kernel` is known; see `original`.
    pub quickbench: Header,
    /// Host name (uname nodename).
    pub hostname: String,
    /// When the run started, UTC, RFC 3339 (`2026-12-02T15:20:00Z`).
    pub timestamp_utc: Option<String>,
    /// The loop delay, seconds, when known.
    pub loop_delay_s: Option<f64>,
    /// Trials of each timed step of the standard report (`--repeat`); 1,
    /// and no key in the JSON, without it.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub repeat: u32,
    /// Trials within each loop delay (K): each timed step of the standard
    /// report ran K trials of about a K-th of the delay, interleaved with
    /// its section's other steps; `repeat` × K trials in all. 1, and no
    /// key in the JSON, when the steps ran as one block.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub trials_per_delay: u32,
    /// `--budget`, seconds: after the first pass of each section's trials,
    /// trials were added where the intervals were widest, within this
    /// whole-run time. Absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// How the trials of `--repeat` were ordered (the seed, each round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trial_order: Option<TrialOrder>,
    /// The benchmark directory, as given (`--dir`, default `.`).
    #[serde(default)]
    pub dir: Option<String>,
    /// The sections selected, in report order.
    pub sections: Vec<Section>,
    /// True for `--dry-run` (nothing measured).
    pub dry_run: bool,
    /// The cgroup limits the run was under (CPU quota, memory limit),
    /// when read; from a text report, what its lines say.
    #[serde(default)]
    pub limits: Option<crate::sysinfo::cgroup::CgroupLimits>,
    /// Frequency scaling as read at the start (governor, limits, boost),
    /// when the host has cpufreq.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpufreq: Option<crate::sysinfo::cpufreq::Cpufreq>,
    /// The benchmark directory and the storage behind it.
    pub storage_target: Option<Target>,
    /// `[ CPU info ]`.
    pub cpu_info: Option<CpuInfo>,
    /// `[ CPU loop ]` steps.
    pub cpu_loop: Vec<CpuStep>,
    /// `[ Memory ]`.
    pub memory: Option<Memory>,
    /// `[ Storage info ]` rows.
    pub storage_info: Option<Vec<DiskRow>>,
    /// `[ Storage device stack ]`, when the device is stacked.
    #[serde(default, with = "stack_lines")]
    pub storage_stack: Option<Stack>,
    /// What the storage bandwidth titles say, once they ran.
    #[serde(default)]
    pub storage_io: Option<IoSetup>,
    /// `[ Storage bandwidth ]` lines, 4k then 1M.
    pub storage_bandwidth: Vec<IoLine>,
    /// Why the storage bandwidth sections did not run, or stopped early.
    pub storage_bandwidth_skipped: Option<String>,
    /// `[ Plan ]` of `--dry-run`.
    pub plan: Option<Plan>,
    /// What `--extended` adds.
    pub extended: Option<Extended>,
    /// `[ Extended: CPU work ]`: each workload at each job count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_work: Vec<WorkFigure>,
    /// `[ Extended: Memory latency ]`: each buffer size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_latency: Vec<LatencyFigure>,
    /// Sections that could not run (the exit status is then 1).
    pub failed_sections: Failures,
    /// For a report printed by the bash original: its header.
    #[serde(skip)]
    pub original: Option<Original>,
    /// The filesystem and device of the `Run` header line, when read from
    /// text (a run or a JSON document has them in `storage_target`).
    #[serde(skip)]
    pub run_fs_device: Option<(String, String)>,
    /// Sections read from text that the model does not structure, in order
    /// (they come after every structured one).
    #[serde(skip)]
    pub raw_sections: Vec<RawSection>,
    /// Lines read from text that belong to no section's layout (messages a
    /// script sent to stdout, such as a `grep:` error).
    #[serde(skip)]
    pub stray_lines: Vec<String>,
}

impl Report {
    /// Trials of each timed step in all: `repeat` rounds of
    /// `trials_per_delay` trials.
    pub fn trials_per_step(&self) -> u32 {
        self.repeat.max(1) * self.trials_per_delay.max(1)
    }

    /// An empty report of this build, for `kernel` (the `uname -a` text).
    pub fn new(kernel: String, hostname: String) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            quickbench: Header::this_build(kernel),
            hostname,
            timestamp_utc: None,
            loop_delay_s: None,
            repeat: 1,
            trials_per_delay: 1,
            budget_s: None,
            trial_order: None,
            dir: None,
            sections: Vec::new(),
            dry_run: false,
            limits: None,
            cpufreq: None,
            storage_target: None,
            cpu_info: None,
            cpu_loop: Vec::new(),
            memory: None,
            storage_info: None,
            storage_stack: None,
            storage_io: None,
            storage_bandwidth: Vec::new(),
            storage_bandwidth_skipped: None,
            plan: None,
            extended: None,
            cpu_work: Vec::new(),
            memory_latency: Vec::new(),
            failed_sections: Failures::default(),
            original: None,
            run_fs_device: None,
            raw_sections: Vec::new(),
            stray_lines: Vec::new(),
        }
    }

    /// True when `s` was selected.
    pub fn runs(&self, s: Section) -> bool {
        self.sections.contains(&s)
    }

    /// The exit status this report calls for: 0, or 1 when a section
    /// could not run.
    pub fn exit_status(&self) -> u8 {
        u8::from(!self.failed_sections.is_empty())
    }

    /// The storage lines of one block size, in order.
    pub fn lines_of(&self, bs: BlockSize) -> impl Iterator<Item = &IoLine> {
        self.storage_bandwidth
            .iter()
            .filter(move |l| l.block_size_bytes == bs.bytes())
    }

    /// Where the run wrote: the directory (resolved when the storage was),
    /// and its filesystem and device when known.
    pub fn place(&self) -> Option<(String, Option<(String, String)>)> {
        match &self.storage_target {
            Some(t) => Some((
                t.path.display().to_string(),
                Some((t.fs_type.clone(), t.display.clone())),
            )),
            None => self.dir.clone().map(|d| (d, self.run_fs_device.clone())),
        }
    }

    /// The block sizes that have lines, in report order.
    pub fn block_sizes(&self) -> Vec<BlockSize> {
        BlockSize::ALL
            .into_iter()
            .filter(|b| self.lines_of(*b).next().is_some())
            .collect()
    }
}
