"""HOG descriptors and the people detector: votecl_hog_*."""
import ctypes
from typing import Any, Optional

import numpy as np

from . import _structs as S
from ._core import (Array, Context, Plan, Records, check, device_input, fill, image_view,
                    is_device_array, records)
from ._errors import invalid_type
from ._helpers import _ENUMS, _collect, _enum_values, _params
from ._lib import fn
from ._lifetime import Owned

__all__ = ["hog_params", "HOGModel", "HOG", "HOGPending"]

_ENUMS["fusion"] = {"none": S.VOTECL_HOG_FUSION_NONE, "meanshift": S.VOTECL_HOG_FUSION_MEANSHIFT,
                    "group": S.VOTECL_HOG_FUSION_GROUP}
# scikit-image's block_norm names (skimage.feature.hog)
_ENUMS["block_norm"] = {"L2-Hys": S.VOTECL_HOG_NORM_L2HYS, "L1": S.VOTECL_HOG_NORM_L1,
                        "L1-sqrt": S.VOTECL_HOG_NORM_L1_SQRT, "L2": S.VOTECL_HOG_NORM_L2}
_ENUMS["binning"] = {"trilinear": S.VOTECL_HOG_BINNING_TRILINEAR,
                     "hard": S.VOTECL_HOG_BINNING_HARD}


def hog_params(**params: Any) -> Any:
    """A votecl_hog_params with the people detector's defaults and the given fields."""
    return _params(S.votecl_hog_params, fn.hog_params_init, params)


class HOGModel(Owned):
    """A linear SVM over HOG descriptors (votecl_hog_model): people(), load(path), or from
    weights and a bias for the geometry of the given parameters."""

    _free = fn.hog_model_free

    def __init__(self, context: Optional[Context] = None, weights: Any = None, bias: float = 0.0,
                 _handle: Optional[int] = None, **params: Any) -> None:
        from ._core import default_context
        self._handle = None
        self.context = context if context is not None else default_context()
        if _handle is None:
            p = hog_params(**params)
            w = np.ascontiguousarray(weights, np.float32)
            h = ctypes.c_void_p()
            check(fn.hog_model_new(self.context._handle, ctypes.byref(p),
                                   w.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), w.size,
                                   bias, ctypes.byref(h)), self.context)
            _handle = h.value
        self._handle = _handle

    @classmethod
    def people(cls, context: Optional[Context] = None) -> "HOGModel":
        """OpenCV's default people detector (64 x 128)."""
        from ._core import default_context
        context = context if context is not None else default_context()
        h = ctypes.c_void_p()
        with context._lock():
            check(fn.hog_model_people(context._handle, ctypes.byref(h)), context)
            return cls(context, _handle=h.value)

    file_params: Any = None  # the geometry of a detector OpenCV saved (a votecl_hog_params)

    @classmethod
    def load(cls, path: Any, context: Optional[Context] = None) -> "HOGModel":
        """A model file: docs/hog-model.md's format, or a detector OpenCV saved
        (HOGDescriptor::save, YAML or XML), whose window geometry HOG(model=...) then takes
        (in .file_params)."""
        from ._core import default_context
        import os
        context = context if context is not None else default_context()
        h = ctypes.c_void_p()
        with context._lock():
            status = fn.hog_model_load(context._handle, os.fsencode(path), ctypes.byref(h))
            file_params = None
            if status == 1 and b"not a votecl-hog-model file" in \
                    (fn.context_get_error(context._handle) or b""):
                file_params = hog_params()
                status = fn.hog_model_load_opencv(context._handle, os.fsencode(path),
                                                  ctypes.byref(file_params), ctypes.byref(h))
            check(status, context)
            model = cls(context, _handle=h.value)
        model.file_params = file_params
        return model

    def save(self, path: Any) -> None:
        """Writes the model as a votecl-hog-model file (docs/hog-model.md)."""
        import os
        check(fn.hog_model_save(self.context._handle, self._handle, os.fsencode(path)),
              self.context)

    @property
    def weights(self) -> Array:
        """The SVM's weights, float32 (descriptor length,), a copy."""
        n, w, b = ctypes.c_size_t(), ctypes.POINTER(ctypes.c_float)(), ctypes.c_float()
        fn.hog_model_get(self._handle, ctypes.byref(n), ctypes.byref(w), ctypes.byref(b))
        return np.ctypeslib.as_array(w, shape=(n.value,)).copy()

    @property
    def bias(self) -> float:
        """The SVM's bias: a window's score is bias + weights . descriptor."""
        b = ctypes.c_float()
        fn.hog_model_get(self._handle, None, None, ctypes.byref(b))
        return b.value


class HOG(Plan):
    """HOG descriptors and the sliding-window detector (votecl_hog_*).

    model: "people" (default), a HOGModel, a path to a model file, or None (descriptors only).
    Keywords: fields of votecl_hog_params (window_width, ..., scale, hit_threshold, fusion
    "none" | "meanshift" | "group", ...). Images are uint8 (H, W), (H, W, 3) or (H, W, 4);
    on a CUDA context a GPU image (H, W) or (H, W, 3) with colour on is read where it lies.

    block_norm: how each block's histogram v is normalised, scikit-image's names:
    "L2-Hys" (default, OpenCV's: ``v / (|v|_2 + 0.1 len)``, clipped at l2hys_threshold, then
    ``v / (|v|_2 + 1e-3)``), "L1" (``v / (|v|_1 + 1e-5)``), "L1-sqrt" (the square root of
    L1's) or "L2" (``v / sqrt(|v|_2^2 + 1e-10)``), the last three as skimage.feature.hog's.

    binning: "trilinear" (default, OpenCV's: votes split between two bins and four cells,
    weighted by the block's Gaussian) or "hard" (scikit-image's: each pixel's whole magnitude
    to its own cell and one orientation bin, a cell the mean of its pixels). With
    binning="hard", gamma=0 (transform_sqrt=False), the window the image's whole cells, a
    block stride of one cell and no padding, compute()'s descriptor holds
    skimage.feature.hog(image, orientations=nbins, pixels_per_cell, cells_per_block,
    block_norm) of the same uint8 gray image, in OpenCV's order (blocks column after
    column, the cells of a block likewise); an unknown name raises ValueError."""

    _free = fn.hog_free

    def __init__(self, context: Optional[Context] = None, model: Any = "people",
                 **params: Any) -> None:
        super().__init__(context)
        self.params = hog_params(**params)
        if isinstance(model, str) and model == "people":
            model = HOGModel.people(self.context)
        elif isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
            model = HOGModel.load(model, self.context)
        if getattr(model, "file_params", None) is not None:  # OpenCV's geometry, then ours
            self.params = fill(type(model.file_params).from_buffer_copy(model.file_params),
                               _enum_values(params))
        self.model = model
        self._new_handle(fn.hog_new, ctypes.byref(self.params),
                         model._handle if model is not None else None)

    @property
    def descriptor_length(self) -> int:
        """The length of one window's descriptor (3780 for the people detector)."""
        n = ctypes.c_size_t()
        self._check(fn.hog_descriptor_length(ctypes.byref(self.params), ctypes.byref(n)))
        return n.value

    def detect(self, image: Any, rois: Any = None) -> Records:
        """Detections (records with box (x, y, width, height), score, scale), best first.
        rois: optional (x, y, width, height) regions searched as images of their own."""
        r = None
        nr = 0
        if rois is not None and len(rois):
            r = (S.votecl_hog_rect * len(rois))(*[S.votecl_hog_rect(*map(int, t)) for t in rois])
            nr = len(rois)
        if is_device_array(image):
            dev = device_input(self.context, image, "image")
            if dev.dtype != np.uint8:
                raise invalid_type("image: HOG takes uint8 images, not %s" % dev.dtype)
            buf = self._wrap(dev)
            h, w = dev.shape[0], dev.shape[1]
            ch = dev.shape[2] if len(dev.shape) == 3 else 1

            def call(out: Any, capacity: int, found: ctypes.c_size_t) -> None:
                self._check(fn.hog_detect_buffer(self._handle, buf._handle, w, h, ch, r, nr, out,
                                                 capacity, ctypes.byref(found)))
        else:
            view, keep = image_view(image)

            def call(out: Any, capacity: int, found: ctypes.c_size_t) -> None:
                self._check(fn.hog_detect(self._handle, ctypes.byref(view), r, nr, out,
                                          capacity, ctypes.byref(found)))
        return _collect(call, S.votecl_hog_detection, "Detection")

    def detect_async(self, image: Any, rois: Any = None) -> "HOGPending":
        """Starts detect(image, rois) and returns without waiting (votecl_hog_detect_begin:
        the upload and every level's kernels are queued): the host is free for other work,
        such as the next frame's decoding or another detector's call, until
        pending.result() waits for the detections. One detection at a time per detector:
        a second detect_async before result() raises InvalidArgument. Host images only.

        >>> pending = hog.detect_async(frame)
        >>> next_frame = decode()
        >>> people = pending.result()
        """
        view, keep = image_view(image)
        rects = None
        if rois is not None and len(rois):
            rects = (S.votecl_hog_rect * len(rois))(*[S.votecl_hog_rect(*map(int, t))
                                                      for t in rois])
        self._check(fn.hog_detect_begin(self._handle, ctypes.byref(view), rects,
                                        len(rects) if rects is not None else 0))
        return HOGPending(self, (view, keep, rects))

    def windows(self, capacity: int = 4096) -> Records:
        """The raw windows of the last detection before fusion."""
        def call(out: Any, cap: int, found: ctypes.c_size_t) -> None:
            self._check(fn.hog_last_windows(self._handle, out, cap, ctypes.byref(found)))
        return _collect(call, S.votecl_hog_detection, "Detection", capacity)

    def compute(self, image: Any) -> Array:
        """Descriptors of every window at scale 1: (rows, columns, length) float32, as
        OpenCV's HOGDescriptor::compute orders them (rows of windows, left to right)."""
        view, keep = image_view(image)
        cols, rows = ctypes.c_size_t(), ctypes.c_size_t()
        self._check(fn.hog_windows(self._handle, view.width, view.height, ctypes.byref(cols),
                                   ctypes.byref(rows)))
        n = self.descriptor_length
        out = np.empty((rows.value, cols.value, n), np.float32)
        count = ctypes.c_size_t()
        self._check(fn.hog_compute(self._handle, ctypes.byref(view),
                                   out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), out.size,
                                   ctypes.byref(count)))
        return out

    def compute_at(self, image: Any, locations: Any) -> Array:
        """Descriptors of windows whose top-left corners are locations ((n, 2) ints)."""
        view, keep = image_view(image)
        loc = np.ascontiguousarray(locations, np.int32).reshape(-1, 2)
        n = self.descriptor_length
        out = np.empty((len(loc), n), np.float32)
        self._check(fn.hog_compute_at(self.context._handle, ctypes.byref(self.params),
                                      ctypes.byref(view),
                                      loc.ctypes.data_as(ctypes.POINTER(S.votecl_hog_point)),
                                      len(loc), out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                      out.size))
        return out


class HOGPending:
    """A detection begun by HOG.detect_async: result() waits for it (votecl_hog_detect_end).
    The image is held until then."""

    def __init__(self, hog: HOG, keep: Any) -> None:
        self._hog: Optional[HOG] = hog
        self._keep = keep
        self.found = 0
        self._result: Optional[Records] = None

    def result(self, capacity: int = 4096) -> Records:
        """The detections, best first, as detect() returns them; at most capacity of them
        (found holds how many there were). Waits for the device; later calls return the same
        records."""
        if self._result is not None:
            return self._result
        hog = self._hog
        if hog is None:
            raise invalid_type("HOGPending: no detection")
        with hog._lock():
            out = (S.votecl_hog_detection * max(capacity, 1))()
            found = ctypes.c_size_t(0)
            hog._check(fn.hog_detect_end(hog._handle, out, capacity, ctypes.byref(found)))
        self.found = found.value
        self._result = records(out, min(found.value, capacity), "Detection")
        self._hog, self._keep = None, None
        return self._result

    def __del__(self) -> None:
        # dropped unresolved: end the detection, so that the detector takes the next one
        hog = self._hog
        if hog is not None and not hog.closed:
            try:
                self.result(0)
            except Exception:
                pass
