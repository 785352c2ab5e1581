//! Did a line's I/O reach the device? Compares the bytes the engine moved
//! with the bytes the devices under the target counted in the same
//! direction during the line ([`LineResult::device_deltas`], 512-byte
//! sectors), through the target's [`DeviceLayout`]. Plain computation on
//! data already measured: reads nothing, prints nothing.
//!
//! Why a mark is only ever missed, never put on a healthy line: docs/METHOD.md
//! "Reach: what the device counters can and cannot say".

use serde::{Deserialize, Serialize};

use crate::blockdev::BlockStat;
use crate::blockdev::DeviceLayout;
use crate::dd_io::{DeviceDelta, Direction, LineResult};

/// A line whose devices saw less than this share of its bytes is marked
/// cached ([`ReachVerdict::Cached`], decided by [`ReachVerdict::of_share`] alone). Healthy direct I/O measures 100 % or more
/// (journal and metadata add to it; the root tests see at least 90 % on a
/// loop ext4) and a page-cache-served line a few percent at most (0 % for
/// reads through bindfs, 0.4 % in a real report of cached reads on a
/// virtio disk). Half sits far from both; below it, most of the figure is
/// the cache's.
pub const CACHED_BELOW_PERCENT: f64 = 50.0;

/// The outcome of the check.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReachVerdict {
    /// The devices saw at least [`CACHED_BELOW_PERCENT`] of our bytes.
    Reached,
    /// The devices saw less: a cache served the rest.
    Cached {
        /// Device bytes (mirror and parity copies divided out) over the
        /// engine's bytes, percent.
        device_share_percent: f64,
    },
    /// No device to check, or a device's counters were not read around
    /// the line.
    NoCounters,
    /// The line moved no byte: nothing to compare.
    NothingMoved,
}

impl ReachVerdict {
    /// The verdict on a line whose devices saw `share` percent of its
    /// bytes: cached below [`CACHED_BELOW_PERCENT`], else reached. The one
    /// place that decides it, for the runner and the text reader alike.
    pub fn of_share(share: f64) -> ReachVerdict {
        if share < CACHED_BELOW_PERCENT {
            ReachVerdict::Cached {
                device_share_percent: share,
            }
        } else {
            ReachVerdict::Reached
        }
    }
}

/// The check of one line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reach {
    /// The line's direction; the device counters of this direction count.
    pub direction: Direction,
    /// Bytes the engine moved (all jobs).
    pub engine_bytes: u64,
    /// Kernel names whose counters were counted (a partition's disk stands
    /// in for it when only the disk was sampled).
    pub devices: Vec<String>,
    /// Bytes those devices counted in `direction` (sectors x 512), summed;
    /// `None` without counters.
    pub device_bytes: Option<u64>,
    /// `device_bytes` with mirror and parity copies divided out: the bytes
    /// of ours they stand for.
    pub device_equivalent_bytes: Option<u64>,
    /// `device_equivalent_bytes` over `engine_bytes`, percent (above 100
    /// with journal, metadata or foreign I/O).
    pub device_share_percent: Option<f64>,
    /// The verdict.
    pub verdict: ReachVerdict,
}

/// Checks one engine line against its devices' counters.
pub fn judge_line(line: &LineResult, layout: &DeviceLayout) -> Reach {
    judge(line.direction, line.bytes, &line.device_deltas, layout)
}

/// Checks `engine_bytes` moved in `direction` against `deltas` (each
/// sampled device's counters over the line) through `layout`.
pub fn judge(
    direction: Direction,
    engine_bytes: u64,
    deltas: &[DeviceDelta],
    layout: &DeviceLayout,
) -> Reach {
    let mut r = Reach {
        direction,
        engine_bytes,
        devices: Vec::new(),
        device_bytes: None,
        device_equivalent_bytes: None,
        device_share_percent: None,
        verdict: ReachVerdict::NoCounters,
    };
    let Some(sources) = counted(deltas, layout) else {
        return r;
    };
    let (mut raw, mut equivalent) = (0u64, 0f64);
    for (dev, delta, copies) in &sources {
        let sectors = match direction {
            Direction::Write => delta.write_sectors,
            Direction::Read => delta.read_sectors,
        };
        let bytes = sectors.saturating_mul(512);
        raw = raw.saturating_add(bytes);
        // Reads come from one copy (one mirror, data chunks only).
        equivalent += match direction {
            Direction::Write => bytes as f64 / copies.max(1.0),
            Direction::Read => bytes as f64,
        };
        r.devices.push(dev.clone());
    }
    r.device_bytes = Some(raw);
    r.device_equivalent_bytes = Some(equivalent.round() as u64);
    if engine_bytes == 0 {
        r.verdict = ReachVerdict::NothingMoved;
        return r;
    }
    let share = equivalent / engine_bytes as f64 * 100.0;
    r.device_share_percent = Some(share);
    r.verdict = ReachVerdict::of_share(share);
    r
}

/// The counters to add up: (name, delta, least write copies) per source,
/// each device once. A leaf uses its own delta, else its disk's (which
/// then counts once for all its partitions). A disk that is also a leaf
/// next to one of its partitions is left out: its counters include the
/// partition's. `None` when there is no leaf or one has no counters
/// (a partial sum could only undercount).
fn counted<'a>(
    deltas: &'a [DeviceDelta],
    layout: &DeviceLayout,
) -> Option<Vec<(String, &'a BlockStat, f64)>> {
    let find = |name: &str| deltas.iter().find(|d| d.device == name);
    let mut out: Vec<(String, &BlockStat, f64)> = Vec::new();
    for leaf in &layout.leaves {
        let has_partition_leaf = layout
            .leaves
            .iter()
            .any(|l| l.partition_of.as_deref() == Some(leaf.device.as_str()));
        if has_partition_leaf {
            continue;
        }
        let d = find(&leaf.device).or_else(|| leaf.partition_of.as_deref().and_then(find))?;
        match out.iter_mut().find(|(n, _, _)| *n == d.device) {
            // Two partitions of one sampled disk: count the disk once, with
            // the smaller divisor (the larger share).
            Some(o) => o.2 = o.2.min(leaf.write_copies_min),
            None => out.push((d.device.clone(), &d.delta, leaf.write_copies_min)),
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockdev::LayoutLeaf;
    use crate::conditions::Mark;

    // A MiB, so that byte counts are whole sectors.
    const MB: u64 = 1 << 20;

    fn stat(read_bytes: u64, write_bytes: u64, merges: u64) -> BlockStat {
        BlockStat {
            read_ios: read_bytes / 4096,
            read_merges: merges,
            read_sectors: read_bytes / 512,
            read_ticks_ms: 0,
            write_ios: write_bytes / 4096,
            write_merges: merges,
            write_sectors: write_bytes / 512,
            write_ticks_ms: 0,
            busy_ms: 0,
            time_in_queue_ms: 0,
            flush_ios: Some(1),
        }
    }

    fn dd(name: &str, read_bytes: u64, write_bytes: u64) -> DeviceDelta {
        DeviceDelta {
            device: name.into(),
            delta: stat(read_bytes, write_bytes, 0),
        }
    }

    fn leaf(name: &str, disk: Option<&str>, copies: f64) -> LayoutLeaf {
        LayoutLeaf {
            device: name.into(),
            partition_of: disk.map(String::from),
            write_copies_min: copies,
        }
    }

    fn layout(leaves: Vec<LayoutLeaf>) -> DeviceLayout {
        DeviceLayout {
            roots: vec!["root".into()],
            leaves,
            notes: vec![],
        }
    }

    fn share(r: &Reach) -> f64 {
        r.device_share_percent.unwrap()
    }

    #[test]
    fn one_device_that_saw_everything_is_reached() {
        let l = layout(vec![leaf("vda", None, 1.0)]);
        let r = judge(Direction::Read, 100 * MB, &[dd("vda", 100 * MB, 0)], &l);
        assert_eq!(r.verdict, ReachVerdict::Reached);
        assert_eq!(Mark::cached(&r), None);
        assert_eq!(r.device_bytes, Some(100 * MB));
        assert_eq!(r.devices, vec!["vda"]);
        assert!((share(&r) - 100.0).abs() < 0.01);
    }

    #[test]
    fn page_cache_reads_are_cached_with_their_share() {
        let l = layout(vec![leaf("vda", None, 1.0)]);
        // A real report's reads: 6,960 MB read, vda counted 27 MB.
        let r = judge(Direction::Read, 6_960 * MB, &[dd("vda", 27 * MB, 0)], &l);
        let ReachVerdict::Cached {
            device_share_percent,
        } = r.verdict
        else {
            panic!("{r:?}")
        };
        assert!((device_share_percent - 0.388).abs() < 0.01, "{r:?}");
        assert_eq!(
            Mark::cached(&r).map(|m| m.text()),
            Some("cached: vda saw 0.4 % of these reads".to_string())
        );
        // Only our direction counts: heavy writes do not hide cached reads.
        let r = judge(Direction::Read, 100 * MB, &[dd("vda", 0, 500 * MB)], &l);
        assert!(matches!(r.verdict, ReachVerdict::Cached { .. }), "{r:?}");
    }

    #[test]
    fn the_threshold_is_half() {
        let l = layout(vec![leaf("vda", None, 1.0)]);
        let at = |dev: u64| judge(Direction::Write, 1024 * 1024, &[dd("vda", 0, dev)], &l).verdict;
        assert!(matches!(at(512 * 1024 - 512), ReachVerdict::Cached { .. }));
        assert_eq!(at(512 * 1024), ReachVerdict::Reached);
    }

    #[test]
    fn members_are_summed() {
        // btrfs or LVM over two disks: each saw part of the bytes.
        let l = layout(vec![leaf("sda", None, 1.0), leaf("sdb", None, 1.0)]);
        let d = [dd("sda", 0, 60 * MB), dd("sdb", 0, 40 * MB)];
        let r = judge(Direction::Write, 100 * MB, &d, &l);
        assert_eq!(r.verdict, ReachVerdict::Reached);
        assert_eq!(r.device_bytes, Some(100 * MB));
        // Any one alone would be a mark: the sum matters.
        let r = judge(
            Direction::Write,
            100 * MB,
            &d[1..],
            &layout(vec![leaf("sdb", None, 1.0)]),
        );
        assert!(matches!(r.verdict, ReachVerdict::Cached { .. }));
    }

    #[test]
    fn merges_change_counts_not_bytes() {
        // 25,600 4k writes merged into 200 512k requests: same sectors.
        let l = layout(vec![leaf("sda", None, 1.0)]);
        let mut d = dd("sda", 0, 100 * MB);
        d.delta.write_ios = 200;
        d.delta.write_merges = 25_400;
        let r = judge(Direction::Write, 100 * MB, &[d], &l);
        assert_eq!(r.verdict, ReachVerdict::Reached);
        assert!((share(&r) - 100.0).abs() < 0.01);
    }

    #[test]
    fn a_mirror_writes_twice_and_reads_once() {
        let l = layout(vec![
            leaf("sda1", Some("sda"), 2.0),
            leaf("sdb1", Some("sdb"), 2.0),
        ]);
        let w = judge(
            Direction::Write,
            100 * MB,
            &[dd("sda1", 0, 100 * MB), dd("sdb1", 0, 100 * MB)],
            &l,
        );
        assert_eq!(w.verdict, ReachVerdict::Reached);
        assert_eq!(w.device_bytes, Some(200 * MB));
        assert_eq!(w.device_equivalent_bytes, Some(100 * MB));
        assert!((share(&w) - 100.0).abs() < 0.01, "the copy is divided out");
        // 60 % raw is only 30 % of our bytes once the copy is divided out.
        let c = judge(
            Direction::Write,
            100 * MB,
            &[dd("sda1", 0, 30 * MB), dd("sdb1", 0, 30 * MB)],
            &l,
        );
        assert!(matches!(c.verdict, ReachVerdict::Cached { .. }), "{c:?}");
        // md reads each chunk from one mirror, balanced or not.
        let r = judge(
            Direction::Read,
            100 * MB,
            &[dd("sda1", 70 * MB, 0), dd("sdb1", 30 * MB, 0)],
            &l,
        );
        assert_eq!(r.verdict, ReachVerdict::Reached);
        assert!((share(&r) - 100.0).abs() < 0.01);
    }

    #[test]
    fn raid5_parity_is_divided_out_and_reads_are_data_only() {
        // raid5 of 4: a full stripe writes 3 data + 1 parity chunks.
        let copies = 4.0 / 3.0;
        let l = layout(
            ["sda", "sdb", "sdc", "sdd"]
                .iter()
                .map(|n| leaf(n, None, copies))
                .collect(),
        );
        let each = 100 * MB / 3;
        let w: Vec<DeviceDelta> = ["sda", "sdb", "sdc", "sdd"]
            .iter()
            .map(|n| dd(n, 0, each))
            .collect();
        let r = judge(Direction::Write, 100 * MB, &w, &l);
        assert_eq!(r.verdict, ReachVerdict::Reached);
        assert!((share(&r) - 100.0).abs() < 0.1, "{r:?}");
        // Small writes read-modify-write: twice the bytes, still reached.
        let w: Vec<DeviceDelta> = ["sda", "sdb", "sdc", "sdd"]
            .iter()
            .map(|n| dd(n, 0, 50 * MB))
            .collect();
        assert!(share(&judge(Direction::Write, 100 * MB, &w, &l)) > 100.0);
        let rd: Vec<DeviceDelta> = ["sda", "sdb", "sdc", "sdd"]
            .iter()
            .map(|n| dd(n, 25 * MB, 0))
            .collect();
        let r = judge(Direction::Read, 100 * MB, &rd, &l);
        assert!((share(&r) - 100.0).abs() < 0.1, "{r:?}");
    }

    #[test]
    fn dm_stacks_pass_through_to_their_leaves() {
        // LVM on LUKS on sda2: the layout's leaf is sda2, copies 1; the dm
        // devices' own counters, if sampled too, are not added.
        let l = layout(vec![leaf("sda2", Some("sda"), 1.0)]);
        let d = [
            dd("dm-1", 0, 100 * MB),
            dd("dm-0", 0, 100 * MB),
            dd("sda2", 0, 101 * MB),
        ];
        let r = judge(Direction::Write, 100 * MB, &d, &l);
        assert_eq!(r.devices, vec!["sda2"]);
        assert_eq!(r.device_bytes, Some(101 * MB));
        assert_eq!(r.verdict, ReachVerdict::Reached);
    }

    #[test]
    fn a_partition_and_its_disk_count_once() {
        // Both sampled: the partition counts (the disk's counters hold it).
        let l = layout(vec![leaf("sda1", Some("sda"), 1.0)]);
        let d = [dd("sda", 0, 100 * MB), dd("sda1", 0, 100 * MB)];
        let r = judge(Direction::Write, 100 * MB, &d, &l);
        assert_eq!(r.devices, vec!["sda1"]);
        assert_eq!(r.device_bytes, Some(100 * MB));
        // A disk listed as a leaf next to its partition is left out.
        let l2 = layout(vec![leaf("sda", None, 1.0), leaf("sda1", Some("sda"), 1.0)]);
        assert_eq!(
            judge(Direction::Write, 100 * MB, &d, &l2).device_bytes,
            Some(100 * MB)
        );
        // Only the disk sampled: it stands in once for both partitions.
        let l3 = layout(vec![
            leaf("sda1", Some("sda"), 1.0),
            leaf("sda2", Some("sda"), 1.0),
        ]);
        let r = judge(Direction::Write, 100 * MB, &d[..1], &l3);
        assert_eq!(r.devices, vec!["sda"]);
        assert_eq!(r.device_bytes, Some(100 * MB));
    }

    #[test]
    fn missing_counters_and_empty_lines() {
        let l = layout(vec![leaf("sda", None, 1.0), leaf("sdb", None, 1.0)]);
        // One member not sampled: no partial sum.
        let r = judge(Direction::Read, 100 * MB, &[dd("sda", 100 * MB, 0)], &l);
        assert_eq!(r.verdict, ReachVerdict::NoCounters);
        assert_eq!(r.device_bytes, None);
        // No device at all (NFS, tmpfs).
        let r = judge(Direction::Read, 100 * MB, &[], &layout(vec![]));
        assert_eq!(r.verdict, ReachVerdict::NoCounters);
        // Nothing moved: counters kept, no share, no verdict on it.
        let d = [dd("sda", 0, 4096), dd("sdb", 0, 0)];
        let r = judge(Direction::Write, 0, &d, &l);
        assert_eq!(r.verdict, ReachVerdict::NothingMoved);
        assert_eq!(r.device_bytes, Some(4096));
        assert_eq!(r.device_share_percent, None);
    }

    #[test]
    fn judge_line_reads_the_line_and_round_trips_as_json() {
        let mut line = LineResult::empty(4096, Direction::Read, 4);
        line.bytes = 400 * MB;
        line.device_deltas = vec![dd("loop3", MB, 0)];
        let r = judge_line(&line, &layout(vec![leaf("loop3", None, 1.0)]));
        assert!(matches!(r.verdict, ReachVerdict::Cached { .. }));
        let json = serde_json::to_string(&r).unwrap();
        assert!(
            json.contains(r#""verdict":{"kind":"cached","device_share_percent":"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Reach>(&json).unwrap(), r);
    }
}
