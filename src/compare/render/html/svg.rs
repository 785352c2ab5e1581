//! The drawing pieces of the HTML page: escaping, a log scale and its
//! ticks, compact numbers, and a beeswarm that keeps dots apart.

/// `text` made inert in HTML text and in attribute values (host names and
/// file names come from the reports).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A logarithmic scale: `lo..hi` (both positive) onto pixels `x0..x1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogScale {
    pub lo: f64,
    pub hi: f64,
    pub x0: f64,
    pub x1: f64,
}

impl LogScale {
    /// The pixel of `v`; values outside the domain (zero included) sit on
    /// its edge.
    pub fn x(&self, v: f64) -> f64 {
        let v = if v.is_finite() {
            v.clamp(self.lo, self.hi)
        } else {
            self.lo
        };
        self.x0 + (v / self.lo).ln() / (self.hi / self.lo).ln() * (self.x1 - self.x0)
    }
}

/// The domain of a log scale showing every positive value of `values`:
/// at least a factor `min_ratio` wide (so that equal hosts do not spread
/// over the whole width), with a margin of 4 % of the width each side.
/// `None` when no value is positive.
pub fn domain(values: impl IntoIterator<Item = f64>, min_ratio: f64) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(None, |acc: Option<(f64, f64)>, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })?;
    if hi / lo < min_ratio {
        let centre = (lo * hi).sqrt();
        lo = centre / min_ratio.sqrt();
        hi = centre * min_ratio.sqrt();
    }
    let margin = (hi / lo).powf(0.04);
    Some((lo / margin, hi * margin))
}

/// Round values to label an axis from `lo` to `hi`: 1, 2, 5 times powers
/// of ten over more than a factor 20, else evenly spaced round numbers
/// (about five; on a narrow log scale they look evenly spaced too).
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    if hi / lo > 20.0 {
        let mut out = Vec::new();
        let mut decade = 10f64.powi(lo.log10().floor() as i32);
        while decade <= hi {
            for m in [1.0, 2.0, 5.0] {
                let t = m * decade;
                if t >= lo && t <= hi {
                    out.push(t);
                }
            }
            decade *= 10.0;
        }
        return out;
    }
    let raw = (hi - lo) / 5.0;
    let mag = 10f64.powi(raw.log10().floor() as i32);
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut out = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi {
        out.push(t);
        t += step;
    }
    out
}

/// `v` in at most three significant digits with an SI prefix: `400M`,
/// `25k`, `3.77k`, `40`, `0.5`.
pub fn si(v: f64) -> String {
    let (div, prefix) = match v.abs() {
        a if a >= 1e12 => (1e12, "T"),
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e3 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / div;
    let digits = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    let mut s = format!("{x:.digits$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    s + prefix
}

/// Lanes for dots at pixels `xs`, so that dots `spacing` pixels wide do
/// not overlap: lane 0 is the axis, then +1, -1, +2, -2 ... up to
/// `max_side` each way; when every lane is taken near a dot, the lane
/// whose last dot is farthest. Returns each dot's lane, in input order.
pub fn swarm(xs: &[f64], spacing: f64, max_side: i32) -> Vec<i32> {
    let lanes: Vec<i32> = (0..=max_side)
        .flat_map(|k| if k == 0 { vec![0] } else { vec![k, -k] })
        .collect();
    let mut last: Vec<Option<f64>> = vec![None; lanes.len()];
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut out = vec![0; xs.len()];
    for i in order {
        let x = xs[i];
        let free = last.iter().position(|l| l.is_none_or(|l| x - l >= spacing));
        let k = free.unwrap_or_else(|| {
            (0..lanes.len())
                .min_by(|&a, &b| {
                    last[a]
                        .unwrap_or(f64::MIN)
                        .total_cmp(&last[b].unwrap_or(f64::MIN))
                })
                .unwrap_or(0)
        });
        last[k] = Some(x);
        out[i] = lanes[k];
    }
    out
}

/// A number for an SVG attribute: one decimal is finer than a pixel.
pub fn px(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}
