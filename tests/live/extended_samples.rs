//! `-x` says how steady each CPU loop step, the memory bandwidth and each
//! storage line was (`± N %`, from the step's samples), in the extended
//! sections only; the JSON carries the samples; the text reads back.

use assert_cmd::Command;
use quickbench::report::read::read_text;
use quickbench::report::text::render;
use regex::Regex;

fn quickbench(args: &[&str]) -> String {
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The lines of section `title`.
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| *l != format!("[ {title} ]"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect()
}

#[test]
fn cpu_steps_say_their_spread_under_x_only() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let text = quickbench(&["0.5", "-q", "-x", "--only", "cpu"]);
    // 0.5 s steps: ten samples of 50 ms (more when the jobs stop late)
    let spread = Regex::new(
        r"^[ \d]\d // jobs : steal .* MHz.*   rate ± [ \d]{2,3}\.\d % \((\d+) x 50 ms\)",
    )
    .unwrap();
    let ext = section(&text, "Extended: CPU");
    // the steps' lines (not their `Core` lines)
    let steps: Vec<_> = ext.iter().filter(|l| l.contains("// jobs :")).collect();
    assert!(!steps.is_empty(), "{text}");
    for l in steps {
        let n: u32 = match spread.captures(l) {
            Some(c) => c[1].parse().unwrap(),
            None => panic!("{l:?}"),
        };
        assert!((10..=20).contains(&n), "{l:?}");
    }
    // the standard section keeps the original's layout
    for l in section(&text, "CPU loop") {
        assert!(!l.contains('±'), "{l:?}");
    }
    assert_eq!(render(&read_text("x.txt", &text).unwrap()), text);
}

#[test]
fn storage_lines_say_their_spread() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let text = quickbench(&[
        "0.5",
        "-q",
        "-x",
        "--only",
        "storage,io",
        "--io-jobs",
        "1",
        "--max-size",
        "64M",
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    if text.contains("Skipped:") {
        eprintln!("storage lines skipped here: {text}");
        return;
    }
    let re = Regex::new(
        r"^(4k|1M) (Writes|Reads ) \( 1 thread\[s\]\): p50 .* µs  \| IO/s ± [ \d]{2,3}\.\d % \(\d+ x 50 ms\)  \| ",
    )
    .unwrap();
    let lines: Vec<_> = section(&text, "Extended: Storage")
        .into_iter()
        .filter(|l| l.contains("thread[s]"))
        .collect();
    assert_eq!(lines.len(), 4, "{text}");
    for l in lines {
        assert!(re.is_match(l), "{l:?}");
    }
    for title in [
        "Storage bandwidth - 4k blocks",
        "Storage bandwidth - 1M blocks",
    ] {
        let std: Vec<_> = text
            .lines()
            .skip_while(|l| !l.starts_with(&format!("[ {title}")))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert_eq!(std.len(), 2, "{text}");
        assert!(std.iter().all(|l| !l.contains('±')), "{std:?}");
    }
    assert_eq!(render(&read_text("x.txt", &text).unwrap()), text);
}

/// The memory bandwidth's line is in the DRAM section, whose live run is
/// slow in a debug build: its shape is checked on the stand-in's fixed
/// samples (the live samples in the JSON test below).
#[test]
fn the_memory_bandwidth_says_its_spread() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let text = quickbench(&["--fake-figures", "12", "-q", "-x", "--only", "memory"]);
    assert_eq!(
        section(&text, "Extended: Memory (DRAM, STREAM-like)")[0],
        "Bandwidth : during the dd-like step, rate ±  1.0 % (60 x 200 ms)"
    );
    assert_eq!(section(&text, "Memory")[1], "Bandwidth: 31.1 GB/s");
    assert_eq!(render(&read_text("x.txt", &text).unwrap()), text);
}

#[test]
fn the_json_carries_each_steps_samples_near_its_figure() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let text = quickbench(&["0.5", "-q", "--json", "--only", "cpu,memory"]);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut figures = Vec::new();
    for step in doc["cpu_loop"].as_array().unwrap() {
        figures.push((step.clone(), step["loops_per_s_mean"].as_f64().unwrap()));
    }
    let bw = &doc["memory"]["dd_bandwidth"];
    figures.push((
        bw.clone(),
        doc["memory"]["dd_bandwidth_bytes_per_s"].as_f64().unwrap(),
    ));
    for (step, figure) in figures {
        assert_eq!(step["sample_interval_ns"], 50_000_000, "{step:#}");
        let samples = step["samples"].as_array().unwrap();
        assert!(samples.len() >= 5, "{step:#}");
        let s = &step["sample_summary"];
        assert_eq!(s["n"].as_u64().unwrap() as usize, samples.len());
        let mean = s["mean"].as_f64().unwrap();
        assert!(
            (0.8..=1.2).contains(&(mean / figure)),
            "{mean} vs {figure}: {step:#}"
        );
        let (lo, hi) = (
            s["ci95_lo"].as_f64().unwrap(),
            s["ci95_hi"].as_f64().unwrap(),
        );
        assert!(lo <= hi, "{step:#}");
    }
}

#[test]
fn sampling_off_leaves_the_figures_and_no_samples() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .env("QB_NO_SAMPLES", "1")
        .args(["0.2", "-q", "--json", "--only", "cpu,memory"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let step = &doc["cpu_loop"][0];
    assert!(step["loops_per_s_mean"].as_f64().unwrap() > 0.0);
    assert_eq!(step["samples"], serde_json::json!([]));
    assert!(step["sample_summary"].is_null());
    assert_eq!(
        doc["memory"]["dd_bandwidth"]["samples"],
        serde_json::json!([])
    );
}

/// Removes every samples key, as in a report written before they existed.
fn strip_samples(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for k in [
                "samples",
                "sample_interval_ns",
                "sample_summary",
                "copy_samples",
                "triad_samples",
            ] {
                m.remove(k);
            }
            m.values_mut().for_each(strip_samples);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_samples),
        _ => {}
    }
}

#[test]
fn a_report_written_before_samples_still_reads() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let args = ["--fake-figures", "12", "-q", "--dir", "/var/tmp"];
    let text = quickbench(&args);
    let json = quickbench(&[&args[..], &["--json"]].concat());
    let mut old: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(json.contains("\"sample_summary\""));
    strip_samples(&mut old);
    let old = old.to_string();
    assert!(!old.contains("sample"));
    let r =
        quickbench::report::read::read_report("old.json", &old).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.cpu_loop.iter().all(|s| s.samples.is_empty()));
    // the standard report does not depend on the samples
    assert_eq!(render(&r), text);
}
