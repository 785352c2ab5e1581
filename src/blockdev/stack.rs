//! The `[ Storage device stack ]` section: the inverse device tree that
//! `lsblk -s -o NAME,SIZE,TYPE,MOUNTPOINT <members>` prints, from the
//! device(s) holding the filesystem down to the disks.
//!
//! Reads `/sys/class/block/<name>/{slaves,size,dev,dm/*,md/level,device/type}`,
//! `/proc/self/mountinfo` and `/proc/swaps`. Tree art is UTF-8 (`├─`, `└─`,
//! `│ `), as lsblk draws it in a UTF-8 locale; the report is UTF-8 anyway.
//!
//! Layout checked byte for byte against the real lsblk 2.38.1 run on the
//! fixture trees and on live loop devices: one space between columns, SIZE
//! right-aligned, the last column unpadded (an empty MOUNTPOINT still leaves
//! TYPE's padding and the separator). Several members (multi-device btrfs, a
//! ZFS pool) give one tree each, as `lsblk -s <member>...` does; a pool has
//! no line of its own. A loop device has no slaves, so its tree is one line;
//! its backing file is in the target's notes, not in the tree.

use super::mountinfo::{self, MountInfo};
use super::resolve::Target;
use super::size::size_text;
use super::sysfs;
use crate::sysroot::Sysroot;

/// One device line of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Node {
    /// NAME: `dm/name` for dm devices, else the kernel name.
    name: String,
    /// SIZE text, empty when unreadable.
    size: String,
    /// TYPE (`disk`, `part`, `lvm`, `crypt`, `raid1`, `loop`...).
    kind: String,
    /// MOUNTPOINT, possibly empty.
    mountpoint: String,
    /// The devices under this one (slaves; a partition's disk).
    children: Vec<Node>,
}

/// The lsblk TYPE of a kernel device (util-linux `get_type`).
pub fn device_type(sys: &Sysroot, name: &str) -> String {
    let is_dm = name.starts_with("dm-");
    if !is_dm && sysfs::parent_disk(sys, name).is_some() {
        return "part".to_string();
    }
    if is_dm {
        let uuid = sysfs::dm_uuid(sys, name).unwrap_or_default();
        let prefix = uuid.split('-').next().unwrap_or("");
        if prefix.is_empty() {
            return "dm".to_string();
        }
        if prefix.len() >= 4 && prefix[..4].eq_ignore_ascii_case("part") {
            return "part".to_string();
        }
        return prefix.to_ascii_lowercase();
    }
    if name.starts_with("loop") {
        return "loop".to_string();
    }
    if name.starts_with("md") {
        return sysfs::md_level(sys, name).unwrap_or_else(|| "md".to_string());
    }
    let scsi = sys
        .read_trimmed(sysfs::dev_path(sys, name, "device/type"))
        .and_then(|t| t.parse::<i64>().ok());
    scsi_type(scsi).to_string()
}

/// SCSI peripheral type names (util-linux `blkdev_scsi_type_to_name`);
/// anything else is `disk`.
fn scsi_type(t: Option<i64>) -> &'static str {
    match t {
        Some(1) => "tape",
        Some(2) => "printer",
        Some(3) => "processor",
        Some(4) => "worm",
        Some(5) => "rom",
        Some(6) => "scanner",
        Some(7) => "mo-disk",
        Some(8) => "changer",
        Some(9) => "comm",
        Some(0x0c) => "raid",
        Some(0x0d) => "enclosure",
        Some(0x0e) => "rbc",
        Some(0x11) => "osd",
        Some(0x7f) => "no-lun",
        _ => "disk",
    }
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

fn node(ctx: &Ctx, name: &str, depth: usize) -> Node {
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
    Node {
        name: sysfs::dm_name(sys, name).unwrap_or_else(|| name.replace('!', "/")),
        size: sysfs::size_bytes(sys, name)
            .map(size_text)
            .unwrap_or_default(),
        kind: device_type(sys, name),
        mountpoint: mountpoint(sys, &ctx.mounts, &ctx.swaps, name),
        children: kids.iter().map(|k| node(ctx, k, depth + 1)).collect(),
    }
}

fn sort_by_devno(sys: &Sysroot, names: &mut [String]) {
    names.sort_by_key(|n| sysfs::devno(sys, n).map(|(a, b)| sysfs::makedev(a, b)));
}

/// Flattens the trees into (art+name, node) rows, lsblk's order.
fn flatten<'a>(n: &'a Node, prefix: &str, branch: &str, out: &mut Vec<(String, &'a Node)>) {
    out.push((format!("{prefix}{branch}{}", n.name), n));
    let below = match branch {
        "" => String::new(),
        "├─" => format!("{prefix}│ "),
        _ => format!("{prefix}  "),
    };
    for (i, c) in n.children.iter().enumerate() {
        let b = if i + 1 == n.children.len() {
            "└─"
        } else {
            "├─"
        };
        flatten(c, &below, b, out);
    }
}

/// The stack lines (header first) for a stacked target, `None` otherwise.
pub fn render_stack(sys: &Sysroot, target: &Target) -> Option<Vec<String>> {
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
    let trees: Vec<Node> = roots.iter().map(|r| node(&ctx, r, 0)).collect();
    Some(render_trees(&trees))
}

fn render_trees(trees: &[Node]) -> Vec<String> {
    let mut rows = Vec::new();
    for t in trees {
        flatten(t, "", "", &mut rows);
    }
    let width = |s: &str| s.chars().count();
    let name_w = rows.iter().map(|(n, _)| width(n)).max().unwrap_or(0).max(4);
    let widest_size = rows.iter().map(|(_, n)| width(&n.size)).max().unwrap_or(0);
    let size_w = match widest_size {
        0..=3 => 4,
        4 => 5,
        w => w,
    };
    let type_w = rows
        .iter()
        .map(|(_, n)| width(&n.kind))
        .max()
        .unwrap_or(0)
        .max(4);
    // The last column is not padded (libsmartcols), but the separator
    // before an empty MOUNTPOINT and TYPE's padding stay.
    let line = |name: &str, size: &str, kind: &str, mp: &str| {
        format!(
            "{}{} {}{} {}{} {}",
            name,
            " ".repeat(name_w - width(name)),
            " ".repeat(size_w.saturating_sub(width(size))),
            size,
            kind,
            " ".repeat(type_w - width(kind)),
            mp,
        )
    };
    let mut out = vec![line("NAME", "SIZE", "TYPE", "MOUNTPOINT")];
    out.extend(
        rows.iter()
            .map(|(name, n)| line(name, &n.size, &n.kind, &n.mountpoint)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(name: &str, size: &str, kind: &str, mp: &str, children: Vec<Node>) -> Node {
        Node {
            name: name.into(),
            size: size.into(),
            kind: kind.into(),
            mountpoint: mp.into(),
            children,
        }
    }

    #[test]
    fn scsi_types() {
        assert_eq!(scsi_type(Some(0)), "disk");
        assert_eq!(scsi_type(Some(5)), "rom");
        assert_eq!(scsi_type(Some(0x7f)), "no-lun");
        assert_eq!(scsi_type(Some(42)), "disk");
        assert_eq!(scsi_type(None), "disk");
    }

    #[test]
    fn draws_the_luks_lvm_raid1_tree() {
        let part = |p: &str, d: &str| {
            leaf(
                p,
                "3.6T",
                "part",
                "",
                vec![leaf(d, "3.6T", "disk", "", vec![])],
            )
        };
        let md = leaf(
            "md0",
            "3.6T",
            "raid1",
            "",
            vec![part("sda1", "sda"), part("sdb1", "sdb")],
        );
        let lvm = leaf("vg0-root", "200G", "lvm", "", vec![md]);
        let root = leaf("cryptroot", "200G", "crypt", "/", vec![lvm]);
        assert_eq!(
            render_trees(&[root]),
            vec![
                "NAME         SIZE TYPE  MOUNTPOINT",
                "cryptroot    200G crypt /",
                "└─vg0-root   200G lvm   ",
                "  └─md0      3.6T raid1 ",
                "    ├─sda1   3.6T part  ",
                "    │ └─sda  3.6T disk  ",
                "    └─sdb1   3.6T part  ",
                "      └─sdb  3.6T disk  ",
            ]
        );
    }
}
