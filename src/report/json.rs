//! The JSON renderer: the whole [`Report`] as one document, written once
//! at the end of the run. Its layout is described by
//! `schema/report.schema.json` (tests validate against it); the keys are
//! the model's, with units in their names. The run's timestamp is written
//! here ([`rfc3339_utc`]).

use std::io::{self, Write};

use crate::model::Report;
use crate::sink::{Item, Output};

/// Writes the JSON document to `out` when the run finishes.
pub struct JsonSink<W: Write> {
    out: W,
}

impl<W: Write> JsonSink<W> {
    /// A sink writing to `out`.
    pub fn new(out: W) -> Self {
        JsonSink { out }
    }
}

impl<W: Write> Output for JsonSink<W> {
    fn item(&mut self, _: &Report, _: Item) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.out, report).map_err(io::Error::other)?;
        writeln!(self.out)?;
        self.out.flush()
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch (the run's
/// timestamp, read by [`crate::clock`]).
pub fn rfc3339_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::rfc3339_utc;

    #[test]
    fn utc_timestamps() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_796_225_000), "2026-12-02T15:23:20Z");
    }
}
