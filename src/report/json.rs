//! The `--json` document: every figure of the report with its unit in its
//! key, plus the metadata that makes two runs comparable. Its shape is
//! described by `schema/report.schema.json` (tests validate against it).

use serde::Serialize;

use crate::blockdev::details::DeviceDetails;
use crate::blockdev::{DiskRow, Target};
use crate::cpu_loop::smt::SmtProbe;
use crate::cpu_loop::LoopStep;
use crate::dd_io::LineResult;
use crate::membw::dram::DramBandwidth;
use crate::membw::DdBandwidth;
use crate::plan::Plan;
use crate::report::Header;
use crate::sysinfo::cpu::CpuSummary;

/// Bumped whenever a key changes meaning or disappears.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole document.
#[derive(Debug, Clone, Serialize)]
pub struct JsonReport {
    /// Version of this document's layout.
    pub schema_version: u32,
    /// Build and version facts (the text header).
    pub quickbench: Header,
    /// Host name (uname nodename).
    pub hostname: String,
    /// When the run started, UTC, RFC 3339 (`2026-12-02T15:20:00Z`).
    pub timestamp_utc: String,
    /// The loop delay, seconds.
    pub loop_delay_s: f64,
    /// The sections selected, in report order.
    pub sections: Vec<String>,
    /// True for `--dry-run` (nothing measured).
    pub dry_run: bool,
    /// The benchmark directory and the storage behind it.
    pub storage_target: Option<Target>,
    /// `[ CPU info ]`: the summary and its exact text lines.
    pub cpu_info: Option<CpuInfoJson>,
    /// `[ CPU loop ]` steps.
    pub cpu_loop: Vec<LoopStep>,
    /// `[ Memory ]`.
    pub memory: Option<MemoryJson>,
    /// `[ Storage info ]` rows.
    pub storage_info: Option<Vec<DiskRow>>,
    /// `[ Storage device stack ]` lines, when stacked.
    pub storage_stack: Option<Vec<String>>,
    /// `[ Storage bandwidth ]` lines, 4k then 1M.
    pub storage_bandwidth: Vec<LineResult>,
    /// Why the storage bandwidth sections did not run, if they did not.
    pub storage_bandwidth_skipped: Option<String>,
    /// `[ Plan ]` of `--dry-run`.
    pub plan: Option<Plan>,
    /// What `--extended` adds (null without it).
    pub extended: Option<ExtendedJson>,
    /// Sections that could not run (the exit status is then 1).
    pub failed_sections: Vec<String>,
}

/// The figures of `--extended` (steal time and clock are in each
/// `cpu_loop` step's `conditions`; latency percentiles and device counters
/// are in each `storage_bandwidth` line).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExtendedJson {
    /// Two jobs on SMT siblings against two on separate cores.
    pub smt_probe: Option<SmtProbe>,
    /// DRAM copy and triad, 1 thread and all CPUs.
    pub dram: Option<DramBandwidth>,
    /// Queue settings of the benchmarked device(s).
    pub device_details: Vec<DeviceDetails>,
}

/// `[ CPU info ]` in JSON.
#[derive(Debug, Clone, Serialize)]
pub struct CpuInfoJson {
    /// The text lines, exactly as printed.
    pub lines: Vec<String>,
    /// The structured summary.
    pub summary: CpuSummary,
}

/// `[ Memory ]` in JSON.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryJson {
    /// `MemTotal` of /proc/meminfo, KiB.
    pub mem_total_kib: Option<u64>,
    /// The printed Total: `mem_total_kib >> 10`, MiB (labelled MB).
    pub total_mb: Option<u64>,
    /// The dd-equivalent measurement (`/dev/zero` to `/dev/null`, 1 MiB).
    pub dd_bandwidth: Option<DdBandwidth>,
    /// Its rate in bytes per second.
    pub dd_bandwidth_bytes_per_s: Option<f64>,
    /// Its rate as printed (GNU dd's text).
    pub dd_bandwidth_text: Option<String>,
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch.
pub fn rfc3339_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// The current time, RFC 3339 UTC.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339_utc(secs)
}

#[cfg(test)]
mod tests {
    use super::rfc3339_utc;

    #[test]
    fn utc_timestamps() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_796_225_000), "2026-12-02T15:23:20Z");
    }
}
