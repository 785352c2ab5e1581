//! The page from hand-made comparisons: escaping, structure, no outside
//! address; and the drawing helpers.

use super::svg::{domain, esc, si, swarm, ticks, LogScale};
use super::*;
use crate::compare::comparison::Row;
use crate::compare::comparison::RowKind;
use crate::compare::fact::{Better, RowSection, Unit};
use crate::compare::fleet::{outliers, FleetColumn, FleetRow, FleetTable};
use crate::compare::sides::ReportInfo;
use crate::compare::sides::Side;
use crate::compare::verdict::{Judged, Verdict};
use crate::model::BlockSize;
use crate::stats::{Call, RatioInterval, RunsNeeded, Spread};

fn info(name: &str, file: &str) -> ReportInfo {
    ReportInfo {
        name: name.into(),
        file: file.into(),
        hostname: Some(name.into()),
        origin: "quickbench",
        loop_delay_s: Some(30.0),
        timestamp_utc: Some("2026-12-03T19:41:00Z".into()),
    }
}

/// One side per report.
fn one_each(reports: &[ReportInfo]) -> Vec<Side> {
    reports
        .iter()
        .enumerate()
        .map(|(n, r)| Side {
            name: r.name.clone(),
            hostname: r.hostname.clone(),
            reports: vec![n],
        })
        .collect()
}

const EVIL: &str = "<script>alert(1)</script>";

/// Four hosts, two key figures; `slow` is an outlier on both.
fn fleet() -> Comparison {
    let names = ["n1", EVIL, "q\"uote's", "slow"];
    let cpu = [400e6, 410e6, 395e6, 200e6];
    let lat = [40.0, 41.0, 39.0, 90.0];
    let (cpu_m, cpu_why) = outliers(&cpu.map(Some), Better::Higher);
    let (lat_m, lat_why) = outliers(&lat.map(Some), Better::Lower);
    let rows = (0..4)
        .map(|n| FleetRow {
            name: names[n].into(),
            values: vec![Some(cpu[n]), Some(lat[n])],
            outlier: vec![cpu_why[n].clone(), lat_why[n].clone()],
            not_comparable: vec![false, false],
        })
        .collect();
    let reports: Vec<ReportInfo> = names
        .iter()
        .map(|n| info(n, &format!("reports/{n}.json")))
        .collect();
    Comparison {
        compare_schema_version: 2,
        sides: one_each(&reports),
        reports,
        warnings: vec![format!("{EVIL}: sections that could not run: io")],
        rows: Vec::new(),
        missing: vec![format!("{EVIL}: [ Memory ] Total")],
        unjudged_spreads: Vec::new(),
        table: Some(FleetTable {
            columns: vec![
                FleetColumn {
                    name: "CPU 1 job",
                    unit: Unit::LoopsPerJobPerSecond,
                    better: Better::Higher,
                },
                FleetColumn {
                    name: "4k R 1j lat",
                    unit: Unit::Microseconds,
                    better: Better::Lower,
                },
            ],
            rows,
            median: vec![cpu_m, lat_m],
        }),
    }
}

fn figure_row(label: &str, a: f64, b: f64, verdict: Verdict) -> Row {
    Row {
        section: RowSection::StorageLines(BlockSize::K4),
        label: label.into(),
        kind: RowKind::Figure,
        better: Some(Better::Higher),
        unit: Some(Unit::IoPerSecond),
        values: vec![Some(a), Some(b)],
        texts: vec![Some(format!("{a}")), Some(format!("{b}"))],
        marks: vec![Vec::new(), Vec::new()],
        ratios: vec![
            Some(1.0),
            (!matches!(verdict, Verdict::NotComparable { .. })).then_some(b / a),
        ],
        verdicts: vec![Verdict::Reference, verdict],
        judged: vec![None, None],
    }
}

/// How a figure of `ratio` in [lo, hi] was judged, one report a side.
fn judged(ratio: f64, lo: f64, hi: f64, words: &str) -> Option<Judged> {
    Some(Judged {
        n_a: 1,
        n_b: 1,
        ratio,
        interval: Some(RatioInterval {
            lo,
            hi,
            level: 0.999,
            achieved: 0.999,
        }),
        out_of_reach: None,
        margin: 0.05,
        spread: Spread::WithinRunOnly {
            assumed_run_cv: 0.1,
        },
        p_value: Some(0.5),
        p_adjusted: Some(1.0),
        runs_needed: Some(RunsNeeded::PerSide {
            runs: 4,
            toward: Call::Same,
        }),
        left_out_a: 0,
        left_out_b: 0,
        bootstrap: None,
        words: words.into(),
    })
}

fn pair() -> Comparison {
    let mut host = figure_row("Host", 0.0, 0.0, Verdict::Different);
    host.section = RowSection::Header;
    host.kind = RowKind::Info;
    host.texts = vec![Some("a".into()), Some(EVIL.into())];
    let reports = vec![info("a", "a.txt"), info(EVIL, "<b>.json")];
    Comparison {
        compare_schema_version: 2,
        sides: one_each(&reports),
        reports,
        warnings: Vec::new(),
        rows: vec![
            host,
            figure_row(
                "Writes ( 1 thread[s]) IO/s",
                25000.0,
                12500.0,
                Verdict::Worse,
            ),
            figure_row(
                "Reads  ( 1 thread[s]) IO/s",
                25000.0,
                25500.0,
                Verdict::Equal,
            ),
            {
                let mut r = figure_row(
                    "Writes ( 4 thread[s]) IO/s",
                    25000.0,
                    27000.0,
                    Verdict::Inconclusive,
                );
                r.judged[1] = judged(
                    1.08,
                    0.93,
                    1.25,
                    "~ x1.08 [0.93, 1.25] 4 runs a side would decide",
                );
                r
            },
            figure_row(
                "Reads  ( 4 thread[s]) IO/s",
                100000.0,
                70000.0,
                Verdict::NotComparable {
                    why: "a line interrupted".into(),
                },
            ),
        ],
        missing: Vec::new(),
        table: None,
        unjudged_spreads: Vec::new(),
    }
}

/// No element or address that could run or fetch anything.
fn assert_inert_and_offline(page: &str) {
    let lower = page.to_lowercase();
    for bad in [
        "<script", "http:", "https:", "src=", "href=", "url(", "@import", "=\"//",
    ] {
        assert!(!lower.contains(bad), "{bad} in the page:\n{page}");
    }
}

#[test]
fn figures_no_report_has_are_named_once_without_a_strip() {
    let mut c = fleet();
    let t = c.table.as_mut().unwrap();
    for name in ["4k W 1j", "1M R 16j"] {
        t.columns.push(FleetColumn {
            name,
            unit: Unit::IoPerSecond,
            better: Better::Higher,
        });
        t.median.push(None);
        for r in &mut t.rows {
            r.values.push(None);
            r.outlier.push(None);
            r.not_comparable.push(false);
        }
    }
    let page = html(&c);
    assert_eq!(page.matches("<svg class=\"strip\"").count(), 2);
    assert!(!page.contains("data-figure=\"4k W 1j\""));
    assert_eq!(page.matches("No report has").count(), 1, "{page}");
    assert!(
        page.contains("<p class=\"lacking\">No report has these figures: 4k W 1j, 1M R 16j.</p>"),
        "{page}"
    );
}

#[test]
fn a_fleet_page_has_a_strip_per_key_figure_and_names_its_outliers() {
    let c = fleet();
    let page = html(&c);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.ends_with("</html>\n"));
    assert_eq!(page.matches("<svg class=\"strip\"").count(), 2);
    assert_eq!(page.matches("<svg").count(), page.matches("</svg>").count());
    assert!(page.contains("data-figure=\"CPU 1 job\""));
    assert!(page.contains("data-figure=\"4k R 1j lat\""));
    // every host is a dot on both strips (its name in the dot's title)
    let t = c.table.as_ref().unwrap();
    for r in &t.rows {
        let title = format!("<title>{}: ", esc(&r.name));
        assert_eq!(page.matches(&title).count(), 2, "{}", r.name);
    }
    // the median is marked on each strip
    assert!(
        page.contains(">median 397500000 loop/job/s</text>"),
        "{page}"
    );
    assert!(page.contains(">median 40 µs</text>"), "{page}");
    // the outlier: named beside its dot on both strips, and in the table
    // with why, taken from the one outlier rule
    assert_eq!(page.matches("<text class=\"oname\"").count(), 2);
    assert!(page.contains("<text class=\"oname\" x="));
    let why = t.rows[3].outlier[0].clone().unwrap();
    assert!(why.starts_with("50 % below the median"), "{why}");
    let table = page
        .split("<table class=\"outliers\">")
        .nth(1)
        .and_then(|t| t.split("</table>").next())
        .expect("an outlier table");
    assert!(table.contains(&format!("<td>{why}</td>")), "{table}");
    assert_eq!(table.matches("<tr><td class=\"host\">slow</td>").count(), 2);
    assert_eq!(
        table.matches("<tr>").count(),
        3,
        "a heading and two outliers"
    );
    assert_eq!(page.matches("<circle class=\"dot out\"").count(), 2);
    assert_inert_and_offline(&page);
}

#[test]
fn names_from_reports_are_inert() {
    for page in [html(&fleet()), html(&pair())] {
        assert_inert_and_offline(&page);
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!page.contains("alert(1)</script>"));
    }
    let page = html(&fleet());
    assert!(page.contains("q&quot;uote&#39;s"), "{page}");
    assert!(!page.contains("q\"uote"));
    assert!(html(&pair()).contains("&lt;b&gt;.json"));
}

#[test]
fn a_two_report_page_has_a_bar_per_ratio_and_the_verdict_beside_it() {
    let page = html(&pair());
    // one table, one section, a row per figure: figure, bar, verdict, A, B
    assert_eq!(page.matches("<table class=\"pair\">").count(), 1);
    assert_eq!(
        page.matches("<tbody class=\"pair\">").count(),
        1,
        "one section"
    );
    assert_eq!(page.matches("<rect class=\"bar ").count(), 3, "{page}");
    assert_eq!(page.matches("<svg class=\"bar\"").count(), 4, "{page}");
    assert_eq!(page.matches("<rect class=\"band\"").count(), 4);
    assert_eq!(page.matches("<line class=\"centre\"").count(), 4);
    assert!(page.contains("<rect class=\"bar worse\""));
    assert!(
        page.contains("<td class=\"words worse\"><span class=\"verdict\">x0.50 worse</span></td>"),
        "{page}"
    );
    assert!(page.contains(">\u{2248} x1.02</span>"), "{page}");
    assert!(page.contains(">not comparable</span>"));
    assert!(page.contains("Reads  ( 4 thread[s]) IO/s: not comparable: a line interrupted"));
    // A's and B's figures in their own cells, digits grouped
    assert!(
        page.contains("<td class=\"num\">25\u{202f}000</td><td class=\"num\">12\u{202f}500</td>"),
        "{page}"
    );
    // the hosts are named, A and B
    assert!(page.contains("<td class=\"host\">a</td>"));
    // a worse bar ends left of the centre line, at x0.5 on the scale
    let bar = page.split("<rect class=\"bar worse\" x=\"").nth(1).unwrap();
    let x: f64 = bar.split('"').next().unwrap().parse().unwrap();
    let centre = page.split("<line class=\"centre\" x1=\"").nth(1).unwrap();
    let centre: f64 = centre.split('"').next().unwrap().parse().unwrap();
    assert!(x < centre - 50.0, "{x} {centre}");
    // the inconclusive figure: its bar, its whisker across the centre line
    // (0.93 to 1.25), and its words with the runs a ±5 % answer needs
    assert!(page.contains("<rect class=\"bar unsure\""));
    assert!(
        page.contains(
            ">no difference found</span><div class=\"detail\">x1.08 [0.93, 1.25]; \u{b1}5 % needs 4 runs a side</div>"
        ),
        "{page}"
    );
    assert_eq!(page.matches("<path class=\"whisker\"").count(), 1);
    let w = page.split("<path class=\"whisker\" d=\"M").nth(1).unwrap();
    let x0: f64 = w.split(' ').next().unwrap().parse().unwrap();
    let x1: f64 = w
        .split('H')
        .nth(1)
        .unwrap()
        .split('M')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(x0 < centre && centre < x1, "{x0} {centre} {x1}");
    assert!(
        (centre - x0) < (x1 - centre),
        "0.93 is nearer 1 than 1.25 is"
    );
    assert!(w.contains("interval 0.930 to 1.250 (99.9 %)"), "{w}");
}

#[test]
fn escaping() {
    assert_eq!(esc("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    assert_eq!(esc("plain µs"), "plain µs");
}

#[test]
fn compact_numbers() {
    assert_eq!(si(399_999_000.0), "400M");
    assert_eq!(si(25_000.0), "25k");
    assert_eq!(si(3_774.0), "3.77k");
    assert_eq!(si(30.9e9), "30.9G");
    assert_eq!(si(40.0), "40");
    assert_eq!(si(0.5), "0.5");
}

#[test]
fn ticks_are_round_and_inside() {
    assert_eq!(
        ticks(9_382.0, 27_000.0),
        [10_000.0, 15_000.0, 20_000.0, 25_000.0]
    );
    assert_eq!(
        ticks(1.0, 1000.0),
        [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
    );
    assert!(ticks(0.0, 10.0).is_empty());
    assert!(ticks(5.0, 5.0).is_empty());
}

#[test]
fn log_scales() {
    let s = LogScale {
        lo: 10.0,
        hi: 1000.0,
        x0: 0.0,
        x1: 200.0,
    };
    assert_eq!(s.x(10.0), 0.0);
    assert!((s.x(100.0) - 100.0).abs() < 1e-9);
    assert_eq!(s.x(1000.0), 200.0);
    assert_eq!(s.x(0.0), 0.0, "zero sits on the low edge");
    assert_eq!(s.x(1e9), 200.0);
    // equal hosts get a domain a factor 1.5 wide (plus margins), centred
    let (lo, hi) = domain([100.0, 100.0], 1.5).unwrap();
    assert!((lo * hi - 100.0 * 100.0).abs() < 1e-6);
    assert!(hi / lo > 1.5 && hi / lo < 1.6, "{lo} {hi}");
    assert_eq!(domain([0.0, -1.0], 1.5), None);
}

#[test]
fn swarm_lanes_keep_dots_apart() {
    let xs: Vec<f64> = (0..30).map(|i| 100.0 + (i % 10) as f64 * 3.0).collect();
    let lanes = swarm(&xs, 10.0, 6);
    for i in 0..xs.len() {
        for j in 0..i {
            if lanes[i] == lanes[j] {
                assert!((xs[i] - xs[j]).abs() >= 10.0, "{i} {j} {lanes:?}");
            }
        }
    }
    assert!(lanes.iter().all(|l| l.abs() <= 6));
    // dots far apart stay on the axis
    assert_eq!(swarm(&[0.0, 50.0, 100.0], 10.0, 6), [0, 0, 0]);
}
