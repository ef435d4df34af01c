/* ght-edges.cl: the generalized Hough transform's device front end, part one: edge points of
 * a u8 image sorted by gradient bin, operation for operation votecl__ght_ref_canny and
 * votecl__ght_edges_sort (lib/ght-edges.c), so the sorted list and its offsets equal the
 * reference's entry for entry (integer arithmetic; bins by ght_bin of cl/ght.cl).
 *
 * Composed after cl/ght-common.cl (ght_bin) and cl/canny.cl (the Sobel, the non-maximum
 * suppression's step and the hysteresis, canny_hysteresis) into a program of its own (defines GHT_L, GHT_WG,
 * GHT_TX, GHT_TY, GHT_SCAN_BLOCK, GHT_SORT_K; lib/ght-edges.c). Kernels:
 *   ght_edge_state    2-D, local GHT_TX x GHT_TY, global the image rounded up: 3x3 Sobel, L1
 *                     magnitude, non-maximum suppression (the two neighbours' magnitudes
 *                     recomputed, so no magnitude image), the thresholds; state word per
 *                     pixel: 0, or bin << 2 | 1 (weak) or 2 (strong; every survivor when
 *                     low >= high, the reference's single threshold)
 *   ght_sort_count    1-D, local GHT_WG, one group per chunk of `chunk` pixels (a multiple of
 *                     GHT_WG): counts[b * groups + g] = strong pixels of bin b in chunk g
 *   ght_scan_sums     1-D, local GHT_WG, groups ceil(n / GHT_SCAN_BLOCK): block sums of a
 *   ght_scan_top      one group: exclusive prefix sum of the block sums, total at [blocks]
 *   ght_scan_down     as ght_scan_sums: a[0..n) becomes its exclusive prefix sum (in place),
 *                     a[n] the total; with the two above a scan of any length
 *   ght_sort_scatter  as ght_sort_count: every strong pixel of chunk g, raster order, goes to
 *                     the next slot of its bin (a stable counting sort: group g's slots of bin
 *                     b start at the scanned counts[b * groups + g]); points are (x, y, bin);
 *                     batches of GHT_SORT_K pixels per work-item, one scan per batch
 *   ght_sort_offsets  L + 1 work-items: offsets[b] = scanned counts[b * groups], offsets[L]
 *                     the number of edges
 * Required defines (besides cl/ght.cl's): GHT_TX, GHT_TY, GHT_SCAN_BLOCK (a multiple of
 * GHT_WG), GHT_SORT_K. Atomics: atomic_inc on local words. */

#ifndef LOCAL_PTR
#define LOCAL_PTR LOCAL
#endif

KERNEL void
ght_edge_state(GLOBAL const uchar *img, uint w, uint h, uint low, uint high,
               GLOBAL const float *dirs, GLOBAL uint *state)
{
    uint x = get_global_id(0), y = get_global_id(1), s = 0;
    int gx, gy, mag, dx, dy;

    if (x >= w || y >= h)
        return; /* no barrier in this kernel */
    if (x >= 1 && y >= 1 && x + 1 < w && y + 1 < h) {
        canny_sobel(img, w, x, y, &gx, &gy);
        mag = abs(gx) + abs(gy);
        canny_ridge_step(gx, gy, &dx, &dy);
        if (mag > (int)low && mag > canny_magnitude(img, w, h, (int)x - dx, (int)y - dy) &&
            mag >= canny_magnitude(img, w, h, (int)x + dx, (int)y + dy))
            s = ght_bin(dirs, gx, gy) << 2 | (mag > (int)high || low >= high ? 2u : 1u);
    }
    state[(ulong)y * w + x] = s;
}

INLINE int
ght_strong(uint s)
{
    return (s & 3u) == 2u;
}

KERNEL void
ght_sort_count(GLOBAL const uint *state, uint pixels, uint chunk, GLOBAL uint *counts)
{
    LOCAL uint hist[GHT_L];
    uint lid = get_local_id(0), g = get_group_id(0), groups = get_num_groups(0);
    ulong p0 = (ulong)g * chunk, p1 = min(p0 + chunk, (ulong)pixels);

    for (uint b = lid; b < GHT_L; b += GHT_WG)
        hist[b] = 0;
    LOCAL_BARRIER();
    for (ulong p = p0 + lid; p < p1; p += GHT_WG) {
        uint s = state[p];
        if (ght_strong(s))
            atomic_inc(&hist[s >> 2]);
    }
    LOCAL_BARRIER();
    for (uint b = lid; b < GHT_L; b += GHT_WG)
        counts[(ulong)b * groups + g] = hist[b];
}

KERNEL void
ght_scan_sums(GLOBAL const uint *a, uint n, GLOBAL uint *sums)
{
    LOCAL uint tmp[GHT_WG];
    uint lid = get_local_id(0), g = get_group_id(0), sum = 0, total;
    ulong i0 = (ulong)g * GHT_SCAN_BLOCK;

    for (uint k = lid; k < GHT_SCAN_BLOCK; k += GHT_WG)
        sum += i0 + k < n ? a[i0 + k] : 0;
    group_scan(tmp, lid, GHT_WG, sum, &total);
    if (lid == 0)
        sums[g] = total;
}

KERNEL void
ght_scan_top(GLOBAL uint *sums, uint blocks)
{
    LOCAL uint tmp[GHT_WG];
    uint lid = get_local_id(0), carry = 0, total;

    for (uint base = 0; base < blocks; base += GHT_WG) {
        uint i = base + lid, v = i < blocks ? sums[i] : 0;
        uint incl = group_scan(tmp, lid, GHT_WG, v, &total);
        if (i < blocks)
            sums[i] = carry + incl - v;
        carry += total;
    }
    if (lid == 0)
        sums[blocks] = carry;
}

KERNEL void
ght_scan_down(GLOBAL uint *a, uint n, GLOBAL const uint *sums)
{
    LOCAL uint tmp[GHT_WG];
    uint lid = get_local_id(0), g = get_group_id(0), carry = sums[g], total;
    ulong i0 = (ulong)g * GHT_SCAN_BLOCK;

    for (uint k = 0; k < GHT_SCAN_BLOCK; k += GHT_WG) {
        ulong i = i0 + k + lid;
        uint v = i < n ? a[i] : 0;
        uint incl = group_scan(tmp, lid, GHT_WG, v, &total);
        if (i < n)
            a[i] = carry + incl - v;
        carry += total;
    }
    if (g == get_num_groups(0) - 1 && lid == 0)
        a[n] = sums[g + 1];
}

/* Batches of the scatter: GHT_SORT_K consecutive pixels per work-item. */
#define GHT_SORT_BATCH (GHT_WG * GHT_SORT_K)

/* Where the batch's strong pixels go (slot: their rank among the batch's earlier strong
 * pixels of the same bin after base[bin]), and in cnt[r] the count of bin bins[r] when r
 * is its last strong pixel in the batch (else 0). */
INLINE void
ght_scatter_slots(LOCAL_PTR const uint *base, LOCAL_PTR const uint *bins,
                  LOCAL_PTR uint *where, uint total, ulong q, uint w, GLOBAL int *points)
{
    for (uint r = get_local_id(0); r < total; r += GHT_WG) {
        uint b = bins[r], rank = 0, last = 1;
        for (uint j = 0; j < r; j++)
            rank += bins[j] == b;
        for (uint j = r + 1; j < total && last; j++)
            last = bins[j] != b;
        ulong p = q + where[r], at = 3 * (ulong)(base[b] + rank);
        points[at] = (int)(p % w);
        points[at + 1] = (int)(p / w);
        points[at + 2] = (int)b;
        where[r] = last ? rank + 1 : 0;
    }
}

/* The strong pixels of pixels [q, end) (at most GHT_SORT_BATCH) go to their bins' next slots
 * in raster order: each work-item counts its GHT_SORT_K pixels' strong ones, a scan of the
 * counts lists the batch's strong pixels in local memory in order, each then finds its
 * rank among the earlier ones of its bin. */
INLINE void
ght_scatter_batch(GLOBAL const uint *state, ulong q, ulong end, uint w, LOCAL_PTR uint *base,
                  LOCAL_PTR uint *tmp, LOCAL_PTR uint *bins, LOCAL_PTR uint *where,
                  GLOBAL int *points)
{
    uint lid = get_local_id(0), count = 0, m, total;
    ulong a = min(q + (ulong)lid * GHT_SORT_K, end), b = min(a + GHT_SORT_K, end);

    for (ulong p = a; p < b; p++)
        count += ght_strong(state[p]);
    m = group_scan(tmp, lid, GHT_WG, count, &total) - count;
    for (ulong p = a; p < b; p++) {
        uint s = state[p];
        if (ght_strong(s)) {
            bins[m] = s >> 2;
            where[m++] = (uint)(p - q);
        }
    }
    LOCAL_BARRIER();
    ght_scatter_slots(base, bins, where, total, q, w, points);
    LOCAL_BARRIER();
    for (uint r = lid; r < total; r += GHT_WG)
        if (where[r] > 0) /* one per bin */
            base[bins[r]] += where[r];
    LOCAL_BARRIER();
}

KERNEL void
ght_sort_scatter(GLOBAL const uint *state, uint w, uint pixels, uint chunk,
                 GLOBAL const uint *scanned, GLOBAL int *points)
{
    LOCAL uint base[GHT_L], tmp[GHT_WG], bins[GHT_SORT_BATCH], where[GHT_SORT_BATCH];
    uint lid = get_local_id(0), g = get_group_id(0), groups = get_num_groups(0);
    ulong p0 = (ulong)g * chunk, p1 = min(p0 + chunk, (ulong)pixels);

    for (uint b = lid; b < GHT_L; b += GHT_WG)
        base[b] = scanned[(ulong)b * groups + g];
    LOCAL_BARRIER();
    for (ulong q = p0; q < p1; q += GHT_SORT_BATCH)
        ght_scatter_batch(state, q, min(q + GHT_SORT_BATCH, p1), w, base, tmp, bins, where,
                          points);
}

KERNEL void
ght_sort_offsets(GLOBAL const uint *scanned, uint groups, GLOBAL uint *offsets)
{
    uint b = get_global_id(0);

    if (b <= GHT_L)
        offsets[b] = scanned[(ulong)b * groups];
}
