/* generic.cl: the generic engine's defaults for the user functions and its element function
 * for vote.cl (GPU-vote section 3.4). The user's source, when any, precedes this file; the
 * host defines VOTE_HAS_TEST, VOTE_HAS_INDEX, VOTE_HAS_VALUE, VOTE_HAS_FINISH for the
 * functions it defines.
 *
 * Required defines: VALUE_T (element type: scalar or 2/4-vector), VALUE_CHANNELS (1, 2, 4),
 * NBINS, VOTE_KIND. Elements are VALUE_T (X_T); stage 1's locations are uint (Y_T). */

#define X_T VALUE_T
#define Y_T uint

#if VALUE_CHANNELS == 1
#define VALUE_FIRST(v) (v)
#else
#define VALUE_FIRST(v) ((v).x)
#endif

#ifndef VOTE_HAS_INDEX
/* Default: the value of the first channel is the bin (a histogram of small integers). */
INLINE uint
vote_index(uint space, uint index, VALUE_T value, uint nbins)
{
    return convert_uint_sat(VALUE_FIRST(value));
}
#endif

#if !defined(VOTE_HAS_VALUE) && VOTE_KIND != 0
INLINE VOTE_T
vote_value(uint space, uint index, VALUE_T value)
{
    return VOTE_ONE;
}
#endif

/* The location of element i: packed x | y << 16 for images (width > 0), else i. */
INLINE uint
vote_location(ulong i, uint width)
{
    return width != 0 ? (uint)(i % width) | ((uint)(i / width) << 16) : (uint)i;
}

INLINE uint
vote_elem(GLOBAL const X_T *restrict x, GLOBAL const Y_T *restrict y,
          GLOBAL const float *restrict w, GLOBAL const float *restrict aux, uint space, ulong i,
          uint width, VOTE_T *value)
{
    const VALUE_T v = x[i];
#ifdef VOTE_HAS_TEST
    const uint index = y[i]; /* stage 1 stored the location */
#else
    const uint index = vote_location(i, width);
#endif
#if VOTE_KIND != 0
    *value = vote_value(space, index, v);
#endif
    return vote_index(space, index, v, NBINS);
}

/* VOTE_VEC consecutive one-channel elements of a value-based unity vote through one
 * 16-byte load, so that a histogram written as user functions reads memory as the built-in
 * does. */
INLINE void
vote_vec(GLOBAL const X_T *restrict x, GLOBAL const float *restrict aux, uint space, ulong v,
         uint width, uint *b)
{
#if VOTE_VEC > 1
    union {
        uint4 q;
        VALUE_T e[VOTE_VEC];
    } u;
    u.q = ((GLOBAL const uint4 *)x)[v];
#pragma unroll
    for (uint k = 0; k < VOTE_VEC; k++)
        b[k] = vote_index(space, vote_location(v * VOTE_VEC + k, width), u.e[k], NBINS);
#endif
}
