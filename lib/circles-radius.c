/* The gradient method's radius stage on a device (cl/circles-radius.cl): the radius histogram
 * of every centre, one work-group each, so that a GPU plan reads back a radius and a count per
 * centre instead of computing every centre's distances on one host core. Equal to the
 * reference's (lib/circles-ref.c) bit for bit: the bins come from the host's table of squared
 * bounds (votecl__circles_radius_tables), no square root runs on the device. */
#include "votecl-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circles-private.h"

/* Work-items per centre: the rows of a centre's square are shared among them. */
#define RADIUS_WG 64u
/* The bins of the local histogram (16 KiB: half of OpenCL's least local memory), one size for
 * every plan so that one program (and `votecl warmup`'s build of it) serves them all. */
#define RADIUS_MAX_BINS 4096

struct votecl__circles_radius {
    votecl_context *context;
    const votecl__circles_desc *desc;
    int nbins;
    void *kernel;
    votecl_buffer *bounds, *window_radii, *xy, *out; /* xy: the pixels and their row index */
};

void
votecl__circles_radius_free(votecl__circles_radius *r)
{
    if (r == NULL)
        return;
    VOTECL__FREE_BUFFERS(r->bounds, r->window_radii, r->xy, r->out);
    free(r);
}

/* The program for nbins and the tables, uploaded once. */
static votecl_status
radius_setup(votecl__circles_radius *r)
{
    static const char *const files[] = {"circles-radius.cl", NULL};
    size_t nb = (size_t)r->nbins, wr = 2 * nb + 2;
    float *tables = votecl__malloc((nb - 1 + wr + 1) * sizeof *tables);
    char define[48];
    const char *defines[1] = {define};
    votecl__program *program = NULL;
    votecl_status status;

    if (tables == NULL)
        return votecl__fail(r->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    snprintf(define, sizeof define, "CIRCLES_BINS=%d", RADIUS_MAX_BINS);
    votecl__circles_radius_tables(r->desc, r->nbins, tables, tables + nb);
    if ((status = votecl__program_get(r->context, files, defines, 1, NULL, &program)) ==
            VOTECL_OK &&
        (status = votecl__program_kernel(r->context, program, "circles_radius", &r->kernel)) ==
            VOTECL_OK &&
        (status = votecl_buffer_new(r->context, 4 * nb, &r->bounds)) == VOTECL_OK &&
        (status = votecl_buffer_new(r->context, 4 * wr, &r->window_radii)) == VOTECL_OK &&
        (status = votecl_buffer_write(r->bounds, 0, tables, 4 * (nb - 1))) == VOTECL_OK)
        status = votecl_buffer_write(r->window_radii, 0, tables + nb, 4 * wr);
    free(tables);
    return status;
}

votecl_status
votecl__circles_radius_new(votecl_context *context, const votecl__circles_desc *desc,
                           votecl__circles_radius **out)
{
    int nbins = votecl__circles_nbins(desc);
    votecl__circles_radius *r;
    votecl_status status;

    *out = NULL;
    /* a histogram that local memory cannot hold stays on the host */
    if (nbins < 2 || nbins > RADIUS_MAX_BINS ||
        (uint64_t)RADIUS_MAX_BINS * 4 > context->info.local_mem_bytes / 2)
        return VOTECL_OK;
    if ((r = votecl__calloc(1, sizeof *r)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    r->context = context;
    r->desc = desc;
    r->nbins = nbins;
    if ((status = radius_setup(r)) != VOTECL_OK) {
        votecl__circles_radius_free(r);
        return status;
    }
    *out = r;
    return VOTECL_OK;
}

/* The per-run input, one upload: the voting pixels, then their row index at word 2 nxy. */
static votecl_status
radius_inputs(votecl__circles_radius *r, const int32_t *xy, size_t nxy)
{
    size_t rows_n = (size_t)r->desc->height + 1, words = 2 * nxy + rows_n;
    uint32_t *host = votecl__malloc(words * sizeof *host);
    votecl_status status;

    if (host == NULL)
        return votecl__fail(r->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if (nxy > 0)
        memcpy(host, xy, 8 * nxy);
    votecl__circles_row_index(r->desc, xy, nxy, host + 2 * nxy);
    if ((status = votecl__buffer_ensure(r->context, &r->xy, 4 * words)) == VOTECL_OK)
        status = votecl_buffer_write(r->xy, 0, host, 4 * words);
    free(host);
    return status;
}

/* The kernel's (radius bits, count) pairs into radius and count: one read. */
static votecl_status
radius_results(votecl__circles_radius *r, size_t n, float *radius, int32_t *count)
{
    uint32_t *host = votecl__malloc(2 * n * sizeof *host);
    votecl_status status;

    if (host == NULL)
        return votecl__fail(r->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    status = votecl_buffer_read(r->out, 0, host, 8 * n);
    for (size_t i = 0; status == VOTECL_OK && i < n; i++) {
        memcpy(&radius[i], &host[2 * i], sizeof *radius);
        count[i] = (int32_t)host[2 * i + 1];
    }
    free(host);
    return status;
}

votecl_status
votecl__circles_radius_run(votecl__circles_radius *r, votecl_buffer *cand, size_t n,
                           const int32_t *xy, size_t nxy, float *radius, int32_t *count)
{
    const votecl__circles_desc *d = r->desc;
    size_t local = RADIUS_WG, global = n * RADIUS_WG;
    votecl_status status;

    if (n == 0)
        return VOTECL_OK;
    if ((status = radius_inputs(r, xy, nxy)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(r->context, &r->out, 8 * n)) != VOTECL_OK ||
        (status = votecl__launch(
             r->context, r->kernel, 1, &global, &local,
             (votecl__arg[]){VOTECL__ARG_BUF(r->xy), VOTECL__ARG_UINT(2 * nxy),
                             VOTECL__ARG_UINT(d->height), VOTECL__ARG_BUF(cand),
                             VOTECL__ARG_UINT(d->cols), VOTECL__ARG_FLOAT(d->dr),
                             VOTECL__ARG_INT(d->p.min_radius), VOTECL__ARG_INT(d->p.max_radius),
                             VOTECL__ARG_BUF(r->bounds), VOTECL__ARG_INT(r->nbins),
                             VOTECL__ARG_BUF(r->window_radii), VOTECL__ARG_BUF(r->out)},
             12)) != VOTECL_OK)
        return status;
    return radius_results(r, n, radius, count);
}
