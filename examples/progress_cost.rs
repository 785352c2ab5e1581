//! Measures what the progress display costs the CPU loop: alternates CPU
//! loop steps (all usable CPUs) with the display drawing on stderr and
//! without it (as `--quiet`), and prints the loops/job/s of each.
//!
//! Run it with stderr on a terminal, e.g. under `script`:
//! `script -qec 'target/release/examples/progress_cost 5 4 2>/dev/tty' /dev/null`
//! Arguments: seconds per step (5), rounds (4). First it draws for one
//! step with no load and prints the CPU time the display took (getrusage).

use std::time::Duration;

use quickbench::cpu_loop::run_step;
use quickbench::progress::Progress;
use quickbench::sysinfo::usable_cpus;
use quickbench::Sysroot;

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().map_or(5.0, |s| s.parse().expect("seconds"));
    let rounds: u32 = args.next().map_or(4, |s| s.parse().expect("rounds"));
    let jobs = usable_cpus(&Sysroot::live()) as u32;
    let d = Duration::from_secs_f64(secs);
    let cpu_s = || {
        // SAFETY: getrusage fills the zeroed struct.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        tv(ru.ru_utime) + tv(ru.ru_stime)
    };
    {
        let p = Progress::stderr(false);
        let c0 = cpu_s();
        p.step("idle", "drawing only", d, d);
        std::thread::sleep(d);
        p.clear();
        drop(p);
        let used = cpu_s() - c0;
        println!(
            "display alone: {:.2} ms CPU in {secs} s = {:.4} % of one CPU",
            used * 1e3,
            used / secs * 100.0
        );
    }
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for r in 0..rounds * 2 {
        let quiet = r % 2 == 1;
        let p = Progress::stderr(quiet);
        let enabled = p.is_enabled();
        p.step(
            "CPU loop",
            &format!("{jobs} // jobs"),
            d,
            d * (rounds * 2 - r),
        );
        let s = run_step(jobs, d, &|| false);
        p.clear();
        drop(p);
        println!(
            "{:<8} {:>12.0} loop/job/s",
            if enabled { "progress" } else { "quiet" },
            s.loops_per_s_mean
        );
        if enabled { &mut on } else { &mut off }.push(s.loops_per_s_mean);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let best = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    let median = |v: &[f64]| {
        let mut w = v.to_vec();
        w.sort_by(|a, b| a.total_cmp(b));
        w.get(w.len() / 2).copied().unwrap_or(0.0)
    };
    println!(
        "median: progress {:.0} quiet {:.0} (ratio {:.4})",
        median(&on),
        median(&off),
        median(&on) / median(&off)
    );
    println!(
        "mean: progress {:.0} quiet {:.0} (ratio {:.4}); best: progress {:.0} quiet {:.0} (ratio {:.4})",
        mean(&on),
        mean(&off),
        mean(&on) / mean(&off),
        best(&on),
        best(&off),
        best(&on) / best(&off)
    );
}
