/* The generalized Hough transform's device front end: the image uploaded once, its edges
 * (Canny for Guil, Sobel + non-maximum suppression + threshold for Ballard) found,
 * compacted and sorted by gradient bin on the device (cl/ght-edges.cl), Guil's pairings
 * listed there by key in two passes with LB or SSM (cl/ght-pairs.cl) straight into the S
 * and D stages' buffers, Ballard's accumulator voted and its maxima found there
 * (cl/ght-peaks.cl). The host reads back only small arrays: the L + 1 edge offsets, the
 * pairings' L * L + 1 offsets (the O space is their differences), Ballard's candidates.
 * Every list equals the reference's (lib/ght-ref.c); pairings within a key in another
 * order. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* clock_gettime */
#endif

#include "votecl-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
/* Groups of the accumulator's maximum. */
#define MAX_GROUPS 1024u
/* Ballard candidates read back with the first try. */
#define CAND_FIRST 256u
#define CAND_WORDS 6u
#define HEAD_WORDS 4u

enum {
    K_STATE,
    K_HYSTERESIS,
    K_SORT_COUNT,
    K_SCAN_SUMS,
    K_SCAN_TOP,
    K_SCAN_DOWN,
    K_SCATTER,
    K_SORT_OFFSETS,
    K_COUNT_LB,
    K_COUNT_SSM,
    K_WRITE_LB,
    K_WRITE_SSM,
    K_PAIR_OFFSETS,
    K_CAP_COUNT,
    K_CAP_WRITE,
    K_MAX_BLOCKS,
    K_THRESHOLD,
    K_PEAKS,
    K_COUNT
};

static const char *const edge_kernels[] = {
    "ght_edge_state",   "ght_hysteresis",   "ght_sort_count", "ght_scan_sums",
    "ght_scan_top",     "ght_scan_down",    "ght_sort_scatter", "ght_sort_offsets",
};
static const char *const pair_kernels[] = {
    "ght_pairs_count_lb", "ght_pairs_count_ssm", "ght_pairs_write_lb", "ght_pairs_write_ssm",
    "ght_pairs_offsets",  "ght_pairs_cap_count", "ght_pairs_cap_write",
};
static const char *const peak_kernels[] = {"ght_max_blocks", "ght_peaks_threshold",
                                           "ght_ballard_peaks"};

static const char *const edge_files[] = {"ght-common.cl", "ght-edges.cl", NULL};
static const char *const pair_files[] = {"ght-common.cl", "ght-pairs.cl", NULL};
static const char *const peak_files[] = {"ght-peaks.cl", NULL};

static const votecl__ght_program programs[] = {
    {VOTECL__GHT_EDGES, edge_files, VOTECL__GHT_DEF_L | VOTECL__GHT_DEF_EDGES, edge_kernels, 8},
    {VOTECL__GHT_PAIRS, pair_files, VOTECL__GHT_DEF_L | VOTECL__GHT_DEF_XI | VOTECL__GHT_DEF_M,
     pair_kernels, 7},
    {VOTECL__GHT_PEAKS, peak_files, VOTECL__GHT_DEF_S, peak_kernels, 3},
};

/* Device buffers: the image and its per-pixel states, the hysteresis flag, counts to scan
 * and their block sums, the sorted points and offsets, pairing tasks, the template
 * pairings' offsets, Ballard's accumulator and candidates, the capped pairings (then the
 * spare). */
enum {
    B_IMAGE,
    B_STATE,
    B_FLAG,
    B_COUNTS,
    B_SUMS,
    B_POINTS,
    B_OFFSETS,
    B_TASKS,
    B_TOFFSETS,
    B_SPACE,
    B_CAND,
    B_CAPPED,
    B_COUNT
};

struct votecl__ght_front {
    votecl_context *context;
    votecl__ght_device *dev;
    votecl__ght_desc desc;
    votecl_buffer *buf[B_COUNT];
    uint32_t *offsets; /* the current edges' L + 1 offsets */
    uint32_t *cand;    /* Ballard's candidates read back */
    size_t cand_capacity;
    double seconds[2]; /* the last edge and pairing stages */
};

static double
now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

votecl_status
votecl__ght_front_new(votecl_context *context, votecl__ght_device *dev,
                      const votecl__ght_desc *desc, votecl__ght_front **out)
{
    votecl__ght_front *f = votecl__calloc(1, sizeof *f);

    *out = NULL;
    if (context->info.max_work_group_size < TILE_X * TILE_Y) {
        free(f);
        return votecl__fail(context, VOTECL_UNSUPPORTED,
                            "device: work-groups of %zu work-items, the edge kernels need %u",
                            context->info.max_work_group_size, TILE_X * TILE_Y);
    }
    if (f == NULL ||
        (f->offsets = votecl__calloc((size_t)desc->levels + 1, sizeof *f->offsets)) == NULL) {
        free(f);
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    }
    f->context = context;
    f->dev = dev;
    f->desc = *desc;
    *out = f;
    return VOTECL_OK;
}

void
votecl__ght_front_free(votecl__ght_front *front)
{
    if (front == NULL)
        return;
    for (int b = 0; b < B_COUNT; b++)
        votecl_buffer_free(front->buf[b]);
    free(front->offsets);
    free(front->cand);
    free(front);
}

void
votecl__ght_front_seconds(const votecl__ght_front *front, double *edges, double *pairing)
{
    *edges = front->seconds[0];
    *pairing = front->seconds[1];
}

size_t
votecl__ght_front_count(const votecl__ght_front *front, const uint32_t **offsets)
{
    if (offsets != NULL)
        *offsets = front->offsets;
    return front->offsets[front->desc.levels];
}

/* --- helpers --- */

/* Makes *b hold at least size bytes (4 at least). */
static votecl_status
ensure(votecl__ght_front *f, votecl_buffer **b, size_t size)
{
    return votecl__buffer_ensure(f->context, b, size > 4 ? size : 4);
}

/* Launches kernel k (of K_COUNT) of its stage's program. */
static votecl_status
launch(votecl__ght_front *f, int k, unsigned dims, const size_t *global, const size_t *local,
       const votecl__arg *args, unsigned nargs)
{
    int p = k < K_COUNT_LB ? 0 : k < K_MAX_BLOCKS ? 1 : 2;
    int first[] = {0, K_COUNT_LB, K_MAX_BLOCKS};
    void *kernel;
    votecl_status status = votecl__ght_device_kernel(f->dev, &programs[p], k - first[p], &kernel);

    if (status != VOTECL_OK)
        return status;
    return votecl__launch(f->context, kernel, dims, global, local, args, nargs);
}

static votecl_status
launch1(votecl__ght_front *f, int k, size_t items, const votecl__arg *args, unsigned nargs)
{
    size_t local = WG, global = votecl__round_up(items, WG);

    return launch(f, k, 1, &global, &local, args, nargs);
}

/* A 2-D launch over the pixels in hysteresis tiles. */
static votecl_status
launch_tiles(votecl__ght_front *f, int k, uint32_t w, uint32_t h, const votecl__arg *args,
             unsigned nargs)
{
    size_t local[2] = {TILE_X, TILE_Y};
    size_t global[2] = {votecl__round_up(w, TILE_X), votecl__round_up(h, TILE_Y)};

    return launch(f, k, 2, global, local, args, nargs);
}

static votecl_status
too_large(votecl__ght_front *f, const char *what)
{
    return votecl__fail(f->context, VOTECL_UNSUPPORTED, "%s: more than 2^32 entries", what);
}

/* a[0 .. n) (n + 1 entries) becomes its exclusive prefix sum, a[n] the total. */
static votecl_status
scan(votecl__ght_front *f, votecl_buffer *a, size_t n)
{
    size_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
    votecl_status status = ensure(f, &f->buf[B_SUMS], (blocks + 1) * 4);

    if (status == VOTECL_OK)
        status = launch1(f, K_SCAN_SUMS, blocks * WG,
                         (votecl__arg[]){VOTECL__ARG_BUF(a), VOTECL__ARG_UINT(n),
                                         VOTECL__ARG_BUF(f->buf[B_SUMS])},
                         3);
    if (status == VOTECL_OK)
        status =
            launch1(f, K_SCAN_TOP, WG,
                    (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_SUMS]), VOTECL__ARG_UINT(blocks)}, 2);
    if (status == VOTECL_OK)
        status = launch1(f, K_SCAN_DOWN, blocks * WG,
                         (votecl__arg[]){VOTECL__ARG_BUF(a), VOTECL__ARG_UINT(n),
                                         VOTECL__ARG_BUF(f->buf[B_SUMS])},
                         3);
    return status;
}

static votecl_buffer *
dirs(votecl__ght_front *f)
{
    return *votecl__ght_device_slot(f->dev, VOTECL__GHT_SLOT_DIRS);
}

/* --- edges --- */

/* Strong pixels 8-connected through weak ones to strong ones become strong: tile passes
 * until one changes nothing. */
static votecl_status
hysteresis(votecl__ght_front *f, uint32_t w, uint32_t h)
{
    uint32_t changed = 1, passes = 0;
    votecl_status status = ensure(f, &f->buf[B_FLAG], 4);

    for (; status == VOTECL_OK && changed != 0; passes++) {
        if ((status = votecl__buffer_zero(f->buf[B_FLAG], 0, 4)) == VOTECL_OK &&
            (status =
                 launch_tiles(f, K_HYSTERESIS, w, h,
                              (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_STATE]), VOTECL__ARG_UINT(w),
                                              VOTECL__ARG_UINT(h), VOTECL__ARG_BUF(f->buf[B_FLAG])},
                              4)) == VOTECL_OK)
            status = votecl_buffer_read(f->buf[B_FLAG], 0, &changed, 4);
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
    if ((status = ensure(f, &f->buf[B_COUNTS], (entries + 1) * 4)) != VOTECL_OK ||
        (status = ensure(f, &f->buf[B_POINTS], most * sizeof(votecl__ght_point))) != VOTECL_OK ||
        (status = ensure(f, &f->buf[B_OFFSETS], (L + 1) * 4)) != VOTECL_OK ||
        (status =
             launch1(f, K_SORT_COUNT, groups * WG,
                     (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_STATE]), VOTECL__ARG_UINT(pixels),
                                     VOTECL__ARG_UINT(chunk), VOTECL__ARG_BUF(f->buf[B_COUNTS])},
                     4)) != VOTECL_OK ||
        (status = scan(f, f->buf[B_COUNTS], entries)) != VOTECL_OK ||
        (status = launch1(f, K_SCATTER, groups * WG,
                          (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_STATE]), VOTECL__ARG_UINT(w),
                                          VOTECL__ARG_UINT(pixels), VOTECL__ARG_UINT(chunk),
                                          VOTECL__ARG_BUF(f->buf[B_COUNTS]),
                                          VOTECL__ARG_BUF(f->buf[B_POINTS])},
                          6)) != VOTECL_OK ||
        (status =
             launch1(f, K_SORT_OFFSETS, L + 1,
                     (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_COUNTS]), VOTECL__ARG_UINT(groups),
                                     VOTECL__ARG_BUF(f->buf[B_OFFSETS])},
                     3)) != VOTECL_OK)
        return status;
    return votecl_buffer_read(f->buf[B_OFFSETS], 0, f->offsets, (L + 1) * 4);
}

votecl_status
votecl__ght_front_canny(votecl__ght_front *front, const uint8_t *data, uint32_t width,
                        uint32_t height, unsigned low, unsigned high)
{
    votecl__ght_front *f = front;
    size_t pixels = (size_t)width * height;
    double t0 = now();
    votecl_status status;

    f->seconds[1] = 0; /* no pairing of these edges yet */

    if (pixels > UINT32_MAX)
        return too_large(f, "image");
    if (pixels == 0) { /* an empty image has no edges */
        memset(f->offsets, 0, ((size_t)f->desc.levels + 1) * sizeof *f->offsets);
        f->seconds[0] = 0;
        return VOTECL_OK;
    }
    if ((status = ensure(f, &f->buf[B_IMAGE], pixels)) != VOTECL_OK ||
        (status = votecl_buffer_write(f->buf[B_IMAGE], 0, data, pixels)) != VOTECL_OK ||
        (status = ensure(f, &f->buf[B_STATE], pixels * 4)) != VOTECL_OK ||
        (status =
             launch_tiles(f, K_STATE, width, height,
                          (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_IMAGE]), VOTECL__ARG_UINT(width),
                                          VOTECL__ARG_UINT(height), VOTECL__ARG_UINT(low),
                                          VOTECL__ARG_UINT(high), VOTECL__ARG_BUF(dirs(f)),
                                          VOTECL__ARG_BUF(f->buf[B_STATE])},
                          7)) != VOTECL_OK)
        return status;
    if (low < high && (status = hysteresis(f, width, height)) != VOTECL_OK)
        return status;
    status = sort_states(f, width, height);
    f->seconds[0] = now() - t0;
    return status;
}

votecl_status
votecl__ght_front_set_edges(votecl__ght_front *front, const votecl__ght_edges *edges)
{
    votecl__ght_front *f = front;
    size_t L1 = (size_t)f->desc.levels + 1;
    double t0 = now();
    votecl_status status;

    f->seconds[1] = 0;

    if ((status = ensure(f, &f->buf[B_POINTS], edges->n * sizeof *edges->points)) != VOTECL_OK ||
        (status = ensure(f, &f->buf[B_OFFSETS], L1 * 4)) != VOTECL_OK ||
        (edges->n > 0 &&
         (status = votecl_buffer_write(f->buf[B_POINTS], 0, edges->points,
                                       edges->n * sizeof *edges->points)) != VOTECL_OK) ||
        (status = votecl_buffer_write(f->buf[B_OFFSETS], 0, edges->offsets, L1 * 4)) != VOTECL_OK)
        return status;
    memcpy(f->offsets, edges->offsets, L1 * 4);
    f->seconds[0] = now() - t0;
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
        status = votecl_buffer_read(f->buf[B_POINTS], 0, edges->points, n * sizeof *edges->points);
    if (status != VOTECL_OK)
        votecl__ght_edges_clear(edges);
    return status;
}

/* --- Guil's pairings --- */

/* The current edges' tasks, then the first task of every bin (L + 1; malloc'd). */
static uint32_t *
pair_tasks(const votecl__ght_front *f, size_t *ntasks)
{
    uint32_t L = f->desc.levels, k = 0;
    uint32_t *tasks = votecl__ght_make_tasks(f->offsets, NULL, L, ntasks), *all;

    if (tasks == NULL)
        return NULL;
    if ((all = votecl__realloc(tasks, (3 * *ntasks + L + 1) * sizeof *all)) == NULL) {
        free(tasks);
        return NULL;
    }
    for (uint32_t t = 0; t <= L; t++) {
        all[3 * *ntasks + t] = k;
        if (t < L)
            k += (f->offsets[t + 1] - f->offsets[t] + WG - 1) / WG;
    }
    return all;
}

/* At least the number of pairings: every point of bin t times those of its partner bins
 * (partner_bin of lib/ght-ref.c), only coincident points left out. */
static uint64_t
pairs_bound(const votecl__ght_front *f)
{
    const votecl__ght_desc *d = &f->desc;
    uint64_t L = d->levels, bound = 0;

    for (uint64_t t = 0; t < L; t++)
        for (uint64_t k = 0; k <= 2 * (uint64_t)d->eps; k++) {
            uint64_t u = (t + d->xi_bins + L * (d->eps + 1) + k - d->eps) % L;
            bound +=
                (uint64_t)(f->offsets[t + 1] - f->offsets[t]) * (f->offsets[u + 1] - f->offsets[u]);
        }
    return bound;
}

/* The non-empty keys of out's offsets (out->keys, out->nkeys). */
static votecl_status
pairs_keys(votecl__ght_front *f, votecl__ght_pairs *out)
{
    size_t keys = (size_t)f->desc.levels * f->desc.levels;

    out->n = out->offsets[keys];
    out->nkeys = 0;
    for (size_t k = 0; k < keys; k++)
        out->nkeys += out->offsets[k + 1] > out->offsets[k];
    if ((out->keys = votecl__malloc((out->nkeys > 0 ? out->nkeys : 1) * 4)) == NULL)
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for keys");
    out->nkeys = 0;
    for (size_t k = 0; k < keys; k++)
        if (out->offsets[k + 1] > out->offsets[k])
            out->keys[out->nkeys++] = (uint32_t)k;
    return VOTECL_OK;
}

/* The S and D stages' tasks over the template's keys. */
static votecl_status
template_tasks(votecl__ght_front *f, const votecl__ght_pairs *tp)
{
    size_t ntasks;
    uint32_t *tasks = votecl__ght_make_tasks(tp->offsets, tp->keys, tp->nkeys, &ntasks);
    votecl_buffer **slot = votecl__ght_device_slot(f->dev, VOTECL__GHT_SLOT_TTASKS);
    votecl_status status;

    if (tasks == NULL)
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for tasks");
    if ((status = ensure(f, slot, ntasks * 12)) == VOTECL_OK && ntasks > 0)
        status = votecl_buffer_write(*slot, 0, tasks, ntasks * 12);
    if (status == VOTECL_OK)
        votecl__ght_device_set_tasks(f->dev, ntasks);
    free(tasks);
    return status;
}

/* Pass 1 (count per task and alpha) and the scan of the counts, entries of them. */
static votecl_status
pairs_count(votecl__ght_front *f, votecl_ght_pairing pairing, size_t ntasks, size_t entries)
{
    int k = pairing == VOTECL_GHT_PAIRING_SSM ? K_COUNT_SSM : K_COUNT_LB;
    votecl_status status;

    if (ntasks == 0)
        return votecl__buffer_zero(f->buf[B_COUNTS], 0, 4);
    status = launch1(f, k, ntasks * WG,
                     (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_POINTS]),
                                     VOTECL__ARG_BUF(f->buf[B_OFFSETS]),
                                     VOTECL__ARG_BUF(f->buf[B_TASKS]), VOTECL__ARG_UINT(ntasks),
                                     VOTECL__ARG_BUF(dirs(f)), VOTECL__ARG_BUF(f->buf[B_COUNTS])},
                     6);
    return status == VOTECL_OK ? scan(f, f->buf[B_COUNTS], entries) : status;
}

/* The offsets of every key, then pass 2 (the pairings written to pairs). */
static votecl_status
pairs_write(votecl__ght_front *f, votecl_ght_pairing pairing, size_t ntasks, votecl_buffer *pairs,
            votecl_buffer *offsets)
{
    size_t L = f->desc.levels;
    int k = pairing == VOTECL_GHT_PAIRING_SSM ? K_WRITE_SSM : K_WRITE_LB;
    votecl_status status =
        launch1(f, K_PAIR_OFFSETS, L * L + 1,
                (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_COUNTS]), VOTECL__ARG_BUF(f->buf[B_TASKS]),
                                VOTECL__ARG_UINT(ntasks), VOTECL__ARG_BUF(offsets)},
                4);

    if (status != VOTECL_OK || ntasks == 0)
        return status;
    return launch1(f, k, ntasks * WG,
                   (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_POINTS]),
                                   VOTECL__ARG_BUF(f->buf[B_OFFSETS]),
                                   VOTECL__ARG_BUF(f->buf[B_TASKS]), VOTECL__ARG_UINT(ntasks),
                                   VOTECL__ARG_BUF(dirs(f)), VOTECL__ARG_BUF(f->buf[B_COUNTS]),
                                   VOTECL__ARG_BUF(pairs)},
                   7);
}

/* The device buffers of list's pairings and offsets. */
static void
pairs_buffers(votecl__ght_front *f, votecl__ght_list list, votecl_buffer ***pairs,
              votecl_buffer ***offsets)
{
    int image = list == VOTECL__GHT_IMAGE;

    *pairs =
        votecl__ght_device_slot(f->dev, image ? VOTECL__GHT_SLOT_IPAIRS : VOTECL__GHT_SLOT_TPAIRS);
    *offsets =
        image ? votecl__ght_device_slot(f->dev, VOTECL__GHT_SLOT_IOFFSETS) : &f->buf[B_TOFFSETS];
}

/* The cap per key (VOTECL__GHT_KEY_CAP) of the pairings in *pairs (their uncapped offsets
 * in offsets and out->offsets), as votecl__ght_ref_pairs applies it, when some key exceeds
 * it: the kept pairings counted per key and scanned into out->offsets, then written to the
 * spare buffer, which becomes *pairs; offsets get the capped offsets. */
static votecl_status
pairs_cap(votecl__ght_front *f, votecl_buffer **pairs, votecl_buffer *offsets,
          votecl__ght_pairs *out)
{
    size_t keys = (size_t)f->desc.levels * f->desc.levels, over = 0;
    uint32_t n = out->offsets[keys], cap = VOTECL__GHT_KEY_CAP;
    votecl_buffer *counts, *swap;
    votecl_status status;

    for (size_t k = 0; k < keys; k++)
        over += out->offsets[k + 1] - out->offsets[k] > cap;
    if (over == 0)
        return VOTECL_OK;
    if ((status = ensure(f, &f->buf[B_COUNTS], (keys + 1) * 4)) != VOTECL_OK ||
        (status = votecl__buffer_zero(f->buf[B_COUNTS], 0, (keys + 1) * 4)) != VOTECL_OK)
        return status;
    counts = f->buf[B_COUNTS];
    if ((status = launch1(f, K_CAP_COUNT, n,
                          (votecl__arg[]){VOTECL__ARG_BUF(*pairs), VOTECL__ARG_UINT(n),
                                          VOTECL__ARG_BUF(offsets), VOTECL__ARG_UINT(cap),
                                          VOTECL__ARG_BUF(counts)},
                          5)) != VOTECL_OK ||
        (status = scan(f, counts, keys)) != VOTECL_OK ||
        (status = votecl_buffer_read(counts, 0, out->offsets, (keys + 1) * 4)) != VOTECL_OK ||
        (status = ensure(f, &f->buf[B_CAPPED],
                         (size_t)out->offsets[keys] * sizeof(votecl__ght_pair))) != VOTECL_OK ||
        (status = launch1(f, K_CAP_WRITE, n,
                          (votecl__arg[]){VOTECL__ARG_BUF(*pairs), VOTECL__ARG_UINT(n),
                                          VOTECL__ARG_BUF(offsets), VOTECL__ARG_UINT(cap),
                                          VOTECL__ARG_BUF(counts),
                                          VOTECL__ARG_BUF(f->buf[B_CAPPED])},
                          6)) != VOTECL_OK ||
        (status = votecl_buffer_write(offsets, 0, out->offsets, (keys + 1) * 4)) != VOTECL_OK)
        return status;
    swap = *pairs;
    *pairs = f->buf[B_CAPPED];
    f->buf[B_CAPPED] = swap;
    free(out->keys);
    out->keys = NULL;
    return VOTECL_OK;
}

static votecl_status
pairs_run(votecl__ght_front *f, votecl_ght_pairing pairing, votecl__ght_list list,
          const uint32_t *tasks, size_t ntasks, uint64_t bound, votecl__ght_pairs *out)
{
    size_t L = f->desc.levels, keys1 = L * L + 1, entries = L * ntasks;
    votecl_buffer **pairs, **offsets;
    votecl_status status;

    pairs_buffers(f, list, &pairs, &offsets);
    if ((status = ensure(f, pairs, (size_t)bound * sizeof(votecl__ght_pair))) != VOTECL_OK ||
        (status = ensure(f, offsets, keys1 * 4)) != VOTECL_OK ||
        (status = ensure(f, &f->buf[B_TASKS], (3 * ntasks + L + 1) * 4)) != VOTECL_OK ||
        (status = ensure(f, &f->buf[B_COUNTS], (entries + 1) * 4)) != VOTECL_OK ||
        (status = votecl_buffer_write(f->buf[B_TASKS], 0, tasks, (3 * ntasks + L + 1) * 4)) !=
            VOTECL_OK ||
        (status = pairs_count(f, pairing, ntasks, entries)) != VOTECL_OK ||
        (status = pairs_write(f, pairing, ntasks, *pairs, *offsets)) != VOTECL_OK ||
        (status = votecl_buffer_read(*offsets, 0, out->offsets, keys1 * 4)) != VOTECL_OK ||
        (status = pairs_keys(f, out)) != VOTECL_OK)
        return status;
    return list == VOTECL__GHT_TEMPLATE ? template_tasks(f, out) : VOTECL_OK;
}

votecl_status
votecl__ght_front_pairs(votecl__ght_front *front, votecl_ght_pairing pairing, votecl__ght_list list,
                        votecl__ght_pairs *out)
{
    votecl__ght_front *f = front;
    size_t L = f->desc.levels, ntasks = 0;
    double t0 = now();
    uint32_t *tasks = pair_tasks(f, &ntasks);
    uint64_t bound = pairs_bound(f);
    votecl_status status;

    memset(out, 0, sizeof *out);
    if (tasks == NULL ||
        (out->offsets = votecl__malloc((L * L + 1) * sizeof *out->offsets)) == NULL) {
        free(tasks);
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for tasks");
    }
    if (bound > UINT32_MAX || (uint64_t)L * ntasks >= UINT32_MAX)
        status = too_large(f, "pairings");
    else
        status = pairs_run(f, pairing, list, tasks, ntasks, bound, out);
    free(tasks);
    if (status != VOTECL_OK)
        votecl__ght_pairs_clear(out);
    f->seconds[1] = now() - t0;
    return status;
}

votecl_status
votecl__ght_front_cap(votecl__ght_front *front, votecl__ght_list list, votecl__ght_pairs *pairs)
{
    votecl_buffer **buf, **offsets;
    votecl_status status;

    pairs_buffers(front, list, &buf, &offsets);
    if ((status = pairs_cap(front, buf, *offsets, pairs)) != VOTECL_OK ||
        (pairs->keys == NULL && (status = pairs_keys(front, pairs)) != VOTECL_OK))
        return status;
    return list == VOTECL__GHT_TEMPLATE ? template_tasks(front, pairs) : VOTECL_OK;
}

votecl_status
votecl__ght_front_read_pairs(votecl__ght_front *front, votecl__ght_list list,
                             votecl__ght_pairs *pairs)
{
    votecl_buffer **buf, **offsets;

    pairs_buffers(front, list, &buf, &offsets);
    free(pairs->pairs);
    if ((pairs->pairs = votecl__malloc((pairs->n > 0 ? pairs->n : 1) * sizeof *pairs->pairs)) ==
        NULL)
        return votecl__fail(front->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    return pairs->n == 0
               ? VOTECL_OK
               : votecl_buffer_read(*buf, 0, pairs->pairs, pairs->n * sizeof *pairs->pairs);
}

/* --- Ballard's maxima --- */

/* The threshold and the peaks at or above it into the candidate buffer (capacity). */
static votecl_status
peaks_find(votecl__ght_front *f, uint32_t gw, uint32_t gh, size_t cells, size_t groups)
{
    const votecl__ght_desc *d = &f->desc;
    uint64_t ratio;
    votecl_status status;

    memcpy(&ratio, &d->p.votes_ratio, sizeof ratio);
    if ((status = launch1(f, K_THRESHOLD, WG,
                          (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_SUMS]), VOTECL__ARG_UINT(groups),
                                          VOTECL__ARG_ULONG(ratio),
                                          VOTECL__ARG_UINT(d->p.votes_threshold),
                                          VOTECL__ARG_BUF(f->buf[B_CAND])},
                          5)) != VOTECL_OK)
        return status;
    return launch1(f, K_PEAKS, cells,
                   (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_SPACE]), VOTECL__ARG_UINT(gw),
                                   VOTECL__ARG_UINT(gh), VOTECL__ARG_UINT(d->rotations),
                                   VOTECL__ARG_INT(d->full_circle && d->rotations > 2),
                                   VOTECL__ARG_UINT(d->p.dp), VOTECL__ARG_BUF(f->buf[B_CAND]),
                                   VOTECL__ARG_UINT(f->cand_capacity)},
                   8);
}

/* Room for capacity candidates on both sides. */
static votecl_status
cand_reserve(votecl__ght_front *f, size_t capacity)
{
    uint32_t *cand;

    if (capacity <= f->cand_capacity && f->cand != NULL)
        return VOTECL_OK;
    if ((cand = votecl__realloc(f->cand, (HEAD_WORDS + CAND_WORDS * capacity) * 4)) == NULL)
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    f->cand = cand;
    f->cand_capacity = capacity;
    return ensure(f, &f->buf[B_CAND], (HEAD_WORDS + CAND_WORDS * capacity) * 4);
}

/* The maxima of the voted accumulator read back into f->cand; returns their number in *n. */
static votecl_status
peaks_read(votecl__ght_front *f, uint32_t gw, uint32_t gh, size_t cells, size_t *n)
{
    size_t groups = (cells + 16 * WG - 1) / (16 * WG), per;
    votecl_status status;

    groups = groups > MAX_GROUPS ? MAX_GROUPS : groups;
    per = (cells + groups - 1) / groups;
    if ((status = ensure(f, &f->buf[B_SUMS], groups * 4)) != VOTECL_OK ||
        (status = cand_reserve(f, CAND_FIRST)) != VOTECL_OK ||
        (status =
             launch1(f, K_MAX_BLOCKS, groups * WG,
                     (votecl__arg[]){VOTECL__ARG_BUF(f->buf[B_SPACE]), VOTECL__ARG_ULONG(cells),
                                     VOTECL__ARG_ULONG(per), VOTECL__ARG_BUF(f->buf[B_SUMS])},
                     4)) != VOTECL_OK)
        return status;
    for (;;) {
        size_t bytes = (HEAD_WORDS + CAND_WORDS * f->cand_capacity) * 4;
        if ((status = peaks_find(f, gw, gh, cells, groups)) != VOTECL_OK ||
            (status = votecl_buffer_read(f->buf[B_CAND], 0, f->cand, bytes)) != VOTECL_OK)
            return status;
        *n = f->cand[1];
        if (*n <= f->cand_capacity)
            return VOTECL_OK;
        if ((status = cand_reserve(f, *n)) != VOTECL_OK)
            return status;
    }
}

static int
cell_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

/* Candidate i as a pose. */
static votecl_ght_pose
cand_pose(const votecl__ght_front *f, const uint32_t *c, uint32_t gw, uint32_t gh)
{
    const votecl__ght_desc *d = &f->desc;
    size_t plane = (size_t)gw * gh;
    votecl_ght_pose pose = {0};

    pose.votes = c[1];
    pose.angle = votecl__ght_angle(d, (double)(c[0] / plane % d->rotations));
    pose.scale = votecl__ght_scale(d, (double)(c[0] / plane / d->rotations));
    memcpy(&pose.x, &c[2], sizeof pose.x);
    memcpy(&pose.y, &c[4], sizeof pose.y);
    return pose;
}

votecl_status
votecl__ght_front_ballard(votecl__ght_front *front, uint32_t width, uint32_t height,
                          votecl__ght_poses *out)
{
    votecl__ght_front *f = front;
    size_t cells = votecl__ght_ballard_cells(&f->desc, width, height), n = 0;
    uint32_t gw, gh, *c;
    votecl_status status;

    votecl__ght_grid(&f->desc, width, height, &gw, &gh);
    if ((status = ensure(f, &f->buf[B_SPACE], cells * 4)) != VOTECL_OK ||
        (status = votecl__ght_device_ballard_vote(f->dev, f->buf[B_POINTS],
                                                  votecl__ght_front_count(f, NULL), width, height,
                                                  f->buf[B_SPACE])) != VOTECL_OK ||
        (status = peaks_read(f, gw, gh, cells, &n)) != VOTECL_OK)
        return status;
    /* the reference's order (cells ascending), so the poses are the same array */
    c = f->cand + HEAD_WORDS;
    qsort(c, n, CAND_WORDS * 4, cell_cmp);
    for (size_t i = 0; i < n && status == VOTECL_OK; i++) {
        votecl_ght_pose pose = cand_pose(f, c + CAND_WORDS * i, gw, gh);
        status = votecl__ght_poses_push(out, &pose);
    }
    return status == VOTECL_OK ? status
                               : votecl__fail(f->context, status, "out of memory for poses");
}
