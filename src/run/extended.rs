//! The sections of `--extended`.

use crate::blockdev;
use crate::cli::Section;
use crate::conditions::{mark, Step};
use crate::model::Extended;
use crate::sink::Item;

use super::{Run, Stop};

impl<'a> Run<'a> {
    /// The sections of `--extended`, after the standard report.
    pub fn extended(&mut self) -> Result<(), Stop> {
        if !self.cfg.extended || self.cfg.dry_run {
            return Ok(());
        }
        self.report.extended = Some(Extended::default());
        if self.cfg.runs(Section::Cpu) {
            self.progress("Extended: CPU", "SMT probe", self.cfg.loop_delay);
            let sampler = self.sample();
            let smt = self.measure.smt_contention(&self.sys, self.cfg.loop_delay);
            // Two jobs at a time, on two CPUs.
            let load = sampler.map(|s| s.finish(2.0).load);
            self.explain(&mark::marks(Step::Cpu, load.as_ref(), None));
            self.after_step("SMT probe", smt.cut_short, false)?;
            if let Some(x) = &mut self.report.extended {
                x.smt_contention = Some(smt);
                x.smt_contention_load = load;
            }
            self.emit(Item::ExtendedCpu)?;
        }
        if self.cfg.runs(Section::Memory) {
            self.progress(
                "Extended: Memory",
                "DRAM copy and triad",
                self.cfg.loop_delay * 2,
            );
            let sampler = self.sample();
            let dram = self
                .measure
                .dram(&self.sys, &self.limits, self.cfg.loop_delay);
            // The all-CPU run needs every CPU.
            let load = sampler.map(|s| s.finish(self.cpus.len().max(1) as f64).load);
            self.explain(&mark::marks(Step::Memory, load.as_ref(), None));
            let cut = dram.single.cut_short || dram.all.as_ref().is_some_and(|r| r.cut_short);
            self.after_step("DRAM bandwidth", cut, false)?;
            if let Some(x) = &mut self.report.extended {
                x.dram = Some(dram);
                x.dram_load = load;
            }
            self.emit(Item::ExtendedMemory)?;
        }
        if self.cfg.runs(Section::Io) || self.cfg.runs(Section::Storage) {
            let devices = self.target().map(|t| t.devices).unwrap_or_default();
            let details = devices
                .iter()
                .map(|d| blockdev::details::device_details(&self.sys, d))
                .collect();
            if let Some(x) = &mut self.report.extended {
                x.device_details = details;
            }
            self.emit(Item::ExtendedStorage)?;
        }
        Ok(())
    }
}
