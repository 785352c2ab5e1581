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
                std::fs::read(file).map(|b| String::from_utf8_lossy(&b).into_owned())
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
