//! One measured line: the plain result and its report text.

use serde::{Deserialize, Serialize};

use super::blockstat::DeviceDelta;
use crate::blockdev::BlockStat;
use crate::end::End;

/// Write or read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// `pwrite`, then one `fdatasync`.
    Write,
    /// `pread` of data this run wrote.
    Read,
}

/// What a read line found in the blocks it read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadCheck {
    /// Chunks read back (4 KiB stamp units, or one smaller block each).
    pub blocks: u64,
    /// Of those, the chunks that were all zeros.
    pub zero_blocks: u64,
    /// Each chunk was checked against the stamp this run wrote there
    /// (false: the data was not ours, only the zeros were counted).
    pub verified: bool,
}

impl ReadCheck {
    /// The share of chunks read that were zeros, percent; `None` when
    /// nothing was read.
    pub fn zero_percent(&self) -> Option<f64> {
        (self.blocks > 0).then(|| 100.0 * self.zero_blocks as f64 / self.blocks as f64)
    }
}

/// One measured line.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct LineResult {
    /// Block size, bytes (4096 or 1048576).
    pub block_size_bytes: u64,
    /// "write" or "read".
    pub direction: Direction,
    /// Number of concurrent jobs.
    pub jobs: u32,
    /// Bytes transferred by all jobs.
    pub bytes: u64,
    /// Whole-block I/Os completed by all jobs.
    pub ios: u64,
    /// From the first job's start to the last job's end (after the
    /// `fdatasync` for writes), ns.
    pub elapsed_ns: u64,
    /// The line's IO/s (all jobs) in each sub-interval of its I/O loop
    /// (`samples`, `sample_interval_ns`, `sample_summary`); MB/s is
    /// IO/s x the block size.
    #[serde(flatten)]
    pub samples: crate::samples::Samples,
    /// Time the final `fdatasync` took (writes), ns.
    pub fdatasync_ns: Option<u64>,
    /// bytes / elapsed, 10^6 bytes per second.
    pub mb_per_s: f64,
    /// ios / elapsed, per second.
    pub iops: f64,
    /// Mean completion latency of one I/O, µs.
    pub lat_mean_us: f64,
    /// Median latency, µs (histogram bucket top, within 3 %).
    pub lat_p50_us: f64,
    /// 90th percentile latency, µs.
    pub lat_p90_us: f64,
    /// 99th percentile latency, µs.
    pub lat_p99_us: f64,
    /// 99.9th percentile latency, µs.
    pub lat_p999_us: f64,
    /// Largest latency, µs (exact).
    pub lat_max_us: f64,
    /// The sampled devices' stat deltas over the line, summed; `None` when
    /// no device was sampled or one of them had no readable stat file.
    pub device_stat_delta: Option<BlockStat>,
    /// Each sampled device's own deltas, in sampling order (those whose
    /// stat file could be read before and after the line).
    #[serde(default)]
    pub device_deltas: Vec<DeviceDelta>,
    /// O_DIRECT was in use (false: buffered fallback, page cache measured).
    pub direct_io: bool,
    /// The filesystem is memory-backed (tmpfs, ramfs): memory is measured.
    pub memory_backed: bool,
    /// Size of the temporary file, bytes.
    pub file_size_bytes: u64,
    /// Reads: what the blocks read back held (absent for writes and in
    /// reports read back from text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_check: Option<ReadCheck>,
    /// Complete, ended early by the cut flag (Ctrl-C; figures are over
    /// the real elapsed time), or stopped by an error (ENOSPC, EIO...;
    /// figures are what was measured until then). `cut_short`, `error`
    /// and `error_errno` in the JSON.
    #[serde(flatten)]
    pub end: End,
}

impl LineResult {
    /// A line with nothing measured yet: zero figures, O_DIRECT, no error.
    pub fn empty(block_size_bytes: u64, direction: Direction, jobs: u32) -> LineResult {
        LineResult {
            block_size_bytes,
            direction,
            jobs,
            bytes: 0,
            ios: 0,
            elapsed_ns: 0,
            samples: Default::default(),
            fdatasync_ns: None,
            mb_per_s: 0.0,
            iops: 0.0,
            lat_mean_us: 0.0,
            lat_p50_us: 0.0,
            lat_p90_us: 0.0,
            lat_p99_us: 0.0,
            lat_p999_us: 0.0,
            lat_max_us: 0.0,
            device_stat_delta: None,
            device_deltas: Vec::new(),
            direct_io: true,
            memory_backed: false,
            file_size_bytes: 0,
            read_check: None,
            end: End::Complete,
        }
    }
}

impl Direction {
    /// The report's label: `Writes`, `Reads`.
    pub fn label(self) -> &'static str {
        match self {
            Direction::Write => "Writes",
            Direction::Read => "Reads",
        }
    }
}
