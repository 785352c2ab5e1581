//! The real binary, full storage sections, on real filesystems other than
//! `/`: each names the right device and filesystem, draws the stack where
//! it applies, and leaves the filesystem as it found it (no file, same
//! usage). Root only; skipped with the reason elsewhere.

use crate::common_live::*;

use std::path::Path;
use std::process::Command;

/// Runs storage + io with 1 job, a short delay and a 32 MiB file on `dir`;
/// returns stdout after checking the exit status and that nothing is left.
fn full_run(dir: &Path) -> String {
    let before_names = entries(dir);
    let before_used = used_blocks(dir);
    let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .args([
            "0.1",
            "-q",
            "--only",
            "storage,io",
            "--io-jobs",
            "1,4",
            "--max-size",
            "32M",
            "--dir",
        ])
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}\n{err}");
    assert_eq!(
        entries(dir),
        before_names,
        "a file was left in {}",
        dir.display()
    );
    // Metadata (journal, allocation trees) may move a few blocks, not the file.
    let after_used = used_blocks(dir);
    assert!(
        after_used <= before_used + 64,
        "usage grew from {before_used} to {after_used} blocks on {}",
        dir.display()
    );
    assert!(text.contains("[ Storage info ]"), "{text}");
    for line in text
        .lines()
        .filter(|l| l.starts_with("Writes") || l.starts_with("Reads"))
    {
        assert!(
            !line.contains("stopped") && !line.contains("interrupted"),
            "{line}"
        );
    }
    assert_eq!(text.matches("thread[s]):").count(), 8, "{text}");
    text
}

#[test]
fn ext4_on_a_loop_device() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.ext4");
    let mut g = Guard::new();
    let dev = g.loop_dev("ext4.img", 256);
    run("mkfs.ext4", &["-q", "-F", &format!("/dev/{dev}")]);
    let mp = g.mount(&[&format!("/dev/{dev}")], "mnt");
    let text = full_run(&mp);
    assert!(
        text.contains(&format!("[ Storage bandwidth - 4k blocks ({dev}) ]")),
        "{text}"
    );
    assert!(
        text.contains(&format!("[ Storage bandwidth - 1M blocks ({dev}) ]")),
        "{text}"
    );
    // A loop device is stacked on its backing file: the stack is drawn.
    assert!(text.contains("[ Storage device stack ]"), "{text}");
    assert!(text.contains(&format!("{dev} ")), "{text}");
}

#[test]
fn xfs_on_a_loop_device() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.xfs");
    let mut g = Guard::new();
    let dev = g.loop_dev("xfs.img", 320);
    run("mkfs.xfs", &["-q", "-f", &format!("/dev/{dev}")]);
    let mp = g.mount(&[&format!("/dev/{dev}")], "mnt");
    let text = full_run(&mp);
    assert!(text.contains(&format!("4k blocks ({dev}) ]")), "{text}");
}

#[test]
fn btrfs_across_two_loop_devices() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.btrfs");
    let mut g = Guard::new();
    let a = g.loop_dev("a.img", 256);
    let b = g.loop_dev("b.img", 256);
    run(
        "mkfs.btrfs",
        &[
            "-q",
            "-f",
            "-d",
            "raid1",
            "-m",
            "raid1",
            &format!("/dev/{a}"),
            &format!("/dev/{b}"),
        ],
    );
    let mp = g.mount(&[&format!("/dev/{a}")], "mnt");
    let text = full_run(&mp);
    let mut names = [a.clone(), b.clone()];
    names.sort_by_key(|n| n.trim_start_matches("loop").parse::<u32>().unwrap_or(0));
    let both = format!("{}+{}", names[0], names[1]);
    assert!(text.contains(&format!("4k blocks ({both}) ]")), "{text}");
    assert!(text.contains("[ Storage device stack ]"), "{text}");
}

#[test]
fn overlay_over_ext4_names_the_upper_device() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.ext4");
    let mut g = Guard::new();
    let dev = g.loop_dev("ovl.img", 256);
    run("mkfs.ext4", &["-q", "-F", &format!("/dev/{dev}")]);
    let base = g.mount(&[&format!("/dev/{dev}")], "base");
    for d in ["lower", "upper", "work"] {
        std::fs::create_dir(base.join(d)).unwrap();
    }
    let opts = format!(
        "lowerdir={},upperdir={},workdir={}",
        base.join("lower").display(),
        base.join("upper").display(),
        base.join("work").display()
    );
    let merged = g.mount(&["-t", "overlay", "overlay", "-o", &opts], "merged");
    let text = full_run(&merged);
    assert!(text.contains(&format!("4k blocks ({dev}) ]")), "{text}");
    assert!(
        entries(&base.join("upper")).is_empty(),
        "a file was left in the upper dir"
    );
}

#[test]
fn tmpfs_says_memory_is_measured() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!();
    let mut g = Guard::new();
    let mp = g.mount(&["-t", "tmpfs", "-o", "size=128m", "tmpfs"], "tmp");
    let text = full_run(&mp);
    assert!(
        text.contains("4k blocks (tmpfs: memory, not a disk) ]"),
        "{text}"
    );
    assert!(!text.contains("[ Storage device stack ]"), "{text}");
}

#[test]
fn ext4_data_journal_says_the_page_cache_is_measured() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.ext4");
    let mut g = Guard::new();
    let dev = g.loop_dev("journal.img", 256);
    run("mkfs.ext4", &["-q", "-F", &format!("/dev/{dev}")]);
    let mp = g.mount(&["-o", "data=journal", &format!("/dev/{dev}")], "mnt");
    let text = full_run(&mp);
    assert!(
        text.contains(&format!("4k blocks ({dev}, buffered: page cache) ]")),
        "{text}"
    );
}
