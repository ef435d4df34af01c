"""What the algorithms' modules (votecl._hist, ._hough, ...) share: enum names, dtypes,
growing result arrays."""
import ctypes
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from . import _structs as S
from ._core import DTYPES, Array, Records, fill, record, records, struct_dict
from ._errors import invalid, invalid_type

# Enum fields by name, for every plan; an algorithm's module adds its own (_hog: fusion, _ght:
# method and pairing).
_ENUMS: Dict[str, Dict[str, int]] = {
    "variant": {"auto": S.VOTECL_VARIANT_AUTO, "local": S.VOTECL_VARIANT_LOCAL,
                "global": S.VOTECL_VARIANT_GLOBAL, "private": S.VOTECL_VARIANT_PRIVATE},
    "bin_type": {"unity": S.VOTECL_BINS_UNITY, "u32": S.VOTECL_BINS_U32,
                 "f32": S.VOTECL_BINS_F32},
    "rho_grid": {"span": S.VOTECL_HOUGH_GRID_SPAN, "opencv": S.VOTECL_HOUGH_GRID_OPENCV},
    "peak_rule": {"window": S.VOTECL_HOUGH_PEAKS_WINDOW, "opencv": S.VOTECL_HOUGH_PEAKS_OPENCV},
}


def _enum_values(params: Dict[str, Any]) -> Dict[str, Any]:
    """Enum fields may be given by name ("local", "meanshift", "ballard")."""
    out: Dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, str) and key in _ENUMS:
            if value not in _ENUMS[key]:
                raise invalid("%s: %r is not one of %s" % (key, value, ", ".join(_ENUMS[key])))
            value = _ENUMS[key][value]
        out[key] = value
    return out


def _params(struct_type: Any, init: Callable[..., None], params: Dict[str, Any],
            *init_args: Any) -> Any:
    """A parameter struct: the library's defaults (init(&p, *init_args)), then the keywords
    (enum fields by name too)."""
    p = struct_type()
    init(ctypes.byref(p), *init_args)
    return fill(p, _enum_values(params))


def _dtype_code(dtype: Any, name: str = "dtype") -> int:
    dtype = np.dtype(dtype)
    if dtype not in DTYPES:
        raise invalid_type("%s: %s is not uint8, uint16, uint32 or float32" % (name, dtype))
    return DTYPES[dtype]


def _collect(call: Callable[[Any, int, ctypes.c_size_t], None], struct_type: Any, name: str,
             capacity: int = 256) -> Records:
    """Calls call(array, capacity, found) until everything found fits; records out."""
    while True:
        out = (struct_type * capacity)()
        found = ctypes.c_size_t(0)
        call(out, capacity, found)
        if found.value <= capacity:
            return records(out, found.value, name)
        capacity = found.value


def _collect_voted(plan: Any, run: Callable[..., int], view: Any, struct_type: Any, name: str,
                   *args: Any) -> Records:
    """_collect over a run that also gives the vote's figures, run(handle, &view, *args, out,
    capacity, &found, &stats): the records out, the figures in plan.stats."""
    stats = S.votecl_vote_stats()

    def call(out: Any, capacity: int, found: ctypes.c_size_t) -> None:
        plan._check(run(plan._handle, ctypes.byref(view), *args, out, capacity,
                        ctypes.byref(found), ctypes.byref(stats)))
    found = _collect(call, struct_type, name)
    plan.stats = record(stats, "VoteStats")
    return found


def _params_dict(call: Callable[..., None], handle: Any, struct_type: Any) -> Dict[str, Any]:
    """The resolved parameters that call(handle, &params) copies out, as a dict."""
    p = struct_type()
    call(handle, ctypes.byref(p))
    return struct_dict(p)


def _counts_copy(p: Any, shape: Tuple[int, ...]) -> Optional[Array]:
    """A copy of the uint32 accumulator a plan's pointer p holds, of shape; None when p is
    NULL (no run yet)."""
    if not p:
        return None
    return np.ctypeslib.as_array(p, shape=shape).copy()


def _segments(call: Callable[..., int], handle: Any, check: Callable[[int], None]) -> Records:
    """The segments of a plan's last run (votecl_hough_plan_segments,
    votecl_lines_plan_segments): Segment records (x0, y0, x1, y1, line, hits), copied out of the
    plan's array before its next run."""
    ptr = ctypes.POINTER(S.votecl_segment)()
    count = ctypes.c_size_t()
    check(call(handle, ctypes.byref(ptr), ctypes.byref(count)))
    out = (S.votecl_segment * count.value)()
    if count.value:
        ctypes.memmove(out, ptr, ctypes.sizeof(out))
    return records(out, count.value, "Segment")


def _segments_p(segments: Records) -> Any:
    """Segments as cv2.HoughLinesP returns them: an (N, 1, 4) int32 array of x0, y0, x1, y1,
    the ends rounded to the nearest pixel."""
    a = np.asarray(segments)
    if len(segments) == 0:
        return np.zeros((0, 1, 4), np.int32)
    ends = np.stack([a["x0"], a["y0"], a["x1"], a["y1"]], axis=-1)
    return np.rint(ends).astype(np.int32).reshape(-1, 1, 4)
