//! The `[ CPU info ]` block: what `LC_ALL=C lscpu | grep -E
//! 'Model name|Thread|Core|Socket'` prints, computed from `/proc/cpuinfo`,
//! `/sys/devices/system/cpu` and the SMBIOS table. (Being written.)
