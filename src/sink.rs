//! What a run hands to its outputs: each piece of the report ([`Item`]) as
//! soon as it is known, then the end of the run. The runner emits, the
//! renderers ([`Output`]s: the text sink streams each item, the JSON sink
//! writes the whole report at the end) receive; both import this module
//! and neither imports the other.

use std::io;

use crate::model::{BlockSize, Report};

/// One piece of the report, written as soon as it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// The header lines.
    Header,
    /// `[ CPU info ]` and its lines.
    CpuInfo,
    /// `[ CPU loop ]`, before its first step runs.
    CpuLoopTitle,
    /// One CPU loop step (index in `cpu_loop`).
    CpuStep(usize),
    /// `[ Memory ]` and its `Total` line.
    MemoryTotal,
    /// The `Bandwidth` line.
    MemoryBandwidth,
    /// `[ Storage info ]` and its table.
    StorageInfo,
    /// `[ Storage device stack ]`.
    StorageStack,
    /// `[ Storage bandwidth ]` with the reason it did not run.
    StorageSkipped,
    /// One storage bandwidth title, before its lines run.
    BandwidthTitle(BlockSize),
    /// One storage bandwidth line (index in `storage_bandwidth`).
    BandwidthLine(usize),
    /// `[ Extended: CPU ]`.
    ExtendedCpu,
    /// `[ Extended: Memory (DRAM, STREAM-like) ]`.
    ExtendedMemory,
    /// `[ Extended: Storage ]`.
    ExtendedStorage,
    /// An added section (index in `sections::added()`), whole.
    Added(usize),
    /// `[ Plan ]` of `--dry-run`.
    Plan,
    /// A section kept as lines (index in `raw_sections`).
    Raw(usize),
}

/// Where the report goes: the text renderer streams each item, the JSON
/// renderer writes the whole document at the end.
pub trait Output {
    /// `item` of `report` is known.
    fn item(&mut self, report: &Report, item: Item) -> io::Result<()>;
    /// The run is over (completely or not).
    fn finish(&mut self, report: &Report) -> io::Result<()>;
}

/// Several outputs at once (`--json` with `--text-out`).
impl Output for Vec<Box<dyn Output + '_>> {
    fn item(&mut self, report: &Report, item: Item) -> io::Result<()> {
        self.iter_mut().try_for_each(|o| o.item(report, item))
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        self.iter_mut().try_for_each(|o| o.finish(report))
    }
}
