//! DRAM bandwidth like STREAM (extended report).
//!
//! Two STREAM kernels over `f64` arrays far larger than the last-level
//! cache: copy (`a[i] = b[i]`, counted 16 bytes per element) and triad
//! (`a[i] = b[i] + s * c[i]`, counted 24 bytes per element), as STREAM
//! counts them (no write-allocate traffic counted), in GB/s (10^9 B/s).
//!
//! Array sizes and caps, threads, passes and stores: docs/METHOD.md "DRAM
//! bandwidth (-x): arrays, threads, passes".

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use crate::cpu_loop::smt::pin_current_thread;
use crate::sysinfo::cgroup::CgroupLimits;
use crate::sysinfo::{read_meminfo, usable_cpu_list};
use crate::Sysroot;

/// Bytes STREAM counts per element of copy: one read, one write.
pub const COPY_BYTES_PER_ELEM: u64 = 16;
/// Bytes STREAM counts per element of triad: two reads, one write.
pub const TRIAD_BYTES_PER_ELEM: u64 = 24;
/// The least size of each array.
pub const MIN_ARRAY_BYTES: u64 = 256 << 20;
/// Each array is at least this many times the last-level cache.
pub const LLC_FACTOR: u64 = 4;
/// The triad's scalar.
pub const SCALAR: f64 = 3.0;

const B_INIT: f64 = 2.0;
const C_INIT: f64 = 0.5;
const ELEM: u64 = 8;
const CMD_COPY: u32 = 0;
const CMD_TRIAD: u32 = 1;
const CMD_QUIT: u32 = 2;

/// How the kernels store their results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stores {
    /// Ordinary stores through the caches (the destination line is read
    /// first: write-allocate traffic STREAM does not count).
    Cached,
    /// Non-temporal stores (x86_64 `movntpd`), no write-allocate read.
    NonTemporal,
}

impl Stores {
    /// The default for this architecture: non-temporal where available.
    pub fn best() -> Stores {
        if cfg!(target_arch = "x86_64") {
            Stores::NonTemporal
        } else {
            Stores::Cached
        }
    }
}

/// Kept out of the cgroup's headroom before halving it: the kernel
/// charges the arrays' page tables (0.2 % of them), the threads' stacks
/// and kernel objects to the cgroup too.
pub const CGROUP_RESERVE_BYTES: u64 = 32 << 20;

/// What decided the size of the arrays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrayBound {
    /// Nothing: the wanted size (4 x LLC, at least 256 MiB) fits. Also
    /// what a report written before this field reads as (its `capped`
    /// still tells whether MemAvailable capped the arrays).
    #[default]
    Wanted,
    /// A quarter of `MemAvailable` (`/proc/meminfo`).
    MemAvailable,
    /// Half of the cgroup's memory headroom (limit minus usage) after
    /// [`CGROUP_RESERVE_BYTES`].
    CgroupMemory,
}

/// How big the arrays are, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ArrayPlan {
    /// Bytes of each of the three arrays (all threads' slices together).
    pub array_bytes: u64,
    /// The largest cache of cpu0, in bytes; `None` when sysfs lacks it.
    pub llc_bytes: Option<u64>,
    /// max(4 x LLC, 256 MiB): the size wanted before the memory cap.
    pub wanted_array_bytes: u64,
    /// `MemAvailable` of `/proc/meminfo`, in kB (KiB).
    pub mem_available_kib: Option<u64>,
    /// True when a quarter of `MemAvailable` or the cgroup's headroom made
    /// the arrays smaller than wanted.
    pub capped: bool,
    /// What the cgroup memory limits still allow (smallest limit minus
    /// usage along the cgroup path), bytes; `None` without a limit.
    #[serde(default)]
    pub cgroup_headroom_bytes: Option<u64>,
    /// Which cap decided `array_bytes`.
    #[serde(default)]
    pub bound: ArrayBound,
    /// False when even 1 MiB arrays exceed the cap: the run would risk the
    /// cgroup's out-of-memory killer (or the host's), so it should be
    /// skipped; `array_bytes` is then the 1 MiB floor. True when read from
    /// a report written before this field.
    #[serde(default = "enough_by_default")]
    pub enough_memory: bool,
}

fn enough_by_default() -> bool {
    true
}

impl ArrayPlan {
    /// A sentence for the report when the arrays are smaller than wanted.
    pub fn note(&self) -> Option<String> {
        if !self.capped {
            return None;
        }
        let why = match self.llc_bytes {
            Some(l) if l.saturating_mul(LLC_FACTOR) >= MIN_ARRAY_BYTES => {
                format!("4 x the {} last-level cache", mib(l))
            }
            _ => "the 256 MiB minimum".to_string(),
        };
        let cap = match self.bound {
            ArrayBound::CgroupMemory => {
                "half of what the cgroup memory limit still allows (limit minus usage)"
            }
            _ => "a quarter of MemAvailable",
        };
        Some(format!(
            "arrays of {} instead of {} ({why}): 3 arrays are capped to {cap}",
            mib(self.array_bytes),
            mib(self.wanted_array_bytes)
        ))
    }
}

fn mib(b: u64) -> String {
    format!("{} MiB", b >> 20)
}

/// Parses a sysfs cache `size` (`48K`, `2048K`, `32M`, `1G`, bare bytes).
pub fn parse_cache_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// The size of cpu0's highest-level cache (the largest one at that
/// level), from `/sys/devices/system/cpu/cpu0/cache/index*/{level,size}`.
pub fn llc_bytes(sys: &Sysroot) -> Option<u64> {
    let dir = "/sys/devices/system/cpu/cpu0/cache";
    let mut best: Option<(u32, u64)> = None;
    for name in sys.list_dir(dir).ok()? {
        if !name.starts_with("index") {
            continue;
        }
        let level = sys
            .read_trimmed(format!("{dir}/{name}/level"))
            .and_then(|l| l.parse::<u32>().ok());
        let size = sys
            .read_trimmed(format!("{dir}/{name}/size"))
            .and_then(|s| parse_cache_size(&s));
        if let (Some(l), Some(s)) = (level, size) {
            if best.is_none_or(|(bl, bs)| (l, s) > (bl, bs)) {
                best = Some((l, s));
            }
        }
    }
    best.map(|(_, s)| s)
}

/// Sizes the arrays from the sysroot's caches and memory
/// (`MemAvailable`) and from `limits`, this process's cgroup limits as
/// the run read them at its start.
pub fn plan_arrays(sys: &Sysroot, limits: &CgroupLimits) -> ArrayPlan {
    let llc = llc_bytes(sys);
    let avail = read_meminfo(sys).ok().and_then(|m| m.mem_available_kib);
    plan_arrays_within(llc, avail, limits.memory_headroom_bytes)
}

/// [`plan_arrays_within`] without a cgroup limit.
pub fn plan_arrays_for(llc_bytes: Option<u64>, mem_available_kib: Option<u64>) -> ArrayPlan {
    plan_arrays_within(llc_bytes, mem_available_kib, None)
}

/// The sizing rule, pure: each array max(4 x LLC, 256 MiB), the three
/// capped to a quarter of `MemAvailable` and to half of the cgroup's
/// headroom less [`CGROUP_RESERVE_BYTES`], rounded down to 1 MiB, at least
/// 1 MiB.
///
/// Why half: the headroom (limit minus `memory.current`) counts page
/// cache that reclaim could free, so the real room is larger, but other
/// processes of the same container may grow while the arrays live, and an
/// out-of-memory kill loses the whole report; half keeps it out of reach
/// while leaving the arrays as large as the cgroup sensibly allows.
pub fn plan_arrays_within(
    llc_bytes: Option<u64>,
    mem_available_kib: Option<u64>,
    cgroup_headroom_bytes: Option<u64>,
) -> ArrayPlan {
    let wanted = llc_bytes
        .map_or(0, |l| l.saturating_mul(LLC_FACTOR))
        .max(MIN_ARRAY_BYTES);
    let mut array = wanted;
    let mut bound = ArrayBound::Wanted;
    let per_array = |total: u64| (total / 3) & !((1 << 20) - 1);
    let caps = [
        (
            mem_available_kib.map(|k| per_array(k.saturating_mul(1024) / 4)),
            ArrayBound::MemAvailable,
        ),
        (
            cgroup_headroom_bytes.map(|h| per_array(h.saturating_sub(CGROUP_RESERVE_BYTES) / 2)),
            ArrayBound::CgroupMemory,
        ),
    ];
    let mut enough_memory = true;
    for (cap, b) in caps {
        if let Some(cap) = cap {
            if cap < array {
                array = cap;
                bound = b;
            }
        }
    }
    if array < 1 << 20 {
        array = 1 << 20;
        enough_memory = false;
    }
    ArrayPlan {
        array_bytes: array,
        llc_bytes,
        wanted_array_bytes: wanted,
        mem_available_kib,
        capped: bound != ArrayBound::Wanted,
        cgroup_headroom_bytes,
        bound,
        enough_memory,
    }
}

/// When a run stops passing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassLimits {
    /// Passes always done (unless interrupted).
    pub min_passes: u32,
    /// Passes never exceeded.
    pub max_passes: u32,
    /// No new pass starts once this much time has passed since the run
    /// started (allocation included), once `min_passes` are done.
    pub budget: Duration,
}

impl PassLimits {
    /// At least 3 passes, at most 50, within `budget`.
    pub fn within(budget: Duration) -> PassLimits {
        PassLimits {
            min_passes: 3,
            max_passes: 50,
            budget,
        }
    }
}

/// What a DRAM run's figures carry beside them, each with one text: the
/// text report prints it between parentheses after the run's line, its
/// reader reads it back, compare shows it beside the figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DramNote {
    /// A thread could not be pinned to its CPU ([`DramRun::pinned`]).
    NotPinned,
    /// The arrays did not hold the expected values ([`DramRun::verified`]).
    NotVerified,
}

impl DramNote {
    /// The note's words.
    pub fn text(self) -> &'static str {
        match self {
            DramNote::NotPinned => "threads not pinned",
            DramNote::NotVerified => "arrays did not verify: figure suspect",
        }
    }
}

/// One run of copy and triad with a number of threads.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DramRun {
    /// Threads, one per CPU in `cpus`.
    pub threads: u32,
    /// The CPUs the threads were pinned to (in thread order).
    pub cpus: Vec<u32>,
    /// True when every thread could be pinned.
    pub pinned: bool,
    /// Bytes of each array (all slices together).
    pub array_bytes: u64,
    /// How the kernels stored.
    pub stores: Stores,
    /// Best copy pass, in GB/s (16 bytes per element, 10^9).
    pub copy_gb_per_s: f64,
    /// Best triad pass, in GB/s (24 bytes per element, 10^9).
    pub triad_gb_per_s: f64,
    /// Passes done (each a copy and a triad).
    pub passes: u32,
    /// Each copy pass's GB/s, in order (one sample per pass).
    #[serde(default)]
    pub copy_samples: crate::samples::Samples,
    /// Each triad pass's GB/s, in order (one sample per pass).
    #[serde(default)]
    pub triad_samples: crate::samples::Samples,
    /// Wall time of the whole run, allocation included, in nanoseconds.
    pub elapsed_ns: u64,
    /// True when Ctrl-C ended the run before its passes.
    pub cut_short: bool,
    /// True when the arrays held the expected values after the run.
    pub verified: bool,
}

/// The extended report's DRAM section: 1 thread and all usable CPUs.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DramBandwidth {
    /// Array sizes and the reason.
    pub plan: ArrayPlan,
    /// With one thread.
    pub single: DramRun,
    /// With one thread per usable CPU (`None` when only one CPU).
    pub all: Option<DramRun>,
}

/// Measures with 1 thread then with all usable CPUs, each run within
/// `budget` (the loop delay), arrays sized by [`plan_arrays`] within
/// `limits`.
pub fn measure(
    sys: &Sysroot,
    limits: &CgroupLimits,
    budget: Duration,
    interrupted: &dyn Fn() -> bool,
) -> DramBandwidth {
    measure_planned(
        plan_arrays(sys, limits),
        &usable_cpu_list(sys),
        PassLimits::within(budget),
        interrupted,
    )
}

/// [`measure`] with a given plan, CPU list and limits: 1 thread on the
/// first CPU, then one per CPU (skipped after an interrupt or with one CPU).
pub fn measure_planned(
    plan: ArrayPlan,
    cpus: &[u32],
    limits: PassLimits,
    interrupted: &dyn Fn() -> bool,
) -> DramBandwidth {
    let first = [cpus.first().copied().unwrap_or(0)];
    let single = run(
        &first,
        plan.array_bytes,
        limits,
        Stores::best(),
        interrupted,
    );
    let all = (cpus.len() > 1 && !single.cut_short)
        .then(|| run(cpus, plan.array_bytes, limits, Stores::best(), interrupted));
    DramBandwidth { plan, single, all }
}

/// Owns one thread's slices of the three arrays.
struct Slices {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

/// Allocates `n` f64 filled with `v`, asking for huge pages before the
/// first touch (by the calling thread).
fn alloc_filled(n: usize, v: f64) -> Vec<f64> {
    let mut x: Vec<f64> = Vec::with_capacity(n);
    let bytes = n * std::mem::size_of::<f64>();
    if bytes >= 4 << 20 {
        let p = x.as_mut_ptr() as usize;
        let start = (p + (2 << 20) - 1) & !((2 << 20) - 1);
        let end = (p + bytes) & !((2 << 20) - 1);
        if end > start {
            // SAFETY: the range lies inside the allocation; MADV_HUGEPAGE
            // is advice only and changes no contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    x.resize(n, v);
    x
}

fn copy_cached(a: &mut [f64], b: &[f64]) {
    let n = a.len().min(b.len());
    let (a, b) = (&mut a[..n], &b[..n]);
    let mut ca = a.chunks_exact_mut(8);
    let mut cb = b.chunks_exact(8);
    for (x, y) in (&mut ca).zip(&mut cb) {
        // A fixed 64-byte move: inlined as vector loads and stores.
        x.copy_from_slice(y);
    }
    for (x, y) in ca.into_remainder().iter_mut().zip(cb.remainder()) {
        *x = *y;
    }
}

fn triad_cached(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    let n = a.len().min(b.len()).min(c.len());
    let (a, b, c) = (&mut a[..n], &b[..n], &c[..n]);
    let mut ca = a.chunks_exact_mut(8);
    let mut cb = b.chunks_exact(8);
    let mut cc = c.chunks_exact(8);
    for ((x, y), z) in (&mut ca).zip(&mut cb).zip(&mut cc) {
        for k in 0..8 {
            x[k] = y[k] + s * z[k];
        }
    }
    for ((x, y), z) in ca
        .into_remainder()
        .iter_mut()
        .zip(cb.remainder())
        .zip(cc.remainder())
    {
        *x = *y + s * *z;
    }
}

/// Elements before `a` reaches 64-byte alignment (STREAM-like kernels
/// stream whole cache lines).
#[cfg(target_arch = "x86_64")]
fn head_len(a: &[f64]) -> usize {
    let mis = (a.as_ptr() as usize) & 63;
    if mis == 0 {
        0
    } else {
        ((64 - mis) / 8).min(a.len())
    }
}

#[cfg(target_arch = "x86_64")]
fn copy_nt(a: &mut [f64], b: &[f64]) {
    use std::arch::x86_64::{_mm_loadu_pd, _mm_sfence, _mm_stream_pd};
    let n = a.len().min(b.len());
    let h = head_len(a).min(n);
    copy_cached(&mut a[..h], &b[..h]);
    let body = (n - h) / 8 * 8;
    let pa = a[h..].as_mut_ptr();
    let pb = b[h..].as_ptr();
    let mut i = 0;
    while i < body {
        // SAFETY: i + 8 <= body <= n - h elements remain after h in both
        // slices; pa + i is 16-byte aligned (pa is 64-byte aligned, i even).
        unsafe {
            _mm_stream_pd(pa.add(i), _mm_loadu_pd(pb.add(i)));
            _mm_stream_pd(pa.add(i + 2), _mm_loadu_pd(pb.add(i + 2)));
            _mm_stream_pd(pa.add(i + 4), _mm_loadu_pd(pb.add(i + 4)));
            _mm_stream_pd(pa.add(i + 6), _mm_loadu_pd(pb.add(i + 6)));
        }
        i += 8;
    }
    copy_cached(&mut a[h + body..n], &b[h + body..n]);
    // SAFETY: sfence has no preconditions; it orders the streaming stores.
    unsafe { _mm_sfence() };
}

#[cfg(target_arch = "x86_64")]
fn triad_nt(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    use std::arch::x86_64::{
        _mm_add_pd, _mm_loadu_pd, _mm_mul_pd, _mm_set1_pd, _mm_sfence, _mm_stream_pd,
    };
    let n = a.len().min(b.len()).min(c.len());
    let h = head_len(a).min(n);
    triad_cached(&mut a[..h], &b[..h], &c[..h], s);
    let body = (n - h) / 8 * 8;
    let pa = a[h..].as_mut_ptr();
    let pb = b[h..].as_ptr();
    let pc = c[h..].as_ptr();
    let mut i = 0;
    // SAFETY: as in copy_nt; all three slices have n - h elements after h.
    unsafe {
        let vs = _mm_set1_pd(s);
        while i < body {
            for k in [0, 2, 4, 6] {
                let v = _mm_add_pd(
                    _mm_loadu_pd(pb.add(i + k)),
                    _mm_mul_pd(vs, _mm_loadu_pd(pc.add(i + k))),
                );
                _mm_stream_pd(pa.add(i + k), v);
            }
            i += 8;
        }
        _mm_sfence();
    }
    triad_cached(&mut a[h + body..n], &b[h + body..n], &c[h + body..n], s);
}

/// Copy kernel with the given stores.
pub fn copy(a: &mut [f64], b: &[f64], stores: Stores) {
    match stores {
        #[cfg(target_arch = "x86_64")]
        Stores::NonTemporal => copy_nt(a, b),
        _ => copy_cached(a, b),
    }
}

/// Triad kernel with the given stores.
pub fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64, stores: Stores) {
    match stores {
        #[cfg(target_arch = "x86_64")]
        Stores::NonTemporal => triad_nt(a, b, c, s),
        _ => triad_cached(a, b, c, s),
    }
}

impl DramRun {
    /// Its notes, in the order the text report prints them.
    pub fn notes(&self) -> Vec<DramNote> {
        let mut v = Vec::new();
        if !self.pinned {
            v.push(DramNote::NotPinned);
        }
        if !self.verified {
            v.push(DramNote::NotVerified);
        }
        v
    }
}

/// The worker threads of a run, each pinned to its CPU with its own
/// arrays, driven one kernel at a time through two barriers.
struct Workers {
    cmd: Arc<AtomicU32>,
    start: Arc<Barrier>,
    done: Arc<Barrier>,
    /// Each thread's result: whether it was pinned, and its `a` array.
    handles: Vec<thread::JoinHandle<(bool, Vec<f64>)>>,
}

impl Workers {
    /// One thread per CPU of `cpus`, each with arrays of `per` elements;
    /// returns once every array is allocated and touched.
    fn spawn(cpus: &[u32], per: usize, stores: Stores) -> Workers {
        let n = cpus.len();
        let cmd = Arc::new(AtomicU32::new(CMD_QUIT));
        let start = Arc::new(Barrier::new(n + 1));
        let done = Arc::new(Barrier::new(n + 1));
        let handles = cpus
            .iter()
            .map(|&cpu| {
                let (cmd, start, done) = (Arc::clone(&cmd), Arc::clone(&start), Arc::clone(&done));
                thread::spawn(move || {
                    let pinned = pin_current_thread(cpu);
                    let mut s = Slices {
                        a: alloc_filled(per, 0.0),
                        b: alloc_filled(per, B_INIT),
                        c: alloc_filled(per, C_INIT),
                    };
                    done.wait();
                    loop {
                        start.wait();
                        match cmd.load(Ordering::Acquire) {
                            CMD_COPY => copy(&mut s.a, &s.b, stores),
                            CMD_TRIAD => triad(&mut s.a, &s.b, &s.c, SCALAR, stores),
                            _ => break,
                        }
                        done.wait();
                    }
                    (pinned, s.a)
                })
            })
            .collect();
        done.wait(); // every slice allocated and touched
        Workers {
            cmd,
            start,
            done,
            handles,
        }
    }

    /// Every thread runs kernel `c` once: the seconds until the last ends.
    fn kernel(&self, c: u32) -> f64 {
        self.cmd.store(c, Ordering::Release);
        let t0 = Instant::now();
        self.start.wait();
        self.done.wait();
        t0.elapsed().as_secs_f64()
    }

    /// Stops the threads: whether every one was pinned, and whether every
    /// `a` array holds what kernel `last` (the last run) writes.
    fn finish(self, last: u32) -> (bool, bool) {
        self.cmd.store(CMD_QUIT, Ordering::Release);
        self.start.wait();
        let mut pinned = true;
        let mut verified = true;
        let expect = match last {
            CMD_COPY => B_INIT,
            CMD_TRIAD => B_INIT + SCALAR * C_INIT,
            _ => 0.0,
        };
        for h in self.handles {
            match h.join() {
                Ok((p, a)) => {
                    pinned &= p;
                    verified &= [0, a.len() / 2, a.len() - 1]
                        .iter()
                        .all(|&i| a[i] == expect);
                }
                Err(_) => {
                    pinned = false;
                    verified = false;
                }
            }
        }
        (pinned, verified)
    }
}

/// The seconds of each pass of a run, copy then triad.
#[derive(Default)]
struct PassTimes {
    copy_secs: Vec<f64>,
    triad_secs: Vec<f64>,
    /// Complete passes (a cut pass may leave a copy time alone).
    passes: u32,
    cut_short: bool,
    /// The last kernel run, which the arrays' check expects.
    last: u32,
}

/// Passes of copy then triad within `limits`, from `t_run`, or until
/// `interrupted()` (checked between kernels).
fn time_passes(
    workers: &Workers,
    t_run: Instant,
    limits: PassLimits,
    interrupted: &dyn Fn() -> bool,
) -> PassTimes {
    let mut t = PassTimes {
        last: CMD_QUIT,
        ..PassTimes::default()
    };
    while t.passes < limits.max_passes.max(1) {
        if t.passes >= limits.min_passes && t_run.elapsed() >= limits.budget {
            break;
        }
        let mut secs = [0.0f64; 2];
        for (k, c) in [CMD_COPY, CMD_TRIAD].into_iter().enumerate() {
            if interrupted() {
                t.cut_short = true;
                break;
            }
            secs[k] = workers.kernel(c);
            t.last = c;
        }
        if t.cut_short {
            if secs[0] > 0.0 {
                t.copy_secs.push(secs[0]);
            }
            break;
        }
        t.copy_secs.push(secs[0]);
        t.triad_secs.push(secs[1]);
        t.passes += 1;
    }
    t
}

/// One run: `cpus.len()` pinned threads over arrays of `array_bytes`
/// each, passes of copy then triad within `limits`, or until
/// `interrupted()` (checked between kernels).
pub fn run(
    cpus: &[u32],
    array_bytes: u64,
    limits: PassLimits,
    stores: Stores,
    interrupted: &dyn Fn() -> bool,
) -> DramRun {
    let t_run = Instant::now();
    let nthreads = cpus.len().max(1);
    let cpus: Vec<u32> = if cpus.is_empty() {
        vec![0]
    } else {
        cpus.to_vec()
    };
    // Elements per thread, a multiple of 8 (one cache line).
    let per = ((array_bytes / ELEM) as usize / nthreads / 8 * 8).max(8);
    let total_elems = (per * nthreads) as u64;
    let workers = Workers::spawn(&cpus, per, stores);
    let t = time_passes(&workers, t_run, limits, interrupted);
    let (pinned, verified) = workers.finish(t.last);
    let best = |secs: &[f64]| secs.iter().copied().fold(f64::INFINITY, f64::min);
    let rate = |bytes_per_elem: u64, secs: f64| {
        if secs.is_finite() && secs > 0.0 {
            (total_elems * bytes_per_elem) as f64 / secs / 1e9
        } else {
            0.0
        }
    };
    let samples = |bytes_per_elem: u64, secs: &[f64]| {
        if !crate::samples::enabled() {
            return crate::samples::Samples::default();
        }
        let rates = secs.iter().map(|&t| rate(bytes_per_elem, t)).collect();
        crate::samples::Samples::new(rates, None)
    };
    DramRun {
        threads: nthreads as u32,
        cpus,
        pinned,
        array_bytes: total_elems * ELEM,
        stores,
        copy_gb_per_s: rate(COPY_BYTES_PER_ELEM, best(&t.copy_secs)),
        triad_gb_per_s: rate(TRIAD_BYTES_PER_ELEM, best(&t.triad_secs)),
        passes: t.passes,
        copy_samples: samples(COPY_BYTES_PER_ELEM, &t.copy_secs),
        triad_samples: samples(TRIAD_BYTES_PER_ELEM, &t.triad_secs),
        elapsed_ns: t_run.elapsed().as_nanos() as u64,
        cut_short: t.cut_short,
        verified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes() {
        assert_eq!(parse_cache_size("48K"), Some(48 << 10));
        assert_eq!(parse_cache_size("491520K\n"), Some(491_520 << 10));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("1024"), Some(1024));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size(""), None);
    }

    #[test]
    fn note_with_a_huge_cache_does_not_overflow() {
        // found by fuzzing (fuzz target meminfo): 4 x LLC overflowed u64 in
        // `note` (plan_arrays_for already saturated)
        let plan = plan_arrays_for(Some(u64::MAX / 2), Some(8192));
        assert!(plan.capped);
        assert!(plan.note().unwrap().contains("last-level cache"));
    }

    #[test]
    fn the_cgroup_headroom_bounds_the_arrays() {
        const MIB: u64 = 1 << 20;
        // A 1 GiB container on a host with 22 GiB available: /proc/meminfo
        // would allow 3 x 1877 MiB; the cgroup, with 100 MiB used, allows
        // (924 - 32) / 2 = 446 MiB for the three arrays.
        let p = plan_arrays_within(Some(32 * MIB), Some(22 << 20), Some(1024 * MIB - 100 * MIB));
        assert_eq!(p.bound, ArrayBound::CgroupMemory);
        assert!(p.capped && p.enough_memory);
        assert_eq!(p.array_bytes, 148 * MIB);
        assert!(3 * p.array_bytes <= (924 * MIB - CGROUP_RESERVE_BYTES) / 2);
        assert!(
            p.note().unwrap().contains("cgroup memory limit"),
            "{:?}",
            p.note()
        );
        // MemAvailable tighter than the cgroup: MemAvailable applies.
        let p = plan_arrays_within(None, Some(512 * 1024), Some(8 << 30));
        assert_eq!(p.bound, ArrayBound::MemAvailable);
        assert_eq!(p.array_bytes, 42 * MIB);
        assert!(p.note().unwrap().contains("MemAvailable"));
        // A generous cgroup: the wanted size.
        let p = plan_arrays_within(Some(32 * MIB), Some(64 << 20), Some(64 << 30));
        assert_eq!(
            (p.bound, p.capped, p.array_bytes),
            (ArrayBound::Wanted, false, 256 * MIB)
        );
        assert_eq!(p.note(), None);
        // A nearly full cgroup: not even 1 MiB arrays.
        let p = plan_arrays_within(None, Some(64 << 20), Some(36 * MIB));
        assert_eq!(p.bound, ArrayBound::CgroupMemory);
        assert!(!p.enough_memory);
        assert_eq!(p.array_bytes, MIB);
        // The old rule is unchanged without a cgroup limit.
        assert_eq!(
            plan_arrays_for(None, Some(512 * 1024)).bound,
            ArrayBound::MemAvailable
        );
        assert!(plan_arrays_for(None, Some(12 * 1024)).enough_memory);
    }

    #[test]
    fn a_plan_written_before_the_cgroup_fields_still_reads() {
        let old = r#"{"array_bytes":268435456,"llc_bytes":null,"wanted_array_bytes":268435456,"mem_available_kib":null,"capped":false}"#;
        let p: ArrayPlan = serde_json::from_str(old).unwrap();
        assert_eq!(p, plan_arrays_for(None, None));
        let p = plan_arrays_within(None, Some(64 << 20), Some(36 << 20));
        let back: ArrayPlan = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn plan_arrays_reads_the_cgroup_of_a_dump() {
        let d = tempfile::tempdir().unwrap();
        let put = |p: &str, t: &str| {
            let p = d.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        put(
            "proc/meminfo",
            "MemTotal: 32000000 kB\nMemAvailable: 30000000 kB\n",
        );
        put(
            "proc/self/mountinfo",
            "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
        );
        put("proc/self/cgroup", "0::/ctr\n");
        put("sys/fs/cgroup/ctr/memory.max", "1073741824\n");
        put("sys/fs/cgroup/ctr/memory.current", "104857600\n");
        let sys = Sysroot::new(d.path());
        let p = plan_arrays(&sys, &crate::sysinfo::cgroup::read_limits(&sys));
        assert_eq!(p.cgroup_headroom_bytes, Some(924 << 20));
        assert_eq!(p.bound, ArrayBound::CgroupMemory);
        assert_eq!(p.array_bytes, 148 << 20);
    }

    #[test]
    fn each_pass_is_a_sample_and_the_figure_is_the_best() {
        let cpus = usable_cpu_list(&Sysroot::live());
        let limits = PassLimits {
            min_passes: 4,
            max_passes: 4,
            budget: Duration::ZERO,
        };
        let r = run(&cpus[..1], 2 << 20, limits, Stores::best(), &|| false);
        for (s, best) in [
            (&r.copy_samples, r.copy_gb_per_s),
            (&r.triad_samples, r.triad_gb_per_s),
        ] {
            assert_eq!(s.samples.len(), 4, "{r:?}");
            assert_eq!(s.sample_interval_ns, None, "one sample per pass");
            let sum = s.sample_summary.as_ref().unwrap();
            assert_eq!(sum.max, best, "{r:?}");
            assert!(sum.min > 0.0);
        }
        // interrupted before a pass: no sample
        let r = run(&cpus[..1], 1 << 20, limits, Stores::best(), &|| true);
        assert!(r.copy_samples.is_empty() && r.triad_samples.is_empty());
    }

    #[test]
    fn kernels_compute_streams_values_at_every_alignment() {
        for stores in [Stores::Cached, Stores::NonTemporal] {
            for off in 0..9 {
                for n in [0usize, 1, 7, 8, 9, 63, 100] {
                    let b: Vec<f64> = (0..n + off).map(|i| i as f64).collect();
                    let c = vec![0.5; n + off];
                    let mut a = vec![-1.0; n + off];
                    copy(&mut a[off..], &b[off..], stores);
                    assert_eq!(&a[off..], &b[off..], "{stores:?} {off} {n}");
                    assert!(a[..off].iter().all(|&x| x == -1.0));
                    triad(&mut a[off..], &b[off..], &c[off..], 3.0, stores);
                    for (i, x) in a.iter().enumerate().skip(off) {
                        assert_eq!(*x, i as f64 + 1.5);
                    }
                }
            }
        }
    }
}
