//! A test-only added section, `[ Tally ]`, and the seam that puts it on
//! the added sections' code paths: [`Swap`] replaces [`super::added`]'s
//! list on the test's own thread (the tests run in parallel, each on its
//! thread; the runner, the text sink and the reader run on the caller's).
//!
//! The section has what a real one has: an information fact (the words
//! of `/proc/tally`, read from the run's sysroot) and a timed figure
//! (words counted per second, through [`Measurer::timed`]: 1000 under the
//! stand-in), both given to compare as facts. The tests that drive it
//! through the renderer, the reader and the runner are beside those
//! (`run::added`); compare's are in `compare::facts_added`.

use std::cell::Cell;

use super::{Added, AddedFact, AddedFigure, Better, Measurer, RunSpread};
use crate::model::{Report, Section, Tally};

/// `[ Tally ]`.
pub struct TallySection;

/// What the stand-in's timed figure is.
pub const STAND_IN_WORDS_PER_S: f64 = 1000.0;

const WORDS: &str = "Words     : ";
const RATE: &str = "Rate      : ";
const RATE_UNIT: &str = " words/s";

impl Added for TallySection {
    /// A real section has its own; this one borrows `cpuinfo`'s (a test
    /// variant of `Section` would change the command line of the tests).
    fn section(&self) -> Section {
        Section::Cpuinfo
    }

    fn title(&self) -> &'static str {
        "Tally"
    }

    fn present(&self, r: &Report) -> bool {
        r.tally.is_some()
    }

    fn lines(&self, r: &Report) -> Vec<String> {
        let t = r.tally.as_ref().expect("present");
        vec![
            format!("{WORDS}{}", t.words),
            format!("{RATE}{:.1}{RATE_UNIT}", t.words_per_s),
        ]
    }

    fn read(&self, r: &mut Report, lines: &[&str]) -> Result<(), String> {
        let [words, rate] = lines else {
            return Err(format!(
                "expected 2 lines (`{WORDS}N`, `{RATE}X{RATE_UNIT}`), found {}",
                lines.len()
            ));
        };
        let words = words
            .strip_prefix(WORDS)
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("expected `{WORDS}N`, found {words:?}"))?;
        let words_per_s = rate
            .strip_prefix(RATE)
            .and_then(|l| l.strip_suffix(RATE_UNIT))
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| format!("expected `{RATE}X{RATE_UNIT}`, found {rate:?}"))?;
        r.tally = Some(Tally { words, words_per_s });
        Ok(())
    }

    fn timed_steps(&self) -> u32 {
        1
    }

    fn measure(&self, measurer: &dyn Measurer, r: &mut Report) -> anyhow::Result<()> {
        let path = measurer.sysroot().path("/proc/tally");
        let read = || {
            std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
        };
        let words = read()?.split_whitespace().count() as u64;
        let delay = measurer.delay();
        let words_per_s = measurer.timed(
            &mut || {
                let t0 = std::time::Instant::now();
                let mut n = 0;
                while t0.elapsed() < delay {
                    n += read()?.split_whitespace().count();
                }
                Ok(n as f64 / t0.elapsed().as_secs_f64())
            },
            STAND_IN_WORDS_PER_S,
        )?;
        r.tally = Some(Tally { words, words_per_s });
        Ok(())
    }

    fn example(&self, r: &mut Report, draw: &mut dyn FnMut(u64) -> u64) {
        r.tally = Some(Tally {
            words: draw(1 << 40),
            // One decimal, as the line prints it.
            words_per_s: draw(10_000_000) as f64 / 10.0,
        });
    }

    fn facts(&self, r: &Report) -> Vec<AddedFact> {
        let Some(t) = &r.tally else {
            return Vec::new();
        };
        // The value as the line prints it, so text and JSON compare alike.
        let text = format!("{:.1}", t.words_per_s);
        let value = text.parse().unwrap_or(t.words_per_s);
        vec![
            AddedFact::Info {
                label: "Words".into(),
                text: t.words.to_string(),
            },
            AddedFact::Figure(AddedFigure {
                label: "Rate".into(),
                value,
                text,
                unit: RATE_UNIT.trim_start(),
                better: Better::Higher,
                trials: vec![value],
                spread: RUN_SPREAD,
            }),
        ]
    }
}

/// The rate's run-to-run spread (made up: nothing measures it).
pub const RUN_SPREAD: RunSpread = RunSpread::assumed(0.10);

/// Every test-only section: the list [`Swap::tally`] puts in place.
pub static LIST: &[&dyn Added] = &[&TallySection];

thread_local! {
    static SWAPPED: Cell<Option<&'static [&'static dyn Added]>> = const { Cell::new(None) };
}

/// The list a [`Swap`] on this thread put in place, if one is alive.
pub fn swapped() -> Option<&'static [&'static dyn Added]> {
    SWAPPED.with(Cell::get)
}

/// While alive, [`super::added`] on this thread is its list.
pub struct Swap(());

impl Swap {
    /// The added sections are `[ Tally ]` alone.
    pub fn tally() -> Swap {
        SWAPPED.with(|s| s.set(Some(LIST)));
        Swap(())
    }
}

impl Drop for Swap {
    fn drop(&mut self) {
        SWAPPED.with(|s| s.set(None));
    }
}
