/* Image sub-sampling by an integer factor as location-based number voting.
 *
 * /ref/subsample/...     the reference (lib/subsample-ref.c, the 'ref' backend) against means
 *                        the test knows in closed form;
 * /opencl/subsample/...  every strategy, forced through params.variant, against the
 *                        reference, with partial blocks at the edges, factor 1, odd sizes and
 *                        padded rows. Margins: u8 means within 4 units in the last place of
 *                        the reference (block sums are exact integers; only the division
 *                        rounds); f32 means within (f^2 + 4) * 2^-24 * mean |x| of the block
 *                        (the worst-case rounding of f^2 additions in any order, plus the
 *                        division). A factor larger than the image gives an empty output. */
#include "votecl-private.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subsample-private.h"

static votecl_subsample_plan *
plan_new(votecl_context *context, size_t w, size_t h, unsigned f, votecl_dtype dtype,
         votecl_variant variant)
{
    votecl_subsample_params params;
    votecl_subsample_plan *plan = NULL;
    votecl_subsample_params_init(&params, w, h, f, dtype);
    params.variant = variant;
    votecl_status status = votecl_subsample_plan_new(context, &params, &plan);
    if (status != VOTECL_OK) {
        g_test_message("subsample plan %zux%zu/%u: %s: %s", w, h, f,
                       votecl_status_string(status), votecl_context_get_error(context));
        g_test_message("build log:\n%s", votecl_context_get_build_log(context));
        g_test_fail();
    }
    return plan;
}

/* An image that owns its pixels, rows padded by pad bytes. */
typedef struct test_image {
    uint8_t *data;
    votecl_image view;
} test_image;

static void
image_new(test_image *im, size_t w, size_t h, votecl_dtype dtype, size_t pad)
{
    size_t stride = w * votecl_dtype_size(dtype) + pad;
    im->data = g_malloc0(stride * h + 1);
    im->view = (votecl_image){im->data, w, h, stride, 1, dtype};
}

static void
image_set(test_image *im, size_t x, size_t y, double v)
{
    uint8_t *row = im->data + y * im->view.stride;
    if (im->view.dtype == VOTECL_DTYPE_U8)
        row[x] = (uint8_t)v;
    else
        ((float *)(void *)row)[x] = (float)v;
}

static void
image_random(test_image *im, uint64_t seed)
{
    tu_rng rng;
    tu_rng_init(&rng, seed);
    for (size_t y = 0; y < im->view.height; y++)
        tu_fill(&rng, im->view.dtype, im->data + y * im->view.stride, im->view.width, -2.0f,
                5.0f);
}

/* Runs plan on im into a fresh array with a guard float past the output. */
static float *
run(votecl_subsample_plan *plan, const test_image *im, size_t *count)
{
    size_t ow, oh;
    votecl_subsample_plan_output_size(plan, &ow, &oh);
    *count = ow * oh;
    float *out = g_new(float, *count + 1);
    out[*count] = -12345.0f;
    votecl_status status = votecl_subsample_run(plan, &im->view, out, *count);
    if (status != VOTECL_OK) {
        g_test_message("run: %s", votecl_status_string(status));
        g_test_fail();
    }
    g_assert_cmpfloat(out[*count], ==, -12345.0f);
    return out;
}

/* --- the reference against closed forms --- */

/* I(x, y) = x + 1000 y: the mean of a block is its centre's value. */
static void
check_ramp(votecl_context *context, votecl_dtype dtype, size_t w, size_t h, unsigned f,
           votecl_variant variant)
{
    test_image im;
    size_t count;
    image_new(&im, w, h, dtype, 3 * votecl_dtype_size(dtype));
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            image_set(&im, x, y, dtype == VOTECL_DTYPE_U8 ? (double)((x + 3 * y) % 256)
                                                          : (double)x + 1000.0 * y);
    votecl_subsample_plan *plan = plan_new(context, w, h, f, dtype, variant);
    if (plan == NULL)
        goto out;
    float *out = run(plan, &im, &count);
    size_t ow = w / f;
    for (size_t i = 0; i < count; i++) {
        double cx = (double)(i % ow) * f + (f - 1) / 2.0, cy = (double)(i / ow) * f + (f - 1) / 2.0;
        double want = dtype == VOTECL_DTYPE_U8 ? cx + 3 * cy : cx + 1000.0 * cy;
        if (dtype == VOTECL_DTYPE_U8 && (i % ow + 1) * f + 3 * (i / ow + 1) * f > 256)
            continue; /* the ramp wrapped inside this block */
        g_assert_cmpfloat(fabs(out[i] - want), <=, 4 * ldexp(fabs(want), -24));
    }
    g_free(out);
    votecl_subsample_plan_free(plan);
out:
    g_free(im.data);
}

/* A constant image gives the constant, partial blocks and all. */
static void
check_constant(votecl_context *context, votecl_dtype dtype, votecl_variant variant)
{
    test_image im;
    size_t count;
    double c = dtype == VOTECL_DTYPE_U8 ? 201.0 : 0.1;
    image_new(&im, 29, 19, dtype, 0);
    for (size_t y = 0; y < 19; y++)
        for (size_t x = 0; x < 29; x++)
            image_set(&im, x, y, c);
    votecl_subsample_plan *plan = plan_new(context, 29, 19, 3, dtype, variant);
    if (plan != NULL) {
        float *out = run(plan, &im, &count);
        g_assert_cmpuint(count, ==, 9 * 6);
        for (size_t i = 0; i < count; i++)
            g_assert_cmpfloat(fabs(out[i] - (float)c), <=, 13 * ldexp(c, -24));
        g_free(out);
    }
    votecl_subsample_plan_free(plan);
    g_free(im.data);
}

static void
test_ref_truth(void)
{
    check_ramp(tu_ref_context, VOTECL_DTYPE_F32, 37, 23, 4, VOTECL_VARIANT_AUTO);
    check_ramp(tu_ref_context, VOTECL_DTYPE_F32, 8, 8, 1, VOTECL_VARIANT_AUTO);
    check_ramp(tu_ref_context, VOTECL_DTYPE_U8, 30, 20, 5, VOTECL_VARIANT_AUTO);
    check_constant(tu_ref_context, VOTECL_DTYPE_U8, VOTECL_VARIANT_AUTO);
    check_constant(tu_ref_context, VOTECL_DTYPE_F32, VOTECL_VARIANT_AUTO);
}

/* --- the device against the reference --- */

static double
block_mean_abs(const test_image *im, unsigned f, size_t bx, size_t by)
{
    double s = 0.0;
    for (size_t y = by * f; y < (by + 1) * f; y++)
        for (size_t x = bx * f; x < (bx + 1) * f; x++) {
            const uint8_t *row = im->data + y * im->view.stride;
            s += im->view.dtype == VOTECL_DTYPE_U8 ? row[x]
                                                   : fabs(((const float *)(const void *)row)[x]);
        }
    return s / ((double)f * f);
}

static void
compare(const test_image *im, unsigned f, const float *got, const float *want, size_t count)
{
    size_t ow = im->view.width / f, bad = 0;
    for (size_t i = 0; i < count; i++) {
        double mean_abs = block_mean_abs(im, f, i % ow, i / ow);
        double margin = im->view.dtype == VOTECL_DTYPE_U8
                            ? 4 * ldexp(fabs(want[i]), -24)
                            : ((double)f * f + 4) * ldexp(mean_abs, -24);
        if (!(fabs((double)got[i] - want[i]) <= margin) && bad++ < 5)
            g_test_message("%zux%zu/%u output %zu: device %.9g, reference %.9g", im->view.width,
                           im->view.height, f, i, got[i], want[i]);
    }
    if (bad)
        g_test_fail();
}

static void
check_random(votecl_context *context, const tu_variant_case *c, size_t w, size_t h, unsigned f)
{
    test_image im;
    size_t count;
    image_new(&im, w, h, c->dtype, 4);
    image_random(&im, w * 131 + h * 7 + f);
    votecl_subsample_plan *plan = plan_new(context, w, h, f, c->dtype, c->variant);
    if (plan == NULL)
        goto out;
    votecl_vote_plan_info info;
    g_assert_cmpint(votecl_subsample_plan_describe(plan, &info), ==, VOTECL_OK);
    g_assert_cmpstr(votecl_variant_name(info.variant), ==, votecl_variant_name(c->variant));
    g_assert_cmpuint(info.nbins, ==, (w / f) * (h / f));
    float *got = run(plan, &im, &count);
    float *want = g_new(float, count + 1);
    votecl__subsample_ref(&im.view, f, want);
    compare(&im, f, got, want, count);
    g_free(got);
    g_free(want);
    votecl_subsample_plan_free(plan);
out:
    g_free(im.data);
}

static void
test_device(votecl_context *context, const tu_variant_case *c)
{
    check_random(context, c, 37, 23, 4); /* partial blocks right and bottom */
    check_random(context, c, 64, 48, 1); /* factor 1: a copy */
    check_random(context, c, 1, 1, 1);
    check_random(context, c, 5, 3, 2);
    check_random(context, c, 641, 479, 8);
    check_random(context, c, 300, 7, 7); /* one output row */
    check_ramp(context, c->dtype, 37, 23, 4, c->variant);
    check_constant(context, c->dtype, c->variant);
}

/* A factor larger than the image: an empty output, nothing compiled, nothing written. */
static void
check_empty(votecl_context *context)
{
    static const size_t sizes[][3] = {{37, 23, 40}, {37, 23, 30}, {10, 50, 11}, {1, 1, 2}};
    for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
        test_image im;
        size_t w = sizes[i][0], h = sizes[i][1], ow = 99, oh = 99;
        unsigned f = (unsigned)sizes[i][2];
        float out[1] = {-1.0f};
        image_new(&im, w, h, VOTECL_DTYPE_U8, 0);
        votecl_subsample_plan *plan = plan_new(context, w, h, f, VOTECL_DTYPE_U8,
                                               VOTECL_VARIANT_AUTO);
        votecl_subsample_plan_output_size(plan, &ow, &oh);
        g_assert_cmpuint(ow, ==, w / f);
        g_assert_cmpuint(oh, ==, h / f);
        g_assert_cmpuint(ow * oh, ==, 0);
        g_assert_cmpint(votecl_subsample_run(plan, &im.view, out, 0), ==, VOTECL_OK);
        g_assert_cmpint(votecl_subsample_run(plan, &im.view, NULL, 0), ==, VOTECL_OK);
        g_assert_cmpfloat(out[0], ==, -1.0f);
        votecl_subsample_plan_free(plan);
        g_free(im.data);
    }
}

static votecl_status
try_plan(votecl_context *context, size_t w, size_t h, unsigned f, votecl_dtype dtype)
{
    votecl_subsample_params params;
    votecl_subsample_plan *plan = NULL;
    votecl_subsample_params_init(&params, w, h, f, dtype);
    votecl_status status = votecl_subsample_plan_new(context, &params, &plan);
    g_assert_null(plan);
    return status;
}

static void
check_invalid(votecl_context *context)
{
    tu_expect_invalid(context, try_plan(context, 0, 5, 1, VOTECL_DTYPE_U8), "width");
    tu_expect_invalid(context, try_plan(context, 5, 70000, 1, VOTECL_DTYPE_U8), "height");
    tu_expect_invalid(context, try_plan(context, 5, 5, 0, VOTECL_DTYPE_U8), "factor");
    tu_expect_invalid(context, try_plan(context, 5, 5, 1, VOTECL_DTYPE_U16), "dtype");
    tu_expect_invalid(context, try_plan(context, 30000, 30000, 1, VOTECL_DTYPE_U8), "factor");

    test_image im;
    float out[64];
    image_new(&im, 16, 16, VOTECL_DTYPE_U8, 0);
    votecl_subsample_plan *plan = plan_new(context, 16, 16, 2, VOTECL_DTYPE_U8,
                                           VOTECL_VARIANT_AUTO);
    tu_expect_invalid(context, votecl_subsample_run(plan, &im.view, out, 63), "capacity");
    tu_expect_invalid(context, votecl_subsample_run(plan, &im.view, NULL, 64), "out");
    tu_expect_invalid(context, votecl_subsample_run(plan, NULL, out, 64), "image");
    im.view.width = 15;
    tu_expect_invalid(context, votecl_subsample_run(plan, &im.view, out, 64), "image.width");
    im.view.width = 16;
    im.view.channels = 3;
    tu_expect_invalid(context, votecl_subsample_run(plan, &im.view, out, 64), "image.channels");
    im.view.channels = 1;
    im.view.dtype = VOTECL_DTYPE_F32;
    tu_expect_invalid(context, votecl_subsample_run(plan, &im.view, out, 64), "image.dtype");
    im.view.dtype = VOTECL_DTYPE_U8;
    im.view.stride = 8;
    tu_expect_invalid(context, votecl_subsample_run(plan, &im.view, out, 64), "image.stride");
    votecl_subsample_plan_free(plan);
    votecl_subsample_plan_free(NULL);
    g_free(im.data);
}

static void
empty_invalid(votecl_context *context)
{
    check_empty(context);
    check_invalid(context);
}

static void
test_ref_empty_invalid(void)
{
    empty_invalid(tu_ref_context);
}

/* Every dtype and strategy, forced through params.variant. */
static void
add_variant_tests(void)
{
    static const votecl_dtype dtypes[] = {VOTECL_DTYPE_U8, VOTECL_DTYPE_F32};
    static const tu_variant_test tests[] = {{"subsample", test_device}};
    tu_add_variant_tests(dtypes, G_N_ELEMENTS(dtypes), tests, G_N_ELEMENTS(tests));
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/subsample/truth", {test_ref_truth}},
    {TU_PATH, "/ref/subsample/empty-and-invalid", {test_ref_empty_invalid}},
    {TU_CALL, NULL, {add_variant_tests}},
    {TU_DEVICE_ON, "subsample/empty-and-invalid", {.on = empty_invalid}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_NONFATAL);
}
