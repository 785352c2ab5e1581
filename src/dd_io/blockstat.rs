//! The device counters of one storage line: the difference of each
//! sampled device's `stat` file ([`crate::blockdev::BlockStat`], read and
//! parsed in [`crate::blockdev`]) between the line's start and end.

use serde::{Deserialize, Serialize};

use crate::blockdev::BlockStat;

/// One sampled device's deltas over a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceDelta {
    /// Kernel name of the device (`sda1`, `dm-0`, `loop3`).
    pub device: String,
    /// What it did during the line.
    pub delta: BlockStat,
}
