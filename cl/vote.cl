/* vote.cl: the GPU-vote voting engine, stage 2 (van den Braak et al., sections 3.2-3.3).
 *
 * Kernels:
 *   vote_local    bins in local memory, stretched (Eq. 3-6). Global size
 *                 spaces * passes * parts * WG, local size WG. Group g handles space
 *                 g / (passes*parts), pass (g / parts) % passes, part g % parts; it writes the
 *                 NPASS bins of its pass, folded over the S' copies, to
 *                 partials[(space*parts + part) * NBINS + bin]. With FUSED_MERGE the
 *                 last group of each (space, pass) to finish, counted in
 *                 tickets[space*passes + pass] (zero on entry and again on exit), sums the
 *                 parts' bins into result[space*NBINS + bin] as vote_merge would (tickets
 *                 NULL: no merge).
 *   vote_global   atomics into 'copies' replicated copies in global memory, copy = group % copies.
 *                 Global size spaces * parts * WG. partials must be zero on entry.
 *   vote_private  one work-item per (space, part) owns PRIV_COPIES copies from
 *                 partials[(space*parts + part) * PRIV_COPIES * NBINS] and votes without
 *                 atomics over a contiguous chunk. Global size
 *                 spaces * parts rounded up to WG. partials must be zero on entry.
 *   vote_private_local  (PRIV_LOCAL) one work-group per (space, part), every work-item owning
 *                 16-bit counters in local memory; unity votes. Global size spaces*parts*WG.
 *   vote_merge    out[s*NBINS + b] = sum over c < copies of partials[(s*copies + c)*NBINS + b],
 *                 through vote_finish(s, b, sum) when VOTE_HAS_FINISH is defined.
 *                 Global size spaces * NBINS rounded up to MERGE_WG.
 *
 * Vote kernels take (x, y, w, aux, count, n, nvec, width, parts, extra, partials): aux is the
 * algorithm file's own table (NULL when it has none); count, when not
 * NULL, holds the element count stage 1 left on the device (n is then an upper bound);
 * width is the image width for packed locations (0 for 1-D arrays); extra is passes (local),
 * copies (global) or spaces (private).
 *
 * Required defines: WG, NBINS, VOTE_KIND (0 unity, 1 u32 number, 2 f32 number votes; VOTE_T
 * and VOTE_ONE come from common.h), VOTE_FRAMES (1: space g reads frame g of n elements; 0:
 * every space reads all elements), VOTE_VEC (elements per vector load);
 * MERGE_WG, PRIV_COPIES; for vote_local NPASS (bins per pass) and STRETCH_S, STRETCH (S and S' of Eq. 3
 * and 5), which also select it (without NPASS there is no vote_local), and ONE_PASS (1 when
 * NPASS covers every bin). The algorithm file defines X_T, Y_T and
 *   uint vote_elem(x, y, w, aux, uint space, ulong i, uint width, VOTE_T *value)
 *        the bin of element i in 'space' (or VOTE_SKIP), its vote in *value
 *   void vote_vec(x, aux, uint space, ulong vector_index, uint width, uint bins[VOTE_VEC])
 *        the bins of VOTE_VEC consecutive elements (unity votes), from one 16-byte load
 * Bins are 32-bit words: counts, or the bits of f32 sums when VOTE_KIND is 2.
 * LOCAL_AGG (bits: 1 one vote per vector of equal bins, 2 warp aggregation, NVIDIA only) and
 * FUSED_MERGE select vote_local's refinements; LOCAL_LOADS > 0 (with an algorithm file that
 * defines VOTE_HAS_UNPACK and vote_unpack(uint4 q, aux, uint *bins)) keeps that many 16-byte loads
 * in flight per work-item.
 * Atomics: local atomic_inc / add / cmpxchg (vote_local), global (vote_global, the tickets). */

#if VOTE_KIND == 2 /* f32 number votes */
#define LOCAL_VOTE(p, v) atomic_add_float_local((p), (v))
#define GLOBAL_VOTE(p, v) atomic_add_float_global((p), (v))
#define PRIVATE_VOTE(p, v) (*(p) = as_uint(as_float(*(p)) + (v)))
#elif VOTE_KIND == 1 /* u32 number votes */
#define LOCAL_VOTE(p, v) atomic_add((p), (v))
#define GLOBAL_VOTE(p, v) atomic_add((p), (v))
#define PRIVATE_VOTE(p, v) (*(p) += (v))
#else /* unity votes */
#define LOCAL_VOTE(p, v) atomic_inc(p)
#define GLOBAL_VOTE(p, v) atomic_inc(p)
#define PRIVATE_VOTE(p, v) (*(p) += 1u)
#endif

/* The elements of vote space 'space': its own frame (histogram batches), or all of them
 * (every element votes in every space, as in the Hough transform). */
#if VOTE_FRAMES
#define FRAME_OF(space, n) ((ulong)(space) * (n))
#else
#define FRAME_OF(space, n) 0UL
#endif

/* Stage 1 leaves its element count on the device: kernels read it instead of n. */
#define ELEMENTS(count, n_arg) ((count) != 0 ? min((n_arg), (count)[0]) : (n_arg))

#ifdef NPASS
#ifndef LOCAL_AGG
#define LOCAL_AGG 0
#endif
#ifndef FUSED_MERGE
#define FUSED_MERGE 0
#endif
#ifndef LOCAL_LOADS
#define LOCAL_LOADS 0
#endif
#if (LOCAL_AGG & 2) && !defined(VOTECL_HAS_WARP_MATCH)
#error "LOCAL_AGG & 2 needs warp_match_any (NVIDIA)"
#endif

/* The unity votes of one vector's VOTE_VEC bins into the local copies. LOCAL_AGG bit 0: a
 * vector whose elements share one bin (constant regions, runs) casts one atomic add of
 * VOTE_VEC; bit 1: the lanes of a warp voting for the same bin add their count through one
 * leader (warp aggregation), so few distinct values per warp cost few atomics. Either way
 * every bin receives the same counts, so results are exact. */
INLINE void
local_vote_vec(LOCAL_PTR uint *bins, const uint *b, uint base, uint copy)
{
#if LOCAL_AGG & 1
    uint same = 1;
#pragma unroll
    for (uint k = 1; k < VOTE_VEC; k++)
        same &= b[k] == b[0];
    if (same) {
        if (b[0] - base < NPASS)
            atomic_add(&bins[(b[0] - base) * STRETCH + copy], (uint)VOTE_VEC);
        return;
    }
#endif
#pragma unroll
    for (uint k = 0; k < VOTE_VEC; k++) {
#if LOCAL_AGG & 2
        uint key = b[k] - base, peers = warp_match_any(key);
        /* the lowest lane of the group votes, into its own copy */
        if (key < NPASS && warp_lane() == 31u - clz(peers & (0u - peers)))
            atomic_add(&bins[key * STRETCH + copy], popcount(peers));
#else
        if (b[k] - base < NPASS) /* also skips wild user indices */
            atomic_inc(&bins[(b[k] - base) * STRETCH + copy]);
#endif
    }
}

#if VOTE_VEC > 1 && VOTE_KIND == 0 && defined(VOTE_HAS_UNPACK) && LOCAL_LOADS > 0
/* The vectors v = first, first + stride, ... below nvec. Software pipeline: the next
 * LOCAL_LOADS vectors are loaded before the current ones vote, so that loads are always in
 * flight (the kernel is bound by the loads' latency, not by the local atomics:
 * docs/performance.md). */
INLINE void
local_vote_vectors(LOCAL_PTR uint *bins, GLOBAL const X_T *restrict x,
                   GLOBAL const float *restrict aux, uint space, ulong frame,
                   uint width, uint nvec, uint first, uint stride, uint base, uint copy)
{
    GLOBAL const uint4 *xv = (GLOBAL const uint4 *)x + frame / VOTE_VEC;
    uint4 q[LOCAL_LOADS];
#pragma unroll
    for (uint j = 0; j < LOCAL_LOADS; j++)
        if (first + j * stride < nvec)
            q[j] = xv[first + j * stride];
    for (uint v = first; v < nvec; v += LOCAL_LOADS * stride) {
        uint4 cur[LOCAL_LOADS];
#pragma unroll
        for (uint j = 0; j < LOCAL_LOADS; j++) {
            cur[j] = q[j];
            if (v + (LOCAL_LOADS + j) * stride < nvec)
                q[j] = xv[v + (LOCAL_LOADS + j) * stride];
        }
#pragma unroll
        for (uint j = 0; j < LOCAL_LOADS; j++) {
            uint b[VOTE_VEC];
            if (v + j * stride < nvec) {
                vote_unpack(cur[j], aux, b);
                local_vote_vec(bins, b, base, copy);
            }
        }
    }
}
#elif VOTE_VEC > 1 && VOTE_KIND == 0
/* The vectors v = first, first + stride, ... below nvec, two loads in flight before the
 * votes that depend on them. */
INLINE void
local_vote_vectors(LOCAL_PTR uint *bins, GLOBAL const X_T *restrict x,
                   GLOBAL const float *restrict aux, uint space, ulong frame,
                   uint width, uint nvec, uint first, uint stride, uint base, uint copy)
{
    uint v = first;
    for (; v + stride < nvec; v += 2 * stride) {
        uint b[2 * VOTE_VEC];
        vote_vec(x, aux, space, frame / VOTE_VEC + v, width, b);
        vote_vec(x, aux, space, frame / VOTE_VEC + v + stride, width, b + VOTE_VEC);
        local_vote_vec(bins, b, base, copy);
        local_vote_vec(bins, b + VOTE_VEC, base, copy);
    }
    for (; v < nvec; v += stride) {
        uint b[VOTE_VEC];
        vote_vec(x, aux, space, frame / VOTE_VEC + v, width, b);
        local_vote_vec(bins, b, base, copy);
    }
}
#endif

/* The pass's NPASS bins folded over their S' copies into out. */
INLINE void
local_fold(LOCAL_PTR const uint *bins, GLOBAL uint *out, uint base, uint lid)
{
    for (uint i = lid; i < NPASS && base + i < NBINS; i += WG) {
        /* Work-item i starts at copy i mod S', so that neighbours read different banks. */
#if VOTE_KIND == 2
        float sum = 0.0f;
        for (uint c = 0; c < STRETCH; c++)
            sum += as_float(bins[i * STRETCH + (c + i) % STRETCH]);
        out[i] = as_uint(sum);
#else
        uint sum = 0;
        for (uint c = 0; c < STRETCH; c++)
            sum += bins[i * STRETCH + (c + i) % STRETCH];
        out[i] = sum;
#endif
    }
}

#if FUSED_MERGE
/* The last group of this space and pass to finish folds every part's bins into result
 * (the threadfence reduction): no merge launch, which for one frame is a third of the
 * time. Parts are summed in vote_merge's order, so f32 sums are the same. Without
 * tickets (a single part writes result directly) there is nothing to merge. Every
 * work-item of the group calls it and passes both barriers, tickets or not: no return
 * comes before a barrier, not even a uniform one. With 'if (tickets == 0) return;' ahead of
 * them, PoCL 5.0's work-item loops (its default loopvec method, and loops; not cbs) ran
 * the sum loop below once for every work-item of the merging group, i = lid, past
 * 'i < NPASS': in groups wider than NPASS, work-items wrote the next space's bins and,
 * for the last space, past result's spaces * NBINS words, from partials read past their
 * buffer (issue 24; tests/test-nodevice.c checks every kernel for such returns). */
INLINE void
local_merge(GLOBAL uint *partials, GLOBAL uint *tickets, GLOBAL uint *result, uint space,
            uint pass, uint passes, uint parts, uint base, uint lid, LOCAL_PTR uint *last)
{
    device_fence();
    LOCAL_BARRIER();
    if (lid == 0)
        *last = tickets != 0 && atomic_inc(&tickets[space * passes + pass]) == parts - 1;
    LOCAL_BARRIER();
    if (!*last)
        return; /* uniform across the group: no barrier follows */
    device_fence();
    GLOBAL volatile const uint *p = partials + (ulong)space * parts * NBINS + base;
    for (uint i = lid; i < NPASS && base + i < NBINS; i += WG) {
#if VOTE_KIND == 2
        float sum = 0.0f;
        for (uint q = 0; q < parts; q++)
            sum += as_float(p[(ulong)q * NBINS + i]);
#else
        uint sum = 0;
        for (uint q = 0; q < parts; q++)
            sum += p[(ulong)q * NBINS + i];
#endif
#ifdef VOTE_HAS_FINISH
        result[(ulong)space * NBINS + base + i] = VOTE_WORD(vote_finish(space, base + i, sum));
#else
        result[(ulong)space * NBINS + base + i] = VOTE_WORD(sum);
#endif
    }
    if (lid == 0)
        tickets[space * passes + pass] = 0; /* ready for the next run */
}
#endif

KERNEL __attribute__((reqd_work_group_size(WG, 1, 1))) void
vote_local(GLOBAL const X_T *restrict x, GLOBAL const Y_T *restrict y,
           GLOBAL const float *restrict w, GLOBAL const float *restrict aux,
           GLOBAL const uint *restrict count, uint n_arg,
           uint nvec, uint width, uint parts, uint passes, GLOBAL uint *partials,
           GLOBAL uint *tickets, GLOBAL uint *result)
{
    LOCAL uint bins[NPASS * STRETCH];
#if FUSED_MERGE
    LOCAL uint last;
#endif
    const uint lid = get_local_id(0), group = get_group_id(0);
    const uint space = group / (passes * parts);
    const uint pass = (group / parts) % passes, part = group % parts;
#if ONE_PASS
    const uint base = 0; /* every bin fits: no pass window to test */
#else
    const uint base = pass * NPASS;
#endif
    /* GPU-vote Eq. 6: neighbouring work-items vote into different copies of a bin. */
    const uint copy = (lid % STRETCH_S) % STRETCH;
    const uint n = ELEMENTS(count, n_arg);
    const ulong frame = FRAME_OF(space, n);
    VOTE_T wt = VOTE_ONE;

    for (uint i = lid; i < NPASS * STRETCH; i += WG)
        bins[i] = 0;
    LOCAL_BARRIER();
#if VOTE_VEC > 1 && VOTE_KIND == 0
    local_vote_vectors(bins, x, aux, space, frame, width, nvec, part * WG + lid, parts * WG, base,
                       copy);
#endif
    for (uint e = nvec * VOTE_VEC + part * WG + lid; e < n; e += parts * WG) {
        uint b = vote_elem(x, y, w, aux, space, frame + e, width, &wt);
        if (b - base < NPASS)
            LOCAL_VOTE(&bins[(b - base) * STRETCH + copy], wt);
    }
    LOCAL_BARRIER();
    local_fold(bins, partials + ((ulong)space * parts + part) * NBINS + base, base, lid);
#if FUSED_MERGE
    local_merge(partials, tickets, result, space, pass, passes, parts, base, lid, &last);
#endif
}
#endif

KERNEL __attribute__((reqd_work_group_size(WG, 1, 1))) void
vote_global(GLOBAL const X_T *restrict x, GLOBAL const Y_T *restrict y,
            GLOBAL const float *restrict w, GLOBAL const float *restrict aux,
           GLOBAL const uint *restrict count, uint n_arg,
            uint nvec, uint width, uint parts, uint copies, GLOBAL uint *restrict partials)
{
    const uint lid = get_local_id(0), group = get_group_id(0);
    const uint space = group / parts, part = group % parts;
    const uint n = ELEMENTS(count, n_arg);
    const ulong frame = FRAME_OF(space, n);
    GLOBAL uint *bins = partials + ((ulong)space * copies + part % copies) * NBINS;
    VOTE_T wt = VOTE_ONE;

#if VOTE_VEC > 1 && VOTE_KIND == 0
    for (uint v = part * WG + lid; v < nvec; v += parts * WG) {
        uint b[VOTE_VEC];
        vote_vec(x, aux, space, frame / VOTE_VEC + v, width, b);
#pragma unroll
        for (uint k = 0; k < VOTE_VEC; k++)
            if (b[k] < NBINS)
                GLOBAL_VOTE(&bins[b[k]], wt);
    }
#endif
    for (uint e = nvec * VOTE_VEC + part * WG + lid; e < n; e += parts * WG) {
        uint b = vote_elem(x, y, w, aux, space, frame + e, width, &wt);
        if (b < NBINS)
            GLOBAL_VOTE(&bins[b], wt);
    }
}

KERNEL __attribute__((reqd_work_group_size(WG, 1, 1))) void
vote_private(GLOBAL const X_T *restrict x, GLOBAL const Y_T *restrict y,
             GLOBAL const float *restrict w, GLOBAL const float *restrict aux,
           GLOBAL const uint *restrict count, uint n_arg,
             uint nvec, uint width, uint parts, uint spaces, GLOBAL uint *restrict partials)
{
    const uint item = get_global_id(0);
    if (item >= spaces * parts)
        return; /* no barrier in this kernel */
    const uint space = item / parts, part = item % parts;
    const uint n = ELEMENTS(count, n_arg);
    const ulong frame = FRAME_OF(space, n);
    /* Contiguous chunks, whole vectors each, so every work-item streams its own memory. */
    const uint chunk = ((n / parts + 1 + VOTE_VEC - 1) / VOTE_VEC) * VOTE_VEC;
    const uint begin = min(part * chunk, n), end = min(begin + chunk, n);
    GLOBAL uint *bins = partials + ((ulong)space * parts + part) * PRIV_COPIES * NBINS;
    uint e = begin;
    VOTE_T wt = VOTE_ONE;

#if VOTE_VEC > 1 && VOTE_KIND == 0
    /* PRIV_COPIES sub-histograms: runs of equal values do not serialise on one counter. */
    for (; e + VOTE_VEC <= end && e / VOTE_VEC < nvec; e += VOTE_VEC) {
        uint b[VOTE_VEC];
        vote_vec(x, aux, space, (frame + e) / VOTE_VEC, width, b);
#pragma unroll
        for (uint k = 0; k < VOTE_VEC; k++)
            if (b[k] < NBINS)
                PRIVATE_VOTE(&bins[(k % PRIV_COPIES) * NBINS + b[k]], wt);
    }
#endif
    for (; e < end; e++) {
        uint b = vote_elem(x, y, w, aux, space, frame + e, width, &wt);
        if (b < NBINS)
            PRIVATE_VOTE(&bins[b], wt);
    }
}

#ifdef PRIV_LOCAL
/* Every work-item owns NBINS 16-bit counters in local memory, two to a word, at word
 * (bin / 2) * WG + lid: bank lid mod 32 whatever the data, and no atomics. The host keeps
 * each work-item under 65536 elements so that no counter wraps. Unity votes only. */
INLINE void
private_vote(LOCAL_PTR uint *counts, uint lid, uint b)
{
    if (b < NBINS)
        counts[(b >> 1) * WG + lid] += 1u << ((b & 1u) * 16u);
}

KERNEL __attribute__((reqd_work_group_size(WG, 1, 1))) void
vote_private_local(GLOBAL const X_T *restrict x, GLOBAL const Y_T *restrict y,
                   GLOBAL const float *restrict w, GLOBAL const float *restrict aux,
           GLOBAL const uint *restrict count,
                   uint n_arg, uint nvec, uint width, uint parts, uint spaces,
                   GLOBAL uint *restrict partials)
{
    LOCAL uint counts[(NBINS + 1) / 2 * WG];
    const uint lid = get_local_id(0), group = get_group_id(0);
    const uint space = group / parts, part = group % parts;
    const uint n = ELEMENTS(count, n_arg);
    const ulong frame = FRAME_OF(space, n);
    const uint stride = parts * WG;
    VOTE_T wt;

    for (uint i = lid; i < (NBINS + 1) / 2 * WG; i += WG)
        counts[i] = 0;
    LOCAL_BARRIER();
    uint v = part * WG + lid;
    for (; v + stride < nvec; v += 2 * stride) {
        uint b[2 * VOTE_VEC];
        vote_vec(x, aux, space, frame / VOTE_VEC + v, width, b);
        vote_vec(x, aux, space, frame / VOTE_VEC + v + stride, width, b + VOTE_VEC);
#pragma unroll
        for (uint k = 0; k < 2 * VOTE_VEC; k++)
            private_vote(counts, lid, b[k]);
    }
    for (; v < nvec; v += stride) {
        uint b[VOTE_VEC];
        vote_vec(x, aux, space, frame / VOTE_VEC + v, width, b);
#pragma unroll
        for (uint k = 0; k < VOTE_VEC; k++)
            private_vote(counts, lid, b[k]);
    }
    for (uint e = nvec * VOTE_VEC + part * WG + lid; e < n; e += stride)
        private_vote(counts, lid, vote_elem(x, y, w, aux, space, frame + e, width, &wt));
    LOCAL_BARRIER();
    GLOBAL uint *out = partials + ((ulong)space * parts + part) * NBINS;
    for (uint i = lid; i < NBINS; i += WG) {
        uint sum = 0;
        for (uint t = 0; t < WG; t++) /* start at lid: neighbours read different banks */
            sum += (counts[(i >> 1) * WG + (t + lid) % WG] >> ((i & 1u) * 16u)) & 0xffffu;
        out[i] = sum;
    }
}
#endif

KERNEL __attribute__((reqd_work_group_size(MERGE_WG, 1, 1))) void
vote_merge(GLOBAL const uint *restrict partials, uint copies, uint spaces,
           GLOBAL uint *restrict out)
{
    const ulong i = get_global_id(0);
    if (i >= (ulong)spaces * NBINS)
        return;
    const ulong space = i / NBINS, bin = i % NBINS;
    GLOBAL const uint *p = partials + space * copies * NBINS + bin;
#if VOTE_KIND == 2
    float sum = 0.0f;
    for (uint c = 0; c < copies; c++)
        sum += as_float(p[(ulong)c * NBINS]);
#else
    uint sum = 0;
    for (uint c = 0; c < copies; c++)
        sum += p[(ulong)c * NBINS];
#endif
#ifdef VOTE_HAS_FINISH
    out[i] = VOTE_WORD(vote_finish((uint)space, (uint)bin, sum));
#else
    out[i] = VOTE_WORD(sum);
#endif
}
