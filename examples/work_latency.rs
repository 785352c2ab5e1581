//! Runs one CPU work workload or one latency size as the report does and
//! prints the figure as JSON (for `benches/work-latency.sh`); or writes
//! the workloads' generated input to a file, for a codec's own CLI.
//!
//! `cargo run --release --example work_latency -- input FILE`
//! `... -- work zstd-3 compress|zstd-3 decompress|sha256 16k JOBS SECS`
//! `... -- latency SIZE_BYTES lines|pages SECS`

use std::time::Duration;

use quickbench::latency::{Chase, Layout};
use quickbench::work::{self, Prepared, Workload};
use quickbench::Sysroot;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or_default();
    match arg(0) {
        "input" => {
            std::fs::write(arg(1), work::input(work::INPUT_BYTES)).expect("write the input");
        }
        "work" => {
            let w = Workload::from_name(arg(1)).expect("a workload name");
            let jobs: u32 = arg(2).parse().expect("JOBS");
            let secs: f64 = arg(3).parse().expect("SECS");
            let p = Prepared::new().expect("the input");
            let r = work::run(&p, w, jobs, Duration::from_secs_f64(secs), &|| false)
                .expect("the workload");
            println!(
                "{{\"workload\":\"{}\",\"version\":\"{}\",\"jobs\":{jobs},\"mb_per_s\":{:.2},\"best_mb_per_s\":{:.2}}}",
                w.name(),
                w.version(),
                r.bytes_per_s / 1e6,
                r.best_bytes_per_s / 1e6
            );
        }
        "latency" => {
            let size: usize = arg(1).parse().expect("SIZE_BYTES");
            let layout = if arg(2) == "pages" {
                Layout::LinePerPage
            } else {
                Layout::Lines
            };
            let secs: f64 = arg(3).parse().expect("SECS");
            let mut c = Chase::new(&Sysroot::live(), size, layout, 0x5eed).expect("the buffer");
            let (loads, ns) = c.run(Duration::from_secs_f64(secs), &|| false);
            println!(
                "{{\"size_bytes\":{size},\"layout\":\"{}\",\"ns_per_load\":{:.3},\"huge_kib\":{}}}",
                arg(2),
                ns as f64 / loads as f64,
                c.huge_kib.map_or("null".into(), |k| k.to_string())
            );
        }
        _ => {
            eprintln!("usage: work_latency input FILE | work NAME JOBS SECS | latency SIZE lines|pages SECS");
            std::process::exit(2);
        }
    }
}
