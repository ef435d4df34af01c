/** @file
 * libvotecl: borrowed views of images in host memory. */
#ifndef VOTECL_IMAGE_H
#define VOTECL_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-export.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The element type of images and data. */
typedef enum votecl_dtype {
    VOTECL_DTYPE_U8 = 1,  /**< uint8_t */
    VOTECL_DTYPE_U16 = 2, /**< uint16_t */
    VOTECL_DTYPE_U32 = 3, /**< uint32_t */
    VOTECL_DTYPE_F32 = 4  /**< float */
} votecl_dtype;

/** Bytes of one element of dtype; 0 for an unknown value. */
VOTECL_API size_t votecl_dtype_size(votecl_dtype dtype);

/** "u8", "u16", "u32", "f32" (the names messages and the votecl tool use); NULL for an
 * unknown value. Transfer none. */
VOTECL_API const char *votecl_dtype_name(votecl_dtype dtype);

/** Most pixels (width x height) of any view: kernels index elements with 32-bit arithmetic. */
#define VOTECL_IMAGE_MAX_PIXELS 2147483647u

/** A view of pixels the caller owns: rows of width * channels elements of dtype, row starts
 * stride bytes apart (stride >= width * channels * element size). Channels are interleaved.
 * Every call that takes a view checks it first and returns VOTECL_INVALID_ARGUMENT naming the
 * field when the row bytes or width * height overflow, width * height exceeds
 * VOTECL_IMAGE_MAX_PIXELS, the stride of a view of several rows is below a row, or the last
 * row would end beyond the address space. The stride is in bytes and need not be a multiple
 * of the element size. Each algorithm has its own side limits (VOTECL_*_MAX_SIDE). */
typedef struct votecl_image {
    const void *data;   /**< the first row's first element; borrowed */
    size_t width;       /**< pixels per row */
    size_t height;      /**< rows */
    size_t stride;      /**< bytes from one row's start to the next */
    unsigned channels;  /**< interleaved elements per pixel */
    votecl_dtype dtype; /**< the type of each element */
} votecl_image;

/** A straight segment in an image's pixel coordinates (origin at the top-left pixel, pixel
 * centres at integers, y down): one run of edge pixels along a detected line, as OpenCV's
 * HoughLinesP reports it. votecl_hough_plan_segments() and votecl_lines_plan_segments() give
 * every such run of their last run's lines. */
typedef struct votecl_segment {
    double x0;     /**< the first end, column: the point of the line nearest the run's first
                      edge pixel (the ends go the way the line runs, along (-sin, cos) of its
                      normal's angle theta) */
    double y0;     /**< the first end, row */
    double x1;     /**< the last end, column: the point of the line nearest its last edge pixel */
    double y1;     /**< the last end, row */
    size_t line;   /**< the index of its line in the run's lines array */
    uint32_t hits; /**< the steps along the line with an edge pixel, out of the run's length */
} votecl_segment;

#ifdef __cplusplus
}
#endif

#endif
