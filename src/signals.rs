//! Ctrl-C, SIGTERM and SIGHUP, handled the way a benchmark user expects.
//!
//! The handlers only touch atomics (async-signal-safe); the measuring loops
//! poll [`stop_requested`] and the orchestrator polls [`abort_signal`].
//! - The first SIGINT cuts the step in progress: its figure is computed over
//!   the real elapsed time, and the report goes on.
//! - A second SIGINT within [`DOUBLE_INT_WINDOW_NS`] aborts (exit 130).
//! - SIGTERM and SIGHUP abort (exit 143 and 129). Cleanup (the temporary
//!   file) happens in ordinary code paths and guards' `Drop`.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Two SIGINTs closer than this (ns) abort the run.
pub const DOUBLE_INT_WINDOW_NS: u64 = 2_000_000_000;

static CUT: AtomicBool = AtomicBool::new(false);
/// Set by any of the handled signals: the step in progress must end.
static STOP: AtomicBool = AtomicBool::new(false);
static ABORT_SIGNAL: AtomicI32 = AtomicI32::new(0);
static LAST_INT_NS: AtomicU64 = AtomicU64::new(0);

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime is async-signal-safe and only writes `ts`.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
        .max(1)
}

extern "C" fn on_signal(sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
    if sig == libc::SIGINT {
        let now = monotonic_ns();
        let last = LAST_INT_NS.swap(now, Ordering::SeqCst);
        if last != 0 && now.saturating_sub(last) < DOUBLE_INT_WINDOW_NS {
            ABORT_SIGNAL.store(sig, Ordering::SeqCst);
        } else {
            CUT.store(true, Ordering::SeqCst);
        }
    } else {
        ABORT_SIGNAL.store(sig, Ordering::SeqCst);
    }
}

/// Installs the handlers for SIGINT, SIGTERM and SIGHUP.
pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a valid handler and an empty mask
        // is a valid argument; the handler is async-signal-safe.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Sleeps for `duration` in steps of at most 10 ms, and returns `true` as
/// soon as `interrupted()` says so (`false` when the time ran out first):
/// how a step waits while its threads work, or before they start.
pub fn sleep_unless(duration: Duration, interrupted: &dyn Fn() -> bool) -> bool {
    let t0 = Instant::now();
    loop {
        let left = duration.saturating_sub(t0.elapsed());
        if left.is_zero() {
            return false;
        }
        if interrupted() {
            return true;
        }
        std::thread::sleep(left.min(Duration::from_millis(10)));
    }
}

/// True when the step in progress must end now (cut or abort).
pub fn stop_requested() -> bool {
    CUT.load(Ordering::Relaxed) || ABORT_SIGNAL.load(Ordering::Relaxed) != 0
}

/// True when the step in progress was cut by one Ctrl-C.
pub fn cut_requested() -> bool {
    CUT.load(Ordering::Relaxed)
}

/// Clears the cut flag before the next step starts.
pub fn clear_cut() {
    CUT.store(false, Ordering::SeqCst);
    if ABORT_SIGNAL.load(Ordering::SeqCst) == 0 {
        STOP.store(false, Ordering::SeqCst);
    }
}

/// The flag that measuring loops poll (set by a cut or an abort), for
/// engines that take an `&AtomicBool`.
pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}

/// The signal that aborted the run, if any.
pub fn abort_signal() -> Option<i32> {
    match ABORT_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The exit status for an abort by `sig`: 128 + the signal number
/// (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).
pub fn exit_code(sig: i32) -> i32 {
    128 + sig
}

/// A name for messages.
pub fn name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "Ctrl-C (SIGINT)",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleep_unless_runs_out_or_stops_when_interrupted() {
        let t0 = Instant::now();
        assert!(!sleep_unless(Duration::from_millis(40), &|| false));
        assert!(t0.elapsed() >= Duration::from_millis(40));
        let t0 = Instant::now();
        assert!(sleep_unless(Duration::from_secs(20), &|| t0.elapsed()
            > Duration::from_millis(30)));
        assert!(t0.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(exit_code(libc::SIGINT), 130);
        assert_eq!(exit_code(libc::SIGTERM), 143);
        assert_eq!(exit_code(libc::SIGHUP), 129);
    }

    #[test]
    fn one_int_cuts_two_close_ints_abort() {
        // Drive the handler directly (no real signal: tests share a process).
        on_signal(libc::SIGINT);
        assert!(cut_requested());
        assert_eq!(abort_signal(), None);
        clear_cut();
        on_signal(libc::SIGINT);
        assert_eq!(abort_signal(), Some(libc::SIGINT));
        assert!(stop_requested());
        ABORT_SIGNAL.store(0, Ordering::SeqCst);
        LAST_INT_NS.store(0, Ordering::SeqCst);
        clear_cut();
    }
}
