/* The sequential reference of the sum (libc only): the specification the device's
 * one-bin vote is checked against. */
#include "votecl-private.h"

#include <stdint.h>
#include <string.h>

#include "sum-private.h"

static double
sum_u8(const uint8_t *x, size_t n)
{
    uint64_t total = 0;

    for (size_t i = 0; i < n; i++)
        total += x[i];
    return (double)total;
}

/* Rows of a view may start anywhere (the stride is in bytes): loads through memcpy. */
static double
sum_f32(const unsigned char *x, size_t n)
{
    double total = 0.0;
    float v;

    for (size_t i = 0; i < n; i++) {
        memcpy(&v, x + 4 * i, 4);
        total += v;
    }
    return total;
}

double
votecl__sum_ref(votecl_dtype dtype, const void *data, size_t n)
{
    if (n == 0)
        return 0.0;
    return dtype == VOTECL_DTYPE_U8 ? sum_u8(data, n) : sum_f32(data, n);
}

double
votecl__sum_ref_image(const votecl_image *image)
{
    const unsigned char *data = image->data;
    size_t row_elements = image->width * image->channels;
    double total = 0.0;

    /* Row sums of u8 data are integers below 2^53, so adding them in double stays exact. Each
     * row's address is formed from its index: stepping a pointer past the last row could point
     * outside the caller's buffer (a huge stride with one row). */
    for (size_t y = 0; y < image->height; y++)
        total += votecl__sum_ref(image->dtype, data + y * image->stride, row_elements);
    return total;
}
