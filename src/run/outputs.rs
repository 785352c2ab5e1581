//! Where a run's report goes: the text on stdout, or the JSON document;
//! with `--text-out`, the text in that file as well; with `--prometheus`,
//! the textfile when the run finishes.

use std::io;

use crate::cli::Config;
use crate::progress::Progress;
use crate::report::json::JsonSink;
use crate::report::text::TextSink;
use crate::report::textfile::TextfileSink;
use crate::report::FileOut;
use crate::sink::Output;

/// The outputs of `cfg`, in the order they are written. The text on
/// stdout erases the progress line before each line; a file does not
/// need to. The error names the option and the path to fix.
pub fn outputs<'p>(
    cfg: &Config,
    stdout_progress: &'p Progress,
    file_progress: &'p Progress,
) -> io::Result<Vec<Box<dyn Output + 'p>>> {
    let mut out: Vec<Box<dyn Output + 'p>> = Vec::new();
    if cfg.json {
        out.push(Box::new(JsonSink::new(io::stdout().lock())));
    } else {
        out.push(Box::new(TextSink::new(
            io::stdout().lock(),
            stdout_progress,
        )));
    }
    if let Some(path) = &cfg.text_out {
        let file = FileOut::create(path).map_err(|e| {
            io::Error::other(format!(
                "--text-out {}: cannot create it: {e}: choose a writable path",
                path.display()
            ))
        })?;
        out.push(Box::new(TextSink::new(file, file_progress)));
    }
    // Last: it writes when the run finishes, after the report is out.
    if let Some(path) = &cfg.prometheus {
        out.push(Box::new(TextfileSink::new(path)));
    }
    Ok(out)
}
