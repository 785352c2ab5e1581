//! CPU times and clocks: the `cpu` lines of `/proc/stat` (jiffies per
//! state: user nice system idle iowait irq softirq steal guest guest_nice;
//! kernels before 2.6.33 lack the trailing fields, which count as 0) and
//! the current clock of each CPU:
//! `/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq` (kHz), else the
//! `cpu MHz` lines of `/proc/cpuinfo`. [`crate::conditions`] samples them
//! around each step.

use crate::Sysroot;

/// Jiffies spent in each state by one CPU or by all (one `cpu` line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CpuTimes {
    /// Normal processes in user mode.
    pub user: u64,
    /// Niced processes in user mode.
    pub nice: u64,
    /// Kernel mode.
    pub system: u64,
    /// Idle.
    pub idle: u64,
    /// Idle waiting for I/O (0 before 2.5.41).
    pub iowait: u64,
    /// Servicing interrupts (0 before 2.6.0).
    pub irq: u64,
    /// Servicing softirqs (0 before 2.6.0).
    pub softirq: u64,
    /// Taken by the hypervisor for other guests (0 before 2.6.11).
    pub steal: u64,
    /// Running a guest (already counted in `user`; 0 before 2.6.24).
    pub guest: u64,
    /// Running a niced guest (already counted in `nice`; 0 before 2.6.33).
    pub guest_nice: u64,
}

impl CpuTimes {
    /// Parses the numbers after the `cpu`/`cpuN` label; missing trailing
    /// fields are 0, a malformed number makes it `None`.
    fn from_fields<'a>(fields: impl Iterator<Item = &'a str>) -> Option<CpuTimes> {
        let mut v = [0u64; 10];
        let mut n = 0;
        for (slot, f) in v.iter_mut().zip(fields) {
            *slot = f.parse().ok()?;
            n += 1;
        }
        if n < 4 {
            return None;
        }
        Some(CpuTimes {
            user: v[0],
            nice: v[1],
            system: v[2],
            idle: v[3],
            iowait: v[4],
            irq: v[5],
            softirq: v[6],
            steal: v[7],
            guest: v[8],
            guest_nice: v[9],
        })
    }

    /// All jiffies elapsed (guest time is inside user and nice, so it is
    /// not added twice). Saturates instead of overflowing on absurd
    /// counters, so it is never below any one of its fields.
    pub fn total(&self) -> u64 {
        [
            self.nice,
            self.system,
            self.idle,
            self.iowait,
            self.irq,
            self.softirq,
            self.steal,
        ]
        .iter()
        .fold(self.user, |t, &v| t.saturating_add(v))
    }

    /// The jiffies spent between `earlier` and `self`, field by field
    /// (0 where a counter went backwards, as iowait can).
    pub fn delta(&self, earlier: &CpuTimes) -> CpuTimes {
        CpuTimes {
            user: self.user.saturating_sub(earlier.user),
            nice: self.nice.saturating_sub(earlier.nice),
            system: self.system.saturating_sub(earlier.system),
            idle: self.idle.saturating_sub(earlier.idle),
            iowait: self.iowait.saturating_sub(earlier.iowait),
            irq: self.irq.saturating_sub(earlier.irq),
            softirq: self.softirq.saturating_sub(earlier.softirq),
            steal: self.steal.saturating_sub(earlier.steal),
            guest: self.guest.saturating_sub(earlier.guest),
            guest_nice: self.guest_nice.saturating_sub(earlier.guest_nice),
        }
    }
}

/// The `cpu` lines of `/proc/stat`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProcStat {
    /// The aggregate `cpu` line (all CPUs), `None` when absent.
    pub total: Option<CpuTimes>,
    /// The `cpuN` lines, as (N, times), in file order.
    pub per_cpu: Vec<(u32, CpuTimes)>,
}

/// Parses the `cpu` and `cpuN` lines of `/proc/stat`; other lines and
/// malformed `cpu` lines are skipped.
pub fn parse_proc_stat(text: &str) -> ProcStat {
    let mut out = ProcStat::default();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(label) = words.next() else { continue };
        let Some(rest) = label.strip_prefix("cpu") else {
            continue;
        };
        let Some(times) = CpuTimes::from_fields(words) else {
            continue;
        };
        if rest.is_empty() {
            out.total = Some(times);
        } else if let Ok(n) = rest.parse::<u32>() {
            out.per_cpu.push((n, times));
        }
    }
    out
}

/// The share (0..=100) of elapsed CPU time stolen by the hypervisor
/// between two readings of the same line; 0 when no time elapsed.
pub fn steal_percent(before: &CpuTimes, after: &CpuTimes) -> f64 {
    let d = after.delta(before);
    let total = d.total();
    if total == 0 {
        0.0
    } else {
        // the ratio first: steal <= total keeps it <= 1, so the share <= 100
        100.0 * (d.steal as f64 / total as f64)
    }
}

/// Where a CPU's clock was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MhzSource {
    /// `cpufreq/scaling_cur_freq` (kHz).
    Cpufreq,
    /// `cpu MHz` of `/proc/cpuinfo`.
    Cpuinfo,
    /// Neither exists.
    None,
}

/// Reads the current clock of the CPUs listed in `/proc/stat`: from
/// cpufreq when every one has `scaling_cur_freq`, else from
/// `/proc/cpuinfo`. Returns (source, (CPU, MHz) list).
pub fn read_mhz(sys: &Sysroot, cpus: &[u32]) -> (MhzSource, Vec<(u32, f64)>) {
    let mut out = Vec::with_capacity(cpus.len());
    for &c in cpus {
        let khz = sys
            .read_trimmed(format!(
                "/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_cur_freq"
            ))
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|&k| k > 0);
        match khz {
            Some(k) => out.push((c, k as f64 / 1000.0)),
            None => break,
        }
    }
    if !cpus.is_empty() && out.len() == cpus.len() {
        return (MhzSource::Cpufreq, out);
    }
    match sys.read_to_string("/proc/cpuinfo") {
        Ok(t) => {
            let v: Vec<(u32, f64)> = crate::sysinfo::cpu::cpuinfo::cpu_mhz(t.as_bytes())
                .into_iter()
                .filter(|(c, _)| cpus.is_empty() || cpus.contains(c))
                .collect();
            if v.is_empty() {
                (MhzSource::None, v)
            } else {
                (MhzSource::Cpuinfo, v)
            }
        }
        Err(_) => (MhzSource::None, Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This VM's /proc/stat (kernel 6.18), head.
    const STAT_6X: &str = "cpu  32988 0 92547 56235 1604 0 2919 56 0 0\n\
cpu0 16301 0 44547 30437 753 0 1115 28 0 0\n\
cpu1 16687 0 48000 25798 851 0 1803 28 0 0\n\
intr 1455818 0 0 0 0\n\
ctxt 114174548\n\
btime 1764687000\n\
processes 12345\n\
procs_running 1\n";

    /// A 2.6.18-era kernel (RHEL 5): no guest, guest_nice fields.
    const STAT_OLD: &str = "cpu  2255 34 2290 22625563 6290 127 456 0\n\
cpu0 1132 34 1441 11311718 3675 127 438 0\n\
cpu1 1123 0 849 11313845 2614 0 18 0\n\
intr 114930548 113199788 3 0 5 263 0 4 [... 186 more ...]\n";

    #[test]
    fn parses_this_vms_proc_stat() {
        let s = parse_proc_stat(STAT_6X);
        let t = s.total.unwrap();
        assert_eq!(
            t,
            CpuTimes {
                user: 32988,
                nice: 0,
                system: 92547,
                idle: 56235,
                iowait: 1604,
                irq: 0,
                softirq: 2919,
                steal: 56,
                guest: 0,
                guest_nice: 0,
            }
        );
        assert_eq!(s.per_cpu.len(), 2);
        assert_eq!(s.per_cpu[1].0, 1);
        assert_eq!(s.per_cpu[1].1.system, 48000);
        assert_eq!(s.per_cpu[0].1.steal, 28);
        assert_eq!(t.total(), 32988 + 92547 + 56235 + 1604 + 2919 + 56);
    }

    #[test]
    fn old_kernel_lines_without_guest_fields() {
        let s = parse_proc_stat(STAT_OLD);
        let t = s.total.unwrap();
        assert_eq!(t.softirq, 456);
        assert_eq!(t.steal, 0);
        assert_eq!(t.guest, 0);
        assert_eq!(t.guest_nice, 0);
        assert_eq!(s.per_cpu[0].1.idle, 11311718);
        // 2.6.0-style: only 7 fields.
        let s = parse_proc_stat("cpu 1 2 3 4 5 6 7\n");
        assert_eq!(s.total.unwrap().softirq, 7);
        assert_eq!(s.total.unwrap().steal, 0);
    }

    #[test]
    fn malformed_cpu_lines_are_skipped() {
        let s = parse_proc_stat("cpu 1 2 x 4\ncpu0 1 2\ncpuX 1 2 3 4\ncpu1 1 2 3 4\n");
        assert_eq!(s.total, None);
        assert_eq!(s.per_cpu.len(), 1);
        assert_eq!(s.per_cpu[0].0, 1);
        assert_eq!(parse_proc_stat(""), ProcStat::default());
    }

    #[test]
    fn total_saturates_on_huge_counters() {
        // found by fuzzing (fuzz/fuzz_targets/proc_stat.rs): the sum of
        // the fields overflowed u64 (a panic in debug builds, a wrapped
        // total and a steal share above 100 % in release builds)
        let zero = parse_proc_stat("cpu0 0 0 0 0 0 0 0 0 0 0\n").per_cpu[0].1;
        let huge =
            parse_proc_stat("cpu  18446744073709551615 0 0 0 0 0 0 18446744073709551615 0 0\n")
                .total
                .unwrap();
        assert_eq!(huge.total(), u64::MAX);
        assert_eq!(huge.delta(&zero).total(), u64::MAX);
        let p = steal_percent(&zero, &huge);
        assert!((0.0..=100.0).contains(&p), "{p}");
        assert_eq!(steal_percent(&huge, &zero), 0.0);
    }

    #[test]
    fn steal_percent_of_all_steal_is_at_most_100() {
        // found by fuzzing: 100 * steal / total rounded above 100 with
        // huge counters (100.00000000000001)
        let zero = CpuTimes::default();
        let t = CpuTimes {
            user: 16_902_195_153_864_458_911 - 16_902_195_153_864_458_092,
            steal: 16_902_195_153_864_458_092,
            ..CpuTimes::default()
        };
        let p = steal_percent(&zero, &t);
        assert!(p <= 100.0, "{p}");
    }

    #[test]
    fn steal_percent_of_a_delta() {
        let a = parse_proc_stat("cpu 100 0 100 700 0 0 0 100 0 0\n")
            .total
            .unwrap();
        let b = parse_proc_stat("cpu 150 0 150 750 0 0 0 150 0 0\n")
            .total
            .unwrap();
        assert_eq!(b.delta(&a).total(), 200);
        assert_eq!(steal_percent(&a, &b), 25.0);
        assert_eq!(steal_percent(&a, &a), 0.0);
        // guest is part of user: not counted twice.
        let g0 = parse_proc_stat("cpu 0 0 0 0 0 0 0 0 0 0\n").total.unwrap();
        let g1 = parse_proc_stat("cpu 90 0 0 0 0 0 0 10 90 0\n")
            .total
            .unwrap();
        assert_eq!(steal_percent(&g0, &g1), 10.0);
    }

    #[test]
    fn a_counter_going_backwards_counts_zero() {
        let a = parse_proc_stat("cpu 10 0 0 10 50 0 0 0\n").total.unwrap();
        let b = parse_proc_stat("cpu 20 0 0 20 40 0 0 0\n").total.unwrap();
        assert_eq!(b.delta(&a).iowait, 0);
        assert_eq!(b.delta(&a).total(), 20);
    }

    fn dump(stat: &str, cpuinfo: Option<&str>, khz: &[(u32, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(d.path().join("proc/stat"), stat).unwrap();
        if let Some(c) = cpuinfo {
            std::fs::write(d.path().join("proc/cpuinfo"), c).unwrap();
        }
        for (c, k) in khz {
            let p = d
                .path()
                .join(format!("sys/devices/system/cpu/cpu{c}/cpufreq"));
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("scaling_cur_freq"), k).unwrap();
        }
        d
    }

    #[test]
    fn cpufreq_wins_over_cpuinfo() {
        let d = dump(
            STAT_6X,
            Some("processor : 0\ncpu MHz : 1000\nprocessor : 1\ncpu MHz : 1000\n"),
            &[(0, "2000000\n"), (1, "3000000\n")],
        );
        let (source, mhz) = read_mhz(&Sysroot::new(d.path()), &[0, 1]);
        assert_eq!(source, MhzSource::Cpufreq);
        assert_eq!(mhz, vec![(0, 2000.0), (1, 3000.0)]);
    }

    #[test]
    fn cpuinfo_when_cpufreq_is_partial_and_none_without_either() {
        let d = dump(
            STAT_6X,
            Some("processor : 0\ncpu MHz : 1000\nprocessor : 1\ncpu MHz : 1500\n"),
            &[(0, "2000000\n")],
        );
        let (source, mhz) = read_mhz(&Sysroot::new(d.path()), &[0, 1]);
        assert_eq!(source, MhzSource::Cpuinfo);
        assert_eq!(mhz, vec![(0, 1000.0), (1, 1500.0)]);
        // Only the CPUs asked for.
        let (_, mhz) = read_mhz(&Sysroot::new(d.path()), &[1]);
        assert_eq!(mhz, vec![(1, 1500.0)]);
        let d = dump(STAT_6X, None, &[]);
        let (source, mhz) = read_mhz(&Sysroot::new(d.path()), &[0, 1]);
        assert_eq!(source, MhzSource::None);
        assert!(mhz.is_empty());
    }
}
