//! Statistics for `compare`: verdicts from each figure's own noise, as
//! hyperfine, criterion.rs and Go's benchstat do, instead of a fixed band.
//!
//! Pure and self-contained: numbers in, numbers out; no I/O, no other
//! module of the crate, no runtime crate (the distributions and the random
//! generator are implemented here, each with its method and source).
//!
//! | module | what |
//! | --- | --- |
//! | [`describe`] | median, quantile (type 7), mean, sd, CV, MAD; [`Summary`] of one step's samples |
//! | [`batch`] | batch-means interval of a step's mean rate (autocorrelated samples) |
//! | [`dist`] | normal and Student t distribution functions and quantiles |
//! | [`rank`] | Mann–Whitney U; Hodges–Lehmann shift with its Moses interval |
//! | [`bootstrap`] | percentile bootstrap of a ratio of medians (reported, not the verdict) |
//! | [`adjust`] | Holm and Benjamini–Hochberg adjusted p-values; Holm levels |
//! | [`verdict`] | one figure's verdict between two sides; [`judge_all`] for a family |
//! | [`fleet`] | outliers across hosts by the modified z-score |
//! | [`rng`] | xoshiro256** seeded by SplitMix64 |
//! | [`trend`] | the seasonal Mann–Kendall trend test across the rounds of `--repeat` |
//! | [`change`] | one change point of a rate series (a step down that stays), against a line |
//!
//! The reference values in the tests come from scipy, numpy and R; the
//! script that computes them is `tests/stats_reference.py`.

use serde::Serialize;

pub mod adjust;
pub mod batch;
pub mod bootstrap;
pub mod change;
pub mod describe;
pub mod dist;
pub mod fleet;
pub mod rank;
pub mod rng;
pub mod trend;
pub mod verdict;

#[cfg(test)]
mod properties;

pub use describe::Summary;
pub use fleet::{fleet_outliers, FleetOutlier};
pub use verdict::{
    judge, judge_all, spread_of, Adjustment, Call, Family, FigureInput, Judgement, OutOfReach,
    RatioInterval, RunFloor, RunsNeeded, Spread, TrialValue, Unjudgeable,
};

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// loops/s, GB/s, MB/s, IO/s.
    Higher,
    /// Latency.
    Lower,
}
