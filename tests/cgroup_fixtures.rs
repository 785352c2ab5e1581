//! The report of a containerized host, from fixture sysroots with cgroup
//! limits (v2 and v1): the exact lines that say them, and the JSON.

use std::fs;
use std::path::Path;

use assert_cmd::Command;

fn w(root: &Path, p: &str, c: &str) {
    let p = root.join(p);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, c).unwrap();
}

/// 2 CPUs, 16 GiB, and `mountinfo` (the cgroup mounts).
fn host(root: &Path, mountinfo: &str, proc_cgroup: &str) {
    let mut cpuinfo = String::new();
    for cpu in 0..2 {
        cpuinfo.push_str(&format!(
            "processor\t: {cpu}\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n\
             model name\t: AMD EPYC\nphysical id\t: 0\nsiblings\t: 2\ncore id\t\t: {cpu}\ncpu cores\t: 2\n\n"
        ));
    }
    w(root, "proc/cpuinfo", &cpuinfo);
    w(
        root,
        "proc/meminfo",
        "MemTotal:       16303216 kB\nMemAvailable:   12516404 kB\n",
    );
    for (f, v) in [
        ("ostype", "Linux"),
        ("hostname", "pod"),
        ("osrelease", "6.1.0"),
        ("version", "#1 SMP"),
        ("arch", "x86_64"),
    ] {
        w(root, &format!("proc/sys/kernel/{f}"), &format!("{v}\n"));
    }
    for f in ["possible", "present", "online"] {
        w(root, &format!("sys/devices/system/cpu/{f}"), "0-1\n");
    }
    w(root, "proc/self/mountinfo", mountinfo);
    w(root, "proc/self/cgroup", proc_cgroup);
}

fn run(root: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .arg("--sysroot")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn v2_pod(root: &Path) {
    host(
        root,
        "22 1 254:0 / / rw - ext4 /dev/vda rw\n30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
        "0::/kubepods/pod1\n",
    );
    let cg = "sys/fs/cgroup/kubepods";
    w(root, &format!("{cg}/cpu.max"), "max 100000\n");
    w(root, &format!("{cg}/memory.max"), "1073741824\n");
    w(root, &format!("{cg}/memory.current"), "104857600\n");
    w(root, &format!("{cg}/pod1/cpu.max"), "150000 100000\n");
    w(root, &format!("{cg}/pod1/memory.max"), "max\n");
    w(root, &format!("{cg}/pod1/memory.current"), "52428800\n");
}

#[test]
fn a_v2_pod_says_its_quota_and_its_parents_memory_limit() {
    let d = tempfile::tempdir().unwrap();
    v2_pod(d.path());
    let text = run(d.path(), &["--fake-figures", "--only", "cpu,memory", "1"]);
    assert!(
        text.contains(
            "[ CPU loop ]\nLimited to 1.5 CPUs by the cgroup quota (cpu.max 150000 100000)\n 1 // jobs :"
        ),
        "{text}"
    );
    assert!(
        text.contains("Total    : 15921 MB (cgroup limit 1024 MB)\n"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&run(
        d.path(),
        &["--fake-figures", "--only", "cpu,memory", "1", "--json"],
    ))
    .unwrap();
    let l = &json["limits"];
    assert_eq!(l["version"], "v2");
    assert_eq!(l["cpu_quota"]["quota_us"], 150_000);
    assert_eq!(l["cpu_quota"]["from_path"], "/kubepods/pod1");
    assert_eq!(l["memory_limit_bytes"], 1_073_741_824u64);
    assert_eq!(l["memory_from"], "/kubepods");
    // the plan: the limits, and the DRAM arrays within the headroom
    let plan = run(d.path(), &["--dry-run", "-x", "--only", "cpu,memory", "30"]);
    assert!(
        plan.contains("Limits    : 1.5 CPUs by the cgroup quota (cpu.max 150000 100000); memory 1 GiB (cgroup limit, 924 MiB still free)\n"),
        "{plan}"
    );
    assert!(plan.contains("bounded by the cgroup's memory"), "{plan}");
    // the text reads back with its limits
    let r = quickbench::report::read::read_text("pod.txt", &text).unwrap();
    assert_eq!(quickbench::report::text::render(&r), text);
    assert_eq!(r.limits.unwrap().memory_limit_bytes, Some(1 << 30));
}

#[test]
fn a_v1_container_says_its_quota_in_the_v1_files() {
    let d = tempfile::tempdir().unwrap();
    host(
        d.path(),
        "22 1 254:0 / / rw - ext4 /dev/vda rw\n\
         31 22 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n\
         32 22 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
        "4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n",
    );
    let cpu = "sys/fs/cgroup/cpu,cpuacct/docker/abc";
    w(d.path(), &format!("{cpu}/cpu.cfs_quota_us"), "50000\n");
    w(d.path(), &format!("{cpu}/cpu.cfs_period_us"), "100000\n");
    let mem = "sys/fs/cgroup/memory/docker/abc";
    w(
        d.path(),
        &format!("{mem}/memory.limit_in_bytes"),
        "9223372036854771712\n",
    );
    let text = run(d.path(), &["--fake-figures", "--only", "cpu,memory", "1"]);
    assert!(
        text.contains("Limited to 0.5 CPUs by the cgroup quota (cpu.cfs_quota_us 50000, cpu.cfs_period_us 100000)\n"),
        "{text}"
    );
    // v1's "unlimited" is no limit
    assert!(text.contains("Total    : 15921 MB\n"), "{text}");
}

#[test]
fn without_a_cgroup_nothing_changes() {
    let d = tempfile::tempdir().unwrap();
    host(d.path(), "22 1 254:0 / / rw - ext4 /dev/vda rw\n", "0::/\n");
    let text = run(d.path(), &["--fake-figures", "--only", "cpu,memory", "1"]);
    assert!(!text.contains("Limited"), "{text}");
    assert!(text.contains("Total    : 15921 MB\n"), "{text}");
}

/// stdout and stderr of the binary on a dump, with nothing else asked
/// (`--sysroot` implies `--dry-run`).
fn run_dump(root: &Path, args: &[&str]) -> (String, String) {
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .arg("--sysroot")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_dump_without_cgroup_files_says_nothing_about_cgroups() {
    let d = tempfile::tempdir().unwrap();
    host(d.path(), "", "");
    // No /proc/self at all (util-linux's dumps record none).
    fs::remove_dir_all(d.path().join("proc/self")).unwrap();
    let (plan, err) = run_dump(d.path(), &["--only", "cpu,memory"]);
    assert!(plan.contains("[ Plan ]"), "{plan}");
    assert!(!err.contains("cgroup"), "{err}");
    let (json, err) = run_dump(d.path(), &["--only", "cpu,memory", "--json"]);
    assert!(!err.contains("cgroup"), "{err}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["limits"]["notes"], serde_json::json!([]));
    assert_eq!(json["limits"]["version"], serde_json::Value::Null);
    // Its mount table names a cgroup2 tree, but which cgroup the dumped
    // process was in was not recorded.
    w(
        d.path(),
        "proc/self/mountinfo",
        "22 1 254:0 / / rw - ext4 /dev/vda rw\n30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
    );
    let (plan, err) = run_dump(d.path(), &["--only", "cpu,memory"]);
    assert!(!err.contains("cgroup"), "{err}");
    assert!(!plan.contains("Limits"), "{plan}");
}

#[test]
fn a_dumps_cpu_max_is_its_limit_in_the_plan_and_the_json() {
    let d = tempfile::tempdir().unwrap();
    host(
        d.path(),
        "22 1 254:0 / / rw - ext4 /dev/vda rw\n30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
        "0::/system.slice/db.service\n",
    );
    w(
        d.path(),
        "sys/fs/cgroup/system.slice/db.service/cpu.max",
        "50000 100000\n",
    );
    let (plan, err) = run_dump(d.path(), &["--only", "cpu,memory"]);
    assert!(!err.contains("cgroup"), "{err}");
    assert!(
        plan.contains("Limits    : 0.5 CPUs by the cgroup quota (cpu.max 50000 100000)\n"),
        "{plan}"
    );
    let (json, _) = run_dump(d.path(), &["--only", "cpu,memory", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let q = &json["limits"]["cpu_quota"];
    assert_eq!(q["quota_us"], 50_000);
    assert_eq!(q["period_us"], 100_000);
    assert_eq!(q["from_path"], "/system.slice/db.service");
    assert_eq!(q["dir"], "/sys/fs/cgroup/system.slice/db.service");
    assert_eq!(json["dry_run"], true);
}
