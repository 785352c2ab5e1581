//! quickbench: a faithful Rust port of Bearstech's Quickbench, the
//! zero-dependency Linux host benchmark.
//!
//! The binary (`src/main.rs`) orchestrates these modules; they are a library
//! so that integration tests and fuzz targets can reach the parsers.

pub mod blockdev;
pub mod cli;
pub mod cpu_loop;
pub mod dd_io;
pub mod membw;
pub mod plan;
pub mod progress;
pub mod report;
pub mod signals;
pub mod sysinfo;
pub mod sysroot;
pub mod units;

pub use sysroot::Sysroot;
