//! The clock probe against a reference: prints, for each usable CPU, what
//! `quickbench::cpu_loop::mhz::probe` measures (about 50 ms a CPU) and
//! what a slow reference measures on the same CPU: the best of 20 runs of
//! 20 M iterations of four dependent `imul reg, reg` (3 cycles each, 12 an
//! iteration; the loop counter runs beside it), about 80 ms a run, timed
//! in this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), so that the
//! other tasks of a busy host, which preempt any 80 ms run, do not count. Also prints `cpu MHz`
//! of `/proc/cpuinfo`. Last, what one step's conditions sampler costs
//! (start and finish, with the other processes' `/proc/<pid>/stat`, the
//! swap, thermal and cpufreq counters), the mean of 20.
//! `benches/clock-probe.sh` runs it 5 times.
//!
//! The reference's chain is written here, not borrowed from
//! `cpu_loop::mhz`: a reference that ran the probe's own code would share
//! its mistakes (a wrong count of cycles an iteration would agree with
//! itself).
//!
//! `cargo run --release --example clock_probe`

use quickbench::conditions::Sampler;
use quickbench::cpu_loop::mhz::{probe, PER_CPU};
use quickbench::cpu_loop::smt::usable_cpu_list;
use quickbench::sysinfo::cgroup::read_limits;
use quickbench::Sysroot;

/// This thread's CPU time, ns.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(target_arch = "x86_64")]
fn reference_mhz() -> f64 {
    const ITERS: u64 = 20_000_000;
    let mut best = 0.0f64;
    for _ in 0..20 {
        let (mut a, b, mut n) = (1u64, 0x2545_F491_4F6C_DD1Du64, ITERS);
        let t = thread_cpu_ns();
        // SAFETY: registers only.
        unsafe {
            core::arch::asm!(
                "2:",
                "imul {a}, {b}",
                "imul {a}, {b}",
                "imul {a}, {b}",
                "imul {a}, {b}",
                "dec {n}",
                "jnz 2b",
                a = inout(reg) a,
                b = in(reg) b,
                n = inout(reg) n,
                options(nomem, nostack),
            );
        }
        std::hint::black_box((a, n));
        best = best.max((ITERS * 12) as f64 / (thread_cpu_ns() - t) as f64 * 1000.0);
    }
    best
}

#[cfg(not(target_arch = "x86_64"))]
fn reference_mhz() -> f64 {
    f64::NAN
}

fn main() {
    let sys = Sysroot::live();
    let cpus = usable_cpu_list(&sys);
    let cpuinfo = quickbench::sysinfo::procstat::read_mhz(&Sysroot::live(), &cpus).1;
    let p = probe(&cpus, PER_CPU);
    println!(
        "probe: {:?}, {:.0} ms for {} CPU(s)",
        p.status,
        p.elapsed_ns as f64 / 1e6,
        cpus.len()
    );
    for c in &p.cpus {
        let mut set = nix::sched::CpuSet::new();
        set.set(c.cpu as usize).unwrap();
        nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).unwrap();
        let r = reference_mhz();
        let info = cpuinfo
            .iter()
            .find(|(n, _)| *n == c.cpu)
            .map_or(f64::NAN, |(_, m)| *m);
        let mhz = c.mhz.unwrap_or(f64::NAN);
        println!(
            "cpu{}: probe {mhz:.0} MHz (add {:.0}, imul {:.0}); reference {r:.0} MHz ({:+.1} %); read clock {info:.0} MHz (cpufreq, else cpu MHz)",
            c.cpu,
            c.add_chain_mhz,
            c.imul_chain_mhz,
            100.0 * (mhz / r - 1.0)
        );
    }
    let limits = read_limits(&sys);
    let t = std::time::Instant::now();
    for _ in 0..20 {
        let s = Sampler::start(&sys, &cpus, &limits).expect("/proc/stat");
        std::hint::black_box(s.finish(1.0));
    }
    println!(
        "sampler: {:.2} ms a step (start + finish)",
        t.elapsed().as_secs_f64() * 1000.0 / 20.0
    );
}
