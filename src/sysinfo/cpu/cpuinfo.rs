//! `/proc/cpuinfo` to CPU types, as util-linux 2.41+ `lscpu` reads it
//! (`sys-utils/lscpu-cputype.c`): which lines describe a CPU type, which
//! switch to another CPU, how types are split, sorted and merged, and which
//! CPU gets which type. Pure: bytes in, [`Cpuinfo`] out.

use serde::Serialize;

/// The type fields lscpu keeps, named after its `struct lscpu_cputype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Vendor,
    Model,
    ModelName,
    Stepping,
    Revision,
    Bogomips,
    MaxThreadId,
    Family,
    Flags,
    AddressSizes,
    Isa,
    Mmu,
    Microcode,
}

/// cpuinfo keys that describe the CPU type (exact, case-sensitive).
const TYPE_KEYS: &[(&str, Field)] = &[
    ("ASEs implemented", Field::Flags),
    ("Address Sizes", Field::AddressSizes),
    ("BogoMIPS", Field::Bogomips),
    ("CPU Family", Field::Family),
    ("CPU Revision", Field::Revision),
    ("CPU implementer", Field::Vendor),
    ("CPU part", Field::Model),
    ("CPU revision", Field::Revision),
    ("CPU variant", Field::Stepping),
    ("Features", Field::Flags),
    ("ISA", Field::Isa),
    ("Model Name", Field::ModelName),
    ("address sizes", Field::AddressSizes),
    ("bogomips per cpu", Field::Bogomips),
    ("cpu", Field::ModelName),
    ("cpu family", Field::Family),
    ("cpu model", Field::Model),
    ("family", Field::Family),
    ("features", Field::Flags),
    ("flags", Field::Flags),
    ("isa", Field::Isa),
    ("marchid", Field::Family),
    ("max thread id", Field::MaxThreadId),
    ("microcode", Field::Microcode),
    ("mimpid", Field::Model),
    ("mmu", Field::Mmu),
    ("model", Field::Model),
    ("model name", Field::ModelName),
    ("mvendorid", Field::Vendor),
    ("revision", Field::Revision),
    ("stepping", Field::Stepping),
    ("type", Field::Flags),
    ("uarch", Field::ModelName),
    ("vendor", Field::Vendor),
    ("vendor_id", Field::Vendor),
];

/// One CPU type as found in `/proc/cpuinfo` (before any ARM decoding).
/// Each field holds the first value of its block, encoded as lscpu prints
/// it (control and non-ASCII bytes as `\xHH`, see
/// [`safe_encode`](super::render::safe_encode)).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CpuinfoType {
    /// `vendor_id`, `vendor`, `CPU implementer` or `mvendorid`.
    pub vendor: Option<String>,
    /// `model`, `CPU part`, `cpu model` or `mimpid`.
    pub model: Option<String>,
    /// `model name`, `Model Name`, `cpu` (ppc, sparc) or `uarch` (riscv).
    pub model_name: Option<String>,
    /// `stepping` or `CPU variant`.
    pub stepping: Option<String>,
    /// `revision`, `CPU revision` or `CPU Revision`.
    pub revision: Option<String>,
    /// `BogoMIPS`, `bogomips per cpu`, or the first CPU's `bogomips`.
    pub bogomips: Option<String>,
    /// `max thread id` (s390): threads per core minus one.
    pub max_thread_id: Option<String>,
    #[serde(skip)]
    other: [Option<String>; 6],
}

impl CpuinfoType {
    fn slot(&mut self, f: Field) -> &mut Option<String> {
        match f {
            Field::Vendor => &mut self.vendor,
            Field::Model => &mut self.model,
            Field::ModelName => &mut self.model_name,
            Field::Stepping => &mut self.stepping,
            Field::Revision => &mut self.revision,
            Field::Bogomips => &mut self.bogomips,
            Field::MaxThreadId => &mut self.max_thread_id,
            Field::Family => &mut self.other[0],
            Field::Flags => &mut self.other[1],
            Field::AddressSizes => &mut self.other[2],
            Field::Isa => &mut self.other[3],
            Field::Mmu => &mut self.other[4],
            Field::Microcode => &mut self.other[5],
        }
    }

    /// The sort key of lscpu's `cmp_cputype`: vendor, model, model name,
    /// stepping; a missing value sorts first.
    fn key(&self) -> [Option<&[u8]>; 4] {
        [
            self.vendor.as_deref().map(str::as_bytes),
            self.model.as_deref().map(str::as_bytes),
            self.model_name.as_deref().map(str::as_bytes),
            self.stepping.as_deref().map(str::as_bytes),
        ]
    }
}

/// "This CPU gets this type", in cpuinfo order; later entries win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Assignment {
    /// Logical CPU number (`processor` line).
    pub cpu: u32,
    /// Index into [`Cpuinfo::types`].
    pub type_index: usize,
    /// True for the final "last CPU keeps its type if it has one" rule.
    pub only_if_unset: bool,
}

/// What `/proc/cpuinfo` says: the CPU types in lscpu's order (sorted and
/// merged, 2.41+ rules) and which CPU has which type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Cpuinfo {
    /// Distinct CPU types, sorted by (vendor, model, model name, stepping).
    pub types: Vec<CpuinfoType>,
    /// CPU to type assignments, to apply in order.
    pub assignments: Vec<Assignment>,
}

impl Cpuinfo {
    /// The type index of every CPU in `cpus` (in that order): the last
    /// assignment naming it, else type 0 (lscpu's default type); `None`
    /// when there is no type at all.
    pub fn types_of(&self, cpus: &[usize]) -> Vec<Option<usize>> {
        let mut out: Vec<Option<usize>> = vec![None; cpus.len()];
        // A BTreeMap, not a HashMap: std seeds a HashMap from getrandom or
        // /dev/urandom and panics when it has neither (kernels before 3.17
        // in a rescue chroot without /dev).
        let index: std::collections::BTreeMap<usize, usize> =
            cpus.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        for a in &self.assignments {
            if let Some(&i) = index.get(&(a.cpu as usize)) {
                if !a.only_if_unset || out[i].is_none() {
                    out[i] = Some(a.type_index);
                }
            }
        }
        if self.types.is_empty() {
            return vec![None; cpus.len()];
        }
        out.into_iter().map(|t| Some(t.unwrap_or(0))).collect()
    }
}

/// Parses `/proc/cpuinfo` text. See [`parse_cpuinfo_bytes`].
pub fn parse_cpuinfo(text: &str) -> Cpuinfo {
    parse_cpuinfo_bytes(text.as_bytes())
}

/// Parses raw `/proc/cpuinfo` bytes as lscpu does: lines read in chunks
/// of at most 4095 bytes (its `fgets` buffer), each cut at a NUL, key before
/// the first `:`, trimmed, a trailing number taken as an index
/// (`processor 3`), empty values ignored.
pub fn parse_cpuinfo_bytes(data: &[u8]) -> Cpuinfo {
    let mut types: Vec<CpuinfoType> = Vec::new();
    let mut assignments = Vec::new();
    let mut curr_type: Option<usize> = None;
    let mut curr_cpu: Option<u32> = None;

    for chunk in fgets_chunks(data) {
        let Some((key, keynum, value)) = split_line(chunk) else {
            continue;
        };
        if key == "processor" || key == "cpu number" {
            let id = if keynum >= 0 {
                Some(keynum as u32)
            } else {
                Some(strtou32(&value).unwrap_or(0))
            };
            if let (Some(cpu), Some(t)) = (curr_cpu, curr_type) {
                assignments.push(Assignment {
                    cpu,
                    type_index: t,
                    only_if_unset: false,
                });
            }
            // lscpu stores the id in an int: ids past INT_MAX match no CPU
            curr_cpu = id.filter(|&i| i <= i32::MAX as u32);
        } else if key == "bogomips" {
            // a per-CPU key, but it fills the current type's BogoMIPS
            if let Some(t) = curr_type {
                types[t].bogomips.get_or_insert(value);
            }
        } else if let Some(&(_, field)) = TYPE_KEYS.iter().find(|(k, _)| *k == key) {
            let t = match curr_type {
                Some(t) if types[t].slot(field).is_none() => t,
                _ => {
                    types.push(CpuinfoType::default());
                    types.len() - 1
                }
            };
            curr_type = Some(t);
            *types[t].slot(field) = Some(value);
        }
    }
    if let (Some(cpu), Some(t)) = (curr_cpu, curr_type) {
        assignments.push(Assignment {
            cpu,
            type_index: t,
            only_if_unset: true,
        });
    }
    deduplicate(Cpuinfo { types, assignments })
}

/// The `cpu MHz` of each `processor` block, as (CPU number, MHz), read
/// with the same line rules as [`parse_cpuinfo_bytes`]. A block whose
/// number does not parse, or a clock that is not a positive number, gives
/// nothing.
pub fn cpu_mhz(data: &[u8]) -> Vec<(u32, f64)> {
    let mut out = Vec::new();
    let mut cpu: Option<u32> = None;
    for chunk in fgets_chunks(data) {
        let Some((key, keynum, value)) = split_line(chunk) else {
            continue;
        };
        match key.as_str() {
            "processor" | "cpu number" => {
                cpu = if keynum >= 0 {
                    Some(keynum as u32)
                } else {
                    strtou32(&value)
                }
            }
            "cpu MHz" => {
                if let (Some(c), Ok(mhz)) = (cpu, value.parse::<f64>()) {
                    if mhz.is_finite() && mhz > 0.0 {
                        out.push((c, mhz));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Sorts the types, merges equal ones, then merges a first type that only
/// repeats the second one's data (the ppc trailer `model : IBM,...`).
fn deduplicate(raw: Cpuinfo) -> Cpuinfo {
    let n = raw.types.len();
    if n == 0 {
        return raw;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| raw.types[a].key().cmp(&raw.types[b].key())); // stable
    let mut remap = vec![0usize; n];
    let mut kept: Vec<usize> = Vec::new();
    for &i in &order {
        match kept.last() {
            Some(&k) if raw.types[k].key() == raw.types[i].key() => remap[i] = kept.len() - 1,
            _ => {
                kept.push(i);
                remap[i] = kept.len() - 1;
            }
        }
    }
    let mut types: Vec<CpuinfoType> = kept.iter().map(|&i| raw.types[i].clone()).collect();
    if types.len() == 2 && is_subset(&types[0], &types[1]) {
        types.remove(0);
        remap.iter_mut().for_each(|r| *r = 0);
    }
    let assignments = raw
        .assignments
        .into_iter()
        .map(|a| Assignment {
            type_index: remap[a.type_index],
            ..a
        })
        .collect();
    Cpuinfo { types, assignments }
}

/// True when every set field of `a` among model, model name, vendor,
/// BogoMIPS and revision equals the same field of `b`.
fn is_subset(a: &CpuinfoType, b: &CpuinfoType) -> bool {
    [
        (&a.model, &b.model),
        (&a.model_name, &b.model_name),
        (&a.vendor, &b.vendor),
        (&a.bogomips, &b.bogomips),
        (&a.revision, &b.revision),
    ]
    .iter()
    .all(|(x, y)| x.is_none() || x == y)
}

/// Splits input as successive `fgets(buf, 4096)` calls would.
fn fgets_chunks(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = data;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let limit = rest.len().min(4095);
        let end = rest[..limit]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(limit, |p| p + 1);
        let (chunk, tail) = rest.split_at(end);
        rest = tail;
        Some(chunk)
    })
}

fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn trim_c(mut b: &[u8]) -> &[u8] {
    while let [c, rest @ ..] = b {
        if !is_c_space(*c) {
            break;
        }
        b = rest;
    }
    while let [rest @ .., c] = b {
        if !is_c_space(*c) {
            break;
        }
        b = rest;
    }
    b
}

/// One cpuinfo line to (key without its trailing number, that number or
/// -1, value); `None` for lines lscpu ignores.
fn split_line(chunk: &[u8]) -> Option<(String, i32, String)> {
    let line = match chunk.iter().position(|&c| c == 0) {
        Some(n) => &chunk[..n],
        None => chunk,
    };
    let line = trim_c(line);
    let colon = line.iter().position(|&c| c == b':')?;
    let value = trim_c(&line[colon + 1..]);
    if value.is_empty() {
        return None;
    }
    let key = &line[..colon.min(127)]; // lscpu's 128-byte key buffer
    let mut key = trim_c(key);
    let mut keynum = -1i32;
    let digits = key.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 {
        let num = &key[key.len() - digits..];
        let parsed = num.iter().try_fold(0i64, |v, &c| {
            v.checked_mul(10)?.checked_add((c - b'0') as i64)
        });
        if let Some(n) = parsed {
            keynum = n as i32; // C: long to int
            key = trim_c(&key[..key.len() - digits]);
        }
    }
    Some((
        String::from_utf8_lossy(key).into_owned(),
        keynum,
        super::render::safe_encode(value),
    ))
}

/// util-linux `ul_strtou32(s, 10)`: the whole string must be a number.
pub(crate) fn strtou32(s: &str) -> Option<u32> {
    strtou64(s).and_then(|v| u32::try_from(v).ok())
}

/// util-linux `ul_strtou64(s, 10)`: optional blanks and sign, digits, nothing
/// after; negative numbers refused.
pub(crate) fn strtou64(s: &str) -> Option<u64> {
    let t = s.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'+') => (false, &t[1..]),
        Some(b'-') => (true, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let v: u64 = digits.parse().ok()?;
    if neg && v != 0 {
        return None;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_mhz_per_processor() {
        let t = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu MHz\t\t: 2599.998\n\n\
processor\t: 1\ncpu MHz\t\t: 3100.5\n\nprocessor\t: 2\ncpu MHz\t\t: 0\n\n\
processor\t: x\ncpu MHz\t\t: 900\n";
        assert_eq!(cpu_mhz(t.as_bytes()), vec![(0, 2599.998), (1, 3100.5)]);
        assert!(cpu_mhz(b"cpu MHz : 100\n").is_empty());
    }

    fn names(c: &Cpuinfo) -> Vec<Option<&str>> {
        c.types.iter().map(|t| t.model_name.as_deref()).collect()
    }

    const X86: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 37\n\
model name\t: Intel(R) Core(TM) i5 CPU       M 560  @ 2.67GHz\nstepping\t: 5\ncpu MHz\t\t: 1199.000\n\
flags\t\t: fpu vme de\nbogomips\t: 5319.90\n\n\
processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 37\n\
model name\t: Intel(R) Core(TM) i5 CPU       M 560  @ 2.67GHz\nstepping\t: 5\n\
flags\t\t: fpu vme de\nbogomips\t: 5320.01\n\n";

    #[test]
    fn x86_one_type_with_inner_blanks() {
        let c = parse_cpuinfo(X86);
        assert_eq!(
            names(&c),
            vec![Some("Intel(R) Core(TM) i5 CPU       M 560  @ 2.67GHz")]
        );
        assert_eq!(c.types[0].vendor.as_deref(), Some("GenuineIntel"));
        assert_eq!(c.types[0].bogomips.as_deref(), Some("5319.90"));
        assert_eq!(c.types_of(&[0, 1, 2]), vec![Some(0), Some(0), Some(0)]);
    }

    const ARM: &str = "processor\t: 0\nBogoMIPS\t: 38.40\nFeatures\t: fp asimd\n\
CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x2\nCPU part\t: 0xd4d\nCPU revision\t: 1\n\n\
processor\t: 1\nBogoMIPS\t: 38.40\nFeatures\t: fp asimd\n\
CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd46\nCPU revision\t: 1\n\n\
processor\t: 2\nBogoMIPS\t: 38.40\nFeatures\t: fp asimd\n\
CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x2\nCPU part\t: 0xd4d\nCPU revision\t: 1\n\n";

    #[test]
    fn arm_types_are_sorted_and_merged() {
        let c = parse_cpuinfo(ARM);
        let parts: Vec<_> = c.types.iter().map(|t| t.model.as_deref()).collect();
        assert_eq!(parts, vec![Some("0xd46"), Some("0xd4d")]);
        assert_eq!(c.types_of(&[0, 1, 2]), vec![Some(1), Some(0), Some(1)]);
        assert_eq!(names(&c), vec![None, None]);
    }

    #[test]
    fn same_part_other_variant_merges_when_the_rest_is_equal() {
        let two = ARM.replace("0xd46", "0xd4d");
        let c = parse_cpuinfo(&two);
        assert_eq!(c.types.len(), 1);
        assert_eq!(c.types[0].stepping.as_deref(), Some("0x2"));
    }

    #[test]
    fn ppc_trailer_model_merges() {
        let text = "processor\t: 0\ncpu\t\t: POWER7 (architected), altivec supported\n\
clock\t\t: 3550.000000MHz\nrevision\t: 2.1 (pvr 003f 0201)\n\n\
processor\t: 1\ncpu\t\t: POWER7 (architected), altivec supported\n\
clock\t\t: 3550.000000MHz\nrevision\t: 2.1 (pvr 003f 0201)\n\n\
timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,8233-E8B\nmachine\t\t: CHRP IBM,8233-E8B\n";
        let c = parse_cpuinfo(text);
        assert_eq!(
            names(&c),
            vec![Some("POWER7 (architected), altivec supported")]
        );
        assert_eq!(c.types[0].model.as_deref(), Some("IBM,8233-E8B"));
        assert_eq!(c.types_of(&[0, 1]), vec![Some(0), Some(0)]);
    }

    #[test]
    fn s390_processor_lines_with_index() {
        let text = "vendor_id       : IBM/S390\n# processors    : 4\n\
bogomips per cpu: 14367.00\nmax thread id   : 1\nfeatures\t: esan3 zarch\n\
cache0          : level=1 type=Data scope=Private size=96K line_size=256 associativity=6\n\
processor 0: version = FF,  identification = 0117C9,  machine = 2817\n\
processor 1: version = FF,  identification = 0117C9,  machine = 2817\n\n\
cpu number      : 0\ncpu MHz dynamic : 5200\n";
        let c = parse_cpuinfo(text);
        assert_eq!(c.types.len(), 1);
        assert_eq!(c.types[0].model_name, None);
        assert_eq!(c.types[0].max_thread_id.as_deref(), Some("1"));
        assert_eq!(c.types_of(&[0, 1, 5]), vec![Some(0), Some(0), Some(0)]);
    }

    #[test]
    fn riscv_uarch_is_the_model_name() {
        let text = "processor\t: 0\nhart\t\t: 1\nisa\t\t: rv64imafdc\nmmu\t\t: sv39\n\
uarch\t\t: sifive,u74-mc\nmvendorid\t: 0x489\nmarchid\t\t: 0x8000000000000007\nmimpid\t\t: 0x4210427\n\n\
processor\t: 1\nhart\t\t: 2\nisa\t\t: rv64imafdc\nmmu\t\t: sv39\n\
uarch\t\t: sifive,u74-mc\nmvendorid\t: 0x489\nmarchid\t\t: 0x8000000000000007\nmimpid\t\t: 0x4210427\n";
        let c = parse_cpuinfo(text);
        assert_eq!(names(&c), vec![Some("sifive,u74-mc")]);
    }

    #[test]
    fn sparc_has_no_processor_lines() {
        let text =
            "cpu\t\t: TI UltraSparc II  (BlackBird)\nfpu\t\t: UltraSparc II integrated FPU\n\
pmu\t\t: ultra12\ntype\t\t: sun4u\nncpus probed\t: 6\nCpu6ClkTck\t: 000000000ec82e00\n\
State:\nCPU6:\t\tonline\n";
        let c = parse_cpuinfo(text);
        assert_eq!(names(&c), vec![Some("TI UltraSparc II  (BlackBird)")]);
        assert!(c.assignments.is_empty());
        assert_eq!(c.types_of(&[6, 7]), vec![Some(0), Some(0)]);
    }

    #[test]
    fn loongarch_model_name_key() {
        let text = "system type\t\t: generic-loongson-machine\n\n\
processor\t\t: 0\npackage\t\t\t: 0\ncore\t\t\t: 0\nCPU Family\t\t: Loongson-64bit\n\
Model Name\t\t: Loongson-3A5000-HV\nCPU Revision\t\t: 0x11\nBogoMIPS\t\t: 5000.00\n\
ISA\t\t\t: loongarch32 loongarch64\n\n\
processor\t\t: 1\npackage\t\t\t: 0\ncore\t\t\t: 1\nCPU Family\t\t: Loongson-64bit\n\
Model Name\t\t: Loongson-3A5000-HV\nCPU Revision\t\t: 0x11\nBogoMIPS\t\t: 5000.00\n";
        let c = parse_cpuinfo(text);
        assert_eq!(names(&c), vec![Some("Loongson-3A5000-HV")]);
        assert_eq!(c.types[0].revision.as_deref(), Some("0x11"));
    }

    #[test]
    fn control_and_high_bytes_are_escaped() {
        let c = parse_cpuinfo_bytes(b"model name : A\tB\xff\n");
        assert_eq!(names(&c), vec![Some("A\\x09B\\xff")]);
    }

    #[test]
    fn malformed_input_never_panics() {
        assert_eq!(parse_cpuinfo(""), Cpuinfo::default());
        let c = parse_cpuinfo("garbage\n:\n::::\nprocessor : x\nmodel name :   \n");
        assert!(c.types.is_empty());
        assert_eq!(c.types_of(&[0]), vec![None]);
        let junk: Vec<u8> = (0..=255u8).cycle().take(20000).collect();
        let _ = parse_cpuinfo_bytes(&junk);
        // a type before any processor line still types every CPU
        let c = parse_cpuinfo("model name : X\n");
        assert_eq!(c.types_of(&[0, 3]), vec![Some(0), Some(0)]);
    }

    #[test]
    fn lines_longer_than_lscpus_buffer_are_cut() {
        let long = format!("model name : {}\n", "A".repeat(5000));
        let c = parse_cpuinfo(&long);
        assert_eq!(
            c.types[0].model_name.as_ref().map(|s| s.len()),
            Some(4095 - 13)
        );
    }

    #[test]
    fn strict_numbers() {
        assert_eq!(strtou32("12"), Some(12));
        assert_eq!(strtou32("+3"), Some(3));
        assert_eq!(strtou32("-1"), None);
        assert_eq!(strtou32("1x"), None);
        assert_eq!(strtou32("4294967296"), None);
        assert_eq!(strtou64(""), None);
    }
}
