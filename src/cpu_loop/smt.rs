//! The SMT contention test (extended report): do two jobs on SMT siblings of one
//! core slow each other, compared with two jobs on two different cores?
//!
//! Reads `/sys/devices/system/cpu/cpuN/topology/thread_siblings_list` for
//! the CPUs this process may run on (its affinity mask; the `online` list of
//! a dump), picks two siblings of one core and two CPUs of different cores,
//! and runs the CPU loop's [`spin`] in two threads pinned with
//! `sched_setaffinity`, alternately on the siblings and on the separate
//! cores (two rounds each, best round kept). The ratio is the siblings'
//! per-job rate over the separate cores' per-job rate. Each run is sampled
//! as a CPU loop step is ([`super::sample_while`]); the samples of the
//! round kept are kept.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use super::{sample_while, spin};
use crate::samples::{Counter, Samples};
use crate::sysinfo::cpu_numbers;
use crate::Sysroot;

/// The CPUs the test chooses among (defined in [`crate::sysinfo`]).
pub use crate::sysinfo::usable_cpu_list;

/// A ratio at or above this means siblings do not slow each other.
pub const NO_SLOWDOWN_RATIO: f64 = 0.9;

/// Which CPUs the test runs on, from the topology.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SmtPlan {
    /// Two siblings of one core and two CPUs of different cores.
    #[serde(rename = "Probe")]
    Pairs {
        /// Threads per core of the siblings' core (its sibling list).
        threads_per_core: u32,
        /// Two SMT siblings of one core.
        siblings: [u32; 2],
        /// Two CPUs on different cores.
        separate: [u32; 2],
    },
    /// No CPU has a sibling (or the files are absent): 1 thread per core.
    NoSiblings,
    /// Fewer than two cores among the usable CPUs.
    OneCore,
    /// Siblings exist, but no two of one core are usable by this process.
    SiblingsNotUsable {
        /// Threads per core in the topology.
        threads_per_core: u32,
    },
}

/// The result of the SMT contention test.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SmtContention {
    /// The CPUs chosen, or why there is nothing to test.
    pub plan: SmtPlan,
    /// Per-job loops per second of two jobs on the siblings (best round).
    pub siblings_loops_per_s_each: Option<f64>,
    /// Per-job loops per second of two jobs on separate cores (best round).
    pub separate_loops_per_s_each: Option<f64>,
    /// `siblings / separate`: 1.0 means no slowdown, 0.5 a shared core.
    pub ratio: Option<f64>,
    /// True when Ctrl-C ended the test early.
    pub cut_short: bool,
    /// The per-job loops per second of the rounds kept, per sub-interval.
    #[serde(default)]
    pub samples: SmtSamples,
}

/// The samples of the SMT contention test's two kept rounds.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SmtSamples {
    /// Two jobs on the siblings (the round of `siblings_loops_per_s_each`).
    pub siblings: Samples,
    /// Two jobs on separate cores (the round of `separate_loops_per_s_each`).
    pub separate: Samples,
}

impl SmtContention {
    /// One line for the report.
    pub fn verdict(&self) -> String {
        match (&self.plan, self.ratio) {
            (SmtPlan::NoSiblings, _) => {
                "no SMT siblings in the topology (1 thread per core): nothing to probe".into()
            }
            (SmtPlan::OneCore, _) => "only one core usable: nothing to compare".into(),
            (SmtPlan::SiblingsNotUsable { threads_per_core }, _) => format!(
                "{threads_per_core} threads per core, but no two siblings of one core \
                 in this process's CPU set: nothing to probe"
            ),
            (SmtPlan::Pairs { .. }, None) => "interrupted before a figure: no verdict".into(),
            (
                SmtPlan::Pairs {
                    threads_per_core, ..
                },
                Some(r),
            ) => {
                if r >= NO_SLOWDOWN_RATIO {
                    format!("siblings do not slow each other ({r:.2}x)")
                } else {
                    format!(
                        "{threads_per_core} threads per core share execution units: \
                         siblings run at {r:.2}x"
                    )
                }
            }
        }
    }
}

/// The sibling list of one CPU (itself alone when the file is absent).
fn siblings_of(sys: &Sysroot, cpu: u32) -> Vec<u32> {
    let mut v = sys
        .read_to_string(format!(
            "/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
        ))
        .ok()
        .and_then(|t| cpu_numbers(&t))
        .unwrap_or_else(|| vec![cpu]);
    if !v.contains(&cpu) {
        v.push(cpu);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// How many cores the `usable` CPUs span (their distinct sibling lists,
/// each restricted to the usable CPUs).
pub fn cores_of(sys: &Sysroot, usable: &[u32]) -> usize {
    let mut cores: Vec<Vec<u32>> = usable
        .iter()
        .map(|&c| {
            let mut s = siblings_of(sys, c);
            s.retain(|x| usable.contains(x));
            s
        })
        .collect();
    cores.sort();
    cores.dedup();
    cores.len().max(1)
}

/// Chooses the CPUs of the test among `usable`, from the topology.
pub fn plan(sys: &Sysroot, usable: &[u32]) -> SmtPlan {
    // Group the usable CPUs by core (a core = its full sibling list).
    let mut cores: Vec<(Vec<u32>, Vec<u32>)> = Vec::new(); // (siblings, usable ones)
    let mut max_tpc = 1u32;
    for &c in usable {
        let sib = siblings_of(sys, c);
        max_tpc = max_tpc.max(sib.len() as u32);
        match cores.iter_mut().find(|(s, _)| *s == sib) {
            Some((_, u)) => u.push(c),
            None => cores.push((sib, vec![c])),
        }
    }
    if max_tpc <= 1 {
        return SmtPlan::NoSiblings;
    }
    if cores.len() < 2 {
        return SmtPlan::OneCore;
    }
    let Some(i) = cores.iter().position(|(_, u)| u.len() >= 2) else {
        return SmtPlan::SiblingsNotUsable {
            threads_per_core: max_tpc,
        };
    };
    let (sib, u) = &cores[i];
    let a = u[0];
    let b = u[1];
    let other = cores
        .iter()
        .enumerate()
        .find(|(j, _)| *j != i)
        .map(|(_, (_, u))| u[0])
        .expect("two cores");
    SmtPlan::Pairs {
        threads_per_core: sib.len() as u32,
        siblings: [a, b],
        separate: [a, other],
    }
}

/// Runs two jobs pinned to `cpus` for `duration`; returns the per-job
/// loops per second (mean of the two), or `None` if a pin failed, whether
/// it was cut, and its samples.
fn run_pair(
    cpus: [u32; 2],
    duration: Duration,
    interrupted: &dyn Fn() -> bool,
) -> (Option<f64>, bool, Samples) {
    let stop = Arc::new(AtomicBool::new(false));
    let barrier = Arc::new(Barrier::new(3));
    let interval = crate::samples::plan(duration);
    let counters: Arc<[Counter; 2]> = Arc::default();
    let handles: Vec<_> = cpus
        .iter()
        .enumerate()
        .map(|(i, &cpu)| {
            let stop = Arc::clone(&stop);
            let barrier = Arc::clone(&barrier);
            let counters = Arc::clone(&counters);
            thread::spawn(move || {
                let pinned = pin_current_thread(cpu);
                let counter = interval.map(|_| &counters[i]);
                barrier.wait();
                let t0 = Instant::now();
                let (loops, _) = spin(&stop, 0x5e7_0000 + i as u64, counter, None);
                let end = Instant::now();
                (pinned, loops, end - t0, end)
            })
        })
        .collect();
    barrier.wait();
    let t0 = Instant::now();
    let (cut, sampler) = sample_while(
        t0,
        duration,
        interval,
        (&counters[..], None),
        2.0,
        interrupted,
    );
    stop.store(true, Ordering::Relaxed);
    let mut rates = Vec::new();
    let mut all_pinned = true;
    let (mut total, mut last_end) = (0, t0);
    for h in handles {
        match h.join() {
            Ok((pinned, loops, el, end)) if el.as_secs_f64() > 0.0 => {
                all_pinned &= pinned;
                rates.push(loops as f64 / el.as_secs_f64());
                total += loops;
                last_end = last_end.max(end);
            }
            _ => all_pinned = false,
        }
    }
    if !all_pinned || rates.len() != 2 {
        return (None, cut, Samples::default());
    }
    // the last sample ends with the last job, as the figure does
    let samples = sampler
        .map(|s| s.finish(last_end - t0, total))
        .unwrap_or_default();
    (Some((rates[0] + rates[1]) / 2.0), cut, samples)
}

/// Pins the calling thread to one CPU; false on failure.
pub fn pin_current_thread(cpu: u32) -> bool {
    let mut set = nix::sched::CpuSet::new();
    if set.set(cpu as usize).is_err() {
        return false;
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).is_ok()
}

/// Runs the test on the live system for about `duration` in all (four
/// runs of a quarter each: siblings, separate, siblings, separate), or
/// until `interrupted()`. With nothing to test it returns at once.
pub fn measure(sys: &Sysroot, duration: Duration, interrupted: &dyn Fn() -> bool) -> SmtContention {
    run_plan(plan(sys, &usable_cpu_list(sys)), duration, interrupted)
}

/// Runs a given plan (see [`measure`]); a plan without CPUs returns at once.
pub fn run_plan(
    plan: SmtPlan,
    duration: Duration,
    interrupted: &dyn Fn() -> bool,
) -> SmtContention {
    let mut out = SmtContention {
        plan: plan.clone(),
        siblings_loops_per_s_each: None,
        separate_loops_per_s_each: None,
        ratio: None,
        cut_short: false,
        samples: SmtSamples::default(),
    };
    let SmtPlan::Pairs {
        siblings, separate, ..
    } = plan
    else {
        return out;
    };
    let quarter = duration / 4;
    // the better round's figure, and its samples
    let best = |kept: &mut Option<f64>, kept_samples: &mut Samples, r: Option<f64>, s: Samples| {
        if let Some(x) = r {
            if kept.is_none_or(|k| x > k) {
                *kept = Some(x);
                *kept_samples = s;
            }
        }
    };
    for _ in 0..2 {
        for (cpus, slot) in [(siblings, 0), (separate, 1)] {
            let (r, cut, samples) = run_pair(cpus, quarter, interrupted);
            if slot == 0 {
                best(
                    &mut out.siblings_loops_per_s_each,
                    &mut out.samples.siblings,
                    r,
                    samples,
                );
            } else {
                best(
                    &mut out.separate_loops_per_s_each,
                    &mut out.samples.separate,
                    r,
                    samples,
                );
            }
            if cut {
                out.cut_short = true;
                break;
            }
        }
        if out.cut_short {
            break;
        }
    }
    if let (Some(s), Some(d)) = (out.siblings_loops_per_s_each, out.separate_loops_per_s_each) {
        if d > 0.0 {
            out.ratio = Some(s / d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_ratio(plan: SmtPlan, r: Option<f64>) -> SmtContention {
        SmtContention {
            plan,
            siblings_loops_per_s_each: None,
            separate_loops_per_s_each: None,
            ratio: r,
            cut_short: false,
            samples: SmtSamples::default(),
        }
    }

    #[test]
    fn the_rounds_kept_keep_their_samples() {
        let cpus = usable_cpu_list(&Sysroot::live());
        let pair = [cpus[0], *cpus.get(1).unwrap_or(&cpus[0])];
        let plan = SmtPlan::Pairs {
            threads_per_core: 2,
            siblings: pair,
            separate: pair,
        };
        // four runs of 500 ms, sampled every 50 ms (long enough that a job
        // pinned to a CPU busy with other tests starts late by a small part
        // of its run: its figure counts from its own start)
        let p = run_plan(plan, Duration::from_secs(2), &|| false);
        for (s, figure) in [
            (&p.samples.siblings, p.siblings_loops_per_s_each),
            (&p.samples.separate, p.separate_loops_per_s_each),
        ] {
            let figure = figure.expect("a figure");
            assert_eq!(s.sample_interval_ns, Some(50_000_000));
            assert!(s.samples.len() >= 5, "{p:?}");
            let mean = s.sample_summary.as_ref().unwrap().mean;
            assert!(
                (0.8..=1.2).contains(&(mean / figure)),
                "{mean} vs {figure}: {p:?}"
            );
        }
    }

    #[test]
    fn verdicts() {
        let p = SmtPlan::Pairs {
            threads_per_core: 2,
            siblings: [0, 1],
            separate: [0, 2],
        };
        assert_eq!(
            with_ratio(p.clone(), Some(0.58)).verdict(),
            "2 threads per core share execution units: siblings run at 0.58x"
        );
        assert_eq!(
            with_ratio(p.clone(), Some(0.98)).verdict(),
            "siblings do not slow each other (0.98x)"
        );
        assert_eq!(
            with_ratio(SmtPlan::NoSiblings, None).verdict(),
            "no SMT siblings in the topology (1 thread per core): nothing to probe"
        );
        assert_eq!(
            with_ratio(SmtPlan::OneCore, None).verdict(),
            "only one core usable: nothing to compare"
        );
    }
}
