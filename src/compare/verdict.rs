//! Verdicts: one side's figure or line against the reference side's.
//!
//! Why each case reads as it does: docs/METHOD.md "Compare's verdicts, case
//! by case".

use std::collections::HashMap;

use serde::Serialize;

use super::fact::{Better, Figure, FigureKind, Method, Unit};
use crate::conditions::MarkKind;
use crate::stats::{
    judge_all, Call, Family, FigureInput, Judgement, OutOfReach, RatioInterval, RunFloor,
    RunsNeeded, Spread, TrialValue,
};

/// The practical margin: differences within it read as equal.
pub const EQUAL_WITHIN: f64 = crate::stats::verdict::DEFAULT_MARGIN;

/// The run-to-run coefficient of variation assumed for a kind of figure
/// when a side has only 1 or 2 trials of it (with 3 or more, it is
/// measured), and where the value comes from.
///
/// Why one value per kind, and how each was measured (2-vCPU KVM guests):
/// docs/METHOD.md "Assumed run-to-run spreads, per kind of figure".
///
/// An added section's figure (`crate::sections::AddedFigure`) says its own
/// (`sections::RunSpread`).
pub fn assumed_run_cv(kind: FigureKind) -> f64 {
    match kind {
        FigureKind::CpuLoop => 0.12,
        FigureKind::Memory => 0.05,
        FigureKind::Storage4k => 0.20,
        FigureKind::Storage1M | FigureKind::Latency => 0.40,
        FigureKind::Added(s) => s.assumed_cv,
        FigureKind::Tenancy => TENANCY_RUN_CV,
    }
}

/// The run-to-run spread of the time a core was not shared, assumed and
/// as a floor: consecutive reports of one host read 46-98 % (the other
/// tenant comes and goes for seconds at a time), so one report a side
/// tells a host always shared from one never shared, not 60 % from 80 %.
/// Measurements: benches/README.md "Shared cores".
pub const TENANCY_RUN_CV: f64 = 0.5;

/// The run-to-run floor of a kind of figure: the spread between runs
/// that the trials of one run do not show, added to a side's measured
/// spread over its number of reports (`stats::verdict::RunFloor`) when a
/// side has fewer than three (three a side measure it). The
/// trials of one run share its benchmark file (where the filesystem put
/// it, how much of it the page cache holds), the writeback state of the
/// device and the device's moment; a 1M line's trials agree within a few
/// percent while the next run's sit elsewhere.
///
/// Measurements: docs/METHOD.md "Run-to-run floors, per kind of figure".
///
/// An added section's figure says its own floor, 0 unless its section
/// says otherwise (`sections::RunSpread`).
pub fn run_floor_cv(kind: FigureKind) -> f64 {
    match kind {
        FigureKind::Storage1M => 0.07,
        FigureKind::CpuLoop | FigureKind::Memory | FigureKind::Storage4k | FigureKind::Latency => {
            0.0
        }
        FigureKind::Added(s) => s.floor_cv,
        FigureKind::Tenancy => TENANCY_RUN_CV,
    }
}

/// Every kind of figure with samples, in report order, with its name for
/// the legend (the latency percentiles have none).
pub const KINDS: [(FigureKind, &str); 5] = [
    (FigureKind::CpuLoop, "CPU loop"),
    (FigureKind::Memory, "memory"),
    (FigureKind::Tenancy, "time not shared"),
    (FigureKind::Storage4k, "4k lines"),
    (FigureKind::Storage1M, "1M lines"),
];

/// The verdict on one side's figure or line, against the first side.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// The first side: what the others are compared with.
    Reference,
    /// The whole interval of B/A within ±5 % (≈); on the fixed band, the
    /// ratio within ±5 %.
    Equal,
    /// The whole interval beyond 5 %, in the figure's better direction.
    Better,
    /// The whole interval beyond 5 %, in the worse direction.
    Worse,
    /// The interval straddles a bound of the margin (~): more runs decide.
    Inconclusive,
    /// Every trial of a side was marked busy, steal or other I/O: the
    /// figure reads what ran beside it, not the host (~).
    Distorted {
        /// The marks, in words (`busy`, `busy, other I/O`).
        why: String,
        /// The figure over the reference's, as measured (`null` when
        /// either is zero), shown, not judged.
        ratio: Option<f64>,
    },
    /// An information line, the same as the first side's.
    Same,
    /// An information line that differs.
    Different,
    /// No ratio: it would mislead.
    NotComparable {
        /// Why.
        why: String,
    },
    /// The line is not in this side (or not in the first one).
    Missing,
    /// Not judged: the output asked for shows no verdict of this pair
    /// (the fleet table, the fleet page). Never in the `--json` document,
    /// which judges every pair.
    NotJudged,
}

/// How much of a pair's judgement the chosen output shows: compare
/// computes that, nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// No verdict (the fleet table and page): how each figure would be
    /// judged ([`crate::stats::spread_of`]), for the legend.
    KeyFigures,
    /// The verdicts and their intervals (the text, the page of two
    /// sides), without the bootstrap interval beside them.
    Verdicts,
    /// Everything, the bootstrap interval included (the `--json`
    /// document).
    Full,
}

/// How a figure was judged: the statistics behind its verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged {
    /// Trials of the reference side (A).
    pub n_a: usize,
    /// Trials of this side (B).
    pub n_b: usize,
    /// The point estimate of B/A.
    pub ratio: f64,
    /// The interval of B/A the verdict reads (`null` on the fixed band,
    /// and when the trials cannot reach the level: see `out_of_reach`).
    pub interval: Option<RatioInterval>,
    /// The level this figure needed, out of reach of its trials a side,
    /// and the trials a side that reach it.
    pub out_of_reach: Option<OutOfReach>,
    /// The margin: within ±`margin` of 1 is equal.
    pub margin: f64,
    /// What the interval knows of the run-to-run spread: `measured` (3 or
    /// more trials a side), `measured_with_floor` (and a run-to-run floor
    /// added), `within_run_only` (assumed), `none` (the fixed band: no
    /// samples).
    pub spread: Spread,
    /// The p-value of "B/A lies beyond the margin" (`null`: fixed band).
    pub p_value: Option<f64>,
    /// That p-value adjusted over the pair's figures (Benjamini–Hochberg).
    pub p_adjusted: Option<f64>,
    /// For an inconclusive figure: the runs a side that would decide.
    pub runs_needed: Option<RunsNeeded>,
    /// Trials of the reference side left out, distorted (busy, steal or
    /// other I/O): `n_a` counts the others.
    pub left_out_a: usize,
    /// Trials of this side left out, distorted.
    pub left_out_b: usize,
    /// The percentile bootstrap interval of median(B)/median(A) at the same
    /// level (3 or more trials a side; shown, not used by the verdict).
    pub bootstrap: Option<(f64, f64)>,
    /// The verdict as the text shows it: `≈ x1.03 [0.99, 1.07]`.
    pub words: String,
}

/// One side's view of a line: the facts of its reports merged.
#[derive(Debug, Clone)]
pub struct SideFact {
    /// The figure's direction and unit, for a figure.
    pub figure: Option<(Better, Unit)>,
    /// The figure's kind.
    pub kind: Option<FigureKind>,
    /// The figure: the report's, or the median of the side's reports'.
    pub value: Option<f64>,
    /// As printed (a figure of several reports: their median).
    pub text: String,
    /// The marks of every report of the side, each once.
    pub marks: Vec<String>,
    /// Why the side's reports do not add up to one figure (a line cut
    /// short in one of them, two loop definitions), if they do not.
    pub conflict: Option<String>,
    /// The method all its reports share.
    pub method: Option<Method>,
    /// Every trial of the figure in the side that nothing distorted.
    pub trials: Vec<TrialValue>,
    /// The distorting mark of each trial left out.
    pub left_out: Vec<MarkKind>,
    /// The measurement the figure is one form of ([`Figure::measure`]).
    pub measure: Option<String>,
    /// The side's reports that have the figure: its runs.
    pub runs: usize,
}

/// Why two sides' figures cannot be compared, if they cannot.
fn comparable(a: &SideFact, b: &SideFact) -> Option<String> {
    if let Some(why) = a.conflict.as_ref().or(b.conflict.as_ref()) {
        return Some(why.clone());
    }
    if a.method != b.method {
        return Some(match (&a.method, &b.method) {
            (Some(Method::BashQueueTime), _) | (_, Some(Method::BashQueueTime)) => {
                "the bash original's latency column is queue time per I/O, not a latency".into()
            }
            (Some(Method::Version(x)), Some(Method::Version(y))) => {
                format!("{x} against {y}: other workload versions")
            }
            (Some(x), Some(y)) => format!("{x} against {y}: other loop definitions"),
            _ => "measured differently".into(),
        });
    }
    None
}

/// Why a side's facts do not make one figure: a line that did not run its
/// whole time in one of its reports (load and cache marks are shown
/// beside the figures; a line cut short or stopped has no figure), or
/// methods that differ within the side.
pub fn conflict(figures: &[&Figure]) -> Option<String> {
    if let Some(how) = figures.iter().find_map(|f| f.end.text()) {
        return Some(format!("a line {how}"));
    }
    if figures.iter().any(|f| f.method != figures[0].method) {
        return Some("measured differently within a side".into());
    }
    None
}

/// The verdicts of side `b` against side `a` (the reference) on every
/// line: `lines[i]` holds the two sides' views of line i. All the
/// figures that compare are judged together, one family.
pub fn judge_pair(
    lines: &[(Option<&SideFact>, Option<&SideFact>)],
    detail: Detail,
) -> Vec<(Verdict, Option<Judged>)> {
    let (mut out, family, slot) = family_of(lines);
    let family_rule = Family {
        bootstrap_resamples: if detail == Detail::Full {
            Family::default().bootstrap_resamples
        } else {
            0
        },
        ..Family::default()
    };
    for (i, j) in slot.into_iter().zip(judge_all(&family, &family_rule)) {
        out[i] = judged(lines[i], j);
    }
    out
}

/// How each figure of the pair that would be judged would be read
/// ([`Spread`]), without judging any: for the legend of an output that
/// shows no verdict, with the index of its line.
pub fn spreads_of_pair(lines: &[(Option<&SideFact>, Option<&SideFact>)]) -> Vec<(usize, Spread)> {
    let (_, family, slot) = family_of(lines);
    family
        .iter()
        .zip(slot)
        .filter_map(|(f, line)| Some((line, crate::stats::spread_of(f).ok()?)))
        .collect()
}

/// A pair's lines sorted out: the verdict of each line that needs no
/// judgement (missing, information, not comparable, distorted, zero),
/// `Verdict::Missing` in the place of the others; the figures to judge
/// as one family, and the line each is.
#[allow(clippy::type_complexity)]
fn family_of(
    lines: &[(Option<&SideFact>, Option<&SideFact>)],
) -> (Vec<(Verdict, Option<Judged>)>, Vec<FigureInput>, Vec<usize>) {
    let mut out: Vec<(Verdict, Option<Judged>)> = Vec::with_capacity(lines.len());
    let mut family: Vec<FigureInput> = Vec::new();
    let mut slot: Vec<usize> = Vec::new();
    // The family's first figure of each measurement printed several ways.
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    for (i, (a, b)) in lines.iter().enumerate() {
        let (Some(a), Some(b)) = (a, b) else {
            out.push((Verdict::Missing, None));
            continue;
        };
        let Some((better, _)) = b.figure.or(a.figure) else {
            let v = if a.text == b.text {
                Verdict::Same
            } else {
                Verdict::Different
            };
            out.push((v, None));
            continue;
        };
        if let Some(why) = comparable(a, b) {
            out.push((Verdict::NotComparable { why }, None));
            continue;
        }
        if a.trials.is_empty() && !a.left_out.is_empty()
            || b.trials.is_empty() && !b.left_out.is_empty()
        {
            let ratio = match (a.value, b.value) {
                (Some(x), Some(y)) if x > 0.0 && y > 0.0 => Some(y / x),
                _ => None,
            };
            out.push((
                Verdict::Distorted {
                    why: kind_words(a, b, ", "),
                    ratio,
                },
                None,
            ));
            continue;
        }
        let positive = |t: &[TrialValue]| {
            !t.is_empty() && t.iter().all(|t| t.value.is_finite() && t.value > 0.0)
        };
        if positive(&a.trials) && positive(&b.trials) {
            let cv = b.kind.or(a.kind).map_or(0.10, assumed_run_cv);
            // Three reports a side measure the run-to-run spread in their
            // trials; fewer get the kind's floor.
            let floor = if a.runs.min(b.runs) >= crate::stats::verdict::MEASURED_FROM {
                0.0
            } else {
                b.kind.or(a.kind).map_or(0.0, run_floor_cv)
            };
            let mut input = FigureInput::new(better, cv, a.trials.clone(), b.trials.clone())
                .with_run_floor(RunFloor {
                    cv: floor,
                    runs_a: a.runs,
                    runs_b: b.runs,
                });
            if let Some(measure) = b
                .measure
                .as_deref()
                .filter(|m| a.measure.as_deref() == Some(m))
            {
                match first_of.get(measure) {
                    Some(&k) => input = input.following(k),
                    None => {
                        first_of.insert(measure, family.len());
                    }
                }
            }
            family.push(input);
            slot.push(i);
            out.push((Verdict::Missing, None));
        } else {
            out.push((zero(a.value, b.value), None));
        }
    }
    (out, family, slot)
}

/// The verdict of one judged line of a pair.
fn judged(
    (a, b): (Option<&SideFact>, Option<&SideFact>),
    j: Result<Judgement, crate::stats::Unjudgeable>,
) -> (Verdict, Option<Judged>) {
    let (a, b) = (a.expect("a judged line"), b.expect("a judged line"));
    match j {
        Ok(j) => {
            let v = verdict_of(&j);
            let mut words = words(&v, &j);
            let left_out = a.left_out.len() + b.left_out.len();
            if left_out > 0 {
                words.push_str(&format!(
                    " ({left_out} {} trial{} left out)",
                    kind_words(a, b, "/"),
                    if left_out == 1 { "" } else { "s" }
                ));
            }
            (
                v,
                Some(Judged {
                    n_a: a.trials.len(),
                    n_b: b.trials.len(),
                    ratio: j.ratio,
                    interval: j.interval,
                    out_of_reach: j.out_of_reach,
                    margin: EQUAL_WITHIN,
                    spread: j.spread,
                    p_value: j.p_value,
                    p_adjusted: j.p_adjusted,
                    runs_needed: j.runs_needed,
                    left_out_a: a.left_out.len(),
                    left_out_b: b.left_out.len(),
                    bootstrap: j.bootstrap,
                    words,
                }),
            )
        }
        Err(e) => (
            Verdict::NotComparable {
                why: e.why.to_string(),
            },
            None,
        ),
    }
}

/// The marks of the trials two sides left out, each once, in words
/// joined by `sep` (`busy, other I/O`).
fn kind_words(a: &SideFact, b: &SideFact, sep: &str) -> String {
    let mut kinds: Vec<MarkKind> = Vec::new();
    for &k in a.left_out.iter().chain(&b.left_out) {
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    let words: Vec<&str> = kinds.iter().map(|k| k.word()).collect();
    words.join(sep)
}

/// A figure that is zero in a side: equal when both are, else no ratio.
fn zero(a: Option<f64>, b: Option<f64>) -> Verdict {
    match (a, b) {
        (Some(x), Some(y)) if x == y => Verdict::Equal,
        _ => Verdict::NotComparable {
            why: "a zero figure has no ratio".into(),
        },
    }
}

fn verdict_of(j: &Judgement) -> Verdict {
    match j.call {
        Call::Better => Verdict::Better,
        Call::Worse => Verdict::Worse,
        Call::Same => Verdict::Equal,
        Call::Inconclusive => Verdict::Inconclusive,
    }
}

/// `x1.03`; `x1.0e19` for a ratio too large to print in a fixed width.
pub fn ratio_text(r: f64) -> String {
    format!("x{}", bounded(r, 2))
}

/// `v` with `decimals` decimals while that takes at most 7 characters
/// (below 10^(6 - decimals): 9999.99, 999999), else in e-notation with
/// one decimal (`1.0e19`): a figure that reads prints in a bounded width
/// whatever its size.
pub fn bounded(v: f64, decimals: usize) -> String {
    if v.abs() < 10f64.powi(6 - decimals as i32) || !v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        format!("{v:.1e}")
    }
}

/// The verdict in words: `≈ x1.03 [0.99, 1.07]`, `x1.12 [1.08, 1.17]
/// better`, `~ x1.08 [0.93, 1.25] 4 runs a side would decide`; on the
/// fixed band, `≈ x1.03`, `x1.08 better`.
fn words(v: &Verdict, j: &Judgement) -> String {
    let mut r = ratio_text(j.ratio);
    if let (Some(o), Spread::Measured { n_a, n_b }) = (&j.out_of_reach, j.spread) {
        let sides = if n_a == n_b {
            format!("{n_a} trials a side")
        } else {
            format!("{n_a} and {n_b} trials")
        };
        return format!(
            "~ {r}, {sides} cannot reach the {:.1} % this family needs: {} would",
            o.level * 100.0,
            o.trials_needed
        );
    }
    if let Some(i) = &j.interval {
        r.push_str(&format!(" [{}, {}]", bounded(i.lo, 2), bounded(i.hi, 2)));
    }
    match v {
        Verdict::Equal => format!("\u{2248} {r}"),
        Verdict::Better => format!("{r} better"),
        Verdict::Worse => format!("{r} worse"),
        _ => match j.runs_needed {
            Some(RunsNeeded::PerSide { runs, .. }) => {
                format!("~ {r} {runs} runs a side would decide")
            }
            Some(RunsNeeded::MoreThan { runs, .. }) => {
                format!("~ {r} more than {runs} runs a side would decide")
            }
            _ => format!("~ {r} cannot decide"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::fact::RowSection;
    use crate::end::End;

    fn side(values: &[f64], better: Better, kind: FigureKind) -> SideFact {
        SideFact {
            figure: Some((better, Unit::IoPerSecond)),
            kind: Some(kind),
            value: values.first().copied(),
            text: format!("{}", values[0]),
            marks: Vec::new(),
            conflict: None,
            method: None,
            trials: values.iter().map(|&v| TrialValue::value(v)).collect(),
            left_out: Vec::new(),
            measure: None,
            // Each value a report's figure.
            runs: values.len(),
        }
    }

    fn one(a: &SideFact, b: &SideFact) -> (Verdict, Option<Judged>) {
        judge_pair(&[(Some(a), Some(b))], Detail::Full)
            .pop()
            .unwrap()
    }

    #[test]
    fn ratios_print_in_a_bounded_width_whatever_their_size() {
        assert_eq!(ratio_text(1.034), "x1.03");
        assert_eq!(ratio_text(9999.994), "x9999.99");
        assert_eq!(ratio_text(396_039_603_960_396.3), "x4.0e14");
        assert_eq!(ratio_text(1.8e19), "x1.8e19");
        assert_eq!(ratio_text(1e-17), "x0.00");
        assert_eq!(bounded(1500.0, 0), "1500");
        assert_eq!(bounded(2.5e7, 0), "2.5e7");
        for r in [1e3, 1e6, 1e9, 1e12, 1.8e19] {
            assert!(ratio_text(r).chars().count() <= 8, "{}", ratio_text(r));
        }
    }

    #[test]
    fn without_samples_the_fixed_band_and_directions() {
        let k = FigureKind::CpuLoop;
        let f = |v: f64, b| side(&[v], b, k);
        let h = Better::Higher;
        assert_eq!(one(&f(100.0, h), &f(105.0, h)).0, Verdict::Equal);
        assert_eq!(one(&f(100.0, h), &f(94.0, h)).0, Verdict::Worse);
        let (v, j) = one(&f(100.0, h), &f(106.0, h));
        assert_eq!(v, Verdict::Better);
        let j = j.unwrap();
        assert_eq!(j.spread, Spread::None);
        assert_eq!(j.interval, None);
        assert_eq!(j.words, "x1.06 better");
        let l = Better::Lower;
        assert_eq!(one(&f(100.0, l), &f(80.0, l)).0, Verdict::Better);
        assert_eq!(one(&f(100.0, l), &f(120.0, l)).0, Verdict::Worse);
        // zeros: equal when both are, else no ratio
        assert_eq!(one(&f(0.0, l), &f(0.0, l)).0, Verdict::Equal);
        assert!(matches!(
            one(&f(0.0, h), &f(5.0, h)).0,
            Verdict::NotComparable { .. }
        ));
    }

    fn sampled(kind: FigureKind, value: f64, samples: &[f64]) -> SideFact {
        let mut s = side(&[value], Better::Higher, kind);
        s.trials = vec![TrialValue::with_samples(value, samples)];
        s
    }

    #[test]
    fn one_run_a_side_does_not_call_a_disks_own_swing() {
        // Two back-to-back runs of `quickbench 1 --only io` on one virtio
        // disk (ext4), 1M reads, 1 job: MB/s and its 100 ms samples (IO/s).
        // The disk served the second run three times as fast, steadily
        // within it: nothing changed, so it must not read better.
        let a = sampled(
            FigureKind::Storage1M,
            1043.8,
            &[
                988., 824., 912., 1021., 1011., 1051., 1042., 1031., 1032., 1046.,
            ],
        );
        let b = sampled(
            FigureKind::Storage1M,
            3123.5,
            &[
                3158., 2741., 2786., 2854., 3104., 2866., 2973., 3165., 3074., 3069.,
            ],
        );
        let (v, j) = one(&a, &b);
        let j = j.unwrap();
        assert_eq!(v, Verdict::Inconclusive, "{}", j.words);
        assert!(matches!(j.spread, Spread::WithinRunOnly { .. }), "{j:?}");
        // A tenfold gap (a disk against an SSD) is past any such swing.
        let scale = |s: &SideFact, k: f64| {
            let v: Vec<f64> = [
                3158., 2741., 2786., 2854., 3104., 2866., 2973., 3165., 3074., 3069.,
            ]
            .iter()
            .map(|x| x * k)
            .collect();
            sampled(FigureKind::Storage1M, s.value.unwrap() * k, &v)
        };
        let (v, j) = one(&a, &scale(&b, 10.0 / 3.0));
        assert_eq!(v, Verdict::Better, "{}", j.unwrap().words);
        // The same swing on a CPU loop step (assumed 12 %) is a verdict:
        // the wider spread is the storage kinds', not every figure's.
        let (ca, cb) = (
            SideFact {
                kind: Some(FigureKind::CpuLoop),
                ..a.clone()
            },
            SideFact {
                kind: Some(FigureKind::CpuLoop),
                ..b.clone()
            },
        );
        assert_eq!(one(&ca, &cb).0, Verdict::Better);
    }

    #[test]
    fn five_trials_a_side_give_an_interval_and_a_verdict() {
        let k = FigureKind::Storage4k;
        let a = side(&[100.0, 103.0, 98.0, 101.0, 99.5], Better::Higher, k);
        let b = side(&[120.0, 123.0, 118.0, 121.0, 119.5], Better::Higher, k);
        let (v, j) = one(&a, &b);
        assert_eq!(v, Verdict::Better);
        let j = j.unwrap();
        assert_eq!((j.n_a, j.n_b), (5, 5));
        assert_eq!(j.spread, Spread::Measured { n_a: 5, n_b: 5 });
        let i = j.interval.unwrap();
        assert!(i.lo > 1.05 && i.lo <= j.ratio && j.ratio <= i.hi, "{j:?}");
        assert!(
            j.words.ends_with("better") && j.words.contains('['),
            "{}",
            j.words
        );
        // a wide spread straddling the margin: ~ and the runs that decide
        let a = side(&[100.0, 90.0, 110.0, 95.0, 105.0], Better::Higher, k);
        let b = side(&[112.0, 99.0, 125.0, 104.0, 118.0], Better::Higher, k);
        let (v, j) = one(&a, &b);
        assert_eq!(v, Verdict::Inconclusive);
        assert!(j.unwrap().words.starts_with("~ x1.1"));
    }

    #[test]
    fn a_level_out_of_reach_is_said_in_words_not_shown_narrower() {
        // 3 trials a side, 20 % apart, and 14 other figures that did not
        // move: the family asks 1 - 0.05/15 of each, which 3 trials a side
        // (at most 90 %) cannot reach; no 90 % interval is printed.
        let k = FigureKind::CpuLoop;
        let h = Better::Higher;
        let a = side(&[100.0, 101.0, 99.0], h, k);
        let b = side(&[80.0, 80.5, 79.5], h, k);
        let still = side(&[100.0, 101.0, 99.0], h, k);
        let mut lines = vec![(Some(&a), Some(&b))];
        lines.extend(std::iter::repeat_n((Some(&still), Some(&still)), 14));
        let (v, j) = judge_pair(&lines, Detail::Verdicts).swap_remove(0);
        let j = j.unwrap();
        assert_eq!(v, Verdict::Inconclusive);
        assert_eq!(j.interval, None, "{j:?}");
        let o = j.out_of_reach.unwrap();
        assert!((o.level - (1.0 - 0.05 / 15.0)).abs() < 1e-12, "{o:?}");
        assert!((o.achievable - 0.9).abs() < 1e-12, "{o:?}");
        assert_eq!(o.trials_needed, 6);
        assert_eq!(
            j.words,
            "~ x0.80, 3 trials a side cannot reach the 99.7 % this family needs: 6 would"
        );
        // 6 trials a side reach it, and read the 20 % as worse.
        let a = side(&[100.0, 101.0, 99.0, 100.5, 99.5, 100.2], h, k);
        let b = side(&[80.0, 80.5, 79.5, 80.2, 79.8, 80.1], h, k);
        let still = side(&[100.0, 101.0, 99.0, 100.5, 99.5, 100.2], h, k);
        let mut lines = vec![(Some(&a), Some(&b))];
        lines.extend(std::iter::repeat_n((Some(&still), Some(&still)), 14));
        let (v, j) = judge_pair(&lines, Detail::Verdicts).swap_remove(0);
        let j = j.unwrap();
        assert_eq!(v, Verdict::Worse, "{}", j.words);
        assert!(j.out_of_reach.is_none() && j.interval.is_some());
    }

    #[test]
    fn distorted_trials_are_left_out_and_a_side_of_none_reads_distorted() {
        let k = FigureKind::CpuLoop;
        let h = Better::Higher;
        // one trial a side, B's marked busy: no verdict, the ratio shown
        let a = side(&[100.0], h, k);
        let mut b = side(&[60.0], h, k);
        b.trials.clear();
        b.left_out = vec![MarkKind::Busy];
        let (v, j) = one(&a, &b);
        assert_eq!(
            v,
            Verdict::Distorted {
                why: "busy".into(),
                ratio: Some(0.6)
            }
        );
        assert!(j.is_none());
        // both sides left with none, two kinds: each named once
        let mut a2 = a.clone();
        a2.trials.clear();
        a2.left_out = vec![MarkKind::OtherIo, MarkKind::Busy];
        match one(&a2, &b).0 {
            Verdict::Distorted { why, .. } => assert_eq!(why, "other I/O, busy"),
            v => panic!("{v:?}"),
        }
        // five clean trials a side and two busy ones in B: judged on the
        // clean ones, the others counted and named
        let a = side(&[100.0, 103.0, 98.0, 101.0, 99.5], h, k);
        let mut b = side(&[120.0, 123.0, 118.0, 121.0, 119.5], h, k);
        b.left_out = vec![MarkKind::Busy, MarkKind::Busy];
        let (v, j) = one(&a, &b);
        assert_eq!(v, Verdict::Better);
        let j = j.unwrap();
        assert_eq!((j.n_a, j.n_b, j.left_out_a, j.left_out_b), (5, 5, 0, 2));
        assert!(
            j.words.ends_with(" better (2 busy trials left out)"),
            "{}",
            j.words
        );
        // a throttled or cached trial is the host as configured: kept
        assert!(!MarkKind::Throttled.distorts() && !MarkKind::Cached.distorts());
    }

    #[test]
    fn the_judge_reads_the_types_not_the_words() {
        let f = |v: f64| side(&[v], Better::Higher, FigureKind::CpuLoop);
        let why = |a: &SideFact, b: &SideFact| match one(a, b).0 {
            Verdict::NotComparable { why } => Some(why),
            _ => None,
        };
        let fact = |end: End| Figure {
            end,
            ..Figure::new(
                RowSection::CpuLoop,
                "x",
                (Better::Higher, Unit::IoPerSecond, FigureKind::CpuLoop),
                100.0,
                "100".into(),
            )
        };
        // A stopped line, whatever its marks say.
        let stopped = fact(End::Stopped {
            error: "/d: read at offset 0: EIO".into(),
            errno: Some(libc::EIO),
            interrupted: false,
        });
        assert_eq!(
            conflict(&[&stopped]).as_deref(),
            Some("a line stopped: EIO")
        );
        let cut = fact(End::Interrupted);
        assert_eq!(
            conflict(&[&fact(End::Complete), &cut]).as_deref(),
            Some("a line interrupted")
        );
        // A complete line: nothing to say.
        assert_eq!(conflict(&[&fact(End::Complete)]), None);
        let mut s = f(100.0);
        s.conflict = conflict(&[&cut]);
        assert_eq!(why(&f(100.0), &s).as_deref(), Some("a line interrupted"));
        // Methods.
        let with = |m: Method| SideFact {
            method: Some(m),
            ..f(100.0)
        };
        assert!(why(
            &with(Method::CompletionLatency),
            &with(Method::BashQueueTime)
        )
        .unwrap()
        .contains("not a latency"));
        assert_eq!(
            why(&with(Method::Loop(1)), &with(Method::Loop(2))).as_deref(),
            Some("loop v1 against loop v2: other loop definitions")
        );
        assert_eq!(
            one(&with(Method::Loop(1)), &with(Method::Loop(1))).0,
            Verdict::Equal
        );
    }
}
