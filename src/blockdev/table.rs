//! The `[ Storage info ]` table: every `/sys/block/<name>` that has a
//! `device` link (real hardware, not loop/dm/md/zram), sorted by name, with
//! its bus (`device/subsystem` link basename, else read from the device
//! directory's name), size (`size >> 21`, GiB truncated),
//! `device/queue_depth` and `device/model`.

use serde::Serialize;

use crate::sysroot::Sysroot;

/// One row of the storage table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct DiskRow {
    /// Kernel name (`sda`, `nvme0n1`, `vda`).
    pub name: String,
    /// Bus: basename of the `device/subsystem` link (`scsi`, `nvme`,
    /// `virtio`, `mmc`), `?` when unreadable.
    pub bus: String,
    /// Size in GiB, truncated (`size` in 512-byte sectors `>> 21`); the
    /// original labels it "GB".
    pub size_gib: u64,
    /// `device/queue_depth` (SCSI only).
    pub queue_depth: Option<u64>,
    /// `device/model`, trailing blanks trimmed.
    pub model: Option<String>,
}

/// Reads the rows. A missing `/sys/block` gives an empty table.
pub fn storage_table(sys: &Sysroot) -> Vec<DiskRow> {
    let names = sys.list_dir("/sys/block").unwrap_or_default();
    names
        .into_iter()
        .filter(|n| sys.exists(super::sysfs::dev_path(sys, n, "device")))
        .map(|name| {
            let f = |file: &str| super::sysfs::dev_path(sys, &name, file);
            let bus = sys
                .read_link(f("device/subsystem"))
                .ok()
                .and_then(|p| p.file_name().map(|b| b.to_string_lossy().into_owned()))
                .or_else(|| {
                    let dev = sys.canonicalize(f("device")).ok()?;
                    bus_of_device_path(&dev).map(str::to_string)
                })
                .unwrap_or_else(|| "?".to_string());
            let sectors: u64 = sys
                .read_trimmed(f("size"))
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let queue_depth = sys
                .read_trimmed(f("device/queue_depth"))
                .and_then(|s| s.parse().ok());
            let model = sys
                .read_to_string(f("device/model"))
                .ok()
                .map(|m| m.trim_end().to_string())
                .filter(|m| !m.is_empty());
            DiskRow {
                bus,
                size_gib: sectors >> 21,
                queue_depth,
                model,
                name,
            }
        })
        .collect()
}

/// The bus of a hardware device from its sysfs directory's name, for dumps
/// without `subsystem` links (util-linux's mk-input.sh skips them): the
/// kernel names SCSI devices `H:C:T:L`, NVMe controllers `nvme/nvmeN`,
/// virtio devices `virtioN`, MMC cards `mmcN:RCA`, Xen disks `vbd-N`.
fn bus_of_device_path(dev: &std::path::Path) -> Option<&'static str> {
    let base = dev.file_name()?.to_str()?;
    let parent = dev.parent()?.file_name()?.to_str()?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    if base.split(':').count() == 4 && base.split(':').all(digits) {
        return Some("scsi");
    }
    if parent == "nvme" && base.strip_prefix("nvme").is_some_and(digits) {
        return Some("nvme");
    }
    if base.strip_prefix("virtio").is_some_and(digits) {
        return Some("virtio");
    }
    if let Some((host, rca)) = base.split_once(':') {
        if host.strip_prefix("mmc").is_some_and(digits) && hex(rca) {
            return Some("mmc");
        }
    }
    if base.strip_prefix("vbd-").is_some_and(digits) {
        return Some("xen");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_from_the_device_directory_name() {
        use std::path::Path;
        for (p, bus) in [
            (
                "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0",
                Some("scsi"),
            ),
            (
                "/sys/devices/pci0000:00/0000:00:1c.4/0000:05:00.0/nvme/nvme0",
                Some("nvme"),
            ),
            (
                "/sys/devices/pci0000:00/0000:00:02.0/virtio1",
                Some("virtio"),
            ),
            (
                "/sys/devices/platform/soc/fe340000.mmc/mmc_host/mmc0/mmc0:0001",
                Some("mmc"),
            ),
            ("/sys/devices/vbd-51712", Some("xen")),
            ("/sys/devices/virtual/block/loop0", None),
            ("/sys/devices/pci0000:00/0000:00:1f.2", None),
            ("/sys/devices/x/nvme0", None),
        ] {
            assert_eq!(bus_of_device_path(Path::new(p)), bus, "{p}");
        }
    }
}
