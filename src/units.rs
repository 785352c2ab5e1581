//! Number formatting that mimics GNU tools, kept in one place.
//!
//! [`dd_rate`] prints a transfer rate exactly as GNU dd (coreutils 8.20 to
//! 9.11) prints it at the end of its status line: gnulib's `human_readable`
//! with SI prefixes, base 1000, autoscale and round-to-nearest, then `/s`.
//! dd has two code paths, both reproduced: an exact one when the elapsed
//! nanoseconds divide a second or are whole seconds (rational arithmetic,
//! ties to even; whole units from 10 up print without a decimal), and a
//! floating one otherwise (one decimal below 99.95 units).

const PREFIXES: [&str; 11] = ["", "k", "M", "G", "T", "P", "E", "Z", "Y", "R", "Q"];
const NS_PER_S: u128 = 1_000_000_000;

/// The rate text GNU dd prints for `bytes` moved in `elapsed_ns`
/// nanoseconds, e.g. `22.0 GB/s`, `987 MB/s`, `0.0 kB/s`, `Infinity B/s`.
pub fn dd_rate(bytes: u64, elapsed_ns: u64) -> String {
    if elapsed_ns == 0 {
        return "Infinity B/s".to_string();
    }
    let d = elapsed_ns as u128;
    let n = bytes as u128;
    // dd's exact path: the ns delta divides 10^9, or is a multiple of it.
    if NS_PER_S % d == 0 {
        return exact_rate(n * (NS_PER_S / d), 1);
    }
    if d % NS_PER_S == 0 {
        return exact_rate(n, d / NS_PER_S);
    }
    float_rate(bytes as f64 * (1e9 / elapsed_ns as f64))
}

/// dd's floating path: the prefix exponent is at least 1 (kB), one decimal
/// below 99.95 units, none above.
fn float_rate(x: f64) -> String {
    let mut k = 1usize;
    while k < 10 && 1000f64.powi(k as i32 + 1) <= x {
        k += 1;
    }
    let m = x / 1000f64.powi(k as i32);
    let mut s = format!("{m:.1}");
    if s.len() > 4 {
        s = format!("{m:.0}");
    }
    format!("{s} {}B/s", PREFIXES[k])
}

/// dd's exact path: the rate is the rational `num / den` B/s, rounded to
/// nearest with ties to even, as gnulib does on exact values.
fn exact_rate(num: u128, den: u128) -> String {
    // Find the prefix: divide by 1000 until the integer part is < 1000.
    let mut k = 0usize;
    let mut den_k = den;
    while k < 10 && num / den_k >= 1000 {
        den_k *= 1000;
        k += 1;
    }
    let int = num / den_k;
    if k > 0 && int < 10 {
        // One decimal: round num*10/den_k to nearest, ties to even.
        let tenths = round_half_even(num * 10, den_k);
        if tenths >= 100 {
            return format!("10 {}B/s", PREFIXES[k]);
        }
        return format!("{}.{} {}B/s", tenths / 10, tenths % 10, PREFIXES[k]);
    }
    let r = round_half_even(num, den_k);
    if r >= 1000 && k < 10 {
        return format!("1.0 {}B/s", PREFIXES[k + 1]);
    }
    format!("{r} {}B/s", PREFIXES[k])
}

/// `num / den` rounded to the nearest integer, ties to even.
fn round_half_even(num: u128, den: u128) -> u128 {
    let q = num / den;
    let r = num % den;
    match (2 * r).cmp(&den) {
        std::cmp::Ordering::Less => q,
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => q + (q & 1),
    }
}

#[cfg(test)]
mod tests {
    use super::dd_rate;

    /// What real GNU dd 9.1 printed for these byte counts and durations
    /// (its clock pinned), row for row.
    #[test]
    fn dd_rate_matches_gnu_dd_table() {
        let rows: &[(u64, u64, &str)] = &[
            (0, 1_000_000_001, "0.0 kB/s"),
            (500, 1_000_000_001, "0.5 kB/s"),
            (987, 1_000_000_001, "1.0 kB/s"),
            (9_949, 1_000_000_001, "9.9 kB/s"),
            (9_951, 1_000_000_001, "10.0 kB/s"),
            (12_345, 1_000_000_001, "12.3 kB/s"),
            (99_949, 1_000_000_001, "99.9 kB/s"),
            (99_951, 1_000_000_001, "100 kB/s"),
            (123_456, 1_000_000_001, "123 kB/s"),
            (987_654, 1_000_000_001, "988 kB/s"),
            (999_999, 1_000_000_001, "1000 kB/s"),
            (2_300, 1_000_001, "2.3 MB/s"),
            (45_678, 1_000_001, "45.7 MB/s"),
            (987_000, 1_000_001, "987 MB/s"),
            (1_500_000, 1_000_001, "1.5 GB/s"),
            (2_250_000, 1_000_001, "2.2 GB/s"),
            (9_960_000, 1_000_001, "10.0 GB/s"),
            (22_000_000, 1_000_001, "22.0 GB/s"),
            (22_060_000, 1_000_001, "22.1 GB/s"),
            (99_940_000, 1_000_001, "99.9 GB/s"),
            (123_400_000, 1_000_001, "123 GB/s"),
            (1_200_000_000, 1_000_001, "1.2 TB/s"),
            (5_000_000, 1, "5.0 PB/s"),
            (0, 1_000_000_000, "0 B/s"),
            (987, 1_000_000_000, "987 B/s"),
            (9_960, 1_000_000_000, "10 kB/s"),
            (999_500, 1_000_000_000, "1.0 MB/s"),
            (22_000_000_000, 1_000_000_000, "22 GB/s"),
            (2_300_000_000, 1_000_000_000, "2.3 GB/s"),
            (1, 0, "Infinity B/s"),
        ];
        for &(n, d, want) in rows {
            assert_eq!(dd_rate(n, d), want, "bytes {n}, elapsed {d} ns");
        }
    }

    #[test]
    fn exact_path_for_multiples_of_a_second() {
        // 2 s exactly: 46e9 bytes -> 23 GB/s on the exact path (no ".0").
        assert_eq!(dd_rate(46_000_000_000, 2_000_000_000), "23 GB/s");
        // 0.5 s divides 10^9: 1 B in 0.5 s is 2 B/s exactly.
        assert_eq!(dd_rate(1, 500_000_000), "2 B/s");
    }

    #[test]
    fn huge_values_do_not_overflow() {
        let s = dd_rate(u64::MAX, 1);
        assert!(s.ends_with("B/s"), "{s}");
        let s = dd_rate(u64::MAX, 1_000_000_000);
        assert!(s.ends_with("B/s"), "{s}");
    }
}
