//! Dev harness for the `dd_io` engine: runs one line (or a write line then
//! its read line) and prints the report line and the `LineResult` as JSON.
//!
//! ```text
//! cargo run --release --example io_line -- --dir /mnt --bs 4k --rw both --jobs 1 --secs 5
//! ```
//! `--rw read` runs a write line first (same block size and jobs, printed
//! on stderr) so that the read line has written data to read.
//! The JSON carries two extra keys: `harness_cpu_ns`, the process's user +
//! system CPU time during the line (getrusage), for overhead comparisons,
//! and `reach`, the reach check (did the bytes reach the devices?)
//! against every device under the directory (through a FUSE mount's local
//! backing when there is one) or under `--dev`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::Parser;
use quickbench::blockdev::{check_layout, device_layout, fuse_backing, resolve_dir, DeviceLayout};
use quickbench::conditions::reach::judge_line;
use quickbench::dd_io::{self, Direction, IoConfig, LineResult};
use quickbench::Sysroot;

#[derive(Parser)]
struct Args {
    /// Benchmark directory.
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Block size: 4k or 1M (or a byte count).
    #[arg(long, default_value = "4k")]
    bs: String,
    /// write, read, or both.
    #[arg(long, default_value = "write")]
    rw: String,
    /// Concurrent jobs.
    #[arg(long, default_value_t = 1)]
    jobs: u32,
    /// Seconds per line.
    #[arg(long, default_value_t = 5.0)]
    secs: f64,
    /// File size cap (bytes, or with a k/M/G suffix).
    #[arg(long, default_value = "4G")]
    max_size: String,
    /// Block devices (comma-separated kernel names) whose stacks are
    /// sampled; default: the devices under --dir.
    #[arg(long)]
    dev: Option<String>,
}

fn parse_size(s: &str) -> Option<u64> {
    let (num, mult) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1u64 << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mult)
}

/// User + system CPU time of this process so far, ns.
fn cpu_ns() -> u64 {
    // SAFETY: zeroed plain struct filled by getrusage.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn print(r: &LineResult, layout: &DeviceLayout, cpu_ns: u64, to_stderr: bool) {
    let text = quickbench::report::text::io_line(r);
    let mut v = serde_json::to_value(r).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("harness_cpu_ns".into(), cpu_ns.into());
        let reach = serde_json::to_value(judge_line(r, layout)).unwrap_or_default();
        o.insert("reach".into(), reach);
    }
    let json = v.to_string();
    if to_stderr {
        eprintln!("{text}\n{json}");
    } else {
        println!("{text}\n{json}");
    }
    if let Some(e) = r.end.error() {
        eprintln!("quickbench: {e}");
    }
}

fn main() -> ExitCode {
    let a = Args::parse();
    let (Some(bs), Some(max)) = (parse_size(&a.bs), parse_size(&a.max_size)) else {
        eprintln!("bad --bs or --max-size");
        return ExitCode::from(2);
    };
    let mut cfg = IoConfig::new(&a.dir);
    cfg.max_size_bytes = max;
    let sys = Sysroot::live();
    let layout = match &a.dev {
        Some(d) => device_layout(&sys, &d.split(',').map(String::from).collect::<Vec<_>>()),
        None => match resolve_dir(&sys, &a.dir) {
            Ok(t) => check_layout(&sys, &t, &fuse_backing(&sys, &t)),
            Err(e) => {
                eprintln!("quickbench: {e:#}");
                device_layout(&sys, &[])
            }
        },
    };
    cfg.stat_dev = layout.leaves.first().map(|l| l.device.clone());
    let mut ws = match dd_io::prepare(&cfg) {
        Ok(ws) => ws,
        Err(skip) => {
            eprintln!("quickbench: storage bandwidth skipped: {skip}");
            return ExitCode::from(1);
        }
    };
    ws.set_stat_devices(&layout.leaf_names());
    for w in ws.advisories() {
        eprintln!("quickbench: {w}");
    }
    let cut = AtomicBool::new(false);
    let d = Duration::from_secs_f64(a.secs);
    let lines: &[(Direction, bool)] = match a.rw.as_str() {
        "write" => &[(Direction::Write, false)],
        "read" => &[(Direction::Write, true), (Direction::Read, false)],
        "both" => &[(Direction::Write, false), (Direction::Read, false)],
        _ => {
            eprintln!("--rw must be write, read or both");
            return ExitCode::from(2);
        }
    };
    let mut failed = false;
    for &(dir, quiet) in lines {
        let cpu0 = cpu_ns();
        let r = ws.run_line(bs, dir, a.jobs, d, &cut);
        let cpu = cpu_ns() - cpu0;
        failed |= r.end.error().is_some();
        print(&r, &layout, cpu, quiet);
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
