//! DRAM bandwidth like STREAM (extended report). (Being written.)
