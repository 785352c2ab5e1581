//! Whether each sample had its core alone or shared with something the
//! guest cannot see, from the core probe's readings
//! ([`crate::samples::core`]).
//!
//! A sample is shared when its work per cycle (while on the CPU) is well
//! below the core's own level with the clock held. What other marks own
//! stays theirs: a clock change moves the clock, not the work per cycle;
//! other processes, steal and a CPU quota take time off the CPU (the
//! probe leaves preempted pieces out), not work per cycle. The level is
//! the loop's bound where it defines one and the run's best samples
//! reach it, so that "alone" is known in absolute terms and a step
//! shared all the time is seen; else the step's best samples (their
//! 90th percentile). Method and measurements:
//! docs/METHOD.md "Shared cores".

use serde::{Deserialize, Serialize};

use crate::samples::core::CoreSamples;

/// A CPU loop sample doing less than this share of the level's work per
/// cycle is shared: alone samples stay within 3 % of the level, a
/// tenant on the SMT sibling takes a third.
pub const CPU_SHARED_BELOW: f64 = 0.85;

/// The same for the memory copy, whose samples spread more (up to 10 %
/// alone, as the cache's state after a context switch varies).
pub const MEMORY_SHARED_BELOW: f64 = 0.80;

/// A sample whose clock is below this share of the alone samples' is not
/// classed: the clock moved, which the clock marks own.
pub const CLOCK_HELD: f64 = 0.95;

/// An alone sample within this share of the alone samples' median work
/// per cycle counts in the rate alone (alone samples spread 1-2 %).
const CLEAN: f64 = 0.95;

/// The quantile of the samples' work per cycle taken as the level.
const LEVEL_QUANTILE: f64 = 0.9;

/// Best samples (the 90th percentile) within this share of the bound
/// reach it.
const REACHES_BOUND: f64 = 0.9;

/// A step with at least this share of its samples shared (and two of
/// them) is marked: a sample or two in twenty can be a partial one at a
/// context switch under a busy guest.
pub const MARK_FRACTION: f64 = 0.10;

/// Where a step's alone level came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LevelFrom {
    /// The best samples reached the loop's bound (work per cycle that
    /// the instructions allow): alone in absolute terms.
    Bound,
    /// The step's best samples; alone relative to the run only.
    BestSamples,
}

/// Why a step's samples were not classed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unjudged {
    /// No chain of known latency on this architecture.
    NoCycleReference,
    /// More jobs than the cores the guest sees: its own jobs share SMT
    /// siblings, which the SMT comparison shows.
    OwnSiblings,
    /// Fewer than three samples with a reading.
    TooFewSamples,
}

impl Unjudged {
    /// Words for `-x`.
    pub fn text(self) -> &'static str {
        match self {
            Unjudged::NoCycleReference => "no cycle reference on this architecture",
            Unjudged::OwnSiblings => "its jobs share SMT siblings",
            Unjudged::TooFewSamples => "too few samples",
        }
    }
}

/// How a step (or one trial) had its core: flat in the step's JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tenancy {
    /// The figure over the samples classed alone at the alone level
    /// (its unit); `None` when none was.
    pub alone_rate: Option<f64>,
    /// Shared samples over classed ones (0 to 1); `None` when not judged.
    pub shared_fraction: Option<f64>,
    /// How much less work per cycle the shared samples did than the
    /// alone ones (medians), percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_loss_percent: Option<f64>,
    /// The alone level, work per cycle (loops of one job, bytes).
    pub per_cycle_level: Option<f64>,
    /// Where the level came from.
    pub per_cycle_level_from: Option<LevelFrom>,
    /// One letter a sample: `a` alone, `s` shared, `.` not classed.
    pub sample_classes: String,
    /// Why nothing was classed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenancy_unjudged: Option<Unjudged>,
}

impl Tenancy {
    /// Nothing classed, and why.
    pub fn unjudged(why: Unjudged) -> Tenancy {
        Tenancy {
            tenancy_unjudged: Some(why),
            ..Tenancy::default()
        }
    }
}

/// How `-x` prints a step's rate and level: the CPU loop's loops per job
/// (whole), the memory copy's bytes (as GB/s, one decimal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// `380838239 loop/job/s`, level `0.1219 loop/cycle`.
    Loops,
    /// `33.6 GB/s`, level `14.47 B/cycle`.
    Bytes,
}

impl Words {
    fn rate(self, r: f64) -> String {
        match self {
            Words::Loops => format!("{:.0} loop/job/s", r.max(0.0).trunc()),
            Words::Bytes => format!("{:.1} GB/s", r / 1e9),
        }
    }

    fn read_rate(self, t: &str) -> Option<f64> {
        match self {
            Words::Loops => t.strip_suffix(" loop/job/s")?.parse().ok(),
            Words::Bytes => Some(t.strip_suffix(" GB/s")?.parse::<f64>().ok()? * 1e9),
        }
    }

    fn level(self, l: f64) -> String {
        match self {
            Words::Loops => format!("{l:.4} loop/cycle"),
            Words::Bytes => format!("{l:.2} B/cycle"),
        }
    }

    fn read_level(self, t: &str) -> Option<f64> {
        let unit = match self {
            Words::Loops => " loop/cycle",
            Words::Bytes => " B/cycle",
        };
        t.strip_suffix(unit)?.parse().ok()
    }
}

const BOUND_WORDS: &str = " (the loop's bound)";
const BEST_WORDS: &str = " (best samples)";
const UNJUDGED_WORDS: &str = "not judged: ";

impl Tenancy {
    /// What `-x` prints of it after `Core      : `: `alone 380838239
    /// loop/job/s; shared 15 % of the time, -29 % work per cycle; level
    /// 0.1219 loop/cycle (the loop's bound)`, or `not judged: ...`.
    pub fn words(&self, w: Words) -> String {
        if let Some(why) = self.tenancy_unjudged {
            return format!("{UNJUDGED_WORDS}{}", why.text());
        }
        let alone = self.alone_rate.map_or("none".to_string(), |r| w.rate(r));
        let shared = self
            .shared_fraction
            .map_or("?".to_string(), |f| format!("{:.0}", 100.0 * f));
        let loss = self
            .shared_loss_percent
            .map(|l| format!(", -{l:.0} % work per cycle"))
            .unwrap_or_default();
        let level = match (self.per_cycle_level, self.per_cycle_level_from) {
            (Some(l), Some(from)) => format!(
                "; level {}{}",
                w.level(l),
                if from == LevelFrom::Bound {
                    BOUND_WORDS
                } else {
                    BEST_WORDS
                }
            ),
            _ => String::new(),
        };
        format!("alone {alone}; shared {shared} % of the time{loss}{level}")
    }

    /// What [`Tenancy::words`] printed as `text`; what it does not print
    /// (the samples' classes) reads empty.
    pub fn parse_words(text: &str, w: Words) -> Option<Tenancy> {
        if let Some(why) = text.strip_prefix(UNJUDGED_WORDS) {
            let why = [
                Unjudged::NoCycleReference,
                Unjudged::OwnSiblings,
                Unjudged::TooFewSamples,
            ]
            .into_iter()
            .find(|u| u.text() == why)?;
            return Some(Tenancy::unjudged(why));
        }
        let r = text.strip_prefix("alone ")?;
        let (alone, r) = r.split_once("; shared ")?;
        let (shared, r) = r.split_once(" % of the time")?;
        let (loss, level) = match r.split_once("; level ") {
            Some((loss, level)) => (loss, Some(level)),
            None => (r, None),
        };
        let loss = match loss {
            "" => None,
            l => Some(
                l.strip_prefix(", -")?
                    .strip_suffix(" % work per cycle")?
                    .parse()
                    .ok()?,
            ),
        };
        let (level, from) = match level {
            None => (None, None),
            Some(l) => {
                let (l, from) = match l.strip_suffix(BOUND_WORDS) {
                    Some(l) => (l, LevelFrom::Bound),
                    None => (l.strip_suffix(BEST_WORDS)?, LevelFrom::BestSamples),
                };
                (Some(w.read_level(l)?), Some(from))
            }
        };
        Some(Tenancy {
            alone_rate: match alone {
                "none" => None,
                a => Some(w.read_rate(a)?),
            },
            shared_fraction: match shared {
                "?" => None,
                f => Some(f.parse::<f64>().ok()? / 100.0),
            },
            shared_loss_percent: loss,
            per_cycle_level: level,
            per_cycle_level_from: from,
            sample_classes: String::new(),
            tenancy_unjudged: None,
        })
    }
}

/// The level a step's samples are classed against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// Alone work per cycle.
    pub per_cycle: f64,
    /// Where it came from.
    pub from: LevelFrom,
    /// Below this share of it, a sample is shared.
    pub shared_below: f64,
    /// The alone samples' median clock, MHz.
    pub mhz: f64,
    /// The alone samples' median work per cycle.
    pub alone_per_cycle: f64,
}

/// The value of rank ⌈q·n⌉ (nearest rank) of `v`, which must not be empty.
fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    (!v.is_empty()).then(|| quantile(&mut v, 0.5))
}

/// The readings of `all` that have one: (work per cycle, MHz).
fn readings(all: &[&CoreSamples]) -> Vec<(f64, f64)> {
    all.iter()
        .flat_map(|c| c.per_cycle.iter().zip(&c.mhz))
        .filter(|(p, m)| **p > 0.0 && **m > 0.0)
        .map(|(p, m)| (*p, *m))
        .collect()
}

/// Whether the best samples of `all` reach the loop's `bound`: the core
/// showed, in this run, that it does the work the instructions allow.
pub fn reaches(all: &[&CoreSamples], bound: f64) -> bool {
    let mut p: Vec<f64> = readings(all).into_iter().map(|r| r.0).collect();
    !p.is_empty() && quantile(&mut p, LEVEL_QUANTILE) >= REACHES_BOUND * bound
}

/// The level of a step whose samples (every trial's) are `all`: the
/// loop's bound when it has one that the run's best samples reached
/// (`reached`, [`reaches`]), so that a step shared all the time is seen;
/// else the step's best samples.
pub fn level(
    all: &[&CoreSamples],
    bound: Option<f64>,
    reached: bool,
    shared_below: f64,
) -> Result<Level, Unjudged> {
    let read = readings(all);
    if read.len() < 3 {
        return Err(Unjudged::TooFewSamples);
    }
    let (per_cycle, from) = match bound {
        Some(b) if reached => (b, LevelFrom::Bound),
        _ => {
            let mut p: Vec<f64> = read.iter().map(|r| r.0).collect();
            (quantile(&mut p, LEVEL_QUANTILE), LevelFrom::BestSamples)
        }
    };
    let alone: Vec<&(f64, f64)> = read
        .iter()
        .filter(|r| r.0 >= shared_below * per_cycle)
        .collect();
    let mhz = median(alone.iter().map(|r| r.1).collect())
        .or_else(|| median(read.iter().map(|r| r.1).collect()));
    Ok(Level {
        per_cycle,
        from,
        shared_below,
        mhz: mhz.unwrap_or(0.0),
        alone_per_cycle: median(alone.iter().map(|r| r.0).collect()).unwrap_or(per_cycle),
    })
}

/// Classes the samples of one trial (or step), whose rates are `rates`
/// and readings `core`, against `level`.
pub fn classify(rates: &[f64], core: &CoreSamples, level: &Level) -> Tenancy {
    let mut classes = String::with_capacity(rates.len());
    let (mut alone, mut shared) = (Vec::new(), Vec::new());
    for (i, &rate) in rates.iter().enumerate() {
        let (p, m) = (core.per_cycle.get(i), core.mhz.get(i));
        let class = match (p, m) {
            (Some(&p), Some(&m)) if p > 0.0 && m > 0.0 => {
                if p >= level.shared_below * level.per_cycle {
                    alone.push((rate, p));
                    'a'
                } else if m >= CLOCK_HELD * level.mhz {
                    shared.push(p);
                    's'
                } else {
                    '.'
                }
            }
            _ => '.',
        };
        classes.push(class);
    }
    let classed = alone.len() + shared.len();
    // The rate alone: of the samples at the alone samples' own level, not
    // those partly shared at the edge of a shared spell.
    let clean: Vec<f64> = alone
        .iter()
        .filter(|a| a.1 >= CLEAN * level.alone_per_cycle)
        .map(|a| a.0)
        .collect();
    let alone_rate = (!clean.is_empty()).then(|| clean.iter().sum::<f64>() / clean.len() as f64);
    let loss = median(alone.iter().map(|a| a.1).collect())
        .zip(median(shared.clone()))
        .map(|(a, s)| 100.0 * (1.0 - s / a));
    Tenancy {
        alone_rate,
        shared_fraction: (classed > 0).then(|| shared.len() as f64 / classed as f64),
        shared_loss_percent: loss,
        per_cycle_level: Some(level.per_cycle),
        per_cycle_level_from: Some(level.from),
        sample_classes: classes,
        tenancy_unjudged: None,
    }
}

/// Whether `t` earns the shared mark, and its figures (percent of the
/// time, loss percent).
pub fn marked(t: &Tenancy) -> Option<(f64, f64)> {
    let f = t.shared_fraction?;
    let shared = t.sample_classes.bytes().filter(|&c| c == b's').count();
    (f >= MARK_FRACTION && shared >= 2).then(|| (100.0 * f, t.shared_loss_percent.unwrap_or(0.0)))
}

#[cfg(test)]
mod tests;
