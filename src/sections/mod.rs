//! The sections added after the original's: each is one file here that
//! says its title, its lines of text, how they read back, and how it is
//! measured (through a [`Measurer`]), what it says to `compare` (its
//! [`AddedFact`]s), and one line in [`ADDED`]. The text renderer, the reader,
//! the runner, the plan and compare go through this list ([`added`]),
//! so a new section changes none of them; the crate's unit tests run a
//! test-only section through them (`testing`).
//!
//! Below `report`, `compare` and `run` (all three read [`ADDED`]): a
//! section file imports the model, its measuring module and nothing of
//! the report's layers. The standard sections keep their own code: their
//! text is the original's, line for line.

#[cfg(test)]
pub mod testing;

use std::time::Duration;

use serde::Serialize;

use crate::model::{Report, Section};
pub use crate::stats::Better;
use crate::sysroot::Sysroot;

/// Every added section, in report order: after the standard sections and
/// `-x`'s, before `--dry-run`'s plan.
pub static ADDED: &[&dyn Added] = &[];

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
    /// How many timed figures [`Added::measure`] takes, each one loop
    /// delay long and run once whatever `--repeat` says: the dry run's
    /// plan counts them in its run time.
    fn timed_steps(&self) -> u32 {
        0
    }
    /// Measures it into `r` through `measurer`: an error is the section's
    /// failure (stderr and the exit status say it), not the run's.
    fn measure(&self, measurer: &dyn Measurer, r: &mut Report) -> anyhow::Result<()>;
    /// Puts in `r` an example of its data (not its `Section`), drawn with
    /// `draw` (a uniform whole number below its argument), as its lines
    /// and its JSON carry it exactly: the round-trip tests read every
    /// added section back from text and JSON in random reports with it
    /// (`tests/fixtures/report_roundtrip.rs`), so a new section needs no case there.
    fn example(&self, r: &mut Report, draw: &mut dyn FnMut(u64) -> u64);
    /// What `r` says of it, line by line in its order, for `compare`
    /// (none by default: compare then shows nothing of it). A report's
    /// text and JSON must give the same facts: a figure's value is the
    /// figure as its line prints it.
    fn facts(&self, _r: &Report) -> Vec<AddedFact> {
        Vec::new()
    }
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
    /// Its unit's word, as printed after the figure (`words/s`).
    pub unit: &'static str,
    /// Which way is better.
    pub better: Better,
    /// Each trial's value: one, or one per `--repeat` trial.
    pub trials: Vec<f64>,
    /// How much such a figure varies from run to run.
    pub spread: RunSpread,
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

impl RunSpread {
    /// `assumed_cv`, without a floor.
    pub const fn assumed(assumed_cv: f64) -> RunSpread {
        RunSpread {
            assumed_cv,
            floor_cv: 0.0,
        }
    }
}

/// What a section measures with: the run's sysroot and loop delay, and
/// the one door to timed figures, which the run's measure (live, or the
/// deterministic stand-in) chose once.
pub trait Measurer {
    /// Where `/proc`, `/sys` and `/dev` are read.
    fn sysroot(&self) -> &Sysroot;
    /// The loop delay: how long a timed step runs.
    fn delay(&self) -> Duration;
    /// A timed figure: `live` measured, or `stand_in` under the stand-in.
    fn timed(
        &self,
        live: &mut dyn FnMut() -> anyhow::Result<f64>,
        stand_in: f64,
    ) -> anyhow::Result<f64>;
}

/// The added sections every code path goes through, in report order:
/// [`ADDED`]. In the crate's unit tests, a test may put its own list in
/// its place on its thread (`testing::Swap`): the paths then run a
/// test-only section, which [`ADDED`], empty until a real section lands,
/// cannot give them.
pub fn added() -> &'static [&'static dyn Added] {
    #[cfg(test)]
    if let Some(list) = testing::swapped() {
        return list;
    }
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
        // The real sections, the test-only ones, and both together (a
        // test-only title must not hide a real one from the tests).
        let test_only = testing::LIST;
        let both: Vec<&dyn Added> = ADDED.iter().chain(test_only).copied().collect();
        for list in [ADDED, test_only, &both] {
            assert_eq!(title_clash(list), None);
        }
        // The reader finds each test-only section by its title.
        let _swap = testing::Swap::tally();
        for (i, s) in test_only.iter().enumerate() {
            assert_eq!(by_title(s.title()).map(|(j, _)| j), Some(i));
        }
        // The check can fail.
        let tally = &testing::TallySection;
        assert_eq!(title_clash(&[tally, tally]), Some("\"Tally\" twice".into()));
        struct Plan;
        impl Added for Plan {
            fn section(&self) -> Section {
                Section::Cpuinfo
            }
            fn title(&self) -> &'static str {
                "Plan"
            }
            fn present(&self, _: &Report) -> bool {
                false
            }
            fn lines(&self, _: &Report) -> Vec<String> {
                Vec::new()
            }
            fn read(&self, _: &mut Report, _: &[&str]) -> Result<(), String> {
                Ok(())
            }
            fn measure(&self, _: &dyn Measurer, _: &mut Report) -> anyhow::Result<()> {
                Ok(())
            }
            fn example(&self, _: &mut Report, _: &mut dyn FnMut(u64) -> u64) {}
        }
        assert!(title_clash(&[tally, &Plan]).is_some());
    }
}
