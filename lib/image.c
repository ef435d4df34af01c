/* Image views and element types. */
#include "votecl-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t
votecl_dtype_size(votecl_dtype dtype)
{
    switch (dtype) {
    case VOTECL_DTYPE_U8:
        return 1;
    case VOTECL_DTYPE_U16:
        return 2;
    case VOTECL_DTYPE_U32:
    case VOTECL_DTYPE_F32:
        return 4;
    }
    return 0;
}

const char *
votecl_dtype_name(votecl_dtype dtype)
{
    switch (dtype) {
    case VOTECL_DTYPE_U8:
        return "u8";
    case VOTECL_DTYPE_U16:
        return "u16";
    case VOTECL_DTYPE_U32:
        return "u32";
    case VOTECL_DTYPE_F32:
        return "f32";
    }
    return NULL;
}

const char *
votecl__dtype_text(votecl_dtype dtype, char buf[VOTECL__DTYPE_TEXT])
{
    const char *name = votecl_dtype_name(dtype);

    if (name != NULL)
        return name;
    snprintf(buf, VOTECL__DTYPE_TEXT, "unknown dtype %d", (int)dtype);
    return buf;
}

votecl_status
votecl__image_check(votecl_context *context, const votecl_image *image, votecl_dtype dtype,
                    unsigned channels, size_t *row_bytes, size_t *pixels)
{
    size_t span;
    char given[VOTECL__DTYPE_TEXT], wanted[VOTECL__DTYPE_TEXT];

    if (image == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "image: NULL pointer");
    if (image->dtype != dtype)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "image.dtype: %s does not match the plan's %s",
                            votecl__dtype_text(image->dtype, given),
                            votecl__dtype_text(dtype, wanted));
    if (channels > 0 ? image->channels != channels
                     : image->channels < 1 || image->channels > 4)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "image.channels: %u does not match the plan's %u", image->channels,
                            channels);
    if (votecl__mul_overflow(image->width, image->channels * votecl_dtype_size(dtype),
                             row_bytes) ||
        votecl__mul_overflow(image->width, image->height, pixels) ||
        *pixels > VOTECL__MAX_IMAGE_PIXELS)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "image.width, image.height: %zu x %zu pixels are too many",
                            image->width, image->height);
    if (image->height > 1 && image->stride < *row_bytes)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "image.stride: %zu bytes is less than a row (%zu bytes)",
                            image->stride, *row_bytes);
    /* The last row must end inside the address space: such a view describes no memory, and
     * reading it would wrap around. */
    if (*pixels > 0 && (votecl__mul_overflow(image->height - 1, image->stride, &span) ||
                        votecl__add_overflow(span, *row_bytes, &span)))
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "image.stride: %zu rows %zu bytes apart overflow the address space",
                            image->height, image->stride);
    if (image->data == NULL && *pixels > 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "image.data: NULL pointer");
    return VOTECL_OK;
}

votecl_status
votecl__image_packed(votecl_context *context, const votecl_image *image, size_t row_bytes,
                     const void **pixels, void **copy)
{
    unsigned char *packed;
    size_t es = votecl_dtype_size(image->dtype) > 0 ? votecl_dtype_size(image->dtype) : 1;

    *copy = NULL;
    *pixels = image->data;
    if (row_bytes == 0 || image->height == 0)
        return VOTECL_OK; /* no pixels: data may be NULL */
    /* Rows that touch and start aligned for their elements are used in place; a byte stride
     * that is no multiple of the element size gets a packed, aligned copy too. */
    if ((image->height <= 1 || image->stride == row_bytes) && (uintptr_t)image->data % es == 0)
        return VOTECL_OK;
    packed = votecl__malloc(row_bytes * image->height);
    if (packed == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory packing a %zu x %zu image", image->width,
                            image->height);
    for (size_t r = 0; r < image->height; r++)
        memcpy(packed + r * row_bytes, (const unsigned char *)image->data + r * image->stride,
               row_bytes);
    *pixels = packed;
    *copy = packed;
    return VOTECL_OK;
}
