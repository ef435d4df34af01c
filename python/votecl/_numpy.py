"""votecl.histogram, histogram2d and histogramdd: NumPy's functions of those names, computed
by the library.

They take np.histogram's arguments and return what it returns: bins and range as NumPy
reads them (range defaults to the data's minimum and maximum, the last bin includes its
right edge), edges computed by NumPy itself, int64 counts (the weights' dtype when weighted).

How the counts are made:
- integer data (bool, uint8, uint16, and wider integers whose values fit after subtracting
  the minimum): the library counts every value (identity bins, one plan per dtype whatever
  the range), and the counts are summed into NumPy's bins on the host by comparing values
  with NumPy's edges, as np.histogram does: equal to NumPy for any bins, edges included.
- float data (float32; float16 and float64 when every value is exact in float32; float64
  whole numbers count as integers), and 2-D integers beyond such planes (as float32),
  weighted or not: the generic engine compares each value with NumPy's edges (as float32
  bounds selecting the same values): equal to NumPy. One plan per edges: new edges build
  (compile) a plan once, kept in the context's cache.
- float data on the ref backend (no user functions) or in more bins than the engine's
  table holds: the library's even bins, floor((x - lo) * bins / (hi - lo)) in single
  precision, which may put a value within about one single-precision step of an interior
  edge in the neighbouring bin (python/README.md lists the differences).
- anything else (complex, object, strings, dates, integers beyond 32 bits) is refused with
  votecl.InvalidType naming the dtype.
- edges given as bins, a mask, or more than 2 dimensions: one N-D plan of the library
  whose uneven bins are NumPy's edges (compared exactly, the last bin closed): equal to NumPy
  on every backend.
"""
import collections
import functools
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from . import _cache, _lifetime
from ._core import is_device_array
from ._errors import Unsupported, invalid, invalid_type
from ._hist import Histogram
from ._vote import Vote

Array = npt.NDArray[Any]
Dtype = np.dtype[Any]

# the widest span of integer values counted one bin per value (u16's whole range)
IDENTITY_SPAN = 1 << 16
# 2-D identity counting: a u8 x u8 plane, and the most bins of other integer planes
IDENTITY_SPAN_2D = 1 << 8
IDENTITY_PLANE = 1 << 20
# the most dimensions of one histogram (VOTECL_HIST_MAX_DIMS)
MAX_DIMS = 8


class _Axis:
    """One dimension's data as the library takes it: values (u8/u16/u32/f32), the offset
    subtracted from integer values, and the data's original dtype (NumPy's edges follow
    it)."""

    def __init__(self, values: Array, offset: int, original: Dtype) -> None:
        self.values, self.offset, self.original = values, offset, original

    @property
    def integer(self) -> bool:
        return self.values.dtype.kind == "u"


def _smallest_uint(hi: int) -> Dtype:
    for t in ("u1", "u2", "u4"):
        if hi < 1 << (8 * int(t[1])):
            return np.dtype(t)
    raise AssertionError(hi)


def _axis(a: Any, name: str) -> _Axis:
    """a converted without loss for the library, else InvalidType naming its dtype."""
    arr = np.asarray(a)
    if arr.dtype == np.bool_:
        return _Axis(arr.view(np.uint8), 0, np.dtype(np.uint8))
    if arr.dtype in (np.uint8, np.uint16, np.float32):
        return _Axis(arr, 0, arr.dtype)
    if arr.dtype.kind in "ui":
        return _integers(arr, arr.dtype, name)
    if arr.dtype.kind == "f" and arr.dtype.itemsize <= 8:
        if arr.dtype.itemsize == 8 and arr.size and np.all(np.isfinite(arr)) and \
                np.array_equal(np.floor(arr), arr) and -2.0**62 < arr.min() and \
                arr.max() < 2.0**62:
            return _integers(arr.astype(np.int64), arr.dtype, name)  # whole numbers: exact
        f = arr.astype(np.float32)
        if arr.dtype.itemsize > 4 and not np.array_equal(f, arr, equal_nan=True):
            raise invalid_type("%s: dtype %s: values are not all exact in float32, the "
                               "library's float (give a.astype(np.float32) to accept the "
                               "rounding)" % (name, arr.dtype))
        return _Axis(f, 0, arr.dtype)
    raise invalid_type("%s: dtype %s is not supported: bool, integers, float16/32/64 (exact "
                       "in float32) or lists of numbers" % (name, arr.dtype))


def _integers(arr: Array, original: Dtype, name: str) -> _Axis:
    """Integer values as uint8/16/32, less their minimum where that brings them within
    identity bins (the fold adds it back)."""
    if arr.size == 0:
        return _Axis(arr.astype(np.uint8), 0, original)
    lo, hi = int(arr.min()), int(arr.max())
    if hi - lo < IDENTITY_SPAN:
        offset = lo if lo < 0 or hi >= IDENTITY_SPAN else 0
        shifted = arr - offset if offset else arr
        return _Axis(shifted.astype(_smallest_uint(hi - offset)), offset, original)
    if lo >= 0 and hi <= 0xFFFFFFFF:
        return _Axis(arr.astype(np.uint32), 0, original)
    raise invalid_type("%s: dtype %s with values from %d to %d: the library counts integers "
                       "from 0 to 2^32 - 1, or spanning fewer than %d values"
                       % (name, original, lo, hi, IDENTITY_SPAN))


@functools.lru_cache(maxsize=256)
def _edges_1d(dtype: str, bins: Any, range_: Any) -> Array:
    """NumPy's edges for data of dtype, bins and range (given, or the data's (min, max)):
    they depend on the data only through those, so an empty array of the dtype gives them."""
    lo, hi = (_thaw(range_[0]), _thaw(range_[1]))
    edges = np.histogram_bin_edges(np.empty(0, np.dtype(dtype)), bins, (lo, hi))
    edges.flags.writeable = False
    return edges


def _key(value: Any) -> Any:
    return (type(value), value.item() if isinstance(value, np.generic) else value)


def _thaw(key: Any) -> Any:
    t, v = key
    return t(v) if t is not bool else v


def _outer(arr: Array, range_: Any) -> Tuple[Any, Any]:
    """The range NumPy takes: the given one, or the data's (min, max) ((0, 1) when empty)."""
    if range_ is not None:
        return tuple(range_)  # type: ignore[return-value]
    if arr.size == 0:
        return 0, 1
    return arr.min(), arr.max()


def _edges(original: Array, axis: _Axis, bins: Any, range_: Any,
           weights: Any) -> Array:
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        lo, hi = _outer(original, range_)
        try:
            return _edges_1d(original.dtype.str, int(bins), (_key(lo), _key(hi)))
        except TypeError:  # an unhashable range: NumPy says what is wrong with it
            pass
    return np.histogram_bin_edges(original, bins, range_, weights)


_POSITIONS: "collections.OrderedDict[Any, Tuple[Array, Array]]" = \
    collections.OrderedDict()


def _position(edges: Array, offset: int, span: int) -> Array:
    """For the integer values offset .. offset + span - 1: where each bin starts in that
    list, and where the last ends; bin i holds values v with edges[i] <= v < edges[i + 1],
    the last bin also v == edges[-1] (np.histogram's rule). Kept for the edges NumPy's
    bins make (cached arrays, known by identity) as computing them costs more than a small
    histogram."""
    key = (id(edges), offset, span)
    hit = _POSITIONS.get(key)
    if hit is not None and hit[0] is edges:
        return hit[1]
    e = edges.astype(np.float64) - offset
    pos = np.empty(len(e), np.int64)
    pos[:-1] = np.clip(np.ceil(e[:-1]), 0, span)
    pos[-1] = np.clip(np.floor(e[-1]) + 1, 0, span)
    pos = np.maximum.accumulate(pos)
    if not edges.flags.writeable:  # NumPy's cached edges: never change, so kept
        _POSITIONS[key] = (edges, pos)
        while len(_POSITIONS) > 256:
            _POSITIONS.popitem(last=False)
    return pos


def _fold(per_value: Array, positions: List[Array]) -> Array:
    """Sums per-value counts (one axis per dimension) into the bins the positions bound."""
    if len(positions) == 1:  # the common case in as few NumPy calls as it takes
        pos = positions[0]
        c = np.empty(len(per_value) + 1, np.float64 if per_value.dtype.kind == "f" else np.int64)
        c[0] = 0
        per_value.cumsum(out=c[1:])
        picked = c[pos]
        return picked[1:] - picked[:-1]
    total = per_value.astype(np.float64 if per_value.dtype.kind == "f" else np.int64)
    for axis, pos in enumerate(positions):
        shape = list(total.shape)
        shape[axis] += 1
        c = np.zeros(shape, total.dtype)
        np.cumsum(total, axis=axis, out=c[(slice(None),) * axis + (slice(1, None),)])
        total = np.take(c, pos[1:], axis=axis) - np.take(c, pos[:-1], axis=axis)
    return total


def _identity_spans(axes: Sequence[_Axis]) -> Optional[Tuple[int, ...]]:
    """The identity plan's span per axis, or None where values are counted by range. 2-D:
    uint8 pairs take 256 x 256; other small integers the powers of two above their largest
    values (a few plans cover them all) while the plane holds at most IDENTITY_PLANE."""
    if not all(a.integer for a in axes):
        return None
    if len(axes) == 1:
        size = axes[0].values.dtype.itemsize
        return (256,) if size == 1 else (IDENTITY_SPAN,) if size == 2 else None
    if all(a.values.dtype == np.uint8 for a in axes):
        return (IDENTITY_SPAN_2D,) * 2
    if any(a.values.dtype.itemsize > 2 for a in axes):
        return None
    spans = tuple(1 << int(a.values.max()).bit_length() for a in axes)
    return spans if math.prod(spans) <= IDENTITY_PLANE else None


_RANGES: "collections.OrderedDict[int, Tuple[Array, Tuple[float, float]]]" = \
    collections.OrderedDict()


def _float_range(edges: Array) -> Tuple[float, float]:
    """The library's [lo, hi) for float32 data holding what NumPy's [edges[0], edges[-1]]
    holds: lo the first float32 at or above edges[0], hi just above the last float32 at or
    below edges[-1] (the last edge is included). Kept for NumPy's cached edges."""
    hit = _RANGES.get(id(edges))
    if hit is not None and hit[0] is edges:
        return hit[1]
    found = _float_range_of(edges)
    if not edges.flags.writeable:
        _RANGES[id(edges)] = (edges, found)
        while len(_RANGES) > 256:
            _RANGES.popitem(last=False)
    return found


def _float_range_of(edges: Array) -> Tuple[float, float]:
    e0, e1 = float(edges[0]), float(edges[-1])
    lo = np.float32(e0)
    if float(lo) < e0:
        lo = np.nextafter(lo, np.float32(np.inf))
    hi = np.float32(e1)
    if float(hi) > e1:
        hi = np.nextafter(hi, np.float32(-np.inf))
    return float(lo), float(np.nextafter(hi, np.float32(np.inf)))


def _uniform(bins: Any, edges: Array) -> bool:
    """Whether the bins are even: made from a count or an estimator's name by NumPy, or
    edges given evenly spaced (to a part in 10^4: float32 edges are not exactly even)."""
    if isinstance(bins, (int, np.integer, str)):
        return True
    d = np.diff(edges.astype(np.float64))
    return len(d) > 0 and bool(np.allclose(d, d.mean(), rtol=1e-4, atol=0))


def _counts(axes: List[_Axis], edges: List[Array], even: List[bool],
            weights: Optional[Array], context: Any) -> Array:
    """The histogram of the axes in NumPy's bins (int64; float64 when weighted)."""
    nbins = tuple(len(e) - 1 for e in edges)
    weighted = weights is not None
    if axes[0].values.size == 0:
        return np.zeros(nbins, np.float64 if weighted else np.int64)
    spans = _identity_spans(axes)
    dtype = axes[0].values.dtype
    if spans is not None:
        if len(axes) == 2 and axes[0].values.dtype != axes[1].values.dtype:
            dtype = np.dtype(np.uint16)  # the library's 2-D histograms take one dtype
            axes = [_Axis(a.values.astype(dtype), a.offset, a.original) for a in axes]
        rng = tuple((0, span) for span in spans)
        per_value = _run(context, dtype, spans, rng, axes, weights)
        return _fold(per_value, [_position(e, a.offset, span)
                                 for e, a, span in zip(edges, axes, spans)])
    floats = all(a.values.dtype == np.float32 for a in axes)
    if len(axes) == 2 and not floats:
        return _as_floats(axes, edges, even, weights, context)
    if floats:
        counts = _edge_votes(axes, edges, even, weights, context)
        if counts is not None:
            return counts
    if not all(even):
        raise Unsupported("bins: uneven edges with weights need integer data of fewer than "
                          "%d distinct values; with uint32 data spanning more, or float data "
                          "in more than %d bins, the library's bins are even"
                          % (IDENTITY_SPAN, TABLE_LIMIT - 4))
    if floats:
        ranges: Tuple[Tuple[float, float], ...] = tuple(_float_range(e) for e in edges)
        counts = _run(context, dtype, nbins, ranges, axes, weights)
        return counts.astype(np.float64 if weighted else np.int64)
    return _wide_integers(axes, edges, even, nbins, weights, context)


# The generic engine's user function for float data in NumPy's bins: per axis the table
# holds the bins' lower bounds, the last edge (included) and, for even bins,
# bins / (last - first), a first guess the loops correct (0: uneven bins, searched).
# Comparisons only, so a value on an edge lands in NumPy's bin.
_BIN_SOURCE = """
uint votecl_py_bin(float v, uint t, uint n)
{
    uint b, lo = 0, hi = n - 1;
    float scale = vote_table[t + n + 1];
    if (!(v >= vote_table[t] && v <= vote_table[t + n]))
        return n;
    if (scale > 0.0f) {
        float f = (v - vote_table[t]) * scale;
        b = f < (float)n ? (uint)f : n - 1;
        while (b > 0 && v < vote_table[t + b])
            b--;
        while (b + 1 < n && v >= vote_table[t + b + 1])
            b++;
        return b;
    }
    while (lo < hi) { /* the last bin whose lower bound is at most v */
        uint mid = (lo + hi + 1) / 2;
        if (v >= vote_table[t + mid])
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
"""
# the element: a float (1-D), float2 (x, y) or, weighted, float2 (x, w) or float4 (x, y, w, 0)
_SOURCE_1D = _BIN_SOURCE + """
uint vote_index(uint space, uint index, %(type)s v, uint nbins)
{
    uint b = votecl_py_bin(%(x)s, 0, nbins);
    return b < nbins ? b : VOTE_SKIP;
}
"""
_SOURCE_2D = _BIN_SOURCE + """
uint vote_index(uint space, uint index, %(type)s v, uint nbins)
{
    uint bx = votecl_py_bin(v.x, 0, %(nx)du), by = votecl_py_bin(v.y, %(ty)du, %(ny)du);
    return bx < %(nx)du && by < %(ny)du ? bx * %(ny)du + by : VOTE_SKIP;
}
"""
_WEIGHT_SOURCE = """
float vote_value(uint space, uint index, %(type)s v)
{
    return %(w)s;
}
"""
TABLE_LIMIT = 8192  # VOTECL_VOTE_MAX_TABLE

_TABLES: "collections.OrderedDict[Any, Tuple[Array, Array]]" = collections.OrderedDict()


def _edge_table(edges: Array, even: bool) -> Array:
    """One axis of the table _BIN_SOURCE reads: for float32 x, x >= e (any float e) exactly
    when x >= the least float32 at or above e, and x <= e when x <= the greatest float32 at
    or below e; kept for NumPy's cached edges."""
    key = (id(edges), even)
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is edges:
        return hit[1]
    e = edges.astype(np.float64)
    up = e.astype(np.float32)
    up = np.where(up.astype(np.float64) < e, np.nextafter(up, np.float32(np.inf)), up)
    last = np.float32(e[-1])
    if float(last) > e[-1]:
        last = np.nextafter(last, np.float32(-np.inf))
    table = np.concatenate([up[:-1], [last]]).astype(np.float32)
    scale = np.float32(0)
    if even and table[-1] > table[0]:
        scale = np.float32((len(e) - 1) / (float(table[-1]) - float(table[0])))
    table = np.concatenate([table, [scale if np.isfinite(scale) else 0]]).astype(np.float32)
    if not edges.flags.writeable:
        _TABLES[key] = (edges, table)
        while len(_TABLES) > 256:
            _TABLES.popitem(last=False)
    return table


_SPECS: "collections.OrderedDict[Any, Tuple[List[Array], Dict[str, Any], Any]]" = \
    collections.OrderedDict()


def _edge_spec(edges: List[Array], even: List[bool], channels: int,
               weighted: bool) -> Tuple[Dict[str, Any], Any]:
    """The Vote plan's parameters for these edges and its cache key; kept for NumPy's
    cached edges (building the source and table costs more than a small call)."""
    key = (tuple(id(e) for e in edges), tuple(even), channels, weighted)
    hit = _SPECS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], edges)):
        return hit[1], hit[2]
    nbins = [len(e) - 1 for e in edges]
    table = np.concatenate([_edge_table(e, u) for e, u in zip(edges, even)])
    fill = dict(type={1: "float", 2: "float2", 4: "float4"}[channels],
                x="v" if channels == 1 else "v.x", nx=nbins[0], ny=nbins[-1],
                ty=nbins[0] + 2, w="v.y" if len(edges) == 1 else "v.z")
    source = (_SOURCE_1D if len(edges) == 1 else _SOURCE_2D) % fill
    if weighted:
        source += _WEIGHT_SOURCE % fill
    params = dict(source=source, dtype=np.float32, channels=channels, bins=math.prod(nbins),
                  table=table, bin_type="f32" if weighted else "unity")
    spec = (params, ("edges", source, table.tobytes()))
    if all(not e.flags.writeable for e in edges):
        _SPECS[key] = (list(edges), spec[0], spec[1])
        while len(_SPECS) > 256:
            _SPECS.popitem(last=False)
    return spec


def _edge_votes(axes: List[_Axis], edges: List[Array], even: List[bool],
                weights: Optional[Array], context: Any) -> Optional[Array]:
    """Float data (1-D or 2-D) counted in NumPy's bins exactly, by the generic engine
    comparing each value with the bins' bounds (one plan per edges, as for any float range);
    weights are summed in single precision. None where the backend runs no user functions
    (ref) or the table would not fit."""
    nbins = [len(e) - 1 for e in edges]
    if sum(nbins) + 2 * len(nbins) > TABLE_LIMIT:
        return None
    ctx = _lifetime.resolve_context(context)
    if getattr(ctx, "_no_user_votes", False):
        return None
    columns = [a.values.reshape(-1) for a in axes]
    if weights is not None:
        columns.append(weights.reshape(-1))
    if len(columns) == 3:
        columns.append(np.zeros_like(columns[0]))  # the engine's elements have 1, 2 or 4
    x = columns[0] if len(columns) == 1 else np.stack(columns, axis=1).reshape(-1)
    params, key = _edge_spec(edges, even, len(columns), weights is not None)
    try:
        votes = _cache.run(ctx, Vote, (), params, lambda plan: plan(x)[0], key=key)
    except Unsupported:
        ctx._no_user_votes = True
        return None
    counts: Array = votes[0].astype(np.int64 if weights is None else np.float64)
    return counts.reshape(nbins)


def _as_floats(axes: List[_Axis], edges: List[Array], even: List[bool],
               weights: Optional[Array], context: Any) -> Array:
    """2-D integer data beyond identity planes, or mixed with floats, counted as float32
    (exact for values below 2^24)."""
    if not all(a.values.size == 0 or abs(int(a.values.max()) + a.offset) < (1 << 24) and
               abs(a.offset) < (1 << 24) for a in axes if a.integer):
        raise Unsupported("histogram2d: integer data beyond 2^24 or mixed with floats: "
                          "give float32 data or uint8 values")
    floats = [_Axis((a.values.astype(np.float64) + a.offset).astype(np.float32), 0,
                    a.original) for a in axes]
    return _counts(floats, edges, even, weights, context)


def _wide_integers(axes: List[_Axis], edges: List[Array], even: List[bool],
                   nbins: Tuple[int, ...],
                   weights: Optional[Array], context: Any) -> Array:
    """1-D uint32 data spanning more values than identity bins hold: the library's integer
    bins over [edges[0], edges[-1]) (integer edges only), the values on the last edge added
    here."""
    e = edges[0]
    lo, hi = float(e[0]), float(e[-1])
    if lo != math.floor(lo) or hi != math.floor(hi) or lo < 0:
        raise Unsupported("range: uint32 data spanning more than %d values needs whole, "
                          "non-negative range ends, not (%r, %r)" % (IDENTITY_SPAN, lo, hi))
    x = axes[0].values
    counts = _run(context, x.dtype, nbins, ((lo, hi),), axes, weights)
    counts = counts.astype(np.float64 if weights is not None else np.int64)
    last = x == int(hi)
    counts[-1] += weights[last].sum() if weights is not None else np.count_nonzero(last)
    return counts


def _run(context: Any, dtype: Dtype, nbins: Tuple[int, ...], rng: Tuple[Any, ...],
         axes: List[_Axis], weights: Optional[Array]) -> Array:
    """The library's histogram of the axes (uint32 counts or float32 sums)."""
    two = len(axes) == 2
    bins = nbins if two else nbins[0]
    range_ = rng if two else rng[0]
    params = dict(two_arrays=True) if two else {}
    x = np.ascontiguousarray(axes[0].values)
    y = np.ascontiguousarray(axes[1].values) if two else None
    counts: Array = _cache.run(context, Histogram, (dtype, bins, range_), dict(
        params, weighted=weights is not None), lambda plan: plan(x, y, weights))
    return counts


def _weights(weights: Any, size: int) -> Optional[Array]:
    if weights is None:
        return None
    w = np.asarray(weights)
    if w.dtype.kind not in "biuf":
        raise invalid_type("weights: dtype %s is not a real number type" % w.dtype)
    if w.size != size:
        raise invalid("weights: %d values for %d data values" % (w.size, size))
    return np.ascontiguousarray(w.reshape(-1), np.float32)


def _result(counts: Array, edges: List[Array], density: Any,
            weights: Any, dd: bool = False) -> Array:
    if dd:  # np.histogramdd's counts are float64 whatever the data
        counts = counts.astype(np.float64)
    if weights is not None:
        wdtype = np.asarray(weights).dtype
        counts = counts.astype(wdtype if wdtype.kind == "f" else np.float64)
    if not density:
        return counts
    total = counts.sum()
    for axis, e in enumerate(edges):
        shape = [1] * len(edges)
        shape[axis] = len(e) - 1
        counts = counts / np.diff(e.astype(np.float64)).reshape(shape)
    result: Array = counts / total
    return result


def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
              weights: Any = None, mask: Any = None, *, context: Any = None
              ) -> Tuple[Any, Array]:
    """np.histogram on the library: (counts, bin_edges).

    a: values (any shape, flattened): bool, integers, float16/32/64 (float64 only when
    exact in float32) or a list of numbers; bins: an int, a sequence of edges (integer data)
    or one of NumPy's estimator names ("auto", "fd", ...); range: (lo, hi), by default the
    data's minimum and maximum, the last bin including hi; density and weights as NumPy's;
    mask: a.size uint8 (or bool), nonzero counts (NumPy has none). Edges given as bins are
    the library's own uneven bins (NumPy's rule, found by binary search on the device).
    context: a votecl.Context (None: the calling thread's). Counts are int64 (weights'
    dtype when weighted); a GPU array on a CUDA context keeps the old rules (see
    python/README.md).

    >>> votecl.histogram([1, 2, 2, 3], bins=3)
    (array([1, 2, 1]), array([1.        , 1.66666667, 2.33333333, 3.        ]))
    """
    if is_device_array(a):
        return _device_histogram(a, bins, range, weights, context)
    original = np.asarray(a)
    if original.dtype == np.bool_:
        original = original.view(np.uint8)
    axis = _axis(original.reshape(-1), "a")
    w = _weights(weights, original.size)
    if range is None and w is None and mask is None and isinstance(bins, (int, np.integer)) \
            and original.dtype in (np.uint8, np.uint16) and original.size:
        return _identity_histogram(axis, original.dtype, int(bins), density, context)
    edges = _edges(original.reshape(-1), axis, bins, range, weights)
    if mask is not None or not (isinstance(bins, (int, np.integer, str))):
        # edges given (or a mask): the library's bins are NumPy's edges, on every backend
        counts = _nd_counts([axis], [edges], w, mask, context)
    else:
        counts = _counts([axis], [edges], [_uniform(bins, edges)], w, context)
    return _result(counts, [edges], density, weights), edges


def _identity_histogram(axis: _Axis, dtype: Dtype, bins: int, density: Any,
                        context: Any) -> Tuple[Array, Array]:
    """uint8 or uint16 data over its own range: the device's per-value counts give the
    minimum and maximum too, sparing the host its two passes over the data."""
    span = 256 if dtype == np.uint8 else IDENTITY_SPAN
    per_value = _run(context, dtype, (span,), ((0, span),), [axis], None)
    present = np.flatnonzero(per_value)
    lo, hi = dtype.type(present[0]), dtype.type(present[-1])
    edges = _edges_1d(dtype.str, bins, (_key(lo), _key(hi)))
    counts = _fold(per_value, [_position(edges, 0, span)])
    return _result(counts, [edges], density, None), edges


def _device_histogram(a: Any, bins: Any, range_: Any, weights: Any,
                      context: Any) -> Tuple[Any, Array]:
    """A GPU array: the library's bins over range (the dtype's default range when None), its
    upper end excluded, counts left on the GPU (as before NumPy's rules came)."""
    dtype = a.dtype
    dtype = np.dtype(str(dtype).replace("torch.", "")) if not isinstance(dtype, np.dtype) \
        else dtype
    bins = 256 if bins is None else bins
    plan_range = tuple(range_) if range_ is not None else None
    counts = _cache.run(context, Histogram, (dtype, bins, plan_range),
                        dict(weighted=weights is not None),
                        lambda plan: (plan(a, weights=weights), plan.params))
    p = counts[1]
    return counts[0], np.linspace(p.min[0], p.max[0], int(p.nbins[0]) + 1)


def _sample(sample: Any) -> List[Array]:
    """histogramdd's sample: an (N, D) array or a sequence of D arrays of N values."""
    if isinstance(sample, np.ndarray) or not hasattr(sample, "__len__"):
        arr = np.asarray(sample)
        if arr.ndim == 1:
            return [arr]
        if arr.ndim != 2:
            raise invalid("sample: an (N, D) array or D arrays, not shape %s" % (arr.shape,))
        return [arr[:, i] for i in range(arr.shape[1])]
    try:
        arrays = [np.asarray(s) for s in sample]
    except TypeError:
        arrays = [np.asarray(sample)]
    if arrays and all(x.ndim == 0 for x in arrays):
        return [np.asarray(sample)]
    return [x.reshape(-1) for x in arrays]


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None, mask: Any = None, *, context: Any = None
                ) -> Tuple[Any, List[Array]]:
    """np.histogramdd on the library, 1 to 8 dimensions: (counts, [edges per dimension]).

    sample: an (N, D) array or a sequence of D arrays; bins: an int, one per dimension, or
    edge arrays; range: per dimension (lo, hi) or None (the data's minimum and maximum);
    density, weights: as NumPy's; mask: N uint8 (or bool), only elements with a nonzero mask
    count (cv2.calcHist's mask; NumPy has none). More than 2 dimensions, edges, or a mask count in
    one N-D plan whose bins are NumPy's edges (binary search on the device, every backend):
    equal to np.histogramdd."""
    arrays = _sample(sample)
    d = len(arrays)
    if d > MAX_DIMS or d == 0:
        raise Unsupported("histogramdd: %d dimensions; the library's histograms have 1 to %d"
                          % (d, MAX_DIMS))
    n = arrays[0].size
    if any(x.size != n for x in arrays):
        raise invalid("sample: the dimensions hold %s values; they must be equal"
                      % [x.size for x in arrays])
    bins_ = list(bins) if isinstance(bins, (list, tuple)) and len(bins) == d else [bins] * d
    ranges = list(range) if range is not None else [None] * d
    if len(ranges) != d:
        raise invalid("range: %d pairs for %d dimensions" % (len(ranges), d))
    arrays = [x.view(np.uint8) if x.dtype == np.bool_ else x for x in arrays]
    axes = [_axis(x, "sample[%d]" % i) for i, x in enumerate(arrays)]
    edges = [_dd_edges(x, b, r) for x, b, r in zip(arrays, bins_, ranges)]
    explicit = any(not isinstance(b, (int, np.integer, str)) for b in bins_)
    if d > 2 or mask is not None or explicit:
        counts = _nd_counts(axes, edges, _weights(weights, n), mask, context)
    else:
        even = [_uniform(b, e) for b, e in zip(bins_, edges)]
        counts = _counts(axes, edges, even, _weights(weights, n), context)
    return _result(counts, edges, density, weights, dd=True), edges


def _library_dtype(axes: Sequence[_Axis]) -> Dtype:
    """One dtype for every dimension of an N-D plan: the widest unsigned integer, else
    float32 (integers then exact in float32 or refused)."""
    dtypes = [a.values.dtype for a in axes]
    if all(t.kind == "u" for t in dtypes):
        return max(dtypes, key=lambda t: t.itemsize)
    for i, a in enumerate(axes):
        if a.values.dtype.kind == "u" and a.values.size and int(a.values.max()) >= 1 << 24:
            raise Unsupported("sample[%d]: integers beside float data must be exact in float32 "
                              "(below 2^24) for one N-D plan" % i)
    return np.dtype(np.float32)


def _nd_counts(axes: Sequence[_Axis], edges: Sequence[Array], weights: Optional[Array],
               mask: Any, context: Any) -> Array:
    """Counts in NumPy's bins from one N-D plan over the dimensions interleaved: its bins
    are the edges themselves (NumPy's rule, the last bin closed), compared exactly."""
    dtype = _library_dtype(axes)
    nbins = tuple(len(e) - 1 for e in edges)
    data = np.empty((axes[0].values.size, len(axes)), dtype)
    for i, a in enumerate(axes):
        data[:, i] = a.values
    lib_edges = [np.asarray(e, np.float64) - a.offset for e, a in zip(edges, axes)]
    plan = Histogram(context, dtype, bin_edges=lib_edges, channels=len(axes),
                     weighted=weights is not None, edges="numpy")
    try:
        counts = plan(data, weights=weights, mask=None if mask is None else
                      np.asarray(mask).reshape(-1))
    finally:
        plan.close()
    result: Array = counts.reshape(nbins).astype(np.float64 if weights is not None
                                                      else np.int64)
    return result


@functools.lru_cache(maxsize=256)
def _dd_edges_cached(dtype: str, bins: int, lo: Any, hi: Any) -> Array:
    empty = np.empty((0, 1), np.dtype(dtype))
    edges = np.histogramdd(empty, bins, [(_thaw(lo), _thaw(hi))])[1][0]
    edges.flags.writeable = False
    return edges


def _dd_edges(x: Array, bins: Any, range_: Any) -> Array:
    """np.histogramdd's edges of one dimension (float64 linspace over the outer edges)."""
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        lo, hi = _outer(x, range_)
        return _dd_edges_cached(x.dtype.str, int(bins), _key(lo), _key(hi))
    edges = np.asarray(bins)
    if edges.ndim != 1:
        raise invalid("bins: an int or a 1-D array of edges per dimension")
    return edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None, *, context: Any = None
                ) -> Tuple[Any, Array, Array]:
    """np.histogram2d on the library: (counts, xedges, yedges).

    x, y: N values each (see histogram for the dtypes); bins: an int, [nx, ny], or edge
    arrays (integer data); range: [[xmin, xmax], [ymin, ymax]] or None (the data's);
    density, weights: as NumPy's."""
    if isinstance(bins, (int, np.integer)) or (isinstance(bins, (list, tuple)) and
                                                len(bins) == 2):
        b = bins
    else:
        b = [bins, bins]
    counts, edges = histogramdd([np.asarray(x).reshape(-1), np.asarray(y).reshape(-1)], b,
                                range, density, weights, context=context)
    return counts, edges[0], edges[1]
