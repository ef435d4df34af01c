/* HOG's geometry, shared by the reference (lib/hog-ref.c) and the device implementations: the
 * window, block and cell sizes derived from validated params (lib/hog.c validates), each
 * level's padding and its block and window grids, the block weights, the resize tables and
 * OpenCV's border, and where a window's blocks lie in a level's grid. */
#include "hog-private.h"

#include <math.h>
#include <string.h>

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

/* Hard binning's tables. scikit-image bins the angle o = atan2(dy, dx) in degrees mod 180
 * (double) against the boundaries (180 / nbins) k (double): a direction on an axis or a
 * diagonal has o exactly 0, 45, 90 or 135 and meets a boundary of those values exactly (for
 * every nbins up to 64), so it opens the bin above; the others are decided against the
 * boundary's direction, far from any gradient of 8-bit differences. */
static void
hard_tables(votecl__hog_geom *g)
{
    for (unsigned k = 1; k < g->nbins; k++) {
        g->bound_c[k] = (float)cos(k * M_PI / g->nbins);
        g->bound_s[k] = (float)sin(k * M_PI / g->nbins);
    }
    for (unsigned d = 0; d < 4; d++) {
        unsigned bin = 0;

        for (unsigned k = 1; k < g->nbins; k++)
            bin += 180.0 / g->nbins * k <= 45.0 * d;
        g->tie_bin[d] = (uint8_t)bin;
    }
}

void
votecl__hog_geom_derive(votecl__hog_geom *g, const votecl_hog_params *p)
{
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
    g->norm = p->block_norm;
    g->hard = p->binning == VOTECL_HOG_BINNING_HARD;
    if (g->hard)
        hard_tables(g);
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

/* Hard binning's weight of cell c for block pixel t: 1 / cell in the pixel's own cell. */
static float
hard_weight(unsigned t, unsigned cell, unsigned c)
{
    return t / cell == c ? 1.f / (float)cell : 0.f;
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
                        g->hard ? hard_weight(j, g->cell_w, cx) * hard_weight(i, g->cell_h, cy)
                                : gauss * (cell_weight(j, g->cell_w, cx) *
                                           cell_weight(i, g->cell_h, cy));
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
            wx[j * g->cells_x + cx] = g->hard ? hard_weight(j, g->cell_w, cx)
                                              : expf(-((float)j - bw) * ((float)j - bw) * scale) *
                                                    cell_weight(j, g->cell_w, cx);
    for (unsigned i = 0; i < g->block_h; i++)
        for (unsigned cy = 0; cy < g->cells_y; cy++)
            wy[i * g->cells_y + cy] = g->hard ? hard_weight(i, g->cell_h, cy)
                                              : expf(-((float)i - bh) * ((float)i - bh) * scale) *
                                                    cell_weight(i, g->cell_h, cy);
}

/* Destination pixel d of n from a source of length src: OpenCV's INTER_LINEAR_EXACT (what
 * detectMultiScale resizes with): pixel-centre mapping with the ratio 1 / (n / src), clamped
 * at the ends, the right (lower) neighbour's weight in 8 bits, rounded to even. */
void
votecl__hog_resize_coord(uint32_t d, uint32_t src, uint32_t n, int32_t *index, int32_t *alpha)
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
        votecl__hog_resize_coord(d, src, n, &index[d], &alpha[d]);
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

/* The grid block holding block (j, i) of window (wx, wy). */
const float *
votecl__hog_window_block(const votecl__hog_geom *g, const votecl__hog_level *l, const float *hist,
                         uint32_t wx, uint32_t wy, unsigned j, unsigned i)
{
    size_t gx = ((size_t)wx * g->wstride_x + (size_t)j * g->bstride_x) / g->grid_x;
    size_t gy = ((size_t)wy * g->wstride_y + (size_t)i * g->bstride_y) / g->grid_y;

    return hist + (gy * l->nbx + gx) * g->block_len;
}

void
votecl__hog_gather(const votecl__hog_geom *g, const votecl__hog_level *l, const float *hist,
                   uint32_t wx, uint32_t wy, float *desc)
{
    for (unsigned j = 0; j < g->blocks_x; j++)
        for (unsigned i = 0; i < g->blocks_y; i++)
            memcpy(desc + ((size_t)j * g->blocks_y + i) * g->block_len,
                   votecl__hog_window_block(g, l, hist, wx, wy, j, i),
                   g->block_len * sizeof(float));
}
