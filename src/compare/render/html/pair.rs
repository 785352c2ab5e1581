//! The page of two sides: per section, a bar of B/A for every figure on
//! a log scale around a centre line at 1.0, the ±5 % band shaded, the
//! interval of the ratio as a whisker over the bar, and the verdict beside
//! it (≈, ~, better, worse); then what differs and what is missing.

use std::fmt::Write;

use super::svg::{esc, px, LogScale};
use crate::compare::comparison::{Comparison, Row, RowKind};
use crate::compare::fact::{Section, Unit};
use crate::compare::render::{section_title, verdict_words};
use crate::compare::verdict::{bounded, Verdict, EQUAL_WITHIN};

/// Width of a section's chart, pixels, and where its parts go.
const W: f64 = 1180.0;
const LABEL_END: f64 = 260.0;
const BAR0: f64 = 276.0;
const BAR1: f64 = 620.0;
const WORDS: f64 = 636.0;
/// Where the figures go, after the verdict and its interval.
const VALUES: f64 = WORDS + 300.0;
/// Height of a row, and of its bar.
const ROW: f64 = 22.0;
const BAR: f64 = 13.0;

/// The legend, and one chart per section holding figures.
pub(super) fn bars(c: &Comparison) -> String {
    let figures: Vec<&Row> = c
        .rows
        .iter()
        .filter(|r| r.kind == RowKind::Figure)
        .collect();
    let scale = scale(&figures);
    let mut out = format!(
        "<p class=\"legend\">Each bar is B/A for one figure, on a <b>log scale</b> \
         from \u{d7}{} to \u{d7}{}: the centre line is 1.0 (equal), the shaded band \
         \u{b1}{} % (the original's README warns not to over-interpret it); the \
         whisker is the interval of B/A. <span class=\"sw better\"></span>better, \
         <span class=\"sw worse\"></span>worse: the whole whisker beyond the band; \
         <span class=\"sw equal\"></span>\u{2248}: the whole whisker inside it; \
         <span class=\"sw unsure\"></span>~: it straddles the band's edge (more runs \
         decide). No whisker: no samples, the ratio against the band. Latency: lower \
         is better, so its bar right of the line is worse.</p>\n",
        ratio_label(scale.lo),
        ratio_label(scale.hi),
        (EQUAL_WITHIN * 100.0).round()
    );
    let mut sections: Vec<Section> = Vec::new();
    for r in &figures {
        if !sections.contains(&r.section) {
            sections.push(r.section);
        }
    }
    for s in sections {
        let rows: Vec<&Row> = figures.iter().copied().filter(|r| r.section == s).collect();
        out.push_str(&section(c, s, &rows, &scale));
    }
    out
}

/// The ratio scale: symmetric around 1, wide enough for every ratio and
/// interval end up to x4 (beyond, the bar is cut and the words say the ratio), at least x1.25.
fn scale(rows: &[&Row]) -> LogScale {
    let widest = rows
        .iter()
        .flat_map(|r| {
            let i = r.judged[1].as_ref().and_then(|j| j.interval);
            [r.ratios[1], i.map(|i| i.lo), i.map(|i| i.hi)]
        })
        .flatten()
        .filter(|r| *r > 0.0 && r.is_finite())
        .map(|r| r.ln().abs())
        .fold(1.25f64.ln(), f64::max)
        .min(4f64.ln())
        * 1.08;
    LogScale {
        lo: (-widest).exp(),
        hi: widest.exp(),
        x0: BAR0,
        x1: BAR1,
    }
}

fn ratio_label(r: f64) -> String {
    let s = bounded(r, 2);
    if s.contains('e') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn section(c: &Comparison, s: Section, rows: &[&Row], scale: &LogScale) -> String {
    let mut out = format!(
        "<section class=\"pair\">\n<h3>{}</h3>\n",
        esc(&section_title(c, s))
    );
    let top = 4.0;
    let axis = top + rows.len() as f64 * ROW + 2.0;
    let height = axis + 22.0;
    let _ = writeln!(
        out,
        "<svg class=\"bars\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">",
        px(W),
        px(height),
        px(W),
        px(height)
    );
    // the ±5 % band, the centre line, the ticks
    let (b0, b1) = (scale.x(1.0 - EQUAL_WITHIN), scale.x(1.0 + EQUAL_WITHIN));
    let _ = writeln!(
        out,
        "<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
        px(b0),
        px(top),
        px(b1 - b0),
        px(axis - top)
    );
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
        px(BAR0),
        px(axis),
        px(BAR1),
        px(axis)
    );
    // 1 always, the others where their labels do not crowd it
    let mut kept: Vec<f64> = vec![scale.x(1.0)];
    let mut ticks = vec![1.0];
    for t in [1.25, 0.8, 2.0, 0.5, 4.0, 0.25] {
        let x = scale.x(t);
        if t >= scale.lo && t <= scale.hi && kept.iter().all(|k| (k - x).abs() >= 36.0) {
            kept.push(x);
            ticks.push(t);
        }
    }
    for t in ticks {
        let x = px(scale.x(t));
        let _ = writeln!(
            out,
            "<line class=\"tick\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/><text class=\"tick\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">\u{d7}{}</text>",
            px(axis),
            px(axis + 4.0),
            px(axis + 16.0),
            ratio_label(t)
        );
    }
    let centre = scale.x(1.0);
    let mut notes = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let y = top + i as f64 * ROW;
        let mid = y + ROW / 2.0;
        let class = verdict_class(&r.verdicts[1]);
        let _ = write!(
            out,
            "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            px(LABEL_END),
            px(mid + 4.0),
            esc(&r.label)
        );
        if let Some(ratio) = r.ratios[1].filter(|x| *x > 0.0) {
            let x = scale.x(ratio);
            let (x0, x1) = (centre.min(x), centre.max(x));
            let _ = write!(
                out,
                "<rect class=\"bar {class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: B/A {ratio:.3}</title></rect>",
                px(x0),
                px(mid - BAR / 2.0),
                px((x1 - x0).max(1.0)),
                px(BAR),
                esc(&r.label),
            );
            if let Some(i) = r.judged[1].as_ref().and_then(|j| j.interval) {
                // the interval: a whisker with end caps over the bar
                let (w0, w1) = (scale.x(i.lo), scale.x(i.hi));
                let _ = write!(
                    out,
                    "<path class=\"whisker\" d=\"M{} {}V{}M{} {}H{}M{} {}V{}\"><title>{}: B/A {}, interval {} to {} ({:.1} %)</title></path>",
                    px(w0),
                    px(mid - 4.0),
                    px(mid + 4.0),
                    px(w0),
                    px(mid),
                    px(w1),
                    px(w1),
                    px(mid - 4.0),
                    px(mid + 4.0),
                    esc(&r.label),
                    bounded(ratio, 3),
                    bounded(i.lo, 3),
                    bounded(i.hi, 3),
                    i.achieved * 100.0
                );
            }
            if ratio < scale.lo || ratio > scale.hi {
                // cut at the scale's end: a chevron says it goes on
                let (tip, back) = if ratio > 1.0 {
                    (x1 + 6.0, x1)
                } else {
                    (x0 - 6.0, x0)
                };
                let _ = write!(
                    out,
                    "<path class=\"bar {class}\" d=\"M{} {}L{} {}L{} {}Z\"/>",
                    px(back),
                    px(mid - BAR / 2.0),
                    px(tip),
                    px(mid),
                    px(back),
                    px(mid + BAR / 2.0)
                );
            }
        }
        // why a line is not compared, and its marks, go below the chart
        let mut note = Vec::new();
        let words = match &r.verdicts[1] {
            Verdict::NotComparable { why } => {
                note.push(format!("not comparable: {why}"));
                "not comparable".to_string()
            }
            _ => verdict_words(r, 1),
        };
        for (n, ab) in ["A", "B"].iter().enumerate() {
            if !r.marks[n].is_empty() {
                note.push(format!("{ab}: {}", r.marks[n].join(", ")));
            }
        }
        if !note.is_empty() {
            notes.push(format!("{}: {}", r.label.trim(), note.join("; ")));
        }
        let _ = writeln!(
            out,
            "<text class=\"words {class}\" x=\"{}\" y=\"{}\">{}</text><text class=\"values\" x=\"{}\" y=\"{}\">{}</text>",
            px(WORDS),
            px(mid + 4.0),
            esc(&words),
            px(VALUES),
            px(mid + 4.0),
            esc(&values(r)),
        );
    }
    out.push_str("<line class=\"centre\" ");
    let _ = writeln!(
        out,
        "x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
        px(centre),
        px(top - 2.0),
        px(centre),
        px(axis)
    );
    out.push_str("</svg>\n");
    if !notes.is_empty() {
        out.push_str("<ul class=\"notes\">\n");
        for n in notes {
            let _ = writeln!(out, "<li>{}</li>", esc(&n));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
    out
}

/// `A 25000 → B 12500 IO/s`, the figures as the reports print them.
fn values(r: &Row) -> String {
    let unit = match r.unit.map_or("", Unit::after_text) {
        "" => String::new(),
        u => format!(" {u}"),
    };
    let t = |n: usize| r.texts[n].clone().unwrap_or_else(|| "-".into());
    format!("A {} \u{2192} B {}{unit}", t(0), t(1))
}

/// The CSS class of a verdict: its colour.
fn verdict_class(v: &Verdict) -> &'static str {
    match v {
        Verdict::Better => "better",
        Verdict::Worse => "worse",
        Verdict::Equal => "equal",
        Verdict::Inconclusive | Verdict::Distorted { .. } => "unsure",
        _ => "other",
    }
}

/// The information lines that differ, and the lines a report lacks.
pub(super) fn differences(c: &Comparison) -> String {
    let mut out = String::new();
    let differ: Vec<&Row> = c
        .rows
        .iter()
        .filter(|r| r.kind == RowKind::Info && r.verdicts.contains(&Verdict::Different))
        .collect();
    let same = c.rows.iter().filter(|r| r.kind == RowKind::Info).count() - differ.len();
    out.push_str("<h2>Information lines</h2>\n");
    if !differ.is_empty() {
        out.push_str("<table class=\"differ\">\n<tr><th>line</th><th>A</th><th>B</th></tr>\n");
        for r in differ {
            let t = |n: usize| r.texts[n].clone().unwrap_or_else(|| "(missing)".into());
            let _ = writeln!(
                out,
                "<tr><td>{} <span class=\"unit\">{}</span></td><td>{}</td><td>{}</td></tr>",
                esc(&r.label),
                esc(&r.section.title()),
                esc(&t(0)),
                esc(&t(1))
            );
        }
        out.push_str("</table>\n");
    }
    let _ = writeln!(
        out,
        "<p>{same} information line{} the same in both (versions, kernel, CPU info, disks...).</p>",
        if same == 1 { " is" } else { "s are" }
    );
    out
}
