#!/usr/bin/env bash
# How long `quickbench compare` takes over a fleet of JSON reports, and
# its peak memory: one stand-in report with trials (`--repeat 6`), copied
# N times under other host names with every figure of every trial and
# sample perturbed, then the fleet table, the fleet page and the JSON
# comparison, timed with /usr/bin/time -v.
# Goals: 200 reports under 0.5 s, 1,000 under 2.5 s, under 200 MB.
# Usage: benches/compare-fleet.sh [N...]   (default: 200 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(200 1000)
cargo build --release --quiet
bin=$PWD/target/release/quickbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A small host for the stand-in (nothing measured, nothing written).
root=$work/root
mkdir -p "$root/proc/sys/kernel" "$root/proc/self" "$root/sys/devices/system/cpu" \
    "$root/sys/block/vda" "$root/sys/class/block/vda"
for c in 0 1; do
    printf 'processor\t: %s\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nphysical id\t: 0\ncore id\t\t: %s\ncpu cores\t: 2\n\n' $c $c
done > "$root/proc/cpuinfo"
printf 'MemTotal:       24683584 kB\nMemAvailable:   20000000 kB\n' > "$root/proc/meminfo"
echo Linux > "$root/proc/sys/kernel/ostype"
echo node > "$root/proc/sys/kernel/hostname"
echo 6.18.44 > "$root/proc/sys/kernel/osrelease"
echo '#1 SMP' > "$root/proc/sys/kernel/version"
echo x86_64 > "$root/proc/sys/kernel/arch"
echo '22 1 254:0 / / rw,relatime - ext4 /dev/vda rw' > "$root/proc/self/mountinfo"
for f in possible present online; do echo 0-1 > "$root/sys/devices/system/cpu/$f"; done
for d in block class/block; do
    echo 536870912 > "$root/sys/$d/vda/size"
    echo 254:0 > "$root/sys/$d/vda/dev"
done
"$bin" --sysroot "$root" --stand-in --dir / 1 --repeat 6 --json > "$work/base.json" 2>/dev/null
max=$(printf '%s\n' "${sizes[@]}" | sort -n | tail -1)
python3 - "$work" "$max" <<'PY'
import json, random, sys
work, n = sys.argv[1], int(sys.argv[2])
base = json.load(open(f"{work}/base.json"))
random.seed(1)
# Every figure a comparison reads, in the step and in each trial, and the
# samples: scaled by one factor per host and line, with trial noise.
FIGS = ("loops_per_s_mean", "mb_per_s", "iops", "lat_mean_us")
def perturb(step, k):
    for key in FIGS:
        if key in step:
            step[key] *= k * random.uniform(0.97, 1.03)
    if "loops_per_s_each" in step:
        step["loops_per_s_each"] = [v * k for v in step["loops_per_s_each"]]
    if "bytes" in step:
        step["bytes"] = int(step["bytes"] * k * random.uniform(0.97, 1.03))
    if step.get("samples"):
        step["samples"] = [v * k * random.uniform(0.9, 1.1) for v in step["samples"]]
text = json.dumps(base)
for i in range(n):
    d = json.loads(text)
    d["hostname"] = f"node{i:04d}"
    steps = d["cpu_loop"] + d["storage_bandwidth"] + [d["memory"]["dd_bandwidth"]]
    for s in steps:
        k = random.uniform(0.7, 1.1)
        perturb(s, k)
        for t in s.get("trials", []):
            perturb(t, k)
    json.dump(d, open(f"{work}/node{i:04d}.json", "w"))
PY
echo "one report: $(wc -c < "$work/node0000.json") bytes, --repeat 6"
for n in "${sizes[@]}"; do
    files=()
    for ((i = 0; i < n; i++)); do files+=("$(printf '%s/node%04d.json' "$work" "$i")"); done
    for mode in --table "--html -" --json; do
        # shellcheck disable=SC2086
        /usr/bin/time -v "$bin" compare $mode "${files[@]}" > "$work/out" 2> "$work/time"
        wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
        user=$(sed -n 's/.*User time (seconds): //p' "$work/time")
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
        echo "compare $mode over $n reports: $wall wall, $user s CPU (user), $((rss / 1024)) MB peak, $(wc -l < "$work/out") lines"
    done
done
