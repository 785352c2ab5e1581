//! A log-linear latency histogram (HdrHistogram-like), mergeable across jobs.
//!
//! Values are nanoseconds. Values below 64 get a bucket each; above, every
//! power-of-two range is split into 32 equal sub-buckets, so a reported
//! percentile is within 1/32 (about 3 %) of the true value. Recording is a
//! few integer operations and one array increment: no allocation, no branch
//! on the hot path beyond the small-value test.

/// Sub-buckets per power of two, as a power of two.
const SUB_BITS: u32 = 5;
/// Sub-buckets per power of two.
const SUB: u64 = 1 << SUB_BITS;
/// Number of buckets: enough for any `u64`.
const BUCKETS: usize = ((64 - SUB_BITS + 1) as usize) * SUB as usize;

/// Latency histogram of one line (or one job of it).
#[derive(Clone)]
pub struct Histogram {
    /// Completion count per bucket.
    counts_per_bucket: Box<[u64]>,
    /// Number of recorded values.
    count: u64,
    /// Sum of recorded values, in nanoseconds.
    sum_ns: u128,
    /// Smallest recorded value, in nanoseconds (`u64::MAX` when empty).
    min_ns: u64,
    /// Largest recorded value, in nanoseconds.
    max_ns: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram")
            .field("count", &self.count)
            .field("sum_ns", &self.sum_ns)
            .field("min_ns", &self.min_ns)
            .field("max_ns", &self.max_ns)
            .finish()
    }
}

/// The bucket of a value.
#[inline]
fn bucket_of(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros();
    let shift = msb - SUB_BITS;
    ((shift as u64 + 1) * SUB + ((v >> shift) - SUB)) as usize
}

/// The smallest and largest value of a bucket.
fn bucket_bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < 2 * SUB {
        return (i, i);
    }
    let shift = i / SUB - 1;
    let sub = i % SUB + SUB;
    let low = sub << shift;
    (low, low + ((1u64 << shift) - 1))
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Histogram {
            counts_per_bucket: vec![0; BUCKETS].into_boxed_slice(),
            count: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    /// Records one latency, in nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.counts_per_bucket[bucket_of(ns)] += 1;
        self.count += 1;
        self.sum_ns += ns as u128;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Adds all values of `other` to this histogram.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self
            .counts_per_bucket
            .iter_mut()
            .zip(other.counts_per_bucket.iter())
        {
            *a += b;
        }
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// Number of recorded values.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Mean, in nanoseconds (0 when empty).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    /// Largest recorded value, in nanoseconds (0 when empty).
    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// Smallest recorded value, in nanoseconds (0 when empty).
    pub fn min_ns(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min_ns
        }
    }

    /// The value below or at which `pct` percent of the recorded values
    /// lie: the top of the bucket holding that rank, clamped to the
    /// recorded minimum and maximum. 0 when empty.
    pub fn percentile_ns(&self, pct: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((pct / 100.0) * self.count as f64).ceil().max(1.0) as u64;
        let rank = rank.min(self.count);
        let mut seen = 0u64;
        for (i, &c) in self.counts_per_bucket.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (_, high) = bucket_bounds(i);
                return high.clamp(self.min_ns, self.max_ns);
            }
        }
        self.max_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_cover_their_values() {
        let mut prev_high = None;
        for i in 0..BUCKETS {
            let (low, high) = bucket_bounds(i);
            assert!(low <= high);
            if let Some(p) = prev_high {
                assert_eq!(low, p + 1, "gap before bucket {i}");
            }
            assert_eq!(bucket_of(low), i);
            assert_eq!(bucket_of(high), i);
            prev_high = Some(high);
        }
        assert_eq!(prev_high, Some(u64::MAX));
    }

    #[test]
    fn relative_error_is_within_one_thirty_second() {
        for v in [100u64, 999, 12_345, 1_000_000, 987_654_321, u64::MAX / 3] {
            let (low, high) = bucket_bounds(bucket_of(v));
            assert!((high - low) as f64 <= low as f64 / 32.0 + 1.0, "{v}");
        }
    }

    #[test]
    fn percentiles_of_a_uniform_ramp() {
        let mut h = Histogram::new();
        for v in 1..=10_000u64 {
            h.record(v * 1000);
        }
        assert_eq!(h.count(), 10_000);
        assert!((h.mean_ns() - 5_000_500.0).abs() < 1e-6);
        for (pct, want) in [
            (50.0, 5_000_000.0),
            (90.0, 9_000_000.0),
            (99.0, 9_900_000.0),
        ] {
            let got = h.percentile_ns(pct) as f64;
            assert!(
                (got - want).abs() / want < 1.0 / 32.0,
                "p{pct}: {got} vs {want}"
            );
        }
        assert_eq!(h.percentile_ns(100.0), 10_000_000);
        assert_eq!(h.max_ns(), 10_000_000);
        assert_eq!(h.min_ns(), 1000);
    }

    #[test]
    fn extreme_values_are_recorded() {
        let mut h = Histogram::new();
        h.record(u64::MAX);
        h.record(0);
        assert_eq!(h.percentile_ns(100.0), u64::MAX);
        assert_eq!(h.percentile_ns(50.0), 0);
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let mut a = Histogram::new();
        let mut b = Histogram::new();
        let mut all = Histogram::new();
        for v in 0..5000u64 {
            let x = v * v % 77_777 + 3;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a.merge(&b);
        assert_eq!(a.count(), all.count());
        assert_eq!(a.mean_ns(), all.mean_ns());
        for p in [50.0, 90.0, 99.0, 99.9] {
            assert_eq!(a.percentile_ns(p), all.percentile_ns(p));
        }
        assert_eq!((a.min_ns(), a.max_ns()), (all.min_ns(), all.max_ns()));
    }

    #[test]
    fn empty_histogram_reports_zeroes() {
        let h = Histogram::new();
        assert_eq!(h.percentile_ns(50.0), 0);
        assert_eq!(h.mean_ns(), 0.0);
        assert_eq!(h.min_ns(), 0);
    }
}
