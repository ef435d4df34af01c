/* histogram.cl: 1-D and 2-D histograms as element functions of the voting engine (vote.cl
 * follows this file in the composed program).
 *
 * Required defines: X_T (element type), CHANNELS, DIMS (1/2), TWO_ARRAYS (0/1), CH0, CH1,
 * NB0, NB1 (bins per dimension), HIST_FLOAT (0: integer data, 1: f32 data);
 * integer data: MIN0, RANGE0, MIN1, RANGE1 (ulong literals), IDENT0, IDENT1 (1 when
 * RANGE == NB and the bin is the offset itself); f32 data: FLO0, FHI0 (the range's float
 * ends, FLO0 <= v < FHI0), FPRE0, FOFF0, FSCALE0 (the guess), FDC0_0, FDC1_0 (its error
 * bound), FDELTA0 (the bound over the range), the same for dimension 1 (exact float bit patterns), and EDGES1; the vote kernels'
 * aux buffer then holds the NB0 + 1 float edges of dimension 0 and, from EDGES1 on, the
 * NB1 + 1 of dimension 1; VOTE_VEC as for vote.cl, > 1 only for 1-D single-channel data;
 * VOTE_KIND (2 when weighted) and VOTE_FRAMES = 1 (frame g is space g). The bins are exactly
 * lib/histogram-ref.c's. */

#define Y_T X_T

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
    while (k0 < k1) {
        uint m = k1 - (k1 - k0) / 2u;
        if (v >= edges[m])
            k0 = m;
        else
            k1 = m - 1u;
    }
    return k0;
}
#define HIST_BIN0(v) hist_bin_f((v), aux, FLO0, FHI0, FPRE0, FOFF0, FSCALE0, FDELTA0, FDC0_0, FDC1_0, NB0)
#define HIST_BIN1(v)                                                                           \
    hist_bin_f((v), aux + EDGES1, FLO1, FHI1, FPRE1, FOFF1, FSCALE1, FDELTA1, FDC0_1, FDC1_1, \
               NB1)
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
#define HIST_BIN0(v) hist_bin_i((ulong)(v), MIN0, RANGE0, NB0, IDENT0)
#define HIST_BIN1(v) hist_bin_i((ulong)(v), MIN1, RANGE1, NB1, IDENT1)
#endif

INLINE uint
vote_elem(GLOBAL const X_T *restrict x, GLOBAL const Y_T *restrict y,
          GLOBAL const float *restrict w, GLOBAL const float *restrict aux, uint space, ulong i,
          uint width, VOTE_T *weight)
{
    uint b = HIST_BIN0(x[i * CHANNELS + CH0]);
#if DIMS == 2
#if TWO_ARRAYS
    uint b1 = HIST_BIN1(y[i * CHANNELS + CH1]);
#else
    uint b1 = HIST_BIN1(x[i * CHANNELS + CH1]);
#endif
    b = (b == VOTE_SKIP || b1 == VOTE_SKIP) ? VOTE_SKIP : b * NB1 + b1;
#endif
#if VOTE_KIND == 2
    *weight = w[i];
#endif
    return b;
}

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
        b[k] = HIST_BIN0((uchar)(words[k / 4] >> (8 * (k % 4))));
#elif VOTE_VEC == 8
    uint words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (uint k = 0; k < 8; k++)
        b[k] = HIST_BIN0((ushort)(words[k / 2] >> (16 * (k % 2))));
#elif VOTE_VEC == 4
    uint words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (uint k = 0; k < 4; k++)
#if HIST_FLOAT
        b[k] = HIST_BIN0(as_float(words[k]));
#else
        b[k] = HIST_BIN0(words[k]);
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
    b[0] = HIST_BIN0(x[v]);
#endif
}
