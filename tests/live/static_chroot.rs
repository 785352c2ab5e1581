//! The static binary runs in an empty chroot that holds only itself and
//! mounts of /proc, /sys and /dev: no shell, no libc, no util-linux.
//! Root only (mounts and chroot); skipped with the reason elsewhere.

use crate::common_skip;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Unmounts what it mounted, in reverse order, on every exit path.
struct Mounts(Vec<PathBuf>);

impl Drop for Mounts {
    fn drop(&mut self) {
        for p in self.0.iter().rev() {
            let _ = Command::new("umount").arg("-l").arg(p).status();
        }
    }
}

fn skip(why: &str) {
    common_skip::skip(why);
}

/// Builds the static binary with the README's command, in its own target
/// directory so that the build does not wait on the one running the tests.
fn build_static() -> Option<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = manifest.join("target/chroot-test");
    let st = Command::new(cargo)
        .current_dir(manifest)
        .env("CARGO_TARGET_DIR", &target_dir)
        .args(["build-static", "--quiet"])
        .status()
        .ok()?;
    if !st.success() {
        return None;
    }
    Some(target_dir.join("x86_64-unknown-linux-gnu/release/quickbench"))
}

#[test]
fn static_binary_runs_in_an_empty_chroot() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    if !cfg!(all(
        target_arch = "x86_64",
        target_os = "linux",
        target_env = "gnu"
    )) {
        return skip("the cargo build-static alias targets x86_64-unknown-linux-gnu");
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return skip("needs root (mount, chroot)");
    }
    if Command::new("chroot").arg("--version").output().is_err() {
        return skip("no chroot command on this host");
    }
    let bin = build_static().expect("cargo build-static failed");
    let file = fs::read(&bin).unwrap();
    // A static executable has no PT_INTERP program header (no dynamic
    // loader): check the ELF program headers.
    assert!(!has_interp(&file), "{} is not static", bin.display());

    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    fs::copy(&bin, r.join("quickbench")).unwrap();
    // Before anything is mounted: a clear message naming the mounts needed.
    let bare = Command::new("chroot")
        .arg(r)
        .args(["/quickbench", "0.1", "--only", "cpuinfo,memory", "-q"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bare.stderr);
    assert_eq!(bare.status.code(), Some(1), "{err}");
    assert!(err.contains("mount -t proc proc /proc"), "{err}");
    assert!(err.contains("mount -t sysfs sysfs /sys"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let mut mounts = Mounts(Vec::new());
    for (src, dst, fstype) in [
        ("proc", "proc", "proc"),
        ("/sys", "sys", ""),
        ("/dev", "dev", ""),
    ] {
        let target = r.join(dst);
        fs::create_dir(&target).unwrap();
        let st = if fstype.is_empty() {
            Command::new("mount")
                .args(["--bind", src])
                .arg(&target)
                .status()
        } else {
            Command::new("mount")
                .args(["-t", fstype, src])
                .arg(&target)
                .status()
        }
        .unwrap();
        assert!(st.success(), "mounting {}", target.display());
        mounts.0.push(target);
    }
    let entries: Vec<_> = fs::read_dir(r)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        entries.len(),
        4,
        "the chroot holds more than the binary: {entries:?}"
    );

    let out = Command::new("chroot")
        .arg(r)
        .args([
            "/quickbench",
            "0.2",
            "--only",
            "cpuinfo,cpu,memory,storage,io",
            "--io-jobs",
            "1",
            "--max-size",
            "16M",
            "-q",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}\n{err}");
    assert!(text.contains(", static\n"), "{text}");
    for title in [
        "[ CPU info ]",
        "[ CPU loop ]",
        "[ Memory ]",
        "[ Storage info ]",
    ] {
        assert!(text.contains(title), "{title} missing: {text}");
    }
    assert!(text.contains("Model name:"), "{text}");
    assert!(text.contains("Bandwidth: "), "{text}");
    // The device is found from inside the chroot (whose root is no mount
    // point): the directory's device number leads to it.
    assert!(text.contains("[ Storage bandwidth - 4k blocks ("), "{text}");
    assert!(!text.contains("unknown device"), "{text}");
    assert_eq!(text.matches("thread[s]):").count(), 4, "{text}");
    let left: Vec<_> = fs::read_dir(r)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 4, "a file was left in the chroot: {left:?}");
    drop(mounts);
}

/// True when the ELF file has a PT_INTERP program header.
fn has_interp(elf: &[u8]) -> bool {
    assert_eq!(&elf[..4], b"\x7fELF");
    assert_eq!(elf[4], 2, "64-bit ELF expected");
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    let phoff = u64_at(0x20);
    let phentsize = u16_at(0x36);
    let phnum = u16_at(0x38);
    (0..phnum).any(|i| {
        let o = phoff + i * phentsize;
        u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) == 3
    })
}
