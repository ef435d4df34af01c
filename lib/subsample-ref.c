/* The sequential reference of sub-sampling (libc only): the specification the device's
 * location-based vote is checked against. */
#include "votecl-private.h"

#include <stdint.h>
#include <string.h>

#include "subsample-private.h"

static double
pixel(const votecl_image *image, size_t x, size_t y)
{
    const unsigned char *row = (const unsigned char *)image->data + y * image->stride;
    float v;

    if (image->dtype == VOTECL_DTYPE_U8)
        return row[x];
    memcpy(&v, row + 4 * x, 4); /* the stride is in bytes: rows may start anywhere */
    return v;
}

static float
block_mean(const votecl_image *image, unsigned factor, size_t bx, size_t by)
{
    double sum = 0.0;

    for (size_t y = by * factor; y < (by + 1) * factor; y++)
        for (size_t x = bx * factor; x < (bx + 1) * factor; x++)
            sum += pixel(image, x, y);
    return (float)(sum / ((double)factor * factor));
}

void
votecl__subsample_ref(const votecl_image *image, unsigned factor, float *out)
{
    size_t ow = image->width / factor, oh = image->height / factor;

    for (size_t by = 0; by < oh; by++)
        for (size_t bx = 0; bx < ow; bx++)
            out[by * ow + bx] = block_mean(image, factor, bx, by);
}
