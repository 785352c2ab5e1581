//! The fleet page: one strip per key figure of the fleet table, every host
//! a dot on a log scale, the median marked, the outliers named beside their
//! dot, then the outliers in a table with why each is flagged.

use std::fmt::Write;

use super::svg::{domain, esc, px, si, swarm, ticks, LogScale};
use super::value_text;
use crate::compare::fact::{Better, Unit};
use crate::compare::fleet::{outlier_rule, FleetTable};

/// Width of a strip, pixels.
const W: f64 = 1080.0;
/// The plot's left and right ends.
const X0: f64 = 24.0;
const X1: f64 = W - 24.0;
/// Dot radius, and the vertical step between swarm lanes.
const R: f64 = 4.5;
const LANE: f64 = 10.0;
/// Swarm lanes each side of the axis before dots may overlap.
const MAX_SIDE: i32 = 6;
/// Height of an outlier's row (its dot and its name).
const OUT_ROW: f64 = 17.0;

/// The legend and one strip per key figure.
pub(super) fn strips(t: &FleetTable) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<p class=\"legend\">Each dot is a host, on a <b>log scale</b> per figure \
         (equal steps are equal ratios); the black line is the median. \
         <span class=\"sw out\"></span>outlier: {} (named beside its dot, listed below) \
         <span class=\"sw nc\"></span>not comparable (another loop definition, an \
         interrupted line, the bash latency column, a figure marked busy, steal or other \
         I/O), not in the median. \
         Hover a dot for its host and figure.</p>",
        esc(&outlier_rule())
    );
    // A figure no report has (the fleet ran without `io`, say) gets no
    // strip: one line names them all.
    let mut lacking: Vec<&str> = Vec::new();
    for c in 0..t.columns.len() {
        if t.rows.iter().all(|r| r.values[c].is_none()) {
            lacking.push(t.columns[c].name);
        } else {
            out.push_str(&strip(t, c));
        }
    }
    if !lacking.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"lacking\">No report has {}: {}.</p>",
            if lacking.len() == 1 {
                "this figure"
            } else {
                "these figures"
            },
            esc(&lacking.join(", "))
        );
    }
    out
}

enum Kind {
    Plain,
    NotComparable,
    Outlier,
}

/// One host's dot on a strip: its name, its figure, how it is drawn.
type Point<'a> = (&'a str, f64, Kind);

/// Where a strip's parts go, from its dots and its scale.
struct Layout {
    scale: LogScale,
    /// Indexes (in the points) of the dots of the swarm, every dot but
    /// the outliers.
    swarmed: Vec<usize>,
    /// Their x, and their lanes each side of the swarm's line.
    xs: Vec<f64>,
    lanes: Vec<i32>,
    /// Indexes of the outliers, a row each below the swarm.
    outliers: Vec<usize>,
    /// The top of the plot (the median's label is above it).
    top: f64,
    swarm_y: f64,
    swarm_bottom: f64,
    axis: f64,
    height: f64,
}

/// A key figure's strip: its title, the plot, the hosts without it.
fn strip(t: &FleetTable, c: usize) -> String {
    let col = &t.columns[c];
    let better = match col.better {
        Better::Higher => "higher is better",
        Better::Lower => "lower is better",
    };
    let mut out = format!(
        "<section class=\"strip\">\n<h3>{} <span class=\"unit\">{}, {better}</span></h3>\n",
        esc(col.name),
        esc(col.unit.as_str())
    );
    let points = points(t, c);
    let lacking: Vec<&str> = t
        .rows
        .iter()
        .filter(|r| r.values[c].is_none())
        .map(|r| r.name.as_str())
        .collect();
    let median = t.median[c];
    let Some((lo, hi)) = domain(points.iter().map(|p| p.1).chain(median), 1.5) else {
        // only figures that are not positive (a zero IO/s): no log scale
        let _ = writeln!(
            out,
            "<svg class=\"strip\" data-figure=\"{}\" width=\"{}\" height=\"28\" viewBox=\"0 0 {} 28\" role=\"img\"><text x=\"{X0}\" y=\"18\">No figure above zero to place on a log scale.</text></svg>\n</section>",
            esc(col.name),
            px(W),
            px(W)
        );
        return out;
    };
    let l = layout(&points, lo, hi);
    let _ = writeln!(
        out,
        "<svg class=\"strip\" data-figure=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">",
        esc(col.name),
        px(W),
        px(l.height),
        px(W),
        px(l.height)
    );
    axis(&mut out, &l, col.unit);
    if let Some(m) = median {
        median_line(&mut out, &l, m, col.unit);
    }
    swarm_dots(&mut out, &l, &points, col.unit);
    outlier_dots(&mut out, &l, &points, col.unit);
    out.push_str("</svg>\n");
    if !lacking.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"lacking\">Without this figure: {}</p>",
            esc(&lacking.join(", "))
        );
    }
    out.push_str("</section>\n");
    out
}

/// The hosts that have figure `c`, each with how its dot is drawn.
fn points(t: &FleetTable, c: usize) -> Vec<Point<'_>> {
    t.rows
        .iter()
        .filter_map(|r| {
            let v = r.values[c]?;
            let kind = if r.outlier[c].is_some() {
                Kind::Outlier
            } else if r.not_comparable[c] {
                Kind::NotComparable
            } else {
                Kind::Plain
            };
            Some((r.name.as_str(), v, kind))
        })
        .collect()
}

/// The swarm's lanes, then the outliers' rows, then the axis, top down.
fn layout(points: &[Point], lo: f64, hi: f64) -> Layout {
    let scale = LogScale {
        lo,
        hi,
        x0: X0,
        x1: X1,
    };
    let swarmed: Vec<usize> = (0..points.len())
        .filter(|&i| !matches!(points[i].2, Kind::Outlier))
        .collect();
    let xs: Vec<f64> = swarmed.iter().map(|&i| scale.x(points[i].1)).collect();
    let lanes = swarm(&xs, 2.0 * R + 1.0, MAX_SIDE);
    let side = lanes.iter().map(|l| l.abs()).max().unwrap_or(0) as f64;
    let top = 22.0;
    let swarm_y = top + R + 2.0 + side * LANE;
    let outliers: Vec<usize> = (0..points.len())
        .filter(|&i| matches!(points[i].2, Kind::Outlier))
        .collect();
    let swarm_bottom = swarm_y + side * LANE + R + 4.0;
    let axis = swarm_bottom + outliers.len() as f64 * OUT_ROW + 4.0;
    Layout {
        scale,
        swarmed,
        xs,
        lanes,
        outliers,
        top,
        swarm_y,
        swarm_bottom,
        axis,
        height: axis + 24.0,
    }
}

/// The axis and its ticks, labelled no closer than 70 px.
fn axis(out: &mut String, l: &Layout, unit: Unit) {
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
        px(X0),
        px(l.axis),
        px(X1),
        px(l.axis)
    );
    let mut last_label = f64::MIN;
    for v in ticks(l.scale.lo, l.scale.hi) {
        let x = l.scale.x(v);
        if x - last_label < 70.0 {
            continue;
        }
        last_label = x;
        let label = if unit.in_text() {
            // `30G` -> `30 GB/s`
            let n = si(v);
            let digits = n.trim_end_matches(char::is_alphabetic);
            format!("{digits} {}B/s", &n[digits.len()..])
        } else {
            si(v)
        };
        let _ = writeln!(
            out,
            "<line class=\"tick\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/><text class=\"tick\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            px(l.axis),
            px(l.axis + 4.0),
            px(l.axis + 17.0),
            esc(&label),
            x = px(x),
        );
    }
}

/// The median's line across the plot, labelled above it.
fn median_line(out: &mut String, l: &Layout, m: f64, unit: Unit) {
    let x = l.scale.x(m);
    let anchor = if x < 110.0 {
        "start"
    } else if x > W - 110.0 {
        "end"
    } else {
        "middle"
    };
    let _ = writeln!(
        out,
        "<line class=\"median\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/><text class=\"median\" x=\"{x}\" y=\"{}\" text-anchor=\"{anchor}\">median {}</text>",
        px(l.top - 4.0),
        px(l.axis),
        px(l.top - 8.0),
        esc(&value_text(m, unit)),
        x = px(x),
    );
}

/// The swarm: every dot but the outliers, each titled with its host.
fn swarm_dots(out: &mut String, l: &Layout, points: &[Point], unit: Unit) {
    for (k, &i) in l.swarmed.iter().enumerate() {
        let (name, v, kind) = &points[i];
        let class = match kind {
            Kind::NotComparable => "dot nc",
            _ => "dot",
        };
        let _ = writeln!(
            out,
            "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"{R}\"><title>{}: {}</title></circle>",
            px(l.xs[k]),
            px(l.swarm_y + l.lanes[k] as f64 * LANE),
            esc(name),
            esc(&value_text(*v, unit)),
        );
    }
}

/// The outliers, one row each, named beside their dot (on its left past
/// 62 % of the width, so that the name stays inside).
fn outlier_dots(out: &mut String, l: &Layout, points: &[Point], unit: Unit) {
    for (k, &i) in l.outliers.iter().enumerate() {
        let (name, v, _) = &points[i];
        let x = l.scale.x(*v);
        let y = l.swarm_bottom + k as f64 * OUT_ROW + OUT_ROW / 2.0;
        let (lx, anchor) = if x > W * 0.62 {
            (x - R - 5.0, "end")
        } else {
            (x + R + 5.0, "start")
        };
        let value = value_text(*v, unit);
        let _ = writeln!(
            out,
            "<circle class=\"dot out\" cx=\"{}\" cy=\"{}\" r=\"{R}\"><title>{}: {}</title></circle><text class=\"oname\" x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\">{} <tspan class=\"oval\">{}</tspan></text>",
            px(x),
            px(y),
            esc(name),
            esc(&value),
            px(lx),
            px(y + 4.0),
            esc(name),
            esc(&value),
        );
    }
}

/// The outliers: host, figure, its value, the median, and why it is flagged.
pub(super) fn outlier_table(t: &FleetTable) -> String {
    let mut rows = String::new();
    for (c, col) in t.columns.iter().enumerate() {
        for r in &t.rows {
            let (Some(why), Some(v)) = (&r.outlier[c], r.values[c]) else {
                continue;
            };
            let _ = writeln!(
                rows,
                "<tr><td class=\"host\">{}</td><td class=\"fig\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                esc(&r.name),
                esc(col.name),
                esc(&value_text(v, col.unit)),
                esc(&t.median[c].map_or("-".into(), |m| value_text(m, col.unit))),
                esc(why),
            );
        }
    }
    if rows.is_empty() {
        return format!(
            "<h2 id=\"outliers\">Outliers</h2>\n<p class=\"none\">No outlier: no figure is {}.</p>\n",
            esc(&outlier_rule())
        );
    }
    format!(
        "<h2 id=\"outliers\">Outliers</h2>\n<table class=\"outliers\">\n<tr><th>host</th><th>figure</th><th>value</th><th>median</th><th>why flagged</th></tr>\n{rows}</table>\n"
    )
}
