//! The device counters of one storage line: the delta of
//! `/sys/class/block/<dev>/stat` (parsed by [`crate::blockdev`]) between
//! the line's start and end, in the shape the JSON output carries.

use serde::{Deserialize, Serialize};

use crate::blockdev::BlockStat;

/// What the device did during one line (after minus before).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceStatDelta {
    /// Completed read I/Os at the device.
    pub read_ios: u64,
    /// Adjacent read requests merged by the block layer.
    pub read_merges: u64,
    /// 512-byte sectors read.
    pub read_sectors: u64,
    /// Summed read request time, ms.
    pub read_ticks_ms: u64,
    /// Completed write I/Os at the device.
    pub write_ios: u64,
    /// Adjacent write requests merged.
    pub write_merges: u64,
    /// 512-byte sectors written.
    pub write_sectors: u64,
    /// Summed write request time, ms.
    pub write_ticks_ms: u64,
    /// Time the device had I/O in flight (busy time), ms.
    pub busy_ms: u64,
    /// Summed time of all requests (field 11), ms.
    pub time_in_queue_ms: u64,
    /// Flush requests (Linux 5.5+).
    pub flush_ios: Option<u64>,
}

/// One sampled device's deltas over a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceDelta {
    /// Kernel name of the device (`sda1`, `dm-0`, `loop3`).
    pub device: String,
    /// What it did during the line.
    pub delta: DeviceStatDelta,
}

impl DeviceStatDelta {
    /// The field-by-field sum of several devices' deltas (times add up as
    /// device-milliseconds); `flush_ios` only when every device has it.
    /// `None` for an empty list.
    pub fn sum<'a>(deltas: impl IntoIterator<Item = &'a DeviceStatDelta>) -> Option<Self> {
        deltas.into_iter().fold(None, |acc: Option<Self>, d| {
            Some(match acc {
                None => *d,
                Some(a) => DeviceStatDelta {
                    read_ios: a.read_ios + d.read_ios,
                    read_merges: a.read_merges + d.read_merges,
                    read_sectors: a.read_sectors + d.read_sectors,
                    read_ticks_ms: a.read_ticks_ms + d.read_ticks_ms,
                    write_ios: a.write_ios + d.write_ios,
                    write_merges: a.write_merges + d.write_merges,
                    write_sectors: a.write_sectors + d.write_sectors,
                    write_ticks_ms: a.write_ticks_ms + d.write_ticks_ms,
                    busy_ms: a.busy_ms + d.busy_ms,
                    time_in_queue_ms: a.time_in_queue_ms + d.time_in_queue_ms,
                    flush_ios: a.flush_ios.zip(d.flush_ios).map(|(x, y)| x + y),
                },
            })
        })
    }
}

/// What the device did between the snapshots `a` and `b`.
pub fn delta(a: &BlockStat, b: &BlockStat) -> DeviceStatDelta {
    let d = a.delta(b);
    DeviceStatDelta {
        read_ios: d.read_ios,
        read_merges: d.read_merges,
        read_sectors: d.read_sectors,
        read_ticks_ms: d.read_ticks_ms,
        write_ios: d.write_ios,
        write_merges: d.write_merges,
        write_sectors: d.write_sectors,
        write_ticks_ms: d.write_ticks_ms,
        busy_ms: d.io_ticks_ms,
        time_in_queue_ms: d.time_in_queue_ms,
        flush_ios: d.flush_ios,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blockdev::parse_block_stat;

    #[test]
    fn ms_fields_wrap_at_2_pow_32_and_counters_never_go_negative() {
        let a = BlockStat {
            write_ticks_ms: 4_294_967_290,
            io_ticks_ms: 10,
            write_ios: 5,
            read_ios: 100,
            ..Default::default()
        };
        let b = BlockStat {
            write_ticks_ms: 4,
            io_ticks_ms: 25,
            write_ios: 9,
            read_ios: 3,
            ..Default::default()
        };
        let d = delta(&a, &b);
        assert_eq!(d.write_ticks_ms, 10);
        assert_eq!(d.busy_ms, 15);
        assert_eq!(d.write_ios, 4);
        assert_eq!(d.read_ios, 0, "a reset counts 0");
    }

    #[test]
    fn sums_add_fields_and_keep_flushes_only_when_all_have_them() {
        let zero = parse_block_stat(&"0 ".repeat(11)).unwrap();
        let a = parse_block_stat("1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 11 12").unwrap();
        let b = parse_block_stat("10 20 30 40 50 60 70 80 0 90 100 0 0 0 0 110 120").unwrap();
        let (da, db) = (delta(&zero, &a), delta(&zero, &b));
        let s = DeviceStatDelta::sum([&da, &db]).unwrap();
        assert_eq!((s.read_sectors, s.write_sectors, s.busy_ms), (33, 77, 99));
        assert_eq!(
            s.flush_ios, None,
            "the 11-field zero snapshot has no flushes"
        );
        let s = DeviceStatDelta::sum([&db, &db]).unwrap();
        assert_eq!(s.write_merges, 120);
        assert_eq!(DeviceStatDelta::sum([]), None);
    }

    #[test]
    fn a_real_17_field_line() {
        let vda = "  133226    38765  9779474    54380   449127   362004 23063736   931655        0   468400  1062210        0        0        0        0    41290    76174\n";
        let s = parse_block_stat(vda).unwrap();
        let zero = parse_block_stat(&"0 ".repeat(17)).unwrap();
        let d = delta(&zero, &s);
        assert_eq!(d.read_ios, 133_226);
        assert_eq!(d.busy_ms, 468_400);
        assert_eq!(d.flush_ios, Some(41_290));
    }
}
