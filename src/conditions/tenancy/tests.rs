//! The classing of recorded series: the 1-job CPU loop step of real runs
//! (`quickbench --json --only cpu 2` on a 2-vCPU AMD EPYC guest, each
//! run pinned to CPU 1 while the guest's other work was stopped), its
//! samples' rates and core readings (`series/`):
//!
//! * `half_shared`: the host's other tenant took the core for part of
//!   the run (per cycle ~0.122 alone, ~0.08 shared, the clock held);
//! * `shared_throughout`: shared the whole time (~0.073 per cycle);
//! * `quiet`: the tenant away (~0.122 per cycle throughout);
//! * `busy`: a spinning process on the same CPU (on the CPU ~47 %);
//! * `stopped`: the process stopped 10 ms of every 20 ms (SIGSTOP and
//!   SIGCONT), time taken away as steal takes it;
//! * `quota`: a cgroup CPU quota of 0.5 CPU (throttled).
//!
//! In the last three the tenant was away: the core did its full work
//! per cycle whenever the job ran.

use super::*;

#[derive(serde::Deserialize)]
struct Series {
    rates: Vec<f64>,
    mhz: Vec<f64>,
    per_cycle: Vec<f64>,
    on_cpu: Vec<f64>,
}

impl Series {
    fn core(&self) -> CoreSamples {
        CoreSamples {
            mhz: self.mhz.clone(),
            per_cycle: self.per_cycle.clone(),
            on_cpu: self.on_cpu.clone(),
        }
    }
}

fn series(json: &str) -> Series {
    serde_json::from_str(json).unwrap()
}

const BOUND: f64 = 0.125;

/// Classed as the runner does when the run reached the loop's bound.
fn judged(s: &Series) -> Tenancy {
    let core = s.core();
    let level = level(&[&core], Some(BOUND), true, CPU_SHARED_BELOW).unwrap();
    classify(&s.rates, &core, &level)
}

fn median_of(v: &[f64]) -> f64 {
    median(v.to_vec()).unwrap()
}

#[test]
fn a_half_shared_run_is_marked_with_its_share_and_loss() {
    let s = series(include_str!("series/half_shared.json"));
    let t = judged(&s);
    let f = t.shared_fraction.unwrap();
    assert!((0.4..=0.7).contains(&f), "{t:?}");
    let loss = t.shared_loss_percent.unwrap();
    assert!((20.0..=45.0).contains(&loss), "{t:?}");
    let (percent, _) = marked(&t).expect("marked");
    assert!((percent - 100.0 * f).abs() < 1e-9);
    // the rate alone is the fast cluster's: above every shared sample's
    let alone = t.alone_rate.unwrap();
    let shared_max = s
        .rates
        .iter()
        .zip(t.sample_classes.chars())
        .filter(|(_, c)| *c == 's')
        .map(|(r, _)| *r)
        .fold(0.0, f64::max);
    assert!(alone > shared_max * 0.9, "{alone} vs {shared_max}");
    assert_eq!(t.per_cycle_level_from, Some(LevelFrom::Bound));
}

#[test]
fn a_run_shared_all_the_time_is_seen_against_the_bound() {
    let s = series(include_str!("series/shared_throughout.json"));
    let t = judged(&s);
    assert!(t.shared_fraction.unwrap() > 0.9, "{t:?}");
    assert_eq!(t.alone_rate, None, "{t:?}");
    // Without a reached bound, the run's best samples are the level:
    // nothing can be called shared then, and -x says where it came from.
    let core = s.core();
    let l = level(&[&core], Some(BOUND), false, CPU_SHARED_BELOW).unwrap();
    assert_eq!(l.from, LevelFrom::BestSamples);
    let t = classify(&s.rates, &core, &l);
    assert!(t.shared_fraction.unwrap() < 0.1, "{t:?}");
}

#[test]
fn a_quiet_run_is_alone() {
    let s = series(include_str!("series/quiet.json"));
    let t = judged(&s);
    assert!(t.shared_fraction.unwrap() <= 0.05, "{t:?}");
    assert_eq!(marked(&t), None);
    assert!(median_of(&s.on_cpu) > 0.95);
}

#[test]
fn busy_steal_and_a_quota_take_time_not_work_per_cycle() {
    for (name, json) in [
        ("busy", include_str!("series/busy.json")),
        ("stopped", include_str!("series/stopped.json")),
        ("quota", include_str!("series/quota.json")),
    ] {
        let s = series(json);
        // the job was off the CPU a third of the time or more...
        let on = s.on_cpu.iter().sum::<f64>() / s.on_cpu.len() as f64;
        assert!(on < 0.75, "{name}: {on}");
        // ...which is not a shared core
        let t = judged(&s);
        assert!(t.shared_fraction.unwrap() <= 0.05, "{name}: {t:?}");
        assert_eq!(marked(&t), None, "{name}");
        // and the rate alone is the figure's own (time off included)
        let mean = s.rates.iter().sum::<f64>() / s.rates.len() as f64;
        let ratio = t.alone_rate.unwrap() / mean;
        assert!((0.95..1.15).contains(&ratio), "{name}: {ratio}");
    }
}

#[test]
fn a_clock_change_keeps_the_work_per_cycle_and_is_not_shared() {
    // The busy run with its second half at 60 % of the clock (throttling):
    // rates and clock fall together, the work per cycle holds.
    let mut s = series(include_str!("series/busy.json"));
    let half = s.rates.len() / 2;
    for i in half..s.rates.len() {
        s.rates[i] *= 0.6;
        s.mhz[i] *= 0.6;
    }
    let before = judged(&s);
    let t = judged(&s);
    assert_eq!(t.shared_fraction, before.shared_fraction, "{t:?}");
    assert!(t.shared_fraction.unwrap() <= 0.05, "{t:?}");
    // Less work per cycle and a lower clock at once is not classed: the
    // clock moved, which the clock marks own.
    for i in half..s.rates.len() {
        s.per_cycle[i] *= 0.6;
    }
    let t = judged(&s);
    assert_eq!(&t.sample_classes[half..], &".".repeat(s.rates.len() - half));
    assert!(t.shared_fraction.unwrap() <= 0.1, "{t:?}");
}

#[test]
fn the_level_is_the_ninetieth_percentile_by_nearest_rank() {
    // numpy.percentile([1..10], 90, method='inverted_cdf') == 9
    let mut v: Vec<f64> = (1..=10).rev().map(f64::from).collect();
    assert_eq!(quantile(&mut v, 0.9), 9.0);
    let mut one = vec![4.0];
    assert_eq!(quantile(&mut one, 0.9), 4.0);
    // 0.9 × 20 = 18: rank 18 of 1..20
    let mut w: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!(quantile(&mut w, 0.9), 18.0);
}

#[test]
fn the_bound_is_reached_by_the_best_samples_only() {
    let s = series(include_str!("series/half_shared.json"));
    assert!(reaches(&[&s.core()], BOUND));
    let q = series(include_str!("series/shared_throughout.json"));
    assert!(!reaches(&[&q.core()], BOUND));
    let q = series(include_str!("series/quiet.json"));
    assert!(reaches(&[&q.core()], BOUND));
}

#[test]
fn too_few_readings_are_not_judged() {
    let c = CoreSamples {
        mhz: vec![3000.0, 0.0, 3000.0],
        per_cycle: vec![0.1, 0.0, 0.1],
        on_cpu: vec![1.0; 3],
    };
    assert_eq!(
        level(&[&c], Some(BOUND), true, CPU_SHARED_BELOW),
        Err(Unjudged::TooFewSamples)
    );
}

#[test]
fn words_read_back() {
    let t = Tenancy {
        alone_rate: Some(380_838_239.0),
        shared_fraction: Some(0.15),
        shared_loss_percent: Some(29.0),
        per_cycle_level: Some(0.125),
        per_cycle_level_from: Some(LevelFrom::Bound),
        sample_classes: String::new(),
        tenancy_unjudged: None,
    };
    let w = t.words(Words::Loops);
    assert_eq!(
        w,
        "alone 380838239 loop/job/s; shared 15 % of the time, -29 % work per cycle; \
         level 0.1250 loop/cycle (the loop's bound)"
    );
    assert_eq!(Tenancy::parse_words(&w, Words::Loops), Some(t));
    let u = Tenancy::unjudged(Unjudged::OwnSiblings);
    assert_eq!(
        Tenancy::parse_words(&u.words(Words::Bytes), Words::Bytes),
        Some(u)
    );
    assert_eq!(
        Tenancy::parse_words("alone 3 loop/job/s", Words::Loops),
        None
    );
}
