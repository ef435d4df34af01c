/* The HOG truth suite's scenes and metric (tests/truth-hog.h). */
#include "truth-hog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: the cases depend on the seed only, on every platform */
static uint64_t
next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An integer in [lo, hi]. */
static uint32_t
uniform(uint64_t *s, uint32_t lo, uint32_t hi)
{
    return lo + (uint32_t)(next(s) % ((uint64_t)hi - lo + 1));
}

static double
unit(uint64_t *s)
{
    return (double)(next(s) >> 11) / 9007199254740992.0;
}

static int
alloc_case(truth_hog_case *c, const char *family, size_t i, uint32_t w, uint32_t h)
{
    memset(c, 0, sizeof *c);
    c->family = family;
    snprintf(c->name, sizeof c->name, "%s-%zu", family, i);
    c->width = w;
    c->height = h;
    c->rgb = calloc((size_t)w * h, 3);
    return c->rgb ? 0 : -1;
}

static void
fill_rect(truth_hog_case *c, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
          const uint8_t rgb[3])
{
    for (uint32_t y = y0; y < y0 + h && y < c->height; y++)
        for (uint32_t x = x0; x < x0 + w && x < c->width; x++)
            memcpy(c->rgb + ((size_t)y * c->width + x) * 3, rgb, 3);
}

static int
make_saturated(truth_hog_case *c, size_t i, uint64_t seed, const truth_hog_source *src)
{
    uint32_t cell = 5 + (uint32_t)(i % 4) * 3;

    (void)src;
    if (alloc_case(c, "saturated", i, 203, 161) < 0)
        return -1;
    for (uint32_t y = 0; y < c->height; y += cell)
        for (uint32_t x = 0; x < c->width; x += cell) {
            uint32_t v = uniform(&seed, 0, 7);
            uint8_t rgb[3] = {v & 1 ? 255 : 0, v & 2 ? 255 : 0, v & 4 ? 255 : 0};

            fill_rect(c, x, y, cell, cell, rgb);
        }
    return 0;
}

/* Channel R is a random pattern p, G is p turned by 180 degrees, B is p transposed: the
 * three differences are equal in size and differ in direction. */
static int
make_equal_mag(truth_hog_case *c, size_t i, uint64_t seed, const truth_hog_source *src)
{
    enum { N = 150 };
    uint8_t *p = malloc(N * N);

    (void)src;
    if (p == NULL || alloc_case(c, "equal-mag", i, 133, N) < 0) {
        free(p);
        return -1;
    }
    for (size_t k = 0; k < N * N; k++)
        p[k] = (uint8_t)(uniform(&seed, 0, 3) * (30 + 10 * (i % 3)));
    for (uint32_t y = 0; y < c->height; y++)
        for (uint32_t x = 0; x < c->width; x++) {
            uint8_t *o = c->rgb + ((size_t)y * c->width + x) * 3;

            o[0] = p[y * N + x];
            o[1] = p[(N - 1 - y) * N + (N - 1 - x)];
            o[2] = p[x * N + y];
        }
    free(p);
    return 0;
}

static int
make_gray_rgb(truth_hog_case *c, size_t i, uint64_t seed, const truth_hog_source *src)
{
    double fx = 0.02 + 0.1 * unit(&seed), fy = 0.02 + 0.1 * unit(&seed);

    (void)src;
    if (alloc_case(c, "gray-rgb", i, 257, 190) < 0)
        return -1;
    for (uint32_t y = 0; y < c->height; y++)
        for (uint32_t x = 0; x < c->width; x++) {
            double v = 128 + 80 * sin(fx * x) * cos(fy * y) + 20 * (unit(&seed) - 0.5);
            uint8_t g = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            uint8_t *o = c->rgb + ((size_t)y * c->width + x) * 3;

            o[0] = o[1] = o[2] = g;
        }
    return 0;
}

/* The source person scaled by s (bilinear) at (x0, y0). */
static void
paste(truth_hog_case *c, const truth_hog_source *src, double s, uint32_t x0, uint32_t y0)
{
    uint32_t w = (uint32_t)(src->w * s), h = (uint32_t)(src->h * s);

    for (uint32_t y = 0; y < h && y0 + y < c->height; y++) {
        double sy = (y + 0.5) / s - 0.5;
        uint32_t iy = sy <= 0 ? 0 : (uint32_t)sy;
        double ay = sy <= 0 ? 0 : sy - iy;
        uint32_t jy = iy + 1 < src->h ? iy + 1 : iy;

        for (uint32_t x = 0; x < w && x0 + x < c->width; x++) {
            double sx = (x + 0.5) / s - 0.5;
            uint32_t ix = sx <= 0 ? 0 : (uint32_t)sx;
            double ax = sx <= 0 ? 0 : sx - ix;
            uint32_t jx = ix + 1 < src->w ? ix + 1 : ix;
            uint8_t *o = c->rgb + ((size_t)(y0 + y) * c->width + x0 + x) * 3;

            for (int k = 0; k < 3; k++) {
#define AT(u, v) src->rgb[((size_t)(src->y + (v)) * src->width + src->x + (u)) * 3 + k]
                double top = (1 - ax) * AT(ix, iy) + ax * AT(jx, iy);
                double bottom = (1 - ax) * AT(ix, jy) + ax * AT(jx, jy);
#undef AT
                o[k] = (uint8_t)lrint((1 - ay) * top + ay * bottom);
            }
        }
    }
}

static int
make_people(truth_hog_case *c, size_t i, uint64_t seed, const truth_hog_source *src)
{
    uint8_t bg[3];
    uint32_t n;

    if (alloc_case(c, "people", i, 640, 480) < 0)
        return -1;
    for (int k = 0; k < 3; k++)
        bg[k] = (uint8_t)uniform(&seed, 60, 200);
    fill_rect(c, 0, 0, c->width, c->height, bg);
    for (int r = 0; r < 6; r++) {
        uint32_t x = uniform(&seed, 0, 600), y = uniform(&seed, 0, 440);
        uint32_t w = uniform(&seed, 20, 200), h = uniform(&seed, 20, 200);
        uint8_t col[3];

        for (int k = 0; k < 3; k++)
            col[k] = (uint8_t)uniform(&seed, 0, 255);
        fill_rect(c, x, y, w, h, col);
    }
    n = uniform(&seed, 2, 4);
    for (uint32_t k = 0; k < n && src != NULL; k++) {
        double s = 0.4 + 0.45 * unit(&seed);
        uint32_t w = (uint32_t)(src->w * s), h = (uint32_t)(src->h * s);

        paste(c, src, s, uniform(&seed, 0, c->width - w), uniform(&seed, 0, c->height - h));
    }
    for (size_t k = 0; k < (size_t)c->width * c->height * 3; k++) {
        unsigned v = c->rgb[k] + uniform(&seed, 0, 11);

        c->rgb[k] = (uint8_t)(v > 255 ? 255 : v);
    }
    return 0;
}

static const truth_hog_family families[] = {
    {"saturated", 4, 0, make_saturated},
    {"equal-mag", 3, 0, make_equal_mag},
    {"gray-rgb", 2, 0, make_gray_rgb},
    {"people", 24, 1, make_people},
    {NULL, 0, 0, NULL},
};

TRUTH_FAMILIES_DEFINE(truth_hog_family, truth_hog);

void
truth_hog_case_clear(truth_hog_case *c)
{
    free(c->rgb);
    c->rgb = NULL;
}

static double
iou(const truth_hog_box *a, const truth_hog_box *b)
{
    double x0 = fmax(a->x, b->x), y0 = fmax(a->y, b->y);
    double x1 = fmin((double)a->x + a->width, (double)b->x + b->width);
    double y1 = fmin((double)a->y + a->height, (double)b->y + b->height);
    double inter = fmax(0, x1 - x0) * fmax(0, y1 - y0);
    double uni = (double)a->width * a->height + (double)b->width * b->height - inter;

    return uni > 0 ? inter / uni : 0;
}

void
truth_hog_score(const truth_hog_box *truth, size_t ntruth, const truth_hog_box *found,
                size_t nfound, truth_hog_score_t *s)
{
    char *taken = calloc(ntruth ? ntruth : 1, 1);

    s->truths += ntruth;
    s->found += nfound;
    for (size_t t = 0; t < ntruth; t++)
        for (size_t f = 0; f < nfound; f++)
            if (memcmp(&truth[t], &found[f], sizeof *found) == 0) {
                s->equal++;
                break;
            }
    for (size_t f = 0; f < nfound && taken; f++) {
        size_t best = ntruth;
        double b = TRUTH_HOG_IOU;

        for (size_t t = 0; t < ntruth; t++) {
            double v = iou(&truth[t], &found[f]);

            if (!taken[t] && v >= b) {
                b = v;
                best = t;
            }
        }
        if (best < ntruth) {
            taken[best] = 1;
            s->matched++;
        }
    }
    free(taken);
}
