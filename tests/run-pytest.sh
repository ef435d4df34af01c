#!/bin/sh
# The Python package's pytest suite (python/tests) against this build tree's libvotecl, as
# one TAP test: skipped where no Python 3 with NumPy and pytest is found.
# Arguments from tests/tap-test (--tap -k) are ignored.
. "$(dirname "$0")/pytest-tap.sh"
pytest_tap python/tests
