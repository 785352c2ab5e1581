//! Threads per core, cores per socket and sockets (per book) of one CPU
//! type, from `/sys/devices/system/cpu/cpuN/topology/*_siblings` masks and,
//! on s390, the `CPU Topology SW:` line of `/proc/sysinfo`; as util-linux
//! 2.41+ `lscpu-topology.c` computes them.

use serde::Serialize;

use super::cpuset::{parse_mask, CpuSet};
use crate::Sysroot;

const SYS_CPU: &str = "/sys/devices/system/cpu";

/// The sibling masks of one CPU (`None`: file absent or unparsable).
#[derive(Debug, Clone, Default)]
pub struct CpuMasks {
    /// `topology/thread_siblings`.
    pub thread_siblings: Option<CpuSet>,
    /// `topology/core_siblings`.
    pub core_siblings: Option<CpuSet>,
    /// `topology/book_siblings` (s390).
    pub book_siblings: Option<CpuSet>,
    /// `topology/drawer_siblings` (s390).
    pub drawer_siblings: Option<CpuSet>,
}

/// The topology figures of one CPU type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Topology {
    /// Threads per core (`Thread(s) per core:`).
    pub threads_per_core: u64,
    /// Cores per socket (`Core(s) per socket:`).
    pub cores_per_socket: u64,
    /// Sockets per book (`Socket(s) per book:`, 0 without books).
    pub sockets_per_book: u64,
    /// Books per drawer.
    pub books_per_drawer: u64,
    /// Distinct core groups (thread_siblings masks).
    pub cores: u64,
    /// Distinct socket groups (core_siblings masks).
    pub sockets: u64,
    /// Distinct book groups (book_siblings masks).
    pub books: u64,
    /// Distinct drawer groups (drawer_siblings masks).
    pub drawers: u64,
}

/// The s390 `CPU Topology SW:` figures of `/proc/sysinfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SysinfoTopology {
    /// Drawers in the system.
    pub drawers: u64,
    /// Books per drawer.
    pub books_per_drawer: u64,
    /// Sockets per book.
    pub sockets_per_book: u64,
    /// Cores per socket.
    pub cores_per_socket: u64,
}

/// Computes a type's topology from the masks of its counted CPUs (those
/// with a `thread_siblings` file), the s390 override and `max thread id`.
pub fn compute_topology(
    cpus: &[CpuMasks],
    sysinfo: Option<SysinfoTopology>,
    max_thread_id: Option<&str>,
) -> Topology {
    let mut groups: [Vec<&CpuSet>; 4] = Default::default();
    let mut threads = 0u64;
    for m in cpus {
        let n = m.thread_siblings.as_ref().map_or(0, |s| s.count() as u64);
        threads = threads.max(n.max(1));
        let masks = [
            &m.thread_siblings,
            &m.core_siblings,
            &m.book_siblings,
            &m.drawer_siblings,
        ];
        for (g, mask) in groups.iter_mut().zip(masks) {
            // 2.41+: a mask makes a new group only if disjoint from all others
            if let Some(set) = mask {
                if g.iter().all(|o| o.is_disjoint(set)) {
                    g.push(set);
                }
            }
        }
    }
    let [cores, sockets, books, drawers] = groups.map(|g| g.len() as u64);
    let div = |a: u64, b: u64| a.checked_div(b).unwrap_or(0);
    let mut t = Topology {
        threads_per_core: threads,
        cores,
        sockets,
        books,
        drawers,
        ..Topology::default()
    };
    if let Some(v) = max_thread_id.and_then(super::cpuinfo::strtou64) {
        t.threads_per_core = v.wrapping_add(1);
    }
    match sysinfo {
        Some(s) => {
            t.cores_per_socket = s.cores_per_socket;
            t.sockets_per_book = s.sockets_per_book;
            t.books_per_drawer = s.books_per_drawer;
        }
        None => {
            t.cores_per_socket = div(cores, sockets);
            t.sockets_per_book = div(sockets, books);
            t.books_per_drawer = div(books, drawers);
        }
    }
    t
}

/// Reads the masks of the CPUs lscpu counts among `cpus`: those with a
/// `topology/thread_siblings` file (offline CPUs usually have none) and,
/// when the hotplug online state is known, in that state.
pub fn read_masks(sys: &Sysroot, cpus: &[usize], maxcpus: usize, nbits: usize) -> Vec<CpuMasks> {
    let online_state = sys
        .read_bytes(format!("{SYS_CPU}/hotplug/states"))
        .ok()
        .and_then(|b| parse_online_state(&String::from_utf8_lossy(&b)));
    let mut out = Vec::new();
    for &cpu in cpus {
        let dir = format!("{SYS_CPU}/cpu{cpu}");
        if !sys.exists(format!("{dir}/topology/thread_siblings")) {
            continue;
        }
        if let Some(online) = online_state.filter(|&s| s > 0) {
            let state = sys
                .read_to_string(format!("{dir}/hotplug/state"))
                .ok()
                .and_then(|s| scan_int(&s));
            if state.is_some_and(|s| s != online as i64) {
                continue;
            }
        }
        let mask = |name: &str| {
            let b = read_sysfs_buffer(sys, &format!("{dir}/topology/{name}"), maxcpus * 7)?;
            parse_mask(&b, nbits)
        };
        out.push(CpuMasks {
            thread_siblings: mask("thread_siblings"),
            core_siblings: mask("core_siblings"),
            book_siblings: mask("book_siblings"),
            drawer_siblings: mask("drawer_siblings"),
        });
    }
    out
}

/// Reads a sysfs file as util-linux `ul_path_read_buffer` does: at most
/// `bufsz - 1` bytes, one trailing newline removed.
pub fn read_sysfs_buffer(sys: &Sysroot, path: &str, bufsz: usize) -> Option<String> {
    let mut b = sys.read_bytes(path).ok()?;
    b.truncate(bufsz.saturating_sub(1));
    if b.last() == Some(&b'\n') {
        b.pop();
    }
    Some(String::from_utf8_lossy(&b).into_owned())
}

/// The s390 software topology line `CPU Topology SW: x y D B S C` of
/// `/proc/sysinfo` (read like lscpu's `sscanf`).
pub fn parse_sysinfo_topology(text: &str) -> Option<SysinfoTopology> {
    text.lines().find_map(|line| {
        let rest = scan_literal(line, "CPU Topology SW:")?;
        let mut nums = rest.split_ascii_whitespace();
        let mut vals = [0u64; 6];
        for (i, v) in vals.iter_mut().enumerate() {
            let tok = nums.next()?;
            *v = if i < 2 {
                scan_int(tok)? as u64
            } else {
                scan_uint(tok)?
            };
        }
        Some(SysinfoTopology {
            drawers: vals[2],
            books_per_drawer: vals[3],
            sockets_per_book: vals[4],
            cores_per_socket: vals[5],
        })
    })
}

/// Matches a `sscanf` literal where each blank matches any run of blanks.
fn scan_literal<'a>(line: &'a str, lit: &str) -> Option<&'a str> {
    let mut rest = line;
    for (i, word) in lit.split(' ').enumerate() {
        if i > 0 {
            rest = rest.trim_start();
        }
        rest = rest.strip_prefix(word)?;
    }
    Some(rest)
}

/// `%d`: leading blanks, a sign, digits; what follows is ignored.
pub fn scan_int(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let (neg, d) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = d.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let v = d[..n].parse::<i64>().unwrap_or(i64::MAX);
    Some(if neg { -v } else { v })
}

/// `%zu`: like `%d` but unsigned (a minus sign wraps, as `strtoul`).
fn scan_uint(s: &str) -> Option<u64> {
    let neg = s.trim_start().starts_with('-');
    let t = s.trim_start().trim_start_matches(['-', '+']);
    let n = t.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let v = t[..n].parse::<u64>().unwrap_or(u64::MAX);
    Some(if neg { v.wrapping_neg() } else { v })
}

/// The hotplug state number of a fully online CPU, read from
/// `hotplug/states` exactly as lscpu 2.41+ does: the digits before the
/// first `": online"`, parsed as a whole number up to the end of the text.
///
/// On a real kernel file (`236: online` followed by more lines or a
/// newline) that strict parse fails, so lscpu (and this port) never skips
/// a CPU for its hotplug state; kept for fidelity.
pub fn parse_online_state(states: &str) -> Option<i32> {
    let at = states.find(": online")?;
    let start = states[..at]
        .bytes()
        .rev()
        .take_while(u8::is_ascii_digit)
        .count();
    let num = &states[at - start..];
    super::cpuinfo::strtou64(num).and_then(|v| i32::try_from(v).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, c: &str) -> CpuMasks {
        CpuMasks {
            thread_siblings: parse_mask(t, 64),
            core_siblings: parse_mask(c, 64),
            ..CpuMasks::default()
        }
    }

    #[test]
    fn smt2_one_socket() {
        // 4 cores x 2 threads: siblings 0,4 / 1,5 / 2,6 / 3,7
        let cpus: Vec<_> = (0..8)
            .map(|c| m(&format!("{:x}", 0x11u32 << (c % 4)), "ff"))
            .collect();
        let t = compute_topology(&cpus, None, None);
        assert_eq!(
            (
                t.threads_per_core,
                t.cores_per_socket,
                t.sockets,
                t.sockets_per_book
            ),
            (2, 4, 1, 0)
        );
    }

    #[test]
    fn overlapping_masks_do_not_make_new_groups() {
        // 2.41+: {0,1} then {1,2} overlaps, {0,1,2} too: one core group
        let cpus = vec![m("3", "7"), m("6", "7"), m("7", "7")];
        let t = compute_topology(&cpus, None, None);
        assert_eq!(t.cores, 1);
        // {2} is disjoint from {0,1}: a second group
        let cpus = vec![m("3", "7"), m("6", "7"), m("4", "7")];
        assert_eq!(compute_topology(&cpus, None, None).cores, 2);
    }

    #[test]
    fn no_cpu_counted_gives_zeros() {
        let t = compute_topology(&[], None, None);
        assert_eq!(
            (t.threads_per_core, t.cores_per_socket, t.sockets),
            (0, 0, 0)
        );
        // garbage masks count as absent, threads at least 1
        let t = compute_topology(&[m("zz", "zz")], None, None);
        assert_eq!(
            (t.threads_per_core, t.cores_per_socket, t.sockets),
            (1, 0, 0)
        );
    }

    #[test]
    fn max_thread_id_and_sysinfo_override() {
        let sysinfo = parse_sysinfo_topology(
            "Type:                 2964\nCPU Topology HW:      0 0 4 2 3 10\n\
CPU Topology SW:      0 0 4 2 3 8\n",
        );
        assert_eq!(
            sysinfo,
            Some(SysinfoTopology {
                drawers: 4,
                books_per_drawer: 2,
                sockets_per_book: 3,
                cores_per_socket: 8
            })
        );
        let t = compute_topology(&[m("1", "1")], sysinfo, Some("1"));
        assert_eq!(
            (t.threads_per_core, t.cores_per_socket, t.sockets_per_book),
            (2, 8, 3)
        );
        assert_eq!(parse_sysinfo_topology("CPU Topology SW: 0 0 4\n"), None);
        assert_eq!(parse_sysinfo_topology(""), None);
    }

    #[test]
    fn online_state_is_never_parsed_from_a_real_file() {
        let real = "  0: offline\n  1: threads:prepare\n143: ap:online\n236: online\n";
        assert_eq!(parse_online_state(real), None);
        assert_eq!(parse_online_state("236: online"), None);
        assert_eq!(parse_online_state("nothing"), None);
    }

    #[test]
    fn scanf_numbers() {
        assert_eq!(scan_int(" 42\n"), Some(42));
        assert_eq!(scan_int("-3x"), Some(-3));
        assert_eq!(scan_int("x"), None);
        assert_eq!(scan_uint("-1"), Some(u64::MAX));
    }
}
