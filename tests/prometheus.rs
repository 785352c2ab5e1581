//! The Prometheus textfile, read by the tools that read it: `promtool
//! check metrics` (Debian package `prometheus`) on a whole stand-in run,
//! a `-x` run, a `--repeat` run, the bash original's report and a report
//! with hostile names; a real node_exporter (`prometheus-node-exporter`)
//! serving it through its textfile collector, scraped over HTTP, with
//! every figure of the report found at its printed value; and the errors
//! of an unwritable `--prometheus` path, found before the run starts.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

mod common_reports;
mod common_skip;

use common_reports::{quickbench, write_host};

const BASH_ORIGINAL: &str = include_str!("common_reports/bash-original-f56350b.txt");

/// True when `tool` runs; else the test is skipped (a failure in CI).
fn have(tool: &str, package: &str) -> bool {
    let ok = Process::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !ok {
        common_skip::skip(&format!("{tool} not installed (Debian package {package})"));
    }
    ok
}

/// `promtool check metrics` on `text`: it must pass without a remark.
fn promtool_passes(what: &str, text: &str) {
    let mut child = Process::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "promtool on {what}: {}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A stand-in run of a small host with `args`, writing its textfile with
/// `--prometheus`: (text report, textfile).
fn run_with_textfile(dir: &Path, args: &[&str]) -> (String, String) {
    let root = dir.join("root");
    if !root.exists() {
        write_host(&root, "vm");
    }
    let prom = dir.join("run.prom");
    let out = quickbench()
        .arg("--sysroot")
        .arg(&root)
        .args(["--fake-figures", "--dir", "/", "-q", "12", "--prometheus"])
        .arg(&prom)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let textfile = fs::read_to_string(&prom).unwrap();
    // Nothing left beside it (the temporary file was renamed).
    assert_eq!(
        fs::read_dir(dir).unwrap().count(),
        2,
        "{:?}",
        fs::read_dir(dir).unwrap().collect::<Vec<_>>()
    );
    fs::remove_file(&prom).unwrap();
    (String::from_utf8(out.stdout).unwrap(), textfile)
}

/// `quickbench export --prometheus - FILES...`: the textfile on stdout.
fn export(files: &[&Path]) -> String {
    let out = quickbench()
        .args(["export", "--prometheus", "-"])
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn promtool_passes_a_whole_run_x_a_repeat_run_and_the_bash_original() {
    if !have("promtool", "prometheus") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (_, whole) = run_with_textfile(d.path(), &[]);
    promtool_passes("a whole run", &whole);
    // The pooled rate of the stand-in's 6 trials (1, 1.02, 1.01, 0.99, 1,
    // 1.02 times 100,000 IO/s, each of the same time).
    assert!(whole.contains("quickbench_storage_iops{block=\"4k\",direction=\"write\",jobs=\"16\",device=\"vda\"} 100666.66666666667\n"), "{whole}");

    let (_, x) = run_with_textfile(d.path(), &["-x"]);
    promtool_passes("a -x run", &x);
    assert!(x.contains("# TYPE quickbench_storage_latency_seconds summary\n"));
    assert!(x.contains("quantile=\"0.999\"}"), "{x}");
    assert!(x.contains("quickbench_memory_dram_bytes_per_second{op=\"triad\",threads=\"2\"}"));

    let (_, repeat) = run_with_textfile(d.path(), &["--repeat", "3"]);
    promtool_passes("a --repeat 3 run", &repeat);
    assert!(repeat.contains("repeat=\"3\""), "{repeat}");

    let bash = d.path().join("bash.txt");
    fs::write(&bash, BASH_ORIGINAL).unwrap();
    let text = export(&[&bash]);
    promtool_passes("the bash original's report", &text);
    assert!(text.contains("origin=\"bash original\""), "{text}");
    assert!(
        text.contains("quickbench_cpu_loop_loops_per_second{jobs=\"2\",loop=\"bash\"} 370382\n")
    );
    assert!(text.contains(
        "quickbench_storage_iops{block=\"1M\",direction=\"read\",jobs=\"16\",device=\"vda\"} 766\n"
    ));
    // Its latency column is queue time per I/O, not a latency.
    assert!(!text.contains("latency"), "{text}");
}

/// Host and device names with quotes, backslashes and line breaks, in a
/// JSON report (which carries any string) and in a fleet of two.
#[test]
fn hostile_names_cannot_break_the_textfile() {
    if !have("promtool", "prometheus") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (_, json) = common_reports::stand_in(d.path(), "plain");
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let host = "evil\"host\\name\nquickbench_mark 1";
    let device = "sd\"a\\\n} 0\n# TYPE x counter";
    doc["hostname"] = host.into();
    doc["storage_io"]["device"] = device.into();
    let hostile = d.path().join("hostile.json");
    fs::write(&hostile, doc.to_string()).unwrap();
    let text = export(&[&hostile]);
    promtool_passes("hostile names", &text);
    // Every sample is one line of a known family.
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        assert!(l.starts_with("quickbench_"), "{l:?}");
    }
    assert!(
        text.contains(r#"hostname="evil\"host\\name\nquickbench_mark 1""#),
        "{text}"
    );
    assert!(
        text.contains(r#"device="sd\"a\\\n} 0\n# TYPE x counter""#),
        "{text}"
    );
    let labels = parse_exposition(&text);
    let info = &labels["quickbench_info"][0].0;
    assert_eq!(info["hostname"], host);

    let fleet = export(&[&hostile, &json]);
    promtool_passes("two hosts, one hostile", &fleet);
    assert!(
        fleet.contains(
            r#"quickbench_memory_total_bytes{host="evil\"host\\name\nquickbench_mark 1"}"#
        ),
        "{fleet}"
    );
    assert!(
        fleet.contains("quickbench_memory_total_bytes{host=\"plain\"}"),
        "{fleet}"
    );
}

/// Samples by name: each with its labels (unescaped) and value.
type Samples = BTreeMap<String, Vec<(BTreeMap<String, String>, f64)>>;

/// Reads the text exposition format: `name{k="v",...} value` lines.
fn parse_exposition(text: &str) -> Samples {
    let mut out = Samples::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, mut rest) = match line.find(['{', ' ']) {
            Some(i) => (&line[..i], &line[i..]),
            None => panic!("{line}"),
        };
        let mut labels = BTreeMap::new();
        if let Some(r) = rest.strip_prefix('{') {
            let mut chars = r.char_indices().peekable();
            let mut key = String::new();
            let end;
            loop {
                let (i, c) = chars.next().expect("unterminated labels");
                match c {
                    '}' => {
                        end = i + 1;
                        break;
                    }
                    ',' => {}
                    '=' => {
                        assert_eq!(chars.next().map(|x| x.1), Some('"'), "{line}");
                        let mut v = String::new();
                        loop {
                            let (_, c) = chars.next().expect("unterminated value");
                            match c {
                                '"' => break,
                                '\\' => match chars.next().unwrap().1 {
                                    'n' => v.push('\n'),
                                    c => v.push(c),
                                },
                                c => v.push(c),
                            }
                        }
                        labels.insert(std::mem::take(&mut key), v);
                    }
                    c => key.push(c),
                }
            }
            rest = &r[end..];
        }
        let value: f64 = rest.trim().parse().unwrap_or_else(|_| panic!("{line}"));
        out.entry(name.to_string())
            .or_default()
            .push((labels, value));
    }
    out
}

/// node_exporter, started on a free loopback port and killed (and
/// reaped) however the test ends.
struct NodeExporter {
    child: Child,
    port: u16,
}

impl NodeExporter {
    fn start(textfile_dir: &Path) -> NodeExporter {
        // A free port: bind port 0, read it, release it for the exporter.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Process::new("prometheus-node-exporter")
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .args([
                "--collector.disable-defaults",
                "--collector.textfile",
                "--web.disable-exporter-metrics",
            ])
            .arg(format!(
                "--collector.textfile.directory={}",
                textfile_dir.display()
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        NodeExporter { child, port }
    }

    /// `GET /metrics`, once the exporter listens (within 10 s).
    fn scrape(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) {
                s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                write!(
                    s,
                    "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n"
                )
                .unwrap();
                let mut resp = String::new();
                s.read_to_string(&mut resp).unwrap();
                let (head, body) = resp.split_once("\r\n\r\n").expect("an HTTP response");
                assert!(
                    head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
                    "{head}"
                );
                return body.to_string();
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("node_exporter exited: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "node_exporter did not listen on {}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for NodeExporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `-x` stand-in report whose every figure differs from the others
/// (the stand-in repeats a few values): each percentile, line and job
/// count gets its own, so that a figure under the wrong labels is found.
fn distinct_figures(dir: &Path) -> PathBuf {
    let root = dir.join("root");
    write_host(&root, "vm");
    let out = quickbench()
        .arg("--sysroot")
        .arg(&root)
        .args(["--fake-figures", "--dir", "/", "-q", "-x", "12", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for (i, s) in doc["cpu_loop"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        s["loops_per_s_mean"] = (123_456_789.0 + 1_000_003.7 * i as f64).into();
    }
    for (i, l) in doc["storage_bandwidth"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        let k = i as f64;
        l["mb_per_s"] = (101.7 + 13.0 * k).into();
        l["iops"] = (2001.9 + 17.0 * k).into();
        l["lat_mean_us"] = (41.3 + 3.0 * k).into();
        for (j, p) in [
            "lat_p50_us",
            "lat_p90_us",
            "lat_p99_us",
            "lat_p999_us",
            "lat_max_us",
        ]
        .iter()
        .enumerate()
        {
            l[*p] = (30.04 + 100.0 * j as f64 + k).into();
        }
    }
    let dram = &mut doc["extended"]["dram"];
    dram["single"]["copy_gb_per_s"] = 9.87.into();
    dram["single"]["triad_gb_per_s"] = 10.46.into();
    dram["all"]["copy_gb_per_s"] = 19.31.into();
    dram["all"]["triad_gb_per_s"] = 21.04.into();
    let path = dir.join("distinct.json");
    fs::write(&path, doc.to_string()).unwrap();
    path
}

/// One figure the text report prints: the series that carries it and how
/// the printed text was made from the value.
struct Printed {
    line: String,
    name: &'static str,
    labels: Vec<(&'static str, String)>,
    matches: Box<dyn Fn(f64) -> bool>,
}

/// Every figure of a text report (CPU loop, memory, storage lines, the
/// `-x` DRAM and latency percentiles), read from its lines.
fn printed_figures(text: &str) -> Vec<Printed> {
    let mut out = Vec::new();
    let mut block = String::new();
    let near = |printed: f64, half: f64| move |v: f64| (v - printed).abs() <= half + 1e-9;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let p = |name, labels: Vec<(&'static str, String)>, m: Box<dyn Fn(f64) -> bool>| Printed {
            line: line.to_string(),
            name,
            labels,
            matches: m,
        };
        if let Some(t) = line.strip_prefix("[ Storage bandwidth - ") {
            block = t.split(' ').next().unwrap().to_string();
        } else if words.get(1) == Some(&"//") && line.ends_with("loop/job/s") {
            let n: f64 = words[4].parse().unwrap();
            out.push(p(
                "quickbench_cpu_loop_loops_per_second",
                vec![("jobs", words[0].into())],
                Box::new(move |v| v.trunc() == n),
            ));
        } else if let Some(mb) = line.strip_prefix("Total    : ") {
            let mb: u64 = mb.trim_end_matches(" MB").parse().unwrap();
            out.push(p(
                "quickbench_memory_total_bytes",
                vec![],
                Box::new(move |v| (v as u64) >> 20 == mb),
            ));
        } else if let Some(rate) = line.strip_prefix("Bandwidth: ") {
            // dd's rate, `30.9 GB/s`: within one unit of its last digit
            // (dd rounds on one path and truncates on the other).
            let (m, unit) = rate.split_once(' ').unwrap();
            let scale = match unit {
                "kB/s" => 1e3,
                "MB/s" => 1e6,
                "GB/s" => 1e9,
                "TB/s" => 1e12,
                _ => panic!("{line}"),
            };
            let digit = if m.contains('.') { 0.1 } else { 1.0 };
            let m: f64 = m.parse().unwrap();
            out.push(p(
                "quickbench_memory_bandwidth_bytes_per_second",
                vec![],
                Box::new(move |v| near(m, digit)(v / scale)),
            ));
        } else if (line.starts_with("Writes") || line.starts_with("Reads")) && line.contains("MB/s")
        {
            // `Writes ( 1 thread[s]):    102 MB/s   25000 IO/s      40 µs avg. lat.`
            let dir = if line.starts_with("Writes") {
                "write"
            } else {
                "read"
            };
            let inner = &line[line.find('(').unwrap() + 1..line.find(" thread").unwrap()];
            let f: Vec<&str> = line[line.find("):").unwrap() + 2..]
                .split_whitespace()
                .collect();
            let labels = vec![
                ("block", block.clone()),
                ("direction", dir.to_string()),
                ("jobs", inner.trim().to_string()),
            ];
            let (mb, iops, lat): (f64, f64, f64) = (
                f[0].parse().unwrap(),
                f[2].parse().unwrap(),
                f[4].parse().unwrap(),
            );
            out.push(p(
                "quickbench_storage_bytes_per_second",
                labels.clone(),
                Box::new(move |v| (v / 1e6 + 1e-9).trunc() == mb),
            ));
            out.push(p(
                "quickbench_storage_iops",
                labels.clone(),
                Box::new(move |v| v.trunc() == iops),
            ));
            out.push(p(
                "quickbench_storage_latency_mean_seconds",
                labels,
                Box::new(move |v| (v * 1e6 + 1e-6).trunc() == lat),
            ));
        } else if words.first().is_some_and(|w| *w == "4k" || *w == "1M") && line.contains(" p50 ")
        {
            // `4k Writes ( 1 thread[s]): p50     40.0  p90 ... max      40.0 µs  | ...`
            let dir = if words[1] == "Writes" {
                "write"
            } else {
                "read"
            };
            let jobs = line[line.find('(').unwrap() + 1..line.find(" thread").unwrap()].trim();
            for (q, key) in [
                ("0.5", "p50"),
                ("0.9", "p90"),
                ("0.99", "p99"),
                ("0.999", "p99.9"),
                ("1", "max"),
            ] {
                let at = words.iter().position(|w| *w == key).unwrap();
                let us: f64 = words[at + 1].parse().unwrap();
                out.push(p(
                    "quickbench_storage_latency_seconds",
                    vec![
                        ("block", words[0].to_string()),
                        ("direction", dir.to_string()),
                        ("jobs", jobs.to_string()),
                        ("quantile", q.to_string()),
                    ],
                    Box::new(move |v| near(us, 0.05)(v * 1e6)),
                ));
            }
        } else if line.contains(": copy ") && line.contains(" triad ") {
            // ` 1 thread : copy   10.0 GB/s   triad   11.0 GB/s`
            let threads = words[0].to_string();
            let at = |w: &str| {
                words[words.iter().position(|x| *x == w).unwrap() + 1]
                    .parse::<f64>()
                    .unwrap()
            };
            for (op, gb) in [("copy", at("copy")), ("triad", at("triad"))] {
                out.push(p(
                    "quickbench_memory_dram_bytes_per_second",
                    vec![("op", op.into()), ("threads", threads.clone())],
                    Box::new(move |v| near(gb, 0.05)(v / 1e9)),
                ));
            }
        }
    }
    out
}

#[test]
fn node_exporter_serves_every_figure_of_the_report() {
    if !have("promtool", "prometheus")
        || !have("prometheus-node-exporter", "prometheus-node-exporter")
    {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let json = distinct_figures(d.path());
    let textfiles = d.path().join("textfile");
    fs::create_dir(&textfiles).unwrap();
    let out = quickbench()
        .args(["export", "--prometheus"])
        .arg(textfiles.join("quickbench.prom"))
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        fs::read_dir(&textfiles).unwrap().count(),
        1,
        "a temporary file was left"
    );

    let mut exporter = NodeExporter::start(&textfiles);
    let scraped = exporter.scrape();
    drop(exporter);
    let samples = parse_exposition(&scraped);
    assert_eq!(
        samples.get("node_textfile_scrape_error").map(|s| s[0].1),
        Some(0.0),
        "{scraped}"
    );

    let report =
        quickbench::report::read::read_json("distinct.json", &fs::read_to_string(&json).unwrap())
            .unwrap();
    let text = quickbench::report::text::render(&report);
    let figures = printed_figures(&text);
    // 2 CPU loop steps, Total and Bandwidth, 12 storage lines of 3
    // figures and 5 percentiles, and 4 DRAM figures.
    assert_eq!(figures.len(), 2 + 2 + 12 * 3 + 12 * 5 + 4, "{text}");
    for f in &figures {
        let series = samples
            .get(f.name)
            .unwrap_or_else(|| panic!("no {} for {:?}\n{scraped}", f.name, f.line));
        let found: Vec<f64> = series
            .iter()
            .filter(|(labels, _)| f.labels.iter().all(|(k, v)| labels.get(*k) == Some(v)))
            .map(|(_, v)| *v)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "{} {:?} for {:?}: {found:?}",
            f.name,
            f.labels,
            f.line
        );
        assert!(
            (f.matches)(found[0]),
            "{} {:?} = {} does not print as {:?}",
            f.name,
            f.labels,
            found[0],
            f.line
        );
    }
    // Each figure is distinct, so a value under the wrong labels fails
    // above; the device names the storage lines.
    assert!(samples["quickbench_storage_iops"]
        .iter()
        .all(|(l, _)| l["device"] == "vda"));
}

/// An unwritable `--prometheus` path ends the run before it starts (a
/// 600 s loop delay would take an hour), naming the path and the reason.
#[test]
fn an_unwritable_prometheus_path_fails_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("not-a-dir");
    fs::write(&file, "").unwrap();
    let cases = [
        (
            d.path().join("missing/quickbench.prom"),
            "No such file or directory",
        ),
        (file.join("quickbench.prom"), "Not a directory"),
        (d.path().to_path_buf(), "is a directory"),
    ];
    for (path, reason) in cases {
        let started = Instant::now();
        let out = quickbench()
            .args(["600", "-q", "--prometheus"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(out.stdout.is_empty(), "the run started: {out:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(
            err.contains(&path.display().to_string()) && err.contains(reason),
            "{err}"
        );
    }
    let out = quickbench()
        .args(["1", "--prometheus", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --prometheus a file name"));

    // export: an unwritable file is a write error (1), naming it.
    let bash = d.path().join("bash.txt");
    fs::write(&bash, BASH_ORIGINAL).unwrap();
    let target = d.path().join("missing/q.prom");
    let out = quickbench()
        .args(["export", "--prometheus"])
        .arg(&target)
        .arg(&bash)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&target.display().to_string()));
    // Two reports of one host cannot share a textfile.
    let out = quickbench()
        .args(["export", "--prometheus", "-"])
        .arg(&bash)
        .arg(&bash)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("both reports of host \"vm\""));
}

/// The alert rules of README ("An alert when a figure drops"): promtool
/// checks them, and its rule tests fire the drop alert on a host whose 1M
/// reads halve after four steady weeks, not on one that dips 3 %, and not
/// before the drop.
#[test]
fn the_readme_alert_fires_on_a_drop_and_not_on_noise() {
    if !have("promtool", "prometheus") {
        return;
    }
    let readme = include_str!("../README.md");
    let at = readme.find("**An alert when a figure drops.**").unwrap();
    let block = &readme[at..];
    let start = block.find("```yaml\n").unwrap() + "```yaml\n".len();
    let rules = &block[start..start + block[start..].find("```").unwrap()];
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("rules.yml"), rules).unwrap();
    let out = Process::new("promtool")
        .args(["check", "rules"])
        .arg(d.path().join("rules.yml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Hourly samples: four weeks around 1000 (990 to 1010, a week each),
    // then 500 (h1) or 970 (h2, within 5 % of the median).
    let series = |host: &str, last: u32| {
        format!(
            "      - series: 'quickbench_storage_bytes_per_second{{block=\"1M\",direction=\"read\",jobs=\"16\",device=\"vda\",instance=\"{host}\"}}'\n        values: '1000x167 1010x167 990x167 1000x167 {last}x24'\n"
        )
    };
    let test = format!(
        "rule_files: [rules.yml]\nevaluation_interval: 1h\ntests:\n  - interval: 1h\n    input_series:\n{}{}    alert_rule_test:\n      - eval_time: 671h\n        alertname: QuickbenchFigureDropped\n        exp_alerts: []\n      - eval_time: 680h\n        alertname: QuickbenchFigureDropped\n        exp_alerts:\n          - exp_labels: {{block: 1M, direction: read, jobs: \"16\", device: vda, instance: h1}}\n            exp_annotations:\n              summary: \"h1: 1M 16-job reads below their 4-week median by more than their spread\"\n",
        series("h1", 500),
        series("h2", 970)
    );
    fs::write(d.path().join("test.yml"), test).unwrap();
    let out = Process::new("promtool")
        .args(["test", "rules"])
        .arg(d.path().join("test.yml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
