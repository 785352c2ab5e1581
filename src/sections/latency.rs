//! `[ Extended: Memory latency ]`: the pointer chase of [`crate::latency`]
//! over each buffer size that memory allows, and over more 4 KiB pages
//! than a TLB holds, as ns per load.

use super::{
    parse_tail, pooled, Added, AddedFact, AddedFigure, Better, Measurer, RunSpread, TimedStep,
};
use crate::latency::{self, Chase, Layout, CHASE_VERSION, LINE, PAGE, SIZES, TLB_PAGES};
use crate::model::added::{Rate, Trials};
use crate::model::{LatencyFigure, Report, Section};
use crate::trials::StepKind;

/// `[ Extended: Memory latency ]`.
pub struct LatencySection;

const CHASE: &str = "Chase     : ";
const UNIT: &str = "ns per load";
const TLB: &str = "TLB ";
const PER_PAGE: &str = ", 1 line per 4 KiB page";

/// The stand-in's latency at `size` bytes: 1 ns in L1, more beyond.
pub fn stand_in_ns(size: u64) -> f64 {
    (size as f64 / 16384.0).log2().max(0.0) + 1.0
}

/// The run-to-run spread assumed of a latency: the cache sizes' figures
/// hardly move; DRAM's move with what else shares it.
pub const RUN_SPREAD: RunSpread = RunSpread {
    assumed_cv: 0.05,
    floor_cv: 0.0,
};

/// `chase v1`.
fn version() -> String {
    format!("chase v{CHASE_VERSION}")
}

/// `16 KiB`, `256 MiB`, `1 GiB`.
fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}

fn parse_size(t: &str) -> Option<u64> {
    let (n, unit) = t.trim().split_once(' ')?;
    let n: u64 = n.parse().ok()?;
    let shift = match unit {
        "KiB" => 10,
        "MiB" => 20,
        "GiB" => 30,
        _ => return None,
    };
    n.checked_mul(1 << shift)
}

/// The line's label: `16 KiB`, `TLB 64 MiB`.
fn label(f: &LatencyFigure) -> String {
    let size = size_text(f.size_bytes);
    if f.line_per_page {
        format!("{TLB}{size}")
    } else {
        size
    }
}

/// The figure as printed, ns.
fn printed(ns: f64) -> String {
    format!("{ns:.2}")
}

fn thp_text(p: Option<u32>) -> String {
    match p {
        Some(p) => format!("THP {p} %"),
        None => "THP unknown".into(),
    }
}

impl Added for LatencySection {
    fn section(&self) -> Section {
        Section::Latency
    }

    fn title(&self) -> &'static str {
        "Extended: Memory latency"
    }

    fn present(&self, r: &Report) -> bool {
        !r.memory_latency.is_empty()
    }

    fn lines(&self, r: &Report) -> Vec<String> {
        let mut v = vec![format!(
            "{CHASE}{}, one random cycle through the buffer's {LINE}-byte lines",
            r.memory_latency[0].version
        )];
        for f in &r.memory_latency {
            v.push(format!(
                "{:>10} : {:>9} {UNIT}{}, {}{}",
                label(f),
                printed(f.ns_per_load),
                if f.line_per_page { PER_PAGE } else { "" },
                thp_text(f.thp_percent),
                super::marks_text(&f.timed),
            ));
        }
        v
    }

    fn read(&self, r: &mut Report, lines: &[&str]) -> Result<(), String> {
        let Some((first, rest)) = lines.split_first() else {
            return Err(format!("expected `{CHASE}...`, found nothing"));
        };
        let version = first
            .strip_prefix(CHASE)
            .and_then(|l| l.split_once(", "))
            .map(|(v, _)| v.to_string())
            .ok_or_else(|| format!("expected `{CHASE}chase vN, ...`, found {first:?}"))?;
        let mut out = Vec::new();
        for line in rest {
            let bad = || format!("expected `SIZE : X {UNIT}, THP N %`, found {line:?}");
            let (size, tail) = line.split_once(" : ").ok_or_else(bad)?;
            let size = size.trim();
            let (line_per_page, size) = match size.strip_prefix(TLB) {
                Some(s) => (true, s),
                None => (false, size),
            };
            let size_bytes = parse_size(size).ok_or_else(bad)?;
            // `X ns per load[, 1 line per 4 KiB page], THP N % (marks)`.
            let (x, after) = tail.split_once(UNIT).ok_or_else(bad)?;
            let after = if line_per_page {
                after.strip_prefix(PER_PAGE).ok_or_else(bad)?
            } else {
                after
            };
            let after = after.strip_prefix(", THP ").ok_or_else(bad)?;
            let (thp, marks) = match after.strip_prefix("unknown") {
                Some(m) => (None, m),
                None => {
                    let (p, m) = after.split_once(" %").ok_or_else(bad)?;
                    (Some(p.parse().map_err(|_| bad())?), m)
                }
            };
            let (ns, timed) = parse_tail(&format!("{x}{UNIT}{marks}"), UNIT).ok_or_else(bad)?;
            out.push(LatencyFigure {
                size_bytes,
                ns_per_load: ns,
                version: version.clone(),
                line_per_page,
                thp_percent: thp,
                timed,
            });
        }
        if out.is_empty() {
            return Err("expected a line per buffer size, found none".into());
        }
        r.memory_latency = out;
        Ok(())
    }

    fn kind(&self) -> StepKind {
        StepKind::Memory
    }

    fn timed_steps(&self) -> u32 {
        SIZES.len() as u32 + 1
    }

    fn measure(&self, measurer: &mut dyn Measurer, r: &mut Report) -> anyhow::Result<()> {
        let sys = measurer.sysroot().clone();
        let avail = crate::sysinfo::meminfo::read_meminfo(&sys)
            .ok()
            .and_then(|m| m.mem_available_kib);
        let allowance = latency::allowance(avail, measurer.memory_headroom());
        // Each size that memory allows (its buffer and, while it is
        // linked, a word per line), then the TLB size.
        let mut buffers: Vec<(u64, Layout)> = SIZES
            .iter()
            .filter(|&&s| s + s / LINE as u64 * 8 <= allowance)
            .map(|&s| (s, Layout::Lines))
            .collect();
        buffers.push(((TLB_PAGES * PAGE) as u64, Layout::LinePerPage));
        let steps: Vec<TimedStep> = buffers
            .iter()
            .map(|&(s, l)| TimedStep {
                label: match l {
                    Layout::Lines => size_text(s),
                    Layout::LinePerPage => format!("{TLB}{}", size_text(s)),
                },
                jobs: 1,
            })
            .collect();
        // One buffer mapped at a time: the step's trials run one after
        // the other, so that the largest sizes fit.
        let mut current: Option<(usize, Chase)> = None;
        let mut thp: Vec<Option<u32>> = vec![None; buffers.len()];
        let trials = measurer.trials(
            self.kind(),
            &steps,
            false,
            &mut |i, time, poll| {
                if current.as_ref().is_none_or(|(j, _)| *j != i) {
                    current = None;
                    let (size, layout) = buffers[i];
                    let c = Chase::new(&sys, size as usize, layout, 0x5eed + i as u64)?;
                    thp[i] = c
                        .huge_kib
                        .map(|k| (k * 1024 * 100 / c.bytes.max(1) as u64).min(100) as u32);
                    current = Some((i, c));
                }
                let (_, chase) = current.as_mut().expect("mapped");
                let (loads, ns) = chase.run(time, poll);
                Ok(Rate {
                    work: loads as f64,
                    elapsed_ns: ns,
                })
            },
            &|i| Rate {
                work: 1e9 / stand_in_ns(buffers[i].0),
                elapsed_ns: 1_000_000_000,
            },
        )?;
        drop(current);
        r.memory_latency = buffers
            .iter()
            .zip(trials)
            .zip(thp)
            .map(|((&(size, layout), t), thp)| {
                let (ns, timed) = pooled(&t, |r| r.elapsed_ns as f64 / r.work.max(1.0));
                LatencyFigure {
                    size_bytes: size,
                    ns_per_load: ns,
                    version: version(),
                    line_per_page: layout == Layout::LinePerPage,
                    thp_percent: thp,
                    timed,
                }
            })
            .collect();
        Ok(())
    }

    fn example(&self, r: &mut Report, draw: &mut dyn FnMut(u64) -> u64) {
        let version = format!("chase v{}", 1 + draw(3));
        r.memory_latency = (0..1 + draw(10))
            .map(|_| LatencyFigure {
                size_bytes: 16384 << draw(17),
                ns_per_load: draw(1_000_000) as f64 / 100.0,
                version: version.clone(),
                line_per_page: draw(4) == 0,
                thp_percent: [None, Some(0), Some(100), Some(draw(101) as u32)][draw(4) as usize],
                timed: Trials::default(),
            })
            .collect();
    }

    fn facts(&self, r: &Report) -> Vec<AddedFact> {
        r.memory_latency
            .iter()
            .map(|f| {
                let text = printed(f.ns_per_load);
                let value: f64 = text.parse().unwrap_or(f.ns_per_load);
                let trials = super::fact_trials(value, &f.timed, |v| v);
                AddedFact::Figure(AddedFigure {
                    label: label(f),
                    value,
                    text,
                    unit: UNIT,
                    better: Better::Lower,
                    trials,
                    marks: f.timed.marks.clone(),
                    spread: RUN_SPREAD,
                    version: f.version.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_and_read_back() {
        for s in SIZES.iter().chain(&[64 << 20, 3 << 10]) {
            assert_eq!(parse_size(&size_text(*s)), Some(*s));
        }
        assert_eq!(size_text(1 << 30), "1 GiB");
        assert_eq!(parse_size("2 TiB"), None);
    }
}
