//! `compare --markdown` and `compare --csv`, read by the tools that read
//! them: cmark-gfm (with GitHub's table extension) renders the Markdown
//! to HTML tables whose rows and cells are the comparison's, for two
//! sides and for a 50-host fleet; Python's `csv` module reads the CSV
//! back to the figures of `compare --json`. Host names carry `|`, `*`,
//! markup, quotes, commas, a backslash and a line break.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};

use serde_json::Value;

mod common_reports;
mod common_skip;

use common_reports::{quickbench, stand_in};

/// A host name that Markdown, HTML and CSV would all misread unescaped.
const HOSTILE: &str = "db|1 *bold* <b>x</b> \\ \"q\", [l](u)\nnext";

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

/// `program args` with `input` on stdin: its stdout.
fn pipe(program: &str, args: &[&str], input: &str) -> String {
    let mut child = Process::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{program}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn compare(args: &[&str], files: &[PathBuf]) -> String {
    let out = quickbench()
        .arg("compare")
        .args(args)
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// A stand-in report of `host` with its figures scaled by `f` (CPU loop,
/// memory bandwidth, storage lines), written to `dir/name.json`.
fn report(dir: &Path, base: &Value, name: &str, host: &str, f: f64) -> PathBuf {
    let mut doc = base.clone();
    doc["hostname"] = host.into();
    for s in doc["cpu_loop"].as_array_mut().unwrap() {
        s["loops_per_s_mean"] = (s["loops_per_s_mean"].as_f64().unwrap() * f).into();
    }
    let bw = &mut doc["memory"]["dd_bandwidth"];
    bw["bytes"] = ((bw["bytes"].as_f64().unwrap() * f) as u64).into();
    for l in doc["storage_bandwidth"].as_array_mut().unwrap() {
        for k in ["mb_per_s", "iops"] {
            l[k] = (l[k].as_f64().unwrap() * f).into();
        }
        l["lat_mean_us"] = (l["lat_mean_us"].as_f64().unwrap() / f).into();
    }
    let path = dir.join(format!("{name}.json"));
    fs::write(&path, doc.to_string()).unwrap();
    path
}

fn base(dir: &Path) -> Value {
    let (_, json) = stand_in(dir, "base");
    serde_json::from_str(&fs::read_to_string(json).unwrap()).unwrap()
}

/// The text of an HTML fragment as a browser shows it.
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The tables of cmark-gfm's HTML: each a list of rows of cell texts, the
/// heading row first.
fn tables(html: &str) -> Vec<Vec<Vec<String>>> {
    html.split("<table>")
        .skip(1)
        .map(|t| {
            let t = &t[..t.find("</table>").unwrap()];
            t.split("<tr>")
                .skip(1)
                .map(|row| {
                    let row = &row[..row.find("</tr>").unwrap()];
                    row.split("<t")
                        .skip(1)
                        .filter(|c| c.starts_with('d') || c.starts_with('h'))
                        .map(|c| {
                            let c = &c[c.find('>').unwrap() + 1..];
                            unescape(&c[..c.find("</t").unwrap()])
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// A text as the Markdown shows it: line breaks become spaces, the
/// spaces at the ends of a cell are not kept.
fn shown(s: &str) -> String {
    s.replace(['\n', '\r'], " ").trim().to_string()
}

/// A side's cell as the text shows it: the figure, then its marks.
fn cell(row: &Value, n: usize) -> String {
    let mut t = row["texts"][n].as_str().unwrap_or("-").to_string();
    let marks: Vec<&str> = row["marks"][n]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    if !marks.is_empty() {
        t.push_str(&format!(" ({})", marks.join(", ")));
    }
    t
}

#[test]
fn markdown_of_two_sides_renders_every_line_and_verdict() {
    if !have("cmark-gfm", "cmark-gfm") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let base = base(d.path());
    let a = report(d.path(), &base, "a", "a", 1.0);
    let b = report(d.path(), &base, "b", HOSTILE, 0.5);
    let files = [a, b];
    let json: Value = serde_json::from_str(&compare(&["--json"], &files)).unwrap();
    let md = compare(&["--markdown"], &files);
    let html = pipe("cmark-gfm", &["-e", "table"], &md);
    // No markup from the host name reached the page.
    assert!(
        !html.contains("<b>") && !html.contains("<em>") && !html.contains("<a "),
        "{html}"
    );
    let tables = tables(&html);
    let rows = json["rows"].as_array().unwrap();
    let mut sections: Vec<&str> = rows
        .iter()
        .map(|r| r["section"].as_str().unwrap())
        .collect();
    sections.dedup();
    assert_eq!(tables.len(), sections.len(), "{md}");
    assert!(
        tables.iter().all(|t| t[0] == ["", "A", "B", "B/A"]),
        "{tables:?}"
    );
    let body: Vec<&Vec<String>> = tables.iter().flat_map(|t| &t[1..]).collect();
    assert_eq!(body.len(), rows.len(), "{md}");
    let mut judged = 0;
    for (got, row) in body.iter().zip(rows) {
        let verdict = match row["judged"][1]["words"].as_str() {
            Some(words) => {
                judged += 1;
                words.to_string()
            }
            None => row["verdicts"][1]["verdict"]
                .as_str()
                .unwrap()
                .replace('_', " "),
        };
        let want = [
            shown(row["label"].as_str().unwrap()),
            shown(&cell(row, 0)),
            shown(&cell(row, 1)),
            shown(&verdict),
        ];
        assert_eq!(got.as_slice(), want, "{row:#}");
    }
    // Halved figures: every storage line, the CPU loop and the memory
    // bandwidth are judged, with their glyph or word and interval.
    assert!(judged > 12 * 3 + 2, "{judged}");
}

/// 50 hosts, figures spread 1 % apart, one of them slow: the fleet table
/// with 50 rows, the median, and the slow host's outliers marked.
fn fleet(dir: &Path) -> Vec<PathBuf> {
    let base = base(dir);
    (0..50)
        .map(|i| {
            let (host, f) = match i {
                7 => ("slow-07".to_string(), 0.3),
                13 => (HOSTILE.to_string(), 1.0),
                _ => (format!("host-{i:02}"), 1.0 + 0.002 * i as f64),
            };
            report(dir, &base, &format!("r{i:02}"), &host, f)
        })
        .collect()
}

/// A key figure as the fleet table prints it (`30.9 GB/s` for bytes per
/// second, else the integer) and its mark.
fn fleet_cell(v: &Value, unit: &str, outlier: bool, not_comparable: bool) -> String {
    let Some(v) = v.as_f64() else {
        return "-".into();
    };
    let text = if unit == "B/s" {
        quickbench::units::dd_rate(v.max(0.0) as u64, 1_000_000_001)
    } else {
        format!("{}", v.max(0.0) as u64)
    };
    let mark = if outlier {
        "*"
    } else if not_comparable {
        "\u{2020}"
    } else {
        ""
    };
    format!("{text}{mark}")
}

#[test]
fn markdown_of_a_fleet_of_50_renders_its_table() {
    if !have("cmark-gfm", "cmark-gfm") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let files = fleet(d.path());
    let json: Value = serde_json::from_str(&compare(&["--json"], &files)).unwrap();
    let t = &json["table"];
    let html = pipe(
        "cmark-gfm",
        &["-e", "table"],
        &compare(&["--markdown"], &files),
    );
    let tables = tables(&html);
    assert_eq!(tables.len(), 1, "{html}");
    let table = &tables[0];
    let columns = t["columns"].as_array().unwrap();
    let mut head = vec!["report".to_string()];
    head.extend(columns.iter().map(|c| {
        format!(
            "{} ({})",
            c["name"].as_str().unwrap(),
            c["unit"].as_str().unwrap()
        )
    }));
    assert_eq!(table[0], head);
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 50);
    assert_eq!(table.len(), 1 + 50 + 1, "heading, 50 hosts, median");
    let mut outliers = 0;
    for (got, row) in table[1..51].iter().zip(rows) {
        let mut want = vec![shown(row["name"].as_str().unwrap())];
        for (c, col) in columns.iter().enumerate() {
            let flagged = row["outlier"][c].as_bool().unwrap();
            outliers += usize::from(flagged);
            want.push(fleet_cell(
                &row["values"][c],
                col["unit"].as_str().unwrap(),
                flagged,
                row["not_comparable"][c].as_bool().unwrap(),
            ));
        }
        assert_eq!(*got, want);
    }
    let slow = table.iter().find(|r| r[0] == "slow-07").unwrap();
    assert!(slow[1..].iter().all(|c| c.ends_with('*')), "{slow:?}");
    assert_eq!(outliers, columns.len(), "only the slow host is an outlier");
    let mut median = vec!["median".to_string()];
    for (c, col) in columns.iter().enumerate() {
        median.push(fleet_cell(
            &t["median"][c],
            col["unit"].as_str().unwrap(),
            false,
            false,
        ));
    }
    assert_eq!(table[51], median);
}

/// Python reads the CSV with its `csv` module; the figures come back as
/// floats, the rest as strings.
const READ_CSV: &str = r#"
import csv, json, sys
rows = list(csv.reader(sys.stdin, strict=True))
head, body = rows[0], rows[1:]
def value(k, v):
    if v == "" or not any(c.isdigit() for c in v) or k in NOT_NUMBERS:
        return v
    try:
        return float(v)
    except ValueError:
        return v
NOT_NUMBERS = {"section", "line", "kind", "unit", "better", "a_text", "b_text",
               "a_marks", "b_marks", "verdict", "verdict_text", "row", "name",
               "outliers", "not_comparable"}
print(json.dumps({"head": head, "rows": [{k: value(k, v) for k, v in zip(head, r)} for r in body]}))
"#;

fn read_csv(csv: &str) -> Value {
    serde_json::from_str(&pipe("python3", &["-c", READ_CSV], csv)).unwrap()
}

/// A number of the CSV against the JSON's: the same float, or both absent.
fn same_number(csv: &Value, json: &Value, what: &str) {
    match json.as_f64() {
        Some(v) => assert_eq!(csv.as_f64(), Some(v), "{what}: {csv} vs {json}"),
        None => assert_eq!(csv, "", "{what}: {csv} vs {json}"),
    }
}

#[test]
fn python_reads_the_csv_back_to_the_json_figures() {
    if !have("python3", "python3") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let base = base(d.path());
    let pair = [
        report(d.path(), &base, "a", "a", 1.0),
        report(d.path(), &base, "b", HOSTILE, 0.7),
    ];
    let json: Value = serde_json::from_str(&compare(&["--json"], &pair)).unwrap();
    let csv_text = compare(&["--csv"], &pair);
    assert!(csv_text.ends_with("\r\n"), "{csv_text}");
    let csv = read_csv(&csv_text);
    let rows = json["rows"].as_array().unwrap();
    let got = csv["rows"].as_array().unwrap();
    assert_eq!(got.len(), rows.len());
    let mut figures = 0;
    for (g, r) in got.iter().zip(rows) {
        assert_eq!(g["section"], r["section"]);
        assert_eq!(g["line"], r["label"]);
        assert_eq!(g["kind"], r["kind"]);
        assert_eq!(g["a_text"], r["texts"][0]);
        assert_eq!(g["b_text"], r["texts"][1]);
        assert_eq!(g["verdict"], r["verdicts"][1]["verdict"]);
        same_number(&g["a"], &r["values"][0], "a");
        same_number(&g["b"], &r["values"][1], "b");
        same_number(&g["ratio"], &r["ratios"][1], "ratio");
        same_number(&g["ratio_low"], &r["judged"][1]["interval"]["lo"], "low");
        same_number(&g["ratio_high"], &r["judged"][1]["interval"]["hi"], "high");
        if r["kind"] == "figure" {
            figures += 1;
            assert_eq!(g["unit"], r["unit"]);
            assert_eq!(g["better"], r["better"]);
            assert!(g["a"].is_f64() && g["b"].is_f64(), "{g}");
        }
    }
    assert!(figures >= 12 * 3 + 3, "{figures}");
    // The hostile host name came back whole.
    let host = got.iter().find(|g| g["line"] == "Host").unwrap();
    assert_eq!(host["b_text"], HOSTILE);

    let files = fleet(d.path());
    let json: Value = serde_json::from_str(&compare(&["--json"], &files)).unwrap();
    let csv = read_csv(&compare(&["--csv"], &files));
    let t = &json["table"];
    let columns = t["columns"].as_array().unwrap();
    let head = csv["head"].as_array().unwrap();
    assert_eq!(head.len(), 2 + columns.len() + 2);
    let got = csv["rows"].as_array().unwrap();
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(got.len(), 50 + 1);
    for (g, r) in got.iter().zip(rows) {
        assert_eq!(g["row"], "side");
        assert_eq!(g["name"], r["name"]);
        for (c, col) in columns.iter().enumerate() {
            let key = format!(
                "{} ({})",
                col["name"].as_str().unwrap(),
                col["unit"].as_str().unwrap()
            );
            same_number(&g[&key], &r["values"][c], &key);
        }
        let flagged: Vec<&str> = columns
            .iter()
            .enumerate()
            .filter(|(c, _)| r["outlier"][*c].as_bool().unwrap())
            .map(|(_, col)| col["name"].as_str().unwrap())
            .collect();
        assert_eq!(g["outliers"], flagged.join("; "));
    }
    assert!(got.iter().any(|g| g["name"] == HOSTILE));
    let median = &got[50];
    assert_eq!(median["row"], "median");
    for (c, col) in columns.iter().enumerate() {
        let key = format!(
            "{} ({})",
            col["name"].as_str().unwrap(),
            col["unit"].as_str().unwrap()
        );
        same_number(&median[&key], &t["median"][c], &key);
    }
}
