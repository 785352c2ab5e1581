//! The `[ Storage info ]` table: every `/sys/block/<name>` that has a
//! `device` link (real hardware, not loop/dm/md/zram), sorted by name, with
//! its bus (`device/subsystem` link basename), size (`size >> 21`, GiB
//! truncated), `device/queue_depth` and `device/model`.

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
        .filter(|n| sys.exists(format!("/sys/block/{n}/device")))
        .map(|name| {
            let f = |file: &str| format!("/sys/block/{name}/{file}");
            let bus = sys
                .read_link(f("device/subsystem"))
                .ok()
                .and_then(|p| p.file_name().map(|b| b.to_string_lossy().into_owned()))
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
