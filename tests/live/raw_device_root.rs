//! Root-only tests of `--device` and `--destroy` on loop devices: a
//! sparse device read only (zeros, left unchanged), the same after data
//! was written, each refusal, consent on a blank device, corruption
//! caught by the reads, and a cgroup v1 blkio throttle seen as a burst.
//! Each skips with a printed reason when not root or when a tool is
//! missing; Drop guards detach, unmount, swapoff and remove what they set
//! up.

use crate::common_skip;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn can_run(tools: &[&str]) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        common_skip::skip("needs root");
        return false;
    }
    for t in tools {
        if !have(t) {
            common_skip::skip(&format!("{t} not found"));
            return false;
        }
    }
    true
}

fn run(cmd: &str, args: &[&str]) -> Result<String, String> {
    let o = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{cmd} {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// A loop device on a sparse file, detached on drop (with whatever the
/// test stacked on it, listed in `undo`, undone first).
struct Loop {
    dev: String,
    undo: Vec<(String, Vec<String>)>,
    _img: tempfile::NamedTempFile,
}

impl Loop {
    fn new(mib: u64) -> Loop {
        Loop::in_dir(mib, Path::new(env!("CARGO_TARGET_TMPDIR")))
    }

    /// The same with its backing file in `dir`.
    fn in_dir(mib: u64, dir: &Path) -> Loop {
        let img = tempfile::NamedTempFile::new_in(dir).unwrap();
        img.as_file().set_len(mib << 20).unwrap();
        let dev = run("losetup", &["-f", "--show", img.path().to_str().unwrap()]).unwrap();
        Loop {
            dev,
            undo: Vec::new(),
            _img: img,
        }
    }

    fn path(&self) -> &Path {
        Path::new(&self.dev)
    }

    /// Runs `cmd args` now and `undo` when dropped.
    fn with(&mut self, cmd: &str, args: &[&str], undo: (&str, &[&str])) {
        run(cmd, args).unwrap();
        self.undo.push((
            undo.0.to_string(),
            undo.1.iter().map(|s| s.to_string()).collect(),
        ));
    }

    /// Writes `bytes` at `at` through the device.
    fn write(&self, at: u64, bytes: &[u8]) {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.dev)
            .unwrap();
        f.write_all_at(bytes, at).unwrap();
        f.sync_all().unwrap();
    }

    /// A checksum of the whole device (FNV-1a, read through the device).
    fn checksum(&self) -> u64 {
        let f = std::fs::File::open(&self.dev).unwrap();
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0;
        loop {
            let n = f.read_at(&mut buf, at).unwrap();
            if n == 0 {
                return h;
            }
            for &b in &buf[..n] {
                h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
            }
            at += n as u64;
        }
    }

    /// The device's `major:minor`.
    fn devno(&self) -> String {
        let name = self.dev.trim_start_matches("/dev/");
        std::fs::read_to_string(format!("/sys/class/block/{name}/dev"))
            .unwrap()
            .trim()
            .to_string()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        for (cmd, args) in self.undo.iter().rev() {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let _ = run(cmd, &args);
        }
        let _ = run("blockdev", &["--setrw", &self.dev]);
        let _ = run("losetup", &["-d", &self.dev]);
    }
}

/// quickbench's storage lines on `dev` (short lines, JSON).
fn quickbench(dev: &Path, destroy: Option<&Path>, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_quickbench"));
    c.args(["0.3", "--only", "io", "--json", "-q", "--device"])
        .arg(dev);
    if let Some(d) = destroy {
        c.arg("--destroy").arg(d);
    }
    c.args(extra);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn lines(o: &Output) -> Vec<serde_json::Value> {
    let j: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&o.stderr)));
    j["storage_bandwidth"].as_array().unwrap().clone()
}

fn has_mark(line: &serde_json::Value, kind: &str) -> bool {
    line["marks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["kind"] == kind)
}

#[test]
fn a_sparse_device_read_only_is_marked_zeros_and_left_unchanged() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["losetup", "blockdev"]) {
        return;
    }
    let l = Loop::new(64);
    run("blockdev", &["--setro", &l.dev]).unwrap();
    let before = l.checksum();
    let o = quickbench(l.path(), None, &[], &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = lines(&o);
    assert_eq!(v.len(), 6, "the six read lines only");
    for line in &v {
        assert_eq!(line["direction"], "read");
        assert!(has_mark(line, "zeros"), "{line}");
        assert_eq!(line["read_check"]["verified"], false);
    }
    assert_eq!(l.checksum(), before, "the device was changed");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["storage_io"]["raw"], "read_only");

    // The same device full of data: not marked.
    run("blockdev", &["--setrw", &l.dev]).unwrap();
    let mut data = vec![0u8; 64 << 20];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for c in data.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c.copy_from_slice(&x.to_le_bytes());
    }
    l.write(0, &data);
    run("blockdev", &["--setro", &l.dev]).unwrap();
    let before = l.checksum();
    let o = quickbench(l.path(), None, &[], &[]);
    assert_eq!(o.status.code(), Some(0));
    for line in &lines(&o) {
        assert!(!has_mark(line, "zeros"), "{line}");
        assert_eq!(line["read_check"]["zero_blocks"], 0);
    }
    assert_eq!(l.checksum(), before);
}

/// `--destroy` on `dev` is refused: exit 2, nothing on stdout, the
/// reason naming `want`.
fn refused(dev: &Path, destroy: &Path, want: &str) {
    let o = quickbench(dev, Some(destroy), &[], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{want}: {err}");
    assert!(o.stdout.is_empty(), "{want}: something was measured");
    assert!(err.contains(want), "wanted {want:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

#[test]
fn destroy_is_refused_on_a_device_in_use_or_holding_data() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&[
        "losetup",
        "blockdev",
        "mkfs.ext4",
        "mkswap",
        "swapon",
        "mount",
    ]) {
        return;
    }
    // another device named
    let a = Loop::new(32);
    let b = Loop::new(32);
    refused(a.path(), b.path(), "name the device to write twice");

    // mounted
    let mut m = Loop::new(32);
    run("mkfs.ext4", &["-q", "-F", "-L", "root", &m.dev]).unwrap();
    refused(
        m.path(),
        m.path(),
        "holds ext4 \"root\": to overwrite it deliberately",
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    m.with("mount", &[&m.dev.clone(), &d], ("umount", &[&d]));
    refused(m.path(), m.path(), "is mounted on");

    // active swap
    let mut s = Loop::new(32);
    run("mkswap", &["-L", "swp", &s.dev]).unwrap();
    refused(s.path(), s.path(), "holds swap \"swp\"");
    let dev = s.dev.clone();
    s.with("swapon", &[&dev], ("swapoff", &[&dev]));
    refused(s.path(), s.path(), "is active swap: turn it off");

    // a loop device backed by it
    let mut h = Loop::new(32);
    let dev = h.dev.clone();
    let top = run("losetup", &["-f", "--show", &dev]).unwrap();
    h.undo.push(("losetup".into(), vec!["-d".into(), top]));
    refused(
        h.path(),
        h.path(),
        "is a loop device backed by it: detach it",
    );

    // each signature, written by hand on a blank device
    let g = Loop::new(32);
    let size = 32u64 << 20;
    let cases: Vec<(u64, &[u8], &str)> = vec![
        (1024 + 56, &[0x53, 0xef], "ext2"),
        (0, b"XFSB", "xfs"),
        (65536 + 64, b"_BHRfS_M", "btrfs"),
        (0, b"LUKS\xba\xbe", "LUKS"),
        (
            512,
            b"LABELONE\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0LVM2 001",
            "LVM2 physical volume",
        ),
        (4096, &[0xfc, 0x4e, 0x2b, 0xa9], "md RAID member"),
        (size - 8192, &[0xfc, 0x4e, 0x2b, 0xa9], "md RAID member"),
        (4086, b"SWAPSPACE2", "swap"),
        (
            128 << 10,
            &[0x0c, 0xb1, 0xba, 0, 0, 0, 0, 0],
            "ZFS pool member",
        ),
        (512, b"EFI PART", "GPT partition table"),
        (510, &[0x55, 0xaa], "MBR partition table"),
    ];
    for (at, magic, want) in cases {
        g.write(at, magic);
        refused(g.path(), g.path(), &format!("holds {want}"));
        assert!(
            String::from_utf8_lossy(&quickbench(g.path(), Some(g.path()), &[], &[]).stderr)
                .contains(&format!("wipefs -a {}", g.dev)),
            "says how to clear it"
        );
        g.write(at, &vec![0u8; magic.len()]);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            "--dry-run",
            "--only",
            "io",
            "--device",
            &g.dev,
            "--destroy",
            &g.dev,
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "blank again: accepted");
    let plan = String::from_utf8_lossy(&o.stdout);
    assert!(
        plan.contains(&format!("Device    : {}, raw: written", g.dev)),
        "{plan}"
    );
}

#[test]
fn consent_on_a_blank_device_writes_then_verifies_every_read() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["losetup"]) {
        return;
    }
    let l = Loop::new(64);
    let o = quickbench(l.path(), Some(l.path()), &[], &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = lines(&o);
    assert_eq!(v.len(), 12);
    for line in v.iter().filter(|l| l["direction"] == "read") {
        let c = &line["read_check"];
        assert_eq!(c["verified"], true, "{line}");
        assert!(c["blocks"].as_u64().unwrap() > 0);
        assert_eq!(c["zero_blocks"], 0);
        assert!(
            line["error"].is_null() && line["marks"].as_array().unwrap().is_empty(),
            "{line}"
        );
    }
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["storage_io"]["raw"], "write");
}

#[test]
fn a_block_corrupted_between_the_write_and_read_lines_stops_the_read() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["losetup"]) {
        return;
    }
    let l = Loop::new(64);
    // the debug build overwrites the second 4 KiB block before each read
    // line (the first read line reads from the start)
    let env = [("QUICKBENCH_TEST_CORRUPT", "4096")];
    let o = quickbench(
        l.path(),
        Some(l.path()),
        &["--io-blocks", "4k", "--io-jobs", "1"],
        &env,
    );
    let v = lines(&o);
    assert!(v[0]["error"].is_null(), "the write line: {}", v[0]["error"]);
    let read = v.iter().find(|l| l["direction"] == "read").unwrap();
    let e = read["error"].as_str().unwrap_or_default();
    assert!(
        e.contains(&l.dev) && e.contains("offset 4096") && e.contains("expected its stamp"),
        "{e}"
    );
    assert!(e.contains("found other data"), "{e}");
    assert_eq!(o.status.code(), Some(1), "a line stopped: a section failed");
}

/// A cgroup v1 blkio group, removed on drop.
struct Blkio(PathBuf);

impl Drop for Blkio {
    fn drop(&mut self) {
        for _ in 0..50 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[test]
fn a_throttle_applied_mid_line_is_a_burst_and_an_even_line_is_not() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["losetup"]) {
        return;
    }
    let root = Path::new("/sys/fs/cgroup/blkio");
    if !root.join("blkio.throttle.write_iops_device").exists() {
        common_skip::skip("no cgroup v1 blkio hierarchy");
        return;
    }
    // backed by memory: the device's own rate is steady, the throttle's
    // step is the only one
    let l = Loop::in_dir(256, Path::new("/dev/shm"));
    // 8 s: 16 samples of 500 ms, the throttle after 3 s
    let args = [
        "8",
        "--trials",
        "1",
        "--only",
        "io",
        "--json",
        "-q",
        "--io-blocks",
        "4k",
        "--io-jobs",
        "1",
    ];
    let start = |cg: Option<&Path>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_quickbench"));
        c.args(args)
            .arg("--device")
            .arg(l.path())
            .arg("--destroy")
            .arg(l.path());
        c.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let child = c.spawn().unwrap();
        if let Some(cg) = cg {
            std::fs::write(cg.join("cgroup.procs"), child.id().to_string()).unwrap();
        }
        child
    };
    // unthrottled: no burst
    let o = start(None).wait_with_output().unwrap();
    let v = lines(&o);
    let free = v[0]["sample_summary"]["median"].as_f64().unwrap();
    assert!(v.iter().all(|l| !has_mark(l, "burst")), "{v:?}");

    // A volume's burst and its baseline: 2,500 IO/s, then 1,000 from 3 s
    // into the write line. Throttles, because the device's own rate is
    // the CPU's on a loop device, and moves with whatever else runs; a
    // synchronous job meets a limit of a few thousand exactly.
    let (high, low) = (2500.0, 1000.0);
    assert!(free > 1.5 * high, "the device is too slow: {free} IO/s");
    let cg = Blkio(root.join(format!("qb-burst-{}", std::process::id())));
    std::fs::create_dir(&cg.0).unwrap();
    let limit = |iops: f64| {
        std::fs::write(
            cg.0.join("blkio.throttle.write_iops_device"),
            format!("{} {iops}", l.devno()),
        )
        .unwrap()
    };
    limit(high);
    let child = start(Some(&cg.0));
    let name = l.dev.trim_start_matches("/dev/").to_string();
    let writes = || -> u64 {
        let s = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
        s.split_whitespace().nth(4).unwrap().parse().unwrap()
    };
    let w0 = writes();
    let t0 = Instant::now();
    // the line has started once it has written a few hundred blocks (the
    // device may see a stray write or two before)
    while writes() < w0 + 250 && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(2900));
    limit(low);
    let o = child.wait_with_output().unwrap();
    let v = lines(&o);
    let m = v[0]["marks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "burst")
        .unwrap_or_else(|| panic!("not marked: {:?} {}", v[0]["samples"], v[0]["marks"]))
        .clone();
    let (before, after) = (m["before"].as_f64().unwrap(), m["after"].as_f64().unwrap());
    assert!(
        (after / low - 1.0).abs() < 0.10,
        "after {after}, throttle {low}"
    );
    assert!(
        (before / high - 1.0).abs() < 0.10,
        "before {before}, throttle {high}"
    );
    let at = m["seconds"].as_f64().unwrap();
    assert!((2.5..4.0).contains(&at), "the step at {at} s");
}
