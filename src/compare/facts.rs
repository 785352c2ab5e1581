//! What one report says, section by section in report order: one function
//! per section turns it into [`Fact`]s (the `-x` sections are
//! [`super::facts_extended`]'s, the added ones [`super::facts_added`]'s).
//! Nothing here compares.

use std::collections::HashMap;

use super::fact::{Better, Fact, FactTrial, Figure, FigureKind, LineId, Method, RowSection, Unit};
use super::facts_added::facts_added;
use super::facts_extended::facts_extended;
use crate::conditions::{Mark, Tenancy};
use crate::model::{BlockSize, IoTrial, Repeated, Report, StackNode};
use crate::stats::{Summary, TrialValue};
use crate::units::dd_rate;

/// The kernel text without the host name (`uname -a`'s second word),
/// which differs on every host and has its own line.
fn kernel_without_host(kernel: &str) -> String {
    let mut w: Vec<&str> = kernel.split_whitespace().collect();
    if w.len() > 2 {
        w.remove(1);
    }
    w.join(" ")
}

/// What a report says, in report order.
pub fn facts(r: &Report) -> Vec<Fact> {
    let mut v = header(r);
    v.extend(cpu_info(r));
    v.extend(cpu_loop(r));
    v.extend(memory(r));
    v.extend(storage_info(r));
    v.extend(storage_stack(r));
    v.extend(storage_bandwidth(r));
    v.extend(facts_extended(r));
    v.extend(facts_added(r));
    v
}

/// How the report's CPU loop counts: ours of its definition, or bash's.
fn loop_method(r: &Report) -> Method {
    match &r.original {
        Some(_) => Method::BashLoop,
        None => Method::Loop(r.quickbench.loop_version),
    }
}

/// The header: who ran, where, built how, the loop and the limits.
fn header(r: &Report) -> Vec<Fact> {
    let h = &r.quickbench;
    let line = |label: &str, text: String| Fact::info(RowSection::Header, label, text);
    let mut v = Vec::new();
    v.push(line(
        "Quickbench",
        match &r.original {
            Some(o) => format!("bash original {}", o.version),
            None => format!("port {}", h.port_version),
        },
    ));
    v.push(line("Host", r.hostname.clone()));
    v.push(line("Kernel", kernel_without_host(&h.kernel)));
    v.push(line(
        "Build",
        match &r.original {
            Some(o) => format!(
                "bash: {}; dd: {}",
                o.bash.as_deref().unwrap_or("?"),
                o.dd.as_deref().unwrap_or("?")
            ),
            None => format!(
                "{}, {}, {}",
                h.rustc,
                h.target,
                if h.static_build { "static" } else { "dynamic" }
            ),
        },
    ));
    v.push(line("CPU loop", loop_method(r).to_string()));
    if let Some(d) = r.loop_delay_s {
        v.push(line("Loop delay", format!("{d} s")));
    }
    // Reports taken under different cgroup limits are not compared blindly.
    let limits = r.limits.as_ref();
    // Our report prints its quota above the CPU loop when there is one: a
    // report of ours with a CPU loop and no quota had none, and says
    // `none`, so that such a side reads as such, not as a missing line.
    match limits.and_then(|l| l.cpu_quota.as_ref()) {
        Some(q) => v.push(line(
            "CPU quota",
            q.limit_line().trim_start_matches("Limited to ").to_string(),
        )),
        None if r.original.is_none() && !r.cpu_loop.is_empty() => {
            v.push(line("CPU quota", "none".to_string()))
        }
        None => {}
    }
    if let Some(m) = limits.and_then(|l| l.memory_limit_bytes) {
        v.push(line("Memory limit", format!("{} MB (cgroup)", m >> 20)));
    }
    v
}

/// `[ CPU info ]`: one line per label (numbered when a label repeats).
fn cpu_info(r: &Report) -> Vec<Fact> {
    let Some(info) = &r.cpu_info else {
        return Vec::new();
    };
    let mut seen: HashMap<&str, usize> = HashMap::new();
    info.lines
        .iter()
        .map(|l| {
            let n = seen.entry(l.label.as_str()).or_default();
            *n += 1;
            let label = if *n == 1 {
                l.label.trim_end_matches(':').to_string()
            } else {
                format!("{} ({})", l.label.trim_end_matches(':'), n)
            };
            Fact::info(RowSection::CpuInfo, label, l.value.clone())
        })
        .collect()
}

/// `[ CPU loop ]`: each step's loops per job and second.
fn cpu_loop(r: &Report) -> Vec<Fact> {
    let method = loop_method(r);
    r.cpu_loop
        .iter()
        .flat_map(|s| {
            let mut f = Figure::new(
                RowSection::CpuLoop,
                format!("{:2} // jobs", s.jobs),
                (
                    Better::Higher,
                    Unit::LoopsPerJobPerSecond,
                    FigureKind::CpuLoop,
                ),
                s.loops_per_s_mean.trunc(),
                format!("{}", s.loops_per_s_mean.max(0.0) as u64),
            );
            f.trials = runs_of(s)
                .into_iter()
                .map(|t| trial(t.loops_per_s_mean.trunc(), sampled(&t.samples), &t.marks))
                .collect();
            f.line = LineId::CpuJobs(s.jobs);
            f.measure = Some(format!("cpu loop {} jobs", s.jobs));
            f.method = Some(method.clone());
            f.end = s.end.clone();
            f.marks = s.marks.clone();
            let label = format!("{:2} // jobs", s.jobs);
            let kind = (Unit::LoopsPerJobPerSecond, FigureKind::CpuLoop);
            let mut v = vec![Fact::Figure(f)];
            v.extend(tenancy_figures(
                s,
                (&label, Some(s.jobs)),
                kind,
                |t| &t.figure.samples,
                |t| t.conditions.tenancy.as_ref(),
            ));
            for f in &mut v[1..] {
                if let Fact::Figure(f) = f {
                    f.method = Some(method.clone());
                }
            }
            v
        })
        .collect()
}

/// The rows of a step's tenancy, when it was judged: `<label> alone`, the
/// figure over the samples classed alone (each trial's), and `<label>
/// not shared`, the share of the time the core was not shared (each
/// trial's; at least 1 %, so that a trial shared throughout still has a
/// ratio), judged like the step from its trials.
fn tenancy_figures<M>(
    step: &Repeated<M>,
    (label, jobs): (&str, Option<u32>),
    (unit, kind): (Unit, FigureKind),
    samples: impl Fn(&M) -> &crate::samples::Samples,
    tenancy: impl Fn(&M) -> Option<&Tenancy>,
) -> Vec<Fact>
where
    M: HasMarks,
{
    let Some(t) = tenancy(&step.step).filter(|t| t.shared_fraction.is_some()) else {
        return Vec::new();
    };
    let runs = runs_of(step);
    // The step's own measurement read two more ways: one figure of its
    // family, as a storage line's MB/s, IO/s and latency are.
    let measure = match jobs {
        Some(j) => format!("cpu loop {j} jobs"),
        None => "memory bandwidth".into(),
    };
    let mut v = Vec::new();
    if let Some(alone) = t.alone_rate {
        let mut f = Figure::new(
            step_section(jobs),
            format!("{label} alone"),
            (Better::Higher, unit, kind),
            alone,
            rate_words(unit, alone),
        );
        f.line = LineId::Alone(jobs);
        f.measure = Some(measure.clone());
        f.marks = step.step.marks().to_vec();
        f.trials = runs
            .iter()
            .filter_map(|r| {
                let rt = tenancy(r)?;
                let s = samples(r);
                let alone: Vec<f64> = s
                    .samples
                    .iter()
                    .zip(rt.sample_classes.chars())
                    .filter(|(_, c)| *c == 'a')
                    .map(|(x, _)| *x)
                    .collect();
                // A trial judged only by its samples needs their interval:
                // a rate alone of a sample or two is no figure.
                let within = Summary::of_finite(&alone).filter(|w| w.ci95_lo.is_some());
                Some(trial(rt.alone_rate?, Some(within?), r.marks()))
            })
            .collect();
        if !f.trials.is_empty() {
            v.push(Fact::Figure(f));
        }
    }
    let not_shared = |f: f64| (100.0 * (1.0 - f)).max(1.0);
    let value = not_shared(t.shared_fraction.unwrap_or(0.0));
    let mut f = Figure::new(
        step_section(jobs),
        format!("{label} not shared"),
        (Better::Higher, Unit::PercentOfTime, FigureKind::Tenancy),
        value,
        format!("{value:.0}"),
    );
    f.line = LineId::NotShared(jobs);
    f.measure = Some(measure);
    f.marks = step.step.marks().to_vec();
    f.trials = runs
        .iter()
        .filter_map(|r| {
            let rt = tenancy(r)?;
            // Each sample's own: 100 not shared, 1 shared (the floor).
            let each: Vec<f64> = (rt.sample_classes.chars())
                .filter(|c| *c != '.')
                .map(|c| if c == 's' { 1.0 } else { 100.0 })
                .collect();
            let within = Summary::of_finite(&each);
            // Busy and steal take time, not work per cycle: no trial of
            // this row is left out for them.
            Some(trial(not_shared(rt.shared_fraction?), within, &[]))
        })
        .collect();
    v.push(Fact::Figure(f));
    v
}

/// The section of a step's tenancy rows: the step's (a CPU loop step by
/// its jobs, else the memory bandwidth).
fn step_section(jobs: Option<u32>) -> RowSection {
    match jobs {
        Some(_) => RowSection::CpuLoop,
        None => RowSection::Memory,
    }
}

/// A rate as its step's line prints it.
fn rate_words(unit: Unit, rate: f64) -> String {
    match unit {
        Unit::BytesPerSecond => dd_rate(rate.max(0.0) as u64, 1_000_000_000),
        _ => format!("{}", rate.max(0.0) as u64),
    }
}

/// A trial's marks, for its distortion.
trait HasMarks {
    fn marks(&self) -> &[Mark];
}

impl<F, C> HasMarks for crate::conditions::Measured<F, C> {
    fn marks(&self) -> &[Mark] {
        &self.marks
    }
}

/// `[ Memory ]`: the total, and the bandwidth.
fn memory(r: &Report) -> Vec<Fact> {
    let Some(m) = &r.memory else {
        return Vec::new();
    };
    let mut v = Vec::new();
    if let Some(kib) = m.mem_total_kib {
        v.push(Fact::info(
            RowSection::Memory,
            "Total",
            format!("{} MB", kib >> 10),
        ));
    }
    if let Some(bw) = &m.dd_bandwidth {
        let mut f = Figure::new(
            RowSection::Memory,
            "Bandwidth",
            (Better::Higher, Unit::BytesPerSecond, FigureKind::Memory),
            bw.bytes_per_s(),
            dd_rate(bw.bytes, bw.elapsed_ns),
        );
        f.trials = runs_of(bw)
            .into_iter()
            .map(|t| trial(t.bytes_per_s(), sampled(&t.samples), &t.marks))
            .collect();
        f.line = LineId::MemoryBandwidth;
        f.end = bw.end.clone();
        f.marks = bw.marks.clone();
        f.measure = Some("memory bandwidth".into());
        v.push(Fact::Figure(f));
        v.extend(tenancy_figures(
            bw,
            ("Bandwidth", None),
            (Unit::BytesPerSecond, FigureKind::Memory),
            |t| &t.figure.samples,
            |t| t.conditions.tenancy.as_ref(),
        ));
    }
    v
}

/// `[ Storage info ]`: one line per device.
fn storage_info(r: &Report) -> Vec<Fact> {
    r.storage_info
        .iter()
        .flatten()
        .map(|d| {
            Fact::info(
                RowSection::StorageInfo,
                d.name.clone(),
                format!(
                    "{}, {} GB, queue depth {}, {}",
                    d.bus,
                    d.size_gib,
                    d.queue_depth.map_or("?".into(), |q| q.to_string()),
                    d.model.as_deref().unwrap_or("?")
                ),
            )
        })
        .collect()
}

/// `[ Storage device stack ]`: its devices, in one line.
fn storage_stack(r: &Report) -> Vec<Fact> {
    let Some(s) = &r.storage_stack else {
        return Vec::new();
    };
    fn walk(n: &StackNode, out: &mut Vec<String>) {
        out.push(format!("{} ({})", n.name, n.kind));
        n.children.iter().for_each(|c| walk(c, out));
    }
    let mut names = Vec::new();
    s.roots.iter().for_each(|n| walk(n, &mut names));
    vec![Fact::info(
        RowSection::StorageStack,
        "Devices",
        names.join(", "),
    )]
}

/// The storage sections: what they measured (or why they were skipped),
/// then each line's MB/s, IO/s and mean latency.
fn storage_bandwidth(r: &Report) -> Vec<Fact> {
    let mut v = Vec::new();
    if !r.storage_bandwidth.is_empty() || r.storage_bandwidth_skipped.is_some() {
        v.push(Fact::info(
            RowSection::StorageBandwidth,
            "Storage",
            storage_words(r),
        ));
    }
    if r.storage_bandwidth.is_empty() {
        if let Some(why) = &r.storage_bandwidth_skipped {
            v.push(Fact::info(
                RowSection::StorageBandwidth,
                "Skipped",
                why.clone(),
            ));
        }
    }
    let latency = if r.original.is_some() {
        Method::BashQueueTime
    } else {
        Method::CompletionLatency
    };
    for l in &r.storage_bandwidth {
        if let Some(bs) = BlockSize::from_bytes(l.block_size_bytes) {
            v.extend(storage_line(l, bs, latency.clone()).map(Fact::Figure));
        }
    }
    v
}

/// One storage line's three figures: MB/s, IO/s, mean latency.
fn storage_line(
    l: &crate::model::IoLine,
    bs: BlockSize,
    latency: Method,
) -> impl Iterator<Item = Figure> + '_ {
    let section = RowSection::StorageLines(bs);
    let line = format!("{:<6} ({:>2} thread[s])", l.direction.label(), l.jobs);
    let measure = format!("{section}: {line}");
    let kind = match bs {
        BlockSize::K4 => FigureKind::Storage4k,
        BlockSize::M1 => FigureKind::Storage1M,
    };
    // The samples are the line's IO/s. MB/s is IO/s times the block
    // size: the same relative spread. The latency has no samples of its
    // own; with a fixed number of jobs each waiting for its I/O, the
    // mean latency is jobs / (IO/s) (Little's law), so to first order
    // its relative spread is the IO/s's, which it borrows.
    let runs: Vec<(&IoTrial, Option<Summary>)> = runs_of(l)
        .into_iter()
        .map(|t| (t, sampled(&t.samples)))
        .collect();
    type Pick = fn(&crate::dd_io::LineResult) -> f64;
    let figures: [(Unit, Better, Pick); 3] = [
        (Unit::MegabytesPerSecond, Better::Higher, |l| {
            l.mb_per_s.trunc()
        }),
        (Unit::IoPerSecond, Better::Higher, |l| l.iops.trunc()),
        (Unit::MeanLatencyMicroseconds, Better::Lower, |l| {
            l.lat_mean_us.trunc()
        }),
    ];
    figures.into_iter().map(move |(unit, better, pick)| {
        let value = pick(l);
        let mut f = Figure::new(
            section,
            format!("{line} {unit}"),
            (better, unit, kind),
            value,
            format!("{}", value.max(0.0) as u64),
        );
        f.trials = runs
            .iter()
            .map(|(t, within)| trial(pick(t), within.clone(), &t.marks))
            .collect();
        f.line = LineId::Storage {
            direction: l.direction,
            jobs: l.jobs,
        };
        f.marks = l.marks.clone();
        f.end = l.end.clone();
        f.measure = Some(measure.clone());
        if better == Better::Lower {
            f.method = Some(latency.clone());
        }
        f
    })
}

/// Every run of one timed step: the step itself, or with `--repeat` each
/// of its trials. The one place that reads a step's trials: each becomes
/// one trial of the figure, for the side its report belongs to.
fn runs_of<M>(step: &Repeated<M>) -> Vec<&M> {
    if step.trials.is_empty() {
        vec![&step.step]
    } else {
        step.trials.iter().map(|t| &t.step).collect()
    }
}

/// The summary of a step's sub-interval samples: the one its report
/// stores (`sample_summary`, which the run computed from these samples
/// and the reader checked against their count), else, for a report that
/// lists samples without one, computed from them; `None` without either.
fn sampled(s: &crate::samples::Samples) -> Option<Summary> {
    match &s.sample_summary {
        Some(stored) => Some(stored.clone()),
        None if s.samples.is_empty() => None,
        None => Summary::of_finite(&s.samples),
    }
}

fn trial(value: f64, within: Option<Summary>, marks: &[Mark]) -> FactTrial {
    FactTrial {
        trial: TrialValue { value, within },
        distorted: super::fact::distortion(marks),
    }
}

/// `vda (ext4)`, `dm-1`, or what is known of the storage benchmarked.
fn storage_words(r: &Report) -> String {
    let device = r
        .storage_io
        .as_ref()
        .and_then(|s| s.device.clone())
        .or_else(|| r.storage_target.as_ref().map(|t| t.display.clone()));
    let fs = r.place().and_then(|(_, fd)| fd).map(|(fs, _)| fs);
    match (device, fs) {
        (Some(d), Some(fs)) => format!("{d} ({fs})"),
        (Some(d), None) => d,
        (None, Some(fs)) => format!("? ({fs})"),
        (None, None) => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(alone: Option<f64>, shared: f64, classes: &str) -> crate::model::CpuTrial {
        let mut t = crate::model::CpuTrial::plain(crate::cpu_loop::LoopStep {
            jobs: 1,
            loops_per_s_each: vec![100.0],
            loops_per_s_mean: 100.0,
            elapsed_ns: 1,
            samples: crate::samples::Samples::new(
                classes
                    .chars()
                    .map(|c| if c == 'a' { 120.0 } else { 80.0 })
                    .collect(),
                None,
            ),
            end: crate::end::End::Complete,
        });
        t.conditions.tenancy = Some(Tenancy {
            alone_rate: alone,
            shared_fraction: Some(shared),
            sample_classes: classes.into(),
            ..Tenancy::default()
        });
        t
    }

    #[test]
    fn a_steps_tenancy_gives_alone_and_not_shared_rows_from_its_trials() {
        let trials = vec![
            trial(Some(120.0), 0.5, "aaaassss"),
            trial(None, 1.0, "ssssssss"),
            trial(Some(121.0), 0.0, "aaaaaaaa"),
            // one alone sample: no interval, left out of the alone row
            trial(Some(119.0), 0.875, "asssssss"),
        ];
        let mut step = Repeated::of_trials(
            trials
                .into_iter()
                .enumerate()
                .map(|(i, step)| crate::model::RoundTrial {
                    round: i as u32 + 1,
                    step,
                })
                .collect(),
        );
        step.step.conditions.tenancy = Some(Tenancy {
            alone_rate: Some(120.5),
            shared_fraction: Some(0.5),
            ..Tenancy::default()
        });
        let mut r = Report::new(String::new(), String::new());
        r.cpu_loop = vec![step];
        let figures: Vec<Figure> = cpu_loop(&r)
            .into_iter()
            .filter_map(|f| f.figure().cloned())
            .collect();
        let labels: Vec<&str> = figures.iter().map(|f| f.label.as_str()).collect();
        assert_eq!(
            labels,
            [" 1 // jobs", " 1 // jobs alone", " 1 // jobs not shared"]
        );
        let values = |f: &Figure| -> Vec<f64> { f.trials.iter().map(|t| t.trial.value).collect() };
        // the trial with no sample alone has no alone rate, the one with a
        // single sample no interval
        assert_eq!(values(&figures[1]), [120.0, 121.0]);
        assert_eq!(figures[1].trials[0].trial.within.as_ref().unwrap().n, 4);
        // shared throughout still has a ratio: 1 %
        assert_eq!(values(&figures[2]), [50.0, 1.0, 100.0, 12.5]);
        assert_eq!(figures[2].value, 50.0);
        assert_eq!(figures[2].line, LineId::NotShared(Some(1)));
        assert!(figures.iter().all(|f| f.method == figures[0].method));
    }

    #[test]
    fn kernels_compare_without_the_host_name() {
        assert_eq!(
            kernel_without_host("Linux vm 6.1.0 #1 SMP x86_64 GNU/Linux"),
            "Linux 6.1.0 #1 SMP x86_64 GNU/Linux"
        );
    }
}
