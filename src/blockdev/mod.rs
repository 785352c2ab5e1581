//! Block devices: the `[ Storage info ]` table, the device(s) behind a
//! directory and the `[ Storage device stack ]`. Reads `/sys/block`,
//! `/sys/class/block`, `/sys/dev/block`, `/sys/fs/btrfs`,
//! `/proc/self/mountinfo`, `/proc/swaps` and `/run/udev/data` through a
//! [`Sysroot`](crate::sysroot::Sysroot), plus `statx(STATX_MNT_ID)` on a
//! live system. Spawns no program.
//!
//! * [`storage_table`]: the rows of the table; [`resolve_dir`]: the
//!   [`Target`] behind a directory (kind, devices to watch, title name).
//! * [`device_stack`]: the `lsblk -s -o NAME,SIZE,TYPE,MOUNTPOINT` tree.
//! * [`read_block_stat`] / [`parse_block_stat`]: the I/O counters, and
//!   their difference over a line ([`BlockStat::delta`]).
//! * [`device_layout`] / [`fuse_backing`] / [`check_layout`]: whether a
//!   line's I/O reached hardware; [`cache_caveat`]: whether a cache may.

mod caveat;
pub mod details;
mod fuse;
mod layout;
mod mountinfo;
pub mod raw;
mod resolve;
mod size;
mod stack;
mod stat;
mod sysfs;
mod table;
mod udev;

pub use caveat::{cache_caveat, CacheCaveat};
pub use fuse::{check_layout, daemon_dirs, fuse_backing, is_fuse, BackingFrom, FuseBacking};
pub use layout::{device_layout, md_write_copies, DeviceLayout, LayoutLeaf};
pub use mountinfo::{parse_mountinfo, parse_mountinfo_line, unescape, MountInfo};
pub use resolve::{device_target, real_dir, resolve_dir, MountLookup, Target, TargetKind};
pub use size::size_text;
pub use stack::{device_stack, Stack, StackNode};
pub use stat::{block_stat_path, parse_block_stat, read_block_stat, read_block_stats, BlockStat};
pub use sysfs::{dev_dir, dev_path, device_type, whole_disk};
pub use table::{storage_table, DiskRow};
pub use udev::{parse_udev_db, UdevDb};
