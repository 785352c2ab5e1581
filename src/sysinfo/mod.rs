//! Facts about the host read from `/proc` and `/sys`: the kernel (what
//! `uname -a` prints), memory ([`meminfo`]), the CPUs this process may
//! run on, and, in [`cpu`], the lscpu-identical CPU summary; [`cgroup`]:
//! the cgroup CPU quota and memory limit; [`procstat`]: the CPU times of
//! `/proc/stat` and the CPUs' clocks.

pub mod cgroup;
pub mod cpu;
pub mod cpufreq;
pub mod meminfo;
pub mod procstat;
pub mod vmstat;

pub use meminfo::{parse_meminfo, read_meminfo, Meminfo};

use crate::Sysroot;

/// The fields `uname -a` prints (GNU coreutils and busybox form).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// A field the running kernel or the dump does not give.
const UNKNOWN: &str = "unknown";

impl Uname {
    /// What `uname -a` prints: the five fields, then `GNU/Linux`.
    ///
    /// A dump may not record them all. util-linux's dumps keep only
    /// `/proc/version`, which names the kernel (sysname, release, version)
    /// but neither the host nor the machine: those are left out, as
    /// `uname -a` leaves out the fields it does not know, and the line
    /// says which (`Linux 6.1.0-26-amd64 #1 SMP ... GNU/Linux (host name
    /// and machine not recorded in the dump)`). With no kernel field at
    /// all: `not recorded in the dump`.
    pub fn line(&self) -> String {
        let known = |f: &str| f != UNKNOWN && !f.is_empty();
        if !known(&self.release) && !known(&self.version) {
            return "not recorded in the dump".to_string();
        }
        let fields = [
            (&self.sysname, "kernel name"),
            (&self.nodename, "host name"),
            (&self.release, "release"),
            (&self.version, "version"),
            (&self.machine, "machine"),
        ];
        let shown: Vec<&str> = fields
            .iter()
            .filter(|(f, _)| known(f))
            .map(|(f, _)| f.as_str())
            .collect();
        let missing: Vec<&str> = fields
            .iter()
            .filter(|(f, _)| !known(f))
            .map(|(_, what)| *what)
            .collect();
        let mut line = format!("{} GNU/Linux", shown.join(" "));
        if !missing.is_empty() {
            let list = match missing.split_last() {
                Some((last, [])) => last.to_string(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => String::new(),
            };
            line.push_str(&format!(" ({list} not recorded in the dump)"));
        }
        line
    }
}

/// `(sysname, release, version)` from `/proc/version`, whose kernel format
/// is `%s version %s (%s@%s) (%s) %s`: sysname, release, the builder, the
/// compiler (itself holding parentheses), then the uname version
/// (`#1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30)`).
pub fn parse_proc_version(text: &str) -> Option<(String, String, String)> {
    let text = text.trim();
    let (sysname, rest) = text.split_once(" version ")?;
    if sysname.is_empty() || sysname.contains(' ') {
        return None;
    }
    let (release, mut rest) = rest.split_once(' ').unwrap_or((rest, ""));
    // Skip the balanced parenthesised groups (builder, compiler).
    loop {
        rest = rest.trim_start();
        if !rest.starts_with('(') {
            break;
        }
        match crate::textutil::paren_group(rest) {
            Some((_, after)) => rest = after,
            // Unbalanced: the version is whatever starts with '#'.
            None => {
                rest = rest.find(" #").map_or("", |i| &rest[i + 1..]);
                break;
            }
        }
    }
    Some((
        sysname.to_string(),
        release.to_string(),
        rest.trim().to_string(),
    ))
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
        // Never seen; the same facts are in /proc.
        let mut f = from_files(&Sysroot::live());
        if f.machine == UNKNOWN {
            f.machine = std::env::consts::ARCH.into();
        }
        return f;
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
/// `arch`), the kernel fields missing there taken from `/proc/version`,
/// each `unknown` when the dump has neither (see [`Uname::line`]).
pub fn uname(sys: &Sysroot) -> Uname {
    if sys.is_live() {
        return live_uname();
    }
    from_files(sys)
}

fn from_files(sys: &Sysroot) -> Uname {
    let from_version = sys
        .read_to_string("/proc/version")
        .ok()
        .and_then(|t| parse_proc_version(&t));
    let get = |name: &str, fallback: Option<&String>| {
        sys.read_trimmed(format!("/proc/sys/kernel/{name}"))
            .or_else(|| fallback.filter(|f| !f.is_empty()).cloned())
            .unwrap_or_else(|| UNKNOWN.to_string())
    };
    let v = from_version.as_ref();
    Uname {
        sysname: get("ostype", v.map(|v| &v.0)),
        nodename: get("hostname", None),
        release: get("osrelease", v.map(|v| &v.1)),
        version: get("version", v.map(|v| &v.2)),
        machine: get("arch", None),
    }
}

/// Reads `MemTotal` (kB) from the sysroot's `/proc/meminfo`.
pub fn mem_total_kib(sys: &Sysroot) -> anyhow::Result<u64> {
    read_meminfo(sys)?
        .mem_total_kib
        .ok_or_else(|| anyhow::anyhow!("{}: no MemTotal line", sys.path("/proc/meminfo").display()))
}

/// The upper bound of CPU numbers read from a kernel CPU list here (the
/// kernel's NR_CPUS is at most 8192 today).
const MAX_CPUS: usize = 65_536;

/// The CPU numbers of a kernel CPU list file (`0-3,8-11\n`), through
/// lscpu's reader ([`cpu::parse_cpu_list`]); `None` when malformed or
/// empty.
pub fn cpu_numbers(text: &str) -> Option<Vec<u32>> {
    let set = cpu::parse_cpu_list(text.trim(), MAX_CPUS)?;
    let v: Vec<u32> = set.iter().map(|c| c as u32).collect();
    (!v.is_empty()).then_some(v)
}

/// The CPUs this process may run on: its affinity mask when live, else
/// the `online` list (of the dump, or of the live system when the mask
/// cannot be read), else as many CPUs as the standard library counts
/// (`0..n`); never empty.
pub fn usable_cpu_list(sys: &Sysroot) -> Vec<u32> {
    if sys.is_live() {
        if let Ok(set) = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)) {
            let v: Vec<u32> = (0..nix::sched::CpuSet::count())
                .filter(|&i| set.is_set(i).unwrap_or(false))
                .map(|i| i as u32)
                .collect();
            if !v.is_empty() {
                return v;
            }
        }
    }
    if let Some(v) = sys
        .read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|t| cpu_numbers(&t))
    {
        return v;
    }
    let n = if sys.is_live() {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        1
    };
    (0..n as u32).collect()
}

/// How many CPUs this process may run on ([`usable_cpu_list`]), at least 1.
pub fn usable_cpus(sys: &Sysroot) -> usize {
    usable_cpu_list(sys).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_numbers_of_online_lists() {
        // /sys/devices/system/cpu/online of this VM, of a 2-socket host
        // with CPUs 2-3 offline, of a one-CPU guest.
        assert_eq!(cpu_numbers("0-1\n"), Some(vec![0, 1]));
        assert_eq!(cpu_numbers("0-1,4-7\n"), Some(vec![0, 1, 4, 5, 6, 7]));
        assert_eq!(cpu_numbers("0\n"), Some(vec![0]));
        assert_eq!(cpu_numbers("0,2-3,7"), Some(vec![0, 2, 3, 7]));
        assert_eq!(cpu_numbers(""), None);
        assert_eq!(cpu_numbers("\n"), None);
        assert_eq!(cpu_numbers("3-1"), None);
        assert_eq!(cpu_numbers("x"), None);
        // CPUs past the bound are dropped, as lscpu drops them.
        assert_eq!(cpu_numbers("0,70000"), Some(vec![0]));
    }

    #[test]
    fn usable_cpus_of_a_dump_come_from_its_online_list() {
        let d = tempfile::tempdir().unwrap();
        let sys = Sysroot::new(d.path());
        assert_eq!(usable_cpu_list(&sys), vec![0], "no list: one CPU");
        let cpu = d.path().join("sys/devices/system/cpu");
        std::fs::create_dir_all(&cpu).unwrap();
        std::fs::write(cpu.join("online"), "0,2-3\n").unwrap();
        assert_eq!(usable_cpu_list(&sys), vec![0, 2, 3]);
        assert_eq!(usable_cpus(&sys), 3);
        std::fs::write(cpu.join("online"), "garbage\n").unwrap();
        assert_eq!(usable_cpus(&sys), 1);
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
    fn proc_version_of_debian_fedora_and_centos_7() {
        let deb = "Linux version 6.1.0-26-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30)\n";
        assert_eq!(
            parse_proc_version(deb),
            Some((
                "Linux".into(),
                "6.1.0-26-amd64".into(),
                "#1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30)".into()
            ))
        );
        let el7 = "Linux version 3.10.0-1160.el7.x86_64 (mockbuild@kbuilder.bsys.centos.org) (gcc version 4.8.5 20150623 (Red Hat 4.8.5-44) (GCC) ) #1 SMP Wed Nov 4 13:35:26 UTC 2020";
        let (_, rel, ver) = parse_proc_version(el7).unwrap();
        assert_eq!(rel, "3.10.0-1160.el7.x86_64");
        assert_eq!(ver, "#1 SMP Wed Nov 4 13:35:26 UTC 2020");
        let broken = "Linux version 5.0 (a@b) (gcc (oops #2 SMP";
        assert_eq!(parse_proc_version(broken).unwrap().2, "#2 SMP");
        assert_eq!(parse_proc_version(""), None);
        assert_eq!(parse_proc_version("garbage"), None);
    }

    #[test]
    fn dump_uname_from_proc_version_says_what_is_missing() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        let sys = Sysroot::new(d.path());
        assert_eq!(uname(&sys).line(), "not recorded in the dump");
        std::fs::write(
            d.path().join("proc/version"),
            "Linux version 6.17.10-100.fc41.x86_64 (mockbuild@d7d05b1ce0294d7c8f0b222606a15f08) (gcc (GCC) 14.3.1 20251022 (Red Hat 14.3.1-4), GNU ld version 2.43.1-14.fc41) #1 SMP PREEMPT_DYNAMIC Mon Dec  1 16:10:21 UTC 2025\n",
        )
        .unwrap();
        assert_eq!(
            uname(&sys).line(),
            "Linux 6.17.10-100.fc41.x86_64 #1 SMP PREEMPT_DYNAMIC Mon Dec  1 16:10:21 UTC 2025 GNU/Linux (host name and machine not recorded in the dump)"
        );
        let k = d.path().join("proc/sys/kernel");
        std::fs::create_dir_all(&k).unwrap();
        std::fs::write(k.join("hostname"), "box\n").unwrap();
        std::fs::write(k.join("arch"), "x86_64\n").unwrap();
        std::fs::write(k.join("osrelease"), "6.17.11\n").unwrap();
        assert_eq!(
            uname(&sys).line(),
            "Linux box 6.17.11 #1 SMP PREEMPT_DYNAMIC Mon Dec  1 16:10:21 UTC 2025 x86_64 GNU/Linux"
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
