//! The storage bandwidth engine: O_DIRECT sequential jobs over one temporary
//! file, with true completion latency. (Being written.)
