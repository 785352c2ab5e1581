//! The added sections (`sections::ADDED`), each measured through a
//! [`Probe`] over this run's measure, stored and emitted whole.

use std::time::Duration;

use super::{Measure, Run, Stop};
use crate::sections::{Probe, ADDED};
use crate::sink::Item;
use crate::Sysroot;

/// A run's measure as an added section sees it.
struct RunProbe<'a> {
    sys: &'a Sysroot,
    delay: Duration,
    measure: &'a dyn Measure,
}

impl Probe for RunProbe<'_> {
    fn sysroot(&self) -> &Sysroot {
        self.sys
    }

    fn delay(&self) -> Duration {
        self.delay
    }

    fn timed(
        &self,
        live: &mut dyn FnMut() -> anyhow::Result<f64>,
        stand_in: f64,
    ) -> anyhow::Result<f64> {
        self.measure.timed(live, stand_in)
    }
}

impl Run<'_> {
    /// Every added section the run asks for, in report order; one that
    /// fails is said on stderr and marked failed, and the run goes on.
    pub fn added(&mut self) -> Result<(), Stop> {
        if self.cfg.dry_run {
            return Ok(());
        }
        for (i, s) in ADDED.iter().enumerate() {
            if !self.cfg.runs(s.section()) {
                continue;
            }
            let probe = RunProbe {
                sys: &self.sys,
                delay: self.cfg.loop_delay,
                measure: self.measure,
            };
            if let Err(e) = s.measure(&probe, &mut self.report) {
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
