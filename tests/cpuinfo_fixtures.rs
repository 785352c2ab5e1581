//! `read_summary` on small /proc + /sys trees built in a temp dir, checked
//! line for line against what lscpu 2.41+ prints for such a tree.

use std::fs;
use std::path::Path;

use quickbench::sysinfo::cpu::{read_summary, CpuSummary};
use quickbench::Sysroot;

struct Tree(tempfile::TempDir);

impl Tree {
    fn new() -> Self {
        Tree(tempfile::tempdir().unwrap())
    }
    fn file(&self, path: &str, content: impl AsRef<[u8]>) -> &Self {
        let p = self.0.path().join(path.trim_start_matches('/'));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
        self
    }
    fn cpu_file(&self, cpu: usize, name: &str, content: &str) -> &Self {
        self.file(&format!("sys/devices/system/cpu/cpu{cpu}/{name}"), content)
    }
    /// thread_siblings and core_siblings of one CPU.
    fn topo(&self, cpu: usize, threads: &str, cores: &str) -> &Self {
        self.cpu_file(cpu, "topology/thread_siblings", &format!("{threads}\n"))
            .cpu_file(cpu, "topology/core_siblings", &format!("{cores}\n"))
    }
    fn lists(&self, possible: &str, present: &str, online: &str) -> &Self {
        self.file("sys/devices/system/cpu/possible", format!("{possible}\n"))
            .file("sys/devices/system/cpu/present", format!("{present}\n"))
            .file("sys/devices/system/cpu/online", format!("{online}\n"))
    }
    fn root(&self) -> &Path {
        self.0.path()
    }
    fn summary(&self) -> CpuSummary {
        read_summary(&Sysroot::new(self.root()))
    }
    fn lines(&self) -> Vec<String> {
        lines_of(&self.summary())
    }
}

/// The report's `[ CPU info ]` lines of a summary.
fn lines_of(s: &CpuSummary) -> Vec<String> {
    quickbench::report::text::cpu_info_lines(&quickbench::model::CpuInfo::from_summary(s.clone()))
}

fn x86_cpuinfo(ids: &[usize], name: &str) -> String {
    ids.iter()
        .map(|i| {
            format!(
                "processor\t: {i}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 79\n\
model name\t: {name}\nstepping\t: 1\ncpu MHz\t\t: 2100.000\nflags\t\t: fpu vme lm\n\
bogomips\t: 4200.00\n\n"
            )
        })
        .collect()
}

#[test]
fn x86_smt2_width_from_vulnerabilities() {
    let t = Tree::new();
    t.file(
        "proc/cpuinfo",
        x86_cpuinfo(&[0, 1, 2, 3], "Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz"),
    )
    .lists("0-3", "0-3", "0-3")
    .topo(0, "5", "f")
    .topo(1, "a", "f")
    .topo(2, "5", "f")
    .topo(3, "a", "f")
    .file(
        "sys/devices/system/cpu/vulnerabilities/mds",
        "Not affected\n",
    )
    .file(
        "sys/devices/system/cpu/vulnerabilities/spectre_v2",
        "Mitigation: Retpolines\n",
    )
    // empty files are not printed by lscpu, so they do not widen the column
    .file(
        "sys/devices/system/cpu/vulnerabilities/gather_data_sampling",
        "",
    );
    assert_eq!(
        t.lines(),
        [
            "Model name:               Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz",
            "Thread(s) per core:       2",
            "Core(s) per socket:       2",
            "Socket(s):                1",
        ]
    );
    assert_eq!(t.summary().label_width_chars, 25);
}

fn arm_block(cpu: usize, part: &str, variant: &str) -> String {
    format!(
        "processor\t: {cpu}\nBogoMIPS\t: 52.00\nFeatures\t: fp asimd evtstrm\n\
CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: {variant}\n\
CPU part\t: {part}\nCPU revision\t: 0\n\n"
    )
}

#[test]
fn aarch64_big_little_types_sorted_by_part() {
    let t = Tree::new();
    let mut info = String::new();
    for cpu in 0..4 {
        info += &arm_block(cpu, "0xd0b", "0x4"); // Cortex-A76
    }
    for cpu in 4..6 {
        info += &arm_block(cpu, "0xd05", "0x2"); // Cortex-A55
    }
    t.file("proc/cpuinfo", info).lists("0-5", "0-5", "0-5");
    for cpu in 0..6 {
        t.topo(cpu, &format!("{:x}", 1 << cpu), "3f");
    }
    assert_eq!(
        t.lines(),
        [
            "Model name:          Cortex-A55",
            "Thread(s) per core:  1",
            "Core(s) per socket:  2",
            "Socket(s):           1",
            "Model name:          Cortex-A76",
            "Thread(s) per core:  1",
            "Core(s) per socket:  4",
            "Socket(s):           1",
        ]
    );
}

const S390_CPUINFO: &str = "vendor_id       : IBM/S390\n# processors    : 4\n\
bogomips per cpu: 3033.00\nmax thread id   : 0\nfeatures\t: esan3 zarch stfle msa ldisp\n\
processor 0: version = FF,  identification = 0133E8,  machine = 2964\n\
processor 1: version = FF,  identification = 0133E8,  machine = 2964\n\
processor 2: version = FF,  identification = 0133E8,  machine = 2964\n\
processor 3: version = FF,  identification = 0133E8,  machine = 2964\n\n\
cpu number      : 0\ncpu MHz dynamic : 5000\ncpu MHz static  : 5000\n";

fn s390_tree() -> Tree {
    let t = Tree::new();
    t.file("proc/cpuinfo", S390_CPUINFO)
        .lists("0-3", "0-3", "0-3");
    for cpu in 0..4 {
        let core = if cpu < 2 { "3" } else { "c" };
        t.topo(cpu, &format!("{:x}", 1 << cpu), core).cpu_file(
            cpu,
            "topology/book_siblings",
            "f\n",
        );
    }
    t
}

#[test]
fn s390_books_from_masks() {
    let t = s390_tree();
    t.file(
        "proc/sysinfo",
        "Manufacturer:         IBM\nType:                 2964\n",
    );
    assert_eq!(
        t.lines(),
        [
            "Model name:          -",
            "Thread(s) per core:  1",
            "Core(s) per socket:  2",
            "Socket(s) per book:  2",
        ]
    );
}

#[test]
fn s390_sysinfo_topology_overrides_masks() {
    let t = s390_tree();
    t.file(
        "proc/sysinfo",
        "Type:                 2964\nCPU Topology HW:      0 0 0 4 1 8\nCPU Topology SW:      0 0 0 4 6 4\n",
    );
    assert_eq!(
        t.lines(),
        [
            "Model name:          -",
            "Thread(s) per core:  1",
            "Core(s) per socket:  4",
            "Socket(s) per book:  6",
        ]
    );
}

#[test]
fn power_smt4_with_trailer_model() {
    let t = Tree::new();
    let mut info = String::new();
    for cpu in 0..8 {
        info += &format!(
            "processor\t: {cpu}\ncpu\t\t: POWER9 (architected), altivec supported\n\
clock\t\t: 2750.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n\n"
        );
    }
    info += "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,9009-42A\n\
machine\t\t: CHRP IBM,9009-42A\nMMU\t\t: Radix\n";
    t.file("proc/cpuinfo", info).lists("0-7", "0-7", "0-7");
    for cpu in 0..8 {
        let m = if cpu < 4 { "0f" } else { "f0" };
        t.topo(cpu, m, m);
    }
    assert_eq!(
        t.lines(),
        [
            "Model name:          POWER9 (architected), altivec supported",
            "Thread(s) per core:  4",
            "Core(s) per socket:  1",
            "Socket(s):           2",
        ]
    );
}

#[test]
fn offline_cpu_widens_the_column_and_lowers_threads() {
    let t = Tree::new();
    t.file("proc/cpuinfo", x86_cpuinfo(&[0, 1, 2], "Test CPU"))
        .lists("0-3", "0-3", "0-2")
        // cpu3 is offline: no topology; cpu2 sees no online sibling
        .topo(0, "3", "7")
        .topo(1, "3", "7")
        .topo(2, "4", "7");
    fs::create_dir_all(t.root().join("sys/devices/system/cpu/cpu3")).unwrap();
    assert_eq!(
        t.lines(),
        [
            "Model name:           Test CPU",
            "Thread(s) per core:   2",
            "Core(s) per socket:   2",
            "Socket(s):            1",
        ]
    );
}

/// A minimal SMBIOS table: type 0, one QEMU type 4, end of table.
fn qemu_smbios() -> Vec<u8> {
    let mut t = vec![0u8, 0x18, 0, 0];
    t.resize(0x18, 0);
    t.extend_from_slice(b"SeaBIOS\0\0");
    let mut p = vec![0u8; 0x30];
    p[..4].copy_from_slice(&[4, 0x30, 0, 4]);
    p[0x07] = 1; // manufacturer: string 1
    p[0x10] = 2; // version: string 2
    p[0x14..0x16].copy_from_slice(&2000u16.to_le_bytes());
    p[0x16..0x18].copy_from_slice(&2000u16.to_le_bytes());
    t.extend_from_slice(&p);
    t.extend_from_slice(b"QEMU\0pc-i440fx-8.2\0\0");
    t.extend_from_slice(&[127, 4, 0xff, 0xfe, 0, 0]);
    t
}

#[test]
fn bios_model_name_follows_model_name_on_x86() {
    let t = Tree::new();
    t.file(
        "proc/cpuinfo",
        x86_cpuinfo(&[0], "QEMU Virtual CPU version 2.5+"),
    )
    .lists("0", "0", "0")
    .topo(0, "1", "1")
    .file("sys/firmware/dmi/tables/DMI", qemu_smbios());
    assert_eq!(
        t.lines(),
        [
            "Model name:          QEMU Virtual CPU version 2.5+",
            "BIOS Model name:     pc-i440fx-8.2  CPU @ 2.0GHz",
            "Thread(s) per core:  1",
            "Core(s) per socket:  1",
            "Socket(s):           1",
        ]
    );
}

#[test]
fn broken_smbios_table_gives_no_bios_line() {
    let t = Tree::new();
    let mut dmi = qemu_smbios();
    dmi.truncate(0x18 + 9 + 10);
    t.file("proc/cpuinfo", x86_cpuinfo(&[0], "X"))
        .lists("0", "0", "0")
        .topo(0, "1", "1")
        .file("sys/firmware/dmi/tables/DMI", dmi);
    assert_eq!(t.lines()[1], "Thread(s) per core:  1");
}

#[test]
fn empty_cpuinfo_prints_nothing() {
    let t = Tree::new();
    t.file("proc/cpuinfo", "").lists("0-1", "0-1", "0-1");
    assert!(t.lines().is_empty());
}

#[test]
fn missing_cpuinfo_prints_nothing_and_says_why() {
    let t = Tree::new();
    t.lists("0-1", "0-1", "0-1");
    let s = t.summary();
    assert!(lines_of(&s).is_empty());
    assert!(s.notes[0].contains("proc/cpuinfo"), "{:?}", s.notes);
}

#[test]
fn missing_topology_gives_zeros_as_lscpu() {
    let t = Tree::new();
    t.file("proc/cpuinfo", x86_cpuinfo(&[0, 1], "X"))
        .lists("0-1", "0-1", "0-1");
    assert_eq!(
        t.lines(),
        [
            "Model name:          X",
            "Thread(s) per core:  0",
            "Core(s) per socket:  0",
            "Socket(s):           0",
        ]
    );
}

#[test]
fn garbage_masks_count_as_absent() {
    let t = Tree::new();
    t.file("proc/cpuinfo", x86_cpuinfo(&[0, 1], "X"))
        .lists("0-1", "0-1", "0-1")
        .topo(0, "zz", "\u{1}\u{2}")
        .topo(1, "0x,,", "");
    // threads count at least 1 per CPU with a thread_siblings file; the
    // empty core_siblings is a valid empty set: one (empty) socket group
    assert_eq!(
        t.lines(),
        [
            "Model name:          X",
            "Thread(s) per core:  1",
            "Core(s) per socket:  0",
            "Socket(s):           1",
        ]
    );
}

#[test]
fn cpu_list_with_holes() {
    let t = Tree::new();
    t.file("proc/cpuinfo", x86_cpuinfo(&[0, 2, 3], "X"))
        .lists("0,2-3", "0,2-3", "0,2-3")
        .topo(0, "1", "d")
        .topo(2, "c", "d")
        .topo(3, "c", "d");
    assert_eq!(
        t.lines(),
        [
            "Model name:          X",
            "Thread(s) per core:  2",
            "Core(s) per socket:  2",
            "Socket(s):           1",
        ]
    );
}

#[test]
fn missing_possible_falls_back_to_present() {
    let t = Tree::new();
    t.file("proc/cpuinfo", x86_cpuinfo(&[0, 1], "X"))
        .file("sys/devices/system/cpu/present", "0-1\n")
        .file("sys/devices/system/cpu/kernel_max", "garbage\n")
        .topo(0, "1", "3")
        .topo(1, "2", "3");
    let s = t.summary();
    // no online file: no On-line line, so the width is 19
    assert_eq!(
        lines_of(&s),
        [
            "Model name:         X",
            "Thread(s) per core: 1",
            "Core(s) per socket: 2",
            "Socket(s):          1",
        ]
    );
    assert!(s.notes[0].contains("possible"), "{:?}", s.notes);
}

#[test]
fn binary_junk_never_panics() {
    let junk: Vec<u8> = (0..50_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let t = Tree::new();
    t.file("proc/cpuinfo", &junk)
        .file("proc/sysinfo", &junk)
        .file("sys/devices/system/cpu/possible", &junk)
        .file("sys/devices/system/cpu/online", &junk)
        .file("sys/devices/system/cpu/kernel_max", &junk)
        .file("sys/firmware/dmi/tables/DMI", &junk)
        .cpu_file(0, "topology/thread_siblings", "\u{0}\u{ff}");
    let _ = t.lines();
    let empty = Tree::new();
    assert!(empty.lines().is_empty());
}

#[test]
fn summary_serializes_with_unit_named_fields() {
    let t = Tree::new();
    t.file("proc/cpuinfo", x86_cpuinfo(&[0], "X"))
        .lists("0", "0", "0")
        .topo(0, "1", "1");
    let v = serde_json::to_value(t.summary()).unwrap();
    assert_eq!(v["label_width_chars"], 20);
    assert_eq!(v["types"][0]["model_name"], "X");
    assert_eq!(v["types"][0]["threads_per_core"], 1);
    assert_eq!(v["types"][0]["socket_line"]["label"], "Sockets");
    assert_eq!(v["types"][0]["socket_line"]["value"], 1);
}
