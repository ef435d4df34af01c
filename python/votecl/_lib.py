"""Finding libvotecl and declaring its functions for ctypes (the prototypes are generated
from the headers into _protos.py by python/gen_protos.py).

The library is found, in order, through:
  1. the VOTECL_LIBRARY environment variable (a path to libvotecl.so*);
  2. the copy bundled into the package by `pip install ./python` where no libvotecl was
     installed (votecl/_bundled/, made by setup.py), with its kernels;
  3. ctypes.util.find_library("votecl") (the installed library in the linker's path);
  4. pkg-config --variable=libdir votecl (an installed prefix outside the linker's path);
  5. the build tree this package sits in (python/ beside lib/.libs/), for `make check`.
With the bundle, contexts get its kernels as their kernel_path option (VOTECL_KERNEL_PATH is
searched before them, file by file); from a build tree, its cl/ unless VOTECL_KERNEL_PATH is
set.

The per-call path of the hot calls goes through the compiled module votecl._fast where it
was built (setup.py; in a build tree, `make check` builds python/_fast.abi3.so beside lib/):
`fast` is that module bound to this library, or None (ctypes then; VOTECL_PYTHON_FAST=0
forces it).
"""
import ctypes
import ctypes.util
import glob
import os
import subprocess
import sys
from types import ModuleType
from typing import Any, Iterator, Optional, Tuple

from ._protos import FUNCTIONS

_HERE = os.path.dirname(os.path.abspath(__file__))
_TREE = os.path.dirname(os.path.dirname(_HERE))
_BUNDLE = os.path.join(_HERE, "_bundled")


def _candidates() -> Iterator[Tuple[str, Optional[str]]]:
    env = os.environ.get("VOTECL_LIBRARY")
    if env:
        yield env, None
        return
    for bundled in sorted(glob.glob(os.path.join(_BUNDLE, "libvotecl.so.*"))):
        yield bundled, os.path.join(_BUNDLE, "kernels")
    found = ctypes.util.find_library("votecl")
    if found:
        yield found, None
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "votecl"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        libdir = ""
    if libdir:
        yield os.path.join(libdir, "libvotecl.so.0"), None
        yield os.path.join(libdir, "libvotecl.so"), None
    for build in (_TREE, os.environ.get("VOTECL_BUILDDIR", "")):
        if build:
            yield os.path.join(build, "lib", ".libs", "libvotecl.so"), os.path.join(_TREE, "cl")


def _load() -> Tuple[ctypes.CDLL, str, Optional[str]]:
    tried = []
    for path, kernels in _candidates():
        try:
            return ctypes.CDLL(path), path, kernels
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("libvotecl not found; tried: %s. Install it (make install), reinstall "
                      "this package from libvotecl's source tree (pip install ./python builds "
                      "and bundles it) or set VOTECL_LIBRARY to the path of libvotecl.so"
                      % ("; ".join(tried) or "nothing"))


lib, path, tree_kernels = _load()  # tree_kernels: the build tree's or the bundle's kernels
if tree_kernels is not None and not os.path.isdir(tree_kernels):
    tree_kernels = None
bundled = path.startswith(_BUNDLE + os.sep)


def default_kernel_path() -> Optional[str]:
    """The kernel_path contexts get when the caller gives none: the bundle's kernels always
    (VOTECL_KERNEL_PATH is searched before them, file by file, as before an installed
    library's), the build tree's only when VOTECL_KERNEL_PATH is unset (make check sets it to
    the same cl/)."""
    if tree_kernels is None or (not bundled and os.environ.get("VOTECL_KERNEL_PATH")):
        return None
    return tree_kernels


class _Functions:
    """The declared functions as attributes (missing ones raise AttributeError on use)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError("libvotecl at %s has no votecl_%s (an older library?)"
                             % (path, name))


fn = _Functions()
for _name, (_restype, _argtypes) in FUNCTIONS.items():
    try:
        _f = getattr(lib, _name)
    except AttributeError:
        continue  # an older library: the Python call that needs it says so
    _f.restype = _restype
    _f.argtypes = _argtypes
    setattr(fn, _name[len("votecl_"):], _f)


def _tree_fast() -> Optional[ModuleType]:
    """The extension `make` built in the build tree of the loaded library (lib/.libs/)."""
    import importlib.machinery
    import importlib.util
    libs = os.path.dirname(os.path.abspath(path))
    if os.path.basename(libs) != ".libs":
        return None
    so = os.path.join(os.path.dirname(os.path.dirname(libs)), "python", "_fast.abi3.so")
    if not os.path.exists(so):
        return None
    loader = importlib.machinery.ExtensionFileLoader("votecl._fast", so)
    spec = importlib.util.spec_from_file_location("votecl._fast", so, loader=loader)
    if spec is None:
        return None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _load_fast() -> Optional[ModuleType]:
    """votecl._fast bound to this library, or None (not built, or forced off)."""
    if os.environ.get("VOTECL_PYTHON_FAST", "1") == "0" or sys.version_info < (3, 11):
        return None  # built for the stable ABI of 3.11
    module: Optional[ModuleType]
    try:
        from . import _fast as module  # type: ignore[attr-defined,no-redef]
    except ImportError:
        try:
            module = _tree_fast()
        except ImportError:
            return None
    if module is None or not hasattr(lib, "votecl_hist_run"):
        return None
    module.bind(ctypes.cast(lib.votecl_hist_run, ctypes.c_void_p).value)
    return module


fast = _load_fast()
