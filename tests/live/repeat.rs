//! `--repeat N`: every timed step of the standard report measured N times
//! in interleaved rounds, each step keeping its trials and printing their
//! pooled rate (all their work over all their time); bad values are usage errors; one Ctrl-C skips the rounds
//! left of the section; the JSON validates and the Run line reads back.

use crate::common_live;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn qb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args(args)
        .output()
        .unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON document")
}

fn assert_valid(doc: &Value) {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string("schema/report.schema.json").unwrap())
            .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{doc:#}");
}

#[test]
fn bad_repeat_values_are_one_line_usage_errors() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    for bad in ["0", "21", "-3", "2.5", "x", ""] {
        let out = qb(&["--repeat", bad]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {err}");
        assert!(out.stdout.is_empty(), "{bad:?}");
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(
            err.contains(&format!("'{bad}'")) && err.contains("from 1 to 20"),
            "{bad:?}: {err}"
        );
    }
}

/// The trials of a step: (round, main figure, cut short) each.
fn trials(step: &Value, figure: &str) -> Vec<(u64, f64, bool)> {
    step["trials"]
        .as_array()
        .unwrap_or_else(|| panic!("no trials: {step:#}"))
        .iter()
        .map(|t| {
            (
                t["round"].as_u64().unwrap(),
                t[figure].as_f64().unwrap(),
                t["cut_short"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// The step's figure pools its trials: each trial's rate weighted by its
/// elapsed time (all their work over all their time, as one block of the
/// same time measures), and `median_trial` names the lower median of the
/// complete trials.
fn assert_step_pools_its_trials(step: &Value, figure: &str) {
    let t = trials(step, figure);
    let tr = step["trials"].as_array().unwrap();
    let ns: Vec<f64> = tr
        .iter()
        .map(|t| t["elapsed_ns"].as_f64().unwrap())
        .collect();
    let pooled = t.iter().zip(&ns).map(|(t, ns)| t.1 * ns).sum::<f64>() / ns.iter().sum::<f64>();
    let got = step[figure].as_f64().unwrap();
    assert!(
        (got - pooled).abs() <= pooled * 1e-9,
        "{got} against {pooled}: {step:#}"
    );
    assert_eq!(
        step["elapsed_ns"].as_f64().unwrap(),
        ns.iter().sum::<f64>(),
        "{step:#}"
    );
    let mut complete: Vec<f64> = t.iter().filter(|t| !t.2).map(|t| t.1).collect();
    complete.sort_by(f64::total_cmp);
    let median = complete[(complete.len() - 1) / 2];
    let i = step["median_trial"].as_u64().unwrap() as usize;
    assert_eq!(t[i].1, median, "{step:#}");
}

#[test]
fn the_stand_ins_trials_validate_with_and_without_extended() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let d = dir.path().to_str().unwrap();
    for extra in [&[][..], &["-x"][..]] {
        let mut args = vec![
            "--fake-figures",
            "--repeat",
            "3",
            "--trials",
            "1",
            "0.1",
            "--dir",
            d,
        ];
        args.extend(extra);
        args.extend(["--json", "-q"]);
        let doc = json_of(&qb(&args));
        assert_valid(&doc);
        assert_eq!(doc["repeat"], 3);
        for s in doc["cpu_loop"].as_array().unwrap() {
            assert_eq!(trials(s, "loops_per_s_mean").len(), 3);
        }
        assert_eq!(
            trials(&doc["memory"]["dd_bandwidth"], "elapsed_ns").len(),
            3
        );
        if !extra.is_empty() {
            // -x runs once: its probe is there, with no trials.
            assert!(doc["extended"]["smt_probe"].is_object(), "{doc:#}");
            assert!(doc["extended"]["smt_probe"].get("trials").is_none());
        }
    }
    // One trial: no new key.
    let doc = json_of(&qb(&["--fake-figures", "0.1", "--dir", d, "--json", "-q"]));
    assert_valid(&doc);
    for key in ["repeat", "trial_order"] {
        assert!(doc.get(key).is_none(), "{key} with one trial");
    }
    assert!(doc["cpu_loop"][0].get("trials").is_none());
    assert!(doc["cpu_loop"][0].get("median_trial").is_none());
}

#[test]
fn the_plan_counts_every_trial_but_the_extended_ones() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let plan = |repeat: &str| {
        let doc = json_of(&qb(&[
            "--dry-run",
            "-x",
            "--repeat",
            repeat,
            "30",
            "--json",
            "-q",
        ]));
        assert_valid(&doc);
        doc["plan"].clone()
    };
    let (one, three) = (plan("1"), plan("3"));
    assert!(one.get("repeat").is_none() && one.get("steps_once").is_none());
    assert_eq!(three["repeat"], 3);
    assert_eq!(one["timed_steps"], three["timed_steps"]);
    let once = three["steps_once"].as_f64().unwrap();
    let steps = three["timed_steps"].as_f64().unwrap();
    let rests = |p: &Value| p["io_lines"].as_f64().unwrap() * p["io_rest_s"].as_f64().unwrap();
    // (steps - once) x 3 delays + once delay + 3 rests per line
    let want = ((steps - once) * 3.0 + once) * 30.0 + 3.0 * rests(&three);
    let got = three["estimated_run_s"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    let one_s = one["estimated_run_s"].as_f64().unwrap();
    assert!(
        (one_s - (steps * 30.0 + rests(&one))).abs() < 1e-6,
        "{one_s}"
    );
    assert!(got > 1.8 * one_s, "{got} vs {one_s}");
    let text = String::from_utf8(qb(&["--dry-run", "-x", "--repeat", "3", "30"]).stdout).unwrap();
    // `-x`'s 3 steps run once, and the added sections' steps, named
    // after them.
    assert!(
        text.contains(
            " s × 3 trials and 3 of -x and 6 of Extended: CPU work and \
             10 of Extended: Memory latency once"
        ),
        "{text}"
    );
    assert!(
        text.contains("Run       : loop delay 30 s × 3 trials, "),
        "{text}"
    );
}

#[test]
fn a_live_cpu_loop_keeps_three_interleaved_trials_of_each_step() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let text_out = dir.path().join("report.txt");
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            "0.3", "--repeat", "3", "--trials", "1", "--only", "cpu", "--json", "-q",
        ])
        .arg("--text-out")
        .arg(&text_out)
        .output()
        .unwrap();
    let took = t0.elapsed();
    let doc = json_of(&out);
    assert_valid(&doc);
    let steps = doc["cpu_loop"].as_array().unwrap();
    assert!(!steps.is_empty());
    // Every step ran three times: three rounds of 0.3 s each.
    assert!(
        took >= Duration::from_secs_f64(3.0 * 0.3 * steps.len() as f64),
        "{took:?}"
    );
    let jobs: Vec<u64> = steps.iter().map(|s| s["jobs"].as_u64().unwrap()).collect();
    let text = std::fs::read_to_string(&text_out).unwrap();
    for s in steps {
        let t = trials(s, "loops_per_s_mean");
        assert_eq!(
            t.iter().map(|t| t.0).collect::<Vec<_>>(),
            [1, 2, 3],
            "{s:#}"
        );
        assert!(t.iter().all(|t| t.1 > 0.0 && !t.2), "{s:#}");
        assert_step_pools_its_trials(s, "loops_per_s_mean");
        // The text prints the pooled figure.
        let line = format!(
            "{:2} // jobs : {:10} loop/job/s",
            s["jobs"].as_u64().unwrap(),
            s["loops_per_s_mean"].as_f64().unwrap() as u64
        );
        assert!(text.contains(&line), "{line}\n{text}");
    }
    // The order of each round is recorded: every job count once.
    let order = &doc["trial_order"];
    assert!(order["seed"].as_u64().is_some(), "{order:#}");
    let rounds = order["cpu_loop"].as_array().unwrap();
    assert_eq!(rounds.len(), 3);
    for r in rounds {
        let mut got: Vec<u64> = r
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j.as_u64().unwrap())
            .collect();
        got.sort_unstable();
        assert_eq!(got, jobs, "{order:#}");
    }
    assert!(text.contains(" × 3 trials, "), "{text}");
    // The seed is the clock's: two runs do not share it.
    let again = json_of(&qb(&[
        "0.1", "--repeat", "2", "--trials", "1", "--only", "cpu", "--json", "-q",
    ]));
    assert_ne!(again["trial_order"]["seed"], order["seed"]);
}

#[test]
fn one_ctrl_c_ends_the_trial_and_skips_the_rounds_left() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let t0 = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            "2", "--repeat", "3", "--trials", "1", "--only", "cpu", "--json", "-q",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let doc = json_of(&out);
    let steps = doc["cpu_loop"].as_array().unwrap();
    // Round 1 finishes (the steps not yet run run whole), rounds 2 and 3
    // do not: well under the 3 x 2 s x steps of the whole run.
    assert!(
        t0.elapsed() < Duration::from_secs(2 * steps.len() as u64 + 3),
        "{:?}",
        t0.elapsed()
    );
    assert!(
        err.contains("the rounds left of its section are skipped"),
        "{err}"
    );
    let mut cut = 0;
    for s in steps {
        let t = trials(s, "loops_per_s_mean");
        assert_eq!(t.len(), 1, "{s:#}");
        if t[0].2 {
            cut += 1;
            assert_eq!(s["cut_short"], true, "the step says its trial was cut");
        }
    }
    assert_eq!(cut, 1, "{doc:#}");
    assert_eq!(doc["trial_order"]["cpu_loop"].as_array().unwrap().len(), 1);
}

/// The lines of a storage section in report order, as `trial_order`
/// writes them.
fn line_keys(jobs: &[u64]) -> Vec<(String, u64)> {
    ["write", "read"]
        .iter()
        .flat_map(|d| jobs.iter().map(|j| (d.to_string(), *j)))
        .collect()
}

fn keys(round: &Value) -> Vec<(String, u64)> {
    round
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["direction"].as_str().unwrap().to_string(),
                k["jobs"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Two trials of every storage line on a fresh ext4 (root: a loop device),
/// a small file, 1 and 4 jobs.
#[test]
fn storage_lines_keep_two_trials_on_ext4() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.ext4");
    let mut g = common_live::Guard::new();
    let dev = g.loop_dev("ext4.img", 256);
    common_live::run("mkfs.ext4", &["-q", "-F", &format!("/dev/{dev}")]);
    let mp = g.mount(&[&format!("/dev/{dev}")], "mnt");
    let text_out = g.path("report.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            "0.2",
            "-q",
            "--repeat",
            "2",
            "--trials",
            "1",
            "--only",
            "io",
            "--io-jobs",
            "1,4",
            "--max-size",
            "32M",
            "--json",
            "--dir",
        ])
        .arg(&mp)
        .arg("--text-out")
        .arg(&text_out)
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_valid(&doc);
    assert!(doc["storage_bandwidth_skipped"].is_null(), "{doc:#}");
    let lines = doc["storage_bandwidth"].as_array().unwrap();
    assert_eq!(lines.len(), 8);
    let text = std::fs::read_to_string(&text_out).unwrap();
    for l in lines {
        let t = trials(l, "iops");
        assert_eq!(t.iter().map(|t| t.0).collect::<Vec<_>>(), [1, 2], "{l:#}");
        assert!(t.iter().all(|t| t.1 > 0.0 && !t.2), "{l:#}");
        for tr in l["trials"].as_array().unwrap() {
            assert!(tr["error"].is_null(), "{tr:#}");
            assert!(tr["ios"].as_u64().unwrap() > 0, "{tr:#}");
        }
        assert_step_pools_its_trials(l, "iops");
        let line = format!(
            "({:>2} thread[s]): {:>6} MB/s  {:>6} IO/s",
            l["jobs"].as_u64().unwrap(),
            l["mb_per_s"].as_f64().unwrap() as u64,
            l["iops"].as_f64().unwrap() as u64
        );
        assert!(text.contains(&line), "{line}\n{text}");
    }
    // Round 1 writes, then reads; round 2 is every line once, shuffled.
    let sections = doc["trial_order"]["storage_bandwidth"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    let report_order = line_keys(&[1, 4]);
    for s in sections {
        let rounds = s["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 2);
        assert_eq!(keys(&rounds[0]), report_order);
        let mut second = keys(&rounds[1]);
        second.sort();
        let mut want = report_order.clone();
        want.sort();
        assert_eq!(second, want);
    }
    assert!(
        std::fs::read_dir(&mp)
            .unwrap()
            .all(|e| e.unwrap().file_name() == "lost+found"),
        "a file was left in {}",
        mp.display()
    );
}

#[test]
fn the_run_line_reads_back_its_trials() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    use quickbench::report::read::read_text;
    let header = |run: &str| {
        format!(
            "Quickbench: 0.1.0 (Rust port of Bearstech's Quickbench 1.0)\n\
             Kernel    : Linux h 6.1 #1 SMP x86_64 GNU/Linux\n\
             Build     : rustc 1.95.0 (x 2026-01-01), x86_64-unknown-linux-gnu, static\n\
             CPU loop  : loop v1 (8 independent multiply-xorshift chains), not comparable with the bash original's figures\n\
             Run       : {run}\n"
        )
    };
    let text = header("loop delay 30 s × 5 trials, /var/tmp (ext4 on vda), 2026-12-03 18:20 UTC");
    let r = read_text("a.txt", &text).unwrap();
    assert_eq!((r.repeat, r.loop_delay_s), (5, Some(30.0)));
    assert_eq!(r.dir.as_deref(), Some("/var/tmp"));
    assert_eq!(quickbench::report::text::render(&r), text);
    let r = read_text("b.txt", &header("loop delay 2.5 s, /srv, date unknown")).unwrap();
    assert_eq!((r.repeat, r.budget_s), (1, None));
    // `--budget` as typed, after the trials, before the directory.
    let text = header("loop delay 30 s in 6 trials, budget 20m, /srv (xfs on sdb), date unknown");
    let r = read_text("d.txt", &text).unwrap();
    assert_eq!((r.trials_per_delay, r.budget_s), (6, Some(1200.0)));
    assert_eq!(r.dir.as_deref(), Some("/srv"));
    assert_eq!(quickbench::report::text::render(&r), text);
    let r = read_text(
        "e.txt",
        &header("loop delay 1 s, budget 90s, /srv, date unknown"),
    )
    .unwrap();
    assert_eq!((r.budget_s, r.dir.as_deref()), (Some(90.0), Some("/srv")));
    for bad in [
        "loop delay 30 s × 1 trials, /var/tmp, date unknown",
        "loop delay 30 s × x trials, /var/tmp, date unknown",
        "loop delay 30 s × 3, /var/tmp, date unknown",
    ] {
        let e = read_text("c.txt", &header(bad)).unwrap_err().to_string();
        assert!(e.contains("c.txt") && e.contains("trials"), "{e}");
    }
}

/// A default short run (no `--repeat`, no `--trials`) splits each CPU loop
/// step's 3 s into 6 trials of 500 ms (the CPU loop's shortest trial), and two such reports compare by
/// their measured spreads (rank interval), one report a side.
#[test]
fn a_default_short_run_carries_trials_and_compares_by_their_spread() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let d = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for name in ["a.json", "b.json"] {
        let doc = json_of(&qb(&["3", "--only", "cpu", "--json", "-q"]));
        assert_valid(&doc);
        assert_eq!(doc["trials_per_delay"], 6, "{doc:#}");
        for s in doc["cpu_loop"].as_array().unwrap() {
            let t = trials(s, "loops_per_s_mean");
            assert_eq!(t.len(), 6, "{s:#}");
            let rounds: Vec<u64> = t.iter().map(|t| t.0).collect();
            let mut sorted = rounds.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, [1, 2, 3, 4, 5, 6], "a trial a round");
            for trial in s["trials"].as_array().unwrap() {
                let ns = trial["elapsed_ns"].as_f64().unwrap();
                // A sixth of 3 s, give or take what a loaded host adds:
                // shorter than the whole delay in any case.
                assert!((0.49e9..2.4e9).contains(&ns), "a sixth of 3 s: {ns}");
            }
        }
        let f = d.path().join(name);
        std::fs::write(&f, serde_json::to_vec(&doc).unwrap()).unwrap();
        files.push(f);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .arg("compare")
        .arg("--json")
        .args(&files)
        .output()
        .unwrap();
    let c = json_of(&out);
    let mut rows = 0;
    for r in c["rows"].as_array().unwrap() {
        if r["kind"] != "figure" || r["section"] != "CPU loop" {
            continue;
        }
        rows += 1;
        let j = &r["judged"][1];
        if j.is_null() {
            // every trial of a side distorted (a busy host): no verdict
            assert_eq!(r["verdicts"][1]["verdict"], "distorted", "{r}");
            continue;
        }
        let n = |side: &str| j[format!("n_{side}")].as_u64().unwrap();
        let out = |side: &str| j[format!("left_out_{side}")].as_u64().unwrap();
        assert_eq!(n("a") + out("a"), 6, "{r}");
        assert_eq!(n("b") + out("b"), 6, "{r}");
        if n("a") >= 3 && n("b") >= 3 {
            // the time not shared keeps its run-to-run floor (its own kind)
            let kind = if r["label"].as_str().unwrap().ends_with("not shared") {
                "measured_with_floor"
            } else {
                "measured"
            };
            assert_eq!(j["spread"]["kind"], kind, "{r}");
            // the interval the verdict read, or the words that say why none
            assert!(
                j["interval"].is_object() != j["out_of_reach"].is_object(),
                "{r}"
            );
        }
    }
    assert!(rows > 0, "{c:#}");
}

/// Each CPU loop step's (trials, budget_stop) of a stand-in run of
/// `args` with 3 trials in a 1 s delay.
fn budget_steps(args: &[&str]) -> (Value, Vec<(usize, String)>) {
    let mut all = vec!["--fake-figures", "1", "--trials", "3", "--json", "-q"];
    all.extend(args);
    let doc = json_of(&qb(&all));
    assert_valid(&doc);
    let steps = doc["cpu_loop"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let stop = s["budget_stop"]
                .as_str()
                .expect("a budget_stop")
                .to_string();
            (trials(s, "loops_per_s_mean").len(), stop)
        })
        .collect();
    (doc, steps)
}

/// The job counts of a report's CPU loop steps.
fn steps_jobs(doc: &Value) -> Vec<u64> {
    doc["cpu_loop"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["jobs"].as_u64().unwrap())
        .collect()
}

#[test]
fn the_stand_in_spends_a_budget_where_the_trials_are_widest() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    // The stand-in's trials run 1, 1.02, 1.01, 0.99, 1 times a figure:
    // the 95 % t interval of the log rates is ±2.5 % at 3 trials, ±2.0 %
    // (just over) at 4, ±1.4 % at 5, so each step wants 2 added trials.
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let d = dir.path().to_str().unwrap();
    let (doc, steps) = budget_steps(&["--budget", "10m", "--dir", d]);
    assert_eq!(doc["budget_s"], 600.0);
    for (n, stop) in &steps {
        assert_eq!((*n, stop.as_str()), (5, "within_target"));
    }
    let mem = &doc["memory"]["dd_bandwidth"];
    assert_eq!(mem["budget_stop"], "within_target", "{mem:#}");
    assert_eq!(trials(mem, "elapsed_ns").len(), 5);
    let lines = doc["storage_bandwidth"].as_array().unwrap();
    assert!(!lines.is_empty());
    for l in lines {
        assert_eq!(l["budget_stop"], "within_target", "{l:#}");
        assert_eq!(l["trials"].as_array().unwrap().len(), 5);
        let rounds: Vec<u64> = l["trials"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["round"].as_u64().unwrap())
            .collect();
        assert_eq!(rounds, [1, 2, 3, 4, 5], "added trials after the first pass");
    }
    // The trial order lists the added trials: two a step, after the rounds.
    let order = &doc["trial_order"];
    let mut added: Vec<u64> = order["cpu_loop_added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j.as_u64().unwrap())
        .collect();
    added.sort_unstable();
    let mut want: Vec<u64> = steps_jobs(&doc).into_iter().flat_map(|j| [j, j]).collect();
    want.sort_unstable();
    assert_eq!(added, want, "{order:#}");
    for section in order["storage_bandwidth"].as_array().unwrap() {
        assert_eq!(
            section["rounds"].as_array().unwrap().len(),
            3,
            "{section:#}"
        );
        let per_line = lines.len() / order["storage_bandwidth"].as_array().unwrap().len();
        assert_eq!(
            section["added"].as_array().unwrap().len(),
            2 * per_line,
            "{section:#}"
        );
    }
    // The report reads back: more trials than the first pass asked are
    // the budget's, not a fault.
    let f = dir.path().join("budget.json");
    std::fs::write(&f, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .arg("compare")
        .args([&f, &f])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // The least budget (the first pass, whole seconds): no trial added.
    let cpu = steps.len();
    let min = format!("{cpu}s");
    let (_, steps) = budget_steps(&["--only", "cpu", "--budget", &min]);
    assert!(
        steps.iter().all(|(n, s)| *n == 3 && s == "budget_spent"),
        "{steps:?}"
    );
    // One second more: three trials of a third of a second, the widest
    // first, then every step with 5 trials is within the target.
    let more = format!("{}s", cpu + 1);
    let (_, steps) = budget_steps(&["--only", "cpu", "--budget", &more]);
    let added: usize = steps.iter().map(|(n, _)| n - 3).sum();
    assert_eq!(added, (2 * cpu).min(3), "{steps:?}");
    for (n, stop) in &steps {
        let want = if *n == 5 {
            "within_target"
        } else {
            "budget_spent"
        };
        assert_eq!(stop, want, "{steps:?}");
    }
    // Without --budget: no key, the JSON of before.
    let doc = json_of(&qb(&[
        "--fake-figures",
        "1",
        "--only",
        "cpu",
        "--json",
        "-q",
    ]));
    assert!(doc.get("budget_s").is_none());
    assert!(doc["cpu_loop"][0].get("budget_stop").is_none());
}

#[test]
fn the_plan_states_the_budget_and_its_minimum_and_a_smaller_one_is_refused() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let doc = json_of(&qb(&["--dry-run", "--budget", "1h", "30", "--json", "-q"]));
    assert_valid(&doc);
    let plan = &doc["plan"];
    assert_eq!(plan["budget_s"], 3600.0);
    assert_eq!(plan["budget_min_s"], plan["estimated_run_s"]);
    let text = String::from_utf8(qb(&["--dry-run", "--budget", "1h", "30"]).stdout).unwrap();
    assert!(
        text.contains("\nBudget    : 1 h 0 min (at least "),
        "{text}"
    );
    // Refused before anything is measured, with the minimum named.
    let start = Instant::now();
    let out = qb(&["30", "--only", "cpu", "--budget", "10s"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains("--budget 10 s: less than this run's first pass"),
        "{err}"
    );
    assert!(err.contains("give at least --budget "), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "nothing measured"
    );
    // A bad duration names the value and the forms.
    let out = qb(&["--budget", "5x"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("'5x'") && err.contains("90s, 10m, 1h"),
        "{err}"
    );
}

#[test]
fn a_live_budget_run_keeps_its_time_and_says_what_stopped_each_step() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let start = Instant::now();
    // 1.5 s: three CPU trials of 500 ms a step.
    let doc = json_of(&qb(&[
        "1.5", "--only", "cpu", "--budget", "10s", "--json", "-q",
    ]));
    let took = start.elapsed();
    assert_valid(&doc);
    assert_eq!(doc["budget_s"], 10.0);
    // The budget, and what a loaded shared host adds to it.
    assert!(took < Duration::from_secs(16), "{took:?}");
    let k = doc["trials_per_delay"].as_u64().unwrap() as usize;
    for s in doc["cpu_loop"].as_array().unwrap() {
        let stop = s["budget_stop"].as_str().expect("what stopped it");
        assert!(
            ["within_target", "budget_spent", "most_trials"].contains(&stop),
            "{s:#}"
        );
        let n = trials(s, "loops_per_s_mean").len();
        assert!(n >= k, "the first pass's {k} trials at least: {n}");
    }
}
