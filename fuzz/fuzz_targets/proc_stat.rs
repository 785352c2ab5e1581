//! `/proc/stat` (`procstat::parse_proc_stat`) and the steal share computed
//! from two readings (`steal_percent`), as the extended report does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::sysinfo::procstat::{parse_proc_stat, steal_percent};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let st = parse_proc_stat(&text);
    assert!(st.per_cpu.len() <= text.lines().count());
    // the aggregate line before and each per-CPU line after, both ways
    let all: Vec<_> = st
        .total
        .iter()
        .chain(st.per_cpu.iter().map(|(_, t)| t))
        .collect();
    for w in all.windows(2) {
        for (a, b) in [(w[0], w[1]), (w[1], w[0])] {
            let p = steal_percent(a, b);
            assert!((0.0..=100.0).contains(&p), "{p}");
        }
    }
});
