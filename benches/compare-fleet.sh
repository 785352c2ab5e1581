#!/usr/bin/env bash
# How long `quickbench compare` takes over a fleet of N JSON reports
# (default 200): one stand-in report copied N times under other host names
# and figures, then the fleet table and the JSON comparison, timed.
# Usage: benches/compare-fleet.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
cargo build --release --quiet
bin=target/release/quickbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A stand-in run of this host (nothing measured, nothing written), in JSON.
"$bin" --sysroot / --fake-figures --dir / 1 --json -q > "$work/base.json" 2>/dev/null || true
python3 - "$work" "$n" <<'PY'
import json, random, sys
work, n = sys.argv[1], int(sys.argv[2])
base = json.load(open(f"{work}/base.json"))
random.seed(1)
for i in range(n):
    d = json.loads(json.dumps(base))
    d["hostname"] = f"node{i:03d}"
    for l in d["storage_bandwidth"]:
        l["iops"] *= random.uniform(0.7, 1.1)
        l["mb_per_s"] *= random.uniform(0.7, 1.1)
    json.dump(d, open(f"{work}/node{i:03d}.json", "w"))
PY
for mode in --table --json; do
    start=$(date +%s%N)
    "$bin" compare $mode "$work"/node*.json > "$work/out" 
    end=$(date +%s%N)
    echo "compare $mode over $n reports: $(( (end - start) / 1000000 )) ms, $(wc -l < "$work/out") lines"
done
