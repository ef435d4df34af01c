/* Ballard's detection on a GPU-shaped device in few round trips (cl/ght-ballard.cl): the
 * image uploaded, its edges found and compacted as they are (no sort); the vote, which also
 * takes the accumulator's largest count; the maxima over the threshold it gives; one read
 * back of the edges' number, the maxima and the edges' points. Three launches, one write and
 * one read a detection, where the device's stages took eleven launches, a fill and three
 * reads (docs/performance.md, "Ballard's call"): on a GPU each costs 5-10 us, more than
 * Ballard's kernels, and a read waits for the queue. The edge kernel clears the accumulator
 * when its buffer already has the room (sparing a fill) and the last maxima's kernel left the
 * work buffer's head clear (sparing another); only then do the vote and maxima follow the
 * edges before their number is known (the vote takes a guess of work-items and strides over
 * the edges), so nothing is allocated before the detection's memory limit is checked
 * (lib/ght.c, detect_ballard); a model's first image (or a larger one) reads the number back
 * first, and the accumulator and head are filled. The poses equal the reference's: the vote's
 * counts, the maxima and the confidences do not depend on the image edges' order, and the
 * template's host copy (the R-table's, whose order the confidences' walk follows) is sorted
 * as the reference's. */
#include "votecl-private.h"

#include <stdlib.h>
#include <string.h>

#include "ght-device.h"
#include "ght-private.h"

#define WG VOTECL__GHT_WG
#define HEAD_WORDS 4u /* edges, largest count, maxima, edges (moved by the maxima's kernel) */
#define CAND_WORDS 6u /* cell, votes, x and y as doubles */
#define CAND_FIRST 256u
#define POINT_WORDS 3u /* x, y, bin */

enum { K_EDGES, K_VOTE, K_FIND, K_COUNT };

static const char *const kernel_names[K_COUNT] = {"ght_ballard_edges", "ght_ballard_vote",
                                                  "ght_ballard_find"};

static const char *const files[] = {"ght-common.cl", "canny.cl", "ght-peaks.cl", "ght-ballard.cl",
                                    NULL};

static const votecl__ght_program program = {
    VOTECL__GHT_BALLARD, files, VOTECL__GHT_DEF_L | VOTECL__GHT_DEF_S | VOTECL__GHT_DEF_EDGES,
    kernel_names, K_COUNT};

_Static_assert(sizeof(votecl__ght_point) == POINT_WORDS * 4, "points are three words");

/* The work buffer's first word of the points. */
static size_t
points_at(const votecl__ght_front *f)
{
    return HEAD_WORDS + CAND_WORDS * f->cand_capacity;
}

static votecl_status
no_memory(votecl__ght_front *f)
{
    return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
}

/* The work buffer and its host mirror with room for the head, the candidates and n points
 * (the mirror keeps its words; the device buffer may come back empty). */
static votecl_status
work_reserve(votecl__ght_front *f, size_t n)
{
    size_t words;

    if (f->cand_capacity == 0)
        f->cand_capacity = CAND_FIRST;
    words = points_at(f) + POINT_WORDS * n;
    if (f->buf[GHT_F_CAND] == NULL || f->buf[GHT_F_CAND]->size < words * 4)
        f->head_clear = 0; /* a new buffer */
    if (words > f->mirror_words) {
        uint32_t *m = votecl__realloc(f->mirror, words * 4);
        if (m == NULL)
            return no_memory(f);
        f->mirror = m;
        f->mirror_words = words;
    }
    return votecl__ght_ensure(f->context, &f->buf[GHT_F_CAND], words * 4);
}

/* The vote of the edges (as many as the head says) over a gw x gh grid, on items work-items
 * a rotation (rounded up to WG; any number: the kernel takes the edges in strides). */
static votecl_status
launch_vote(votecl__ght_front *f, size_t items, uint32_t gw, uint32_t gh)
{
    votecl__ght_device *dev = f->dev;
    const votecl__ght_desc *d = &f->desc;
    size_t local[2] = {WG, 1},
           global[2] = {votecl__round_up(items > 0 ? items : 1, WG), d->rotations};

    return votecl__ght_launch(
        dev, &program, K_VOTE, 2, global, local,
        (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_CAND]), VOTECL__ARG_UINT(points_at(f)),
                        VOTECL__ARG_BUF(dev->buf[GHT_B_B]), VOTECL__ARG_BUF(dev->buf[GHT_B_C]),
                        VOTECL__ARG_BUF(dev->buf[GHT_B_D]), VOTECL__ARG_BUF(dev->buf[GHT_B_E]),
                        VOTECL__ARG_BUF(dev->buf[GHT_B_F]), VOTECL__ARG_UINT(d->rotations),
                        VOTECL__ARG_UINT(d->p.dp), VOTECL__ARG_UINT(gw), VOTECL__ARG_UINT(gh),
                        VOTECL__ARG_BUF(f->buf[GHT_F_SPACE])},
        12);
}

/* The maxima of the gw x gh accumulator over the threshold into the candidates' room. */
static votecl_status
launch_find(votecl__ght_front *f, uint32_t gw, uint32_t gh)
{
    const votecl__ght_desc *d = &f->desc;
    size_t cells = (size_t)gw * gh * d->rotations * d->scales;
    uint64_t ratio;
    votecl_status status;

    memcpy(&ratio, &d->p.votes_ratio, sizeof ratio);
    status = votecl__ght_launch1(
        f->dev, &program, K_FIND, cells,
        (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_SPACE]), VOTECL__ARG_UINT(gw),
                        VOTECL__ARG_UINT(gh), VOTECL__ARG_UINT(d->rotations),
                        VOTECL__ARG_INT(d->full_circle && d->rotations > 2),
                        VOTECL__ARG_UINT(d->p.dp), VOTECL__ARG_ULONG(ratio),
                        VOTECL__ARG_UINT(d->p.votes_threshold), VOTECL__ARG_BUF(f->buf[GHT_F_CAND]),
                        VOTECL__ARG_UINT(f->cand_capacity)},
        10);
    f->head_clear = status == VOTECL_OK; /* the kernel leaves head[0] 0 */
    return status;
}

/* With the edges just found, before their number is known: the vote on guess work-items,
 * the maxima, then one read back of the head, the candidates and guess points (the rest,
 * where there are more, in a second read). The detection then waits on the queue once. */
static votecl_status
vote_find_read(votecl__ght_front *f, uint32_t w, uint32_t h, size_t guess)
{
    size_t at = points_at(f) + POINT_WORDS * guess;
    uint32_t gw, gh;
    votecl_status status;

    votecl__ght_grid(&f->desc, w, h, &gw, &gh);
    if ((status = launch_vote(f, guess, gw, gh)) != VOTECL_OK ||
        (status = launch_find(f, gw, gh)) != VOTECL_OK ||
        (status = votecl_buffer_read(f->buf[GHT_F_CAND], 0, f->mirror, at * 4)) != VOTECL_OK)
        return status;
    f->n = f->mirror[3];
    if (f->n > guess)
        status = votecl_buffer_read(f->buf[GHT_F_CAND], at * 4, f->mirror + at,
                                    (f->n - guess) * POINT_WORDS * 4);
    f->have_points = f->done = status == VOTECL_OK;
    return status;
}

/* The w x h image uploaded, the work buffer's room for most points, its head cleared unless
 * the last maxima's kernel left head[0] 0 (the edge kernel clears the rest). */
static votecl_status
upload_image(votecl__ght_front *f, const uint8_t *data, uint32_t w, uint32_t h, size_t most)
{
    votecl_status status = votecl__ght_ensure(f->context, &f->buf[GHT_F_IMAGE], (size_t)w * h);

    if (status == VOTECL_OK)
        status = votecl_buffer_write(f->buf[GHT_F_IMAGE], 0, data, (size_t)w * h);
    if (status == VOTECL_OK)
        status = work_reserve(f, most);
    if (status == VOTECL_OK && !f->head_clear)
        status = votecl__buffer_zero(f->buf[GHT_F_CAND], 0, HEAD_WORDS * 4);
    return status;
}

/* The edges found in the image and compacted on the device, their number read back; the
 * accumulator of w x h cleared too where its buffer has the room. There, once the
 * R-table is bound (the edges are an image's), the vote and maxima follow (vote_find_read)
 * on a guess of the edges, the last detection's (last) and a quarter: no allocation, so
 * nothing grows before lib/ght.c checks the detection's memory limit. */
static votecl_status
device_edges(votecl__ght_front *f, const uint8_t *data, uint32_t w, uint32_t h, unsigned low,
             unsigned high, size_t last)
{
    size_t most = w > 2 && h > 2 ? (size_t)(w - 2) * (h - 2) : 0;
    size_t cells = votecl__ght_ballard_cells(&f->desc, w, h);
    size_t local[2] = {VOTECL__GHT_TILE_X, VOTECL__GHT_TILE_Y};
    size_t global[2] = {votecl__round_up(w, VOTECL__GHT_TILE_X),
                        votecl__round_up(h, VOTECL__GHT_TILE_Y)};
    votecl_buffer *space = f->buf[GHT_F_SPACE];
    size_t clear = space != NULL && cells > 0 && space->size / 4 >= cells ? cells : 0;
    votecl_status status;

    if ((status = upload_image(f, data, w, h, most)) != VOTECL_OK)
        return status;
    f->head_clear = 0;
    if ((status = votecl__ght_launch(
             f->dev, &program, K_EDGES, 2, global, local,
             (votecl__arg[]){
                 VOTECL__ARG_BUF(f->buf[GHT_F_IMAGE]), VOTECL__ARG_UINT(w), VOTECL__ARG_UINT(h),
                 VOTECL__ARG_UINT(low), VOTECL__ARG_UINT(high),
                 VOTECL__ARG_BUF(*votecl__ght_device_slot(f->dev, VOTECL__GHT_SLOT_DIRS)),
                 VOTECL__ARG_BUF(f->buf[GHT_F_CAND]), VOTECL__ARG_UINT(points_at(f)),
                 VOTECL__ARG_BUF(clear > 0 ? space : f->buf[GHT_F_CAND]), VOTECL__ARG_ULONG(clear)},
             10)) != VOTECL_OK)
        return status;
    f->caller = 0;
    f->cleared = clear;
    if (f->bound && clear > 0)
        return vote_find_read(f, w, h, last + last / 4 + WG < most ? last + last / 4 + WG : most);
    if ((status = votecl_buffer_read(f->buf[GHT_F_CAND], 0, f->mirror, HEAD_WORDS * 4)) !=
        VOTECL_OK)
        return status;
    f->n = f->mirror[0];
    f->have_points = f->n == 0;
    return VOTECL_OK;
}

votecl_status
votecl__ght_canny_ballard(votecl__ght_run *run, const uint8_t *data, uint32_t width,
                          uint32_t height, unsigned low, unsigned high)
{
    votecl__ght_front *f = run->front;
    double t0 = votecl__ght_now();
    size_t last = f->n;
    votecl_status status = VOTECL_OK;

    f->seconds[1] = 0;
    f->n = 0;
    f->done = 0;
    f->have_points = 1;
    f->pending = 0;
    f->caller = 0;
    f->cleared = 0;
    if (votecl__ght_host_edges(run->context)) { /* small work-groups: the host's Canny */
        const votecl__ght_point *points;
        size_t n = votecl__ght_host_canny(run->desc, data, width, height, low, high,
                                          &run->canny_memo, &points);
        if (n == (size_t)-1)
            return no_memory(f);
        status = votecl__ght_points_ballard(run, points, n);
    } else if (low < high) { /* Ballard has one threshold (lib/ght.c, edge_low) */
        return votecl__fail(f->context, VOTECL_UNSUPPORTED,
                            "ght: Ballard's device edges take one threshold");
    } else if ((size_t)width * height > 0) {
        status = device_edges(f, data, width, height, low, high, last);
    }
    f->seconds[0] = votecl__ght_now() - t0;
    return status;
}

votecl_status
votecl__ght_points_ballard(votecl__ght_run *run, const votecl__ght_point *points, size_t n)
{
    votecl__ght_front *f = run->front;
    votecl_status status = work_reserve(f, n);

    if (status != VOTECL_OK)
        return status;
    if (n > 0)
        memcpy(f->mirror + points_at(f), points, n * sizeof *points);
    f->n = n;
    f->have_points = 1;
    f->pending = 1;
    f->caller = 1;
    f->cleared = 0;
    f->done = 0;
    return VOTECL_OK;
}

size_t
votecl__ght_count_ballard(const votecl__ght_run *run, const uint32_t **offsets)
{
    if (offsets != NULL)
        *offsets = NULL; /* unsorted: read_edges sorts */
    return run->front->n;
}

/* The points into the mirror, read back unless there. */
static votecl_status
host_points(votecl__ght_front *f)
{
    votecl_status status = VOTECL_OK;

    if (!f->have_points)
        status = votecl_buffer_read(f->buf[GHT_F_CAND], points_at(f) * 4, f->mirror + points_at(f),
                                    f->n * POINT_WORDS * 4);
    f->have_points = status == VOTECL_OK;
    return status;
}

/* A stable counting sort of n points by key (0: x, 1: y, 2: bin) below buckets; count has
 * buckets + 1 entries and ends as the offsets. */
static void
sort_by(const votecl__ght_point *in, votecl__ght_point *out, size_t n, int key, size_t buckets,
        uint32_t *count)
{
#define KEY(p) ((size_t)(key == 0 ? (uint32_t)(p).x : key == 1 ? (uint32_t)(p).y : (p).bin))
    memset(count, 0, (buckets + 1) * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[KEY(in[i]) + 1]++;
    for (size_t b = 0; b < buckets; b++)
        count[b + 1] += count[b];
    for (size_t i = 0; i < n; i++)
        out[count[KEY(in[i])]++] = in[i];
    memmove(count + 1, count, buckets * sizeof *count); /* back to the starts */
    count[0] = 0;
#undef KEY
}

/* The n points sorted as the reference's (by bin, raster order within a bin) into edges. */
static int
sort_points(const votecl__ght_point *p, size_t n, uint32_t levels, votecl__ght_edges *edges)
{
    size_t buckets = levels;
    votecl__ght_point *tmp = votecl__malloc((n > 0 ? n : 1) * sizeof *tmp);
    uint32_t *count;

    for (size_t i = 0; i < n; i++) {
        buckets = (size_t)(uint32_t)p[i].x >= buckets ? (size_t)(uint32_t)p[i].x + 1 : buckets;
        buckets = (size_t)(uint32_t)p[i].y >= buckets ? (size_t)(uint32_t)p[i].y + 1 : buckets;
    }
    count = votecl__malloc((buckets + 1) * sizeof *count);
    memset(edges, 0, sizeof *edges);
    edges->points = votecl__malloc((n > 0 ? n : 1) * sizeof *edges->points);
    edges->offsets = votecl__malloc(((size_t)levels + 1) * sizeof *edges->offsets);
    if (tmp == NULL || count == NULL || edges->points == NULL || edges->offsets == NULL) {
        VOTECL__FREE_ALL(tmp, count);
        votecl__ght_edges_clear(edges);
        return 0;
    }
    sort_by(p, tmp, n, 0, buckets, count);
    sort_by(tmp, edges->points, n, 1, buckets, count);
    sort_by(edges->points, tmp, n, 2, levels, count);
    memcpy(edges->points, tmp, n * sizeof *tmp);
    memcpy(edges->offsets, count, (size_t)levels * sizeof *count);
    edges->offsets[levels] = (uint32_t)n;
    edges->n = n;
    VOTECL__FREE_ALL(tmp, count);
    return 1;
}

/* The points as they are (offsets NULL) into edges. */
static int
copy_points(const votecl__ght_point *p, size_t n, votecl__ght_edges *edges)
{
    memset(edges, 0, sizeof *edges);
    if ((edges->points = votecl__malloc((n > 0 ? n : 1) * sizeof *p)) == NULL)
        return 0;
    if (n > 0)
        memcpy(edges->points, p, n * sizeof *p);
    edges->n = n;
    return 1;
}

votecl_status
votecl__ght_read_edges_ballard(votecl__ght_run *run, votecl__ght_edges *out)
{
    votecl__ght_front *f = run->front;
    const votecl__ght_point *p = (const votecl__ght_point *)(f->mirror + points_at(f));
    votecl_status status = host_points(f);

    memset(out, 0, sizeof *out);
    if (status != VOTECL_OK)
        return status;
    /* sorting costs 25 us for pic1's 2786 edges (2 cores, 2026-11-27), a sixth of the GPU
     * call's target: only the template's edges (the R-table, the confidences' walk) and
     * the caller's need the reference's order; the caller's are kept in their order within
     * a bin, as votecl__ght_edges_sort keeps them (the fits' sums follow it, and of two
     * points on one pixel the later is the one the confidences' map keeps) */
    if (f->caller)
        status = votecl__ght_edges_sort(p, f->n, run->desc->levels, out);
    else if (!(f->bound ? copy_points(p, f->n, out) : sort_points(p, f->n, run->desc->levels, out)))
        status = VOTECL_OUT_OF_HOST_MEMORY;
    if (status != VOTECL_OK)
        return votecl__fail(f->context, status, "out of memory for edges");
    return VOTECL_OK;
}

votecl_status
votecl__ght_bind_ballard(votecl__ght_run *run, const votecl__ght_rtable *table)
{
    run->front->bound = 1;
    return votecl__ght_bind_device(run, table);
}

/* Caller points to the device, the head saying how many. */
static votecl_status
upload_points(votecl__ght_front *f)
{
    votecl_status status = work_reserve(f, f->n);

    if (status == VOTECL_OK && f->n > 0)
        status = votecl_buffer_write(f->buf[GHT_F_CAND], points_at(f) * 4, f->mirror + points_at(f),
                                     f->n * POINT_WORDS * 4);
    memset(f->mirror, 0, HEAD_WORDS * 4);
    f->mirror[0] = (uint32_t)f->n;
    f->head_clear = 0;
    if (status == VOTECL_OK)
        status = votecl_buffer_write(f->buf[GHT_F_CAND], 0, f->mirror, HEAD_WORDS * 4);
    f->pending = status != VOTECL_OK;
    return status;
}

votecl_status
votecl__ght_vote_ballard(votecl__ght_run *run, uint32_t width, uint32_t height)
{
    votecl__ght_front *f = run->front;
    size_t cells = votecl__ght_ballard_cells(run->desc, width, height);
    uint32_t gw, gh;
    votecl_status status;

    if (f->done) { /* with the edges (vote_find_read) */
        f->cleared = 0;
        return VOTECL_OK;
    }
    status = votecl__ght_ensure(f->context, &f->buf[GHT_F_SPACE], cells * 4);
    votecl__ght_grid(run->desc, width, height, &gw, &gh);
    if (status == VOTECL_OK && f->pending)
        status = upload_points(f);
    if (status == VOTECL_OK && f->cleared != cells)
        status = votecl__buffer_zero(f->buf[GHT_F_SPACE], 0, cells * 4);
    f->cleared = 0;
    if (status != VOTECL_OK || f->n == 0)
        return status;
    return launch_vote(f, f->n, gw, gh);
}

/* The maxima over the threshold into the candidates' room; then the head, the room and
 * (unless the mirror has them) the points read back in one transfer. */
static votecl_status
find_read(votecl__ght_front *f, uint32_t gw, uint32_t gh)
{
    size_t words = points_at(f) + (f->have_points ? 0 : POINT_WORDS * f->n);
    votecl_status status;

    if ((status = launch_find(f, gw, gh)) != VOTECL_OK ||
        (status = votecl_buffer_read(f->buf[GHT_F_CAND], 0, f->mirror, words * 4)) != VOTECL_OK)
        return status;
    f->have_points = 1;
    return VOTECL_OK;
}

/* Room for count candidates: the points (in the mirror) moved behind it, the head (edges
 * and largest count, no maxima) written back for another try (the maxima's kernel moves the
 * edges to head[3] again). */
static votecl_status
grow_room(votecl__ght_front *f, size_t count)
{
    size_t old = points_at(f), n = f->n;
    votecl_status status;

    f->cand_capacity = count;
    if ((status = work_reserve(f, n)) != VOTECL_OK)
        return status;
    memmove(f->mirror + points_at(f), f->mirror + old, n * POINT_WORDS * 4);
    f->mirror[0] = (uint32_t)n;
    f->mirror[2] = 0;
    f->head_clear = 0;
    return votecl_buffer_write(f->buf[GHT_F_CAND], 0, f->mirror, HEAD_WORDS * 4);
}

votecl_status
votecl__ght_peaks_ballard(votecl__ght_run *run, uint32_t width, uint32_t height,
                          votecl__ght_poses *out)
{
    votecl__ght_front *f = run->front;
    double t0 = votecl__ght_now();
    int done = f->done; /* the maxima read back with the edges (vote_find_read) */
    uint32_t gw, gh;
    votecl_status status;

    votecl__ght_grid(run->desc, width, height, &gw, &gh);
    status = done ? VOTECL_OK : find_read(f, gw, gh);
    f->done = 0;
    while (status == VOTECL_OK && f->mirror[2] > f->cand_capacity)
        if ((status = grow_room(f, f->mirror[2])) == VOTECL_OK)
            status = find_read(f, gw, gh);
    if (status != VOTECL_OK)
        return status;
    votecl__log(f->context, "ght: Ballard's maxima and read back %.2f ms%s, %u candidates",
                1e3 * (votecl__ght_now() - t0), done ? " (with the edges')" : "", f->mirror[2]);
    status =
        votecl__ght_cand_poses(run->desc, f->mirror + HEAD_WORDS, f->mirror[2], width, height, out);
    return status == VOTECL_OK ? status
                               : votecl__fail(f->context, status, "out of memory for poses");
}
