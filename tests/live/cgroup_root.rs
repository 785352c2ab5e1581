//! Live, root only: a CPU cgroup of our own with a 1-CPU quota, busy
//! child processes moved into it, and the limits and throttling read
//! through `quickbench::sysinfo::cgroup` from the children's point of view
//! (their `/proc/<pid>/cgroup` and `mountinfo` as the sysroot's
//! `/proc/self`, the real `/sys`). The test process itself never joins the
//! cgroup (it would throttle the suite), and no process changes memory
//! cgroup. Without root it says why and returns, or panics when
//! `QB_REQUIRE_ROOT_TESTS=1`.

use crate::common_skip;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use quickbench::blockdev::parse_mountinfo;
use quickbench::conditions::load::{clock_ticks_per_s, parse_self_stat_ticks, ticks_to_ns};
use quickbench::conditions::mark::{self, THROTTLED_PERCENT};
use quickbench::conditions::{Mark, Sampler, Step};
use quickbench::sysinfo::cgroup::{parse_proc_cgroup, read_limits, Hierarchy, ThrottleSampler};
use quickbench::Sysroot;

fn skip(why: &str) {
    common_skip::skip(why);
}

/// The tests of this file measure throttling: one at a time, or one's busy
/// children would starve the other's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A cgroup of our own with a 1-CPU quota, the largest weight (so the
/// group gets its whole quota on a busy machine and is throttled by it).
fn one_cpu_cgroup(tag: &str) -> Option<(Hierarchy, Cg)> {
    let (h, mount) = cpu_hierarchy()?;
    let dir = mount.join(format!("qb-{tag}-{}", std::process::id()));
    fs::create_dir(&dir).unwrap();
    let cg = Cg {
        dir: dir.clone(),
        children: Vec::new(),
    };
    match h {
        Hierarchy::V1 => {
            fs::write(dir.join("cpu.cfs_period_us"), "100000").unwrap();
            fs::write(dir.join("cpu.cfs_quota_us"), "100000").unwrap();
            fs::write(dir.join("cpu.shares"), "262144").unwrap();
        }
        Hierarchy::V2 => {
            fs::write(dir.join("cpu.max"), "100000 100000").unwrap();
            fs::write(dir.join("cpu.weight"), "10000").unwrap();
        }
    }
    Some((h, cg))
}

/// The binary run inside a 1-CPU quota: the CPU loop section says the
/// limit, and the 2-job step (2 jobs on 1 CPU's worth of time) is marked
/// throttled while the 1-job step is not.
#[test]
fn the_report_says_the_quota_and_marks_the_throttled_step() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return skip("not root");
    }
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return skip("one CPU: no 2-job step to throttle");
    }
    let Some((h, mut cg)) = one_cpu_cgroup("bin") else {
        return skip("no cgroup v1 cpu hierarchy and no v2 tree offering cpu");
    };
    let d = tempfile::tempdir().unwrap();
    let text = d.path().join("report.txt");
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "echo $$ > {}/cgroup.procs && exec {} 1 --only cpu,memory -q --json --text-out {}",
            cg.dir.display(),
            env!("CARGO_BIN_EXE_quickbench"),
            text.display()
        ))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    cg.children.clear();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["limits"]["cpu_quota"]["quota_us"], 100_000, "{doc:#}");
    let steps = doc["cpu_loop"].as_array().unwrap();
    let kinds = |i: usize| -> Vec<String> {
        steps[i]["marks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["kind"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        kinds(1).contains(&"throttled".to_string()),
        "{:#}",
        steps[1]
    );
    assert!(
        !kinds(0).contains(&"throttled".to_string()),
        "{:#}",
        steps[0]
    );
    let t = fs::read_to_string(&text).unwrap();
    let limit = match h {
        Hierarchy::V1 => "Limited to 1 CPU by the cgroup quota (cpu.cfs_quota_us 100000, cpu.cfs_period_us 100000)",
        Hierarchy::V2 => "Limited to 1 CPU by the cgroup quota (cpu.max 100000 100000)",
    };
    assert!(t.contains(&format!("[ CPU loop ]\n{limit}\n")), "{t}");
    let two = t.lines().find(|l| l.starts_with(" 2 // jobs")).unwrap();
    assert!(two.contains("(throttled "), "{two}");
    // the text reads back with the limit and the mark
    let r = quickbench::report::read::read_text("report.txt", &t).unwrap();
    assert_eq!(quickbench::report::text::render(&r), t);
}

/// A CPU cgroup directory and the children in it; dropping it kills the
/// children and removes the directory.
struct Cg {
    dir: PathBuf,
    children: Vec<Child>,
}

impl Drop for Cg {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        // The kernel empties cgroup.procs once the reaped children are gone.
        for _ in 0..50 {
            if fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!("could not remove {}: rmdir it by hand", self.dir.display());
    }
}

impl Cg {
    fn spawn_busy(&mut self) -> u32 {
        let c = Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let pid = c.id();
        self.children.push(c);
        fs::write(self.dir.join("cgroup.procs"), pid.to_string()).unwrap();
        pid
    }
}

/// Where to make a CPU cgroup: a v1 hierarchy with `cpu`, else the v2
/// tree when its root offers `cpu`.
fn cpu_hierarchy() -> Option<(Hierarchy, PathBuf)> {
    let mounts = parse_mountinfo(&fs::read_to_string("/proc/self/mountinfo").ok()?);
    if let Some(m) = mounts.iter().find(|m| {
        m.fs_type == "cgroup" && m.super_options.split(',').any(|o| o == "cpu") && m.root == "/"
    }) {
        return Some((Hierarchy::V1, PathBuf::from(&m.mount_point)));
    }
    let m = mounts
        .iter()
        .find(|m| m.fs_type == "cgroup2" && m.root == "/")?;
    let root = PathBuf::from(&m.mount_point);
    let ctl = fs::read_to_string(root.join("cgroup.controllers")).ok()?;
    if !ctl.split_whitespace().any(|c| c == "cpu") {
        return None;
    }
    // Delegate cpu to the root's children (harmless if already there).
    fs::write(root.join("cgroup.subtree_control"), "+cpu").ok()?;
    Some((Hierarchy::V2, root))
}

/// A sysroot that sees `pid`'s `/proc/<pid>` as `/proc/self` and the real
/// `/sys`.
fn view_of(pid: u32) -> (tempfile::TempDir, Sysroot) {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir(d.path().join("proc")).unwrap();
    std::os::unix::fs::symlink(format!("/proc/{pid}"), d.path().join("proc/self")).unwrap();
    std::os::unix::fs::symlink("/proc/stat", d.path().join("proc/stat")).unwrap();
    std::os::unix::fs::symlink("/sys", d.path().join("sys")).unwrap();
    let s = Sysroot::new(d.path());
    (d, s)
}

/// CPU time the children used so far, ns, from their `/proc/<pid>/stat`.
fn children_cpu_ns(pids: &[u32]) -> u64 {
    pids.iter()
        .filter_map(|p| fs::read_to_string(format!("/proc/{p}/stat")).ok())
        .filter_map(|t| parse_self_stat_ticks(&t))
        .map(|t| ticks_to_ns(t, clock_ticks_per_s()))
        .sum()
}

#[test]
fn a_one_cpu_quota_read_from_inside_and_its_throttling() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return skip("not root");
    }
    let Some((h, mut cg)) = one_cpu_cgroup("test") else {
        return skip("no cgroup v1 cpu hierarchy and no v2 tree offering cpu");
    };
    let name = cg.dir.file_name().unwrap().to_string_lossy().into_owned();
    let dir = cg.dir.clone();

    // One busy child: its /proc/<pid>/cgroup names our cgroup, and the
    // limits read from its point of view are the 1-CPU quota.
    let pid = cg.spawn_busy();
    let own = fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap();
    let entries = parse_proc_cgroup(&own);
    let want = format!("/{name}");
    let e = match h {
        Hierarchy::V1 => entries
            .iter()
            .find(|e| e.controllers.iter().any(|c| c == "cpu")),
        Hierarchy::V2 => entries.iter().find(|e| e.hierarchy_id == 0),
    }
    .unwrap_or_else(|| panic!("no cpu line in {own}"));
    assert_eq!(e.path, want, "{own}");
    let (_keep, sys) = view_of(pid);
    let limits = read_limits(&sys);
    let q = limits
        .cpu_quota
        .clone()
        .unwrap_or_else(|| panic!("{limits:?}"));
    assert_eq!(
        (q.quota_us, q.period_us, q.hierarchy),
        (100_000, 100_000, h)
    );
    assert_eq!(q.from_path, want);
    assert_eq!(Path::new(&q.dir), dir.as_path());
    assert_eq!(limits.cpus_allowed_by_quota, Some(1.0));
    // This process is outside the cgroup: no such quota for it.
    let ours = read_limits(&Sysroot::live());
    assert!(
        ours.cpu_quota
            .as_ref()
            .is_none_or(|q| q.dir != limits.cpu_quota.as_ref().unwrap().dir),
        "{ours:?}"
    );

    let window = Duration::from_millis(1000);
    // Each window is sampled twice: by the ThrottleSampler alone, and by
    // the Sampler a step would use (its marks).
    let measure = |pids: &[u32]| {
        let s = ThrottleSampler::start(&sys, &limits).expect("cpu.stat of the quota's cgroup");
        let step = Sampler::start(&sys, &[], &limits).unwrap();
        let u0 = children_cpu_ns(pids);
        let t0 = Instant::now();
        std::thread::sleep(window);
        let t = s.finish().unwrap();
        let load = step.finish(pids.len() as f64).load;
        let el = t0.elapsed().as_nanos() as u64;
        let used = children_cpu_ns(pids).saturating_sub(u0);
        let marks = mark::marks(Step::Cpu, Some(&load), None);
        let throttled = marks.into_iter().find_map(|m| match m {
            Mark::Throttled { percent } => Some(percent),
            _ => None,
        });
        (
            t,
            t.percent_of_needed(el, pids.len() as f64),
            used,
            el,
            throttled,
        )
    };

    // 1 job under a 1-CPU quota: it fits, little throttling.
    let (t1, p1, used1, el1, mark1) = measure(&[pid]);
    eprintln!("1 busy process: {t1:?}, {p1:.1} % of the needed CPU time throttled, used {used1} ns in {el1} ns");
    // 2 jobs under the same quota: each gets half, throttled half the time.
    let pid2 = cg.spawn_busy();
    let (t2, p2, used2, el2, mark2) = measure(&[pid, pid2]);
    eprintln!("2 busy processes: {t2:?}, {p2:.1} % of the needed CPU time throttled, used {used2} ns in {el2} ns");
    assert!(t2.periods >= 5, "{t2:?}");
    // The quota holds: at most 1 CPU's worth (a period of slack, and the
    // ticks' rounding).
    assert!(used2 <= el2 + 120_000_000, "used {used2} ns in {el2} ns");
    assert!(
        t2.throttled_periods * 2 >= t2.periods,
        "most periods throttled with 2 jobs: {t2:?}"
    );
    assert!(
        p2 > THROTTLED_PERCENT && (25.0..=75.0).contains(&p2),
        "about half of 2 CPUs' time throttled: {p2}"
    );
    assert!(p1 < p2, "1 job is throttled less than 2: {p1} vs {p2}");
    eprintln!("throttled marks: 1 job {mark1:?}, 2 jobs {mark2:?}");
    let m2 = mark2.expect("the 2-job window is marked throttled");
    assert!(
        (p2 - m2).abs() < 15.0,
        "the mark's figure {m2} is the share {p2}"
    );
    assert_eq!(mark1, None, "the 1-job window fits the quota: unmarked");
}
