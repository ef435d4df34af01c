/* hog-cpu.cl: the CPU shape of hog.cl's stages (devices without dedicated local memory:
 * PoCL), composed after hog.cl (its job table and constants). PoCL runs a work-group as a
 * loop over its work-items and vectorises that loop only when the kernel body is
 * straight-line code without per-item guards; where a body gathers (resize taps) or loops
 * (blocks, SVM), a work-item does 8 or 16 neighbours in explicit vectors instead.
 *
 * Every kernel is 2-D: dimension 1 is a row of all jobs (one work-group of local size 1 in
 * it), rowjob[2 (rfirst + row)] (host table) its job and the next int its row in the job;
 * dimension 0 the columns of that row. Rows of the per-pixel buffers are HOG_PITCH(width)
 * long (whole work-groups of HOG_TILE), so that no work-item of a work-group that starts
 * inside a row is turned away: the columns past a row's width are computed from valid
 * table entries and never read as results. Layouts differ from hog.cl's where only these
 * kernels read them:
 *   the padded level: floats, gamma applied, per row one plane of HOG_PITCH(gw + 2)
 *   columns per channel, from J_PAD;
 *   the resize tables of J_TAB in padded coordinates (reflect-101 applied on the host):
 *   HOG_PITCH(gw + 2) columns, then gh + 2 rows;
 *   gradients planar in rows of HOG_PITCH(gw): the first weighted magnitude at grad[o], the
 *   second at grad[npix + o], the lower bin at bins[o] (the upper bin is the next one);
 *   R, the row histograms: element k (cell column x HOG_NBINS + bin) of block column bx of
 *   gradient row y at (J_RB + y nbx) HOG_CELLS_X HOG_NBINS + k nbx + bx;
 *   the normalised blocks transposed per block row, histt[(J_BLK + by nbx) len + k nbx +
 *   bx], and in hog.cl's layout (hist) only for votecl_hog_compute.
 * Kernels (dimension 0; dimension 1):
 *   hog_level_px1/3    groups of 8 padded columns; padded rows: resize, gamma
 *   hog_gradient_px3   gradient columns; gradient rows: hog_gradient_store's arithmetic,
 *                      the channel chosen by selects (PoCL vectorises it)
 *   hog_gradient_px1   groups of 8 gradient columns; gradient rows: the same, gray
 *   hog_rowhist_rows   block columns; gradient rows: each block column's partial histogram
 *                      of one pixel row, weights hx (x Gaussian times bilinear cell weight)
 *   hog_blocks_px      groups of 8 block columns; block rows: blocks from HOG_BLOCK_H rows
 *                      of R, weights hy (y factors), L2-Hys (or HOG_NORM's)
 *   hog_svm_px         groups of 16 windows; window rows: scores, the reference's order
 * The Gaussian is split into its x and y factors (products of the same values as the
 * reference's table up to rounding) and some sums use fma: margins as hog.cl's.
 * Required defines: hog.cl's, HOG_CELLS_X, HOG_CELLS_Y, HOG_TILE (the local size along a
 * row of the per-pixel kernels, a multiple of 8), HOG_GAMMA (0 or 1). No atomics, no local
 * memory. */

#define J_RB 21 /* first row of R (in block columns), CPUs */
#define HOG_PITCH(n) (((n) + HOG_TILE - 1) / HOG_TILE * HOG_TILE)

/* The padded level, gamma applied, as CH planes of floats per row: the gradient kernels
 * then read contiguous floats instead of gathering through a table four times. A work-item
 * does 8 consecutive columns in vectors (the source reads are gathers, which PoCL would not
 * vectorise across work-items); work-groups of HOG_TILE / 8. The gamma table's values
 * (votecl__hog_gamma_table: sqrtf of the integer) by sqrt, correctly rounded on PoCL. */
#if HOG_GAMMA
#define HOG_GAMMA8(v) sqrt(v)
#else
#define HOG_GAMMA8(v) (v)
#endif
#define HOG_GATHER8(p, i, CH, c)                                                               \
    (int8)((p)[(i).s0 * CH + c], (p)[(i).s1 * CH + c], (p)[(i).s2 * CH + c],                   \
           (p)[(i).s3 * CH + c], (p)[(i).s4 * CH + c], (p)[(i).s5 * CH + c],                   \
           (p)[(i).s6 * CH + c], (p)[(i).s7 * CH + c])
/* Colour: the 3 bytes of each tap's pixel (and one more) in one 4-byte read, the channels
 * split by shifts; safe while the source row has a next row (hog_level_px3). */
#define HOG_TAP3(p, i)                                                                         \
    (uint8)(as_uint(vload4(0, (p) + 3 * (i).s0)), as_uint(vload4(0, (p) + 3 * (i).s1)),         \
            as_uint(vload4(0, (p) + 3 * (i).s2)), as_uint(vload4(0, (p) + 3 * (i).s3)),         \
            as_uint(vload4(0, (p) + 3 * (i).s4)), as_uint(vload4(0, (p) + 3 * (i).s5)),         \
            as_uint(vload4(0, (p) + 3 * (i).s6)), as_uint(vload4(0, (p) + 3 * (i).s7)))
#define HOG_CHANNEL(t, c) convert_int8(((t) >> (8 * (c))) & 0xffu)
#define HOG_LEVEL_KERNEL(NAME, CH)                                                             \
    KERNEL void NAME(GLOBAL const uchar *restrict src, uint sw, uint sh,                       \
                     GLOBAL const int *restrict jobs, GLOBAL const int *restrict rowjob,       \
                     uint rfirst, GLOBAL float *restrict level)                                \
    {                                                                                          \
        GLOBAL const int *rj = rowjob + 2 * (rfirst + get_group_id(1));                        \
        GLOBAL const int *job = jobs + rj[0] * HOG_JOB;                                        \
        uint px = 8 * get_global_id(0);                                                        \
        uint pw = HOG_PITCH((uint)job[J_GW] + 2), ph = (uint)job[J_GH] + 2;                    \
                                                                                               \
        if (px >= pw)                                                                          \
            return;                                                                            \
        GLOBAL const int *tab = jobs + job[J_TAB];                                             \
        uint py = (uint)rj[1];                                                                 \
        int8 xi = vload8(0, tab + px), ax = vload8(0, tab + pw + px);                          \
        int8 xj = xi + 1 < job[J_RW] ? xi + 1 : xi;                                            \
        int yi = tab[2 * pw + py], ay = tab[2 * pw + ph + py];                                 \
        int yj = yi + 1 < job[J_RH] ? yi + 1 : yi;                                             \
        GLOBAL const uchar *r0 = src + ((size_t)(job[J_RY] + yi) * sw + job[J_RX]) * CH;       \
        GLOBAL const uchar *r1 = src + ((size_t)(job[J_RY] + yj) * sw + job[J_RX]) * CH;       \
        GLOBAL float *out = level + ((size_t)job[J_PAD] + (size_t)py * pw) * CH + px;          \
                                                                                               \
        if (CH == 3 && (uint)(job[J_RY] + yj) + 1 < sh) {                                      \
            uint8 t00 = HOG_TAP3(r0, xi), t01 = HOG_TAP3(r0, xj);                              \
            uint8 t10 = HOG_TAP3(r1, xi), t11 = HOG_TAP3(r1, xj);                              \
                                                                                               \
            for (uint c = 0; c < CH; c++) {                                                    \
                int8 top = (256 - ax) * HOG_CHANNEL(t00, c) + ax * HOG_CHANNEL(t01, c);        \
                int8 bottom = (256 - ax) * HOG_CHANNEL(t10, c) + ax * HOG_CHANNEL(t11, c);     \
                int8 v = ((256 - ay) * top + ay * bottom + (1 << 15)) >> 16;                   \
                                                                                               \
                vstore8(HOG_GAMMA8(convert_float8(v)), 0, out + c * pw);                       \
            }                                                                                  \
            return;                                                                            \
        }                                                                                      \
        for (uint c = 0; c < CH; c++) {                                                        \
            int8 top = (256 - ax) * HOG_GATHER8(r0, xi, CH, c) + ax * HOG_GATHER8(r0, xj, CH, c); \
            int8 bottom =                                                                      \
                (256 - ax) * HOG_GATHER8(r1, xi, CH, c) + ax * HOG_GATHER8(r1, xj, CH, c);     \
            int8 v = ((256 - ay) * top + ay * bottom + (1 << 15)) >> 16;                       \
                                                                                               \
            vstore8(HOG_GAMMA8(convert_float8(v)), 0, out + c * pw);                           \
        }                                                                                      \
    }

HOG_LEVEL_KERNEL(hog_level_px1, 1)
HOG_LEVEL_KERNEL(hog_level_px3, 3)

/* hog_gradient_store's arithmetic for the chosen differences (bx, by) of one pixel (T float,
 * I int) or of 8 consecutive pixels (float8, int8): the magnitude MAG, the fraction FRAC of
 * the way to the upper bin and the lower bin H (wrapped into 0 .. HOG_NBINS - 1). */
#define HOG_GRADIENT_MATH(T, I, CONVERT_I, bx, by, MAG, FRAC, H)                               \
    T MAG = sqrt(bx * bx + by * by);                                                           \
    T FRAC, ax_ = fabs(bx), ay_ = fabs(by);                                                    \
    I wide_ = ax_ >= ay_, H;                                                                   \
    {                                                                                          \
        /* hog_atan_deg without branches: the same operations on the selected operands */     \
        T c = (wide_ ? ay_ : ax_) / ((wide_ ? ax_ : ay_) + HOG_EPS), c2 = c * c;               \
        T p = (((HOG_P7 * c2 + HOG_P5) * c2 + HOG_P3) * c2 + HOG_P1) * c;                      \
        T a = wide_ ? p : 90.f - p;                                                            \
        a = bx < 0 ? 180.f - a : a;                                                            \
        a = by < 0 ? 360.f - a : a;                                                            \
        FRAC = a * HOG_DEG2RAD;                                                                \
        FRAC = FRAC * HOG_ANGLE_SCALE - 0.5f;                                                  \
        T fl = floor(FRAC);                                                                    \
        H = CONVERT_I(fl);                                                                     \
        FRAC -= fl;                                                                            \
        H = H < 0 ? H + HOG_NBINS : H >= HOG_NBINS ? H - HOG_NBINS : H;                        \
        H = H < 0 ? 0 : H >= HOG_NBINS ? HOG_NBINS - 1 : H;                                    \
    }

#ifdef HOG_HARD
/* Hard binning (hog_gradient_store's): the whole magnitude to hog_hard_bin's bin. One pixel,
 * planar output. */
INLINE void
hog_gradient_planar(float bx, float by, size_t o, size_t npix, GLOBAL float *restrict grad,
                    GLOBAL uchar *restrict bins)
{
    grad[o] = sqrt(bx * bx + by * by);
    grad[npix + o] = 0.f;
    bins[o] = (uchar)hog_hard_bin(bx, by);
}

/* 8 consecutive pixels, one after the other (hog_hard_bin branches). */
INLINE void
hog_gradient_planar8(float8 bx, float8 by, size_t o, size_t npix, GLOBAL float *restrict grad,
                     GLOBAL uchar *restrict bins)
{
    float x[8], y[8];

    vstore8(bx, 0, x);
    vstore8(by, 0, y);
    for (uint l = 0; l < 8; l++)
        hog_gradient_planar(x[l], y[l], o + l, npix, grad, bins);
}
#else
/* One pixel, planar output. */
INLINE void
hog_gradient_planar(float bx, float by, size_t o, size_t npix, GLOBAL float *restrict grad,
                    GLOBAL uchar *restrict bins)
{
    HOG_GRADIENT_MATH(float, int, (int), bx, by, mag, angle, h)
    grad[o] = mag * (1.f - angle);
    grad[npix + o] = mag * angle;
    bins[o] = (uchar)h;
}

/* 8 consecutive pixels in vectors. */
INLINE void
hog_gradient_planar8(float8 bx, float8 by, size_t o, size_t npix, GLOBAL float *restrict grad,
                     GLOBAL uchar *restrict bins)
{
    HOG_GRADIENT_MATH(float8, int8, convert_int8, bx, by, mag, angle, h)
    vstore8(mag * (1.f - angle), 0, grad + o);
    vstore8(mag * angle, 0, grad + npix + o);
    vstore8(convert_uchar8(h), 0, bins + o);
}
#endif

/* Gray: 8 pixels a work-item in vectors (across work-items PoCL's vectoriser gives up on
 * this kernel, its two differences having been paired first); work-groups of
 * HOG_TILE / 8. */
KERNEL void
hog_gradient_px1(GLOBAL const float *restrict level, GLOBAL const int *restrict jobs,
                 GLOBAL const int *restrict rowjob, uint rfirst, uint npix,
                 GLOBAL float *restrict grad, GLOBAL uchar *restrict bins)
{
    GLOBAL const int *rj = rowjob + 2 * (rfirst + get_group_id(1));
    GLOBAL const int *job = jobs + rj[0] * HOG_JOB;
    uint x = 8 * get_global_id(0), gw = (uint)job[J_GW];

    if (x >= gw)
        return;
    uint y = (uint)rj[1], pw = HOG_PITCH(gw + 2);
    GLOBAL const float *mid = level + (size_t)job[J_PAD] + (size_t)(y + 1) * pw;
    GLOBAL const float *up = mid - pw, *down = mid + pw;

    hog_gradient_planar8(vload8(0, mid + x + 2) - vload8(0, mid + x),
                         vload8(0, down + x + 1) - vload8(0, up + x + 1),
                         (size_t)job[J_PIX] + (size_t)y * HOG_PITCH(gw) + x, npix, grad, bins);
}

KERNEL void
hog_gradient_px3(GLOBAL const float *restrict level, GLOBAL const int *restrict jobs,
                 GLOBAL const int *restrict rowjob, uint rfirst, uint npix,
                 GLOBAL float *restrict grad, GLOBAL uchar *restrict bins)
{
    GLOBAL const int *rj = rowjob + 2 * (rfirst + get_group_id(1));
    GLOBAL const int *job = jobs + rj[0] * HOG_JOB;
    uint x = get_global_id(0), gw = (uint)job[J_GW];

    if (get_group_id(0) * HOG_TILE >= gw)
        return;
    uint y = (uint)rj[1], pw = HOG_PITCH(gw + 2);
    /* planes R, G, B of the row */
    GLOBAL const float *m = level + ((size_t)job[J_PAD] + (size_t)(y + 1) * pw) * 3;
    GLOBAL const float *u = m - 3 * (size_t)pw, *d = m + 3 * (size_t)pw;
    float gx0 = m[x + 2] - m[x], gy0 = d[x + 1] - u[x + 1];
    float gx1 = m[pw + x + 2] - m[pw + x], gy1 = d[pw + x + 1] - u[pw + x + 1];
    float gx2 = m[2 * pw + x + 2] - m[2 * pw + x], gy2 = d[2 * pw + x + 1] - u[2 * pw + x + 1];
    float m0 = gx0 * gx0 + gy0 * gy0, m1 = gx1 * gx1 + gy1 * gy1, m2 = gx2 * gx2 + gy2 * gy2;
    /* votecl__hog_pick_channel: OpenCV's vector rule, its scalar rule in the last gw % 4 */
    int g1, b2;

    if (x >= (gw & ~3u)) {
        g1 = m0 < m1;
        b2 = (g1 ? m1 : m0) < m2;
    } else {
        b2 = !(fmax(m0, m1) > m2);
        g1 = !(m0 > m1);
    }
    float dx = b2 ? gx2 : g1 ? gx1 : gx0, dy = b2 ? gy2 : g1 ? gy1 : gy0;

    hog_gradient_planar(dx, dy, (size_t)job[J_PIX] + (size_t)y * HOG_PITCH(gw) + x, npix, grad,
                        bins);
}

#define HOG_RLEN (HOG_CELLS_X * HOG_NBINS)

/* One block column's partial histogram of one gradient row: hx[j * HOG_CELLS_X + cx] is the
 * weight of block column j in cell column cx. */
KERNEL void
hog_rowhist_rows(GLOBAL const float *restrict grad, GLOBAL const uchar *restrict bins,
                 GLOBAL const int *restrict jobs, GLOBAL const int *restrict rowjob,
                 uint rfirst, uint npix, GLOBAL const float *restrict hx,
                 GLOBAL float *restrict rh)
{
    GLOBAL const int *rj = rowjob + 2 * (rfirst + get_group_id(1));
    GLOBAL const int *job = jobs + rj[0] * HOG_JOB;
    uint bx = get_global_id(0);
    uint nbx = (uint)job[J_NBX];

    if (bx >= nbx)
        return;
    uint y = (uint)rj[1];
    size_t o = (size_t)job[J_PIX] + (size_t)y * HOG_PITCH((uint)job[J_GW]) + bx * HOG_GRID_X;
    GLOBAL const float *g0 = grad + o, *g1 = grad + npix + o;
    GLOBAL const uchar *q = bins + o;
    GLOBAL float *dst = rh + ((size_t)job[J_RB] + (size_t)y * nbx) * HOG_RLEN + bx;

#if HOG_NBINS <= 16
    /* each pixel's two votes as a 16-lane vector over the bins, added with fma into one
     * register histogram per cell column: no read-modify-writes through memory, where
     * neighbours that share a bin would chain */
    const int16 iota = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    float16 acc[HOG_CELLS_X];

    /* unrolled and without branches (a zero weight adds zero), so that acc stays in
     * registers */
#pragma unroll
    for (uint cx = 0; cx < HOG_CELLS_X; cx++)
        acc[cx] = (float16)(0.f);
    for (uint j = 0; j < HOG_BLOCK_W; j++) {
        int h0 = q[j], h1 = h0 + 1 < HOG_NBINS ? h0 + 1 : 0;
        float16 v = select((float16)(0.f), (float16)(g0[j]), iota == h0) +
                    select((float16)(0.f), (float16)(g1[j]), iota == h1);

#pragma unroll
        for (uint cx = 0; cx < HOG_CELLS_X; cx++)
            acc[cx] = fma((float16)(hx[j * HOG_CELLS_X + cx]), v, acc[cx]);
    }
    for (uint cx = 0; cx < HOG_CELLS_X; cx++) {
        float l[16];

        vstore16(acc[cx], 0, l);
        for (uint b = 0; b < HOG_NBINS; b++)
            dst[(size_t)(cx * HOG_NBINS + b) * nbx] = l[b];
    }
#else
    float acc[HOG_RLEN];

    for (uint k = 0; k < HOG_RLEN; k++)
        acc[k] = 0.f;
    for (uint j = 0; j < HOG_BLOCK_W; j++) {
        float a0 = g0[j], a1 = g1[j];
        uint h0 = q[j], h1 = h0 + 1 < HOG_NBINS ? h0 + 1 : 0;

        for (uint cx = 0; cx < HOG_CELLS_X; cx++) {
            float w = hx[j * HOG_CELLS_X + cx];

            if (w == 0.f)
                continue;
            acc[cx * HOG_NBINS + h0] += a0 * w;
            acc[cx * HOG_NBINS + h1] += a1 * w;
        }
    }
    for (uint k = 0; k < HOG_RLEN; k++)
        dst[(size_t)k * nbx] = acc[k];
#endif
}

/* Blocks bx .. bx + 7 of block row by: each the sum of its rows of R weighted by
 * hy[i * HOG_CELLS_Y + cy] (cell c = cx * HOG_CELLS_Y + cy as in hog.cl), then L2-Hys (or
 * HOG_NORM's), in
 * 8 lanes (lanes past the row read neighbouring values and are not stored; rh has room).
 * Written transposed to outt, and to out in hog.cl's layout when aos (descriptors). */
KERNEL void
hog_blocks_px(GLOBAL const float *restrict rh, GLOBAL const int *restrict jobs,
              GLOBAL const int *restrict rowjob, uint rfirst, GLOBAL const float *restrict hy,
              GLOBAL float *restrict out, GLOBAL float *restrict outt, uint aos)
{
    GLOBAL const int *rj = rowjob + 2 * (rfirst + get_group_id(1));
    GLOBAL const int *job = jobs + rj[0] * HOG_JOB;
    uint bx = 8 * get_global_id(0), nbx = (uint)job[J_NBX];

    if (bx >= nbx)
        return;
    uint by = (uint)rj[1];
    float8 hist[HOG_BLOCK_LEN];
    float8 sum = (float8)(0.f), scale;

    for (uint k = 0; k < HOG_BLOCK_LEN; k++)
        hist[k] = (float8)(0.f);
    for (uint i = 0; i < HOG_BLOCK_H; i++) {
        GLOBAL const float *ri =
            rh + ((size_t)job[J_RB] + (size_t)(by * HOG_GRID_Y + i) * nbx) * HOG_RLEN + bx;

        for (uint cy = 0; cy < HOG_CELLS_Y; cy++) {
            float w = hy[i * HOG_CELLS_Y + cy];

            if (w == 0.f)
                continue;
            for (uint cx = 0; cx < HOG_CELLS_X; cx++)
                for (uint b = 0; b < HOG_NBINS; b++) {
                    uint k = (cx * HOG_CELLS_Y + cy) * HOG_NBINS + b;

                    hist[k] += vload8(0, ri + (size_t)(cx * HOG_NBINS + b) * nbx) * w;
                }
        }
    }
#if HOG_NORM != 0
    for (uint k = 0; k < HOG_BLOCK_LEN; k++)
        sum += HOG_NORM_TERM(hist[k]);
    scale = HOG_NORM_DIV(sum);
#define HOG_BLOCK_OUT(k) HOG_NORMED(hist[k], scale)
#else
    for (uint k = 0; k < HOG_BLOCK_LEN; k++)
        sum += hist[k] * hist[k];
    scale = 1.f / (sqrt(sum) + (float)HOG_BLOCK_LEN * 0.1f);
    sum = (float8)(0.f);
    for (uint k = 0; k < HOG_BLOCK_LEN; k++) {
        float8 v = hist[k] * scale;
        hist[k] = v < HOG_L2HYS ? v : (float8)(HOG_L2HYS);
        sum += hist[k] * hist[k];
    }
    scale = 1.f / (sqrt(sum) + 1e-3f);
#define HOG_BLOCK_OUT(k) (hist[k] * scale)
#endif
    uint lanes = nbx - bx < 8 ? nbx - bx : 8;
    size_t b0 = (size_t)job[J_BLK] + (size_t)by * nbx + bx;
    GLOBAL float *dstt = outt + ((size_t)job[J_BLK] + (size_t)by * nbx) * HOG_BLOCK_LEN + bx;
    for (uint k = 0; k < HOG_BLOCK_LEN; k++) {
        float8 v = HOG_BLOCK_OUT(k);
        float l[8];

        if (lanes == 8 && !aos) {
            vstore8(v, 0, dstt + (size_t)k * nbx);
            continue;
        }
        vstore8(v, 0, l);
        for (uint j = 0; j < lanes; j++) {
            dstt[(size_t)k * nbx + j] = l[j];
            if (aos)
                out[(b0 + j) * HOG_BLOCK_LEN + k] = l[j];
        }
    }
}

/* Block column of window lane l of a group starting at window wx, block column j: windows
 * step HOG_WSTRIDE_X / HOG_GRID_X block columns. */
#define HOG_WSTEP (HOG_WSTRIDE_X / HOG_GRID_X)

/* Windows wx .. wx + 15 of window row wy: the reference's sums in its order, each product
 * added by fma (one rounding instead of two: the scores move by ulps, within the tested
 * margin, for half the instructions), lanes reading the transposed blocks (lanes past the
 * row read neighbouring values and are not stored; histt has room). Sixteen lanes share
 * each weight read. */
KERNEL void
hog_svm_px(GLOBAL const float *restrict histt, GLOBAL const int *restrict jobs,
           GLOBAL const int *restrict rowjob, uint rfirst, GLOBAL const float *restrict weights,
           float bias, GLOBAL float *restrict scores)
{
    GLOBAL const int *rj = rowjob + 2 * (rfirst + get_group_id(1));
    GLOBAL const int *job = jobs + rj[0] * HOG_JOB;
    uint wx = 16 * get_global_id(0);
    uint nwx = (uint)job[J_NWX], nbx = (uint)job[J_NBX];

    if (wx >= nwx)
        return;
    uint wy = (uint)rj[1];
    GLOBAL const float *h0 = histt + (size_t)job[J_BLK] * HOG_BLOCK_LEN;
    float16 s = (float16)(bias);

    for (uint j = 0; j < HOG_BLOCKS_X; j++) {
        for (uint i = 0; i < HOG_BLOCKS_Y; i++) {
            size_t gx = (wx * HOG_WSTRIDE_X + j * HOG_BSTRIDE_X) / HOG_GRID_X;
            size_t gy = (wy * HOG_WSTRIDE_Y + i * HOG_BSTRIDE_Y) / HOG_GRID_Y;
            GLOBAL const float *h = h0 + gy * HOG_BLOCK_LEN * nbx + gx;
            GLOBAL const float *w = weights + (j * HOG_BLOCKS_Y + i) * HOG_BLOCK_LEN;
            float16 d = (float16)(0.f);

            for (uint k = 0; k < HOG_BLOCK_LEN; k++, h += nbx) {
#if HOG_WSTEP == 1
                float16 v = vload16(0, h);
#else
                float t[16];

                for (uint l = 0; l < 16; l++)
                    t[l] = h[l * HOG_WSTEP];
                float16 v = vload16(0, t);
#endif
                d = fma((float16)(w[k]), v, d);
            }
            s += d;
        }
    }
    GLOBAL float *dst = scores + (size_t)job[J_WIN] + (size_t)wy * nwx + wx;
    if (wx + 16 <= nwx) {
        vstore16(s, 0, dst);
        return;
    }
    float v[16];
    vstore16(s, 0, v);
    for (uint l = 0; wx + l < nwx; l++)
        dst[l] = v[l];
}
