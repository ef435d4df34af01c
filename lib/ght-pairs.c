/* The generalized Hough transform's pairing stage (Guil's), in its two implementations: the
 * reference (the specification: every pair of edge points whose gradient bins lie xi apart,
 * within epsilon, sorted by their (theta, alpha) key with start offsets; the cap per key)
 * and the device (cl/ght-pairs.cl: listed by key in two passes with LB or SSM, paper 001,
 * Sec. IV-B, straight into the vote stages' buffers, the host reading back only the L * L + 1
 * offsets), whose lists equal the reference's key for key (in another order within a key). */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ght-device.h"
#include "ght-private.h"

#define WG VOTECL__GHT_WG

/* --- the reference --- */

/* The partner bin of bin t for tolerance step k in [0, 2 eps]. */
static uint32_t
partner_bin(const votecl__ght_desc *desc, uint32_t t, uint32_t k)
{
    uint32_t L = desc->levels;
    return (
        uint32_t)(((uint64_t)t + desc->xi_bins + L * (uint64_t)(desc->eps + 1) + k - desc->eps) %
                  L);
}

/* Pairing of points a (theta) and b: key theta L + alpha, alpha the bin of (b - a) minus
 * theta (the same quantiser as gradients, so rotations shift both alike). */
static votecl__ght_pair
make_pair(const votecl__ght_desc *desc, const votecl__ght_point *a, const votecl__ght_point *b)
{
    uint32_t levels = desc->levels;
    int32_t dx = b->x - a->x, dy = b->y - a->y;
    uint32_t dir = votecl__ght_bin(desc, dx, dy);
    uint32_t alpha = (dir + levels - a->bin) % levels;
    votecl__ght_pair p = {a->bin * levels + alpha,          a->x, a->y, b->x, b->y,
                          sqrtf((float)(dx * dx + dy * dy))};
    return p;
}

/* Counts the pairings, bin by bin (i in bin t, j in the partner bins), and writes them to
 * out unless NULL. */
static size_t
pairs_visit(const votecl__ght_desc *desc, const votecl__ght_edges *e, votecl__ght_pair *out)
{
    size_t n = 0;

    for (uint32_t t = 0; t < desc->levels; t++)
        for (uint32_t k = 0; k <= 2 * desc->eps; k++) {
            uint32_t u = partner_bin(desc, t, k);
            for (uint32_t i = e->offsets[t]; i < e->offsets[t + 1]; i++)
                for (uint32_t j = e->offsets[u]; j < e->offsets[u + 1]; j++) {
                    if (e->points[i].x == e->points[j].x && e->points[i].y == e->points[j].y)
                        continue;
                    if (out != NULL)
                        out[n] = make_pair(desc, &e->points[i], &e->points[j]);
                    n++;
                }
        }
    return n;
}

uint64_t
votecl__ght_pairs_bound(const votecl__ght_desc *desc, const uint32_t *offsets)
{
    uint64_t bound = 0;

    for (uint32_t t = 0; t < desc->levels; t++)
        for (uint32_t k = 0; k <= 2 * desc->eps; k++) {
            uint32_t u = partner_bin(desc, t, k);
            bound += (uint64_t)(offsets[t + 1] - offsets[t]) * (offsets[u + 1] - offsets[u]);
        }
    return bound; /* at most E^2 (a bin's partners are distinct): no overflow below 2^32 */
}

/* a + b and a * b, saturated at UINT64_MAX */
static uint64_t
sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
sat_mul(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

uint64_t
votecl__ght_pairs_bytes(const votecl__ght_desc *desc, const uint32_t *offsets)
{
    uint64_t L = desc->levels, keys = L * L, tasks = L; /* a task or the first-task entry */

    for (uint32_t b = 0; b < desc->levels; b++)
        tasks += (offsets[b + 1] - offsets[b] + WG - 1) / WG;
    /* the two copies of the list; offsets on both sides, keys, the O space; counts per task
     * and alpha, the tasks (lib/ght-pairs.c's device, votecl__ght_ref_pairs) */
    return sat_add(sat_mul(votecl__ght_pairs_bound(desc, offsets), 2 * sizeof(votecl__ght_pair)),
                   4 * (4 * (keys + 1) + L * tasks + 1 + 3 * tasks));
}

uint32_t
votecl__ght_pair_hash(uint32_t key, int32_t xi, int32_t yi, int32_t xj, int32_t yj)
{
    uint32_t w[5] = {key, (uint32_t)xi, (uint32_t)yi, (uint32_t)xj, (uint32_t)yj};

    return votecl__ght_hash(w, 5);
}

void
votecl__ght_pairs_cap(const votecl__ght_desc *desc, votecl__ght_pairs *pairs)
{
    size_t keys = (size_t)desc->levels * desc->levels;
    uint32_t kept = 0;

    if (pairs->offsets == NULL)
        return;
    for (size_t k = 0; k < keys; k++) {
        uint32_t first = pairs->offsets[k], end = pairs->offsets[k + 1];
        uint32_t thr = votecl__ght_keep_threshold(end - first, VOTECL__GHT_KEY_CAP);
        pairs->offsets[k] = kept;
        for (uint32_t i = first; i < end; i++) {
            const votecl__ght_pair *q = &pairs->pairs[i];
            if (thr == UINT32_MAX ||
                votecl__ght_pair_hash(q->key, q->xi, q->yi, q->xj, q->yj) <= thr)
                pairs->pairs[kept++] = *q;
        }
    }
    pairs->offsets[keys] = kept;
    pairs->n = kept;
    pairs->nkeys = 0; /* fewer keys, maybe: keys has room */
    for (size_t k = 0; k < keys; k++)
        if (pairs->offsets[k + 1] > pairs->offsets[k])
            pairs->keys[pairs->nkeys++] = (uint32_t)k;
}

/* Length, then points: the order within a key (any order of equal lengths would do). */
static int
length_cmp(const void *a, const void *b)
{
    const votecl__ght_pair *x = a, *y = b;
    const int32_t u[4] = {x->xi, x->yi, x->xj, x->yj}, v[4] = {y->xi, y->yi, y->xj, y->yj};

    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    for (int k = 0; k < 4; k++)
        if (u[k] != v[k])
            return u[k] < v[k] ? -1 : 1;
    return 0;
}

votecl_status
votecl__ght_ref_pairs(const votecl__ght_desc *desc, const votecl__ght_edges *edges,
                      votecl__ght_pairs *pairs)
{
    size_t keys = (size_t)desc->levels * desc->levels, n = pairs_visit(desc, edges, NULL);
    votecl__ght_pair *raw;
    uint32_t *next;

    memset(pairs, 0, sizeof *pairs);
    if (n > UINT32_MAX)
        return VOTECL_UNSUPPORTED;
    raw = votecl__malloc((n > 0 ? n : 1) * sizeof *raw);
    pairs->pairs = votecl__malloc((n > 0 ? n : 1) * sizeof *raw);
    pairs->offsets = votecl__calloc(keys + 1, sizeof *pairs->offsets);
    next = votecl__malloc(keys * sizeof *next);
    if (raw == NULL || pairs->pairs == NULL || pairs->offsets == NULL || next == NULL) {
        free(raw);
        free(next);
        votecl__ght_pairs_clear(pairs);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    pairs_visit(desc, edges, raw);
    for (size_t i = 0; i < n; i++)
        pairs->offsets[raw[i].key + 1]++;
    for (size_t k = 0; k < keys; k++)
        pairs->offsets[k + 1] += pairs->offsets[k];
    memcpy(next, pairs->offsets, keys * sizeof *next);
    for (size_t i = 0; i < n; i++)
        pairs->pairs[next[raw[i].key]++] = raw[i];
    pairs->n = n;
    free(raw);
    for (size_t k = 0; k < keys; k++)
        if (pairs->offsets[k + 1] > pairs->offsets[k]) {
            next[pairs->nkeys++] = (uint32_t)k;
            qsort(pairs->pairs + pairs->offsets[k], pairs->offsets[k + 1] - pairs->offsets[k],
                  sizeof *pairs->pairs, length_cmp);
        }
    pairs->keys = next;
    return VOTECL_OK;
}

void
votecl__ght_pairs_clear(votecl__ght_pairs *pairs)
{
    VOTECL__FREE_ALL(pairs->pairs, pairs->offsets, pairs->keys);
    memset(pairs, 0, sizeof *pairs);
}

/* --- the device (cl/ght-pairs.cl) --- */

enum {
    K_COUNT_LB,
    K_COUNT_SSM,
    K_WRITE_LB,
    K_WRITE_SSM,
    K_PAIR_OFFSETS,
    K_CAP_COUNT,
    K_CAP_WRITE,
    K_SORT_LENGTH,
    K_COUNT
};

static const char *const kernel_names[K_COUNT] = {
    "ght_pairs_count_lb", "ght_pairs_count_ssm", "ght_pairs_write_lb",  "ght_pairs_write_ssm",
    "ght_pairs_offsets",  "ght_pairs_cap_count", "ght_pairs_cap_write", "ght_sort_length",
};

static const char *const files[] = {"ght-common.cl", "ght-pairs.cl", NULL};

static const votecl__ght_program program = {
    VOTECL__GHT_PAIRS, files, VOTECL__GHT_DEF_L | VOTECL__GHT_DEF_XI | VOTECL__GHT_DEF_M,
    kernel_names, K_COUNT};

static votecl_status
launch1(votecl__ght_front *f, int k, size_t items, const votecl__arg *args, unsigned nargs)
{
    return votecl__ght_launch1(f->dev, &program, k, items, args, nargs);
}

static votecl_buffer *
dirs(votecl__ght_front *f)
{
    return *votecl__ght_device_slot(f->dev, VOTECL__GHT_SLOT_DIRS);
}

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

/* The non-empty keys of out's offsets (out->keys, out->nkeys). Each key is written and
 * counted only when non-empty without a branch (room for one more): empty and non-empty keys
 * alternate unpredictably, and the branch's mispredictions were most of this pass. */
static votecl_status
pairs_keys(votecl__ght_front *f, votecl__ght_pairs *out)
{
    size_t keys = (size_t)f->desc.levels * f->desc.levels;

    out->n = out->offsets[keys];
    out->nkeys = 0;
    for (size_t k = 0; k < keys; k++)
        out->nkeys += out->offsets[k + 1] > out->offsets[k];
    if ((out->keys = votecl__malloc((out->nkeys + 1) * 4)) == NULL)
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for keys");
    out->nkeys = 0;
    for (size_t k = 0; k < keys; k++) {
        out->keys[out->nkeys] = (uint32_t)k;
        out->nkeys += out->offsets[k + 1] > out->offsets[k];
    }
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
    if ((status = votecl__ght_ensure(f->context, slot, ntasks * 12)) == VOTECL_OK && ntasks > 0)
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
        return votecl__buffer_zero(f->buf[GHT_F_COUNTS], 0, 4);
    status =
        launch1(f, k, ntasks * WG,
                (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_POINTS]),
                                VOTECL__ARG_BUF(f->buf[GHT_F_OFFSETS]),
                                VOTECL__ARG_BUF(f->buf[GHT_F_TASKS]), VOTECL__ARG_UINT(ntasks),
                                VOTECL__ARG_BUF(dirs(f)), VOTECL__ARG_BUF(f->buf[GHT_F_COUNTS])},
                6);
    return status == VOTECL_OK ? votecl__ght_front_scan(f, f->buf[GHT_F_COUNTS], entries) : status;
}

/* The offsets of every key, then pass 2 (the pairings written to pairs). */
static votecl_status
pairs_write(votecl__ght_front *f, votecl_ght_pairing pairing, size_t ntasks, votecl_buffer *pairs,
            votecl_buffer *offsets)
{
    size_t L = f->desc.levels;
    int k = pairing == VOTECL_GHT_PAIRING_SSM ? K_WRITE_SSM : K_WRITE_LB;
    votecl_status status = launch1(
        f, K_PAIR_OFFSETS, L * L + 1,
        (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_COUNTS]), VOTECL__ARG_BUF(f->buf[GHT_F_TASKS]),
                        VOTECL__ARG_UINT(ntasks), VOTECL__ARG_BUF(offsets)},
        4);

    if (status != VOTECL_OK || ntasks == 0)
        return status;
    return launch1(f, k, ntasks * WG,
                   (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_POINTS]),
                                   VOTECL__ARG_BUF(f->buf[GHT_F_OFFSETS]),
                                   VOTECL__ARG_BUF(f->buf[GHT_F_TASKS]), VOTECL__ARG_UINT(ntasks),
                                   VOTECL__ARG_BUF(dirs(f)), VOTECL__ARG_BUF(f->buf[GHT_F_COUNTS]),
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
    *offsets = image ? votecl__ght_device_slot(f->dev, VOTECL__GHT_SLOT_IOFFSETS)
                     : &f->buf[GHT_F_TOFFSETS];
}

/* The cap per key (VOTECL__GHT_KEY_CAP) of the pairings in *pairs (their uncapped offsets
 * in offsets and out->offsets), as votecl__ght_ref_pairs applies it, when some key exceeds
 * it: the kept pairings counted per key and scanned into out->offsets, then written to the
 * spare buffer, which becomes *pairs; offsets get the capped offsets on the device: the write's
 * cursors end each at the next key's start, so they are offsets[1..keys] (offsets[0] stays 0),
 * copied there without the host's round trip. */
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
    if ((status = votecl__ght_ensure(f->context, &f->buf[GHT_F_COUNTS], (keys + 1) * 4)) !=
            VOTECL_OK ||
        (status = votecl__buffer_zero(f->buf[GHT_F_COUNTS], 0, (keys + 1) * 4)) != VOTECL_OK)
        return status;
    counts = f->buf[GHT_F_COUNTS];
    if ((status = launch1(f, K_CAP_COUNT, n,
                          (votecl__arg[]){VOTECL__ARG_BUF(*pairs), VOTECL__ARG_UINT(n),
                                          VOTECL__ARG_BUF(offsets), VOTECL__ARG_UINT(cap),
                                          VOTECL__ARG_BUF(counts)},
                          5)) != VOTECL_OK ||
        (status = votecl__ght_front_scan(f, counts, keys)) != VOTECL_OK ||
        (status = votecl_buffer_read(counts, 0, out->offsets, (keys + 1) * 4)) != VOTECL_OK ||
        (status = votecl__ght_ensure(f->context, &f->buf[GHT_F_CAPPED],
                                     (size_t)out->offsets[keys] * sizeof(votecl__ght_pair))) !=
            VOTECL_OK ||
        (status = launch1(f, K_CAP_WRITE, n,
                          (votecl__arg[]){VOTECL__ARG_BUF(*pairs), VOTECL__ARG_UINT(n),
                                          VOTECL__ARG_BUF(offsets), VOTECL__ARG_UINT(cap),
                                          VOTECL__ARG_BUF(counts),
                                          VOTECL__ARG_BUF(f->buf[GHT_F_CAPPED])},
                          6)) != VOTECL_OK ||
        (status = votecl_buffer_copy(offsets, 4, counts, 0, keys * 4)) != VOTECL_OK)
        return status;
    swap = *pairs;
    *pairs = f->buf[GHT_F_CAPPED];
    f->buf[GHT_F_CAPPED] = swap;
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
    if ((status = votecl__ght_ensure(f->context, pairs,
                                     (size_t)bound * sizeof(votecl__ght_pair))) != VOTECL_OK ||
        (status = votecl__ght_ensure(f->context, offsets, keys1 * 4)) != VOTECL_OK ||
        (status = votecl__ght_ensure(f->context, &f->buf[GHT_F_TASKS], (3 * ntasks + L + 1) * 4)) !=
            VOTECL_OK ||
        (status = votecl__ght_ensure(f->context, &f->buf[GHT_F_COUNTS], (entries + 1) * 4)) !=
            VOTECL_OK ||
        (status = votecl_buffer_write(f->buf[GHT_F_TASKS], 0, tasks, (3 * ntasks + L + 1) * 4)) !=
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
    double t0 = votecl__ght_now();
    uint32_t *tasks = pair_tasks(f, &ntasks);
    uint64_t bound = votecl__ght_pairs_bound(&f->desc, f->offsets);
    votecl_status status;

    memset(out, 0, sizeof *out);
    if (tasks == NULL ||
        (out->offsets = votecl__malloc((L * L + 1) * sizeof *out->offsets)) == NULL) {
        free(tasks);
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for tasks");
    }
    if (bound > UINT32_MAX || (uint64_t)L * ntasks >= UINT32_MAX)
        status = votecl__fail(f->context, VOTECL_UNSUPPORTED, "pairings: more than 2^32 entries");
    else
        status = pairs_run(f, pairing, list, tasks, ntasks, bound, out);
    free(tasks);
    if (status != VOTECL_OK)
        votecl__ght_pairs_clear(out);
    f->seconds[1] = votecl__ght_now() - t0;
    return status;
}

/* Each key's n pairings in *pairs (offsets on the device) ordered by length, as
 * votecl__ght_ref_pairs orders them (equal lengths perhaps otherwise): written to the spare
 * buffer, which becomes *pairs. */
static votecl_status
pairs_sort(votecl__ght_front *f, votecl_buffer **pairs, votecl_buffer *offsets, uint32_t n)
{
    votecl_buffer *swap;
    votecl_status status;

    if (n == 0)
        return VOTECL_OK;
    if ((status = votecl__ght_ensure(f->context, &f->buf[GHT_F_CAPPED],
                                     (size_t)n * sizeof(votecl__ght_pair))) != VOTECL_OK ||
        (status = launch1(f, K_SORT_LENGTH, n,
                          (votecl__arg[]){VOTECL__ARG_BUF(*pairs), VOTECL__ARG_UINT(n),
                                          VOTECL__ARG_BUF(offsets),
                                          VOTECL__ARG_BUF(f->buf[GHT_F_CAPPED])},
                          4)) != VOTECL_OK)
        return status;
    swap = *pairs;
    *pairs = f->buf[GHT_F_CAPPED];
    f->buf[GHT_F_CAPPED] = swap;
    return VOTECL_OK;
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
    /* the image's pairings by length: the S and match stages' windows (the template's order
     * is free) */
    if (list == VOTECL__GHT_IMAGE && votecl__ght_length_windows(front->context) &&
        (status = pairs_sort(front, buf, *offsets, (uint32_t)pairs->n)) != VOTECL_OK)
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

/* --- the stage table's pairings (lib/ght-private.h) --- */

votecl_status
votecl__ght_pairs_ref(votecl__ght_run *run, votecl_ght_pairing pairing, votecl__ght_list list,
                      votecl__ght_pairs *out)
{
    votecl_status status = votecl__ght_ref_pairs(run->desc, &run->edges, out);

    (void)pairing; /* one mechanism: the specification's loops */
    if (status != VOTECL_OK)
        return votecl__fail(run->context, status, "%s: pairings do not fit memory",
                            list == VOTECL__GHT_TEMPLATE ? "template" : "image");
    return VOTECL_OK;
}

votecl_status
votecl__ght_pairs_device(votecl__ght_run *run, votecl_ght_pairing pairing, votecl__ght_list list,
                         votecl__ght_pairs *out)
{
    return votecl__ght_front_pairs(run->front, pairing, list, out);
}

votecl_status
votecl__ght_cap_ref(votecl__ght_run *run, votecl__ght_list list, votecl__ght_pairs *pairs)
{
    (void)list;
    votecl__ght_pairs_cap(run->desc, pairs);
    return VOTECL_OK;
}

votecl_status
votecl__ght_cap_device(votecl__ght_run *run, votecl__ght_list list, votecl__ght_pairs *pairs)
{
    return votecl__ght_front_cap(run->front, list, pairs);
}
