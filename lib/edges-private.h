/* The edge step every detector shares (lib/edges.c, lib/edges-ref.c): one 3x3 Sobel, one Canny in
 * two implementations (the reference, the specification, and the host's row-by-row plan for CPU
 * devices, equal edge for edge), and the public step's OpenCV-shaped Canny and Sobel. The GHT
 * quantises these edges' gradients into its bins (lib/ght-edges.c); circles, Hough and the
 * public step read them as they are. */
#ifndef VOTECL_EDGES_PRIVATE_H
#define VOTECL_EDGES_PRIVATE_H

#include "votecl-private.h"

#include <stddef.h>
#include <stdint.h>

/* The 3x3 Sobel at column x of the rows r0 (above), r1 and r2 (below), of any element type:
 * gx = [-1 0 1; -2 0 2; -1 0 1], gy its transpose, y down. The device's SOBEL3_GX and
 * SOBEL3_GY (cl/common.h) term for term, so float rows sum in the same order. */
#define VOTECL__SOBEL3_GX(r0, r1, r2, x)                                                           \
    ((r0)[(x) + 1] + 2 * (r1)[(x) + 1] + (r2)[(x) + 1] - (r0)[(x)-1] - 2 * (r1)[(x)-1] -           \
     (r2)[(x)-1])
#define VOTECL__SOBEL3_GY(r0, r1, r2, x)                                                           \
    ((r2)[(x)-1] + 2 * (r2)[x] + (r2)[(x) + 1] - (r0)[(x)-1] - 2 * (r0)[x] - (r0)[(x) + 1])

/* The 3x3 Sobel gradient at p (a u8 pixel whose 8 neighbours exist; rows stride bytes
 * apart). */
static inline void
votecl__sobel3(const uint8_t *p, size_t stride, int32_t *gx, int32_t *gy)
{
    const uint8_t *r0 = p - stride, *r2 = p + stride;

    *gx = VOTECL__SOBEL3_GX(r0, p, r2, 0);
    *gy = VOTECL__SOBEL3_GY(r0, p, r2, 0);
}

/* OpenCV's Sobel kernels of side 3, 5 and 7 (index side / 2 - 1): a binomial smoothing
 * across, its derivative along; entry 3 is the centre. */
extern const int32_t votecl__sobel_smooth[3][7];
extern const int32_t votecl__sobel_deriv[3][7];

/* One edge pixel and its 3x3 Sobel gradient. */
typedef struct votecl__edge {
    int32_t x, y;
    int32_t gx, gy;
} votecl__edge;

/* Canny's edges of a packed u8 image, raster order: 3x3 Sobel, L1 magnitude (the one-pixel
 * border is none), non-maximum suppression in four directions (strictly above the neighbour
 * behind, at least the one ahead), above low; hysteresis to above high (low >= high: every
 * such pixel). out: at least W * H entries. Returns how many, (size_t)-1 when out of memory. */
size_t votecl__canny_ref(const uint8_t *data, uint32_t width, uint32_t height, unsigned low,
                         unsigned high, votecl__edge *out);

/* The same edges as votecl__canny_ref, in the same order, row by row for a host core: memo
 * holds its rows and lists between calls (NULL at first; free with _canny_memo_free); *out:
 * the edges, borrowed from memo until its next call. Returns how many; (size_t)-1 when out of
 * memory. */
typedef struct votecl__canny_memo votecl__canny_memo;
size_t votecl__canny_host(const uint8_t *data, uint32_t width, uint32_t height, unsigned low,
                          unsigned high, votecl__canny_memo **memo, const votecl__edge **out);
void votecl__canny_memo_free(votecl__canny_memo *memo);

/* cv2.Sobel(image, CV_32S, dx, dy, ksize) with BORDER_REPLICATE (ksize 3, 5, 7; dx, dy 0 or
 * 1, not both 0) of a packed u8 image into out (W * H). */
void votecl__sobel_ref(const uint8_t *data, uint32_t width, uint32_t height, unsigned dx,
                       unsigned dy, unsigned ksize, int32_t *out);

/* cv2.Canny of a packed u8 image (public step's reference): magnitudes compared with the
 * integer thresholds low < high as cv2 floors them (squared for l2), 255 or 0 into edges
 * (W * H). Returns 0, -1 when out of memory. */
int votecl__canny_opencv_ref(const uint8_t *data, uint32_t width, uint32_t height, int64_t low,
                             int64_t high, unsigned ksize, int l2, uint8_t *edges);

/* votecl__canny_opencv_ref's edges computed on the context's device (cl/edges.cl; width and
 * height at least 1). Returns VOTECL_OK or the failing step's status. */
votecl_status votecl__canny_device(votecl_context *context, const uint8_t *data, uint32_t width,
                                   uint32_t height, int64_t low, int64_t high, unsigned ksize,
                                   int l2, uint8_t *edges);

/* cl/canny.cl's hysteresis tile (its GHT_TX x GHT_TY work-groups), shared by the public
 * Canny on the device (lib/edges-device.c) and the circles' edges (lib/circles-edges.c). */
#define VOTECL__CANNY_TILE_X 32u
#define VOTECL__CANNY_TILE_Y 8u
#define VOTECL__CANNY_STR(x) #x
#define VOTECL__CANNY_XSTR(x) VOTECL__CANNY_STR(x)
/* the tile as cl/canny.cl's defines, for votecl__program_get */
#define VOTECL__CANNY_TILE_DEFINES                                                                 \
    "GHT_TX=" VOTECL__CANNY_XSTR(VOTECL__CANNY_TILE_X),                                            \
        "GHT_TY=" VOTECL__CANNY_XSTR(VOTECL__CANNY_TILE_Y)

/* kernel launched over a width x height image in whole tiles. */
votecl_status votecl__canny_launch_tiles(votecl_context *context, void *kernel, uint32_t width,
                                         uint32_t height, const votecl__arg *args, unsigned nargs);
/* cl/canny.cl's canny_hysteresis (kernel) over the width x height states: tile passes until
 * one promotes nothing (the reference's reachability); flag: a buffer of 4 bytes. */
votecl_status votecl__canny_hysteresis(votecl_context *context, void *kernel, votecl_buffer *state,
                                       uint32_t width, uint32_t height, votecl_buffer *flag);

/* The start of a public edge call: image checked (u8, one channel, at most
 * VOTECL_EDGES_MAX_SIDE a side), the output rows (name, NULL refused when there are pixels;
 * name_stride in elements, at least a row) too; *data: the packed pixels (NULL for an empty
 * image), *copy: what to free. Failures name the field. */
votecl_status votecl__edges_begin(votecl_context *context, const votecl_image *image,
                                  const void *out, const char *name, size_t out_stride,
                                  const void **data, void **copy);

#endif
