//! Signals during the storage bandwidth lines: one Ctrl-C ends the current
//! line early (marked) and the run goes on; two abort (130); SIGTERM (143),
//! SIGHUP (129) and SIGKILL end it; on every path no file is left and the
//! filesystem's usage is back to where it was.

use crate::common_live::*;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::sleep;
use std::time::{Duration, Instant};

fn spawn_io(dir: &Path, delay: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            delay,
            "-q",
            "--only",
            "io",
            "--io-jobs",
            "1,4",
            "--max-size",
            "64M",
            "--dir",
        ])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn kill(c: &Child, sig: i32) {
    // SAFETY: signalling our own child.
    unsafe { libc::kill(c.id() as i32, sig) };
}

/// Collects a child's stream as it comes, so a test can wait for a line.
fn read_in_background(mut r: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    text
}

/// Waits until `text` contains `needle`, or `limit` passes.
fn wait_for(text: &Mutex<String>, needle: &str, limit: Duration) {
    let t0 = Instant::now();
    while !text.lock().unwrap().contains(needle) && t0.elapsed() < limit {
        sleep(Duration::from_millis(5));
    }
}

fn empty(p: &Path) -> bool {
    std::fs::read_dir(p).unwrap().next().is_none()
}

/// A directory for the run: a fresh ext4 loop filesystem as root (so usage
/// can be compared exactly), else a temp dir on the project's filesystem.
struct Place {
    _guard: Option<Guard>,
    _tmp: Option<tempfile::TempDir>,
    dir: PathBuf,
    exact_usage: bool,
}

fn place() -> Place {
    let root = unsafe { libc::geteuid() } == 0;
    if root && skip_reason(&["losetup", "mount", "umount", "mkfs.ext4"]).is_none() {
        let mut g = Guard::new();
        let dev = g.loop_dev("sig.img", 256);
        run("mkfs.ext4", &["-q", "-F", &format!("/dev/{dev}")]);
        let mp = g.mount(&[&format!("/dev/{dev}")], "mnt");
        let dir = mp.join("bench");
        std::fs::create_dir(&dir).unwrap();
        return Place {
            _guard: Some(g),
            _tmp: None,
            dir,
            exact_usage: true,
        };
    }
    let t = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let dir = t.path().to_path_buf();
    Place {
        _guard: None,
        _tmp: Some(t),
        dir,
        exact_usage: false,
    }
}

fn check_left_as_found(p: &Place, before: u64) {
    assert!(empty(&p.dir), "a file was left in {}", p.dir.display());
    if p.exact_usage {
        let after = used_blocks(&p.dir);
        assert!(after <= before + 16, "usage {before} -> {after} blocks");
    }
}

#[test]
fn one_ctrl_c_marks_the_line_and_the_run_goes_on() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let p = place();
    let before = used_blocks(&p.dir);
    let c = spawn_io(&p.dir, "3");
    sleep(Duration::from_millis(1500));
    kill(&c, libc::SIGINT);
    let o = c.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert_eq!(out.matches("thread[s]):").count(), 8, "{out}");
    assert_eq!(out.matches("(interrupted)").count(), 1, "{out}");
    assert!(err.contains("cut short by Ctrl-C"), "{err}");
    check_left_as_found(&p, before);
}

#[test]
fn aborts_leave_the_filesystem_as_found() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    for (sigs, code) in [
        (&[libc::SIGINT, libc::SIGINT][..], Some(130)),
        (&[libc::SIGTERM][..], Some(143)),
        (&[libc::SIGHUP][..], Some(129)),
        (&[libc::SIGKILL][..], None),
    ] {
        let p = place();
        let before = used_blocks(&p.dir);
        let mut c = spawn_io(&p.dir, "10");
        let err = read_in_background(c.stderr.take().unwrap());
        sleep(Duration::from_millis(1200));
        for (i, &s) in sigs.iter().enumerate() {
            kill(&c, s);
            if i + 1 < sigs.len() {
                // Two SIGINTs still pending when the process next runs merge
                // into one (standard signals do not queue): send the second
                // only once the first has been handled, as a person would.
                wait_for(&err, "cut short by Ctrl-C", Duration::from_millis(1800));
            }
        }
        let o = c.wait_with_output().unwrap();
        let err = err.lock().unwrap().clone();
        assert_eq!(o.status.code(), code, "signals {sigs:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        if code.is_none() {
            // SIGKILL: no cleanup code ran; the unnamed file went with the
            // process. ext4 frees it at once; sync to be sure.
            // SAFETY: sync has no preconditions.
            unsafe { libc::sync() };
        }
        check_left_as_found(&p, before);
    }
}
