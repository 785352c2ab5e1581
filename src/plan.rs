//! The `[ Plan ]` of `--dry-run`: what a full run would hammer and for how
//! long, computed without writing or measuring anything. It reads a
//! [`PlanInput`] (not the command line) and returns the model's [`Plan`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::blockdev::{Target, TargetKind};
use crate::dd_io::region::{file_size_bound, SizeRefusal};
use crate::model::{BlockSize, Plan, Section};

/// What the plan needs of the run asked for, and nothing else: the
/// caller fills it from its configuration (the command line's, in
/// `quickbench`).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanInput {
    /// The benchmark directory, as given.
    pub dir: PathBuf,
    /// The sections selected, in report order.
    pub sections: Vec<Section>,
    /// `-x`: the extended sections too.
    pub extended: bool,
    /// How long each timed step runs.
    pub loop_delay: Duration,
    /// Block sizes of the storage bandwidth sections.
    pub io_blocks: Vec<BlockSize>,
    /// Job counts of the storage bandwidth lines.
    pub io_jobs: Vec<u32>,
    /// Upper bound of the temporary file, in bytes (`--max-size`).
    pub max_size_bytes: u64,
    /// Trials of each timed step of the standard report (`--repeat`).
    pub repeat: u32,
    /// The whole run's time budget (`--budget`).
    pub budget: Option<Duration>,
    /// A raw device to measure (`--device`), and whether it would be
    /// written (`--destroy`).
    pub device: Option<(PathBuf, bool)>,
}

impl PlanInput {
    /// True when `s` is selected.
    pub fn runs(&self, s: Section) -> bool {
        self.sections.contains(&s)
    }
}

/// Bytes available to an unprivileged user on the filesystem of `dir`.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    crate::dd_io::tempfile::fs_info(dir)
        .ok()
        .map(|f| f.available_bytes)
}

/// Whether O_DIRECT is expected to work on this filesystem, in words.
pub fn direct_io_expectation(fs_type: &str, kernel_release: &str) -> String {
    match fs_type {
        "ext2" | "ext3" | "ext4" | "xfs" | "btrfs" | "f2fs" | "jfs" | "nilfs2" | "bcachefs"
        | "ocfs2" | "gfs2" => "expected to work".into(),
        "nfs" | "nfs4" | "cifs" | "smb3" | "ceph" => {
            "expected to work (network filesystem: figures include the network)".into()
        }
        "tmpfs" => {
            if kernel_at_least(kernel_release, 6, 6) {
                "expected to work (tmpfs since Linux 6.6), but memory is measured".into()
            } else {
                "refused by tmpfs before Linux 6.6: buffered I/O, memory is measured".into()
            }
        }
        "ramfs" => "refused by ramfs: buffered I/O, memory is measured".into(),
        "zfs" => {
            "supported by OpenZFS 2.3 and later; older versions fall back to buffered I/O".into()
        }
        _ => format!("unknown for {fs_type}: falls back to buffered I/O if refused"),
    }
}

/// True when `release` (`6.18.44-fc`) is at least `major.minor`.
pub fn kernel_at_least(release: &str, major: u32, minor: u32) -> bool {
    let mut it = release
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u32>().unwrap_or(0));
    let (a, b) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
    (a, b) >= (major, minor)
}

/// How long a full run with this configuration takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Timed steps, each counted once.
    pub steps: u32,
    /// Of those, the steps run once whatever `--repeat` says (`-x`'s,
    /// and the added sections').
    pub steps_once: u32,
    /// Timed runs: every trial of every step (`--repeat` times each but
    /// `steps_once`), each one loop delay long.
    pub runs: u32,
    /// The estimated run time, seconds.
    pub run_s: f64,
}

/// How long a full run with this configuration takes: each timed step
/// one loop delay, `--repeat` times (the extended ones once), each storage
/// line's trials after their jobs' rest.
pub fn estimate(cfg: &PlanInput, cpu_steps: usize) -> Estimate {
    let mut repeated = 0u32;
    if cfg.runs(Section::Cpu) {
        repeated += cpu_steps as u32;
    }
    if cfg.runs(Section::Memory) {
        repeated += 1;
    }
    let lines = io_lines(cfg);
    repeated += lines;
    // The SMT contention test (one delay), the DRAM runs (1 thread, all CPUs).
    let once = if cfg.extended {
        u32::from(cfg.runs(Section::Cpu)) + 2 * u32::from(cfg.runs(Section::Memory))
    } else {
        0
    } + added_steps(cfg);
    let n = cfg.repeat.max(1);
    let runs = repeated * n + once;
    // each I/O line starts after its jobs' rest (dd_io::SETTLE)
    let rest_s = f64::from(lines * n) * crate::dd_io::SETTLE.as_secs_f64();
    Estimate {
        steps: repeated + once,
        steps_once: once,
        runs,
        run_s: f64::from(runs) * delay_s(cfg.loop_delay) + rest_s,
    }
}

/// The timed steps of the added sections selected (each once, with `-x`).
fn added_steps(cfg: &PlanInput) -> u32 {
    crate::sections::timed(|s| cfg.extended && cfg.runs(s))
        .iter()
        .map(|(_, n)| n)
        .sum()
}

/// Number of storage bandwidth lines: 4k and 1M, writes then reads, each
/// with every job count.
fn io_lines(cfg: &PlanInput) -> u32 {
    // a device read only: its read lines alone
    let directions = match cfg.device {
        Some((_, false)) => 1,
        _ => 2,
    };
    if cfg.runs(Section::Io) {
        cfg.io_blocks.len() as u32 * directions * cfg.io_jobs.len() as u32
    } else {
        0
    }
}

fn delay_s(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Builds the plan; `target` is the resolved storage, when known;
/// `limits` the cgroup limits read at the start of the run; `dir` the
/// benchmark directory as the report names it.
pub fn build(
    cfg: &PlanInput,
    target: Option<&Target>,
    kernel_release: &str,
    cpu_steps: usize,
    sys: &crate::Sysroot,
    limits: &crate::sysinfo::cgroup::CgroupLimits,
    dir: &str,
) -> Plan {
    let live = sys.is_live();
    let raw = cfg.device.as_ref().map(|(_, write)| match write {
        true => crate::model::RawAccess::Write,
        false => crate::model::RawAccess::ReadOnly,
    });
    let free = if live && raw.is_none() {
        free_bytes(&cfg.dir)
    } else {
        None
    };
    let est = estimate(cfg, cpu_steps);
    let repeated = cfg.repeat > 1;
    let dram = (cfg.extended && cfg.runs(Section::Memory))
        .then(|| crate::membw::dram::plan_arrays(sys, limits));
    let dram_bytes = dram.as_ref().map(|p| 3 * p.array_bytes);
    let dram_bounded_by_cgroup = dram
        .as_ref()
        .is_some_and(|p| p.bound == crate::membw::dram::ArrayBound::CgroupMemory);
    let cache_caveat = target.and_then(|t| {
        crate::blockdev::cache_caveat(t, &crate::blockdev::fuse_backing(sys, t)).map(|c| c.reason())
    });
    let skip_reason = match (target, free) {
        (Some(t), _) if crate::fsclass::is_pseudo(&t.fs_type) => Some(format!(
            "{} is a kernel pseudo-filesystem, not storage",
            t.fs_type
        )),
        (_, Some(f)) => match file_size_bound(f, cfg.max_size_bytes) {
            Ok(_) => None,
            Err(SizeRefusal::TooLittleSpace { .. }) => Some(format!(
                "{} free, under the {} needed",
                human_bytes(f),
                human_bytes(crate::dd_io::region::MIN_AVAILABLE_BYTES)
            )),
            Err(_) => Some("--max-size is too small".into()),
        },
        _ => None,
    };
    let direct_io = match target {
        _ if raw.is_some() => "yes: the device itself, in its logical block size".into(),
        Some(t) if t.kind == TargetKind::Overlay => format!(
            "{} (overlay: depends on the upper filesystem)",
            direct_io_expectation("overlay", kernel_release)
        ),
        Some(t) => direct_io_expectation(&t.fs_type, kernel_release),
        None => "unknown".into(),
    };
    let dir = match &cfg.device {
        Some((path, _)) => path.display().to_string(),
        None => dir.to_string(),
    };
    Plan {
        raw,
        dir,
        mount_point: target.map(|t| t.mount_point.clone()),
        fs_type: target.map(|t| t.fs_type.clone()),
        source: target.map(|t| t.source.clone()),
        devices_display: target.map(|t| t.display.clone()),
        free_bytes: free,
        file_bytes_max: free.and_then(|f| file_size_bound(f, cfg.max_size_bytes).ok()),
        skip_reason,
        direct_io,
        estimated_run_s: est.run_s,
        timed_steps: est.steps,
        extended: cfg.extended,
        dram_bytes,
        notes: target.map(|t| t.notes.clone()).unwrap_or_default(),
        cache_caveat,
        dram_bounded_by_cgroup,
        max_size_bytes: cfg.max_size_bytes,
        io_lines: io_lines(cfg),
        io_rest_s: crate::dd_io::SETTLE.as_secs_f64(),
        repeat: repeated.then_some(cfg.repeat),
        steps_once: repeated.then_some(est.steps_once),
        budget_s: cfg.budget.map(|b| b.as_secs_f64()),
        budget_min_s: cfg.budget.map(|_| est.run_s),
    }
}

/// The least `--budget` a run takes: its first pass of trials, every
/// timed step's loop delay and every storage line's rest ([`estimate`]),
/// rounded up to the second.
pub fn budget_minimum(cfg: &PlanInput, cpu_steps: usize) -> Duration {
    Duration::from_secs_f64(estimate(cfg, cpu_steps).run_s.ceil())
}

/// `1.5 GiB`, `512 MiB`: a size for humans, base 1024.
pub fn human_bytes(b: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 || v >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0} {}", U[i])
    } else {
        format!("{v:.1} {}", U[i])
    }
}

/// `9 min 30 s`, `45 s`, `1 h 2 min`.
pub fn human_duration(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 if s % 60 == 0 => format!("{} min", s / 60),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_versions_compare() {
        assert!(kernel_at_least("6.18.44-fc-v1045", 6, 6));
        assert!(kernel_at_least("6.6.0", 6, 6));
        assert!(!kernel_at_least("6.1.0-26-cloud-amd64", 6, 6));
        assert!(!kernel_at_least("5.19", 6, 6));
        assert!(!kernel_at_least("garbage", 6, 6));
    }

    #[test]
    fn tmpfs_says_memory_is_measured() {
        assert!(direct_io_expectation("tmpfs", "6.18").contains("memory is measured"));
        assert!(direct_io_expectation("tmpfs", "6.1").contains("buffered"));
        assert_eq!(direct_io_expectation("ext4", "6.1"), "expected to work");
    }

    /// The standard sections, not [`Section::ALL`]: these tests count
    /// the standard steps, which a section added later does not change.
    const STANDARD: [Section; 5] = [
        Section::Cpuinfo,
        Section::Cpu,
        Section::Memory,
        Section::Storage,
        Section::Io,
    ];

    /// The default run: every section, 4k and 1M, 1, 4 and 16 jobs.
    fn input(delay_s: f64, sections: &[Section]) -> PlanInput {
        PlanInput {
            dir: ".".into(),
            sections: sections.to_vec(),
            extended: false,
            loop_delay: Duration::from_secs_f64(delay_s),
            io_blocks: BlockSize::ALL.to_vec(),
            io_jobs: vec![1, 4, 16],
            max_size_bytes: 4 << 30,
            repeat: 1,
            budget: None,
            device: None,
        }
    }

    #[test]
    fn the_least_budget_is_the_first_pass_rounded_up() {
        // 15 steps of 30 s and 12 rests of 0.2 s: 452.4 s.
        let cfg = input(30.0, &STANDARD);
        assert_eq!(budget_minimum(&cfg, 2), Duration::from_secs(453));
        let cpu = input(1.0, &[Section::Cpu]);
        assert_eq!(budget_minimum(&cpu, 3), Duration::from_secs(3));
    }

    #[test]
    fn estimate_counts_every_timed_step() {
        let cfg = input(30.0, &STANDARD);
        // 15 steps of 30 s, and 12 I/O lines each after a 0.2 s rest
        let e = estimate(&cfg, 2);
        assert_eq!((e.steps, e.steps_once, e.runs), (2 + 1 + 12, 0, 15));
        assert!((e.run_s - (450.0 + 12.0 * 0.2)).abs() < 1e-9, "{e:?}");
        let cfg = input(1.0, &[Section::Io]);
        let e = estimate(&cfg, 2);
        assert_eq!(e.steps, 12);
        assert!((e.run_s - (12.0 + 12.0 * 0.2)).abs() < 1e-9, "{e:?}");
        let cfg = input(1.0, &[Section::Cpu]);
        let e = estimate(&cfg, 2);
        assert_eq!((e.steps, e.run_s), (2, 2.0));
        // -x adds the SMT contention test (one step) and the DRAM runs (two).
        let cfg = PlanInput {
            extended: true,
            ..input(1.0, &STANDARD)
        };
        let e = estimate(&cfg, 2);
        assert_eq!((e.steps, e.steps_once), (2 + 1 + 12 + 1 + 2, 3));
    }

    #[test]
    fn added_sections_timed_steps_count_once_with_x() {
        let all: Vec<Section> = STANDARD
            .iter()
            .copied()
            .chain([Section::Work, Section::Latency])
            .collect();
        let cfg = PlanInput {
            repeat: 3,
            ..input(30.0, &all)
        };
        // Without -x, the added sections do not run.
        let e = estimate(&cfg, 2);
        assert_eq!((e.steps, e.steps_once, e.runs), (15, 0, 15 * 3));
        let cfg = PlanInput {
            extended: true,
            ..cfg
        };
        // -x's 3, CPU work's 6 and memory latency's 10, once each.
        let e = estimate(&cfg, 2);
        assert_eq!((e.steps, e.steps_once, e.runs), (15 + 19, 19, 15 * 3 + 19));
        assert!((e.run_s - (64.0 * 30.0 + 36.0 * 0.2)).abs() < 1e-9, "{e:?}");
        let cfg = PlanInput {
            extended: true,
            ..input(1.0, &[Section::Work])
        };
        assert_eq!(estimate(&cfg, 2).steps, 6);
    }

    #[test]
    fn repeat_multiplies_every_step_but_the_extended_ones() {
        // 3 trials of 15 steps of 30 s, 36 rests of 0.2 s; -x's 3 once.
        let cfg = PlanInput {
            extended: true,
            repeat: 3,
            ..input(30.0, &STANDARD)
        };
        let e = estimate(&cfg, 2);
        assert_eq!((e.steps, e.steps_once, e.runs), (18, 3, 3 * 15 + 3));
        assert!((e.run_s - (48.0 * 30.0 + 36.0 * 0.2)).abs() < 1e-9, "{e:?}");
    }

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(4 << 30), "4 GiB");
        assert_eq!(human_bytes(1536 << 20), "1.5 GiB");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_duration(450.0), "7 min 30 s");
        assert_eq!(human_duration(600.0), "10 min");
        assert_eq!(human_duration(12.0), "12 s");
        assert_eq!(human_duration(3720.0), "1 h 2 min");
    }
}
