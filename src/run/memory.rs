//! `[ Memory ]`.

use crate::cli::Section;
use crate::conditions::{mark, tenancy, MemoryConditions, Step};
use crate::model::{Memory, MemoryTrial};
use crate::sink::Item;
use crate::sysinfo;

use super::rounds::Rounds;
use super::{Run, Stop};
use crate::trials::StepKind;

impl<'a> Run<'a> {
    /// `[ Memory ]`: the total, then the dd-like bandwidth.
    pub fn memory(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Memory) {
            return Ok(());
        }
        let total = match sysinfo::mem_total_kib(&self.sys) {
            Ok(kib) => Some(kib),
            Err(e) => {
                self.console.warn(&format!("memory: {e:#}"));
                self.report
                    .failed_sections
                    .add(Section::Memory, format!("{e:#}"));
                None
            }
        };
        self.report.memory = Some(Memory {
            mem_total_kib: total,
            dd_bandwidth: None,
        });
        self.emit(Item::MemoryTotal)?;
        if self.cfg.dry_run {
            return Ok(());
        }
        // With --repeat, its trials one after the other: no other step of
        // its section to interleave with.
        let mut rounds = Rounds::new(1, self.rounds(), self.budgeted());
        let mut round = 1;
        while round <= rounds.last {
            match self.memory_trial(round) {
                Some(bw) => {
                    let rounds_left = round < rounds.last;
                    if self.after_step("memory bandwidth", bw.end.interrupted(), rounds_left)? {
                        rounds.cut(round);
                    }
                    rounds.add(0, round, bw);
                }
                // The trials done, if any, are the step.
                None => rounds.cut(round - 1),
            }
            round += 1;
        }
        self.spend(
            &mut rounds,
            StepKind::Memory,
            "memory bandwidth",
            |run, _, round| run.memory_trial(round),
        )?;
        if let (Some(mut bw), Some(m)) = (rounds.ready().pop(), &mut self.report.memory) {
            super::tenancy::judge(&mut bw, (None, false), tenancy::MEMORY_SHARED_BELOW, None);
            m.dd_bandwidth = Some(bw);
        }
        self.emit(Item::MemoryBandwidth)
    }

    /// One trial of the memory bandwidth in `round`, with its conditions;
    /// `None` when it failed (said on stderr, the section marked failed).
    fn memory_trial(&mut self, round: u32) -> Option<MemoryTrial> {
        let time = self.trial_plan(StepKind::Memory).trial;
        let label = self.trial_label("Bandwidth", round);
        self.progress("Memory", &label, time);
        let sampler = self.sample();
        match self.measure.memory_bandwidth(&self.sys, time) {
            Ok(figure) => {
                let load = sampler.map(|s| s.finish(1.0).load);
                self.note_quota(load.as_ref());
                let bw = MemoryTrial {
                    figure,
                    marks: mark::marks(Step::Memory, load.as_ref(), None),
                    marks_in_trials: Vec::new(),
                    conditions: MemoryConditions {
                        load,
                        tenancy: None,
                    },
                };
                self.explain(&bw.marks);
                Some(bw)
            }
            Err(e) => {
                self.console.warn(&format!("memory bandwidth: {e:#}"));
                self.report
                    .failed_sections
                    .add(Section::Memory, format!("{e:#}"));
                None
            }
        }
    }
}
