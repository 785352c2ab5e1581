//! Reading the inputs: files, or `-` for standard input, each into the
//! report model.

use std::io::{self, Read};

use crate::model::Report;
use crate::report::read::{read_report, ReadError};

/// One input, read.
#[derive(Debug, Clone)]
pub struct Input {
    /// As the user named it (`-` for stdin).
    pub file: String,
    /// The report.
    pub report: Report,
}

/// Reads every input (a file, or `-` for standard input).
pub fn load(inputs: &[String]) -> Result<Vec<Input>, ReadError> {
    inputs
        .iter()
        .map(|file| {
            let text = if file == "-" {
                let mut s = String::new();
                io::stdin().read_to_string(&mut s).map(|_| s)
            } else {
                std::fs::read(file).map(|b| {
                    // Checked once; only a file that is not UTF-8 is copied
                    // with its bad bytes replaced.
                    String::from_utf8(b)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
                })
            }
            .map_err(|e| ReadError {
                file: file.clone(),
                line: 0,
                message: format!("cannot read it: {e}"),
            })?;
            Ok(Input {
                file: file.clone(),
                report: read_report(file, &text)?,
            })
        })
        .collect()
}
