/* The public Canny on a GPU-shaped device (cl/canny.cl, cl/edges.cl): the gradients, the
 * states, the hysteresis's tile passes until one changes nothing, the edges read back,
 * equal to votecl__canny_opencv_ref pixel for pixel. */
#include "votecl-private.h"

#include <stdio.h>

#include "edges-private.h"

/* The hysteresis's tile (cl/canny.cl), as the GHT's edge stage uses it. */
#define TILE_X 32u
#define TILE_Y 8u

enum { K_GRADIENT, K_STATE, K_HYSTERESIS, K_OUTPUT, K_COUNT };

static const char *const kernel_names[K_COUNT] = {"edges_gradient", "edges_state",
                                                  "canny_hysteresis", "edges_output"};

enum { B_IMAGE, B_GX, B_GY, B_MAG, B_STATE, B_FLAG, B_COUNT };

typedef struct device_canny {
    votecl_context *context;
    void *kernels[K_COUNT];
    votecl_buffer *buf[B_COUNT];
    uint32_t w, h;
} device_canny;

static votecl_status
get_kernels(device_canny *d)
{
    static const char *const files[] = {"canny.cl", "edges.cl", NULL};
    char defs[2][32];
    const char *defines[2] = {defs[0], defs[1]};
    votecl__program *program = NULL;
    votecl_status status;

    snprintf(defs[0], sizeof defs[0], "GHT_TX=%uu", TILE_X);
    snprintf(defs[1], sizeof defs[1], "GHT_TY=%uu", TILE_Y);
    status = votecl__program_get(d->context, files, defines, 2, NULL, &program);
    for (int k = 0; status == VOTECL_OK && k < K_COUNT; k++)
        status = votecl__program_kernel(d->context, program, kernel_names[k], &d->kernels[k]);
    return status;
}

static votecl_status
launch(device_canny *d, int k, const votecl__arg *args, unsigned nargs)
{
    size_t local[2] = {TILE_X, TILE_Y};
    size_t global[2] = {votecl__round_up(d->w, TILE_X), votecl__round_up(d->h, TILE_Y)};

    return votecl__launch(d->context, d->kernels[k], 2, global, local, args, nargs);
}

/* The image uploaded and its buffers: per pixel four words and a byte. */
static votecl_status
setup(device_canny *d, const uint8_t *data)
{
    size_t n = (size_t)d->w * d->h;
    votecl_status status = VOTECL_OK;

    for (int b = 0; status == VOTECL_OK && b < B_COUNT; b++)
        status = votecl_buffer_new(d->context,
                                   b == B_IMAGE  ? n
                                   : b == B_FLAG ? 4
                                                 : n * 4,
                                   &d->buf[b]);
    if (status == VOTECL_OK)
        status = votecl_buffer_write(d->buf[B_IMAGE], 0, data, n);
    return status;
}

static votecl_status
states(device_canny *d, unsigned ksize, int l2, int64_t low, int64_t high)
{
    /* magnitudes are ints: a threshold above INT32_MAX passes none, as 2^40 does */
    int32_t lo = (int32_t)(low > INT32_MAX ? INT32_MAX : low);
    int32_t hi = (int32_t)(high > INT32_MAX ? INT32_MAX : high);
    votecl_status status =
        launch(d, K_GRADIENT,
               (votecl__arg[]){VOTECL__ARG_BUF(d->buf[B_IMAGE]), VOTECL__ARG_UINT(d->w),
                               VOTECL__ARG_UINT(d->h), VOTECL__ARG_UINT(ksize),
                               VOTECL__ARG_UINT(l2 != 0), VOTECL__ARG_BUF(d->buf[B_GX]),
                               VOTECL__ARG_BUF(d->buf[B_GY]), VOTECL__ARG_BUF(d->buf[B_MAG])},
               8);

    if (status == VOTECL_OK)
        status =
            launch(d, K_STATE,
                   (votecl__arg[]){VOTECL__ARG_BUF(d->buf[B_GX]), VOTECL__ARG_BUF(d->buf[B_GY]),
                                   VOTECL__ARG_BUF(d->buf[B_MAG]), VOTECL__ARG_UINT(d->w),
                                   VOTECL__ARG_UINT(d->h), VOTECL__ARG_INT(lo), VOTECL__ARG_INT(hi),
                                   VOTECL__ARG_BUF(d->buf[B_STATE])},
                   8);
    return status;
}

/* Tile passes until one promotes nothing (the reference's reachability). */
static votecl_status
hysteresis(device_canny *d)
{
    uint32_t changed = 1;
    votecl_status status = VOTECL_OK;

    while (status == VOTECL_OK && changed != 0) {
        if ((status = votecl__buffer_zero(d->buf[B_FLAG], 0, 4)) == VOTECL_OK &&
            (status =
                 launch(d, K_HYSTERESIS,
                        (votecl__arg[]){VOTECL__ARG_BUF(d->buf[B_STATE]), VOTECL__ARG_UINT(d->w),
                                        VOTECL__ARG_UINT(d->h), VOTECL__ARG_BUF(d->buf[B_FLAG])},
                        4)) == VOTECL_OK)
            status = votecl_buffer_read(d->buf[B_FLAG], 0, &changed, 4);
    }
    return status;
}

votecl_status
votecl__canny_device(votecl_context *context, const uint8_t *data, uint32_t width, uint32_t height,
                     int64_t low, int64_t high, unsigned ksize, int l2, uint8_t *edges)
{
    device_canny d = {.context = context, .w = width, .h = height};
    votecl_status status = get_kernels(&d);

    if (status == VOTECL_OK)
        status = setup(&d, data);
    if (status == VOTECL_OK)
        status = states(&d, ksize, l2, low, high);
    if (status == VOTECL_OK)
        status = hysteresis(&d);
    if (status == VOTECL_OK) /* the image's buffer takes the edges */
        status = launch(&d, K_OUTPUT,
                        (votecl__arg[]){VOTECL__ARG_BUF(d.buf[B_STATE]), VOTECL__ARG_UINT(width),
                                        VOTECL__ARG_UINT(height), VOTECL__ARG_BUF(d.buf[B_IMAGE])},
                        4);
    if (status == VOTECL_OK)
        status = votecl_buffer_read(d.buf[B_IMAGE], 0, edges, (size_t)width * height);
    for (int b = 0; b < B_COUNT; b++)
        votecl_buffer_free(d.buf[b]);
    return status;
}
