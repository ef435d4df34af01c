/* PClines, sequential: Algorithm 1 of the paper in integer arithmetic, the maxima of the
 * n x n neighbourhood around the strip's ends, and the conversion of cells into lines. This
 * is the specification cl/pclines.cl follows and the test oracle; also the 'ref' backend. */
#include "votecl-private.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "edges-private.h"
#include "parallel.h"
#include "pclines-private.h"
#include "segment-private.h"

void
votecl__pclines_desc_init(votecl__pclines_desc *desc, const votecl_lines_params *p, uint32_t width,
                          uint32_t height)
{
    uint32_t big = width > height ? width : height, small = width < height ? width : height;

    memset(desc, 0, sizeof *desc);
    desc->width = width;
    desc->height = height;
    desc->half = p->neighbourhood / 2;
    desc->d = p->distance != 0 ? p->distance : (big + 1) / 2;
    if (p->distance == 0 && desc->d < p->neighbourhood)
        desc->d = p->neighbourhood;
    desc->rows = p->rows != 0 ? p->rows : big;
    desc->m = big - 1;
    desc->k = ((uint64_t)desc->rows << 32) / ((uint64_t)(2 * desc->m + 1) * desc->d);
    desc->threshold = p->threshold != 0 ? p->threshold : (small / 4 > 2 ? small / 4 : 2);
    desc->radius = p->radius;
    desc->kernel = p->orientation_kernel;
    if (p->radius == VOTECL_LINES_RADIUS_AUTO)
        desc->radius = 3 * desc->d / 20 > 2 ? 3 * desc->d / 20 : 2;
    if (desc->radius != 0 && 2 * (uint64_t)desc->radius + 1 >= 2 * (uint64_t)desc->d)
        desc->radius = 0; /* the window covers every column */
    /* Gradients are at most 2^20 a side, so thresholds above 2^22 all find no edge; the
     * clamp keeps the square within int64_t. */
    desc->edge_t2 = (int64_t)(p->edge_threshold < (1u << 22) ? p->edge_threshold : 1u << 22) *
                    (p->edge_threshold < (1u << 22) ? p->edge_threshold : 1u << 22);
}

/* Eq. 4 on doubled, centred coordinates: ((X + M) d + s u) K >> 32. */
uint32_t
votecl__pclines_row(const votecl__pclines_desc *desc, uint32_t px, uint32_t py, uint32_t c)
{
    int64_t x = 2 * (int64_t)px - (desc->width - 1), y = 2 * (int64_t)py - (desc->height - 1);
    int64_t u = (int64_t)c - desc->d;
    int64_t slope = u >= 0 ? y - x : x + y;
    int64_t num = (x + desc->m) * desc->d + slope * u;

    return (uint32_t)(((uint64_t)num * desc->k) >> 32);
}

/* Eq. 9, rounded half up: u = floor((2 d Gy + den) / (2 den)) with den > 0. */
uint32_t
votecl__pclines_key(const votecl__pclines_desc *desc, int32_t gx, int32_t gy)
{
    int64_t s = (gx >= 0) == (gy >= 0) ? 1 : -1;
    int64_t den = (int64_t)gx + s * gy, num = (int64_t)desc->d * gy, q, two_d = 2 * desc->d;

    if (den == 0)
        return desc->d; /* no gradient: u = 0 */
    if (den < 0) {
        den = -den;
        num = -num;
    }
    num = 2 * num + den;
    q = num / (2 * den);
    if (num < 0 && q * 2 * den != num)
        q--;
    return (uint32_t)(((q + desc->d) % two_d + two_d) % two_d);
}

/* du/dphi = d / (|cos phi| + |sin phi|)^2 = d (a^2 + b^2) / d^2 with a = |u|, b = d - |u|: a
 * column spans twice the angle at the diagonals that it spans at the axes, so a window of
 * one angle is r (a^2 + b^2) / d^2 columns, rounded, at least 1. */
uint32_t
votecl__pclines_radius_at(const votecl__pclines_desc *desc, uint32_t c)
{
    uint64_t d = desc->d, a = c >= d ? c - d : d - c, b = d - a;
    uint64_t r = (desc->radius * (a * a + b * b) + d * d / 2) / (d * d);

    return r > 0 ? (uint32_t)r : 1;
}

int
votecl__pclines_in_window(const votecl__pclines_desc *desc, uint32_t key, uint32_t c)
{
    uint32_t two_d = 2 * desc->d, delta, r;

    if (desc->radius == 0)
        return 1;
    r = votecl__pclines_radius_at(desc, c % two_d);
    delta = (c % two_d + two_d - key) % two_d;
    return delta <= r || two_d - delta <= r;
}

static int32_t
to_int_gradient(float g)
{
    g = isnan(g) ? 0.0f : g * 255.0f;
    g = g < -1048576.0f ? -1048576.0f : g > 1048576.0f ? 1048576.0f : g;
    return (int32_t)rintf(g);
}

void
votecl__pclines_sobel(const void *data, votecl_dtype dtype, uint32_t width, uint32_t x, uint32_t y,
                      int32_t *gx, int32_t *gy)
{
    size_t w = width;

    if (dtype == VOTECL_DTYPE_U8) {
        votecl__sobel3((const uint8_t *)data + (size_t)y * w + x, w, gx, gy);
        return;
    }
    const float *r1 = (const float *)data + (size_t)y * w, *r0 = r1 - w, *r2 = r1 + w;
    *gx = to_int_gradient(VOTECL__SOBEL3_GX(r0, r1, r2, x));
    *gy = to_int_gradient(VOTECL__SOBEL3_GY(r0, r1, r2, x));
}

void
votecl__pclines_gray(const uint8_t *colour, unsigned channels, size_t pixels, uint8_t *gray)
{
    for (size_t i = 0; i < pixels; i++)
        gray[i] = votecl__pclines_gray_of(colour + i * channels);
}

static uint32_t
clamp_coord(int64_t v, uint32_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : (uint32_t)v;
}

void
votecl__pclines_orientation(const votecl__pclines_desc *desc, const void *data, votecl_dtype dtype,
                            uint32_t x, uint32_t y, int32_t *gx, int32_t *gy)
{
    int k = (int)desc->kernel / 2 - 1, h = (int)desc->kernel / 2;
    const uint8_t *p = data;
    const float *f = data;
    int32_t ix = 0, iy = 0;
    float fx = 0.0f, fy = 0.0f;

    if (desc->kernel == 3) {
        votecl__pclines_sobel(data, dtype, desc->width, x, y, gx, gy);
        return;
    }
    /* Row by row, left to right, the same order as the kernel (float sums are rounded). */
    for (int dy = -h; dy <= h; dy++) {
        size_t row = (size_t)clamp_coord((int64_t)y + dy, desc->height) * desc->width;
        for (int dx = -h; dx <= h; dx++) {
            size_t at = row + clamp_coord((int64_t)x + dx, desc->width);
            int32_t cx = votecl__sobel_deriv[k][3 + dx] * votecl__sobel_smooth[k][3 + dy];
            int32_t cy = votecl__sobel_smooth[k][3 + dx] * votecl__sobel_deriv[k][3 + dy];
            if (dtype == VOTECL_DTYPE_U8) {
                ix += cx * p[at];
                iy += cy * p[at];
            } else {
                fx += (float)cx * f[at];
                fy += (float)cy * f[at];
            }
        }
    }
    if (dtype == VOTECL_DTYPE_U8) {
        *gx = ix;
        *gy = iy;
        return;
    }
    *gx = to_int_gradient(fx);
    *gy = to_int_gradient(fy);
}

size_t
votecl__pclines_ref_edges(const votecl__pclines_desc *desc, const void *data, votecl_dtype dtype,
                          votecl__pclines_point *points)
{
    size_t n = 0;
    int32_t gx, gy;

    for (uint32_t y = 1; y + 1 < desc->height; y++)
        for (uint32_t x = 1; x + 1 < desc->width; x++) {
            votecl__pclines_sobel(data, dtype, desc->width, x, y, &gx, &gy);
            if ((int64_t)gx * gx + (int64_t)gy * gy < desc->edge_t2)
                continue;
            if (desc->radius != 0)
                votecl__pclines_orientation(desc, data, dtype, x, y, &gx, &gy);
            points[n].location = x | y << 16;
            points[n++].key = votecl__pclines_key(desc, gx, gy);
        }
    return n;
}

void
votecl__pclines_ref_accumulate(const votecl__pclines_desc *desc,
                               const votecl__pclines_point *points, size_t n, uint32_t *space)
{
    uint32_t columns = 2 * desc->d;

    memset(space, 0, (size_t)columns * desc->rows * sizeof *space);
    for (size_t i = 0; i < n; i++) {
        uint32_t x = points[i].location & 0xffffu, y = points[i].location >> 16;
        for (uint32_t c = 0; c < columns; c++)
            if (votecl__pclines_in_window(desc, points[i].key, c))
                space[(size_t)c * desc->rows + votecl__pclines_row(desc, x, y, c)]++;
    }
}

/* The cell of virtual column j (-2d < j < 4d) and row r: past the strip's ends the column
 * wraps and the row is mirrored. */
static uint32_t
virtual_cell(const votecl__pclines_desc *desc, int64_t j, uint32_t r)
{
    int64_t two_d = 2 * (int64_t)desc->d;

    if (j < 0 || j >= two_d) {
        j = j < 0 ? j + two_d : j - two_d;
        r = desc->rows - 1 - r;
    }
    return (uint32_t)j * desc->rows + r;
}

int
votecl__pclines_is_max(const votecl__pclines_desc *desc, const uint32_t *space, uint32_t c,
                       uint32_t r)
{
    uint32_t cell = c * desc->rows + r, value = space[cell];
    int64_t h = desc->half;

    if (value < desc->threshold)
        return 0;
    for (int64_t dc = -h; dc <= h; dc++)
        for (int64_t dr = -h; dr <= h; dr++) {
            int64_t rr = (int64_t)r + dr;
            if (rr < 0 || rr >= desc->rows)
                continue;
            uint32_t other = virtual_cell(desc, (int64_t)c + dc, (uint32_t)rr);
            if (space[other] > value || (space[other] == value && other < cell))
                return 0;
        }
    return 1;
}

size_t
votecl__pclines_ref_maxima(const votecl__pclines_desc *desc, const uint32_t *space,
                           votecl__pclines_max *out, size_t capacity)
{
    size_t n = 0;

    for (uint32_t c = 0; c < 2 * desc->d; c++)
        for (uint32_t r = 0; r < desc->rows; r++)
            if (votecl__pclines_is_max(desc, space, c, r)) {
                if (n < capacity)
                    out[n] = (votecl__pclines_max){c * desc->rows + r, space[c * desc->rows + r]};
                n++;
            }
    return n;
}

size_t
votecl__pclines_max_bound(const votecl__pclines_desc *desc)
{
    size_t block = desc->half + 1;

    return (2 * (size_t)desc->d / block + 1) * (desc->rows / block + 1);
}

VOTECL__RANK_COMPARE(max_compare, votecl__pclines_max, votes, cell)

/* The line of a cell: a x + b y + c = 0 in centred coordinates is (d - |u|) x + u y - d v = 0;
 * moved to pixel coordinates, normalised, and written as (theta, rho) with theta in [0, pi). */
static void
line_set(const votecl__pclines_desc *desc, const votecl__pclines_max *mx, votecl_lines_line *l)
{
    uint32_t column = mx->cell / desc->rows, row = mx->cell % desc->rows;
    double d = desc->d, u = (double)column - d;
    double v = ((row + 0.5) * (2.0 * desc->m + 1.0) / desc->rows - desc->m) / 2.0;
    double cx = (desc->width - 1) / 2.0, cy = (desc->height - 1) / 2.0;
    double a = d - fabs(u), b = u, c = -d * v - a * cx - b * cy, norm = hypot(a, b);

    a /= norm;
    b /= norm;
    c /= norm;
    if (b < 0 || (b == 0 && a < 0)) {
        a = -a;
        b = -b;
        c = -c;
    }
    /* every byte set, padding included: callers compare lines with memcmp */
    memset(l, 0, sizeof *l);
    l->a = a;
    l->b = b;
    l->c = c;
    l->theta = atan2(b, a);
    l->rho = -c;
    l->votes = mx->votes;
    l->u = (int32_t)column - (int32_t)desc->d;
    l->v = v;
    l->column = column;
    l->row = row;
    if (l->theta >= M_PI)
        l->theta -= M_PI;
}

/* The ends of line l's extent in the image (the box of pixel centres); 0 when it misses. */
static int
line_extent(const votecl__pclines_desc *desc, const votecl_lines_line *l, double e[4])
{
    double px = -l->c * l->a, py = -l->c * l->b, dx = -l->b, dy = l->a, t0, t1;
    votecl__segment_line line = {px, py, l->a, l->b, desc->width, desc->height};

    if (!votecl__segment_clip(&line, &t0, &t1))
        return 0;
    e[0] = px + t0 * dx;
    e[1] = py + t0 * dy;
    e[2] = px + t1 * dx;
    e[3] = py + t1 * dy;
    return 1;
}

/* Whether l repeats a line of kept (n lines (a, b, c)): both ends of its extent in the image
 * lie within merge px of that line. */
static int
is_duplicate(const votecl__pclines_desc *desc, const votecl_lines_line *l, const double *kept,
             size_t n, double merge)
{
    double e[4];

    if (merge <= 0 || !line_extent(desc, l, e))
        return 0;
    for (size_t k = 0; k < n; k++) {
        const double *q = &kept[3 * k];
        if (fabs(q[0] * e[0] + q[1] * e[1] + q[2]) <= merge &&
            fabs(q[0] * e[2] + q[1] * e[3] + q[2]) <= merge)
            return 1;
    }
    return 0;
}

static int
edge_compare(const void *pa, const void *pb)
{
    const votecl_lines_edge *a = pa, *b = pb;
    uint32_t ka = a->x | a->y << 16, kb = b->x | b->y << 16;

    return ka < kb ? -1 : ka > kb;
}

/* --- the edge map: which pixels the fit and the segment walk may count, found once a run --- */

/* The bits of a bitmap's word, and the width of the map's tiles: a tile's row is one word. */
#define EDGE_TILE 32u
/* The height of the map's tiles: low, so that a band (at most 17 px across at the fit's reach)
 * crossing a tile's rows leaves little of it unused (32 high filled 1.4 times the pixels on
 * a 1080p photograph of 59 lines). */
#define EDGE_TILE_ROWS 8u

#ifdef __SSE2__
/* The u8 pixels at p, as 16-bit lanes: the first 8 (hi 0) or the next 8. */
static __m128i
widen8(const uint8_t *p, int hi)
{
    __m128i v = _mm_loadu_si128((const __m128i *)p), zero = _mm_setzero_si128();

    return hi ? _mm_unpackhi_epi8(v, zero) : _mm_unpacklo_epi8(v, zero);
}

/* The edge masks (-1 or 0 a 16-bit lane) of 8 interior pixels of a u8 row (r1: from the
 * first; r0, r2: the rows above and below; hi: the 8 after them): the Sobel gradient in 16-bit
 * lanes (|g| <= 1020) and gx^2 + gy^2 > limit summed exactly in 32 bits (pmaddwd). */
static __m128i
edge_mask8(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, int hi, __m128i limit)
{
    __m128i r0m = widen8(r0 - 1, hi), r0c = widen8(r0, hi), r0p = widen8(r0 + 1, hi);
    __m128i r2m = widen8(r2 - 1, hi), r2c = widen8(r2, hi), r2p = widen8(r2 + 1, hi);
    __m128i d1 = _mm_sub_epi16(widen8(r1 + 1, hi), widen8(r1 - 1, hi));
    __m128i gx = _mm_add_epi16(_mm_add_epi16(_mm_sub_epi16(r0p, r0m), _mm_sub_epi16(r2p, r2m)),
                               _mm_add_epi16(d1, d1));
    __m128i gy = _mm_sub_epi16(_mm_add_epi16(_mm_add_epi16(r2m, r2p), _mm_add_epi16(r2c, r2c)),
                               _mm_add_epi16(_mm_add_epi16(r0m, r0p), _mm_add_epi16(r0c, r0c)));
    __m128i lo4 = _mm_unpacklo_epi16(gx, gy), hi4 = _mm_unpackhi_epi16(gx, gy);

    return _mm_packs_epi32(_mm_cmpgt_epi32(_mm_madd_epi16(lo4, lo4), limit),
                           _mm_cmpgt_epi32(_mm_madd_epi16(hi4, hi4), limit));
}

/* The edge bits of 16 interior pixels of a u8 row, as edge_mask8(). */
static uint32_t
edge_bits16(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, __m128i limit)
{
    return (uint32_t)_mm_movemask_epi8(
        _mm_packs_epi16(edge_mask8(r0, r1, r2, 0, limit), edge_mask8(r0, r1, r2, 1, limit)));
}
#endif

uint32_t
votecl__pclines_edge_bits_scalar(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                                 int32_t t2)
{
    uint32_t word = 0;

    for (int i = 0; i < (int)EDGE_TILE; i++) { /* signed: the operator reads r[i - 1] */
        int32_t gx = VOTECL__SOBEL3_GX(r0, r1, r2, i), gy = VOTECL__SOBEL3_GY(r0, r1, r2, i);
        word |= (uint32_t)(gx * gx + gy * gy >= t2) << i;
    }
    return word;
}

uint32_t
votecl__pclines_edge_bits(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, int32_t t2)
{
#ifdef __SSE2__
    __m128i limit = _mm_set1_epi32(t2 - 1);

    return edge_bits16(r0, r1, r2, limit) | edge_bits16(r0 + 16, r1 + 16, r2 + 16, limit) << 16;
#else
    return votecl__pclines_edge_bits_scalar(r0, r1, r2, t2);
#endif
}

/* The edge bits of interior pixels x0 <= x < x1 of row y (votecl__pclines_sobel()'s test), x0
 * at bit x0 % 32 of the word; x0..x1 within one tile. */
static uint32_t
edge_word(const votecl__pclines_edge_map *map, uint32_t y, uint32_t x0, uint32_t x1)
{
    const votecl__pclines_desc *desc = map->desc;
    size_t w = desc->width;
    uint32_t word = 0;
    int32_t gx, gy;

    if (map->source.dtype == VOTECL_DTYPE_U8 && x1 - x0 == EDGE_TILE) {
        const uint8_t *r1 = (const uint8_t *)map->source.data + y * w + x0;
        return votecl__pclines_edge_bits(
            r1 - w, r1, r1 + w, (int32_t)(desc->edge_t2 < 1 << 22 ? desc->edge_t2 : 1 << 22));
    }
    for (uint32_t x = x0; x < x1; x++) {
        votecl__pclines_sobel(map->source.data, map->source.dtype, desc->width, x, y, &gx, &gy);
        if ((int64_t)gx * gx + (int64_t)gy * gy >= desc->edge_t2)
            word |= 1u << x % EDGE_TILE;
    }
    return word;
}

/* A tile's states (map->filled). */
enum { TILE_EMPTY = 0, TILE_FILLING = 1, TILE_FILLED = 2 };

/* Sets bits of word (x, wy) of the column bitmap: atomically while threads share the map (a
 * word holds several tiles' bits), else without the lock an atomic OR costs. */
static void
mark_columns(votecl__pclines_edge_map *map, uint32_t x, uint32_t wy, uint32_t bits)
{
    _Atomic uint32_t *word = &map->columns[(size_t)x * map->tiles_y + wy];

    if (map->shared)
        atomic_fetch_or_explicit(word, bits, memory_order_relaxed);
    else
        atomic_store_explicit(word, atomic_load_explicit(word, memory_order_relaxed) | bits,
                              memory_order_relaxed);
}

/* Sets the bits of tile (tx, ty): its words of the rows, which no other tile shares, and its
 * bits of the columns' words; the image's border pixels are no edges. */
static void
fill_tile(votecl__pclines_edge_map *map, uint32_t tx, uint32_t ty)
{
    const votecl__pclines_desc *desc = map->desc;
    uint32_t x0 = tx * EDGE_TILE, y0 = ty * EDGE_TILE_ROWS;
    uint32_t x1 = desc->width - x0 < EDGE_TILE ? desc->width : x0 + EDGE_TILE;
    uint32_t y1 = desc->height - y0 < EDGE_TILE_ROWS ? desc->height : y0 + EDGE_TILE_ROWS;
    uint32_t ix0 = x0 > 0 ? x0 : 1, ix1 = x1 < desc->width - 1 ? x1 : desc->width - 1;
    uint32_t column[EDGE_TILE] = {0};

    for (uint32_t y = y0; y < y1; y++) {
        uint32_t word =
            y > 0 && y + 1 < desc->height && ix0 < ix1 ? edge_word(map, y, ix0, ix1) : 0;
        map->rows[(size_t)y * map->tiles_x + tx] = word;
        for (; word != 0; word &= word - 1)
            column[__builtin_ctz(word)] |= 1u << y % EDGE_TILE;
    }
    for (uint32_t x = x0; x < x1; x++)
        if (column[x - x0] != 0)
            mark_columns(map, x, y0 / EDGE_TILE, column[x - x0]);
}

/* Fills tile (tx, ty), not yet filled, when no thread has begun to, else waits for the thread
 * that has (a tile is a few hundred pixels). */
static void
fill_or_wait(votecl__pclines_edge_map *map, _Atomic uint8_t *state, uint32_t tx, uint32_t ty)
{
    uint8_t empty = TILE_EMPTY;

    if (atomic_compare_exchange_strong_explicit(state, &empty, TILE_FILLING, memory_order_relaxed,
                                                memory_order_relaxed)) {
        fill_tile(map, tx, ty);
        atomic_store_explicit(state, TILE_FILLED, memory_order_release);
        return;
    }
    while (atomic_load_explicit(state, memory_order_acquire) != TILE_FILLED)
        sched_yield(); /* the filler may share this core */
}

/* Makes sure tile (tx, ty) is filled (inline: the fit asks at every step). */
static inline void
ensure_tile(votecl__pclines_edge_map *map, uint32_t tx, uint32_t ty)
{
    _Atomic uint8_t *state = &map->filled[(size_t)ty * map->tiles_x + tx];

    if (atomic_load_explicit(state, memory_order_acquire) != TILE_FILLED)
        fill_or_wait(map, state, tx, ty);
}

/* Fills the tiles of the pixels x0..x1 x y0..y1 that are not yet. */
static void
cover(votecl__pclines_edge_map *map, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1)
{
    for (uint32_t ty = y0 / EDGE_TILE_ROWS; ty <= y1 / EDGE_TILE_ROWS; ty++)
        for (uint32_t tx = x0 / EDGE_TILE; tx <= x1 / EDGE_TILE; tx++)
            ensure_tile(map, tx, ty);
}

/* Whether pixel (x, y), inside the image, is an edge of map's source. */
static int
is_edge(votecl__pclines_edge_map *map, long x, long y)
{
    ensure_tile(map, (uint32_t)x / EDGE_TILE, (uint32_t)y / EDGE_TILE_ROWS);
    return map->rows[(size_t)y * map->tiles_x + (size_t)x / EDGE_TILE] >> x % EDGE_TILE & 1u;
}

/* The index in the location order of the edge at pixel (x, y), whose bit is set. */
static size_t
edge_rank(const votecl__pclines_edge_map *map, uint32_t x, uint32_t y)
{
    size_t w = (size_t)y * map->tiles_x + x / EDGE_TILE;

    return map->ranks[w] +
           (uint32_t)__builtin_popcount(map->rows[w] & ((1u << x % EDGE_TILE) - 1u));
}

/* The rows of the map's tiles. */
static size_t
tile_rows(const votecl__pclines_desc *desc)
{
    return (desc->height + EDGE_TILE_ROWS - 1) / EDGE_TILE_ROWS;
}

/* The edges of a list without repeated pixels in the order of their locations, placed by
 * their ranks among the map's bits (map->ranks: the edges before each word of the rows); the
 * order qsort() gives, found in one pass. */
static void
place_by_rank(votecl__pclines_edge_map *map)
{
    size_t words = (size_t)map->desc->height * map->tiles_x;
    uint32_t before = 0;

    for (size_t w = 0; w < words; w++) {
        map->ranks[w] = before;
        before += (uint32_t)__builtin_popcount(map->rows[w]);
    }
    for (size_t i = 0; i < map->source.n; i++) {
        const votecl_lines_edge *e = &map->source.edges[i];
        map->sorted[edge_rank(map, e->x, e->y)] = *e;
    }
}

/* An edge list's map: its pixels marked, every tile filled, and the list sorted for the
 * weights' look-ups: by rank when no pixel repeats, else by qsort() for bsearch() (which
 * of a pixel's edges the search finds is the sort's and search's own). */
static votecl_status
mark_list(votecl__pclines_edge_map *map)
{
    const votecl__pclines_source *source = &map->source;
    size_t words = (size_t)map->desc->height * map->tiles_x;
    int repeated = 0;

    memset(map->rows, 0, words * sizeof *map->rows);
    for (size_t i = 0; i < source->n; i++) {
        uint32_t x = source->edges[i].x, y = source->edges[i].y, bit = 1u << x % EDGE_TILE;
        uint32_t *word = &map->rows[(size_t)y * map->tiles_x + x / EDGE_TILE];
        repeated |= (*word & bit) != 0;
        *word |= bit;
        mark_columns(map, x, y / EDGE_TILE, 1u << y % EDGE_TILE);
    }
    for (size_t t = 0; t < (size_t)map->tiles_x * tile_rows(map->desc); t++)
        atomic_init(&map->filled[t], TILE_FILLED);
    if ((map->sorted = votecl__malloc(source->n * sizeof *map->sorted)) == NULL ||
        (!repeated && (map->ranks = votecl__malloc(words * sizeof *map->ranks)) == NULL))
        return VOTECL_OUT_OF_HOST_MEMORY;
    if (!repeated) {
        place_by_rank(map);
        return VOTECL_OK;
    }
    memcpy(map->sorted, source->edges, source->n * sizeof *map->sorted);
    qsort(map->sorted, source->n, sizeof *map->sorted, edge_compare);
    return VOTECL_OK;
}

votecl_status
votecl__pclines_edge_map_init(votecl__pclines_edge_map *map, const votecl__pclines_desc *desc,
                              const votecl__pclines_source *source)
{
    memset(map, 0, sizeof *map);
    map->desc = desc;
    map->tiles_x = (desc->width + EDGE_TILE - 1) / EDGE_TILE;
    map->tiles_y = (desc->height + EDGE_TILE - 1) / EDGE_TILE;
    if (source->data == NULL && (source->edges == NULL || source->n == 0))
        return VOTECL_OK; /* no edges: nothing to look at */
    map->source = *source;
    /* calloc: TILE_EMPTY is 0, and tiles only set their bits of the columns' words */
    if ((map->filled = votecl__calloc((size_t)map->tiles_x * tile_rows(desc), 1)) == NULL ||
        (map->rows = votecl__malloc((size_t)desc->height * map->tiles_x * sizeof *map->rows)) ==
            NULL ||
        (map->columns = votecl__calloc((size_t)desc->width * map->tiles_y, sizeof *map->columns)) ==
            NULL ||
        (source->data == NULL && mark_list(map) != VOTECL_OK)) {
        votecl__pclines_edge_map_free(map);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    return VOTECL_OK;
}

void
votecl__pclines_edge_map_free(votecl__pclines_edge_map *map)
{
    VOTECL__FREE_ALL(map->sorted, map->ranks, map->rows, map->columns, map->filled);
    map->sorted = NULL;
    map->ranks = NULL;
    map->rows = NULL;
    map->columns = NULL;
    map->filled = NULL;
}

/* A worker's own: the fit's scratch and the lines it fitted. */
typedef struct fit_worker {
    votecl__segment_points scratch;
    size_t lines;
} fit_worker;

/* The fit's lines on a team (parallel.h): line i of a batch is maxima[i]'s, refined. */
typedef struct fit_batch {
    const votecl__pclines_desc *desc;
    const votecl__pclines_max *maxima;
    votecl__pclines_edge_map *map; /* NULL: no fit */
    fit_worker *workers;           /* the team's */
    votecl_lines_line *lines;
} fit_batch;

static votecl_status
fit_lines(void *user, size_t begin, size_t end, unsigned worker)
{
    fit_batch *b = user;
    fit_worker *w = &b->workers[worker];
    /* the fit counts every pixel it gathers: on this thread's stack, not in a cache line
     * that the neighbouring workers' scratch shares */
    votecl__segment_points scratch = w->scratch;
    votecl_status status = VOTECL_OK;

    for (size_t i = begin; i < end && status == VOTECL_OK; i++) {
        line_set(b->desc, &b->maxima[i], &b->lines[i]);
        if (b->map != NULL && votecl__pclines_refine(b->map, &scratch, &b->lines[i]) < 0)
            status = VOTECL_OUT_OF_HOST_MEMORY;
    }
    w->scratch = scratch;
    w->lines += end - begin;
    return status;
}

/* The lines a thread claims at a time in the fit and the segment walk: about
 * PCLINES_CLAIM_STEPS steps of the image (a line's fit and walk visit every step of its
 * major axis, some 25-55 ns each), so that a small image's lines stay on the calling thread
 * rather than pay for threads (20-50 us each). */
#define PCLINES_CLAIM_STEPS 1024u
static size_t
line_grain(const votecl__pclines_desc *desc)
{
    size_t steps = desc->width > desc->height ? desc->width : desc->height;

    return (PCLINES_CLAIM_STEPS + steps - 1) / steps;
}

/* Sets and refines the lines of maxima[0, n) into lines on up to host_threads threads
 * (votecl__team_open()'s figure) in claims of line_grain() lines; threads: the most a batch
 * had and ran lines on. */
static votecl_status
fit_batch_run(fit_batch *b, size_t n, unsigned host_threads, votecl__pclines_threads *threads)
{
    votecl__team team;
    votecl_status status;
    unsigned busy = 0;

    if (b->map == NULL || b->map->rows == NULL)
        host_threads = 1; /* no edges: nothing to fit */
    votecl__team_open(&team, host_threads, n, line_grain(b->desc));
    if ((b->workers = votecl__calloc(team.workers, sizeof *b->workers)) == NULL) {
        votecl__team_close(&team);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    if (b->map != NULL)
        b->map->shared = team.workers > 1;
    status = votecl__team_run(&team, fit_lines, b);
    if (b->map != NULL)
        b->map->shared = 0;
    for (unsigned w = 0; w < team.workers; w++) {
        busy += b->workers[w].lines > 0;
        free(b->workers[w].scratch.xyw);
    }
    free(b->workers);
    threads->workers = team.workers > threads->workers ? team.workers : threads->workers;
    threads->busy = busy > threads->busy ? busy : threads->busy;
    return status;
}

/* Appends line l to kept (its a, b, c) and out unless it repeats a kept line; *taken counts
 * the kept ones. Returns VOTECL_OUT_OF_HOST_MEMORY or VOTECL_OK. */
static votecl_status
keep_line(const votecl__pclines_desc *desc, const votecl_lines_line *l, double merge, double **kept,
          size_t *room, votecl_lines_line **out, size_t *out_room, size_t capacity, size_t *taken)
{
    if (is_duplicate(desc, l, *kept, *taken, merge))
        return VOTECL_OK;
    if (votecl__grow((void **)kept, room, *taken + 1, 3 * sizeof **kept, 64) != 0 ||
        (*taken < capacity &&
         votecl__grow((void **)out, out_room, *taken + 1, sizeof **out, 64) != 0))
        return VOTECL_OUT_OF_HOST_MEMORY;
    (*kept)[3 * *taken] = l->a;
    (*kept)[3 * *taken + 1] = l->b;
    (*kept)[3 * *taken + 2] = l->c;
    if (*taken < capacity)
        (*out)[*taken] = *l;
    (*taken)++;
    return VOTECL_OK;
}

votecl_status
votecl__pclines_lines(const votecl__pclines_desc *desc, votecl__pclines_max *maxima, size_t n,
                      size_t max_lines, double merge, votecl__pclines_edge_map *map,
                      const votecl__pclines_fitter *fitter, unsigned host_threads,
                      votecl__pclines_threads *threads, votecl_lines_line *lines, size_t capacity,
                      size_t *found)
{
    double *kept = NULL;
    size_t taken = 0, room = 0, out_room = 0, i = 0;
    /* the lines gathered here and copied to the caller's array only when all went well: a
     * failure (out of memory in the fit or the list) leaves the caller's output untouched */
    votecl_lines_line *out = NULL, *fitted = NULL;
    fit_batch batch = {desc, maxima, fitter != NULL ? NULL : map, NULL, NULL};
    /* the maxima fitted at once: as many as lines are still wanted, the ones a sequential
     * loop would fit before its last kept line, so that no fit is wasted */
    size_t first = max_lines == 0 || max_lines > n ? n : max_lines;
    votecl_status status = VOTECL_OK;

    threads->workers = threads->busy = 1;
    if (n > 1)
        qsort(maxima, n, sizeof *maxima, max_compare);
    if (first > 0 && (batch.lines = fitted = votecl__calloc(first, sizeof *fitted)) == NULL)
        status = VOTECL_OUT_OF_HOST_MEMORY;
    while (status == VOTECL_OK && i < n && (max_lines == 0 || taken < max_lines)) {
        size_t size = max_lines == 0 || max_lines - taken > n - i ? n - i : max_lines - taken;
        batch.maxima = maxima + i;
        status = fit_batch_run(&batch, size, fitter != NULL ? 1 : host_threads, threads);
        if (status == VOTECL_OK && fitter != NULL && size > 0)
            status = fitter->fit(fitter->user, fitted, size); /* the cells' lines, set above */
        /* in the maxima's order: which lines repeat a stronger one stays sequential */
        for (size_t j = 0; j < size && status == VOTECL_OK; j++)
            status =
                keep_line(desc, &fitted[j], merge, &kept, &room, &out, &out_room, capacity, &taken);
        i += size;
    }
    if (status == VOTECL_OK && taken > 0 && capacity > 0)
        memcpy(lines, out, (taken < capacity ? taken : capacity) * sizeof *lines);
    free(fitted);
    free(out);
    free(kept);
    if (status == VOTECL_OK)
        *found = taken;
    return status;
}

/* --- refinement: a fit to the edges near the cell's line (lib/pclines-fit.c's rules) --- */

/* The TS space's cells are about a pixel and a column wide, and a thin line's votes fall on
 * its two Sobel flanks, one pixel either side: the best cell lies on a flank, up to 1.5 px
 * and half a column off. The edge pixels around the cell's line locate the line itself:
 * their gradient-weighted total least-squares line is centred between the flanks (a step
 * edge's two flank pixels meet at the step), and its direction comes from the whole length
 * rather than from the column grid. */

/* The weight of edge (x, y) of map's source for the fit's first line p (0: not counted); an
 * edge listed twice counts as the one the search finds. */
static uint32_t
fit_weight_at(const votecl__pclines_edge_map *map, const int64_t *p, long x, long y)
{
    int32_t gx, gy;

    if (map->source.data == NULL) {
        votecl_lines_edge key = {(uint32_t)x, (uint32_t)y, 0, 0};
        const votecl_lines_edge *e = map->ranks != NULL ? &map->sorted[edge_rank(map, key.x, key.y)]
                                                        : bsearch(&key, map->sorted, map->source.n,
                                                                  sizeof key, edge_compare);
        return e != NULL ? votecl__pclines_fit_weight(p, e->gx, e->gy, 1) : 0;
    }
    if (map->source.dtype == VOTECL_DTYPE_U8) /* inline: the fit's most frequent case */
        votecl__sobel3((const uint8_t *)map->source.data + (size_t)y * map->desc->width + x,
                       map->desc->width, &gx, &gy);
    else
        votecl__pclines_sobel(map->source.data, map->source.dtype, map->desc->width, (uint32_t)x,
                              (uint32_t)y, &gx, &gy);
    return votecl__pclines_fit_weight(p, gx, gy, 0);
}

/* The edges the fit counts around its first line p, into pts: step by step along the major
 * axis, the span's edge bits from the bitmap across the step a word of 32 pixels at a time. */
static int
fit_gather(votecl__pclines_edge_map *map, const int64_t *p, votecl__segment_points *pts)
{
    int major_x = p[11] != 0;

    pts->n = 0;
    for (int64_t a = p[12]; a <= p[13]; a++) {
        const uint32_t *row = map->rows + (size_t)a * map->tiles_x;
        const _Atomic uint32_t *column = map->columns + (size_t)a * map->tiles_y;
        int64_t lo, hi;
        if (!votecl__pclines_fit_span(p, a, &lo, &hi))
            continue;
        if (major_x)
            cover(map, (uint32_t)a, (uint32_t)lo, (uint32_t)a, (uint32_t)hi);
        else
            cover(map, (uint32_t)lo, (uint32_t)a, (uint32_t)hi, (uint32_t)a);
        for (int64_t k = lo / EDGE_TILE; k <= hi / EDGE_TILE; k++) {
            uint32_t word =
                major_x ? atomic_load_explicit(&column[k], memory_order_relaxed) : row[k];
            if (k == lo / EDGE_TILE)
                word &= ~0u << lo % EDGE_TILE;
            if (k == hi / EDGE_TILE)
                word &= ~0u >> (EDGE_TILE - 1 - hi % EDGE_TILE);
            for (; word != 0; word &= word - 1) {
                long b = (long)k * (long)EDGE_TILE + __builtin_ctz(word);
                long x = major_x ? (long)a : b, y = major_x ? b : (long)a;
                uint32_t w = fit_weight_at(map, p, x, y);
                if (w > 0 && votecl__segment_push(pts, x, y, w) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

int
votecl__pclines_refine(votecl__pclines_edge_map *map, votecl__segment_points *scratch,
                       votecl_lines_line *l)
{
    const votecl__pclines_desc *desc = map->desc;
    votecl__segment_line first, fit;
    int64_t p[VOTECL__PCLINES_FIT_WORDS];

    if (map->rows == NULL)
        return 0;
    votecl__pclines_fit_first(desc, l, &first, p);
    if (fit_gather(map, p, scratch) != 0)
        return -1;
    fit = first;
    for (unsigned k = 0; k < votecl__pclines_fit_passes(); k++) {
        uint64_t m[VOTECL__PCLINES_FIT_MOMENTS] = {0};
        const int32_t *xyw = scratch->xyw;
        votecl__pclines_fit_pass(&fit, p);
        for (size_t i = 0; i < scratch->n; i++)
            votecl__pclines_fit_add(desc, p, xyw[3 * i], xyw[3 * i + 1], (uint32_t)xyw[3 * i + 2],
                                    m);
        if (!votecl__pclines_fit_solve(desc, m, &fit))
            return 0;
    }
    return votecl__pclines_fit_finish(&first, &fit, l);
}

/* --- segments: a walk along the line on the host, the same for every backend --- */

/* Whether gradient (gx, gy) lies within about 26 degrees of normal (nx, ny): |g . n| >= 0.9 |g|,
 * so that crossing lines and clutter are left out. */
static int
along_normal(int32_t gx, int32_t gy, double nx, double ny)
{
    double dot = gx * nx + gy * ny;

    return dot * dot >= 0.81 * ((double)gx * gx + (double)gy * gy);
}

/* The segment walk's hit test (lib/segment.c): an edge pixel of the map's image whose gradient
 * lies along the normal (nx, ny), so that crossing lines and clutter do not extend a
 * segment. */
static int
pclines_hit(const void *arg, long x, long y, double nx, double ny)
{
    votecl__pclines_edge_map *map = (votecl__pclines_edge_map *)arg;
    int32_t gx, gy;

    if (!is_edge(map, x, y))
        return 0;
    votecl__pclines_sobel(map->source.data, map->source.dtype, map->desc->width, (uint32_t)x,
                          (uint32_t)y, &gx, &gy);
    return along_normal(gx, gy, nx, ny);
}

/* One line's runs: its has_segment and ends, and the runs appended to w's list. */
static int
pclines_segment(const votecl__pclines_desc *desc, const votecl__segment_walker *w,
                votecl_lines_line *line)
{
    votecl__segment_line walk = {-line->c * line->a, -line->c * line->b, line->a, line->b,
                                 desc->width,        desc->height};

    return votecl__segment_report(&walk, w, &line->has_segment, &line->x0, &line->y0, &line->x1,
                                  &line->y1);
}

/* Where a line's runs lie while threads walk: in its worker's list, from first, count. */
typedef struct walk_place {
    unsigned worker;
    size_t first, count;
} walk_place;

/* The walks of lines on a team: each worker's runs go to its own list (lists[0] alone: the
 * caller's, when one worker walks them all), their places recorded for the merge. */
typedef struct walk_batch {
    votecl__pclines_edge_map *map;
    uint32_t min_length, max_gap;
    votecl_lines_line *lines;
    votecl__segment_list *lists; /* one per worker */
    walk_place *places;          /* one per line; NULL: one worker, nothing to merge */
} walk_batch;

static votecl_status
walk_lines(void *user, size_t begin, size_t end, unsigned worker)
{
    walk_batch *b = user;
    votecl__segment_walker w = {pclines_hit, b->map, b->min_length, b->max_gap, 0, NULL};
    votecl__segment_list list = b->lists[worker]; /* on this thread's stack, as the fit's */
    votecl_status status = VOTECL_OK;

    w.list = &list;
    for (w.index = begin; w.index < end && status == VOTECL_OK; w.index++) {
        size_t first = list.n;
        if (pclines_segment(b->map->desc, &w, &b->lines[w.index]) != 0)
            status = VOTECL_OUT_OF_HOST_MEMORY;
        else if (b->places != NULL)
            b->places[w.index] = (walk_place){worker, first, list.n - first};
    }
    b->lists[worker] = list;
    return status;
}

/* Appends the runs of b's n lines to list in the lines' order, as one walker would have. */
static votecl_status
merge_walks(const walk_batch *b, size_t n, votecl__segment_list *list)
{
    for (size_t i = 0; i < n; i++) {
        const walk_place *p = &b->places[i];
        if (p->count == 0)
            continue;
        if (votecl__grow((void **)&list->items, &list->room, list->n + p->count,
                         sizeof *list->items, 64) != 0)
            return VOTECL_OUT_OF_HOST_MEMORY;
        memcpy(&list->items[list->n], &b->lists[p->worker].items[p->first],
               p->count * sizeof *list->items);
        list->n += p->count;
    }
    return VOTECL_OK;
}

votecl_status
votecl__pclines_segments(votecl__pclines_edge_map *map, uint32_t min_length, uint32_t max_gap,
                         unsigned host_threads, unsigned *workers, votecl_lines_line *lines,
                         size_t n, votecl__segment_list *list)
{
    walk_batch b = {map, min_length, max_gap, lines, list, NULL};
    votecl__team team;
    votecl_status status;

    votecl__team_open(&team, host_threads, n, line_grain(map->desc));
    *workers = team.workers;
    if (team.workers == 1)
        return votecl__team_run(&team, walk_lines, &b);
    if ((b.lists = votecl__calloc(team.workers, sizeof *b.lists)) == NULL ||
        (b.places = votecl__calloc(n, sizeof *b.places)) == NULL) {
        free(b.lists);
        votecl__team_close(&team);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    map->shared = 1;
    status = votecl__team_run(&team, walk_lines, &b);
    map->shared = 0;
    if (status == VOTECL_OK)
        status = merge_walks(&b, n, list);
    for (unsigned w = 0; w < team.workers; w++)
        free(b.lists[w].items);
    VOTECL__FREE_ALL(b.lists, b.places);
    return status;
}
