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
//! histogram percentiles, the difference of each sampled device's `stat`
//! file) and never prints.
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

pub use blockstat::DeviceDelta;
pub use engine::SETTLE;
pub use line::{Direction, LineResult, ReadCheck};
pub use workspace::{preflight, prepare, Preflight, Workspace};

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
    /// Kernel name of the device whose `stat` file is sampled around each
    /// line (a partition is fine), if there is one; its
    /// queue also gives the logical block size. To sample several devices
    /// (every member of a stack), call [`Workspace::set_stat_devices`].
    pub stat_dev: Option<String>,
    /// The storage behind `dir`, when resolved: decides the policy
    /// (pseudo-filesystems skipped, ext4 `data=journal` said).
    pub target: Option<crate::blockdev::Target>,
    /// The most jobs a line will run (sizes the per-job regions).
    pub max_jobs: u32,
    /// A raw block device to measure instead of a file in `dir`
    /// (`--device`).
    pub device: Option<RawDevice>,
}

/// A block device measured raw (`--device`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawDevice {
    /// Its node, as given (`/dev/sdb`).
    pub path: PathBuf,
    /// Its kernel name (`sdb`).
    pub name: String,
    /// Writing it was consented to (`--destroy`): writes run, then reads
    /// verify them. Otherwise it is opened read-only and only read.
    pub write: bool,
}

impl IoConfig {
    /// The defaults for `dir`: 4 GiB cap, live system, no device.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        IoConfig {
            dir: dir.into(),
            max_size_bytes: DEFAULT_MAX_SIZE_BYTES,
            sysroot: Sysroot::live(),
            stat_dev: None,
            target: None,
            max_jobs: 16,
            device: None,
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

/// What stderr should say before the storage lines run, as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advisory {
    /// O_DIRECT refused: buffered I/O with fdatasync, the page cache is measured.
    Buffered {
        /// The benchmark directory.
        dir: PathBuf,
    },
    /// The filesystem is memory-backed: memory is measured.
    MemoryBacked {
        /// The benchmark directory.
        dir: PathBuf,
        /// `tmpfs`, `ramfs`.
        fs: String,
    },
    /// ext4 `data=journal` accepts O_DIRECT but serves it through the page
    /// cache and the journal.
    Journaled,
    /// The per-job regions are so small that caches may serve them.
    SmallRegion {
        /// The temporary file's size, bytes.
        file_bytes: u64,
        /// Each job's region, bytes.
        per_job_bytes: u64,
        /// Jobs of the largest line.
        jobs: u32,
    },
}

impl fmt::Display for Advisory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Advisory::Buffered { dir } => write!(
                f,
                "{}: O_DIRECT not supported by this filesystem: using buffered I/O with fdatasync; \
                 the storage figures measure the page cache, not the device",
                dir.display()
            ),
            Advisory::MemoryBacked { dir, fs } => write!(
                f,
                "{}: the filesystem is {fs}, memory-backed: the storage figures measure memory, not a disk",
                dir.display()
            ),
            Advisory::Journaled => f.write_str(
                "ext4 with data=journal does buffered I/O despite O_DIRECT: \
                 the figures include the page cache and the journal",
            ),
            Advisory::SmallRegion {
                file_bytes,
                per_job_bytes,
                jobs,
            } => write!(
                f,
                "the temporary file is only {} MiB, {} MiB per job with {jobs} jobs: \
                 jobs rewrite and reread the same few blocks, which caches may serve; \
                 a larger --max-size (or more free space) gives sounder figures",
                file_bytes >> 20,
                per_job_bytes >> 20
            ),
        }
    }
}

/// Below this region per job, the storage figures may come from caches.
pub const SMALL_REGION_BYTES: u64 = 16 << 20;

/// The small-region advisory, when a file of `file_bytes` split among
/// `max_jobs` jobs gives each less than [`SMALL_REGION_BYTES`].
pub fn small_region(file_bytes: u64, max_jobs: u32) -> Option<Advisory> {
    let jobs = max_jobs.max(1);
    let per_job_bytes = file_bytes / u64::from(jobs);
    (per_job_bytes < SMALL_REGION_BYTES).then_some(Advisory::SmallRegion {
        file_bytes,
        per_job_bytes,
        jobs,
    })
}

/// What the storage behind the directory decides before any file exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetPolicy {
    /// ext4 `data=journal`: O_DIRECT is served by the page cache.
    pub journaled: bool,
}

/// Refuses a kernel pseudo-filesystem (nothing to benchmark) and notes
/// ext4 `data=journal`; the same checks for the live engine and the
/// stand-in of the tests.
pub fn check_target(cfg: &IoConfig) -> Result<TargetPolicy, IoSkip> {
    let Some(t) = &cfg.target else {
        return Ok(TargetPolicy { journaled: false });
    };
    if crate::fsclass::is_pseudo(&t.fs_type) {
        return Err(IoSkip {
            reason: format!(
                "{} is on {} ({}), a kernel pseudo-filesystem, not storage: use --dir on a disk-backed filesystem",
                cfg.dir.display(),
                t.mount_point,
                t.fs_type
            ),
        });
    }
    Ok(TargetPolicy {
        journaled: t.fs_type.starts_with("ext")
            && t.super_options.split(',').any(|o| o == "data=journal"),
    })
}

/// What to do about an OS error of the storage sections, for stderr: one
/// table for errors on opening and in the middle of a line.
pub fn errno_hint(errno: Option<i32>) -> &'static str {
    match errno {
        Some(libc::EIO) => "the device reported an I/O error: check dmesg and the device's health",
        Some(libc::ENOSPC) => "the filesystem is full: free space or lower --max-size",
        Some(libc::EDQUOT) => "your disk quota is exceeded: lower --max-size or use --dir elsewhere",
        Some(libc::EROFS) => {
            "the filesystem became read-only (often after errors): check dmesg, or use --dir on a writable one"
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "permission denied: use --dir on a directory you may write"
        }
        Some(libc::ENOENT) | Some(libc::ENOTDIR) => "no such directory: check --dir",
        _ => "use --dir on another filesystem",
    }
}

/// Once the temporary file is closed, asks the filesystem to finish
/// freeing it (xfs and btrfs release the space of an unlinked file in the
/// background; `syncfs` completes that), so that the free space is back to
/// where it was when quickbench exits.
#[derive(Debug)]
pub struct SettleOnDrop {
    dir: PathBuf,
    /// Bytes available before the temporary file existed.
    free_before: Option<u64>,
}

/// How long to wait at most for a filesystem to give the space back.
const SETTLE_MAX: std::time::Duration = std::time::Duration::from_secs(3);

fn available_bytes(dir: &std::path::Path) -> Option<u64> {
    tempfile::fs_info(dir).ok().map(|f| f.available_bytes)
}

impl SettleOnDrop {
    /// Notes the free space of `dir` now.
    pub fn new(dir: &std::path::Path) -> Self {
        SettleOnDrop {
            dir: dir.to_path_buf(),
            free_before: available_bytes(dir),
        }
    }
}

impl Drop for SettleOnDrop {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        if let Ok(d) = std::fs::File::open(&self.dir) {
            // SAFETY: syncfs only reads the descriptor, which `d` keeps open.
            unsafe { libc::syncfs(d.as_raw_fd()) };
        }
        // xfs frees an unlinked file from a background worker even after
        // syncfs: wait (briefly, bounded) until the space is back. Other
        // writers may change the figure meanwhile; 1 MiB of slack keeps
        // their noise from costing the full wait.
        let Some(before) = self.free_before else {
            return;
        };
        let t0 = std::time::Instant::now();
        while available_bytes(&self.dir).is_some_and(|now| now + (1 << 20) < before)
            && t0.elapsed() < SETTLE_MAX
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
