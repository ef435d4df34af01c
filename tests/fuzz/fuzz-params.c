/* Parameter validation of the public entry points, on a 'ref' context (no device, fast).
 *
 * The input picks an entry point and decodes into its arguments: params structs start from
 * their _init defaults and get a few fields replaced by values from tables of boundaries
 * (0, 1, 2^16, 2^28, 2^32, SIZE_MAX, INT32_MAX + 1, NaN, infinities, -0, DBL_MAX, ...) or
 * raw bytes; image views get random width, height, stride, channels and type (stride below
 * the row, sides near SIZE_MAX); counts and capacities likewise. Host memory behind every
 * pointer is real: views and arrays live in a pool of POOL bytes, and outputs are allocated
 * to exactly the capacity the call is told, so ASan sees any write past them.
 *
 * Properties (a violation aborts, like a crash):
 *  - every call returns a known status, and a failing call on a context leaves a message;
 *  - a constructor that fails sets its out-parameter to NULL;
 *  - arguments that break a documented rule are rejected: an image view whose row bytes,
 *    pixel count or span overflow, stride below the row of a view of several rows, more
 *    than 2^32 - 1 elements in a histogram frame, a buffer transfer outside the buffer.
 * Calls whose arguments are valid but would need more memory than the pool, or more time
 * than a fuzzing run affords, are skipped (their validation has already run in the
 * constructor). */
#include "votecl-private.h"

#include "fuzz.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define POOL (1u << 20)
/* Most elements a ref run may touch per input: keeps an execution in milliseconds. */
#define WORK (1u << 18)

static votecl_context *ctx;
static unsigned char pool[POOL] __attribute__((aligned(64)));

/* --- decoding --- */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint64_t
take(reader *r, unsigned bytes)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < bytes; i++) {
        x = x << 8 | (r->n > 0 ? *r->p : 0);
        if (r->n > 0)
            r->p++, r->n--;
    }
    return x;
}

static unsigned
take8(reader *r)
{
    return (unsigned)take(r, 1);
}

/* clang-format off */
static const uint64_t boundaries[] = {
    0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 31, 32, 63, 64, 100, 127, 128, 255, 256, 1023, 1024,
    4095, 4096, 8192, 32767, 32768, 65535, 65536, 65537, 1u << 20, (1u << 28) - 1, 1u << 28,
    (1u << 28) + 1, INT32_MAX, (uint64_t)INT32_MAX + 1, UINT32_MAX - 1, UINT32_MAX,
    (uint64_t)UINT32_MAX + 1, (uint64_t)UINT32_MAX + 2, SIZE_MAX / 2, SIZE_MAX / 2 + 1,
    SIZE_MAX / 4 + 1, SIZE_MAX - 1, SIZE_MAX, 16843009, 16843010, 46341, 46340, 3, 6, 12, 48};
/* clang-format on */
#define NBOUNDARIES (sizeof boundaries / sizeof boundaries[0])

/* Mostly small, sometimes a boundary, sometimes raw. */
static uint64_t
take_count(reader *r, uint64_t max_raw)
{
    unsigned sel = take8(r);
    if (sel < 128)
        return take(r, 1) % 65;
    if (sel < 128 + NBOUNDARIES)
        return boundaries[sel - 128];
    return take(r, 8) % (max_raw + 1 > 0 ? max_raw + 1 : UINT64_MAX);
}

static size_t
take_size(reader *r)
{
    return (size_t)take_count(r, UINT64_MAX - 1);
}

static uint32_t
take_u32(reader *r)
{
    return (uint32_t)take_count(r, UINT32_MAX);
}

static double
take_double(reader *r)
{
    static const double table[] = {
        0.0,          -0.0,      1.0,     -1.0,  0.5,    2.0,     1.05,     0.05,
        1e-9,         1e-300,    -1e-300, 1e300, -1e300, DBL_MAX, -DBL_MAX, DBL_MIN / 4,
        INFINITY,     -INFINITY, NAN,     -NAN,  255.0,  256.0,   65536.0,  4294967296.0,
        4294967297.0, 360.0,     -360.0,  720.0, 0.1};
    unsigned sel = take8(r);
    uint64_t bits;
    double d;

    if (sel < sizeof table / sizeof table[0])
        return table[sel];
    if (sel < 200)
        return (double)(int)(take(r, 2) % 1000) / (double)(1 + take(r, 1) % 16);
    bits = take(r, 8);
    memcpy(&d, &bits, sizeof d);
    return d;
}

static float
take_float(reader *r)
{
    return (float)take_double(r);
}

/* Field tables: a few fields of a params struct get decoded values. */
typedef enum ftype { F_UINT, F_U32, F_SIZE, F_DOUBLE, F_FLOAT, F_INT } ftype;
typedef struct field {
    size_t offset;
    ftype type;
} field;
#define FIELD(s, m, t)                                                                             \
    {                                                                                              \
        offsetof(s, m), t                                                                          \
    }

static void
mutate(reader *r, void *base, const field *fields, size_t n)
{
    unsigned count = take8(r) % 5;

    for (unsigned i = 0; i < count; i++) {
        const field *f = &fields[take8(r) % n];
        char *p = (char *)base + f->offset;
        switch (f->type) {
        case F_UINT: {
            unsigned v = (unsigned)take_u32(r);
            memcpy(p, &v, sizeof v);
            break;
        }
        case F_U32: {
            uint32_t v = take_u32(r);
            memcpy(p, &v, sizeof v);
            break;
        }
        case F_SIZE: {
            size_t v = take_size(r);
            memcpy(p, &v, sizeof v);
            break;
        }
        case F_DOUBLE: {
            double v = take_double(r);
            memcpy(p, &v, sizeof v);
            break;
        }
        case F_FLOAT: {
            float v = take_float(r);
            memcpy(p, &v, sizeof v);
            break;
        }
        case F_INT: {
            static const int table[] = {0, 1, 2, 3, 4, 5, -1, INT_MIN, INT_MAX, 77};
            int v = table[take8(r) % 10];
            memcpy(p, &v, sizeof v);
            break;
        }
        }
    }
}

/* --- checks --- */

static void
check_status(votecl_status status)
{
    FUZZ_CHECK(votecl_status_name(status) != NULL);
    if (status != VOTECL_OK)
        FUZZ_CHECK(votecl_context_get_error(ctx)[0] != '\0');
    votecl__clear_error(ctx); /* so that the next failure must write its own message */
}

/* A constructor's result: a status, and NULL in *out on failure. */
#define CHECK_NEW(status, object)                                                                  \
    do {                                                                                           \
        check_status(status);                                                                      \
        FUZZ_CHECK(((status) == VOTECL_OK) == ((object) != NULL));                                 \
    } while (0)

/* --- image views --- */

typedef enum view_kind {
    VIEW_FITS,   /* valid and inside the pool: safe to pass */
    VIEW_BAD,    /* breaks a documented rule: must be rejected */
    VIEW_TOO_BIG /* valid, but the pool cannot back it: skipped */
} view_kind;

static view_kind
classify(const votecl_image *v)
{
    size_t es = votecl_dtype_size(v->dtype), row, pixels, span;

    if (es == 0 || v->channels < 1 || v->channels > 4)
        return VIEW_BAD;
    if (__builtin_mul_overflow(v->width, (size_t)v->channels * es, &row) ||
        __builtin_mul_overflow(v->width, v->height, &pixels) || pixels > INT32_MAX)
        return VIEW_BAD;
    if (pixels == 0)
        return VIEW_FITS;
    if (v->height > 1 && v->stride < row)
        return VIEW_BAD;
    if (__builtin_mul_overflow(v->height - 1, v->stride, &span) ||
        __builtin_add_overflow(span, row, &span))
        return VIEW_BAD;
    return span <= POOL ? VIEW_FITS : VIEW_TOO_BIG;
}

/* Mostly the expected layout and a small size; sometimes anything. */
static votecl_image
take_view(reader *r, votecl_dtype dtype, unsigned channels, size_t width, size_t height)
{
    votecl_image v = {pool, width, height, 0, channels, dtype};
    unsigned sel = take8(r);

    if (sel & 1)
        v.width = take_size(r);
    if (sel & 2)
        v.height = take_size(r);
    if ((sel & 12) == 12)
        v.dtype = (votecl_dtype)(take8(r) % 6);
    if ((sel & 48) == 48)
        v.channels = take8(r) % 6;
    v.stride = v.width * v.channels * votecl_dtype_size(v.dtype);
    if (sel & 64)
        v.stride += take(r, 1) % 9;
    if ((sel & 128) && (take8(r) & 1))
        v.stride = take_size(r);
    if (take8(r) == 255)
        v.data = NULL;
    return v;
}

/* After a call with view: a bad view must have been rejected. */
static void
check_view_call(const votecl_image *v, votecl_status status)
{
    check_status(status);
    if (classify(v) == VIEW_BAD || (v->data == NULL && v->width * v->height > 0))
        FUZZ_CHECK(status != VOTECL_OK);
}

static size_t
pixels_of(const votecl_image *v)
{
    return v->width * v->height;
}

/* An output array of count elements of size bytes, NULL for 0 (or sometimes anyway). */
static void *
take_output(reader *r, size_t count, size_t size)
{
    if (count == 0 || count > (16u << 20) / size)
        return NULL;
    return calloc(count, size);
}

/* --- histograms --- */

static const field hist_fields[] = {
    FIELD(votecl_hist_params, dtype, F_INT),
    FIELD(votecl_hist_params, channels, F_UINT),
    FIELD(votecl_hist_params, dims, F_UINT),
    FIELD(votecl_hist_params, channel[0], F_UINT),
    FIELD(votecl_hist_params, channel[1], F_UINT),
    FIELD(votecl_hist_params, two_arrays, F_INT),
    FIELD(votecl_hist_params, nbins[0], F_U32),
    FIELD(votecl_hist_params, nbins[1], F_U32),
    FIELD(votecl_hist_params, min[0], F_DOUBLE),
    FIELD(votecl_hist_params, min[1], F_DOUBLE),
    FIELD(votecl_hist_params, max[0], F_DOUBLE),
    FIELD(votecl_hist_params, max[1], F_DOUBLE),
    FIELD(votecl_hist_params, weighted, F_INT),
    FIELD(votecl_hist_params, variant, F_INT),
    FIELD(votecl_hist_params, stretch, F_UINT),
    FIELD(votecl_hist_params, work_group_size, F_UINT),
};

static void
fuzz_hist(reader *r)
{
    votecl_hist_params p;
    votecl_hist_plan *plan = (votecl_hist_plan *)&plan;
    votecl_status status;
    uint64_t nbins;
    size_t n, frames, es;
    void *bins;

    votecl_hist_params_init(&p, (votecl_dtype)(1 + take8(r) % 4));
    if (take8(r) & 1)
        votecl_hist_params_set_2d(&p, take_u32(r), take_double(r), take_double(r), take_u32(r),
                                  take_double(r), take_double(r));
    mutate(r, &p, hist_fields, sizeof hist_fields / sizeof hist_fields[0]);
    status = votecl_hist_plan_new(ctx, &p, &plan);
    CHECK_NEW(status, plan);
    if (status != VOTECL_OK)
        return;
    nbins = votecl_hist_plan_nbins(plan);
    FUZZ_CHECK(nbins >= 1 && nbins <= VOTECL_HIST_MAX_BINS);
    es = votecl_dtype_size(p.dtype);
    n = take_size(r);
    frames = take8(r) < 200 ? 1 : take_size(r);
    bins = take_output(r, nbins * (frames < 4 ? frames : 4), 4);
    switch (take8(r) % 4) {
    case 0:
    case 1: {
        /* n elements per frame, frames frames, all from the pool */
        size_t total, bytes;
        int fits = !__builtin_mul_overflow(n, frames, &total) &&
                   !__builtin_mul_overflow(total, (size_t)p.channels * 4, &bytes) &&
                   bytes <= POOL && total <= WORK;
        if (n > UINT32_MAX && frames > 0) {
            status = votecl_hist_run_batch(plan, pool, pool, (const float *)pool, n, frames, bins);
            check_status(status);
            FUZZ_CHECK(status != VOTECL_OK);
        } else if (fits && bins != NULL && frames <= 4) {
            status =
                votecl_hist_run_batch(plan, pool, p.two_arrays ? pool : NULL,
                                      p.weighted ? (const float *)pool : NULL, n, frames, bins);
            check_status(status);
        }
        break;
    }
    case 2: {
        votecl_image v = take_view(r, p.dtype, p.channels, 1 + take8(r) % 64, take8(r) % 64);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) <= WORK && bins != NULL))
            check_view_call(&v, votecl_hist_run_image(plan, &v, bins));
        break;
    }
    case 3: {
        votecl_vote_plan_info info;
        check_status(votecl_hist_plan_describe(plan, take_size(r), take_size(r), &info));
        break;
    }
    }
    (void)es;
    free(bins);
    votecl_hist_plan_free(plan);
}

/* --- Hough --- */

static const field hough_fields[] = {
    FIELD(votecl_hough_params, angles, F_UINT),
    FIELD(votecl_hough_params, rho_bins, F_U32),
    FIELD(votecl_hough_params, edge_threshold, F_UINT),
    FIELD(votecl_hough_params, peak_window, F_UINT),
    FIELD(votecl_hough_params, peak_threshold, F_U32),
    FIELD(votecl_hough_params, max_lines, F_SIZE),
    FIELD(votecl_hough_params, variant, F_INT),
    FIELD(votecl_hough_params, stretch, F_UINT),
    FIELD(votecl_hough_params, work_group_size, F_UINT),
    FIELD(votecl_hough_params, segments, F_INT),
    FIELD(votecl_hough_params, min_length, F_U32),
    FIELD(votecl_hough_params, max_gap, F_U32),
    FIELD(votecl_hough_params, merge_distance, F_DOUBLE),
};

static void
fuzz_hough(reader *r)
{
    votecl_hough_params p;
    votecl_hough_plan *plan = (votecl_hough_plan *)&plan;
    size_t w = 1 + take8(r) % 64, h = 1 + take8(r) % 64;
    unsigned angles;
    uint32_t rho;
    votecl_status status;

    votecl_hough_params_init(&p);
    mutate(r, &p, hough_fields, sizeof hough_fields / sizeof hough_fields[0]);
    if (take8(r) > 200)
        w = take_size(r), h = take_size(r);
    status = votecl_hough_plan_new(ctx, &p, w, h, &plan);
    CHECK_NEW(status, plan);
    if (status != VOTECL_OK)
        return;
    votecl_hough_plan_shape(plan, &angles, &rho);
    FUZZ_CHECK(angles >= 1 && rho >= 1 && (uint64_t)angles * rho <= VOTECL_VOTE_MAX_BINS);
    (void)votecl_hough_plan_theta(plan, take_u32(r));
    (void)votecl_hough_plan_rho(plan, take_u32(r));
    size_t capacity = take_count(r, 64), found = 0;
    votecl_hough_line *lines = take_output(r, capacity, sizeof *lines);
    if (lines == NULL)
        capacity = 0;
    /* the peak search costs G N n^2: only affordable ones run */
    if ((uint64_t)angles * rho * p.peak_window * p.peak_window > 64 * (uint64_t)WORK) {
        free(lines);
        votecl_hough_plan_free(plan);
        return;
    }
    if (take8(r) & 1) {
        votecl_image v = take_view(r, VOTECL_DTYPE_U8, 1, w, h);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) * angles <= 4 * WORK)) {
            status = votecl_hough_run(plan, &v, lines, capacity, &found, NULL);
            check_view_call(&v, status);
        }
    } else if ((uint64_t)angles * rho * 4 <= POOL) {
        status = votecl_hough_plan_peaks(plan, (const uint32_t *)pool, lines, capacity, &found);
        check_status(status);
    }
    free(lines);
    votecl_hough_plan_free(plan);
}

/* --- sum and sub-sampling --- */

static void
fuzz_sum(reader *r)
{
    votecl_sum_params p;
    votecl_sum_plan *plan = (votecl_sum_plan *)&plan;
    votecl_status status;
    double sum = 0;

    votecl_sum_params_init(&p, (votecl_dtype)(take8(r) % 6));
    p.variant = (votecl_variant)(take8(r) % 5);
    status = votecl_sum_plan_new(ctx, &p, &plan);
    CHECK_NEW(status, plan);
    if (status != VOTECL_OK)
        return;
    if (take8(r) & 1) {
        size_t n = take_size(r);
        if (n <= POOL / 4 && n <= WORK)
            check_status(votecl_sum_run(plan, take8(r) == 0 ? NULL : pool, n, &sum));
        else if (n > POOL && take8(r) == 0) {
            status = votecl_sum_run(plan, NULL, n, &sum); /* NULL data: refused */
            check_status(status);
            FUZZ_CHECK(status != VOTECL_OK);
        }
    } else {
        votecl_image v =
            take_view(r, p.dtype, 1 + take8(r) % 4, 1 + take8(r) % 64, 1 + take8(r) % 64);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) * v.channels <= WORK))
            check_view_call(&v, votecl_sum_run_image(plan, &v, &sum));
    }
    votecl_sum_plan_free(plan);
}

static void
fuzz_subsample(reader *r)
{
    votecl_subsample_params p;
    votecl_subsample_plan *plan = (votecl_subsample_plan *)&plan;
    votecl_status status;
    size_t ow, oh, capacity;
    float *out;

    votecl_subsample_params_init(&p, take_size(r), take_size(r), take_u32(r),
                                 (votecl_dtype)(take8(r) % 6));
    p.variant = (votecl_variant)(take8(r) % 5);
    status = votecl_subsample_plan_new(ctx, &p, &plan);
    CHECK_NEW(status, plan);
    if (status != VOTECL_OK)
        return;
    votecl_subsample_plan_output_size(plan, &ow, &oh);
    FUZZ_CHECK(ow == p.width / p.factor && oh == p.height / p.factor);
    capacity = take8(r) < 128 ? ow * oh : take_size(r);
    out = take_output(r, capacity, sizeof *out);
    if (out == NULL)
        capacity = 0;
    votecl_image v = take_view(r, p.dtype, 1, p.width, p.height);
    view_kind k = classify(&v);
    if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) <= WORK))
        check_view_call(&v, votecl_subsample_run(plan, &v, out, capacity));
    free(out);
    votecl_subsample_plan_free(plan);
}

/* --- PClines --- */

static const field lines_fields[] = {
    FIELD(votecl_lines_params, distance, F_U32),
    FIELD(votecl_lines_params, rows, F_U32),
    FIELD(votecl_lines_params, neighbourhood, F_UINT),
    FIELD(votecl_lines_params, threshold, F_U32),
    FIELD(votecl_lines_params, radius, F_UINT),
    FIELD(votecl_lines_params, edge_threshold, F_UINT),
    FIELD(votecl_lines_params, max_lines, F_SIZE),
    FIELD(votecl_lines_params, work_group_size, F_UINT),
    FIELD(votecl_lines_params, orientation_kernel, F_UINT),
    FIELD(votecl_lines_params, min_length, F_U32),
    FIELD(votecl_lines_params, max_gap, F_U32),
    FIELD(votecl_lines_params, segments, F_INT),
    FIELD(votecl_lines_params, merge_distance, F_DOUBLE),
};

static void
fuzz_lines(reader *r)
{
    votecl_lines_params p;
    votecl_lines_plan *plan = (votecl_lines_plan *)&plan;
    size_t w = 1 + take8(r) % 64, h = 1 + take8(r) % 64, capacity, found = 0;
    uint32_t columns, rows;
    votecl_status status;
    votecl_lines_line *lines;

    votecl_lines_params_init(&p);
    mutate(r, &p, lines_fields, sizeof lines_fields / sizeof lines_fields[0]);
    if (take8(r) > 200)
        w = take_size(r), h = take_size(r);
    /* The TS space is allocated with the plan: valid but huge ones (up to 2^31 cells) are
     * not what is fuzzed; those past the limit must be refused. */
    if (w <= VOTECL_LINES_MAX_SIDE && h <= VOTECL_LINES_MAX_SIDE) {
        uint64_t big = w > h ? w : h;
        uint64_t d = p.distance != 0 ? p.distance : (big + 1) / 2;
        uint64_t cells = 2 * (d > p.neighbourhood || p.distance != 0 ? d : p.neighbourhood) *
                         (p.rows != 0 ? p.rows : big);
        if (cells > (1u << 24) && cells <= INT32_MAX)
            return;
    }
    status = votecl_lines_plan_new(ctx, &p, w, h, &plan);
    CHECK_NEW(status, plan);
    if (status != VOTECL_OK)
        return;
    votecl_lines_plan_shape(plan, &columns, &rows);
    capacity = take_count(r, 64);
    lines = take_output(r, capacity, sizeof *lines);
    if (lines == NULL)
        capacity = 0;
    switch (take8(r) % 3) {
    case 0: {
        votecl_image v = take_view(r, take8(r) & 1 ? VOTECL_DTYPE_F32 : VOTECL_DTYPE_U8, 1, w, h);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) * columns <= 4 * WORK))
            check_view_call(&v, votecl_lines_run(plan, &v, lines, capacity, &found));
        break;
    }
    case 1: {
        size_t n = take_count(r, 4096);
        if (n <= POOL / sizeof(votecl_lines_edge) && n * columns <= 4 * WORK)
            check_status(votecl_lines_run_edges(plan, (const votecl_lines_edge *)pool, n, lines,
                                                capacity, &found));
        break;
    }
    case 2: {
        size_t cap = take_size(r);
        uint32_t *space = take_output(r, cap, 4);
        check_status(votecl_lines_plan_read_space(plan, space, space != NULL ? cap : 0));
        free(space);
        break;
    }
    }
    free(lines);
    votecl_lines_plan_free(plan);
}

/* --- HOG --- */

static const field hog_fields[] = {
    FIELD(votecl_hog_params, window_width, F_UINT),
    FIELD(votecl_hog_params, window_height, F_UINT),
    FIELD(votecl_hog_params, block_width, F_UINT),
    FIELD(votecl_hog_params, block_height, F_UINT),
    FIELD(votecl_hog_params, block_stride_x, F_UINT),
    FIELD(votecl_hog_params, block_stride_y, F_UINT),
    FIELD(votecl_hog_params, cell_width, F_UINT),
    FIELD(votecl_hog_params, cell_height, F_UINT),
    FIELD(votecl_hog_params, nbins, F_UINT),
    FIELD(votecl_hog_params, window_stride_x, F_UINT),
    FIELD(votecl_hog_params, window_stride_y, F_UINT),
    FIELD(votecl_hog_params, padding_x, F_UINT),
    FIELD(votecl_hog_params, padding_y, F_UINT),
    FIELD(votecl_hog_params, gamma, F_INT),
    FIELD(votecl_hog_params, colour, F_INT),
    FIELD(votecl_hog_params, l2hys_threshold, F_FLOAT),
    FIELD(votecl_hog_params, scale, F_DOUBLE),
    FIELD(votecl_hog_params, min_scale, F_DOUBLE),
    FIELD(votecl_hog_params, max_scale, F_DOUBLE),
    FIELD(votecl_hog_params, max_levels, F_UINT),
    FIELD(votecl_hog_params, hit_threshold, F_DOUBLE),
    FIELD(votecl_hog_params, fusion, F_INT),
    FIELD(votecl_hog_params, group_threshold, F_UINT),
    FIELD(votecl_hog_params, meanshift_sigma_x, F_DOUBLE),
    FIELD(votecl_hog_params, meanshift_sigma_y, F_DOUBLE),
    FIELD(votecl_hog_params, meanshift_sigma_scale, F_DOUBLE),
};

/* A small geometry most of the time, so that runs stay cheap. */
static void
small_hog(votecl_hog_params *p)
{
    p->window_width = 16;
    p->window_height = 32;
    p->block_width = p->block_height = 8;
    p->block_stride_x = p->block_stride_y = 4;
    p->cell_width = p->cell_height = 4;
    p->window_stride_x = p->window_stride_y = 4;
}

static void
fuzz_hog(reader *r)
{
    votecl_hog_params p;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = (votecl_hog *)&hog;
    votecl_status status;
    size_t length = 0, w, h, capacity, found = 0, count = 0;

    votecl_hog_params_init(&p);
    if (take8(r) < 200)
        small_hog(&p);
    mutate(r, &p, hog_fields, sizeof hog_fields / sizeof hog_fields[0]);
    status = votecl_hog_descriptor_length(&p, &length);
    FUZZ_CHECK(votecl_status_name(status) != NULL);
    if (status == VOTECL_OK && take8(r) < 200) {
        size_t n = take8(r) < 200 ? length : take_size(r);
        if (n <= POOL / 4) {
            model = (votecl_hog_model *)&model;
            status = votecl_hog_model_new(ctx, &p, (const float *)pool, n, take_float(r), &model);
            CHECK_NEW(status, model);
        }
    }
    status = votecl_hog_new(ctx, &p, model, &hog);
    CHECK_NEW(status, hog);
    votecl_hog_model_free(model);
    if (status != VOTECL_OK)
        return;
    w = take_size(r), h = take_size(r);
    check_status(votecl_hog_windows(hog, w, h, NULL, NULL));
    capacity = take_count(r, 1 << 16);
    votecl_image v =
        take_view(r, VOTECL_DTYPE_U8, take8(r) & 1 ? 1 : 3, 16 + take8(r) % 48, 32 + take8(r) % 48);
    view_kind k = classify(&v);
    int run = k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) <= WORK / 16);
    switch (take8(r) % 4) {
    case 0: {
        float *d = take_output(r, capacity, sizeof(float));
        if (run)
            check_view_call(&v, votecl_hog_compute(hog, &v, d, d != NULL ? capacity : 0, &count));
        free(d);
        break;
    }
    case 1: {
        votecl_hog_detection *det = take_output(r, capacity % 64, sizeof *det);
        size_t nrois = take8(r) % 4;
        votecl_hog_rect rois[4];
        for (size_t i = 0; i < nrois; i++) {
            rois[i].x = (int32_t)take(r, 4);
            rois[i].y = (int32_t)take(r, 4);
            rois[i].width = (int32_t)take(r, 4);
            rois[i].height = (int32_t)take(r, 4);
            if (take8(r) & 1) {
                rois[i].x %= 64, rois[i].y %= 64;
                rois[i].width %= 80, rois[i].height %= 80;
            }
        }
        /* fusion costs n^2 in the windows (documented): at most about 2000 of them here;
         * levels below scale 1 enlarge the image by 1 / min_scale a side */
        double side = p.min_scale < 1 ? 1 / p.min_scale : 1;
        double stride = p.window_stride_x < p.window_stride_y ? p.window_stride_x
                                                              : p.window_stride_y;
        double windows = ((double)v.width * side / (stride > 0 ? stride : 1) + 1) *
                         ((double)v.height * side / (stride > 0 ? stride : 1) + 1) *
                         (p.max_levels < 64 ? p.max_levels : 64) * (nrois + 1);
        if (p.fusion != VOTECL_HOG_FUSION_NONE && !(windows <= 2000))
            run = k == VIEW_BAD;
        votecl__clear_error(ctx);
        if (run)
            check_view_call(&v, votecl_hog_detect(hog, &v, nrois ? rois : NULL, nrois, det,
                                                  det != NULL ? capacity % 64 : 0, &found));
        free(det);
        break;
    }
    case 2: {
        size_t n = take_count(r, 256);
        votecl_hog_detection *det = take_output(r, capacity % 64, sizeof *det);
        if (n <= 512) /* fusion costs n^2 (mean-shift: 100 n^2 steps) */
            FUZZ_CHECK(votecl_status_name(votecl_hog_fuse(&p, (const votecl_hog_detection *)pool, n,
                                                          det, det != NULL ? capacity % 64 : 0,
                                                          &found)) != NULL);
        free(det);
        break;
    }
    case 3: {
        size_t n = take_count(r, 16);
        float *d = take_output(r, capacity, sizeof(float));
        if (run && n <= 16 && n <= POOL / sizeof(votecl_hog_point))
            check_view_call(&v, votecl_hog_compute_at(ctx, &p, &v,
                                                      (const votecl_hog_point *)(pool + POOL / 2),
                                                      n, d, d != NULL ? capacity : 0));
        free(d);
        break;
    }
    }
    votecl_hog_free(hog);
}

/* --- generalized Hough --- */

static const field ght_fields[] = {
    FIELD(votecl_ght_params, method, F_INT),
    FIELD(votecl_ght_params, levels, F_UINT),
    FIELD(votecl_ght_params, canny_low, F_UINT),
    FIELD(votecl_ght_params, canny_high, F_UINT),
    FIELD(votecl_ght_params, min_angle, F_DOUBLE),
    FIELD(votecl_ght_params, max_angle, F_DOUBLE),
    FIELD(votecl_ght_params, angle_step, F_DOUBLE),
    FIELD(votecl_ght_params, min_scale, F_DOUBLE),
    FIELD(votecl_ght_params, max_scale, F_DOUBLE),
    FIELD(votecl_ght_params, scale_step, F_DOUBLE),
    FIELD(votecl_ght_params, dp, F_UINT),
    FIELD(votecl_ght_params, min_dist, F_DOUBLE),
    FIELD(votecl_ght_params, max_detections, F_SIZE),
    FIELD(votecl_ght_params, min_confidence, F_DOUBLE),
    FIELD(votecl_ght_params, angle_share, F_DOUBLE),
    FIELD(votecl_ght_params, xi, F_DOUBLE),
    FIELD(votecl_ght_params, angle_epsilon, F_UINT),
    FIELD(votecl_ght_params, angle_threshold, F_U32),
    FIELD(votecl_ght_params, scale_threshold, F_U32),
    FIELD(votecl_ght_params, position_threshold, F_U32),
    FIELD(votecl_ght_params, max_rotations, F_UINT),
    FIELD(votecl_ght_params, max_scales, F_UINT),
    FIELD(votecl_ght_params, pairing, F_INT),
    FIELD(votecl_ght_params, replication, F_UINT),
    FIELD(votecl_ght_params, global_replication, F_UINT),
    FIELD(votecl_ght_params, votes_threshold, F_U32),
    FIELD(votecl_ght_params, votes_ratio, F_DOUBLE),
};

/* Edges from the pool: n of them with coordinates wrapped into w x h most of the time. */
static votecl_ght_edge *
take_edges(reader *r, size_t n, size_t w, size_t h)
{
    votecl_ght_edge *e = (votecl_ght_edge *)(pool + POOL / 2);
    int wrap = take8(r) < 230;

    if (n > POOL / 2 / sizeof *e)
        return NULL;
    for (size_t i = 0; i < n && wrap && w > 0 && h > 0; i++) {
        e[i].x %= (uint32_t)(w < UINT32_MAX ? w : UINT32_MAX);
        e[i].y %= (uint32_t)(h < UINT32_MAX ? h : UINT32_MAX);
        e[i].gx = e[i].gx % 2048;
        e[i].gy = e[i].gy % 2048;
    }
    return e;
}

static void
fuzz_ght(reader *r)
{
    votecl_ght_params p;
    votecl_ght_model *model = (votecl_ght_model *)&model;
    votecl_status status;
    size_t w = 1 + take8(r) % 48, h = 1 + take8(r) % 48, n, capacity, found = 0;

    votecl_ght_params_init(&p, take8(r) & 1 ? VOTECL_GHT_BALLARD : VOTECL_GHT_GUIL);
    /* a narrow search, so that detection stays cheap */
    p.angle_step = 30;
    p.scale_step = 0.5;
    mutate(r, &p, ght_fields, sizeof ght_fields / sizeof ght_fields[0]);
    /* Detection costs pairings x rotations and scales examined x the tolerance: valid but
     * large searches are validated, not run. */
    int cheap = p.max_rotations <= 4 && p.max_scales <= 4 && p.angle_epsilon <= 4 &&
                (p.max_angle - p.min_angle) / p.angle_step <= 400 &&
                (p.max_scale - p.min_scale) / p.scale_step <= 40;
    if (take8(r) & 1) {
        votecl_image v = take_view(r, VOTECL_DTYPE_U8, 1, w, h);
        view_kind k = classify(&v);
        if (k == VIEW_TOO_BIG || (k == VIEW_FITS && pixels_of(&v) > 4096))
            return;
        status = votecl_ght_model_new(ctx, &p, &v, &model);
        if (k == VIEW_BAD || v.data == NULL)
            FUZZ_CHECK(status != VOTECL_OK);
    } else {
        n = take_count(r, 512);
        if (n > 256)
            return;
        votecl_ght_edge *e = take_edges(r, n, w, h);
        status = votecl_ght_model_new_edges(ctx, &p, e, n, take8(r) > 240 ? take_size(r) : w, h,
                                            take_double(r), take_double(r), &model);
    }
    CHECK_NEW(status, model);
    if (status != VOTECL_OK)
        return;
    if (!cheap) {
        votecl_ght_model_free(model);
        return;
    }
    capacity = take_count(r, 16);
    votecl_ght_pose *poses = take_output(r, capacity, sizeof *poses);
    if (poses == NULL)
        capacity = 0;
    if (take8(r) & 1) {
        votecl_image v = take_view(r, VOTECL_DTYPE_U8, 1, 1 + take8(r) % 64, 1 + take8(r) % 64);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) <= 4096))
            check_view_call(&v, votecl_ght_detect(model, &v, poses, capacity, &found));
    } else {
        size_t iw = 1 + take8(r) % 64, ih = 1 + take8(r) % 64;
        n = take_count(r, 512);
        votecl_ght_edge *e = n <= 64 ? take_edges(r, n, iw, ih) : NULL; /* n^2 pairings */
        if (e != NULL)
            check_status(votecl_ght_detect_edges(model, e, n, iw, ih, poses, capacity, &found));
    }
    free(poses);
    votecl_ght_model_free(model);
}

/* --- the generic engine: never runs on 'ref', but validates first --- */

static void
fuzz_vote(reader *r)
{
    static const field fields[] = {
        FIELD(votecl_vote_spec, dtype, F_INT),
        FIELD(votecl_vote_spec, channels, F_UINT),
        FIELD(votecl_vote_spec, bin_type, F_INT),
        FIELD(votecl_vote_spec, spaces, F_UINT),
        FIELD(votecl_vote_spec, nbins, F_U32),
        FIELD(votecl_vote_spec, table_size, F_SIZE),
        FIELD(votecl_vote_spec, variant, F_INT),
        FIELD(votecl_vote_spec, stretch, F_UINT),
        FIELD(votecl_vote_spec, work_group_size, F_UINT),
    };
    votecl_vote_spec s;
    votecl_vote_plan *plan = (votecl_vote_plan *)&plan;
    char source[256];
    size_t len = take8(r);

    votecl_vote_spec_init(&s);
    mutate(r, &s, fields, sizeof fields / sizeof fields[0]);
    for (size_t i = 0; i < len; i++)
        source[i] = (char)take8(r);
    source[len] = '\0';
    if (take8(r) & 1)
        s.source = source;
    if (take8(r) & 1)
        s.table = (const float *)pool;
    if (s.table != NULL && s.table_size > POOL / 4)
        s.table_size = POOL / 4 + (take8(r) & 1); /* past the documented limit anyway */
    votecl_status status = votecl_vote_plan_new(ctx, &s, &plan);
    CHECK_NEW(status, plan);
    FUZZ_CHECK(status != VOTECL_OK); /* no OpenCL C on 'ref' */
    votecl_vote_plan_free(plan);
}

/* --- device buffers of the 'ref' backend (host memory): transfers outside are refused --- */

static void
fuzz_buffers(reader *r)
{
    size_t size = take_size(r), offset = take_size(r), count = take_size(r);
    votecl_buffer *a = (votecl_buffer *)&a, *b = NULL;
    votecl_status status;
    size_t end;

    if (size > POOL && size <= SIZE_MAX / 2)
        return; /* a real allocation of that size: not what is fuzzed */
    status = votecl_buffer_new(ctx, size, &a);
    CHECK_NEW(status, a);
    if (size == 0 || size > SIZE_MAX / 2)
        FUZZ_CHECK(status != VOTECL_OK);
    if (status != VOTECL_OK)
        return;
    FUZZ_CHECK(votecl_buffer_size(a) == size);
    int inside = !__builtin_add_overflow(offset, count, &end) && end <= size;
    switch (take8(r) % 3) {
    case 0:
        if (count <= POOL || !inside) {
            status = votecl_buffer_write(a, offset, pool, count);
            check_status(status);
            FUZZ_CHECK(inside || status != VOTECL_OK);
        }
        break;
    case 1:
        if (count <= POOL || !inside) {
            status = votecl_buffer_read(a, offset, pool, count);
            check_status(status);
            FUZZ_CHECK(inside || status != VOTECL_OK);
        }
        break;
    case 2:
        if (votecl_buffer_new(ctx, 1 + take8(r), &b) == VOTECL_OK) {
            size_t other = take_size(r), end2;
            int inside2 =
                !__builtin_add_overflow(other, count, &end2) && end2 <= votecl_buffer_size(b);
            status = votecl_buffer_copy(b, other, a, offset, count);
            check_status(status);
            FUZZ_CHECK((inside && inside2) || status != VOTECL_OK);
            votecl_buffer_free(b);
        }
        break;
    }
    votecl_buffer_free(a);
}

/* --- the execution-time model: pure functions of numbers --- */

static void
fuzz_model(reader *r)
{
    votecl_model_sample samples[16];
    votecl_model_params params;
    votecl_model model;
    size_t n = take8(r) % 17;
    double seconds;

    for (size_t i = 0; i < n; i++) {
        votecl_model_sample *s = &samples[i];
        memset(s, 0, sizeof *s);
        s->variant = (votecl_variant)(take8(r) % 5);
        s->location_based = take8(r) & 1;
        s->elements = take_double(r);
        s->eta = take_double(r);
        s->spaces = (unsigned)take_u32(r);
        s->nbins = take_size(r);
        s->stretch = (unsigned)take_u32(r);
        s->parts = (unsigned)take_u32(r);
        s->passes = (unsigned)take_u32(r);
        s->copies = (unsigned)take_u32(r);
        s->compute_units = (unsigned)take_u32(r);
        s->work_group_size = (unsigned)take_u32(r);
        s->serial = take8(r) & 1;
        s->seconds = take_double(r);
    }
    votecl_variant v = (votecl_variant)(take8(r) % 5);
    votecl_status status = votecl_model_fit(samples, n, v, &params);
    FUZZ_CHECK(votecl_status_name(status) != NULL);
    memset(&model, 0, sizeof model);
    if (status == VOTECL_OK && v >= VOTECL_VARIANT_LOCAL && v <= VOTECL_VARIANT_PRIVATE)
        model.strategy[v] = params;
    for (size_t i = 0; i < n; i++) {
        status = votecl_model_predict(&model, &samples[i], &seconds);
        FUZZ_CHECK(votecl_status_name(status) != NULL);
        if (status == VOTECL_OK)
            FUZZ_CHECK(!(seconds < 0));
    }
    (void)votecl_model_factor((unsigned)take_u32(r), (unsigned)take_u32(r), (unsigned)take_u32(r),
                              (unsigned)take_u32(r));
}

/* --- names and small helpers: any value --- */

static void
fuzz_names(reader *r)
{
    int v = (int)take(r, 4);

    FUZZ_CHECK(votecl_status_string((votecl_status)v) != NULL);
    (void)votecl_status_name((votecl_status)v);
    (void)votecl_variant_name((votecl_variant)v);
    (void)votecl_backend_name((votecl_backend)v);
    (void)votecl_backend_is_built((votecl_backend)v);
    (void)votecl_model_term_name((votecl_model_term)v);
    FUZZ_CHECK(votecl_dtype_size((votecl_dtype)v) <= 4);
    if (v != VOTECL_BACKEND_DEFAULT && v != VOTECL_BACKEND_OPENCL) {
        /* a context on any other backend value: ref, unavailable, or refused */
        votecl_context_options o;
        votecl_context *c = (votecl_context *)&c;
        char error[64];
        votecl_context_options_init(&o);
        o.backend = (votecl_backend)v;
        o.disable_disk_cache = 1;
        votecl_status status = votecl_context_new_with_error(&o, &c, error, sizeof error);
        FUZZ_CHECK((status == VOTECL_OK) == (c != NULL));
        FUZZ_CHECK(status == VOTECL_OK || error[0] != '\0');
        votecl_context_free(c);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static void (*const targets[])(reader *) = {fuzz_hist,    fuzz_hough, fuzz_sum,  fuzz_subsample,
                                                fuzz_lines,   fuzz_hog,   fuzz_ght,  fuzz_vote,
                                                fuzz_buffers, fuzz_model, fuzz_names};
    reader r = {data, size};

    if (ctx == NULL) {
        votecl_context_options o;
        votecl_context_options_init(&o);
        o.backend = VOTECL_BACKEND_REF;
        o.disable_disk_cache = 1;
        FUZZ_CHECK(votecl_context_new(&o, &ctx) == VOTECL_OK);
    }
    if (size == 0)
        return 0;
    /* The pool: the input repeated, so that pixels, weights and edges vary with it. */
    size_t filled = size < POOL ? size : POOL;
    memcpy(pool, data, filled);
    for (; filled < POOL; filled *= 2)
        memcpy(pool + filled, pool, filled < POOL - filled ? filled : POOL - filled);
    votecl__clear_error(ctx);
    targets[take8(&r) % (sizeof targets / sizeof targets[0])](&r);
    return 0;
}
