//! The figures of the added sections (`crate::sections`): CPU work and
//! memory latency, each with its trials and marks.

use serde::{Deserialize, Serialize};

use crate::conditions::mark::InTrials;
use crate::conditions::Mark;

/// What one trial of an added section's step did: its work (bytes,
/// loads) over its time, from which each section makes its figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// The work done (bytes of one job, loads).
    pub work: f64,
    /// The time it took, ns.
    pub elapsed_ns: u64,
}

/// One trial of a step, as the runner measured it.
#[derive(Debug, Clone, PartialEq)]
pub struct RateTrial {
    /// The round it ran in, from 1.
    pub round: u32,
    /// What it did.
    pub rate: Rate,
    /// What distorted it.
    pub marks: Vec<Mark>,
}

/// One trial of an added section's figure, in the figure's unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddedTrial {
    /// The round it ran in, from 1.
    pub round: u32,
    /// The figure of that trial (bytes/s, ns per load).
    pub value: f64,
    /// What distorted it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<Mark>,
}

/// A figure's marks (each with in how many trials it was earned) and its
/// trials; all empty for a figure read from text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trials {
    /// What distorted the figure: printed after it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<Mark>,
    /// In how many trials each of `marks` was earned (same order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks_in_trials: Vec<InTrials>,
    /// Every trial, in the order they ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trials: Vec<AddedTrial>,
}

/// One line of `[ Extended: CPU work ]`: a workload at a job count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkFigure {
    /// Its name (`zstd-3 compress`).
    pub workload: String,
    /// Our definition's and the library's versions (`work v1, zstd
    /// 1.6.0`): figures of two versions do not compare.
    pub version: String,
    /// What it works on (`4 MiB of generated text, 3.05:1 at zstd-3`).
    pub input: String,
    /// Jobs run at once.
    pub jobs: u32,
    /// Bytes of input per second of one job, pooled over the trials.
    pub bytes_per_s: f64,
    /// Its marks and trials.
    #[serde(flatten)]
    pub timed: Trials,
}

/// One line of `[ Extended: Memory latency ]`: a buffer size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyFigure {
    /// The buffer's bytes.
    pub size_bytes: u64,
    /// The mean time of one dependent load, ns, pooled over the trials.
    pub ns_per_load: f64,
    /// The chase's definition (`chase v1`): figures of two versions do
    /// not compare.
    pub version: String,
    /// One line per 4 KiB page, huge pages refused (the TLB size),
    /// instead of every line of the buffer.
    #[serde(default)]
    pub line_per_page: bool,
    /// The share of the buffer that transparent huge pages backed, %
    /// (rounded down); `None` when `/proc/self/smaps` was not read.
    #[serde(default)]
    pub thp_percent: Option<u32>,
    /// Its marks and trials.
    #[serde(flatten)]
    pub timed: Trials,
}
