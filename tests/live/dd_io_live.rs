//! Live tests of the storage engine on a temporary directory under the
//! build's target dir (a real filesystem), with short lines.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use quickbench::dd_io::{self, Direction, IoConfig, Workspace};

const MIB: u64 = 1 << 20;
const LINE: Duration = Duration::from_millis(200);

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dd_io_live")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn workspace(dir: &Path) -> Workspace {
    let mut cfg = IoConfig::new(dir);
    cfg.max_size_bytes = 64 * MIB;
    dd_io::prepare(&cfg).expect("prepare")
}

/// `%-6s (%2d thread[s]): %6d MB/s  %6d IO/s  %6d µs avg. lat.`
fn assert_layout(line: &str, label: &str, jobs: u32) {
    let head = format!("{label:<6} ({jobs:>2} thread[s]): ");
    assert!(line.starts_with(&head), "{line:?}");
    let rest = &line[head.len()..];
    assert!(rest.ends_with(" µs avg. lat."), "{line:?}");
    for (i, unit) in [(0usize, " MB/s  "), (13, " IO/s  "), (26, " µs avg. lat.")] {
        let num = &rest[i..i + 6];
        assert!(num.trim_start().parse::<u64>().is_ok(), "{line:?}: {num:?}");
        assert!(rest[i + 6..].starts_with(unit), "{line:?}");
    }
    assert_eq!(rest.len(), 26 + 6 + " µs avg. lat.".len(), "{line:?}");
}

#[test]
fn all_twelve_lines_run_and_leave_nothing_behind() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = scratch();
    let cut = AtomicBool::new(false);
    {
        let mut ws = workspace(d.path());
        assert_eq!(ws.file_size_bytes(), 64 * MIB);
        assert!(entries(d.path()).is_empty(), "the file has no name");
        for bs in [4096u64, MIB] {
            for dir in [Direction::Write, Direction::Read] {
                for jobs in [1u32, 4, 16] {
                    let r = ws.run_line(bs, dir, jobs, Duration::from_millis(100), &cut);
                    assert_eq!(r.end.error(), None, "{r:?}");
                    assert!(r.ios > 0 && r.bytes == r.ios * bs, "{r:?}");
                    assert!(r.elapsed_ns >= 100_000_000, "{r:?}");
                    assert!(r.lat_p50_us <= r.lat_p99_us && r.lat_p99_us <= r.lat_max_us);
                    let label = if dir == Direction::Write {
                        "Writes"
                    } else {
                        "Reads"
                    };
                    assert_layout(&quickbench::report::text::io_line(&r), label, jobs);
                }
            }
        }
    }
    assert!(entries(d.path()).is_empty(), "{:?}", entries(d.path()));
}

/// With one job, IO/s x mean latency is the fraction of the line spent in
/// I/O calls: close to 1 (a bit less: loop overhead, and the fdatasync for
/// writes).
#[test]
fn one_job_iops_times_latency_is_close_to_one() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = scratch();
    let mut ws = workspace(d.path());
    let cut = AtomicBool::new(false);
    for dir in [Direction::Write, Direction::Read] {
        let r = ws.run_line(4096, dir, 1, LINE, &cut);
        let busy = r.iops * r.lat_mean_us / 1e6;
        assert!((0.6..=1.01).contains(&busy), "{dir:?}: {busy} {r:?}");
    }
}

#[test]
fn reading_before_any_write_is_refused_not_faked() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = scratch();
    let mut ws = workspace(d.path());
    let r = ws.run_line(4096, Direction::Read, 1, LINE, &AtomicBool::new(false));
    assert_eq!(r.ios, 0);
    assert!(
        r.end.error().unwrap_or("").contains("nothing written"),
        "{r:?}"
    );
}

#[test]
fn cut_flag_ends_the_line_early() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = scratch();
    let mut ws = workspace(d.path());
    let cut = AtomicBool::new(false);
    let t = Instant::now();
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(150));
            cut.store(true, Ordering::Relaxed);
        });
        ws.run_line(4096, Direction::Write, 4, Duration::from_secs(20), &cut)
    });
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert!(r.end.interrupted() && r.ios > 0, "{r:?}");
    assert!(quickbench::report::text::io_line(&r).ends_with("(interrupted)"));
    let secs = r.elapsed_ns as f64 / 1e9;
    assert!((r.iops - r.ios as f64 / secs).abs() < 1e-6);
}

#[test]
fn missing_directory_is_a_skip_naming_it() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let cfg = IoConfig::new("/nonexistent/quickbench-dd-io");
    let e = dd_io::prepare(&cfg).unwrap_err();
    assert!(e.reason.contains("/nonexistent/quickbench-dd-io"), "{e}");
}
