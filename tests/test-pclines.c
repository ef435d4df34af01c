/* PClines line detection.
 *
 * /ref/pclines/...     the reference (the 'ref' backend, lib/pclines-ref.c) against truth:
 *                      Eq. 9 keys on the axes, horizontal, vertical and both diagonal lines
 *                      (thin lines as edge lists, step edges through Sobel with orientation),
 *                      synthetic images as in the paper's section 5.3 (recall >= 99%,
 *                      precision >= 95% within 1 px and 0.5 degrees), an empty image, a 1x1
 *                      image, a threshold above every vote, more lines than the capacity,
 *                      argument checks naming the field; a fixed subset of the line truth
 *                      suite (tests/truth-lines.h: digital lines every 5 degrees, anti-aliased
 *                      ones, cluttered scenes) with recall floors and segment ends within
 *                      3 px; the fitted lines of a scene (image and edge list) and its segment
 *                      ends against values recorded from the fit before its edge map;
 * /opencl/pclines/...  the device TS space and lines equal to the reference's exactly (u8 and
 *                      f32 images with and without orientation, edge lists), and the same
 *                      truth tests on the device; row tiles on a device limited to 1 KiB of
 *                      local memory (VOTECL_LOCAL_MEM_BYTES) equal to the reference, and an
 *                      8192 x 8192 plan within 32 KiB. A machine without a device skips these. */
#include "votecl-private.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pclines-private.h"
#include "segments.h"
#include "truth-lines.h"

static votecl_context *
device(void)
{
    return tu_device_shared();
}

/* --- images --- */

typedef struct image {
    uint8_t *data;
    size_t width, height, stride;
} image;

static image
image_new(size_t width, size_t height, size_t stride)
{
    image im = {g_malloc0(stride * height + 1), width, height, stride};
    return im;
}

static votecl_image
image_view(const image *im)
{
    votecl_image v = {im->data, im->width, im->height, im->stride, 1, VOTECL_DTYPE_U8};
    return v;
}

/* A planted line x cos(theta) + y sin(theta) = rho. */
typedef struct planted {
    double theta, rho;
} planted;

static void
draw_line(image *im, const planted *l, uint8_t value)
{
    double c = cos(l->theta), s = sin(l->theta);
    for (size_t y = 0; y < im->height; y++)
        for (size_t x = 0; x < im->width; x++)
            if (fabs((double)x * c + (double)y * s - l->rho) < 0.5)
                im->data[y * im->stride + x] = value;
}

/* Whether pixel (x, y) lies in the bright half-plane x cos(theta) + y sin(theta) < rho; a
 * pixel centre on the line (within rounding) is dark, so a step along y = x + 20 is straight. */
static int
bright(const planted *l, size_t x, size_t y)
{
    return (double)x * cos(l->theta) + (double)y * sin(l->theta) < l->rho - 1e-9;
}

/* The bright half-plane: a step edge along the line. */
static void
draw_step(image *im, const planted *l)
{
    for (size_t y = 0; y < im->height; y++)
        for (size_t x = 0; x < im->width; x++)
            im->data[y * im->stride + x] = bright(l, x, y) ? 220 : 20;
}

/* Where draw_step's edge lies: half-way between the bright pixel centres nearest l and the
 * dark ones (for an axis line at an integer rho, half a pixel before it). */
static double
step_rho(const image *im, const planted *l)
{
    double c = cos(l->theta), s = sin(l->theta), below = -1e30, above = 1e30;
    for (size_t y = 0; y < im->height; y++)
        for (size_t x = 0; x < im->width; x++) {
            double v = (double)x * c + (double)y * s;
            if (bright(l, x, y))
                below = v > below ? v : below;
            else
                above = v < above ? v : above;
        }
    return (below + above) / 2;
}

/* Every nonzero pixel as an edge without gradient. */
static votecl_lines_edge *
edges_of(const image *im, size_t *n)
{
    votecl_lines_edge *e = g_new(votecl_lines_edge, im->width * im->height + 1);
    *n = 0;
    for (size_t y = 0; y < im->height; y++)
        for (size_t x = 0; x < im->width; x++)
            if (im->data[y * im->stride + x] != 0)
                e[(*n)++] = (votecl_lines_edge){(uint32_t)x, (uint32_t)y, 0, 0};
    return e;
}

/* --- runs --- */

#define MAX_LINES 256

typedef struct result {
    votecl_lines_line lines[MAX_LINES];
    size_t found;
    votecl_lines_stats stats;
    uint32_t *space; /* g_malloc'd */
    uint32_t columns, rows;
    votecl_lines_params resolved;
} result;

static votecl_lines_plan *
plan_new(votecl_context *context, const votecl_lines_params *p, size_t width, size_t height)
{
    votecl_lines_plan *plan = NULL;
    votecl_status status = votecl_lines_plan_new(context, p, width, height, &plan);
    tu_check_ok(context, status, "plan %zux%zu", width, height);
    return plan;
}

/* Runs an image (view != NULL) or an edge list; fills r. Returns 0 on success. */
static int
run(votecl_context *context, const votecl_lines_params *p, size_t width, size_t height,
    const votecl_image *view, const votecl_lines_edge *edges, size_t n, size_t capacity, result *r)
{
    votecl_lines_plan *plan = plan_new(context, p, width, height);
    votecl_status status;
    memset(r, 0, sizeof *r);
    if (plan == NULL)
        return -1;
    g_assert_cmpuint(capacity, <=, MAX_LINES);
    status = view != NULL ? votecl_lines_run(plan, view, r->lines, capacity, &r->found)
                          : votecl_lines_run_edges(plan, edges, n, r->lines, capacity, &r->found);
    if (!tu_check_ok(context, status, "run")) {
        votecl_lines_plan_free(plan);
        return -1;
    }
    votecl_lines_plan_shape(plan, &r->columns, &r->rows);
    votecl_lines_plan_params(plan, &r->resolved);
    g_assert_cmpint(votecl_lines_plan_last_stats(plan, &r->stats), ==, VOTECL_OK);
    r->space = g_new(uint32_t, (size_t)r->columns * r->rows);
    g_assert_cmpint(votecl_lines_plan_read_space(plan, r->space, (size_t)r->columns * r->rows), ==,
                    VOTECL_OK);
    votecl_lines_plan_free(plan);
    return 0;
}

static void
result_clear(result *r)
{
    g_free(r->space);
    r->space = NULL;
}

/* Same angle within max_deg (lines are undirected) and the planted line's point nearest the
 * image centre within max_px of the detected line. */
static int
matches(const votecl_lines_line *l, const planted *t, double cx, double cy, double max_deg,
        double max_px)
{
    double dtheta = fmod(fabs(l->theta - t->theta), M_PI);
    double c = cos(t->theta), s = sin(t->theta), off = cx * c + cy * s - t->rho;
    double px = cx - off * c, py = cy - off * s;
    dtheta = dtheta > M_PI / 2 ? M_PI - dtheta : dtheta;
    return dtheta * 180.0 / M_PI <= max_deg && fabs(l->a * px + l->b * py + l->c) <= max_px;
}

static void
log_lines(const result *r, size_t max)
{
    for (size_t k = 0; k < r->found && k < max && k < MAX_LINES; k++)
        g_test_message("line %zu: theta %.3f deg rho %.2f votes %u (u %d row %u)", k,
                       r->lines[k].theta * 180 / M_PI, r->lines[k].rho, r->lines[k].votes,
                       r->lines[k].u, r->lines[k].row);
}

/* --- segments (issue 23 item 3) --- */

/* l's segment ends lie near the extreme pixels (a, b) and (c, d), either way round: within
 * 0.1 px across the line and along it. The refined line runs through the middle of the
 * stroke (issue 23 item 2), so the walk's 2 px band holds both Sobel flanks up to the end
 * pixel and the ends fall on the end pixels' feet (measured: 0.03 px at most; before the
 * fit, lines on one flank gave ends 0.71 px inside and 1.5 px across). */
static int
end_near(const votecl_lines_line *l, double x, double y, double a, double b)
{
    double dx = -l->b, dy = l->a; /* along the line */
    double along = (x - a) * dx + (y - b) * dy, across = (x - a) * l->a + (y - b) * l->b;
    return fabs(along) <= 0.1 && fabs(across) <= 0.1;
}

static int
segment_ends_at(const votecl_lines_line *l, double a, double b, double c, double d)
{
    return l->has_segment &&
           ((end_near(l, l->x0, l->y0, a, b) && end_near(l, l->x1, l->y1, c, d)) ||
            (end_near(l, l->x0, l->y0, c, d) && end_near(l, l->x1, l->y1, a, b)));
}

/* scikit-image's test_probabilistic_hough: 8-connected 45-degree lines are contiguous (a
 * diagonal step is no gap) and each gives one segment whose ends lie at its end pixels; a
 * horizontal and a vertical line keep theirs. */
static void
check_segments_whole(votecl_context *ctx)
{
    image im = image_new(TU_SEGMENTS_SIDE, TU_SEGMENTS_SIDE, TU_SEGMENTS_SIDE);
    votecl_image view = image_view(&im);
    votecl_lines_params p;
    result r;

    tu_segments_whole_draw(im.data);
    votecl_lines_params_init(&p);
    p.segments = 1;
    p.max_gap = 1;
    p.min_length = 10;
    if (run(ctx, &p, 100, 100, &view, NULL, 0, MAX_LINES, &r) == 0) {
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
test_opencl_segments_diagonal(void)
{
    if (device() != NULL)
        check_segments_whole(device());
}

/* Issue 26 item 3 (tests/segments.h): PClines' segments of the dashed scene (the Sobel flanks
 * of a dash end on its end pixels: the corners' gradients lie off the normal). */
TU_SEGMENT_DETECTOR(lines_segments, lines, votecl_lines_line,
                    votecl_lines_run(plan, view, lines, 2, n));

static void
test_ref_segments_dashed(void)
{
    tu_check_dashed_ref(&lines_segments);
}

static void
test_opencl_segments_dashed(void)
{
    tu_check_dashed_device(&lines_segments, device());
}

/* --- positions (issue 23 item 2) --- */

/* The strongest line of im (default parameters, or refine 0) in *out; 0 when none. */
static int
strongest(votecl_context *ctx, const image *im, int refine, votecl_lines_line *out)
{
    votecl_lines_params p;
    votecl_image view = image_view(im);
    result r;
    int ok;

    votecl_lines_params_init(&p);
    p.refine = refine;
    if (run(ctx, &p, im->width, im->height, &view, NULL, 0, 4, &r) != 0)
        return 0;
    ok = r.found > 0;
    if (ok)
        *out = r.lines[0];
    result_clear(&r);
    return ok;
}

/* Whether l is x cos(theta) + y sin(theta) = rho within 0.25 px (at the image centre) and
 * 0.1 degree, the target of issue 23. */
static int
placed(const votecl_lines_line *l, const image *im, double theta, double rho)
{
    planted t = {theta, rho};
    return matches(l, &t, (im->width - 1) / 2.0, (im->height - 1) / 2.0, 0.1, 0.25);
}

/* Thin horizontal and vertical lines and step edges at many rows of 100 x 100 and 600 x 600
 * (a 1 px line at row 30 came back at 30.84, rows 10..87 gave +0.94 to +0.56, steps +0.45
 * to +0.06, 600 x 600 still +0.46), and scikit-image's test_hough_line_peaks line (rho 80.555,
 * theta 1.4056; it came back at 79.03, 1.435): a thin line on its middle row, a step on the
 * half-pixel boundary between its two values. refine 0 keeps the cell's line. */
static void
check_positions(votecl_context *ctx)
{
    static const size_t sizes[] = {100, 600};
    votecl_lines_line l;

    for (size_t k = 0; k < G_N_ELEMENTS(sizes); k++) {
        size_t n = sizes[k];
        for (size_t row = 10; row + 12 < n; row += n / 9) {
            for (int kind = 0; kind < 4; kind++) { /* thin, step; horizontal, vertical */
                int step = kind & 1, vertical = kind >> 1;
                image im = image_new(n, n, n);
                for (size_t i = 0; i < n; i++)
                    for (size_t j = 0; j < n; j++) {
                        size_t across = vertical ? j : i;
                        uint8_t v = step ? (across <= row ? 220 : 20) : (across == row ? 255 : 0);
                        im.data[i * n + j] = v;
                    }
                g_assert_true(strongest(ctx, &im, 1, &l));
                if (!placed(&l, &im, vertical ? 0.0 : M_PI / 2, row + (step ? 0.5 : 0.0)))
                    g_test_message("%zu x %zu %s %s at %zu: theta %.4f rho %.3f", n, n,
                                   step ? "step" : "thin", vertical ? "vertical" : "horizontal",
                                   row, l.theta, l.rho);
                g_assert_true(placed(&l, &im, vertical ? 0.0 : M_PI / 2, row + (step ? 0.5 : 0.0)));
                g_free(im.data);
            }
        }
    }
    /* the line of skimage.draw.line(60, 130, 80, 10), rows 60..80 and columns 130 down to 10,
     * drawn by rounding as skimage does (up to its tie-breaking) */
    image im = image_new(150, 100, 150);
    for (long c = 130; c >= 10; c--) {
        long r = 60 + lround((130.0 - c) * 20.0 / 120.0);
        im.data[r * 150 + c] = 255;
    }
    double theta = atan2(120.0, 20.0), rho = 130 * cos(theta) + 60 * sin(theta);
    g_assert_true(strongest(ctx, &im, 1, &l));
    g_test_message("scikit-image line: theta %.4f rho %.3f (truth %.4f %.3f)", l.theta, l.rho,
                   theta, rho);
    g_assert_true(placed(&l, &im, theta, rho));
    g_assert_true(strongest(ctx, &im, 0, &l));
    g_assert_false(placed(&l, &im, theta, rho)); /* the cell alone: 1.5 px and 1.7 degrees off */
    g_free(im.data);
}

static void
test_ref_positions(void)
{
    check_positions(tu_ref_context);
}

static void
test_opencl_positions(void)
{
    if (device() != NULL)
        check_positions(device());
}

/* --- Eq. 9 --- */

static void
test_ref_keys(void)
{
    votecl__pclines_desc d;
    votecl_lines_params p;
    votecl_lines_params_init(&p);
    votecl__pclines_desc_init(&d, &p, 200, 100);
    g_assert_cmpuint(d.d, ==, 100);
    g_assert_cmpuint(votecl__pclines_key(&d, 50, 0), ==, 100); /* vertical line: u = 0 */
    g_assert_cmpuint(votecl__pclines_key(&d, -50, 0), ==, 100);
    g_assert_cmpuint(votecl__pclines_key(&d, 0, 50), ==, 0); /* horizontal: u = +-d */
    g_assert_cmpuint(votecl__pclines_key(&d, 0, -50), ==, 0);
    g_assert_cmpuint(votecl__pclines_key(&d, 30, 30), ==, 150); /* y = -x: u = d / 2 */
    g_assert_cmpuint(votecl__pclines_key(&d, 30, -30), ==, 50); /* y = x: u = -d / 2 */
    g_assert_cmpuint(votecl__pclines_key(&d, -30, 30), ==, 50);
    /* the default window: 3 d / 20 columns at the axes, half at the diagonals (one angle) */
    g_assert_cmpuint(d.radius, ==, 15);
    g_assert_cmpuint(votecl__pclines_radius_at(&d, 100), ==, 15);
    g_assert_cmpuint(votecl__pclines_radius_at(&d, 0), ==, 15);
    g_assert_cmpuint(votecl__pclines_radius_at(&d, 150), ==, 8);
    g_assert_cmpuint(votecl__pclines_radius_at(&d, 50), ==, 8);
    g_assert_true(votecl__pclines_in_window(&d, 115, 100));
    g_assert_false(votecl__pclines_in_window(&d, 116, 100));
    g_assert_true(votecl__pclines_in_window(&d, 196, 7)); /* around the strip */
    g_assert_false(votecl__pclines_in_window(&d, 159, 150));
    g_assert_true(votecl__pclines_in_window(&d, 158, 150));
}

/* --- the four special slopes --- */

static const planted axis_lines[4] = {
    {M_PI / 2, 40.0},               /* horizontal: y = 40 */
    {0.0, 70.0},                    /* vertical: x = 70 */
    {M_PI / 4, 90.0},               /* x + y = 127: u = d / 2 */
    {3 * M_PI / 4, -20.0 / M_SQRT2} /* y = x + 20: u = -d / 2 */
};

static void
check_axis(votecl_context *context, int step, int which)
{
    const size_t w = 131, h = 97;
    const planted *t = &axis_lines[which];
    image im = image_new(w, h, w + 5);
    votecl_lines_params p;
    votecl_lines_edge *edges = NULL;
    size_t n = 0;
    result r;
    votecl_lines_params_init(&p);
    p.distance = 180;
    p.threshold = 40;
    if (step) {
        draw_step(&im, t);
    } else {
        draw_line(&im, t, 255);
        edges = edges_of(&im, &n);
        p.radius = 0;
    }
    votecl_image view = image_view(&im);
    planted edge = {t->theta, step ? step_rho(&im, t) : t->rho};
    if (run(context, &p, w, h, step ? &view : NULL, edges, n, MAX_LINES, &r) == 0) {
        log_lines(&r, 5);
        g_assert_cmpuint(r.found, >=, 1);
        /* Sobel marks both sides of a step, a band two pixels wide within which lines tilted
         * by up to one pixel over the image collect as many votes; the fit to that band's
         * edges finds the step (before it: 1.5 degrees and 1.5 px; thin lines 0.5, 1.0). */
        g_assert_true(matches(&r.lines[0], &edge, (w - 1) / 2.0, (h - 1) / 2.0, 0.1, 0.25));
        for (size_t k = 1; k < r.found && !step; k++) /* nothing else near as strong */
            g_assert_cmpuint(r.lines[k].votes, <, r.lines[0].votes / 2);
    }
    result_clear(&r);
    g_free(edges);
    g_free(im.data);
}

static void
check_axes(votecl_context *context)
{
    for (int step = 0; step < 2; step++)
        for (int which = 0; which < 4; which++) {
            g_test_message("%s line %d", step ? "step" : "thin", which);
            check_axis(context, step, which);
        }
}

static void
test_ref_axes(void)
{
    check_axes(tu_ref_context);
}

static void
test_opencl_axes(void)
{
    if (device() != NULL)
        check_axes(device());
}

/* --- the paper's synthetic images (section 5.3), small --- */

/* Sizes of a synthetic set: W x H, L lines, P inverted pixels, the accumulator threshold. */
typedef struct syn_size {
    size_t w, h;
    int lines, noise;
    uint32_t threshold;
} syn_size;

/* make check: small images; the longer optional run (-m slow): the paper's 1600 x 1200 */
static const syn_size syn_small = {240, 180, 8, 600, 70};
static const syn_size syn_paper = {1600, 1200, 50, 12000, 400};
#define SYN_W syn_small.w
#define SYN_H syn_small.h
#define SYN_LINES 8 /* syn_small.lines, as an array bound */
#define SYN_MAX_LINES 64

static int
too_close(const syn_size *z, const planted *a, const planted *b)
{
    double cx = (z->w - 1) / 2.0, cy = (z->h - 1) / 2.0;
    double dt = fmod(fabs(a->theta - b->theta), M_PI);
    double ra = cx * cos(a->theta) + cy * sin(a->theta) - a->rho;
    double rb = cx * cos(b->theta) + cy * sin(b->theta) - b->rho;
    dt = dt > M_PI / 2 ? M_PI - dt : dt;
    return dt < 4.0 * M_PI / 180 && fabs(fabs(ra) - fabs(rb)) < 8.0;
}

/* L random lines through the middle half of the image, then P random pixels inverted. */
static image
synthetic(const syn_size *z, uint64_t seed, planted *lines)
{
    tu_rng rng;
    image im = image_new(z->w, z->h, z->w);
    tu_rng_init(&rng, seed);
    for (int i = 0; i < z->lines; i++) {
        double theta, px, py;
        int ok;
        do {
            theta = tu_rng_float(&rng, 0.0f, (float)M_PI);
            px = z->w / 4.0 + tu_rng_float(&rng, 0.0f, z->w / 2.0f);
            py = z->h / 4.0 + tu_rng_float(&rng, 0.0f, z->h / 2.0f);
            lines[i] = (planted){theta, px * cos(theta) + py * sin(theta)};
            ok = 1;
            for (int k = 0; k < i; k++)
                ok &= !too_close(z, &lines[i], &lines[k]);
        } while (!ok);
        draw_line(&im, &lines[i], 255);
    }
    for (int i = 0; i < z->noise; i++) {
        uint8_t *p = &im.data[tu_rng_below(&rng, z->h) * im.stride + tu_rng_below(&rng, z->w)];
        *p = *p ? 0 : 255;
    }
    return im;
}

/* A planted line is found within 0.5 degree and 0.3 px: the fit to the edge list (no
 * gradients here to tell a crossing line's pixels or the noise from the line's) measured
 * 0.41 degree and 0.24 px at most, mean 0.08 degree and 0.06 px; the cells alone, 0.42
 * degree and 0.66 px, mean 0.16 and 0.28. */
static void
check_synthetic(votecl_context *context, const syn_size *z, int images)
{
    size_t planted_total = 0, recalled = 0, detected = 0, correct = 0;
    double cx = (z->w - 1) / 2.0, cy = (z->h - 1) / 2.0;
    for (int s = 0; s < images; s++) {
        planted truth[SYN_MAX_LINES];
        image im = synthetic(z, 1000 + (uint64_t)s, truth);
        size_t n;
        votecl_lines_edge *edges = edges_of(&im, &n);
        votecl_lines_params p;
        result r;
        votecl_lines_params_init(&p);
        p.radius = 0;
        p.distance = (uint32_t)z->w;
        p.threshold = z->threshold;
        if (run(context, &p, z->w, z->h, NULL, edges, n, MAX_LINES, &r) == 0) {
            planted_total += (size_t)z->lines;
            detected += r.found;
            for (int i = 0; i < z->lines; i++) {
                int hit = 0;
                for (size_t k = 0; k < r.found; k++)
                    hit |= matches(&r.lines[k], &truth[i], cx, cy, 0.5, 0.3);
                recalled += hit;
                if (!hit)
                    g_test_message("image %d: planted theta %.2f deg rho %.2f missed", s,
                                   truth[i].theta * 180 / M_PI, truth[i].rho);
            }
            for (size_t k = 0; k < r.found; k++) {
                int hit = 0;
                for (int i = 0; i < z->lines; i++)
                    hit |= matches(&r.lines[k], &truth[i], cx, cy, 0.5, 0.3);
                correct += hit;
                if (!hit)
                    g_test_message("image %d: spurious theta %.2f deg rho %.2f votes %u", s,
                                   r.lines[k].theta * 180 / M_PI, r.lines[k].rho, r.lines[k].votes);
            }
        }
        result_clear(&r);
        g_free(edges);
        g_free(im.data);
    }
    g_test_message("recall %zu/%zu, precision %zu/%zu", recalled, planted_total, correct, detected);
    g_assert_cmpuint(planted_total, >, 0);
    g_assert_cmpfloat((double)recalled / planted_total, >=, 0.99);
    g_assert_cmpfloat((double)correct / (detected ? detected : 1), >=, 0.95);
}

static void
test_ref_synthetic(void)
{
    check_synthetic(tu_ref_context, &syn_small, 4);
}

static void
test_opencl_synthetic(void)
{
    if (device() != NULL)
        check_synthetic(device(), &syn_small, 4);
}

/* The paper's size, a longer optional run: tests/test-pclines -m slow (or -m thorough). */
static void
test_opencl_synthetic_paper(void)
{
    if (device() != NULL)
        check_synthetic(device(), &syn_paper, 2);
}

/* --- degenerate inputs --- */

static void
check_empty(votecl_context *context)
{
    image im = image_new(64, 48, 64);
    votecl_image view = image_view(&im);
    votecl_lines_params p;
    result r;
    memset(im.data, 77, 64 * 48);
    votecl_lines_params_init(&p);
    if (run(context, &p, 64, 48, &view, NULL, 0, MAX_LINES, &r) == 0) {
        g_assert_cmpuint(r.found, ==, 0);
        g_assert_cmpuint(r.stats.edges, ==, 0);
        for (size_t i = 0; i < (size_t)r.columns * r.rows; i++)
            g_assert_cmpuint(r.space[i], ==, 0);
    }
    result_clear(&r);
    if (run(context, &p, 64, 48, NULL, NULL, 0, MAX_LINES, &r) == 0)
        g_assert_cmpuint(r.found, ==, 0);
    result_clear(&r);
    g_free(im.data);
}

static void
check_tiny(votecl_context *context)
{
    image im = image_new(1, 1, 1);
    votecl_image view = image_view(&im);
    votecl_lines_edge one = {0, 0, 3, 4};
    votecl_lines_params p;
    result r;
    im.data[0] = 255;
    votecl_lines_params_init(&p);
    if (run(context, &p, 1, 1, &view, NULL, 0, MAX_LINES, &r) == 0) {
        g_assert_cmpuint(r.found, ==, 0);
        g_assert_cmpuint(r.stats.edges, ==, 0);
        g_assert_cmpuint(r.rows, ==, 1);
    }
    result_clear(&r);
    p.threshold = 1;
    if (run(context, &p, 1, 1, NULL, &one, 1, MAX_LINES, &r) == 0) {
        g_assert_cmpuint(r.stats.edges, ==, 1);
        g_assert_cmpuint(r.found, >=, 1);
        g_assert_cmpuint(r.lines[0].votes, ==, 1);
    }
    result_clear(&r);
    g_free(im.data);
}

/* A threshold above every vote finds nothing though the space holds votes; a capacity below
 * the number of lines fills the capacity with the strongest and reports them all. */
static void
check_threshold_capacity(votecl_context *context)
{
    planted truth[SYN_MAX_LINES];
    image im = synthetic(&syn_small, 77, truth);
    size_t n;
    votecl_lines_edge *edges = edges_of(&im, &n);
    votecl_lines_params p;
    result all, few;
    votecl_lines_params_init(&p);
    p.radius = 0;
    p.threshold = 70;
    if (run(context, &p, SYN_W, SYN_H, NULL, edges, n, MAX_LINES, &all) == 0 &&
        run(context, &p, SYN_W, SYN_H, NULL, edges, n, 3, &few) == 0) {
        g_assert_cmpuint(all.found, >=, SYN_LINES);
        g_assert_cmpuint(few.found, ==, all.found);
        g_assert_cmpmem(few.lines, 3 * sizeof few.lines[0], all.lines, 3 * sizeof all.lines[0]);
        result_clear(&few);
        p.max_lines = 2;
        if (run(context, &p, SYN_W, SYN_H, NULL, edges, n, 3, &few) == 0)
            g_assert_cmpuint(few.found, ==, 2);
    }
    result_clear(&few);
    p.max_lines = 0;
    p.threshold = (uint32_t)n + 1;
    if (run(context, &p, SYN_W, SYN_H, NULL, edges, n, MAX_LINES, &few) == 0) {
        g_assert_cmpuint(few.found, ==, 0);
        g_assert_cmpuint(few.stats.edges, ==, n);
    }
    result_clear(&few);
    result_clear(&all);
    g_free(edges);
    g_free(im.data);
}

static void
check_degenerate(votecl_context *context)
{
    check_empty(context);
    check_tiny(context);
    check_threshold_capacity(context);
}

static void
test_ref_degenerate(void)
{
    check_degenerate(tu_ref_context);
}

static void
test_opencl_degenerate(void)
{
    if (device() != NULL)
        check_degenerate(device());
}

/* --- argument checks --- */

static void
expect_plan_error(const votecl_lines_params *p, size_t w, size_t h, const char *field)
{
    votecl_lines_plan *plan = NULL;
    g_assert_cmpint(votecl_lines_plan_new(tu_ref_context, p, w, h, &plan), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_null(plan);
    g_test_message("%s", votecl_context_get_error(tu_ref_context));
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), field));
}

static void
test_ref_bad_args(void)
{
    votecl_lines_params p;
    votecl_lines_plan *plan;
    votecl_lines_line line;
    size_t found;
    uint8_t pixels[16 * 12] = {0};
    uint16_t wide[16 * 12] = {0};
    votecl_lines_edge outside = {16, 0, 0, 0};
    uint32_t space[4];

    votecl_lines_params_init(&p);
    expect_plan_error(&p, 0, 10, "width");
    expect_plan_error(&p, 10, 70000, "height");
    p.neighbourhood = 4;
    expect_plan_error(&p, 16, 12, "neighbourhood");
    votecl_lines_params_init(&p);
    p.edge_threshold = 0;
    expect_plan_error(&p, 16, 12, "edge_threshold");
    votecl_lines_params_init(&p);
    p.distance = 2;
    expect_plan_error(&p, 16, 12, "neighbourhood");
    votecl_lines_params_init(&p);
    p.work_group_size = 48;
    expect_plan_error(&p, 16, 12, "work_group_size");

    votecl_lines_params_init(&p);
    plan = plan_new(tu_ref_context, &p, 16, 12);
    if (plan == NULL)
        return;
    votecl_image view = {pixels, 16, 12, 16, 1, VOTECL_DTYPE_U8};
    g_assert_cmpint(votecl_lines_plan_read_space(plan, space, 4), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "plan"));
    g_assert_cmpint(votecl_lines_run(plan, NULL, &line, 1, &found), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "image"));
    g_assert_cmpint(votecl_lines_run(plan, &view, &line, 1, NULL), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "found"));
    g_assert_cmpint(votecl_lines_run(plan, &view, NULL, 1, &found), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "lines"));
    votecl_image bad = {wide, 16, 12, 32, 1, VOTECL_DTYPE_U16};
    g_assert_cmpint(votecl_lines_run(plan, &bad, &line, 1, &found), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "image.dtype"));
    votecl_image two = {pixels, 8, 12, 16, 2, VOTECL_DTYPE_U8}; /* colour is 3 or 4 */
    g_assert_cmpint(votecl_lines_run(plan, &two, &line, 1, &found), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "image.channels"));
    votecl_image small = {pixels, 15, 12, 16, 1, VOTECL_DTYPE_U8};
    g_assert_cmpint(votecl_lines_run(plan, &small, &line, 1, &found), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "image.width"));
    g_assert_cmpint(votecl_lines_run_edges(plan, &outside, 1, &line, 1, &found), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "edges[0].x"));
    g_assert_cmpint(votecl_lines_run(plan, &view, &line, 1, &found), ==, VOTECL_OK);
    g_assert_cmpint(votecl_lines_plan_read_space(plan, space, 4), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "capacity"));
    votecl_lines_plan_free(plan);
    votecl_lines_plan_free(NULL);
}

/* --- the device against the reference --- */

/* A gray scene: a ramp, filled shapes with straight sides, noise; odd size, padded rows. */
static image
gray_scene(size_t w, size_t h, uint64_t seed)
{
    tu_rng rng;
    image im = image_new(w, h, w + 7);
    planted a = {0.4, w * 0.3}, b = {2.0, -h * 0.2};
    tu_rng_init(&rng, seed);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            int v = (int)(x + y) / 4 + (int)tu_rng_below(&rng, 30);
            v += x * cos(a.theta) + y * sin(a.theta) < a.rho ? 120 : 0;
            v += x * cos(b.theta) + y * sin(b.theta) < b.rho ? 60 : 0;
            v += (x > w / 3 && x < w / 2 && y > h / 4 && y < h / 2) ? 50 : 0;
            im.data[y * im.stride + x] = (uint8_t)(v > 255 ? 255 : v);
        }
    return im;
}

static void
compare_results(const result *dev, const result *ref)
{
    size_t cells = (size_t)ref->columns * ref->rows;
    g_assert_cmpuint(dev->columns, ==, ref->columns);
    g_assert_cmpuint(dev->rows, ==, ref->rows);
    g_assert_cmpuint(dev->stats.edges, ==, ref->stats.edges);
    size_t at = tu_first_difference(dev->space, ref->space, cells, 4);
    if (at != (size_t)-1)
        g_test_message("TS space differs at column %zu row %zu: device %u, reference %u",
                       at / ref->rows, at % ref->rows, dev->space[at], ref->space[at]);
    g_assert_cmpuint(at, ==, (size_t)-1);
    g_assert_cmpuint(dev->found, ==, ref->found);
    for (size_t k = 0; k < dev->found && k < MAX_LINES; k++) {
        g_assert_cmpuint(dev->lines[k].column, ==, ref->lines[k].column);
        g_assert_cmpuint(dev->lines[k].row, ==, ref->lines[k].row);
        g_assert_cmpuint(dev->lines[k].votes, ==, ref->lines[k].votes);
        /* the fitted line too, bit for bit: the device's fit (the GPU shape's sums) or the
         * host's follow the same integer rules */
        g_assert_cmpint(memcmp(&dev->lines[k], &ref->lines[k], sizeof dev->lines[k]), ==, 0);
    }
}

static void
check_equal(const votecl_lines_params *p, const votecl_image *view, const votecl_lines_edge *e,
            size_t n, size_t w, size_t h)
{
    result dev, ref;
    if (run(device(), p, w, h, view, e, n, MAX_LINES, &dev) == 0 &&
        run(tu_ref_context, p, w, h, view, e, n, MAX_LINES, &ref) == 0) {
        g_test_message("%zu edges, %zu lines, %ux%u space, radius %u", ref.stats.edges, ref.found,
                       ref.columns, ref.rows, ref.resolved.radius);
        g_assert_cmpuint(ref.stats.edges, >, 0);
        compare_results(&dev, &ref);
        result_clear(&ref);
    }
    result_clear(&dev);
}

static void
test_opencl_equal_image(void)
{
    const size_t w = 151, h = 97;
    image im = gray_scene(w, h, 5);
    float *f = g_new(float, w *h);
    votecl_lines_params p;
    votecl_image view = image_view(&im);
    votecl_image fview = {f, w, h, w * sizeof(float), 1, VOTECL_DTYPE_F32};
    if (device() == NULL)
        goto out;
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            f[y * w + x] = im.data[y * im.stride + x] / 255.0f + (float)(x % 3) * 1e-3f;
    votecl_lines_params_init(&p);
    p.threshold = 20;
    for (int orient = 0; orient < 2; orient++) {
        p.radius = orient ? VOTECL_LINES_RADIUS_AUTO : 0;
        check_equal(&p, &view, NULL, 0, w, h);
        check_equal(&p, &fview, NULL, 0, w, h);
    }
    p.radius = 3; /* a narrow window, a finer space, a wider neighbourhood, other operators */
    p.distance = 200;
    p.rows = 131;
    p.neighbourhood = 7;
    p.orientation_kernel = 5;
    check_equal(&p, &view, NULL, 0, w, h);
    check_equal(&p, &fview, NULL, 0, w, h);
    p.orientation_kernel = 3;
    check_equal(&p, &view, NULL, 0, w, h);
out:
    g_free(f);
    g_free(im.data);
}

/* The colour form of a gray scene: gray in green, other levels in red and blue, and the gray
 * image a colour frame stands for, (299 R + 587 G + 114 B + 500) / 1000 (written out here, the
 * rounding of votecl's own conversion). channels 3 or 4, padded rows. */
static void
colour_scene(const image *g, unsigned channels, uint64_t seed, uint8_t **colour, size_t *stride,
             image *gray)
{
    tu_rng rng;
    tu_rng_init(&rng, seed);
    *stride = g->width * channels + 5;
    *colour = g_malloc0(*stride * g->height);
    *gray = image_new(g->width, g->height, g->width);
    for (size_t y = 0; y < g->height; y++)
        for (size_t x = 0; x < g->width; x++) {
            uint8_t *p = *colour + y * *stride + x * channels;
            p[0] = (uint8_t)(255 - g->data[y * g->stride + x] / 2);
            p[1] = g->data[y * g->stride + x];
            p[2] = (uint8_t)tu_rng_below(&rng, 256);
            if (channels == 4)
                p[3] = (uint8_t)tu_rng_below(&rng, 256); /* alpha: ignored */
            gray->data[y * gray->stride + x] =
                (uint8_t)((299u * p[0] + 587u * p[1] + 114u * p[2] + 500u) / 1000u);
        }
}

/* The lines (refined, with segments) and stats of one run of view on plan. */
static void
lines_of(votecl_context *context, votecl_lines_plan *plan, const votecl_image *view, result *r)
{
    memset(r, 0, sizeof *r);
    tu_check_ok(context, votecl_lines_run(plan, view, r->lines, MAX_LINES, &r->found), "run");
    g_assert_cmpint(votecl_lines_plan_last_stats(plan, &r->stats), ==, VOTECL_OK);
}

static void
assert_same_lines(const result *a, const result *b)
{
    g_assert_cmpuint(a->stats.edges, ==, b->stats.edges);
    g_assert_cmpuint(a->stats.maxima, ==, b->stats.maxima);
    g_assert_cmpuint(a->found, ==, b->found);
    g_assert_cmpint(memcmp(a->lines, b->lines, MIN(b->found, MAX_LINES) * sizeof *b->lines), ==, 0);
}

/* A u8 colour frame (uploaded as it is, converted on the device) gives exactly the lines of
 * its gray image, refined fits and segments included, on the device and the reference; a
 * plan's later runs (the edge list's first: its state left behind, such as the counts the
 * GPU shape's accumulation zeroes for the next run) equal a fresh plan's. */
static void
test_opencl_colour(void)
{
    const size_t w = 151, h = 97;
    image g = gray_scene(w, h, 5);
    votecl_context *contexts[2] = {device(), tu_ref_context};
    votecl_lines_params p;
    if (device() == NULL)
        goto out;
    votecl_lines_params_init(&p);
    p.threshold = 20; /* equal-image's plan: its program is cached */
    p.segments = 1;
    for (unsigned channels = 3; channels <= 4; channels++) {
        uint8_t *colour;
        size_t stride;
        image gray;
        colour_scene(&g, channels, channels, &colour, &stride, &gray);
        votecl_image cview = {colour, w, h, stride, channels, VOTECL_DTYPE_U8};
        votecl_image gview = image_view(&gray);
        for (int c = 0; c < 2; c++) {
            votecl_lines_plan *fresh = plan_new(contexts[c], &p, w, h);
            votecl_lines_plan *used = plan_new(contexts[c], &p, w, h);
            votecl_lines_edge edge = {w / 2, h / 2, 300, 0};
            result from_colour, from_gray, again;
            size_t n = 0;
            g_assert_nonnull(fresh);
            g_assert_nonnull(used);
            lines_of(contexts[c], fresh, &gview, &from_gray);
            g_assert_cmpuint(from_gray.stats.edges, >, 0);
            g_assert_cmpuint(from_gray.found, >, 0);
            g_assert_cmpint(votecl_lines_run_edges(used, &edge, 1, again.lines, MAX_LINES, &n), ==,
                            VOTECL_OK);
            lines_of(contexts[c], used, &cview, &from_colour);
            assert_same_lines(&from_colour, &from_gray);
            lines_of(contexts[c], used, &gview, &again);
            assert_same_lines(&again, &from_gray);
            votecl_lines_plan_free(fresh);
            votecl_lines_plan_free(used);
        }
        g_free(colour);
        g_free(gray.data);
    }
out:
    g_free(g.data);
}

static void
test_opencl_equal_edges(void)
{
    const size_t w = 300, h = 41, n = 2500;
    votecl_lines_edge *e = g_new(votecl_lines_edge, n);
    votecl_lines_params p;
    tu_rng rng;
    if (device() == NULL)
        goto out;
    tu_rng_init(&rng, 99);
    for (size_t i = 0; i < n; i++)
        e[i] = (votecl_lines_edge){tu_rng_below(&rng, w), tu_rng_below(&rng, h),
                                   (int32_t)tu_rng_below(&rng, 2001) - 1000,
                                   (int32_t)tu_rng_below(&rng, 2001) - 1000};
    votecl_lines_params_init(&p);
    p.threshold = 5;
    for (int orient = 0; orient < 2; orient++) {
        p.radius = orient ? 9 : 0;
        check_equal(&p, NULL, e, n, w, h);
    }
out:
    g_free(e);
}

/* --- row tiles: a device with little local memory (VOTECL_LOCAL_MEM_BYTES) --- */

/* The GPU shape (the local-memory ring, whose rows these tests tile) on any device. */
static votecl_context *
small_device(const char *bytes)
{
    char *saved = tu_env_set("VOTECL_LOCAL_MEM_BYTES", bytes);
    char *shape = tu_env_set("VOTECL_FORCE_SHAPE", "gpu");
    votecl_context *ctx = tu_device_context_new(NULL);
    votecl_device_info info;
    tu_env_restore("VOTECL_FORCE_SHAPE", shape);
    tu_env_restore("VOTECL_LOCAL_MEM_BYTES", saved);
    if (ctx != NULL) {
        g_assert_cmpint(votecl_context_get_device_info(ctx, &info), ==, VOTECL_OK);
        g_assert_cmpuint(info.local_mem_bytes, <=, strtoull(bytes, NULL, 10));
    }
    return ctx;
}

static void
check_equal_on(votecl_context *ctx, const votecl_lines_params *p, const votecl_image *view,
               size_t w, size_t h)
{
    result dev, ref;
    if (run(ctx, p, w, h, view, NULL, 0, MAX_LINES, &dev) == 0 &&
        run(tu_ref_context, p, w, h, view, NULL, 0, MAX_LINES, &ref) == 0) {
        g_test_message("%zu edges, %zu lines, %ux%u space", ref.stats.edges, ref.found, ref.columns,
                       ref.rows);
        g_assert_cmpuint(ref.found, >, 0);
        compare_results(&dev, &ref);
        result_clear(&ref);
    }
    result_clear(&dev);
}

/* 1 KiB holds 5 columns of 51 rows: the 151 rows of these spaces take 4 tiles, each with the
 * halo of its neighbourhood; the maxima across tile borders must be those of the reference. */
static void
test_opencl_tiles(void)
{
    const size_t w = 151, h = 97;
    image im = gray_scene(w, h, 11);
    votecl_image view = image_view(&im);
    votecl_context *ctx = small_device("1024");
    votecl_lines_params p;
    votecl_lines_plan *plan = NULL;
    if (ctx == NULL)
        goto out;
    votecl_lines_params_init(&p);
    p.threshold = 15;
    check_equal_on(ctx, &p, &view, w, h);
    p.neighbourhood = 7; /* a wider halo, rows that do not divide evenly */
    p.rows = 149;
    p.radius = 0;
    check_equal_on(ctx, &p, &view, w, h);
    votecl_context_free(ctx);
    /* The case: 8192 x 8192 on a device with 32 KiB plans (and is not refused). */
    ctx = small_device("32768");
    votecl_lines_params_init(&p);
    g_assert_cmpint(votecl_lines_plan_new(ctx, &p, 8192, 8192, &plan), ==, VOTECL_OK);
    votecl_lines_plan_free(plan);
out:
    votecl_context_free(ctx);
    g_free(im.data);
}

/* --- one program for every size: the CPU shape (VOTECL_FORCE_SHAPE cpu, so any device runs
 * it) takes the image's size as kernel arguments: after a first plan at one size (what
 * votecl warmup makes), plans at other sizes and with radius 0 compile nothing. The disk
 * cache is off, so a program that a size still selected would be built and counted. --- */

static void
count_builds(votecl_build_event event, const char *what, double seconds, void *user)
{
    if (event == VOTECL_BUILD_STARTED)
        (*(unsigned *)user)++;
}

static void
test_opencl_any_size(void)
{
    image a = gray_scene(151, 97, 31), b = gray_scene(96, 130, 32), c = gray_scene(203, 64, 33);
    votecl_image va = image_view(&a), vb = image_view(&b), vc = image_view(&c);
    votecl_context_options options;
    votecl_context *ctx;
    votecl_lines_params p;
    unsigned builds = 0;
    char *saved = tu_env_set("VOTECL_FORCE_SHAPE", "cpu");
    votecl_context_options_init(&options);
    options.disable_disk_cache = 1;
    ctx = tu_device_context_new(&options);
    tu_env_restore("VOTECL_FORCE_SHAPE", saved);
    if (ctx == NULL)
        goto out;
    g_assert_cmpint(votecl_context_set_build_callback(ctx, count_builds, &builds), ==, VOTECL_OK);
    votecl_lines_params_init(&p);
    p.threshold = 20;
    check_equal_on(ctx, &p, &va, a.width, a.height);
    g_assert_cmpuint(builds, >, 0); /* the first plan did compile */
    builds = 0;
    check_equal_on(ctx, &p, &vb, b.width, b.height);
    p.radius = 0;
    check_equal_on(ctx, &p, &vc, c.width, c.height);
    g_assert_cmpuint(builds, ==, 0);
    votecl_context_free(ctx);
out:
    g_free(a.data);
    g_free(b.data);
    g_free(c.data);
}

/* --- both shapes of the plan on any device: VOTECL_FORCE_SHAPE gpu (the local-memory
 * ring) and cpu (row bands and column blocks); the engine's strategy is forced to match, as
 * VOTECL_FORCE_VARIANT local and private did for both before the shape had its own
 * variable --- */

static votecl_context *
shaped_device(const char *variant)
{
    const char *shape = strcmp(variant, "local") == 0 ? "gpu" : "cpu";
    char *saved = tu_env_set("VOTECL_FORCE_VARIANT", variant);
    char *saved_shape = tu_env_set("VOTECL_FORCE_SHAPE", shape);
    votecl_context *ctx = tu_device_context_new(NULL);
    tu_env_restore("VOTECL_FORCE_SHAPE", saved_shape);
    tu_env_restore("VOTECL_FORCE_VARIANT", saved);
    return ctx;
}

/* One plan, two images: the second run's lines and TS space (stored on demand by the CPU
 * shape) must be the reference's for the second image, whatever the first left behind. */
static void
check_reuse(votecl_context *ctx, const votecl_lines_params *p, const votecl_image *a,
            const votecl_image *b)
{
    votecl_lines_plan *plan = plan_new(ctx, p, b->width, b->height);
    result dev, ref;
    uint32_t *space;
    if (plan == NULL || run(tu_ref_context, p, b->width, b->height, b, NULL, 0, MAX_LINES, &ref))
        goto out;
    memset(&dev, 0, sizeof dev);
    space = g_new(uint32_t, (size_t)ref.columns * ref.rows);
    g_assert_cmpint(votecl_lines_run(plan, a, dev.lines, MAX_LINES, &dev.found), ==, VOTECL_OK);
    g_assert_cmpint(votecl_lines_plan_read_space(plan, space, (size_t)ref.columns * ref.rows), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl_lines_run(plan, b, dev.lines, MAX_LINES, &dev.found), ==, VOTECL_OK);
    g_assert_cmpint(votecl_lines_plan_last_stats(plan, &dev.stats), ==, VOTECL_OK);
    votecl_lines_plan_shape(plan, &dev.columns, &dev.rows);
    dev.space = space;
    for (int twice = 0; twice < 2; twice++) { /* a second read gives the same space */
        g_assert_cmpint(votecl_lines_plan_read_space(plan, space, (size_t)ref.columns * ref.rows),
                        ==, VOTECL_OK);
        compare_results(&dev, &ref);
    }
    g_free(space);
    result_clear(&ref);
out:
    votecl_lines_plan_free(plan);
}

static void
check_shape(votecl_context *ctx, const votecl_image *u8, const votecl_image *f32,
            const votecl_lines_edge *e, size_t n)
{
    size_t w = u8->width, h = u8->height;
    votecl_lines_params p;
    votecl_lines_params_init(&p);
    p.threshold = 20;
    check_equal_on(ctx, &p, u8, w, h);
    check_equal_on(ctx, &p, f32, w, h);
    /* 4000 rows: the CPU shape's 512 KiB blocks hold 28 columns, so the 152 columns take 6
     * blocks, some across u = 0 and the strip's ends */
    p.rows = 4000;
    check_equal_on(ctx, &p, u8, w, h);
    p.radius = 0;
    check_equal_on(ctx, &p, u8, w, h);
    p.radius = 3; /* a narrow window, a wider neighbourhood, other operators */
    p.distance = 200;
    p.rows = 1531;
    p.threshold = 4;
    p.neighbourhood = 7;
    p.orientation_kernel = 5;
    check_equal_on(ctx, &p, u8, w, h);
    check_equal_on(ctx, &p, f32, w, h);
    p.orientation_kernel = 3;
    check_equal_on(ctx, &p, u8, w, h);
    votecl_lines_params_init(&p);
    p.threshold = 5;
    p.rows = 1200;
    result dev, ref;
    if (run(ctx, &p, w, h, NULL, e, n, MAX_LINES, &dev) == 0 &&
        run(tu_ref_context, &p, w, h, NULL, e, n, MAX_LINES, &ref) == 0) {
        compare_results(&dev, &ref);
        result_clear(&ref);
    }
    result_clear(&dev);
}

static void
test_opencl_shapes(void)
{
    static const char *const variants[] = {"local", "private"};
    const size_t w = 151, h = 97, n = 1500;
    image a = gray_scene(w, h, 21), b = gray_scene(w, h, 22);
    votecl_image va = image_view(&a), vb = image_view(&b);
    float *f = g_new(float, w *h);
    votecl_image fview = {f, w, h, w * sizeof(float), 1, VOTECL_DTYPE_F32};
    votecl_lines_edge *e = g_new(votecl_lines_edge, n);
    votecl_lines_params p;
    tu_rng rng;
    tu_rng_init(&rng, 7);
    for (size_t i = 0; i < n; i++)
        e[i] = (votecl_lines_edge){tu_rng_below(&rng, w), tu_rng_below(&rng, h),
                                   (int32_t)tu_rng_below(&rng, 2001) - 1000,
                                   (int32_t)tu_rng_below(&rng, 2001) - 1000};
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            f[y * w + x] = a.data[y * a.stride + x] / 255.0f + (float)(x % 3) * 1e-3f;
    for (size_t v = 0; v < G_N_ELEMENTS(variants); v++) {
        votecl_context *ctx = shaped_device(variants[v]);
        if (ctx == NULL)
            break;
        g_test_message("VOTECL_FORCE_VARIANT=%s", variants[v]);
        check_shape(ctx, &va, &fview, e, n);
        votecl_lines_params_init(&p);
        p.threshold = 20;
        p.rows = 2000;
        check_reuse(ctx, &p, &va, &vb);
        votecl_context_free(ctx);
    }
    g_free(e);
    g_free(f);
    g_free(a.data);
    g_free(b.data);
}

/* 4K and 8192 x 8192 (the truth suite's large family, a few long lines) on the device equal
 * to the reference: -m slow only (the reference and the spaces take seconds and 1 GiB). */
static void
test_opencl_large(void)
{
    const truth_lines_family *fam = truth_lines_family_find("large");
    votecl_lines_params p;
    if (device() == NULL)
        return;
    votecl_lines_params_init(&p);
    p.segments = 1;
    for (size_t k = 1; k < fam->count; k += 2) { /* 3840x2160 and 8192x8192 */
        truth_lines_case c;
        g_assert_cmpint(truth_lines_case_make(fam, k, 1, &c), ==, 0);
        votecl_image view = {c.pixels, c.width, c.height, c.width, 1, VOTECL_DTYPE_U8};
        g_test_message("%s: %ux%u", c.name, c.width, c.height);
        check_equal_on(device(), &p, &view, c.width, c.height);
        truth_lines_case_clear(&c);
    }
}

/* --- the line truth suite (tests/truth-lines.h): a fixed subset with recall floors --- */

typedef struct truth_subset {
    const char *family;
    size_t step, count;        /* cases 0, step, 2 step, ... (count of them) */
    double recall;             /* floor at the defaults (measured: docs/accuracy.md) */
    double ends;               /* floor of the segments' ends within 3 px */
    double theta_max, rho_max; /* ceilings of the matched lines' errors (degrees, px) */
} truth_subset;

/* The errors' ceilings are issue 23's target (0.1 degree, 0.25 px), but for 4-connected
 * strokes: each diagonal step adds a pixel on one side, so the stroke's own middle lies up to
 * 0.35 px off the segment (at 45 degrees), and the fit finds the stroke's middle. Measured on
 * this subset with the fit: 0.004 degree and 0.002 px (8-connected), 0.002 and 0.352
 * (4-connected), 0.001 and 0.000 (anti-aliased), 0.071 and 0.224 (clutter); the cells alone
 * (refine 0): 0.41 and 1.21, 0.29 and 1.85, 0.07 and 1.30, 0.19 and 2.10. */
static const truth_subset truth_subsets[] = {
    {"single-8conn", 5, 36, 1.0, 1.0, 0.1, 0.25}, /* every 5th degree, 8-connected */
    {"single-4conn", 5, 36, 1.0, 1.0, 0.1, 0.36},
    {"single-aa", 10, 18, 1.0, 1.0, 0.1, 0.25},
    {"multi-clutter", 1, 4, 0.9, 0.7, 1.5, 3.0},
};

static void
check_truth(votecl_context *ctx)
{
    for (size_t s = 0; s < sizeof truth_subsets / sizeof truth_subsets[0]; s++) {
        const truth_subset *sub = &truth_subsets[s];
        const truth_lines_family *fam = truth_lines_family_find(sub->family);
        truth_lines_score score = {0};
        votecl_lines_plan *plan = NULL;
        uint32_t pw = 0, ph = 0;
        g_assert_nonnull(fam);
        for (size_t k = 0; k < sub->count; k++) {
            truth_lines_case c;
            votecl_lines_line lines[64];
            truth_lines_detection det[64];
            size_t found = 0;
            votecl_lines_params p;
            g_assert_cmpint(truth_lines_case_make(fam, k * sub->step, 1, &c), ==, 0);
            votecl_image view = {c.pixels, c.width, c.height, c.width, 1, VOTECL_DTYPE_U8};
            if (plan == NULL || pw != c.width || ph != c.height) {
                votecl_lines_plan_free(plan);
                votecl_lines_params_init(&p);
                p.segments = 1;
                g_assert_cmpint(votecl_lines_plan_new(ctx, &p, c.width, c.height, &plan), ==,
                                VOTECL_OK);
                pw = c.width;
                ph = c.height;
            }
            g_assert_cmpint(votecl_lines_run(plan, &view, lines, 64, &found), ==, VOTECL_OK);
            found = found < 64 ? found : 64;
            for (size_t i = 0; i < found; i++)
                det[i] = (truth_lines_detection){.theta = lines[i].theta,
                                                 .rho = lines[i].rho,
                                                 .has_ends = lines[i].has_segment,
                                                 .x0 = lines[i].x0,
                                                 .y0 = lines[i].y0,
                                                 .x1 = lines[i].x1,
                                                 .y1 = lines[i].y1};
            truth_lines_score_case(&c, det, found, &score);
            truth_lines_case_clear(&c);
        }
        votecl_lines_plan_free(plan);
        g_test_message("%s: recall %zu/%zu, precision %.3f, segment ends within 3 px %zu/%zu, "
                       "largest errors %.3f degree %.3f px",
                       sub->family, score.matched, score.truths, truth_lines_precision(&score),
                       score.ends_within, score.ends, score.theta_error_max, score.rho_error_max);
        g_assert_cmpfloat(truth_lines_recall(&score), >=, sub->recall);
        g_assert_cmpfloat(score.theta_error_max, <=, sub->theta_max);
        g_assert_cmpfloat(score.rho_error_max, <=, sub->rho_max);
        g_assert_cmpuint(score.ends, ==, score.matched); /* every found line has a segment */
        g_assert_cmpfloat((double)score.ends_within, >=, sub->ends * score.ends);
    }
}

static void
test_ref_truth(void)
{
    check_truth(tu_ref_context);
}

static void
test_opencl_truth(void)
{
    if (device() != NULL)
        check_truth(device());
}

/* --- the fit against recorded values --- */

/* A scene for the fit: an anti-aliased line 2 px wide, a step edge crossing it, a thin line
 * and clutter (values of tu_rng 7), 200 x 150. */
static image
fit_scene(void)
{
    image im = image_new(200, 150, 200);
    planted soft = {0.3, 60.0}, step = {2.0, -40.0}, thin = {1.2, 120.0};
    tu_rng rng;

    tu_rng_init(&rng, 7);
    for (size_t y = 0; y < im.height; y++)
        for (size_t x = 0; x < im.width; x++) {
            double d = fabs((double)x * cos(soft.theta) + (double)y * sin(soft.theta) - soft.rho);
            double v = (bright(&step, x, y) ? 120.0 : 30.0) + (d < 2.0 ? 100.0 * (2.0 - d) : 0.0);
            im.data[y * im.stride + x] = (uint8_t)(v + (double)tu_rng_below(&rng, 25));
        }
    draw_line(&im, &thin, 250);
    return im;
}

/* The scene's edges as a list (3 x 3 Sobel at least 128), every third without a gradient. */
static votecl_lines_edge *
fit_scene_edges(const image *im, size_t *n)
{
    votecl_lines_edge *e = g_new(votecl_lines_edge, im->width * im->height);
    int32_t gx, gy;

    *n = 0;
    for (uint32_t y = 1; y + 1 < im->height; y++)
        for (uint32_t x = 1; x + 1 < im->width; x++) {
            votecl__pclines_sobel(im->data, VOTECL_DTYPE_U8, (uint32_t)im->width, x, y, &gx, &gy);
            if ((int64_t)gx * gx + (int64_t)gy * gy >= 128 * 128)
                e[(*n)++] = (votecl_lines_edge){x, y, *n % 3 ? gx : 0, *n % 3 ? gy : 0};
        }
    return e;
}

/* The fitted lines (a, b, c) of the scene's image, with the longest segment's ends (x0, y0,
 * x1, y1), and of its edge list, as the fit's integer sums give them (session 12,
 * 2026-11-27; the double sums before moved them by at most 2e-7 relative): within 1e-9, so that
 * another libm's last bit passes but a pixel more or less in a fit, or a weight changed, does not.
 */
static const double fit_image_lines[][7] = {
    {0x1.e911196cb1a2cp-1, 0x1.2f0928cd2142ep-2, -0x1.e0362afb91c86p+5, 0x1.f494537b5f97p+5,
     0x1.bc2d441290bp-1, 0x1.0e713c356cd02p+4, 0x1.288f2e1e989e4p+7},
    {0x1.734c48041046fp-2, 0x1.dd28192f5a809p-1, -0x1.e015b7320ed2ap+6, 0x1.8bd490dec3ed3p+7,
     0x1.9e4176109b25cp+5, 0x1.78cd3c181c2p+0, 0x1.006cf89cc70f5p+7},
    {-0x1.aa6cf390fef58p-2, 0x1.d17e5d6b89781p-1, 0x1.40590efd290b1p+5, 0x1.8c446eb94dc14p+7,
     0x1.75aa620b48f27p+5, 0x1.84ee4bd18f2c7p+6, 0x1.f7be55d7ca68p-2},
};
static const double fit_list_lines[][3] = {
    {0x1.e90c3ca322779p-1, 0x1.2f288ad36a2b5p-2, -0x1.e04e0aa1fee88p+5},
    {0x1.73624e45c5p-2, 0x1.dd23d030cc6ap-1, -0x1.e014468f3ad6cp+6},
    {-0x1.abd3c9a33865bp-2, 0x1.d12c057ee5184p-1, 0x1.420c07a94bdaep+5},
};

/* values (3 or 7) of each of found lines against want (n lines of values each). */
static void
check_recorded(const votecl_lines_line *l, size_t found, const double *want, size_t n, int values)
{
    g_assert_cmpuint(found, ==, n);
    for (size_t i = 0; i < found; i++) {
        double got[7] = {l[i].a, l[i].b, l[i].c, l[i].x0, l[i].y0, l[i].x1, l[i].y1};
        for (int k = 0; k < values; k++) {
            if (fabs(got[k] - want[i * values + k]) > 1e-9)
                g_test_message("line %zu value %d: %a, recorded %a", i, k, got[k],
                               want[i * values + k]);
            g_assert_cmpfloat(fabs(got[k] - want[i * values + k]), <=, 1e-9);
        }
    }
}

/* The fit's integer helpers (lib/pclines-fit.c, which cl/pclines.cl repeats): floor division
 * of either sign, the exact integer square root up to the largest f32 gradient's 2^41, and a
 * step's span, which must hold exactly the pixels within the gathering line's reach. */
static void
test_ref_fit_integers(void)
{
    GRand *rng = g_rand_new_with_seed(11);
    const votecl__pclines_desc desc = {.width = 301, .height = 517};

    for (int i = 0; i < 20000; i++) {
        int64_t a =
            (int64_t)g_rand_int_range(rng, -2000000, 2000000) * g_rand_int_range(rng, 1, 70000);
        int64_t b = g_rand_int_range(rng, 1, 2000000) * (g_rand_boolean(rng) ? 1 : -1);
        int64_t q = votecl__pclines_fit_floor_div(a, b);
        g_assert_cmpint(q, ==, (int64_t)floorl((long double)a / (long double)b));
        uint64_t m = i < 4096 ? (uint64_t)(i + 1) * (uint64_t)(i + 1) + (uint64_t)(i % 3) - 1u
                              : ((uint64_t)g_rand_int(rng) << 10 ^ g_rand_int(rng)) % (1ull << 42);
        uint64_t r = votecl__pclines_fit_isqrt(m);
        g_assert_true(r * r <= m && (r + 1) * (r + 1) > m);
    }
    for (int i = 0; i < 300; i++) {
        double theta = g_rand_double_range(rng, 0, 2 * G_PI),
               rho = g_rand_double_range(rng, -50, 600);
        votecl_lines_line l = {.a = cos(theta), .b = sin(theta), .c = -rho};
        votecl__segment_line first;
        int64_t p[VOTECL__PCLINES_FIT_WORDS];
        votecl__pclines_fit_first(&desc, &l, &first, p);
        for (int64_t step = p[12]; step <= p[13]; step++) {
            int64_t lo = 0, hi = -1, across = p[11] ? desc.height : desc.width;
            int any = votecl__pclines_fit_span(p, step, &lo, &hi);
            for (int64_t c = 0; c < across; c++) {
                int64_t x = p[11] ? step : c, y = p[11] ? c : step;
                int64_t d = p[0] * x + p[1] * y - p[2];
                int within = d >= -p[3] && d <= p[3] && c >= 1 && c <= across - 2;
                g_assert_cmpint(within, ==, any && c >= lo && c <= hi);
            }
        }
    }
    g_rand_free(rng);
}

/* The edge map's vector edge test (SSE2 where the host has it) equals the scalar one on
 * random rows, rows of only 0 and 255 (the largest gradients) and the thresholds' ends. */
static void
test_ref_edge_bits(void)
{
    uint8_t rows[3][34];
    const int32_t t2s[] = {0, 1, 2, 100, 1600, 40000, 1040400, 1040401, 1 << 22};
    GRand *rng = g_rand_new_with_seed(7);

    for (int round = 0; round < 2000; round++) {
        for (int r = 0; r < 3; r++)
            for (int i = 0; i < 34; i++)
                rows[r][i] = round % 2 ? (uint8_t)(g_rand_boolean(rng) ? 255 : 0)
                                       : (uint8_t)g_rand_int_range(rng, 0, 256);
        for (size_t k = 0; k < G_N_ELEMENTS(t2s); k++)
            g_assert_cmphex(
                votecl__pclines_edge_bits(rows[0] + 1, rows[1] + 1, rows[2] + 1, t2s[k]), ==,
                votecl__pclines_edge_bits_scalar(rows[0] + 1, rows[1] + 1, rows[2] + 1, t2s[k]));
    }
    g_rand_free(rng);
}

static void
test_ref_fit_recorded(void)
{
    image im = fit_scene();
    votecl_image view = image_view(&im);
    votecl_lines_plan *plan = NULL;
    votecl_lines_line lines[32];
    votecl_lines_params p;
    size_t found = 0, n = 0;
    votecl_lines_edge *edges = fit_scene_edges(&im, &n);

    votecl_lines_params_init(&p);
    p.segments = 1;
    g_assert_cmpint(votecl_lines_plan_new(tu_ref_context, &p, im.width, im.height, &plan), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl_lines_run(plan, &view, lines, 32, &found), ==, VOTECL_OK);
    for (size_t i = 0; i < found && i < 32; i++)
        g_test_message("image {%a, %a, %a, %a, %a, %a, %a},", lines[i].a, lines[i].b, lines[i].c,
                       lines[i].x0, lines[i].y0, lines[i].x1, lines[i].y1);
    g_assert_cmpuint(found, <=, 32);
    check_recorded(lines, found, &fit_image_lines[0][0], G_N_ELEMENTS(fit_image_lines), 7);
    g_assert_cmpint(votecl_lines_run_edges(plan, edges, n, lines, 32, &found), ==, VOTECL_OK);
    for (size_t i = 0; i < found && i < 32; i++)
        g_test_message("list {%a, %a, %a},", lines[i].a, lines[i].b, lines[i].c);
    g_assert_cmpuint(found, <=, 32);
    check_recorded(lines, found, &fit_list_lines[0][0], G_N_ELEMENTS(fit_list_lines), 3);
    votecl_lines_plan_free(plan);
    g_free(edges);
    g_free(im.data);
}

/* --- the fit on the host's threads: the same bytes on one thread and on four --- */

/* A frame of many lines: n (at most 30) half-planes at random angles through the middle of the
 * image, a pixel bright when it lies in an odd number of them (so that every line is a step edge
 * along its whole length, crossing the others), and noise. */
static image
many_lines(size_t w, size_t h, int n, uint64_t seed)
{
    tu_rng rng;
    image im = image_new(w, h, w);
    double c[30], s[30], rho[30]; /* as bright()'s, its cos and sin taken once */
    tu_rng_init(&rng, seed);
    for (int i = 0; i < n; i++) {
        double theta = tu_rng_float(&rng, 0.0f, (float)M_PI);
        double px = w / 4.0 + tu_rng_float(&rng, 0.0f, w / 2.0f);
        double py = h / 4.0 + tu_rng_float(&rng, 0.0f, h / 2.0f);
        c[i] = cos(theta);
        s[i] = sin(theta);
        rho[i] = px * c[i] + py * s[i];
    }
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            int odd = 0;
            for (int i = 0; i < n; i++)
                odd ^= (double)x * c[i] + (double)y * s[i] < rho[i] - 1e-9;
            im.data[y * im.stride + x] = (uint8_t)(60 + 120 * odd + (int)tu_rng_below(&rng, 16));
        }
    return im;
}

/* What a run gives: its lines, segments and the threads its fit had. */
typedef struct threaded {
    votecl_lines_line lines[MAX_LINES];
    size_t found, nsegments;
    votecl_segment *segments; /* g_malloc'd */
    unsigned fit, walk;       /* the threads of the fit and the segment walk */
    int on_device, gpu_shape; /* the fit ran on the device; the context is GPU-shaped */
} threaded;

/* A context of the backend (ref, else the running device test's) made with
 * VOTECL_HOST_THREADS at threads. */
static votecl_context *
threads_context(int ref, const char *threads)
{
    char *saved = tu_env_set("VOTECL_HOST_THREADS", threads);
    votecl_context *ctx = ref ? tu_ref_context_new() : tu_device_context_new(NULL);
    tu_env_restore("VOTECL_HOST_THREADS", saved);
    return ctx;
}

/* Runs view (max_lines at most) on a context with threads; 0 on success. */
static int
run_threaded(int ref, const char *threads, const votecl_image *view, size_t max_lines, threaded *r)
{
    votecl_context *ctx = threads_context(ref, threads);
    votecl_lines_plan *plan;
    votecl_lines_params p;
    const votecl_segment *segments;

    memset(r, 0, sizeof *r);
    if (ctx == NULL)
        return -1;
    votecl_lines_params_init(&p);
    p.segments = 1;
    p.max_lines = max_lines;
    plan = plan_new(ctx, &p, view->width, view->height);
    g_assert_nonnull(plan);
    g_assert_cmpint(votecl_lines_run(plan, view, r->lines, MAX_LINES, &r->found), ==, VOTECL_OK);
    g_assert_cmpint(votecl_lines_plan_segments(plan, &segments, &r->nsegments), ==, VOTECL_OK);
    r->segments = g_memdup2(segments, r->nsegments * sizeof *segments);
    votecl__lines_plan_threads(plan, &r->fit, &r->walk);
    r->on_device = votecl__lines_plan_fit_on_device(plan);
    r->gpu_shape = !ref && !ctx->shape.cpu;
    votecl_lines_plan_free(plan);
    votecl_context_free(ctx);
    return 0;
}

/* Whether a and b hold the same bytes in every field. */
static int
same_segment(const votecl_segment *a, const votecl_segment *b)
{
    double ea[4] = {a->x0, a->y0, a->x1, a->y1}, eb[4] = {b->x0, b->y0, b->x1, b->y1};

    return memcmp(ea, eb, sizeof ea) == 0 && a->line == b->line && a->hits == b->hits;
}

/* The lines and segments of view on one thread and on four are the same bytes; the fit and
 * the walk had four threads when view has at least four lines of 1024 steps or more (a claim
 * each: their grain), else one; a GPU-shaped device fits the lines itself (the host's fit
 * then one thread, the walk still four). */
static void
check_threads(int ref, const votecl_image *view, size_t max_lines)
{
    threaded *one = g_new0(threaded, 1), *four = g_new0(threaded, 1); /* no segments when skipped */
    int big = (view->width > view->height ? view->width : view->height) >= 1024;

    if (run_threaded(ref, "1", view, max_lines, one) == 0 &&
        run_threaded(ref, "4", view, max_lines, four) == 0) {
        g_test_message("%zux%zu: %zu lines, %zu segments, fit on %u threads, walk on %u",
                       view->width, view->height, four->found, four->nsegments, four->fit,
                       four->walk);
        g_assert_cmpuint(one->fit, ==, 1);
        g_assert_cmpuint(one->walk, ==, 1);
        g_assert_cmpint(one->on_device, ==, one->gpu_shape);
        g_assert_cmpint(four->on_device, ==, four->gpu_shape);
        g_assert_cmpuint(four->fit, ==, big && one->found >= 4 && !four->on_device ? 4 : 1);
        g_assert_cmpuint(four->walk, ==, big && MIN(one->found, MAX_LINES) >= 4 ? 4 : 1);
        g_assert_cmpuint(one->found, ==, four->found);
        g_assert_cmpuint(one->found, >, 0);
        g_assert_cmpint(
            memcmp(one->lines, four->lines, MIN(one->found, MAX_LINES) * sizeof *one->lines), ==,
            0);
        g_assert_cmpuint(one->nsegments, ==, four->nsegments);
        g_assert_cmpuint(one->nsegments, >, 0);
        for (size_t i = 0; i < one->nsegments; i++) /* each field's bytes (not the padding) */
            g_assert_true(same_segment(&one->segments[i], &four->segments[i]));
    }
    g_free(one->segments);
    g_free(four->segments);
    g_free(one);
    g_free(four);
}

/* A frame of many lines (1080p on a device; on the reference, whose votes take seconds at
 * 1080p, 1024 x 288), all of them and the first 12 kept (so the fit runs in batches of the
 * lines still wanted), and a small frame whose fits stay on one thread. */
static void
check_threads_frames(int ref)
{
    image big = many_lines(ref ? 1024 : 1920, ref ? 288 : 1080, 30, 31);
    image small = many_lines(96, 64, 3, 32);
    votecl_image vb = image_view(&big), vs = image_view(&small);

    check_threads(ref, &vb, 0);
    check_threads(ref, &vb, 12);
    check_threads(ref, &vs, 0);
    g_free(big.data);
    g_free(small.data);
}

static void
test_ref_threads(void)
{
    check_threads_frames(1);
}

static void
test_opencl_threads(void)
{
    check_threads_frames(0);
}

/* params.fit_on_host: the device's context fits on the host (never on the device), with the
 * same lines bit for bit as its default, which fits on the device exactly where the context
 * is GPU-shaped. */
static void
test_opencl_fit_on_host(void)
{
    votecl_context *ctx = device();
    image im = many_lines(320, 240, 6, 33);
    votecl_image view = image_view(&im);
    votecl_lines_line got[2][MAX_LINES];
    size_t found[2] = {0, 0};

    if (ctx == NULL)
        goto out;
    for (int host = 0; host < 2; host++) {
        votecl_lines_params p;
        votecl_lines_plan *plan;
        votecl_lines_params_init(&p);
        p.fit_on_host = host;
        plan = plan_new(ctx, &p, view.width, view.height);
        g_assert_nonnull(plan);
        memset(got[host], 0, sizeof got[host]);
        tu_check_ok(ctx, votecl_lines_run(plan, &view, got[host], MAX_LINES, &found[host]), "run");
        g_assert_cmpint(votecl__lines_plan_fit_on_device(plan), ==, !host && !ctx->shape.cpu);
        votecl_lines_plan_free(plan);
    }
    g_assert_cmpuint(found[0], >, 0);
    g_assert_cmpuint(found[0], ==, found[1]);
    g_assert_cmpint(memcmp(got[0], got[1], MIN(found[0], MAX_LINES) * sizeof got[0][0]), ==, 0);
out:
    g_free(im.data);
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/pclines/keys", {test_ref_keys}},
    {TU_PATH, "/ref/pclines/axes", {test_ref_axes}},
    {TU_PATH, "/ref/pclines/synthetic", {test_ref_synthetic}},
    {TU_PATH, "/ref/pclines/degenerate", {test_ref_degenerate}},
    {TU_PATH, "/ref/pclines/bad-args", {test_ref_bad_args}},
    {TU_PATH, "/ref/pclines/segments-diagonal", {test_ref_segments_diagonal}},
    {TU_PATH, "/ref/pclines/segments-dashed", {test_ref_segments_dashed}},
    {TU_PATH, "/ref/pclines/positions", {test_ref_positions}},
    {TU_PATH, "/ref/pclines/truth", {test_ref_truth}},
    {TU_PATH, "/ref/pclines/fit-recorded", {test_ref_fit_recorded}},
    {TU_PATH, "/ref/pclines/edge-bits", {test_ref_edge_bits}},
    {TU_PATH, "/ref/pclines/fit-integers", {test_ref_fit_integers}},
    {TU_PATH, "/ref/pclines/threads", {test_ref_threads}},
    {TU_DEVICE, "pclines/equal-image", {test_opencl_equal_image}},
    {TU_DEVICE, "pclines/equal-edges", {test_opencl_equal_edges}},
    {TU_DEVICE, "pclines/colour", {test_opencl_colour}},
    {TU_DEVICE, "pclines/axes", {test_opencl_axes}},
    {TU_DEVICE, "pclines/synthetic", {test_opencl_synthetic}},
    {TU_SLOW_DEVICE, "pclines/synthetic-1600x1200", {test_opencl_synthetic_paper}},
    {TU_SLOW_DEVICE, "pclines/large-4k-8192", {test_opencl_large}},
    {TU_DEVICE, "pclines/degenerate", {test_opencl_degenerate}},
    {TU_DEVICE, "pclines/segments-diagonal", {test_opencl_segments_diagonal}},
    {TU_DEVICE, "pclines/segments-dashed", {test_opencl_segments_dashed}},
    {TU_DEVICE, "pclines/positions", {test_opencl_positions}},
    {TU_DEVICE, "pclines/truth", {test_opencl_truth}},
    {TU_DEVICE, "pclines/tiles", {test_opencl_tiles}},
    {TU_DEVICE, "pclines/shapes", {test_opencl_shapes}},
    {TU_DEVICE, "pclines/threads", {test_opencl_threads}},
    {TU_DEVICE, "pclines/fit-on-host", {test_opencl_fit_on_host}},
    {TU_DEVICE, "auto/pclines/any-size", {test_opencl_any_size}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
