"""The device-array wrap cache keeps what a call is using (no GPU needed: fake buffers)."""
from votecl import _core


class FakeBuffer:
    def __init__(self, keep):
        self._keep, self._handle = keep, 1

    def close(self):
        self._handle, self._keep = None, None


class FakeArray:
    def __init__(self, ptr, nbytes):
        self.ptr, self.nbytes, self.obj = ptr, nbytes, object()


def test_reused_input_survives_new_outputs(monkeypatch):
    # one input frame reused call after call, a new result array each call (CuPy's pattern):
    # the input's wrap must never be the entry evicted and freed
    monkeypatch.setattr(_core.Buffer, "wrap",
                        classmethod(lambda cls, ctx, ptr, n, keep=None: FakeBuffer(keep)))
    cache = _core.WrapCache(None, size=4)
    frame = FakeArray(1, 1 << 20)
    for i in range(20):
        wrapped = cache.get(frame)
        cache.get(FakeArray(1000 + i, 1024))
        assert wrapped._handle is not None, "call %d: the input's buffer was freed" % i
    assert len(cache.items) == 4
