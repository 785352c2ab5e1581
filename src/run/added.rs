//! The added sections (`sections::added`), each measured through a
//! [`Measurer`] over this run's measure, stored and emitted whole.

use std::time::Duration;

use super::{Measure, Run, Stop};
use crate::sections::{self, Measurer};
use crate::sink::Item;
use crate::Sysroot;

/// A run's measure as an added section sees it.
struct RunMeasurer<'a> {
    sys: &'a Sysroot,
    delay: Duration,
    measure: &'a dyn Measure,
}

impl Measurer for RunMeasurer<'_> {
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
        for (i, s) in sections::added().iter().enumerate() {
            if !self.cfg.runs(s.section()) {
                continue;
            }
            let measurer = RunMeasurer {
                sys: &self.sys,
                delay: self.cfg.loop_delay,
                measure: self.measure,
            };
            if let Err(e) = s.measure(&measurer, &mut self.report) {
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

/// The added sections' paths, run with the test-only `[ Tally ]`
/// (`sections::testing`) in the registry's place: each test also shows
/// that without it in the registry the path does nothing of it, so a path
/// that stopped consulting the registry fails here.
#[cfg(test)]
mod tests {
    use crate::model::{Report, Section, Tally};
    use crate::progress::Progress;
    use crate::report::read::{read_json, read_text};
    use crate::report::text::{render, TextSink};
    use crate::report::Console;
    use crate::run::{Live, Measure, Run, StandIn};
    use crate::sections::testing::{Swap, TallySection, STAND_IN_WORDS_PER_S};
    use crate::sections::Added;

    const TALLY_TEXT: &str = "[ Tally ]\nWords     : 7\nRate      : 1234.5 words/s\n";

    fn report() -> Report {
        let mut r = Report::new("Linux h 6.1.0 #1 SMP x86_64 GNU/Linux".into(), "h".into());
        r.sections = vec![Section::Cpuinfo];
        r.tally = Some(Tally {
            words: 7,
            words_per_s: 1234.5,
        });
        r
    }

    #[test]
    fn an_added_section_renders_and_reads_back_from_text() {
        let r = report();
        let text = {
            let _swap = Swap::tally();
            render(&r)
        };
        assert!(text.ends_with(&format!("\n\n{TALLY_TEXT}")), "{text}");
        let _swap = Swap::tally();
        let read = read_text("tally.txt", &text).unwrap();
        assert_eq!(read.tally, r.tally);
        assert_eq!(read.sections, r.sections);
        assert!(read.raw_sections.is_empty(), "{:?}", read.raw_sections);
        assert_eq!(render(&read), text);
        drop(_swap);
        // Out of the registry, the renderer prints nothing of it, and
        // the reader keeps its lines as an unknown section's.
        assert!(!render(&r).contains("Tally"));
        let unknown = read_text("tally.txt", &text).unwrap();
        assert_eq!(unknown.tally, None);
        assert_eq!(unknown.raw_sections.len(), 1);
    }

    /// What `tests/fixtures/report_roundtrip.rs` does with every section of
    /// `ADDED`, here with `[ Tally ]`: its examples read back from text
    /// and JSON to the same report.
    #[test]
    fn an_added_sections_examples_read_back_from_text_and_json() {
        let _swap = Swap::tally();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut draw = |n: u64| {
            state = crate::stats::rng::SplitMix64::new(state).next_u64();
            state % n
        };
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let mut r = report();
            TallySection.example(&mut r, &mut draw);
            seen.insert(r.tally.as_ref().map(|t| t.words));
            let text = render(&r);
            let read = read_text("example.txt", &text).unwrap();
            assert_eq!(read.tally, r.tally, "{text}");
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(read_json("example.json", &json).unwrap().tally, r.tally);
        }
        // The examples differ from each other.
        assert!(seen.len() > 150, "{}", seen.len());
    }

    /// A `-x` report with the added section after its `-x` sections.
    const WITH_EXTENDED: &str = "Quickbench: 0.1.0 (Rust port of Bearstech's Quickbench 1.0)
Kernel    : Linux vm 6.18 #1 SMP x86_64 GNU/Linux
Build     : rustc 1.95.0 (59807616e 2026-04-14), x86_64-unknown-linux-gnu, static
CPU loop  : loop v1 (8 independent multiply-xorshift chains), not comparable with the bash original's figures

[ CPU loop ]
 1 // jobs :  399999000 loop/job/s

[ Extended: CPU ]
 1 // jobs : steal   0.3 %   clock   2600 MHz (cpufreq)   rate ±  1.2 % (24 x 500 ms); others 5 % of a CPU
SMT probe : 2 threads per core share execution units: siblings run at 0.58x

[ Tally ]
Words     : 7
Rate      : 1234.5 words/s
";

    #[test]
    fn an_added_section_after_x_sections_reads_back_to_figures() {
        let _swap = Swap::tally();
        let read = read_text("x.txt", WITH_EXTENDED).unwrap();
        assert_eq!(read.tally, report().tally);
        // The `-x` lines read to figures, not kept as text: kept, they
        // would have to render where the structured ones go.
        assert!(read.raw_sections.is_empty(), "{:?}", read.raw_sections);
        assert!(!read.extended.as_ref().unwrap().kept_as_text);
        let clock = read.cpu_loop[0].conditions.clock.unwrap();
        assert_eq!(clock.mean_mhz, Some(2600.0));
        assert_eq!(render(&read), WITH_EXTENDED);
    }

    #[test]
    fn an_added_section_reads_back_from_json() {
        let _swap = Swap::tally();
        let r = report();
        let json = serde_json::to_string(&r).unwrap();
        assert!(
            json.contains(r#""tally":{"words":7,"words_per_s":1234.5}"#),
            "{json}"
        );
        let read = read_json("tally.json", &json).unwrap();
        assert_eq!(read.tally, r.tally);
        assert_eq!(serde_json::to_string(&read).unwrap(), json);
        assert_eq!(render(&read), render(&r));
        assert!(render(&read).contains(TALLY_TEXT));
    }

    /// Runs `step` alone through `measure` on a sysroot holding `proc/`,
    /// and `proc/tally` when `words` is given, with `args` after
    /// `--sysroot`: the report, and the text streamed.
    fn run_step(
        measure: &dyn Measure,
        words: Option<&str>,
        args: &[&str],
        step: impl FnOnce(&mut Run) -> Result<(), crate::run::Stop>,
    ) -> (Report, String) {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("proc")).unwrap();
        if let Some(w) = words {
            std::fs::write(root.path().join("proc/tally"), w).unwrap();
        }
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
    fn run(measure: &dyn Measure, words: Option<&str>, args: &[&str]) -> (Report, String) {
        // A sysroot alone is a dry run; the figures are `measure`'s.
        let args: Vec<&str> = ["--stand-in"].iter().chain(args).copied().collect();
        run_step(measure, words, &args, |run| run.added())
    }

    #[test]
    fn an_added_section_is_measured_through_the_stand_in() {
        let _swap = Swap::tally();
        let (r, text) = run(&StandIn::default(), Some("one two\nthree\n"), &[]);
        let tally = Tally {
            words: 3,
            words_per_s: STAND_IN_WORDS_PER_S,
        };
        assert_eq!(r.tally, Some(tally));
        // (The storage sections fail on a sysroot without a mount table.)
        assert!(
            !r.failed_sections.contains(Section::Cpuinfo),
            "{:?}",
            r.failed_sections
        );
        assert_eq!(
            text,
            "[ Tally ]\nWords     : 3\nRate      : 1000.0 words/s\n"
        );
        drop(_swap);
        let (r, text) = run(&StandIn::default(), Some("one two\nthree\n"), &[]);
        assert_eq!((r.tally, text), (None, String::new()));
    }

    #[test]
    fn the_run_the_binary_makes_measures_the_added_sections() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("proc")).unwrap();
        std::fs::write(root.path().join("proc/tally"), "a b").unwrap();
        let sysroot = root.path().to_str().unwrap();
        let cfg = crate::cli::parse([
            "quickbench",
            "--stand-in",
            "--sysroot",
            sysroot,
            "--only",
            "cpuinfo",
        ])
        .unwrap();
        let whole = || {
            let progress = Progress::disabled();
            let console = Console::new(Progress::disabled());
            let mut text = Vec::new();
            let r = {
                let mut sink = TextSink::new(&mut text, &progress);
                crate::run::report(&cfg, &mut sink, &console).unwrap()
            };
            (r, String::from_utf8(text).unwrap())
        };
        let _swap = Swap::tally();
        let (r, text) = whole();
        assert_eq!(
            r.tally,
            Some(Tally {
                words: 2,
                words_per_s: STAND_IN_WORDS_PER_S
            })
        );
        assert!(
            text.starts_with("Quickbench: ")
                && text.ends_with("\n\n[ Tally ]\nWords     : 2\nRate      : 1000.0 words/s\n"),
            "{text}"
        );
        drop(_swap);
        let (r, text) = whole();
        assert_eq!(r.tally, None);
        assert!(!text.contains("Tally"), "{text}");
    }

    #[test]
    fn an_added_section_is_measured_live_through_the_measurer() {
        let _swap = Swap::tally();
        let (r, text) = run(&Live, Some("a b c d"), &["0.1"]);
        let tally = r.tally.expect("measured");
        assert_eq!(tally.words, 4);
        // Live, the closure ran: a rate, not the stand-in's figure alone.
        assert!(
            tally.words_per_s.is_finite() && tally.words_per_s > 0.0,
            "{tally:?}"
        );
        assert!(text.starts_with("[ Tally ]\nWords     : 4\nRate      : "));
    }

    #[test]
    fn an_added_section_follows_only_skip_and_dry_run() {
        let _swap = Swap::tally();
        for args in [
            &["--skip", "cpuinfo"][..],
            &["--only", "cpu"],
            &["--dry-run"],
        ] {
            let (r, text) = run(&StandIn::default(), Some("x"), args);
            assert_eq!((r.tally, text), (None, String::new()), "{args:?}");
        }
        let (r, _) = run(&StandIn::default(), Some("x"), &["--only", "cpuinfo"]);
        assert!(r.tally.is_some());
    }

    #[test]
    fn the_plan_counts_an_added_sections_steps_once() {
        let plan = |args: &[&str]| -> String {
            run_step(&StandIn::default(), None, args, |run| run.plan()).1
        };
        let args = ["--only", "cpuinfo,memory", "--repeat", "3", "-x", "1"];
        let _swap = Swap::tally();
        // The memory step 3 times, -x's two DRAM runs and the tally once.
        let text = plan(&args);
        assert!(
            text.contains(
                "about 6 s (1 timed steps of 1 s × 3 trials and 2 of -x and 1 of Tally once)"
            ),
            "{text}"
        );
        drop(_swap);
        let text = plan(&args);
        assert!(
            text.contains("about 5 s (1 timed steps of 1 s × 3 trials and 2 of -x once)"),
            "{text}"
        );
    }

    #[test]
    fn an_added_section_that_fails_is_marked_failed_and_the_run_goes_on() {
        let _swap = Swap::tally();
        let (r, text) = run(&StandIn::default(), None, &[]);
        assert_eq!((&r.tally, text.as_str()), (&None, ""));
        let failure = r
            .failed_sections
            .iter()
            .find(|f| f.section == Section::Cpuinfo);
        let reason = &failure.expect("cpuinfo failed").reason;
        assert!(
            reason.ends_with("/proc/tally: No such file or directory (os error 2)"),
            "{reason}"
        );
        assert_eq!(r.exit_status(), 1);
    }
}
