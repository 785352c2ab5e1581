//! Other I/O per device: how much of each device's I/O during a storage
//! line the engine did not issue, from the device's counter deltas
//! ([`crate::dd_io::LineResult::device_deltas`]) and the engine's own
//! figures. Plain arithmetic on data already measured.

use serde::{Deserialize, Serialize};

use super::percent;
use crate::blockdev::BlockStat;
use crate::dd_io::{Direction, LineResult};

/// The block layer may split one of our I/Os into requests of this size
/// (the smallest common `max_sectors_kb`), so a 1 MiB I/O may legitimately
/// be up to 8 device requests.
pub const SPLIT_REQUEST_BYTES: u64 = 128 << 10;

/// The engine's own I/O during a storage line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OurIo {
    /// Write or read.
    pub direction: Direction,
    /// Whole-block I/Os the engine completed.
    pub ios: u64,
    /// Bytes the engine transferred.
    pub bytes: u64,
    /// The line's block size, bytes.
    pub block_size_bytes: u64,
}

impl OurIo {
    /// The engine's figures of a measured line.
    pub fn of_line(l: &LineResult) -> OurIo {
        OurIo {
            direction: l.direction,
            ios: l.ios,
            bytes: l.bytes,
            block_size_bytes: l.block_size_bytes,
        }
    }
}

/// How much of one device's I/O during a line was not the engine's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceIoShare {
    /// Kernel name of the device (`vda`, `sdb`).
    pub device: String,
    /// Requests the block layer received, both directions: completed
    /// I/Os plus merged ones (a merged request was still submitted).
    pub device_requests: u64,
    /// Of those, not ours: all in the other direction, and in ours what
    /// exceeds the engine's I/Os times the split allowance
    /// ([`SPLIT_REQUEST_BYTES`]).
    pub foreign_requests: u64,
    /// Bytes the device transferred, both directions (sectors x 512).
    pub device_bytes: u64,
    /// Of those, not ours: all in the other direction, and in ours what
    /// exceeds the engine's bytes.
    pub foreign_bytes: u64,
    /// `foreign_requests` / `device_requests`, percent.
    pub foreign_requests_percent: f64,
    /// `foreign_bytes` / `device_bytes`, percent.
    pub foreign_bytes_percent: f64,
    /// The larger of the two: small foreign I/Os show in requests, large
    /// ones in bytes (the split allowance hides them in requests), percent.
    pub foreign_percent: f64,
}

/// The share of each device's I/O during a line that the engine did not
/// issue, from the device's counter deltas and the engine's own figures;
/// one entry per device, in the order given (each member of a target on
/// several devices).
///
/// Each member is held against all of the engine's I/O, since how a stack
/// spreads it is unknown (a mirror gets all of it, a stripe a part): a
/// member of a stripe can hide foreign I/O in our direction up to our
/// share, never show ours as foreign. Reads in a write line (and writes in
/// a read line) are all counted foreign, so a parity RAID's
/// read-modify-write shows as other I/O on its members.
pub fn other_io(ours: &OurIo, devices: &[(String, BlockStat)]) -> Vec<DeviceIoShare> {
    let split = ours.block_size_bytes.div_ceil(SPLIT_REQUEST_BYTES).max(1);
    let allowed_requests = ours.ios.saturating_mul(split);
    devices
        .iter()
        .map(|(name, d)| {
            let (same_req, other_req, same_sec, other_sec) = match ours.direction {
                Direction::Write => (
                    d.write_ios.saturating_add(d.write_merges),
                    d.read_ios.saturating_add(d.read_merges),
                    d.write_sectors,
                    d.read_sectors,
                ),
                Direction::Read => (
                    d.read_ios.saturating_add(d.read_merges),
                    d.write_ios.saturating_add(d.write_merges),
                    d.read_sectors,
                    d.write_sectors,
                ),
            };
            let device_requests = same_req.saturating_add(other_req);
            let foreign_requests = same_req
                .saturating_sub(allowed_requests)
                .saturating_add(other_req);
            let b = |s: u64| s.saturating_mul(512);
            let device_bytes = b(same_sec).saturating_add(b(other_sec));
            let foreign_bytes = b(same_sec)
                .saturating_sub(ours.bytes)
                .saturating_add(b(other_sec));
            let rp = percent(foreign_requests as f64, device_requests as f64);
            let bp = percent(foreign_bytes as f64, device_bytes as f64);
            DeviceIoShare {
                device: name.clone(),
                device_requests,
                foreign_requests,
                device_bytes,
                foreign_bytes,
                foreign_requests_percent: rp,
                foreign_bytes_percent: bp,
                foreign_percent: rp.max(bp),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::Mark;

    fn dev(read: (u64, u64, u64), write: (u64, u64, u64)) -> BlockStat {
        BlockStat {
            read_ios: read.0,
            read_merges: read.1,
            read_sectors: read.2,
            read_ticks_ms: 0,
            write_ios: write.0,
            write_merges: write.1,
            write_sectors: write.2,
            write_ticks_ms: 0,
            busy_ms: 0,
            time_in_queue_ms: 0,
            flush_ios: None,
        }
    }

    fn io(direction: Direction, ios: u64, bs: u64) -> OurIo {
        OurIo {
            direction,
            ios,
            bytes: ios * bs,
            block_size_bytes: bs,
        }
    }

    #[test]
    fn a_quiet_4k_write_line_with_its_journal() {
        // 10 000 writes of 4 KiB plus a journal commit of 12 requests.
        let v = other_io(
            &io(Direction::Write, 10_000, 4096),
            &[("vda".into(), dev((0, 0, 0), (10_012, 0, 80_000 + 96)))],
        );
        assert_eq!(v[0].foreign_requests, 12);
        assert_eq!(v[0].foreign_bytes, 96 * 512);
        assert!(v[0].foreign_percent < 1.0, "{v:?}");
        assert_eq!(Mark::other_io(&v[0]), None);
    }

    #[test]
    fn a_writer_during_a_read_line() {
        // dd oflag=direct to another file on the device during a read line.
        let v = other_io(
            &io(Direction::Read, 1_000, 4096),
            &[("loop0".into(), dev((1_000, 0, 8_000), (450, 0, 3_600)))],
        );
        assert_eq!(v[0].device_requests, 1_450);
        assert_eq!(v[0].foreign_requests, 450);
        let p = v[0].foreign_percent;
        assert!((p - 31.03).abs() < 0.01, "{p}");
        assert!(
            matches!(Mark::other_io(&v[0]), Some(Mark::OtherIo { ref device, .. }) if device == "loop0")
        );
    }

    #[test]
    fn big_blocks_split_into_requests_are_ours() {
        // 100 I/Os of 1 MiB as 800 requests of 128 KiB: all ours.
        let v = other_io(
            &io(Direction::Write, 100, 1 << 20),
            &[("sda".into(), dev((0, 0, 0), (700, 100, 100 * 2048)))],
        );
        assert_eq!(v[0].foreign_requests, 0);
        assert_eq!(v[0].foreign_bytes, 0);
        assert_eq!(Mark::other_io(&v[0]), None);
        // Split at 256 KiB, with 50 MiB more written by someone else in
        // 1 MiB requests: the requests hide in the split allowance, the
        // bytes do not.
        let v = other_io(
            &io(Direction::Write, 100, 1 << 20),
            &[("sda".into(), dev((0, 0, 0), (450, 0, 150 * 2048)))],
        );
        assert_eq!(v[0].foreign_requests, 0);
        assert_eq!(v[0].foreign_bytes, 50 << 20);
        assert!((v[0].foreign_percent - 100.0 / 3.0).abs() < 0.01);
        assert!(Mark::other_io(&v[0]).is_some(), "over the byte floor");
        // 2 MiB more: a third of a small line, but under both floors.
        let v = other_io(
            &io(Direction::Write, 4, 1 << 20),
            &[("sda".into(), dev((0, 0, 0), (6, 0, 6 * 2048)))],
        );
        assert!(v[0].foreign_percent > 30.0);
        assert_eq!(Mark::other_io(&v[0]), None);
        // Many small foreign requests show in the request share.
        let v = other_io(
            &io(Direction::Write, 100, 1 << 20),
            &[(
                "sda".into(),
                dev((0, 0, 0), (1_000, 0, 100 * 2048 + 200 * 8)),
            )],
        );
        assert_eq!(v[0].foreign_requests, 200);
        assert!(Mark::other_io(&v[0]).is_some());
    }

    #[test]
    fn each_member_of_a_target_on_its_own() {
        // A mirror of two disks: both got all of our writes; sdb also got
        // someone's reads.
        let ours = io(Direction::Write, 5_000, 4096);
        let v = other_io(
            &ours,
            &[
                ("sda".into(), dev((0, 0, 0), (5_000, 0, 40_000))),
                ("sdb".into(), dev((2_000, 0, 16_000), (5_000, 0, 40_000))),
            ],
        );
        assert_eq!(v.len(), 2);
        assert_eq!(Mark::other_io(&v[0]), None);
        let m = Mark::other_io(&v[1]).unwrap();
        assert!(
            matches!(m, Mark::OtherIo { ref device, percent } if device == "sdb" && (percent - 100.0 * 2.0 / 7.0).abs() < 0.01),
            "{m:?}"
        );
        // A device with no I/O at all (buffered reads from the cache).
        let v = other_io(&ours, &[("sdc".into(), dev((0, 0, 0), (0, 0, 0)))]);
        assert_eq!(v[0].foreign_percent, 0.0);
    }

    #[test]
    fn of_line_takes_the_engines_figures() {
        let mut l = LineResult::empty(1 << 20, Direction::Read, 4);
        l.ios = 7;
        l.bytes = 7 << 20;
        let o = OurIo::of_line(&l);
        assert_eq!(o, io(Direction::Read, 7, 1 << 20));
    }
}
