//! `/proc/meminfo` (`MemTotal`, `MemAvailable`) and sysfs cache sizes
//! (`cache/index*/size`: `48K`, `32M`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::membw::dram::{parse_cache_size, plan_arrays_for};
use quickbench::sysinfo::parse_meminfo;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let m = parse_meminfo(&text);
    let (total, avail) = (m.mem_total_kib, m.mem_available_kib);
    let first_line = text.lines().next().unwrap_or("");
    let cache = parse_cache_size(first_line);
    if let Some(c) = cache {
        match first_line.trim().as_bytes().last() {
            Some(b'K' | b'k') => assert_eq!(c % 1024, 0),
            Some(b'M' | b'm') => assert_eq!(c % (1 << 20), 0),
            Some(b'G' | b'g') => assert_eq!(c % (1 << 30), 0),
            _ => {}
        }
    }
    // what the memory bandwidth section makes of them
    let plan = plan_arrays_for(cache, avail.or(total));
    assert!(plan.array_bytes >= 1 << 20);
    assert!(plan.array_bytes <= plan.wanted_array_bytes);
    let _ = plan.note();
});
