//! The `--html` page of a 50-host fleet as a real browser renders it
//! (Debian's chromium, headless): the screenshot is not blank, it holds
//! the page's colours, and the two planted outliers are named in the
//! rendered page. Without chromium the test says why and skips; under
//! `QB_REQUIRE_ROOT_TESTS` (`.ci/run` installs chromium) that is a failure.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common_reports;
mod common_skip;

use common_reports::{quickbench, stand_in};

/// The hosts whose figures are planted far below the others'.
const SLOW_DISK: &str = "db-17";
const SLOW_CPU: &str = "db-33";

fn chromium_present() -> bool {
    Command::new("chromium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs chromium headless on `page` with `args`, stdout into `stdout`;
/// fails after 60 s rather than hanging the suite.
fn chromium(profile: &Path, page: &Path, args: &[String], stdout: &Path) {
    let mut child = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(File::create(stdout).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            assert!(
                status.success(),
                "chromium {args:?}: {status}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium {args:?} took more than 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// 50 reports: one stand-in run under 50 host names, each figure moved by
/// a fixed pseudo-random factor within ±5 % (never an outlier), and two
/// hosts planted: a slow disk (4k lines at 40 %) and a slow CPU (60 %).
fn fleet(dir: &Path) -> Vec<PathBuf> {
    let (_, json) = stand_in(dir, "base");
    let base: Value = serde_json::from_slice(&fs::read(json).unwrap()).unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut jitter = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        0.95 + 0.1 * ((seed >> 11) as f64 / (1u64 << 53) as f64)
    };
    let scale = |v: &mut Value, f: f64| *v = Value::from(v.as_f64().unwrap() * f);
    let reports = dir.join("reports");
    fs::create_dir_all(&reports).unwrap();
    (0..50)
        .map(|i| {
            let host = format!("db-{i:02}");
            let mut r = base.clone();
            r["hostname"] = Value::from(host.as_str());
            let cpu_factor = if host == SLOW_CPU { 0.6 } else { jitter() };
            for s in r["cpu_loop"].as_array_mut().unwrap() {
                scale(&mut s["loops_per_s_mean"], cpu_factor);
            }
            let bytes = &mut r["memory"]["dd_bandwidth"]["bytes"];
            *bytes = Value::from((bytes.as_f64().unwrap() * jitter()) as u64);
            for l in r["storage_bandwidth"].as_array_mut().unwrap() {
                let slow = host == SLOW_DISK && l["block_size_bytes"] == 4096;
                let f = if slow { 0.4 } else { jitter() };
                scale(&mut l["iops"], f);
                scale(&mut l["mb_per_s"], f);
                scale(&mut l["lat_mean_us"], 1.0 / f);
            }
            let file = reports.join(format!("{host}.json"));
            fs::write(&file, serde_json::to_vec(&r).unwrap()).unwrap();
            file
        })
        .collect()
}

/// The text a reader sees in `html`: tags dropped, entities of names kept.
fn text_of(html: &str) -> String {
    regex::Regex::new(r"<[^>]*>")
        .unwrap()
        .replace_all(html, " ")
        .into_owned()
}

#[test]
fn a_50_host_fleet_page_renders_and_names_its_outliers() {
    if !chromium_present() {
        common_skip::skip("chromium is not installed (apt-get install chromium)");
        return;
    }
    let t0 = Instant::now();
    let d = tempfile::tempdir().unwrap();
    let files = fleet(d.path());
    let page = d.path().join("fleet.html");
    let out = quickbench()
        .args(["compare", "--html"])
        .arg(&page)
        .args(&files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let html = fs::read_to_string(&page).unwrap();
    // the page as written: exactly the planted outliers are red dots
    assert_eq!(
        html.matches("<circle class=\"dot out\"").count(),
        // the slow disk: 4 IO/s figures and the latency; the slow CPU: 2
        5 + 2,
        "{}",
        text_of(&html)
    );

    let profile = d.path().join("profile");
    let png = d.path().join("out.png");
    chromium(
        &profile,
        &page,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1200,3000".into(),
        ],
        &d.path().join("screenshot.log"),
    );
    let mut decoder = png::Decoder::new(BufReader::new(File::open(&png).unwrap()));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1200, 3000));
    let samples = info.color_type.samples();
    assert!(samples >= 3, "{:?}", info.color_type);
    let pixels: Vec<[u8; 3]> = buf[..info.buffer_size()]
        .chunks_exact(samples)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    let non_white = pixels.iter().filter(|p| p.iter().any(|&c| c < 240)).count();
    let colours: HashSet<[u8; 3]> = pixels.iter().copied().collect();
    // the outliers' red (#d0312d) and the dots' blue (#2f6db5, 70 % opaque)
    let red = pixels
        .iter()
        .filter(|[r, g, b]| *r > 160 && *g < 90 && *b < 90)
        .count();
    let blue = pixels
        .iter()
        .filter(|[r, _, b]| *b > 150 && *b as i32 - *r as i32 > 60)
        .count();
    eprintln!(
        "{} pixels: {non_white} not white, {} colours, {red} red, {blue} blue",
        pixels.len(),
        colours.len()
    );
    assert!(
        non_white > pixels.len() / 50,
        "{non_white} of {}",
        pixels.len()
    );
    assert!(colours.len() > 16, "{} colours", colours.len());
    assert!(
        red > 7 * 40,
        "{red} red pixels: the 7 outlier dots and names"
    );
    assert!(blue > 400 * 20, "{blue} blue pixels: the dots of 10 strips");

    // the DOM chromium rendered names the outliers, beside their dots and
    // in the table, and every host
    let dom = d.path().join("dom.html");
    chromium(&profile, &page, &["--dump-dom".into()], &dom);
    let dom = fs::read_to_string(&dom).unwrap();
    let table = dom
        .split("id=\"outliers\"")
        .nth(1)
        .expect("the outlier table in the rendered DOM");
    let table = text_of(table);
    for host in [SLOW_DISK, SLOW_CPU] {
        assert!(table.contains(host), "{host} not listed:\n{table}");
    }
    let named: Vec<String> = regex::Regex::new(r#"<text class="oname"[^>]*>([^<]*)"#)
        .unwrap()
        .captures_iter(&dom)
        .map(|c| c[1].trim().to_string())
        .collect();
    assert_eq!(
        named.iter().filter(|n| *n == SLOW_DISK).count(),
        5,
        "{named:?}"
    );
    assert_eq!(
        named.iter().filter(|n| *n == SLOW_CPU).count(),
        2,
        "{named:?}"
    );
    let text = text_of(&dom);
    for i in 0..50 {
        assert!(text.contains(&format!("db-{i:02}")), "db-{i:02}");
    }
    eprintln!(
        "rendered and checked in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(t0.elapsed() < Duration::from_secs(90));
}

/// Measures the rendered page: every text's boxes (a text node's lines;
/// an SVG text as a whole), its font size in CSS pixels as drawn (an SVG
/// scaled down draws its text smaller), and the page's width against the
/// window's. Written into the DOM, read back from `--dump-dom`.
const MEASURE: &str = r#"<script>
(function () {
  const boxes = [];
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    if (!n.textContent.trim()) continue;
    const p = n.parentElement;
    if (p.closest('script,title,style,summary')) continue;
    const svgText = p.closest('text');
    let rects;
    if (svgText) {
      if (seen.has(svgText)) continue;
      seen.add(svgText);
      rects = [svgText.getBoundingClientRect()];
    } else {
      const r = document.createRange();
      r.selectNodeContents(n);
      rects = Array.from(r.getClientRects());
    }
    let fs = parseFloat(getComputedStyle(p).fontSize);
    const svg = p.closest('svg');
    if (svg) {
      const m = svg.getScreenCTM();
      fs *= m ? m.a : 1;
    }
    for (const b of rects) {
      if (b.width < 0.5 || b.height < 0.5) continue;
      boxes.push({t: n.textContent.trim().slice(0, 50), x: b.left, y: b.top, w: b.width, h: b.height, fs: fs});
    }
  }
  const out = {boxes: boxes, page: document.documentElement.scrollWidth, window: window.innerWidth};
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"#;

/// Two reports, B's storage halved and one CPU figure 30 % up: the page
/// at 800 and 1400 px has no two texts on top of each other, no text
/// under 12 px, no horizontal scroll, and its big figures grouped.
#[test]
fn the_two_report_page_has_no_overlapping_text_at_800_and_1400_px() {
    if !chromium_present() {
        common_skip::skip("chromium is not installed (apt-get install chromium)");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (_, a) = stand_in(d.path(), "before");
    let mut v: Value = serde_json::from_slice(&fs::read(&a).unwrap()).unwrap();
    v["cpu_loop"][0]["loops_per_s_mean"] =
        Value::from(v["cpu_loop"][0]["loops_per_s_mean"].as_f64().unwrap() * 1.3);
    for l in v["storage_bandwidth"].as_array_mut().unwrap() {
        for k in ["iops", "mb_per_s"] {
            l[k] = Value::from(l[k].as_f64().unwrap() * 0.5);
        }
    }
    let b = d.path().join("after.json");
    fs::write(&b, serde_json::to_vec(&v).unwrap()).unwrap();
    let page = d.path().join("pair.html");
    let out = quickbench()
        .args(["compare", "--html"])
        .arg(&page)
        .args([&a, &b])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let html = fs::read_to_string(&page).unwrap();
    assert!(html.contains("<table class=\"pair\">"), "{html}");
    // nine-digit figures grouped by three (narrow no-break spaces)
    assert!(
        regex::Regex::new("<td class=\"num\">\\d{3}\u{202f}\\d{3}\u{202f}\\d{3}</td>")
            .unwrap()
            .is_match(&html),
        "{}",
        text_of(&html)
    );
    let measured = d.path().join("measured.html");
    fs::write(
        &measured,
        html.replace("</body>", &format!("{MEASURE}</body>")),
    )
    .unwrap();
    let profile = d.path().join("profile");
    for width in [800, 1400] {
        let dom = d.path().join(format!("dom{width}.html"));
        chromium(
            &profile,
            &measured,
            &["--dump-dom".into(), format!("--window-size={width},1000")],
            &dom,
        );
        let dom = fs::read_to_string(&dom).unwrap();
        let json = dom
            .split("<pre id=\"measured\">")
            .nth(1)
            .and_then(|s| s.split("</pre>").next())
            .expect("the measures in the rendered DOM")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        let m: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(m["window"], width, "{m}");
        assert!(
            m["page"].as_u64().unwrap() <= width,
            "{width} px: the page is {} px wide",
            m["page"]
        );
        let boxes = m["boxes"].as_array().unwrap();
        assert!(boxes.len() > 100, "{width} px: {} texts", boxes.len());
        for b in boxes {
            let fs = b["fs"].as_f64().unwrap();
            assert!(fs >= 11.99, "{width} px: {fs} px text: {b}");
        }
        let r = |b: &Value, k: &str| b[k].as_f64().unwrap();
        for (i, p) in boxes.iter().enumerate() {
            for q in &boxes[i + 1..] {
                let w =
                    (r(p, "x") + r(p, "w")).min(r(q, "x") + r(q, "w")) - r(p, "x").max(r(q, "x"));
                let h =
                    (r(p, "y") + r(p, "h")).min(r(q, "y") + r(q, "h")) - r(p, "y").max(r(q, "y"));
                assert!(
                    w <= 1.0 || h <= 1.0,
                    "{width} px: two texts overlap by {w:.1} x {h:.1} px:\n{p}\n{q}"
                );
            }
        }
        eprintln!("{width} px: {} texts, none overlapping", boxes.len());
    }
}
