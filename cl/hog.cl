/* hog.cl: HOG descriptors and the linear SVM people detector (fastHOG, paper 003), stage for
 * stage lib/hog-ref.c (same float operations per pixel; FP_CONTRACT is off). Sums over a
 * block or a window are taken in another order than the reference's (margins: tests).
 *
 * Every pyramid level of every region is done by the same three launches: a job table
 * (HOG_JOB ints a job, see lib/hog-detector.h and lib/hog-jobs.c) gives each level its
 * region, size, resize tables and the offsets of its pixels, blocks and windows in the
 * shared buffers; a work-item (or work-group) finds its job by binary search over those
 * offsets.
 *   hog_gradient_all  global >= all gradient pixels (1-D): bilinear downscale through host
 *                  tables (index, 8-bit weight: INTER_LINEAR_EXACT), reflect-101 padding,
 *                  gamma table, centred differences, channel with the largest magnitude
 *                  (OpenCV's ties), OpenCV's polynomial atan, two weighted magnitudes and two
 *                  bins per pixel
 *   hog_blocks_all one work-group of HOG_LOCAL per block: per-work-item histograms in local
 *                  memory, trilinear weights from a host table (Gaussian times bilinear cell
 *                  weight), summed, then L2-Hys (or HOG_NORM's)
 *   hog_svm_all    one work-group of HOG_LOCAL per run of windows (a kernel argument), each
 *                  window's bias + weights . descriptor: HOG_SVM_WINS windows together (each
 *                  weight load and index step serving all), or (HOG_SVM_WINS 1) in turn; the
 *                  windows at or above the threshold counted (atomic_inc on hits[0], which
 *                  hog_gradient_all's first work-item zeroed) and the first HOG_HITS kept
 *                  after the count as (window, score bits) pairs, in no particular order
 * CPUs (local memory emulated; PoCL) take the kernels of hog-cpu.cl instead, composed after
 * this file.
 * Required defines: HOG_BLOCK_W, HOG_BLOCK_H, HOG_NCELLS, HOG_NBINS, HOG_BLOCK_LEN,
 * HOG_BLOCKS_X, HOG_BLOCKS_Y, HOG_BSTRIDE_X, HOG_BSTRIDE_Y, HOG_WSTRIDE_X, HOG_WSTRIDE_Y,
 * HOG_GRID_X, HOG_GRID_Y, HOG_L2HYS, HOG_ANGLE_SCALE, HOG_DEG2RAD, HOG_P1, HOG_P3, HOG_P5,
 * HOG_P7, HOG_EPS (float literals), HOG_LOCAL (a power of two), HOG_HITS. Optional:
 * HOG_NORM (the block norm: 0 L2-Hys, the default; 1 L1, 2 L1-sqrt, 3 L2, scikit-image's),
 * HOG_HARD (scikit-image's hard binning: one bin per pixel, the whole magnitude, through the
 * host's tables hog_bound_c, hog_bound_s and hog_tie_bin, composed before this file; the
 * block weights table then holds 1 / cell area for the pixel's own cell), HOG_SVM_WINS (a
 * power of two, default 1) and HOG_L2HYS_PASSES (1 or 2, the default), which change no
 * float, only how many windows a batch and how many barriers a block. Atomics: 32-bit
 * global atomic_inc (hog_svm_all's count). */

#ifndef HOG_NORM
#define HOG_NORM 0
#endif
/* scikit-image's norms (hog_normalise of the reference): the sum's term (L2-Hys' too), the
 * divisor from the sum, a normalised value (float or vector) */
#if HOG_NORM == 3 || HOG_NORM == 0
#define HOG_NORM_TERM(v) ((v) * (v))
#define HOG_NORM_DIV(sum) sqrt((sum) + 1e-10f)
#else
#define HOG_NORM_TERM(v) fabs(v)
#define HOG_NORM_DIV(sum) ((sum) + 1e-5f)
#endif
#if HOG_NORM == 2
#define HOG_NORMED(v, d) sqrt((v) / (d))
#else
#define HOG_NORMED(v, d) ((v) / (d))
#endif

/* The job table: HOG_JOB ints a job. */
#define HOG_JOB 22
#define J_RX 0     /* region x, y, width, height in the source */
#define J_RY 1
#define J_RW 2
#define J_RH 3
#define J_W 4      /* level width, height */
#define J_H 5
#define J_PX 6     /* padding */
#define J_PY 7
#define J_GW 8     /* gradient image */
#define J_GH 9
#define J_NBX 10   /* blocks */
#define J_NBY 11
#define J_NWX 12   /* windows */
#define J_NWY 13
#define J_TAB 14   /* resize tables: 2 w (index, alpha), then 2 h */
#define J_PIX 15   /* first gradient pixel */
#define J_BLK 16   /* first block */
#define J_WIN 17   /* first window */
#define J_PAD 18   /* first padded level pixel (hog-cpu.cl) */
#define J_ROW 19   /* first gradient row */
#define J_PROW 20  /* first padded level row */

/* The last job whose field f is <= v (fields f increase with the job). */
INLINE uint
hog_find_job(GLOBAL const int *jobs, uint njobs, uint f, uint v)
{
    uint lo = 0, hi = njobs - 1;

    while (lo < hi) {
        uint mid = (lo + hi + 1) / 2;

        if ((uint)jobs[mid * HOG_JOB + f] <= v)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

INLINE int
hog_reflect101(int p, int len)
{
    if (len <= 1)
        return 0;
    while (p < 0 || p >= len) {
        if (p < 0)
            p = -p;
        if (p >= len)
            p = 2 * len - 2 - p;
    }
    return p;
}

/* OpenCV's fastAtan2 polynomial, degrees in [0, 360) (votecl__hog_atan_deg). */
INLINE float
hog_atan_deg(float y, float x)
{
    float ax = fabs(x), ay = fabs(y), a, c, c2;

    if (ax >= ay) {
        c = ay / (ax + HOG_EPS);
        c2 = c * c;
        a = (((HOG_P7 * c2 + HOG_P5) * c2 + HOG_P3) * c2 + HOG_P1) * c;
    } else {
        c = ax / (ay + HOG_EPS);
        c2 = c * c;
        a = 90.f - (((HOG_P7 * c2 + HOG_P5) * c2 + HOG_P3) * c2 + HOG_P1) * c;
    }
    if (x < 0)
        a = 180.f - a;
    if (y < 0)
        a = 360.f - a;
    return a;
}

#ifdef HOG_HARD
/* scikit-image's orientation bin of (x, y) (votecl__hog_hard_bin, the same comparisons):
 * directions on an axis or a diagonal from the table, the others counted against the
 * boundaries after turning them into [0, pi). */
INLINE int
hog_hard_bin(float x, float y)
{
    int bin = 0;

    if (y == 0.f)
        return hog_tie_bin[0];
    if (x == 0.f)
        return hog_tie_bin[2];
    if (fabs(x) == fabs(y))
        return hog_tie_bin[(x > 0.f) == (y > 0.f) ? 1 : 3];
    if (y < 0.f) {
        x = -x;
        y = -y;
    }
    for (int k = 1; k < HOG_NBINS; k++)
        bin += y * hog_bound_c[k] >= x * hog_bound_s[k] ? 1 : 0;
    return bin;
}
#endif

/* One channel value of the padded level at (px, py): the level's pixel reflected, downscaled
 * from the region of the source (hog_resize then hog_pad of the reference). */
INLINE void
hog_fetch(GLOBAL const uchar *src, uint sw, GLOBAL const int *job, GLOBAL const int *tab,
          uint ch, int px, int py, GLOBAL const float *lut, float *v)
{
    int w = job[J_W], h = job[J_H];
    int sx = hog_reflect101(px - 1 - job[J_PX], w);
    int sy = hog_reflect101(py - 1 - job[J_PY], h);
    int xi = tab[sx], ax = tab[w + sx];
    int yi = tab[2 * w + sy], ay = tab[2 * w + h + sy];
    int xj = xi + 1 < job[J_RW] ? xi + 1 : xi, yj = yi + 1 < job[J_RH] ? yi + 1 : yi;
    GLOBAL const uchar *r0 = src + ((size_t)(job[J_RY] + yi) * sw + job[J_RX]) * ch;
    GLOBAL const uchar *r1 = src + ((size_t)(job[J_RY] + yj) * sw + job[J_RX]) * ch;

    for (uint c = 0; c < ch; c++) {
        int top = (256 - ax) * r0[xi * ch + c] + ax * r0[xj * ch + c];
        int bottom = (256 - ax) * r1[xi * ch + c] + ax * r1[xj * ch + c];

        v[c] = lut[(uchar)(((256 - ay) * top + ay * bottom + (1 << 15)) >> 16)];
    }
}

/* Stage 3 for gradient pixel o (x of a row of gw) from the lut'd neighbours: the channel
 * OpenCV takes (votecl__hog_pick_channel), two weighted magnitudes and two bins. */
INLINE void
hog_gradient_store(const float *xr, const float *xl, const float *yb, const float *yt, uint ch,
                   int x, uint gw, uint o, GLOBAL float *grad, GLOBAL uchar *bins)
{
    float gx[3], gy[3], m[3];
    uint best = 0;

    for (uint c = 0; c < ch; c++) {
        gx[c] = xr[c] - xl[c];
        gy[c] = yb[c] - yt[c];
        m[c] = gx[c] * gx[c] + gy[c] * gy[c];
    }
    if (ch == 3) /* OpenCV's vector rule; its scalar one in the last gw % 4 pixels */
        best = x >= (int)(gw & ~3u)
                   ? (m[0] < m[1] ? (m[1] < m[2] ? 2 : 1) : (m[0] < m[2] ? 2 : 0))
                   : fmax(m[0], m[1]) > m[2] ? (m[0] > m[1] ? 0 : 1) : 2;
    float bx = gx[best], by = gy[best];
    float mag = sqrt(bx * bx + by * by);
#ifdef HOG_HARD
    int h = hog_hard_bin(bx, by);

    grad[2 * (size_t)o] = mag;
    grad[2 * (size_t)o + 1] = 0.f;
#else
    float angle = hog_atan_deg(by, bx) * HOG_DEG2RAD;
    angle = angle * HOG_ANGLE_SCALE - 0.5f;
    int h = (int)floor(angle);
    angle -= (float)h;
    grad[2 * (size_t)o] = mag * (1.f - angle);
    grad[2 * (size_t)o + 1] = mag * angle;
    h = h < 0 ? h + HOG_NBINS : h >= HOG_NBINS ? h - HOG_NBINS : h;
    h = h < 0 ? 0 : h >= HOG_NBINS ? HOG_NBINS - 1 : h;
#endif
    bins[2 * (size_t)o] = (uchar)h;
    bins[2 * (size_t)o + 1] = (uchar)(h + 1 < HOG_NBINS ? h + 1 : 0);
}

KERNEL void
hog_gradient_all(GLOBAL const uchar *src, uint sw, uint ch, GLOBAL const int *jobs, uint njobs,
                 uint total, GLOBAL const int *tabs, GLOBAL const float *lut,
                 GLOBAL float *grad, GLOBAL uchar *bins, GLOBAL uint *hits)
{
    uint o = get_global_id(0);

    if (o == 0) /* hog_svm_all's count, launched after this kernel (in order) */
        hits[0] = 0;
    if (o >= total)
        return;
    GLOBAL const int *job = jobs + hog_find_job(jobs, njobs, J_PIX, o) * HOG_JOB;
    GLOBAL const int *tab = tabs + job[J_TAB];
    uint gw = (uint)job[J_GW], r = o - (uint)job[J_PIX];
    int x = (int)(r % gw), y = (int)(r / gw);
    float xr[3], xl[3], yb[3], yt[3];

    hog_fetch(src, sw, job, tab, ch, x + 2, y + 1, lut, xr);
    hog_fetch(src, sw, job, tab, ch, x, y + 1, lut, xl);
    hog_fetch(src, sw, job, tab, ch, x + 1, y + 2, lut, yb);
    hog_fetch(src, sw, job, tab, ch, x + 1, y, lut, yt);
    hog_gradient_store(xr, xl, yb, yt, ch, x, gw, o, grad, bins);
}

/* Sums v[0 .. HOG_LOCAL) of every work-item into v[0]. */
INLINE void
hog_reduce(LOCAL_PTR float *v, uint lid)
{
    for (uint n = HOG_LOCAL / 2; n > 0; n /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < n)
            v[lid] += v[lid + n];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* A lane's pixels are read HOG_BLOCK_CHUNK at a time before any is added: their global reads
 * overlap instead of each waiting for the one before. */
#define HOG_BLOCK_PIX (HOG_BLOCK_W * HOG_BLOCK_H)
#define HOG_BLOCK_CHUNK 4

/* Pixel p's two weighted magnitudes added to the lane's column of part, cell by cell (its
 * cell weights read together first). */
INLINE void
hog_block_pixel(LOCAL_PTR float *part, GLOBAL const float *weights, uint p, float a0, float a1,
                uint h0, uint h1, uint lid)
{
    float w[HOG_NCELLS];

    for (uint c = 0; c < HOG_NCELLS; c++)
        w[c] = weights[p * HOG_NCELLS + c];
    for (uint c = 0; c < HOG_NCELLS; c++) {
        if (w[c] == 0.f)
            continue;
        part[(c * HOG_NBINS + h0) * (HOG_LOCAL + 1) + lid] += a0 * w[c];
        part[(c * HOG_NBINS + h1) * (HOG_LOCAL + 1) + lid] += a1 * w[c];
    }
}

#ifndef HOG_L2HYS_PASSES
#define HOG_L2HYS_PASSES 2
#endif
/* Sums sq[0 .. HOG_BLOCK_LEN) in order (lane 0's serial work: a load and an add a term). */
INLINE float
hog_sum_terms(LOCAL_PTR const float *sq)
{
    float sum = 0;

#pragma unroll 4
    for (int i = 0; i < HOG_BLOCK_LEN; i++)
        sum += sq[i];
    return sum;
}

/* L2-Hys (hog_normalise of the reference) of the block's hist into dst: scaled by
 * 1 / (|hist| + 0.1 len), clipped at HOG_L2HYS, scaled by 1 / (|clipped| + 1e-3), each norm's
 * squares summed in order by lane 0 (sq: the first sum's terms, the lanes' squares of their
 * sums). HOG_L2HYS_PASSES 2: the clipped values and their squares stored by all lanes, lane
 * 0 summing each sum's terms (5 barriers in the kernel); 1: lane 0 recomputes the clipped
 * values for the second sum as the lanes do for their writes (the same operations), no pass
 * storing them (3 barriers, lane 0's serial work 7 operations a term instead of 4). */
INLINE void
hog_l2hys(LOCAL_PTR float *hist, LOCAL_PTR float *sq, LOCAL_PTR float *scale, GLOBAL float *dst,
          uint lid)
{
#if HOG_L2HYS_PASSES == 1
    if (lid == 0) {
        float sum2 = 0, s1 = 1.f / (sqrt(hog_sum_terms(sq)) + (float)HOG_BLOCK_LEN * 0.1f);

#pragma unroll 4
        for (int i = 0; i < HOG_BLOCK_LEN; i++) {
            float v = hist[i] * s1;

            v = v < HOG_L2HYS ? v : HOG_L2HYS;
            sum2 += v * v;
        }
        scale[0] = s1;
        scale[1] = 1.f / (sqrt(sum2) + 1e-3f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < HOG_BLOCK_LEN; k += HOG_LOCAL) {
        float v = hist[k] * scale[0];

        v = v < HOG_L2HYS ? v : HOG_L2HYS;
        dst[k] = v * scale[1];
    }
#else
    if (lid == 0)
        scale[0] = 1.f / (sqrt(hog_sum_terms(sq)) + (float)HOG_BLOCK_LEN * 0.1f);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < HOG_BLOCK_LEN; k += HOG_LOCAL) {
        float v = hist[k] * scale[0];

        v = v < HOG_L2HYS ? v : HOG_L2HYS;
        hist[k] = v;
        sq[k] = v * v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        scale[1] = 1.f / (sqrt(hog_sum_terms(sq)) + 1e-3f);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < HOG_BLOCK_LEN; k += HOG_LOCAL)
        dst[k] = hist[k] * scale[1];
#endif
}

KERNEL void
hog_blocks_all(GLOBAL const float *grad, GLOBAL const uchar *bins, GLOBAL const int *jobs,
               uint njobs, GLOBAL const float *weights, GLOBAL float *out)
{
    /* column lid of the work-item's histogram, rows padded to HOG_LOCAL + 1 (no bank conflicts) */
    LOCAL float part[HOG_BLOCK_LEN * (HOG_LOCAL + 1)];
    LOCAL float hist[HOG_BLOCK_LEN];
    LOCAL float sq[HOG_BLOCK_LEN];
    LOCAL float scale[2];
    uint b = get_group_id(0), lid = get_local_id(0);
    GLOBAL const int *job = jobs + hog_find_job(jobs, njobs, J_BLK, b) * HOG_JOB;
    uint r = b - (uint)job[J_BLK], nbx = (uint)job[J_NBX], gw = (uint)job[J_GW];
    uint ox = (r % nbx) * HOG_GRID_X, oy = (r / nbx) * HOG_GRID_Y;
    size_t base = (size_t)job[J_PIX];

    for (uint k = 0; k < HOG_BLOCK_LEN; k++)
        part[k * (HOG_LOCAL + 1) + lid] = 0.f;
    /* the lane's pixels p = lid, lid + HOG_LOCAL, ... added in that order, as before */
    for (uint p0 = lid; p0 < HOG_BLOCK_PIX; p0 += HOG_BLOCK_CHUNK * HOG_LOCAL) {
        float a0[HOG_BLOCK_CHUNK], a1[HOG_BLOCK_CHUNK];
        uint h0[HOG_BLOCK_CHUNK], h1[HOG_BLOCK_CHUNK];

#pragma unroll
        for (uint q = 0; q < HOG_BLOCK_CHUNK; q++) {
            uint p = p0 + q * HOG_LOCAL, i = p / HOG_BLOCK_W, j = p % HOG_BLOCK_W;
            size_t o = base + (size_t)(oy + i) * gw + ox + j;

            a0[q] = a1[q] = 0.f;
            h0[q] = h1[q] = 0;
            if (p < HOG_BLOCK_PIX) {
                a0[q] = grad[2 * o];
                a1[q] = grad[2 * o + 1];
                h0[q] = bins[2 * o];
                h1[q] = bins[2 * o + 1];
            }
        }
#pragma unroll
        for (uint q = 0; q < HOG_BLOCK_CHUNK; q++)
            if (p0 + q * HOG_LOCAL < HOG_BLOCK_PIX)
                hog_block_pixel(part, weights, p0 + q * HOG_LOCAL, a0[q], a1[q], h0[q], h1[q], lid);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < HOG_BLOCK_LEN; k += HOG_LOCAL) {
        LOCAL_PTR const float *row = part + k * (HOG_LOCAL + 1);
        float s = 0.f;

        for (uint t = 0; t < HOG_LOCAL; t++)
            s += row[t];
        hist[k] = s;
        sq[k] = HOG_NORM_TERM(s); /* the norm's terms, in parallel */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if HOG_NORM != 0
    if (lid == 0)
        scale[0] = HOG_NORM_DIV(hog_sum_terms(sq));
    barrier(CLK_LOCAL_MEM_FENCE);
    GLOBAL float *dst = out + (size_t)b * HOG_BLOCK_LEN;
    for (uint k = lid; k < HOG_BLOCK_LEN; k += HOG_LOCAL)
        dst[k] = HOG_NORMED(hist[k], scale[0]);
#else
    hog_l2hys(hist, sq, scale, out + (size_t)b * HOG_BLOCK_LEN, lid);
#endif
}

#define HOG_DESC_LEN (HOG_BLOCKS_X * HOG_BLOCKS_Y * HOG_BLOCK_LEN)

/* Window win's score v stored, and kept in hits when it reaches the threshold. */
INLINE void
hog_score_store(uint win, float v, float threshold, GLOBAL float *scores, GLOBAL uint *hits)
{
    scores[win] = v;
    if (v >= threshold) {
        uint n = atomic_inc(hits);

        if (n < HOG_HITS) {
            hits[1 + 2 * n] = win;
            hits[2 + 2 * n] = as_uint(v);
        }
    }
}

/* The walk from descriptor element k to k + HOG_LOCAL: element e of block (j, i) = (b /
 * HOG_BLOCKS_Y, b % HOG_BLOCKS_Y), b = k / len, without dividing (the division's ALU work was
 * most of the SVM's loop). */
INLINE void
hog_svm_step(uint *e, uint *i, uint *j)
{
    *e += HOG_LOCAL % HOG_BLOCK_LEN;
    *i += HOG_LOCAL / HOG_BLOCK_LEN;
    if (*e >= HOG_BLOCK_LEN) {
        *e -= HOG_BLOCK_LEN;
        (*i)++;
    }
#if HOG_LOCAL / HOG_BLOCK_LEN < HOG_BLOCKS_Y /* i < 2 HOG_BLOCKS_Y: one wrap at most */
    if (*i >= HOG_BLOCKS_Y) {
        *i -= HOG_BLOCKS_Y;
        (*j)++;
    }
#else
    *j += *i / HOG_BLOCKS_Y;
    *i %= HOG_BLOCKS_Y;
#endif
}

/* Window win's first block (the grid is the strides' gcd, so the window's first block and a
 * block's offset in it are whole grid steps), *rows, the floats from one of its block rows to
 * the next, and *left, the windows of its row from it to the row's end. */
INLINE GLOBAL const float *
hog_svm_first(GLOBAL const float *hist, GLOBAL const int *jobs, uint njobs, uint win, uint *rows,
              uint *left)
{
    GLOBAL const int *job = jobs + hog_find_job(jobs, njobs, J_WIN, win) * HOG_JOB;
    uint r = win - (uint)job[J_WIN], nwx = (uint)job[J_NWX], nbx = (uint)job[J_NBX];
    uint wx = r % nwx, wy = r / nwx;

    *left = nwx - wx;
    *rows = (HOG_BSTRIDE_Y / HOG_GRID_Y) * nbx * HOG_BLOCK_LEN;
    return hist + ((size_t)job[J_BLK] + (size_t)wy * (HOG_WSTRIDE_Y / HOG_GRID_Y) * nbx +
                   wx * (HOG_WSTRIDE_X / HOG_GRID_X)) *
                      HOG_BLOCK_LEN;
}

/* Floats from a block column to the next in a window. */
#define HOG_SVM_COL (HOG_BSTRIDE_X / HOG_GRID_X * HOG_BLOCK_LEN)

/* Window win's score: bias + weights . descriptor, the descriptor's elements summed by lane
 * (lid, lid + HOG_LOCAL, ...), then over the lanes (hog_reduce); lid 0 stores it. */
INLINE void
hog_svm_window(GLOBAL const float *hist, GLOBAL const int *jobs, uint njobs,
               GLOBAL const float *weights, float bias, float threshold, GLOBAL float *scores,
               GLOBAL uint *hits, uint win, uint lid, LOCAL_PTR float *part)
{
    float s = 0.f;

#if HOG_LOCAL == 1
    GLOBAL const int *job = jobs + hog_find_job(jobs, njobs, J_WIN, win) * HOG_JOB;
    uint r = win - (uint)job[J_WIN], nwx = (uint)job[J_NWX], nbx = (uint)job[J_NBX];
    uint wx = r % nwx, wy = r / nwx;
    GLOBAL const float *h0 = hist + (size_t)job[J_BLK] * HOG_BLOCK_LEN;

    (void)lid;
    (void)part;
    for (uint j = 0; j < HOG_BLOCKS_X; j++) {
        for (uint i = 0; i < HOG_BLOCKS_Y; i++) {
            size_t gx = (wx * HOG_WSTRIDE_X + j * HOG_BSTRIDE_X) / HOG_GRID_X;
            size_t gy = (wy * HOG_WSTRIDE_Y + i * HOG_BSTRIDE_Y) / HOG_GRID_Y;
            GLOBAL const float *h = h0 + (gy * nbx + gx) * HOG_BLOCK_LEN;
            GLOBAL const float *w = weights + (j * HOG_BLOCKS_Y + i) * HOG_BLOCK_LEN;
            float d = 0;

            for (int k = 0; k < HOG_BLOCK_LEN; k++)
                d += w[k] * h[k];
            s += d;
        }
    }
    hog_score_store(win, bias + s, threshold, scores, hits);
#else
    uint rows, left;
    GLOBAL const float *h = hog_svm_first(hist, jobs, njobs, win, &rows, &left);
    uint b = lid / HOG_BLOCK_LEN, e = lid % HOG_BLOCK_LEN;
    uint j = b / HOG_BLOCKS_Y, i = b % HOG_BLOCKS_Y;

    /* two elements an iteration: NVRTC's sm_90 code keeps 30 registers (four: 42, fewer
     * work-groups a compute unit) */
#pragma unroll 2
    for (uint k = lid; k < HOG_DESC_LEN; k += HOG_LOCAL) {
        s += weights[k] * h[i * rows + j * HOG_SVM_COL + e];
        hog_svm_step(&e, &i, &j);
    }
    part[lid] = s;
    hog_reduce(part, lid);
    if (lid == 0)
        hog_score_store(win, bias + part[0], threshold, scores, hits);
#endif
}

#if HOG_SVM_WINS > 1 && HOG_LOCAL > 1
#if (HOG_SVM_WINS & (HOG_SVM_WINS - 1)) != 0
#error "HOG_SVM_WINS must be a power of two (the lanes' tree in two stages)"
#endif
/* HOG_SVM_W windows a batch (at most HOG_LOCAL, so that the reduction's first stage has a
 * lane a window and element) */
#define HOG_SVM_W (HOG_SVM_WINS < HOG_LOCAL ? HOG_SVM_WINS : HOG_LOCAL)
#define HOG_SVM_Q (HOG_LOCAL / HOG_SVM_W) /* the second stage's values a window */

/* Sums v[0 .. HOG_SVM_W) in hog_reduce's order over them: v[c] += v[c + n], n halving. */
INLINE float
hog_svm_tree(float *v, uint len)
{
    for (uint n = len / 2; n > 0; n /= 2)
        for (uint c = 0; c < n; c++)
            v[c] += v[c + n];
    return v[0];
}

/* Windows win .. win + HOG_SVM_W - 1 scored together, each exactly as hog_svm_window scores
 * it (the same products summed in the same order by each lane, then hog_reduce's tree), but
 * each weight and each step of the element walk serves every window of the batch, and the
 * windows' hist loads, independent, overlap. Windows past nwin are computed on the last
 * window and not stored (the work-group's barriers stay uniform). The tree over the lanes in
 * two stages, a barrier each: lane lid sums window lid / HOG_SVM_Q's values
 * lid % HOG_SVM_Q + c HOG_SVM_Q (c < HOG_SVM_W), the tree's first log2 HOG_SVM_W levels;
 * lane r < HOG_SVM_W then window r's HOG_SVM_Q results, its last levels. part: HOG_SVM_W
 * rows of HOG_LOCAL + 1 floats. */
INLINE void
hog_svm_batch(GLOBAL const float *hist, GLOBAL const int *jobs, uint njobs,
              GLOBAL const float *weights, float bias, float threshold, GLOBAL float *scores,
              GLOBAL uint *hits, uint win, uint nwin, uint lid, LOCAL_PTR float *part)
{
    GLOBAL const float *h[HOG_SVM_W];
    uint rows[HOG_SVM_W], left;
    float s[HOG_SVM_W];
    uint b = lid / HOG_BLOCK_LEN, e = lid % HOG_BLOCK_LEN;
    uint j = b / HOG_BLOCKS_Y, i = b % HOG_BLOCKS_Y;

    for (uint r = 0; r < HOG_SVM_W; r++)
        s[r] = 0.f;
    h[0] = hog_svm_first(hist, jobs, njobs, win, &rows[0], &left);
    if (win + HOG_SVM_W <= nwin && left >= HOG_SVM_W) {
        /* one row of one job (the usual batch): the windows a constant step apart, one job
         * search; not unrolled (the windows' loads are the overlap; NVRTC's sm_90 code at 8
         * windows: 58 registers, unrolled by 2: 66) */
#pragma unroll 1
        for (uint k = lid; k < HOG_DESC_LEN; k += HOG_LOCAL) {
            float w = weights[k];
            GLOBAL const float *p = h[0] + i * rows[0] + j * HOG_SVM_COL + e;

            for (uint r = 0; r < HOG_SVM_W; r++)
                s[r] += w * p[r * (HOG_WSTRIDE_X / HOG_GRID_X) * HOG_BLOCK_LEN];
            hog_svm_step(&e, &i, &j);
        }
    } else {
        for (uint r = 1; r < HOG_SVM_W; r++)
            h[r] = hog_svm_first(hist, jobs, njobs, win + r < nwin ? win + r : nwin - 1, &rows[r],
                                 &left);
#pragma unroll 1
        for (uint k = lid; k < HOG_DESC_LEN; k += HOG_LOCAL) {
            float w = weights[k];

            for (uint r = 0; r < HOG_SVM_W; r++)
                s[r] += w * h[r][i * rows[r] + j * HOG_SVM_COL + e];
            hog_svm_step(&e, &i, &j);
        }
    }
    for (uint r = 0; r < HOG_SVM_W; r++)
        part[r * (HOG_LOCAL + 1) + lid] = s[r];
    barrier(CLK_LOCAL_MEM_FENCE);
    {
        uint r = lid / HOG_SVM_Q, q = lid % HOG_SVM_Q;
        LOCAL_PTR float *row = part + r * (HOG_LOCAL + 1);
        float v[HOG_SVM_W];

        for (uint c = 0; c < HOG_SVM_W; c++)
            v[c] = row[q + c * HOG_SVM_Q];
        /* only this lane reads row[q]: no barrier before the write */
        row[q] = hog_svm_tree(v, HOG_SVM_W);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < HOG_SVM_W && win + lid < nwin) {
        LOCAL_PTR const float *row = part + lid * (HOG_LOCAL + 1);
        float v[HOG_SVM_Q];

        for (uint q = 0; q < HOG_SVM_Q; q++)
            v[q] = row[q];
        hog_score_store(win + lid, bias + hog_svm_tree(v, HOG_SVM_Q), threshold, scores, hits);
    }
}

/* A work-group scores run windows (a multiple of HOG_SVM_W but the last group's), a batch at
 * a time (hog_svm_batch). */
KERNEL void
hog_svm_all(GLOBAL const float *hist, GLOBAL const int *jobs, uint njobs,
            GLOBAL const float *weights, float bias, float threshold, GLOBAL float *scores,
            GLOBAL uint *hits, uint nwin, uint run)
{
    LOCAL float part[HOG_SVM_W * (HOG_LOCAL + 1)];
    uint lid = get_local_id(0);

    for (uint t = 0; t < run; t += HOG_SVM_W) {
        uint win = get_group_id(0) * run + t;

        if (win >= nwin)
            break;
        if (t > 0) /* the last batch's second stage has read part */
            barrier(CLK_LOCAL_MEM_FENCE);
        hog_svm_batch(hist, jobs, njobs, weights, bias, threshold, scores, hits, win, nwin, lid,
                      part);
    }
}
#else
/* A work-group scores run windows one after the other (the next along a row shares most of
 * its blocks and all weights, read again from the compute unit's cache); a window past nwin
 * ends the run for the whole work-group (barriers stay uniform). */
KERNEL void
hog_svm_all(GLOBAL const float *hist, GLOBAL const int *jobs, uint njobs,
            GLOBAL const float *weights, float bias, float threshold, GLOBAL float *scores,
            GLOBAL uint *hits, uint nwin, uint run)
{
    LOCAL float part[HOG_LOCAL];
    uint lid = get_local_id(0);

    for (uint t = 0; t < run; t++) {
        uint win = get_group_id(0) * run + t;

        if (win >= nwin)
            break;
        hog_svm_window(hist, jobs, njobs, weights, bias, threshold, scores, hits, win, lid, part);
    }
}
#endif
