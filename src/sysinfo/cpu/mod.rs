//! The `[ CPU info ]` block: what `LC_ALL=C lscpu | grep -E
//! 'Model name|Thread|Core|Socket'` prints. (Being written; this seam
//! prints nothing yet.)

use crate::Sysroot;

/// The CPU summary (placeholder).
pub struct CpuSummary;

/// Reads the CPU summary (placeholder).
pub fn read_summary(_sys: &Sysroot) -> CpuSummary {
    CpuSummary
}

impl CpuSummary {
    /// The lines (placeholder: none).
    pub fn lines(&self) -> Vec<String> {
        Vec::new()
    }
}
