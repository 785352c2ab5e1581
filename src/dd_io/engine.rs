//! The job threads: synchronous `pwrite`/`pread` loops, one block at a
//! time, timed with the monotonic clock around each call.
//!
//! All jobs wait on one start gate (a barrier that the spawning thread
//! opens once every job exists, or closes if a thread could not be
//! created), take their own start instant, and stop at
//! start + duration or when the cut flag is set (both checked after every
//! I/O, with the clock reading the latency measurement already took).
//! Nothing in the loop allocates; the only syscalls are the I/O itself.
//!
//! The rest ([`SETTLE`]), the watch thread ([`WATCH_TICK`]) and the samples:
//! docs/METHOD.md "Storage jobs: the rest, the watch thread, the samples".

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::samples::{Counter, RateSampler, Samples};

use super::buffer::{AlignedBuf, Mismatch};
use super::histogram::Histogram;
use super::region::Cursor;

/// What one job does.
pub struct JobPlan {
    /// Where its blocks go (a write job: its region; a read job: written data).
    pub cursor: Cursor,
    /// Its own aligned buffer of one block.
    pub buf: AlignedBuf,
}

/// What a read job checks in each block it reads back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Nothing (writes).
    Nothing,
    /// The block was written by this run: each chunk must carry its stamp.
    Stamps,
    /// The block holds whatever was there: only count the chunks of zeros.
    Zeros,
}

/// The error that stopped a job.
#[derive(Debug, Clone, Copy)]
pub struct JobError {
    /// The OS error number.
    pub errno: i32,
    /// The offset of the failed I/O, in bytes.
    pub offset_byte: u64,
}

/// What one job measured.
pub struct JobOutcome {
    /// Bytes transferred (partial blocks included).
    pub bytes: u64,
    /// Whole blocks completed.
    pub ios: u64,
    /// Latency of each completed I/O.
    pub hist: Histogram,
    /// When the job started (after the barrier).
    pub start: Instant,
    /// When its last I/O ended.
    pub end: Instant,
    /// Stopped by the cut flag before its deadline.
    pub cut: bool,
    /// The error that stopped it, if any.
    pub error: Option<JobError>,
    /// The block read back that was not the one written, which stopped it.
    pub mismatch: Option<Mismatch>,
    /// Chunks read back (stamp units) and, of those, all zeros.
    pub chunks_read: u64,
    /// Chunks read back that were all zeros.
    pub zero_chunks: u64,
}

/// Reads or writes one whole block at `offset`: retries EINTR, continues
/// after short transfers. `Err((errno, bytes done))` on failure; a write
/// returning 0 counts as ENOSPC, a read returning 0 (end of file) as EIO.
#[inline]
fn io_block(
    fd: RawFd,
    write: bool,
    buf: *mut u8,
    len: usize,
    offset: u64,
) -> Result<(), (i32, usize)> {
    let mut done = 0usize;
    while done < len {
        // SAFETY: buf is valid for len bytes (the job's own buffer).
        let r = unsafe {
            let p = buf.add(done);
            let off = (offset + done as u64) as libc::off_t;
            if write {
                libc::pwrite(fd, p as *const libc::c_void, len - done, off)
            } else {
                libc::pread(fd, p as *mut libc::c_void, len - done, off)
            }
        };
        if r > 0 {
            done += r as usize;
        } else if r == 0 {
            return Err((if write { libc::ENOSPC } else { libc::EIO }, done));
        } else {
            let e = std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            if e != libc::EINTR {
                return Err((e, done));
            }
        }
    }
    Ok(())
}

/// The environment variable of the test-only fault seam (debug builds):
/// `QUICKBENCH_TEST_FAULT=EIO:1000` makes every job's I/O fail with EIO
/// once that job has completed 1000 I/Os (also ENOSPC, EROFS, EDQUOT,
/// EACCES). Tests use it to check how a device error mid-line is handled,
/// where no failing device can be made (no device-mapper error target).
pub const TEST_FAULT_ENV: &str = "QUICKBENCH_TEST_FAULT";

/// The fault of [`TEST_FAULT_ENV`], parsed: (errno, I/Os before it).
pub fn parse_test_fault(text: &str) -> Option<(i32, u64)> {
    let (name, after) = text.split_once(':')?;
    let errno = match name {
        "EIO" => libc::EIO,
        "ENOSPC" => libc::ENOSPC,
        "EROFS" => libc::EROFS,
        "EDQUOT" => libc::EDQUOT,
        "EACCES" => libc::EACCES,
        _ => return None,
    };
    Some((errno, after.parse().ok()?))
}

/// Only debug builds (the test suite's) read [`TEST_FAULT_ENV`]: a
/// release binary never fakes an error.
fn test_fault() -> Option<(i32, u64)> {
    if !cfg!(debug_assertions) {
        return None;
    }
    static FAULT: std::sync::OnceLock<Option<(i32, u64)>> = std::sync::OnceLock::new();
    *FAULT.get_or_init(|| parse_test_fault(&std::env::var(TEST_FAULT_ENV).ok()?))
}

/// How long the jobs rest, blocked at the start gate, before a line
/// starts (not counted in the line's time).
///
/// The scheduler keeps an estimate of each thread's CPU use (PELT), which
/// decays while the thread sleeps (half-life 32 ms). A job thread that
/// starts its loop right after CPU-bound setup (creating and reserving
/// the file, filling buffers, the previous line) starts with a high
/// estimate, and on some VMs that steers where its I/O completions run
/// (another vCPU, woken by an IPI each time) for the whole line, at about
/// half the rate (measurements in `benches/README.md`). fio's jobs rest
/// similarly while fio starts up. 200 ms leaves about 1 % of the estimate.
pub const SETTLE: Duration = Duration::from_millis(200);

/// How often the watch thread wakes while a line runs (its rest
/// included).
///
/// fio's main process wakes every 10 ms while its jobs run, to reap and
/// watch them; the watch thread does the same and nothing else, so that
/// the lines are measured under the same conditions as fio's jobs. On
/// VMs whose idle vCPUs halt, that matters: a 1-job line's completions
/// are served on the job's vCPU or on another one, woken by an IPI each
/// time (then the line runs at about a third of its rate), and the
/// wake-ups of another thread change the odds (measurements in
/// `benches/README.md`).
pub const WATCH_TICK: Duration = Duration::from_millis(10);

/// The watch thread's name (as /proc shows it).
const WATCH_THREAD_NAME: &str = "qb-io-watch";

/// The watch thread's stop flag (a condition variable, so that the watch
/// ends as soon as the line does, not up to a tick later).
#[derive(Default)]
struct Watch {
    stopped: Mutex<bool>,
    cv: Condvar,
    /// Times the watch woke (for the tests).
    wakes: std::sync::atomic::AtomicU64,
    /// The line's samples, taken at the watch's wake-ups (`None`: not sampled).
    sampling: Option<LineSampling>,
    /// The watch thread ran (without it, no samples: spreading the line's
    /// mean over its sub-intervals would fake a perfectly steady line).
    ran: AtomicBool,
}

/// What the watch needs to sample a line's rate.
struct LineSampling {
    /// One I/O counter per job.
    counters: Vec<Counter>,
    /// When the gate opened (set once, just before it opens).
    started: OnceLock<Instant>,
    /// The rates so far; locked by the watch at its wake-ups and by the
    /// caller once the jobs have ended, never by a job (so uncontended).
    sampler: Mutex<RateSampler>,
}

impl LineSampling {
    fn new(jobs: usize, interval: Duration) -> LineSampling {
        LineSampling {
            counters: (0..jobs).map(|_| Counter::default()).collect(),
            started: OnceLock::new(),
            sampler: Mutex::new(RateSampler::new(interval, 1.0)),
        }
    }

    /// At a wake-up of the watch: a sample if a boundary passed.
    fn tick(&self) {
        let Some(t0) = self.started.get() else {
            return;
        };
        let at = t0.elapsed();
        let mut s = self.sampler.lock().unwrap_or_else(|e| e.into_inner());
        if s.due(at) {
            s.observe(at, crate::samples::total(&self.counters));
        }
    }

    /// The jobs ended at `end` with `ios` I/Os in all: the samples.
    fn finish(self, end: Instant, ios: u64) -> Samples {
        let Some(t0) = self.started.get() else {
            return Samples::default();
        };
        let sampler = self.sampler.into_inner().unwrap_or_else(|e| e.into_inner());
        sampler.finish(end.saturating_duration_since(*t0), ios)
    }
}

impl Watch {
    /// A watch that samples the I/O counters of `jobs` jobs every
    /// `interval`, when there is one.
    fn sampling(jobs: usize, interval: Option<Duration>) -> Watch {
        Watch {
            sampling: interval.map(|i| LineSampling::new(jobs, i)),
            ..Watch::default()
        }
    }

    /// Job `j`'s counter, when the line is sampled.
    fn counter(&self, j: usize) -> Option<&Counter> {
        self.sampling.as_ref().map(|s| &s.counters[j])
    }

    /// The gate opens now: the samples start.
    fn mark_start(&self) {
        if let Some(s) = &self.sampling {
            let _ = s.started.set(Instant::now());
        }
    }

    fn run(&self) {
        self.ran.store(true, Ordering::Relaxed);
        let mut stopped = self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        while !*stopped {
            stopped = self
                .cv
                .wait_timeout(stopped, WATCH_TICK)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            self.wakes.fetch_add(1, Ordering::Relaxed);
            if let Some(s) = &self.sampling {
                s.tick();
            }
        }
    }

    /// Runs `f` with the watch thread awake beside it; without it if the
    /// thread cannot be created.
    fn around<R>(&self, f: impl FnOnce() -> R) -> R {
        std::thread::scope(|s| {
            let watcher = std::thread::Builder::new()
                .name(WATCH_THREAD_NAME.into())
                .spawn_scoped(s, || self.run());
            // the guard stops the watch also when `f` panics (or the scope
            // would wait for it forever)
            let result = {
                let _stop = StopOnDrop(self);
                f()
            };
            // joined here, not left to the scope: the scope only waits for
            // the thread's closure, and the thread could outlive the call
            if let Ok(h) = watcher {
                let _ = h.join();
            }
            result
        })
    }

    fn stop(&self) {
        *self.stopped.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
    }
}

/// Stops the watch when dropped.
struct StopOnDrop<'a>(&'a Watch);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Runs one job to its deadline (see the module doc).
#[allow(clippy::too_many_arguments)]
fn run_job(
    fd: RawFd,
    write: bool,
    check: Check,
    mut plan: JobPlan,
    block_size_bytes: usize,
    nonce: u64,
    duration: Duration,
    gate: &Gate,
    cut: &AtomicBool,
    counter: Option<&Counter>,
) -> JobOutcome {
    let mut hist = Histogram::new();
    let mut bytes = 0u64;
    let mut ios = 0u64;
    let mut error = None;
    let mut mismatch = None;
    let mut chunks_read = 0u64;
    let mut zero_chunks = 0u64;
    let chunks_per_block = (block_size_bytes / super::buffer::STAMP_UNIT_BYTES).max(1) as u64;
    let mut was_cut = false;
    let go = gate.wait();
    let start = Instant::now();
    if !go {
        return JobOutcome {
            bytes,
            ios,
            hist,
            start,
            end: start,
            cut: false,
            error: None,
            mismatch: None,
            chunks_read,
            zero_chunks,
        };
    }
    let deadline = start + duration;
    let mut end;
    let ptr = plan.buf.as_mut_ptr();
    let fault = test_fault();
    loop {
        let off = plan.cursor.offset_byte();
        if write {
            plan.buf.stamp(off, nonce);
        }
        let t0 = Instant::now();
        let r = match fault {
            Some((errno, after)) if ios >= after => Err((errno, 0)),
            _ => io_block(fd, write, ptr, block_size_bytes, off),
        };
        let t1 = Instant::now();
        end = t1;
        match r {
            Ok(()) => {
                hist.record(t1.duration_since(t0).as_nanos() as u64);
                bytes += block_size_bytes as u64;
                ios += 1;
                if let Some(c) = counter {
                    c.set(ios);
                }
                match check {
                    Check::Nothing => {}
                    Check::Stamps => {
                        chunks_read += chunks_per_block;
                        if let Err(m) = plan.buf.verify(off, nonce) {
                            mismatch = Some(m);
                            break;
                        }
                    }
                    Check::Zeros => {
                        let (all, zeros) = plan.buf.zero_chunks();
                        chunks_read += all;
                        zero_chunks += zeros;
                    }
                }
            }
            Err((errno, done)) => {
                bytes += done as u64;
                error = Some(JobError {
                    errno,
                    offset_byte: off,
                });
                break;
            }
        }
        if t1 >= deadline {
            break;
        }
        if cut.load(Ordering::Relaxed) {
            was_cut = true;
            break;
        }
        plan.cursor.advance();
    }
    JobOutcome {
        bytes,
        ios,
        hist,
        start,
        end,
        cut: was_cut,
        error,
        mismatch,
        chunks_read,
        zero_chunks,
    }
}

/// The start gate: jobs block until it is opened (`true`) or closed.
#[derive(Default)]
struct Gate {
    state: Mutex<Option<bool>>,
    cv: Condvar,
}

impl Gate {
    fn wait(&self) -> bool {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(go) = *g {
                return go;
            }
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn set(&self, go: bool) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(go);
        self.cv.notify_all();
    }
}

/// Runs all jobs together (one thread each) and returns what `at_start`
/// returned, the jobs' outcomes in job order and the line's samples (IO/s
/// of all jobs per sub-interval, when sampling is on); `Err` when a thread
/// could not be created (no I/O was done). Read jobs check each block
/// read as `check` says (a mismatch stops the job, [`JobOutcome::mismatch`]).
/// The jobs rest for `settle`
/// (see [`SETTLE`]), then `at_start` runs (to sample counters as close to
/// the start as possible), then the gate opens. A single job runs in the
/// calling thread (no thread to create). A watch thread wakes every
/// [`WATCH_TICK`] from the start of the rest to the last job's end; if it
/// cannot be created, the line runs without it.
#[allow(clippy::too_many_arguments)]
pub fn run_jobs<T>(
    fd: RawFd,
    write: bool,
    check: Check,
    plans: Vec<JobPlan>,
    block_size_bytes: usize,
    nonce: u64,
    duration: Duration,
    cut: &AtomicBool,
    settle: Duration,
    at_start: impl FnOnce() -> T,
) -> std::io::Result<(T, Vec<JobOutcome>, Samples)> {
    let mut watch = Watch::sampling(plans.len(), crate::samples::plan(duration));
    let ran = watch.around(|| {
        let gate = Gate::default();
        // everything it captures is Copy, so each thread gets its own copy
        let job = |plan: JobPlan, gate: &Gate, counter: Option<&Counter>| {
            run_job(
                fd,
                write,
                check,
                plan,
                block_size_bytes,
                nonce,
                duration,
                gate,
                cut,
                counter,
            )
        };
        // the rest, then the hook; the gate opens right after
        let start = || {
            crate::signals::sleep_unless(settle, &|| cut.load(Ordering::Relaxed));
            at_start()
        };
        if plans.len() == 1 {
            let started = start();
            watch.mark_start();
            gate.set(true);
            let plan = plans.into_iter().next().expect("one plan");
            return Ok((started, vec![job(plan, &gate, watch.counter(0))]));
        }
        std::thread::scope(|s| {
            let mut handles = Vec::with_capacity(plans.len());
            let mut spawn_error = None;
            for (j, plan) in plans.into_iter().enumerate() {
                let gate = &gate;
                let counter = watch.counter(j);
                let spawned = std::thread::Builder::new()
                    .name(format!("qb-io-{j}"))
                    .spawn_scoped(s, move || job(plan, gate, counter));
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        spawn_error = Some(e);
                        break;
                    }
                }
            }
            let started = match spawn_error {
                Some(e) => Err(e),
                None => Ok(start()),
            };
            if started.is_ok() {
                watch.mark_start();
            }
            gate.set(started.is_ok());
            let outcomes: Vec<JobOutcome> =
                handles.into_iter().filter_map(|h| h.join().ok()).collect();
            started.map(|s| (s, outcomes))
        })
    })?;
    let (started, outcomes) = ran;
    // the last sample ends with the last job
    let watched = watch.ran.load(Ordering::Relaxed);
    let samples = match watch.sampling.take().filter(|_| watched) {
        Some(s) => match outcomes.iter().map(|o| o.end).max() {
            Some(end) => s.finish(end, outcomes.iter().map(|o| o.ios).sum()),
            None => Samples::default(),
        },
        None => Samples::default(),
    };
    Ok((started, outcomes, samples))
}

#[cfg(test)]
mod fault_tests {
    #[test]
    fn test_fault_spec_parses() {
        assert_eq!(super::parse_test_fault("EIO:1000"), Some((libc::EIO, 1000)));
        assert_eq!(super::parse_test_fault("ENOSPC:0"), Some((libc::ENOSPC, 0)));
        assert_eq!(super::parse_test_fault("EBADF:1"), None);
        assert_eq!(super::parse_test_fault("EIO"), None);
        assert_eq!(super::parse_test_fault("EIO:x"), None);
    }
}

#[cfg(test)]
mod check_tests {
    use super::*;
    use crate::dd_io::buffer::Found;
    use crate::dd_io::region::{Cursor, Span};
    use std::os::fd::AsRawFd;

    const BS: usize = 4096;

    fn line(file: &std::fs::File, write: bool, check: Check, blocks: u64) -> Vec<JobOutcome> {
        let span = Span {
            start_byte: 0,
            end_byte: blocks * BS as u64,
        };
        let mut buf = AlignedBuf::new(BS, BS).expect("a buffer");
        buf.fill_random(3);
        let plan = JobPlan {
            cursor: Cursor::new(vec![span], BS as u64).expect("a cursor"),
            buf,
        };
        let cut = AtomicBool::new(false);
        let d = Duration::from_millis(30);
        let fd = file.as_raw_fd();
        run_jobs(
            fd,
            write,
            check,
            vec![plan],
            BS,
            7,
            d,
            &cut,
            Duration::ZERO,
            || (),
        )
        .expect("a job")
        .1
    }

    #[test]
    fn reads_check_the_stamps_written_and_count_zeros_elsewhere() {
        let file = tempfile::tempfile().expect("a temporary file");
        file.set_len(16 * BS as u64).unwrap();
        // never written: zeros, counted
        let o = &line(&file, false, Check::Zeros, 16)[0];
        assert!(o.ios > 0 && o.mismatch.is_none());
        assert_eq!((o.chunks_read, o.zero_chunks), (o.ios, o.ios));
        // written, then read back: every stamp checked
        assert!(line(&file, true, Check::Nothing, 16)[0].ios >= 16);
        let o = &line(&file, false, Check::Stamps, 16)[0];
        assert!(o.ios > 16 && o.mismatch.is_none() && o.chunks_read == o.ios);
        assert_eq!(o.zero_chunks, 0);
        // a block lost: the read stops there and names it
        use std::os::unix::fs::FileExt;
        file.write_all_at(&[0u8; BS], 5 * BS as u64).unwrap();
        let o = &line(&file, false, Check::Stamps, 16)[0];
        let m = o.mismatch.expect("a mismatch");
        assert_eq!((m.offset_byte, m.found), (5 * BS as u64, Found::Zeros));
        assert_eq!(o.ios, 6, "stopped at the sixth block");
    }
}

#[cfg(test)]
mod rest_tests {
    use super::*;
    use crate::dd_io::region::{Cursor, Span};
    use std::os::fd::AsRawFd;

    const BS: usize = 4096;

    fn plans(jobs: usize) -> Vec<JobPlan> {
        (0..jobs)
            .map(|j| {
                let start_byte = (j * 16 * BS) as u64;
                let span = Span {
                    start_byte,
                    end_byte: start_byte + (16 * BS) as u64,
                };
                JobPlan {
                    cursor: Cursor::new(vec![span], BS as u64).expect("a cursor"),
                    buf: AlignedBuf::new(BS, BS).expect("a buffer"),
                }
            })
            .collect()
    }

    /// Runs `jobs` 50 ms write jobs on a plain temporary file after a rest
    /// of `settle`; returns when run_jobs was called, when `at_start` ran,
    /// and the outcomes.
    fn run(jobs: usize, settle: Duration, cut: &AtomicBool) -> (Instant, Instant, Vec<JobOutcome>) {
        let file = tempfile::tempfile().expect("a temporary file");
        let called = Instant::now();
        let (at, outcomes, _) = run_jobs(
            file.as_raw_fd(),
            true,
            Check::Nothing,
            plans(jobs),
            BS,
            7,
            Duration::from_millis(50),
            cut,
            settle,
            Instant::now,
        )
        .expect("threads start");
        (called, at, outcomes)
    }

    #[test]
    fn jobs_start_after_the_rest_and_the_start_hook() {
        for jobs in [1, 3] {
            let cut = AtomicBool::new(false);
            let (called, at, outcomes) = run(jobs, Duration::from_millis(120), &cut);
            assert!(
                at.duration_since(called) >= Duration::from_millis(120),
                "{jobs} jobs"
            );
            assert_eq!(outcomes.len(), jobs);
            for o in &outcomes {
                // the rest is not counted in the line: each job starts after it
                assert!(
                    o.start >= at,
                    "{jobs} jobs: a job started before the rest ended"
                );
                assert!(o.ios > 0 && o.error.is_none(), "{jobs} jobs");
                assert!(o.end.duration_since(o.start) >= Duration::from_millis(50));
            }
        }
    }

    /// The ids of this process's threads named like the watch.
    fn watch_threads() -> Vec<String> {
        std::fs::read_dir("/proc/self/task")
            .expect("/proc/self/task")
            .filter_map(|e| {
                let e = e.ok()?;
                let comm = std::fs::read_to_string(e.path().join("comm")).ok()?;
                (comm.trim_end() == WATCH_THREAD_NAME)
                    .then(|| e.file_name().to_string_lossy().into_owned())
            })
            .collect()
    }

    #[test]
    fn the_watch_wakes_every_tick_and_stops_with_its_work() {
        let watch = Watch::default();
        let t0 = Instant::now();
        watch.around(|| std::thread::sleep(Duration::from_millis(150)));
        let took = t0.elapsed();
        let wakes = watch.wakes.load(Ordering::Relaxed);
        // 15 ticks in 150 ms; fewer when the machine is loaded, never
        // many more (a sleep can only run late)
        assert!((3..=17).contains(&wakes), "{wakes} wakes in {took:?}");
        // it stops as soon as the work ends, not a tick later
        assert!(
            took < Duration::from_millis(150) + WATCH_TICK * 5,
            "{took:?}"
        );
        std::thread::sleep(WATCH_TICK * 3);
        assert_eq!(
            watch.wakes.load(Ordering::Relaxed),
            wakes,
            "woke after the end"
        );
    }

    #[test]
    fn the_watch_stops_when_its_work_panics() {
        // in a thread of its own: if the watch were not stopped, `around`
        // would wait for it forever, and this test must fail, not hang
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let watch = Watch::default();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                watch.around(|| panic!("a job panicked (expected by this test)"))
            }));
            let _ = tx.send(r.is_err());
        });
        let panicked = rx.recv_timeout(Duration::from_secs(10));
        assert_eq!(panicked, Ok(true), "around() did not return after a panic");
    }

    #[test]
    fn jobs_run_with_the_watch_awake_and_it_ends_with_them() {
        for jobs in [1, 3] {
            let file = tempfile::tempfile().expect("a temporary file");
            let cut = AtomicBool::new(false);
            let (during, _, _) = run_jobs(
                file.as_raw_fd(),
                true,
                Check::Nothing,
                plans(jobs),
                BS,
                7,
                Duration::from_millis(20),
                &cut,
                Duration::from_millis(30),
                watch_threads,
            )
            .expect("threads start");
            // other tests' lines may have their own watch; this line's
            // watch was there at its start and is gone once it returns
            let after = watch_threads();
            assert!(
                during.iter().any(|t| !after.contains(t)),
                "{jobs} jobs: watch threads {during:?} during the line, {after:?} after"
            );
        }
    }

    #[test]
    fn a_line_keeps_samples_whose_mean_is_near_its_rate() {
        for jobs in [1, 2] {
            let file = tempfile::tempfile().expect("a temporary file");
            let cut = AtomicBool::new(false);
            let (opened, outcomes, samples) = run_jobs(
                file.as_raw_fd(),
                true,
                Check::Nothing,
                plans(jobs),
                BS,
                7,
                Duration::from_millis(500),
                &cut,
                Duration::from_millis(10),
                Instant::now,
            )
            .expect("threads start");
            // one sample per 50 ms sub-interval from the gate's opening to
            // the last job's end: ten, more when a job woke late or a write
            // blocked past the deadline
            assert_eq!(samples.sample_interval_ns, Some(50_000_000));
            let start = outcomes.iter().map(|o| o.start).min().unwrap();
            let end = outcomes.iter().map(|o| o.end).max().unwrap();
            let len = end.duration_since(start);
            let n = samples.samples.len() as f64;
            let most = end.duration_since(opened).as_secs_f64() / 0.05 + 1.0;
            assert!(
                n >= 10.0 && n <= most,
                "{jobs} jobs: {n} samples in {len:?}: {samples:?}"
            );
            let ios: u64 = outcomes.iter().map(|o| o.ios).sum();
            let rate = ios as f64 / len.as_secs_f64();
            let mean = samples.sample_summary.as_ref().unwrap().mean;
            assert!(
                (0.8..=1.2).contains(&(mean / rate)),
                "{jobs} jobs: samples' mean {mean} IO/s, line {rate} IO/s"
            );
        }
    }

    #[test]
    fn a_cut_during_the_rest_ends_it() {
        for jobs in [1, 2] {
            let cut = AtomicBool::new(false);
            std::thread::scope(|s| {
                s.spawn(|| {
                    std::thread::sleep(Duration::from_millis(30));
                    cut.store(true, Ordering::Relaxed);
                });
                let (called, at, outcomes) = run(jobs, Duration::from_secs(20), &cut);
                assert!(
                    at.duration_since(called) < Duration::from_secs(5),
                    "{jobs} jobs: rest not cut"
                );
                for o in &outcomes {
                    // one I/O, then the cut flag stops the job
                    assert!(
                        o.cut && o.ios == 1,
                        "{jobs} jobs: {} I/Os, cut {}",
                        o.ios,
                        o.cut
                    );
                }
            });
        }
    }
}
