"""python/README.md's list of the C functions without a binding is what gen_unbound.py makes
of the headers and the package now (it stops when a function has no reason given)."""
import os
import subprocess
import sys

import pytest

PYTHON = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREE = os.path.dirname(PYTHON)


def test_readme_lists_the_unbound_functions():
    headers = os.path.join(os.environ.get("VOTECL_TEST_SRCDIR", os.path.join(TREE, "tests")),
                           "..", "include", "votecl")
    if not os.path.isdir(headers):
        pytest.skip("no headers beside the package")
    r = subprocess.run([sys.executable, os.path.join(PYTHON, "gen_unbound.py"), headers],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(PYTHON, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert r.stdout.strip() in readme, \
        "python/README.md is stale: python3 python/gen_unbound.py include/votecl " \
        "--update python/README.md"
