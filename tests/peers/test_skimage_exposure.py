"""scikit-image 0.19's skimage/exposure/tests/test_exposure.py, its histogram cases, ported
to libvotecl: exposure.histogram is votecl.histogram (NumPy's semantics) with the bins and
range exposure.histogram chooses (one bin per integer value from the image's or the dtype's
minimum to maximum; nbins over the range for floats). The other cases of that directory
(equalize_hist, rescale_intensity, CLAHE, adjust_*, is_low_contrast, match_histograms) test
image operations libvotecl does not offer and are not ported (docs/conventions.md, "What the
peers' suites hold")."""
import numpy as np
import pytest
from numpy.testing import assert_almost_equal, assert_array_equal, assert_equal

import votecl

pytest.importorskip("skimage", reason="scikit-image is not installed "
                    "(apt-get install python3-skimage)")
from skimage.util.dtype import dtype_range  # noqa: E402


def histogram(ctx, image, nbins=256, source_range="image", normalize=False,
              channel_axis=None):
    """exposure.histogram's (frequencies, bin_centers), counted by libvotecl."""
    image = np.asarray(image)
    if channel_axis is not None:
        channels = np.moveaxis(image, channel_axis, -1)
        lo, hi = (channels.min(), channels.max()) if source_range == "image" else \
            dtype_range[image.dtype.type]
        both = [histogram_range(ctx, channels[..., c], nbins, (lo, hi), normalize)
                for c in range(channels.shape[-1])]
        return [f for f, _ in both], both[0][1]
    if source_range == "image":
        rng = (image.min(), image.max())
    elif source_range == "dtype":
        rng = dtype_range[image.dtype.type]
    else:
        rng = source_range  # passed on: the library refuses what is no range
    return histogram_range(ctx, image, nbins, rng, normalize)


def histogram_range(ctx, image, nbins, rng, normalize):
    if np.issubdtype(image.dtype, np.integer) and not isinstance(rng, str):
        lo, hi = int(rng[0]), int(rng[1])
        counts, _ = votecl.histogram(image.ravel(), bins=hi - lo + 1, range=(lo, hi + 1),
                                     context=ctx)
        centers = np.arange(lo, hi + 1)
    else:
        counts, edges = votecl.histogram(image.ravel(), bins=nbins, range=rng, context=ctx)
        centers = ((edges[:-1] + edges[1:]) / 2.).astype(image.dtype)
    if normalize:
        counts = counts / np.sum(counts)
    return counts, centers


def assert_only_extremes(frequencies, bin_centers, centers):
    """The bins centred at centers, one count in the first and in the last, none between."""
    assert_array_equal(bin_centers, centers)
    assert frequencies[0] == 1
    assert frequencies[-1] == 1
    assert_array_equal(frequencies[1:-1], 0)


# test_exposure.py: test_wrong_source_range
def test_wrong_source_range(ctx):
    im = np.array([-1, 100], dtype=np.int8)
    with pytest.raises(ValueError):
        histogram(ctx, im, source_range="foobar")


# test_exposure.py: test_negative_overflow
def test_negative_overflow(ctx):
    im = np.array([-1, 100], dtype=np.int8)
    assert_only_extremes(*histogram(ctx, im), np.arange(-1, 101))


# test_exposure.py: test_all_negative_image
def test_all_negative_image(ctx):
    im = np.array([-100, -1], dtype=np.int8)
    assert_only_extremes(*histogram(ctx, im), np.arange(-100, 0))


# test_exposure.py: test_int_range_image
def test_int_range_image(ctx):
    im = np.array([10, 100], dtype=np.int8)
    frequencies, bin_centers = histogram(ctx, im)
    assert_equal(len(bin_centers), len(frequencies))
    assert_equal(bin_centers[0], 10)
    assert_equal(bin_centers[-1], 100)


# test_exposure.py: test_multichannel_int_range_image
def test_multichannel_int_range_image(ctx):
    im = np.array([[10, 5], [100, 102]], dtype=np.int8)
    frequencies, bin_centers = histogram(ctx, im, channel_axis=-1)
    for ch in range(im.shape[-1]):
        assert_equal(len(frequencies[ch]), len(bin_centers))
    assert_equal(bin_centers[0], 5)
    assert_equal(bin_centers[-1], 102)


# test_exposure.py: test_peak_uint_range_dtype (also through the library's own u8 plan)
def test_peak_uint_range_dtype(ctx):
    im = np.array([10, 100], dtype=np.uint8)
    frequencies, bin_centers = histogram(ctx, im, source_range="dtype")
    assert_array_equal(bin_centers, np.arange(0, 256))
    assert_equal(frequencies[10], 1)
    assert_equal(frequencies[100], 1)
    assert_equal(frequencies[101], 0)
    assert_equal(frequencies.shape, (256,))
    assert_array_equal(votecl.Histogram(ctx, np.uint8)(im), frequencies)


# test_exposure.py: test_peak_int_range_dtype
def test_peak_int_range_dtype(ctx):
    im = np.array([10, 100], dtype=np.int8)
    frequencies, bin_centers = histogram(ctx, im, source_range="dtype")
    assert_array_equal(bin_centers, np.arange(-128, 128))
    assert_equal(frequencies[128 + 10], 1)
    assert_equal(frequencies[128 + 100], 1)
    assert_equal(frequencies[128 + 101], 0)
    assert_equal(frequencies.shape, (256,))


# test_exposure.py: test_flat_uint_range_dtype
def test_flat_uint_range_dtype(ctx):
    im = np.linspace(0, 255, 256, dtype=np.uint8)
    frequencies, bin_centers = histogram(ctx, im, source_range="dtype")
    assert_array_equal(bin_centers, np.arange(0, 256))
    assert_equal(frequencies.shape, (256,))


# test_exposure.py: test_flat_int_range_dtype
def test_flat_int_range_dtype(ctx):
    im = np.linspace(-128, 128, 256, dtype=np.int8)
    frequencies, bin_centers = histogram(ctx, im, source_range="dtype")
    assert_array_equal(bin_centers, np.arange(-128, 128))
    assert_equal(frequencies.shape, (256,))


# test_exposure.py: test_peak_float_out_of_range_image
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_peak_float_out_of_range_image(ctx, dtype):
    im = np.array([10, 100], dtype=dtype)
    frequencies, bin_centers = histogram(ctx, im, nbins=90)
    assert bin_centers.dtype == dtype
    assert_array_equal(bin_centers, np.arange(10, 100) + 0.5)
    assert frequencies[0] == 1 and frequencies[-1] == 1  # the votes behind the centres


# test_exposure.py: test_peak_float_out_of_range_dtype
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_peak_float_out_of_range_dtype(ctx, dtype):
    im = np.array([10, 100], dtype=dtype)
    nbins = 10
    frequencies, bin_centers = histogram(ctx, im, nbins=nbins, source_range="dtype")
    assert bin_centers.dtype == dtype
    assert_almost_equal(np.min(bin_centers), -0.9, 3)
    assert_almost_equal(np.max(bin_centers), 0.9, 3)
    assert_equal(len(bin_centers), 10)
    assert_equal(frequencies.sum(), 0)  # both values lie above the range


# test_exposure.py: test_normalize
def test_normalize(ctx):
    im = np.array([0, 255, 255], dtype=np.uint8)
    frequencies, bin_centers = histogram(ctx, im, source_range="dtype", normalize=False)
    expected = np.zeros(256)
    expected[0] = 1
    expected[-1] = 2
    assert_equal(frequencies, expected)
    frequencies, bin_centers = histogram(ctx, im, source_range="dtype", normalize=True)
    expected /= 3.
    assert_equal(frequencies, expected)


# test_exposure.py: test_multichannel_hist_common_bins_uint8
@pytest.mark.parametrize("source_range", ["dtype", "image"])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float64])
@pytest.mark.parametrize("channel_axis", [0, 1, -1])
def test_multichannel_hist_common_bins_uint8(ctx, dtype, source_range, channel_axis):
    shape = (5, 5)
    channel_size = shape[0] * shape[1]
    imin, imax = dtype_range[dtype]
    im = np.stack((np.full(shape, imin, dtype=dtype), np.full(shape, imax, dtype=dtype)),
                  axis=channel_axis)
    frequencies, bin_centers = histogram(ctx, im, source_range=source_range,
                                         channel_axis=channel_axis)
    if np.issubdtype(dtype, np.integer):
        assert_array_equal(bin_centers, np.arange(imin, imax + 1))
    assert frequencies[0][0] == channel_size
    assert frequencies[0][-1] == 0
    assert frequencies[1][0] == 0
    assert frequencies[1][-1] == channel_size


# test_exposure.py: test_dask_histogram
def test_dask_histogram(ctx):
    da = pytest.importorskip("dask.array", reason="dask python library is not installed")
    dask_array = da.from_array(np.array([[0, 1], [1, 2]]), chunks=(1, 2))
    output_hist, output_bins = histogram(ctx, np.asarray(dask_array))
    assert np.allclose([0, 1, 2], output_bins)
    assert np.allclose([1, 2, 1], output_hist)
