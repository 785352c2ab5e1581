//! The Prometheus renderer: a [`Report`] as the text exposition format
//! that node_exporter's textfile collector reads (`--prometheus FILE` on a
//! run, `quickbench export --prometheus`). Pure: a report in, a string
//! out; writing it (a temporary file in the same directory, then a
//! rename, as the textfile collector's documentation asks) is the output
//! layer's ([`super::textfile`]).
//!
//! Its naming conventions and which figure each sample is: docs/METHOD.md
//! "The Prometheus textfile: names, labels, figures".

use std::fmt::Write as _;

use crate::conditions::Mark;
use crate::dd_io::Direction;
use crate::end::End;
use crate::model::{BlockSize, Report, Section};

/// A label: its name and its value (unescaped).
type Label = (&'static str, String);

/// The Prometheus textfile of one report, no label added.
pub fn render(r: &Report) -> String {
    render_many(&[(Vec::new(), r)])
}

/// The Prometheus textfile of several reports, each sample of a report
/// carrying that report's `labels` besides its own (e.g. `host`): one
/// family block per metric, as the format asks. Two reports with the
/// same labels would give duplicate series; the caller keeps them apart.
pub fn render_many(reports: &[(Vec<(&'static str, String)>, &Report)]) -> String {
    let mut families = families();
    for (labels, r) in reports {
        collect(r, labels, &mut families);
    }
    let mut out = String::new();
    for f in families.iter().filter(|f| !f.samples.is_empty()) {
        let _ = writeln!(out, "# HELP {} {}", f.name, escape_help(f.help));
        let _ = writeln!(out, "# TYPE {} {}", f.name, f.kind);
        for s in &f.samples {
            out.push_str(f.name);
            out.push_str(s.suffix);
            if !s.labels.is_empty() {
                out.push('{');
                let labels: Vec<String> = s
                    .labels
                    .iter()
                    .map(|(k, v)| format!("{k}=\"{}\"", escape_label(v)))
                    .collect();
                out.push_str(&labels.join(","));
                out.push('}');
            }
            let _ = writeln!(out, " {}", number(s.value));
        }
    }
    out
}

/// One sample: its name's suffix (a summary's `_sum`, `_count`), labels
/// and value.
struct Sample {
    suffix: &'static str,
    labels: Vec<Label>,
    value: f64,
}

/// A metric family: every sample of one name, with its help and type.
struct Family {
    name: &'static str,
    help: &'static str,
    kind: &'static str,
    samples: Vec<Sample>,
}

// The families, in the order the file lists them.
const INFO: usize = 0;
const TIMESTAMP: usize = 1;
const SECTION_FAILED: usize = 2;
const CPU_LOOP: usize = 3;
const CPU_STEAL: usize = 4;
const CPU_CLOCK: usize = 5;
const SMT_RATIO: usize = 6;
const MEM_TOTAL: usize = 7;
const MEM_BANDWIDTH: usize = 8;
const DRAM: usize = 9;
const IO_BYTES: usize = 10;
const IO_IOPS: usize = 11;
const IO_LAT_MEAN: usize = 12;
const IO_LAT: usize = 13;
const INCOMPLETE: usize = 14;
const MARK: usize = 15;
const CPU_ALONE: usize = 16;
const MEM_ALONE: usize = 17;
const SHARED: usize = 18;

fn families() -> Vec<Family> {
    let f = |name, kind, help| Family {
        name,
        help,
        kind,
        samples: Vec::new(),
    };
    vec![
        f("quickbench_info", "gauge", "How the report was made: version, origin (quickbench or the bash original), CPU loop definition, kernel, host name, loop delay, trials per step, benchmark directory, filesystem and device. Always 1."),
        f("quickbench_run_timestamp_seconds", "gauge", "When the run started, seconds since the Unix epoch (UTC)."),
        f("quickbench_section_failed", "gauge", "1 when a selected section could not run (the run's exit status was 1), else 0."),
        f("quickbench_cpu_loop_loops_per_second", "gauge", "CPU loop: mean loops per second of one job, with this many jobs in parallel (loop: the loop's definition; bash: the bash original's iterations, another scale)."),
        f("quickbench_cpu_loop_steal_ratio", "gauge", "CPU loop (-x): share of the CPUs' time stolen by the hypervisor during the step."),
        f("quickbench_cpu_loop_clock_hertz", "gauge", "CPU loop (-x): mean clock of the CPUs during the step."),
        f("quickbench_smt_probe_ratio", "gauge", "SMT probe (-x): loops per second of two jobs on SMT siblings over two jobs on separate cores (1: no slowdown, 0.5: a shared core)."),
        f("quickbench_memory_total_bytes", "gauge", "Memory: MemTotal of /proc/meminfo."),
        f("quickbench_memory_bandwidth_bytes_per_second", "gauge", "Memory: what dd if=/dev/zero of=/dev/null bs=1M measures (a cache bandwidth)."),
        f("quickbench_memory_dram_bytes_per_second", "gauge", "Memory (-x): DRAM bandwidth, STREAM-like copy and triad, best pass, with 1 thread and with one thread per CPU."),
        f("quickbench_storage_bytes_per_second", "gauge", "Storage bandwidth: bytes per second of a line (block size, direction, jobs, device)."),
        f("quickbench_storage_iops", "gauge", "Storage bandwidth: I/O operations per second of a line."),
        f("quickbench_storage_latency_mean_seconds", "gauge", "Storage bandwidth: mean completion latency of one I/O of a line, as its jobs saw it."),
        f("quickbench_storage_latency_seconds", "summary", "Storage bandwidth (-x): completion latency of one I/O of a line; quantile 1 is the largest."),
        f("quickbench_step_incomplete", "gauge", "1 for a timed step that did not run its whole time (end: interrupted, or stopped with its error); its figures cover the time it ran."),
        f("quickbench_mark", "gauge", "1 for each mark of a timed step: something else used the host while it ran (busy, steal, throttled, other_io, cached)."),
        f("quickbench_cpu_loop_alone_loops_per_second", "gauge", "CPU loop: loops per second of one job over the samples whose core was not shared (its work per cycle at its own level)."),
        f("quickbench_memory_alone_bytes_per_second", "gauge", "Memory: the bandwidth over the samples whose core was not shared."),
        f("quickbench_shared_ratio", "gauge", "Share of a CPU loop step's or the memory step's samples whose core was shared: less work per cycle at the same clock, with no steal (another tenant on the host's SMT sibling)."),
    ]
}

fn push(f: &mut [Family], family: usize, labels: Vec<Label>, value: f64) {
    push_suffixed(f, family, "", labels, value);
}

fn push_suffixed(
    f: &mut [Family],
    family: usize,
    suffix: &'static str,
    labels: Vec<Label>,
    value: f64,
) {
    // A figure that is not a number (a step of zero length) is not
    // published: the format would take it, but no alert should.
    if value.is_finite() {
        f[family].samples.push(Sample {
            suffix,
            labels,
            value,
        });
    }
}

/// `base` then `more`.
fn with(base: &[Label], more: &[Label]) -> Vec<Label> {
    base.iter().chain(more).cloned().collect()
}

fn collect(r: &Report, extra: &[Label], f: &mut [Family]) {
    let bash = r.original.is_some();
    info(r, extra, f);
    if let Some(t) = r.timestamp_utc.as_deref().and_then(epoch_seconds) {
        push(f, TIMESTAMP, extra.to_vec(), t as f64);
    }
    for s in &r.sections {
        if *s == Section::Cpuinfo || r.dry_run {
            continue;
        }
        let failed = r.failed_sections.contains(*s);
        push(
            f,
            SECTION_FAILED,
            with(extra, &[("section", s.name().into())]),
            f64::from(u8::from(failed)),
        );
    }
    let loop_name = if bash {
        "bash".to_string()
    } else {
        r.quickbench.loop_version.to_string()
    };
    for s in &r.cpu_loop {
        let step = with(extra, &[("jobs", s.jobs.to_string())]);
        push(
            f,
            CPU_LOOP,
            with(&step, &[("loop", loop_name.clone())]),
            s.loops_per_s_mean,
        );
        if r.extended.is_some() {
            if let Some(c) = &s.conditions.clock {
                push(f, CPU_STEAL, step.clone(), c.steal_percent / 100.0);
                if let Some(mhz) = c.mean_mhz {
                    push(f, CPU_CLOCK, step.clone(), mhz * 1e6);
                }
            }
        }
        if let Some(t) = &s.conditions.tenancy {
            if let Some(a) = t.alone_rate {
                push(f, CPU_ALONE, step.clone(), a);
            }
            if let Some(share) = t.shared_fraction {
                let labels = with(&[("section", "cpu_loop".into())], &step);
                push(f, SHARED, labels, share);
            }
        }
        let step = with(&[("section", "cpu_loop".into())], &step);
        conditions(f, &step, &s.end, &s.marks);
    }
    if let Some(m) = &r.memory {
        if let Some(kib) = m.mem_total_kib {
            push(f, MEM_TOTAL, extra.to_vec(), (kib * 1024) as f64);
        }
        if let Some(b) = &m.dd_bandwidth {
            push(f, MEM_BANDWIDTH, extra.to_vec(), b.bytes_per_s());
            let step = with(extra, &[("section", "memory".into())]);
            if let Some(t) = &b.conditions.tenancy {
                if let Some(a) = t.alone_rate {
                    push(f, MEM_ALONE, extra.to_vec(), a);
                }
                if let Some(share) = t.shared_fraction {
                    push(f, SHARED, step.clone(), share);
                }
            }
            conditions(f, &step, &b.end, &b.marks);
        }
    }
    if let Some(x) = r.extended.as_ref() {
        if let Some(ratio) = x.smt_contention.as_ref().and_then(|p| p.ratio) {
            push(f, SMT_RATIO, extra.to_vec(), ratio);
        }
        if let Some(d) = &x.dram {
            for run in std::iter::once(&d.single).chain(&d.all) {
                for (op, gb) in [("copy", run.copy_gb_per_s), ("triad", run.triad_gb_per_s)] {
                    let labels = with(
                        extra,
                        &[("op", op.into()), ("threads", run.threads.to_string())],
                    );
                    push(f, DRAM, labels, gb * 1e9);
                }
            }
        }
    }
    let device = r.storage_io.as_ref().and_then(|s| s.device.clone());
    for l in &r.storage_bandwidth {
        let block = BlockSize::from_bytes(l.block_size_bytes)
            .map_or_else(|| l.block_size_bytes.to_string(), |b| b.label().to_string());
        let direction = match l.direction {
            Direction::Write => "write",
            Direction::Read => "read",
        };
        let mut line = with(
            extra,
            &[
                ("block", block),
                ("direction", direction.into()),
                ("jobs", l.jobs.to_string()),
            ],
        );
        line.extend(device.clone().map(|d| ("device", d)));
        push(f, IO_BYTES, line.clone(), l.mb_per_s * 1e6);
        push(f, IO_IOPS, line.clone(), l.iops);
        if !bash {
            push(f, IO_LAT_MEAN, line.clone(), l.lat_mean_us / 1e6);
            if r.extended.is_some() && l.lat_max_us > 0.0 {
                for (q, us) in [
                    ("0.5", l.lat_p50_us),
                    ("0.9", l.lat_p90_us),
                    ("0.99", l.lat_p99_us),
                    ("0.999", l.lat_p999_us),
                    ("1", l.lat_max_us),
                ] {
                    push(f, IO_LAT, with(&line, &[("quantile", q.into())]), us / 1e6);
                }
                if l.ios > 0 {
                    let sum = l.lat_mean_us / 1e6 * l.ios as f64;
                    push_suffixed(f, IO_LAT, "_sum", line.clone(), sum);
                    push_suffixed(f, IO_LAT, "_count", line.clone(), l.ios as f64);
                }
            }
        }
        let step = with(&[("section", "storage".into())], &line);
        conditions(f, &step, &l.end, &l.marks);
    }
}

/// `quickbench_info`: the facts that make two runs comparable, as labels.
fn info(r: &Report, extra: &[Label], f: &mut [Family]) {
    let h = &r.quickbench;
    let mut labels: Vec<Label> = extra.to_vec();
    match &r.original {
        Some(o) => {
            labels.push(("version", o.version.clone()));
            labels.push(("origin", "bash original".into()));
            labels.push(("loop", "bash".into()));
        }
        None => {
            labels.push(("version", h.port_version.clone()));
            labels.push(("origin", "quickbench".into()));
            labels.push(("loop", h.loop_version.to_string()));
        }
    }
    labels.push(("kernel", h.kernel.clone()));
    labels.push(("hostname", r.hostname.clone()));
    if let Some(d) = r.loop_delay_s {
        labels.push(("loop_delay_seconds", number(d)));
    }
    labels.push(("repeat", r.repeat.to_string()));
    labels.push(("extended", r.extended.is_some().to_string()));
    if let Some((dir, fs_dev)) = r.place() {
        labels.push(("dir", dir));
        if let Some((fs, dev)) = fs_dev {
            labels.push(("filesystem", fs));
            labels.push(("device", dev));
        }
    }
    push(f, INFO, labels, 1.0);
}

/// A step's end (when it did not run its whole time) and its marks.
fn conditions(f: &mut [Family], step: &[Label], end: &End, marks: &[Mark]) {
    if let Some(words) = end.text() {
        push(f, INCOMPLETE, with(step, &[("end", words)]), 1.0);
    }
    for m in marks {
        push(
            f,
            MARK,
            with(step, &[("mark", m.kind().name().into())]),
            1.0,
        );
    }
}

/// A value as the format writes it: Rust's shortest round-trip decimal,
/// which Go's `ParseFloat` (Prometheus's parser) reads back exactly.
fn number(v: f64) -> String {
    format!("{v}")
}

/// A label value: backslash, double quote and line feed escaped, as the
/// text exposition format requires.
pub fn escape_label(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s
}

/// A `# HELP` text: backslash and line feed escaped.
fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\").replace('\n', "\\n")
}

/// Seconds since the Unix epoch of `YYYY-MM-DDTHH:MM:SSZ` (the report's
/// timestamp), the inverse of [`super::json::rfc3339_utc`].
pub fn epoch_seconds(rfc3339: &str) -> Option<i64> {
    let t = rfc3339.strip_suffix('Z')?;
    let (date, time) = t.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut hms = time.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (hms.next()??, hms.next()??, hms.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::json::rfc3339_utc;

    #[test]
    fn label_values_cannot_break_the_line() {
        assert_eq!(escape_label(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(escape_label("x\ny"), "x\\ny");
        assert_eq!(escape_label("plain vda"), "plain vda");
        assert_eq!(escape_help("a\\b\nc"), "a\\\\b\\nc");
    }

    #[test]
    fn timestamps_read_back_to_their_seconds() {
        for secs in [0u64, 951_782_400, 1_796_225_000, 4_102_444_799] {
            assert_eq!(epoch_seconds(&rfc3339_utc(secs)), Some(secs as i64));
        }
        for bad in [
            "",
            "2026-12-02",
            "2026-13-02T00:00:00Z",
            "2026-12-02T15:20:00",
        ] {
            assert_eq!(epoch_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers_are_shortest_round_trip_decimals() {
        for v in [399_999_000.0, 30.9e9, 4e-5, 0.1 + 0.2, 1.0] {
            assert_eq!(number(v).parse::<f64>().unwrap(), v);
            assert!(!number(v).contains('e'), "{}", number(v));
        }
    }

    #[test]
    fn a_report_without_figures_has_only_its_info() {
        let mut r = Report::new("Linux h 6.1 #1 x86_64".into(), "h\"o\\st".into());
        r.dry_run = true;
        r.sections = vec![Section::Cpu];
        let text = render(&r);
        let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(samples.len(), 1, "{text}");
        assert!(samples[0].starts_with("quickbench_info{"), "{text}");
        assert!(samples[0].contains(r#"hostname="h\"o\\st""#), "{text}");
        assert!(samples[0].ends_with("} 1"), "{text}");
    }

    #[test]
    fn several_reports_share_one_block_per_family() {
        let mut a = Report::new("k".into(), "a".into());
        a.sections = vec![Section::Memory];
        a.memory = Some(crate::model::Memory {
            mem_total_kib: Some(1024),
            dd_bandwidth: None,
        });
        let mut b = a.clone();
        b.hostname = "b".into();
        let text = render_many(&[
            (vec![("host", "a".into())], &a),
            (vec![("host", "b".into())], &b),
        ]);
        assert_eq!(
            text.matches("# TYPE quickbench_memory_total_bytes gauge")
                .count(),
            1,
            "{text}"
        );
        assert!(text.contains("quickbench_memory_total_bytes{host=\"a\"} 1048576\n"));
        assert!(text.contains("quickbench_memory_total_bytes{host=\"b\"} 1048576\n"));
        assert!(text.contains("quickbench_section_failed{host=\"b\",section=\"memory\"} 0\n"));
    }
}
