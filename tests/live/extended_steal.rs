//! Steal time and clock during a real CPU loop step, the way the report
//! samples them: one sampler around the step, polled from its stop check.

use std::time::Duration;

use quickbench::conditions::Sampler;
use quickbench::cpu_loop::run_step;
use quickbench::sysinfo::cgroup::CgroupLimits;
use quickbench::sysinfo::procstat::MhzSource;
use quickbench::Sysroot;

#[test]
fn a_step_sampled_from_its_stop_check() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !std::path::Path::new("/proc/stat").exists() {
        eprintln!("skipped a_step_sampled_from_its_stop_check: no /proc/stat");
        return;
    }
    let s = Sampler::start(&Sysroot::live(), &[], &CgroupLimits::default())
        .unwrap()
        .with_clock();
    let step = run_step(1, Duration::from_millis(700), &|| {
        s.poll();
        false
    });
    let sample = s.finish(1.0);
    assert!(step.end.is_complete());
    let c = sample.clock.expect("a clock sampler gives a clock");
    assert!((0.0..=100.0).contains(&c.steal_percent), "{c:?}");
    assert_eq!(
        Some(c.steal_percent),
        sample.load.cpu.as_ref().map(|l| l.steal_percent),
        "the clock's steal is the load's"
    );
    match c.mhz_source {
        MhzSource::None => assert_eq!(c.mean_mhz, None),
        _ => {
            // Start, one poll after 500 ms, finish.
            assert_eq!(c.mhz_samples, 3, "{c:?}");
            let m = c.mean_mhz.unwrap();
            assert!(m > 10.0 && m < 20_000.0, "{c:?}");
        }
    }
    let j = serde_json::to_value(c).unwrap();
    assert!(j.get("steal_percent").is_some() && j.get("mean_mhz").is_some());
}
