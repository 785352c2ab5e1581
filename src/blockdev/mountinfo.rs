//! `/proc/self/mountinfo`: parsing, and finding the mount that holds a path.
//!
//! Reads `/proc/self/mountinfo` (through the [`Sysroot`]) and, on a live
//! system, asks the kernel for the mount id of a path with
//! `statx(STATX_MNT_ID)`. Returns [`MountInfo`] entries, named after the
//! fields of the kernel's `Documentation/filesystems/proc.rst` §3.5.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::sysroot::Sysroot;

/// One line of `/proc/<pid>/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct MountInfo {
    /// (1) mount ID: unique id of the mount (may be reused after umount).
    pub mount_id: u64,
    /// (2) parent ID: the mount this one is mounted on (itself for the root).
    pub parent_id: u64,
    /// (3) major number of `st_dev` for files on this filesystem (0: anonymous).
    pub major: u32,
    /// (3) minor number of `st_dev`.
    pub minor: u32,
    /// (4) root: the directory of the filesystem that forms the root of this
    /// mount (unescaped; `/@home` for a btrfs subvolume).
    pub root: String,
    /// (5) mount point, relative to the process's root (unescaped).
    pub mount_point: String,
    /// (6) per-mount options (`rw,relatime`).
    pub mount_options: String,
    /// (7) optional fields (`shared:1`, `master:2`...), possibly none.
    pub optional_fields: Vec<String>,
    /// (9) filesystem type (`ext4`, `btrfs`, `fuse.sshfs`).
    pub fs_type: String,
    /// (10) mount source (unescaped; may be empty).
    pub mount_source: String,
    /// (11) per-superblock options (`rw,upperdir=...` for overlay).
    pub super_options: String,
}

impl MountInfo {
    /// The value of `key=` in the super options, then in the mount options.
    pub fn option(&self, key: &str) -> Option<String> {
        [&self.super_options, &self.mount_options]
            .iter()
            .flat_map(|s| s.split(','))
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .map(unescape)
    }
}

/// Parses one mountinfo line. `None` when the line is malformed; never panics.
///
/// Fields are separated by single spaces (an empty source shows up as two
/// spaces); the optional fields end at a lone `-`. `\ooo` octal escapes are
/// undone in the root, mount point and source.
pub fn parse_mountinfo_line(line: &str) -> Option<MountInfo> {
    let line = line.trim_end_matches(['\n', '\r']);
    let mut it = line.split(' ');
    let mount_id = it.next()?.parse().ok()?;
    let parent_id = it.next()?.parse().ok()?;
    let (maj, min) = it.next()?.split_once(':')?;
    let (major, minor) = (maj.parse().ok()?, min.parse().ok()?);
    let root = non_empty(it.next()?)?;
    let mount_point = non_empty(it.next()?)?;
    let mount_options = it.next()?.to_string();
    let mut optional_fields = Vec::new();
    loop {
        match it.next()? {
            "-" => break,
            "" => {}
            f => optional_fields.push(f.to_string()),
        }
    }
    let fs_type = non_empty(it.next()?)?;
    let mount_source = unescape(it.next().unwrap_or(""));
    let super_options = it.collect::<Vec<_>>().join(" ");
    Some(MountInfo {
        mount_id,
        parent_id,
        major,
        minor,
        root: unescape(&root),
        mount_point: unescape(&mount_point),
        mount_options,
        optional_fields,
        fs_type,
        mount_source,
        super_options,
    })
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// Parses a whole mountinfo file, skipping malformed lines.
pub fn parse_mountinfo(text: &str) -> Vec<MountInfo> {
    text.lines().filter_map(parse_mountinfo_line).collect()
}

/// Reads and parses `/proc/self/mountinfo` of the sysroot.
pub fn read_mountinfo(sys: &Sysroot) -> std::io::Result<Vec<MountInfo>> {
    Ok(parse_mountinfo(
        &sys.read_to_string("/proc/self/mountinfo")?,
    ))
}

/// Undoes the kernel's `\ooo` octal escapes (`\040` space, `\011` tab,
/// `\012` newline, `\134` backslash). Anything else is kept as is.
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            let oct = &b[i + 1..i + 4];
            if oct.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let v = oct.iter().fold(0u32, |a, c| a * 8 + u32::from(c - b'0'));
                if let Ok(byte) = u8::try_from(v) {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The mount id of the mount holding `path`, from `statx(STATX_MNT_ID)`
/// (Linux 5.8+). `None` when the kernel or the path does not tell.
pub fn statx_mount_id(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero `statx` is a valid value of this plain C struct.
    let mut buf: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `buf` a writable statx that
    // outlives the call; the raw syscall avoids needing libc's wrapper.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_statx,
            libc::AT_FDCWD,
            c.as_ptr(),
            0,
            libc::STATX_MNT_ID,
            &mut buf as *mut libc::statx,
        )
    };
    (rc == 0 && buf.stx_mask & libc::STATX_MNT_ID != 0).then_some(buf.stx_mnt_id)
}

/// Lexically normalises an absolute path (`.` dropped, `..` pops).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// True when `prefix` is `path` or a component-wise ancestor of it
/// (`/a/b` holds `/a/b/c`, not `/a/bc`).
fn holds(prefix: &str, path: &Path) -> bool {
    path.starts_with(Path::new(prefix))
}

/// The visible mount holding the absolute, resolved `path`, by the longest
/// component-wise mount-point prefix. Among entries at the same mount point,
/// the one that is no other's parent wins (the top of an over-mount), then
/// the last listed.
pub fn find_by_prefix<'a>(mounts: &'a [MountInfo], path: &Path) -> Option<&'a MountInfo> {
    let best_len = mounts
        .iter()
        .filter(|m| holds(&m.mount_point, path))
        .map(|m| Path::new(&m.mount_point).components().count())
        .max()?;
    let at: Vec<&MountInfo> = mounts
        .iter()
        .filter(|m| {
            holds(&m.mount_point, path)
                && Path::new(&m.mount_point).components().count() == best_len
        })
        .collect();
    at.iter()
        .rev()
        .find(|m| {
            !at.iter()
                .any(|o| o.parent_id == m.mount_id && o.mount_id != m.mount_id)
        })
        .or(at.last())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_plain_line() {
        let m = parse_mountinfo_line(
            "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict",
        )
        .unwrap();
        assert_eq!(m.mount_id, 27);
        assert_eq!(m.parent_id, 1);
        assert_eq!((m.major, m.minor), (254, 0));
        assert_eq!(m.root, "/");
        assert_eq!(m.mount_point, "/");
        assert_eq!(m.mount_options, "rw,relatime");
        assert!(m.optional_fields.is_empty());
        assert_eq!(m.fs_type, "ext4");
        assert_eq!(m.mount_source, "/dev/vda");
        assert_eq!(m.super_options, "rw,discard,resv_strict");
    }

    #[test]
    fn parses_optional_fields_and_escapes() {
        let m = parse_mountinfo_line(
            "36 35 98:0 /mnt\\0401 /mnt/my\\040disk rw,noatime master:1 shared:7 - ext3 /dev/my\\134root rw,errors=continue",
        )
        .unwrap();
        assert_eq!(m.root, "/mnt 1");
        assert_eq!(m.mount_point, "/mnt/my disk");
        assert_eq!(m.optional_fields, vec!["master:1", "shared:7"]);
        assert_eq!(m.mount_source, "/dev/my\\root");
        assert_eq!(m.super_options, "rw,errors=continue");
    }

    #[test]
    fn parses_an_empty_source() {
        let m = parse_mountinfo_line("40 31 0:38 / /x rw - tmpfs  rw,size=4k").unwrap();
        assert_eq!(m.fs_type, "tmpfs");
        assert_eq!(m.mount_source, "");
        assert_eq!(m.super_options, "rw,size=4k");
    }

    #[test]
    fn parses_btrfs_subvolume_options() {
        let m = parse_mountinfo_line(
            "90 1 0:31 /@home /home rw,relatime shared:5 - btrfs /dev/nvme0n1p2 rw,ssd,subvolid=257,subvol=/@home",
        )
        .unwrap();
        assert_eq!(m.root, "/@home");
        assert_eq!(m.option("subvol").as_deref(), Some("/@home"));
        assert_eq!(m.option("subvolid").as_deref(), Some("257"));
        assert_eq!(m.option("nope"), None);
    }

    #[test]
    fn rejects_malformed_lines() {
        for bad in [
            "",
            "x",
            "1 2 3:4 / /",
            "1 2 3 / / rw - ext4 /dev/x rw",
            "1 2 3:4 / / rw no-separator",
            "1 2 3:4 / / rw -",
            "a b 3:4 / / rw - ext4 x rw",
            "1 2 3:4  / rw - ext4 x rw",
        ] {
            assert_eq!(parse_mountinfo_line(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn unescape_handles_truncated_and_large_escapes() {
        assert_eq!(unescape("a\\040b"), "a b");
        assert_eq!(unescape("a\\04"), "a\\04");
        assert_eq!(unescape("a\\"), "a\\");
        assert_eq!(unescape("\\777"), "\\777");
        assert_eq!(unescape("\\011\\012\\134"), "\t\n\\");
    }

    fn table(lines: &[&str]) -> Vec<MountInfo> {
        lines
            .iter()
            .map(|l| parse_mountinfo_line(l).unwrap())
            .collect()
    }

    #[test]
    fn prefix_is_component_wise() {
        let t = table(&[
            "1 0 8:1 / / rw - ext4 /dev/sda1 rw",
            "2 1 8:2 / /a/b rw - ext4 /dev/sda2 rw",
        ]);
        assert_eq!(find_by_prefix(&t, Path::new("/a/b/c")).unwrap().mount_id, 2);
        assert_eq!(find_by_prefix(&t, Path::new("/a/b")).unwrap().mount_id, 2);
        assert_eq!(find_by_prefix(&t, Path::new("/a/bc")).unwrap().mount_id, 1);
    }

    #[test]
    fn over_mount_picks_the_visible_top() {
        // 30 is mounted on top of 25 although listed first.
        let t = table(&[
            "1 0 8:1 / / rw - ext4 /dev/sda1 rw",
            "30 25 0:27 / /dev/shm rw - tmpfs tmpfs rw",
            "25 1 0:23 / /dev/shm rw - tmpfs tmpfs rw",
        ]);
        assert_eq!(
            find_by_prefix(&t, Path::new("/dev/shm/x"))
                .unwrap()
                .mount_id,
            30
        );
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../..")), PathBuf::from("/"));
    }
}
