/* Sum: the sequential reference shared by the plan (on 'ref' contexts) and the tests. */
#ifndef VOTECL_SUM_PRIVATE_H
#define VOTECL_SUM_PRIVATE_H

#include <stddef.h>
#include <votecl.h>

/* The sum of n elements of dtype (U8: exact in 64-bit integers; F32: in double precision,
 * in index order). */
double votecl__sum_ref(votecl_dtype dtype, const void *data, size_t n);

/* The sum of every element of every channel of a valid image view. */
double votecl__sum_ref_image(const votecl_image *image);

#endif
