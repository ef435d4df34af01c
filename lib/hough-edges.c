/* What the theta-rho Hough votes for, and the explicit step that makes it from a photo.
 * Every pixel at or above edge_threshold votes for all G lines through it, so a gray image
 * under the default threshold of 1 makes nearly every pixel an edge and the accumulator's
 * largest count a diagonal through the middle of the image: a line at 45 degrees that no
 * image holds. Such input is refused, and votecl_hough_edges() gives the binary edge image
 * the transform means, with the library's Canny (lib/edges.c, as the GHT's and circles'). */
#include "edges-private.h"
#include "hough-private.h"

#include <stdlib.h>
#include <string.h>

votecl_status
votecl__hough_check_binary(votecl_context *context, const votecl_image *image,
                           unsigned edge_threshold)
{
    const uint8_t *row;
    uint8_t seen[256] = {0};
    unsigned distinct = 0, other = 0; /* the nonzero value seen, 0 before one */

    /* another threshold is the caller's explicit choice to threshold a gray image */
    if (edge_threshold != 1)
        return VOTECL_OK;
    for (size_t y = 0; y < image->height; y++) {
        row = (const uint8_t *)image->data + y * image->stride;
        for (size_t x = 0; x < image->width; x++) {
            if (seen[row[x]])
                continue;
            seen[row[x]] = 1;
            if (++distinct > 2 || (distinct == 2 && !seen[0]))
                return votecl__fail(
                    context, VOTECL_INVALID_ARGUMENT,
                    "image: not a binary edge image (pixel (%zu, %zu) = %u beside %u): every "
                    "nonzero pixel would vote as an edge; find edges first with "
                    "votecl_hough_edges(), or set edge_threshold above 1 to threshold a gray "
                    "image explicitly",
                    x, y, (unsigned)row[x], other);
            other = row[x] != 0 ? row[x] : other;
        }
    }
    return VOTECL_OK;
}

votecl_status
votecl_hough_edges(votecl_context *context, const votecl_image *image, unsigned low, unsigned high,
                   uint8_t *edges, size_t edges_stride)
{
    votecl__edge *points = NULL;
    const void *data;
    void *copy = NULL;
    size_t n;
    votecl_status status;

    VOTECL__ENTER_CONTEXT_OR_RETURN(context);
    if (low > high || high > VOTECL_HOUGH_EDGES_MAX)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "low, high: %u and %u: want low <= high <= %u", low, high,
                            (unsigned)VOTECL_HOUGH_EDGES_MAX);
    status = votecl__edges_begin(context, image, edges, "edges", edges_stride, &data, &copy);
    if (status != VOTECL_OK || data == NULL)
        return status;
    points = votecl__malloc(image->width * image->height * sizeof *points);
    n = points == NULL ? (size_t)-1
                       : votecl__canny_ref(data, (uint32_t)image->width, (uint32_t)image->height,
                                           low, high, points);
    if (n == (size_t)-1) {
        status = votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY,
                              "out of memory for the edges of a %zu x %zu image", image->width,
                              image->height);
        goto out;
    }
    for (size_t y = 0; y < image->height; y++)
        memset(edges + y * edges_stride, 0, image->width);
    for (size_t i = 0; i < n; i++)
        edges[(size_t)points[i].y * edges_stride + (size_t)points[i].x] = 255;
out:
    free(points);
    free(copy);
    return status;
}

/* m = gx^2 + gy^2 of pixel (x, y), 0 on the one-pixel border and outside the image. */
static uint32_t
sobel_m(const uint8_t *gray, size_t stride, uint32_t width, uint32_t height, int64_t x, int64_t y)
{
    int32_t gx, gy;

    if (x < 1 || y < 1 || x + 1 >= width || y + 1 >= height)
        return 0;
    votecl__sobel3(gray + (size_t)y * stride + (size_t)x, stride, &gx, &gy);
    return (uint32_t)(gx * gx + gy * gy); /* at most 2 * 1020^2 */
}

/* The step (dx, dy) across the edge of gradient (gx, gy) in one of four directions, tan 22.5
 * and tan 67.5 degrees as integer ratios (the library's Canny, is_ridge of lib/edges-ref.c). */
static void
ridge_step(int32_t gx, int32_t gy, int *dx, int *dy)
{
    int64_t ax = gx < 0 ? -(int64_t)gx : gx, ay = gy < 0 ? -(int64_t)gy : gy;

    if (ay * 100000 <= ax * 41421) {
        *dx = 1;
        *dy = 0;
    } else if (ay * 100000 >= ax * 241421) {
        *dx = 0;
        *dy = 1;
    } else {
        *dx = (gx < 0) == (gy < 0) ? 1 : -1;
        *dy = 1;
    }
}

/* Whether interior pixel (x, y) of magnitude m and gradient (gx, gy) is a ridge: above the
 * neighbour behind across the edge, at least the one ahead (so one of two equal ones). */
static int
is_ridge(const uint8_t *gray, size_t stride, uint32_t width, uint32_t height, uint32_t x,
         uint32_t y, uint32_t m, int32_t gx, int32_t gy)
{
    int dx, dy;

    ridge_step(gx, gy, &dx, &dy);
    return m > sobel_m(gray, stride, width, height, (int64_t)x - dx, (int64_t)y - dy) &&
           m >= sobel_m(gray, stride, width, height, (int64_t)x + dx, (int64_t)y + dy);
}

void
votecl__hough_sobel(const uint8_t *gray, size_t stride, uint32_t width, uint32_t height,
                    unsigned threshold, int thin, uint8_t *edges, size_t edges_stride)
{
    uint64_t t2 = (uint64_t)threshold * threshold;

    for (uint32_t y = 0; y < height; y++)
        memset(edges + (size_t)y * edges_stride, 0, width);
    for (uint32_t y = 1; y + 1 < height; y++)
        for (uint32_t x = 1; x + 1 < width; x++) {
            int32_t gx, gy;
            uint32_t m;
            votecl__sobel3(gray + (size_t)y * stride + x, stride, &gx, &gy);
            m = (uint32_t)(gx * gx + gy * gy);
            /* floor(sqrt(m)) >= t exactly when m >= t^2 (integers) */
            edges[(size_t)y * edges_stride + x] =
                m >= t2 && (!thin || is_ridge(gray, stride, width, height, x, y, m, gx, gy)) ? 255
                                                                                             : 0;
        }
}

votecl_status
votecl_hough_sobel_edges(votecl_context *context, const votecl_image *image, unsigned threshold,
                         int thin, uint8_t *edges, size_t edges_stride)
{
    const void *data;
    void *copy = NULL;
    votecl_status status;

    VOTECL__ENTER_CONTEXT_OR_RETURN(context);
    /* at most VOTECL_EDGES_MAX_SIDE (VOTECL_HOUGH_MAX_SIDE) a side */
    status = votecl__edges_begin(context, image, edges, "edges", edges_stride, &data, &copy);
    if (status == VOTECL_OK && data != NULL)
        votecl__hough_sobel(data, image->width, (uint32_t)image->width, (uint32_t)image->height,
                            threshold, thin != 0, edges,
                            image->height > 1 ? edges_stride : image->width);
    free(copy);
    return status;
}
