//! Facts about the host read from `/proc` and `/sys`: the kernel (what
//! `uname -a` prints), memory (`/proc/meminfo`), the CPUs this process may
//! run on, and, in [`cpu`], the lscpu-identical CPU summary; [`cgroup`]:
//! the cgroup CPU quota and memory limit; [`load`]: how busy the host was
//! during a step.

pub mod cgroup;
pub mod cpu;
pub mod load;
pub mod procstat;

use crate::Sysroot;

/// The fields `uname -a` prints (GNU coreutils and busybox form).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Uname {
    /// Kernel name (`Linux`).
    pub sysname: String,
    /// Network node name (hostname).
    pub nodename: String,
    /// Kernel release (`6.18.44-fc-v1045`).
    pub release: String,
    /// Kernel version (`#1 SMP PREEMPT_DYNAMIC @0`).
    pub version: String,
    /// Hardware name (`x86_64`).
    pub machine: String,
}

impl Uname {
    /// What `uname -a` prints: the five fields, then `GNU/Linux`.
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {} {} GNU/Linux",
            self.sysname, self.nodename, self.release, self.version, self.machine
        )
    }
}

fn cstr_field(f: &[libc::c_char]) -> String {
    let bytes: Vec<u8> = f
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The running kernel's uname(2).
pub fn live_uname() -> Uname {
    // SAFETY: uname only writes the zeroed struct it is given.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return Uname {
            sysname: "Linux".into(),
            nodename: "unknown".into(),
            release: "unknown".into(),
            version: "unknown".into(),
            machine: std::env::consts::ARCH.into(),
        };
    }
    Uname {
        sysname: cstr_field(&u.sysname),
        nodename: cstr_field(&u.nodename),
        release: cstr_field(&u.release),
        version: cstr_field(&u.version),
        machine: cstr_field(&u.machine),
    }
}

/// uname for the sysroot: the live kernel's, or for a dump the files of
/// `/proc/sys/kernel/` (`ostype`, `hostname`, `osrelease`, `version`,
/// `arch`), each `unknown` when the dump lacks it.
pub fn uname(sys: &Sysroot) -> Uname {
    if sys.is_live() {
        return live_uname();
    }
    let get = |name: &str| {
        sys.read_trimmed(format!("/proc/sys/kernel/{name}"))
            .unwrap_or_else(|| "unknown".to_string())
    };
    Uname {
        sysname: get("ostype"),
        nodename: get("hostname"),
        release: get("osrelease"),
        version: get("version"),
        machine: get("arch"),
    }
}

/// `MemTotal` of `/proc/meminfo`, in kB (the kernel's kB are KiB).
pub fn parse_meminfo_total_kib(text: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("MemTotal:")?;
        let mut words = rest.split_whitespace();
        let n = words.next()?.parse().ok()?;
        match words.next() {
            None | Some("kB") => Some(n),
            Some(_) => None,
        }
    })
}

/// Reads `MemTotal` (kB) from the sysroot's `/proc/meminfo`.
pub fn mem_total_kib(sys: &Sysroot) -> anyhow::Result<u64> {
    let path = sys.path("/proc/meminfo");
    let text = sys
        .read_to_string("/proc/meminfo")
        .map_err(|e| anyhow::anyhow!("{e} (is /proc mounted? mount -t proc proc /proc)"))?;
    parse_meminfo_total_kib(&text)
        .ok_or_else(|| anyhow::anyhow!("{}: no MemTotal line", path.display()))
}

/// Parses a kernel CPU list such as `0-3,8-11` into CPU numbers; `None` on
/// malformed text. Ranges are capped at 65536 CPUs.
pub fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    let t = text.trim();
    if t.is_empty() {
        return Some(out);
    }
    for part in t.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
            None => {
                let n = part.trim().parse::<u32>().ok()?;
                (n, n)
            }
        };
        if b < a || b >= 65_536 {
            return None;
        }
        out.extend(a..=b);
    }
    Some(out)
}

/// How many CPUs this process may run on: its affinity mask when live,
/// the `online` list of a dump, at least 1.
pub fn usable_cpus(sys: &Sysroot) -> usize {
    if sys.is_live() {
        if let Ok(set) = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)) {
            let n = (0..nix::sched::CpuSet::count())
                .filter(|&i| set.is_set(i).unwrap_or(false))
                .count();
            if n > 0 {
                return n;
            }
        }
        return std::thread::available_parallelism().map_or(1, |n| n.get());
    }
    sys.read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|t| parse_cpu_list(&t))
        .map_or(1, |v| v.len().max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO_X86: &str = "MemTotal:       24683584 kB\nMemFree:        23012344 kB\nMemAvailable:   23864520 kB\nBuffers:           52424 kB\n";

    #[test]
    fn meminfo_total_from_a_real_excerpt() {
        assert_eq!(parse_meminfo_total_kib(MEMINFO_X86), Some(24_683_584));
        assert_eq!(24_683_584u64 >> 10, 24_105);
    }

    #[test]
    fn meminfo_without_total_is_none() {
        assert_eq!(parse_meminfo_total_kib("MemFree: 1 kB\n"), None);
        assert_eq!(parse_meminfo_total_kib(""), None);
        assert_eq!(parse_meminfo_total_kib("MemTotal: lots kB\n"), None);
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-1\n"), Some(vec![0, 1]));
        assert_eq!(parse_cpu_list("0,2-3,7"), Some(vec![0, 2, 3, 7]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(parse_cpu_list("0-4294967295"), None);
    }

    #[test]
    fn uname_line_has_the_gnu_form() {
        let u = Uname {
            sysname: "Linux".into(),
            nodename: "vm".into(),
            release: "6.18.44-fc-v1045".into(),
            version: "#1 SMP PREEMPT_DYNAMIC @0".into(),
            machine: "x86_64".into(),
        };
        assert_eq!(
            u.line(),
            "Linux vm 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux"
        );
    }

    #[test]
    fn dump_uname_reads_proc_sys_kernel() {
        let d = tempfile::tempdir().unwrap();
        let k = d.path().join("proc/sys/kernel");
        std::fs::create_dir_all(&k).unwrap();
        std::fs::write(k.join("ostype"), "Linux\n").unwrap();
        std::fs::write(k.join("hostname"), "box\n").unwrap();
        let u = uname(&Sysroot::new(d.path()));
        assert_eq!(u.sysname, "Linux");
        assert_eq!(u.nodename, "box");
        assert_eq!(u.release, "unknown");
    }
}
