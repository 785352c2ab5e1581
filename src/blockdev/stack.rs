//! The `[ Storage device stack ]` section: the inverse device tree that
//! `lsblk -s -o NAME,SIZE,TYPE,MOUNTPOINT <members>` prints, from the
//! device(s) holding the filesystem down to the disks.
//!
//! Reads `/sys/class/block/<name>/{slaves,size,dev,dm/*,md/level,device/type}`,
//! `/proc/self/mountinfo` and `/proc/swaps`, and returns the tree as data
//! ([`Stack`]); the text renderer draws it. Several members (multi-device
//! btrfs, a ZFS pool) give one tree each, as `lsblk -s <member>...` does; a
//! pool has no line of its own. A loop device has no slaves, so its tree is one line;
//! its backing file is in the target's notes, not in the tree.

use super::mountinfo::{self, MountInfo};
use super::resolve::Target;
use super::size::size_text;
use super::sysfs;
use crate::sysroot::Sysroot;

/// One device of the `[ Storage device stack ]` tree, as lsblk shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackNode {
    /// NAME: the dm name for dm devices, else the kernel name.
    pub name: String,
    /// SIZE text (`3.6T`), empty when unreadable.
    pub size: String,
    /// TYPE (`disk`, `part`, `lvm`, `crypt`, `raid1`, `loop`...).
    pub kind: String,
    /// MOUNTPOINT, possibly empty.
    pub mountpoint: String,
    /// The devices under this one (slaves; a partition's disk).
    pub children: Vec<StackNode>,
}

/// `[ Storage device stack ]`: one tree per member device holding the
/// filesystem, from the device down to the disks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    /// The trees, in lsblk's order.
    pub roots: Vec<StackNode>,
    /// What the tree does not show (a loop device's backing file, the dm
    /// names, md levels), one short phrase each: `loop0: backed by /img`.
    pub notes: Vec<String>,
}

/// The mount point lsblk shows for a device (util-linux `lsblk-mnt.c`): the
/// last mountinfo entry with its MAJ:MIN, else the last with its source;
/// for a bind or subvolume root, an earlier entry of the same source with
/// root `/` wins. `[SWAP]` for active swap, else empty.
fn mountpoint(sys: &Sysroot, mounts: &[MountInfo], swaps: &[String], name: &str) -> String {
    let devno = sysfs::devno(sys, name);
    let mut sources = vec![format!("/dev/{name}")];
    if let Some(dm) = sysfs::dm_name(sys, name) {
        sources.push(format!("/dev/mapper/{dm}"));
    }
    let by_source = |m: &MountInfo| sources.contains(&m.mount_source);
    let found = mounts
        .iter()
        .rposition(|m| Some((m.major, m.minor)) == devno)
        .or_else(|| mounts.iter().rposition(by_source));
    let Some(i) = found else {
        return if swaps.iter().any(|s| s == name) {
            "[SWAP]".to_string()
        } else {
            String::new()
        };
    };
    let mut m = &mounts[i];
    if m.root != "/" {
        if let Some(r) = mounts[..i]
            .iter()
            .rev()
            .find(|r| r.root == "/" && by_source(r))
        {
            m = r;
        }
    }
    m.mount_point.clone()
}

struct Ctx<'a> {
    sys: &'a Sysroot,
    mounts: Vec<MountInfo>,
    swaps: Vec<String>,
}

fn node(ctx: &Ctx, name: &str, depth: usize) -> StackNode {
    let sys = ctx.sys;
    let mut kids: Vec<String> = if depth < 16 {
        sysfs::slaves(sys, name)
    } else {
        Vec::new()
    };
    if !name.starts_with("dm-") && depth < 16 {
        if let Some(disk) = sysfs::parent_disk(sys, name) {
            kids.push(disk);
        }
    }
    sort_by_devno(sys, &mut kids);
    StackNode {
        name: sysfs::dm_name(sys, name).unwrap_or_else(|| name.replace('!', "/")),
        size: sysfs::size_bytes(sys, name)
            .map(size_text)
            .unwrap_or_default(),
        kind: sysfs::device_type(sys, name),
        mountpoint: mountpoint(sys, &ctx.mounts, &ctx.swaps, name),
        children: kids.iter().map(|k| node(ctx, k, depth + 1)).collect(),
    }
}

fn sort_by_devno(sys: &Sysroot, names: &mut [String]) {
    names.sort_by_key(|n| sysfs::devno(sys, n).map(|(a, b)| sysfs::makedev(a, b)));
}

/// The device stack of a stacked target, `None` otherwise.
pub fn device_stack(sys: &Sysroot, target: &Target) -> Option<Stack> {
    if !target.stacked || target.members.is_empty() {
        return None;
    }
    let ctx = Ctx {
        sys,
        mounts: mountinfo::read_mountinfo(sys).unwrap_or_default(),
        swaps: sysfs::swap_names(sys),
    };
    let mut roots = target.members.clone();
    sort_by_devno(sys, &mut roots);
    Some(Stack {
        roots: roots.iter().map(|r| node(&ctx, r, 0)).collect(),
        notes: target.notes.clone(),
    })
}
