#!/usr/bin/env bash
# What checking the blocks read back costs: the 4k lines of two builds,
# alternated (a script, not a timed test).
#
#   benches/verify-cost.sh BEFORE AFTER DIR [SECONDS] [ROUNDS]
#
# BEFORE and AFTER are two quickbench binaries (the build before the
# reads checked their stamps, and the one after). On the filesystem
# holding DIR, runs the 4k write and read lines with 1, 4 and 16 jobs of
# each, alternately, ROUNDS times (who goes first alternates), and prints
# the median IO/s of each line and the ratio AFTER / BEFORE. A tmpfs DIR
# is the worst case: the reads copy memory, so any work per block shows.
set -euo pipefail

BEFORE=${1:?usage: $0 BEFORE AFTER DIR [SECONDS] [ROUNDS]}
AFTER=${2:?usage: $0 BEFORE AFTER DIR [SECONDS] [ROUNDS]}
DIR=${3:?usage: $0 BEFORE AFTER DIR [SECONDS] [ROUNDS]}
SECS=${4:-3}
ROUNDS=${5:-5}
SAMPLES=$(mktemp)
trap 'rm -f "$SAMPLES"' EXIT

run() { # $1 label, $2 binary
    "$2" "$SECS" --trials 1 --json -q --only io --io-blocks 4k --max-size 512M --dir "$DIR" |
        python3 -c 'import json, sys
for l in json.load(sys.stdin)["storage_bandwidth"]:
    print(sys.argv[1], l["direction"], l["jobs"], l["iops"], sep="\t")' "$1" | tee -a "$SAMPLES" >&2
}

for round in $(seq 1 "$ROUNDS"); do
    if (( round % 2 )); then run before "$BEFORE"; run after "$AFTER"
    else run after "$AFTER"; run before "$BEFORE"; fi
done

python3 - "$SAMPLES" "$DIR" "$SECS" "$ROUNDS" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
print(f"{sys.argv[2]}: {sys.argv[4]} rounds of {sys.argv[3]} s, median IO/s of the 4k lines")
print(f"{'line':>10} {'before':>9} {'after':>9} {'ratio':>6}")
for d in ["write", "read"]:
    for j in ["1", "4", "16"]:
        m = {t: statistics.median(float(r[3]) for r in rows if r[:3] == [t, d, j]) for t in ["before", "after"]}
        print(f"{d:>6} {j:>3} {m['before']:>9.0f} {m['after']:>9.0f} {m['after'] / m['before']:>6.3f}")
PY
