//! SMBIOS tables (`/sys/firmware/dmi/tables/DMI`): `parse_smbios` and the
//! "BIOS Model name" built from it (`SmbiosProcessor::model_name`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::sysinfo::cpu::dmi::MODEL_NAME_MAX_BYTES;
use quickbench::sysinfo::cpu::parse_smbios;
use quickbench::sysinfo::cpu::render::safe_encode;

fuzz_target!(|data: &[u8]| {
    if let Some(p) = parse_smbios(data) {
        assert!(p.type4_count >= 1);
        let raw = p.model_name_bytes();
        // the version whole when it holds " CPU @ ", else lscpu's format
        // on the raw bytes, cut to its 100-byte buffer (which can cut the
        // " CPU @ " part away)
        let speed = p.current_speed_mhz.max(p.max_speed_mhz);
        let mut full = p.version.clone().unwrap_or_default();
        full.push(b' ');
        full.extend_from_slice(p.part_number.as_deref().unwrap_or_default());
        full.extend_from_slice(format!(" CPU @ {}.{}GHz", speed / 1000, (speed % 1000) / 100).as_bytes());
        let kept = p.version.as_deref() == Some(&raw[..]) && raw.windows(7).any(|w| w == b" CPU @ ");
        let cut = raw.len() == MODEL_NAME_MAX_BYTES && full.starts_with(&raw);
        assert!(kept || raw == full || cut, "{raw:?}");
        // encoded after the cut, as lscpu prints it: printable ASCII only
        let name = p.model_name();
        assert_eq!(name, safe_encode(&raw));
        assert!(name.bytes().all(|c| (0x20..0x7f).contains(&c)), "{name:?}");
        for s in [&p.manufacturer, &p.version, &p.part_number]
            .into_iter()
            .flatten()
        {
            assert!(!s.is_empty() && !s.contains(&0));
        }
    }
});
