//! Root-only live test of the reach check: bindfs over a loop ext4. Read lines
//! through FUSE come from the page cache (the loop device barely reads) and
//! must be judged `Cached`; the same ext4 benchmarked directly must be
//! judged `Reached`. Skips with a printed reason when not root or when a
//! tool is missing, and fails instead when `QB_REQUIRE_ROOT_TESTS=1`. A
//! Drop guard unmounts and detaches whatever was set up, on every path.

use crate::common_skip;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use quickbench::blockdev::{check_layout, daemon_dirs, fuse_backing, resolve_dir, BackingFrom};
use quickbench::conditions::reach::{judge_line, Reach, ReachVerdict};
use quickbench::dd_io::{self, Direction, IoConfig, LineResult};
use quickbench::Sysroot;

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// True when the test can run; else says why (and panics when root tests
/// are required).
fn can_run(test: &str, tools: &[&str]) -> bool {
    // SAFETY: geteuid has no preconditions.
    let why = if unsafe { libc::geteuid() } != 0 {
        Some("needs root".to_string())
    } else if !Path::new("/dev/fuse").exists() {
        Some("/dev/fuse missing (no FUSE in this kernel or container)".to_string())
    } else {
        tools
            .iter()
            .find(|t| !have(t))
            .map(|t| format!("{t} not found (.ci/run installs it)"))
    };
    match why {
        None => true,
        Some(w) => {
            common_skip::skip(&format!("{test}: {w}"));
            false
        }
    }
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

/// A loop ext4 and the FUSE mounts over it, torn down on drop (FUSE
/// first, then the ext4, then the loop device).
struct Setup {
    fuse: Vec<tempfile::TempDir>,
    ext4: tempfile::TempDir,
    loop_dev: Option<String>,
    _img: tempfile::NamedTempFile,
}

impl Setup {
    fn ext4(mib: u64) -> Result<Setup, String> {
        let img = tempfile::NamedTempFile::new_in(env!("CARGO_TARGET_TMPDIR"))
            .map_err(|e| e.to_string())?;
        img.as_file()
            .set_len(mib << 20)
            .map_err(|e| e.to_string())?;
        let p = img.path().to_str().unwrap().to_string();
        run("mkfs.ext4", &["-q", "-F", &p])?;
        let mut s = Setup {
            fuse: Vec::new(),
            ext4: tempfile::tempdir().map_err(|e| e.to_string())?,
            loop_dev: None,
            _img: img,
        };
        let dev = run("losetup", &["-f", "--show", &p])?;
        s.loop_dev = Some(dev.clone());
        run("mount", &[&dev, s.ext4.path().to_str().unwrap()])?;
        std::fs::create_dir(s.data()).map_err(|e| e.to_string())?;
        Ok(s)
    }

    /// The directory bindfs serves.
    fn data(&self) -> PathBuf {
        self.ext4.path().join("data")
    }

    fn loop_name(&self) -> String {
        self.loop_dev
            .as_deref()
            .unwrap()
            .trim_start_matches("/dev/")
            .to_string()
    }

    /// bindfs of `data()` on a new directory, with extra arguments.
    fn bindfs(&mut self, extra: &[&str]) -> Result<PathBuf, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mnt = dir.path().to_path_buf();
        let data = self.data();
        let mut args: Vec<&str> = extra.to_vec();
        args.extend([data.to_str().unwrap(), mnt.to_str().unwrap()]);
        // Pushed before mounting: a half-done mount is still unmounted.
        self.fuse.push(dir);
        run("bindfs", &args)?;
        Ok(mnt)
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        for d in self.fuse.iter().rev() {
            let _ = run("umount", &[d.path().to_str().unwrap()]);
        }
        // The bindfs daemon exits shortly after its unmount, still holding
        // the ext4 busy meanwhile: retry, then detach lazily.
        let ext4 = self.ext4.path().to_str().unwrap();
        let t = std::time::Instant::now();
        while run("umount", &[ext4]).is_err() {
            if t.elapsed() > Duration::from_secs(5) {
                let _ = run("umount", &["-l", ext4]);
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if let Some(d) = &self.loop_dev {
            let _ = run("losetup", &["-d", d]);
        }
    }
}

/// Runs write then read lines (4k x 4 jobs, 1M x 1 job) in `dir`, with
/// every device of `leaves` sampled, and judges each.
fn lines(dir: &Path, leaves: &[String]) -> Vec<(LineResult, Reach, String)> {
    let sys = Sysroot::live();
    let target = resolve_dir(&sys, dir).expect("resolve");
    let fuse = fuse_backing(&sys, &target);
    let layout = check_layout(&sys, &target, &fuse);
    assert_eq!(layout.leaf_names(), leaves, "{dir:?}: {target:?} {fuse:?}");
    let mut cfg = IoConfig::new(dir);
    cfg.max_size_bytes = 64 << 20;
    cfg.stat_dev = leaves.first().cloned();
    let mut ws = dd_io::prepare(&cfg).expect("prepare");
    ws.set_stat_devices(&layout.leaf_names());
    let cut = AtomicBool::new(false);
    let mut out = Vec::new();
    for (bs, jobs) in [(4096u64, 4u32), (1 << 20, 1)] {
        for d in [Direction::Write, Direction::Read] {
            let r = ws.run_line(bs, d, jobs, Duration::from_millis(300), &cut);
            assert_eq!(
                r.end.error(),
                None,
                "{}",
                quickbench::report::text::io_line(&r)
            );
            assert_eq!(r.device_deltas.len(), leaves.len(), "{r:?}");
            assert_eq!(
                r.device_stat_delta
                    .map(|s| s.read_sectors + s.write_sectors),
                Some(
                    r.device_deltas
                        .iter()
                        .map(|x| x.delta.read_sectors + x.delta.write_sectors)
                        .sum()
                ),
                "the sum field is the sum of the devices"
            );
            let reach = judge_line(&r, &layout);
            let text = format!(
                "{} {:>5} {:?} x{}: engine {} B, {} counted {:?} B = {:.1} % -> {:?}",
                dir.display(),
                bs,
                d,
                jobs,
                r.bytes,
                reach.devices.join("+"),
                reach.device_bytes,
                reach.device_share_percent.unwrap_or(f64::NAN),
                reach.verdict
            );
            eprintln!("{text}");
            out.push((r, reach, text));
        }
    }
    out
}

#[test]
fn reads_through_bindfs_are_cached_and_direct_ones_reach_the_loop_device() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(
        "bindfs_reach",
        &["losetup", "mkfs.ext4", "mount", "umount", "bindfs"],
    ) {
        return;
    }
    let mut s = Setup::ext4(200).expect("loop ext4");
    let leaves = vec![s.loop_name()];
    // An option before the paths, as users write them: it is skipped.
    let via_source = s.bindfs(&["--no-allow-other"]).expect("bindfs");
    let sys = Sysroot::live();
    let t = resolve_dir(&sys, &via_source).unwrap();
    assert_eq!(t.fs_type, "fuse");
    let b = fuse_backing(&sys, &t);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0].from, BackingFrom::MountSource);
    assert_eq!(b[0].members, leaves);
    // bindfs always puts its source in mountinfo (fsname= is overridden),
    // so the daemon's arguments are checked directly: the live /proc scan
    // must find the same directory.
    let d = daemon_dirs(&sys, &via_source);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, s.data());

    for (r, reach, text) in lines(&via_source, &leaves) {
        if r.direction == Direction::Read {
            assert!(
                matches!(reach.verdict, ReachVerdict::Cached { .. }),
                "through FUSE: {text}"
            );
        }
    }
    for (_, reach, text) in lines(&s.data(), &leaves) {
        assert_eq!(reach.verdict, ReachVerdict::Reached, "direct: {text}");
    }
}

/// The binary on bindfs over a loop ext4 marks its read lines cached, and
/// says so on stderr; on the ext4 itself no line is marked cached.
#[test]
fn the_report_marks_the_lines_a_fuse_cache_served() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !can_run(
        "bindfs_report",
        &["losetup", "mkfs.ext4", "mount", "umount", "bindfs"],
    ) {
        return;
    }
    let mut s = Setup::ext4(200).expect("loop ext4");
    let via = s.bindfs(&[]).expect("bindfs");
    let run = |dir: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
            .args([
                "0.3",
                "-q",
                "--only",
                "io",
                "--io-jobs",
                "1",
                "--max-size",
                "64M",
                "--dir",
            ])
            .arg(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (text, err) = run(&via);
    let loop_name = s.loop_name();
    let reads: Vec<&str> = text.lines().filter(|l| l.starts_with("Reads")).collect();
    assert_eq!(reads.len(), 2, "{text}");
    for l in &reads {
        assert!(
            l.contains(&format!("(cached: {loop_name} saw ")) && l.ends_with("% of these reads)"),
            "{l}\n{text}"
        );
    }
    assert!(err.contains("cached (the device saw much less"), "{err}");
    // no local block device: the titles say who decides what reaches a disk
    assert!(
        text.contains(": its server or daemon decides what reaches a disk) ]"),
        "{text}"
    );
    let (direct, _) = run(&s.data());
    assert!(!direct.contains("(cached"), "{direct}");
    assert!(!direct.contains("server or daemon"), "{direct}");
    // nothing left behind on either
    assert_eq!(std::fs::read_dir(s.data()).unwrap().count(), 0);
}
