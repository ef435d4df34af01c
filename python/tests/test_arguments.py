"""Arguments checked before they reach C (issue 28 items 4 and 8, issue 25.6): an input
shorter than its channels say, output arrays that are read-only or of the wrong dtype or
size, are refused with votecl.InvalidArgument naming them; nothing is read past an array's
end or written into memory the caller cannot write."""
import numpy as np
import pytest

import votecl


@pytest.fixture(scope="module")
def ctx():
    try:
        c = votecl.Context(backend="opencl")
    except votecl.VoteclError as e:
        pytest.skip("no OpenCL device: %s" % e)
    yield c
    c.close()


def test_vote_channels_against_the_array(ctx):
    """Issue 28.4: Vote(channels=4) on a 1-D array read 4 x past its end; the array's
    values are interleaved channels, a whole number of elements or refused."""
    src = "uint vote_index(uint s, uint i, uchar4 v, uint n) { return v.x % 4; }"
    with votecl.Vote(ctx, src, np.uint8, channels=4, bins=4) as v:
        x = np.arange(400, dtype=np.uint8)
        bins, stats = v(x)
        assert stats.elements == 100 and bins.sum() == 100
        np.testing.assert_array_equal(bins[0], np.bincount(x[0::4] % 4, minlength=4))
        with pytest.raises(votecl.InvalidArgument, match="4-channel"):
            v(np.arange(401, dtype=np.uint8))


def test_out_must_be_writeable_and_of_the_result_type(ctx):
    """Issue 28.8: out= over bytes (read-only) was written; a uint8 out= for 32-bit counts
    was accepted."""
    x = np.arange(256, dtype=np.uint8)
    with votecl.Histogram(ctx, np.uint8, bins=16, range=(0, 256)) as h:
        frozen = np.frombuffer(bytes(64), np.uint32)
        with pytest.raises(votecl.InvalidArgument, match="read-only"):
            h(x, out=frozen)
        assert not frozen.any()
        with pytest.raises(votecl.InvalidArgument, match="dtype uint8"):
            h(x, out=np.zeros(64, np.uint8))
        with pytest.raises(votecl.InvalidArgument, match="elements"):
            h(x, out=np.zeros(15, np.uint32))
        with pytest.raises(votecl.InvalidArgument, match="NumPy array"):
            h(x, out=[0] * 16)
        mine = np.zeros(16, np.uint32)
        assert h(x, out=mine) is mine and mine.tolist() == [16] * 16
        frames = np.zeros((3, 16), np.uint32)
        assert h.batch(np.stack([x] * 3), out=frames) is frames and frames.sum() == 768
        with pytest.raises(votecl.InvalidArgument, match="read-only"):
            h.batch(np.stack([x] * 3), out=np.broadcast_to(np.uint32(0), (3, 16)))
