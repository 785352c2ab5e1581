#!/usr/bin/env bash
# The CPU work and memory latency sections' figures against the tools of
# their fields, 1 job, alternated (ours, reference, ours, reference...)
# ROUNDS times, medians and ratios:
# - SHA-256 (examples/work_latency.rs, the report's workload) against
#   `openssl speed -evp sha256 -bytes 16384`: target ours >= 0.90.
#   openssl divides by wall time here (-elapsed), as we do; by default it
#   divides by its user CPU time, which a loaded host does not slow.
# - zstd-3 compression and decompression of the report's input (written
#   to a file) against `zstd -b3` on that file: target >= 0.95. zstd -b
#   prints its fastest pass: ours is compared by its fastest pass too
#   (best_mb_per_s), and its mean (the report's figure) is shown beside.
# Every run at nice -5 (root), ours and the references alike, so that
# other builds on a shared host (nice 5) disturb them less.
# - the pointer chase at each size against benches/chase_ref.c: within
#   10 % (ours / reference in 0.90..1.10).
#
# Usage: benches/work-latency.sh [ROUNDS (5)] [SECONDS per run (3)]
# Units: MB/s = 10^6 bytes/s (zstd's and openssl's too); ns per load.
set -euo pipefail

ROUNDS=${1:-5}
SECS=${2:-3}
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for p in openssl zstd gcc; do
    command -v "$p" >/dev/null || apt-get install -y -qq "$p" >/dev/null
done
cargo build --release --example work_latency -q
QB=target/release/examples/work_latency
gcc -O2 benches/chase_ref.c -o "$WORK/chase_ref"
"$QB" input "$WORK/input.txt"

NICE="nice -n -5"
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
json() { sed -E "s/.*\"$1\":([0-9.]+).*/\1/"; }

echo "uptime before: $(uptime)"
: >"$WORK/r"
for ((r = 1; r <= ROUNDS; r++)); do
    echo "ours-sha $($NICE "$QB" work 'sha256 16k' 1 "$SECS" | json mb_per_s)" >>"$WORK/r"
    # +F:N:sha256:BYTES_PER_S for the one block size.
    echo "ref-sha $($NICE openssl speed -elapsed -mr -evp sha256 -bytes 16384 -seconds "$SECS" 2>/dev/null |
        awk -F: '/^\+F:/ {printf "%.2f", $4 / 1e6}')" >>"$WORK/r"
    zc=$($NICE "$QB" work 'zstd-3 compress' 1 "$SECS")
    zd=$($NICE "$QB" work 'zstd-3 decompress' 1 "$SECS")
    echo "ours-zc $(echo "$zc" | json best_mb_per_s)" >>"$WORK/r"
    echo "ours-zd $(echo "$zd" | json best_mb_per_s)" >>"$WORK/r"
    echo "mean-zc $(echo "$zc" | json mb_per_s)" >>"$WORK/r"
    echo "mean-zd $(echo "$zd" | json mb_per_s)" >>"$WORK/r"
    # ` 3#input.txt : 4194304 -> 1385113 (x3.028), 198.3 MB/s, 987.4 MB/s`
    line=$($NICE zstd -b3 -i"$SECS" "$WORK/input.txt" 2>&1 | tr '\r' '\n' | grep 'MB/s' | tail -1)
    echo "ref-zc $(echo "$line" | sed -E 's/.*\), *([0-9.]+) MB\/s.*/\1/')" >>"$WORK/r"
    echo "ref-zd $(echo "$line" | sed -E 's/.*, *([0-9.]+) MB\/s *$/\1/')" >>"$WORK/r"
done
for s in 16384 65536 262144 1048576 4194304 16777216 67108864 268435456 1073741824 pages; do
    for ((r = 1; r <= ROUNDS; r++)); do
        if [ "$s" = pages ]; then
            args=(67108864 pages)
        else
            args=("$s" lines)
        fi
        echo "ours-lat-$s $($NICE "$QB" latency "${args[@]}" 1 | json ns_per_load)" >>"$WORK/r"
        echo "ref-lat-$s $($NICE "$WORK/chase_ref" "${args[@]}" 1 | json ns_per_load)" >>"$WORK/r"
    done
done
echo "uptime after: $(uptime)"

row() {
    local ours ref
    ours=$(awk -v k="ours-$1" '$1 == k {print $2}' "$WORK/r" | median)
    ref=$(awk -v k="ref-$1" '$1 == k {print $2}' "$WORK/r" | median)
    printf "%-22s ours %10s  reference %10s  ours/reference %.3f\n" "$1" "$ours" "$ref" \
        "$(echo "$ours $ref" | awk '{print $1 / $2}')"
}
echo "medians of $ROUNDS alternated runs of $SECS s (latency: 1 s):"
echo "MB/s (higher is better; target >= 0.90 sha, >= 0.95 zstd):"
for k in sha zc zd; do row "$k"; done
for k in zc zd; do
    echo "$k mean (the report's figure): $(awk -v k="mean-$k" '$1 == k {print $2}' "$WORK/r" | median) MB/s"
done
echo "ns per load (lower is better; target 0.90..1.10):"
for s in 16384 65536 262144 1048576 4194304 16777216 67108864 268435456 1073741824 pages; do
    row "lat-$s"
done
