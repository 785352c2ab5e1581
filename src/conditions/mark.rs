//! The marks: what distorted a figure, printed after its line as
//! `(busy 48 %: cc1plus, cargo)`.
//!
//! What a mark is lives here: the threshold that earns it and why, the
//! decision, its text, how that text reads back ([`Mark::parse`], for
//! `report::read`), the words stderr explains it with, and the kinds of
//! step it applies to. The figures the decisions look at are measured in
//! [`super::load`], [`super::io`] and [`super::reach`]; two thresholds
//! live with what applies them: the tick resolution of `/proc/stat`
//! ([`super::load::BUSY_RESOLUTION_TICKS_PER_CPU`]) and the share of
//! bytes below which a line is cached
//! ([`super::reach::CACHED_BELOW_PERCENT`], the reach's verdict).

use serde::{Deserialize, Serialize};

use super::io::DeviceIoShare;
use super::load::{CpuLoad, StepLoad};
use super::procs::ProcessShare;
use super::reach::{Reach, ReachVerdict};
use crate::dd_io::Direction;

/// Other processes used more than this share of the CPU time the step
/// needed (`needed_cpus` x elapsed): the step is marked busy. The CPU
/// loop's own run-to-run spread is held to 5 % (benches/foundation.sh),
/// so interference below that is lost in it, while an idle server's
/// background (kernel threads, a logging daemon, an ssh session) wakes for
/// microseconds at a time and stays well below 5 % of one CPU.
/// benches/busy-marks.sh measures both sides: how often quiet runs are
/// marked, and how often a spinning process is caught.
pub const BUSY_PERCENT_OF_NEEDED: f64 = 5.0;

/// Steal above this share of the CPUs' time (and above the tick
/// resolution, as for others' use) marks the step. Steal lowers a CPU
/// figure by about its own share and is invisible from inside the guest
/// otherwise. A quiet VM steals a few tenths of a percent per step (up to
/// 1.5 % on 1-s steps, where one 10 ms tick is 0.5 %), a host shared with
/// busy neighbours several percent: 2 % separates them.
pub const STEAL_PERCENT: f64 = 2.0;

/// Throttled time above this share of the CPU time the step needed marks
/// it: the quota took that share of the step's CPU time away, as steal
/// does, and the same 5 % as [`BUSY_PERCENT_OF_NEEDED`] keeps a step that
/// only brushed the quota (a 1-job step under a 1-CPU quota, throttled
/// for the few ms the report's own threads add) unmarked.
pub const THROTTLED_PERCENT: f64 = 5.0;

/// More than this share of a device's I/O (requests or bytes, whichever is
/// larger) not issued by the engine marks the storage line: the same 5 %
/// as [`BUSY_PERCENT_OF_NEEDED`], the spread expected between two runs of
/// a line.
pub const OTHER_IO_PERCENT: f64 = 5.0;

/// ... and at least this many foreign requests or [`OTHER_IO_MIN_BYTES`]
/// foreign bytes: the filesystem's own journal commits and metadata
/// writes for our file (a handful of blocks per `fdatasync`, one commit
/// every 5 s on ext4) are not another workload.
pub const OTHER_IO_MIN_REQUESTS: u64 = 16;

/// The byte floor beside [`OTHER_IO_MIN_REQUESTS`]: a journal commit
/// writes tens of KiB, a competing workload moves 4 MiB in well under a
/// second. Large foreign I/Os in our direction during a 1 MiB line hide
/// in the split allowance of the request count, so bytes must be enough.
pub const OTHER_IO_MIN_BYTES: u64 = 4 << 20;

/// A CPU step whose measured clock right after it is this much (percent)
/// or more below the clock measured before the first CPU step is marked
/// `clock -N %`: the same 5 % as the CPU loop's run-to-run spread
/// (benches/foundation.sh), which the probe's own spread (under 3 %,
/// benches/README.md) stays inside.
pub const CLOCK_DROP_PERCENT: f64 = 5.0;

/// A step that loaded every CPU and whose cpufreq policies spent more than
/// this share of it below their highest frequency is marked. A governor
/// that clocks up under load (ondemand samples every 10-100 ms) spends
/// at most a tenth of a 1-s step climbing; more than a quarter is a cap,
/// a power limit or a governor that holds the clock down.
pub const BELOW_MAX_CLOCK_PERCENT: f64 = 25.0;

/// Swapped pages (in plus out) during a memory or storage step above this
/// many mark it: 256 pages (1 MiB at 4 KiB) is a daemon's page coming back
/// after a night of sleep, more is memory pressure, which takes the CPU
/// and the disk from the step.
pub const SWAPPED_PAGES: u64 = 256;

/// A section's trend across the rounds of `--repeat` is a drift when the
/// seasonal Mann–Kendall test ([`crate::stats::trend`]) gives p below
/// this...
pub const DRIFT_P: f64 = 0.05;

/// ... and the step's last rounds differ from its first by at least this
/// much (percent): the CPU loop's run-to-run spread, 5 %; a significant
/// trend smaller than that changes no comparison.
pub const DRIFT_PERCENT: f64 = 5.0;

/// A read line whose chunks read back were at least this share (percent)
/// of zeros is marked `zeros`: most of what it read was never written or
/// was discarded, which SSDs, thin volumes and sparse files answer
/// without reading their media (a sparse-backed loop device read 1.43
/// times faster before its blocks were written than after, benches/README.md).
pub const ZEROS_PERCENT: f64 = 50.0;

/// A storage line whose sub-interval rates step down by at least this
/// much (percent) and stay down to its end is marked `burst`: a credit
/// or cache running out shows as a drop of a half or more (a gp2-style
/// volume falls from its burst to its baseline, an SSD from its write
/// cache to its flash), while the samples of a steady line stay within
/// about 10 % of each other, so 25 % is well outside their noise.
pub const BURST_DROP_PERCENT: f64 = 25.0;

/// ... when two levels fit the log rates this much better than a
/// straight line at least (their squared error over the line's,
/// [`crate::stats::change`]): a slow drift is fitted by the line about as
/// well (a ratio near or above 1), a step leaves a small fraction (0.002
/// for a 3x drop under 3 % noise).
pub const BURST_FIT_RATIO: f64 = 0.5;

/// ... and when each level lasts at least this many samples and a fifth
/// of the line, so that one slow sub-interval at the end is no burst.
pub const BURST_MIN_SAMPLES: usize = 3;

/// ... and at least this long each: a credit or a cache runs out after
/// seconds, while a line of a fraction of a second steps by its noise
/// (a 0.3 s read of a FUSE cache read 57 k IO/s for 0.2 s, then 18 k).
pub const BURST_MIN_SECONDS: f64 = 1.0;

/// The kinds of step the runner samples, as far as marks are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A CPU loop step, or the SMT contention test.
    Cpu,
    /// The dd-like memory bandwidth, or the DRAM runs.
    Memory,
    /// A storage bandwidth line.
    Storage,
}

/// Something that distorted a step's figure, with the figure to print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mark {
    /// Other processes ran on the CPUs the step used, e.g.
    /// `(busy 48 %: cc1plus, cargo)` (before: `(busy: other processes
    /// used 48 % of a CPU)`, still read).
    Busy {
        /// Their CPU time over the step's elapsed time, in percent of one
        /// CPU (100 = one whole CPU, may exceed 100).
        others_cpu_percent: f64,
        /// The same as a share of the CPU time the step needed, percent
        /// (what the threshold [`BUSY_PERCENT_OF_NEEDED`] applies to; not
        /// printed, so 0 when read back from text).
        others_percent_of_needed: f64,
        /// The busiest other processes during the step, busiest first:
        /// their names are printed (pids and shares read back as 0).
        #[serde(default)]
        processes: Vec<ProcessShare>,
    },
    /// The hypervisor stole CPU time, e.g. `(steal 12 %)`.
    Steal {
        /// Steal over all time of the CPUs counted, percent.
        percent: f64,
    },
    /// The core did less work per cycle at the same clock for part of
    /// the step: shared with something the guest cannot see (another
    /// tenant on the host's SMT sibling), e.g. `(shared 46 % of the
    /// time: -33 % work per cycle at the same clock)`
    /// ([`super::tenancy`]).
    Shared {
        /// Shared samples over classed ones, percent.
        percent: f64,
        /// How much less work per cycle the shared samples did, percent.
        loss_percent: f64,
    },
    /// I/O on a device that the engine did not issue, e.g.
    /// `(other I/O on vda: 31 %)`.
    OtherIo {
        /// Kernel name of the device (`vda`, `sdb`).
        device: String,
        /// Share of the device's I/O that was not ours, percent.
        percent: f64,
    },
    /// The cgroup CPU quota stopped the step's threads, e.g.
    /// `(throttled 50 %: cgroup CPU quota)`.
    Throttled {
        /// Throttled time over the CPU time the step needed, percent.
        percent: f64,
    },
    /// The target's devices saw much less than the engine moved: a cache
    /// served the line, e.g. `(cached: vda saw 0.4 % of these reads)`.
    Cached {
        /// The devices checked, joined by `+`.
        devices: String,
        /// Their bytes over ours, percent.
        percent: f64,
        /// Reads (true) or writes.
        reads: bool,
    },
    /// The CPUs' measured clock right after the step was below the one
    /// measured before the CPU loop, e.g. `(clock -12 %)`.
    Clock {
        /// Hot over cold, minus 1, percent (negative).
        percent: f64,
    },
    /// The cpufreq policies ran below their highest frequency for much of
    /// a full-load step, e.g. `(below max clock 64 % of the time)`.
    BelowMaxClock {
        /// Share of the step's time below the maximum, percent.
        percent: f64,
    },
    /// The CPUs' thermal throttling counters moved during the step:
    /// `(thermal throttled)`.
    ThermalThrottled {
        /// Throttling events counted (not printed: 0 when read back).
        events: u64,
    },
    /// Pages moved to or from swap during the step, e.g.
    /// `(swapping: 120 pages in, 4000 out)`.
    Swapping {
        /// Pages swapped in.
        pages_in: u64,
        /// Pages swapped out.
        pages_out: u64,
    },
    /// The step's figure moved one way across the rounds of `--repeat`,
    /// e.g. `(drift -30 %)`: its last rounds against its first.
    Drift {
        /// Median of the last half of the trials over the median of the
        /// first half, minus 1, percent.
        percent: f64,
    },
    /// The line's rate stepped down and stayed down, e.g. `(burst: 3,010
    /// IO/s for 12 s, then 1,000 IO/s)`.
    Burst {
        /// The rate before the step, IO/s (median of its samples).
        before: f64,
        /// When the step came, seconds into the line.
        seconds: f64,
        /// The rate after the step, IO/s.
        after: f64,
    },
    /// Most blocks a read line read back were zeros, e.g. `(zeros: 97 %
    /// of blocks read were never written or discarded; ...)`.
    Zeros {
        /// Zero chunks over the chunks read, percent.
        percent: f64,
    },
}

/// A mark without its figures: what stderr explains and what the runner
/// filters by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// [`Mark::Busy`].
    Busy,
    /// [`Mark::Steal`].
    Steal,
    /// [`Mark::Shared`].
    Shared,
    /// [`Mark::Throttled`].
    Throttled,
    /// [`Mark::OtherIo`].
    OtherIo,
    /// [`Mark::Cached`].
    Cached,
    /// [`Mark::Clock`].
    Clock,
    /// [`Mark::BelowMaxClock`].
    BelowMaxClock,
    /// [`Mark::ThermalThrottled`].
    ThermalThrottled,
    /// [`Mark::Swapping`].
    Swapping,
    /// [`Mark::Drift`].
    Drift,
    /// [`Mark::Zeros`].
    Zeros,
    /// [`Mark::Burst`].
    Burst,
}

impl MarkKind {
    /// Every kind, in the order stderr explains them.
    pub const ALL: [MarkKind; 13] = [
        MarkKind::Busy,
        MarkKind::Steal,
        MarkKind::Shared,
        MarkKind::Throttled,
        MarkKind::OtherIo,
        MarkKind::Cached,
        MarkKind::Clock,
        MarkKind::BelowMaxClock,
        MarkKind::ThermalThrottled,
        MarkKind::Swapping,
        MarkKind::Drift,
        MarkKind::Zeros,
        MarkKind::Burst,
    ];

    /// The kind's name in the JSON (`kind` of a mark).
    pub fn name(self) -> &'static str {
        match self {
            MarkKind::Busy => "busy",
            MarkKind::Steal => "steal",
            MarkKind::Shared => "shared",
            MarkKind::Throttled => "throttled",
            MarkKind::OtherIo => "other_io",
            MarkKind::Cached => "cached",
            MarkKind::Clock => "clock",
            MarkKind::BelowMaxClock => "below_max_clock",
            MarkKind::ThermalThrottled => "thermal_throttled",
            MarkKind::Swapping => "swapping",
            MarkKind::Drift => "drift",
            MarkKind::Zeros => "zeros",
            MarkKind::Burst => "burst",
        }
    }

    /// The mark in a word or two, as compare names it (`busy`, `other
    /// I/O`).
    pub fn word(self) -> &'static str {
        match self {
            MarkKind::Busy => "busy",
            MarkKind::Steal => "steal",
            MarkKind::Shared => "shared",
            MarkKind::Throttled => "throttled",
            MarkKind::OtherIo => "other I/O",
            MarkKind::Cached => "cached",
            MarkKind::Clock => "clock",
            MarkKind::BelowMaxClock => "below max clock",
            MarkKind::ThermalThrottled => "thermal throttled",
            MarkKind::Swapping => "swapping",
            MarkKind::Drift => "drift",
            MarkKind::Zeros => "zeros",
            MarkKind::Burst => "burst",
        }
    }

    /// Whether a trial with this mark says more about what ran beside it
    /// than about the host, so that compare leaves it out of a verdict.
    ///
    /// Busy, steal and other I/O are passing conditions: other processes,
    /// the hypervisor's other guests, another workload on the device. A
    /// verdict on such a trial would read the neighbours, and two runs of
    /// one host would differ by them. The CPU quota and a cache are the
    /// host as configured: a container limited to 0.8 CPU is slower, and
    /// a comparison should say so (the mark shows why).
    ///
    /// Swapping, the clock, thermal throttling and drift: docs/METHOD.md "Marks
    /// that leave a trial out of a verdict".
    pub fn distorts(self) -> bool {
        match self {
            MarkKind::Busy | MarkKind::Steal | MarkKind::OtherIo | MarkKind::Swapping => true,
            // The core as rented: compare judges its alone and shared
            // figures on rows of their own.
            MarkKind::Shared
            | MarkKind::Throttled
            | MarkKind::Cached
            | MarkKind::Clock
            | MarkKind::BelowMaxClock
            | MarkKind::ThermalThrottled
            | MarkKind::Drift
            | MarkKind::Zeros
            | MarkKind::Burst => false,
        }
    }

    /// What to do about a figure with this mark, one line that stderr
    /// says the first time the kind appears in a run; `None` when the
    /// explanation's "stop the other workload and rerun" says enough.
    /// A busy first run is the common case (right after building, the
    /// compiler's last jobs), and a newcomer needs the cause and the cure.
    pub fn advice(self) -> Option<&'static str> {
        match self {
            MarkKind::Busy => Some(
                "busy: other work used the CPUs during a step (a build, a backup, another \
                 benchmark): wait for it to finish, then rerun; compare leaves busy figures \
                 out of its verdicts",
            ),
            MarkKind::Zeros => Some(
                "zeros: most blocks read held zeros, which the device may answer without reading \
                 its media: fill it with data first (or write it with --destroy) and rerun",
            ),
            MarkKind::Steal
            | MarkKind::Shared
            | MarkKind::Throttled
            | MarkKind::OtherIo
            | MarkKind::Cached
            | MarkKind::Clock
            | MarkKind::BelowMaxClock
            | MarkKind::ThermalThrottled
            | MarkKind::Swapping
            | MarkKind::Drift
            | MarkKind::Burst => None,
        }
    }

    /// What the mark means, as stderr says it once per run.
    pub fn explanation(self) -> &'static str {
        match self {
            MarkKind::Busy => {
                "busy (other processes used the CPUs the step needed; a lower figure on a busy \
                 step is not a sign of SMT)"
            }
            MarkKind::Steal => "steal (the hypervisor took CPU time)",
            MarkKind::Shared => {
                "shared (the core did less work per cycle at the same clock, with no steal: \
                 another tenant on the host's SMT sibling; compare judges the alone rate apart)"
            }
            MarkKind::Throttled => "throttled (the cgroup CPU quota stopped the jobs)",
            MarkKind::OtherIo => "other I/O (the device served I/O that was not ours)",
            MarkKind::Cached => {
                "cached (the device saw much less than was moved: a cache served the figure)"
            }
            MarkKind::Clock => {
                "clock (the CPUs' measured clock right after the step was below the one \
                 measured before the CPU loop: thermal or power limits, or spent boost credits)"
            }
            MarkKind::BelowMaxClock => {
                "below max clock (cpufreq kept the loaded CPUs below their highest frequency: \
                 a governor, a cap or a power limit)"
            }
            MarkKind::ThermalThrottled => {
                "thermal throttled (the CPUs' thermal throttling counters moved during the step)"
            }
            MarkKind::Swapping => "swapping (pages moved to or from swap during the step)",
            MarkKind::Drift => {
                "drift (the figure moved one way across the rounds of --repeat: credits running \
                 out, a host heating up, a neighbour arriving; the median hides it)"
            }
            MarkKind::Burst => {
                "burst (the line's rate stepped down and stayed down: burst credits spent, an \
                 IOPS cap, a write cache full; a longer run measures the lower rate)"
            }
            MarkKind::Zeros => {
                "zeros (most blocks read were never written or discarded: the device may answer \
                 them without reading its media, faster than it reads data)"
            }
        }
    }

    /// Whether a step of kind `step` may carry this mark.
    ///
    /// Storage lines carry no busy or steal mark: their own I/O makes
    /// both. It runs partly in kernel threads (the loop worker, dm-crypt,
    /// the block layer's workers), which `/proc/stat` counts as other
    /// processes, and on a VM the host's threads serving our virtio I/O
    /// take the vCPUs' cores (6-8 % steal on quiet 4k lines with 4 and 16
    /// jobs on a 2-vCPU guest). Their figures stay in the step's load.
    pub fn applies_to(self, step: Step) -> bool {
        match self {
            MarkKind::Busy | MarkKind::Steal => step != Step::Storage,
            MarkKind::Shared => step != Step::Storage,
            MarkKind::Throttled | MarkKind::ThermalThrottled => true,
            // A storage section's first round writes the file the others
            // overwrite and read: its lines trend upward by design.
            MarkKind::Drift => step != Step::Storage,
            MarkKind::OtherIo | MarkKind::Cached => step == Step::Storage,
            MarkKind::Clock | MarkKind::BelowMaxClock => step == Step::Cpu,
            MarkKind::Swapping => step != Step::Cpu,
            MarkKind::Zeros | MarkKind::Burst => step == Step::Storage,
        }
    }
}

/// What stderr says once, the first time a figure is marked.
pub fn explanation() -> String {
    let kinds: Vec<&str> = MarkKind::ALL.iter().map(|k| k.explanation()).collect();
    format!(
        "a mark after a figure says what distorted it: {}. Stop the other workload and rerun, \
         or compare only unmarked figures",
        kinds.join(", ")
    )
}

/// A number as a mark prints it (`48`, `0.4`).
fn number(s: &str) -> Option<f64> {
    let ok = !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == '.');
    ok.then(|| s.parse().ok()).flatten()
}

/// A signed number as a mark prints it (`-12`, `+8`).
fn signed(s: &str) -> Option<f64> {
    if let Some(r) = s.strip_prefix('-') {
        return number(r).map(|n| -n);
    }
    number(s.strip_prefix('+')?)
}

/// A whole count as a mark prints it.
fn count(s: &str) -> Option<u64> {
    (!s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A process name as the busy mark prints it: the separators of the
/// mark's text (`,` and parentheses) are `_`, so it reads back.
fn printed_name(comm: &str) -> String {
    comm.chars()
        .map(|c| match c {
            '(' | ')' | ',' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// A rate as the burst mark prints it: whole, in groups of three (`3,010`).
fn grouped(rate: f64) -> String {
    let digits = format!("{:.0}", rate.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// When a burst ended, as printed: tenths below 10 s, whole seconds after.
fn burst_seconds(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.1}")
    } else {
        format!("{s:.0}")
    }
}

/// The words after the zeros mark's share.
const ZEROS_WORDS: &str = " % of blocks read were never written or discarded; \
     the device may answer them without reading its media";

/// Names printed after a busy mark's share: the busiest few, each once.
pub const BUSY_NAMES: usize = 3;

impl Mark {
    /// The mark's kind.
    pub fn kind(&self) -> MarkKind {
        match self {
            Mark::Busy { .. } => MarkKind::Busy,
            Mark::Steal { .. } => MarkKind::Steal,
            Mark::Shared { .. } => MarkKind::Shared,
            Mark::Throttled { .. } => MarkKind::Throttled,
            Mark::OtherIo { .. } => MarkKind::OtherIo,
            Mark::Cached { .. } => MarkKind::Cached,
            Mark::Clock { .. } => MarkKind::Clock,
            Mark::BelowMaxClock { .. } => MarkKind::BelowMaxClock,
            Mark::ThermalThrottled { .. } => MarkKind::ThermalThrottled,
            Mark::Swapping { .. } => MarkKind::Swapping,
            Mark::Drift { .. } => MarkKind::Drift,
            Mark::Zeros { .. } => MarkKind::Zeros,
            Mark::Burst { .. } => MarkKind::Burst,
        }
    }

    /// The words of the mark, as printed between parentheses after a line.
    pub fn text(&self) -> String {
        match self {
            Mark::Busy {
                others_cpu_percent,
                processes,
                ..
            } => {
                // Names once each (three compilers are one `rustc`).
                let mut names: Vec<String> = Vec::new();
                for n in processes.iter().map(|p| printed_name(&p.comm)) {
                    if !n.is_empty() && !names.contains(&n) && names.len() < BUSY_NAMES {
                        names.push(n);
                    }
                }
                if names.is_empty() {
                    format!("busy {others_cpu_percent:.0} %")
                } else {
                    format!("busy {others_cpu_percent:.0} %: {}", names.join(", "))
                }
            }
            Mark::Steal { percent } => format!("steal {percent:.0} %"),
            Mark::Shared {
                percent,
                loss_percent,
            } => format!(
                "shared {percent:.0} % of the time: -{loss_percent:.0} % work per cycle at the \
                 same clock"
            ),
            Mark::OtherIo { device, percent } => {
                format!("other I/O on {device}: {percent:.0} %")
            }
            Mark::Throttled { percent } => format!("throttled {percent:.0} %: cgroup CPU quota"),
            Mark::Cached {
                devices,
                percent,
                reads,
            } => format!(
                "cached: {devices} saw {percent:.1} % of these {}",
                if *reads { "reads" } else { "writes" }
            ),
            Mark::Clock { percent } => format!("clock {percent:+.0} %"),
            Mark::BelowMaxClock { percent } => {
                format!("below max clock {percent:.0} % of the time")
            }
            Mark::ThermalThrottled { .. } => "thermal throttled".to_string(),
            Mark::Swapping {
                pages_in,
                pages_out,
            } => format!("swapping: {pages_in} pages in, {pages_out} out"),
            Mark::Drift { percent } => format!("drift {percent:+.0} %"),
            Mark::Zeros { percent } => format!("zeros: {percent:.0}{ZEROS_WORDS}"),
            Mark::Burst {
                before,
                seconds,
                after,
            } => format!(
                "burst: {} IO/s for {} s, then {} IO/s",
                grouped(*before),
                burst_seconds(*seconds),
                grouped(*after)
            ),
        }
    }

    /// The mark whose [`Mark::text`] is `text` (the words between the
    /// parentheses); `None` when it is not one. Figures the text does not
    /// print read back as 0.
    pub fn parse(text: &str) -> Option<Mark> {
        if let Some(r) = text.strip_prefix("busy: other processes used ") {
            // The form before the busy mark named the processes.
            return Some(Mark::Busy {
                others_cpu_percent: number(r.strip_suffix(" % of a CPU")?)?,
                others_percent_of_needed: 0.0,
                processes: Vec::new(),
            });
        }
        if let Some(r) = text.strip_prefix("busy ") {
            let (n, names) = match r.split_once(" %: ") {
                Some((n, names)) => (n, Some(names)),
                None => (r.strip_suffix(" %")?, None),
            };
            let processes = match names {
                Some(names) => names
                    .split(", ")
                    .map(|comm| {
                        (!comm.is_empty() && printed_name(comm) == comm).then(|| ProcessShare {
                            pid: 0,
                            comm: comm.to_string(),
                            cpu_percent: 0.0,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?,
                None => Vec::new(),
            };
            return Some(Mark::Busy {
                others_cpu_percent: number(n)?,
                others_percent_of_needed: 0.0,
                processes,
            });
        }
        if let Some(r) = text.strip_prefix("clock ") {
            return Some(Mark::Clock {
                percent: signed(r.strip_suffix(" %")?)?,
            });
        }
        if let Some(r) = text.strip_prefix("below max clock ") {
            return Some(Mark::BelowMaxClock {
                percent: number(r.strip_suffix(" % of the time")?)?,
            });
        }
        if text == "thermal throttled" {
            return Some(Mark::ThermalThrottled { events: 0 });
        }
        if let Some(r) = text.strip_prefix("swapping: ") {
            let (i, o) = r.strip_suffix(" out")?.split_once(" pages in, ")?;
            return Some(Mark::Swapping {
                pages_in: count(i)?,
                pages_out: count(o)?,
            });
        }
        if let Some(r) = text.strip_prefix("drift ") {
            return Some(Mark::Drift {
                percent: signed(r.strip_suffix(" %")?)?,
            });
        }
        if let Some(r) = text.strip_prefix("shared ") {
            let (n, loss) = r.split_once(" % of the time: -")?;
            return Some(Mark::Shared {
                percent: number(n)?,
                loss_percent: number(loss.strip_suffix(" % work per cycle at the same clock")?)?,
            });
        }
        if let Some(r) = text.strip_prefix("burst: ") {
            let (before, r) = r.split_once(" IO/s for ")?;
            let (seconds, after) = r.split_once(" s, then ")?;
            let rate = |t: &str| number(&t.replace(',', ""));
            return Some(Mark::Burst {
                before: rate(before)?,
                seconds: number(seconds)?,
                after: rate(after.strip_suffix(" IO/s")?)?,
            });
        }
        if let Some(r) = text.strip_prefix("zeros: ") {
            return Some(Mark::Zeros {
                percent: number(r.strip_suffix(ZEROS_WORDS)?)?,
            });
        }
        if let Some(r) = text.strip_prefix("steal ") {
            return Some(Mark::Steal {
                percent: number(r.strip_suffix(" %")?)?,
            });
        }
        if let Some(r) = text.strip_prefix("other I/O on ") {
            let (device, n) = r.rsplit_once(": ")?;
            return Some(Mark::OtherIo {
                device: device.to_string(),
                percent: number(n.strip_suffix(" %")?)?,
            });
        }
        if let Some(r) = text.strip_prefix("throttled ") {
            return Some(Mark::Throttled {
                percent: number(r.strip_suffix(" %: cgroup CPU quota")?)?,
            });
        }
        if let Some(r) = text.strip_prefix("cached: ") {
            let (devices, r) = r.rsplit_once(" saw ")?;
            let (n, what) = r.split_once(" % of these ")?;
            return Some(Mark::Cached {
                devices: devices.to_string(),
                percent: number(n)?,
                reads: match what {
                    "reads" => true,
                    "writes" => false,
                    _ => return None,
                },
            });
        }
        None
    }

    /// The busy mark, when others passed [`BUSY_PERCENT_OF_NEEDED`] and
    /// the tick resolution, naming the busiest of `processes`.
    pub fn busy(c: &CpuLoad, processes: &[ProcessShare]) -> Option<Mark> {
        (c.others_percent_of_needed > BUSY_PERCENT_OF_NEEDED && c.others_ns > c.resolution_ns).then(
            || Mark::Busy {
                others_cpu_percent: c.others_cpu_percent,
                others_percent_of_needed: c.others_percent_of_needed,
                processes: processes.to_vec(),
            },
        )
    }

    /// The clock mark, when the clock measured right after a step
    /// (`hot_mhz`) is [`CLOCK_DROP_PERCENT`] or more below the one
    /// measured before the CPU loop (`cold_mhz`).
    pub fn clock(cold_mhz: f64, hot_mhz: f64) -> Option<Mark> {
        let percent = 100.0 * (hot_mhz / cold_mhz - 1.0);
        (cold_mhz > 0.0 && percent <= -CLOCK_DROP_PERCENT).then_some(Mark::Clock { percent })
    }

    /// The below-max-clock mark, past [`BELOW_MAX_CLOCK_PERCENT`].
    pub fn below_max_clock(percent: f64) -> Option<Mark> {
        (percent > BELOW_MAX_CLOCK_PERCENT).then_some(Mark::BelowMaxClock { percent })
    }

    /// The thermal mark, when the counters moved.
    pub fn thermal(events: u64) -> Option<Mark> {
        (events > 0).then_some(Mark::ThermalThrottled { events })
    }

    /// The swapping mark, past [`SWAPPED_PAGES`].
    pub fn swapping(pages_in: u64, pages_out: u64) -> Option<Mark> {
        (pages_in.saturating_add(pages_out) > SWAPPED_PAGES).then_some(Mark::Swapping {
            pages_in,
            pages_out,
        })
    }

    /// The drift mark of a step whose trials (`figures`, in the order
    /// they ran) belong to a section whose trend test gave `section`: when
    /// it passed [`DRIFT_P`], the step's own trend goes the same way and
    /// its last half moved [`DRIFT_PERCENT`] or more from its first.
    pub fn drift(section: &crate::stats::trend::Trend, figures: &[f64]) -> Option<Mark> {
        use crate::stats::describe::median;
        use crate::stats::trend::kendall_s;
        let half = figures.len() / 2;
        if section.p >= DRIFT_P || half == 0 {
            return None;
        }
        let own = kendall_s(figures).s;
        let first = median(&figures[..half])?;
        let last = median(&figures[figures.len() - half..])?;
        if first.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || own * section.s <= 0.0 {
            return None;
        }
        let percent: f64 = 100.0 * (last / first - 1.0);
        (percent.abs() >= DRIFT_PERCENT && percent * own > 0.0).then_some(Mark::Drift { percent })
    }

    /// The burst mark of a storage line whose IO/s per sub-interval are
    /// `samples`: the best single step of the series
    /// ([`crate::stats::change`]) when it is a drop of at least
    /// [`BURST_DROP_PERCENT`] that two levels fit [`BURST_FIT_RATIO`]
    /// better than a line, each level [`BURST_MIN_SAMPLES`] long.
    pub fn burst(samples: &crate::samples::Samples) -> Option<Mark> {
        let interval_s = samples.sample_interval_ns? as f64 / 1e9;
        let rates = &samples.samples;
        let min_len = BURST_MIN_SAMPLES
            .max(rates.len() / 5)
            .max((BURST_MIN_SECONDS / interval_s).ceil() as usize);
        let c = crate::stats::change::best_split(rates, min_len)?;
        let drop = 100.0 * (1.0 - c.after / c.before);
        let marked = c.before > 0.0 && drop >= BURST_DROP_PERCENT && c.fit_ratio <= BURST_FIT_RATIO;
        marked.then_some(Mark::Burst {
            before: c.before,
            seconds: c.split as f64 * interval_s,
            after: c.after,
        })
    }

    /// The zeros mark of a read line, past [`ZEROS_PERCENT`].
    pub fn zeros(check: &crate::dd_io::ReadCheck) -> Option<Mark> {
        let percent = check.zero_percent()?;
        (percent >= ZEROS_PERCENT).then_some(Mark::Zeros { percent })
    }

    /// The steal mark, when steal passed [`STEAL_PERCENT`] and the tick
    /// resolution.
    pub fn steal(c: &CpuLoad) -> Option<Mark> {
        (c.steal_percent > STEAL_PERCENT && c.steal_ns > c.resolution_ns).then_some(Mark::Steal {
            percent: c.steal_percent,
        })
    }

    /// The throttled mark, when the share of the needed CPU time the quota
    /// took passed [`THROTTLED_PERCENT`].
    pub fn throttled(percent_of_needed: f64) -> Option<Mark> {
        (percent_of_needed > THROTTLED_PERCENT).then_some(Mark::Throttled {
            percent: percent_of_needed,
        })
    }

    /// The other-I/O mark, when the share passed [`OTHER_IO_PERCENT`] with
    /// at least [`OTHER_IO_MIN_REQUESTS`] foreign requests or
    /// [`OTHER_IO_MIN_BYTES`] foreign bytes.
    pub fn other_io(d: &DeviceIoShare) -> Option<Mark> {
        let enough =
            d.foreign_requests >= OTHER_IO_MIN_REQUESTS || d.foreign_bytes >= OTHER_IO_MIN_BYTES;
        (d.foreign_percent > OTHER_IO_PERCENT && enough).then(|| Mark::OtherIo {
            device: d.device.clone(),
            percent: d.foreign_percent,
        })
    }

    /// The cached mark, when the reach check found the line cached (its
    /// devices saw less than [`super::reach::CACHED_BELOW_PERCENT`] of its bytes).
    pub fn cached(r: &Reach) -> Option<Mark> {
        let ReachVerdict::Cached {
            device_share_percent,
        } = r.verdict
        else {
            return None;
        };
        Some(Mark::Cached {
            devices: r.devices.join("+"),
            percent: device_share_percent,
            reads: r.direction == Direction::Read,
        })
    }
}

/// The marks a step of kind `step` earns from its load and, for a storage
/// line, its reach check, in a stable order: busy, steal, throttled, other
/// I/O per device, cached, below max clock, thermal throttled, swapping;
/// only those that apply to `step`. The runner adds the clock mark after
/// a CPU step's probe, and the drift mark once a step's trials are in.
pub fn marks(step: Step, load: Option<&StepLoad>, reach: Option<&Reach>) -> Vec<Mark> {
    let mut v = Vec::new();
    if let Some(l) = load {
        if let Some(c) = &l.cpu {
            v.extend(Mark::busy(c, &l.processes));
            v.extend(Mark::steal(c));
        }
        v.extend(l.throttled_percent_of_needed.and_then(Mark::throttled));
        v.extend(l.io.iter().filter_map(Mark::other_io));
    }
    v.extend(reach.and_then(Mark::cached));
    if let Some(l) = load {
        v.extend(l.below_max_clock_percent.and_then(Mark::below_max_clock));
        v.extend(l.thermal_events.and_then(Mark::thermal));
        v.extend(l.swap.and_then(|s| Mark::swapping(s.pages_in, s.pages_out)));
    }
    v.retain(|m| m.kind().applies_to(step));
    v
}

/// How many of a step's trials earned one of its marks: printed after the
/// mark's words when only some did, `(busy 48 %: cc1plus, in 2 of 6
/// trials)`, so that a step whose rate pools all its
/// trials says how much of it the mark concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InTrials {
    /// Trials that earned the mark.
    pub trials: u32,
    /// Trials of the step.
    pub of: u32,
}

impl InTrials {
    /// The words after a mark's own, when only some trials earned it.
    fn suffix(self) -> Option<String> {
        (self.trials < self.of).then(|| format!(", in {} of {} trials", self.trials, self.of))
    }

    /// The count that ends `text`, and the mark's own words before it.
    fn strip(text: &str) -> Option<(&str, InTrials)> {
        let (words, tail) = text.rsplit_once(", in ")?;
        let (n, of) = tail.strip_suffix(" trials")?.split_once(" of ")?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(n) || !digits(of) {
            return None;
        }
        let share = InTrials {
            trials: n.parse().ok()?,
            of: of.parse().ok()?,
        };
        (share.trials >= 1 && share.trials < share.of).then_some((words, share))
    }
}

/// A step's mark as printed: its words, then in how many of the step's
/// trials when only some earned it.
pub fn text_in(mark: &Mark, share: Option<&InTrials>) -> String {
    let tail = share.and_then(|s| s.suffix()).unwrap_or_default();
    format!("{}{tail}", mark.text())
}

/// The mark and its count of trials that [`text_in`] printed as `text`.
pub fn parse_in(text: &str) -> Option<(Mark, Option<InTrials>)> {
    match InTrials::strip(text) {
        Some((words, share)) => Some((Mark::parse(words)?, Some(share))),
        None => Some((Mark::parse(text)?, None)),
    }
}

/// Whether two marks are of the same kind on the same devices (one mark
/// of a step, however many trials earned it).
fn same_place(a: &Mark, b: &Mark) -> bool {
    match (a, b) {
        (Mark::OtherIo { device: x, .. }, Mark::OtherIo { device: y, .. }) => x == y,
        (
            Mark::Cached {
                devices: x,
                reads: r,
                ..
            },
            Mark::Cached {
                devices: y,
                reads: s,
                ..
            },
        ) => x == y && r == s,
        _ => a.kind() == b.kind(),
    }
}

/// The figure a mark prints.
fn percent_of(m: &Mark) -> f64 {
    match m {
        Mark::Busy {
            others_cpu_percent, ..
        } => *others_cpu_percent,
        Mark::Steal { percent }
        | Mark::Shared { percent, .. }
        | Mark::Throttled { percent }
        | Mark::OtherIo { percent, .. }
        | Mark::Cached { percent, .. }
        | Mark::BelowMaxClock { percent }
        | Mark::Zeros { percent } => *percent,
        // The larger drop: the worse trial.
        Mark::Burst { before, after, .. } => before / after.max(f64::MIN_POSITIVE),
        // A larger drop, a larger drift: the worse trial.
        Mark::Clock { percent } => -*percent,
        Mark::Drift { percent } => percent.abs(),
        Mark::ThermalThrottled { events } => *events as f64,
        Mark::Swapping {
            pages_in,
            pages_out,
        } => pages_in.saturating_add(*pages_out) as f64,
    }
}

/// The marks of a step from its trials' (each trial's list, in the order
/// they ran): one mark per kind and device, in the order of
/// [`MarkKind::ALL`], with the figure of the trial it distorted most
/// (the lowest share for `cached`, whose figure says how little reached
/// the device), and in how many trials it was earned.
pub fn of_trials<'a>(trials: impl Iterator<Item = &'a [Mark]>) -> (Vec<Mark>, Vec<InTrials>) {
    let mut found: Vec<(Mark, u32)> = Vec::new();
    let mut of = 0;
    for marks in trials {
        of += 1;
        for m in marks {
            match found.iter_mut().find(|(f, _)| same_place(f, m)) {
                Some((f, n)) => {
                    *n += 1;
                    let worse = match m.kind() {
                        MarkKind::Cached => percent_of(m) < percent_of(f),
                        _ => percent_of(m) > percent_of(f),
                    };
                    if worse {
                        *f = m.clone();
                    }
                }
                None => found.push((m.clone(), 1)),
            }
        }
    }
    found.sort_by_key(|(m, _)| MarkKind::ALL.iter().position(|k| *k == m.kind()));
    found
        .into_iter()
        .map(|(m, trials)| (m, InTrials { trials, of }))
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::load::{cpu_load, LoadSnapshot};
    use crate::sysinfo::cgroup::Throttle;
    use crate::sysinfo::procstat::CpuTimes;

    /// One mark of `kind`, its figures at the precision the text prints.
    fn example(kind: MarkKind) -> Mark {
        match kind {
            MarkKind::Busy => Mark::Busy {
                others_cpu_percent: 48.0,
                others_percent_of_needed: 0.0,
                processes: vec![ProcessShare {
                    pid: 0,
                    comm: "cc1plus".into(),
                    cpu_percent: 0.0,
                }],
            },
            MarkKind::Steal => Mark::Steal { percent: 12.0 },
            MarkKind::Shared => Mark::Shared {
                percent: 46.0,
                loss_percent: 33.0,
            },
            MarkKind::Throttled => Mark::Throttled { percent: 50.0 },
            MarkKind::OtherIo => Mark::OtherIo {
                device: "vda".into(),
                percent: 31.0,
            },
            MarkKind::Cached => Mark::Cached {
                devices: "sda+sdb".into(),
                percent: 0.4,
                reads: true,
            },
            MarkKind::Clock => Mark::Clock { percent: -12.0 },
            MarkKind::BelowMaxClock => Mark::BelowMaxClock { percent: 64.0 },
            MarkKind::ThermalThrottled => Mark::ThermalThrottled { events: 0 },
            MarkKind::Swapping => Mark::Swapping {
                pages_in: 120,
                pages_out: 4000,
            },
            MarkKind::Drift => Mark::Drift { percent: -30.0 },
            MarkKind::Zeros => Mark::Zeros { percent: 97.0 },
            MarkKind::Burst => Mark::Burst {
                before: 3010.0,
                seconds: 12.0,
                after: 1000.0,
            },
        }
    }

    #[test]
    fn advice_is_one_line_that_says_what_to_do() {
        assert!(
            MarkKind::Busy.advice().is_some(),
            "a busy run says what to do"
        );
        for k in MarkKind::ALL {
            let Some(a) = k.advice() else { continue };
            assert!(!a.contains('\n') && a.len() < 200, "{k:?}: {a}");
            assert!(a.starts_with(&format!("{}: ", k.word())), "{k:?}: {a}");
            assert!(a.contains("rerun"), "{k:?}: {a}");
        }
    }

    #[test]
    fn every_kind_reads_back_from_its_text_and_is_explained() {
        for kind in MarkKind::ALL {
            let m = example(kind);
            assert_eq!(m.kind(), kind);
            assert_eq!(Mark::parse(&m.text()), Some(m.clone()), "{}", m.text());
            let why = kind.explanation();
            let word = why.split(" (").next().unwrap();
            assert!(
                m.text().starts_with(word) && why.len() > word.len() + 10,
                "{kind:?}: {why}"
            );
            assert!(explanation().contains(why));
            // The JSON names the kind as `name` says.
            let j = serde_json::to_value(&m).unwrap();
            assert_eq!(j["kind"], kind.name());
        }
        // Each kind once; the schema's list of kinds is the same.
        let names: Vec<&str> = MarkKind::ALL.iter().map(|k| k.name()).collect();
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../schema/report.schema.json")).unwrap();
        let mut in_schema: Vec<&str> = schema["$defs"]["mark"]["properties"]["kind"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mut ours = names.clone();
        ours.sort_unstable();
        ours.dedup();
        in_schema.sort_unstable();
        assert_eq!(ours.len(), names.len(), "a kind twice in ALL");
        assert_eq!(ours, in_schema);
    }

    #[test]
    fn figures_read_back_at_the_precision_printed() {
        let m = Mark::Busy {
            others_cpu_percent: 47.6,
            others_percent_of_needed: 23.8,
            processes: Vec::new(),
        };
        let back = Mark::parse(&m.text()).unwrap();
        assert_eq!(m.text(), "busy 48 %");
        assert_eq!(
            back,
            Mark::Busy {
                others_cpu_percent: 48.0,
                others_percent_of_needed: 0.0,
                processes: Vec::new(),
            }
        );
        assert_eq!(back.text(), m.text());
        let m = Mark::Cached {
            devices: "loop3".into(),
            percent: 0.04,
            reads: false,
        };
        assert_eq!(m.text(), "cached: loop3 saw 0.0 % of these writes");
        assert_eq!(Mark::parse(&m.text()).unwrap().text(), m.text());
        // A device name with `: ` in it still reads back.
        let m = example(MarkKind::OtherIo);
        let odd = Mark::OtherIo {
            device: "a: b".into(),
            percent: 6.0,
        };
        assert_eq!(Mark::parse(&odd.text()), Some(odd));
        assert_eq!(m.text(), "other I/O on vda: 31 %");
    }

    #[test]
    fn a_steps_marks_count_the_trials_that_earned_them() {
        let busy = |p: f64| Mark::Busy {
            others_cpu_percent: p,
            others_percent_of_needed: 0.0,
            processes: Vec::new(),
        };
        let io = |d: &str, p: f64| Mark::OtherIo {
            device: d.into(),
            percent: p,
        };
        let trials: Vec<Vec<Mark>> = vec![
            vec![io("vda", 8.0)],
            vec![],
            vec![busy(20.0), io("vdb", 6.0), io("vda", 31.0)],
            vec![busy(48.0)],
            vec![],
            vec![Mark::Throttled { percent: 9.0 }],
        ];
        let (marks, shares) = of_trials(trials.iter().map(Vec::as_slice));
        assert_eq!(
            marks,
            vec![
                busy(48.0),
                Mark::Throttled { percent: 9.0 },
                io("vda", 31.0),
                io("vdb", 6.0)
            ]
        );
        let counts: Vec<(u32, u32)> = shares.iter().map(|s| (s.trials, s.of)).collect();
        assert_eq!(counts, [(2, 6), (1, 6), (2, 6), (1, 6)]);
        let t = text_in(&marks[0], Some(&shares[0]));
        assert_eq!(t, "busy 48 %, in 2 of 6 trials");
        assert_eq!(parse_in(&t), Some((marks[0].clone(), Some(shares[0]))));
        // Earned by every trial, or a step of one run: the words alone.
        let all = InTrials { trials: 6, of: 6 };
        assert_eq!(text_in(&marks[1], Some(&all)), marks[1].text());
        assert_eq!(text_in(&marks[1], None), marks[1].text());
        assert_eq!(parse_in(&marks[1].text()), Some((marks[1].clone(), None)));
        let t = text_in(&marks[2], Some(&shares[2]));
        assert_eq!(t, "other I/O on vda: 31 %, in 2 of 6 trials");
        assert_eq!(parse_in(&t).unwrap().1, Some(shares[2]));
        for bad in [
            "steal 3 %, in 6 of 6 trials",
            "steal 3 %, in 0 of 6 trials",
            "steal 3 %, in x of 6 trials",
            "steal 3 %, in 2 of 6",
        ] {
            assert_eq!(parse_in(bad), None, "{bad}");
        }
        // No trial marked: no mark.
        let (m, s) = of_trials([[].as_slice(), [].as_slice()].into_iter());
        assert!(m.is_empty() && s.is_empty());
    }

    #[test]
    fn text_that_is_not_a_mark() {
        for t in [
            "",
            "busy",
            "steal -3 %",
            "steal NaN %",
            "throttled 5 %",
            "cached: vda saw 1 % of these bytes",
            "interrupted",
            "other I/O on vda 3 %",
        ] {
            assert_eq!(Mark::parse(t), None, "{t}");
        }
    }

    #[test]
    fn which_steps_carry_which_marks() {
        use MarkKind::*;
        for k in [Busy, Steal] {
            assert!(k.applies_to(Step::Cpu) && k.applies_to(Step::Memory));
            assert!(!k.applies_to(Step::Storage));
        }
        assert!([Step::Cpu, Step::Memory, Step::Storage]
            .iter()
            .all(|s| Throttled.applies_to(*s)));
        for k in [OtherIo, Cached] {
            assert!(k.applies_to(Step::Storage) && !k.applies_to(Step::Cpu));
        }
        for k in [Clock, BelowMaxClock] {
            assert!(k.applies_to(Step::Cpu) && !k.applies_to(Step::Memory));
            assert!(!k.applies_to(Step::Storage));
        }
        assert!(ThermalThrottled.applies_to(Step::Storage));
        assert!(Swapping.applies_to(Step::Memory) && Swapping.applies_to(Step::Storage));
        assert!(!Swapping.applies_to(Step::Cpu));
        assert!(Drift.applies_to(Step::Cpu) && Drift.applies_to(Step::Memory));
        assert!(!Drift.applies_to(Step::Storage));
        assert!(Zeros.applies_to(Step::Storage) && !Zeros.applies_to(Step::Memory));
        assert!(Burst.applies_to(Step::Storage) && !Burst.applies_to(Step::Cpu));
    }

    #[test]
    fn a_step_down_that_stays_is_a_burst_and_steady_or_drifting_lines_are_not() {
        use crate::samples::Samples;
        // 100 ms samples, 3 % noise (a fixed pattern)
        let noise = |k: usize| 1.0 + 0.03 * (((k * 7) % 11) as f64 - 5.0) / 5.0;
        let every = |ms: u64, f: &dyn Fn(usize) -> f64| {
            let rates = (0..40).map(|k| f(k) * noise(k)).collect();
            Samples::new(rates, Some(std::time::Duration::from_millis(ms)))
        };
        let series = |f: &dyn Fn(usize) -> f64| every(100, f);
        let step = series(&|k| if k < 24 { 3000.0 } else { 1000.0 });
        let Some(Mark::Burst {
            before,
            seconds,
            after,
        }) = Mark::burst(&step)
        else {
            panic!("not marked: {step:?}");
        };
        assert!((before / 3000.0 - 1.0).abs() < 0.03, "{before}");
        assert!((after / 1000.0 - 1.0).abs() < 0.03, "{after}");
        assert!((seconds - 2.4).abs() < 1e-9, "{seconds}");
        // the same step in a 2 s line: 0.8 s at the lower rate is no burst
        let short = every(50, &|k| if k < 24 { 3000.0 } else { 1000.0 });
        assert_eq!(Mark::burst(&short), None);
        let steady = series(&|_| 3000.0);
        assert_eq!(Mark::burst(&steady), None);
        // a slow drift from 3000 to 1500 over the line: the drift's business
        let drift = series(&|k| 3000.0 - 37.5 * k as f64);
        assert_eq!(Mark::burst(&drift), None);
        // a step up (a slow start), a small step down, the last sample alone
        assert_eq!(
            Mark::burst(&series(&|k| if k < 20 { 1000.0 } else { 3000.0 })),
            None
        );
        assert_eq!(
            Mark::burst(&series(&|k| if k < 20 { 3000.0 } else { 2500.0 })),
            None
        );
        assert_eq!(
            Mark::burst(&series(&|k| if k < 39 { 3000.0 } else { 100.0 })),
            None
        );
        // the text
        let m = Mark::Burst {
            before: 3010.4,
            seconds: 12.0,
            after: 1000.0,
        };
        assert_eq!(m.text(), "burst: 3,010 IO/s for 12 s, then 1,000 IO/s");
        let m = Mark::Burst {
            before: 1_234_567.0,
            seconds: 0.55,
            after: 12.0,
        };
        assert_eq!(m.text(), "burst: 1,234,567 IO/s for 0.6 s, then 12 IO/s");
        assert_eq!(Mark::parse(&m.text()).unwrap().text(), m.text());
    }

    #[test]
    fn a_read_line_of_mostly_zeros_is_marked() {
        use crate::dd_io::ReadCheck;
        let check = |blocks, zero_blocks| ReadCheck {
            blocks,
            zero_blocks,
            verified: false,
        };
        assert_eq!(Mark::zeros(&check(0, 0)), None);
        assert_eq!(Mark::zeros(&check(100, 49)), None);
        let m = Mark::zeros(&check(1000, 970)).unwrap();
        assert_eq!(
            m.text(),
            "zeros: 97 % of blocks read were never written or discarded; \
             the device may answer them without reading its media"
        );
        assert_eq!(
            Mark::zeros(&check(2, 1)),
            Some(Mark::Zeros { percent: 50.0 })
        );
    }

    #[test]
    fn marks_in_order_and_filtered_by_step() {
        // 2 jobs on 2 CPUs for 1 s; others took 48 % of a CPU.
        let snap = |user: u64, own_ticks: u64| LoadSnapshot {
            per_cpu: vec![
                (
                    0,
                    CpuTimes {
                        user,
                        ..CpuTimes::default()
                    },
                ),
                (
                    1,
                    CpuTimes {
                        user,
                        ..CpuTimes::default()
                    },
                ),
            ],
            own_ticks,
        };
        let busy_cpu = cpu_load(&snap(0, 0), &snap(100, 152), &[0, 1], 2.0, 100);
        let load = StepLoad {
            cpu: busy_cpu,
            throttle: Some(Throttle {
                periods: 10,
                throttled_periods: 10,
                throttled_us: 1_000_000,
            }),
            throttled_percent_of_needed: Some(50.0),
            io: vec![DeviceIoShare {
                device: "vda".into(),
                device_requests: 200,
                foreign_requests: 100,
                device_bytes: 800 * 512,
                foreign_bytes: 400 * 512,
                foreign_requests_percent: 50.0,
                foreign_bytes_percent: 50.0,
                foreign_percent: 50.0,
            }],
            processes: vec![ProcessShare {
                pid: 42,
                comm: "qb-spinner".into(),
                cpu_percent: 47.0,
            }],
            swap: Some(crate::sysinfo::vmstat::SwapDelta {
                pages_in: 10,
                pages_out: 300,
                major_faults: 12,
            }),
            thermal_events: Some(2),
            below_max_clock_percent: Some(60.0),
        };
        let kinds = |v: Vec<Mark>| v.iter().map(Mark::kind).collect::<Vec<_>>();
        let cpu = marks(Step::Cpu, Some(&load), None);
        assert_eq!(
            kinds(cpu.clone()),
            vec![
                MarkKind::Busy,
                MarkKind::Throttled,
                MarkKind::BelowMaxClock,
                MarkKind::ThermalThrottled
            ]
        );
        assert_eq!(cpu[0].text(), "busy 48 %: qb-spinner");
        let m = marks(Step::Storage, Some(&load), None);
        assert_eq!(m[0], Mark::Throttled { percent: 50.0 });
        assert!(matches!(m[1], Mark::OtherIo { percent, .. } if percent == 50.0));
        assert_eq!(
            kinds(m[2..].to_vec()),
            vec![MarkKind::ThermalThrottled, MarkKind::Swapping]
        );
        assert_eq!(m[3].text(), "swapping: 10 pages in, 300 out");
        assert_eq!(m.len(), 4, "{m:?}");
        // Below each threshold: none of the new marks.
        let quiet = StepLoad {
            swap: Some(crate::sysinfo::vmstat::SwapDelta {
                pages_in: 0,
                pages_out: SWAPPED_PAGES,
                major_faults: 900,
            }),
            thermal_events: Some(0),
            below_max_clock_percent: Some(BELOW_MAX_CLOCK_PERCENT),
            ..StepLoad::default()
        };
        for step in [Step::Cpu, Step::Memory, Step::Storage] {
            assert!(marks(step, Some(&quiet), None).is_empty());
        }
        let small = StepLoad {
            throttled_percent_of_needed: Some(THROTTLED_PERCENT),
            ..StepLoad::default()
        };
        assert!(
            marks(Step::Cpu, Some(&small), None).is_empty(),
            "the threshold itself is not marked"
        );
        let j = serde_json::to_string(&m).unwrap();
        assert!(
            j.contains("{\"kind\":\"throttled\",\"percent\":50.0}"),
            "{j}"
        );
        assert_eq!(serde_json::from_str::<Vec<Mark>>(&j).unwrap(), m);
    }

    #[test]
    fn a_cached_line_is_marked_after_its_load() {
        let reach = Reach {
            direction: Direction::Read,
            engine_bytes: 1 << 30,
            devices: vec!["vda".into()],
            device_bytes: Some(4 << 20),
            device_equivalent_bytes: Some(4 << 20),
            device_share_percent: Some(0.4),
            verdict: ReachVerdict::Cached {
                device_share_percent: 0.4,
            },
        };
        let load = StepLoad {
            throttled_percent_of_needed: Some(9.0),
            ..StepLoad::default()
        };
        let m = marks(Step::Storage, Some(&load), Some(&reach));
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].text(), "cached: vda saw 0.4 % of these reads");
        let reached = Reach {
            verdict: ReachVerdict::Reached,
            ..reach
        };
        assert_eq!(Mark::cached(&reached), None);
    }

    #[test]
    fn the_explanation_names_every_mark_once() {
        let e = explanation();
        assert!(e.starts_with("a mark after a figure says what distorted it: busy ("));
        assert!(e.ends_with("or compare only unmarked figures"));
        assert!(e.contains("not a sign of SMT"));
        for k in MarkKind::ALL {
            assert_eq!(e.matches(k.explanation()).count(), 1, "{k:?}");
        }
    }
}
