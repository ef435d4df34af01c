/* histogram.cl: histograms of 1 to 8 dimensions, even or uneven bins, masked or not, and
 * per-channel histograms, as element functions of the voting engine (vote.cl follows this
 * file in the composed program).
 *
 * Required defines: X_T (element type), CHANNELS, DIMS (1-8), TWO_ARRAYS (0/1), MASKED
 * (0/1), PER_CHANNEL (0/1), HIST_FLOAT (0: integer data, 1: f32 data); for each dimension
 * d < DIMS: CHd (its channel), NBd (its bins), UNEVENd (1: bins from edges), EOFFd (where its
 * edges start in aux), OFFd (per channel: the first bin of channel d's histogram); integer
 * data: MINd, RANGEd (ulong literals), IDENTd (1 when RANGE == NB and the bin is the offset
 * itself); f32 data: FLOd, FHId (the range's float ends, FLO <= v < FHI), FPREd, FOFFd,
 * FSCALEd (the guess), FDC0_d, FDC1_d (its error bound), FDELTAd (the bound over the range),
 * exact float bit patterns. The vote kernels' aux buffer holds, for f32 data, each
 * dimension's NBd + 1 float edges from EOFFd (floats), for integer data each uneven
 * dimension's NBd + 1 64-bit edges from EOFFd (words): v is in bin k when
 * edge k <= v < edge k + 1 (lib/histogram-ref.c makes them). The mask (one uchar per element)
 * arrives as the y argument, or as w when TWO_ARRAYS. Per channel, every channel value is an
 * element: element i is channel i % CHANNELS of pixel i / CHANNELS. VOTE_VEC as for vote.cl,
 * > 1 only for unmasked single values (1-D single-channel data, or per channel when a load's
 * values start at channel 0) or, with HIST_PIXVEC (unmasked, unweighted N-D histograms of one
 * interleaved u8 array), 16 pixels from CHANNELS 16-byte loads; VOTE_KIND (2 when weighted) and VOTE_FRAMES = 1 (frame g is
 * space g). The bins are exactly lib/histogram-ref.c's. */

#define Y_T X_T

#if HIST_FLOAT
#define EDGE_T float /* f32 data: float edges */
#else
#define EDGE_T ulong /* integer data: 64-bit edges */
#endif

/* Bisection of ascending edges: the last k in [lo, hi] with e[k] <= v (lo when none). */
INLINE uint
hist_bisect(EDGE_T v, GLOBAL const EDGE_T *restrict e, uint lo, uint hi)
{
    while (lo < hi) {
        uint m = hi - (hi - lo) / 2u;
        if (v >= e[m])
            lo = m;
        else
            hi = m - 1u;
    }
    return lo;
}

/* Uneven bins: the last k with edges[k] <= v, for edges[0] <= v < edges[nb]. */
INLINE uint
hist_search(EDGE_T v, GLOBAL const EDGE_T *restrict e, uint nb)
{
    if (!(v >= e[0] && v < e[nb]))
        return VOTE_SKIP;
    return hist_bisect(v, e, 0u, nb - 1u);
}

#if HIST_FLOAT
/* The f32 rule of include/votecl/votecl-vote.h without double precision: a float guess t of
 * the bin's position lies within dc0 + dc1 * |t| bins of it (lib/histogram.c). Where t is
 * farther than delta (that bound over the whole range) from a bin edge, its floor is the
 * bin; near an integer r, edge r decides between r - 1 and r; where the bound is wider
 * (delta >= 1/2: huge bin counts, ranges far from zero), the bins [k0, k1] it allows are
 * bisected over the host's float edges (edges[k] is the least float of bin k). Most values
 * read no edge. */
INLINE uint
hist_bin_f(float v, GLOBAL const float *restrict edges, float lo, float hi, float pre, float off,
           float scale, float delta, float dc0, float dc1, uint nb)
{
    if (!(v >= lo && v < hi)) /* NaN, infinities and out-of-range values cast no vote */
        return VOTE_SKIP;
    float t = (v * pre - off) * scale;
    float f = floor(t), frac = t - f; /* exact */
    /* t is within delta of [0, nb]: clear of every integer, f lies in [0, nb - 1] */
    if (frac > delta && frac < 1.0f - delta)
        return (uint)f;
    if (delta < 0.5f) { /* a define: one branch is compiled */
        /* within delta of the integer r: the bin is r - 1 or r, edge r tells */
        uint r = (uint)(frac < 0.5f ? max(f, 0.0f) : f + 1.0f);
        return r == 0u ? 0u : r >= nb ? nb - 1u : v >= edges[r] ? r : r - 1u;
    }
    float d = dc0 + dc1 * fabs(t);
    float a = t - d, b = t + d;
    /* clamped before converting: converting an out-of-range float is undefined */
    uint k0 = min((uint)(a > 0.0f ? min(a, 4294967040.0f) : 0.0f), nb - 1u);
    uint k1 = min((uint)(b > 0.0f ? min(b, 4294967040.0f) : 0.0f), nb - 1u);
    return hist_bisect(v, edges, k0, k1);
}
#define HIST_EVEN(d, v)                                                                        \
    hist_bin_f((v), aux + EOFF##d, FLO##d, FHI##d, FPRE##d, FOFF##d, FSCALE##d, FDELTA##d,      \
               FDC0_##d, FDC1_##d, NB##d)
#define HIST_UNEVEN(d, v) hist_search((v), aux + EOFF##d, NB##d)
#else
INLINE uint
hist_bin_i(ulong v, ulong vmin, ulong range, uint nb, int ident)
{
    /* With the identity mapping and a range below 2^32, one unsigned 32-bit subtraction and
     * compare decide (v < vmin wraps to a large value): the hot u8 and u16 cases. */
    if (ident && range < 0x100000000UL) {
        uint d = (uint)v - (uint)vmin;
        return v < 0x100000000UL && d < (uint)range ? d : VOTE_SKIP;
    }
    if (v < vmin || v - vmin >= range)
        return VOTE_SKIP;
    return ident ? (uint)(v - vmin) : (uint)(((v - vmin) * nb) / range);
}
#define HIST_EVEN(d, v) hist_bin_i((ulong)(v), MIN##d, RANGE##d, NB##d, IDENT##d)
#define HIST_UNEVEN(d, v) hist_search((ulong)(v), (GLOBAL const ulong *)aux + EOFF##d, NB##d)
#endif

/* Dimension d's bin of v (UNEVENd is a define: one branch is compiled). */
#define HIST_BIN(d, v) (UNEVEN##d ? HIST_UNEVEN(d, v) : HIST_EVEN(d, v))

/* Row-major: the bin so far times the next dimension's bins plus its bin. */
INLINE uint
hist_join(uint b, uint bd, uint nb)
{
    return (b == VOTE_SKIP || bd == VOTE_SKIP) ? VOTE_SKIP : b * nb + bd;
}

#if TWO_ARRAYS
#define HIST_MASK_PTR w
#else
#define HIST_MASK_PTR y
#endif

#if PER_CHANNEL
#define PIXEL_OF(i) ((i) / CHANNELS)
/* Channel c's vote of value v: its bin in channel c's histogram (an if chain, no switch:
 * one exit, which PoCL's work-group loops handle alike in every kernel). */
#define HIST_CHAN(c, v)                                                                        \
    if (ch == c) {                                                                             \
        uint bc = HIST_BIN(c, v);                                                              \
        b = bc == VOTE_SKIP ? bc : bc + OFF##c;                                                \
    }
INLINE uint
hist_channel_bin(uint ch, X_T v, GLOBAL const float *restrict aux)
{
    uint b = VOTE_SKIP;
    HIST_CHAN(0, v)
#if CHANNELS > 1
    HIST_CHAN(1, v)
#endif
#if CHANNELS > 2
    HIST_CHAN(2, v)
#endif
#if CHANNELS > 3
    HIST_CHAN(3, v)
#endif
#if CHANNELS > 4
    HIST_CHAN(4, v)
#endif
#if CHANNELS > 5
    HIST_CHAN(5, v)
#endif
#if CHANNELS > 6
    HIST_CHAN(6, v)
#endif
#if CHANNELS > 7
    HIST_CHAN(7, v)
#endif
    return b;
}
/* the k-th value of a vector load (loads start at channel 0: VOTE_VEC % CHANNELS == 0) */
#define VEC_BIN(k, v) hist_channel_bin((k) % CHANNELS, (v), aux)
#else
#define PIXEL_OF(i) (i)
#define VEC_BIN(k, v) HIST_BIN(0, v)
#endif

/* Dimension d's bin joined to b, the value read from channel CHd of x. */
#define HIST_NEXT(b, d) hist_join((b), HIST_BIN(d, x[i * CHANNELS + CH##d]), NB##d)

INLINE uint
vote_elem(GLOBAL const X_T *restrict x, GLOBAL const Y_T *restrict y,
          GLOBAL const float *restrict w, GLOBAL const float *restrict aux, uint space, ulong i,
          uint width, VOTE_T *weight)
{
#if MASKED
    if (((GLOBAL const uchar *)HIST_MASK_PTR)[PIXEL_OF(i)] == 0)
        return VOTE_SKIP;
#endif
#if VOTE_KIND == 2
    *weight = w[PIXEL_OF(i)];
#endif
#if PER_CHANNEL
    return hist_channel_bin((uint)(i % CHANNELS), x[i], aux);
#else
    uint b = HIST_BIN(0, x[i * CHANNELS + CH0]);
#if DIMS >= 2 && TWO_ARRAYS
    b = hist_join(b, HIST_BIN(1, y[i * CHANNELS + CH1]), NB1);
#elif DIMS >= 2
    b = HIST_NEXT(b, 1);
#endif
#if DIMS >= 3
    b = HIST_NEXT(b, 2);
#endif
#if DIMS >= 4
    b = HIST_NEXT(b, 3);
#endif
#if DIMS >= 5
    b = HIST_NEXT(b, 4);
#endif
#if DIMS >= 6
    b = HIST_NEXT(b, 5);
#endif
#if DIMS >= 7
    b = HIST_NEXT(b, 6);
#endif
#if DIMS >= 8
    b = HIST_NEXT(b, 7);
#endif
    return b;
#endif
}

#if HIST_PIXVEC
/* Dimension d's bin joined to b, the value from channel CHd of the pixel's bytes p. */
#define HIST_NEXT_P(b, d) hist_join((b), HIST_BIN(d, p[CH##d]), NB##d)

/* The N-D bin of one u8 pixel's CHANNELS values p (vote_elem's, from private memory). */
INLINE uint
hist_pixel_bin(const uchar *p, GLOBAL const float *restrict aux)
{
    uint b = HIST_BIN(0, p[CH0]);
    b = HIST_NEXT_P(b, 1);
#if DIMS >= 3
    b = HIST_NEXT_P(b, 2);
#endif
#if DIMS >= 4
    b = HIST_NEXT_P(b, 3);
#endif
#if DIMS >= 5
    b = HIST_NEXT_P(b, 4);
#endif
#if DIMS >= 6
    b = HIST_NEXT_P(b, 5);
#endif
#if DIMS >= 7
    b = HIST_NEXT_P(b, 6);
#endif
#if DIMS >= 8
    b = HIST_NEXT_P(b, 7);
#endif
    return b;
}

/* The bins of the 16 pixels of vector v (16 * CHANNELS bytes) through CHANNELS 16-byte
 * loads. */
INLINE void
vote_vec(GLOBAL const X_T *restrict x, GLOBAL const float *restrict aux, uint space, ulong v,
         uint width, uint *b)
{
    uint words[4 * CHANNELS];
#pragma unroll
    for (uint k = 0; k < CHANNELS; k++) {
        uint4 q = ((GLOBAL const uint4 *)x)[v * CHANNELS + k];
        words[4 * k] = q.x;
        words[4 * k + 1] = q.y;
        words[4 * k + 2] = q.z;
        words[4 * k + 3] = q.w;
    }
#pragma unroll
    for (uint j = 0; j < 16; j++) {
        uchar p[CHANNELS];
#pragma unroll
        for (uint c = 0; c < CHANNELS; c++) {
            uint at = j * CHANNELS + c;
            p[c] = (uchar)(words[at / 4] >> (8 * (at % 4)));
        }
        b[j] = hist_pixel_bin(p, aux);
    }
}
#else
/* The bins of VOTE_VEC consecutive single-channel elements from their 16 bytes q (the
 * engine loads q itself, so that it can keep several loads in flight). */
#define VOTE_HAS_UNPACK 1
INLINE void
vote_unpack(uint4 q, GLOBAL const float *restrict aux, uint *b)
{
#if VOTE_VEC == 16
    uint words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (uint k = 0; k < 16; k++)
        b[k] = VEC_BIN(k, (uchar)(words[k / 4] >> (8 * (k % 4))));
#elif VOTE_VEC == 8
    uint words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (uint k = 0; k < 8; k++)
        b[k] = VEC_BIN(k, (ushort)(words[k / 2] >> (16 * (k % 2))));
#elif VOTE_VEC == 4
    uint words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (uint k = 0; k < 4; k++)
#if HIST_FLOAT
        b[k] = VEC_BIN(k, as_float(words[k]));
#else
        b[k] = VEC_BIN(k, words[k]);
#endif
#endif
}

/* VOTE_VEC consecutive single-channel elements through one 16-byte load. */
INLINE void
vote_vec(GLOBAL const X_T *restrict x, GLOBAL const float *restrict aux, uint space, ulong v,
         uint width, uint *b)
{
#if VOTE_VEC > 1
    vote_unpack(((GLOBAL const uint4 *)x)[v], aux, b);
#else
    b[0] = VEC_BIN(0, x[v]);
#endif
}
#endif
