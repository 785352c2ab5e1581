//! The cgroup limits of this process: CPU quota, memory limit and usage,
//! and the CPU throttling counters.
//!
//! Inside a container the CPUs in the affinity mask are not the CPUs the
//! process gets: a CFS quota (`docker run --cpus 1`) throttles it, and
//! `/proc/meminfo` shows the host's memory while a memory limit can kill
//! it. This module reads, through the [`Sysroot`]:
//!
//! The files (the process's cgroup and each parent's, v1, v2 and the hybrid
//! layout): docs/METHOD.md "cgroup limits: the files read".
//!
//! Measuring code: it returns data and never prints. Missing files mean
//! "no limit here"; unreadable or malformed ones are listed in
//! [`CgroupLimits::notes`] with their path and what to do.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::blockdev::{parse_mountinfo, MountInfo};
use crate::Sysroot;

/// Which cgroup layout the system mounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CgroupVersion {
    /// Only v1 hierarchies (`cgroup` mounts with controllers).
    V1,
    /// Only the unified v2 tree (`cgroup2`).
    V2,
    /// v1 controllers and a v2 tree side by side (systemd's "hybrid").
    Hybrid,
}

/// The hierarchy one controller was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hierarchy {
    /// A v1 hierarchy (`cpu.cfs_quota_us`, `memory.limit_in_bytes`).
    V1,
    /// The v2 tree (`cpu.max`, `memory.max`).
    V2,
}

/// A CFS bandwidth quota: the cgroup's threads together may run
/// `quota_us` of CPU time in every `period_us` of wall time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuQuota {
    /// CPU time allowed per period, microseconds (`cpu.max` first field,
    /// `cpu.cfs_quota_us`).
    pub quota_us: u64,
    /// The period, microseconds (`cpu.max` second field,
    /// `cpu.cfs_period_us`).
    pub period_us: u64,
    /// Which hierarchy the files belong to (v1 or v2 file names).
    pub hierarchy: Hierarchy,
    /// The cgroup that sets it, as named in `/proc/self/cgroup` (`/` is
    /// the root of the cgroup namespace); may be a parent of ours.
    pub from_path: String,
    /// The directory of that cgroup, as an absolute system path
    /// (`/sys/fs/cgroup/cpu/docker/abc`); its `cpu.stat` counts the
    /// throttling.
    pub dir: String,
}

impl CpuQuota {
    /// quota / period: how many CPUs' worth of time the cgroup may use
    /// (1.5 for `150000 100000`).
    pub fn cpus(&self) -> f64 {
        self.quota_us as f64 / self.period_us.max(1) as f64
    }

    /// The `cpu.stat` file (absolute system path) with the throttling
    /// counters of the cgroup that holds this quota.
    pub fn cpu_stat_file(&self) -> String {
        format!("{}/cpu.stat", self.dir)
    }

    /// `Limited to 1 CPU by the cgroup quota (cpu.max 100000 100000)`: the CPU
    /// loop's steps stay the original's powers of two, but a quota bounds
    /// what they get.
    pub fn limit_line(&self) -> String {
        let cpus = self.cpus();
        let n = format!("{cpus:.2}");
        let n = n.trim_end_matches('0').trim_end_matches('.');
        let files = match self.hierarchy {
            Hierarchy::V2 => format!("cpu.max {} {}", self.quota_us, self.period_us),
            Hierarchy::V1 => format!(
                "cpu.cfs_quota_us {}, cpu.cfs_period_us {}",
                self.quota_us, self.period_us
            ),
        };
        format!(
            "Limited to {n} CPU{} by the cgroup quota ({files})",
            if n == "1" { "" } else { "s" }
        )
    }

    /// `Limited to 1 CPU by the cgroup quota (cpu.max 100000 100000)` (or the
    /// v1 files), as [`CpuQuota::limit_line`] prints it: the quota without
    /// its cgroup (`from_path`, `dir` empty). `None` for any other text.
    pub fn parse_limit_line(text: &str) -> Option<CpuQuota> {
        let rest = text.trim().strip_prefix("Limited to ")?;
        let (_, files) = rest.split_once(" by the cgroup quota (")?;
        let files = files.strip_suffix(')')?;
        let num = |s: &str| s.trim().parse::<u64>().ok();
        let (hierarchy, quota_us, period_us) = if let Some(v2) = files.strip_prefix("cpu.max ") {
            let (q, p) = v2.split_once(' ')?;
            (Hierarchy::V2, num(q)?, num(p)?)
        } else {
            let (q, p) = files.split_once(", cpu.cfs_period_us ")?;
            (
                Hierarchy::V1,
                num(q.strip_prefix("cpu.cfs_quota_us ")?)?,
                num(p)?,
            )
        };
        let q = CpuQuota {
            quota_us,
            period_us,
            hierarchy,
            from_path: String::new(),
            dir: String::new(),
        };
        // Only what the renderer prints back the same.
        (q.limit_line() == text.trim()).then_some(q)
    }
}

/// The cgroup limits that bind this process (each the tightest along the
/// path from its cgroup up to the root it can see).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CgroupLimits {
    /// The layout mounted; `None` when no cgroup filesystem is mounted (a
    /// bare chroot, a container without `/sys/fs/cgroup`): limits unknown.
    pub version: Option<CgroupVersion>,
    /// The tightest CPU quota (smallest quota / period), `None` without one.
    pub cpu_quota: Option<CpuQuota>,
    /// quota / period of `cpu_quota`, in CPUs (0.5, 1, 1.5...).
    pub cpus_allowed_by_quota: Option<f64>,
    /// The hierarchy the memory controller was read from.
    pub memory_hierarchy: Option<Hierarchy>,
    /// The smallest memory limit along the path, in bytes (v2 `memory.max`
    /// or `memory.high`, v1 `memory.limit_in_bytes`); `None` when none is
    /// set (v2 `max`, v1's "unlimited" near 2^63).
    pub memory_limit_bytes: Option<u64>,
    /// The file that set `memory_limit_bytes` (`memory.max`,
    /// `memory.high`, `memory.limit_in_bytes`).
    pub memory_limit_file: Option<String>,
    /// The cgroup that sets `memory_limit_bytes`, as named in
    /// `/proc/self/cgroup`.
    pub memory_from: Option<String>,
    /// Memory charged to that cgroup now, bytes (`memory.current`,
    /// `memory.usage_in_bytes`; page cache included).
    pub memory_usage_bytes: Option<u64>,
    /// What the cgroups still allow before the kernel reclaims hard or
    /// kills: the smallest (limit - usage) over every limited cgroup on
    /// the path, in bytes (a parent's siblings count against it).
    pub memory_headroom_bytes: Option<u64>,
    /// The cgroup whose (limit - usage) is `memory_headroom_bytes`.
    pub memory_headroom_from: Option<String>,
    /// Files that could not be read or parsed, and cgroup paths that could
    /// not be mapped to a directory: each names the path and what to do.
    pub notes: Vec<String>,
}

impl CgroupLimits {
    /// True when a CPU quota or a memory limit applies.
    pub fn any(&self) -> bool {
        self.cpu_quota.is_some() || self.memory_limit_bytes.is_some()
    }
}

/// v1 reports "no limit" as the largest page-aligned 63-bit number
/// (9223372036854771712 with 4 KiB pages, other values with other page
/// sizes); anything from 2^62 bytes (4 EiB) up is "no limit" here.
pub const V1_UNLIMITED_FROM_BYTES: u64 = 1 << 62;

/// The period v1 and v2 use when the file does not say (CFS default).
pub const DEFAULT_PERIOD_US: u64 = 100_000;

/// One line of `/proc/self/cgroup`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CgroupEntry {
    /// Hierarchy id (0 for the v2 tree).
    pub hierarchy_id: u32,
    /// Controllers bound to the hierarchy (`cpu`, `cpuacct`,
    /// `name=systemd`); empty for v2.
    pub controllers: Vec<String>,
    /// The cgroup's path, relative to the cgroup namespace root.
    pub path: String,
}

/// Parses `/proc/self/cgroup` (`id:controllers:path` lines); malformed
/// lines are skipped. The path may hold `:`, so only the first two split.
pub fn parse_proc_cgroup(text: &str) -> Vec<CgroupEntry> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ':');
            let hierarchy_id = it.next()?.trim().parse().ok()?;
            let ctl = it.next()?;
            let path = it.next()?.trim_end();
            if !path.starts_with('/') {
                return None;
            }
            Some(CgroupEntry {
                hierarchy_id,
                controllers: ctl
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect(),
                path: path.to_string(),
            })
        })
        .collect()
}

/// One cgroup directory on the way up: its name in `/proc/self/cgroup`'s
/// terms and its absolute system path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Level {
    cgroup_path: String,
    dir: String,
}

/// Where a controller's files are for this process.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Located {
    hierarchy: Hierarchy,
    /// Own cgroup first, then each parent up to the mount's root.
    levels: Vec<Level>,
}

fn is_v1_with(m: &MountInfo, controller: &str) -> bool {
    m.fs_type == "cgroup" && m.super_options.split(',').any(|o| o == controller)
}

/// The system directory of cgroup `path` in a mount of root `root` at
/// `mount_point`, and each parent up to the mount's root; `None` when
/// `path` is not under `root` (a cgroup namespace whose root differs from
/// the mount's, or a path outside the namespace shown as `/..`).
fn levels_under(mount_point: &str, root: &str, path: &str) -> Option<Vec<Level>> {
    let root = root.trim_end_matches('/');
    if path.split('/').any(|c| c == "..") {
        return None;
    }
    let rel = if root.is_empty() {
        path
    } else if path == root {
        ""
    } else {
        path.strip_prefix(root).filter(|r| r.starts_with('/'))?
    };
    let comps: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
    let mp = mount_point.trim_end_matches('/');
    let mut out = Vec::with_capacity(comps.len() + 1);
    for n in (0..=comps.len()).rev() {
        let sub: String = comps[..n].iter().map(|c| format!("/{c}")).collect();
        let cgroup_path = if root.is_empty() && sub.is_empty() {
            "/".to_string()
        } else {
            format!("{root}{sub}")
        };
        let dir = if mp.is_empty() {
            if sub.is_empty() {
                "/".to_string()
            } else {
                sub.clone()
            }
        } else {
            format!("{mp}{sub}")
        };
        out.push(Level { cgroup_path, dir });
    }
    Some(out)
}

/// Finds the directories of `controller` for the process described by
/// `entries`, in `mounts`. v1 first: a controller bound to a v1 hierarchy
/// is not in the v2 tree.
fn locate(
    sys: &Sysroot,
    entries: &[CgroupEntry],
    mounts: &[MountInfo],
    controller: &str,
    notes: &mut Vec<String>,
) -> Option<Located> {
    let v1_entry = entries
        .iter()
        .find(|e| e.hierarchy_id != 0 && e.controllers.iter().any(|c| c == controller));
    let v1_mounts: Vec<&MountInfo> = mounts
        .iter()
        .filter(|m| is_v1_with(m, controller))
        .collect();
    let (hierarchy, entry, candidates) = match (v1_entry, v1_mounts.is_empty()) {
        (Some(e), false) => (Hierarchy::V1, e, v1_mounts),
        _ => {
            let e = entries
                .iter()
                .find(|e| e.hierarchy_id == 0 && e.controllers.is_empty())?;
            let m: Vec<&MountInfo> = mounts.iter().filter(|m| m.fs_type == "cgroup2").collect();
            if m.is_empty() {
                return None;
            }
            (Hierarchy::V2, e, m)
        }
    };
    // A bind mount of a sub-tree may sit beside the full mount: take the
    // one that sees the most parents (shortest root holding the path).
    let mut best: Option<Vec<Level>> = None;
    for m in &candidates {
        if let Some(l) = levels_under(&m.mount_point, &m.root, &entry.path) {
            if best.as_ref().is_none_or(|b| l.len() > b.len()) {
                best = Some(l);
            }
        }
    }
    let levels = match best {
        Some(l) => l,
        None => {
            // A cgroup namespace: /proc/self/cgroup names paths from the
            // namespace's root while the mount's root is named from
            // another. The mount's root is then the deepest directory of
            // ours that we can find; parents above it are out of sight.
            let m = candidates[0];
            notes.push(format!(
                "{}: cgroup {} of /proc/self/cgroup is not under the mount's root {} (a cgroup namespace): {controller} limits read at the mount's root only; a limit set above it is not seen",
                sys.path(&m.mount_point).display(),
                entry.path,
                m.root
            ));
            vec![Level {
                cgroup_path: entry.path.clone(),
                dir: m.mount_point.clone(),
            }]
        }
    };
    if hierarchy == Hierarchy::V2 {
        // The controller must be enabled for our cgroup's level: listed in
        // the `cgroup.controllers` of the top directory we can see.
        let top = &levels[levels.len() - 1].dir;
        if let Some(list) = sys.read_trimmed(format!("{top}/cgroup.controllers")) {
            if !list.split_whitespace().any(|c| c == controller) {
                return None;
            }
        }
    }
    Some(Located { hierarchy, levels })
}

/// What reading one small cgroup file gave.
enum Read {
    Missing,
    Text(String),
    Failed,
}

fn read_file(sys: &Sysroot, path: &str, notes: &mut Vec<String>) -> Read {
    match sys.read_to_string(path) {
        Ok(t) => Read::Text(t.trim().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Read::Missing,
        Err(e) => {
            notes.push(format!(
                "{e}: the limit in this file is unknown (run as root, or make the cgroup filesystem readable)"
            ));
            Read::Failed
        }
    }
}

fn malformed(sys: &Sysroot, path: &str, text: &str, expected: &str, notes: &mut Vec<String>) {
    notes.push(format!(
        "{}: unexpected content {text:?} (expected {expected}): limit ignored; check the cgroup filesystem",
        sys.path(path).display()
    ));
}

/// A limit file's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitValue<T> {
    /// `max`, `-1` or v1's "unlimited": no limit at this level.
    NoLimit,
    /// A limit.
    Limit(T),
}

/// Parses v2 `cpu.max`: `max 100000` (no quota) or `150000 100000`, as
/// (quota, period) in microseconds; `None` when malformed.
pub fn parse_cpu_max(text: &str) -> Option<LimitValue<(u64, u64)>> {
    let mut it = text.split_whitespace();
    let q = it.next()?;
    let period = match it.next() {
        Some(p) => p.parse::<u64>().ok()?,
        None => DEFAULT_PERIOD_US,
    };
    if it.next().is_some() || period == 0 {
        return None;
    }
    if q == "max" {
        return Some(LimitValue::NoLimit);
    }
    Some(LimitValue::Limit((q.parse::<u64>().ok()?, period)))
}

/// Parses a memory limit in bytes: `max` (v2), a byte count, or v1's
/// "unlimited" (at least [`V1_UNLIMITED_FROM_BYTES`]); `None` when
/// malformed.
pub fn parse_memory_limit(text: &str) -> Option<LimitValue<u64>> {
    let t = text.trim();
    // v1 never prints -1 for memory but accepts it on write: a dump made
    // by hand may carry it.
    if t == "max" || t == "-1" {
        return Some(LimitValue::NoLimit);
    }
    let v = t.parse::<u64>().ok()?;
    Some(if v < V1_UNLIMITED_FROM_BYTES {
        LimitValue::Limit(v)
    } else {
        LimitValue::NoLimit
    })
}

fn cpu_quota_at(
    sys: &Sysroot,
    h: Hierarchy,
    level: &Level,
    notes: &mut Vec<String>,
) -> Option<CpuQuota> {
    let (quota_us, period_us) = match h {
        Hierarchy::V2 => {
            let f = format!("{}/cpu.max", level.dir);
            match read_file(sys, &f, notes) {
                Read::Text(t) => match parse_cpu_max(&t) {
                    Some(LimitValue::Limit(q)) => q,
                    Some(LimitValue::NoLimit) => return None,
                    None => {
                        malformed(sys, &f, &t, "\"max PERIOD\" or \"QUOTA PERIOD\"", notes);
                        return None;
                    }
                },
                _ => return None,
            }
        }
        Hierarchy::V1 => {
            let f = format!("{}/cpu.cfs_quota_us", level.dir);
            let quota = match read_file(sys, &f, notes) {
                Read::Text(t) => match t.parse::<i64>() {
                    Ok(q) if q > 0 => q as u64,
                    Ok(_) => return None, // -1: no quota
                    Err(_) => {
                        malformed(sys, &f, &t, "a number of microseconds or -1", notes);
                        return None;
                    }
                },
                _ => return None,
            };
            let f = format!("{}/cpu.cfs_period_us", level.dir);
            let period = match read_file(sys, &f, notes) {
                Read::Text(t) => match t.parse::<u64>() {
                    Ok(p) if p > 0 => p,
                    _ => {
                        malformed(sys, &f, &t, "a number of microseconds", notes);
                        return None;
                    }
                },
                _ => DEFAULT_PERIOD_US,
            };
            (quota, period)
        }
    };
    Some(CpuQuota {
        quota_us,
        period_us,
        hierarchy: h,
        from_path: level.cgroup_path.clone(),
        dir: level.dir.clone(),
    })
}

/// One cgroup's memory limit (smallest of its limit files) and usage.
struct MemLevel {
    limit_bytes: Option<u64>,
    limit_file: &'static str,
    usage_bytes: Option<u64>,
}

fn memory_at(sys: &Sysroot, h: Hierarchy, level: &Level, notes: &mut Vec<String>) -> MemLevel {
    // memory.high is not a kill limit, but above it the kernel throttles
    // and reclaims the cgroup hard: a DRAM figure taken there measures
    // reclaim, so it bounds the arrays as memory.max does.
    let (limit_files, usage_file): (&[&'static str], &str) = match h {
        Hierarchy::V2 => (&["memory.max", "memory.high"], "memory.current"),
        Hierarchy::V1 => (&["memory.limit_in_bytes"], "memory.usage_in_bytes"),
    };
    let mut out = MemLevel {
        limit_bytes: None,
        limit_file: limit_files[0],
        usage_bytes: None,
    };
    for name in limit_files {
        let f = format!("{}/{name}", level.dir);
        if let Read::Text(t) = read_file(sys, &f, notes) {
            match parse_memory_limit(&t) {
                Some(LimitValue::Limit(v)) if out.limit_bytes.is_none_or(|l| v < l) => {
                    out.limit_bytes = Some(v);
                    out.limit_file = name;
                }
                Some(_) => {}
                None => malformed(sys, &f, &t, "a number of bytes or \"max\"", notes),
            }
        }
    }
    if out.limit_bytes.is_some() {
        let f = format!("{}/{usage_file}", level.dir);
        if let Read::Text(t) = read_file(sys, &f, notes) {
            match t.parse::<u64>() {
                Ok(v) => out.usage_bytes = Some(v),
                Err(_) => malformed(sys, &f, &t, "a number of bytes", notes),
            }
        }
    }
    out
}

/// The layout from the mounts: which of v1 (with a controller) and v2 is
/// there. v1 hierarchies without a controller (`name=systemd`) alone do
/// not make a v1 layout.
fn version_of(mounts: &[MountInfo]) -> Option<CgroupVersion> {
    let v1 = mounts.iter().any(|m| {
        m.fs_type == "cgroup"
            && m.super_options
                .split(',')
                .any(|o| !o.is_empty() && !o.starts_with("name=") && !is_mount_flag(o))
    });
    let v2 = mounts.iter().any(|m| m.fs_type == "cgroup2");
    match (v1, v2) {
        (true, true) => Some(CgroupVersion::Hybrid),
        (true, false) => Some(CgroupVersion::V1),
        (false, true) => Some(CgroupVersion::V2),
        (false, false) => None,
    }
}

fn is_mount_flag(o: &str) -> bool {
    matches!(
        o,
        "rw" | "ro"
            | "noprefix"
            | "clone_children"
            | "xattr"
            | "nsdelegate"
            | "memory_recursiveprot"
            | "memory_localevents"
            | "memory_hugetlb_accounting"
            | "favordynmods"
            | "cpuset_v2_mode"
    ) || o.starts_with("release_agent=")
}

/// The limits from already-read `/proc/self/cgroup` text and mounts; the
/// limit files are read through `sys`.
pub fn limits_from(sys: &Sysroot, proc_cgroup: &str, mounts: &[MountInfo]) -> CgroupLimits {
    let mut out = CgroupLimits {
        version: version_of(mounts),
        ..CgroupLimits::default()
    };
    if out.version.is_none() {
        return out;
    }
    let entries = parse_proc_cgroup(proc_cgroup);
    let mut notes = Vec::new();
    if let Some(cpu) = locate(sys, &entries, mounts, "cpu", &mut notes) {
        for level in &cpu.levels {
            if let Some(q) = cpu_quota_at(sys, cpu.hierarchy, level, &mut notes) {
                if out.cpu_quota.as_ref().is_none_or(|b| q.cpus() < b.cpus()) {
                    out.cpu_quota = Some(q);
                }
            }
        }
        out.cpus_allowed_by_quota = out.cpu_quota.as_ref().map(CpuQuota::cpus);
    }
    if let Some(mem) = locate(sys, &entries, mounts, "memory", &mut notes) {
        out.memory_hierarchy = Some(mem.hierarchy);
        for level in &mem.levels {
            let m = memory_at(sys, mem.hierarchy, level, &mut notes);
            let Some(limit) = m.limit_bytes else { continue };
            if out.memory_limit_bytes.is_none_or(|l| limit < l) {
                out.memory_limit_bytes = Some(limit);
                out.memory_limit_file = Some(m.limit_file.to_string());
                out.memory_from = Some(level.cgroup_path.clone());
                out.memory_usage_bytes = m.usage_bytes;
            }
            // Without a usage figure the limit itself is the headroom.
            let head = limit.saturating_sub(m.usage_bytes.unwrap_or(0));
            if out.memory_headroom_bytes.is_none_or(|h| head < h) {
                out.memory_headroom_bytes = Some(head);
                out.memory_headroom_from = Some(level.cgroup_path.clone());
            }
        }
    }
    out.notes = notes;
    out
}

/// Reads this process's cgroup limits from the sysroot's
/// `/proc/self/cgroup`, `/proc/self/mountinfo` and cgroup files. Never
/// fails: what cannot be read is in [`CgroupLimits::notes`].
///
/// A dump (`--sysroot`) gives the limits of the process that made it, when
/// it recorded those files; a dump without them recorded no cgroup, and
/// that is no reason for a note (nor is the reading machine's `/proc`,
/// which has nothing to do with the dump). When the dump's `proc` is a
/// mounted procfs, its `self` is the process reading it, not the dumped
/// one: its limits are not the dump's, and nothing is read.
pub fn read_limits(sys: &Sysroot) -> CgroupLimits {
    if proc_self_is_the_reader(sys) {
        return CgroupLimits::default();
    }
    read_limits_noting(sys, sys.is_live())
}

/// [`read_limits`]; `note_absent`: whether a missing `/proc/self` file is
/// worth a note (on a live system it means `/proc` is not mounted).
fn read_limits_noting(sys: &Sysroot, note_absent: bool) -> CgroupLimits {
    let nothing_to_say =
        |e: &std::io::Error| !note_absent && e.kind() == std::io::ErrorKind::NotFound;
    let mounts = match sys.read_to_string("/proc/self/mountinfo") {
        Ok(t) => parse_mountinfo(&t),
        Err(e) if nothing_to_say(&e) => return CgroupLimits::default(),
        Err(e) => {
            return CgroupLimits {
                notes: vec![format!(
                    "{e}: cgroup limits unknown (is /proc mounted? mount -t proc proc /proc)"
                )],
                ..CgroupLimits::default()
            }
        }
    };
    match sys.read_to_string("/proc/self/cgroup") {
        Ok(t) => limits_from(sys, &t, &mounts),
        Err(e) => {
            let mut l = CgroupLimits {
                version: version_of(&mounts),
                ..CgroupLimits::default()
            };
            if l.version.is_some() && !nothing_to_say(&e) {
                l.notes.push(format!(
                    "{e}: cgroup limits unknown (a kernel without cgroups, or /proc not mounted)"
                ));
            }
            l
        }
    }
}

/// True when the sysroot is a dump whose `proc` is a mounted procfs (a
/// root filesystem with `/proc` mounted, read with `--sysroot`): there
/// `proc/self` names the reading process.
fn proc_self_is_the_reader(sys: &Sysroot) -> bool {
    !sys.is_live()
        && nix::sys::statfs::statfs(&sys.path("/proc"))
            .is_ok_and(|s| s.filesystem_type() == nix::sys::statfs::PROC_SUPER_MAGIC)
}

/// How many CPUs a run may really keep busy: `affinity_cpus` bounded by
/// the quota rounded up (a 1.5-CPU quota still lets 2 threads run, each
/// slowed), at least 1.
#[cfg(test)]
pub fn cpus_within_quota(affinity_cpus: usize, limits: &CgroupLimits) -> usize {
    let by_quota = limits
        .cpus_allowed_by_quota
        .map_or(usize::MAX, |c| c.ceil().max(1.0) as usize);
    affinity_cpus.min(by_quota).max(1)
}

/// The throttling counters of one cgroup's `cpu.stat` at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThrottleCounters {
    /// Quota periods in which the cgroup had runnable threads
    /// (`nr_periods`).
    pub periods: u64,
    /// Periods in which it ran out of quota (`nr_throttled`).
    pub throttled_periods: u64,
    /// Time its threads spent throttled, microseconds, summed over CPUs
    /// (v2 `throttled_usec`; v1 `throttled_time` is in nanoseconds).
    pub throttled_us: u64,
}

/// Parses the throttling counters of a `cpu.stat` (v1 or v2: the v1 file
/// has `throttled_time` in ns, the v2 one `throttled_usec`). `None` when
/// `nr_periods` or `nr_throttled` is missing.
pub fn parse_cpu_stat(text: &str) -> Option<ThrottleCounters> {
    let mut periods = None;
    let mut throttled = None;
    let mut us = None;
    let mut ns = None;
    for l in text.lines() {
        let mut it = l.split_whitespace();
        let (Some(k), Some(v)) = (it.next(), it.next()) else {
            continue;
        };
        let Ok(v) = v.parse::<u64>() else { continue };
        match k {
            "nr_periods" => periods = Some(v),
            "nr_throttled" => throttled = Some(v),
            "throttled_usec" => us = Some(v),
            "throttled_time" => ns = Some(v),
            _ => {}
        }
    }
    Some(ThrottleCounters {
        periods: periods?,
        throttled_periods: throttled?,
        throttled_us: us.or(ns.map(|n| n / 1000)).unwrap_or(0),
    })
}

/// The throttling during one step (end minus start; a counter that went
/// backwards, as after the cgroup was recreated, counts 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Throttle {
    /// Quota periods elapsed with runnable threads.
    pub periods: u64,
    /// Periods that ran out of quota.
    pub throttled_periods: u64,
    /// Time spent throttled, microseconds, summed over CPUs.
    pub throttled_us: u64,
}

impl Throttle {
    /// `after - before`, counter by counter, never negative.
    pub fn between(before: &ThrottleCounters, after: &ThrottleCounters) -> Throttle {
        Throttle {
            periods: after.periods.saturating_sub(before.periods),
            throttled_periods: after
                .throttled_periods
                .saturating_sub(before.throttled_periods),
            throttled_us: after.throttled_us.saturating_sub(before.throttled_us),
        }
    }

    /// The share (0..=100) of the CPU time the step needed
    /// (`needed_cpus` x `elapsed_ns`) that its threads spent throttled:
    /// the kernel sums the throttled time over the CPUs whose run queue
    /// was throttled, so a 2-job step under a 1-CPU quota, stopped half of
    /// each period on both CPUs, gives 50 %.
    pub fn percent_of_needed(&self, elapsed_ns: u64, needed_cpus: f64) -> f64 {
        let cap_us = elapsed_ns as f64 / 1e3 * needed_cpus.max(0.0);
        if cap_us <= 0.0 {
            return 0.0;
        }
        (100.0 * (self.throttled_us as f64 / cap_us)).min(100.0)
    }
}

/// Snapshots the throttling counters of the cgroup that holds the quota
/// when a step starts; [`ThrottleSampler::finish`] gives the step's
/// [`Throttle`].
#[derive(Debug, Clone)]
pub struct ThrottleSampler {
    sys: Sysroot,
    file: String,
    first: ThrottleCounters,
}

impl ThrottleSampler {
    /// Starts sampling `cpu.stat` of the cgroup that holds `limits`'s CPU
    /// quota; `None` without a quota (nothing throttles) or when the file
    /// cannot be read or parsed.
    pub fn start(sys: &Sysroot, limits: &CgroupLimits) -> Option<ThrottleSampler> {
        let file = limits.cpu_quota.as_ref()?.cpu_stat_file();
        let first = read_counters(sys, &file)?;
        Some(ThrottleSampler {
            sys: sys.clone(),
            file,
            first,
        })
    }

    /// The `cpu.stat` file sampled (absolute system path).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Reads the counters again: the throttling since `start`; `None` when
    /// the file vanished (the cgroup was removed).
    pub fn finish(&self) -> Option<Throttle> {
        let last = read_counters(&self.sys, &self.file)?;
        Some(Throttle::between(&self.first, &last))
    }
}

fn read_counters(sys: &Sysroot, file: &str) -> Option<ThrottleCounters> {
    parse_cpu_stat(&sys.read_to_string(Path::new(file)).ok()?)
}

#[cfg(test)]
mod tests;
