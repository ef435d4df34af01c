/* The generalized Hough transform's device state (lib/ght-device.h), shared by the stages'
 * device implementations (lib/ght-edges.c, ght-pairs.c, ght-spaces.c, ght-peaks.c): one
 * program per stage, built with only the defines its files use on the first launch of one of
 * its kernels, the kernels created on first use; the buffers through which the stages hand
 * their lists to one another on the device; the angle and scale bins' tables; the tasks of
 * the pairing walks. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* clock_gettime */
#endif

#include "votecl-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ght-device.h"
#include "ght-private.h"

#define GHT_WG VOTECL__GHT_WG
#define GHT_LOCAL_BUDGET 16384u /* bytes of local sub-histograms */

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
    /* the windows of lengths of S and the matches (cl/ght.cl) over the image's pairings
     * sorted by length, in the GPU shapes only (votecl__ght_length_windows) */
    if ((use & VOTECL__GHT_DEF_S) && votecl__ght_length_windows(dev->context))
        snprintf(defs[n++], 64, "GHT_WINDOW");
    snprintf(defs[n++], 64, "GHT_WG=%uu", GHT_WG);
    if (use & VOTECL__GHT_DEF_EDGES) {
        snprintf(defs[n++], 64, "GHT_SCAN_BLOCK=%uu", VOTECL__GHT_SCAN_BLOCK);
        snprintf(defs[n++], 64, "GHT_SORT_K=%uu", VOTECL__GHT_SORT_K);
        snprintf(defs[n++], 64, "GHT_TX=%uu", VOTECL__GHT_TILE_X);
        snprintf(defs[n++], 64, "GHT_TY=%uu", VOTECL__GHT_TILE_Y);
    }
    return n;
}

int
votecl__ght_cpu_shape(const votecl_context *context)
{
    return context->shape.cpu;
}

/* On PoCL's CPU shape the windows saved nothing (process CPU seconds of the sample pair 3.7
 * with and without, of the dense scene 7% more with them): the length sort costs what they
 * save, and loop bounds that differ between work-items may keep PoCL from running the
 * work-items' loops as one (docs/performance.md, 2026-11-27). */
int
votecl__ght_length_windows(const votecl_context *context)
{
    return !context->shape.cpu;
}

int
votecl__ght_host_edges(const votecl_context *context)
{
    return context->shape.cpu ||
           context->info.max_work_group_size < VOTECL__GHT_TILE_X * VOTECL__GHT_TILE_Y;
}

votecl_status
votecl__ght_device_kernel(votecl__ght_device *dev, const votecl__ght_program *prog, int k,
                          void **kernel)
{
    votecl__program **program = &dev->programs[prog->stage];
    void **slot = &dev->kernels[prog->stage][k];
    votecl_status status = VOTECL_OK;

    /* Every GHT program computes its poses and cells in double (cl/ght.cl's contract). */
    if (*slot == NULL && !(dev->context->shape.features & VOTECL__FEATURE_FP64))
        return votecl__fail(dev->context, VOTECL_UNSUPPORTED,
                            "ght: the device kernels need double precision (cl_khr_fp64), which "
                            "this device lacks or its profile switched off");
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

votecl_status
votecl__ght_launch(votecl__ght_device *dev, const votecl__ght_program *prog, int k, unsigned dims,
                   const size_t *global, const size_t *local, const votecl__arg *args,
                   unsigned nargs)
{
    void *kernel;
    votecl_status status = votecl__ght_device_kernel(dev, prog, k, &kernel);

    if (status != VOTECL_OK)
        return status;
    return votecl__launch(dev->context, kernel, dims, global, local, args, nargs);
}

votecl_status
votecl__ght_launch1(votecl__ght_device *dev, const votecl__ght_program *prog, int k, size_t items,
                    const votecl__arg *args, unsigned nargs)
{
    size_t local = GHT_WG, global = votecl__round_up(items, GHT_WG);

    return votecl__ght_launch(dev, prog, k, 1, &global, &local, args, nargs);
}

votecl_status
votecl__ght_ensure(votecl_context *context, votecl_buffer **b, size_t size)
{
    return votecl__buffer_ensure(context, b, size > 4 ? size : 4);
}

votecl_status
votecl__ght_device_upload(votecl__ght_device *dev, int b, const void *host, size_t size)
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
    if ((status = votecl__ght_device_upload(dev, GHT_B_DIRS, d->dirs,
                                            (size_t)d->levels * 2 * sizeof *d->dirs)) == VOTECL_OK)
        status = votecl__ght_device_upload(dev, GHT_B_BOUNDS, bounds,
                                           ((size_t)d->scales + 1) * sizeof *bounds);
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
    for (int b = 0; b < GHT_B_COUNT; b++)
        votecl_buffer_free(dev->buf[b]);
    free(dev);
}

void
votecl__ght_device_replication(const votecl__ght_device *dev, unsigned *m, unsigned *g)
{
    *m = dev->m;
    *g = dev->g;
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

votecl_buffer **
votecl__ght_device_slot(votecl__ght_device *dev, votecl__ght_slot slot)
{
    static const int buffers[] = {GHT_B_A, GHT_B_C, GHT_B_D, GHT_B_E, GHT_B_DIRS};

    return &dev->buf[buffers[slot]];
}

void
votecl__ght_device_set_tasks(votecl__ght_device *dev, size_t ntasks)
{
    dev->bound_tasks = ntasks;
}

double
votecl__ght_now(void)
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
    /* Smaller limits than a tile take the host's edges (votecl__ght_host_edges); the other
     * stages launch groups of VOTECL__GHT_WG. */
    if (context->info.max_work_group_size < VOTECL__GHT_WG) {
        free(f);
        return votecl__fail(context, VOTECL_UNSUPPORTED,
                            "device: work-groups of %zu work-items, the GHT's kernels need %u",
                            context->info.max_work_group_size, VOTECL__GHT_WG);
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
    for (int b = 0; b < GHT_F_COUNT; b++)
        votecl_buffer_free(front->buf[b]);
    free(front->offsets);
    free(front->cand);
    free(front->mirror);
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
