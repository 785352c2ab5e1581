//! The SIZE text of `lsblk` (util-linux `size_to_human_string`): base 1024,
//! one letter, at most one decimal, never a trailing `.0`.

/// Formats a byte count as `lsblk` does: `0B`, `512B`, `1.5K`, `931.5G`,
/// `21.8T`, `1023G` (no carry into the next unit).
pub fn size_text(bytes: u64) -> String {
    const LETTERS: [char; 7] = ['B', 'K', 'M', 'G', 'T', 'P', 'E'];
    let exp = (0..=6u32)
        .rev()
        .map(|i| i * 10)
        .find(|&e| bytes >= 1u64 << e)
        .unwrap_or(0);
    let letter = LETTERS[(exp / 10) as usize];
    let mut int = bytes >> exp;
    let frac = bytes - (int << exp);
    let mut tenth = 0u64;
    if frac != 0 {
        // Three truncated decimal digits, then rounded to one.
        let t3 = ((u128::from(frac) * 1000) >> exp) as u64;
        tenth = (t3 + 50) / 100;
        if tenth == 10 {
            int += 1;
            tenth = 0;
        }
    }
    if tenth != 0 {
        format!("{int}.{tenth}{letter}")
    } else {
        format!("{int}{letter}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_lsblk() {
        for (bytes, text) in [
            (0u64, "0B"),
            (1, "1B"),
            (512, "512B"),
            (1023, "1023B"),
            (1024, "1K"),
            (1536, "1.5K"),
            (536_870_912, "512M"),
            (107_374_182_400, "100G"),
            (24_000_277_250_048, "21.8T"),
            (16_000_900_661_248, "14.6T"),
            (4_000_787_030_016, "3.6T"),
            (1_000_204_886_016, "931.5G"),
            (500_107_862_016, "465.8G"),
            (256_060_514_304, "238.5G"),
            (1_098_437_885_952, "1023G"),
            (1_100_585_369_600, "1T"),
            (2_147_483_648, "2G"),
            (256 << 30, "256G"),
            (u64::MAX, "16E"),
        ] {
            assert_eq!(size_text(bytes), text, "{bytes}");
        }
    }
}
