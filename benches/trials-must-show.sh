#!/usr/bin/env bash
# What the default trials within the loop delay must show (root; a script,
# not a test: its numbers depend on the host and on what else runs on it;
# run it when the host is quiet and write `uptime`'s load with the numbers).
#
# 1. aa: RUNS (6) consecutive default reports `quickbench DELAY` (3 s, the
#    whole report) on DIR, every consecutive pair compared one report a
#    side: the share of figures read better/worse (goal: at most 5 %), and
#    per section the share of ≈, ~ and distorted. Run it once with DIR on
#    /var/tmp and once with DIR on a loop device's mount.
# 2. cpu: a 0.8-CPU quota on one side, `--only cpu 5`, PAIRS (10) pairs of
#    one default report a side (benches/aa-noise.sh's cgroup machinery):
#    how many read worse on the 1-job and the all-jobs lines (goals 9 of 10
#    and 10 of 10).
# 3. io: an 80 % I/O cap on the 4k 1-job lines of a loop device at a 10 s
#    delay, PAIRS pairs one report a side (aa-noise.sh's io part): the
#    detection rate, whatever it is.
# 4. time: the whole report at TDELAY (10 s) with the default trials
#    against `--trials 1`, alternated, TRUNS (3) each: wall times and the
#    ratio (goal: within +5 %).
# 5. figures: the CPU loop and memory lines (`--only cpu,memory`) at TDELAY
#    with the default trials against `--trials 1`, alternated, TRUNS each:
#    each line's mean and spread of both.
#
# Usage: benches/trials-must-show.sh DIR
#        PARTS="aa cpu io time figures" (the default) or a subset.
#        RUNS=6 DELAY=3 PAIRS=10 TDELAY=10 TRUNS=3 to change the sizes.
#        KEEP=DIR keeps the reports and comparisons in DIR.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: benches/trials-must-show.sh DIR (the benchmark directory of the A/A part)}
parts=${PARTS:-aa cpu io time figures}
runs=${RUNS:-6}
delay=${DELAY:-3}
pairs=${PAIRS:-10}
tdelay=${TDELAY:-10}
truns=${TRUNS:-3}
[ "$(id -u)" = 0 ] || { echo "trials-must-show.sh: run as root (cgroups, a loop device)" >&2; exit 1; }
[ -d "$dir" ] || { echo "trials-must-show.sh: $dir is not a directory: give the benchmark directory of the A/A part" >&2; exit 2; }
cargo build --release --quiet
bin=$PWD/target/release/quickbench
work=$(mktemp -d /var/tmp/trials-must-show.XXXXXX)
if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    trap 'cp -a "$work"/. "$KEEP"/ && rm -rf "$work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi
part() { [[ " $parts " == *" $1 "* ]]; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"

if part aa; then
    echo "== A/A: $runs default reports at $delay s on $dir ($(df --output=source "$dir" | tail -1)), consecutive pairs, one report a side"
    for i in $(seq 1 "$runs"); do
        "$bin" "$delay" --json -q --dir "$dir" > "$work/aa$i.json" 2>> "$work/stderr"
    done
    cmps=()
    for i in $(seq 2 "$runs"); do
        "$bin" compare --json "$work/aa$((i - 1)).json" "$work/aa$i.json" > "$work/aa$i.cmp"
        cmps+=("$work/aa$i.cmp")
    done
    python3 - "${cmps[@]}" <<'PY'
import json, sys
from collections import Counter, defaultdict
per = defaultdict(Counter)
for f in sys.argv[1:]:
    for r in json.load(open(f))["rows"]:
        if r["kind"] != "figure":
            continue
        per[r["section"]][r["verdicts"][1]["verdict"]] += 1
total = Counter()
for c in per.values():
    total.update(c)
n = sum(total.values())
flagged = total["better"] + total["worse"]
print(f"  {len(sys.argv) - 1} pairs, {n} figures: {flagged} better/worse ({100 * flagged / max(n, 1):.1f} %)")
for section, c in per.items():
    m = sum(c.values())
    share = lambda k: f"{100 * c[k] / m:.0f} %"
    print(f"  [ {section} ] {m} figures: ≈ {share('equal')}, ~ {share('inconclusive')}, "
          f"distorted {share('distorted')}, better/worse {c['better'] + c['worse']}")
PY
fi

# The quota and the cap: benches/aa-noise.sh, one report a side (SIDE 1),
# PAIRS rounds, the default trials (REPEAT 1).
if part cpu; then
    PARTS=cpu benches/aa-noise.sh 1 5 1 "$pairs"
fi
if part io; then
    PARTS=io benches/aa-noise.sh 1 10 1 "$pairs"
fi

if part time; then
    echo "== Wall time of the whole report at $tdelay s on $dir: default trials against --trials 1, alternated, $truns each"
    : > "$work/times"
    for i in $(seq 1 "$truns"); do
        for k in default 1; do
            args=()
            [ "$k" = 1 ] && args=(--trials 1)
            s=$(date +%s.%N)
            "$bin" "$tdelay" -q --dir "$dir" "${args[@]}" > /dev/null 2>> "$work/stderr"
            e=$(date +%s.%N)
            echo "$k $s $e" >> "$work/times"
        done
    done
    python3 - "$work/times" <<'PY'
import sys, statistics as st
t = {"default": [], "1": []}
for line in open(sys.argv[1]):
    k, s, e = line.split()
    t[k].append(float(e) - float(s))
d, o = st.mean(t["default"]), st.mean(t["1"])
print(f"  default trials: {', '.join(f'{x:.1f}' for x in t['default'])} s (mean {d:.1f})")
print(f"  --trials 1:     {', '.join(f'{x:.1f}' for x in t['1'])} s (mean {o:.1f})")
print(f"  ratio {d / o:.3f} ({100 * (d / o - 1):+.1f} %)")
PY
fi

if part figures; then
    echo "== CPU loop and memory at $tdelay s: default trials against --trials 1, alternated, $truns each"
    for i in $(seq 1 "$truns"); do
        "$bin" "$tdelay" --json -q --only cpu,memory > "$work/fig-default-$i.json" 2>> "$work/stderr"
        "$bin" "$tdelay" --json -q --only cpu,memory --trials 1 > "$work/fig-one-$i.json" 2>> "$work/stderr"
    done
    python3 - "$work" "$truns" <<'PY'
import json, sys, statistics as st
work, n = sys.argv[1], int(sys.argv[2])
def figures(kind):
    rows = []
    for i in range(1, n + 1):
        d = json.load(open(f"{work}/fig-{kind}-{i}.json"))
        f = {f"{s['jobs']} // jobs (loop/job/s)": s["loops_per_s_mean"] for s in d["cpu_loop"]}
        bw = (d.get("memory") or {}).get("dd_bandwidth")
        if bw:
            f["memory (GB/s)"] = bw["bytes"] / bw["elapsed_ns"]
        rows.append(f)
    return rows
a, b = figures("default"), figures("one")
for k in a[0]:
    va, vb = [r[k] for r in a], [r[k] for r in b]
    cv = lambda v: 100 * st.stdev(v) / st.mean(v) if len(v) > 1 else float("nan")
    print(f"  {k}: default {st.mean(va):.4g} (cv {cv(va):.1f} %), --trials 1 {st.mean(vb):.4g} "
          f"(cv {cv(vb):.1f} %), ratio {st.mean(va) / st.mean(vb):.3f}")
PY
fi
