//! What a report's `-x` sections say, for compare, after the standard
//! sections: the steal of each CPU loop step, the SMT contention test, the DRAM runs
//! (copy and triad with 1 thread and with all CPUs) and the latency
//! percentiles of each storage line. Only for a report run with `-x`
//! (read from its JSON or its text): a JSON document holds percentiles and
//! steal without `-x` too, but its text does not print them, and the two
//! forms of one run must compare alike.
//!
//! Each figure's value is the figure as the text prints it (rounded to
//! its printed decimals), so that a report's text and JSON give one value.

use super::fact::{distortion, Better, Fact, Figure, FigureKind, Method, RowSection, Unit};
use crate::end::End;
use crate::membw::dram::DramRun;
use crate::model::forms::device_details;
use crate::model::{BlockSize, Extended, Report};

const CPU: RowSection = RowSection::ExtendedCpu;
const MEMORY: RowSection = RowSection::ExtendedMemory;
const STORAGE: RowSection = RowSection::ExtendedStorage;

/// A figure as printed with `decimals`: its value is the printed one.
fn figure(
    section: RowSection,
    label: String,
    better: Better,
    unit: Unit,
    v: f64,
    decimals: usize,
) -> Figure {
    let text = format!("{v:.decimals$}");
    let value = text.parse().unwrap_or(v);
    // The kind whose run-to-run spread the figure shares (used only when a
    // trial has samples; extended figures have none: the fixed band).
    let kind = match section {
        MEMORY => FigureKind::Memory,
        STORAGE => FigureKind::Latency,
        _ => FigureKind::CpuLoop,
    };
    Figure::new(section, label, (better, unit, kind), value, text)
}

/// The extended facts of `r`, in report order; none without `-x`.
pub fn facts_extended(r: &Report) -> Vec<Fact> {
    let Some(x) = &r.extended else {
        return Vec::new();
    };
    let mut v = steal(r);
    v.extend(smt(x));
    v.extend(dram(x));
    v.extend(x.device_details.iter().map(|d| {
        Fact::info(
            STORAGE,
            format!("Device {}", d.name),
            device_details::render(d),
        )
    }));
    v.extend(percentiles(r, x).map(Fact::Figure));
    v
}

/// Each CPU loop step's steal.
///
/// Steal is information beside its step, not a figure: it is a
/// condition of the host (the hypervisor's share of the CPUs' time),
/// not its speed, and a ratio of two small shares (0.1 % against
/// 0.3 % reads x3) would call noise a change. The CPU loop figure it
/// explains is compared above, with its steal mark.
fn steal(r: &Report) -> Vec<Fact> {
    r.cpu_loop
        .iter()
        .filter_map(|s| {
            let c = s.conditions.clock.as_ref()?;
            Some(Fact::info(
                CPU,
                format!("{:2} // jobs steal", s.jobs),
                format!("{:.1} %", c.steal_percent),
            ))
        })
        .collect()
}

/// The SMT contention test's ratio.
///
/// The SMT ratio is a figure: the per-job rate of two jobs on one
/// core's siblings over two on separate cores, measured like the CPU
/// loop. Higher is better: a host running as many jobs as CPUs loses
/// less to its siblings. Without a ratio, the verdict says why.
fn smt(x: &Extended) -> Option<Fact> {
    let p = x.smt_contention.as_ref()?;
    Some(match p.ratio {
        Some(ratio) => {
            let mut f = figure(
                CPU,
                "SMT siblings / separate cores x".into(),
                Better::Higher,
                Unit::Ratio,
                ratio,
                2,
            );
            f.end = End::cut_if(p.cut_short);
            Fact::Figure(f)
        }
        None => Fact::info(CPU, "SMT probe", p.verdict()),
    })
}

/// The DRAM runs: the arrays, then copy and triad with 1 thread and with
/// all CPUs.
fn dram(x: &Extended) -> Vec<Fact> {
    let Some(d) = &x.dram else {
        return Vec::new();
    };
    let mut v = vec![Fact::info(
        MEMORY,
        "Arrays",
        format!("3 x {} MiB", d.plan.array_bytes >> 20),
    )];
    v.extend(dram_run("1 thread", &d.single));
    if let Some(all) = &d.all {
        v.push(Fact::info(
            MEMORY,
            "All CPUs",
            format!("{} threads", all.threads),
        ));
        v.extend(dram_run("all CPUs", all));
    }
    v
}

/// Copy and triad of one DRAM run, GB/s, higher is better.
fn dram_run<'a>(who: &'a str, run: &'a DramRun) -> impl Iterator<Item = Fact> + 'a {
    let notes = run.notes();
    [("copy", run.copy_gb_per_s), ("triad", run.triad_gb_per_s)]
        .into_iter()
        .map(move |(kernel, gb)| {
            let mut f = figure(
                MEMORY,
                format!("{who} {kernel} GB/s"),
                Better::Higher,
                Unit::GigabytesPerSecond,
                gb,
                1,
            );
            f.end = End::cut_if(run.cut_short);
            f.notes = notes.clone();
            Fact::Figure(f)
        })
}

/// Each storage line's latency percentiles, where they read.
fn percentiles<'a>(r: &'a Report, x: &'a Extended) -> impl Iterator<Item = Figure> + 'a {
    r.storage_bandwidth
        .iter()
        .enumerate()
        // A text report's `-x` line that did not read: its percentiles
        // are unknown, and missing here, not zeros.
        .filter(|(i, _)| x.has_latency(*i))
        .filter_map(|(_, l)| Some((l, BlockSize::from_bytes(l.block_size_bytes)?)))
        .flat_map(|(l, bs)| {
            let line = format!(
                "{} {:<6} ({:>2} thread[s])",
                bs.label(),
                l.direction.label(),
                l.jobs
            );
            [
                ("p50", l.lat_p50_us),
                ("p90", l.lat_p90_us),
                ("p99", l.lat_p99_us),
                ("p99.9", l.lat_p999_us),
                ("max", l.lat_max_us),
            ]
            .into_iter()
            .map(move |(name, us)| {
                let mut f = figure(
                    STORAGE,
                    format!("{line} {name} µs"),
                    Better::Lower,
                    Unit::Microseconds,
                    us,
                    1,
                );
                f.marks = l.marks.clone();
                // The percentiles are the printed trial's: its marks.
                f.trials[0].distorted = distortion(&l.marks);
                f.end = l.end.clone();
                f.method = Some(Method::CompletionLatency);
                f
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_without_the_extended_sections() {
        let mut r = Report::new("Linux vm 6.1 #1 x86_64".into(), "vm".into());
        assert!(facts_extended(&r).is_empty());
        r.extended = Some(Extended::default());
        assert!(facts_extended(&r).is_empty());
    }

    #[test]
    fn figures_are_their_printed_values() {
        let f = figure(
            MEMORY,
            "copy".into(),
            Better::Higher,
            Unit::GigabytesPerSecond,
            12.345,
            1,
        );
        assert_eq!((f.value, f.text.as_str()), (12.3, "12.3"));
        let f = figure(CPU, "SMT".into(), Better::Higher, Unit::Ratio, 0.576, 2);
        assert_eq!((f.value, f.text.as_str()), (0.58, "0.58"));
    }
}
