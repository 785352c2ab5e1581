//! The real binary on this machine with a short loop delay: every line of
//! the header, CPU info, CPU loop and memory sections checked by layout.

use assert_cmd::Command;
use regex::Regex;

#[test]
fn cpuinfo_cpu_memory_sections_have_the_seed_layout() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .args(["0.2", "--only", "cpuinfo,cpu,memory", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let patterns: &[(&str, &str)] = &[
        (
            "header",
            r"^Quickbench: \d+\.\d+\.\d+ \(Rust port of Bearstech's Quickbench 1\.0\)$",
        ),
        ("header", r"^Kernel    : \S+ \S+ \S+ .+ \S+ GNU/Linux$"),
        (
            "header",
            r"^Build     : rustc \d+\.\d+\.\d+.*, [a-z0-9_]+-[a-z0-9_-]+, (static|dynamic)$",
        ),
        (
            "header",
            r"^CPU loop  : loop v\d+ \(.+\), not comparable with the bash original's figures$",
        ),
        (
            "header",
            r"^Run       : loop delay [0-9.]+ s, /\S*.*, \d{4}-\d\d-\d\d \d\d:\d\d UTC$",
        ),
        ("blank", r"^$"),
        ("title", r"^\[ CPU info \]$"),
    ];
    let lines: Vec<&str> = text.lines().collect();
    for (i, (what, pat)) in patterns.iter().enumerate() {
        assert!(
            Regex::new(pat).unwrap().is_match(lines[i]),
            "{what} line {i}: {:?}",
            lines[i]
        );
    }
    let info = Regex::new(r"^(Model name|BIOS Model name|Thread\(s\) per core|Core\(s\) per (socket|cluster)|Socket\(s\)( per book)?):\s+\S").unwrap();
    let mut i = patterns.len();
    let mut n_info = 0;
    while !lines[i].is_empty() {
        assert!(info.is_match(lines[i]), "CPU info line {:?}", lines[i]);
        n_info += 1;
        i += 1;
    }
    assert!(n_info >= 4, "{text}");
    i += 1;
    assert_eq!(lines[i], "[ CPU loop ]");
    i += 1;
    // the original's layout, then the marks of what distorted the step
    let loop_line =
        Regex::new(r"^( \d|\d\d) // jobs : [ \d]{10} loop/job/s( \([^()]*\))*$").unwrap();
    let mut jobs = Vec::new();
    while !lines[i].is_empty() {
        assert!(loop_line.is_match(lines[i]), "{:?}", lines[i]);
        let rate: u64 = lines[i][13..23].trim().parse().unwrap();
        assert!(rate > 1_000_000, "implausible loop rate: {}", lines[i]);
        jobs.push(lines[i][..2].trim().parse::<u32>().unwrap());
        i += 1;
    }
    assert_eq!(jobs[0], 1);
    assert!(jobs.windows(2).all(|w| w[1] == 2 * w[0]), "{jobs:?}");
    i += 1;
    assert_eq!(lines[i], "[ Memory ]");
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let kib: u64 = meminfo
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(lines[i + 1], format!("Total    : {} MB", kib >> 10));
    let bw = Regex::new(r"^Bandwidth: (\d{1,2}\.\d|\d{3,4}) [kMGTP]B/s$").unwrap();
    assert!(bw.is_match(lines[i + 2]), "{:?}", lines[i + 2]);
    assert_eq!(lines.len(), i + 3, "{text}");
}
