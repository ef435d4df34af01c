#!/bin/bash
# The README's quick start: install the Debian/Ubuntu packages, build, test or run the demo.
#
#   tools/quickstart.sh deps        install the packages (apt is skipped when all are present)
#   tools/quickstart.sh test [ARGS] deps, then autogen, configure --enable-cuda ARGS, make,
#                                   make check; the output is kept in make-check.log
#   tools/quickstart.sh demo [ARGS] deps, build (configuring only when not yet configured),
#                                   then votecl demo on tools/images with the source kernels
#   tools/quickstart.sh packages    print the package list (used by .ci/run)
set -euo pipefail

cd "$(dirname "$0")/.."

# PoCL gives every machine an OpenCL CPU device, so make check runs its device tests
# without a GPU; python3-numpy and python3-opencv are the CPU peers of votecl bench;
# python3-dev's headers build the Python package's compiled per-call path (python/votecl/_fast.c);
# clang, libclang-rt-14-dev (ASan, UBSan, libFuzzer) and valgrind serve the hardening
# checks of docs/reliability.md; clang-14 and libclc-14 (its OpenCL built-ins for AMD and
# NVIDIA GPUs) the offline kernel builds of docs/offline-builds.md; python3-venv, python3-pip
# and python3-wheel let pip build and install python/ offline in a venv (make check-wheel);
# doxygen and python3-sphinx build the reference manual (make doc, make check-doc).
PACKAGES=(
    build-essential autoconf automake libtool autoconf-archive pkg-config
    libglib2.0-dev ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
    libpng-dev libjpeg62-turbo-dev python3 python3-numpy python3-opencv python3-skimage
    python3-pytest python3-setuptools python3-wheel python3-pip python3-venv python3-dev
    clang libclang-rt-14-dev valgrind clang-14 libclc-14
    libavformat-dev libavcodec-dev libswscale-dev libavutil-dev ffmpeg libopenmpi-dev openmpi-bin
    doxygen python3-sphinx
)

CHECK_LOG=make-check.log

usage() {
    sed -n '2,9s/^# \{0,1\}//p' "$0" >&2
    exit "${1:-2}"
}

missing_packages() {
    local p
    for p in "${PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed; then
            echo "$p"
        fi
    done
}

deps() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "quickstart: no dpkg-query here; install these packages by hand:" >&2
        echo "  ${PACKAGES[*]}" >&2
        return 0
    fi
    local missing
    missing=$(missing_packages)
    if [ -z "$missing" ]; then
        echo "quickstart: all packages already installed"
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        sudo=(sudo)
    fi
    echo "quickstart: installing ${missing//$'\n'/ }"
    "${sudo[@]}" apt-get update
    # shellcheck disable=SC2086 # one word per package
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends $missing
}

configure_and_build() {
    ./autogen.sh
    ./configure "$@"
    make -j2
}

run_tests() {
    deps
    # The CUDA backend needs no CUDA to build (it loads the driver at run time), so the tests
    # always build it; its /cuda tests skip where there is no NVIDIA GPU.
    configure_and_build --enable-cuda "$@"
    echo "quickstart: make check (log in $CHECK_LOG)"
    make -j2 check 2>&1 | tee "$CHECK_LOG"
}

run_demo() {
    deps
    if [ -f Makefile ] && [ -x config.status ]; then
        make -j2
    else
        configure_and_build "$@"
    fi
    VOTECL_KERNEL_PATH="$PWD/cl" ./tools/votecl demo --images tools/images
}

[ $# -ge 1 ] || usage
command=$1
shift
case "$command" in
    deps) deps ;;
    test) run_tests "$@" ;;
    demo) run_demo "$@" ;;
    packages) printf '%s\n' "${PACKAGES[@]}" ;;
    -h|--help|help) usage 0 ;;
    *) echo "quickstart: unknown command '$command'" >&2; usage ;;
esac
