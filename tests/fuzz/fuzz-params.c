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
 * constructor).
 *
 * Each algorithm's entry points are decoded in its own file, tests/fuzz/params-<algo>.c,
 * with the helpers of tests/fuzz/params.h; this file holds the helpers, the library's own
 * entry points (buffers, the model, names) and the list of targets. */
#include "votecl-private.h"

#include "fuzz.h"
#include "params.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

votecl_context *ctx;
unsigned char pool[POOL] __attribute__((aligned(64)));

/* --- decoding --- */

uint64_t
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

unsigned
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
uint64_t
take_count(reader *r, uint64_t max_raw)
{
    unsigned sel = take8(r);
    if (sel < 128)
        return take(r, 1) % 65;
    if (sel < 128 + NBOUNDARIES)
        return boundaries[sel - 128];
    return take(r, 8) % (max_raw + 1 > 0 ? max_raw + 1 : UINT64_MAX);
}

size_t
take_size(reader *r)
{
    return (size_t)take_count(r, UINT64_MAX - 1);
}

uint32_t
take_u32(reader *r)
{
    return (uint32_t)take_count(r, UINT32_MAX);
}

double
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

float
take_float(reader *r)
{
    return (float)take_double(r);
}

/* One case of mutate's switch: a value of C type ctype decoded by take, written at p. */
#define MUTATE_AS(ftype, ctype, take)                                                              \
    case ftype: {                                                                                  \
        ctype v = (ctype)(take);                                                                   \
        memcpy(p, &v, sizeof v);                                                                   \
        break;                                                                                     \
    }

static int
take_int(reader *r)
{
    static const int table[] = {0, 1, 2, 3, 4, 5, -1, INT_MIN, INT_MAX, 77};
    return table[take8(r) % 10];
}

void
mutate(reader *r, void *base, const fields *table)
{
    unsigned count = take8(r) % 5;

    for (unsigned i = 0; i < count; i++) {
        const field *f = &table->list[take8(r) % table->n];
        char *p = (char *)base + f->offset;
        switch (f->type) {
            MUTATE_AS(F_UINT, unsigned, take_u32(r))
            MUTATE_AS(F_U32, uint32_t, take_u32(r))
            MUTATE_AS(F_SIZE, size_t, take_size(r))
            MUTATE_AS(F_U64, uint64_t, take_count(r, UINT64_MAX - 1))
            MUTATE_AS(F_DOUBLE, double, take_double(r))
            MUTATE_AS(F_FLOAT, float, take_float(r))
            MUTATE_AS(F_INT, int, take_int(r))
        }
    }
}

/* --- checks --- */

void
check_status(votecl_status status)
{
    FUZZ_CHECK(votecl_status_name(status) != NULL);
    if (status != VOTECL_OK)
        FUZZ_CHECK(votecl_context_get_error(ctx)[0] != '\0');
    votecl__clear_error(ctx); /* so that the next failure must write its own message */
}

/* --- image views --- */

view_kind
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
votecl_image
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
void
check_view_call(const votecl_image *v, votecl_status status)
{
    check_status(status);
    if (classify(v) == VIEW_BAD || (v->data == NULL && v->width * v->height > 0))
        FUZZ_CHECK(status != VOTECL_OK);
}

size_t
pixels_of(const votecl_image *v)
{
    return v->width * v->height;
}

/* An output array of count elements of size bytes, NULL for 0 (or sometimes anyway). */
void *
take_output(reader *r, size_t count, size_t size)
{
    if (count == 0 || count > (16u << 20) / size)
        return NULL;
    return calloc(count, size);
}

void *
take_items(reader *r, size_t *capacity, size_t size)
{
    void *items = take_output(r, *capacity, size);

    if (items == NULL)
        *capacity = 0;
    return items;
}

void
take_any_sides(reader *r, size_t *width, size_t *height)
{
    if (take8(r) > 200)
        *width = take_size(r), *height = take_size(r);
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
    unsigned sel = take8(r) % 3;
    switch (sel) {
    case 0:
    case 1:
        if (count <= POOL || !inside) {
            status = sel == 0 ? votecl_buffer_write(a, offset, pool, count)
                              : votecl_buffer_read(a, offset, pool, count);
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
    /* The algorithms' targets, each in tests/fuzz/params-<algo>.c, then the library's own; the
     * first byte of an input picks one, so the committed corpus keeps this order. */
    static void (*const targets[])(reader *) = {
        fuzz_hist, fuzz_hough,   fuzz_sum,   fuzz_subsample, fuzz_lines,   fuzz_hog,  fuzz_ght,
        fuzz_vote, fuzz_buffers, fuzz_model, fuzz_names,     fuzz_circles, fuzz_canny};
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
