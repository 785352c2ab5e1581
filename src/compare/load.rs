//! Reading the inputs: files, or `-` for standard input, each into the
//! report model and the facts compare reads of it.

use std::io::{self, Read};

use super::fact::Fact;
use super::facts::facts;
use crate::model::Report;
use crate::report::read::{read_report, ReadError};

/// One input, read.
#[derive(Debug, Clone)]
pub struct Input {
    /// As the user named it (`-` for stdin).
    pub file: String,
    /// The report: whole ([`load`]), or for a comparison its header alone
    /// ([`load_for_compare`]: its facts hold what its sections said).
    pub report: Report,
    /// What the report says ([`facts`]), which compare lines up.
    pub facts: Vec<Fact>,
}

impl Input {
    /// The input of `report`, with its facts.
    pub fn new(file: impl Into<String>, report: Report) -> Input {
        Input {
            file: file.into(),
            facts: facts(&report),
            report,
        }
    }
}

/// Reads every input (a file, or `-` for standard input), whole.
pub fn load(inputs: &[String]) -> Result<Vec<Input>, ReadError> {
    inputs
        .iter()
        .map(|file| Ok(Input::new(file.clone(), read_input(file)?)))
        .collect()
}

/// Reads every input for a comparison: its facts, and of its report only
/// the header (who ran, when, how, what failed), which is what compare
/// reads besides the facts. Each report's sections (steps, trials,
/// samples, conditions) are dropped once its facts are taken, so that a
/// fleet of reports is never held whole.
pub fn load_for_compare(inputs: &[String]) -> Result<Vec<Input>, ReadError> {
    inputs
        .iter()
        .map(|file| {
            let mut input = Input::new(file.clone(), read_input(file)?);
            drop_sections(&mut input.report);
            Ok(input)
        })
        .collect()
}

/// The report without what its facts say: its sections, its trials'
/// order, what a text report kept of lines it did not read.
fn drop_sections(r: &mut Report) {
    r.trial_order = None;
    r.cpu_info = None;
    r.cpu_loop = Vec::new();
    r.memory = None;
    r.storage_info = None;
    r.storage_stack = None;
    r.storage_bandwidth = Vec::new();
    r.plan = None;
    r.extended = None;
    r.raw_sections = Vec::new();
    r.stray_lines = Vec::new();
}

/// One input's report: the file's (or standard input's) text, read.
fn read_input(file: &str) -> Result<Report, ReadError> {
    let text = if file == "-" {
        let mut s = String::new();
        io::stdin().read_to_string(&mut s).map(|_| s)
    } else {
        std::fs::read(file).map(|b| {
            // Checked once; only a file that is not UTF-8 is copied with
            // its bad bytes replaced.
            String::from_utf8(b)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        })
    }
    .map_err(|e| ReadError {
        file: file.to_string(),
        line: 0,
        message: format!("cannot read it: {e}"),
    })?;
    read_report(file, &text)
}
