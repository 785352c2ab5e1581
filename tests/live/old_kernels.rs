//! The real binary as if on old kernels (4.9, 3.10: see
//! `common_oldkernel`): the whole report on a loop-mounted ext4 exits 0
//! with every section, the temporary file falls back to a name that is
//! removed at once, and the filesystem's usage is back where it was.
//! Root only (loop device, mount); skipped with the reason elsewhere.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use crate::common_live::*;
use crate::common_oldkernel::{OldKernel, SUPPORTED};

/// The binary under test: `QB_OLDKERNEL_BIN` (e.g. the static release
/// build) or this crate's own.
fn binary() -> std::path::PathBuf {
    std::env::var_os("QB_OLDKERNEL_BIN")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_quickbench").into())
}

fn errno_of(rc: libc::c_long) -> i32 {
    if rc < 0 {
        std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
    } else {
        0
    }
}

/// Run only by `filter_answers_like_old_kernels`, inside the filter: tries
/// each call and prints the errno it got (0: it worked).
#[test]
#[ignore = "run under the seccomp filter by filter_answers_like_old_kernels"]
fn probe_under_filter() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let dir = std::env::var("QB_PROBE_DIR").expect("QB_PROBE_DIR");
    let cdir = CString::new(dir.as_bytes()).unwrap();
    let mut out = Vec::new();
    // SAFETY: each call gets valid pointers to live buffers or NULL where
    // the call accepts it; only the return value and errno are used.
    unsafe {
        let mut st: libc::statx = std::mem::zeroed();
        let rc = libc::syscall(
            libc::SYS_statx,
            libc::AT_FDCWD,
            cdir.as_ptr(),
            0,
            libc::STATX_BASIC_STATS,
            &mut st as *mut libc::statx,
        );
        out.push(("statx", errno_of(rc)));
        let mut buf = [0u8; 8];
        let rc = libc::syscall(libc::SYS_getrandom, buf.as_mut_ptr(), 8usize, 0);
        out.push(("getrandom", errno_of(rc)));
        let rc = libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0);
        out.push(("pidfd_open", errno_of(rc)));
        let rc = libc::syscall(libc::SYS_copy_file_range, -1, 0, -1, 0, 1usize, 0);
        out.push(("copy_file_range", errno_of(rc)));
        let fd = libc::open(cdir.as_ptr(), libc::O_TMPFILE | libc::O_RDWR, 0o600);
        out.push(("o_tmpfile", errno_of(fd as libc::c_long)));
        if fd >= 0 {
            libc::close(fd);
        }
        let fd = libc::open(cdir.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
        out.push(("open", errno_of(fd as libc::c_long)));
        if fd >= 0 {
            libc::close(fd);
        }
    }
    // What the report relies on: std's metadata (statx, then stat), its
    // random hash keys (getrandom, then /dev/urandom) and a thread (clone3,
    // then clone) still work.
    let std_ok = std::fs::metadata(&dir).is_ok()
        && std::collections::HashMap::<u8, u8>::new().is_empty()
        && std::thread::spawn(|| 7).join().ok() == Some(7);
    out.push(("std", if std_ok { 0 } else { -1 }));
    let line: Vec<String> = out.iter().map(|(k, v)| format!("{k}={v}")).collect();
    println!("PROBE {}", line.join(" "));
}

fn probe(kernel: OldKernel, dir: &Path) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "old_kernels::probe_under_filter",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("QB_PROBE_DIR", dir);
    let out = kernel.apply(&mut cmd).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{kernel:?}: {text}");
    text.lines()
        .find_map(|l| l.split_once("PROBE ").map(|(_, r)| r.to_string()))
        .unwrap_or_else(|| panic!("{kernel:?}: no PROBE line in {text}"))
}

#[test]
fn filter_answers_like_old_kernels() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !SUPPORTED {
        return skip("the filter knows x86_64 and aarch64 system call numbers only");
    }
    let d = tempfile::tempdir().unwrap();
    let (enosys, eisdir, eopnotsupp, ebadf) =
        (libc::ENOSYS, libc::EISDIR, libc::EOPNOTSUPP, libc::EBADF);
    assert_eq!(
        probe(OldKernel::Linux4_9, d.path()),
        format!(
            "statx={enosys} getrandom=0 pidfd_open={enosys} copy_file_range={ebadf} \
             o_tmpfile={eopnotsupp} open=0 std=0"
        )
    );
    assert_eq!(
        probe(OldKernel::Linux3_10, d.path()),
        format!(
            "statx={enosys} getrandom={enosys} pidfd_open={enosys} \
             copy_file_range={enosys} o_tmpfile={eisdir} open=0 std=0"
        )
    );
}

/// Names created and deleted in a directory while a child runs, from
/// inotify (a file made with `O_TMPFILE` is never created by name).
struct Watch {
    fd: libc::c_int,
}

impl Watch {
    fn new(dir: &Path) -> Self {
        // SAFETY: plain calls; results checked.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        assert!(
            fd >= 0,
            "inotify_init1: {}",
            std::io::Error::last_os_error()
        );
        let c = CString::new(dir.as_os_str().as_bytes()).unwrap();
        // SAFETY: valid descriptor and C string.
        let wd =
            unsafe { libc::inotify_add_watch(fd, c.as_ptr(), libc::IN_CREATE | libc::IN_DELETE) };
        assert!(
            wd >= 0,
            "inotify_add_watch: {}",
            std::io::Error::last_os_error()
        );
        Watch { fd }
    }

    /// `(created, deleted)` names since the watch began.
    fn events(&self) -> (Vec<String>, Vec<String>) {
        let (mut created, mut deleted) = (Vec::new(), Vec::new());
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: reads into a buffer we own, of the given length.
            let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let mut i = 0;
            while i + 16 <= n as usize {
                let word = |o: usize| u32::from_ne_bytes(buf[i + o..i + o + 4].try_into().unwrap());
                let (mask, len) = (word(4), word(12) as usize);
                let name = &buf[i + 16..i + 16 + len];
                let name = String::from_utf8_lossy(name.split(|&b| b == 0).next().unwrap_or(&[]))
                    .into_owned();
                if mask & libc::IN_CREATE != 0 {
                    created.push(name);
                } else if mask & libc::IN_DELETE != 0 {
                    deleted.push(name);
                }
                i += 16 + len;
            }
        }
        (created, deleted)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // SAFETY: our own descriptor, closed once.
        unsafe { libc::close(self.fd) };
    }
}

const SECTIONS: &[&str] = &[
    "[ CPU info ]",
    "[ CPU loop ]",
    "[ Memory ]",
    "[ Storage info ]",
    "[ Storage device stack ]",
];

fn whole_report_on(kernel: OldKernel) {
    if !SUPPORTED {
        return skip("the filter knows x86_64 and aarch64 system call numbers only");
    }
    need!("mkfs.ext4");
    let mut g = Guard::new();
    // Room for the whole 64 MiB file (at most half the free space).
    let dev = g.loop_dev("ext4.img", 192);
    run("mkfs.ext4", &["-q", "-F", &format!("/dev/{dev}")]);
    let mp = g.mount(&[&format!("/dev/{dev}")], "mnt");
    let before_names = entries(&mp);
    let before_used = used_blocks(&mp);
    let watch = Watch::new(&mp);
    let mut cmd = Command::new(binary());
    cmd.args(["0.2", "-q", "--max-size", "64M", "--dir"])
        .arg(&mp);
    let out = kernel.apply(&mut cmd).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{kernel:?}\n{text}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    for s in SECTIONS {
        assert!(text.contains(s), "{kernel:?}: no {s}\n{text}");
    }
    for bs in ["4k", "1M"] {
        let title = format!("[ Storage bandwidth - {bs} blocks ({dev}) ]");
        assert!(text.contains(&title), "{kernel:?}: no {title}\n{text}");
    }
    assert_eq!(text.matches("thread[s]):").count(), 12, "{text}");
    // O_TMPFILE was refused: the file had a name, and it is gone.
    let (created, deleted) = watch.events();
    assert!(
        !created.is_empty() && created.iter().all(|n| n.starts_with(".quickbench-")),
        "{kernel:?}: expected the named fallback file, created {created:?}"
    );
    let mut c = created.clone();
    let mut d = deleted.clone();
    c.sort();
    d.sort();
    assert_eq!(c, d, "{kernel:?}: created {created:?}, deleted {deleted:?}");
    assert_eq!(
        entries(&mp),
        before_names,
        "a file was left in {}",
        mp.display()
    );
    // Metadata (journal, allocation) may move a few blocks, not the file.
    let after_used = used_blocks(&mp);
    assert!(
        after_used <= before_used + 64,
        "{kernel:?}: usage grew from {before_used} to {after_used} blocks"
    );
    // Without statx the mount is found by its path, and still right.
    let mut cmd = Command::new(binary());
    cmd.args(["--dry-run", "--json", "--dir"]).arg(&mp);
    let out = kernel.apply(&mut cmd).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = &v["storage_target"];
    assert_eq!(t["lookup"], "prefix", "{t}");
    assert_eq!(t["devices"], serde_json::json!([dev]), "{t}");
}

#[test]
fn whole_report_as_on_linux_4_9() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    whole_report_on(OldKernel::Linux4_9);
}

#[test]
fn whole_report_as_on_linux_3_10() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    whole_report_on(OldKernel::Linux3_10);
}

/// A rescue chroot on CentOS 7 often has /proc and /sys but no /dev: no
/// getrandom and no /dev/urandom, where std's randomly seeded HashMap
/// panics. Every section but the storage bandwidth (covered above) must
/// still come out, and only the one that needs /dev fails, cleanly.
#[test]
fn linux_3_10_without_dev_nodes() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !SUPPORTED {
        return skip("the filter knows x86_64 and aarch64 system call numbers only");
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return skip("not root (a mount namespace hides /dev)");
    }
    let mut cmd = Command::new(binary());
    cmd.args(["0.1", "-q", "--skip", "io", "--dir", "/"]);
    let out = OldKernel::Linux3_10
        .apply_without_dev(&mut cmd)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    for s in [
        "[ CPU info ]",
        "[ CPU loop ]",
        "[ Memory ]",
        "[ Storage info ]",
    ] {
        assert!(text.contains(s), "no {s}\n{text}");
    }
    assert_eq!(text.matches("// jobs :").count(), 2, "{text}");
    // The memory bandwidth reads /dev/zero, as the original's dd does: it
    // alone fails, saying what to mount, and the exit status says so.
    assert!(err.contains("mount -t devtmpfs"), "{err}");
    assert!(err.contains("/dev/zero"), "{err}");
    assert_eq!(out.status.code(), Some(1), "{text}\n{err}");
}
