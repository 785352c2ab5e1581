#!/usr/bin/env bash
# What the core probe shows on a shared VM (a script, not a test: its
# numbers depend on the host and on its other tenants).
#
# 1. RUNS consecutive `--only cpuinfo,cpu,memory DELAY` reports: per report
#    the 1-job pooled figure, its alone rate and shared share, the memory
#    figure and its alone rate; the max/min of each figure across reports.
# 2. A/A: every consecutive pair compared, one report a side: how the
#    `alone` rows read (≈ wanted in at least half), and the share of all
#    figures read better or worse (goal: at most 5 %).
# 3. A 0.8-CPU quota (cgroup v1 cpu.cfs_quota_us, root) on one side of
#    REPS pairs of `--only cpu 5`: how often the 1-job line reads worse,
#    and whether any quota'd step was called shared.
# 4. The probe's cost: PAIRS alternated runs of this build and of OLD (a
#    quickbench built without the probe), `--only cpu,memory DELAY` each:
#    the 1-job, 2-job and memory figures' ratios (median), and the probe's
#    share of the CPU loop's time (one 1 s step timed with and without
#    QB_NO_SAMPLES, which also turns the probe off).
#
# Usage: benches/shared-core.sh [RUNS] [DELAY] [REPS] [PAIRS]  (10 3 5 6)
#        QB=path (default target/release/quickbench), OLD=path for part 4,
#        PARTS="series aa quota cost" (default all), KEEP=DIR to keep files.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10} delay=${2:-3} reps=${3:-5} pairs=${4:-6}
qb=${QB:-target/release/quickbench}
parts=${PARTS:-series aa quota cost}
work=$(mktemp -d)
cg=/sys/fs/cgroup/cpu/qb-shared-core
cleanup() {
    if [ -d "$cg" ]; then
        while read -r p; do echo "$p" >/sys/fs/cgroup/cpu/cgroup.procs; done <"$cg/cgroup.procs" || true
        rmdir "$cg" || true
    fi
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$work"/. "$KEEP"/; fi
    rm -rf "$work"
}
trap cleanup EXIT

has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

if has series || has aa; then
    for i in $(seq 1 "$runs"); do
        "$qb" --json --only cpuinfo,cpu,memory "$delay" 2>/dev/null >"$work/r$i.json"
    done
fi

if has series; then
    echo "== $runs consecutive reports (--only cpuinfo,cpu,memory $delay)"
    python3 - "$work" "$runs" <<'EOF'
import json, sys
work, runs = sys.argv[1], int(sys.argv[2])
rows = []
for i in range(1, runs + 1):
    d = json.load(open(f"{work}/r{i}.json"))
    s1 = [s for s in d["cpu_loop"] if s["jobs"] == 1][0]
    m = d["memory"]["dd_bandwidth"]
    marks = ",".join(k["kind"] for k in s1["marks"])
    rows.append((s1["loops_per_s_mean"], s1.get("alone_rate"), s1.get("shared_fraction"),
                 m["bytes"] / m["elapsed_ns"], m.get("alone_rate"), m.get("shared_fraction"), marks))
print("report  1-job pooled  1-job alone  shared  memory GB/s  alone GB/s  shared  marks")
for i, r in enumerate(rows, 1):
    f = lambda x, s=1, p="%.0f": "-" if x is None else p % (x / s)
    print(f"{i:6}  {f(r[0]):>12}  {f(r[1]):>11}  {f(r[2], 0.01):>5} %  {f(r[3], 1, '%.1f'):>11}"
          f"  {f(r[4], 1e9, '%.1f'):>10}  {f(r[5], 0.01):>5} %  {r[6]}")
def spread(col):
    v = [r[col] for r in rows if r[col]]
    return "%.3f (%d reports)" % (max(v) / min(v), len(v)) if v else "-"
print("max/min: 1-job pooled", spread(0), "| alone", spread(1),
      "| memory", spread(3), "| memory alone", spread(4))
EOF
fi

if has aa; then
    echo "== A/A: $((runs - 1)) consecutive pairs, one report a side"
    for i in $(seq 2 "$runs"); do
        "$qb" compare --json "$work/r$((i - 1)).json" "$work/r$i.json" >"$work/aa$i.json" || true
    done
    python3 - "$work" "$runs" <<'EOF'
import json, sys
work, runs = sys.argv[1], int(sys.argv[2])
calls = {}
total = claims = alone = alone_same = 0
for i in range(2, runs + 1):
    c = json.load(open(f"{work}/aa{i}.json"))
    for row in c["rows"]:
        v = row.get("verdicts") or []
        if len(v) < 2 or row.get("kind") != "figure":
            continue
        call = v[1]["verdict"]
        total += 1
        claims += call in ("better", "worse")
        if "alone" in row["label"]:
            alone += 1
            alone_same += call == "equal"
        calls.setdefault(row["label"].strip(), []).append(call)
print(f"figures {total}, better/worse {claims} ({100 * claims / max(total, 1):.1f} %)")
print(f"alone rows: {alone_same} of {alone} read ≈ (same)")
for label, v in calls.items():
    print(f"  {label:28} {' '.join(v)}")
EOF
fi

if has quota; then
    echo "== 0.8-CPU quota on one side, $reps pairs of --only cpu 5"
    mkdir -p "$cg"
    echo 100000 >"$cg/cpu.cfs_period_us"
    echo 80000 >"$cg/cpu.cfs_quota_us"
    for i in $(seq 1 "$reps"); do
        "$qb" --json --only cpu 5 2>/dev/null >"$work/plain$i.json"
        sh -c "echo \$\$ >$cg/cgroup.procs; exec $qb --json --only cpu 5" 2>/dev/null >"$work/quota$i.json"
        "$qb" compare --json "$work/plain$i.json" "$work/quota$i.json" >"$work/q$i.json" || true
    done
    python3 - "$work" "$reps" <<'EOF'
import json, sys
work, reps = sys.argv[1], int(sys.argv[2])
found = shared = 0
for i in range(1, reps + 1):
    c = json.load(open(f"{work}/q{i}.json"))
    q = json.load(open(f"{work}/quota{i}.json"))
    for row in c["rows"]:
        if row["label"].strip() == "1 // jobs":
            v = row["verdicts"][1]
            found += v["verdict"] == "worse"
            print(f"  pair {i}: 1 // jobs {v['verdict']} x{v.get('ratio') or 0:.2f}")
    for s in q["cpu_loop"]:
        if any(m["kind"] == "shared" for m in s["marks"]):
            shared += 1
            print(f"  pair {i}: {s['jobs']} jobs under the quota marked shared {s['shared_fraction']:.2f}")
print(f"1-job line worse in {found} of {reps} pairs; quota'd steps marked shared: {shared}")
EOF
fi

if has cost && [ -n "${OLD:-}" ]; then
    echo "== the probe's cost: $pairs alternated pairs (--only cpu,memory $delay)"
    for i in $(seq 1 "$pairs"); do
        "$qb" --json --only cpu,memory "$delay" 2>/dev/null >"$work/new$i.json"
        "$OLD" --json --only cpu,memory "$delay" 2>/dev/null >"$work/old$i.json"
    done
    python3 - "$work" "$pairs" <<'EOF'
import json, sys, statistics as st
work, pairs = sys.argv[1], int(sys.argv[2])
def figs(p):
    d = json.load(open(p))
    f = {f"{s['jobs']}-job": s["loops_per_s_mean"] for s in d["cpu_loop"]}
    m = d["memory"]["dd_bandwidth"]
    f["memory"] = m["bytes"] / m["elapsed_ns"]
    return f
ratios = {}
for i in range(1, pairs + 1):
    a, b = figs(f"{work}/new{i}.json"), figs(f"{work}/old{i}.json")
    for k in a:
        ratios.setdefault(k, []).append(a[k] / b[k])
for k, v in ratios.items():
    print(f"  {k:8} new/old median {st.median(v):.3f}  (min {min(v):.3f}, max {max(v):.3f})")
EOF
fi
