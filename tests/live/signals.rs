//! Ctrl-C cuts the step in progress and the report goes on; a second
//! Ctrl-C within 2 s aborts with 130; SIGTERM and SIGHUP abort cleanly;
//! a closed stdout ends quietly.

use std::io::Read;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn kill(child: &std::process::Child, sig: i32) {
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, sig) };
}

#[test]
fn one_ctrl_c_cuts_the_step_and_the_report_goes_on() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let t0 = Instant::now();
    let child = spawn(&["20", "--only", "cpu,memory", "-q"]);
    sleep(Duration::from_millis(600));
    kill(&child, libc::SIGINT);
    // The next step (CPU loop with 2 jobs, or memory) runs; cut it too,
    // more than 2 s later so it is not taken as an abort.
    sleep(Duration::from_millis(2300));
    kill(&child, libc::SIGINT);
    sleep(Duration::from_millis(2300));
    kill(&child, libc::SIGINT);
    sleep(Duration::from_millis(2300));
    kill(&child, libc::SIGINT);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}\n{err}");
    assert!(t0.elapsed() < Duration::from_secs(19), "steps were not cut");
    assert!(text.contains(" 1 // jobs : "), "{text}");
    assert!(text.contains("Bandwidth: "), "{text}");
    assert!(err.contains("cut short by Ctrl-C"), "{err}");
}

#[test]
fn two_ctrl_c_within_2s_abort_with_130() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let child = spawn(&["20", "--only", "cpu", "-q"]);
    sleep(Duration::from_millis(500));
    kill(&child, libc::SIGINT);
    sleep(Duration::from_millis(200));
    kill(&child, libc::SIGINT);
    let t0 = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(130));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("aborted by Ctrl-C"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn sigterm_and_sighup_abort_cleanly() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGHUP, 129)] {
        let child = spawn(&["20", "--only", "cpu,memory", "-q"]);
        sleep(Duration::from_millis(500));
        kill(&child, sig);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "signal {sig}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains("Bandwidth"),
            "memory ran after abort: {text}"
        );
    }
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let mut child = spawn(&["0.3", "--only", "cpuinfo,cpu,memory", "-q"]);
    // Read the first 3 lines, then close the pipe, as `| head -3` does.
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 64];
    let _ = stdout.read(&mut buf).unwrap();
    drop(stdout);
    let t0 = Instant::now();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(141), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(5));
}
