/* HOG descriptors at caller-chosen window positions.
 *
 * Each window is copied with a margin of one block stride into a small image of its own,
 * pixels beyond the source's edges taken by BORDER_REFLECT_101 as OpenCV's gradients take
 * them; the small images are stacked into one, whose window grid (padding 0, window stride =
 * block stride) then holds each requested window at column 1, row 1 + k * (crop height /
 * block stride). One votecl_hog_compute() per batch computes them all on the device; the
 * gradients of a window's own pixels only see its margin, never the next crop. */
#include "votecl-private.h"

#include <stdlib.h>
#include <string.h>

#include "hog-private.h"

#define BATCH 64
#define MAX_POSITION 65535

typedef struct crop_geometry {
    size_t margin_x, margin_y; /* one block stride */
    size_t width, height;      /* window + 2 margins */
    size_t channels;
} crop_geometry;

static votecl_status
check_call(votecl_context *ctx, const votecl_image *image, const votecl_hog_point *locations,
           size_t n, const float *descriptors, size_t capacity, size_t length)
{
    size_t row_bytes, pixels, need;
    votecl_status status;

    if (image != NULL && image->channels != 1 && image->channels != 3 && image->channels != 4)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT,
                            "image.channels: %u is not 1, 3 or 4", image->channels);
    status = votecl__image_check(ctx, image, VOTECL_DTYPE_U8, image != NULL ? image->channels : 1,
                                 &row_bytes, &pixels);
    if (status != VOTECL_OK)
        return status;
    if (pixels == 0)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT, "image.width, image.height: empty");
    if (n > 0 && (locations == NULL || descriptors == NULL))
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            locations == NULL ? "locations" : "descriptors");
    if (votecl__mul_overflow(n, length, &need) || need > capacity)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT,
                            "capacity: %zu floats, %zu windows of %zu need more", capacity, n,
                            length);
    for (size_t i = 0; i < n; i++)
        if (labs((long)locations[i].x) > MAX_POSITION || labs((long)locations[i].y) > MAX_POSITION)
            return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT,
                                "locations[%zu]: (%d, %d) beyond +-%d", i, (int)locations[i].x,
                                (int)locations[i].y, MAX_POSITION);
    return VOTECL_OK;
}

/* Window k's surroundings into crop k of the stacked image. */
static void
gather(const votecl_image *image, const crop_geometry *g, votecl_hog_point at, uint8_t *crop)
{
    const uint8_t *src = image->data;

    for (size_t j = 0; j < g->height; j++) {
        int32_t sy = votecl__hog_reflect101((int64_t)at.y - (int64_t)g->margin_y + (int64_t)j,
                                            (int32_t)image->height);
        for (size_t i = 0; i < g->width; i++) {
            int32_t sx = votecl__hog_reflect101(
                (int64_t)at.x - (int64_t)g->margin_x + (int64_t)i, (int32_t)image->width);
            memcpy(crop + (j * g->width + i) * g->channels,
                   src + (size_t)sy * image->stride + (size_t)sx * g->channels, g->channels);
        }
    }
}

static votecl_status
batch(votecl_hog *hog, const votecl_image *image, const crop_geometry *g,
      const votecl_hog_point *locations, size_t n, size_t length, uint8_t *stack, float *all,
      size_t all_capacity, float *out)
{
    size_t crop_bytes = g->width * g->height * g->channels, count = 0, columns, rows_per_crop;
    votecl_image view = {stack, g->width, g->height * n, g->width * g->channels,
                         (unsigned)g->channels, VOTECL_DTYPE_U8};
    votecl_status status;

    for (size_t k = 0; k < n; k++)
        gather(image, g, locations[k], stack + k * crop_bytes);
    status = votecl_hog_compute(hog, &view, all, all_capacity, &count);
    if (status != VOTECL_OK)
        return status;
    columns = 3; /* window + 2 margins of one stride: windows at 0, margin, 2 margins */
    rows_per_crop = g->height / g->margin_y;
    for (size_t k = 0; k < n; k++) {
        size_t window = (1 + k * rows_per_crop) * columns + 1;
        memcpy(out + k * length, all + window * length, length * sizeof *out);
    }
    return VOTECL_OK;
}

votecl_status
votecl_hog_compute_at(votecl_context *context, const votecl_hog_params *params,
                      const votecl_image *image, const votecl_hog_point *locations, size_t n,
                      float *descriptors, size_t capacity)
{
    votecl_hog_params grid;
    votecl_hog *hog = NULL;
    crop_geometry g;
    size_t length = 0, all_capacity;
    uint8_t *stack = NULL;
    float *all = NULL;
    votecl_status status;

    if (context == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(context);
    if (params == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "params: NULL pointer");
    if ((status = votecl_hog_descriptor_length(params, &length)) != VOTECL_OK)
        return votecl__fail(context, status, "params: inconsistent HOG geometry");
    if ((status = check_call(context, image, locations, n, descriptors, capacity, length)) !=
            VOTECL_OK ||
        n == 0)
        return status;
    grid = *params;
    grid.padding_x = grid.padding_y = 0;
    grid.window_stride_x = grid.block_stride_x;
    grid.window_stride_y = grid.block_stride_y;
    g.margin_x = grid.block_stride_x;
    g.margin_y = grid.block_stride_y;
    g.width = grid.window_width + 2 * g.margin_x;
    g.height = grid.window_height + 2 * g.margin_y;
    g.channels = image->channels;
    /* windows of the stacked image: 3 columns, (crop rows) x BATCH rows at most */
    all_capacity = 3 * (g.height / g.margin_y) * BATCH * length;
    stack = votecl__malloc(g.width * g.height * g.channels * BATCH);
    all = votecl__malloc(all_capacity * sizeof *all);
    if (stack == NULL || all == NULL) {
        status = votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
        goto out;
    }
    if ((status = votecl_hog_new(context, &grid, NULL, &hog)) != VOTECL_OK)
        goto out;
    for (size_t first = 0; first < n && status == VOTECL_OK; first += BATCH) {
        size_t count = n - first < BATCH ? n - first : BATCH;
        status = batch(hog, image, &g, locations + first, count, length, stack, all,
                       all_capacity, descriptors + first * length);
    }
out:
    votecl_hog_free(hog);
    free(stack);
    free(all);
    return status;
}
