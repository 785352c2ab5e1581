//! quickbench: a faithful Rust port of Bearstech's Quickbench, the
//! zero-dependency Linux host benchmark.
//!
//! The binary (`src/main.rs`) runs the report through [`run`]; the modules
//! are a library so that integration tests and fuzz targets can reach the
//! parsers, the model and its readers.

pub mod blockdev;
pub mod cli;
pub mod clock;
pub mod compare;
pub mod conditions;
pub mod cpu_loop;
pub mod dd_io;
pub mod end;
pub mod export;
pub mod fsclass;
pub mod generate;
pub mod latency;
pub mod membw;
pub mod model;
pub mod plan;
pub mod progress;
pub mod report;
pub mod run;
pub mod samples;
pub mod sections;
pub mod signals;
pub mod sink;
pub mod stats;
pub mod sysinfo;
pub mod sysroot;
pub mod textutil;
pub mod trials;
pub mod units;
pub mod work;

pub use sysroot::Sysroot;
