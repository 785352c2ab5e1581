//! What a report's `-x` sections say, for compare, after the standard
//! sections: the steal of each CPU loop step, the SMT probe, the DRAM runs
//! (copy and triad with 1 thread and with all CPUs) and the latency
//! percentiles of each storage line. Only for a report run with `-x`
//! (read from its JSON or its text): a JSON document holds percentiles and
//! steal without `-x` too, but its text does not print them, and the two
//! forms of one run must compare alike.
//!
//! Each figure's value is the figure as the text prints it (rounded to
//! its printed decimals), so that a report's text and JSON give one value.

use super::facts::{distortion, info, Better, Fact, FactTrial, FigureKind, Method};
use crate::end::End;
use crate::membw::dram::DramRun;
use crate::model::forms::device_details;
use crate::model::{BlockSize, Report};
use crate::stats::Trial;

const CPU: &str = "Extended: CPU";
const MEMORY: &str = "Extended: Memory (DRAM, STREAM-like)";
const STORAGE: &str = "Extended: Storage";

/// A figure as printed with `decimals`: its value is the printed one.
fn figure(
    section: &str,
    label: String,
    better: Better,
    unit: &'static str,
    v: f64,
    decimals: usize,
) -> Fact {
    let text = format!("{v:.decimals$}");
    let value = text.parse().unwrap_or(v);
    // The kind whose run-to-run spread the figure shares (used only when a
    // trial has samples; extended figures have none: the fixed band).
    let kind = match section {
        MEMORY => FigureKind::Memory,
        STORAGE => FigureKind::Latency,
        _ => FigureKind::CpuLoop,
    };
    Fact {
        section: section.into(),
        label,
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

/// The extended facts of `r`, in report order; none without `-x`.
pub fn facts_extended(r: &Report) -> Vec<Fact> {
    let Some(x) = &r.extended else {
        return Vec::new();
    };
    let mut v = Vec::new();
    // Steal is information beside its step, not a figure: it is a
    // condition of the host (the hypervisor's share of the CPUs' time),
    // not its speed, and a ratio of two small shares (0.1 % against
    // 0.3 % reads x3) would call noise a change. The CPU loop figure it
    // explains is compared above, with its steal mark.
    for s in &r.cpu_loop {
        if let Some(c) = &s.conditions.clock {
            v.push(info(
                CPU,
                format!("{:2} // jobs steal", s.jobs),
                format!("{:.1} %", c.steal_percent),
            ));
        }
    }
    // The SMT ratio is a figure: the per-job rate of two jobs on one
    // core's siblings over two on separate cores, measured like the CPU
    // loop. Higher is better: a host running as many jobs as CPUs loses
    // less to its siblings. Without a ratio, the verdict says why.
    if let Some(p) = &x.smt_probe {
        match p.ratio {
            Some(ratio) => {
                let mut f = figure(
                    CPU,
                    "SMT siblings / separate cores x".into(),
                    Better::Higher,
                    "x",
                    ratio,
                    2,
                );
                f.end = End::cut_if(p.cut_short);
                f.marks.extend(f.end.text());
                v.push(f);
            }
            None => v.push(info(CPU, "SMT probe", p.verdict())),
        }
    }
    if let Some(d) = &x.dram {
        v.push(info(
            MEMORY,
            "Arrays",
            format!("3 x {} MiB", d.plan.array_bytes >> 20),
        ));
        dram(&mut v, "1 thread", &d.single);
        if let Some(all) = &d.all {
            v.push(info(MEMORY, "All CPUs", format!("{} threads", all.threads)));
            dram(&mut v, "all CPUs", all);
        }
    }
    for d in &x.device_details {
        v.push(info(
            STORAGE,
            format!("Device {}", d.name),
            device_details::render(d),
        ));
    }
    for (i, l) in r.storage_bandwidth.iter().enumerate() {
        let Some(bs) = BlockSize::from_bytes(l.block_size_bytes) else {
            continue;
        };
        // A text report's `-x` line that did not read: its percentiles
        // are unknown, and missing here, not zeros.
        if !x.has_latency(i) {
            continue;
        }
        let line = format!(
            "{} {:<6} ({:>2} thread[s])",
            bs.label(),
            l.direction.label(),
            l.jobs
        );
        let mut marks: Vec<String> = l.end.text().into_iter().collect();
        marks.extend(l.marks.iter().map(|m| m.text()));
        let percentiles = [
            ("p50", l.lat_p50_us),
            ("p90", l.lat_p90_us),
            ("p99", l.lat_p99_us),
            ("p99.9", l.lat_p999_us),
            ("max", l.lat_max_us),
        ];
        for (name, us) in percentiles {
            let mut f = figure(
                STORAGE,
                format!("{line} {name} µs"),
                Better::Lower,
                "µs",
                us,
                1,
            );
            f.marks = marks.clone();
            // The percentiles are the printed trial's: its marks.
            f.trials[0].distorted = distortion(&l.marks);
            f.end = l.end.clone();
            f.method = Some(Method::CompletionLatency);
            v.push(f);
        }
    }
    v
}

/// Copy and triad of one DRAM run, GB/s, higher is better.
fn dram(v: &mut Vec<Fact>, who: &str, run: &DramRun) {
    let end = End::cut_if(run.cut_short);
    let mut marks: Vec<String> = end.text().into_iter().collect();
    marks.extend(run.notes().iter().map(|n| n.text().to_string()));
    for (kernel, gb) in [("copy", run.copy_gb_per_s), ("triad", run.triad_gb_per_s)] {
        let mut f = figure(
            MEMORY,
            format!("{who} {kernel} GB/s"),
            Better::Higher,
            "GB/s",
            gb,
            1,
        );
        f.end = end.clone();
        f.marks = marks.clone();
        v.push(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Extended;

    #[test]
    fn nothing_without_the_extended_sections() {
        let mut r = Report::new("Linux vm 6.1 #1 x86_64".into(), "vm".into());
        assert!(facts_extended(&r).is_empty());
        r.extended = Some(Extended::default());
        assert!(facts_extended(&r).is_empty());
    }

    #[test]
    fn figures_are_their_printed_values() {
        let f = figure(MEMORY, "copy".into(), Better::Higher, "GB/s", 12.345, 1);
        assert_eq!((f.value, f.text.as_str()), (Some(12.3), "12.3"));
        let f = figure(CPU, "SMT".into(), Better::Higher, "x", 0.576, 2);
        assert_eq!((f.value, f.text.as_str()), (Some(0.58), "0.58"));
    }
}
