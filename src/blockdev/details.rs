//! Device details for the extended report: what shapes the storage
//! figures (rotational, I/O scheduler, request queue, block sizes, write
//! cache, hardware queues), read from `/sys/class/block/<dev>/queue` and
//! `/sys/class/block/<dev>/mq` (or the same directory found through
//! `/sys/dev/block`).

use serde::Serialize;

use crate::Sysroot;

/// The queue settings of one block device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct DeviceDetails {
    /// Kernel name (`vda`, `nvme0n1`, `dm-0`).
    pub name: String,
    /// `queue/rotational`: true for spinning disks.
    pub rotational: Option<bool>,
    /// The active I/O scheduler (the bracketed word of `queue/scheduler`).
    pub scheduler: Option<String>,
    /// `queue/nr_requests`: requests the block layer queues per hardware queue.
    pub nr_requests: Option<u64>,
    /// `queue/logical_block_size`, bytes.
    pub logical_block_size_bytes: Option<u64>,
    /// `queue/physical_block_size`, bytes.
    pub physical_block_size_bytes: Option<u64>,
    /// `queue/write_cache`: `write back` or `write through`.
    pub write_cache: Option<String>,
    /// Number of blk-mq hardware queues (entries of `mq/`).
    pub hw_queues: Option<u64>,
}

/// The active scheduler of a `queue/scheduler` text: `[mq-deadline] none`
/// gives `mq-deadline`; a lone word (`none`) is itself.
pub fn parse_scheduler(text: &str) -> Option<String> {
    let t = text.trim();
    if let (Some(a), Some(b)) = (t.find('['), t.find(']')) {
        if a < b {
            return Some(t[a + 1..b].to_string());
        }
    }
    (!t.is_empty() && !t.contains(' ')).then(|| t.to_string())
}

/// Reads the details of `name` (a kernel name as in `/sys/class/block`).
pub fn device_details(sys: &Sysroot, name: &str) -> DeviceDetails {
    let dir = super::sysfs::dev_path(sys, name, "");
    let q = |f: &str| sys.read_trimmed(format!("{dir}/queue/{f}"));
    let num = |f: &str| q(f).and_then(|v| v.parse::<u64>().ok());
    DeviceDetails {
        name: name.to_string(),
        rotational: num("rotational").map(|v| v != 0),
        scheduler: q("scheduler").and_then(|s| parse_scheduler(&s)),
        nr_requests: num("nr_requests"),
        logical_block_size_bytes: num("logical_block_size"),
        physical_block_size_bytes: num("physical_block_size"),
        write_cache: q("write_cache"),
        hw_queues: sys
            .list_dir(format!("{dir}/mq"))
            .ok()
            .map(|v| v.len() as u64)
            .filter(|&n| n > 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_is_the_bracketed_word() {
        assert_eq!(
            parse_scheduler("[none] mq-deadline\n").as_deref(),
            Some("none")
        );
        assert_eq!(
            parse_scheduler("mq-deadline [bfq] none").as_deref(),
            Some("bfq")
        );
        assert_eq!(parse_scheduler("none").as_deref(), Some("none"));
        assert_eq!(parse_scheduler("").as_deref(), None);
        assert_eq!(parse_scheduler("a b").as_deref(), None);
    }

    #[test]
    fn details_from_a_fixture_queue() {
        let d = tempfile::tempdir().unwrap();
        let q = d.path().join("sys/class/block/nvme0n1/queue");
        std::fs::create_dir_all(&q).unwrap();
        for (f, v) in [
            ("rotational", "0\n"),
            ("scheduler", "[none] mq-deadline\n"),
            ("nr_requests", "1023\n"),
            ("logical_block_size", "512\n"),
            ("physical_block_size", "4096\n"),
            ("write_cache", "write back\n"),
        ] {
            std::fs::write(q.join(f), v).unwrap();
        }
        for n in 0..4 {
            std::fs::create_dir_all(d.path().join(format!("sys/class/block/nvme0n1/mq/{n}")))
                .unwrap();
        }
        let det = device_details(&Sysroot::new(d.path()), "nvme0n1");
        assert_eq!(
            det,
            DeviceDetails {
                name: "nvme0n1".into(),
                rotational: Some(false),
                scheduler: Some("none".into()),
                nr_requests: Some(1023),
                logical_block_size_bytes: Some(512),
                physical_block_size_bytes: Some(4096),
                write_cache: Some("write back".into()),
                hw_queues: Some(4),
            }
        );
        let none = device_details(&Sysroot::new(d.path()), "sdz");
        assert_eq!(
            none,
            DeviceDetails {
                name: "sdz".into(),
                rotational: None,
                scheduler: None,
                nr_requests: None,
                logical_block_size_bytes: None,
                physical_block_size_bytes: None,
                write_cache: None,
                hw_queues: None,
            }
        );
    }
}
