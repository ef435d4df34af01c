/* circles-edges.cl: the gradient method's Canny on a GPU-shaped device (lib/circles-edges.c),
 * so that a 1080p frame's edges are not one host core's O(pixels) pass: the edge pixels, in
 * raster order, equal votecl__canny_ref's (lib/edges-ref.c) pixel for pixel (integer
 * arithmetic: the Sobel, the L1 magnitude and the non-maximum suppression's step are
 * cl/canny.cl's, the hysteresis its canny_hysteresis repeated to the fixpoint by the host).
 *
 * Composed after cl/canny.cl (GHT_TX x GHT_TY: the hysteresis's tile). Kernels:
 *   circles_edge_state  2-D, local GHT_TX x GHT_TY, global the image rounded up: the state of
 *                       pixel (x, y), canny_state
 *   circles_edge_count  1-D, one work-group of CIRCLES_ROW_WG per row (global h x
 *                       CIRCLES_ROW_WG, so a row's words are read side by side): rows[y] = the
 *                       strong pixels of row y
 *   circles_edge_scan   one work-group of CIRCLES_ROW_WG: rows[0 .. h) becomes its exclusive
 *                       prefix sum, rows[h] the number of edges: row y's edges go to
 *                       rows[y] .. rows[y + 1] - 1
 *   circles_edge_list   as circles_edge_count: row y's strong pixels, x ascending, as (x, y)
 *                       pairs from xy[2 rows[y]] (a prefix sum per chunk of the row)
 * Defines: CIRCLES_ROW_WG (the row kernels' local size), GHT_TX, GHT_TY. No atomics. */

KERNEL void
circles_edge_state(GLOBAL const uchar *img, uint w, uint h, uint low, uint high, GLOBAL uint *state)
{
    uint x = get_global_id(0), y = get_global_id(1);
    int gx, gy;

    if (x < w && y < h)
        state[(ulong)y * w + x] = canny_state(img, w, h, x, y, low, high, &gx, &gy);
}

INLINE uint
strong_at(GLOBAL const uint *row, uint x, uint w)
{
    return x < w && (row[x] & 3u) == 2u ? 1u : 0u;
}

KERNEL void
circles_edge_count(GLOBAL const uint *state, uint w, GLOBAL uint *rows)
{
    LOCAL uint tmp[CIRCLES_ROW_WG];
    uint y = (uint)get_group_id(0), lid = (uint)get_local_id(0), n = 0, total;
    GLOBAL const uint *row = state + (ulong)y * w;

    for (uint x = lid; x < w; x += CIRCLES_ROW_WG)
        n += strong_at(row, x, w);
    group_scan(tmp, lid, CIRCLES_ROW_WG, n, &total);
    if (lid == 0)
        rows[y] = total;
}

KERNEL void
circles_edge_scan(GLOBAL uint *rows, uint h)
{
    LOCAL uint tmp[CIRCLES_ROW_WG];
    uint lid = (uint)get_local_id(0), carry = 0;

    for (uint base = 0; base < h; base += CIRCLES_ROW_WG) {
        uint y = base + lid, n = y < h ? rows[y] : 0u, sum;
        uint inclusive = group_scan(tmp, lid, CIRCLES_ROW_WG, n, &sum);
        if (y < h)
            rows[y] = carry + inclusive - n;
        carry += sum;
    }
    if (lid == 0)
        rows[h] = carry;
}

KERNEL void
circles_edge_list(GLOBAL const uint *state, uint w, GLOBAL const uint *rows, GLOBAL int *xy)
{
    LOCAL uint tmp[CIRCLES_ROW_WG];
    uint y = (uint)get_group_id(0), lid = (uint)get_local_id(0), k = rows[y];
    GLOBAL const uint *row = state + (ulong)y * w;

    for (uint base = 0; base < w; base += CIRCLES_ROW_WG) {
        uint keep = strong_at(row, base + lid, w), kept;
        uint inclusive = group_scan(tmp, lid, CIRCLES_ROW_WG, keep, &kept);
        if (keep) {
            xy[2 * (k + inclusive - 1)] = (int)(base + lid);
            xy[2 * (k + inclusive - 1) + 1] = (int)y;
        }
        k += kept;
    }
}
