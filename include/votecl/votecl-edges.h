/** @file
 * libvotecl: the edge step, as its own call, so a user can feed any detector the edges they
 * know.
 *
 * votecl_edges_canny() is OpenCV's cv2.Canny(image, threshold1, threshold2, apertureSize,
 * L2gradient) on a u8 gray image: the Sobel derivatives of side aperture_size with the border
 * replicated (for aperture 7 scaled by 1/16 and rounded half to even, as OpenCV keeps them in
 * 16 bits, and the thresholds divided by 16 alike), the magnitude |gx| + |gy| (or
 * gx^2 + gy^2 against squared thresholds with l2_gradient), non-maximum suppression in four
 * directions (tan 22.5 and tan 67.5 as OpenCV's fixed-point ratios; magnitudes outside the
 * image are 0), a pixel whose magnitude exceeds the smaller threshold a candidate and one
 * that exceeds the larger a strong edge, and hysteresis: the strong edges and the candidates
 * 8-connected to them are the edges (255), the rest 0. The thresholds are floored to
 * integers as OpenCV does (after squaring, for l2_gradient).
 *
 * votecl_edges_sobel() is cv2.Sobel(image, CV_32S, dx, dy, ksize) with BORDER_REPLICATE.
 *
 * votecl_edges_canny() runs on the context's device where it is GPU-shaped, on the host
 * (the sequential reference) on the 'ref' backend and CPU-shaped devices, with the same edges
 * everywhere; votecl_edges_sobel() runs on the host. The detectors' device plans find their
 * own edges on the device with the same 3x3 Sobel (votecl_hough_edges() and the GHT's and
 * circles' Canny leave the one-pixel border out, where this step follows OpenCV and keeps
 * it). */
#ifndef VOTECL_EDGES_H
#define VOTECL_EDGES_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-image.h>
#include <votecl/votecl-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest image side of the edge step. */
#define VOTECL_EDGES_MAX_SIDE 65535u

/** Parameters of Canny's edges (OpenCV's names in brackets); fill with
 * votecl_canny_params_init() first. */
typedef struct votecl_canny_params {
    size_t struct_size; /**< set by the _init function: see votecl.h */
    double threshold1;  /**< [threshold1] one hysteresis threshold (default 50) */
    double threshold2;  /**< [threshold2] the other; the larger is the strong one (default 150) */
    unsigned aperture_size; /**< [apertureSize] Sobel side: 3 (default), 5 or 7 */
    int l2_gradient;        /**< [L2gradient] sqrt(gx^2 + gy^2) for |gx| + |gy| (default 0) */
} votecl_canny_params;

/** Sets the defaults above. */
VOTECL_API void votecl_canny_params_init(votecl_canny_params *params);

/** Canny's edges of image (u8, one channel; borrowed) into edges (caller-owned,
 * image.height rows of image.width bytes, edges_stride apart): 255 at an edge, 0 elsewhere.
 * params: borrowed. context: for the error message.
 * Returns VOTECL_INVALID_ARGUMENT naming the field (aperture_size not 3, 5 or 7, a NaN
 * threshold, a side above VOTECL_EDGES_MAX_SIDE, edges NULL or its stride below a row),
 * VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_edges_canny(votecl_context *context, const votecl_image *image,
                                            const votecl_canny_params *params, uint8_t *edges,
                                            size_t edges_stride);

/** The Sobel derivative of order dx in x and dy in y (each 0 or 1, not both 0) of side ksize
 * (3, 5 or 7) of image (u8, one channel; borrowed) into out (caller-owned, image.height rows
 * of image.width int32 values, out_stride values apart), the border replicated.
 * Returns VOTECL_INVALID_ARGUMENT naming the field, VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_edges_sobel(votecl_context *context, const votecl_image *image,
                                            unsigned dx, unsigned dy, unsigned ksize, int32_t *out,
                                            size_t out_stride);

#ifdef __cplusplus
}
#endif

#endif
