//! The wall clock of a run: when it started, in seconds since the Unix
//! epoch. Measuring lives here, not in a renderer. The runner stores the
//! start in the report as RFC 3339 text (`report::json::rfc3339_utc`);
//! the text's header prints it to the minute.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in whole seconds since the Unix epoch (0 on a clock set before it).
pub fn unix_now_s() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Now, in nanoseconds since the Unix epoch (0 on a clock set before it):
/// a seed that differs from one run to the next.
pub fn unix_now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clock is read, not made up: after 2024-01-01 and moving.
    #[test]
    fn the_clock_reads_now() {
        let a = unix_now_s();
        assert!(a > 1_704_067_200, "{a}");
        std::thread::sleep(std::time::Duration::from_millis(1100));
        assert!(unix_now_s() > a);
    }
}
