//! Bad usage is answered with exit 2 and a one-line reason on stderr;
//! help and version go to stdout with exit 0.

use assert_cmd::Command;

fn qb(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("quickbench")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn bad_usage_exits_2_with_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["abc"], "'abc' is not a number of seconds"),
        (&["0"], "too short"),
        (&["-1"], "is not a number of seconds"),
        (&["1e9"], "is not a number of seconds"),
        (&["nan"], "is not a number of seconds"),
        (&["inf"], "is not a number of seconds"),
        (&[""], "is not a number of seconds"),
        (&["100000"], "too long"),
        (&["1", "2"], "unexpected argument '2'"),
        (&["--frobnicate"], "unexpected argument '--frobnicate'"),
        (&["--only", "gpu"], "unknown section 'gpu'"),
        (&["--skip", "cpu,disk"], "unknown section 'disk'"),
        (&["--max-size", "0"], "'0' is too small"),
        (&["--max-size", "garbage"], "'garbage' is not a size"),
    ];
    for (args, reason) in cases {
        let out = qb(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
        assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(err.starts_with("quickbench: "), "{args:?}: {err}");
        assert!(err.contains(reason), "{args:?}: {err} lacks {reason}");
        assert!(err.contains("--help"), "{args:?}: {err}");
    }
}

#[test]
fn help_and_version_go_to_stdout() {
    let out = qb(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for word in [
        "LOOP_DELAY",
        "--dir",
        "--only",
        "--skip",
        "--dry-run",
        "--sysroot",
        "--max-size",
        "--json",
        "--extended",
        "--quiet",
    ] {
        assert!(text.contains(word), "help lacks {word}");
    }
    assert!(!text.contains("--fake-figures"), "hidden flag shown");
    let out = qb(&["-V"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("quickbench {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn short_delay_warns_on_stderr_only() {
    let out = qb(&["0.1", "--only", "memory"]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning") && err.contains("30 s"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("warning"));
}
