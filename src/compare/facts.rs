//! What one report says, section by section in report order: figures with
//! their direction and unit, and information lines. Nothing here compares.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use crate::conditions::{Mark, MarkKind};
use crate::end::End;
use crate::model::{BlockSize, Repeated, Report};
pub use crate::stats::Better;
use crate::stats::{Summary, Trial};
// The report's own wording of a mark and of the CPU quota: a comparison
// line shows them as the report printed them.
use crate::units::dd_rate;

/// What kind of figure a line holds: the kinds differ in how much they
/// vary from run to run (see [`super::verdict::assumed_run_cv`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureKind {
    /// A CPU loop step (loops/s per job).
    CpuLoop,
    /// The memory bandwidth (dd-like).
    Memory,
    /// A 4k storage line's MB/s or IO/s.
    Storage4k,
    /// A 1M storage line's MB/s or IO/s.
    Storage1M,
    /// A storage latency percentile (`-x`); a line's mean latency is of
    /// its block size's kind, whose spread it shares.
    Latency,
}

/// What one report says on one line of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// The section, as the report titles it (without a device).
    pub section: String,
    /// The line's label.
    pub label: String,
    /// `Some` for a figure: its direction and unit.
    pub figure: Option<(Better, &'static str)>,
    /// For a figure: its kind.
    pub kind: Option<FigureKind>,
    /// For a figure: every trial of it in this report (one, or the trials
    /// of `--repeat`), each with the summary of its sub-interval samples
    /// when it has them ([`runs_of`]), and what distorted it.
    pub trials: Vec<FactTrial>,
    /// The figure, in its unit.
    pub value: Option<f64>,
    /// As printed.
    pub text: String,
    /// Marks of the line (`interrupted`, `stopped: EIO`, `busy: ...`), as
    /// printed.
    pub marks: Vec<String>,
    /// How the line's step ended: a step that did not run its whole time
    /// has no figure to compare.
    pub end: End,
    /// Why this figure cannot be compared with another report's whose
    /// method differs (`loop v1`, `bash loop`).
    pub method: Option<Method>,
    /// The measurement a figure is one form of, when the report prints it
    /// several ways (a storage line's MB/s, IO/s and mean latency): the
    /// figures of one measurement count once in a comparison's family.
    pub measure: Option<String>,
}

/// One trial of a figure, and the mark that distorted it, if one did.
#[derive(Debug, Clone, PartialEq)]
pub struct FactTrial {
    /// Its value and samples.
    pub trial: Trial,
    /// The first of its marks that [`MarkKind::distorts`] a comparison.
    pub distorted: Option<MarkKind>,
}

impl FactTrial {
    /// A trial that nothing distorted.
    pub fn clean(trial: Trial) -> FactTrial {
        FactTrial {
            trial,
            distorted: None,
        }
    }
}

/// The mark among `marks` that distorts a comparison, if one does.
pub fn distortion(marks: &[Mark]) -> Option<MarkKind> {
    marks.iter().map(Mark::kind).find(|k| k.distorts())
}

/// How a figure was measured: figures measured differently never compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Our CPU loop, of this definition (`loop v1`).
    Loop(u32),
    /// The bash original's CPU loop: bash iterations.
    BashLoop,
    /// Our latency column: the mean completion time of one I/O.
    CompletionLatency,
    /// The bash original's latency column: the device's queue time (ms)
    /// divided by its I/O count, printed as µs.
    BashQueueTime,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Method::Loop(v) => write!(f, "loop v{v}"),
            Method::BashLoop => f.write_str("bash loop"),
            Method::CompletionLatency => f.write_str("completion latency"),
            Method::BashQueueTime => f.write_str("bash queue time"),
        }
    }
}

/// An information line (no figure).
pub(super) fn info(section: &str, label: impl Into<String>, text: impl Into<String>) -> Fact {
    Fact {
        section: section.into(),
        label: label.into(),
        figure: None,
        kind: None,
        trials: Vec::new(),
        value: None,
        text: text.into(),
        marks: Vec::new(),
        end: End::Complete,
        method: None,
        measure: None,
    }
}

fn figure(
    section: &str,
    label: impl Into<String>,
    (better, unit, kind): (Better, &'static str, FigureKind),
    value: f64,
    text: String,
) -> Fact {
    Fact {
        section: section.into(),
        label: label.into(),
        figure: Some((better, unit)),
        kind: Some(kind),
        trials: vec![FactTrial::clean(Trial::value(value))],
        value: Some(value),
        text,
        marks: Vec::new(),
        end: End::Complete,
        method: None,
        measure: None,
    }
}

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
    let mut v = Vec::new();
    let h = &r.quickbench;
    let head = "Header";
    let loop_method = match &r.original {
        Some(o) => {
            v.push(info(
                head,
                "Quickbench",
                format!("bash original {}", o.version),
            ));
            Method::BashLoop
        }
        None => {
            v.push(info(head, "Quickbench", format!("port {}", h.port_version)));
            Method::Loop(h.loop_version)
        }
    };
    v.push(info(head, "Host", r.hostname.clone()));
    v.push(info(head, "Kernel", kernel_without_host(&h.kernel)));
    match &r.original {
        Some(o) => v.push(info(
            head,
            "Build",
            format!(
                "bash: {}; dd: {}",
                o.bash.as_deref().unwrap_or("?"),
                o.dd.as_deref().unwrap_or("?")
            ),
        )),
        None => v.push(info(
            head,
            "Build",
            format!(
                "{}, {}, {}",
                h.rustc,
                h.target,
                if h.static_build { "static" } else { "dynamic" }
            ),
        )),
    }
    v.push(info(head, "CPU loop", loop_method.to_string()));
    if let Some(d) = r.loop_delay_s {
        v.push(info(head, "Loop delay", format!("{d} s")));
    }
    // Reports taken under different cgroup limits are not compared blindly.
    let limits = r.limits.as_ref();
    // Our report prints its quota above the CPU loop when there is one: a
    // report of ours with a CPU loop and no quota had none, and says
    // `none`, so that such a side reads as such, not as a missing line.
    match limits.and_then(|l| l.cpu_quota.as_ref()) {
        Some(q) => v.push(info(
            head,
            "CPU quota",
            q.limit_line().trim_start_matches("Limited to ").to_string(),
        )),
        None if r.original.is_none() && !r.cpu_loop.is_empty() => {
            v.push(info(head, "CPU quota", "none".to_string()))
        }
        None => {}
    }
    if let Some(m) = limits.and_then(|l| l.memory_limit_bytes) {
        v.push(info(
            head,
            "Memory limit",
            format!("{} MB (cgroup)", m >> 20),
        ));
    }
    if let Some(info_) = &r.cpu_info {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for l in &info_.lines {
            let n = seen.entry(l.label.as_str()).or_default();
            *n += 1;
            let label = if *n == 1 {
                l.label.trim_end_matches(':').to_string()
            } else {
                format!("{} ({})", l.label.trim_end_matches(':'), n)
            };
            v.push(info("CPU info", label, l.value.clone()));
        }
    }
    for s in &r.cpu_loop {
        let mut f = figure(
            "CPU loop",
            format!("{:2} // jobs", s.jobs),
            (Better::Higher, "loop/job/s", FigureKind::CpuLoop),
            s.loops_per_s_mean.trunc(),
            format!("{}", s.loops_per_s_mean.max(0.0) as u64),
        );
        f.trials = runs_of(s)
            .into_iter()
            .map(|t| trial(t.loops_per_s_mean.trunc(), sampled(&t.samples), &t.marks))
            .collect();
        f.method = Some(loop_method);
        f.end = s.end.clone();
        f.marks.extend(s.end.text());
        f.marks.extend(s.marks.iter().map(|m| m.text()));
        v.push(f);
    }
    if let Some(m) = &r.memory {
        if let Some(kib) = m.mem_total_kib {
            v.push(info("Memory", "Total", format!("{} MB", kib >> 10)));
        }
        if let Some(bw) = &m.dd_bandwidth {
            let mut f = figure(
                "Memory",
                "Bandwidth",
                (Better::Higher, "B/s", FigureKind::Memory),
                bw.bytes_per_s(),
                dd_rate(bw.bytes, bw.elapsed_ns),
            );
            f.trials = runs_of(bw)
                .into_iter()
                .map(|t| trial(t.bytes_per_s(), sampled(&t.samples), &t.marks))
                .collect();
            f.end = bw.end.clone();
            f.marks.extend(bw.end.text());
            f.marks.extend(bw.marks.iter().map(|m| m.text()));
            v.push(f);
        }
    }
    if let Some(rows) = &r.storage_info {
        for d in rows {
            v.push(info(
                "Storage info",
                d.name.clone(),
                format!(
                    "{}, {} GB, queue depth {}, {}",
                    d.bus,
                    d.size_gib,
                    d.queue_depth.map_or("?".into(), |q| q.to_string()),
                    d.model.as_deref().unwrap_or("?")
                ),
            ));
        }
    }
    if let Some(s) = &r.storage_stack {
        let mut names = Vec::new();
        fn walk(n: &crate::model::StackNode, out: &mut Vec<String>) {
            out.push(format!("{} ({})", n.name, n.kind));
            n.children.iter().for_each(|c| walk(c, out));
        }
        s.roots.iter().for_each(|n| walk(n, &mut names));
        v.push(info("Storage device stack", "Devices", names.join(", ")));
    }
    let storage = storage_words(r);
    if !r.storage_bandwidth.is_empty() || r.storage_bandwidth_skipped.is_some() {
        v.push(info("Storage bandwidth", "Storage", storage));
    }
    if r.storage_bandwidth.is_empty() {
        if let Some(why) = &r.storage_bandwidth_skipped {
            v.push(info("Storage bandwidth", "Skipped", why.clone()));
        }
    }
    for l in &r.storage_bandwidth {
        let Some(bs) = BlockSize::from_bytes(l.block_size_bytes) else {
            continue;
        };
        let section = format!("Storage bandwidth - {} blocks", bs.label());
        let line = format!("{:<6} ({:>2} thread[s])", l.direction.label(), l.jobs);
        let mut marks: Vec<String> = l.end.text().into_iter().collect();
        marks.extend(l.marks.iter().map(|m| m.text()));
        let size = match bs {
            BlockSize::K4 => FigureKind::Storage4k,
            BlockSize::M1 => FigureKind::Storage1M,
        };
        // The samples are the line's IO/s. MB/s is IO/s times the block
        // size: the same relative spread. The latency has no samples of its
        // own; with a fixed number of jobs each waiting for its I/O, the
        // mean latency is jobs / (IO/s) (Little's law), so to first order
        // its relative spread is the IO/s's, which it borrows.
        let runs: Vec<(&crate::model::IoTrial, Option<Summary>)> = runs_of(l)
            .into_iter()
            .map(|t| (t, sampled(&t.samples)))
            .collect();
        type Pick = fn(&crate::dd_io::LineResult) -> f64;
        let figures: [(&str, Better, FigureKind, Pick); 3] = [
            ("MB/s", Better::Higher, size, |l| l.mb_per_s.trunc()),
            ("IO/s", Better::Higher, size, |l| l.iops.trunc()),
            ("µs avg. lat.", Better::Lower, size, |l| {
                l.lat_mean_us.trunc()
            }),
        ];
        for (unit, better, kind, pick) in figures {
            let value = pick(l);
            let mut f = figure(
                &section,
                format!("{line} {unit}"),
                (better, unit, kind),
                value,
                format!("{}", value.max(0.0) as u64),
            );
            f.trials = runs
                .iter()
                .map(|(t, within)| trial(pick(t), within.clone(), &t.marks))
                .collect();
            f.marks = marks.clone();
            f.end = l.end.clone();
            f.measure = Some(format!("{section}: {line}"));
            if better == Better::Lower {
                f.method = Some(if r.original.is_some() {
                    Method::BashQueueTime
                } else {
                    Method::CompletionLatency
                });
            }
            v.push(f);
        }
    }
    v.extend(super::facts_extended::facts_extended(r));
    v
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

/// The summary of a step's sub-interval samples, when it has any.
fn sampled(s: &crate::samples::Samples) -> Option<Summary> {
    if s.samples.is_empty() {
        return None;
    }
    let finite: Vec<f64> = s
        .samples
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    Summary::of(&finite)
}

fn trial(value: f64, within: Option<Summary>, marks: &[Mark]) -> FactTrial {
    FactTrial {
        trial: Trial { value, within },
        distorted: distortion(marks),
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

    #[test]
    fn kernels_compare_without_the_host_name() {
        assert_eq!(
            kernel_without_host("Linux vm 6.1.0 #1 SMP x86_64 GNU/Linux"),
            "Linux 6.1.0 #1 SMP x86_64 GNU/Linux"
        );
    }
}
