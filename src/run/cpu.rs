//! `[ CPU info ]` and `[ CPU loop ]`.

use crate::cli::Section;
use crate::conditions::{mark, CpuConditions, Sampler, Step};
use crate::model::{CpuInfo, CpuTrial};
use crate::sink::Item;
use crate::sysinfo;

use super::rounds::Rounds;
use super::{cpu_jobs, Run, Stop};
use crate::trials::StepKind;

impl<'a> Run<'a> {
    /// `[ CPU info ]`.
    pub fn cpu_info(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Cpuinfo) {
            return Ok(());
        }
        let summary = sysinfo::cpu::read_summary(&self.sys);
        for note in &summary.notes {
            self.console.warn(&format!("CPU info: {note}"));
        }
        let info = CpuInfo::from_summary(summary);
        if info.lines.is_empty() {
            let why = format!(
                "no CPU found in {} (is /proc mounted?)",
                self.sys.path("/proc/cpuinfo").display()
            );
            self.console.warn(&format!("CPU info: {why}"));
            self.report.failed_sections.add(Section::Cpuinfo, why);
        }
        self.report.cpu_info = Some(info);
        self.emit(Item::CpuInfo)
    }

    /// `[ CPU loop ]`: 1, 2, 4 ... jobs, up to the CPUs this process may
    /// use; with `--repeat N`, N rounds of every step, each round in its
    /// own shuffled order.
    pub fn cpu_loop(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Cpu) || self.cfg.dry_run {
            return Ok(());
        }
        self.emit(Item::CpuLoopTitle)?;
        let jobs = cpu_jobs(&self.sys);
        let mut rounds = Rounds::new(jobs.len(), self.rounds(), self.budgeted());
        let mut round = 1;
        while round <= rounds.last {
            let order = self.round_order(jobs.len(), false);
            if let Some(o) = &mut self.report.trial_order {
                o.cpu_loop.push(order.iter().map(|&i| jobs[i]).collect());
            }
            for i in order {
                let step = self.cpu_trial(jobs[i], round);
                let rounds_left = round < rounds.last;
                if self.after_step("CPU loop step", step.end.interrupted(), rounds_left)? {
                    rounds.cut(round);
                }
                rounds.add(i, round, step);
                for step in rounds.ready() {
                    self.report.cpu_loop.push(step);
                    self.emit(Item::CpuStep(self.report.cpu_loop.len() - 1))?;
                }
            }
            round += 1;
        }
        self.spend(
            &mut rounds,
            StepKind::CpuLoop,
            "CPU loop step",
            |run, i, round| Some(run.cpu_trial(jobs[i], round)),
        )?;
        for step in rounds.ready() {
            self.report.cpu_loop.push(step);
            self.emit(Item::CpuStep(self.report.cpu_loop.len() - 1))?;
        }
        Ok(())
    }

    /// One run of the CPU loop step of `jobs` jobs, with its conditions.
    fn cpu_trial(&mut self, jobs: u32, round: u32) -> CpuTrial {
        let label = self.trial_label(&format!("{jobs} // jobs"), round);
        let time = self.trial_plan(StepKind::CpuLoop).trial;
        self.progress("CPU loop", &label, time);
        // One sampler: the load the marks judge and the clock of -x.
        let sampler = self.sample().map(Sampler::with_clock);
        let poll = || sampler.iter().for_each(Sampler::poll);
        let figure = self.measure.cpu_step(jobs, time, &poll);
        let sample = sampler.map(|s| s.finish(f64::from(jobs)));
        let step = CpuTrial {
            figure,
            marks: mark::marks(Step::Cpu, sample.as_ref().map(|s| &s.load), None),
            marks_in_trials: Vec::new(),
            conditions: CpuConditions {
                clock: sample.as_ref().and_then(|s| s.clock),
                load: sample.map(|s| s.load),
            },
        };
        self.explain(&step.marks);
        step
    }
}
