//! The progress display: the line's layout, the escape sequences it writes,
//! and, under a real pseudo-terminal, that it draws on a terminal and
//! leaves a redirected stdout clean.

use crate::common_skip;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quickbench::progress::{self, Progress, ERASE};

#[test]
fn the_line_has_section_step_bar_and_times() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let l = progress::render_line(
        "CPU loop",
        "2 // jobs",
        Duration::from_millis(18_500),
        Duration::from_secs(30),
        Duration::from_secs(540),
        200,
    );
    assert_eq!(
        l,
        "[ CPU loop ] 2 // jobs  [############--------]  12 s left (run ~9 min left)"
    );
    // The last step of a run: no separate run estimate.
    let l = progress::render_line(
        "Storage bandwidth - 1M blocks (sda)",
        "Reads (16 thread[s])",
        Duration::ZERO,
        Duration::from_secs(30),
        Duration::from_secs(30),
        200,
    );
    assert_eq!(
        l,
        "[ Storage bandwidth - 1M blocks (sda) ] Reads (16 thread[s])  [--------------------]  30 s left"
    );
    // Unknown duration: elapsed seconds instead of a bar.
    let l = progress::render_line(
        "Storage bandwidth",
        "preparing the file",
        Duration::from_millis(3_200),
        Duration::ZERO,
        Duration::from_secs(400),
        200,
    );
    assert_eq!(
        l,
        "[ Storage bandwidth ] preparing the file  3 s (run ~7 min left)"
    );
}

#[test]
fn the_line_never_reaches_the_last_column() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let l = progress::render_line(
        "CPU loop",
        "2 // jobs",
        Duration::ZERO,
        Duration::from_secs(30),
        Duration::from_secs(600),
        40,
    );
    assert_eq!(l.chars().count(), 39);
    assert!(l.starts_with("[ CPU loop ] 2 // jobs  [---"));
}

#[test]
fn durations_read_naturally() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    assert_eq!(
        progress::fmt_step_left(Duration::from_millis(11_200)),
        "12 s"
    );
    assert_eq!(
        progress::fmt_step_left(Duration::from_secs(125)),
        "2 min 05 s"
    );
    assert_eq!(progress::fmt_run_left(Duration::from_secs(45)), "~45 s");
    assert_eq!(progress::fmt_run_left(Duration::from_secs(481)), "~9 min");
    assert_eq!(
        progress::fmt_run_left(Duration::from_secs(3_900)),
        "~1 h 05 min"
    );
}

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buf {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[test]
fn draws_at_each_step_redraws_and_erases_before_report_lines() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let buf = Buf::default();
    let p = Progress::to_writer(Box::new(buf.clone()), 100);
    assert!(p.is_enabled());
    assert_eq!(buf.text(), "", "nothing before the first step");
    p.step(
        "CPU loop",
        "1 // jobs",
        Duration::from_secs(2),
        Duration::from_secs(60),
    );
    let first = buf.text();
    assert!(
        first.starts_with(&format!("{ERASE}[ CPU loop ] 1 // jobs  [")),
        "{first:?}"
    );
    std::thread::sleep(Duration::from_millis(600));
    let draws = buf.text().matches("[ CPU loop ]").count();
    assert!((2..=4).contains(&draws), "{draws} draws in 600 ms");
    p.clear();
    assert!(buf.text().ends_with(ERASE));
    // Held off right after a clear: the report line lands on a clean line.
    let n = buf.text().len();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(buf.text().len(), n);
    // A second clear with nothing drawn writes nothing.
    p.clear();
    assert_eq!(buf.text().len(), n);
    drop(p);
    assert!(buf.text().ends_with(ERASE));
}

#[test]
fn idle_erases_and_stops_drawing() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let buf = Buf::default();
    let p = Progress::to_writer(Box::new(buf.clone()), 100);
    p.step(
        "Memory",
        "Bandwidth",
        Duration::from_secs(1),
        Duration::from_secs(1),
    );
    p.idle();
    let n = buf.text().len();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(buf.text().len(), n);
    assert!(buf.text().ends_with(ERASE));
}

/// A pseudo-terminal pair: (master, slave) descriptors.
fn openpty() -> (i32, i32) {
    // SAFETY: the standard posix_openpt / grantpt / unlockpt / ptsname
    // sequence; ptsname's static buffer is copied before any other call.
    unsafe {
        let m = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(m >= 0);
        assert_eq!(libc::grantpt(m), 0);
        assert_eq!(libc::unlockpt(m), 0);
        let name = std::ffi::CStr::from_ptr(libc::ptsname(m)).to_owned();
        let s = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
        assert!(s >= 0);
        (m, s)
    }
}

fn read_available(fd: i32) -> String {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll and read on a valid descriptor into a local buffer.
        if unsafe { libc::poll(&mut pfd, 1, 100) } <= 0 {
            break;
        }
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            break;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn on_a_pseudo_terminal_it_draws_and_erases_within_its_width() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let (m, s) = openpty();
    let ws = libc::winsize {
        ws_row: 24,
        ws_col: 50,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads the winsize.
    unsafe { libc::ioctl(s, libc::TIOCSWINSZ, &ws) };
    assert!(progress::is_tty(s));
    assert_eq!(progress::terminal_width(s), Some(50));
    assert!(
        !Progress::on_fd(s, true).is_enabled(),
        "--quiet disables it"
    );
    let p = Progress::on_fd(s, false);
    assert!(p.is_enabled());
    p.step(
        "CPU loop",
        "2 // jobs",
        Duration::from_secs(30),
        Duration::from_secs(600),
    );
    std::thread::sleep(Duration::from_millis(300));
    p.clear();
    drop(p);
    let got = read_available(m);
    assert!(
        got.starts_with("\r\x1b[2K[ CPU loop ] 2 // jobs  ["),
        "{got:?}"
    );
    assert!(got.ends_with("\r\x1b[2K"), "{got:?}");
    for line in got.split("\r\x1b[2K").filter(|l| !l.is_empty()) {
        assert_eq!(line.chars().count(), 49, "{line:?}");
    }
    unsafe {
        libc::close(s);
        libc::close(m);
    }
}

/// Run by `stderr_on_a_terminal_and_stdout_in_a_file` in a child process
/// whose stderr is a terminal: what the program will do.
#[test]
fn child_prints_a_report_with_progress() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if std::env::var_os("QB_PROGRESS_CHILD").is_none() {
        return;
    }
    let p = Progress::stderr(false);
    assert!(p.is_enabled(), "stderr should be a terminal here");
    let out = std::io::stdout();
    for (i, step) in ["1 // jobs", "2 // jobs"].iter().enumerate() {
        p.step(
            "CPU loop",
            step,
            Duration::from_millis(300),
            Duration::from_millis(600),
        );
        std::thread::sleep(Duration::from_millis(300));
        p.clear();
        let mut o = out.lock();
        writeln!(o, "REPORT LINE {}", i + 1).unwrap();
        o.flush().unwrap();
    }
}

#[test]
fn stderr_on_a_terminal_and_stdout_in_a_file() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        common_skip::skip("no script(1)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.txt");
    let exe = std::env::current_exe().unwrap();
    let cmd = format!(
        "QB_PROGRESS_CHILD=1 '{}' --exact extended_progress::child_prints_a_report_with_progress \
         --nocapture --test-threads=1 -q > '{}'",
        exe.display(),
        report.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("\r\x1b[2K[ CPU loop ] 1 // jobs  ["),
        "{screen:?}"
    );
    assert!(
        screen.contains("\r\x1b[2K[ CPU loop ] 2 // jobs  ["),
        "{screen:?}"
    );
    assert!(screen.contains("(run ~1 s left)"), "{screen:?}");
    let file = std::fs::read_to_string(&report).unwrap();
    assert!(!file.contains('\x1b'), "escape sequences leaked: {file:?}");
    let lines: Vec<&str> = file.lines().filter(|l| l.starts_with("REPORT")).collect();
    assert_eq!(lines, ["REPORT LINE 1", "REPORT LINE 2"]);
}
