/* The generic engine: user-defined votes written in OpenCL C against their sequential C
 * versions written here.
 *
 * /opencl/uservote/<case>/<strategy>  a user vote (source text below) equals its C version
 *              for every forced strategy: u32 bins exactly; f32 bins exactly where every
 *              partial sum is a dyadic number below 2^24, else within
 *              n_b * 2^-24 * sum_b |vote| + 2^-24 |bin| per bin (n_b votes in the bin: the
 *              worst-case rounding of any summation order). The output sits between guard
 *              words that must stay untouched, and stats (elements, kept, eta) must be exact.
 * /opencl/uservote/...                 more than Nmax bins (passes > 1), the build-error path,
 *              device buffers, invalid specs, a histogram as user functions against
 *              votecl_hist_run.
 * A machine without an OpenCL device skips the /opencl tests. */
#include "votecl-private.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static votecl_context *
device(void)
{
    return tu_device_shared();
}

static const votecl_variant strategies[] = {VOTECL_VARIANT_LOCAL, VOTECL_VARIANT_GLOBAL,
                                            VOTECL_VARIANT_PRIVATE};

/* --- a user vote and its C version --- */

/* The C versions see the element's bytes. */
typedef struct cvote {
    int (*test)(uint32_t x, uint32_t y, const uint8_t *v); /* NULL: no stage 1 */
    uint32_t (*index)(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins);
    uint32_t (*value_u)(uint32_t space, uint32_t index, const uint8_t *v); /* NULL: 1 */
    float (*value_f)(uint32_t space, uint32_t index, const uint8_t *v);
    uint32_t (*finish_u)(uint32_t space, uint32_t bin, uint32_t total); /* NULL: identity */
    float (*finish_f)(uint32_t space, uint32_t bin, float total);
} cvote;

typedef struct ucase {
    const char *name;
    votecl_dtype dtype;
    unsigned channels;
    votecl_bin_type bin_type;
    unsigned spaces;
    uint32_t nbins;
    const char *source;
    const float *table;
    size_t table_size;
    cvote c;
    size_t width, height; /* height 0: a 1-D array of width elements */
    int f32_exact;        /* f32 bins: every partial sum is exact */
} ucase;

static size_t
elem_bytes(const ucase *k)
{
    return votecl_dtype_size(k->dtype) * k->channels;
}

/* --- the cases' C versions (and their OpenCL C twins in the case table) --- */

static uint32_t
u32_of(const uint8_t *v)
{
    uint32_t u;
    memcpy(&u, v, 4);
    return u;
}

static float
f32_of(const uint8_t *v)
{
    float f;
    memcpy(&f, v, 4);
    return f;
}

static uint32_t
x_of(uint32_t index)
{
    return index & 0xffffu;
}

static uint32_t
y_of(uint32_t index)
{
    return index >> 16;
}

static const char src_hist2d[] =
    "/* a 2-D histogram: value against x mod 16 */\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    return value * 16u + vote_x(index) % 16u;\n"
    "}\n";

static uint32_t
c_hist2d(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)nbins;
    return v[0] * 16u + x_of(index) % 16u;
}

static const char src_stage1[] =
    "bool vote_test(uint x, uint y, VALUE_T value)\n"
    "{\n"
    "    return value >= 100 && (x + y) % 3u != 0;\n"
    "}\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    return value * 16u + vote_x(index) % 16u;\n"
    "}\n";

static int
c_stage1_test(uint32_t x, uint32_t y, const uint8_t *v)
{
    return v[0] >= 100 && (x + y) % 3u != 0;
}

static const char src_spaces[] =
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    return (value + space * 37u) % nbins;\n"
    "}\n";

static uint32_t
c_spaces(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)index;
    return (v[0] + space * 37u) % nbins;
}

static const char src_none[] =
    "bool vote_test(uint x, uint y, VALUE_T value) { return false; }\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins) { return 0u; }\n";

static int
c_none_test(uint32_t x, uint32_t y, const uint8_t *v)
{
    (void)x, (void)y, (void)v;
    return 0;
}

static uint32_t
c_zero(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)index, (void)v, (void)nbins;
    return 0;
}

/* Indices at and beyond the end of a space, VOTE_SKIP and huge ones: all skipped. The kept
 * ones differ from space to space, so that votes landing in another space show. */
static const char src_wild[] =
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    switch (value % 8u) {\n"
    "    case 0: return VOTE_SKIP;\n"
    "    case 1: return nbins;\n"
    "    case 2: return nbins + 1u + space;\n"
    "    case 3: return 0xfffffff0u;\n"
    "    case 4: return 0x80000000u + index;\n"
    "    case 5: return nbins * (space + 1u);\n"
    "    default: return (value + index + space) % nbins;\n"
    "    }\n"
    "}\n";

static uint32_t
c_wild(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    switch (v[0] % 8u) {
    case 0: return 0xffffffffu;
    case 1: return nbins;
    case 2: return nbins + 1u + space;
    case 3: return 0xfffffff0u;
    case 4: return 0x80000000u + index;
    case 5: return nbins * (space + 1u);
    default: return (v[0] + index + space) % nbins;
    }
}

static const char src_u32_votes[] =
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins) { return value >> 2; }\n"
    "uint vote_value(uint space, uint index, VALUE_T value)\n"
    "{\n"
    "    return value * (space + 1u) + (vote_x(index) & 3u) + (vote_y(index) << 8);\n"
    "}\n";

static uint32_t
c_shift2(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)index, (void)nbins;
    return v[0] >> 2;
}

static uint32_t
c_u32_value(uint32_t space, uint32_t index, const uint8_t *v)
{
    return v[0] * (space + 1u) + (x_of(index) & 3u) + (y_of(index) << 8);
}

/* Quarters of bytes: dyadic, and every partial sum stays far below 2^24. */
static const char src_f32_votes[] =
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins) { return value >> 2; }\n"
    "float vote_value(uint space, uint index, VALUE_T value) { return value * 0.25f; }\n"
    "float vote_finish(uint space, uint bin, float total) { return total * 0.25f + bin; }\n";

static float
c_f32_value(uint32_t space, uint32_t index, const uint8_t *v)
{
    (void)space, (void)index;
    return v[0] * 0.25f;
}

static float
c_f32_finish(uint32_t space, uint32_t bin, float total)
{
    (void)space;
    return total * 0.25f + (float)bin;
}

/* Random floats in [0, 1) voting their own value into 64 bins. */
static const char src_f32_random[] =
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    return (uint)(value * 64.0f);\n"
    "}\n"
    "float vote_value(uint space, uint index, VALUE_T value) { return value; }\n";

static uint32_t
c_f32_random_index(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)index, (void)nbins;
    return (uint32_t)(f32_of(v) * 64.0f);
}

static float
c_f32_random_value(uint32_t space, uint32_t index, const uint8_t *v)
{
    (void)space, (void)index;
    return f32_of(v);
}

/* A constant table maps values to bins (1e9: out of range); values past the table skip. */
#define TABLE_SIZE 200
#define TABLE_BINS 90
static float table[TABLE_SIZE];

static void
table_init(void)
{
    for (unsigned v = 0; v < TABLE_SIZE; v++)
        table[v] = v % 17 == 5 ? 1e9f : (float)((v * 7) % TABLE_BINS);
}

static const char src_table[] =
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    return value < vote_table_size ? (uint)vote_table[value] : VOTE_SKIP;\n"
    "}\n"
    "uint vote_finish(uint space, uint bin, uint total) { return total * 3u + bin; }\n";

static uint32_t
c_table(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)index, (void)nbins;
    return v[0] < TABLE_SIZE ? (uint32_t)table[v[0]] : 0xffffffffu;
}

static uint32_t
c_table_finish(uint32_t space, uint32_t bin, uint32_t total)
{
    (void)space;
    return total * 3u + bin;
}

/* Four channels: a 16 x 16 histogram of red against blue of the opaque pixels. */
static const char src_rgba[] =
    "bool vote_test(uint x, uint y, VALUE_T value) { return value.w > 128; }\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    return (value.x >> 4) * 16u + (value.z >> 4);\n"
    "}\n";

static int
c_rgba_test(uint32_t x, uint32_t y, const uint8_t *v)
{
    (void)x, (void)y;
    return v[3] > 128;
}

static uint32_t
c_rgba(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)index, (void)nbins;
    return (v[0] >> 4) * 16u + (v[2] >> 4);
}

/* u32 data with the default vote_index (the value) and an f32 image voting by location. */
static uint32_t
c_default_u32(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)index, (void)nbins;
    return u32_of(v);
}

static const char src_f32_image[] =
    "bool vote_test(uint x, uint y, VALUE_T value) { return value > 0.5f; }\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    return vote_y(index) / 4u * 8u + vote_x(index) / 8u;\n"
    "}\n"
    "float vote_value(uint space, uint index, VALUE_T value) { return value; }\n";

static int
c_f32_image_test(uint32_t x, uint32_t y, const uint8_t *v)
{
    (void)x, (void)y;
    return f32_of(v) > 0.5f;
}

static uint32_t
c_f32_image_index(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)v, (void)nbins;
    return y_of(index) / 4u * 8u + x_of(index) / 8u;
}

/* Stage 1 over more than 256 chunks of the prefix sum, into three spaces. */
static const char src_stage1_spaces[] =
    "bool vote_test(uint x, uint y, VALUE_T value) { return (value & 3u) == 1u; }\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    return space == 0 ? vote_x(index) / 16u : space == 1 ? vote_y(index) / 16u : value;\n"
    "}\n";

static int
c_stage1_spaces_test(uint32_t x, uint32_t y, const uint8_t *v)
{
    (void)x, (void)y;
    return (v[0] & 3u) == 1u;
}

static uint32_t
c_stage1_spaces(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)nbins;
    return space == 0 ? x_of(index) / 16u : space == 1 ? y_of(index) / 16u : v[0];
}

/* Stage 1 on a 1-D array: vote_test sees x = position, y = 0. */
static const char src_stage1_array[] =
    "bool vote_test(uint x, uint y, VALUE_T value)\n"
    "{\n"
    "    return x % 7u == 3u && y == 0 && value < 200;\n"
    "}\n";

static int
c_stage1_array_test(uint32_t x, uint32_t y, const uint8_t *v)
{
    return x % 7u == 3u && y == 0 && v[0] < 200;
}

static uint32_t
c_value_index(uint32_t space, uint32_t index, const uint8_t *v, uint32_t nbins)
{
    (void)space, (void)index, (void)nbins;
    return v[0];
}

static float
c_one_f(uint32_t space, uint32_t index, const uint8_t *v)
{
    (void)space, (void)index, (void)v;
    return 1.0f;
}

#define U8 VOTECL_DTYPE_U8
#define UNITY VOTECL_BINS_UNITY

static const ucase cases[] = {
    {"hist2d-xmod16", U8, 1, UNITY, 1, 4096, src_hist2d, NULL, 0, {.index = c_hist2d}, 67, 45, 0},
    {"stage1", U8, 1, UNITY, 1, 4096, src_stage1, NULL, 0,
     {.test = c_stage1_test, .index = c_hist2d}, 131, 37, 0},
    {"stage1-large", U8, 1, UNITY, 3, 256, src_stage1_spaces, NULL, 0,
     {.test = c_stage1_spaces_test, .index = c_stage1_spaces}, 1201, 1001, 0},
    {"stage1-array", U8, 1, UNITY, 1, 256, src_stage1_array, NULL, 0,
     {.test = c_stage1_array_test, .index = c_value_index}, 100003, 0, 0},
    {"spaces-1", U8, 1, UNITY, 1, 100, src_spaces, NULL, 0, {.index = c_spaces}, 100003, 0, 0},
    {"spaces-7", U8, 1, UNITY, 7, 100, src_spaces, NULL, 0, {.index = c_spaces}, 100003, 0, 0},
    {"none-pass", U8, 1, UNITY, 2, 300, src_none, NULL, 0,
     {.test = c_none_test, .index = c_zero}, 64, 50, 0},
    {"wild-indices", U8, 1, UNITY, 3, 50, src_wild, NULL, 0, {.index = c_wild}, 65537, 0, 0},
    {"wild-indices-1", U8, 1, UNITY, 1, 50, src_wild, NULL, 0, {.index = c_wild}, 257, 131, 0},
    {"u32-votes", U8, 1, VOTECL_BINS_U32, 2, 64, src_u32_votes, NULL, 0,
     {.index = c_shift2, .value_u = c_u32_value}, 97, 31, 0},
    {"f32-votes-finish", U8, 1, VOTECL_BINS_F32, 1, 64, src_f32_votes, NULL, 0,
     {.index = c_shift2, .value_f = c_f32_value, .finish_f = c_f32_finish}, 100003, 0, 1},
    {"f32-random", VOTECL_DTYPE_F32, 1, VOTECL_BINS_F32, 1, 64, src_f32_random, NULL, 0,
     {.index = c_f32_random_index, .value_f = c_f32_random_value}, 50021, 0, 0},
    {"f32-image", VOTECL_DTYPE_F32, 1, VOTECL_BINS_F32, 1, 64, src_f32_image, NULL, 0,
     {.test = c_f32_image_test, .index = c_f32_image_index, .value_f = c_f32_random_value},
     61, 29, 0},
    {"table-finish", U8, 1, UNITY, 1, TABLE_BINS, src_table, table, TABLE_SIZE,
     {.index = c_table, .finish_u = c_table_finish}, 53, 29, 0},
    {"rgba", U8, 4, UNITY, 1, 256, src_rgba, NULL, 0, {.test = c_rgba_test, .index = c_rgba},
     41, 23, 0},
    {"default-u32", VOTECL_DTYPE_U32, 1, UNITY, 1, 1000, NULL, NULL, 0,
     {.index = c_default_u32}, 30011, 0, 0},
};

static const ucase *
find_case(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        if (strcmp(cases[i].name, name) == 0)
            return &cases[i];
    g_assert_not_reached();
    return NULL;
}

/* --- data --- */

/* The input of a case: an image with padded rows (stride != width) or a 1-D array. */
typedef struct input {
    uint8_t *data;
    size_t width, height, stride, count; /* count: elements */
    votecl_image view;
} input;

static void
input_fill(tu_rng *rng, const ucase *k, uint8_t *p, size_t elements)
{
    if (k->dtype == VOTECL_DTYPE_U32)
        tu_fill_u32(rng, (uint32_t *)(void *)p, elements * k->channels, k->nbins + 100);
    else
        tu_fill(rng, k->dtype, p, elements * k->channels, 0.0f, 1.0f);
}

static void
input_init(input *in, const ucase *k, uint64_t seed)
{
    tu_rng rng;
    tu_rng_init(&rng, seed);
    memset(in, 0, sizeof *in);
    in->width = k->width;
    in->height = k->height ? k->height : 1;
    in->stride = k->width * elem_bytes(k) + (k->height ? 8 : 0);
    in->count = in->width * in->height;
    in->data = g_malloc0(in->stride * in->height + 16);
    for (size_t y = 0; y < in->height; y++)
        input_fill(&rng, k, in->data + y * in->stride, in->width);
    in->view = (votecl_image){in->data, in->width, in->height, in->stride, k->channels,
                              k->dtype};
}

/* --- the sequential version --- */

typedef struct cresult {
    uint32_t *u;      /* G * N: u32 bins after finish */
    float *f;         /* G * N: f32 bins after finish */
    double *abs_sum;  /* G * N: sum of |vote| per bin (f32) */
    uint32_t *votes;  /* G * N: votes per bin */
    size_t kept;
} cresult;

static void
c_vote_one(const ucase *k, uint32_t index, const uint8_t *v, cresult *r, double *sums)
{
    for (uint32_t s = 0; s < k->spaces; s++) {
        uint32_t b = k->c.index(s, index, v, k->nbins);
        if (b >= k->nbins)
            continue;
        size_t at = (size_t)s * k->nbins + b;
        r->votes[at]++;
        if (k->bin_type == VOTECL_BINS_F32) {
            float w = k->c.value_f(s, index, v);
            sums[at] += w;
            r->abs_sum[at] += fabs(w);
        } else {
            r->u[at] += k->c.value_u ? k->c.value_u(s, index, v) : 1u;
        }
    }
}

static void
c_finish(const ucase *k, cresult *r, const double *sums)
{
    for (uint32_t s = 0; s < k->spaces; s++)
        for (uint32_t b = 0; b < k->nbins; b++) {
            size_t at = (size_t)s * k->nbins + b;
            if (k->bin_type == VOTECL_BINS_F32) {
                float t = (float)sums[at];
                r->f[at] = k->c.finish_f ? k->c.finish_f(s, b, t) : t;
            } else if (k->c.finish_u) {
                r->u[at] = k->c.finish_u(s, b, r->u[at]);
            }
        }
}

static void
c_run(const ucase *k, const input *in, cresult *r)
{
    size_t bins = (size_t)k->spaces * k->nbins, eb = elem_bytes(k);
    double *sums = g_new0(double, bins);

    r->u = g_new0(uint32_t, bins);
    r->f = g_new0(float, bins);
    r->abs_sum = g_new0(double, bins);
    r->votes = g_new0(uint32_t, bins);
    r->kept = 0;
    for (size_t y = 0; y < in->height; y++)
        for (size_t x = 0; x < in->width; x++) {
            const uint8_t *v = in->data + y * in->stride + x * eb;
            uint32_t index = k->height ? (uint32_t)(x | y << 16) : (uint32_t)x;
            if (k->c.test && !k->c.test((uint32_t)x, (uint32_t)y, v))
                continue;
            r->kept++;
            c_vote_one(k, index, v, r, sums);
        }
    c_finish(k, r, sums);
    g_free(sums);
}

static void
cresult_clear(cresult *r)
{
    g_free(r->u);
    g_free(r->f);
    g_free(r->abs_sum);
    g_free(r->votes);
}

/* --- running the device --- */

#define GUARD 64
#define SENTINEL 0xA5A5A5A5u

static void
spec_from_case(const ucase *k, votecl_variant variant, votecl_vote_spec *spec)
{
    votecl_vote_spec_init(spec);
    spec->dtype = k->dtype;
    spec->channels = k->channels;
    spec->bin_type = k->bin_type;
    spec->spaces = k->spaces;
    spec->nbins = k->nbins;
    spec->source = k->source;
    spec->table = k->table;
    spec->table_size = k->table_size;
    spec->variant = variant;
}

static votecl_vote_plan *
plan_new(votecl_context *context, const votecl_vote_spec *spec, const char *what)
{
    votecl_vote_plan *plan = NULL;
    votecl_status status = votecl_vote_plan_new(context, spec, &plan);
    return tu_check_ok(context, status, "%s: plan", what) ? plan : NULL;
}

/* Checks that the forced strategy is the one that runs. */
static void
check_strategy(votecl_vote_plan *plan, size_t elements, votecl_variant variant)
{
    votecl_vote_plan_info info;
    g_assert_cmpint(votecl_vote_plan_describe(plan, elements, &info), ==, VOTECL_OK);
    if (variant != VOTECL_VARIANT_AUTO)
        g_assert_cmpstr(votecl_variant_name(info.variant), ==, votecl_variant_name(variant));
}

/* Runs plan on in into bins between GUARD sentinel words on each side; returns the G * N
 * words (g_free) or NULL after failing the test. */
static uint32_t *
run_guarded(votecl_vote_plan *plan, const ucase *k, const input *in, votecl_vote_stats *stats)
{
    size_t bins = (size_t)k->spaces * k->nbins;
    uint32_t *all = g_new(uint32_t, bins + 2 * GUARD);
    votecl_status status;

    for (size_t i = 0; i < bins + 2 * GUARD; i++)
        all[i] = SENTINEL;
    if (k->height)
        status = votecl_vote_run_image(plan, &in->view, all + GUARD, stats);
    else
        status = votecl_vote_run(plan, in->data, in->count, all + GUARD, stats);
    if (!tu_check_ok(device(), status, "run")) {
        g_free(all);
        return NULL;
    }
    for (size_t i = 0; i < GUARD; i++) {
        g_assert_cmphex(all[i], ==, SENTINEL);
        g_assert_cmphex(all[GUARD + bins + i], ==, SENTINEL);
    }
    uint32_t *out = g_memdup2(all + GUARD, bins * 4);
    g_free(all);
    return out;
}

static void
compare_u32(const ucase *k, const uint32_t *got, const cresult *want)
{
    size_t bins = (size_t)k->spaces * k->nbins;
    size_t at = tu_first_difference(got, want->u, bins, 4);
    if (at != (size_t)-1) {
        g_test_message("%s: space %zu bin %zu: device %u, C %u", k->name, at / k->nbins,
                       at % k->nbins, got[at], want->u[at]);
        g_test_fail();
    }
}

/* Exact, or within the worst-case rounding of any summation order (see the top). */
static void
compare_f32(const ucase *k, const float *got, const cresult *want)
{
    size_t bins = (size_t)k->spaces * k->nbins, bad = 0;
    const double u = ldexp(1.0, -24);

    for (size_t i = 0; i < bins; i++) {
        double margin = k->f32_exact ? 0.0
                                     : want->votes[i] * u * want->abs_sum[i] +
                                           u * fabs(want->f[i]);
        if (!(fabs((double)got[i] - want->f[i]) <= margin) && bad++ < 5)
            g_test_message("%s: space %zu bin %zu: device %.9g, C %.9g, margin %.3g", k->name,
                           i / k->nbins, i % k->nbins, got[i], want->f[i], margin);
    }
    if (bad > 0)
        g_test_fail();
}

static void
check_stats(const ucase *k, const votecl_vote_stats *stats, const input *in, size_t kept)
{
    g_assert_cmpuint(stats->elements, ==, in->count);
    g_assert_cmpuint(stats->kept, ==, kept);
    g_assert_cmpfloat(stats->eta, ==, in->count ? (double)kept / (double)in->count : 0.0);
    if (k->c.test == NULL)
        g_assert_cmpuint(stats->kept, ==, in->count);
}

typedef struct case_run {
    const ucase *k;
    votecl_variant variant;
} case_run;

static void
run_case(const void *data)
{
    const case_run *cr = data;
    const ucase *k = cr->k;
    votecl_context *context = device();
    votecl_vote_spec spec;
    votecl_vote_stats stats;
    input in;
    cresult want = {0};

    if (context == NULL)
        return;
    spec_from_case(k, cr->variant, &spec);
    votecl_vote_plan *plan = plan_new(context, &spec, k->name);
    if (plan == NULL)
        return;
    input_init(&in, k, 0x5eed0000u + k->nbins);
    check_strategy(plan, in.count, cr->variant);
    c_run(k, &in, &want);
    uint32_t *got = run_guarded(plan, k, &in, &stats);
    if (got != NULL) {
        if (k->bin_type == VOTECL_BINS_F32)
            compare_f32(k, (const float *)(const void *)got, &want);
        else
            compare_u32(k, got, &want);
        check_stats(k, &stats, &in, want.kept);
    }
    g_free(got);
    cresult_clear(&want);
    g_free(in.data);
    votecl_vote_plan_free(plan);
}

/* --- special cases --- */

/* More bins than local memory holds: the local strategy runs several passes. */
static void
test_passes(void)
{
    votecl_context *context = device();
    votecl_device_info dev;
    if (context == NULL)
        return;
    g_assert_cmpint(votecl_context_get_device_info(context, &dev), ==, VOTECL_OK);
    uint64_t n = dev.local_mem_bytes / 4 + 1001; /* above Nmax whatever the engine keeps */
    if (n > VOTECL_VOTE_MAX_BINS) {
        g_test_skip("local memory larger than the engine's largest vote space");
        return;
    }
    ucase k = {"passes", VOTECL_DTYPE_U32, 1, UNITY, 1, (uint32_t)n, NULL, NULL, 0,
               {.index = c_default_u32}, 200003, 0, 0};
    ucase kf = k; /* f32 bins, default vote_value 1 */
    kf.bin_type = VOTECL_BINS_F32;
    kf.c.value_f = c_one_f;
    kf.f32_exact = 1;
    const votecl_variant variants[] = {VOTECL_VARIANT_LOCAL, VOTECL_VARIANT_GLOBAL};
    for (size_t v = 0; v < G_N_ELEMENTS(variants); v++) {
        case_run cr = {&k, variants[v]}, crf = {&kf, variants[v]};
        run_case(&cr);
        run_case(&crf);
    }
    votecl_vote_spec spec;
    votecl_vote_plan_info info;
    spec_from_case(&k, VOTECL_VARIANT_LOCAL, &spec);
    votecl_vote_plan *plan = plan_new(context, &spec, "passes");
    if (plan == NULL)
        return;
    g_assert_cmpint(votecl_vote_plan_describe(plan, 200003, &info), ==, VOTECL_OK);
    g_assert_cmpuint(info.nmax, >, 0);
    g_assert_cmpuint(info.nmax, <, n);
    g_assert_cmpuint(info.passes, >, 1);
    g_assert_cmpuint(info.passes, ==, (n + info.nmax - 1) / info.nmax);
    votecl_vote_plan_free(plan);
}

/* A syntax error on line 3 of the user's text. */
static void
test_syntax_error(void)
{
    static const char broken[] =
        "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
        "{\n"
        "    return value +;\n"
        "}\n";
    votecl_context *context = device();
    votecl_vote_spec spec;
    votecl_vote_plan *plan = (votecl_vote_plan *)&spec; /* must become NULL */
    if (context == NULL)
        return;
    votecl_vote_spec_init(&spec);
    spec.source = broken;
    g_assert_cmpint(votecl_vote_plan_new(context, &spec, &plan), ==, VOTECL_BUILD_FAILED);
    g_assert_null(plan);
    const char *log = votecl_context_get_build_log(context);
    g_test_message("build log:\n%s", log);
    g_assert_nonnull(strstr(log, "user"));
    g_assert_nonnull(strstr(log, "user:3:"));
    g_assert_cmpuint(strlen(votecl_context_get_error(context)), >, 0);
}

/* The device-buffer path: nothing is written past G * N words of the bins buffer. */
static void
run_buffers(votecl_context *context, votecl_variant variant)
{
    const ucase *k = find_case("wild-indices");
    size_t bins = (size_t)k->spaces * k->nbins, bytes = (bins + GUARD) * 4;
    votecl_vote_spec spec;
    votecl_vote_stats stats;
    votecl_buffer *x = NULL, *out = NULL;
    input in;
    cresult want = {0};
    uint32_t *got = g_new(uint32_t, bins + GUARD);

    spec_from_case(k, variant, &spec);
    votecl_vote_plan *plan = plan_new(context, &spec, "buffers");
    input_init(&in, k, 77);
    c_run(k, &in, &want);
    for (size_t i = 0; i < bins + GUARD; i++)
        got[i] = SENTINEL;
    if (plan == NULL)
        goto out;
    g_assert_cmpint(votecl_buffer_new(context, in.count, &x), ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_new(context, bytes, &out), ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_write(x, 0, in.data, in.count), ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_write(out, 0, got, bytes), ==, VOTECL_OK);
    g_assert_cmpint(votecl_vote_run_buffers(plan, x, in.count, 0, out), ==, VOTECL_OK);
    g_assert_cmpint(votecl_vote_plan_last_stats(plan, &stats), ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_read(out, 0, got, bytes), ==, VOTECL_OK);
    compare_u32(k, got, &want);
    for (size_t i = 0; i < GUARD; i++)
        g_assert_cmphex(got[bins + i], ==, SENTINEL);
    check_stats(k, &stats, &in, want.kept);
out:
    votecl_buffer_free(x);
    votecl_buffer_free(out);
    votecl_vote_plan_free(plan);
    cresult_clear(&want);
    g_free(in.data);
    g_free(got);
}

static void
test_buffers(votecl_context *context)
{
    for (size_t v = 0; v < G_N_ELEMENTS(strategies); v++)
        run_buffers(context, strategies[v]);
}

/* No elements at all: every bin is vote_finish(0), eta is 0. */
static void
test_empty(void)
{
    votecl_context *context = device();
    const ucase *k = find_case("table-finish");
    votecl_vote_spec spec;
    votecl_vote_stats stats;
    uint32_t bins[TABLE_BINS + 1];
    if (context == NULL)
        return;
    spec_from_case(k, VOTECL_VARIANT_AUTO, &spec);
    votecl_vote_plan *plan = plan_new(context, &spec, "empty");
    if (plan == NULL)
        return;
    bins[TABLE_BINS] = SENTINEL;
    g_assert_cmpint(votecl_vote_run(plan, NULL, 0, bins, &stats), ==, VOTECL_OK);
    for (uint32_t b = 0; b < TABLE_BINS; b++)
        g_assert_cmpuint(bins[b], ==, c_table_finish(0, b, 0));
    g_assert_cmphex(bins[TABLE_BINS], ==, SENTINEL);
    g_assert_cmpuint(stats.elements, ==, 0);
    g_assert_cmpuint(stats.kept, ==, 0);
    g_assert_cmpfloat(stats.eta, ==, 0.0);
    votecl_vote_plan_free(plan);
}

/* A histogram written as user functions equals the built-in histogram. */
static void
compare_with_hist(votecl_context *context, votecl_variant variant, const char *source,
                  uint32_t nbins)
{
    votecl_vote_spec spec;
    votecl_hist_params params;
    votecl_hist_plan *hist = NULL;
    size_t n = 123457;
    uint8_t *x = g_malloc(n);
    uint32_t *a = g_new0(uint32_t, nbins), *b = g_new0(uint32_t, nbins);
    tu_rng rng;

    tu_rng_init(&rng, nbins);
    tu_fill_u8(&rng, x, n);
    votecl_vote_spec_init(&spec);
    spec.nbins = nbins;
    spec.source = source;
    spec.variant = variant;
    votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
    params.nbins[0] = nbins;
    params.variant = variant;
    votecl_vote_plan *plan = plan_new(context, &spec, "histogram");
    g_assert_cmpint(votecl_hist_plan_new(context, &params, &hist), ==, VOTECL_OK);
    if (plan != NULL && hist != NULL) {
        g_assert_cmpint(votecl_vote_run(plan, x, n, a, NULL), ==, VOTECL_OK);
        g_assert_cmpint(votecl_hist_run(hist, x, NULL, NULL, n, b), ==, VOTECL_OK);
        g_assert_cmpuint(tu_first_difference(a, b, nbins, 4), ==, (size_t)-1);
    }
    votecl_vote_plan_free(plan);
    votecl_hist_plan_free(hist);
    g_free(x);
    g_free(a);
    g_free(b);
}

static void
test_histogram_builtin(void)
{
    static const char quarter[] =
        "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
        "{\n"
        "    return value >> 2;\n"
        "}\n";
    votecl_context *context = device();
    if (context == NULL)
        return;
    /* GPU-vote Listing 2: the default functions are a 256-bin histogram of bytes. */
    for (size_t v = 0; v < G_N_ELEMENTS(strategies); v++)
        compare_with_hist(context, strategies[v], NULL, 256);
    compare_with_hist(context, VOTECL_VARIANT_AUTO, quarter, 64);
}

/* A spec that cannot be right returns VOTECL_INVALID_ARGUMENT naming the field. */
static void
expect_invalid(votecl_context *context, const votecl_vote_spec *spec, const char *field)
{
    votecl_vote_plan *plan = NULL;
    votecl_status status = votecl_vote_plan_new(context, spec, &plan);
    g_assert_null(plan);
    tu_expect_invalid(context, status, field);
}

static void
test_invalid_spec(void)
{
    static const float one = 1.0f;
    votecl_context *context = device();
    votecl_vote_spec s;
    if (context == NULL)
        return;
#define INVALID(field, change)                                                                 \
    do {                                                                                       \
        votecl_vote_spec_init(&s);                                                             \
        change;                                                                                \
        expect_invalid(context, &s, field);                                                    \
    } while (0)
    INVALID("dtype", s.dtype = (votecl_dtype)99);
    INVALID("channels", s.channels = 3);
    INVALID("channels", s.channels = 0);
    INVALID("bin_type", s.bin_type = (votecl_bin_type)7);
    INVALID("spaces", s.spaces = 0);
    INVALID("nbins", s.nbins = 0);
    INVALID("variant", s.variant = (votecl_variant)9);
    INVALID("table", (s.table = NULL, s.table_size = 4));
    INVALID("table_size", (s.table = &one, s.table_size = VOTECL_VOTE_MAX_TABLE + 1));
    INVALID("nbins", (s.spaces = 2, s.nbins = VOTECL_VOTE_MAX_BINS));
#undef INVALID
    votecl_vote_plan *plan = NULL;
    votecl_vote_spec_init(&s);
    g_assert_cmpint(votecl_vote_plan_new(context, NULL, &plan), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_vote_plan_new(context, &s, NULL), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_vote_plan_new(NULL, &s, &plan), ==, VOTECL_INVALID_ARGUMENT);
    votecl_vote_plan_free(NULL);
}

/* Runs that do not match the spec. */
static void
test_invalid_run(void)
{
    votecl_context *context = device();
    votecl_vote_spec spec;
    uint8_t pixels[64] = {0};
    uint32_t bins[256];
    if (context == NULL)
        return;
    votecl_vote_spec_init(&spec);
    votecl_vote_plan *plan = plan_new(context, &spec, "invalid-run");
    if (plan == NULL)
        return;
    votecl_image image = {pixels, 8, 8, 8, 1, VOTECL_DTYPE_F32};
    g_assert_cmpint(votecl_vote_run_image(plan, &image, bins, NULL), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(context), "dtype") ||
                  tu_message_names(votecl_context_get_error(context), "image.dtype"));
    image.dtype = VOTECL_DTYPE_U8;
    image.channels = 2;
    g_assert_cmpint(votecl_vote_run_image(plan, &image, bins, NULL), ==,
                    VOTECL_INVALID_ARGUMENT);
    image.channels = 1;
    image.stride = 4;
    g_assert_cmpint(votecl_vote_run_image(plan, &image, bins, NULL), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_vote_run(plan, pixels, 64, NULL, NULL), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_vote_run(plan, NULL, 64, bins, NULL), ==, VOTECL_INVALID_ARGUMENT);
    votecl_vote_plan_free(plan);
}

/* The ref backend cannot run OpenCL C: a valid spec is VOTECL_UNSUPPORTED, an invalid one
 * still VOTECL_INVALID_ARGUMENT. */
static void
test_ref_backend(void)
{
    votecl_context *ref = tu_ref_context_new();
    votecl_vote_spec spec;
    votecl_vote_plan *plan = NULL;
    if (ref == NULL)
        return;
    votecl_vote_spec_init(&spec);
    spec.source = src_hist2d;
    g_assert_cmpint(votecl_vote_plan_new(ref, &spec, &plan), ==, VOTECL_UNSUPPORTED);
    g_assert_null(plan);
    g_assert_cmpuint(strlen(votecl_context_get_error(ref)), >, 0);
    spec.nbins = 0;
    expect_invalid(ref, &spec, "nbins");
    votecl_context_free(ref);
}

/* Every case under every forced strategy (the table case's table made first). */
static void
add_case_tests(void)
{
    table_init();
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++)
        for (size_t v = 0; v < G_N_ELEMENTS(strategies); v++) {
            case_run *cr = g_new(case_run, 1);
            *cr = (case_run){&cases[c], strategies[v]};
            char *path = g_strdup_printf("uservote/%s/%s", cases[c].name,
                                         votecl_variant_name(strategies[v]));
            tu_add_device_data_test(path, cr, run_case, g_free);
            g_free(path);
        }
}

static const tu_test tests[] = {
    {TU_CALL, NULL, {add_case_tests}},
    {TU_PATH, "/ref/uservote/unsupported", {test_ref_backend}},
    {TU_DEVICE, "uservote/passes", {test_passes}},
    {TU_DEVICE, "uservote/syntax-error", {test_syntax_error}},
    {TU_DEVICE_ON, "uservote/buffers", {.on = test_buffers}},
    {TU_DEVICE, "uservote/empty", {test_empty}},
    {TU_DEVICE, "uservote/histogram-builtin", {test_histogram_builtin}},
    {TU_DEVICE, "uservote/invalid-spec", {test_invalid_spec}},
    {TU_DEVICE, "uservote/invalid-run", {test_invalid_run}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_NONFATAL);
}
