//! Block devices: the `[ Storage info ]` table, the device(s) behind a
//! directory and the `[ Storage device stack ]`. (Being written.)
