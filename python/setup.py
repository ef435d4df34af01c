"""The package's metadata is in setup.cfg (no pyproject.toml: Debian's pip then builds in place,
offline, with Debian's setuptools and wheel); this file adds two build steps (issue 25):
the optional compiled per-call path votecl._fast (at the end), and this one:
`pip install ./python` on a machine without an installed libvotecl builds the library from
the source tree around python/ and bundles it, with its kernels, into the package
(votecl/_bundled/), so that `import votecl` needs nothing else installed.

The bundle is made when VOTECL_BUNDLE is 1, never when it is 0, and otherwise (unset or
"auto") when no libvotecl is found the way the package finds an installed one: VOTECL_LIBRARY,
ctypes.util.find_library("votecl"), pkg-config votecl. The library is built:
  - in VOTECL_BUILDDIR when it names a configured build tree (make check-wheel; the
    kernels then come from the source tree it was configured from), else
  - in the source tree itself when it is configured there (./configure run in place), else
  - out of tree in setuptools' build_temp: ./autogen.sh first for a git checkout, then
    configure --enable-cuda (the CUDA backend needs no CUDA at build time: it loads the driver
    with dlopen) with CC and CFLAGS from the environment, and make lib/libvotecl.la.
"""
import ctypes.util
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))

# --- libvotecl bundled into the package (kept apart from the rest for easy merging) ---

KERNEL_SUFFIXES = (".cl", ".h", ".model")  # what make install puts in $(pkgdatadir)/kernels


def _installed_library():
    """The installed libvotecl the package would load, or None."""
    if os.environ.get("VOTECL_LIBRARY"):
        return os.environ["VOTECL_LIBRARY"]
    found = ctypes.util.find_library("votecl")
    if found:
        return found
    try:
        done = subprocess.run(["pkg-config", "--exists", "votecl"], timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return "pkg-config votecl" if done.returncode == 0 else None


def bundle_wanted():
    """Whether this build bundles libvotecl (VOTECL_BUNDLE=1|0|auto, default auto)."""
    mode = os.environ.get("VOTECL_BUNDLE", "auto").strip().lower()
    if mode in ("1", "yes", "on"):
        return True
    if mode in ("0", "no", "off"):
        return False
    if mode not in ("", "auto"):
        sys.exit("VOTECL_BUNDLE=%s: give 1, 0 or auto" % mode)
    installed = _installed_library()
    if installed:
        print("votecl: using the installed libvotecl (%s); no bundle" % installed)
    return installed is None


def _run(argv, cwd):
    print("votecl: %s (in %s)" % (" ".join(argv), cwd), flush=True)
    try:
        subprocess.run(argv, cwd=cwd, check=True)
    except FileNotFoundError as e:
        sys.exit("votecl: cannot run %s (%s): building libvotecl needs build-essential, "
                 "autoconf, automake, libtool, autoconf-archive, pkg-config, "
                 "ocl-icd-opencl-dev and opencl-c-headers" % (argv[0], e))
    except subprocess.CalledProcessError as e:
        sys.exit("votecl: building libvotecl failed: %s exited with %d (see the output above; "
                 "or install libvotecl first and set VOTECL_LIBRARY)" % (argv[0], e.returncode))


def _make(builddir):
    """make lib/libvotecl.la in a configured build tree; the path of the built library."""
    jobs = [] if "-j" in os.environ.get("MAKEFLAGS", "") else ["-j%d" % (os.cpu_count() or 1)]
    _run(["make"] + jobs + ["lib/libvotecl.la"], builddir)
    return os.path.join(builddir, "lib", ".libs")


def _srcdir_of(builddir):
    """The source tree a configured build tree was configured from (its Makefile says)."""
    with open(os.path.join(builddir, "Makefile")) as f:
        for line in f:
            if line.startswith("abs_top_srcdir = "):
                return line.split("=", 1)[1].strip()
    sys.exit("votecl: %s/Makefile names no abs_top_srcdir" % builddir)


def build_library(build_temp):
    """Builds libvotecl from the source tree around python/ (or VOTECL_BUILDDIR's); returns
    (libdir, kernel dir)."""
    builddir = os.environ.get("VOTECL_BUILDDIR", "")
    if builddir and os.path.isfile(os.path.join(builddir, "config.status")):
        builddir = os.path.abspath(builddir)
        return _make(builddir), os.path.join(_srcdir_of(builddir), "cl")
    tree = os.path.dirname(HERE)
    if not os.path.isfile(os.path.join(tree, "configure.ac")):
        sys.exit("votecl: no libvotecl found (VOTECL_LIBRARY, the linker's path, pkg-config) "
                 "and %s is not libvotecl's source tree to build it from" % tree)
    kernels = os.path.join(tree, "cl")
    if os.path.isfile(os.path.join(tree, "config.status")):
        return _make(tree), kernels  # configured in place: out-of-tree builds are refused
    if not os.path.isfile(os.path.join(tree, "configure")):
        _run(["sh", "./autogen.sh"], tree)
    builddir = os.path.abspath(os.path.join(build_temp, "libvotecl"))
    os.makedirs(builddir, exist_ok=True)
    if not os.path.isfile(os.path.join(builddir, "config.status")):
        _run([os.path.join(tree, "configure"), "--enable-cuda", "--without-ffmpeg",
              "--without-mpi"], builddir)
    return _make(builddir), kernels


def _soname_file(libdir):
    """libdir's libvotecl.so.N (the name the library is loaded by), checked loadable."""
    names = [n for n in os.listdir(libdir) if re.fullmatch(r"libvotecl\.so\.\d+", n)]
    if len(names) != 1:
        sys.exit("votecl: expected one libvotecl.so.N in %s, found %s" % (libdir, names))
    path = os.path.join(libdir, names[0])
    with open(path, "rb") as f:
        if b"__asan_init" in f.read():
            sys.exit("votecl: %s is built with AddressSanitizer, which python3 cannot load; "
                     "bundle a normal build (VOTECL_BUILDDIR)" % path)
    return path


def copy_bundle(libdir, kernels, package_dir):
    """Copies the library and its kernels into package_dir/_bundled (kernels/ beside it)."""
    library = _soname_file(libdir)
    dest = os.path.join(package_dir, "_bundled")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.join(dest, "kernels"))
    shutil.copy(library, os.path.join(dest, os.path.basename(library)))  # mode 0755 kept
    for name in sorted(os.listdir(kernels)):
        if name.endswith(KERNEL_SUFFIXES):
            shutil.copyfile(os.path.join(kernels, name), os.path.join(dest, "kernels", name))
    print("votecl: bundled %s and %s's kernels into %s" % (library, kernels, dest))


def _pip_isolated():
    """Whether pip builds in an isolated environment (its own setuptools, not the target's)."""
    return any("pip-build-env-" in p for p in sys.path + [os.environ.get("PYTHONPATH", "")])


def check_build_python():
    """Clear errors where the python building (and, without build isolation, receiving) the
    package lacks what the offline Debian 12 route needs, instead of pip's "invalid command
    'bdist_wheel'" or a NumPy 2.x pulled from PyPI into a venv beside Debian's cv2 (built for
    NumPy 1.x). Isolated builds are left to pip: their environment is not the target's."""
    if _pip_isolated():
        return
    debian = ("on Debian 12, make the venv with Debian's python3: /usr/bin/python3 -m venv "
              "--system-site-packages ENV, then ENV/bin/pip install --no-build-isolation "
              "--no-index ./python")
    try:
        from setuptools.command.bdist_wheel import bdist_wheel  # noqa: F401 (setuptools >= 70.1)
    except ImportError:
        try:
            import wheel.bdist_wheel  # noqa: F401
        except ImportError:
            sys.exit("votecl: %s has no 'wheel' package to build a wheel with: %s (with "
                     "python3-wheel), or pip install wheel first" % (sys.executable, debian))
    try:
        import numpy  # noqa: F401
    except ImportError:
        sys.exit("votecl: %s has no NumPy, so pip would fetch one (NumPy 2.x, which Debian's "
                 "python3-opencv cannot load): %s (with python3-numpy), or install NumPy into "
                 "this environment first (pip install 'numpy<2' where Debian's cv2 shares it)"
                 % (sys.executable, debian))


class BuildPyBundle(build_py):
    """build_py, then the bundle when no installed libvotecl is found."""

    def run(self):
        super().run()
        package_dir = os.path.join(self.build_lib, "votecl")
        if self.distribution.bundles_library:
            build_temp = self.get_finalized_command("build").build_temp
            libdir, kernels = build_library(build_temp)
            copy_bundle(libdir, kernels, package_dir)
        else:  # a bundle left in build/ by an earlier build must not reach this wheel
            shutil.rmtree(os.path.join(package_dir, "_bundled"), ignore_errors=True)


class BundleDistribution(Distribution):
    """A wheel that bundles libvotecl is tagged for this platform and Python, not 'any'."""

    def __init__(self, attrs=None):
        self.bundles_library = bundle_wanted()
        super().__init__(attrs)

    def has_ext_modules(self):
        return self.bundles_library or super().has_ext_modules()


# --- the compiled per-call path (kept apart from the bundle for easy merging) ---
# votecl/_fast.c, CPython's C API with Python's headers alone, for CPython's stable ABI of
# 3.11 (one build loads into any later CPython). Optional: where it cannot be built (no
# Python headers, an older CPython, another interpreter) the package installs without it and
# calls the library through ctypes alone.
FAST = Extension("votecl._fast", ["votecl/_fast.c"], optional=True, py_limited_api=True,
                 define_macros=[("Py_LIMITED_API", "0x030b0000")])
EXT_MODULES = [FAST] if sys.implementation.name == "cpython" and sys.version_info >= (3, 11) \
    else []

check_build_python()
setup(distclass=BundleDistribution, cmdclass={"build_py": BuildPyBundle},
      ext_modules=EXT_MODULES)
