/* Histograms: the validated description shared by the plan, the kernel defines and the
 * sequential reference. */
#ifndef VOTECL_HISTOGRAM_PRIVATE_H
#define VOTECL_HISTOGRAM_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <votecl.h>

typedef struct votecl__hist_desc {
    votecl_dtype dtype;
    size_t value_bytes;   /* bytes of one channel value */
    unsigned channels;
    unsigned dims;
    unsigned channel[2];
    int two_arrays;
    int weighted;
    uint32_t nbins[2];    /* nbins[1] is 1 for 1-D */
    uint64_t nbins_total;
    /* integer data: bin = (v - imin) * nbins / irange for imin <= v < imin + irange */
    uint64_t imin[2];
    uint64_t irange[2];
    int ident[2];         /* irange == nbins: the bin is v - imin */
    /* f32 data: bin = min((uint)((v - fmin) * fscale), nbins - 1) for fmin <= v < fmax */
    float fmin[2];
    float fmax[2];
    float fscale[2];
} votecl__hist_desc;

/* Fills desc from params; returns VOTECL_INVALID_ARGUMENT with the field named in msg. */
votecl_status votecl__hist_desc_init(const votecl_hist_params *params, votecl__hist_desc *desc,
                                     char *msg, size_t msg_size);

/* The sequential reference: frames histograms of n elements each into bins (uint32_t or,
 * when weighted, float; frames * nbins_total entries, overwritten). */
void votecl__hist_ref(const votecl__hist_desc *desc, const void *x, const void *y,
                      const float *w, size_t n, size_t frames, void *bins);

#endif
