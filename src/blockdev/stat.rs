//! A block device's `stat` file (`/sys/class/block/<name>/stat`, found
//! as every sysfs file of a device is, [`super::sysfs::dev_dir`]): the
//! I/O counters the I/O engine reads before and after each storage line,
//! and their difference.

use std::path::PathBuf;

use serde::Serialize;

use crate::sysroot::Sysroot;

/// The counters the report uses of one `stat` file, or their difference
/// over a line (what the device did meanwhile: [`BlockStat::delta`]).
/// Sectors are 512 bytes; `*_ms` fields are milliseconds that the kernel
/// prints as 32-bit and that wrap at 2^32. The JSON of a storage line
/// carries it under these names (`device_stat_delta`, `device_deltas`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct BlockStat {
    /// Read I/Os completed (field 1).
    pub read_ios: u64,
    /// Adjacent read requests merged by the block layer (field 2).
    pub read_merges: u64,
    /// 512-byte sectors read (field 3).
    pub read_sectors: u64,
    /// Summed read request time, ms (field 4).
    pub read_ticks_ms: u64,
    /// Write I/Os completed (field 5).
    pub write_ios: u64,
    /// Adjacent write requests merged (field 6).
    pub write_merges: u64,
    /// 512-byte sectors written (field 7).
    pub write_sectors: u64,
    /// Summed write request time, ms (field 8).
    pub write_ticks_ms: u64,
    /// Time the device had I/O in flight, ms (field 10, `io_ticks`).
    pub busy_ms: u64,
    /// Summed time of all requests (weighted before 5.0), ms (field 11).
    pub time_in_queue_ms: u64,
    /// Flush requests completed (field 16, Linux 5.5+).
    pub flush_ios: Option<u64>,
}

/// The `stat` file of a disk or partition, as a real path (see
/// [`super::sysfs::dev_dir`]).
pub fn block_stat_path(sys: &Sysroot, name: &str) -> PathBuf {
    sys.path(super::sysfs::dev_path(sys, name, "stat"))
}

/// Reads the `stat` file of the device `name` (found as
/// [`super::sysfs::dev_dir`] finds it); `None` when missing or malformed.
pub fn read_block_stat(sys: &Sysroot, name: &str) -> Option<BlockStat> {
    let text = sys
        .read_to_string(super::sysfs::dev_path(sys, name, "stat"))
        .ok()?;
    parse_block_stat(&text)
}

/// Reads and sums the `stat` files of `names` (a target's devices); `None`
/// when any is missing or malformed, or `names` is empty.
pub fn read_block_stats(sys: &Sysroot, names: &[String]) -> Option<BlockStat> {
    let stats: Vec<BlockStat> = names
        .iter()
        .map(|n| read_block_stat(sys, n))
        .collect::<Option<_>>()?;
    BlockStat::total(&stats)
}

/// Parses a `stat` file: 11 fields up to Linux 4.18, 15 from 4.19
/// (discards), 17 from 5.5 (flushes) (kernel
/// `Documentation/block/stat.rst`). `None` with fewer than 11 numbers or
/// any field that is not one; never panics.
pub fn parse_block_stat(text: &str) -> Option<BlockStat> {
    let v: Vec<u64> = text
        .split_whitespace()
        .map(|f| f.parse::<u64>().ok())
        .collect::<Option<_>>()?;
    if v.len() < 11 {
        return None;
    }
    Some(BlockStat {
        read_ios: v[0],
        read_merges: v[1],
        read_sectors: v[2],
        read_ticks_ms: v[3],
        write_ios: v[4],
        write_merges: v[5],
        write_sectors: v[6],
        write_ticks_ms: v[7],
        busy_ms: v[9],
        time_in_queue_ms: v[10],
        flush_ios: v.get(15).copied(),
    })
}

/// `later - earlier` for an ms field printed as unsigned 32-bit.
fn ms_delta(earlier: u64, later: u64) -> u64 {
    later.wrapping_sub(earlier) & 0xffff_ffff
}

impl BlockStat {
    /// The counters accumulated from `self` to `later`: counters subtract
    /// (a counter that went backwards, a reset, counts 0), `*_ms` fields
    /// subtract modulo 2^32; `flush_ios` only when both have it.
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
            busy_ms: ms_delta(self.busy_ms, later.busy_ms),
            time_in_queue_ms: ms_delta(self.time_in_queue_ms, later.time_in_queue_ms),
            flush_ios: self.flush_ios.zip(later.flush_ios).map(|(a, b)| c(a, b)),
        }
    }

    /// The field-by-field sum of several devices' counters or deltas
    /// (times add up as device-milliseconds; wrapping, as the kernel's
    /// counters do); `flush_ios` only when every one has it. `None` for
    /// an empty list.
    pub fn total<'a>(stats: impl IntoIterator<Item = &'a BlockStat>) -> Option<BlockStat> {
        stats.into_iter().fold(None, |acc: Option<BlockStat>, d| {
            let Some(a) = acc else { return Some(*d) };
            let s = |x: u64, y: u64| x.wrapping_add(y);
            Some(BlockStat {
                read_ios: s(a.read_ios, d.read_ios),
                read_merges: s(a.read_merges, d.read_merges),
                read_sectors: s(a.read_sectors, d.read_sectors),
                read_ticks_ms: s(a.read_ticks_ms, d.read_ticks_ms),
                write_ios: s(a.write_ios, d.write_ios),
                write_merges: s(a.write_merges, d.write_merges),
                write_sectors: s(a.write_sectors, d.write_sectors),
                write_ticks_ms: s(a.write_ticks_ms, d.write_ticks_ms),
                busy_ms: s(a.busy_ms, d.busy_ms),
                time_in_queue_ms: s(a.time_in_queue_ms, d.time_in_queue_ms),
                flush_ios: a.flush_ios.zip(d.flush_ios).map(|(x, y)| s(x, y)),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/sys/class/block/vda/stat` of this VM (Linux 6.18: 17 fields).
    const VDA_6_18: &str = "  133226    38765  9779474    54380   449127   362004 23063736   931655        0   468400  1062210        0        0        0        0    41290    76174\n";

    #[test]
    fn parses_11_15_and_17_fields() {
        let s11 = parse_block_stat("1 2 3 4 5 6 7 8 9 10 11\n").unwrap();
        assert_eq!((s11.busy_ms, s11.time_in_queue_ms), (10, 11));
        assert_eq!(s11.flush_ios, None);
        let s15 = parse_block_stat("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15").unwrap();
        assert_eq!(s15.flush_ios, None, "discards only: no flush counter");
        let s17 = parse_block_stat(
            "   45613     3297  3990498    13766   105420   123063  5423224   163930        0   179940   191283        0        0        0        0    21744    13586\n",
        )
        .unwrap();
        assert_eq!(s17.read_ios, 45613);
        assert_eq!(s17.write_sectors, 5423224);
        assert_eq!(s17.busy_ms, 179940);
        assert_eq!(s17.flush_ios, Some(21744));
        let vda = parse_block_stat(VDA_6_18).unwrap();
        assert_eq!(
            (vda.read_ios, vda.busy_ms, vda.flush_ios),
            (133_226, 468_400, Some(41_290))
        );
    }

    #[test]
    fn rejects_short_or_garbage() {
        assert_eq!(parse_block_stat(""), None);
        assert_eq!(parse_block_stat("1 2 3 4 5 6 7 8 9 10"), None);
        assert_eq!(parse_block_stat("1 2 3 4 5 6 7 8 9 10 x"), None);
        assert_eq!(parse_block_stat("1 2 3 4 5 6 7 8 9 10 -1"), None);
        assert_eq!(parse_block_stat("1 2 3 4 5 6 7 8 9 10 11 12 x"), None);
    }

    #[test]
    fn ms_fields_wrap_at_32_bits_and_counters_never_go_negative() {
        let a = parse_block_stat("10 0 0 4294967290 5 0 0 0 3 100 4294967295").unwrap();
        let b = parse_block_stat("20 0 0 5 2 0 0 0 1 150 9").unwrap();
        let d = a.delta(&b);
        assert_eq!(d.read_ios, 10);
        assert_eq!(d.read_ticks_ms, 11);
        assert_eq!(d.time_in_queue_ms, 10);
        assert_eq!(d.busy_ms, 50);
        assert_eq!(d.write_ios, 0, "a reset counts 0");
        let zero = parse_block_stat(&"0 ".repeat(17)).unwrap();
        let d = zero.delta(&parse_block_stat(VDA_6_18).unwrap());
        assert_eq!((d.read_ios, d.busy_ms), (133_226, 468_400));
        assert_eq!(d.flush_ios, Some(41_290));
        assert_eq!(a.delta(&zero).flush_ios, None, "11 fields: no flushes");
    }

    #[test]
    fn totals_add_fields_and_keep_flushes_only_when_all_have_them() {
        let zero = parse_block_stat(&"0 ".repeat(11)).unwrap();
        let a = parse_block_stat("1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 11 12").unwrap();
        let b = parse_block_stat("10 20 30 40 50 60 70 80 0 90 100 0 0 0 0 110 120").unwrap();
        let s = BlockStat::total([&a, &b]).unwrap();
        assert_eq!((s.read_sectors, s.write_sectors, s.busy_ms), (33, 77, 99));
        assert_eq!(s.flush_ios, Some(121));
        let s = BlockStat::total([&zero.delta(&a), &zero.delta(&b)]).unwrap();
        assert_eq!(s.flush_ios, None, "the 11-field snapshot has no flushes");
        assert_eq!(BlockStat::total([&b, &b]).unwrap().write_merges, 120);
        assert_eq!(BlockStat::total([]), None);
    }

    #[test]
    fn the_json_keys_of_a_storage_line() {
        let d = parse_block_stat(VDA_6_18).unwrap();
        let j = serde_json::to_string(&d).unwrap();
        assert_eq!(
            j,
            "{\"read_ios\":133226,\"read_merges\":38765,\"read_sectors\":9779474,\"read_ticks_ms\":54380,\"write_ios\":449127,\"write_merges\":362004,\"write_sectors\":23063736,\"write_ticks_ms\":931655,\"busy_ms\":468400,\"time_in_queue_ms\":1062210,\"flush_ios\":41290}"
        );
        assert_eq!(serde_json::from_str::<BlockStat>(&j).unwrap(), d);
    }

    #[test]
    fn reading_finds_the_device_without_sys_class() {
        // A util-linux dump: /sys/block and /sys/dev/block, no /sys/class.
        let d = tempfile::tempdir().unwrap();
        let dev = d.path().join("sys/devices/pci0000:00/virtio1/block/vda");
        std::fs::create_dir_all(dev.join("vda1")).unwrap();
        std::fs::write(dev.join("dev"), "254:0\n").unwrap();
        std::fs::write(dev.join("stat"), VDA_6_18).unwrap();
        std::fs::write(dev.join("vda1/partition"), "1\n").unwrap();
        std::fs::write(dev.join("vda1/stat"), "1 0 8 0 2 0 16 0 0 3 4\n").unwrap();
        std::fs::create_dir_all(d.path().join("sys/block")).unwrap();
        std::os::unix::fs::symlink(
            "../devices/pci0000:00/virtio1/block/vda",
            d.path().join("sys/block/vda"),
        )
        .unwrap();
        let sys = Sysroot::new(d.path());
        assert_eq!(read_block_stat(&sys, "vda").unwrap().busy_ms, 468_400);
        assert_eq!(read_block_stat(&sys, "vda1").unwrap().busy_ms, 3);
        assert_eq!(read_block_stat(&sys, "vdb"), None);
        let both = read_block_stats(&sys, &["vda".into(), "vda1".into()]).unwrap();
        assert_eq!(both.read_ios, 133_227);
    }
}
