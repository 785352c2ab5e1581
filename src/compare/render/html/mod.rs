//! The comparison as one self-contained HTML page (`--html`): inline CSS
//! and inline SVG, no script, no address of anything outside the page, so
//! that it opens offline and can be mailed. Two reports: a bar of B/A per
//! figure ([`pair`]); more: a strip per key figure of the fleet table
//! ([`fleet`]). Everything that comes from a report is escaped.

mod fleet;
mod page_file;
mod pair;
mod svg;

#[cfg(test)]
mod tests;

use std::fmt::Write;

use super::{busy_legend, legend, side_text};
use crate::compare::comparison::Comparison;
use crate::compare::fact::Unit;
pub use page_file::PageFile;
use svg::esc;

/// The page of `c`. Pure: it reads nothing and measures nothing.
pub fn html(c: &Comparison) -> String {
    let mut out = String::new();
    let title = if c.sides.len() == 2 {
        format!(
            "quickbench compare: {} and {}",
            c.sides[0].name, c.sides[1].name
        )
    } else {
        format!("quickbench compare: {} hosts", c.sides.len())
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    out.push_str(&who(c));
    if !c.warnings.is_empty() {
        out.push_str("<ul class=\"warnings\">\n");
        for w in &c.warnings {
            let _ = writeln!(out, "<li>warning: {}</li>", esc(w));
        }
        out.push_str("</ul>\n");
    }
    match &c.table {
        Some(t) if c.sides.len() > 2 => {
            out.push_str("<h2>Key figures</h2>\n");
            out.push_str(&fleet::strips(t));
            out.push_str(&fleet::outlier_table(t));
        }
        _ => {
            out.push_str("<h2>B relative to A</h2>\n");
            out.push_str(&pair::bars(c));
            out.push_str(&pair::differences(c));
        }
    }
    if !c.missing.is_empty() {
        out.push_str("<h2>Missing lines</h2>\n<ul class=\"missing\">\n");
        for m in &c.missing {
            let _ = writeln!(out, "<li>{}</li>", esc(m));
        }
        out.push_str("</ul>\n");
    }
    let _ = write!(
        out,
        "<p class=\"foot\">Written by quickbench {} (<code>quickbench compare --html</code>).</p>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    out
}

/// Who the sides are: A and B, or the fleet's list (folded); then what
/// the verdicts mean.
fn who(c: &Comparison) -> String {
    let mut out = String::new();
    if c.sides.len() == 2 {
        out.push_str("<table class=\"who\">\n");
        for (n, ab) in ["A", "B"].iter().enumerate() {
            let _ = writeln!(
                out,
                "<tr><th>{ab}</th><td class=\"host\">{}</td><td>{}{}</td></tr>",
                esc(&c.sides[n].name),
                esc(&side_text(c, n)),
                if n == 0 { ", the reference" } else { "" }
            );
        }
        out.push_str("</table>\n");
    } else {
        let _ = writeln!(
            out,
            "<details class=\"who\"><summary>The {} hosts ({} reports)</summary>\n<table>\n<tr><th>host</th><th>reports, made by, when</th></tr>",
            c.sides.len(),
            c.reports.len()
        );
        for n in 0..c.sides.len() {
            let _ = writeln!(
                out,
                "<tr><td class=\"host\">{}</td><td>{}</td></tr>",
                esc(&c.sides[n].name),
                esc(&side_text(c, n))
            );
        }
        out.push_str("</table>\n</details>\n");
    }
    // the fleet page judges no pair: its strips carry their own legend
    let lines: Vec<String> = if c.sides.len() > 2 && c.table.is_some() {
        busy_legend(c).into_iter().collect()
    } else {
        legend(c)
    };
    out.push_str("<ul class=\"legend\">\n");
    for l in lines {
        let _ = writeln!(out, "<li>{}</li>", esc(&l));
    }
    out.push_str("</ul>\n");
    out
}

/// A figure with its unit: `25000 IO/s`, `30.9 GB/s`.
fn value_text(v: f64, unit: Unit) -> String {
    if unit.in_text() {
        unit.short(v)
    } else {
        format!("{} {unit}", unit.short(v))
    }
}

const CSS: &str = "\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d1d1f;background:#fff;margin:20px auto;max-width:1100px;padding:0 10px}
h1{font-size:21px;margin:0 0 8px}
h2{font-size:17px;margin:26px 0 6px;padding-bottom:3px;border-bottom:1px solid #ddd}
h3{font-size:14px;margin:16px 0 2px}
.unit{color:#666;font-weight:normal;font-size:13px}
.legend,.lacking,.foot,.notes{color:#555;font-size:13px}
.lacking{margin:0 0 0 24px}
.warnings{color:#8a5300}
table{border-collapse:collapse;margin:6px 0}
th,td{border-bottom:1px solid #e4e4e4;padding:3px 10px;text-align:left;vertical-align:top}
th{font-weight:600;background:#f6f6f6}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.host{font-weight:600;white-space:nowrap}
td.fig{white-space:nowrap}
summary{cursor:pointer;color:#333}
svg{display:block;max-width:100%;height:auto;overflow:visible}
table.pair td{vertical-align:middle}
table.pair td.bar{padding:0 6px}
table.pair svg{max-width:none}
table.pair td.fig{white-space:normal}
table.pair th.num{text-align:right}
tr.section th{background:none;border-bottom:none;padding:14px 0 0}
tr.notes td{border-bottom:none}
td.words .detail{font-size:12px;color:#555;font-weight:normal}
td.words.better{color:#2e7d32;font-weight:600}td.words.worse{color:#c62828;font-weight:600}
td.words.equal{color:#555}td.words.unsure{color:#55557a}td.words.other{color:#a86f00}
svg text{font:12px system-ui,-apple-system,'Segoe UI',sans-serif;fill:#222;white-space:pre}
svg text.tick{fill:#666;font-size:12px}
line.axis,line.tick{stroke:#999;stroke-width:1}
line.median{stroke:#111;stroke-width:2}
text.median{font-weight:600}
circle.dot{fill:#2f6db5;fill-opacity:.7;stroke:#fff;stroke-width:1}
circle.dot.nc{fill:#fff;fill-opacity:1;stroke:#888;stroke-width:1.5}
circle.dot.out{fill:#d0312d;fill-opacity:1;stroke:#fff}
text.oname{fill:#b3221e;font-weight:600}
tspan.oval{fill:#555;font-weight:normal}
rect.band{fill:#dedede}
line.centre{stroke:#111;stroke-width:1.5}
.bar.better{fill:#2e7d32}.bar.worse{fill:#c62828}.bar.equal{fill:#8d8d8d}.bar.unsure{fill:#b9b9d6}.bar.other{fill:#c98a00}
path.whisker{stroke:#111;stroke-width:1.5;fill:none}
text.words.better{fill:#2e7d32;font-weight:600}text.words.worse{fill:#c62828;font-weight:600}
text.words.equal{fill:#555}text.words.unsure{fill:#55557a}text.words.other{fill:#a86f00}
text.values{fill:#444}
.sw{display:inline-block;width:10px;height:10px;border-radius:50%;vertical-align:-1px;margin:0 3px 0 8px}
.sw.out{background:#d0312d}.sw.nc{border:1.5px solid #888;width:8px;height:8px}
.sw.better{background:#2e7d32;border-radius:2px}.sw.worse{background:#c62828;border-radius:2px}.sw.equal{background:#8d8d8d;border-radius:2px}.sw.unsure{background:#b9b9d6;border-radius:2px}
";
