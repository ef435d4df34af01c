"""scikit-image 0.19's skimage/feature/tests/test_hog.py ported to libvotecl's HOG
(votecl.HOG(model=None).compute). libvotecl's HOG is OpenCV's by default (Dalal-Triggs with
the Gaussian block window, trilinear votes, L2-Hys; docs/conventions.md, "HOG variant");
scikit-image's is binning="hard" with its block_norm names, gamma=0 for its
transform_sqrt=False: a scikit-image call maps onto it as window = the image's whole cells,
block = cells_per_block cells, block stride = one cell, and the descriptor is reordered from
OpenCV's layout (blocks and cells column after column) to scikit-image's (row after row).
Its images are uint8 (H, W) or (H, W, C) ("HOG image values")."""
import numpy as np
import pytest
from numpy.testing import assert_almost_equal

import votecl
from conftest import convention, missing

skimage = pytest.importorskip("skimage", reason="scikit-image is not installed "
                              "(apt-get install python3-skimage)")
from skimage import color, data  # noqa: E402


def skimage_hog(ctx, image, orientations=9, pixels_per_cell=(8, 8), cells_per_block=(3, 3),
                **params):
    """feature.hog(image, ...)'s feature vector from libvotecl: one window over the image's
    whole cells, scikit-image's binning and default transform_sqrt=False unless params say
    otherwise, in scikit-image's order."""
    ch, cw = pixels_per_cell
    h, w = image.shape[:2]
    bh, bw = cells_per_block
    params.setdefault("binning", "hard")
    params.setdefault("gamma", 0)
    hog = votecl.HOG(ctx, model=None, window_width=(w // cw) * cw, window_height=(h // ch) * ch,
                     block_width=bw * cw, block_height=bh * ch, block_stride_x=cw,
                     block_stride_y=ch, cell_width=cw, cell_height=ch, nbins=orientations,
                     window_stride_x=cw, window_stride_y=ch, **params)
    d = hog.compute(image)[0, 0]
    nbx, nby = w // cw - bw + 1, h // ch - bh + 1
    return d.reshape(nbx, nby, bw, bh, orientations).transpose(1, 0, 3, 2, 4).ravel()


# test_hog.py: test_hog_output_size (block_norm L1 does not change the length)
def test_hog_output_size(ctx):
    img = np.round(data.astronaut()[:256, :].mean(axis=2)).astype(np.uint8)
    fd = skimage_hog(ctx, img, orientations=9, pixels_per_cell=(8, 8), cells_per_block=(1, 1))
    assert len(fd) == 9 * (256 // 8) * (512 // 8)


# test_hog.py: test_hog_output_correctness_l1_norm (rgb2gray's image in [0, 1] rounded to
# uint8: the stored descriptor is the float image's; on the uint8 image the same call gives
# feature.hog's of that image within 1e-6, python/tests/test_votecl.py checks it)
@convention("HOG image values")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hog_output_correctness_l1_norm(ctx, dtype):
    img = np.round(color.rgb2gray(data.astronaut()) * 255).astype(np.uint8)
    correct_output = np.load(skimage.data.__path__[0] + "/astronaut_GRAY_hog_L1.npy")
    output = skimage_hog(ctx, img, block_norm="L1", gamma=0)
    assert_almost_equal(output, correct_output, decimal=5)


# test_hog.py: test_hog_output_correctness_l2hys_norm (rgb2gray's image in [0, 1] scaled to
# uint8; libvotecl's L2-Hys is OpenCV's, its epsilons not scikit-image's)
@convention("HOG variant")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hog_output_correctness_l2hys_norm(ctx, dtype):
    img = np.round(color.rgb2gray(data.astronaut()) * 255).astype(np.uint8)
    correct_output = np.load(skimage.data.__path__[0] + "/astronaut_GRAY_hog_L2-Hys.npy")
    output = skimage_hog(ctx, img, gamma=0)
    assert_almost_equal(output, correct_output, decimal=5)


# test_hog.py: test_hog_image_size_cell_size_mismatch (length only, as the origin)
def test_hog_image_size_cell_size_mismatch(ctx):
    image = data.camera()[:150, :200]
    fd = skimage_hog(ctx, image, orientations=9, pixels_per_cell=(8, 8),
                     cells_per_block=(1, 1))
    assert len(fd) == 9 * (150 // 8) * (200 // 8)


# test_hog.py: test_hog_odd_cell_size, test_hog_basic_orientations_and_data_types,
# test_hog_orientations_circle (block_norm='L1', scikit-image's hard binning)
def test_hog_odd_cell_size(ctx):
    img = np.zeros((3, 3), np.uint8)
    img[2, 2] = 255
    correct_output = np.zeros((9, ))
    correct_output[0] = 0.5
    correct_output[4] = 0.5
    output = skimage_hog(ctx, img, pixels_per_cell=(3, 3), cells_per_block=(1, 1),
                         block_norm="L1")
    assert_almost_equal(output, correct_output, decimal=1)


# (uint8 images only: the origin's float image is the same values; no visualisation)
def test_hog_basic_orientations_and_data_types(ctx):
    image0 = np.zeros((35, 35), np.uint8)
    image0[35 // 2:] = 100
    for rot in range(4):
        image = np.ascontiguousarray(np.rot90(image0, rot))
        hog_uint8 = skimage_hog(ctx, image, orientations=4, pixels_per_cell=(8, 8),
                                cells_per_block=(1, 1), block_norm="L1", gamma=0)
        hog_uint8_norm = skimage_hog(ctx, image, orientations=4, pixels_per_cell=(8, 8),
                                     cells_per_block=(1, 1), block_norm="L1", gamma=1)
        assert_almost_equal(hog_uint8, hog_uint8_norm, decimal=4)
        actual = np.max(hog_uint8.reshape(-1, 4), axis=0)
        desired = [0, 0, 1, 0] if rot in (0, 2) else [1, 0, 0, 0]
        assert_almost_equal(actual, desired, decimal=2)


def test_hog_orientations_circle(ctx):
    from skimage import draw, filters
    image = np.zeros((100, 100))
    rr, cc = draw.disk((50, 50), 33)
    image[rr, cc] = 100
    image = np.round(filters.gaussian(image, 2, mode="reflect")).astype(np.uint8)
    for orientations in range(2, 15):
        hog = skimage_hog(ctx, image, orientations=orientations, pixels_per_cell=(8, 8),
                          cells_per_block=(1, 1), block_norm="L1", gamma=0)
        hog_matrix = hog.reshape(-1, orientations)
        assert_almost_equal(np.mean(hog_matrix, axis=0), np.mean(hog_matrix), decimal=1)


# test_hog.py: test_hog_visualization_orientation
@missing("a HOG visualisation image (scikit-image's visualize=True)")
def test_hog_visualization_orientation(ctx):
    image = np.zeros((11, 11), np.uint8)
    image[11 // 2:] = 1
    hog = votecl.HOG(ctx, model=None)
    hog_image = hog.visualize(image)
    assert (hog_image[[x for x in range(11) if x != 5], :] == 0).all()
    assert (hog_image[5, 1:-1] > 0).all()


# test_hog.py: test_hog_block_normalization_incorrect_error
def test_hog_block_normalization_incorrect_error(ctx):
    img = (np.eye(4) * 255).astype(np.uint8)
    with pytest.raises(ValueError):
        votecl.HOG(ctx, model=None, block_norm="Linf").compute(img)


# test_hog.py: test_hog_incorrect_dimensions (multichannel -> colour; the origin's 3 x 3
# images in 3 x 3 cells, one block, one window)
@pytest.mark.parametrize("shape,multichannel", [
    pytest.param((3, 3, 3), False, marks=convention("HOG colour images")),
    pytest.param((3, 3), True, marks=convention("HOG colour images")),
    ((3, 3, 3, 3), True),
])
def test_hog_incorrect_dimensions(ctx, shape, multichannel):
    img = np.zeros(shape, np.uint8)
    with pytest.raises(ValueError):
        skimage_hog(ctx, img, pixels_per_cell=(3, 3), cells_per_block=(1, 1),
                    colour=int(multichannel))


def equivariance(ctx, img, **params):
    img = img.copy()
    img[:, :, (1, 2)] = 0
    hog_ref = skimage_hog(ctx, img, colour=1, **params)
    for n in (1, 2):
        hog_fact = skimage_hog(ctx, np.ascontiguousarray(np.roll(img, n, axis=2)), colour=1,
                               **params)
        assert_almost_equal(hog_ref, hog_fact)


# test_hog.py: test_hog_output_equivariance_deprecated_multichannel (block_norm L1 ->
# libvotecl's L2-Hys: the property, equivariance under a roll of the channels, is the
# norm's neither way)
def test_hog_output_equivariance_deprecated_multichannel(ctx):
    equivariance(ctx, data.astronaut())


# test_hog.py: test_hog_output_equivariance_channel_axis (libvotecl's colour images are
# (H, W, C): the channel axis is moved back last, as a caller would)
@pytest.mark.parametrize("channel_axis", [0, 1, -1, -2])
def test_hog_output_equivariance_channel_axis(ctx, channel_axis):
    img = np.moveaxis(data.astronaut()[:64, :32], -1, channel_axis)
    equivariance(ctx, np.ascontiguousarray(np.moveaxis(img, channel_axis, -1)))
