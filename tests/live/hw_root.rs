//! Live, root only, a few seconds each: the conditions marks on this host.
//!
//! * a process named `qb-spinner` spinning during the CPU loop is named
//!   in the busy mark (JSON: with its pid and share) and at the start;
//! * a CPU cgroup quota written halfway through a `--repeat 6` CPU loop
//!   (by this test, once the report's process has used the CPU time of
//!   about three rounds) earns a drift mark; the same quota from the start
//!   earns none;
//! * a memory hog in a memory cgroup smaller than it, with swap on a loop
//!   device, makes the memory step of a report running beside it swap.
//!
//! Every cgroup, swap device and loop device is removed by a guard's
//! `Drop`, on every exit path. Without root it says why and returns, or
//! panics under `QB_REQUIRE_ROOT_TESTS=1`.

use crate::common_skip;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use quickbench::blockdev::parse_mountinfo;
use quickbench::conditions::load::{clock_ticks_per_s, parse_self_stat_ticks};

fn skip(why: &str) {
    common_skip::skip(why);
}

fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The tests load the CPUs: one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn kinds(step: &serde_json::Value) -> Vec<String> {
    step["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap().to_string())
        .collect()
}

/// A child killed and reaped on drop.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_busy_process_is_named_in_the_busy_mark() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !Path::new("/bin/sh").exists() {
        return skip("no /bin/sh to spin");
    }
    // A process's name (comm) is its executable's file name: a link.
    let d = tempfile::tempdir().unwrap();
    let spinner = d.path().join("qb-spinner");
    std::os::unix::fs::symlink("/bin/sh", &spinner).unwrap();
    let child = Reaped(
        Command::new(&spinner)
            .args(["-c", "while :; do :; done"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let pid = child.0.id();
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args(["1", "--only", "cpu", "--json"])
        .output()
        .unwrap();
    drop(child);
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the host is already busy: ") && err.contains("qb-spinner (pid "),
        "{err}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The 1-job step leaves a CPU for the spinner: it is busy there.
    let step = &doc["cpu_loop"][0];
    let busy = step["marks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "busy")
        .unwrap_or_else(|| panic!("no busy mark: {step:#}"));
    let spin = busy["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["comm"] == "qb-spinner")
        .unwrap_or_else(|| panic!("qb-spinner not named: {busy:#}"));
    assert_eq!(spin["pid"], pid);
    let share = spin["cpu_percent"].as_f64().unwrap();
    assert!((5.0..=105.0).contains(&share), "{spin}");
}

/// The cgroup v1 `cpu` hierarchy, or the v2 root offering `cpu`.
fn cpu_cgroup_root() -> Option<(bool, PathBuf)> {
    let mounts = parse_mountinfo(&fs::read_to_string("/proc/self/mountinfo").ok()?);
    if let Some(m) = mounts.iter().find(|m| {
        m.fs_type == "cgroup" && m.super_options.split(',').any(|o| o == "cpu") && m.root == "/"
    }) {
        return Some((true, PathBuf::from(&m.mount_point)));
    }
    let m = mounts
        .iter()
        .find(|m| m.fs_type == "cgroup2" && m.root == "/")?;
    let root = PathBuf::from(&m.mount_point);
    let ctl = fs::read_to_string(root.join("cgroup.controllers")).ok()?;
    if !ctl.split_whitespace().any(|c| c == "cpu") {
        return None;
    }
    fs::write(root.join("cgroup.subtree_control"), "+cpu").ok()?;
    Some((false, root))
}

/// A CPU cgroup of ours, removed on drop (after its processes end).
struct CpuCg {
    v1: bool,
    dir: PathBuf,
}

impl CpuCg {
    fn new(tag: &str) -> Option<CpuCg> {
        let (v1, root) = cpu_cgroup_root()?;
        let dir = root.join(format!("qb-{tag}-{}", std::process::id()));
        fs::create_dir(&dir).ok()?;
        let cg = CpuCg { v1, dir };
        // The largest weight: on a busy machine the group still gets the
        // CPU time its quota allows, so only the quota changes its figure.
        if cg.v1 {
            fs::write(cg.dir.join("cpu.shares"), "262144").ok()?;
        } else {
            fs::write(cg.dir.join("cpu.weight"), "10000").ok()?;
        }
        Some(cg)
    }

    /// A quota of `cpus` CPUs (per 100 ms period).
    fn quota(&self, cpus: f64) {
        self.quota_per(cpus, 100_000);
    }

    /// A quota of `cpus` CPUs given every `period_us` microseconds.
    fn quota_per(&self, cpus: f64, period_us: u64) {
        let us = (cpus * period_us as f64) as u64;
        if self.v1 {
            // No quota while the period changes: a quota left from before
            // over the new period could ask more than a parent allows.
            fs::write(self.dir.join("cpu.cfs_quota_us"), "-1").unwrap();
            fs::write(self.dir.join("cpu.cfs_period_us"), period_us.to_string()).unwrap();
            fs::write(self.dir.join("cpu.cfs_quota_us"), us.to_string()).unwrap();
        } else {
            fs::write(self.dir.join("cpu.max"), format!("{us} {period_us}")).unwrap();
        }
    }

    /// Starts `quickbench ARGS` inside the group.
    fn spawn(&self, args: &str) -> Child {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "echo $$ > {}/cgroup.procs && exec {} {args}",
                self.dir.display(),
                env!("CARGO_BIN_EXE_quickbench"),
            ))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

impl Drop for CpuCg {
    fn drop(&mut self) {
        for _ in 0..100 {
            if fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!("could not remove {}: rmdir it by hand", self.dir.display());
    }
}

/// CPU time of process `pid` (all threads), seconds.
fn cpu_s(pid: u32) -> Option<f64> {
    let t = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(parse_self_stat_ticks(&t)? as f64 / clock_ticks_per_s() as f64)
}

const DRIFT_ARGS: &str = "0.5 --only cpu --repeat 6 --json";

/// The CPU loop steps of a finished `--repeat 6` run.
fn cpu_steps(child: Child) -> Vec<serde_json::Value> {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["cpu_loop"].as_array().unwrap().clone()
}

/// One `--repeat 6` CPU loop in a cgroup whose 0.3-CPU quota is written
/// once the report's process has used about three rounds' CPU time (a
/// round uses about (1 + 2 + ... jobs) x 0.5 s, plus the clock probes,
/// 50 ms a CPU after each step): whatever the load, halfway. Returns the
/// steps.
fn halfway_quota_run(cg: &CpuCg, cpus: usize) -> Vec<serde_json::Value> {
    if cg.v1 {
        fs::write(cg.dir.join("cpu.cfs_quota_us"), "-1").unwrap();
    } else {
        fs::write(cg.dir.join("cpu.max"), "max 100000").unwrap();
    }
    let child = cg.spawn(DRIFT_ARGS);
    let pid = child.id();
    let counts = quickbench::cpu_loop::job_counts(cpus);
    let jobs: f64 = counts.iter().map(|&j| f64::from(j)).sum();
    let half = 3.0 * (jobs * 0.5 + counts.len() as f64 * 0.05 * cpus as f64);
    let t0 = Instant::now();
    while cpu_s(pid).is_some_and(|s| s < half) && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    cg.quota(0.3);
    cpu_steps(child)
}

/// With two CPUs the section has two steps of six trials: the seasonal
/// Mann-Kendall test of a clean halfway drop reaches p < 0.05 four times
/// in five (ranks only: however large the drop, the order of the trials
/// within each half is chance). So up to three runs: a broken drift mark
/// fails all three, a working one misses all three about once in a
/// hundred.
#[test]
fn a_quota_applied_halfway_through_the_rounds_is_a_drift() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !root() {
        return skip("not root");
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let Some(cg) = CpuCg::new("drift") else {
        return skip("no cgroup v1 cpu hierarchy and no v2 tree offering cpu");
    };
    let mut runs = Vec::new();
    for _ in 0..3 {
        let steps = halfway_quota_run(&cg, cpus);
        let found = steps
            .iter()
            .any(|s| kinds(s).contains(&"drift".to_string()));
        runs.push(steps);
        if found {
            break;
        }
    }
    let steps = runs.last().unwrap();
    let drifting: Vec<&serde_json::Value> = steps
        .iter()
        .filter(|s| kinds(s).contains(&"drift".to_string()))
        .collect();
    let figures: Vec<Vec<Vec<f64>>> = runs
        .iter()
        .map(|steps| {
            steps
                .iter()
                .map(|s| {
                    s["trials"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| t["loops_per_s_mean"].as_f64().unwrap().round())
                        .collect()
                })
                .collect()
        })
        .collect();
    assert!(!drifting.is_empty(), "no drift mark in 3 runs: {figures:?}");
    for s in drifting {
        let m = s["marks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["kind"] == "drift")
            .unwrap();
        let p = m["percent"].as_f64().unwrap();
        assert!(p <= -30.0, "a 0.3-CPU quota slows the last rounds: {m}");
        // Each trial keeps its own marks: the drift is the step's.
        assert!(s["trials"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| !kinds(t).contains(&"drift".to_string())));
    }
    eprintln!("drift found in run {} of 3", runs.len());
}

#[test]
fn a_constant_quota_is_no_drift() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !root() {
        return skip("not root");
    }
    let Some(cg) = CpuCg::new("steady") else {
        return skip("no cgroup v1 cpu hierarchy and no v2 tree offering cpu");
    };
    // A 10 ms period: a 500 ms trial spans 50 of them, so where a trial
    // starts and ends in the period moves its figure by about 2 %, under
    // the drift mark's 5 % (a 100 ms period moves it by about 20 %, enough
    // for the trend test to see a drift in a run in ten).
    cg.quota_per(0.3, 10_000);
    let steps = cpu_steps(cg.spawn(DRIFT_ARGS));
    for s in &steps {
        // On a shared host the other tenant can come or go within the run
        // (samples shared, then alone): a real drift, which the shared
        // mark says. The quota alone must not drift.
        if kinds(s).contains(&"shared".to_string()) {
            eprintln!(
                "jobs {}: the core's tenancy moved: {}",
                s["jobs"], s["sample_classes"]
            );
            continue;
        }
        assert!(!kinds(s).contains(&"drift".to_string()), "{s:#}");
        // The quota is there, and said.
        assert!(
            s["trials"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| kinds(t).contains(&"throttled".to_string())),
            "{s:#}"
        );
    }
}

/// Swap on a loop device and a memory cgroup, undone on drop.
struct Swap {
    file: PathBuf,
    loop_dev: Option<String>,
    swapped_on: bool,
    cg: Option<PathBuf>,
    hog: Option<Child>,
}

impl Drop for Swap {
    fn drop(&mut self) {
        if let Some(mut h) = self.hog.take() {
            let _ = h.kill();
            let _ = h.wait();
        }
        if let Some(cg) = &self.cg {
            for _ in 0..100 {
                if fs::remove_dir(cg).is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        if let Some(l) = &self.loop_dev {
            if self.swapped_on {
                let _ = Command::new("swapoff").arg(l).status();
            }
            let _ = Command::new("losetup").args(["-d", l]).status();
        }
        let _ = fs::remove_file(&self.file);
    }
}

fn ok(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn a_memory_step_beside_a_swapping_hog_is_marked_swapping() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !root() {
        return skip("not root");
    }
    let mounts = parse_mountinfo(&fs::read_to_string("/proc/self/mountinfo").unwrap());
    let Some(mem) = mounts.iter().find(|m| {
        m.fs_type == "cgroup" && m.super_options.split(',').any(|o| o == "memory") && m.root == "/"
    }) else {
        return skip("no cgroup v1 memory hierarchy (the v2 case is not written yet)");
    };
    let d = tempfile::tempdir_in("/var/tmp").unwrap();
    let mut swap = Swap {
        file: d.path().join("swap"),
        loop_dev: None,
        swapped_on: false,
        cg: None,
        hog: None,
    };
    let f = fs::File::create(&swap.file).unwrap();
    f.set_len(128 << 20).unwrap();
    drop(f);
    if ok(Command::new("mkswap").arg(&swap.file)).is_none() {
        return skip("mkswap failed (util-linux)");
    }
    let Some(dev) = ok(Command::new("losetup")
        .args(["-f", "--show"])
        .arg(&swap.file))
    else {
        return skip("no loop device");
    };
    swap.loop_dev = Some(dev.clone());
    if ok(Command::new("swapon").arg(&dev)).is_none() {
        return skip("the kernel refused swapon on a loop device");
    }
    swap.swapped_on = true;
    let cg = PathBuf::from(&mem.mount_point).join(format!("qb-swap-{}", std::process::id()));
    fs::create_dir(&cg).unwrap();
    swap.cg = Some(cg.clone());
    fs::write(cg.join("memory.swappiness"), "100").unwrap();
    fs::write(cg.join("memory.limit_in_bytes"), (32u64 << 20).to_string()).unwrap();
    // The hog: this test binary again, touching 64 MiB over and over in
    // a 32 MiB cgroup, until killed.
    let hog = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "echo $$ > {}/cgroup.procs && exec {} --exact hw_root::hog --nocapture --ignored",
            cg.display(),
            std::env::current_exe().unwrap().display()
        ))
        .env("QB_HOG_MIB", "64")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    swap.hog = Some(hog);
    std::thread::sleep(Duration::from_millis(500));
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args(["1", "--only", "memory", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bw = &doc["memory"]["dd_bandwidth"];
    assert!(kinds(bw).contains(&"swapping".to_string()), "{bw:#}");
    let swap_load = &bw["load"]["swap"];
    assert!(swap_load["pages_out"].as_u64().unwrap() > 0, "{swap_load}");
    drop(swap);
    assert!(!fs::read_to_string("/proc/swaps").unwrap().contains(&dev));
}

/// Not a test: the memory hog of the swapping test, run in its cgroup.
#[test]
#[ignore]
fn hog() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let Some(mib) = std::env::var("QB_HOG_MIB")
        .ok()
        .and_then(|m| m.parse::<usize>().ok())
    else {
        return;
    };
    let mut v = vec![0u8; mib << 20];
    let t0 = Instant::now();
    let mut i = 0u8;
    while t0.elapsed() < Duration::from_secs(30) {
        for page in v.chunks_mut(4096) {
            page[0] = i;
        }
        i = i.wrapping_add(1);
        std::hint::black_box(&v);
    }
}
