//! A raw block device as `--device` measures it: which kernel device a
//! path names, and what forbids writing it (`--destroy`): a mount, active
//! swap, a device built on it, or a signature that says it holds data.
//!
//! The signatures are read here from the device's first and last bytes
//! (the magic numbers blkid's probes look for), so that no program runs.

use std::path::Path;

use super::{mountinfo, sysfs};
use crate::sysroot::Sysroot;

/// Bytes read from the start of a device to look for signatures: enough
/// for the btrfs superblock at 64 KiB and the ZFS uberblocks at 128-256 KiB.
pub const HEAD_BYTES: usize = 256 << 10;
/// Bytes read from its end: the md 0.90 and 1.0 superblocks.
pub const TAIL_BYTES: usize = 128 << 10;

/// The kernel name of the block device at `path` (`/dev/loop3` ->
/// `loop3`), or why it is not one. Under a dump sysroot, the node is
/// looked up as the mount sources are.
pub fn device_name(sys: &Sysroot, path: &Path) -> Result<String, String> {
    let p = path.display();
    if sys.is_live() {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let md = std::fs::metadata(path).map_err(|e| {
            format!("--device {p}: {e}: give a block device such as /dev/sdb or /dev/nvme1n1")
        })?;
        if !md.file_type().is_block_device() {
            return Err(format!(
                "--device {p} is not a block device: give a disk or a partition such as /dev/sdb, \
                 or use --dir for a directory"
            ));
        }
        let rdev = md.rdev();
        return sysfs::name_of_devno(sys, libc::major(rdev), libc::minor(rdev)).ok_or_else(|| {
            format!("--device {p}: its device number is not in /sys/dev/block: is /sys mounted?")
        });
    }
    sysfs::name_of_source(sys, &path.to_string_lossy())
        .ok_or_else(|| format!("--device {p}: no such block device in the sysroot"))
}

/// The device and its partitions, kernel names.
fn with_partitions(sys: &Sysroot, name: &str) -> Vec<String> {
    let mut names = vec![name.to_string()];
    let dir = sysfs::dev_path(sys, name, "");
    for entry in sys.list_dir(&dir).unwrap_or_default() {
        if sys.exists(format!("{dir}/{entry}/partition")) {
            names.push(entry);
        }
    }
    names
}

/// What a device built on `holder` is, for the refusal.
fn holder_kind(sys: &Sysroot, holder: &str) -> String {
    if let Some(dm) = sysfs::dm_name(sys, holder) {
        let uuid = sysfs::dm_uuid(sys, holder).unwrap_or_default();
        let what = if uuid.starts_with("LVM-") {
            "LVM volume"
        } else if uuid.starts_with("CRYPT-") {
            "dm-crypt volume"
        } else {
            "device-mapper device"
        };
        return format!("{what} {holder} ({dm})");
    }
    if let Some(level) = sysfs::md_level(sys, holder) {
        return format!("{level} array {holder}");
    }
    holder.to_string()
}

/// Why `name` (at `path`) must not be written, from the system's tables:
/// it or one of its partitions is mounted, is active swap, holds another
/// device (dm, md, a loop device backed by it); `None` when nothing uses
/// it. Each reason says what to do.
pub fn in_use(sys: &Sysroot, name: &str, path: &Path) -> Option<String> {
    let p = path.display();
    let names = with_partitions(sys, name);
    let devnos: Vec<(u32, u32)> = names.iter().filter_map(|n| sysfs::devno(sys, n)).collect();
    if let Ok(mounts) = mountinfo::read_mountinfo(sys) {
        let by_source = |m: &mountinfo::MountInfo| {
            sysfs::name_of_source(sys, &m.mount_source).filter(|n| names.contains(n))
        };
        for m in &mounts {
            let by_devno = devnos
                .iter()
                .position(|d| *d == (m.major, m.minor))
                .map(|i| names[i].clone());
            if let Some(n) = by_devno.or_else(|| by_source(m)) {
                return Some(format!(
                    "--destroy {p}: {n} is mounted on {}: unmount it (umount {}) before writing the device",
                    m.mount_point, m.mount_point
                ));
            }
        }
    }
    if let Some(n) = sysfs::swap_names(sys)
        .into_iter()
        .find(|s| names.contains(s))
    {
        return Some(format!(
            "--destroy {p}: {n} is active swap: turn it off (swapoff /dev/{n}) before writing the device"
        ));
    }
    for n in &names {
        if let Some(h) = sys
            .list_dir(sysfs::dev_path(sys, n, "holders"))
            .unwrap_or_default()
            .first()
        {
            return Some(format!(
                "--destroy {p}: {n} holds the {}: remove it (lvremove, mdadm --stop, cryptsetup close, \
                 dmsetup remove) before writing the device",
                holder_kind(sys, h)
            ));
        }
    }
    // A loop device backed by the device is no holder: its backing file
    // says so.
    let block = sys.list_dir("/sys/block").unwrap_or_default();
    for l in block.iter().filter(|b| b.starts_with("loop")) {
        let Some(backing) = sysfs::loop_backing_file(sys, l) else {
            continue;
        };
        if sysfs::name_of_source(sys, &backing).is_some_and(|b| names.contains(&b)) {
            return Some(format!(
                "--destroy {p}: {l} is a loop device backed by it: detach it (losetup -d /dev/{l}) \
                 before writing the device"
            ));
        }
    }
    None
}

/// The kernel name of `device` once it may be measured: a block device,
/// and when `destroy` is given (consent to write it), the same device,
/// not in use ([`in_use`]) and holding no signature ([`signature`], read
/// from the device itself on a live system). Each refusal names what was
/// found and how to clear it deliberately.
pub fn check(sys: &Sysroot, device: &Path, destroy: Option<&Path>) -> Result<String, String> {
    let name = device_name(sys, device)?;
    let Some(d) = destroy else {
        return Ok(name);
    };
    let other = device_name(sys, d).map_err(|e| e.replacen("--device", "--destroy", 1))?;
    if other != name {
        return Err(format!(
            "--destroy {} is {other}, not the --device {} ({name}): name the device to write twice, \
             with --device and --destroy",
            d.display(),
            device.display()
        ));
    }
    if let Some(why) = in_use(sys, &name, device) {
        return Err(why);
    }
    if sys.is_live() {
        let found = read_signature(device).map_err(|e| {
            format!(
                "--destroy {}: cannot read it: {e}: run as root",
                device.display()
            )
        })?;
        if let Some(sig) = found {
            return Err(format!(
                "--destroy {p}: it holds {sig}: to overwrite it deliberately, clear its signatures \
                 first (wipefs -a {p}) and rerun",
                p = device.display()
            ));
        }
    }
    Ok(name)
}

/// The signature at the start or end of the device at `path`, read with
/// plain `pread`s.
fn read_signature(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::FileExt;
    let mut f = std::fs::File::open(path)?;
    let size = f.seek(SeekFrom::End(0))?;
    let read = |at: u64, len: usize| -> std::io::Result<Vec<u8>> {
        let mut b = vec![0u8; len];
        let mut done = 0;
        while done < len {
            match f.read_at(&mut b[done..], at + done as u64)? {
                0 => break,
                n => done += n,
            }
        }
        b.truncate(done);
        Ok(b)
    };
    let head = read(0, HEAD_BYTES.min(size as usize))?;
    let tail_len = TAIL_BYTES.min(size as usize);
    let tail = read(size - tail_len as u64, tail_len)?;
    Ok(signature(&head, &tail, size))
}

fn u16_le(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize, big: bool) -> Option<u64> {
    let a: [u8; 8] = b.get(at..at + 8)?.try_into().ok()?;
    Some(if big {
        u64::from_be_bytes(a)
    } else {
        u64::from_le_bytes(a)
    })
}

fn has(b: &[u8], at: usize, magic: &[u8]) -> bool {
    b.get(at..at + magic.len()) == Some(magic)
}

/// A label as stored (NUL- or space-padded), quoted after the kind.
fn labelled(kind: &str, b: &[u8], at: usize, len: usize) -> String {
    let raw = b.get(at..at + len).unwrap_or_default();
    let end = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
    let label: String = String::from_utf8_lossy(&raw[..end])
        .trim()
        .chars()
        .filter(|c| !c.is_control() && *c != '"')
        .collect();
    if label.is_empty() {
        kind.to_string()
    } else {
        format!("{kind} \"{label}\"")
    }
}

/// The md superblock magic, little-endian on disk.
const MD_MAGIC: u32 = 0xa92b_4efc;

/// What the first [`HEAD_BYTES`] (`head`) and the last [`TAIL_BYTES`]
/// (`tail`, ending at the device's end, `size_bytes` long in all) of a
/// device say it holds: `ext4 "root"`, `GPT partition table`, `LVM2
/// physical volume`...; `None` when no signature is found.
pub fn signature(head: &[u8], tail: &[u8], size_bytes: u64) -> Option<String> {
    const SB: usize = 1024;
    if u16_le(head, SB + 56) == Some(0xef53) {
        let incompat = u32_le(head, SB + 96).unwrap_or(0);
        let compat = u32_le(head, SB + 92).unwrap_or(0);
        // extents, 64bit, flex_bg: ext4; a journal alone: ext3
        let kind = if incompat & (0x40 | 0x80 | 0x200) != 0 {
            "ext4"
        } else if compat & 0x4 != 0 {
            "ext3"
        } else {
            "ext2"
        };
        return Some(labelled(kind, head, SB + 120, 16));
    }
    if has(head, 0, b"XFSB") {
        return Some(labelled("xfs", head, 108, 12));
    }
    if has(head, 65536 + 64, b"_BHRfS_M") {
        return Some(labelled("btrfs", head, 65536 + 299, 256));
    }
    if has(head, 0, b"LUKS\xba\xbe") {
        return Some(labelled("LUKS", head, 24, 48));
    }
    if (0..4).any(|s| has(head, s * 512, b"LABELONE") && has(head, s * 512 + 24, b"LVM2 001")) {
        return Some("LVM2 physical volume".into());
    }
    if [0usize, 4096]
        .iter()
        .any(|&at| u32_le(head, at) == Some(MD_MAGIC))
    {
        return Some("md RAID member".into());
    }
    // md 1.0: 8 KiB before the end, 4 KiB aligned; 0.90: the last 64 KiB
    // block that starts 64 KiB before the end.
    let tail_start = size_bytes.saturating_sub(tail.len() as u64);
    let in_tail = |at: u64| at.checked_sub(tail_start).map(|o| o as usize);
    let v10 = size_bytes.saturating_sub(8192) & !4095;
    let v090 = (size_bytes & !65535).saturating_sub(65536);
    if [v10, v090]
        .into_iter()
        .filter_map(in_tail)
        .any(|o| u32_le(tail, o) == Some(MD_MAGIC))
    {
        return Some("md RAID member".into());
    }
    for page in [4096usize, 8192, 16384, 65536] {
        if has(head, page - 10, b"SWAPSPACE2") || has(head, page - 10, b"SWAP-SPACE") {
            return Some(labelled("swap", head, 1024 + 28, 16));
        }
    }
    // ZFS: the uberblock ring of label 0, 128-256 KiB, either byte order.
    let zfs = (0..128).any(|k| {
        let at = (128 << 10) + k * 1024;
        [false, true]
            .iter()
            .any(|&big| u64_at(head, at, big) == Some(0x00ba_b10c))
    });
    if zfs {
        return Some("ZFS pool member".into());
    }
    if has(head, 512, b"EFI PART") || has(head, 4096, b"EFI PART") {
        return Some("GPT partition table".into());
    }
    if has(head, 510, b"\x55\xaa") {
        if has(head, 82, b"FAT32   ") {
            return Some(labelled("vfat", head, 71, 11));
        }
        if has(head, 54, b"FAT1") {
            return Some(labelled("vfat", head, 43, 11));
        }
        return Some("MBR partition table".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank() -> (Vec<u8>, Vec<u8>) {
        (vec![0; HEAD_BYTES], vec![0; TAIL_BYTES])
    }

    const SIZE: u64 = 64 << 20;

    #[test]
    fn each_signature_is_named() {
        let (h, t) = blank();
        assert_eq!(signature(&h, &t, SIZE), None);
        type Make = Box<dyn Fn(&mut Vec<u8>, &mut Vec<u8>)>;
        let cases: Vec<(Make, &str)> = vec![
            (
                Box::new(|h, _| {
                    h[1024 + 56..1024 + 58].copy_from_slice(&0xef53u16.to_le_bytes());
                    h[1024 + 96] = 0x40;
                    h[1024 + 120..1024 + 124].copy_from_slice(b"root");
                }),
                "ext4 \"root\"",
            ),
            (
                Box::new(|h, _| {
                    h[1024 + 56..1024 + 58].copy_from_slice(&0xef53u16.to_le_bytes());
                    h[1024 + 92] = 0x4;
                }),
                "ext3",
            ),
            (
                Box::new(|h, _| {
                    h[..4].copy_from_slice(b"XFSB");
                    h[108..112].copy_from_slice(b"data");
                }),
                "xfs \"data\"",
            ),
            (
                Box::new(|h, _| h[65600..65608].copy_from_slice(b"_BHRfS_M")),
                "btrfs",
            ),
            (
                Box::new(|h, _| h[..6].copy_from_slice(b"LUKS\xba\xbe")),
                "LUKS",
            ),
            (
                Box::new(|h, _| {
                    h[512..520].copy_from_slice(b"LABELONE");
                    h[536..544].copy_from_slice(b"LVM2 001");
                }),
                "LVM2 physical volume",
            ),
            (
                Box::new(|h, _| h[4096..4100].copy_from_slice(&MD_MAGIC.to_le_bytes())),
                "md RAID member",
            ),
            (
                Box::new(|_, t| {
                    // md 1.0, 8 KiB before the end of a 64 MiB device
                    let at = TAIL_BYTES - 8192;
                    t[at..at + 4].copy_from_slice(&MD_MAGIC.to_le_bytes());
                }),
                "md RAID member",
            ),
            (
                Box::new(|h, _| {
                    h[4086..4096].copy_from_slice(b"SWAPSPACE2");
                    h[1052..1056].copy_from_slice(b"swp1");
                }),
                "swap \"swp1\"",
            ),
            (
                Box::new(|h, _| {
                    let at = (128 << 10) + 5 * 1024;
                    h[at..at + 8].copy_from_slice(&0x00bab10cu64.to_le_bytes());
                }),
                "ZFS pool member",
            ),
            (
                Box::new(|h, _| {
                    h[510..512].copy_from_slice(b"\x55\xaa");
                    h[512..520].copy_from_slice(b"EFI PART");
                }),
                "GPT partition table",
            ),
            (
                Box::new(|h, _| h[510..512].copy_from_slice(b"\x55\xaa")),
                "MBR partition table",
            ),
            (
                Box::new(|h, _| {
                    h[510..512].copy_from_slice(b"\x55\xaa");
                    h[82..90].copy_from_slice(b"FAT32   ");
                    h[71..82].copy_from_slice(b"BOOT       ");
                }),
                "vfat \"BOOT\"",
            ),
        ];
        for (make, want) in cases {
            let (mut h, mut t) = blank();
            make(&mut h, &mut t);
            assert_eq!(signature(&h, &t, SIZE).as_deref(), Some(want));
        }
    }
}
