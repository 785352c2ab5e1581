//! One measured line: the plain result and its report text.

use serde::{Deserialize, Serialize};

use super::blockstat::{DeviceDelta, DeviceStatDelta};
use super::tempfile;

/// Write or read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// `pwrite`, then one `fdatasync`.
    Write,
    /// `pread` of data this run wrote.
    Read,
}

/// One measured line.
#[derive(Debug, Clone, Serialize)]
pub struct LineResult {
    /// Block size, bytes (4096 or 1048576).
    pub block_size_bytes: u64,
    /// "write" or "read".
    pub direction: Direction,
    /// Number of concurrent jobs.
    pub jobs: u32,
    /// Bytes transferred by all jobs.
    pub bytes: u64,
    /// Whole-block I/Os completed by all jobs.
    pub ios: u64,
    /// From the first job's start to the last job's end (after the
    /// `fdatasync` for writes), ns.
    pub elapsed_ns: u64,
    /// Time the final `fdatasync` took (writes), ns.
    pub fdatasync_ns: Option<u64>,
    /// bytes / elapsed, 10^6 bytes per second.
    pub mb_per_s: f64,
    /// ios / elapsed, per second.
    pub iops: f64,
    /// Mean completion latency of one I/O, µs.
    pub lat_mean_us: f64,
    /// Median latency, µs (histogram bucket top, within 3 %).
    pub lat_p50_us: f64,
    /// 90th percentile latency, µs.
    pub lat_p90_us: f64,
    /// 99th percentile latency, µs.
    pub lat_p99_us: f64,
    /// 99.9th percentile latency, µs.
    pub lat_p999_us: f64,
    /// Largest latency, µs (exact).
    pub lat_max_us: f64,
    /// The sampled devices' stat deltas over the line, summed; `None` when
    /// no device was sampled or one of them had no readable stat file.
    pub device_stat_delta: Option<DeviceStatDelta>,
    /// Each sampled device's own deltas, in sampling order (those whose
    /// stat file could be read before and after the line).
    #[serde(default)]
    pub device_deltas: Vec<DeviceDelta>,
    /// O_DIRECT was in use (false: buffered fallback, page cache measured).
    pub direct_io: bool,
    /// The filesystem is memory-backed (tmpfs, ramfs): memory is measured.
    pub memory_backed: bool,
    /// Size of the temporary file, bytes.
    pub file_size_bytes: u64,
    /// Ended early by the cut flag (Ctrl-C); figures are over the real
    /// elapsed time.
    pub cut_short: bool,
    /// Why the line stopped early (ENOSPC, EIO...): figures are what was
    /// measured until then.
    pub error: Option<String>,
    /// The OS error number behind `error`, when there is one.
    pub error_errno: Option<i32>,
}

impl LineResult {
    /// A line with nothing measured yet: zero figures, O_DIRECT, no error.
    pub fn empty(block_size_bytes: u64, direction: Direction, jobs: u32) -> LineResult {
        LineResult {
            block_size_bytes,
            direction,
            jobs,
            bytes: 0,
            ios: 0,
            elapsed_ns: 0,
            fdatasync_ns: None,
            mb_per_s: 0.0,
            iops: 0.0,
            lat_mean_us: 0.0,
            lat_p50_us: 0.0,
            lat_p90_us: 0.0,
            lat_p99_us: 0.0,
            lat_p999_us: 0.0,
            lat_max_us: 0.0,
            device_stat_delta: None,
            device_deltas: Vec::new(),
            direct_io: true,
            memory_backed: false,
            file_size_bytes: 0,
            cut_short: false,
            error: None,
            error_errno: None,
        }
    }
}

/// The report line, as the original's
/// `printf "%-6s (%2d thread[s]): %6d MB/s  %6d IO/s  %6d µs avg. lat."`.
/// The three figures are truncated toward zero, as the original's shell
/// arithmetic does. A line that was cut short or stopped by an error gets
/// a marker after it (` (interrupted)` or ` (stopped: ENOSPC)`).
pub fn format_line(r: &LineResult) -> String {
    let label = match r.direction {
        Direction::Write => "Writes",
        Direction::Read => "Reads",
    };
    let mut s = format!(
        "{:<6} ({:>2} thread[s]): {:>6} MB/s  {:>6} IO/s  {:>6} \u{b5}s avg. lat.",
        label, r.jobs, r.mb_per_s as u64, r.iops as u64, r.lat_mean_us as u64
    );
    if let Some(errno) = r.error_errno {
        s.push_str(&format!(" (stopped: {})", tempfile::errno_name(errno)));
    } else if r.error.is_some() {
        s.push_str(" (stopped)");
    } else if r.cut_short {
        s.push_str(" (interrupted)");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(direction: Direction, jobs: u32, mb: f64, iops: f64, lat: f64) -> LineResult {
        LineResult {
            elapsed_ns: 1,
            mb_per_s: mb,
            iops,
            lat_mean_us: lat,
            ..LineResult::empty(4096, direction, jobs)
        }
    }

    /// Layout from `../shared/reference/bash-original-f56350b-loop2.txt`.
    #[test]
    fn lines_match_the_original_layout() {
        assert_eq!(
            format_line(&line(Direction::Write, 1, 66.9, 16256.7, 0.2)),
            "Writes ( 1 thread[s]):     66 MB/s   16256 IO/s       0 µs avg. lat."
        );
        assert_eq!(
            format_line(&line(Direction::Read, 16, 657.0, 766.0, 2.0)),
            "Reads  (16 thread[s]):    657 MB/s     766 IO/s       2 µs avg. lat."
        );
    }

    #[test]
    fn stopped_and_cut_lines_are_marked() {
        let mut r = line(Direction::Write, 4, 1.0, 2.0, 3.0);
        r.cut_short = true;
        assert!(format_line(&r).ends_with("avg. lat. (interrupted)"));
        r.error = Some("x".into());
        r.error_errno = Some(libc::ENOSPC);
        assert!(format_line(&r).ends_with("avg. lat. (stopped: ENOSPC)"));
    }
}
