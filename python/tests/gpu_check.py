#!/usr/bin/env python3
"""GPU check (no pytest needed): CuPy arrays and PyTorch CUDA tensors through the histogram,
PClines and HOG on votecl's CUDA backend, without a host copy, timed against the C API on the
same data.

    VOTECL_KERNEL_PATH=$PWD/cl python3 python/tests/gpu_check.py [--repeat N] [--json FILE]

For each library present (cupy, torch) and each module it checks:
  * equality: the result equals the host (NumPy) path's exactly (integer votes, line records,
    detection boxes);
  * no host copy: the votecl buffer wraps the array's own device pointer (printed), the result
    of the histogram is an array of the same library on the GPU, and the process's peak
    resident memory grows by less than a quarter of one input over all the timed calls (a
    host copy of each frame would grow it by a whole frame at least once);
  * time: the median of N calls (each synchronised) through the Python API and through the
    C API (votecl_*_run_buffer(s) called directly, through ctypes, on a votecl buffer that
    holds the same data), and their ratio (target: python / C <= 1.10).
Prints one line per case and a JSON summary; exits 1 when a check fails (the ratio is
reported, not asserted: timings are not tests)."""
import argparse
import ctypes
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import votecl  # noqa: E402
from votecl import _structs as S  # noqa: E402
from votecl._lib import fn  # noqa: E402


def peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def median_time(call, sync, repeat):
    call()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def c_buffer(ctx, host):
    """A votecl buffer holding host's bytes: the C API's side of the comparison."""
    b = votecl.Buffer(ctx, host.nbytes)
    b.write(host)
    return b


def frames(shape, seed):
    r = np.random.default_rng(seed)
    im = r.integers(0, 40, shape, dtype=np.uint8)
    h, w = shape[0], shape[1]
    im[h // 3, :] = 250
    im[:, w // 4] = 250
    im[h // 4: h // 4 + 110, w // 2: w // 2 + 22] = 200
    return im


def to_device(lib, host):
    if lib == "cupy":
        import cupy
        return cupy.asarray(host)
    import torch
    return torch.from_numpy(host).cuda()


def sync_of(lib):
    if lib == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().synchronize
    import torch
    return torch.cuda.synchronize


def device_ptr(lib, arr):
    return arr.data.ptr if lib == "cupy" else arr.data_ptr()


def wrapped_ptr(plan):
    return [b.native for b in plan._wraps.items.values()] if plan._wraps else []


def check_case(name, lib, plan, dev, run_py, run_c, equal, repeat, frame_bytes, sync):
    rss0 = peak_rss()
    t_py = median_time(run_py, sync, repeat)
    rss1 = peak_rss()
    t_c = median_time(run_c, sync, repeat)
    ptr = device_ptr(lib, dev)
    passed = ptr in wrapped_ptr(plan)
    grown = rss1 - rss0
    ok = equal and passed and grown < frame_bytes / 4
    print("%-6s %-10s python %8.3f ms  C %8.3f ms  ratio %.3f  ptr 0x%x wrapped=%s  "
          "rss +%d KiB  equal=%s  %s" % (lib, name, t_py * 1e3, t_c * 1e3, t_py / t_c, ptr,
                                          passed, grown // 1024, equal, "OK" if ok else "FAIL"))
    return {"lib": lib, "case": name, "python_ms": t_py * 1e3, "c_ms": t_c * 1e3,
            "ratio": t_py / t_c, "device_ptr": hex(ptr), "pointer_passed_through": passed,
            "rss_growth_bytes": grown, "equal": bool(equal), "ok": bool(ok)}


def hist_case(ctx, lib, repeat, sync):
    host = frames((2160, 3840), 1).reshape(-1)
    dev = to_device(lib, host)
    h = votecl.Histogram(ctx, np.uint8, bins=256, range=(0, 256))
    out = h(dev)
    got = out.get() if lib == "cupy" else out.cpu().numpy()
    equal = np.array_equal(got.view(np.uint32), np.bincount(host, minlength=256))
    on_gpu = type(out).__module__.split(".")[0] == lib
    cx, co = c_buffer(ctx, host), votecl.Buffer(ctx, 1024)

    def run_c():
        fn.hist_run_buffers(h._handle, cx._handle, None, None, host.size, 1, co._handle)
    r = check_case("histogram", lib, h, dev, lambda: h(dev), run_c, equal and on_gpu, repeat,
                   host.nbytes, sync)
    r["result_on_gpu"] = on_gpu
    # a pipeline's form: the result array reused (out=), no allocation per call
    r2 = check_case("hist-out", lib, h, dev, lambda: h(dev, out=out), run_c, True, repeat,
                    host.nbytes, sync)
    # sixteen 4K frames in one call: per-call costs shared by more work
    hb = np.tile(host, (16, 1))
    db = to_device(lib, hb)
    outb = h.batch(db)
    got = outb.get() if lib == "cupy" else outb.cpu().numpy()
    equal = np.array_equal(got.view(np.uint32)[7], np.bincount(host, minlength=256))
    cb, cob = c_buffer(ctx, hb), votecl.Buffer(ctx, 16 * 1024)

    def run_cb():
        fn.hist_run_buffers(h._handle, cb._handle, None, None, host.size, 16, cob._handle)
    r3 = check_case("hist-x16", lib, h, db, lambda: h.batch(db, out=outb), run_cb, equal, repeat,
                    hb.nbytes, sync)
    return [r, r2, r3]


def lines_case(ctx, lib, repeat, sync):
    host = frames((720, 1280), 2)
    dev = to_device(lib, host)
    plan = votecl.Lines(ctx, 1280, 720)
    equal = plan(dev) == plan(host)
    cb = c_buffer(ctx, host)
    out = (S.votecl_lines_line * 256)()
    found = ctypes.c_size_t()

    def run_c():
        fn.lines_run_buffer(plan._handle, cb._handle, 1280, 720, S.VOTECL_DTYPE_U8, out, 256,
                            ctypes.byref(found))
    return check_case("pclines", lib, plan, dev, lambda: plan(dev), run_c, equal, repeat,
                      host.nbytes, sync)


def hog_case(ctx, lib, repeat, sync):
    host = frames((720, 1280, 3), 3)
    dev = to_device(lib, host)
    hog = votecl.HOG(ctx)
    equal = hog.detect(dev) == hog.detect(host)
    cb = c_buffer(ctx, host)
    out = (S.votecl_hog_detection * 256)()
    found = ctypes.c_size_t()

    def run_c():
        fn.hog_detect_buffer(hog._handle, cb._handle, 1280, 720, 3, None, 0, out, 256,
                             ctypes.byref(found))
    return check_case("hog", lib, hog, dev, lambda: hog.detect(dev), run_c, equal, repeat,
                      host.nbytes, sync)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--json", help="write the summary here too")
    args = ap.parse_args()
    libs = []
    for lib in ("cupy", "torch"):
        try:
            __import__(lib)
            libs.append(lib)
        except ImportError:
            print("%s: not installed, skipped" % lib)
    if not libs:
        print("neither cupy nor torch: nothing to check")
        return 0
    if "torch" in libs:
        import torch
        torch.zeros(1, device="cuda")  # make the primary context current
    ctx = votecl.Context(backend="cuda")
    print("device:", ctx.device.name, "| library:", votecl.library_path)
    results = []
    for lib in libs:
        sync = sync_of(lib)
        for case in (hist_case, lines_case, hog_case):
            r = case(ctx, lib, args.repeat, sync)
            results.extend(r if isinstance(r, list) else [r])
    summary = {"device": ctx.device.name, "date": time.strftime("%Y-%m-%d"),
               "results": results}
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
