//! Two live runs of the same binary on this host, compared: an A/A
//! comparison. The verdicts control false claims at 5 % over the figures
//! of a comparison, so at most one figure may read better or worse.

use std::path::Path;

use serde_json::Value;

use crate::common_reports::quickbench;

/// A short live run: CPU loop, memory and the storage lines (1 s steps,
/// a small file in `dir`), as JSON.
fn run(dir: &Path) -> Value {
    let out = quickbench()
        .args([
            "1",
            "--only",
            "cpu,memory,io",
            "--max-size",
            "64M",
            "--json",
            "-q",
        ])
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn two_runs_of_one_binary_flag_at_most_one_figure() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a.json"), d.path().join("b.json"));
    std::fs::write(&a, run(d.path()).to_string()).unwrap();
    std::fs::write(&b, run(d.path()).to_string()).unwrap();
    let out = quickbench()
        .args(["compare", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    let figures: Vec<&Value> = rows.iter().filter(|r| r["kind"] == "figure").collect();
    assert!(figures.len() >= 20, "{c:#}");
    // Every figure carried samples: judged from its noise, none on the band.
    let judged: Vec<&Value> = figures
        .iter()
        .filter(|r| r["judged"][1].is_object())
        .copied()
        .collect();
    assert!(judged.len() >= 20, "{c:#}");
    for r in &judged {
        assert_eq!(r["judged"][1]["spread"]["kind"], "within_run_only", "{r}");
    }
    let flagged: Vec<String> = judged
        .iter()
        // A figure marked in either report (busy, other I/O...) is one the
        // report itself calls distorted by another workload: it says
        // nothing of the verdicts' false-claim rate, which is for figures
        // taken on a quiet host.
        .filter(|r| r["marks"][0] == Value::Array(vec![]) && r["marks"][1] == Value::Array(vec![]))
        .filter(|r| {
            let v = r["verdicts"][1]["verdict"].as_str().unwrap();
            v == "better" || v == "worse"
        })
        .map(|r| {
            format!(
                "[ {} ] {}: {} (marks A {}, B {})",
                r["section"].as_str().unwrap(),
                r["label"].as_str().unwrap(),
                r["judged"][1]["words"].as_str().unwrap(),
                r["marks"][0],
                r["marks"][1]
            )
        })
        .collect();
    // A storage line prints one measurement three ways (MB/s, IO/s, mean
    // latency) and counts once in the comparison's family: the false-claim
    // rate is over measurements, so its figures count as one claim.
    let mut claims: Vec<&str> = flagged
        .iter()
        .map(|f| f.find(" thread[s])").map_or(f.as_str(), |i| &f[..i]))
        .collect();
    claims.dedup();
    assert!(
        claims.len() <= 1,
        "an A/A comparison flagged {} measurements (a busy mark says another process took the CPU or disk):\n{}",
        claims.len(),
        flagged.join("\n")
    );
}
