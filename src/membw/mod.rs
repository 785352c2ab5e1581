//! The `[ Memory ]` step's Bandwidth: what the original measures with
//! `dd if=/dev/zero of=/dev/null bs=1M` for the loop delay, measured the same
//! way (1 MiB reads of `/dev/zero` into one buffer, each written to
//! `/dev/null`), without spawning dd. It is a cache-resident figure (the
//! buffer fits in L2), as the original's README admits; DRAM bandwidth
//! belongs in the extended report.
//!
//! The copy loop reads the clock after every block already (to stop at the
//! deadline); at each sub-interval boundary it also notes the bytes copied
//! since the last one: the step's samples ([`crate::samples`]), with no
//! other thread, lock or syscall.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::end::End;
use crate::samples::core::CoreProbe;
use crate::Sysroot;

pub mod dram;

/// dd's `bs=1M`.
pub const BLOCK_BYTES: usize = 1 << 20;

/// Alignment of the buffer (a page on every architecture Linux runs on is
/// at least 4 KiB; 64 KiB covers the largest).
const PAGE_ALIGN: usize = 64 << 10;

/// The dd-equivalent bandwidth measurement.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DdBandwidth {
    /// Bytes copied from `/dev/zero` to `/dev/null`.
    pub bytes: u64,
    /// Elapsed time from the first read to the last write, in nanoseconds.
    pub elapsed_ns: u64,
    /// Bytes per second in each sub-interval (`samples`,
    /// `sample_interval_ns`, `sample_summary`).
    #[serde(flatten)]
    pub samples: crate::samples::Samples,
    /// Complete, or cut short by Ctrl-C before the loop delay (`cut_short`
    /// in the JSON).
    #[serde(rename = "cut_short", with = "crate::end::cut_short")]
    pub end: End,
}

impl DdBandwidth {
    /// Bytes per second.
    pub fn bytes_per_s(&self) -> f64 {
        if self.elapsed_ns == 0 {
            return f64::INFINITY;
        }
        self.bytes as f64 * 1e9 / self.elapsed_ns as f64
    }
}

/// Copies `/dev/zero` to `/dev/null` in 1 MiB blocks for `duration` or
/// until `interrupted()`.
pub fn measure(
    sys: &Sysroot,
    duration: Duration,
    interrupted: &dyn Fn() -> bool,
) -> anyhow::Result<DdBandwidth> {
    let zero_path = sys.path("/dev/zero");
    let null_path = sys.path("/dev/null");
    let mut zero = File::open(&zero_path).with_context(|| {
        format!(
            "cannot open {} (is /dev mounted? mount -t devtmpfs dev /dev)",
            zero_path.display()
        )
    })?;
    let mut null = OpenOptions::new()
        .write(true)
        .open(&null_path)
        .with_context(|| {
            format!(
                "cannot open {} (is /dev mounted? mount -t devtmpfs dev /dev)",
                null_path.display()
            )
        })?;
    // Page-aligned, as dd's buffer is (alignment changes the kernel's copy speed).
    let mut backing = vec![0u8; BLOCK_BYTES + PAGE_ALIGN];
    let off = backing.as_ptr().align_offset(PAGE_ALIGN);
    let buf = &mut backing[off..off + BLOCK_BYTES];
    let mut bytes = 0u64;
    let mut sampler = crate::samples::plan(duration)
        .map(|interval| crate::samples::RateSampler::new(interval, 1.0).with_core());
    let mut probe = sampler.as_ref().map(|_| CoreProbe::start());
    let t0 = Instant::now();
    let mut cut_short = false;
    let elapsed = loop {
        let n = zero
            .read(buf)
            .with_context(|| format!("reading {}", zero_path.display()))?;
        null.write_all(&buf[..n])
            .with_context(|| format!("writing {}", null_path.display()))?;
        bytes += n as u64;
        if let Some(p) = &mut probe {
            p.done(n as u64);
        }
        let el = t0.elapsed();
        if let Some(s) = &mut sampler {
            if s.due(el) {
                let core = probe.as_ref().map(CoreProbe::totals);
                s.observe_core(el, bytes, core.unwrap_or_default());
            }
        }
        if el >= duration {
            break el;
        }
        if interrupted() {
            cut_short = true;
            break el;
        }
    };
    Ok(DdBandwidth {
        bytes,
        elapsed_ns: elapsed.as_nanos() as u64,
        samples: sampler
            .map(|s| {
                let core = probe.as_ref().map(CoreProbe::totals);
                s.finish_core(elapsed, bytes, core.unwrap_or_default())
            })
            .unwrap_or_default(),
        end: End::cut_if(cut_short),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_positive_rate_on_the_live_system() {
        if !std::path::Path::new("/dev/zero").exists() {
            eprintln!("skipped: no /dev/zero here");
            return;
        }
        let r = measure(&Sysroot::live(), Duration::from_millis(50), &|| false).unwrap();
        assert!(r.bytes >= BLOCK_BYTES as u64);
        assert_eq!(r.bytes % BLOCK_BYTES as u64, 0);
        assert!(r.bytes_per_s() > 1e8, "{r:?}");
    }

    #[test]
    fn the_copy_keeps_samples_whose_mean_is_near_its_figure() {
        if !std::path::Path::new("/dev/zero").exists() {
            eprintln!("skipped: no /dev/zero here");
            return;
        }
        let r = measure(&Sysroot::live(), Duration::from_millis(500), &|| false).unwrap();
        assert_eq!(r.samples.sample_interval_ns, Some(50_000_000));
        // one per 50 ms sub-interval, ten, or more when the last block
        // ended late (a preempted copy does not lose one)
        let n = r.samples.samples.len();
        let want = r.elapsed_ns as f64 / 5e7;
        assert!(
            n >= 5 && (n as f64 - want).abs() <= 1.0,
            "{n} samples: {r:?}"
        );
        let mean = r.samples.sample_summary.as_ref().unwrap().mean;
        let ratio = mean / r.bytes_per_s();
        assert!(
            (0.8..=1.2).contains(&ratio),
            "{mean} vs {}",
            r.bytes_per_s()
        );
    }

    #[test]
    fn missing_dev_names_the_path_and_the_fix() {
        let d = tempfile::tempdir().unwrap();
        let e = measure(&Sysroot::new(d.path()), Duration::from_millis(1), &|| false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("dev/zero") && e.contains("mount"), "{e}");
    }
}
