//! The `[ CPU info ]` block: what `LC_ALL=C lscpu | grep -E
//! 'Model name|Thread|Core|Socket'` prints with util-linux 2.41+, computed
//! from `/proc/cpuinfo`, `/sys/devices/system/cpu/**`,
//! `/sys/devices/system/node`, `/proc/sysinfo` (s390) and the SMBIOS table
//! `/sys/firmware/dmi/tables/DMI` (the "BIOS Model name", shown on every
//! architecture whenever the table is readable). [`read_summary`] returns a
//! [`CpuSummary`]; [`CpuSummary::lines`] renders it.
//!
//! Known, deliberate differences from lscpu:
//! - `BIOS Model name:` is shown on every architecture and also under
//!   `--sysroot` when the dump holds the table (lscpu 2.40.3+: live aarch64
//!   only), and not at all when the table has no type-4 structure (lscpu
//!   would print `  CPU @ 0.0GHz`).
//! - without a readable `possible` CPU list lscpu exits with an error; this
//!   port falls back to `present`, `online`, then the CPUs of cpuinfo.
//! - the label width ignores `Physical cores/chip:` (ppc RTAS, live only),
//!   cache labels and the rarer hypervisor probes (PCI ids, device tree,
//!   cpuid); they only matter on systems without an `online` CPU list.

pub mod arm;
mod arm_table;
pub mod cpuinfo;
pub mod cpuset;
pub mod dmi;
pub mod render;
pub mod topology;

use serde::Serialize;

pub use cpuinfo::{parse_cpuinfo, parse_cpuinfo_bytes, Cpuinfo, CpuinfoType};
pub use cpuset::{parse_cpu_list, parse_mask, CpuSet};
pub use dmi::{parse_smbios, SmbiosProcessor};
pub use render::WideLabels;
pub use topology::{parse_sysinfo_topology, Topology};

use crate::Sysroot;

const SYS_CPU: &str = "/sys/devices/system/cpu";
/// lscpu's CPU count when `kernel_max` is unusable.
const DEFAULT_MAX_CPUS: usize = 2048;

/// The last line of a CPU type's block, as lscpu chooses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(tag = "label", content = "value")]
pub enum SocketLine {
    /// `Socket(s):` with the number of sockets (or sockets per book).
    Sockets(u64),
    /// `Socket(s) per book:` (s390 and other systems with books).
    SocketsPerBook(u64),
    /// Cluster mode (live aarch64 without ACPI PPTT): `Socket(s):` with the
    /// SMBIOS socket count, `None` printed as `-`.
    ClusterSockets(Option<u64>),
}

/// One CPU type of the summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CpuType {
    /// `Model name:` value; `None` is printed as `-`.
    pub model_name: Option<String>,
    /// `BIOS Model name:` from the SMBIOS type-4 structure, if readable.
    pub bios_model_name: Option<String>,
    /// `Thread(s) per core:`.
    pub threads_per_core: u64,
    /// `Core(s) per socket:` (or per cluster).
    pub cores_per_socket: u64,
    /// True in cluster mode: the label is `Core(s) per cluster:`.
    pub cores_per_cluster: bool,
    /// The socket line.
    pub socket_line: SocketLine,
    /// Logical CPU numbers of this type.
    pub cpus: Vec<usize>,
    /// The raw cpuinfo fields of this type.
    pub cpuinfo: CpuinfoType,
    /// The topology counts behind the figures.
    pub topology: Topology,
}

/// What lscpu's summary says about the CPU types, and its label width.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CpuSummary {
    /// The CPU types in lscpu's order (none when cpuinfo has no type).
    pub types: Vec<CpuType>,
    /// Width of lscpu's label column, in characters: values start at
    /// column `label_width_chars + 2` (1-based), after one space.
    pub label_width_chars: usize,
    /// The labels that decided the width.
    pub wide_labels: WideLabels,
    /// Fallbacks taken because an input was missing or unreadable.
    pub notes: Vec<String>,
}

impl CpuSummary {
    /// The (label, value) pairs of the lines
    /// `lscpu | grep -E 'Model name|Thread|Core|Socket'` prints, in order;
    /// the text renderer pads them to [`CpuSummary::label_width_chars`].
    pub fn entries(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for t in &self.types {
            let l = |label: &str, value: &str| (label.to_string(), value.to_string());
            out.push(l("Model name:", t.model_name.as_deref().unwrap_or("-")));
            if let Some(b) = &t.bios_model_name {
                out.push(l("BIOS Model name:", b));
            }
            out.push(l("Thread(s) per core:", &t.threads_per_core.to_string()));
            let cores = if t.cores_per_cluster {
                "Core(s) per cluster:"
            } else {
                "Core(s) per socket:"
            };
            out.push(l(cores, &t.cores_per_socket.to_string()));
            out.push(match &t.socket_line {
                SocketLine::Sockets(n) => l("Socket(s):", &n.to_string()),
                SocketLine::SocketsPerBook(n) => l("Socket(s) per book:", &n.to_string()),
                SocketLine::ClusterSockets(Some(n)) => l("Socket(s):", &n.to_string()),
                SocketLine::ClusterSockets(None) => l("Socket(s):", "-"),
            });
        }
        out
    }
}

/// Reads the CPU summary of the system (or dump) behind `sys`. Never
/// panics: missing files give lscpu's answer or a fallback named in
/// [`CpuSummary::notes`].
pub fn read_summary(sys: &Sysroot) -> CpuSummary {
    let mut notes = Vec::new();
    let maxcpus = max_cpus(sys);
    let nbits = cpuset::set_bits_for(maxcpus);
    let list = |name: &str| {
        let s = topology::read_sysfs_buffer(sys, &format!("{SYS_CPU}/{name}"), maxcpus * 7)?;
        parse_cpu_list(&s, nbits)
    };
    let present = list("present");
    let online = list("online");

    let info = match sys.read_bytes("/proc/cpuinfo") {
        Ok(b) => parse_cpuinfo_bytes(&b),
        Err(e) => {
            notes.push(format!("{e}: no CPU type"));
            Cpuinfo::default()
        }
    };

    let possible = list("possible").or_else(|| {
        notes.push(format!(
            "{SYS_CPU}/possible unreadable: CPUs taken from present, online or cpuinfo"
        ));
        present.clone().or_else(|| online.clone())
    });
    let cpus: Vec<usize> = match &possible {
        Some(set) => set.iter().filter(|&c| c < maxcpus).collect(),
        None => {
            let mut v: Vec<usize> = info.assignments.iter().map(|a| a.cpu as usize).collect();
            v.sort_unstable();
            v.dedup();
            v
        }
    };
    let type_of = info.types_of(&cpus);

    let smbios = sys
        .read_bytes("/sys/firmware/dmi/tables/DMI")
        .ok()
        .and_then(|b| parse_smbios(&b));
    let bios_model_name = smbios.as_ref().map(SmbiosProcessor::model_name);

    let machine = if sys.is_live() { uname_machine() } else { None };
    let is_arm = is_arm(machine.as_deref(), &info);
    let cluster = sys.is_live()
        && machine.as_deref() == Some("aarch64")
        && !sys.exists("/sys/firmware/acpi/tables/PPTT")
        && info.types.len() == 1;

    let sysinfo = sys
        .read_to_string("/proc/sysinfo")
        .ok()
        .and_then(|s| parse_sysinfo_topology(&s));

    let mut types = Vec::new();
    for (idx, t) in info.types.iter().enumerate() {
        let my_cpus: Vec<usize> = cpus
            .iter()
            .zip(&type_of)
            .filter(|(_, ty)| **ty == Some(idx))
            .map(|(c, _)| *c)
            .collect();
        let masks = topology::read_masks(sys, &my_cpus, maxcpus, nbits);
        let topo = topology::compute_topology(&masks, sysinfo, t.max_thread_id.as_deref());
        let model_name = if is_arm {
            arm::decode_model_name(
                t.vendor.as_deref(),
                t.model.as_deref(),
                t.model_name.as_deref(),
                bios_model_name.as_deref(),
            )
        } else {
            t.model_name.clone()
        };
        let socket_line = socket_line(&topo, cluster, smbios.as_ref());
        types.push(CpuType {
            model_name,
            bios_model_name: bios_model_name.clone(),
            threads_per_core: topo.threads_per_core,
            cores_per_socket: topo.cores_per_socket,
            cores_per_cluster: cluster,
            socket_line,
            cpus: my_cpus,
            cpuinfo: t.clone(),
            topology: topo,
        });
    }

    let (online_list, offline_list) = render::cpu_list_labels(online.as_ref(), present.as_ref());
    let wide_labels = WideLabels {
        vulnerabilities: render::read_vulnerability_labels(sys),
        numa_nodes: render::read_numa_labels(sys),
        online_list,
        offline_list,
        virtualization_type: has_hypervisor_vendor(sys, &info),
        cores_per_cluster: cluster && !types.is_empty(),
    };
    CpuSummary {
        label_width_chars: wide_labels.width(),
        types,
        wide_labels,
        notes,
    }
}

/// lscpu's CPU count: `kernel_max` + 1, else its default.
fn max_cpus(sys: &Sysroot) -> usize {
    sys.read_to_string(format!("{SYS_CPU}/kernel_max"))
        .ok()
        .and_then(|s| topology::scan_int(&s))
        .map(|v| v.saturating_add(1))
        .filter(|&v| v > 0)
        .map_or(DEFAULT_MAX_CPUS, |v| v.min(1 << 20) as usize)
}

/// An ARM machine: `uname -m` says so when live, else a known ARM
/// implementer in cpuinfo.
fn is_arm(machine: Option<&str>, info: &Cpuinfo) -> bool {
    match machine {
        Some(m) => m == "aarch64",
        None => info.types.iter().any(|t| {
            t.vendor
                .as_deref()
                .and_then(arm::implementer_name)
                .is_some()
        }),
    }
}

/// lscpu's socket line of a CPU type of topology `topo`; on an ARM
/// cluster machine, the sockets SMBIOS counts.
fn socket_line(topo: &Topology, cluster: bool, smbios: Option<&SmbiosProcessor>) -> SocketLine {
    if topo.books > 0 {
        SocketLine::SocketsPerBook(topo.sockets_per_book)
    } else if cluster {
        let n = smbios.map(|s| s.type4_count as u64);
        SocketLine::ClusterSockets(n.filter(|&n| n > 0))
    } else if topo.sockets_per_book != 0 {
        SocketLine::Sockets(topo.sockets_per_book)
    } else {
        SocketLine::Sockets(topo.sockets)
    }
}

/// `uname -m` of the running kernel.
fn uname_machine() -> Option<String> {
    let u = nix::sys::utsname::uname().ok()?;
    Some(u.machine().to_string_lossy().into_owned())
}

/// Whether lscpu would print `Hypervisor vendor:` / `Virtualization type:`,
/// from the file-based probes of `lscpu-virt.c` (WSL, Xen, s390 PR/SM and
/// z/VM, OpenVZ, UML).
fn has_hypervisor_vendor(sys: &Sysroot, info: &Cpuinfo) -> bool {
    let wsl = sys
        .read_to_string("/proc/sys/kernel/osrelease")
        .is_ok_and(|s| s.contains("Microsoft"));
    let uml = info
        .types
        .first()
        .and_then(|t| t.model_name.as_deref())
        .is_some_and(|m| m.contains("UML"));
    wsl || sys.exists("/proc/xen")
        || sys.exists("/proc/sysinfo")
        || (sys.exists("/proc/vz") && !sys.exists("/proc/bc"))
        || uml
}
