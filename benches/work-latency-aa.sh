#!/usr/bin/env bash
# A/A of the CPU work and memory latency sections: RUNS consecutive
# `quickbench -x --only work,latency DELAY` reports, each consecutive pair
# compared one report a side; the share of their figures read better or
# worse (goal: at most 5 %), and every verdict that was not equal.
#
# Usage: benches/work-latency-aa.sh [RUNS (6)] [DELAY (3)]
#        KEEP=DIR: copy the reports and comparisons to DIR at the end.
#        QB=PATH: the binary to run (default: a release build of this tree).
set -euo pipefail

RUNS=${1:-6}
DELAY=${2:-3}
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -z "${QB:-}" ]; then
    cargo build --release -q
    QB=target/release/quickbench
fi

echo "uptime before: $(uptime)"
for ((i = 1; i <= RUNS; i++)); do
    "$QB" -x --only work,latency "$DELAY" --json >"$WORK/r$i.json" 2>"$WORK/r$i.err"
done
echo "uptime after: $(uptime)"
total=0 moved=0
for ((i = 1; i < RUNS; i++)); do
    "$QB" compare --json "$WORK/r$i.json" "$WORK/r$((i + 1)).json" >"$WORK/c$i.json" || true
    read -r n m < <(python3 - "$WORK/c$i.json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"]
        if r["section"] in ("Extended: CPU work", "Extended: Memory latency") and r["kind"] == "figure"]
moved = [r for r in rows if r["verdicts"][1]["verdict"] in ("better", "worse")]
for r in rows:
    v = r["verdicts"][1]["verdict"]
    if v != "equal":
        print(f'{r["section"]}: {r["label"]}: {v}', file=sys.stderr)
print(len(rows), len(moved))
PY
)
    echo "pair $i-$((i + 1)): $m of $n figures better or worse"
    total=$((total + n)) moved=$((moved + m))
done
echo "in all: $moved of $total figures better or worse ($(awk -v m=$moved -v t=$total 'BEGIN {printf "%.1f", 100 * m / t}') %)"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$WORK"/* "$KEEP"/; fi
