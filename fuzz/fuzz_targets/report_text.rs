//! The report readers (`report::read::read_report`): our text, our JSON
//! and the bash original's text, in any layout, pasted or cut short.
//! Beyond "no panic, no hang": whatever reads renders to a text that reads
//! again, to the same text (one normalisation, then a fixed point).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::report::read::{read_report, read_text};
use quickbench::report::text::render;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(report) = read_report("fuzz", &text) else {
        return;
    };
    let once = render(&report);
    let again = read_text("rendered", &once)
        .unwrap_or_else(|e| panic!("a rendered report does not read: {e}\n{once}"));
    assert_eq!(render(&again), once);
});
