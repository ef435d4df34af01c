/* The public Canny on a GPU-shaped device (cl/canny.cl, cl/edges.cl): the gradients, the
 * states, the hysteresis's tile passes until one changes nothing, the edges read back,
 * equal to votecl__canny_opencv_ref pixel for pixel. */
#include "votecl-private.h"

#include "edges-private.h"

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
    static const char *const defines[] = {VOTECL__CANNY_TILE_DEFINES};

    return votecl__program_kernels(d->context, files, defines, 2, kernel_names, K_COUNT,
                                   d->kernels);
}

votecl_status
votecl__canny_launch_tiles(votecl_context *context, void *kernel, uint32_t width, uint32_t height,
                           const votecl__arg *args, unsigned nargs)
{
    size_t local[2] = {VOTECL__CANNY_TILE_X, VOTECL__CANNY_TILE_Y};
    size_t global[2] = {votecl__round_up(width, VOTECL__CANNY_TILE_X),
                        votecl__round_up(height, VOTECL__CANNY_TILE_Y)};

    return votecl__launch(context, kernel, 2, global, local, args, nargs);
}

static votecl_status
launch(device_canny *d, int k, const votecl__arg *args, unsigned nargs)
{
    return votecl__canny_launch_tiles(d->context, d->kernels[k], d->w, d->h, args, nargs);
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

votecl_status
votecl__canny_hysteresis(votecl_context *context, void *kernel, votecl_buffer *state,
                         uint32_t width, uint32_t height, votecl_buffer *flag)
{
    uint32_t changed = 1;
    votecl_status status = VOTECL_OK;

    while (status == VOTECL_OK && changed != 0) {
        if ((status = votecl__buffer_zero(flag, 0, 4)) == VOTECL_OK &&
            (status = votecl__canny_launch_tiles(
                 context, kernel, width, height,
                 (votecl__arg[]){VOTECL__ARG_BUF(state), VOTECL__ARG_UINT(width),
                                 VOTECL__ARG_UINT(height), VOTECL__ARG_BUF(flag)},
                 4)) == VOTECL_OK)
            status = votecl_buffer_read(flag, 0, &changed, 4);
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
        status = votecl__canny_hysteresis(context, d.kernels[K_HYSTERESIS], d.buf[B_STATE], width,
                                          height, d.buf[B_FLAG]);
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
