/* The truth suite for line detectors (tests/truth-lines.h): drawing, the families' seeded
 * generators and the metric. */
#include "truth-lines.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* xorshift64* (Vigna), seeded through splitmix64 so that nearby seeds differ. */
typedef truth_rng rng;

static void
rng_init(rng *r, uint64_t seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    r->s = (z ^ (z >> 31)) | 1;
    r->splitmix = 0;
}

/* --- drawing --- */

static void
put(uint8_t *p, uint32_t w, uint32_t h, long x, long y, unsigned v)
{
    if (x < 0 || y < 0 || x >= (long)w || y >= (long)h)
        return;
    uint8_t *q = &p[(size_t)y * w + (size_t)x];
    if (v > *q)
        *q = (uint8_t)v;
}

/* Bresenham between rounded ends: one pixel per step of the major axis (8-connected), or a
 * separate step of each axis when both move (4-connected). */
static void
draw_digital(uint8_t *p, uint32_t w, uint32_t h, const truth_lines_segment *s, int four)
{
    long x0 = lround(s->x0), y0 = lround(s->y0), x1 = lround(s->x1), y1 = lround(s->y1);
    long dx = labs(x1 - x0), dy = -labs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    long err = dx + dy;

    for (;;) {
        put(p, w, h, x0, y0, 255);
        if (x0 == x1 && y0 == y1)
            break;
        long e2 = 2 * err;
        if (four) {
            /* 4-connected (Zingl): one axis per step, the one that keeps the error smaller */
            int step_x = e2 - dy > dx - e2;
            err += step_x ? dy : dx;
            x0 += step_x ? sx : 0;
            y0 += step_x ? 0 : sy;
            continue;
        }
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

static double
segment_distance(const truth_lines_segment *s, double x, double y)
{
    double dx = s->x1 - s->x0, dy = s->y1 - s->y0, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((x - s->x0) * dx + (y - s->y0) * dy) / len2 : 0.0;

    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(x - s->x0 - t * dx, y - s->y0 - t * dy);
}

/* A bar of the segment's width: coverage (anti-aliased) or inside/outside (solid), visiting a
 * band around the segment along its major axis. */
static void
draw_bar(uint8_t *p, uint32_t w, uint32_t h, const truth_lines_segment *s, int aa)
{
    double half = s->width / 2.0, dx = s->x1 - s->x0, dy = s->y1 - s->y0;
    int steep = fabs(dy) > fabs(dx);
    double a0 = steep ? s->y0 : s->x0, a1 = steep ? s->y1 : s->x1;
    double b0 = steep ? s->x0 : s->y0,
           slope = steep ? (dy != 0 ? dx / dy : 0) : (dx != 0 ? dy / dx : 0);
    long lo = lround(fmin(a0, a1) - half - 2), hi = lround(fmax(a0, a1) + half + 2);
    long band = (long)ceil(half * 1.5) + 2;

    for (long a = lo; a <= hi; a++) {
        long bc = lround(b0 + (a - a0) * slope);
        for (long b = bc - band; b <= bc + band; b++) {
            long x = steep ? b : a, y = steep ? a : b;
            double dist = segment_distance(s, (double)x, (double)y), cover;
            if (aa)
                cover = half + 0.5 - dist;
            else
                cover = dist <= half ? 1.0 : 0.0;
            if (cover > 0)
                put(p, w, h, x, y, (unsigned)lround(255.0 * (cover > 1 ? 1 : cover)));
        }
    }
}

void
truth_lines_draw(uint8_t *pixels, uint32_t width, uint32_t height, const truth_lines_segment *s)
{
    if (s->style == TRUTH_LINES_8CONN || s->style == TRUTH_LINES_4CONN)
        draw_digital(pixels, width, height, s, s->style == TRUTH_LINES_4CONN);
    else if (s->style == TRUTH_LINES_AA || s->style == TRUTH_LINES_SOLID)
        draw_bar(pixels, width, height, s, s->style == TRUTH_LINES_AA);
}

/* --- cases --- */

static int
case_alloc(truth_lines_case *c, const char *family, size_t i, uint32_t w, uint32_t h)
{
    memset(c, 0, sizeof *c);
    c->family = family;
    snprintf(c->name, sizeof c->name, "%s-%03zu", family, i);
    c->width = w;
    c->height = h;
    c->pixels = calloc((size_t)w * h, 1);
    return c->pixels != NULL ? 0 : -1;
}

/* Adds a segment to the truth and draws it; digital styles keep integer ends (their drawing
 * rounds them). */
static void
add_line(truth_lines_case *c, truth_lines_segment s)
{
    if (s.style == TRUTH_LINES_8CONN || s.style == TRUTH_LINES_4CONN) {
        s.x0 = round(s.x0);
        s.y0 = round(s.y0);
        s.x1 = round(s.x1);
        s.y1 = round(s.y1);
        s.width = 1.0;
    }
    if (c->n < TRUTH_LINES_MAX)
        c->truth[c->n++] = s;
    truth_lines_draw(c->pixels, c->width, c->height, &s);
}

/* A segment of direction deg (degrees), length len, centred at (cx, cy). */
static truth_lines_segment
segment_at(double cx, double cy, double deg, double len, double width, truth_lines_style style)
{
    double a = deg * M_PI / 180.0, hx = cos(a) * len / 2, hy = sin(a) * len / 2;
    return (truth_lines_segment){cx - hx, cy - hy, cx + hx, cy + hy, width, style};
}

static int
make_whole_degree(truth_lines_case *c, size_t i, const char *family, truth_lines_style style)
{
    if (case_alloc(c, family, i, 600, 600) < 0)
        return -1;
    add_line(c, segment_at(300, 300, (double)i, 400, 1.0, style));
    return 0;
}

static int
make_8conn(truth_lines_case *c, size_t i, uint64_t seed)
{
    (void)seed;
    return make_whole_degree(c, i, "single-8conn", TRUTH_LINES_8CONN);
}

static int
make_4conn(truth_lines_case *c, size_t i, uint64_t seed)
{
    (void)seed;
    return make_whole_degree(c, i, "single-4conn", TRUTH_LINES_4CONN);
}

static int
make_aa(truth_lines_case *c, size_t i, uint64_t seed)
{
    (void)seed;
    return make_whole_degree(c, i, "single-aa", TRUTH_LINES_AA);
}

/* One line of random direction, length and offset inside a random w x h image (margin 4). */
static int
make_random_single(truth_lines_case *c, size_t i, uint64_t seed, const char *family, int wide)
{
    rng r;
    uint32_t w, h;
    double deg, len, cx, cy, hx, hy;

    rng_init(&r, seed * 1000003u + i + (wide ? 500000u : 0));
    /* A few fixed sizes (square, non-square, prime sides) so that device plans, compiled per
     * size, are few. */
    static const uint32_t sizes[][2] = {{64, 64},   {211, 97},   {256, 256},
                                        {640, 480}, {333, 1000}, {1024, 768}};
    uint32_t which = truth_rng_below(&r, 6);
    w = sizes[which][0];
    h = sizes[which][1];
    if (case_alloc(c, family, i, w, h) < 0)
        return -1;
    deg = truth_rng_uniform(&r, 0.0, 180.0);
    len = truth_rng_uniform(&r, 0.4, 0.9) * (w < h ? w : h);
    hx = fabs(cos(deg * M_PI / 180.0)) * len / 2;
    hy = fabs(sin(deg * M_PI / 180.0)) * len / 2;
    cx = truth_rng_uniform(&r, hx + 4, w - 4 - hx);
    cy = truth_rng_uniform(&r, hy + 4, h - 4 - hy);
    if (wide)
        add_line(c, segment_at(cx, cy, deg, len, 2.0 + truth_rng_below(&r, 2), TRUTH_LINES_SOLID));
    else
        add_line(c, segment_at(cx, cy, deg, len, 1.0, TRUTH_LINES_8CONN));
    return 0;
}

static int
make_subdeg(truth_lines_case *c, size_t i, uint64_t seed)
{
    return make_random_single(c, i, seed, "single-subdeg", 0);
}

static int
make_wide(truth_lines_case *c, size_t i, uint64_t seed)
{
    return make_random_single(c, i, seed, "single-wide", 1);
}

static void
draw_circle(truth_lines_case *c, double cx, double cy, double radius)
{
    size_t steps = (size_t)(8 * radius) + 8;
    for (size_t k = 0; k < steps; k++) {
        double a = 2 * M_PI * k / steps;
        put(c->pixels, c->width, c->height, lround(cx + radius * cos(a)),
            lround(cy + radius * sin(a)), 255);
    }
}

/* A word-like blob: a few short strokes of a glyph's size. */
static void
draw_blob(truth_lines_case *c, rng *r, double cx, double cy)
{
    unsigned strokes = 3 + truth_rng_below(r, 5);
    for (unsigned k = 0; k < strokes; k++) {
        double x = cx + truth_rng_uniform(r, -12, 12), y = cy + truth_rng_uniform(r, -5, 5);
        truth_lines_segment s = segment_at(x, y, truth_rng_uniform(r, 0, 180),
                                           truth_rng_uniform(r, 3, 9), 1.0, TRUTH_LINES_8CONN);
        truth_lines_draw(c->pixels, c->width, c->height, &s);
    }
}

static void
add_noise(truth_lines_case *c, rng *r, double salt, double sigma)
{
    size_t n = (size_t)c->width * c->height;
    for (size_t k = 0; k < n; k++) {
        double v = c->pixels[k] + sigma * truth_rng_gauss(r);
        if (truth_rng_uniform(r, 0, 1) < salt)
            v = truth_rng_below(r, 2) ? 255 : 0;
        c->pixels[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
    }
}

/* A segment between two random points at least min_len apart, inside a margin. */
static truth_lines_segment
random_segment(rng *r, uint32_t w, uint32_t h, double min_len)
{
    truth_lines_segment s;
    do {
        s.x0 = truth_rng_uniform(r, 4, w - 5);
        s.y0 = truth_rng_uniform(r, 4, h - 5);
        s.x1 = truth_rng_uniform(r, 4, w - 5);
        s.y1 = truth_rng_uniform(r, 4, h - 5);
    } while (hypot(s.x1 - s.x0, s.y1 - s.y0) < min_len);
    s.style = (truth_lines_style)truth_rng_below(r, 4);
    s.width = s.style == TRUTH_LINES_AA || s.style == TRUTH_LINES_SOLID
                  ? 1.0 + truth_rng_below(r, 3)
                  : 1.0;
    return s;
}

static int
make_multi(truth_lines_case *c, size_t i, uint64_t seed)
{
    rng r;
    unsigned lines, circles, blobs;

    rng_init(&r, seed * 1000003u + i + 900000u);
    if (case_alloc(c, "multi-clutter", i, 640, 480) < 0)
        return -1;
    lines = 3 + truth_rng_below(&r, 6);
    for (unsigned k = 0; k < lines; k++)
        add_line(c, random_segment(&r, 640, 480, 200));
    circles = truth_rng_below(&r, 4);
    for (unsigned k = 0; k < circles; k++)
        draw_circle(c, truth_rng_uniform(&r, 40, 600), truth_rng_uniform(&r, 40, 440),
                    truth_rng_uniform(&r, 10, 60));
    blobs = 5 + truth_rng_below(&r, 20);
    for (unsigned k = 0; k < blobs; k++)
        draw_blob(c, &r, truth_rng_uniform(&r, 20, 620), truth_rng_uniform(&r, 20, 460));
    add_noise(c, &r, 0.002 * (i % 3), 4.0 * (i % 4));
    return 0;
}

static int
make_large(truth_lines_case *c, size_t i, uint64_t seed)
{
    static const uint32_t sizes[][2] = {{1920, 1080}, {3840, 2160}, {4096, 1024}, {8192, 8192}};
    rng r;
    uint32_t w = sizes[i % 4][0], h = sizes[i % 4][1];
    unsigned lines;

    rng_init(&r, seed * 1000003u + i + 700000u);
    if (case_alloc(c, "large", i, w, h) < 0)
        return -1;
    lines = 1 + truth_rng_below(&r, 4);
    for (unsigned k = 0; k < lines; k++) {
        truth_lines_segment s = random_segment(&r, w, h, (w < h ? w : h) / 2.0);
        add_line(c, s);
    }
    return 0;
}

static const truth_lines_family families[] = {
    {"single-8conn", 180, 0, make_8conn}, {"single-4conn", 180, 0, make_4conn},
    {"single-aa", 180, 0, make_aa},       {"single-subdeg", 90, 0, make_subdeg},
    {"single-wide", 60, 0, make_wide},    {"multi-clutter", 40, 0, make_multi},
    {"large", 4, 1, make_large},          {NULL, 0, 0, NULL},
};

TRUTH_FAMILIES_DEFINE(truth_lines_family, truth_lines);

int
truth_lines_case_make(const truth_lines_family *family, size_t i, uint64_t seed,
                      truth_lines_case *c)
{
    return family->make(c, i, seed);
}

void
truth_lines_case_clear(truth_lines_case *c)
{
    free(c->pixels);
    c->pixels = NULL;
}

/* --- the metric --- */

int
truth_lines_match(const truth_lines_detection *d, const truth_lines_segment *t, double *error)
{
    double dir = atan2(t->y1 - t->y0, t->x1 - t->x0) * 180.0 / M_PI;
    double det = d->theta * 180.0 / M_PI + 90.0;
    double diff = fmod(fabs(dir - det), 180.0), c = cos(d->theta), s = sin(d->theta);
    double e0 = fabs(t->x0 * c + t->y0 * s - d->rho), e1 = fabs(t->x1 * c + t->y1 * s - d->rho);

    diff = diff > 90.0 ? 180.0 - diff : diff;
    *error = e0 > e1 ? e0 : e1;
    return diff <= TRUTH_LINES_ANGLE_DEG && *error <= TRUTH_LINES_DIST_PX;
}

void
truth_lines_errors(const truth_lines_detection *d, const truth_lines_segment *t, double *theta_deg,
                   double *rho_px)
{
    double dir = atan2(t->y1 - t->y0, t->x1 - t->x0) * 180.0 / M_PI;
    double diff = fmod(fabs(dir - (d->theta * 180.0 / M_PI + 90.0)), 180.0);
    double mx = (t->x0 + t->x1) / 2, my = (t->y0 + t->y1) / 2;

    if (theta_deg != NULL)
        *theta_deg = diff > 90.0 ? 180.0 - diff : diff;
    if (rho_px != NULL)
        *rho_px = fabs(mx * cos(d->theta) + my * sin(d->theta) - d->rho);
}

/* The larger distance between a detected end and its truth end (ends paired either way). */
static double
end_error(const truth_lines_detection *d, const truth_lines_segment *t)
{
    double a = fmax(hypot(d->x0 - t->x0, d->y0 - t->y0), hypot(d->x1 - t->x1, d->y1 - t->y1));
    double b = fmax(hypot(d->x0 - t->x1, d->y0 - t->y1), hypot(d->x1 - t->x0, d->y1 - t->y0));
    return a < b ? a : b;
}

void
truth_lines_score_case(const truth_lines_case *c, const truth_lines_detection *d, size_t n,
                       truth_lines_score *score)
{
    int taken[TRUTH_LINES_MAX] = {0};
    size_t matched = 0;

    for (size_t k = 0; k < n; k++) {
        int best = -1, any = 0;
        double best_err = 0, err;
        for (size_t t = 0; t < c->n; t++) {
            if (!truth_lines_match(&d[k], &c->truth[t], &err))
                continue;
            any = 1;
            if (!taken[t] && (best < 0 || err < best_err)) {
                best = (int)t;
                best_err = err;
            }
        }
        if (best < 0) {
            score->duplicates += any;
            score->false_positives += !any;
            continue;
        }
        taken[best] = 1;
        matched++;
        double te, re;
        truth_lines_errors(&d[k], &c->truth[best], &te, &re);
        score->theta_error_sum += te;
        score->rho_error_sum += re;
        score->theta_error_max = te > score->theta_error_max ? te : score->theta_error_max;
        score->rho_error_max = re > score->rho_error_max ? re : score->rho_error_max;
        if (d[k].has_ends) {
            double e = end_error(&d[k], &c->truth[best]);
            score->ends++;
            score->ends_within += e <= TRUTH_LINES_DIST_PX;
            score->end_error_sum += e;
        }
    }
    TRUTH_SCORE_CASE(score, c->n, matched, n);
}

double
truth_lines_recall(const truth_lines_score *s)
{
    return truth_ratio(s->matched, s->truths);
}

double
truth_lines_precision(const truth_lines_score *s)
{
    return truth_ratio(s->detections - s->duplicates - s->false_positives, s->detections);
}

/* --- every segment (issue 26 item 3) --- */

/* Row 30's dashes and column 100's, first and last pixel each. */
static const uint32_t dashes_row[][2] = {{10, 29}, {33, 52}, {60, 69}, {90, 94}};
static const uint32_t dashes_column[][2] = {{5, 25}, {40, 55}};

/* ends: row 30's runs {a, 30, b, 30}, column 100's {100, a, 100, b} */
/* every dash its own segment */
/* clang-format off */
#define EVERY_DASH                                                                                 \
    {{10, 30, 29, 30}, {33, 30, 52, 30}, {60, 30, 69, 30}, {90, 30, 94, 30}, {100, 5, 100, 25},   \
     {100, 40, 100, 55}}
/* clang-format on */
const truth_lines_dashed_case truth_lines_dashed_cases[] = {
    /* no gap bridged: every dash */
    {0, 0, 6, EVERY_DASH},
    /* a gap of exactly max_gap steps is bridged, one more is not */
    {3,
     0,
     5,
     {{10, 30, 52, 30}, {60, 30, 69, 30}, {90, 30, 94, 30}, {100, 5, 100, 25}, {100, 40, 100, 55}}},
    {2, 0, 6, EVERY_DASH},
    /* min_length: a run of exactly min_length px is kept, shorter ones dropped */
    {7, 10, 3, {{10, 30, 69, 30}, {100, 5, 100, 25}, {100, 40, 100, 55}}},
    {2, 19, 3, {{10, 30, 29, 30}, {33, 30, 52, 30}, {100, 5, 100, 25}}},
    /* every gap bridged: one segment a line */
    {20, 0, 2, {{10, 30, 94, 30}, {100, 5, 100, 55}}},
};
const size_t truth_lines_dashed_count =
    sizeof truth_lines_dashed_cases / sizeof truth_lines_dashed_cases[0];

void
truth_lines_dashed_draw(uint8_t *pixels)
{
    const uint32_t w = TRUTH_LINES_DASHED_W;

    memset(pixels, 0, (size_t)w * TRUTH_LINES_DASHED_H);
    for (size_t k = 0; k < sizeof dashes_row / sizeof dashes_row[0]; k++)
        for (uint32_t x = dashes_row[k][0]; x <= dashes_row[k][1]; x++)
            pixels[30 * w + x] = 255;
    for (size_t k = 0; k < sizeof dashes_column / sizeof dashes_column[0]; k++)
        for (uint32_t y = dashes_column[k][0]; y <= dashes_column[k][1]; y++)
            pixels[y * w + 100] = 255;
}

/* Whether segment s has the ends e (either way round) within tol px. */
static int
ends_near(const votecl_segment *s, const double e[4], double tol)
{
    return (hypot(s->x0 - e[0], s->y0 - e[1]) <= tol && hypot(s->x1 - e[2], s->y1 - e[3]) <= tol) ||
           (hypot(s->x0 - e[2], s->y0 - e[3]) <= tol && hypot(s->x1 - e[0], s->y1 - e[1]) <= tol);
}

int
truth_lines_dashed_check(const truth_lines_dashed_case *c, const votecl_segment *found, size_t n,
                         double tol)
{
    if (n != c->n)
        return 0;
    for (size_t k = 0; k < c->n; k++) {
        size_t matches = 0;
        for (size_t i = 0; i < n; i++)
            matches += ends_near(&found[i], c->ends[k], tol) != 0;
        if (matches != 1)
            return 0;
    }
    return 1;
}

int
truth_lines_segments_equal(const votecl_segment *a, const votecl_segment *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i].x0, &b[i].x0, 4 * sizeof a[i].x0) != 0 || a[i].line != b[i].line ||
            a[i].hits != b[i].hits)
            return 0;
    return 1;
}
