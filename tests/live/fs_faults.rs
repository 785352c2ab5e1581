//! Real filesystem faults during the storage bandwidth lines (root, loop
//! devices): an ext4 mounted `errors=remount-ro` that hits an error and
//! turns read-only in the middle of a write line (`trigger_fs_error`, the
//! kernel's own way to raise an ext4 error), and an xfs shut down under the
//! run (`xfs_io -x -c shutdown`, what xfs does on a metadata I/O error).
//!
//! Each asserts the documented outcome: the line stopped early is marked
//! with the errno, stderr names the directory and what to do, the rest of
//! the report is printed, exit status 1, no panic; and once the
//! filesystem is repaired and mounted again, no file is left and its usage
//! is back to where it was.

use crate::common_live;
use crate::common_live::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// Runs the 4k lines (1 job, `delay` s each) on `dir` and calls `fault`
/// `after` into the first (write) line.
fn run_with_fault(dir: &Path, delay: &str, after: Duration, fault: impl FnOnce()) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            delay,
            "-q",
            "--only",
            "io",
            "--io-jobs",
            "1",
            "--io-blocks",
            "4k",
            "--max-size",
            "64M",
            "--dir",
        ])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    sleep(after);
    fault();
    let start = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the run took {:?} after the fault",
        start.elapsed()
    );
    out
}

/// A faulted run's output, after the checks every fault shares (exit 1,
/// no panic, both storage lines printed).
struct Faulted {
    stderr: String,
    /// Both outputs, for assertion messages.
    ctx: String,
    /// The two storage lines (write, read).
    lines: Vec<String>,
}

fn faulted(out: &Output) -> Faulted {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let ctx = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(out.status.code(), Some(1), "{ctx}");
    assert!(!stderr.contains("panicked"), "{ctx}");
    let lines: Vec<String> = stdout
        .lines()
        .filter(|l| l.contains("thread[s]):"))
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 2, "{ctx}");
    Faulted { stderr, ctx, lines }
}

/// A fresh filesystem on a loop device, mounted with `opts`, and a
/// `bench` directory in it: (device, mount point, bench directory).
fn fresh_fs(g: &mut Guard, mib: u64, mkfs: &[&str], opts: &str) -> (String, PathBuf, PathBuf) {
    let dev = g.loop_dev("fault.img", mib);
    let mut args: Vec<&str> = mkfs[1..].to_vec();
    let path = format!("/dev/{dev}");
    args.push(&path);
    run(mkfs[0], &args);
    let mp = g.mount(&["-o", opts, &path], "mnt");
    let dir = mp.join("bench");
    std::fs::create_dir(&dir).unwrap();
    run("sync", &[]);
    (dev, mp, dir)
}

/// The superblock options of the mount at `mp` (mountinfo's last field):
/// an ext4 error turns the superblock read-only, not the mount.
fn super_options(mp: &Path) -> String {
    let mi = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let line = mi
        .lines()
        .find(|l| l.split(' ').nth(4) == mp.to_str())
        .unwrap_or_else(|| panic!("{} is not in mountinfo", mp.display()));
    line.rsplit(' ').next().unwrap().to_string()
}

fn remount(mp: &Path, dev: &str) {
    run("umount", &[mp.to_str().unwrap()]);
    run("mount", &[&format!("/dev/{dev}"), mp.to_str().unwrap()]);
}

#[test]
fn ext4_turning_read_only_mid_line_stops_the_line_and_the_run_goes_on() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.ext4", "e2fsck", "sync");
    let mut g = Guard::new();
    let (dev, mp, dir) = fresh_fs(&mut g, 256, &["mkfs.ext4", "-q", "-F"], "errors=remount-ro");
    let trigger = format!("/sys/fs/ext4/{dev}/trigger_fs_error");
    if !Path::new(&trigger).exists() {
        common_live::skip(&format!(
            "{trigger} is missing (kernel without ext4 error trigger)"
        ));
        return;
    }
    let before = used_blocks(&mp);
    let out = run_with_fault(&dir, "3", Duration::from_millis(1200), || {
        std::fs::write(&trigger, "quickbench test: remount read-only\n").unwrap();
    });
    let Faulted { stderr, ctx, lines } = faulted(&out);
    assert!(
        // "emergency_ro" on Linux 6.15+, "ro" before
        super_options(&mp)
            .split(',')
            .any(|o| o == "ro" || o == "emergency_ro"),
        "the error did not turn the filesystem read-only ({}): {ctx}",
        super_options(&mp)
    );
    assert!(
        lines[0].starts_with("Writes") && lines[0].contains("avg. lat. (stopped: EROFS)"),
        "{ctx}"
    );
    // the write line measured something before the error
    let iops: u64 = lines[0]
        .split("MB/s")
        .nth(1)
        .unwrap()
        .split("IO/s")
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(iops > 0, "{ctx}");
    // reads of what was written still work on a read-only filesystem
    assert!(
        lines[1].starts_with("Reads") && !lines[1].contains("stopped"),
        "{ctx}"
    );
    assert!(stderr.contains("became read-only"), "{ctx}");
    assert!(stderr.contains(dir.to_str().unwrap()), "{ctx}");
    assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));

    // repair (the error is recorded in the superblock) and look again:
    // the unnamed file was an orphan inode, freed by the repair
    run("umount", &[mp.to_str().unwrap()]);
    let fsck = Command::new("e2fsck")
        .args(["-f", "-y", &format!("/dev/{dev}")])
        .output()
        .unwrap();
    // 0: clean, 1: errors corrected
    assert!(
        matches!(fsck.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&fsck.stdout)
    );
    run("mount", &[&format!("/dev/{dev}"), mp.to_str().unwrap()]);
    assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
    let after = used_blocks(&mp);
    assert!(after <= before + 16, "usage {before} -> {after} blocks");
}

#[test]
fn xfs_shut_down_mid_line_gives_a_marked_eio_line_and_exit_1() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.xfs", "xfs_io", "sync");
    let mut g = Guard::new();
    // mkfs.xfs refuses under 300 MB
    let (dev, mp, dir) = fresh_fs(&mut g, 320, &["mkfs.xfs", "-q", "-f"], "defaults");
    let before = used_blocks(&mp);
    let mpath = mp.to_str().unwrap().to_string();
    let out = run_with_fault(&dir, "3", Duration::from_millis(1200), || {
        run("xfs_io", &["-x", "-c", "shutdown", &mpath]);
    });
    let Faulted { stderr, ctx, lines } = faulted(&out);
    assert!(
        lines[0].starts_with("Writes") && lines[0].contains("avg. lat. (stopped: EIO)"),
        "{ctx}"
    );
    // a shut-down xfs refuses reads too: that line is marked as well
    assert!(
        lines[1].starts_with("Reads") && lines[1].ends_with("(stopped: EIO)"),
        "{ctx}"
    );
    assert!(stderr.contains("check dmesg"), "{ctx}");
    assert!(stderr.contains(dir.to_str().unwrap()), "{ctx}");

    // mounting again replays the log; the unnamed file is gone
    remount(&mp, &dev);
    assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
    let after = used_blocks(&mp);
    assert!(after <= before + 16, "usage {before} -> {after} blocks");
}
