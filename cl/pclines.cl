/* pclines.cl: PClines line detection (paper 004), integer arithmetic only, operation for
 * operation lib/pclines-ref.c.
 *
 * Pipeline (one plan run, 4 launches, 3 in the GPU shape, whose count kernels end with the
 * scan (PCL_FUSED_SCAN); no host round trip before the maxima are read):
 *   pclines_count_{u8,f32,list}   global >= pixels (or edges), local PCL_WG: Sobel gradient,
 *                                 magnitude threshold, Eq. 9 key; counts[key] += 1 (global
 *                                 atomic_inc)
 *   pclines_scan                  global PCL_WG (one group): counts[] becomes its exclusive
 *                                 prefix sum (the cursors), offsets[] a copy plus the total,
 *                                 totals[1] the number of edges
 *   pclines_scatter_{u8,f32,list} same shape as count: each edge takes a slot of its key's
 *                                 range (atomic_inc on the cursor), writing x | y << 16: a
 *                                 counting sort of the edges by orientation, compacting them
 *                                 at the same time (the order inside a key is free)
 *   pclines_accumulate            global groups * tiles * PCL_WG: group g owns columns
 *                                 [g * per, min((g + 1) * per, 2D)) of one tile of PCL_TILE
 *                                 rows and runs Algorithm 2 on them with a circular buffer of
 *                                 PCL_RING columns of PCL_TROWS counts in local memory (the
 *                                 tile and PCL_HALF rows around it; one tile when the whole
 *                                 column fits): fill as many columns as the ring holds
 *                                 (local atomic_inc, each column visiting only the edges
 *                                 of its orientation window), write the owned ones to the TS
 *                                 space, detect the maxima whose n x n window is complete,
 *                                 slide. The n/2 columns on either side are accumulated too
 *                                 (past the strip's ends: wrapped, rows mirrored).
 * Defines (the CPU shape's sizes are arguments instead: PCL_SIZE_ARGS below): PCL_WG (power
 * of two), PCL_W, PCL_H, PCL_D, PCL_ROWS, PCL_M, PCL_K (ulong literal), PCL_HALF (n / 2),
 * PCL_RING (>= n), PCL_TILE (rows a group owns), PCL_TROWS (rows of a ring column:
 * min(PCL_ROWS, PCL_TILE + 2 PCL_HALF)), PCL_RADIUS (0: every column; else the radius at the
 * axes), PCL_KERNEL (3, 5 or 7: the orientation operator), PCL_EDGE_T2 (long literal),
 * PCL_FUSED_SCAN (1: the count kernels take offsets and totals and their last group scans).
 * Atomics: atomic_inc on global and local 32-bit words. */

#ifdef PCL_SIZE_ARGS
/* The CPU shape (PCL_SIZE_ARGS): every value that follows the image's size is an argument of
 * each kernel, handed down to the helpers (PCL_SZ_DECL, PCL_SZ), so that one program serves
 * every size and `votecl warmup` at one size leaves nothing to compile at another. The types
 * are those of the GPU shape's literals (int, K ulong): every expression means the same. */
#define PCL_SZ_DECL                                                                                \
    , int pcl_w, int pcl_h, int pcl_d, int pcl_rows, int pcl_m, ulong pcl_k, int pcl_radius,       \
        int pcl_block, int pcl_stride
#define PCL_SZ , pcl_w, pcl_h, pcl_d, pcl_rows, pcl_m, pcl_k, pcl_radius, pcl_block, pcl_stride
#define PCL_W pcl_w
#define PCL_H pcl_h
#define PCL_D pcl_d
#define PCL_ROWS pcl_rows
#define PCL_M pcl_m
#define PCL_K pcl_k
#define PCL_RADIUS pcl_radius
#define PCL_CPU_BLOCK pcl_block
#define PCL_CPU_STRIDE pcl_stride
#define PCL_CPU_SLOTS (pcl_block + 2 * PCL_HALF)
/* the orientation operator is compiled in, applied when the radius is not 0 */
#define PCL_ORIENTED (PCL_KERNEL > 3)
#else
#define PCL_SZ_DECL
#define PCL_SZ
#define PCL_ORIENTED (PCL_RADIUS != 0 && PCL_KERNEL > 3)
#endif
#define PCL_COLUMNS (2 * PCL_D)

#ifndef PCL_SIZE_ARGS
/* Eq. 4 on doubled, centred coordinates (votecl__pclines_row). */
INLINE uint
pcl_row(uint location, int c)
{
#if PCL_NARROW
    /* num = (x + M) D + slope u lies in [0, 4 M D] < 2^31 and K < 2^32 (the host checked):
     * (ulong)num * K >> 32 is exactly mul_hi(num, K), without 64-bit arithmetic. */
    int x = 2 * (int)(location & 0xffffu) - (PCL_W - 1);
    int y = 2 * (int)(location >> 16) - (PCL_H - 1);
    int u = c - PCL_D;
    int slope = u >= 0 ? y - x : x + y;
    return mul_hi((uint)((x + PCL_M) * PCL_D + slope * u), (uint)PCL_K);
#else
    long x = 2 * (long)(location & 0xffffu) - (PCL_W - 1);
    long y = 2 * (long)(location >> 16) - (PCL_H - 1);
    long u = (long)c - PCL_D;
    long slope = u >= 0 ? y - x : x + y;
    long num = (x + PCL_M) * PCL_D + slope * u;
    return (uint)(((ulong)num * PCL_K) >> 32);
#endif
}
#endif

/* Eq. 9 rounded half up, modulo 2D (votecl__pclines_key). */
INLINE uint
pcl_key(int gx, int gy PCL_SZ_DECL)
{
    long s = (gx >= 0) == (gy >= 0) ? 1 : -1;
    long den = (long)gx + s * gy, num = (long)PCL_D * gy, q, two_d = 2L * PCL_D;
    if (den == 0)
        return PCL_D;
    if (den < 0) {
        den = -den;
        num = -num;
    }
    num = 2 * num + den;
    q = num / (2 * den);
    if (num < 0 && q * 2 * den != num)
        q--;
    return (uint)(((q + PCL_D) % two_d + two_d) % two_d);
}

INLINE int
pcl_int_gradient(float g)
{
    g = isnan(g) ? 0.0f : g * 255.0f;
    g = g < -1048576.0f ? -1048576.0f : g > 1048576.0f ? 1048576.0f : g;
    return (int)rint(g);
}

#if PCL_ORIENTED
/* The orientation operator (votecl__pclines_orientation): OpenCV's Sobel of side PCL_KERNEL,
 * coordinates clamped (SOBEL_REPLICATED of cl/common.h; its tables below). */
#define PCL_KH (PCL_KERNEL / 2)
#define PCL_SMOOTH(d) sobel_smooth[PCL_KH - 1][3 + (d)]
#define PCL_DERIV(d) sobel_deriv[PCL_KH - 1][3 + (d)]
SOBEL_REPLICATED(pcl_sobel_f32, float, float)

INLINE void
pcl_orientation_u8(GLOBAL const uchar *restrict p, int x, int y, int *gx, int *gy PCL_SZ_DECL)
{
    sobel_replicated_u8(p, PCL_W, PCL_H, PCL_KERNEL, x, y, gx, gy);
}

INLINE void
pcl_orientation_f32(GLOBAL const float *restrict p, int x, int y, int *gx, int *gy PCL_SZ_DECL)
{
    float sx, sy;

    pcl_sobel_f32(p, PCL_W, PCL_H, PCL_KERNEL, x, y, &sx, &sy);
    *gx = pcl_int_gradient(sx);
    *gy = pcl_int_gradient(sy);
}
#define PCL_U8_GRAD(expr) ((int)(expr))
#define PCL_F32_GRAD(expr) pcl_int_gradient(expr)
#define PCL_ORIENT(NAME, p, x, y, gx, gy)                                                          \
    if (PCL_RADIUS != 0)                                                                           \
    NAME(p, x, y, &gx, &gy PCL_SZ)
#else
#define PCL_U8_GRAD(expr) ((int)(expr))
#define PCL_F32_GRAD(expr) pcl_int_gradient(expr)
#define PCL_ORIENT(NAME, p, x, y, gx, gy)
#endif

/* The key of pixel e of a packed image, or VOTE_SKIP when it is no edge (u8 pixels are
 * widened to int by the sums, as in the reference): the 3 x 3 Sobel magnitude decides, the
 * orientation operator gives the key. */
#define PCL_SOBEL_KEY(NAME, T, GRAD, ORIENT)                                                       \
    INLINE uint NAME##_xy(GLOBAL const T *restrict p, uint x, uint y PCL_SZ_DECL)                  \
    {                                                                                              \
        GLOBAL const T *r1 = p + (size_t)y * PCL_W, *r0 = r1 - PCL_W, *r2 = r1 + PCL_W;            \
        int gx = GRAD(SOBEL3_GX(r0, r1, r2, x)), gy = GRAD(SOBEL3_GY(r0, r1, r2, x));              \
        if ((long)gx * gx + (long)gy * gy < PCL_EDGE_T2)                                           \
            return VOTE_SKIP;                                                                      \
        PCL_ORIENT(ORIENT, p, (int)x, (int)y, gx, gy);                                             \
        return pcl_key(gx, gy PCL_SZ);                                                             \
    }                                                                                              \
    INLINE uint NAME(GLOBAL const T *restrict p, uint e PCL_SZ_DECL)                               \
    {                                                                                              \
        uint x = e % PCL_W, y = e / PCL_W;                                                         \
        if (e >= (uint)PCL_W * PCL_H || x == 0 || y == 0 || x + 1 >= PCL_W || y + 1 >= PCL_H)      \
            return VOTE_SKIP;                                                                      \
        return NAME##_xy(p, x, y PCL_SZ);                                                          \
    }

PCL_SOBEL_KEY(pcl_key_u8, uchar, PCL_U8_GRAD, pcl_orientation_u8)
PCL_SOBEL_KEY(pcl_key_f32, float, PCL_F32_GRAD, pcl_orientation_f32)

/* List input: int4 (x, y, gx, gy), validated by the host. */
INLINE uint
pcl_key_list(GLOBAL const int4 *restrict edges, uint e, uint n, uint *location PCL_SZ_DECL)
{
    if (e >= n)
        return VOTE_SKIP;
    int4 v = edges[e];
    *location = (uint)v.x | (uint)v.y << 16;
    return pcl_key(v.z, v.w PCL_SZ);
}

/* counts[k] becomes the exclusive prefix sum; offsets[0..2D] the same plus the total, also
 * in totals[1]; totals[0], which counts the maxima later, starts at 0 here (no fill: the
 * GPU shape's totals are the head of its maxima, read back with them in one transfer). One
 * group; counts read through a volatile pointer, for the fused scan's last group (below),
 * which reads what other groups' atomics wrote. */
INLINE void
pcl_scan_group(GLOBAL uint *restrict counts, GLOBAL uint *restrict offsets,
               GLOBAL uint *restrict totals, LOCAL_PTR uint *tmp PCL_SZ_DECL)
{
    GLOBAL volatile const uint *in = counts;
    const uint lid = get_local_id(0);
    uint carry = 0;

    for (uint base = 0; base < PCL_COLUMNS; base += PCL_WG) {
        uint i = base + lid;
        uint value = i < PCL_COLUMNS ? in[i] : 0;
        uint sum;
        uint inclusive = group_scan(tmp, lid, PCL_WG, value, &sum);
        if (i < PCL_COLUMNS) {
            counts[i] = carry + inclusive - value;
            offsets[i] = carry + inclusive - value;
        }
        carry += sum;
    }
    if (lid == 0) {
        offsets[PCL_COLUMNS] = carry;
        totals[0] = 0;
        totals[1] = carry;
    }
}

KERNEL __attribute__((reqd_work_group_size(PCL_WG, 1, 1))) void
pclines_scan(GLOBAL uint *restrict counts, GLOBAL uint *restrict offsets,
             GLOBAL uint *restrict totals PCL_SZ_DECL)
{
    LOCAL uint tmp[PCL_WG];

    pcl_scan_group(counts, offsets, totals, tmp PCL_SZ);
}

#if PCL_FUSED_SCAN
/* The GPU shape's count kernels end with the scan (no pclines_scan launch): the last group to
 * finish counting, by a ticket in totals[2] (zero on entry and again on exit), runs it once
 * every group's atomics are visible (the threadfence reduction, as cl/vote.cl's
 * local_merge). Every work-item calls it; no return comes ahead of its barriers. */
INLINE void
pcl_scan_last(GLOBAL uint *restrict counts, GLOBAL uint *restrict offsets,
              GLOBAL uint *restrict totals, LOCAL_PTR uint *tmp, LOCAL_PTR uint *last)
{
    device_fence();
    LOCAL_BARRIER();
    if (get_local_id(0) == 0)
        *last = atomic_inc(&totals[2]) == get_num_groups(0) - 1;
    LOCAL_BARRIER();
    if (*last) { /* uniform across the group */
        device_fence();
        pcl_scan_group(counts, offsets, totals, tmp);
        if (get_local_id(0) == 0)
            totals[2] = 0; /* ready for the next run */
    }
}
#define PCL_SCAN_ARGS , GLOBAL uint *restrict offsets, GLOBAL uint *restrict totals
#define PCL_SCAN_LOCALS                                                                       \
    LOCAL uint scan_tmp[PCL_WG];                                                              \
    LOCAL uint scan_last;
#define PCL_SCAN_END(counts) pcl_scan_last(counts, offsets, totals, scan_tmp, &scan_last)
#else
#define PCL_SCAN_ARGS
#define PCL_SCAN_LOCALS
#define PCL_SCAN_END(counts)
#endif

#define PCL_IMAGE_KERNELS(SUFFIX, T, KEYFN)                                                   \
    KERNEL __attribute__((reqd_work_group_size(PCL_WG, 1, 1))) void pclines_count_##SUFFIX(   \
        GLOBAL const T *restrict image, GLOBAL uint *restrict counts PCL_SCAN_ARGS)           \
    {                                                                                         \
        PCL_SCAN_LOCALS                                                                       \
        uint e = get_global_id(0), key = KEYFN(image, e);                                     \
        if (key != VOTE_SKIP)                                                                 \
            atomic_inc(&counts[key]);                                                         \
        PCL_SCAN_END(counts);                                                                 \
    }                                                                                         \
    KERNEL __attribute__((reqd_work_group_size(PCL_WG, 1, 1))) void pclines_scatter_##SUFFIX( \
        GLOBAL const T *restrict image, GLOBAL uint *restrict cursors,                        \
        GLOBAL uint *restrict sorted)                                                         \
    {                                                                                         \
        uint e = get_global_id(0), key = KEYFN(image, e);                                     \
        if (key != VOTE_SKIP)                                                                 \
            sorted[atomic_inc(&cursors[key])] = (e % PCL_W) | (e / PCL_W) << 16;              \
    }

#ifndef PCL_SIZE_ARGS /* the GPU shape's */
PCL_IMAGE_KERNELS(u8, uchar, pcl_key_u8)
PCL_IMAGE_KERNELS(f32, float, pcl_key_f32)
#endif

KERNEL __attribute__((reqd_work_group_size(PCL_WG, 1, 1))) void
pclines_count_list(GLOBAL const int4 *restrict edges, uint n,
                   GLOBAL uint *restrict counts PCL_SCAN_ARGS PCL_SZ_DECL)
{
    PCL_SCAN_LOCALS
    uint location, key = pcl_key_list(edges, get_global_id(0), n, &location PCL_SZ);
    if (key != VOTE_SKIP)
        atomic_inc(&counts[key]);
    PCL_SCAN_END(counts);
}

KERNEL __attribute__((reqd_work_group_size(PCL_WG, 1, 1))) void
pclines_scatter_list(GLOBAL const int4 *restrict edges, uint n, GLOBAL uint *restrict cursors,
                     GLOBAL uint *restrict sorted PCL_SZ_DECL)
{
    uint location, key = pcl_key_list(edges, get_global_id(0), n, &location PCL_SZ);
    if (key != VOTE_SKIP)
        sorted[atomic_inc(&cursors[key])] = location;
}

/* A u8 colour image's gray levels, (299 R + 587 G + 114 B + 500) / 1000 as the host's
 * votecl__pclines_gray_of: the frame is uploaded as it is and converted here. Any work-group
 * size; global >= PCL_W * PCL_H. */
KERNEL void
pclines_gray_u8(GLOBAL const uchar *restrict colour, uint channels,
                GLOBAL uchar *restrict gray PCL_SZ_DECL)
{
    uint e = get_global_id(0);
    if (e >= (uint)PCL_W * PCL_H)
        return;
    GLOBAL const uchar *p = colour + (size_t)e * channels;
    gray[e] = (uchar)((299u * p[0] + 587u * p[1] + 114u * p[2] + 500u) / 1000u);
}

/* The actual column of virtual column j, and whether its rows are mirrored. */
INLINE int
pcl_wrap(int j, int *mirrored PCL_SZ_DECL)
{
    *mirrored = j < 0 || j >= PCL_COLUMNS;
    return j < 0 ? j + PCL_COLUMNS : j >= PCL_COLUMNS ? j - PCL_COLUMNS : j;
}

#ifndef PCL_SIZE_ARGS /* the GPU shape's accumulation */
/* Votes every edge of sorted[from, to) into ring column slot for actual column c: the rows
 * of the tile's window [base, base + PCL_TROWS) only. */
INLINE void
pcl_vote_range(GLOBAL const uint *restrict sorted, uint from, uint to, int c, int mirrored,
               uint base, LOCAL_PTR uint *column)
{
    for (uint i = from + get_local_id(0); i < to; i += PCL_WG) {
        uint row = pcl_row(sorted[i], c);
        uint at = (mirrored ? PCL_ROWS - 1 - row : row) - base; /* wraps when below base */
        if (at < PCL_TROWS)
            atomic_inc(&column[at]);
    }
}

#endif

/* The radius of column c (votecl__pclines_radius_at): one angle, PCL_RADIUS columns at the
 * axes. */
INLINE int
pcl_radius_at(int c PCL_SZ_DECL)
{
    ulong d = PCL_D, a = c >= PCL_D ? (ulong)(c - PCL_D) : (ulong)(PCL_D - c), b = d - a;
    ulong r = ((ulong)PCL_RADIUS * (a * a + b * b) + d * d / 2) / (d * d);
    return r > 0 ? (int)r : 1;
}

#ifndef PCL_SIZE_ARGS
/* Section 4.2: only the edges whose key lies within the radius of c, around the strip. */
INLINE void
pcl_vote_column(GLOBAL const uint *restrict sorted, GLOBAL const uint *restrict offsets, int j,
                uint base, LOCAL_PTR uint *column)
{
    int mirrored, c = pcl_wrap(j, &mirrored PCL_SZ);
#if PCL_RADIUS == 0
    pcl_vote_range(sorted, 0, offsets[PCL_COLUMNS], c, mirrored, base, column);
#else
    int radius = pcl_radius_at(c PCL_SZ);
    int lo = c - radius, hi = c + radius + 1; /* keys [lo, hi) around the circle */
    if (lo < 0) {
        pcl_vote_range(sorted, offsets[lo + PCL_COLUMNS], offsets[PCL_COLUMNS], c, mirrored,
                       base, column);
        pcl_vote_range(sorted, 0, offsets[hi], c, mirrored, base, column);
    } else if (hi > PCL_COLUMNS) {
        pcl_vote_range(sorted, offsets[lo], offsets[PCL_COLUMNS], c, mirrored, base, column);
        pcl_vote_range(sorted, 0, offsets[hi - PCL_COLUMNS], c, mirrored, base, column);
    } else {
        pcl_vote_range(sorted, offsets[lo], offsets[hi], c, mirrored, base, column);
    }
#endif
}

#define PCL_SLOT(j) ((uint)((j) - first) % PCL_RING)

/* Whether virtual column j, row r (j owned, r in the tile) is a maximum
 * (votecl__pclines_is_max); the ring holds rows [base, base + PCL_TROWS). */
INLINE int
pcl_is_max(LOCAL_PTR const uint *ring, int first, int j, int r, int base, uint threshold)
{
    uint value = ring[PCL_SLOT(j) * PCL_TROWS + (r - base)];
    uint cell = (uint)j * PCL_ROWS + (uint)r;
    if (value < threshold)
        return 0;
    for (int dc = -PCL_HALF; dc <= PCL_HALF; dc++) {
        int mirrored, c = pcl_wrap(j + dc, &mirrored PCL_SZ);
        LOCAL_PTR const uint *column = ring + PCL_SLOT(j + dc) * PCL_TROWS;
        for (int dr = -PCL_HALF; dr <= PCL_HALF; dr++) {
            int rr = r + dr;
            if (rr < 0 || rr >= PCL_ROWS)
                continue;
            uint other = (uint)c * PCL_ROWS + (uint)(mirrored ? PCL_ROWS - 1 - rr : rr);
            uint v = column[rr - base];
            if (v > value || (v == value && other < cell))
                return 0;
        }
    }
    return 1;
}

/* Group g owns the columns of column group g % column_groups and the rows of tile
 * g / column_groups: [t0, t0 + PCL_TILE) clipped to the space. Its ring columns hold rows
 * [base, base + PCL_TROWS), the tile and PCL_HALF rows around it (clamped into the space), so
 * that local memory bounds the tile, never the image. */
KERNEL __attribute__((reqd_work_group_size(PCL_WG, 1, 1))) void
pclines_accumulate(GLOBAL const uint *restrict sorted, GLOBAL const uint *restrict offsets,
                   uint per, uint column_groups, uint threshold, GLOBAL uint *restrict space,
                   GLOBAL uint *restrict result, uint capacity, GLOBAL uint *restrict counts)
{
    /* result: the maxima's count, the edges' (pclines_scan's totals), two spare words, then
     * capacity (cell, votes) pairs: one read brings the count and the first maxima back */
    GLOBAL uint *count = result, *maxima = result + 4;
    /* the sort's counts (its cursors by now, unused here) zeroed for the next run: no fill */
    if (get_group_id(0) == 0)
        for (int i = get_local_id(0); i < PCL_COLUMNS; i += PCL_WG)
            counts[i] = 0;
    LOCAL uint ring[PCL_RING * PCL_TROWS];
    const int lid = get_local_id(0);
    const int g = (int)(get_group_id(0) % column_groups);
    const int t0 = (int)(get_group_id(0) / column_groups) * PCL_TILE;
    const int t1 = min(t0 + PCL_TILE, PCL_ROWS), rows = t1 - t0;
    const int base = clamp(t0 - PCL_HALF, 0, PCL_ROWS - PCL_TROWS);
    const int c0 = g * (int)per, c1 = min(c0 + (int)per, PCL_COLUMNS);
    const int first = c0 - PCL_HALF, end = c1 + PCL_HALF;
    int m = c0, k = first;

    while (m < c1) {
        /* The ring holds virtual columns [m - HALF, k); fill it up to RING columns. */
        int stop = min(end, m - PCL_HALF + PCL_RING);
        for (int i = lid; i < (stop - k) * PCL_TROWS; i += PCL_WG)
            ring[PCL_SLOT(k + i / PCL_TROWS) * PCL_TROWS + i % PCL_TROWS] = 0;
        LOCAL_BARRIER();
        for (int j = k; j < stop; j++)
            pcl_vote_column(sorted, offsets, j, (uint)base, ring + PCL_SLOT(j) * PCL_TROWS);
        LOCAL_BARRIER();
        int w0 = max(k, c0), w1 = min(stop, c1);
        for (int i = lid; i < (w1 - w0) * rows; i += PCL_WG) {
            int j = w0 + i / rows, r = t0 + i % rows;
            space[(size_t)j * PCL_ROWS + r] = ring[PCL_SLOT(j) * PCL_TROWS + (r - base)];
        }
        int mend = min(c1, stop - PCL_HALF);
        for (int i = lid; i < (mend - m) * rows; i += PCL_WG) {
            int j = m + i / rows, r = t0 + i % rows;
            if (pcl_is_max(ring, first, j, r, base, threshold)) {
                uint at = atomic_inc(count);
                if (at < capacity) {
                    maxima[2 * at] = (uint)j * PCL_ROWS + (uint)r;
                    maxima[2 * at + 1] = ring[PCL_SLOT(j) * PCL_TROWS + (r - base)];
                }
            }
        }
        LOCAL_BARRIER();
        m = mend;
        k = stop;
    }
}

#endif

#ifdef PCL_SIZE_ARGS
/* --- the CPU shape (devices without dedicated local memory: PoCL) ---
 *
 * The GPU kernels above spread every pixel and every vote over work-items that meet in
 * atomics on (emulated) local memory; a CPU core runs them one work-item after another, so
 * each vote pays a locked instruction and each pixel its Sobel twice (count, then scatter).
 * Here one work-item does a long sequential job and owns what it writes:
 *   pclines_edges_rows_{u8,f32}  global = bands, local 1: band b runs Sobel, the magnitude
 *                                threshold and the key over its rows once, appending
 *                                (location, key) to its own list and counting keys in its own
 *                                counts[b][2D] (no atomics)
 *   pclines_scan_bands           global 1: cursors[b][key] and offsets[0..2D], totals[1]
 *   pclines_scatter_bands        global = bands: the counting sort's scatter, in band order
 *   pclines_accumulate_rows      global = workers, local 1: each worker takes blocks of
 *                                PCL_CPU_BLOCK owned columns (atomic_inc on totals[2]) and
 *                                accumulates their PCL_CPU_SLOTS virtual columns (the block
 *                                and PCL_HALF on either side) in its own scratch of whole
 *                                columns; edge by edge in key order, each edge voting in the
 *                                consecutive columns of its orientation window with one
 *                                64-bit add per column (Eq. 4 is linear in u); then the
 *                                maxima of the owned columns and, when asked, their store
 *                                into the TS space.
 * Sizes: PCL_CPU_BLOCK, PCL_CPU_SLOTS (PCL_CPU_BLOCK + 2 PCL_HALF), PCL_CPU_STRIDE, arguments
 * like the image's (PCL_SZ_DECL); PCL_CPU_SLOTS_MAX (a define) bounds PCL_CPU_SLOTS. */

/* Scratch layout: whole columns (slot stride PCL_CS, row stride PCL_RS; measured against
 * rows of slots on PoCL: columns were faster), PCL_CPU_STRIDE >= PCL_ROWS apart. */
#define PCL_CS PCL_CPU_STRIDE
#define PCL_RS 1

#define PCL_EDGES_ROWS(SUFFIX, T, KEYFN)                                                           \
    KERNEL __attribute__((reqd_work_group_size(1, 1, 1))) void pclines_edges_rows_##SUFFIX(        \
        GLOBAL const T *restrict image, uint band_rows, GLOBAL uint *restrict counts,              \
        GLOBAL uint *restrict lists, GLOBAL uint *restrict sizes PCL_SZ_DECL)                      \
    {                                                                                              \
        const uint b = get_global_id(0);                                                           \
        const uint y0 = 1 + b * band_rows, y1 = min(y0 + band_rows, (uint)PCL_H - 1);              \
        GLOBAL uint *own = counts + (size_t)b * PCL_COLUMNS;                                       \
        GLOBAL uint *list = lists + (size_t)b * band_rows * PCL_W * 2;                             \
        uint n = 0;                                                                                \
        for (uint k = 0; k < PCL_COLUMNS; k++)                                                     \
            own[k] = 0;                                                                            \
        for (uint y = y0; y < y1; y++)                                                             \
            for (uint x = 1; x + 1 < PCL_W; x++) {                                                 \
                uint key = KEYFN##_xy(image, x, y PCL_SZ);                                         \
                if (key == VOTE_SKIP)                                                              \
                    continue;                                                                      \
                list[2 * n] = x | y << 16;                                                         \
                list[2 * n++ + 1] = key;                                                           \
                own[key]++;                                                                        \
            }                                                                                      \
        sizes[b] = n;                                                                              \
    }

PCL_EDGES_ROWS(f32, float, pcl_key_f32)

/* u8 edges: integer sums are exact in any order, so the orientation operator of an interior
 * pixel is summed separably (the row's derivative and smoothing, then across rows). */
INLINE void
pcl_orientation_u8_rows(GLOBAL const uchar *restrict p, uint x, uint y, int *gx,
                        int *gy PCL_SZ_DECL)
{
#if PCL_ORIENTED
    if (x < PCL_KH || y < PCL_KH || x + PCL_KH >= PCL_W || y + PCL_KH >= PCL_H) {
        pcl_orientation_u8(p, (int)x, (int)y, gx, gy PCL_SZ);
        return;
    }
    int sx = 0, sy = 0;
    for (int dy = -PCL_KH; dy <= PCL_KH; dy++) {
        GLOBAL const uchar *q = p + (size_t)(y + dy) * PCL_W + x;
        int d = 0, s = PCL_SMOOTH(0) * q[0];
        for (int dx = 1; dx <= PCL_KH; dx++) {
            d += PCL_DERIV(dx) * (q[dx] - q[-dx]);
            s += PCL_SMOOTH(dx) * (q[dx] + q[-dx]);
        }
        sx += PCL_SMOOTH(dy) * d;
        sy += PCL_DERIV(dy) * s;
    }
    *gx = sx;
    *gy = sy;
#endif
}

/* u8 bands: per row, the 3 x 3 magnitude test of every pixel first (a loop without
 * branches that vectorises), then the orientation and key of the edges only. */
KERNEL __attribute__((reqd_work_group_size(1, 1, 1))) void
pclines_edges_rows_u8(GLOBAL const uchar *restrict image, uint band_rows,
                      GLOBAL uint *restrict counts, GLOBAL uint *restrict lists,
                      GLOBAL uint *restrict sizes, GLOBAL uchar *restrict flags PCL_SZ_DECL)
{
    const uint b = get_global_id(0);
    const uint y0 = 1 + b * band_rows, y1 = min(y0 + band_rows, (uint)PCL_H - 1);
    GLOBAL uint *own = counts + (size_t)b * PCL_COLUMNS;
    GLOBAL uint *list = lists + (size_t)b * band_rows * PCL_W * 2;
    GLOBAL uchar *flag = flags + (size_t)b * PCL_W;
    /* |g|^2 <= 2 * 1020^2 < 2^31: the threshold compares in int once clamped there */
    const int t2 = PCL_EDGE_T2 < 0x7fffffffL ? (int)PCL_EDGE_T2 : 0x7fffffff;
    uint n = 0;
    for (uint k = 0; k < PCL_COLUMNS; k++)
        own[k] = 0;
    for (uint y = y0; y < y1; y++) {
        GLOBAL const uchar *up = image + (size_t)(y - 1) * PCL_W;
        GLOBAL const uchar *mid = up + PCL_W, *down = mid + PCL_W;
        for (uint x = 1; x + 1 < PCL_W; x++) {
            int gx = SOBEL3_GX(up, mid, down, x), gy = SOBEL3_GY(up, mid, down, x);
            flag[x] = gx * gx + gy * gy >= t2;
        }
        for (uint x = 1; x + 1 < PCL_W; x++) {
            if (!flag[x])
                continue;
            int gx = SOBEL3_GX(up, mid, down, x), gy = SOBEL3_GY(up, mid, down, x);
            if (PCL_ORIENTED && PCL_RADIUS != 0)
                pcl_orientation_u8_rows(image, x, y, &gx, &gy PCL_SZ);
            uint key = pcl_key(gx, gy PCL_SZ);
            list[2 * n] = x | y << 16;
            list[2 * n++ + 1] = key;
            own[key]++;
        }
    }
    sizes[b] = n;
}

/* counts[b][key] becomes band b's cursor in the sorted order (keys first, then bands), the
 * edges of every band in key order after those of the bands before it. */
KERNEL __attribute__((reqd_work_group_size(1, 1, 1))) void
pclines_scan_bands(GLOBAL uint *restrict counts, uint bands, GLOBAL uint *restrict offsets,
                   GLOBAL uint *restrict totals PCL_SZ_DECL)
{
    uint total = 0;
    for (uint k = 0; k < PCL_COLUMNS; k++) {
        offsets[k] = total;
        for (uint b = 0; b < bands; b++) {
            uint c = counts[(size_t)b * PCL_COLUMNS + k];
            counts[(size_t)b * PCL_COLUMNS + k] = total;
            total += c;
        }
    }
    offsets[PCL_COLUMNS] = total;
    totals[1] = total;
}

KERNEL __attribute__((reqd_work_group_size(1, 1, 1))) void
pclines_scatter_bands(GLOBAL const uint *restrict lists, uint band_rows,
                      GLOBAL const uint *restrict sizes, GLOBAL uint *restrict cursors,
                      GLOBAL uint *restrict sorted PCL_SZ_DECL)
{
    const uint b = get_global_id(0), n = sizes[b];
    GLOBAL const uint *list = lists + (size_t)b * band_rows * PCL_W * 2;
    GLOBAL uint *own = cursors + (size_t)b * PCL_COLUMNS;
    for (uint i = 0; i < n; i++) {
        sorted[own[list[2 * i + 1]]++] = list[2 * i];
    }
}

/* One edge's votes in slots s0..s1: VOTE is 1, or in[s] where a slot between s0 and s1
 * lies outside the edge's window. */
#define PCL_VOTE_LOOP(SIGN, VOTE)                                                             \
    for (int s = s0; s <= s1; s++, col += PCL_CS, acc += step)                                \
        col[SIGN(int)(uint)(acc >> 32) * PCL_RS] += (VOTE);

/* Votes the edges sorted[from, to) into the slots [s0, s1] of scratch (virtual columns
 * first + s, all on one side of u = 0 and of the strip's ends): Eq. 4's numerator grows by
 * the edge's slope per column, so (num K) does by slope K, exactly in 64 bits (num K <
 * 2^49). in[s] is 0 for a slot between s0 and s1 outside the edge's window; full: none is. */
INLINE void
pcl_vote_slots(GLOBAL const uint *restrict sorted, uint from, uint to, int first, int s0, int s1,
               const uint *in, int full, GLOBAL uint *restrict scratch PCL_SZ_DECL)
{
    int j = first + s0, mirrored, c = pcl_wrap(j, &mirrored PCL_SZ);
    long u = (long)c - PCL_D;
    for (uint i = from; i < to; i++) {
        uint location = sorted[i];
        long x = 2 * (long)(location & 0xffffu) - (PCL_W - 1);
        long y = 2 * (long)(location >> 16) - (PCL_H - 1);
        long slope = u >= 0 ? y - x : x + y;
        ulong acc = (ulong)((x + PCL_M) * PCL_D + slope * u) * PCL_K;
        ulong step = (ulong)(slope * (long)PCL_K);
        GLOBAL uint *col = scratch + (size_t)s0 * PCL_CS;
        if (mirrored) {
            col += (PCL_ROWS - 1) * PCL_RS;
            if (full) {
                PCL_VOTE_LOOP(-, 1)
            } else {
                PCL_VOTE_LOOP(-, in[s])
            }
        } else if (full) {
            PCL_VOTE_LOOP(+, 1)
        } else {
            PCL_VOTE_LOOP(+, in[s])
        }
    }
}

/* Slots [a, b) of the block starting at virtual column first: for each key (unwrapped:
 * key + m 2D, the one within a slot's window), the slots whose window holds it. */
INLINE void
pcl_vote_segment(GLOBAL const uint *restrict sorted, GLOBAL const uint *restrict offsets, int first,
                 int a, int b, GLOBAL uint *restrict scratch PCL_SZ_DECL)
{
    uint in[PCL_CPU_SLOTS_MAX];
    if (PCL_RADIUS == 0) {
        for (int s = a; s < b; s++)
            in[s] = 1;
        pcl_vote_slots(sorted, 0, offsets[PCL_COLUMNS], first, a, b - 1, in, 1, scratch PCL_SZ);
        return;
    }
    int radius[PCL_CPU_SLOTS_MAX], lo = 0x7fffffff, hi = -0x7fffffff;
    for (int s = a; s < b; s++) {
        int mirrored, c = pcl_wrap(first + s, &mirrored PCL_SZ);
        radius[s] = pcl_radius_at(c PCL_SZ);
        lo = min(lo, first + s - radius[s]);
        hi = max(hi, first + s + radius[s]);
    }
    for (int k = lo; k <= hi; k++) {
        int s0 = b, s1 = a - 1, count = 0;
        for (int s = a; s < b; s++) {
            int delta = k - (first + s);
            in[s] = (delta < 0 ? -delta : delta) <= radius[s];
            s0 = in[s] && s < s0 ? s : s0;
            s1 = in[s] ? s : s1;
            count += in[s];
        }
        if (s0 > s1)
            continue;
        int key = ((k % PCL_COLUMNS) + PCL_COLUMNS) % PCL_COLUMNS;
        pcl_vote_slots(sorted, offsets[key], offsets[key + 1], first, s0, s1, in,
                       count == s1 - s0 + 1, scratch PCL_SZ);
    }
}

/* Whether owned virtual column j (slot j - first), row r, is a maximum: pcl_is_max on the
 * scratch. */
INLINE int
pcl_is_max_rows(GLOBAL const uint *restrict scratch, int first, int j, int r,
                uint threshold PCL_SZ_DECL)
{
    uint value = scratch[(size_t)(j - first) * PCL_CS + (size_t)r * PCL_RS];
    uint cell = (uint)j * PCL_ROWS + (uint)r;
    if (value < threshold)
        return 0;
    for (int dc = -PCL_HALF; dc <= PCL_HALF; dc++) {
        int mirrored, c = pcl_wrap(j + dc, &mirrored PCL_SZ);
        GLOBAL const uint *column = scratch + (size_t)(j + dc - first) * PCL_CS;
        for (int dr = -PCL_HALF; dr <= PCL_HALF; dr++) {
            int rr = r + dr;
            if (rr < 0 || rr >= PCL_ROWS)
                continue;
            uint other = (uint)c * PCL_ROWS + (uint)(mirrored ? PCL_ROWS - 1 - rr : rr);
            uint v = column[(size_t)rr * PCL_RS];
            if (v > value || (v == value && other < cell))
                return 0;
        }
    }
    return 1;
}

/* The maxima of owned columns [c0, c1) and, when store, their counts into the TS space. */
INLINE void
pcl_finish_block(GLOBAL const uint *restrict scratch, int first, int c0, int c1, uint threshold,
                 uint store, GLOBAL uint *restrict space, GLOBAL uint *restrict maxima,
                 GLOBAL uint *restrict count, uint capacity PCL_SZ_DECL)
{
    for (int j = c0; j < c1; j++) {
        GLOBAL const uint *column = scratch + (size_t)(j - first) * PCL_CS;
        if (store)
            for (int r = 0; r < PCL_ROWS; r++)
                space[(size_t)j * PCL_ROWS + r] = column[(size_t)r * PCL_RS];
        for (int r = 0; r < PCL_ROWS; r++) {
            uint value = column[(size_t)r * PCL_RS];
            if (value < threshold || !pcl_is_max_rows(scratch, first, j, r, threshold PCL_SZ))
                continue;
            uint at = atomic_inc(count);
            if (at < capacity) {
                maxima[2 * at] = (uint)j * PCL_ROWS + (uint)r;
                maxima[2 * at + 1] = value;
            }
        }
    }
}

KERNEL __attribute__((reqd_work_group_size(1, 1, 1))) void
pclines_accumulate_rows(GLOBAL const uint *restrict sorted, GLOBAL const uint *restrict offsets,
                        uint threshold, uint store, GLOBAL uint *restrict space,
                        GLOBAL uint *restrict maxima, GLOBAL uint *restrict totals, uint capacity,
                        GLOBAL uint *restrict scratches PCL_SZ_DECL)
{
    GLOBAL uint *scratch = scratches + (size_t)get_global_id(0) * PCL_CPU_SLOTS * PCL_CS;
    const uint blocks = (PCL_COLUMNS + PCL_CPU_BLOCK - 1) / PCL_CPU_BLOCK;

    for (uint block = atomic_inc(&totals[2]); block < blocks; block = atomic_inc(&totals[2])) {
        const int c0 = (int)block * PCL_CPU_BLOCK, c1 = min(c0 + PCL_CPU_BLOCK, PCL_COLUMNS);
        const int first = c0 - PCL_HALF, slots = c1 + PCL_HALF - first;
        for (size_t i = 0; i < (size_t)PCL_CPU_SLOTS * PCL_CS; i++)
            scratch[i] = 0;
        /* segments never straddle u = 0 (slope) nor the strip's ends (mirroring) */
        for (int a = 0; a < slots;) {
            int j = first + a, b = slots;
            b = j < 0 ? min(b, -first) : b;
            b = j < PCL_D ? min(b, PCL_D - first) : b;
            b = j < PCL_COLUMNS ? min(b, PCL_COLUMNS - first) : b;
            pcl_vote_segment(sorted, offsets, first, a, b, scratch PCL_SZ);
            a = b;
        }
        pcl_finish_block(scratch, first, c0, c1, threshold, store, space, maxima, &totals[0],
                         capacity PCL_SZ);
    }
}
#endif

#ifndef PCL_SIZE_ARGS
/* --- the GPU shape's line fit: one pass's sums of each line (lib/pclines-fit.c's integer
 * rules, operation for operation; the host solves each pass from them) --- */

#define PCL_FIT_WG 128
#define PCL_FIT_SUMS 7
#ifndef PCL_FIT_GROUPS
#define PCL_FIT_GROUPS 16
#endif

/* floor(a / b) for 0 < b < 2^24 and |a| < 2^40 (votecl__pclines_fit_floor_div's value): the
 * float quotient, within a few of the floor, corrected exactly (a 64-bit division is a long
 * software routine on GPUs, and each pixel slot takes two). */
INLINE long
pcl_floor_div(long a, long b)
{
    long q = (long)floor((float)a / (float)b);
    while (q * b > a)
        q--;
    while ((q + 1) * b <= a)
        q++;
    return q;
}

/* floor(sqrt(m)) exactly: the float root corrected (votecl__pclines_fit_isqrt). */
INLINE ulong
pcl_isqrt(ulong m)
{
    ulong r = (ulong)sqrt((float)m);
    while (r > 0 && r * r > m)
        r--;
    while ((r + 1) * (r + 1) <= m)
        r++;
    return r;
}

/* The weight of an edge of gradient (gx, gy) and square magnitude m2 for the line of words p
 * (votecl__pclines_fit_weight for an image): 0 unless along the normal, else the magnitude's
 * integer part, at most 65535. */
INLINE ulong
pcl_fit_weight(GLOBAL const long *restrict p, int gx, int gy, long m2)
{
    long ax = gx < 0 ? -(long)gx : (long)gx, ay = gy < 0 ? -(long)gy : (long)gy, x, y;
    uint s = 0;
    ulong dot, w;

    while ((ax >> s) >= 16384 || (ay >> s) >= 16384)
        s++;
    x = gx < 0 ? -(ax >> s) : ax >> s;
    y = gy < 0 ? -(ay >> s) : ay >> s;
    dot = (ulong)(x * p[4] + y * p[5]);
    if (100 * (dot * dot) < 81 * (ulong)(x * x + y * y) * (ulong)p[6])
        return 0;
    w = pcl_isqrt((ulong)m2);
    return w < 65535 ? w : 65535;
}

/* Adds pixel (x, y) of weight w to sums when it lies within the pass's band
 * (votecl__pclines_fit_add): two's complement sums modulo 2^64. */
INLINE void
pcl_fit_add(GLOBAL const long *restrict p, long x, long y, ulong w, ulong *sums)
{
    long d = p[7] * x + p[8] * y - p[9];
    ulong rx = (ulong)(x - PCL_W / 2), ry = (ulong)(y - PCL_H / 2);

    if (d < -p[10] || d > p[10])
        return;
    sums[0] += 1;
    sums[1] += w;
    sums[2] += w * rx;
    sums[3] += w * ry;
    sums[4] += w * rx * rx;
    sums[5] += w * rx * ry;
    sums[6] += w * ry * ry;
}

/* The group's sums into out[0..7] (word 7 zero). Every work-item calls it. */
INLINE void
pcl_fit_reduce(LOCAL_PTR ulong *tmp, uint lid, const ulong *sums, GLOBAL ulong *restrict out)
{
    for (int j = 0; j < PCL_FIT_SUMS; j++)
        tmp[j * PCL_FIT_WG + lid] = sums[j];
    LOCAL_BARRIER();
    for (uint s = PCL_FIT_WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            for (int j = 0; j < PCL_FIT_SUMS; j++)
                tmp[j * PCL_FIT_WG + lid] += tmp[j * PCL_FIT_WG + lid + s];
        LOCAL_BARRIER();
    }
    if (lid < PCL_FIT_SUMS)
        out[lid] = tmp[lid * PCL_FIT_WG];
    if (lid == PCL_FIT_SUMS)
        out[lid] = 0;
}

/* PCL_FIT_GROUPS groups a line (its 16 words in params; group g's 8 sums in moments at
 * (line * PCL_FIT_GROUPS + g) * 8, which the host adds): the line's work-items take its
 * pixel slots in turn, PCL_FIT_SPAN slots a step along the major axis, the slot o of step a
 * being pixel lo + o of the step's span (votecl__pclines_fit_span: at most 15 pixels, as the
 * minor axis's coefficient is at least 2^20 / sqrt(2)); they count the edges (the vote's
 * 3 x 3 Sobel test) along the normal within the pass's band. A pixel a work-item, rather
 * than a step: the loads of many pixels in flight at once. */
#define PCL_FIT_SPAN 16
#define PCL_FIT_KERNEL(SUFFIX, T, GRAD)                                                            \
    KERNEL __attribute__((reqd_work_group_size(PCL_FIT_WG, 1, 1))) void pclines_fit_##SUFFIX(     \
        GLOBAL const T *restrict img, GLOBAL const long *restrict params,                          \
        GLOBAL ulong *restrict moments)                                                            \
    {                                                                                              \
        LOCAL ulong tmp[PCL_FIT_SUMS * PCL_FIT_WG];                                                \
        const uint lid = get_local_id(0), line = get_group_id(0) / PCL_FIT_GROUPS;                 \
        const long first = (long)(get_group_id(0) % PCL_FIT_GROUPS) * PCL_FIT_WG + lid;            \
        GLOBAL const long *p = params + (size_t)line * 16;                                         \
        ulong sums[PCL_FIT_SUMS] = {0, 0, 0, 0, 0, 0, 0};                                          \
        const int major = p[11] != 0;                                                              \
        const long qm = major ? p[0] : p[1], qs = major ? p[1] : p[0], qn = qs < 0 ? -qs : qs;     \
        const long slots = p[14] != 0 && p[13] >= p[12] ? (p[13] - p[12] + 1) * PCL_FIT_SPAN : 0;  \
        for (long k = first; k < slots; k += (long)PCL_FIT_GROUPS * PCL_FIT_WG) {                  \
            long a = p[12] + k / PCL_FIT_SPAN, t = qs < 0 ? qm * a - p[2] : p[2] - qm * a;         \
            long lo = -pcl_floor_div(p[3] - t, qn), hi = pcl_floor_div(t + p[3], qn);              \
            long b = (lo < 1 ? 1 : lo) + k % PCL_FIT_SPAN;                                         \
            if (b > hi || b > p[15])                                                               \
                continue;                                                                          \
            long x = major ? a : b, y = major ? b : a;                                             \
            GLOBAL const T *r1 = img + (size_t)y * PCL_W, *r0 = r1 - PCL_W, *r2 = r1 + PCL_W;      \
            int gx = GRAD(SOBEL3_GX(r0, r1, r2, x)), gy = GRAD(SOBEL3_GY(r0, r1, r2, x));          \
            long m2 = (long)gx * gx + (long)gy * gy;                                               \
            ulong w = m2 < PCL_EDGE_T2 ? 0 : pcl_fit_weight(p, gx, gy, m2);                        \
            if (w != 0)                                                                            \
                pcl_fit_add(p, x, y, w, sums);                                                     \
        }                                                                                          \
        pcl_fit_reduce(tmp, lid, sums, moments + (size_t)get_group_id(0) * 8);                     \
    }

PCL_FIT_KERNEL(u8, uchar, PCL_U8_GRAD)
PCL_FIT_KERNEL(f32, float, PCL_F32_GRAD)
#endif
