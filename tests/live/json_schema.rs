//! `--json` prints one document that validates against
//! `schema/report.schema.json`, with every section's fields present.

use assert_cmd::Command;
use serde_json::Value;

fn schema() -> Value {
    serde_json::from_str(&std::fs::read_to_string("schema/report.schema.json").unwrap()).unwrap()
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&schema()).expect("the schema itself is valid")
}

/// Every violation of `v` by `value`, one per line.
fn violations(v: &jsonschema::Validator, value: &Value) -> Vec<String> {
    v.iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect()
}

fn run_json(args: &[&str]) -> Value {
    let out = Command::cargo_bin("quickbench")
        .unwrap()
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON document")
}

fn assert_valid(doc: &Value) {
    let errors = violations(&validator(), doc);
    assert!(errors.is_empty(), "{errors:#?}\n{doc:#}");
}

#[test]
fn a_live_run_validates_with_every_section() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let doc = run_json(&[
        "0.1",
        "-q",
        "--io-jobs",
        "1",
        "--max-size",
        "64M",
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    assert_valid(&doc);
    assert!(!doc["cpu_info"]["lines"].as_array().unwrap().is_empty());
    assert!(doc["cpu_loop"][0]["loops_per_s_mean"].as_f64().unwrap() > 0.0);
    assert!(doc["memory"]["total_mb"].as_u64().unwrap() > 0);
    assert!(doc["memory"]["dd_bandwidth_bytes_per_s"].as_f64().unwrap() > 0.0);
    let lines = doc["storage_bandwidth"].as_array().unwrap();
    // 4k and 1M, writes and reads, 1 job each (unless the space is too small).
    if doc["storage_bandwidth_skipped"].is_null() {
        assert_eq!(lines.len(), 4);
        assert!(lines.iter().all(|l| l["ios"].as_u64().unwrap() > 0));
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a file was left behind"
    );
}

#[test]
fn a_run_carries_the_cores_tenancy_on_cpu_and_memory_steps() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let doc = run_json(&["1.5", "-q", "--only", "cpu,memory"]);
    assert_valid(&doc);
    let memory = &doc["memory"]["dd_bandwidth"];
    let steps = doc["cpu_loop"].as_array().unwrap().iter().chain([memory]);
    for step in steps {
        let n = step["samples"].as_array().unwrap().len();
        assert!(n >= 3, "{step}");
        assert_eq!(
            step["core_samples"]["per_cycle"].as_array().unwrap().len(),
            n
        );
        if cfg!(target_arch = "x86_64") && step["tenancy_unjudged"].is_null() {
            let f = step["shared_fraction"].as_f64().expect("shared_fraction");
            assert!((0.0..=1.0).contains(&f), "{f}");
            // a rate, or null when no sample was alone
            assert!(step["alone_rate"].is_null() || step["alone_rate"].as_f64().unwrap() > 0.0);
            assert_eq!(step["sample_classes"].as_str().unwrap().len(), n);
            // each trial classed against the same level
            for t in step["trials"].as_array().unwrap() {
                assert_eq!(t["per_cycle_level"], step["per_cycle_level"], "{t}");
            }
        } else {
            assert!(step["shared_fraction"].is_null(), "{step}");
        }
    }
}

#[test]
fn a_dry_run_validates_and_has_a_plan() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let doc = run_json(&["--dry-run"]);
    assert_valid(&doc);
    assert!(doc["plan"].is_object());
    assert!(doc["cpu_loop"].as_array().unwrap().is_empty());
    assert_eq!(doc["dry_run"], Value::Bool(true));
}

#[test]
fn the_schema_rejects_a_broken_document() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let mut doc = run_json(&["--dry-run", "--only", "cpuinfo"]);
    doc.as_object_mut().unwrap().remove("hostname");
    assert!(!validator().is_valid(&doc));
}

/// Validates `value` against one definition of the schema (`#/$defs/NAME`).
fn assert_valid_def(name: &str, value: &Value) {
    let wrapper = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": schema()["$defs"],
        "$ref": format!("#/$defs/{name}"),
    });
    let errors = violations(&jsonschema::validator_for(&wrapper).unwrap(), value);
    assert!(errors.is_empty(), "{errors:#?}\n{value:#}");
}

#[test]
fn extended_cpu_and_storage_validate() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let doc = run_json(&[
        "0.1",
        "-q",
        "-x",
        "--only",
        "cpu,storage,io",
        "--io-jobs",
        "1",
        "--max-size",
        "64M",
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    assert_valid(&doc);
    let ext = &doc["extended"];
    assert!(ext["smt_probe"].is_object(), "{ext:#}");
    assert!(ext["dram"].is_null(), "memory was not selected");
    for step in doc["cpu_loop"].as_array().unwrap() {
        let steal = step["conditions"]["steal_percent"].as_f64().unwrap();
        assert!((0.0..=100.0).contains(&steal));
    }
    if doc["storage_bandwidth_skipped"].is_null() {
        for line in doc["storage_bandwidth"].as_array().unwrap() {
            let p50 = line["lat_p50_us"].as_f64().unwrap();
            let p99 = line["lat_p99_us"].as_f64().unwrap();
            let max = line["lat_max_us"].as_f64().unwrap();
            assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{line:#}");
        }
    }
}

#[test]
fn a_small_dram_run_validates() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    use quickbench::membw::dram::{measure_planned, plan_arrays_for, PassLimits};
    let mut plan = plan_arrays_for(Some(1 << 20), Some(1 << 24));
    plan.array_bytes = 4 << 20;
    let limits = PassLimits {
        min_passes: 1,
        max_passes: 2,
        budget: std::time::Duration::from_millis(200),
    };
    let d = measure_planned(plan, &[0], limits, &|| false);
    assert_valid_def(
        "extended",
        &serde_json::json!({
            "smt_probe": null,
            "dram": d,
            "device_details": [],
        }),
    );
}
