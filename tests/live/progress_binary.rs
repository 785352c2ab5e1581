//! The real binary with stderr on a terminal (under `script`) and stdout
//! in a file, as `quickbench 30 > report.txt`: the status line shows on the
//! terminal, the file gets the report alone, laid out exactly as a run
//! without a terminal; `-q` turns the display off.

use crate::common_skip;
use std::process::Command;

fn have_script() -> bool {
    Command::new("script").arg("--version").output().is_ok()
}

/// Runs the binary under `script` with stdout redirected to a file;
/// returns (what the terminal got, the file).
fn under_pty(extra: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.txt");
    let cmd = format!(
        "'{}' 0.6 --only cpu,memory {extra} > '{}'",
        env!("CARGO_BIN_EXE_quickbench"),
        report.display()
    );
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        std::fs::read_to_string(&report).unwrap(),
    )
}

/// The report with its figures blanked, to compare layouts: every run of
/// digits, dots and blanks becomes one `#` (figures differ in width from
/// run to run; labels, titles and line order must not).
fn layout(text: &str) -> String {
    // Load marks depend on what else ran meanwhile (other tests, the host's
    // other tenants): not layout.
    let marks =
        regex::Regex::new(r" \((busy|steal|shared|throttled|other I/O|cached)[^)]*\)").unwrap();
    let text = marks.replace_all(text, "");
    text.lines()
        .map(|l| {
            let mut out = String::new();
            for c in l.chars() {
                if c.is_ascii_digit() || c == '.' || c == ' ' {
                    if !out.ends_with('#') {
                        out.push('#');
                    }
                } else {
                    out.push(c);
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn progress_on_the_terminal_and_a_clean_report_in_the_file() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !have_script() {
        common_skip::skip("no script(1) to give the binary a terminal");
        return;
    }
    let (screen, file) = under_pty("");
    assert!(screen.contains("[ CPU loop ] 1 // jobs"), "{screen:?}");
    assert!(screen.contains("[ Memory ] Bandwidth"), "{screen:?}");
    assert!(screen.contains("left"), "{screen:?}");
    assert!(
        screen.contains("\r\x1b[2K"),
        "the line is never erased: {screen:?}"
    );
    assert!(!file.contains('\x1b') && !file.contains('\r'), "{file:?}");

    // The same run without a terminal has the same layout.
    let plain = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args(["0.6", "--only", "cpu,memory"])
        .output()
        .unwrap();
    let plain = String::from_utf8(plain.stdout).unwrap();
    assert_eq!(layout(&file), layout(&plain));
}

#[test]
fn quiet_draws_nothing() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !have_script() {
        common_skip::skip("no script(1) to give the binary a terminal");
        return;
    }
    let (screen, _) = under_pty("-q");
    assert!(!screen.contains("\x1b[2K"), "{screen:?}");
    assert!(!screen.contains("left"), "{screen:?}");
}
