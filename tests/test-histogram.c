/* Histograms on the voting engine.
 *
 * /ref/...     the reference (the 'ref' backend, lib/histogram-ref.c) against truth the test
 *              constructs analytically;
 * /opencl/...  every strategy, forced through params.variant, against the reference: bins
 *              equal exactly (memcmp) for counts and integer-valued weights, within a stated
 *              margin for random float weights; plus the build-error path, the disk cache and
 *              VOTECL_FORCE_VARIANT. A machine without an OpenCL device skips these. */
#include "votecl-private.h"

#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shared OpenCL context; NULL (and the test skipped or failed) when there is none. */
static votecl_context *
device(void)
{
    return tu_device_shared();
}

static size_t
bin_size(const votecl_hist_params *p)
{
    (void)p;
    return 4; /* uint32_t counts or float sums */
}

/* --- running plans --- */

/* Runs plan over frames frames (1: votecl_hist_run, else votecl_hist_run_batch) into newly
 * allocated bins, which are first filled with a sentinel so that unwritten bins show.
 * Returns NULL (test failed) when the call fails. */
static void *
run_plan(votecl_context *context, votecl_hist_plan *plan, const void *x, const void *y,
         const float *w, size_t n, size_t frames)
{
    size_t count = (size_t)votecl_hist_plan_nbins(plan) * frames;
    void *bins = g_malloc(count * 4 + 4);
    memset(bins, 0xA5, count * 4 + 4);
    votecl_status status = frames == 1 ? votecl_hist_run(plan, x, y, w, n, bins)
                                       : votecl_hist_run_batch(plan, x, y, w, n, frames, bins);
    if (status != VOTECL_OK) {
        g_test_message("run of %zu x %zu elements: %s: %s", n, frames, votecl_status_string(status),
                       votecl_context_get_error(context));
        g_test_fail();
        g_free(bins);
        return NULL;
    }
    /* One guard word past the end must stay untouched. */
    const uint32_t *guard = (const uint32_t *)((const char *)bins + count * 4);
    if (*guard != 0xA5A5A5A5u) {
        g_test_message("run wrote past the end of bins");
        g_test_fail();
    }
    return bins;
}

static votecl_hist_plan *
plan_new(votecl_context *context, const votecl_hist_params *p, const char *what)
{
    votecl_hist_plan *plan = NULL;
    votecl_status status = votecl_hist_plan_new(context, p, &plan);
    return tu_check_ok(context, status, "%s: plan", what) ? plan : NULL;
}

/* A device plan with a forced strategy next to a reference plan of the same params. */
typedef struct plan_pair {
    votecl_context *context;
    votecl_hist_plan *device;
    votecl_hist_plan *ref;
    votecl_hist_params params;
    uint64_t nbins;
} plan_pair;

static int
pair_init(plan_pair *pair, votecl_context *context, const votecl_hist_params *p,
          votecl_variant variant, const char *what)
{
    memset(pair, 0, sizeof *pair);
    pair->context = context;
    pair->params = *p;
    pair->params.variant = variant;
    votecl_hist_params ref_params = *p;
    ref_params.variant = VOTECL_VARIANT_AUTO;
    pair->device = plan_new(context, &pair->params, what);
    pair->ref = plan_new(tu_ref_context, &ref_params, what);
    if (pair->device == NULL || pair->ref == NULL)
        return 0;
    pair->nbins = votecl_hist_plan_nbins(pair->device);
    g_assert_cmpuint(pair->nbins, ==, votecl_hist_plan_nbins(pair->ref));

    /* The forced strategy is the one that runs. */
    votecl_vote_plan_info info;
    g_assert_cmpint(votecl_hist_plan_describe(pair->device, 100000, 1, &info), ==, VOTECL_OK);
    if (variant != VOTECL_VARIANT_AUTO)
        g_assert_cmpstr(votecl_variant_name(info.variant), ==, votecl_variant_name(variant));
    return 1;
}

static void
pair_clear(plan_pair *pair)
{
    votecl_hist_plan_free(pair->device);
    votecl_hist_plan_free(pair->ref);
    pair->device = pair->ref = NULL;
}

static void
report_difference(const plan_pair *pair, const void *dev, const void *ref, size_t count,
                  const char *what)
{
    size_t first = tu_first_difference(dev, ref, count, 4);
    size_t differing = 0;
    for (size_t i = first; i < count; i++)
        differing += memcmp((const char *)dev + 4 * i, (const char *)ref + 4 * i, 4) != 0;
    if (pair->params.weighted)
        g_test_message("%s: %zu of %zu bins differ; first: bin %zu device %.9g reference %.9g",
                       what, differing, count, first, ((const float *)dev)[first],
                       ((const float *)ref)[first]);
    else
        g_test_message("%s: %zu of %zu bins differ; first: bin %zu device %u reference %u", what,
                       differing, count, first, ((const uint32_t *)dev)[first],
                       ((const uint32_t *)ref)[first]);
}

/* Runs both plans on the same input; the bins must be equal bit for bit. */
static int
pair_check(const plan_pair *pair, const void *x, const void *y, const float *w, size_t n,
           size_t frames, const char *what)
{
    if (pair->device == NULL || pair->ref == NULL)
        return 0;
    void *dev = run_plan(pair->context, pair->device, x, y, w, n, frames);
    void *ref = run_plan(tu_ref_context, pair->ref, x, y, w, n, frames);
    int same = 0;
    if (dev != NULL && ref != NULL) {
        size_t count = (size_t)pair->nbins * frames;
        same = memcmp(dev, ref, count * bin_size(&pair->params)) == 0;
        if (!same) {
            report_difference(pair, dev, ref, count, what);
            g_test_fail();
        }
    }
    g_free(dev);
    g_free(ref);
    return same;
}

/* One plan pair, one check. */
static int
check_once(votecl_variant variant, const votecl_hist_params *p, const void *x, const void *y,
           const float *w, size_t n, size_t frames, const char *what)
{
    plan_pair pair;
    int ok =
        pair_init(&pair, device(), p, variant, what) && pair_check(&pair, x, y, w, n, frames, what);
    pair_clear(&pair);
    return ok;
}

/* --- test registration: every case runs once per forced strategy --- */

typedef void (*variant_case)(votecl_variant variant, votecl_dtype dtype);

typedef struct case_data {
    variant_case fn;
    votecl_variant variant;
    votecl_dtype dtype;
} case_data;

static void
run_case(gconstpointer data)
{
    const case_data *c = data;
    if (device() == NULL)
        return;
    c->fn(c->variant, c->dtype);
}

static void
add_case(const char *name, votecl_variant variant, votecl_dtype dtype, variant_case fn)
{
    case_data *c = g_new(case_data, 1);
    c->fn = fn;
    c->variant = variant;
    c->dtype = dtype;
    char *path = dtype != 0 ? g_strdup_printf("%s/%s/%s", votecl_variant_name(variant),
                                              tu_dtype_name(dtype), name)
                            : g_strdup_printf("%s/%s", votecl_variant_name(variant), name);
    tu_add_device_data_test(path, c, run_case, g_free);
    g_free(path);
}

/* Default params for dtype; for f32 the data is drawn from [-0.25, 1.25) so that values
 * fall below min and at or above max too. */
static void
default_params(votecl_hist_params *p, votecl_dtype dtype)
{
    votecl_hist_params_init(p, dtype);
}

#define F32_LO -0.25f
#define F32_HI 1.25f

static void *
random_data(votecl_dtype dtype, size_t n, uint64_t seed)
{
    void *x = g_malloc(n * votecl_dtype_size(dtype) + 1);
    tu_rng rng;
    tu_rng_init(&rng, seed);
    tu_fill(&rng, dtype, x, n, F32_LO, F32_HI);
    return x;
}

/* Sprinkles the values that cast no vote (NaN, infinities, max, below min) and values on
 * bin edges into f32 data. */
static void
add_special_floats(float *x, size_t n, uint64_t seed)
{
    const float specials[] = {NAN,    -NAN,        INFINITY,    -INFINITY,  1.0f,         0.0f,
                              -0.0f,  0.5f,        0.25f,       1.0f / 256, 255.0f / 256, -1e-30f,
                              1e-40f, 0.99999994f, 1.00000012f, FLT_MAX,    -FLT_MAX};
    tu_rng rng;
    tu_rng_init(&rng, seed);
    for (size_t i = 0; i < n / 50; i++)
        x[tu_rng_below(&rng, (uint32_t)n)] = specials[tu_rng_below(&rng, G_N_ELEMENTS(specials))];
}

/* f32 edge cases (issue 23): OpenCV's calcHist accuracy test and NumPy's float32 edges. */
typedef struct f32_range {
    double lo, hi;
    uint32_t nbins;
} f32_range;

/* OpenCV's test_histograms.cpp (CV_CalcHistTest): f32 images over [-1000, 1000), ranges
 * [-1000, 1000) or 5% inside, uniform bins; the bin counts of issue 23 and a few others. */
static const f32_range calchist_ranges[] = {
    {-1000, 1000, 256085}, {-1000, 1000, 691119}, {-900, 900, 256085},
    {-900, 900, 1000},     {-1000, 1000, 3},
};

/* Values near the real edges lo + k * (hi - lo) / n: the floats from 2 below to 2 above
 * the nearest, for `edges` edges spread over the range (every edge when there are fewer). */
static size_t
near_edges(float *x, const f32_range *r, size_t edges, uint64_t seed)
{
    tu_rng rng;
    tu_rng_init(&rng, seed);
    size_t n = 0;
    for (size_t i = 0; i < edges; i++) {
        uint32_t k =
            edges > r->nbins ? (uint32_t)(i % (r->nbins + 1)) : tu_rng_below(&rng, r->nbins + 1);
        float f = (float)(r->lo + (double)k * ((r->hi - r->lo) / r->nbins));
        float v = nextafterf(nextafterf(f, -INFINITY), -INFINITY);
        for (int j = 0; j < 5; j++, v = nextafterf(v, INFINITY))
            x[n++] = v;
    }
    return n;
}

/* 65536 values as OpenCV's RNG fills a CV_32F image over [-1000, 1000) (a 32-bit integer
 * times (b - a) 2^-32 in single precision), then 5 x 4096 values at edges; *count is set. */
static float *
calchist_data(const f32_range *r, uint64_t seed, size_t *count)
{
    size_t n = 65536;
    float *x = g_new(float, n + 5 * 4096);
    tu_rng rng;
    tu_rng_init(&rng, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(int32_t)tu_rng_below(&rng, 0xffffffffu) * (2000.0f * 0x1p-32f);
    *count = n + near_edges(x + n, r, 4096, seed + 1);
    return x;
}

/* NumPy's float32 edges of np.histogram(x, n, range=(lo, hi)): np.linspace in double
 * (k * step + lo, the last edge hi itself), then float32. Written apart from the library. */
static float
numpy_edge_f32(const f32_range *r, uint32_t k)
{
    double step = (r->hi - r->lo) / r->nbins;
    return k == r->nbins ? (float)r->hi : (float)((double)k * step + r->lo);
}

/* --- cases --- */

static void
case_random(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    size_t n = 1000003;
    void *x = random_data(dtype, n, 1);
    if (dtype == VOTECL_DTYPE_F32)
        add_special_floats(x, n, 2);
    check_once(variant, &p, x, NULL, NULL, n, 1, "random");

    /* A second range that is not a power of two. */
    if (dtype == VOTECL_DTYPE_F32) {
        p.nbins[0] = 1000;
        p.min[0] = -0.125;
        p.max[0] = 1.1;
    } else if (dtype == VOTECL_DTYPE_U8) {
        p.nbins[0] = 10;
    } else if (dtype == VOTECL_DTYPE_U16) {
        p.nbins[0] = 1000;
        p.min[0] = 100;
        p.max[0] = 60000;
    } else {
        p.nbins[0] = 4099;
        p.min[0] = 1000;
        p.max[0] = 4000000000.0;
    }
    check_once(variant, &p, x, NULL, NULL, n, 1, "random, other range");

    /* Integer ranges reaching past the type's largest value. */
    if (dtype == VOTECL_DTYPE_U8 || dtype == VOTECL_DTYPE_U16) {
        default_params(&p, dtype);
        p.nbins[0] = 7;
        p.min[0] = 3;
        p.max[0] = dtype == VOTECL_DTYPE_U8 ? 1000 : 100000;
        check_once(variant, &p, x, NULL, NULL, n, 1, "random, range wider than the type");
    }
    g_free(x);
}

/* A few distinct values across neighbouring elements: the case bin stretching is for. */
static void
case_few_values(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    size_t n = 524309;
    size_t es = votecl_dtype_size(dtype);
    uint8_t *x = g_malloc(n * es);
    void *pool = random_data(dtype, 16, 3);
    if (dtype == VOTECL_DTYPE_F32)
        tu_fill_f32(&(tu_rng){77}, pool, 16, 0.0f, 1.0f);
    for (unsigned distinct = 2; distinct <= 16; distinct *= 2) {
        for (size_t i = 0; i < n; i++)
            memcpy(x + i * es, (const uint8_t *)pool + (i % distinct) * es, es);
        char what[64];
        snprintf(what, sizeof what, "%u distinct values", distinct);
        check_once(variant, &p, x, NULL, NULL, n, 1, what);
    }
    g_free(pool);
    g_free(x);
}

static void
case_constant(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    size_t n = (size_t)1 << 20;
    size_t es = votecl_dtype_size(dtype);
    uint8_t *x = g_malloc(n * es);
    plan_pair pair;
    if (pair_init(&pair, device(), &p, variant, "constant")) {
        /* A value in the middle, the lowest and the highest bin. */
        const double values[] = {77, 0, 255, 0.5, 0.0, 0.99999994, 4294967295.0, 65535};
        for (size_t k = 0; k < G_N_ELEMENTS(values); k++) {
            for (size_t i = 0; i < n; i++) {
                switch (dtype) {
                case VOTECL_DTYPE_U8:
                    x[i] = (uint8_t)fmin(values[k], 255);
                    break;
                case VOTECL_DTYPE_U16:
                    ((uint16_t *)x)[i] = (uint16_t)fmin(values[k], 65535);
                    break;
                case VOTECL_DTYPE_U32:
                    ((uint32_t *)x)[i] = (uint32_t)values[k];
                    break;
                case VOTECL_DTYPE_F32:
                    ((float *)x)[i] = (float)fmin(values[k], 0.99999994);
                    break;
                }
            }
            char what[64];
            snprintf(what, sizeof what, "constant %g", values[k]);
            pair_check(&pair, x, NULL, NULL, n, 1, what);
        }
    }
    pair_clear(&pair);
    g_free(x);
}

static int
all_zero(const uint32_t *bins, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (bins[i] != 0)
            return 0;
    return 1;
}

static void
case_empty(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    plan_pair pair;
    if (!pair_init(&pair, device(), &p, variant, "empty"))
        goto out;
    /* n = 0: every bin zero, x may be NULL. */
    pair_check(&pair, NULL, NULL, NULL, 0, 1, "empty, NULL x");
    uint32_t one = 0;
    pair_check(&pair, &one, NULL, NULL, 0, 1, "empty");
    void *bins = run_plan(pair.context, pair.device, NULL, NULL, NULL, 0, 1);
    if (bins != NULL)
        g_assert_true(all_zero(bins, (size_t)pair.nbins));
    g_free(bins);
    bins = run_plan(pair.context, pair.device, NULL, NULL, NULL, 0, 3);
    if (bins != NULL)
        g_assert_true(all_zero(bins, (size_t)pair.nbins * 3));
    g_free(bins);
out:
    pair_clear(&pair);
}

static void
case_one(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    plan_pair pair;
    if (!pair_init(&pair, device(), &p, variant, "one element"))
        goto out;
    void *x = random_data(dtype, 8, 4);
    for (size_t i = 0; i < 8; i++)
        pair_check(&pair, (const char *)x + i * votecl_dtype_size(dtype), NULL, NULL, 1, 1,
                   "one element");
    /* The single vote lands in exactly one bin with count 1 (or none for an f32 value
     * outside [0, 1)). */
    uint32_t *bins = run_plan(pair.context, pair.device, x, NULL, NULL, 1, 1);
    if (bins != NULL) {
        uint64_t total = 0;
        for (uint64_t b = 0; b < pair.nbins; b++)
            total += bins[b];
        float v = ((const float *)x)[0];
        if (dtype != VOTECL_DTYPE_F32 || (v >= 0.0f && v < 1.0f))
            g_assert_cmpuint(total, ==, 1);
        else
            g_assert_cmpuint(total, ==, 0);
    }
    g_free(bins);
    g_free(x);
out:
    pair_clear(&pair);
}

/* Odd and prime lengths, all through one plan. */
static void
case_lengths(votecl_variant variant, votecl_dtype dtype)
{
    static const size_t lengths[] = {1,   2,    3,    5,     7,      31,    33,     127,   255,
                                     257, 1021, 4093, 65537, 131071, 99991, 262147, 524287};
    votecl_hist_params p;
    default_params(&p, dtype);
    void *x = random_data(dtype, 524287, 5);
    plan_pair pair;
    if (pair_init(&pair, device(), &p, variant, "lengths")) {
        for (size_t i = 0; i < G_N_ELEMENTS(lengths); i++) {
            char what[64];
            snprintf(what, sizeof what, "length %zu", lengths[i]);
            if (!pair_check(&pair, x, NULL, NULL, lengths[i], 1, what))
                break;
        }
        /* An unaligned start. */
        pair_check(&pair, (const char *)x + votecl_dtype_size(dtype), NULL, NULL, 100003, 1,
                   "unaligned start");
    }
    pair_clear(&pair);
    g_free(x);
}

/* N = 1: every vote in range goes into the one bin. */
static void
case_one_bin(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    p.nbins[0] = 1;
    size_t n = 300007;
    void *x = random_data(dtype, n, 6);
    plan_pair pair;
    if (pair_init(&pair, device(), &p, variant, "one bin")) {
        pair_check(&pair, x, NULL, NULL, n, 1, "one bin");
        uint32_t *bins = run_plan(pair.context, pair.device, x, NULL, NULL, n, 1);
        if (bins != NULL && dtype != VOTECL_DTYPE_F32)
            g_assert_cmpuint(bins[0], ==, n);
        g_free(bins);
    }
    pair_clear(&pair);
    g_free(x);
}

/* A context on the running backend that sees at most 512 KiB of local memory (Nmax 131072
 * bins, or the device's own when smaller), so that 300,000 bins need several passes whatever
 * the device reports: PoCL shows 2 MiB on some CPUs and 64 KiB on others. A smaller
 * VOTECL_LOCAL_MEM_BYTES already set (the profile runs) is kept. */
static votecl_context *
small_local_context(void)
{
    const char *have = g_getenv("VOTECL_LOCAL_MEM_BYTES");
    const char *bytes = have != NULL && strtoull(have, NULL, 10) < 524288 ? have : "524288";
    char *saved = tu_env_set("VOTECL_LOCAL_MEM_BYTES", bytes);
    votecl_context *context = tu_device_context_new(NULL);

    tu_env_restore("VOTECL_LOCAL_MEM_BYTES", saved);
    return context;
}

/* More bins than local memory holds: the local strategy makes several passes. */
static void
case_multipass(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    size_t n = 1000003;
    void *x;
    if (dtype == VOTECL_DTYPE_F32) {
        p.nbins[0] = 300007;
        p.min[0] = -1.0;
        p.max[0] = 2.0;
        x = g_new(float, n);
        tu_fill_f32(&(tu_rng){8}, x, n, -1.1f, 2.1f);
    } else {
        p.nbins[0] = 300000;
        p.min[0] = 0;
        p.max[0] = 300000;
        x = g_new(uint32_t, n);
        tu_fill_u32(&(tu_rng){9}, x, n, 310000);
    }
    plan_pair pair;
    votecl_context *context = small_local_context();
    if (context != NULL && pair_init(&pair, context, &p, variant, "N > Nmax")) {
        votecl_vote_plan_info info;
        g_assert_cmpint(votecl_hist_plan_describe(pair.device, n, 1, &info), ==, VOTECL_OK);
        g_test_message("%s: nmax %u passes %u parts %u stretch %u copies %u",
                       votecl_variant_name(info.variant), info.nmax, info.passes, info.parts,
                       info.stretch, info.copies);
        if (variant == VOTECL_VARIANT_LOCAL) {
            g_assert_cmpuint(info.nmax, >, 0);
            g_assert_cmpuint(info.nmax, <, p.nbins[0]);
            g_assert_cmpuint(info.passes, >, 1);
            g_assert_cmpuint((uint64_t)info.passes * info.nmax, >=, p.nbins[0]);
        }
        pair_check(&pair, x, NULL, NULL, n, 1, "N > Nmax");
        pair_check(&pair, x, NULL, NULL, 4099, 1, "N > Nmax, few elements");
        pair_check(&pair, x, NULL, NULL, 250000, 4, "N > Nmax, batch of 4");
    }
    if (context != NULL)
        pair_clear(&pair);
    votecl_context_free(context);
    g_free(x);
}

/* 2^24 bins: every strategy must cope (local with many passes). */
static void
case_many_bins(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.nbins[0] = 1u << 24;
    size_t n = 1000003;
    float *x = g_new(float, n);
    tu_fill_f32(&(tu_rng){10}, x, n, -0.01f, 1.01f);
    plan_pair pair;
    if (pair_init(&pair, device(), &p, variant, "2^24 bins")) {
        votecl_vote_plan_info info;
        g_assert_cmpint(votecl_hist_plan_describe(pair.device, n, 1, &info), ==, VOTECL_OK);
        g_assert_cmpuint(info.nbins, ==, 1u << 24);
        if (variant == VOTECL_VARIANT_LOCAL)
            g_assert_cmpuint(info.passes, >, 1);
        pair_check(&pair, x, NULL, NULL, n, 1, "2^24 bins");
    }
    pair_clear(&pair);

    /* u32 data over [0, 2^24): one bin per value. */
    votecl_hist_params_init(&p, VOTECL_DTYPE_U32);
    p.nbins[0] = 1u << 24;
    p.max[0] = 1u << 24;
    uint32_t *u = g_new(uint32_t, n);
    tu_fill_u32(&(tu_rng){11}, u, n, (1u << 24) + 1000);
    check_once(variant, &p, u, NULL, NULL, n, 1, "2^24 bins, u32");
    g_free(u);
    g_free(x);
}

/* Relative margin for float sums that the device and the reference add in different
 * orders. Summing k positive terms one after another has a rounding error whose standard
 * deviation is about sqrt(k) / 3 * 2^-24 * sum; we allow 4 * sqrt(k) * FLT_EPSILON * sum
 * (= 24 such standard deviations, still about sqrt(k) / 4 times tighter than the worst-case
 * bound k * FLT_EPSILON * sum). For the 4000-vote bins below that is 3e-5 relative. */
static double
weighted_margin(uint32_t votes, double sum_abs)
{
    return 4.0 * sqrt((double)votes) * FLT_EPSILON * sum_abs;
}

static void
case_weighted(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    p.weighted = 1;
    size_t n = 1000003;
    void *x = random_data(dtype, n, 12);
    float *w = g_new(float, n);
    tu_rng rng;
    tu_rng_init(&rng, 13);

    /* Integer weights keep every partial sum an integer below 2^24: exact on any order. */
    for (size_t i = 0; i < n; i++)
        w[i] = (float)((int)tu_rng_below(&rng, 6) - 2);
    plan_pair pair;
    if (pair_init(&pair, device(), &p, variant, "weighted")) {
        pair_check(&pair, x, NULL, w, n, 1, "integer weights");
        pair_check(&pair, x, NULL, w, 0, 1, "weighted, empty");
        pair_check(&pair, x, NULL, w, 1, 1, "weighted, one element");
        pair_check(&pair, x, NULL, w, 77777, 3, "integer weights, batch of 3");
    }

    /* Random weights in [0, 1): within the margin above, bin by bin. */
    tu_fill_f32(&rng, w, n, 0.0f, 1.0f);
    votecl_hist_params counts_params = p;
    counts_params.weighted = 0;
    votecl_hist_plan *counts_plan = plan_new(tu_ref_context, &counts_params, "counts");
    if (pair.device != NULL && pair.ref != NULL && counts_plan != NULL) {
        float *dev = run_plan(pair.context, pair.device, x, NULL, w, n, 1);
        float *ref = run_plan(tu_ref_context, pair.ref, x, NULL, w, n, 1);
        uint32_t *votes = run_plan(tu_ref_context, counts_plan, x, NULL, NULL, n, 1);
        if (dev != NULL && ref != NULL && votes != NULL) {
            size_t bad = 0;
            double worst = 0;
            for (uint64_t b = 0; b < pair.nbins; b++) {
                double margin = weighted_margin(votes[b], fabs((double)ref[b]));
                double diff = fabs((double)dev[b] - (double)ref[b]);
                if (ref[b] != 0)
                    worst = fmax(worst, diff / fabs((double)ref[b]));
                if (!(diff <= margin)) {
                    if (bad++ < 5)
                        g_test_message("bin %" G_GUINT64_FORMAT ": device %.9g reference %.9g "
                                       "(%u votes, margin %.3g)",
                                       b, dev[b], ref[b], votes[b], margin);
                }
            }
            g_test_message("random weights: largest relative difference %.3g", worst);
            g_assert_cmpuint(bad, ==, 0);
        }
        g_free(dev);
        g_free(ref);
        g_free(votes);
    }
    votecl_hist_plan_free(counts_plan);
    pair_clear(&pair);
    g_free(w);
    g_free(x);
}

/* 2-D from two interleaved channels of x. */
static void
case_2d_channels(votecl_variant variant, votecl_dtype dtype)
{
    const uint32_t sizes[][2] = {{30, 30}, {256, 256}, {7, 64}};
    size_t n = 500009;
    void *x = random_data(dtype, 3 * n, 14);
    for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
        votecl_hist_params p;
        default_params(&p, dtype);
        double lo = p.min[0], hi = p.max[0];
        votecl_hist_params_set_2d(&p, sizes[s][0], lo, hi, sizes[s][1], lo, hi);
        p.two_arrays = 0;
        p.channels = 2;
        p.channel[0] = 0;
        p.channel[1] = 1;
        char what[64];
        snprintf(what, sizeof what, "2-D %ux%u of two channels", sizes[s][0], sizes[s][1]);
        check_once(variant, &p, x, NULL, NULL, n, 1, what);
        if (s == 0) {
            /* Three channels, the second dimension before the first. */
            p.channels = 3;
            p.channel[0] = 2;
            p.channel[1] = 0;
            check_once(variant, &p, x, NULL, NULL, n, 1, "2-D of channels 2 and 0 of 3");
        }
    }
    g_free(x);
}

/* Extreme f32 ranges: tiny bins near zero, a range wider than FLT_MAX (where v - min
 * overflows to +inf), and data full of huge values. A plan the library rejects is fine;
 * one it accepts must agree with the reference. */
static void
case_f32_extreme(votecl_variant variant, votecl_dtype dtype)
{
    const double ranges[][2] = {{-3.4e38, 3.4e38}, {-1e38, 3e38}, {0, 1e39}, {1e-30, 1e-29}};
    size_t n = 100003;
    float *x = g_new(float, n);
    tu_rng rng;
    tu_rng_init(&rng, 42);
    for (size_t i = 0; i < n; i++) {
        float m = tu_rng_float(&rng, -1.0f, 1.0f);
        int e = (int)tu_rng_below(&rng, 256) - 128;
        x[i] = ldexpf(m, e); /* every exponent, both signs */
    }
    add_special_floats(x, n, 43);
    for (size_t r = 0; r < G_N_ELEMENTS(ranges); r++) {
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
        p.min[0] = ranges[r][0];
        p.max[0] = ranges[r][1];
        votecl_hist_plan *probe = NULL;
        votecl_status status = votecl_hist_plan_new(tu_ref_context, &p, &probe);
        votecl_hist_plan_free(probe);
        if (status == VOTECL_INVALID_ARGUMENT)
            continue;
        char what[96];
        snprintf(what, sizeof what, "f32 over [%g, %g)", ranges[r][0], ranges[r][1]);
        check_once(variant, &p, x, NULL, NULL, n, 1, what);
    }
    g_free(x);
}

/* OpenCV's calcHist accuracy case and values at the edges: every strategy equals the
 * reference (which /ref/f32/calchist checks against OpenCV's own double-precision bins). */
static void
case_f32_calchist(votecl_variant variant, votecl_dtype dtype)
{
    (void)dtype;
    /* One range in make check (each range compiles its own kernels); all under -m slow. */
    size_t ranges = g_test_slow() ? G_N_ELEMENTS(calchist_ranges) : 1;
    for (size_t r = 0; r < ranges; r++) {
        const f32_range *range = &calchist_ranges[r];
        size_t n;
        float *x = calchist_data(range, 60 + r, &n);
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
        p.nbins[0] = range->nbins;
        p.min[0] = range->lo;
        p.max[0] = range->hi;
        char what[96];
        snprintf(what, sizeof what, "calcHist case [%g, %g), %u bins", range->lo, range->hi,
                 range->nbins);
        check_once(variant, &p, x, NULL, NULL, n, 1, what);
        g_free(x);
    }
}

/* Both edge conventions at and around the edges of awkward ranges: one where the float
 * guess is a bin or two off (foff's rounding: bisection over several edges), a non-dyadic
 * one (NumPy's edges), then under -m slow one far from zero, tiny, wider than FLT_MAX,
 * 2^22 + 1 bins, NumPy's own test_bin_edge_cases; random data too. Each range and
 * convention compiles its own kernels: make check runs two per strategy. */
static void
case_f32_edges(votecl_variant variant, votecl_dtype dtype)
{
    static const struct {
        f32_range range;
        int numpy; /* 0: exact, 1: NumPy's, 2: both */
        int slow;
    } cases[] = {
        {{1000.1, 1000.2, 4096}, 0, 0}, {{0.1, 0.7, 100}, 1, 0},     {{0.1, 0.7, 100}, 0, 1},
        {{1000, 1000.01, 7}, 2, 1},     {{1e-30, 1e-29, 256}, 2, 1}, {{-3.4e38, 3.4e38, 4}, 2, 1},
        {{0, 1, (1u << 22) + 1}, 2, 1}, {{2, 2280, 8296}, 2, 1},
    };
    (void)dtype;
    size_t random = 20011;
    float *x = g_new(float, random + 5 * 3000);
    for (size_t r = 0; r < G_N_ELEMENTS(cases); r++) {
        const f32_range *range = &cases[r].range;
        if (cases[r].slow && !g_test_slow())
            continue;
        tu_rng rng;
        tu_rng_init(&rng, 80 + r);
        double span = range->hi - range->lo;
        for (size_t i = 0; i < random; i++)
            x[i] = (float)(range->lo + span * (tu_rng_float(&rng, -0.01f, 1.01f)));
        size_t n = random + near_edges(x + random, range, 3000, 90 + r);
        for (int numpy = 0; numpy <= 1; numpy++) {
            if (cases[r].numpy != 2 && cases[r].numpy != numpy)
                continue;
            votecl_hist_params p;
            votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
            p.nbins[0] = range->nbins;
            p.min[0] = range->lo;
            p.max[0] = range->hi;
            p.edges = numpy ? VOTECL_HIST_EDGES_NUMPY : VOTECL_HIST_EDGES_EXACT;
            char what[96];
            snprintf(what, sizeof what, "%s edges of [%g, %g), %u bins",
                     numpy ? "NumPy's" : "exact", range->lo, range->hi, range->nbins);
            check_once(variant, &p, x, NULL, NULL, n, 1, what);
        }
    }
    g_free(x);
}

/* 2-D of two channels with integer weights: exact. */
static void
case_2d_weighted(votecl_variant variant, votecl_dtype dtype)
{
    size_t n = 300007;
    void *x = random_data(dtype, 2 * n, 40);
    float *w = g_new(float, n);
    tu_rng rng;
    tu_rng_init(&rng, 41);
    for (size_t i = 0; i < n; i++)
        w[i] = (float)tu_rng_below(&rng, 5);
    votecl_hist_params p;
    default_params(&p, dtype);
    double lo = p.min[0], hi = p.max[0];
    votecl_hist_params_set_2d(&p, 30, lo, hi, 30, lo, hi);
    p.two_arrays = 0;
    p.channels = 2;
    p.channel[0] = 0;
    p.channel[1] = 1;
    p.weighted = 1;
    check_once(variant, &p, x, NULL, w, n, 1, "weighted 2-D");
    g_free(w);
    g_free(x);
}

/* 2-D from two arrays x and y. */
static void
case_2d_arrays(votecl_variant variant, votecl_dtype dtype)
{
    const uint32_t sizes[][2] = {{30, 30}, {256, 256}};
    size_t n = 500009;
    void *x = random_data(dtype, n, 15);
    void *y = random_data(dtype, n, 16);
    for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
        votecl_hist_params p;
        default_params(&p, dtype);
        double lo = p.min[0], hi = p.max[0];
        p.two_arrays = 1;
        votecl_hist_params_set_2d(&p, sizes[s][0], lo, hi, sizes[s][1], lo, hi);
        p.two_arrays = 1;
        p.channels = 1;
        p.channel[0] = p.channel[1] = 0;
        char what[64];
        snprintf(what, sizeof what, "2-D %ux%u of two arrays", sizes[s][0], sizes[s][1]);
        check_once(variant, &p, x, y, NULL, n, 1, what);
    }
    g_free(x);
    g_free(y);
}

/* A batch of frames equals the frames one by one, on the device and on the reference. */
static void
case_batch(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    if (dtype == VOTECL_DTYPE_F32)
        p.nbins[0] = 1000;
    const size_t n = 100003, frames = 7;
    size_t es = votecl_dtype_size(dtype);
    uint8_t *x = random_data(dtype, n * frames, 17);
    plan_pair pair;
    if (!pair_init(&pair, device(), &p, variant, "batch"))
        goto out;
    votecl_vote_plan_info info;
    g_assert_cmpint(votecl_hist_plan_describe(pair.device, n, frames, &info), ==, VOTECL_OK);
    g_assert_cmpuint(info.spaces, ==, frames);

    pair_check(&pair, x, NULL, NULL, n, frames, "batch of 7");
    uint32_t *batch = run_plan(pair.context, pair.device, x, NULL, NULL, n, frames);
    for (size_t f = 0; batch != NULL && f < frames; f++) {
        uint32_t *one = run_plan(pair.context, pair.device, x + f * n * es, NULL, NULL, n, 1);
        if (one == NULL)
            break;
        if (memcmp(one, batch + f * pair.nbins, pair.nbins * 4) != 0) {
            g_test_message("frame %zu of the batch differs from the frame alone", f);
            g_test_fail();
        }
        g_free(one);
    }
    g_free(batch);
    /* One frame through the batch call, and frames of one element. */
    uint32_t *single = run_plan(pair.context, pair.device, x, NULL, NULL, n, 1);
    if (single != NULL) {
        uint32_t *b1 = g_malloc(pair.nbins * 4);
        g_assert_cmpint(votecl_hist_run_batch(pair.device, x, NULL, NULL, n, 1, b1), ==, VOTECL_OK);
        g_assert_true(memcmp(single, b1, pair.nbins * 4) == 0);
        g_free(b1);
    }
    g_free(single);
    pair_check(&pair, x, NULL, NULL, 1, 13, "13 frames of one element");
    pair_check(&pair, x, NULL, NULL, 17, 1000, "1000 frames of 17 elements");
out:
    pair_clear(&pair);
    g_free(x);
}

/* Image views with stride != width: the padding must be ignored. */
static void
check_image(votecl_variant variant, votecl_dtype dtype, size_t width, size_t height,
            unsigned channels, unsigned channel, size_t stride, const char *what)
{
    size_t es = votecl_dtype_size(dtype);
    size_t row = width * channels * es;
    uint8_t *pixels = g_malloc(stride * height);
    /* Padding bytes hold a value that would land in a bin (0xff bytes: the last bin for
     * integers; a NaN for f32, which would cast no vote anyway, so also checked packed). */
    memset(pixels, 0xff, stride * height);
    uint8_t *packed = random_data(dtype, width * height * channels, 18);
    if (dtype != VOTECL_DTYPE_F32)
        for (size_t i = 0; i < width * height * channels * es; i++)
            packed[i] &= 0x7f; /* keep real pixels out of the top bins */
    for (size_t yy = 0; yy < height; yy++)
        memcpy(pixels + yy * stride, packed + yy * row, row);

    votecl_hist_params p;
    default_params(&p, dtype);
    p.channels = channels;
    p.channel[0] = channel;
    plan_pair pair;
    if (!pair_init(&pair, device(), &p, variant, what))
        goto out;
    votecl_image image = {pixels, width, height, stride, channels, dtype};
    size_t count = (size_t)pair.nbins;
    uint32_t *dev = g_malloc(count * 4);
    uint32_t *ref = g_malloc(count * 4);
    votecl_status s1 = votecl_hist_run_image(pair.device, &image, dev);
    votecl_status s2 = votecl_hist_run_image(pair.ref, &image, ref);
    if (s1 != VOTECL_OK)
        g_test_message("%s: device: %s", what, votecl_context_get_error(pair.context));
    g_assert_cmpint(s1, ==, VOTECL_OK);
    g_assert_cmpint(s2, ==, VOTECL_OK);
    if (s1 == VOTECL_OK && s2 == VOTECL_OK && memcmp(dev, ref, count * 4) != 0) {
        report_difference(&pair, dev, ref, count, what);
        g_test_fail();
    }
    /* The same pixels packed, through votecl_hist_run. */
    uint32_t *flat = run_plan(pair.context, pair.device, packed, NULL, NULL, width * height, 1);
    if (flat != NULL && s1 == VOTECL_OK && memcmp(dev, flat, count * 4) != 0) {
        g_test_message("%s: the image view differs from the packed pixels", what);
        report_difference(&pair, dev, flat, count, what);
        g_test_fail();
    }
    g_free(flat);
    g_free(dev);
    g_free(ref);
out:
    pair_clear(&pair);
    g_free(packed);
    g_free(pixels);
}

static void
case_image(votecl_variant variant, votecl_dtype dtype)
{
    size_t es = votecl_dtype_size(dtype);
    check_image(variant, dtype, 641, 479, 1, 0, 641 * es + 63, "image, stride != width");
    check_image(variant, dtype, 317, 211, 3, 1, 317 * 3 * es + 5 * es, "3-channel image");
    check_image(variant, dtype, 1, 1, 1, 0, 16, "1x1 image");
    check_image(variant, dtype, 3, 1000, 1, 0, 3 * es + 1 * es, "tall narrow image");
    check_image(variant, dtype, 257, 3, 1, 0, 257 * es, "image, stride == width");
}

/* Input, weights and bins in device buffers. */
static votecl_buffer *
buffer_with(votecl_context *context, const void *data, size_t size)
{
    votecl_buffer *buffer = NULL;
    votecl_status status = votecl_buffer_new(context, size, &buffer);
    if (status != VOTECL_OK) {
        g_test_message("buffer of %zu bytes: %s", size, votecl_context_get_error(context));
        g_test_fail();
        return NULL;
    }
    g_assert_cmpuint(votecl_buffer_size(buffer), ==, size);
    if (data != NULL)
        g_assert_cmpint(votecl_buffer_write(buffer, 0, data, size), ==, VOTECL_OK);
    return buffer;
}

static void
check_buffers(const plan_pair *pair, votecl_dtype dtype, const void *x, const void *y,
              const float *w, size_t n, size_t frames, const char *what)
{
    size_t es = votecl_dtype_size(dtype) * pair->params.channels;
    size_t count = (size_t)pair->nbins * frames;
    votecl_context *c = pair->context;
    votecl_buffer *xb = buffer_with(c, x, n * frames * es);
    votecl_buffer *yb = y != NULL ? buffer_with(c, y, n * frames * es) : NULL;
    votecl_buffer *wb = w != NULL ? buffer_with(c, w, n * frames * sizeof(float)) : NULL;
    votecl_buffer *bb = buffer_with(c, NULL, count * 4);
    void *dev = g_malloc(count * 4);
    void *ref = run_plan(tu_ref_context, pair->ref, x, y, w, n, frames);
    if (xb != NULL && bb != NULL && ref != NULL) {
        votecl_status status = votecl_hist_run_buffers(pair->device, xb, yb, wb, n, frames, bb);
        if (status != VOTECL_OK)
            g_test_message("%s: %s", what, votecl_context_get_error(c));
        g_assert_cmpint(status, ==, VOTECL_OK);
        g_assert_cmpint(votecl_buffer_read(bb, 0, dev, count * 4), ==, VOTECL_OK);
        if (status == VOTECL_OK && memcmp(dev, ref, count * 4) != 0) {
            report_difference(pair, dev, ref, count, what);
            g_test_fail();
        }
        /* A second run into the same buffer overwrites, it does not accumulate. */
        status = votecl_hist_run_buffers(pair->device, xb, yb, wb, n, frames, bb);
        g_assert_cmpint(status, ==, VOTECL_OK);
        g_assert_cmpint(votecl_context_finish(c), ==, VOTECL_OK);
        g_assert_cmpint(votecl_buffer_read(bb, 0, dev, count * 4), ==, VOTECL_OK);
        if (status == VOTECL_OK && memcmp(dev, ref, count * 4) != 0) {
            g_test_message("%s: second run into the same bins buffer", what);
            report_difference(pair, dev, ref, count, what);
            g_test_fail();
        }
    }
    g_free(dev);
    g_free(ref);
    votecl_buffer_free(xb);
    votecl_buffer_free(yb);
    votecl_buffer_free(wb);
    votecl_buffer_free(bb);
}

static void
case_buffers(votecl_variant variant, votecl_dtype dtype)
{
    size_t n = 250007;
    void *x = random_data(dtype, 3 * n, 19);
    void *y = random_data(dtype, 3 * n, 20);
    float *w = g_new(float, 3 * n);
    tu_rng rng;
    tu_rng_init(&rng, 21);
    for (size_t i = 0; i < 3 * n; i++)
        w[i] = (float)tu_rng_below(&rng, 4);

    votecl_hist_params p;
    plan_pair pair;
    default_params(&p, dtype);
    if (pair_init(&pair, device(), &p, variant, "buffers")) {
        check_buffers(&pair, dtype, x, NULL, NULL, n, 1, "buffers");
        check_buffers(&pair, dtype, x, NULL, NULL, n, 3, "buffers, 3 frames");
    }
    pair_clear(&pair);

    default_params(&p, dtype);
    p.weighted = 1;
    if (pair_init(&pair, device(), &p, variant, "weighted buffers"))
        check_buffers(&pair, dtype, x, NULL, w, n, 2, "weighted buffers, 2 frames");
    pair_clear(&pair);

    default_params(&p, dtype);
    double lo = p.min[0], hi = p.max[0];
    p.two_arrays = 1;
    votecl_hist_params_set_2d(&p, 30, lo, hi, 30, lo, hi);
    p.two_arrays = 1;
    p.channels = 1;
    p.channel[0] = p.channel[1] = 0;
    if (pair_init(&pair, device(), &p, variant, "2-D buffers"))
        check_buffers(&pair, dtype, x, y, NULL, n, 1, "2-D of two array buffers");
    pair_clear(&pair);
    g_free(w);
    g_free(x);
    g_free(y);
}

/* One plan, many runs with different data, lengths and calls. */
static void
case_reuse(votecl_variant variant, votecl_dtype dtype)
{
    votecl_hist_params p;
    default_params(&p, dtype);
    plan_pair pair;
    if (!pair_init(&pair, device(), &p, variant, "reuse"))
        goto out;
    for (unsigned i = 0; i < 10; i++) {
        size_t n = 1 + (size_t)i * 77777 + (i % 3) * 1024;
        void *x = random_data(dtype, n, 100 + i);
        char what[64];
        snprintf(what, sizeof what, "run %u of one plan (n %zu)", i, n);
        if (i % 4 == 3)
            pair_check(&pair, x, NULL, NULL, n / 2, 2, what);
        else
            pair_check(&pair, x, NULL, NULL, n, 1, what);
        g_free(x);
    }
out:
    pair_clear(&pair);
}

/* The local strategy with S' bounded by params.stretch, down to no stretching at all. */
static void
case_stretch(votecl_variant variant, votecl_dtype dtype)
{
    size_t n = 524309;
    uint8_t *x = g_malloc(n);
    for (size_t i = 0; i < n; i++)
        x[i] = (uint8_t)(i % 4 * 60); /* a few distinct values across neighbours */
    const unsigned bounds[] = {1, 2, 7, 64};
    for (size_t i = 0; i < G_N_ELEMENTS(bounds); i++) {
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
        p.stretch = bounds[i];
        plan_pair pair;
        char what[64];
        snprintf(what, sizeof what, "stretch bound %u", bounds[i]);
        if (pair_init(&pair, device(), &p, variant, what)) {
            votecl_vote_plan_info info;
            g_assert_cmpint(votecl_hist_plan_describe(pair.device, n, 1, &info), ==, VOTECL_OK);
            g_test_message("%s: S' %u", what, info.stretch);
            g_assert_cmpuint(info.stretch, >=, 1);
            g_assert_cmpuint(info.stretch, <=, bounds[i]);
            pair_check(&pair, x, NULL, NULL, n, 1, what);
        }
        pair_clear(&pair);
    }
    g_free(x);
}

/* What votecl_vote_plan_describe reports agrees with the paper's arithmetic. */
static void
case_describe(votecl_variant variant, votecl_dtype dtype)
{
    const uint32_t nbins[] = {1, 32, 256, 4200, 65536, 300000};
    for (size_t i = 0; i < G_N_ELEMENTS(nbins); i++) {
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_U32);
        p.nbins[0] = nbins[i];
        p.variant = variant;
        votecl_hist_plan *plan = plan_new(device(), &p, "describe");
        if (plan == NULL)
            continue;
        votecl_vote_plan_info info;
        g_assert_cmpint(votecl_hist_plan_describe(plan, 1 << 20, 2, &info), ==, VOTECL_OK);
        g_test_message("N %u: %s nmax %u S %u S' %u P %u passes %u copies %u wg %zu", nbins[i],
                       votecl_variant_name(info.variant), info.nmax, info.stretch_s, info.stretch,
                       info.parts, info.passes, info.copies, info.work_group_size);
        g_assert_cmpint(info.variant, ==, variant);
        g_assert_cmpuint(info.nbins, ==, nbins[i]);
        g_assert_cmpuint(info.spaces, ==, 2);
        g_assert_cmpuint(info.work_group_size, >, 0);
        g_assert_cmpuint(info.parts, >=, 1);
        g_assert_cmpuint(info.passes, >=, 1);
        g_assert_cmpuint(info.stretch, >=, 1);
        if (variant == VOTECL_VARIANT_LOCAL && info.nmax == 0) {
            g_test_message("local plan reports nmax 0");
            g_test_fail();
        } else if (variant == VOTECL_VARIANT_LOCAL) {
            unsigned s, sp;
            votecl__stretch_factors(info.nmax, nbins[i], &s, &sp);
            g_assert_cmpuint(info.stretch_s, ==, s);
            g_assert_cmpuint(info.stretch, <=, sp);
            g_assert_cmpuint(info.passes, ==, (nbins[i] + info.nmax - 1) / info.nmax);
        } else {
            g_assert_cmpuint(info.passes, ==, 1);
            g_assert_cmpuint(info.copies, >=, 1);
        }
        votecl_hist_plan_free(plan);
    }
}

/* --- tests that are not per strategy --- */

/* AUTO lets the plan choose; whatever it chooses equals the reference. */
static void
test_auto(void)
{
    char *saved = tu_env_set("VOTECL_FORCE_VARIANT", NULL);
    votecl_context *context = tu_device_context_new(NULL);
    tu_env_restore("VOTECL_FORCE_VARIANT", saved);
    if (context == NULL)
        return;
    const votecl_dtype dtypes[] = {VOTECL_DTYPE_U8, VOTECL_DTYPE_F32};
    for (size_t d = 0; d < G_N_ELEMENTS(dtypes); d++) {
        votecl_hist_params p;
        votecl_hist_params_init(&p, dtypes[d]);
        size_t n = 1000003;
        void *x = random_data(dtypes[d], n, 22);
        plan_pair pair;
        if (pair_init(&pair, context, &p, VOTECL_VARIANT_AUTO, "auto")) {
            votecl_vote_plan_info info;
            votecl_hist_plan_describe(pair.device, n, 1, &info);
            g_test_message("%s: auto chose %s", tu_dtype_name(dtypes[d]),
                           votecl_variant_name(info.variant));
            g_assert_cmpint(info.variant, !=, VOTECL_VARIANT_AUTO);
            pair_check(&pair, x, NULL, NULL, n, 1, "auto");
        }
        pair_clear(&pair);
        g_free(x);
    }
    votecl_context_free(context);
}

/* VOTECL_FORCE_VARIANT, read when a context is made, forces the strategy of AUTO plans;
 * an explicit params.variant still wins. */
static void
test_force_variant_env(void)
{
    const votecl_variant variants[] = {VOTECL_VARIANT_GLOBAL, VOTECL_VARIANT_LOCAL,
                                       VOTECL_VARIANT_PRIVATE};
    for (size_t i = 0; i < G_N_ELEMENTS(variants); i++) {
        const char *name = votecl_variant_name(variants[i]);
        char *saved = tu_env_set("VOTECL_FORCE_VARIANT", name);
        votecl_context *context = tu_device_context_new(NULL);
        tu_env_restore("VOTECL_FORCE_VARIANT", saved);
        if (context == NULL)
            return;
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
        votecl_hist_plan *plan = plan_new(context, &p, "forced by the environment");
        votecl_vote_plan_info info;
        if (plan != NULL) {
            g_assert_cmpint(votecl_hist_plan_describe(plan, 1 << 20, 1, &info), ==, VOTECL_OK);
            g_assert_cmpstr(votecl_variant_name(info.variant), ==, name);
        }
        votecl_hist_plan_free(plan);

        votecl_variant other = variants[(i + 1) % G_N_ELEMENTS(variants)];
        p.variant = other;
        plan = plan_new(context, &p, "explicit variant");
        if (plan != NULL) {
            g_assert_cmpint(votecl_hist_plan_describe(plan, 1 << 20, 1, &info), ==, VOTECL_OK);
            g_assert_cmpstr(votecl_variant_name(info.variant), ==, votecl_variant_name(other));
        }
        votecl_hist_plan_free(plan);
        votecl_context_free(context);
    }
}

/* Data whose 16-byte chunks are partly uniform: runs of equal bytes of random lengths
 * (1-40) and values, so vectors of one bin, vectors straddling two runs and random bytes mix. */
static unsigned char *
runs_data(size_t n, uint64_t seed)
{
    unsigned char *x = g_malloc(n + 1);
    tu_rng rng;
    tu_rng_init(&rng, seed);
    for (size_t i = 0; i < n;) {
        size_t len = 1 + tu_rng_next(&rng) % 40;
        unsigned char v = (unsigned char)(tu_rng_next(&rng) >> 24);
        for (size_t k = 0; k < len && i < n; k++)
            x[i++] = v;
    }
    return x;
}

/* vote_local's refinements (VOTECL_LOCAL_AGG bits: one vote per uniform vector, warp
 * aggregation on NVIDIA; VOTECL_FUSED_MERGE: the merge in the last group;
 * VOTECL_LOCAL_LOADS: loads in flight) in combinations: the bins equal the reference exactly, whatever the data. Warp aggregation is
 * refused with VOTECL_UNSUPPORTED on other devices. */
static void
test_local_refinements(void)
{
    /* VOTECL_LOCAL_AGG, VOTECL_FUSED_MERGE, VOTECL_LOCAL_LOADS */
    static const char *const combos[][3] = {{"0", "0", "0"}, {"0", "1", "0"}, {"1", "1", "0"},
                                            {"0", "1", "1"}, {"0", "1", "4"}, {"1", "0", "3"},
                                            {"2", "1", "0"}, {"3", "0", "2"}};
    const size_t n = 300007, frames = 5, frame = 40000;
    unsigned char *runs = runs_data(n, 41), *random = random_data(VOTECL_DTYPE_U8, n, 42);
    unsigned char *constant = g_malloc(n);
    uint16_t *runs16 = g_malloc(n * 2);
    memset(constant, 0x55, n);
    for (size_t i = 0; i < n; i++)
        runs16[i] = (uint16_t)(runs[i] * 97u + (runs[i] & 1u) * 40000u);
    for (size_t c = 0; c < G_N_ELEMENTS(combos); c++) {
        {
            char *saved_agg = tu_env_set("VOTECL_LOCAL_AGG", combos[c][0]);
            char *saved_fused = tu_env_set("VOTECL_FUSED_MERGE", combos[c][1]);
            char *saved_loads = tu_env_set("VOTECL_LOCAL_LOADS", combos[c][2]);
            votecl_context *context = tu_device_context_new(NULL);
            tu_env_restore("VOTECL_LOCAL_AGG", saved_agg);
            tu_env_restore("VOTECL_FUSED_MERGE", saved_fused);
            tu_env_restore("VOTECL_LOCAL_LOADS", saved_loads);
            if (context == NULL)
                goto out;
            votecl_device_info info;
            votecl_context_get_device_info(context, &info);
            votecl_hist_params p, p16;
            votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
            votecl_hist_params_init(&p16, VOTECL_DTYPE_U16);
            p16.nbins[0] = 4096;
            p.variant = p16.variant = VOTECL_VARIANT_LOCAL;
            /* warp aggregation: refused where the context's shape has no warp match (not an
             * NVIDIA sm_70+, or a profile without it) */
            if (combos[c][0][0] >= '2' && !(context->shape.features & VOTECL__FEATURE_WARP_MATCH)) {
                votecl_hist_plan *plan = (votecl_hist_plan *)NULL;
                g_assert_cmpint(votecl_hist_plan_new(context, &p, &plan), ==, VOTECL_UNSUPPORTED);
                g_assert_null(plan);
                votecl_context_free(context);
                continue;
            }
            char what[64];
            snprintf(what, sizeof what, "agg %s fused %s loads %s", combos[c][0], combos[c][1],
                     combos[c][2]);
            plan_pair pair, pair16;
            if (pair_init(&pair, context, &p, VOTECL_VARIANT_LOCAL, what)) {
                pair_check(&pair, runs, NULL, NULL, n, 1, what);
                pair_check(&pair, random, NULL, NULL, n, 1, what);
                pair_check(&pair, constant, NULL, NULL, n, 1, what);
                pair_check(&pair, runs, NULL, NULL, 17, 1, what); /* one group, no merge */
                pair_check(&pair, runs, NULL, NULL, frame, frames, what);
                pair_check(&pair, runs, NULL, NULL, frame - 3, frames, what); /* no vectors */
            }
            if (pair_init(&pair16, context, &p16, VOTECL_VARIANT_LOCAL, what))
                pair_check(&pair16, runs16, NULL, NULL, n, 1, what);
            pair_clear(&pair);
            pair_clear(&pair16);
            votecl_context_free(context);
        }
    }
out:
    g_free(runs);
    g_free(random);
    g_free(constant);
    g_free(runs16);
}

/* The warm-up compiles nothing on the ref backend and refuses a NULL context. */
static void
test_ref_warmup(void)
{
    g_assert_cmpint(votecl_context_warmup(NULL, 0, NULL, NULL), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_context_warmup(tu_ref_context, VOTECL_WARMUP_ALL, NULL, NULL), ==,
                    VOTECL_OK);
}

/* Counts the build callback's events (votecl_context_set_build_callback). */
typedef struct build_count {
    unsigned started, finished;
    int open; /* a STARTED without its FINISHED */
} build_count;

static void
count_build(votecl_build_event event, const char *what, double seconds, void *user)
{
    build_count *c = user;
    g_assert_nonnull(what);
    g_assert_cmpuint(strlen(what), >, 0);
    if (event == VOTECL_BUILD_STARTED) {
        g_assert_false(c->open);
        g_assert_cmpfloat(seconds, ==, 0.0);
        c->started++;
        c->open = 1;
    } else {
        g_assert_true(c->open);
        g_assert_cmpfloat(seconds, >=, 0.0);
        c->finished++;
        c->open = 0;
    }
}

/* The histogram plans `votecl hist` makes by default: u8 gray, and each channel of RGB. */
static void
default_hist_plans(votecl_context *context)
{
    for (unsigned channels = 1; channels <= 3; channels += 2) {
        for (unsigned k = 0; k < channels; k++) {
            votecl_hist_params p;
            votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
            p.channels = channels;
            p.channel[0] = k;
            votecl_hist_plan *plan = plan_new(context, &p, "default histogram");
            votecl_hist_plan_free(plan);
        }
    }
}

/* The default plans of every module for 1920x1080 images, as the tools make them. */
static void
default_module_plans(votecl_context *context)
{
    default_hist_plans(context);
    votecl_hough_params hp;
    votecl_hough_params_init(&hp);
    votecl_hough_plan *hough = NULL;
    g_assert_cmpint(votecl_hough_plan_new(context, &hp, 1920, 1080, &hough), ==, VOTECL_OK);
    uint8_t *gray = g_malloc0(1920 * 1080);
    votecl_image view = {gray, 1920, 1080, 1920, 1, VOTECL_DTYPE_U8};
    votecl_hough_line found[4];
    size_t nfound = 0;
    g_assert_cmpint(votecl_hough_run_gray(hough, &view, 100, found, 4, &nfound, NULL), ==,
                    VOTECL_OK); /* `votecl hough`'s default path compiles cl/hough.cl */
    g_free(gray);
    votecl_hough_plan_free(hough);
    votecl_lines_params lp;
    votecl_lines_params_init(&lp);
    votecl_lines_plan *lines = NULL;
    g_assert_cmpint(votecl_lines_plan_new(context, &lp, 1920, 1080, &lines), ==, VOTECL_OK);
    votecl_lines_plan_free(lines);
    votecl_hog_params gp;
    votecl_hog_params_init(&gp);
    votecl_hog_model *model = NULL;
    votecl_hog *hog = NULL;
    g_assert_cmpint(votecl_hog_model_people(context, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(context, &gp, model, &hog), ==, VOTECL_OK);
    votecl_hog_free(hog);
    votecl_hog_model_free(model);
}

/* The build callback sees each compilation once, start and end paired, and nothing when
 * the program is cached; after votecl_context_warmup() the default plans of every module
 * (for 1920x1080 images) compile nothing: the warm-up composes the very programs they do. */
static void
test_warmup_cold(void)
{
    votecl_context_options options;
    votecl_context_options_init(&options);
    options.disable_disk_cache = 1; /* every program really is built in this context */
    votecl_context *context = tu_device_context_new(&options);
    build_count count = {0, 0, 0};
    if (context == NULL)
        return;
    g_assert_cmpint(votecl_context_set_build_callback(NULL, count_build, &count), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_context_set_build_callback(context, count_build, &count), ==,
                    VOTECL_OK);
    default_hist_plans(context);
    g_assert_cmpuint(count.started, ==, 4); /* gray, then three channels: one program each */
    g_assert_cmpuint(count.finished, ==, 4);
    default_hist_plans(context);
    g_assert_cmpuint(count.started, ==, 4);

    votecl__program_cache_clear(context); /* so only the warm-up can have built them */
    g_assert_cmpint(votecl_context_warmup(context, 0, NULL, NULL), ==, VOTECL_OK);
    g_test_message("warm-up: %u programs compiled", count.started - 4);
    g_assert_cmpuint(count.started, >, 4);
    count.started = count.finished = 0;
    default_module_plans(context);
    g_assert_cmpuint(count.started, ==, 0);

    g_assert_cmpint(votecl_context_set_build_callback(context, NULL, &count), ==, VOTECL_OK);
    votecl__program_cache_clear(context);
    default_hist_plans(context);
    g_assert_cmpuint(count.started, ==, 0); /* removed: no more calls */
    votecl_context_free(context);
}

/* After votecl_context_warmup() the default plans of every module compose no program the
 * warm-up did not: the context's program cache holds as many afterwards. With the disk cache
 * (warm where other tests or runs compiled them), so make check pays no compilation twice;
 * the slow mode's warmup/cold counts the compilations themselves. */
static void
test_warmup_defaults(void)
{
    votecl_context *context = tu_device_context_new(NULL);
    if (context == NULL)
        return;
    votecl__program_cache_clear(context);
    g_assert_cmpuint(votecl__program_cache_count(context), ==, 0);
    g_assert_cmpint(votecl_context_warmup(context, 0, NULL, NULL), ==, VOTECL_OK);
    size_t warmed = votecl__program_cache_count(context);
    g_test_message("warm-up: %zu programs composed", warmed);
    g_assert_cmpuint(warmed, >, 4); /* more than the histogram's four */
    default_module_plans(context);
    g_assert_cmpuint(votecl__program_cache_count(context), ==, warmed);
    votecl_context_free(context);
}

/* A kernel with a syntax error found first on VOTECL_KERNEL_PATH: the plan fails with
 * VOTECL_BUILD_FAILED and the build log says why. */
static void
test_build_broken(void)
{
    const char *srcdir = g_getenv("VOTECL_TEST_SRCDIR");
    if (srcdir == NULL) {
        g_test_skip("VOTECL_TEST_SRCDIR is not set (run through make check)");
        return;
    }
    const char *kernels = g_getenv("VOTECL_KERNEL_PATH");
    char *broken = g_build_filename(srcdir, "data", "broken", NULL);
    char *path = kernels != NULL ? g_strconcat(broken, ":", kernels, NULL) : g_strdup(broken);
    char *saved = tu_env_set("VOTECL_KERNEL_PATH", path);

    votecl_context_options options;
    votecl_context_options_init(&options);
    options.disable_disk_cache = 1;
    votecl_context *context = tu_device_context_new(&options);
    if (context == NULL)
        goto out;
    g_assert_cmpstr(votecl_context_get_cache_dir(context), ==, "");

    const votecl_variant variants[] = {VOTECL_VARIANT_AUTO, VOTECL_VARIANT_LOCAL,
                                       VOTECL_VARIANT_GLOBAL, VOTECL_VARIANT_PRIVATE};
    for (size_t i = 0; i < G_N_ELEMENTS(variants); i++) {
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
        p.variant = variants[i];
        votecl_hist_plan *plan = (votecl_hist_plan *)NULL;
        votecl_status status = votecl_hist_plan_new(context, &p, &plan);
        g_test_message("%s: %s: %s", votecl_variant_name(variants[i]), votecl_status_string(status),
                       votecl_context_get_error(context));
        g_assert_cmpint(status, ==, VOTECL_BUILD_FAILED);
        const char *log = votecl_context_get_build_log(context);
        g_assert_nonnull(log);
        g_assert_cmpuint(strlen(log), >, 0);
        g_assert_cmpuint(strlen(votecl_context_get_error(context)), >, 0);
        if (i == 0)
            g_test_message("build log:\n%s", log);
        if (status == VOTECL_OK)
            votecl_hist_plan_free(plan);
    }
    votecl_context_free(context);
out:
    tu_env_restore("VOTECL_KERNEL_PATH", saved);
    g_free(path);
    g_free(broken);
}

/* A u8 histogram plan in a context made while VOTECL_DUMP_PROGRAMS is dir; VOTECL_OK or the
 * plan's status. */
static votecl_status
plan_with_dump(const char *dir)
{
    char *saved = tu_env_set("VOTECL_DUMP_PROGRAMS", dir);
    votecl_context *context = tu_device_context_new(NULL);
    votecl_status status = VOTECL_NO_DEVICE;

    tu_env_restore("VOTECL_DUMP_PROGRAMS", saved);
    if (context != NULL) {
        votecl_hist_params p;
        votecl_hist_plan *plan = NULL;
        votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
        status = votecl_hist_plan_new(context, &p, &plan);
        votecl_hist_plan_free(plan);
        votecl_context_free(context);
    }
    return status;
}

/* VOTECL_DUMP_PROGRAMS (docs/env.md) writes what the compiler sees, <key>.cl, beside the
 * build options, <key>.options; a directory that cannot be made, or a relative one, never
 * fails the call. */
static void
test_cache_dump(void)
{
    char *root = tu_mkdtemp();
    char *dump = g_build_filename(root, "dump", NULL);
    char *file = g_build_filename(root, "file", NULL);
    char *impossible = g_build_filename(file, "dump", NULL);
    int programs = 0, histograms = 0;

    if (plan_with_dump(dump) == VOTECL_NO_DEVICE) {
        g_test_skip("no device");
        goto out;
    }
    GDir *dir = g_dir_open(dump, 0, NULL);
    g_assert_nonnull(dir);
    for (const char *name; (name = g_dir_read_name(dir)) != NULL;) {
        if (!g_str_has_suffix(name, ".cl"))
            continue;
        g_assert_cmpuint(strlen(name), ==, 64 + 3);
        char *path = g_build_filename(dump, name, NULL);
        char *options_path = g_strdup_printf("%s/%.64s.options", dump, name);
        char *text = NULL, *options = NULL;
        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        g_assert_true(g_file_get_contents(options_path, &options, NULL, NULL));
        g_assert_true(g_str_has_prefix(text, "#define "));
        g_assert_nonnull(strstr(text, "\n#line 1 \"prelude.h\"\n"));
        g_assert_cmpstr(options, ==, "-cl-std=CL1.2\n");
        histograms += strstr(text, "\n#line 1 \"histogram.cl\"\n") != NULL;
        programs++;
        g_free(text);
        g_free(options);
        g_free(options_path);
        g_free(path);
    }
    g_dir_close(dir);
    g_assert_cmpint(programs, >=, 1);
    g_assert_cmpint(histograms, >=, 1);

    g_assert_true(g_file_set_contents(file, "x", 1, NULL));
    g_assert_cmpint(plan_with_dump(impossible), ==, VOTECL_OK);
    g_assert_false(g_file_test(impossible, G_FILE_TEST_EXISTS));
    g_assert_cmpint(plan_with_dump("relative/dump"), ==, VOTECL_OK);
    g_assert_false(g_file_test("relative", G_FILE_TEST_EXISTS));
out:
    tu_rmtree(root);
    g_free(impossible);
    g_free(file);
    g_free(dump);
    g_free(root);
}

static const char probe_source[] = "__kernel void votecl_test_probe(__global uint *out)\n"
                                   "{\n"
                                   "    out[get_global_id(0)] = 7u;\n"
                                   "}\n";

/* Builds the probe program; returns votecl__program_from_disk or -1 on failure. */
static int
probe_from_disk(votecl_context *context)
{
    static const char *const no_files[] = {NULL};
    static const char *const defines[] = {"VOTECL_TEST_PROBE=1"};
    votecl__program *program = NULL;
    votecl_status status =
        votecl__program_get(context, no_files, defines, 1, probe_source, &program);
    if (status != VOTECL_OK) {
        g_test_message("probe program: %s: %s", votecl_status_string(status),
                       votecl_context_get_error(context));
        g_test_fail();
        return -1;
    }
    return votecl__program_from_disk(program);
}

static int
count_bin_files(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return 0;
    int count = 0;
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL)
        count += g_str_has_suffix(name, ".bin");
    g_dir_close(d);
    return count;
}

static void
corrupt_bin_files(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return;
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        char *file = g_build_filename(dir, name, NULL);
        char *contents;
        gsize length;
        if (g_file_get_contents(file, &contents, &length, NULL) && length > 0) {
            contents[length - 1] ^= 0x5a;
            g_file_set_contents(file, contents, (gssize)length, NULL);
            g_free(contents);
        }
        g_free(file);
    }
    g_dir_close(d);
}

/* A histogram with a context on cache_dir; returns the bins (NULL on failure). */
static uint32_t *
histogram_with_cache(const char *cache_dir, const uint8_t *x, size_t n, int *probe)
{
    votecl_context_options options;
    votecl_context_options_init(&options);
    options.cache_dir = cache_dir;
    votecl_context *context = tu_device_context_new(&options);
    if (context == NULL)
        return NULL;
    *probe = probe_from_disk(context);
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    votecl_hist_plan *plan = plan_new(context, &p, "cached histogram");
    uint32_t *bins = NULL;
    if (plan != NULL)
        bins = run_plan(context, plan, x, NULL, NULL, n, 1);
    votecl_hist_plan_free(plan);
    votecl_context_free(context);
    return bins;
}

/* On PoCL no binary is asked for the disk cache (PoCL's own cache keeps the programs) unless
 * VOTECL_POCL_BINARIES says so; elsewhere binaries are stored. */
static void
test_cache_pocl(void)
{
    char *dir = tu_mkdtemp();
    char *saved = tu_env_set("VOTECL_POCL_BINARIES", NULL);
    votecl_context_options options;
    votecl_context_options_init(&options);
    options.cache_dir = dir;
    votecl_context *context = tu_device_context_new(&options);
    if (context != NULL) {
        votecl_device_info info;
        g_assert_cmpint(votecl_context_get_device_info(context, &info), ==, VOTECL_OK);
        int pocl = info.backend == VOTECL_BACKEND_OPENCL &&
                   strstr(info.platform, "Portable Computing") != NULL;
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
        votecl_hist_plan_free(plan_new(context, &p, "histogram"));
        g_test_message("%s: %d cache entries", info.platform, count_bin_files(dir));
        if (pocl)
            g_assert_cmpint(count_bin_files(dir), ==, 0);
        else
            g_assert_cmpint(count_bin_files(dir), >=, 1);
        votecl_context_free(context);
    }
    tu_env_restore("VOTECL_POCL_BINARIES", saved);
    tu_rmtree(dir);
    g_free(dir);
}

/* Programs built by one context are loaded from disk by the next; a corrupt cache or an
 * unusable cache directory costs a rebuild, never a failure. */
static void
test_cache_disk(void)
{
    char *root = tu_mkdtemp();
    char *cache = g_build_filename(root, "cache", "votecl", NULL);
    size_t n = 1000003;
    uint8_t *x = random_data(VOTECL_DTYPE_U8, n, 23);
    int probe = -1;

    uint32_t *first = histogram_with_cache(cache, x, n, &probe);
    if (first == NULL)
        goto out;
    g_assert_cmpint(probe, ==, 0);
    int files = count_bin_files(cache);
    g_test_message("%d cache entries after the first context", files);
    g_assert_cmpint(files, >=, 2);

    uint32_t *second = histogram_with_cache(cache, x, n, &probe);
    g_assert_cmpint(probe, ==, 1);
    g_assert_cmpint(count_bin_files(cache), ==, files);
    g_assert_true(second != NULL && memcmp(first, second, 256 * 4) == 0);
    g_free(second);

    corrupt_bin_files(cache);
    uint32_t *third = histogram_with_cache(cache, x, n, &probe);
    g_assert_cmpint(probe, ==, 0);
    g_assert_true(third != NULL && memcmp(first, third, 256 * 4) == 0);
    g_free(third);
    /* The rebuild replaced the corrupt entries. */
    uint32_t *fourth = histogram_with_cache(cache, x, n, &probe);
    g_assert_cmpint(probe, ==, 1);
    g_free(fourth);

    /* A cache directory that cannot exist (below a regular file). */
    char *file = g_build_filename(root, "file", NULL);
    g_file_set_contents(file, "x", 1, NULL);
    char *impossible = g_build_filename(file, "cache", NULL);
    uint32_t *fifth = histogram_with_cache(impossible, x, n, &probe);
    g_assert_cmpint(probe, ==, 0);
    g_assert_true(fifth != NULL && memcmp(first, fifth, 256 * 4) == 0);
    g_free(fifth);
    g_free(impossible);
    g_free(file);
    g_free(first);
out:
    g_free(x);
    tu_rmtree(root);
    g_free(cache);
    g_free(root);
}

/* Device buffers that are too small or belong to another context are refused, and the
 * bins are left alone. */
static void
test_buffers_bad(votecl_context *context)
{
    votecl_context *other = tu_device_context_new(NULL);
    if (other == NULL)
        return;
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    votecl_hist_plan *plan = plan_new(context, &p, "bad buffers");
    uint8_t x[1000];
    memset(x, 3, sizeof x);
    uint32_t sentinel[256], got[256];
    memset(sentinel, 0xA5, sizeof sentinel);
    votecl_buffer *xb = buffer_with(context, x, sizeof x);
    votecl_buffer *small = buffer_with(context, x, 100);
    votecl_buffer *bins = buffer_with(context, sentinel, sizeof sentinel);
    votecl_buffer *small_bins = buffer_with(context, sentinel, 255 * 4);
    votecl_buffer *foreign = buffer_with(other, x, sizeof x);
    if (plan == NULL || xb == NULL || small == NULL || bins == NULL || small_bins == NULL ||
        foreign == NULL)
        goto out;

    votecl_status status = votecl_hist_run_buffers(plan, small, NULL, NULL, 1000, 1, bins);
    g_assert_cmpint(status, ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(context), "x"));
    status = votecl_hist_run_buffers(plan, xb, NULL, NULL, 500, 3, bins);
    g_assert_cmpint(status, ==, VOTECL_INVALID_ARGUMENT);
    status = votecl_hist_run_buffers(plan, xb, NULL, NULL, 1000, 1, small_bins);
    g_assert_cmpint(status, ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(context), "bins"));
    status = votecl_hist_run_buffers(plan, xb, NULL, NULL, 1000, 1, NULL);
    g_assert_cmpint(status, ==, VOTECL_INVALID_ARGUMENT);
    status = votecl_hist_run_buffers(plan, foreign, NULL, NULL, 1000, 1, bins);
    g_assert_cmpint(status, ==, VOTECL_INCOMPATIBLE);
    g_assert_cmpint(votecl_context_finish(context), ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_read(bins, 0, got, sizeof got), ==, VOTECL_OK);
    g_assert_true(memcmp(got, sentinel, sizeof got) == 0);

    /* Buffer reads and writes out of range fail without touching anything. */
    g_assert_cmpint(votecl_buffer_write(small, 90, x, 11), !=, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_read(small, 0, got, 101), !=, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_read(small, SIZE_MAX, got, 2), !=, VOTECL_OK);
    votecl_buffer *none = (votecl_buffer *)1;
    g_assert_cmpint(votecl_buffer_new(context, 0, &none), ==, VOTECL_INVALID_ARGUMENT);

    /* And the good call still works. */
    status = votecl_hist_run_buffers(plan, xb, NULL, NULL, 1000, 1, bins);
    g_assert_cmpint(status, ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_read(bins, 0, got, sizeof got), ==, VOTECL_OK);
    g_assert_cmpuint(got[3], ==, 1000);
    g_assert_cmpuint(got[4], ==, 0);
out:
    votecl_buffer_free(xb);
    votecl_buffer_free(small);
    votecl_buffer_free(bins);
    votecl_buffer_free(small_bins);
    votecl_buffer_free(foreign);
    votecl_hist_plan_free(plan);
    votecl_context_free(other);
}

/* Device selection: the default device's own platform name selects it; a name that
 * matches nothing is VOTECL_NO_DEVICE with a message. */
static void
test_device_select(votecl_context *context)
{
    votecl_device_info info;
    g_assert_cmpint(votecl_context_get_device_info(context, &info), ==, VOTECL_OK);

    votecl_context_options options;
    votecl_context_options_init(&options);
    options.backend = tu_device_backend();
    char *selector = g_strdup_printf("%s::%s", info.platform, info.name);
    options.device = selector;
    votecl_context *chosen = NULL;
    char error[1024] = "";
    votecl_status status = votecl_context_new_with_error(&options, &chosen, error, sizeof error);
    if (status != VOTECL_OK)
        g_test_message("%s: %s", selector, error);
    g_assert_cmpint(status, ==, VOTECL_OK);
    if (chosen != NULL) {
        votecl_device_info again;
        votecl_context_get_device_info(chosen, &again);
        g_assert_cmpstr(again.name, ==, info.name);
        votecl_context_free(chosen);
    }
    g_free(selector);

    options.device = "no-such-platform-votecl:GPU:no-such-device";
    chosen = (votecl_context *)1;
    error[0] = '\0';
    status = votecl_context_new_with_error(&options, &chosen, error, sizeof error);
    g_assert_cmpint(status, ==, VOTECL_NO_DEVICE);
    g_assert_null(chosen);
    g_assert_cmpuint(strlen(error), >, 0);

    char *saved = tu_env_set("VOTECL_DEVICE", "no-such-platform-votecl::");
    options.device = NULL;
    status = votecl_context_new(&options, &chosen);
    tu_env_restore("VOTECL_DEVICE", saved);
    g_assert_cmpint(status, ==, VOTECL_NO_DEVICE);
}

static void
test_device_info(void)
{
    votecl_context *context = device();
    if (context == NULL)
        return;
    votecl_device_info info;
    g_assert_cmpint(votecl_context_get_device_info(context, &info), ==, VOTECL_OK);
    g_test_message("%s (%s, %s): %u CUs, %" G_GUINT64_FORMAT " bytes local, wg %zu", info.name,
                   info.vendor, info.platform, info.compute_units, info.local_mem_bytes,
                   info.max_work_group_size);
    g_assert_cmpint(info.backend, ==, tu_device_backend());
    g_assert_cmpuint(strlen(info.name), >, 0);
    g_assert_cmpuint(info.compute_units, >, 0);
    g_assert_cmpuint(info.local_mem_bytes, >, 0);
    g_assert_cmpuint(info.max_work_group_size, >, 0);
    g_assert_cmpuint(info.preferred_work_group_multiple, >, 0);
    g_assert_cmpint(votecl_context_get_backend(context), ==, tu_device_backend());
    size_t found = 0;
    g_assert_cmpint(votecl_devices_list(tu_device_backend(), NULL, 0, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, >=, 1);
}

/* --- the reference against analytic truth --- */

static uint32_t *
ref_run(const votecl_hist_params *p, const void *x, const void *y, const float *w, size_t n,
        size_t frames)
{
    votecl_hist_plan *plan = plan_new(tu_ref_context, p, "reference");
    if (plan == NULL)
        return NULL;
    uint32_t *bins = run_plan(tu_ref_context, plan, x, y, w, n, frames);
    votecl_hist_plan_free(plan);
    return bins;
}

static void
expect_bins(const uint32_t *got, const uint32_t *want, size_t count, const char *what)
{
    if (got == NULL)
        return;
    size_t first = tu_first_difference(got, want, count, 4);
    if (first != (size_t)-1) {
        g_test_message("%s: bin %zu is %u, want %u", what, first, got[first], want[first]);
        g_test_fail();
    }
}

/* u8 values i % 256 over 256 * k elements: k in every bin. */
static void
test_ref_u8_modulo(void)
{
    const size_t k = 1001;
    uint8_t *x = g_malloc(256 * k);
    for (size_t i = 0; i < 256 * k; i++)
        x[i] = (uint8_t)(i % 256);
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    g_assert_cmpuint(p.nbins[0], ==, 256);
    g_assert_cmpfloat(p.min[0], ==, 0);
    g_assert_cmpfloat(p.max[0], ==, 256);
    uint32_t want[256];
    for (size_t b = 0; b < 256; b++)
        want[b] = (uint32_t)k;
    uint32_t *got = ref_run(&p, x, NULL, NULL, 256 * k, 1);
    expect_bins(got, want, 256, "i % 256");
    g_free(got);
    g_free(x);
}

/* u8 with 10 bins over [0, 256): bin = v * 10 / 256 in integers. */
static void
test_ref_u8_ten_bins(void)
{
    size_t n = 100003;
    uint8_t *x = random_data(VOTECL_DTYPE_U8, n, 24);
    uint32_t want[10] = {0};
    for (size_t i = 0; i < n; i++)
        want[x[i] * 10u / 256u]++;
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.nbins[0] = 10;
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want, 10, "u8, 10 bins");
    g_free(got);

    /* Range [10, 20) with 3 bins: 10-13 -> 0, 14-16 -> 1, 17-19 -> 2, the rest nowhere. */
    uint32_t want3[3] = {0};
    for (size_t i = 0; i < n; i++)
        if (x[i] >= 10 && x[i] < 20)
            want3[(x[i] - 10u) * 3u / 10u]++;
    p.nbins[0] = 3;
    p.min[0] = 10;
    p.max[0] = 20;
    got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want3, 3, "u8, 3 bins over [10, 20)");
    g_free(got);
    g_free(x);
}

/* Integer ranges may reach past the type: [3, 1000) with 7 bins. */
static void
test_ref_u8_wide_range(void)
{
    size_t n = 100003;
    uint8_t *x = random_data(VOTECL_DTYPE_U8, n, 33);
    uint32_t want[7] = {0};
    for (size_t i = 0; i < n; i++)
        if (x[i] >= 3)
            want[(x[i] - 3u) * 7u / 997u]++;
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.nbins[0] = 7;
    p.min[0] = 3;
    p.max[0] = 1000;
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want, 7, "u8, 7 bins over [3, 1000)");
    g_free(got);
    g_free(x);
}

static void
test_ref_u16_range(void)
{
    size_t n = 200003;
    uint16_t *x = random_data(VOTECL_DTYPE_U16, n, 25);
    uint32_t *want = g_new0(uint32_t, 1000);
    for (size_t i = 0; i < n; i++)
        if (x[i] >= 100 && x[i] < 60000)
            want[(uint64_t)(x[i] - 100) * 1000 / 59900]++;
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U16);
    g_assert_cmpuint(p.nbins[0], ==, 65536);
    p.nbins[0] = 1000;
    p.min[0] = 100;
    p.max[0] = 60000;
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want, 1000, "u16, 1000 bins over [100, 60000)");
    g_free(got);
    g_free(want);
    g_free(x);
}

static void
test_ref_u32(void)
{
    size_t n = 200003;
    uint32_t *x = random_data(VOTECL_DTYPE_U32, n, 26);
    x[0] = 0;
    x[1] = UINT32_MAX;
    uint32_t want[256] = {0};
    for (size_t i = 0; i < n; i++)
        want[x[i] >> 24]++;
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U32);
    g_assert_cmpfloat(p.max[0], ==, 4294967296.0);
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want, 256, "u32 defaults: v >> 24");
    g_free(got);

    uint32_t *want2 = g_new0(uint32_t, 4099);
    for (size_t i = 0; i < n; i++)
        if (x[i] >= 1000 && x[i] < 4000000000u)
            want2[(uint64_t)(x[i] - 1000) * 4099 / (4000000000u - 1000)]++;
    p.nbins[0] = 4099;
    p.min[0] = 1000;
    p.max[0] = 4000000000.0;
    got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want2, 4099, "u32, 4099 bins");
    g_free(got);
    g_free(want2);
    g_free(x);
}

/* f32 semantics (votecl-vote.h): bin = (v - min) * scale in single precision with
 * scale = (float)(nbins / (max - min)), clamped to the last bin. A value exactly on a bin
 * edge lands in the upper bin; -0.0 equals min 0 and lands in bin 0; v == max, v > max,
 * v < min, NaN and +/-inf cast no vote at all; the largest float below max lands in the
 * last bin even where rounding makes (v - min) * scale reach nbins. */
static void
test_ref_f32_edges(void)
{
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    g_assert_cmpfloat(p.min[0], ==, 0);
    g_assert_cmpfloat(p.max[0], ==, 1);
    g_assert_cmpuint(p.nbins[0], ==, 256);

    float x[256 + 16];
    uint32_t want[256] = {0};
    size_t n = 0;
    for (unsigned k = 0; k < 256; k++) {
        x[n++] = (float)k / 256.0f; /* exactly the lower edge of bin k */
        want[k]++;
    }
    x[n++] = -0.0f;
    want[0]++;
    x[n++] = nextafterf(1.0f, 0.0f);
    want[255]++;
    x[n++] = nextafterf(0.5f, 0.0f); /* just below an edge: the lower bin */
    want[127]++;
    x[n++] = 1.0f;
    x[n++] = 2.0f;
    x[n++] = -1e-30f;
    x[n++] = nextafterf(0.0f, -1.0f);
    x[n++] = NAN;
    x[n++] = -NAN;
    x[n++] = INFINITY;
    x[n++] = -INFINITY;
    x[n++] = FLT_MAX;
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want, 256, "f32 edges over [0, 1)");
    g_free(got);

    /* [-1, 1) with 8 bins: scale 4, edges at multiples of 0.25. */
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.nbins[0] = 8;
    p.min[0] = -1;
    p.max[0] = 1;
    float y[] = {-1.0f, -0.75f, -0.5f, -0.25f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f, -1.0000001f};
    uint32_t want8[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    got = ref_run(&p, y, NULL, NULL, G_N_ELEMENTS(y), 1);
    expect_bins(got, want8, 8, "f32 edges over [-1, 1)");
    g_free(got);

    /* The clamp: ranges where the largest float below max rounds up to nbins. */
    const double maxes[] = {0.3, 0.7, 1.1, 2.9, 3.3};
    const uint32_t counts[] = {7, 100, 255, 1000};
    int clamped = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(maxes); i++) {
        for (size_t j = 0; j < G_N_ELEMENTS(counts); j++) {
            float v = nextafterf((float)maxes[i], 0.0f);
            while ((double)v >= maxes[i])
                v = nextafterf(v, 0.0f);
            float scale = (float)(counts[j] / maxes[i]);
            volatile float t = v * scale;
            clamped += t >= (float)counts[j];
            votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
            p.nbins[0] = counts[j];
            p.max[0] = maxes[i];
            float in[2] = {v, v};
            got = ref_run(&p, in, NULL, NULL, 2, 1);
            if (got != NULL) {
                uint32_t last = got[counts[j] - 1];
                uint64_t total = 0;
                for (uint32_t b = 0; b < counts[j]; b++)
                    total += got[b];
                if (last != 2 || total != 2)
                    g_test_message("max %g nbins %u: v %.9g: last bin %u total %" G_GUINT64_FORMAT,
                                   maxes[i], counts[j], v, last, total);
                g_assert_cmpuint(last, ==, 2);
            }
            g_free(got);
        }
    }
    g_assert_cmpint(clamped, >, 0);
}

/* The bin OpenCV's calcHist accuracy test expects (cvTsCalcHist in
 * modules/imgproc/test/test_histograms.cpp): double precision, (v - lo) * n / (hi - lo);
 * 0xffffffff when v casts no vote. Written here apart from lib/histogram-ref.c. */
static uint32_t
calchist_bin(float v, double lo, double hi, uint32_t n)
{
    double v0 = v;
    if (v0 < lo || v0 >= hi || isnan(v0))
        return 0xffffffffu;
    double idx = floor((v0 - lo) * n / (hi - lo));
    return idx < 0 ? 0 : idx >= n ? n - 1 : (uint32_t)idx;
}

/* Counts of x's values by calchist_bin. */
static uint32_t *
calchist_counts(const float *x, size_t count, double lo, double hi, uint32_t n)
{
    uint32_t *want = g_new0(uint32_t, n);
    for (size_t i = 0; i < count; i++) {
        uint32_t b = calchist_bin(x[i], lo, hi, n);
        if (b != 0xffffffffu)
            want[b]++;
    }
    return want;
}

/* A range wider than FLT_MAX (issue 23: v - min overflowed in single precision and 0.0 and
 * 1e38 went into the wrong bins): binned by the rule, in double precision. A width that
 * overflows double precision is refused, naming min and max. */
static void
test_ref_f32_huge_range(void)
{
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.nbins[0] = 4;
    p.min[0] = -3.4e38;
    p.max[0] = 3.4e38;
    const float x[] = {0.0f, 1e38f, -1e38f, 3.3e38f, -3.39e38f, 3e38f, FLT_MAX, -FLT_MAX};
    const uint32_t want[4] = {1, 1, 2, 2}; /* 0.0 and 1e38 in bin 2 */
    uint32_t *got = ref_run(&p, x, NULL, NULL, G_N_ELEMENTS(x), 1);
    expect_bins(got, want, 4, "f32 over (-3.4e38, 3.4e38), 4 bins");
    g_free(got);
    for (size_t i = 0; i < G_N_ELEMENTS(x); i++)
        g_assert_cmpuint(calchist_bin(x[i], p.min[0], p.max[0], 4), ==,
                         i < 2    ? 2
                         : i == 2 ? 1
                         : i == 3 ? 3
                         : i == 4 ? 0
                         : i == 5 ? 3
                                  : ~0u);

    p.min[0] = -1e308;
    p.max[0] = 1e308;
    votecl_hist_plan *plan = NULL;
    g_assert_cmpint(votecl_hist_plan_new(tu_ref_context, &p, &plan), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_null(plan);
    const char *message = votecl_context_get_error(tu_ref_context);
    g_assert_true(tu_message_names(message, "min[0]") && tu_message_names(message, "max[0]"));
}

/* Random f32 data against the documented double-precision rule, computed here; 0.7 and
 * 0.1 are no floats, so values lie between an edge and its float rounding. */
static void
test_ref_f32_formula(void)
{
    size_t n = 300007;
    float *x = random_data(VOTECL_DTYPE_F32, n, 27);
    add_special_floats(x, n, 28);
    const double ranges[][2] = {{0, 1}, {-0.125, 1.1}, {0.1, 0.3}, {0.1, 0.7}};
    const uint32_t counts[] = {256, 1000, 33, 100};
    for (size_t r = 0; r < G_N_ELEMENTS(ranges); r++) {
        double lo = ranges[r][0], hi = ranges[r][1];
        uint32_t nb = counts[r];
        uint32_t *want = calchist_counts(x, n, lo, hi, nb);
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
        p.nbins[0] = nb;
        p.min[0] = lo;
        p.max[0] = hi;
        uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
        expect_bins(got, want, nb, "f32 formula");
        g_free(got);
        g_free(want);
    }
    g_free(x);
}

/* OpenCV's calcHist accuracy test (modules/imgproc/test/test_histograms.cpp,
 * CV_CalcHistTest): the bins equal its double-precision reference, which cv2.calcHist meets
 * (issue 23: 4 and 5 values of 256085 and 691119 bins over [-1000, 1000) were one bin off). */
static void
test_ref_f32_calchist(void)
{
    for (size_t r = 0; r < G_N_ELEMENTS(calchist_ranges); r++) {
        const f32_range *range = &calchist_ranges[r];
        size_t n;
        float *x = calchist_data(range, 60 + r, &n);
        uint32_t *want = calchist_counts(x, n, range->lo, range->hi, range->nbins);
        votecl_hist_params p;
        votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
        p.nbins[0] = range->nbins;
        p.min[0] = range->lo;
        p.max[0] = range->hi;
        uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
        char what[96];
        snprintf(what, sizeof what, "calcHist case [%g, %g), %u bins", range->lo, range->hi,
                 range->nbins);
        expect_bins(got, want, range->nbins, what);
        g_free(got);
        g_free(want);
        g_free(x);
    }
}

/* NumPy's float32 edges of a non-dyadic range (issue 23: values exactly on them landed one
 * bin low in 18 of 100 bins): with VOTECL_HIST_EDGES_NUMPY edge k falls in bin k, the last
 * edge in the last bin (closed, as np.histogram's), the float below each edge one bin lower;
 * with the default calcHist rule, an edge NumPy rounded below the real edge falls one bin
 * lower, and no other. */
static void
test_ref_f32_numpy_edges(void)
{
    const f32_range range = {0.1, 0.7, 100};
    float x[2 * 101 + 1];
    uint32_t want[100] = {0};
    size_t n = 0;
    for (uint32_t k = 0; k <= 100; k++) {
        x[n++] = numpy_edge_f32(&range, k);
        want[k < 100 ? k : 99]++;
        x[n++] = nextafterf(numpy_edge_f32(&range, k), -INFINITY);
        if (k > 0)
            want[k - 1]++;
    }
    x[n++] = nextafterf(numpy_edge_f32(&range, 100), INFINITY); /* above the closed end */
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.nbins[0] = 100;
    p.min[0] = 0.1;
    p.max[0] = 0.7;
    p.edges = VOTECL_HIST_EDGES_NUMPY;
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want, 100, "NumPy's edges of (0.1, 0.7), 100 bins");
    g_free(got);

    p.edges = VOTECL_HIST_EDGES_EXACT;
    unsigned low = 0;
    for (uint32_t k = 0; k < 100; k++) {
        float e = numpy_edge_f32(&range, k);
        uint32_t b = calchist_bin(e, 0.1, 0.7, 100);
        /* below the real edge 0.1 + k * 0.006 exactly when calcHist puts it lower */
        int below =
            (long double)e < (long double)0.1 + k * ((long double)0.7 - (long double)0.1) / 100;
        g_assert_cmpuint(b, ==, below ? k - 1 : k);
        low += below;
    }
    g_test_message("calcHist's rule puts %u of NumPy's 100 edges one bin lower", low);
    uint32_t *exact = calchist_counts(x, n, 0.1, 0.7, 100);
    got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, exact, 100, "calcHist's rule on NumPy's edges");
    g_free(got);
    g_free(exact);

    p.dtype = VOTECL_DTYPE_U8;
    p.edges = VOTECL_HIST_EDGES_NUMPY;
    votecl_hist_plan *plan = NULL;
    g_assert_cmpint(votecl_hist_plan_new(tu_ref_context, &p, &plan), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "edges"));
}

static void
test_ref_empty(void)
{
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    uint32_t want[256] = {0};
    uint32_t *got = ref_run(&p, NULL, NULL, NULL, 0, 1);
    expect_bins(got, want, 256, "empty");
    g_free(got);
}

static void
test_ref_2d(void)
{
    size_t n = 100003;
    uint8_t *x = random_data(VOTECL_DTYPE_U8, 3 * n, 29);
    /* Three channels, dimension 0 from channel 2 with 16 bins, dimension 1 from channel 0
     * with 4 bins over [64, 192). */
    uint32_t want[16 * 4] = {0};
    for (size_t i = 0; i < n; i++) {
        unsigned a = x[3 * i + 2], b = x[3 * i + 0];
        if (b >= 64 && b < 192)
            want[(a * 16u / 256u) * 4 + (b - 64u) * 4u / 128u]++;
    }
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    votecl_hist_params_set_2d(&p, 16, 0, 256, 4, 64, 192);
    p.two_arrays = 0;
    p.channels = 3;
    p.channel[0] = 2;
    p.channel[1] = 0;
    g_assert_cmpuint(p.dims, ==, 2);
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want, 64, "2-D of channels 2 and 0");
    g_free(got);

    /* Two arrays, 256 x 256: bin = a * 256 + b. */
    uint32_t *want2 = g_new0(uint32_t, 65536);
    for (size_t i = 0; i < n; i++)
        want2[x[i] * 256u + x[n + i]]++;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.two_arrays = 1;
    votecl_hist_params_set_2d(&p, 256, 0, 256, 256, 0, 256);
    p.two_arrays = 1;
    p.channels = 1;
    p.channel[0] = p.channel[1] = 0;
    got = ref_run(&p, x, x + n, NULL, n, 1);
    expect_bins(got, want2, 65536, "2-D of two arrays");
    g_free(got);
    g_free(want2);
    g_free(x);
}

static void
test_ref_weighted(void)
{
    size_t n = 100003;
    uint8_t *x = random_data(VOTECL_DTYPE_U8, n, 30);
    float *w = g_new(float, n);
    double want[256] = {0};
    tu_rng rng;
    tu_rng_init(&rng, 31);
    for (size_t i = 0; i < n; i++) {
        w[i] = (float)((int)tu_rng_below(&rng, 9) - 3);
        want[x[i]] += w[i];
    }
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.weighted = 1;
    float *got = (float *)ref_run(&p, x, NULL, w, n, 1);
    for (size_t b = 0; got != NULL && b < 256; b++)
        g_assert_cmpfloat(got[b], ==, (float)want[b]);
    g_free(got);
    g_free(w);
    g_free(x);
}

static void
test_ref_batch(void)
{
    const size_t n = 1001, frames = 5;
    uint8_t *x = random_data(VOTECL_DTYPE_U8, n * frames, 32);
    uint32_t *want = g_new0(uint32_t, 256 * frames);
    for (size_t f = 0; f < frames; f++)
        for (size_t i = 0; i < n; i++)
            want[f * 256 + x[f * n + i]]++;
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, frames);
    expect_bins(got, want, 256 * frames, "batch");
    g_free(got);
    g_free(want);
    g_free(x);
}

static void
test_ref_image(void)
{
    const size_t width = 37, height = 23, stride = 50;
    uint8_t *pixels = g_malloc(stride * height);
    memset(pixels, 200, stride * height); /* the padding */
    uint32_t want[256] = {0};
    for (size_t yy = 0; yy < height; yy++)
        for (size_t xx = 0; xx < width; xx++) {
            uint8_t v = (uint8_t)((xx * 7 + yy * 3) % 100);
            pixels[yy * stride + xx] = v;
            want[v]++;
        }
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    votecl_hist_plan *plan = plan_new(tu_ref_context, &p, "image");
    if (plan != NULL) {
        uint32_t got[256];
        votecl_image image = {pixels, width, height, stride, 1, VOTECL_DTYPE_U8};
        g_assert_cmpint(votecl_hist_run_image(plan, &image, got), ==, VOTECL_OK);
        expect_bins(got, want, 256, "image with stride 50");
    }
    votecl_hist_plan_free(plan);
    g_free(pixels);
}

/* --- N-D, uneven, masked and per-channel histograms (issue 26) --- */

/* Runs plan (masked or not) into new bins; NULL (test failed) on failure. */
static void *
run_masked(votecl_context *context, votecl_hist_plan *plan, const void *x, const void *y,
           const float *w, const uint8_t *mask, size_t n, size_t frames)
{
    if (mask == NULL)
        return run_plan(context, plan, x, y, w, n, frames);
    size_t count = (size_t)votecl_hist_plan_nbins(plan) * frames;
    void *bins = g_malloc(count * 4 + 4);
    memset(bins, 0xA5, count * 4 + 4);
    votecl_status status = votecl_hist_run_masked(plan, x, y, w, mask, n, frames, bins);
    if (!tu_check_ok(context, status, "masked run of %zu x %zu", n, frames)) {
        g_free(bins);
        return NULL;
    }
    return bins;
}

/* Device (forced variant) against reference, bit for bit, with an optional mask. */
static void
check_nd(votecl_variant variant, const votecl_hist_params *p, const void *x, const void *y,
         const float *w, const uint8_t *mask, size_t n, size_t frames, const char *what)
{
    plan_pair pair;
    if (pair_init(&pair, device(), p, variant, what)) {
        void *dev = run_masked(pair.context, pair.device, x, y, w, mask, n, frames);
        void *ref = run_masked(tu_ref_context, pair.ref, x, y, w, mask, n, frames);
        size_t count = (size_t)pair.nbins * frames;
        if (dev != NULL && ref != NULL && memcmp(dev, ref, count * 4) != 0) {
            report_difference(&pair, dev, ref, count, what);
            g_test_fail();
        }
        g_free(dev);
        g_free(ref);
    }
    pair_clear(&pair);
}

static uint8_t *
random_mask(size_t n, uint64_t seed)
{
    tu_rng rng;
    uint8_t *m = g_malloc(n + 1);
    tu_rng_init(&rng, seed);
    for (size_t i = 0; i < n; i++)
        m[i] = tu_rng_below(&rng, 3) == 0 ? 0 : (uint8_t)(1 + tu_rng_below(&rng, 255));
    return m;
}

/* dims dimensions over as many interleaved channels, nb[d] bins each. */
static void
nd_params(votecl_hist_params *p, votecl_dtype dtype, unsigned dims, const uint32_t *nb)
{
    default_params(p, dtype);
    p->channels = p->dims = dims;
    for (unsigned d = 0; d < dims; d++) {
        p->channel[d] = dims - 1 - d; /* any order */
        p->nbins[d] = nb[d];
        if (dtype == VOTECL_DTYPE_F32)
            p->min[d] = 0.0, p->max[d] = 1.0;
        else if (dtype == VOTECL_DTYPE_U32)
            p->min[d] = 0.0, p->max[d] = 4294967296.0;
        else
            p->min[d] = 7.0, p->max[d] = 250.0;
    }
}

/* 3-D (16 x 16 x 16 colour), 4-D and 8-D histograms, and masked, weighted and batched. */
static void
case_nd(votecl_variant variant, votecl_dtype dtype)
{
    static const uint32_t nb3[] = {16, 16, 16}, nb4[] = {3, 5, 7, 2},
                          nb8[] = {2, 3, 2, 3, 2, 3, 2, 5};
    size_t n = 20011;
    void *x = random_data(dtype, n * 8, 61);
    uint8_t *mask = random_mask(n * 2, 62);
    float *w = g_new(float, n * 2);
    votecl_hist_params p;
    for (size_t i = 0; i < n * 2; i++)
        w[i] = (float)(i % 5);
    nd_params(&p, dtype, 3, nb3);
    check_nd(variant, &p, x, NULL, NULL, NULL, n, 1, "3-D");
    /* u8: frames of whole 16-pixel vectors (cl/histogram.cl's HIST_PIXVEC), then frames whose
     * second does not start at a vector */
    check_nd(variant, &p, x, NULL, NULL, NULL, 10000, 2, "3-D, 2 frames of whole vectors");
    check_nd(variant, &p, x, NULL, NULL, NULL, 10005, 2, "3-D, 2 frames, the second unaligned");
    p.masked = 1;
    check_nd(variant, &p, x, NULL, NULL, mask, n / 2, 2, "3-D masked, 2 frames");
    nd_params(&p, dtype, 4, nb4);
    p.weighted = 1; /* integer weights: exact sums */
    check_nd(variant, &p, x, NULL, w, NULL, n, 1, "4-D weighted");
    nd_params(&p, dtype, 8, nb8);
    check_nd(variant, &p, x, NULL, NULL, NULL, n, 1, "8-D");
    g_free(x);
    g_free(mask);
    g_free(w);
}

/* Edges that fall between, on and beyond the data's values. */
static const double uneven_f32[] = {-0.2, 0.0, 1e-7, 0.1, 0.10000000149011612, 0.5, 0.75, 1.0};
static const double uneven_int[] = {-3.5, 0.0, 1.0, 2.5, 3.0, 100.0, 200.5, 255.0};

static void
uneven_params(votecl_hist_params *p, votecl_dtype dtype, unsigned dims)
{
    default_params(p, dtype);
    p->channels = p->dims = dims;
    for (unsigned d = 0; d < dims; d++) {
        p->channel[d] = d;
        p->nbins[d] = 7 - d;
        p->bin_edges[d] = (dtype == VOTECL_DTYPE_F32 ? uneven_f32 : uneven_int) + d;
    }
}

/* Uneven bins, both edge rules, beside even ones, with special floats. */
static void
case_uneven(votecl_variant variant, votecl_dtype dtype)
{
    size_t n = 30011;
    void *x = random_data(dtype, n * 3, 71);
    votecl_hist_params p;
    if (dtype == VOTECL_DTYPE_F32)
        add_special_floats(x, n * 3, 72);
    for (int numpy = 0; numpy <= 1; numpy++) {
        uneven_params(&p, dtype, 1);
        p.edges = numpy ? VOTECL_HIST_EDGES_NUMPY : VOTECL_HIST_EDGES_EXACT;
        check_nd(variant, &p, x, NULL, NULL, NULL, n * 3, 1, numpy ? "1-D numpy" : "1-D");
        uneven_params(&p, dtype, 3);
        p.edges = numpy ? VOTECL_HIST_EDGES_NUMPY : VOTECL_HIST_EDGES_EXACT;
        p.bin_edges[1] = NULL; /* an even dimension between uneven ones */
        p.nbins[1] = 5;
        p.min[1] = dtype == VOTECL_DTYPE_F32 ? 0.25 : 10.0;
        p.max[1] = dtype == VOTECL_DTYPE_F32 ? 0.75 : 60.0;
        if (numpy && dtype != VOTECL_DTYPE_F32)
            p.edges = VOTECL_HIST_EDGES_EXACT; /* NumPy's even f32 edges are for f32 only */
        check_nd(variant, &p, x, NULL, NULL, NULL, n, 1, numpy ? "3-D numpy" : "3-D");
    }
    g_free(x);
}

/* Masks through every path: 1-D (no vector loads), 2-D of two arrays (the mask in the
 * weights' slot), weighted, device buffers; an all-zero mask gives zeros. */
static void
case_masked(votecl_variant variant, votecl_dtype dtype)
{
    size_t n = 40009;
    void *x = random_data(dtype, n, 81), *y = random_data(dtype, n, 82);
    uint8_t *mask = random_mask(n, 83), *zeros = g_malloc0(n);
    float *w = g_new(float, n);
    votecl_hist_params p;
    for (size_t i = 0; i < n; i++)
        w[i] = (float)(i % 3);
    default_params(&p, dtype);
    p.masked = 1;
    check_nd(variant, &p, x, NULL, NULL, mask, n, 1, "1-D masked");
    p.weighted = 1;
    check_nd(variant, &p, x, NULL, w, mask, n, 1, "1-D masked, weighted");
    p.weighted = 0;
    p.two_arrays = 1;
    votecl_hist_params_set_2d(&p, 9, p.min[0], p.max[0], 11, p.min[0], p.max[0]);
    check_nd(variant, &p, x, y, NULL, mask, n, 1, "2-D of two arrays, masked");
    default_params(&p, dtype);
    p.masked = 1;
    votecl_hist_plan *plan = plan_new(device(), &p, "all-zero mask");
    uint32_t *bins = plan != NULL ? run_masked(device(), plan, x, NULL, NULL, zeros, n, 1) : NULL;
    if (bins != NULL)
        g_assert_true(all_zero(bins, votecl_hist_plan_nbins(plan)));
    g_free(bins);
    votecl_hist_plan_free(plan);
    g_free(x);
    g_free(y);
    g_free(mask);
    g_free(zeros);
    g_free(w);
}

/* The masked buffer call equals the host call. */
static void
case_masked_buffers(votecl_variant variant, votecl_dtype dtype)
{
    size_t n = 5003, bytes = n * votecl_dtype_size(dtype);
    void *x = random_data(dtype, n, 91);
    uint8_t *mask = random_mask(n, 92);
    votecl_hist_params p;
    plan_pair pair;
    default_params(&p, dtype);
    p.masked = 1;
    if (pair_init(&pair, device(), &p, variant, "masked buffers")) {
        votecl_buffer *bx = buffer_with(pair.context, x, bytes);
        votecl_buffer *bm = buffer_with(pair.context, mask, n);
        votecl_buffer *bo = NULL;
        size_t out = (size_t)pair.nbins * 4;
        uint32_t *got = g_malloc(out),
                 *want = run_masked(tu_ref_context, pair.ref, x, NULL, NULL, mask, n, 1);
        g_assert_cmpint(votecl_buffer_new(pair.context, out, &bo), ==, VOTECL_OK);
        g_assert_cmpint(votecl_hist_run_masked_buffers(pair.device, bx, NULL, NULL, bm, n, 1, bo),
                        ==, VOTECL_OK);
        g_assert_cmpint(votecl_buffer_read(bo, 0, got, out), ==, VOTECL_OK);
        expect_bins(got, want, pair.nbins, "masked buffers");
        tu_expect_invalid(pair.context,
                          votecl_hist_run_buffers(pair.device, bx, NULL, NULL, n, 1, bo), "mask");
        votecl_buffer_free(bx);
        votecl_buffer_free(bm);
        votecl_buffer_free(bo);
        g_free(got);
        g_free(want);
    }
    pair_clear(&pair);
    g_free(x);
    g_free(mask);
}

/* One histogram per channel from one pass: 4 channels (vector loads), 3 channels, masked,
 * uneven, batched. */
static void
case_per_channel(votecl_variant variant, votecl_dtype dtype)
{
    size_t n = 30007;
    void *x = random_data(dtype, n * 4, 101);
    uint8_t *mask = random_mask(n, 102);
    votecl_hist_params p;
    default_params(&p, dtype);
    p.per_channel = 1;
    p.channels = 4;
    p.nbins[2] = 17; /* channels may differ */
    check_nd(variant, &p, x, NULL, NULL, NULL, n, 1, "4 channels");
    check_nd(variant, &p, x, NULL, NULL, NULL, n / 2, 2, "4 channels, 2 frames");
    p.channels = 3;
    p.bin_edges[1] = dtype == VOTECL_DTYPE_F32 ? uneven_f32 : uneven_int;
    p.nbins[1] = 7;
    check_nd(variant, &p, x, NULL, NULL, NULL, n, 1, "3 channels, one uneven");
    p.masked = 1;
    check_nd(variant, &p, x, NULL, NULL, mask, n, 1, "3 channels, masked");
    g_free(x);
    g_free(mask);
}

/* Slow sweep: every dimension count 1-8 and dtype, masked or not. */
static void
case_nd_sweep(votecl_variant variant, votecl_dtype dtype)
{
    static const uint32_t nb[] = {5, 3, 4, 2, 3, 2, 2, 3};
    size_t n = 50021;
    void *x = random_data(dtype, n * 8, 111);
    uint8_t *mask = random_mask(n, 112);
    votecl_hist_params p;
    if (!g_test_slow()) {
        g_test_skip("a sweep: run with -m slow");
        g_free(x);
        g_free(mask);
        return;
    }
    for (unsigned dims = 1; dims <= VOTECL_HIST_MAX_DIMS; dims++)
        for (int masked = 0; masked <= 1; masked++) {
            char *what = g_strdup_printf("%u-D%s", dims, masked ? " masked" : "");
            nd_params(&p, dtype, dims, nb);
            p.masked = masked;
            if (dims % 2 == 0 && dtype != VOTECL_DTYPE_U32)
                p.bin_edges[0] = dtype == VOTECL_DTYPE_F32 ? uneven_f32 : uneven_int,
                p.nbins[0] = 7;
            check_nd(variant, &p, x, NULL, NULL, masked ? mask : NULL, n, 1, what);
            g_free(what);
        }
    g_free(x);
    g_free(mask);
}

/* 3-D u8 over 3 interleaved channels against bins the test computes. */
static void
test_ref_nd_truth(void)
{
    static const uint32_t nb[] = {4, 5, 6};
    size_t n = 10007;
    uint8_t *x = random_data(VOTECL_DTYPE_U8, n * 3, 121);
    uint32_t *want = g_new0(uint32_t, 120);
    votecl_hist_params p;
    nd_params(&p, VOTECL_DTYPE_U8, 3, nb); /* [7, 250), channel[d] = 2 - d */
    for (size_t i = 0; i < n; i++) {
        uint32_t b = 0;
        int skip = 0;
        for (unsigned d = 0; d < 3; d++) {
            unsigned v = x[i * 3 + 2 - d];
            skip |= v < 7 || v >= 250;
            b = b * nb[d] + (v >= 7 ? (v - 7) * nb[d] / 243 : 0);
        }
        if (!skip)
            want[b]++;
    }
    uint32_t *got = ref_run(&p, x, NULL, NULL, n, 1);
    expect_bins(got, want, 120, "3-D u8");
    g_free(got);
    g_free(want);
    g_free(x);
}

/* Uneven edges: calcHist's [e_k, e_k+1) and NumPy's closed last bin, NaN and infinities out;
 * integer data against fractional edges. */
static void
test_ref_uneven_rules(void)
{
    static const double fe[] = {-1.0, 0.0, 0.5, 2.0};
    static const float fx[] = {-1.0f, -1.5f, -0.0f, 0.25f,    0.5f,     1.999f,
                               2.0f,  3.0f,  NAN,   INFINITY, -INFINITY};
    static const uint32_t want_exact[] = {1, 2, 2}, want_numpy[] = {1, 2, 3};
    static const double ie[] = {0.5, 3.0, 3.5, 10.0};
    static const uint8_t ix[] = {0, 1, 2, 3, 4, 9, 10, 255};
    static const uint32_t want_int[] = {2, 1, 2}, want_int_numpy[] = {2, 1, 3};
    votecl_hist_params p;
    default_params(&p, VOTECL_DTYPE_F32);
    p.nbins[0] = 3;
    p.bin_edges[0] = fe;
    uint32_t *got = ref_run(&p, fx, NULL, NULL, G_N_ELEMENTS(fx), 1);
    expect_bins(got, want_exact, 3, "f32, calcHist's uneven rule");
    g_free(got);
    p.edges = VOTECL_HIST_EDGES_NUMPY;
    got = ref_run(&p, fx, NULL, NULL, G_N_ELEMENTS(fx), 1);
    expect_bins(got, want_numpy, 3, "f32, NumPy's uneven rule");
    g_free(got);
    default_params(&p, VOTECL_DTYPE_U8);
    p.nbins[0] = 3;
    p.bin_edges[0] = ie;
    got = ref_run(&p, ix, NULL, NULL, G_N_ELEMENTS(ix), 1);
    expect_bins(got, want_int, 3, "u8, fractional edges");
    g_free(got);
    p.edges = VOTECL_HIST_EDGES_NUMPY;
    got = ref_run(&p, ix, NULL, NULL, G_N_ELEMENTS(ix), 1);
    expect_bins(got, want_int_numpy, 3, "u8, NumPy's rule");
    g_free(got);
}

/* Masks: only nonzero mask bytes count; all zero gives zeros; per channel, one vote per
 * channel of every pixel. */
static void
test_ref_mask_channels(void)
{
    static const uint8_t x[] = {1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8};
    static const uint8_t mask[] = {0, 7, 1}, zeros[3] = {0};
    uint32_t want[256 * 4] = {0}, got[256 * 4];
    votecl_hist_params p;
    votecl_hist_plan *plan;
    default_params(&p, VOTECL_DTYPE_U8);
    p.channels = 4;
    p.per_channel = 1;
    p.masked = 1;
    plan = plan_new(tu_ref_context, &p, "per channel, masked");
    g_assert_cmpuint(votecl_hist_plan_nbins(plan), ==, 1024);
    for (size_t i = 1; i < 3; i++)
        for (size_t c = 0; c < 4; c++)
            want[c * 256 + x[i * 4 + c]]++;
    g_assert_cmpint(votecl_hist_run_masked(plan, x, NULL, NULL, mask, 3, 1, got), ==, VOTECL_OK);
    expect_bins(got, want, 1024, "per channel, masked");
    g_assert_cmpint(votecl_hist_run_masked(plan, x, NULL, NULL, zeros, 3, 1, got), ==, VOTECL_OK);
    g_assert_true(all_zero(got, 1024));
    votecl_hist_plan_free(plan);
}

/* Expects plan_new to refuse p naming field. */
static void
expect_refused(votecl_hist_params *p, const char *field)
{
    votecl_hist_plan *plan = NULL;
    tu_expect_invalid(tu_ref_context, votecl_hist_plan_new(tu_ref_context, p, &plan), field);
    g_assert_null(plan);
}

static void
test_ref_nd_bad(void)
{
    static const double flat[] = {0.0, 1.0, 1.0}, nan_edge[] = {0.0, NAN, 2.0};
    votecl_hist_params p;
    default_params(&p, VOTECL_DTYPE_U8);
    p.dims = 0;
    expect_refused(&p, "dims");
    p.dims = 9;
    expect_refused(&p, "dims");
    default_params(&p, VOTECL_DTYPE_U8);
    p.channels = 9;
    expect_refused(&p, "channels");
    default_params(&p, VOTECL_DTYPE_F32);
    p.nbins[0] = 2;
    p.bin_edges[0] = flat;
    expect_refused(&p, "bin_edges[0][2]");
    p.bin_edges[0] = nan_edge;
    expect_refused(&p, "bin_edges[0][1]");
    default_params(&p, VOTECL_DTYPE_U8); /* 2^16 * 2^16 * 2^16 bins: the product overflows 2^32 */
    p.dims = p.channels = 3;
    p.channel[1] = 1, p.channel[2] = 2;
    p.nbins[0] = p.nbins[1] = p.nbins[2] = 65536;
    expect_refused(&p, "nbins");
    default_params(&p, VOTECL_DTYPE_U8);
    p.channels = 2;
    p.two_arrays = p.weighted = p.masked = 1;
    votecl_hist_params_set_2d(&p, 4, 0, 256, 4, 0, 256);
    expect_refused(&p, "masked");

    /* masks: needed by a masked plan, refused by another */
    static const uint8_t x[4] = {1, 2, 3, 4};
    uint32_t bins[256];
    default_params(&p, VOTECL_DTYPE_U8);
    votecl_hist_plan *plan = plan_new(tu_ref_context, &p, "unmasked");
    tu_expect_invalid(tu_ref_context, votecl_hist_run_masked(plan, x, NULL, NULL, x, 4, 1, bins),
                      "mask");
    votecl_hist_plan_free(plan);
    p.masked = 1;
    plan = plan_new(tu_ref_context, &p, "masked");
    tu_expect_invalid(tu_ref_context, votecl_hist_run(plan, x, NULL, NULL, 4, bins), "mask");
    tu_expect_invalid(tu_ref_context, votecl_hist_run_u32(plan, x, NULL, 4, bins), "mask");
    tu_expect_invalid(tu_ref_context, votecl_hist_run_masked(plan, x, NULL, NULL, NULL, 4, 1, bins),
                      "mask");
    votecl_hist_plan_free(plan);
}

/* The cases under every forced strategy and dtype. */
static void
add_variant_cases(void)
{
    const votecl_variant variants[] = {VOTECL_VARIANT_LOCAL, VOTECL_VARIANT_GLOBAL,
                                       VOTECL_VARIANT_PRIVATE};
    const votecl_dtype dtypes[] = {VOTECL_DTYPE_U8, VOTECL_DTYPE_U16, VOTECL_DTYPE_U32,
                                   VOTECL_DTYPE_F32};
    for (size_t v = 0; v < G_N_ELEMENTS(variants); v++) {
        votecl_variant var = variants[v];
        for (size_t d = 0; d < G_N_ELEMENTS(dtypes); d++) {
            votecl_dtype dt = dtypes[d];
            add_case("random", var, dt, case_random);
            add_case("few-values", var, dt, case_few_values);
            add_case("constant", var, dt, case_constant);
            add_case("empty", var, dt, case_empty);
            add_case("one-element", var, dt, case_one);
            add_case("lengths", var, dt, case_lengths);
            add_case("one-bin", var, dt, case_one_bin);
            add_case("weighted", var, dt, case_weighted);
            add_case("batch", var, dt, case_batch);
            add_case("image", var, dt, case_image);
        }
        add_case("multipass", var, VOTECL_DTYPE_U32, case_multipass);
        add_case("multipass", var, VOTECL_DTYPE_F32, case_multipass);
        add_case("many-bins", var, 0, case_many_bins);
        add_case("extreme-range", var, VOTECL_DTYPE_F32, case_f32_extreme);
        add_case("calchist", var, VOTECL_DTYPE_F32, case_f32_calchist);
        add_case("edges", var, VOTECL_DTYPE_F32, case_f32_edges);
        add_case("2d-channels", var, VOTECL_DTYPE_U8, case_2d_channels);
        add_case("2d-channels", var, VOTECL_DTYPE_U16, case_2d_channels);
        add_case("2d-weighted", var, VOTECL_DTYPE_U8, case_2d_weighted);
        add_case("2d-arrays", var, VOTECL_DTYPE_F32, case_2d_arrays);
        add_case("2d-arrays", var, VOTECL_DTYPE_U8, case_2d_arrays);
        add_case("buffers", var, VOTECL_DTYPE_U8, case_buffers);
        add_case("buffers", var, VOTECL_DTYPE_F32, case_buffers);
        add_case("reuse", var, VOTECL_DTYPE_U8, case_reuse);
        add_case("reuse", var, VOTECL_DTYPE_F32, case_reuse);
        add_case("describe", var, 0, case_describe);
        if (var == VOTECL_VARIANT_LOCAL)
            add_case("stretch", var, 0, case_stretch);
        add_case("nd", var, VOTECL_DTYPE_U8, case_nd);
        add_case("nd", var, VOTECL_DTYPE_F32, case_nd);
        add_case("uneven", var, VOTECL_DTYPE_U8, case_uneven);
        add_case("uneven", var, VOTECL_DTYPE_F32, case_uneven);
        add_case("masked", var, VOTECL_DTYPE_U8, case_masked);
        add_case("masked-buffers", var, VOTECL_DTYPE_F32, case_masked_buffers);
        add_case("per-channel", var, VOTECL_DTYPE_U8, case_per_channel);
        for (size_t d = 0; d < G_N_ELEMENTS(dtypes); d++)
            add_case("nd-sweep", var, dtypes[d], case_nd_sweep);
    }
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/u8/modulo", {test_ref_u8_modulo}},
    {TU_PATH, "/ref/u8/ten-bins", {test_ref_u8_ten_bins}},
    {TU_PATH, "/ref/u8/wide-range", {test_ref_u8_wide_range}},
    {TU_PATH, "/ref/u16/range", {test_ref_u16_range}},
    {TU_PATH, "/ref/u32/ranges", {test_ref_u32}},
    {TU_PATH, "/ref/f32/edges", {test_ref_f32_edges}},
    {TU_PATH, "/ref/f32/formula", {test_ref_f32_formula}},
    {TU_PATH, "/ref/f32/huge-range", {test_ref_f32_huge_range}},
    {TU_PATH, "/ref/f32/calchist", {test_ref_f32_calchist}},
    {TU_PATH, "/ref/f32/numpy-edges", {test_ref_f32_numpy_edges}},
    {TU_PATH, "/ref/empty", {test_ref_empty}},
    {TU_PATH, "/ref/2d", {test_ref_2d}},
    {TU_PATH, "/ref/weighted", {test_ref_weighted}},
    {TU_PATH, "/ref/batch", {test_ref_batch}},
    {TU_PATH, "/ref/warmup", {test_ref_warmup}},
    {TU_PATH, "/ref/image", {test_ref_image}},
    {TU_PATH, "/ref/nd/truth", {test_ref_nd_truth}},
    {TU_PATH, "/ref/nd/uneven-rules", {test_ref_uneven_rules}},
    {TU_PATH, "/ref/nd/mask-channels", {test_ref_mask_channels}},
    {TU_PATH, "/ref/nd/bad", {test_ref_nd_bad}},
    {TU_DEVICE, "device-info", {test_device_info}},
    {TU_DEVICE, "auto", {test_auto}},
    {TU_DEVICE, "force-variant-env", {test_force_variant_env}},
    {TU_DEVICE, "local-refinements", {test_local_refinements}},
    {TU_DEVICE, "build/broken", {test_build_broken}},
    {TU_DEVICE, "cache/disk", {test_cache_disk}},
    {TU_DEVICE, "cache/dump", {test_cache_dump}},
    {TU_DEVICE, "cache/pocl", {test_cache_pocl}},
    {TU_DEVICE, "warmup/defaults", {test_warmup_defaults}},
    /* 13 programs compiled without the disk cache: minutes on PoCL */
    {TU_SLOW_DEVICE, "warmup/cold", {test_warmup_cold}},
    {TU_DEVICE_ON, "buffers/bad", {.on = test_buffers_bad}},
    {TU_DEVICE_ON, "device-select", {.on = test_device_select}},
    {TU_CALL, NULL, {add_variant_cases}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_NONFATAL);
}
