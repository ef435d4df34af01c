/* Sub-sampling: the sequential reference shared by the plan (on 'ref' contexts) and the
 * tests. */
#ifndef VOTECL_SUBSAMPLE_PRIVATE_H
#define VOTECL_SUBSAMPLE_PRIVATE_H

#include <stddef.h>
#include <votecl.h>

/* The means of the factor x factor blocks of a valid one-channel u8 or f32 image view into
 * out ((width / factor) x (height / factor) floats, row by row): each block summed in
 * double precision in raster order, then (float)(sum / (factor * factor)). Pixels of
 * partial blocks at the right and bottom edges are ignored. */
void votecl__subsample_ref(const votecl_image *image, unsigned factor, float *out);

#endif
