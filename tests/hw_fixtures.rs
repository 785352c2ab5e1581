//! Frequency scaling and thermal throttling on sysroot fixtures: this VM
//! has no cpufreq and no thermal counters, so each driver's tree is built
//! here as the kernel lays it out (file names and values as
//! Documentation/admin-guide/pm/{intel_pstate,amd-pstate,cpufreq}.rst and
//! the thermal_throttle sysfs of arch/x86 describe them): what the run
//! warns about, what it stores, and the marks a step earns when the
//! counters move between the sampler's two reads.

use std::fs;
use std::path::Path;
use std::process::Command;

use quickbench::conditions::{mark, Mark, MarkKind, Sampler, Step};
use quickbench::sysinfo::cgroup::CgroupLimits;
use quickbench::sysinfo::cpufreq::{read_cpufreq, Cpufreq, Finding};
use quickbench::Sysroot;

struct Tree(tempfile::TempDir);

impl Tree {
    fn new(cpus: u32) -> Self {
        let t = Tree(tempfile::tempdir().unwrap());
        let mut stat = String::from("cpu 0 0 0 0 0 0 0 0 0 0\n");
        for c in 0..cpus {
            stat.push_str(&format!("cpu{c} 100 0 100 800 0 0 0 0 0 0\n"));
        }
        t.file("proc/stat", &stat);
        t.file(
            "proc/self/stat",
            "1 (quickbench) R 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1\n",
        );
        t.file(
            "sys/devices/system/cpu/online",
            &format!("0-{}\n", cpus - 1),
        );
        t
    }
    fn file(&self, path: &str, content: &str) -> &Self {
        let p = self.0.path().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
        self
    }
    /// One policy's files under cpufreq/policyN.
    fn policy(&self, n: u32, files: &[(&str, &str)]) -> &Self {
        for (name, value) in files {
            self.file(
                &format!("sys/devices/system/cpu/cpufreq/policy{n}/{name}"),
                &format!("{value}\n"),
            );
        }
        self
    }
    fn root(&self) -> &Path {
        self.0.path()
    }
    fn sys(&self) -> Sysroot {
        Sysroot::new(self.root())
    }
    fn freq(&self) -> Cpufreq {
        read_cpufreq(&self.sys()).expect("a cpufreq tree")
    }
    fn findings(&self) -> Vec<Finding> {
        self.freq().findings(&self.sys())
    }
    fn full(&self, p: &str) -> String {
        self.root().join(p).display().to_string()
    }
}

/// intel_pstate in active mode on a 4-CPU laptop part, powersave and
/// turbo off: cpuinfo_max_freq is the turbo maximum, scaling_max_freq
/// follows no_turbo down to the base clock.
fn intel_pstate() -> Tree {
    let t = Tree::new(4);
    for n in 0..4 {
        let cpu = n.to_string();
        t.policy(
            n,
            &[
                ("affected_cpus", cpu.as_str()),
                ("scaling_driver", "intel_pstate"),
                ("scaling_governor", "powersave"),
                ("cpuinfo_min_freq", "400000"),
                ("cpuinfo_max_freq", "4200000"),
                ("scaling_min_freq", "400000"),
                ("scaling_max_freq", "4200000"),
                ("energy_performance_preference", "balance_power"),
            ],
        );
    }
    t.file("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n")
        .file("sys/devices/system/cpu/intel_pstate/status", "active\n");
    t
}

/// acpi-cpufreq on a 2-socket-era server: ondemand, boost off (the
/// global `cpufreq/boost`), one policy per CPU with time_in_state.
fn acpi_cpufreq() -> Tree {
    let t = Tree::new(2);
    for n in 0..2 {
        let cpu = n.to_string();
        t.policy(
            n,
            &[
                ("affected_cpus", cpu.as_str()),
                ("scaling_driver", "acpi-cpufreq"),
                ("scaling_governor", "ondemand"),
                ("cpuinfo_min_freq", "1200000"),
                ("cpuinfo_max_freq", "2601000"),
                ("scaling_min_freq", "1200000"),
                ("scaling_max_freq", "2601000"),
                (
                    "stats/time_in_state",
                    "2601000 1000\n2600000 200\n2000000 300\n1200000 5000",
                ),
            ],
        );
    }
    t.file("sys/devices/system/cpu/cpufreq/boost", "0\n");
    t
}

/// amd-pstate-epp (Linux 6.3+, active mode): performance governor and
/// EPP, but scaling_max_freq capped (a tuned profile) below the maximum.
fn amd_pstate_epp() -> Tree {
    let t = Tree::new(2);
    for n in 0..2 {
        let cpu = n.to_string();
        t.policy(
            n,
            &[
                ("affected_cpus", cpu.as_str()),
                ("scaling_driver", "amd-pstate-epp"),
                ("scaling_governor", "performance"),
                ("cpuinfo_min_freq", "400000"),
                ("cpuinfo_max_freq", "5759000"),
                ("scaling_min_freq", "400000"),
                ("scaling_max_freq", "3000000"),
                ("energy_performance_preference", "performance"),
                ("boost", "1"),
            ],
        );
    }
    t.file("sys/devices/system/cpu/amd_pstate/status", "active\n");
    t
}

/// An arm64 big.LITTLE board under cpufreq-dt: two policies (CPUs 0-3 and
/// 4-7), schedutil, nothing capped: quiet.
fn cpufreq_dt() -> Tree {
    let t = Tree::new(8);
    for (n, cpus, max) in [(0, "0 1 2 3", "1800000"), (4, "4 5 6 7", "2400000")] {
        t.policy(
            n,
            &[
                ("affected_cpus", cpus),
                ("scaling_driver", "cpufreq-dt"),
                ("scaling_governor", "schedutil"),
                ("cpuinfo_min_freq", "408000"),
                ("cpuinfo_max_freq", max),
                ("scaling_min_freq", "408000"),
                ("scaling_max_freq", max),
                ("stats/time_in_state", &format!("408000 100\n{max} 900")),
            ],
        );
    }
    t
}

#[test]
fn intel_pstate_powersave_with_turbo_off() {
    let t = intel_pstate();
    let f = t.freq();
    assert_eq!(f.policies.len(), 4);
    assert_eq!(f.policies[2].cpus, vec![2]);
    assert_eq!(f.policies[0].driver.as_deref(), Some("intel_pstate"));
    assert_eq!(
        f.policies[0].energy_performance_preference.as_deref(),
        Some("balance_power")
    );
    assert_eq!(f.intel_no_turbo, Some(true));
    assert_eq!(f.intel_pstate_status.as_deref(), Some("active"));
    let x = t.findings();
    assert_eq!(x.len(), 5, "{x:#?}");
    assert_eq!(
        x[0].path,
        t.full("sys/devices/system/cpu/cpufreq/policy0/scaling_governor")
    );
    assert_eq!(x[0].fix, "performance");
    assert!(x[0].what.contains("powersave"), "{x:?}");
    let turbo = x.last().unwrap();
    assert_eq!(
        turbo.path,
        t.full("sys/devices/system/cpu/intel_pstate/no_turbo")
    );
    assert_eq!(turbo.fix, "0");
}

#[test]
fn acpi_cpufreq_ondemand_with_boost_off() {
    let t = acpi_cpufreq();
    let f = t.freq();
    assert_eq!(f.boost, Some(false));
    let x = t.findings();
    let files: Vec<&str> = x
        .iter()
        .map(|f| f.path.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(files, ["scaling_governor", "scaling_governor", "boost"]);
    assert!(x[0].what.contains("ondemand"));
    assert_eq!(x[2].fix, "1");
    assert_eq!(x[2].path, t.full("sys/devices/system/cpu/cpufreq/boost"));
}

#[test]
fn amd_pstate_epp_capped_below_its_maximum() {
    let t = amd_pstate_epp();
    let f = t.freq();
    assert_eq!(f.policies[1].boost, Some(true));
    assert_eq!(f.amd_pstate_status.as_deref(), Some("active"));
    let x = t.findings();
    assert_eq!(x.len(), 2, "one cap per policy: {x:?}");
    assert_eq!(
        x[1].path,
        t.full("sys/devices/system/cpu/cpufreq/policy1/scaling_max_freq")
    );
    assert_eq!(x[1].fix, "5759000");
    assert!(
        x[1].what.contains("3000 MHz, below their 5759 MHz"),
        "{x:?}"
    );
    // Uncapped, the same tree is quiet.
    for n in 0..2 {
        t.policy(n, &[("scaling_max_freq", "5759000")]);
    }
    assert!(t.findings().is_empty());
}

#[test]
fn an_arm64_cpufreq_dt_board_is_quiet() {
    let t = cpufreq_dt();
    let f = t.freq();
    assert_eq!(f.policies.len(), 2);
    assert_eq!(f.policies[1].cpus, vec![4, 5, 6, 7]);
    assert_eq!(f.policies[0].cpuinfo_max_khz, Some(1_800_000));
    assert!(t.findings().is_empty());
    // Without cpufreq at all (this VM): nothing read, nothing said.
    assert_eq!(read_cpufreq(&Tree::new(2).sys()), None);
}

/// Before Linux 4.3: cpuN/cpufreq only, CPUs of one policy listed in
/// each (affected_cpus), no frequencies.
fn pre_4_3() -> Tree {
    let t = Tree::new(2);
    for c in 0..2 {
        for (name, v) in [
            ("affected_cpus", "0 1"),
            ("scaling_driver", "acpi-cpufreq"),
            ("scaling_governor", "conservative"),
        ] {
            t.file(
                &format!("sys/devices/system/cpu/cpu{c}/cpufreq/{name}"),
                &format!("{v}\n"),
            );
        }
    }
    t
}

#[test]
fn old_kernels_without_policy_directories() {
    // Read once, for both CPUs.
    let t = pre_4_3();
    let f = t.freq();
    assert_eq!(f.policies.len(), 1);
    assert_eq!(f.policies[0].cpus, vec![0, 1]);
    assert_eq!(t.findings().len(), 1);
}

/// Marks of a step sampled on `t`, with `between` run between the
/// sampler's two reads (the step itself).
fn step_marks(t: &Tree, step: Step, jobs: f64, between: impl FnOnce()) -> Vec<Mark> {
    let sys = t.sys();
    let cpus: Vec<u32> = (0..t.freq_or_cpus()).collect();
    let s = Sampler::start(&sys, &cpus, &CgroupLimits::default()).unwrap();
    between();
    // Time passes on every CPU (the step ran).
    let n = cpus.len();
    let mut stat = String::from("cpu 0 0 0 0 0 0 0 0 0 0\n");
    for c in 0..n {
        stat.push_str(&format!("cpu{c} 200 0 100 800 0 0 0 0 0 0\n"));
    }
    t.file("proc/stat", &stat);
    t.file(
        "proc/self/stat",
        &format!(
            "1 (quickbench) R 0 1 1 0 -1 0 0 0 0 0 {} 0 0 0 20 0 1 0 1 1 1\n",
            100 * n
        ),
    );
    mark::marks(step, Some(&s.finish(jobs).load), None)
}

impl Tree {
    /// The CPUs of its /proc/stat.
    fn freq_or_cpus(&self) -> u32 {
        fs::read_to_string(self.root().join("proc/stat"))
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("cpu") && !l.starts_with("cpu "))
            .count() as u32
    }
}

fn kinds(m: &[Mark]) -> Vec<MarkKind> {
    m.iter().map(Mark::kind).collect()
}

#[test]
fn thermal_counters_that_move_between_two_reads() {
    let t = Tree::new(2);
    let counters = |core: u32, pkg: u32| {
        for c in 0..2 {
            t.file(
                &format!("sys/devices/system/cpu/cpu{c}/thermal_throttle/core_throttle_count"),
                &format!("{core}\n"),
            );
            t.file(
                &format!("sys/devices/system/cpu/cpu{c}/thermal_throttle/package_throttle_count"),
                &format!("{pkg}\n"),
            );
        }
    };
    counters(3, 10);
    let m = step_marks(&t, Step::Cpu, 2.0, || counters(5, 10));
    assert_eq!(kinds(&m), [MarkKind::ThermalThrottled]);
    assert_eq!(m[0], Mark::ThermalThrottled { events: 4 });
    assert_eq!(m[0].text(), "thermal throttled");
    // Storage lines and memory steps carry it too.
    let m = step_marks(&t, Step::Storage, 1.0, || counters(5, 11));
    assert_eq!(kinds(&m), [MarkKind::ThermalThrottled]);
    // Counters that stay put: quiet.
    assert!(step_marks(&t, Step::Cpu, 2.0, || {}).is_empty());
}

#[test]
fn time_below_the_maximum_on_a_full_load_step() {
    let t = acpi_cpufreq();
    let tis = |top: u64, low: u64| {
        for n in 0..2 {
            t.policy(
                n,
                &[(
                    "stats/time_in_state",
                    &format!("2601000 {top}\n2600000 200\n2000000 300\n1200000 {low}"),
                )],
            );
        }
    };
    // During the step: 40 units at the top, 60 at 1.2 GHz, per policy.
    let m = step_marks(&t, Step::Cpu, 2.0, || tis(1040, 5060));
    assert_eq!(kinds(&m), [MarkKind::BelowMaxClock]);
    assert_eq!(m[0], Mark::BelowMaxClock { percent: 60.0 });
    assert_eq!(m[0].text(), "below max clock 60 % of the time");
    // A 1-job step on 2 CPUs leaves one idle, rightly clocked down.
    tis(1000, 5000);
    assert!(step_marks(&t, Step::Cpu, 1.0, || tis(1040, 5060)).is_empty());
    // At the top for 90 % of a full-load step: quiet.
    tis(1000, 5000);
    assert!(step_marks(&t, Step::Cpu, 2.0, || tis(1090, 5010)).is_empty());
    // Memory steps are not judged by it.
    tis(1000, 5000);
    assert!(step_marks(&t, Step::Memory, 2.0, || tis(1000, 5100)).is_empty());
}

#[test]
fn swapping_pages_between_two_reads() {
    let t = Tree::new(1);
    t.file("proc/vmstat", "pswpin 10\npswpout 20\npgmajfault 5\n");
    let m = step_marks(&t, Step::Memory, 1.0, || {
        t.file("proc/vmstat", "pswpin 110\npswpout 2020\npgmajfault 300\n");
    });
    assert_eq!(
        m,
        [Mark::Swapping {
            pages_in: 100,
            pages_out: 2000
        }]
    );
    assert_eq!(m[0].text(), "swapping: 100 pages in, 2000 out");
    // Not on a CPU step; not for a few pages.
    t.file("proc/vmstat", "pswpin 10\npswpout 20\npgmajfault 5\n");
    assert!(step_marks(&t, Step::Cpu, 1.0, || {
        t.file("proc/vmstat", "pswpin 110\npswpout 2020\n");
    })
    .is_empty());
    t.file("proc/vmstat", "pswpin 10\npswpout 20\npgmajfault 5\n");
    assert!(step_marks(&t, Step::Storage, 1.0, || {
        t.file("proc/vmstat", "pswpin 12\npswpout 30\n");
    })
    .is_empty());
}

fn quickbench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_quickbench"))
}

/// stderr and the JSON of `--dry-run` on tree `t`.
fn dry_run(t: &Tree) -> (String, serde_json::Value) {
    let out = quickbench()
        .args([
            "--dry-run",
            "--fake-figures",
            "--json",
            "--only",
            "cpuinfo",
            "--sysroot",
        ])
        .arg(t.root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    (err, json)
}

#[test]
fn a_dry_run_warns_naming_the_file_and_what_to_write() {
    let t = acpi_cpufreq();
    let (err, json) = dry_run(&t);
    let boost = t.full("sys/devices/system/cpu/cpufreq/boost");
    assert!(
        err.contains(&format!(
            "cpufreq: boost is off: the CPUs stay at their base clock; for steady full-speed figures, as root: echo 1 > {boost}"
        )),
        "{err}"
    );
    assert_eq!(err.matches("ondemand governor").count(), 2, "{err}");
    assert_eq!(json["cpufreq"]["boost"], false);
    assert_eq!(json["cpufreq"]["policies"][1]["governor"], "ondemand");

    let t = intel_pstate();
    let (err, json) = dry_run(&t);
    assert!(
        err.contains("echo 0 > ") && err.contains("intel_pstate/no_turbo"),
        "{err}"
    );
    assert_eq!(json["cpufreq"]["intel_no_turbo"], true);

    // Quiet fixtures: no cpufreq warning.
    for t in [cpufreq_dt(), Tree::new(2)] {
        let (err, _) = dry_run(&t);
        assert!(!err.contains("cpufreq"), "{err}");
    }
}

/// The `--dry-run` plan's `CPU freq` line, on each fixture.
fn plan_line(t: &Tree) -> Option<String> {
    let out = quickbench()
        .args([
            "--dry-run",
            "--fake-figures",
            "--only",
            "cpuinfo",
            "--sysroot",
        ])
        .arg(t.root())
        .output()
        .unwrap();
    // The fixtures have no /proc/cpuinfo: CPU info fails (exit 1), the
    // plan is still printed.
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find(|l| l.starts_with("CPU freq  : "))
        .map(str::to_string)
}

#[test]
fn the_plan_says_the_frequency_settings() {
    assert_eq!(
        plan_line(&acpi_cpufreq()).as_deref(),
        Some("CPU freq  : acpi-cpufreq ondemand 1200-2601 MHz on CPU(s) 0-1; boost off")
    );
    assert_eq!(
        plan_line(&intel_pstate()).as_deref(),
        Some("CPU freq  : intel_pstate powersave 400-4200 MHz, EPP balance_power on CPU(s) 0-3; turbo off")
    );
    assert_eq!(
        plan_line(&amd_pstate_epp()).as_deref(),
        Some("CPU freq  : amd-pstate-epp performance 400-3000 MHz (of 5759), EPP performance on CPU(s) 0-1")
    );
    assert_eq!(
        plan_line(&cpufreq_dt()).as_deref(),
        Some("CPU freq  : cpufreq-dt schedutil 408-1800 MHz on CPU(s) 0-3; cpufreq-dt schedutil 408-2400 MHz on CPU(s) 4-7")
    );
    assert_eq!(plan_line(&Tree::new(2)), None, "no cpufreq, no line");
    // The plan reads back, from text and from JSON.
    let t = acpi_cpufreq();
    for json in [false, true] {
        let mut c = quickbench();
        c.args([
            "--dry-run",
            "--fake-figures",
            "--only",
            "cpuinfo",
            "--sysroot",
        ])
        .arg(t.root());
        let text = String::from_utf8(c.output().unwrap().stdout).unwrap();
        if json {
            c.arg("--json");
            let doc = String::from_utf8(c.output().unwrap().stdout).unwrap();
            let r = quickbench::report::read::read_report("dry.json", &doc).unwrap();
            // Two runs: their Run lines' minute may differ.
            let but_run = |t: &str| {
                t.lines()
                    .filter(|l| !l.starts_with("Run       :"))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            assert_eq!(
                but_run(&quickbench::report::text::render(&r)),
                but_run(&text)
            );
        } else {
            let r = quickbench::report::read::read_text("dry.txt", &text).unwrap();
            assert_eq!(quickbench::report::text::render(&r), text);
        }
    }
}

/// A report of a `-x` run on the host of `t`: its cpufreq settings, two
/// CPU loop steps whose measured clocks put `slow` (a CPU at 3000 MHz
/// after the 2-job step, 3600 before) among CPUs at 3600.
fn extended_report(t: &Tree, cpus: u32, slow: Option<u32>) -> quickbench::model::Report {
    use quickbench::conditions::{Measured, ProbedClock};
    use quickbench::cpu_loop::mhz::{ClockProbe, CpuMhz, ProbeStatus};
    use quickbench::cpu_loop::smt::{SmtContention, SmtPlan};
    use quickbench::cpu_loop::LoopStep;
    use quickbench::model::{Extended, Report, Section};
    let probe = |slow: Option<u32>| ClockProbe {
        cpus: (0..cpus)
            .map(|cpu| {
                let mhz = if Some(cpu) == slow { 3000.0 } else { 3600.0 };
                CpuMhz {
                    cpu,
                    add_chain_mhz: mhz,
                    imul_chain_mhz: mhz,
                    mhz: Some(mhz),
                }
            })
            .collect(),
        status: ProbeStatus::Measured,
        elapsed_ns: 50_000_000,
    };
    let mut r = Report::new("Linux h 6.1.0 #1 SMP x86_64 GNU/Linux".into(), "h".into());
    r.sections = vec![Section::Cpu];
    r.cpufreq = read_cpufreq(&t.sys());
    for (jobs, slow) in [(1, None), (2, slow)] {
        let mut step: quickbench::model::CpuTrial = Measured::plain(LoopStep {
            jobs,
            loops_per_s_each: vec![1e8; jobs as usize],
            loops_per_s_mean: 1e8,
            elapsed_ns: 1_000_000_000,
            samples: Default::default(),
            end: quickbench::end::End::Complete,
        });
        step.conditions.probe = Some(ProbedClock {
            cold: probe(None),
            hot: probe(slow),
        });
        r.cpu_loop.push(step.into());
    }
    r.extended = Some(Extended {
        smt_contention: Some(SmtContention {
            plan: SmtPlan::NoSiblings,
            siblings_loops_per_s_each: None,
            separate_loops_per_s_each: None,
            ratio: None,
            cut_short: false,
            samples: Default::default(),
        }),
        ..Extended::default()
    });
    r
}

/// The `[ Extended: CPU ]` lines of a text report.
fn extended_cpu(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| *l != "[ Extended: CPU ]")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect()
}

#[test]
fn x_says_the_frequency_settings_and_the_cpus_that_differ_and_reads_them_back() {
    use quickbench::report::read::read_text;
    use quickbench::report::text::render;
    let cases = [
        (acpi_cpufreq(), 2, Some("CPU freq  : acpi-cpufreq ondemand 1200-2601 MHz on CPU(s) 0-1; boost off")),
        (intel_pstate(), 4, Some("CPU freq  : intel_pstate powersave 400-4200 MHz, EPP balance_power on CPU(s) 0-3; turbo off")),
        (amd_pstate_epp(), 2, Some("CPU freq  : amd-pstate-epp performance 400-3000 MHz (of 5759), EPP performance on CPU(s) 0-1")),
        (cpufreq_dt(), 8, Some("CPU freq  : cpufreq-dt schedutil 408-1800 MHz on CPU(s) 0-3; cpufreq-dt schedutil 408-2400 MHz on CPU(s) 4-7")),
        (pre_4_3(), 2, Some("CPU freq  : acpi-cpufreq conservative ?-? MHz on CPU(s) 0-1")),
        // No cpufreq (a VM): no line.
        (Tree::new(2), 2, None),
    ];
    for (t, cpus, want) in cases {
        // All CPUs agree: only the Clock line.
        let r = extended_report(&t, cpus, None);
        let text = render(&r);
        let lines = extended_cpu(&text);
        assert_eq!(
            lines.iter().find(|l| l.starts_with("CPU freq")).copied(),
            want,
            "{text}"
        );
        assert!(!text.contains("differ"), "{text}");
        let read = read_text("x.txt", &text).unwrap();
        assert_eq!(render(&read), text);
        assert!(!read.extended.as_ref().unwrap().kept_as_text, "{text}");
        assert_eq!(
            read.cpufreq.as_ref().and_then(|f| f.settings()),
            r.cpufreq.as_ref().and_then(|f| f.settings())
        );

        // CPU 1 slow after the 2-job step.
        let r = extended_report(&t, cpus, Some(1));
        let text = render(&r);
        let read = read_text("x.txt", &text).unwrap();
        assert_eq!(render(&read), text);
        assert!(!read.extended.as_ref().unwrap().kept_as_text, "{text}");
        let probe = |r: &quickbench::model::Report| r.cpu_loop[1].conditions.probe.clone().unwrap();
        let odd = quickbench::report::extended::odd_cpus(&probe(&read));
        assert_eq!(odd, quickbench::report::extended::odd_cpus(&probe(&r)));
        assert!(
            odd.iter().any(|c| c.cpu == 1 && c.hot_mhz == Some(3000.0)),
            "{odd:?}"
        );
        assert_eq!(probe(&read).hot.cpus.len(), cpus as usize);
        assert_eq!(
            probe(&read).hot.mean_mhz().map(f64::round),
            probe(&r).hot.mean_mhz().map(f64::round)
        );
    }
    // Eight CPUs: the slow one alone differs, on one line; the means
    // are (7 x 3600 + 3000) / 8 = 3525.
    let text = render(&extended_report(&cpufreq_dt(), 8, Some(1)));
    assert_eq!(
        extended_cpu(&text)[2..5],
        [
            "Clock     : measured before the CPU loop 3600 MHz, after each step 3600 3525 MHz",
            "            after 2 jobs, 1 of 8 CPUs differ (hot/cold MHz): cpu1 3000/3600",
            "CPU freq  : cpufreq-dt schedutil 408-1800 MHz on CPU(s) 0-3; cpufreq-dt schedutil 408-2400 MHz on CPU(s) 4-7",
        ],
        "{text}"
    );
}

#[test]
fn older_x_reports_without_the_new_lines_still_read() {
    use quickbench::report::read::read_text;
    use quickbench::report::text::render;
    // A report of before these lines: the Clock line's means only, no
    // CPU freq line. Here the means are 3600 and 3300 after the 2-job
    // step, which the lines of today would explain CPU by CPU: the
    // section is then kept as it was, its figures read.
    let text: String = render(&extended_report(&acpi_cpufreq(), 2, Some(1)))
        .lines()
        .filter(|l| !l.starts_with("            after ") && !l.starts_with("            cpu"))
        .filter(|l| !l.starts_with("CPU freq  : "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(text.contains("after each step 3600 3300 MHz\n"), "{text}");
    let read = read_text("old.txt", &text).unwrap();
    assert_eq!(render(&read), text);
    assert!(read.extended.as_ref().unwrap().kept_as_text);
    let mean = |i: usize| {
        let p = read.cpu_loop[i].conditions.probe.as_ref().unwrap();
        (p.cold.mean_mhz(), p.hot.mean_mhz())
    };
    assert_eq!(mean(1), (Some(3600.0), Some(3300.0)));
    assert_eq!(read.cpufreq, None);
    // Where the means agree, the older section reads into figures.
    let text = render(&extended_report(&Tree::new(2), 2, None));
    let read = read_text("old.txt", &text).unwrap();
    assert_eq!(render(&read), text);
    assert!(!read.extended.as_ref().unwrap().kept_as_text);
}

#[test]
fn two_x_text_reports_compare() {
    use quickbench::compare::{compare, Input};
    use quickbench::report::read::read_text;
    use quickbench::report::text::render;
    let a = render(&extended_report(&acpi_cpufreq(), 2, None));
    let b = render(&extended_report(&intel_pstate(), 4, Some(3)));
    let inputs: Vec<Input> = [("a.txt", &a), ("b.txt", &b)]
        .into_iter()
        .map(|(file, text)| Input::new(file, read_text(file, text).unwrap()))
        .collect();
    let c = compare(&inputs);
    assert!(c.missing.is_empty(), "{:?}", c.missing);
    assert!(
        c.rows.iter().any(|r| r.label.contains("jobs")),
        "{:?}",
        c.rows.iter().map(|r| &r.label).collect::<Vec<_>>()
    );
}
