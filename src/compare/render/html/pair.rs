//! The page of two sides: per section, a bar of B/A for every figure on
//! a log scale around a centre line at 1.0, the ±5 % band shaded, the
//! interval of the ratio as a whisker over the bar, and the verdict beside
//! it (≈, ~, better, worse); then what differs and what is missing.

use std::fmt::Write;

use super::svg::{esc, px, LogScale};
use crate::compare::comparison::{Comparison, Row, RowKind};
use crate::compare::fact::RowSection;
use crate::compare::render::{section_title, verdict_parts};
use crate::compare::verdict::{bounded, Verdict, EQUAL_WITHIN};
use crate::stats::RatioInterval;

/// Width of a row's bar, pixels (drawn at its size, never scaled), the
/// margin inside it, and the height of a row's bar.
const BW: f64 = 200.0;
const PAD: f64 = 8.0;
const ROW: f64 = 20.0;
const BAR: f64 = 12.0;

/// The legend, and one table per section holding figures: the figure,
/// its bar, the verdict, A's and B's figures, each column as wide as its
/// content, the text as HTML text (so it never scales below its size).
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
         <span class=\"sw unsure\"></span>no difference found: the whisker holds \
         1.0 but is too wide to tell (the runs a side a \u{b1}5 % answer needs \
         below it); ~: it straddles the band's edge. No whisker: no samples, the ratio against the band. Latency: lower \
         is better, so its bar right of the line is worse.</p>\n",
        ratio_label(scale.lo),
        ratio_label(scale.hi),
        (EQUAL_WITHIN * 100.0).round()
    );
    let mut sections: Vec<RowSection> = Vec::new();
    for r in &figures {
        if !sections.contains(&r.section) {
            sections.push(r.section);
        }
    }
    // one table for every section, so that their columns line up
    out.push_str("<table class=\"pair\">\n");
    for s in sections {
        let rows: Vec<&Row> = figures.iter().copied().filter(|r| r.section == s).collect();
        out.push_str(&section(c, s, &rows, &scale));
    }
    out.push_str("</table>\n");
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
        x0: PAD,
        x1: BW - PAD,
    }
}

fn ratio_label(r: f64) -> String {
    let s = bounded(r, 2);
    if s.contains('e') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A section's rows, its ratio axis, then the notes of its rows.
fn section(c: &Comparison, s: RowSection, rows: &[&Row], scale: &LogScale) -> String {
    let mut out = format!(
        "<tbody class=\"pair\">\n<tr class=\"section\"><th colspan=\"5\"><h3>{}</h3></th></tr>\n<tr><th>figure</th><th>B/A</th><th>verdict</th><th class=\"num\">A</th><th class=\"num\">B</th></tr>\n",
        esc(&section_title(c, s))
    );
    let centre = scale.x(1.0);
    let mut notes = Vec::new();
    for r in rows {
        let (line, note) = row(r, scale, centre);
        out.push_str(&line);
        notes.extend(note);
    }
    let _ = writeln!(
        out,
        "<tr class=\"axis\"><td></td><td class=\"bar\">{}</td><td colspan=\"3\"></td></tr>",
        axis(scale)
    );
    if !notes.is_empty() {
        out.push_str("<tr class=\"notes\"><td colspan=\"5\"><ul class=\"notes\">\n");
        for n in notes {
            let _ = writeln!(out, "<li>{}</li>", esc(&n));
        }
        out.push_str("</ul></td></tr>\n");
    }
    out.push_str("</tbody>\n");
    out
}

/// One figure's table row (label, bar, verdict, A, B), and its note for
/// below the section: why it is not compared, and its marks.
fn row(r: &Row, scale: &LogScale, centre: f64) -> (String, Option<String>) {
    let class = verdict_class(&r.verdicts[1]);
    let mut note = Vec::new();
    let (words, detail) = match &r.verdicts[1] {
        Verdict::NotComparable { why } => {
            note.push(format!("not comparable: {why}"));
            ("not comparable".to_string(), String::new())
        }
        _ => verdict_parts(r, 1),
    };
    for (n, ab) in ["A", "B"].iter().enumerate() {
        if !r.marks[n].is_empty() {
            note.push(format!("{ab}: {}", r.marks[n].join(", ")));
        }
    }
    let note = (!note.is_empty()).then(|| format!("{}: {}", r.label.trim(), note.join("; ")));
    // the unit once, after the label, unless the label or the
    // figure's text already says it
    let unit = r
        .unit
        .filter(|u| !u.in_text() && !r.label.trim_end().ends_with(u.as_str()))
        .map_or(String::new(), |u| {
            format!(" <span class=\"unit\">{}</span>", esc(u.as_str()))
        });
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!("<div class=\"detail\">{}</div>", esc(&detail))
    };
    let line = format!(
        "<tr><td class=\"fig\">{}{unit}</td><td class=\"bar\">{}</td><td class=\"words {class}\"><span class=\"verdict\">{}</span>{detail}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        esc(r.label.trim()),
        bar(r, scale, centre, class),
        esc(&words),
        esc(&grouped(r.texts[0].as_deref().unwrap_or("-"))),
        esc(&grouped(r.texts[1].as_deref().unwrap_or("-"))),
    );
    (line, note)
}

/// One row's bar: the ±5 % band, the bar of B/A from the centre line, the
/// interval as a whisker with end caps, a chevron when cut at the scale's
/// end.
fn bar(r: &Row, scale: &LogScale, centre: f64, class: &str) -> String {
    let mut out = format!(
        "<svg class=\"bar\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">",
        px(BW),
        px(ROW),
        px(BW),
        px(ROW)
    );
    let mid = ROW / 2.0;
    let (b0, b1) = (scale.x(1.0 - EQUAL_WITHIN), scale.x(1.0 + EQUAL_WITHIN));
    let _ = write!(
        out,
        "<rect class=\"band\" x=\"{}\" y=\"0\" width=\"{}\" height=\"{}\"/>",
        px(b0),
        px(b1 - b0),
        px(ROW)
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
            out.push_str(&whisker(&r.label, ratio, &i, scale));
        }
        if ratio < scale.lo || ratio > scale.hi {
            // cut at the scale's end: a chevron says it goes on
            out.push_str(&chevron(ratio, (x0, x1), class));
        }
    }
    let _ = write!(
        out,
        "<line class=\"centre\" x1=\"{}\" y1=\"0\" x2=\"{}\" y2=\"{}\"/></svg>",
        px(centre),
        px(centre),
        px(ROW)
    );
    out
}

/// The interval of B/A as a whisker with end caps, titled with its figures.
fn whisker(label: &str, ratio: f64, i: &RatioInterval, scale: &LogScale) -> String {
    let mid = ROW / 2.0;
    let (w0, w1) = (scale.x(i.lo), scale.x(i.hi));
    format!(
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
        esc(label),
        bounded(ratio, 3),
        bounded(i.lo, 3),
        bounded(i.hi, 3),
        i.achieved * 100.0
    )
}

/// A chevron at the outer end of a bar (`x0` to `x1`) that the scale cuts.
fn chevron(ratio: f64, (x0, x1): (f64, f64), class: &str) -> String {
    let mid = ROW / 2.0;
    let (tip, back) = if ratio > 1.0 {
        (x1 + 6.0, x1)
    } else {
        (x0 - 6.0, x0)
    };
    format!(
        "<path class=\"bar {class}\" d=\"M{} {}L{} {}L{} {}Z\"/>",
        px(back),
        px(mid - BAR / 2.0),
        px(tip),
        px(mid),
        px(back),
        px(mid + BAR / 2.0)
    )
}

/// The ratio axis under a section's bars: 1 always, the other round
/// ratios where their labels do not crowd it.
fn axis(scale: &LogScale) -> String {
    let h = 20.0;
    let mut out = format!(
        "<svg class=\"axis\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\"><line class=\"axis\" x1=\"{}\" y1=\"1\" x2=\"{}\" y2=\"1\"/>",
        px(BW),
        px(h),
        px(BW),
        px(h),
        px(PAD),
        px(BW - PAD)
    );
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
        let _ = write!(
            out,
            "<line class=\"tick\" x1=\"{x}\" y1=\"1\" x2=\"{x}\" y2=\"5\"/><text class=\"tick\" x=\"{x}\" y=\"17\" text-anchor=\"middle\">\u{d7}{}</text>",
            ratio_label(t)
        );
    }
    out.push_str("</svg>");
    out
}

/// A figure as printed, its digits grouped by three (narrow no-break
/// spaces) past four digits: `352 264 123`; `31.2 GB/s` and `4000` stay.
fn grouped(text: &str) -> String {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, rest) = text.split_at(end);
    if digits.len() <= 4 {
        return text.to_string();
    }
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('\u{202f}');
        }
        out.push(d);
    }
    out + rest
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
