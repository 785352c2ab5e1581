//! quickbench: a faithful Rust port of Bearstech's Quickbench, the
//! zero-dependency Linux host benchmark.
//!
//! The binary (`src/main.rs`) orchestrates these modules; they are a library
//! so that integration tests and fuzz targets can reach the parsers.

pub mod blockdev;
pub mod dd_io;
pub mod sysinfo;
pub mod sysroot;

pub use sysroot::Sysroot;
