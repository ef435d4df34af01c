"""Any thread (issue 25.2): the one-shot functions run from any thread at once (each thread
has its own default context), and a context or plan shared between threads serialises their
calls under the context's lock instead of failing."""
import threading

import numpy as np
import pytest

import votecl

THREADS, CALLS = 4, 50


def line_image():
    im = np.zeros((48, 64), np.uint8)
    im[16, :] = 255
    im[:, 20] = 255
    return im


def in_threads(work):
    """work(thread, call) THREADS x CALLS times; the exceptions raised, as strings."""
    failures = []
    lock = threading.Lock()

    def run(t):
        for i in range(CALLS):
            try:
                work(t, i)
            except Exception as e:  # every failure is counted, whatever its kind
                with lock:
                    failures.append("%s: %s" % (type(e).__name__, e))
    threads = [threading.Thread(target=run, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failures


def test_one_shot_functions_from_any_thread(ctx, monkeypatch):
    monkeypatch.setenv("VOTECL_BACKEND", "opencl")
    rng = np.random.default_rng(7)
    data = [rng.integers(0, 256, 5000 + 17 * t, dtype=np.uint8) for t in range(THREADS)]
    im = line_image()
    want_lines = votecl.hough_lines(im, context=ctx, max_lines=2)
    want_pclines = votecl.lines(im, context=ctx)

    def work(t, i):
        counts, edges = votecl.histogram(data[t], bins=16, range=(0, 256))
        np.testing.assert_array_equal(counts, np.histogram(data[t], 16, (0, 256))[0])
        if i % 5 == 0:
            assert votecl.hough_lines(im, max_lines=2) == want_lines
            assert votecl.lines(im) == want_pclines
    failures = in_threads(work)
    assert failures == [], "%d of %d calls failed: %s" % (len(failures), THREADS * CALLS,
                                                         failures[:3])


def test_threads_have_their_own_default_context(monkeypatch):
    monkeypatch.setenv("VOTECL_BACKEND", "ref")
    seen = []
    t = threading.Thread(target=lambda: seen.append(votecl.default_context()))
    t.start()
    t.join()
    mine = votecl.default_context()
    assert seen[0] is not mine and mine is votecl.default_context()


def test_shared_plan_and_context(ctx):
    """One plan and one context used by four threads at once: their calls take turns."""
    x = np.random.default_rng(3).integers(0, 256, 20000, dtype=np.uint8)
    want = np.bincount(x, minlength=256)
    shared = votecl.Histogram(ctx, np.uint8)
    own = [votecl.Histogram(ctx, np.uint8, bins=8, range=(0, 256)) for _ in range(THREADS)]

    def work(t, i):
        np.testing.assert_array_equal(shared(x), want)
        assert own[t](x).sum() == x.size
    failures = in_threads(work)
    assert failures == [], failures[:3]
