//! Writing a whole file at once, so that a reader never sees half of it:
//! a temporary file in the same directory, synced, then renamed over the
//! target (a rename within one filesystem is atomic). node_exporter's
//! textfile collector asks for exactly this, and reads only `*.prom`
//! files, so the temporary name (`.NAME.PID.tmp`) is never read.
//!
//! [`check_writable`] tries the same steps with an empty file before a
//! run starts, so that an unwritable `--prometheus` path fails at once,
//! not after the run. [`TextfileSink`] writes the Prometheus textfile
//! ([`super::prometheus`]) when the run finishes.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::model::Report;
use crate::sink::{Item, Output};

/// The temporary file beside `path`: hidden, and not ending in `.prom`.
fn temporary(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(format!(".{}.tmp", std::process::id()));
    Ok(dir.join(tmp))
}

/// Why `path` cannot be the target of [`write_atomically`], if it cannot:
/// it is a directory, its directory is missing or not writable. Creates
/// and removes the temporary file to find out.
pub fn check_writable(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory",
        ));
    }
    let tmp = temporary(path)?;
    OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    fs::remove_file(&tmp)
}

/// Writes `bytes` to `path` through a temporary file in the same
/// directory, synced, then renamed over `path`; the temporary file is
/// removed when any step fails.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temporary(path)?;
    let written = (|| {
        let mut f: File = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// Writes the Prometheus textfile of the report to a file when the run
/// finishes (`--prometheus FILE`).
pub struct TextfileSink {
    path: PathBuf,
}

impl TextfileSink {
    /// A sink writing to `path` at the end of the run.
    pub fn new(path: &Path) -> TextfileSink {
        TextfileSink {
            path: path.to_path_buf(),
        }
    }
}

impl Output for TextfileSink {
    fn item(&mut self, _: &Report, _: Item) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        write_atomically(&self.path, super::prometheus::render(report).as_bytes()).map_err(|e| {
            io::Error::other(format!(
                "{}: cannot write the Prometheus textfile: {e}",
                self.path.display()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_replaced_whole_and_nothing_is_left_beside_it() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("q.prom");
        write_atomically(&p, b"a 1\n").unwrap();
        write_atomically(&p, b"a 2\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "a 2\n");
        let names: Vec<_> = fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        check_writable(&p).unwrap();
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn unwritable_targets_are_refused_with_the_reason() {
        let d = tempfile::tempdir().unwrap();
        let e = check_writable(d.path()).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        let e = check_writable(&d.path().join("missing/q.prom")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound, "{e}");
        let file = d.path().join("f");
        fs::write(&file, "").unwrap();
        assert!(check_writable(&file.join("q.prom")).is_err());
        assert!(write_atomically(&file.join("q.prom"), b"x").is_err());
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1);
    }
}
