//! The bad-input matrix: each row asserts the exact outcome (exit status,
//! what the report says, what stderr says). Rows that need root or a tool
//! print why and skip elsewhere. Bad command-line arguments are in
//! `cli_usage.rs`.

use crate::common_live;
use crate::common_live::*;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn qb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `--only storage,io` on `dir` with a tiny delay and file.
fn io_on(dir: &str) -> Output {
    qb(&[
        "0.1",
        "-q",
        "--only",
        "storage,io",
        "--io-jobs",
        "1",
        "--max-size",
        "16M",
        "--dir",
        dir,
    ])
}

/// A `--dir` that cannot be benchmarked is bad usage: exit 2, one line
/// naming the path and what to do, and nothing measured (no report line,
/// and far sooner than the 30 s of the first step).
fn assert_refused_at_once(args: &[&str], dir: &str, why: &str) {
    let t = Instant::now();
    let o = qb(args);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {out}\n{err}");
    assert!(out.is_empty(), "{args:?}: something was measured: {out}");
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "{args:?}: took {:?}",
        t.elapsed()
    );
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(
        err.contains(&format!("--dir {dir}")) && err.contains(why),
        "{args:?}: stderr lacks --dir {dir:?} / {why:?}: {err}"
    );
    assert!(err.contains("'quickbench --help'"), "{err}");
}

#[test]
fn dir_missing_is_refused_before_measuring() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let p = "/nonexistent/quickbench";
    assert_refused_at_once(&["30", "-q", "--dir", p], p, "no such directory");
    // whichever sections run: the header's Run line names the directory
    assert_refused_at_once(&["30", "--only", "cpu", "-d", p], p, "no such directory");
    assert_refused_at_once(&["--dry-run", "--dir", p], p, "no such directory");
}

#[test]
fn dir_that_is_a_regular_file_is_refused_before_measuring() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let f = tempfile::NamedTempFile::new().unwrap();
    let p = f.path().to_str().unwrap();
    assert_refused_at_once(&["30", "-q", "--dir", p], p, "is not a directory");
}

#[test]
fn procfs_and_sysfs_are_not_storage() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    for p in ["/proc", "/sys"] {
        assert_refused_at_once(&["30", "-q", "--dir", p], p, "pseudo-filesystem");
    }
    // without the storage bandwidth, nothing is written there: it runs
    let o = qb(&["0.1", "-q", "--only", "cpuinfo", "--dir", "/proc"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}

#[test]
fn tmpfs_runs_and_says_memory_is_measured() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let st = nix::sys::statfs::statfs("/dev/shm");
    if !st.is_ok_and(|s| s.filesystem_type() == nix::sys::statfs::TMPFS_MAGIC) {
        common_live::skip("/dev/shm is not a tmpfs here");
        return;
    }
    let o = io_on("/dev/shm");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("[ Storage bandwidth - 4k blocks (tmpfs: memory, not a disk) ]"),
        "{out}"
    );
    assert!(err.contains("memory"), "{err}");
}

#[test]
fn read_only_mount_is_refused_when_io_writes_there() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!();
    let mut g = Guard::new();
    let mp = g.mount(&["-t", "tmpfs", "-o", "ro,size=64m", "tmpfs"], "ro");
    let p = mp.to_str().unwrap();
    assert_refused_at_once(&["30", "-q", "--dir", p], p, "mounted read-only");
    // nothing is written without the storage bandwidth sections
    let o = qb(&["0.1", "-q", "--only", "cpuinfo,storage", "--dir", p]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("[ Storage info ]"), "{out}");
}

#[test]
fn full_filesystem_is_refused_at_once_and_not_filled() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!();
    let mut g = Guard::new();
    let mp = g.mount(&["-t", "tmpfs", "-o", "size=100m", "tmpfs"], "full");
    std::fs::write(mp.join("ballast"), vec![1u8; 90 << 20]).unwrap();
    let p = mp.to_str().unwrap();
    let before = nix::sys::statvfs::statvfs(&mp).unwrap().blocks_free();
    assert_refused_at_once(&["30", "-q", "--dir", p], p, "available (64 MiB needed)");
    assert_eq!(
        nix::sys::statvfs::statvfs(&mp).unwrap().blocks_free(),
        before
    );
    let names: Vec<_> = std::fs::read_dir(&mp)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["ballast"]);
}

/// Runs the binary as user nobody (65534), when root and `setpriv` exists.
fn as_nobody(args: &[&str]) -> Option<Output> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || Command::new("setpriv").arg("--version").output().is_err()
    {
        return None;
    }
    Some(
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_quickbench"))
            .args(args)
            .output()
            .unwrap(),
    )
}

#[test]
fn directory_without_write_permission_is_refused_for_a_user() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = tempfile::tempdir().unwrap();
    let sub = d.path().join("locked");
    std::fs::create_dir(&sub).unwrap();
    std::fs::set_permissions(
        d.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::fs::set_permissions(&sub, std::os::unix::fs::PermissionsExt::from_mode(0o555)).unwrap();
    let p = sub.to_str().unwrap();
    let Some(o) = as_nobody(&[
        "0.1",
        "-q",
        "--only",
        "io",
        "--io-jobs",
        "1",
        "--max-size",
        "16M",
        "--dir",
        p,
    ]) else {
        common_live::skip("needs root and setpriv to run as an unprivileged user");
        return;
    };
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("--dir {p}: permission denied")) && err.contains("--skip io"),
        "{err}"
    );
}

#[test]
fn not_root_everything_runs_and_no_bios_line() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let Some(o) = as_nobody(&["0.1", "-q", "--only", "cpuinfo,cpu,memory,storage"]) else {
        common_live::skip("needs root and setpriv to run as an unprivileged user");
        return;
    };
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("Model name:") && !out.contains("BIOS Model name"),
        "{out}"
    );
    assert!(
        out.contains("Bandwidth: ") && out.contains("[ Storage info ]"),
        "{out}"
    );
    assert!(
        !err.contains("DMI"),
        "the SMBIOS table must be silently absent: {err}"
    );
}

#[test]
fn two_runs_at_once_in_the_same_directory() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let p = d.path().to_str().unwrap();
    let args = [
        "0.2",
        "-q",
        "--only",
        "io",
        "--io-jobs",
        "1,4",
        "--max-size",
        "32M",
        "--dir",
        p,
    ];
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_quickbench"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for o in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
        assert_eq!(out.matches("thread[s]):").count(), 8, "{out}");
    }
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "a file was left behind"
    );
}

/// A dump sysroot whose files are `(path, content)`.
fn dump(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (p, c) in files {
        let full = d.path().join(p);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, c).unwrap();
    }
    d
}

/// Runs `--sysroot` on a dump: never a panic, never a hang.
fn on_dump(d: &Path) -> (Output, Duration) {
    let t0 = Instant::now();
    let o = qb(&["--sysroot", d.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(matches!(o.status.code(), Some(0 | 1)), "{out}\n{err}");
    assert!(out.starts_with("Quickbench: "), "{out}");
    (o, t0.elapsed())
}

#[test]
fn sysroot_missing_and_empty_files() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = dump(&[]);
    std::fs::create_dir_all(d.path().join("proc")).unwrap();
    let (o, _) = on_dump(d.path());
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.contains("Total    : unavailable (see stderr)"), "{out}");
    assert!(
        err.contains("proc/meminfo") && err.contains("proc/cpuinfo"),
        "{err}"
    );
    let d = dump(&[
        ("proc/cpuinfo", b""),
        ("proc/meminfo", b""),
        ("proc/self/mountinfo", b""),
    ]);
    let (o, _) = on_dump(d.path());
    let (_, err) = text(&o);
    assert!(err.contains("no MemTotal line"), "{err}");
}

#[test]
fn sysroot_binary_garbage() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let mut junk = Vec::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        junk.push(x as u8);
    }
    let d = dump(&[
        ("proc/cpuinfo", &junk),
        ("proc/meminfo", &junk[..5000]),
        ("proc/self/mountinfo", &junk[1000..9000]),
        ("sys/devices/system/cpu/online", &junk[..64]),
        ("sys/devices/system/cpu/possible", &junk[64..128]),
        (
            "sys/devices/system/cpu/cpu0/topology/thread_siblings",
            &junk[200..300],
        ),
        ("sys/firmware/dmi/tables/DMI", &junk[..4096]),
        ("sys/block/sda/size", &junk[..32]),
    ]);
    on_dump(d.path());
}

#[test]
fn sysroot_100_mb_cpuinfo_ends_in_reasonable_time() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let block = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Big Box\nflags\t\t: fpu vme de pse\n\n";
    let mut big = String::with_capacity(100 << 20);
    let mut n = 0;
    while big.len() < 100 << 20 {
        big.push_str(&block.replace(": 0", &format!(": {}", n % 4096)));
        n += 1;
    }
    let d = dump(&[
        ("proc/cpuinfo", big.as_bytes()),
        ("proc/meminfo", b"MemTotal: 1024 kB\n"),
    ]);
    let (o, took) = on_dump(d.path());
    assert!(took < Duration::from_secs(60), "took {took:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("Big Box"));
}

#[test]
fn sysroot_symlink_loops() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = dump(&[("proc/meminfo", b"MemTotal: 2048 kB\n")]);
    let cpu = d.path().join("sys/devices/system/cpu");
    std::fs::create_dir_all(&cpu).unwrap();
    for (a, b) in [
        ("online", "possible"),
        ("possible", "online"),
        ("cpu0", "cpu0"),
    ] {
        std::os::unix::fs::symlink(b, cpu.join(a)).unwrap();
    }
    let blk = d.path().join("sys/block");
    std::fs::create_dir_all(&blk).unwrap();
    std::os::unix::fs::symlink("sda", blk.join("sda")).unwrap();
    std::fs::create_dir_all(d.path().join("proc/self")).unwrap();
    std::os::unix::fs::symlink("mountinfo", d.path().join("proc/self/mountinfo")).unwrap();
    let (o, took) = on_dump(d.path());
    assert!(took < Duration::from_secs(20));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Total    : 2 MB"));
}

#[test]
fn device_error_mid_line_is_marked_and_the_run_goes_on() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    // EIO through the engine's test-only fault seam: no failing device can
    // be made here (no device-mapper error target).
    let d = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            "1",
            "-q",
            "--only",
            "io",
            "--io-jobs",
            "1",
            "--max-size",
            "32M",
            "--dir",
        ])
        .arg(d.path())
        // After one I/O, and 1 s steps (above), so that even a line slowed
        // down by a busy machine reaches the fault: with the suite's other
        // tests writing to the same disk, one 1M write has taken 0.6 s.
        .env("QUICKBENCH_TEST_FAULT", "EIO:1")
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    // Every line ran and says it stopped.
    assert_eq!(out.matches("thread[s]):").count(), 4, "{out}");
    assert_eq!(out.matches("(stopped: EIO)").count(), 4, "{out}");
    assert!(err.contains("check dmesg"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "a file was left behind"
    );
}

#[test]
fn sysroot_that_is_not_a_dump_is_bad_usage() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    for bad in ["/nonexistent/dump", "/etc/hostname"] {
        let o = qb(&["--sysroot", bad]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(out.is_empty() && err.contains(bad), "{bad}: {err}");
    }
    let empty = tempfile::tempdir().unwrap();
    let o = qb(&["--sysroot", empty.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("neither proc/ nor sys/"));
}
