//! The one door through which compare takes the report's wording of an
//! end, a CPU quota and a device's details: compare shows them as the
//! report printed them. The wording still lives in the text renderer
//! (`report::text`); once it moves onto its types (`End`, `CpuQuota`,
//! `DeviceDetails`), these become calls of their methods and this file
//! goes.

use crate::blockdev::details::DeviceDetails;
use crate::end::End;
use crate::report::text::{cpu_limit_line, device_details_line, end_text};
use crate::sysinfo::cgroup::CpuQuota;

/// `interrupted`, `stopped: EIO`; `None` for a step that ran its time.
pub fn end(e: &End) -> Option<String> {
    end_text(e)
}

/// `1 CPU by the cgroup quota (cpu.max 100000 100000)`.
pub fn cpu_quota(q: &CpuQuota) -> String {
    cpu_limit_line(q)
        .trim_start_matches("Limited to ")
        .to_string()
}

/// A device's `-x` details, as the report prints them.
pub fn device_details(d: &DeviceDetails) -> String {
    device_details_line(d)
}
