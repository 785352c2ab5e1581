//! `/proc/vmstat`: the swap and fault counters a step is judged by.
//! `pswpin`/`pswpout` count pages swapped in and out since boot (every
//! kernel since 2.6), `pgmajfault` the page faults that waited for I/O
//! (swap-ins and file pages read back alike).

use serde::{Deserialize, Serialize};

use crate::Sysroot;

/// The swap and fault counters of `/proc/vmstat`, pages and faults since
/// boot; a key the kernel lacks is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vmstat {
    /// `pswpin`: pages read back from swap.
    pub pswpin: Option<u64>,
    /// `pswpout`: pages written out to swap.
    pub pswpout: Option<u64>,
    /// `pgmajfault`: faults that waited for a read.
    pub pgmajfault: Option<u64>,
}

/// The counters of a `/proc/vmstat` text.
pub fn parse_vmstat(text: &str) -> Vmstat {
    let mut v = Vmstat::default();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let (Some(k), Some(n)) = (f.next(), f.next().and_then(|n| n.parse().ok())) else {
            continue;
        };
        match k {
            "pswpin" => v.pswpin = Some(n),
            "pswpout" => v.pswpout = Some(n),
            "pgmajfault" => v.pgmajfault = Some(n),
            _ => {}
        }
    }
    v
}

/// Reads the sysroot's `/proc/vmstat`; `None` when it cannot be read.
pub fn read_vmstat(sys: &Sysroot) -> Option<Vmstat> {
    sys.read_to_string("/proc/vmstat")
        .ok()
        .map(|t| parse_vmstat(&t))
}

/// What moved between two reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapDelta {
    /// Pages swapped in.
    pub pages_in: u64,
    /// Pages swapped out.
    pub pages_out: u64,
    /// Major faults.
    pub major_faults: u64,
}

impl Vmstat {
    /// What moved from `self` (earlier) to `later`; `None` without the
    /// swap counters. A counter going back counts 0.
    pub fn delta(&self, later: &Vmstat) -> Option<SwapDelta> {
        let d = |a: Option<u64>, b: Option<u64>| Some(b?.saturating_sub(a?));
        Some(SwapDelta {
            pages_in: d(self.pswpin, later.pswpin)?,
            pages_out: d(self.pswpout, later.pswpout)?,
            major_faults: d(self.pgmajfault, later.pgmajfault).unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_vms_vmstat_excerpt() {
        // /proc/vmstat of this VM (kernel 6.18), the lines around the keys.
        let t = "nr_free_pages 1822104\npgpgin 1391732\npgpgout 2116484\npswpin 0\npswpout 0\npgalloc_dma 0\npgfault 41519282\npgmajfault 4235\n";
        let v = parse_vmstat(t);
        assert_eq!(
            v,
            Vmstat {
                pswpin: Some(0),
                pswpout: Some(0),
                pgmajfault: Some(4235)
            }
        );
        let later = parse_vmstat("pswpin 12\npswpout 300\npgmajfault 4240\n");
        assert_eq!(
            v.delta(&later),
            Some(SwapDelta {
                pages_in: 12,
                pages_out: 300,
                major_faults: 5
            })
        );
        // A kernel without swap accounting: no delta, not zero.
        assert_eq!(parse_vmstat("pgfault 3\n").delta(&later), None);
    }
}
