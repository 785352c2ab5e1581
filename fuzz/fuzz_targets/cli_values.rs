//! Command-line values: `cli::parse_delay`, `parse_size`,
//! `parse_sections`, and a whole command line through `cli::parse` (the
//! input split at newlines into arguments).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::cli::{self, MAX_DELAY_S, MIN_DELAY_S};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let first = text.lines().next().unwrap_or("");
    for s in [first, &*text] {
        if let Ok(v) = cli::parse_delay(s) {
            assert!((MIN_DELAY_S..=MAX_DELAY_S).contains(&v), "{s:?} -> {v}");
        }
        if let Ok(b) = cli::parse_size(s) {
            assert!((1 << 20..=1 << 60).contains(&b), "{s:?} -> {b}");
        }
        if let Ok(list) = cli::parse_sections(s) {
            assert_eq!(list.len(), s.split(',').count());
        }
    }
    let args = std::iter::once("quickbench").chain(text.split('\n'));
    if let Ok(c) = cli::parse(args) {
        let d = c.loop_delay.as_secs_f64();
        assert!((MIN_DELAY_S - 1e-9..=MAX_DELAY_S).contains(&d), "{d}");
        assert!(c.max_size_bytes >= 1 << 20);
    }
});
