//! How the devices under a filesystem turn its bytes into device bytes,
//! for the check "did our I/O reach the device?" ([`crate::conditions::reach`]).
//!
//! Walks `/sys/class/block/<name>/slaves/` down from the devices the
//! filesystem sits on to the devices with no slaves (the leaves: disks,
//! partitions, loop devices), reading `md/level`, `md/raid_disks`,
//! `md/degraded` and `md/layout` of md arrays on the way, and the
//! `partition` file of each leaf. Returns a [`DeviceLayout`]; never errors
//! (a missing file gives the safe default, see [`LayoutLeaf`]).

use serde::{Deserialize, Serialize};

use super::sysfs;
use crate::sysroot::Sysroot;

/// Deeper stacks than this are cut (a loop in a corrupt dump must not hang).
const MAX_DEPTH: usize = 8;

/// The leaves under a filesystem and what one of its bytes costs on them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceLayout {
    /// The devices the filesystem sits on (`Target::members`), where the
    /// walk started.
    pub roots: Vec<String>,
    /// The devices at the bottom of the stacks, each once, in walk order:
    /// the ones whose counters say what reached hardware.
    pub leaves: Vec<LayoutLeaf>,
    /// One line per layer that amplifies writes (`md0: raid1 of 2: each
    /// write 2 times`), for `-x`.
    pub notes: Vec<String>,
}

/// One device at the bottom of a stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutLeaf {
    /// Kernel name (`sda1`, `nvme0n1`, `loop3`).
    pub device: String,
    /// The whole disk, when this is a partition (its counters are also in
    /// the disk's: count one of them only).
    pub partition_of: Option<String>,
    /// The least number of bytes written to the leaves of this branch per
    /// byte the filesystem writes (product over the md arrays above it:
    /// raid1 of N writes N times, raid5 of N at least N/(N-1)). 1.0 when
    /// nothing above duplicates, or when a layer's layout is unknown: an
    /// underestimate can only hide a mark, never put one on a healthy
    /// line. Reads cost 1 everywhere (one mirror, data chunks only).
    pub write_copies_min: f64,
}

impl DeviceLayout {
    /// The leaves' kernel names, for `Workspace::set_stat_devices`.
    pub fn leaf_names(&self) -> Vec<String> {
        self.leaves.iter().map(|l| l.device.clone()).collect()
    }
}

/// The least write amplification of an md array, from its level, its
/// member count and how many members are missing; with a note. `None`
/// for 1:1 levels (raid0, linear) and unknown ones.
pub fn md_write_copies(
    level: &str,
    raid_disks: u32,
    degraded: u32,
    layout: u32,
) -> Option<(f64, String)> {
    let n = raid_disks;
    let live = n.saturating_sub(degraded).max(1);
    let (copies, how) = match level {
        // Every write goes to every live mirror.
        "raid1" => (f64::from(live), format!("{live} live of {n} mirrors")),
        // near * far copies (md's raid10 layout word); a missing member can
        // drop at most one copy of a chunk per missing device.
        "raid10" => {
            let near = layout & 0xff;
            let far = (layout >> 8) & 0xff;
            let c = (near.max(1) * far.max(1)).saturating_sub(degraded).max(1);
            (f64::from(c), format!("{c} copies"))
        }
        // A full-stripe write is the cheapest: the data plus its parity,
        // written only to the members still there.
        "raid4" | "raid5" | "raid6" => {
            let parity = if level == "raid6" { 2 } else { 1 };
            let data = n.saturating_sub(parity).max(1);
            (
                (f64::from(live) / f64::from(data)).max(1.0),
                format!("{data} data + {parity} parity of {n}, {live} live"),
            )
        }
        _ => return None,
    };
    // "2 times", "1.33 times".
    let times = if copies.fract() == 0.0 {
        format!("{copies:.0}")
    } else {
        format!("{copies:.2}")
    };
    (copies > 1.0).then(|| {
        (
            copies,
            format!("{level}, {how}: each write at least {times} times"),
        )
    })
}

/// The layout under `roots` (the devices a filesystem sits on, e.g.
/// `Target::members`).
pub fn device_layout(sys: &Sysroot, roots: &[String]) -> DeviceLayout {
    let mut out = DeviceLayout {
        roots: roots.to_vec(),
        leaves: Vec::new(),
        notes: Vec::new(),
    };
    for r in roots {
        walk(sys, r, 1.0, 0, &mut out);
    }
    out
}

fn read_u32(sys: &Sysroot, name: &str, file: &str) -> Option<u32> {
    sys.read_trimmed(sysfs::dev_path(sys, name, file))?
        .parse()
        .ok()
}

fn walk(sys: &Sysroot, name: &str, copies: f64, depth: usize, out: &mut DeviceLayout) {
    let slaves = sysfs::slaves(sys, name);
    if slaves.is_empty() || depth >= MAX_DEPTH {
        if !out.leaves.iter().any(|l| l.device == name) {
            out.leaves.push(LayoutLeaf {
                device: name.to_string(),
                partition_of: sysfs::parent_disk(sys, name),
                write_copies_min: copies,
            });
        }
        return;
    }
    let mut copies = copies;
    if let Some(level) = sysfs::md_level(sys, name) {
        // raid_disks counts the slots, spares excluded; slaves/ lists the
        // spares too, but they see no I/O, so only raid_disks matters.
        let n = read_u32(sys, name, "md/raid_disks").unwrap_or(slaves.len() as u32);
        let degraded = read_u32(sys, name, "md/degraded").unwrap_or(0);
        let layout = read_u32(sys, name, "md/layout").unwrap_or(0x102);
        if let Some((c, note)) = md_write_copies(&level, n, degraded, layout) {
            copies *= c;
            out.notes.push(format!("{name}: {note}"));
        }
    }
    for s in slaves {
        walk(sys, &s, copies, depth + 1, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md_levels_give_their_least_write_copies() {
        let c = |l: &str, n, d, lay| md_write_copies(l, n, d, lay).map(|(c, _)| c);
        assert_eq!(c("raid1", 2, 0, 0), Some(2.0));
        assert_eq!(
            c("raid1", 3, 1, 0),
            Some(2.0),
            "a missing mirror is not written"
        );
        assert_eq!(c("raid1", 2, 1, 0), None, "a lone mirror writes once");
        assert_eq!(c("raid5", 4, 0, 2), Some(4.0 / 3.0));
        assert_eq!(c("raid5", 3, 1, 2), None, "degraded: data only at best");
        assert_eq!(c("raid6", 6, 0, 2), Some(1.5));
        assert_eq!(c("raid10", 4, 0, 0x102), Some(2.0), "near=2");
        assert_eq!(c("raid10", 4, 0, 0x201), Some(2.0), "far=2");
        assert_eq!(c("raid10", 4, 1, 0x102), None);
        assert_eq!(c("raid0", 4, 0, 0), None);
        assert_eq!(c("linear", 2, 0, 0), None);
        assert_eq!(c("container", 2, 0, 0), None);
        let (_, note) = md_write_copies("raid1", 2, 0, 0).unwrap();
        assert!(note.contains("raid1") && note.contains("2 times"), "{note}");
    }
}
