"""The generic voting engine: votecl_vote_* (user-defined votes)."""
import ctypes
from typing import Any, Optional, Tuple

import numpy as np

from . import _structs as S
from ._core import (Buffer, Context, Plan, buffer_handle, device_input, empty_like_device, fill,
                    host_array, image_view, is_device_array, record)
from ._helpers import _enum_values, _dtype_code
from ._lib import fn
from ._validate import vote_input

__all__ = ["Vote"]


class Vote(Plan):
    """A user-defined vote (votecl_vote_*): OpenCL C source defining any of vote_test,
    vote_index, vote_value, vote_finish (votecl-vote.h documents their signatures).

    dtype and channels: the elements; bins: N per space; spaces: G; bin_type: "unity", "u32" or
    "f32"; table: float32 constants the source reads as vote_table[]. Calls return
    (bins of shape (spaces, bins), stats record); a build error raises VoteclError whose
    context.build_log names the user's lines."""

    _free = fn.vote_plan_free

    def __init__(self, context: Optional[Context] = None, source: Optional[str] = None,
                 dtype: Any = np.uint8, channels: int = 1, bins: int = 256, spaces: int = 1,
                 bin_type: str = "unity", table: Any = None, **params: Any) -> None:
        super().__init__(context)
        spec = S.votecl_vote_spec()
        fn.vote_spec_init(ctypes.byref(spec))
        self.dtype = np.dtype(dtype)
        spec.dtype = _dtype_code(self.dtype)
        spec.channels, spec.spaces, spec.nbins = channels, spaces, bins
        spec.bin_type = _enum_values({"bin_type": bin_type})["bin_type"]
        self._source = source.encode() if source is not None else None
        spec.source = self._source
        if table is not None:
            self._table = np.ascontiguousarray(table, np.float32)
            spec.table = self._table.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
            spec.table_size = self._table.size
        fill(spec, _enum_values(params))
        self.shape = (spaces, bins)
        self._channels = int(spec.channels)
        self.out_dtype = np.dtype(np.float32 if spec.bin_type == S.VOTECL_BINS_F32 else np.uint32)
        self._new_handle(fn.vote_plan_new, ctypes.byref(spec))

    def __call__(self, data: Any) -> Tuple[Any, Any]:
        """Votes a 1-D array (index = position) or an image (H, W[, C]) array."""
        if is_device_array(data):
            dev = device_input(self.context, data, "data")
            shape = dev.shape
            width, height = (shape[0], 0) if len(shape) == 1 else (shape[1], shape[0])
            out = empty_like_device(data, self.shape, self.out_dtype)
            b = self._wrap(dev)
            o = self._wrap(device_input(self.context, out, "bins"))
            self._check(fn.vote_run_buffers(self._handle, b._handle, width, height, o._handle))
            return out, None
        arr = np.asarray(data)
        out = np.empty(self.shape, self.out_dtype)
        stats = S.votecl_vote_stats()
        if arr.ndim == 1:
            arr, n = vote_input(host_array(arr, "data", [self.dtype]), self._channels)
            self._check(fn.vote_run(self._handle, arr.ctypes.data, n, out.ctypes.data,
                                    ctypes.byref(stats)))
        else:
            view, keep = image_view(arr, "data")
            self._check(fn.vote_run_image(self._handle, ctypes.byref(view), out.ctypes.data,
                                          ctypes.byref(stats)))
        return out, record(stats, "VoteStats")

    def run_buffers(self, data: Buffer, width: int, height: int = 0,
                    out: Optional[Buffer] = None) -> Buffer:
        """Votes data already in a device buffer of the plan's context
        (votecl_vote_run_buffers, any backend): a width x height image, rows packed, or with
        height 0 a 1-D array of width elements; the (spaces, bins) bins go into out (None: a
        new Buffer), returned. Asynchronous: last_stats() or out.read() waits."""
        if out is None:
            out = Buffer(self.context, self.shape[0] * self.shape[1] * 4)
        self._check(fn.vote_run_buffers(self._handle, buffer_handle(data, "data"), width,
                                        height, buffer_handle(out, "out")))
        return out

    def last_stats(self) -> Any:
        """The figures of the plan's last run (a VoteStats record); waits for it to finish
        (votecl_vote_plan_last_stats)."""
        return self._query(fn.vote_plan_last_stats, S.votecl_vote_stats, "VoteStats")

    def describe(self, elements: int) -> Any:
        """The engine's strategy for `elements` elements (a PlanInfo record of
        votecl_vote_plan_info)."""
        return self._query(fn.vote_plan_describe, S.votecl_vote_plan_info, "PlanInfo", elements)

    def predict(self, elements: int, eta: float = 1.0) -> float:
        """The execution-time model's seconds for `elements` elements of which the fraction
        eta passes vote_test (votecl_vote_plan_predict); votecl.Unsupported until the device
        is calibrated (`votecl calibrate`)."""
        seconds = ctypes.c_double(0)
        self._check(fn.vote_plan_predict(self._handle, elements, eta, ctypes.byref(seconds)))
        return seconds.value
