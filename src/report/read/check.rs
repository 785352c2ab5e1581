//! A JSON report checked once, where it is read, into its types: serde
//! takes the shapes (a size is a whole number, a rate a number), this
//! takes what no run can write. A rate that is negative, not finite or
//! beyond what its printed form holds; an index (`median_trial`) outside
//! its list; trials that disagree with `repeat`. The error names the JSON
//! path of the field (`cpu_loop[0].trials[1].loops_per_s_mean`) and what
//! was expected, as the text reader names a line; nothing after the
//! reader meets such a value (compare never prints a 300-digit figure).

use std::fmt::Display;

use crate::model::trials::{Repeated, RoundTrial};
use crate::model::Report;
use crate::samples::Samples;

/// The largest figure a report holds: the text prints rates, sizes and
/// latencies as whole numbers in a `u64` (a 4k line's IO/s, loops per
/// second), so a figure at or beyond 2^64 has no printed form. No
/// machine comes near (a CPU loop runs ~10^9 loops/s, a RAM disk ~10^7
/// IO/s).
const MOST: f64 = u64::MAX as f64;

/// What is wrong, and where: the JSON path of the field and the message.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// `cpu_loop[0].loops_per_s_mean`.
    pub path: String,
    /// What it holds and what was expected.
    pub message: String,
}

/// Checks a report read from JSON.
pub fn check(r: &Report) -> Result<(), Invalid> {
    let mut c = Check::default();
    if let Some(d) = r.loop_delay_s {
        c.at("loop_delay_s", |c| c.positive(d));
    }
    if r.repeat == 0 {
        c.fail(
            "repeat",
            "is 0: expected the trials of each step, 1 or more",
        );
    }
    // A Ctrl-C or an error ends the rounds early: steps then hold fewer
    // trials than asked, and say how they ended.
    let cut = r.cpu_loop.iter().any(|s| !s.end.is_complete())
        || r.memory
            .iter()
            .flat_map(|m| &m.dd_bandwidth)
            .any(|b| !b.end.is_complete())
        || r.storage_bandwidth.iter().any(|l| !l.end.is_complete());
    let trials = Trials {
        repeat: r.repeat,
        per_step: r.trials_per_step(),
        cut,
        budget: r.budget_s.is_some(),
    };
    for (i, s) in r.cpu_loop.iter().enumerate() {
        c.at(&format!("cpu_loop[{i}]"), |c| {
            c.repeated(s, trials, |c, t| {
                c.at("loops_per_s_mean", |c| c.rate(t.loops_per_s_mean));
                for (j, &v) in t.loops_per_s_each.iter().enumerate() {
                    c.at(&format!("loops_per_s_each[{j}]"), |c| c.rate(v));
                }
                c.samples(&t.samples);
            })
        });
    }
    if let Some(b) = r.memory.as_ref().and_then(|m| m.dd_bandwidth.as_ref()) {
        c.at("memory.dd_bandwidth", |c| {
            c.repeated(b, trials, |c, t| {
                if t.bytes > 0 && t.elapsed_ns == 0 {
                    c.fail(
                        "elapsed_ns",
                        format!(
                            "is 0 with {} bytes copied: expected the time the copy took, above 0",
                            t.bytes
                        ),
                    );
                } else if t.bytes_per_s() >= MOST {
                    c.fail(
                        "bytes",
                        format!(
                            "is {} over {} ns, {} bytes/s: expected a rate below 2^64",
                            t.bytes,
                            t.elapsed_ns,
                            shown(t.bytes_per_s())
                        ),
                    );
                }
                c.samples(&t.samples);
            })
        });
    }
    for (i, l) in r.storage_bandwidth.iter().enumerate() {
        c.at(&format!("storage_bandwidth[{i}]"), |c| {
            c.repeated(l, trials, |c, t| {
                for (name, v) in [
                    ("mb_per_s", t.mb_per_s),
                    ("iops", t.iops),
                    ("lat_mean_us", t.lat_mean_us),
                    ("lat_p50_us", t.lat_p50_us),
                    ("lat_p90_us", t.lat_p90_us),
                    ("lat_p99_us", t.lat_p99_us),
                    ("lat_p999_us", t.lat_p999_us),
                    ("lat_max_us", t.lat_max_us),
                ] {
                    c.at(name, |c| c.rate(v));
                }
                c.samples(&t.samples);
            })
        });
    }
    if let Some(x) = &r.extended {
        if let Some(ratio) = x.smt_contention.as_ref().and_then(|p| p.ratio) {
            c.at("extended.smt_probe.ratio", |c| c.rate(ratio));
        }
        if let Some(d) = &x.dram {
            let runs =
                std::iter::once(("single", &d.single)).chain(d.all.iter().map(|a| ("all", a)));
            for (name, run) in runs {
                c.at(&format!("extended.dram.{name}"), |c| {
                    c.at("copy_gb_per_s", |c| c.rate(run.copy_gb_per_s));
                    c.at("triad_gb_per_s", |c| c.rate(run.triad_gb_per_s));
                });
            }
        }
    }
    c.first.map_or(Ok(()), Err)
}

/// What a step's trials must agree with.
#[derive(Debug, Clone, Copy)]
struct Trials {
    /// `repeat`: the rounds asked for.
    repeat: u32,
    /// The trials each step was asked for: `repeat` rounds of
    /// `trials_per_delay`.
    per_step: u32,
    /// Some step did not run its whole time: the rounds may have ended
    /// early.
    cut: bool,
    /// `--budget` added trials after the first pass: a step may hold more
    /// than asked, up to the budget's most a step.
    budget: bool,
}

/// The path being checked and the first fault found.
#[derive(Default)]
struct Check {
    path: Vec<String>,
    first: Option<Invalid>,
}

impl Check {
    /// Checks under `name` (`cpu_loop[0]`, `iops`).
    fn at(&mut self, name: &str, f: impl FnOnce(&mut Check)) {
        if self.first.is_some() {
            return;
        }
        self.path.push(name.to_string());
        f(self);
        self.path.pop();
    }

    fn fail(&mut self, name: &str, message: impl Into<String>) {
        if self.first.is_none() {
            let mut path = self.path.join(".");
            if !name.is_empty() {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(name);
            }
            self.first = Some(Invalid {
                path,
                message: message.into(),
            });
        }
    }

    /// A rate, size or latency: finite, 0 or more, below 2^64.
    fn rate(&mut self, v: f64) {
        if !is_figure(v) {
            self.fail(
                "",
                format!(
                    "is {}: expected a figure from 0 to below 2^64 (about 1.8e19)",
                    shown(v)
                ),
            );
        }
    }

    /// A duration or delay: finite, above 0, below 2^64.
    fn positive(&mut self, v: f64) {
        if !(v.is_finite() && v > 0.0 && v < MOST) {
            self.fail(
                "",
                format!("is {}: expected a number of seconds above 0", shown(v)),
            );
        }
    }

    fn samples(&mut self, s: &Samples) {
        // The path is made for the bad sample only: a fleet's reports
        // hold thousands of good ones.
        if let Some(k) = s.samples.iter().position(|&v| !is_figure(v)) {
            self.at(&format!("samples[{k}]"), |c| c.rate(s.samples[k]));
        }
        // compare reads the stored summary, not one of its own: it must
        // at least be a summary of as many samples as are listed.
        if let Some(sum) = &s.sample_summary {
            let listed = s.samples.len();
            if listed > 0 && sum.n != listed {
                self.fail(
                    "sample_summary.n",
                    format!(
                        "is {}: expected the number of samples listed ({listed}), as the run writes it",
                        sum.n
                    ),
                );
            }
            self.at("sample_summary", |c| {
                for (name, v) in [("mean", sum.mean), ("min", sum.min), ("max", sum.max)] {
                    c.at(name, |c| c.rate(v));
                }
            });
        }
    }

    /// A step and its trials: `median_trial` within them, as many as
    /// `repeat` asked (fewer only when the rounds were cut), each
    /// checked by `figure` as the step is.
    fn repeated<M>(&mut self, s: &Repeated<M>, t: Trials, figure: impl Fn(&mut Check, &M)) {
        figure(self, &s.step);
        let n = s.trials.len();
        match s.median_trial {
            Some(m) if m >= n => self.fail(
                "median_trial",
                format!(
                    "is {m}: expected an index into the step's {n} trials (0 to {})",
                    n.saturating_sub(1)
                ),
            ),
            None if n > 0 => self.fail(
                "median_trial",
                format!("is missing: expected the index of the median of the step's {n} trials"),
            ),
            _ => {}
        }
        let asked = t.per_step as usize;
        let most = if t.budget {
            asked.max(crate::trials::MAX_BUDGET_TRIALS)
        } else {
            asked
        };
        if n > 0 && ((asked < 2 && !t.budget) || n > most || (n < asked && !t.cut)) {
            self.fail(
                "trials",
                format!(
                    "holds {n} trial{}: expected {} (repeat {} x {} trials a delay{})",
                    if n == 1 { "" } else { "s" },
                    if t.budget {
                        format!("{asked} to {most}")
                    } else if asked < 2 {
                        "none".to_string()
                    } else {
                        asked.to_string()
                    },
                    t.repeat,
                    t.per_step / t.repeat.max(1),
                    if t.budget { ", and --budget's" } else { "" }
                ),
            );
        }
        for (k, RoundTrial { round, step }) in s.trials.iter().enumerate() {
            self.at(&format!("trials[{k}]"), |c| {
                if *round == 0 || *round as usize > most {
                    c.fail(
                        "round",
                        format!("is {round}: expected a round from 1 to {most}"),
                    );
                }
                figure(c, step);
            });
        }
    }
}

/// A rate, size or latency a run can write: finite, 0 or more, below 2^64.
fn is_figure(v: f64) -> bool {
    v.is_finite() && (0.0..MOST).contains(&v)
}

/// A number as the message shows it: short, whatever its size.
fn shown(v: f64) -> impl Display {
    if v.is_finite() && v.abs() >= 1e9 {
        format!("{v:.3e}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_show_short_whatever_their_size() {
        assert_eq!(shown(-5.0).to_string(), "-5");
        assert_eq!(shown(1e308).to_string(), "1.000e308");
        assert_eq!(shown(f64::NAN).to_string(), "NaN");
    }

    #[test]
    fn paths_join_fields_and_indices() {
        let mut c = Check::default();
        c.at("cpu_loop[0]", |c| {
            c.at("trials[1]", |c| c.at("loops_per_s_mean", |c| c.rate(-1.0)))
        });
        let e = c.first.unwrap();
        assert_eq!(e.path, "cpu_loop[0].trials[1].loops_per_s_mean");
        assert!(e.message.starts_with("is -1: expected"), "{}", e.message);
        let mut c = Check::default();
        c.at("storage_bandwidth[2]", |c| c.rate(f64::MAX));
        c.at("memory", |c| c.rate(-1.0));
        assert_eq!(
            c.first.unwrap().path,
            "storage_bandwidth[2]",
            "the first fault is kept"
        );
    }
}
