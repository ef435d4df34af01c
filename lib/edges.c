/* The edge step's host plan and public entry points: the host's row-by-row Canny, equal
 * edge for edge to votecl__canny_ref (lib/edges-ref.c), for CPU devices' detectors (the
 * GHT's, circles'); votecl_edges_canny() (on a GPU-shaped device lib/edges-device.c) and
 * votecl_edges_sobel(). */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "edges-private.h"

/* --- the host's Canny for CPU devices --- */

/* votecl__canny_ref's edges computed row by row: the Sobel sums of a row in blocks of
 * HOST_BLOCK pixels (fixed-length loops over restrict rows, which the compiler vectorises
 * at -O2), three rows of magnitudes in a ring, non-maximum suppression only where the
 * magnitude passes the low threshold (the same integer ratio tests, in 32 bits: |g| <= 1020
 * for u8 images). The same edges in the same order, with the same gradients. */
#define HOST_BLOCK 16u
/* Keeps GCC from unrolling a block's loop before the vectoriser sees it (a fixed count that
 * the vector width divides is what -O2's cheap vectorisation accepts). */
#if defined(__GNUC__) && !defined(__clang__)
#define VECTOR_LOOP _Pragma("GCC unroll 1")
#else
#define VECTOR_LOOP
#endif

/* A ridge pixel waiting for the hysteresis: its index and gradient. */
typedef struct host_cand {
    uint32_t i;
    int16_t gx, gy;
} host_cand;

struct votecl__canny_memo {
    int16_t *rows;   /* the current row's sums, gx and gy of two rows, three rows' magnitudes,
                        the blocks' flags */
    host_cand *cand; /* the hysteresis' candidates, raster order */
    uint32_t *stack; /* the hysteresis' stack */
    uint8_t *state;  /* the hysteresis' states (1 weak, 2 strong), zero between calls */
    votecl__edge *points;
    size_t rows_size, cand_size, stack_size, pixels_size, points_size; /* entries */
};

void
votecl__canny_memo_free(votecl__canny_memo *memo)
{
    if (memo == NULL)
        return;
    VOTECL__FREE_ALL(memo->rows, memo->cand, memo->state, memo->stack, memo->points, memo);
}

/* The vertical Sobel sums of a row: s = r0 + 2 r1 + r2 and d = r2 - r0, w entries. */
static void
host_sums(const uint8_t *restrict r0, const uint8_t *restrict r1, const uint8_t *restrict r2,
          int16_t *restrict s, int16_t *restrict d, uint32_t w)
{
    size_t x = 0;

    for (; x + HOST_BLOCK <= w; x += HOST_BLOCK) {
        VECTOR_LOOP
        for (size_t k = 0; k < HOST_BLOCK; k++) {
            s[x + k] = (int16_t)(r0[x + k] + 2 * r1[x + k] + r2[x + k]);
            d[x + k] = (int16_t)(r2[x + k] - r0[x + k]);
        }
    }
    for (; x < w; x++) {
        s[x] = (int16_t)(r0[x] + 2 * r1[x] + r2[x]);
        d[x] = (int16_t)(r2[x] - r0[x]);
    }
}

/* gx, gy and the L1 magnitude of pixels 1 .. w - 2 of a row from its sums (w >= 3); the
 * magnitudes of pixels 0 and w - 1 are 0, as the reference leaves them. */
static void
host_gradients(const int16_t *restrict s, const int16_t *restrict d, int16_t *restrict gx,
               int16_t *restrict gy, int16_t *restrict mag, uint32_t w)
{
    size_t x = 1;

    for (; x + HOST_BLOCK + 1 <= w; x += HOST_BLOCK) {
        VECTOR_LOOP
        for (size_t k = 0; k < HOST_BLOCK; k++) {
            int16_t a = (int16_t)(s[x + k + 1] - s[x + k - 1]);
            int16_t b = (int16_t)(d[x + k - 1] + 2 * d[x + k] + d[x + k + 1]);
            gx[x + k] = a;
            gy[x + k] = b;
            mag[x + k] = (int16_t)((a < 0 ? -a : a) + (b < 0 ? -b : b));
        }
    }
    for (; x + 1 < w; x++) {
        int16_t a = (int16_t)(s[x + 1] - s[x - 1]), b = (int16_t)(d[x - 1] + 2 * d[x] + d[x + 1]);
        gx[x] = a;
        gy[x] = b;
        mag[x] = (int16_t)((a < 0 ? -a : a) + (b < 0 ? -b : b));
    }
    mag[0] = 0;
    mag[w - 1] = 0;
}

/* Whether any of a row's magnitudes 1 .. w - 2 exceeds low, block by block into any (one
 * flag per block of HOST_BLOCK pixels from pixel 0). */
static void
host_any(const int16_t *restrict mag, int16_t low, uint8_t *restrict any, uint32_t w)
{
    size_t x = 0, blk = 0;

    for (; x + HOST_BLOCK <= w; x += HOST_BLOCK, blk++) {
        int16_t top = 0;
        VECTOR_LOOP
        for (size_t k = 0; k < HOST_BLOCK; k++)
            top = mag[x + k] > top ? mag[x + k] : top;
        any[blk] = top > low;
    }
    if (x < w) {
        int16_t top = 0;
        for (; x < w; x++)
            top = mag[x] > top ? mag[x] : top;
        any[blk] = top > low;
    }
}

/* is_ridge on the ring: mp, mc, mn the magnitudes of the rows above, at and below. */
static int
host_ridge(const int16_t *mp, const int16_t *mc, const int16_t *mn, uint32_t x, int32_t gx,
           int32_t gy)
{
    int32_t ax = gx < 0 ? -gx : gx, ay = gy < 0 ? -gy : gy, m = mc[x], a, b;

    if (ay * 100000 <= ax * 41421)
        a = mc[x - 1], b = mc[x + 1];
    else if (ay * 100000 >= ax * 241421)
        a = mp[x], b = mn[x];
    else if ((gx < 0) == (gy < 0))
        a = mp[x - 1], b = mn[x + 1];
    else
        a = mp[x + 1], b = mn[x - 1];
    return m > a && m >= b;
}

/* Room in the memo for a width x height image (width, height >= 3). */
static int
host_reserve(votecl__canny_memo *m, uint32_t width, uint32_t height, size_t stride, int hyst)
{
    size_t pixels = (size_t)width * height;

    if (votecl__grow((void **)&m->rows, &m->rows_size, 9 * stride + stride / HOST_BLOCK + 1,
                     sizeof *m->rows, 64) != 0)
        return -1;
    if (!hyst || pixels <= m->pixels_size)
        return 0;
    free(m->state); /* the map is kept all zero between calls: allocated zeroed */
    m->pixels_size = 0;
    if ((m->state = votecl__calloc(pixels, 1)) == NULL)
        return -1;
    m->pixels_size = pixels;
    return 0;
}

/* Appends the ridge pixels of row y (magnitudes mp, mc, mn; gradients gx, gy): as points
 * when every ridge is an edge (hyst 0), else as candidates with their states marked.
 * Returns -1 when out of memory. */
static int
host_row(votecl__canny_memo *m, uint32_t w, uint32_t y, const int16_t *mp, const int16_t *mc,
         const int16_t *mn, const int16_t *gx, const int16_t *gy, const uint8_t *any, int16_t low,
         int32_t high, int hyst, size_t *n)
{
    size_t need = *n + w;

    if (hyst ? votecl__grow((void **)&m->cand, &m->cand_size, need, sizeof *m->cand, 64)
             : votecl__grow((void **)&m->points, &m->points_size, need, sizeof *m->points, 64))
        return -1;
    for (uint32_t b = 0; b * HOST_BLOCK < w; b++) {
        uint32_t x = b == 0 ? 1 : b * HOST_BLOCK, end = (b + 1) * HOST_BLOCK;
        if (!any[b])
            continue;
        end = end < w - 1 ? end : w - 1;
        for (; x < end; x++) {
            if (mc[x] <= low || !host_ridge(mp, mc, mn, x, gx[x], gy[x]))
                continue;
            if (hyst) {
                host_cand *c = m->cand + (*n)++;
                c->i = y * w + x;
                c->gx = gx[x];
                c->gy = gy[x];
                m->state[c->i] = mc[x] > high ? 2 : 1;
            } else {
                votecl__edge *p = m->points + (*n)++;
                p->x = (int32_t)x;
                p->y = (int32_t)y;
                p->gx = gx[x];
                p->gy = gy[x];
            }
        }
    }
    return 0;
}

/* Strong candidates spread to 8-connected weak ones (the reference's ref_hysteresis: every
 * candidate is an interior pixel, so its neighbours are in the image), then the strong ones
 * become points in raster order and the map is cleared again. */
static int
host_hysteresis(votecl__canny_memo *m, uint32_t w, size_t nc, size_t *n)
{
    const host_cand *c = m->cand;
    uint8_t *state = m->state;
    size_t top = 0, count = 0;
    const ptrdiff_t step[8] = {-(ptrdiff_t)w - 1, -(ptrdiff_t)w, -(ptrdiff_t)w + 1, -1, 1,
                               (ptrdiff_t)w - 1,  (ptrdiff_t)w,  (ptrdiff_t)w + 1};

    if (votecl__grow((void **)&m->stack, &m->stack_size, nc, sizeof *m->stack, 64) != 0 ||
        votecl__grow((void **)&m->points, &m->points_size, nc, sizeof *m->points, 64) != 0) {
        for (size_t k = 0; k < nc; k++) /* the map stays zero */
            state[c[k].i] = 0;
        return -1;
    }
    for (size_t k = 0; k < nc; k++)
        if (state[c[k].i] == 2)
            m->stack[top++] = c[k].i;
    while (top > 0) {
        uint32_t i = m->stack[--top];
        for (int s = 0; s < 8; s++) {
            uint32_t j = (uint32_t)((ptrdiff_t)i + step[s]);
            if (state[j] == 1) {
                state[j] = 2;
                m->stack[top++] = j;
            }
        }
    }
    for (size_t k = 0; k < nc; k++) {
        if (state[c[k].i] == 2) {
            votecl__edge *p = m->points + count++;
            p->x = (int32_t)(c[k].i % w);
            p->y = (int32_t)(c[k].i / w);
            p->gx = c[k].gx;
            p->gy = c[k].gy;
        }
        state[c[k].i] = 0;
    }
    *n = count;
    return 0;
}

size_t
votecl__canny_host(const uint8_t *data, uint32_t width, uint32_t height, unsigned low,
                   unsigned high, votecl__canny_memo **memo, const votecl__edge **out)
{
    votecl__canny_memo *m = *memo;
    size_t stride = votecl__round_up(width, HOST_BLOCK), n = 0;
    int32_t lo = (int32_t)low; /* signed, as the reference compares */
    int16_t lo16 = (int16_t)(lo < -1 ? -1 : lo > 2040 ? 2040 : lo); /* |gx| + |gy| <= 2040 */
    int hyst = low < high;
    int16_t *s, *d, *g[4], *mag[3];
    uint8_t *any;

    if (m == NULL && (m = *memo = votecl__calloc(1, sizeof *m)) == NULL)
        return (size_t)-1;
    *out = m->points;
    if (width < 3 || height < 3) /* no interior pixel */
        return 0;
    if (host_reserve(m, width, height, stride, hyst) != 0)
        return (size_t)-1;
    s = m->rows;
    d = s + stride;
    for (int k = 0; k < 4; k++)
        g[k] = d + (k + 1) * stride; /* gx, gy of rows y % 2 */
    for (int k = 0; k < 3; k++)
        mag[k] = s + (k + 6) * stride; /* magnitudes of rows y % 3 */
    any = (uint8_t *)(s + 9 * stride);
    memset(mag[0], 0, width * sizeof *mag[0]); /* row 0 */
    for (uint32_t y = 1; y <= height - 1; y++) {
        int16_t *mc = mag[y % 3];
        if (y + 1 < height) {
            const uint8_t *r = data + (size_t)(y - 1) * width;
            host_sums(r, r + width, r + 2 * (size_t)width, s, d, width);
            host_gradients(s, d, g[2 * (y % 2)], g[2 * (y % 2) + 1], mc, width);
        } else
            memset(mc, 0, width * sizeof *mc); /* row h - 1 */
        if (y < 2)
            continue;
        /* row y - 1 between rows y - 2 and y */
        host_any(mag[(y - 1) % 3], lo16, any, width);
        if (host_row(m, width, y - 1, mag[(y - 2) % 3], mag[(y - 1) % 3], mc, g[2 * ((y - 1) % 2)],
                     g[2 * ((y - 1) % 2) + 1], any, lo16, (int32_t)high, hyst, &n) != 0) {
            for (size_t k = 0; hyst && k < n; k++) /* the map stays zero */
                m->state[m->cand[k].i] = 0;
            return (size_t)-1;
        }
    }
    if (hyst && host_hysteresis(m, width, n, &n) != 0)
        return (size_t)-1;
    *out = m->points;
    return n;
}

/* --- the public step (include/votecl/votecl-edges.h) --- */

void
votecl_canny_params_init(votecl_canny_params *params)
{
    VOTECL__PARAMS_INIT_OR_RETURN(params);
    params->threshold1 = 50;
    params->threshold2 = 150;
    params->aperture_size = 3;
}

votecl_status
votecl__edges_begin(votecl_context *context, const votecl_image *image, const void *out,
                    const char *name, size_t out_stride, const void **data, void **copy)
{
    size_t row_bytes, pixels;
    votecl_status status =
        votecl__image_check(context, image, VOTECL_DTYPE_U8, 1, &row_bytes, &pixels);

    *copy = NULL;
    if (status != VOTECL_OK)
        return status;
    if (image->width > VOTECL_EDGES_MAX_SIDE || image->height > VOTECL_EDGES_MAX_SIDE)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "image.width, image.height: %zu x %zu: at most %u a side", image->width,
                            image->height, (unsigned)VOTECL_EDGES_MAX_SIDE);
    if (out == NULL && pixels > 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer", name);
    if (image->height > 1 && out_stride < image->width)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "%s_stride: %zu is less than a row (%zu elements)", name, out_stride,
                            image->width);
    *data = NULL;
    if (pixels == 0) /* nothing to read or write */
        return VOTECL_OK;
    return votecl__image_packed(context, image, row_bytes, data, copy);
}

static votecl_status
check_canny(votecl_context *context, const votecl_canny_params *p)
{
    votecl_status status;

    if (p == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "params: NULL pointer");
    if ((status = votecl__struct_size_check(context, p, "params", sizeof *p)) != VOTECL_OK)
        return status;
    if (p->aperture_size != 3 && p->aperture_size != 5 && p->aperture_size != 7)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "params.aperture_size: %u is not 3, 5 or 7", p->aperture_size);
    if (isnan(p->threshold1) || isnan(p->threshold2))
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "params.threshold1, params.threshold2: NaN");
    return VOTECL_OK;
}

/* cv2.Canny's integer threshold: divided by 16 for aperture 7 (its derivatives are, see
 * votecl__canny_opencv_ref), squared (at most 32767 first) for the L2 gradient, floored;
 * clamped where no magnitude reaches (2^40 is above any of its magnitudes). */
static int64_t
canny_threshold(double t, unsigned aperture, int l2)
{
    if (aperture == 7)
        t /= 16;
    if (l2) {
        t = t < 32767.0 ? t : 32767.0;
        t = t > 0 ? t * t : t;
    }
    t = floor(t);
    return t < -1.0 ? -1 : t > 1099511627776.0 ? (int64_t)1 << 40 : (int64_t)t;
}

/* The edges into map (W * H bytes): on a GPU-shaped device by its kernels, else by the
 * reference (the 'ref' backend; on a CPU-shaped device the sequential pass over the image is
 * the faster, as for the detectors' Canny). The same edges either way. */
static votecl_status
canny_map(votecl_context *context, const votecl_image *image, const void *data,
          const votecl_canny_params *p, uint8_t *map)
{
    double lo = p->threshold1 < p->threshold2 ? p->threshold1 : p->threshold2;
    double hi = p->threshold1 < p->threshold2 ? p->threshold2 : p->threshold1;
    int64_t low = canny_threshold(lo, p->aperture_size, p->l2_gradient);
    int64_t high = canny_threshold(hi, p->aperture_size, p->l2_gradient);
    uint32_t w = (uint32_t)image->width, h = (uint32_t)image->height;

    if (w == 0 || h == 0)
        return VOTECL_OK;
    if (context->backend != VOTECL_BACKEND_REF && !context->shape.cpu)
        return votecl__canny_device(context, data, w, h, low, high, p->aperture_size,
                                    p->l2_gradient, map);
    if (votecl__canny_opencv_ref(data, w, h, low, high, p->aperture_size, p->l2_gradient, map) != 0)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for the edges of a %u x %u image", w, h);
    return VOTECL_OK;
}

/* A packed scratch of the image's width x height (+ 1) entries of size bytes, or NULL with
 * the failure recorded (what: what it holds). */
static void *
image_scratch(votecl_context *context, const votecl_image *image, size_t size, const char *what)
{
    void *p = votecl__malloc((image->width * image->height + 1) * size);

    if (p == NULL)
        votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY,
                     "out of memory for the %s of a %zu x %zu image", what, image->width,
                     image->height);
    return p;
}

/* height packed rows of row_bytes from map into out, stride bytes apart; nothing for empty
 * rows (out may then be NULL: no pointer arithmetic on it). */
static void
rows_out(void *out, size_t stride, const void *map, size_t row_bytes, size_t height)
{
    for (size_t y = 0; row_bytes > 0 && y < height; y++)
        memcpy((uint8_t *)out + y * stride, (const uint8_t *)map + y * row_bytes, row_bytes);
}

votecl_status
votecl_edges_canny(votecl_context *context, const votecl_image *image,
                   const votecl_canny_params *params, uint8_t *edges, size_t edges_stride)
{
    const void *data;
    void *copy;
    uint8_t *map = NULL;
    votecl_status status;

    VOTECL__ENTER_CONTEXT_OR_RETURN(context);
    if ((status = check_canny(context, params)) != VOTECL_OK ||
        (status = votecl__edges_begin(context, image, edges, "edges", edges_stride, &data,
                                      &copy)) != VOTECL_OK)
        return status;
    map = image_scratch(context, image, 1, "edges");
    status = map != NULL ? canny_map(context, image, data, params, map) : VOTECL_OUT_OF_HOST_MEMORY;
    if (status == VOTECL_OK)
        rows_out(edges, edges_stride, map, image->width, image->height);
    free(map);
    free(copy);
    return status;
}

votecl_status
votecl_edges_sobel(votecl_context *context, const votecl_image *image, unsigned dx, unsigned dy,
                   unsigned ksize, int32_t *out, size_t out_stride)
{
    const void *data;
    void *copy;
    int32_t *g = NULL;
    votecl_status status;

    VOTECL__ENTER_CONTEXT_OR_RETURN(context);
    if (dx > 1 || dy > 1 || dx + dy == 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "dx, dy: %u and %u: want 0 or 1 each, not both 0", dx, dy);
    if (ksize != 3 && ksize != 5 && ksize != 7)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "ksize: %u is not 3, 5 or 7", ksize);
    if ((status = votecl__edges_begin(context, image, out, "out", out_stride, &data, &copy)) !=
        VOTECL_OK)
        return status;
    if ((g = image_scratch(context, image, sizeof *g, "gradient")) == NULL)
        status = VOTECL_OUT_OF_HOST_MEMORY;
    else {
        votecl__sobel_ref(data, (uint32_t)image->width, (uint32_t)image->height, dx, dy, ksize, g);
        rows_out(out, out_stride * sizeof *g, g, image->width * sizeof *g, image->height);
    }
    free(g);
    free(copy);
    return status;
}
