/* The generalized Hough transform.
 *
 * /ref/ght/...     the reference (the 'ref' backend: each stage's reference) against truth: a
 *                  template pasted into clutter with seeded rotation, scale and translation,
 *                  50 cases per method (Guil: within 1 degree, 2% scale and 2 pixels in at
 *                  least 95%; Ballard: within one rotation and scale step and dp + 1 pixels),
 *                  the truth suite's fixed subset (tests/truth-ght.h: 4 scenes of each
 *                  family with the defaults, floors on the planted pose ranked first, false
 *                  poses and empty scenes without an instance), issue 13's rotated scenes
 *                  and OpenCV's sample pair with the defaults (one pose, the planted one),
 *                  opencv_contrib's GeneralizedHough scene (three overlapping copies of
 *                  templ.png, the third turned or scaled: all three, both methods), the
 *                  overlap families under -m slow (recall and false-pose floors),
 *                  degenerate inputs
 *                  (a blank template, an image without edges, a template larger than the
 *                  image), argument checks naming the field;
 * /opencl/ght/...  the device stages (cl/ght.cl) against the reference, space for space and
 *                  exactly: Guil's O space with LB and with SSM pairing (also equal to each
 *                  other), S and D at several bin shifts, Ballard's 4-D accumulator;
 *                  detections of both methods (LB, SSM, AUTO; the edge kernels forced in and
 *                  out by VOTECL_FORCE_SHAPE) equal to the reference's pose for pose; the
 *                  device's edges, pairings and maxima: edges and offsets of real and
 *                  synthetic images for both methods, pairings with LB and SSM (per key as
 *                  multisets), Ballard's candidates, caller edges, stats and odd inputs
 *                  (empty, 1x1, no edges, a template larger than the image), all equal to
 *                  the reference's; default detections on truth scenes and on
 *                  opencv_contrib's scene equal to the reference's, confidences included;
 *                  without a device these pass as skipped;
 * /opencv/ght/...  OpenCV's sample pair (tools/images/pic1.png, templ.png) against
 *                  cv2.GeneralizedHoughBallard and GeneralizedHoughGuil with the sample's
 *                  parameters, when /usr/bin/python3 has cv2 (skipped otherwise). */
#include "votecl-private.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ght-private.h"
#include "image-io.h"
#include "truth-ght.h"

/* --- synthetic scenes --- */

typedef struct scene {
    uint8_t *data;
    uint32_t width, height;
} scene;

/* The shape in template coordinates (pixels from the centre, y down): an ellipse with a
 * bump and a bar, a hole; nothing in it is symmetric. */
#define SHAPE_K 1.75 /* the shape's size */

static int
shape_inside(double u, double v)
{
    u /= SHAPE_K;
    v /= SHAPE_K;
    int in = (u / 18) * (u / 18) + (v / 11) * (v / 11) < 1 ||
             (u - 10) * (u - 10) + (v + 9) * (v + 9) < 49 || (u > -22 && u < -8 && v > 4 && v < 12);
    return in && (u + 6) * (u + 6) + (v + 2) * (v + 2) >= 16;
}

/* Paints the shape at pose (X, Y, angle degrees, scale) with 4x4 supersampling. */
static void
paint_shape(scene *s, double X, double Y, double angle, double scale, int value)
{
    double c = cos(angle * G_PI / 180), sn = sin(angle * G_PI / 180);

    for (uint32_t py = 0; py < s->height; py++)
        for (uint32_t px = 0; px < s->width; px++) {
            int cover = 0;
            for (int k = 0; k < 16; k++) {
                double dx = px + (k % 4 + 0.5) / 4 - 0.5 - X, dy = py + (k / 4 + 0.5) / 4 - 0.5 - Y;
                cover += shape_inside((c * dx + sn * dy) / scale, (-sn * dx + c * dy) / scale);
            }
            if (cover > 0) {
                uint8_t *p = &s->data[(size_t)py * s->width + px];
                *p = (uint8_t)((*p * (16 - cover) + value * cover) / 16);
            }
        }
}

static scene
scene_new(uint32_t width, uint32_t height, int background)
{
    scene s = {g_malloc((size_t)width * height), width, height};
    memset(s.data, background, (size_t)width * height);
    return s;
}

static void
add_noise(scene *s, tu_rng *rng, int amplitude)
{
    for (size_t i = 0; i < (size_t)s->width * s->height; i++) {
        int v = s->data[i] + (int)tu_rng_below(rng, 2 * amplitude + 1) - amplitude;
        s->data[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

/* Discs of random grey away from (X, Y). */
static void
add_clutter(scene *s, tu_rng *rng, double X, double Y, double keep_out)
{
    for (int n = 0; n < 12; n++) {
        double cx = tu_rng_below(rng, s->width), cy = tu_rng_below(rng, s->height);
        double r = 4 + tu_rng_below(rng, 10);
        int value = 20 + (int)tu_rng_below(rng, 220);
        if (hypot(cx - X, cy - Y) < keep_out + r + 4)
            continue;
        for (uint32_t y = 0; y < s->height; y++)
            for (uint32_t x = 0; x < s->width; x++) {
                if (hypot(x - cx, y - cy) < r)
                    s->data[(size_t)y * s->width + x] = (uint8_t)value;
            }
    }
}

static votecl_image
scene_view(const scene *s)
{
    votecl_image v = {s->data, s->width, s->height, s->width, 1, VOTECL_DTYPE_U8};
    return v;
}

static scene
template_scene(void)
{
    scene t = scene_new(96, 80, 60);
    paint_shape(&t, 47.5, 39.5, 0, 1, 200);
    return t;
}

typedef struct pose_truth {
    double x, y, angle, scale;
} pose_truth;

static pose_truth
random_scene(tu_rng *rng, scene *s, double smin, double smax)
{
    pose_truth t;

    *s = scene_new(200, 200, 60);
    t.angle = tu_rng_float(rng, 0, 360);
    t.scale = tu_rng_float(rng, (float)smin, (float)smax);
    t.x = tu_rng_float(rng, 70, 130);
    t.y = tu_rng_float(rng, 70, 130);
    add_clutter(s, rng, t.x, t.y, 26 * SHAPE_K * t.scale);
    paint_shape(s, t.x, t.y, t.angle, t.scale, 200);
    add_noise(s, rng, 4);
    return t;
}

static double
angle_error(double a, double b)
{
    double d = fmod(fabs(a - b), 360.0);
    return d > 180 ? 360 - d : d;
}

/* --- truth tests --- */

static int
run_cases(const votecl_ght_params *params, int cases, uint64_t seed, double smin, double smax,
          double tol_angle, double tol_scale, double tol_pos)
{
    scene t = template_scene();
    votecl_image tv = scene_view(&t);
    votecl_ght_model *model = NULL;
    tu_rng rng;
    int good = 0;

    g_assert_cmpint(votecl_ght_model_new(tu_ref_context, params, &tv, &model), ==, VOTECL_OK);
    tu_rng_init(&rng, seed);
    for (int c = 0; c < cases; c++) {
        scene s;
        pose_truth truth = random_scene(&rng, &s, smin, smax);
        votecl_image sv = scene_view(&s);
        votecl_ght_pose poses[8];
        size_t found = 0;
        g_assert_cmpint(votecl_ght_detect(model, &sv, poses, 8, &found), ==, VOTECL_OK);
        if (found > 0 && angle_error(poses[0].angle, truth.angle) <= tol_angle &&
            fabs(poses[0].scale / truth.scale - 1) <= tol_scale &&
            hypot(poses[0].x - truth.x, poses[0].y - truth.y) <= tol_pos)
            good++;
        else if (g_test_verbose())
            g_printerr("case %d: truth (%.2f, %.2f, %.2f deg, %.3f) found %zu: (%.2f, %.2f, "
                       "%.2f deg, %.3f, %u votes %.3f)\n",
                       c, truth.x, truth.y, truth.angle, truth.scale, found, found ? poses[0].x : 0,
                       found ? poses[0].y : 0, found ? poses[0].angle : 0,
                       found ? poses[0].scale : 0, found ? poses[0].votes : 0,
                       found ? poses[0].confidence : 0);
        g_free(s.data);
    }
    votecl_ght_model_free(model);
    g_free(t.data);
    return good;
}

static void
guil_test_params(votecl_ght_params *p)
{
    votecl_ght_params_init(p, VOTECL_GHT_GUIL);
    p->min_scale = 0.7;
    p->max_scale = 1.4;
    p->scale_step = 0.01;
    p->dp = 1;
    p->max_rotations = 12;
}

static void
test_ref_guil_synthetic(void)
{
    static const uint64_t seeds[] = {0x6a11, 0x1234, 0x777};
    votecl_ght_params p;
    int good = 0;

    guil_test_params(&p);
    for (size_t k = 0; k < G_N_ELEMENTS(seeds); k++)
        good += run_cases(&p, 50, seeds[k], 0.8, 1.25, 1.0, 0.02, 2.0);
    g_test_message("Guil: %d of 150 within 1 degree, 2%% and 2 px", good);
    /* The issue's target: 95% (144 of 150 since poses are fitted to their matched
     * pairings; most misses are clutter poses that outvote the shape). */
    g_assert_cmpint(good, >=, 143);
}

static void
test_ref_ballard_synthetic(void)
{
    votecl_ght_params p;
    int good;

    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    p.levels = 72;
    p.min_angle = 0;
    p.max_angle = 360;
    p.angle_step = 5;
    p.min_scale = 0.8;
    p.max_scale = 1.25;
    p.scale_step = 0.05;
    p.dp = 2;
    good = run_cases(&p, 50, 0xba11, 0.8, 1.25, 5.0, 0.05, 3.0);
    g_test_message("Ballard: %d of 50 within one step and dp + 1 px", good);
    g_assert_cmpint(good, >=, 48);
}

/* Issue 23 item 7: an unrotated pose reports 0 degrees, not 360: the template itself copied
 * into a larger image at whole-pixel offsets fits an angle a hair either side of 0, and one a
 * hair below wrapped to 359.99999... printed as 360 (in JSON's %.10g, the CLI's %.2f). Both
 * methods, on the reference and the device. */
static void
check_unrotated(votecl_context *ctx, votecl_ght_method method)
{
    static const uint32_t at[][2] = {{40, 50}, {61, 47}, {33, 70}, {70, 71}, {52, 39}};
    scene t = template_scene();
    votecl_image tv = scene_view(&t);
    votecl_ght_params p;
    votecl_ght_model *model = NULL;

    if (method == VOTECL_GHT_GUIL)
        guil_test_params(&p);
    else
        votecl_ght_params_init(&p, method);
    g_assert_cmpint(votecl_ght_model_new(ctx, &p, &tv, &model), ==, VOTECL_OK);
    for (size_t k = 0; k < G_N_ELEMENTS(at); k++) {
        scene s = scene_new(200, 200, 60);
        votecl_image sv = scene_view(&s);
        votecl_ght_pose poses[4];
        size_t found = 0;
        char text[32];

        for (uint32_t y = 0; y < t.height; y++)
            memcpy(&s.data[(size_t)(at[k][1] + y) * s.width + at[k][0]],
                   &t.data[(size_t)y * t.width], t.width);
        g_assert_cmpint(votecl_ght_detect(model, &sv, poses, 4, &found), ==, VOTECL_OK);
        g_assert_cmpuint(found, >=, 1);
        g_test_message("%s at (%u, %u): (%.3f, %.3f) angle %.17g",
                       method == VOTECL_GHT_GUIL ? "Guil" : "Ballard", at[k][0], at[k][1],
                       poses[0].x, poses[0].y, poses[0].angle);
        g_assert_cmpfloat(poses[0].angle, >=, 0.0);
        g_assert_cmpfloat(poses[0].angle, <, 360.0);
        snprintf(text, sizeof text, "%.2f", poses[0].angle);
        g_assert_cmpstr(text, ==, "0.00");
        /* and the fit is exact: terms rounded to 1/256 put it 0.02 px off, -0.018 degrees */
        g_assert_cmpfloat(fabs(poses[0].x - at[k][0] - 47.5), <, 1e-6);
        g_assert_cmpfloat(fabs(poses[0].y - at[k][1] - 39.5), <, 1e-6);
        g_free(s.data);
    }
    votecl_ght_model_free(model);
    g_free(t.data);
}

static void
test_ref_unrotated(void)
{
    check_unrotated(tu_ref_context, VOTECL_GHT_GUIL);
    check_unrotated(tu_ref_context, VOTECL_GHT_BALLARD);
}

static votecl_context *device(void);

static void
test_opencl_unrotated(void)
{
    if (device() == NULL)
        return;
    check_unrotated(device(), VOTECL_GHT_GUIL);
    check_unrotated(device(), VOTECL_GHT_BALLARD);
}

static void
test_ref_degenerate(void)
{
    scene blank = scene_new(40, 30, 90), t = template_scene(), small = scene_new(20, 20, 60);
    votecl_image bv = scene_view(&blank), tv = scene_view(&t), sv = scene_view(&small);
    votecl_ght_params p;
    votecl_ght_model *model = NULL;
    votecl_ght_pose poses[4];
    size_t found = 99;

    for (int m = 0; m < 2; m++) {
        votecl_ght_params_init(&p, m ? VOTECL_GHT_BALLARD : VOTECL_GHT_GUIL);
        g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &bv, &model), ==,
                        VOTECL_INVALID_ARGUMENT);
        g_assert_null(model);
        g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "template"));
        g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &tv, &model), ==, VOTECL_OK);
        found = 99;
        g_assert_cmpint(votecl_ght_detect(model, &bv, poses, 4, &found), ==, VOTECL_OK);
        g_assert_cmpuint(found, ==, 0);
        found = 99;
        g_assert_cmpint(votecl_ght_detect(model, &sv, poses, 4, &found), ==, VOTECL_OK);
        g_assert_cmpuint(found, ==, 0);
        found = 99;
        g_assert_cmpint(votecl_ght_detect_edges(model, NULL, 0, 1, 1, NULL, 0, &found), ==,
                        VOTECL_OK);
        g_assert_cmpuint(found, ==, 0);
        votecl_ght_model_free(model);
        model = NULL;
    }
    g_free(blank.data);
    g_free(t.data);
    g_free(small.data);
}

static void
test_ref_bad_args(void)
{
    scene t = template_scene();
    votecl_image tv = scene_view(&t);
    votecl_ght_params p;
    votecl_ght_model *model = NULL;
    votecl_ght_edge one = {5, 5, 1, 0};

    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    p.levels = 2;
    g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &tv, &model), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "levels"));
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    p.scale_step = 0;
    g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &tv, &model), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "scale_step"));
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    g_assert_cmpint(votecl_ght_model_new_edges(tu_ref_context, &p, &one, 1, 10, 10, 5, 5, &model),
                    ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "template"));
    one.x = 10;
    g_assert_cmpint(votecl_ght_model_new_edges(tu_ref_context, &p, &one, 1, 10, 10, 5, 5, &model),
                    ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "edges"));
    g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, NULL, &model), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_null(model);
    g_free(t.data);
}

/* --- OpenCV's sample pair --- */

static char *
image_path(const char *name)
{
    const char *src = g_getenv("VOTECL_TEST_SRCDIR");
    return g_build_filename(src != NULL ? src : "tests", "..", "tools", "images", name, NULL);
}

/* Runs the cv2 oracle; NULL (and a skip) when cv2 is not importable. */
static char *
opencv_poses(const char *method)
{
    char *scene_path = image_path("pic1.png"), *templ_path = image_path("templ.png");
    const char *src = g_getenv("VOTECL_TEST_SRCDIR");
    char *script = g_build_filename(src != NULL ? src : "tests", "ght-opencv.py", NULL);
    char *argv[] = {"/usr/bin/python3", script, (char *)method, scene_path, templ_path, NULL};
    char *out = NULL;
    int status = 0;

    if (!g_file_test(argv[0], G_FILE_TEST_IS_EXECUTABLE) ||
        !g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status,
                      NULL) ||
        !g_spawn_check_wait_status(status, NULL)) {
        g_free(out);
        out = NULL;
        g_test_skip("python3-opencv (cv2) is not available");
    }
    g_free(scene_path);
    g_free(templ_path);
    g_free(script);
    return out;
}

static int
load_gray(const char *name, tool_image *im)
{
    char *path = image_path(name);
    char err[256];
    tool_image raw;
    int rc = tool_image_read(path, &raw, err, sizeof err);

    if (rc == 0) {
        rc = tool_image_to_gray(&raw, im, err, sizeof err);
        tool_image_free(&raw);
    }
    g_free(path);
    return rc;
}

/* Ours against cv2's poses (x y angle scale per line, strongest first) within the
 * tolerances: with all_of_theirs, every cv2 pose has one of ours (Ballard: cv2's two
 * detections are the sample's true instances); otherwise our strongest pose is one of cv2's
 * (Guil: cv2 ranks two poses on the dotted rectangle above the head, the one true instance,
 * which it finds fourth; its orientation correlation is the paper's product, which the
 * segments of the rectangle outvote. Our histogram intersection ranks the head first and
 * drops the rectangle's poses). */
static void
compare_opencv(const char *method, const votecl_ght_params *p, int all_of_theirs)
{
    char *text = opencv_poses(method), **lines;
    tool_image scene_im, templ_im;
    votecl_ght_model *model = NULL;
    votecl_ght_pose poses[64];
    size_t found = 0;
    int theirs = 0, matched = 0, best_matched = 0;

    if (text == NULL)
        return;
    g_assert_cmpint(load_gray("pic1.png", &scene_im), ==, 0);
    g_assert_cmpint(load_gray("templ.png", &templ_im), ==, 0);
    votecl_image sv = tool_image_view(&scene_im), tv = tool_image_view(&templ_im);
    g_assert_cmpint(votecl_ght_model_new(tu_ref_context, p, &tv, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_ght_detect(model, &sv, poses, 64, &found), ==, VOTECL_OK);
    lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l != NULL; l++) {
        double x, y, a, s;
        int hit = 0;
        if ((all_of_theirs && theirs == 2) || sscanf(*l, "%lf %lf %lf %lf", &x, &y, &a, &s) != 4)
            continue;
        theirs++;
        for (size_t i = 0; i < found && i < 64; i++) {
            int near = hypot(poses[i].x - x, poses[i].y - y) <= 2 + p->dp &&
                       angle_error(poses[i].angle, a) <= 1 + p->angle_step &&
                       fabs(poses[i].scale - s) <= p->scale_step + 1e-9;
            hit |= near;
            best_matched |= near && i == 0;
        }
        matched += hit;
        if (!hit)
            g_test_message("%s: cv2 pose (%g, %g, %g, %g) not found", method, x, y, a, s);
    }
    g_test_message("%s: %d of cv2's %d poses matched (%zu of ours); our strongest %s cv2's", method,
                   matched, theirs, found, best_matched ? "is one of" : "is not among");
    g_assert_cmpint(theirs, >, 0);
    if (all_of_theirs)
        g_assert_cmpint(matched, ==, theirs);
    else
        g_assert_true(best_matched);
    g_strfreev(lines);
    g_free(text);
    votecl_ght_model_free(model);
    tool_image_free(&scene_im);
    tool_image_free(&templ_im);
}

static void
test_opencv_ballard(void)
{
    votecl_ght_params p;

    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    p.min_dist = 10;
    p.dp = 2;
    p.votes_threshold = 40;
    p.votes_ratio = 0;
    p.max_detections = 64;
    p.min_confidence = 0; /* cv2 has no confidence floor: its candidates against ours */
    compare_opencv("ballard", &p, 1);
}

static void
test_opencv_guil(void)
{
    votecl_ght_params p;

    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    p.min_dist = 100;
    p.dp = 2;
    p.max_detections = 64;
    compare_opencv("guil", &p, 0);
}

/* --- the device stages against the reference, space for space --- */

static votecl_context *
device(void)
{
    return tu_device_shared();
}

/* Canny edges of a scene, sorted by bin. */
static void
scene_edges(const scene *s, const votecl__ght_desc *d, votecl__ght_edges *edges)
{
    votecl__ght_point *pts = g_new(votecl__ght_point, (size_t)s->width * s->height);
    size_t n = votecl__ght_ref_canny(d, s->data, s->width, s->height, d->p.canny_low,
                                     d->p.canny_high, pts);

    g_assert_cmpuint(n, !=, (size_t)-1);
    g_assert_cmpint(votecl__ght_edges_sort(pts, n, d->levels, edges), ==, VOTECL_OK);
    g_free(pts);
}

static void
assert_equal_u32(const uint32_t *a, const uint32_t *b, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            g_error("%s: cell %zu is %u on the device, %u in the reference", what, i, a[i], b[i]);
}

static uint64_t
sum_u32(const uint32_t *a, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* The device's D maxima and sampled matches of n candidates at once equal the reference's
 * (maxima in rank order, matches as sorted lists), every maximum selected. Returns how many
 * matches there were. */
static size_t
check_pose_stages(const votecl__ght_desc *d, votecl__ght_device *dev, const votecl__ght_pairs *tp,
                  const votecl__ght_pairs *ip, const votecl__ght_cand *c, size_t n, uint32_t gw,
                  uint32_t gh)
{
    size_t cells = (size_t)gw * gh, nsel = 0, total;
    votecl__ght_dpeaks *rpk = g_new0(votecl__ght_dpeaks, n), *dpk = g_new0(votecl__ght_dpeaks, n);
    votecl__ght_sel *sel = g_new(votecl__ght_sel, n * VOTECL__GHT_MAX_DPEAKS);
    votecl__ght_matches rm = {0}, dm = {0}, all = {0};
    uint32_t *space = g_new(uint32_t, n * cells);

    g_assert_cmpint(votecl__ght_device_dpeaks(dev, n, c, 2, gw, gh, dpk), ==, VOTECL_OK);
    for (size_t k = 0; k < n; k++) {
        votecl__ght_ref_dspace(d, tp, ip, c[k].b, 2, c[k].angle, c[k].scale, gw, gh, space);
        g_assert_cmpint(votecl__ght_space_peaks(d, space, gw, gh, &rpk[k]), ==, VOTECL_OK);
        g_assert_cmpuint(dpk[k].n, ==, rpk[k].n);
        g_assert_cmpuint(rpk[k].n, >, 0);
        g_assert_cmpmem(dpk[k].v, dpk[k].n * sizeof *dpk[k].v, rpk[k].v,
                        rpk[k].n * sizeof *rpk[k].v);
        for (size_t j = 0; j < rpk[k].n; j++)
            sel[nsel++] = (votecl__ght_sel){(uint32_t)k, rpk[k].v[j].cell};
    }
    votecl__ght_label_maps(sel, nsel, n, gw, gh, votecl__ght_match_radius(d), space);
    for (size_t k = 0; k < n; k++) {
        g_assert_cmpint(votecl__ght_ref_matches(d, tp, ip, c[k].b, 2, c[k].angle, c[k].scale, gw,
                                                gh, space + k * cells, votecl__ght_match_span(d),
                                                &rm),
                        ==, VOTECL_OK);
        g_assert_cmpint(votecl__ght_ref_matches(d, tp, ip, c[k].b, 2, c[k].angle, c[k].scale, gw,
                                                gh, space + k * cells, INFINITY, &all),
                        ==, VOTECL_OK);
    }
    /* the vector window drops no match: the same as every pairing examined */
    votecl__ght_matches_sort(&rm);
    votecl__ght_matches_sort(&all);
    g_assert_cmpuint(all.n, ==, rm.n);
    g_assert_cmpmem(all.v, all.n * sizeof *all.v, rm.v, rm.n * sizeof *rm.v);
    g_assert_cmpint(votecl__ght_matches_sample(&rm, nsel), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_device_matches(dev, n, c, 2, gw, gh, sel, nsel, &dm), ==,
                    VOTECL_OK);
    votecl__ght_matches_sort(&rm);
    votecl__ght_matches_sort(&dm);
    g_assert_cmpuint(dm.n, ==, rm.n);
    g_assert_cmpmem(dm.v, dm.n * sizeof *dm.v, rm.v, rm.n * sizeof *rm.v);
    total = rm.n;
    for (size_t k = 0; k < n; k++) {
        free(rpk[k].v);
        free(dpk[k].v);
    }
    g_free(rpk);
    g_free(dpk);
    g_free(sel);
    g_free(space);
    votecl__ght_matches_clear(&rm);
    votecl__ght_matches_clear(&dm);
    votecl__ght_matches_clear(&all);
    return total;
}

/* O of the template and a scene (an instance at a scale in [smin, smax]) with LB and SSM,
 * S and D at a few shifts, D's maxima and the matches of candidates at scale cscale. */
static void
check_guil_spaces(const votecl_ght_params *params, uint64_t seed, double smin, double smax,
                  double cscale)
{
    scene t = template_scene(), s;
    tu_rng rng;
    votecl__ght_desc d;
    votecl__ght_edges te, ie;
    votecl__ght_pairs tp, ip;
    votecl__ght_device *dev = NULL;
    size_t keys;
    uint32_t *ref, *lb, *ssm, gw, gh;
    uint64_t *sref, *sdev;
    size_t matched = 0, nc = 0;
    votecl__ght_cand cand[8];
    uint32_t shifts[8];

    tu_rng_init(&rng, seed);
    random_scene(&rng, &s, smin, smax);
    votecl__ght_desc_init(&d, params);
    d.cx = (t.width - 1) / 2.0;
    d.cy = (t.height - 1) / 2.0;
    keys = (size_t)d.levels * d.levels;
    scene_edges(&t, &d, &te);
    scene_edges(&s, &d, &ie);
    g_assert_cmpint(votecl__ght_ref_pairs(&d, &te, &tp), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_ref_pairs(&d, &ie, &ip), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_device_new(device(), &d, &dev), ==, VOTECL_OK);
    ref = g_new(uint32_t, keys);
    lb = g_new(uint32_t, keys);
    ssm = g_new(uint32_t, keys);
    for (int which = 0; which < 2; which++) {
        const votecl__ght_edges *e = which ? &ie : &te;
        votecl__ght_ref_ospace(&d, which ? &ip : &tp, ref);
        g_assert_cmpint(votecl__ght_device_ospace(dev, e, VOTECL_GHT_PAIRING_LB, lb), ==,
                        VOTECL_OK);
        g_assert_cmpint(votecl__ght_device_ospace(dev, e, VOTECL_GHT_PAIRING_SSM, ssm), ==,
                        VOTECL_OK);
        assert_equal_u32(lb, ssm, keys, "O, LB against SSM");
        assert_equal_u32(lb, ref, keys, "O");
        g_assert_cmpuint(sum_u32(ref, keys), ==, which ? ip.n : tp.n);
    }
    g_test_message("O: %zu template and %zu image pairings, equal", tp.n, ip.n);
    sref = g_new(uint64_t, d.scales);
    votecl__ght_grid(&d, s.width, s.height, &gw, &gh);
    g_free(ref);
    g_free(lb);
    ref = g_new(uint32_t, (size_t)gw * gh);
    lb = g_new(uint32_t, (size_t)gw * gh);
    g_assert_cmpint(votecl__ght_device_bind(dev, &tp, &ip), ==, VOTECL_OK);
    for (uint32_t b = 0; b < d.levels; b += d.levels / 5 + 1) {
        cand[nc] = (votecl__ght_cand){b, b * 360.0 / d.levels + 0.3, cscale};
        shifts[nc++] = b;
        votecl__ght_ref_dspace(&d, &tp, &ip, b, 2, cand[nc - 1].angle, cscale, gw, gh, ref);
        g_assert_cmpint(
            votecl__ght_device_dspace(dev, b, 2, cand[nc - 1].angle, cscale, gw, gh, lb), ==,
            VOTECL_OK);
        assert_equal_u32(lb, ref, (size_t)gw * gh, "D");
    }
    sdev = g_new(uint64_t, nc * d.scales);
    g_assert_cmpint(votecl__ght_device_sspace(dev, nc, shifts, sdev), ==, VOTECL_OK);
    for (size_t c = 0; c < nc; c++) {
        votecl__ght_ref_sspace(&d, &tp, &ip, shifts[c], sref);
        for (uint32_t k = 0; k < d.scales; k++)
            g_assert_cmpuint(sdev[c * d.scales + k], ==, sref[k]);
    }
    matched = check_pose_stages(&d, dev, &tp, &ip, cand, nc, gw, gh);
    g_test_message("D maxima and %zu matches, equal", matched);
    g_assert_cmpuint(matched, >, 0);
    votecl__ght_device_free(dev);
    votecl__ght_pairs_clear(&tp);
    votecl__ght_pairs_clear(&ip);
    votecl__ght_edges_clear(&te);
    votecl__ght_edges_clear(&ie);
    g_free(sref);
    g_free(sdev);
    g_free(ref);
    g_free(lb);
    g_free(ssm);
    g_free(t.data);
    g_free(s.data);
}

static void
test_opencl_guil_spaces(void)
{
    votecl_ght_params p;

    if (device() == NULL)
        return;
    guil_test_params(&p);
    check_guil_spaces(&p, 0x0de1, 0.8, 1.25, 1.07);
    p.levels = 180; /* a coarser circle, a wider tolerance, other replication factors */
    p.angle_epsilon = 2;
    p.replication = 3;
    p.global_replication = 1;
    p.dp = 3;
    check_guil_spaces(&p, 0x0de2, 0.8, 1.25, 1.07);
}

/* The match stages' vector window (votecl__ght_match_span) at the default search's least
 * and largest scales, instances there: check_pose_stages compares the matches with those of
 * every pairing examined, and the device's with the reference's. */
static void
test_opencl_guil_window(void)
{
    static const struct {
        uint64_t seed;
        double smin, smax, cscale;
        uint32_t dp; /* the cell size, and with it the match radius */
    } cases[] = {
        {0x0de3, 0.5, 0.52, 0.5, 1}, {0x0de4, 1.9, 2.0, 2.0, 2}, {0x0de5, 1.9, 2.0, 1.95, 3}};
    votecl_ght_params p;

    for (size_t i = 0; device() != NULL && i < G_N_ELEMENTS(cases); i++) {
        guil_test_params(&p);
        p.dp = cases[i].dp;
        check_guil_spaces(&p, cases[i].seed, cases[i].smin, cases[i].smax, cases[i].cscale);
    }
}

static void
check_ballard_space(const votecl_ght_params *params, uint64_t seed)
{
    scene t = template_scene(), s;
    tu_rng rng;
    votecl__ght_desc d;
    votecl__ght_edges te, ie;
    votecl__ght_rtable rt;
    votecl__ght_device *dev = NULL;
    size_t cells;
    uint32_t *ref, *dv;

    tu_rng_init(&rng, seed);
    random_scene(&rng, &s, 0.8, 1.25);
    votecl__ght_desc_init(&d, params);
    d.cx = (t.width - 1) / 2.0;
    d.cy = (t.height - 1) / 2.0;
    d.p.canny_low = d.p.canny_high; /* Ballard's single threshold */
    scene_edges(&t, &d, &te);
    scene_edges(&s, &d, &ie);
    g_assert_cmpint(votecl__ght_rtable_build(&te, d.levels, d.cx, d.cy, &rt), ==, VOTECL_OK);
    cells = votecl__ght_ballard_cells(&d, s.width, s.height);
    ref = g_new(uint32_t, cells);
    dv = g_new(uint32_t, cells);
    votecl__ght_ref_ballard_vote(&d, &rt, &ie, s.width, s.height, ref);
    g_assert_cmpint(votecl__ght_device_new(device(), &d, &dev), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_device_ballard(dev, &rt, &ie, s.width, s.height, dv), ==,
                    VOTECL_OK);
    assert_equal_u32(dv, ref, cells, "Ballard");
    g_test_message("Ballard: %zu cells, %llu votes, equal", cells,
                   (unsigned long long)sum_u32(ref, cells));
    votecl__ght_device_free(dev);
    votecl__ght_rtable_clear(&rt);
    votecl__ght_edges_clear(&te);
    votecl__ght_edges_clear(&ie);
    g_free(ref);
    g_free(dv);
    g_free(t.data);
    g_free(s.data);
}

static void
test_opencl_ballard_space(void)
{
    votecl_ght_params p;

    if (device() == NULL)
        return;
    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    p.levels = 72;
    p.min_angle = 0;
    p.max_angle = 360;
    p.angle_step = 5;
    p.min_scale = 0.8;
    p.max_scale = 1.25;
    p.scale_step = 0.05;
    check_ballard_space(&p, 0xba12);
}

/* Field by field (the padding of the structs is not theirs to compare). */
static void
assert_poses_equal(const votecl_ght_pose *a, const votecl_ght_pose *b, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        g_assert_cmpfloat(a[k].x, ==, b[k].x);
        g_assert_cmpfloat(a[k].y, ==, b[k].y);
        g_assert_cmpfloat(a[k].angle, ==, b[k].angle);
        g_assert_cmpfloat(a[k].scale, ==, b[k].scale);
        g_assert_cmpuint(a[k].votes, ==, b[k].votes);
        g_assert_cmpuint(a[k].angle_votes, ==, b[k].angle_votes);
        g_assert_cmpuint(a[k].scale_votes, ==, b[k].scale_votes);
        g_assert_cmpfloat(a[k].confidence, ==, b[k].confidence);
    }
}

/* Detections on the device ctx equal the reference's pose for pose (the spaces are equal). */
static void
check_detect_equal_on(votecl_context *ctx, const votecl_ght_params *params, uint64_t seed,
                      int cases)
{
    scene t = template_scene();
    votecl_image tv = scene_view(&t);
    votecl_ght_model *rm = NULL, *dm = NULL;
    votecl_ght_stats stats;
    votecl_ght_params all = *params;
    tu_rng rng;

    all.min_confidence = 0; /* every candidate, each with its confidence */
    params = &all;
    g_assert_cmpint(votecl_ght_model_new(tu_ref_context, params, &tv, &rm), ==, VOTECL_OK);
    g_assert_cmpint(votecl_ght_model_new(ctx, params, &tv, &dm), ==, VOTECL_OK);
    tu_rng_init(&rng, seed);
    for (int c = 0; c < cases; c++) {
        scene s;
        votecl_image sv;
        votecl_ght_pose rp[16], dp[16];
        size_t rn = 0, dn = 0;
        random_scene(&rng, &s, 0.8, 1.25);
        sv = scene_view(&s);
        g_assert_cmpint(votecl_ght_detect(rm, &sv, rp, 16, &rn), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_detect(dm, &sv, dp, 16, &dn), ==, VOTECL_OK);
        g_assert_cmpuint(dn, ==, rn);
        g_assert_cmpuint(rn, >, 0);
        rn = rn < 16 ? rn : 16;
        assert_poses_equal(dp, rp, rn);
        g_free(s.data);
    }
    g_assert_cmpint(votecl_ght_model_last_stats(dm, &stats), ==, VOTECL_OK);
    if (params->method == VOTECL_GHT_GUIL && params->pairing != VOTECL_GHT_PAIRING_AUTO)
        g_assert_cmpint(stats.pairing, ==, params->pairing);
    votecl_ght_model_free(rm);
    votecl_ght_model_free(dm);
    g_free(t.data);
}

static void
check_detect_equal(const votecl_ght_params *params, uint64_t seed, int cases)
{
    check_detect_equal_on(device(), params, seed, cases);
}

/* The edge stage's kernels in the detection path whatever the device (VOTECL_FORCE_SHAPE
 * gpu; a CPU device otherwise takes the host's edges) and the host's (cpu). */
static void
check_detect_equal_shaped(const votecl_ght_params *params, uint64_t seed)
{
    static const char *const shapes[] = {"gpu", "cpu"};

    for (int v = 0; v < 2; v++) {
        char *saved = tu_env_set("VOTECL_FORCE_SHAPE", shapes[v]);
        votecl_context *ctx = tu_device_context_new(NULL);
        tu_env_restore("VOTECL_FORCE_SHAPE", saved);
        if (ctx == NULL)
            return;
        check_detect_equal_on(ctx, params, seed, 1);
        votecl_context_free(ctx);
    }
}

/* A device without double precision (VOTECL_DISABLE_FEATURES=fp64, the ocl-min profile): the
 * GHT's kernels, all of which compute in double, are refused with VOTECL_UNSUPPORTED naming
 * fp64 rather than failing to build. */
static void
test_opencl_no_fp64(void)
{
    scene t = template_scene();
    votecl_image tv = scene_view(&t);
    votecl_ght_params p;
    votecl_ght_model *model = NULL;
    votecl_ght_pose poses[4];
    size_t found = 0;
    votecl_status status;
    char *saved = tu_env_set("VOTECL_DISABLE_FEATURES", "fp64");
    char *saved_shape = tu_env_set("VOTECL_FORCE_SHAPE", "gpu");
    votecl_context *ctx = tu_device_context_new(NULL);

    tu_env_restore("VOTECL_FORCE_SHAPE", saved_shape);
    tu_env_restore("VOTECL_DISABLE_FEATURES", saved);
    if (ctx == NULL)
        goto out;
    g_assert_false(ctx->shape.features & VOTECL__FEATURE_FP64);
    guil_test_params(&p);
    status = votecl_ght_model_new(ctx, &p, &tv, &model);
    if (status == VOTECL_OK)
        status = votecl_ght_detect(model, &tv, poses, 4, &found);
    g_assert_cmpint(status, ==, VOTECL_UNSUPPORTED);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "fp64"));
    votecl_ght_model_free(model);
    votecl_context_free(ctx);
out:
    g_free(t.data);
}

/* Work-group limits (VOTECL_MAX_WORK_GROUP_SIZE): below a 32x8 edge tile the GPU shape takes
 * the host's edges and still equals the reference; below the stages' groups of 64 the GHT is
 * refused, naming the 64. */
static void
test_opencl_small_groups(void)
{
    static const char *const limits[] = {"128", "32"};
    votecl_ght_params p;

    guil_test_params(&p);
    p.scale_step = 0.05;
    p.max_rotations = 4;
    for (int i = 0; i < 2; i++) {
        char *saved = tu_env_set("VOTECL_MAX_WORK_GROUP_SIZE", limits[i]);
        char *saved_shape = tu_env_set("VOTECL_FORCE_SHAPE", "gpu");
        votecl_context *ctx = tu_device_context_new(NULL);
        scene t = template_scene();
        votecl_image tv = scene_view(&t);
        votecl_ght_model *model = NULL;

        tu_env_restore("VOTECL_FORCE_SHAPE", saved_shape);
        tu_env_restore("VOTECL_MAX_WORK_GROUP_SIZE", saved);
        if (ctx == NULL) {
            g_free(t.data);
            return;
        }
        g_assert_true(votecl__ght_host_edges(ctx));
        if (i == 0) {
            check_detect_equal_on(ctx, &p, 0x0e07, 1);
        } else {
            g_assert_cmpint(votecl_ght_model_new(ctx, &p, &tv, &model), ==, VOTECL_UNSUPPORTED);
            g_assert_null(model);
            g_assert_nonnull(strstr(votecl_context_get_error(ctx), "64"));
        }
        votecl_context_free(ctx);
        g_free(t.data);
    }
}

static void
test_opencl_detect_equal(void)
{
    votecl_ght_params p;

    if (device() == NULL)
        return;
    guil_test_params(&p);
    p.scale_step = 0.05;
    p.max_rotations = 4;
    for (int m = VOTECL_GHT_PAIRING_AUTO; m <= VOTECL_GHT_PAIRING_SSM; m++) {
        p.pairing = (votecl_ght_pairing)m;
        check_detect_equal(&p, 0x0e01 + m, 2);
    }
    check_detect_equal_shaped(&p, 0x0e04);
    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    p.levels = 72;
    p.min_angle = 0;
    p.max_angle = 360;
    p.angle_step = 10;
    p.min_scale = 0.8;
    p.max_scale = 1.25;
    p.scale_step = 0.05;
    check_detect_equal(&p, 0x0e05, 2);
    check_detect_equal_shaped(&p, 0x0e06);
}

/* --- the device's edges, pairings and maxima against the reference, list for list --- */

/* A packed gray image. */
typedef struct gray {
    uint8_t *data;
    uint32_t width, height;
    const char *name;
} gray;

static gray
gray_of_scene(const scene *s, const char *name)
{
    gray g = {g_memdup2(s->data, (size_t)s->width * s->height), s->width, s->height, name};
    return g;
}

static gray
gray_of_file(const char *file)
{
    tool_image im;
    gray g = {NULL, 0, 0, file};

    g_assert_cmpint(load_gray(file, &im), ==, 0);
    g.width = (uint32_t)im.width;
    g.height = (uint32_t)im.height;
    g.data = g_malloc((size_t)g.width * g.height);
    for (uint32_t y = 0; y < g.height; y++)
        memcpy(g.data + (size_t)y * g.width, im.data + y * im.stride, g.width);
    tool_image_free(&im);
    return g;
}

/* Weak edges (a band of grey 20 on 0: |gx| + |gy| about 80) winding through many
 * hysteresis tiles, strong (grey 60) only at the far end of the band: hysteresis has to
 * carry the strong state across the whole image. */
static gray
gray_serpent(void)
{
    gray g = {g_malloc0(200 * 150), 200, 150, "serpent"};

    for (uint32_t row = 0; row < 7; row++) {
        uint32_t y0 = 10 + 20 * row;
        for (uint32_t y = y0; y < y0 + 4 && y < 150; y++)
            for (uint32_t x = 6; x < 194; x++)
                g.data[y * 200 + x] = 20;
        for (uint32_t y = y0; y < y0 + 24 && y < 150; y++)
            for (uint32_t x = row % 2 ? 6 : 190; x < (row % 2 ? 10u : 194u); x++)
                g.data[y * 200 + x] = 20;
    }
    for (uint32_t y = 130; y < 134; y++)
        for (uint32_t x = 180; x < 194; x++)
            g.data[y * 200 + x] = 60;
    return g;
}

static gray
gray_noise(uint32_t w, uint32_t h, uint64_t seed)
{
    gray g = {g_malloc((size_t)w * h), w, h, "noise"};
    tu_rng rng;

    tu_rng_init(&rng, seed);
    for (size_t i = 0; i < (size_t)w * h; i++)
        g.data[i] = (uint8_t)(tu_rng_below(&rng, 4) * 40);
    return g;
}

static void
assert_edges_equal(const votecl__ght_edges *dv, const votecl__ght_edges *ref, uint32_t levels,
                   const char *what)
{
    g_assert_cmpuint(dv->n, ==, ref->n);
    assert_equal_u32(dv->offsets, ref->offsets, levels + 1, what);
    assert_equal_u32((const uint32_t *)dv->points, (const uint32_t *)ref->points, 3 * ref->n, what);
}

/* Device edges of g equal the reference's Canny (or Sobel + NMS + threshold) sorted. */
static void
check_front_edges(votecl__ght_front *f, const votecl__ght_desc *d, const gray *g, unsigned low,
                  unsigned high, votecl__ght_edges *out)
{
    votecl__ght_point *pts = g_new(votecl__ght_point, (size_t)g->width * g->height + 1);
    size_t n = votecl__ght_ref_canny(d, g->data, g->width, g->height, low, high, pts);
    votecl__ght_edges ref, dv;

    g_assert_cmpuint(n, !=, (size_t)-1);
    g_assert_cmpint(votecl__ght_edges_sort(pts, n, d->levels, &ref), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_front_canny(f, g->data, g->width, g->height, low, high), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl__ght_front_read_edges(f, &dv), ==, VOTECL_OK);
    assert_edges_equal(&dv, &ref, d->levels, g->name);
    g_test_message("%s %ux%u, thresholds %u/%u: %zu edges, equal", g->name, g->width, g->height,
                   low, high, n);
    votecl__ght_edges_clear(&dv);
    if (out != NULL)
        *out = ref;
    else
        votecl__ght_edges_clear(&ref);
    g_free(pts);
}

/* A device of ctx and its front end for params (template centre cx, cy). */
static void
front_new_on(votecl_context *ctx, const votecl_ght_params *params, votecl__ght_desc *d,
             votecl__ght_device **dev, votecl__ght_front **f)
{
    votecl__ght_desc_init(d, params);
    d->cx = 49.5;
    d->cy = 64.5;
    g_assert_cmpint(votecl__ght_device_new(ctx, d, dev), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_front_new(ctx, *dev, d, f), ==, VOTECL_OK);
}

static void
front_new(const votecl_ght_params *params, votecl__ght_desc *d, votecl__ght_device **dev,
          votecl__ght_front **f)
{
    front_new_on(device(), params, d, dev, f);
}

static void
front_free(votecl__ght_device *dev, votecl__ght_front *f)
{
    votecl__ght_front_free(f);
    votecl__ght_device_free(dev);
}

static gray *
front_images(size_t *count)
{
    scene t = template_scene(), s;
    tu_rng rng;
    gray *all = g_new(gray, 8);

    tu_rng_init(&rng, 0xf0e1);
    random_scene(&rng, &s, 0.8, 1.25);
    all[0] = gray_of_file("pic1.png");
    all[1] = gray_of_file("templ.png");
    all[2] = gray_of_scene(&t, "template scene");
    all[3] = gray_of_scene(&s, "random scene");
    all[4] = gray_serpent();
    all[5] = gray_noise(61, 37, 0x61); /* prime sides, many tiles cut */
    all[6] = gray_noise(3, 3, 0x3);
    all[7] = gray_noise(1, 1, 0x1);
    *count = 8;
    g_free(t.data);
    g_free(s.data);
    return all;
}

static void
images_free(gray *all, size_t count)
{
    for (size_t i = 0; i < count; i++)
        g_free(all[i].data);
    g_free(all);
}

/* The host's Canny (CPU devices' edges) gives the reference's points in its order: every
 * front image and noise of odd sizes (block tails, 3-pixel sides), with hysteresis, a single
 * threshold, thresholds of 0 and above any magnitude, several bin counts, one memo through
 * sizes that grow and shrink (its hysteresis map must come back clean). */
static void
check_host_canny(const votecl__ght_desc *d, const gray *g, unsigned low, unsigned high,
                 votecl__ght_canny_memo **memo)
{
    votecl__ght_point *pts = g_new(votecl__ght_point, (size_t)g->width * g->height + 1);
    size_t n = votecl__ght_ref_canny(d, g->data, g->width, g->height, low, high, pts);
    const votecl__ght_point *host;
    size_t hn = votecl__ght_host_canny(d, g->data, g->width, g->height, low, high, memo, &host);

    g_assert_cmpuint(n, !=, (size_t)-1);
    g_assert_cmpuint(hn, ==, n);
    for (size_t i = 0; i < n; i++)
        if (host[i].x != pts[i].x || host[i].y != pts[i].y || host[i].bin != pts[i].bin)
            g_error("%s %ux%u, %u/%u, L %u: point %zu is (%d, %d, bin %u) on the host, (%d, %d, "
                    "bin %u) in the reference",
                    g->name, g->width, g->height, low, high, d->levels, i, host[i].x, host[i].y,
                    host[i].bin, pts[i].x, pts[i].y, pts[i].bin);
    g_free(pts);
}

static void
test_ref_host_canny(void)
{
    static const unsigned thresholds[][2] = {{50, 100}, {100, 100},   {10, 200}, {0, 0},
                                             {0, 40},   {2040, 3000}, {1, 2039}};
    static const uint32_t levels[] = {360, 7, 4, 1024};
    static const uint32_t sides[][2] = {{16, 16}, {17, 9}, {33, 31}, {3, 40},
                                        {40, 3},  {2, 9},  {9, 2},   {129, 70}};
    votecl__ght_canny_memo *memo = NULL;
    size_t count;
    gray *images = front_images(&count);

    for (size_t l = 0; l < G_N_ELEMENTS(levels); l++) {
        votecl_ght_params p;
        votecl__ght_desc d;
        votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
        p.levels = levels[l];
        votecl__ght_desc_init(&d, &p);
        for (size_t i = 0; i < count; i++)
            for (size_t t = 0; t < G_N_ELEMENTS(thresholds); t++)
                check_host_canny(&d, &images[i], thresholds[t][0], thresholds[t][1], &memo);
        for (size_t s = 0; s < G_N_ELEMENTS(sides); s++) {
            gray g = {g_malloc((size_t)sides[s][0] * sides[s][1]), sides[s][0], sides[s][1],
                      "uniform noise"};
            tu_rng rng;
            tu_rng_init(&rng, 0x4c0 + s);
            for (size_t i = 0; i < (size_t)g.width * g.height; i++)
                g.data[i] = (uint8_t)tu_rng_below(&rng, 256);
            for (size_t t = 0; t < G_N_ELEMENTS(thresholds); t++)
                check_host_canny(&d, &g, thresholds[t][0], thresholds[t][1], &memo);
            g_free(g.data);
        }
    }
    votecl__ght_canny_memo_free(memo);
    votecl__ght_canny_memo_free(NULL);
    images_free(images, count);
}

/* votecl__ght_bin_host equals votecl__ght_bin for every gradient of a Sobel of u8 pixels up to
 * 300 a component (all of them, |g| <= 1020, with -m slow), several bin counts. */
static void
test_ref_host_bins(void)
{
    static const uint32_t levels[] = {360, 7, 4, 90, 1024, 5};
    int32_t top = g_test_slow() ? 1020 : 300;

    for (size_t l = 0; l < G_N_ELEMENTS(levels); l++) {
        votecl_ght_params p;
        votecl__ght_desc d;
        votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
        p.levels = levels[l];
        votecl__ght_desc_init(&d, &p);
        for (int32_t gy = -top; gy <= top; gy++)
            for (int32_t gx = -top; gx <= top; gx++) {
                uint32_t a, b;
                if (gx == 0 && gy == 0)
                    continue;
                a = votecl__ght_bin_host(&d, gx, gy);
                b = votecl__ght_bin(&d, gx, gy);
                if (a != b)
                    g_error("L %u, (%d, %d): bin %u on the host, %u in the reference", d.levels, gx,
                            gy, a, b);
            }
    }
}

/* The host plan's vote and maxima (CPU devices) give the reference's accumulator and poses:
 * the default search, a full circle of rotations with scales, a partial arc with dp 3 and a
 * low votes ratio (many maxima); the sample pair with the defaults. */
static void
check_host_ballard(const votecl_ght_params *params, const gray *templ, const gray *image)
{
    votecl__ght_desc d;
    votecl__ght_edges te, ie;
    votecl__ght_rtable rt;
    votecl__ght_poses rp = {0}, hp = {0};
    size_t cells;
    uint32_t *ref, *host;
    scene ts = {templ->data, templ->width, templ->height},
          is = {image->data, image->width, image->height};

    votecl__ght_desc_init(&d, params);
    d.cx = (templ->width - 1) / 2.0;
    d.cy = (templ->height - 1) / 2.0;
    d.p.canny_low = d.p.canny_high; /* Ballard's single threshold */
    scene_edges(&ts, &d, &te);
    scene_edges(&is, &d, &ie);
    g_assert_cmpint(votecl__ght_rtable_build(&te, d.levels, d.cx, d.cy, &rt), ==, VOTECL_OK);
    cells = votecl__ght_ballard_cells(&d, image->width, image->height);
    ref = g_new(uint32_t, cells);
    host = g_new(uint32_t, cells);
    votecl__ght_ref_ballard_vote(&d, &rt, &ie, image->width, image->height, ref);
    g_assert_cmpint(votecl__ght_host_ballard_vote(&d, &rt, &ie, image->width, image->height, host),
                    ==, 0);
    assert_equal_u32(host, ref, cells, "Ballard on the host");
    g_assert_cmpint(votecl__ght_ref_ballard_peaks(&d, ref, image->width, image->height, &rp), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl__ght_host_ballard_peaks(&d, ref, image->width, image->height, &hp), ==,
                    VOTECL_OK);
    g_assert_cmpuint(hp.n, ==, rp.n);
    g_assert_cmpuint(rp.n, >, 0);
    assert_poses_equal(hp.v, rp.v, rp.n);
    g_test_message("%s: %zu cells, %llu votes, %zu maxima, equal", image->name, cells,
                   (unsigned long long)sum_u32(ref, cells), rp.n);
    free(rp.v);
    free(hp.v);
    votecl__ght_rtable_clear(&rt);
    votecl__ght_edges_clear(&te);
    votecl__ght_edges_clear(&ie);
    g_free(ref);
    g_free(host);
}

static void
test_ref_host_ballard(void)
{
    scene t = template_scene(), s;
    gray tg = gray_of_scene(&t, "template scene"), sg, pic = gray_of_file("pic1.png"),
         templ = gray_of_file("templ.png");
    votecl_ght_params p;
    tu_rng rng;

    tu_rng_init(&rng, 0x40b1);
    random_scene(&rng, &s, 0.8, 1.25);
    sg = gray_of_scene(&s, "random scene");
    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    check_host_ballard(&p, &templ, &pic);
    check_host_ballard(&p, &tg, &sg);
    p.levels = 72;
    p.max_angle = 360;
    p.angle_step = 5;
    p.min_scale = 0.8;
    p.max_scale = 1.25;
    check_host_ballard(&p, &tg, &sg);
    p.min_angle = 30;
    p.max_angle = 100;
    p.angle_step = 7;
    p.dp = 3;
    p.votes_ratio = 0.2;
    check_host_ballard(&p, &tg, &sg);
    g_free(tg.data);
    g_free(sg.data);
    g_free(pic.data);
    g_free(templ.data);
    g_free(t.data);
    g_free(s.data);
}

/* Confidences through the per-pixel summary equal those without it (the summary only sorts
 * the look-ups): poses around the planted one and elsewhere in random scenes (two of them
 * claim the same instance), one memo through images of several sizes (every other one a
 * sheared view of the scene: its rows read at a smaller width). */
static void
test_ref_confidence_summary(void)
{
    scene t = template_scene();
    votecl_ght_params p;
    votecl__ght_desc d;
    votecl__ght_edges te;
    votecl__ght_conf_memo *memo = NULL;
    tu_rng rng;

    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    votecl__ght_desc_init(&d, &p);
    d.cx = (t.width - 1) / 2.0;
    d.cy = (t.height - 1) / 2.0;
    scene_edges(&t, &d, &te);
    tu_rng_init(&rng, 0xc0f1);
    for (int c = 0; c < 4; c++) {
        scene s;
        pose_truth truth = random_scene(&rng, &s, 0.8, 1.25);
        votecl__ght_edges ie;
        votecl_ght_pose with[24], without[24];
        double planted = 0;
        scene small = {s.data, s.width - 37 * (c % 2), s.height - 11 * (c % 2)};
        scene_edges(c % 2 ? &small : &s, &d, &ie);
        for (int i = 0; i < 24; i++) {
            votecl_ght_pose *q = &with[i];
            memset(q, 0, sizeof *q);
            q->x = i < 16 ? truth.x + tu_rng_float(&rng, -3, 3) : tu_rng_float(&rng, 0, 200);
            q->y = i < 16 ? truth.y + tu_rng_float(&rng, -3, 3) : tu_rng_float(&rng, 0, 200);
            q->angle =
                fmod(truth.angle + (i < 16 ? tu_rng_float(&rng, -3, 3) + 360 : i * 15.0), 360.0);
            q->scale = truth.scale * (i < 16 ? tu_rng_float(&rng, 0.97f, 1.03f) : 1.0);
            q->votes = 100 - (uint32_t)i;
        }
        memcpy(without, with, sizeof with);
        g_assert_cmpint(
            votecl__ght_confidence(&d, &te, &ie, small.width, small.height, with, 24, 1, 1, &memo),
            ==, VOTECL_OK);
        g_assert_cmpint(votecl__ght_confidence(&d, &te, &ie, small.width, small.height, without, 24,
                                               0, 1, &memo),
                        ==, VOTECL_OK);
        assert_poses_equal(with, without, 24);
        for (int i = 0; i < 24; i++)
            planted = with[i].confidence > planted ? with[i].confidence : planted;
        if (c % 2 == 0) /* the summary was tried on a real instance */
            g_assert_cmpfloat(planted, >, 0.7);
        votecl__ght_edges_clear(&ie);
        g_free(s.data);
    }
    votecl__ght_conf_memo_free(memo);
    votecl__ght_conf_memo_free(NULL);
    votecl__ght_edges_clear(&te);
    g_free(t.data);
}

static void
test_opencl_front_edges(void)
{
    votecl_ght_params p;
    votecl__ght_desc d;
    votecl__ght_device *dev;
    votecl__ght_front *f;
    gray *images;
    size_t count;

    if (device() == NULL)
        return;
    images = front_images(&count);
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    front_new(&p, &d, &dev, &f);
    for (size_t i = 0; i < count; i++) {
        check_front_edges(f, &d, &images[i], 50, 100, NULL);  /* Guil's Canny */
        check_front_edges(f, &d, &images[i], 100, 100, NULL); /* Ballard's single threshold */
        check_front_edges(f, &d, &images[i], 10, 200, NULL);  /* long hysteresis chains */
    }
    front_free(dev, f);
    p.levels = 7; /* odd bins, boundaries off the axes */
    front_new(&p, &d, &dev, &f);
    check_front_edges(f, &d, &images[0], 30, 90, NULL);
    front_free(dev, f);
    if (g_test_slow()) { /* more than 4096 sort groups of 1024 pixels: longer chunks */
        gray big = gray_noise(2111, 2003, 0xb16);
        front_new(&p, &d, &dev, &f);
        check_front_edges(f, &d, &big, 50, 100, NULL);
        front_free(dev, f);
        g_free(big.data);
    }
    images_free(images, count);
}

static int
pair_cmp(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(votecl__ght_pair));
}

/* Device pairings equal the reference's: the same offsets, each key the same multiset. */
static void
assert_pairs_equal(const votecl__ght_desc *d, votecl__ght_pairs *dv, votecl__ght_pairs *ref)
{
    size_t keys = (size_t)d->levels * d->levels;

    g_assert_cmpuint(dv->n, ==, ref->n);
    assert_equal_u32(dv->offsets, ref->offsets, keys + 1, "pairing offsets");
    g_assert_cmpuint(dv->nkeys, ==, ref->nkeys);
    assert_equal_u32(dv->keys, ref->keys, ref->nkeys, "keys");
    for (size_t k = 0; k < keys; k++) {
        size_t at = ref->offsets[k], n = ref->offsets[k + 1] - at;
        qsort(dv->pairs + at, n, sizeof *dv->pairs, pair_cmp);
        qsort(ref->pairs + at, n, sizeof *ref->pairs, pair_cmp);
    }
    g_assert_cmpmem(dv->pairs, dv->n * sizeof *dv->pairs, ref->pairs, ref->n * sizeof *ref->pairs);
}

static void
check_front_pairs(const votecl_ght_params *params, const gray *g, votecl__ght_list list)
{
    votecl__ght_desc d;
    votecl__ght_device *dev;
    votecl__ght_front *f;
    votecl__ght_edges edges;
    votecl__ght_pairs ref, dv[2];
    size_t keys;
    uint32_t *o[3];

    front_new(params, &d, &dev, &f);
    keys = (size_t)d.levels * d.levels;
    check_front_edges(f, &d, g, d.p.canny_low, d.p.canny_high, &edges);
    g_assert_cmpint(votecl__ght_ref_pairs(&d, &edges, &ref), ==, VOTECL_OK);
    for (int m = 0; m < 2; m++) {
        votecl_ght_pairing pairing = m ? VOTECL_GHT_PAIRING_SSM : VOTECL_GHT_PAIRING_LB;
        g_assert_cmpint(votecl__ght_front_pairs(f, pairing, list, &dv[m]), ==, VOTECL_OK);
        g_assert_cmpint(votecl__ght_front_read_pairs(f, list, &dv[m]), ==, VOTECL_OK);
        assert_pairs_equal(&d, &dv[m], &ref);
        o[m] = g_new(uint32_t, keys);
        votecl__ght_ref_ospace(&d, &dv[m], o[m]);
    }
    /* the O space is the offsets' differences; the counting kernels agree */
    o[2] = g_new(uint32_t, keys);
    g_assert_cmpint(votecl__ght_device_ospace(dev, &edges, VOTECL_GHT_PAIRING_LB, o[2]), ==,
                    VOTECL_OK);
    assert_equal_u32(o[0], o[2], keys, "O, LB list");
    assert_equal_u32(o[1], o[2], keys, "O, SSM list");
    g_test_message("%s: L %u, xi %g, eps %u: %zu pairings, %zu keys, LB and SSM equal", g->name,
                   d.levels, d.p.xi, d.eps, ref.n, ref.nkeys);
    for (int m = 0; m < 3; m++)
        g_free(o[m]);
    votecl__ght_pairs_clear(&dv[0]);
    votecl__ght_pairs_clear(&dv[1]);
    votecl__ght_pairs_clear(&ref);
    votecl__ght_edges_clear(&edges);
    front_free(dev, f);
}

static void
test_opencl_front_pairs(void)
{
    votecl_ght_params p;
    gray pic = {0}, templ = {0}, noise = {0};

    if (device() == NULL)
        return;
    pic = gray_of_file("pic1.png");
    templ = gray_of_file("templ.png");
    noise = gray_noise(61, 37, 0x61);
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    check_front_pairs(&p, &templ, VOTECL__GHT_TEMPLATE);
    check_front_pairs(&p, &pic, VOTECL__GHT_IMAGE);
    check_front_pairs(&p, &noise, VOTECL__GHT_IMAGE);
    p.levels = 90; /* the paper's 4-degree bins, another xi and tolerance */
    p.xi = 45;
    p.angle_epsilon = 2;
    check_front_pairs(&p, &pic, VOTECL__GHT_IMAGE);
    p.levels = 16; /* few bins: long sub-lists, many tasks per bin */
    p.xi = 180;
    p.angle_epsilon = 0;
    check_front_pairs(&p, &templ, VOTECL__GHT_TEMPLATE);
    g_free(pic.data);
    g_free(templ.data);
    g_free(noise.data);
}

/* The image's capped pairings on a GPU-shaped device (the S and match windows' order): each
 * key's sorted by length, and the reference's capped list key for key. */
static void
check_length_order(votecl_context *ctx, const votecl_ght_params *params, const gray *g)
{
    votecl__ght_desc d;
    votecl__ght_device *dev;
    votecl__ght_front *f;
    votecl__ght_edges edges;
    votecl__ght_pairs ref, dv;
    size_t keys, unsorted = 0;

    front_new_on(ctx, params, &d, &dev, &f);
    keys = (size_t)d.levels * d.levels;
    g_assert_cmpint(
        votecl__ght_front_canny(f, g->data, g->width, g->height, d.p.canny_low, d.p.canny_high), ==,
        VOTECL_OK);
    g_assert_cmpint(votecl__ght_front_read_edges(f, &edges), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_ref_pairs(&d, &edges, &ref), ==, VOTECL_OK);
    votecl__ght_pairs_cap(&d, &ref);
    g_assert_cmpint(votecl__ght_front_pairs(f, VOTECL_GHT_PAIRING_SSM, VOTECL__GHT_IMAGE, &dv), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl__ght_front_cap(f, VOTECL__GHT_IMAGE, &dv), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_front_read_pairs(f, VOTECL__GHT_IMAGE, &dv), ==, VOTECL_OK);
    for (size_t k = 0; k < keys; k++)
        for (uint32_t i = dv.offsets[k] + 1; i < dv.offsets[k + 1]; i++)
            unsorted += dv.pairs[i].d < dv.pairs[i - 1].d;
    g_assert_cmpuint(unsorted, ==, 0);
    assert_pairs_equal(&d, &dv, &ref);
    g_test_message("%s: L %u: %zu capped pairings in %zu keys, each key by length", g->name,
                   d.levels, ref.n, ref.nkeys);
    votecl__ght_pairs_clear(&dv);
    votecl__ght_pairs_clear(&ref);
    votecl__ght_edges_clear(&edges);
    front_free(dev, f);
}

/* A context of the device in the GPU shape (VOTECL_FORCE_SHAPE gpu), or NULL. */
static votecl_context *
gpu_context(void)
{
    char *saved = tu_env_set("VOTECL_FORCE_SHAPE", "gpu");
    votecl_context *ctx = tu_device_context_new(NULL);

    tu_env_restore("VOTECL_FORCE_SHAPE", saved);
    return ctx;
}

static void
test_opencl_length_order(void)
{
    votecl_context *ctx = gpu_context();
    votecl_ght_params p;
    gray pic, noise;

    if (ctx == NULL)
        return;
    g_assert_true(votecl__ght_length_windows(ctx));
    pic = gray_of_file("pic1.png");
    noise = gray_noise(61, 37, 0x61);
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    check_length_order(ctx, &p, &pic);
    p.levels = 16; /* few bins: keys over the cap */
    p.xi = 180;
    p.angle_epsilon = 0;
    check_length_order(ctx, &p, &noise);
    g_free(pic.data);
    g_free(noise.data);
    votecl_context_free(ctx);
}

/* Device poses of Ballard's accumulator equal the reference's, candidate for candidate. */
static void
check_front_ballard(const votecl_ght_params *params, const gray *templ, const gray *g)
{
    votecl__ght_desc d;
    votecl__ght_device *dev;
    votecl__ght_front *f;
    votecl__ght_edges te, ie;
    votecl__ght_rtable rt;
    votecl__ght_poses ref = {0}, dv = {0};
    votecl__ght_run run;
    size_t cells;
    uint32_t *space;

    front_new(params, &d, &dev, &f);
    d.cx = (templ->width - 1) / 2.0;
    d.cy = (templ->height - 1) / 2.0;
    run = (votecl__ght_run){.context = device(), .desc = &d, .dev = dev, .front = f};
    check_front_edges(f, &d, templ, d.p.canny_high, d.p.canny_high, &te);
    g_assert_cmpint(votecl__ght_rtable_build(&te, d.levels, d.cx, d.cy, &rt), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_device_ballard_bind(dev, &rt), ==, VOTECL_OK);
    check_front_edges(f, &d, g, d.p.canny_high, d.p.canny_high, &ie);
    cells = votecl__ght_ballard_cells(&d, g->width, g->height);
    space = g_new(uint32_t, cells);
    votecl__ght_ref_ballard_vote(&d, &rt, &ie, g->width, g->height, space);
    g_assert_cmpint(votecl__ght_ref_ballard_peaks(&d, space, g->width, g->height, &ref), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl__ght_vote_device(&run, g->width, g->height), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_peaks_device(&run, g->width, g->height, &dv), ==, VOTECL_OK);
    g_assert_cmpuint(dv.n, ==, ref.n);
    if (ref.n > 0)
        g_assert_cmpmem(dv.v, dv.n * sizeof *dv.v, ref.v, ref.n * sizeof *ref.v);
    g_test_message("Ballard %s: %zu cells, %zu candidates, equal", g->name, cells, ref.n);
    g_free(space);
    g_free(ref.v);
    g_free(dv.v);
    votecl__ght_rtable_clear(&rt);
    votecl__ght_edges_clear(&te);
    votecl__ght_edges_clear(&ie);
    front_free(dev, f);
}

/* Ballard's search over a full circle (rotations wrap) and several scales. */
static void
ballard_full_circle(votecl_ght_params *p)
{
    votecl_ght_params_init(p, VOTECL_GHT_BALLARD);
    p->levels = 72;
    p->max_angle = 360;
    p->angle_step = 10;
    p->min_scale = 0.9;
    p->max_scale = 1.3;
    p->scale_step = 0.1;
    p->votes_ratio = 0.3;
}

static void
test_opencl_front_ballard(void)
{
    votecl_ght_params p;
    gray pic, templ;

    if (device() == NULL)
        return;
    pic = gray_of_file("pic1.png");
    templ = gray_of_file("templ.png");
    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    check_front_ballard(&p, &templ, &pic);
    p.votes_ratio = 0; /* every local maximum: more candidates than the first read holds */
    p.votes_threshold = 1;
    check_front_ballard(&p, &templ, &pic);
    ballard_full_circle(&p);
    check_front_ballard(&p, &templ, &pic);
    g_free(pic.data);
    g_free(templ.data);
}

/* Detections and the front-only call on odd inputs, on the device, as on the reference. */
static void
check_front_degenerate(votecl_ght_method method)
{
    scene blank = scene_new(40, 30, 90), t = template_scene(), small = scene_new(20, 20, 60);
    scene one = scene_new(1, 1, 7);
    votecl_image bv = scene_view(&blank), tv = scene_view(&t), sv = scene_view(&small);
    votecl_image ov = scene_view(&one), empty = ov;
    votecl_ght_params p;
    votecl_ght_model *model = NULL;
    votecl_ght_pose poses[4];
    votecl_ght_stats stats;
    size_t found = 99;

    votecl_ght_params_init(&p, method);
    g_assert_cmpint(votecl_ght_model_new(device(), &p, &bv, &model), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_null(model);
    g_assert_true(tu_message_names(votecl_context_get_error(device()), "template"));
    g_assert_cmpint(votecl_ght_model_new(device(), &p, &ov, &model), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_ght_model_new(device(), &p, &tv, &model), ==, VOTECL_OK);
    const votecl_image *inputs[] = {&bv, &sv, &ov};
    for (size_t i = 0; i < 3; i++) {
        found = 99;
        g_assert_cmpint(votecl_ght_detect(model, inputs[i], poses, 4, &found), ==, VOTECL_OK);
        g_assert_cmpuint(found, ==, 0);
        g_assert_cmpint(votecl_ght_pairings(model, inputs[i], &stats), ==, VOTECL_OK);
        g_assert_cmpuint(stats.candidates, ==, 0);
    }
    empty.width = 0; /* an empty image: no edges, nothing found */
    found = 99;
    g_assert_cmpint(votecl_ght_detect(model, &empty, poses, 4, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 0);
    g_assert_cmpint(votecl_ght_detect(model, NULL, poses, 4, &found), ==, VOTECL_INVALID_ARGUMENT);
    found = 99;
    g_assert_cmpint(votecl_ght_detect_edges(model, NULL, 0, 1, 1, NULL, 0, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 0);
    g_assert_cmpint(votecl_ght_pairings(model, &tv, NULL), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(device()), "stats"));
    votecl_ght_model_free(model);
    g_free(blank.data);
    g_free(t.data);
    g_free(small.data);
    g_free(one.data);
}

static void
test_opencl_front_degenerate(void)
{
    if (device() == NULL)
        return;
    check_front_degenerate(VOTECL_GHT_GUIL);
    check_front_degenerate(VOTECL_GHT_BALLARD);
}

/* Caller edges of an ellipse with a notch (radii rx, ry, centre cx, cy, turned) with the
 * outward normal as gradient, and with clutter 3 bars near the bottom of a 200x150 image. */
static size_t
ellipse_edges(votecl_ght_edge *e, double cx, double cy, double rx, double ry, double turn,
              int clutter)
{
    size_t n = 0;

    for (int k = 0; k < 720; k++) {
        double t = k * G_PI / 360, r = k > 40 && k < 90 ? 0.8 : 1.0;
        double ux = r * rx * cos(t), uy = r * ry * sin(t), nx = cos(t) / rx, ny = sin(t) / ry;
        double c = cos(turn), sn = sin(turn);
        e[n].x = (uint32_t)lround(cx + c * ux - sn * uy);
        e[n].y = (uint32_t)lround(cy + sn * ux + c * uy);
        e[n].gx = (int32_t)lround(400 * (c * nx - sn * ny));
        e[n].gy = (int32_t)lround(400 * (sn * nx + c * ny));
        n += e[n].gx != 0 || e[n].gy != 0;
    }
    for (int k = 0; clutter && k < 60; k++) {
        e[n].x = 5 + (uint32_t)k;
        e[n].y = 140 - (uint32_t)(k % 3) * 5;
        e[n].gx = 0;
        e[n].gy = 50;
        n++;
    }
    return n;
}

/* The status and message of a call over the memory limit: they name the figure and the
 * limit, and what (pixels, pairings, accumulator). */
static void
check_over_limit(votecl_status status, const char *what)
{
    const char *msg = votecl_context_get_error(tu_ref_context);

    g_assert_cmpint(status, ==, VOTECL_OUT_OF_RESOURCES);
    g_assert_nonnull(strstr(msg, "over the memory limit of"));
    g_assert_nonnull(strstr(msg, "params.memory_limit"));
    g_assert_nonnull(strstr(msg, what));
}

/* A guil model of the notched ellipse's edges with the sample's narrow search (or the
 * defaults), memory_limit limit. */
static votecl_ght_model *
limited_model(votecl_context *ctx, uint64_t limit, int narrow)
{
    votecl_ght_edge te[800];
    size_t nt = ellipse_edges(te, 40, 30, 33, 19.8, 0, 0);
    votecl_ght_model *m = NULL;
    votecl_ght_params p;

    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    if (narrow) {
        p.levels = 90;
        p.angle_step = 4;
        p.min_scale = 0.9;
        p.max_scale = 1.2;
        p.scale_step = 0.1;
        p.max_rotations = 2; /* 4 candidates */
    }
    p.memory_limit = limit;
    g_assert_cmpint(votecl_ght_model_new_edges(ctx, &p, te, nt, 80, 60, 40, 30, &m), ==, VOTECL_OK);
    return m;
}

/* Whether a model with memory_limit limit detects the cluttered ellipse (else it fails
 * at once with VOTECL_OUT_OF_RESOURCES, before it allocates); its poses into p. */
static int
limited_detects(votecl_context *ctx, uint64_t limit, votecl_ght_pose *p, size_t *n)
{
    votecl_ght_edge ie[800];
    size_t ni = ellipse_edges(ie, 110, 70, 33, 19.8, 0.5, 1);
    votecl_ght_model *m = limited_model(ctx, limit, 1);
    votecl_status st = votecl_ght_detect_edges(m, ie, ni, 200, 150, p, 16, n);

    g_assert_true(st == VOTECL_OK || st == VOTECL_OUT_OF_RESOURCES);
    votecl_ght_model_free(m);
    return st == VOTECL_OK;
}

/* The narrow search's poses of the cluttered ellipse at the least memory limit that lets the
 * detection run, within 4 KB (256 KB steps from 2 MB, then 4 KB ones): a candidate's spaces
 * take at least 4 bytes a cell of the 100 x 75 grid, 30 KB, so there the search takes one
 * candidate at a time, and the poses equal those without a limit. */
static void
check_batched(votecl_context *ctx)
{
    uint64_t limit = 2u << 20, step = 256u << 10;
    votecl_ght_pose p0[16], p1[16];
    size_t n0 = 0, n1 = 0;

    g_assert_true(limited_detects(ctx, 0, p1, &n1));
    g_assert_false(limited_detects(ctx, limit, p0, &n0));
    while (step >= 4096) {
        while (!limited_detects(ctx, limit + step, p0, &n0) && limit < (64u << 20))
            limit += step;
        step = step == 4096 ? 0 : 4096;
    }
    g_test_message("the narrow search runs from a memory_limit of %llu bytes",
                   (unsigned long long)limit + 4096);
    g_assert_true(limited_detects(ctx, limit + 4096, p0, &n0));
    g_assert_cmpuint(n0, >, 0);
    g_assert_cmpuint(n0, ==, n1);
    g_assert_cmpmem(p0, (n0 < 16 ? n0 : 16) * sizeof *p0, p1, (n1 < 16 ? n1 : 16) * sizeof *p1);
}

/* The matches of a template under a similarity (angle 30 degrees, scale 1.1, centre (cx, cy)
 * to (400, 300), points spaced by spacing pixels): m[k]'s points are template points k and k
 * + 7 and their images rounded; every fifth match repeats the one before under another key
 * (the same points, other normals), every seventh exactly. */
static void
fit_matches(const votecl__ght_desc *d, int32_t spacing, votecl__ght_match *m, size_t n)
{
    double c = 1.1 * cos(30 * G_PI / 180), s = 1.1 * sin(30 * G_PI / 180);

    for (size_t k = 0; k < n; k++) {
        int32_t u[2] = {(int32_t)(k % 13) * spacing, (int32_t)((k + 7) % 13) * spacing};
        int32_t v[2] = {(int32_t)(k % 11) * spacing, (int32_t)((k * 5 + 3) % 11) * spacing};
        uint32_t bin = (uint32_t)(k * 37 % d->levels);
        m[k] = (votecl__ght_match){0, bin * d->levels + (uint32_t)(k % d->levels), {0}, {0}};
        for (int h = 0; h < 2; h++) {
            double x = u[h] - d->cx, y = v[h] - d->cy;
            m[k].t[2 * h] = u[h];
            m[k].t[2 * h + 1] = v[h];
            m[k].i[2 * h] = (int32_t)lround(c * x - s * y + 400);
            m[k].i[2 * h + 1] = (int32_t)lround(s * x + c * y + 300);
        }
        if (k > 0 && k % 5 == 0)
            m[k] = m[k - 1], m[k].key = (m[k].key + 3 * d->levels) % (d->levels * d->levels);
        if (k > 0 && k % 7 == 0)
            m[k] = m[k - 1];
    }
}

/* votecl__ght_fit sorts a maximum's matches into one canonical order (lib/ght-pose.c: a
 * radix sort of their points' keys, ties of one point by its normals): any order of the same
 * matches fits the same pose, bit for bit, with points repeated under other keys and with
 * coordinates too far apart for one 64-bit key (spacing 2^23: spans of 27 and 28 bits). */
static void
test_ref_fit_order(void)
{
    static const int32_t spacing[] = {3, 1 << 23};
    votecl__ght_desc d;
    double normals[2 * 360];
    votecl__ght_match m[300], shuffled[300];
    votecl__ght_fit_buf buf = {0};
    GRand *rng = g_rand_new_with_seed(5);

    memset(&d, 0, sizeof d);
    d.levels = 360;
    d.xi_bins = 90;
    d.cx = 20.5;
    d.cy = 10.25;
    d.p.dp = 2;
    votecl__ght_normals(&d, normals);
    for (size_t w = 0; w < G_N_ELEMENTS(spacing); w++) {
        votecl_ght_pose hough = {400.5, 299.5, 29.5, 1.08, 0, 0, 0, 0}, first = hough;
        fit_matches(&d, spacing[w], m, G_N_ELEMENTS(m));
        g_assert_cmpint(votecl__ght_fit(&d, normals, m, G_N_ELEMENTS(m), &buf, &first), ==,
                        VOTECL_OK);
        g_assert_cmpfloat(fabs(first.angle - 30), <, 0.1); /* the fit replaced the estimate */
        for (int r = 0; r < 8; r++) {
            votecl_ght_pose again = hough;
            memcpy(shuffled, m, sizeof m);
            for (size_t k = G_N_ELEMENTS(m) - 1; k > 0; k--) {
                size_t j = (size_t)g_rand_int_range(rng, 0, (gint32)k + 1);
                votecl__ght_match t = shuffled[k];
                shuffled[k] = shuffled[j];
                shuffled[j] = t;
            }
            g_assert_cmpint(votecl__ght_fit(&d, normals, shuffled, G_N_ELEMENTS(m), &buf, &again),
                            ==, VOTECL_OK);
            assert_poses_equal(&again, &first, 1); /* field by field: not the padding */
        }
    }
    free(buf.v);
    g_rand_free(rng);
}

/* params.memory_limit (issue 28): a template or detection whose pixels, pairings or
 * accumulator need more is refused with VOTECL_OUT_OF_RESOURCES before the stage allocates
 * (here 10^10 pairings under the default limit: counting them alone would take minutes, so
 * the test's seconds show nothing was visited), found is left alone, the model stays usable,
 * and within the limit the poses are those without one, also where the search has to take
 * its candidates one at a time. */
static void
test_ref_memory_limit(void)
{
    enum { HALF = 100000 };
    votecl_ght_edge *dense = g_new(votecl_ght_edge, 2 * HALF), ie[800], te[800];
    size_t ni = ellipse_edges(ie, 110, 70, 33, 19.8, 0.5, 1), found = 77;
    size_t nt = ellipse_edges(te, 40, 30, 33, 19.8, 0, 0);
    votecl_ght_pose p0[16];
    votecl_ght_model *m = limited_model(tu_ref_context, VOTECL_GHT_MEMORY_LIMIT_DEFAULT, 0);
    votecl_ght_params p;

    /* 10^5 edges of gradient bin 0 and 10^5 of bin 90 (xi): 10^10 pairings, 480 GB */
    for (uint32_t i = 0; i < HALF; i++) {
        dense[i] = (votecl_ght_edge){i % 2000, i / 2000, 100, 0};
        dense[HALF + i] = (votecl_ght_edge){i % 2000, 1000 + i / 2000, 0, 100};
    }
    check_over_limit(votecl_ght_detect_edges(m, dense, 2 * HALF, 2000, 2000, p0, 16, &found),
                     "pairings");
    g_assert_cmpuint(found, ==, 77);
    g_assert_cmpint(votecl_ght_detect_edges(m, ie, ni, 200, 150, p0, 16, &found), ==, VOTECL_OK);
    votecl_ght_model_free(m);
    /* the pixels: 2000 x 2000 x VOTECL_GHT_PIXEL_BYTES over 8 MB */
    m = limited_model(tu_ref_context, 8u << 20, 0);
    check_over_limit(votecl_ght_detect_edges(m, ie, ni, 2000, 2000, p0, 16, &found), "pixels");
    votecl_ght_model_free(m);
    /* the template: its L * L key arrays alone pass 1 MB */
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    p.memory_limit = 1u << 20;
    m = (votecl_ght_model *)&m;
    check_over_limit(votecl_ght_model_new_edges(tu_ref_context, &p, te, nt, 80, 60, 40, 30, &m),
                     "template");
    g_assert_null(m);
    /* Ballard's accumulator: 1000 x 1000 cells x 360 rotations, 4 GB */
    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    p.max_angle = 360;
    p.memory_limit = 256u << 20;
    g_assert_cmpint(votecl_ght_model_new_edges(tu_ref_context, &p, te, nt, 80, 60, 40, 30, &m), ==,
                    VOTECL_OK);
    check_over_limit(votecl_ght_detect_edges(m, ie, ni, 2000, 2000, p0, 16, &found), "accumulator");
    votecl_ght_model_free(m);
    /* within the limit, one candidate at a time: the same poses as without one */
    check_batched(tu_ref_context);
    g_free(dense);
}

/* A stage table over the device's that counts the D stage's calls and their largest batch. */
typedef struct counted {
    votecl__ght_device *dev;
    size_t calls, most;
} counted;

static votecl_status
counted_sspace(void *user, size_t n, const uint32_t *b, uint64_t *hists)
{
    return votecl__ght_device_sspace(((counted *)user)->dev, n, b, hists);
}

static votecl_status
counted_dpeaks(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol, uint32_t gw,
               uint32_t gh, votecl__ght_dpeaks *out)
{
    counted *k = user;

    k->calls++;
    k->most = n > k->most ? n : k->most;
    return votecl__ght_device_dpeaks(k->dev, n, c, tol, gw, gh, out);
}

static votecl_status
counted_matches(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol, uint32_t gw,
                uint32_t gh, const votecl__ght_sel *sel, size_t nsel, votecl__ght_matches *out)
{
    return votecl__ght_device_matches(((counted *)user)->dev, n, c, tol, gw, gh, sel, nsel, out);
}

/* Sorted, capped pairings of caller edges (their O space in o). */
static void
edge_pairs(const votecl__ght_desc *d, const votecl_ght_edge *e, size_t n, votecl__ght_pairs *pairs,
           uint32_t *o)
{
    votecl__ght_point *pts = g_new(votecl__ght_point, n);
    votecl__ght_edges edges;

    for (size_t i = 0; i < n; i++)
        pts[i] = (votecl__ght_point){(int32_t)e[i].x, (int32_t)e[i].y,
                                     votecl__ght_bin(d, e[i].gx, e[i].gy)};
    g_assert_cmpint(votecl__ght_edges_sort(pts, n, d->levels, &edges), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_ref_pairs(d, &edges, pairs), ==, VOTECL_OK);
    votecl__ght_ref_ospace(d, pairs, o);
    votecl__ght_pairs_cap(d, pairs);
    votecl__ght_edges_clear(&edges);
    g_free(pts);
}

/* votecl__ght_guil's search with room for one candidate's spaces at a time, on the device's
 * stages and the reference's: the D stage is called once per candidate (more than once), and
 * the poses are those of all candidates at once. */
static void
test_opencl_guil_batches(void)
{
    votecl_ght_edge te[800], ie[800];
    size_t nt = ellipse_edges(te, 40, 30, 33, 19.8, 0, 0);
    size_t ni = ellipse_edges(ie, 110, 70, 33, 19.8, 0.5, 1);
    votecl_ght_model *m = limited_model(tu_ref_context, 0, 1);
    votecl__ght_poses poses[4] = {{0}};
    counted k[2] = {{0}};
    votecl__ght_desc d;
    votecl__ght_pairs tp, ip;
    votecl_ght_params p;
    uint32_t *ot, *oi;
    unsigned local, g;

    if (device() == NULL) {
        votecl_ght_model_free(m);
        return;
    }
    votecl_ght_model_params(m, &p);
    votecl_ght_model_free(m);
    votecl__ght_desc_init(&d, &p);
    d.cx = 40;
    d.cy = 30;
    ot = g_new(uint32_t, (size_t)d.levels * d.levels);
    oi = g_new(uint32_t, (size_t)d.levels * d.levels);
    edge_pairs(&d, te, nt, &tp, ot);
    edge_pairs(&d, ie, ni, &ip, oi);
    g_assert_cmpint(votecl__ght_device_new(device(), &d, &k[0].dev), ==, VOTECL_OK);
    k[1].dev = k[0].dev;
    g_assert_cmpint(votecl__ght_device_bind(k[0].dev, &tp, &ip), ==, VOTECL_OK);
    votecl__ght_device_replication(k[0].dev, &local, &g);
    for (int r = 0; r < 2; r++) { /* room 0: no limit; 1: one candidate at a time */
        votecl__ght_stages st = {counted_sspace, counted_dpeaks, counted_matches, &k[r]};
        g_assert_cmpint(
            votecl__ght_guil(&d, &st, ot, oi, &tp, &ip, 200, 150, r, g, 0, &poses[r], NULL), ==,
            VOTECL_OK);
        g_assert_cmpint(
            votecl__ght_guil(&d, NULL, ot, oi, &tp, &ip, 200, 150, r, 0, 0, &poses[2 + r], NULL),
            ==, VOTECL_OK);
    }
    g_test_message("%zu D calls of %zu candidates at most, then %zu of %zu", k[0].calls, k[0].most,
                   k[1].calls, k[1].most);
    g_assert_cmpuint(k[0].calls, ==, 1);
    g_assert_cmpuint(k[1].most, ==, 1);
    g_assert_cmpuint(k[1].calls, ==, k[0].most);
    g_assert_cmpuint(k[1].calls, >, 1);
    for (int r = 1; r < 4; r += 1 + (r == 1)) { /* device batched; reference, batched */
        g_assert_cmpuint(poses[r].n, ==, poses[r - 1].n);
        g_assert_cmpmem(poses[r].v, poses[r].n * sizeof *poses[r].v, poses[r - 1].v,
                        poses[r - 1].n * sizeof *poses[r - 1].v);
    }
    g_assert_cmpuint(poses[0].n, >, 0);
    for (int r = 0; r < 4; r++)
        g_free(poses[r].v);
    votecl__ght_device_free(k[0].dev);
    votecl__ght_pairs_clear(&tp);
    votecl__ght_pairs_clear(&ip);
    g_free(ot);
    g_free(oi);
}

/* The device's search one candidate at a time under the memory limit: the unlimited poses. */
static void
test_opencl_memory_batches(void)
{
    if (device() != NULL)
        check_batched(device());
}

/* votecl_ght_model_new_edges and votecl_ght_detect_edges on the device equal the
 * reference's (edges sorted on the host, then the device front end from the pairings on). */
static void
test_opencl_front_caller_edges(void)
{
    votecl_ght_edge *te = g_new(votecl_ght_edge, 800), *ie = g_new(votecl_ght_edge, 800);
    size_t nt, ni;

    if (device() == NULL)
        goto out;
    nt = ellipse_edges(te, 40, 30, 30, 18, 0, 0);
    ni = ellipse_edges(ie, 110, 70, 33, 19.8, 0.5, 1);
    for (int m = 0; m < 2; m++) {
        votecl_ght_params p;
        votecl_ght_model *rm = NULL, *dm = NULL;
        votecl_ght_pose rp[16], dp[16];
        votecl_ght_stats rs, ds;
        size_t rn = 0, dn = 0;
        votecl_ght_params_init(&p, m ? VOTECL_GHT_BALLARD : VOTECL_GHT_GUIL);
        p.levels = 90;
        p.angle_step = m ? 5 : 4; /* Guil: votecl__ght_guil holds max(L, S) rotation steps */
        p.max_angle = 360;
        p.min_scale = 0.9;
        p.max_scale = 1.2;
        p.scale_step = 0.1;
        g_assert_cmpint(votecl_ght_model_new_edges(tu_ref_context, &p, te, nt, 80, 60, 40, 30, &rm),
                        ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_model_new_edges(device(), &p, te, nt, 80, 60, 40, 30, &dm), ==,
                        VOTECL_OK);
        g_assert_cmpint(votecl_ght_detect_edges(rm, ie, ni, 200, 150, rp, 16, &rn), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_detect_edges(dm, ie, ni, 200, 150, dp, 16, &dn), ==, VOTECL_OK);
        g_assert_cmpuint(dn, ==, rn);
        g_assert_cmpuint(rn, >, 0);
        rn = rn < 16 ? rn : 16;
        g_assert_cmpmem(dp, rn * sizeof *dp, rp, rn * sizeof *rp);
        g_assert_cmpint(votecl_ght_model_last_stats(rm, &rs), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_model_last_stats(dm, &ds), ==, VOTECL_OK);
        g_assert_cmpuint(ds.image_pairings, ==, rs.image_pairings);
        g_assert_cmpuint(ds.candidates, ==, rs.candidates);
        g_test_message("%s: %zu poses, the best (%.1f, %.1f, %.1f deg, %.2f), equal",
                       m ? "Ballard" : "Guil", rn, rp[0].x, rp[0].y, rp[0].angle, rp[0].scale);
        votecl_ght_model_free(rm);
        votecl_ght_model_free(dm);
    }
out:
    g_free(te);
    g_free(ie);
}

/* The share of the template's points te confirmed at an unrotated, unscaled pose (x, y) in
 * image edges ie of w x h, by brute force, the walk stopping as the library's where the
 * share cannot reach floor (lib/ght-confidence.c: an image edge in the 5x5 window around the
 * rounded point, its bin within ceil(10 L / 360) of the point's). */
static double
brute_share(const votecl__ght_desc *d, const votecl__ght_edges *te, const votecl__ght_edges *ie,
            double x, double y, double floor)
{
    uint32_t L = d->levels, tol = (uint32_t)ceil(10.0 * L / 360.0);
    size_t hits = 0, need = (size_t)ceil(floor * (double)te->n);

    for (size_t i = 0; i < te->n && hits + (te->n - i) >= need; i++) {
        long px = lround(x + (te->points[i].x - d->cx)), py = lround(y + (te->points[i].y - d->cy));
        for (size_t k = 0; k < ie->n; k++) {
            const votecl__ght_point *e = &ie->points[k];
            uint32_t db = e->bin > te->points[i].bin ? e->bin - te->points[i].bin
                                                     : te->points[i].bin - e->bin;
            if (labs(e->x - px) <= 2 && labs(e->y - py) <= 2 && (db <= tol || L - db <= tol)) {
                hits++;
                break;
            }
        }
    }
    return (double)hits / (double)te->n;
}

/* Confidences of poses over and beside the image's borders (windows partly or wholly outside
 * the image; min_confidence 1: the shares below it stay the walk's, unrefined, unclaimed)
 * equal the brute force's. */
static void
test_ref_confidence_border(void)
{
    scene t = template_scene(), s;
    votecl_ght_params p;
    votecl__ght_desc d;
    votecl__ght_edges te, ie;
    votecl__ght_conf_memo *memo = NULL;
    votecl_ght_pose poses[12];

    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    p.min_confidence = 1;
    votecl__ght_desc_init(&d, &p);
    d.cx = (t.width - 1) / 2.0;
    d.cy = (t.height - 1) / 2.0;
    scene_edges(&t, &d, &te);
    s = scene_new(200, 150, 60);
    for (int i = 0; i < 12; i++) { /* instances centred from over to beside each border */
        double at = (i % 3) * 9.0 - 4;
        memset(&poses[i], 0, sizeof poses[i]);
        poses[i].x = i < 3 ? s.width + at : i < 6 ? -at : i < 9 ? 70.25 : 130.25;
        poses[i].y = i < 3 ? 60.25 : i < 6 ? 90.25 : i < 9 ? s.height + at : -at;
        poses[i].scale = 1;
        poses[i].votes = 100 - (uint32_t)i; /* ranked as made */
        paint_shape(&s, poses[i].x + 0.5, poses[i].y - 0.5, 0, 1, 200);
    }
    paint_shape(&s, 40, 90, 0, 1, 200); /* edges in the first columns of the left poses' rows */
    scene_edges(&s, &d, &ie);
    g_assert_cmpint(votecl__ght_confidence(&d, &te, &ie, s.width, s.height, poses, 12, 0, 0, &memo),
                    ==, VOTECL_OK);
    for (int i = 0; i < 12; i++) {
        double want = brute_share(&d, &te, &ie, poses[i].x, poses[i].y, 0.75);
        g_assert_cmpfloat(want, <, 0.7); /* below the judging: the walk's share */
        g_assert_cmpfloat(poses[i].confidence, ==, want);
    }
    votecl__ght_conf_memo_free(memo);
    votecl__ght_edges_clear(&te);
    votecl__ght_edges_clear(&ie);
    g_free(t.data);
    g_free(s.data);
}

/* --- Ballard's stages in few round trips (lib/ght-ballard.c) --- */

/* The reference's poses of Ballard's accumulator over edges ie of an image w x h. */
static void
ballard_ref_poses(const votecl__ght_desc *d, const votecl__ght_rtable *rt,
                  const votecl__ght_edges *ie, uint32_t w, uint32_t h, votecl__ght_poses *out)
{
    uint32_t *space = g_new(uint32_t, votecl__ght_ballard_cells(d, w, h));

    votecl__ght_ref_ballard_vote(d, rt, ie, w, h, space);
    g_assert_cmpint(votecl__ght_ref_ballard_peaks(d, space, w, h, out), ==, VOTECL_OK);
    g_free(space);
}

/* run's vote and maxima of its current edges equal the reference's over ie. */
static void
check_ballard_poses(votecl__ght_run *run, const votecl__ght_rtable *rt, const votecl__ght_edges *ie,
                    uint32_t w, uint32_t h, const char *what)
{
    votecl__ght_poses ref = {0}, dv = {0};

    ballard_ref_poses(run->desc, rt, ie, w, h, &ref);
    g_assert_cmpuint(votecl__ght_count_ballard(run, NULL), ==, ie->n);
    if (ie->n > 0) { /* lib/ght.c votes only where there are edges */
        g_assert_cmpint(votecl__ght_vote_ballard(run, w, h), ==, VOTECL_OK);
        g_assert_cmpint(votecl__ght_peaks_ballard(run, w, h, &dv), ==, VOTECL_OK);
    }
    g_assert_cmpuint(dv.n, ==, ref.n);
    if (ref.n > 0)
        g_assert_cmpmem(dv.v, dv.n * sizeof *dv.v, ref.v, ref.n * sizeof *ref.v);
    g_test_message("Ballard's stages, %s: %zu edges, %zu candidates, equal", what, ie->n, ref.n);
    g_free(ref.v);
    g_free(dv.v);
}

/* Points by bin, then row, then column: the reference's order. */
static int
point_cmp(const void *a, const void *b)
{
    const votecl__ght_point *p = a, *q = b;

    if (p->bin != q->bin)
        return p->bin < q->bin ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->x > q->x) - (p->x < q->x);
}

/* The image's edges through the stages (device edges, then the caller-points path) against
 * the reference: the sorted host copy, the poses. */
static void
check_ballard_image(votecl__ght_run *run, const votecl__ght_rtable *rt, const gray *g)
{
    const votecl__ght_desc *d = run->desc;
    votecl__ght_point *pts = g_new(votecl__ght_point, (size_t)g->width * g->height + 1);
    size_t n = votecl__ght_ref_canny(d, g->data, g->width, g->height, d->p.canny_high,
                                     d->p.canny_high, pts);
    votecl__ght_edges ref, dv;

    g_assert_cmpint(votecl__ght_edges_sort(pts, n, d->levels, &ref), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_canny_ballard(run, g->data, g->width, g->height, d->p.canny_high,
                                              d->p.canny_high),
                    ==, VOTECL_OK);
    check_ballard_poses(run, rt, &ref, g->width, g->height, g->name);
    g_assert_cmpint(votecl__ght_read_edges_ballard(run, &dv), ==, VOTECL_OK);
    g_assert_cmpuint(dv.n, ==, ref.n); /* the image's in the device's order: the same set */
    qsort(dv.points, dv.n, sizeof *dv.points, point_cmp);
    if (ref.n > 0)
        g_assert_cmpmem(dv.points, dv.n * sizeof *dv.points, ref.points,
                        ref.n * sizeof *ref.points);
    votecl__ght_edges_clear(&dv);
    g_assert_cmpint(votecl__ght_points_ballard(run, ref.points, ref.n), ==, VOTECL_OK);
    check_ballard_poses(run, rt, &ref, g->width, g->height, "caller points");
    votecl__ght_edges_clear(&ref);
    g_free(pts);
}

/* Ballard's stages of a GPU-shaped context (VOTECL_FORCE_SHAPE gpu: the edge kernel on any
 * device) equal the reference's: the template's sorted edges, and over images large and
 * small in turn (the accumulator cleared by a fill, then by the edge kernel where its buffer
 * has the room) the poses, with more maxima than the first room holds, on a full circle. */
static void
check_ballard_stages(votecl_context *ctx, const votecl_ght_params *params, const gray *templ,
                     const gray *images, size_t count)
{
    votecl__ght_device *dev;
    votecl__ght_front *f;
    votecl__ght_desc d, td;
    votecl__ght_edges te, tr;
    votecl__ght_rtable rt;
    votecl__ght_run run;

    front_new_on(ctx, params, &d, &dev, &f);
    d.cx = (templ->width - 1) / 2.0;
    d.cy = (templ->height - 1) / 2.0;
    run = (votecl__ght_run){.context = ctx, .desc = &d, .dev = dev, .front = f};
    g_assert_cmpint(votecl__ght_canny_ballard(&run, templ->data, templ->width, templ->height,
                                              d.p.canny_high, d.p.canny_high),
                    ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_read_edges_ballard(&run, &te), ==, VOTECL_OK);
    td = d;
    td.p.canny_low = td.p.canny_high; /* Ballard's single threshold */
    scene_edges(&(scene){templ->data, templ->width, templ->height}, &td, &tr);
    assert_edges_equal(&te, &tr, d.levels, "template"); /* before the bind: sorted */
    g_assert_cmpint(votecl__ght_rtable_build(&te, d.levels, d.cx, d.cy, &rt), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_bind_ballard(&run, &rt), ==, VOTECL_OK);
    for (size_t i = 0; i < count; i++)
        check_ballard_image(&run, &rt, &images[i]);
    votecl__ght_rtable_clear(&rt);
    votecl__ght_edges_clear(&te);
    votecl__ght_edges_clear(&tr);
    votecl__ght_canny_memo_free(run.canny_memo);
    front_free(dev, f);
}

static void
test_opencl_ballard_stages(void)
{
    votecl_context *ctx = gpu_context();
    votecl_ght_params p;
    gray g[4], templ;

    if (ctx == NULL)
        return;
    templ = gray_of_file("templ.png");
    g[0] = gray_of_file("pic1.png");
    g[1] = gray_noise(61, 37, 0x61);
    g[2] = gray_of_file("pic1.png");
    g[3] = gray_noise(1, 1, 0x1);
    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    check_ballard_stages(ctx, &p, &templ, g, 4);
    p.votes_ratio = 0; /* every local maximum: more than the first room holds */
    p.votes_threshold = 1;
    check_ballard_stages(ctx, &p, &templ, g, 3);
    ballard_full_circle(&p);
    check_ballard_stages(ctx, &p, &templ, g, 1);
    for (int i = 0; i < 4; i++)
        g_free(g[i].data);
    g_free(templ.data);
    votecl_context_free(ctx);
}

/* A GPU-shaped model's detections of images in turn equal a reference model's, pose for pose
 * with the confidences. From the second image on the vote and maxima follow the edges before
 * their number is read back, on a guess of the last image's (a blank image's none guess too
 * few for pic1's: a second read), and the maxima's kernel leaves the work buffer's head clear
 * for the next image (no fill): one read a detection where the guess holds. */
static void
test_opencl_ballard_again(void)
{
    static const uint64_t reads[4] = {0, 1, 2, 1}; /* 0: the first image, not counted */
    votecl_context *ctx = gpu_context();
    votecl_ght_model *rm = NULL, *dm = NULL;
    votecl_ght_params p;
    gray templ, g[4];

    if (ctx == NULL)
        return;
    templ = gray_of_file("templ.png");
    g[0] = gray_of_file("pic1.png");
    g[1] = (gray){g_malloc0((size_t)g[0].width * g[0].height), g[0].width, g[0].height, "blank"};
    g[2] = gray_of_file("pic1.png");
    g[3] = gray_of_file("pic1.png");
    votecl_ght_params_init(&p, VOTECL_GHT_BALLARD);
    votecl_image tv = {templ.data, templ.width, templ.height, templ.width, 1, VOTECL_DTYPE_U8};
    g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &tv, &rm), ==, VOTECL_OK);
    g_assert_cmpint(votecl_ght_model_new(ctx, &p, &tv, &dm), ==, VOTECL_OK);
    for (int i = 0; i < 4; i++) {
        votecl_image iv = {g[i].data, g[i].width, g[i].height, g[i].width, 1, VOTECL_DTYPE_U8};
        votecl_ght_pose rp[16], dp[16];
        votecl_queue_counts q0, q1;
        size_t rn = 0, dn = 0;
        g_assert_cmpint(votecl_ght_detect(rm, &iv, rp, 16, &rn), ==, VOTECL_OK);
        g_assert_cmpint(votecl_context_get_queue_counts(ctx, &q0), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_detect(dm, &iv, dp, 16, &dn), ==, VOTECL_OK);
        g_assert_cmpint(votecl_context_get_queue_counts(ctx, &q1), ==, VOTECL_OK);
        g_assert_cmpuint(dn, ==, rn);
        if (rn > 0)
            g_assert_cmpmem(dp, (rn < 16 ? rn : 16) * sizeof *dp, rp,
                            (rn < 16 ? rn : 16) * sizeof *rp);
        if (i > 0 && !votecl__ght_host_edges(ctx)) { /* the device's edges */
            g_assert_cmpuint(q1.reads - q0.reads, ==, reads[i]);
            g_assert_cmpuint(q1.fills - q0.fills, ==, 0);
        }
        g_test_message("Ballard again, %s: %zu poses, %llu reads", g[i].name, rn,
                       (unsigned long long)(q1.reads - q0.reads));
    }
    votecl_ght_model_free(rm);
    votecl_ght_model_free(dm);
    for (int i = 0; i < 4; i++)
        g_free(g[i].data);
    g_free(templ.data);
    votecl_context_free(ctx);
}

/* The stats of a device detection and of the front-only call equal the reference's. */
static void
test_opencl_front_stats(void)
{
    votecl_ght_params p;
    gray pic, templ;
    votecl_ght_model *rm = NULL, *dm = NULL;
    votecl_ght_stats rs, ds, fs;
    size_t found[2];

    if (device() == NULL)
        return;
    pic = gray_of_file("pic1.png");
    templ = gray_of_file("templ.png");
    votecl_image pv = {pic.data, pic.width, pic.height, pic.width, 1, VOTECL_DTYPE_U8};
    votecl_image tv = {templ.data, templ.width, templ.height, templ.width, 1, VOTECL_DTYPE_U8};
    for (int m = 0; m < 2; m++) {
        votecl_ght_params_init(&p, m ? VOTECL_GHT_BALLARD : VOTECL_GHT_GUIL);
        g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &tv, &rm), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_model_new(device(), &p, &tv, &dm), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_pairings(rm, &pv, &rs), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_pairings(dm, &pv, &fs), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_model_last_stats(dm, &ds), ==, VOTECL_OK);
        g_assert_cmpmem(&fs, sizeof fs, &ds, sizeof ds);
        g_assert_cmpuint(ds.template_edges, ==, rs.template_edges);
        g_assert_cmpuint(ds.template_pairings, ==, rs.template_pairings);
        g_assert_cmpuint(ds.image_edges, ==, rs.image_edges);
        g_assert_cmpuint(ds.image_pairings, ==, rs.image_pairings);
        g_assert_cmpuint(ds.image_edges, >, 0);
        g_assert_true(ds.edges_seconds > 0);
        g_assert_true(m == 1 || ds.pairing_seconds > 0);
        g_assert_cmpint(votecl_ght_detect(rm, &pv, NULL, 0, &found[0]), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_detect(dm, &pv, NULL, 0, &found[1]), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_model_last_stats(rm, &rs), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_model_last_stats(dm, &fs), ==, VOTECL_OK);
        g_assert_cmpuint(found[1], ==, found[0]);
        g_assert_cmpuint(fs.candidates, ==, rs.candidates);
        g_assert_cmpuint(fs.image_pairings, ==, rs.image_pairings);
        g_test_message("%s: %zu edges, %zu pairings, edges %.3f ms, pairing %.3f ms",
                       m ? "Ballard" : "Guil", ds.image_edges, ds.image_pairings,
                       ds.edges_seconds * 1e3, ds.pairing_seconds * 1e3);
        votecl_ght_model_free(rm);
        votecl_ght_model_free(dm);
    }
    g_free(pic.data);
    g_free(templ.data);
}

/* --- the truth suite (tests/truth-ght.h): a fixed subset with floors --- */

/* The suite's templates: templ.png and the generated ones (free with truth_free). */
static void
truth_templates(truth_ght_image *t)
{
    gray g = gray_of_file("templ.png");
    truth_ght_image shipped = {g.data, g.width, g.height};

    for (int s = 0; s < TRUTH_GHT_SHAPES; s++)
        g_assert_cmpint(truth_ght_template((truth_ght_shape)s, &shipped, &t[s]), ==, 0);
    g_free(g.data);
}

static void
truth_free(truth_ght_image *t)
{
    for (int s = 0; s < TRUTH_GHT_SHAPES; s++)
        truth_ght_image_free(&t[s]);
}

static votecl_image
truth_view(const truth_ght_image *im)
{
    votecl_image v = {im->data, im->width, im->height, im->width, 1, VOTECL_DTYPE_U8};
    return v;
}

/* Detects with the defaults in scene and scores the poses. */
static void
truth_detect(votecl_ght_model *model, const truth_ght_scene *sc, truth_ght_score *score,
             size_t *found)
{
    votecl_ght_pose poses[64];
    truth_ght_pose tp[64];
    votecl_image v = truth_view(&sc->image);
    size_t n;

    g_assert_cmpint(votecl_ght_detect(model, &v, poses, 64, found), ==, VOTECL_OK);
    n = *found < 64 ? *found : 64;
    for (size_t i = 0; i < n; i++) {
        tp[i] = (truth_ght_pose){poses[i].x, poses[i].y, poses[i].angle, poses[i].scale};
        g_assert_true(poses[i].confidence >= 0.5 && poses[i].confidence <= 1);
    }
    truth_ght_score_poses(sc, tp, n, score);
}

#define TRUTH_SCENES 4 /* per family */

/* 4 scenes of every family (seed 1, 400x300, as `votecl eval ght --scenes 4`), one model per
 * template. Floors at or below the figures measured when written (docs/accuracy.md): the
 * planted pose strongest in 16 of 16 scenes with instances, no false pose in 20 scenes, no
 * pose in 4 of the 4 scenes without an instance. */
static void
test_ref_truth_suite(void)
{
    truth_ght_image t[TRUTH_GHT_SHAPES];
    votecl_ght_model *models[TRUTH_GHT_SHAPES];
    votecl_ght_params p;
    size_t with = 0, strongest = 0, false_poses = 0, absent = 0, empty = 0, scenes = 0;

    truth_templates(t);
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    for (int s = 0; s < TRUTH_GHT_SHAPES; s++) {
        votecl_image v = truth_view(&t[s]);
        g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &v, &models[s]), ==, VOTECL_OK);
    }
    for (int f = 0; f < TRUTH_GHT_FAMILIES; f++)
        for (size_t i = 0; i < TRUTH_SCENES; i++) {
            truth_ght_scene sc;
            truth_ght_score score;
            size_t found;
            g_assert_cmpint(truth_ght_scene_make((truth_ght_family)f, 1, i, t, 400, 300, &sc), ==,
                            0);
            truth_detect(models[sc.shape], &sc, &score, &found);
            scenes++;
            false_poses += score.false_poses;
            with += sc.n > 0;
            strongest += sc.n > 0 && score.first_true == 1;
            absent += sc.n == 0;
            empty += sc.n == 0 && found == 0;
            truth_ght_scene_free(&sc);
        }
    g_test_message("truth: strongest planted in %zu of %zu, %zu false poses in %zu scenes, "
                   "%zu of %zu without an instance empty",
                   strongest, with, false_poses, scenes, empty, absent);
    g_assert_cmpuint(strongest * 100, >=, 85 * with);
    g_assert_cmpuint(false_poses, <=, scenes / 4);
    g_assert_cmpuint(empty * 4, >=, 3 * absent);
    for (int s = 0; s < TRUTH_GHT_SHAPES; s++)
        votecl_ght_model_free(models[s]);
    truth_free(t);
}

/* Issue 13's scenes: templ.png turned by 323 degrees at 1.15 and by 150 at 0.85 (cv2's 37 and
 * 210) beside a square and a circle, which own the four strongest rotations: the planted
 * pose, and nothing else, with the defaults. */
static void
test_ref_issue_rotated(void)
{
    static const double poses[2][2] = {{323, 1.15}, {150, 0.85}};
    gray g = gray_of_file("templ.png");
    truth_ght_image templ = {g.data, g.width, g.height};
    votecl_image tv = truth_view(&templ);
    votecl_ght_model *model = NULL;
    votecl_ght_params p;

    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &tv, &model), ==, VOTECL_OK);
    for (int k = 0; k < 2; k++) {
        truth_ght_scene sc;
        truth_ght_score score;
        size_t found;
        g_assert_cmpint(truth_ght_issue_scene(&templ, poses[k][0], poses[k][1], &sc), ==, 0);
        truth_detect(model, &sc, &score, &found);
        g_test_message("%g degrees at %g: %zu poses, first true at %zu", poses[k][0], poses[k][1],
                       found, score.first_true);
        g_assert_cmpuint(score.first_true, ==, 1);
        g_assert_cmpuint(score.false_poses, ==, 0);
        truth_ght_scene_free(&sc);
    }
    votecl_ght_model_free(model);
    g_free(g.data);
}

/* opencv_contrib's GeneralizedHough scene (tests/truth-ght.h, issue 23), its third copy turned
 * by angle and scaled by scale, detected in ctx with method's defaults (Ballard: the test's
 * votes threshold, 200; with a turned copy a search over 360 degrees, whose accumulator
 * spreads a copy's votes over neighbouring rotations, so no absolute threshold). Returns the
 * poses found (at most 16 in poses). */
static size_t
contrib_detect(votecl_context *ctx, votecl_ght_method method, double angle, double scale,
               truth_ght_scene *sc, votecl_ght_pose *poses)
{
    gray g = gray_of_file("templ.png");
    truth_ght_image templ = {g.data, g.width, g.height};
    votecl_image tv = truth_view(&templ), sv;
    votecl_ght_model *model = NULL;
    votecl_ght_params p;
    size_t found = 0;

    votecl_ght_params_init(&p, method);
    if (method == VOTECL_GHT_BALLARD && angle == 0)
        p.votes_threshold = 200;
    if (method == VOTECL_GHT_BALLARD && angle != 0) { /* a search that reaches the third copy */
        p.max_angle = 360;
    }
    g_assert_cmpint(truth_ght_contrib_scene(&templ, angle, scale, sc), ==, 0);
    sv = truth_view(&sc->image);
    g_assert_cmpint(votecl_ght_model_new(ctx, &p, &tv, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_ght_detect(model, &sv, poses, 16, &found), ==, VOTECL_OK);
    votecl_ght_model_free(model);
    g_free(g.data);
    return found;
}

/* The contrib test's assertion: three poses, each copy's centre (the test's: the corner plus
 * half the template's side, rounded down) within 2 px of one; and the turned or scaled third
 * copy's pose within the suite's 1 degree and 2%. Before issue 23's fix the copy the third one
 * partly covers was never reported (both methods), and with the third copy turned by 30
 * degrees or scaled by 1.3 Guil reported it alone. */
static void
test_ref_contrib_scene(void)
{
    static const struct {
        votecl_ght_method method;
        double angle, scale;
    } cases[] = {{VOTECL_GHT_BALLARD, 0, 1},
                 {VOTECL_GHT_GUIL, 0, 1},
                 {VOTECL_GHT_GUIL, 30, 1},
                 {VOTECL_GHT_GUIL, 0, 1.3},
                 {VOTECL_GHT_BALLARD, 30, 1}};

    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        truth_ght_scene sc;
        votecl_ght_pose poses[16];
        size_t found = contrib_detect(tu_ref_context, cases[c].method, cases[c].angle,
                                      cases[c].scale, &sc, poses);
        g_test_message("%s, third copy at %g degrees, %g: %zu poses",
                       cases[c].method == VOTECL_GHT_GUIL ? "Guil" : "Ballard", cases[c].angle,
                       cases[c].scale, found);
        g_assert_cmpuint(found, ==, 3);
        for (size_t k = 0; k < 3; k++) {
            uint32_t w = sc.image.width / 3, h = sc.image.height / 3;
            /* the corner plus the test's integer half side */
            double gx = sc.truth[k].x - (w - 1) / 2.0 + w / 2,
                   gy = sc.truth[k].y - (h - 1) / 2.0 + h / 2;
            int hit = 0;
            for (size_t i = 0; i < found; i++) {
                if (!(fabs(poses[i].x - gx) < 2 && fabs(poses[i].y - gy) < 2))
                    continue;
                hit = 1;
                if (k == 2) {
                    g_assert_cmpfloat(angle_error(poses[i].angle, sc.truth[k].angle), <=, 1);
                    g_assert_cmpfloat(fabs(poses[i].scale / sc.truth[k].scale - 1), <=, 0.02);
                }
            }
            g_assert_true(hit);
        }
        truth_ght_scene_free(&sc);
    }
}

/* OpenCV's sample pair with the defaults: the head, confidently, and no pose on the dotted
 * rectangle or anywhere else (issue 13). */
static void
test_ref_sample_pair(void)
{
    gray pic = gray_of_file("pic1.png"), templ = gray_of_file("templ.png");
    votecl_image pv = {pic.data, pic.width, pic.height, pic.width, 1, VOTECL_DTYPE_U8};
    votecl_image tv = {templ.data, templ.width, templ.height, templ.width, 1, VOTECL_DTYPE_U8};
    votecl_ght_model *model = NULL;
    votecl_ght_pose poses[8];
    votecl_ght_params p;
    size_t found = 0;

    for (int m = 0; m < 2; m++) {
        votecl_ght_params_init(&p, m ? VOTECL_GHT_BALLARD : VOTECL_GHT_GUIL);
        g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &tv, &model), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_detect(model, &pv, poses, 8, &found), ==, VOTECL_OK);
        g_test_message("%s: %zu poses, the first (%.2f, %.2f) %.2f degrees, %.3f, "
                       "confidence %.3f",
                       m ? "Ballard" : "Guil", found, poses[0].x, poses[0].y, poses[0].angle,
                       poses[0].scale, poses[0].confidence);
        g_assert_cmpuint(found, ==, 1);
        g_assert_cmpfloat(hypot(poses[0].x - 57.5, poses[0].y - 219.5), <=, 2);
        g_assert_cmpfloat(poses[0].confidence, >=, 0.9);
        votecl_ght_model_free(model);
    }
    g_free(pic.data);
    g_free(templ.data);
}

/* --- the host stages' threads (parallel.h) --- */

/* A gray image's reference edges (sorted by bin), its capped pairings and the O space of
 * its whole pairings (L * L counts), as a detection makes them. */
static void
gray_inputs(const votecl__ght_desc *d, const gray *g, votecl__ght_edges *e,
            votecl__ght_pairs *pairs, uint32_t *o)
{
    votecl__ght_point *pts = g_new(votecl__ght_point, (size_t)g->width * g->height);
    size_t n = votecl__ght_ref_canny(d, g->data, g->width, g->height, d->p.canny_low,
                                     d->p.canny_high, pts);

    g_assert_cmpuint(n, !=, (size_t)-1);
    g_assert_cmpint(votecl__ght_edges_sort(pts, n, d->levels, e), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_ref_pairs(d, e, pairs), ==, VOTECL_OK);
    votecl__ght_ref_ospace(d, pairs, o);
    votecl__ght_pairs_cap(d, pairs);
    g_free(pts);
}

/* The template's and the image's inputs of a search. */
typedef struct search_inputs {
    votecl__ght_desc d;
    votecl__ght_edges te, ie;
    votecl__ght_pairs tp, ip;
    uint32_t *ot, *oi, w, h;
} search_inputs;

/* The reference's search of in on threads into out (the poses as it appends them), then the
 * confidences of a copy of them into conf (ranked and explained); workers: the rotation
 * search's, the fits' and the refinement's (team.workers). */
static void
threads_detect(const search_inputs *in, unsigned threads, votecl__ght_poses *out,
               votecl_ght_pose **conf, unsigned workers[3])
{
    votecl__ght_search_stats st;
    votecl__ght_conf_memo *memo = NULL;

    g_assert_cmpint(votecl__ght_guil(&in->d, NULL, in->ot, in->oi, &in->tp, &in->ip, in->w, in->h,
                                     0, 0, threads, out, &st),
                    ==, VOTECL_OK);
    *conf = g_memdup2(out->v, out->n * sizeof *out->v);
    g_assert_cmpint(votecl__ght_confidence(&in->d, &in->te, &in->ie, in->w, in->h, *conf, out->n,
                                           -1, threads, &memo),
                    ==, VOTECL_OK);
    workers[0] = st.rotation_workers;
    workers[1] = st.fit_workers;
    workers[2] = votecl__ght_conf_last(memo).workers;
    votecl__ght_conf_memo_free(memo);
}

/* OpenCV's sample pair through the search and the confidences on 1 and on 4 threads: each
 * stage ran on 4 (its work splits into at least 4 claims: 360 alpha columns, 512 kept
 * maxima, 512 poses), and the poses are the same bit for bit, those of the search in the
 * order it appends them (a fit appended as its worker finished it, a worker's scratch read
 * before it was written, a shared one, sums in the workers' order would show, in one run or
 * the next, wherever the workers run at once: the claims go to whichever worker asks first),
 * and the confidences. */
static void
test_ref_host_threads(void)
{
    gray pic = gray_of_file("pic1.png"), templ = gray_of_file("templ.png");
    search_inputs in;
    votecl_ght_params p;
    votecl__ght_poses one = {0}, many = {0};
    votecl_ght_pose *conf_one, *conf_many;
    unsigned w1[3], w4[3];
    size_t keys;

    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    votecl__ght_desc_init(&in.d, &p);
    in.d.cx = (templ.width - 1) / 2.0;
    in.d.cy = (templ.height - 1) / 2.0;
    in.w = pic.width;
    in.h = pic.height;
    keys = (size_t)in.d.levels * in.d.levels;
    in.ot = g_new(uint32_t, keys);
    in.oi = g_new(uint32_t, keys);
    gray_inputs(&in.d, &templ, &in.te, &in.tp, in.ot);
    gray_inputs(&in.d, &pic, &in.ie, &in.ip, in.oi);
    threads_detect(&in, 1, &one, &conf_one, w1);
    for (int run = 0; run < 2; run++) {
        many.n = 0;
        threads_detect(&in, 4, &many, &conf_many, w4);
        g_test_message("%zu poses; workers: rotations %u, fits %u, refinement %u (then %u %u %u)",
                       many.n, w4[0], w4[1], w4[2], w1[0], w1[1], w1[2]);
        for (int k = 0; k < 3; k++) {
            g_assert_cmpuint(w1[k], ==, 1);
            g_assert_cmpuint(w4[k], ==, 4);
        }
        g_assert_cmpuint(one.n, >=, 4 * 64);
        g_assert_cmpuint(many.n, ==, one.n);
        g_assert_cmpmem(many.v, many.n * sizeof *many.v, one.v, one.n * sizeof *one.v);
        g_assert_cmpmem(conf_many, many.n * sizeof *conf_many, conf_one, one.n * sizeof *conf_one);
        g_free(conf_many);
    }
    g_free(conf_one);
    free(one.v);
    free(many.v);
    votecl__ght_edges_clear(&in.te);
    votecl__ght_edges_clear(&in.ie);
    votecl__ght_pairs_clear(&in.tp);
    votecl__ght_pairs_clear(&in.ip);
    g_free(in.ot);
    g_free(in.oi);
    g_free(pic.data);
    g_free(templ.data);
}

/* A reference context whose VOTECL_HOST_THREADS is threads, logging under VOTECL_DEBUG. */
static votecl_context *
threads_context(const char *threads)
{
    char *saved = tu_env_set("VOTECL_HOST_THREADS", threads),
         *debug = tu_env_set("VOTECL_DEBUG", "1");
    votecl_context_options options;
    votecl_context *ctx = NULL;

    votecl_context_options_init(&options);
    options.backend = VOTECL_BACKEND_REF;
    g_assert_cmpint(votecl_context_new(&options, &ctx), ==, VOTECL_OK);
    tu_env_restore("VOTECL_HOST_THREADS", saved);
    tu_env_restore("VOTECL_DEBUG", debug);
    return ctx;
}

/* Guil's detections through the public calls under VOTECL_HOST_THREADS=1 and =4 give the
 * same poses bit for bit (confidences included): OpenCV's sample pair, and opencv_contrib's
 * scene of three overlapping copies (the third turned by 30 degrees), whose claims and hidden
 * points follow the refined poses. Run in a subprocess, whose debug log (stderr) shows that
 * the context's threads reached the rotation search, the fits and the refinement. */
static void
test_ref_threads_detect(void)
{
    if (g_test_subprocess()) {
        votecl_context *ctx[2] = {threads_context("1"), threads_context("4")};
        gray pic = gray_of_file("pic1.png"), templ = gray_of_file("templ.png");
        votecl_image pv = {pic.data, pic.width, pic.height, pic.width, 1, VOTECL_DTYPE_U8};
        votecl_image tv = {templ.data, templ.width, templ.height, templ.width, 1, VOTECL_DTYPE_U8};
        votecl_ght_pose poses[2][16];
        size_t found[2] = {0, 0};
        votecl_ght_params p;

        votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
        for (int t = 0; t < 2; t++) {
            votecl_ght_model *model = NULL;
            g_assert_cmpint(votecl_ght_model_new(ctx[t], &p, &tv, &model), ==, VOTECL_OK);
            g_assert_cmpint(votecl_ght_detect(model, &pv, poses[t], 16, &found[t]), ==, VOTECL_OK);
            votecl_ght_model_free(model);
        }
        g_assert_cmpuint(found[0], ==, 1);
        g_assert_cmpuint(found[1], ==, found[0]);
        g_assert_cmpmem(poses[1], found[1] * sizeof **poses, poses[0], found[0] * sizeof **poses);
        for (int t = 0; t < 2; t++) {
            truth_ght_scene sc;
            found[t] = contrib_detect(ctx[t], VOTECL_GHT_GUIL, 30, 1, &sc, poses[t]);
            truth_ght_scene_free(&sc);
        }
        g_assert_cmpuint(found[0], ==, 3);
        g_assert_cmpuint(found[1], ==, found[0]);
        g_assert_cmpmem(poses[1], found[1] * sizeof **poses, poses[0], found[0] * sizeof **poses);
        votecl_context_free(ctx[0]);
        votecl_context_free(ctx[1]);
        g_free(pic.data);
        g_free(templ.data);
        return;
    }
    g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed();
    g_test_trap_assert_stderr("*rotations * on 4 threads*");
    g_test_trap_assert_stderr("*fits * on 4); *");
    g_test_trap_assert_stderr("*refinement * on 4 threads*");
}

/* A crop of g: w x h at (x0, y0). */
static gray
gray_crop(const gray *g, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const char *name)
{
    gray c = {g_malloc((size_t)w * h), w, h, name};

    for (uint32_t y = 0; y < h; y++)
        memcpy(c.data + (size_t)y * w, g->data + (size_t)(y0 + y) * g->width + x0, w);
    return c;
}

/* The reference's sorted, uncapped pairings of g with the defaults. */
static void
ref_pairs_of(const votecl__ght_desc *d, const gray *g, votecl__ght_pairs *pairs)
{
    votecl__ght_point *pts = g_new(votecl__ght_point, (size_t)g->width * g->height);
    size_t n = votecl__ght_ref_canny(d, g->data, g->width, g->height, d->p.canny_low,
                                     d->p.canny_high, pts);
    votecl__ght_edges e;

    g_assert_cmpuint(n, !=, (size_t)-1);
    g_assert_cmpint(votecl__ght_edges_sort(pts, n, d->levels, &e), ==, VOTECL_OK);
    g_assert_cmpint(votecl__ght_ref_pairs(d, &e, pairs), ==, VOTECL_OK);
    votecl__ght_edges_clear(&e);
    g_free(pts);
}

/* The most (template pairing, image pairing) visits of one bin shift: sum over the
 * template's keys (t, a) of its pairings times the image's at (t + b, a), the work of S and
 * of each of D's and the matches' shifts. */
static uint64_t
max_visits(const votecl__ght_desc *d, const votecl__ght_pairs *tp, const votecl__ght_pairs *ip)
{
    uint32_t L = d->levels;
    uint64_t most = 0;

    for (uint32_t b = 0; b < L; b++) {
        uint64_t v = 0;
        for (size_t n = 0; n < tp->nkeys; n++) {
            uint32_t key = tp->keys[n], k2 = ((key / L + b) % L) * L + key % L;
            v += (uint64_t)(tp->offsets[key + 1] - tp->offsets[key]) *
                 (ip->offsets[k2 + 1] - ip->offsets[k2]);
        }
        most = v > most ? v : most;
    }
    return most;
}

/* A stage table that records the rotations (bin shifts) the search examines and gives them
 * empty S histograms, so that the search stops there. */
typedef struct rot_record {
    uint32_t b[VOTECL_GHT_MAX_LEVELS];
    size_t n;
    uint32_t scales;
} rot_record;

static votecl_status
record_sspace(void *user, size_t n, const uint32_t *b, uint64_t *hists)
{
    rot_record *r = user;

    for (size_t i = 0; i < n && r->n < G_N_ELEMENTS(r->b); i++)
        r->b[r->n++] = b[i];
    memset(hists, 0, n * r->scales * sizeof *hists);
    return VOTECL_OK;
}

/* The rotations the search examines for the whole lists tp, ip contain one within a bin of
 * shift 0 (the template lies unrotated in the image). */
static void
assert_examines_zero(const votecl__ght_desc *d, const votecl__ght_pairs *tp,
                     const votecl__ght_pairs *ip, uint32_t w, uint32_t h)
{
    size_t keys = (size_t)d->levels * d->levels;
    uint32_t *ot = g_new(uint32_t, keys), *oi = g_new(uint32_t, keys);
    rot_record *r = g_new0(rot_record, 1);
    votecl__ght_stages st = {record_sspace, NULL, NULL, r};
    votecl__ght_poses poses = {0};
    int near = 0;

    r->scales = d->scales;
    votecl__ght_ref_ospace(d, tp, ot);
    votecl__ght_ref_ospace(d, ip, oi);
    g_assert_cmpint(votecl__ght_guil(d, &st, ot, oi, tp, ip, w, h, 0, 0, 0, &poses, NULL), ==,
                    VOTECL_OK);
    for (size_t i = 0; i < r->n; i++)
        near |= r->b[i] <= 1 || r->b[i] + 1 >= d->levels;
    g_test_message("large template: %zu rotations examined, one within a bin of 0: %d", r->n, near);
    g_assert_true(near);
    free(poses.v);
    g_free(ot);
    g_free(oi);
    g_free(r);
}

/* The issue's large template (a 324x223 photograph in a 512x384 scene, here crops of
 * building.png): the cap per key bounds the S, D and match stages' visits per bin shift by
 * the template's keys times (about) cap^2 and cuts them to a third of the whole lists'
 * (about 10^8), and the rotation search examines 0 degrees (where the crop lies; before the
 * floor per alpha column, 16 arbitrary rotations). Not asserted: the detection itself
 * (minutes on the reference; it finds the crop, docs/performance.md). */
static void
test_ref_large_template(void)
{
    gray b = gray_of_file("building.png");
    gray sc = gray_crop(&b, 200, 120, 512, 384, "scene"),
         tg = gray_crop(&sc, 100, 80, 324, 223, "template");
    votecl_ght_params p;
    votecl__ght_desc d;
    votecl__ght_pairs tp, ip;
    uint64_t whole, capped, bound;
    uint32_t most = 0;

    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    votecl__ght_desc_init(&d, &p);
    ref_pairs_of(&d, &tg, &tp);
    ref_pairs_of(&d, &sc, &ip);
    whole = max_visits(&d, &tp, &ip);
    assert_examines_zero(&d, &tp, &ip, sc.width, sc.height);
    votecl__ght_pairs_cap(&d, &tp);
    votecl__ght_pairs_cap(&d, &ip);
    capped = max_visits(&d, &tp, &ip);
    for (size_t k = 0; k < (size_t)d.levels * d.levels; k++) {
        uint32_t c = ip.offsets[k + 1] - ip.offsets[k], t = tp.offsets[k + 1] - tp.offsets[k];
        most = c > most ? c : most;
        most = t > most ? t : most;
    }
    bound = (uint64_t)tp.nkeys * (2 * VOTECL__GHT_KEY_CAP) * (2 * VOTECL__GHT_KEY_CAP);
    g_test_message("large template: %zu x %zu capped pairings, at most %u a key; visits per "
                   "shift at most %" G_GUINT64_FORMAT " (whole lists %" G_GUINT64_FORMAT
                   "), bound %" G_GUINT64_FORMAT,
                   tp.n, ip.n, most, capped, whole, bound);
    g_assert_cmpuint(most, <=, 2 * VOTECL__GHT_KEY_CAP);
    g_assert_cmpuint(capped, <=, bound);
    g_assert_cmpuint(capped * 2, <, whole); /* measured: 2.9e7 against 9.0e7 */
    votecl__ght_pairs_clear(&tp);
    votecl__ght_pairs_clear(&ip);
    g_free(b.data);
    g_free(sc.data);
    g_free(tg.data);
}

/* Defaults on truth scenes: the device's poses equal the reference's, confidences included. */
static void
test_opencl_truth_equal(void)
{
    truth_ght_image t[TRUTH_GHT_SHAPES];
    votecl_ght_params p;

    if (device() == NULL)
        return;
    truth_templates(t);
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    for (size_t i = 0; i < 2; i++) {
        truth_ght_scene sc;
        votecl_ght_model *rm = NULL, *dm = NULL;
        votecl_ght_pose rp[16], dp[16];
        size_t rn = 0, dn = 0;
        votecl_image tv, sv;
        g_assert_cmpint(truth_ght_scene_make(TRUTH_GHT_CLUTTER, 7, i, t, 400, 300, &sc), ==, 0);
        tv = truth_view(&t[sc.shape]);
        sv = truth_view(&sc.image);
        g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &tv, &rm), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_model_new(device(), &p, &tv, &dm), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_detect(rm, &sv, rp, 16, &rn), ==, VOTECL_OK);
        g_assert_cmpint(votecl_ght_detect(dm, &sv, dp, 16, &dn), ==, VOTECL_OK);
        g_assert_cmpuint(dn, ==, rn);
        g_assert_cmpuint(rn, >, 0);
        assert_poses_equal(dp, rp, rn < 16 ? rn : 16);
        votecl_ght_model_free(rm);
        votecl_ght_model_free(dm);
        truth_ght_scene_free(&sc);
    }
    truth_free(t);
}

/* opencv_contrib's scene (plain, and its third copy turned by 30 degrees) on the device: the
 * poses equal the reference's, confidences included (the hidden points, the rounds of
 * judging and the S histograms over bin shifts run alike). */
static void
test_opencl_contrib_equal(void)
{
    static const struct {
        votecl_ght_method method;
        double angle;
    } cases[] = {{VOTECL_GHT_BALLARD, 0}, {VOTECL_GHT_GUIL, 0}, {VOTECL_GHT_GUIL, 30}};

    if (device() == NULL)
        return;
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        truth_ght_scene rs, ds;
        votecl_ght_pose rp[16], dp[16];
        size_t rn = contrib_detect(tu_ref_context, cases[c].method, cases[c].angle, 1, &rs, rp);
        size_t dn = contrib_detect(device(), cases[c].method, cases[c].angle, 1, &ds, dp);
        g_assert_cmpuint(rn, ==, 3);
        g_assert_cmpuint(dn, ==, rn);
        assert_poses_equal(dp, rp, rn);
        truth_ght_scene_free(&rs);
        truth_ght_scene_free(&ds);
    }
}

/* The overlap families (tests/truth-ght.h; `votecl eval ght` and `--method ballard` run them
 * at any size): 12 scenes each, seed 1, 400x300, the defaults. Slow (20 s on the
 * reference): -m slow. Floors at or below the figures measured when written (docs/accuracy.md:
 * upright, both methods, 99% of the instances and 0.025 false poses a scene on 40 scenes). */
static void
test_ref_overlap_suite(void)
{
    truth_ght_image t[TRUTH_GHT_SHAPES];
    static const struct {
        truth_ght_family family;
        votecl_ght_method method;
        double recall;
    } runs[] = {{TRUTH_GHT_OVERLAP_UPRIGHT, VOTECL_GHT_BALLARD, 0.95},
                {TRUTH_GHT_OVERLAP_UPRIGHT, VOTECL_GHT_GUIL, 0.95},
                {TRUTH_GHT_OVERLAP, VOTECL_GHT_GUIL, 0.9}};

    if (!g_test_slow()) {
        g_test_skip("the overlap families: -m slow");
        return;
    }
    truth_templates(t);
    for (size_t r = 0; r < G_N_ELEMENTS(runs); r++) {
        votecl_ght_model *models[TRUTH_GHT_SHAPES];
        votecl_ght_params p;
        size_t instances = 0, found_true = 0, false_poses = 0, scenes = 12;
        votecl_ght_params_init(&p, runs[r].method);
        for (int s = 0; s < TRUTH_GHT_SHAPES; s++) {
            votecl_image v = truth_view(&t[s]);
            g_assert_cmpint(votecl_ght_model_new(tu_ref_context, &p, &v, &models[s]), ==,
                            VOTECL_OK);
        }
        for (size_t i = 0; i < scenes; i++) {
            truth_ght_scene sc;
            truth_ght_score score;
            size_t found;
            g_assert_cmpint(truth_ght_scene_make(runs[r].family, 1, i, t, 400, 300, &sc), ==, 0);
            truth_detect(models[sc.shape], &sc, &score, &found);
            instances += sc.n;
            found_true += score.found;
            false_poses += score.false_poses;
            truth_ght_scene_free(&sc);
        }
        g_test_message("%s, %s: %zu of %zu instances, %zu false poses in %zu scenes",
                       truth_ght_family_name(runs[r].family),
                       runs[r].method == VOTECL_GHT_GUIL ? "Guil" : "Ballard", found_true,
                       instances, false_poses, scenes);
        g_assert_cmpfloat((double)found_true, >=, runs[r].recall * (double)instances);
        if (truth_ght_family_upright(runs[r].family))
            g_assert_cmpuint(false_poses * 10, <=, scenes);
        for (int s = 0; s < TRUTH_GHT_SHAPES; s++)
            votecl_ght_model_free(models[s]);
    }
    truth_free(t);
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/ght/guil-synthetic", {test_ref_guil_synthetic}},
    {TU_PATH, "/ref/ght/ballard-synthetic", {test_ref_ballard_synthetic}},
    {TU_PATH, "/ref/ght/truth-suite", {test_ref_truth_suite}},
    {TU_PATH, "/ref/ght/issue-rotated", {test_ref_issue_rotated}},
    {TU_PATH, "/ref/ght/sample-pair", {test_ref_sample_pair}},
    {TU_PATH, "/ref/ght/contrib-scene", {test_ref_contrib_scene}},
    {TU_PATH, "/ref/ght/host-threads", {test_ref_host_threads}},
    {TU_PATH, "/ref/ght/threads-detect", {test_ref_threads_detect}},
    {TU_PATH, "/ref/ght/overlap-suite", {test_ref_overlap_suite}},
    {TU_PATH, "/ref/ght/large-template", {test_ref_large_template}},
    {TU_PATH, "/ref/ght/degenerate", {test_ref_degenerate}},
    {TU_PATH, "/ref/ght/unrotated", {test_ref_unrotated}},
    {TU_PATH, "/ref/ght/bad-args", {test_ref_bad_args}},
    {TU_PATH, "/ref/ght/host-canny", {test_ref_host_canny}},
    {TU_PATH, "/ref/ght/host-bins", {test_ref_host_bins}},
    {TU_PATH, "/ref/ght/host-ballard", {test_ref_host_ballard}},
    {TU_PATH, "/ref/ght/confidence-summary", {test_ref_confidence_summary}},
    {TU_PATH, "/ref/ght/confidence-border", {test_ref_confidence_border}},
    {TU_PATH, "/ref/ght/memory-limit", {test_ref_memory_limit}},
    {TU_PATH, "/ref/ght/fit-order", {test_ref_fit_order}},
    {TU_DEVICE, "ght/guil-spaces", {test_opencl_guil_spaces}},
    {TU_DEVICE, "ght/guil-window", {test_opencl_guil_window}},
    {TU_DEVICE, "ght/unrotated", {test_opencl_unrotated}},
    {TU_DEVICE, "ght/ballard-space", {test_opencl_ballard_space}},
    {TU_DEVICE, "ght/detect-equal", {test_opencl_detect_equal}},
    {TU_DEVICE, "ght/no-fp64", {test_opencl_no_fp64}},
    {TU_DEVICE, "ght/small-groups", {test_opencl_small_groups}},
    {TU_DEVICE, "ght/front-edges", {test_opencl_front_edges}},
    {TU_DEVICE, "ght/front-pairs", {test_opencl_front_pairs}},
    {TU_DEVICE, "ght/length-order", {test_opencl_length_order}},
    {TU_DEVICE, "ght/front-ballard", {test_opencl_front_ballard}},
    {TU_DEVICE, "ght/ballard-stages", {test_opencl_ballard_stages}},
    {TU_DEVICE, "ght/ballard-again", {test_opencl_ballard_again}},
    {TU_DEVICE, "ght/front-degenerate", {test_opencl_front_degenerate}},
    {TU_DEVICE, "ght/front-stats", {test_opencl_front_stats}},
    {TU_DEVICE, "ght/front-caller-edges", {test_opencl_front_caller_edges}},
    {TU_DEVICE, "ght/truth-equal", {test_opencl_truth_equal}},
    {TU_DEVICE, "ght/memory-batches", {test_opencl_memory_batches}},
    {TU_DEVICE, "ght/guil-batches", {test_opencl_guil_batches}},
    {TU_DEVICE, "ght/contrib-equal", {test_opencl_contrib_equal}},
    {TU_PATH, "/opencv/ght/ballard", {test_opencv_ballard}},
    {TU_PATH, "/opencv/ght/guil", {test_opencv_guil}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
