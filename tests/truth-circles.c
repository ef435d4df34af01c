/* The circle truth suite (tests/truth-circles.h): seeded scenes and the metric. */
#include "truth-circles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* --- a seeded generator (xorshift64*), private to the suite so that its cases never change
 * with another user of the tests' generator --- */

typedef truth_rng rng;

static void
rng_init(rng *g, uint64_t seed, const char *family, size_t i)
{
    g->splitmix = 0;
    g->s = seed * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull + 1;
    for (const char *p = family; *p; p++)
        g->s = (g->s ^ (uint8_t)*p) * 0x100000001b3ull;
    g->s |= 1;
}

/* --- drawing --- */

static uint8_t
clamp_u8(double v)
{
    return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)lrint(v);
}

/* The part of the ring r_in <= d <= r_out around (cx, cy) whose angle from the x axis lies in
 * [a0, a0 + span) (span >= 2 pi: all of it), blended at level over what is there with its
 * coverage of 4 x 4 samples per pixel. */
static void
draw_ring(truth_circles_case *c, double cx, double cy, double r_in, double r_out, double a0,
          double span, double level)
{
    long x0 = (long)floor(cx - r_out - 1), x1 = (long)ceil(cx + r_out + 1);
    long y0 = (long)floor(cy - r_out - 1), y1 = (long)ceil(cy + r_out + 1);

    for (long y = y0 < 0 ? 0 : y0; y <= y1 && y < (long)c->height; y++)
        for (long x = x0 < 0 ? 0 : x0; x <= x1 && x < (long)c->width; x++) {
            int in = 0;
            for (int s = 0; s < 16; s++) {
                double dx = x - 0.375 + 0.25 * (s % 4) - cx, dy = y - 0.375 + 0.25 * (s / 4) - cy;
                double d = hypot(dx, dy), a = atan2(dy, dx) - a0;
                a = fmod(a + 4 * M_PI, 2 * M_PI);
                in += d >= r_in && d <= r_out && (span >= 2 * M_PI || a < span);
            }
            if (in > 0) {
                uint8_t *p = &c->pixels[(size_t)y * c->width + (size_t)x];
                *p = clamp_u8(*p + (level - *p) * in / 16.0);
            }
        }
}

static void
draw_rect(truth_circles_case *c, double x0, double y0, double x1, double y1, double level)
{
    for (long y = (long)y0; y < (long)y1 && y < (long)c->height; y++)
        for (long x = (long)x0; x < (long)x1 && x < (long)c->width; x++)
            if (x >= 0 && y >= 0)
                c->pixels[(size_t)y * c->width + (size_t)x] = clamp_u8(level);
}

static void
add_noise(truth_circles_case *c, rng *g, double sigma)
{
    for (size_t i = 0; i < (size_t)c->width * c->height; i++)
        c->pixels[i] = clamp_u8(c->pixels[i] + sigma * truth_rng_gauss(g));
}

static int
alloc_case(truth_circles_case *c, uint32_t w, uint32_t h, double background)
{
    return truth_pixels_new(&c->pixels, &c->width, &c->height, w, h, clamp_u8(background));
}

/* A level at least 60 gray levels from the background, brighter or darker. */
static double
contrast(rng *g, double background)
{
    double delta = truth_rng_uniform(g, 60, 140);
    return background + delta < 250 || background - delta < 5 ? background + delta
                                                              : background - delta;
}

static void
add_truth(truth_circles_case *c, double x, double y, double r)
{
    if (c->n < TRUTH_CIRCLES_MAX)
        c->truth[c->n++] = (truth_circle){x, y, r};
}

/* The case's generator, and its w x h pixels of a background drawn in [lo, hi) (in *bg): 0,
 * or -1 when out of memory. */
static int
begin(truth_circles_case *c, rng *g, uint64_t seed, size_t i, double lo, double hi, uint32_t w,
      uint32_t h, double *bg)
{
    rng_init(g, seed, c->family, i);
    *bg = truth_rng_uniform(g, lo, hi);
    return alloc_case(c, w, h, *bg);
}

/* The generator of a case with one circle of radius r in [10, 120) (in *r) and its pixels:
 * 2r + 80 wide, 2r + margin high, of a background drawn in [lo, 120) (in *bg). */
static int
begin_one(truth_circles_case *c, rng *g, uint64_t seed, size_t i, double lo, double margin,
          double *r, double *bg)
{
    rng_init(g, seed, c->family, i);
    *r = truth_rng_uniform(g, 10, 120);
    *bg = truth_rng_uniform(g, lo, 120);
    return alloc_case(c, (uint32_t)(2 * *r + 80), (uint32_t)(2 * *r + margin), *bg);
}

/* A point within d of the image's centre in x and in y. */
static void
centre(const truth_circles_case *c, rng *g, double d, double *x, double *y)
{
    *x = c->width / 2.0 + truth_rng_uniform(g, -d, d);
    *y = c->height / 2.0 + truth_rng_uniform(g, -d, d);
}

/* A filled disc of a level that contrasts with bg, and its truth. */
static void
planted_disc(truth_circles_case *c, rng *g, double x, double y, double r, double bg)
{
    draw_ring(c, x, y, 0, r, 0, 7, contrast(g, bg));
    add_truth(c, x, y, r);
}

/* The radii a detector is told to search: 0. */
static int
searched(truth_circles_case *c, double min_radius, double max_radius)
{
    c->min_radius = min_radius;
    c->max_radius = max_radius;
    return 0;
}

/* --- the families --- */

static int
make_single(truth_circles_case *c, size_t i, uint64_t seed)
{
    rng g;
    double r, bg, x, y;
    uint32_t side;

    rng_init(&g, seed, "single", i);
    r = 5.0 * pow(40.0, (double)i / 39.0); /* 5 .. 200 */
    side = (uint32_t)(2 * r + 60) < 64 ? 64 : (uint32_t)(2 * r + 60);
    bg = truth_rng_uniform(&g, 10, 120);
    if (alloc_case(c, side, side + (uint32_t)truth_rng_uniform(&g, 0, 20), bg) != 0)
        return -1;
    centre(c, &g, 8, &x, &y);
    planted_disc(c, &g, x, y, r, bg);
    return searched(c, 5, 210);
}

static int
make_arcs(truth_circles_case *c, size_t i, uint64_t seed)
{
    rng g;
    double r, bg, x, y;

    if (begin_one(c, &g, seed, i, 10, 70, &r, &bg) != 0)
        return -1;
    centre(c, &g, 5, &x, &y);
    draw_ring(c, x, y, r - 1.5, r + 1.5, truth_rng_uniform(&g, 0, 2 * M_PI),
              truth_rng_uniform(&g, M_PI, 300.0 / 180.0 * M_PI), contrast(&g, bg));
    add_truth(c, x, y, r);
    return searched(c, 8, 130);
}

static int
make_noise(truth_circles_case *c, size_t i, uint64_t seed)
{
    rng g;
    double r, bg, x, y;

    if (begin_one(c, &g, seed, i, 40, 80, &r, &bg) != 0)
        return -1;
    centre(c, &g, 10, &x, &y);
    planted_disc(c, &g, x, y, r, bg);
    add_noise(c, &g, truth_rng_uniform(&g, 10, 30));
    return searched(c, 8, 130);
}

static int
make_overlap(truth_circles_case *c, size_t i, uint64_t seed)
{
    rng g;
    double bg = 0, x, y, r;
    int k;

    if (begin(c, &g, seed, i, 10, 60, 400, 300, &bg) != 0)
        return -1;
    k = 2 + (int)(truth_rng_next(&g) % 2);
    r = truth_rng_uniform(&g, 15, 80);
    x = truth_rng_uniform(&g, 100, 300);
    y = truth_rng_uniform(&g, 100, 200);
    for (int j = 0; j < k; j++) {
        double level = bg + 60 + 50 * j + truth_rng_uniform(&g, 0, 30);
        draw_ring(c, x, y, 0, r, 0, 7, level);
        add_truth(c, x, y, r);
        {
            double rn = truth_rng_uniform(&g, 15, 80), a = truth_rng_uniform(&g, 0, 2 * M_PI),
                   d = truth_rng_uniform(&g, 0.6, 1.2) * (r > rn ? r : rn);
            x += d * cos(a);
            y += d * sin(a);
            r = rn;
            x = x < r + 2 ? r + 2 : x > 398 - r ? 398 - r : x;
            y = y < r + 2 ? r + 2 : y > 298 - r ? 298 - r : y;
        }
    }
    return searched(c, 12, 90);
}

static int
far_from_all(const truth_circles_case *c, double x, double y, double r)
{
    for (size_t j = 0; j < c->n; j++)
        if (hypot(c->truth[j].x - x, c->truth[j].y - y) < c->truth[j].r + r + 10)
            return 0;
    return 1;
}

/* k separate discs and rings of radius lo to hi in a w x h image. */
static void
scatter(truth_circles_case *c, rng *g, int k, double lo, double hi, double bg)
{
    for (int j = 0, tries = 0; j < k && tries < 1000; tries++) {
        double r = truth_rng_uniform(g, lo, hi), x = truth_rng_uniform(g, r + 3, c->width - r - 3),
               y = truth_rng_uniform(g, r + 3, c->height - r - 3);
        if (!far_from_all(c, x, y, r))
            continue;
        if (truth_rng_next(g) % 3 == 0)
            draw_ring(c, x, y, r - 1.5, r + 1.5, 0, 7, contrast(g, bg));
        else
            draw_ring(c, x, y, 0, r, 0, 7, contrast(g, bg));
        add_truth(c, x, y, r);
        j++;
    }
}

/* 3 + (a number below kinds) discs and rings of radius lo to hi scattered over a w x h image,
 * and noise. */
static int
make_scattered(truth_circles_case *c, size_t i, uint64_t seed, uint32_t w, uint32_t h,
               unsigned kinds, double lo, double hi)
{
    rng g;
    double bg;

    if (begin(c, &g, seed, i, 20, 120, w, h, &bg) != 0)
        return -1;
    scatter(c, &g, 3 + (int)(truth_rng_next(&g) % kinds), lo, hi, bg);
    add_noise(c, &g, 5);
    return 0;
}

static int
make_multi(truth_circles_case *c, size_t i, uint64_t seed)
{
    return make_scattered(c, i, seed, 640, 480, 4, 8, 60) != 0 ? -1 : searched(c, 6, 70);
}

static int
make_empty(truth_circles_case *c, size_t i, uint64_t seed)
{
    rng g;
    double bg;

    if (begin(c, &g, seed, i, 30, 120, 480, 360, &bg) != 0)
        return -1;
    for (int j = 0; j < 6; j++) {
        double x = truth_rng_uniform(&g, 0, 440), y = truth_rng_uniform(&g, 0, 320);
        draw_rect(c, x, y, x + truth_rng_uniform(&g, 4, 120), y + truth_rng_uniform(&g, 4, 120),
                  contrast(&g, bg));
    }
    add_noise(c, &g, truth_rng_uniform(&g, 5, 20));
    return searched(c, 5, 100);
}

static int
make_large(truth_circles_case *c, size_t i, uint64_t seed)
{
    return make_scattered(c, i, seed, 1920, 1080, 6, 20, 200) != 0 ? -1 : searched(c, 15, 210);
}

static const truth_circles_family families[] = {
    {"single", 40, 0, make_single},   {"arcs", 20, 0, make_arcs},   {"noise", 20, 0, make_noise},
    {"overlap", 20, 0, make_overlap}, {"multi", 20, 0, make_multi}, {"empty", 10, 0, make_empty},
    {"large", 4, 1, make_large},      {NULL, 0, 0, NULL},
};

TRUTH_FAMILIES_DEFINE(truth_circles_family, truth_circles);

int
truth_circles_case_make(const truth_circles_family *family, size_t i, uint64_t seed,
                        truth_circles_case *c)
{
    memset(c, 0, sizeof *c);
    c->family = family->name;
    snprintf(c->name, sizeof c->name, "%s-%zu", family->name, i);
    return family->make(c, i, seed);
}

void
truth_circles_case_clear(truth_circles_case *c)
{
    free(c->pixels);
    c->pixels = NULL;
}

/* --- the metric --- */

static int
matches(const truth_circle *d, const truth_circle *t, double *centre, double *radius)
{
    double tol = t->r * 0.1 > 2 ? t->r * 0.1 : 2;

    *centre = hypot(d->x - t->x, d->y - t->y);
    *radius = fabs(d->r - t->r);
    return *centre <= tol && *radius <= tol;
}

void
truth_circles_score_case(const truth_circles_case *c, const truth_circle *d, size_t n,
                         truth_circles_score *score)
{
    int taken[TRUTH_CIRCLES_MAX] = {0};
    size_t matched = 0;

    for (size_t i = 0; i < n; i++) {
        long best = -1;
        int any = 0;
        double best_c = 0, best_r = 0;
        for (size_t t = 0; t < c->n; t++) {
            double ce, re;
            if (!matches(&d[i], &c->truth[t], &ce, &re))
                continue;
            any = 1;
            if (!taken[t] && (best < 0 || ce < best_c))
                best = (long)t, best_c = ce, best_r = re;
        }
        if (best < 0) {
            if (any)
                score->duplicates++;
            else
                score->false_positives++;
            continue;
        }
        taken[best] = 1;
        matched++;
        score->centre_error_sum += best_c;
        score->radius_error_sum += best_r;
    }
    TRUTH_SCORE_CASE(score, c->n, matched, n);
}

double
truth_circles_recall(const truth_circles_score *s)
{
    return truth_ratio(s->matched, s->truths);
}

double
truth_circles_precision(const truth_circles_score *s)
{
    return truth_ratio(s->matched, s->detections);
}
