//! Was the host quiet during a step? (issue 15, and issue 19's throttling)
//!
//! A figure drops for reasons the report must name rather than let the
//! reader blame the hardware: other processes on the CPUs the step used,
//! the hypervisor stealing time, the cgroup quota throttling the process,
//! other I/O on the device a storage line measured. This module measures
//! each as plain data around one step and turns it into typed [`Mark`]s by
//! the thresholds below; the report renders them.
//!
//! * CPU: [`LoadSampler`] snapshots the `cpuN` lines of `/proc/stat` and
//!   this process's own CPU time (`/proc/self/stat` utime + stime, all
//!   threads) at the start and end of a step; [`cpu_load`] is the pure
//!   arithmetic. Both files count in USER_HZ clock ticks
//!   (`sysconf(_SC_CLK_TCK)`, 100 on every mainstream kernel).
//! * Throttling: [`crate::sysinfo::cgroup::ThrottleSampler`] around the
//!   same step.
//! * Storage: [`other_io`] compares each member device's counters over a
//!   line with the engine's own I/O count and bytes.
//!
//! Measuring code: nothing here prints.

use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::cgroup::{CgroupLimits, Throttle, ThrottleSampler};
use super::procstat::{parse_proc_stat, CpuTimes, ProcStat};
use crate::blockdev::{parse_block_stat, BlockStat};
use crate::dd_io::blockstat::delta as stat_delta;
use crate::dd_io::{DeviceStatDelta, Direction, LineResult};
use crate::Sysroot;

/// Other processes used more than this share of the CPU time the step
/// needed (`needed_cpus` x elapsed): the step is marked busy. The CPU
/// loop's own run-to-run spread is held to 5 % (benches/foundation.sh),
/// so interference below that is lost in it, while an idle server's
/// background (kernel threads, a logging daemon, an ssh session) wakes for
/// microseconds at a time and should stay well below 5 % of one CPU; that
/// side is yet to be measured on a quiet host with benches/busy-marks.sh
/// (the test VM was never quiet long enough), the detection side is
/// measured (a spinning process: every step marked).
pub const BUSY_PERCENT_OF_NEEDED: f64 = 5.0;

/// `/proc/stat` rounds each field of each CPU down to a clock tick when it
/// is read, and attributes ticks by sampling, while the process's own time
/// is exact: a difference smaller than this many ticks per CPU counted is
/// rounding, not other processes (3: user, nice and system each rounded).
pub const BUSY_RESOLUTION_TICKS_PER_CPU: u64 = 3;

/// Steal above this share of the CPUs' time (and above the tick
/// resolution, as for others' use) marks the step. Steal lowers a CPU
/// figure by about its own share and is invisible from inside the guest
/// otherwise; issue 15's 2-vCPU VM showed 0.2 % per step, the test VM 0 to
/// 1.5 % per 1-s step (1 tick of 10 ms is 0.5 % there), a host shared with
/// busy neighbours several percent: 2 % separates them.
pub const STEAL_PERCENT: f64 = 2.0;

/// More than this share of a device's I/O (requests or bytes, whichever is
/// larger) not issued by the engine marks the storage line: the same 5 %
/// as [`BUSY_PERCENT_OF_NEEDED`], the spread expected between two runs of
/// a line.
pub const OTHER_IO_PERCENT: f64 = 5.0;

/// ... and at least this many foreign requests or [`OTHER_IO_MIN_BYTES`]
/// foreign bytes: the filesystem's own journal commits and metadata
/// writes for our file (a handful of blocks per `fdatasync`, one commit
/// every 5 s on ext4) are not another workload.
pub const OTHER_IO_MIN_REQUESTS: u64 = 16;

/// The byte floor beside [`OTHER_IO_MIN_REQUESTS`]: a journal commit
/// writes tens of KiB, a competing workload moves 4 MiB in well under a
/// second. Large foreign I/Os in our direction during a 1 MiB line hide
/// in the split allowance of the request count, so bytes must be enough.
pub const OTHER_IO_MIN_BYTES: u64 = 4 << 20;

/// The block layer may split one of our I/Os into requests of this size
/// (the smallest common `max_sectors_kb`), so a 1 MiB I/O may legitimately
/// be up to 8 device requests.
pub const SPLIT_REQUEST_BYTES: u64 = 128 << 10;

/// Throttled time above this share of the CPU time the step needed marks
/// it: the quota took that share of the step's CPU time away, as steal
/// does, and the same 5 % as [`BUSY_PERCENT_OF_NEEDED`] keeps a step that
/// only brushed the quota (a 1-job step under a 1-CPU quota, throttled
/// for the few ms the report's own threads add) unmarked.
pub const THROTTLED_PERCENT: f64 = 5.0;

/// Something that distorted a step's figure, with the figure to print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mark {
    /// Other processes ran on the CPUs the step used, e.g. rendered
    /// `(busy: other processes used 48 % of a CPU)`.
    Busy {
        /// Their CPU time over the step's elapsed time, in percent of one
        /// CPU (100 = one whole CPU, may exceed 100).
        others_cpu_percent: f64,
        /// The same as a share of the CPU time the step needed, percent
        /// (what the threshold [`BUSY_PERCENT_OF_NEEDED`] applies to).
        others_percent_of_needed: f64,
    },
    /// The hypervisor stole CPU time, e.g. `(steal 12 %)`.
    Steal {
        /// Steal over all time of the CPUs counted, percent.
        percent: f64,
    },
    /// I/O on a device that the engine did not issue, e.g.
    /// `(other I/O on vda: 31 %)`.
    OtherIo {
        /// Kernel name of the device (`vda`, `sdb`).
        device: String,
        /// Share of the device's I/O that was not ours, percent.
        percent: f64,
    },
    /// The cgroup CPU quota stopped the step's threads, e.g.
    /// `(throttled 50 %: cgroup CPU quota)`.
    Throttled {
        /// Throttled time over the CPU time the step needed, percent.
        percent: f64,
    },
    /// The target's devices saw much less than the engine moved: a cache
    /// served the line, e.g. `(cached: vda saw 0.4 % of these reads)`
    /// (see [`crate::dd_io::reach`]).
    Cached {
        /// The devices checked, joined by `+`.
        devices: String,
        /// Their bytes over ours, percent.
        percent: f64,
        /// Reads (true) or writes.
        reads: bool,
    },
}

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
    /// Below this many ns, `others_ns` is tick rounding
    /// ([`BUSY_RESOLUTION_TICKS_PER_CPU`] per CPU counted).
    pub resolution_ns: u64,
}

impl CpuLoad {
    /// The busy mark, when others passed [`BUSY_PERCENT_OF_NEEDED`] and
    /// the tick resolution.
    pub fn busy_mark(&self) -> Option<Mark> {
        (self.others_percent_of_needed > BUSY_PERCENT_OF_NEEDED
            && self.others_ns > self.resolution_ns)
            .then_some(Mark::Busy {
                others_cpu_percent: self.others_cpu_percent,
                others_percent_of_needed: self.others_percent_of_needed,
            })
    }

    /// The steal mark, when steal passed [`STEAL_PERCENT`] and the tick
    /// resolution.
    pub fn steal_mark(&self) -> Option<Mark> {
        (self.steal_percent > STEAL_PERCENT && self.steal_ns > self.resolution_ns).then_some(
            Mark::Steal {
                percent: self.steal_percent,
            },
        )
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * (part / whole)
    } else {
        0.0
    }
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
        others_cpu_percent: pct(others_ns as f64, elapsed_ns as f64),
        others_percent_of_needed: pct(others_ns as f64, need_ns),
        own_percent_of_needed: pct(own_ns as f64, need_ns),
        steal_percent: pct(sum.steal as f64, total as f64),
        resolution_ns: ns(BUSY_RESOLUTION_TICKS_PER_CPU.saturating_mul(n)),
    })
}

/// The engine's own I/O during a storage line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OurIo {
    /// Write or read.
    pub direction: Direction,
    /// Whole-block I/Os the engine completed.
    pub ios: u64,
    /// Bytes the engine transferred.
    pub bytes: u64,
    /// The line's block size, bytes.
    pub block_size_bytes: u64,
}

impl OurIo {
    /// The engine's figures of a measured line.
    pub fn of_line(l: &LineResult) -> OurIo {
        OurIo {
            direction: l.direction,
            ios: l.ios,
            bytes: l.bytes,
            block_size_bytes: l.block_size_bytes,
        }
    }
}

/// How much of one device's I/O during a line was not the engine's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceIoShare {
    /// Kernel name of the device (`vda`, `sdb`).
    pub device: String,
    /// Requests the block layer received, both directions: completed
    /// I/Os plus merged ones (a merged request was still submitted).
    pub device_requests: u64,
    /// Of those, not ours: all in the other direction, and in ours what
    /// exceeds the engine's I/Os times the split allowance
    /// ([`SPLIT_REQUEST_BYTES`]).
    pub foreign_requests: u64,
    /// Bytes the device transferred, both directions (sectors x 512).
    pub device_bytes: u64,
    /// Of those, not ours: all in the other direction, and in ours what
    /// exceeds the engine's bytes.
    pub foreign_bytes: u64,
    /// `foreign_requests` / `device_requests`, percent.
    pub foreign_requests_percent: f64,
    /// `foreign_bytes` / `device_bytes`, percent.
    pub foreign_bytes_percent: f64,
    /// The larger of the two: small foreign I/Os show in requests, large
    /// ones in bytes (the split allowance hides them in requests), percent.
    pub foreign_percent: f64,
}

impl DeviceIoShare {
    /// The other-I/O mark, when the share passed [`OTHER_IO_PERCENT`] with
    /// at least [`OTHER_IO_MIN_REQUESTS`] foreign requests or
    /// [`OTHER_IO_MIN_BYTES`] foreign bytes.
    pub fn mark(&self) -> Option<Mark> {
        let enough = self.foreign_requests >= OTHER_IO_MIN_REQUESTS
            || self.foreign_bytes >= OTHER_IO_MIN_BYTES;
        (self.foreign_percent > OTHER_IO_PERCENT && enough).then(|| Mark::OtherIo {
            device: self.device.clone(),
            percent: self.foreign_percent,
        })
    }
}

/// The share of each device's I/O during a line that the engine did not
/// issue, from the device's counter deltas and the engine's own figures;
/// one entry per device, in the order given (each member of a target on
/// several devices).
///
/// Each member is held against all of the engine's I/O, since how a stack
/// spreads it is unknown (a mirror gets all of it, a stripe a part): a
/// member of a stripe can hide foreign I/O in our direction up to our
/// share, never show ours as foreign. Reads in a write line (and writes in
/// a read line) are all counted foreign, so a parity RAID's
/// read-modify-write shows as other I/O on its members.
///
/// This replaces the heuristic of `report::extended::foreign_ios`
/// (same split allowance), per member and with a share.
pub fn other_io(ours: &OurIo, devices: &[(String, DeviceStatDelta)]) -> Vec<DeviceIoShare> {
    let split = ours.block_size_bytes.div_ceil(SPLIT_REQUEST_BYTES).max(1);
    let allowed_requests = ours.ios.saturating_mul(split);
    devices
        .iter()
        .map(|(name, d)| {
            let (same_req, other_req, same_sec, other_sec) = match ours.direction {
                Direction::Write => (
                    d.write_ios.saturating_add(d.write_merges),
                    d.read_ios.saturating_add(d.read_merges),
                    d.write_sectors,
                    d.read_sectors,
                ),
                Direction::Read => (
                    d.read_ios.saturating_add(d.read_merges),
                    d.write_ios.saturating_add(d.write_merges),
                    d.read_sectors,
                    d.write_sectors,
                ),
            };
            let device_requests = same_req.saturating_add(other_req);
            let foreign_requests = same_req
                .saturating_sub(allowed_requests)
                .saturating_add(other_req);
            let b = |s: u64| s.saturating_mul(512);
            let device_bytes = b(same_sec).saturating_add(b(other_sec));
            let foreign_bytes = b(same_sec)
                .saturating_sub(ours.bytes)
                .saturating_add(b(other_sec));
            let rp = pct(foreign_requests as f64, device_requests as f64);
            let bp = pct(foreign_bytes as f64, device_bytes as f64);
            DeviceIoShare {
                device: name.clone(),
                device_requests,
                foreign_requests,
                device_bytes,
                foreign_bytes,
                foreign_requests_percent: rp,
                foreign_bytes_percent: bp,
                foreign_percent: rp.max(bp),
            }
        })
        .collect()
}

/// Reads the `stat` file of each device in `names` (a target's member
/// devices, `Target::devices`) for [`member_deltas`]; a device whose file
/// is missing or malformed is left out (its line then has no figure for
/// it rather than a wrong one).
pub fn read_member_stats(sys: &Sysroot, names: &[String]) -> Vec<(String, BlockStat)> {
    names
        .iter()
        .filter_map(|n| {
            let t = sys
                .read_to_string(format!("/sys/class/block/{n}/stat"))
                .ok()?;
            Some((n.clone(), parse_block_stat(&t)?))
        })
        .collect()
}

/// Each member's counters over a line, from two [`read_member_stats`]
/// snapshots: the members present in both, in `before`'s order, ready for
/// [`other_io`].
pub fn member_deltas(
    before: &[(String, BlockStat)],
    after: &[(String, BlockStat)],
) -> Vec<(String, DeviceStatDelta)> {
    before
        .iter()
        .filter_map(|(n, a)| {
            let (_, b) = after.iter().find(|(m, _)| m == n)?;
            Some((n.clone(), stat_delta(a, b)))
        })
        .collect()
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
}

impl StepLoad {
    /// The marks this step earns, in a stable order: busy, steal,
    /// throttled, then other I/O per device.
    pub fn marks(&self) -> Vec<Mark> {
        let mut v = Vec::new();
        if let Some(c) = &self.cpu {
            v.extend(c.busy_mark());
            v.extend(c.steal_mark());
        }
        if let Some(p) = self.throttled_percent_of_needed {
            if p > THROTTLED_PERCENT {
                v.push(Mark::Throttled { percent: p });
            }
        }
        v.extend(self.io.iter().filter_map(DeviceIoShare::mark));
        v
    }
}

/// Samples the CPU accounting and the cgroup throttling around one step:
/// [`LoadSampler::start`] when it starts, [`LoadSampler::finish`] when it
/// ends (two reads of `/proc/stat`, `/proc/self/stat` and, under a quota,
/// `cpu.stat`; nothing in between).
#[derive(Debug)]
pub struct LoadSampler {
    sys: Sysroot,
    cpus: Vec<u32>,
    first: LoadSnapshot,
    throttle: Option<ThrottleSampler>,
    t0: Instant,
    ticks_per_s: u64,
}

impl LoadSampler {
    /// Takes the first snapshot, for a step on `cpus` (its affinity: the
    /// usable CPU list; empty for all), under the cgroup `limits`.
    pub fn start(sys: &Sysroot, cpus: &[u32], limits: &CgroupLimits) -> anyhow::Result<Self> {
        let throttle = ThrottleSampler::start(sys, limits);
        Ok(LoadSampler {
            sys: sys.clone(),
            cpus: cpus.to_vec(),
            first: LoadSnapshot::take(sys)?,
            throttle,
            t0: Instant::now(),
            ticks_per_s: clock_ticks_per_s(),
        })
    }

    /// Takes the last snapshot: the step's load, for a step that needed
    /// `needed_cpus` CPUs (its jobs). `cpu` is `None` when `/proc/stat`
    /// could not be read again.
    pub fn finish(self, needed_cpus: f64) -> StepLoad {
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
        StepLoad {
            throttled_percent_of_needed: throttle.map(|t| t.percent_of_needed(elapsed_ns, needed)),
            cpu,
            throttle,
            io: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(l.busy_mark().is_none() && l.steal_mark().is_none());
        assert!(StepLoad {
            cpu: Some(l),
            ..Default::default()
        }
        .marks()
        .is_empty());
    }

    #[test]
    fn a_busy_process_on_one_of_two_cpus() {
        // The case: 2 jobs, another process took ~half a CPU.
        let a = snap(&[(0, times(0, 0, 0, 0)), (1, times(0, 0, 0, 0))], 0);
        let b = snap(&[(0, times(100, 0, 0, 0)), (1, times(100, 0, 0, 0))], 152);
        let l = cpu_load(&a, &b, &[0, 1], 2.0, HZ).unwrap();
        assert_eq!(l.others_ns, 480_000_000);
        assert_eq!(l.others_cpu_percent, 48.0);
        assert_eq!(l.others_percent_of_needed, 24.0);
        assert_eq!(
            l.busy_mark(),
            Some(Mark::Busy {
                others_cpu_percent: 48.0,
                others_percent_of_needed: 24.0
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
        assert!(l.busy_mark().is_none());
        // All CPUs when none is given.
        let l = cpu_load(&a, &b, &[], 1.0, HZ).unwrap();
        assert_eq!(l.cpus_counted, vec![0, 1, 2]);
        assert_eq!(l.needed_cpus, 1.0);
        assert!(l.busy_mark().is_some());
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
        assert!(l.busy_mark().is_none());
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
        assert_eq!(l.steal_mark(), Some(Mark::Steal { percent: 10.0 }));
        // 3 % of a 1-s step on 2 CPUs is 6 ticks: rounding, not steal.
        let a = snap(&[(0, CpuTimes::default()), (1, CpuTimes::default())], 0);
        let b = snap(&[(0, times(97, 0, 0, 3)), (1, times(97, 0, 0, 3))], 194);
        let l = cpu_load(&a, &b, &[0, 1], 2.0, HZ).unwrap();
        assert_eq!(l.steal_percent, 3.0);
        assert_eq!(l.steal_mark(), None);
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
        assert!(l.busy_mark().is_none());
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

    fn dev(read: (u64, u64, u64), write: (u64, u64, u64)) -> DeviceStatDelta {
        DeviceStatDelta {
            read_ios: read.0,
            read_merges: read.1,
            read_sectors: read.2,
            read_ticks_ms: 0,
            write_ios: write.0,
            write_merges: write.1,
            write_sectors: write.2,
            write_ticks_ms: 0,
            busy_ms: 0,
            time_in_queue_ms: 0,
            flush_ios: None,
        }
    }

    fn io(direction: Direction, ios: u64, bs: u64) -> OurIo {
        OurIo {
            direction,
            ios,
            bytes: ios * bs,
            block_size_bytes: bs,
        }
    }

    #[test]
    fn a_quiet_4k_write_line_with_its_journal() {
        // 10 000 writes of 4 KiB plus a journal commit of 12 requests.
        let v = other_io(
            &io(Direction::Write, 10_000, 4096),
            &[("vda".into(), dev((0, 0, 0), (10_012, 0, 80_000 + 96)))],
        );
        assert_eq!(v[0].foreign_requests, 12);
        assert_eq!(v[0].foreign_bytes, 96 * 512);
        assert!(v[0].foreign_percent < 1.0, "{v:?}");
        assert_eq!(v[0].mark(), None);
    }

    #[test]
    fn a_writer_during_a_read_line() {
        // The case: dd oflag=direct to another file on the device.
        let v = other_io(
            &io(Direction::Read, 1_000, 4096),
            &[("loop0".into(), dev((1_000, 0, 8_000), (450, 0, 3_600)))],
        );
        assert_eq!(v[0].device_requests, 1_450);
        assert_eq!(v[0].foreign_requests, 450);
        let p = v[0].foreign_percent;
        assert!((p - 31.03).abs() < 0.01, "{p}");
        assert!(matches!(v[0].mark(), Some(Mark::OtherIo { ref device, .. }) if device == "loop0"));
    }

    #[test]
    fn big_blocks_split_into_requests_are_ours() {
        // 100 I/Os of 1 MiB as 800 requests of 128 KiB: all ours.
        let v = other_io(
            &io(Direction::Write, 100, 1 << 20),
            &[("sda".into(), dev((0, 0, 0), (700, 100, 100 * 2048)))],
        );
        assert_eq!(v[0].foreign_requests, 0);
        assert_eq!(v[0].foreign_bytes, 0);
        assert_eq!(v[0].mark(), None);
        // Split at 256 KiB, with 50 MiB more written by someone else in
        // 1 MiB requests: the requests hide in the split allowance, the
        // bytes do not.
        let v = other_io(
            &io(Direction::Write, 100, 1 << 20),
            &[("sda".into(), dev((0, 0, 0), (450, 0, 150 * 2048)))],
        );
        assert_eq!(v[0].foreign_requests, 0);
        assert_eq!(v[0].foreign_bytes, 50 << 20);
        assert!((v[0].foreign_percent - 100.0 / 3.0).abs() < 0.01);
        assert!(v[0].mark().is_some(), "over the byte floor");
        // 2 MiB more: a third of a small line, but under both floors.
        let v = other_io(
            &io(Direction::Write, 4, 1 << 20),
            &[("sda".into(), dev((0, 0, 0), (6, 0, 6 * 2048)))],
        );
        assert!(v[0].foreign_percent > 30.0);
        assert_eq!(v[0].mark(), None);
        // Many small foreign requests show in the request share.
        let v = other_io(
            &io(Direction::Write, 100, 1 << 20),
            &[(
                "sda".into(),
                dev((0, 0, 0), (1_000, 0, 100 * 2048 + 200 * 8)),
            )],
        );
        assert_eq!(v[0].foreign_requests, 200);
        assert!(v[0].mark().is_some());
    }

    #[test]
    fn each_member_of_a_target_on_its_own() {
        // A mirror of two disks: both got all of our writes; sdb also got
        // someone's reads.
        let ours = io(Direction::Write, 5_000, 4096);
        let v = other_io(
            &ours,
            &[
                ("sda".into(), dev((0, 0, 0), (5_000, 0, 40_000))),
                ("sdb".into(), dev((2_000, 0, 16_000), (5_000, 0, 40_000))),
            ],
        );
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].mark(), None);
        let m = v[1].mark().unwrap();
        assert!(
            matches!(m, Mark::OtherIo { ref device, percent } if device == "sdb" && (percent - 100.0 * 2.0 / 7.0).abs() < 0.01),
            "{m:?}"
        );
        // A device with no I/O at all (buffered reads from the cache).
        let v = other_io(&ours, &[("sdc".into(), dev((0, 0, 0), (0, 0, 0)))]);
        assert_eq!(v[0].foreign_percent, 0.0);
    }

    #[test]
    fn member_snapshots_of_a_dump() {
        let d = tempfile::tempdir().unwrap();
        let put = |n: &str, t: &str| {
            let p = d.path().join(format!("sys/class/block/{n}"));
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("stat"), t).unwrap();
        };
        put("sda", "10 0 80 0 20 0 160 0 0 0 0\n");
        put("sdb", "1 0 8 0 2 0 16 0 0 0 0\n");
        put("sdc", "garbage\n");
        let sys = Sysroot::new(d.path());
        let names: Vec<String> = ["sda", "sdb", "sdc", "sdd"].map(String::from).to_vec();
        let a = read_member_stats(&sys, &names);
        assert_eq!(a.len(), 2, "sdc malformed, sdd missing");
        put("sda", "10 0 80 0 120 0 960 0 0 0 0\n");
        std::fs::remove_dir_all(d.path().join("sys/class/block/sdb")).unwrap();
        let b = read_member_stats(&sys, &names);
        let v = member_deltas(&a, &b);
        assert_eq!(v.len(), 1, "sdb vanished");
        assert_eq!(v[0].0, "sda");
        assert_eq!((v[0].1.write_ios, v[0].1.write_sectors), (100, 800));
        let s = other_io(&io(Direction::Write, 100, 4096), &v);
        assert_eq!(s[0].foreign_requests, 0);
    }

    #[test]
    fn of_line_takes_the_engines_figures() {
        let mut l = LineResult::empty(1 << 20, Direction::Read, 4);
        l.ios = 7;
        l.bytes = 7 << 20;
        let o = OurIo::of_line(&l);
        assert_eq!(o, io(Direction::Read, 7, 1 << 20));
    }

    #[test]
    fn marks_in_order_and_throttling() {
        let s = StepLoad {
            cpu: None,
            throttle: Some(Throttle {
                periods: 10,
                throttled_periods: 10,
                throttled_us: 1_000_000,
            }),
            throttled_percent_of_needed: Some(50.0),
            io: other_io(
                &io(Direction::Read, 100, 4096),
                &[("vda".into(), dev((100, 0, 800), (100, 0, 800)))],
            ),
        };
        let m = s.marks();
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(m[0], Mark::Throttled { percent: 50.0 });
        assert!(matches!(m[1], Mark::OtherIo { percent, .. } if percent == 50.0));
        let small = StepLoad {
            throttled_percent_of_needed: Some(THROTTLED_PERCENT),
            ..StepLoad::default()
        };
        assert!(
            small.marks().is_empty(),
            "the threshold itself is not marked"
        );
        let j = serde_json::to_string(&m).unwrap();
        assert!(
            j.contains("{\"kind\":\"throttled\",\"percent\":50.0}"),
            "{j}"
        );
        assert_eq!(serde_json::from_str::<Vec<Mark>>(&j).unwrap(), m);
        let j = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<StepLoad>(&j).unwrap(), s);
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
        let s = LoadSampler::start(&sys, &[], &CgroupLimits::default()).unwrap();
        // Spin for 300 ms of this thread's CPU time, however busy the
        // machine is (wall time would give less CPU time under load).
        let t0 = thread_cpu_ns();
        let mut x = 0u64;
        while thread_cpu_ns() - t0 < 300_000_000 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let l = s.finish(1.0);
        let c = l.cpu.expect("live /proc/stat");
        // Own time is rounded down to ticks, user and system apart.
        assert!(c.own_ns >= 270_000_000, "{c:?}");
        assert!(c.processes_ns + c.resolution_ns >= c.own_ns, "{c:?}");
        assert!(l.throttle.is_none());
        assert!((0.0..=100.0).contains(&c.steal_percent), "{c:?}");
    }
}
