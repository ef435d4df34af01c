/* The sequential reference for histograms: the specification of every strategy, the test
 * oracle and the 'ref' backend. libc only. f32 bins follow the rule of
 * include/votecl/votecl-vote.h directly, in double precision; the kernels reach the same
 * bins through the float edges votecl__hist_edge() gives. This file is compiled with
 * -ffp-contract=off, so that every double expression rounds as written. */
#include "votecl-private.h"

#include <math.h>
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

/* The least float not below x (+inf when x exceeds FLT_MAX). */
static float
float_at_or_above(double x)
{
    float f = (float)x;

    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* Exact edges: v's position in bins, in double precision in the order of the reference of
 * OpenCV's calcHist accuracy test, (v - min) * nbins / (max - min). */
static double
position(const votecl__hist_desc *d, unsigned dim, float v)
{
    return ((double)v - d->min[dim]) * (double)d->nbins[dim] / d->width[dim];
}

/* NumPy's edge k: np.linspace(min, max, nbins + 1) in double (k * step + min, the last edge
 * max itself), rounded to float32 as np.histogram does for float32 data. */
static float
numpy_edge(const votecl__hist_desc *d, unsigned dim, uint32_t k)
{
    if (k == d->nbins[dim])
        return (float)d->max[dim];
    return (float)((double)k * (d->width[dim] / d->nbins[dim]) + d->min[dim]);
}

/* Exact edges: the least float v in [lo, hi] whose position is k or more (hi if none),
 * searched from the float nearest the real edge, at most a few floats away. */
static float
exact_edge(const votecl__hist_desc *d, unsigned dim, uint32_t k, float lo, float hi)
{
    float v = (float)(d->min[dim] + (double)k * (d->width[dim] / d->nbins[dim]));

    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    while (v > lo && position(d, dim, nextafterf(v, -INFINITY)) >= k)
        v = nextafterf(v, -INFINITY);
    while (v < hi && position(d, dim, v) < k)
        v = nextafterf(v, INFINITY);
    return v;
}

float
votecl__hist_edge(const votecl__hist_desc *d, unsigned dim, uint32_t k)
{
    uint32_t n = d->nbins[dim];
    float lo, hi;

    if (d->numpy_edges) /* the last bin holds its upper edge: the range ends above it */
        return k < n ? numpy_edge(d, dim, k) : nextafterf(numpy_edge(d, dim, n), INFINITY);
    lo = float_at_or_above(d->min[dim]);
    hi = float_at_or_above(d->max[dim]);
    return k == 0 ? lo : k == n ? hi : exact_edge(d, dim, k, lo, hi);
}

/* NumPy's edges: the last bin k with edge k <= v, by bisection. */
static uint32_t
numpy_bin(const votecl__hist_desc *d, unsigned dim, float v)
{
    uint32_t lo = 0, hi = d->nbins[dim] - 1;

    if (!(v >= numpy_edge(d, dim, 0) && v <= numpy_edge(d, dim, d->nbins[dim])))
        return SKIP;
    while (lo < hi) {
        uint32_t mid = hi - (hi - lo) / 2;
        if (v >= numpy_edge(d, dim, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

uint32_t
votecl__hist_bin_f32(const votecl__hist_desc *d, unsigned dim, float v)
{
    double p;

    if (d->numpy_edges)
        return numpy_bin(d, dim, v);
    if (!(v >= d->min[dim] && v < d->max[dim])) /* NaN, infinities, out of range: no vote */
        return SKIP;
    p = floor(position(d, dim, v));
    return p < (double)d->nbins[dim] ? (uint32_t)p : d->nbins[dim] - 1;
}

/* Uneven bins: the last k with edges[k] <= v, for edges[0] <= v < edges[nbins] (NumPy's
 * rule: v <= edges[nbins]); compared in double, exactly for every data type. */
static uint32_t
uneven_bin(const votecl__hist_desc *d, unsigned dim, double v)
{
    const double *e = d->uneven[dim];
    uint32_t lo = 0, hi = d->nbins[dim] - 1;

    if (!(v >= e[0] && (v < e[hi + 1] || (d->numpy_edges && v == e[hi + 1]))))
        return SKIP;
    while (lo < hi) {
        uint32_t mid = hi - (hi - lo) / 2;
        if (v >= e[mid])
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The greatest float not above x (-inf below -FLT_MAX). */
static float
float_at_or_below(double x)
{
    float f = (float)x;

    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

float
votecl__hist_uneven_float(const votecl__hist_desc *d, unsigned dim, uint32_t k)
{
    double e = d->uneven[dim][k];

    if (k == d->nbins[dim] && d->numpy_edges) /* v <= e: v below the next float up */
        return nextafterf(float_at_or_below(e), INFINITY);
    return float_at_or_above(e);
}

uint64_t
votecl__hist_uneven_int(const votecl__hist_desc *d, unsigned dim, uint32_t k)
{
    double e = d->uneven[dim][k];
    double c = k == d->nbins[dim] && d->numpy_edges ? floor(e) + 1.0 : ceil(e);

    return c <= 0.0 ? 0 : c >= 0x1p33 ? (uint64_t)1 << 33 : (uint64_t)c;
}

static double
value_of(const votecl__hist_desc *d, const void *data, size_t index)
{
    switch (d->dtype) {
    case VOTECL_DTYPE_U8:
        return ((const uint8_t *)data)[index];
    case VOTECL_DTYPE_U16:
        return ((const uint16_t *)data)[index];
    case VOTECL_DTYPE_U32:
        return ((const uint32_t *)data)[index];
    case VOTECL_DTYPE_F32:
        return ((const float *)data)[index];
    }
    return NAN;
}

static uint32_t
value_bin(const votecl__hist_desc *d, unsigned dim, const void *data, size_t index)
{
    if (d->uneven[dim] != NULL)
        return uneven_bin(d, dim, value_of(d, data, index));
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
        return votecl__hist_bin_f32(d, dim, ((const float *)data)[index]);
    }
    return SKIP;
}

/* The bin of element i (frame offset included), or SKIP: row-major over the dimensions. */
static uint32_t
element_bin(const votecl__hist_desc *d, const void *x, const void *y, size_t i)
{
    uint32_t b = value_bin(d, 0, x, i * d->channels + d->channel[0]);

    for (unsigned dim = 1; dim < d->dims && b != SKIP; dim++) {
        const void *data = dim == 1 && d->two_arrays ? y : x;
        uint32_t bd = value_bin(d, dim, data, i * d->channels + d->channel[dim]);
        b = bd == SKIP ? SKIP : b * d->nbins[dim] + bd;
    }
    return b;
}

/* Per channel: the votes of pixel i, one in each channel's histogram. */
static void
pixel_votes(const votecl__hist_desc *d, const void *x, const float *w, size_t i, void *bins)
{
    for (unsigned c = 0; c < d->channels; c++) {
        uint32_t b = value_bin(d, c, x, i * d->channels + c);
        if (b == SKIP)
            continue;
        if (d->weighted)
            ((float *)bins)[d->offset[c] + b] += w[i];
        else
            ((uint32_t *)bins)[d->offset[c] + b]++;
    }
}

void
votecl__hist_ref(const votecl__hist_desc *d, const void *x, const void *y, const float *w,
                 const uint8_t *mask, size_t n, size_t frames, void *bins)
{
    size_t total = frames * d->nbins_total;

    memset(bins, 0, total * 4);
    for (size_t f = 0; f < frames; f++) {
        uint32_t *counts = (uint32_t *)bins + f * d->nbins_total;
        float *sums = (float *)bins + f * d->nbins_total;
        for (size_t e = f * n; e < (f + 1) * n; e++) {
            uint32_t b;
            if (mask != NULL && mask[e] == 0)
                continue;
            if (d->per_channel) {
                pixel_votes(d, x, w, e, counts);
                continue;
            }
            if ((b = element_bin(d, x, y, e)) == SKIP)
                continue;
            if (d->weighted)
                sums[b] += w[e];
            else
                counts[b]++;
        }
    }
}
