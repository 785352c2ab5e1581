//! A step's load: what else the host did while it ran.
//!
//! [`Sampler`] snapshots the `cpuN` lines of `/proc/stat` and this
//! process's own CPU time (`/proc/self/stat` utime + stime, all threads)
//! when a step starts and when it ends, the cgroup's throttling counters
//! under a quota ([`ThrottleSampler`]) and, for a CPU loop step, the CPUs'
//! clock ([`super::clock`]); besides, the other processes' CPU time
//! ([`super::procs`]), the swap counters of `/proc/vmstat`, the CPUs'
//! thermal throttling counters and cpufreq's `time_in_state`
//! ([`crate::sysinfo::cpufreq`]); [`cpu_load`] is the pure arithmetic:
//! other processes' CPU time on the CPUs the step used, and steal, in
//! USER_HZ ticks (`sysconf(_SC_CLK_TCK)`). The runner adds a storage
//! line's other I/O ([`super::io`]); [`super::mark`] judges the load.

use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::clock::{Clock, ClockReader};
use super::io::DeviceIoShare;
use super::percent;
use super::procs::{busiest, ProcSnapshot, ProcessShare};
use crate::sysinfo::cgroup::{CgroupLimits, Throttle, ThrottleSampler};
use crate::sysinfo::cpufreq::{ThermalCounts, TimeInState};
use crate::sysinfo::procstat::{parse_proc_stat, CpuTimes, ProcStat};
use crate::sysinfo::vmstat::{read_vmstat, SwapDelta, Vmstat};
use crate::Sysroot;

/// `/proc/stat` rounds each field of each CPU down to a clock tick when it
/// is read, and attributes ticks by sampling, while the process's own time
/// is exact: a difference smaller than this many ticks per CPU counted is
/// rounding, not other processes (3: user, nice and system each rounded).
/// It bounds the busy and the steal marks alike.
pub const BUSY_RESOLUTION_TICKS_PER_CPU: u64 = 3;

/// USER_HZ, the unit of `/proc/stat` and `/proc/<pid>/stat` times:
/// `sysconf(_SC_CLK_TCK)`, 100 when it fails.
pub fn clock_ticks_per_s() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let v = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if v > 0 {
        v as u64
    } else {
        100
    }
}

/// Clock ticks to nanoseconds at `ticks_per_s` (saturating).
pub fn ticks_to_ns(ticks: u64, ticks_per_s: u64) -> u64 {
    let ns = u128::from(ticks) * 1_000_000_000 / u128::from(ticks_per_s.max(1));
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// utime + stime (fields 14 and 15) of a `/proc/<pid>/stat` line, in clock
/// ticks: all threads of the process, live and exited. The command name
/// (field 2) may hold spaces and parentheses, so fields are counted after
/// its last `)`. `None` when malformed.
pub fn parse_self_stat_ticks(text: &str) -> Option<u64> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state): utime is field 14, index 11.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime.saturating_add(stime))
}

/// One moment of the system's and this process's CPU accounting.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadSnapshot {
    /// The `cpuN` lines of `/proc/stat`, as (N, ticks per state).
    pub per_cpu: Vec<(u32, CpuTimes)>,
    /// This process's utime + stime, clock ticks (all threads).
    pub own_ticks: u64,
}

impl LoadSnapshot {
    /// From the text of `/proc/stat` and `/proc/self/stat`.
    pub fn parse(proc_stat: &str, self_stat: &str) -> Option<LoadSnapshot> {
        let ProcStat { per_cpu, .. } = parse_proc_stat(proc_stat);
        Some(LoadSnapshot {
            per_cpu,
            own_ticks: parse_self_stat_ticks(self_stat)?,
        })
    }

    /// Reads the sysroot's `/proc/stat` and `/proc/self/stat`; the error
    /// names the path.
    pub fn take(sys: &Sysroot) -> anyhow::Result<LoadSnapshot> {
        let stat = sys
            .read_to_string("/proc/stat")
            .context("reading CPU times (is /proc mounted? mount -t proc proc /proc)")?;
        let own = sys
            .read_to_string("/proc/self/stat")
            .context("reading this process's CPU time (is /proc mounted?)")?;
        LoadSnapshot::parse(&stat, &own).with_context(|| {
            format!(
                "{}: no utime and stime fields: cannot tell other processes' CPU use",
                sys.path("/proc/self/stat").display()
            )
        })
    }
}

/// What the CPUs a step used did besides the step, between two snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuLoad {
    /// The CPUs counted: asked for and present in both snapshots.
    pub cpus_counted: Vec<u32>,
    /// CPUs asked for but present in one snapshot only (taken offline or
    /// brought online during the step): left out of every figure.
    pub cpus_missing: Vec<u32>,
    /// The CPUs' worth of time the step needed (its jobs), at most the
    /// number counted.
    pub needed_cpus: f64,
    /// Elapsed time per CPU, ns: the mean over the CPUs counted of all
    /// their time (from `/proc/stat`, so in the same units as the rest).
    pub elapsed_ns: u64,
    /// Time in processes (user, nice, system; guests are inside user) on
    /// the CPUs counted, summed, ns.
    pub processes_ns: u64,
    /// Time serving interrupts (irq, softirq) on them, ns: kernel work
    /// that may be ours (I/O completions), so not counted as others'.
    pub interrupts_ns: u64,
    /// Time stolen by the hypervisor on them, ns.
    pub steal_ns: u64,
    /// This process's own CPU time (utime + stime, all threads), ns.
    pub own_ns: u64,
    /// `processes_ns - own_ns`, never negative: other processes, ns.
    pub others_ns: u64,
    /// `others_ns` / `elapsed_ns`, percent of one CPU (may exceed 100).
    pub others_cpu_percent: f64,
    /// `others_ns` / (`needed_cpus` x `elapsed_ns`), percent (may exceed
    /// 100: others on CPUs the step left idle count too).
    pub others_percent_of_needed: f64,
    /// `own_ns` / (`needed_cpus` x `elapsed_ns`), percent: how much of
    /// what it needed the step got (more than 100 with extra threads).
    pub own_percent_of_needed: f64,
    /// Steal over all time of the CPUs counted, percent.
    pub steal_percent: f64,
    /// Below this many ns, `others_ns` and `steal_ns` are tick rounding
    /// ([`BUSY_RESOLUTION_TICKS_PER_CPU`] per CPU counted).
    pub resolution_ns: u64,
}

/// Other processes' CPU use and steal between two snapshots, on the CPUs
/// `cpus` (all CPUs of the snapshots when empty), for a step that needed
/// `needed_cpus` CPUs (its job count; a fraction for a step that needs
/// part of one). `ticks_per_s` is USER_HZ ([`clock_ticks_per_s`]).
///
/// Counters that went backwards count 0; CPUs in one snapshot only are
/// left out (and listed). This process's time is all its threads'
/// wherever they ran: with `cpus` its affinity, that is all on them.
/// `None` when no CPU is in both snapshots or no time elapsed.
pub fn cpu_load(
    before: &LoadSnapshot,
    after: &LoadSnapshot,
    cpus: &[u32],
    needed_cpus: f64,
    ticks_per_s: u64,
) -> Option<CpuLoad> {
    let wanted: Vec<u32> = if cpus.is_empty() {
        before.per_cpu.iter().map(|(c, _)| *c).collect()
    } else {
        cpus.to_vec()
    };
    let find = |s: &LoadSnapshot, c: u32| s.per_cpu.iter().find(|(n, _)| *n == c).map(|(_, t)| *t);
    let mut counted = Vec::new();
    let mut missing = Vec::new();
    let mut sum = CpuTimes::default();
    let mut total: u64 = 0;
    for &c in &wanted {
        match (find(before, c), find(after, c)) {
            (Some(a), Some(b)) => {
                let d = b.delta(&a);
                counted.push(c);
                total = total.saturating_add(d.total());
                sum.user = sum.user.saturating_add(d.user);
                sum.nice = sum.nice.saturating_add(d.nice);
                sum.system = sum.system.saturating_add(d.system);
                sum.irq = sum.irq.saturating_add(d.irq);
                sum.softirq = sum.softirq.saturating_add(d.softirq);
                sum.steal = sum.steal.saturating_add(d.steal);
            }
            (None, None) => {}
            _ => missing.push(c),
        }
    }
    if counted.is_empty() || total == 0 {
        return None;
    }
    let ns = |t: u64| ticks_to_ns(t, ticks_per_s);
    let n = counted.len() as u64;
    let elapsed_ns = ns(total / n);
    let processes_ns = ns(sum.user.saturating_add(sum.nice).saturating_add(sum.system));
    let own_ns = ns(after.own_ticks.saturating_sub(before.own_ticks));
    let others_ns = processes_ns.saturating_sub(own_ns);
    let needed = if needed_cpus.is_finite() && needed_cpus > 0.0 {
        needed_cpus.min(n as f64)
    } else {
        1.0f64.min(n as f64)
    };
    let need_ns = needed * elapsed_ns as f64;
    Some(CpuLoad {
        cpus_counted: counted,
        cpus_missing: missing,
        needed_cpus: needed,
        elapsed_ns,
        processes_ns,
        interrupts_ns: ns(sum.irq.saturating_add(sum.softirq)),
        steal_ns: ns(sum.steal),
        own_ns,
        others_ns,
        others_cpu_percent: percent(others_ns as f64, elapsed_ns as f64),
        others_percent_of_needed: percent(others_ns as f64, need_ns),
        own_percent_of_needed: percent(own_ns as f64, need_ns),
        steal_percent: percent(sum.steal as f64, total as f64),
        resolution_ns: ns(BUSY_RESOLUTION_TICKS_PER_CPU.saturating_mul(n)),
    })
}

/// Everything measured about the host around one step; any part may be
/// missing (no `/proc/stat`, no quota, not a storage line).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepLoad {
    /// Other processes and steal on the CPUs the step used.
    pub cpu: Option<CpuLoad>,
    /// Throttling by the cgroup CPU quota during the step (only sampled
    /// when a quota applies).
    pub throttle: Option<Throttle>,
    /// `throttle`'s time over the CPU time the step needed, percent.
    pub throttled_percent_of_needed: Option<f64>,
    /// Per device of a storage line: the I/O that was not ours.
    pub io: Vec<DeviceIoShare>,
    /// The other processes that used the most CPU time during the step,
    /// busiest first (at most [`super::procs::KEPT`]): who kept the host
    /// busy.
    #[serde(default)]
    pub processes: Vec<ProcessShare>,
    /// Pages swapped in and out and major faults during the step
    /// (`/proc/vmstat`, the whole host).
    #[serde(default)]
    pub swap: Option<SwapDelta>,
    /// Thermal throttling events of the step's CPUs (their
    /// `thermal_throttle` core and package counters), where they exist.
    #[serde(default)]
    pub thermal_events: Option<u64>,
    /// Share of the step's time its CPUs' cpufreq policies spent below
    /// their highest listed frequency (`stats/time_in_state`), percent;
    /// only for a step that loaded every CPU it may use.
    #[serde(default)]
    pub below_max_clock_percent: Option<f64>,
}

/// What one [`Sampler`] saw around its step.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Other processes, steal and throttling.
    pub load: StepLoad,
    /// The CPUs' clock, with the same steal, when the sampler read it
    /// ([`Sampler::with_clock`]).
    pub clock: Option<Clock>,
}

/// Samples what else the host did around one step, once per step:
/// [`Sampler::start`] when it starts, [`Sampler::finish`] when it ends
/// (two reads of `/proc/stat`, `/proc/self/stat` and, under a quota,
/// `cpu.stat`). With [`Sampler::with_clock`] it also reads the CPUs'
/// clock, then and on each [`Sampler::poll`] while the step runs.
#[derive(Debug)]
pub struct Sampler {
    sys: Sysroot,
    cpus: Vec<u32>,
    first: LoadSnapshot,
    throttle: Option<ThrottleSampler>,
    clock: Option<ClockReader>,
    procs: ProcSnapshot,
    vmstat: Option<Vmstat>,
    thermal: Option<ThermalCounts>,
    time_in_state: TimeInState,
    t0: Instant,
    ticks_per_s: u64,
}

impl Sampler {
    /// Takes the first snapshot, for a step on `cpus` (its affinity: the
    /// usable CPU list; empty for all), under the cgroup `limits`.
    pub fn start(sys: &Sysroot, cpus: &[u32], limits: &CgroupLimits) -> anyhow::Result<Self> {
        let throttle = ThrottleSampler::start(sys, limits);
        let first = LoadSnapshot::take(sys)?;
        let all: Vec<u32> = first.per_cpu.iter().map(|(c, _)| *c).collect();
        let step_cpus = if cpus.is_empty() { &all[..] } else { cpus };
        Ok(Sampler {
            sys: sys.clone(),
            cpus: cpus.to_vec(),
            procs: ProcSnapshot::take(sys, std::process::id()),
            vmstat: read_vmstat(sys),
            thermal: ThermalCounts::read(sys, step_cpus),
            time_in_state: TimeInState::read_all(sys, step_cpus),
            first,
            throttle,
            clock: None,
            t0: Instant::now(),
            ticks_per_s: clock_ticks_per_s(),
        })
    }

    /// Reads the clock of the CPUs of `/proc/stat` too (a CPU loop step,
    /// whose `-x` line prints it): a first sample now.
    pub fn with_clock(mut self) -> Self {
        let cpus: Vec<u32> = self.first.per_cpu.iter().map(|(c, _)| *c).collect();
        self.clock = Some(ClockReader::start(&self.sys, &cpus));
        self
    }

    /// While the step runs: reads the clocks when
    /// [`ClockReader::INTERVAL`] passed since the last sample; nothing
    /// without [`Sampler::with_clock`].
    pub fn poll(&self) {
        if let Some(c) = &self.clock {
            c.poll();
        }
    }

    /// Takes the last snapshot: the step's load, for a step that needed
    /// `needed_cpus` CPUs (its jobs), and its clock. `load.cpu` is `None`
    /// when `/proc/stat` could not be read again.
    pub fn finish(self, needed_cpus: f64) -> Sample {
        let elapsed_ns = self.t0.elapsed().as_nanos() as u64;
        let cpu = LoadSnapshot::take(&self.sys).ok().and_then(|last| {
            cpu_load(
                &self.first,
                &last,
                &self.cpus,
                needed_cpus,
                self.ticks_per_s,
            )
        });
        let throttle = self.throttle.as_ref().and_then(ThrottleSampler::finish);
        // The same bound on the CPUs needed as the CPU figures use.
        let needed = cpu.as_ref().map_or(needed_cpus, |c| c.needed_cpus);
        let steal = cpu.as_ref().map_or(0.0, |c| c.steal_percent);
        let all: Vec<u32> = self.first.per_cpu.iter().map(|(c, _)| *c).collect();
        let step_cpus = if self.cpus.is_empty() {
            &all[..]
        } else {
            &self.cpus[..]
        };
        let processes = busiest(
            &self.procs,
            &ProcSnapshot::take(&self.sys, std::process::id()),
            elapsed_ns,
            self.ticks_per_s,
        );
        let swap = self
            .vmstat
            .zip(read_vmstat(&self.sys))
            .and_then(|(a, b)| a.delta(&b));
        let thermal_events = self
            .thermal
            .zip(ThermalCounts::read(&self.sys, step_cpus))
            .map(|(a, b)| a.events_since(&b));
        // Idle CPUs rightly clock down: only a step that loads them all
        // says something by running below the maximum.
        let full_load = needed_cpus >= step_cpus.len() as f64;
        let below_max_clock_percent = full_load
            .then(|| {
                self.time_in_state
                    .below_max_percent(&TimeInState::read_all(&self.sys, step_cpus))
            })
            .flatten();
        Sample {
            clock: self.clock.map(|c| c.finish(steal)),
            load: StepLoad {
                throttled_percent_of_needed: throttle
                    .map(|t| t.percent_of_needed(elapsed_ns, needed)),
                cpu,
                throttle,
                io: Vec::new(),
                processes,
                swap,
                thermal_events,
                below_max_clock_percent,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::mark::BUSY_PERCENT_OF_NEEDED;
    use crate::conditions::Mark;

    fn times(user: u64, system: u64, idle: u64, steal: u64) -> CpuTimes {
        CpuTimes {
            user,
            system,
            idle,
            steal,
            ..CpuTimes::default()
        }
    }

    fn snap(cpus: &[(u32, CpuTimes)], own_ticks: u64) -> LoadSnapshot {
        LoadSnapshot {
            per_cpu: cpus.to_vec(),
            own_ticks,
        }
    }

    const HZ: u64 = 100;

    #[test]
    fn self_stat_utime_and_stime() {
        // A real line of this VM, then a command name with ") (" in it.
        let l = "4242 (quickbench) R 1 4242 4242 0 -1 4194304 530 0 0 0 157 23 0 0 20 0 3 0 95123 10240000 512 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
        assert_eq!(parse_self_stat_ticks(l), Some(180));
        let odd = "7 (a) (b c) S 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 1 1 1\n";
        assert_eq!(parse_self_stat_ticks(odd), Some(11));
        assert_eq!(parse_self_stat_ticks("7 (x) S 1 2"), None);
        assert_eq!(parse_self_stat_ticks(""), None);
    }

    #[test]
    fn tick_conversion_uses_user_hz() {
        assert_eq!(ticks_to_ns(100, 100), 1_000_000_000);
        assert_eq!(ticks_to_ns(250, 250), 1_000_000_000);
        assert_eq!(ticks_to_ns(1, 1000), 1_000_000);
        assert_eq!(ticks_to_ns(u64::MAX, 1), u64::MAX, "saturates");
        assert_eq!(ticks_to_ns(5, 0), 5_000_000_000, "a 0 rate is taken as 1");
        let hz = clock_ticks_per_s();
        assert!((1..=10_000).contains(&hz), "{hz}");
    }

    #[test]
    fn a_quiet_two_job_step() {
        // 2 CPUs, 1 s (100 ticks each), the step's 2 jobs took both CPUs.
        let a = snap(&[(0, times(0, 0, 0, 0)), (1, times(0, 0, 0, 0))], 0);
        let b = snap(&[(0, times(99, 1, 0, 0)), (1, times(98, 1, 1, 0))], 199);
        let l = cpu_load(&a, &b, &[0, 1], 2.0, HZ).unwrap();
        assert_eq!(l.elapsed_ns, 1_000_000_000);
        assert_eq!(l.processes_ns, 1_990_000_000);
        assert_eq!(l.own_ns, 1_990_000_000);
        assert_eq!(l.others_ns, 0);
        assert_eq!(l.own_percent_of_needed, 99.5);
        assert!(Mark::busy(&l, &[]).is_none() && Mark::steal(&l).is_none());
    }

    #[test]
    fn a_busy_process_on_one_of_two_cpus() {
        // 2 jobs; another process took about half a CPU.
        let a = snap(&[(0, times(0, 0, 0, 0)), (1, times(0, 0, 0, 0))], 0);
        let b = snap(&[(0, times(100, 0, 0, 0)), (1, times(100, 0, 0, 0))], 152);
        let l = cpu_load(&a, &b, &[0, 1], 2.0, HZ).unwrap();
        assert_eq!(l.others_ns, 480_000_000);
        assert_eq!(l.others_cpu_percent, 48.0);
        assert_eq!(l.others_percent_of_needed, 24.0);
        assert_eq!(
            Mark::busy(&l, &[]),
            Some(Mark::Busy {
                others_cpu_percent: 48.0,
                others_percent_of_needed: 24.0,
                processes: Vec::new(),
            })
        );
    }

    #[test]
    fn only_the_cpus_the_step_used_count() {
        // CPU 2 is outside the step's affinity and fully busy: ignored.
        let a = snap(
            &[
                (0, times(0, 0, 0, 0)),
                (1, times(0, 0, 0, 0)),
                (2, times(0, 0, 0, 0)),
            ],
            0,
        );
        let b = snap(
            &[
                (0, times(100, 0, 0, 0)),
                (1, times(2, 0, 98, 0)),
                (2, times(100, 0, 0, 0)),
            ],
            100,
        );
        let l = cpu_load(&a, &b, &[0, 1], 1.0, HZ).unwrap();
        assert_eq!(l.cpus_counted, vec![0, 1]);
        assert_eq!(l.others_ns, 20_000_000);
        assert_eq!(l.others_percent_of_needed, 2.0);
        assert!(Mark::busy(&l, &[]).is_none());
        // All CPUs when none is given.
        let l = cpu_load(&a, &b, &[], 1.0, HZ).unwrap();
        assert_eq!(l.cpus_counted, vec![0, 1, 2]);
        assert_eq!(l.needed_cpus, 1.0);
        assert!(Mark::busy(&l, &[]).is_some());
    }

    #[test]
    fn counters_going_backwards_count_zero() {
        // iowait (and, on buggy hypervisors, steal or idle) can go back.
        let a = snap(&[(0, times(50, 50, 100, 40))], 100);
        let b = snap(&[(0, times(150, 50, 100, 10))], 90);
        let l = cpu_load(&a, &b, &[0], 1.0, HZ).unwrap();
        assert_eq!(l.steal_ns, 0);
        assert_eq!(l.own_ns, 0, "own time going back counts 0");
        assert_eq!(l.others_ns, 1_000_000_000);
        // Nothing elapsed at all: no figure rather than a division by 0.
        assert_eq!(cpu_load(&b, &b, &[0], 1.0, HZ), None);
    }

    #[test]
    fn a_cpu_going_offline_between_snapshots() {
        let a = snap(&[(0, times(0, 0, 0, 0)), (1, times(0, 0, 0, 0))], 0);
        let b = snap(&[(0, times(100, 0, 0, 0)), (3, times(5, 0, 0, 0))], 100);
        let l = cpu_load(&a, &b, &[0, 1, 2, 3], 2.0, HZ).unwrap();
        assert_eq!(l.cpus_counted, vec![0]);
        assert_eq!(l.cpus_missing, vec![1, 3], "2 is in neither snapshot");
        assert_eq!(l.needed_cpus, 1.0, "bounded by the CPUs counted");
        assert_eq!(l.others_ns, 0);
        assert_eq!(cpu_load(&a, &b, &[1], 1.0, HZ), None);
    }

    #[test]
    fn more_threads_than_cpus() {
        // 8 threads on 2 CPUs: own time is at most the CPUs' time, and its
        // exact accounting may exceed the ticks sampled: others never < 0.
        let a = snap(&[(0, times(0, 0, 0, 0)), (1, times(0, 0, 0, 0))], 0);
        let b = snap(&[(0, times(95, 5, 0, 0)), (1, times(96, 4, 0, 0))], 203);
        let l = cpu_load(&a, &b, &[0, 1], 8.0, HZ).unwrap();
        assert_eq!(l.needed_cpus, 2.0);
        assert_eq!(l.others_ns, 0);
        assert!((l.own_percent_of_needed - 101.5).abs() < 1e-9, "{l:?}");
        assert!(Mark::busy(&l, &[]).is_none());
    }

    #[test]
    fn steal_and_interrupts_are_not_other_processes() {
        let a = snap(&[(0, CpuTimes::default())], 0);
        let b = snap(
            &[(
                0,
                CpuTimes {
                    user: 80,
                    irq: 3,
                    softirq: 7,
                    steal: 10,
                    ..CpuTimes::default()
                },
            )],
            80,
        );
        let l = cpu_load(&a, &b, &[0], 1.0, HZ).unwrap();
        assert_eq!(l.others_ns, 0);
        assert_eq!(l.interrupts_ns, 100_000_000);
        assert_eq!(l.steal_percent, 10.0);
        assert_eq!(Mark::steal(&l), Some(Mark::Steal { percent: 10.0 }));
        // 3 % of a 1-s step on 2 CPUs is 6 ticks: rounding, not steal.
        let a = snap(&[(0, CpuTimes::default()), (1, CpuTimes::default())], 0);
        let b = snap(&[(0, times(97, 0, 0, 3)), (1, times(97, 0, 0, 3))], 194);
        let l = cpu_load(&a, &b, &[0, 1], 2.0, HZ).unwrap();
        assert_eq!(l.steal_percent, 3.0);
        assert_eq!(Mark::steal(&l), None);
    }

    #[test]
    fn tick_rounding_is_not_busy() {
        // A 0.2 s step on 2 CPUs: 4 ticks of difference are rounding (6
        // allowed), although they are 10 % of what 1 job needed.
        let a = snap(&[(0, times(0, 0, 0, 0)), (1, times(0, 0, 0, 0))], 0);
        let b = snap(&[(0, times(20, 0, 0, 0)), (1, times(4, 0, 16, 0))], 20);
        let l = cpu_load(&a, &b, &[0, 1], 1.0, HZ).unwrap();
        assert_eq!(l.others_ns, 40_000_000);
        assert_eq!(l.resolution_ns, 60_000_000);
        assert!(l.others_percent_of_needed > BUSY_PERCENT_OF_NEEDED);
        assert!(Mark::busy(&l, &[]).is_none());
    }

    #[test]
    fn jiffies_at_another_user_hz() {
        // The same step counted at USER_HZ 250: the same ns and shares.
        let a = snap(&[(0, times(0, 0, 0, 0))], 0);
        let b = snap(&[(0, times(250, 0, 0, 0))], 125);
        let l = cpu_load(&a, &b, &[0], 1.0, 250).unwrap();
        assert_eq!(l.elapsed_ns, 1_000_000_000);
        assert_eq!(l.own_ns, 500_000_000);
        assert_eq!(l.others_percent_of_needed, 50.0);
    }

    #[test]
    fn snapshot_from_a_dump_and_its_errors() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc/self")).unwrap();
        std::fs::write(d.path().join("proc/stat"), "cpu 1 0 1 8\ncpu0 1 0 1 8\n").unwrap();
        let sys = Sysroot::new(d.path());
        let e = format!("{:#}", LoadSnapshot::take(&sys).unwrap_err());
        assert!(e.contains("proc/self/stat"), "{e}");
        std::fs::write(d.path().join("proc/self/stat"), "1 (x) S").unwrap();
        let e = format!("{:#}", LoadSnapshot::take(&sys).unwrap_err());
        assert!(e.contains("no utime and stime"), "{e}");
        std::fs::write(
            d.path().join("proc/self/stat"),
            "1 (x) S 0 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 1 1\n",
        )
        .unwrap();
        let s = LoadSnapshot::take(&sys).unwrap();
        assert_eq!(s.own_ticks, 7);
        assert_eq!(s.per_cpu.len(), 1);
    }

    #[test]
    fn one_sample_gives_the_load_and_the_clock_with_one_steal() {
        let d = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| {
            let p = d.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        let own =
            |ticks: u64| format!("1 (x) S 0 1 1 0 -1 0 0 0 0 0 {ticks} 0 0 0 20 0 1 0 1 1 1\n");
        w(
            "proc/stat",
            "cpu 100 0 100 700 0 0 0 100 0 0\ncpu0 100 0 100 700 0 0 0 100 0 0\n",
        );
        w("proc/self/stat", &own(0));
        w(
            "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
            "2400000\n",
        );
        let sys = Sysroot::new(d.path());
        let s = Sampler::start(&sys, &[0], &CgroupLimits::default())
            .unwrap()
            .with_clock();
        s.poll();
        // 200 ticks: 100 of them this process's, 50 stolen.
        w(
            "proc/stat",
            "cpu 150 0 150 750 0 0 0 150 0 0\ncpu0 150 0 150 750 0 0 0 150 0 0\n",
        );
        w("proc/self/stat", &own(100));
        let Sample { load, clock } = s.finish(1.0);
        let c = load.cpu.unwrap();
        assert_eq!(c.steal_percent, 25.0);
        assert_eq!(c.others_ns, 0);
        let clock = clock.unwrap();
        assert_eq!(clock.steal_percent, c.steal_percent, "one steal");
        assert_eq!(clock.mean_mhz, Some(2400.0));
        assert_eq!(
            clock.mhz_samples, 2,
            "start and finish; the poll was too soon"
        );
        // Without the clock, no clock.
        let s = Sampler::start(&sys, &[0], &CgroupLimits::default()).unwrap();
        assert_eq!(s.finish(1.0).clock, None);
    }

    fn thread_cpu_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes the timespec it is given.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    #[test]
    fn live_sampler_counts_its_own_spinning_thread() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            eprintln!("skipped: no /proc");
            return;
        }
        let sys = Sysroot::live();
        let s = Sampler::start(&sys, &[], &CgroupLimits::default()).unwrap();
        // Spin for 300 ms of this thread's CPU time, however busy the
        // machine is (wall time would give less CPU time under load).
        let t0 = thread_cpu_ns();
        let mut x = 0u64;
        while thread_cpu_ns() - t0 < 300_000_000 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let l = s.finish(1.0).load;
        let c = l.cpu.expect("live /proc/stat");
        // Own time is rounded down to ticks, user and system apart.
        assert!(c.own_ns >= 270_000_000, "{c:?}");
        assert!(c.processes_ns + c.resolution_ns >= c.own_ns, "{c:?}");
        assert!(l.throttle.is_none());
        assert!((0.0..=100.0).contains(&c.steal_percent), "{c:?}");
    }
}
