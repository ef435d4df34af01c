"""Checks of Python arguments before they reach C: what ctypes would pass on unchecked (a
read-only or too small output array, an input shorter than its channels say) or turn into
its own errors (ArgumentError, "'int' object is not iterable") becomes InvalidArgument
naming the argument."""
import math
from typing import Any, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from ._errors import invalid

Array = npt.NDArray[Any]


def count(value: Any, name: str, minimum: int = 0) -> int:
    """An int argument of at least minimum, else InvalidArgument naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < minimum:
        raise invalid("%s: an int of at least %d, not %r" % (name, minimum, value))
    return int(value)


def image_size(value: Any, name: str) -> int:
    """A plan's image width or height (a positive int)."""
    return count(value, name, 1)


def check_out(out: Any, shape: Sequence[int], dtype: Any, name: str = "out") -> Array:
    """A caller's output array: a writeable, C-contiguous NumPy array of exactly dtype and of
    the result's size (any shape holding it), else InvalidArgument. A read-only array (one
    over bytes, a broadcast view) is refused, never written."""
    dtype = np.dtype(dtype)
    size = math.prod(shape)
    if not isinstance(out, np.ndarray):
        raise invalid("%s: a NumPy array of %d %s, not %s" % (name, size, dtype,
                                                             type(out).__name__))
    if out.dtype != dtype:
        raise invalid("%s: dtype %s; the result is %s" % (name, out.dtype, dtype))
    if out.size != size:
        raise invalid("%s: %d elements; the result has %d (shape %s)"
                      % (name, out.size, size, tuple(shape)))
    if not out.flags.writeable:
        raise invalid("%s: the array is read-only" % name)
    if not out.flags.c_contiguous:
        raise invalid("%s: the array must be C-contiguous" % name)
    return out


def vote_input(arr: Array, channels: int, name: str = "data") -> Tuple[Array, int]:
    """A 1-D array of interleaved channels and its element count, refused unless its length
    is a whole number of elements (the library reads elements x channels values)."""
    if arr.size % channels:
        raise invalid("%s: %d values are not a whole number of %d-channel elements"
                      % (name, arr.size, channels))
    return arr, arr.size // channels


def image_shape(image: Any, name: str = "image") -> Tuple[int, int]:
    """(height, width) of an (H, W) or (H, W, C) image, else InvalidArgument."""
    shape = tuple(getattr(image, "shape", ()))
    if len(shape) not in (2, 3):
        raise invalid("%s: expected (height, width) or (height, width, channels), got shape %s"
                      % (name, shape))
    return int(shape[0]), int(shape[1])
