/* Tests of the circle Hough transform (votecl-circles.h): the reference against constructed
 * truth (a drawn disc, a Bresenham circle, the truth suite's fixed subset with floors), its
 * refusals, and every device against the reference: accumulators equal count for count and
 * circles equal field for field, on the suite's scenes, odd sizes and strided views. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "truth-circles.h"
#include "votecl-private.h" /* the context's transfer counts */

/* votecl_circles_plan_new on the 'ref' context refuses p at width x height, naming field. */
static void
expect_refused(const votecl_circles_params *p, size_t width, size_t height, const char *field)
{
    votecl_circles_plan *plan = NULL;
    votecl_status status = votecl_circles_plan_new(tu_ref_context, p, width, height, &plan);

    tu_expect_invalid(tu_ref_context, status, field);
    g_assert_null(plan);
}

/* A plan for width x height on context, failing the test when it cannot be made. */
static votecl_circles_plan *
plan_new(votecl_context *context, const votecl_circles_params *p, size_t width, size_t height)
{
    votecl_circles_plan *plan = NULL;
    votecl_status status = votecl_circles_plan_new(context, p, width, height, &plan);

    if (status != VOTECL_OK)
        g_error("plan_new: %s: %s", votecl_status_string(status),
                votecl_context_get_error(context));
    return plan;
}

static size_t
run(votecl_circles_plan *plan, votecl_context *context, const votecl_image *image,
    votecl_circle *circles, size_t capacity)
{
    size_t found = 0;
    votecl_status status = votecl_circles_run(plan, image, circles, capacity, &found, NULL);

    if (status != VOTECL_OK)
        g_error("run: %s: %s", votecl_status_string(status), votecl_context_get_error(context));
    return found;
}

/* Field by field: the struct's padding is nobody's. */
static void
same_circle(const votecl_circle *a, const votecl_circle *b)
{
    g_assert_cmpfloat(a->x, ==, b->x);
    g_assert_cmpfloat(a->y, ==, b->y);
    g_assert_cmpfloat(a->radius, ==, b->radius);
    g_assert_cmpfloat(a->score, ==, b->score);
    g_assert_cmpuint(a->votes, ==, b->votes);
}

/* --- the reference against constructed truth --- */

static void
test_ref_disc(void)
{
    truth_circles_case c;
    votecl_circles_params p;
    votecl_circle circles[8];
    votecl_circles_plan *plan;
    size_t found;

    g_assert_cmpint(truth_circles_case_make(truth_circles_family_find("single"), 20, 1, &c), ==, 0);
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.votes = 20;
    p.min_radius = 5;
    p.max_radius = 100;
    plan = plan_new(tu_ref_context, &p, c.width, c.height);
    found = run(plan, tu_ref_context,
                &(votecl_image){.data = c.pixels,
                                .width = c.width,
                                .height = c.height,
                                .stride = c.width,
                                .dtype = VOTECL_DTYPE_U8,
                                .channels = 1},
                circles, 8);
    g_assert_cmpuint(found, >=, 1);
    g_assert_cmpfloat(fabs(circles[0].x - c.truth[0].x), <=, 1.5);
    g_assert_cmpfloat(fabs(circles[0].y - c.truth[0].y), <=, 1.5);
    g_assert_cmpfloat(fabs(circles[0].radius - c.truth[0].r), <=, 1.5);
    g_assert_cmpfloat(circles[0].score, >, p.votes);
    votecl_circles_plan_free(plan);
    truth_circles_case_clear(&c);
}

static void
test_ref_empty(void)
{
    uint8_t img[40 * 30];
    votecl_circles_params p;
    votecl_circles_plan *plan;
    votecl_circle circles[2];

    for (int m = 0; m < 2; m++) {
        /* a flat gray image has no Canny edge; the radii method's edge image has none */
        memset(img, m == VOTECL_CIRCLES_GRADIENT ? 77 : 0, sizeof img);
        votecl_circles_params_init(&p, (votecl_circles_method)m);
        p.max_radius = 10;
        plan = plan_new(tu_ref_context, &p, 40, 30);
        g_assert_cmpuint(run(plan, tu_ref_context,
                             &(votecl_image){img, 40, 30, 40, 1, VOTECL_DTYPE_U8}, circles, 2),
                         ==, 0);
        g_assert_null(m == VOTECL_CIRCLES_GRADIENT ? votecl_circles_plan_accumulator(plan) : NULL);
        votecl_circles_plan_free(plan);
    }
}

static void
test_ref_invalid_params(void)
{
    votecl_circles_params p;

    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    expect_refused(&p, 0, 10, "width");
    expect_refused(&p, 10, 65536, "height");
    p.dp = 0.5;
    expect_refused(&p, 10, 10, "dp");
    p.dp = NAN;
    expect_refused(&p, 10, 10, "dp");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.min_dist = -1;
    expect_refused(&p, 10, 10, "min_dist");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.canny_high = 0;
    expect_refused(&p, 10, 10, "canny_high");
    p.canny_high = VOTECL_CIRCLES_MAX_CANNY + 1;
    expect_refused(&p, 10, 10, "canny_high");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.method = (votecl_circles_method)7;
    expect_refused(&p, 10, 10, "method");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.max_radius = 70000;
    expect_refused(&p, 10, 10, "max_radius");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.radius_step = 0;
    expect_refused(&p, 10, 10, "radius_step");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.max_radius = 2;
    expect_refused(&p, 10, 10, "max_radius");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.min_radius = 1;
    p.max_radius = 5000;
    expect_refused(&p, 10, 10, "max_radius");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.max_radius = 1000;
    expect_refused(&p, 30000, 30000, "max_radius");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.min_ydistance = 0;
    expect_refused(&p, 10, 10, "min_ydistance");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.threshold = -1;
    expect_refused(&p, 10, 10, "threshold");
    expect_refused(NULL, 10, 10, "params");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.struct_size = 0;
    expect_refused(&p, 10, 10, "struct_size");
}

/* One step beyond each documented limit is refused naming the field; the limit itself is
 * taken (where that is cheap to plan). */
static void
test_ref_limits(void)
{
    votecl_circles_params p;
    votecl_circles_plan *plan = NULL;

    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    expect_refused(&p, VOTECL_CIRCLES_MAX_SIDE + 1, 1, "width");
    expect_refused(&p, 1, VOTECL_CIRCLES_MAX_SIDE + 1, "height");
    p.canny_high = VOTECL_CIRCLES_MAX_CANNY;
    g_assert_cmpint(votecl_circles_plan_new(tu_ref_context, &p, 8, 8, &plan), ==, VOTECL_OK);
    votecl_circles_plan_free(plan);
    p.canny_high = VOTECL_CIRCLES_MAX_CANNY + 1;
    expect_refused(&p, 8, 8, "canny_high");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.min_radius = VOTECL_CIRCLES_MAX_SIDE + 1;
    expect_refused(&p, 8, 8, "min_radius");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.dp = 65535.5;
    expect_refused(&p, 8, 8, "dp");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.min_dist = 1e6 * 1.0000001;
    expect_refused(&p, 8, 8, "min_dist");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.min_radius = 1;
    p.max_radius = VOTECL_CIRCLES_MAX_RADII; /* 1024 radii: the limit */
    g_assert_cmpint(votecl_circles_plan_new(tu_ref_context, &p, 4, 4, &plan), ==, VOTECL_OK);
    g_assert_null(votecl_circles_plan_accumulator(plan));
    votecl_circles_plan_free(plan);
    p.max_radius = VOTECL_CIRCLES_MAX_RADII + 1;
    expect_refused(&p, 4, 4, "max_radius");
    /* 2 radii of 32768 x 16385 cells: one row past VOTECL_CIRCLES_MAX_CELLS */
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.min_radius = 1;
    p.max_radius = 2;
    expect_refused(&p, 32768, 16385, "max_radius");
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.threshold = 1e12 * 1.0000001;
    expect_refused(&p, 8, 8, "threshold");
}

static void
test_ref_invalid_run(void)
{
    uint8_t img[20 * 10] = {0};
    votecl_circles_params p;
    votecl_circles_plan *plan;
    votecl_circle circles[1];
    size_t found;

    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    plan = plan_new(tu_ref_context, &p, 20, 10);
    tu_expect_invalid(tu_ref_context,
                      votecl_circles_run(plan, &(votecl_image){img, 10, 20, 10, 1, VOTECL_DTYPE_U8},
                                         circles, 1, &found, NULL),
                      "image.width");
    tu_expect_invalid(tu_ref_context,
                      votecl_circles_run(plan, &(votecl_image){img, 20, 10, 20, 1, VOTECL_DTYPE_U8},
                                         circles, 1, NULL, NULL),
                      "found");
    tu_expect_invalid(tu_ref_context,
                      votecl_circles_run(plan, &(votecl_image){img, 20, 10, 20, 1, VOTECL_DTYPE_U8},
                                         NULL, 1, &found, NULL),
                      "circles");
    tu_expect_invalid(tu_ref_context,
                      votecl_circles_run(plan,
                                         &(votecl_image){img, 20, 10, 20, 1, VOTECL_DTYPE_F32},
                                         circles, 1, &found, NULL),
                      "image.dtype");
    g_assert_cmpint(votecl_circles_run(NULL, NULL, NULL, 0, NULL, NULL), ==,
                    VOTECL_INVALID_ARGUMENT);
    votecl_circles_plan_free(plan);
    votecl_circles_plan_free(NULL);
}

/* The multi family's first case has several circles: with room for one, found says all. */
static void
test_ref_capacity(void)
{
    truth_circles_case c;
    votecl_circles_params p;
    votecl_circle one, all[64];
    votecl_circles_plan *plan;
    size_t found = 0, n;

    g_assert_cmpint(truth_circles_case_make(truth_circles_family_find("multi"), 0, 1, &c), ==, 0);
    votecl_circles_params_init(&p, VOTECL_CIRCLES_GRADIENT);
    p.votes = 20;
    p.min_radius = 6;
    p.max_radius = 70;
    plan = plan_new(tu_ref_context, &p, c.width, c.height);
    n = run(plan, tu_ref_context,
            &(votecl_image){c.pixels, c.width, c.height, c.width, 1, VOTECL_DTYPE_U8}, all, 64);
    g_assert_cmpuint(n, >=, 2);
    g_assert_cmpint(votecl_circles_run(
                        plan,
                        &(votecl_image){c.pixels, c.width, c.height, c.width, 1, VOTECL_DTYPE_U8},
                        &one, 1, &found, NULL),
                    ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, n);
    same_circle(&one, &all[0]);
    p.max_circles = 1;
    votecl_circles_plan_free(plan);
    plan = plan_new(tu_ref_context, &p, c.width, c.height);
    g_assert_cmpuint(run(plan, tu_ref_context,
                         &(votecl_image){c.pixels, c.width, c.height, c.width, 1, VOTECL_DTYPE_U8},
                         all, 64),
                     ==, 1);
    votecl_circles_plan_free(plan);
    truth_circles_case_clear(&c);
}

/* The suite's parameters for a case (tools/eval-circles.c's rule: one for every case). */
static void
suite_params(votecl_circles_params *p, votecl_circles_method m, const truth_circles_case *c)
{
    votecl_circles_params_init(p, m);
    p->min_radius = (unsigned)c->min_radius;
    p->max_radius = (unsigned)c->max_radius;
    if (m == VOTECL_CIRCLES_GRADIENT) {
        p->votes = 40;
        p->min_dist = 20;
    } else {
        p->radius_step = 2;
        p->threshold = 0.4;
        p->min_xdistance = p->min_ydistance = 10;
    }
}

/* The radii method takes an edge image: the library's Canny, as the gradient method's. */
static uint8_t *
edges_of(const truth_circles_case *c)
{
    uint8_t *e = g_malloc((size_t)c->width * c->height);
    votecl_image v = {c->pixels, c->width, c->height, c->width, 1, VOTECL_DTYPE_U8};

    g_assert_cmpint(votecl_hough_edges(tu_ref_context, &v, 50, 100, e, c->width), ==, VOTECL_OK);
    return e;
}

static truth_circles_score
score_subset(votecl_circles_method m, const char *family, size_t count)
{
    truth_circles_score s = {0};
    const truth_circles_family *f = truth_circles_family_find(family);

    for (size_t i = 0; i < count; i++) {
        truth_circles_case c;
        votecl_circles_params p;
        votecl_circle out[32];
        truth_circle d[32];
        votecl_circles_plan *plan;
        uint8_t *pixels;
        size_t n;

        g_assert_cmpint(truth_circles_case_make(f, i * f->count / count, 1, &c), ==, 0);
        suite_params(&p, m, &c);
        pixels = m == VOTECL_CIRCLES_RADII ? edges_of(&c) : c.pixels;
        plan = plan_new(tu_ref_context, &p, c.width, c.height);
        n = run(plan, tu_ref_context,
                &(votecl_image){pixels, c.width, c.height, c.width, 1, VOTECL_DTYPE_U8}, out, 32);
        for (size_t k = 0; k < n && k < 32; k++)
            d[k] = (truth_circle){out[k].x, out[k].y, out[k].radius};
        truth_circles_score_case(&c, d, n < 32 ? n : 32, &s);
        votecl_circles_plan_free(plan);
        if (pixels != c.pixels)
            g_free(pixels);
        truth_circles_case_clear(&c);
    }
    return s;
}

/* The fixed subset with floors (the full suite: votecl eval circles). */
static void
test_ref_truth(void)
{
    static const struct {
        int method;
        const char *family;
        size_t count;
        double recall, precision;
    } rows[] = {
        /* measured 0.75 / 1 (the two smallest discs have fewer than 40 edge pixels, as
         * for cv2.HoughCircles with the same rule), 0.917 / 1, 1 / 1 */
        {VOTECL_CIRCLES_GRADIENT, "single", 8, 0.7, 0.95},
        {VOTECL_CIRCLES_GRADIENT, "multi", 3, 0.85, 0.95},
        {VOTECL_CIRCLES_RADII, "single", 5, 0.95, 0.95},
    };

    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        truth_circles_score s = score_subset(rows[r].method, rows[r].family, rows[r].count);
        g_test_message("%s %s: recall %.3f precision %.3f (%zu of %zu, %zu detections)",
                       rows[r].method ? "radii" : "gradient", rows[r].family,
                       truth_circles_recall(&s), truth_circles_precision(&s), s.matched, s.truths,
                       s.detections);
        g_assert_cmpfloat(truth_circles_recall(&s), >=, rows[r].recall);
        g_assert_cmpfloat(truth_circles_precision(&s), >=, rows[r].precision);
    }
}

/* --- devices against the reference --- */

typedef struct scene {
    uint8_t *data;
    size_t width, height, stride;
} scene;

/* The reference and the device on one scene: accumulators and circles equal. */
static void
compare(votecl_context *dev, const votecl_circles_params *p, const scene *s)
{
    votecl_image v = {s->data, s->width, s->height, s->stride, 1, VOTECL_DTYPE_U8};
    votecl_circles_plan *a = plan_new(tu_ref_context, p, s->width, s->height),
                        *b = plan_new(dev, p, s->width, s->height);
    votecl_circle ca[64], cb[64];
    size_t na = run(a, tu_ref_context, &v, ca, 64), nb = run(b, dev, &v, cb, 64), cells;
    unsigned spaces;
    uint32_t cols, rows;
    const uint32_t *aa = votecl_circles_plan_accumulator(a),
                   *ab = votecl_circles_plan_accumulator(b);

    votecl_circles_plan_shape(a, &spaces, &cols, &rows);
    cells = (size_t)spaces * cols * rows;
    g_assert_cmpint(aa == NULL, ==, ab == NULL);
    if (aa != NULL)
        for (size_t i = 0; i < cells; i++)
            if (aa[i] != ab[i])
                g_error("%zu x %zu method %d: cell %zu: ref %u, device %u", s->width, s->height,
                        (int)p->method, i, aa[i], ab[i]);
    g_assert_cmpuint(na, ==, nb);
    for (size_t i = 0; i < na && i < 64; i++)
        same_circle(&ca[i], &cb[i]);
    votecl_circles_plan_free(a);
    votecl_circles_plan_free(b);
}

/* A truth case as a scene, or its Canny edges for the radii method; optionally strided. */
static scene
case_scene(const truth_circles_case *c, int edges, size_t pad)
{
    scene s = {NULL, c->width, c->height, c->width + pad};
    uint8_t *src = edges ? edges_of(c) : c->pixels;

    s.data = g_malloc0(s.stride * s.height);
    for (size_t y = 0; y < s.height; y++)
        memcpy(s.data + y * s.stride, src + y * c->width, c->width);
    if (edges)
        g_free(src);
    return s;
}

static void
compare_case(votecl_context *dev, const char *family, size_t i, size_t pad)
{
    truth_circles_case c;

    g_assert_cmpint(truth_circles_case_make(truth_circles_family_find(family), i, 3, &c), ==, 0);
    for (int m = 0; m < 2; m++) {
        votecl_circles_params p;
        scene s = case_scene(&c, m == VOTECL_CIRCLES_RADII, pad);
        suite_params(&p, (votecl_circles_method)m, &c);
        if (m == VOTECL_CIRCLES_RADII && p.max_radius - p.min_radius > 40)
            p.max_radius = p.min_radius + 40; /* the reference's cost, not the device's */
        compare(dev, &p, &s);
        p.dp = 1.7;      /* gradient: a coarser accumulator */
        p.normalize = 0; /* radii: raw counts, their own threshold */
        p.threshold = 0;
        p.min_xdistance = 1;
        p.min_ydistance = 2;
        compare(dev, &p, &s);
        g_free(s.data);
    }
    truth_circles_case_clear(&c);
}

static void
suite_on(votecl_context *dev)
{
    compare_case(dev, "single", 3, 0);
    compare_case(dev, "single", 30, 5);
    compare_case(dev, "arcs", 1, 0);
    compare_case(dev, "noise", 2, 3);
    compare_case(dev, "overlap", 0, 0);
    compare_case(dev, "multi", 1, 0);
    compare_case(dev, "empty", 0, 1);
}

/* fn on the device as it comes (a CPU takes the host plan) and with its kernels forced
 * (VOTECL_FORCE_SHAPE gpu: the GPU shape, whatever the device). */
static void
on_both_shapes(void (*fn)(votecl_context *dev))
{
    char *saved;
    votecl_context *forced;

    if (tu_device_shared() == NULL)
        return;
    fn(tu_device_shared());
    saved = tu_env_set("VOTECL_FORCE_SHAPE", "gpu");
    forced = tu_device_context_new(NULL);
    tu_env_restore("VOTECL_FORCE_SHAPE", saved);
    if (forced != NULL)
        fn(forced);
    votecl_context_free(forced);
}

static void
test_device_suite(void)
{
    on_both_shapes(suite_on);
}

/* Odd sizes: 1 x 1, a line, primes, random pixels (every pixel an edge for the radii method,
 * and a dense Canny for the gradient one). */
static void
odd_on(votecl_context *dev)
{
    static const size_t sizes[][2] = {{1, 1}, {2, 3}, {1, 40}, {37, 1}, {97, 61}, {131, 17}};
    tu_rng rng;

    tu_rng_init(&rng, 26);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        scene s = {NULL, sizes[k][0], sizes[k][1], sizes[k][0] + 2};
        s.data = g_malloc(s.stride * s.height);
        tu_fill_u8(&rng, s.data, s.stride * s.height);
        for (int m = 0; m < 2; m++) {
            votecl_circles_params p;
            votecl_circles_params_init(&p, (votecl_circles_method)m);
            p.votes = 3;
            p.min_radius = 1;
            p.max_radius = 12;
            compare(dev, &p, &s);
        }
        g_free(s.data);
    }
}

static void
test_device_odd(void)
{
    on_both_shapes(odd_on);
}

/* A GPU-shaped gradient plan moves lists, not images of cells: the image goes up and the
 * edges, the candidates and their radii come down, while the accumulator stays on the
 * device until asked for (lib/circles.c; the context counts the transfers). */
static void
traffic_on(votecl_context *dev)
{
    truth_circles_case c;
    votecl_circles_params p;
    votecl_circle found[64];
    votecl_circles_plan *plan;
    uint32_t cols, rows;
    votecl_queue_counts t0;

    if (dev->shape.cpu) /* the host plan: nothing moves */
        return;
    g_assert_cmpint(truth_circles_case_make(truth_circles_family_find("multi"), 1, 3, &c), ==, 0);
    suite_params(&p, VOTECL_CIRCLES_GRADIENT, &c);
    plan = plan_new(dev, &p, c.width, c.height);
    votecl_circles_plan_shape(plan, NULL, &cols, &rows);
    t0 = dev->queued;
    run(plan, dev, &(votecl_image){c.pixels, c.width, c.height, c.width, 1, VOTECL_DTYPE_U8}, found,
        64);
    g_assert_cmpuint(dev->queued.bytes_up - t0.bytes_up, >=, (uint64_t)c.width * c.height);
    g_assert_cmpuint(dev->queued.bytes_down - t0.bytes_down, <, (uint64_t)cols * rows);
    t0 = dev->queued;
    g_assert_nonnull(votecl_circles_plan_accumulator(plan)); /* asked for: 4 bytes a cell */
    g_assert_cmpuint(dev->queued.bytes_down - t0.bytes_down, ==, 4 * (uint64_t)cols * rows);
    votecl_circles_plan_free(plan);
    truth_circles_case_clear(&c);
}

static void
test_device_traffic(void)
{
    on_both_shapes(traffic_on);
}

/* scikit-image's circle_perimeter(cy, cx, r) drawn into an edge image: the radii method finds
 * that very centre and radius, with every point of the circle voting (normalised value 1). */
static void
test_ref_bresenham(void)
{
    enum { W = 61, H = 53, CX = 27, CY = 24, R = 13 };
    uint8_t img[W * H] = {0};
    votecl_circles_params p;
    votecl_circle circles[4];
    votecl_circles_plan *plan;
    size_t found;
    long r = R, c = 0, d = 3 - 2 * R;

    while (r >= c) {
        const long dy[8] = {r, -r, r, -r, c, -c, c, -c}, dx[8] = {c, c, -c, -c, r, r, -r, -r};
        for (int k = 0; k < 8; k++)
            img[(CY + dy[k]) * W + CX + dx[k]] = 255;
        d += d < 0 ? 4 * c + 6 : 4 * (c - r--) + 10;
        c++;
    }
    votecl_circles_params_init(&p, VOTECL_CIRCLES_RADII);
    p.min_radius = 10;
    p.max_radius = 16;
    p.min_xdistance = p.min_ydistance = 3;
    plan = plan_new(tu_ref_context, &p, W, H);
    found =
        run(plan, tu_ref_context, &(votecl_image){img, W, H, W, 1, VOTECL_DTYPE_U8}, circles, 4);
    g_assert_cmpuint(found, >=, 1);
    g_assert_cmpfloat(circles[0].x, ==, CX);
    g_assert_cmpfloat(circles[0].y, ==, CY);
    g_assert_cmpfloat(circles[0].radius, ==, R);
    g_assert_cmpfloat(circles[0].score, ==, 1.0);
    g_assert_cmpuint(votecl_circles_plan_radius(plan, 3), ==, R);
    g_assert_cmpuint(votecl_circles_plan_radius(plan, 7), ==, 0);
    votecl_circles_plan_free(plan);
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/circles/disc", {test_ref_disc}},
    {TU_PATH, "/ref/circles/bresenham", {test_ref_bresenham}},
    {TU_PATH, "/ref/circles/empty", {test_ref_empty}},
    {TU_PATH, "/ref/circles/invalid-params", {test_ref_invalid_params}},
    {TU_PATH, "/ref/circles/invalid-run", {test_ref_invalid_run}},
    {TU_PATH, "/ref/limits/circles", {test_ref_limits}},
    {TU_PATH, "/ref/circles/capacity", {test_ref_capacity}},
    {TU_PATH, "/ref/circles/truth", {test_ref_truth}},
    {TU_DEVICE, "auto/circles/suite", {test_device_suite}},
    {TU_DEVICE, "auto/circles/odd", {test_device_odd}},
    {TU_DEVICE, "auto/circles/traffic", {test_device_traffic}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
