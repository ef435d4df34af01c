/* circles-radius.cl: the radius histograms of the gradient method's centres on the device
 * (lib/circles-radius.c; the specification is lib/circles-ref.c's distance_bins and
 * votecl__circles_window_scan). Kernel:
 *   circles_radius  1-D, one work-group per centre (global size = n x local size, any local
 *                   size): the histogram of centre i (cand[1 + 2 i], the centre test's list
 *                   of cl/circles.cl as it lies on the device; its pixel ((x + 0.5) dr,
 *                   (y + 0.5) dr)) over the voting pixels xy (x, y pairs in raster order, row
 *                   y's at rows[y] .. rows[y + 1] - 1, where rows = xy + rows_at: one upload
 *                   holds both) of the square of half-side max_radius + 2 around it, in
 *                   local memory, then OpenCV's window scan by work-item 0 into
 *                   out[2 i] (the radius's float bits) and out[2 i + 1] (the count), so
 *                   that one read brings both. A squared distance's bin is the
 *                   number of bounds at or below it (the host's table, exact: no square root
 *                   or division runs here, whose OpenCL precision is not the host's); a
 *                   window's radius is window_radii[m + 1]; the squares, sums and products
 *                   are the host's in the same order, so both are equal bit for bit.
 * Defines: CIRCLES_BINS (>= nbins), the histogram's local ints (the host's fixed 4096). Local
 * atomic_inc. */
/* The number of bounds[0 .. n) at or below r2 (bounds ascending). */
INLINE int
bin_of(GLOBAL const float *bounds, int n, float r2)
{
    int lo = 0, hi = n;

    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (bounds[mid] <= r2)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first of the row's pixels first .. end - 1 (x ascending) with an x of at least x. */
INLINE uint
lower_x(GLOBAL const int *xy, uint first, uint end, int x)
{
    while (first < end) {
        uint mid = first + (end - first) / 2;
        if (xy[2 * mid] < x)
            first = mid + 1;
        else
            end = mid;
    }
    return first;
}

KERNEL void
circles_radius(GLOBAL const int *xy, uint rows_at, uint height, GLOBAL const uint *cand, uint cols,
               float dr, int min_radius, int max_radius, GLOBAL const float *bounds, int nbins,
               GLOBAL const float *window_radii, GLOBAL uint *out)
{
    LOCAL int hist[CIRCLES_BINS];
    GLOBAL const uint *rows = (GLOBAL const uint *)(xy + rows_at);
    uint i = (uint)get_group_id(0), t = (uint)get_local_id(0), size = (uint)get_local_size(0);
    uint cell = cand[1 + 2 * i];
    float cx = ((float)(cell % cols) + 0.5f) * dr, cy = ((float)(cell / cols) + 0.5f) * dr;
    float lo = (float)min_radius, lo2 = lo * lo, hi2 = (float)max_radius * (float)max_radius;
    long reach = (long)max_radius + 2, y0 = (long)cy - reach, y1 = (long)cy + reach;

    for (int b = (int)t; b < nbins; b += (int)size)
        hist[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long y = (y0 < 0 ? 0 : y0) + (long)t; y <= y1 && y < (long)height; y += (long)size) {
        uint end = rows[y + 1];
        for (uint k = lower_x(xy, rows[y], end, (int)((long)cx - reach));
             k < end && (long)xy[2 * k] <= (long)cx + reach; k++) {
            float dx = cx - (float)xy[2 * k], dy = cy - (float)xy[2 * k + 1];
            float r2 = dx * dx + dy * dy;
            if (lo2 <= r2 && r2 <= hi2)
                atomic_inc((volatile LOCAL_PTR int *)&hist[bin_of(bounds, nbins - 1, r2)]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
        float best = 0.f;
        int most = 0;
        for (int j = nbins - 1; j > 0; j--) {
            int up = j, sum = 0;
            float r;
            if (hist[j] == 0)
                continue;
            for (; j > up - 10 && j >= 0; j--)
                sum += hist[j];
            r = window_radii[up + j + 1];
            if ((float)sum * best >= (float)most * r ||
                (best < 1.1920928955078125e-7f && sum >= most)) {
                best = r;
                most = sum;
            }
        }
        out[2 * i] = as_uint(best);
        out[2 * i + 1] = (uint)most;
    }
}
