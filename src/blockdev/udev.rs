//! udev's database, `/run/udev/data/b<MAJ>:<MIN>`: the properties udev (via
//! libblkid) found on a block device. Used to find the member disks of a ZFS
//! pool (`E:ID_FS_TYPE=zfs_member`, `E:ID_FS_LABEL=<pool>`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::sysroot::Sysroot;

/// One udev database file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct UdevDb {
    /// `E:KEY=VALUE` lines: the device's properties.
    pub properties: BTreeMap<String, String>,
    /// `S:` lines: symlinks under `/dev`, relative to it.
    pub links: Vec<String>,
}

/// Parses a udev database file. Unknown or malformed lines are skipped;
/// never panics.
pub fn parse_udev_db(text: &str) -> UdevDb {
    let mut db = UdevDb::default();
    for line in text.lines() {
        if let Some(kv) = line.strip_prefix("E:") {
            if let Some((k, v)) = kv.split_once('=') {
                db.properties.insert(k.to_string(), v.to_string());
            }
        } else if let Some(link) = line.strip_prefix("S:") {
            db.links.push(link.to_string());
        }
    }
    db
}

/// `MAJ:MIN` of every block device udev saw as a member of the ZFS pool
/// `pool`, sorted.
pub fn zfs_members(sys: &Sysroot, pool: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for file in sys.list_dir("/run/udev/data").unwrap_or_default() {
        let Some(devno) = file.strip_prefix('b').and_then(parse_devno) else {
            continue;
        };
        let Ok(text) = sys.read_to_string(format!("/run/udev/data/{file}")) else {
            continue;
        };
        let db = parse_udev_db(&text);
        let prop = |k: &str| db.properties.get(k).map(String::as_str);
        if prop("ID_FS_TYPE") == Some("zfs_member") && prop("ID_FS_LABEL") == Some(pool) {
            out.push(devno);
        }
    }
    out.sort_by_key(|&(a, b)| super::sysfs::makedev(a, b));
    out
}

fn parse_devno(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_properties_and_links() {
        let db = parse_udev_db(
            "S:disk/by-id/ata-X-part1\nW:12\nI:123\nE:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=tank\nE:ID_FS_UUID=1=2\nG:systemd\nE:broken\n",
        );
        assert_eq!(db.links, vec!["disk/by-id/ata-X-part1"]);
        assert_eq!(db.properties["ID_FS_TYPE"], "zfs_member");
        assert_eq!(db.properties["ID_FS_LABEL"], "tank");
        assert_eq!(db.properties["ID_FS_UUID"], "1=2");
        assert_eq!(db.properties.len(), 3);
    }

    #[test]
    fn parses_garbage_without_panicking() {
        assert_eq!(parse_udev_db("\u{0}E:\nE:=\n:::"), {
            let mut d = UdevDb::default();
            d.properties.insert(String::new(), String::new());
            d
        });
    }
}
