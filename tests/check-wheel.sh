#!/bin/sh
# make check-wheel: the Python package as a user installs it (issue 25). In a fresh venv of
# Debian's python3 (--system-site-packages: its NumPy, setuptools, wheel and pytest), pip
# builds a wheel of python/ offline (--no-index, --no-build-isolation), bundling this build
# tree's libvotecl and the source tree's kernels (python/setup.py, VOTECL_BUNDLE=1), installs
# it, and runs python/tests against the installed copy from outside both trees, with no
# VOTECL_LIBRARY, VOTECL_KERNEL_PATH or LD_LIBRARY_PATH: only the bundle can be loaded.
#
#   tests/check-wheel.sh SRCDIR BUILDDIR [PYTHON]     PYTHON: default /usr/bin/python3
#
# Another python3 first on PATH is never used unless given: a venv of one without NumPy
# would need NumPy from the network (2.x, which Debian's cv2 cannot load).
set -eu

srcdir=$(cd "$1" && pwd)
builddir=$(cd "$2" && pwd)
python=${3:-/usr/bin/python3}

say() {
    echo "check-wheel: $*"
}

if ! "$python" -c 'import numpy, pytest, setuptools, wheel, venv, ensurepip' 2>/dev/null; then
    say "$python lacks NumPy, pytest, setuptools, wheel or venv: apt-get install python3-numpy" \
        "python3-pytest python3-setuptools python3-wheel python3-venv python3-pip," \
        "or give PYTHON_FOR_WHEEL=a python3 that has them" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/votecl-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset VOTECL_LIBRARY VOTECL_KERNEL_PATH LD_LIBRARY_PATH PYTHONPATH PYTHONHOME
VOTECL_CACHE_DIR=${VOTECL_CHECK_CACHE_DIR:-$builddir/tests/cache}
VOTECL_POCL_BINARIES=1
export VOTECL_CACHE_DIR VOTECL_POCL_BINARIES

"$python" -m venv --system-site-packages "$work/env"
# A copy of python/, so that pip's in-tree build leaves nothing in the source tree.
mkdir "$work/python"
(cd "$srcdir/python" && tar -cf - --exclude=build --exclude='*.egg-info' \
    --exclude=__pycache__ .) | (cd "$work/python" && tar -xf -)
# --isolated: no pip configuration or PIP_* variables (an index or find-links) reach it.
VOTECL_BUNDLE=1 VOTECL_BUILDDIR=$builddir "$work/env/bin/pip" --isolated wheel -q \
    --no-deps --no-index -w "$work/dist" "$work/python"
wheel_file=$(ls "$work"/dist/votecl-*.whl)
say "built $(basename "$wheel_file") ($(wc -c <"$wheel_file") bytes)"
"$work/env/bin/pip" --isolated install -q --no-index "$wheel_file"

cd "$work"
"$work/env/bin/python" - "$work/env" "$wheel_file" <<'EOF'
import sys, zipfile
import numpy as np
import votecl
import votecl._lib as L
env, wheel = sys.argv[1], sys.argv[2]
names = zipfile.ZipFile(wheel).namelist()
for want in ("votecl/_bundled/libvotecl.so.0", "votecl/_bundled/kernels/histogram.cl",
             "votecl/_bundled/kernels/prelude.h", "votecl/_bundled/kernels/hog-people.model"):
    assert want in names, "%s not in the wheel" % want
assert "-none-any" not in wheel, "a wheel with a library is tagged for any platform"
assert votecl.__file__.startswith(env), votecl.__file__
assert L.path.startswith(env) and L.tree_kernels.startswith(env), (L.path, L.tree_kernels)
counts, edges = votecl.histogram(np.arange(256, dtype=np.uint8), 8, (0, 256))
assert counts.tolist() == [32] * 8, counts
print("check-wheel: votecl from %s, libvotecl %s, kernels %s" % (votecl.__file__, L.path,
                                                                 L.tree_kernels))
EOF
VOTECL_TEST_INSTALLED=1 "$work/env/bin/python" -m pytest -q -p no:cacheprovider \
    "$srcdir/python/tests"
say "python/tests passed against the installed wheel"
