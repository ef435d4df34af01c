/* libvotecl: borrowed views of images in host memory. */
#ifndef VOTECL_IMAGE_H
#define VOTECL_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-export.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum votecl_dtype {
    VOTECL_DTYPE_U8 = 1,
    VOTECL_DTYPE_U16 = 2,
    VOTECL_DTYPE_U32 = 3,
    VOTECL_DTYPE_F32 = 4
} votecl_dtype;

/* Bytes of one element of dtype; 0 for an unknown value. */
VOTECL_API size_t votecl_dtype_size(votecl_dtype dtype);

/* A view of pixels the caller owns: rows of width * channels elements of dtype, row starts
 * stride bytes apart (stride >= width * channels * element size). Channels are interleaved.
 * Every call that takes a view checks it first and returns VOTECL_INVALID_ARGUMENT naming the
 * field when the row bytes or width * height overflow, width * height exceeds 2^31 - 1
 * pixels, the stride of a view of several rows is below a row or not a multiple of the
 * element size, data is not aligned to the element size, or the last row would end beyond
 * the address space. Each algorithm has its own, smaller side limits (VOTECL_*_MAX_SIDE). */
typedef struct votecl_image {
    const void *data; /* borrowed */
    size_t width;
    size_t height;
    size_t stride;    /* bytes */
    unsigned channels;
    votecl_dtype dtype;
} votecl_image;

#ifdef __cplusplus
}
#endif

#endif
