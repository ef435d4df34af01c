/* The theta-rho Hough transform built on the generic engine.
 *
 * /ref/...                  the reference (the 'ref' backend, lib/hough-ref.c) against truth:
 *                           planted lines found within one angle step and one rho bin, a line
 *                           at a bin centre of an even N without half-bin bias, a line at
 *                           theta ~ 0 found once (not again near pi), no edges, argument checks,
 *                           a fixed subset of the line truth suite (tests/truth-lines.h) with
 *                           recall floors at the defaults (also on the device);
 * /opencl/<variant>/...     the device accumulator equal to the reference's exactly, for every
 *                           strategy forced through params.variant: planted lines (180 angles x
 *                           one bin per pixel), no edges, the paper's 64 angles x 4200 bins, and
 *                           the Sobel edges of tools/images/building.png with equal peaks. A
 *                           machine without an OpenCL device skips these.
 * /ref/hough/gray-edges     votecl_hough_run_gray() on the reference equals votecl_hough_run()
 *                           on the edges of the tool's Sobel rule (floor(sqrt) >= threshold),
 *                           thresholds at and around the magnitudes present;
 * /opencl|cuda/auto/hough/gray  the device's gray path (edges, vote, candidates on the device)
 *                           equal to the reference's lines, stats and accumulator: building.png,
 *                           generated lines, an empty image, 1x1, odd sizes with a stride, more
 *                           candidates than the first buffer holds, segments, plan reuse. */
#include "votecl-private.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hough-private.h"
#include "image-io.h"
#include "segments.h"
#include "truth-lines.h"

static votecl_context *
device(void)
{
    return tu_device_shared();
}

/* --- synthetic images --- */

typedef struct edge_image {
    uint8_t *data;
    size_t width, height, stride;
} edge_image;

static edge_image
edge_image_new(size_t width, size_t height, size_t stride)
{
    edge_image im = {g_malloc0(stride * height), width, height, stride};
    return im;
}

static votecl_image
edge_view(const edge_image *im)
{
    votecl_image v = {im->data, im->width, im->height, im->stride, 1, VOTECL_DTYPE_U8};
    return v;
}

/* The digital line x cos(theta) + y sin(theta) = rho: every pixel within half a pixel of it
 * in the normal direction, so each of its pixels has |rho(pixel) - rho| < 0.5. */
static size_t
draw_line(edge_image *im, double theta, double rho, uint8_t value)
{
    double c = cos(theta), s = sin(theta);
    size_t drawn = 0;
    for (size_t y = 0; y < im->height; y++)
        for (size_t x = 0; x < im->width; x++)
            if (fabs((double)x * c + (double)y * s - rho) < 0.5) {
                im->data[y * im->stride + x] = value;
                drawn++;
            }
    return drawn;
}

static void
sprinkle(edge_image *im, tu_rng *rng, size_t count)
{
    for (size_t i = 0; i < count; i++)
        im->data[tu_rng_below(rng, (uint32_t)im->height) * im->stride +
                 tu_rng_below(rng, (uint32_t)im->width)] = (uint8_t)(1 + tu_rng_below(rng, 255));
}

typedef struct planted {
    double theta, rho;
} planted;

#define N_PLANTED 5

/* Lines at grid angles of G = 180 and random rho through the middle of the image, plus
 * noise pixels; a gray background below the edge threshold of 128 would vote otherwise. */
static edge_image
planted_image(planted *lines, size_t width, size_t height)
{
    tu_rng rng;
    edge_image im = edge_image_new(width, height, width + 3);
    tu_rng_init(&rng, 20240601);
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++)
            im.data[y * im.stride + x] = (uint8_t)tu_rng_below(&rng, 100);
    sprinkle(&im, &rng, width * height / 200);
    for (int i = 0; i < N_PLANTED; i++) {
        unsigned g = 10 + 33 * (unsigned)i + tu_rng_below(&rng, 20);
        double theta = g * M_PI / 180.0;
        double centre = width / 2.0 * cos(theta) + height / 2.0 * sin(theta);
        lines[i].theta = theta;
        lines[i].rho = centre + tu_rng_float(&rng, -40.0f, 40.0f);
        draw_line(&im, theta, lines[i].rho, 255);
    }
    return im;
}

/* --- plans and runs --- */

static votecl_hough_plan *
plan_new(votecl_context *context, const votecl_hough_params *p, size_t width, size_t height)
{
    votecl_hough_plan *plan = NULL;
    votecl_status status = votecl_hough_plan_new(context, p, width, height, &plan);
    tu_check_ok(context, status, "plan %zux%zu", width, height);
    return plan;
}

#define MAX_LINES 64

typedef struct result {
    votecl_hough_line lines[MAX_LINES];
    size_t found;
    votecl_vote_stats stats;
    votecl_vote_plan_info info;
    uint32_t *acc; /* g_malloc'd copy */
    unsigned angles;
    uint32_t nbins;
} result;

static int
run(votecl_context *context, const votecl_hough_params *p, const edge_image *im, result *r)
{
    votecl_hough_plan *plan = plan_new(context, p, im->width, im->height);
    votecl_image view = edge_view(im);
    votecl_status status;
    memset(r, 0, sizeof *r);
    if (plan == NULL)
        return -1;
    status = votecl_hough_run(plan, &view, r->lines, MAX_LINES, &r->found, &r->stats);
    if (!tu_check_ok(context, status, "run")) {
        votecl_hough_plan_free(plan);
        return -1;
    }
    votecl_hough_plan_shape(plan, &r->angles, &r->nbins);
    g_assert_cmpint(votecl_hough_plan_describe(plan, im->width * im->height, &r->info), ==,
                    VOTECL_OK);
    r->acc = g_memdup2(votecl_hough_plan_accumulator(plan),
                       (size_t)r->angles * r->nbins * sizeof(uint32_t));
    votecl_hough_plan_free(plan);
    return 0;
}

static void
result_clear(result *r)
{
    g_free(r->acc);
    r->acc = NULL;
}

/* Angle distance with the wrap: (theta, rho) and (theta + pi, -rho) are one line. */
static int
matches(const votecl_hough_line *l, const planted *t, double step, double bin)
{
    double dtheta = l->theta - t->theta, rho = l->rho;
    if (dtheta > M_PI / 2) {
        dtheta -= M_PI;
        rho = -rho;
    } else if (dtheta < -M_PI / 2) {
        dtheta += M_PI;
        rho = -rho;
    }
    return fabs(dtheta) <= step + 1e-9 && fabs(rho - t->rho) <= bin;
}

/* --- the reference against truth --- */

static void
test_ref_planted(void)
{
    planted truth[N_PLANTED];
    edge_image im = planted_image(truth, 320, 240);
    votecl_hough_params p;
    result r;
    votecl_hough_params_init(&p);
    p.edge_threshold = 128;
    p.peak_threshold = 80;
    if (run(tu_ref_context, &p, &im, &r) == 0) {
        double bin = (sqrt(320.0 * 320 + 240 * 240) + 320) / r.nbins;
        for (size_t k = 0; k < r.found && k < MAX_LINES; k++)
            g_test_message("line %zu: angle %u theta %.4f rho %.2f votes %u", k, r.lines[k].angle,
                           r.lines[k].theta, r.lines[k].rho, r.lines[k].votes);
        g_assert_cmpuint(r.found, ==, N_PLANTED);
        g_assert_cmpuint(r.angles, ==, 180);
        g_assert_cmpuint(r.nbins, ==, (uint32_t)ceil(320 + 400));
        g_assert_cmpuint(r.stats.elements, ==, 320 * 240);
        for (int i = 0; i < N_PLANTED; i++) {
            int hit = 0;
            for (size_t k = 0; k < r.found; k++)
                hit += matches(&r.lines[k], &truth[i], M_PI / 180, bin);
            if (hit != 1)
                g_test_message("planted line %d (theta %.4f, rho %.2f) matched %d times", i,
                               truth[i].theta, truth[i].rho, hit);
            g_assert_cmpint(hit, ==, 1);
        }
        for (size_t k = 1; k < r.found; k++)
            g_assert_cmpuint(r.lines[k - 1].votes, >=, r.lines[k].votes);
    }
    result_clear(&r);
    g_free(im.data);
}

/* The first bin of an even N whose centre lies within 0.05 px of a whole number in
 * [lo, hi]; the plan's rho() is the bin centre. */
static uint32_t
bin_near_integer(votecl_hough_plan *plan, uint32_t nbins, double lo, double hi)
{
    for (uint32_t b = 0; b < nbins; b++) {
        double rho = votecl_hough_plan_rho(plan, b);
        if (rho >= lo && rho <= hi && fabs(rho - round(rho)) < 0.05)
            return b;
    }
    return UINT32_MAX;
}

/* A vertical (theta 0) and a horizontal (theta pi/2) line exactly at the centre of a bin of
 * an even N about 3.4 px wide: reported within a quarter bin (a half-bin bias would be off
 * by 1.7 px). */
static void
test_ref_bin_centre(void)
{
    const size_t w = 200, h = 150;
    votecl_hough_params p;
    votecl_hough_plan *plan;
    votecl_hough_params_init(&p);
    p.angles = 2; /* theta 0 and pi/2 */
    p.rho_bins = 130;
    if ((plan = plan_new(tu_ref_context, &p, w, h)) == NULL)
        return;
    double bin = (sqrt((double)w * w + (double)h * h) + w) / p.rho_bins;
    uint32_t bx = bin_near_integer(plan, p.rho_bins, 100, 190);
    uint32_t by = bin_near_integer(plan, p.rho_bins, 10, 90); /* far from bx in rho */
    g_assert_cmpuint(bx, !=, UINT32_MAX);
    g_assert_cmpuint(by, !=, UINT32_MAX);
    double x0 = round(votecl_hough_plan_rho(plan, bx)), y0 = round(votecl_hough_plan_rho(plan, by));
    edge_image im = edge_image_new(w, h, w);
    draw_line(&im, 0.0, x0, 255);
    draw_line(&im, M_PI / 2, y0, 255);
    votecl_image view = edge_view(&im);
    votecl_hough_line lines[4];
    size_t found = 0;
    g_assert_cmpint(votecl_hough_run(plan, &view, lines, 4, &found, NULL), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 2);
    for (size_t k = 0; k < 2; k++) {
        double truth = lines[k].angle == 0 ? x0 : y0;
        g_test_message("angle %u: rho %.3f, truth %.0f, bin %.3f px", lines[k].angle, lines[k].rho,
                       truth, bin);
        g_assert_cmpfloat(fabs(lines[k].rho - truth), <, 0.25 * bin);
        g_assert_cmpuint(lines[k].votes, >=, lines[k].angle == 0 ? h : w);
    }
    votecl_hough_plan_free(plan);
    g_free(im.data);
}

/* Lines that vote on both sides of the wrap are reported once. */
static void
check_found_once(double theta, double rho, size_t w, size_t h)
{
    edge_image im = edge_image_new(w, h, w);
    votecl_hough_params p;
    result r;
    planted truth = {theta, rho};
    votecl_hough_params_init(&p);
    size_t drawn = draw_line(&im, theta, rho, 255);
    p.peak_threshold = (uint32_t)(drawn / 4);
    if (run(tu_ref_context, &p, &im, &r) == 0) {
        for (size_t k = 0; k < r.found && k < MAX_LINES; k++)
            g_test_message("line %zu: angle %u theta %.4f rho %.2f votes %u", k, r.lines[k].angle,
                           r.lines[k].theta, r.lines[k].rho, r.lines[k].votes);
        g_assert_cmpuint(r.found, ==, 1);
        g_assert_true(matches(&r.lines[0], &truth, M_PI / 180, 1.0));
    }
    result_clear(&r);
    g_free(im.data);
}

static void
test_ref_wrap(void)
{
    /* theta half a step below 0 (that is, pi - step / 2): as close to angle 0 as to G - 1 */
    check_found_once(-0.5 * M_PI / 180, 3.0, 160, 120);
    check_found_once(-0.5 * M_PI / 180, 100.0, 160, 120);
    check_found_once(0.0, 0.0, 160, 120); /* the column x = 0 */
    check_found_once(0.0, 1.0, 160, 120);
    check_found_once(M_PI - 0.3 * M_PI / 180, -2.0, 160, 120);
}

static void
test_ref_empty(void)
{
    edge_image im = edge_image_new(61, 47, 64);
    votecl_hough_params p;
    result r;
    votecl_hough_params_init(&p);
    if (run(tu_ref_context, &p, &im, &r) == 0) {
        g_assert_cmpuint(r.found, ==, 0);
        g_assert_cmpuint(r.stats.kept, ==, 0);
        g_assert_cmpfloat(r.stats.eta, ==, 0.0);
        for (size_t i = 0; i < (size_t)r.angles * r.nbins; i++)
            g_assert_cmpuint(r.acc[i], ==, 0);
    }
    result_clear(&r);
    g_free(im.data);
}

/* The single-precision bin is at most one away from the exact one. */
static void
test_ref_bin_formula(void)
{
    votecl__hough_desc d;
    tu_rng rng;
    tu_rng_init(&rng, 7);
    g_assert_cmpint(votecl__hough_desc_init(&d, 1920, 1080, 64, 4200, 1, VOTECL_HOUGH_GRID_SPAN),
                    ==, VOTECL_OK);
    double r = sqrt(1920.0 * 1920 + 1080.0 * 1080) + 1920;
    for (int i = 0; i < 100000; i++) {
        uint32_t x = tu_rng_below(&rng, 1920), y = tu_rng_below(&rng, 1080);
        unsigned g = tu_rng_below(&rng, 64);
        double theta = g * M_PI / 64;
        double exact = floor((x * cos(theta) + y * sin(theta) + 1920) * 4200 / r);
        g_assert_cmpfloat(fabs(votecl__hough_bin(&d, x, y, g) - exact), <=, 1.0);
    }
    votecl__hough_desc_release(&d);
}

static void
test_ref_invalid_params(void)
{
    votecl_hough_params p;
    votecl_hough_plan *plan = NULL;
    votecl_hough_params_init(&p);
    p.angles = 0;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "angles");
    votecl_hough_params_init(&p);
    p.angles = VOTECL_HOUGH_MAX_ANGLES + 1;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "angles");
    votecl_hough_params_init(&p);
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 0, 10, &plan),
                      "width");
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 65536, 10, &plan),
                      "width");
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 0, &plan),
                      "height");
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 70000, &plan),
                      "height");
    p.peak_window = 4;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "peak_window");
    p.peak_window = 0;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "peak_window");
    votecl_hough_params_init(&p);
    p.edge_threshold = 256;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "edge_threshold");
    votecl_hough_params_init(&p);
    p.variant = (votecl_variant)42;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "variant");
    votecl_hough_params_init(&p);
    p.angles = 4096;
    p.rho_bins = 1u << 20;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "rho_bins");
    votecl_hough_params_init(&p);
    p.rho_grid = VOTECL_HOUGH_GRID_OPENCV;
    p.rho_bins = 100; /* the OpenCV grid has one bin per pixel */
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "rho_bins");
    votecl_hough_params_init(&p);
    p.rho_grid = (votecl_hough_grid)7;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "rho_grid");
    votecl_hough_params_init(&p);
    p.peak_rule = (votecl_hough_peak_rule)-1;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, &plan),
                      "peak_rule");
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, NULL, 10, 10, &plan),
                      "params");
    votecl_hough_params_init(&p);
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 10, 10, NULL),
                      "out");
    g_assert_null(plan);
    g_assert_cmpint(votecl_hough_plan_new(NULL, &p, 10, 10, &plan), ==, VOTECL_INVALID_ARGUMENT);
    votecl_hough_plan_free(NULL);
}

static void
test_ref_invalid_run(void)
{
    votecl_hough_params p;
    votecl_hough_plan *plan = NULL;
    uint8_t pixels[12 * 10] = {0};
    votecl_image view = {pixels, 12, 10, 12, 1, VOTECL_DTYPE_U8};
    votecl_hough_line lines[2];
    size_t found;
    votecl_hough_params_init(&p);
    g_assert_cmpint(votecl_hough_plan_new(tu_ref_context, &p, 12, 10, &plan), ==, VOTECL_OK);
    g_assert_null(votecl_hough_plan_accumulator(plan));
    tu_expect_invalid(tu_ref_context, votecl_hough_run(plan, NULL, lines, 2, &found, NULL),
                      "image");
    tu_expect_invalid(tu_ref_context, votecl_hough_run(plan, &view, lines, 2, NULL, NULL), "found");
    tu_expect_invalid(tu_ref_context, votecl_hough_run(plan, &view, NULL, 2, &found, NULL),
                      "lines");
    view.dtype = VOTECL_DTYPE_U16;
    tu_expect_invalid(tu_ref_context, votecl_hough_run(plan, &view, lines, 2, &found, NULL),
                      "image.dtype");
    view.dtype = VOTECL_DTYPE_U8;
    view.channels = 3;
    tu_expect_invalid(tu_ref_context, votecl_hough_run(plan, &view, lines, 2, &found, NULL),
                      "image.channels");
    view.channels = 1;
    view.width = 11;
    tu_expect_invalid(tu_ref_context, votecl_hough_run(plan, &view, lines, 2, &found, NULL),
                      "image.width");
    view.width = 12;
    view.stride = 11;
    tu_expect_invalid(tu_ref_context, votecl_hough_run(plan, &view, lines, 2, &found, NULL),
                      "image.stride");
    view.stride = 12;
    view.data = NULL;
    tu_expect_invalid(tu_ref_context, votecl_hough_run(plan, &view, lines, 2, &found, NULL),
                      "image.data");
    view.data = pixels;
    g_assert_cmpint(votecl_hough_run(plan, &view, NULL, 0, &found, NULL), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 0);
    g_assert_nonnull(votecl_hough_plan_accumulator(plan));
    votecl_hough_plan_free(plan);
}

/* found counts every peak, also beyond capacity; max_lines caps it. */
static void
test_ref_capacity(void)
{
    planted truth[N_PLANTED];
    edge_image im = planted_image(truth, 320, 240);
    votecl_image view = edge_view(&im);
    votecl_hough_params p;
    votecl_hough_plan *plan;
    votecl_hough_line lines[2];
    size_t found = 0;
    votecl_hough_params_init(&p);
    p.edge_threshold = 128;
    p.peak_threshold = 100;
    if ((plan = plan_new(tu_ref_context, &p, im.width, im.height)) != NULL) {
        g_assert_cmpint(votecl_hough_run(plan, &view, lines, 2, &found, NULL), ==, VOTECL_OK);
        g_assert_cmpuint(found, >=, N_PLANTED);
        votecl_hough_plan_free(plan);
    }
    p.max_lines = 3;
    if ((plan = plan_new(tu_ref_context, &p, im.width, im.height)) != NULL) {
        g_assert_cmpint(votecl_hough_run(plan, &view, lines, 2, &found, NULL), ==, VOTECL_OK);
        g_assert_cmpuint(found, ==, 3);
        votecl_hough_plan_free(plan);
    }
    g_free(im.data);
}

/* --- building.png: gray, Sobel magnitude, threshold --- */

static int
sobel_at(const edge_image *g, size_t x, size_t y)
{
    const uint8_t *p = g->data;
    size_t s = g->stride;
#define P(dx, dy) ((int)p[(y + (dy)) * s + (x + (dx))])
    int gx = P(1, -1) + 2 * P(1, 0) + P(1, 1) - P(-1, -1) - 2 * P(-1, 0) - P(-1, 1);
    int gy = P(-1, 1) + 2 * P(0, 1) + P(1, 1) - P(-1, -1) - 2 * P(0, -1) - P(1, -1);
#undef P
    return (int)sqrt((double)(gx * gx + gy * gy));
}

/* gx^2 + gy^2 of (x, y), 0 on the one-pixel border and outside the image. */
static int64_t
sobel_m_at(const edge_image *g, long x, long y)
{
    const uint8_t *p = g->data;
    size_t s = g->stride;
    int64_t gx, gy;
    if (x < 1 || y < 1 || x + 1 >= (long)g->width || y + 1 >= (long)g->height)
        return 0;
#define P(dx, dy) ((int64_t)p[(size_t)(y + (dy)) * s + (size_t)(x + (dx))])
    gx = P(1, -1) + 2 * P(1, 0) + P(1, 1) - P(-1, -1) - 2 * P(-1, 0) - P(-1, 1);
    gy = P(-1, 1) + 2 * P(0, 1) + P(1, 1) - P(-1, -1) - 2 * P(0, -1) - P(1, -1);
#undef P
    return gx * gx + gy * gy;
}

/* The thinned edge of votecl_hough_run_gray() as votecl-hough.h states it: m at least
 * threshold^2, above the neighbour behind across the edge, at least the one ahead. */
static int
thin_edge_at(const edge_image *g, long x, long y, unsigned threshold)
{
    const uint8_t *p = g->data;
    size_t s = g->stride;
    int64_t gx, gy, a, b, m = sobel_m_at(g, x, y);
    long bx, by; /* the step to the neighbour ahead; behind is minus it */
    if (x < 1 || y < 1 || x + 1 >= (long)g->width || y + 1 >= (long)g->height ||
        m < (int64_t)threshold * threshold)
        return 0;
#define P(dx, dy) ((int64_t)p[(size_t)(y + (dy)) * s + (size_t)(x + (dx))])
    gx = P(1, -1) + 2 * P(1, 0) + P(1, 1) - P(-1, -1) - 2 * P(-1, 0) - P(-1, 1);
    gy = P(-1, 1) + 2 * P(0, 1) + P(1, 1) - P(-1, -1) - 2 * P(0, -1) - P(1, -1);
#undef P
    a = gx < 0 ? -gx : gx;
    b = gy < 0 ? -gy : gy;
    if (100000 * b <= 41421 * a) {
        bx = 1;
        by = 0;
    } else if (100000 * b >= 241421 * a) {
        bx = 0;
        by = 1;
    } else {
        bx = (gx < 0) == (gy < 0) ? 1 : -1;
        by = 1;
    }
    return m > sobel_m_at(g, x - bx, y - by) && m >= sobel_m_at(g, x + bx, y + by);
}

static int
building_gray(edge_image *out)
{
    const char *srcdir = g_getenv("VOTECL_TEST_SRCDIR");
    char *path =
        g_build_filename(srcdir ? srcdir : "tests", "..", "tools", "images", "building.png", NULL);
    tool_image rgb = {0}, gray = {0};
    char error[600];
    int ok = tool_image_read(path, &rgb, error, sizeof error) == 0 &&
             tool_image_to_gray(&rgb, &gray, error, sizeof error) == 0;
    g_free(path);
    tool_image_free(&rgb);
    if (!ok) {
        g_test_skip(error);
        return -1;
    }
    *out = edge_image_new(gray.width, gray.height, gray.width);
    for (size_t y = 0; y < gray.height; y++)
        memcpy(out->data + y * out->stride, gray.data + y * gray.stride, gray.width);
    tool_image_free(&gray);
    return 0;
}

static int
building_edges(edge_image *out)
{
    edge_image gray;

    if (building_gray(&gray) < 0)
        return -1;
    *out = edge_image_new(gray.width, gray.height, gray.width);
    for (size_t y = 1; y + 1 < gray.height; y++)
        for (size_t x = 1; x + 1 < gray.width; x++)
            out->data[y * out->stride + x] = sobel_at(&gray, x, y) >= 200 ? 255 : 0;
    g_free(gray.data);
    return 0;
}

/* --- the device against the reference --- */

/* --- OpenCV's grid and peak rule (issue 23 item 4) --- */

/* cv2.HoughLinesWithAccumulator(im, 1, np.pi / 180, 50) of OpenCV 4.6 (Debian's
 * python3-opencv) on three cv2.line()s in a 131 x 97 image: y = 30 from x 10 to 120, x = 100
 * from y 5 to 90, x + y = 95 from (5, 90) to (90, 5); (theta, rho, votes) in cv2's order. */
static const struct {
    float theta;
    double rho;
    uint32_t votes;
} cv2_lines[] = {
    {1.5707963705062866f, 30, 111},  {0.0f, 100, 86},
    {0.7853981852531433f, 67, 86},   {1.5533430576324463f, 31, 59},
    {1.5882495641708374f, 29, 58},   {3.1241393089294434f, -99, 58},
    {0.01745329238474369f, 101, 57},
};

static edge_image
cv2_lines_image(void)
{
    edge_image im = edge_image_new(131, 97, 131);
    for (size_t x = 10; x <= 120; x++)
        im.data[30 * im.stride + x] = 255;
    for (size_t y = 5; y <= 90; y++)
        im.data[y * im.stride + 100] = 255;
    for (size_t x = 5; x <= 90; x++)
        im.data[(95 - x) * im.stride + x] = 255;
    return im;
}

/* The lines of cv2.HoughLines exactly (theta to float, rho, votes, order); and on OpenCV's
 * grid with the default window rule, the lines at rho 30.0 and 100.0 exactly (the span grid
 * reports 30.19 and 100.5). */
static void
check_opencv(votecl_context *ctx)
{
    edge_image im = cv2_lines_image();
    votecl_image view = edge_view(&im);
    votecl_hough_params p;
    votecl_hough_plan *plan;
    votecl_hough_line lines[16];
    size_t found = 0;

    votecl_hough_params_init(&p);
    p.rho_grid = VOTECL_HOUGH_GRID_OPENCV;
    p.peak_rule = VOTECL_HOUGH_PEAKS_OPENCV;
    p.merge_distance = 0;
    p.peak_threshold = 50;
    if ((plan = plan_new(ctx, &p, im.width, im.height)) != NULL) {
        g_assert_cmpint(votecl_hough_run(plan, &view, lines, 16, &found, NULL), ==, VOTECL_OK);
        g_assert_cmpuint(found, ==, G_N_ELEMENTS(cv2_lines));
        for (size_t k = 0; k < found; k++) {
            g_test_message("%zu: theta %.9g rho %g votes %u", k, lines[k].theta, lines[k].rho,
                           lines[k].votes);
            g_assert_cmpfloat((float)lines[k].theta, ==, cv2_lines[k].theta);
            g_assert_cmpfloat(lines[k].rho, ==, cv2_lines[k].rho);
            g_assert_cmpuint(lines[k].votes, ==, cv2_lines[k].votes);
        }
        votecl_hough_plan_free(plan);
    }
    votecl_hough_params_init(&p);
    p.rho_grid = VOTECL_HOUGH_GRID_OPENCV;
    if ((plan = plan_new(ctx, &p, im.width, im.height)) != NULL) {
        g_assert_cmpint(votecl_hough_run(plan, &view, lines, 16, &found, NULL), ==, VOTECL_OK);
        g_assert_cmpuint(found, >=, 3);
        for (size_t k = 0; k < 3; k++) {
            g_assert_cmpfloat((float)lines[k].theta, ==, cv2_lines[k].theta);
            g_assert_cmpfloat(lines[k].rho, ==, cv2_lines[k].rho);
        }
        votecl_hough_plan_free(plan);
    }
    g_free(im.data);
}

static void
test_ref_opencv(void)
{
    check_opencv(tu_ref_context);
}

static void
test_device_opencv(void)
{
    if (device() != NULL)
        check_opencv(device());
}

typedef struct device_case {
    votecl_variant variant;
    const char *what;
} device_case;

/* Device and reference: equal accumulators, equal stats and equal peaks. */
static void
compare(const device_case *c, votecl_hough_params *p, const edge_image *im)
{
    votecl_context *ctx = device();
    result dev, ref;
    if (ctx == NULL)
        return;
    p->variant = c->variant;
    if (run(tu_ref_context, p, im, &ref) == 0 && run(ctx, p, im, &dev) == 0) {
        size_t cells = (size_t)ref.angles * ref.nbins;
        size_t diff = tu_first_difference(dev.acc, ref.acc, cells, 4);
        g_test_message("%s: %u x %u bins, %zu of %zu pixels are edges, %zu lines", c->what,
                       ref.angles, ref.nbins, ref.stats.kept, ref.stats.elements, ref.found);
        if (diff != (size_t)-1)
            g_test_message("first difference at angle %zu bin %zu: device %u, reference %u",
                           diff / ref.nbins, diff % ref.nbins, dev.acc[diff], ref.acc[diff]);
        g_assert_cmpuint(diff, ==, (size_t)-1);
        if (c->variant != VOTECL_VARIANT_AUTO) /* auto: whatever the device's shape takes */
            g_assert_cmpint(dev.info.variant, ==, c->variant);
        g_assert_cmpuint(dev.stats.kept, ==, ref.stats.kept);
        g_assert_cmpuint(dev.stats.elements, ==, ref.stats.elements);
        g_assert_cmpuint(dev.found, ==, ref.found);
        g_assert_cmpmem(dev.lines, MIN(dev.found, MAX_LINES) * sizeof dev.lines[0], ref.lines,
                        MIN(ref.found, MAX_LINES) * sizeof ref.lines[0]);
    }
    result_clear(&dev);
    result_clear(&ref);
}

static void
test_device_planted(gconstpointer data)
{
    planted truth[N_PLANTED];
    edge_image im = planted_image(truth, 320, 240);
    votecl_hough_params p;
    votecl_hough_params_init(&p);
    p.edge_threshold = 128;
    compare(data, &p, &im);
    p.rho_grid = VOTECL_HOUGH_GRID_OPENCV; /* another vote_index, another rule */
    p.peak_rule = VOTECL_HOUGH_PEAKS_OPENCV;
    p.merge_distance = 0;
    compare(data, &p, &im);
    g_free(im.data);
}

/* Same size as the planted image: the same program. */
static void
test_device_empty(gconstpointer data)
{
    edge_image im = edge_image_new(320, 240, 320);
    votecl_hough_params p;
    votecl_hough_params_init(&p);
    p.edge_threshold = 128;
    compare(data, &p, &im);
    g_free(im.data);
}

/* GPU-vote's configuration: 64 angles x 4200 rho bins. */
static void
test_device_paper(gconstpointer data)
{
    tu_rng rng;
    edge_image im = edge_image_new(640, 480, 640);
    votecl_hough_params p;
    tu_rng_init(&rng, 4200);
    sprinkle(&im, &rng, 640 * 480 / 20);
    draw_line(&im, 0.7, 300.0, 255);
    draw_line(&im, 2.0, -50.0, 255);
    votecl_hough_params_init(&p);
    p.angles = 64;
    p.rho_bins = 4200;
    p.edge_threshold = 2; /* the sprinkled gray levels: thresholded explicitly */
    compare(data, &p, &im);
    g_free(im.data);
}

static void gray_case(votecl_context *ctx, const votecl_hough_params *p, const edge_image *im,
                      const unsigned *thresholds, size_t n, const char *what);

/* The edges of building.png voted, then its gray image through votecl_hough_run_gray() with
 * the thinned edges (the default) on the same strategy. */
static void
test_device_building(gconstpointer data)
{
    static const unsigned threshold[] = {200};
    const device_case *c = data;
    edge_image im;
    votecl_hough_params p;
    if (device() == NULL || building_edges(&im) < 0)
        return;
    votecl_hough_params_init(&p);
    p.max_lines = 20;
    compare(data, &p, &im);
    g_free(im.data);
    if (building_gray(&im) < 0)
        return;
    p.variant = c->variant;
    gray_case(device(), &p, &im, threshold, 1, "building.png, thinned edges");
    g_free(im.data);
}

/* The device-buffer run (auto plan) votes the same accumulator as votecl_hough_run. */
static void
test_device_buffers(void)
{
    planted truth[N_PLANTED];
    edge_image im = planted_image(truth, 320, 240);
    votecl_context *ctx = device();
    votecl_hough_params p;
    votecl_hough_plan *plan = NULL;
    votecl_buffer *in = NULL, *acc = NULL;
    votecl_vote_stats stats;
    result ref = {0};
    if (ctx == NULL)
        goto out;
    votecl_hough_params_init(&p);
    p.edge_threshold = 128;
    if (run(tu_ref_context, &p, &im, &ref) < 0 || (plan = plan_new(ctx, &p, 320, 240)) == NULL)
        goto out;
    size_t cells = (size_t)ref.angles * ref.nbins;
    uint32_t *bins = g_malloc(cells * 4);
    g_assert_cmpint(votecl_buffer_new(ctx, 320 * 240, &in), ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_new(ctx, cells * 4, &acc), ==, VOTECL_OK);
    for (size_t y = 0; y < 240; y++)
        g_assert_cmpint(votecl_buffer_write(in, y * 320, im.data + y * im.stride, 320), ==,
                        VOTECL_OK);
    g_assert_cmpint(votecl_hough_run_buffers(plan, in, acc), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hough_plan_last_stats(plan, &stats), ==, VOTECL_OK);
    g_assert_cmpuint(stats.kept, ==, ref.stats.kept);
    g_assert_cmpint(votecl_buffer_read(acc, 0, bins, cells * 4), ==, VOTECL_OK);
    g_assert_cmpmem(bins, cells * 4, ref.acc, cells * 4);
    g_assert_cmpint(votecl_hough_run_buffers(plan, acc, NULL), ==, VOTECL_INVALID_ARGUMENT);
    g_free(bins);
out:
    result_clear(&ref);
    votecl_buffer_free(in);
    votecl_buffer_free(acc);
    votecl_hough_plan_free(plan);
    g_free(im.data);
}

/* --- the gray path: votecl_hough_run_gray() --- */

typedef struct gray_result {
    votecl_hough_line lines[MAX_LINES];
    size_t found;
    votecl_vote_stats stats;
    uint32_t *acc; /* g_malloc'd copy */
    size_t cells;
} gray_result;

/* Runs the gray path with plan (twice when again: a reused plan must give the same). */
static int
gray_run(votecl_hough_plan *plan, votecl_context *ctx, const edge_image *im, unsigned threshold,
         gray_result *r)
{
    votecl_image view = edge_view(im);
    unsigned angles;
    uint32_t nbins;
    votecl_status status;
    memset(r, 0, sizeof *r);
    status =
        votecl_hough_run_gray(plan, &view, threshold, r->lines, MAX_LINES, &r->found, &r->stats);
    if (status != VOTECL_OK) {
        g_test_message("run_gray: %s: %s", votecl_status_string(status),
                       votecl_context_get_error(ctx));
        g_test_fail();
        return -1;
    }
    votecl_hough_plan_shape(plan, &angles, &nbins);
    r->cells = (size_t)angles * nbins;
    g_assert_nonnull(votecl_hough_plan_accumulator(plan));
    r->acc = g_memdup2(votecl_hough_plan_accumulator(plan), r->cells * 4);
    return 0;
}

static void
gray_compare(const gray_result *dev, const gray_result *ref, const char *what)
{
    size_t diff = tu_first_difference(dev->acc, ref->acc, ref->cells, 4);
    g_test_message("%s: %zu of %zu pixels are edges, %zu lines", what, ref->stats.kept,
                   ref->stats.elements, ref->found);
    g_assert_cmpuint(diff, ==, (size_t)-1);
    g_assert_cmpuint(dev->stats.kept, ==, ref->stats.kept);
    g_assert_cmpuint(dev->stats.elements, ==, ref->stats.elements);
    g_assert_cmpuint(dev->found, ==, ref->found);
    g_assert_cmpmem(dev->lines, MIN(dev->found, MAX_LINES) * sizeof dev->lines[0], ref->lines,
                    MIN(ref->found, MAX_LINES) * sizeof ref->lines[0]);
}

/* The device's gray path against the reference's on one image, thresholds in turn on one
 * plan per context. */
static void
gray_case(votecl_context *ctx, const votecl_hough_params *p, const edge_image *im,
          const unsigned *thresholds, size_t n, const char *what)
{
    votecl_hough_plan *dplan = plan_new(ctx, p, im->width, im->height);
    votecl_hough_plan *rplan = plan_new(tu_ref_context, p, im->width, im->height);
    for (size_t k = 0; dplan != NULL && rplan != NULL && k < n; k++) {
        gray_result dev, ref;
        if (gray_run(rplan, tu_ref_context, im, thresholds[k], &ref) == 0 &&
            gray_run(dplan, ctx, im, thresholds[k], &dev) == 0)
            gray_compare(&dev, &ref, what);
        g_free(dev.acc);
        g_free(ref.acc);
    }
    votecl_hough_plan_free(dplan);
    votecl_hough_plan_free(rplan);
}

/* Lines drawn as gray steps (a region brighter on one side) and noise: real gradients. */
static edge_image
gray_lines_image(size_t width, size_t height, size_t stride, uint64_t seed)
{
    tu_rng rng;
    edge_image im = edge_image_new(width, height, stride);
    tu_rng_init(&rng, seed);
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++)
            im.data[y * stride + x] = (uint8_t)(40 + tu_rng_below(&rng, 30));
    for (int i = 0; i < 4; i++) {
        double theta = tu_rng_float(&rng, 0.0f, (float)M_PI);
        double rho = width / 2.0 * cos(theta) + height / 2.0 * sin(theta) +
                     tu_rng_float(&rng, -20.0f, 20.0f);
        draw_line(&im, theta, rho, (uint8_t)(200 + 10 * i));
    }
    return im;
}

static void
test_ref_gray_edges(void)
{
    static const unsigned thresholds[] = {0, 1, 59, 60, 61, 200, 255, 1442, 1443, 100000};
    edge_image im = gray_lines_image(97, 61, 101, 77);
    votecl_hough_params p;
    votecl_hough_plan *plan;
    votecl_hough_params_init(&p);
    p.peak_threshold = 8;
    p.segments = 1;
    p.thin_edges = 0;
    plan = plan_new(tu_ref_context, &p, im.width, im.height);
    for (size_t k = 0; plan != NULL && k < 2 * G_N_ELEMENTS(thresholds); k++) {
        edge_image edges = edge_image_new(im.width, im.height, im.width);
        unsigned t = thresholds[k % G_N_ELEMENTS(thresholds)];
        gray_result g = {.found = 0};
        result r;
        if (k == G_N_ELEMENTS(thresholds)) { /* the thinned edges, the default */
            votecl_hough_plan_free(plan);
            p.thin_edges = 1;
            plan = plan_new(tu_ref_context, &p, im.width, im.height);
        }
        for (size_t y = 1; y + 1 < im.height; y++)
            for (size_t x = 1; x + 1 < im.width; x++)
                edges.data[y * edges.stride + x] =
                    (p.thin_edges ? thin_edge_at(&im, (long)x, (long)y, t)
                                  : (unsigned)sobel_at(&im, x, y) >= t)
                        ? 255
                        : 0;
        if (plan != NULL && gray_run(plan, tu_ref_context, &im, t, &g) == 0 &&
            run(tu_ref_context, &p, &edges, &r) == 0) {
            g_assert_cmpmem(g.acc, g.cells * 4, r.acc, g.cells * 4);
            g_assert_cmpuint(g.stats.kept, ==, r.stats.kept);
            g_assert_cmpuint(g.found, ==, r.found);
            g_assert_cmpmem(g.lines, MIN(g.found, MAX_LINES) * sizeof g.lines[0], r.lines,
                            MIN(r.found, MAX_LINES) * sizeof r.lines[0]);
            result_clear(&r);
        }
        g_free(g.acc);
        g_free(edges.data);
    }
    if (plan != NULL) { /* the checks of votecl_hough_run() */
        votecl_image view = edge_view(&im);
        votecl_hough_line l[1];
        size_t found;
        view.width--;
        g_assert_cmpint(votecl_hough_run_gray(plan, &view, 200, l, 1, &found, NULL), ==,
                        VOTECL_INVALID_ARGUMENT);
        g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "image.width"));
        view.width++;
        g_assert_cmpint(votecl_hough_run_gray(plan, &view, 200, l, 1, NULL, NULL), ==,
                        VOTECL_INVALID_ARGUMENT);
        g_assert_cmpint(votecl_hough_run_gray(plan, &view, 200, NULL, 1, &found, NULL), ==,
                        VOTECL_INVALID_ARGUMENT);
        g_assert_cmpint(votecl_hough_run_gray(NULL, &view, 200, l, 1, &found, NULL), ==,
                        VOTECL_INVALID_ARGUMENT);
    }
    votecl_hough_plan_free(plan);
    g_free(im.data);
}

/* A step of value v from column `at` on (rows from `at` on when rows), else 0. */
static edge_image
step_image(size_t width, size_t height, size_t at, int rows, uint8_t v)
{
    edge_image im = edge_image_new(width, height, width + 5);
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++)
            im.data[y * im.stride + x] = (rows ? y : x) >= at ? v : 0;
    return im;
}

/* votecl_hough_sobel_edges(ctx-free: the ref context) of im at threshold t, packed. */
static edge_image
sobel_edges(const edge_image *im, unsigned t, int thin)
{
    edge_image e = edge_image_new(im->width, im->height, im->width + 1);
    votecl_image view = edge_view(im);
    g_assert_cmpint(votecl_hough_sobel_edges(tu_ref_context, &view, t, thin, e.data, e.stride), ==,
                    VOTECL_OK);
    return e;
}

/* Which columns (rows when rows) of the interior of e are all edges, as a bit mask; every
 * other interior pixel must be 0. */
static uint64_t
edge_lines(const edge_image *e, int rows)
{
    uint64_t mask = 0;
    size_t n = rows ? e->height : e->width, across = rows ? e->width : e->height;
    for (size_t i = 0; i < n; i++) {
        size_t on = 0;
        for (size_t j = 1; j + 1 < across; j++)
            on += e->data[rows ? i * e->stride + j : j * e->stride + i] == 255;
        g_assert_true(on == 0 || on == across - 2);
        mask |= on > 0 ? (uint64_t)1 << i : 0;
    }
    return mask;
}

/* The thinned edges (votecl-hough.h): of two equal magnitudes side by side the one behind (to
 * the left, above) is kept; a neighbour on the border counts 0 whatever the image holds
 * there; the thick rule keeps both; every pixel of a gray image as the stated rule. */
static void
test_ref_thin_edges(void)
{
    static const struct {
        size_t at;
        uint64_t thin, thick; /* interior columns (rows) of edges */
    } steps[] = {
        {5, 1u << 4, 3u << 4},  /* the tie at columns 4 and 5: 4 */
        {2, 1u << 1, 3u << 1},  /* 1's neighbour behind is column 0, the border */
        {1, 1u << 1, 1u << 1},  /* the step on the border: column 1 alone reaches 800 */
        {10, 1u << 9, 3u << 9}, /* columns 9 and 10 of 12 tie; 11 is the border */
        {11, 1u << 10, 1u << 10},
    };
    for (int rows = 0; rows < 2; rows++)
        for (size_t k = 0; k < G_N_ELEMENTS(steps); k++) {
            edge_image im = step_image(12, 12, steps[k].at, rows, 200);
            edge_image thin = sobel_edges(&im, 200, 1), thick = sobel_edges(&im, 200, 0);
            g_test_message("step at %zu (%s): thin %#llx, thick %#llx", steps[k].at,
                           rows ? "rows" : "columns", (unsigned long long)edge_lines(&thin, rows),
                           (unsigned long long)edge_lines(&thick, rows));
            g_assert_cmpuint(edge_lines(&thin, rows), ==, steps[k].thin);
            g_assert_cmpuint(edge_lines(&thick, rows), ==, steps[k].thick);
            g_free(im.data);
            g_free(thin.data);
            g_free(thick.data);
        }
    for (uint64_t seed = 1; seed <= 3; seed++) { /* ties, diagonals, the border: the rule */
        edge_image im = gray_lines_image(41 + seed, 37, 47, seed);
        for (size_t i = 0; i < 41 * 37 / 3; i++) /* plateaus of equal magnitudes */
            im.data[(i * 7 % 37) * im.stride + i * 5 % (41 + seed)] = (uint8_t)(i % 2 * 255);
        for (unsigned t = 0; t <= 400; t += 100) {
            edge_image e = sobel_edges(&im, t, 1);
            size_t kept = 0, thick = 0;
            for (long y = 0; y < (long)im.height; y++)
                for (long x = 0; x < (long)im.width; x++) {
                    int want = thin_edge_at(&im, x, y, t);
                    g_assert_cmpuint(e.data[(size_t)y * e.stride + (size_t)x], ==, want ? 255 : 0);
                    kept += want;
                    thick += sobel_m_at(&im, x, y) >= (int64_t)t * t && x > 0 && y > 0 &&
                             x + 1 < (long)im.width && y + 1 < (long)im.height;
                }
            g_test_message("seed %llu, threshold %u: %zu thinned edges of %zu",
                           (unsigned long long)seed, t, kept, thick);
            g_assert_cmpuint(kept, <, thick);
            g_free(e.data);
        }
        g_free(im.data);
    }
}

/* votecl_hough_sobel_edges' arguments. */
static void
test_ref_sobel_edges_invalid(void)
{
    edge_image im = step_image(8, 6, 3, 0, 200);
    votecl_image view = edge_view(&im);
    uint8_t out[8 * 6];
    tu_expect_invalid(tu_ref_context,
                      votecl_hough_sobel_edges(tu_ref_context, NULL, 200, 1, out, 8), "image");
    tu_expect_invalid(tu_ref_context,
                      votecl_hough_sobel_edges(tu_ref_context, &view, 200, 1, NULL, 8), "edges");
    tu_expect_invalid(tu_ref_context,
                      votecl_hough_sobel_edges(tu_ref_context, &view, 200, 1, out, 7),
                      "edges_stride");
    g_assert_cmpint(votecl_hough_sobel_edges(NULL, &view, 200, 1, out, 8), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_free(im.data);
}

/* A segment's ends lie within half a pixel of the extreme pixels (a, b) and (c, d), either way
 * round. */
static int
segment_ends_at(const votecl_hough_line *l, double a, double b, double c, double d)
{
    double e0 = hypot(l->x0 - a, l->y0 - b), e1 = hypot(l->x1 - c, l->y1 - d);
    double f0 = hypot(l->x0 - c, l->y0 - d), f1 = hypot(l->x1 - a, l->y1 - b);
    return l->has_segment && ((e0 <= 0.5 && e1 <= 0.5) || (f0 <= 0.5 && f1 <= 0.5));
}

/* Issue 23 item 3 (scikit-image's test_probabilistic_hough): 8-connected 45-degree lines are
 * contiguous, a diagonal step is no gap, and the segment ends lie on the end pixels; a
 * horizontal and a vertical line keep their ends. */
static void
check_segments_whole(votecl_context *ctx)
{
    edge_image im = edge_image_new(TU_SEGMENTS_SIDE, TU_SEGMENTS_SIDE, TU_SEGMENTS_SIDE);
    votecl_hough_params p;
    result r;
    tu_segments_whole_draw(im.data);
    votecl_hough_params_init(&p);
    p.segments = 1;
    p.max_gap = 1;
    p.min_length = 10;
    p.peak_threshold = 10;
    if (run(ctx, &p, &im, &r) == 0) {
        TU_CHECK_SEGMENTS(r.lines, r.found, MAX_LINES, tu_segments_whole_want, segment_ends_at);
        result_clear(&r);
    }
    g_free(im.data);
}

static void
test_ref_segments_diagonal(void)
{
    check_segments_whole(tu_ref_context);
}

static void
test_device_segments_diagonal(void)
{
    if (device() != NULL)
        check_segments_whole(device());
}

/* Issue 26 item 3 (tests/segments.h): the theta-rho detector's segments of the dashed scene;
 * each line's own fields hold its longest. */
TU_SEGMENT_DETECTOR(hough_segments, hough, votecl_hough_line,
                    votecl_hough_run(plan, view, lines, 2, n, NULL));

static void
test_ref_segments_dashed(void)
{
    tu_check_dashed_ref(&hough_segments);
}

static void
test_device_segments_dashed(void)
{
    tu_check_dashed_device(&hough_segments, device());
}

static void
test_device_gray(void)
{
    static const unsigned building_t[] = {200, 120};
    /* 65535 and 70000: a threshold whose square leaves 32 bits (no pixel reaches either) */
    static const unsigned lines_t[] = {200, 60, 0, 1443, 65535, 70000};
    static const unsigned one_t[] = {0, 200};
    votecl_context *ctx = device();
    votecl_hough_params p;
    edge_image im;
    if (ctx == NULL)
        return;
    votecl_hough_params_init(&p);
    p.max_lines = 20;
    if (building_gray(&im) == 0) {
        gray_case(ctx, &p, &im, building_t, G_N_ELEMENTS(building_t), "building.png");
        p.thin_edges = 0;
        gray_case(ctx, &p, &im, building_t, G_N_ELEMENTS(building_t), "building.png, thick");
        g_free(im.data);
    }
    /* the thinned edges' ties and borders (test_ref_thin_edges' steps), either direction */
    votecl_hough_params_init(&p);
    p.peak_threshold = 4;
    for (int rows = 0; rows < 2; rows++)
        for (size_t at = 1; at <= 11; at += 5) {
            im = step_image(12, 12, at, rows, 200);
            gray_case(ctx, &p, &im, lines_t, 1, "a step");
            g_free(im.data);
        }
    votecl_hough_params_init(&p);
    p.segments = 1;
    im = gray_lines_image(321, 243, 325, 5);
    gray_case(ctx, &p, &im, lines_t, G_N_ELEMENTS(lines_t), "generated lines 321x243");
    g_free(im.data);
    im = edge_image_new(200, 150, 200);
    gray_case(ctx, &p, &im, lines_t, G_N_ELEMENTS(lines_t), "empty 200x150");
    g_free(im.data);
    p.edge_threshold = 0; /* every pixel votes, 0 or 255: the listing keeps them all */
    im = gray_lines_image(203, 61, 207, 12); /* whole chunks of hough_row_edges too */
    gray_case(ctx, &p, &im, lines_t, 1, "edge_threshold 0");
    g_free(im.data);
    p.edge_threshold = 1;
    im = gray_lines_image(1, 1, 1, 9);
    gray_case(ctx, &p, &im, one_t, G_N_ELEMENTS(one_t), "1x1");
    g_free(im.data);
    im = gray_lines_image(3, 77, 5, 10);
    gray_case(ctx, &p, &im, one_t, G_N_ELEMENTS(one_t), "3x77");
    g_free(im.data);
    /* every noise pixel an edge and peaks of 2 votes with a 1-cell window: more local
     * maxima than the first candidate buffer (4096) holds, the angle wrap at every edge */
    votecl_hough_params_init(&p);
    p.peak_threshold = 2;
    p.peak_window = 1;
    p.angles = 90;
    im = gray_lines_image(157, 131, 157, 11);
    gray_case(ctx, &p, &im, one_t + 0, 1, "many candidates");
    p.peak_window = 5;
    gray_case(ctx, &p, &im, one_t + 0, 1, "many candidates, window 5");
    /* OpenCV's grid and rule: hough_candidates' 4-neighbour test, thousands of candidates */
    votecl_hough_params_init(&p);
    p.rho_grid = VOTECL_HOUGH_GRID_OPENCV;
    p.peak_rule = VOTECL_HOUGH_PEAKS_OPENCV;
    p.peak_threshold = 2;
    gray_case(ctx, &p, &im, one_t + 0, 1, "many candidates, OpenCV's rule");
    g_free(im.data);
}

static void
add_device_tests(void)
{
    static const device_case cases[] = {
        {VOTECL_VARIANT_LOCAL, "local"},
        {VOTECL_VARIANT_GLOBAL, "global"},
        {VOTECL_VARIANT_PRIVATE, "private"},
        {VOTECL_VARIANT_AUTO, "auto"}, /* CPU shapes: lib/hough-rows.c, not the engine */
    };
    static const struct {
        const char *name;
        GTestDataFunc fn;
    } tests[] = {
        {"planted", test_device_planted},
        {"empty", test_device_empty},
        {"paper-64x4200", test_device_paper},
        {"building", test_device_building},
    };
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++)
        for (size_t t = 0; t < G_N_ELEMENTS(tests); t++) {
            char *path = g_strdup_printf("%s/hough/%s", cases[c].what, tests[t].name);
            tu_add_device_data_test(path, &cases[c], tests[t].fn, NULL);
            g_free(path);
        }
}

/* Counts the programs a context compiles (votecl_context_set_build_callback). */
static void
count_builds(votecl_build_event event, const char *what, double seconds, void *user)
{
    if (event == VOTECL_BUILD_STARTED)
        (*(unsigned *)user)++;
}

/* A planted image of width x height voted on ctx equals the reference's. */
static void
check_size(votecl_context *ctx, const votecl_hough_params *p, size_t width, size_t height)
{
    planted truth[N_PLANTED];
    edge_image im = planted_image(truth, width, height);
    result dev = {0}, ref = {0};
    if (run(tu_ref_context, p, &im, &ref) == 0 && run(ctx, p, &im, &dev) == 0) {
        g_assert_cmpuint(dev.stats.kept, ==, ref.stats.kept);
        g_assert_cmpmem(dev.acc, (size_t)ref.angles * ref.nbins * 4, ref.acc,
                        (size_t)ref.angles * ref.nbins * 4);
    }
    result_clear(&dev);
    result_clear(&ref);
    g_free(im.data);
}

/* On a CPU-shaped device (forced here, so any device runs it) the vote takes every size as
 * a kernel argument: after a first plan at one size (what votecl warmup makes), plans at
 * other sizes, angle counts and either grid compile nothing. The disk cache is off, so a
 * program the sizes still selected would be built and counted. */
static void
test_device_any_size(void)
{
    votecl_context_options options;
    char *saved = g_strdup(g_getenv("VOTECL_FORCE_SHAPE"));
    votecl_context *ctx;
    votecl_hough_params p;
    unsigned builds = 0;
    votecl_context_options_init(&options);
    options.disable_disk_cache = 1;
    g_setenv("VOTECL_FORCE_SHAPE", "cpu", TRUE);
    ctx = tu_device_context_new(&options);
    if (saved != NULL)
        g_setenv("VOTECL_FORCE_SHAPE", saved, TRUE);
    else
        g_unsetenv("VOTECL_FORCE_SHAPE");
    g_free(saved);
    if (ctx == NULL)
        return;
    g_assert_cmpint(votecl_context_set_build_callback(ctx, count_builds, &builds), ==, VOTECL_OK);
    votecl_hough_params_init(&p);
    p.edge_threshold = 128;
    check_size(ctx, &p, 320, 240);
    g_assert_cmpuint(builds, >, 0); /* the first plan did compile */
    builds = 0;
    check_size(ctx, &p, 333, 221);
    p.angles = 61;
    p.rho_bins = 777;
    check_size(ctx, &p, 200, 300);
    votecl_hough_params_init(&p);
    p.edge_threshold = 128;
    p.rho_grid = VOTECL_HOUGH_GRID_OPENCV;
    check_size(ctx, &p, 257, 129);
    g_assert_cmpuint(builds, ==, 0);
    votecl_context_free(ctx);
}

/* --- the line truth suite (tests/truth-lines.h): a fixed subset with recall floors, the
 * defaults on the gray path's Sobel edges (magnitude >= 200, thinned, as votecl hough) --- */

typedef struct truth_subset {
    const char *family;
    size_t step, count;
    double recall; /* floor (measured: docs/accuracy.md) */
} truth_subset;

static void
check_truth(votecl_context *ctx)
{
    static const truth_subset subsets[] = {
        {"single-8conn", 5, 36, 1.0},
        {"single-aa", 10, 18, 1.0},
        {"multi-clutter", 1, 4, 0.9},
    };
    for (size_t s = 0; s < G_N_ELEMENTS(subsets); s++) {
        const truth_lines_family *fam = truth_lines_family_find(subsets[s].family);
        truth_lines_score score = {0};
        g_assert_nonnull(fam);
        for (size_t k = 0; k < subsets[s].count; k++) {
            truth_lines_case c;
            truth_lines_detection det[MAX_LINES];
            votecl_hough_params p;
            votecl_hough_plan *plan;
            gray_result r;
            g_assert_cmpint(truth_lines_case_make(fam, k * subsets[s].step, 1, &c), ==, 0);
            edge_image gray = {c.pixels, c.width, c.height, c.width};
            votecl_hough_params_init(&p);
            plan = plan_new(ctx, &p, c.width, c.height);
            if (plan != NULL && gray_run(plan, ctx, &gray, 200, &r) == 0) {
                size_t n = MIN(r.found, MAX_LINES);
                for (size_t i = 0; i < n; i++)
                    det[i] = (truth_lines_detection){.theta = r.lines[i].theta,
                                                     .rho = r.lines[i].rho};
                truth_lines_score_case(&c, det, n, &score);
                g_free(r.acc);
            }
            votecl_hough_plan_free(plan);
            truth_lines_case_clear(&c);
        }
        g_test_message("%s: recall %zu/%zu, precision %.3f", subsets[s].family, score.matched,
                       score.truths, truth_lines_precision(&score));
        g_assert_cmpfloat(truth_lines_recall(&score), >=, subsets[s].recall);
    }
}

static void
test_ref_truth(void)
{
    check_truth(tu_ref_context);
}

static void
test_device_truth(void)
{
    if (device() != NULL)
        check_truth(device());
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/hough/planted", {test_ref_planted}},
    {TU_PATH, "/ref/hough/bin-centre", {test_ref_bin_centre}},
    {TU_PATH, "/ref/hough/wrap", {test_ref_wrap}},
    {TU_PATH, "/ref/hough/empty", {test_ref_empty}},
    {TU_PATH, "/ref/hough/bin-formula", {test_ref_bin_formula}},
    {TU_PATH, "/ref/hough/invalid-params", {test_ref_invalid_params}},
    {TU_PATH, "/ref/hough/invalid-run", {test_ref_invalid_run}},
    {TU_PATH, "/ref/hough/capacity", {test_ref_capacity}},
    {TU_PATH, "/ref/hough/truth", {test_ref_truth}},
    {TU_PATH, "/ref/hough/gray-edges", {test_ref_gray_edges}},
    {TU_PATH, "/ref/hough/thin-edges", {test_ref_thin_edges}},
    {TU_PATH, "/ref/hough/sobel-edges-invalid", {test_ref_sobel_edges_invalid}},
    {TU_PATH, "/ref/hough/segments-diagonal", {test_ref_segments_diagonal}},
    {TU_PATH, "/ref/hough/segments-dashed", {test_ref_segments_dashed}},
    {TU_PATH, "/ref/hough/opencv", {test_ref_opencv}},
    {TU_CALL, NULL, {add_device_tests}},
    {TU_DEVICE, "auto/hough/buffers", {test_device_buffers}},
    {TU_DEVICE, "auto/hough/truth", {test_device_truth}},
    {TU_DEVICE, "auto/hough/gray", {test_device_gray}},
    {TU_DEVICE, "auto/hough/segments-diagonal", {test_device_segments_diagonal}},
    {TU_DEVICE, "auto/hough/segments-dashed", {test_device_segments_dashed}},
    {TU_DEVICE, "auto/hough/opencv", {test_device_opencv}},
    {TU_DEVICE, "auto/hough/any-size", {test_device_any_size}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
