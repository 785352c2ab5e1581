//! The one door to `/proc`, `/sys` and `/dev`.
//!
//! Every module reads kernel-provided files through a [`Sysroot`], so that
//! `--sysroot DIR` makes the whole program read a dump instead of the live
//! system, and so that every error names the full path that failed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Where `/proc`, `/sys` and `/dev` are read from: `/` on a live system, a
/// dump directory under `--sysroot`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sysroot {
    root: PathBuf,
}

impl Default for Sysroot {
    fn default() -> Self {
        Self::live()
    }
}

impl Sysroot {
    /// The running system.
    pub fn live() -> Self {
        Sysroot {
            root: PathBuf::from("/"),
        }
    }

    /// A dump rooted at `root` (it holds `proc/`, `sys/`, maybe `dev/`).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Sysroot { root: root.into() }
    }

    /// True when this is the running system (`/`), false for a dump.
    pub fn is_live(&self) -> bool {
        self.root == Path::new("/")
    }

    /// The directory this sysroot is rooted at.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The real path of an absolute system path such as `/proc/cpuinfo`.
    pub fn path(&self, abs: impl AsRef<Path>) -> PathBuf {
        let abs = abs.as_ref();
        let rel = abs.strip_prefix("/").unwrap_or(abs);
        if self.is_live() {
            Path::new("/").join(rel)
        } else {
            self.root.join(rel)
        }
    }

    /// Reads a whole file as text (lossy UTF-8); the error names the path.
    pub fn read_to_string(&self, abs: impl AsRef<Path>) -> io::Result<String> {
        let p = self.path(abs);
        match fs::read(&p) {
            Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) => Err(named(e, &p)),
        }
    }

    /// Reads a small file as trimmed text, or `None` when it is missing,
    /// unreadable or empty after trimming.
    pub fn read_trimmed(&self, abs: impl AsRef<Path>) -> Option<String> {
        let s = self.read_to_string(abs).ok()?;
        let t = s.trim();
        if t.is_empty() {
            None
        } else {
            Some(t.to_string())
        }
    }

    /// Reads raw bytes; the error names the path.
    pub fn read_bytes(&self, abs: impl AsRef<Path>) -> io::Result<Vec<u8>> {
        let p = self.path(abs);
        fs::read(&p).map_err(|e| named(e, &p))
    }

    /// Reads a symbolic link's target (as stored, not resolved).
    pub fn read_link(&self, abs: impl AsRef<Path>) -> io::Result<PathBuf> {
        let p = self.path(abs);
        fs::read_link(&p).map_err(|e| named(e, &p))
    }

    /// True if the path exists (following symlinks).
    pub fn exists(&self, abs: impl AsRef<Path>) -> bool {
        self.path(abs).exists()
    }

    /// Names of the entries of a directory, sorted; the error names the path.
    pub fn list_dir(&self, abs: impl AsRef<Path>) -> io::Result<Vec<String>> {
        let p = self.path(abs);
        let mut names = Vec::new();
        for entry in fs::read_dir(&p).map_err(|e| named(e, &p))? {
            let entry = entry.map_err(|e| named(e, &p))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    /// Resolves a system path to its canonical system path (symlinks
    /// followed inside the sysroot), returned as an absolute system path
    /// (without the sysroot prefix).
    pub fn canonicalize(&self, abs: impl AsRef<Path>) -> io::Result<PathBuf> {
        let p = self.path(abs);
        let real = fs::canonicalize(&p).map_err(|e| named(e, &p))?;
        if self.is_live() {
            return Ok(real);
        }
        let root = fs::canonicalize(&self.root).map_err(|e| named(e, &self.root))?;
        match real.strip_prefix(&root) {
            Ok(rel) => Ok(Path::new("/").join(rel)),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: resolves to {}, outside the sysroot {}",
                    p.display(),
                    real.display(),
                    self.root.display()
                ),
            )),
        }
    }
}

/// Wraps an I/O error so that its message starts with the path.
pub fn named(e: io::Error, p: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {}", p.display(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_paths_are_absolute() {
        let s = Sysroot::live();
        assert!(s.is_live());
        assert_eq!(s.path("/proc/cpuinfo"), PathBuf::from("/proc/cpuinfo"));
    }

    #[test]
    fn dump_paths_are_under_the_root() {
        let s = Sysroot::new("/tmp/dump");
        assert!(!s.is_live());
        assert_eq!(
            s.path("/sys/devices/system/cpu/online"),
            PathBuf::from("/tmp/dump/sys/devices/system/cpu/online")
        );
    }

    #[test]
    fn errors_name_the_full_path() {
        let d = tempfile::tempdir().unwrap();
        let s = Sysroot::new(d.path());
        let e = s.read_to_string("/proc/meminfo").unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("{}/proc/meminfo", d.path().display())),
            "{e}"
        );
    }

    #[test]
    fn canonicalize_stays_inside_the_dump() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("sys/devices/virtual/block/loop0")).unwrap();
        std::fs::create_dir_all(d.path().join("sys/class/block")).unwrap();
        std::os::unix::fs::symlink(
            "../../devices/virtual/block/loop0",
            d.path().join("sys/class/block/loop0"),
        )
        .unwrap();
        let s = Sysroot::new(d.path());
        assert_eq!(
            s.canonicalize("/sys/class/block/loop0").unwrap(),
            PathBuf::from("/sys/devices/virtual/block/loop0")
        );
    }
}
