//! udev database files (`/run/udev/data/b<MAJ>:<MIN>`): `parse_udev_db`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::blockdev::parse_udev_db;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let db = parse_udev_db(&text);
    assert!(db.properties.len() + db.links.len() <= text.lines().count());
    for (k, v) in &db.properties {
        assert!(!k.contains('=') && !k.contains('\n') && !v.contains('\n'));
    }
});
