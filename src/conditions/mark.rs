//! The marks: what distorted a figure, printed after its line as
//! `(busy: other processes used 48 % of a CPU)`.
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

/// The kinds of step the runner samples, as far as marks are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A CPU loop step, or the SMT probe.
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
    /// `(busy: other processes used 48 % of a CPU)`.
    Busy {
        /// Their CPU time over the step's elapsed time, in percent of one
        /// CPU (100 = one whole CPU, may exceed 100).
        others_cpu_percent: f64,
        /// The same as a share of the CPU time the step needed, percent
        /// (what the threshold [`BUSY_PERCENT_OF_NEEDED`] applies to; not
        /// printed, so 0 when read back from text).
        others_percent_of_needed: f64,
    },
    /// The hypervisor stole CPU time, e.g. `(steal 12 %)`.
    Steal {
        /// Steal over all time of the CPUs counted, percent.
        percent: f64,
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
}

/// A mark without its figures: what stderr explains and what the runner
/// filters by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// [`Mark::Busy`].
    Busy,
    /// [`Mark::Steal`].
    Steal,
    /// [`Mark::Throttled`].
    Throttled,
    /// [`Mark::OtherIo`].
    OtherIo,
    /// [`Mark::Cached`].
    Cached,
}

impl MarkKind {
    /// Every kind, in the order stderr explains them.
    pub const ALL: [MarkKind; 5] = [
        MarkKind::Busy,
        MarkKind::Steal,
        MarkKind::Throttled,
        MarkKind::OtherIo,
        MarkKind::Cached,
    ];

    /// The kind's name in the JSON (`kind` of a mark).
    pub fn name(self) -> &'static str {
        match self {
            MarkKind::Busy => "busy",
            MarkKind::Steal => "steal",
            MarkKind::Throttled => "throttled",
            MarkKind::OtherIo => "other_io",
            MarkKind::Cached => "cached",
        }
    }

    /// The mark in a word or two, as compare names it (`busy`, `other
    /// I/O`).
    pub fn word(self) -> &'static str {
        match self {
            MarkKind::Busy => "busy",
            MarkKind::Steal => "steal",
            MarkKind::Throttled => "throttled",
            MarkKind::OtherIo => "other I/O",
            MarkKind::Cached => "cached",
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
    pub fn distorts(self) -> bool {
        match self {
            MarkKind::Busy | MarkKind::Steal | MarkKind::OtherIo => true,
            MarkKind::Throttled | MarkKind::Cached => false,
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
            MarkKind::Steal | MarkKind::Throttled | MarkKind::OtherIo | MarkKind::Cached => None,
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
            MarkKind::Throttled => "throttled (the cgroup CPU quota stopped the jobs)",
            MarkKind::OtherIo => "other I/O (the device served I/O that was not ours)",
            MarkKind::Cached => {
                "cached (the device saw much less than was moved: a cache served the figure)"
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
            MarkKind::Throttled => true,
            MarkKind::OtherIo | MarkKind::Cached => step == Step::Storage,
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

impl Mark {
    /// The mark's kind.
    pub fn kind(&self) -> MarkKind {
        match self {
            Mark::Busy { .. } => MarkKind::Busy,
            Mark::Steal { .. } => MarkKind::Steal,
            Mark::Throttled { .. } => MarkKind::Throttled,
            Mark::OtherIo { .. } => MarkKind::OtherIo,
            Mark::Cached { .. } => MarkKind::Cached,
        }
    }

    /// The words of the mark, as printed between parentheses after a line.
    pub fn text(&self) -> String {
        match self {
            Mark::Busy {
                others_cpu_percent, ..
            } => format!("busy: other processes used {others_cpu_percent:.0} % of a CPU"),
            Mark::Steal { percent } => format!("steal {percent:.0} %"),
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
        }
    }

    /// The mark whose [`Mark::text`] is `text` (the words between the
    /// parentheses); `None` when it is not one. Figures the text does not
    /// print read back as 0.
    pub fn parse(text: &str) -> Option<Mark> {
        if let Some(r) = text.strip_prefix("busy: other processes used ") {
            return Some(Mark::Busy {
                others_cpu_percent: number(r.strip_suffix(" % of a CPU")?)?,
                others_percent_of_needed: 0.0,
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
    /// the tick resolution.
    pub fn busy(c: &CpuLoad) -> Option<Mark> {
        (c.others_percent_of_needed > BUSY_PERCENT_OF_NEEDED && c.others_ns > c.resolution_ns)
            .then_some(Mark::Busy {
                others_cpu_percent: c.others_cpu_percent,
                others_percent_of_needed: c.others_percent_of_needed,
            })
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
/// I/O per device, cached; only those that apply to `step`.
pub fn marks(step: Step, load: Option<&StepLoad>, reach: Option<&Reach>) -> Vec<Mark> {
    let mut v = Vec::new();
    if let Some(l) = load {
        if let Some(c) = &l.cpu {
            v.extend(Mark::busy(c));
            v.extend(Mark::steal(c));
        }
        v.extend(l.throttled_percent_of_needed.and_then(Mark::throttled));
        v.extend(l.io.iter().filter_map(Mark::other_io));
    }
    v.extend(reach.and_then(Mark::cached));
    v.retain(|m| m.kind().applies_to(step));
    v
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
            },
            MarkKind::Steal => Mark::Steal { percent: 12.0 },
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
        };
        let back = Mark::parse(&m.text()).unwrap();
        assert_eq!(
            back,
            Mark::Busy {
                others_cpu_percent: 48.0,
                others_percent_of_needed: 0.0
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
        };
        let kinds = |v: Vec<Mark>| v.iter().map(Mark::kind).collect::<Vec<_>>();
        assert_eq!(
            kinds(marks(Step::Cpu, Some(&load), None)),
            vec![MarkKind::Busy, MarkKind::Throttled]
        );
        let m = marks(Step::Storage, Some(&load), None);
        assert_eq!(m[0], Mark::Throttled { percent: 50.0 });
        assert!(matches!(m[1], Mark::OtherIo { percent, .. } if percent == 50.0));
        assert_eq!(m.len(), 2, "{m:?}");
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
