//! `/sys/class/block/<dev>/stat` (`blockdev::parse_block_stat`, then the
//! `delta` and `sum` the I/O section computes) and `queue/scheduler`
//! (`details::parse_scheduler`). The dd_io copy of the stat reader is
//! private to its module and not reachable from here.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::blockdev::details::parse_scheduler;
use quickbench::blockdev::parse_block_stat;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // one or two snapshots, split at a blank line
    let (a, b) = text.split_once("\n\n").unwrap_or((&text, &text));
    if let (Some(x), Some(y)) = (parse_block_stat(a), parse_block_stat(b)) {
        let d = x.delta(&y);
        assert!(d.read_ticks_ms <= u32::MAX as u64);
        assert!(d.io_ticks_ms <= u32::MAX as u64);
        assert_eq!(d.in_flight, y.in_flight);
        let _ = x.sum(&y);
        if x == y {
            assert_eq!(d.read_ios, 0);
            assert_eq!(d.write_sectors, 0);
        }
    }
    if let Some(s) = parse_scheduler(&text) {
        assert!(s.len() <= text.len());
    }
});
