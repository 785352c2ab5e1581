//! The workspace: [`prepare`] opens the temporary file and finds what the
//! filesystem allows; [`Workspace::run_line`] runs one line and does the
//! accounting (written-extent map, histogram merge, device stat deltas).

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::blockstat::DeviceDelta;
use super::buffer::AlignedBuf;
use super::engine::{run_jobs, Check, JobPlan, SETTLE};
use super::histogram::Histogram;
use super::region::{
    file_size_bound, job_region, read_segments, written_by_job, Cursor, ExtentSet, SizeRefusal,
    Span,
};
use super::tempfile::{self, TempFile};
use super::{
    check_target, small_region, Advisory, Direction, IoConfig, IoSkip, LineResult, ReadCheck,
    SettleOnDrop, TargetPolicy,
};
use crate::blockdev::{self, BlockStat};
use crate::stats::rng::SplitMix64;
use crate::sysroot::Sysroot;

/// The open temporary file and what the run has written to it.
#[derive(Debug)]
pub struct Workspace {
    file: TempFile,
    dir: PathBuf,
    file_size_bytes: u64,
    direct_io: bool,
    memory_fs: Option<&'static str>,
    /// Buffer alignment, bytes (a power of two, >= the page size).
    align_bytes: u64,
    /// I/O offsets and sizes must be multiples of this under O_DIRECT.
    offset_align_bytes: u64,
    written: ExtentSet,
    nonce: u64,
    sysroot: Sysroot,
    /// Kernel names whose `stat` file is sampled around each line.
    stat_devs: Vec<String>,
    advisories: Vec<Advisory>,
    /// ext4 `data=journal`: O_DIRECT goes through the journal.
    journaled: bool,
    /// A raw block device (`dir` is its node), not a temporary file.
    raw: bool,
    /// A raw device opened read-only: only read lines run, and they
    /// read whatever it holds (counting zeros, no stamps to check).
    read_only: bool,
    /// Dropped after the file (fields drop in order): gives the freed
    /// space time to come back (none for a raw device).
    _settle: Option<SettleOnDrop>,
}

fn skip(reason: String) -> IoSkip {
    IoSkip { reason }
}

fn os_reason(dir: &Path, what: &str, e: &std::io::Error) -> IoSkip {
    skip(format!(
        "{}: {what}: {e}: {}",
        dir.display(),
        super::errno_hint(e.raw_os_error())
    ))
}

/// A run nonce from the clock and the pid.
fn make_nonce() -> u64 {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    SplitMix64::new(t ^ ((std::process::id() as u64) << 32)).next_u64()
}

/// The logical block size from the device's queue directory (or, for a
/// partition, its disk's), if known.
fn logical_block_size(sysroot: &Sysroot, dev: &str) -> Option<u64> {
    let disk = blockdev::whole_disk(sysroot, dev);
    let size = [dev, disk.as_str()].into_iter().find_map(|d| {
        sysroot
            .read_trimmed(blockdev::dev_path(sysroot, d, "queue/logical_block_size"))?
            .parse()
            .ok()
    });
    size
}

/// Writes then reads back one aligned block at offset 0; `Err(EINVAL)`
/// means O_DIRECT is refused at I/O time.
fn try_direct_io(fd: i32, align_bytes: u64, len_bytes: u64) -> std::io::Result<()> {
    let mut b = AlignedBuf::new(len_bytes as usize, align_bytes as usize)
        .ok_or_else(|| std::io::Error::from_raw_os_error(libc::ENOMEM))?;
    b.fill_random(1);
    for write in [true, false] {
        // SAFETY: the buffer is valid for its length.
        let r = unsafe {
            if write {
                libc::pwrite(fd, b.as_mut_ptr() as *const libc::c_void, b.len(), 0)
            } else {
                libc::pread(fd, b.as_mut_ptr() as *mut libc::c_void, b.len(), 0)
            }
        };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The environment variable of the test-only corruption seam (debug
/// builds): `QUICKBENCH_TEST_CORRUPT=OFFSET` overwrites the 4 KiB at
/// OFFSET (rounded down to 4 KiB) with other data before each read line,
/// as a failing device would, so that the tests see the reads catch it.
pub const TEST_CORRUPT_ENV: &str = "QUICKBENCH_TEST_CORRUPT";

/// Applies [`TEST_CORRUPT_ENV`] through `fd`; a release binary never does.
fn corrupt_for_tests(fd: i32, align_bytes: u64) {
    if !cfg!(debug_assertions) {
        return;
    }
    let Some(offset) = std::env::var(TEST_CORRUPT_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return;
    };
    let len = super::buffer::STAMP_UNIT_BYTES;
    let Some(mut b) = AlignedBuf::new(len, align_bytes as usize) else {
        return;
    };
    b.as_mut_slice().fill(0xa5);
    let at = offset - offset % len as u64;
    // SAFETY: the buffer is valid for its length.
    let _ = unsafe { libc::pwrite(fd, b.as_mut_ptr() as *const libc::c_void, len, at as i64) };
    let _ = tempfile::fdatasync(fd);
}

/// What the storage sections can know before the temporary file exists.
#[derive(Debug, Clone)]
pub struct Preflight {
    /// What the target decides (ext4 `data=journal`).
    pub policy: TargetPolicy,
    /// The filesystem of the directory.
    pub fs: tempfile::FsInfo,
    /// The size the file will have, bytes.
    pub file_size_bytes: u64,
}

/// Every reason to skip the storage sections that needs no file: a
/// pseudo-filesystem, a read-only mount, too little space. [`prepare`]
/// starts with it, and the command line runs it before anything is
/// measured, so that such a directory is refused at once.
pub fn preflight(cfg: &IoConfig) -> Result<Preflight, IoSkip> {
    let policy = check_target(cfg)?;
    let dir = &cfg.dir;
    let d = dir.display();
    let fs =
        tempfile::fs_info(dir).map_err(|e| os_reason(dir, "cannot query the filesystem", &e))?;
    if fs.read_only {
        return Err(skip(format!(
            "{d}: the filesystem is mounted read-only: use --dir on a writable one"
        )));
    }
    let memory_fs = tempfile::memory_fs_name(fs.fs_magic);
    let file_size_bytes =
        file_size_bound(fs.available_bytes, cfg.max_size_bytes).map_err(|r| match r {
            SizeRefusal::TooLittleSpace { .. } if memory_fs == Some("ramfs") => skip(format!(
                "{d}: ramfs has no size limit and reports no free space, so the file could not be \
                 bounded without risking all of memory: use --dir on a disk or a tmpfs"
            )),
            SizeRefusal::TooLittleSpace { available_bytes } => skip(format!(
                "{d}: only {} MiB available (64 MiB needed): free some space or use --dir elsewhere",
                available_bytes >> 20
            )),
            SizeRefusal::CapTooSmall { max_size_bytes } => skip(format!(
                "--max-size {max_size_bytes} bytes is below the 16 MiB minimum (16 regions of 1 MiB)"
            )),
        })?;
    Ok(Preflight {
        policy,
        fs,
        file_size_bytes,
    })
}

/// Opens the workspace in `cfg.dir`, or says why the sections are skipped.
pub fn prepare(cfg: &IoConfig) -> Result<Workspace, IoSkip> {
    if let Some(dev) = &cfg.device {
        return prepare_device(cfg, dev);
    }
    let dir = &cfg.dir;
    // Before the file exists: the free space to come back to.
    let settle = SettleOnDrop::new(dir);
    let Preflight {
        policy,
        fs,
        file_size_bytes,
    } = preflight(cfg)?;
    let memory_fs = tempfile::memory_fs_name(fs.fs_magic);
    let nonce = make_nonce();
    let file = tempfile::create(dir, nonce)
        .map_err(|e| os_reason(dir, "cannot create the temporary file", &e))?;
    let fd = file.fd.as_raw_fd();
    tempfile::preallocate(&file.fd, file_size_bytes).map_err(|e| {
        os_reason(
            dir,
            &format!(
                "cannot reserve {} MiB for the temporary file",
                file_size_bytes >> 20
            ),
            &e,
        )
    })?;

    let mut advisories = Vec::new();
    let page = tempfile::page_size_bytes();
    let lbs = cfg
        .stat_dev
        .as_deref()
        .and_then(|dev| logical_block_size(&cfg.sysroot, dev))
        .unwrap_or(512);
    let (mem_align, off_align) = tempfile::dio_align(fd).unwrap_or((lbs, lbs));
    let align_bytes = page
        .max(lbs)
        .max(mem_align)
        .max(off_align)
        .next_power_of_two();
    let offset_align_bytes = lbs.max(off_align).max(512);

    let mut direct_io = true;
    let refused = match tempfile::set_direct(fd, true) {
        Err(e) => Some(e),
        Ok(()) => try_direct_io(fd, align_bytes, offset_align_bytes.max(page)).err(),
    };
    if let Some(e) = refused {
        if e.raw_os_error() == Some(libc::EINVAL) {
            direct_io = false;
            let _ = tempfile::set_direct(fd, false);
            advisories.push(Advisory::Buffered { dir: dir.clone() });
        } else {
            return Err(os_reason(dir, "cannot write the temporary file", &e));
        }
    }
    if let Some(name) = memory_fs {
        advisories.push(Advisory::MemoryBacked {
            dir: dir.clone(),
            fs: name.to_string(),
        });
    }
    if policy.journaled {
        advisories.push(Advisory::Journaled);
    }
    advisories.extend(small_region(file_size_bytes, cfg.max_jobs));
    Ok(Workspace {
        file,
        dir: dir.clone(),
        file_size_bytes,
        direct_io,
        memory_fs,
        align_bytes,
        offset_align_bytes,
        written: ExtentSet::new(),
        nonce,
        sysroot: cfg.sysroot.clone(),
        stat_devs: cfg.stat_dev.iter().cloned().collect(),
        advisories,
        journaled: policy.journaled,
        raw: false,
        read_only: false,
        _settle: Some(settle),
    })
}

/// Opens the raw device of `cfg.device` (O_DIRECT; read-only unless
/// writing was consented to); its whole size, rounded down to 16 MiB, is
/// split among the jobs.
fn prepare_device(cfg: &IoConfig, dev: &super::RawDevice) -> Result<Workspace, IoSkip> {
    use std::os::unix::fs::OpenOptionsExt;
    let p = &dev.path;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(dev.write)
        .custom_flags(libc::O_DIRECT)
        .open(p)
        .map_err(|e| {
            let hint = match e.raw_os_error() {
                Some(libc::EROFS) => "the device is read-only (blockdev --setrw clears that)",
                Some(libc::EACCES) | Some(libc::EPERM) => "run as root to open a block device",
                Some(libc::EBUSY) => "another program holds it exclusively",
                _ => "check the device's health (dmesg)",
            };
            skip(format!("{}: cannot open: {e}: {hint}", p.display()))
        })?;
    let fd = file.as_raw_fd();
    // SAFETY: lseek on a descriptor we own.
    let end = unsafe { libc::lseek(fd, 0, libc::SEEK_END) };
    if end < 0 {
        return Err(os_reason(
            p,
            "cannot find its size",
            &std::io::Error::last_os_error(),
        ));
    }
    let size = end as u64 - end as u64 % super::region::SIZE_GRANULE_BYTES;
    if size == 0 {
        return Err(skip(format!(
            "{}: {} bytes, below the 16 MiB the storage lines need: use a larger device",
            p.display(),
            end
        )));
    }
    let lbs = logical_block_size(&cfg.sysroot, &dev.name).unwrap_or(512);
    let page = tempfile::page_size_bytes();
    Ok(Workspace {
        file: TempFile {
            fd: file.into(),
            anonymous: false,
        },
        dir: p.clone(),
        file_size_bytes: size,
        direct_io: true,
        memory_fs: None,
        align_bytes: page.max(lbs).next_power_of_two(),
        offset_align_bytes: lbs.max(512),
        written: ExtentSet::new(),
        nonce: make_nonce(),
        sysroot: cfg.sysroot.clone(),
        stat_devs: vec![dev.name.clone()],
        advisories: Vec::new(),
        journaled: false,
        raw: true,
        read_only: !dev.write,
        _settle: None,
    })
}

impl Workspace {
    /// O_DIRECT is in use (false: buffered fallback).
    pub fn direct_io(&self) -> bool {
        self.direct_io
    }

    /// The temporary file's size, bytes.
    pub fn file_size_bytes(&self) -> u64 {
        self.file_size_bytes
    }

    /// The memory-backed filesystem's name (tmpfs, ramfs), if it is one.
    pub fn memory_fs(&self) -> Option<&'static str> {
        self.memory_fs
    }

    /// What stderr should say before the lines run.
    pub fn advisories(&self) -> &[Advisory] {
        &self.advisories
    }

    /// The storage titles' facts: O_DIRECT reaching the device, and the
    /// memory-backed filesystem measured, if any.
    pub fn title_facts(&self) -> (bool, Option<&'static str>) {
        (self.direct_io && !self.journaled, self.memory_fs)
    }

    /// Samples these devices around each line from now on, instead of
    /// `IoConfig::stat_dev`: every device under the target (kernel names,
    /// each once, e.g. the leaves of [`crate::blockdev::DeviceLayout`]), so
    /// that [`LineResult::device_deltas`] has each one and
    /// [`LineResult::device_stat_delta`] their sum.
    pub fn set_stat_devices(&mut self, devices: &[String]) {
        self.stat_devs = devices.to_vec();
    }

    /// One snapshot of every sampled device (`None` for an unreadable or
    /// malformed stat file).
    fn device_stats(&self) -> Vec<Option<BlockStat>> {
        self.stat_devs
            .iter()
            .map(|dev| blockdev::read_block_stat(&self.sysroot, dev))
            .collect()
    }

    fn empty_result(&self, block_size_bytes: u64, direction: Direction, jobs: u32) -> LineResult {
        LineResult {
            direct_io: self.direct_io,
            memory_backed: self.memory_fs.is_some(),
            file_size_bytes: self.file_size_bytes,
            ..LineResult::empty(block_size_bytes, direction, jobs)
        }
    }

    /// Builds each job's plan; `Err(message)` when the line cannot run.
    fn plans(
        &self,
        bs: u64,
        direction: Direction,
        jobs: u32,
    ) -> Result<(Vec<Span>, Vec<JobPlan>), String> {
        if jobs == 0 {
            return Err("no job to run".into());
        }
        if self.direct_io && bs % self.offset_align_bytes != 0 {
            return Err(format!(
                "block size {bs} is not a multiple of the {} bytes O_DIRECT requires here",
                self.offset_align_bytes
            ));
        }
        let mut regions = Vec::new();
        let mut plans = Vec::new();
        for j in 0..jobs {
            let region = job_region(self.file_size_bytes, jobs, j, bs).ok_or_else(|| {
                format!(
                    "{} MiB file too small for {jobs} jobs of {bs}-byte blocks",
                    self.file_size_bytes >> 20
                )
            })?;
            let segments = match direction {
                Direction::Write if self.read_only => {
                    return Err("opened read-only: writing it needs --destroy".into())
                }
                Direction::Write => vec![region],
                // the device as it is: each job reads its own region
                Direction::Read if self.read_only => vec![region],
                Direction::Read => {
                    read_segments(&self.written, self.file_size_bytes, region, bs, j)
                }
            };
            let cursor = Cursor::new(segments, bs).ok_or_else(|| {
                "nothing written yet to read back: run a write line first".to_string()
            })?;
            let mut buf = AlignedBuf::new(bs as usize, self.align_bytes as usize)
                .ok_or_else(|| format!("cannot allocate a {bs}-byte buffer"))?;
            buf.fill_random(self.nonce ^ (j as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            regions.push(region);
            plans.push(JobPlan { cursor, buf });
        }
        Ok((regions, plans))
    }

    /// Runs one line: `jobs` jobs of `block_size_bytes` blocks in
    /// `direction` for `duration`, or until `cut` is set. Never panics on
    /// I/O errors: they end the line, which keeps what it measured.
    pub fn run_line(
        &mut self,
        block_size_bytes: u64,
        direction: Direction,
        jobs: u32,
        duration: Duration,
        cut: &AtomicBool,
    ) -> LineResult {
        let bs = block_size_bytes;
        let mut res = self.empty_result(bs, direction, jobs);
        let (regions, plans) = match self.plans(bs, direction, jobs) {
            Ok(p) => p,
            Err(msg) => {
                res.end.stop(format!("{}: {msg}", self.dir.display()), None);
                return res;
            }
        };
        let fd = self.file.fd.as_raw_fd();
        let write = direction == Direction::Write;
        if !write {
            corrupt_for_tests(fd, self.align_bytes);
        }
        let check = match (write, self.read_only) {
            (true, _) => Check::Nothing,
            (false, true) => Check::Zeros,
            (false, false) => Check::Stamps,
        };
        let (before, outcomes, samples) = match run_jobs(
            fd,
            write,
            check,
            plans,
            bs as usize,
            self.nonce,
            duration,
            cut,
            SETTLE,
            || self.device_stats(),
        ) {
            Ok(o) => o,
            Err(e) => {
                res.end
                    .stop(format!("cannot start {jobs} I/O threads: {e}"), None);
                return res;
            }
        };
        res.samples = samples;
        if !write {
            res.read_check = Some(ReadCheck {
                blocks: outcomes.iter().map(|o| o.chunks_read).sum(),
                zero_blocks: outcomes.iter().map(|o| o.zero_chunks).sum(),
                verified: check == Check::Stamps,
            });
        }
        let mut hist = Histogram::new();
        let start = outcomes
            .iter()
            .map(|o| o.start)
            .min()
            .unwrap_or_else(Instant::now);
        let mut end = outcomes.iter().map(|o| o.end).max().unwrap_or(start);
        for (o, region) in outcomes.iter().zip(&regions) {
            hist.merge(&o.hist);
            res.bytes += o.bytes;
            res.ios += o.ios;
            if o.cut {
                res.end.interrupt();
            }
            if write {
                if let Some(s) = written_by_job(*region, bs, o.ios) {
                    self.written.insert(s);
                }
            }
            if let (None, Some(m)) = (res.end.error(), o.mismatch) {
                let file = if self.raw {
                    ""
                } else {
                    " (the temporary file)"
                };
                let error = format!(
                    "{}{file}: {m}: the storage returns wrong data; check dmesg and the device's health",
                    self.dir.display()
                );
                res.end.stop(error, None);
            }
            if let (None, Some(e)) = (res.end.error(), o.error) {
                let what = if write { "write" } else { "read" };
                let error = format!(
                    "{}: {what} at offset {}: {} ({})",
                    self.dir.display(),
                    e.offset_byte,
                    std::io::Error::from_raw_os_error(e.errno),
                    crate::end::errno_name(e.errno)
                );
                res.end.stop(error, Some(e.errno));
            }
        }
        if write {
            let t = Instant::now();
            let r = tempfile::fdatasync(fd);
            end = Instant::now();
            res.fdatasync_ns = Some(end.duration_since(t).as_nanos() as u64);
            if let Err(e) = r {
                let error = format!("{}: fdatasync: {e}", self.dir.display());
                res.end.stop(error, e.raw_os_error());
            }
        }
        let after = self.device_stats();
        for ((dev, a), b) in self.stat_devs.iter().zip(&before).zip(&after) {
            if let (Some(a), Some(b)) = (a, b) {
                res.device_deltas.push(DeviceDelta {
                    device: dev.clone(),
                    delta: a.delta(b),
                });
            }
        }
        // A partial sum would undercount silently: all devices or none.
        if res.device_deltas.len() == self.stat_devs.len() {
            res.device_stat_delta = BlockStat::total(res.device_deltas.iter().map(|d| &d.delta));
        }
        let elapsed_ns = end.duration_since(start).as_nanos() as u64;
        res.elapsed_ns = elapsed_ns;
        if elapsed_ns > 0 {
            let secs = elapsed_ns as f64 / 1e9;
            res.mb_per_s = res.bytes as f64 / 1e6 / secs;
            res.iops = res.ios as f64 / secs;
        }
        let us = |ns: u64| ns as f64 / 1e3;
        res.lat_mean_us = hist.mean_ns() / 1e3;
        res.lat_p50_us = us(hist.percentile_ns(50.0));
        res.lat_p90_us = us(hist.percentile_ns(90.0));
        res.lat_p99_us = us(hist.percentile_ns(99.0));
        res.lat_p999_us = us(hist.percentile_ns(99.9));
        res.lat_max_us = us(hist.max_ns());
        res
    }
}
