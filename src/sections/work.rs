//! `[ Extended: CPU work ]`: each workload of [`crate::work`] on 1 job
//! and on every CPU this process may use, as MB/s of one job.

use super::{
    parse_tail, pooled, Added, AddedFact, AddedFigure, Better, Measurer, RunSpread, TimedStep,
};
use crate::model::added::{Rate, Trials};
use crate::model::{Report, Section, WorkFigure};
use crate::trials::StepKind;
use crate::work::{self, Prepared, Workload};

/// `[ Extended: CPU work ]`.
pub struct WorkSection;

const INPUT: &str = "Input     : ";
const WORKLOAD: &str = "Workload  : ";
const UNIT: &str = "MB/s per job";

/// The stand-in's rate of every workload, bytes/s.
pub const STAND_IN_BYTES_PER_S: f64 = 500e6;

/// The run-to-run spread assumed of a workload's rate: a CPU-bound rate,
/// as the CPU loop's.
pub const RUN_SPREAD: RunSpread = RunSpread {
    assumed_cv: 0.05,
    floor_cv: 0.0,
};

/// The job counts: 1, and every CPU when there are more.
fn job_counts(cpus: usize) -> Vec<u32> {
    let all = cpus.max(1) as u32;
    if all > 1 {
        vec![1, all]
    } else {
        vec![1]
    }
}

/// `4 MiB of generated text, 3.05:1 at zstd-3`.
fn input_words(p: &Prepared) -> String {
    format!(
        "{} MiB of generated text, {:.2}:1 at zstd-{}",
        p.input.len() >> 20,
        p.ratio(),
        work::ZSTD_LEVEL
    )
}

/// ` 1 // jobs :` as the CPU loop prints it.
fn jobs_label(jobs: u32) -> String {
    format!("{jobs:>2} // jobs : ")
}

/// The figure as printed, MB/s.
fn printed(bytes_per_s: f64) -> String {
    format!("{:.2}", bytes_per_s / 1e6)
}

impl Added for WorkSection {
    fn section(&self) -> Section {
        Section::Work
    }

    fn title(&self) -> &'static str {
        "Extended: CPU work"
    }

    fn present(&self, r: &Report) -> bool {
        !r.cpu_work.is_empty()
    }

    fn lines(&self, r: &Report) -> Vec<String> {
        let mut v = vec![format!("{INPUT}{}", r.cpu_work[0].input)];
        let mut last: Option<(&str, &str)> = None;
        for f in &r.cpu_work {
            if last != Some((&f.workload, &f.version)) {
                v.push(format!("{WORKLOAD}{} ({})", f.workload, f.version));
                last = Some((&f.workload, &f.version));
            }
            v.push(format!(
                "{}{:>9} {UNIT}{}",
                jobs_label(f.jobs),
                printed(f.bytes_per_s),
                super::marks_text(&f.timed)
            ));
        }
        v
    }

    fn read(&self, r: &mut Report, lines: &[&str]) -> Result<(), String> {
        let Some((first, rest)) = lines.split_first() else {
            return Err(format!("expected `{INPUT}...`, found nothing"));
        };
        let input = first
            .strip_prefix(INPUT)
            .ok_or_else(|| format!("expected `{INPUT}...`, found {first:?}"))?;
        let mut workload: Option<(String, String)> = None;
        let mut out = Vec::new();
        for line in rest {
            if let Some(w) = line.strip_prefix(WORKLOAD) {
                let (name, version) = w
                    .strip_suffix(')')
                    .and_then(|w| w.split_once(" ("))
                    .ok_or_else(|| {
                        format!("expected `{WORKLOAD}NAME (VERSION)`, found {line:?}")
                    })?;
                workload = Some((name.into(), version.into()));
                continue;
            }
            let bad = || format!("expected ` N // jobs : X {UNIT}`, found {line:?}");
            let (name, version) = workload.clone().ok_or_else(bad)?;
            let (jobs, tail) = line.split_once(" // jobs : ").ok_or_else(bad)?;
            let jobs = jobs.trim().parse().map_err(|_| bad())?;
            let (mb, timed) = parse_tail(tail, UNIT).ok_or_else(bad)?;
            out.push(WorkFigure {
                workload: name,
                version,
                input: input.into(),
                jobs,
                // What the line prints: whole 10 kB/s.
                bytes_per_s: (mb * 100.0).round() * 1e4,
                timed,
            });
        }
        if out.is_empty() {
            return Err(format!(
                "expected `{WORKLOAD}...` and its lines, found none"
            ));
        }
        r.cpu_work = out;
        Ok(())
    }

    fn kind(&self) -> StepKind {
        StepKind::CpuLoop
    }

    fn timed_steps(&self) -> u32 {
        // 1 job and all CPUs: one step fewer on a host of one CPU.
        2 * Workload::ALL.len() as u32
    }

    fn measure(&self, measurer: &mut dyn Measurer, r: &mut Report) -> anyhow::Result<()> {
        let prepared = Prepared::new()?;
        let input = input_words(&prepared);
        let mut steps = Vec::new();
        let mut which = Vec::new();
        for w in Workload::ALL {
            for jobs in job_counts(measurer.cpus()) {
                steps.push(TimedStep {
                    label: format!("{} {jobs} // jobs", w.name()),
                    jobs,
                });
                which.push((w, jobs));
            }
        }
        let trials = measurer.trials(
            self.kind(),
            &steps,
            true,
            &mut |i, time, poll| {
                let (w, jobs) = which[i];
                let run = work::run(&prepared, w, jobs, time, poll)?;
                Ok(Rate {
                    work: run.bytes_per_s * run.elapsed_ns as f64 / 1e9,
                    elapsed_ns: run.elapsed_ns,
                })
            },
            &|_| Rate {
                work: STAND_IN_BYTES_PER_S,
                elapsed_ns: 1_000_000_000,
            },
        )?;
        r.cpu_work = which
            .iter()
            .zip(trials)
            .map(|(&(w, jobs), t)| {
                let (bytes_per_s, timed) =
                    pooled(&t, |r| r.work / (r.elapsed_ns.max(1) as f64 / 1e9));
                WorkFigure {
                    workload: w.name().into(),
                    version: w.version(),
                    input: input.clone(),
                    jobs,
                    bytes_per_s,
                    timed,
                }
            })
            .collect();
        Ok(())
    }

    fn example(&self, r: &mut Report, draw: &mut dyn FnMut(u64) -> u64) {
        let input = format!("{} MiB of generated text", 1 + draw(8));
        let versions = ["work v1, zstd 1.6.0", "work v2, sha2 0.11.3"];
        r.cpu_work = (0..1 + draw(6))
            .map(|i| WorkFigure {
                workload: format!("load {}", i / 2),
                version: versions[draw(2) as usize].into(),
                input: input.clone(),
                jobs: 1 + (i % 2) as u32,
                bytes_per_s: draw(1 << 24) as f64 * 1e4,
                timed: Trials::default(),
            })
            .collect();
    }

    fn facts(&self, r: &Report) -> Vec<AddedFact> {
        r.cpu_work
            .iter()
            .map(|f| {
                let text = printed(f.bytes_per_s);
                let value: f64 = text.parse().unwrap_or(f.bytes_per_s / 1e6);
                let trials = super::fact_trials(value, &f.timed, |v| v / 1e6);
                AddedFact::Figure(AddedFigure {
                    label: format!("{}, {} // jobs", f.workload, f.jobs),
                    value,
                    text,
                    unit: UNIT,
                    better: Better::Higher,
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
    fn one_cpu_runs_one_job_count() {
        assert_eq!(job_counts(1), [1]);
        assert_eq!(job_counts(0), [1]);
        assert_eq!(job_counts(8), [1, 8]);
    }
}
