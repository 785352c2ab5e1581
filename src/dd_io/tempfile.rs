//! The benchmark's temporary file and what the filesystem under it allows.
//!
//! The file is created with `O_TMPFILE` (no name at all: it disappears on
//! close, even after SIGKILL). Where the filesystem refuses that, it gets a
//! unique hidden name, is opened with `O_CREAT | O_EXCL | O_NOFOLLOW` (so
//! it can never be a user's file) and is unlinked at once; a name exists
//! only for those few microseconds. Closing the descriptor frees the space.
//! Also here: free space (`statvfs`), read-only flag, filesystem magic
//! (`statfs`), O_DIRECT alignment (`statx` STATX_DIOALIGN), O_DIRECT on/off
//! (`fcntl`), preallocation (`fallocate`).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The open, nameless temporary file.
#[derive(Debug)]
pub struct TempFile {
    /// The descriptor; dropping it frees the space.
    pub fd: OwnedFd,
    /// True when created with `O_TMPFILE`, false when named then unlinked.
    pub anonymous: bool,
}

fn cpath(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Creates the file in `dir` (see the module doc). `nonce` makes the
/// fallback name unique.
pub fn create(dir: &Path, nonce: u64) -> io::Result<TempFile> {
    let cdir = cpath(dir)?;
    // SAFETY: valid C string; the result is checked.
    let r = unsafe {
        libc::open(
            cdir.as_ptr(),
            libc::O_TMPFILE | libc::O_RDWR | libc::O_CLOEXEC,
            0o600 as libc::c_uint,
        )
    };
    if r >= 0 {
        // SAFETY: a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(r) };
        return Ok(TempFile {
            fd,
            anonymous: true,
        });
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EOPNOTSUPP) | Some(libc::EISDIR) | Some(libc::EINVAL) | Some(libc::ENOSYS) => {
            create_named(dir, nonce)
        }
        _ => Err(e),
    }
}

/// The fallback: a unique hidden name, `O_EXCL`, unlinked at once. A name
/// that exists (a user's file) is never opened: the next one is tried.
pub fn create_named(dir: &Path, nonce: u64) -> io::Result<TempFile> {
    let pid = std::process::id();
    for attempt in 0..16u64 {
        let name = format!(".quickbench-{pid}-{:016x}.tmp", nonce.wrapping_add(attempt));
        let path = dir.join(&name);
        let cp = cpath(&path)?;
        // SAFETY: valid C string; the result is checked.
        let r = unsafe {
            libc::open(
                cp.as_ptr(),
                libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_RDWR | libc::O_CLOEXEC,
                0o600 as libc::c_uint,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EEXIST) {
                continue;
            }
            return Err(e);
        }
        // SAFETY: a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(r) };
        // Unlink at once (a few tries: network filesystems may answer
        // EBUSY for a moment); the file is still empty, and should the name
        // stay, the error says where it is so that nothing is left unknown.
        let mut last = None;
        for _ in 0..3 {
            // SAFETY: valid C string.
            if unsafe { libc::unlink(cp.as_ptr()) } == 0 {
                last = None;
                break;
            }
            last = Some(io::Error::last_os_error());
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if let Some(e) = last {
            return Err(io::Error::new(
                e.kind(),
                format!(
                    "cannot remove the empty temporary file {} ({e}): remove it by hand",
                    path.display()
                ),
            ));
        }
        return Ok(TempFile {
            fd,
            anonymous: false,
        });
    }
    Err(io::Error::from_raw_os_error(libc::EEXIST))
}

/// What `statvfs`/`statfs` say about the filesystem holding a path.
#[derive(Debug, Clone, Copy)]
pub struct FsInfo {
    /// Bytes available to unprivileged users.
    pub available_bytes: u64,
    /// Mounted read-only.
    pub read_only: bool,
    /// `statfs` `f_type` magic number.
    pub fs_magic: u64,
}

/// Queries the filesystem holding `dir`.
// The statvfs field types differ between libcs (u64 on glibc x86_64).
#[allow(clippy::unnecessary_cast)]
pub fn fs_info(dir: &Path) -> io::Result<FsInfo> {
    let c = cpath(dir)?;
    // SAFETY: zeroed plain-data structs filled by the kernel; results checked.
    let (vfs, sfs) = unsafe {
        let mut vfs: libc::statvfs = std::mem::zeroed();
        cvt(libc::statvfs(c.as_ptr(), &mut vfs))?;
        let mut sfs: libc::statfs = std::mem::zeroed();
        cvt(libc::statfs(c.as_ptr(), &mut sfs))?;
        (vfs, sfs)
    };
    Ok(FsInfo {
        available_bytes: (vfs.f_bavail as u64).saturating_mul(vfs.f_frsize as u64),
        read_only: vfs.f_flag & libc::ST_RDONLY != 0,
        fs_magic: sfs.f_type as u64 & 0xffff_ffff,
    })
}

/// The name of a memory-backed filesystem magic (tmpfs, ramfs), if it is one.
pub fn memory_fs_name(fs_magic: u64) -> Option<&'static str> {
    match fs_magic {
        0x0102_1994 => Some("tmpfs"),
        0x8584_58f6 => Some("ramfs"),
        _ => None,
    }
}

/// `(memory alignment, offset alignment)` for O_DIRECT from statx
/// STATX_DIOALIGN (Linux 6.1+); `None` when unknown.
pub fn dio_align(fd: RawFd) -> Option<(u64, u64)> {
    const STATX_DIOALIGN: u32 = 0x2000;
    // SAFETY: zeroed plain-data struct filled by the kernel; "" with
    // AT_EMPTY_PATH targets fd itself; the result is checked.
    let st = unsafe {
        let mut st: libc::statx = std::mem::zeroed();
        let r = libc::syscall(
            libc::SYS_statx,
            fd,
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            STATX_DIOALIGN,
            &mut st as *mut libc::statx,
        );
        if r != 0 {
            return None;
        }
        st
    };
    if st.stx_mask & STATX_DIOALIGN == 0 || st.stx_dio_offset_align == 0 {
        return None;
    }
    Some((st.stx_dio_mem_align as u64, st.stx_dio_offset_align as u64))
}

/// The system page size.
pub fn page_size_bytes() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

/// Turns O_DIRECT on or off on an open file. `EINVAL` means the
/// filesystem does not support it.
pub fn set_direct(fd: RawFd, on: bool) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own; results checked.
    unsafe {
        let fl = cvt(libc::fcntl(fd, libc::F_GETFL))?;
        let fl = if on {
            fl | libc::O_DIRECT
        } else {
            fl & !libc::O_DIRECT
        };
        cvt(libc::fcntl(fd, libc::F_SETFL, fl))?;
    }
    Ok(())
}

/// Reserves `len_bytes` (fallocate), or only sets the size (ftruncate)
/// where fallocate is not supported.
pub fn preallocate(fd: &OwnedFd, len_bytes: u64) -> io::Result<()> {
    let fd = fd.as_raw_fd();
    // SAFETY: plain syscalls on our descriptor; results checked.
    let r = unsafe { libc::fallocate(fd, 0, 0, len_bytes as libc::off_t) };
    if r == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => {
            // SAFETY: as above.
            cvt(unsafe { libc::ftruncate(fd, len_bytes as libc::off_t) })?;
            Ok(())
        }
        _ => Err(e),
    }
}

/// `fdatasync`, retried on EINTR.
pub fn fdatasync(fd: RawFd) -> io::Result<()> {
    loop {
        // SAFETY: plain syscall on our descriptor.
        if unsafe { libc::fdatasync(fd) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_has_no_name_in_the_directory() {
        let d = tempfile::tempdir().unwrap();
        let f = create(d.path(), 1).unwrap();
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
        preallocate(&f.fd, 1 << 20).unwrap();
        drop(f);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_named_fallback_leaves_no_name_and_never_opens_a_users_file() {
        let d = tempfile::tempdir().unwrap();
        let pid = std::process::id();
        let taken = d
            .path()
            .join(format!(".quickbench-{pid}-{:016x}.tmp", 5u64));
        std::fs::write(&taken, b"user data").unwrap();
        let f = create_named(d.path(), 5).unwrap();
        assert!(!f.anonymous);
        preallocate(&f.fd, 1 << 20).unwrap();
        drop(f);
        let left: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(left, vec![taken.clone()]);
        assert_eq!(std::fs::read(&taken).unwrap(), b"user data");
    }

    #[test]
    fn missing_directory_is_an_error() {
        let e = create(Path::new("/nonexistent/quickbench-test"), 1).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
    }

    #[test]
    fn memory_filesystems_are_named() {
        assert_eq!(memory_fs_name(0x0102_1994), Some("tmpfs"));
        assert_eq!(memory_fs_name(0x8584_58f6), Some("ramfs"));
        assert_eq!(memory_fs_name(0xef53), None);
    }

    #[test]
    fn page_size_is_a_power_of_two() {
        assert!(page_size_bytes().is_power_of_two());
    }
}
