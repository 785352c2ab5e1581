//! ARM `CPU implementer` / `CPU part` ids to names (`Cortex-A710`), as
//! util-linux `lscpu-arm.c` decodes them; the tables and their types are in `arm_table.rs`.

use super::arm_table::{Implementer, FOLLOW_BIOS, FOLLOW_KERNEL, IMPLEMENTERS};

/// lscpu's `parse_id`: a `0x` prefix is required, then C `strtol(.., 0)`
/// (trailing garbage allowed); the result is stored in an `int`.
pub fn parse_id(s: &str) -> Option<i64> {
    let hex = s.strip_prefix("0x")?;
    let n = hex.bytes().take_while(u8::is_ascii_hexdigit).count();
    if n == 0 {
        // strtol reads the "0" alone
        return Some(0);
    }
    let v = i64::from_str_radix(&hex[..n], 16).ok()?; // ERANGE
    Some(v as i32 as i64)
}

/// The implementer name of an id such as `0x41`, if lscpu knows it.
pub fn implementer_name(vendor: &str) -> Option<&'static str> {
    find_implementer(vendor).map(|h| h.name)
}

fn find_implementer(vendor: &str) -> Option<&'static Implementer> {
    let id = parse_id(vendor).filter(|&i| i > 0)?;
    IMPLEMENTERS.iter().find(|h| h.id == id)
}

/// The model name lscpu shows for an ARM type: the part's name when the
/// implementer and part are known (or the BIOS name for parts that prefer
/// it, or the kernel's name for implementers that prefer it), else the
/// kernel's `model name` unchanged.
pub fn decode_model_name(
    vendor: Option<&str>,
    part: Option<&str>,
    kernel_name: Option<&str>,
    bios_name: Option<&str>,
) -> Option<String> {
    let keep = || kernel_name.map(str::to_string);
    let Some(hw) = vendor.and_then(find_implementer) else {
        return keep();
    };
    let Some(part_id) = part.and_then(parse_id).filter(|&p| p > 0) else {
        return keep();
    };
    let Some(p) = hw.parts.iter().find(|p| p.id == part_id) else {
        return keep();
    };
    let flags = hw.flags | p.flags;
    if flags & FOLLOW_KERNEL != 0 && kernel_name.is_some() {
        return keep();
    }
    if flags & FOLLOW_BIOS != 0 {
        if let Some(b) = bios_name.filter(|b| p.bios_match.is_none_or(|m| b.contains(m))) {
            return Some(b.to_string());
        }
    }
    Some(p.name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_parts() {
        let d = |v, p| decode_model_name(Some(v), Some(p), None, None);
        assert_eq!(d("0x41", "0xd46").as_deref(), Some("Cortex-A510"));
        assert_eq!(d("0x41", "0xd4e").as_deref(), Some("Cortex-X3"));
        assert_eq!(d("0x41", "0xc0f").as_deref(), Some("Cortex-A15"));
        assert_eq!(d("0x41", "0xd0c").as_deref(), Some("Neoverse-N1"));
        assert_eq!(d("0x61", "0x022").as_deref(), Some("Icestorm-M1"));
        assert_eq!(implementer_name("0x41"), Some("ARM"));
        assert_eq!(implementer_name("0x00"), None);
        assert_eq!(implementer_name("GenuineIntel"), None);
    }

    #[test]
    fn unknown_part_keeps_the_kernel_name() {
        let n = decode_model_name(Some("0x41"), Some("0xfff"), Some("ARMv7"), None);
        assert_eq!(n.as_deref(), Some("ARMv7"));
        assert_eq!(
            decode_model_name(Some("0x41"), Some("0xfff"), None, None),
            None
        );
        assert_eq!(
            decode_model_name(Some("0x41"), Some("zz"), None, None),
            None
        );
    }

    #[test]
    fn follow_flags() {
        // HiSilicon Kunpeng parts prefer a matching BIOS name
        let bios = "Kunpeng 920-4826";
        let n = decode_model_name(Some("0x48"), Some("0xd01"), None, Some(bios));
        assert_eq!(n.as_deref(), Some(bios));
        let n = decode_model_name(Some("0x48"), Some("0xd01"), None, Some("Other"));
        assert_eq!(n.as_deref(), Some("Kunpeng-920"));
        // Phytium keeps the kernel's name
        let n = decode_model_name(Some("0x70"), Some("0x662"), Some("FT-2000+"), None);
        assert_eq!(n.as_deref(), Some("FT-2000+"));
    }

    #[test]
    fn ids() {
        assert_eq!(parse_id("0x41"), Some(0x41));
        assert_eq!(parse_id("0xd4dz"), Some(0xd4d));
        assert_eq!(parse_id("41"), None);
        assert_eq!(parse_id("0x"), Some(0));
        assert_eq!(parse_id("0xffffffff"), Some(-1));
    }
}
