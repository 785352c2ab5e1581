#!/usr/bin/env bash
# How often `quickbench compare` claims a difference that is not there, and
# how often it finds one that is (root; a script, not a test: its numbers
# depend on the host).
#
# 1. A/A: RUNS runs of the whole report on this host, every consecutive
#    pair compared (one report a side): the share of figures read better or
#    worse (goal: at most 5 %), and, for contrast, the share the old fixed
#    band would have flagged (|B/A - 1| > 5 %, from the ratios of the JSON).
# 2. A CPU quota of 0.8 CPU (cgroup v2 cpu.max "80000 100000", or v1
#    cpu.cfs_quota_us where the cpu controller is v1) on the CPU loop:
#    REPS rounds of SIDE plain runs against SIDE quota'd runs, alternated;
#    the share of rounds (and of one-report pairs) where each CPU step reads
#    worse (goal: at least 95 %).
# 3. An I/O throttle at 80 % of the 4k 1-job IO/s that the plain run just
#    before measured on a loop device (cgroup v2 io.max riops/wiops, or v1
#    blkio.throttle.*_iops_device): the same, for the 4k 1-job read and
#    write IO/s.
#
# The cgroups, the loop device, its mount and the files are removed on
# every exit path.
# Usage: benches/aa-noise.sh [RUNS] [DELAY] [SIDE] [REPS]   (default 6 2 5 2)
#        PARTS="aa cpu io" (the default) or a subset, to run only those.
#        REPEAT=N: every report runs with --repeat N (its trials are the
#        side's: with SIDE 1, one report a side of N trials).
#        KEEP=DIR: copy the reports and comparisons to DIR at the end.
#        SHARE=0.9: the quota and the throttle at 90 % instead of 80 %
#        (a 10 % slowdown).
#        WHOLE=1: the CPU quota's runs are whole reports (the quota then
#        slows what else it slows, and the comparison's family is a whole
#        report's), not --only cpu.
#        THROTTLE=fixed: the I/O cap stays at SHARE of the calibration
#        report, instead of SHARE of the plain run before each slowed run.
#        IO4K1=1: the I/O part's reports hold only the 4k 1-job lines.
#        BACKING=tmpfs: the loop device's file lives on a tmpfs of its own
#        (RAM), not under /var/tmp: the injected throttle is then measured
#        against a device without the host disk's own slow spells.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
runs=${1:-6}
delay=${2:-2}
side=${3:-5}
reps=${4:-2}
parts=${PARTS:-aa cpu io}
repeat=${REPEAT:-1}
share=${SHARE:-0.8}
throttle=${THROTTLE:-follow}
case $throttle in
    follow | fixed) ;;
    *) echo "aa-noise.sh: THROTTLE=$throttle: use follow (the default) or fixed" >&2; exit 2 ;;
esac
quota=$(python3 -c "print(round($share * 100000))")
[ "$(id -u)" = 0 ] || { echo "aa-noise.sh: run as root (cgroups, a loop device)" >&2; exit 1; }
cargo build --release --quiet
bin=$PWD/target/release/quickbench
work=$(mktemp -d /var/tmp/aa-noise.XXXXXX)
loopdev=""
cgroups=()
cleanup() {
    set +e
    [ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$work"/*.json "$work"/*.cmp "$KEEP"/ 2>/dev/null
    mountpoint -q "$work/mnt" && umount "$work/mnt"
    [ -n "$loopdev" ] && losetup -d "$loopdev"
    mountpoint -q "$work/backing" && umount "$work/backing"
    for cg in "${cgroups[@]}"; do rmdir "$cg" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "aa-noise.sh: a command failed at line $LINENO; its last messages:" >&2; tail -5 "$work/stderr" >&2' ERR

# A cgroup for controller $1 (cpu or io) named aa-noise-$1: v2 when the
# unified hierarchy offers the controller, else v1 (cpu, blkio).
v2=/sys/fs/cgroup
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup/unified
make_cgroup() {
    local ctl=$1 dir
    if [ -f "$v2/cgroup.controllers" ] && grep -qw "$ctl" "$v2/cgroup.controllers"; then
        grep -qw "$ctl" "$v2/cgroup.subtree_control" || echo "+$ctl" > "$v2/cgroup.subtree_control"
        dir=$v2/aa-noise-$ctl
    else
        local v1=$ctl
        [ "$ctl" = io ] && v1=blkio
        dir=/sys/fs/cgroup/$v1/aa-noise-$ctl
    fi
    mkdir -p "$dir"
    echo "$dir"
}
# Runs a command inside cgroup $1.
in_cgroup() {
    local cg=$1
    shift
    sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}

# The analysis of compare --json documents: mode, figure filter, files.
analyse() {
    python3 - "$@" <<'PY'
import json, sys
mode, pattern, files = sys.argv[1], sys.argv[2], sys.argv[3:]
flag_new = flag_old = figures = old_figures = worse = total = distorted = 0
for f in files:
    c = json.load(open(f))
    for r in c["rows"]:
        if r["kind"] != "figure":
            continue
        if pattern and pattern not in f"[ {r['section']} ] {r['label']}":
            continue
        v = r["verdicts"][1]["verdict"]
        distorted += v == "distorted"
        if r["judged"][1] is not None:
            figures += 1
            flag_new += v in ("better", "worse")
        ratio = r["ratios"][1]
        if ratio is not None:
            old_figures += 1
            flag_old += abs(ratio - 1) > 0.05 + 1e-9
        total += 1
        worse += v == "worse"
if mode == "aa":
    print(f"  {len(files)} pairs, {figures} figures judged: {flag_new} flagged better/worse "
          f"({100 * flag_new / max(figures, 1):.1f} %); the old fixed band: {flag_old} of "
          f"{old_figures} ({100 * flag_old / max(old_figures, 1):.1f} %); {distorted} distorted (busy, "
          f"steal or other I/O in a report: no verdict)")
else:
    ratios = sorted(r["ratios"][1] for c in map(lambda f: json.load(open(f)), files)
                    for r in c["rows"] if r["kind"] == "figure" and r["ratios"][1] is not None
                    and pattern in f"[ {r['section']} ] {r['label']}")
    mid = f", B/A from {ratios[0]:.2f} to {ratios[-1]:.2f}" if ratios else ""
    print(f"  {worse} of {total} comparisons read worse ({100 * worse / max(total, 1):.0f} %), "
          f"{distorted} distorted{mid}")
PY
}

part() { [[ " $parts " == *" $1 "* ]]; }

if part aa; then
echo "== A/A: $runs runs at $delay s (--repeat $repeat) on $(df --output=source "$work" | tail -1), consecutive pairs"
for i in $(seq 1 "$runs"); do
    "$bin" "$delay" --repeat "$repeat" --json -q --dir "$work" > "$work/aa$i.json" 2>> "$work/stderr"
done
pairs=()
for i in $(seq 2 "$runs"); do
    "$bin" compare --json "$work/aa$((i - 1)).json" "$work/aa$i.json" > "$work/aa-pair$i.cmp"
    pairs+=("$work/aa-pair$i.cmp")
done
analyse aa "" "${pairs[@]}"
fi

# Rounds of $side plain and $side slowed runs of "$@" (alternated), each
# round compared $side against $side (--), and its runs one against one.
# $before_slowed, when set, is called with each plain run's report before
# the slowed run that follows it.
before_slowed=""
rounds() {
    local name=$1 cg=$2
    shift 2
    for r in $(seq 1 "$reps"); do
        local a=() b=()
        for i in $(seq 1 "$side"); do
            "$bin" "$@" > "$work/$name-r$r-a$i.json" 2>> "$work/stderr"
            [ -n "$before_slowed" ] && "$before_slowed" "$work/$name-r$r-a$i.json"
            in_cgroup "$cg" "$bin" "$@" > "$work/$name-r$r-b$i.json" 2>> "$work/stderr"
            a+=("$work/$name-r$r-a$i.json")
            b+=("$work/$name-r$r-b$i.json")
            "$bin" compare --json "${a[-1]}" "${b[-1]}" > "$work/$name-pair-r$r-$i.cmp"
        done
        "$bin" compare --json "${a[@]}" -- "${b[@]}" > "$work/$name-side-r$r.cmp"
    done
}

if part cpu; then
echo "== CPU quota $share CPU: $reps rounds of $side plain against $side under the quota (--repeat $repeat$([ "${WHOLE:-0}" = 1 ] && echo ", whole reports"))"
cg=$(make_cgroup cpu)
cgroups+=("$cg")
if [ -f "$cg/cpu.max" ]; then
    echo "$quota 100000" > "$cg/cpu.max"
else
    echo 100000 > "$cg/cpu.cfs_period_us"
    echo "$quota" > "$cg/cpu.cfs_quota_us"
fi
scope=(--only cpu)
[ "${WHOLE:-0}" = 1 ] && scope=(--dir "$work")
rounds cpu "$cg" "$delay" --repeat "$repeat" --json -q "${scope[@]}"
for step in " 1 // jobs" " 2 // jobs"; do
    echo " [ CPU loop ]$step, $side reports a side:"
    analyse power "[ CPU loop ] $step" "$work"/cpu-side-r*.cmp
    echo " one report a side:"
    analyse power "[ CPU loop ] $step" "$work"/cpu-pair-r*.cmp
done
fi

if part io; then
backing=$work
if [ "${BACKING:-}" = tmpfs ]; then
    backing=$work/backing
    mkdir -p "$backing"
    mount -t tmpfs -o size=1100M aa-noise "$backing"
fi
echo "== I/O throttle at $share of the 4k 1-job IO/s, on a loop device over $(df --output=fstype "$backing" | tail -1) (--repeat $repeat)"
truncate -s 1G "$backing/disk.img"
loopdev=$(losetup -f --show "$backing/disk.img")
mkfs.ext4 -q "$loopdev"
mkdir -p "$work/mnt"
mount "$loopdev" "$work/mnt"
io=(--repeat "$repeat" --json -q --only io --max-size 64M --dir "$work/mnt")
# IO4K1=1: only the 4k 1-job lines (the hidden --io-blocks/--io-jobs), a
# report of 2 lines: 20 s a report at 10 s, and a family of 2 measurements
# (a whole storage section's is 12: its claims need a stricter level).
[ "${IO4K1:-0}" = 1 ] && io+=(--io-blocks 4k --io-jobs 1)
"$bin" "$delay" "${io[@]}" > "$work/calibrate.json" 2>> "$work/stderr"
majmin=$(lsblk -dno MAJ:MIN "$loopdev" | tr -d ' ')
cg=$(make_cgroup io)
cgroups+=("$cg")
# Caps the cgroup's 4k IO/s at SHARE of the 4k 1-job IO/s of report $1.
throttle_from() {
    local riops wiops
    read -r riops wiops < <(python3 - "$1" "$share" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
share = float(sys.argv[2])
one = {l["direction"]: l["iops"] for l in d["storage_bandwidth"] if l["block_size_bytes"] == 4096 and l["jobs"] == 1}
print(int(share * one["read"]), int(share * one["write"]))
PY
)
    if [ -f "$cg/io.max" ]; then
        echo "$majmin riops=$riops wiops=$wiops" > "$cg/io.max"
    else
        echo "$majmin $riops" > "$cg/blkio.throttle.read_iops_device"
        echo "$majmin $wiops" > "$cg/blkio.throttle.write_iops_device"
    fi
    echo " $loopdev ($majmin) from $(basename "$1"): riops=$riops wiops=$wiops"
}
throttle_from "$work/calibrate.json"
# The device drifts over half an hour (4k 1-job writes from 15k to 38k
# IO/s on a loop device over tmpfs, 2026-12-07), so a cap fixed at the
# start stops binding when the device slows and cuts 60 % when it speeds
# up. By default the cap follows: each slowed run is capped at SHARE of
# the plain run just before it. THROTTLE=fixed keeps the first cap.
[ "$throttle" = follow ] && before_slowed=throttle_from
# What the device's own spread asks of a comparison, from the calibration
# report's trials (with REPEAT >= 3): the standard deviation of log IO/s
# between trials, and the trials a side that would find a shift of SHARE
# beyond the 5 % margin 95 % of the time, two noisy sides at alpha 0.05.
# The normal-approximation size of a two-sample shift test,
# n = 2 sd^2 ((z_0.975 + z_0.95) / (|ln SHARE| - |ln 0.95|))^2, divided by
# 3/pi, the asymptotic relative efficiency of the Hodges-Lehmann shift
# under normal noise (Lehmann, Nonparametrics, 1975, ch. 2): a throttle
# also flattens the slowed side, so the pairs need about half of that; a
# Benjamini-Hochberg level below 0.05 needs more.
python3 - "$work/calibrate.json" "$share" <<'PY'
import json, math, statistics, sys
d = json.load(open(sys.argv[1]))
gap = abs(math.log(float(sys.argv[2]))) - abs(math.log(0.95))
for l in d["storage_bandwidth"]:
    trials = [t["iops"] for t in l.get("trials", [])]
    if l["block_size_bytes"] != 4096 or l["jobs"] != 1 or len(trials) < 3:
        continue
    sd = statistics.stdev(math.log(t) for t in trials)
    need = "any number" if gap <= 0 else f"{math.ceil(2 * sd * sd * (math.pi / 3) * ((1.96 + 1.645) / gap) ** 2)}"
    print(f" 4k 1-job {l['direction']}: {len(trials)} trials, sd of log IO/s {sd:.3f}; "
          f"a {100 * (1 - float(sys.argv[2])):.0f} % shift needs ~{need} trials a side")
PY
rounds io "$cg" "$delay" "${io[@]}"
for line in "Writes ( 1 thread[s]) IO/s" "Reads  ( 1 thread[s]) IO/s"; do
    echo " [ 4k ] $line, $side reports a side:"
    analyse power "4k blocks ] $line" "$work"/io-side-r*.cmp
    echo " one report a side:"
    analyse power "4k blocks ] $line" "$work"/io-pair-r*.cmp
done
fi
