/* Histograms: the validated description shared by the plan, the kernel defines and the
 * sequential reference. */
#ifndef VOTECL_HISTOGRAM_PRIVATE_H
#define VOTECL_HISTOGRAM_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <votecl.h>

#define HD VOTECL_HIST_MAX_DIMS

typedef struct votecl__hist_desc {
    votecl_dtype dtype;
    size_t value_bytes;   /* bytes of one channel value */
    unsigned channels;
    unsigned dims; /* per_channel: channels */
    unsigned channel[HD];
    int two_arrays;
    int weighted;
    int masked;           /* every run takes a mask byte per element (pixel) */
    int per_channel;      /* dimension c bins channel c; the histograms one after another */
    uint32_t nbins[HD];   /* 1 beyond dims */
    uint64_t nbins_total; /* the product over the dimensions; per_channel: the sum */
    uint64_t offset[HD];  /* per_channel: channel c's first bin */
    /* integer data: bin = (v - imin) * nbins / irange for imin <= v < imin + irange */
    uint64_t imin[HD];
    uint64_t irange[HD];
    int ident[HD]; /* irange == nbins: the bin is v - imin */
    /* f32 data (the rule is in include/votecl/votecl-vote.h): the range and width as given,
     * the edge convention, and the float edges' ends: v votes when flo <= v < fhi. */
    double min[HD];
    double max[HD];
    double width[HD]; /* max - min, in double: the rule's denominator */
    int numpy_edges; /* VOTECL_HIST_EDGES_NUMPY */
    float flo[HD];
    float fhi[HD];
    /* The kernels' first guess t = (v * fpre - foff) * fscale lies within
     * fdc0 + fdc1 * |t| bins of the bin's true position, within fdelta over the whole range
     * (and the rounding of 1 - fdelta); edges settle the rest. */
    float fpre[HD];
    float foff[HD];
    float fscale[HD];
    float fdc0[HD];
    float fdc1[HD];
    float fdelta[HD];
    /* uneven bins: the nbins + 1 edges of dimension d (copies, in edge_mem), or NULL */
    double *uneven[HD];
    double *edge_mem;
} votecl__hist_desc;

/* Fills desc from params; returns VOTECL_INVALID_ARGUMENT with the field named in msg, or
 * VOTECL_OUT_OF_HOST_MEMORY for the copies of uneven edges. Release with
 * votecl__hist_desc_release() whatever it returns. */
votecl_status votecl__hist_desc_init(const votecl_hist_params *params, votecl__hist_desc *desc,
                                     char *msg, size_t msg_size);
void votecl__hist_desc_release(votecl__hist_desc *desc);

/* Uneven edges of dimension dim as the kernels compare them: f32 data: float edge k is the
 * least float at or above edges[k] (the last one, under NumPy's rule, the least float above
 * edges[nbins]); integer data: the least integer at or above (the last, NumPy's, the least
 * integer above), clamped to [0, 2^33]. v is in bin k when edge k <= v < edge k + 1. */
float votecl__hist_uneven_float(const votecl__hist_desc *desc, unsigned dim, uint32_t k);
uint64_t votecl__hist_uneven_int(const votecl__hist_desc *desc, unsigned dim, uint32_t k);

/* Edge k (0..nbins) of dimension dim of f32 data: the least float of bin k (edge nbins:
 * the range's exclusive end). Non-decreasing in k. */
float votecl__hist_edge(const votecl__hist_desc *desc, unsigned dim, uint32_t k);

/* The bin of the f32 value v in dimension dim, or 0xffffffff when v casts no vote. */
uint32_t votecl__hist_bin_f32(const votecl__hist_desc *desc, unsigned dim, float v);

/* The sequential reference: frames histograms of n elements each into bins (uint32_t or,
 * when weighted, float; frames * nbins_total entries, overwritten). */
void votecl__hist_ref(const votecl__hist_desc *desc, const void *x, const void *y, const float *w,
                      const uint8_t *mask, size_t n, size_t frames, void *bins);

#endif
