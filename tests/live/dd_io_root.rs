//! Root-only tests of the storage engine on real mounts: a 100 MiB ext4
//! loop filesystem, the same mounted read-only, and a tmpfs. Each skips
//! with a printed reason when not root or when a tool is missing; a Drop
//! guard unmounts and detaches whatever was set up.

use crate::common_skip;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use quickbench::dd_io::{self, Direction, IoConfig};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn can_run(tools: &[&str]) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        common_skip::skip("needs root");
        return false;
    }
    for t in tools {
        if !have(t) {
            common_skip::skip(&format!("{t} not found"));
            return false;
        }
    }
    true
}

fn run(cmd: &str, args: &[&str]) -> Result<String, String> {
    let o = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{cmd} {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// A mount point (and maybe a loop device) torn down on drop.
struct Mount {
    dir: tempfile::TempDir,
    loop_dev: Option<String>,
    _img: Option<tempfile::NamedTempFile>,
}

impl Mount {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A fresh ext4 of `mib` MiB on a loop device, mounted with `opts`.
    fn ext4(mib: u64, opts: &str) -> Result<Mount, String> {
        let img = tempfile::NamedTempFile::new_in(env!("CARGO_TARGET_TMPDIR"))
            .map_err(|e| e.to_string())?;
        img.as_file()
            .set_len(mib << 20)
            .map_err(|e| e.to_string())?;
        let p = img.path().to_str().unwrap().to_string();
        run("mkfs.ext4", &["-q", "-F", &p])?;
        let dev = run("losetup", &["-f", "--show", &p])?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let m = Mount {
            dir,
            loop_dev: Some(dev.clone()),
            _img: Some(img),
        };
        run("mount", &["-o", opts, &dev, m.path().to_str().unwrap()])?;
        Ok(m)
    }

    /// A memory filesystem: `fstype` tmpfs or ramfs, with mount options.
    fn memory(fstype: &str, opts: &str) -> Result<Mount, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let m = Mount {
            dir,
            loop_dev: None,
            _img: None,
        };
        run(
            "mount",
            &["-t", fstype, "-o", opts, fstype, m.path().to_str().unwrap()],
        )?;
        Ok(m)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = run("umount", &[self.path().to_str().unwrap()]);
        if let Some(d) = &self.loop_dev {
            let _ = run("losetup", &["-d", d]);
        }
    }
}

/// (free blocks, free inodes) of the filesystem holding `p`.
fn usage(p: &Path) -> (u64, u64) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: zeroed plain struct filled by statvfs; result checked.
    unsafe {
        let mut s: libc::statvfs = std::mem::zeroed();
        assert_eq!(libc::statvfs(c.as_ptr(), &mut s), 0);
        (s.f_bfree as u64, s.f_ffree as u64)
    }
}

fn names(p: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn small_loop_filesystem_runs_all_lines_and_is_left_as_found() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["losetup", "mkfs.ext4", "mount", "umount"]) {
        return;
    }
    let m = Mount::ext4(100, "rw").expect("loop fs");
    let before = usage(m.path());
    let before_names = names(m.path());
    {
        let dev = m
            .loop_dev
            .as_deref()
            .unwrap()
            .trim_start_matches("/dev/")
            .to_string();
        let mut cfg = IoConfig::new(m.path());
        cfg.stat_dev = Some(dev);
        let mut ws = dd_io::prepare(&cfg).expect("prepare");
        assert!(
            ws.file_size_bytes() <= before.0 * 4096 / 2,
            "bounded by half the free space"
        );
        assert!(ws.direct_io());
        let cut = AtomicBool::new(false);
        for bs in [4096u64, 1 << 20] {
            for dir in [Direction::Write, Direction::Read] {
                for jobs in [1u32, 4, 16] {
                    let r = ws.run_line(bs, dir, jobs, Duration::from_millis(150), &cut);
                    assert_eq!(
                        r.end.error(),
                        None,
                        "{}",
                        quickbench::report::text::io_line(&r)
                    );
                    assert!(r.ios > 0);
                    let d = r.device_stat_delta.expect("loop device stat");
                    // Every byte went to the device: reads found written
                    // blocks (a hole or unwritten extent costs no device I/O).
                    let device_bytes = match dir {
                        Direction::Write => d.write_sectors * 512,
                        Direction::Read => d.read_sectors * 512,
                    };
                    assert!(device_bytes >= r.bytes * 9 / 10, "{d:?} {r:?}");
                }
            }
        }
    }
    assert_eq!(names(m.path()), before_names, "no file left");
    // ext4 frees an unlinked file's blocks on the last close; give its
    // background work a moment.
    let t = Instant::now();
    while usage(m.path()) != before && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(usage(m.path()), before, "usage back to where it was");
}

#[test]
fn read_only_mount_is_a_clear_skip() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["losetup", "mkfs.ext4", "mount", "umount"]) {
        return;
    }
    let m = Mount::ext4(100, "ro").expect("loop fs");
    let e = dd_io::prepare(&IoConfig::new(m.path())).unwrap_err();
    let dir = m.path().display().to_string();
    assert!(
        e.reason.contains(&dir) && e.reason.contains("read-only"),
        "{e}"
    );
}

#[test]
fn tmpfs_works_and_says_memory_is_measured() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["mount", "umount"]) {
        return;
    }
    let m = Mount::memory("tmpfs", "size=256M").expect("tmpfs");
    let before = usage(m.path());
    {
        let mut ws = dd_io::prepare(&IoConfig::new(m.path())).expect("prepare");
        assert_eq!(ws.memory_fs(), Some("tmpfs"));
        assert_eq!(ws.title_facts().1, Some("tmpfs"));
        assert!(ws
            .advisories()
            .iter()
            .any(|a| matches!(a, dd_io::Advisory::MemoryBacked { fs, .. } if fs == "tmpfs")));
        assert!(ws.file_size_bytes() <= 128 << 20);
        let cut = AtomicBool::new(false);
        for dir in [Direction::Write, Direction::Read] {
            let r = ws.run_line(4096, dir, 4, Duration::from_millis(100), &cut);
            assert_eq!(r.end.error(), None);
            assert!(r.memory_backed && r.ios > 0);
        }
    }
    assert!(names(m.path()).is_empty());
    assert_eq!(usage(m.path()), before, "the memory is given back");
}

/// ramfs has no size limit and reports no free space: the file could not
/// be bounded, so the sections are skipped, saying why.
#[test]
fn ramfs_is_skipped_because_it_cannot_be_bounded() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["mount", "umount"]) {
        return;
    }
    let m = Mount::memory("ramfs", "mode=0755").expect("ramfs");
    let e = dd_io::prepare(&IoConfig::new(m.path())).unwrap_err();
    assert!(
        e.reason.contains("ramfs") && e.reason.contains(&m.path().display().to_string()),
        "{e}"
    );
    assert!(names(m.path()).is_empty());
}

/// An ext4 whose loop device sits on a sparse image in a tmpfs too small
/// for it: once the tmpfs is full, the device fails writes (EIO). The
/// line must stop with what it measured, marked, and leave nothing.
#[test]
fn device_errors_end_the_line_marked_and_leave_nothing() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(&["losetup", "mkfs.ext4", "mount", "umount"]) {
        return;
    }
    let backing = Mount::memory("tmpfs", "size=48M").expect("tmpfs");
    let img = backing.path().join("img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len(400 << 20)
        .unwrap();
    let img_s = img.to_str().unwrap();
    run("mkfs.ext4", &["-q", "-F", img_s]).expect("mkfs");
    let dev = run("losetup", &["-f", "--show", img_s]).expect("losetup");
    let dir = tempfile::tempdir().unwrap();
    let m = Mount {
        dir,
        loop_dev: Some(dev.clone()),
        _img: None,
    };
    run(
        "mount",
        &["-o", "errors=continue", &dev, m.path().to_str().unwrap()],
    )
    .expect("mount");
    {
        let mut ws = dd_io::prepare(&IoConfig::new(m.path())).expect("prepare");
        assert!(
            ws.file_size_bytes() > 64 << 20,
            "bigger than the tmpfs under it"
        );
        let cut = AtomicBool::new(false);
        let r = ws.run_line(1 << 20, Direction::Write, 1, Duration::from_secs(10), &cut);
        let line = quickbench::report::text::io_line(&r);
        eprintln!("{line}\n{:?}", r.end);
        assert!(r.end.error().is_some(), "{line} {r:?}");
        assert!(
            matches!(
                r.end.errno(),
                Some(libc::EIO) | Some(libc::ENOSPC) | Some(libc::EROFS)
            ),
            "{r:?}"
        );
        assert!(line.contains("(stopped: "), "{line}");
        assert!(r.elapsed_ns < 9_000_000_000, "stopped early: {r:?}");
        // The run can go on: a read line reads back what was written.
        let r = ws.run_line(
            1 << 20,
            Direction::Read,
            1,
            Duration::from_millis(100),
            &cut,
        );
        assert!(r.ios > 0 || r.end.error().is_some(), "{r:?}");
    }
    assert!(
        names(m.path()).iter().all(|p| p.ends_with("lost+found")),
        "{:?}",
        names(m.path())
    );
    drop(m);
    drop(backing);
}
