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

#ifdef __cplusplus
}
#endif

#endif
