//! The `[ CPU loop ]` step: a busy loop per job, jobs in parallel, each for
//! the loop delay; the figure is the mean of the jobs' loops per second.
//!
//! **One loop** (version [`LOOP_VERSION`]) is one iteration of [`body`]:
//! eight independent 64-bit chains, each advanced by one multiply by an odd
//! constant followed by an xor with itself shifted right (a different shift
//! per chain). Everything stays in registers: no memory traffic, no atomics,
//! no shared cache line. Eight independent chains make the loop
//! throughput-bound (the multiplier port is the bottleneck, not the chains'
//! latency), so two jobs on SMT siblings of one core visibly slow each other
//! while jobs on distinct cores do not. The stop flag is read (relaxed) once
//! every [`BATCH`] loops. Changing the body changes [`LOOP_VERSION`].
//!
//! How the samples are taken: docs/METHOD.md "CPU loop samples: the jobs' counters".

use std::cell::RefCell;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

pub mod mhz;
pub mod smt;

use crate::end::End;
use crate::samples::core::{CoreCounter, CoreProbe, CoreTotals};

/// The definition of one loop; printed in the header. Bump it whenever
/// [`body`] changes, since figures are then no longer comparable.
pub const LOOP_VERSION: u32 = 1;

/// A one-line description of the loop for the header.
pub const LOOP_DESCRIPTION: &str = "8 independent multiply-xorshift chains";

/// The most work per cycle the loop allows on x86-64: eight 64-bit
/// multiplies a loop, and one multiplier issue a cycle (every x86-64 core
/// since Nehalem and Bulldozer). Alone, cores reach 99 % of it.
pub const LOOPS_PER_CYCLE_BOUND: Option<f64> = if cfg!(target_arch = "x86_64") {
    Some(1.0 / 8.0)
} else {
    None
};

/// Loops between two reads of the stop flag.
pub const BATCH: u64 = 4096;

/// One CPU loop step: `jobs` jobs running together.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LoopStep {
    /// Number of jobs (threads) run together.
    pub jobs: u32,
    /// Loops per second of each job, over its own elapsed time.
    pub loops_per_s_each: Vec<f64>,
    /// Mean of `loops_per_s_each`: the figure printed.
    pub loops_per_s_mean: f64,
    /// Wall time of the step, in nanoseconds.
    pub elapsed_ns: u64,
    /// The jobs' mean loops per second of one job in each sub-interval
    /// (`samples`, `sample_interval_ns`, `sample_summary`).
    #[serde(flatten)]
    pub samples: crate::samples::Samples,
    /// Complete, or cut short by Ctrl-C before the loop delay (`cut_short`
    /// in the JSON).
    #[serde(rename = "cut_short", with = "crate::end::cut_short")]
    pub end: End,
}

/// Job counts of the steps: 1, 2, 4, 8 ... while at most `usable_cpus`.
pub fn job_counts(usable_cpus: usize) -> Vec<u32> {
    let mut v = Vec::new();
    let mut j = 1usize;
    while j <= usable_cpus.max(1) {
        v.push(j as u32);
        j *= 2;
    }
    v
}

/// One loop, on eight chains held in registers.
#[inline(always)]
fn body(s: &mut [u64; 8]) {
    const M: u64 = 0x9E37_79B9_7F4A_7C15;
    s[0] = s[0].wrapping_mul(M);
    s[0] ^= s[0] >> 29;
    s[1] = s[1].wrapping_mul(M);
    s[1] ^= s[1] >> 31;
    s[2] = s[2].wrapping_mul(M);
    s[2] ^= s[2] >> 27;
    s[3] = s[3].wrapping_mul(M);
    s[3] ^= s[3] >> 33;
    s[4] = s[4].wrapping_mul(M);
    s[4] ^= s[4] >> 25;
    s[5] = s[5].wrapping_mul(M);
    s[5] ^= s[5] >> 35;
    s[6] = s[6].wrapping_mul(M);
    s[6] ^= s[6] >> 23;
    s[7] = s[7].wrapping_mul(M);
    s[7] ^= s[7] >> 37;
}

/// Batches between two readings of the core probe: about 36 µs of loops
/// at 455 M loops/s.
const PROBE_BATCHES: u32 = 4;

/// Runs loops until `stop` is set; returns the number of loops done and
/// the core probe's totals. With a `counter`, stores the running count in
/// it after every batch, where the stop flag is read; with `core`, runs
/// the core probe ([`crate::samples::core`]) every [`PROBE_BATCHES`]
/// batches and stores its totals there.
#[inline(never)]
pub fn spin(
    stop: &AtomicBool,
    seed: u64,
    counter: Option<&crate::samples::Counter>,
    core: Option<&CoreCounter>,
) -> (u64, CoreTotals) {
    let mut s = [
        seed | 1,
        seed ^ 0x1234_5678_9abc_def1,
        seed.rotate_left(7) | 1,
        seed.rotate_left(13) ^ 3,
        seed.rotate_left(19) | 5,
        seed.rotate_left(23) ^ 7,
        seed.rotate_left(29) | 9,
        seed.rotate_left(31) ^ 11,
    ];
    let mut loops = 0u64;
    let mut probe = core.map(|_| CoreProbe::start());
    let mut batches = 0u32;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..BATCH {
            body(&mut s);
        }
        loops += BATCH;
        if let Some(c) = counter {
            c.set(loops);
        }
        if let (Some(p), Some(c)) = (&mut probe, core) {
            batches += 1;
            if batches == PROBE_BATCHES {
                batches = 0;
                p.done(u64::from(PROBE_BATCHES) * BATCH);
                c.set(p.totals());
            }
        }
    }
    black_box(s);
    (loops, probe.map(|p| p.totals()).unwrap_or_default())
}

/// Runs one step of `jobs` jobs for `duration`, or until `interrupted()`
/// returns true (polled every 10 ms by the calling thread, which also
/// takes the samples).
pub fn run_step(jobs: u32, duration: Duration, interrupted: &dyn Fn() -> bool) -> LoopStep {
    let stop = Arc::new(AtomicBool::new(false));
    let barrier = Arc::new(Barrier::new(jobs as usize + 1));
    let interval = crate::samples::plan(duration);
    let counters: Arc<Vec<crate::samples::Counter>> =
        Arc::new((0..jobs).map(|_| Default::default()).collect());
    let cores: Arc<Vec<CoreCounter>> = Arc::new((0..jobs).map(|_| Default::default()).collect());
    let handles: Vec<_> = (0..jobs)
        .map(|i| {
            let stop = Arc::clone(&stop);
            let barrier = Arc::clone(&barrier);
            let counters = Arc::clone(&counters);
            let cores = Arc::clone(&cores);
            thread::spawn(move || {
                let counter = interval.map(|_| &counters[i as usize]);
                let core = interval.map(|_| &cores[i as usize]);
                barrier.wait();
                let t0 = Instant::now();
                let (loops, core) = spin(&stop, 0x5eed_0000 + u64::from(i), counter, core);
                let end = Instant::now();
                (loops, core, end - t0, end)
            })
        })
        .collect();
    barrier.wait();
    let t0 = Instant::now();
    let (cut_short, sampler) = sample_while(
        t0,
        duration,
        interval,
        (&counters, Some(&cores[..])),
        f64::from(jobs),
        interrupted,
    );
    stop.store(true, Ordering::Relaxed);
    let (mut total, mut last_end, mut core) = (0, t0, Vec::new());
    let loops_per_s_each: Vec<f64> = handles
        .into_iter()
        .map(|h| match h.join() {
            Ok((loops, c, el, end)) if el.as_secs_f64() > 0.0 => {
                total += loops;
                last_end = last_end.max(end);
                core.push(c);
                loops as f64 / el.as_secs_f64()
            }
            _ => 0.0,
        })
        .collect();
    // the last sample ends with the last job, as the figure does
    let core = CoreTotals::sum(core.into_iter());
    let samples = sampler
        .map(|s| s.finish_core(last_end - t0, total, core))
        .unwrap_or_default();
    let loops_per_s_mean = if loops_per_s_each.is_empty() {
        0.0
    } else {
        loops_per_s_each.iter().sum::<f64>() / loops_per_s_each.len() as f64
    };
    LoopStep {
        jobs,
        loops_per_s_each,
        loops_per_s_mean,
        elapsed_ns: t0.elapsed().as_nanos() as u64,
        samples,
        end: End::cut_if(cut_short),
    }
}

/// Sleeps like [`crate::signals::sleep_unless`] from `t0` for `duration`,
/// reading the jobs' counters (and their core probes', when given) at
/// each boundary of `interval` (none when `None`); returns whether
/// `interrupted()` cut the sleep, and the sampler (rates divided by
/// `per`, the jobs: a per-job rate), which the caller finishes once the
/// jobs have stopped, with their end and their total.
pub fn sample_while(
    t0: Instant,
    duration: Duration,
    interval: Option<Duration>,
    (counters, cores): (&[crate::samples::Counter], Option<&[CoreCounter]>),
    per: f64,
    interrupted: &dyn Fn() -> bool,
) -> (bool, Option<crate::samples::RateSampler>) {
    let Some(interval) = interval else {
        return (crate::signals::sleep_unless(duration, interrupted), None);
    };
    let mut sampler = crate::samples::RateSampler::new(interval, per);
    if cores.is_some() {
        sampler = sampler.with_core();
    }
    let sampler = RefCell::new(sampler);
    let cut = crate::signals::sleep_unless(duration, &|| {
        let at = t0.elapsed();
        let mut s = sampler.borrow_mut();
        if s.due(at) {
            let core = cores.map(|c| CoreTotals::sum(c.iter().map(CoreCounter::get)));
            s.observe_core(
                at,
                crate::samples::total(counters),
                core.unwrap_or_default(),
            );
        }
        interrupted()
    });
    (cut, Some(sampler.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_counts_are_powers_of_two_up_to_the_cpus() {
        assert_eq!(job_counts(1), vec![1]);
        assert_eq!(job_counts(2), vec![1, 2]);
        assert_eq!(job_counts(6), vec![1, 2, 4]);
        assert_eq!(job_counts(8), vec![1, 2, 4, 8]);
        assert_eq!(job_counts(0), vec![1]);
    }

    #[test]
    fn body_is_deterministic_and_mixes() {
        let mut a = [1u64; 8];
        let mut b = [1u64; 8];
        body(&mut a);
        body(&mut b);
        assert_eq!(a, b);
        assert_ne!(a, [1u64; 8]);
    }

    #[test]
    fn a_short_step_counts_loops_for_each_job() {
        let s = run_step(2, Duration::from_millis(100), &|| false);
        assert_eq!(s.jobs, 2);
        assert_eq!(s.loops_per_s_each.len(), 2);
        assert!(s.loops_per_s_each.iter().all(|&r| r > 1_000_000.0), "{s:?}");
        assert!(s.end.is_complete());
        assert!(s.elapsed_ns >= 100_000_000);
    }

    #[test]
    fn a_step_keeps_samples_whose_mean_is_near_its_figure() {
        // 1 s: one sample per 100 ms sub-interval, ten, or more when the
        // jobs stopped late (whenever the polls ran: a missed boundary
        // still has its sample)
        let s = run_step(2, Duration::from_secs(1), &|| false);
        assert_eq!(s.samples.sample_interval_ns, Some(100_000_000), "{s:?}");
        let n = s.samples.samples.len();
        let want = s.elapsed_ns as f64 / 1e8;
        assert!(n >= 10 && n as f64 <= want + 1.0, "{n} samples: {s:?}");
        let sum = s.samples.sample_summary.as_ref().expect("a summary");
        assert_eq!(sum.n, n);
        // (a sub-interval in which the jobs never ran is a zero, not an error)
        assert!(sum.min >= 0.0 && sum.min <= sum.median && sum.median <= sum.max);
        assert!(sum.max > 0.0);
        // the samples are per-job rates, like the figure
        let ratio = sum.mean / s.loops_per_s_mean;
        assert!(
            (0.8..=1.2).contains(&ratio),
            "mean {} vs figure {}: {s:?}",
            sum.mean,
            s.loops_per_s_mean
        );
        let (lo, hi) = (sum.ci95_lo.unwrap(), sum.ci95_hi.unwrap());
        assert!(lo <= hi && hi > 0.0, "{sum:?}");
    }

    #[test]
    fn an_interrupt_cuts_the_step() {
        let t0 = Instant::now();
        let s = run_step(1, Duration::from_secs(30), &|| true);
        assert_eq!(s.end, End::Interrupted);
        assert!(t0.elapsed() < Duration::from_secs(5));
    }
}
