//! `quickbench compare`: reports side by side.
//!
//! Each input (our text, our JSON, the bash original's text) is read into
//! the report model; [`facts`] lists what a report says, section by
//! section in report order (figures with their direction, information
//! lines); [`compare`] lines them up by key across reports, the first one
//! being the reference, and decides each verdict: within ±5 % equal
//! (the original's README warns not to over-interpret ±5 %), else better or
//! worse by the figure's direction, or *not comparable* with the reason
//! (the bash original's CPU loop against ours, or another loop definition;
//! its latency column; a line interrupted or stopped in either report), or
//! missing. With more than two reports, [`fleet_table`] gives the key
//! figures of each, their median and the outliers (more than 15 % worse
//! than the median). The comparison is data ([`Comparison`], serialized as
//! the `--json` document); [`render_text`] and [`render_table`] write it.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read, Write};

use serde::Serialize;

use crate::cli::CompareConfig;
use crate::dd_io::Direction;
use crate::end::End;
use crate::model::{BlockSize, Report};
use crate::report::read::{read_report, ReadError};
use crate::report::stderr_line;
use crate::report::text::{end_text, mark_text};
use crate::units::dd_rate;

/// Version of the `--json` comparison's layout.
pub const COMPARE_SCHEMA_VERSION: u32 = 1;
/// Differences within this fraction read as equal.
pub const EQUAL_WITHIN: f64 = 0.05;
/// In the fleet table, a figure this much worse than the median is marked.
pub const OUTLIER_BEYOND: f64 = 0.15;

/// One input, read.
#[derive(Debug, Clone)]
pub struct Input {
    /// As the user named it (`-` for stdin).
    pub file: String,
    /// The report.
    pub report: Report,
}

/// Reads every input (a file, or `-` for standard input).
pub fn load(inputs: &[String]) -> Result<Vec<Input>, ReadError> {
    inputs
        .iter()
        .map(|file| {
            let text = if file == "-" {
                let mut s = String::new();
                io::stdin().read_to_string(&mut s).map(|_| s)
            } else {
                std::fs::read(file).map(|b| String::from_utf8_lossy(&b).into_owned())
            }
            .map_err(|e| ReadError {
                file: file.clone(),
                line: 0,
                message: format!("cannot read it: {e}"),
            })?;
            Ok(Input {
                file: file.clone(),
                report: read_report(file, &text)?,
            })
        })
        .collect()
}

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// loops/s, GB/s, MB/s, IO/s.
    Higher,
    /// Latency.
    Lower,
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

fn info(section: &str, label: impl Into<String>, text: impl Into<String>) -> Fact {
    Fact {
        section: section.into(),
        label: label.into(),
        figure: None,
        value: None,
        text: text.into(),
        marks: Vec::new(),
        end: End::Complete,
        method: None,
    }
}

fn figure(
    section: &str,
    label: impl Into<String>,
    better: Better,
    unit: &'static str,
    value: f64,
    text: String,
) -> Fact {
    Fact {
        section: section.into(),
        label: label.into(),
        figure: Some((better, unit)),
        value: Some(value),
        text,
        marks: Vec::new(),
        end: End::Complete,
        method: None,
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
    if let Some(q) = limits.and_then(|l| l.cpu_quota.as_ref()) {
        v.push(info(
            head,
            "CPU quota",
            crate::report::text::cpu_limit_line(q)
                .trim_start_matches("Limited to ")
                .to_string(),
        ));
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
            Better::Higher,
            "loop/job/s",
            s.loops_per_s_mean.trunc(),
            format!("{}", s.loops_per_s_mean.max(0.0) as u64),
        );
        f.method = Some(loop_method);
        f.end = s.end.clone();
        f.marks.extend(end_text(&s.end));
        f.marks.extend(s.marks.iter().map(mark_text));
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
                Better::Higher,
                "B/s",
                bw.bytes_per_s(),
                dd_rate(bw.bytes, bw.elapsed_ns),
            );
            f.end = bw.end.clone();
            f.marks.extend(end_text(&bw.end));
            f.marks.extend(bw.marks.iter().map(mark_text));
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
        let mut marks: Vec<String> = end_text(&l.end).into_iter().collect();
        marks.extend(l.marks.iter().map(mark_text));
        let figures = [
            ("MB/s", Better::Higher, l.mb_per_s.trunc()),
            ("IO/s", Better::Higher, l.iops.trunc()),
            ("µs avg. lat.", Better::Lower, l.lat_mean_us.trunc()),
        ];
        for (unit, better, value) in figures {
            let mut f = figure(
                &section,
                format!("{line} {unit}"),
                better,
                unit,
                value,
                format!("{}", value.max(0.0) as u64),
            );
            f.marks = marks.clone();
            f.end = l.end.clone();
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
    v
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

/// The verdict on one report's figure or line, against the first report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// The first report: what the others are compared with.
    Reference,
    /// Within ±5 %.
    Equal,
    /// Beyond 5 %, in the figure's better direction.
    Better,
    /// Beyond 5 %, in the worse direction.
    Worse,
    /// An information line, the same as the first report's.
    Same,
    /// An information line that differs.
    Different,
    /// No ratio: it would mislead.
    NotComparable {
        /// Why.
        why: String,
    },
    /// The line is not in this report (or not in the first one).
    Missing,
}

/// One line of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The section.
    pub section: String,
    /// The line's label.
    pub label: String,
    /// `figure` or `info`.
    pub kind: &'static str,
    /// For figures: which way is better.
    pub better: Option<Better>,
    /// For figures: the unit of `values`.
    pub unit: Option<&'static str>,
    /// Per report: the figure (`null` when missing or not a figure).
    pub values: Vec<Option<f64>>,
    /// Per report: as printed (`null` when missing).
    pub texts: Vec<Option<String>>,
    /// Per report: the line's marks.
    pub marks: Vec<Vec<String>>,
    /// Per report: the figure over the first report's (`null` when none).
    pub ratios: Vec<Option<f64>>,
    /// Per report: the verdict.
    pub verdicts: Vec<Verdict>,
}

/// Who a report is, for the header of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct ReportInfo {
    /// The column's name: the host name, else the file name (made unique).
    pub name: String,
    /// The input as named.
    pub file: String,
    /// Host name, when known.
    pub hostname: Option<String>,
    /// `quickbench` (this port) or `bash original`.
    pub origin: &'static str,
    /// The loop delay, seconds, when known.
    pub loop_delay_s: Option<f64>,
    /// When it ran, UTC, when known.
    pub timestamp_utc: Option<String>,
}

/// The comparison of two or more reports.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Version of this document's layout.
    pub compare_schema_version: u32,
    /// The reports, the first being the reference.
    pub reports: Vec<ReportInfo>,
    /// What makes the figures less comparable (different loop delays...).
    pub warnings: Vec<String>,
    /// Every line of every report, in report order.
    pub rows: Vec<Row>,
    /// `report: [ section ] line` for each line a report lacks.
    pub missing: Vec<String>,
    /// With more than two reports: the fleet table.
    pub table: Option<FleetTable>,
}

/// Lines up `inputs`' facts and decides every verdict.
pub fn compare(inputs: &[Input]) -> Comparison {
    let all: Vec<Vec<Fact>> = inputs.iter().map(|i| facts(&i.report)).collect();
    // The keys in report order: sections in the order they first appear,
    // lines within a section in the order they first appear.
    let mut sections: Vec<String> = Vec::new();
    let mut keys: Vec<(usize, String, String)> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    for fs in &all {
        for f in fs {
            let s = match sections.iter().position(|s| *s == f.section) {
                Some(s) => s,
                None => {
                    sections.push(f.section.clone());
                    sections.len() - 1
                }
            };
            let k = (f.section.clone(), f.label.clone());
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(k) {
                e.insert(keys.len());
                keys.push((s, f.section.clone(), f.label.clone()));
            }
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| (keys[i].0, i));
    let by_key: Vec<HashMap<(&str, &str), &Fact>> = all
        .iter()
        .map(|fs| {
            fs.iter()
                .map(|f| ((f.section.as_str(), f.label.as_str()), f))
                .collect()
        })
        .collect();
    let reports = report_infos(inputs);
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    for i in order {
        let (_, section, label) = &keys[i];
        let cells: Vec<Option<&Fact>> = by_key
            .iter()
            .map(|m| m.get(&(section.as_str(), label.as_str())).copied())
            .collect();
        for (n, c) in cells.iter().enumerate() {
            if c.is_none() {
                missing.push(format!("{}: [ {section} ] {label}", reports[n].name));
            }
        }
        rows.push(row(section, label, &cells));
    }
    let table = (inputs.len() > 2).then(|| fleet_table(inputs, &reports));
    Comparison {
        compare_schema_version: COMPARE_SCHEMA_VERSION,
        warnings: warnings(inputs, &reports),
        reports,
        rows,
        missing,
        table,
    }
}

fn report_infos(inputs: &[Input]) -> Vec<ReportInfo> {
    let mut names: Vec<String> = inputs
        .iter()
        .map(|i| {
            let h = i.report.hostname.trim();
            if h.is_empty() || h == "unknown" {
                file_name(&i.file)
            } else {
                h.to_string()
            }
        })
        .collect();
    // The same host twice (before and after): tell them apart by file.
    let mut count: HashMap<String, usize> = HashMap::new();
    for n in &names {
        *count.entry(n.clone()).or_default() += 1;
    }
    for (n, i) in names.iter_mut().zip(inputs) {
        if count[n.as_str()] > 1 {
            *n = format!("{n} ({})", file_name(&i.file));
        }
    }
    inputs
        .iter()
        .zip(names)
        .map(|(i, name)| ReportInfo {
            name,
            file: i.file.clone(),
            hostname: Some(i.report.hostname.clone()).filter(|h| !h.is_empty()),
            origin: if i.report.original.is_some() {
                "bash original"
            } else {
                "quickbench"
            },
            loop_delay_s: i.report.loop_delay_s,
            timestamp_utc: i.report.timestamp_utc.clone(),
        })
        .collect()
}

fn file_name(file: &str) -> String {
    if file == "-" {
        return "stdin".into();
    }
    std::path::Path::new(file)
        .file_name()
        .map_or(file.to_string(), |n| n.to_string_lossy().into_owned())
}

fn warnings(inputs: &[Input], reports: &[ReportInfo]) -> Vec<String> {
    let mut w = Vec::new();
    let delays: Vec<String> = reports
        .iter()
        .map(|r| {
            r.loop_delay_s
                .map_or("unknown".into(), |d| format!("{d} s"))
        })
        .collect();
    if delays.iter().any(|d| *d != delays[0]) {
        w.push(format!(
            "loop delays differ ({}): a short delay gives noisier figures, and the bash original's figures depend on it",
            reports
                .iter()
                .zip(&delays)
                .map(|(r, d)| format!("{} {d}", r.name))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let bash: Vec<&str> = reports
        .iter()
        .filter(|r| r.origin == "bash original")
        .map(|r| r.name.as_str())
        .collect();
    if !bash.is_empty() && bash.len() < reports.len() {
        w.push(format!(
            "{} by the bash original: its CPU loop counts bash iterations (not comparable with this port's loop) and its latency column is queue time per I/O, not a latency",
            bash.join(", ")
        ));
    }
    for (i, r) in inputs.iter().zip(reports) {
        if !i.report.failed_sections.is_empty() {
            let names: Vec<&str> = i
                .report
                .failed_sections
                .iter()
                .map(|f| f.section.name())
                .collect();
            w.push(format!(
                "{}: sections that could not run: {}",
                r.name,
                names.join(", ")
            ));
        }
    }
    w
}

fn row(section: &str, label: &str, cells: &[Option<&Fact>]) -> Row {
    let first = cells.iter().flatten().next().copied();
    let fig = first.and_then(|f| f.figure);
    let reference = cells[0];
    let verdicts = cells
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let Some(c) = c else {
                return Verdict::Missing;
            };
            if n == 0 {
                return Verdict::Reference;
            }
            let Some(a) = reference else {
                return Verdict::Missing;
            };
            match c.figure {
                None if c.text == a.text => Verdict::Same,
                None => Verdict::Different,
                Some((better, _)) => judge(a, c, better),
            }
        })
        .collect();
    Row {
        section: section.into(),
        label: label.into(),
        kind: if fig.is_some() { "figure" } else { "info" },
        better: fig.map(|f| f.0),
        unit: fig.map(|f| f.1),
        values: cells.iter().map(|c| c.and_then(|f| f.value)).collect(),
        texts: cells.iter().map(|c| c.map(|f| f.text.clone())).collect(),
        marks: cells
            .iter()
            .map(|c| c.map(|f| f.marks.clone()).unwrap_or_default())
            .collect(),
        ratios: cells
            .iter()
            .map(
                |c| match (reference.and_then(|f| f.value), c.and_then(|f| f.value)) {
                    (Some(a), Some(b)) if a > 0.0 && comparable(reference, *c).is_none() => {
                        Some(b / a)
                    }
                    _ => None,
                },
            )
            .collect(),
        verdicts,
    }
}

/// Why two facts' figures cannot be compared, if they cannot.
fn comparable(a: Option<&Fact>, b: Option<&Fact>) -> Option<String> {
    let (a, b) = (a?, b?);
    // Load and cache marks are shown beside the figures; a line cut short
    // or stopped has no figure to compare.
    if let Some(how) = [&a.end, &b.end].into_iter().find_map(end_text) {
        return Some(format!("a line {how}"));
    }
    if a.method != b.method {
        return Some(match (a.method, b.method) {
            (Some(Method::BashQueueTime), _) | (_, Some(Method::BashQueueTime)) => {
                "the bash original's latency column is queue time per I/O, not a latency".into()
            }
            (Some(x), Some(y)) => format!("{x} against {y}: other loop definitions"),
            _ => "measured differently".into(),
        });
    }
    None
}

fn judge(a: &Fact, b: &Fact, better: Better) -> Verdict {
    if let Some(why) = comparable(Some(a), Some(b)) {
        return Verdict::NotComparable { why };
    }
    match (a.value, b.value) {
        (Some(x), Some(y)) if x > 0.0 => {
            let r = y / x;
            if (r - 1.0).abs() <= EQUAL_WITHIN + 1e-9 {
                Verdict::Equal
            } else if (r > 1.0) == (better == Better::Higher) {
                Verdict::Better
            } else {
                Verdict::Worse
            }
        }
        (Some(x), Some(y)) if x == y => Verdict::Equal,
        _ => Verdict::NotComparable {
            why: "a zero figure has no ratio".into(),
        },
    }
}

/// The fleet table: one row per report, the key figures as columns.
#[derive(Debug, Clone, Serialize)]
pub struct FleetTable {
    /// The columns' headings.
    pub columns: Vec<FleetColumn>,
    /// One row per report, in input order.
    pub rows: Vec<FleetRow>,
    /// The median of each column (over the reports that have it and whose
    /// figure is comparable with the first report's).
    pub median: Vec<Option<f64>>,
}

/// A column of the fleet table.
#[derive(Debug, Clone, Serialize)]
pub struct FleetColumn {
    /// Short heading.
    pub name: &'static str,
    /// Unit of the values.
    pub unit: &'static str,
    /// Which way is better.
    pub better: Better,
}

/// A report's row of the fleet table.
#[derive(Debug, Clone, Serialize)]
pub struct FleetRow {
    /// The report's name.
    pub name: String,
    /// The figures (`null` when the report lacks it).
    pub values: Vec<Option<f64>>,
    /// True where the figure is more than 15 % worse than the median.
    pub outlier: Vec<bool>,
    /// True where the figure is not comparable with the others (another
    /// loop definition, the bash latency column, an interrupted line).
    pub not_comparable: Vec<bool>,
}

/// Why a key figure may not compare with the others of its column.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Tag {
    /// Its step did not run its whole time: it never compares.
    Ended,
    /// Measured so: it compares with the figures measured the same way.
    Method(Method),
}

/// A key figure of one report: its value, and its tag.
type KeyCell = Option<(f64, Option<Tag>)>;

/// The key figures: (heading, unit, better, how to find it).
type KeyFigure = (&'static str, &'static str, Better, fn(&Report) -> KeyCell);

fn io_figure(
    r: &Report,
    bs: BlockSize,
    dir: Direction,
    jobs: u32,
    pick: fn(&crate::dd_io::LineResult) -> f64,
) -> KeyCell {
    let l = r
        .lines_of(bs)
        .find(|l| l.direction == dir && l.jobs == jobs)?;
    Some((
        pick(l).trunc(),
        (!l.end.is_complete()).then_some(Tag::Ended),
    ))
}

const KEY_FIGURES: [KeyFigure; 10] = [
    ("CPU 1 job", "loop/job/s", Better::Higher, |r| {
        let s = r.cpu_loop.first()?;
        Some((
            s.loops_per_s_mean.trunc(),
            cpu_method(r, !s.end.is_complete()),
        ))
    }),
    ("CPU max jobs", "loop/job/s", Better::Higher, |r| {
        let s = r.cpu_loop.last()?;
        Some((
            s.loops_per_s_mean.trunc(),
            cpu_method(r, !s.end.is_complete()),
        ))
    }),
    ("Memory", "B/s", Better::Higher, |r| {
        let b = r.memory.as_ref()?.dd_bandwidth.as_ref()?;
        Some((
            b.bytes_per_s(),
            (!b.end.is_complete()).then_some(Tag::Ended),
        ))
    }),
    ("4k W 1j", "IO/s", Better::Higher, |r| {
        io_figure(r, BlockSize::K4, Direction::Write, 1, |l| l.iops)
    }),
    ("4k W 16j", "IO/s", Better::Higher, |r| {
        io_figure(r, BlockSize::K4, Direction::Write, 16, |l| l.iops)
    }),
    ("4k R 1j", "IO/s", Better::Higher, |r| {
        io_figure(r, BlockSize::K4, Direction::Read, 1, |l| l.iops)
    }),
    ("4k R 16j", "IO/s", Better::Higher, |r| {
        io_figure(r, BlockSize::K4, Direction::Read, 16, |l| l.iops)
    }),
    ("1M W 16j", "MB/s", Better::Higher, |r| {
        io_figure(r, BlockSize::M1, Direction::Write, 16, |l| l.mb_per_s)
    }),
    ("1M R 16j", "MB/s", Better::Higher, |r| {
        io_figure(r, BlockSize::M1, Direction::Read, 16, |l| l.mb_per_s)
    }),
    ("4k R 1j lat", "µs", Better::Lower, |r| {
        let (v, bad) = io_figure(r, BlockSize::K4, Direction::Read, 1, |l| l.lat_mean_us)?;
        let bad = bad.or(r
            .original
            .as_ref()
            .map(|_| Tag::Method(Method::BashQueueTime)));
        Some((v, bad))
    }),
];

/// The CPU loop's tag: other loop definitions never compare.
fn cpu_method(r: &Report, cut: bool) -> Option<Tag> {
    if cut {
        return Some(Tag::Ended);
    }
    Some(Tag::Method(match &r.original {
        Some(_) => Method::BashLoop,
        None => Method::Loop(r.quickbench.loop_version),
    }))
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The fleet table of `inputs`.
pub fn fleet_table(inputs: &[Input], reports: &[ReportInfo]) -> FleetTable {
    let cells: Vec<Vec<KeyCell>> = inputs
        .iter()
        .map(|i| KEY_FIGURES.iter().map(|k| (k.3)(&i.report)).collect())
        .collect();
    // A figure is comparable when its method is the most common one of its
    // column (CPU figures: the loop definition most reports used).
    let mut usual: Vec<Option<Tag>> = Vec::new();
    for c in 0..KEY_FIGURES.len() {
        let mut count: HashMap<Option<Tag>, usize> = HashMap::new();
        for row in &cells {
            if let Some((_, m)) = &row[c] {
                if *m != Some(Tag::Ended) {
                    *count.entry(m.clone()).or_default() += 1;
                }
            }
        }
        // Ties go to the method named last in alphabetical order.
        let name = |m: &Option<Tag>| match m {
            Some(Tag::Method(m)) => Some(m.to_string()),
            _ => None,
        };
        usual.push(
            count
                .into_iter()
                .max_by_key(|(m, n)| (*n, name(m)))
                .and_then(|(m, _)| m),
        );
    }
    let ok = |c: usize, cell: &KeyCell| matches!(cell, Some((_, m)) if *m != Some(Tag::Ended) && (m.is_none() || *m == usual[c]));
    let medians: Vec<Option<f64>> = (0..KEY_FIGURES.len())
        .map(|c| {
            median(
                cells
                    .iter()
                    .filter(|row| ok(c, &row[c]))
                    .filter_map(|row| row[c].as_ref().map(|(v, _)| *v))
                    .collect(),
            )
        })
        .collect();
    let rows = cells
        .iter()
        .zip(reports)
        .map(|(row, info)| FleetRow {
            name: info.name.clone(),
            values: row.iter().map(|c| c.as_ref().map(|(v, _)| *v)).collect(),
            outlier: row
                .iter()
                .enumerate()
                .map(|(c, cell)| match (cell, medians[c]) {
                    (Some((v, _)), Some(m)) if ok(c, cell) && m > 0.0 => match KEY_FIGURES[c].2 {
                        Better::Higher => *v < m * (1.0 - OUTLIER_BEYOND),
                        Better::Lower => *v > m * (1.0 + OUTLIER_BEYOND),
                    },
                    _ => false,
                })
                .collect(),
            not_comparable: row
                .iter()
                .enumerate()
                .map(|(c, cell)| cell.is_some() && !ok(c, cell))
                .collect(),
        })
        .collect();
    FleetTable {
        columns: KEY_FIGURES
            .iter()
            .map(|k| FleetColumn {
                name: k.0,
                unit: k.1,
                better: k.2,
            })
            .collect(),
        rows,
        median: medians,
    }
}

/// How the comparison is written: colours, and the terminal's width.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// ANSI colours (a terminal, `NO_COLOR` unset).
    pub color: bool,
    /// Columns available.
    pub width: usize,
}

impl Style {
    /// The style of standard output: colours on a terminal without
    /// `NO_COLOR`; the width from `COLUMNS`, else the terminal, else 100.
    pub fn stdout() -> Style {
        let tty = crate::progress::is_tty(libc::STDOUT_FILENO);
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse().ok())
            .filter(|&w: &usize| w > 0)
            .or_else(|| crate::progress::terminal_width(libc::STDOUT_FILENO))
            .unwrap_or(100);
        Style {
            color: tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            width,
        }
    }

    fn paint(&self, text: &str, v: &Verdict) -> String {
        let code = match v {
            Verdict::Better => "32",
            Verdict::Worse => "31",
            Verdict::NotComparable { .. } | Verdict::Missing => "33",
            _ => return text.to_string(),
        };
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// A figure as people read it: the printed text, and the bash original's
/// rates as printed too.
fn cell_text(row: &Row, n: usize) -> String {
    let mut t = row.texts[n].clone().unwrap_or_else(|| "-".into());
    if !row.marks[n].is_empty() {
        t.push_str(&format!(" ({})", row.marks[n].join(", ")));
    }
    t
}

fn verdict_words(row: &Row, n: usize) -> String {
    match &row.verdicts[n] {
        Verdict::Reference => String::new(),
        Verdict::Equal => format!("\u{2248} {}", ratio_text(row.ratios[n])),
        Verdict::Better => format!("{} better", ratio_text(row.ratios[n])),
        Verdict::Worse => format!("{} worse", ratio_text(row.ratios[n])),
        Verdict::Same => "same".into(),
        Verdict::Different => "different".into(),
        Verdict::NotComparable { why } => format!("not comparable: {why}"),
        Verdict::Missing => "missing".into(),
    }
}

fn ratio_text(r: Option<f64>) -> String {
    r.map_or("?".into(), |r| format!("x{r:.2}"))
}

/// The heading of report `n`'s column: `A`, `B` for two reports (the
/// header says who they are), the report's name for more.
fn column(c: &Comparison, n: usize) -> String {
    if c.reports.len() == 2 {
        ["A", "B"][n].to_string()
    } else {
        c.reports[n].name.clone()
    }
}

/// The text of a comparison: two reports side by side, or one column per
/// report when they fit `style.width`, else the fleet table.
pub fn render_text(c: &Comparison, style: &Style, table: bool) -> String {
    if table || (c.reports.len() > 2 && !columns_fit(c, style.width)) {
        return render_table(c, style);
    }
    let mut out = header_text(c);
    let label_w = c
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(10, 40);
    let widths: Vec<usize> = (0..c.reports.len())
        .map(|n| {
            c.rows
                .iter()
                .filter(|r| r.kind == "figure")
                .map(|r| cell_text(r, n).chars().count())
                .chain([column(c, n).chars().count()])
                .max()
                .unwrap_or(1)
                .min(40)
        })
        .collect();
    let mut section = "";
    for r in &c.rows {
        if r.section != section {
            section = &r.section;
            out.push_str(&format!("\n[ {} ]\n", section_title(c, section)));
            if r.kind == "figure"
                || c.rows
                    .iter()
                    .any(|x| x.section == section && x.kind == "figure")
            {
                let mut h = format!("{:<label_w$}", "");
                for (n, w) in widths.iter().enumerate() {
                    h.push_str(&format!("  {:>w$}", column(c, n), w = *w));
                }
                out.push_str(h.trim_end());
                out.push('\n');
            }
        }
        if r.kind == "info" {
            out.push_str(&info_line(r, c, label_w, style));
            continue;
        }
        let mut line = format!("{:<label_w$}", r.label);
        for (n, w) in widths.iter().enumerate() {
            line.push_str(&format!("  {:>w$}", cell_text(r, n), w = *w));
        }
        let words: Vec<String> = (1..c.reports.len())
            .map(|n| style.paint(&verdict_words(r, n), &r.verdicts[n]))
            .collect();
        line.push_str("  ");
        line.push_str(&words.join(" | "));
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !c.missing.is_empty() {
        out.push_str("\n[ Missing ]\n");
        for m in &c.missing {
            out.push_str(&format!("{m}\n"));
        }
    }
    out
}

fn info_line(r: &Row, c: &Comparison, label_w: usize, style: &Style) -> String {
    let all_same = r
        .verdicts
        .iter()
        .all(|v| matches!(v, Verdict::Reference | Verdict::Same));
    if all_same {
        return format!(
            "{:<label_w$}  same: {}\n",
            r.label,
            r.texts[0].clone().unwrap_or_default()
        );
    }
    let mut s = format!("{:<label_w$}  ", r.label);
    let parts: Vec<String> = (0..c.reports.len())
        .map(|n| {
            let t = r.texts[n].clone().unwrap_or_else(|| "(missing)".into());
            style.paint(&format!("{}: {t}", column(c, n)), &r.verdicts[n])
        })
        .collect();
    s.push_str(&format!("different: {}\n", parts.join(" | ")));
    s
}

/// A section's title: storage sections name each report's device and
/// filesystem when they differ.
fn section_title(c: &Comparison, section: &str) -> String {
    if !section.starts_with("Storage bandwidth - ") {
        return section.to_string();
    }
    let storage = c
        .rows
        .iter()
        .find(|r| r.section == "Storage bandwidth" && r.label == "Storage");
    match storage {
        Some(r) if r.texts.iter().any(|t| *t != r.texts[0]) => {
            let both: Vec<String> = (0..c.reports.len())
                .map(|n| {
                    format!(
                        "{}: {}",
                        column(c, n),
                        r.texts[n].clone().unwrap_or_else(|| "?".into())
                    )
                })
                .collect();
            format!("{section} ({})", both.join(", "))
        }
        Some(r) => format!("{section} ({})", r.texts[0].clone().unwrap_or_default()),
        None => section.to_string(),
    }
}

fn header_text(c: &Comparison) -> String {
    let mut out = String::new();
    for (n, r) in c.reports.iter().enumerate() {
        let when = r
            .timestamp_utc
            .as_deref()
            .map_or("date unknown".into(), |t| {
                t.replace('T', " ").replace('Z', " UTC")
            });
        let col = column(c, n);
        let who = if col == r.name {
            String::new()
        } else {
            format!("{}, ", r.name)
        };
        out.push_str(&format!(
            "{col}: {} ({who}{}, {when}){}\n",
            r.file,
            r.origin,
            if n == 0 { ", the reference" } else { "" }
        ));
    }
    out.push_str(&format!(
        "Figures relative to {}; within \u{b1}5 % is \u{2248}; latency: lower is better.\n",
        column(c, 0)
    ));
    for w in &c.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

/// The width one column per report takes.
fn columns_fit(c: &Comparison, width: usize) -> bool {
    let label = c
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0);
    let per = c
        .rows
        .iter()
        .filter(|r| r.kind == "figure")
        .flat_map(|r| (0..c.reports.len()).map(move |n| cell_text(r, n).chars().count()))
        .max()
        .unwrap_or(8)
        .max(
            c.reports
                .iter()
                .map(|r| r.name.chars().count())
                .max()
                .unwrap_or(0),
        );
    // label, a column per report, and the verdicts (about 16 each)
    label + c.reports.len() * (per + 2) + (c.reports.len() - 1) * 16 <= width
}

fn short(v: f64, unit: &str) -> String {
    if unit == "B/s" {
        return dd_rate(v.max(0.0) as u64, 1_000_000_001);
    }
    format!("{}", v.max(0.0) as u64)
}

/// The fleet table: one row per report, the key figures as columns, the
/// median, and `*` after every figure more than 15 % worse than it.
pub fn render_table(c: &Comparison, style: &Style) -> String {
    let t = c.table.clone().unwrap_or_else(|| FleetTable {
        columns: Vec::new(),
        rows: Vec::new(),
        median: Vec::new(),
    });
    let mut out = header_text(c);
    out.push_str(&format!(
        "* more than {} % worse than the median; \u{2020} not comparable (another loop definition, an interrupted line, the bash latency column)\n\n",
        (OUTLIER_BEYOND * 100.0) as u32
    ));
    let name_w = t
        .rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let cell = |v: Option<f64>, c: usize, mark: &str| {
        v.map_or("-".to_string(), |v| {
            format!("{}{mark}", short(v, t.columns[c].unit))
        })
    };
    let mut widths: Vec<usize> = t
        .columns
        .iter()
        .map(|col| col.name.chars().count().max(col.unit.chars().count()))
        .collect();
    for r in &t.rows {
        for (c, v) in r.values.iter().enumerate() {
            widths[c] = widths[c].max(cell(*v, c, "*").chars().count());
        }
    }
    for (c, m) in t.median.iter().enumerate() {
        widths[c] = widths[c].max(cell(*m, c, "").chars().count());
    }
    let line = |name: &str, cells: Vec<String>| {
        let mut s = format!("{name:<name_w$}");
        for (c, text) in cells.iter().enumerate() {
            s.push_str(&format!("  {text:>w$}", w = widths[c]));
        }
        s.trim_end().to_string() + "\n"
    };
    out.push_str(&line(
        "report",
        t.columns.iter().map(|c| c.name.to_string()).collect(),
    ));
    out.push_str(&line(
        "",
        t.columns.iter().map(|c| c.unit.to_string()).collect(),
    ));
    for r in &t.rows {
        let cells = (0..t.columns.len())
            .map(|c| {
                let mark = if r.outlier[c] {
                    "*"
                } else if r.not_comparable[c] {
                    "\u{2020}"
                } else {
                    ""
                };
                let text = cell(r.values[c], c, mark);
                let text = format!("{text:>w$}", w = widths[c]);
                if r.outlier[c] {
                    style.paint(&text, &Verdict::Worse)
                } else {
                    text
                }
            })
            .collect();
        out.push_str(&line(&r.name, cells));
    }
    out.push_str(&line(
        "median",
        (0..t.columns.len())
            .map(|c| cell(t.median[c], c, ""))
            .collect(),
    ));
    out
}

/// `quickbench compare`: exit 0, or 2 when an input cannot be read.
pub fn main(cfg: &CompareConfig) -> u8 {
    let inputs = match load(&cfg.inputs) {
        Ok(i) => i,
        Err(e) => {
            stderr_line(&format!("{e}"));
            return 2;
        }
    };
    let c = compare(&inputs);
    let text = if cfg.json {
        serde_json::to_string_pretty(&c).expect("a comparison serializes") + "\n"
    } else {
        render_text(&c, &Style::stdout(), cfg.table)
    };
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            stderr_line(&format!("writing the comparison to stdout: {e}"));
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(vec![]), None);
    }

    #[test]
    fn the_equal_band_and_directions() {
        let f = |v: f64, better| Fact {
            value: Some(v),
            ..figure("S", "x", better, "u", v, v.to_string())
        };
        assert_eq!(
            judge(
                &f(100.0, Better::Higher),
                &f(105.0, Better::Higher),
                Better::Higher
            ),
            Verdict::Equal
        );
        assert_eq!(
            judge(
                &f(100.0, Better::Higher),
                &f(94.0, Better::Higher),
                Better::Higher
            ),
            Verdict::Worse
        );
        assert_eq!(
            judge(
                &f(100.0, Better::Higher),
                &f(106.0, Better::Higher),
                Better::Higher
            ),
            Verdict::Better
        );
        assert_eq!(
            judge(
                &f(100.0, Better::Lower),
                &f(80.0, Better::Lower),
                Better::Lower
            ),
            Verdict::Better
        );
        assert_eq!(
            judge(
                &f(100.0, Better::Lower),
                &f(120.0, Better::Lower),
                Better::Lower
            ),
            Verdict::Worse
        );
    }

    #[test]
    fn the_judge_reads_the_types_not_the_words() {
        let f = |v: f64| figure("S", "x", Better::Higher, "u", v, v.to_string());
        let why = |a: &Fact, b: &Fact| match judge(a, b, Better::Higher) {
            Verdict::NotComparable { why } => Some(why),
            _ => None,
        };
        // A stopped line, whatever its marks say.
        let mut stopped = f(100.0);
        stopped.end = End::Stopped {
            error: "/d: read at offset 0: EIO".into(),
            errno: Some(libc::EIO),
            interrupted: false,
        };
        assert_eq!(
            why(&f(100.0), &stopped).as_deref(),
            Some("a line stopped: EIO")
        );
        let mut cut = f(90.0);
        cut.end = End::Interrupted;
        assert_eq!(why(&cut, &stopped).as_deref(), Some("a line interrupted"));
        // Words in the marks decide nothing.
        let mut worded = f(100.0);
        worded.marks = vec!["interrupted".into()];
        assert_eq!(judge(&f(100.0), &worded, Better::Higher), Verdict::Equal);
        // Methods.
        let with = |m: Method| Fact {
            method: Some(m),
            ..f(100.0)
        };
        assert!(why(
            &with(Method::CompletionLatency),
            &with(Method::BashQueueTime)
        )
        .unwrap()
        .contains("not a latency"));
        assert_eq!(
            why(&with(Method::Loop(1)), &with(Method::Loop(2))).as_deref(),
            Some("loop v1 against loop v2: other loop definitions")
        );
        assert_eq!(
            judge(
                &with(Method::Loop(1)),
                &with(Method::Loop(1)),
                Better::Higher
            ),
            Verdict::Equal
        );
    }

    #[test]
    fn kernels_compare_without_the_host_name() {
        assert_eq!(
            kernel_without_host("Linux vm 6.1.0 #1 SMP x86_64 GNU/Linux"),
            "Linux 6.1.0 #1 SMP x86_64 GNU/Linux"
        );
    }
}
