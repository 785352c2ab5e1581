#!/usr/bin/env bash
# The release packaging, used by .github/workflows/release.yml and by hand:
#
#   contrib/release/package.sh archive BINARY TARGET OUTDIR
#       OUTDIR/quickbench-VERSION-TARGET.tar.gz, holding the directory
#       quickbench-VERSION-TARGET/ with quickbench, quickbench.1,
#       complete/quickbench.bash, complete/_quickbench,
#       complete/quickbench.fish, schema/report.schema.json,
#       schema/compare.schema.json (README and `compare --help` point at
#       them), the user's docs README points at (docs/COMPARE.md,
#       INSTALL.md, KERNELS.md, MARKS.md, METHOD.md, READING.md,
#       TRACKING.md), README.md and LICENSE; and the bare
#       binary as OUTDIR/quickbench-VERSION-TARGET (what contrib/ansible's
#       quickbench_url downloads).
#   contrib/release/package.sh sums OUTDIR
#       OUTDIR/SHA256SUMS over every quickbench-* file there.
#
# The man page and the completion scripts are what the binary prints with
# --generate, so BINARY must run here (the workflow builds each target on
# its own architecture). For a cross-built BINARY, set QB_GENERATOR to a
# build of the same version that runs here: the text does not depend on
# the architecture. The archive is reproducible: its times are
# SOURCE_DATE_EPOCH (default: the last commit's time), owners 0, names
# sorted, gzip without name or time.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)

die() {
    echo "package.sh: $*" >&2
    exit 1
}

# The version a quickbench binary reports ("quickbench 0.1.0").
version_of() {
    local v
    v=$("$1" --version) || die "$1 does not run here; set QB_GENERATOR to a build that does"
    v=${v#quickbench }
    [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || die "$1 --version printed '$v', not a version"
    echo "$v"
}

archive() {
    [ $# = 3 ] || die "usage: package.sh archive BINARY TARGET OUTDIR"
    local bin=$1 target=$2 out=$3
    [ -f "$bin" ] || die "$bin: no such binary (build it first: cargo build --release --target $target)"
    local gen=${QB_GENERATOR:-$bin}
    local version
    version=$(version_of "$gen")
    if [ "$gen" != "$bin" ] && [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
        [ "$(version_of "$bin")" = "$version" ] || die "$bin and $gen are different versions"
    fi

    if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
        SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null) ||
            die "not in a git checkout: set SOURCE_DATE_EPOCH (seconds since 1970)"
    fi
    export SOURCE_DATE_EPOCH

    local name="quickbench-$version-$target"
    mkdir -p "$out"
    local stage
    stage=$(mktemp -d)
    # shellcheck disable=SC2064 # expand now: $stage is local
    trap "rm -rf '$stage'" EXIT
    local dir="$stage/$name"
    mkdir -p "$dir/complete" "$dir/schema" "$dir/docs"
    install -m 0755 "$bin" "$dir/quickbench"
    "$gen" --generate man >"$dir/quickbench.1"
    "$gen" --generate complete-bash >"$dir/complete/quickbench.bash"
    "$gen" --generate complete-zsh >"$dir/complete/_quickbench"
    "$gen" --generate complete-fish >"$dir/complete/quickbench.fish"
    install -m 0644 "$root/README.md" "$root/LICENSE" "$dir/"
    install -m 0644 "$root"/schema/*.schema.json "$dir/schema/"
    # The user's docs; ARCHITECTURE.md and TESTING.md are for contributors.
    local doc
    for doc in COMPARE INSTALL KERNELS MARKS METHOD READING TRACKING; do
        install -m 0644 "$root/docs/$doc.md" "$dir/docs/"
    done
    chmod 0644 "$dir/quickbench.1" "$dir"/complete/*
    chmod 0755 "$dir" "$dir/complete" "$dir/schema" "$dir/docs"

    tar --sort=name --owner=0 --group=0 --numeric-owner \
        --mtime="@$SOURCE_DATE_EPOCH" -C "$stage" -cf - "$name" |
        gzip -n >"$out/$name.tar.gz"
    install -m 0755 "$bin" "$out/$name"
    echo "$out/$name.tar.gz"
}

sums() {
    [ $# = 1 ] || die "usage: package.sh sums OUTDIR"
    local files
    files=$(cd "$1" && find . -maxdepth 1 -type f -name 'quickbench-*' -printf '%f\n' | LC_ALL=C sort)
    [ -n "$files" ] || die "$1 holds no quickbench-* file to sum"
    # shellcheck disable=SC2086 # one name a line, none with blanks
    (cd "$1" && sha256sum -- $files >SHA256SUMS)
    echo "$1/SHA256SUMS"
}

case "${1:-}" in
archive) shift; archive "$@" ;;
sums) shift; sums "$@" ;;
*) die "usage: package.sh archive BINARY TARGET OUTDIR | package.sh sums OUTDIR" ;;
esac
