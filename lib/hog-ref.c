/* HOG's sequential reference, stage by stage: the specification cl/hog.cl follows, the
 * 'ref' backend and the tests' oracle. The float operations and their order match OpenCV's
 * HOGDescriptor (modules/objdetect/src/hog.cpp) so that descriptors agree within rounding. */
#include "hog-private.h"

#include <float.h>
#include <math.h>
#include <string.h>

void
votecl__hog_gamma_table(int gamma, float lut[256])
{
    for (int i = 0; i < 256; i++)
        lut[i] = gamma ? sqrtf((float)i) : (float)i;
}

void
votecl__hog_ref_convert(const uint8_t *src, size_t row_bytes, uint32_t width, uint32_t height,
                        unsigned channels, int colour, uint8_t *dst)
{
    unsigned out = channels >= 3 && colour ? 3 : 1;

    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = src + (size_t)y * row_bytes;
        uint8_t *o = dst + (size_t)y * width * out;

        if (channels == out) { /* 1 or 3 channels kept: the row as it is */
            memcpy(o, row, (size_t)width * out);
            continue;
        }
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *p = row + (size_t)x * channels;

            if (channels < 3)
                o[x] = p[0];
            else if (out == 1) /* OpenCV's RGB2GRAY: 14-bit fixed point */
                o[x] = (uint8_t)((p[0] * 4899 + p[1] * 9617 + p[2] * 1868 + 8192) >> 14);
            else
                memcpy(o + 3 * (size_t)x, p, 3);
        }
    }
}

/* One output value: rows y0, y1 of weights (256 - ay, ay), columns x0, x1 likewise; the
 * rows are exact 16-bit values, their blend rounded half up from 16 fraction bits. */
static uint8_t
bilinear(const uint8_t *src, uint32_t sw, uint32_t sh, unsigned ch, unsigned c, int32_t x0,
         int32_t ax, int32_t y0, int32_t ay)
{
    int32_t x1 = x0 + 1 < (int32_t)sw ? x0 + 1 : x0, y1 = y0 + 1 < (int32_t)sh ? y0 + 1 : y0;
    int32_t top = (256 - ax) * src[((size_t)y0 * sw + x0) * ch + c] +
                  ax * src[((size_t)y0 * sw + x1) * ch + c];
    int32_t bottom = (256 - ax) * src[((size_t)y1 * sw + x0) * ch + c] +
                     ax * src[((size_t)y1 * sw + x1) * ch + c];

    return (uint8_t)(((256 - ay) * top + ay * bottom + (1 << 15)) >> 16);
}

void
votecl__hog_ref_resize(const uint8_t *src, uint32_t sw, uint32_t sh, unsigned ch, uint8_t *dst,
                       uint32_t dw, uint32_t dh)
{
    for (uint32_t y = 0; y < dh; y++) {
        int32_t y0, ay;

        votecl__hog_resize_coord(y, sh, dh, &y0, &ay);
        for (uint32_t x = 0; x < dw; x++) {
            int32_t x0, ax;

            votecl__hog_resize_coord(x, sw, dw, &x0, &ax);
            for (unsigned c = 0; c < ch; c++)
                dst[((size_t)y * dw + x) * ch + c] = bilinear(src, sw, sh, ch, c, x0, ax, y0, ay);
        }
    }
}

void
votecl__hog_ref_pad(const uint8_t *src, const votecl__hog_level *l, unsigned ch, uint8_t *dst)
{
    uint32_t pw = l->gw + 2, ph = l->gh + 2;

    for (uint32_t y = 0; y < ph; y++) {
        int32_t sy = votecl__hog_reflect101((int64_t)y - 1 - l->pad_y, (int32_t)l->height);

        for (uint32_t x = 0; x < pw; x++) {
            int32_t sx = votecl__hog_reflect101((int64_t)x - 1 - l->pad_x, (int32_t)l->width);

            memcpy(dst + ((size_t)y * pw + x) * ch, src + ((size_t)sy * l->width + sx) * ch,
                   ch);
        }
    }
}

unsigned
votecl__hog_pick_channel(const float m[3], int tail)
{
    unsigned best;

    if (tail) { /* R, then G or B only when strictly larger */
        best = 0;
        if (m[best] < m[1])
            best = 1;
        if (m[best] < m[2])
            best = 2;
        return best;
    }
    /* B unless G or R is strictly larger; then G unless R is strictly larger */
    if (fmaxf(m[0], m[1]) > m[2])
        return m[0] > m[1] ? 0 : 1;
    return 2;
}

float
votecl__hog_atan_deg(float y, float x)
{
    /* OpenCV's fastAtan2 polynomial (mathfuncs_core), about 0.01 degree accurate */
    const float p1 = 0.9997878412794807f * (float)(180 / M_PI);
    const float p3 = -0.3258083974640975f * (float)(180 / M_PI);
    const float p5 = 0.1555786518463281f * (float)(180 / M_PI);
    const float p7 = -0.04432655554792128f * (float)(180 / M_PI);
    float ax = fabsf(x), ay = fabsf(y), a, c, c2;

    if (ax >= ay) {
        c = ay / (ax + (float)DBL_EPSILON);
        c2 = c * c;
        a = (((p7 * c2 + p5) * c2 + p3) * c2 + p1) * c;
    } else {
        c = ax / (ay + (float)DBL_EPSILON);
        c2 = c * c;
        a = 90.f - (((p7 * c2 + p5) * c2 + p3) * c2 + p1) * c;
    }
    if (x < 0)
        a = 180.f - a;
    if (y < 0)
        a = 360.f - a;
    return a;
}

/* The centred differences of the padded pixel (x, y) of a row of gw gradient pixels: the
 * channel with the largest magnitude. Channels are R, G, B; OpenCV sees the same pixels as
 * B, G, R and breaks ties in two ways (hog.cpp's computeGradient): in its 4-pixel vector loop
 * B wins over G and R, and G over R; in the scalar loop over the last gw % 4 pixels of a row
 * R is kept unless G, then B, is strictly larger. Ties are common (small integer differences
 * in different directions), so both rules are followed. */
static void
differences(const uint8_t *p, uint32_t pw, unsigned ch, uint32_t x, uint32_t y, uint32_t gw,
            const float *lut, float *dx, float *dy)
{
    float gx[3], gy[3], m[3];
    unsigned best = 0;

    for (unsigned c = 0; c < ch; c++) {
        gx[c] = lut[p[((size_t)y * pw + x + 1) * ch + c]] -
                lut[p[((size_t)y * pw + x - 1) * ch + c]];
        gy[c] = lut[p[((size_t)(y + 1) * pw + x) * ch + c]] -
                lut[p[((size_t)(y - 1) * pw + x) * ch + c]];
        m[c] = gx[c] * gx[c] + gy[c] * gy[c];
    }
    if (ch == 3)
        best = votecl__hog_pick_channel(m, x - 1 >= (gw & ~3u));
    *dx = gx[best];
    *dy = gy[best];
}

unsigned
votecl__hog_hard_bin(const votecl__hog_geom *g, float dx, float dy)
{
    unsigned bin = 0;

    /* on an axis or a diagonal: 0, 45, 90 or 135 degrees modulo 180 (dx = dy = 0: 0) */
    if (dy == 0.f)
        return g->tie_bin[0];
    if (dx == 0.f)
        return g->tie_bin[2];
    if (fabsf(dx) == fabsf(dy))
        return g->tie_bin[(dx > 0.f) == (dy > 0.f) ? 1 : 3];
    if (dy < 0.f) { /* the same orientation in [0, pi) */
        dx = -dx;
        dy = -dy;
    }
    /* at or past boundary k: the sine of the angle from it is at least 0 */
    for (unsigned k = 1; k < g->nbins; k++)
        bin += dy * g->bound_c[k] >= dx * g->bound_s[k];
    return bin;
}

/* Hard binning's stage 3 for one pixel: the whole magnitude to one bin (the second bin, of
 * weight 0, is the next one as for trilinear votes). */
static void
hard_vote(const votecl__hog_geom *g, float dx, float dy, float *grad, uint8_t *bins)
{
    unsigned h = votecl__hog_hard_bin(g, dx, dy);

    grad[0] = sqrtf(dx * dx + dy * dy);
    grad[1] = 0.f;
    bins[0] = (uint8_t)h;
    bins[1] = (uint8_t)(h + 1 < g->nbins ? h + 1 : 0);
}

void
votecl__hog_ref_gradient(const votecl__hog_geom *g, const uint8_t *padded,
                         const votecl__hog_level *l, unsigned ch, const float *lut, float *grad,
                         uint8_t *bins)
{
    uint32_t pw = l->gw + 2;
    float angle_scale = (float)(g->nbins / M_PI);
    int nbins = (int)g->nbins;

    for (uint32_t y = 0; y < l->gh; y++) {
        for (uint32_t x = 0; x < l->gw; x++) {
            size_t o = (size_t)y * l->gw + x;
            float dx, dy, mag, angle;
            int h;

            differences(padded, pw, ch, x + 1, y + 1, l->gw, lut, &dx, &dy);
            if (g->hard) {
                hard_vote(g, dx, dy, grad + 2 * o, bins + 2 * o);
                continue;
            }
            mag = sqrtf(dx * dx + dy * dy);
            angle = votecl__hog_atan_deg(dy, dx) * (float)(M_PI / 180);
            angle = angle * angle_scale - 0.5f;
            h = (int)floorf(angle);
            angle -= (float)h;
            grad[2 * o] = mag * (1.f - angle);
            grad[2 * o + 1] = mag * angle;
            h = h < 0 ? h + nbins : h >= nbins ? h - nbins : h;
            h = h < 0 ? 0 : h >= nbins ? nbins - 1 : h;
            bins[2 * o] = (uint8_t)h;
            bins[2 * o + 1] = (uint8_t)(h + 1 < nbins ? h + 1 : 0);
        }
    }
}

static void
one_block(const votecl__hog_geom *g, const votecl__hog_level *l, const float *grad,
          const uint8_t *bins, const float *weights, uint32_t ox, uint32_t oy, float *hist)
{
    memset(hist, 0, g->block_len * sizeof *hist);
    for (unsigned i = 0; i < g->block_h; i++) {
        for (unsigned j = 0; j < g->block_w; j++) {
            size_t o = (size_t)(oy + i) * l->gw + ox + j;
            const float *w = weights + ((size_t)i * g->block_w + j) * g->ncells;
            float a0 = grad[2 * o], a1 = grad[2 * o + 1];
            unsigned h0 = bins[2 * o], h1 = bins[2 * o + 1];

            for (unsigned c = 0; c < g->ncells; c++) {
                if (w[c] == 0.f)
                    continue;
                hist[c * g->nbins + h0] += a0 * w[c];
                hist[c * g->nbins + h1] += a1 * w[c];
            }
        }
    }
}

void
votecl__hog_ref_blocks(const votecl__hog_geom *g, const votecl__hog_level *l,
                       const float *grad, const uint8_t *bins, const float *weights,
                       float *hist)
{
    for (uint32_t by = 0; by < l->nby; by++)
        for (uint32_t bx = 0; bx < l->nbx; bx++)
            one_block(g, l, grad, bins, weights, bx * g->grid_x, by * g->grid_y,
                      hist + ((size_t)by * l->nbx + bx) * g->block_len);
}

static void
l2hys(const votecl__hog_geom *g, float *h)
{
    float sum = 0, scale;

    for (unsigned i = 0; i < g->block_len; i++)
        sum += h[i] * h[i];
    /* OpenCV's normalizeBlockHistogram: epsilon 0.1 per bin, then 1e-3 */
    scale = 1.f / (sqrtf(sum) + (float)g->block_len * 0.1f);
    sum = 0;
    for (unsigned i = 0; i < g->block_len; i++) {
        float v = h[i] * scale;

        h[i] = v < g->l2hys ? v : g->l2hys;
        sum += h[i] * h[i];
    }
    scale = 1.f / (sqrtf(sum) + 1e-3f);
    for (unsigned i = 0; i < g->block_len; i++)
        h[i] *= scale;
}

/* scikit-image's _hog_normalize_block for L1, L1-sqrt and L2 (eps 1e-5; squared for L2). */
static void
skimage_norm(const votecl__hog_geom *g, float *h)
{
    float sum = 0, d;

    for (unsigned i = 0; i < g->block_len; i++)
        sum += g->norm == VOTECL_HOG_NORM_L2 ? h[i] * h[i] : fabsf(h[i]);
    d = g->norm == VOTECL_HOG_NORM_L2 ? sqrtf(sum + 1e-10f) : sum + 1e-5f;
    for (unsigned i = 0; i < g->block_len; i++)
        h[i] = g->norm == VOTECL_HOG_NORM_L1_SQRT ? sqrtf(h[i] / d) : h[i] / d;
}

void
votecl__hog_ref_normalise(const votecl__hog_geom *g, float *hist, size_t n)
{
    for (size_t b = 0; b < n; b++) {
        if (g->norm == VOTECL_HOG_NORM_L2HYS)
            l2hys(g, hist + b * g->block_len);
        else
            skimage_norm(g, hist + b * g->block_len);
    }
}

void
votecl__hog_ref_svm(const votecl__hog_geom *g, const votecl__hog_level *l, const float *hist,
                    const float *weights, float bias, float *scores)
{
    for (uint32_t wy = 0; wy < l->nwy; wy++) {
        for (uint32_t wx = 0; wx < l->nwx; wx++) {
            float s = bias;

            for (unsigned j = 0; j < g->blocks_x; j++) {
                for (unsigned i = 0; i < g->blocks_y; i++) {
                    const float *h = votecl__hog_window_block(g, l, hist, wx, wy, j, i);
                    const float *w = weights + ((size_t)j * g->blocks_y + i) * g->block_len;
                    float d = 0;

                    for (unsigned k = 0; k < g->block_len; k++)
                        d += w[k] * h[k];
                    s += d;
                }
            }
            scores[(size_t)wy * l->nwx + wx] = s;
        }
    }
}

