//! The whole text from header to memory, byte for byte, on a fixture
//! sysroot with deterministic stand-in figures (`--fake-figures`).

use std::fs;
use std::path::Path;

use assert_cmd::Command;

mod common_blockdev;

/// A small x86 host: 2 cores with SMT (4 CPUs), 2 vulnerability files
/// (the longest label sets the column), 16 GiB of memory.
fn x86_smt_host(root: &Path) {
    let w = |p: &str, c: &str| {
        let p = root.join(p);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, c).unwrap();
    };
    let mut cpuinfo = String::new();
    for (cpu, core) in [(0, 0), (1, 1), (2, 0), (3, 1)] {
        cpuinfo.push_str(&format!(
            "processor\t: {cpu}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 142\n\
             model name\t: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz\nstepping\t: 10\n\
             physical id\t: 0\nsiblings\t: 4\ncore id\t\t: {core}\ncpu cores\t: 2\n\
             flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep ht\nbogomips\t: 4199.88\n\n"
        ));
    }
    w("proc/cpuinfo", &cpuinfo);
    w(
        "proc/meminfo",
        "MemTotal:       16303216 kB\nMemFree:         9141000 kB\nMemAvailable:   12516404 kB\n",
    );
    w("proc/sys/kernel/ostype", "Linux\n");
    w("proc/sys/kernel/hostname", "fixture\n");
    w("proc/sys/kernel/osrelease", "6.1.0-26-amd64\n");
    w(
        "proc/sys/kernel/version",
        "#1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30)\n",
    );
    w("proc/sys/kernel/arch", "x86_64\n");
    let cpu = "sys/devices/system/cpu";
    for f in ["possible", "present", "online"] {
        w(&format!("{cpu}/{f}"), "0-3\n");
    }
    w(&format!("{cpu}/kernel_max"), "8191\n");
    for (n, thr) in [(0, "5"), (1, "a"), (2, "5"), (3, "a")] {
        w(
            &format!("{cpu}/cpu{n}/topology/thread_siblings"),
            &format!("{thr}\n"),
        );
        w(&format!("{cpu}/cpu{n}/topology/core_siblings"), "f\n");
    }
    w(
        &format!("{cpu}/vulnerabilities/spectre_v2"),
        "Mitigation; IBRS\n",
    );
    w(
        &format!("{cpu}/vulnerabilities/spec_store_bypass"),
        "Mitigation; Speculative Store Bypass disabled via prctl\n",
    );
}

#[test]
fn header_to_memory_is_byte_exact() {
    let d = tempfile::tempdir().unwrap();
    x86_smt_host(d.path());
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .args(["--sysroot"])
        .arg(d.path())
        .args(["--fake-figures", "--only", "cpuinfo,cpu,memory", "12"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let got = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<&str> = got.lines().collect();
    // The build line depends on the compiler and linkage: check its shape,
    // then compare the rest with the golden file.
    let build = lines[2];
    assert!(
        build.starts_with("Build     : rustc ")
            && build.contains(", x86_64-")
            && (build.ends_with(", dynamic") || build.ends_with(", static")),
        "{build}"
    );
    lines[2] = "Build     : <compiler>, <target>, <linkage>";
    let run = mask_date(lines[4]);
    lines[4] = &run;
    let got = lines.join("\n") + "\n";
    let want = fs::read_to_string("tests/golden/header-to-memory.txt")
        .unwrap()
        .replace("<version>", env!("CARGO_PKG_VERSION"));
    assert_eq!(got, want);
    assert!(out.stderr.is_empty() || !String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

/// The `Run` line with its date (the run's own clock) as `<date>`, after
/// checking its shape: `, YYYY-MM-DD HH:MM UTC` at the end.
fn mask_date(run: &str) -> String {
    assert!(run.starts_with("Run       : loop delay "), "{run}");
    let (head, date) = run.rsplit_once(", ").unwrap();
    let d = date.as_bytes();
    assert!(
        date.len() == 20
            && date.ends_with(" UTC")
            && d[4] == b'-'
            && d[10] == b' '
            && d[13] == b':',
        "{date}"
    );
    format!("{head}, <date>")
}

/// Runs the binary on a fixture sysroot with stand-in figures and returns
/// stdout with the build line (compiler, linkage) checked and masked.
fn run_masked(root: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .arg("--sysroot")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let got = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<&str> = got.lines().collect();
    assert!(lines[2].starts_with("Build     : rustc "), "{}", lines[2]);
    lines[2] = "Build     : <compiler>, <target>, <linkage>";
    let run = mask_date(lines[4]);
    lines[4] = &run;
    lines.join("\n") + "\n"
}

/// The golden file `name`; with `QB_BLESS=1` in the environment, `got`
/// is written there first (then review the diff by eye before committing).
fn golden(name: &str, got: &str) -> String {
    if std::env::var_os("QB_BLESS").is_some() {
        fs::write(
            format!("tests/golden/{name}"),
            got.replace(env!("CARGO_PKG_VERSION"), "<version>"),
        )
        .unwrap();
    }
    fs::read_to_string(format!("tests/golden/{name}"))
        .unwrap()
        .replace("<version>", env!("CARGO_PKG_VERSION"))
}

#[test]
fn whole_report_on_lvm_on_luks_on_md_is_byte_exact() {
    let fx = common_blockdev::Fx::new();
    common_blockdev::lvm_luks_md(&fx);
    x86_smt_host(fx.tmp.path());
    let got = run_masked(
        fx.tmp.path(),
        &["--fake-figures", "--dir", "/var/lib", "12"],
    );
    assert_eq!(got, golden("whole-report-lvm-luks-md.txt", &got));
}

#[test]
fn dry_run_plan_on_a_fixture_is_byte_exact() {
    let fx = common_blockdev::Fx::new();
    common_blockdev::lvm_luks_md(&fx);
    x86_smt_host(fx.tmp.path());
    let got = run_masked(fx.tmp.path(), &["--dir", "/var/lib", "30"]);
    assert_eq!(got, golden("dry-run-lvm-luks-md.txt", &got));
}

/// `--repeat 3` with one trial a delay (`--trials 1`) with the stand-in:
/// the standard layout, each step's line
/// its median trial (the stand-in's third run of each step, 1 % above the
/// first), the `Run` line saying the trials; and a JSON document holding
/// the three trials of every step, in a fixed order, that renders to the
/// same text.
#[test]
fn three_trials_of_the_whole_report_are_byte_exact() {
    let fx = common_blockdev::Fx::new();
    common_blockdev::lvm_luks_md(&fx);
    x86_smt_host(fx.tmp.path());
    let args = [
        "--fake-figures",
        "--dir",
        "/var/lib",
        "--repeat",
        "3",
        "--trials",
        "1",
        "12",
    ];
    let got = run_masked(fx.tmp.path(), &args);
    assert_eq!(got, golden("whole-report-lvm-luks-md-repeat3.txt", &got));
    // Line for line the layout of one trial: only the Run line and the
    // figures differ.
    let once = fs::read_to_string("tests/golden/whole-report-lvm-luks-md.txt")
        .unwrap()
        .replace("<version>", env!("CARGO_PKG_VERSION"));
    assert_eq!(got.lines().count(), once.lines().count());
    for (a, b) in got.lines().zip(once.lines()) {
        if a != b {
            let shape = |l: &str| l.replace(|c: char| c.is_ascii_digit(), "9");
            assert!(
                a.starts_with("Run ") || shape(a).len() == shape(b).len(),
                "{a}\n{b}"
            );
        }
    }

    let json = |extra: &[&str]| -> serde_json::Value {
        let out = Command::cargo_bin("quickbench")
            .unwrap()
            .arg("--sysroot")
            .arg(fx.tmp.path())
            .args(args)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let mut doc = json(&["--json"]);
    let mut again = json(&["--json"]);
    for d in [&mut doc, &mut again] {
        d["timestamp_utc"] = serde_json::Value::Null;
    }
    assert_eq!(doc, again, "the stand-in's trials are not deterministic");
    assert_eq!(doc["repeat"], 3);
    assert_eq!(doc["trial_order"]["seed"], 0x5eed);
    let cpu_rounds = doc["trial_order"]["cpu_loop"].as_array().unwrap();
    assert_eq!(cpu_rounds.len(), 3);
    let mut steps: Vec<(&serde_json::Value, &str)> = doc["cpu_loop"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s, "loops_per_s_mean"))
        .collect();
    steps.extend(
        doc["storage_bandwidth"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l, "iops")),
    );
    steps.push((&doc["memory"]["dd_bandwidth"], "bytes"));
    assert_eq!(steps.len(), 3 + 12 + 1);
    for (step, figure) in steps {
        let trials = step["trials"].as_array().unwrap();
        let rounds: Vec<u64> = trials
            .iter()
            .map(|t| t["round"].as_u64().unwrap())
            .collect();
        assert_eq!(rounds, [1, 2, 3], "{step:#}");
        // The stand-in's runs: 1, 1.02, 1.01 times the first; the median
        // is the third.
        assert_eq!(step["median_trial"], 2, "{step:#}");
        let values: Vec<f64> = trials.iter().map(|t| t[figure].as_f64().unwrap()).collect();
        assert!(values[0] < values[2] && values[2] < values[1], "{values:?}");
        // The step pools them: the stand-in's trials of a step all take
        // the same time, so the rate is their mean, the bytes their sum.
        let got = step[figure].as_f64().unwrap();
        let sum: f64 = values.iter().sum();
        let want = if figure == "bytes" { sum } else { sum / 3.0 };
        assert!((got - want).abs() <= want * 1e-12, "{got} against {want}");
    }
    // The document reads back and renders the text of the run.
    let read = quickbench::report::read::read_json("run.json", &doc.to_string()).unwrap();
    let text = quickbench::report::text::render(&read);
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "Build     : <compiler>, <target>, <linkage>";
    lines[4] = "Run       : loop delay 12 s × 3 trials, /var/lib (xfs on dm-1), date unknown";
    let masked = got.replace(", <date>", ", date unknown");
    assert_eq!(lines.join("\n") + "\n", masked);
}

/// By default a 12 s delay is 6 trials of every step: the text is the
/// one-block layout but for the `Run` line (the stand-in's median of 6 is
/// its first run's figure), and the JSON holds 6 trials of every step, each
/// of a sixth of the delay, in 6 shuffled rounds.
#[test]
fn a_default_report_carries_six_trials_a_step() {
    let fx = common_blockdev::Fx::new();
    common_blockdev::lvm_luks_md(&fx);
    x86_smt_host(fx.tmp.path());
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .arg("--sysroot")
        .arg(fx.tmp.path())
        .args(["--fake-figures", "--dir", "/var/lib", "--json", "12"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["trials_per_delay"], 6);
    assert!(doc.get("repeat").is_none(), "{doc}");
    assert_eq!(doc["trial_order"]["cpu_loop"].as_array().unwrap().len(), 6);
    for step in doc["cpu_loop"].as_array().unwrap() {
        let trials = step["trials"].as_array().unwrap();
        assert_eq!(trials.len(), 6);
        for t in trials {
            // a sixth of the 12 s delay each
            assert_eq!(t["elapsed_ns"], 2_000_000_000u64);
        }
    }
    for line in doc["storage_bandwidth"].as_array().unwrap() {
        assert_eq!(line["trials"].as_array().unwrap().len(), 6);
    }
    assert_eq!(
        doc["memory"]["dd_bandwidth"]["trials"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
}
