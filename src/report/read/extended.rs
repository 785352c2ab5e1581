//! The `-x` sections of our text report, read back into the model the JSON
//! holds: each CPU loop step's steal, clock, load and spread; the SMT
//! contention test; the memory step's spread and load; the DRAM runs; the
//! device details; each storage line's latency percentiles, spread, device
//! counters and load.
//!
//! What a line prints is read; what it does not print stays `None`, or
//! reads as 0 where the model's field is not optional (a load's
//! nanoseconds, the device's counters of the other direction, the CPUs a
//! DRAM run was pinned to), as [`crate::conditions::Mark::parse`] reads a
//! mark's unprinted figures. Marks after a `Load` line follow from the load
//! ([`crate::conditions::mark::marks`]). When the sections render back and
//! when their lines are kept: docs/METHOD.md "Reading the -x text back:
//! rendered or kept".

use crate::blockdev::BlockStat;
use crate::conditions::io::DeviceIoShare;
use crate::conditions::load::CpuLoad;
use crate::conditions::reach::{Reach, ReachVerdict};
use crate::conditions::tenancy::{Tenancy, Words};
use crate::conditions::{Clock, StepLoad};
use crate::cpu_loop::smt::{SmtContention, SmtPlan};
use crate::dd_io::Direction;
use crate::membw::dram::{ArrayBound, ArrayPlan, DramBandwidth, DramNote, DramRun, Stores};
use crate::model::forms::{device_details, spread};
use crate::model::{BlockSize, Extended, RawSection, Report};
use crate::report::extended::{OddCpu, CONTINUATION_INDENT, CORE_LABEL, CPUFREQ_LABEL};
use crate::samples::Samples;
use crate::sysinfo::cpufreq::Cpufreq;
use crate::sysinfo::procstat::MhzSource;

/// The titles of the extended sections, as the text renderer prints them.
pub const CPU_TITLE: &str = "Extended: CPU";
/// See [`CPU_TITLE`].
pub const MEMORY_TITLE: &str = "Extended: Memory (DRAM, STREAM-like)";
/// See [`CPU_TITLE`].
pub const STORAGE_TITLE: &str = "Extended: Storage";

/// Reads the extended sections of `r` (kept in `raw_sections` while the
/// report was read) into its figures, and keeps their lines only when the
/// figures do not render back to them.
pub fn figures_from_raw(r: &mut Report) {
    let known = |s: &RawSection| [CPU_TITLE, MEMORY_TITLE, STORAGE_TITLE].contains(&&*s.title);
    if !r.raw_sections.iter().any(known) {
        return;
    }
    let mut x = r.extended.take().unwrap_or_default();
    let sections: Vec<RawSection> = r
        .raw_sections
        .iter()
        .filter(|s| known(s))
        .cloned()
        .collect();
    // Which storage lines had their latency percentiles read: the others
    // (a line that did not read, or no line at all) are unknown, not 0.
    let mut latency_read = vec![false; r.storage_bandwidth.len()];
    for s in &sections {
        match s.title.as_str() {
            CPU_TITLE => cpu(r, &mut x, &s.lines),
            MEMORY_TITLE => memory(r, &mut x, &s.lines),
            _ => storage(r, &mut x, &s.lines, &mut latency_read),
        }
    }
    x.latency_unread = (0..latency_read.len())
        .filter(|&i| !latency_read[i])
        .collect();
    // As kept lines, the report renders as it always did: the structured
    // form is taken only when it renders to exactly the same text.
    x.kept_as_text = true;
    r.extended = Some(x);
    let kept = crate::report::text::render(r);
    let mut structured = r.clone();
    structured.raw_sections.retain(|s| !known(s));
    if let Some(x) = &mut structured.extended {
        x.kept_as_text = false;
    }
    if crate::report::text::render(&structured) == kept {
        *r = structured;
    }
}

/// `[ Extended: CPU ]`: a line per CPU loop step, the SMT contention test's verdict,
/// its rates, its load.
fn cpu(r: &mut Report, x: &mut Extended, lines: &[String]) {
    let mut step = 0;
    // The CPUs that differ: each step's first line, and the lines it goes
    // on with.
    let mut odd: Vec<(String, Vec<String>)> = Vec::new();
    for l in lines {
        if let Some(v) = l.strip_prefix("SMT probe : ") {
            x.smt_contention = smt_verdict(v);
        } else if let Some(rates) = l.strip_prefix("            siblings ") {
            if let (Some(p), Some((sib, sep))) = (&mut x.smt_contention, smt_rates(rates)) {
                p.siblings_loops_per_s_each = Some(sib);
                p.separate_loops_per_s_each = Some(sep);
            }
        } else if let Some(rest) = l.strip_prefix("Load      : during the SMT probe") {
            x.smt_contention_load = load_line(rest);
        } else if let Some(rest) = l.strip_prefix("Clock     : measured before the CPU loop ") {
            if let Some(probes) = probe_line(rest, r.cpu_loop.len()) {
                for (s, p) in r.cpu_loop.iter_mut().zip(probes) {
                    s.conditions.probe = Some(p);
                }
            }
        } else if let Some(rest) = l
            .strip_prefix(CONTINUATION_INDENT)
            .and_then(|l| l.strip_prefix("after "))
        {
            odd.push((rest.to_string(), Vec::new()));
        } else if let Some(rest) = l
            .strip_prefix(CONTINUATION_INDENT)
            .filter(|l| l.starts_with("cpu"))
        {
            if let Some((_, more)) = odd.last_mut() {
                more.push(rest.to_string());
            }
        } else if let Some(rest) = l.strip_prefix(CPUFREQ_LABEL) {
            r.cpufreq = Cpufreq::parse_settings(rest);
        } else if let Some(rest) = l.strip_prefix(CORE_LABEL) {
            let read = rest.split_once(" // jobs ").and_then(|(jobs, words)| {
                Some((
                    jobs.parse::<u32>().ok()?,
                    Tenancy::parse_words(words, Words::Loops)?,
                ))
            });
            if let Some((jobs, t)) = read {
                if let Some(s) = r.cpu_loop.iter_mut().find(|s| s.jobs == jobs) {
                    s.conditions.tenancy = Some(t);
                }
            }
        } else if l.contains(" // jobs : ") {
            // The lines follow the steps, one each, read or not.
            let Some(s) = r.cpu_loop.get_mut(step) else {
                continue;
            };
            step += 1;
            let Some((jobs, clock, samples, load)) = cpu_step(l) else {
                continue;
            };
            if s.jobs != jobs {
                continue;
            }
            s.conditions.clock = clock;
            s.conditions.load = load;
            s.figure.samples = samples;
        }
    }
    for (first, more) in odd {
        let Some((jobs, total, cpus)) = read_odd_cpus(&first, &more) else {
            continue;
        };
        let step = r.cpu_loop.iter_mut().find(|s| s.jobs == jobs);
        if let Some(p) = step.and_then(|s| s.conditions.probe.as_mut()) {
            if let Some(spread) = spread_cpus(p, total, &cpus) {
                *p = spread;
            }
        }
    }
}

/// The step, the CPUs probed and the CPUs that differ, from the lines of
/// [`crate::report::extended::odd_cpus_lines`]: `2 jobs, 1 of 8 CPUs
/// differ (hot/cold MHz): cpu3 3120/3690,` (after `after `), then lines
/// of more CPUs.
fn read_odd_cpus(first: &str, more: &[String]) -> Option<(u32, usize, Vec<OddCpu>)> {
    let (jobs, rest) = first.split_once(" job")?;
    let rest = rest.strip_prefix('s').unwrap_or(rest);
    let (k, rest) = rest.strip_prefix(", ")?.split_once(" of ")?;
    let (n, words) = rest.split_once(" CPUs differ (hot/cold MHz):")?;
    let mut all = words.to_string();
    for m in more {
        all.push(' ');
        all.push_str(m);
    }
    let mhz = |w: &str| -> Option<Option<f64>> {
        match w {
            "?" => Some(None),
            w => Some(Some(spread::finite(w)?)),
        }
    };
    let cpus: Vec<OddCpu> = all
        .trim_start()
        .split(", ")
        .map(|w| {
            let (cpu, clocks) = w
                .trim_end_matches(',')
                .strip_prefix("cpu")?
                .split_once(' ')?;
            let (hot, cold) = clocks.split_once('/')?;
            Some(OddCpu {
                cpu: cpu.parse().ok()?,
                hot_mhz: mhz(hot)?,
                cold_mhz: mhz(cold)?,
            })
        })
        .collect::<Option<_>>()?;
    let (k, n): (usize, usize) = (k.parse().ok()?, n.parse().ok()?);
    (k == cpus.len() && k <= n).then_some((jobs.parse().ok()?, n, cpus))
}

/// A step's probe as read from the `Clock` line (one CPU at each mean)
/// spread over its `total` CPUs: those that differ at what their line
/// says, the others (not printed: they agree) each at what keeps the
/// printed means, numbered from the lowest number not taken. When every
/// CPU differs, their printed (rounded) clocks move together by less
/// than half a MHz towards the printed mean.
fn spread_cpus(
    p: &crate::conditions::ProbedClock,
    total: usize,
    odd: &[OddCpu],
) -> Option<crate::conditions::ProbedClock> {
    use crate::cpu_loop::mhz::{ClockProbe, CpuMhz, ProbeStatus};
    let rest = total - odd.len();
    let mut numbers = (0u32..).filter(|n| !odd.iter().any(|c| c.cpu == *n));
    let others: Vec<u32> = numbers.by_ref().take(rest).collect();
    let side = |probe: &ClockProbe, of: fn(&OddCpu) -> Option<f64>| -> Option<ClockProbe> {
        let listed: Vec<f64> = odd.iter().filter_map(of).collect();
        let sum: f64 = listed.iter().sum();
        let (others_mhz, shift) = match (probe.mean_mhz(), rest) {
            (None, _) if listed.is_empty() => (None, 0.0),
            (None, _) => return None,
            (Some(mean), 0) if !listed.is_empty() => {
                (None, (mean - sum / listed.len() as f64).clamp(-0.49, 0.49))
            }
            (Some(_), 0) => return None,
            (Some(mean), r) => {
                let counted = (r + listed.len()) as f64;
                (Some((mean * counted - sum) / r as f64), 0.0)
            }
        };
        let cpu = |cpu, mhz: Option<f64>| CpuMhz {
            cpu,
            add_chain_mhz: mhz.unwrap_or(0.0),
            imul_chain_mhz: mhz.unwrap_or(0.0),
            mhz,
        };
        let cpus: Vec<CpuMhz> = odd
            .iter()
            .map(|c| cpu(c.cpu, of(c).map(|m| m + shift)))
            .chain(others.iter().map(|&n| cpu(n, others_mhz)))
            .collect();
        let status = if cpus.iter().any(|c| c.mhz.is_some()) {
            ProbeStatus::Measured
        } else {
            probe.status
        };
        Some(ClockProbe {
            cpus,
            status,
            elapsed_ns: 0,
        })
    };
    Some(crate::conditions::ProbedClock {
        cold: side(&p.cold, |c| c.cold_mhz)?,
        hot: side(&p.hot, |c| c.hot_mhz)?,
    })
}

/// The probes of `steps` CPU loop steps from the rest of a `Clock` line
/// (`3694 MHz, after each step 3690 3688 MHz`). Text keeps the mean of the
/// CPUs only: each probe reads back as one CPU (numbered 0) at that mean,
/// both chains alike, which prints the same line.
fn probe_line(rest: &str, steps: usize) -> Option<Vec<crate::conditions::ProbedClock>> {
    use crate::cpu_loop::mhz::{ClockProbe, CpuMhz, ProbeStatus};
    let (rest, unknown) = match rest.strip_suffix(crate::report::extended::NOT_CALIBRATED) {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let (cold, hot) = rest
        .strip_suffix(" MHz")?
        .split_once(" MHz, after each step ")?;
    let probe = |w: &str| -> Option<ClockProbe> {
        let mhz = match w {
            "?" => None,
            n => Some(spread::finite(n)?),
        };
        let status = match (mhz, unknown) {
            (Some(_), _) => ProbeStatus::Measured,
            (None, true) => ProbeStatus::UnknownArchitecture,
            (None, false) => ProbeStatus::NotCalibrated,
        };
        Some(ClockProbe {
            cpus: mhz
                .map(|m| CpuMhz {
                    cpu: 0,
                    add_chain_mhz: m,
                    imul_chain_mhz: m,
                    mhz: Some(m),
                })
                .into_iter()
                .collect(),
            status,
            elapsed_ns: 0,
        })
    };
    let cold = probe(cold)?;
    let hot: Vec<ClockProbe> = hot.split(' ').map(probe).collect::<Option<_>>()?;
    (hot.len() == steps).then(|| {
        hot.into_iter()
            .map(|hot| crate::conditions::ProbedClock {
                cold: cold.clone(),
                hot,
            })
            .collect()
    })
}

/// ` 2 // jobs : steal   0.3 %   clock   2600 MHz (cpufreq)   rate ±  1.2 % (24 x 500 ms); others 5 % of a CPU, throttled 7 %`.
fn cpu_step(l: &str) -> Option<(u32, Option<Clock>, Samples, Option<StepLoad>)> {
    let (jobs, rest) = l.split_once(" // jobs : ")?;
    let jobs: u32 = jobs.trim().parse().ok()?;
    let rest = rest.strip_prefix("steal ")?;
    let (steal, rest) = rest.split_once(" %   clock ")?;
    let (mhz, rest) = rest.split_once(" MHz")?;
    let mhz = match mhz.trim_start() {
        "?" => None,
        m => Some(spread::finite(m)?),
    };
    let (source, rest) = if let Some(r) = rest.strip_prefix(" (cpufreq)") {
        (MhzSource::Cpufreq, r)
    } else if let Some(r) = rest.strip_prefix(" (cpuinfo, often the nominal clock)") {
        (MhzSource::Cpuinfo, r)
    } else {
        (MhzSource::None, rest)
    };
    let clock = match steal.trim_start() {
        "?" => None,
        s => Some(Clock {
            steal_percent: spread::finite(s)?,
            mean_mhz: mhz,
            mhz_source: source,
            mhz_samples: 0,
        }),
    };
    let (samples, rest) = match rest.strip_prefix("   rate ") {
        Some(r) => {
            let end = r.find(')')? + 1;
            (spread::parse(&r[..end])?, &r[end..])
        }
        None => (Samples::default(), rest),
    };
    // The steal of the load is the clock's (one sample); older reports
    // printed it again in the load words.
    let load = load_words(rest, clock.map_or(0.0, |c| c.steal_percent))?;
    Some((jobs, clock, samples, load))
}

/// `siblings  123456789 loop/job/s, separate cores  234567890 loop/job/s`.
fn smt_rates(text: &str) -> Option<(f64, f64)> {
    let (sib, sep) = text.split_once(" loop/job/s, separate cores ")?;
    let sep = sep.strip_suffix(" loop/job/s")?;
    Some((spread::finite(sib.trim())?, spread::finite(sep.trim())?))
}

/// The SMT contention test from its verdict ([`SmtContention::verdict`]); the CPUs it ran
/// on are not printed (0).
fn smt_verdict(text: &str) -> Option<SmtContention> {
    let probe = |threads_per_core, ratio: Option<f64>| {
        SmtPlan::Pairs {
            threads_per_core,
            siblings: [0, 0],
            separate: [0, 0],
        }
        .with(ratio)
    };
    if text == "no SMT siblings in the topology (1 thread per core): nothing to probe" {
        return Some(SmtPlan::NoSiblings.with(None));
    }
    if text == "only one core usable: nothing to compare" {
        return Some(SmtPlan::OneCore.with(None));
    }
    if text == "interrupted before a figure: no verdict" {
        let mut p = probe(0, None);
        p.cut_short = true;
        return Some(p);
    }
    if let Some(r) = text.strip_prefix("siblings do not slow each other (") {
        return Some(probe(0, Some(spread::finite(r.strip_suffix("x)")?)?)));
    }
    let (n, rest) = text.split_once(" threads per core")?;
    let n: u32 = n.parse().ok()?;
    if rest == ", but no two siblings of one core in this process's CPU set: nothing to probe" {
        return Some(
            SmtPlan::SiblingsNotUsable {
                threads_per_core: n,
            }
            .with(None),
        );
    }
    let r = rest.strip_prefix(" share execution units: siblings run at ")?;
    Some(probe(n, Some(spread::finite(r.strip_suffix('x')?)?)))
}

trait WithRatio {
    fn with(self, ratio: Option<f64>) -> SmtContention;
}

impl WithRatio for SmtPlan {
    fn with(self, ratio: Option<f64>) -> SmtContention {
        SmtContention {
            plan: self,
            siblings_loops_per_s_each: None,
            separate_loops_per_s_each: None,
            ratio,
            cut_short: false,
            samples: Default::default(),
        }
    }
}

/// `; others 3 % of a CPU, steal 0.1 %, throttled 0 % (busy: ...)`: the
/// load of a `Load` line, its marks left (they follow from it).
fn load_line(text: &str) -> Option<StepLoad> {
    let words = text.split_once(" (").map_or(text, |(w, _)| w);
    load_words(words, 0.0).flatten()
}

/// `; others 3 % of a CPU[, steal 0.1 %][, throttled 0 %]`, the steal
/// being `steal` when not printed; `Some(None)` for no words, `None` when
/// the text is something else.
fn load_words(text: &str, steal: f64) -> Option<Option<StepLoad>> {
    let mut load = StepLoad::default();
    let mut rest = text;
    if let Some(r) = rest.strip_prefix("; others ") {
        let (others, r) = r.split_once(" % of a CPU")?;
        let (steal, r) = match r.strip_prefix(", steal ") {
            Some(s) => {
                let (v, r) = s.split_once(" %")?;
                (spread::finite(v)?, r)
            }
            None => (steal, r),
        };
        load.cpu = Some(cpu_load(spread::finite(others)?, steal));
        rest = r;
    }
    if let Some(r) = rest.strip_prefix(", throttled ") {
        let t = r.strip_suffix(" %")?;
        load.throttled_percent_of_needed = Some(spread::finite(t)?);
        rest = "";
    }
    if !rest.is_empty() {
        return None;
    }
    Some((load != StepLoad::default()).then_some(load))
}

/// A CPU load of which the text says others' share of a CPU and the
/// steal; the rest reads as 0.
fn cpu_load(others_cpu_percent: f64, steal_percent: f64) -> CpuLoad {
    CpuLoad {
        cpus_counted: Vec::new(),
        cpus_missing: Vec::new(),
        needed_cpus: 0.0,
        elapsed_ns: 0,
        processes_ns: 0,
        interrupts_ns: 0,
        steal_ns: 0,
        own_ns: 0,
        others_ns: 0,
        others_cpu_percent,
        others_percent_of_needed: 0.0,
        own_percent_of_needed: 0.0,
        steal_percent,
        resolution_ns: 0,
    }
}

/// `[ Extended: Memory (DRAM, STREAM-like) ]`: the dd-like step's spread
/// and load, the arrays, a note when they were capped, the two runs, the
/// DRAM runs' load.
fn memory(r: &mut Report, x: &mut Extended, lines: &[String]) {
    let mut plan: Option<(ArrayPlan, u32)> = None;
    let mut runs: Vec<DramRun> = Vec::new();
    for l in lines {
        if let Some(rest) = l.strip_prefix("Bandwidth : during the dd-like step") {
            let bw = r.memory.as_mut().and_then(|m| m.dd_bandwidth.as_mut());
            if let (Some(bw), Some((samples, load))) = (bw, dd_step(rest)) {
                bw.figure.samples = samples;
                bw.conditions.load = load;
            }
        } else if let Some(rest) = l.strip_prefix(CORE_LABEL) {
            let bw = r.memory.as_mut().and_then(|m| m.dd_bandwidth.as_mut());
            if let (Some(bw), Some(t)) = (bw, Tenancy::parse_words(rest, Words::Bytes)) {
                bw.conditions.tenancy = Some(t);
            }
        } else if let Some(rest) = l.strip_prefix("Arrays    : ") {
            plan = arrays(rest);
        } else if let Some(rest) = l.strip_prefix("Note      : ") {
            if let (Some((p, _)), Some((wanted, bound))) = (&mut plan, note(rest)) {
                p.capped = true;
                p.wanted_array_bytes = wanted;
                p.bound = bound;
            }
        } else if let Some(rest) = l.strip_prefix("Load      : during the DRAM runs") {
            x.dram_load = load_line(rest);
        } else if let Some(run) = dram_run(l) {
            runs.push(run);
        }
    }
    let Some((plan, passes)) = plan else {
        return;
    };
    let array_bytes = plan.array_bytes;
    let mut runs = runs.into_iter().map(|mut run| {
        run.array_bytes = array_bytes;
        run
    });
    let Some(mut single) = runs.next() else {
        return;
    };
    single.passes = passes;
    x.dram = Some(DramBandwidth {
        plan,
        single,
        all: runs.next(),
    });
}

/// `, rate ±  0.6 % (24 x 500 ms); others 3 % of a CPU, steal 0.1 %`.
fn dd_step(text: &str) -> Option<(Samples, Option<StepLoad>)> {
    let (samples, rest) = match text.strip_prefix(", rate ") {
        Some(r) => {
            let end = r.find(')')? + 1;
            (spread::parse(&r[..end])?, &r[end..])
        }
        None => (Samples::default(), text),
    };
    let mut load = load_words(rest, 0.0)?;
    if samples.count() == 0 && load.is_none() {
        // The line is printed for a spread or a load: a load that had
        // nothing to say.
        load = Some(StepLoad::default());
    }
    Some((samples, load))
}

/// `3 x 256 MiB (last-level cache 32 MiB), best of 3 passes`: the plan as
/// if not capped (a `Note` line says otherwise), and the passes.
fn arrays(text: &str) -> Option<(ArrayPlan, u32)> {
    let rest = text.strip_prefix("3 x ")?;
    let (array, rest) = rest.split_once(" MiB (last-level cache ")?;
    let (llc, passes) = rest.split_once("), best of ")?;
    let passes: u32 = passes.strip_suffix(" passes")?.parse().ok()?;
    let array_bytes = mib(array)?;
    let llc_bytes = match llc {
        "unknown" => None,
        l => Some(mib(l.strip_suffix(" MiB")?)?),
    };
    Some((
        ArrayPlan {
            array_bytes,
            llc_bytes,
            wanted_array_bytes: array_bytes,
            mem_available_kib: None,
            capped: false,
            cgroup_headroom_bytes: None,
            bound: ArrayBound::Wanted,
            enough_memory: true,
        },
        passes,
    ))
}

/// `arrays of 64 MiB instead of 256 MiB (...): 3 arrays are capped to
/// a quarter of MemAvailable`: the size wanted and what capped it.
fn note(text: &str) -> Option<(u64, ArrayBound)> {
    let rest = text.strip_prefix("arrays of ")?;
    let (_, rest) = rest.split_once(" MiB instead of ")?;
    let (wanted, rest) = rest.split_once(" MiB (")?;
    let (_, cap) = rest.split_once("): 3 arrays are capped to ")?;
    let bound = if cap.starts_with("half of what the cgroup") {
        ArrayBound::CgroupMemory
    } else {
        ArrayBound::MemAvailable
    };
    Some((mib(wanted)?, bound))
}

fn mib(text: &str) -> Option<u64> {
    text.parse::<u64>().ok()?.checked_mul(1 << 20)
}

/// ` 1 thread : copy   10.0 GB/s   triad   11.0 GB/s`, `16 threads: ...`,
/// then `   (threads not pinned)`, ` (interrupted)`, ` (arrays did not
/// verify: figure suspect)` when they apply. How the kernels stored is
/// not printed: read as this build's default.
fn dram_run(l: &str) -> Option<DramRun> {
    let (label, rest) = l.split_once(": copy ")?;
    let threads: u32 = match label.trim() {
        "1 thread" => 1,
        t => t.strip_suffix(" threads")?.parse().ok()?,
    };
    let (copy, rest) = rest.split_once(" GB/s   triad ")?;
    let (triad, mut rest) = rest.split_once(" GB/s")?;
    let mut flag = |words: String| match rest.strip_prefix(&words) {
        Some(r) => {
            rest = r;
            true
        }
        None => false,
    };
    let pinned = !flag(format!("   ({})", DramNote::NotPinned.text()));
    let cut_short = flag(" (interrupted)".to_string());
    let verified = !flag(format!(" ({})", DramNote::NotVerified.text()));
    if !rest.is_empty() {
        return None;
    }
    Some(DramRun {
        threads,
        cpus: Vec::new(),
        pinned,
        array_bytes: 0,
        stores: Stores::best(),
        copy_gb_per_s: spread::finite(copy.trim_start())?,
        triad_gb_per_s: spread::finite(triad.trim_start())?,
        passes: 0,
        copy_samples: Samples::default(),
        triad_samples: Samples::default(),
        elapsed_ns: 0,
        cut_short,
        verified,
    })
}

/// `[ Extended: Storage ]`: the devices' details, then one line per
/// storage line.
fn storage(r: &mut Report, x: &mut Extended, lines: &[String], latency_read: &mut [bool]) {
    let mut line = 0;
    for l in lines {
        if let Some(rest) = l.strip_prefix("Device    : ") {
            if rest != "no local block device" {
                x.device_details.extend(device_details::parse(rest));
            }
        } else {
            // The lines follow the storage lines, one each, read or not.
            let Some(io) = r.storage_bandwidth.get_mut(line) else {
                continue;
            };
            line += 1;
            let Some((head, tail)) = latency_head(l) else {
                continue;
            };
            let same = (io.block_size_bytes, io.direction, io.jobs)
                == (head.block_size_bytes, head.direction, head.jobs);
            if !same {
                continue;
            }
            let f = &mut io.figure;
            [
                f.lat_p50_us,
                f.lat_p90_us,
                f.lat_p99_us,
                f.lat_p999_us,
                f.lat_max_us,
            ] = head.lat;
            latency_read[line - 1] = true;
            // A tail of an older layout (`(+N not ours: ...)`) does not
            // read: the percentiles before it did, and stay.
            let Some(read) = latency_tail(tail) else {
                continue;
            };
            f.samples = read.samples;
            if let Some(ios) = read.ios {
                f.ios = ios;
            }
            f.device_stat_delta = read.device_ios.map(|n| match f.direction {
                Direction::Write => BlockStat {
                    write_ios: n,
                    ..BlockStat::default()
                },
                Direction::Read => BlockStat {
                    read_ios: n,
                    ..BlockStat::default()
                },
            });
            io.conditions.reach = read.share.map(|share| Reach {
                direction: f.direction,
                engine_bytes: 0,
                devices: Vec::new(),
                device_bytes: None,
                device_equivalent_bytes: None,
                device_share_percent: Some(share),
                verdict: ReachVerdict::of_share(share),
            });
            io.conditions.load = read.load;
        }
    }
}

/// What one latency line says before its first `|`: which storage line
/// it is, and its percentiles.
struct LatencyHead {
    block_size_bytes: u64,
    direction: Direction,
    jobs: u32,
    /// p50, p90, p99, p99.9, max, µs.
    lat: [f64; 5],
}

/// What one latency line says after its percentiles.
struct LatencyTail {
    samples: Samples,
    /// The engine's I/Os and the device's, when counted.
    ios: Option<u64>,
    device_ios: Option<u64>,
    share: Option<f64>,
    load: Option<StepLoad>,
}

/// `4k Writes ( 1 thread[s]): p50     40.0  p90 ... max      40.0 µs  |
/// IO/s ±  0.6 % (24 x 500 ms)  | engine 25000 I/Os, device 25000; devices
/// saw 100.0 % of our bytes; not ours on vda: 0.0 %; others 3 % of a CPU,
/// steal 0.1 %`: the line up to its percentiles, and the rest.
fn latency_head(l: &str) -> Option<(LatencyHead, &str)> {
    let (head, rest) = l.split_once(" thread[s]): ")?;
    let (what, jobs) = head.split_once(" (")?;
    let jobs: u32 = jobs.trim_start().parse().ok()?;
    let (bs, dir) = what.split_once(' ')?;
    let bs = BlockSize::from_label(bs)?;
    let direction = match dir.trim_end() {
        "Writes" => Direction::Write,
        "Reads" => Direction::Read,
        _ => return None,
    };
    let (figures, rest) = rest.split_once(" µs")?;
    let t: Vec<&str> = figures.split_whitespace().collect();
    let labels = ["p50", "p90", "p99", "p99.9", "max"];
    if t.len() != 10 || (0..5).any(|i| t[2 * i] != labels[i]) {
        return None;
    }
    let mut lat = [0.0; 5];
    for (i, v) in lat.iter_mut().enumerate() {
        *v = spread::finite(t[2 * i + 1])?;
    }
    let head = LatencyHead {
        block_size_bytes: bs.bytes(),
        direction,
        jobs,
        lat,
    };
    Some((head, rest))
}

/// The rest of a latency line after its percentiles: its spread, device
/// counters, the share the devices saw, other I/O and the load.
fn latency_tail(mut rest: &str) -> Option<LatencyTail> {
    let mut samples = Samples::default();
    if let Some(r) = rest.strip_prefix("  | IO/s ") {
        let end = r.find(')')? + 1;
        samples = spread::parse(&r[..end])?;
        rest = &r[end..];
    }
    let (mut ios, mut device_ios) = (None, None);
    if let Some(r) = rest.strip_prefix("  | no device counters") {
        rest = r;
    } else {
        let r = rest.strip_prefix("  | engine ")?;
        let (engine, r) = r.split_once(" I/Os, device ")?;
        let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
        ios = Some(engine.parse().ok()?);
        device_ios = Some(r[..end].parse().ok()?);
        rest = &r[end..];
    }
    let mut share = None;
    if let Some(r) = rest.strip_prefix("; devices saw ") {
        let (s, r) = r.split_once(" % of our bytes")?;
        share = Some(spread::finite(s)?);
        rest = r;
    }
    let mut io = Vec::new();
    while let Some(r) = rest.strip_prefix("; not ours on ") {
        let (device, r) = r.split_once(": ")?;
        let (p, r) = r.split_once(" %")?;
        io.push(DeviceIoShare {
            device: device.to_string(),
            device_requests: 0,
            foreign_requests: 0,
            device_bytes: 0,
            foreign_bytes: 0,
            foreign_requests_percent: 0.0,
            foreign_bytes_percent: 0.0,
            foreign_percent: spread::finite(p)?,
        });
        rest = r;
    }
    let mut load = load_words(rest, 0.0)?;
    if !io.is_empty() {
        load.get_or_insert_with(StepLoad::default).io = io;
    }
    Some(LatencyTail {
        samples,
        ios,
        device_ios,
        share,
        load,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_line_kind_reads_its_figures() {
        let (jobs, clock, samples, load) = cpu_step(
            " 2 // jobs : steal   0.3 %   clock   2600 MHz (cpufreq)   rate ±  1.2 % (24 x 500 ms); others 5 % of a CPU, throttled 7 %",
        )
        .unwrap();
        assert_eq!(jobs, 2);
        let c = clock.unwrap();
        assert_eq!((c.steal_percent, c.mean_mhz), (0.3, Some(2600.0)));
        assert_eq!(c.mhz_source, MhzSource::Cpufreq);
        assert_eq!(samples.count(), 24);
        let load = load.unwrap();
        assert_eq!(load.cpu.as_ref().unwrap().others_cpu_percent, 5.0);
        assert_eq!(load.cpu.as_ref().unwrap().steal_percent, 0.3);
        assert_eq!(load.throttled_percent_of_needed, Some(7.0));

        let p =
            smt_verdict("2 threads per core share execution units: siblings run at 0.58x").unwrap();
        assert_eq!(p.ratio, Some(0.58));
        assert!(matches!(
            p.plan,
            SmtPlan::Pairs {
                threads_per_core: 2,
                ..
            }
        ));
        assert_eq!(
            smt_rates("  12345678 loop/job/s, separate cores   23456789 loop/job/s"),
            Some((12_345_678.0, 23_456_789.0))
        );

        let run = dram_run(
            " 2 threads: copy   20.0 GB/s   triad   22.5 GB/s   (threads not pinned) (interrupted)",
        )
        .unwrap();
        assert_eq!(
            (run.threads, run.copy_gb_per_s, run.triad_gb_per_s),
            (2, 20.0, 22.5)
        );
        assert!(!run.pinned && run.cut_short && run.verified);

        let (h, tail) = latency_head("1M Reads  (16 thread[s]): p50   4444.4  p90   4444.5  p99   4444.6  p99.9   4444.7  max    4444.8 µs  | IO/s ±  0.6 % (24 x 500 ms)  | engine 900 I/Os, device 905; devices saw 100.5 % of our bytes; not ours on vda: 0.6 %; others 3 % of a CPU, steal 0.1 %").unwrap();
        assert_eq!(
            (h.block_size_bytes, h.direction, h.jobs),
            (1 << 20, Direction::Read, 16)
        );
        assert_eq!(h.lat, [4444.4, 4444.5, 4444.6, 4444.7, 4444.8]);
        let l = latency_tail(tail).unwrap();
        assert_eq!(
            (l.ios, l.device_ios, l.share),
            (Some(900), Some(905), Some(100.5))
        );
        let load = l.load.unwrap();
        assert_eq!(load.io[0].device, "vda");
        assert_eq!(load.io[0].foreign_percent, 0.6);
        assert_eq!(load.cpu.unwrap().steal_percent, 0.1);
    }

    #[test]
    fn malformed_known_lines_do_not_read() {
        assert!(cpu_step(" 1 // jobs : steal  -3.0 %   clock      ? MHz").is_none());
        assert!(
            cpu_step(" 1 // jobs : steal   3.0 %   clock      ? MHz; others x % of a CPU")
                .is_none()
        );
        assert!(dram_run(" 1 thread : copy   NaN GB/s   triad   11.0 GB/s").is_none());
        assert!(dram_run(" 1 thread : copy   10.0 GB/s   triad   11.0 GB/s (what)").is_none());
        assert!(latency_head(
            "4k Writes ( 1 thread[s]): p50 40.0 p90 40.0 µs  | no device counters"
        )
        .is_none());
        // An older tail does not read; the percentiles before it do.
        let (h, tail) = latency_head("1M Writes ( 1 thread[s]): p50    753.7  p90    999.4  p99   4718.6  p99.9  10747.9  max   11142.9 µs  | engine 1128 I/Os, device 2281 (+72 not ours: other I/O during the line)").unwrap();
        assert_eq!(h.lat, [753.7, 999.4, 4718.6, 10747.9, 11142.9]);
        assert!(latency_tail(tail).is_none());
        assert!(smt_verdict("siblings do not slow each other (fast)").is_none());
        assert!(device_details::parse("vda: spinning, scheduler ?, nr_requests ?, blocks ?/? B (logical/physical), write cache ?, ? hw queue(s)").is_none());
    }
}
