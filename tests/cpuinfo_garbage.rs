//! The pure parsers on pseudo-random and mutated input: they must never
//! panic (a cheap stand-in until the fuzz targets exist).

use quickbench::sysinfo::cpu::{
    parse_cpu_list, parse_cpuinfo_bytes, parse_mask, parse_smbios, parse_sysinfo_topology,
};

/// xorshift64: deterministic, no extra crate.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn bytes(&mut self, alphabet: &[u8], max: usize) -> Vec<u8> {
        let n = (self.next() as usize) % max;
        (0..n)
            .map(|_| alphabet[(self.next() as usize) % alphabet.len()])
            .collect()
    }
}

#[test]
fn parsers_survive_random_input() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let all: Vec<u8> = (0..=255).collect();
    let list_chars = b"0123456789,-: x\n";
    let mask_chars = b"0123456789abcdefABCDEFx,\n ";
    let info_chars = b"processor model name CPU part 0x41 :\t\n0123456789";
    for _ in 0..3000 {
        let l = rng.bytes(list_chars, 40);
        let _ = parse_cpu_list(&String::from_utf8_lossy(&l), 256);
        let m = rng.bytes(mask_chars, 40);
        let _ = parse_mask(&String::from_utf8_lossy(&m), 256);
        let i = rng.bytes(info_chars, 400);
        let _ = parse_cpuinfo_bytes(&i);
        let r = rng.bytes(&all, 300);
        let _ = parse_cpuinfo_bytes(&r);
        let _ = parse_smbios(&r);
        let _ = parse_sysinfo_topology(&String::from_utf8_lossy(&r));
        let mut t = b"CPU Topology SW: ".to_vec();
        t.extend(rng.bytes(b"0123456789 -+\t", 30));
        let _ = parse_sysinfo_topology(&String::from_utf8_lossy(&t));
    }
}

#[test]
fn smbios_with_random_type4_bodies() {
    let mut rng = Rng(42);
    let all: Vec<u8> = (0..=255).collect();
    for _ in 0..3000 {
        let mut t = vec![4u8, (rng.next() % 64) as u8, 0, 0];
        t.extend(rng.bytes(&all, 80));
        t.extend_from_slice(&[0, 0, 127, 4, 0, 0, 0, 0]);
        if let Some(p) = parse_smbios(&t) {
            let _ = p.model_name();
        }
    }
}
