/* Sum of all elements as a one-bin vote.
 *
 * /ref/sum/...     the reference (lib/sum-ref.c, the 'ref' backend) against sums the test
 *                  knows in closed form;
 * /opencl/sum/...  every strategy, forced through params.variant, against the reference:
 *                  u8 sums exactly (also past the 2^32 a single u32 bin could hold), f32 sums
 *                  within (n - 1) * 2^-24 * sum |x_i| (the worst-case rounding of any order
 *                  of summation), and exactly where every partial sum is an integer below
 *                  2^24; invalid input returns VOTECL_INVALID_ARGUMENT naming the field. */
#include "votecl-private.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sum-private.h"

static votecl_context *
device(void)
{
    return tu_device_shared();
}

static votecl_sum_plan *
plan_new(votecl_context *context, votecl_dtype dtype, votecl_variant variant)
{
    votecl_sum_params params;
    votecl_sum_plan *plan = NULL;
    votecl_sum_params_init(&params, dtype);
    params.variant = variant;
    votecl_status status = votecl_sum_plan_new(context, &params, &plan);
    if (status != VOTECL_OK) {
        g_test_message("sum plan: %s: %s", votecl_status_string(status),
                       votecl_context_get_error(context));
        g_test_message("build log:\n%s", votecl_context_get_build_log(context));
        g_test_fail();
    }
    return plan;
}

static double
run(votecl_sum_plan *plan, const void *data, size_t n)
{
    double sum = -1.0;
    g_assert_cmpint(votecl_sum_run(plan, data, n, &sum), ==, VOTECL_OK);
    return sum;
}

static double
sum_abs_f32(const float *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += fabs(x[i]);
    return s;
}

/* The f32 margin stated in votecl-reduce.h. */
static void
check_f32(double got, const float *x, size_t n, double want)
{
    double margin = (n > 0 ? (double)(n - 1) : 0.0) * ldexp(1.0, -24) * sum_abs_f32(x, n);
    if (!(fabs(got - want) <= margin)) {
        g_test_message("n %zu: device %.17g, reference %.17g, margin %.3g", n, got, want,
                       margin);
        g_test_fail();
    }
}

/* --- the reference against closed forms --- */

static void
test_ref_truth(void)
{
    size_t n = 100000;
    uint8_t *b = g_malloc(n);
    float *f = g_new(float, n);
    votecl_sum_plan *pb = plan_new(tu_ref_context, VOTECL_DTYPE_U8, VOTECL_VARIANT_AUTO);
    votecl_sum_plan *pf = plan_new(tu_ref_context, VOTECL_DTYPE_F32, VOTECL_VARIANT_AUTO);
    double byte_sum = 0.0;

    for (size_t i = 0; i < n; i++) {
        b[i] = (uint8_t)i;
        f[i] = (float)(i + 1);
        byte_sum += (double)(i % 256);
    }
    g_assert_cmpfloat(run(pb, b, n), ==, byte_sum);
    g_assert_cmpfloat(run(pf, f, n), ==, (double)n * (n + 1) / 2); /* 1 + 2 + ... + n */
    g_assert_cmpfloat(run(pb, b, 0), ==, 0.0);
    g_assert_cmpfloat(run(pf, NULL, 0), ==, 0.0);
    memset(b, 255, n);
    g_assert_cmpfloat(run(pb, b, n), ==, 255.0 * n);
    votecl_vote_plan_info info;
    g_assert_cmpint(votecl_sum_plan_describe(pb, n, &info), ==, VOTECL_UNSUPPORTED);
    votecl_sum_plan_free(pb);
    votecl_sum_plan_free(pf);
    g_free(b);
    g_free(f);
}

/* A strided three-channel image sums every channel of every pixel and no padding. */
static void
test_ref_image(void)
{
    size_t w = 13, h = 7, stride = w * 3 + 5;
    uint8_t *p = g_malloc(stride * h);
    votecl_sum_plan *plan = plan_new(tu_ref_context, VOTECL_DTYPE_U8, VOTECL_VARIANT_AUTO);
    double want = 0.0, got = -1.0;

    memset(p, 200, stride * h); /* padding that must not count */
    for (size_t y = 0; y < h; y++)
        for (size_t i = 0; i < w * 3; i++) {
            p[y * stride + i] = (uint8_t)(y + i);
            want += (double)(y + i);
        }
    votecl_image image = {p, w, h, stride, 3, VOTECL_DTYPE_U8};
    g_assert_cmpint(votecl_sum_run_image(plan, &image, &got), ==, VOTECL_OK);
    g_assert_cmpfloat(got, ==, want);
    votecl_sum_plan_free(plan);
    g_free(p);
}

/* --- the device against the reference --- */

static void
check_random(votecl_sum_plan *plan, votecl_dtype dtype, size_t n, uint64_t seed)
{
    tu_rng rng;
    void *x = g_malloc(n * 4 + 4);
    tu_rng_init(&rng, seed);
    tu_fill(&rng, dtype, x, n, -1.0f, 3.0f);
    double want = votecl__sum_ref(dtype, x, n), got = run(plan, x, n);
    if (dtype == VOTECL_DTYPE_U8)
        g_assert_cmpfloat(got, ==, want);
    else
        check_f32(got, x, n, want);
    g_free(x);
}

/* 1 + 2 + ... + n with every partial sum an integer below 2^24, and constants. */
static void
check_truth(votecl_sum_plan *plan, votecl_dtype dtype)
{
    size_t n = 4096;
    if (dtype == VOTECL_DTYPE_F32) {
        float *f = g_new(float, n);
        for (size_t i = 0; i < n; i++)
            f[i] = (float)(i + 1);
        g_assert_cmpfloat(run(plan, f, n), ==, (double)n * (n + 1) / 2);
        for (size_t i = 0; i < n; i++)
            f[i] = 0.5f;
        g_assert_cmpfloat(run(plan, f, n), ==, n * 0.5);
        g_free(f);
        return;
    }
    uint8_t *b = g_malloc(n);
    memset(b, 255, n);
    g_assert_cmpfloat(run(plan, b, n), ==, 255.0 * n);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)i;
    g_assert_cmpfloat(run(plan, b, n), ==, 16.0 * 255 * 256 / 2);
    g_free(b);
}

static void
test_device(votecl_context *context, const tu_variant_case *c)
{
    static const size_t lengths[] = {0, 1, 2, 7, 255, 4099, 65537, 1000003};
    votecl_sum_plan *plan = plan_new(context, c->dtype, c->variant);
    if (plan == NULL)
        return;
    votecl_vote_plan_info info;
    g_assert_cmpint(votecl_sum_plan_describe(plan, 1000, &info), ==, VOTECL_OK);
    g_assert_cmpstr(votecl_variant_name(info.variant), ==, votecl_variant_name(c->variant));
    g_assert_cmpuint(info.nbins, ==, 1);
    for (size_t i = 0; i < G_N_ELEMENTS(lengths); i++)
        check_random(plan, c->dtype, lengths[i], 1000 + i);
    check_truth(plan, c->dtype);
    votecl_sum_plan_free(plan);
}

/* Images: strided rows (any channels) and packed rows. */
static void
check_image(votecl_sum_plan *plan, votecl_dtype dtype, size_t w, size_t h, unsigned channels,
            size_t pad)
{
    size_t size = votecl_dtype_size(dtype), stride = w * channels * size + pad;
    uint8_t *p = g_malloc(stride * h + 1);
    tu_rng rng;
    double got = -1.0;
    tu_rng_init(&rng, w * h + channels);
    for (size_t y = 0; y < h; y++)
        tu_fill(&rng, dtype, p + y * stride, w * channels, 0.0f, 1.0f);
    votecl_image image = {p, w, h, stride, channels, dtype};
    double want = votecl__sum_ref_image(&image);
    g_assert_cmpint(votecl_sum_run_image(plan, &image, &got), ==, VOTECL_OK);
    if (dtype == VOTECL_DTYPE_U8)
        g_assert_cmpfloat(got, ==, want);
    else
        g_assert_cmpfloat(fabs(got - want), <=,
                          (double)(w * h * channels) * ldexp(1.0, -24) * want);
    g_free(p);
}

static void
test_device_image(votecl_context *context, const tu_variant_case *c)
{
    votecl_sum_plan *plan = plan_new(context, c->dtype, c->variant);
    if (plan == NULL)
        return;
    check_image(plan, c->dtype, 1, 1, 1, 0);
    check_image(plan, c->dtype, 37, 23, 1, 4);
    check_image(plan, c->dtype, 37, 23, 3, 4);
    check_image(plan, c->dtype, 64, 48, 4, 0);
    check_image(plan, c->dtype, 40000, 3, 2, 8); /* rows too wide for one image run */
    votecl_sum_plan_free(plan);
}

/* More bytes than a u32 bin can sum: 255 * n > 2^32. */
static void
test_u8_large(void)
{
    votecl_context *context = device();
    size_t n = VOTECL_SUM_U8_RUN_MAX * 2 + 1001;
    if (context == NULL)
        return;
    votecl_sum_plan *plan = plan_new(context, VOTECL_DTYPE_U8, VOTECL_VARIANT_AUTO);
    uint8_t *b = g_malloc(n);
    memset(b, 255, n);
    if (plan != NULL)
        g_assert_cmpfloat(run(plan, b, n), ==, 255.0 * n);
    votecl_sum_plan_free(plan);
    g_free(b);
}

static void
check_invalid(votecl_context *context)
{
    votecl_sum_params params;
    votecl_sum_plan *plan = NULL;
    uint8_t pixels[16] = {0};
    double sum;

    votecl_sum_params_init(&params, VOTECL_DTYPE_U16);
    tu_expect_invalid(context, votecl_sum_plan_new(context, &params, &plan), "dtype");
    g_assert_null(plan);
    votecl_sum_params_init(&params, VOTECL_DTYPE_U8);
    params.variant = (votecl_variant)17;
    tu_expect_invalid(context, votecl_sum_plan_new(context, &params, &plan), "variant");
    tu_expect_invalid(context, votecl_sum_plan_new(context, NULL, &plan), "params");
    params.variant = VOTECL_VARIANT_AUTO;
    tu_expect_invalid(context, votecl_sum_plan_new(context, &params, NULL), "out");
    g_assert_cmpint(votecl_sum_plan_new(context, &params, &plan), ==, VOTECL_OK);
    tu_expect_invalid(context, votecl_sum_run(plan, NULL, 4, &sum), "data");
    tu_expect_invalid(context, votecl_sum_run(plan, pixels, 4, NULL), "sum");
    votecl_image image = {pixels, 4, 4, 4, 1, VOTECL_DTYPE_F32};
    tu_expect_invalid(context, votecl_sum_run_image(plan, &image, &sum), "image.dtype");
    image.dtype = VOTECL_DTYPE_U8;
    image.stride = 3;
    tu_expect_invalid(context, votecl_sum_run_image(plan, &image, &sum), "image.stride");
    image.stride = 4;
    image.channels = 0;
    tu_expect_invalid(context, votecl_sum_run_image(plan, &image, &sum), "image.channels");
    image.channels = 1;
    image.data = NULL;
    tu_expect_invalid(context, votecl_sum_run_image(plan, &image, &sum), "image.data");
    tu_expect_invalid(context, votecl_sum_run_image(plan, NULL, &sum), "image");
    votecl_sum_plan_free(plan);
    votecl_sum_plan_free(NULL);
}

static void
test_ref_invalid(void)
{
    check_invalid(tu_ref_context);
}

/* Every dtype and strategy, forced through params.variant. */
static void
add_variant_tests(void)
{
    static const votecl_dtype dtypes[] = {VOTECL_DTYPE_U8, VOTECL_DTYPE_F32};
    static const tu_variant_test tests[] = {{"sum", test_device}, {"sum/image", test_device_image}};
    tu_add_variant_tests(dtypes, G_N_ELEMENTS(dtypes), tests, G_N_ELEMENTS(tests));
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/sum/truth", {test_ref_truth}},
    {TU_PATH, "/ref/sum/image", {test_ref_image}},
    {TU_PATH, "/ref/sum/invalid", {test_ref_invalid}},
    {TU_CALL, NULL, {add_variant_tests}},
    {TU_DEVICE, "sum/u8/past-2^32", {test_u8_large}},
    {TU_DEVICE_ON, "sum/invalid", {.on = check_invalid}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_NONFATAL);
}
