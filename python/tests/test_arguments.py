"""Arguments checked before they reach C (issue 28 items 4 and 8, issue 25.6): an input
shorter than its channels say, output arrays that are read-only or of the wrong dtype or
size, are refused with votecl.InvalidArgument naming them; nothing is read past an array's
end or written into memory the caller cannot write."""
import numpy as np
import pytest

import votecl


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


PEOPLE_YAML_HEAD = ("%YAML:1.0\n---\npeople: !!opencv-object-detector-hog\n"
                    "   winSize: [ 64, 128 ]\n   blockSize: [ 16, 16 ]\n"
                    "   blockStride: [ 8, 8 ]\n   cellSize: [ 8, 8 ]\n   nbins: 9\n"
                    "   derivAperture: 1\n   winSigma: 4.\n   histogramNormType: 0\n"
                    "   L2HysThreshold: 2.0000000000000001e-01\n   gammaCorrection: 1\n"
                    "   nlevels: 64\n   signedGradient: 0\n   SVMDetector: [")


def test_hog_model_from_opencv_yaml(ctx, tmp_path):
    """Issue 25.5: HOG(model="people.yml") read OpenCV's file as a votecl model and failed;
    the C loader for OpenCV's YAML reads it, the weights equal the people detector's."""
    people = votecl.HOGModel.people(ctx)
    values = list(people.weights) + [people.bias]
    path = tmp_path / "people.yml"
    path.write_text(PEOPLE_YAML_HEAD + ", ".join("%.8e" % v for v in values) + " ]\n")
    loaded = votecl.HOGModel.load(str(path), ctx)
    np.testing.assert_allclose(loaded.weights, people.weights, rtol=1e-6)
    assert loaded.file_params.window_height == 128
    im = np.random.default_rng(4).integers(0, 256, (160, 96), dtype=np.uint8)
    want = votecl.HOG(ctx, fusion="none", hit_threshold=-5.0).detect(im)
    got = votecl.HOG(ctx, model=str(path), fusion="none", hit_threshold=-5.0).detect(im)
    assert want and [d.box for d in got] == [d.box for d in want]
    with pytest.raises(votecl.InvalidArgument, match="OpenCV"):
        (tmp_path / "junk.yml").write_text("hello\n")
        votecl.HOGModel.load(str(tmp_path / "junk.yml"), ctx)
