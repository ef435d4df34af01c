"""Histograms: votecl_hist_* (GPU-vote's 1-D and 2-D histograms)."""
import ctypes
from typing import Any, Optional, Tuple

import numpy as np

from . import _structs as S
from ._core import (Array, Buffer, Context, Plan, buffer_handle, device_input, empty_like_device,
                    fill, host_array, image_view, is_device_array, record)
from ._errors import invalid, invalid_type
from ._helpers import _ENUMS, _enum_values, _dtype_code
from . import _lib
from ._lib import fn
from ._validate import check_out

# votecl.histogram, histogram2d and histogramdd (NumPy's semantics) are in _numpy.py.
__all__ = ["Histogram"]

_ENUMS["edges"] = {"exact": S.VOTECL_HIST_EDGES_EXACT, "numpy": S.VOTECL_HIST_EDGES_NUMPY}


def _floats(weights: Optional[Array]) -> Any:
    """The weights as the float pointer the prototypes declare (None: no weights)."""
    return None if weights is None else weights.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


class Histogram(Plan):
    """A 1-D or 2-D histogram plan (votecl_hist_*), GPU-vote's strategies.

    dtype: element type (uint8, uint16, uint32, float32); bins: an int (1-D) or a pair (2-D);
    range: (min, max) or ((xmin, xmax), (ymin, ymax)), max excluded; channels: interleaved
    channels of x; two_arrays: 2-D over x and a second array y; weighted: f32 weights summed
    into float32 bins. Other keywords: fields of votecl_hist_params (variant, stretch,
    work_group_size, channel, edges: "exact", cv2.calcHist's bins, or "numpy", np.histogram's
    float32 edges with the last bin closed; float32 data only). Results: uint32 (float32 when weighted) of shape (bins,) or
    (nx, ny); (frames, ...) for batch()."""

    _free = fn.hist_plan_free

    def __init__(self, context: Optional[Context] = None, dtype: Any = np.uint8, bins: Any = None,
                 range: Any = None, channels: int = 1, two_arrays: bool = False,
                 weighted: bool = False, **params: Any) -> None:
        super().__init__(context)
        self.dtype = np.dtype(dtype)
        p = S.votecl_hist_params()
        fn.hist_params_init(ctypes.byref(p), _dtype_code(self.dtype))
        p.channels = channels
        p.weighted = int(bool(weighted))
        self.shape: Tuple[int, ...]
        if isinstance(bins, (tuple, list)):
            p.two_arrays = int(bool(two_arrays))
            (x0, x1), (y0, y1) = range
            fn.hist_params_set_2d(ctypes.byref(p), bins[0], x0, x1, bins[1], y0, y1)
            self.shape = (int(bins[0]), int(bins[1]))
        else:
            if bins is not None:
                p.nbins[0] = bins
            if range is not None:
                p.min[0], p.max[0] = range
            self.shape = (int(p.nbins[0]),)
        fill(p, _enum_values(params))
        self.params = p
        self.out_dtype = np.dtype(np.float32 if weighted else np.uint32)
        self._channels = int(p.channels)
        h = ctypes.c_void_p()
        self._check(fn.hist_plan_new(self.context._handle, ctypes.byref(p), ctypes.byref(h)))
        self._handle = h.value
        self._nbins = int(fn.hist_plan_nbins(self._handle))
        self._format = np.empty(0, self.dtype).data.format  # the buffers _fast takes

    @property
    def nbins(self) -> int:
        """The plan's bins (all of a 2-D plan's), fixed when it is made."""
        return self._nbins

    def describe(self, elements: int, frames: int = 1) -> Any:
        """The strategy for frames of `elements` elements (a votecl_vote_plan_info record)."""
        info = S.votecl_vote_plan_info()
        self._check(fn.hist_plan_describe(self._handle, elements, frames, ctypes.byref(info)))
        return record(info, "PlanInfo")

    def _elements(self, arr: Array) -> int:
        return arr.size // self._channels

    def __call__(self, x: Any, y: Any = None, weights: Any = None, out: Any = None) -> Any:
        """The histogram of x (any shape; channels interleaved last), with y and weights when
        the plan uses them. GPU arrays in, a GPU array out (asynchronous on the stream).
        out: an array of the result's shape, size and library to fill instead of a new one
        (a pipeline that reuses it saves an allocation per call)."""
        fast = _lib.fast
        if fast is not None and out is None and type(x) is np.ndarray:
            # NumPy arrays of the plan's dtype, C-contiguous: the compiled path (_fast.c)
            out = np.empty(self.shape, self.out_dtype)
            status = fast.hist_run(self._handle, x, y, weights, self._format, self._channels,
                                   out)
            if status is not None:
                self._check(status)
                return out
            out = None
        if is_device_array(x):
            return self._device(x, y, weights, 1, out)
        xa = host_array(x, "x", [self.dtype])
        ya = host_array(y, "y", [self.dtype]) if y is not None else None
        wa = host_array(weights, "weights", [np.float32]) if weights is not None else None
        out = np.empty(self.shape, self.out_dtype) if out is None else \
            check_out(out, self.shape, self.out_dtype)
        self._check(fn.hist_run(self._handle, xa.ctypes.data,
                                ya.ctypes.data if ya is not None else None,
                                _floats(wa), self._elements(xa),
                                out.ctypes.data))
        return out

    def batch(self, x: Any, y: Any = None, weights: Any = None, out: Any = None) -> Any:
        """Histograms of frames: x has the frames on its first axis; (frames, bins...) out."""
        if is_device_array(x):
            return self._device(x, y, weights, None, out)
        xa = host_array(x, "x", [self.dtype])
        frames = xa.shape[0]
        ya = host_array(y, "y", [self.dtype]) if y is not None else None
        wa = host_array(weights, "weights", [np.float32]) if weights is not None else None
        shape = (frames,) + self.shape
        out = np.empty(shape, self.out_dtype) if out is None else \
            check_out(out, shape, self.out_dtype)
        n = self._elements(xa) // max(frames, 1)
        self._check(fn.hist_run_batch(self._handle, xa.ctypes.data,
                                      ya.ctypes.data if ya is not None else None,
                                      _floats(wa), n, frames,
                                      out.ctypes.data))
        return out

    def run_buffers(self, x: Buffer, n: int, frames: int = 1, y: Optional[Buffer] = None,
                    weights: Optional[Buffer] = None, out: Optional[Buffer] = None) -> Buffer:
        """Histograms of data already in device buffers of the plan's context
        (votecl_hist_run_buffers, any backend): frames of n elements each in x (y and the
        float32 weights likewise when the plan uses them); the frames * nbins uint32 (float32
        when weighted) bins go into out (None: a new Buffer), returned. Asynchronous: the
        work is queued; out.read(np.uint32) or context.finish() waits for it.

        >>> xb = votecl.Buffer(ctx, x.nbytes); xb.write(x)
        >>> counts = h.run_buffers(xb, x.size).read(np.uint32)
        """
        if out is None:
            out = Buffer(self.context, max(frames, 1) * self._nbins * 4)
        self._check(fn.hist_run_buffers(self._handle, buffer_handle(x, "x"),
                                        buffer_handle(y, "y"), buffer_handle(weights, "weights"),
                                        n, frames, buffer_handle(out, "out")))
        return out

    def image(self, image: Any) -> Array:
        """The histogram of an image (H, W) or (H, W, C) array, any row stride."""
        view, keep = image_view(image)
        out = np.empty(self.shape, self.out_dtype)
        self._check(fn.hist_run_image(self._handle, ctypes.byref(view), out.ctypes.data))
        return out

    def _device(self, x: Any, y: Any, weights: Any, frames: Optional[int], out: Any) -> Any:
        dx = device_input(self.context, x, "x")
        if dx.dtype != self.dtype:
            raise invalid_type("x: dtype %s is not the plan's %s" % (dx.dtype, self.dtype))
        nframes = dx.shape[0] if frames is None else 1
        bx = self._wrap(dx)
        by = self._wrap(device_input(self.context, y, "y")) if y is not None else None
        bw = self._wrap(device_input(self.context, weights, "weights")) \
            if weights is not None else None
        shape = self.shape if frames is not None else (nframes,) + self.shape
        result = empty_like_device(x, shape, self.out_dtype) if out is None else out
        bo = self._wrap(device_input(self.context, result, "out"))
        if bo.size != nframes * self.nbins * 4:
            raise invalid("out: %d bytes are not %d frames of %d 4-byte bins"
                          % (bo.size, nframes, self.nbins))
        n = dx.nbytes // self.dtype.itemsize // self._channels // max(nframes, 1)
        self._check(fn.hist_run_buffers(self._handle, bx._handle,
                                        by._handle if by is not None else None,
                                        bw._handle if bw is not None else None, n, nframes,
                                        bo._handle))
        return result
