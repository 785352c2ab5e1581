//! The tests that measure this host: live runs, signals, the root-only
//! tests (loop devices, mounts, cgroups, chroot) and the tools they drive.
//! Each module was a test binary of its own; they share one to link the
//! crate once.
//!
//! A module's tests load the host in ways another module's would read as
//! noise (busy spinners, CPU quotas, a swapping hog, whole runs timed),
//! so each test first takes its module's turn: tests of one module run
//! side by side, as they did in their own binary, never beside another
//! module's.

#[path = "../common_skip/mod.rs"]
mod common_skip;
#[macro_use]
#[path = "../common_live/mod.rs"]
mod common_live;
#[path = "../common_oldkernel/mod.rs"]
mod common_oldkernel;
#[path = "../common_reports/mod.rs"]
mod common_reports;

/// One module's tests at a time.
mod one_module_at_a_time {
    use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

    /// The module whose tests run, and how many of them do.
    struct Running {
        module: Option<&'static str>,
        tests: usize,
    }

    static RUNNING: Mutex<Running> = Mutex::new(Running {
        module: None,
        tests: 0,
    });
    static FREED: Condvar = Condvar::new();

    /// A test that panicked still releases its turn: never poisoned.
    fn running() -> MutexGuard<'static, Running> {
        RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Held while a test runs.
    pub struct Turn;

    /// Waits until no other module's test runs (`module_path!()` of the
    /// test), then counts this test in.
    pub fn enter(module: &'static str) -> Turn {
        let mut r = running();
        while r.module.is_some_and(|m| m != module) {
            r = FREED.wait(r).unwrap_or_else(PoisonError::into_inner);
        }
        r.module = Some(module);
        r.tests += 1;
        Turn
    }

    impl Drop for Turn {
        fn drop(&mut self) {
            let mut r = running();
            r.tests -= 1;
            if r.tests == 0 {
                r.module = None;
                FREED.notify_all();
            }
        }
    }
}

mod ansible_fleet;
mod bad_input;
mod blockdev_live;
mod busy_marks;
mod cgroup_root;
mod compare_live;
mod dd_io_live;
mod dd_io_root;
mod extended_dram;
mod extended_progress;
mod extended_samples;
mod extended_smt;
mod extended_steal;
mod fs_faults;
mod full_run_root;
mod hw_root;
mod io_signals;
mod json_schema;
mod live_smoke;
mod load_live;
mod old_kernels;
mod progress_binary;
mod raw_device_root;
mod reach_root;
mod repeat;
mod signals;
mod static_chroot;
