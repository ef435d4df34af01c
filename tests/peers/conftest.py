"""The peers' own test cases (scikit-image 0.19, OpenCV 4.x, opencv_contrib) ported to call
libvotecl through its Python package, on every backend present (tests/peers/README).

Each case has one of three outcomes: it passes; it is a strict xfail naming the row of
docs/conventions.md that explains the difference (convention()); or a strict xfail naming
the feature libvotecl lacks (missing()). issue23(n) marks the cases that fail today because
of issue 23's item n, fixed elsewhere: when the fix merges, the case passes, the strict xfail
reports XPASS as a failure, and the mark comes off."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
if not os.environ.get("VOTECL_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(TOP, "python"))

import votecl  # noqa: E402

IMAGES = os.path.join(TOP, "tools", "images")

# Keywords that give OpenCV's theta-rho Hough: its rho grid and peak rule, no merging of near
# lines (issue 23 item 4; docs/conventions.md, rows "Rho grid" and "Peak rule").
OPENCV_HOUGH = {"rho_grid": "opencv", "peak_rule": "opencv", "merge_distance": 0}

# Issue 23's items fixed: their cases are plain cases again (the mark only names the item).
ISSUE23_FIXED = {1, 2, 4, 5}


def convention(row):
    """A documented difference: docs/conventions.md, the row named."""
    return pytest.mark.xfail(strict=True, reason="convention: docs/conventions.md, " + row)


def missing(feature):
    """A feature libvotecl lacks."""
    return pytest.mark.xfail(strict=True, reason="missing feature: " + feature)


def issue23(item):
    """A case of issue 23's item: a strict xfail while the item is open."""
    if item in ISSUE23_FIXED:
        return pytest.mark.issue23(item)
    return pytest.mark.xfail(strict=True, reason="issue 23 item %d" % item)


def _context(backend):
    if backend not in votecl.backends():
        pytest.skip("libvotecl is built without the %s backend" % backend)
    try:
        return votecl.Context(backend=backend)
    except votecl.VoteclError as e:
        pytest.skip("no %s device: %s" % (backend, e))


_contexts = {}


@pytest.fixture(scope="session", params=["ref", "opencl", "cuda"])
def ctx(request):
    """A context on each backend present: ref, opencl, cuda (skipped where absent)."""
    if request.param not in _contexts:
        _contexts[request.param] = _context(request.param)
    return _contexts[request.param]


def pytest_configure(config):
    config.addinivalue_line("markers", "issue23(item): a case of issue 23's item")
    config.addinivalue_line("markers", "slow: long cases, run by make check-slow "
                            "(VOTECL_PEERS_SLOW=1)")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("VOTECL_PEERS_SLOW") or os.environ.get("VOTECL_TEST_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: VOTECL_PEERS_SLOW=1 (make check-slow) runs it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
