//! What a report's added sections (`crate::sections`) say, for compare,
//! after the `-x` sections: each section's neutral facts
//! (`sections::Added::facts`) typed as compare's, in the section's own
//! [`RowSection`], its figures' unit an [`Unit::Added`] and their kind an
//! [`FigureKind::Added`] carrying the run-to-run spread the section says.
//! Nothing here knows a section: a new one changes nothing in compare.

use super::fact::{Fact, FactTrial, Figure, FigureKind, RowSection, Unit};
use crate::model::Report;
use crate::sections;
use crate::stats::TrialValue;

/// The added sections' facts of `r`, in report order.
pub fn facts_added(r: &Report) -> Vec<Fact> {
    sections::added()
        .iter()
        .flat_map(|s| {
            let section = RowSection::Added(s.title());
            s.facts(r).into_iter().map(move |f| typed(section, f))
        })
        .collect()
}

/// One neutral fact of `section`, typed.
fn typed(section: RowSection, f: sections::AddedFact) -> Fact {
    match f {
        sections::AddedFact::Info { label, text } => Fact::info(section, label, text),
        sections::AddedFact::Figure(f) => {
            let how = (f.better, Unit::Added(f.unit), FigureKind::Added(f.spread));
            let mut figure = Figure::new(section, f.label, how, f.value, f.text);
            // A section that gives no trials has one: its figure.
            if !f.trials.is_empty() {
                figure.trials = f
                    .trials
                    .into_iter()
                    .map(|v| FactTrial::clean(TrialValue::value(v)))
                    .collect();
            }
            Fact::Figure(figure)
        }
    }
}

/// Compare through the registry, with the test-only `[ Tally ]`
/// (`sections::testing`) in its place: without it the same reports
/// compare nothing of it, so compare must consult the registry.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::verdict::{assumed_run_cv, run_floor_cv};
    use crate::compare::{compare_grouped, Grouping, Input, Row, Verdict};
    use crate::model::Tally;
    use crate::sections::testing::{Swap, RUN_SPREAD};

    fn input(name: &str, words: u64, words_per_s: f64) -> Input {
        let mut r = Report::new("Linux h 6.1.0 #1 SMP x86_64 GNU/Linux".into(), name.into());
        r.tally = Some(Tally { words, words_per_s });
        Input::new(format!("{name}.json"), r)
    }

    /// The rows of `[ Tally ]` of side A (the first `n` inputs) against
    /// side B.
    fn tally_rows(inputs: &[Input], n: usize) -> Vec<Row> {
        compare_grouped(inputs, Grouping::Split(n))
            .rows
            .into_iter()
            .filter(|r| r.section == RowSection::Added("Tally"))
            .collect()
    }

    #[test]
    fn an_added_sections_facts_are_typed_after_the_x_facts() {
        let _swap = Swap::tally();
        let r = input("a", 7, 1234.56).report;
        let facts = crate::compare::facts(&r);
        let n = facts.len();
        assert!(n > 2, "{facts:?}");
        assert_eq!(
            facts[n - 2],
            Fact::info(RowSection::Added("Tally"), "Words", "7")
        );
        let f = facts[n - 1].figure().expect("a figure");
        assert_eq!((f.label.as_str(), f.text.as_str()), ("Rate", "1234.6"));
        assert_eq!((f.value, f.unit), (1234.6, Unit::Added("words/s")));
        assert_eq!(f.kind, FigureKind::Added(RUN_SPREAD));
        // The verdict reads the section's spread, without a floor.
        assert_eq!(assumed_run_cv(f.kind), RUN_SPREAD.assumed_cv);
        assert_eq!(run_floor_cv(f.kind), 0.0);
        assert_eq!(f.trials.len(), 1);
        assert_eq!(RowSection::Added("Tally").title(), "Tally");
        assert_eq!(Unit::Added("words/s").to_string(), "words/s");
        drop(_swap);
        assert_eq!(crate::compare::facts(&r).len(), n - 2);
    }

    #[test]
    fn an_added_sections_figure_is_judged_and_its_info_line_compared() {
        let _swap = Swap::tally();
        // One report a side, no samples: the fixed band on the ratio.
        let rows = tally_rows(&[input("a", 7, 1000.0), input("b", 8, 2000.0)], 1);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(
            (rows[0].label.as_str(), &rows[0].verdicts[1]),
            ("Words", &Verdict::Different)
        );
        assert_eq!(rows[1].label, "Rate");
        assert_eq!(rows[1].verdicts[1], Verdict::Better);
        assert_eq!(rows[1].ratios[1], Some(2.0));
        // Five reports a side (three are too few for the family's level):
        // their trials measure the spread, and the interval decides;
        // halved, the rate reads worse.
        let side = |name: &str, rates: [f64; 5]| -> Vec<Input> {
            rates.iter().map(|&v| input(name, 7, v)).collect()
        };
        let a = side("a", [1000.0, 1020.0, 985.0, 1007.0, 996.0]);
        for (b, verdict) in [
            (
                side("b", [2010.0, 1990.0, 2040.0, 1985.0, 2003.0]),
                Verdict::Better,
            ),
            (
                side("b", [502.0, 497.0, 510.0, 505.0, 499.0]),
                Verdict::Worse,
            ),
            (
                side("b", [1003.0, 1011.0, 992.0, 998.0, 1005.0]),
                Verdict::Equal,
            ),
        ] {
            let inputs: Vec<Input> = a.iter().chain(&b).cloned().collect();
            let rows = tally_rows(&inputs, 5);
            assert_eq!(rows[0].verdicts[1], Verdict::Same, "{rows:?}");
            assert_eq!(rows[1].verdicts[1], verdict, "{:?}", rows[1].judged);
            let j = rows[1].judged[1].as_ref().expect("judged");
            assert_eq!((j.n_a, j.n_b), (5, 5));
        }
        drop(_swap);
        let inputs = [input("a", 7, 1000.0), input("b", 8, 2000.0)];
        assert!(tally_rows(&inputs, 1).is_empty());
    }
}
