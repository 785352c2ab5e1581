//! `[ CPU info ]` and `[ CPU loop ]`.

use crate::cli::Section;
use crate::conditions::tenancy::{self, Unjudged};
use crate::conditions::{mark, CpuConditions, Mark, ProbedClock, Sampler, Step};
use crate::cpu_loop::LOOPS_PER_CYCLE_BOUND;
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
        let cores = crate::cpu_loop::smt::cores_of(&self.sys, &self.cpus);
        // Whether a step so far reached the loop's bound: then it is the
        // level of every step.
        let mut reached = false;
        // The clock before any step has loaded the CPUs (cold).
        self.cold_clock = self.probe_clock();
        let mut rounds = Rounds::new(jobs.len(), self.rounds(), self.budgeted());
        let mut round = 1;
        while round <= rounds.last {
            let order = self.round_order(jobs.len(), false);
            if let Some(o) = &mut self.report.trial_order {
                o.cpu_loop.push(order.iter().map(|&i| jobs[i]).collect());
            }
            for i in order {
                // The measured clock after a step's last trial only: the
                // probe costs 50 ms a time, and the hot clock is the one
                // after the step's whole load.
                let step = self.cpu_trial(jobs[i], round, round == rounds.last);
                let rounds_left = round < rounds.last;
                if self.after_step("CPU loop step", step.end.interrupted(), rounds_left)? {
                    rounds.cut(round);
                }
                rounds.add(i, round, step);
                let ready = rounds.ready();
                reached |= bound_reached(&ready);
                for mut step in ready {
                    hot_clock_on_the_step(&mut step);
                    self.judge_tenancy(&mut step, cores, reached);
                    self.report.cpu_loop.push(step);
                    self.emit(Item::CpuStep(self.report.cpu_loop.len() - 1))?;
                }
            }
            round += 1;
        }
        let added = self.spend(
            &mut rounds,
            StepKind::CpuLoop,
            "CPU loop step",
            // The hot clock stays the first pass's last round's.
            |run, i, round| Some(run.cpu_trial(jobs[i], round, false)),
        )?;
        if let Some(o) = &mut self.report.trial_order {
            o.cpu_loop_added = added.iter().map(|&i| jobs[i]).collect();
        }
        let ready = rounds.ready();
        reached |= bound_reached(&ready);
        for mut step in ready {
            hot_clock_on_the_step(&mut step);
            self.judge_tenancy(&mut step, cores, reached);
            self.report.cpu_loop.push(step);
            self.emit(Item::CpuStep(self.report.cpu_loop.len() - 1))?;
        }
        Ok(())
    }

    /// Classes a finished step's samples alone or shared; not when its
    /// jobs outnumber the `cores` the guest sees (they share siblings).
    fn judge_tenancy(&self, step: &mut crate::model::CpuStep, cores: usize, reached: bool) {
        let own = (step.jobs as usize > cores).then_some(Unjudged::OwnSiblings);
        super::tenancy::judge(
            step,
            (LOOPS_PER_CYCLE_BOUND, reached),
            tenancy::CPU_SHARED_BELOW,
            own,
        );
    }

    /// The measured clock of this process's CPUs. The probe loads them
    /// all at once: under a CPU quota of fewer CPUs, it spends the quota
    /// as a step of as many jobs does, and the next trial waits for it.
    fn probe_clock(&mut self) -> Option<crate::cpu_loop::mhz::ClockProbe> {
        let probe = self.measure.clock_probe(&self.cpus);
        self.quota_spent |= self
            .limits
            .cpu_quota
            .as_ref()
            .is_some_and(|q| q.cpus() < self.cpus.len() as f64);
        probe
    }

    /// One run of the CPU loop step of `jobs` jobs, with its conditions;
    /// with `probe`, the measured clock right after it.
    fn cpu_trial(&mut self, jobs: u32, round: u32, probe: bool) -> CpuTrial {
        let label = self.trial_label(&format!("{jobs} // jobs"), round);
        let time = self.trial_plan(StepKind::CpuLoop).trial;
        self.progress("CPU loop", &label, time);
        // One sampler: the load the marks judge and the clock of -x.
        let sampler = self.sample().map(Sampler::with_clock);
        let poll = || sampler.iter().for_each(Sampler::poll);
        let figure = self.measure.cpu_step(jobs, time, &poll);
        let sample = sampler.map(|s| s.finish(f64::from(jobs)));
        self.note_quota(sample.as_ref().map(|s| &s.load));
        // The clock right after the step, while the CPUs are hot.
        let probe = if probe {
            self.cold_clock
                .clone()
                .zip(self.probe_clock())
                .map(|(cold, hot)| ProbedClock { cold, hot })
        } else {
            None
        };
        let mut marks = mark::marks(Step::Cpu, sample.as_ref().map(|s| &s.load), None);
        marks.extend(
            probe
                .as_ref()
                .and_then(ProbedClock::mhz)
                .and_then(|(cold, hot)| Mark::clock(cold, hot)),
        );
        let step = CpuTrial {
            figure,
            marks,
            marks_in_trials: Vec::new(),
            conditions: CpuConditions {
                clock: sample.as_ref().and_then(|s| s.clock),
                load: sample.map(|s| s.load),
                probe,
                tenancy: None,
            },
        };
        self.explain(&step.marks);
        step
    }
}

/// Whether one of `steps` reached the loop's bound.
fn bound_reached(steps: &[crate::model::CpuStep]) -> bool {
    LOOPS_PER_CYCLE_BOUND.is_some_and(|b| {
        steps
            .iter()
            .any(|s| tenancy::reaches(&super::tenancy::readings(s), b))
    })
}

/// The step's measured clock is the one after its last trial: the step
/// (its median trial's fields) takes that probe and its clock mark, so that
/// the text shows them whichever trial is the median.
fn hot_clock_on_the_step(step: &mut crate::model::CpuStep) {
    if step.conditions.probe.is_some() {
        return;
    }
    // The last trial probed: the first pass's last round (a budget's added
    // trials do not probe).
    let Some(last) = step
        .trials
        .iter()
        .rev()
        .find(|t| t.step.conditions.probe.is_some())
        .or(step.trials.last())
    else {
        return;
    };
    let probe = last.step.conditions.probe.clone();
    let clock = last
        .step
        .marks
        .iter()
        .find(|m| m.kind() == crate::conditions::MarkKind::Clock)
        .cloned();
    step.step.conditions.probe = probe;
    // The step's marks gather its trials' (with in how many): the last
    // trial's clock mark is there already.
    if !step
        .marks
        .iter()
        .any(|m| m.kind() == crate::conditions::MarkKind::Clock)
    {
        step.step.marks.extend(clock);
    }
}
