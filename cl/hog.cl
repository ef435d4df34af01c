/* hog.cl: HOG descriptors and the linear SVM people detector (fastHOG, paper 003), stage for
 * stage lib/hog-ref.c (same float operations in the same order; FP_CONTRACT is off).
 *
 * Kernels, launched once per pyramid level in this order (local sizes given by the host):
 *   hog_resize     global >= (dw, dh), 2-D: bilinear downscale of a region of the packed
 *                  source image through host tables (index, 11-bit weight) per column and row
 *   hog_pad        global >= (gw + 2, gh + 2): the level mirrored (reflect-101) around it
 *   hog_gradient   global >= (gw, gh): gamma table, centred differences, channel with the
 *                  largest magnitude (first on ties), OpenCV's polynomial atan, two weighted magnitudes and
 *                  two bins per pixel
 *   hog_blocks     global >= (nbx, nby): one work-item per block of the grid, its histogram
 *                  in private memory (HOG_BLOCK_LEN floats), trilinear weights from a host
 *                  table (Gaussian times bilinear cell weight)
 *   hog_normalise  global >= blocks: L2-Hys in place
 *   hog_svm        global >= (nwx, nwy): bias + weights . descriptor of one window
 * Required defines: HOG_BLOCK_W, HOG_BLOCK_H, HOG_NCELLS, HOG_NBINS, HOG_BLOCK_LEN,
 * HOG_BLOCKS_X, HOG_BLOCKS_Y, HOG_BSTRIDE_X, HOG_BSTRIDE_Y, HOG_WSTRIDE_X, HOG_WSTRIDE_Y,
 * HOG_GRID_X, HOG_GRID_Y, HOG_L2HYS, HOG_ANGLE_SCALE, HOG_DEG2RAD, HOG_P1, HOG_P3, HOG_P5,
 * HOG_P7, HOG_EPS (float literals). No atomics. */

KERNEL void
hog_resize(GLOBAL const uchar *src, uint sw, uint ch, uint x0, uint y0, uint sx_len,
           uint sy_len, GLOBAL const int *tab, uint xtab, uint ytab, GLOBAL uchar *dst,
           uint dw, uint dh)
{
    uint x = get_global_id(0), y = get_global_id(1);

    if (x >= dw || y >= dh)
        return;
    int xi = tab[xtab + x], ax = tab[xtab + dw + x];
    int yi = tab[ytab + y], ay = tab[ytab + dh + y];
    int xj = xi + 1 < (int)sx_len ? xi + 1 : xi, yj = yi + 1 < (int)sy_len ? yi + 1 : yi;
    GLOBAL const uchar *r0 = src + ((size_t)(y0 + yi) * sw + x0) * ch;
    GLOBAL const uchar *r1 = src + ((size_t)(y0 + yj) * sw + x0) * ch;

    for (uint c = 0; c < ch; c++) {
        int top = (2048 - ax) * r0[xi * ch + c] + ax * r0[xj * ch + c];
        int bottom = (2048 - ax) * r1[xi * ch + c] + ax * r1[xj * ch + c];

        dst[((size_t)y * dw + x) * ch + c] =
            (uchar)(((2048 - ay) * top + ay * bottom + (1 << 21)) >> 22);
    }
}

inline int
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

KERNEL void
hog_pad(GLOBAL const uchar *src, uint w, uint h, uint ch, uint pad_x, uint pad_y,
        GLOBAL uchar *dst, uint pw, uint ph)
{
    uint x = get_global_id(0), y = get_global_id(1);

    if (x >= pw || y >= ph)
        return;
    int sx = hog_reflect101((int)x - 1 - (int)pad_x, (int)w);
    int sy = hog_reflect101((int)y - 1 - (int)pad_y, (int)h);

    for (uint c = 0; c < ch; c++)
        dst[((size_t)y * pw + x) * ch + c] = src[((size_t)sy * w + sx) * ch + c];
}

/* OpenCV's fastAtan2 polynomial, degrees in [0, 360) (votecl__hog_atan_deg). */
inline float
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

KERNEL void
hog_gradient(GLOBAL const uchar *p, uint gw, uint gh, uint ch, GLOBAL const float *lut,
             GLOBAL float *grad, GLOBAL uchar *bins)
{
    uint x = get_global_id(0), y = get_global_id(1), pw = gw + 2;

    if (x >= gw || y >= gh)
        return;
    float bx = 0, by = 0, best = -1;

    for (uint c = 0; c < ch; c++) {
        float gx = lut[p[((size_t)(y + 1) * pw + x + 2) * ch + c]] -
                   lut[p[((size_t)(y + 1) * pw + x) * ch + c]];
        float gy = lut[p[((size_t)(y + 2) * pw + x + 1) * ch + c]] -
                   lut[p[((size_t)y * pw + x + 1) * ch + c]];
        float m = gx * gx + gy * gy;

        if (best < m) {
            bx = gx;
            by = gy;
            best = m;
        }
    }
    float mag = sqrt(bx * bx + by * by);
    float angle = hog_atan_deg(by, bx) * HOG_DEG2RAD;
    angle = angle * HOG_ANGLE_SCALE - 0.5f;
    int h = (int)floor(angle);
    angle -= (float)h;
    size_t o = (size_t)y * gw + x;
    grad[2 * o] = mag * (1.f - angle);
    grad[2 * o + 1] = mag * angle;
    h = h < 0 ? h + HOG_NBINS : h >= HOG_NBINS ? h - HOG_NBINS : h;
    h = h < 0 ? 0 : h >= HOG_NBINS ? HOG_NBINS - 1 : h;
    bins[2 * o] = (uchar)h;
    bins[2 * o + 1] = (uchar)(h + 1 < HOG_NBINS ? h + 1 : 0);
}

KERNEL void
hog_blocks(GLOBAL const float *grad, GLOBAL const uchar *bins, uint gw, uint nbx, uint nby,
           GLOBAL const float *weights, GLOBAL float *out)
{
    uint bx = get_global_id(0), by = get_global_id(1);

    if (bx >= nbx || by >= nby)
        return;
    float hist[HOG_BLOCK_LEN];
    uint ox = bx * HOG_GRID_X, oy = by * HOG_GRID_Y;

    for (int k = 0; k < HOG_BLOCK_LEN; k++)
        hist[k] = 0.f;
    for (uint i = 0; i < HOG_BLOCK_H; i++) {
        for (uint j = 0; j < HOG_BLOCK_W; j++) {
            size_t o = (size_t)(oy + i) * gw + ox + j;
            GLOBAL const float *w = weights + (i * HOG_BLOCK_W + j) * HOG_NCELLS;
            float a0 = grad[2 * o], a1 = grad[2 * o + 1];
            uint h0 = bins[2 * o], h1 = bins[2 * o + 1];

            for (uint c = 0; c < HOG_NCELLS; c++) {
                float wc = w[c];
                if (wc == 0.f)
                    continue;
                hist[c * HOG_NBINS + h0] += a0 * wc;
                hist[c * HOG_NBINS + h1] += a1 * wc;
            }
        }
    }
    GLOBAL float *dst = out + ((size_t)by * nbx + bx) * HOG_BLOCK_LEN;
    for (int k = 0; k < HOG_BLOCK_LEN; k++)
        dst[k] = hist[k];
}

KERNEL void
hog_normalise(GLOBAL float *hist, uint n)
{
    uint b = get_global_id(0);

    if (b >= n)
        return;
    GLOBAL float *h = hist + (size_t)b * HOG_BLOCK_LEN;
    float sum = 0, scale;

    for (int i = 0; i < HOG_BLOCK_LEN; i++)
        sum += h[i] * h[i];
    scale = 1.f / (sqrt(sum) + (float)HOG_BLOCK_LEN * 0.1f);
    sum = 0;
    for (int i = 0; i < HOG_BLOCK_LEN; i++) {
        float v = h[i] * scale;
        v = v < HOG_L2HYS ? v : HOG_L2HYS;
        h[i] = v;
        sum += v * v;
    }
    scale = 1.f / (sqrt(sum) + 1e-3f);
    for (int i = 0; i < HOG_BLOCK_LEN; i++)
        h[i] *= scale;
}

KERNEL void
hog_svm(GLOBAL const float *hist, uint nbx, uint nwx, uint nwy, GLOBAL const float *weights,
        float bias, GLOBAL float *scores, uint offset)
{
    uint wx = get_global_id(0), wy = get_global_id(1);

    if (wx >= nwx || wy >= nwy)
        return;
    float s = bias;

    for (uint j = 0; j < HOG_BLOCKS_X; j++) {
        for (uint i = 0; i < HOG_BLOCKS_Y; i++) {
            size_t gx = (wx * HOG_WSTRIDE_X + j * HOG_BSTRIDE_X) / HOG_GRID_X;
            size_t gy = (wy * HOG_WSTRIDE_Y + i * HOG_BSTRIDE_Y) / HOG_GRID_Y;
            GLOBAL const float *h = hist + (gy * nbx + gx) * HOG_BLOCK_LEN;
            GLOBAL const float *w = weights + (j * HOG_BLOCKS_Y + i) * HOG_BLOCK_LEN;
            float d = 0;

            for (int k = 0; k < HOG_BLOCK_LEN; k++)
                d += w[k] * h[k];
            s += d;
        }
    }
    scores[offset + (size_t)wy * nwx + wx] = s;
}
