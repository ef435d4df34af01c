/* ght-peaks.cl: Ballard's detections on the device, the poses of
 * votecl__ght_ref_ballard_peaks (lib/ght-peaks.c) from the accumulator the vote left there.
 *
 * A program of its own (defines GHT_WG, GHT_S; lib/ght-peaks.c). Kernels:
 *   ght_max_blocks       1-D, local GHT_WG: block maxima, group g over cells [g per, (g+1) per)
 *   ght_peaks_threshold  one group: the largest count of the block maxima and the threshold
 *                        max(ceil(ratio best), votes_threshold, 1) into head[0], best into
 *                        head[2], head[1] (the candidates found) cleared
 *   ght_ballard_peaks    global the cells rounded up: every cell at or above the threshold
 *                        that is the maximum of its 3x3x3x3 neighbourhood (rotation wrapping
 *                        on a full circle, ties to the lower index) takes the next slot of
 *                        head[1] and, while below capacity, writes its cell index, its votes
 *                        and the vote-weighted centre of its 3x3 plane neighbourhood in pixels
 *                        (two doubles as four words) to head[4 + 6 slot ..]
 * The centre's sums are exact integers in double (weights below 2^32, coordinates below
 * 2^15), then one correctly rounded division and one multiplication: the reference's value.
 * Atomics: atomic_inc on a global word. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#ifndef LOCAL_PTR
#define LOCAL_PTR LOCAL
#endif

/* A double through two 32-bit words, and back (no as_double: the CUDA mapping has none). */
typedef union ght_bits {
    double d;
    ulong u;
    uint w[2];
} ght_bits;

INLINE uint
ght_group_max(LOCAL_PTR uint *tmp, uint lid, uint v)
{
    tmp[lid] = v;
    LOCAL_BARRIER();
    for (uint step = GHT_WG / 2; step > 0; step >>= 1) {
        if (lid < step)
            tmp[lid] = max(tmp[lid], tmp[lid + step]);
        LOCAL_BARRIER();
    }
    v = tmp[0];
    LOCAL_BARRIER();
    return v;
}

KERNEL void
ght_max_blocks(GLOBAL const uint *space, ulong cells, ulong per, GLOBAL uint *blockmax)
{
    LOCAL uint tmp[GHT_WG];
    uint lid = get_local_id(0), g = get_group_id(0), m = 0;
    ulong i1 = min((g + 1) * per, cells);

    for (ulong i = g * per + lid; i < i1; i += GHT_WG)
        m = max(m, space[i]);
    m = ght_group_max(tmp, lid, m);
    if (lid == 0)
        blockmax[g] = m;
}

KERNEL void
ght_peaks_threshold(GLOBAL const uint *blockmax, uint groups, ulong ratio_bits,
                    uint votes_threshold, GLOBAL uint *head)
{
    LOCAL uint tmp[GHT_WG];
    uint lid = get_local_id(0), m = 0, thr;
    ght_bits ratio;

    for (uint g = lid; g < groups; g += GHT_WG)
        m = max(m, blockmax[g]);
    m = ght_group_max(tmp, lid, m);
    ratio.u = ratio_bits;
    thr = (uint)ceil(ratio.d * (double)m);
    thr = max(max(thr, votes_threshold), 1u);
    if (lid == 0) {
        head[0] = thr;
        head[1] = 0;
        head[2] = m;
    }
}

/* is_peak4d */
INLINE int
ght_peak4d(GLOBAL const uint *s, uint gw, uint gh, uint rotations, int wrap, uint si, uint k,
           uint y, uint x, ulong me)
{
    uint v = s[me];

    for (int ds = -1; ds <= 1; ds++)
        for (int dk = -1; dk <= 1; dk++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    uint ns = si + ds, nk = k + dk, ny = y + dy, nx = x + dx;
                    ulong j;
                    if (wrap)
                        nk = (k + rotations + dk) % rotations;
                    if (ns >= GHT_S || nk >= rotations || ny >= gh || nx >= gw)
                        continue;
                    j = (((ulong)ns * rotations + nk) * gh + ny) * gw + nx;
                    if (j != me && (s[j] > v || (s[j] == v && j < me)))
                        return 0;
                }
    return 1;
}

/* centroid: the plane of cell (x, y) starts at plane. */
INLINE void
ght_centroid(GLOBAL const uint *plane, uint gw, uint gh, uint x, uint y, uint dp, double *px,
             double *py)
{
    double sw = 0, sx = 0, sy = 0;

    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            uint nx = x + dx, ny = y + dy;
            double w;
            if (nx >= gw || ny >= gh)
                continue;
            w = (double)plane[(ulong)ny * gw + nx];
            sw += w;
            sx += w * (double)nx;
            sy += w * (double)ny;
        }
    *px = (double)dp * (sw > 0 ? sx / sw : (double)x);
    *py = (double)dp * (sw > 0 ? sy / sw : (double)y);
}

/* Cell i (below the cells) as a candidate when it reaches thr and is a maximum: the next
 * slot of *count and, below capacity, its words at cand + 6 slot. */
INLINE void
ght_ballard_candidate(GLOBAL const uint *space, uint gw, uint gh, uint rotations, int wrap,
                      uint dp, ulong i, uint thr, GLOBAL uint *count, GLOBAL uint *cand,
                      uint capacity)
{
    ulong plane = (ulong)gw * gh;
    uint x = (uint)(i % gw), y = (uint)(i / gw % gh), k = (uint)(i / plane % rotations);
    uint si = (uint)(i / plane / rotations), slot;
    ght_bits px, py;

    if (space[i] < thr || !ght_peak4d(space, gw, gh, rotations, wrap, si, k, y, x, i))
        return;
    slot = atomic_inc(count);
    if (slot >= capacity)
        return;
    ght_centroid(space + (i - i % plane), gw, gh, x, y, dp, &px.d, &py.d);
    cand[6 * slot] = (uint)i;
    cand[6 * slot + 1] = space[i];
    cand[6 * slot + 2] = px.w[0];
    cand[6 * slot + 3] = px.w[1];
    cand[6 * slot + 4] = py.w[0];
    cand[6 * slot + 5] = py.w[1];
}

KERNEL void
ght_ballard_peaks(GLOBAL const uint *space, uint gw, uint gh, uint rotations, int wrap, uint dp,
                  GLOBAL uint *head, uint capacity)
{
    ulong i = get_global_id(0);

    if (i < (ulong)gw * gh * rotations * GHT_S) /* no barrier in this kernel */
        ght_ballard_candidate(space, gw, gh, rotations, wrap, dp, i, head[0], &head[1], head + 4,
                              capacity);
}
