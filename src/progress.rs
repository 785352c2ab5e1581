//! The one-line progress display on stderr. (Being written.)
