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
        (
            &["--jsn"],
            "unexpected argument '--jsn': did you mean '--json'?",
        ),
        (
            &["30", "--dri-run"],
            "unexpected argument '--dri-run': did you mean '--dry-run'?",
        ),
        (
            &["--only"],
            "a value is required for '--only <LIST>' but none was supplied",
        ),
    ];
    for (args, reason) in cases {
        assert_bad_usage(args, reason, "'quickbench --help'");
    }
}

/// Exit 2, nothing on stdout, and one line on stderr: the reason, then
/// the help that explains it.
fn assert_bad_usage(args: &[&str], reason: &str, help: &str) {
    let out = qb(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(err.starts_with("quickbench: "), "{args:?}: {err}");
    assert!(err.contains(reason), "{args:?}: {err} lacks {reason}");
    assert!(
        err.trim_end().ends_with(&format!("(see {help})")),
        "{args:?}: {err} does not point at {help}"
    );
}

/// compare's mistakes say what is missing and point at compare's own
/// help; a misspelt `compare` is not taken for a loop delay.
#[test]
fn compare_usage_says_what_is_missing_and_points_at_its_help() {
    let help = "'quickbench compare --help'";
    let two = "compare needs two or more reports (files, or - for standard input)";
    assert_bad_usage(&["compare"], &format!("{two}, got none"), help);
    assert_bad_usage(&["compare", "a.json"], &format!("{two}, got one"), help);
    assert_bad_usage(&["compare", "--table"], &format!("{two}, got none"), help);
    assert_bad_usage(
        &["compare", "a.json", "b.json", "--tabel"],
        "unexpected argument '--tabel': did you mean '--table'?",
        help,
    );
    assert_bad_usage(
        &["compare", "-", "-"],
        "standard input (-) can be read once only",
        help,
    );
    for typo in ["comapre", "compar", "comprae", "Compare"] {
        assert_bad_usage(
            &[typo, "a.json", "b.json"],
            &format!("unknown command '{typo}': did you mean 'compare'?"),
            help,
        );
    }
    // export: what is missing, and export's help
    let help = "'quickbench export --help'";
    assert_bad_usage(
        &["export"],
        "missing --prometheus <FILE>, <REPORT>...",
        help,
    );
    assert_bad_usage(&["export", "a.json"], "missing --prometheus <FILE>", help);
    assert_bad_usage(
        &["exprot", "a.json"],
        "unknown command 'exprot': did you mean 'export'?",
        help,
    );
    // far from compare: still a loop delay that is not a number
    assert_bad_usage(
        &["cpu"],
        "'cpu' is not a number of seconds",
        "'quickbench --help'",
    );
}

/// An output file that cannot be created stops the run before its header
/// (exit 2, one line naming the option and the path); an `--html` file
/// that cannot be written stops compare before it reads its inputs.
#[test]
fn unwritable_output_files_are_refused_before_anything_runs() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("no-such-dir/report.txt");
    let b = bad.to_str().unwrap();
    let t = std::time::Instant::now();
    let out = qb(&["30", "--text-out", b]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "measured before the check");
    assert!(t.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "--text-out {b}: cannot create it: No such file or directory"
        )),
        "{err}"
    );

    // inputs that do not exist: the page's path is the first complaint
    let page = d.path().join("no-such-dir/page.html");
    let p = page.to_str().unwrap();
    let out = qb(&[
        "compare",
        "--html",
        p,
        "/nonexistent/a.json",
        "/nonexistent/b.json",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("--html {p}: cannot write the HTML page")),
        "{err}"
    );

    // a page file it created is not left behind when an input fails
    let page = d.path().join("page.html");
    let out = qb(&[
        "compare",
        "--html",
        page.to_str().unwrap(),
        "/nonexistent/a.json",
        "/nonexistent/b.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!page.exists(), "an empty page was left behind");
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
