//! The sections added after the original's, all of `-x`: each is one
//! file here that says its title, its lines of text, how they read back,
//! how it is measured (through a [`Measurer`], which runs its steps in
//! trials with the marks of every timed step), what it says to `compare`
//! (its [`AddedFact`]s), and one line in [`ADDED`]. The text renderer, the
//! reader, the runner, the plan and compare go through this list
//! ([`added`]), so a new section changes none of them.
//!
//! Below `report`, `compare` and `run` (all three read [`ADDED`]): a
//! section file imports the model, its measuring module and nothing of
//! the report's layers. The standard sections keep their own code: their
//! text is the original's, line for line.

pub mod latency;
pub mod work;

use std::time::Duration;

use serde::Serialize;

use crate::conditions::{mark, Mark};
use crate::model::added::{AddedTrial, Rate, RateTrial, Trials};
use crate::model::{Report, Section};
pub use crate::stats::Better;
use crate::sysroot::Sysroot;
use crate::trials::StepKind;

/// Every added section, in report order: after the standard sections and
/// `-x`'s, before `--dry-run`'s plan. Each runs with `-x` only.
pub static ADDED: &[&dyn Added] = &[&work::WorkSection, &latency::LatencySection];

/// One added section, end to end but for its data (a field of
/// [`Report`]) and its measuring module.
pub trait Added: Sync {
    /// The `--only`/`--skip` section it belongs to (its name, its man
    /// page entry, its failures).
    fn section(&self) -> Section;
    /// Its title, between the brackets: `Uptime` for `[ Uptime ]`.
    fn title(&self) -> &'static str;
    /// Whether `r` holds it (a report of a run that did not measure it
    /// prints nothing of it).
    fn present(&self, r: &Report) -> bool;
    /// Its lines, the title excluded; every one must read back through
    /// [`Added::read`].
    fn lines(&self, r: &Report) -> Vec<String>;
    /// Reads its lines (title excluded, trailing blank lines dropped)
    /// into `r`; the error names what was expected.
    fn read(&self, r: &mut Report, lines: &[&str]) -> Result<(), String>;
    /// How its trials are cut from a loop delay ([`crate::trials`]).
    fn kind(&self) -> StepKind;
    /// How many timed steps [`Added::measure`] takes at most, each one
    /// loop delay long and run once whatever `--repeat` says: the dry
    /// run's plan counts them in its run time.
    fn timed_steps(&self) -> u32;
    /// Measures it into `r` through `probe`: an error is the section's
    /// failure (stderr and the exit status say it), not the run's.
    fn measure(&self, measurer: &mut dyn Measurer, r: &mut Report) -> anyhow::Result<()>;
    /// Puts in `r` an example of its data (not its `Section`), drawn with
    /// `draw` (a uniform whole number below its argument), as its lines
    /// and its JSON carry it exactly: the round-trip tests read every
    /// added section back from text and JSON in random reports with it
    /// (`tests/report_roundtrip.rs`), so a new section needs no case there.
    fn example(&self, r: &mut Report, draw: &mut dyn FnMut(u64) -> u64);
    /// What `r` says of it, line by line in its order, for `compare`. A
    /// report's text and JSON must give the same facts: a figure's value
    /// is the figure as its line prints it.
    fn facts(&self, r: &Report) -> Vec<AddedFact>;
}

/// One line of an added section as `compare` reads it: neutral data that
/// compare (above this module) turns into its own typed facts.
#[derive(Debug, Clone, PartialEq)]
pub enum AddedFact {
    /// An information line: two reports' read the same or differ.
    Info {
        /// Its label, the key compare lines reports up by.
        label: String,
        /// What it says.
        text: String,
    },
    /// A figure, judged from its trials.
    Figure(AddedFigure),
}

/// A figure of an added section, for `compare`.
#[derive(Debug, Clone, PartialEq)]
pub struct AddedFigure {
    /// Its label, the key compare lines reports up by.
    pub label: String,
    /// The figure, in `unit`, as its line prints it.
    pub value: f64,
    /// As printed.
    pub text: String,
    /// Its unit's word, as printed after the figure (`MB/s`).
    pub unit: &'static str,
    /// Which way is better.
    pub better: Better,
    /// Each trial's value and marks: one (the figure's), or one per
    /// trial; compare leaves out the trials a mark distorted.
    pub trials: Vec<(f64, Vec<Mark>)>,
    /// The figure's marks, as its line prints them.
    pub marks: Vec<Mark>,
    /// How much such a figure varies from run to run.
    pub spread: RunSpread,
    /// What it was measured with (`work v1, zstd 1.6.0`): two figures of
    /// different versions are not comparable.
    pub version: String,
}

/// How much a figure varies from one run to the next, which a report of
/// one run cannot show: what compare's verdict assumes for it (the
/// standard figures' values, and how they were measured, are in
/// `compare::verdict::assumed_run_cv` and `run_floor_cv`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunSpread {
    /// The run-to-run coefficient of variation assumed with 1 or 2
    /// trials a side that have sub-interval samples.
    pub assumed_cv: f64,
    /// The spread between runs that one run's trials do not show, added
    /// to a side's measured spread when it has fewer than 3 reports:
    /// 0 unless the figure's trials are known to agree more closely
    /// than its runs.
    pub floor_cv: f64,
}

/// One timed step to run in trials: its label (the progress display's)
/// and the jobs it keeps busy (what the load marks judge).
#[derive(Debug, Clone, PartialEq)]
pub struct TimedStep {
    /// As the progress display names it.
    pub label: String,
    /// CPUs it keeps busy.
    pub jobs: u32,
}

/// A trial function: step `i` run for the given time, calling the
/// `poll` it is given every 10 ms or so (it samples the host and returns
/// true when the run is stopped).
pub type TrialFn<'a> = dyn FnMut(usize, Duration, &dyn Fn() -> bool) -> anyhow::Result<Rate> + 'a;

/// What a section measures with: the run's sysroot and CPUs, and the one
/// door to timed figures, which the run's measure (live, or the
/// deterministic stand-in) chose once.
pub trait Measurer {
    /// Where `/proc`, `/sys` and `/dev` are read.
    fn sysroot(&self) -> &Sysroot;
    /// The CPUs this process may run on.
    fn cpus(&self) -> usize;
    /// The cgroup's memory headroom (limit minus usage), bytes, if any.
    fn memory_headroom(&self) -> Option<u64>;
    /// Runs every step of `steps` in trials of a loop delay cut as
    /// `kind`'s: in shuffled rounds when `interleaved`, else each step's
    /// trials one after the other. `trial` measures one live; under the
    /// stand-in, `stand_in(i)` is step `i`'s every trial. Each trial
    /// carries the marks of what the host did meanwhile.
    fn trials(
        &mut self,
        kind: StepKind,
        steps: &[TimedStep],
        interleaved: bool,
        trial: &mut TrialFn<'_>,
        stand_in: &dyn Fn(usize) -> Rate,
    ) -> anyhow::Result<Vec<Vec<RateTrial>>>;
}

/// The pooled figure of a step's `trials` (their work over their time,
/// through `figure`) and its [`Trials`], each trial's value by `figure`.
pub fn pooled(trials: &[RateTrial], figure: impl Fn(Rate) -> f64) -> (f64, Trials) {
    let sum = Rate {
        work: trials.iter().map(|t| t.rate.work).sum(),
        elapsed_ns: trials.iter().map(|t| t.rate.elapsed_ns).sum(),
    };
    let (marks, marks_in_trials) = mark::of_trials(trials.iter().map(|t| t.marks.as_slice()));
    let marks_in_trials = if trials.len() > 1 {
        marks_in_trials
    } else {
        Vec::new()
    };
    let trials_out = if trials.len() > 1 {
        trials
            .iter()
            .map(|t| AddedTrial {
                round: t.round,
                value: figure(t.rate),
                marks: t.marks.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    (
        figure(sum),
        Trials {
            marks,
            marks_in_trials,
            trials: trials_out,
        },
    )
}

/// A figure's trials for compare: each trial's value (through `value`)
/// and marks, or the figure and its marks when it has no trials (read
/// from text, or one block).
pub fn fact_trials(figure: f64, t: &Trials, value: impl Fn(f64) -> f64) -> Vec<(f64, Vec<Mark>)> {
    if t.trials.is_empty() {
        return vec![(figure, t.marks.clone())];
    }
    t.trials
        .iter()
        .map(|x| (value(x.value), x.marks.clone()))
        .collect()
}

/// `figure`'s marks as its line prints them: ` (busy 12 %: cargo)`.
pub fn marks_text(t: &Trials) -> String {
    t.marks
        .iter()
        .enumerate()
        .map(|(i, m)| format!(" ({})", mark::text_in(m, t.marks_in_trials.get(i))))
        .collect()
}

/// The figure and marks of a line's tail `X UNIT (mark) (mark)`.
pub fn parse_tail(tail: &str, unit: &str) -> Option<(f64, Trials)> {
    let (x, rest) = tail.trim().split_once(unit)?;
    let x: f64 = x.trim().parse().ok()?;
    let mut t = Trials::default();
    let mut shares = Vec::new();
    let mut rest = rest.trim();
    while !rest.is_empty() {
        let close = rest.find(')')?;
        let inner = rest.strip_prefix('(')?.get(..close - 1)?;
        rest = rest[close + 1..].trim_start();
        let (m, share) = mark::parse_in(inner)?;
        t.marks.push(m);
        shares.push(share);
    }
    if let Some(of) = shares.iter().flatten().map(|s| s.of).next() {
        t.marks_in_trials = shares
            .iter()
            .map(|s| s.unwrap_or(mark::InTrials { trials: of, of }))
            .collect();
    }
    Some((x, t))
}

/// The added sections every code path goes through, in report order.
pub fn added() -> &'static [&'static dyn Added] {
    ADDED
}

/// The added sections that `runs` selects, with their timed steps
/// ([`Added::timed_steps`]), in report order.
pub fn timed(runs: impl Fn(Section) -> bool) -> Vec<(&'static str, u32)> {
    added()
        .iter()
        .filter(|s| runs(s.section()) && s.timed_steps() > 0)
        .map(|s| (s.title(), s.timed_steps()))
        .collect()
}

/// The added section titled `title`, with its index in [`added`].
pub fn by_title(title: &str) -> Option<(usize, &'static dyn Added)> {
    added()
        .iter()
        .copied()
        .enumerate()
        .find(|(_, s)| s.title() == title)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Titles the standard report prints (or the reader knows): an added
    /// section must not take one, or the reader would mistake it.
    const STANDARD_TITLES: [&str; 10] = [
        "CPU info",
        "CPU loop",
        "Memory",
        "Storage info",
        "Storage device stack",
        "Storage bandwidth",
        "Extended: CPU",
        "Extended: Memory (DRAM, STREAM-like)",
        "Extended: Storage",
        "Plan",
    ];

    /// Why `list`'s titles would mislead the reader, if they would: one
    /// taken twice, or a standard section's.
    fn title_clash(list: &[&dyn Added]) -> Option<String> {
        for (i, s) in list.iter().enumerate() {
            let t = s.title();
            if STANDARD_TITLES.contains(&t) || t.starts_with("Storage bandwidth") {
                return Some(format!("{t:?} is a standard section's title"));
            }
            if list[..i].iter().any(|o| o.title() == t) {
                return Some(format!("{t:?} twice"));
            }
        }
        None
    }

    #[test]
    fn added_titles_are_unique_and_not_standard() {
        assert_eq!(title_clash(ADDED), None);
        for (i, s) in ADDED.iter().enumerate() {
            assert_eq!(by_title(s.title()).map(|(j, _)| j), Some(i));
        }
        // The check can fail.
        let work: &dyn Added = &work::WorkSection;
        assert_eq!(
            title_clash(&[work, work]),
            Some("\"Extended: CPU work\" twice".into())
        );
    }

    #[test]
    fn marks_read_back_from_a_lines_tail() {
        let t = Trials {
            marks: vec![Mark::Steal { percent: 12.0 }],
            marks_in_trials: vec![mark::InTrials { trials: 2, of: 6 }],
            trials: Vec::new(),
        };
        let tail = format!("  12.50 MB/s{}", marks_text(&t));
        assert_eq!(parse_tail(&tail, "MB/s"), Some((12.5, t)));
        assert_eq!(parse_tail("1.5 ns", "ns"), Some((1.5, Trials::default())));
        assert_eq!(parse_tail("1.5 ns (what)", "ns"), None);
    }
}
