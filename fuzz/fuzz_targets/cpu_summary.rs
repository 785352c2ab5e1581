//! The whole `[ CPU info ]` block: the input is split into files of a
//! temporary sysroot, then `cpu::read_summary` and `CpuSummary::lines` run
//! on it. Invariants: no panic, no hang, and lscpu's column rule: every
//! value starts at the same column, right after the padded label.
//!
//! Input: parts separated by a line `%%` (`"\n%%\n"`), in this order; a
//! missing part or a part that is exactly `!` leaves the file absent:
//!  0 `/proc/cpuinfo`
//!  1 `/sys/devices/system/cpu/possible`
//!  2 `.../online`
//!  3 `.../present`
//!  4 `.../kernel_max` (ignored when it says more than 4096 CPUs: the
//!    reader then stats every CPU directory, which is correct but slow)
//!  5 `/proc/sysinfo` (s390)
//!  6 `/sys/firmware/dmi/tables/DMI` (binary)
//!  7 names of `vulnerabilities/` files, one a line (kept to `[a-z0-9_]`)
//!  8 names of `/sys/devices/system/node/` directories, one a line
//!    (kept to `[a-z0-9]`)
//!  9.. four parts per CPU, cpu0 to cpu3: `thread_siblings`,
//!    `core_siblings`, `book_siblings`, `drawer_siblings` of `topology/`.
#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use quickbench::sysinfo::cpu::{read_summary, topology::scan_int};
use quickbench::Sysroot;

const CPU: &str = "sys/devices/system/cpu";
const LABELS: &[&str] = &[
    "Model name:",
    "BIOS Model name:",
    "Thread(s) per core:",
    "Core(s) per socket:",
    "Core(s) per cluster:",
    "Socket(s):",
    "Socket(s) per book:",
];

fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!(
            "quickbench-fuzz-cpu-summary-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temporary sysroot");
        dir
    })
}

fn split<'a>(data: &'a [u8], sep: &[u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some(i) = rest.windows(sep.len()).position(|w| w == sep) {
        out.push(&rest[..i]);
        rest = &rest[i + sep.len()..];
    }
    out.push(rest);
    out
}

/// Writes `content` to `root/rel`, or removes the file when `None`/`!`.
fn put(root: &Path, rel: &str, content: Option<&[u8]>) {
    let path = root.join(rel);
    match content.filter(|c| *c != b"!") {
        Some(c) => {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, c).unwrap();
        }
        None => {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Makes one entry per line of `names` under `root/dir` (files or
/// directories), keeping only the bytes `keep` accepts.
fn entries(root: &Path, dir: &str, names: Option<&[u8]>, keep: fn(u8) -> bool, as_dir: bool) {
    let d = root.join(dir);
    let _ = fs::remove_dir_all(&d);
    let Some(names) = names else { return };
    fs::create_dir_all(&d).unwrap();
    for line in names.split(|&c| c == b'\n').take(8) {
        let name: String = line
            .iter()
            .copied()
            .filter(|&c| keep(c))
            .map(char::from)
            .collect();
        if name.is_empty() {
            continue;
        }
        let p = d.join(&name);
        if as_dir {
            let _ = fs::create_dir(&p);
        } else {
            // a non-empty file is a printed label, an empty one is not
            let _ = fs::write(
                &p,
                if name.len().is_multiple_of(2) {
                    "Mitigation\n"
                } else {
                    ""
                },
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let root = root();
    let parts = split(data, b"\n%%\n");
    let part = |i: usize| parts.get(i).copied();

    put(root, "proc/cpuinfo", part(0));
    put(root, &format!("{CPU}/possible"), part(1));
    put(root, &format!("{CPU}/online"), part(2));
    put(root, &format!("{CPU}/present"), part(3));
    let kernel_max =
        part(4).filter(|k| scan_int(&String::from_utf8_lossy(k)).is_none_or(|v| v < 4096));
    put(root, &format!("{CPU}/kernel_max"), kernel_max);
    put(root, "proc/sysinfo", part(5));
    put(root, "sys/firmware/dmi/tables/DMI", part(6));
    entries(
        root,
        &format!("{CPU}/vulnerabilities"),
        part(7),
        |c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_',
        false,
    );
    entries(
        root,
        "sys/devices/system/node",
        part(8),
        |c| c.is_ascii_lowercase() || c.is_ascii_digit(),
        true,
    );
    for cpu in 0..4 {
        for (j, name) in ["thread", "core", "book", "drawer"].iter().enumerate() {
            put(
                root,
                &format!("{CPU}/cpu{cpu}/topology/{name}_siblings"),
                part(9 + cpu * 4 + j),
            );
        }
    }

    let summary = read_summary(&Sysroot::new(root));
    let w = summary.label_width_chars;
    for line in quickbench::report::text::cpu_info_lines(
        &quickbench::model::CpuInfo::from_summary(summary.clone()),
    ) {
        let label = line.get(..w).map(str::trim_end).unwrap_or("");
        assert!(LABELS.contains(&label), "{line:?} (width {w})");
        assert_eq!(line.as_bytes().get(w), Some(&b' '), "{line:?} (width {w})");
    }
});
