//! Before anything runs: may the storage figures of a target be served by a
//! cache? From the [`Target`] alone (type, options) and the FUSE backing
//! found by [`super::fuse_backing`]; reads nothing itself.

use serde::{Deserialize, Serialize};

use super::fuse::{is_fuse, FuseBacking};
use super::resolve::{Target, TargetKind};

/// Why the figures may come from a cache rather than a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CacheCaveat {
    /// FUSE: the daemon decides what reaches a disk and may serve from the
    /// page cache whatever O_DIRECT asked.
    Fuse {
        /// Mount source (`/srv/data` for bindfs, `host:/dir` for sshfs).
        source: String,
        /// The devices under its local backing, which the lines are checked
        /// against; empty when none was found (nothing can be checked).
        checked_devices: Vec<String>,
    },
    /// A network or host-shared filesystem (NFS, CIFS, 9p, virtiofs...):
    /// the server or host decides, and may cache.
    Network {
        /// Filesystem type (`nfs4`, `virtiofs`).
        fs_type: String,
        /// Mount source (`server:/export`).
        source: String,
    },
    /// ext3/ext4 with `data=journal`: O_DIRECT is not honoured; data goes
    /// through the page cache and the journal.
    JournaledData {
        /// Filesystem type (`ext4`).
        fs_type: String,
    },
    /// tmpfs or ramfs: memory is measured, there is no device.
    Memory {
        /// Filesystem type (`tmpfs`).
        fs_type: String,
    },
}

impl CacheCaveat {
    /// One short sentence for the plan and the stderr notes.
    pub fn reason(&self) -> String {
        match self {
            CacheCaveat::Fuse {
                source,
                checked_devices,
            } if checked_devices.is_empty() => format!(
                "FUSE ({source}): what reaches a disk is up to the daemon, and no local device \
                 was found to check the figures against: they may be the page cache's"
            ),
            CacheCaveat::Fuse {
                source,
                checked_devices,
            } => format!(
                "FUSE ({source}): what reaches a disk is up to the daemon, which may serve from \
                 the page cache: each line is checked against {}'s counters",
                checked_devices.join("+")
            ),
            CacheCaveat::Network { fs_type, source } => format!(
                "{fs_type} ({source}): what reaches a disk is up to the server, whose cache may \
                 serve the figures"
            ),
            CacheCaveat::JournaledData { fs_type } => format!(
                "{fs_type} with data=journal: O_DIRECT is not honoured, the figures include the \
                 page cache and the journal"
            ),
            CacheCaveat::Memory { fs_type } => {
                format!("{fs_type} is memory-backed: the figures measure memory, not a disk")
            }
        }
    }
}

/// The caveat for `target`, if its figures may be served by a cache;
/// `fuse` is [`super::fuse_backing`]'s answer for it (empty if not FUSE).
pub fn cache_caveat(target: &Target, fuse: &[FuseBacking]) -> Option<CacheCaveat> {
    let fs = target.fs_type.as_str();
    if is_fuse(fs) {
        let mut checked_devices: Vec<String> = Vec::new();
        let from = if fuse.is_empty() {
            target.members.clone()
        } else {
            fuse.iter().flat_map(|b| b.members.clone()).collect()
        };
        for d in from {
            if !checked_devices.contains(&d) {
                checked_devices.push(d);
            }
        }
        return Some(CacheCaveat::Fuse {
            source: target.source.clone(),
            checked_devices,
        });
    }
    if matches!(fs, "ext3" | "ext4") && target.super_options.split(',').any(|o| o == "data=journal")
    {
        return Some(CacheCaveat::JournaledData {
            fs_type: fs.to_string(),
        });
    }
    match target.kind {
        TargetKind::Memory if matches!(fs, "tmpfs" | "ramfs") => Some(CacheCaveat::Memory {
            fs_type: fs.to_string(),
        }),
        TargetKind::Network => Some(CacheCaveat::Network {
            fs_type: fs.to_string(),
            source: target.source.clone(),
        }),
        _ => None,
    }
}
