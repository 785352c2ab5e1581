//! The block device(s) behind a directory.
//!
//! Reads `/proc/self/mountinfo`, `statx(STATX_MNT_ID)` on a live system
//! (else the longest component-wise mount-point prefix), `/sys/dev/block/`,
//! `/sys/class/block/*`, `/sys/fs/btrfs/*/devices/`, `/run/udev/data/` and
//! the mount options. Returns a [`Target`]: what the filesystem is, the
//! kernel names of the disks to watch, and the name for report titles.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use serde::Serialize;

use super::mountinfo::{self, MountInfo};
use super::{sysfs, udev};
use crate::fsclass::{self, FsClass};
use crate::sysroot::Sysroot;

/// What kind of storage holds the filesystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// Local block device(s): disk, partition, dm, md, loop, btrfs members.
    Block,
    /// No local device: NFS, CIFS, Ceph, FUSE, 9p, virtiofs...
    Network,
    /// RAM: tmpfs, ramfs.
    Memory,
    /// overlayfs; the devices are those of its upper directory, if visible.
    Overlay,
    /// A ZFS dataset; the devices are the pool's member disks, if known.
    Zfs,
    /// Anything else (proc, an unresolvable source...).
    Unknown,
}

/// How the mount holding the directory was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MountLookup {
    /// `statx(STATX_MNT_ID)` matched a mount id: exact.
    Statx,
    /// Longest component-wise mount-point prefix of the resolved path.
    Prefix,
    /// No visible mount holds the path (a chroot whose root is not a mount
    /// point): the device number of the directory itself (`stat`).
    DeviceNumber,
}

/// The storage behind a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Target {
    /// The directory asked about, as given.
    pub dir: PathBuf,
    /// The resolved absolute path that was looked up.
    pub path: PathBuf,
    /// How the mount was found.
    pub lookup: MountLookup,
    /// mountinfo mount ID of the mount holding `path`.
    pub mount_id: u64,
    /// Its mount point.
    pub mount_point: String,
    /// Its root inside the filesystem (`/@home`, `/data/www` for a bind).
    pub root: String,
    /// Filesystem type (`ext4`, `btrfs`, `nfs4`).
    pub fs_type: String,
    /// Mount source (`/dev/vda`, `tank/data`, `server:/export`).
    pub source: String,
    /// Per-mount options.
    pub mount_options: String,
    /// Per-superblock options.
    pub super_options: String,
    /// What kind of storage this is.
    pub kind: TargetKind,
    /// Kernel names of the devices holding the filesystem as mounted
    /// (`sda1`, `dm-0`, `sdb1`): the roots of the device stack.
    pub members: Vec<String>,
    /// Kernel names of the whole devices whose `stat` the I/O engine reads
    /// (`sda` for `sda1`); empty when there is no local block device.
    pub devices: Vec<String>,
    /// Name for the bandwidth titles: `vda`, `sda+sdb`, `dm-0`, `tank`,
    /// `tmpfs`, `nfs4 server:/export`. Never empty, never `?`.
    pub display: String,
    /// True when a `[ Storage device stack ]` section applies (dm, md, loop,
    /// multi-device btrfs, ZFS, any device with slaves).
    pub stacked: bool,
    /// Short human notes, one per fact the stack tree does not show, each
    /// `<subject>: <phrase>`: the members of a multi-device filesystem
    /// (`btrfs: members sda1, sdb1`), then for every device of the stack,
    /// top-down, its partition's disk (`sdb1: partition of sdb`), dm name
    /// (`dm-1: LVM volume /dev/mapper/vg0-root`), md level (`md0: raid1
    /// array`), loop backing file (`loop0: backed by /var/tmp/img`); an
    /// overlay's upper directory, a ZFS pool's members, or why no device was
    /// found.
    pub notes: Vec<String>,
}

/// The part of a [`Target`] that depends on the mount only.
struct Storage {
    kind: TargetKind,
    members: Vec<String>,
    devices: Vec<String>,
    display: String,
    stacked: bool,
    notes: Vec<String>,
}

/// Resolves the storage behind `dir`.
///
/// On a live system `dir` is a real path (resolved with `realpath` and
/// `statx`); under a dump sysroot it is interpreted against the dump's
/// mountinfo only.
pub fn resolve_dir(sys: &Sysroot, dir: &Path) -> anyhow::Result<Target> {
    let mounts = mountinfo::read_mountinfo(sys).with_context(|| {
        format!(
            "cannot find the filesystem of {}: the mount table is unreadable (is /proc mounted?)",
            dir.display()
        )
    })?;
    let (path, found) = find_mount(sys, &mounts, dir)?;
    let synthetic;
    let found = match found {
        Some(f) => Some(f),
        None if sys.is_live() => {
            synthetic = from_device_number(&path);
            synthetic.as_ref().map(|m| (MountLookup::DeviceNumber, m))
        }
        None => None,
    };
    let (lookup, m) = found.ok_or_else(|| {
        anyhow!(
            "no mount in {} holds {}; choose a directory on a mounted filesystem",
            sys.path("/proc/self/mountinfo").display(),
            path.display()
        )
    })?;
    let st = classify(sys, &mounts, m, 0);
    Ok(Target {
        dir: dir.to_path_buf(),
        path,
        lookup,
        mount_id: m.mount_id,
        mount_point: m.mount_point.clone(),
        root: m.root.clone(),
        fs_type: m.fs_type.clone(),
        source: m.mount_source.clone(),
        mount_options: m.mount_options.clone(),
        super_options: m.super_options.clone(),
        kind: st.kind,
        members: st.members,
        devices: st.devices,
        display: st.display,
        stacked: st.stacked,
        notes: st.notes,
    })
}

type Found<'a> = Option<(MountLookup, &'a MountInfo)>;

/// A stand-in mount entry from `stat(path).st_dev` and `statfs(path)`, for
/// a directory whose mount is not in this process's mountinfo (inside a
/// chroot, mounts above its root are not listed). Only a real block device
/// (major != 0) is worth it.
fn from_device_number(path: &Path) -> Option<MountInfo> {
    let st = nix::sys::stat::stat(path).ok()?;
    let (major, minor) = (libc::major(st.st_dev), libc::minor(st.st_dev));
    if major == 0 {
        return None;
    }
    let fs_type = nix::sys::statfs::statfs(path)
        .ok()
        // The magic's integer type differs between architectures.
        .map(|s| {
            #[allow(clippy::unnecessary_cast)]
            let magic = s.filesystem_type().0 as i64;
            fs_type_name(magic)
        })
        .unwrap_or("unknown");
    Some(MountInfo {
        mount_id: 0,
        parent_id: 0,
        major,
        minor,
        root: "/".into(),
        mount_point: path.display().to_string(),
        mount_options: String::new(),
        optional_fields: Vec::new(),
        fs_type: fs_type.into(),
        mount_source: String::new(),
        super_options: String::new(),
    })
}

/// The name of a statfs magic number, for the filesystems that sit on
/// block devices.
fn fs_type_name(magic: i64) -> &'static str {
    match magic {
        0xEF53 => "ext4",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0xF2F5_2010 => "f2fs",
        0x4d44 => "vfat",
        0x5346_544E => "ntfs",
        0x2FC1_2FC1 => "zfs",
        _ => "unknown",
    }
}

/// The absolute path of a directory as the mounts see it: on a live
/// system the kernel's real path (`realpath`: links and `..` resolved,
/// `.` made absolute); in a dump, `dir` taken from the dump's root and
/// normalized. The error names the directory and what to do.
pub fn real_dir(sys: &Sysroot, dir: &Path) -> anyhow::Result<PathBuf> {
    if !sys.is_live() {
        return Ok(mountinfo::normalize(&Path::new("/").join(dir)));
    }
    std::fs::canonicalize(dir).with_context(|| {
        format!(
            "benchmark directory {}: cannot resolve it; give an existing, readable directory",
            dir.display()
        )
    })
}

/// The resolved path of `dir` and the mount holding it.
fn find_mount<'a>(
    sys: &Sysroot,
    mounts: &'a [MountInfo],
    dir: &Path,
) -> anyhow::Result<(PathBuf, Found<'a>)> {
    let path = real_dir(sys, dir)?;
    if !sys.is_live() {
        let m = mountinfo::find_by_prefix(mounts, &path);
        return Ok((path, m.map(|m| (MountLookup::Prefix, m))));
    }
    Ok((path.clone(), lookup_live(mounts, &path)))
}

fn lookup_live<'a>(mounts: &'a [MountInfo], path: &Path) -> Found<'a> {
    if let Some(id) = mountinfo::statx_mount_id(path) {
        if let Some(m) = mounts.iter().find(|m| m.mount_id == id) {
            return Some((MountLookup::Statx, m));
        }
    }
    mountinfo::find_by_prefix(mounts, path).map(|m| (MountLookup::Prefix, m))
}

/// `ext4 /dev/sda1`, `nfs4 server:/export`, or the type alone when the
/// source says nothing more (`tmpfs tmpfs`, `none`, empty).
fn describe(m: &MountInfo) -> String {
    let src = m.mount_source.as_str();
    if src.is_empty() || src == m.fs_type || src == "none" {
        m.fs_type.clone()
    } else {
        format!("{} {}", m.fs_type, src)
    }
}

fn no_device(kind: TargetKind, display: String, notes: Vec<String>) -> Storage {
    Storage {
        kind,
        members: Vec::new(),
        devices: Vec::new(),
        display,
        stacked: false,
        notes,
    }
}

fn classify(sys: &Sysroot, mounts: &[MountInfo], m: &MountInfo, depth: usize) -> Storage {
    let fs = m.fs_type.as_str();
    // A source that lists several devices (bcachefs: `/dev/sdc1:/dev/sdc2`)
    // names every member; MAJ:MIN is only the first one's.
    let listed = listed_sources(sys, &m.mount_source);
    if fs == "bcachefs" || listed.len() > 1 {
        let mut names = listed;
        if names.is_empty() && m.major != 0 {
            names.extend(sysfs::name_of_devno(sys, m.major, m.minor));
        }
        if fs == "bcachefs" {
            if let Some(first) = names.first().cloned() {
                names.extend(bcachefs_members(sys, &first));
            }
        }
        if !names.is_empty() {
            let mut st = block(sys, names);
            if st.members.len() > 1 {
                st.notes
                    .insert(0, format!("{fs}: members {}", st.members.join(", ")));
            }
            return st;
        }
    }
    if m.major != 0 {
        let name = sysfs::name_of_devno(sys, m.major, m.minor)
            .or_else(|| sysfs::name_of_source(sys, &m.mount_source));
        return match name {
            Some(n) => block(sys, vec![n]),
            None => unknown(m),
        };
    }
    match fs {
        "btrfs" => match sysfs::name_of_source(sys, &m.mount_source) {
            Some(n) => {
                let mut st = block(sys, btrfs_members(sys, &n));
                if st.members.len() > 1 {
                    st.notes
                        .insert(0, format!("btrfs: members {}", st.members.join(", ")));
                }
                st
            }
            None => unknown(m),
        },
        "zfs" => zfs(sys, m),
        "overlay" => overlay(sys, mounts, m, depth),
        _ if fsclass::classify(fs) == FsClass::Memory => {
            no_device(TargetKind::Memory, fs.to_string(), vec![])
        }
        _ if fsclass::classify(fs) == FsClass::Network => {
            match sysfs::name_of_source(sys, &m.mount_source) {
                Some(n) => block(sys, vec![n]),
                None => no_device(TargetKind::Network, describe(m), vec![]),
            }
        }
        _ => match sysfs::name_of_source(sys, &m.mount_source) {
            Some(n) => block(sys, vec![n]),
            None => unknown(m),
        },
    }
}

/// The kernel names of a mount source that lists `/dev/` nodes separated
/// by `:` (one or more); empty for anything else (`server:/export`).
fn listed_sources(sys: &Sysroot, source: &str) -> Vec<String> {
    let parts: Vec<&str> = source.split(':').collect();
    if !parts.iter().all(|p| p.starts_with("/dev/")) {
        return Vec::new();
    }
    parts
        .iter()
        .filter_map(|p| sysfs::name_of_source(sys, p))
        .collect()
}

fn unknown(m: &MountInfo) -> Storage {
    no_device(
        TargetKind::Unknown,
        describe(m),
        vec![format!(
            "no block device found for {} (MAJ:MIN {}:{})",
            describe(m),
            m.major,
            m.minor
        )],
    )
}

/// The storage of a raw device `name` at `path` (`--device`): no mount,
/// the device and the stack under it as for a filesystem on it.
pub fn device_target(sys: &Sysroot, name: &str, path: &Path) -> Target {
    let st = block(sys, vec![name.to_string()]);
    Target {
        dir: path.to_path_buf(),
        path: path.to_path_buf(),
        lookup: MountLookup::DeviceNumber,
        mount_id: 0,
        mount_point: String::new(),
        root: String::new(),
        // the run line's `/dev/sdb (raw on sdb)`
        fs_type: "raw".into(),
        source: path.display().to_string(),
        mount_options: String::new(),
        super_options: String::new(),
        kind: st.kind,
        display: name.replace('!', "/"),
        members: st.members,
        devices: st.devices,
        stacked: st.stacked,
        notes: st.notes,
    }
}

/// Storage on the kernel devices `names` (partitions map to their disks).
fn block(sys: &Sysroot, mut names: Vec<String>) -> Storage {
    names.sort_by_key(|n| sysfs::devno(sys, n).map(|(a, b)| sysfs::makedev(a, b)));
    names.dedup();
    let mut devices: Vec<String> = Vec::new();
    for n in &names {
        let disk = sysfs::whole_disk(sys, n);
        if !devices.contains(&disk) {
            devices.push(disk);
        }
    }
    let mut notes = Vec::new();
    let mut seen = Vec::new();
    for n in &names {
        device_notes(sys, n, 0, &mut seen, &mut notes);
    }
    let stacked = names.len() > 1 || devices.iter().any(|d| sysfs::is_stacked(sys, d));
    Storage {
        kind: TargetKind::Block,
        display: devices
            .iter()
            .map(|d| d.replace('!', "/"))
            .collect::<Vec<_>>()
            .join("+"),
        members: names,
        devices,
        stacked,
        notes,
    }
}

/// One short note per device of the stack under `name` that says what the
/// tree does not (`sdb1: partition of sdb`, `dm-1: LVM volume
/// /dev/mapper/vg0-root`, `md0: raid1 array`, `loop0: backed by
/// /var/tmp/img`), top-down, each device once.
fn device_notes(
    sys: &Sysroot,
    name: &str,
    depth: usize,
    seen: &mut Vec<String>,
    notes: &mut Vec<String>,
) {
    if depth > 16 || seen.iter().any(|s| s == name) {
        return;
    }
    seen.push(name.to_string());
    let shown = name.replace('!', "/");
    let parent = if name.starts_with("dm-") {
        None
    } else {
        sysfs::parent_disk(sys, name)
    };
    if let Some(disk) = &parent {
        notes.push(format!("{shown}: partition of {}", disk.replace('!', "/")));
    }
    if let Some(dm) = sysfs::dm_name(sys, name) {
        let what = match sysfs::device_type(sys, name).as_str() {
            "lvm" => "LVM volume",
            "crypt" => "encrypted volume",
            "mpath" => "multipath map",
            "part" => "partition map",
            _ => "device-mapper device",
        };
        notes.push(format!("{shown}: {what} /dev/mapper/{dm}"));
    }
    if name.starts_with("md") {
        if let Some(level) = sysfs::md_level(sys, name) {
            notes.push(format!("{shown}: {level} array"));
        }
    }
    if let Some(f) = sysfs::loop_backing_file(sys, name) {
        notes.push(format!("{shown}: backed by {f}"));
    }
    let mut below = sysfs::slaves(sys, name);
    below.extend(parent);
    for b in below {
        device_notes(sys, &b, depth + 1, seen, notes);
    }
}

/// Every member of the btrfs filesystem that `name` belongs to, from
/// `/sys/fs/btrfs/<FSID>/devices/`; just `name` when sysfs does not say.
fn btrfs_members(sys: &Sysroot, name: &str) -> Vec<String> {
    for fsid in sys.list_dir("/sys/fs/btrfs").unwrap_or_default() {
        let devs = format!("/sys/fs/btrfs/{fsid}/devices");
        if sys.exists(format!("{devs}/{name}")) {
            let all = sys.list_dir(&devs).unwrap_or_default();
            if !all.is_empty() {
                return all;
            }
        }
    }
    vec![name.to_string()]
}

/// Every member of the bcachefs filesystem that `name` belongs to, from
/// the `/sys/fs/bcachefs/<UUID>/dev-<N>/block` links; empty when sysfs
/// does not say.
fn bcachefs_members(sys: &Sysroot, name: &str) -> Vec<String> {
    for uuid in sys.list_dir("/sys/fs/bcachefs").unwrap_or_default() {
        let fsdir = format!("/sys/fs/bcachefs/{uuid}");
        let members: Vec<String> = sys
            .list_dir(&fsdir)
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d.starts_with("dev-"))
            .filter_map(|d| {
                let target = sys.read_link(format!("{fsdir}/{d}/block")).ok()?;
                Some(target.file_name()?.to_string_lossy().into_owned())
            })
            .collect();
        if members.iter().any(|m| m == name) {
            return members;
        }
    }
    Vec::new()
}

fn zfs(sys: &Sysroot, m: &MountInfo) -> Storage {
    let pool = m
        .mount_source
        .split(['/', '@'])
        .next()
        .filter(|p| !p.is_empty())
        .unwrap_or("zfs")
        .to_string();
    let names: Vec<String> = udev::zfs_members(sys, &pool)
        .into_iter()
        .filter_map(|(a, b)| sysfs::name_of_devno(sys, a, b))
        .collect();
    if names.is_empty() {
        let note = format!("{pool}: ZFS pool, member disks unknown (no udev data)");
        return no_device(TargetKind::Zfs, pool, vec![note]);
    }
    let b = block(sys, names);
    let mut notes = vec![format!("{pool}: ZFS pool on {}", b.members.join(", "))];
    notes.extend(b.notes);
    Storage {
        kind: TargetKind::Zfs,
        display: pool,
        stacked: true,
        notes,
        ..b
    }
}

/// overlayfs: the writes land in `upperdir=`; resolve that path again. In a
/// container the upper directory is a host path that is not visible.
fn overlay(sys: &Sysroot, mounts: &[MountInfo], m: &MountInfo, depth: usize) -> Storage {
    let hidden = |why: String| no_device(TargetKind::Overlay, "overlay".to_string(), vec![why]);
    let Some(upper) = m.option("upperdir") else {
        return hidden("overlay: no upper directory (read-only)".to_string());
    };
    if depth >= 4 {
        return hidden(format!(
            "overlay: upper directory {upper} too deeply nested"
        ));
    }
    let found = if sys.is_live() {
        std::fs::canonicalize(&upper)
            .ok()
            .and_then(|p| lookup_live(mounts, &p))
    } else {
        mountinfo::find_by_prefix(mounts, &mountinfo::normalize(Path::new(&upper)))
            .map(|u| (MountLookup::Prefix, u))
    };
    match found {
        Some((_, u)) if u.mount_id != m.mount_id => {
            let inner = classify(sys, mounts, u, depth + 1);
            let mut notes = vec![format!(
                "overlay: upper directory {upper} on {}",
                inner.display
            )];
            notes.extend(inner.notes);
            Storage {
                kind: TargetKind::Overlay,
                notes,
                ..inner
            }
        }
        _ => hidden(format!("overlay: upper directory {upper} not visible here")),
    }
}
