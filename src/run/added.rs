//! The added sections (`sections::added`), each measured through a
//! [`Measurer`] over this run's measure, stored and emitted whole.

use super::{Run, Stop};
use crate::conditions::mark::{self, Step as MarkStep};
use crate::model::added::{Rate, RateTrial};
use crate::sections::{self, Measurer, TimedStep, TrialFn};
use crate::sink::Item;
use crate::trials::StepKind;
use crate::{signals, Sysroot};

/// A run as an added section sees it: its sysroot, CPUs and limits, and
/// its measure, sampler and progress display around each trial.
struct RunMeasurer<'r, 'a> {
    run: &'r mut Run<'a>,
    /// The section's title, for the progress display.
    title: &'static str,
}

impl Measurer for RunMeasurer<'_, '_> {
    fn sysroot(&self) -> &Sysroot {
        &self.run.sys
    }

    fn cpus(&self) -> usize {
        self.run.cpus.len()
    }

    fn memory_headroom(&self) -> Option<u64> {
        self.run.limits.memory_headroom_bytes
    }

    fn trials(
        &mut self,
        kind: StepKind,
        steps: &[TimedStep],
        interleaved: bool,
        trial: &mut TrialFn<'_>,
        stand_in: &dyn Fn(usize) -> Rate,
    ) -> anyhow::Result<Vec<Vec<RateTrial>>> {
        let run = &mut *self.run;
        let plan = run.trial_plan(kind);
        let rounds = plan.trials.max(1);
        let mut out: Vec<Vec<RateTrial>> = vec![Vec::new(); steps.len()];
        // Interleaved: a round of every step, in shuffled order, as the
        // standard steps' trials run; else each step's trials in a row.
        let order: Vec<(usize, u32)> = if interleaved {
            (1..=rounds)
                .flat_map(|round| {
                    let order = run.round_order(steps.len(), false);
                    order.into_iter().map(move |i| (i, round))
                })
                .collect()
        } else {
            (0..steps.len())
                .flat_map(|i| (1..=rounds).map(move |round| (i, round)))
                .collect()
        };
        for (i, round) in order {
            let step = &steps[i];
            let label = if rounds > 1 {
                format!("{} (trial {round}/{rounds})", step.label)
            } else {
                step.label.clone()
            };
            run.progress(self.title, &label, plan.trial);
            let sampler = run.sample();
            let poll = || {
                sampler.iter().for_each(|s| s.poll());
                signals::stop_requested()
            };
            let rate = run
                .measure
                .timed(&mut || trial(i, plan.trial, &poll), stand_in(i))?;
            let sample = sampler.map(|s| s.finish(f64::from(step.jobs)));
            run.note_quota(sample.as_ref().map(|s| &s.load));
            let marks = mark::marks(MarkStep::Cpu, sample.as_ref().map(|s| &s.load), None);
            run.explain(&marks);
            out[i].push(RateTrial { round, rate, marks });
            if signals::abort_signal().is_some() || signals::cut_requested() {
                anyhow::bail!("cut short by Ctrl-C");
            }
        }
        Ok(out)
    }
}

impl Run<'_> {
    /// Every added section the run asks for (with `-x`), in report order;
    /// one that fails is said on stderr and marked failed, and the run
    /// goes on.
    pub fn added(&mut self) -> Result<(), Stop> {
        if self.cfg.dry_run || !self.cfg.extended {
            return Ok(());
        }
        for (i, s) in sections::added().iter().enumerate() {
            if !self.cfg.runs(s.section()) {
                continue;
            }
            // The section fills the report while the probe has the run.
            let mut report = std::mem::replace(
                &mut self.report,
                crate::model::Report::new(String::new(), String::new()),
            );
            let measured = s.measure(
                &mut RunMeasurer {
                    run: self,
                    title: s.title(),
                },
                &mut report,
            );
            self.report = report;
            if let Some(sig) = signals::abort_signal() {
                return Err(Stop::Aborted(sig));
            }
            signals::clear_cut();
            if let Err(e) = measured {
                let why = format!("{e:#}");
                self.console.warn(&format!("{}: {why}", s.title()));
                self.report.failed_sections.add(s.section(), why);
            }
            if s.present(&self.report) {
                self.emit(Item::Added(i))?;
            }
        }
        Ok(())
    }
}

/// The added sections' paths (measure, render, read back), run with the
/// stand-in on an empty sysroot.
#[cfg(test)]
mod tests {
    use crate::model::{Report, Section};
    use crate::progress::Progress;
    use crate::report::read::{read_json, read_text};
    use crate::report::text::{render, TextSink};
    use crate::report::Console;
    use crate::run::{Measure, Run, StandIn};
    use crate::sections::latency::stand_in_ns;
    use crate::sections::work::STAND_IN_BYTES_PER_S;

    /// Runs `step` alone through `measure` on a sysroot holding `proc/`,
    /// with `args` after `--sysroot`: the report, and the text streamed.
    fn run_step(
        measure: &dyn Measure,
        args: &[&str],
        step: impl FnOnce(&mut Run) -> Result<(), crate::run::Stop>,
    ) -> (Report, String) {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("proc")).unwrap();
        let sysroot = root.path().to_str().unwrap();
        let cfg = crate::cli::parse(
            ["quickbench", "--sysroot", sysroot]
                .iter()
                .chain(args)
                .copied(),
        )
        .unwrap();
        let progress = Progress::disabled();
        let console = Console::new(Progress::disabled());
        let mut text = Vec::new();
        let report = {
            let mut sink = TextSink::new(&mut text, &progress);
            let mut run = Run::start(&cfg, measure, &mut sink, &console);
            step(&mut run).unwrap();
            run.finish().unwrap()
        };
        (report, String::from_utf8(text).unwrap())
    }

    /// Runs the added sections alone (see [`run_step`]).
    fn run(args: &[&str]) -> (Report, String) {
        // A sysroot alone is a dry run; the figures are the stand-in's.
        let args: Vec<&str> = ["--fake-figures"].iter().chain(args).copied().collect();
        run_step(&StandIn::default(), &args, |run| run.added())
    }

    #[test]
    fn the_added_sections_are_measured_rendered_and_read_back() {
        let (r, text) = run(&["-x", "--only", "work,latency", "3"]);
        // 1 job only: the empty sysroot shows one CPU.
        let names: Vec<(&str, u32)> = r
            .cpu_work
            .iter()
            .map(|f| (f.workload.as_str(), f.jobs))
            .collect();
        assert_eq!(
            names,
            [
                ("zstd-3 compress", 1),
                ("zstd-3 decompress", 1),
                ("sha256 16k", 1)
            ]
        );
        let f = &r.cpu_work[0];
        assert_eq!(f.bytes_per_s, STAND_IN_BYTES_PER_S);
        assert!(f.version.starts_with("work v1, zstd 1."), "{}", f.version);
        // 3 s a step: 6 trials of 500 ms, in the JSON only.
        assert_eq!(f.timed.trials.len(), 6);
        // No MemAvailable: every size, then the TLB's.
        assert_eq!(r.memory_latency.len(), 10);
        let tlb = r.memory_latency.last().unwrap();
        assert!(tlb.line_per_page);
        assert_eq!(tlb.size_bytes, 64 << 20);
        assert!((r.memory_latency[0].ns_per_load - stand_in_ns(16384)).abs() < 1e-9);
        assert!(text.contains("[ Extended: CPU work ]\nInput     : 4 MiB of generated text, "));
        assert!(
            text.contains("\nWorkload  : sha256 16k (work v1, sha2 0."),
            "{text}"
        );
        assert!(
            text.contains("\n 1 // jobs :    500.00 MB/s per job\n"),
            "{text}"
        );
        assert!(
            text.contains("\n    16 KiB :      1.00 ns per load, THP unknown\n"),
            "{text}"
        );
        assert!(text.contains("\nTLB 64 MiB :     13.00 ns per load, 1 line per 4 KiB page, "));
        // Read back from the text: the figures as printed, no trials.
        let whole = render(&r);
        assert!(whole.ends_with(&text), "{whole}");
        let read = read_text("x.txt", &whole).unwrap();
        assert!(read.raw_sections.is_empty(), "{:?}", read.raw_sections);
        assert_eq!(read.cpu_work.len(), 3);
        assert_eq!(read.cpu_work[2].version, r.cpu_work[2].version);
        assert_eq!(read.memory_latency.len(), 10);
        assert_eq!(render(&read), whole);
        assert!(read.runs(Section::Work) && read.runs(Section::Latency));
        // From the JSON: all of it.
        let json = serde_json::to_string(&r).unwrap();
        assert!(json
            .contains(r#""cpu_work":[{"workload":"zstd-3 compress","version":"work v1, zstd 1."#));
        assert!(json.contains(
            r#""memory_latency":[{"size_bytes":16384,"ns_per_load":1.0,"version":"chase v1""#
        ));
        let back = read_json("x.json", &json).unwrap();
        assert_eq!(back.cpu_work, r.cpu_work);
        assert_eq!(back.memory_latency, r.memory_latency);
        assert_eq!(render(&back), render(&r));
    }

    #[test]
    fn the_added_sections_follow_x_only_skip_and_dry_run() {
        for args in [
            &["--only", "work,latency"][..],
            &["-x", "--skip", "work,latency"],
            &["-x", "--only", "cpu"],
            &["-x", "--dry-run"],
        ] {
            let (r, text) = run(args);
            assert!(
                r.cpu_work.is_empty() && r.memory_latency.is_empty(),
                "{args:?}"
            );
            assert_eq!(text, "", "{args:?}");
        }
        let (r, _) = run(&["-x", "--only", "latency", "0.5"]);
        assert!(r.cpu_work.is_empty() && !r.memory_latency.is_empty());
        // A delay too short for trials: one block each, no trials kept.
        assert!(r.memory_latency[0].timed.trials.is_empty());
    }

    #[test]
    fn the_plan_counts_the_added_sections_steps_once() {
        let plan =
            |args: &[&str]| -> String { run_step(&StandIn::default(), args, |run| run.plan()).1 };
        let text = plan(&["--only", "memory,work,latency", "--repeat", "3", "-x", "1"]);
        assert!(
            text.contains(
                "about 21 s (1 timed steps of 1 s × 3 trials and 2 of -x and \
                 6 of Extended: CPU work and 10 of Extended: Memory latency once)"
            ),
            "{text}"
        );
        let text = plan(&["--only", "memory,work,latency", "--repeat", "3", "1"]);
        assert!(
            text.contains("about 3 s (1 timed steps of 1 s × 3 trials)"),
            "{text}"
        );
    }
}
