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

enum { K_OSPACE_LB, K_OSPACE_SSM, K_SSPACE, K_DSPACE, K_MERGE, K_BALLARD, K_COUNT };

static const char *const kernel_names[K_COUNT] = {
    "ght_ospace_lb", "ght_ospace_ssm", "ght_sspace", "ght_dspace", "ght_merge", "ght_ballard",
};

enum { B_A, B_B, B_C, B_D, B_E, B_F, B_DIRS, B_BOUNDS, B_COPIES, B_OUT, B_COUNT };

struct votecl__ght_device {
    votecl_context *context;
    votecl__ght_desc desc;
    unsigned m, g; /* local and global replication */
    votecl__program *program;
    void *kernels[K_COUNT];
    votecl_buffer *buf[B_COUNT];
    size_t bound_tasks; /* tasks of the bound template pairings */
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

static votecl_status
device_compile(votecl__ght_device *dev)
{
    static const char *const files[] = {"ght.cl", "ght-edges.cl", "ght-pairs.cl", "ght-peaks.cl",
                                        NULL};
    const votecl__ght_desc *d = &dev->desc;
    char defs[12][64];
    const char *ptrs[12];
    size_t n = 0;
    votecl_status status;

    snprintf(defs[n++], 64, "GHT_EPS=%uu", d->eps);
    snprintf(defs[n++], 64, "GHT_G=%uu", dev->g);
    snprintf(defs[n++], 64, "GHT_L=%uu", d->levels);
    snprintf(defs[n++], 64, "GHT_M=%uu", dev->m);
    snprintf(defs[n++], 64, "GHT_S=%uu", d->scales);
    snprintf(defs[n++], 64, "GHT_WG=%uu", GHT_WG);
    snprintf(defs[n++], 64, "GHT_XI=%uu", d->xi_bins);
    n += votecl__ght_front_defines(&defs[n]);
    for (size_t i = 0; i < n; i++)
        ptrs[i] = defs[i];
    status = votecl__program_get(dev->context, files, ptrs, n, NULL, &dev->program);
    for (int k = 0; k < K_COUNT && status == VOTECL_OK; k++)
        status =
            votecl__program_kernel(dev->context, dev->program, kernel_names[k], &dev->kernels[k]);
    return status;
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
    if ((status = device_compile(dev)) != VOTECL_OK ||
        (status = device_tables(dev)) != VOTECL_OK) {
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

/* Merges the copies and reads cells counts back. */
static votecl_status
merge_read(votecl__ght_device *dev, size_t cells, uint32_t *out)
{
    size_t local = GHT_WG, global = votecl__round_up(cells, local);
    votecl_status status = votecl__launch(
        dev->context, dev->kernels[K_MERGE], 1, &global, &local,
        (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[B_COPIES]), VOTECL__ARG_UINT(cells),
                        VOTECL__ARG_BUF(dev->buf[B_OUT])},
        3);

    if (status == VOTECL_OK)
        status = votecl_buffer_read(dev->buf[B_OUT], 0, out, cells * 4);
    return status;
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
        status = votecl__launch(dev->context, dev->kernels[k], 1, &global, &local,
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

votecl_status
votecl__ght_device_sspace(void *user, uint32_t b, uint64_t *hist)
{
    votecl__ght_device *dev = user;
    uint32_t S = dev->desc.scales, *h = votecl__malloc(S * sizeof *h);
    size_t ntasks = dev->bound_tasks, local = GHT_WG, global;
    votecl_status status;

    if (h == NULL)
        return fail_memory(dev);
    if ((status = copies_zero(dev, S)) != VOTECL_OK)
        goto out;
    global = ntasks * GHT_WG;
    if (ntasks > 0)
        status = votecl__launch(
            dev->context, dev->kernels[K_SSPACE], 1, &global, &local,
            (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[B_A]), VOTECL__ARG_BUF(dev->buf[B_C]),
                            VOTECL__ARG_BUF(dev->buf[B_E]), VOTECL__ARG_BUF(dev->buf[B_D]),
                            VOTECL__ARG_UINT(b), VOTECL__ARG_BUF(dev->buf[B_BOUNDS]),
                            VOTECL__ARG_BUF(dev->buf[B_COPIES])},
            7);
    if (status == VOTECL_OK && (status = merge_read(dev, S, h)) == VOTECL_OK)
        for (uint32_t s = 0; s < S; s++)
            hist[s] = h[s];
out:
    free(h);
    return status;
}

votecl_status
votecl__ght_device_dspace(void *user, uint32_t b, uint32_t tol, double angle, double scale,
                          uint32_t gw, uint32_t gh, uint32_t *space)
{
    votecl__ght_device *dev = user;
    const votecl__ght_desc *d = &dev->desc;
    float rs[2];
    size_t ntasks = dev->bound_tasks, local = GHT_WG, global, cells = (size_t)gw * gh;
    votecl_status status;

    votecl__ght_rs(cos(angle * GHT_PI / 180.0), sin(angle * GHT_PI / 180.0), scale, rs);
    if ((status = copies_zero(dev, cells)) != VOTECL_OK)
        return status;
    global = ntasks * GHT_WG;
    if (ntasks > 0)
        status = votecl__launch(
            dev->context, dev->kernels[K_DSPACE], 1, &global, &local,
            (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[B_A]), VOTECL__ARG_BUF(dev->buf[B_C]),
                            VOTECL__ARG_BUF(dev->buf[B_E]), VOTECL__ARG_BUF(dev->buf[B_D]),
                            VOTECL__ARG_UINT(b), VOTECL__ARG_UINT(tol), VOTECL__ARG_FLOAT(rs[0]),
                            VOTECL__ARG_FLOAT(rs[1]), VOTECL__ARG_FLOAT((float)d->cx),
                            VOTECL__ARG_FLOAT((float)d->cy), VOTECL__ARG_UINT(d->p.dp),
                            VOTECL__ARG_UINT(gw),
                            VOTECL__ARG_UINT(gh), VOTECL__ARG_BUF(dev->buf[B_COPIES])},
            14);
    return status == VOTECL_OK ? merge_read(dev, cells, space) : status;
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
    return votecl__launch(
        dev->context, dev->kernels[K_BALLARD], 2, global, local,
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

votecl_status
votecl__ght_device_kernel(votecl__ght_device *dev, const char *name, void **kernel)
{
    return votecl__program_kernel(dev->context, dev->program, name, kernel);
}

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
