"""Plans kept behind the one-shot functions (votecl.histogram, hough_lines, lines, ...).

A one-shot call builds a plan (kernels compiled or fetched from the caches, buffers
allocated): most of a small call's time. Each context keeps its recent plans, keyed by the
plan's class and every argument that shaped it (sizes, dtype, bins, range, parameters), in a
least-recently-used list of at most SIZE; the evicted plan is closed at once. As each thread
has its own default context, each thread has its own plans; a shared context's list is used
under its lock.
"""
import collections
from typing import Any, Callable, Dict, Hashable, Optional, Tuple

import numpy as np

from . import _lifetime


SIZE = 16  # plans kept per context


def _frozen(value: Any) -> Hashable:
    """A hashable key for a plan argument (sequences become tuples, dtypes their names)."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return np.dtype(value).str
    if isinstance(value, np.generic):
        return (type(value).__name__, value.item())
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    hash(value)
    return (type(value).__name__, value)


def run(context: Any, cls: Callable[..., Any], args: Tuple[Any, ...], params: Dict[str, Any],
        call: Callable[[Any], Any], key: Optional[Hashable] = None) -> Any:
    """call(plan) on the context's plan cls(context, *args, **params), made on first use;
    the context's lock is held throughout, so no other thread evicts the plan meanwhile.
    key: what identifies args and params, where the caller has it cheaper than hashing
    them."""
    ctx = _lifetime.resolve_context(context)
    try:  # equal values make equal plans (the C side sees the same numbers): no type in keys
        if key is not None:
            key = (cls, key)
        else:
            key = (cls, args, tuple(sorted(params.items())))
        hash(key)
    except TypeError:
        try:
            key = (cls, _frozen(args), _frozen(sorted(params.items())))
        except TypeError:
            key = None  # an unhashable parameter: a plan for this call only
    with ctx._native.lock:
        if key is None:
            with cls(ctx, *args, **params) as plan:
                return call(plan)
        plans = ctx._plans
        if plans is None:
            plans = ctx._plans = collections.OrderedDict()
        plan = plans.get(key)
        if plan is None or plan.closed:
            plan = plans[key] = cls(ctx, *args, **params)
            while len(plans) > SIZE:
                plans.popitem(last=False)[1].close()
        plans.move_to_end(key)
        return call(plan)


def clear(context: Any = None) -> None:
    """Closes the plans a context (None: the thread's default) keeps for one-shot calls."""
    ctx = _lifetime.resolve_context(context)
    with ctx._native.lock:
        plans, ctx._plans = ctx._plans, None
        for plan in (plans or {}).values():
            plan.close()
