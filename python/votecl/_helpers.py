"""What the algorithms' modules (votecl._hist, ._hough, ...) share: enum names, dtypes,
growing result arrays."""
import ctypes
from typing import Any, Callable, Dict

import numpy as np

from . import _structs as S
from ._core import DTYPES, Records, records
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
