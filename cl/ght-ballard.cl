/* ght-ballard.cl: Ballard's detection on a GPU-shaped device in three launches and one read
 * back (lib/ght-ballard.c): the edges compacted as they are found (no sort: the vote, the
 * maxima and the confidences do not depend on the edges' order, and the host sorts the copy
 * it reads back), the accumulator's largest count taken by the vote itself, the threshold of
 * the maxima from it in the maxima's kernel. The poses are votecl__ght_ref_ballard_peaks'.
 *
 * Composed after cl/ght-common.cl (ght_bin, ght_ballard_edge), cl/canny.cl (canny_state) and
 * cl/ght-peaks.cl (ght_bits, ght_group_max, ght_ballard_candidate) into a program of its own (defines
 * GHT_WG, GHT_L, GHT_S, GHT_TX, GHT_TY and the edge program's). A work buffer holds a head of
 * 4 words (the edges found, the largest count, the maxima found, the edges found once the
 * maxima's kernel moved their number there), the maxima's room (capacity x 6 words: cell,
 * votes, x and y as doubles) and the edge points (x, y, bin) from word points_at. Kernels:
 *   ght_ballard_edges  2-D, local GHT_TX x GHT_TY, global the image rounded up: canny_state
 *                      with one threshold (low >= high: every survivor is an edge); a
 *                      group's edges take consecutive slots of head[0] (0 before: the host's
 *                      fill, or the last maxima's kernel); clears head[1] and head[2], and
 *                      cells words of space (the accumulator, none when 0), sparing fills
 *   ght_ballard_vote   2-D, local GHT_WG x 1, global (any multiple of GHT_WG, rotations):
 *                      ght_ballard_edge of every point e < head[0] (strides of the global size)
 *                      at rotation k; the group's largest count into head[1]
 *   ght_ballard_find   1-D, global the cells rounded up: ght_ballard_peaks of cl/ght-peaks.cl
 *                      with the threshold max(ceil(ratio head[1]), votes_threshold, 1), the
 *                      maxima counted in head[2]; head[0] moved to head[3], leaving 0 for the
 *                      next image's edges
 * Atomics: atomic_inc on local words, atomic_add, atomic_inc and atomic_max on global words. */

KERNEL void
ght_ballard_edges(GLOBAL const uchar *img, uint w, uint h, uint low, uint high,
                  GLOBAL const float *dirs, GLOBAL uint *work, uint points_at, GLOBAL uint *space,
                  ulong cells)
{
    LOCAL uint shared[2]; /* the group's edges, then its first slot */
    uint x = get_global_id(0), y = get_global_id(1), slot = 0;
    uint lid = get_local_id(1) * GHT_TX + get_local_id(0);
    ulong items = (ulong)get_global_size(0) * get_global_size(1);
    int gx = 0, gy = 0;
    uint s = x < w && y < h ? canny_state(img, w, h, x, y, low, high, &gx, &gy) : 0;

    for (ulong c = (ulong)y * get_global_size(0) + x; c < cells; c += items)
        space[c] = 0;
    if (x == 0 && y == 0) { /* the counts the vote and maxima take (head[0]: the host's) */
        work[1] = 0;
        work[2] = 0;
    }
    if (lid == 0)
        shared[0] = 0;
    LOCAL_BARRIER();
    if (s == 2u)
        slot = atomic_inc(&shared[0]);
    LOCAL_BARRIER();
    if (lid == 0)
        shared[1] = atomic_add(&work[0], shared[0]);
    LOCAL_BARRIER();
    if (s == 2u) {
        GLOBAL uint *p = work + points_at + 3 * (ulong)(shared[1] + slot);
        p[0] = x;
        p[1] = y;
        p[2] = ght_bin(dirs, gx, gy);
    }
}

KERNEL void
ght_ballard_vote(GLOBAL uint *work, uint points_at, GLOBAL const uint *roffsets,
                 GLOBAL const float *rdx, GLOBAL const float *rdy, GLOBAL const float *rs,
                 GLOBAL const uint *shift, uint rotations, uint dp, uint gw, uint gh,
                 GLOBAL uint *space)
{
    LOCAL uint tmp[GHT_WG];
    uint k = get_global_id(1), n = work[0], most = 0;
    GLOBAL const int *points = (GLOBAL const int *)(work + points_at);

    /* the host may not know n yet (the edges' count not read back): a guess of work-items
     * takes the edges in strides, no barrier inside */
    for (ulong e = get_global_id(0); e < n && k < rotations; e += get_global_size(0))
        most = max(most,
                   ght_ballard_edge(points[3 * e], points[3 * e + 1], (uint)points[3 * e + 2], k,
                                    roffsets, rdx, rdy, rs, shift, rotations, dp, gw, gh, space));
    most = ght_group_max(tmp, get_local_id(0), most);
    if (get_local_id(0) == 0 && most > 0)
        atomic_max(&work[1], most);
}

KERNEL void
ght_ballard_find(GLOBAL const uint *space, uint gw, uint gh, uint rotations, int wrap, uint dp,
                 ulong ratio_bits, uint votes_threshold, GLOBAL uint *work, uint capacity)
{
    ulong i = get_global_id(0);
    ght_bits ratio;

    ratio.u = ratio_bits;
    if (i == 0) { /* no other item reads head[0] */
        work[3] = work[0];
        work[0] = 0;
    }
    if (i < (ulong)gw * gh * rotations * GHT_S) /* no barrier in this kernel */
        ght_ballard_candidate(space, gw, gh, rotations, wrap, dp, i,
                              max(max((uint)ceil(ratio.d * (double)work[1]), votes_threshold), 1u),
                              &work[2], work + 4, capacity);
}
