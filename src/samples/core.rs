//! The core probe: the clock each sample ran at, and the work it did per
//! cycle while its job was on the CPU.
//!
//! A core shared with something outside the guest (another tenant on the
//! host's SMT sibling) shows no steal, no busy process and no clock
//! change: only less work per cycle. So each job, between pieces of its
//! own work, times a short chain of dependent `imul`s (latency-bound: it
//! runs at the clock whatever the sibling does, see [`crate::cpu_loop::mhz`])
//! and times each piece of its work. A piece that took many times the
//! job's fastest (the job was preempted: another task, steal, a quota
//! period) is left out of the running time, so that work per cycle reads
//! the core and the share of time on the CPU reads the rest.
//!
//! Cost: two clock reads per piece of work, and one chain of about
//! 1,500 cycles every [`CHAIN_EVERY`] pieces (`benches/README.md`
//! "Core probe").

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Iterations of the `imul` chain per probe: 128 × 24 cycles, about
/// 0.85 µs at 3.6 GHz, timed by two reads of the clock whose own cost
/// (~25 ns, measured at the start) is taken off.
const CHAIN_ITERS: u64 = 128;

/// One chain every this many pieces of work: about every 1.2 ms in the
/// CPU loop (pieces of 16k loops) and every 0.7 ms in the memory copy
/// (blocks of 1 MiB), so a 50 ms sample holds forty chains or more.
pub const CHAIN_EVERY: u32 = 32;

/// A piece of work slower than this many times the job's fastest rate
/// was preempted: a core shared with an SMT sibling slows every piece by
/// up to 1.7x and stays counted; a scheduler slice, steal, or a CPU
/// quota's short wait for runtime (tens of µs and more) does not. At 6x,
/// waits of 100-150 µs under a 0.8-CPU quota read as shared.
const PREEMPTED: f64 = 2.5;

/// A chain slower than this many times the fastest one was preempted
/// (a clock change between 1.5 and 3.6 GHz stays counted).
const CHAIN_PREEMPTED: f64 = 3.0;

/// Whether a chain of known latency exists here: on x86-64 the `imul`
/// chain of [`crate::cpu_loop::mhz`]; elsewhere no cycle reference, and
/// no sample gets a work per cycle.
pub const CALIBRATED: bool = cfg!(target_arch = "x86_64");

/// A job's running totals: its work and time while on the CPU, and its
/// chains' cycles and time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CoreTotals {
    /// Work units (loops, bytes) done in pieces that were not preempted.
    pub running_work: u64,
    /// Their time, ns.
    pub running_ns: u64,
    /// Cycles of the chains that were not preempted.
    pub chain_cycles: u64,
    /// Their time, ns.
    pub chain_ns: u64,
}

impl CoreTotals {
    fn add(self, o: CoreTotals) -> CoreTotals {
        CoreTotals {
            running_work: self.running_work + o.running_work,
            running_ns: self.running_ns + o.running_ns,
            chain_cycles: self.chain_cycles + o.chain_cycles,
            chain_ns: self.chain_ns + o.chain_ns,
        }
    }

    fn since(self, o: CoreTotals) -> CoreTotals {
        CoreTotals {
            running_work: self.running_work.saturating_sub(o.running_work),
            running_ns: self.running_ns.saturating_sub(o.running_ns),
            chain_cycles: self.chain_cycles.saturating_sub(o.chain_cycles),
            chain_ns: self.chain_ns.saturating_sub(o.chain_ns),
        }
    }

    /// The sum of several jobs' totals.
    pub fn sum(all: impl Iterator<Item = CoreTotals>) -> CoreTotals {
        all.fold(CoreTotals::default(), CoreTotals::add)
    }
}

/// One job's probe, owned by its thread.
#[derive(Debug)]
pub struct CoreProbe {
    last: Instant,
    best_ns_per_work: f64,
    best_chain_ns: f64,
    clock_cost_ns: f64,
    pieces: u32,
    totals: CoreTotals,
}

/// The least time between two reads of the clock, ns: what a timed
/// chain's time includes beside the chain.
fn clock_cost_ns() -> f64 {
    (0..16)
        .map(|_| {
            let t = Instant::now();
            (Instant::now() - t).as_nanos() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

impl CoreProbe {
    /// A probe whose first piece of work starts now.
    pub fn start() -> CoreProbe {
        CoreProbe {
            last: Instant::now(),
            best_ns_per_work: f64::INFINITY,
            best_chain_ns: f64::INFINITY,
            clock_cost_ns: if CALIBRATED { clock_cost_ns() } else { 0.0 },
            pieces: 0,
            totals: CoreTotals::default(),
        }
    }

    /// `work` units were done since the last call: counts them with
    /// their time unless preempted, and every [`CHAIN_EVERY`] pieces runs
    /// a chain.
    #[inline]
    pub fn done(&mut self, work: u64) {
        let now = Instant::now();
        let ns = (now - self.last).as_nanos() as u64;
        self.last = now;
        if work > 0 && ns > 0 {
            let per = ns as f64 / work as f64;
            self.best_ns_per_work = self.best_ns_per_work.min(per);
            if per <= PREEMPTED * self.best_ns_per_work {
                self.totals.running_work += work;
                self.totals.running_ns += ns;
            }
        }
        self.pieces += 1;
        if self.pieces >= CHAIN_EVERY {
            self.pieces = 0;
            self.chain();
        }
    }

    /// Times one chain; the next piece of work starts after it.
    fn chain(&mut self) {
        #[cfg(target_arch = "x86_64")]
        {
            self.x86_chain();
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn x86_chain(&mut self) {
        let t = Instant::now();
        crate::cpu_loop::mhz::imul_chain(CHAIN_ITERS);
        let now = Instant::now();
        let ns = (now - t).as_nanos() as f64 - self.clock_cost_ns;
        self.last = now;
        if ns > 0.0 {
            self.best_chain_ns = self.best_chain_ns.min(ns);
            if ns <= CHAIN_PREEMPTED * self.best_chain_ns {
                self.totals.chain_cycles += CHAIN_ITERS * crate::cpu_loop::mhz::IMUL_CYCLES;
                self.totals.chain_ns += ns as u64;
            }
        }
    }

    /// The totals so far.
    pub fn totals(&self) -> CoreTotals {
        self.totals
    }
}

/// A job's totals where the sampling thread reads them (relaxed stores
/// of the job's own thread, alone on their cache lines).
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct CoreCounter([AtomicU64; 4]);

impl CoreCounter {
    /// Stores the job's totals (the job's own thread only).
    #[inline]
    pub fn set(&self, t: CoreTotals) {
        let v = [t.running_work, t.running_ns, t.chain_cycles, t.chain_ns];
        for (a, x) in self.0.iter().zip(v) {
            a.store(x, Ordering::Relaxed);
        }
    }

    /// The totals last stored.
    pub fn get(&self) -> CoreTotals {
        let [a, b, c, d] = &self.0;
        CoreTotals {
            running_work: a.load(Ordering::Relaxed),
            running_ns: b.load(Ordering::Relaxed),
            chain_cycles: c.load(Ordering::Relaxed),
            chain_ns: d.load(Ordering::Relaxed),
        }
    }
}

/// What the core probe read in each sample, beside the sample's rate
/// (JSON `core_samples`; same length as `samples`). 0 where a sample had
/// no chain or no piece of work counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CoreSamples {
    /// The clock the sample's chains ran at, MHz.
    pub mhz: Vec<f64>,
    /// Work units (loops of one job, bytes) per cycle while on the CPU.
    pub per_cycle: Vec<f64>,
    /// Share of the sample's time its jobs were on the CPU (0 to 1).
    pub on_cpu: Vec<f64>,
}

impl CoreSamples {
    /// One sample's readings over a span of `span_ns` in which the jobs
    /// (`per` of them) did `work` units and their probes moved by `d`.
    pub fn reading(d: CoreTotals, work: u64, span_ns: f64, per: f64) -> (f64, f64, f64) {
        if d.chain_ns == 0 || d.running_ns == 0 || d.running_work == 0 {
            return (0.0, 0.0, 0.0);
        }
        let ghz = d.chain_cycles as f64 / d.chain_ns as f64;
        let running = d.running_work as f64 / d.running_ns as f64;
        let on_cpu = (work as f64 / running / (per * span_ns)).clamp(0.0, 1.0);
        (ghz * 1000.0, running / ghz, on_cpu)
    }

    /// Adds `times` samples of one reading.
    pub fn push(&mut self, (mhz, per_cycle, on_cpu): (f64, f64, f64), times: usize) {
        self.mhz.extend(std::iter::repeat_n(mhz, times));
        self.per_cycle.extend(std::iter::repeat_n(per_cycle, times));
        self.on_cpu.extend(std::iter::repeat_n(on_cpu, times));
    }

    /// The number of samples.
    pub fn len(&self) -> usize {
        self.per_cycle.len()
    }

    /// True when there is no sample.
    pub fn is_empty(&self) -> bool {
        self.per_cycle.is_empty()
    }
}

/// What a sampler remembers of the probes between two observations.
#[derive(Debug, Clone, Default)]
pub struct CoreTrack {
    last: CoreTotals,
    /// The readings so far.
    pub samples: CoreSamples,
}

impl CoreTrack {
    /// The readings of a span: `totals` now, `work` units in `span_ns`
    /// for `per` jobs, recorded `times` times.
    pub fn record(&mut self, totals: CoreTotals, work: u64, span_ns: f64, per: f64, times: usize) {
        let d = totals.since(self.last);
        self.last = totals;
        self.samples
            .push(CoreSamples::reading(d, work, span_ns, per), times);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_is_work_per_cycle_and_the_share_on_the_cpu() {
        // 1 ms of chains at 3 GHz; 100 M loops in 0.5 s of running time,
        // over a 1 s span: 0.2 loops/ns at 3 cycles/ns, half the time.
        let d = CoreTotals {
            running_work: 100_000_000,
            running_ns: 500_000_000,
            chain_cycles: 3_000_000,
            chain_ns: 1_000_000,
        };
        let (mhz, per_cycle, on_cpu) = CoreSamples::reading(d, 100_000_000, 1e9, 1.0);
        assert!((mhz - 3000.0).abs() < 1e-9);
        assert!((per_cycle - 0.2 / 3.0).abs() < 1e-12);
        assert!((on_cpu - 0.5).abs() < 1e-12);
        // no chain: nothing known
        let none = CoreTotals { chain_ns: 0, ..d };
        assert_eq!(CoreSamples::reading(none, 1, 1.0, 1.0), (0.0, 0.0, 0.0));
    }

    #[test]
    fn a_preempted_piece_is_left_out_of_the_running_time() {
        let mut p = CoreProbe::start();
        for _ in 0..3 {
            std::thread::sleep(std::time::Duration::from_micros(200));
            p.done(1000);
        }
        let before = p.totals();
        // 20 times slower per unit: preempted
        std::thread::sleep(std::time::Duration::from_millis(4));
        p.done(1000);
        let after = p.totals();
        assert_eq!(after.running_work, before.running_work);
        assert!(before.running_work >= 1000, "{before:?}");
    }

    #[test]
    fn the_probe_reads_a_plausible_clock_on_this_machine() {
        if !CALIBRATED {
            return;
        }
        let mut p = CoreProbe::start();
        let mut x = 1u64;
        for _ in 0..2000 {
            for _ in 0..1000 {
                x = std::hint::black_box(x.wrapping_mul(3));
            }
            p.done(1000);
        }
        let t = p.totals();
        assert!(t.chain_ns > 0, "{t:?}");
        let mhz = t.chain_cycles as f64 / t.chain_ns as f64 * 1000.0;
        // any x86-64 of the last 20 years: 500 MHz to 7 GHz
        assert!((500.0..7000.0).contains(&mhz), "{mhz}");
    }

    #[test]
    fn a_track_differences_the_totals() {
        let mut t = CoreTrack::default();
        let at = |w, n| CoreTotals {
            running_work: w,
            running_ns: n,
            chain_cycles: n * 3,
            chain_ns: n,
        };
        t.record(at(100, 100), 100, 100.0, 1.0, 1);
        t.record(at(150, 200), 50, 100.0, 1.0, 2);
        assert_eq!(t.samples.len(), 3);
        assert!((t.samples.per_cycle[0] - 1.0 / 3.0).abs() < 1e-12);
        assert!((t.samples.per_cycle[2] - 0.5 / 3.0).abs() < 1e-12);
        assert!((t.samples.on_cpu[1] - 1.0).abs() < 1e-12);
    }
}
