#!/usr/bin/env bash
# What keeping sub-interval samples costs the figures (a script, not a
# timed test). Runs the release binary's timed steps (CPU loop at every
# job count, memory bandwidth, the 4k 1-job write and read lines) with
# sampling on and off, alternately (which goes first alternates too),
# several rounds; prints for each figure the median with and without
# samples, their difference, the median of the rounds' own on/off ratios
# (each round's two runs are a minute apart at most: slow changes of the
# host's load cancel out), and the run-to-run noise of each side
# ((max - min) / median over the rounds). The load average is printed
# before and after: on a busy host the noise hides any difference.
#
# Sampling is turned off with QB_NO_SAMPLES=1, a hidden switch that exists
# for this script only.
#
# Usage: benches/sampling-overhead.sh [DIR=/var/tmp] [SECONDS=3] [ROUNDS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/var/tmp}
secs=${2:-3}
rounds=${3:-5}
cargo build --release --locked --quiet
qb=$PWD/target/release/quickbench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One run in mode on|off; appends each figure to $out/<figure>.<mode>
# (the memory bandwidth from the JSON document: the text rounds it to
# three digits).
run() {
    local mode=$1 env=()
    [ "$mode" = off ] && env=(QB_NO_SAMPLES=1)
    env "${env[@]}" "$qb" "$secs" -q --only cpu,memory,io --io-jobs 1 --io-blocks 4k \
        --dir "$dir" --json --text-out "$out/text" 2>/dev/null >"$out/json"
    {
        awk '$2 == "//" && $3 == "jobs" {print "cpu-" $1 "-jobs-loop-per-s", $5}
            /^Writes \( 1 thread/ {print "4k-write-1-job-IO-per-s", $7}
            /^Reads  \( 1 thread/ {print "4k-read-1-job-IO-per-s", $7}' "$out/text"
        grep -o '"dd_bandwidth_bytes_per_s": *[0-9.e+]*' "$out/json" |
            awk -F: '{print "memory-bandwidth-B-per-s", $2}'
    } | while read -r name value; do
        echo "$value" >>"$out/$name.$mode"
    done
}

echo "== sampling on vs off: ${rounds} rounds of ${secs} s steps, ${dir}, alternated"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
    if [ $((i % 2)) -eq 1 ]; then order="on off"; else order="off on"; fi
    for m in $order; do
        run "$m"
    done
    echo "round $i done ($order)"
done

median() { sort -g | awk '{a[NR]=$1} END {printf "%.6f\n", (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
spread() { sort -g | awk '{a[NR]=$1} END {m=(NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); printf "%.2f", (m > 0 ? 100*(a[NR]-a[1])/m : 0)}'; }

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %15s %15s %8s %8s %9s %9s\n' figure "median on" "median off" "on/off" paired "noise on" "noise off"
for f in "$out"/*.on; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .on)
    off=$out/$name.off
    on_med=$(median <"$f"); off_med=$(median <"$off")
    on_sp=$(spread <"$f"); off_sp=$(spread <"$off")
    paired=$(paste "$f" "$off" | awk '$2 > 0 {print $1 / $2}' | median)
    awk -v n="$name" -v a="$on_med" -v b="$off_med" -v p="$paired" -v sa="$on_sp" -v sb="$off_sp" 'BEGIN {
        d = (b > 0 ? 100*(a-b)/b : 0)
        printf "%-28s %15.0f %15.0f %+7.2f%% %+7.2f%% %8.2f%% %8.2f%%\n", n, a, b, d, 100*(p-1), sa, sb }'
done
echo "on/off: the median with samples against the median without; paired: the median"
echo "of each round's on/off ratio; noise: (max - min) / median of each side."
