//! The sections `--extended` adds after the standard report: CPU
//! conditions and the SMT contention test, DRAM bandwidth, storage latency
//! percentiles and device details. Same habits as the standard report:
//! `Label     : value` lines, one figure per column, units written out.
//!
//! Each CPU loop step, the memory bandwidth and each storage line say how
//! steady their rate was: `rate ± 1.2 % (60 x 500 ms)` is the half-width
//! of the 95 % interval of the step's mean rate (batch means over its
//! sub-interval samples, [`crate::stats::Summary`]) relative to the
//! printed figure, and the samples behind it.

use crate::blockdev::details::DeviceDetails;
use crate::conditions::tenancy::Words;
use crate::conditions::ProbedClock;
use crate::conditions::StepLoad;
use crate::cpu_loop::mhz::{ClockProbe, ProbeStatus};
use crate::cpu_loop::smt::SmtContention;
use crate::dd_io::Direction;
use crate::membw::dram::{DramBandwidth, DramNote, DramRun};
use crate::model::forms::device_details;
use crate::model::{BlockSize, CpuStep, IoLine, MemoryStep};
use crate::samples::Samples;
use crate::sysinfo::cpufreq::Cpufreq;
use crate::sysinfo::procstat::MhzSource;

/// `[ Extended: CPU ]`: steal time and clock of each loop step with the
/// rest of its load (steal once: clock and load come from one sample),
/// the measured clock (with the CPUs that differ), the cpufreq settings,
/// then the SMT contention test's verdict.
pub fn cpu_lines(
    steps: &[CpuStep],
    cpufreq: Option<&Cpufreq>,
    smt: Option<&SmtContention>,
) -> Vec<String> {
    let mut v = Vec::new();
    for s in steps {
        let cond = match &s.conditions.clock {
            Some(c) => {
                let clock = match (c.mean_mhz, c.mhz_source) {
                    (Some(m), MhzSource::Cpufreq) => format!("{m:6.0} MHz (cpufreq)"),
                    (Some(m), _) => format!("{m:6.0} MHz (cpuinfo, often the nominal clock)"),
                    (None, _) => "     ? MHz".to_string(),
                };
                format!("steal {:5.1} %   clock {clock}", c.steal_percent)
            }
            None => "steal     ? %   clock      ? MHz".to_string(),
        };
        let load = s
            .conditions
            .load
            .as_ref()
            .map(|l| words(l, false))
            .unwrap_or_default();
        let spread = spread_words(&s.samples, s.loops_per_s_mean)
            .map(|w| format!("   rate {w}"))
            .unwrap_or_default();
        v.push(format!("{:2} // jobs : {cond}{spread}{load}", s.jobs));
    }
    for s in steps {
        if let Some(t) = &s.conditions.tenancy {
            v.push(format!(
                "{CORE_LABEL}{} // jobs {}",
                s.jobs,
                t.words(Words::Loops)
            ));
        }
    }
    if let Some(line) = probe_line(steps) {
        v.push(line);
        for s in steps {
            if let Some(p) = &s.conditions.probe {
                v.extend(odd_cpus_lines(s.jobs, p));
            }
        }
    }
    v.extend(cpufreq_line(cpufreq));
    if let Some(p) = smt {
        v.push(format!("SMT probe : {}", p.verdict()));
        if let (Some(sib), Some(sep)) = (p.siblings_loops_per_s_each, p.separate_loops_per_s_each) {
            v.push(format!(
                "            siblings {:10.0} loop/job/s, separate cores {:10.0} loop/job/s",
                sib, sep
            ));
        }
    }
    v
}

/// The label of the lines of the core's tenancy, each step's in
/// `[ Extended: CPU ]` and the memory copy's in `[ Extended: Memory ]`.
pub const CORE_LABEL: &str = "Core      : ";

/// `Core      : alone 33.6 GB/s; shared 0 % of the time; level 14.47
/// B/cycle (best samples)`: the memory copy's tenancy, when judged.
pub fn dd_core_line(bw: &MemoryStep) -> Option<String> {
    let t = bw.conditions.tenancy.as_ref()?;
    Some(format!("{CORE_LABEL}{}", t.words(Words::Bytes)))
}

/// A measured clock as the `Clock` line prints it: `3694`, or `?`.
fn mhz_word(p: &ClockProbe) -> String {
    p.mean_mhz()
        .map_or_else(|| "?".to_string(), |m| format!("{m:.0}"))
}

/// The end of the `Clock` line when no chain is calibrated here.
pub const NOT_CALIBRATED: &str = " (no calibrated chain for this architecture)";

/// `Clock     : measured before the CPU loop 3694 MHz, after each step
/// 3690 3688 MHz`: the mean of the CPUs' measured clocks (the JSON has
/// each CPU's), when every step was probed.
fn probe_line(steps: &[CpuStep]) -> Option<String> {
    let probes: Vec<&ProbedClock> = steps
        .iter()
        .map(|s| s.conditions.probe.as_ref())
        .collect::<Option<_>>()?;
    let first = probes.first()?;
    let hot: Vec<String> = probes.iter().map(|p| mhz_word(&p.hot)).collect();
    let unknown = probes
        .iter()
        .any(|p| p.cold.status == ProbeStatus::UnknownArchitecture);
    Some(format!(
        "Clock     : measured before the CPU loop {} MHz, after each step {} MHz{}",
        mhz_word(&first.cold),
        hot.join(" "),
        if unknown { NOT_CALIBRATED } else { "" }
    ))
}

/// `CPU freq  : acpi-cpufreq ondemand 1200-2601 MHz on CPU(s) 0-1; boost
/// off`, when the host has cpufreq ([`Cpufreq::settings`]): the plan's
/// line and `-x`'s.
pub fn cpufreq_line(f: Option<&Cpufreq>) -> Option<String> {
    Some(format!("{CPUFREQ_LABEL}{}", f?.settings()?))
}

/// The label of the `CPU freq` line, in the plan and in `-x`.
pub const CPUFREQ_LABEL: &str = "CPU freq  : ";

/// How far from the median of the CPUs, or from its own clock before the
/// CPU loop, a CPU's clock after a step is (percent) before `-x` names it.
pub const CPU_DIFFERS_PERCENT: f64 = 2.0;

/// One CPU `-x` names under the `Clock` line: its clock after the step
/// and before the CPU loop, MHz (`None`: not calibrated).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OddCpu {
    /// The CPU, as numbered by the kernel.
    pub cpu: u32,
    /// Its measured clock right after the step.
    pub hot_mhz: Option<f64>,
    /// Its measured clock before the CPU loop.
    pub cold_mhz: Option<f64>,
}

/// The CPUs of a step's probe that differ: a clock after the step
/// [`CPU_DIFFERS_PERCENT`] or more away from the median of the CPUs or
/// from the CPU's own clock before the CPU loop, or a CPU whose probe did
/// not calibrate (only when others did: a probe where none did prints `?`
/// on the `Clock` line already). In the probe's order. The median, not
/// the mean: one CPU at 3000 MHz among seven at 3600 pulls the mean to
/// 3525, 2.1 % under the seven, which would name all eight.
pub fn odd_cpus(p: &ProbedClock) -> Vec<OddCpu> {
    let mut hot: Vec<f64> = p.hot.cpus.iter().filter_map(|c| c.mhz).collect();
    if hot.is_empty() {
        return Vec::new();
    }
    hot.sort_by(f64::total_cmp);
    let n = hot.len();
    let median = (hot[(n - 1) / 2] + hot[n / 2]) / 2.0;
    let cold_measured = p.cold.mean_mhz().is_some();
    let far = |mhz: f64, from: f64| 100.0 * (mhz - from).abs() / from >= CPU_DIFFERS_PERCENT;
    p.hot
        .cpus
        .iter()
        .map(|c| OddCpu {
            cpu: c.cpu,
            hot_mhz: c.mhz,
            cold_mhz: p
                .cold
                .cpus
                .iter()
                .find(|k| k.cpu == c.cpu)
                .and_then(|k| k.mhz),
        })
        .filter(|c| match (c.hot_mhz, c.cold_mhz) {
            (None, _) => true,
            (Some(h), Some(k)) => far(h, median) || far(h, k),
            (Some(h), None) => far(h, median) || cold_measured,
        })
        .collect()
}

/// The width the CPU lines of the `Clock` line wrap at.
const WIDTH: usize = 80;

/// The indent of a line that goes on with the one above.
pub const CONTINUATION_INDENT: &str = "            ";

/// `            after 2 jobs, 1 of 8 CPUs differ (hot/cold MHz): cpu3
/// 3120/3690`: the CPUs of a step that differ ([`odd_cpus`]), wrapped at
/// 80 columns on lines of the same indent; nothing when none does.
pub fn odd_cpus_lines(jobs: u32, p: &ProbedClock) -> Vec<String> {
    let odd = odd_cpus(p);
    if odd.is_empty() {
        return Vec::new();
    }
    let mhz = |m: Option<f64>| m.map_or_else(|| "?".to_string(), |m| format!("{m:.0}"));
    let mut lines = vec![format!(
        "{CONTINUATION_INDENT}after {jobs} job{}, {} of {} CPUs differ (hot/cold MHz):",
        if jobs == 1 { "" } else { "s" },
        odd.len(),
        p.hot.cpus.len()
    )];
    for (i, c) in odd.iter().enumerate() {
        let mut word = format!("cpu{} {}/{}", c.cpu, mhz(c.hot_mhz), mhz(c.cold_mhz));
        if i + 1 < odd.len() {
            word.push(',');
        }
        let last = lines.last_mut().expect("a first line");
        if last.len() + 1 + word.len() <= WIDTH {
            last.push(' ');
            last.push_str(&word);
        } else {
            lines.push(format!("{CONTINUATION_INDENT}{word}"));
        }
    }
    lines
}

fn dram_run_line(r: &DramRun) -> String {
    let label = if r.threads == 1 {
        " 1 thread ".to_string()
    } else {
        format!("{:2} threads", r.threads)
    };
    let mut s = format!(
        "{label}: copy {:6.1} GB/s   triad {:6.1} GB/s",
        r.copy_gb_per_s, r.triad_gb_per_s
    );
    if !r.pinned {
        s.push_str(&format!("   ({})", DramNote::NotPinned.text()));
    }
    if r.cut_short {
        s.push_str(" (interrupted)");
    }
    if !r.verified {
        s.push_str(&format!(" ({})", DramNote::NotVerified.text()));
    }
    s
}

/// `[ Extended: Memory ]`: DRAM copy and triad like STREAM, with 1 thread
/// and with all CPUs.
pub fn memory_lines(d: &DramBandwidth) -> Vec<String> {
    let mut v = vec![format!(
        "Arrays    : 3 x {} MiB (last-level cache {}), best of {} passes",
        d.plan.array_bytes >> 20,
        d.plan
            .llc_bytes
            .map_or_else(|| "unknown".to_string(), |b| format!("{} MiB", b >> 20)),
        d.single.passes
    )];
    if let Some(n) = d.plan.note() {
        v.push(format!("Note      : {n}"));
    }
    v.push(dram_run_line(&d.single));
    if let Some(all) = &d.all {
        v.push(dram_run_line(all));
    }
    v
}

/// One line of latency percentiles and device counters.
pub fn io_latency_line(l: &IoLine) -> String {
    let label = l.direction.label();
    let mut s = format!(
        "{} {:<6} ({:2} thread[s]): p50 {:>8.1}  p90 {:>8.1}  p99 {:>8.1}  p99.9 {:>8.1}  max {:>9.1} µs",
        BlockSize::from_bytes(l.block_size_bytes).map_or("?", BlockSize::label),
        label,
        l.jobs,
        l.lat_p50_us,
        l.lat_p90_us,
        l.lat_p99_us,
        l.lat_p999_us,
        l.lat_max_us
    );
    if let Some(w) = spread_words(&l.samples, l.iops) {
        s.push_str(&format!("  | IO/s {w}"));
    }
    match &l.device_stat_delta {
        Some(d) => {
            let dev_ios = match l.direction {
                Direction::Write => d.write_ios,
                Direction::Read => d.read_ios,
            };
            s.push_str(&format!("  | engine {} I/Os, device {dev_ios}", l.ios));
        }
        None => s.push_str("  | no device counters"),
    }
    if let Some(share) = l
        .conditions
        .reach
        .as_ref()
        .and_then(|r| r.device_share_percent)
    {
        s.push_str(&format!("; devices saw {share:.1} % of our bytes"));
    }
    if let Some(load) = &l.conditions.load {
        for d in &load.io {
            s.push_str(&format!(
                "; not ours on {}: {:.1} %",
                d.device, d.foreign_percent
            ));
        }
        s.push_str(&load_words(load));
    }
    s
}

/// `±  1.2 % (60 x 500 ms)`: the half-width of the 95 % interval of a
/// step's mean rate relative to its `figure`, and the samples behind it
/// (`± ? %` with a single sample); `None` without samples. The caller
/// says whose rate (`rate`, `IO/s`). One definition with its reader:
/// [`crate::model::forms::spread`].
pub fn spread_words(s: &Samples, figure: f64) -> Option<String> {
    crate::model::forms::spread::render(s, figure)
}

/// `Bandwidth : during the dd-like step, rate ±  1.2 % (60 x 500 ms);
/// others 3 % of a CPU, steal 0.1 %`: the memory bandwidth step's spread
/// and load, when either is known.
pub fn dd_bandwidth_line(bw: &MemoryStep) -> Option<String> {
    let spread = spread_words(&bw.samples, bw.bytes_per_s());
    let load = bw.conditions.load.as_ref().map(load_words);
    if spread.is_none() && load.is_none() {
        return None;
    }
    Some(format!(
        "Bandwidth : during the dd-like step{}{}",
        spread.map(|w| format!(", rate {w}")).unwrap_or_default(),
        load.unwrap_or_default()
    ))
}

/// `; others 3 % of a CPU, steal 0.1 %, throttled 0 %`: what else the host
/// did during a step, for every step of `-x`, marked or not.
pub fn load_words(load: &StepLoad) -> String {
    words(load, true)
}

/// [`load_words`], with or without the steal (a CPU loop step's line has
/// it in its own column).
fn words(load: &StepLoad, with_steal: bool) -> String {
    let mut s = String::new();
    if let Some(c) = &load.cpu {
        s.push_str(&format!("; others {:.0} % of a CPU", c.others_cpu_percent));
        if with_steal {
            s.push_str(&format!(", steal {:.1} %", c.steal_percent));
        }
    }
    if let Some(t) = load.throttled_percent_of_needed {
        s.push_str(&format!(", throttled {t:.0} %"));
    }
    s
}

/// `[ Extended: Storage ]`: device details, then latency percentiles per
/// line next to the device's own counters.
pub fn storage_lines(lines: &[IoLine], devices: &[DeviceDetails]) -> Vec<String> {
    let mut v: Vec<String> = devices
        .iter()
        .map(|d| format!("Device    : {}", device_details::render(d)))
        .collect();
    if devices.is_empty() {
        v.push("Device    : no local block device".to_string());
    }
    v.extend(lines.iter().map(io_latency_line));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockdev::BlockStat;
    use crate::conditions::{CpuConditions, Measured};
    use crate::cpu_loop::LoopStep;
    use crate::dd_io::LineResult;
    use crate::membw::DdBandwidth;

    fn line(direction: Direction, ios: u64, dev: Option<BlockStat>) -> IoLine {
        let mut l = LineResult::empty(4096, direction, 1);
        l.lat_p90_us = 40.0;
        l.lat_p99_us = 40.0;
        l.lat_p999_us = 40.0;
        l.lat_max_us = 40.0;
        l.ios = ios;
        l.lat_p50_us = 12.0;
        l.device_stat_delta = dev;
        Measured::plain(l).into()
    }

    fn delta(read_ios: u64, write_ios: u64) -> BlockStat {
        BlockStat {
            read_ios,
            read_merges: 0,
            read_sectors: 0,
            read_ticks_ms: 0,
            write_ios,
            write_merges: 0,
            write_sectors: 0,
            write_ticks_ms: 0,
            busy_ms: 0,
            time_in_queue_ms: 0,
            flush_ios: None,
        }
    }

    #[test]
    fn cpu_step_line_says_steal_once() {
        use crate::conditions::load::{cpu_load, LoadSnapshot};
        use crate::conditions::Clock;
        use crate::sysinfo::procstat::{CpuTimes, MhzSource};
        let snap = |user: u64, steal: u64, own_ticks: u64| LoadSnapshot {
            per_cpu: vec![(
                0,
                CpuTimes {
                    user,
                    steal,
                    ..CpuTimes::default()
                },
            )],
            own_ticks,
        };
        // 1 s on one CPU: 3 ticks stolen, others 5 ticks.
        let cpu = cpu_load(&snap(0, 0, 0), &snap(97, 3, 92), &[0], 1.0, 100).unwrap();
        let figure = LoopStep {
            jobs: 1,
            loops_per_s_each: vec![1.0],
            loops_per_s_mean: 1.0,
            elapsed_ns: 1,
            samples: Default::default(),
            end: crate::end::End::Complete,
        };
        let mut step = Measured {
            figure,
            conditions: CpuConditions {
                clock: Some(Clock {
                    steal_percent: cpu.steal_percent,
                    mean_mhz: Some(2599.6),
                    mhz_source: MhzSource::Cpufreq,
                    mhz_samples: 3,
                }),
                load: Some(StepLoad {
                    cpu: Some(cpu),
                    throttled_percent_of_needed: Some(7.2),
                    ..StepLoad::default()
                }),
                probe: None,
                tenancy: None,
            },
            marks: Vec::new(),
            marks_in_trials: Vec::new(),
        };
        assert_eq!(
            cpu_lines(&[step.clone().into()], None, None),
            vec![" 1 // jobs : steal   3.0 %   clock   2600 MHz (cpufreq); others 5 % of a CPU, throttled 7 %"]
        );
        // Other steps print the steal in their load words.
        assert_eq!(
            load_words(step.conditions.load.as_ref().unwrap()),
            "; others 5 % of a CPU, steal 3.0 %, throttled 7 %"
        );
        step.conditions = CpuConditions::default();
        assert_eq!(
            cpu_lines(&[step.into()], None, None),
            vec![" 1 // jobs : steal     ? %   clock      ? MHz"]
        );
    }

    #[test]
    fn latency_line_layout() {
        let l = line(Direction::Read, 25_000, Some(delta(25_000, 0)));
        assert_eq!(
            io_latency_line(&l),
            "4k Reads  ( 1 thread[s]): p50     12.0  p90     40.0  p99     40.0  p99.9     40.0  max      40.0 µs  | engine 25000 I/Os, device 25000"
        );
        let l = line(Direction::Write, 25_000, None);
        assert!(io_latency_line(&l).ends_with("| no device counters"));
    }

    /// Ten samples around 100 (those of the summary's scipy test): 95 %
    /// interval (88.08, 107.70), half-width 9.81.
    fn ten() -> Samples {
        Samples::new(
            vec![
                100.0, 102.0, 98.0, 101.0, 90.0, 91.0, 99.0, 103.0, 100.0, 97.0,
            ],
            Some(std::time::Duration::from_millis(500)),
        )
    }

    #[test]
    fn the_spread_is_the_interval_half_width_relative_to_the_figure() {
        assert_eq!(
            spread_words(&ten(), 98.0).unwrap(),
            "± 10.0 % (10 x 500 ms)"
        );
        assert_eq!(
            spread_words(&ten(), 981.0).unwrap(),
            "±  1.0 % (10 x 500 ms)"
        );
        let one = Samples::new(vec![5.0], Some(std::time::Duration::from_millis(20)));
        assert_eq!(spread_words(&one, 5.0).unwrap(), "±    ? % (1 x 20 ms)");
        let passes = Samples::new(vec![9.7, 10.0, 9.85], None);
        assert!(spread_words(&passes, 10.0)
            .unwrap()
            .ends_with("% (3 passes)"));
        assert_eq!(spread_words(&Samples::default(), 1.0), None);
    }

    #[test]
    fn lines_with_samples_say_their_spread_and_lines_without_do_not() {
        let mut l = line(Direction::Read, 25_000, Some(delta(25_000, 0)));
        l.figure.iops = 98.0;
        l.figure.samples = ten();
        assert_eq!(
            io_latency_line(&l),
            "4k Reads  ( 1 thread[s]): p50     12.0  p90     40.0  p99     40.0  p99.9     40.0  max      40.0 µs  | IO/s ± 10.0 % (10 x 500 ms)  | engine 25000 I/Os, device 25000"
        );
        let step = |samples| {
            Measured::plain(LoopStep {
                jobs: 2,
                loops_per_s_each: vec![98.0; 2],
                loops_per_s_mean: 98.0,
                elapsed_ns: 5_000_000_000,
                samples,
                end: crate::end::End::Complete,
            })
        };
        assert_eq!(
            cpu_lines(&[step(ten()).into()], None, None),
            vec![" 2 // jobs : steal     ? %   clock      ? MHz   rate ± 10.0 % (10 x 500 ms)"]
        );
        assert_eq!(
            cpu_lines(&[step(Samples::default()).into()], None, None),
            vec![" 2 // jobs : steal     ? %   clock      ? MHz"]
        );
        let bw = |samples| {
            Measured::plain(DdBandwidth {
                bytes: 98,
                elapsed_ns: 1_000_000_000,
                samples,
                end: crate::end::End::Complete,
            })
        };
        assert_eq!(
            dd_bandwidth_line(&bw(ten()).into()).unwrap(),
            "Bandwidth : during the dd-like step, rate ± 10.0 % (10 x 500 ms)"
        );
        assert_eq!(dd_bandwidth_line(&bw(Samples::default()).into()), None);
    }

    /// A probe of CPUs 0.. at `mhz` each (`None`: not calibrated).
    fn probe(mhz: &[Option<f64>]) -> ClockProbe {
        use crate::cpu_loop::mhz::CpuMhz;
        ClockProbe {
            cpus: mhz
                .iter()
                .enumerate()
                .map(|(i, &m)| CpuMhz {
                    cpu: i as u32,
                    add_chain_mhz: m.unwrap_or(0.0),
                    imul_chain_mhz: m.unwrap_or(0.0),
                    mhz: m,
                })
                .collect(),
            status: if mhz.iter().any(Option::is_some) {
                ProbeStatus::Measured
            } else {
                ProbeStatus::NotCalibrated
            },
            elapsed_ns: 50_000_000,
        }
    }

    fn probed(cold: &[Option<f64>], hot: &[Option<f64>]) -> ProbedClock {
        ProbedClock {
            cold: probe(cold),
            hot: probe(hot),
        }
    }

    #[test]
    fn cpus_that_agree_add_no_line() {
        // Within 2 % of the mean (3600) and of their own cold clocks.
        let p = probed(
            &[Some(3600.0), Some(3650.0), Some(3580.0), Some(3610.0)],
            &[Some(3590.0), Some(3640.0), Some(3570.0), Some(3600.0)],
        );
        assert_eq!(odd_cpus(&p), Vec::new());
        assert_eq!(odd_cpus_lines(4, &p), Vec::<String>::new());
        // A probe where no CPU calibrated: the Clock line's `?` says it.
        let p = probed(&[None, None], &[None, None]);
        assert_eq!(odd_cpus_lines(2, &p), Vec::<String>::new());
    }

    #[test]
    fn a_slow_cpu_is_named_with_its_cold_clock() {
        // CPU 2 runs at 3000 after the step: 17 % under the median (3600)
        // and under its cold 3600. (The mean, 3450, is 4.3 % under the
        // others: it would name them all.)
        let p = probed(
            &[Some(3600.0); 4],
            &[Some(3600.0), Some(3600.0), Some(3000.0), Some(3600.0)],
        );
        assert_eq!(
            odd_cpus(&p).iter().map(|c| c.cpu).collect::<Vec<_>>(),
            vec![2]
        );
        // The median of an even count is the mean of the middle two: of
        // 3000, 3100, 3600, 3700 it is 3350, and all four are 7 % or
        // more from it.
        let p = probed(
            &[Some(3600.0); 4],
            &[Some(3000.0), Some(3100.0), Some(3600.0), Some(3700.0)],
        );
        assert_eq!(odd_cpus(&p).len(), 4);
        let mut hot = vec![Some(3600.0); 16];
        hot[2] = Some(3000.0);
        let p = probed(&[Some(3600.0); 16], &hot);
        assert_eq!(
            odd_cpus(&p),
            vec![OddCpu {
                cpu: 2,
                hot_mhz: Some(3000.0),
                cold_mhz: Some(3600.0)
            }]
        );
        assert_eq!(
            odd_cpus_lines(4, &p),
            vec!["            after 4 jobs, 1 of 16 CPUs differ (hot/cold MHz): cpu2 3000/3600"]
        );
        // A CPU at the median but 2.5 % under its own cold clock, and one
        // that did not calibrate.
        let mut cold = vec![Some(3600.0); 16];
        cold[5] = Some(3690.0);
        hot[7] = None;
        let lines = odd_cpus_lines(1, &probed(&cold, &hot));
        assert_eq!(
            lines,
            vec![
                "            after 1 job, 3 of 16 CPUs differ (hot/cold MHz): cpu2 3000/3600,",
                "            cpu5 3600/3690, cpu7 ?/3600"
            ]
        );
    }

    #[test]
    fn many_cpus_wrap_at_80_columns() {
        // Half the CPUs at 2000, half at 4000: every CPU is 33 % off the
        // median of 3000.
        let hot: Vec<Option<f64>> = (0..64)
            .map(|i| Some(if i % 2 == 0 { 2000.0 } else { 4000.0 }))
            .collect();
        let lines = odd_cpus_lines(64, &probed(&hot, &hot));
        assert!(lines.len() > 10, "{lines:?}");
        for l in &lines {
            assert!(l.chars().count() <= 80, "{l}");
            assert!(l.starts_with(CONTINUATION_INDENT), "{l}");
        }
        let words = lines
            .iter()
            .map(|l| l.matches("cpu").count())
            .sum::<usize>();
        assert_eq!(words, 64);
        assert!(lines[0].contains("64 of 64 CPUs differ"));
        assert!(lines.last().unwrap().ends_with("cpu63 4000/4000"));
    }
}
