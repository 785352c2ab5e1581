#!/usr/bin/env bash
# Raw device reads: quickbench --device against fio --readonly (a script,
# not a timed test).
#
#   benches/raw-vs-fio.sh DEV [SECONDS] [ROUNDS] [QUICKBENCH]
#
# On the block device DEV (read only: neither side writes it), runs the
# 4k and 1M read lines with 1 and 16 jobs of quickbench --device and the
# equivalent fio job (--readonly --ioengine=psync --direct=1 --rw=read,
# each job its own slice of the device: --size=DEV/J, --offset_increment)
# alternately, ROUNDS times (at least 3, who goes first rotates), and
# prints the median IO/s of each and the ratio quickbench / fio.
# Installs fio with apt-get when it is missing.
set -euo pipefail

DEV=${1:?usage: $0 DEV [SECONDS] [ROUNDS] [QUICKBENCH]}
SECS=${2:-5}
ROUNDS=${3:-3}
(( ROUNDS < 3 )) && ROUNDS=3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QB=${4:-$ROOT/target/release/quickbench}

command -v fio >/dev/null || apt-get install -y fio >&2
[ -x "$QB" ] || cargo build --quiet --release --manifest-path "$ROOT/Cargo.toml" >&2
SIZE=$(blockdev --getsize64 "$DEV")
SAMPLES=$(mktemp)
trap 'rm -f "$SAMPLES"' EXIT

run_qb() { # $1 bs, $2 jobs
    "$QB" "$SECS" --trials 1 --json -q --only io --io-jobs "$2" --io-blocks "$1" --device "$DEV" |
        python3 -c 'import json, sys
for l in json.load(sys.stdin)["storage_bandwidth"]:
    print(sys.argv[1], sys.argv[2], "qb", l["iops"], sep="\t")' "$1" "$2" | tee -a "$SAMPLES" >&2
}

run_fio() { # $1 bs, $2 jobs
    local slice=$(( SIZE / $2 / 1048576 * 1048576 ))
    fio --name=qb --readonly --filename="$DEV" --ioengine=psync --direct=1 --rw=read \
        --bs="$1" --numjobs="$2" --size="$slice" --offset_increment="$slice" \
        --time_based --runtime="$SECS" --group_reporting --output-format=json |
        python3 -c 'import json, sys
print(sys.argv[1], sys.argv[2], "fio", json.load(sys.stdin)["jobs"][0]["read"]["iops"], sep="\t")' \
            "$1" "$2" | tee -a "$SAMPLES" >&2
}

for round in $(seq 1 "$ROUNDS"); do
    for bs in 4k 1M; do
        for jobs in 1 16; do
            if (( round % 2 )); then run_qb $bs $jobs; run_fio $bs $jobs
            else run_fio $bs $jobs; run_qb $bs $jobs; fi
        done
    done
done

python3 - "$SAMPLES" "$DEV" "$SECS" "$ROUNDS" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
print(f"{sys.argv[2]}: {sys.argv[4]} rounds of {sys.argv[3]} s, median IO/s")
print(f"{'bs':>3} {'jobs':>4} {'quickbench':>11} {'fio':>11} {'ratio':>6}")
for bs in ["4k", "1M"]:
    for jobs in ["1", "16"]:
        m = {t: statistics.median(float(r[3]) for r in rows if r[:3] == [bs, jobs, t]) for t in ["qb", "fio"]}
        print(f"{bs:>3} {jobs:>4} {m['qb']:>11.0f} {m['fio']:>11.0f} {m['qb'] / m['fio']:>6.2f}")
PY
