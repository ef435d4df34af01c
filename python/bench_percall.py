#!/usr/bin/env python3
"""Per-call cost of Python over C for a held histogram plan (issue 25's target: Python over C
at most 1.10 for a 20 us histogram, at most 5 us of floor per call).

For each size, one plan and one array are timed three ways, round after round so that a
loaded machine slows them alike:
  C        votecl_hist_run in a C loop (votecl._fast.time_hist_run: what a C program pays)
  fast     plan(x) through the compiled path (votecl._fast)
  ctypes   plan(x) with the compiled path off (votecl._lib.fast = None)
and the medians per call are printed with Python/C ratios and floors (Python - C, us).
A device's own time varies from call to call (on a loaded CPU by tens of us), so the floor is
also measured alone: plan(x) with a C function that does nothing bound in place of
votecl_hist_run, through each path (Python's own cost per call, whatever the device).

    python3 python/bench_percall.py [--backend opencl|cuda|ref] [--device SEL]
                                    [--sizes 256,4096,65536,1048576] [--calls N] [--rounds N]

From a build tree: VOTECL_LIBRARY=lib/.libs/libvotecl.so VOTECL_KERNEL_PATH=cl (make check
builds python/_fast.abi3.so, which the package then loads).
"""
import argparse
import os
import sys
import ctypes
import time
from typing import Any, Callable, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import votecl  # noqa: E402
from votecl import _lib  # noqa: E402


def median(values: List[float]) -> float:
    return sorted(values)[len(values) // 2]


def python_time(call: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls


def measure(plan: Any, x: Any, calls: int, rounds: int) -> List[float]:
    """Median seconds per call: C, fast, ctypes (their order rotated round after round, as
    whichever runs first after another's burst finds the device's threads in another state)."""
    fast = _lib.fast
    out = np.empty(plan.shape, plan.out_dtype)
    fmt = np.empty(0, plan.dtype).data.format

    def ctypes_path() -> float:
        _lib.fast = None
        try:
            return python_time(lambda: plan(x), calls)
        finally:
            _lib.fast = fast
    ways: List[Callable[[], float]] = [
        lambda: float(fast.time_hist_run(plan._handle, x, None, None, fmt, 1, out, calls)),
        lambda: python_time(lambda: plan(x), calls),
        ctypes_path]
    times: List[List[float]] = [[], [], []]
    for r in range(rounds + 1):  # round 0 warms up
        for k in range(3):
            i = (r + k) % 3
            t = ways[i]()
            if r:
                times[i].append(t)
    return [median(t) for t in times]


def floors(plan: Any, x: Any, calls: int, rounds: int) -> List[float]:
    """Median seconds per call of plan(x) with votecl_hist_run replaced by a no-op: fast,
    ctypes."""
    fast, real = _lib.fast, _lib.fn.hist_run
    stub = ctypes.cast(fast.stub(), type(real))
    stub.restype, stub.argtypes = real.restype, real.argtypes
    times: List[List[float]] = [[], []]
    try:
        fast.bind(fast.stub())
        _lib.fn.hist_run = stub
        for r in range(rounds + 1):
            f = python_time(lambda: plan(x), calls)
            _lib.fast = None
            try:
                t = python_time(lambda: plan(x), calls)
            finally:
                _lib.fast = fast
            if r:
                times[0].append(f)
                times[1].append(t)
    finally:
        fast.bind(ctypes.cast(_lib.lib.votecl_hist_run, ctypes.c_void_p).value)
        _lib.fn.hist_run = real
    return [median(t) for t in times]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default=None, help="opencl, cuda or ref (default: the library's)")
    ap.add_argument("--device", default=None, help="a device selector, e.g. ':GPU:0'")
    ap.add_argument("--sizes", default="256,4096,65536,1048576",
                    help="uint8 elements per call, comma-separated")
    ap.add_argument("--calls", type=int, default=200, help="calls per timed batch")
    ap.add_argument("--rounds", type=int, default=15, help="timed batches (medians)")
    args = ap.parse_args()
    if _lib.fast is None:
        print("votecl._fast is not built or not loaded (VOTECL_PYTHON_FAST=0?): nothing to "
              "compare", file=sys.stderr)
        return 1
    ctx = votecl.Context(backend=args.backend, device=args.device)
    print("device: %s (%s); library %s; extension %s"
          % (ctx.device.name, ctx.backend, _lib.path, _lib.fast.__file__))
    print("256-bin uint8 histogram, held plan, host arrays; medians of %d rounds of %d calls"
          % (args.rounds, args.calls))
    print("%10s %10s %10s %8s %10s %10s %8s %10s" % ("elements", "C us", "fast us", "fast/C",
                                                     "floor us", "ctypes us", "ctypes/C",
                                                     "floor us"))
    rng = np.random.default_rng(1)
    plan = votecl.Histogram(ctx, np.uint8, 256, (0, 256))
    for size in (int(s) for s in args.sizes.split(",")):
        x = rng.integers(0, 256, size, dtype=np.uint8)
        c, f, t = measure(plan, x, args.calls, args.rounds)
        print("%10d %10.2f %10.2f %8.3f %10.2f %10.2f %8.3f %10.2f"
              % (size, c * 1e6, f * 1e6, f / c, (f - c) * 1e6, t * 1e6, t / c, (t - c) * 1e6))
    f, t = floors(plan, x, args.calls * 10, args.rounds)
    print("floor alone (votecl_hist_run a no-op), %d elements: fast %.2f us, ctypes %.2f us"
          % (x.size, f * 1e6, t * 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
