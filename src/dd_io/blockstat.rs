//! The device counters of one storage line: the delta of
//! `/sys/class/block/<dev>/stat` (parsed by [`crate::blockdev`]) between
//! the line's start and end, in the shape the JSON output carries.

use serde::Serialize;

use crate::blockdev::BlockStat;

/// What the device did during one line (after minus before).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
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
