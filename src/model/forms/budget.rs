//! A `--budget` duration as the command line takes it and the `Run` line
//! prints it: a whole number of seconds, minutes or hours (`90s`, `10m`,
//! `1h`), in the largest unit that divides it, so that the line reads as
//! what was typed.

/// `secs` in its largest whole unit: 600 → `10m`, 90 → `90s`.
pub fn render(secs: u64) -> String {
    match secs {
        s if s > 0 && s % 3600 == 0 => format!("{}h", s / 3600),
        s if s > 0 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// Seconds of a whole number followed by `s`, `m` or `h`; `None` for
/// anything else (no sign, no fraction, no space, no overflow).
pub fn parse(s: &str) -> Option<u64> {
    let unit = match s.as_bytes().last()? {
        b's' => 1,
        b'm' => 60,
        b'h' => 3600,
        _ => return None,
    };
    let digits = &s[..s.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_reads_back_in_its_largest_unit() {
        for (secs, text) in [
            (90, "90s"),
            (600, "10m"),
            (3600, "1h"),
            (5400, "90m"),
            (61, "61s"),
        ] {
            assert_eq!(render(secs), text);
            assert_eq!(parse(text), Some(secs));
        }
        assert_eq!(parse("120s"), Some(120));
        for bad in [
            "",
            "s",
            "5x",
            "10",
            "1.5m",
            "-1m",
            " 1m",
            "1 m",
            "99999999999999999999h",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }
}
