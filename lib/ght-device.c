/* The generalized Hough transform's device vote stages (cl/ght.cl): Guil's O space in both
 * pairing mechanisms (LB and SSM), the S and D spaces, Ballard's 4-D accumulator. Every space
 * equals the reference's exactly. The program also holds the front end's kernels
 * (cl/ght-edges.cl, ght-pairs.cl, ght-peaks.cl; lib/ght-front.c), which fills the S and D
 * stages' buffers in place and hands Ballard's vote its edges on the device. */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ght-private.h"

#define GHT_PI 3.14159265358979323846
#define GHT_WG VOTECL__GHT_WG
#define GHT_LOCAL_BUDGET 16384u /* bytes of local sub-histograms */

enum {
    K_OSPACE_LB,
    K_OSPACE_SSM,
    K_SSPACE,
    K_DSPACE,
    K_MERGE,
    K_BALLARD,
    K_SPACE_MAX,
    K_SPACE_PEAKS,
    K_LABELS,
    K_MATCHES,
    K_COUNT
};

static const char *const kernel_names[K_COUNT] = {
    "ght_ospace_lb", "ght_ospace_ssm",  "ght_sspace", "ght_dspace",  "ght_merge",
    "ght_ballard",   "ght_space_max", "ght_space_peaks", "ght_labels", "ght_matches",
};

/* B_CANDS: the candidates (bin shift, factors), B_PEAKS: D's maxima (per candidate a head,
 * then 4 ulongs each), B_CELLS: the selected maxima, B_LABELS: their label maps,
 * B_MATCHES: matches (a head, then 10 words each), B_SELCOUNT and B_THRESH: the matches of
 * each selected maximum and the thresholds of their sample */
enum {
    B_A,
    B_B,
    B_C,
    B_D,
    B_E,
    B_F,
    B_DIRS,
    B_BOUNDS,
    B_COPIES,
    B_OUT,
    B_CANDS,
    B_PEAKS,
    B_CELLS,
    B_LABELS,
    B_MATCHES,
    B_SELCOUNT,
    B_THRESH,
    B_COUNT
};

struct votecl__ght_device {
    votecl_context *context;
    votecl__ght_desc desc;
    unsigned m, g; /* local and global replication */
    votecl__program *programs[VOTECL__GHT_STAGES];        /* built on first use */
    void *kernels[VOTECL__GHT_STAGES][VOTECL__GHT_MAX_KERNELS]; /* created on first use */
    votecl_buffer *buf[B_COUNT];
    size_t bound_tasks; /* tasks of the bound template pairings */
    size_t matches_cap; /* the room for matches the last overflow asked for */
};

/* Local copies M: the parameter, or as many as fit the budget next to the larger of the O
 * (L bins) and S histograms, at most 8. */
static unsigned
local_copies(const votecl__ght_desc *desc)
{
    uint32_t bins = desc->levels > desc->scales ? desc->levels : desc->scales;
    unsigned fit = (unsigned)(GHT_LOCAL_BUDGET / (4u * bins));

    if (desc->p.replication > 0)
        return desc->p.replication < fit ? desc->p.replication : (fit > 0 ? fit : 1);
    fit = fit > 8 ? 8 : fit;
    return fit > 0 ? fit : 1;
}

static const char *const space_files[] = {"ght-common.cl", "ght.cl", NULL};

static const votecl__ght_program space_program = {
    VOTECL__GHT_SPACES, space_files,
    VOTECL__GHT_DEF_L | VOTECL__GHT_DEF_XI | VOTECL__GHT_DEF_M | VOTECL__GHT_DEF_G |
        VOTECL__GHT_DEF_S,
    kernel_names, K_COUNT};

/* The defines of prog's files (at most 12 of 64 bytes). */
static size_t
program_defines(const votecl__ght_device *dev, const votecl__ght_program *prog, char defs[][64])
{
    const votecl__ght_desc *d = &dev->desc;
    unsigned use = prog->defines;
    size_t n = 0;

    if (use & VOTECL__GHT_DEF_XI) {
        snprintf(defs[n++], 64, "GHT_EPS=%uu", d->eps);
        snprintf(defs[n++], 64, "GHT_XI=%uu", d->xi_bins);
    }
    if (use & VOTECL__GHT_DEF_G)
        snprintf(defs[n++], 64, "GHT_G=%uu", dev->g);
    if (use & VOTECL__GHT_DEF_L)
        snprintf(defs[n++], 64, "GHT_L=%uu", d->levels);
    if (use & VOTECL__GHT_DEF_M)
        snprintf(defs[n++], 64, "GHT_M=%uu", dev->m);
    if (use & VOTECL__GHT_DEF_S)
        snprintf(defs[n++], 64, "GHT_S=%uu", d->scales);
    snprintf(defs[n++], 64, "GHT_WG=%uu", GHT_WG);
    if (use & VOTECL__GHT_DEF_EDGES) {
        snprintf(defs[n++], 64, "GHT_SCAN_BLOCK=%uu", VOTECL__GHT_SCAN_BLOCK);
        snprintf(defs[n++], 64, "GHT_SORT_K=%uu", VOTECL__GHT_SORT_K);
        snprintf(defs[n++], 64, "GHT_TX=%uu", VOTECL__GHT_TILE_X);
        snprintf(defs[n++], 64, "GHT_TY=%uu", VOTECL__GHT_TILE_Y);
    }
    return n;
}

votecl_status
votecl__ght_device_kernel(votecl__ght_device *dev, const votecl__ght_program *prog, int k,
                          void **kernel)
{
    votecl__program **program = &dev->programs[prog->stage];
    void **slot = &dev->kernels[prog->stage][k];
    votecl_status status = VOTECL_OK;

    if (*slot == NULL && *program == NULL) {
        char defs[12][64];
        const char *ptrs[12];
        size_t n = program_defines(dev, prog, defs);
        for (size_t i = 0; i < n; i++)
            ptrs[i] = defs[i];
        status = votecl__program_get(dev->context, prog->files, ptrs, n, NULL, program);
    }
    if (*slot == NULL && status == VOTECL_OK)
        status = votecl__program_kernel(dev->context, *program, prog->kernels[k], slot);
    *kernel = *slot;
    return status;
}

/* Launches kernel k of the vote stages' program. */
static votecl_status
launch(votecl__ght_device *dev, int k, unsigned dims, const size_t *global, const size_t *local,
       const votecl__arg *args, unsigned nargs)
{
    void *kernel;
    votecl_status status = votecl__ght_device_kernel(dev, &space_program, k, &kernel);

    if (status != VOTECL_OK)
        return status;
    return votecl__launch(dev->context, kernel, dims, global, local, args, nargs);
}

/* Uploads size bytes (at least 4 allocated) into buffer b. */
static votecl_status
upload(votecl__ght_device *dev, int b, const void *host, size_t size)
{
    votecl_status status = votecl__buffer_ensure(dev->context, &dev->buf[b], size > 4 ? size : 4);

    if (status == VOTECL_OK && size > 0)
        status = votecl_buffer_write(dev->buf[b], 0, host, size);
    return status;
}

/* The boundary directions of the angle bins and the boundaries of the scale bins. */
static votecl_status
device_tables(votecl__ght_device *dev)
{
    const votecl__ght_desc *d = &dev->desc;
    float *bounds = votecl__malloc(((size_t)d->scales + 1) * sizeof *bounds);
    votecl_status status;

    if (bounds == NULL)
        return votecl__fail(dev->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    for (uint32_t k = 0; k <= d->scales; k++)
        bounds[k] = votecl__ght_scale_bound(d, k);
    if ((status = upload(dev, B_DIRS, d->dirs, (size_t)d->levels * 2 * sizeof *d->dirs)) ==
        VOTECL_OK)
        status = upload(dev, B_BOUNDS, bounds, ((size_t)d->scales + 1) * sizeof *bounds);
    free(bounds);
    return status;
}

votecl_status
votecl__ght_device_new(votecl_context *context, const votecl__ght_desc *desc,
                       votecl__ght_device **out)
{
    votecl__ght_device *dev = votecl__calloc(1, sizeof *dev);
    votecl_status status;

    *out = NULL;
    if (dev == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    dev->context = context;
    dev->desc = *desc;
    dev->m = local_copies(desc);
    dev->g = desc->p.global_replication > 0 ? desc->p.global_replication : 4;
    dev->g = dev->g > 64 ? 64 : dev->g;
    if ((status = device_tables(dev)) != VOTECL_OK) {
        votecl__ght_device_free(dev);
        return status;
    }
    *out = dev;
    return VOTECL_OK;
}

void
votecl__ght_device_free(votecl__ght_device *dev)
{
    if (dev == NULL)
        return;
    for (int b = 0; b < B_COUNT; b++)
        votecl_buffer_free(dev->buf[b]);
    free(dev);
}

void
votecl__ght_device_replication(const votecl__ght_device *dev, unsigned *m, unsigned *g)
{
    *m = dev->m;
    *g = dev->g;
}

/* Zeroed global copies of cells counts, and the merged output. */
static votecl_status
copies_zero(votecl__ght_device *dev, size_t cells)
{
    size_t bytes = cells * dev->g * 4;
    votecl_status status = votecl__buffer_ensure(dev->context, &dev->buf[B_COPIES], bytes);

    if (status == VOTECL_OK)
        status = votecl__buffer_ensure(dev->context, &dev->buf[B_OUT], cells * 4);
    if (status == VOTECL_OK)
        status = votecl__buffer_zero(dev->buf[B_COPIES], 0, bytes);
    return status;
}

/* Merges the copies into B_OUT. */
static votecl_status
merge(votecl__ght_device *dev, size_t cells)
{
    size_t local = GHT_WG, global = votecl__round_up(cells, local);

    return launch(dev, K_MERGE, 1, &global, &local,
                          (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[B_COPIES]),
                                          VOTECL__ARG_UINT(cells),
                                          VOTECL__ARG_BUF(dev->buf[B_OUT])},
                          3);
}

/* Merges the copies and reads cells counts back. */
static votecl_status
merge_read(votecl__ght_device *dev, size_t cells, uint32_t *out)
{
    votecl_status status = merge(dev, cells);

    return status == VOTECL_OK ? votecl_buffer_read(dev->buf[B_OUT], 0, out, cells * 4)
                               : status;
}

/* Tasks (list, first, end) of at most GHT_WG entries over the sub-lists of the lists named
 * by ids (n of them; NULL: 0 .. n - 1) with the given offsets (malloc'd, *count tasks). */
uint32_t *
votecl__ght_make_tasks(const uint32_t *offsets, const uint32_t *ids, size_t n, size_t *count)
{
    size_t total = 0, k = 0;
    uint32_t *tasks;

    for (size_t i = 0; i < n; i++) {
        uint32_t id = ids != NULL ? ids[i] : (uint32_t)i;
        total += (offsets[id + 1] - offsets[id] + GHT_WG - 1) / GHT_WG;
    }
    if ((tasks = votecl__malloc((total > 0 ? total : 1) * 3 * sizeof *tasks)) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = ids != NULL ? ids[i] : (uint32_t)i;
        for (uint32_t s = offsets[id]; s < offsets[id + 1]; s += GHT_WG, k++) {
            tasks[3 * k] = id;
            tasks[3 * k + 1] = s;
            tasks[3 * k + 2] = offsets[id + 1] - s < GHT_WG ? offsets[id + 1] : s + GHT_WG;
        }
    }
    *count = total;
    return tasks;
}

static votecl_status
fail_memory(votecl__ght_device *dev)
{
    return votecl__fail(dev->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for tasks");
}

votecl_status
votecl__ght_device_ospace(votecl__ght_device *dev, const votecl__ght_edges *edges,
                          votecl_ght_pairing pairing, uint32_t *space)
{
    uint32_t L = dev->desc.levels;
    size_t ntasks, cells = (size_t)L * L, local = GHT_WG, global;
    uint32_t *tasks = votecl__ght_make_tasks(edges->offsets, NULL, L, &ntasks);
    int k = pairing == VOTECL_GHT_PAIRING_SSM ? K_OSPACE_SSM : K_OSPACE_LB;
    votecl_status status;

    if (tasks == NULL)
        return fail_memory(dev);
    if ((status = upload(dev, B_A, edges->points, edges->n * sizeof *edges->points)) !=
            VOTECL_OK ||
        (status = upload(dev, B_B, edges->offsets, ((size_t)L + 1) * 4)) != VOTECL_OK ||
        (status = upload(dev, B_C, tasks, ntasks * 12)) != VOTECL_OK ||
        (status = copies_zero(dev, cells)) != VOTECL_OK)
        goto out;
    global = ntasks * GHT_WG;
    if (ntasks > 0)
        status = launch(dev, k, 1, &global, &local,
                                (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[B_A]),
                                                VOTECL__ARG_BUF(dev->buf[B_B]),
                                                VOTECL__ARG_BUF(dev->buf[B_C]),
                                                VOTECL__ARG_BUF(dev->buf[B_DIRS]),
                                                VOTECL__ARG_BUF(dev->buf[B_COPIES])},
                                5);
    if (status == VOTECL_OK)
        status = merge_read(dev, cells, space);
out:
    free(tasks);
    return status;
}

/* The template's pairings and tasks go to B_A and B_C, the image's pairings and offsets to
 * B_D and B_E. */
votecl_status
votecl__ght_device_bind(votecl__ght_device *dev, const votecl__ght_pairs *tp,
                        const votecl__ght_pairs *ip)
{
    size_t *ntasks = &dev->bound_tasks;
    size_t keys = (size_t)dev->desc.levels * dev->desc.levels;
    uint32_t *tasks = votecl__ght_make_tasks(tp->offsets, tp->keys, tp->nkeys, ntasks);
    votecl_status status;

    if (tasks == NULL)
        return fail_memory(dev);
    if ((status = upload(dev, B_A, tp->pairs, tp->n * sizeof *tp->pairs)) == VOTECL_OK &&
        (status = upload(dev, B_C, tasks, *ntasks * 12)) == VOTECL_OK &&
        (status = upload(dev, B_D, ip->pairs, ip->n * sizeof *ip->pairs)) == VOTECL_OK)
        status = upload(dev, B_E, ip->offsets, (keys + 1) * 4);
    free(tasks);
    return status;
}

#define GHT_CAND 3u           /* words per candidate in B_CANDS (cl/ght.cl) */
#define GHT_PEAKS_HEAD 32u     /* a D space's maxima: the count, the maximum, padding */
#define GHT_PEAKS_CAP 1024u    /* maxima a batch keeps per candidate (more: alone, all) */
#define GHT_MATCHES_HEAD 16u   /* ght_matches' head: the count */
#define GHT_MATCHES_GUESS 4096u /* matches read with the head */

/* The candidates' bin shifts and factors (GHT_CAND words each) into B_CANDS. */
static votecl_status
upload_cands(votecl__ght_device *dev, size_t n, const votecl__ght_cand *c, const uint32_t *b)
{
    uint32_t *w = votecl__malloc((n > 0 ? n : 1) * GHT_CAND * sizeof *w);
    votecl_status status;

    if (w == NULL)
        return fail_memory(dev);
    for (size_t k = 0; k < n; k++) {
        float rs[2] = {0, 0};
        if (c != NULL)
            votecl__ght_rs(cos(c[k].angle * GHT_PI / 180.0), sin(c[k].angle * GHT_PI / 180.0),
                           c[k].scale, rs);
        w[GHT_CAND * k] = c != NULL ? c[k].b : b[k];
        memcpy(&w[GHT_CAND * k + 1], &rs[0], 4);
        memcpy(&w[GHT_CAND * k + 2], &rs[1], 4);
    }
    status = upload(dev, B_CANDS, w, n * GHT_CAND * sizeof *w);
    free(w);
    return status;
}

/* The first six arguments of the pairing walks (S, D, matches): the bound pairings, the
 * tasks, the candidates. */
static void
walk_args(votecl__ght_device *dev, votecl__arg *args)
{
    args[0] = VOTECL__ARG_BUF(dev->buf[B_A]);
    args[1] = VOTECL__ARG_BUF(dev->buf[B_C]);
    args[2] = VOTECL__ARG_BUF(dev->buf[B_E]);
    args[3] = VOTECL__ARG_BUF(dev->buf[B_D]);
    args[4] = VOTECL__ARG_BUF(dev->buf[B_CANDS]);
}

/* The first eleven arguments of the position walks (D, matches): walk_args, then the bin
 * tolerance, the template's centre, the cell size and the grid. */
static void
position_args(votecl__ght_device *dev, uint32_t tol, uint32_t gw, uint32_t gh,
              votecl__arg *args)
{
    const votecl__ght_desc *d = &dev->desc;

    walk_args(dev, args);
    args[5] = VOTECL__ARG_UINT(tol);
    args[6] = VOTECL__ARG_FLOAT((float)d->cx);
    args[7] = VOTECL__ARG_FLOAT((float)d->cy);
    args[8] = VOTECL__ARG_UINT(d->p.dp);
    args[9] = VOTECL__ARG_UINT(gw);
    args[10] = VOTECL__ARG_UINT(gh);
}

/* A walk over the bound template tasks for n candidates (2-D: tasks x candidates). */
static votecl_status
walk(votecl__ght_device *dev, int kernel, size_t n, const votecl__arg *args, unsigned nargs)
{
    size_t local[2] = {GHT_WG, 1}, global[2] = {dev->bound_tasks * GHT_WG, n};

    if (dev->bound_tasks == 0 || n == 0)
        return VOTECL_OK;
    return launch(dev, kernel, 2, global, local, args, nargs);
}

votecl_status
votecl__ght_device_sspace(void *user, size_t n, const uint32_t *b, uint64_t *hists)
{
    votecl__ght_device *dev = user;
    size_t cells = n * dev->desc.scales;
    uint32_t *h = votecl__malloc((cells > 0 ? cells : 1) * sizeof *h);
    votecl__arg args[7];
    votecl_status status;

    if (h == NULL)
        return fail_memory(dev);
    if ((status = upload_cands(dev, n, NULL, b)) != VOTECL_OK ||
        (status = copies_zero(dev, cells)) != VOTECL_OK)
        goto out;
    walk_args(dev, args);
    args[5] = VOTECL__ARG_BUF(dev->buf[B_BOUNDS]);
    args[6] = VOTECL__ARG_BUF(dev->buf[B_COPIES]);
    if ((status = walk(dev, K_SSPACE, n, args, 7)) == VOTECL_OK &&
        (status = merge_read(dev, cells, h)) == VOTECL_OK)
        for (size_t k = 0; k < cells; k++)
            hists[k] = h[k];
out:
    free(h);
    return status;
}

/* The D spaces of n candidates into B_OUT (merged, candidate c's at c gw gh). */
static votecl_status
dspace_build(votecl__ght_device *dev, size_t n, const votecl__ght_cand *c, uint32_t tol,
             uint32_t gw, uint32_t gh)
{
    size_t cells = n * gw * gh;
    votecl__arg args[12];
    votecl_status status;

    if ((status = upload_cands(dev, n, c, NULL)) != VOTECL_OK ||
        (status = copies_zero(dev, cells)) != VOTECL_OK)
        return status;
    position_args(dev, tol, gw, gh, args);
    args[11] = VOTECL__ARG_BUF(dev->buf[B_COPIES]);
    if ((status = walk(dev, K_DSPACE, n, args, 12)) != VOTECL_OK)
        return status;
    return merge(dev, cells);
}

votecl_status
votecl__ght_device_dspace(void *user, uint32_t b, uint32_t tol, double angle, double scale,
                          uint32_t gw, uint32_t gh, uint32_t *space)
{
    votecl__ght_device *dev = user;
    votecl__ght_cand c = {b, angle, scale};
    votecl_status status = dspace_build(dev, 1, &c, tol, gw, gh);

    return status == VOTECL_OK
               ? votecl_buffer_read(dev->buf[B_OUT], 0, space, (size_t)gw * gh * 4)
               : status;
}

/* Room for size bytes in buffer b (grown, contents lost). */
static votecl_status
room(votecl__ght_device *dev, int b, size_t size)
{
    return votecl__buffer_ensure(dev->context, &dev->buf[b], size > 0 ? size : 4);
}

/* Copies n maxima into out (grown as needed), ranked. */
static votecl_status
take_peaks(votecl__ght_device *dev, const unsigned char *head, size_t cap,
           votecl__ght_dpeaks *out)
{
    uint32_t n;

    memcpy(&n, head, 4);
    n = n < cap ? n : (uint32_t)cap;
    if (n > out->capacity) {
        votecl__ght_dpeak *v = votecl__realloc(out->v, n * sizeof *v);
        if (v == NULL)
            return fail_memory(dev);
        out->v = v;
        out->capacity = n;
    }
    if (n > 0) /* out->v may still be NULL: memcpy(NULL, .., 0) is undefined */
        memcpy(out->v, head + GHT_PEAKS_HEAD, n * sizeof *out->v);
    out->n = n;
    votecl__ght_dpeaks_rank(out);
    return VOTECL_OK;
}

/* The maxima of the n D spaces in B_OUT with room for cap per candidate (ght_space_max,
 * ght_space_peaks), read in one go; over[c]: candidate c had more than cap (NULL: none
 * can). */
static votecl_status
space_peaks(votecl__ght_device *dev, size_t n, uint32_t gw, uint32_t gh, size_t cap,
            votecl__ght_dpeaks *out, unsigned char *over)
{
    size_t cells = (size_t)gw * gh, region = GHT_PEAKS_HEAD + cap * sizeof(votecl__ght_dpeak);
    size_t local[2] = {GHT_WG, 1}, gmax[2] = {64 * GHT_WG, n};
    size_t global[2] = {votecl__round_up(cells, GHT_WG), n};
    unsigned char *all;
    votecl_status status;

    if ((status = room(dev, B_PEAKS, n * region)) != VOTECL_OK ||
        (status = votecl__buffer_zero(dev->buf[B_PEAKS], 0, n * region)) != VOTECL_OK ||
        (status = launch(dev, K_SPACE_MAX, 2, gmax, local,
                                 (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[B_OUT]),
                                                 VOTECL__ARG_UINT(cells),
                                                 VOTECL__ARG_ULONG(region / 8),
                                                 VOTECL__ARG_BUF(dev->buf[B_PEAKS])},
                                 4)) != VOTECL_OK ||
        (status = launch(dev, K_SPACE_PEAKS, 2, global, local,
             (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[B_OUT]), VOTECL__ARG_UINT(gw),
                             VOTECL__ARG_UINT(gh), VOTECL__ARG_UINT(dev->desc.p.position_threshold),
                             VOTECL__ARG_UINT(cap), VOTECL__ARG_BUF(dev->buf[B_PEAKS])},
             6)) != VOTECL_OK)
        return status;
    if ((all = votecl__malloc(n * region)) == NULL)
        return fail_memory(dev);
    status = votecl_buffer_read(dev->buf[B_PEAKS], 0, all, n * region);
    for (size_t c = 0; c < n && status == VOTECL_OK; c++) {
        uint32_t count;
        memcpy(&count, all + c * region, 4);
        if (over != NULL)
            over[c] = count > cap;
        status = take_peaks(dev, all + c * region, cap, &out[c]);
    }
    free(all);
    return status;
}

votecl_status
votecl__ght_device_dpeaks(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol,
                          uint32_t gw, uint32_t gh, votecl__ght_dpeaks *out)
{
    votecl__ght_device *dev = user;
    size_t full = ((size_t)gw + 1) / 2 * (((size_t)gh + 1) / 2);
    size_t cap = full < GHT_PEAKS_CAP ? full : GHT_PEAKS_CAP;
    unsigned char *over = votecl__calloc(n > 0 ? n : 1, 1);
    votecl_status status = over != NULL ? dspace_build(dev, n, c, tol, gw, gh)
                                        : fail_memory(dev);

    if (status == VOTECL_OK)
        status = space_peaks(dev, n, gw, gh, cap, out, over);
    /* a candidate with more maxima than the batch keeps: alone, with room for all (a 3x3
     * maximum has no equal neighbour before it, so there is at most one per 2 x 2 cells) */
    for (size_t k = 0; status == VOTECL_OK && k < n; k++)
        if (over[k] && (status = dspace_build(dev, 1, &c[k], tol, gw, gh)) == VOTECL_OK)
            status = space_peaks(dev, 1, gw, gh, full, &out[k], NULL);
    free(over);
    return status;
}

/* The label maps of the selected maxima of n candidates into B_LABELS. */
static votecl_status
label_maps(votecl__ght_device *dev, size_t n, uint32_t gw, uint32_t gh,
           const votecl__ght_sel *sel, size_t nsel)
{
    uint32_t radius = votecl__ght_match_radius(&dev->desc);
    size_t side = 2 * (size_t)radius + 1, local = GHT_WG, bytes = n * gw * gh * 4;
    size_t global = votecl__round_up(nsel * side * side, local);
    votecl_status status;

    if ((status = room(dev, B_LABELS, bytes)) != VOTECL_OK ||
        (status = votecl__buffer_zero(dev->buf[B_LABELS], 0, bytes)) != VOTECL_OK ||
        (status = upload(dev, B_CELLS, sel, nsel * sizeof *sel)) != VOTECL_OK || nsel == 0)
        return status;
    return launch(dev, K_LABELS, 1, &global, &local,
                          (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[B_CELLS]),
                                          VOTECL__ARG_UINT(nsel), VOTECL__ARG_UINT(radius),
                                          VOTECL__ARG_UINT(gw), VOTECL__ARG_UINT(gh),
                                          VOTECL__ARG_BUF(dev->buf[B_LABELS])},
                          6);
}

/* ght_matches' pass over n candidates (pass 1 into B_MATCHES with room for cap); args: the
 * walk's first 11 (cands uploaded). */
static votecl_status
matches_walk(votecl__ght_device *dev, size_t n, votecl__arg *args, size_t nsel, unsigned pass,
             size_t cap)
{
    votecl_status status;

    if ((status = room(dev, B_MATCHES, GHT_MATCHES_HEAD + cap * sizeof(votecl__ght_match))) !=
            VOTECL_OK ||
        (status = votecl__buffer_zero(dev->buf[B_MATCHES], 0, GHT_MATCHES_HEAD)) != VOTECL_OK)
        return status;
    args[11] = VOTECL__ARG_BUF(dev->buf[B_LABELS]);
    args[12] = VOTECL__ARG_UINT(nsel);
    args[13] = VOTECL__ARG_UINT(pass);
    args[14] = VOTECL__ARG_BUF(dev->buf[B_SELCOUNT]);
    args[15] = VOTECL__ARG_BUF(dev->buf[B_THRESH]);
    args[16] = VOTECL__ARG_UINT(cap);
    args[17] = VOTECL__ARG_BUF(dev->buf[B_MATCHES]); /* after room: it may be new */
    return walk(dev, K_MATCHES, n, args, 18);
}

/* Pass 0: the matches per maximum, turned into the sample's thresholds in B_THRESH. */
static votecl_status
matches_thresholds(votecl__ght_device *dev, size_t n, votecl__arg *args, size_t nsel)
{
    uint32_t *count = votecl__malloc(nsel * sizeof *count);
    votecl_status status;

    if (count == NULL)
        return fail_memory(dev);
    if ((status = room(dev, B_SELCOUNT, nsel * 4)) == VOTECL_OK &&
        (status = room(dev, B_THRESH, nsel * 4)) == VOTECL_OK &&
        (status = votecl__buffer_zero(dev->buf[B_SELCOUNT], 0, nsel * 4)) == VOTECL_OK &&
        (status = matches_walk(dev, n, args, nsel, 0, 1)) == VOTECL_OK &&
        (status = votecl_buffer_read(dev->buf[B_SELCOUNT], 0, count, nsel * 4)) == VOTECL_OK) {
        for (size_t k = 0; k < nsel; k++)
            count[k] = votecl__ght_sample_threshold(count[k]);
        status = upload(dev, B_THRESH, count, nsel * 4);
    }
    free(count);
    return status;
}

/* Reads the matches' head and up to GHT_MATCHES_GUESS of them in one read, the rest (up to
 * cap) in a second; *n: how many there were (may exceed cap). */
static votecl_status
matches_read(votecl__ght_device *dev, size_t cap, votecl__ght_matches *out, uint32_t *n)
{
    size_t first = GHT_MATCHES_GUESS < cap ? GHT_MATCHES_GUESS : cap, have, size = sizeof *out->v;
    unsigned char *buf = votecl__malloc(GHT_MATCHES_HEAD + first * size);
    votecl_status status;

    if (buf == NULL)
        return fail_memory(dev);
    if ((status = votecl_buffer_read(dev->buf[B_MATCHES], 0, buf,
                                     GHT_MATCHES_HEAD + first * size)) != VOTECL_OK)
        goto out;
    memcpy(n, buf, 4);
    have = *n < cap ? *n : cap;
    if (have > out->capacity) {
        votecl__ght_match *v = votecl__realloc(out->v, have * size);
        if (v == NULL) {
            status = fail_memory(dev);
            goto out;
        }
        out->v = v;
        out->capacity = have;
    }
    if (have > 0) /* out->v may still be NULL: memcpy(NULL, .., 0) is undefined */
        memcpy(out->v, buf + GHT_MATCHES_HEAD, (have < first ? have : first) * size);
    if (have > first)
        status = votecl_buffer_read(dev->buf[B_MATCHES], GHT_MATCHES_HEAD + first * size,
                                    out->v + first, (have - first) * size);
    out->n = have;
out:
    free(buf);
    return status;
}

votecl_status
votecl__ght_device_matches(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol,
                           uint32_t gw, uint32_t gh, const votecl__ght_sel *sel, size_t nsel,
                           votecl__ght_matches *out)
{
    votecl__ght_device *dev = user;
    size_t cap = dev->matches_cap > 65536 ? dev->matches_cap : 65536;
    uint32_t count = 0;
    votecl__arg args[18];
    votecl_status status;

    out->n = 0;
    if ((status = upload_cands(dev, n, c, NULL)) != VOTECL_OK ||
        (status = label_maps(dev, n, gw, gh, sel, nsel)) != VOTECL_OK || nsel == 0)
        return status;
    position_args(dev, tol, gw, gh, args);
    if ((status = matches_thresholds(dev, n, args, nsel)) == VOTECL_OK &&
        (status = matches_walk(dev, n, args, nsel, 1, cap)) == VOTECL_OK)
        status = matches_read(dev, cap, out, &count);
    if (status == VOTECL_OK && count > cap) { /* too many for the room: once more, enough */
        dev->matches_cap = cap = count;
        if ((status = matches_walk(dev, n, args, nsel, 1, cap)) == VOTECL_OK)
            status = matches_read(dev, cap, out, &count);
    }
    return status;
}

/* The factors (votecl__ght_rs) of every rotation and scale step, the R-table bin shift of
 * every rotation step. */
static votecl_status
ballard_tables(votecl__ght_device *dev)
{
    const votecl__ght_desc *d = &dev->desc;
    size_t steps = (size_t)d->rotations * d->scales;
    float *rs = votecl__malloc(steps * 2 * sizeof *rs);
    uint32_t *shift = votecl__malloc((size_t)d->rotations * sizeof *shift);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (rs == NULL || shift == NULL)
        goto out;
    for (uint32_t k = 0; k < d->rotations; k++) {
        double a = votecl__ght_angle(d, k) * GHT_PI / 180.0, c = cos(a), sn = sin(a);
        for (uint32_t s = 0; s < d->scales; s++)
            votecl__ght_rs(c, sn, votecl__ght_scale(d, s), &rs[2 * ((size_t)k * d->scales + s)]);
        shift[k] = (uint32_t)lround(votecl__ght_angle(d, k) * d->levels / 360.0) % d->levels;
    }
    if ((status = upload(dev, B_E, rs, steps * 8)) == VOTECL_OK)
        status = upload(dev, B_F, shift, (size_t)d->rotations * 4);
out:
    free(rs);
    free(shift);
    return status == VOTECL_OUT_OF_HOST_MEMORY ? fail_memory(dev) : status;
}

votecl_status
votecl__ght_device_ballard_bind(votecl__ght_device *dev, const votecl__ght_rtable *table)
{
    size_t L1 = (size_t)dev->desc.levels + 1;
    votecl_status status;

    if ((status = upload(dev, B_B, table->offsets, L1 * 4)) == VOTECL_OK &&
        (status = upload(dev, B_C, table->dx, table->n * 4)) == VOTECL_OK &&
        (status = upload(dev, B_D, table->dy, table->n * 4)) == VOTECL_OK)
        status = ballard_tables(dev);
    return status;
}

votecl_status
votecl__ght_device_ballard_vote(votecl__ght_device *dev, const votecl_buffer *points, size_t n,
                                uint32_t width, uint32_t height, votecl_buffer *space)
{
    const votecl__ght_desc *d = &dev->desc;
    size_t cells = votecl__ght_ballard_cells(d, width, height);
    size_t local[2] = {GHT_WG, 1}, global[2];
    uint32_t gw, gh;
    votecl_status status = votecl__buffer_zero(space, 0, cells * 4);

    votecl__ght_grid(d, width, height, &gw, &gh);
    if (status != VOTECL_OK || n == 0)
        return status;
    global[0] = votecl__round_up(n, GHT_WG);
    global[1] = d->rotations;
    return launch(dev, K_BALLARD, 2, global, local,
        (votecl__arg[]){VOTECL__ARG_BUF(points), VOTECL__ARG_UINT(n),
                        VOTECL__ARG_BUF(dev->buf[B_B]), VOTECL__ARG_BUF(dev->buf[B_C]),
                        VOTECL__ARG_BUF(dev->buf[B_D]), VOTECL__ARG_BUF(dev->buf[B_E]),
                        VOTECL__ARG_BUF(dev->buf[B_F]), VOTECL__ARG_UINT(d->rotations),
                        VOTECL__ARG_UINT(d->p.dp), VOTECL__ARG_UINT(gw), VOTECL__ARG_UINT(gh),
                        VOTECL__ARG_BUF(space)},
        12);
}

votecl_status
votecl__ght_device_ballard(votecl__ght_device *dev, const votecl__ght_rtable *table,
                           const votecl__ght_edges *edges, uint32_t width, uint32_t height,
                           uint32_t *space)
{
    size_t cells = votecl__ght_ballard_cells(&dev->desc, width, height);
    votecl_status status;

    if ((status = votecl__ght_device_ballard_bind(dev, table)) != VOTECL_OK ||
        (status = upload(dev, B_A, edges->points, edges->n * sizeof *edges->points)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(dev->context, &dev->buf[B_OUT], cells * 4)) != VOTECL_OK ||
        (status = votecl__ght_device_ballard_vote(dev, dev->buf[B_A], edges->n, width, height,
                                                  dev->buf[B_OUT])) != VOTECL_OK)
        return status;
    return votecl_buffer_read(dev->buf[B_OUT], 0, space, cells * 4);
}

/* --- for the front end (lib/ght-front.c) --- */

votecl_buffer **
votecl__ght_device_slot(votecl__ght_device *dev, votecl__ght_slot slot)
{
    static const int buffers[] = {B_A, B_C, B_D, B_E, B_DIRS};

    return &dev->buf[buffers[slot]];
}

void
votecl__ght_device_set_tasks(votecl__ght_device *dev, size_t ntasks)
{
    dev->bound_tasks = ntasks;
}
