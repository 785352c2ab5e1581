#!/usr/bin/env bash
# The shortest useful trial of each kind of timed step (root for the
# storage part; a script, not a test: run it when the host is quiet and
# write `uptime`'s load with the numbers).
#
# For each kind (the CPU loop, the memory bandwidth, the 4k 1-job storage
# lines on DIR) and each trial length L (LENGTHS, in ms), REPORTS reports
# of TRIALS trials of L each (`--trials TRIALS`, the delay TRIALS x L, plus
# the storage rests), the lengths alternated so that a drift of the host
# falls on all of them. Per kind and length:
#   - cv: the sd of the log trial figures within a report (median over the
#     reports and steps);
#   - cv x sqrt(L / 1 s): the noise per second of measuring. Were trials
#     pure white noise it would stay flat; where it rises, a trial is too
#     short to measure its step rather than its start: the time is better
#     spent on fewer, longer trials;
#   - bias: the mean trial figure against the longest length's.
#
# Usage: benches/trial-length.sh DIR
#        LENGTHS="50 100 250 500 1000" TRIALS=8 REPORTS=3 KINDS="cpu memory io"
set -Eeuo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: benches/trial-length.sh DIR (the benchmark directory of the storage part)}
lengths=${LENGTHS:-50 100 250 500 1000}
trials=${TRIALS:-8}
reports=${REPORTS:-3}
kinds=${KINDS:-cpu memory io}
[ -d "$dir" ] || { echo "trial-length.sh: $dir is not a directory: give the benchmark directory of the storage part" >&2; exit 2; }
cargo build --release --quiet
bin=$PWD/target/release/quickbench
work=$(mktemp -d /var/tmp/trial-length.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; $trials trials a report, $reports reports a length"
for kind in $kinds; do
    case $kind in
        cpu) scope=(--only cpu) ;;
        memory) scope=(--only memory) ;;
        io) scope=(--only io --io-blocks 4k --io-jobs 1 --max-size 64M --dir "$dir") ;;
        *) echo "trial-length.sh: unknown kind $kind (cpu, memory, io)" >&2; exit 2 ;;
    esac
    for r in $(seq 1 "$reports"); do
        for l in $lengths; do
            # The storage rests (200 ms before each trial after the first)
            # come out of the delay: add them, so each trial keeps L.
            delay=$(python3 -c "k=$trials; l=$l/1000; print(k*l + ((k-1)*0.2 if '$kind'=='io' else 0))")
            "$bin" "$delay" --trials "$trials" --json -q "${scope[@]}" > "$work/$kind-$l-$r.json" 2>> "$work/stderr"
        done
    done
    python3 - "$work" "$kind" "$reports" $lengths <<'PY'
import json, math, statistics as st, sys
work, kind, reports, lengths = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(x) for x in sys.argv[4:]]
def series(d):
    if kind == "cpu":
        return [[t["loops_per_s_mean"] for t in s["trials"]] for s in d["cpu_loop"]]
    if kind == "memory":
        bw = d["memory"]["dd_bandwidth"]
        return [[t["bytes"] / t["elapsed_ns"] for t in bw["trials"]]]
    return [[t["iops"] for t in l["trials"]] for l in d["storage_bandwidth"]]
cv, mean = {}, {}
for l in lengths:
    cvs, means = [], []
    for r in range(1, reports + 1):
        for s in series(json.load(open(f"{work}/{kind}-{l}-{r}.json"))):
            logs = [math.log(x) for x in s if x > 0]
            if len(logs) > 1:
                cvs.append(st.stdev(logs))
                means.append(st.mean(s))
    cv[l], mean[l] = st.median(cvs), st.mean(means)
ref = max(lengths)
print(f"== {kind}")
for l in lengths:
    print(f"  {l:5d} ms: cv {100 * cv[l]:5.1f} %, cv x sqrt(L/1 s) {100 * cv[l] * math.sqrt(l / 1000):5.2f} %, "
          f"bias {100 * (mean[l] / mean[ref] - 1):+5.1f} %")
PY
done
