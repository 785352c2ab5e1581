//! Helpers for live tests that need root: loop devices, mounts, and a
//! guard that undoes them on every exit path.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[allow(unused_imports)]
pub use crate::common_skip::skip;
use std::process::Command;

pub fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
}

/// Why this live test cannot run here, if it cannot.
pub fn skip_reason(tools: &[&str]) -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some("no /dev/loop-control".into());
    }
    tools
        .iter()
        .find(|t| !have(t))
        .map(|t| format!("{t} is not installed"))
}

#[macro_export]
macro_rules! need {
    ($($tool:expr),*) => {
        if let Some(why) = $crate::common_live::skip_reason(&["losetup", "mount", "umount", $($tool),*]) {
            $crate::common_live::skip(&why);
            return;
        }
    };
}

/// Used blocks of the filesystem holding `p`.
pub fn used_blocks(p: &Path) -> u64 {
    let s = nix::sys::statvfs::statvfs(p).unwrap();
    (s.blocks() - s.blocks_free()) as u64
}

/// The names in directory `p`, sorted.
pub fn entries(p: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

pub fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Loop devices and mounts made by a test, undone in reverse on drop.
pub struct Guard {
    pub tmp: tempfile::TempDir,
    pub mounts: Vec<PathBuf>,
    pub loops: Vec<String>,
}

impl Guard {
    pub fn new() -> Self {
        Guard {
            tmp: tempfile::tempdir().unwrap(),
            mounts: Vec::new(),
            loops: Vec::new(),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    /// A sparse image of `mib` MiB attached to a free loop device: its
    /// kernel name (`loop3`).
    pub fn loop_dev(&mut self, img: &str, mib: u64) -> String {
        let p = self.path(img);
        std::fs::File::create(&p)
            .unwrap()
            .set_len(mib << 20)
            .unwrap();
        let dev = run("losetup", &["-f", "--show", p.to_str().unwrap()]);
        let name = dev.trim_start_matches("/dev/").to_string();
        self.loops.push(name.clone());
        name
    }

    pub fn mount(&mut self, args: &[&str], at: &str) -> PathBuf {
        let mp = self.path(at);
        std::fs::create_dir_all(&mp).unwrap();
        let mut all: Vec<&str> = args.to_vec();
        all.push(mp.to_str().unwrap());
        run("mount", &all);
        self.mounts.push(mp.clone());
        mp
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        for m in self.mounts.iter().rev() {
            let ok = Command::new("umount")
                .arg(m)
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                let _ = Command::new("umount").arg("-l").arg(m).status();
            }
        }
        for l in self.loops.iter().rev() {
            let _ = Command::new("losetup")
                .arg("-d")
                .arg(format!("/dev/{l}"))
                .status();
        }
    }
}

pub fn ext4_on_loop(g: &mut Guard, at: &str) -> (String, PathBuf) {
    let dev = g.loop_dev(&format!("{at}.img"), 64);
    run("mkfs.ext4", &["-q", "-F", &format!("/dev/{dev}")]);
    let mp = g.mount(&[&format!("/dev/{dev}")], at);
    (dev, mp)
}

/// A child process killed, with its whole process group, when dropped.
pub struct Kill(pub std::process::Child);

impl Drop for Kill {
    fn drop(&mut self) {
        // The whole process group: a shell's children go with it.
        // SAFETY: kill has no memory preconditions.
        unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A shell spinning on `cpu` (its affinity set to that CPU only).
pub fn spinner_on(cpu: usize) -> Kill {
    let c = Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut set = nix::sched::CpuSet::new();
    set.set(cpu).unwrap();
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(c.id() as i32), &set).unwrap();
    Kill(c)
}
