/* HOG's sequential reference, stage by stage: the specification cl/hog.cl follows, the
 * 'ref' backend and the tests' oracle. The float operations and their order match OpenCV's
 * HOGDescriptor (modules/objdetect/src/hog.cpp) so that descriptors agree within rounding. */
#include "hog-private.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define BAD(...) (snprintf(msg, msg_size, __VA_ARGS__), VOTECL_INVALID_ARGUMENT)

static unsigned
gcd(unsigned a, unsigned b)
{
    while (b != 0) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static votecl_status
check_sizes(const votecl_hog_params *p, char *msg, size_t msg_size)
{
    if (p->window_width < 1 || p->window_height < 1 || p->window_width > VOTECL_HOG_MAX_SIDE ||
        p->window_height > VOTECL_HOG_MAX_SIDE)
        return BAD("window_width, window_height: %ux%u is not within 1 to %u", p->window_width,
                   p->window_height, VOTECL_HOG_MAX_SIDE);
    if (p->cell_width < 1 || p->cell_height < 1)
        return BAD("cell_width, cell_height: must be at least 1");
    if (p->block_width < p->cell_width || p->block_height < p->cell_height ||
        p->block_width % p->cell_width != 0 || p->block_height % p->cell_height != 0)
        return BAD("block_width, block_height: %ux%u is not a multiple of the %ux%u cell",
                   p->block_width, p->block_height, p->cell_width, p->cell_height);
    if (p->block_width > p->window_width || p->block_height > p->window_height)
        return BAD("block_width, block_height: the block exceeds the window");
    if (p->block_stride_x < 1 || p->block_stride_y < 1 ||
        (p->window_width - p->block_width) % p->block_stride_x != 0 ||
        (p->window_height - p->block_height) % p->block_stride_y != 0)
        return BAD("block_stride_x, block_stride_y: %ux%u does not tile the window",
                   p->block_stride_x, p->block_stride_y);
    if (p->window_stride_x < 1 || p->window_stride_y < 1)
        return BAD("window_stride_x, window_stride_y: must be at least 1");
    if (p->padding_x > VOTECL_HOG_MAX_SIDE || p->padding_y > VOTECL_HOG_MAX_SIDE)
        return BAD("padding_x, padding_y: exceeds %u", VOTECL_HOG_MAX_SIDE);
    return VOTECL_OK;
}

static votecl_status
check_rest(const votecl_hog_params *p, char *msg, size_t msg_size)
{
    unsigned cells = (p->block_width / p->cell_width) * (p->block_height / p->cell_height);

    if (cells > VOTECL__HOG_MAX_CELLS)
        return BAD("cell_width, cell_height: %u cells per block exceed %u", cells,
                   VOTECL__HOG_MAX_CELLS);
    if (p->nbins < 1 || p->nbins > VOTECL_HOG_MAX_BINS)
        return BAD("nbins: %u is not within 1 to %u", p->nbins, VOTECL_HOG_MAX_BINS);
    if (!(p->l2hys_threshold > 0.0f) || !isfinite(p->l2hys_threshold))
        return BAD("l2hys_threshold: must be positive");
    if (!isfinite(p->scale) || !isfinite(p->min_scale) || p->min_scale <= 0.0 ||
        !isfinite(p->max_scale) || p->max_scale < 0.0)
        return BAD("scale, min_scale, max_scale: must be finite, min_scale positive");
    if (p->max_levels < 1 || p->max_levels > VOTECL_HOG_MAX_LEVELS)
        return BAD("max_levels: %u is not within 1 to %u", p->max_levels,
                   VOTECL_HOG_MAX_LEVELS);
    if (p->fusion != VOTECL_HOG_FUSION_NONE && p->fusion != VOTECL_HOG_FUSION_MEANSHIFT &&
        p->fusion != VOTECL_HOG_FUSION_GROUP)
        return BAD("fusion: %d is not a votecl_hog_fusion", (int)p->fusion);
    if (!isfinite(p->hit_threshold))
        return BAD("hit_threshold: must be finite");
    if (!(p->meanshift_sigma_x > 0) || !(p->meanshift_sigma_y > 0) ||
        !(p->meanshift_sigma_scale > 0))
        return BAD("meanshift_sigma_x, meanshift_sigma_y, meanshift_sigma_scale: must be "
                   "positive");
    return VOTECL_OK;
}

votecl_status
votecl__hog_geom_init(votecl__hog_geom *g, const votecl_hog_params *p, char *msg,
                      size_t msg_size)
{
    votecl_status status = votecl__struct_size_message(p, "params", sizeof *p, msg, msg_size);

    if (status == VOTECL_OK)
        status = check_sizes(p, msg, msg_size);
    if (status == VOTECL_OK)
        status = check_rest(p, msg, msg_size);
    if (status != VOTECL_OK)
        return status;
    memset(g, 0, sizeof *g);
    g->win_w = p->window_width;
    g->win_h = p->window_height;
    g->block_w = p->block_width;
    g->block_h = p->block_height;
    g->bstride_x = p->block_stride_x;
    g->bstride_y = p->block_stride_y;
    g->cell_w = p->cell_width;
    g->cell_h = p->cell_height;
    g->nbins = p->nbins;
    g->wstride_x = p->window_stride_x;
    g->wstride_y = p->window_stride_y;
    g->cells_x = g->block_w / g->cell_w;
    g->cells_y = g->block_h / g->cell_h;
    g->ncells = g->cells_x * g->cells_y;
    g->block_len = g->ncells * g->nbins;
    g->blocks_x = (g->win_w - g->block_w) / g->bstride_x + 1;
    g->blocks_y = (g->win_h - g->block_h) / g->bstride_y + 1;
    g->grid_x = gcd(g->wstride_x, g->bstride_x);
    g->grid_y = gcd(g->wstride_y, g->bstride_y);
    g->desc_len = (size_t)g->blocks_x * g->blocks_y * g->block_len;
    g->l2hys = p->l2hys_threshold;
    g->gamma = p->gamma != 0;
    g->colour = p->colour != 0;
    return VOTECL_OK;
}

static uint32_t
align_up(uint32_t x, uint32_t m)
{
    return (x + m - 1) / m * m;
}

int
votecl__hog_level_init(const votecl__hog_geom *g, const votecl_hog_params *p, uint32_t width,
                       uint32_t height, double scale, votecl__hog_level *l)
{
    memset(l, 0, sizeof *l);
    l->scale = scale;
    l->width = width;
    l->height = height;
    /* OpenCV's detect and compute round the padding up to the cache stride (the grid) */
    l->pad_x = align_up(p->padding_x, g->grid_x);
    l->pad_y = align_up(p->padding_y, g->grid_y);
    l->gw = width + 2 * l->pad_x;
    l->gh = height + 2 * l->pad_y;
    if (width < 1 || height < 1 || l->gw < g->win_w || l->gh < g->win_h)
        return 0;
    l->nbx = (l->gw - g->block_w) / g->grid_x + 1;
    l->nby = (l->gh - g->block_h) / g->grid_y + 1;
    l->nwx = (l->gw - g->win_w) / g->wstride_x + 1;
    l->nwy = (l->gh - g->win_h) / g->wstride_y + 1;
    return 1;
}

void
votecl__hog_gamma_table(int gamma, float lut[256])
{
    for (int i = 0; i < 256; i++)
        lut[i] = gamma ? sqrtf((float)i) : (float)i;
}

/* The bilinear weight of cell c (0-based, of n) for block pixel t of a side of cell pixels:
 * OpenCV's cellX = (t + 0.5) / cell - 0.5, split between floor(cellX) and the next. */
static float
cell_weight(unsigned t, unsigned cell, unsigned c)
{
    float pos = ((float)t + 0.5f) / (float)cell - 0.5f;
    int i0 = (int)floorf(pos);
    float frac = pos - (float)i0;

    if ((int)c == i0)
        return 1.f - frac;
    if ((int)c == i0 + 1)
        return frac;
    return 0.f;
}

void
votecl__hog_block_weights(const votecl__hog_geom *g, float *weights)
{
    /* OpenCV's default winSigma: (block width + height) / 8; centred at (bw / 2, bh / 2) */
    float sigma = (float)(g->block_w + g->block_h) / 8.f;
    float scale = 1.f / (sigma * sigma * 2);
    float bh = (float)g->block_h * 0.5f, bw = (float)g->block_w * 0.5f;

    for (unsigned i = 0; i < g->block_h; i++) {
        for (unsigned j = 0; j < g->block_w; j++) {
            float di = ((float)i - bh) * ((float)i - bh);
            float dj = ((float)j - bw) * ((float)j - bw);
            float gauss = expf(-(di + dj) * scale);
            float *w = weights + ((size_t)i * g->block_w + j) * g->ncells;

            for (unsigned cx = 0; cx < g->cells_x; cx++)
                for (unsigned cy = 0; cy < g->cells_y; cy++)
                    w[cx * g->cells_y + cy] =
                        gauss * (cell_weight(j, g->cell_w, cx) * cell_weight(i, g->cell_h, cy));
        }
    }
}

void
votecl__hog_block_weights_split(const votecl__hog_geom *g, float *wx, float *wy)
{
    /* votecl__hog_block_weights' Gaussian and cell weights, one factor per axis */
    float sigma = (float)(g->block_w + g->block_h) / 8.f;
    float scale = 1.f / (sigma * sigma * 2);
    float bh = (float)g->block_h * 0.5f, bw = (float)g->block_w * 0.5f;

    for (unsigned j = 0; j < g->block_w; j++)
        for (unsigned cx = 0; cx < g->cells_x; cx++)
            wx[j * g->cells_x + cx] = expf(-((float)j - bw) * ((float)j - bw) * scale) *
                                      cell_weight(j, g->cell_w, cx);
    for (unsigned i = 0; i < g->block_h; i++)
        for (unsigned cy = 0; cy < g->cells_y; cy++)
            wy[i * g->cells_y + cy] = expf(-((float)i - bh) * ((float)i - bh) * scale) *
                                      cell_weight(i, g->cell_h, cy);
}

/* Destination pixel d of n from a source of length src: OpenCV's INTER_LINEAR_EXACT (what
 * detectMultiScale resizes with): pixel-centre mapping with the ratio 1 / (n / src), clamped
 * at the ends, the right (lower) neighbour's weight in 8 bits, rounded to even. */
static void
resize_coord(uint32_t d, uint32_t src, uint32_t n, int32_t *index, int32_t *alpha)
{
    double f = ((double)d + 0.5) * (1.0 / ((double)n / (double)src)) - 0.5;
    double s = floor(f);

    f -= s;
    if (s < 0) {
        s = 0;
        f = 0;
    }
    if (s >= (double)src - 1) {
        s = (double)src - 1;
        f = 0;
    }
    *index = (int32_t)s;
    *alpha = (int32_t)lrint(f * VOTECL__HOG_RESIZE_ONE);
}

void
votecl__hog_resize_table(uint32_t src, uint32_t n, int32_t *index, int32_t *alpha)
{
    for (uint32_t d = 0; d < n; d++)
        resize_coord(d, src, n, &index[d], &alpha[d]);
}

int32_t
votecl__hog_reflect101(int64_t p, int32_t len)
{
    if (len <= 1)
        return 0;
    while (p < 0 || p >= len) {
        if (p < 0)
            p = -p;
        if (p >= len)
            p = 2 * (int64_t)len - 2 - p;
    }
    return (int32_t)p;
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

        resize_coord(y, sh, dh, &y0, &ay);
        for (uint32_t x = 0; x < dw; x++) {
            int32_t x0, ax;

            resize_coord(x, sw, dw, &x0, &ax);
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

void
votecl__hog_ref_normalise(const votecl__hog_geom *g, float *hist, size_t n)
{
    for (size_t b = 0; b < n; b++) {
        float *h = hist + b * g->block_len;
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
}

/* The grid block holding block (j, i) of window (wx, wy). */
static const float *
window_block(const votecl__hog_geom *g, const votecl__hog_level *l, const float *hist,
             uint32_t wx, uint32_t wy, unsigned j, unsigned i)
{
    size_t gx = ((size_t)wx * g->wstride_x + (size_t)j * g->bstride_x) / g->grid_x;
    size_t gy = ((size_t)wy * g->wstride_y + (size_t)i * g->bstride_y) / g->grid_y;

    return hist + (gy * l->nbx + gx) * g->block_len;
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
                    const float *h = window_block(g, l, hist, wx, wy, j, i);
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

void
votecl__hog_gather(const votecl__hog_geom *g, const votecl__hog_level *l, const float *hist,
                   uint32_t wx, uint32_t wy, float *desc)
{
    for (unsigned j = 0; j < g->blocks_x; j++)
        for (unsigned i = 0; i < g->blocks_y; i++)
            memcpy(desc + ((size_t)j * g->blocks_y + i) * g->block_len,
                   window_block(g, l, hist, wx, wy, j, i), g->block_len * sizeof(float));
}
