"""Bindings of issue 25's "rest that users need": warm-up, the batch pipeline as an iterator
over results, device-buffer entry points and asynchronous calls."""
import os
import threading

import numpy as np
import pytest

import votecl


# --- warm-up --------------------------------------------------------------------------------

def test_warmup_on_ref_compiles_nothing():
    calls = []
    with votecl.Context(backend="ref") as ctx:
        assert ctx.warmup(progress=lambda *a: calls.append(a)) == 0
    assert calls == []


@pytest.mark.skipif(os.environ.get("VOTECL_TEST_SLOW") != "1",
                    reason="compiles every default plan's kernels: make check-slow")
def test_warmup_reports_every_step_and_raises_what_progress_raised():
    with votecl.Context(backend="opencl") as ctx:
        steps = []
        n = ctx.warmup(progress=lambda step, i, total: steps.append((step, i, total)))
        assert n == len(steps) > 0
        assert [i for _, i, _ in steps] == list(range(n)) and {t for *_, t in steps} == {n}
        assert any("hough" in s for s, _, _ in steps)

        def stop(step, i, total):
            raise KeyboardInterrupt(step)
        with pytest.raises(KeyboardInterrupt, match=steps[0][0]):
            ctx.warmup(progress=stop)


# --- batch ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def batch():
    with votecl.Batch(backend="ref") as b:
        yield b


def frames(n):
    return [np.full(64 + i, i % 256, np.uint8) for i in range(n)]


def test_batch_devices_and_contexts(batch):
    infos = votecl.Batch.devices("ref")
    assert [d.backend for d in infos] == ["ref"]
    assert batch.workers == len(batch.contexts) == 2 * len(infos)  # two streams by default
    assert all(c.backend == "ref" for c in batch.contexts)


def test_batch_map_yields_results_in_input_order(batch):
    plans = {c: votecl.Histogram(c, np.uint8, 256, (0, 256)) for c in batch.contexts}
    used = set()

    def process(ctx, frame):
        used.add((ctx, threading.get_ident()))
        return plans[ctx](frame)
    data = frames(40)
    got = list(batch.map(process, data))
    assert len(got) == 40
    for frame, counts in zip(data, got):
        assert np.array_equal(counts, np.bincount(frame, minlength=256))
    assert {c for c, _ in used} <= set(batch.contexts)
    assert threading.get_ident() not in {t for _, t in used}  # on the workers' threads


def test_batch_map_stops_early_and_runs_again(batch):
    for i, value in enumerate(batch.map(lambda ctx, f: int(f[0]), frames(100))):
        if i == 2:
            break
    assert value == 2
    assert list(batch.map(lambda ctx, f: int(f[0]), frames(5))) == [0, 1, 2, 3, 4]
    assert list(batch.map(lambda ctx, f: f, [])) == []


def test_batch_map_raises_at_the_failing_item(batch):
    def process(ctx, f):
        if f[0] == 3:
            raise KeyError("three")
        return int(f[0])
    seen = []
    with pytest.raises(KeyError, match="three"):
        for value in batch.map(process, frames(10)):
            seen.append(value)
    assert seen == [0, 1, 2]

    def items():
        yield frames(1)[0]
        raise OSError("the disk")
    with pytest.raises(OSError, match="the disk"):
        list(batch.map(lambda ctx, f: 0, items()))


def test_batch_close_closes_what_its_contexts_made():
    b = votecl.Batch(backend="ref", streams_per_device=1)
    plan = votecl.Histogram(b.contexts[0], np.uint8, 16, (0, 256))
    b.close()
    assert plan.closed and b.contexts[0].closed
    with pytest.raises(votecl.ClosedError):
        plan(np.zeros(4, np.uint8))
    with pytest.raises(votecl.InvalidArgument):
        b.map(lambda ctx, f: f, [1])


def test_batch_on_opencl_equals_numpy():
    if not votecl.Batch.devices("opencl", devices=":CPU"):
        pytest.skip("no OpenCL CPU device")
    with votecl.Batch(backend="opencl", devices=":CPU", max_devices=1) as b:
        plans = {c: votecl.Histogram(c, np.uint8, 256, (0, 256)) for c in b.contexts}
        data = frames(6)
        for frame, counts in zip(data, b.map(lambda ctx, f: plans[ctx](f), data)):
            assert np.array_equal(counts, np.bincount(frame, minlength=256))


# --- device buffers -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ctx():
    with votecl.Context() as c:
        yield c


def to_buffer(ctx, array):
    buf = votecl.Buffer(ctx, array.nbytes)
    buf.write(array)
    return buf


def test_histogram_run_buffers_equals_the_host_call(ctx):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 256, (3, 500), dtype=np.uint8)
    plan = votecl.Histogram(ctx, np.uint8, 256, (0, 256))
    xb = to_buffer(ctx, x)
    counts = plan.run_buffers(xb, x[0].size).read(np.uint32)
    assert np.array_equal(counts, plan(x[0]))
    out = votecl.Buffer(ctx, 3 * 256 * 4)
    assert plan.run_buffers(xb, 500, frames=3, out=out) is out
    assert np.array_equal(out.read(np.uint32).reshape(3, 256), plan.batch(x))
    with pytest.raises(votecl.InvalidType, match="votecl.Buffer"):
        plan.run_buffers(x, 500)


def test_buffer_copy_from(ctx):
    a = to_buffer(ctx, np.arange(64, dtype=np.uint8))
    b = votecl.Buffer(ctx, 64)
    b.write(np.zeros(64, np.uint8))
    b.copy_from(a, 16, offset=8, src_offset=32)
    want = np.zeros(64, np.uint8)
    want[8:24] = np.arange(32, 48)
    assert np.array_equal(b.read(), want)
    b.copy_from(a)
    assert np.array_equal(b.read(), np.arange(64))


def test_vote_and_hough_run_buffers(ctx):
    vote = votecl.Vote(ctx, "uint vote_index(uint s, uint i, uchar v, uint n) { return v / 16; }",
                       np.uint8, bins=16)
    x = np.arange(256, dtype=np.uint8)
    bins = vote.run_buffers(to_buffer(ctx, x), x.size).read(np.uint32)
    assert np.array_equal(bins, vote(x)[0].ravel())
    assert vote.last_stats().elements == 256
    im = np.zeros((48, 64), np.uint8)
    im[20, :] = 255
    hough = votecl.Hough(ctx, 64, 48)
    hough(im)
    acc = hough.run_buffers(to_buffer(ctx, im)).read(np.uint32).reshape(hough.shape)
    assert np.array_equal(acc, hough.accumulator)
    assert hough.last_stats().kept == np.count_nonzero(im)  # the edge pixels voted


# --- asynchronous calls ---------------------------------------------------------------------

def test_hog_detect_async_equals_detect(ctx):
    hog = votecl.HOG(ctx, fusion="none", hit_threshold=-5.0)
    im = np.random.default_rng(4).integers(0, 256, (160, 96), dtype=np.uint8)
    want = hog.detect(im)
    pending = hog.detect_async(im)
    with pytest.raises(votecl.InvalidArgument):
        hog.detect_async(im)  # one detection at a time per detector
    got = pending.result()
    assert want and [d.box for d in got] == [d.box for d in want]
    assert pending.found == len(want) and pending.result() is got
    few = hog.detect_async(im).result(capacity=1)
    assert len(few) == 1 and few[0].box == want[0].box
    hog.detect_async(im)  # dropped unresolved: ended when collected
    import gc
    gc.collect()
    assert [d.box for d in hog.detect_async(im).result()] == [d.box for d in want]


# --- the rest: edges, Hough's helpers, the context's facts and build reports ----------------

def step_image():
    im = np.zeros((24, 32), np.uint8)
    im[:, 16:] = 200
    return im


def test_canny_and_sobel_of_a_step():
    im = step_image()
    gx = votecl.sobel(im, 1, 0)
    assert gx.dtype == np.int32 and gx.shape == im.shape
    assert np.all(gx[:, 15:17] == 4 * 200) and np.count_nonzero(gx) == 2 * 24
    assert not votecl.sobel(im, 0, 1).any()
    edges = votecl.canny(im, 50, 150)
    assert edges.dtype == np.uint8 and set(np.unique(edges)) == {0, 255}
    cols = np.nonzero(edges.any(axis=0))[0]
    assert len(cols) == 1 and cols[0] in (15, 16)
    with pytest.raises(votecl.InvalidArgument, match="aperture_size"):
        votecl.canny(im, 50, 150, aperture_size=4)
    with pytest.raises(votecl.InvalidType):
        votecl.canny(im.astype(np.float32), 50, 150)


def test_canny_and_sobel_equal_opencv():
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(2)
    g = cv2.GaussianBlur(rng.integers(0, 256, (40, 56)).astype(np.uint8), (5, 5), 0)
    assert np.array_equal(votecl.canny(g, 20, 60), cv2.Canny(g, 20, 60))
    want = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=5, borderType=cv2.BORDER_REPLICATE)
    assert np.array_equal(votecl.sobel(g, 0, 1, 5), want)
    part = g[:, 3:50]  # rows strided: the view is read where it lies
    want = cv2.Canny(np.ascontiguousarray(part), 20, 60)
    assert np.array_equal(votecl.canny(part, 20, 60), want)


def test_hough_helpers(ctx):
    im = np.zeros((48, 64), np.uint8)
    im[20, :] = 255
    hough = votecl.Hough(ctx, 64, 48, max_lines=3)
    lines = hough(im)
    again = hough.peaks(hough.accumulator)
    assert [(l.theta, l.rho, l.votes) for l in again] == [(l.theta, l.rho, l.votes) for l in lines]
    best = lines[0]
    g, b = np.unravel_index(int(np.argmax(hough.accumulator)), hough.shape)
    assert hough.theta(int(g)) == pytest.approx(best.theta) and \
        hough.rho(int(b)) == pytest.approx(best.rho)
    gray = np.zeros((48, 64), np.uint8)
    gray[21:, :] = 200  # a step: its Sobel edges are a horizontal line
    assert abs(hough.run_gray(gray, 100)[0].theta - best.theta) < 0.05
    info = hough.describe(64 * 48)
    assert info.spaces == hough.shape[0] and info.nbins == hough.shape[1]
    with pytest.raises(votecl.InvalidArgument, match="accumulator"):
        hough.peaks(np.zeros(5, np.uint32))


def test_context_facts_and_build_reports():
    with votecl.Context(disable_disk_cache=True) as ctx:
        assert ctx.cache_dir == "" or os.path.isabs(ctx.cache_dir)
        assert any(os.path.isfile(os.path.join(d, "prelude.h"))
                   for d in ctx.kernel_path.split(":") if d)
        if ctx.backend == "ref":
            pytest.skip("the ref backend compiles nothing")
        events = []
        ctx.on_build(lambda event, what, seconds: events.append((event, what, seconds)))
        votecl.Histogram(ctx, np.uint8, 16, (0, 256))  # a new context without a disk cache
        assert events and [e for e, _, _ in events] == ["started", "finished"] * (len(events) // 2)
        assert any("histogram.cl" in what for _, what, _ in events)
        assert all(seconds > 0 for e, _, seconds in events if e == "finished")
        ctx.on_build(None)
        seen = len(events)
        votecl.Histogram(ctx, np.uint16, 16, (0, 65536))
        assert len(events) == seen


def test_sum_and_subsample(ctx):
    rng = np.random.default_rng(6)
    g = rng.integers(0, 256, (30, 41)).astype(np.uint8)
    total = votecl.Sum(ctx, np.uint8)
    assert total(g) == g.sum() and total(g[:, 3:20]) == g[:, 3:20].sum()
    f = rng.uniform(0, 1, 1000).astype(np.float32)
    assert votecl.Sum(ctx, np.float32)(f) == pytest.approx(f.astype(np.float64).sum(), rel=1e-5)
    means = votecl.Subsample(ctx, 41, 30, 4)(g)
    assert means.shape == (7, 10) and means.dtype == np.float32
    assert np.allclose(means, g[:28, :40].reshape(7, 4, 10, 4).mean(axis=(1, 3)))
    with pytest.raises(votecl.InvalidType, match="uint16"):
        votecl.Sum(ctx, np.uint16)


def test_vote_describe_and_predict(ctx):
    vote = votecl.Vote(ctx, "uint vote_index(uint s, uint i, uchar v, uint n) { return v / 16; }",
                       np.uint8, bins=16)
    assert vote.describe(1000).nbins == 16
    try:
        assert vote.predict(1000) > 0
    except votecl.Unsupported as e:  # no calibration on this device
        assert "calibrate" in str(e)
