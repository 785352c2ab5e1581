//! The CPUs' clock during a CPU loop step, read by the step's one
//! [`super::Sampler`]: when the step starts, every [`ClockReader::INTERVAL`]
//! while it runs (when the runner polls), and when it ends. In a VM
//! without cpufreq, `cpu MHz` is often the nominal (TSC) clock, not the
//! real one; the source says which was read.

use std::cell::Cell;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::sysinfo::procstat::{read_mhz, MhzSource};
use crate::Sysroot;

/// What the CPUs went through during a CPU loop step, as `-x` prints it
/// (the `conditions` of a CPU loop step in the JSON).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// Share of the CPUs' time stolen by the hypervisor during the step,
    /// percent: the steal of the step's load (the CPUs the step used),
    /// which the steal mark judges.
    pub steal_percent: f64,
    /// Mean clock of the CPUs over the samples taken during the step, in
    /// MHz; `None` when no clock could be read.
    pub mean_mhz: Option<f64>,
    /// Where the clocks were read.
    pub mhz_source: MhzSource,
    /// Clock samples averaged into `mean_mhz`.
    pub mhz_samples: u32,
}

/// Averages the CPUs' clock over a step. `poll` takes `&self` so that it
/// can run inside the `&dyn Fn() -> bool` stop check that
/// [`crate::cpu_loop::run_step`] polls every 10 ms.
#[derive(Debug)]
pub struct ClockReader {
    sys: Sysroot,
    cpus: Vec<u32>,
    source: MhzSource,
    sum: Cell<f64>,
    count: Cell<u32>,
    last: Cell<Instant>,
}

fn mean(mhz: &[(u32, f64)]) -> Option<f64> {
    (!mhz.is_empty()).then(|| mhz.iter().map(|(_, m)| m).sum::<f64>() / mhz.len() as f64)
}

impl ClockReader {
    /// The least time between two clock samples of [`ClockReader::poll`].
    pub const INTERVAL: Duration = Duration::from_millis(500);

    /// Takes the first sample of the clocks of `cpus` (the CPUs of
    /// `/proc/stat`).
    pub fn start(sys: &Sysroot, cpus: &[u32]) -> ClockReader {
        let (source, mhz) = read_mhz(sys, cpus);
        let r = ClockReader {
            sys: sys.clone(),
            cpus: cpus.to_vec(),
            source,
            sum: Cell::new(0.0),
            count: Cell::new(0),
            last: Cell::new(Instant::now()),
        };
        r.add(mean(&mhz));
        r
    }

    fn add(&self, mhz: Option<f64>) {
        if let Some(m) = mhz {
            self.sum.set(self.sum.get() + m);
            self.count.set(self.count.get() + 1);
        }
    }

    /// Reads the clocks if [`ClockReader::INTERVAL`] passed since the last
    /// sample (a couple of small files); otherwise does nothing.
    pub fn poll(&self) {
        if self.last.get().elapsed() < Self::INTERVAL {
            return;
        }
        self.last.set(Instant::now());
        self.add(mean(&read_mhz(&self.sys, &self.cpus).1));
    }

    /// Takes the last sample: the step's clock, with the step's steal.
    pub fn finish(self, steal_percent: f64) -> Clock {
        self.add(mean(&read_mhz(&self.sys, &self.cpus).1));
        let n = self.count.get();
        Clock {
            steal_percent,
            mean_mhz: (n > 0).then(|| self.sum.get() / f64::from(n)),
            mhz_source: self.source,
            mhz_samples: n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(khz: &[(u32, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (c, k) in khz {
            let p = d
                .path()
                .join(format!("sys/devices/system/cpu/cpu{c}/cpufreq"));
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("scaling_cur_freq"), k).unwrap();
        }
        d
    }

    #[test]
    fn the_mean_of_the_samples_taken() {
        let d = dump(&[(0, "2000000\n"), (1, "3000000\n")]);
        let sys = Sysroot::new(d.path());
        let r = ClockReader::start(&sys, &[0, 1]);
        // Within the interval: no sample.
        r.poll();
        std::fs::write(
            d.path()
                .join("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"),
            "4000000\n",
        )
        .unwrap();
        let c = r.finish(1.5);
        assert_eq!(c.mhz_source, MhzSource::Cpufreq);
        assert_eq!(c.mhz_samples, 2);
        assert_eq!(c.mean_mhz, Some((2500.0 + 3500.0) / 2.0));
        assert_eq!(c.steal_percent, 1.5);
    }

    #[test]
    fn no_clock_anywhere() {
        let d = dump(&[]);
        let c = ClockReader::start(&Sysroot::new(d.path()), &[0]).finish(0.0);
        assert_eq!(c.mhz_source, MhzSource::None);
        assert_eq!((c.mean_mhz, c.mhz_samples), (None, 0));
        let j = serde_json::to_value(c).unwrap();
        assert_eq!(
            j,
            serde_json::json!({"steal_percent": 0.0, "mean_mhz": null, "mhz_source": "none", "mhz_samples": 0})
        );
    }
}
