#!/bin/sh
# The peers' own test cases, ported (tests/peers: scikit-image's and OpenCV's suites calling
# libvotecl through the Python package), as one TAP test on every backend present. Each case
# passes or is a strict xfail naming its docs/conventions.md row or the missing feature; the
# cases of a peer whose Python package is absent (cv2, skimage) are skipped with that reason.
# Skipped where no Python 3 with NumPy and pytest is found. VOTECL_PEERS_SLOW=1 adds the
# cases marked slow. Arguments from tests/tap-test (--tap -k) are ignored.
. "$(dirname "$0")/pytest-tap.sh"
pytest_tap tests/peers -rfs
