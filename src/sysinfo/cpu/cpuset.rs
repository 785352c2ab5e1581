//! CPU sets as the kernel writes them in `/sys/devices/system/cpu`: lists
//! (`possible`, `online`: `0-3,8-11`) and hex masks (`thread_siblings`:
//! `00000000,00000003`). Parsing follows util-linux `lib/cpuset.c`, including
//! its bound: CPUs at or past `nbits` are dropped, never an error.

use serde::Serialize;

/// A set of logical CPU numbers below a fixed bound.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CpuSet {
    words: Vec<u64>,
}

impl CpuSet {
    /// An empty set able to hold CPUs `0..nbits` (rounded up to 64).
    pub fn new(nbits: usize) -> Self {
        CpuSet {
            words: vec![0; nbits.div_ceil(64)],
        }
    }

    /// Number of CPUs the set can hold.
    pub fn nbits(&self) -> usize {
        self.words.len() * 64
    }

    /// Adds `cpu`; silently ignored past the bound (as `CPU_SET_S`).
    pub fn insert(&mut self, cpu: usize) {
        if let Some(w) = self.words.get_mut(cpu / 64) {
            *w |= 1u64 << (cpu % 64);
        }
    }

    /// True if `cpu` is in the set.
    pub fn contains(&self, cpu: usize) -> bool {
        self.words
            .get(cpu / 64)
            .is_some_and(|w| w & (1u64 << (cpu % 64)) != 0)
    }

    /// Number of CPUs in the set.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True if the two sets share no CPU.
    pub fn is_disjoint(&self, other: &CpuSet) -> bool {
        self.words.iter().zip(&other.words).all(|(a, b)| a & b == 0)
    }

    /// The CPUs in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.nbits()).filter(|&c| self.contains(c))
    }
}

/// The number of bits util-linux gives a set for `maxcpus` CPUs
/// (`CPU_ALLOC_SIZE`: whole 64-bit words).
pub fn set_bits_for(maxcpus: usize) -> usize {
    maxcpus.max(1).div_ceil(64) * 64
}

/// Parses a CPU list such as `0-3,8-11` or `0-15:4` (stride). `None` on a
/// syntax error (an empty string is one); CPUs at or past `nbits` are
/// ignored, as lscpu does.
pub fn parse_cpu_list(s: &str, nbits: usize) -> Option<CpuSet> {
    let b = c_str(s.as_bytes());
    let mut set = CpuSet::new(nbits);
    let max = set.nbits();
    let mut pos = 0usize;
    loop {
        // one token: a[-b[:s]]
        let (a, end) = next_number(b, pos)?;
        let mut e = end;
        if e < b.len() && b[e] != b',' && b[e] != b'-' {
            return None;
        }
        let (mut hi, mut stride) = (a, 1u32);
        let comma = find(b, e, b',');
        let dash = find(b, e, b'-');
        if let Some(d) = dash.filter(|&d| comma.is_none_or(|c| d < c)) {
            let (v, end2) = next_number(b, d + 1)?;
            if end2 < b.len() && b[end2] != b',' && b[end2] != b':' {
                return None;
            }
            hi = v;
            e = end2;
            let colon = find(b, e, b':');
            if let Some(c) = colon.filter(|&c| comma.is_none_or(|cm| c < cm)) {
                let (v, end3) = next_number(b, c + 1)?;
                if end3 < b.len() && b[end3] != b',' {
                    return None;
                }
                if v == 0 {
                    return None;
                }
                stride = v;
                e = end3;
            }
        }
        if a > hi {
            return None;
        }
        let mut cpu = a as u64;
        while cpu <= hi as u64 {
            if cpu as usize >= max {
                break;
            }
            set.insert(cpu as usize);
            cpu += stride as u64;
        }
        match comma {
            Some(c) => pos = c + 1,
            None => {
                // lscpu: trailing garbage after the last token is an error
                return if e < b.len() { None } else { Some(set) };
            }
        }
    }
}

/// Parses a hex mask such as `00000000,00000003` or `0x0f` (lowest CPUs
/// at the right). An empty mask is a valid empty set; any other character
/// than hex digits and single commas is an error (`None`).
pub fn parse_mask(s: &str, nbits: usize) -> Option<CpuSet> {
    let mut b = c_str(s.as_bytes());
    if b.len() > 1 && &b[..2] == b"0x" {
        b = &b[2..];
    }
    let mut set = CpuSet::new(nbits);
    let mut cpu = 0usize;
    let mut i = b.len();
    while i > 0 {
        i -= 1;
        if b[i] == b',' {
            if i == 0 {
                // lscpu reads before the buffer here; treat as garbage
                return None;
            }
            i -= 1;
        }
        let v = (b[i] as char).to_digit(16)?;
        for bit in 0..4 {
            if v & (1 << bit) != 0 {
                set.insert(cpu + bit);
            }
        }
        cpu += 4;
    }
    Some(set)
}

/// The C view of a string: it ends at the first NUL.
fn c_str(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(n) => &b[..n],
        None => b,
    }
}

fn find(b: &[u8], from: usize, c: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&x| x == c)
        .map(|p| p + from)
}

/// `nextnumber()`: a decimal number starting exactly at `pos`, read as C's
/// `strtoul` then truncated to `unsigned int`.
fn next_number(b: &[u8], pos: usize) -> Option<(u32, usize)> {
    let digits = b
        .get(pos..)?
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in &b[pos..pos + digits] {
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?; // ERANGE
    }
    Some((v as u32, pos + digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(s: &str) -> Option<Vec<usize>> {
        parse_cpu_list(s, 2048).map(|s| s.iter().collect())
    }
    fn mask(s: &str) -> Option<Vec<usize>> {
        parse_mask(s, 2048).map(|s| s.iter().collect())
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(list("0-3,8-11"), Some(vec![0, 1, 2, 3, 8, 9, 10, 11]));
        assert_eq!(list("1-5,8-19").map(|v| v.len()), Some(17));
        assert_eq!(list("0"), Some(vec![0]));
        assert_eq!(list("0,6-7"), Some(vec![0, 6, 7]));
        assert_eq!(list("0-8:4"), Some(vec![0, 4, 8]));
        assert_eq!(list(""), None);
        assert_eq!(list("3-1"), None);
        assert_eq!(list("a"), None);
        assert_eq!(list("0-3x"), None);
        assert_eq!(list("0,,1"), None);
        assert_eq!(list("0-3:0"), None);
    }

    #[test]
    fn cpu_lists_past_the_bound_are_dropped() {
        let s = parse_cpu_list("0-1,100-4000000000", 64).unwrap();
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(parse_cpu_list("99999999999999999999999", 64), None);
    }

    #[test]
    fn masks() {
        assert_eq!(mask("00000000,00000003"), Some(vec![0, 1]));
        assert_eq!(mask("0x11"), Some(vec![0, 4]));
        assert_eq!(mask("f0"), Some(vec![4, 5, 6, 7]));
        assert_eq!(mask("1,00000000"), Some(vec![32]));
        assert_eq!(mask("AB"), Some(vec![0, 1, 3, 5, 7]));
        assert_eq!(mask(""), Some(vec![]));
        assert_eq!(mask("0g"), None);
        assert_eq!(mask(",1"), None);
        assert_eq!(mask("1,,1"), None);
        assert_eq!(mask("1 "), None);
    }

    #[test]
    fn sets() {
        let a = parse_mask("3", 64).unwrap();
        let b = parse_mask("c", 64).unwrap();
        let c = parse_mask("6", 64).unwrap();
        assert!(a.is_disjoint(&b));
        assert!(!a.is_disjoint(&c));
        assert_eq!(set_bits_for(64), 64);
        assert_eq!(set_bits_for(65), 128);
        assert_eq!(set_bits_for(0), 64);
    }
}
