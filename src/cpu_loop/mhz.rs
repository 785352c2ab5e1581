//! The measured clock: how fast a CPU really runs, timed, not read.
//!
//! `cpu MHz` in `/proc/cpuinfo` is, in a VM without cpufreq, the nominal
//! clock the hypervisor passes on (the TSC's), and `scaling_cur_freq` is
//! the last value the driver asked for. The probe times a chain of
//! dependent instructions whose latency in cycles is known, as sbc-bench's
//! and lmbench's MHz probes do: cycles per second is iterations × cycles
//! per iteration over the time taken.
//!
//! Why two chains (`add` and `imul`) and the fastest slice: docs/METHOD.md
//! "The measured clock: two chains, the fastest slice".
//!
//! Measuring code: nothing here prints.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Two chains further apart than this (percent of the slower) mean one of
/// them is not what it is assumed to be on this core: no figure.
pub const AGREE_PERCENT: f64 = 3.0;

/// The time one slice of a chain aims at: short, so that on a busy host
/// (ten runnable tasks per CPU, each run for a few ms at a time) many
/// slices still run whole, and the best of them is the clock. 500 µs is
/// still 1000 times the clock's resolution and the cost of reading it.
pub const SLICE: Duration = Duration::from_micros(500);

/// The time each CPU is probed for, both chains together (about 50 ms;
/// the CPUs are probed at once).
pub const PER_CPU: Duration = Duration::from_millis(50);

/// One CPU's measured clock.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CpuMhz {
    /// The CPU (as numbered by the kernel).
    pub cpu: u32,
    /// What the `add reg, reg` chain timed, MHz.
    pub add_chain_mhz: f64,
    /// What the `imul reg, reg` chain timed, MHz.
    pub imul_chain_mhz: f64,
    /// Their mean when they agree within [`AGREE_PERCENT`], MHz; `None`
    /// when they do not (or the CPU could not be reached).
    pub mhz: Option<f64>,
}

/// Why no CPU got a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeStatus {
    /// At least one CPU has a figure.
    Measured,
    /// The chains disagreed on every CPU probed.
    NotCalibrated,
    /// No chain is calibrated for this architecture.
    UnknownArchitecture,
}

/// One probe of the CPUs a step uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockProbe {
    /// Per CPU probed, in the order given.
    pub cpus: Vec<CpuMhz>,
    /// Whether any CPU got a figure, and why not.
    pub status: ProbeStatus,
    /// What the probe took, ns (its cost to the run).
    pub elapsed_ns: u64,
}

impl ClockProbe {
    /// The mean clock of the CPUs with a figure, MHz.
    pub fn mean_mhz(&self) -> Option<f64> {
        let v: Vec<f64> = self.cpus.iter().filter_map(|c| c.mhz).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }
}

/// Cycles per iteration of each chain's loop body.
#[cfg(target_arch = "x86_64")]
const ADD_CYCLES: u64 = 8;
#[cfg(target_arch = "x86_64")]
pub(crate) const IMUL_CYCLES: u64 = 24;

/// `iters` iterations of 8 dependent `add reg, reg`: 8 cycles each. The
/// loop counter is a separate chain that runs beside it.
#[cfg(target_arch = "x86_64")]
fn add_chain(iters: u64) {
    let mut a: u64 = 1;
    let b: u64 = 3;
    let mut n = iters;
    // SAFETY: registers only; no memory, no stack, flags clobbered.
    unsafe {
        core::arch::asm!(
            "2:",
            "add {a}, {b}",
            "add {a}, {b}",
            "add {a}, {b}",
            "add {a}, {b}",
            "add {a}, {b}",
            "add {a}, {b}",
            "add {a}, {b}",
            "add {a}, {b}",
            "dec {n}",
            "jnz 2b",
            a = inout(reg) a,
            b = in(reg) b,
            n = inout(reg) n,
            options(nomem, nostack),
        );
    }
    std::hint::black_box((a, n));
}

/// `iters` iterations of 8 dependent `imul reg, reg`: 24 cycles each.
#[cfg(target_arch = "x86_64")]
pub(crate) fn imul_chain(iters: u64) {
    let mut a: u64 = 3;
    let b: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut n = iters;
    // SAFETY: registers only; no memory, no stack, flags clobbered.
    unsafe {
        core::arch::asm!(
            "2:",
            "imul {a}, {b}",
            "imul {a}, {b}",
            "imul {a}, {b}",
            "imul {a}, {b}",
            "imul {a}, {b}",
            "imul {a}, {b}",
            "imul {a}, {b}",
            "imul {a}, {b}",
            "dec {n}",
            "jnz 2b",
            a = inout(reg) a,
            b = in(reg) b,
            n = inout(reg) n,
            options(nomem, nostack),
        );
    }
    std::hint::black_box((a, n));
}

/// The fastest MHz of `chain` (of `cycles` per iteration) over slices of
/// about [`SLICE`] for `budget`.
#[cfg(target_arch = "x86_64")]
fn best_mhz(chain: fn(u64), cycles: u64, budget: Duration) -> f64 {
    // Size a slice from a short first run (at 1 GHz 2^12 x 8 adds take
    // 33 µs); the best of three, as any run may be cut.
    let mut iters: u64 = 1 << 12;
    let ns = (0..3)
        .map(|_| {
            let t = Instant::now();
            chain(iters);
            t.elapsed().as_nanos().max(1) as f64
        })
        .fold(f64::INFINITY, f64::min);
    iters = ((iters as f64 * SLICE.as_nanos() as f64 / ns) as u64).clamp(1 << 10, 1 << 28);
    let start = Instant::now();
    let mut best = 0.0f64;
    let mut slices = 0;
    while slices < 3 || start.elapsed() < budget {
        let t = Instant::now();
        chain(iters);
        let ns = t.elapsed().as_nanos().max(1) as f64;
        // cycles per ns is GHz: x 1000 for MHz.
        best = best.max((iters * cycles) as f64 / ns * 1000.0);
        slices += 1;
    }
    best
}

/// Probes the CPU this thread runs on for about `per_cpu`.
#[cfg(target_arch = "x86_64")]
fn probe_here(cpu: u32, per_cpu: Duration) -> CpuMhz {
    let half = per_cpu / 2;
    let add = best_mhz(add_chain, ADD_CYCLES, half);
    let imul = best_mhz(imul_chain, IMUL_CYCLES, half);
    let slower = add.min(imul);
    let agree = slower > 0.0 && 100.0 * (add - imul).abs() / slower <= AGREE_PERCENT;
    CpuMhz {
        cpu,
        add_chain_mhz: add,
        imul_chain_mhz: imul,
        mhz: agree.then_some((add + imul) / 2.0),
    }
}

/// Probes each of `cpus` for about `per_cpu` (usually [`PER_CPU`]), all
/// at once, on one thread pinned to each: the probe takes `per_cpu`
/// however many CPUs there are. Dependent chains leave a core's other
/// ports idle, so SMT siblings probed together do not slow each other. A
/// CPU that cannot be pinned (gone offline) gets no figure.
pub fn probe(cpus: &[u32], per_cpu: Duration) -> ClockProbe {
    let t0 = Instant::now();
    #[cfg(target_arch = "x86_64")]
    {
        let threads: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                std::thread::spawn(move || {
                    let mut set = nix::sched::CpuSet::new();
                    let pinned = set.set(cpu as usize).is_ok()
                        && nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
                            .is_ok();
                    let m = probe_here(cpu, per_cpu);
                    if pinned {
                        m
                    } else {
                        CpuMhz { mhz: None, ..m }
                    }
                })
            })
            .collect();
        let measured: Vec<CpuMhz> = threads.into_iter().filter_map(|t| t.join().ok()).collect();
        let status = if measured.iter().any(|c| c.mhz.is_some()) {
            ProbeStatus::Measured
        } else {
            ProbeStatus::NotCalibrated
        };
        ClockProbe {
            cpus: measured,
            status,
            elapsed_ns: t0.elapsed().as_nanos() as u64,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (cpus, per_cpu);
        ClockProbe {
            cpus: Vec::new(),
            status: ProbeStatus::UnknownArchitecture,
            elapsed_ns: t0.elapsed().as_nanos() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_chains_agree_and_give_a_plausible_clock() {
        let p = probe(&[0], Duration::from_millis(40));
        #[cfg(target_arch = "x86_64")]
        {
            let c = p.cpus[0];
            // Any x86-64 CPU of the last 20 years runs between 500 MHz
            // and 7 GHz; the folded `add reg, imm` chain read 11.9 GHz.
            for m in [c.add_chain_mhz, c.imul_chain_mhz] {
                assert!((500.0..7000.0).contains(&m), "{c:?}");
            }
            // Under the load of a busy machine one chain may read slow:
            // then no figure, never one of the two.
            if let Some(m) = c.mhz {
                assert_eq!(p.status, ProbeStatus::Measured);
                assert!((m - (c.add_chain_mhz + c.imul_chain_mhz) / 2.0).abs() < 1e-9);
            }
            assert!(p.elapsed_ns >= 30_000_000, "{p:?}");
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(p.status, ProbeStatus::UnknownArchitecture);
    }

    #[test]
    fn the_mean_of_the_cpus_with_a_figure() {
        let c = |cpu, mhz| CpuMhz {
            cpu,
            add_chain_mhz: 1.0,
            imul_chain_mhz: 1.0,
            mhz,
        };
        let p = ClockProbe {
            cpus: vec![c(0, Some(3000.0)), c(1, None), c(2, Some(2000.0))],
            status: ProbeStatus::Measured,
            elapsed_ns: 1,
        };
        assert_eq!(p.mean_mhz(), Some(2500.0));
        let none = ClockProbe {
            cpus: vec![c(0, None)],
            status: ProbeStatus::NotCalibrated,
            elapsed_ns: 1,
        };
        assert_eq!(none.mean_mhz(), None);
    }
}
