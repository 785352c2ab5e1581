//! The conditions of a measurement: what else the host did while a step
//! ran, and the marks a distorted figure earns.
//!
//! A figure drops for reasons the report must name rather than let the
//! reader blame the hardware: other processes on the CPUs the step used,
//! the hypervisor stealing time, the cgroup quota throttling the process,
//! other I/O on the devices a storage line measured, a cache serving the
//! line. The runner takes one [`Sampler`] around each step; the measuring
//! modules know nothing of it.
//!
//! * [`load`]: the sampler and the CPU arithmetic (others' CPU time,
//!   steal, cgroup throttling), as a [`StepLoad`]; [`clock`]: the CPUs'
//!   clock during a CPU loop step, from the same sampler.
//! * [`io`]: the I/O on each device of a storage line that was not ours.
//! * [`reach`]: whether a storage line's bytes reached its devices.
//! * [`mark`]: the [`Mark`]s, each with its threshold, text, parse,
//!   explanation and the steps it applies to.
//!
//! Measuring code: nothing here prints.

pub mod clock;
pub mod io;
pub mod load;
pub mod mark;
pub mod reach;

pub use clock::Clock;
pub use load::{Sample, Sampler, StepLoad};
pub use mark::{Mark, MarkKind, Step};

/// `part` over `whole` in percent; 0 when `whole` is not positive.
fn percent(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        // the ratio first: part <= whole keeps it <= 1, so the share <= 100
        100.0 * (part / whole)
    } else {
        0.0
    }
}
