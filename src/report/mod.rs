//! The renderers and readers of the report model ([`crate::model`]):
//! [`text`] writes the text report (streamed, line by line), [`json`] the
//! JSON document (once, at the end), [`prometheus`] the Prometheus
//! textfile (written at the end by [`textfile`], atomically), [`read`]
//! turns text or JSON back into the model. [`Console`] carries what goes to stderr: progress and
//! messages, never the report.

pub mod extended;
pub mod json;
pub mod prometheus;
pub mod read;
pub mod text;
pub mod textfile;

use std::io::{self, Write};

use crate::progress::Progress;

/// stderr: the progress display and the messages for the user, each
/// message erasing the progress line first so they never mix.
#[derive(Debug)]
pub struct Console {
    progress: Progress,
}

impl Console {
    /// A console with this progress display.
    pub fn new(progress: Progress) -> Console {
        Console { progress }
    }

    /// The progress display.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// A message on stderr (`quickbench: ...`), the progress line erased
    /// first.
    pub fn warn(&self, msg: &str) {
        self.progress.cleared(|| stderr_line(msg));
    }
}

/// Writes `quickbench: <msg>` on stderr, ignoring a failure (a full disk or
/// a closed pipe on stderr must not stop the report).
pub fn stderr_line(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "quickbench: {msg}");
}

/// A file the report is written to (`--text-out`): its errors name it, so
/// they are not taken for a closed stdout.
pub struct FileOut {
    path: std::path::PathBuf,
    file: std::fs::File,
}

impl FileOut {
    /// Creates (or truncates) `path`; the error is the system's, for the
    /// caller to name the option and the path.
    pub fn create(path: &std::path::Path) -> io::Result<FileOut> {
        let file = std::fs::File::create(path)?;
        Ok(FileOut {
            path: path.to_path_buf(),
            file,
        })
    }
}

fn named(path: &std::path::Path, e: io::Error) -> io::Error {
    io::Error::other(format!(
        "{}: {e} (choose a writable --text-out path)",
        path.display()
    ))
}

impl Write for FileOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).map_err(|e| named(&self.path, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| named(&self.path, e))
    }
}
