/* The edge step (lib/edges.c, lib/edges-ref.c): the host's Canny equals the reference edge
 * for edge, and the public Canny and Sobel (cv2's semantics) give the constructed truth of a
 * step edge and a square; on a GPU-shaped device (forced) the public Canny's kernels
 * equal the reference (one program). */
#include <glib.h>
#include <math.h>
#include <string.h>
#include <votecl.h>

#include "../lib/edges-private.h"
#include "testutil.h"

/* A smooth random image: noise, then a few box blurs, so Canny finds ridges, ties and
 * plateaus of every direction. */
static void
blurred(tu_rng *rng, uint8_t *im, uint32_t w, uint32_t h, int passes)
{
    tu_fill_u8(rng, im, (size_t)w * h);
    for (int p = 0; p < passes; p++)
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x + 2 < w; x++) {
                uint8_t *q = im + (size_t)y * w + x;
                q[0] = (uint8_t)((q[0] + q[1] + q[2]) / 3);
                if (y + 2 < h)
                    q[0] = (uint8_t)((q[0] + q[w] + q[2 * w]) / 3);
            }
}

/* votecl__canny_host equals votecl__canny_ref: edges, order and gradients, one memo reused
 * across sizes and thresholds (single threshold and hysteresis). */
static void
test_host_equals_ref(void)
{
    static const uint32_t sizes[][2] = {{1, 1}, {2, 5}, {3, 3}, {17, 4}, {64, 48}, {101, 37}};
    static const unsigned thresholds[][2] = {{0, 0}, {20, 40}, {50, 100}, {60, 60}, {80, 30}};
    votecl__canny_memo *memo = NULL;
    size_t total = 0;
    tu_rng rng;

    tu_rng_init(&rng, 29);
    for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        uint8_t *im = g_malloc((size_t)w * h);
        votecl__edge *ref = g_malloc((size_t)w * h * sizeof *ref);
        for (int passes = 0; passes < 3; passes++) {
            blurred(&rng, im, w, h, passes);
            for (size_t t = 0; t < G_N_ELEMENTS(thresholds); t++) {
                unsigned lo = thresholds[t][0], hi = thresholds[t][1];
                const votecl__edge *host;
                size_t n = votecl__canny_ref(im, w, h, lo, hi, ref);
                size_t m = votecl__canny_host(im, w, h, lo, hi, &memo, &host);
                g_assert_cmpuint(n, !=, (size_t)-1);
                g_assert_cmpuint(m, ==, n);
                total += n;
                if (n > 0)
                    g_assert_cmpuint(tu_first_difference(ref, host, n, sizeof *ref), ==,
                                     (size_t)-1);
            }
        }
        g_free(im);
        g_free(ref);
    }
    g_assert_cmpuint(total, >, 1000); /* the images have edges to compare */
    votecl__canny_memo_free(memo);
}

#define W 40
#define H 30

/* 0 left of column c, 255 from it on. */
static void
step_image(uint8_t *im, int c)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            im[y * W + x] = x < c ? 0 : 255;
}

static votecl_status
canny(votecl_context *ctx, const uint8_t *im, double t1, double t2, unsigned aperture, int l2,
      uint8_t *edges)
{
    votecl_image view = tu_view_u8(im, W, H);
    votecl_canny_params p;

    votecl_canny_params_init(&p);
    p.threshold1 = t1;
    p.threshold2 = t2;
    p.aperture_size = aperture;
    p.l2_gradient = l2;
    return votecl_edges_canny(ctx, &view, &p, edges, W);
}

/* A vertical step between columns 19 and 20: both have |gx| = 4 * 255 (3x3), and
 * non-maximum suppression keeps the left one (strictly above the left neighbour, at least the
 * right one), in every row, the border's too (OpenCV replicates the border). */
static void
test_canny_step(void)
{
    votecl_context *ctx = tu_ref_context_new();
    static uint8_t im[W * H], edges[W * H];

    step_image(im, 20);
    for (unsigned a = 3; a <= 7; a += 2)
        for (int l2 = 0; l2 <= 1; l2++) {
            memset(edges, 0x5a, sizeof edges);
            g_assert_cmpint(canny(ctx, im, 100, 50, a, l2, edges), ==, VOTECL_OK);
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++)
                    g_assert_cmpuint(edges[y * W + x], ==, x == 19 ? 255 : 0);
        }
    /* 3x3: the magnitude is 1020 (L1) and 1020 (L2): a threshold of 1020 is not exceeded */
    g_assert_cmpint(canny(ctx, im, 1020, 1020, 3, 0, edges), ==, VOTECL_OK);
    for (size_t i = 0; i < sizeof edges; i++)
        g_assert_cmpuint(edges[i], ==, 0);
    g_assert_cmpint(canny(ctx, im, 1019.9, 1019.5, 3, 1, edges), ==, VOTECL_OK);
    for (int y = 0; y < H; y++)
        g_assert_cmpuint(edges[y * W + 19], ==, 255);
    votecl_context_free(ctx);
}

/* Aperture 7 as cv2.Canny: the step's 7x7 sums (taps 5 + 4 + 1 of the derivative times the
 * smoothing's 64, times 255) scaled by 1/16 give 10200 at columns 19 and 20, and the
 * thresholds are divided by 16 (before squaring, for L2): 163200 is not exceeded, 163199 is
 * (10199.94, floored, or squared to 104038725.9 below 10200^2). */
static void
test_canny_aperture7(void)
{
    votecl_context *ctx = tu_ref_context_new();
    static uint8_t im[W * H], edges[W * H];

    step_image(im, 20);
    for (int l2 = 0; l2 <= 1; l2++) {
        g_assert_cmpint(canny(ctx, im, 163200, 163200, 7, l2, edges), ==, VOTECL_OK);
        for (size_t i = 0; i < sizeof edges; i++)
            g_assert_cmpuint(edges[i], ==, 0);
        g_assert_cmpint(canny(ctx, im, 163199, 163199, 7, l2, edges), ==, VOTECL_OK);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                g_assert_cmpuint(edges[y * W + x], ==, x == 19 ? 255 : 0);
    }
    votecl_context_free(ctx);
}

/* A bright square [10, 30) x [8, 22): each side's edge lies on the dark side of its step on
 * the left and top, on the bright side on the right and bottom (the left of two equal
 * magnitudes is kept, and the upper); away from the corners exactly those pixels. */
static void
test_canny_square(void)
{
    votecl_context *ctx = tu_ref_context_new();
    static uint8_t im[W * H], edges[W * H];
    const int x0 = 10, x1 = 30, y0 = 8, y1 = 22;

    memset(im, 0, sizeof im);
    for (int y = y0; y < y1; y++)
        memset(im + y * W + x0, 200, (size_t)(x1 - x0));
    g_assert_cmpint(canny(ctx, im, 50, 150, 3, 0, edges), ==, VOTECL_OK);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int e = edges[y * W + x] == 255, col = x == x0 - 1 || x == x1 - 1,
                row = y == y0 - 1 || y == y1 - 1;
            g_assert_true(edges[y * W + x] == 0 || e);
            if (y > y0 && y < y1 - 2 && x != x0 && x != x1 - 2)
                g_assert_cmpint(e, ==, col); /* rows through the sides' middles */
            if (x > x0 && x < x1 - 2 && y != y0 && y != y1 - 2)
                g_assert_cmpint(e, ==, row);
            if (e) /* no edge away from the boundary */
                g_assert_true(x >= x0 - 1 && x <= x1 && y >= y0 - 1 && y <= y1);
        }
    votecl_context_free(ctx);
}

/* cv2.Sobel of the step: the 3x3 and 5x5 derivatives across it, none along it. */
static void
test_sobel_step(void)
{
    votecl_context *ctx = tu_ref_context_new();
    static uint8_t im[W * H];
    static int32_t g[W * (H + 1)];
    votecl_image view = tu_view_u8(im, W, H);

    step_image(im, 20);
    g[W * H] = 77;
    g_assert_cmpint(votecl_edges_sobel(ctx, &view, 1, 0, 3, g, W), ==, VOTECL_OK);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            g_assert_cmpint(g[y * W + x], ==, x == 19 || x == 20 ? 1020 : 0);
    /* 5x5: smoothing sums to 16, the derivative's taps -1 -2 0 2 1 */
    g_assert_cmpint(votecl_edges_sobel(ctx, &view, 1, 0, 5, g, W), ==, VOTECL_OK);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int32_t want = x == 19 || x == 20 ? 3 * 16 * 255 : x == 18 || x == 21 ? 16 * 255 : 0;
            g_assert_cmpint(g[y * W + x], ==, want);
        }
    for (unsigned k = 3; k <= 7; k += 2) {
        g_assert_cmpint(votecl_edges_sobel(ctx, &view, 0, 1, k, g, W), ==, VOTECL_OK);
        for (size_t i = 0; i < W * H; i++)
            g_assert_cmpint(g[i], ==, 0);
    }
    g_assert_cmpint(g[W * H], ==, 77); /* nothing written past the rows */
    votecl_context_free(ctx);
}

/* Refusals name the field. */
static void
test_refusals(void)
{
    votecl_context *ctx = tu_ref_context_new();
    static uint8_t im[W * H], edges[W * H];
    static int32_t g[W * H];
    votecl_image view = tu_view_u8(im, W, H);
    votecl_canny_params p;

    votecl_canny_params_init(&p);
    for (unsigned a = 1; a <= 9; a += 8) {
        p.aperture_size = a;
        g_assert_cmpint(votecl_edges_canny(ctx, &view, &p, edges, W), ==, VOTECL_INVALID_ARGUMENT);
        g_assert_true(tu_message_names(votecl_context_get_error(ctx), "params.aperture_size"));
    }
    p.aperture_size = 4;
    g_assert_cmpint(votecl_edges_canny(ctx, &view, &p, edges, W), ==, VOTECL_INVALID_ARGUMENT);
    votecl_canny_params_init(&p);
    p.threshold2 = NAN;
    g_assert_cmpint(votecl_edges_canny(ctx, &view, &p, edges, W), ==, VOTECL_INVALID_ARGUMENT);
    votecl_canny_params_init(&p);
    p.struct_size = 0;
    g_assert_cmpint(votecl_edges_canny(ctx, &view, &p, edges, W), ==, VOTECL_INVALID_ARGUMENT);
    votecl_canny_params_init(&p);
    g_assert_cmpint(votecl_edges_canny(ctx, &view, NULL, edges, W), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_edges_canny(ctx, &view, &p, NULL, W), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "edges"));
    g_assert_cmpint(votecl_edges_canny(ctx, &view, &p, edges, W - 1), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_edges_canny(NULL, &view, &p, edges, W), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_edges_sobel(ctx, &view, 0, 0, 3, g, W), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_edges_sobel(ctx, &view, 2, 0, 3, g, W), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_edges_sobel(ctx, &view, 1, 0, 4, g, W), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "ksize"));
    view.dtype = VOTECL_DTYPE_F32;
    g_assert_cmpint(votecl_edges_sobel(ctx, &view, 1, 0, 3, g, W), ==, VOTECL_INVALID_ARGUMENT);
    votecl_context_free(ctx);
}

/* The public Canny on a GPU-shaped device (VOTECL_FORCE_SHAPE=gpu: the kernels of
 * cl/edges.cl on any device) equals the reference pixel for pixel: sizes around the
 * hysteresis's 32 x 8 tile, smoothed noise with ridges of every direction, every aperture
 * and norm, thresholds from none to above every magnitude (one program for them all). */
static void
test_device_equals_ref(void)
{
    static const uint32_t sizes[][2] = {{1, 1}, {2, 5}, {33, 9}, {70, 41}};
    static const double thresholds[][2] = {{0, 0}, {30, 90}, {200, 60}, {1e6, 1e6}};
    char *shape = tu_env_set("VOTECL_FORCE_SHAPE", "gpu");
    votecl_context *dev = tu_device_context_new(NULL), *ref = tu_ref_context_new();
    size_t edges = 0;
    tu_rng rng;

    tu_env_restore("VOTECL_FORCE_SHAPE", shape);
    if (dev == NULL)
        goto out;
    tu_rng_init(&rng, 26);
    for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        uint8_t *im = g_malloc((size_t)w * h), *a = g_malloc((size_t)w * h),
                *b = g_malloc((size_t)w * h);
        votecl_image view = tu_view_u8(im, w, h);
        votecl_canny_params p;
        blurred(&rng, im, w, h, (int)s % 3);
        votecl_canny_params_init(&p);
        for (p.aperture_size = 3; p.aperture_size <= 7; p.aperture_size += 2)
            for (p.l2_gradient = 0; p.l2_gradient <= 1; p.l2_gradient++)
                for (size_t t = 0; t < G_N_ELEMENTS(thresholds); t++) {
                    p.threshold1 = thresholds[t][0] * (p.aperture_size == 7 ? 16 : 1);
                    p.threshold2 = thresholds[t][1] * (p.aperture_size == 7 ? 16 : 1);
                    memset(a, 1, (size_t)w * h);
                    g_assert_cmpint(votecl_edges_canny(dev, &view, &p, a, w), ==, VOTECL_OK);
                    g_assert_cmpint(votecl_edges_canny(ref, &view, &p, b, w), ==, VOTECL_OK);
                    g_assert_cmpmem(a, (size_t)w * h, b, (size_t)w * h);
                    for (size_t i = 0; i < (size_t)w * h; i++)
                        edges += b[i] != 0;
                }
        g_free(im);
        g_free(a);
        g_free(b);
    }
    g_assert_cmpuint(edges, >, 1000); /* the images have edges to compare */
out:
    votecl_context_free(dev);
    votecl_context_free(ref);
}

static const tu_test tests[] = {
    {TU_PATH, "/edges/canny/host-equals-ref", {test_host_equals_ref}},
    {TU_PATH, "/edges/canny/step", {test_canny_step}},
    {TU_PATH, "/edges/canny/aperture7", {test_canny_aperture7}},
    {TU_PATH, "/edges/canny/square", {test_canny_square}},
    {TU_PATH, "/edges/sobel/step", {test_sobel_step}},
    {TU_PATH, "/edges/refusals", {test_refusals}},
    {TU_DEVICE, "edges/canny/equals-ref", {test_device_equals_ref}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
