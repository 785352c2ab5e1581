//! Runs the CPU loop steps as the report does, each sampled by the
//! conditions [`Sampler`], and prints each step's figure, load and marks
//! as JSON in the report's shape (`cpu_loop[].load`, `cpu_loop[].marks`).
//! `benches/busy-marks.sh` reads it with `QB_MARKS_FROM=example`, to judge
//! the marks from the library without the rest of the report.
//!
//! `cargo run --release --example busy_marks -- [DELAY_SECS=1]`

use std::time::Duration;

use quickbench::conditions::{mark, Sampler, Step};
use quickbench::cpu_loop::smt::usable_cpu_list;
use quickbench::cpu_loop::{job_counts, run_step};
use quickbench::sysinfo::cgroup::read_limits;
use quickbench::Sysroot;

fn main() {
    let delay: f64 = std::env::args()
        .nth(1)
        .map_or(1.0, |a| a.parse().expect("DELAY_SECS"));
    let sys = Sysroot::live();
    let limits = read_limits(&sys);
    let cpus = usable_cpu_list(&sys);
    let mut steps = Vec::new();
    // as many jobs as the quota lets run (a 1.5-CPU quota still runs 2)
    let by_quota = limits
        .cpus_allowed_by_quota
        .map_or(usize::MAX, |c| c.ceil().max(1.0) as usize);
    for jobs in job_counts(cpus.len().min(by_quota).max(1)) {
        let s = Sampler::start(&sys, &cpus, &limits).expect("/proc/stat");
        let step = run_step(jobs, Duration::from_secs_f64(delay), &|| false);
        let load = s.finish(f64::from(jobs)).load;
        steps.push(serde_json::json!({
            "jobs": jobs,
            "loops_per_s_mean": step.loops_per_s_mean,
            "marks": mark::marks(Step::Cpu, Some(&load), None),
            "load": load,
        }));
    }
    let out = serde_json::json!({ "limits": limits, "cpu_loop": steps });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
