//! What lies under a FUSE filesystem: the local directories a daemon such
//! as bindfs or mergerfs serves, so that the device check of
//! [`crate::conditions::reach`] can watch their devices.
//!
//! Reads the mount source from `/proc/self/mountinfo` (bindfs puts its
//! absolute source directory there: `fuse /srv/data`), and, when the
//! source names no directory, `/proc/<pid>/cmdline` and
//! `/proc/<pid>/cwd` of the process whose arguments name the mount point,
//! confirmed by an open `/dev/fuse` in `/proc/<pid>/fd`. Each candidate is
//! resolved with [`resolve_dir`]. Spawns nothing, never errors: no local
//! backing found gives an empty list.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::layout::{device_layout, DeviceLayout};
use super::mountinfo::normalize;
use super::resolve::{resolve_dir, Target};
use crate::sysroot::Sysroot;

/// FUSE over FUSE (bindfs of a bindfs) is followed this deep.
const MAX_DEPTH: usize = 4;

/// True for the filesystem types of FUSE mounts: `fuse` (bindfs shows
/// this), `fuse.sshfs`, `fuseblk` (ntfs-3g, on a block device).
pub fn is_fuse(fs_type: &str) -> bool {
    fs_type == "fuse"
        || fs_type == "fuseblk"
        || fs_type.starts_with("fuse.")
        || fs_type.starts_with("fuseblk.")
}

/// Where a backing directory was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum BackingFrom {
    /// The mount source field of mountinfo.
    MountSource,
    /// An argument of the daemon (the process with `/dev/fuse` open whose
    /// arguments name the mount point).
    DaemonArgument {
        /// The daemon's pid.
        pid: u32,
    },
}

/// A local directory that a FUSE filesystem serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuseBacking {
    /// The backing directory as found (absolute).
    pub path: PathBuf,
    /// Where it was found.
    pub from: BackingFrom,
    /// Type of the filesystem holding it (`ext4`).
    pub fs_type: String,
    /// Its mount point.
    pub mount_point: String,
    /// Kernel names of the devices that filesystem sits on (never empty:
    /// directories without a local device are not returned).
    pub members: Vec<String>,
    /// Name for titles (`vda`, `loop3`).
    pub display: String,
}

/// The local directories behind the FUSE mount holding `target`, each
/// with its devices; empty when `target` is not FUSE, is `fuseblk` (its
/// own device is already the target's), or nothing local was found
/// (sshfs, a daemon in another pid namespace).
pub fn fuse_backing(sys: &Sysroot, target: &Target) -> Vec<FuseBacking> {
    backing_of(
        sys,
        &target.fs_type,
        &target.source,
        &target.mount_point,
        target.mount_id,
        0,
    )
}

/// The layout to check a target's lines against: for FUSE with a local
/// backing, the devices under the backing directories; else the target's
/// own members.
pub fn check_layout(sys: &Sysroot, target: &Target, fuse: &[FuseBacking]) -> DeviceLayout {
    if fuse.is_empty() {
        return device_layout(sys, &target.members);
    }
    let mut roots: Vec<String> = Vec::new();
    for b in fuse {
        for m in &b.members {
            if !roots.contains(m) {
                roots.push(m.clone());
            }
        }
    }
    device_layout(sys, &roots)
}

fn backing_of(
    sys: &Sysroot,
    fs_type: &str,
    source: &str,
    mount_point: &str,
    mount_id: u64,
    depth: usize,
) -> Vec<FuseBacking> {
    if !is_fuse(fs_type) || fs_type.starts_with("fuseblk") || depth >= MAX_DEPTH {
        return Vec::new();
    }
    let mut candidates: Vec<(PathBuf, BackingFrom)> = path_list(source)
        .into_iter()
        .map(|p| (p, BackingFrom::MountSource))
        .collect();
    if candidates.is_empty() {
        candidates = daemon_dirs(sys, Path::new(mount_point))
            .into_iter()
            .map(|(p, pid)| (p, BackingFrom::DaemonArgument { pid }))
            .collect();
    }
    let mut out: Vec<FuseBacking> = Vec::new();
    for (path, from) in candidates {
        let Ok(t) = resolve_dir(sys, &path) else {
            continue;
        };
        // The mount point itself, or a path under the FUSE mount.
        if t.mount_id == mount_id {
            continue;
        }
        let found = if is_fuse(&t.fs_type) && t.members.is_empty() {
            backing_of(
                sys,
                &t.fs_type,
                &t.source,
                &t.mount_point,
                t.mount_id,
                depth + 1,
            )
        } else if t.members.is_empty() {
            Vec::new()
        } else {
            vec![FuseBacking {
                path,
                from,
                fs_type: t.fs_type,
                mount_point: t.mount_point,
                members: t.members,
                display: t.display,
            }]
        };
        for f in found {
            if !out.iter().any(|o| o.path == f.path) {
                out.push(f);
            }
        }
    }
    out
}

/// Absolute paths in a source or argument: `/a`, or `/a:/b` (mergerfs
/// branches) when every part is absolute, so that `host:/export` (sshfs)
/// is never read as a local `/export`.
fn path_list(s: &str) -> Vec<PathBuf> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.iter().all(|p| p.starts_with('/')) {
        parts.iter().map(|p| normalize(Path::new(p))).collect()
    } else {
        Vec::new()
    }
}

/// The existing directories among the arguments of the FUSE daemon serving
/// `mount_point` (the process with `/dev/fuse` open whose arguments name
/// it), with its pid; empty when no such process is visible (another pid
/// namespace, a dump without `/proc/<pid>`).
///
/// Arguments are compared lexically (joined to the daemon's cwd): touching
/// every process's paths could hang on a dead network mount. Options
/// (`-x`, and the value after `-o`) are skipped.
pub fn daemon_dirs(sys: &Sysroot, mount_point: &Path) -> Vec<(PathBuf, u32)> {
    let pids = sys.list_dir("/proc").unwrap_or_default();
    for pid in pids.iter().filter_map(|p| p.parse::<u32>().ok()) {
        let Ok(raw) = sys.read_bytes(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let args: Vec<String> = raw
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let Some(cwd) = std::fs::read_link(sys.path(format!("/proc/{pid}/cwd"))).ok() else {
            continue;
        };
        let abs = |a: &str| normalize(&cwd.join(a));
        if !args.iter().skip(1).any(|a| abs(a) == mount_point) || !holds_dev_fuse(sys, pid) {
            continue;
        }
        let mut out = Vec::new();
        let mut after_o = false;
        for a in args.iter().skip(1) {
            let skip = after_o || a.starts_with('-');
            after_o = a == "-o";
            if skip || abs(a) == mount_point {
                continue;
            }
            let paths = if a.starts_with('/') {
                path_list(a)
            } else {
                vec![abs(a)]
            };
            for p in paths.into_iter().filter(|p| sys.path(p).is_dir()) {
                out.push((p, pid));
            }
        }
        return out;
    }
    Vec::new()
}

/// True when the process has `/dev/fuse` open (it serves a FUSE mount).
fn holds_dev_fuse(sys: &Sysroot, pid: u32) -> bool {
    let fd_dir = format!("/proc/{pid}/fd");
    sys.list_dir(&fd_dir).unwrap_or_default().iter().any(|fd| {
        std::fs::read_link(sys.path(format!("{fd_dir}/{fd}")))
            .is_ok_and(|l| l == Path::new("/dev/fuse"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuse_types() {
        for t in ["fuse", "fuse.sshfs", "fuse.mergerfs", "fuseblk"] {
            assert!(is_fuse(t), "{t}");
        }
        for t in ["fusectl", "ext4", "nfs4", ""] {
            assert!(!is_fuse(t), "{t}");
        }
    }

    #[test]
    fn only_absolute_lists_are_paths() {
        assert_eq!(path_list("/srv/data"), vec![PathBuf::from("/srv/data")]);
        assert_eq!(
            path_list("/mnt/a:/mnt/b/../c"),
            vec![PathBuf::from("/mnt/a"), PathBuf::from("/mnt/c")]
        );
        assert!(path_list("host:/export").is_empty());
        assert!(path_list("user@host:/srv").is_empty());
        assert!(path_list("mergerfs").is_empty());
        assert!(path_list("").is_empty());
    }
}
