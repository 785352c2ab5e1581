#!/usr/bin/env bash
# DRAM bandwidth of quickbench's extended report (examples/dram.rs) against
# `sysbench memory` (1G blocks), `mbw` and a STREAM-like C reference
# (benches/stream_ref.c, OpenMP, gcc -O3 -march=native, huge pages, cached
# and non-temporal stores), with 1 thread and with all CPUs, the tools
# alternated ROUNDS times, best figure of each kept.
#
# Usage: benches/membw-vs-sysbench.sh [ROUNDS (3)] [SECONDS per run (5)]
#
# Units: GB/s = 10^9 bytes/s, STREAM's counting (copy 16 B/element, read +
# write; triad 24 B/element; no write-allocate counted).
# - mbw reports MiB copied per second (the array size once): converted to
#   STREAM's counting as 2 x MiB/s x 1.048576 / 1000. mbw is single-threaded.
# - sysbench memory writes (or reads) 1 GiB blocks, one per thread: it counts
#   bytes written (read), converted MiB/s x 1.048576 / 1000. It is not a copy
#   or a triad: shown for context, and in "best of all".
# Target: quickbench >= 0.95 x the best comparable figure (copy vs
# stream_ref copy and mbw; triad vs stream_ref triad).
set -euo pipefail

ROUNDS=${1:-3}
SECS=${2:-5}
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

need() {
    local missing=()
    for p in "$@"; do command -v "$p" >/dev/null || missing+=("$p"); done
    if ((${#missing[@]})); then
        echo "installing ${missing[*]}" >&2
        apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}
need sysbench mbw gcc

cargo build --release --example dram -q
QB=target/release/examples/dram
gcc -O3 -march=native -fopenmp benches/stream_ref.c -o "$WORK/stream_ref"
NT_OK=0
if [ "$(uname -m)" = x86_64 ]; then
    gcc -O3 -march=native -fopenmp -DUSE_NT benches/stream_ref.c -o "$WORK/stream_ref_nt"
    NT_OK=1
fi

NCPU=$(nproc)
num() { grep -o "\"$1\": *[0-9.e+-]*" | head -1 | sed 's/.*: *//' | awk '{ printf "%.3f", $1 }'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 > a + 0) ? b : a }'; }

# The array size quickbench picks (4 x LLC, >= 256 MiB, capped): use it for all.
PLAN_JSON=$($QB --threads 1 --budget 0 --array-mib 1)
MIB=$(( $(echo "$PLAN_JSON" | grep -o '"array_bytes": *[0-9]*' | head -1 | sed 's/.*: *//') >> 20 ))
echo "arrays: ${MIB} MiB each; note: $(echo "$PLAN_JSON" | grep -o '"note": *[^,]*' | head -1)" >&2

declare -A BEST
put() { BEST[$1]=$(max "${BEST[$1]:-}" "$2"); }

for T in 1 "$NCPU"; do
    for ((r = 1; r <= ROUNDS; r++)); do
        echo "threads $T, round $r/$ROUNDS" >&2
        j=$($QB --threads "$T" --budget "$SECS" --array-mib "$MIB")
        put "qb_copy_$T" "$(echo "$j" | num copy_gb_per_s)"
        put "qb_triad_$T" "$(echo "$j" | num triad_gb_per_s)"

        j=$(OMP_NUM_THREADS=$T OMP_PROC_BIND=close OMP_PLACES=cores "$WORK/stream_ref" "$MIB" 5)
        put "ref_copy_$T" "$(echo "$j" | num copy_gb_per_s)"
        put "ref_triad_$T" "$(echo "$j" | num triad_gb_per_s)"
        if ((NT_OK)); then
            j=$(OMP_NUM_THREADS=$T OMP_PROC_BIND=close OMP_PLACES=cores "$WORK/stream_ref_nt" "$MIB" 5)
            put "refnt_copy_$T" "$(echo "$j" | num copy_gb_per_s)"
            put "refnt_triad_$T" "$(echo "$j" | num triad_gb_per_s)"
        fi

        for op in write read; do
            mibs=$(sysbench memory --memory-block-size=1G --memory-total-size=1000G \
                --memory-oper=$op --threads="$T" --time="$SECS" run |
                sed -n 's/.*transferred (\([0-9.]*\) MiB\/sec).*/\1/p')
            put "sb_${op}_$T" "$(awk -v m="$mibs" 'BEGIN { printf "%.3f", m * 1.048576 / 1000 }')"
        done

        if [ "$T" = 1 ]; then
            mibs=$(mbw -n 5 -t0 "$MIB" | awk '/Method: MEMCPY/ && !/AVG/ { for (i = 1; i <= NF; i++) if ($i == "Copy:") print $(i+1) }' | sort -g | tail -1)
            put "mbw_copy_1" "$(awk -v m="$mibs" 'BEGIN { printf "%.3f", 2 * m * 1.048576 / 1000 }')"
        fi
    done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
echo
echo "DRAM bandwidth, GB/s (10^9 B/s, STREAM counting), best of $ROUNDS alternated rounds, arrays ${MIB} MiB"
printf "%-8s %-30s %10s\n" threads tool GB/s
for T in 1 "$NCPU"; do
    row() { printf "%-8s %-30s %10s\n" "$T" "$1" "${2:--}"; }
    row "quickbench copy" "${BEST[qb_copy_$T]}"
    row "stream_ref copy (cached)" "${BEST[ref_copy_$T]}"
    ((NT_OK)) && row "stream_ref copy (non-temporal)" "${BEST[refnt_copy_$T]}"
    [ "$T" = 1 ] && row "mbw memcpy (x2: STREAM count)" "${BEST[mbw_copy_1]}"
    row "quickbench triad" "${BEST[qb_triad_$T]}"
    row "stream_ref triad (cached)" "${BEST[ref_triad_$T]}"
    ((NT_OK)) && row "stream_ref triad (non-temporal)" "${BEST[refnt_triad_$T]}"
    row "sysbench memory write 1G" "${BEST[sb_write_$T]}"
    row "sysbench memory read 1G" "${BEST[sb_read_$T]}"
done
echo
echo "Ratios (quickbench / best comparable; target >= 0.95)"
for T in 1 "$NCPU"; do
    bc=$(max "${BEST[ref_copy_$T]}" "${BEST[refnt_copy_$T]:-0}")
    [ "$T" = 1 ] && bc=$(max "$bc" "${BEST[mbw_copy_1]}")
    bt=$(max "${BEST[ref_triad_$T]}" "${BEST[refnt_triad_$T]:-0}")
    ball=$(max "$(max "$bc" "$bt")" "$(max "${BEST[sb_write_$T]}" "${BEST[sb_read_$T]}")")
    printf "%2s thread(s): copy %s (vs %s)  triad %s (vs %s)  best-qb/best-of-all %s (vs %s)\n" \
        "$T" "$(ratio "${BEST[qb_copy_$T]}" "$bc")" "$bc" \
        "$(ratio "${BEST[qb_triad_$T]}" "$bt")" "$bt" \
        "$(ratio "$(max "${BEST[qb_copy_$T]}" "${BEST[qb_triad_$T]}")" "$ball")" "$ball"
done
