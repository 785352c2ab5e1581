//! lscpu's label column: its width is the widest label of lscpu's *whole*
//! summary (piped, flat output), so the labels that can be wider than
//! `Thread(s) per core:` are collected here, plus the line formatting.

use serde::Serialize;

use super::cpuset::CpuSet;
use crate::Sysroot;

/// The labels of lscpu's summary that can set the column width.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct WideLabels {
    /// `Vulnerability <Name>:` labels, one per non-empty file.
    pub vulnerabilities: Vec<String>,
    /// `NUMA node<N> CPU(s):` labels.
    pub numa_nodes: Vec<String>,
    /// `On-line CPU(s) list:` is printed (the `online` file parses).
    pub online_list: bool,
    /// `Off-line CPU(s) list:` is printed (online count != present count).
    pub offline_list: bool,
    /// `Virtualization type:` is printed (a hypervisor vendor is known).
    pub virtualization_type: bool,
    /// `Core(s) per cluster:` is printed (cluster mode).
    pub cores_per_cluster: bool,
}

impl WideLabels {
    /// The label column width: the longest label printed.
    pub fn width(&self) -> usize {
        let fixed = [
            (true, "Thread(s) per core:"),
            (self.online_list, "On-line CPU(s) list:"),
            (self.offline_list, "Off-line CPU(s) list:"),
            (self.virtualization_type, "Virtualization type:"),
            (self.cores_per_cluster, "Core(s) per cluster:"),
        ];
        let fixed = fixed.iter().filter(|(on, _)| *on).map(|(_, l)| l.len());
        let dynamic = self.vulnerabilities.iter().chain(&self.numa_nodes);
        fixed
            .chain(dynamic.map(|l| l.chars().count()))
            .max()
            .unwrap_or(19)
    }
}

/// `Vulnerability <Name>:` for a `vulnerabilities/` file name: first
/// letter upper-cased, `_` as a space.
pub fn vulnerability_label(file_name: &str) -> String {
    let mut name = file_name.replace('_', " ");
    if let Some(first) = name.get(..1) {
        let up = first.to_ascii_uppercase();
        name.replace_range(..1, &up);
    }
    format!("Vulnerability {name}:")
}

/// The `Vulnerability ...:` labels lscpu prints: one per regular file of
/// `/sys/devices/system/cpu/vulnerabilities` whose content is not empty.
pub fn read_vulnerability_labels(sys: &Sysroot) -> Vec<String> {
    let dir = "/sys/devices/system/cpu/vulnerabilities";
    let Ok(names) = sys.list_dir(dir) else {
        return Vec::new();
    };
    names
        .iter()
        .filter(|n| !is_real_dir(sys, &format!("{dir}/{n}")))
        .filter(|n| {
            let text = sys.read_bytes(format!("{dir}/{n}")).unwrap_or_default();
            let text = text.strip_suffix(b"\n").unwrap_or(&text);
            !text.is_empty()
        })
        .map(|n| vulnerability_label(n))
        .collect()
}

/// The `NUMA node<N> CPU(s):` labels: one per `node<digits>` directory of
/// `/sys/devices/system/node`.
pub fn read_numa_labels(sys: &Sysroot) -> Vec<String> {
    let dir = "/sys/devices/system/node";
    let Ok(names) = sys.list_dir(dir) else {
        return Vec::new();
    };
    names
        .iter()
        .filter_map(|n| {
            let num = n.strip_prefix("node")?;
            if num.is_empty() || !num.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            if !is_real_dir(sys, &format!("{dir}/{n}")) {
                return None;
            }
            let v: i64 = num.parse().ok()?;
            Some(format!("NUMA node{} CPU(s):", v as i32))
        })
        .collect()
}

/// A directory entry that is a directory itself (not a symlink to one),
/// as lscpu's `d_type == DT_DIR` test.
fn is_real_dir(sys: &Sysroot, path: &str) -> bool {
    std::fs::symlink_metadata(sys.path(path)).is_ok_and(|m| m.is_dir())
}

/// Whether the `On-line` and `Off-line CPU(s) list:` lines are printed.
pub fn cpu_list_labels(online: Option<&CpuSet>, present: Option<&CpuSet>) -> (bool, bool) {
    match online {
        Some(on) => {
            let npresent = present.map_or(0, CpuSet::count);
            (true, on.count() != npresent)
        }
        None => (false, false),
    }
}

/// A value as libsmartcols prints it under `LC_ALL=C`
/// (`mbs_safe_encode`): control bytes, bytes from 0x80 and a backslash
/// starting `\x` become `\xHH`; the rest is kept.
pub fn safe_encode(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    for (i, &b) in raw.iter().enumerate() {
        let escape = !(0x20..0x7f).contains(&b) || (b == b'\\' && raw.get(i + 1) == Some(&b'x'));
        if escape {
            out.push_str(&format!("\\x{b:02x}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sysinfo::cpu::cpuset::parse_cpu_list;

    #[test]
    fn vulnerability_names() {
        assert_eq!(
            vulnerability_label("spec_store_bypass"),
            "Vulnerability Spec store bypass:"
        );
        assert_eq!(vulnerability_label("l1tf"), "Vulnerability L1tf:");
        assert_eq!(vulnerability_label(""), "Vulnerability :");
    }

    #[test]
    fn width_rules() {
        let mut w = WideLabels::default();
        assert_eq!(w.width(), 19);
        w.online_list = true;
        assert_eq!(w.width(), 20);
        w.offline_list = true;
        assert_eq!(w.width(), 21);
        w.vulnerabilities = vec![vulnerability_label("mds")];
        assert_eq!(w.width(), 21);
        w.vulnerabilities
            .push(vulnerability_label("spec_store_bypass"));
        assert_eq!(w.width(), 32);
        let w = WideLabels {
            numa_nodes: vec!["NUMA node100 CPU(s):".into()],
            ..WideLabels::default()
        };
        assert_eq!(w.width(), 20);
    }

    #[test]
    fn offline_list_when_counts_differ() {
        let on = parse_cpu_list("1-5,8-19", 64).unwrap();
        let pr = parse_cpu_list("0-19", 64).unwrap();
        assert_eq!(cpu_list_labels(Some(&on), Some(&pr)), (true, true));
        assert_eq!(cpu_list_labels(Some(&pr), Some(&pr)), (true, false));
        assert_eq!(cpu_list_labels(None, Some(&pr)), (false, false));
        assert_eq!(cpu_list_labels(Some(&pr), None), (true, true));
    }

    #[test]
    fn values_are_encoded_as_libsmartcols_does() {
        assert_eq!(safe_encode(b"Cortex-A53"), "Cortex-A53");
        assert_eq!(safe_encode(b"a\tb\x7f"), "a\\x09b\\x7f");
        assert_eq!(safe_encode("é".as_bytes()), "\\xc3\\xa9");
        assert_eq!(safe_encode(b"\\x41 \\y"), "\\x5cx41 \\y");
    }
}
