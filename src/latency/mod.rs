//! Memory latency: a dependent pointer chase over random cache lines of
//! a buffer, as ns per load.
//!
//! Each line holds the address of the next; the order is one cycle
//! through every line (Sattolo's algorithm), so no load can start before
//! the previous one ends and no prefetcher can guess the next line. The
//! buffer asks for transparent huge pages (`MADV_HUGEPAGE`), whose
//! backing is read back from `/proc/self/smaps`: with them the figures
//! are the caches' and DRAM's; the TLB size instead uses one line per
//! 4 KiB page (`MADV_NOHUGEPAGE`) over more pages than a TLB holds, so
//! each load also walks the page tables.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::samples::Counter;
use crate::stats::rng::SplitMix64;
use crate::sysroot::Sysroot;

/// The chase's definition version: bumped whenever the layout, the
/// sizes' meaning or the loop changes.
pub const CHASE_VERSION: u32 = 1;

/// A cache line.
pub const LINE: usize = 64;

/// A base page.
pub const PAGE: usize = 4096;

/// A transparent huge page (x86-64 and 4 KiB-page arm64).
pub const HUGE: usize = 2 << 20;

/// The buffer sizes, each 4 times the last: from inside L1 to past any
/// last-level cache (4 × 256 MiB).
pub const SIZES: [u64; 9] = [
    16 << 10,
    64 << 10,
    256 << 10,
    1 << 20,
    4 << 20,
    16 << 20,
    64 << 20,
    256 << 20,
    1 << 30,
];

/// Pages of the TLB size: 64 MiB of 4 KiB pages, 8 times the 2048
/// entries of a large second-level TLB, while its 16384 lines (1 MiB)
/// fit the caches.
pub const TLB_PAGES: usize = 16384;

/// How the lines lie in the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Every line of the buffer, huge pages asked for.
    Lines,
    /// One line per 4 KiB page, huge pages refused.
    LinePerPage,
}

/// A chase's buffer, mapped and linked.
pub struct Chase {
    map: *mut u8,
    map_len: usize,
    start: *const u8,
    /// Loads of one cycle: the lines linked.
    pub lines: usize,
    /// The buffer's bytes.
    pub bytes: usize,
    /// KiB of the buffer that huge pages backed, when smaps was read.
    pub huge_kib: Option<u64>,
}

// SAFETY: the buffer is owned by the Chase and read by one thread at a time.
unsafe impl Send for Chase {}

/// The permutation of Sattolo's algorithm (Sattolo 1986: Fisher–Yates
/// drawing `j < i` instead of `j <= i`): `next[i]` follows `i`, and
/// following it from any line visits every line once before coming back.
pub fn sattolo(n: usize, seed: u64) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..n).rev() {
        let j = (rng.next_u64() % i as u64) as usize;
        a.swap(i, j);
    }
    a
}

impl Chase {
    /// Maps `bytes` (a multiple of 4 KiB), links its lines in one random
    /// cycle and faults it in; reads the huge pages of it from `sys`'s
    /// `/proc/self/smaps`.
    pub fn new(sys: &Sysroot, bytes: usize, layout: Layout, seed: u64) -> anyhow::Result<Chase> {
        let map_len = bytes + HUGE;
        // SAFETY: an anonymous private mapping, checked below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            anyhow::bail!(
                "mmap of {} MiB for the chase: {}",
                map_len >> 20,
                std::io::Error::last_os_error()
            );
        }
        let map = map as *mut u8;
        // Start on a huge page boundary, so that a buffer of 2 MiB or more
        // can be backed by huge pages from its first byte.
        let base = (map as usize).next_multiple_of(HUGE) as *mut u8;
        let advice = match layout {
            Layout::Lines => libc::MADV_HUGEPAGE,
            Layout::LinePerPage => libc::MADV_NOHUGEPAGE,
        };
        // SAFETY: the range lies inside the mapping. A kernel without THP
        // refuses the advice: the buffer then has base pages, as smaps says.
        unsafe { libc::madvise(base as *mut libc::c_void, bytes, advice) };
        let (lines, slot): (usize, Box<dyn Fn(usize) -> usize>) = match layout {
            Layout::Lines => (bytes / LINE, Box::new(|i| i * LINE)),
            // Lines at varied offsets in their pages, so that they do not
            // all fall in the same cache sets.
            Layout::LinePerPage => (
                bytes / PAGE,
                Box::new(|i| i * PAGE + (i * 7 % (PAGE / LINE)) * LINE),
            ),
        };
        let mut chase = Chase {
            map,
            map_len,
            start: base,
            lines,
            bytes,
            huge_kib: None,
        };
        let next = sattolo(lines, seed);
        for (i, &n) in next.iter().enumerate() {
            // SAFETY: both slots lie inside the buffer, pointer-aligned.
            unsafe { *(base.add(slot(i)) as *mut *const u8) = base.add(slot(n)) };
        }
        chase.huge_kib = huge_kib(sys, base as usize);
        Ok(chase)
    }

    /// Follows the chain for `duration`, or until `poll()` returns true
    /// (called every 10 ms by this thread while another one chases):
    /// the loads done and their time, ns.
    pub fn run(&mut self, duration: Duration, poll: &dyn Fn() -> bool) -> (u64, u64) {
        let stop = Arc::new(AtomicBool::new(false));
        let counter = Arc::new(Counter::default());
        let start = self.start as usize;
        let (s, c) = (stop.clone(), counter.clone());
        let chaser = thread::spawn(move || chase(start as *const u8, &s, &c));
        let t0 = Instant::now();
        while t0.elapsed() < duration && !poll() {
            thread::sleep(Duration::from_millis(10).min(duration.saturating_sub(t0.elapsed())));
        }
        stop.store(true, Ordering::Relaxed);
        chaser.join().unwrap_or((0, 0))
    }
}

impl Drop for Chase {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.map as *mut libc::c_void, self.map_len) };
    }
}

/// Loads of one batch: 256 of 266 ns at 1 GiB (68 µs), before the stop
/// flag is read again.
const BATCH: u64 = 256;

/// The chase from `start` until `stop`: its loads and their time, ns
/// (the first batches, which fault nothing, are timed as the others).
#[inline(never)]
fn chase(start: *const u8, stop: &AtomicBool, counter: &Counter) -> (u64, u64) {
    let mut p = start;
    let mut loads = 0u64;
    let t0 = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..BATCH / 8 {
            // SAFETY: every line holds the address of a line of the buffer,
            // which outlives the chase (`Chase::run` joins it).
            unsafe {
                p = *(p as *const *const u8);
                p = *(p as *const *const u8);
                p = *(p as *const *const u8);
                p = *(p as *const *const u8);
                p = *(p as *const *const u8);
                p = *(p as *const *const u8);
                p = *(p as *const *const u8);
                p = *(p as *const *const u8);
            }
        }
        loads += BATCH;
        counter.set(loads);
    }
    let ns = t0.elapsed().as_nanos() as u64;
    std::hint::black_box(p);
    (loads, ns)
}

/// `AnonHugePages` of the mapping holding `addr`, KiB, from `sys`'s
/// `/proc/self/smaps`; `None` when it cannot be read.
pub fn huge_kib(sys: &Sysroot, addr: usize) -> Option<u64> {
    huge_kib_in(&sys.read_to_string("/proc/self/smaps").ok()?, addr)
}

/// [`huge_kib`] of an smaps text.
pub fn huge_kib_in(smaps: &str, addr: usize) -> Option<u64> {
    let mut inside = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or_default();
        if let Some((a, b)) = first.split_once('-') {
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                inside = (a..b).contains(&addr);
                continue;
            }
        }
        if inside {
            if let Some(v) = line.strip_prefix("AnonHugePages:") {
                return v.trim().trim_end_matches("kB").trim().parse().ok();
            }
        }
    }
    None
}

/// Bytes a chase may map: a quarter of `MemAvailable` (KiB) and half of
/// the cgroup's memory headroom, whichever is less.
pub fn allowance(mem_available_kib: Option<u64>, cgroup_headroom: Option<u64>) -> u64 {
    let avail = mem_available_kib.map_or(u64::MAX, |k| k * 1024 / 4);
    avail.min(cgroup_headroom.map_or(u64::MAX, |h| h / 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sattolos_permutation_is_one_cycle_through_every_line() {
        for n in [1usize, 2, 3, 7, 64, 1000, 4096] {
            for seed in 0..5 {
                let next = sattolo(n, seed);
                let mut seen = vec![false; n];
                let mut i = 0;
                for _ in 0..n {
                    assert!(!seen[i], "n {n}: line {i} twice");
                    seen[i] = true;
                    i = next[i];
                }
                assert_eq!(i, 0, "n {n}: the cycle closes after n steps");
                assert!(seen.iter().all(|&s| s));
            }
        }
        // A plain shuffle would not do: it leaves several cycles.
        let mut shuffled: Vec<usize> = (0..1000).collect();
        shuffled.swap(0, 1);
        assert_eq!(shuffled[shuffled[0]], 0);
    }

    #[test]
    fn a_chase_visits_every_line_of_its_buffer() {
        let sys = Sysroot::live();
        for layout in [Layout::Lines, Layout::LinePerPage] {
            let c = Chase::new(&sys, 256 << 10, layout, 1).unwrap();
            let mut p = c.start;
            let mut seen = std::collections::HashSet::new();
            for _ in 0..c.lines {
                seen.insert(p as usize);
                p = unsafe { *(p as *const *const u8) };
            }
            assert_eq!(p, c.start);
            assert_eq!(seen.len(), c.lines, "{layout:?}");
        }
        let mut c = Chase::new(&sys, 64 << 10, Layout::Lines, 2).unwrap();
        let (loads, ns) = c.run(Duration::from_millis(30), &|| false);
        assert!(loads > 1000 && ns > 0, "{loads} {ns}");
    }

    #[test]
    fn huge_pages_are_read_from_the_mapping_of_the_address() {
        let smaps = "7f0000000000-7f0040000000 rw-p 00000000 00:00 0 \n\
                     Size:            1048576 kB\n\
                     AnonHugePages:   1044480 kB\n\
                     7f0040000000-7f0040001000 r--p 00000000 00:00 0 \n\
                     AnonHugePages:         0 kB\n";
        assert_eq!(huge_kib_in(smaps, 0x7f00_0020_0000), Some(1_044_480));
        assert_eq!(huge_kib_in(smaps, 0x7f00_4000_0000), Some(0));
        assert_eq!(huge_kib_in(smaps, 0x1000), None);
        assert_eq!(allowance(Some(8 << 20), None), 2 << 30);
        assert_eq!(allowance(Some(8 << 20), Some(1 << 30)), 512 << 20);
    }
}
