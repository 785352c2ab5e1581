//! The sections `--extended` adds after the standard report: CPU
//! conditions and the SMT probe, DRAM bandwidth, storage latency
//! percentiles and device details. Same habits as the standard report:
//! `Label     : value` lines, one figure per column, units written out.

use crate::blockdev::details::DeviceDetails;
use crate::cpu_loop::smt::SmtProbe;
use crate::cpu_loop::LoopStep;
use crate::dd_io::{DeviceStatDelta, Direction, LineResult};
use crate::membw::dram::{DramBandwidth, DramRun};
use crate::model::BlockSize;
use crate::sysinfo::procstat::MhzSource;

/// `[ Extended: CPU ]`: steal time and clock of each loop step, then the
/// SMT probe's verdict.
pub fn cpu_lines(steps: &[LoopStep], smt: Option<&SmtProbe>) -> Vec<String> {
    let mut v = Vec::new();
    for s in steps {
        let cond = match &s.conditions {
            Some(c) => {
                let clock = match (c.mean_mhz, c.mhz_source) {
                    (Some(m), MhzSource::Cpufreq) => format!("{m:6.0} MHz (cpufreq)"),
                    (Some(m), _) => format!("{m:6.0} MHz (cpuinfo, often the nominal clock)"),
                    (None, _) => "     ? MHz".to_string(),
                };
                format!("steal {:5.1} %   clock {clock}", c.steal_percent)
            }
            None => "steal     ? %   clock      ? MHz".to_string(),
        };
        v.push(format!("{:2} // jobs : {cond}", s.jobs));
    }
    if let Some(p) = smt {
        v.push(format!("SMT probe : {}", p.verdict()));
        if let (Some(sib), Some(sep)) = (p.siblings_loops_per_s_each, p.separate_loops_per_s_each) {
            v.push(format!(
                "            siblings {:10.0} loop/job/s, separate cores {:10.0} loop/job/s",
                sib, sep
            ));
        }
    }
    v
}

fn dram_run_line(r: &DramRun) -> String {
    let label = if r.threads == 1 {
        " 1 thread ".to_string()
    } else {
        format!("{:2} threads", r.threads)
    };
    let mut s = format!(
        "{label}: copy {:6.1} GB/s   triad {:6.1} GB/s",
        r.copy_gb_per_s, r.triad_gb_per_s
    );
    if !r.pinned {
        s.push_str("   (threads not pinned)");
    }
    if r.cut_short {
        s.push_str(" (interrupted)");
    }
    if !r.verified {
        s.push_str(" (arrays did not verify: figure suspect)");
    }
    s
}

/// `[ Extended: Memory ]`: DRAM copy and triad like STREAM, with 1 thread
/// and with all CPUs.
pub fn memory_lines(d: &DramBandwidth) -> Vec<String> {
    let mut v = vec![format!(
        "Arrays    : 3 x {} MiB (last-level cache {}), best of {} passes",
        d.plan.array_bytes >> 20,
        d.plan
            .llc_bytes
            .map_or_else(|| "unknown".to_string(), |b| format!("{} MiB", b >> 20)),
        d.single.passes
    )];
    if let Some(n) = d.plan.note() {
        v.push(format!("Note      : {n}"));
    }
    v.push(dram_run_line(&d.single));
    if let Some(all) = &d.all {
        v.push(dram_run_line(all));
    }
    v
}

/// Device I/Os during a line that the engine did not issue, if the device
/// counters show clearly more than the engine's own I/Os (other processes,
/// journal or metadata writes). Request merging and splitting make the
/// counts differ a little, so only a clear excess is flagged.
pub fn foreign_ios(line: &LineResult, d: &DeviceStatDelta) -> Option<u64> {
    let (same, other) = match line.direction {
        Direction::Write => (d.write_ios + d.write_merges, d.read_ios),
        Direction::Read => (d.read_ios + d.read_merges, d.write_ios),
    };
    // 1 MiB blocks may be split into several device requests.
    let split = (line.block_size_bytes / (128 << 10)).max(1);
    let expected_max = line.ios.saturating_mul(split);
    let excess = same.saturating_sub(expected_max) + other;
    (excess > 16 + line.ios / 100).then_some(excess)
}

/// One line of latency percentiles and device counters.
pub fn io_latency_line(l: &LineResult) -> String {
    let label = l.direction.label();
    let mut s = format!(
        "{} {:<6} ({:2} thread[s]): p50 {:>8.1}  p90 {:>8.1}  p99 {:>8.1}  p99.9 {:>8.1}  max {:>9.1} µs",
        BlockSize::from_bytes(l.block_size_bytes).map_or("?", BlockSize::label),
        label,
        l.jobs,
        l.lat_p50_us,
        l.lat_p90_us,
        l.lat_p99_us,
        l.lat_p999_us,
        l.lat_max_us
    );
    match &l.device_stat_delta {
        Some(d) => {
            let dev_ios = match l.direction {
                Direction::Write => d.write_ios,
                Direction::Read => d.read_ios,
            };
            s.push_str(&format!("  | engine {} I/Os, device {dev_ios}", l.ios));
            if let Some(n) = foreign_ios(l, d) {
                s.push_str(&format!(" (+{n} not ours: other I/O during the line)"));
            }
        }
        None => s.push_str("  | no device counters"),
    }
    s
}

/// `[ Extended: Storage ]`: device details, then latency percentiles per
/// line next to the device's own counters.
pub fn storage_lines(lines: &[LineResult], devices: &[DeviceDetails]) -> Vec<String> {
    let mut v: Vec<String> = devices
        .iter()
        .map(|d| format!("Device    : {}", super::text::device_details_line(d)))
        .collect();
    if devices.is_empty() {
        v.push("Device    : no local block device".to_string());
    }
    v.extend(lines.iter().map(io_latency_line));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(direction: Direction, ios: u64, dev: Option<DeviceStatDelta>) -> LineResult {
        let mut l = LineResult::empty(4096, direction, 1);
        l.lat_p90_us = 40.0;
        l.lat_p99_us = 40.0;
        l.lat_p999_us = 40.0;
        l.lat_max_us = 40.0;
        l.ios = ios;
        l.lat_p50_us = 12.0;
        l.device_stat_delta = dev;
        l
    }

    fn delta(read_ios: u64, write_ios: u64) -> DeviceStatDelta {
        DeviceStatDelta {
            read_ios,
            read_merges: 0,
            read_sectors: 0,
            read_ticks_ms: 0,
            write_ios,
            write_merges: 0,
            write_sectors: 0,
            write_ticks_ms: 0,
            busy_ms: 0,
            time_in_queue_ms: 0,
            flush_ios: None,
        }
    }

    #[test]
    fn foreign_io_is_flagged_only_when_clear() {
        let l = line(Direction::Write, 10_000, None);
        assert_eq!(foreign_ios(&l, &delta(0, 10_000)), None);
        assert_eq!(foreign_ios(&l, &delta(0, 10_050)), None);
        assert_eq!(foreign_ios(&l, &delta(500, 10_000)), Some(500));
        let r = line(Direction::Read, 1_000, None);
        assert_eq!(foreign_ios(&r, &delta(1_000, 300)), Some(300));
    }

    #[test]
    fn latency_line_layout() {
        let l = line(Direction::Read, 25_000, Some(delta(25_000, 0)));
        assert_eq!(
            io_latency_line(&l),
            "4k Reads  ( 1 thread[s]): p50     12.0  p90     40.0  p99     40.0  p99.9     40.0  max      40.0 µs  | engine 25000 I/Os, device 25000"
        );
        let l = line(Direction::Write, 25_000, None);
        assert!(io_latency_line(&l).ends_with("| no device counters"));
    }
}
