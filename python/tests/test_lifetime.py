"""Lifetimes that cannot crash (issue 25.1, issue 28.2): whatever order objects are closed,
deleted or collected in (with blocks, del in every order, garbage cycles, interpreter exit,
another thread), no call reaches freed C memory; a call on a closed object raises
votecl.ClosedError. The patterns that used to crash run in a child interpreter each, so a
crash is a failed exit code here rather than the end of the test run."""
import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import votecl

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(votecl.__file__)))
PRELUDE = """
import gc, itertools, sys, threading
import numpy as np
import votecl
x = np.arange(1000, dtype=np.uint8)
edges = np.zeros((48, 64), np.uint8)
edges[10, :] = 255
"""


@pytest.fixture(scope="module")
def backend():
    try:
        votecl.Context(backend="opencl").close()
    except votecl.VoteclError as e:
        pytest.skip("no OpenCL device: %s" % e)
    return "opencl"


def run_child(code, backend, expect_rc=0):
    """Runs code in a fresh interpreter on this package; returns its stdout, asserting its
    exit status (139 / -11 is the segfault this file guards against)."""
    env = dict(os.environ, PYTHONPATH=PACKAGE + os.pathsep + os.environ.get("PYTHONPATH", ""),
               VOTECL_BACKEND=backend)
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == expect_rc, "exit %d\nstdout:\n%s\nstderr:\n%s" % (
        r.returncode, r.stdout, r.stderr[-3000:])
    assert "Exception ignored" not in r.stderr, r.stderr
    return r.stdout


def test_plan_collected_after_its_with_block(backend):
    out = run_child("""
        with votecl.Context() as ctx:
            h = votecl.Histogram(ctx, np.uint8)
            print(h(x).sum())
        del h
        gc.collect()
        print("end")
    """, backend)
    assert out.split() == ["1000", "end"]


def test_call_after_context_close_raises(backend):
    out = run_child("""
        ctx = votecl.Context()
        h = votecl.Histogram(ctx, np.uint8)
        ctx.close()
        try:
            h(x)
        except votecl.ClosedError as e:
            print("closed:", e.message)
        assert h.closed and ctx.closed
    """, backend)
    assert "closed: Histogram: its context was closed" in out


def test_interpreter_exit_with_module_level_objects(backend):
    """The README's pattern (issue 28.2): module-level context, plan and function; the
    function's globals make a cycle, finalized in no particular order at exit."""
    out = run_child("""
        ctx = votecl.Context()
        h = votecl.Histogram(ctx, np.uint8, bins=16, range=(0, 256))
        hough = votecl.Hough(ctx, 64, 48)
        buf = votecl.Buffer(ctx, 1024)
        def count(v):
            return h(v).sum()
        class Pipeline:
            pass
        p = Pipeline()
        p.me, p.ctx, p.h = p, ctx, h
        print(count(x), len(hough(edges)))
    """, backend)
    assert out.split()[0] == "1000"


def test_interpreter_exit_with_default_context(backend):
    out = run_child("""
        h = votecl.Histogram(None, np.uint8)
        def f():
            return int(votecl.histogram(x, bins=4)[0].sum()) + int(h(x).sum())
        print(f())
    """, backend)
    assert out.split() == ["2000"]


def test_buffer_and_accumulator_after_context_close(backend):
    out = run_child("""
        ctx = votecl.Context()
        b = votecl.Buffer(ctx, 4096)
        hough = votecl.Hough(ctx, 64, 48)
        hough(edges)
        ctx.close()
        for what, call in (("read", b.read), ("write", lambda: b.write(x)),
                           ("accumulator", lambda: hough.accumulator),
                           ("hough", lambda: hough(edges))):
            try:
                call()
                print(what, "returned")
            except votecl.ClosedError as e:
                print(what, "ClosedError")
    """, backend)
    assert out.split() == ["read", "ClosedError", "write", "ClosedError", "accumulator",
                           "ClosedError", "hough", "ClosedError"]


def test_del_in_every_order(backend):
    """Context, plan, buffer, model and detector deleted in all 120 orders, each followed by
    a collection; then the same objects left in a garbage cycle."""
    out = run_child("""
        names = ["ctx", "h", "b", "model", "hough"]
        n = 0
        for order in itertools.permutations(names):
            ctx = votecl.Context()
            objs = {"ctx": ctx, "h": votecl.Histogram(ctx, np.uint8, bins=8, range=(0, 256)),
                    "b": votecl.Buffer(ctx, 256), "model": votecl.HOGModel.people(ctx),
                    "hough": votecl.Hough(ctx, 64, 48)}
            del ctx
            objs["h"](x)
            for name in order:
                del objs[name]
                gc.collect()
            n += 1
        for i in range(10):
            ctx = votecl.Context()
            objs = [ctx, votecl.Histogram(ctx, np.uint8), votecl.Buffer(ctx, 256),
                    votecl.Hough(ctx, 64, 48), votecl.HOGModel.people(ctx)]
            objs[1](x)
            objs.append(objs)
            for o in objs[1:5]:
                o.cycle = objs
            del ctx, objs, o
            gc.collect()
        print(n)
    """, backend)
    assert out.split() == ["120"]


def test_close_in_every_order(backend):
    out = run_child("""
        n = 0
        for order in itertools.permutations(range(4)):
            ctx = votecl.Context()
            objs = [ctx, votecl.Histogram(ctx, np.uint8), votecl.Buffer(ctx, 64),
                    votecl.Hough(ctx, 64, 48)]
            for i in order:
                objs[i].close()
                objs[i].close()   # twice is fine
            assert all(o.closed for o in objs)
            n += 1
        print(n)
    """, backend)
    assert out.split() == ["24"]


def test_close_from_another_thread_during_calls(backend):
    """close() waits for the call in progress (the context's lock); the thread's next call
    raises ClosedError, never touches freed memory."""
    out = run_child("""
        big = np.random.default_rng(1).integers(0, 256, 4_000_000, dtype=np.uint8)
        results = []
        for trial in range(5):
            ctx = votecl.Context()
            h = votecl.Histogram(ctx, np.uint8)
            started = threading.Event()
            def work():
                try:
                    while True:
                        started.set()
                        assert h(big).sum() == big.size
                except votecl.ClosedError:
                    results.append("closed")
            t = threading.Thread(target=work)
            t.start()
            started.wait()
            ctx.close()
            t.join()
        print(" ".join(results))
    """, backend)
    assert out.split() == ["closed"] * 5


def test_errors_for_wrong_arguments(backend):
    """Issue 25.6: Python's own errors for wrong arguments become votecl errors naming
    them."""
    ctx = votecl.Context(backend=backend)
    with pytest.raises(votecl.InvalidArgument, match="width"):
        votecl.Hough(ctx)                              # was a ctypes ArgumentError
    with pytest.raises(votecl.InvalidArgument, match="channel: an array of 8"):
        votecl.Histogram(ctx, np.uint8, channels=3, channel=2)   # was "'int' object ..."
    with pytest.raises(votecl.InvalidArgument, match="context"):
        votecl.Histogram("not a context", np.uint8)
    with pytest.raises(votecl.InvalidArgument, match="shape"):
        votecl.hough_lines(np.zeros(100, np.uint8), context=ctx)   # issue 23 item 7
    with pytest.raises(votecl.InvalidArgument, match="shape"):
        votecl.lines(np.zeros(100, np.uint8), context=ctx)
    ctx.close()


def test_in_process_close_and_with(backend):
    with votecl.Context(backend=backend) as ctx:
        h = votecl.Histogram(ctx, np.uint8, bins=4, range=(0, 256))
        b = votecl.Buffer(ctx, 16)
        with votecl.Histogram(ctx, np.uint8) as inner:
            inner(np.zeros(3, np.uint8))
        assert inner.closed and not h.closed
    assert h.closed and b.closed
    with pytest.raises(votecl.ClosedError):
        h(np.zeros(3, np.uint8))
    with pytest.raises(votecl.ClosedError):
        votecl.Histogram(ctx, np.uint8)
    assert "closed" in repr(ctx)
    kept = votecl.Histogram(votecl.Context(backend=backend), np.uint8, bins=4, range=(0, 256))
    gc.collect()    # the plan alone keeps its context open
    assert kept(np.arange(256, dtype=np.uint8)).tolist() == [64] * 4
    assert not kept.context.closed
