//! What one report says on one line of a comparison, typed: a [`Fact`] is
//! an information line or a figure, in a [`RowSection`]; a figure holds its
//! direction, [`Unit`], kind, trials, the step's [`End`] and its
//! [`Mark`]s. [`super::facts`] reads a report into them; nothing here
//! reads a report or compares.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::conditions::{Mark, MarkKind};
use crate::dd_io::Direction;
use crate::end::End;
use crate::membw::dram::DramNote;
use crate::model::BlockSize;
use crate::sections::RunSpread;
pub use crate::stats::Better;
use crate::stats::TrialValue;
use crate::units::dd_rate;

/// A section of a report, as compare lines its rows up: the report's own
/// sections, the `-x` ones, and the added ones (`crate::sections`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowSection {
    /// The header: version, host, kernel, build, loop, limits.
    Header,
    /// `[ CPU info ]`.
    CpuInfo,
    /// `[ CPU loop ]`.
    CpuLoop,
    /// `[ Memory ]`.
    Memory,
    /// `[ Storage info ]`.
    StorageInfo,
    /// `[ Storage device stack ]`.
    StorageStack,
    /// What the storage sections measured (or why they were skipped).
    StorageBandwidth,
    /// `[ Storage bandwidth - 4k|1M blocks ]`: the lines of one block size.
    StorageLines(BlockSize),
    /// `-x`: the CPU loop's steal and the SMT contention test.
    ExtendedCpu,
    /// `-x`: the DRAM runs.
    ExtendedMemory,
    /// `-x`: device details and latency percentiles.
    ExtendedStorage,
    /// An added section (`crate::sections::Added`), by its title.
    Added(&'static str),
}

impl RowSection {
    /// The section's title, as the comparison prints it (without a device).
    pub fn title(self) -> String {
        match self {
            RowSection::Header => "Header".into(),
            RowSection::CpuInfo => "CPU info".into(),
            RowSection::CpuLoop => "CPU loop".into(),
            RowSection::Memory => "Memory".into(),
            RowSection::StorageInfo => "Storage info".into(),
            RowSection::StorageStack => "Storage device stack".into(),
            RowSection::StorageBandwidth => "Storage bandwidth".into(),
            RowSection::StorageLines(bs) => format!("Storage bandwidth - {} blocks", bs.label()),
            RowSection::ExtendedCpu => "Extended: CPU".into(),
            RowSection::ExtendedMemory => "Extended: Memory (DRAM, STREAM-like)".into(),
            RowSection::ExtendedStorage => "Extended: Storage".into(),
            RowSection::Added(title) => title.into(),
        }
    }
}

impl fmt::Display for RowSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.title())
    }
}

/// In the JSON, a section is its title.
impl Serialize for RowSection {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.title())
    }
}

/// The unit of a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// The CPU loop: loops per job and second.
    LoopsPerJobPerSecond,
    /// The memory bandwidth, bytes per second (printed as dd does).
    BytesPerSecond,
    /// A storage line's MB/s.
    MegabytesPerSecond,
    /// A storage line's I/O per second.
    IoPerSecond,
    /// A storage line's mean latency, µs.
    MeanLatencyMicroseconds,
    /// A latency percentile (`-x`), µs.
    Microseconds,
    /// A DRAM run (`-x`), GB/s.
    GigabytesPerSecond,
    /// A ratio (`-x`: the SMT contention test).
    Ratio,
    /// A share of a step's time, percent (the time its core was not
    /// shared).
    PercentOfTime,
    /// An added section's figure's unit, by its word (`words/s`).
    Added(&'static str),
}

impl Unit {
    /// The unit as the report and the comparison print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::LoopsPerJobPerSecond => "loop/job/s",
            Unit::BytesPerSecond => "B/s",
            Unit::MegabytesPerSecond => "MB/s",
            Unit::IoPerSecond => "IO/s",
            Unit::MeanLatencyMicroseconds => "µs avg. lat.",
            Unit::Microseconds => "µs",
            Unit::GigabytesPerSecond => "GB/s",
            Unit::Ratio => "x",
            Unit::PercentOfTime => "% of the time",
            Unit::Added(word) => word,
        }
    }

    /// Whether a figure's text already says its unit: the memory
    /// bandwidth prints as dd does (`30.9 GB/s`).
    pub fn in_text(self) -> bool {
        self == Unit::BytesPerSecond
    }

    /// The unit to write after a figure's text: none where the text says
    /// it, `µs` for the mean latency.
    pub fn after_text(self) -> &'static str {
        match self {
            Unit::BytesPerSecond => "",
            Unit::MeanLatencyMicroseconds => "µs",
            u => u.as_str(),
        }
    }

    /// `v` as a report prints a figure of this unit: dd's rate for bytes
    /// per second, an added section's figure to 3 decimals at most (its
    /// section prints it, compare knows not how), else the integer.
    pub fn text(self, v: f64) -> String {
        if self.in_text() {
            dd_rate(v.max(0.0) as u64, 1_000_000_000)
        } else if let Unit::Added(_) = self {
            format!("{}", (v * 1000.0).round() / 1000.0)
        } else {
            format!("{}", v.max(0.0) as u64)
        }
    }

    /// `v` in a few characters, for the fleet table and page: `30.9 GB/s`
    /// for bytes per second, else the integer.
    pub fn short(self, v: f64) -> String {
        if self.in_text() {
            dd_rate(v.max(0.0) as u64, 1_000_000_001)
        } else if let Unit::Added(_) = self {
            self.text(v)
        } else {
            format!("{}", v.max(0.0) as u64)
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// In the JSON, a unit is as printed (`IO/s`).
impl Serialize for Unit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What kind of figure a line holds: the kinds differ in how much they
/// vary from run to run (see [`super::verdict::assumed_run_cv`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureKind {
    /// A CPU loop step (loops/s per job).
    CpuLoop,
    /// The memory bandwidth (dd-like).
    Memory,
    /// A 4k storage line's MB/s or IO/s.
    Storage4k,
    /// A 1M storage line's MB/s or IO/s.
    Storage1M,
    /// A storage latency percentile (`-x`); a line's mean latency is of
    /// its block size's kind, whose spread it shares.
    Latency,
    /// An added section's figure, with the run-to-run spread its section
    /// says.
    Added(RunSpread),
    /// The share of a step's time its core was not shared: it moves with
    /// the host's other tenants from run to run, far more than within one.
    Tenancy,
}

/// How a figure was measured: figures measured differently never compare.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Method {
    /// Our CPU loop, of this definition (`loop v1`).
    Loop(u32),
    /// The bash original's CPU loop: bash iterations.
    BashLoop,
    /// Our latency column: the mean completion time of one I/O.
    CompletionLatency,
    /// The bash original's latency column: the device's queue time (ms)
    /// divided by its I/O count, printed as µs.
    BashQueueTime,
    /// An added section's figure, of this workload or chase version
    /// (`work v1, zstd 1.6.0`).
    Version(String),
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Method::Loop(v) => write!(f, "loop v{v}"),
            Method::BashLoop => f.write_str("bash loop"),
            Method::CompletionLatency => f.write_str("completion latency"),
            Method::BashQueueTime => f.write_str("bash queue time"),
            Method::Version(v) => f.write_str(v),
        }
    }
}

/// Which line of its section a figure is, as typed data: the label is
/// its words, which only the renderer chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineId {
    /// A `[ CPU loop ]` step, by its jobs.
    CpuJobs(u32),
    /// The `[ Memory ]` bandwidth.
    MemoryBandwidth,
    /// A storage line, by its direction and jobs (its block size is its
    /// section's).
    Storage {
        /// Write or read.
        direction: Direction,
        /// Its parallel jobs.
        jobs: u32,
    },
    /// A step's rate over its samples classed alone: the CPU loop's by
    /// its jobs, the memory bandwidth's (`None`).
    Alone(Option<u32>),
    /// The share of a step's time its core was not shared, likewise.
    NotShared(Option<u32>),
    /// Any other figure (`-x`, an added section's): known by its label.
    Other,
}

impl LineId {
    /// Whether it is a step's own line, not a row of its tenancy.
    pub fn is_step(self) -> bool {
        !matches!(self, LineId::Alone(_) | LineId::NotShared(_))
    }
}

/// A figure's identity across reports: its section, its line and its
/// unit (a storage line prints MB/s, IO/s and a mean latency).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FigureKey {
    /// Its section.
    pub section: RowSection,
    /// Its line in the section.
    pub line: LineId,
    /// Its unit.
    pub unit: Unit,
}

/// What one report says on one line of the comparison.
#[derive(Debug, Clone, PartialEq)]
// A report has a few hundred facts, each read once: boxing the figures
// would save nothing worth an allocation each.
#[allow(clippy::large_enum_variant)]
pub enum Fact {
    /// A line of information (no figure).
    Info(Info),
    /// A figure.
    Figure(Figure),
}

/// An information line.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// Its section.
    pub section: RowSection,
    /// The line's label.
    pub label: String,
    /// What it says.
    pub text: String,
}

/// A figure: one line's measurement, with its trials and conditions.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Its section.
    pub section: RowSection,
    /// The line's label (with the unit when a line prints several).
    pub label: String,
    /// Which line of the section it is ([`Figure::key`]).
    pub line: LineId,
    /// Which way is better.
    pub better: Better,
    /// The unit of `value`.
    pub unit: Unit,
    /// Its kind (how much it varies from run to run).
    pub kind: FigureKind,
    /// Every trial of it in this report (one, or the trials of
    /// `--repeat`), each with the summary of its sub-interval samples when
    /// it has them, and what distorted it.
    pub trials: Vec<FactTrial>,
    /// The figure, in its unit.
    pub value: f64,
    /// As printed.
    pub text: String,
    /// How the line's step ended: a step that did not run its whole time
    /// has no figure to compare.
    pub end: End,
    /// The marks of the line (busy, steal, other I/O, cached...).
    pub marks: Vec<Mark>,
    /// Notes the report prints beside the figure that are not marks (a
    /// DRAM run's threads not pinned, arrays that did not verify).
    pub notes: Vec<DramNote>,
    /// Why this figure cannot be compared with another report's whose
    /// method differs (`loop v1`, `bash loop`).
    pub method: Option<Method>,
    /// The measurement a figure is one form of, when the report prints it
    /// several ways (a storage line's MB/s, IO/s and mean latency): the
    /// figures of one measurement count once in a comparison's family.
    pub measure: Option<String>,
}

/// One trial of a figure, and the mark that distorted it, if one did.
#[derive(Debug, Clone, PartialEq)]
pub struct FactTrial {
    /// Its value and samples.
    pub trial: TrialValue,
    /// The first of its marks that [`MarkKind::distorts`] a comparison.
    pub distorted: Option<MarkKind>,
}

impl FactTrial {
    /// A trial that nothing distorted.
    pub fn clean(trial: TrialValue) -> FactTrial {
        FactTrial {
            trial,
            distorted: None,
        }
    }
}

/// The mark among `marks` that distorts a comparison, if one does.
pub fn distortion(marks: &[Mark]) -> Option<MarkKind> {
    marks.iter().map(Mark::kind).find(|k| k.distorts())
}

impl Figure {
    /// A figure of one clean trial, complete, without marks or method.
    pub fn new(
        section: RowSection,
        label: impl Into<String>,
        (better, unit, kind): (Better, Unit, FigureKind),
        value: f64,
        text: String,
    ) -> Figure {
        Figure {
            section,
            label: label.into(),
            line: LineId::Other,
            better,
            unit,
            kind,
            trials: vec![FactTrial::clean(TrialValue::value(value))],
            value,
            text,
            end: End::Complete,
            marks: Vec::new(),
            notes: Vec::new(),
            method: None,
            measure: None,
        }
    }

    /// Its identity across reports, whatever its label's words.
    pub fn key(&self) -> FigureKey {
        FigureKey {
            section: self.section,
            line: self.line,
            unit: self.unit,
        }
    }

    /// What the report prints beside the figure, in its order: how the
    /// step ended, its marks, its notes (`interrupted`, `busy: ...`).
    pub fn mark_words(&self) -> Vec<String> {
        let mut v: Vec<String> = self.end.text().into_iter().collect();
        v.extend(self.marks.iter().map(Mark::text));
        v.extend(self.notes.iter().map(|n| n.text().to_string()));
        v
    }
}

impl Fact {
    /// An information line of `section`.
    pub fn info(section: RowSection, label: impl Into<String>, text: impl Into<String>) -> Fact {
        Fact::Info(Info {
            section,
            label: label.into(),
            text: text.into(),
        })
    }

    /// The line's section.
    pub fn section(&self) -> RowSection {
        match self {
            Fact::Info(i) => i.section,
            Fact::Figure(f) => f.section,
        }
    }

    /// The line's label.
    pub fn label(&self) -> &str {
        match self {
            Fact::Info(i) => &i.label,
            Fact::Figure(f) => &f.label,
        }
    }

    /// As printed.
    pub fn text(&self) -> &str {
        match self {
            Fact::Info(i) => &i.text,
            Fact::Figure(f) => &f.text,
        }
    }

    /// The figure, for a figure.
    pub fn figure(&self) -> Option<&Figure> {
        match self {
            Fact::Info(_) => None,
            Fact::Figure(f) => Some(f),
        }
    }

    /// The figure's value, for a figure.
    pub fn value(&self) -> Option<f64> {
        self.figure().map(|f| f.value)
    }

    /// What the report prints beside the line ([`Figure::mark_words`]).
    pub fn mark_words(&self) -> Vec<String> {
        self.figure().map(Figure::mark_words).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::Mark;

    #[test]
    fn sections_and_units_read_as_the_report_prints_them() {
        assert_eq!(
            RowSection::StorageLines(BlockSize::M1).title(),
            "Storage bandwidth - 1M blocks"
        );
        assert_eq!(RowSection::ExtendedStorage.to_string(), "Extended: Storage");
        assert_eq!(
            serde_json::to_string(&RowSection::StorageLines(BlockSize::K4)).unwrap(),
            "\"Storage bandwidth - 4k blocks\""
        );
        assert_eq!(
            serde_json::to_string(&Unit::IoPerSecond).unwrap(),
            "\"IO/s\""
        );
        // dd's rate for bytes per second (a side's median as the text
        // prints it; the fleet's short form as the table prints it), the
        // integer for the others
        assert_eq!(Unit::BytesPerSecond.text(30.9e9), "31 GB/s");
        assert_eq!(Unit::BytesPerSecond.short(30.9e9), "30.9 GB/s");
        assert_eq!(Unit::IoPerSecond.text(25000.7), "25000");
        assert_eq!(Unit::MeanLatencyMicroseconds.after_text(), "µs");
        assert_eq!(Unit::BytesPerSecond.after_text(), "");
        assert_eq!(Unit::MegabytesPerSecond.after_text(), "MB/s");
    }

    #[test]
    fn a_figure_prints_its_end_then_its_marks_then_its_notes() {
        let mut f = Figure::new(
            RowSection::Memory,
            "Bandwidth",
            (Better::Higher, Unit::BytesPerSecond, FigureKind::Memory),
            1.0,
            "1".into(),
        );
        assert!(f.mark_words().is_empty());
        f.end = End::Interrupted;
        f.marks = vec![Mark::Steal { percent: 12.0 }];
        f.notes = vec![DramNote::NotPinned];
        let words = f.mark_words();
        assert_eq!(words.len(), 3, "{words:?}");
        assert_eq!(words[0], "interrupted");
        assert_eq!(words[1], f.marks[0].text());
        assert_eq!(words[2], "threads not pinned");
        assert_eq!(distortion(&f.marks), Some(MarkKind::Steal));
        let fact = Fact::Figure(f);
        assert_eq!(
            (fact.section(), fact.value()),
            (RowSection::Memory, Some(1.0))
        );
        let info = Fact::info(RowSection::Header, "Host", "vm");
        assert_eq!(
            (info.label(), info.text(), info.value()),
            ("Host", "vm", None)
        );
        assert!(info.mark_words().is_empty());
    }
}
