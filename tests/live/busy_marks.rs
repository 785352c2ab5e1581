//! Live: the report marks the lines a busy host distorted, and only those.
//! One test per phase would run them together; each phase here runs alone,
//! in sequence, in the one test of this file.

use crate::common_live;

use crate::common_live::{spinner_on, Kill};

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

fn kinds(v: &Value) -> Vec<String> {
    v["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap().to_string())
        .collect()
}

/// A spinner started after the 1-job CPU step, during the 2-job step:
/// the busy mark on the 2-job line only, with a figure near the load made.
fn busy_cpu_step() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        common_live::skip("one CPU: no 2-job step");
        return;
    }
    let qb = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        // One block a step: the default trials interleave the two
        // steps' trials over the section, so a spinner started between
        // them would fall on trials of both.
        .args(["2", "--only", "cpu", "-q", "--json", "--trials", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The run first watches the host for 1 s (who is busy already) and
    // probes the clock (50 ms); then the 1-job step runs from about 1 to
    // 3 s, the 2-job step from 3 to 5 s.
    std::thread::sleep(Duration::from_millis(3_600));
    let spin = spinner_on(cpus - 1);
    let out = qb.wait_with_output().unwrap();
    drop(spin);
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = doc["cpu_loop"].as_array().unwrap();
    assert!(!kinds(&steps[0]).contains(&"busy".into()), "{:#}", steps[0]);
    let two = &steps[1];
    assert!(kinds(two).contains(&"busy".into()), "{two:#}");
    // The spinner ran about 1.5 s of the 2 s step: 50 to 100 % of a CPU.
    let busy = two["marks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "busy")
        .unwrap();
    let pct = busy["others_cpu_percent"].as_f64().unwrap();
    assert!((40.0..=110.0).contains(&pct), "{busy}");
    assert_eq!(
        two["load"]["cpu"]["others_cpu_percent"],
        busy["others_cpu_percent"]
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a sign of SMT"), "{err}");
}

/// A spinner on every CPU for the whole run: every step is busy, and
/// stderr says what to do once, on one line, however many steps.
fn busy_advice_once() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let spin: Vec<_> = (0..cpus).map(spinner_on).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args(["0.5", "--only", "cpu,memory", "-q"])
        .output()
        .unwrap();
    drop(spin);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.matches("(busy ").count() >= 2, "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    let advice: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("wait for it to finish, then rerun"))
        .collect();
    assert_eq!(advice.len(), 1, "{err}");
    assert!(
        advice[0].starts_with("quickbench: busy: other work used the CPUs"),
        "{err}"
    );
}

/// A direct writer to another file of the same loop filesystem during the
/// read line: the other-I/O mark on it, naming the loop device.
fn other_io_on_the_device() {
    if let Some(why) = common_live::skip_reason(&["losetup", "mount", "umount", "mkfs.ext4", "dd"])
    {
        common_live::skip(&why);
        return;
    }
    let mut g = common_live::Guard::new();
    let dev = g.loop_dev("busy.img", 512);
    common_live::run("mkfs.ext4", &["-q", "-F", &format!("/dev/{dev}")]);
    let mp = g.mount(&[&format!("/dev/{dev}")], "mnt");
    let bench = mp.join("bench");
    std::fs::create_dir(&bench).unwrap();
    // Four direct writers, each rewriting its own 16 MiB: enough of the
    // device's I/O to pass 5 %, never enough to fill the filesystem.
    let writers: Vec<Kill> = (0..4)
        .map(|i| {
            let of = mp.join(format!("other{i}"));
            Kill(
                Command::new("sh")
                    .arg("-c")
                    .arg(format!(
                        "while :; do dd if=/dev/zero of={} bs=256k count=64 oflag=direct conv=notrunc status=none || exit; done",
                        of.display()
                    ))
                    .stdin(Stdio::null())
                    .process_group(0)
                    .spawn()
                    .unwrap(),
            )
        })
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            "1",
            "-q",
            "--only",
            "io",
            "--io-blocks",
            "4k",
            "--io-jobs",
            "1",
            "--max-size",
            "64M",
            "--json",
            "--dir",
        ])
        .arg(&bench)
        .output()
        .unwrap();
    drop(writers);
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let read = doc["storage_bandwidth"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["direction"] == "read")
        .unwrap();
    let other = read["marks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "other_io")
        .unwrap_or_else(|| panic!("{read:#}"));
    assert_eq!(other["device"], dev.as_str());
    assert!(other["percent"].as_f64().unwrap() > 5.0, "{other}");
    // no busy or steal mark on storage lines (their own I/O makes both)
    let kinds = kinds(read);
    assert!(
        !kinds.contains(&"busy".into()) && !kinds.contains(&"steal".into()),
        "{read:#}"
    );
}

#[test]
fn marks_go_on_the_lines_a_busy_host_distorted() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    busy_advice_once();
    busy_cpu_step();
    other_io_on_the_device();
}
