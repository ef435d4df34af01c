/* The generalized Hough transform's edge stage, in its two implementations: the reference
 * (the specification: Canny's edges of lib/edges.c, their gradients quantised into bins, then
 * a counting sort by bin) and the device (cl/ght-edges.cl: the image
 * uploaded once, its edges found, compacted and sorted there, the host reading back only the
 * L + 1 offsets), whose sorted list and offsets equal the reference's entry for entry. The
 * device's exclusive scan here also serves the pairing stage. */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edges-private.h"
#include "ght-device.h"
#include "ght-private.h"

#define WG VOTECL__GHT_WG
#define TILE_X VOTECL__GHT_TILE_X
#define TILE_Y VOTECL__GHT_TILE_Y
#define SCAN_BLOCK VOTECL__GHT_SCAN_BLOCK
/* Pixels per sort group: 16 per work-item, more when there would be more groups than
 * SORT_GROUPS_MAX (the count array holds L entries per group); the scatter takes SORT_K
 * (VOTECL__GHT_SORT_K) consecutive pixels per work-item, one batch of the group's chunk at a
 * time. */
#define SORT_K VOTECL__GHT_SORT_K
#define SORT_CHUNK (SORT_K * WG)
#define SORT_GROUPS_MAX 4096u

/* --- the reference --- */

/* Canny's edges (lib/edges.c), their gradients quantised into the GHT's bins. */
size_t
votecl__ght_ref_canny(const votecl__ght_desc *desc, const uint8_t *data, uint32_t width,
                      uint32_t height, unsigned low, unsigned high, votecl__ght_point *out)
{
    size_t pixels = (size_t)width * height, n;
    votecl__edge *edges = votecl__malloc((pixels > 0 ? pixels : 1) * sizeof *edges);

    if (edges == NULL)
        return (size_t)-1;
    n = votecl__canny_ref(data, width, height, low, high, edges);
    for (size_t i = 0; n != (size_t)-1 && i < n; i++) {
        out[i].x = edges[i].x;
        out[i].y = edges[i].y;
        out[i].bin = votecl__ght_bin(desc, edges[i].gx, edges[i].gy);
    }
    free(edges);
    return n;
}

/* --- the host's Canny for CPU devices --- */

/* votecl__canny_host's edges (lib/edges.c) with their bins. */
struct votecl__ght_canny_memo {
    votecl__canny_memo *canny;
    votecl__ght_point *points;
    size_t points_size; /* entries */
};

void
votecl__ght_canny_memo_free(votecl__ght_canny_memo *memo)
{
    if (memo == NULL)
        return;
    votecl__canny_memo_free(memo->canny);
    free(memo->points);
    free(memo);
}

/* The boundary tests of lib/ght-quant.c (votecl__ght_bin): the point is at or past boundary
 * b counterclockwise from 0 degrees. */
static int
host_past(const votecl__ght_desc *desc, uint32_t b, int upper, int32_t gx, int32_t gy)
{
    int b_upper = 2 * b + 1 < desc->levels;

    if (b_upper != upper)
        return b_upper;
    return (double)desc->dirs[2 * b] * (double)gy >= (double)desc->dirs[2 * b + 1] * (double)gx;
}

uint32_t
votecl__ght_bin_host(const votecl__ght_desc *desc, int32_t gx, int32_t gy)
{
    uint32_t L = desc->levels;
    int upper = gy > 0 || (gy == 0 && gx > 0);
    double ax = gx < 0 ? -(double)gx : gx, ay = gy < 0 ? -(double)gy : gy;
    double z = ax < ay ? ax / ay : ay / ax;
    /* the angle in turns, atan(z) within 0.004 rad (z (pi/4) + 0.273 z (1 - z)) put in its
     * octant: the boundaries passed, those at (b + 1/2) / L turns up to it, are about
     * round(turns L), off by at most one (L <= 1024) and settled by the tests (the
     * boundaries passed are a prefix: they are in angular order) */
    double t = z * (0.125 + 0.0434492 * (1.0 - z));
    long c;

    t = ax < ay ? 0.25 - t : t;
    t = gx < 0 ? 0.5 - t : t;
    t = gy < 0 ? 1.0 - t : t;
    c = (long)(t * L + 0.5);
    c = c < 0 ? 0 : c > (long)L ? (long)L : c;
    while (c < (long)L && host_past(desc, (uint32_t)c, upper, gx, gy))
        c++;
    while (c > 0 && !host_past(desc, (uint32_t)c - 1, upper, gx, gy))
        c--;
    return (uint32_t)c % L;
}

/* The bins of the edges only, each found from atan2's estimate and decided by the same
 * boundary tests as votecl__ght_bin: the reference's points in the same order. */
size_t
votecl__ght_host_canny(const votecl__ght_desc *desc, const uint8_t *data, uint32_t width,
                       uint32_t height, unsigned low, unsigned high, votecl__ght_canny_memo **memo,
                       const votecl__ght_point **out)
{
    votecl__ght_canny_memo *m = *memo;
    const votecl__edge *edges;
    size_t n;

    if (m == NULL && (m = *memo = votecl__calloc(1, sizeof *m)) == NULL)
        return (size_t)-1;
    n = votecl__canny_host(data, width, height, low, high, &m->canny, &edges);
    if (n == (size_t)-1 ||
        votecl__grow((void **)&m->points, &m->points_size, n, sizeof *m->points, 64) != 0)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        m->points[i].x = edges[i].x;
        m->points[i].y = edges[i].y;
        m->points[i].bin = votecl__ght_bin_host(desc, edges[i].gx, edges[i].gy);
    }
    *out = m->points;
    return n;
}

votecl_status
votecl__ght_edges_sort(const votecl__ght_point *points, size_t n, uint32_t levels,
                       votecl__ght_edges *edges)
{
    uint32_t *next;

    memset(edges, 0, sizeof *edges);
    edges->points = votecl__malloc((n > 0 ? n : 1) * sizeof *points);
    edges->offsets = votecl__calloc((size_t)levels + 1, sizeof *edges->offsets);
    next = votecl__malloc((size_t)levels * sizeof *next);
    if (edges->points == NULL || edges->offsets == NULL || next == NULL) {
        free(next);
        votecl__ght_edges_clear(edges);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        edges->offsets[points[i].bin + 1]++;
    for (uint32_t b = 0; b < levels; b++)
        edges->offsets[b + 1] += edges->offsets[b];
    memcpy(next, edges->offsets, (size_t)levels * sizeof *next);
    for (size_t i = 0; i < n; i++)
        edges->points[next[points[i].bin]++] = points[i];
    edges->n = n;
    free(next);
    return VOTECL_OK;
}

void
votecl__ght_edges_clear(votecl__ght_edges *edges)
{
    free(edges->points);
    free(edges->offsets);
    memset(edges, 0, sizeof *edges);
}

/* --- the device (cl/canny.cl, cl/ght-edges.cl) --- */

enum {
    K_STATE,
    K_HYSTERESIS,
    K_SORT_COUNT,
    K_SCAN_SUMS,
    K_SCAN_TOP,
    K_SCAN_DOWN,
    K_SCATTER,
    K_SORT_OFFSETS,
    K_COUNT
};

static const char *const kernel_names[K_COUNT] = {
    "ght_edge_state", "canny_hysteresis", "ght_sort_count",   "ght_scan_sums",
    "ght_scan_top",   "ght_scan_down",  "ght_sort_scatter", "ght_sort_offsets",
};

static const char *const files[] = {"ght-common.cl", "canny.cl", "ght-edges.cl", NULL};

static const votecl__ght_program program = {
    VOTECL__GHT_EDGES, files, VOTECL__GHT_DEF_L | VOTECL__GHT_DEF_EDGES, kernel_names, K_COUNT};

static votecl_status
launch1(votecl__ght_front *f, int k, size_t items, const votecl__arg *args, unsigned nargs)
{
    return votecl__ght_launch1(f->dev, &program, k, items, args, nargs);
}

/* A 2-D launch over the pixels in hysteresis tiles. */
static votecl_status
launch_tiles(votecl__ght_front *f, int k, uint32_t w, uint32_t h, const votecl__arg *args,
             unsigned nargs)
{
    size_t local[2] = {TILE_X, TILE_Y};
    size_t global[2] = {votecl__round_up(w, TILE_X), votecl__round_up(h, TILE_Y)};

    return votecl__ght_launch(f->dev, &program, k, 2, global, local, args, nargs);
}

/* The scan on the host: read back, scanned, written. On a CPU device the buffer's transfers
 * are copies in the same memory, and the three scan kernels (the only ones of the edge
 * program left there, the edges being the host's) would cost PoCL's first call that
 * program's build and their code generation, about 1 s of a cold Guil call. */
static votecl_status
host_scan(votecl__ght_front *f, votecl_buffer *a, size_t n)
{
    uint32_t *v = votecl__malloc((n + 1) * sizeof *v), sum = 0;
    votecl_status status;

    if (v == NULL)
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a scan");
    if (n == 0 || (status = votecl_buffer_read(a, 0, v, n * 4)) == VOTECL_OK) {
        for (size_t i = 0; i < n; i++) {
            uint32_t t = v[i];
            v[i] = sum;
            sum += t; /* modulo 2^32, as the kernels add */
        }
        v[n] = sum;
        status = votecl_buffer_write(a, 0, v, (n + 1) * 4);
    }
    free(v);
    return status;
}

votecl_status
votecl__ght_front_scan(votecl__ght_front *f, votecl_buffer *a, size_t n)
{
    size_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
    votecl_status status;

    if (votecl__ght_cpu_shape(f->context))
        return host_scan(f, a, n);
    status = votecl__ght_ensure(f->context, &f->buf[GHT_F_SUMS], (blocks + 1) * 4);

    if (status == VOTECL_OK)
        status = launch1(f, K_SCAN_SUMS, blocks * WG,
                         (votecl__arg[]){VOTECL__ARG_BUF(a), VOTECL__ARG_UINT(n),
                                         VOTECL__ARG_BUF(f->buf[GHT_F_SUMS])},
                         3);
    if (status == VOTECL_OK)
        status = launch1(
            f, K_SCAN_TOP, WG,
            (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_SUMS]), VOTECL__ARG_UINT(blocks)}, 2);
    if (status == VOTECL_OK)
        status = launch1(f, K_SCAN_DOWN, blocks * WG,
                         (votecl__arg[]){VOTECL__ARG_BUF(a), VOTECL__ARG_UINT(n),
                                         VOTECL__ARG_BUF(f->buf[GHT_F_SUMS])},
                         3);
    return status;
}

static votecl_buffer *
dirs(votecl__ght_front *f)
{
    return *votecl__ght_device_slot(f->dev, VOTECL__GHT_SLOT_DIRS);
}

/* Strong pixels 8-connected through weak ones to strong ones become strong: tile passes
 * until one changes nothing. */
static votecl_status
device_hysteresis(votecl__ght_front *f, uint32_t w, uint32_t h)
{
    uint32_t changed = 1, passes = 0;
    votecl_status status = votecl__ght_ensure(f->context, &f->buf[GHT_F_FLAG], 4);

    for (; status == VOTECL_OK && changed != 0; passes++) {
        if ((status = votecl__buffer_zero(f->buf[GHT_F_FLAG], 0, 4)) == VOTECL_OK &&
            (status = launch_tiles(f, K_HYSTERESIS, w, h,
                                   (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_STATE]),
                                                   VOTECL__ARG_UINT(w), VOTECL__ARG_UINT(h),
                                                   VOTECL__ARG_BUF(f->buf[GHT_F_FLAG])},
                                   4)) == VOTECL_OK)
            status = votecl_buffer_read(f->buf[GHT_F_FLAG], 0, &changed, 4);
    }
    votecl__log(f->context, "ght: hysteresis of %ux%u in %u passes", w, h, passes);
    return status;
}

/* Sort groups and pixels per group for pixels. */
static void
sort_layout(size_t pixels, size_t *groups, size_t *chunk)
{
    *chunk = SORT_CHUNK;
    *groups = (pixels + SORT_CHUNK - 1) / SORT_CHUNK;
    if (*groups > SORT_GROUPS_MAX) {
        *chunk = votecl__round_up((pixels + SORT_GROUPS_MAX - 1) / SORT_GROUPS_MAX, WG);
        *groups = (pixels + *chunk - 1) / *chunk;
    }
}

/* The states' strong pixels sorted by bin (stable: raster order within a bin) into the
 * points, their offsets read back. */
static votecl_status
sort_states(votecl__ght_front *f, uint32_t w, uint32_t h)
{
    size_t L = f->desc.levels, pixels = (size_t)w * h, groups, chunk, entries;
    size_t most = (w > 2 && h > 2) ? (size_t)(w - 2) * (h - 2) : 1;
    votecl_status status;

    sort_layout(pixels, &groups, &chunk);
    entries = L * groups;
    if ((status = votecl__ght_ensure(f->context, &f->buf[GHT_F_COUNTS], (entries + 1) * 4)) !=
            VOTECL_OK ||
        (status = votecl__ght_ensure(f->context, &f->buf[GHT_F_POINTS],
                                     most * sizeof(votecl__ght_point))) != VOTECL_OK ||
        (status = votecl__ght_ensure(f->context, &f->buf[GHT_F_OFFSETS], (L + 1) * 4)) !=
            VOTECL_OK ||
        (status = launch1(f, K_SORT_COUNT, groups * WG,
                          (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_STATE]),
                                          VOTECL__ARG_UINT(pixels), VOTECL__ARG_UINT(chunk),
                                          VOTECL__ARG_BUF(f->buf[GHT_F_COUNTS])},
                          4)) != VOTECL_OK ||
        (status = votecl__ght_front_scan(f, f->buf[GHT_F_COUNTS], entries)) != VOTECL_OK ||
        (status = launch1(f, K_SCATTER, groups * WG,
                          (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_STATE]), VOTECL__ARG_UINT(w),
                                          VOTECL__ARG_UINT(pixels), VOTECL__ARG_UINT(chunk),
                                          VOTECL__ARG_BUF(f->buf[GHT_F_COUNTS]),
                                          VOTECL__ARG_BUF(f->buf[GHT_F_POINTS])},
                          6)) != VOTECL_OK ||
        (status = launch1(f, K_SORT_OFFSETS, L + 1,
                          (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_COUNTS]),
                                          VOTECL__ARG_UINT(groups),
                                          VOTECL__ARG_BUF(f->buf[GHT_F_OFFSETS])},
                          3)) != VOTECL_OK)
        return status;
    return votecl_buffer_read(f->buf[GHT_F_OFFSETS], 0, f->offsets, (L + 1) * 4);
}

votecl_status
votecl__ght_front_canny(votecl__ght_front *front, const uint8_t *data, uint32_t width,
                        uint32_t height, unsigned low, unsigned high)
{
    votecl__ght_front *f = front;
    size_t pixels = (size_t)width * height;
    double t0 = votecl__ght_now();
    votecl_status status;

    f->seconds[1] = 0; /* no pairing of these edges yet */

    if (pixels > UINT32_MAX)
        return votecl__fail(f->context, VOTECL_UNSUPPORTED, "image: more than 2^32 entries");
    if (pixels == 0) { /* an empty image has no edges */
        memset(f->offsets, 0, ((size_t)f->desc.levels + 1) * sizeof *f->offsets);
        f->seconds[0] = 0;
        return VOTECL_OK;
    }
    if ((status = votecl__ght_ensure(f->context, &f->buf[GHT_F_IMAGE], pixels)) != VOTECL_OK ||
        (status = votecl_buffer_write(f->buf[GHT_F_IMAGE], 0, data, pixels)) != VOTECL_OK ||
        (status = votecl__ght_ensure(f->context, &f->buf[GHT_F_STATE], pixels * 4)) != VOTECL_OK ||
        (status = launch_tiles(f, K_STATE, width, height,
                               (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_IMAGE]),
                                               VOTECL__ARG_UINT(width), VOTECL__ARG_UINT(height),
                                               VOTECL__ARG_UINT(low), VOTECL__ARG_UINT(high),
                                               VOTECL__ARG_BUF(dirs(f)),
                                               VOTECL__ARG_BUF(f->buf[GHT_F_STATE])},
                               7)) != VOTECL_OK)
        return status;
    if (low < high && (status = device_hysteresis(f, width, height)) != VOTECL_OK)
        return status;
    status = sort_states(f, width, height);
    f->seconds[0] = votecl__ght_now() - t0;
    return status;
}

votecl_status
votecl__ght_front_set_edges(votecl__ght_front *front, const votecl__ght_edges *edges)
{
    votecl__ght_front *f = front;
    size_t L1 = (size_t)f->desc.levels + 1;
    double t0 = votecl__ght_now();
    votecl_status status;

    f->seconds[1] = 0;

    if ((status = votecl__ght_ensure(f->context, &f->buf[GHT_F_POINTS],
                                     edges->n * sizeof *edges->points)) != VOTECL_OK ||
        (status = votecl__ght_ensure(f->context, &f->buf[GHT_F_OFFSETS], L1 * 4)) != VOTECL_OK ||
        (edges->n > 0 &&
         (status = votecl_buffer_write(f->buf[GHT_F_POINTS], 0, edges->points,
                                       edges->n * sizeof *edges->points)) != VOTECL_OK) ||
        (status = votecl_buffer_write(f->buf[GHT_F_OFFSETS], 0, edges->offsets, L1 * 4)) !=
            VOTECL_OK)
        return status;
    memcpy(f->offsets, edges->offsets, L1 * 4);
    f->seconds[0] = votecl__ght_now() - t0;
    return VOTECL_OK;
}

votecl_status
votecl__ght_front_read_edges(votecl__ght_front *front, votecl__ght_edges *edges)
{
    votecl__ght_front *f = front;
    size_t L1 = (size_t)f->desc.levels + 1, n = votecl__ght_front_count(f, NULL);
    votecl_status status = VOTECL_OK;

    memset(edges, 0, sizeof *edges);
    edges->points = votecl__malloc((n > 0 ? n : 1) * sizeof *edges->points);
    edges->offsets = votecl__malloc(L1 * sizeof *edges->offsets);
    if (edges->points == NULL || edges->offsets == NULL) {
        votecl__ght_edges_clear(edges);
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for edges");
    }
    memcpy(edges->offsets, f->offsets, L1 * 4);
    edges->n = n;
    if (n > 0)
        status =
            votecl_buffer_read(f->buf[GHT_F_POINTS], 0, edges->points, n * sizeof *edges->points);
    if (status != VOTECL_OK)
        votecl__ght_edges_clear(edges);
    return status;
}

/* --- the stage table's edges (lib/ght-private.h) --- */

/* The points sorted into *edges, or the failure recorded. */
static votecl_status
sorted_edges(votecl__ght_run *run, const votecl__ght_point *points, size_t n,
             votecl__ght_edges *edges)
{
    votecl_status status = votecl__ght_edges_sort(points, n, run->desc->levels, edges);

    return status != VOTECL_OK ? votecl__fail(run->context, status, "out of memory for edges")
                               : VOTECL_OK;
}

votecl_status
votecl__ght_points_ref(votecl__ght_run *run, const votecl__ght_point *points, size_t n)
{
    votecl__ght_edges edges;
    votecl_status status = sorted_edges(run, points, n, &edges);

    if (status != VOTECL_OK)
        return status;
    votecl__ght_edges_clear(&run->edges);
    run->edges = edges;
    return VOTECL_OK;
}

votecl_status
votecl__ght_points_device(votecl__ght_run *run, const votecl__ght_point *points, size_t n)
{
    votecl__ght_edges edges;
    votecl_status status = sorted_edges(run, points, n, &edges);

    if (status != VOTECL_OK)
        return status;
    status = votecl__ght_front_set_edges(run->front, &edges);
    votecl__ght_edges_clear(&edges);
    return status;
}

/* The reference's edges of a u8 image, handed as points to set (the reference's or the
 * device's). */
static votecl_status
ref_canny(votecl__ght_run *run, const uint8_t *data, uint32_t width, uint32_t height, unsigned low,
          unsigned high, votecl_status (*set)(votecl__ght_run *, const votecl__ght_point *, size_t))
{
    size_t pixels = (size_t)width * height, n;
    /* One buffer: the edges, then their points written over them in place (a point is
     * smaller than an edge and point i ends before edge i + 1 starts), so that a large image
     * holds one edge list, not two (the GHT's memory limit counts one). */
    votecl__edge *edges = votecl__malloc((pixels > 0 ? pixels : 1) * sizeof *edges);
    votecl__ght_point *points = (votecl__ght_point *)(void *)edges;
    votecl_status status;

    _Static_assert(sizeof *points <= sizeof *edges, "points are written over edges");

    if (edges == NULL || (n = votecl__canny_ref(data, width, height, low, high, edges)) ==
                             (size_t)-1) {
        status = votecl__fail(run->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for edges");
    } else {
        for (size_t i = 0; i < n; i++) {
            votecl__edge e = edges[i];
            points[i].x = e.x;
            points[i].y = e.y;
            points[i].bin = votecl__ght_bin(run->desc, e.gx, e.gy);
        }
        status = set(run, points, n);
    }
    free(edges);
    return status;
}

/* The same edges by the host's Canny (votecl__ght_host_canny), handed to set. */
static votecl_status
host_canny(votecl__ght_run *run, const uint8_t *data, uint32_t width, uint32_t height, unsigned low,
           unsigned high,
           votecl_status (*set)(votecl__ght_run *, const votecl__ght_point *, size_t))
{
    const votecl__ght_point *points;
    size_t n = votecl__ght_host_canny(run->desc, data, width, height, low, high, &run->canny_memo,
                                      &points);

    if (n == (size_t)-1)
        return votecl__fail(run->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for edges");
    return set(run, points, n);
}

votecl_status
votecl__ght_canny_ref(votecl__ght_run *run, const uint8_t *data, uint32_t width, uint32_t height,
                      unsigned low, unsigned high)
{
    return ref_canny(run, data, width, height, low, high, votecl__ght_points_ref);
}

votecl_status
votecl__ght_canny_host(votecl__ght_run *run, const uint8_t *data, uint32_t width, uint32_t height,
                       unsigned low, unsigned high)
{
    double t0 = votecl__ght_now();
    votecl_status status = host_canny(run, data, width, height, low, high, votecl__ght_points_ref);

    run->host_seconds = votecl__ght_now() - t0;
    return status;
}

/* On a CPU-shaped context (votecl__ght_host_edges; VOTECL_FORCE_SHAPE=gpu asks for the
 * kernels on any device) the host's Canny, uploaded: it beats the edge kernels' launches and
 * read-backs there (pic1 on PoCL, 2 cores: the reference's Canny took 0.8 ms with the upload
 * against the kernels' 1.2-1.5 ms, 2026-11-25) and spares PoCL's first call the code generation of
 * eight kernels, about 2 s. The edges are the same. */
votecl_status
votecl__ght_canny_device(votecl__ght_run *run, const uint8_t *data, uint32_t width,
                         uint32_t height, unsigned low, unsigned high)
{
    if (votecl__ght_host_edges(run->context)) { /* the time: the host's Canny and the upload */
        double t0 = votecl__ght_now();
        votecl_status status =
            host_canny(run, data, width, height, low, high, votecl__ght_points_device);

        run->front->seconds[0] = votecl__ght_now() - t0;
        return status;
    }
    return votecl__ght_front_canny(run->front, data, width, height, low, high);
}

size_t
votecl__ght_count_ref(const votecl__ght_run *run, const uint32_t **offsets)
{
    *offsets = run->edges.offsets;
    return run->edges.n;
}

size_t
votecl__ght_count_device(const votecl__ght_run *run, const uint32_t **offsets)
{
    return votecl__ght_front_count(run->front, offsets);
}

votecl_status
votecl__ght_read_edges_ref(votecl__ght_run *run, votecl__ght_edges *out)
{
    const votecl__ght_edges *e = &run->edges;
    size_t L1 = (size_t)run->desc->levels + 1;

    memset(out, 0, sizeof *out);
    out->points = votecl__malloc((e->n > 0 ? e->n : 1) * sizeof *out->points);
    out->offsets = votecl__malloc(L1 * sizeof *out->offsets);
    if (out->points == NULL || out->offsets == NULL) {
        votecl__ght_edges_clear(out);
        return votecl__fail(run->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for edges");
    }
    if (e->n > 0)
        memcpy(out->points, e->points, e->n * sizeof *out->points);
    memcpy(out->offsets, e->offsets, L1 * sizeof *out->offsets);
    out->n = e->n;
    return VOTECL_OK;
}

votecl_status
votecl__ght_read_edges_device(votecl__ght_run *run, votecl__ght_edges *out)
{
    return votecl__ght_front_read_edges(run->front, out);
}

void
votecl__ght_seconds_ref(const votecl__ght_run *run, double *edges, double *pairing)
{
    (void)run;
    *edges = 0;
    *pairing = 0;
}

void
votecl__ght_seconds_host(const votecl__ght_run *run, double *edges, double *pairing)
{
    *edges = run->host_seconds;
    *pairing = 0;
}

void
votecl__ght_seconds_device(const votecl__ght_run *run, double *edges, double *pairing)
{
    votecl__ght_front_seconds(run->front, edges, pairing);
}
