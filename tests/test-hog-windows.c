/* HOG descriptors at caller-chosen windows (votecl_hog_compute_at):
 *  - on the window-stride grid they equal votecl_hog_compute's windows there (truth the test
 *    constructs from the whole-image call), on every backend;
 *  - anywhere (off the grid, at the image's edges) they equal OpenCV's
 *    HOGDescriptor::compute(img, (8, 8), (0, 0), locations) within 1e-3, when python3-opencv
 *    is installed (tests/hog-opencv.py; skipped otherwise);
 *  - bad input names the field. */
#include "config.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "testutil.h"

static votecl_context *
device(void)
{
    return tu_device_shared();
}

static uint8_t *
random_image(size_t w, size_t h, unsigned channels, uint64_t seed)
{
    tu_rng rng;
    uint8_t *p = g_malloc(w * h * channels);
    tu_rng_init(&rng, seed);
    for (size_t i = 0; i < w * h * channels; i++)
        p[i] = (uint8_t)tu_rng_below(&rng, 256);
    return p;
}

static void
check_grid(votecl_context *ctx)
{
    size_t w = 131, h = 170, len = 0, count = 0;
    uint8_t *px = random_image(w, h, 3, 5);
    votecl_image view = {px, w, h, w * 3, 3, VOTECL_DTYPE_U8};
    votecl_hog_params params;
    votecl_hog *hog = NULL;
    votecl_hog_point at[3] = {{0, 0}, {64, 40}, {48, 32}};
    float *whole, *mine;
    size_t cols, rows;

    votecl_hog_params_init(&params);
    g_assert_cmpint(votecl_hog_descriptor_length(&params, &len), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(ctx, &params, NULL, &hog), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_windows(hog, w, h, &cols, &rows), ==, VOTECL_OK);
    whole = g_malloc(cols * rows * len * sizeof *whole);
    mine = g_malloc(3 * len * sizeof *mine);
    g_assert_cmpint(votecl_hog_compute(hog, &view, whole, cols * rows * len, &count), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl_hog_compute_at(ctx, &params, &view, at, 3, mine, 3 * len), ==,
                    VOTECL_OK);
    for (size_t k = 0; k < 3; k++) {
        const float *ref = whole + ((size_t)at[k].y / 8 * cols + (size_t)at[k].x / 8) * len;
        for (size_t i = 0; i < len; i++)
            g_assert_cmpfloat(fabsf(mine[k * len + i] - ref[i]), <=, 1e-5f);
    }
    votecl_hog_free(hog);
    g_free(whole);
    g_free(mine);
    g_free(px);
}

static void
test_ref_grid(void)
{
    votecl_context *ctx = tu_ref_context_new();
    check_grid(ctx);
    votecl_context_free(ctx);
}

static void
test_opencl_grid(void)
{
    if (device() != NULL)
        check_grid(device());
}

/* OpenCV's descriptors at off-grid and edge locations of basketball1.png. */
static void
test_opencl_opencv(void)
{
    static const int coords[] = {0, 0, 3, 5, 101, 77, 576, 352, 300, 17};
    const char *srcdir = g_getenv("VOTECL_TEST_SRCDIR");
    char *dir, *out, *script, *image, *argv[24], *contents = NULL;
    char numbers[10][16];
    gsize size = 0;
    int status = 0, n = 0;
    votecl_hog_point at[5];
    votecl_hog_params params;

    if (device() == NULL)
        return;
    if (srcdir == NULL) {
        g_test_skip("VOTECL_TEST_SRCDIR is not set (run through make check)");
        return;
    }
    dir = tu_mkdtemp();
    out = g_build_filename(dir, "fixture.bin", NULL);
    script = g_build_filename(srcdir, "hog-opencv.py", NULL);
    image = g_build_filename(srcdir, "..", "tools", "images", "basketball1.png", NULL);
    argv[n++] = g_file_test("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE) ? "/usr/bin/python3"
                                                                           : "python3";
    argv[n++] = script;
    argv[n++] = "locations";
    argv[n++] = image;
    argv[n++] = "colour";
    for (size_t i = 0; i < 10; i++) {
        g_snprintf(numbers[i], sizeof numbers[i], "%d", coords[i]);
        argv[n++] = numbers[i];
    }
    argv[n++] = out;
    argv[n] = NULL;
    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                      NULL, NULL, NULL, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL) ||
        !g_file_get_contents(out, &contents, &size, NULL)) {
        g_test_skip("python3-opencv is not available");
    } else {
        int32_t head[5];
        memcpy(head, contents, sizeof head);
        size_t w = (size_t)head[0], h = (size_t)head[1], ch = (size_t)head[2];
        size_t windows = (size_t)head[3], len = (size_t)head[4];
        const uint8_t *px = (const uint8_t *)contents + 20;
        const float *cv = (const float *)(px + w * h * ch);
        votecl_image view = {px, w, h, w * ch, (unsigned)ch, VOTECL_DTYPE_U8};
        float *mine = g_malloc(5 * len * sizeof *mine);
        float worst = 0;
        g_assert_cmpuint(windows, ==, 5);
        for (size_t k = 0; k < 5; k++)
            at[k] = (votecl_hog_point){coords[2 * k], coords[2 * k + 1]};
        votecl_hog_params_init(&params);
        g_assert_cmpint(votecl_hog_compute_at(device(), &params, &view, at, 5, mine, 5 * len),
                        ==, VOTECL_OK);
        for (size_t i = 0; i < 5 * len; i++)
            worst = fmaxf(worst, fabsf(mine[i] - cv[i]));
        g_test_message("largest |difference| from OpenCV: %g", worst);
        g_assert_cmpfloat(worst, <=, 1e-3f);
        g_free(mine);
    }
    g_free(contents);
    tu_rmtree(dir);
    g_free(dir);
    g_free(out);
    g_free(script);
    g_free(image);
}

static void
test_ref_bad_input(void)
{
    votecl_context *ctx = tu_ref_context_new();
    votecl_hog_params params;
    uint8_t px[64 * 128] = {0};
    votecl_image view = {px, 64, 128, 64, 1, VOTECL_DTYPE_U8};
    votecl_hog_point at = {0, 0}, far = {100000, 0};
    float d[4000];

    votecl_hog_params_init(&params);
    g_assert_cmpint(votecl_hog_compute_at(ctx, &params, &view, &at, 1, d, 10), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "capacity"));
    g_assert_cmpint(votecl_hog_compute_at(ctx, &params, &view, NULL, 1, d, 4000), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "locations"));
    g_assert_cmpint(votecl_hog_compute_at(ctx, &params, &view, &far, 1, d, 4000), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "locations"));
    view.channels = 2;
    g_assert_cmpint(votecl_hog_compute_at(ctx, &params, &view, &at, 1, d, 4000), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "image.channels"));
    g_assert_cmpint(votecl_hog_compute_at(ctx, NULL, &view, &at, 1, d, 4000), ==,
                    VOTECL_INVALID_ARGUMENT);
    votecl_context_free(ctx);
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/hog/windows/grid", {test_ref_grid}},
    {TU_PATH, "/ref/hog/windows/bad-input", {test_ref_bad_input}},
    {TU_DEVICE, "hog/windows/grid", {test_opencl_grid}},
    {TU_DEVICE, "hog/windows/opencv", {test_opencl_opencv}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
