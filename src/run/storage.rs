//! `[ Storage info ]`, `[ Storage device stack ]` and the two
//! `[ Storage bandwidth ]` sections.

use crate::blockdev::{self, Target};
use crate::cli::Section;
use crate::conditions::io::{other_io, OurIo};
use crate::conditions::mark::InTrials;
use crate::conditions::MarkKind;
use crate::conditions::{mark, reach, LineConditions, Step};
use crate::dd_io::{self, Direction, IoConfig};
use crate::model::trials::{LineKey, StorageRounds};
use crate::model::{BlockSize, IoLine, IoSetup, IoTrial, RawAccess};
use crate::sink::Item;

use super::rounds::Rounds;
use super::{Run, Stop, Storage};
use crate::trials::StepKind;

/// The burst mark of a line's trials together: their samples in the
/// order they ran, when no single trial held the step (a volume whose
/// credits ran out between two trials).
fn pooled_burst(line: &mut IoLine) {
    let n = line.trials.len() as u32;
    let marked = line.step.marks.iter().any(|m| m.kind() == MarkKind::Burst);
    if n < 2 || marked {
        return;
    }
    if let Some(m) = mark::Mark::burst(&line.step.figure.samples) {
        line.step.marks.push(m);
        line.step
            .marks_in_trials
            .push(InTrials { trials: n, of: n });
    }
}

impl<'a> Run<'a> {
    /// The storage behind the benchmark directory, resolved once (for the
    /// stack, the bandwidth titles and the plan).
    pub(super) fn target(&mut self) -> Option<Target> {
        if self.target.is_none() {
            let resolved = match &self.cfg.device {
                Some(dev) => blockdev::raw::device_name(&self.sys, &dev.path)
                    .map(|name| blockdev::device_target(&self.sys, &name, &dev.path))
                    .map_err(anyhow::Error::msg),
                None => blockdev::resolve_dir(&self.sys, &self.cfg.dir),
            };
            let t = match resolved {
                Ok(t) => Some(t),
                Err(e) => {
                    self.console.warn(&format!("storage: {e:#}"));
                    self.report
                        .failed_sections
                        .add(Section::Storage, format!("{e:#}"));
                    None
                }
            };
            self.report.storage_target = t.clone();
            self.target = Some(t);
        }
        self.target.clone().flatten()
    }

    /// `[ Storage info ]`, and `[ Storage device stack ]` when stacked.
    pub fn storage_info(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Storage) {
            return Ok(());
        }
        self.report.storage_info = Some(blockdev::storage_table(&self.sys));
        self.emit(Item::StorageInfo)?;
        let stack = self
            .target()
            .and_then(|t| blockdev::device_stack(&self.sys, &t));
        if let Some(stack) = stack {
            self.report.storage_stack = Some(stack);
            self.emit(Item::StorageStack)?;
        }
        Ok(())
    }

    /// The two `[ Storage bandwidth ]` sections: writes then reads with
    /// each job count, 4k then 1M.
    pub fn storage_bandwidth(&mut self) -> Result<(), Stop> {
        if !self.cfg.runs(Section::Io) || self.cfg.dry_run {
            return Ok(());
        }
        let target = self.target();
        let io_cfg = IoConfig {
            dir: self.cfg.dir.clone(),
            max_size_bytes: self.cfg.max_size_bytes,
            sysroot: self.sys.clone(),
            stat_dev: target.as_ref().and_then(|t| match t.devices.as_slice() {
                [one] => Some(one.clone()),
                _ => None,
            }),
            max_jobs: self.cfg.io_jobs.iter().copied().max().unwrap_or(1),
            target: target.clone(),
            device: self.cfg.device.as_ref().and_then(|dev| {
                Some(dd_io::RawDevice {
                    path: dev.path.clone(),
                    name: target.as_ref()?.members.first()?.clone(),
                    write: dev.destroy.is_some(),
                })
            }),
        };
        let raw = io_cfg.device.as_ref().map(|d| match d.write {
            true => RawAccess::Write,
            false => RawAccess::ReadOnly,
        });
        let mut ws = match self.measure.open_storage(&io_cfg) {
            Ok(ws) => ws,
            Err(skip) => {
                self.report.storage_bandwidth_skipped = Some(skip.reason.clone());
                self.emit(Item::StorageSkipped)?;
                self.console
                    .warn(&format!("storage bandwidth: {}", skip.reason));
                self.report.failed_sections.add(Section::Io, skip.reason);
                return Ok(());
            }
        };
        for a in ws.advisories() {
            self.console.warn(&format!("storage bandwidth: {a}"));
        }
        // Every device under the target (through a FUSE mount, the local
        // filesystem behind it): their counters say whether our bytes
        // reached them and what I/O was not ours.
        let layout = target.as_ref().map(|t| {
            let fuse = blockdev::fuse_backing(&self.sys, t);
            blockdev::check_layout(&self.sys, t, &fuse)
        });
        if let Some(l) = &layout {
            ws.watch_devices(&l.leaf_names());
        }
        let (direct_io, memory_fs) = ws.title_facts();
        self.report.storage_io = Some(IoSetup {
            remote: target
                .as_ref()
                .is_some_and(|t| t.kind == blockdev::TargetKind::Network),
            device: Some(target.map_or_else(|| "unknown device".into(), |t| t.display)),
            memory_fs,
            direct_io,
            raw,
        });
        let mut errors = 0;
        let blocks = BlockSize::ALL
            .into_iter()
            .filter(|b| self.cfg.io_blocks.contains(b));
        // A device read only: its read lines alone.
        let directions = match raw {
            Some(RawAccess::ReadOnly) => vec![Direction::Read],
            _ => vec![Direction::Write, Direction::Read],
        };
        let lines: Vec<LineKey> = directions
            .into_iter()
            .flat_map(|direction| {
                self.cfg
                    .io_jobs
                    .iter()
                    .map(move |&jobs| LineKey { direction, jobs })
            })
            .collect();
        for bs in blocks {
            self.emit(Item::BandwidthTitle(bs))?;
            let mut rounds =
                Rounds::new(lines.len(), self.rounds(), self.budgeted()).without_drift();
            let mut orders = Vec::new();
            let mut round = 1;
            while round <= rounds.last {
                // Round 1 writes before it reads (reads only touch blocks
                // written); later rounds read what round 1 wrote.
                let order = self.round_order(lines.len(), round == 1);
                orders.push(order.iter().map(|&i| lines[i]).collect());
                for i in order {
                    let line = self.io_trial(ws.as_mut(), layout.as_ref(), bs, lines[i], round);
                    let rounds_left = round < rounds.last;
                    let interrupted = line.end.interrupted();
                    if self.after_step("storage bandwidth line", interrupted, rounds_left)? {
                        rounds.cut(round);
                    }
                    rounds.add(i, round, line);
                    for mut line in rounds.ready() {
                        pooled_burst(&mut line);
                        errors += usize::from(line.end.error().is_some());
                        self.report.storage_bandwidth.push(line);
                        self.emit(Item::BandwidthLine(self.report.storage_bandwidth.len() - 1))?;
                    }
                }
                round += 1;
            }
            let what = "storage bandwidth line";
            let added = self.spend(&mut rounds, StepKind::Storage, what, |run, i, round| {
                Some(run.io_trial(ws.as_mut(), layout.as_ref(), bs, lines[i], round))
            })?;
            for mut line in rounds.ready() {
                pooled_burst(&mut line);
                errors += usize::from(line.end.error().is_some());
                self.report.storage_bandwidth.push(line);
                self.emit(Item::BandwidthLine(self.report.storage_bandwidth.len() - 1))?;
            }
            if let Some(o) = &mut self.report.trial_order {
                o.storage_bandwidth.push(StorageRounds {
                    block_size_bytes: bs.bytes(),
                    rounds: orders,
                    added: added.iter().map(|&i| lines[i]).collect(),
                });
            }
        }
        drop(ws);
        if errors > 0 {
            let reason = format!("{errors} line(s) stopped early (marked in the report)");
            self.console.warn(&format!("storage bandwidth: {reason}"));
            self.report.storage_bandwidth_skipped = Some(reason.clone());
            self.report.failed_sections.add(Section::Io, reason);
        }
        Ok(())
    }

    /// One run of storage line `key` of block size `bs`, with its
    /// conditions (load, other I/O, reach against `layout`); says on
    /// stderr when an error stopped it.
    fn io_trial(
        &mut self,
        ws: &mut dyn Storage,
        layout: Option<&blockdev::DeviceLayout>,
        bs: BlockSize,
        key: LineKey,
        round: u32,
    ) -> IoTrial {
        let LineKey { direction, jobs } = key;
        let label = self.trial_label(&format!("{} ({jobs} thread[s])", direction.label()), round);
        let time = self.trial_plan(StepKind::Storage).trial;
        self.progress(&format!("Storage bandwidth {}", bs.label()), &label, time);
        let sampler = self.sample();
        let figure = ws.run_line(bs, direction, jobs, time);
        let needed = f64::from(jobs.min(self.cpus.len().max(1) as u32));
        let mut load = sampler.map(|s| s.finish(needed).load).unwrap_or_default();
        let deltas: Vec<(String, crate::blockdev::BlockStat)> = figure
            .device_deltas
            .iter()
            .map(|d| (d.device.clone(), d.delta))
            .collect();
        self.note_quota(Some(&load));
        load.io = other_io(&OurIo::of_line(&figure), &deltas);
        let reach = layout.map(|layout| reach::judge_line(&figure, layout));
        let mut marks = mark::marks(Step::Storage, Some(&load), reach.as_ref());
        marks.extend(figure.read_check.as_ref().and_then(mark::Mark::zeros));
        marks.extend(mark::Mark::burst(&figure.samples));
        let line = IoTrial {
            marks,
            marks_in_trials: Vec::new(),
            conditions: LineConditions {
                load: Some(load),
                reach,
            },
            figure,
        };
        self.explain(&line.marks);
        if let Some(e) = line.end.error() {
            let hint = match line.end.errno() {
                Some(errno) => format!("; {}", dd_io::errno_hint(Some(errno))),
                None => String::new(),
            };
            let trial = match self.rounds() {
                1 => String::new(),
                n => format!(", trial {round} of {n}"),
            };
            self.console.warn(&format!(
                "storage bandwidth ({}, {jobs} job(s){trial}): {e}{hint}",
                bs.label()
            ));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trials::{Repeated, RoundTrial};
    use crate::samples::Samples;

    /// A line of `trials` trials of five 100 ms samples each, at `rate(t)`
    /// IO/s in trial t.
    fn line(trials: u32, rate: impl Fn(u32) -> f64) -> IoLine {
        let trials = (0..trials)
            .map(|t| {
                let mut f = dd_io::LineResult::empty(4096, Direction::Write, 1);
                let rates = (0..5).map(|k| rate(t) * (1.0 + 0.01 * k as f64)).collect();
                f.samples = Samples::new(rates, Some(std::time::Duration::from_millis(100)));
                f.ios = 100;
                f.elapsed_ns = 500_000_000;
                RoundTrial {
                    round: t + 1,
                    step: IoTrial::plain(f),
                }
            })
            .collect();
        Repeated::of_trials(trials)
    }

    #[test]
    fn a_step_between_trials_marks_the_line_and_steady_trials_do_not() {
        let mut l = line(6, |t| if t < 3 { 3000.0 } else { 1000.0 });
        assert!(l.step.marks.is_empty(), "no trial holds the step");
        pooled_burst(&mut l);
        let [mark::Mark::Burst { before, after, .. }] = l.step.marks[..] else {
            panic!("{:?}", l.step.marks);
        };
        assert!((before / 3000.0 - 1.0).abs() < 0.05 && (after / 1000.0 - 1.0).abs() < 0.05);
        assert_eq!(l.step.marks_in_trials, [InTrials { trials: 6, of: 6 }]);
        let mut steady = line(6, |_| 3000.0);
        pooled_burst(&mut steady);
        assert!(steady.step.marks.is_empty());
    }
}
