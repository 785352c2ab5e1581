//! contrib/systemd/: `systemd-analyze verify` (offline, no running
//! systemd needed) passes the service and the timer without a remark;
//! the service's command line is the one README documents; and that
//! command, run by sh as systemd would (`$$` and `%%` unescaped), writes
//! a dated JSON report and the Prometheus textfile, leaves nothing when
//! the run fails at once, and its post step keeps the newest reports.

use std::fs;
use std::path::Path;
use std::process::{Command as Process, Stdio};

mod common_reports;
mod common_skip;

const SERVICE: &str = include_str!("../contrib/systemd/quickbench.service");
const TIMER: &str = include_str!("../contrib/systemd/quickbench.timer");
const README: &str = include_str!("../README.md");

/// The value of the unit's `key=` line (the only one).
fn setting<'a>(unit: &'a str, key: &str) -> &'a str {
    let values: Vec<&str> = unit
        .lines()
        .filter_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .collect();
    assert_eq!(values.len(), 1, "{key}= in\n{unit}");
    values[0]
}

#[test]
fn systemd_analyze_verifies_the_units_without_a_remark() {
    if Process::new("systemd-analyze")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        common_skip::skip("systemd-analyze not installed (Debian package systemd)");
        return;
    }
    let out = Process::new("systemd-analyze")
        // The man page is not installed where the test runs.
        .args(["verify", "--man=no"])
        .arg("contrib/systemd/quickbench.service")
        .arg("contrib/systemd/quickbench.timer")
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(setting(SERVICE, "Type"), "oneshot");
    assert_eq!(setting(SERVICE, "Nice"), "19");
    assert_eq!(setting(SERVICE, "IOSchedulingClass"), "idle");
    assert_eq!(setting(SERVICE, "StateDirectory"), "quickbench");
    assert_eq!(setting(TIMER, "OnCalendar"), "weekly");
    assert_eq!(setting(TIMER, "Persistent"), "true");
    assert!(!setting(TIMER, "RandomizedDelaySec").is_empty());
}

#[test]
fn readme_documents_the_service_command() {
    let exec = setting(SERVICE, "ExecStart");
    let documented: Vec<&str> = README
        .lines()
        .filter_map(|l| l.strip_prefix("ExecStart="))
        .collect();
    assert_eq!(
        documented,
        [exec],
        "README's ExecStart= differs from the unit's"
    );
    let post = setting(SERVICE, "ExecStartPost");
    assert!(README.lines().any(|l| l == format!("ExecStartPost={post}")));
}

/// The shell script of a `/bin/sh -c '...'` command line, unescaped as
/// systemd does (`$$` is `$`, `%%` is `%`), the binary made the one built.
fn script(command: &str) -> String {
    let s = command
        .strip_prefix("/bin/sh -c '")
        .and_then(|s| s.strip_suffix('\''))
        .unwrap_or_else(|| panic!("not a /bin/sh -c '...' line: {command}"));
    assert!(!s.contains('\''), "{s}");
    s.replace("$$", "$").replace("%%", "%").replace(
        "/usr/local/bin/quickbench",
        env!("CARGO_BIN_EXE_quickbench"),
    )
}

/// Runs a unit's command as systemd would, with the unit's settings and
/// these overrides in the environment: its exit status.
fn run_unit_command(key: &str, state: &Path, env: &[(&str, String)]) -> i32 {
    let mut cmd = Process::new("/bin/sh");
    cmd.arg("-c").arg(script(setting(SERVICE, key)));
    cmd.env_clear().env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    for l in SERVICE.lines() {
        if let Some((k, v)) = l
            .strip_prefix("Environment=")
            .and_then(|e| e.split_once('='))
        {
            cmd.env(k, v);
        }
    }
    cmd.env("STATE_DIRECTORY", state);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(out.stdout.is_empty(), "{out:?}");
    out.status.code().unwrap()
}

fn reports(state: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(state)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_service_command_keeps_dated_reports_and_writes_the_textfile() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("root");
    common_reports::write_host(&root, "vm");
    let state = d.path().join("state");
    let textfiles = d.path().join("textfile");
    fs::create_dir_all(&state).unwrap();
    fs::create_dir_all(&textfiles).unwrap();
    let env = [
        ("QUICKBENCH_DIR", "/".to_string()),
        ("QUICKBENCH_DELAY", "12".to_string()),
        (
            "QUICKBENCH_TEXTFILE",
            textfiles.join("quickbench.prom").display().to_string(),
        ),
        (
            "QUICKBENCH_ARGS",
            format!("--sysroot {} --fake-figures", root.display()),
        ),
    ];
    assert_eq!(run_unit_command("ExecStart", &state, &env), 0);
    let names = reports(&state);
    assert_eq!(names.len(), 1, "{names:?}");
    let name = &names[0];
    assert!(
        name.starts_with("quickbench-20") && name.ends_with("Z.json") && name.len() == 32,
        "{name}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(state.join(name)).unwrap()).unwrap();
    assert_eq!(doc["hostname"], "vm");
    let prom = fs::read_to_string(textfiles.join("quickbench.prom")).unwrap();
    assert!(prom.contains("quickbench_info{"), "{prom}");

    // Older reports: the post step keeps the newest QUICKBENCH_KEEP.
    for old in ["20250101T000000Z", "20250108T000000Z", "20250115T000000Z"] {
        fs::write(state.join(format!("quickbench-{old}.json")), "{}").unwrap();
    }
    let keep = [("QUICKBENCH_KEEP", "2".to_string())];
    assert_eq!(run_unit_command("ExecStartPost", &state, &keep), 0);
    assert_eq!(
        reports(&state),
        ["quickbench-20250115T000000Z.json", name.as_str()]
    );

    // A run that cannot start leaves no report behind, and its status.
    let mut bad = env.clone();
    bad[2].1 = d.path().join("missing/q.prom").display().to_string();
    assert_eq!(run_unit_command("ExecStart", &state, &bad), 2);
    assert_eq!(reports(&state).len(), 2);
}
