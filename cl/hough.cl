/* hough.cl: the theta-rho Hough transform's device steps around the engine's vote, so a gray
 * image is uploaded once and only the peak candidates come back (lib/hough.c,
 * votecl_hough_run_gray()). Kernels:
 *   hough_sobel       2-D, one work-item per pixel: 255 where the Euclidean 3x3 Sobel
 *                     magnitude floor(sqrt(gx^2 + gy^2)) is at least the threshold and, with
 *                     thin nonzero, gx^2 + gy^2 is a ridge across the edge (the neighbours'
 *                     magnitudes recomputed, only for pixels over the threshold), 0 elsewhere
 *                     and on the one-pixel border (votecl__hough_sobel of lib/hough-edges.c).
 *                     For integers m and t, floor(sqrt(m)) >= t exactly when m >= t^2, so the
 *                     test is integer arithmetic and equal to the host's. out[1] (zeroed by
 *                     the host; out is hough_candidates' buffer) gains the pixels the vote
 *                     will keep (>= edge_threshold), the engine's stage 1 count, so the host
 *                     reads it with the candidates instead of waiting for the engine's own in
 *                     a transfer of its own.
 *   hough_candidates  1-D over the G * N cells: a cell with at least `threshold` votes and no
 *                     cell of its window with more is appended as (cell, votes) to out[2 + 2k]
 *                     (out[0]: the count, which may exceed cap; only the first cap are
 *                     written; out[1] is hough_sobel's edge count). The window's angle axis
 *                     wraps with the rho bin mirrored through mirror[b + reach] (the host's
 *                     mirror_bin, lib/hough-peaks.c, tabulated on the host for b in
 *                     [-reach, N + reach), reach = n / 2), so the candidates are exactly those
 *                     of find_candidates(); their order is the atomics', and the host sorts
 *                     them. With opencv nonzero, OpenCV's 4-neighbour rule instead (more
 *                     than threshold, > left and upper, >= right and lower, no wrap).
 *
 * The CPU shape's vote (lib/hough.c, cpu_rows), in place of the engine's: every size is an
 * argument, so one program serves every image size (no compile after votecl warmup), and
 * each accumulator row has one writer, so there are no atomics, copies or merge.
 *   hough_points      1-D, one work-item per band of `rows` image rows: the packed
 *                     x | y << 16 locations of the band's pixels at or above edge, in row
 *                     order, into points[first pixel of the band + k], their number into
 *                     counts[band]. With sobel nonzero img is the gray image and the pixels
 *                     are hough_sobel's edge bytes (threshold, thin), written to edges (for
 *                     segments) as they are found and the band's count added to out[1]: the
 *                     gray path's edges and listing in one pass, no barrier or local atomics
 *                     (with sobel 0, edges and out are not touched).
 *   hough_vote_rows   1-D, one work-item per HOUGH_ROWS angles from g = HOUGH_ROWS * id:
 *                     zeroes rows g.. of acc (nbins counts each) and votes every band's points
 *                     into them with votecl__hough_bin()'s single-precision operations (cos
 *                     in tab[g], sin in tab[stride + g]; w, scale or, with opencv nonzero,
 *                     offset as that function's desc). */

#ifndef LOCAL_PTR
#define LOCAL_PTR LOCAL
#endif

/* gx^2 + gy^2 of pixel (x, y) (at most 2 * 1020^2), 0 on the one-pixel border and outside
 * the image (sobel_m of lib/hough-edges.c). */
INLINE uint
hough_m(GLOBAL const uchar *gray, uint w, uint h, int x, int y)
{
    GLOBAL const uchar *r0;
    int gx, gy;

    if (x < 1 || y < 1 || x + 1 >= (int)w || y + 1 >= (int)h)
        return 0u;
    r0 = gray + (ulong)(y - 1) * w;
    gx = SOBEL3_GX(r0, r0 + w, r0 + 2 * w, x);
    gy = SOBEL3_GY(r0, r0 + w, r0 + 2 * w, x);
    return (uint)(gx * gx + gy * gy);
}

/* is_ridge of lib/hough-edges.c: m above the neighbour behind across the edge (one of four
 * directions, tan 22.5 and tan 67.5 as integer ratios), at least the one ahead. */
INLINE bool
hough_ridge(GLOBAL const uchar *gray, uint w, uint h, int x, int y, uint m, int gx, int gy)
{
    long ax = gx < 0 ? -(long)gx : gx, ay = gy < 0 ? -(long)gy : gy;
    int dx, dy;

    if (ay * 100000 <= ax * 41421) {
        dx = 1;
        dy = 0;
    } else if (ay * 100000 >= ax * 241421) {
        dx = 0;
        dy = 1;
    } else {
        dx = (gx < 0) == (gy < 0) ? 1 : -1;
        dy = 1;
    }
    return m > hough_m(gray, w, h, x - dx, y - dy) && m >= hough_m(gray, w, h, x + dx, y + dy);
}

/* The edge byte of interior pixel (x, y): 255 where m = gx^2 + gy^2 reaches threshold^2
 * (floor(sqrt(m)) >= t exactly when m >= t^2, integers) and, with thin, is a ridge. */
INLINE uchar
hough_edge(GLOBAL const uchar *gray, uint w, uint h, uint x, uint y, uint threshold, uint thin)
{
    GLOBAL const uchar *r0 = gray + (ulong)(y - 1) * w, *r1 = r0 + w, *r2 = r1 + w;
    int gx = SOBEL3_GX(r0, r1, r2, x), gy = SOBEL3_GY(r0, r1, r2, x);
    uint m = (uint)(gx * gx + gy * gy); /* at most 2 * 1020^2: no overflow */

    return (ulong)m >= (ulong)threshold * threshold &&
                   (thin == 0u || hough_ridge(gray, w, h, (int)x, (int)y, m, gx, gy))
               ? 255
               : 0;
}

KERNEL void
hough_sobel(GLOBAL const uchar *gray, uint w, uint h, uint threshold, uint edge_threshold,
            uint thin, GLOBAL uchar *edges, GLOBAL uint *out)
{
    LOCAL uint group_count;
    uint x = (uint)get_global_id(0), y = (uint)get_global_id(1);
    uchar e = 0;

    if (get_local_id(0) == 0 && get_local_id(1) == 0)
        group_count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= 1 && y >= 1 && x + 1 < w && y + 1 < h)
        e = hough_edge(gray, w, h, x, y, threshold, thin);
    if (x < w && y < h) {
        edges[(ulong)y * w + x] = e;
        if (e >= edge_threshold)
            atomic_inc((volatile LOCAL_PTR uint *)&group_count);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && get_local_id(1) == 0 && group_count > 0)
        atomic_add((volatile GLOBAL uint *)&out[1], group_count);
}

/* OpenCV's rule (is_opencv_max of lib/hough-peaks.c): more than threshold, more than the left
 * and upper neighbours, at least the right and lower ones, zeros outside. */
INLINE bool
opencv_max(GLOBAL const uint *acc, ulong cell, uint angles, uint nbins, uint g, uint b, uint v,
           uint threshold)
{
    return v > threshold && (b == 0u || v > acc[cell - 1]) &&
           (b + 1u == nbins || v >= acc[cell + 1]) && (g == 0u || v > acc[cell - nbins]) &&
           (g + 1u == angles || v >= acc[cell + nbins]);
}

KERNEL void
hough_candidates(GLOBAL const uint *acc, uint angles, uint nbins, int reach, uint threshold,
                 GLOBAL const int *mirror, uint cap, uint opencv, GLOBAL uint *out)
{
    ulong cell = get_global_id(0);
    uint v, g, b;

    if (cell >= (ulong)angles * nbins)
        return;
    v = acc[cell];
    g = (uint)(cell / nbins);
    b = (uint)(cell % nbins);
    if (opencv ? !opencv_max(acc, cell, angles, nbins, g, b, v, threshold) : v < threshold)
        return;
    for (int dg = -reach; opencv == 0u && dg <= reach; dg++) {
        int gg = (int)g + dg, flips = 0;
        while (gg < 0) {
            gg += (int)angles;
            flips++;
        }
        while (gg >= (int)angles) {
            gg -= (int)angles;
            flips++;
        }
        for (int db = -reach; db <= reach; db++) {
            int bb = (int)b + db;
            if (flips & 1)
                bb = mirror[bb + reach];
            if (bb >= 0 && bb < (int)nbins && acc[(ulong)gg * nbins + (uint)bb] > v)
                return;
        }
    }
    {
        uint k = atomic_inc((volatile GLOBAL uint *)out);
        if (k < cap) {
            out[2 + 2 * k] = (uint)cell;
            out[3 + 2 * k] = v;
        }
    }
}

/* Pixels of a row whose m hough_row_edges computes in one loop of fixed length, which the
 * compiler vectorises (PoCL: 16 ints a zmm register), before the threshold and ridge tests. */
#define HOUGH_CHUNK 64

/* The edge bytes of interior row y (0 < y < h - 1) of gray into e, as hough_edge's (m at
 * least t2 = threshold^2, saturated; the ridge test only where it is), and the locations of
 * those at or above edge appended to pts from k; returns the new k. */
INLINE uint
hough_row_edges(GLOBAL const uchar *gray, uint w, uint h, uint y, uint t2, uint thin, uint edge,
                GLOBAL uchar *e, GLOBAL uint *pts, uint k)
{
    GLOBAL const uchar *r0 = gray + (ulong)(y - 1) * w, *r1 = r0 + w, *r2 = r1 + w;
    uint m[HOUGH_CHUNK];

    for (uint x0 = 0; x0 < w; x0 += HOUGH_CHUNK) {
        uint n = min(w - x0, (uint)HOUGH_CHUNK);
        if (x0 >= 1 && x0 + HOUGH_CHUNK < w) { /* the whole chunk is interior */
            uint any = 0;
            for (uint j = 0; j < HOUGH_CHUNK; j++) {
                int gx = SOBEL3_GX(r0, r1, r2, x0 + j), gy = SOBEL3_GY(r0, r1, r2, x0 + j);
                m[j] = (uint)(gx * gx + gy * gy);
                any |= m[j] >= t2;
            }
            if (any == 0u && edge > 0u) { /* most chunks: no edge, nothing listed */
                for (uint j = 0; j < HOUGH_CHUNK; j++)
                    e[x0 + j] = 0;
                continue;
            }
        } else {
            for (uint j = 0; j < n; j++)
                m[j] = hough_m(gray, w, h, (int)(x0 + j), (int)y);
        }
        for (uint j = 0; j < n; j++) {
            uint x = x0 + j;
            uchar v = x >= 1 && x + 1 < w && m[j] >= t2 &&
                              (thin == 0u || hough_ridge(gray, w, h, (int)x, (int)y, m[j],
                                                         SOBEL3_GX(r0, r1, r2, x),
                                                         SOBEL3_GY(r0, r1, r2, x)))
                          ? 255
                          : 0;
            e[x] = v;
            if (v >= edge)
                pts[k++] = x | y << 16;
        }
    }
    return k;
}

KERNEL void
hough_points(GLOBAL const uchar *img, uint w, uint h, uint rows, uint edge, uint sobel,
             uint threshold, uint thin, GLOBAL uchar *edges, GLOBAL uint *points,
             GLOBAL uint *counts, GLOBAL uint *out)
{
    uint band = (uint)get_global_id(0), y0 = band * rows, k = 0;
    /* m is at most 2 * 1020^2: a threshold above 65535 is never reached, saturated t2 too */
    uint t2 = threshold > 65535u ? 0xffffffffu : threshold * threshold;
    GLOBAL uint *pts = points + (ulong)y0 * w;

    if (y0 >= h)
        return;
    for (uint y = y0; y < y0 + rows && y < h; y++) {
        if (sobel != 0u && y >= 1 && y + 1 < h) {
            k = hough_row_edges(img, w, h, y, t2, thin, edge, edges + (ulong)y * w, pts, k);
            continue;
        }
        for (uint x = 0; x < w; x++) { /* an edge image's row, or the gray image's border */
            uchar v = sobel != 0u ? 0 : img[(ulong)y * w + x];
            if (sobel != 0u)
                edges[(ulong)y * w + x] = 0;
            if (v >= edge)
                pts[k++] = x | y << 16;
        }
    }
    counts[band] = k;
    if (sobel != 0u && k > 0)
        atomic_add((volatile GLOBAL uint *)&out[1], k);
}

/* HOUGH_ROWS angles per work-item (ROWS_ANGLES of lib/hough-rows.c): each point is loaded
 * and converted once for all of them, and their bins computed in one loop that the compiler
 * vectorises (PoCL: 8 floats a ymm register). */
#define HOUGH_ROWS 8

/* The bins of point p (packed x | y << 16) at the work-item's angles, offset by their rows.
 * (rho + W) * scale is positive and below N (votecl__hough_bin), so truncating it through
 * int, which vectorises, gives the (uint) conversion's value. */
INLINE void
hough_bins_span(uint p, const float *c, const float *s, float w, float scale, uint nbins,
                uint *b)
{
    float x = (float)(p & 0xffffu), y = (float)(p >> 16);

    for (uint j = 0; j < HOUGH_ROWS; j++)
        b[j] = j * nbins + min((uint)(int)((x * c[j] + y * s[j] + w) * scale), nbins - 1u);
}

/* The OpenCV grid's: rint rounds to nearest, ties to even, as the host's rintf. */
INLINE void
hough_bins_opencv(uint p, const float *c, const float *s, int offset, uint nbins, uint *b)
{
    float x = (float)(p & 0xffffu), y = (float)(p >> 16);

    for (uint j = 0; j < HOUGH_ROWS; j++) {
        int v = (int)rint(x * c[j] + y * s[j]) + offset;
        b[j] = j * nbins + (v < 0 ? 0u : min((uint)v, nbins - 1u));
    }
}

KERNEL void
hough_vote_rows(GLOBAL const uint *points, GLOBAL const uint *counts, uint bands, uint band_pixels,
                GLOBAL const float *tab, uint stride, uint angles, uint nbins, float w,
                float scale, int offset, uint opencv, GLOBAL uint *acc)
{
    uint g = HOUGH_ROWS * (uint)get_global_id(0), live;
    float c[HOUGH_ROWS], s[HOUGH_ROWS];
    uint b[HOUGH_ROWS];
    GLOBAL uint *row = acc + (ulong)g * nbins;

    if (g >= angles)
        return;
    live = min(angles - g, (uint)HOUGH_ROWS);
    for (uint j = 0; j < HOUGH_ROWS; j++) {
        c[j] = tab[g + j]; /* the table is padded to whole groups of HOUGH_ROWS */
        s[j] = tab[stride + g + j];
    }
    for (ulong i = 0; i < (ulong)live * nbins; i++)
        row[i] = 0u;
    for (uint band = 0; band < bands; band++) {
        GLOBAL const uint *p = points + (ulong)band * band_pixels;
        uint n = counts[band];
        for (uint k = 0; k < n; k++) {
            if (opencv == 0u)
                hough_bins_span(p[k], c, s, w, scale, nbins, b);
            else
                hough_bins_opencv(p[k], c, s, offset, nbins, b);
            if (live == HOUGH_ROWS) {
                for (uint j = 0; j < HOUGH_ROWS; j++)
                    row[b[j]]++;
            } else {
                for (uint j = 0; j < live; j++)
                    row[b[j]]++;
            }
        }
    }
}
