//! A small deterministic pseudo-random generator for the bootstrap and the
//! property tests: results must be reproducible from a seed, across
//! platforms and versions, so it is written here rather than borrowed.
//!
//! xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number
//! generators", ACM TOMS 47(4), 2021), its state filled from the seed by
//! SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014), as its authors recommend.

/// SplitMix64: one 64-bit word of state, used to expand a seed.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// xoshiro256**.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose state is the first four outputs of SplitMix64
    /// from `seed` (never all zero).
    pub fn new(seed: u64) -> Self {
        let mut sm = SplitMix64::new(seed);
        Rng {
            s: [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()],
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform double in [0, 1): the top 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in [0, n), n > 0, without bias (Lemire, "Fast
    /// random integer generation in an interval", ACM TOMACS 29(1), 2019).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A standard normal deviate (Box & Muller, Ann. Math. Statist. 29,
    /// 1958; one of the pair is used, for simplicity over speed).
    #[cfg(test)]
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.next_f64(); // (0, 1]: the log is finite
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values: tests/stats_reference.py, section "rng: …" (an
    // independent Python transcription of the two published algorithms;
    // 0xe220a8397b1dcdaf is also the first output of the reference
    // splitmix64.c from seed 0).
    #[test]
    fn splitmix_and_xoshiro_match_the_reference() {
        let mut sm = SplitMix64::new(0);
        assert_eq!(sm.next_u64(), 0xe220_a839_7b1d_cdaf);
        let mut r = Rng::new(42);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            vec![
                0x1578_0b2e_0c2e_c716,
                0x6104_d986_6d11_3a7e,
                0xae17_5332_39e4_99a1
            ]
        );
        assert_eq!(r.next_f64(), 0.9246929453253876);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::new(7);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        // Each count is Binomial(60000, 1/6): sd ≈ 91; 6 sd is never hit by
        // a correct generator, and a biased one (e.g. `% 6` on 3 bits) is.
        for c in counts {
            assert!((9_450..=10_550).contains(&c), "{counts:?}");
        }
        assert_eq!(Rng::new(1).below(1), 0);
    }
}
