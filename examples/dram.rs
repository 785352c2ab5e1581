//! Runs the extended report's DRAM copy/triad once and prints the run as
//! JSON (for `benches/membw-vs-sysbench.sh`).
//!
//! `cargo run --release --example dram -- [--threads N|all] [--array-mib M]
//!  [--budget SECS] [--stores nt|cached]`
//! Defaults: all usable CPUs, arrays sized as the report sizes them, 10 s.

use std::time::Duration;

use quickbench::cpu_loop::smt::usable_cpu_list;
use quickbench::membw::dram::{self, PassLimits, Stores};
use quickbench::sysinfo::cgroup;
use quickbench::Sysroot;

fn main() {
    let sys = Sysroot::live();
    let mut args = std::env::args().skip(1);
    let cpus = usable_cpu_list(&sys);
    let mut threads = cpus.len();
    let plan = dram::plan_arrays(&sys, &cgroup::read_limits(&sys));
    let mut array_bytes = plan.array_bytes;
    let mut budget = 10.0f64;
    let mut stores = Stores::best();
    while let Some(a) = args.next() {
        let v = args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--threads" if v == "all" => threads = cpus.len(),
            "--threads" => threads = v.parse().expect("--threads N"),
            "--array-mib" => array_bytes = v.parse::<u64>().expect("--array-mib M") << 20,
            "--budget" => budget = v.parse().expect("--budget SECS"),
            "--stores" => {
                stores = match v.as_str() {
                    "nt" => Stores::NonTemporal,
                    "cached" => Stores::Cached,
                    _ => panic!("--stores nt|cached"),
                }
            }
            _ => panic!("unknown argument {a}"),
        }
    }
    let threads = threads.clamp(1, cpus.len());
    let run = dram::run(
        &cpus[..threads],
        array_bytes,
        PassLimits::within(Duration::from_secs_f64(budget)),
        stores,
        &|| false,
    );
    let out = serde_json::json!({ "plan": plan, "note": plan.note(), "run": run });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
