//! `quickbench compare`: two reports side by side, a fleet table, and
//! errors by file and line.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common_reports;
use common_reports::{quickbench, stand_in};

fn compare_json(files: &[&Path]) -> Value {
    let out = quickbench()
        .arg("compare")
        .arg("--json")
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn compare_text(files: &[&Path], env: &[(&str, &str)]) -> String {
    let mut c = quickbench();
    c.arg("compare").args(files);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn verdict(row: &Value, n: usize) -> &str {
    row["verdicts"][n]["verdict"].as_str().unwrap()
}

#[test]
fn our_text_and_our_json_of_one_run_compare_equal() {
    let d = tempfile::tempdir().unwrap();
    let (txt, json) = stand_in(d.path(), "vm");
    let c = compare_json(&[&txt, &json]);
    let rows = c["rows"].as_array().unwrap();
    assert!(rows.len() > 40, "{c:#}");
    for r in rows {
        match r["kind"].as_str().unwrap() {
            "figure" => {
                assert_eq!(verdict(r, 1), "equal", "{r}");
                let ratio = r["ratios"][1].as_f64().unwrap();
                assert!((ratio - 1.0).abs() < 1e-6, "{r}");
            }
            _ => assert_eq!(verdict(r, 1), "same", "{r}"),
        }
    }
    assert!(c["missing"].as_array().unwrap().is_empty(), "{c:#}");
    assert!(c["warnings"].as_array().unwrap().is_empty(), "{c:#}");
    assert!(c["table"].is_null());
}

/// The bash original's report on a 2-vCPU KVM guest (loop delay 2).
const BASH: &str = "Quickbench: 1.0
Kernel    : Linux vm 6.18.44 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux
Bash      : GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)
dd        : dd (coreutils) 9.1

[ CPU info ]
Model name:                              AMD EPYC
Thread(s) per core:                      1
Core(s) per socket:                      2
Socket(s):                               1

[ CPU loop ]
 1 // jobs :     374339 loop/job/s
 2 // jobs :     370382 loop/job/s

[ Memory ]
Total    : 24105 MB
Bandwidth: 30.9 GB/s

[ Storage info ]
Name      Bus     Size(GB)  QDepth  Model
vda       virtio      256        ?  ?
grep: /sys/block/*/*/dev: No such file or directory

[ Storage bandwidth - 4k blocks (vda) ]
Writes ( 1 thread[s]):     66 MB/s   16256 IO/s       0 µs avg. lat.
Writes ( 4 thread[s]):    115 MB/s   28091 IO/s       0 µs avg. lat. (interrupted)
";

#[test]
fn ours_against_the_bash_original_says_what_does_not_compare() {
    let d = tempfile::tempdir().unwrap();
    let bash = d.path().join("bash.txt");
    fs::write(&bash, BASH).unwrap();
    let (_, json) = stand_in(d.path(), "vm");
    let c = compare_json(&[&bash, &json]);
    let row = |label: &str| -> Value {
        c["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == label)
            .unwrap_or_else(|| panic!("no row {label}"))
            .clone()
    };
    let cpu = row(" 1 // jobs");
    assert_eq!(verdict(&cpu, 1), "not_comparable");
    assert!(cpu["verdicts"][1]["why"]
        .as_str()
        .unwrap()
        .contains("bash loop"));
    assert!(cpu["ratios"][1].is_null());
    let lat = row("Writes ( 1 thread[s]) µs avg. lat.");
    assert!(lat["verdicts"][1]["why"]
        .as_str()
        .unwrap()
        .contains("not a latency"));
    let iops = row("Writes ( 1 thread[s]) IO/s");
    assert_eq!(iops["values"][0], 16256.0);
    assert!((iops["ratios"][1].as_f64().unwrap() - 25000.0 / 16256.0).abs() < 1e-9);
    assert_eq!(verdict(&iops, 1), "better");
    // an interrupted line in either report: no ratio, and the line says so
    let cut = row("Writes ( 4 thread[s]) MB/s");
    assert!(cut["verdicts"][1]["why"]
        .as_str()
        .unwrap()
        .contains("interrupted"));
    let bw = row("Bandwidth");
    assert_eq!(verdict(&bw, 1), "equal");
    // missing lines are listed, not dropped
    let missing: Vec<&str> = c["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(
        missing
            .iter()
            .any(|m| m.contains("Reads  (16 thread[s]) IO/s")),
        "{missing:?}"
    );
    let w = c["warnings"].to_string();
    assert!(
        w.contains("loop delays differ") && w.contains("bash original"),
        "{w}"
    );
    // the text says the same on the lines
    let text = compare_text(&[&bash, &json], &[("COLUMNS", "200")]);
    assert!(
        text.contains("not comparable: bash loop against loop v1"),
        "{text}"
    );
    // the warnings go to stderr, the comparison alone to stdout
    assert!(!text.contains("warning:"), "{text}");
    let out = quickbench()
        .args(["compare"])
        .args([&bash, &json])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: loop delays differ"), "{err}");
}

/// The example of the original's README as pasted through a web page.
const PASTED: &str = "Example usage :
$ ./quickbench
Quickbench: 1.0
Kernel : Linux ovhb2 6.1.0-26-cloud-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30) x86_64 GNU/Linux
Bash : GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)
dd : dd (coreutils) 9.1
[ CPU info ]
Model name: Intel Core Processor (Haswell, no TSX)
Thread(s) per core: 1
Core(s) per socket: 1
Socket(s): 4
[ CPU loop ]
1 // jobs : 478140 loop/job/s
[ Memory ]
Total : 14641 MB
Bandwidth: 22.0 GB/s
[ Storage info ]
Name Bus Size(GB) QDepth Model
sda scsi 100 128 QEMU HARDDISK
[ Storage bandwidth - 1M blocks (sda) ]
Writes ( 1 thread[s]): 1450 MB/s 1384 IO/s 0 µs avg. lat.
The script accepts only 1 parameter which is the loop delay.
";

#[test]
fn the_pasted_readme_example_compares_with_ours() {
    let d = tempfile::tempdir().unwrap();
    let pasted = d.path().join("readme.txt");
    fs::write(&pasted, PASTED).unwrap();
    let (txt, _) = stand_in(d.path(), "vm");
    let c = compare_json(&[&pasted, &txt]);
    let names: Vec<&str> = c["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ovhb2", "vm"]);
    let bw = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"] == "Bandwidth")
        .unwrap();
    assert_eq!(verdict(bw, 1), "better");
    let mb = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["label"] == "Writes ( 1 thread[s]) MB/s"
                && r["section"] == "Storage bandwidth - 1M blocks"
        })
        .unwrap();
    assert_eq!(mb["values"][0], 1450.0);
}

/// Five stand-in hosts, one with a slow 4k 1-job write.
fn fleet(d: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (i, host) in ["n1", "n2", "n3", "n4", "n5"].iter().enumerate() {
        let (_, json) = stand_in(d, host);
        if i == 3 {
            let mut v: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
            let line = &mut v["storage_bandwidth"][0];
            assert_eq!(line["jobs"], 1);
            line["iops"] = Value::from(12_500.0);
            fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
        }
        files.push(json);
    }
    files
}

/// The index of the fleet table's column `name`.
fn column(t: &Value, name: &str) -> usize {
    t["columns"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["name"] == name)
        .unwrap()
}

#[test]
fn a_five_host_fleet_table_marks_the_outlier() {
    let d = tempfile::tempdir().unwrap();
    let files = fleet(d.path());
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let c = compare_json(&refs);
    let t = &c["table"];
    let col = column(t, "4k W 1j");
    assert_eq!(t["median"][col], 25_000.0);
    for (i, row) in t["rows"].as_array().unwrap().iter().enumerate() {
        assert_eq!(row["outlier"][col], i == 3, "{row}");
        assert_eq!(row["values"][col], if i == 3 { 12_500.0 } else { 25_000.0 });
    }
    // the table form, forced or for lack of width, marks it with *
    let table = compare_text(&refs, &[("COLUMNS", "300")]);
    assert!(
        !table.contains("\nmedian "),
        "300 columns fit one column each:\n{table}"
    );
    assert!(table.contains("[ CPU loop ]"), "{table}");
    let narrow = compare_text(&refs, &[("COLUMNS", "60")]);
    assert!(narrow.contains("median"), "{narrow}");
    let n4 = narrow.lines().find(|l| l.starts_with("n4 ")).unwrap();
    assert!(n4.contains("12500*"), "{n4}");
    let n1 = narrow.lines().find(|l| l.starts_with("n1 ")).unwrap();
    assert!(!n1.contains('*'), "{n1}");
    let mut forced = quickbench();
    let out = forced
        .args(["compare", "--table"])
        .args(&refs)
        .env("COLUMNS", "300")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("median"));
    // never colour when stdout is not a terminal
    assert!(!narrow.contains('\x1b'));
    // the unit row says the unit the cells are in, the legend only the
    // table's own marks
    let mut lines = narrow.lines().skip_while(|l| !l.starts_with("report "));
    let (names, units) = (lines.next().unwrap(), lines.next().unwrap());
    let at = names.find("Memory").unwrap() + "Memory".len();
    assert_eq!(
        units[..at].split_whitespace().last(),
        Some("GB/s"),
        "{narrow}"
    );
    assert!(!n1.contains("GB/s"), "the unit is in the header: {n1}");
    assert!(!narrow.contains("B/A"), "{narrow}");
    assert!(narrow.contains("* an outlier: "), "{narrow}");
    // columns past the width go to a next block, led by the names again
    let table: Vec<&str> = narrow
        .lines()
        .skip_while(|l| !l.starts_with("report "))
        .collect();
    assert!(table.iter().all(|l| l.chars().count() <= 60), "{narrow}");
    assert!(
        table.iter().filter(|l| l.starts_with("report ")).count() > 1,
        "{narrow}"
    );
    assert_eq!(
        table.iter().filter(|l| l.starts_with("n4 ")).count(),
        table.iter().filter(|l| l.starts_with("report ")).count()
    );
}

/// Two runs of one host, figures 2 % apart: every figure reads "no
/// difference found" (or ≈), with the runs a side a ±5 % answer needs,
/// and every line fits the terminal's width.
#[test]
fn close_figures_read_no_difference_found_within_the_width() {
    let d = tempfile::tempdir().unwrap();
    synthetic(d.path(), "alpha", "a.json", 1.0, 0.02, 1);
    synthetic(d.path(), "alpha", "b.json", 1.0, 0.02, 2);
    for cols in [80, 120] {
        let out = quickbench()
            .current_dir(d.path())
            .args(["compare", "a.json", "b.json"])
            .env("COLUMNS", cols.to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        for l in text.lines() {
            assert!(l.chars().count() <= cols, "{cols} columns: {l}\n{text}");
        }
        let mut lines = text.lines().skip_while(|l| !l.starts_with(" 1 // jobs"));
        let (line, hint) = (lines.next().unwrap(), lines.next().unwrap());
        assert!(line.ends_with("no difference found"), "{text}");
        assert!(
            hint.trim_start().starts_with("x1.0") || hint.trim_start().starts_with("x0.9"),
            "{hint}"
        );
        assert!(
            hint.contains("% needs ") && hint.ends_with(" runs a side"),
            "{hint}"
        );
        assert!(
            !text.contains("more than 30 runs a side would decide"),
            "{text}"
        );
        // the legend says it in one sentence, within the width
        assert!(text.contains("\"no difference found\" when"), "{text}");
    }
}

#[test]
fn a_fleet_figure_marked_other_io_is_not_comparable_nor_an_outlier() {
    let d = tempfile::tempdir().unwrap();
    let files = fleet(d.path());
    // n4's slow 4k 1-job write ran beside another workload on its disk
    let mut v: Value = serde_json::from_slice(&fs::read(&files[3]).unwrap()).unwrap();
    v["storage_bandwidth"][0]["marks"] =
        serde_json::json!([{"kind": "other_io", "device": "vda", "percent": 40.0}]);
    fs::write(&files[3], serde_json::to_vec(&v).unwrap()).unwrap();
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let c = compare_json(&refs);
    let t = &c["table"];
    let col = column(t, "4k W 1j");
    for (i, row) in t["rows"].as_array().unwrap().iter().enumerate() {
        assert_eq!(row["outlier"][col], false, "{row}");
        assert_eq!(row["not_comparable"][col], i == 3, "{row}");
    }
    assert_valid(&c);
}

#[test]
fn the_comparison_json_validates_against_its_schema() {
    let d = tempfile::tempdir().unwrap();
    let files = fleet(d.path());
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let grouped: Vec<PathBuf> = five(d.path(), "x", 1.0, 1)
        .into_iter()
        .chain(five(d.path(), "y", 1.1, 9))
        .collect();
    let grouped: Vec<&Path> = grouped.iter().map(|p| p.as_path()).collect();
    let one_each = [grouped[0], grouped[5]];
    for doc in [
        compare_json(&refs),
        compare_json(&refs[..2]),
        compare_json(&grouped),
        compare_json(&one_each),
        compare_json(&[refs[0], grouped[0], grouped[5]]),
    ] {
        assert_valid(&doc);
    }
}

/// Fails unless `doc` validates against `schema/compare.schema.json`.
fn assert_valid(doc: &Value) {
    let schema: Value =
        serde_json::from_str(&fs::read_to_string("schema/compare.schema.json").unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn bad_inputs_exit_2_naming_the_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let (txt, _) = stand_in(d.path(), "vm");
    let garbage = d.path().join("notes.txt");
    fs::write(&garbage, "hello\n").unwrap();
    let newer = d.path().join("newer.json");
    fs::write(&newer, r#"{"schema_version": 2}"#).unwrap();
    let missing = d.path().join("nope.txt");
    for (file, want) in [
        (
            &garbage,
            "notes.txt:1: no `Quickbench:` header line".to_string(),
        ),
        (&newer, "newer quickbench".to_string()),
        (&missing, format!("{}: cannot read it", missing.display())),
    ] {
        let out = quickbench()
            .arg("compare")
            .arg(&txt)
            .arg(file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&want), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.stdout.is_empty());
    }
    let out = quickbench().arg("compare").arg(&txt).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("two or more reports"));
    // compare is not a loop delay, and has its own help
    let out = quickbench().args(["compare", "--help"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("quickbench compare"));
}

#[test]
fn stdin_is_one_of_the_inputs() {
    let d = tempfile::tempdir().unwrap();
    let (txt, json) = stand_in(d.path(), "vm");
    let out = quickbench()
        .args(["compare", "--json", "-"])
        .arg(&json)
        .write_stdin(fs::read(&txt).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["reports"][0]["file"], "-");
}

#[test]
fn a_closed_stdout_exits_141_quietly() {
    use std::os::fd::{FromRawFd, OwnedFd};
    let d = tempfile::tempdir().unwrap();
    let (txt, json) = stand_in(d.path(), "vm");
    // stdout is a pipe whose reading end is already closed, as after
    // `quickbench compare a b | head -1` once head has gone: the first
    // write fails with EPIPE, whatever the timing.
    let mut fds = [0; 2];
    // SAFETY: pipe() fills two new descriptors, each owned once below.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    for json_flag in [false, true] {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_quickbench"));
        c.arg("compare");
        if json_flag {
            c.arg("--json");
        }
        let out = c
            .arg(&txt)
            .arg(&json)
            .stdout(write.try_clone().unwrap())
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{err}");
        assert!(err.is_empty(), "a closed stdout ends quietly: {err}");
    }
}

/// No address of anything outside the page: no http(s) URL anywhere, and
/// no `src`/`href` attribute at all (so none starting with `//`).
fn assert_offline(page: &str) {
    let lower = page.to_lowercase();
    for bad in ["http://", "https://", "src=", "href=", "url(", "<script"] {
        assert!(!lower.contains(bad), "{bad} in the page");
    }
    let attr = regex::Regex::new(r#"(?i)\b(src|href)\s*=\s*["']?//"#).unwrap();
    assert!(!attr.is_match(page));
}

#[test]
fn html_writes_the_fleet_page_and_the_text_still_goes_to_stdout() {
    let d = tempfile::tempdir().unwrap();
    let files = fleet(d.path());
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let page_path = d.path().join("fleet.html");
    let out = quickbench()
        .args(["compare", "--html"])
        .arg(&page_path)
        .args(&refs)
        .env("COLUMNS", "60")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        compare_text(&refs, &[("COLUMNS", "60")]),
        "--html FILE leaves stdout as it was"
    );
    let page = fs::read_to_string(&page_path).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    // one strip per key figure of the fleet table, in its order
    let c = compare_json(&refs);
    let columns: Vec<&str> = c["table"]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    let strips: Vec<&str> = page
        .split("<svg class=\"strip\" data-figure=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect();
    assert_eq!(strips, columns);
    assert_eq!(page.matches("<svg").count(), columns.len());
    // every host is a dot on every strip
    for host in ["n1", "n2", "n3", "n4", "n5"] {
        let dots = page.matches(&format!("<title>{host}: ")).count();
        assert_eq!(dots, columns.len(), "{host}");
    }
    // n4's 4k 1-job write is the outlier: named beside its dot, and listed
    assert_eq!(page.matches("<circle class=\"dot out\"").count(), 1);
    assert!(page.contains("<text class=\"oname\""));
    let table = page
        .split("<table class=\"outliers\">")
        .nth(1)
        .expect("an outlier table");
    assert!(
        table.contains("<tr><td class=\"host\">n4</td><td class=\"fig\">4k W 1j</td>"),
        "{table}"
    );
    assert!(table.contains("50 % below the median"), "{table}");
    assert_offline(&page);
}

#[test]
fn html_dash_puts_two_reports_page_on_stdout_and_errors_name_the_file() {
    let d = tempfile::tempdir().unwrap();
    let (txt, json) = stand_in(d.path(), "vm");
    let out = quickbench()
        .args(["compare", "--html", "-"])
        .arg(&txt)
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(!page.contains("[ CPU loop ]"), "the page, not the text");
    // a section per block of figures, a bar per figure (all ≈ here)
    for section in ["CPU loop", "Memory", "Storage bandwidth - 4k blocks"] {
        assert!(page.contains(&format!("<h3>{section}")), "{section}");
    }
    assert!(page.matches("<rect class=\"bar equal\"").count() > 30);
    assert!(page.contains("\u{2248} x1.00"));
    assert_offline(&page);

    // a page that cannot be written: exit 2 before reading, the path and what to do
    let bad = d.path().join("no-such-dir").join("page.html");
    let out = quickbench()
        .args(["compare", "--html"])
        .arg(&bad)
        .arg(&txt)
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&bad.display().to_string()), "{err}");
    assert!(err.contains("give --html a writable file"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout when the page failed"
    );

    // the page and the JSON cannot both have stdout
    let out = quickbench()
        .args(["compare", "--json", "--html", "-"])
        .arg(&txt)
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--html a file name"));

    let out = quickbench().args(["compare", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--html FILE also writes"), "{help}");
    assert!(help.contains("--html - puts the page on stdout"), "{help}");
}

/// A stand-in JSON report of `host` with every rate multiplied by `scale`
/// (latency divided by it), each figure and its samples moved by a
/// pseudo-random `noise` (relative, uniform ±noise) from `seed`: a
/// synthetic run of a host whose true figures are the stand-in's times
/// `scale`.
fn synthetic(dir: &Path, host: &str, file: &str, scale: f64, noise: f64, seed: u64) -> PathBuf {
    let (_, json) = stand_in(dir, host);
    let mut v: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut jitter = move || {
        // xorshift64*: enough for test noise.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let u = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        1.0 + noise * (2.0 * u - 1.0)
    };
    let scale_samples = |step: &mut Value, by: f64, jitter: &mut dyn FnMut() -> f64| {
        if let Some(s) = step["samples"].as_array_mut() {
            for x in s.iter_mut() {
                *x = Value::from(x.as_f64().unwrap() * by * jitter());
            }
        }
        step["sample_summary"] = Value::Null;
    };
    for step in v["cpu_loop"].as_array_mut().unwrap() {
        let by = scale * jitter();
        let mean = step["loops_per_s_mean"].as_f64().unwrap() * by;
        step["loops_per_s_mean"] = Value::from(mean);
        step["loops_per_s_each"] = Value::from(vec![mean; step["jobs"].as_u64().unwrap() as usize]);
        scale_samples(step, by, &mut jitter);
    }
    let bw = &mut v["memory"]["dd_bandwidth"];
    let by = scale * jitter();
    let elapsed = bw["elapsed_ns"].as_f64().unwrap() / by;
    bw["elapsed_ns"] = Value::from(elapsed as u64);
    scale_samples(bw, by, &mut jitter);
    for line in v["storage_bandwidth"].as_array_mut().unwrap() {
        let by = scale * jitter();
        for k in ["iops", "mb_per_s"] {
            line[k] = Value::from(line[k].as_f64().unwrap() * by);
        }
        line["lat_mean_us"] = Value::from(line["lat_mean_us"].as_f64().unwrap() / by);
        scale_samples(line, by, &mut jitter);
    }
    let out = dir.join(file);
    fs::write(&out, serde_json::to_vec(&v).unwrap()).unwrap();
    out
}

fn figures(c: &Value) -> Vec<&Value> {
    c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "figure")
        .collect()
}

fn compare_args(args: &[&std::ffi::OsStr]) -> Value {
    let out = quickbench()
        .args(["compare", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn identical_reports_never_read_better_or_worse() {
    let d = tempfile::tempdir().unwrap();
    for seed in 1..=4 {
        let r = synthetic(d.path(), "vm", &format!("r{seed}.json"), 1.0, 0.05, seed);
        // one report a side (one host: two sides), then three a side by --
        let one = compare_json(&[&r, &r]);
        let o = r.as_os_str();
        let dash = std::ffi::OsStr::new("--");
        let three = compare_args(&[o, o, o, dash, o, o, o]);
        for c in [&one, &three] {
            assert_eq!(c["sides"].as_array().unwrap().len(), 2, "{c:#}");
            let rows = figures(c);
            assert!(rows.len() > 30);
            for r in rows {
                let v = verdict(r, 1);
                assert!(v == "equal" || v == "inconclusive", "seed {seed}: {r}");
                let j = &r["judged"][1];
                assert!(
                    (j["ratio"].as_f64().unwrap() - 1.0).abs() < 1e-9,
                    "seed {seed}: {r}"
                );
            }
        }
        // one report a side: within-run noise only, the run-to-run spread
        // assumed (tens of % on the development host): the interval cannot
        // lie within ±5 %, so ~, and whether more runs would decide
        let cpu = figures(&one)[0];
        assert_eq!(
            cpu["judged"][1]["spread"]["kind"], "within_run_only",
            "{cpu}"
        );
        assert_eq!(verdict(cpu, 1), "inconclusive", "{cpu}");
        let words = cpu["judged"][1]["words"].as_str().unwrap();
        assert!(
            words.ends_with("runs a side would decide") || words.ends_with("cannot decide"),
            "{words}"
        );
        let three_cpu = figures(&three)[0];
        assert_eq!(three_cpu["judged"][1]["spread"]["kind"], "measured");
        assert_eq!(three_cpu["judged"][1]["n_a"], 3);
    }
}

/// Five synthetic reports of `host` at `scale`, 2 % noise.
fn five(d: &Path, host: &str, scale: f64, seed: u64) -> Vec<PathBuf> {
    (0..5)
        .map(|i| synthetic(d, host, &format!("{host}-{i}.json"), scale, 0.02, seed + i))
        .collect()
}

#[test]
fn a_planted_20_percent_shift_with_five_reports_a_side_reads_in_its_direction() {
    let d = tempfile::tempdir().unwrap();
    let a = five(d.path(), "base", 1.0, 10);
    for (host, scale, want) in [("fast", 1.2, "better"), ("slow", 0.8, "worse")] {
        let b = five(d.path(), host, scale, 20);
        // interleaved: grouping is by host name, not by position
        let mut files: Vec<&Path> = Vec::new();
        for (x, y) in a.iter().zip(&b) {
            files.push(x);
            files.push(y);
        }
        let c = compare_json(&files);
        let sides = c["sides"].as_array().unwrap();
        assert_eq!(sides.len(), 2, "{c:#}");
        assert_eq!(sides[0]["name"], "base");
        assert_eq!(sides[0]["reports"], serde_json::json!([0, 2, 4, 6, 8]));
        let rows = figures(&c);
        assert!(rows.len() > 30);
        for r in rows {
            assert_eq!(verdict(r, 1), want, "{r}");
            let j = &r["judged"][1];
            assert_eq!(j["spread"]["kind"], "measured", "{r}");
            assert_eq!((j["n_a"].as_u64(), j["n_b"].as_u64()), (Some(5), Some(5)));
            let lo = j["interval"]["lo"].as_f64().unwrap();
            let hi = j["interval"]["hi"].as_f64().unwrap();
            let up = r["better"] == "higher";
            let (lo, hi) = if (want == "better") == up {
                (lo, hi)
            } else {
                (1.0 / hi, 1.0 / lo)
            };
            // the interval lies beyond the margin, the way the verdict says
            assert!(lo > 1.05 && hi < 1.5, "{r}");
        }
        let text = compare_text(&files, &[("COLUMNS", "200")]);
        assert!(text.contains(&format!("B: {host}, 5 reports (")), "{text}");
        assert!(text.contains("A: base, 5 reports ("), "{text}");
    }
}

#[test]
fn a_bimodal_figure_is_inconclusive() {
    // The CPU loop flips between two levels 30 % apart from run to run, in
    // other proportions on each side: no verdict either way.
    let d = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let a = [1.0, 1.01, 1.3, 1.31, 1.005];
    let b = [1.305, 1.002, 1.295, 1.315, 1.01];
    for (host, levels) in [("a", a), ("b", b)] {
        for (i, level) in levels.iter().enumerate() {
            let f = synthetic(
                d.path(),
                host,
                &format!("{host}{i}.json"),
                1.0,
                0.01,
                i as u64,
            );
            let mut v: Value = serde_json::from_slice(&fs::read(&f).unwrap()).unwrap();
            let step = &mut v["cpu_loop"][0];
            let mean = step["loops_per_s_mean"].as_f64().unwrap() * level;
            step["loops_per_s_mean"] = Value::from(mean);
            fs::write(&f, serde_json::to_vec(&v).unwrap()).unwrap();
            files.push(f);
        }
    }
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let c = compare_json(&refs);
    let cpu = figures(&c)[0];
    assert_eq!(cpu["label"], " 1 // jobs");
    assert_eq!(verdict(cpu, 1), "inconclusive", "{cpu}");
    // 5 trials a side reach at most 99.2 %: either the interval the
    // verdict read straddles the margin, or the words say the level is out
    // of reach (and no narrower interval is given).
    let i = &cpu["judged"][1]["interval"];
    let words = cpu["judged"][1]["words"].as_str().unwrap();
    assert!(words.starts_with("~ x"), "{words}");
    if i.is_null() {
        let o = &cpu["judged"][1]["out_of_reach"];
        assert!(o["trials_needed"].as_u64().unwrap() > 5, "{cpu}");
        assert!(
            words.contains("5 trials a side cannot reach the"),
            "{words}"
        );
    } else {
        assert!(
            i["lo"].as_f64().unwrap() < 0.95 && i["hi"].as_f64().unwrap() > 1.05,
            "{cpu}"
        );
        assert!(
            words.ends_with("runs a side would decide") || words.ends_with("cannot decide"),
            "{words}"
        );
    }
}

#[test]
fn sides_by_host_by_double_dash_and_one_host_twice() {
    let d = tempfile::tempdir().unwrap();
    let a1 = synthetic(d.path(), "vm", "a1.json", 1.0, 0.02, 1);
    let a2 = synthetic(d.path(), "vm", "a2.json", 1.0, 0.02, 2);
    let b1 = synthetic(d.path(), "other", "b1.json", 1.0, 0.02, 3);
    // one host twice: two sides (before and after), as always
    let c = compare_json(&[&a1, &a2]);
    let names: Vec<&str> = c["sides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["vm (a1.json)", "vm (a2.json)"]);
    // two hosts: by host
    let c = compare_json(&[&a1, &b1, &a2]);
    assert_eq!(c["sides"][0]["reports"], serde_json::json!([0, 2]));
    assert_eq!(c["sides"][1]["reports"], serde_json::json!([1]));
    let text = compare_text(&[&a1, &b1, &a2], &[("COLUMNS", "200")]);
    let a = |f: &PathBuf| f.display().to_string();
    assert!(
        text.starts_with(&format!(
            "A: vm, 2 reports ({}, {}; quickbench, ",
            a(&a1),
            a(&a2)
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("\nB: {} (other, quickbench, ", a(&b1))),
        "{text}"
    );
    // --: one side each, whatever the hosts; the host line then differs
    // within side A
    let c = compare_args(&[
        a1.as_os_str(),
        b1.as_os_str(),
        "--".as_ref(),
        a2.as_os_str(),
    ]);
    assert_eq!(c["sides"][0]["reports"], serde_json::json!([0, 1]));
    assert_eq!(c["sides"][0]["name"], "mixed hosts");
    let host = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"] == "Host")
        .unwrap();
    assert_eq!(host["texts"][0], "differs within side");
    assert_eq!(verdict(host, 1), "different");
    // the same host on both sides of --: numbered
    let c = compare_args(&[a1.as_os_str(), "--".as_ref(), a2.as_os_str()]);
    assert_eq!(c["sides"][0]["name"], "vm (a1.json)");
    let c = compare_args(&[
        a1.as_os_str(),
        a2.as_os_str(),
        "--".as_ref(),
        a1.as_os_str(),
        a2.as_os_str(),
    ]);
    assert_eq!(c["sides"][0]["name"], "vm (1)");
    assert_eq!(c["sides"][1]["name"], "vm (2)");
}

#[test]
fn reports_without_samples_keep_the_fixed_band_and_say_so() {
    let d = tempfile::tempdir().unwrap();
    let bash = d.path().join("bash.txt");
    fs::write(&bash, BASH).unwrap();
    let (txt, _) = stand_in(d.path(), "vm");
    let c = compare_json(&[&bash, &txt]);
    let iops = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"] == "Writes ( 1 thread[s]) IO/s")
        .unwrap();
    let j = &iops["judged"][1];
    assert_eq!(j["spread"]["kind"], "none");
    assert!(j["interval"].is_null() && j["p_value"].is_null());
    assert_eq!(j["words"], format!("x{:.2} better", 25000.0 / 16256.0));
    let text = compare_text(&[&bash, &txt], &[("COLUMNS", "200")]);
    assert!(
        text.contains(
            "Figures with no samples (a text report or an older one) are judged on the ratio alone against the fixed \u{b1}5 % band."
        ),
        "{text}"
    );
    assert!(!text.contains("run-to-run spread is assumed"), "{text}");
}

/// A stand-in `-x` run of `host`: its text report and JSON document.
fn stand_in_extended(dir: &Path, host: &str) -> (PathBuf, PathBuf) {
    let root = dir.join(format!("root-x-{host}"));
    common_reports::write_host(&root, host);
    let txt = dir.join(format!("{host}-x.txt"));
    let json = dir.join(format!("{host}-x.json"));
    let out = quickbench()
        .arg("--sysroot")
        .arg(&root)
        .args([
            "--fake-figures",
            "--trials",
            "1",
            "--dir",
            "/",
            "-x",
            "12",
            "--json",
        ])
        .arg("--text-out")
        .arg(&txt)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    fs::write(&json, out.stdout).unwrap();
    (txt, json)
}

#[test]
fn extended_text_and_json_of_one_run_compare_equal_row_for_row() {
    let d = tempfile::tempdir().unwrap();
    let (txt, json) = stand_in_extended(d.path(), "vm");
    let c = compare_json(&[&txt, &json]);
    let rows = c["rows"].as_array().unwrap();
    let extended: Vec<&Value> = rows
        .iter()
        .filter(|r| r["section"].as_str().unwrap().starts_with("Extended: "))
        .collect();
    // 4 DRAM figures and 5 percentiles of each of the 12 storage lines,
    // then the added sections': 3 workloads at 1 job and at all CPUs,
    // 9 latency sizes and the TLB's.
    let added = |r: &&&Value| {
        let s = r["section"].as_str().unwrap();
        s == "Extended: CPU work" || s == "Extended: Memory latency"
    };
    let figures = extended.iter().filter(|r| r["kind"] == "figure").count();
    let of_added = extended.iter().filter(added).count();
    assert_eq!(figures, 4 + 5 * 12 + of_added, "{extended:#?}");
    assert!([3 + 10, 6 + 10].contains(&of_added), "{extended:#?}");
    for r in rows {
        match r["kind"].as_str().unwrap() {
            "figure" => {
                assert_eq!(verdict(r, 1), "equal", "{r}");
                // Extended figures are their printed values: exact.
                let x = r["section"].as_str().unwrap().starts_with("Extended: ");
                let ratio = r["ratios"][1].as_f64().unwrap();
                assert!((ratio - 1.0).abs() < if x { 1e-12 } else { 1e-6 }, "{r}");
            }
            _ => assert_eq!(verdict(r, 1), "same", "{r}"),
        }
    }
    assert!(c["missing"].as_array().unwrap().is_empty(), "{c:#}");
}

/// An older `-x` storage line (other I/O as `(+N not ours: ...)`) read
/// back with every percentile 0.0, and compare printed `0.0  0.0  ≈ ?`.
/// Its percentiles read; a line whose percentiles do not read leaves them
/// missing, never zeros.
#[test]
fn an_older_x_latency_line_does_not_read_as_zero_percentiles() {
    let d = tempfile::tempdir().unwrap();
    let (a, _) = stand_in_extended(d.path(), "a");
    let (b, _) = stand_in_extended(d.path(), "b");
    let text = fs::read_to_string(&b).unwrap();
    let line = |head: &str| {
        text.lines()
            .find(|l| l.starts_with(head))
            .unwrap_or_else(|| panic!("no {head:?} line in {text}"))
            .to_string()
    };
    let older = text
        .replace(
            &line("1M Writes ( 1 thread[s]): p50"),
            "1M Writes ( 1 thread[s]): p50    753.7  p90    999.4  p99   4718.6  p99.9  10747.9  max   11142.9 µs  | engine 1128 I/Os, device 2281 (+72 not ours: other I/O during the line)",
        )
        .replace(
            &line("4k Reads  ( 4 thread[s]): p50"),
            "4k Reads  ( 4 thread[s]): p50        ?  p90        ?  p99        ?  p99.9        ?  max        ? µs  | no device counters",
        );
    fs::write(&b, older).unwrap();
    let out = compare_text(&[&a, &b], &[]);
    let row = |label: &str| {
        out.lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no row {label:?} in\n{out}"))
            .to_string()
    };
    assert!(
        row("1M Writes ( 1 thread[s]) p50 µs").contains("1111.1      753.7"),
        "{out}"
    );
    assert!(
        row("1M Writes ( 1 thread[s]) max µs").contains("11142.9"),
        "{out}"
    );
    assert!(!out.contains(" 0.0 "), "{out}");
    let p50 = row("4k Reads  ( 4 thread[s]) p50 µs");
    let words: Vec<&str> = p50.split_whitespace().collect();
    assert!(words.ends_with(&["40.0", "-", "missing"]), "{p50:?}\n{out}");
    assert!(
        out.contains("b: [ Extended: Storage ] 4k Reads  ( 4 thread[s]) p99 µs"),
        "{out}"
    );
    // The JSON says the same: no figure, not a zero.
    let c = compare_json(&[&a, &b]);
    let r = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"] == "4k Reads  ( 4 thread[s]) p50 µs")
        .unwrap();
    assert!(r["values"][1].is_null(), "{r}");
    assert_eq!(verdict(r, 1), "missing", "{r}");
}

#[test]
fn two_extended_reports_compare_their_dram_and_latency_percentiles() {
    let d = tempfile::tempdir().unwrap();
    let (a, _) = stand_in_extended(d.path(), "a");
    let (b, _) = stand_in_extended(d.path(), "b");
    // B: a faster single-thread copy and a slower 4k write p99.
    let text = fs::read_to_string(&b).unwrap();
    let faster = text.replace(
        " 1 thread : copy   10.0 GB/s",
        " 1 thread : copy   12.0 GB/s",
    );
    let slower = faster.replacen(
        "4k Writes ( 1 thread[s]): p50     40.0  p90     40.0  p99     40.0",
        "4k Writes ( 1 thread[s]): p50     40.0  p90     40.0  p99     50.0",
        1,
    );
    assert_ne!(slower, faster, "the stand-in's 4k line changed: {text}");
    assert_ne!(faster, text, "the stand-in's DRAM line changed: {text}");
    fs::write(&b, slower).unwrap();
    let out = compare_text(&[&a, &b], &[]);
    let row = |label: &str| {
        out.lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no row {label:?} in\n{out}"))
            .to_string()
    };
    assert!(
        out.contains("[ Extended: Memory (DRAM, STREAM-like) ]"),
        "{out}"
    );
    assert!(out.contains("[ Extended: Storage ]"), "{out}");
    assert!(
        row("1 thread copy GB/s").ends_with("10.0       12.0  x1.20 better"),
        "{out}"
    );
    assert!(row("1 thread triad GB/s").contains('≈'), "{out}");
    assert!(row("all CPUs copy GB/s").contains('≈'), "{out}");
    assert!(
        row("4k Writes ( 1 thread[s]) p99 µs").ends_with("40.0       50.0  x1.25 worse"),
        "{out}"
    );
    assert!(
        row("1M Reads  (16 thread[s]) max µs").contains('≈'),
        "{out}"
    );
    // A report without -x has none of these rows: they are missing there,
    // and the standard rows still compare.
    let (plain, _) = stand_in(d.path(), "c");
    let c = compare_json(&[&plain, &a]);
    let missing = c["missing"].as_array().unwrap();
    assert!(
        missing
            .iter()
            .all(|m| m.as_str().unwrap().contains("[ Extended: ")),
        "{missing:?}"
    );
    assert!(!missing.is_empty());
}

#[test]
fn busy_trials_are_left_out_and_a_side_of_busy_trials_reads_distorted() {
    let d = tempfile::tempdir().unwrap();
    let a = synthetic(d.path(), "vm", "a.json", 1.0, 0.01, 1);
    // B: half as fast on the 1-job CPU step, while others used the CPU
    let b = synthetic(d.path(), "vm", "b.json", 1.0, 0.01, 2);
    let mut v: Value = serde_json::from_slice(&fs::read(&b).unwrap()).unwrap();
    let step = &mut v["cpu_loop"][0];
    let mean = step["loops_per_s_mean"].as_f64().unwrap() * 0.5;
    step["loops_per_s_mean"] = Value::from(mean);
    step["marks"] = serde_json::json!([
        {"kind": "busy", "others_cpu_percent": 95.0, "others_percent_of_needed": 95.0}
    ]);
    // and the 2-job step ran under the CPU quota: the host as configured
    let step = &mut v["cpu_loop"][1];
    let mean = step["loops_per_s_mean"].as_f64().unwrap() * 0.4;
    step["loops_per_s_mean"] = Value::from(mean);
    step["marks"] = serde_json::json!([{"kind": "throttled", "percent": 60.0}]);
    fs::write(&b, serde_json::to_vec(&v).unwrap()).unwrap();
    let c = compare_json(&[&a, &b]);
    let rows = figures(&c);
    let busy = rows[0];
    assert_eq!(busy["label"], " 1 // jobs");
    assert_eq!(busy["verdicts"][1]["verdict"], "distorted", "{busy}");
    assert_eq!(busy["verdicts"][1]["why"], "busy", "{busy}");
    let ratio = busy["verdicts"][1]["ratio"].as_f64().unwrap();
    assert!((ratio - 0.5).abs() < 0.02, "{busy}");
    assert!(busy["judged"][1].is_null(), "{busy}");
    assert_valid(&c);
    // the quota's 0.4 is a verdict like any other
    let quota = rows[1];
    assert_eq!(quota["label"], " 2 // jobs");
    assert_eq!(verdict(quota, 1), "worse", "{quota}");
    let text = compare_text(&[&a, &b], &[("COLUMNS", "200")]);
    // the mark on a line of its own under the figure's, not in its column
    let mut lines = text.lines().skip_while(|l| !l.starts_with(" 1 // jobs"));
    let (line, marks) = (lines.next().unwrap(), lines.next().unwrap());
    assert!(line.ends_with("~ x0.50 distorted: busy"), "{text}");
    assert!(!line.contains("busy 95"), "{line}");
    assert_eq!(marks.trim(), "marked: B busy 95 %", "{text}");
    // one note says which side to rerun, and how; none when no side is busy
    let notes: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Marked busy in "))
        .collect();
    assert_eq!(
        notes,
        ["Marked busy in B: other work used the CPUs during that run (often a build just before); rerun it on a quiet host."],
        "{text}"
    );
    let quiet = compare_text(&[&a, &a], &[("COLUMNS", "200")]);
    assert!(!quiet.contains("Marked busy"), "{quiet}");
}

#[test]
fn the_trials_of_repeat_are_a_sides_trials() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("root");
    common_reports::write_host(&root, "vm");
    let out = quickbench()
        .arg("--sysroot")
        .arg(&root)
        .args([
            "--fake-figures",
            "--dir",
            "/",
            "--repeat",
            "5",
            "--trials",
            "1",
            "12",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let r = d.path().join("r.json");
    fs::write(&r, out.stdout).unwrap();
    let c = compare_json(&[&r, &r]);
    let rows = figures(&c);
    assert!(rows.len() > 30);
    for row in rows {
        let j = &row["judged"][1];
        assert_eq!(
            (j["n_a"].as_u64(), j["n_b"].as_u64()),
            (Some(5), Some(5)),
            "{row}"
        );
        // One run a side: 1M lines add the run-to-run floor.
        let want = if row["section"].as_str().unwrap().contains("1M blocks") {
            "measured_with_floor"
        } else {
            "measured"
        };
        assert_eq!(j["spread"]["kind"], want, "{row}");
        let v = verdict(row, 1);
        assert!(v == "equal" || v == "inconclusive", "{row}");
    }
    assert!(c["warnings"].as_array().unwrap().is_empty(), "{c:#}");
    let text = compare_text(&[&r, &r], &[("COLUMNS", "200")]);
    assert!(
        text.contains("1M lines add 7 % of run-to-run spread, shared over a side's reports"),
        "{text}"
    );
    // against a report of one trial: both compare, with a warning
    let (_, once) = stand_in(d.path(), "vm");
    let c = compare_json(&[&r, &once]);
    let w = c["warnings"].as_array().unwrap();
    assert!(
        w.iter().any(|w| {
            let w = w.as_str().unwrap();
            w.starts_with("trials per step differ (") && w.contains(" 5, ") && w.contains(" 1)")
        }),
        "{w:?}"
    );
}

/// A step marked drift keeps its verdict, and the legend says what the
/// mark means for it; without a drift mark, no such line.
#[test]
fn a_drift_mark_is_explained_in_the_legend() {
    let d = tempfile::tempdir().unwrap();
    let golden = include_str!("golden/whole-report-lvm-luks-md-repeat3.txt")
        .replace("<date>", "2026-12-07 16:00 UTC");
    let a = d.path().join("a.txt");
    let b = d.path().join("b.txt");
    fs::write(&a, &golden).unwrap();
    fs::write(
        &b,
        golden.replace(
            " 2 // jobs :  403997980 loop/job/s\n",
            " 2 // jobs :  403997980 loop/job/s (drift -30 %)\n",
        ),
    )
    .unwrap();
    let t = compare_text(&[&a, &b], &[("NO_COLOR", "1")]);
    // the mark on its own line; the legend wrapped to the width
    assert!(t.contains("marked: B drift -30 %"), "{t}");
    let flat = t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("drift: the figure moved one way across that side's rounds of trials"),
        "{t}"
    );
    let plain = compare_text(&[&a, &a], &[("NO_COLOR", "1")]);
    assert!(!plain.contains("drift:"), "{plain}");
}

/// compare reads the summary a report stores (`sample_summary`), not one
/// of its own from the samples: a summary planted beside the samples
/// (same count, another mean and interval) is the one a trial carries.
/// A summary of another count than the samples listed is refused, by its
/// JSON path, when the report is read.
#[test]
fn the_stored_sample_summary_is_the_one_compare_reads() {
    use quickbench::compare::{facts, Fact};
    use quickbench::report::read::read_json;
    use quickbench::stats::Summary;
    let d = tempfile::tempdir().unwrap();
    let (_, json) = stand_in(d.path(), "vm");
    let mut doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let step = &mut doc["cpu_loop"][0];
    let samples: Vec<f64> = serde_json::from_value(step["samples"].clone()).unwrap();
    assert!(samples.len() >= 5, "{step}");
    let own = Summary::of(&samples).unwrap();
    let planted = Summary {
        mean: own.mean * 2.0,
        median: own.median * 2.0,
        min: own.min * 2.0,
        max: own.max * 2.0,
        ci95_lo: own.ci95_lo.map(|v| v * 1.5),
        ci95_hi: own.ci95_hi.map(|v| v * 2.5),
        ..own.clone()
    };
    step["sample_summary"] = serde_json::to_value(&planted).unwrap();
    let r = read_json("planted.json", &doc.to_string()).unwrap();
    let cpu = facts(&r)
        .into_iter()
        .find_map(|f| match f {
            Fact::Figure(f) if f.label.trim() == "1 // jobs" => Some(f),
            _ => None,
        })
        .expect("the 1-job CPU loop figure");
    assert_eq!(cpu.trials.len(), 1);
    let within = cpu.trials[0].trial.within.as_ref().expect("a summary");
    assert_eq!(*within, planted);
    assert_ne!(*within, own);

    // A summary of 3 samples beside more samples: refused by its path.
    doc["cpu_loop"][0]["sample_summary"]["n"] = 3.into();
    let e = read_json("planted.json", &doc.to_string())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cpu_loop[0].sample_summary.n: is 3: expected the number of samples listed"),
        "{e}"
    );
}

/// The reports compare holds keep their header alone, their facts taken:
/// the comparison is the one of the whole reports, text and JSON alike.
#[test]
fn reports_read_for_a_comparison_drop_their_sections_and_compare_alike() {
    use quickbench::compare::{compare, load, load_for_compare, render_json};
    let d = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for host in ["a", "b", "c"] {
        let (txt, json) = stand_in(d.path(), host);
        files.push(json.display().to_string());
        files.push(txt.display().to_string());
    }
    let whole = load(&files).unwrap();
    let slim = load_for_compare(&files).unwrap();
    for (w, s) in whole.iter().zip(&slim) {
        assert!(!w.report.cpu_loop.is_empty() && !w.report.storage_bandwidth.is_empty());
        assert!(s.report.cpu_loop.is_empty() && s.report.storage_bandwidth.is_empty());
        assert!(s.report.memory.is_none() && s.report.cpu_info.is_none());
        assert_eq!(s.report.hostname, w.report.hostname);
        assert_eq!(s.facts.len(), w.facts.len(), "{}", s.file);
        assert!(s.facts.len() > 20, "{}", s.file);
    }
    assert_eq!(render_json(&compare(&slim)), render_json(&compare(&whole)));
}
