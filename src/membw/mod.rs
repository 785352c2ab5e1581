//! The `[ Memory ]` step's Bandwidth: what the original measures with
//! `dd if=/dev/zero of=/dev/null bs=1M` for the loop delay, measured the same
//! way (1 MiB reads of `/dev/zero` into one buffer, each written to
//! `/dev/null`), without spawning dd. It is a cache-resident figure (the
//! buffer fits in L2), as the original's README admits; DRAM bandwidth
//! belongs in the extended report.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::end::End;
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
    let t0 = Instant::now();
    let mut cut_short = false;
    let elapsed = loop {
        let n = zero
            .read(buf)
            .with_context(|| format!("reading {}", zero_path.display()))?;
        null.write_all(&buf[..n])
            .with_context(|| format!("writing {}", null_path.display()))?;
        bytes += n as u64;
        let el = t0.elapsed();
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
    fn missing_dev_names_the_path_and_the_fix() {
        let d = tempfile::tempdir().unwrap();
        let e = measure(&Sysroot::new(d.path()), Duration::from_millis(1), &|| false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("dev/zero") && e.contains("mount"), "{e}");
    }
}
