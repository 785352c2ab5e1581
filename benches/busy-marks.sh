#!/usr/bin/env bash
# Busy-host marks (issues 15 and 19): how often quiet runs get a mark they
# should not (false-mark rate) and how often busy runs get the mark they
# should (detection rate). A script, not a timed test.
#
#   benches/busy-marks.sh [RUNS=10] [DELAY=1]
#
# Each run is the CPU loop of `quickbench DELAY --only cpu --json`; the
# marks are read from the key `marks` of each `cpu_loop` step, the figures
# (when present) from `load.cpu.others_percent_of_needed` and
# `load.cpu.steal_percent`.
#
# QB_MARKS_FROM=binary (default) runs target/release/quickbench: this needs
# the report to carry the marks in its JSON (wired by the report layer; until
# then every run counts as unmarked and the script says so).
# QB_MARKS_FROM=example runs the library stand-in
# `cargo run --release --example busy_marks -- DELAY`: the same steps with
# the same sampler (`quickbench::conditions::Sampler`) and the JSON
# shape above.
#
# Phases, RUNS runs each:
#  quiet  nothing started: every busy or steal mark is a false mark, unless
#         the host itself is busy (its load average is printed before the
#         phase: judge the figures against it);
#  noise  an idle server's background, started here: a shell that forks
#         `date` 20 times a second (a logging daemon, cron): must stay
#         unmarked too;
#  busy   one shell spinning on the last usable CPU for the whole run: each
#         step must be marked busy (detection rate).
# Needs jq (apt-get install -y jq) and taskset (util-linux).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
delay=${2:-1}
from=${QB_MARKS_FROM:-binary}

command -v jq >/dev/null || { echo "jq missing: apt-get install -y jq" >&2; exit 1; }
command -v taskset >/dev/null || { echo "taskset missing: apt-get install -y util-linux" >&2; exit 1; }

case $from in
binary)
    cargo build --release --locked --quiet
    run_once() { target/release/quickbench "$delay" --only cpu --json 2>/dev/null; }
    ;;
example)
    cargo build --release --locked --quiet --example busy_marks
    run_once() { target/release/examples/busy_marks "$delay"; }
    ;;
*) echo "QB_MARKS_FROM must be binary or example" >&2; exit 1 ;;
esac

helpers=()
cleanup() { for p in "${helpers[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

last_cpu=$(( $(nproc) - 1 ))

# phase NAME: RUNS runs; prints one line per step and the phase's rates.
phase() {
    local name=$1 steps=0 busy=0 steal=0 other=0 have_marks=0 out
    echo "== $name: load average $(cut -d' ' -f1-3 /proc/loadavg)"
    for i in $(seq "$runs"); do
        out=$(run_once)
        if jq -e '[.cpu_loop[]? | has("marks")] | any' >/dev/null <<<"$out"; then
            have_marks=1
        fi
        while IFS=$'\t' read -r jobs kinds others st; do
            steps=$((steps + 1))
            [[ $kinds == *busy* ]] && busy=$((busy + 1))
            [[ $kinds == *steal* ]] && steal=$((steal + 1))
            [[ $kinds != - && $kinds != *busy* && $kinds != *steal* ]] && other=$((other + 1))
            printf 'run %2d  %2s jobs  others %6s %% of needed  steal %5s %%  marks [%s]\n' \
                "$i" "$jobs" "$others" "$st" "$kinds"
        done < <(jq -r '.cpu_loop[] | [.jobs, ([.marks[]?.kind] | join(",") | if . == "" then "-" else . end),
            ((.load.cpu.others_percent_of_needed // "?") | if type == "number" then (. * 10 | round / 10) else . end),
            ((.load.cpu.steal_percent // "?") | if type == "number" then (. * 10 | round / 10) else . end)] | @tsv' <<<"$out")
    done
    if (( ! have_marks )); then
        echo "$name: no step carries a \"marks\" key: the binary does not emit them yet (QB_MARKS_FROM=example measures the library)"
    fi
    awk -v n="$name" -v s="$steps" -v b="$busy" -v t="$steal" -v o="$other" 'BEGIN {
        if (s == 0) { printf "%s: no steps\n", n; exit }
        printf "%s: %d steps, busy-marked %d (%.0f %%), steal-marked %d (%.0f %%), other marks %d\n",
            n, s, b, 100 * b / s, t, 100 * t / s, o }'
}

phase quiet

( while :; do date >/dev/null; sleep 0.05; done ) &
helpers+=($!)
phase noise
cleanup
helpers=()

taskset -c "$last_cpu" sh -c 'while :; do :; done' &
helpers+=($!)
sleep 0.2
phase busy
echo "false-mark rate: the busy-marked share of quiet and noise; detection rate: the busy-marked share of busy"
