//! SMBIOS tables (`/sys/firmware/dmi/tables/DMI`): `parse_smbios` and the
//! "BIOS Model name" built from it (`SmbiosProcessor::model_name`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::sysinfo::cpu::parse_smbios;

fuzz_target!(|data: &[u8]| {
    if let Some(p) = parse_smbios(data) {
        assert!(p.type4_count >= 1);
        let name = p.model_name();
        // the version whole when it holds " CPU @ ", else lscpu's format cut
        // to its 100-byte buffer (which can cut the " CPU @ " part away)
        let speed = p.current_speed_mhz.max(p.max_speed_mhz);
        let full = format!(
            "{} {} CPU @ {}.{}GHz",
            p.version.as_deref().unwrap_or(""),
            p.part_number.as_deref().unwrap_or(""),
            speed / 1000,
            (speed % 1000) / 100
        );
        let kept = p.version.as_deref() == Some(name.as_str()) && name.contains(" CPU @ ");
        let cut = name.len() == 99 && full.starts_with(&name);
        assert!(kept || name == full || cut, "{name:?}");
        // strings are encoded as lscpu prints them: printable ASCII only
        for s in [&p.manufacturer, &p.version, &p.part_number]
            .into_iter()
            .flatten()
        {
            assert!(!s.is_empty());
            assert!(s.bytes().all(|c| (0x20..0x7f).contains(&c)), "{s:?}");
        }
    }
});
