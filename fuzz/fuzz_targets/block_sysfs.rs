//! `/sys/class/block/<dev>/stat` (`blockdev::parse_block_stat`, then the
//! `delta` and `total` the I/O section computes) and `queue/scheduler`
//! (`details::parse_scheduler`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::blockdev::details::parse_scheduler;
use quickbench::blockdev::{parse_block_stat, BlockStat};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // one or two snapshots, split at a blank line
    let (a, b) = text.split_once("\n\n").unwrap_or((&text, &text));
    if let (Some(x), Some(y)) = (parse_block_stat(a), parse_block_stat(b)) {
        let d = x.delta(&y);
        assert!(d.read_ticks_ms <= u32::MAX as u64);
        assert!(d.busy_ms <= u32::MAX as u64);
        assert_eq!(d.flush_ios.is_some(), x.flush_ios.is_some() && y.flush_ios.is_some());
        let _ = BlockStat::total([&x, &y]);
        if x == y {
            assert_eq!(d.read_ios, 0);
            assert_eq!(d.write_sectors, 0);
        }
    }
    if let Some(s) = parse_scheduler(&text) {
        assert!(s.len() <= text.len());
    }
});
