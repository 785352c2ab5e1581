#!/usr/bin/env bash
# Foundation anchors (a script, not a timed test):
#  1. the 1-job CPU loop figure over N runs: spread (max-min)/median, target <= 5%;
#  2. the memory Bandwidth line against `dd if=/dev/zero of=/dev/null bs=1M`
#     run alternately for the same time, target within 15%.
# Usage: benches/foundation.sh [SECONDS=5] [RUNS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
runs=${2:-5}
cargo build --release --locked --quiet
qb=target/release/quickbench

to_bps() { # "22.0 GB/s" -> bytes per second (0 when missing)
    awk -v v="${1:-0}" -v u="${2:-B/s}" 'BEGIN{m["kB/s"]=1e3;m["MB/s"]=1e6;m["GB/s"]=1e9;m["TB/s"]=1e12;m["B/s"]=1;printf "%.0f\n", v*m[u]}'
}

echo "== CPU loop, 1 job, ${secs} s, ${runs} runs"
loops=()
for i in $(seq "$runs"); do
    v=$("$qb" "$secs" --only cpu -q 2>/dev/null | awk '$1=="1" && $2=="//" {print $5}')
    echo "run $i: $v loop/job/s"
    loops+=("$v")
done
printf '%s\n' "${loops[@]}" | sort -n | awk '{a[NR]=$1} END {med=a[int((NR+1)/2)]; printf "spread (max-min)/median: %.2f%% (target <= 5%%)\n", 100*(a[NR]-a[1])/med}'

echo "== Memory bandwidth vs dd bs=1M, ${secs} s each, ${runs} rounds, alternated"
for i in $(seq "$runs"); do
    q=$("$qb" "$secs" --only memory -q 2>/dev/null | awk '/^Bandwidth:/ {print $2, $3}')
    # As the original does: SIGUSR1 makes dd print its status, then it is
    # killed (a SIGINT may be ignored when this script runs in the background).
    d=$({ LC_ALL=C timeout -s USR1 -k 0.5 "$secs" dd if=/dev/zero of=/dev/null bs=1M 2>&1 || true; } | awk -F', ' '/copied/ {r = $NF} END {print r}')
    # shellcheck disable=SC2086 # "22.0 GB/s" splits into value and unit
    qb_bps=$(to_bps $q)
    # shellcheck disable=SC2086
    dd_bps=$(to_bps $d)
    awk -v i="$i" -v q="$q" -v d="$d" -v a="$qb_bps" -v b="$dd_bps" \
        'BEGIN {printf "round %d: quickbench %s, dd %s, ratio %s\n", i, q, d, (b > 0 ? sprintf("%.3f", a/b) : "n/a")}'
done
