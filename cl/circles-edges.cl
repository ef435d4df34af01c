/* circles-edges.cl: the gradient method's Canny on a GPU-shaped device (lib/circles-edges.c),
 * so that a 1080p frame's edges are not one host core's O(pixels) pass: the edge pixels, in
 * raster order, equal votecl__canny_ref's (lib/edges-ref.c) pixel for pixel (integer
 * arithmetic: the Sobel, the L1 magnitude and the non-maximum suppression's step are
 * cl/canny.cl's, the hysteresis its canny_hysteresis repeated to the fixpoint by the host).
 *
 * Composed after cl/canny.cl (defines GHT_TX, GHT_TY: the hysteresis's tile). Kernels:
 *   circles_edge_state  2-D, local GHT_TX x GHT_TY, global the image rounded up: the state of
 *                       pixel (x, y): 0, 1 (weak) or 2 (strong; every survivor when
 *                       low >= high, the reference's single threshold), the border 0
 *   circles_edge_count  1-D, one work-item per row (global >= h, any local size): rows[y] =
 *                       the strong pixels of row y
 *   circles_edge_scan   1 work-item: rows[0 .. h] becomes its exclusive prefix sum (rows[h]
 *                       the number of edges): row y's edges go to rows[y] .. rows[y + 1] - 1
 *   circles_edge_list   as circles_edge_count: row y's strong pixels, x ascending, as (x, y)
 *                       pairs from xy[2 rows[y]]
 * No atomics. */

KERNEL void
circles_edge_state(GLOBAL const uchar *img, uint w, uint h, uint low, uint high, GLOBAL uint *state)
{
    uint x = get_global_id(0), y = get_global_id(1), s = 0;
    int gx, gy, mag, dx, dy;

    if (x >= w || y >= h)
        return; /* no barrier in this kernel */
    if (x >= 1 && y >= 1 && x + 1 < w && y + 1 < h) {
        canny_sobel(img, w, x, y, &gx, &gy);
        mag = abs(gx) + abs(gy);
        canny_ridge_step(gx, gy, &dx, &dy);
        /* strictly above the neighbour behind, at least the one ahead (is_ridge) */
        if (mag > (int)low && mag > canny_magnitude(img, w, h, (int)x - dx, (int)y - dy) &&
            mag >= canny_magnitude(img, w, h, (int)x + dx, (int)y + dy))
            s = mag > (int)high || low >= high ? 2u : 1u;
    }
    state[(ulong)y * w + x] = s;
}

KERNEL void
circles_edge_count(GLOBAL const uint *state, uint w, uint h, GLOBAL uint *rows)
{
    uint y = get_global_id(0), n = 0;
    GLOBAL const uint *row = state + (ulong)y * w;

    if (y >= h)
        return;
    for (uint x = 0; x < w; x++)
        n += (row[x] & 3u) == 2u;
    rows[y] = n;
}

KERNEL void
circles_edge_scan(GLOBAL uint *rows, uint h)
{
    uint sum = 0;

    if (get_global_id(0) != 0)
        return;
    for (uint y = 0; y < h; y++) {
        uint n = rows[y];
        rows[y] = sum;
        sum += n;
    }
    rows[h] = sum;
}

KERNEL void
circles_edge_list(GLOBAL const uint *state, uint w, uint h, GLOBAL const uint *rows, GLOBAL int *xy)
{
    uint y = get_global_id(0), k;
    GLOBAL const uint *row = state + (ulong)y * w;

    if (y >= h)
        return;
    k = rows[y];
    for (uint x = 0; x < w; x++)
        if ((row[x] & 3u) == 2u) {
            xy[2 * k] = (int)x;
            xy[2 * k + 1] = (int)y;
            k++;
        }
}
