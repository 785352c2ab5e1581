//! The `--html` file, opened before any input is read, so that a path
//! that cannot be written stops the command at once; a file opened here
//! for the first time is removed again when no page comes.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The open `--html` file, and whether this command created it.
pub struct PageFile {
    /// Where it is, for the error that names it.
    pub path: PathBuf,
    file: File,
    created: bool,
}

impl PageFile {
    /// Opens `path` for writing, creating it if it is not there.
    pub fn open(path: &Path) -> io::Result<PageFile> {
        let (file, created) = match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(f) => (f, true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                (OpenOptions::new().write(true).open(path)?, false)
            }
            Err(e) => return Err(e),
        };
        Ok(PageFile {
            path: path.to_path_buf(),
            file,
            created,
        })
    }

    /// Replaces the file's content with `page` (a device or a pipe is
    /// written as it is).
    pub fn write(mut self, page: &str) -> io::Result<()> {
        if self.file.metadata()?.is_file() {
            self.file.set_len(0)?;
        }
        self.file.write_all(page.as_bytes())?;
        self.file.flush()
    }

    /// The message for a page that cannot be opened or written at `path`.
    pub fn error(path: &Path, e: io::Error) -> String {
        format!(
            "--html {}: cannot write the HTML page: {e} (give --html a writable file, or --html - for stdout)",
            path.display()
        )
    }

    /// No page comes: removes the file if this command created it.
    pub fn abandon(self) {
        if self.created {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
