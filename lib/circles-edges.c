/* The gradient method's edges on a GPU-shaped device (cl/circles-edges.cl): the image goes up,
 * Canny runs there (the states, the hysteresis's tile passes until one changes nothing, the
 * strong pixels listed row by row) and only the edge list comes back, so that a GPU plan has
 * no O(pixels) pass on the host. Equal to votecl__canny_ref's edges, in its raster order. */
#include "votecl-private.h"

#include <stdlib.h>

#include "circles-private.h"
#include "edges-private.h"

/* Work-items per row of the row kernels (a power of two: cl/common.h's group_scan). */
#define ROW_WG 128u

enum { K_STATE, K_HYSTERESIS, K_COUNT, K_SCAN, K_LIST, K_N };

static const char *const kernel_names[K_N] = {"circles_edge_state", "canny_hysteresis",
                                              "circles_edge_count", "circles_edge_scan",
                                              "circles_edge_list"};

enum { B_IMAGE, B_STATE, B_FLAG, B_ROWS, B_XY, B_N };

struct votecl__circles_edges {
    votecl_context *context;
    const votecl__circles_desc *desc;
    void *kernels[K_N];
    votecl_buffer *buf[B_N];
};

void
votecl__circles_edges_free(votecl__circles_edges *e)
{
    if (e == NULL)
        return;
    for (int b = 0; b < B_N; b++)
        votecl_buffer_free(e->buf[b]);
    free(e);
}

static votecl_status
edges_kernels(votecl__circles_edges *e)
{
    static const char *const files[] = {"canny.cl", "circles-edges.cl", NULL};
    static const char *const defines[] = {VOTECL__CANNY_TILE_DEFINES,
                                          "CIRCLES_ROW_WG=" VOTECL__CANNY_XSTR(ROW_WG)};

    return votecl__program_kernels(e->context, files, defines, 3, kernel_names, K_N, e->kernels);
}

/* The image, a state word and an edge pair per pixel, the rows' index, the flag. */
static votecl_status
edges_buffers(votecl__circles_edges *e)
{
    size_t pixels = (size_t)e->desc->width * e->desc->height;
    const size_t bytes[B_N] = {pixels, 4 * pixels, 4, 4 * ((size_t)e->desc->height + 1),
                               8 * pixels};
    votecl_status status = VOTECL_OK;

    for (int b = 0; status == VOTECL_OK && b < B_N; b++)
        status = votecl_buffer_new(e->context, bytes[b], &e->buf[b]);
    return status;
}

votecl_status
votecl__circles_edges_new(votecl_context *context, const votecl__circles_desc *desc,
                          votecl__circles_edges **out)
{
    votecl__circles_edges *e = votecl__calloc(1, sizeof *e);
    votecl_status status;

    *out = NULL;
    if (e == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    e->context = context;
    e->desc = desc;
    if ((status = edges_kernels(e)) != VOTECL_OK || (status = edges_buffers(e)) != VOTECL_OK) {
        votecl__circles_edges_free(e);
        return status;
    }
    *out = e;
    return VOTECL_OK;
}

static votecl_status
launch_tiles(votecl__circles_edges *e, int k, const votecl__arg *args, unsigned nargs)
{
    return votecl__canny_launch_tiles(e->context, e->kernels[k], e->desc->width, e->desc->height,
                                      args, nargs);
}

/* groups of ROW_WG work-items: one per row, or one */
static votecl_status
launch_rows(votecl__circles_edges *e, int k, size_t groups, const votecl__arg *args, unsigned nargs)
{
    size_t local = ROW_WG, global = groups * ROW_WG;

    return votecl__launch(e->context, e->kernels[k], 1, &global, &local, args, nargs);
}

/* The strong pixels listed row by row: counts, their prefix sum, the list. */
static votecl_status
edges_list(votecl__circles_edges *e)
{
    const votecl__circles_desc *d = e->desc;
    votecl_status status;

    if ((status = launch_rows(e, K_COUNT, d->height,
                              (votecl__arg[]){VOTECL__ARG_BUF(e->buf[B_STATE]),
                                              VOTECL__ARG_UINT(d->width),
                                              VOTECL__ARG_BUF(e->buf[B_ROWS])},
                              3)) != VOTECL_OK ||
        (status = launch_rows(
             e, K_SCAN, 1,
             (votecl__arg[]){VOTECL__ARG_BUF(e->buf[B_ROWS]), VOTECL__ARG_UINT(d->height)}, 2)) !=
            VOTECL_OK)
        return status;
    return launch_rows(e, K_LIST, d->height,
                       (votecl__arg[]){VOTECL__ARG_BUF(e->buf[B_STATE]), VOTECL__ARG_UINT(d->width),
                                       VOTECL__ARG_BUF(e->buf[B_ROWS]),
                                       VOTECL__ARG_BUF(e->buf[B_XY])},
                       4);
}

votecl_status
votecl__circles_edges_run(votecl__circles_edges *e, const uint8_t *data, int32_t *xy, size_t *n)
{
    const votecl__circles_desc *d = e->desc;
    uint32_t total = 0;
    votecl_status status;

    if ((status = votecl_buffer_write(e->buf[B_IMAGE], 0, data, (size_t)d->width * d->height)) !=
            VOTECL_OK ||
        (status = launch_tiles(
             e, K_STATE,
             (votecl__arg[]){VOTECL__ARG_BUF(e->buf[B_IMAGE]), VOTECL__ARG_UINT(d->width),
                             VOTECL__ARG_UINT(d->height), VOTECL__ARG_UINT(d->low),
                             VOTECL__ARG_UINT(d->high), VOTECL__ARG_BUF(e->buf[B_STATE])},
             6)) != VOTECL_OK ||
        (status = votecl__canny_hysteresis(e->context, e->kernels[K_HYSTERESIS], e->buf[B_STATE],
                                           d->width, d->height, e->buf[B_FLAG])) != VOTECL_OK ||
        (status = edges_list(e)) != VOTECL_OK ||
        (status = votecl_buffer_read(e->buf[B_ROWS], 4 * (size_t)d->height, &total, 4)) !=
            VOTECL_OK)
        return status;
    *n = total;
    return votecl_buffer_read(e->buf[B_XY], 0, xy, 8 * (size_t)total);
}
