//! `/sys/class/block/<name>/stat` (or the same file found through
//! `/sys/dev/block` in a dump without `/sys/class`): the per-device I/O
//! counters read by the I/O engine before and after a run (kernel
//! `Documentation/block/stat.rst`).
//! 11 fields up to 4.18, 15 from 4.19 (discard), 17 from 5.5 (flush).

use std::path::PathBuf;

use serde::Serialize;

use crate::sysroot::Sysroot;

/// The counters of one `stat` file. Sectors are 512 bytes; `*_ms` fields are
/// milliseconds that the kernel prints as 32-bit and that wrap at 2^32.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct BlockStat {
    /// Read I/Os completed.
    pub read_ios: u64,
    /// Read I/Os merged.
    pub read_merges: u64,
    /// 512-byte sectors read.
    pub read_sectors: u64,
    /// Total wait of reads, ms.
    pub read_ticks_ms: u64,
    /// Write I/Os completed.
    pub write_ios: u64,
    /// Write I/Os merged.
    pub write_merges: u64,
    /// 512-byte sectors written.
    pub write_sectors: u64,
    /// Total wait of writes, ms.
    pub write_ticks_ms: u64,
    /// I/Os in flight now (a level, not a counter).
    pub in_flight: u64,
    /// Time the device was busy, ms.
    pub io_ticks_ms: u64,
    /// Summed request durations (weighted before 5.0), ms.
    pub time_in_queue_ms: u64,
    /// Discard I/Os completed (4.19+).
    pub discard_ios: Option<u64>,
    /// Discard I/Os merged (4.19+).
    pub discard_merges: Option<u64>,
    /// 512-byte sectors discarded (4.19+).
    pub discard_sectors: Option<u64>,
    /// Total wait of discards, ms (4.19+).
    pub discard_ticks_ms: Option<u64>,
    /// Flush requests completed (5.5+).
    pub flush_ios: Option<u64>,
    /// Total wait of flushes, ms (5.5+).
    pub flush_ticks_ms: Option<u64>,
}

/// The `stat` file of a disk or partition: `/sys/class/block/<name>/stat`
/// when that exists (see [`super::sysfs::dev_dir`]).
pub fn block_stat_path(sys: &Sysroot, name: &str) -> PathBuf {
    sys.path(super::sysfs::dev_path(sys, name, "stat"))
}

/// Reads and sums the `stat` files of `names` (a target's devices); `None`
/// when any is missing or malformed, or `names` is empty.
pub fn read_block_stats(sys: &Sysroot, names: &[String]) -> Option<BlockStat> {
    let mut total: Option<BlockStat> = None;
    for n in names {
        let text = sys
            .read_to_string(super::sysfs::dev_path(sys, n, "stat"))
            .ok()?;
        let s = parse_block_stat(&text)?;
        total = Some(match total {
            Some(t) => t.sum(&s),
            None => s,
        });
    }
    total
}

/// Parses a `stat` file. `None` with fewer than 11 numbers; never panics.
pub fn parse_block_stat(text: &str) -> Option<BlockStat> {
    let v: Vec<u64> = text
        .split_whitespace()
        .map(|f| f.parse::<u64>().ok())
        .collect::<Option<_>>()?;
    if v.len() < 11 {
        return None;
    }
    let opt = |i: usize| v.get(i).copied();
    Some(BlockStat {
        read_ios: v[0],
        read_merges: v[1],
        read_sectors: v[2],
        read_ticks_ms: v[3],
        write_ios: v[4],
        write_merges: v[5],
        write_sectors: v[6],
        write_ticks_ms: v[7],
        in_flight: v[8],
        io_ticks_ms: v[9],
        time_in_queue_ms: v[10],
        discard_ios: opt(11),
        discard_merges: opt(12),
        discard_sectors: opt(13),
        discard_ticks_ms: opt(14),
        flush_ios: opt(15),
        flush_ticks_ms: opt(16),
    })
}

/// `later - earlier` for an ms field printed as unsigned 32-bit.
fn ms_delta(earlier: u64, later: u64) -> u64 {
    later.wrapping_sub(earlier) & 0xffff_ffff
}

fn opt_delta(a: Option<u64>, b: Option<u64>, f: fn(u64, u64) -> u64) -> Option<u64> {
    Some(f(a?, b?))
}

impl BlockStat {
    /// The counters accumulated from `self` to `later`: counters subtract
    /// (a counter that went backwards, a reset, counts 0), `*_ms` fields
    /// subtract modulo 2^32, `in_flight` is `later`'s level.
    pub fn delta(&self, later: &BlockStat) -> BlockStat {
        let c = |a: u64, b: u64| b.saturating_sub(a);
        BlockStat {
            read_ios: c(self.read_ios, later.read_ios),
            read_merges: c(self.read_merges, later.read_merges),
            read_sectors: c(self.read_sectors, later.read_sectors),
            read_ticks_ms: ms_delta(self.read_ticks_ms, later.read_ticks_ms),
            write_ios: c(self.write_ios, later.write_ios),
            write_merges: c(self.write_merges, later.write_merges),
            write_sectors: c(self.write_sectors, later.write_sectors),
            write_ticks_ms: ms_delta(self.write_ticks_ms, later.write_ticks_ms),
            in_flight: later.in_flight,
            io_ticks_ms: ms_delta(self.io_ticks_ms, later.io_ticks_ms),
            time_in_queue_ms: ms_delta(self.time_in_queue_ms, later.time_in_queue_ms),
            discard_ios: opt_delta(self.discard_ios, later.discard_ios, c),
            discard_merges: opt_delta(self.discard_merges, later.discard_merges, c),
            discard_sectors: opt_delta(self.discard_sectors, later.discard_sectors, c),
            discard_ticks_ms: opt_delta(self.discard_ticks_ms, later.discard_ticks_ms, ms_delta),
            flush_ios: opt_delta(self.flush_ios, later.flush_ios, c),
            flush_ticks_ms: opt_delta(self.flush_ticks_ms, later.flush_ticks_ms, ms_delta),
        }
    }

    /// The sum of two devices' counters (for several members): counters and
    /// ms add (wrapping), `None` when either lacks the field.
    pub fn sum(&self, other: &BlockStat) -> BlockStat {
        let a = |x: u64, y: u64| x.wrapping_add(y);
        let o = |x: Option<u64>, y: Option<u64>| Some(x?.wrapping_add(y?));
        BlockStat {
            read_ios: a(self.read_ios, other.read_ios),
            read_merges: a(self.read_merges, other.read_merges),
            read_sectors: a(self.read_sectors, other.read_sectors),
            read_ticks_ms: a(self.read_ticks_ms, other.read_ticks_ms),
            write_ios: a(self.write_ios, other.write_ios),
            write_merges: a(self.write_merges, other.write_merges),
            write_sectors: a(self.write_sectors, other.write_sectors),
            write_ticks_ms: a(self.write_ticks_ms, other.write_ticks_ms),
            in_flight: a(self.in_flight, other.in_flight),
            io_ticks_ms: a(self.io_ticks_ms, other.io_ticks_ms),
            time_in_queue_ms: a(self.time_in_queue_ms, other.time_in_queue_ms),
            discard_ios: o(self.discard_ios, other.discard_ios),
            discard_merges: o(self.discard_merges, other.discard_merges),
            discard_sectors: o(self.discard_sectors, other.discard_sectors),
            discard_ticks_ms: o(self.discard_ticks_ms, other.discard_ticks_ms),
            flush_ios: o(self.flush_ios, other.flush_ios),
            flush_ticks_ms: o(self.flush_ticks_ms, other.flush_ticks_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_11_15_and_17_fields() {
        let s11 = parse_block_stat("1 2 3 4 5 6 7 8 9 10 11\n").unwrap();
        assert_eq!(s11.time_in_queue_ms, 11);
        assert_eq!(s11.discard_ios, None);
        let s15 = parse_block_stat("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15").unwrap();
        assert_eq!(s15.discard_ticks_ms, Some(15));
        assert_eq!(s15.flush_ios, None);
        let s17 = parse_block_stat(
            "   45613     3297  3990498    13766   105420   123063  5423224   163930        0   179940   191283        0        0        0        0    21744    13586\n",
        )
        .unwrap();
        assert_eq!(s17.read_ios, 45613);
        assert_eq!(s17.write_sectors, 5423224);
        assert_eq!(s17.flush_ticks_ms, Some(13586));
    }

    #[test]
    fn rejects_short_or_garbage() {
        assert_eq!(parse_block_stat(""), None);
        assert_eq!(parse_block_stat("1 2 3 4 5 6 7 8 9 10"), None);
        assert_eq!(parse_block_stat("1 2 3 4 5 6 7 8 9 10 x"), None);
        assert_eq!(parse_block_stat("1 2 3 4 5 6 7 8 9 10 -1"), None);
    }

    #[test]
    fn ms_fields_wrap_at_32_bits() {
        let a = parse_block_stat("10 0 0 4294967290 0 0 0 0 3 100 4294967295").unwrap();
        let b = parse_block_stat("20 0 0 5 0 0 0 0 1 150 9").unwrap();
        let d = a.delta(&b);
        assert_eq!(d.read_ios, 10);
        assert_eq!(d.read_ticks_ms, 11);
        assert_eq!(d.time_in_queue_ms, 10);
        assert_eq!(d.io_ticks_ms, 50);
        assert_eq!(d.in_flight, 1);
    }
}
