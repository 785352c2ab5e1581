#!/usr/bin/env bash
# Compare quickbench's storage engine with fio's psync engine (a script, not
# a timed test).
#
#   benches/io-vs-fio.sh DIR [SECONDS] [ROUNDS]
#
# On the filesystem holding DIR, runs the 1-job 4k and 1M write and read
# lines of quickbench and the equivalent fio job (--ioengine=psync
# --direct=1 --bs=... --numjobs=1 --time_based, same file size)
# alternately, ROUNDS times (at least 3), and prints the medians and the
# ratios quickbench / fio of IOPS, MB/s and mean latency, plus the CPU
# time (user + system) each spends per I/O: on a busy machine wall-clock
# figures swing with other load, CPU per I/O much less. For the IOPS
# ratio it also prints the geometric mean over the rounds and in how many
# rounds quickbench came out ahead: on a noisy VM single rounds range from
# half to twice fio's figure, and a median of 9 rounds moves by 10-20 %.
# fio reads only what its write job wrote (as quickbench does), so neither
# side reads unwritten extents. A third anchor, benches/psync_ref.c (the
# smallest psync loop in C: pwrite/pread, the clock around each call,
# nothing else), runs in the same rotation when gcc is there: quickbench
# and fio set against it show their own overhead apart from the
# machine's scheduling (on a VM, two runs of the same loop can differ by
# 2x depending on which vCPU serves the I/O completions; all three let
# their job rest before it starts and have a second thread or process
# waking every 10 ms while it runs, see docs/METHOD.md, storage lines).
# Environment: QB_SIZE (file size, default 1G).
# Installs fio with apt-get when it is missing.
set -euo pipefail

DIR=${1:?usage: $0 DIR [SECONDS] [ROUNDS]}
SECS=${2:-5}
ROUNDS=${3:-3}
SIZE=${QB_SIZE:-1G}
(( ROUNDS < 3 )) && ROUNDS=3
ROOT=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v fio >/dev/null; then
    echo "fio missing: apt-get install -y fio" >&2
    apt-get install -y fio >&2 || { apt-get update >&2 && apt-get install -y fio >&2; }
fi
command -v python3 >/dev/null || { echo "python3 is needed to read fio's JSON" >&2; exit 1; }

cargo build --quiet --release --examples --manifest-path "$ROOT/Cargo.toml" >&2
HARNESS="$ROOT/target/release/examples/io_line"
QB="$ROOT/target/release/quickbench"
# QB_ENGINE=harness uses the dev harness (which also reports its CPU time);
# the default runs the quickbench binary itself.
ENGINE=${QB_ENGINE:-binary}

WORK=$(mktemp -d)
FIOFILE="$DIR/.qb-fio-bench.$$"
REFFILE="$DIR/.qb-ref-bench.$$"
cleanup() { rm -rf "$WORK"; rm -f "$FIOFILE" "$REFFILE"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
SAMPLES="$WORK/samples.tsv"
REF=""
if command -v gcc >/dev/null; then
    gcc -O2 -pthread "$ROOT/benches/psync_ref.c" -o "$WORK/psync_ref" && REF="$WORK/psync_ref"
else
    echo "gcc missing: no psync_ref column" >&2
fi

# The one command that yields quickbench LineResult JSON documents (one per
# line): the 1-job write line then the read line, for block size $1.
qb_line_results() {
    if [ "$ENGINE" = harness ]; then
        "$HARNESS" --dir "$DIR" --bs "$1" --rw both --jobs 1 --secs "$SECS" --max-size "$SIZE" | grep '^{'
        return
    fi
    "$QB" --json -q --only io --io-jobs 1 --io-blocks "$1" --max-size "$SIZE" --dir "$DIR" "$SECS" \
        | python3 -c 'import json, sys; [print(json.dumps(l)) for l in json.load(sys.stdin)["storage_bandwidth"]]'
}

# fio's equivalent job; prints fio's JSON.  $1 bs, $2 write|read, $3 size.
fio_json() {
    fio --name=qb --filename="$FIOFILE" --size="$3" --ioengine=psync --direct=1 \
        --bs="$1" --rw="$2" --numjobs=1 --time_based --runtime="$SECS" \
        --output-format=json
}

# Appends quickbench's write and read samples for block size $1.
run_qb() {
    qb_line_results "$1" | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    cpu = r.get("harness_cpu_ns", 0) / 1e3 / max(r["ios"], 1)
    print(sys.argv[1], r["direction"], "qb", r["iops"], r["mb_per_s"], r["lat_mean_us"], r["file_size_bytes"], cpu, sep="\t")
' "$1" | tee -a "$SAMPLES" >&2
}

# Appends fio's write and read samples for block size $1, file size $2.
# The read job reads only the prefix its write job wrote.
run_fio() {
    rm -f "$FIOFILE"
    fio_json "$1" write "$2" >"$WORK/w.json"
    written=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["write"]
bs = {"4k": 4096, "1M": 1 << 20}[sys.argv[2]]
print(max(bs, min(int(sys.argv[3]), j["io_bytes"]) // bs * bs))
' "$WORK/w.json" "$1" "$2")
    fio_json "$1" read "$written" >"$WORK/r.json"
    rm -f "$FIOFILE"
    for rw in write read; do
        python3 -c '
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
j = job[sys.argv[3]]
cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1e3 / max(j["total_ios"], 1)
print(sys.argv[2], sys.argv[3], "fio", j["iops"], j["bw_bytes"] / 1e6, j["lat_ns"]["mean"] / 1e3, 0, cpu, sep="\t")
' "$WORK/${rw:0:1}.json" "$1" "$rw" | tee -a "$SAMPLES" >&2
    done
}

# Appends the reference loop's write and read samples: $1 bs, $2 size.
run_ref() {
    [ -n "$REF" ] || return 0
    local bytes
    bytes=$(python3 -c 'import sys; print({"4k": 4096, "1M": 1 << 20}[sys.argv[1]])' "$1")
    rm -f "$REFFILE"
    "$REF" "$REFFILE" "$bytes" "$2" "$SECS" | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print(sys.argv[1], r["rw"], "ref", r["iops"], r["mb_per_s"], r["lat_mean_us"], 0, 0, sep="\t")
' "$1" | tee -a "$SAMPLES" >&2
}

# The file size: what quickbench's bound gives for QB_SIZE on DIR.
SIZE_BYTES=$("$HARNESS" --dir "$DIR" --bs 1M --rw write --jobs 1 --secs 0.1 --max-size "$SIZE" |
    grep '^{' | python3 -c 'import json, sys; print(json.load(sys.stdin)["file_size_bytes"])')

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
# Alternate, and rotate who goes first every round to cancel drift.
for round in $(seq 1 "$ROUNDS"); do
    for bs in 4k 1M; do
        echo "round $round/$ROUNDS, $bs:" >&2
        case $(( round % 3 )) in
            1) run_qb "$bs"; run_fio "$bs" "$SIZE_BYTES"; run_ref "$bs" "$SIZE_BYTES" ;;
            2) run_fio "$bs" "$SIZE_BYTES"; run_ref "$bs" "$SIZE_BYTES"; run_qb "$bs" ;;
            0) run_ref "$bs" "$SIZE_BYTES"; run_qb "$bs"; run_fio "$bs" "$SIZE_BYTES" ;;
        esac
    done
done

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$SAMPLES" "$DIR" "$SECS" "$ROUNDS" "$LOAD_START" "$LOAD_END" <<'PY'
import math, statistics, sys
from collections import defaultdict
rows = defaultdict(list)
# On a noisy machine the rounds' ratios spread widely: the geometric mean
# of the IOPS ratios and the number of rounds quickbench came out ahead
# say more than the median alone.
geo = lambda r: math.exp(statistics.mean(math.log(x) for x in r))
ahead = lambda r: f"{sum(x > 1 for x in r)}/{len(r)}"
for line in open(sys.argv[1]):
    bs, rw, tool, iops, mbps, lat, _, cpu = line.split("\t")
    rows[(bs, rw, tool)].append((float(iops), float(mbps), float(lat), float(cpu)))
print(f"quickbench vs fio psync on {sys.argv[2]}: 1 job, {sys.argv[3]} s per line, "
      f"{sys.argv[4]} rounds, medians (load average {sys.argv[5]} -> {sys.argv[6]})")
print(f"{'line':<9} {'qb IO/s':>9} {'fio IO/s':>9} {'qb MB/s':>8} {'fio MB/s':>8} "
      f"{'qb lat':>8} {'fio lat':>8} {'IOPS ratio':>10} {'MB/s ratio':>10} {'lat ratio':>9}"
      f"  {'IOPS min..max':>13} {'geo mean':>8} {'ahead':>6} {'CPU µs/IO qb':>12} {'fio':>6} {'ratio':>6}")
for bs in ("4k", "1M"):
    for rw in ("write", "read"):
        q, f = rows[(bs, rw, "qb")], rows[(bs, rw, "fio")]
        if not q or not f:
            continue
        n = min(len(q), len(f))
        ratios = lambda i: [q[k][i] / f[k][i] for k in range(n) if f[k][i]]
        med = lambda s, i: statistics.median(x[i] for x in s)
        r0 = ratios(0)
        # the quickbench binary does not report its CPU time (the harness
        # does): n/a rather than a ratio of 0
        has_cpu = all(x[3] for x in q[:n]) and all(x[3] for x in f[:n])
        cpu_q = f"{med(q,3):.2f}" if has_cpu else "n/a"
        cpu_ratio = f"{statistics.median(ratios(3)):.3f}" if has_cpu else "n/a"
        print(f"{bs + ' ' + rw:<9} {med(q,0):9.0f} {med(f,0):9.0f} {med(q,1):8.1f} {med(f,1):8.1f} "
              f"{med(q,2):7.1f}µ {med(f,2):7.1f}µ {statistics.median(r0):10.3f} "
              f"{statistics.median(ratios(1)):10.3f} {statistics.median(ratios(2)):9.3f}"
              f"  {min(r0):6.2f}..{max(r0):<5.2f} {geo(r0):8.3f} {ahead(r0):>6} {cpu_q:>12} {med(f,3):6.2f} {cpu_ratio:>6}")
if any(k[2] == "ref" for k in rows):
    print()
    print("against the smallest psync loop (benches/psync_ref.c), IOPS ratios, medians of rounds")
    print(f"{'line':<9} {'ref IO/s':>9} {'qb/ref':>7} {'fio/ref':>7}  {'qb/ref min..max':>15} {'fio/ref min..max':>16}")
    for bs in ("4k", "1M"):
        for rw in ("write", "read"):
            q, f, r = rows[(bs, rw, "qb")], rows[(bs, rw, "fio")], rows[(bs, rw, "ref")]
            n = min(len(q), len(f), len(r))
            if not n:
                continue
            qr = [q[k][0] / r[k][0] for k in range(n) if r[k][0]]
            fr = [f[k][0] / r[k][0] for k in range(n) if r[k][0]]
            print(f"{bs + ' ' + rw:<9} {statistics.median(x[0] for x in r):9.0f} "
                  f"{statistics.median(qr):7.3f} {statistics.median(fr):7.3f}  "
                  f"{min(qr):7.2f}..{max(qr):<6.2f} {min(fr):8.2f}..{max(fr):<6.2f}")
PY
