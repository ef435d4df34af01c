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
    /* f32 data (the rule is in include/votecl/votecl-vote.h): the range and width as given,
     * the edge convention, and the float edges' ends: v votes when flo <= v < fhi. */
    double min[2];
    double max[2];
    double width[2]; /* max - min, in double: the rule's denominator */
    int numpy_edges; /* VOTECL_HIST_EDGES_NUMPY */
    float flo[2];
    float fhi[2];
    /* The kernels' first guess t = (v * fpre - foff) * fscale lies within
     * fdc0 + fdc1 * |t| bins of the bin's true position, within fdelta over the whole range
     * (and the rounding of 1 - fdelta); edges settle the rest. */
    float fpre[2];
    float foff[2];
    float fscale[2];
    float fdc0[2];
    float fdc1[2];
    float fdelta[2];
} votecl__hist_desc;

/* Fills desc from params; returns VOTECL_INVALID_ARGUMENT with the field named in msg. */
votecl_status votecl__hist_desc_init(const votecl_hist_params *params, votecl__hist_desc *desc,
                                     char *msg, size_t msg_size);

/* Edge k (0..nbins) of dimension dim of f32 data: the least float of bin k (edge nbins:
 * the range's exclusive end). Non-decreasing in k. */
float votecl__hist_edge(const votecl__hist_desc *desc, unsigned dim, uint32_t k);

/* The bin of the f32 value v in dimension dim, or 0xffffffff when v casts no vote. */
uint32_t votecl__hist_bin_f32(const votecl__hist_desc *desc, unsigned dim, float v);

/* The sequential reference: frames histograms of n elements each into bins (uint32_t or,
 * when weighted, float; frames * nbins_total entries, overwritten). */
void votecl__hist_ref(const votecl__hist_desc *desc, const void *x, const void *y,
                      const float *w, size_t n, size_t frames, void *bins);

#endif
