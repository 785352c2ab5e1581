//! The comparison of two reports read from fuzzed text (`compare::compare`
//! and its renderers): the input is two reports separated by a line `%%`.
//! Beyond "no panic, no hang": each report compared with itself is all
//! equal, every row has one value and one verdict per report, and a
//! figure and its verdict print in a bounded width (a JSON figure no run
//! can write does not read at all).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::compare::{compare, render_text, Input, RowKind, Style, Verdict};
use quickbench::report::read::read_report;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (a, b) = text.split_once("\n%%\n").unwrap_or((&text, ""));
    let (Ok(a), Ok(b)) = (read_report("a", a), read_report("b", b)) else {
        return;
    };
    let inputs = [
        Input::new("a", a.clone()),
        Input::new("b", b),
        Input::new("c", a.clone()),
    ];
    let c = compare(&inputs[..2]);
    for r in &c.rows {
        assert_eq!(r.values.len(), 2);
        assert_eq!(r.verdicts.len(), 2);
        // A figure that reads prints in a bounded width: no 300-digit
        // ratio or interval.
        for j in r.judged.iter().flatten() {
            assert!(j.words.chars().count() < 160, "{}", j.words);
        }
        for t in r.texts.iter().flatten() {
            assert!(r.kind != RowKind::Figure || t.chars().count() <= 24, "{t}");
        }
    }
    let style = Style { color: false, width: 100 };
    let _ = render_text(&c, &style, false);
    let fleet = compare(&inputs);
    let _ = render_text(&fleet, &style, true);
    let same = compare(&[inputs[0].clone(), inputs[2].clone()]);
    for r in &same.rows {
        match &r.verdicts[1] {
            Verdict::Same | Verdict::Equal => {}
            Verdict::NotComparable { .. } => assert!(!r.marks[1].is_empty(), "{}", r.label),
            v => panic!("{}: {v:?}", r.label),
        }
    }
});
