//! The SMBIOS table (`/sys/firmware/dmi/tables/DMI`, raw structures) to the
//! "BIOS Model name": the first type-4 (Processor Information) structure,
//! decoded as util-linux 2.41.3+ `lscpu-dmi.c` does. Pure: bytes in,
//! [`SmbiosProcessor`] out; garbage gives `None`, never a panic.

use super::render::safe_encode;

/// lscpu formats the BIOS model name into a 100-byte buffer: 99 bytes and
/// the NUL.
pub const MODEL_NAME_MAX_BYTES: usize = 99;

/// What the first SMBIOS type-4 structure says about the processor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SmbiosProcessor {
    /// Processor Manufacturer string (offset 0x07), raw bytes.
    pub manufacturer: Option<Vec<u8>>,
    /// Processor Version string (offset 0x10), raw bytes.
    pub version: Option<Vec<u8>>,
    /// Part Number string (offset 0x22, SMBIOS 2.5+), raw bytes.
    pub part_number: Option<Vec<u8>>,
    /// Max Speed in MHz (offset 0x14).
    pub max_speed_mhz: u16,
    /// Current Speed in MHz (offset 0x16).
    pub current_speed_mhz: u16,
    /// Number of type-4 structures in the table (lscpu's socket count).
    pub type4_count: usize,
}

impl SmbiosProcessor {
    /// lscpu's "BIOS Model name": the version string when it already holds
    /// ` CPU @ `, else `"<version> <part> CPU @ <GHz>"` with the larger of
    /// the current and max speeds, cut to 99 bytes (lscpu's buffer). As
    /// lscpu, the raw bytes are cut first, then encoded for printing
    /// ([`safe_encode`]: a byte from 0x80 becomes `\xHH`), so the cut falls
    /// where lscpu's does even in non-ASCII text.
    pub fn model_name(&self) -> String {
        safe_encode(&self.model_name_bytes())
    }

    /// [`Self::model_name`] before encoding: raw bytes, at most 99 unless
    /// the version is kept whole.
    pub fn model_name_bytes(&self) -> Vec<u8> {
        if let Some(v) = self
            .version
            .as_deref()
            .filter(|v| v.windows(7).any(|w| w == b" CPU @ "))
        {
            return v.to_vec();
        }
        let speed = self.current_speed_mhz.max(self.max_speed_mhz);
        let mut s = Vec::with_capacity(128);
        s.extend_from_slice(self.version.as_deref().unwrap_or_default());
        s.push(b' ');
        s.extend_from_slice(self.part_number.as_deref().unwrap_or_default());
        s.extend_from_slice(
            format!(" CPU @ {}.{}GHz", speed / 1000, (speed % 1000) / 100).as_bytes(),
        );
        s.truncate(MODEL_NAME_MAX_BYTES);
        s
    }
}

/// Walks raw SMBIOS structures (type u8, length u8, handle u16, formatted
/// area, then NUL-terminated strings ending with a double NUL) up to the
/// end-of-table type 127, and decodes the first type-4 structure.
///
/// `None` when there is no type-4 structure, or when the table is broken
/// before its end (a header shorter than 4 bytes, a structure running past
/// the data): lscpu then shows no BIOS model name either.
pub fn parse_smbios(data: &[u8]) -> Option<SmbiosProcessor> {
    let len = data.len();
    let max_structs = len / 4;
    let mut pos = 0usize;
    let mut found: Option<SmbiosProcessor> = None;
    let mut count = 0usize;
    for _ in 0..max_structs {
        if pos + 4 > len {
            break;
        }
        let (typ, hlen) = (data[pos], data[pos + 1] as usize);
        if hlen < 4 {
            return None;
        }
        // the string set ends at the first double NUL after the formatted area
        let mut next = pos + hlen;
        while next + 1 < len && (data[next] != 0 || data[next + 1] != 0) {
            next += 1;
        }
        next += 2;
        if next > len {
            return None;
        }
        let st = &data[pos..next];
        if typ == 4 {
            if found.is_none() {
                found = Some(decode_type4(st, hlen));
            }
            count += 1;
        }
        if typ == 127 {
            break;
        }
        pos = next;
    }
    found.map(|p| SmbiosProcessor {
        type4_count: count,
        ..p
    })
}

fn decode_type4(st: &[u8], hlen: usize) -> SmbiosProcessor {
    let byte = |off: usize| st.get(off).copied().unwrap_or(0);
    let word = |off: usize| u16::from_le_bytes([byte(off), byte(off + 1)]);
    let string = |off: usize| {
        if hlen > off {
            dmi_string(st, hlen, byte(off))
        } else {
            None
        }
    };
    let (max_speed_mhz, current_speed_mhz) = if hlen >= 0x18 {
        (word(0x14), word(0x16))
    } else {
        (0, 0)
    };
    SmbiosProcessor {
        manufacturer: string(0x07),
        version: string(0x10),
        part_number: string(0x22),
        max_speed_mhz,
        current_speed_mhz,
        type4_count: 0,
    }
}

/// String number `n` (1-based) of a structure, raw bytes; `None` for 0, an
/// index past the string set, or an empty string.
fn dmi_string(st: &[u8], hlen: usize, n: u8) -> Option<Vec<u8>> {
    if n == 0 {
        return None;
    }
    let strings = st.get(hlen..)?;
    let mut it = strings.split(|&c| c == 0);
    let mut s = it.next()?;
    for _ in 1..n {
        if s.is_empty() {
            return None;
        }
        s = it.next()?;
    }
    if s.is_empty() {
        None
    } else {
        Some(s.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type-4 structure of `len` formatted bytes with `strings`.
    fn type4(len: u8, version: u8, part: u8, max: u16, cur: u16, strings: &[&str]) -> Vec<u8> {
        let mut s = vec![0u8; len as usize];
        s[0] = 4;
        s[1] = len;
        s[2] = 0x00;
        s[3] = 0x04;
        let mut put = |off: usize, v: u8| {
            if off < s.len() {
                s[off] = v;
            }
        };
        put(0x07, 1);
        put(0x10, version);
        put(0x14, max.to_le_bytes()[0]);
        put(0x15, max.to_le_bytes()[1]);
        put(0x16, cur.to_le_bytes()[0]);
        put(0x17, cur.to_le_bytes()[1]);
        put(0x22, part);
        for st in strings {
            s.extend_from_slice(st.as_bytes());
            s.push(0);
        }
        if strings.is_empty() {
            s.push(0);
        }
        s.push(0);
        s
    }

    fn table(structs: &[Vec<u8>]) -> Vec<u8> {
        let mut t = vec![0u8, 0x18, 0, 0, 1, 2]; // type 0, bare
        t.resize(0x18, 0);
        t.extend_from_slice(b"SeaBIOS\0\0");
        for s in structs {
            t.extend_from_slice(s);
        }
        t.extend_from_slice(&[127, 4, 0xff, 0xfe, 0, 0]);
        t
    }

    #[test]
    fn qemu_processor() {
        // QEMU: manufacturer "QEMU", version "pc-i440fx-8.2", no part number
        let t = table(&[type4(0x30, 2, 0, 2000, 2000, &["QEMU", "pc-i440fx-8.2"])]);
        let p = parse_smbios(&t).unwrap();
        assert_eq!(p.manufacturer.as_deref(), Some(&b"QEMU"[..]));
        assert_eq!(p.model_name(), "pc-i440fx-8.2  CPU @ 2.0GHz");
        assert_eq!(p.type4_count, 1);
    }

    #[test]
    fn version_with_cpu_at_is_kept() {
        let v = "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz";
        let t = table(&[type4(0x30, 2, 3, 4000, 2100, &["Intel", v, "X"])]);
        assert_eq!(parse_smbios(&t).unwrap().model_name(), v);
    }

    #[test]
    fn speed_is_the_larger_and_truncated() {
        let t = table(&[type4(
            0x30,
            2,
            3,
            3299,
            2100,
            &["Ampere", "Altra", "Q80-30"],
        )]);
        let p = parse_smbios(&t).unwrap();
        assert_eq!(p.model_name(), "Altra Q80-30 CPU @ 3.2GHz");
    }

    #[test]
    fn raw_bytes_are_cut_at_99_then_encoded_as_lscpu_does() {
        // 97 ASCII bytes then "é" (0xc3 0xa9): the raw text is cut right
        // after the é, which then prints as two escapes; encoding first
        // would have cut inside "\xc3" (found by the smbios fuzzer's review)
        let version = format!("{}é", "a".repeat(97));
        let t = table(&[type4(0x30, 2, 3, 2000, 2000, &["V", &version, "P"])]);
        let p = parse_smbios(&t).unwrap();
        assert_eq!(p.model_name_bytes().len(), 99);
        assert_eq!(p.model_name(), format!("{}\\xc3\\xa9", "a".repeat(97)));
        // a control byte in the part number, before the cut
        let t = table(&[type4(0x30, 2, 3, 2000, 2000, &["V", "X", "P\x07Q"])]);
        let p = parse_smbios(&t).unwrap();
        assert_eq!(p.model_name(), "X P\\x07Q CPU @ 2.0GHz");
    }

    #[test]
    fn first_type4_wins_and_all_are_counted() {
        let a = type4(0x30, 2, 0, 2000, 2000, &["A", "first"]);
        let b = type4(0x30, 2, 0, 3000, 3000, &["B", "second"]);
        let p = parse_smbios(&table(&[a, b])).unwrap();
        assert_eq!(p.version.as_deref(), Some(&b"first"[..]));
        assert_eq!(p.type4_count, 2);
    }

    #[test]
    fn short_structure_has_no_part_or_speed() {
        // SMBIOS 2.0 type 4 of 0x1A bytes: no part number; speeds present
        let t = table(&[type4(0x1a, 2, 3, 1000, 1500, &["A", "Old", "P"])]);
        let p = parse_smbios(&t).unwrap();
        assert_eq!(p.part_number, None);
        assert_eq!(p.model_name(), "Old  CPU @ 1.5GHz");
        let t = table(&[type4(0x11, 2, 0, 1000, 1500, &["A", "Older"])]);
        assert_eq!(
            parse_smbios(&t).unwrap().model_name(),
            "Older  CPU @ 0.0GHz"
        );
    }

    #[test]
    fn missing_strings_and_bad_indexes() {
        let t = table(&[type4(0x30, 9, 0, 2000, 2000, &["A", "B"])]);
        let p = parse_smbios(&t).unwrap();
        assert_eq!(p.version, None);
        assert_eq!(p.model_name(), "  CPU @ 2.0GHz");
        let t = table(&[type4(0x30, 2, 0, 0, 0, &[])]);
        let p = parse_smbios(&t).unwrap();
        assert_eq!((p.manufacturer, p.version), (None, None));
    }

    #[test]
    fn no_type4_gives_none() {
        assert_eq!(parse_smbios(&table(&[])), None);
        assert_eq!(parse_smbios(&[]), None);
    }

    #[test]
    fn truncated_or_garbage_tables_give_none() {
        let t = table(&[type4(0x30, 2, 0, 2000, 2000, &["QEMU", "pc"])]);
        for cut in 0..t.len() - 6 {
            let _ = parse_smbios(&t[..cut]); // never panics
        }
        // cut inside the type-4 structure
        assert_eq!(parse_smbios(&t[..0x18 + 9 + 20]), None);
        // a header claiming fewer than 4 bytes
        let mut bad = t.clone();
        bad[1] = 2;
        assert_eq!(parse_smbios(&bad), None);
        // a length running past the end
        let mut bad = t.clone();
        bad[0x18 + 9 + 1] = 0xff;
        assert_eq!(parse_smbios(&bad), None);
        let junk: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
        let _ = parse_smbios(&junk);
    }
}
