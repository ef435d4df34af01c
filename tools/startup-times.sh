#!/bin/bash
# Start-up times of the votecl subcommands, each a new process (docs/performance.md,
# "Start-up"): cold (empty VOTECL_CACHE_DIR and POCL_CACHE_DIR for every command), or warm
# (one `votecl warmup` on empty caches first, then every command on those caches).
# usage: tools/startup-times.sh [VOTECL] [cold|warm] [-- extra votecl options, e.g. --backend cuda]
# Run from a source tree (it reads tools/images); with CUDA also set CUDA_CACHE_DISABLE=1.
V=${1:-votecl}
mode=${2:-cold}
shift 2 2>/dev/null
[ "$1" = "--" ] && shift
I=tools/images
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cmds=(
    "hist $I/building.png"
    "hough $I/building.png"
    "lines $I/building.png"
    "hog $I/basketball1.png"
    "ght $I/templ.png $I/pic1.png"
    "ght $I/templ.png $I/pic1.png --method ballard"
)
fresh() {
    VOTECL_CACHE_DIR=$(mktemp -d -p "$tmp") POCL_CACHE_DIR=$(mktemp -d -p "$tmp")
    export VOTECL_CACHE_DIR POCL_CACHE_DIR
}
one() {
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$V" -q "$@" >/dev/null
    local rc=$?
    read -r e u s <"$tmp/time"
    printf "%-52s wall %6.2f s  cpu %6.2f s  rc %d  load %s\n" "$*" "$e" \
        "$(echo "$u + $s" | bc)" "$rc" "$(cut -d' ' -f1 /proc/loadavg)"
}
echo "# $(date -u +%FT%TZ) $mode, load $(cut -d' ' -f1-3 /proc/loadavg), $V $*"
[ "$mode" = warm ] && fresh && one warmup "$@"
for c in "${cmds[@]}"; do
    [ "$mode" = cold ] && fresh
    # shellcheck disable=SC2086
    one $c "$@"
done
