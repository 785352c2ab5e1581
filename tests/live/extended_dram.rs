//! DRAM bandwidth: array sizing on fixture sysroots, and tiny live runs
//! (shape and sanity only: figures depend on the machine).

use std::time::{Duration, Instant};

use quickbench::cpu_loop::smt::usable_cpu_list;
use quickbench::membw::dram::{self, PassLimits, Stores};
use quickbench::sysinfo::cgroup::CgroupLimits;
use quickbench::Sysroot;

const MIB: u64 = 1 << 20;

fn caches(levels: &[(u32, &str)], meminfo: Option<&str>) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (i, (level, size)) in levels.iter().enumerate() {
        let p = d
            .path()
            .join(format!("sys/devices/system/cpu/cpu0/cache/index{i}"));
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("level"), format!("{level}\n")).unwrap();
        std::fs::write(p.join("size"), format!("{size}\n")).unwrap();
    }
    if let Some(m) = meminfo {
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(d.path().join("proc/meminfo"), m).unwrap();
    }
    d
}

/// This VM: L1d 48K, L1i 64K, L2 2048K, L3 491520K (what KVM reports).
const THIS_VM: [(u32, &str); 4] = [(1, "48K"), (1, "64K"), (2, "2048K"), (3, "491520K")];

#[test]
fn the_last_level_is_the_highest_level_not_the_first_listed() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = caches(&[(3, "32M"), (2, "1024K"), (1, "32K")], None);
    assert_eq!(dram::llc_bytes(&Sysroot::new(d.path())), Some(32 * MIB));
    let d = caches(&THIS_VM, None);
    assert_eq!(dram::llc_bytes(&Sysroot::new(d.path())), Some(480 * MIB));
    let d = tempfile::tempdir().unwrap();
    assert_eq!(dram::llc_bytes(&Sysroot::new(d.path())), None);
}

#[test]
fn arrays_are_4x_the_llc_and_at_least_256_mib() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = caches(
        &[(2, "1024K"), (3, "32M")],
        Some("MemTotal: 67108864 kB\nMemAvailable: 60000000 kB\n"),
    );
    let p = dram::plan_arrays(&Sysroot::new(d.path()), &CgroupLimits::default());
    assert_eq!(p.array_bytes, 256 * MIB);
    assert!(!p.capped);
    assert_eq!(p.note(), None);
    let p = dram::plan_arrays_for(Some(96 * MIB), Some(64 << 20));
    assert_eq!(p.array_bytes, 384 * MIB);
    assert_eq!(p.wanted_array_bytes, 384 * MIB);
}

#[test]
fn this_vms_480_mib_l3_is_capped_by_a_quarter_of_mem_available() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    // MemAvailable 22197140 kB: a quarter over 3 arrays = 1806 MiB < 1920.
    let d = caches(&THIS_VM, Some("MemAvailable:   22197140 kB\n"));
    let p = dram::plan_arrays(&Sysroot::new(d.path()), &CgroupLimits::default());
    assert_eq!(p.wanted_array_bytes, 1920 * MIB);
    assert_eq!(p.array_bytes, 1806 * MIB);
    assert!(p.capped);
    assert_eq!(
        p.note().unwrap(),
        "arrays of 1806 MiB instead of 1920 MiB (4 x the 480 MiB last-level cache): \
         3 arrays are capped to a quarter of MemAvailable"
    );
    // Without cache info nor meminfo: the 256 MiB floor, uncapped.
    let p = dram::plan_arrays_for(None, None);
    assert_eq!((p.array_bytes, p.capped), (256 * MIB, false));
    let p = dram::plan_arrays_for(None, Some(512 * 1024));
    assert!(p.capped);
    assert!(p.note().unwrap().contains("256 MiB minimum"), "{p:?}");
}

fn tiny(min: u32, max: u32, budget_ms: u64) -> PassLimits {
    PassLimits {
        min_passes: min,
        max_passes: max,
        budget: Duration::from_millis(budget_ms),
    }
}

#[test]
fn a_tiny_run_on_one_and_two_cpus_has_the_right_shape() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let cpus = usable_cpu_list(&Sysroot::live());
    for n in [1, cpus.len().min(2)] {
        for stores in [Stores::Cached, Stores::best()] {
            let r = dram::run(&cpus[..n], 4 * MIB, tiny(3, 5, 0), stores, &|| false);
            assert_eq!(r.threads as usize, n);
            assert_eq!(r.cpus, cpus[..n].to_vec());
            assert!(r.pinned);
            assert!(r.verified, "{r:?}");
            assert_eq!(r.passes, 3);
            assert!(!r.cut_short);
            assert!(r.array_bytes <= 4 * MIB && r.array_bytes > 4 * MIB - 64 * n as u64);
            assert!(r.copy_gb_per_s > 0.1 && r.copy_gb_per_s < 10_000.0, "{r:?}");
            assert!(
                r.triad_gb_per_s > 0.1 && r.triad_gb_per_s < 10_000.0,
                "{r:?}"
            );
        }
    }
}

#[test]
fn passes_go_on_until_the_budget_then_stop_at_the_maximum() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let cpus = usable_cpu_list(&Sysroot::live());
    let t0 = Instant::now();
    let r = dram::run(&cpus[..1], MIB, tiny(1, 1000, 150), Stores::best(), &|| {
        false
    });
    assert!(r.passes > 1 && r.passes <= 1000, "{r:?}");
    assert!(t0.elapsed() < Duration::from_secs(3));
    let r = dram::run(&cpus[..1], MIB, tiny(1, 4, 60_000), Stores::best(), &|| {
        false
    });
    assert_eq!(r.passes, 4);
}

#[test]
fn an_interrupt_stops_the_run_and_says_so() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let cpus = usable_cpu_list(&Sysroot::live());
    let r = dram::run(&cpus, MIB, tiny(3, 50, 60_000), Stores::best(), &|| true);
    assert!(r.cut_short);
    assert_eq!(r.passes, 0);
    assert_eq!(r.copy_gb_per_s, 0.0);
    assert!(r.verified, "the arrays keep their initial values");
}

#[test]
fn the_result_serializes_with_units_in_the_names() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let cpus = usable_cpu_list(&Sysroot::live());
    let r = dram::run(&cpus[..1], MIB, tiny(1, 1, 0), Stores::Cached, &|| false);
    let j = serde_json::to_value(&r).unwrap();
    assert!(j["copy_gb_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(j["stores"], "cached");
    assert_eq!(j["array_bytes"], MIB);
}

#[test]
fn the_section_runs_one_thread_then_all_cpus() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let cpus = usable_cpu_list(&Sysroot::live());
    let plan = dram::plan_arrays_for(Some(256 << 10), None);
    assert_eq!(plan.array_bytes, 256 * MIB);
    let small = dram::ArrayPlan {
        array_bytes: 2 * MIB,
        ..plan
    };
    let d = dram::measure_planned(small, &cpus, tiny(2, 2, 0), &|| false);
    assert_eq!(d.single.threads, 1);
    assert_eq!(d.single.cpus, vec![cpus[0]]);
    assert_eq!(d.single.stores, Stores::best());
    match &d.all {
        Some(all) => {
            assert!(cpus.len() > 1);
            assert_eq!(all.threads as usize, cpus.len());
            assert!(all.verified && all.triad_gb_per_s > 0.0);
        }
        None => assert_eq!(cpus.len(), 1),
    }
    // Interrupted: no all-CPU run.
    let d = dram::measure_planned(
        dram::plan_arrays_for(None, Some(12 * 1024)),
        &cpus,
        tiny(2, 2, 0),
        &|| true,
    );
    assert!(d.single.cut_short && d.all.is_none());
    assert_eq!(d.plan.array_bytes, MIB, "a 1 MiB floor under a tiny cap");
}
