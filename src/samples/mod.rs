//! Sub-interval samples of a timed step's rate, as fio keeps its 500 ms
//! bandwidth samples (`bw min/max/avg/stdev/samples`): each step keeps the
//! rate of every sub-interval besides its figure, so that a comparison can
//! judge a difference against the step's own noise.
//!
//! Why taking them does not disturb the figure: docs/METHOD.md "Samples: taken
//! without disturbing the figure".
//!
//! Each step keeps its series' median, min, max, cv and 95 % interval as a
//! [`Summary`], [`crate::stats`]'s one definition.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::stats::Summary;

pub mod core;

use self::core::{CoreSamples, CoreTotals, CoreTrack};

/// The longest sub-interval: fio's default for its bandwidth log averages.
pub const MAX_INTERVAL: Duration = Duration::from_millis(500);

/// The shortest sub-interval: a few ticks of the 10 ms poll of the
/// waiting threads, so that a late wake-up does not dominate a sample.
pub const MIN_INTERVAL: Duration = Duration::from_millis(20);

/// The sub-interval of a step of `step`: 500 ms, or a tenth of the step
/// when that is shorter (10 samples), never below 20 ms. So a step of
/// 5 s or more gives one sample per 500 ms (60 in a 30 s step), and the
/// shortest loop delay (0.1 s) still gives 5. Whole milliseconds (down):
/// a trial of a sixth of a delay (1.8333 s) samples every 183 ms, as the
/// text's spread (`± 1.2 % (10 x 183 ms)`) says it.
pub fn interval_for(step: Duration) -> Duration {
    let ms = (step / 10).as_millis() as u64;
    Duration::from_millis(ms).clamp(MIN_INTERVAL, MAX_INTERVAL)
}

/// The hidden switch of `benches/sampling-overhead.sh`: `QB_NO_SAMPLES=1`
/// turns sampling off (no counter stored, none read), to measure what
/// sampling costs. Not meant for anything else.
pub const NO_SAMPLES_ENV: &str = "QB_NO_SAMPLES";

/// True unless [`NO_SAMPLES_ENV`] is `1` (read once).
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(NO_SAMPLES_ENV).is_none_or(|v| v != "1"))
}

/// The sub-interval for a step of `step`, or `None` when sampling is off.
pub fn plan(step: Duration) -> Option<Duration> {
    enabled().then(|| interval_for(step))
}

/// A step's samples: the rate of each sub-interval, in the figure's own
/// unit, and their summary. Empty when nothing was sampled (a report
/// written before samples existed, a report read from text, sampling off).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Samples {
    /// The rate over each sub-interval, in time order, in the figure's
    /// unit (loops/s per job, bytes/s, IO/s, GB/s).
    #[serde(default)]
    pub samples: Vec<f64>,
    /// The sub-interval, ns; `None` when each sample is one pass of a
    /// best-of-passes measurement (DRAM), or when there is no sample.
    #[serde(default)]
    pub sample_interval_ns: Option<u64>,
    /// Median, min, max, cv and the 95 % interval of `samples`.
    #[serde(default)]
    pub sample_summary: Option<Summary>,
    /// What a text report printed of samples it does not list (read back
    /// from its `± 1.2 % (60 x 500 ms)`); `None` for samples measured or
    /// read from JSON.
    #[serde(skip)]
    pub printed: Option<PrintedSpread>,
    /// What the core probe read in each sample (CPU loop and memory steps
    /// measured with it; `None` elsewhere and in older reports).
    #[serde(
        default,
        rename = "core_samples",
        skip_serializing_if = "Option::is_none"
    )]
    pub core: Option<CoreSamples>,
}

/// A step's spread as the text report prints it: how many samples, and
/// the half-width of the 95 % interval of the mean relative to the figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrintedSpread {
    /// Number of samples.
    pub n: usize,
    /// Percent of the figure, at the printed precision; `None` for `± ? %`
    /// (too few samples for an interval).
    pub half_width_percent: Option<f64>,
}

impl Samples {
    /// Samples `rates` taken every `interval` (`None`: one per pass), with
    /// their summary.
    pub fn new(rates: Vec<f64>, interval: Option<Duration>) -> Samples {
        Samples {
            sample_summary: Summary::of_finite(&rates),
            sample_interval_ns: interval
                .filter(|_| !rates.is_empty())
                .map(|d| d.as_nanos() as u64),
            samples: rates,
            printed: None,
            core: None,
        }
    }

    /// True when there is no sample.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Half the width of the 95 % interval as a percentage of `figure`
    /// (as printed, for samples read from text).
    pub fn half_width_percent(&self, figure: f64) -> Option<f64> {
        if self.samples.is_empty() {
            if let Some(p) = &self.printed {
                return p.half_width_percent;
            }
        }
        let half = self.sample_summary.as_ref()?.ci95_half_width()?;
        (figure > 0.0).then(|| 100.0 * half / figure)
    }

    /// How many samples there were: those listed, else those a text
    /// report said it had.
    pub fn count(&self) -> usize {
        match (&self.printed, self.samples.len()) {
            (Some(p), 0) => p.n,
            (_, n) => n,
        }
    }
}

/// A job's running count (loops, I/Os), alone on its cache line (two
/// lines: the adjacent-line prefetcher pairs them), so that a job's store
/// never invalidates another job's line.
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct Counter(AtomicU64);

impl Counter {
    /// Stores the job's running total (the job's own thread only).
    #[inline(always)]
    pub fn set(&self, total: u64) {
        self.0.store(total, Ordering::Relaxed);
    }

    /// The last total stored.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The sum of the counters' totals.
pub fn total(counters: &[Counter]) -> u64 {
    counters.iter().map(Counter::get).sum()
}

/// Turns a running count, observed now and then by a waiting thread, into
/// one rate per sub-interval of a fixed grid from the step's start. Times
/// are offsets from the start on the monotonic clock.
///
/// An observation can come late, or miss a boundary (the observer was not
/// scheduled, or is the job itself and was preempted): the count then
/// only tells the mean rate over the whole span since the previous
/// observation, and each sub-interval the span ended gets that rate. So
/// every sub-interval has one sample and each stands for the same time:
/// the samples' plain mean stays the step's own mean rate, and a pause
/// shows as low samples, not as one sample among many.
#[derive(Debug, Clone)]
pub struct RateSampler {
    interval: Duration,
    /// Each rate is divided by this (the jobs, for a per-job rate).
    per: f64,
    last_at: Duration,
    last_count: u64,
    next: Duration,
    rates: Vec<f64>,
    core: Option<CoreTrack>,
}

impl RateSampler {
    /// A sampler of sub-intervals of `interval` from the step's start
    /// (count 0), whose rates are divided by `per`.
    pub fn new(interval: Duration, per: f64) -> RateSampler {
        let interval = interval.max(Duration::from_micros(1));
        RateSampler {
            interval,
            per: if per > 0.0 { per } else { 1.0 },
            last_at: Duration::ZERO,
            last_count: 0,
            next: interval,
            rates: Vec::new(),
            core: None,
        }
    }

    /// The same, also keeping the core probe's readings of each sample
    /// (given to [`RateSampler::observe_core`] and
    /// [`RateSampler::finish_core`]).
    pub fn with_core(mut self) -> RateSampler {
        self.core = Some(CoreTrack::default());
        self
    }

    /// True when a boundary passed at `at`: time to read the counters.
    #[inline]
    pub fn due(&self, at: Duration) -> bool {
        at >= self.next
    }

    /// Index of the sub-interval holding `at`.
    fn slot(&self, at: Duration) -> u128 {
        at.as_nanos() / self.interval.as_nanos()
    }

    /// The count was `count` at `at`: records one sample for each
    /// sub-interval that ended since the last observation.
    pub fn observe(&mut self, at: Duration, count: u64) {
        self.observe_core(at, count, CoreTotals::default());
    }

    /// [`RateSampler::observe`], with the jobs' core probe totals then.
    pub fn observe_core(&mut self, at: Duration, count: u64, core: CoreTotals) {
        if !self.due(at) {
            return;
        }
        let ended = self.slot(at) - self.slot(self.last_at);
        self.push(at, count, ended, core);
        self.next = self.interval * ((self.slot(at) + 1) as u32);
    }

    /// Records `times` samples of the rate since the last observation.
    fn push(&mut self, at: Duration, count: u64, times: u128, core: CoreTotals) {
        let dt = at.saturating_sub(self.last_at).as_secs_f64();
        if dt > 0.0 {
            let n = count.saturating_sub(self.last_count);
            let rate = n as f64 / dt / self.per;
            self.rates.extend(std::iter::repeat_n(rate, times as usize));
            if let Some(c) = &mut self.core {
                c.record(core, n, dt * 1e9, self.per, times as usize);
            }
        }
        self.last_at = at;
        self.last_count = count;
    }

    /// The step ended at `at` with `count`: the sub-intervals ended since
    /// the last observation, and the last, partial one when it lasted at
    /// least half an interval (a shorter one would be noise on a few
    /// ticks; its time is left out).
    pub fn finish(self, at: Duration, count: u64) -> Samples {
        self.finish_core(at, count, CoreTotals::default())
    }

    /// [`RateSampler::finish`], with the jobs' core probe totals at the end.
    pub fn finish_core(mut self, at: Duration, count: u64, core: CoreTotals) -> Samples {
        if at > self.last_at {
            let ended = self.slot(at) - self.slot(self.last_at);
            let tail_from = self.last_at.max(self.interval * (self.slot(at) as u32));
            let partial = at - tail_from >= self.interval / 2;
            self.push(at, count, ended + u128::from(partial), core);
        }
        let mut s = Samples::new(self.rates, Some(self.interval));
        s.core = self.core.map(|c| c.samples);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn assert_near(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{got:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                "{got:?} != {want:?}"
            );
        }
    }

    #[test]
    fn the_interval_is_500_ms_or_a_tenth_never_below_20_ms() {
        assert_eq!(interval_for(Duration::from_secs(30)), 500 * MS);
        assert_eq!(interval_for(Duration::from_secs(5)), 500 * MS);
        assert_eq!(interval_for(Duration::from_secs(3)), 300 * MS);
        assert_eq!(interval_for(Duration::from_millis(500)), 50 * MS);
        assert_eq!(interval_for(Duration::from_millis(100)), 20 * MS);
        assert_eq!(interval_for(Duration::from_millis(10)), 20 * MS);
        assert_eq!(interval_for(Duration::from_secs(11) / 6), 183 * MS);
        // at least 5 samples down to the shortest loop delay (0.1 s)
        for ms in [100u64, 150, 999, 4_000, 30_000, 600_000] {
            let d = Duration::from_millis(ms);
            assert!(d.as_nanos() / interval_for(d).as_nanos() >= 5, "{ms} ms");
        }
    }

    #[test]
    fn a_steady_count_on_a_fake_clock_gives_its_rate() {
        // 1000 per ms, observed every 10 ms (each poll 1 ms late), 3 s in
        // 500 ms sub-intervals, per job of 2 jobs: 500 000 per second each.
        let mut s = RateSampler::new(500 * MS, 2.0);
        let mut t = Duration::ZERO;
        while t < Duration::from_secs(3) {
            let at = t + MS;
            s.observe(at, 1000 * at.as_millis() as u64);
            t += 10 * MS;
        }
        let samples = s.finish(Duration::from_secs(3), 3_000_000);
        assert_eq!(samples.samples.len(), 6, "{samples:?}");
        for r in &samples.samples {
            assert!((r - 500_000.0).abs() < 1e-6, "{samples:?}");
        }
        assert_eq!(samples.sample_interval_ns, Some(500_000_000));
        let sum = samples.sample_summary.unwrap();
        assert_eq!(sum.n, 6);
        assert!(sum.cv.unwrap() < 1e-9);
    }

    #[test]
    fn a_missed_boundary_gives_each_sub_interval_the_rate_of_its_span() {
        let mut s = RateSampler::new(100 * MS, 1.0);
        s.observe(105 * MS, 100);
        // 200 and 300 missed: 250 counts over 250 ms, for two sub-intervals
        s.observe(355 * MS, 350);
        assert!(!s.due(399 * MS));
        s.observe(400 * MS, 440);
        let out = s.finish(410 * MS, 455);
        // the last 10 ms are under half an interval: not a sample
        assert_near(&out.samples, &[100.0 / 0.105, 1000.0, 1000.0, 2000.0]);
        // a pause of the observer at the end: each ended sub-interval
        // gets the rate of the span, and the last half interval counts
        let mut s = RateSampler::new(100 * MS, 1.0);
        s.observe(100 * MS, 100);
        let out = s.finish(360 * MS, 100);
        assert_near(&out.samples, &[1000.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn the_plain_mean_of_the_samples_is_the_steps_mean_rate() {
        // 10 s at 1000 per second observed every 10 ms, but the observer
        // is away for 2 s in the middle while the count stops: the
        // samples' mean is the step's mean (800 per second), as if each
        // sub-interval had been observed.
        let mut s = RateSampler::new(500 * MS, 1.0);
        let count = |t: u64| {
            if t < 4_000 {
                t
            } else if t < 6_000 {
                4_000
            } else {
                t - 2_000
            }
        };
        let mut t = 10u64;
        while t <= 10_000 {
            if !(4_000..6_000).contains(&t) {
                s.observe(Duration::from_millis(t), count(t));
            }
            t += 10;
        }
        let out = s.finish(Duration::from_secs(10), count(10_000));
        assert_eq!(out.samples.len(), 20);
        let mean = out.sample_summary.unwrap().mean;
        assert!((mean - 800.0).abs() < 1.0, "{mean}: {:?}", out.samples);
    }

    #[test]
    fn a_change_of_rate_shows_in_the_samples() {
        let mut s = RateSampler::new(100 * MS, 1.0);
        s.observe(100 * MS, 100);
        s.observe(200 * MS, 300);
        let out = s.finish(260 * MS, 360);
        assert_near(&out.samples, &[1000.0, 2000.0, 1000.0]);
        let sum = out.sample_summary.unwrap();
        assert_near(&[sum.min, sum.max, sum.median], &[1000.0, 2000.0, 1000.0]);
    }

    #[test]
    fn nothing_observed_gives_no_sample() {
        let out = RateSampler::new(500 * MS, 1.0).finish(100 * MS, 5);
        assert!(out.is_empty());
        assert_eq!(out.sample_interval_ns, None);
        assert_eq!(out.sample_summary, None);
        assert_eq!(out.half_width_percent(1.0), None);
    }

    #[test]
    fn counters_sit_on_their_own_cache_lines() {
        let c = [Counter::default(), Counter::default()];
        let a = &c[0] as *const Counter as usize;
        let b = &c[1] as *const Counter as usize;
        assert!(b - a >= 128 && a % 128 == 0);
        c[0].set(5);
        c[1].set(7);
        assert_eq!(total(&c), 12);
    }

    #[test]
    fn samples_read_back_and_old_steps_without_them_read() {
        let s = Samples::new(vec![1.0, 2.0, 3.0, 4.0], Some(500 * MS));
        let back: Samples = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let old: Samples = serde_json::from_str("{}").unwrap();
        assert_eq!(old, Samples::default());
        // two batches ([1, 2], [3, 4]): t(1) · sd(1.5, 3.5) / √2 = 12.7062,
        // of a figure of 2.5 (scipy.stats.t.ppf(0.975, 1) = 12.706204736174694)
        let want = 100.0 * 12.706204736174694 / 2.5;
        assert!((s.half_width_percent(2.5).unwrap() - want).abs() < 1e-6);
        assert_eq!(
            Samples::new(vec![1.0, 2.0, 3.0], None).half_width_percent(2.0),
            None
        );
    }
}
