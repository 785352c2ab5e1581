//! CPU lists and masks of `/sys/devices/system/cpu`: lscpu's readers
//! (`cpu::parse_cpu_list`, `cpu::parse_mask`, with a bound of up to 4096
//! CPUs taken from the first byte), and `sysinfo::cpu_numbers`, the CPU
//! numbers the rest of the program takes from a list through the former.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::sysinfo::cpu::{self, cpuset::set_bits_for};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    // the callers bound the set by kernel_max: 64 to 4096 bits here
    let nbits = set_bits_for(1 + first as usize * 16);
    let s = String::from_utf8_lossy(rest);

    if let Some(set) = cpu::parse_cpu_list(&s, nbits) {
        assert!(set.nbits() >= nbits);
        assert!(set.iter().all(|c| c < set.nbits()));
        assert_eq!(set.iter().count(), set.count());
    }
    if let Some(set) = cpu::parse_mask(&s, nbits) {
        assert!(set.count() <= set.nbits());
        // a mask of n hex digits holds no CPU at or past 4n
        let digits = s.bytes().filter(u8::is_ascii_hexdigit).count();
        assert!(set.iter().all(|c| c < 4 * digits.max(1)));
    }
    if let Some(list) = quickbench::sysinfo::cpu_numbers(&s) {
        assert!(!list.is_empty());
        assert!(list.iter().all(|&c| c < 65_536));
        assert!(list.windows(2).all(|w| w[0] < w[1]), "sorted, once each");
    }
});
