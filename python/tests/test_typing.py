"""The package's modules pass mypy --strict (issue 25.6), where mypy is installed (Debian:
apt-get install mypy): the algorithms' modules (_modules.ALGORITHMS) with the rest."""
import os
import subprocess
import sys

import pytest

import votecl

TYPED = ["_errors.py", "_lifetime.py", "_cache.py", "_validate.py", "_numpy.py", "_core.py",
         "_lib.py", "__init__.py", "_modules.py", "_helpers.py", "_batch.py"] + \
    ["_%s.py" % name for name in votecl._modules.ALGORITHMS]


def test_typed_modules_pass_mypy_strict():
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("no mypy (apt-get install mypy)")
    here = os.path.dirname(os.path.abspath(votecl.__file__))
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                        "--no-incremental", "--cache-dir", os.devnull]
                       + [os.path.join(here, f) for f in TYPED],
                       capture_output=True, text=True, cwd=os.path.dirname(here), timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


def test_public_callables_have_docstrings():
    missing = []
    for name in votecl.__all__:
        obj = getattr(votecl, name)
        if callable(obj) and not (obj.__doc__ or "").strip():
            missing.append(name)
        for attr, value in vars(obj).items() if isinstance(obj, type) else ():
            if not attr.startswith("_") or attr == "__call__":
                f = value.fget if isinstance(value, property) else value
                if callable(f) and not (getattr(f, "__doc__", None) or "").strip():
                    missing.append("%s.%s" % (name, attr))
    assert missing == []
