#!/usr/bin/env bash
# The measured clock against a slow reference, and its spread: RUNS runs of
# examples/clock_probe.rs, each printing per usable CPU the probe's figure
# (two dependent chains, about 50 ms a CPU, the fastest 0.5 ms slices), a
# reference (best of 20 runs of 20 M iterations of four dependent imul,
# timed in the thread's CPU time) and `cpu MHz` of /proc/cpuinfo.
#
#   benches/clock-probe.sh [RUNS=5]
#
# Then the spread of the probe's figures over the runs, per CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
cargo build --release --quiet --example clock_probe
uptime
out=$(for _ in $(seq "$RUNS"); do target/release/examples/clock_probe; done)
echo "$out"
echo "$out" | awk '/^cpu[0-9]+: probe/ {
    c = $1; m = $3 + 0
    if (!(c in lo) || m < lo[c]) lo[c] = m
    if (!(c in hi) || m > hi[c]) hi[c] = m
  }
  END { for (c in lo) printf "%s probe spread over runs: %d-%d MHz (%.1f %%)\n", c, lo[c], hi[c], 100 * (hi[c] - lo[c]) / lo[c] }'
