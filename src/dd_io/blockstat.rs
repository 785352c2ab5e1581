//! A minimal parser of `/sys/class/block/<dev>/stat` (11, 15 or 17
//! fields) and wrap-aware deltas. Private to `dd_io`; `blockdev` has its
//! own richer one.

use serde::Serialize;

/// One snapshot of a block device's stat file (fields 1-11; later fields
/// only when present).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockStat {
    /// Field 1: completed reads.
    pub read_ios: u64,
    /// Field 2: merged reads.
    pub read_merges: u64,
    /// Field 3: 512-byte sectors read.
    pub read_sectors: u64,
    /// Field 4: read time, ms (32-bit, wraps).
    pub read_ticks_ms: u64,
    /// Field 5: completed writes.
    pub write_ios: u64,
    /// Field 6: merged writes.
    pub write_merges: u64,
    /// Field 7: 512-byte sectors written.
    pub write_sectors: u64,
    /// Field 8: write time, ms (32-bit, wraps).
    pub write_ticks_ms: u64,
    /// Field 10: busy time, ms (32-bit, wraps).
    pub io_ticks_ms: u64,
    /// Field 11: summed request time, ms (32-bit, wraps).
    pub time_in_queue_ms: u64,
    /// Field 16 (Linux 5.5+).
    pub flush_ios: Option<u64>,
}

/// Parses the stat file's text; `None` when it has fewer than 11 fields or
/// a non-number.
pub fn parse_block_stat(text: &str) -> Option<BlockStat> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    if f.len() < 11 {
        return None;
    }
    Some(BlockStat {
        read_ios: f[0],
        read_merges: f[1],
        read_sectors: f[2],
        read_ticks_ms: f[3],
        write_ios: f[4],
        write_merges: f[5],
        write_sectors: f[6],
        write_ticks_ms: f[7],
        io_ticks_ms: f[9],
        time_in_queue_ms: f[10],
        flush_ios: f.get(15).copied(),
    })
}

/// What the device did during one line (after minus before).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

/// Counter delta (64-bit counters; a reset gives 0, not a huge number).
fn d64(a: u64, b: u64) -> u64 {
    b.saturating_sub(a)
}

/// Millisecond delta: these fields are printed as 32-bit and wrap at 2^32.
fn dms(a: u64, b: u64) -> u64 {
    b.wrapping_sub(a) & 0xffff_ffff
}

/// The delta between two snapshots.
pub fn delta(a: &BlockStat, b: &BlockStat) -> DeviceStatDelta {
    DeviceStatDelta {
        read_ios: d64(a.read_ios, b.read_ios),
        read_merges: d64(a.read_merges, b.read_merges),
        read_sectors: d64(a.read_sectors, b.read_sectors),
        read_ticks_ms: dms(a.read_ticks_ms, b.read_ticks_ms),
        write_ios: d64(a.write_ios, b.write_ios),
        write_merges: d64(a.write_merges, b.write_merges),
        write_sectors: d64(a.write_sectors, b.write_sectors),
        write_ticks_ms: dms(a.write_ticks_ms, b.write_ticks_ms),
        busy_ms: dms(a.io_ticks_ms, b.io_ticks_ms),
        time_in_queue_ms: dms(a.time_in_queue_ms, b.time_in_queue_ms),
        flush_ios: match (a.flush_ios, b.flush_ios) {
            (Some(x), Some(y)) => Some(d64(x, y)),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 17 fields, as on this machine's vda (Linux 6.18).
    const VDA: &str = "  133226    38765  9779474    54380   449127   362004 23063736   931655        0   468400  1062210        0        0        0        0    41290    76174\n";

    #[test]
    fn parses_17_15_and_11_fields() {
        let s = parse_block_stat(VDA).unwrap();
        assert_eq!(s.read_ios, 133_226);
        assert_eq!(s.write_sectors, 23_063_736);
        assert_eq!(s.io_ticks_ms, 468_400);
        assert_eq!(s.time_in_queue_ms, 1_062_210);
        assert_eq!(s.flush_ios, Some(41_290));
        let f15: String = VDA
            .split_whitespace()
            .take(15)
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(parse_block_stat(&f15).unwrap().flush_ios, None);
        let f11: String = VDA
            .split_whitespace()
            .take(11)
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(parse_block_stat(&f11).unwrap().time_in_queue_ms, 1_062_210);
        let f10: String = VDA
            .split_whitespace()
            .take(10)
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(parse_block_stat(&f10), None);
        assert_eq!(parse_block_stat("1 2 x 4 5 6 7 8 9 10 11"), None);
    }

    #[test]
    fn ms_fields_wrap_at_2_pow_32() {
        let a = BlockStat {
            write_ticks_ms: 4_294_967_290,
            io_ticks_ms: 10,
            write_ios: 5,
            ..Default::default()
        };
        let b = BlockStat {
            write_ticks_ms: 4,
            io_ticks_ms: 25,
            write_ios: 9,
            ..Default::default()
        };
        let d = delta(&a, &b);
        assert_eq!(d.write_ticks_ms, 10);
        assert_eq!(d.busy_ms, 15);
        assert_eq!(d.write_ios, 4);
    }
}
