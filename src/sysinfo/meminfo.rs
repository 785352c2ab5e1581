//! `/proc/meminfo`: the lines the report uses, `MemTotal` (the memory
//! section) and `MemAvailable` (the DRAM arrays' cap).

use crate::Sysroot;

/// What the report takes from `/proc/meminfo`, in kB (the kernel's kB are
/// KiB); a line that is absent or malformed is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Meminfo {
    /// `MemTotal`: what Linux could allocate.
    pub mem_total_kib: Option<u64>,
    /// `MemAvailable` (Linux 3.14+): what could be allocated without
    /// swapping.
    pub mem_available_kib: Option<u64>,
}

/// Parses `/proc/meminfo` text. A value is a number followed by `kB` or
/// by nothing (the kernel writes `kB` on every line the report uses).
pub fn parse_meminfo(text: &str) -> Meminfo {
    let field = |key: &str| {
        text.lines().find_map(|l| {
            let rest = l.strip_prefix(key)?.strip_prefix(':')?;
            let mut words = rest.split_whitespace();
            let n = words.next()?.parse().ok()?;
            match words.next() {
                None | Some("kB") => Some(n),
                Some(_) => None,
            }
        })
    };
    Meminfo {
        mem_total_kib: field("MemTotal"),
        mem_available_kib: field("MemAvailable"),
    }
}

/// Reads the sysroot's `/proc/meminfo`; the error names the path and what
/// to do.
pub fn read_meminfo(sys: &Sysroot) -> anyhow::Result<Meminfo> {
    let text = sys
        .read_to_string("/proc/meminfo")
        .map_err(|e| anyhow::anyhow!("{e} (is /proc mounted? mount -t proc proc /proc)"))?;
    Ok(parse_meminfo(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head of this VM's /proc/meminfo (Linux 6.18, x86_64).
    const MEMINFO_X86: &str = "MemTotal:       24683584 kB\nMemFree:        23012344 kB\nMemAvailable:   23864520 kB\nBuffers:           52424 kB\n";

    /// Shaped as Linux before 3.14 writes it (CentOS 6's 2.6.32): no
    /// MemAvailable line yet.
    const MEMINFO_2_6_32: &str = "MemTotal:        1922976 kB\nMemFree:         1606300 kB\nBuffers:           13916 kB\nCached:           153836 kB\nSwapCached:            0 kB\n";

    #[test]
    fn total_and_available_from_real_excerpts() {
        let m = parse_meminfo(MEMINFO_X86);
        assert_eq!(m.mem_total_kib, Some(24_683_584));
        assert_eq!(m.mem_available_kib, Some(23_864_520));
        assert_eq!(24_683_584u64 >> 10, 24_105);
        let old = parse_meminfo(MEMINFO_2_6_32);
        assert_eq!(old.mem_total_kib, Some(1_922_976));
        assert_eq!(old.mem_available_kib, None);
    }

    #[test]
    fn absent_or_malformed_lines_are_none() {
        assert_eq!(parse_meminfo("MemFree: 1 kB\n"), Meminfo::default());
        assert_eq!(parse_meminfo(""), Meminfo::default());
        assert_eq!(parse_meminfo("MemTotal: lots kB\n").mem_total_kib, None);
        assert_eq!(parse_meminfo("MemTotal: 5 MB\n").mem_total_kib, None);
        // A longer key that starts like ours is another line.
        assert_eq!(
            parse_meminfo("MemAvailableX: 5 kB\n").mem_available_kib,
            None
        );
        assert_eq!(parse_meminfo("MemTotal: 7\n").mem_total_kib, Some(7));
    }

    #[test]
    fn reading_names_the_file() {
        let d = tempfile::tempdir().unwrap();
        let e = read_meminfo(&Sysroot::new(d.path())).unwrap_err();
        assert!(format!("{e:#}").contains("proc/meminfo"), "{e:#}");
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(d.path().join("proc/meminfo"), MEMINFO_X86).unwrap();
        let m = read_meminfo(&Sysroot::new(d.path())).unwrap();
        assert_eq!(m.mem_total_kib, Some(24_683_584));
    }
}
