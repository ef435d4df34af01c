"""Tests import the package from this source tree (python/), not an installed copy, unless
VOTECL_TEST_INSTALLED is set."""
import os
import sys

if not os.environ.get("VOTECL_TEST_INSTALLED"):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
