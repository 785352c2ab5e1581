//! Readers: a report's text or JSON back into the model.
//!
//! [`read_report`] takes any of: our JSON document, our text report, or the
//! bash original's text report, in every layout it printed (device in the
//! bandwidth titles or not, the `[ Storage device stack ]` block, stray
//! stderr lines such as `grep: /sys/block/*/*/dev: No such file or
//! directory` mixed in, a run cut short at any line, CRLF line ends, and
//! the whitespace-collapsed form a report takes when pasted through a web
//! page: single spaces, no blank lines). Text before the header and after
//! the last readable line (prose around a pasted report) is kept aside.
//!
//! Our own text reads back exactly: `text::render(read(text)) == text`.
//! What cannot be read is a [`ReadError`] naming the file and the line.

use std::fmt;

mod check;
mod extended;

use crate::blockdev::DiskRow;
use crate::conditions::mark::{self, InTrials};
use crate::conditions::{Mark, Measured};
use crate::cpu_loop::LoopStep;
use crate::dd_io::{Direction, LineResult};
use crate::end::End;
use crate::membw::DdBandwidth;
use crate::model::forms;
use crate::model::{
    BlockSize, CpuInfo, IoSetup, Memory, Original, RawSection, Report, Section, SCHEMA_VERSION,
};
use crate::report::text::{
    BUFFERED_NOTE, MEMORY_NOTE, RAW_NOTE, RAW_READ_ONLY_NOTE, REMOTE_NOTE, TRIALS_SIGN,
    WRITES_NOT_RUN,
};
use crate::sections;
use crate::sysinfo::cgroup::CpuQuota;

/// Why a report could not be read: the file, the line (1-based; 0 when the
/// whole file is at fault) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The file as named by the user (`-` for stdin).
    pub file: String,
    /// The line, 1-based; 0 for the whole file.
    pub line: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads a report of any kind: JSON when it starts with `{`, text otherwise.
pub fn read_report(file: &str, text: &str) -> Result<Report, ReadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('{') {
        read_json(file, text)
    } else {
        read_text(file, text)
    }
}

/// Reads our JSON document, refusing a newer major layout.
pub fn read_json(file: &str, text: &str) -> Result<Report, ReadError> {
    let err = |line: usize, message: String| ReadError {
        file: file.to_string(),
        line,
        message,
    };
    // One pass into the report. Only when it fails, or holds another
    // version, is the version read alone (the rest skipped, not built into
    // a `Value`): a newer layout is refused as such, not by the first of
    // its fields this version does not know.
    let parsed: Result<Report, serde_json::Error> = serde_json::from_str(text);
    if !matches!(&parsed, Ok(r) if r.schema_version == SCHEMA_VERSION) {
        version_is_ours(text).map_err(|(line, message)| err(line, message))?;
    }
    // The version is ours: the report's own error.
    let report = parsed.map_err(|e| {
        err(
            e.line(),
            format!("not a quickbench JSON report (schema_version {SCHEMA_VERSION}): {e}"),
        )
    })?;
    check::check(&report).map_err(|e| err(0, format!("{}: {}", e.path, e.message)))?;
    Ok(report)
}

/// Refuses a document of another version, or none, with the line of the
/// error and its message.
fn version_is_ours(text: &str) -> Result<(), (usize, String)> {
    let err = |line: usize, message: String| (line, message);
    #[derive(serde::Deserialize)]
    struct Version {
        #[serde(default)]
        schema_version: Option<serde_json::Value>,
    }
    let version: Version =
        serde_json::from_str(text).map_err(|e| err(e.line(), format!("not valid JSON: {e}")))?;
    match version.schema_version.as_ref().and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(SCHEMA_VERSION) => Ok(()),
        Some(v) if v > u64::from(SCHEMA_VERSION) => {
            Err(err(
                0,
                format!(
                    "written by a newer quickbench (schema_version {v}; this one reads {SCHEMA_VERSION}): \
                     read it with a newer quickbench"
                ),
            ))
        }
        Some(v) => {
            Err(err(
                0,
                format!("schema_version {v} is not one this quickbench reads ({SCHEMA_VERSION})"),
            ))
        }
        None => {
            Err(err(
                0,
                "no schema_version: not a quickbench JSON report (expected the output of `quickbench --json`)"
                    .into(),
            ))
        }
    }
}

/// One line of the input, its number kept for errors.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    no: usize,
    text: &'a str,
}

/// A section title: `[ CPU loop ]` gives `CPU loop`.
fn title_of(line: &str) -> Option<&str> {
    let t = line.trim();
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    Some(inner.trim())
}

/// Reads a text report: ours or the bash original's.
pub fn read_text(file: &str, text: &str) -> Result<Report, ReadError> {
    let lines: Vec<Line> = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| Line {
            no: i + 1,
            text: l.trim_end_matches('\r'),
        })
        .collect();
    let mut r = TextReader {
        file,
        report: Report::new(String::new(), String::new()),
    };
    let start = lines
        .iter()
        .position(|l| l.text.trim_start().starts_with("Quickbench:"))
        .ok_or_else(|| {
            r.err(
                lines.first().map_or(1, |l| l.no),
                "no `Quickbench:` header line: not a Quickbench report (expected its first line, \
                 e.g. `Quickbench: 1.0`)"
                    .into(),
            )
        })?;
    r.report.stray_lines = lines[..start]
        .iter()
        .map(|l| l.text.to_string())
        .filter(|l| !l.trim().is_empty())
        .collect();
    let rest = &lines[start..];
    // The header runs to the first section title.
    let first_title = rest
        .iter()
        .position(|l| title_of(l.text).is_some())
        .unwrap_or(rest.len());
    r.header(&rest[..first_title])?;
    // Sections: each runs to the next title.
    let mut i = first_title;
    while i < rest.len() {
        let title = title_of(rest[i].text).expect("a title line");
        let end = rest[i + 1..]
            .iter()
            .position(|l| title_of(l.text).is_some())
            .map_or(rest.len(), |p| i + 1 + p);
        let body: Vec<Line> = rest[i + 1..end]
            .iter()
            .copied()
            .filter(|l| !l.text.trim().is_empty())
            .collect();
        let last_section = end == rest.len();
        r.section(rest[i], title, &body, last_section)?;
        i = end;
    }
    extended::figures_from_raw(&mut r.report);
    Ok(r.report)
}

struct TextReader<'f> {
    file: &'f str,
    report: Report,
}

impl TextReader<'_> {
    fn err(&self, line: usize, message: String) -> ReadError {
        ReadError {
            file: self.file.to_string(),
            line,
            message,
        }
    }

    fn header(&mut self, lines: &[Line]) -> Result<(), ReadError> {
        let first = lines[0];
        let value = first.text.trim_start()["Quickbench:".len()..].trim();
        let ours = value.split_once(" (Rust port of ");
        match ours {
            Some((v, _)) => self.report.quickbench.port_version = v.to_string(),
            None => {
                self.report.original = Some(Original {
                    version: value.to_string(),
                    ..Original::default()
                })
            }
        }
        // Without a Build line, the build of a report of ours is unknown.
        let h = &mut self.report.quickbench;
        if ours.is_some() {
            h.rustc.clear();
            h.target.clear();
        }
        for l in &lines[1..] {
            if l.text.trim().is_empty() {
                continue;
            }
            let Some((label, value)) = l.text.split_once(':') else {
                return Err(self.err(
                    l.no,
                    format!(
                        "expected a header line `Label     : value`, found {:?}",
                        l.text
                    ),
                ));
            };
            let value = value.trim();
            match (label.trim(), &mut self.report.original) {
                ("Kernel", _) => {
                    self.report.quickbench.kernel = value.to_string();
                    self.report.hostname = value
                        .split_whitespace()
                        .nth(1)
                        .unwrap_or_default()
                        .to_string();
                }
                ("Run", None) => {
                    let run = parse_run_line(value).ok_or_else(|| {
                        self.err(
                            l.no,
                            format!(
                                "expected `Run       : loop delay <N> s[ {TRIALS_SIGN} <repeat> trials| in <K> trials| {TRIALS_SIGN} <repeat> in <all> trials][, budget <90s|10m|1h>], <dir> (<fs> on <device>), <YYYY-MM-DD HH:MM> UTC`, found {:?}",
                                l.text
                            ),
                        )
                    })?;
                    self.report.loop_delay_s = Some(run.0);
                    self.report.dir = Some(run.1);
                    self.report.run_fs_device = run.2;
                    self.report.timestamp_utc = run.3;
                    (self.report.repeat, self.report.trials_per_delay) = run.4;
                    self.report.budget_s = run.5;
                }
                ("Bash", Some(o)) => o.bash = Some(value.to_string()),
                ("dd", Some(o)) => o.dd = Some(value.to_string()),
                ("Build", None) => {
                    let mut parts = value.rsplitn(3, ", ");
                    let (linkage, target, rustc) = (parts.next(), parts.next(), parts.next());
                    let (Some(linkage), Some(target), Some(rustc)) = (linkage, target, rustc)
                    else {
                        return Err(self.err(
                            l.no,
                            format!("expected `Build     : <rustc>, <target>, static|dynamic`, found {:?}", l.text),
                        ));
                    };
                    let h = &mut self.report.quickbench;
                    h.rustc = rustc.to_string();
                    h.target = target.to_string();
                    h.static_build = linkage == "static";
                }
                ("CPU loop", None) => {
                    let parsed = parse_loop_definition(value);
                    let Some((version, description)) = parsed else {
                        return Err(self.err(
                            l.no,
                            format!(
                                "expected `CPU loop  : loop v<N> (<definition>), ...`, found {:?}",
                                l.text
                            ),
                        ));
                    };
                    self.report.quickbench.loop_version = version;
                    self.report.quickbench.loop_description = description;
                }
                _ => {
                    // A stray message between header lines (a script's stderr).
                    self.report.stray_lines.push(l.text.to_string());
                }
            }
        }
        Ok(())
    }

    fn section(
        &mut self,
        title_line: Line,
        title: &str,
        body: &[Line],
        last: bool,
    ) -> Result<(), ReadError> {
        let section = match title {
            "CPU info" => Some(Section::Cpuinfo),
            "CPU loop" => Some(Section::Cpu),
            "Memory" => Some(Section::Memory),
            "Storage info" => Some(Section::Storage),
            t if t.starts_with("Storage bandwidth") => Some(Section::Io),
            _ => None,
        };
        if let Some(s) = section {
            if !self.report.sections.contains(&s) {
                self.report.sections.push(s);
            }
        }
        if title == "Plan" {
            self.report.dry_run = true;
        }
        if let Some((_, added)) = sections::by_title(title) {
            if !self.report.sections.contains(&added.section()) {
                self.report.sections.push(added.section());
            }
            let lines = trim_blank_tail(body);
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            return added
                .read(&mut self.report, &lines)
                .map_err(|why| self.err(body.first().map_or(title_line.no, |l| l.no), why));
        }
        for (i, l) in body.iter().enumerate() {
            let read = match title {
                "CPU info" => self.cpu_info_line(*l),
                "CPU loop" => self.cpu_loop_line(*l),
                "Memory" => self.memory_line(*l),
                "Storage info" => self.storage_info_line(*l, i == 0),
                "Storage device stack" => Ok(()),
                t if t.starts_with("Storage bandwidth") => {
                    if i == 0 {
                        self.bandwidth_title(title_line, t)?;
                    }
                    self.bandwidth_line(*l, t)
                }
                _ => Ok(()),
            };
            if let Err(why) = read {
                if is_stray_message(l.text) {
                    self.stray(l.text);
                    continue;
                }
                if last {
                    // Text after the report (prose around a pasted one):
                    // the report ends at this line.
                    self.report
                        .stray_lines
                        .extend(body[i..].iter().map(|l| l.text.to_string()));
                    break;
                }
                return Err(self.err(l.no, why));
            }
        }
        match title {
            "CPU info" => {
                if self.report.cpu_info.is_none() {
                    self.report.cpu_info = Some(CpuInfo {
                        label_width_chars: 0,
                        lines: Vec::new(),
                        summary: None,
                    });
                }
            }
            "Storage info" => {
                self.report.storage_info.get_or_insert_with(Vec::new);
            }
            "Storage device stack" => {
                let lines: Vec<String> = body.iter().map(|l| l.text.to_string()).collect();
                let stack = forms::stack::parse(&lines)
                    .map_err(|why| self.err(body.first().map_or(title_line.no, |l| l.no), why))?;
                self.report.storage_stack = Some(stack);
            }
            t if t.starts_with("Storage bandwidth") && body.is_empty() => {
                self.bandwidth_title(title_line, t)?;
            }
            "CPU loop" | "Memory" => {}
            t if t.starts_with("Storage bandwidth") => {}
            _ => self.report.raw_sections.push(RawSection {
                title: title.to_string(),
                lines: trim_blank_tail(body),
            }),
        }
        Ok(())
    }

    fn stray(&mut self, text: &str) {
        self.report.stray_lines.push(text.to_string());
        // The bash original's last words when it cannot find the device.
        if text.starts_with("Could not figure out the backing block") {
            let reason = text.trim().to_string();
            if !self.report.sections.contains(&Section::Io) {
                self.report.sections.push(Section::Io);
            }
            self.report.storage_bandwidth_skipped = Some(reason.clone());
            self.report.failed_sections.add(Section::Io, reason);
        }
    }

    fn cpu_info_line(&mut self, l: Line) -> Result<(), String> {
        let info = self.report.cpu_info.get_or_insert(CpuInfo {
            label_width_chars: 0,
            lines: Vec::new(),
            summary: None,
        });
        if l.text.trim() == "unavailable (see stderr)" {
            self.report
                .failed_sections
                .add(Section::Cpuinfo, "unavailable (see stderr)");
            return Ok(());
        }
        let (line, width) = forms::cpuinfo::parse_line(l.text)?;
        info.label_width_chars = info.label_width_chars.max(width);
        info.lines.push(line);
        Ok(())
    }

    fn cpu_loop_line(&mut self, l: Line) -> Result<(), String> {
        if let Some(q) = CpuQuota::parse_limit_line(l.text) {
            self.report
                .limits
                .get_or_insert_with(Default::default)
                .cpu_quota = Some(q);
            return Ok(());
        }
        let expected = || {
            format!(
                "expected a CPU loop line like ` 1 // jobs :     478140 loop/job/s`, found {:?}",
                l.text
            )
        };
        let t: Vec<&str> = l.text.split_whitespace().collect();
        if t.len() < 6 || t[1] != "//" || t[2] != "jobs" || t[3] != ":" || t[5] != "loop/job/s" {
            return Err(expected());
        }
        let jobs: u32 = t[0].parse().map_err(|_| expected())?;
        let rate: u64 = t[4].parse().map_err(|_| expected())?;
        let rest = rest_after_tokens(l.text, 6);
        let (end, marks) = parse_marks(rest).ok_or_else(expected)?;
        if end.error().is_some() {
            return Err(expected());
        }
        let step = LoopStep {
            jobs,
            loops_per_s_each: Vec::new(),
            loops_per_s_mean: rate as f64,
            elapsed_ns: 0,
            samples: Default::default(),
            end,
        };
        self.report.cpu_loop.push(marks.on(step).into());
        Ok(())
    }

    fn memory_line(&mut self, l: Line) -> Result<(), String> {
        let memory = self.report.memory.get_or_insert(Memory {
            mem_total_kib: None,
            dd_bandwidth: None,
        });
        let expected = || {
            format!(
                "expected `Total    : <N> MB` or `Bandwidth: <rate>` (e.g. `22.0 GB/s`), found {:?}",
                l.text
            )
        };
        let (label, value) = l.text.split_once(':').ok_or_else(expected)?;
        let value = value.trim();
        let unavailable = value == "unavailable (see stderr)";
        match label.trim() {
            "Total" if unavailable => {
                self.report
                    .failed_sections
                    .add(Section::Memory, "Total unavailable");
            }
            "Total" => {
                let (value, limit) = match value.split_once(" (cgroup limit ") {
                    Some((v, l)) => (v, Some(l)),
                    None => (value, None),
                };
                let mb = value
                    .strip_suffix("MB")
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .ok_or_else(expected)?;
                memory.mem_total_kib = Some(mb << 10);
                if let Some(l) = limit {
                    let limit_mb = l
                        .strip_suffix(" MB)")
                        .and_then(|v| v.parse::<u64>().ok())
                        .ok_or_else(expected)?;
                    self.report
                        .limits
                        .get_or_insert_with(Default::default)
                        .memory_limit_bytes = Some(limit_mb << 20);
                }
            }
            "Bandwidth" if unavailable => {
                self.report
                    .failed_sections
                    .add(Section::Memory, "Bandwidth unavailable");
            }
            "Bandwidth" => {
                // `30.9 GB/s`, then marks: the rate is its first two words.
                let cut_at = value
                    .match_indices(' ')
                    .nth(1)
                    .map_or(value.len(), |(i, _)| i);
                let (rate, rest) = value.split_at(cut_at);
                let (end, marks) = parse_marks(rest).ok_or_else(expected)?;
                if end.error().is_some() {
                    return Err(expected());
                }
                let bytes_per_s = parse_rate(rate).ok_or_else(expected)?;
                let bw = match bytes_per_s {
                    Some(bytes) => DdBandwidth {
                        bytes,
                        elapsed_ns: rate_elapsed_ns(rate),
                        samples: Default::default(),
                        end,
                    },
                    // `Infinity B/s`: dd's word for a zero duration.
                    None => DdBandwidth {
                        bytes: 0,
                        elapsed_ns: 0,
                        samples: Default::default(),
                        end,
                    },
                };
                memory.dd_bandwidth = Some(marks.on(bw).into());
            }
            _ => return Err(expected()),
        }
        Ok(())
    }

    fn storage_info_line(&mut self, l: Line, first: bool) -> Result<(), String> {
        let rows = self.report.storage_info.get_or_insert_with(Vec::new);
        let t: Vec<&str> = l.text.split_whitespace().collect();
        if first {
            return if t == ["Name", "Bus", "Size(GB)", "QDepth", "Model"] {
                Ok(())
            } else {
                Err(format!(
                    "expected the table header `Name      Bus     Size(GB)  QDepth  Model`, found {:?}",
                    l.text
                ))
            };
        }
        let expected = || {
            format!(
                "expected a table row like `sda       scsi        100      128  QEMU HARDDISK`, found {:?}",
                l.text
            )
        };
        if t.len() < 4 {
            return Err(expected());
        }
        let size_gib: u64 = t[2].parse().map_err(|_| expected())?;
        let queue_depth = match t[3] {
            "?" => None,
            q => Some(q.parse::<u64>().map_err(|_| expected())?),
        };
        // The model is the rest of the line, its inner spaces kept.
        let model = rest_after_tokens(l.text, 4).trim_end();
        rows.push(DiskRow {
            name: t[0].to_string(),
            bus: t[1].to_string(),
            size_gib,
            queue_depth,
            model: match model {
                "" | "?" => None,
                m => Some(m.to_string()),
            },
        });
        Ok(())
    }

    fn bandwidth_title(&mut self, title_line: Line, title: &str) -> Result<(), ReadError> {
        if title == "Storage bandwidth" {
            return Ok(());
        }
        let (bs, setup) = parse_bandwidth_title(title).ok_or_else(|| {
            self.err(
                title_line.no,
                format!(
                    "expected a title like `[ Storage bandwidth - 4k blocks (sda) ]`, found {:?}",
                    title_line.text
                ),
            )
        })?;
        let _ = bs;
        if self.report.storage_io.is_none() {
            if setup.device.as_deref() == Some("unknown device") {
                self.report
                    .failed_sections
                    .add(Section::Storage, "unknown device");
            }
            self.report.storage_io = Some(setup);
        }
        Ok(())
    }

    fn bandwidth_line(&mut self, l: Line, title: &str) -> Result<(), String> {
        // said for a device read only; the title has it already
        if l.text.starts_with(WRITES_NOT_RUN) {
            return Ok(());
        }
        if title == "Storage bandwidth" {
            let reason = l
                .text
                .trim()
                .strip_prefix("Skipped:")
                .ok_or_else(|| format!("expected `Skipped: <reason>`, found {:?}", l.text))?
                .trim()
                .to_string();
            self.report.storage_bandwidth_skipped = Some(reason.clone());
            self.report.failed_sections.add(Section::Io, reason);
            return Ok(());
        }
        let (bs, setup) =
            parse_bandwidth_title(title).ok_or_else(|| format!("unreadable title {title:?}"))?;
        let (mut line, marks) = parse_io_line(l.text, bs).ok_or_else(|| {
            format!(
                "expected a storage line like `Writes ( 1 thread[s]):     66 MB/s   16256 IO/s       0 µs avg. lat.`, found {:?}",
                l.text
            )
        })?;
        line.direct_io = setup.direct_io;
        line.memory_backed = setup.memory_fs.is_some();
        if line.end.error().is_some() {
            self.report
                .failed_sections
                .add(Section::Io, "line(s) stopped early");
        }
        self.report.storage_bandwidth.push(marks.on(line).into());
        Ok(())
    }
}

fn trim_blank_tail(body: &[Line]) -> Vec<String> {
    body.iter().map(|l| l.text.to_string()).collect()
}

/// A message a script or one of its commands sent to stdout or a
/// terminal between report lines: `grep: ...`, `./quickbench: line 3: ...`,
/// or the bash original's `Could not figure out the backing block device`.
fn is_stray_message(text: &str) -> bool {
    let t = text.trim();
    if t.starts_with("Could not figure out the backing block") {
        return true;
    }
    // `<command>: ` with no space in the command name, and a known tool.
    let Some((cmd, _)) = t.split_once(": ") else {
        return false;
    };
    let cmd = cmd.rsplit('/').next().unwrap_or(cmd);
    [
        "grep",
        "bash",
        "quickbench",
        "kill",
        "sleep",
        "dd",
        "lsblk",
        "findmnt",
        "readlink",
        "cat",
        "sed",
        "lscpu",
        "stat",
        "rm",
        "wait",
    ]
    .iter()
    .any(|k| cmd == *k || cmd.starts_with(&format!("{k} ")))
}

/// The text after the first `n` whitespace-separated tokens.
fn rest_after_tokens(text: &str, n: usize) -> &str {
    let mut rest = text.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest
}

/// What the `Run` header line says: the loop delay, the directory, its
/// filesystem and device, the date (RFC 3339, to the minute), and the
/// trials of each step, the `--budget` in seconds.
type RunFacts = (
    f64,
    String,
    Option<(String, String)>,
    Option<String>,
    (u32, u32),
    Option<f64>,
);

/// `loop delay 30 s, /var/tmp (ext4 on vda), 2026-12-03 18:20 UTC`, or
/// `loop delay 30 s × 5 trials, ...`, `loop delay 30 s in 6 trials, ...`,
/// `loop delay 30 s × 5 in 30 trials, ...`; any of them then
/// `, budget 10m` before the directory.
fn parse_run_line(value: &str) -> Option<RunFacts> {
    let rest = value.strip_prefix("loop delay ")?;
    let (delay, rest) = rest.split_once(" s")?;
    let delay: f64 = delay.parse().ok().filter(|d: &f64| d.is_finite())?;
    let (repeat, per_delay, rest) = match rest.strip_prefix(", ") {
        Some(rest) => (1, 1, rest),
        None => {
            let count = |n: &str| n.parse().ok().filter(|n: &u32| *n > 1);
            let (n, rest) = rest.split_once(" trials, ")?;
            match (
                n.strip_prefix(&format!(" {TRIALS_SIGN} ")),
                n.strip_prefix(" in "),
            ) {
                // `× 5 in 30 trials`
                (Some(n), _) if n.contains(" in ") => {
                    let (n, all) = n.split_once(" in ")?;
                    let (n, all) = (count(n)?, count(all)?);
                    (all % n == 0 && all / n > 1).then_some((n, all / n, rest))?
                }
                (Some(n), _) => (count(n)?, 1, rest),
                (None, Some(k)) => (1, count(k)?, rest),
                (None, None) => return None,
            }
        }
    };
    // `budget 10m, `: only in that form, so a directory named otherwise
    // stays a directory.
    let (budget, rest) = rest
        .strip_prefix("budget ")
        .and_then(|r| r.split_once(", "))
        .and_then(|(b, r)| Some((Some(forms::budget::parse(b)? as f64), r)))
        .unwrap_or((None, rest));
    let (place, date) = rest.rsplit_once(", ")?;
    let timestamp = match date {
        "date unknown" => None,
        d => {
            let (day, hm) = d.strip_suffix(" UTC")?.split_once(' ')?;
            let ok = day.len() == 10 && hm.len() == 5 && hm.as_bytes()[2] == b':';
            if !ok {
                return None;
            }
            Some(format!("{day}T{hm}:00Z"))
        }
    };
    // `<dir> (<fs> on <device>)`: the parenthesis that closes the line.
    let fs_dev = place
        .strip_suffix(')')
        .and_then(|p| p.rfind(" (").map(|i| (&p[..i], &p[i + 2..])))
        .and_then(|(dir, inner)| {
            let (fs, dev) = inner.split_once(" on ")?;
            (!fs.contains(' ')).then(|| (dir, fs.to_string(), dev.to_string()))
        });
    Some(match fs_dev {
        Some((dir, fs, dev)) => (
            delay,
            dir.to_string(),
            Some((fs, dev)),
            timestamp,
            (repeat, per_delay),
            budget,
        ),
        None => (
            delay,
            place.to_string(),
            None,
            timestamp,
            (repeat, per_delay),
            budget,
        ),
    })
}

/// `loop v1 (8 independent chains), not comparable ...` gives
/// `(1, "8 independent chains")`.
fn parse_loop_definition(value: &str) -> Option<(u32, String)> {
    let rest = value.strip_prefix("loop v")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let version = digits.parse().ok()?;
    let (inside, _) = crate::textutil::paren_group(rest[digits.len()..].trim_start())?;
    Some((version, inside.to_string()))
}

/// A dd rate text (`22.0 GB/s`, `987 MB/s`, `22,0 GB/s` in a comma-decimal
/// locale) in bytes per second; `Some(None)` for `Infinity B/s`.
fn parse_rate(text: &str) -> Option<Option<u64>> {
    let (num, unit) = text.trim().split_once(' ')?;
    let unit = unit.trim().strip_suffix("B/s")?;
    let exp = match unit {
        "" => 0,
        "k" | "K" => 3,
        "M" => 6,
        "G" => 9,
        "T" => 12,
        "P" => 15,
        "E" => 18,
        _ => return None,
    };
    if num == "Infinity" {
        return Some(None);
    }
    let num = num.replace(',', ".");
    let (int, frac) = num.split_once('.').unwrap_or((&num, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) || frac.len() > exp {
        return None;
    }
    // Exact decimal arithmetic: the printed digits times 10^exp.
    let digits = format!("{int}{frac}{}", "0".repeat(exp - frac.len()));
    Some(Some(digits.parse::<u64>().ok()?))
}

/// The duration that makes `units::dd_rate` print `rate` again from the
/// bytes of one second. GNU dd has two paths: when the duration divides a
/// second exactly, whole units from 10 up print without a decimal (`31 GB/s`);
/// otherwise one decimal below 99.95 units (`30.9 GB/s`), the unit chosen
/// by the unrounded rate. A nanosecond less than a second takes the second
/// path and changes no printed digit, and keeps `1.0 TB/s` at or above its
/// unit; `1000 GB/s` (just below it) needs a nanosecond more instead.
fn rate_elapsed_ns(rate: &str) -> u64 {
    let num = rate.split(' ').next().unwrap_or_default();
    let whole = !num.contains(['.', ',']);
    match num.parse::<u64>() {
        Ok(v) if whole && v < 100 => 1_000_000_000,
        Ok(v) if whole && v >= 1000 => 1_000_000_001,
        _ => 999_999_999,
    }
}

/// The block size and title facts of `Storage bandwidth - 4k blocks (...)`.
fn parse_bandwidth_title(title: &str) -> Option<(BlockSize, IoSetup)> {
    let rest = title.strip_prefix("Storage bandwidth - ")?;
    let (label, rest) = rest.split_once(" blocks")?;
    let bs = BlockSize::from_label(label.trim())?;
    let rest = rest.trim();
    if rest.is_empty() {
        return Some((
            bs,
            IoSetup {
                device: None,
                memory_fs: None,
                direct_io: true,
                remote: false,
                raw: None,
            },
        ));
    }
    let mut what = rest.strip_prefix('(')?.strip_suffix(')')?;
    let raw = if let Some(w) = what.strip_suffix(RAW_READ_ONLY_NOTE) {
        what = w;
        Some(crate::model::RawAccess::ReadOnly)
    } else if let Some(w) = what.strip_suffix(RAW_NOTE) {
        what = w;
        Some(crate::model::RawAccess::Write)
    } else {
        None
    };
    let direct_io = match what.strip_suffix(BUFFERED_NOTE) {
        Some(w) => {
            what = w;
            false
        }
        None => true,
    };
    let remote = match what.strip_suffix(REMOTE_NOTE) {
        Some(w) => {
            what = w;
            true
        }
        None => false,
    };
    let (device, memory_fs) = match what.strip_suffix(MEMORY_NOTE).filter(|_| !remote) {
        Some(w) => match w.rsplit_once(" on ") {
            Some((dev, fs)) => (dev.to_string(), Some(fs.to_string())),
            None => (w.to_string(), Some(w.to_string())),
        },
        None => (what.to_string(), None),
    };
    Some((
        bs,
        IoSetup {
            device: Some(device),
            memory_fs,
            direct_io,
            remote,
            raw,
        },
    ))
}

/// One storage line: `Writes ( 1 thread[s]):     66 MB/s   16256 IO/s       0 µs avg. lat.`
/// and its marks.
fn parse_io_line(text: &str, bs: BlockSize) -> Option<(LineResult, StepMarks)> {
    let t = text.trim();
    let direction = if t.starts_with("Writes") {
        Direction::Write
    } else if t.starts_with("Reads") {
        Direction::Read
    } else {
        return None;
    };
    let (head, figures) = t.split_once("thread[s]):")?;
    let jobs: u32 = head.split_once('(')?.1.trim().parse().ok()?;
    let (figures, mark) = match figures.split_once("avg. lat.") {
        Some((f, m)) => (f, m.trim()),
        None => return None,
    };
    let f: Vec<&str> = figures.split_whitespace().collect();
    // `66 MB/s 16256 IO/s 0 µs`; the µ may have been mangled in transit.
    if f.len() != 6 || f[1] != "MB/s" || f[3] != "IO/s" || !f[5].ends_with('s') {
        return None;
    }
    let mb: u64 = f[0].parse().ok()?;
    let iops: u64 = f[2].parse().ok()?;
    let lat: u64 = f[4].parse().ok()?;
    let (end, marks) = parse_marks(mark)?;
    let line = LineResult {
        mb_per_s: mb as f64,
        iops: iops as f64,
        lat_mean_us: lat as f64,
        end,
        ..LineResult::empty(bs.bytes(), direction, jobs)
    };
    Some((line, marks))
}

/// How a line ended and its marks, from what follows it: `(interrupted)
/// (busy: other processes used 48 % of a CPU) (steal 12 %)`; the end
/// comes first. `None` when a part is neither.
fn parse_marks(text: &str) -> Option<(End, StepMarks)> {
    let mut end = End::Complete;
    let mut marks = Vec::new();
    let mut shares = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let inner_end = rest.find(')')?;
        let inner = rest.strip_prefix('(')?.get(..inner_end - 1)?;
        rest = rest[inner_end + 1..].trim_start();
        let first = end.is_complete() && marks.is_empty();
        match End::parse(inner).filter(|_| first) {
            Some(e) => end = e,
            None => {
                let (m, share) = mark::parse_in(inner)?;
                marks.push(m);
                shares.push(share);
            }
        }
    }
    // A mark printed without its count, beside one with it, was earned
    // by every trial.
    let of = shares.iter().flatten().map(|s| s.of).next();
    let in_trials = match of {
        Some(of) => shares
            .iter()
            .map(|s| s.unwrap_or(InTrials { trials: of, of }))
            .collect(),
        None => Vec::new(),
    };
    Some((end, StepMarks { marks, in_trials }))
}

/// A step's marks as its line prints them.
#[derive(Debug, Default, PartialEq)]
struct StepMarks {
    marks: Vec<Mark>,
    in_trials: Vec<InTrials>,
}

impl StepMarks {
    /// `figure` with these marks.
    fn on<F, C: Default>(self, figure: F) -> Measured<F, C> {
        Measured {
            marks: self.marks,
            marks_in_trials: self.in_trials,
            ..Measured::plain(figure)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_exactly() {
        assert_eq!(parse_rate("30.9 GB/s"), Some(Some(30_900_000_000)));
        assert_eq!(parse_rate("987 MB/s"), Some(Some(987_000_000)));
        assert_eq!(parse_rate("22,0 GB/s"), Some(Some(22_000_000_000)));
        assert_eq!(parse_rate("Infinity B/s"), Some(None));
        assert_eq!(parse_rate("fast"), None);
        assert_eq!(parse_rate("1.2345 kB/s"), None);
    }

    #[test]
    fn titles_keep_their_facts() {
        let (bs, s) = parse_bandwidth_title("Storage bandwidth - 1M blocks (dm-1 on tmpfs: memory, not a disk, buffered: page cache)").unwrap();
        assert_eq!(bs, BlockSize::M1);
        assert_eq!(s.device.as_deref(), Some("dm-1"));
        assert_eq!(s.memory_fs.as_deref(), Some("tmpfs"));
        assert!(!s.direct_io);
        let (_, s) = parse_bandwidth_title("Storage bandwidth - 4k blocks").unwrap();
        assert_eq!(s.device, None);
    }

    #[test]
    fn stray_messages_are_known_tools_only() {
        assert!(is_stray_message(
            "grep: /sys/block/*/*/dev: No such file or directory"
        ));
        assert!(is_stray_message(
            "./quickbench: line 12: kill: (42) - No such process"
        ));
        assert!(!is_stray_message("Bandwidth: 30.9 GB/s"));
        assert!(!is_stray_message("The script accepts only 1 parameter"));
    }
}
