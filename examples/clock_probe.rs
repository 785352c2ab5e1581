//! The clock probe against a reference: prints, for each usable CPU, what
//! `quickbench::cpu_loop::mhz::probe` measures (about 50 ms a CPU) and
//! what a slow reference measures on the same CPU: the best of 20 runs of
//! 20 M iterations of four dependent `imul reg, reg` (3 cycles each, 12 an
//! iteration; the loop counter runs beside it), about 80 ms a run. Also prints `cpu MHz`
//! of `/proc/cpuinfo`. `benches/clock-probe.sh` runs it 5 times.
//!
//! `cargo run --release --example clock_probe`

use std::time::Instant;

use quickbench::cpu_loop::mhz::{probe, PER_CPU};
use quickbench::cpu_loop::smt::usable_cpu_list;
use quickbench::sysinfo::procstat::parse_cpuinfo_mhz;
use quickbench::Sysroot;

#[cfg(target_arch = "x86_64")]
fn reference_mhz() -> f64 {
    const ITERS: u64 = 20_000_000;
    let mut best = 0.0f64;
    for _ in 0..20 {
        let (mut a, b, mut n) = (1u64, 0x2545_F491_4F6C_DD1Du64, ITERS);
        let t = Instant::now();
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
        best = best.max((ITERS * 12) as f64 / t.elapsed().as_nanos() as f64 * 1000.0);
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
    let cpuinfo = sys
        .read_to_string("/proc/cpuinfo")
        .map(|t| parse_cpuinfo_mhz(&t))
        .unwrap_or_default();
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
            "cpu{}: probe {mhz:.0} MHz (add {:.0}, imul {:.0}); reference {r:.0} MHz ({:+.1} %); cpu MHz {info:.0}",
            c.cpu,
            c.add_chain_mhz,
            c.imul_chain_mhz,
            100.0 * (mhz / r - 1.0)
        );
    }
}
