//! Steal time and clock during a real CPU loop step, the way the report
//! samples them: the sampler polled from the step's stop check.

use std::time::Duration;

use quickbench::cpu_loop::run_step;
use quickbench::sysinfo::procstat::{sample_during, MhzSource};
use quickbench::Sysroot;

#[test]
fn a_step_sampled_from_its_stop_check() {
    if !std::path::Path::new("/proc/stat").exists() {
        eprintln!("skipped a_step_sampled_from_its_stop_check: no /proc/stat");
        return;
    }
    let (step, c) = sample_during(&Sysroot::live(), |s| {
        run_step(1, Duration::from_millis(700), &|| {
            s.poll();
            false
        })
    })
    .unwrap();
    assert!(!step.cut_short);
    assert!((0.0..=100.0).contains(&c.steal_percent), "{c:?}");
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
