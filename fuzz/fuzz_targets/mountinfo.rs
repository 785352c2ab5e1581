//! `/proc/self/mountinfo`: whole files (`parse_mountinfo`), single lines
//! (`parse_mountinfo_line`), the `\ooo` unescaping (`unescape`) and
//! `MountInfo::option`. Invariant: a line rebuilt from a parsed entry (with
//! the kernel's escapes) parses back to the same entry.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::blockdev::{parse_mountinfo, parse_mountinfo_line, unescape, MountInfo};

/// Escapes as the kernel's `mangle()` does (`show_mountinfo`), plus `\r`
/// which the line reader trims at the end.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            ' ' | '\t' | '\n' | '\r' | '\\' => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn rebuild(m: &MountInfo) -> String {
    let mut line = format!(
        "{} {} {}:{} {} {} {}",
        m.mount_id,
        m.parent_id,
        m.major,
        m.minor,
        escape(&m.root),
        escape(&m.mount_point),
        m.mount_options
    );
    for f in &m.optional_fields {
        line.push(' ');
        line.push_str(f);
    }
    line.push_str(" - ");
    line.push_str(&m.fs_type);
    line.push(' ');
    line.push_str(&escape(&m.mount_source));
    line.push(' ');
    line.push_str(&m.super_options);
    line
}

fn check(m: &MountInfo) {
    let line = rebuild(m);
    let again = parse_mountinfo_line(&line);
    assert_eq!(again.as_ref(), Some(m), "round trip of {line:?}");
    assert_eq!(unescape(&escape(&m.root)), m.root);
    for key in ["upperdir", "subvol", "lowerdir"] {
        let _ = m.option(key);
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(m) = parse_mountinfo_line(&text) {
        check(&m);
    }
    let all = parse_mountinfo(&text);
    assert!(all.len() <= text.lines().count());
    for m in &all {
        check(m);
    }
    // unescaping never grows a string (4 bytes become at most 3)
    assert!(unescape(&text).len() <= text.len());
});
