//! `/proc/cpuinfo`: lscpu's CPU-type reader (`parse_cpuinfo_bytes`, and
//! `parse_cpuinfo` on the same text made UTF-8), the ARM id decoding of the
//! types found, and the `cpu MHz` reader of the extended report
//! (`cpuinfo::cpu_mhz`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::sysinfo::cpu::cpuinfo::cpu_mhz;
use quickbench::sysinfo::cpu::{arm, parse_cpuinfo, parse_cpuinfo_bytes};

fuzz_target!(|data: &[u8]| {
    let info = parse_cpuinfo_bytes(data);
    // every assignment names an existing type
    for a in &info.assignments {
        assert!(
            a.type_index < info.types.len(),
            "{a:?} of {}",
            info.types.len()
        );
    }
    // a type's fields are as lscpu prints them: never empty
    for t in &info.types {
        for f in [&t.vendor, &t.model, &t.model_name, &t.stepping, &t.revision] {
            assert!(f.as_deref() != Some(""));
        }
        let _ = arm::decode_model_name(
            t.vendor.as_deref(),
            t.model.as_deref(),
            t.model_name.as_deref(),
            Some("BIOS"),
        );
        if let Some(v) = &t.vendor {
            let _ = arm::parse_id(v);
            let _ = arm::implementer_name(v);
        }
    }
    let cpus: Vec<usize> = info.assignments.iter().map(|a| a.cpu as usize).collect();
    let of = info.types_of(&cpus);
    assert_eq!(of.len(), cpus.len());
    for t in of.into_iter().flatten() {
        assert!(t < info.types.len());
    }

    let text = String::from_utf8_lossy(data);
    let again = parse_cpuinfo(&text);
    if std::str::from_utf8(data).is_ok() {
        assert_eq!(again, info, "str and bytes readers disagree");
    }

    for (_, mhz) in cpu_mhz(data) {
        assert!(mhz.is_finite() && mhz > 0.0);
    }
});
