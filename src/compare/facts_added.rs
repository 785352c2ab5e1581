//! What a report's added sections (`crate::sections`) say, for compare,
//! after the `-x` sections: each section's neutral facts
//! (`sections::Added::facts`) typed as compare's, in the section's own
//! [`Section`], its figures' unit an [`Unit::Added`] and their kind an
//! [`FigureKind::Added`] carrying the run-to-run spread the section says.
//! Nothing here knows a section: a new one changes nothing in compare.

use super::fact::{distortion, Fact, FactTrial, Figure, FigureKind, Method, RowSection, Unit};
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
            // Two versions of a workload measure different work.
            figure.method = Some(Method::Version(f.version));
            // A section that gives no trials has one: its figure.
            if !f.trials.is_empty() {
                figure.trials = f
                    .trials
                    .into_iter()
                    .map(|(v, marks)| FactTrial {
                        trial: TrialValue::value(v),
                        distorted: distortion(&marks),
                    })
                    .collect();
            }
            figure.marks = f.marks;
            Fact::Figure(figure)
        }
    }
}

/// Compare through the registry, with the real sections' figures.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare_grouped, Grouping, Input, Row, Verdict};
    use crate::model::added::{AddedTrial, Trials};
    use crate::model::{LatencyFigure, WorkFigure};
    use crate::sections::work::RUN_SPREAD;

    fn work(version: &str, mb: &[f64]) -> WorkFigure {
        WorkFigure {
            workload: "zstd-3 compress".into(),
            version: version.into(),
            input: "4 MiB of generated text".into(),
            jobs: 1,
            bytes_per_s: mb.iter().sum::<f64>() / mb.len() as f64 * 1e6,
            timed: Trials {
                trials: mb
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| AddedTrial {
                        round: i as u32 + 1,
                        value: v * 1e6,
                        marks: Vec::new(),
                    })
                    .collect(),
                ..Trials::default()
            },
        }
    }

    fn input(name: &str, version: &str, mb: &[f64], ns: f64) -> Input {
        let mut r = Report::new("Linux h 6.1.0 #1 SMP x86_64 GNU/Linux".into(), name.into());
        r.cpu_work = vec![work(version, mb)];
        r.memory_latency = vec![LatencyFigure {
            size_bytes: 1 << 30,
            ns_per_load: ns,
            version: "chase v1".into(),
            line_per_page: false,
            thp_percent: Some(100),
            timed: Trials::default(),
        }];
        Input::new(format!("{name}.json"), r)
    }

    /// The rows of the added sections of side A (the first `n` inputs)
    /// against side B.
    fn rows(inputs: &[Input], n: usize) -> Vec<Row> {
        compare_grouped(inputs, Grouping::Split(n))
            .rows
            .into_iter()
            .filter(|r| matches!(r.section, RowSection::Added(_)))
            .collect()
    }

    #[test]
    fn the_added_sections_facts_are_typed_after_the_x_facts() {
        let r = input("a", "work v1, zstd 1.6.0", &[199.0, 201.0], 266.0).report;
        let facts = crate::compare::facts(&r);
        let n = facts.len();
        let f = facts[n - 2].figure().expect("a figure");
        assert_eq!(f.section, RowSection::Added("Extended: CPU work"));
        assert_eq!(
            (f.label.as_str(), f.text.as_str()),
            ("zstd-3 compress, 1 // jobs", "200.00")
        );
        assert_eq!((f.value, f.unit), (200.0, Unit::Added("MB/s per job")));
        assert_eq!(f.kind, FigureKind::Added(RUN_SPREAD));
        assert_eq!(f.trials.len(), 2);
        assert_eq!(
            f.method,
            Some(Method::Version("work v1, zstd 1.6.0".into()))
        );
        let l = facts[n - 1].figure().expect("a figure");
        assert_eq!((l.label.as_str(), l.value), ("1 GiB", 266.0));
        assert_eq!(l.unit.to_string(), "ns per load");
    }

    #[test]
    fn figures_are_judged_with_their_trials() {
        let v = "work v1, zstd 1.6.0";
        let a = input("a", v, &[200.0, 203.0, 198.0, 201.0, 199.0, 202.0], 266.0);
        for (mb, verdict) in [
            ([400.0, 405.0, 398.0, 402.0, 399.0, 401.0], Verdict::Better),
            ([100.0, 101.0, 99.0, 100.5, 99.5, 100.2], Verdict::Worse),
            ([201.0, 199.0, 202.0, 200.0, 198.5, 201.5], Verdict::Equal),
        ] {
            let b = input("b", v, &mb, 266.0);
            let rows = rows(&[a.clone(), b], 1);
            assert_eq!(rows.len(), 2, "{rows:?}");
            assert_eq!(rows[0].verdicts[1], verdict, "{:?}", rows[0].judged);
        }
    }

    #[test]
    fn two_workload_versions_are_not_comparable() {
        let a = input("a", "work v1, zstd 1.6.0", &[200.0, 201.0, 199.0], 266.0);
        let b = input("b", "work v1, zstd 1.5.7", &[200.0, 201.0, 199.0], 266.0);
        let rows = rows(&[a, b], 1);
        let Verdict::NotComparable { why } = &rows[0].verdicts[1] else {
            panic!("{:?}", rows[0].verdicts);
        };
        assert_eq!(
            why,
            "work v1, zstd 1.6.0 against work v1, zstd 1.5.7: other workload versions"
        );
        // The latency, of one chase version, is judged.
        assert!(!matches!(
            rows[1].verdicts[1],
            Verdict::NotComparable { .. }
        ));
    }

    #[test]
    fn trials_a_mark_distorted_are_left_out() {
        let v = "work v1, zstd 1.6.0";
        let a = input("a", v, &[200.0, 203.0, 198.0], 266.0);
        let mut b = input("b", v, &[100.0, 101.0, 99.0], 266.0).report;
        for t in &mut b.cpu_work[0].timed.trials {
            t.marks = vec![crate::conditions::Mark::Steal { percent: 30.0 }];
        }
        let rows = rows(&[a, Input::new(String::from("b.json"), b)], 1);
        assert!(
            matches!(rows[0].verdicts[1], Verdict::Distorted { .. }),
            "{:?}",
            rows[0].verdicts
        );
    }
}
