"""Reductions on the voting engine: votecl_sum_* (the sum of an array) and votecl_subsample_*
(the means of f x f blocks)."""
import ctypes
from typing import Any, Optional, Tuple

import numpy as np

from . import _structs as S
from ._core import Array, Context, Plan, fill, host_array, image_view
from ._errors import invalid_type
from ._helpers import _dtype_code, _enum_values, _params
from ._lib import fn
from ._validate import image_size

__all__ = ["Sum", "Subsample"]

_REDUCED = (np.dtype(np.uint8), np.dtype(np.float32))


def _reduced_dtype(dtype: Any) -> Any:
    dtype = np.dtype(dtype)
    if dtype not in _REDUCED:
        raise invalid_type("dtype: %s is not uint8 or float32" % dtype)
    return dtype


class Sum(Plan):
    """The sum of uint8 or float32 data on the device (votecl_sum_*), in double precision.
    Keywords: fields of votecl_sum_params (variant).

    >>> total = votecl.Sum(ctx, np.uint8)(image)
    """

    _free = fn.sum_plan_free

    def __init__(self, context: Optional[Context] = None, dtype: Any = np.uint8,
                 **params: Any) -> None:
        super().__init__(context)
        self.dtype = _reduced_dtype(dtype)
        p = _params(S.votecl_sum_params, fn.sum_params_init, params, _dtype_code(self.dtype))
        self.params = p
        self._new_handle(fn.sum_plan_new, ctypes.byref(p))

    def __call__(self, x: Any) -> float:
        """The sum of every element of x (any shape; an (H, W[, C]) image view is read with
        its row stride)."""
        total = ctypes.c_double(0)
        arr = np.asarray(x)
        if arr.ndim in (2, 3) and not arr.flags.c_contiguous and arr.dtype == self.dtype:
            view, keep = image_view(arr, "x")
            self._check(fn.sum_run_image(self._handle, ctypes.byref(view), ctypes.byref(total)))
        else:
            xa = host_array(arr, "x", [self.dtype])
            self._check(fn.sum_run(self._handle, xa.ctypes.data, xa.size, ctypes.byref(total)))
        return total.value

    def describe(self, elements: int) -> Any:
        """The engine's strategy for sums of `elements` elements (a PlanInfo record;
        Unsupported on the ref backend)."""
        return self._query(fn.sum_plan_describe, S.votecl_vote_plan_info, "PlanInfo", elements)


class Subsample(Plan):
    """The means of factor x factor blocks of a width x height one-channel uint8 or float32
    image (votecl_subsample_*): a float32 (height // factor, width // factor) array, the
    remainder rows and columns left out (the means cv2.resize with INTER_AREA takes for a whole
    factor, unrounded).
    Keywords: fields of votecl_subsample_params (variant).

    >>> small = votecl.Subsample(ctx, 640, 480, 4)(gray)  # (120, 160)
    """

    _free = fn.subsample_plan_free

    def __init__(self, context: Optional[Context] = None, width: Any = None, height: Any = None,
                 factor: int = 2, dtype: Any = np.uint8, **params: Any) -> None:
        super().__init__(context)
        width, height = image_size(width, "width"), image_size(height, "height")
        self.dtype = _reduced_dtype(dtype)
        p = S.votecl_subsample_params()
        fn.subsample_params_init(ctypes.byref(p), width, height, factor,
                                 _dtype_code(self.dtype))
        fill(p, _enum_values(params))
        self.params = p
        self._new_handle(fn.subsample_plan_new, ctypes.byref(p))
        w, hh = ctypes.c_size_t(), ctypes.c_size_t()
        fn.subsample_plan_output_size(self._handle, ctypes.byref(w), ctypes.byref(hh))
        self.shape: Tuple[int, int] = (hh.value, w.value)

    def __call__(self, image: Any) -> Array:
        """The block means of an (H, W) image of the plan's size and dtype (any row stride)."""
        view, keep = image_view(image)
        out = np.empty(self.shape, np.float32)
        self._check(fn.subsample_run(self._handle, ctypes.byref(view),
                                     out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                     out.size))
        return out

    def describe(self) -> Any:
        """The engine's strategy for one run (a PlanInfo record; Unsupported on the ref
        backend or for an empty output)."""
        return self._query(fn.subsample_plan_describe, S.votecl_vote_plan_info, "PlanInfo")
