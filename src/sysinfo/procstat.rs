//! Steal time and CPU frequency during a step, from /proc/stat and cpufreq (extended report). (Being written.)
