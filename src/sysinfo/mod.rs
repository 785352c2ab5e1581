//! Facts about the host read from `/proc` and `/sys`: the kernel (uname),
//! memory (`/proc/meminfo`) and, in [`cpu`], the lscpu-identical CPU summary.

pub mod cpu;
