//! The storage bandwidth engine behind `[ Storage bandwidth - 4k|1M blocks ]`.
//!
//! [`prepare`] opens one nameless temporary file in the benchmark directory
//! (bounded by `--max-size` and half the free space, preallocated, O_DIRECT
//! when the filesystem allows it) and returns a [`Workspace`], or an
//! [`IoSkip`] saying why the sections cannot run. [`Workspace::run_line`]
//! runs one line: `jobs` threads of synchronous sequential `pwrite`/`pread`,
//! one block at a time, each on its own region, all started together
//! (after a short rest, [`SETTLE`]) and stopped at the deadline. It returns
//! a plain [`LineResult`] (figures from the engine's own accounting, latency
//! histogram percentiles, the device's `/sys/class/block/<dev>/stat`
//! deltas) and never prints; [`format_line`] gives the report's text line.
//! Dropping the workspace closes the file, which frees its space: nothing
//! is left behind.

pub mod blockstat;
pub mod buffer;
mod engine;
pub mod histogram;
mod line;
pub mod region;
pub mod tempfile;
mod workspace;

use std::fmt;
use std::path::PathBuf;

pub use blockstat::DeviceStatDelta;
pub use engine::SETTLE;
pub use line::{format_line, Direction, LineResult};
pub use workspace::{prepare, Workspace};

use crate::sysroot::Sysroot;

/// The default `--max-size`: 4 GiB.
pub const DEFAULT_MAX_SIZE_BYTES: u64 = 4 << 30;

/// What the engine needs to know.
#[derive(Debug, Clone)]
pub struct IoConfig {
    /// The benchmark directory (a real path; the file goes there).
    pub dir: PathBuf,
    /// Upper bound of the file size, bytes (`--max-size`).
    pub max_size_bytes: u64,
    /// Where `/sys` is read from.
    pub sysroot: Sysroot,
    /// Kernel name of the device whose `/sys/class/block/<dev>/stat` is
    /// sampled around each line (a partition is fine), if there is one.
    pub stat_dev: Option<String>,
}

impl IoConfig {
    /// The defaults for `dir`: 4 GiB cap, live system, no device.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        IoConfig {
            dir: dir.into(),
            max_size_bytes: DEFAULT_MAX_SIZE_BYTES,
            sysroot: Sysroot::live(),
            stat_dev: None,
        }
    }
}

/// Why the storage bandwidth sections cannot run (names the directory and
/// says what to do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoSkip {
    /// The whole explanation, one sentence or two.
    pub reason: String,
}

impl fmt::Display for IoSkip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for IoSkip {}
