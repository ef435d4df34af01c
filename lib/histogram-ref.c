/* The sequential reference for histograms: the specification of every strategy, the test
 * oracle and the 'ref' backend. libc only. The bin arithmetic here is exactly that of
 * cl/histogram.cl; this file is compiled with -ffp-contract=off like the kernels. */
#include "votecl-private.h"

#include <string.h>

#include "histogram-private.h"

#define SKIP 0xffffffffu

static uint32_t
bin_int(uint64_t v, uint64_t vmin, uint64_t range, uint32_t nb, int ident)
{
    if (v < vmin || v - vmin >= range)
        return SKIP;
    return ident ? (uint32_t)(v - vmin) : (uint32_t)(((v - vmin) * nb) / range);
}

static uint32_t
bin_float(float v, float fmin, float fmax, float scale, uint32_t nb)
{
    float t;
    uint32_t b;

    if (!(v >= fmin && v < fmax)) /* NaN, infinities and out-of-range values cast no vote */
        return SKIP;
    t = (v - fmin) * scale;
    /* v - fmin may overflow to +inf for ranges near FLT_MAX: saturate before converting,
     * since converting an out-of-range float is undefined. */
    b = t < 4294967040.0f ? (uint32_t)t : UINT32_MAX;
    return b < nb - 1 ? b : nb - 1;
}

static uint32_t
value_bin(const votecl__hist_desc *d, unsigned dim, const void *data, size_t index)
{
    switch (d->dtype) {
    case VOTECL_DTYPE_U8:
        return bin_int(((const uint8_t *)data)[index], d->imin[dim], d->irange[dim],
                       d->nbins[dim], d->ident[dim]);
    case VOTECL_DTYPE_U16:
        return bin_int(((const uint16_t *)data)[index], d->imin[dim], d->irange[dim],
                       d->nbins[dim], d->ident[dim]);
    case VOTECL_DTYPE_U32:
        return bin_int(((const uint32_t *)data)[index], d->imin[dim], d->irange[dim],
                       d->nbins[dim], d->ident[dim]);
    case VOTECL_DTYPE_F32:
        return bin_float(((const float *)data)[index], d->fmin[dim], d->fmax[dim],
                         d->fscale[dim], d->nbins[dim]);
    }
    return SKIP;
}

/* The bin of element i (frame offset included), or SKIP. */
static uint32_t
element_bin(const votecl__hist_desc *d, const void *x, const void *y, size_t i)
{
    uint32_t b = value_bin(d, 0, x, i * d->channels + d->channel[0]), b1;

    if (d->dims == 1)
        return b;
    b1 = value_bin(d, 1, d->two_arrays ? y : x, i * d->channels + d->channel[1]);
    return b == SKIP || b1 == SKIP ? SKIP : b * d->nbins[1] + b1;
}

void
votecl__hist_ref(const votecl__hist_desc *d, const void *x, const void *y, const float *w,
                 size_t n, size_t frames, void *bins)
{
    size_t total = frames * d->nbins_total;

    memset(bins, 0, total * 4);
    for (size_t f = 0; f < frames; f++) {
        uint32_t *counts = (uint32_t *)bins + f * d->nbins_total;
        float *sums = (float *)bins + f * d->nbins_total;
        for (size_t e = f * n; e < (f + 1) * n; e++) {
            uint32_t b = element_bin(d, x, y, e);
            if (b == SKIP)
                continue;
            if (d->weighted)
                sums[b] += w[e];
            else
                counts[b]++;
        }
    }
}
