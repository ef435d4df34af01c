"""Finding libvotecl and declaring its functions for ctypes.

The library is found, in order, through:
  1. the VOTECL_LIBRARY environment variable (a path to libvotecl.so*);
  2. ctypes.util.find_library("votecl") (the installed library in the linker's path);
  3. pkg-config --variable=libdir votecl (an installed prefix outside the linker's path);
  4. the build tree this package sits in (python/ beside lib/.libs/), for `make check`.
From a build tree the kernels are taken from its cl/ directory unless VOTECL_KERNEL_PATH
says otherwise.
"""
import ctypes
import ctypes.util
import os
import subprocess
from typing import Any, Iterator, Optional, Tuple

from . import _structs as S

_HERE = os.path.dirname(os.path.abspath(__file__))
_TREE = os.path.dirname(os.path.dirname(_HERE))


def _candidates() -> Iterator[Tuple[str, Optional[str]]]:
    env = os.environ.get("VOTECL_LIBRARY")
    if env:
        yield env, None
        return
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
    raise ImportError("libvotecl not found; tried: %s. Install it (make install) or set "
                      "VOTECL_LIBRARY to the path of libvotecl.so" % "; ".join(tried) or "nothing")


lib, path, tree_kernels = _load()
if tree_kernels is not None and not os.path.isdir(tree_kernels):
    tree_kernels = None

c_status = ctypes.c_int
c_size_p = ctypes.POINTER(ctypes.c_size_t)
vp = ctypes.c_void_p
sz = ctypes.c_size_t
P = ctypes.POINTER

# name: (restype, argtypes). Opaque handles are void pointers.
_FUNCTIONS = {
    "votecl_status_string": (ctypes.c_char_p, [c_status]),
    "votecl_status_name": (ctypes.c_char_p, [c_status]),
    "votecl_version_string": (ctypes.c_char_p, []),
    "votecl_backend_name": (ctypes.c_char_p, [ctypes.c_int]),
    "votecl_backend_is_built": (ctypes.c_int, [ctypes.c_int]),
    "votecl_devices_list": (c_status, [ctypes.c_int, P(S.votecl_device_info), sz, c_size_p]),
    "votecl_context_options_init": (None, [P(S.votecl_context_options)]),
    "votecl_context_new_with_error": (c_status, [P(S.votecl_context_options), P(vp),
                                                 ctypes.c_char_p, sz]),
    "votecl_context_new_from_opencl": (c_status, [vp, vp, vp, P(S.votecl_context_options), P(vp),
                                                  ctypes.c_char_p, sz]),
    "votecl_context_new_from_cuda": (c_status, [vp, vp, P(S.votecl_context_options), P(vp),
                                                ctypes.c_char_p, sz]),
    "votecl_context_free": (None, [vp]),
    "votecl_context_get_error": (ctypes.c_char_p, [vp]),
    "votecl_context_get_build_log": (ctypes.c_char_p, [vp]),
    "votecl_context_get_device_info": (c_status, [vp, P(S.votecl_device_info)]),
    "votecl_context_get_backend": (ctypes.c_int, [vp]),
    "votecl_context_get_kernel_path": (ctypes.c_char_p, [vp]),
    "votecl_context_get_native_queue": (vp, [vp]),
    "votecl_context_finish": (c_status, [vp]),
    "votecl_buffer_new": (c_status, [vp, sz, P(vp)]),
    "votecl_buffer_wrap_device": (c_status, [vp, vp, sz, P(vp)]),
    "votecl_buffer_get_native": (vp, [vp]),
    "votecl_buffer_free": (None, [vp]),
    "votecl_buffer_write": (c_status, [vp, sz, vp, sz]),
    "votecl_buffer_read": (c_status, [vp, sz, vp, sz]),
    # histograms
    "votecl_hist_params_init": (None, [P(S.votecl_hist_params), ctypes.c_int]),
    "votecl_hist_params_set_2d": (None, [P(S.votecl_hist_params), ctypes.c_uint32,
                                         ctypes.c_double, ctypes.c_double, ctypes.c_uint32,
                                         ctypes.c_double, ctypes.c_double]),
    "votecl_hist_plan_new": (c_status, [vp, P(S.votecl_hist_params), P(vp)]),
    "votecl_hist_plan_free": (None, [vp]),
    "votecl_hist_plan_nbins": (ctypes.c_uint64, [vp]),
    "votecl_hist_plan_describe": (c_status, [vp, sz, sz, P(S.votecl_vote_plan_info)]),
    "votecl_hist_run": (c_status, [vp, vp, vp, vp, sz, vp]),
    "votecl_hist_run_batch": (c_status, [vp, vp, vp, vp, sz, sz, vp]),
    "votecl_hist_run_image": (c_status, [vp, P(S.votecl_image), vp]),
    "votecl_hist_run_buffers": (c_status, [vp, vp, vp, vp, sz, sz, vp]),
    # the generic engine
    "votecl_vote_spec_init": (None, [P(S.votecl_vote_spec)]),
    "votecl_vote_plan_new": (c_status, [vp, P(S.votecl_vote_spec), P(vp)]),
    "votecl_vote_plan_free": (None, [vp]),
    "votecl_vote_run": (c_status, [vp, vp, sz, vp, P(S.votecl_vote_stats)]),
    "votecl_vote_run_image": (c_status, [vp, P(S.votecl_image), vp, P(S.votecl_vote_stats)]),
    "votecl_vote_run_buffers": (c_status, [vp, vp, sz, sz, vp]),
    "votecl_vote_plan_describe": (c_status, [vp, sz, P(S.votecl_vote_plan_info)]),
    # theta-rho Hough
    "votecl_hough_params_init": (None, [P(S.votecl_hough_params)]),
    "votecl_hough_plan_new": (c_status, [vp, P(S.votecl_hough_params), sz, sz, P(vp)]),
    "votecl_hough_plan_free": (None, [vp]),
    "votecl_hough_plan_shape": (None, [vp, P(ctypes.c_uint), P(ctypes.c_uint32)]),
    "votecl_hough_run": (c_status, [vp, P(S.votecl_image), P(S.votecl_hough_line), sz, c_size_p,
                                    P(S.votecl_vote_stats)]),
    "votecl_hough_plan_accumulator": (P(ctypes.c_uint32), [vp]),
    "votecl_hough_run_buffers": (c_status, [vp, vp, vp]),
    "votecl_hough_run_gray": (c_status, [vp, P(S.votecl_image), ctypes.c_uint,
                                         P(S.votecl_hough_line), sz, c_size_p,
                                         P(S.votecl_vote_stats)]),
    # PClines
    "votecl_lines_params_init": (None, [P(S.votecl_lines_params)]),
    "votecl_lines_plan_new": (c_status, [vp, P(S.votecl_lines_params), sz, sz, P(vp)]),
    "votecl_lines_plan_free": (None, [vp]),
    "votecl_lines_plan_params": (None, [vp, P(S.votecl_lines_params)]),
    "votecl_lines_plan_shape": (None, [vp, P(ctypes.c_uint32), P(ctypes.c_uint32)]),
    "votecl_lines_run": (c_status, [vp, P(S.votecl_image), P(S.votecl_lines_line), sz, c_size_p]),
    "votecl_lines_run_buffer": (c_status, [vp, vp, sz, sz, ctypes.c_int,
                                           P(S.votecl_lines_line), sz, c_size_p]),
    "votecl_lines_run_edges": (c_status, [vp, P(S.votecl_lines_edge), sz, P(S.votecl_lines_line),
                                          sz, c_size_p]),
    "votecl_lines_plan_read_space": (c_status, [vp, P(ctypes.c_uint32), sz]),
    "votecl_lines_plan_last_stats": (c_status, [vp, P(S.votecl_lines_stats)]),
    # HOG
    "votecl_hog_params_init": (None, [P(S.votecl_hog_params)]),
    "votecl_hog_descriptor_length": (c_status, [P(S.votecl_hog_params), c_size_p]),
    "votecl_hog_model_new": (c_status, [vp, P(S.votecl_hog_params), P(ctypes.c_float), sz,
                                        ctypes.c_float, P(vp)]),
    "votecl_hog_model_load": (c_status, [vp, ctypes.c_char_p, P(vp)]),
    "votecl_hog_model_load_opencv": (c_status, [vp, ctypes.c_char_p, P(S.votecl_hog_params),
                                                P(vp)]),
    "votecl_hog_model_people": (c_status, [vp, P(vp)]),
    "votecl_hog_model_save": (c_status, [vp, vp, ctypes.c_char_p]),
    "votecl_hog_model_get": (None, [vp, c_size_p, P(P(ctypes.c_float)), P(ctypes.c_float)]),
    "votecl_hog_model_free": (None, [vp]),
    "votecl_hog_new": (c_status, [vp, P(S.votecl_hog_params), vp, P(vp)]),
    "votecl_hog_free": (None, [vp]),
    "votecl_hog_windows": (c_status, [vp, sz, sz, c_size_p, c_size_p]),
    "votecl_hog_compute": (c_status, [vp, P(S.votecl_image), P(ctypes.c_float), sz, c_size_p]),
    "votecl_hog_compute_at": (c_status, [vp, P(S.votecl_hog_params), P(S.votecl_image),
                                         P(S.votecl_hog_point), sz, P(ctypes.c_float), sz]),
    "votecl_hog_detect": (c_status, [vp, P(S.votecl_image), P(S.votecl_hog_rect), sz,
                                     P(S.votecl_hog_detection), sz, c_size_p]),
    "votecl_hog_detect_buffer": (c_status, [vp, vp, sz, sz, ctypes.c_uint, P(S.votecl_hog_rect),
                                            sz, P(S.votecl_hog_detection), sz, c_size_p]),
    "votecl_hog_last_windows": (c_status, [vp, P(S.votecl_hog_detection), sz, c_size_p]),
    # GHT
    "votecl_ght_params_init": (None, [P(S.votecl_ght_params), ctypes.c_int]),
    "votecl_ght_model_new": (c_status, [vp, P(S.votecl_ght_params), P(S.votecl_image), P(vp)]),
    "votecl_ght_model_free": (None, [vp]),
    "votecl_ght_model_params": (None, [vp, P(S.votecl_ght_params)]),
    "votecl_ght_detect": (c_status, [vp, P(S.votecl_image), P(S.votecl_ght_pose), sz, c_size_p]),
    "votecl_ght_model_last_stats": (c_status, [vp, P(S.votecl_ght_stats)]),
}


class _Functions:
    """The declared functions as attributes (missing ones raise AttributeError on use)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError("libvotecl at %s has no votecl_%s (an older library?)"
                             % (path, name))


fn = _Functions()
for _name, (_restype, _argtypes) in _FUNCTIONS.items():
    try:
        _f = getattr(lib, _name)
    except AttributeError:
        continue  # an older library: the Python call that needs it says so
    _f.restype = _restype
    _f.argtypes = _argtypes
    setattr(fn, _name[len("votecl_"):], _f)
