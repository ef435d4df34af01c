"""Tests import the package from this source tree (python/), not an installed copy, unless
VOTECL_TEST_INSTALLED is set."""
import os
import sys

if not os.environ.get("VOTECL_TEST_INSTALLED"):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pytest

import votecl


@pytest.fixture(scope="module")
def ctx():
    """An OpenCL context for a test module (PoCL in CI), closed after it; the module's tests
    are skipped where there is no OpenCL device."""
    try:
        c = votecl.Context(backend="opencl")
    except votecl.VoteclError as e:
        pytest.skip("no OpenCL device: %s" % e)
    yield c
    c.close()


@pytest.fixture(scope="module")
def ref():
    """The 'ref' backend (the sequential references) for a test module."""
    return votecl.Context(backend="ref")
