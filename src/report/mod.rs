//! The text report: turns the measuring modules' plain structs into the
//! exact lines of the Quickbench report, and writes them line by line,
//! flushed as each figure is known, with one blank line between sections.

use std::io::{self, Write};

pub mod extended;
pub mod json;

use crate::cpu_loop::LoopStep;
use crate::membw::DdBandwidth;
use crate::progress::Progress;
use crate::units::dd_rate;

/// The version of the bash original whose report this port reproduces.
pub const ORIGINAL_VERSION: &str = "1.0";

/// What the header states so that two reports can be compared.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Header {
    /// This port's version (Cargo.toml).
    pub port_version: String,
    /// What `uname -a` prints.
    pub kernel: String,
    /// `rustc --version` at build time.
    pub rustc: String,
    /// The target triple built for.
    pub target: String,
    /// True for a statically linked executable.
    pub static_build: bool,
    /// The CPU loop's definition version.
    pub loop_version: u32,
    /// A few words on what one loop is.
    pub loop_description: String,
}

impl Header {
    /// The header of this build, for the given `uname -a` text.
    pub fn this_build(kernel: String) -> Header {
        Header {
            port_version: env!("CARGO_PKG_VERSION").to_string(),
            kernel,
            rustc: env!("QB_RUSTC_VERSION").to_string(),
            target: env!("QB_TARGET").to_string(),
            static_build: cfg!(target_feature = "crt-static"),
            loop_version: crate::cpu_loop::LOOP_VERSION,
            loop_description: crate::cpu_loop::LOOP_DESCRIPTION.to_string(),
        }
    }

    /// The four header lines.
    pub fn lines(&self) -> Vec<String> {
        vec![
            format!(
                "Quickbench: {} (Rust port of Bearstech's Quickbench {ORIGINAL_VERSION})",
                self.port_version
            ),
            format!("Kernel    : {}", self.kernel),
            format!(
                "Build     : {}, {}, {}",
                self.rustc,
                self.target,
                if self.static_build {
                    "static"
                } else {
                    "dynamic"
                }
            ),
            format!(
                "CPU loop  : loop v{} ({}), not comparable with the bash original's figures",
                self.loop_version, self.loop_description
            ),
        ]
    }
}

/// `printf "%2d // jobs : %10d loop/job/s"` (the figure truncated).
pub fn cpu_loop_line(step: &LoopStep) -> String {
    let line = format!(
        "{:2} // jobs : {:10} loop/job/s",
        step.jobs,
        step.loops_per_s_mean.max(0.0) as u64
    );
    mark_cut(line, step.cut_short)
}

/// A line measured for less than the loop delay (Ctrl-C) says so, as the
/// storage lines do.
fn mark_cut(mut line: String, cut_short: bool) -> String {
    if cut_short {
        line.push_str(" (interrupted)");
    }
    line
}

/// `Total    : <MemTotal kB >> 10> MB`.
pub fn memory_total_line(mem_total_kib: u64) -> String {
    format!("Total    : {} MB", mem_total_kib >> 10)
}

/// `Bandwidth: <GNU dd's rate text>`.
pub fn memory_bandwidth_line(bw: &DdBandwidth) -> String {
    mark_cut(
        format!("Bandwidth: {}", dd_rate(bw.bytes, bw.elapsed_ns)),
        bw.cut_short,
    )
}

/// Writes the report line by line, flushing each one, with one blank line
/// before every section title but the first block. The progress display
/// (stderr) is erased before each line, and warnings go through
/// [`Report::warn`] so they never mix with it.
pub struct Report<W: Write> {
    out: W,
    started: bool,
    progress: Progress,
}

impl<W: Write> Report<W> {
    /// A report written to `out`, without progress display.
    pub fn new(out: W) -> Self {
        Report::with_progress(out, Progress::disabled())
    }

    /// A report written to `out`, with a progress display on stderr.
    pub fn with_progress(out: W, progress: Progress) -> Self {
        Report {
            out,
            started: false,
            progress,
        }
    }

    /// The progress display.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Writes `[ title ]`, after a blank line when something came before.
    pub fn section(&mut self, title: &str) -> io::Result<()> {
        if self.started {
            self.raw_line("")?;
        }
        self.line(&format!("[ {title} ]"))
    }

    /// Writes one line and flushes it (the progress line erased first).
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        self.started = true;
        self.raw_line(text)
    }

    fn raw_line(&mut self, text: &str) -> io::Result<()> {
        let out = &mut self.out;
        self.progress.cleared(|| {
            writeln!(out, "{text}")?;
            out.flush()
        })
    }

    /// Writes several lines.
    pub fn lines<S: AsRef<str>>(&mut self, lines: &[S]) -> io::Result<()> {
        for l in lines {
            self.line(l.as_ref())?;
        }
        Ok(())
    }

    /// A message on stderr (`quickbench: ...`), the progress line erased
    /// first.
    pub fn warn(&self, msg: &str) {
        self.progress.cleared(|| stderr_line(msg));
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Writes `quickbench: <msg>` on stderr, ignoring a failure (a full disk or
/// a closed pipe on stderr must not stop the report).
pub fn stderr_line(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "quickbench: {msg}");
}

/// `[ Storage bandwidth - 4k blocks (vda) ]`, saying when memory or the
/// page cache is measured instead of a device.
pub fn storage_bandwidth_title(
    block_label: &str,
    device: &str,
    memory_fs: Option<&str>,
    direct_io: bool,
) -> String {
    let mut what = device.to_string();
    if let Some(fs) = memory_fs {
        if fs == device {
            what = format!("{fs}: memory, not a disk");
        } else {
            what = format!("{device} on {fs}: memory, not a disk");
        }
    }
    if !direct_io {
        what.push_str(", buffered: page cache");
    }
    format!("Storage bandwidth - {block_label} blocks ({what})")
}

/// A deterministic stand-in storage line for tests (`--fake-figures`):
/// 1 job does 100 MB/s at 4k; more jobs scale it.
pub fn fake_line(
    block_size_bytes: u64,
    direction: crate::dd_io::Direction,
    jobs: u32,
) -> crate::dd_io::LineResult {
    let iops = if block_size_bytes <= 4096 {
        25_000.0
    } else {
        900.0
    } * f64::from(jobs.min(4));
    let lat_us = f64::from(jobs) * 1e6 / iops;
    let ios = iops as u64;
    crate::dd_io::LineResult {
        bytes: ios * block_size_bytes,
        ios,
        elapsed_ns: 1_000_000_000,
        mb_per_s: (ios * block_size_bytes) as f64 / 1e6,
        iops,
        lat_mean_us: lat_us,
        lat_p50_us: lat_us,
        lat_p90_us: lat_us,
        lat_p99_us: lat_us,
        lat_p999_us: lat_us,
        lat_max_us: lat_us,
        file_size_bytes: 1 << 30,
        ..crate::dd_io::LineResult::empty(block_size_bytes, direction, jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(jobs: u32, rate: f64) -> LoopStep {
        LoopStep {
            jobs,
            loops_per_s_each: vec![rate; jobs as usize],
            loops_per_s_mean: rate,
            elapsed_ns: 1,
            cut_short: false,
            conditions: None,
        }
    }

    #[test]
    fn cpu_loop_lines_have_the_seed_layout() {
        assert_eq!(
            cpu_loop_line(&step(1, 374_339.9)),
            " 1 // jobs :     374339 loop/job/s"
        );
        assert_eq!(
            cpu_loop_line(&step(16, 1_234_567_890.0)),
            "16 // jobs : 1234567890 loop/job/s"
        );
    }

    #[test]
    fn memory_lines_have_the_seed_layout() {
        assert_eq!(memory_total_line(24_683_584), "Total    : 24105 MB");
        let bw = DdBandwidth {
            bytes: 30_900_000_000,
            elapsed_ns: 1_000_000_001,
            cut_short: false,
        };
        assert_eq!(memory_bandwidth_line(&bw), "Bandwidth: 30.9 GB/s");
    }

    #[test]
    fn header_labels_are_padded_to_ten_columns() {
        let h = Header::this_build("Linux vm 6.1 #1 x86_64 GNU/Linux".into());
        let lines = h.lines();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("Quickbench: "));
        assert_eq!(lines[1], "Kernel    : Linux vm 6.1 #1 x86_64 GNU/Linux");
        for l in &lines[1..] {
            assert_eq!(&l[10..12], ": ", "{l}");
        }
        assert!(lines[3].contains("not comparable with the bash original"));
    }

    #[test]
    fn sections_are_separated_by_one_blank_line() {
        let mut r = Report::new(Vec::new());
        r.line("head").unwrap();
        r.section("CPU loop").unwrap();
        r.line("x").unwrap();
        r.section("Memory").unwrap();
        let out = String::from_utf8(r.into_inner()).unwrap();
        assert_eq!(out, "head\n\n[ CPU loop ]\nx\n\n[ Memory ]\n");
    }
}
