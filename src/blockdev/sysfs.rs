//! Small readers of a block device's sysfs directory.
//!
//! Every function takes a kernel name as sysfs spells it (`sda1`, `dm-0`,
//! `cciss!c0d0`) and returns plain values; a missing file gives `None` or an
//! empty list, never an error. Every file of a device, here and in the rest
//! of the program, is found through [`dev_dir`] / [`dev_path`]: the
//! directory is `/sys/class/block/<name>` where that exists; dumps made by
//! util-linux (`tests/ts/lsblk/mk-input.sh`) have no `/sys/class`, only
//! `/sys/block`, `/sys/dev/block` and `/sys/devices`, so [`dev_dir`] finds
//! the same directory through those, and live runs and dumps find devices
//! the same way.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use crate::sysroot::Sysroot;

/// A plain kernel name: not empty, no `/`, not `.` or `..`.
fn plain(name: &str) -> bool {
    !name.is_empty() && !name.contains('/') && name != "." && name != ".."
}

/// The sysfs directory of the block device `name`, as a system path.
///
/// `/sys/class/block/<name>` when it exists; else `/sys/block/<name>` (a
/// whole disk); else `/sys/block/<disk>/<name>` holding a `partition` file
/// (a partition); else the `/sys/dev/block/MAJ:MIN` link that resolves to
/// a directory called `<name>` (the kernel's canonical map, in every
/// dump). All of them lead to the same `/sys/devices/...` directory.
pub fn dev_dir(sys: &Sysroot, name: &str) -> Option<String> {
    if !plain(name) {
        return None;
    }
    let class = format!("/sys/class/block/{name}");
    if sys.exists(&class) {
        return Some(class);
    }
    let whole = format!("/sys/block/{name}");
    if sys.exists(format!("{whole}/dev")) {
        return Some(whole);
    }
    let disks = sys.list_dir("/sys/block").unwrap_or_default();
    if let Some(d) = disks
        .iter()
        .find(|d| sys.exists(format!("/sys/block/{d}/{name}/partition")))
    {
        return Some(format!("/sys/block/{d}/{name}"));
    }
    sys.list_dir("/sys/dev/block")
        .unwrap_or_default()
        .into_iter()
        .map(|n| format!("/sys/dev/block/{n}"))
        .find(|l| {
            sys.read_link(l)
                .ok()
                .is_some_and(|t| t.file_name().is_some_and(|b| b == name))
        })
}

/// `dev_dir(name)/file`; when the device is unknown, the `/sys/class/block`
/// path, so that a read fails (and an error names a path a user knows).
pub fn dev_path(sys: &Sysroot, name: &str, file: &str) -> String {
    let dir = dev_dir(sys, name).unwrap_or_else(|| format!("/sys/class/block/{name}"));
    if file.is_empty() {
        dir
    } else {
        format!("{dir}/{file}")
    }
}

/// True when sysfs knows the block device `name`.
pub fn exists(sys: &Sysroot, name: &str) -> bool {
    dev_dir(sys, name).is_some()
}

/// The kernel name of the block device `MAJ:MIN`, from the link
/// `/sys/dev/block/MAJ:MIN`.
pub fn name_of_devno(sys: &Sysroot, major: u32, minor: u32) -> Option<String> {
    let real = sys
        .canonicalize(format!("/sys/dev/block/{major}:{minor}"))
        .ok()?;
    Some(real.file_name()?.to_string_lossy().into_owned())
}

/// `MAJ:MIN` of a device, from its `dev` file.
pub fn devno(sys: &Sysroot, name: &str) -> Option<(u32, u32)> {
    let s = sys.read_trimmed(dev_path(sys, name, "dev"))?;
    let (a, b) = s.split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// glibc's `makedev()` value, the order `lsblk` sorts siblings by.
pub fn makedev(major: u32, minor: u32) -> u64 {
    let (ma, mi) = (u64::from(major), u64::from(minor));
    ((ma & 0xffff_f000) << 32) | ((ma & 0xfff) << 8) | ((mi & 0xffff_ff00) << 12) | (mi & 0xff)
}

/// True when the device is a partition (`partition` file present).
pub fn is_partition(sys: &Sysroot, name: &str) -> bool {
    sys.exists(dev_path(sys, name, "partition"))
}

/// The whole disk holding a partition: the basename of the resolved parent
/// directory (`sda1` -> `sda`). `None` for a whole disk.
pub fn parent_disk(sys: &Sysroot, name: &str) -> Option<String> {
    if !is_partition(sys, name) {
        return None;
    }
    let real = sys.canonicalize(dev_dir(sys, name)?).ok()?;
    Some(real.parent()?.file_name()?.to_string_lossy().into_owned())
}

/// The whole disk of `name`: its parent disk for a partition, else itself.
pub fn whole_disk(sys: &Sysroot, name: &str) -> String {
    parent_disk(sys, name).unwrap_or_else(|| name.to_string())
}

/// Size in bytes (`size` is in 512-byte sectors).
pub fn size_bytes(sys: &Sysroot, name: &str) -> Option<u64> {
    let sectors: u64 = sys
        .read_trimmed(dev_path(sys, name, "size"))?
        .parse()
        .ok()?;
    Some(sectors.saturating_mul(512))
}

/// `dm/name` of a device-mapper device (`vg0-root`).
pub fn dm_name(sys: &Sysroot, name: &str) -> Option<String> {
    sys.read_trimmed(dev_path(sys, name, "dm/name"))
}

/// `dm/uuid` of a device-mapper device (`LVM-...`, `CRYPT-LUKS2-...`).
pub fn dm_uuid(sys: &Sysroot, name: &str) -> Option<String> {
    sys.read_trimmed(dev_path(sys, name, "dm/uuid"))
}

/// `md/level` of an md array (`raid1`).
pub fn md_level(sys: &Sysroot, name: &str) -> Option<String> {
    sys.read_trimmed(dev_path(sys, name, "md/level"))
}

/// `loop/backing_file` of a loop device.
pub fn loop_backing_file(sys: &Sysroot, name: &str) -> Option<String> {
    sys.read_trimmed(dev_path(sys, name, "loop/backing_file"))
}

/// Entries of `slaves/` (the devices this one is built on), sorted by name.
pub fn slaves(sys: &Sysroot, name: &str) -> Vec<String> {
    sys.list_dir(dev_path(sys, name, "slaves"))
        .unwrap_or_default()
}

/// True for devices built on others: dm, md, loop, or any with slaves.
pub fn is_stacked(sys: &Sysroot, name: &str) -> bool {
    name.starts_with("dm-")
        || name.starts_with("md")
        || name.starts_with("loop")
        || !slaves(sys, name).is_empty()
}

/// The kernel name behind a mount source such as `/dev/sda1`,
/// `/dev/mapper/vg0-root` or `/dev/root`: the node's `st_rdev` when it is a
/// block device (in a util-linux dump, the MAJOR/MINOR its file records),
/// else the resolved node name, else (containers without `/dev` nodes) the
/// basename or the dm device whose `dm/name` matches.
pub fn name_of_source(sys: &Sysroot, source: &str) -> Option<String> {
    if !source.starts_with("/dev/") {
        return None;
    }
    if let Ok(md) = std::fs::metadata(sys.path(source)) {
        if md.file_type().is_block_device() {
            let rdev = md.rdev();
            if let Some(n) = name_of_devno(sys, libc::major(rdev), libc::minor(rdev)) {
                return Some(n);
            }
        } else if !sys.is_live() && md.is_file() && md.len() < 64 * 1024 {
            // util-linux dumps keep, for each /dev node, a small regular
            // file of its udev properties (`udevadm info --query=property`)
            // that names MAJOR and MINOR.
            let devno = sys.read_to_string(source).ok().and_then(|t| udev_devno(&t));
            if let Some(n) = devno.and_then(|(a, b)| name_of_devno(sys, a, b)) {
                return Some(n);
            }
        }
    }
    if let Ok(real) = sys.canonicalize(source) {
        if let Some(base) = real.file_name().map(|b| b.to_string_lossy().into_owned()) {
            if exists(sys, &base) {
                return Some(base);
            }
        }
    }
    let base = Path::new(source)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    if let Some(dm) = source.strip_prefix("/dev/mapper/") {
        let found = sys
            .list_dir("/sys/block")
            .unwrap_or_default()
            .into_iter()
            .find(|n| n.starts_with("dm-") && dm_name(sys, n).as_deref() == Some(dm));
        if found.is_some() {
            return found;
        }
    }
    exists(sys, &base).then_some(base)
}

/// `MAJOR=`/`MINOR=` of a udev property listing.
fn udev_devno(text: &str) -> Option<(u32, u32)> {
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.trim().parse::<u32>().ok())
    };
    Some((get("MAJOR=")?, get("MINOR=")?))
}

/// Active swap devices' kernel names (from `/proc/swaps`).
pub fn swap_names(sys: &Sysroot) -> Vec<String> {
    let text = sys.read_to_string("/proc/swaps").unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|f| name_of_source(sys, &super::mountinfo::unescape(f)))
        .collect()
}

/// The lsblk TYPE of a kernel device (util-linux `get_type`).
pub fn device_type(sys: &Sysroot, name: &str) -> String {
    let is_dm = name.starts_with("dm-");
    if !is_dm && parent_disk(sys, name).is_some() {
        return "part".to_string();
    }
    if is_dm {
        let uuid = dm_uuid(sys, name).unwrap_or_default();
        let prefix = uuid.split('-').next().unwrap_or("");
        if prefix.is_empty() {
            return "dm".to_string();
        }
        if prefix.len() >= 4 && prefix[..4].eq_ignore_ascii_case("part") {
            return "part".to_string();
        }
        return prefix.to_ascii_lowercase();
    }
    if name.starts_with("loop") {
        return "loop".to_string();
    }
    if name.starts_with("md") {
        return md_level(sys, name).unwrap_or_else(|| "md".to_string());
    }
    let scsi = sys
        .read_trimmed(dev_path(sys, name, "device/type"))
        .and_then(|t| t.parse::<i64>().ok());
    scsi_type(scsi).to_string()
}

/// SCSI peripheral type names (util-linux `blkdev_scsi_type_to_name`);
/// anything else is `disk`.
fn scsi_type(t: Option<i64>) -> &'static str {
    match t {
        Some(1) => "tape",
        Some(2) => "printer",
        Some(3) => "processor",
        Some(4) => "worm",
        Some(5) => "rom",
        Some(6) => "scanner",
        Some(7) => "mo-disk",
        Some(8) => "changer",
        Some(9) => "comm",
        Some(0x0c) => "raid",
        Some(0x0d) => "enclosure",
        Some(0x0e) => "rbc",
        Some(0x11) => "osd",
        Some(0x7f) => "no-lun",
        _ => "disk",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makedev_orders_like_glibc() {
        assert_eq!(makedev(8, 0), 0x800);
        assert_eq!(makedev(259, 1), 0x10301);
        assert!(makedev(8, 256) > makedev(259, 0));
        assert!(makedev(8, 1) < makedev(8, 16));
    }

    #[test]
    fn scsi_types() {
        assert_eq!(scsi_type(Some(0)), "disk");
        assert_eq!(scsi_type(Some(5)), "rom");
        assert_eq!(scsi_type(Some(0x7f)), "no-lun");
        assert_eq!(scsi_type(Some(42)), "disk");
        assert_eq!(scsi_type(None), "disk");
    }
}
