//! A percentile bootstrap interval of the ratio of medians of two samples.
//!
//! This is an alternative view, reported next to the verdict but not used
//! by it: with 3 to 10 trials a side the bootstrap distribution of a median
//! has only a handful of distinct values and percentile intervals are known
//! to cover less than they claim at such sizes (Efron & Tibshirani, *An
//! Introduction to the Bootstrap*, 1993, §13.3 and ch. 14; Hall, *The
//! Bootstrap and Edgeworth Expansion*, 1992), whereas the Moses interval
//! of [`super::rank`] is exact by construction. It is useful where the
//! ratio of *medians* is the figure people quote.
//!
//! Its cost, measured: docs/METHOD.md "The bootstrap's cost".

use super::describe::{median, quantile_sorted};
use super::rng::Rng;

/// Resamples per interval: enough for the 2.5 % and 97.5 % points to move
/// by well under a percent of the ratio between seeds, bounded for speed.
pub const RESAMPLES: usize = 2_000;

/// At most this many values drawn for one interval.
pub const MAX_DRAWS: usize = 40_000;
/// But never fewer resamples than this (10 in each 2.5 % tail).
pub const MIN_RESAMPLES: usize = 400;

/// The resamples to draw for an interval of `values` values in all when
/// `wanted` are asked for: `wanted` up to 20 values, then fewer so that at
/// most [`MAX_DRAWS`] values are drawn, but at least [`MIN_RESAMPLES`]
/// (large samples have smooth bootstrap distributions that need fewer).
pub fn resamples_for(values: usize, wanted: usize) -> usize {
    if wanted == 0 {
        return 0;
    }
    wanted.min((MAX_DRAWS / values.max(1)).max(MIN_RESAMPLES))
}

/// The median of `buf`, reordered in place (selection, no full sort): the
/// reference [`Ranked`] is tested against.
#[cfg(test)]
fn median_in_place(buf: &mut [f64]) -> f64 {
    let n = buf.len();
    let (_, &mut upper, _) = buf.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        let lower = buf[..n / 2]
            .iter()
            .copied()
            .max_by(f64::total_cmp)
            .unwrap_or(upper);
        0.5 * (lower + upper)
    }
}

/// One side of the bootstrap, sorted once: a resample is counted by the
/// rank of each value drawn, and its median read from the counts. The
/// draws are those of drawing the values themselves (same index, same
/// order), and the median the same order statistics of the same values,
/// so the interval is the one of resampling values and selecting their
/// median, without moving values at each resample.
struct Ranked {
    /// The values in order.
    sorted: Vec<f64>,
    /// For each value of the side, its place in `sorted`.
    rank: Vec<usize>,
    /// How many times each rank was drawn in the current resample.
    count: Vec<u32>,
}

impl Ranked {
    fn new(values: &[f64]) -> Ranked {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
        let mut rank = vec![0; values.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        Ranked {
            sorted: order.iter().map(|&i| values[i]).collect(),
            rank,
            count: vec![0; values.len()],
        }
    }

    /// The median of one resample of as many values, drawn by `rng`.
    fn resample_median(&mut self, rng: &mut Rng) -> f64 {
        let n = self.rank.len();
        if n <= PACKED_MAX {
            return self.resample_median_packed(rng);
        }
        self.count.iter_mut().for_each(|c| *c = 0);
        for _ in 0..n {
            self.count[self.rank[rng.below(n as u64) as usize]] += 1;
        }
        // The (n/2)-th value drawn (from 0), and for an even count the
        // one before it: the two middle order statistics.
        let upper_at = n / 2;
        let (mut seen, mut lower, mut upper) = (0usize, None, None);
        for (r, &c) in self.count.iter().enumerate() {
            let next = seen + c as usize;
            if lower.is_none() && upper_at >= 1 && next > upper_at - 1 {
                lower = Some(self.sorted[r]);
            }
            if next > upper_at {
                upper = Some(self.sorted[r]);
                break;
            }
            seen = next;
        }
        let upper = upper.expect("n draws reach the middle");
        if n % 2 == 1 {
            upper
        } else {
            0.5 * (lower.unwrap_or(upper) + upper)
        }
    }
}

/// Sides up to this size count their draws in the byte lanes of a `u128`.
const PACKED_MAX: usize = 16;

impl Ranked {
    /// [`Ranked::resample_median`] for a side of at most [`PACKED_MAX`]
    /// values, the same draws and the same order statistics: the count of
    /// each rank is a byte lane of one `u128` (a count is at most 16), one
    /// multiplication by 0x0101…01 turns the counts into running sums (lane
    /// r: draws of rank r or below, at most 16, so no lane carries into the
    /// next), and the first lane whose running sum exceeds k is found in
    /// all lanes at once: adding 127 − k to a lane sets its top bit exactly
    /// when the lane exceeds k (Warren, *Hacker's Delight*, 2nd ed., 2012,
    /// §6-1, on searching bytes within a word). Lanes at or past n hold n,
    /// which exceeds every k < n, so the lane found is a rank of the side.
    fn resample_median_packed(&self, rng: &mut Rng) -> f64 {
        const ONES: u128 = u128::from_le_bytes([1; 16]);
        const TOPS: u128 = ONES << 7;
        let n = self.rank.len();
        let mut counts: u128 = 0;
        for _ in 0..n {
            counts += 1u128 << (8 * self.rank[rng.below(n as u64) as usize]);
        }
        let running = counts.wrapping_mul(ONES);
        let first_above = |k: usize| -> f64 {
            let lanes = running + ONES * (127 - k) as u128;
            self.sorted[((lanes & TOPS).trailing_zeros() / 8) as usize]
        };
        let upper_at = n / 2;
        let upper = first_above(upper_at);
        if n % 2 == 1 {
            upper
        } else {
            0.5 * (first_above(upper_at - 1) + upper)
        }
    }
}

/// A seed that depends on the data only, so that the same two samples
/// always give the same interval (FNV-1a over the values' bits).
pub fn seed_of(a: &[f64], b: &[f64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in a.iter().chain([f64::NAN].iter()).chain(b) {
        for byte in v.to_bits().to_le_bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The percentile bootstrap interval (Efron 1979; Efron & Tibshirani
/// 1993, §13.3) of median(b)/median(a) at confidence `level`: `resamples`
/// times, resample each side with replacement (each side on its own, as
/// the two are independent), take the ratio of the medians; the interval is
/// the (1 − level)/2 and (1 + level)/2 quantiles (type 7) of those ratios.
/// `None` when a side is empty or a resampled median of `a` can be 0.
pub fn median_ratio_interval(
    a: &[f64],
    b: &[f64],
    level: f64,
    resamples: usize,
    seed: u64,
) -> Option<(f64, f64)> {
    if a.is_empty() || b.is_empty() || resamples == 0 || a.iter().any(|v| *v <= 0.0) {
        return None;
    }
    median(a)?;
    let mut rng = Rng::new(seed);
    let (mut ra, mut rb) = (Ranked::new(a), Ranked::new(b));
    let mut ratios = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        // a's draws, then b's, as resampling each side in turn draws them.
        let ma = ra.resample_median(&mut rng);
        let mb = rb.resample_median(&mut rng);
        ratios.push(mb / ma);
    }
    let tail = (1.0 - level) / 2.0;
    Some((
        quantile_selected(&mut ratios, tail)?,
        quantile_selected(&mut ratios, 1.0 - tail)?,
    ))
}

/// The `p` quantile of `values` as [`quantile_sorted`] gives it of them
/// sorted (type 7: the same two order statistics, the same
/// interpolation), found by selection; `values` is reordered.
fn quantile_selected(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let h = (values.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let (_, &mut at_lo, above) = values.select_nth_unstable_by(lo, f64::total_cmp);
    let at_hi = above
        .iter()
        .copied()
        .min_by(f64::total_cmp)
        .unwrap_or(at_lo);
    // Two values sorted [at_lo, at_hi] with h at its place between them.
    quantile_sorted(&[at_lo, at_hi], h - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_selection_are_those_of_the_sorted_values() {
        let mut rng = Rng::new(11);
        for n in 1..60 {
            let v: Vec<f64> = (0..n).map(|_| rng.below(40) as f64 / 7.0).collect();
            let mut s = v.clone();
            s.sort_by(f64::total_cmp);
            for p in [0.0, 0.0005, 0.025, 0.3, 0.5, 0.975, 0.9995, 1.0] {
                let got = quantile_selected(&mut v.clone(), p);
                assert_eq!(got, quantile_sorted(&s, p), "{n} {p}");
            }
        }
        assert_eq!(quantile_selected(&mut [], 0.5), None);
        assert_eq!(quantile_selected(&mut [1.0], 1.5), None);
    }

    #[test]
    fn large_samples_get_fewer_resamples() {
        assert_eq!(resamples_for(10, RESAMPLES), 2_000);
        assert_eq!(resamples_for(20, RESAMPLES), 2_000);
        assert_eq!(resamples_for(40, RESAMPLES), 1_000);
        assert_eq!(resamples_for(200, RESAMPLES), 400);
        assert_eq!(resamples_for(10, 0), 0);
    }

    #[test]
    fn median_in_place_is_the_median() {
        for v in [
            vec![3.0],
            vec![2.0, 1.0],
            vec![5.0, 1.0, 4.0, 2.0],
            vec![9.0, 1.0, 8.0, 2.0, 7.0],
        ] {
            let want = median(&v).unwrap();
            assert_eq!(median_in_place(&mut v.clone()), want);
        }
    }

    /// The interval of resampling the values and selecting their medians,
    /// as it was computed before [`Ranked`].
    fn by_selection(a: &[f64], b: &[f64], level: f64, resamples: usize, seed: u64) -> (f64, f64) {
        let mut rng = Rng::new(seed);
        let (mut buf_a, mut buf_b) = (vec![0.0; a.len()], vec![0.0; b.len()]);
        let mut ratios = Vec::new();
        for _ in 0..resamples {
            for slot in buf_a.iter_mut() {
                *slot = a[rng.below(a.len() as u64) as usize];
            }
            for slot in buf_b.iter_mut() {
                *slot = b[rng.below(b.len() as u64) as usize];
            }
            ratios.push(median_in_place(&mut buf_b) / median_in_place(&mut buf_a));
        }
        ratios.sort_by(f64::total_cmp);
        let tail = (1.0 - level) / 2.0;
        (
            quantile_sorted(&ratios, tail).unwrap(),
            quantile_sorted(&ratios, 1.0 - tail).unwrap(),
        )
    }

    #[test]
    fn ranked_resamples_give_the_selection_interval_exactly() {
        let mut rng = Rng::new(7);
        for case in 0..300 {
            // Both ways of counting: packed (up to 16) and by a vector.
            let size = |rng: &mut Rng| 1 + rng.below(if case % 2 == 0 { 13 } else { 40 }) as usize;
            let (na, nb) = (size(&mut rng), size(&mut rng));
            // Few distinct values in some cases: ties must pick alike.
            let spread = if case % 3 == 0 { 3 } else { 1000 };
            let mut draw = |n: usize| -> Vec<f64> {
                (0..n)
                    .map(|_| 50.0 + rng.below(spread) as f64 * 0.25)
                    .collect()
            };
            let (a, b) = (draw(na), draw(nb));
            let seed = seed_of(&a, &b);
            let got = median_ratio_interval(&a, &b, 0.95, 300, seed).unwrap();
            assert_eq!(got, by_selection(&a, &b, 0.95, 300, seed), "{a:?} {b:?}");
        }
    }

    #[test]
    fn a_full_word_of_sixteen_values_gives_the_selection_interval() {
        // 16 values fill every lane of the word; all but one equal tests
        // draws that pile on one rank.
        let mut rng = Rng::new(3);
        let a: Vec<f64> = (0..16).map(|_| 100.0 + rng.below(50) as f64).collect();
        for b in [
            (0..16)
                .map(|_| 90.0 + rng.below(70) as f64)
                .collect::<Vec<f64>>(),
            [vec![120.0; 15], vec![80.0]].concat(),
            (1..=16).map(f64::from).collect(),
        ] {
            let seed = seed_of(&a, &b);
            let got = median_ratio_interval(&a, &b, 0.95, 500, seed).unwrap();
            assert_eq!(got, by_selection(&a, &b, 0.95, 500, seed), "{b:?}");
        }
    }

    #[test]
    fn interval_is_reproducible_and_brackets_the_ratio() {
        let a = [100.0, 102.0, 98.0, 101.0, 99.0];
        let b = [120.0, 123.0, 118.0, 121.0, 119.5];
        let seed = seed_of(&a, &b);
        let one = median_ratio_interval(&a, &b, 0.95, RESAMPLES, seed).unwrap();
        let two = median_ratio_interval(&a, &b, 0.95, RESAMPLES, seed).unwrap();
        assert_eq!(one, two);
        // The ratio of medians is 120/100; every resampled ratio lies
        // between min(b)/max(a) and max(b)/min(a).
        assert!(one.0 <= 1.2 && 1.2 <= one.1, "{one:?}");
        assert!(one.0 >= 118.0 / 102.0 && one.1 <= 123.0 / 98.0, "{one:?}");
        assert_ne!(seed_of(&a, &b), seed_of(&b, &a));
        assert!(median_ratio_interval(&[], &b, 0.95, 10, 1).is_none());
        assert!(median_ratio_interval(&[0.0, 1.0], &b, 0.95, 10, 1).is_none());
    }
}
