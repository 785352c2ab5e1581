//! The one-line progress display on stderr.
//!
//! When stderr is a terminal and `--quiet` is not given, a status line
//! shows the section, the step, a bar with the seconds left for the step
//! and roughly for the whole run:
//!
//! ```text
//! [ CPU loop ] 2 // jobs  [########------------]  12 s left (run ~9 min left)
//! ```
//!
//! A background thread redraws it every [`REDRAW`]; [`Progress::clear`]
//! erases it (`\r\x1b[2K`) before each report line on stdout, so that a
//! redirected report stays clean. The line is cut to the terminal's width:
//! a wrapped line cannot be erased by `\r`.

use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, RawFd};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Time between two redraws.
pub const REDRAW: Duration = Duration::from_millis(250);

/// After [`Progress::clear`], no redraw for this long, so that the report
/// line the caller prints next lands on the erased line.
pub const HOLD_AFTER_CLEAR: Duration = Duration::from_millis(100);

/// Moves to column 0 and erases the line.
pub const ERASE: &str = "\r\x1b[2K";

const BAR_WIDTH: usize = 20;

/// The step being shown.
#[derive(Debug, Clone)]
struct Step {
    section: String,
    label: String,
    started: Instant,
    duration: Duration,
    remaining_total: Duration,
}

struct State {
    out: Box<dyn Write + Send>,
    /// The terminal whose width bounds the line, if any.
    fd: Option<RawFd>,
    fixed_width: usize,
    step: Option<Step>,
    drawn: bool,
    last_draw: Option<Instant>,
    hold_until: Option<Instant>,
    stop: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

/// The progress display; a disabled one does nothing.
pub struct Progress {
    shared: Option<Arc<Shared>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

/// True when `fd` is a terminal.
pub fn is_tty(fd: RawFd) -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(fd) == 1 }
}

/// The width of the terminal on `fd`, if it says.
pub fn terminal_width(fd: RawFd) -> Option<usize> {
    // SAFETY: TIOCGWINSZ writes a winsize into the zeroed struct.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

impl Progress {
    /// A display that draws nothing.
    pub fn disabled() -> Progress {
        Progress {
            shared: None,
            thread: None,
        }
    }

    /// The display of the program: on stderr when it is a terminal and
    /// `quiet` is false, disabled otherwise.
    pub fn stderr(quiet: bool) -> Progress {
        Progress::on_fd(libc::STDERR_FILENO, quiet)
    }

    /// A display on the terminal `fd` (a duplicate of it is written), or a
    /// disabled one when `quiet` or `fd` is not a terminal.
    pub fn on_fd(fd: RawFd, quiet: bool) -> Progress {
        if quiet || !is_tty(fd) {
            return Progress::disabled();
        }
        // SAFETY: dup returns a new descriptor that the File then owns.
        let dup = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
        if dup < 0 {
            return Progress::disabled();
        }
        let out = unsafe { File::from_raw_fd(dup) };
        Progress::start(Box::new(out), Some(dup), 80)
    }

    /// An enabled display writing to `out`, `width` columns wide (tests).
    pub fn to_writer(out: Box<dyn Write + Send>, width: usize) -> Progress {
        Progress::start(out, None, width)
    }

    fn start(out: Box<dyn Write + Send>, fd: Option<RawFd>, width: usize) -> Progress {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                out,
                fd,
                fixed_width: width,
                step: None,
                drawn: false,
                last_draw: None,
                hold_until: None,
                stop: false,
            }),
            wake: Condvar::new(),
        });
        let s2 = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name("progress".into())
            .spawn(move || redraw_loop(&s2))
            .ok();
        if thread.is_none() {
            return Progress::disabled();
        }
        Progress {
            shared: Some(shared),
            thread,
        }
    }

    /// True when the display draws.
    pub fn is_enabled(&self) -> bool {
        self.shared.is_some()
    }

    /// A step starts: `section` (`CPU loop`), `step` (`2 // jobs`), its
    /// expected `duration` (zero: unknown, no bar) and the time expected
    /// for the rest of the run from now, this step included.
    pub fn step(&self, section: &str, step: &str, duration: Duration, remaining_total: Duration) {
        let Some(sh) = &self.shared else { return };
        let mut st = lock(sh);
        st.step = Some(Step {
            section: section.to_string(),
            label: step.to_string(),
            started: Instant::now(),
            duration,
            remaining_total: remaining_total.max(duration),
        });
        st.hold_until = None;
        draw(&mut st);
        drop(st);
        sh.wake.notify_one();
    }

    /// Erases the status line (call it right before printing a report line
    /// on stdout); it comes back at the next redraw after
    /// [`HOLD_AFTER_CLEAR`].
    pub fn clear(&self) {
        let Some(sh) = &self.shared else { return };
        let mut st = lock(sh);
        erase(&mut st);
        st.hold_until = Some(Instant::now() + HOLD_AFTER_CLEAR);
    }

    /// Erases the line and runs `f` (which prints) with the redraws held
    /// off, so no redraw can slip in between.
    pub fn cleared<T>(&self, f: impl FnOnce() -> T) -> T {
        let Some(sh) = &self.shared else { return f() };
        let mut st = lock(sh);
        erase(&mut st);
        st.hold_until = Some(Instant::now() + HOLD_AFTER_CLEAR);
        f()
    }

    /// Stops showing a step (the line is erased, nothing is drawn until the
    /// next [`Progress::step`]).
    pub fn idle(&self) {
        let Some(sh) = &self.shared else { return };
        let mut st = lock(sh);
        erase(&mut st);
        st.step = None;
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        let Some(sh) = self.shared.take() else { return };
        {
            let mut st = lock(&sh);
            st.stop = true;
            erase(&mut st);
        }
        sh.wake.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn lock(sh: &Shared) -> MutexGuard<'_, State> {
    sh.state.lock().unwrap_or_else(|p| p.into_inner())
}

fn erase(st: &mut State) {
    if st.drawn {
        let _ = st.out.write_all(ERASE.as_bytes());
        let _ = st.out.flush();
        st.drawn = false;
    }
}

fn draw(st: &mut State) {
    let Some(step) = &st.step else { return };
    let width = st.fd.and_then(terminal_width).unwrap_or(st.fixed_width);
    let line = render_line(
        &step.section,
        &step.label,
        step.started.elapsed(),
        step.duration,
        step.remaining_total,
        width,
    );
    let mut buf = String::with_capacity(line.len() + ERASE.len());
    buf.push_str(ERASE);
    buf.push_str(&line);
    let _ = st.out.write_all(buf.as_bytes());
    let _ = st.out.flush();
    st.drawn = true;
    st.last_draw = Some(Instant::now());
}

fn redraw_loop(sh: &Shared) {
    let mut st = lock(sh);
    loop {
        if st.stop {
            return;
        }
        let now = Instant::now();
        let held = st.hold_until.is_some_and(|t| now < t);
        // A step() just drew: no second draw on its wake-up.
        let fresh = st.last_draw.is_some_and(|t| now < t + REDRAW / 2);
        if !held && !fresh && st.step.is_some() {
            draw(&mut st);
        }
        st = match sh.wake.wait_timeout(st, REDRAW) {
            Ok((g, _)) => g,
            Err(p) => p.into_inner().0,
        };
    }
}

/// A time left for the step: `12 s`, `2 min 05 s`.
pub fn fmt_step_left(d: Duration) -> String {
    let s = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    if s < 120 {
        format!("{s} s")
    } else {
        format!("{} min {:02} s", s / 60, s % 60)
    }
}

/// A rough time left for the run: `~40 s`, `~9 min`, `~1 h 05 min`.
pub fn fmt_run_left(d: Duration) -> String {
    let s = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    if s < 90 {
        format!("~{s} s")
    } else {
        let m = s.div_ceil(60);
        if m < 60 {
            format!("~{m} min")
        } else {
            format!("~{} h {:02} min", m / 60, m % 60)
        }
    }
}

/// The status line (no escape sequences), cut to `width - 1` characters.
pub fn render_line(
    section: &str,
    step: &str,
    elapsed: Duration,
    duration: Duration,
    remaining_total: Duration,
    width: usize,
) -> String {
    let mut line = format!("[ {section} ] {step}");
    if !duration.is_zero() {
        let frac = (elapsed.as_secs_f64() / duration.as_secs_f64()).clamp(0.0, 1.0);
        let full = (frac * BAR_WIDTH as f64).round() as usize;
        line.push_str("  [");
        line.extend(std::iter::repeat_n('#', full));
        line.extend(std::iter::repeat_n('-', BAR_WIDTH - full));
        line.push_str("]  ");
        line.push_str(&fmt_step_left(duration.saturating_sub(elapsed)));
        line.push_str(" left");
    } else {
        line.push_str(&format!("  {} s", elapsed.as_secs()));
    }
    let run_left = remaining_total.saturating_sub(elapsed);
    if run_left > duration.saturating_sub(elapsed) {
        line.push_str(&format!(" (run {} left)", fmt_run_left(run_left)));
    }
    line.chars().take(width.saturating_sub(1).max(1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disabled_display_does_nothing() {
        let p = Progress::disabled();
        assert!(!p.is_enabled());
        p.step(
            "CPU loop",
            "1 // jobs",
            Duration::from_secs(1),
            Duration::ZERO,
        );
        p.clear();
        assert_eq!(p.cleared(|| 5), 5);
    }

    #[test]
    fn quiet_or_a_non_tty_fd_is_disabled() {
        let mut fds = [0; 2];
        // SAFETY: pipe writes two descriptors into the array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        assert!(!Progress::on_fd(fds[1], false).is_enabled());
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
    }
}
