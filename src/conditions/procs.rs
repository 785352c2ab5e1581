//! Busy with what: the other processes' CPU time during a step, from
//! `/proc/<pid>/stat` (utime + stime, all threads, in clock ticks; the
//! command name, field 2; the start time, field 22, which tells a reused
//! pid from the process that had it). Read when the step starts and when
//! it ends; a process started during the step counts all its time, one
//! that ended during it is missed (its time went to its parent's
//! children's time, which no field of the parent's line adds until it
//! waits). Every process counts, wherever it ran: a busy mark names who
//! used the CPUs, and `/proc/stat` already says how much on the step's.

use serde::{Deserialize, Serialize};

use super::percent;
use crate::Sysroot;

/// One process in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ProcTicks {
    pid: u32,
    start: u64,
    comm: String,
    ticks: u64,
}

/// Every process's CPU time at one moment, but this one's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcSnapshot {
    procs: Vec<ProcTicks>,
}

/// (command name, utime + stime ticks, start time) of a
/// `/proc/<pid>/stat` line; the name may hold spaces and parentheses.
pub fn parse_pid_stat(text: &str) -> Option<(String, u64, u64)> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_string();
    let f: Vec<&str> = text[close + 1..].split_whitespace().collect();
    // f[0] is field 3 (state): utime 14, stime 15, starttime 22.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    let start: u64 = f.get(19)?.parse().ok()?;
    Some((comm, utime.saturating_add(stime), start))
}

impl ProcSnapshot {
    /// Reads `/proc/<pid>/stat` of every process of the sysroot but
    /// `own_pid`; processes that end while it reads are skipped.
    pub fn take(sys: &Sysroot, own_pid: u32) -> ProcSnapshot {
        let mut procs = Vec::new();
        for name in sys.list_dir("/proc").unwrap_or_default() {
            let Ok(pid) = name.parse::<u32>() else {
                continue;
            };
            if pid == own_pid {
                continue;
            }
            let Ok(t) = sys.read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            if let Some((comm, ticks, start)) = parse_pid_stat(&t) {
                procs.push(ProcTicks {
                    pid,
                    start,
                    comm,
                    ticks,
                });
            }
        }
        ProcSnapshot { procs }
    }
}

/// One other process's CPU time during a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessShare {
    /// Its pid (0 when read back from text, which prints names only).
    pub pid: u32,
    /// Its command name (`comm`, at most 15 bytes).
    pub comm: String,
    /// Its CPU time over the step's elapsed time, percent of one CPU (0
    /// when read back from text).
    pub cpu_percent: f64,
}

/// Processes kept in a step's load: the busiest few are what a reader
/// acts on; the list stays short in the JSON.
pub const KEPT: usize = 5;

/// Below this share of one CPU a process is background, not named.
pub const NAMED_FROM_PERCENT: f64 = 1.0;

/// The other processes that used at least [`NAMED_FROM_PERCENT`] of a CPU
/// between `before` and `after` (a step of `elapsed_ns`), busiest first,
/// at most [`KEPT`]; `ticks_per_s` is USER_HZ.
pub fn busiest(
    before: &ProcSnapshot,
    after: &ProcSnapshot,
    elapsed_ns: u64,
    ticks_per_s: u64,
) -> Vec<ProcessShare> {
    let mut v: Vec<ProcessShare> = after
        .procs
        .iter()
        .filter_map(|p| {
            let was = before
                .procs
                .iter()
                .find(|q| q.pid == p.pid && q.start == p.start)
                .map_or(0, |q| q.ticks);
            // Ticks to ns (as `load::ticks_to_ns`, which imports this file).
            let ns = p.ticks.saturating_sub(was) as f64 * 1e9 / ticks_per_s.max(1) as f64;
            let share = percent(ns, elapsed_ns as f64);
            (share >= NAMED_FROM_PERCENT).then(|| ProcessShare {
                pid: p.pid,
                comm: p.comm.clone(),
                cpu_percent: share,
            })
        })
        .collect();
    v.sort_by(|a, b| b.cpu_percent.total_cmp(&a.cpu_percent));
    v.truncate(KEPT);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(pid: u32, comm: &str, utime: u64, stime: u64, start: u64) -> String {
        format!(
            "{pid} ({comm}) R 1 {pid} {pid} 0 -1 4194304 530 0 0 0 {utime} {stime} 0 0 20 0 1 0 {start} 10240000 512 18446744073709551615\n"
        )
    }

    #[test]
    fn pid_stat_fields() {
        assert_eq!(
            parse_pid_stat(&line(7, "cc1plus", 150, 30, 9000)),
            Some(("cc1plus".into(), 180, 9000))
        );
        assert_eq!(
            parse_pid_stat(&line(8, "a) (b", 1, 2, 3)),
            Some(("a) (b".into(), 3, 3))
        );
        assert_eq!(parse_pid_stat("8 (x) S 1 2 3"), None);
    }

    #[test]
    fn the_busiest_from_a_dump_read_twice() {
        let d = tempfile::tempdir().unwrap();
        let w = |pid: u32, text: String| {
            let p = d.path().join(format!("proc/{pid}"));
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("stat"), text).unwrap();
        };
        w(10, line(10, "qb-spinner", 100, 0, 50));
        w(11, line(11, "cargo", 10, 0, 60));
        w(12, line(12, "sshd", 5, 0, 70));
        w(13, line(13, "reused", 500, 0, 80));
        w(99, line(99, "quickbench", 0, 0, 90));
        std::fs::create_dir_all(d.path().join("proc/self")).unwrap();
        let sys = Sysroot::new(d.path());
        let a = ProcSnapshot::take(&sys, 99);
        assert_eq!(a.procs.len(), 4, "own pid and non-pids left out");
        // One second at USER_HZ 100: qb-spinner took 95 ticks, cargo 40,
        // sshd none; pid 13 is a new process (another start time) that
        // took 20 ticks; a process started during the step counts whole.
        w(10, line(10, "qb-spinner", 195, 0, 50));
        w(11, line(11, "cargo", 30, 20, 60));
        w(13, line(13, "reused", 20, 0, 95));
        w(14, line(14, "cc1plus", 3, 0, 96));
        let b = ProcSnapshot::take(&sys, 99);
        let v = busiest(&a, &b, 1_000_000_000, 100);
        let names: Vec<(&str, f64)> = v.iter().map(|p| (p.comm.as_str(), p.cpu_percent)).collect();
        assert_eq!(
            names,
            vec![
                ("qb-spinner", 95.0),
                ("cargo", 40.0),
                ("reused", 20.0),
                ("cc1plus", 3.0)
            ]
        );
        assert_eq!(v[0].pid, 10);
    }

    #[test]
    fn at_most_kept_and_none_below_the_floor() {
        let snap = |ticks: &[u64]| ProcSnapshot {
            procs: ticks
                .iter()
                .enumerate()
                .map(|(i, &t)| ProcTicks {
                    pid: i as u32,
                    start: 0,
                    comm: format!("p{i}"),
                    ticks: t,
                })
                .collect(),
        };
        let v = busiest(
            &snap(&[0; 8]),
            &snap(&[9, 8, 7, 6, 5, 4, 3, 0]),
            1_000_000_000,
            100,
        );
        assert_eq!(v.len(), KEPT);
        assert_eq!(v[0].comm, "p0");
        assert!(busiest(&snap(&[0]), &snap(&[0]), 1_000_000_000, 100).is_empty());
    }
}
