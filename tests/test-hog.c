/* HOG descriptors and the people detector.
 *
 * /ref/hog/...     the reference (the 'ref' backend, lib/hog-ref.c) against OpenCV: descriptors
 *                  of cv2.HOGDescriptor.compute on camera.png, astronaut.png (python3-skimage)
 *                  and tools/images/basketball1.png, gray and colour, and the descriptor
 *                  families of tests/truth-hog.h (saturated colours, equal-magnitude
 *                  channels, gray in RGB), largest absolute difference at most 1e-3;
 *                  OpenCV's channel choice on ties; boxes of detectMultiScale (winStride 8,
 *                  padding 0, scale 1.05, groupThreshold 2) equal box for box with the
 *                  defaults on basketball1.png and generated people scenes; the model
 *                  format (shipped people detector, malformed files, round trip); bad input
 *                  (smaller than a window, 1x1, odd sizes, ROIs outside, wrong model length,
 *                  block_norm, binning); scikit-image's hard bins and block norms against
 *                  their rules. The OpenCV tests run tests/hog-opencv.py and skip without
 *                  python3-opencv.
 * /opencl/hog/...  the device stages against the reference: descriptors (stages 2-5, margin
 *                  1e-4 absolute) and every window score of every pyramid level (stages 1-6,
 *                  margin 1e-3 absolute) on random images of odd sizes, gray and colour, with
 *                  padding, every block norm and binning on both kernel sets; the block
 *                  kernels' scores bit for bit in hog_svm_all's order (svm-order);
 *                  detection against OpenCV; begin/end and several detectors. */
#include "votecl-private.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hog-detector.h"
#include "truth-hog.h"

static votecl_context *
device(void)
{
    return tu_device_shared();
}

/* --- OpenCV fixtures --- */

typedef struct fixture {
    int32_t width, height, channels, count, length;
    uint8_t *pixels;
    void *data; /* descriptors (float) or boxes (int32 x 4) */
} fixture;

static const char *
python(void)
{
    const char *p = g_getenv("VOTECL_TEST_PYTHON");

    if (p != NULL)
        return p;
    return g_file_test("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE) ? "/usr/bin/python3"
                                                                      : "python3";
}

/* Runs the oracle with args; 0 and a loaded fixture, or -1 after skipping the test. */
static int
oracle(const char *const *args, fixture *f)
{
    const char *srcdir = g_getenv("VOTECL_TEST_SRCDIR");
    char *dir = tu_mkdtemp(), *out = g_build_filename(dir, "fixture.bin", NULL);
    char *script, *argv[12], *contents = NULL;
    int status = 0, n = 0;
    gsize size = 0;
    GError *error = NULL;

    if (srcdir == NULL) {
        g_test_skip("VOTECL_TEST_SRCDIR is not set (run through make check)");
        return -1;
    }
    script = g_build_filename(srcdir, "hog-opencv.py", NULL);
    argv[n++] = (char *)python();
    argv[n++] = script;
    for (; *args != NULL; args++)
        argv[n++] = (char *)*args;
    argv[n++] = out;
    argv[n] = NULL;
    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                      NULL, NULL, NULL, &status, &error) ||
        !g_spawn_check_wait_status(status, NULL) ||
        !g_file_get_contents(out, &contents, &size, NULL)) {
        g_test_skip("python3-opencv (or python3-skimage) is not available");
        g_clear_error(&error);
        n = -1;
    } else {
        memcpy(&f->width, contents, 20);
        f->pixels = (uint8_t *)contents + 20;
        size_t offset = 20 + (size_t)f->width * f->height * f->channels;
        g_assert_cmpuint(size, >=, offset);
        /* its own allocation: after the pixels the floats or int32s are not 4-byte aligned */
        f->data = g_memdup2(contents + offset, size - offset + 1);
        n = 0;
    }
    tu_rmtree(dir);
    g_free(out);
    g_free(dir);
    g_free(script);
    if (n != 0)
        g_free(contents);
    return n;
}

static void
fixture_free(fixture *f)
{
    if (f->pixels != NULL)
        g_free(f->pixels - 20);
    g_free(f->data);
}

static votecl_image
fixture_view(const fixture *f)
{
    votecl_image v = {f->pixels, (size_t)f->width, (size_t)f->height,
                      (size_t)f->width * f->channels, (unsigned)f->channels, VOTECL_DTYPE_U8};
    return v;
}

static char *
image_path(const char *name)
{
    if (strncmp(name, "skimage:", 8) == 0 || g_path_is_absolute(name))
        return g_strdup(name);
    return g_build_filename(g_getenv("VOTECL_TEST_SRCDIR"), "..", "tools", "images", name,
                            NULL);
}

/* Descriptors of ctx against OpenCV's for one image, mode, stride and padding. */
static void
check_descriptors(votecl_context *ctx, const char *name, const char *mode, unsigned stride,
                  unsigned padding)
{
    char *path = image_path(name), s[16], p[16];
    const char *args[] = {"compute", path, mode, s, p, NULL};
    fixture f = {0};
    votecl_hog_params params;
    votecl_hog *hog = NULL;
    float *d;
    size_t count = 0;
    double worst = 0;

    snprintf(s, sizeof s, "%u", stride);
    snprintf(p, sizeof p, "%u", padding);
    if (oracle(args, &f) != 0) {
        g_free(path);
        return;
    }
    votecl_hog_params_init(&params);
    params.window_stride_x = params.window_stride_y = stride;
    params.padding_x = params.padding_y = padding;
    g_assert_cmpint(votecl_hog_new(ctx, &params, NULL, &hog), ==, VOTECL_OK);
    d = g_malloc((size_t)f.count * f.length * sizeof *d);
    votecl_image view = fixture_view(&f);
    g_assert_cmpint(votecl_hog_compute(hog, &view, d, (size_t)f.count * f.length, &count), ==,
                    VOTECL_OK);
    g_assert_cmpuint(count, ==, (size_t)f.count);
    for (size_t i = 0; i < count * f.length; i++)
        worst = fmax(worst, fabs(d[i] - ((const float *)f.data)[i]));
    g_test_message("%s %s stride %u padding %u: %zu windows, largest |difference| %.3g",
                   name, mode, stride, padding, count, worst);
    g_printerr("# descriptors %s %s stride %u padding %u: %zu windows, max |diff| %.3g\n",
               name, mode, stride, padding, count, worst);
    g_assert_cmpfloat(worst, <=, 1e-3);
    g_free(d);
    votecl_hog_free(hog);
    fixture_free(&f);
    g_free(path);
}

static void
descriptors_all(votecl_context *ctx)
{
    static const char *const images[] = {"skimage:camera.png", "skimage:astronaut.png",
                                          "basketball1.png"};

    for (int i = 0; i < 3; i++) {
        check_descriptors(ctx, images[i], "gray", 16, 0);
        check_descriptors(ctx, images[i], "colour", 16, 0);
        if (g_test_failed())
            return;
    }
    check_descriptors(ctx, "basketball1.png", "colour", 8, 0);
    check_descriptors(ctx, "basketball1.png", "gray", 8, 16);
}

/* Writes c as a binary PPM in dir; returns the path (owned). */
static char *
write_ppm(const char *dir, const truth_hog_case *c)
{
    char *path = g_strdup_printf("%s/%s.ppm", dir, c->name);
    FILE *f = fopen(path, "wb");

    g_assert_nonnull(f);
    fprintf(f, "P6\n%u %u\n255\n", c->width, c->height);
    g_assert_cmpuint(fwrite(c->rgb, 3, (size_t)c->width * c->height, f), ==,
                     (size_t)c->width * c->height);
    g_assert_cmpint(fclose(f), ==, 0);
    return path;
}

/* The descriptor families of tests/truth-hog.h (saturated colours, equal-magnitude channels,
 * gray in RGB; odd widths), first case of each, at stride 8: within 1e-3 of OpenCV's. */
static void
descriptors_truth(votecl_context *ctx)
{
    char *dir = tu_mkdtemp();

    for (const truth_hog_family *f = truth_hog_families(); f->name && !g_test_failed(); f++) {
        truth_hog_case c;
        char *path;

        if (f->people)
            continue;
        g_assert_cmpint(f->make(&c, 0, 7, NULL), ==, 0);
        path = write_ppm(dir, &c);
        check_descriptors(ctx, path, "colour", 8, 0);
        g_free(path);
        truth_hog_case_clear(&c);
    }
    tu_rmtree(dir);
    g_free(dir);
}

static void
test_ref_descriptors(void)
{
    descriptors_all(tu_ref_context);
    if (!g_test_failed())
        descriptors_truth(tu_ref_context);
}

static void
test_opencl_descriptors(void)
{
    if (device() != NULL) {
        descriptors_all(device());
        if (!g_test_failed())
            descriptors_truth(device());
    }
}

/* --- detection against OpenCV --- */

/* OpenCV's boxes for the image at path against the library's with its defaults (grouping):
 * every box equal (x, y, width, height), none extra. The fixture's pixels go to *source
 * when not NULL (owned by the caller: fixture_free). */
static void
check_detect(votecl_context *ctx, const char *name, fixture *source)
{
    char *path = image_path(name);
    const char *args[] = {"detect", path, NULL};
    fixture f = {0};
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = NULL;
    votecl_hog_detection det[64];
    truth_hog_box found_boxes[64];
    truth_hog_score_t score = {0};
    size_t found = 0;

    if (oracle(args, &f) != 0) {
        g_free(path);
        return;
    }
    votecl_hog_params_init(&params);
    g_assert_cmpint(votecl_hog_model_people(ctx, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(ctx, &params, model, &hog), ==, VOTECL_OK);
    votecl_image view = fixture_view(&f);
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, det, 64, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, <=, 64);
    for (size_t k = 0; k < found; k++) {
        found_boxes[k].x = det[k].box.x;
        found_boxes[k].y = det[k].box.y;
        found_boxes[k].width = det[k].box.width;
        found_boxes[k].height = det[k].box.height;
    }
    truth_hog_score((const truth_hog_box *)f.data, (size_t)f.count, found_boxes, found, &score);
    g_printerr("# %s: OpenCV %d boxes, libvotecl %zu, equal %zu\n", name, f.count, found,
               score.equal);
    g_assert_cmpuint(score.equal, ==, (size_t)f.count);
    g_assert_cmpuint(found, ==, (size_t)f.count);
    votecl_hog_free(hog);
    votecl_hog_model_free(model);
    if (source != NULL)
        *source = f;
    else
        fixture_free(&f);
    g_free(path);
}

/* basketball1.png, then people scenes of tests/truth-hog.h pasting its left player. */
static void
detect_all(votecl_context *ctx, size_t scenes)
{
    fixture b = {0};
    char *dir;

    check_detect(ctx, "basketball1.png", &b);
    if (b.pixels == NULL || g_test_failed() || b.channels != 3)
        goto out;
    truth_hog_source src = {b.pixels, (uint32_t)b.width, (uint32_t)b.height, 15, 60, 160, 420};
    dir = tu_mkdtemp();
    for (size_t i = 0; i < scenes && !g_test_failed(); i++) {
        truth_hog_case c;
        char *path;

        g_assert_cmpint(truth_hog_family_find("people")->make(&c, i, 11 + i, &src), ==, 0);
        path = write_ppm(dir, &c);
        check_detect(ctx, path, NULL);
        g_free(path);
        truth_hog_case_clear(&c);
    }
    tu_rmtree(dir);
    g_free(dir);
out:
    fixture_free(&b);
}

static void
test_ref_detect(void)
{
    detect_all(tu_ref_context, 2);
}

static void
test_opencl_detect(void)
{
    if (device() != NULL) {
        detect_all(device(), 3);
        if (!g_test_failed())
            check_detect(device(), "skimage:astronaut.png", NULL);
    }
}

/* --- device stages against the reference --- */

static uint8_t *
random_image(tu_rng *rng, size_t w, size_t h, unsigned ch)
{
    uint8_t *p = g_malloc(w * h * ch);

    /* smooth-ish content: random blocks plus noise, so that gradients are not all extreme */
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w * ch; x++)
            p[y * w * ch + x] = (uint8_t)(((x / 7 + y / 5) * 37 % 200) + tu_rng_below(rng, 56));
    return p;
}

/* ctx's descriptors of view (stages 2-5, margin 1e-4: sqrt and division may differ by ulps)
 * and every window score of every pyramid level (stages 1-6, margin 1e-3) against the
 * reference's for params (every window kept) and model; told with label. The windows kept. */
static size_t
device_equal_params(votecl_context *ctx, const votecl_hog_params *params,
                    const votecl_hog_model *model, const votecl_image *image, const char *label)
{
    votecl_hog *a = NULL, *b = NULL;
    votecl_image view = *image;
    size_t w = view.width, h = view.height, length, na = 0, nb = 0, found;
    float *da, *db;
    votecl_hog_detection *wa, *wb;
    double worst = 0;

    g_assert_cmpint(votecl_hog_new(tu_ref_context, params, model, &a), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(ctx, params, model, &b), ==, VOTECL_OK);
    /* the context's shape picks the kernels: the row kernels where it is CPU-shaped (and the
     * work-group limit holds a row's 64 work-items), on OpenCL (8-wide vectors: no CUDA) */
    g_assert_cmpint(votecl__hog_cpu_rows(b), ==,
                    ctx->shape.cpu && ctx->backend == VOTECL_BACKEND_OPENCL &&
                        ctx->info.max_work_group_size >= 64);
    /* stages 2-5: descriptors at scale 1 */
    g_assert_cmpint(votecl_hog_windows(a, w, h, &na, &nb), ==, VOTECL_OK);
    votecl_hog_descriptor_length(params, &length);
    da = g_malloc(na * nb * length * sizeof *da);
    db = g_malloc(na * nb * length * sizeof *db);
    g_assert_cmpint(votecl_hog_compute(a, &view, da, na * nb * length, &found), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_compute(b, &view, db, na * nb * length, &found), ==, VOTECL_OK);
    for (size_t i = 0; i < na * nb * length; i++)
        worst = fmax(worst, fabs(da[i] - db[i]));
    g_assert_cmpfloat(worst, <=, 1e-4);
    /* stages 1-6: every window score of every level */
    g_assert_cmpint(votecl_hog_detect(a, &view, NULL, 0, NULL, 0, &na), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect(b, &view, NULL, 0, NULL, 0, &nb), ==, VOTECL_OK);
    g_assert_cmpuint(na, ==, nb);
    wa = g_malloc((na + 1) * sizeof *wa);
    wb = g_malloc((nb + 1) * sizeof *wb);
    votecl_hog_last_windows(a, wa, na, &na);
    votecl_hog_last_windows(b, wb, nb, &nb);
    for (size_t i = 0; i < na; i++) {
        g_assert_cmpint(wa[i].box.x, ==, wb[i].box.x);
        g_assert_cmpint(wa[i].box.y, ==, wb[i].box.y);
        g_assert_cmpint(wa[i].box.width, ==, wb[i].box.width);
        g_assert_cmpfloat(fabs(wa[i].score - wb[i].score), <=, 1e-3);
    }
    g_printerr("# device %zux%zu ch %u %s (%s kernels): descriptors max |diff| %.3g, %zu "
               "windows\n",
               w, h, view.channels, label, votecl__hog_cpu_rows(b) ? "row" : "block", worst, na);
    g_free(wa), g_free(wb), g_free(da), g_free(db);
    votecl_hog_free(a);
    votecl_hog_free(b);
    return na;
}

static size_t
device_equal_on(votecl_context *ctx, size_t w, size_t h, unsigned ch, unsigned padding)
{
    tu_rng rng;
    uint8_t *px;
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_image view;
    char label[32];
    size_t kept;

    tu_rng_init(&rng, 1234 + w * 7 + h + ch);
    px = random_image(&rng, w, h, ch);
    view = (votecl_image){px, w, h, w * ch, ch, VOTECL_DTYPE_U8};
    votecl_hog_params_init(&params);
    params.padding_x = params.padding_y = padding;
    params.fusion = VOTECL_HOG_FUSION_NONE;
    params.hit_threshold = -1e30;
    g_assert_cmpint(votecl_hog_model_people(tu_ref_context, &model), ==, VOTECL_OK);
    snprintf(label, sizeof label, "padding %u", padding);
    kept = device_equal_params(ctx, &params, model, &view, label);
    g_free(px);
    votecl_hog_model_free(model);
    return kept;
}

static void
device_equal_one(size_t w, size_t h, unsigned ch, unsigned padding)
{
    device_equal_on(device(), w, h, ch, padding);
}

/* More windows kept than the block kernels' hits bring back in their one read (HOG_HITS of
 * lib/hog-detector.h, 1024): every score read back instead. */
static void
device_equal_many(votecl_context *ctx)
{
    g_assert_cmpuint(device_equal_on(ctx, 160, 240, 1, 16), >, 1024);
}

static void
test_opencl_stages(void)
{
    if (device() == NULL)
        return;
    device_equal_one(64, 128, 1, 0);
    device_equal_one(97, 151, 3, 0);
    device_equal_one(131, 173, 1, 16);
    device_equal_one(160, 200, 4, 8);
    device_equal_many(device());
}

/* Every block norm and both binnings against the reference, each norm with one binning (a
 * program each): L1 with hard binning in 4 bins (axes and diagonals lie on bin boundaries),
 * L1-sqrt trilinear in colour, L2 hard in colour with padding, L2-Hys hard with a whole
 * threshold (1: a define the kernels once failed to build); L2-Hys trilinear: the tests
 * above. A model of the geometry's length scores the windows. Hard binning without gamma:
 * integer differences, the same on every device, so a bin never depends on how a device
 * rounds a square root (the row kernels take sqrt on the device). */
static void
norms_equal_on(votecl_context *ctx)
{
    static const struct {
        votecl_hog_block_norm norm;
        votecl_hog_binning binning;
        unsigned nbins, ch, padding;
        float l2hys;
    } cases[] = {
        {VOTECL_HOG_NORM_L1, VOTECL_HOG_BINNING_HARD, 4, 1, 0, 0.2f},
        {VOTECL_HOG_NORM_L1_SQRT, VOTECL_HOG_BINNING_TRILINEAR, 9, 3, 0, 0.2f},
        {VOTECL_HOG_NORM_L2, VOTECL_HOG_BINNING_HARD, 9, 3, 8, 0.2f},
        {VOTECL_HOG_NORM_L2HYS, VOTECL_HOG_BINNING_HARD, 6, 1, 0, 1.0f},
    };
    tu_rng rng;

    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        votecl_hog_params params;
        votecl_hog_model *model = NULL;
        size_t length;
        float *w;
        uint8_t *px;
        votecl_image view;
        char label[48];

        votecl_hog_params_init(&params);
        params.block_norm = cases[c].norm;
        params.binning = cases[c].binning;
        params.nbins = cases[c].nbins;
        params.l2hys_threshold = cases[c].l2hys;
        params.gamma = cases[c].binning != VOTECL_HOG_BINNING_HARD;
        params.padding_x = params.padding_y = cases[c].padding;
        params.fusion = VOTECL_HOG_FUSION_NONE;
        params.hit_threshold = -1e30;
        g_assert_cmpint(votecl_hog_descriptor_length(&params, &length), ==, VOTECL_OK);
        w = g_malloc(length * sizeof *w);
        for (size_t i = 0; i < length; i++)
            w[i] = 0.05f * sinf(0.37f * (float)i);
        g_assert_cmpint(votecl_hog_model_new(tu_ref_context, &params, w, length, -0.5f, &model), ==,
                        VOTECL_OK);
        tu_rng_init(&rng, 77 + c);
        px = random_image(&rng, 97, 151, cases[c].ch);
        view = (votecl_image){px, 97, 151, 97 * cases[c].ch, cases[c].ch, VOTECL_DTYPE_U8};
        snprintf(label, sizeof label, "norm %d binning %d bins %u", (int)cases[c].norm,
                 (int)cases[c].binning, cases[c].nbins);
        device_equal_params(ctx, &params, model, &view, label);
        votecl_hog_model_free(model);
        g_free(w);
        g_free(px);
    }
}

static void
test_opencl_norms(void)
{
    if (device() != NULL)
        norms_equal_on(device());
}

/* A context of the shape the device would not pick (VOTECL_FORCE_SHAPE): HOG's CPU row
 * kernels on a GPU, its block kernels (local memory, barriers) on a CPU; NULL without a
 * device. */
static votecl_context *
other_shape_context(void)
{
    votecl_context *ctx;
    char *saved;

    if (device() == NULL)
        return NULL;
    saved = tu_env_set("VOTECL_FORCE_SHAPE", device()->shape.cpu ? "gpu" : "cpu");
    ctx = tu_device_context_new(NULL);
    tu_env_restore("VOTECL_FORCE_SHAPE", saved);
    if (ctx != NULL)
        g_assert_cmpint(ctx->shape.cpu, !=, device()->shape.cpu);
    return ctx;
}

/* The other shape's kernels against the reference. */
static void
test_opencl_stages_other_shape(void)
{
    votecl_context *ctx = other_shape_context();

    if (ctx == NULL)
        return;
    device_equal_on(ctx, 97, 151, 3, 0);
    device_equal_on(ctx, 131, 173, 1, 16);
    device_equal_many(ctx);
    votecl_context_free(ctx);
}

/* The norms and binnings on the other shape's kernels. */
static void
test_opencl_norms_other_shape(void)
{
    votecl_context *ctx = other_shape_context();

    if (ctx == NULL)
        return;
    norms_equal_on(ctx);
    votecl_context_free(ctx);
}

/* A window's score as the block kernels sum it (cl/hog.cl's hog_svm_all, whatever windows a
 * work-group scores together): lane l of local sums w[k] d[k], k = l, l + local, ... in
 * order, the lanes' sums then added by halving (v[i] += v[i + n], n = local / 2, ..., 1);
 * local 1: block by block, each block's products summed first. */
static float
svm_lanes_score(const float *w, const float *d, size_t length, unsigned block_len, unsigned local,
                float bias)
{
    float v[64] = {0}, s = 0;

    g_assert_cmpuint(local, <=, 64);
    if (local == 1) {
        for (size_t b = 0; b < length; b += block_len) {
            float t = 0;

            for (size_t e = 0; e < block_len; e++)
                t += w[b + e] * d[b + e];
            s += t;
        }
        return bias + s;
    }
    for (unsigned l = 0; l < local; l++)
        for (size_t k = l; k < length; k += local)
            v[l] += w[k] * d[k];
    for (unsigned n = local / 2; n > 0; n /= 2)
        for (unsigned i = 0; i < n; i++)
            v[i] += v[i + n];
    return bias + v[0];
}

/* The block kernels' scores, bit for bit, are the lanes' sums of the detector's own
 * descriptors in the kernel's order (svm_lanes_score), so that a change of hog_svm_all (its
 * windows scored together, its reduction) cannot change a score unseen by the reference's
 * margin: one level of 11 x 10 windows, rows not a multiple of the windows a work-group
 * scores (batches across rows, the last one short), every window kept. On the GPU-shaped
 * context (the other shape on a CPU device). */
static void
test_opencl_svm_order(void)
{
    votecl_context *ctx =
        device() != NULL && !device()->shape.cpu ? device() : other_shape_context();
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = NULL;
    votecl_hog_detection *win;
    votecl_image view;
    tu_rng rng;
    uint8_t *px;
    size_t length, nx, ny, found, n;
    const float *w;
    float bias, *d;

    if (ctx == NULL)
        return;
    tu_rng_init(&rng, 4242);
    px = random_image(&rng, 150, 200, 3);
    view = (votecl_image){px, 150, 200, 450, 3, VOTECL_DTYPE_U8};
    votecl_hog_params_init(&params);
    params.scale = 1;
    params.fusion = VOTECL_HOG_FUSION_NONE;
    params.hit_threshold = -1e30;
    g_assert_cmpint(votecl_hog_model_people(ctx, &model), ==, VOTECL_OK);
    votecl_hog_model_get(model, &length, &w, &bias);
    g_assert_cmpint(votecl_hog_new(ctx, &params, model, &hog), ==, VOTECL_OK);
    g_assert_false(votecl__hog_cpu_rows(hog));
    g_assert_cmpint(votecl_hog_windows(hog, 150, 200, &nx, &ny), ==, VOTECL_OK);
    g_assert_cmpuint(nx * ny, ==, 110);
    d = g_malloc(nx * ny * length * sizeof *d);
    g_assert_cmpint(votecl_hog_compute(hog, &view, d, nx * ny * length, &found), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, NULL, 0, &n), ==, VOTECL_OK);
    g_assert_cmpuint(n, ==, nx * ny);
    win = g_malloc(n * sizeof *win);
    g_assert_cmpint(votecl_hog_last_windows(hog, win, n, &n), ==, VOTECL_OK);
    for (size_t i = 0; i < n; i++) {
        size_t at = (size_t)win[i].box.y / 8 * nx + (size_t)win[i].box.x / 8;
        float want =
            svm_lanes_score(w, d + at * length, length, hog->geom.block_len, hog->local, bias);

        g_assert_cmpfloat((float)win[i].score, ==, want);
    }
    g_printerr("# %zu window scores bit for bit (work-groups of %u)\n", n, hog->local);
    g_free(win), g_free(d), g_free(px);
    votecl_hog_free(hog);
    votecl_hog_model_free(model);
    if (ctx != device())
        votecl_context_free(ctx);
}

/* begin/end equals detect; several detectors spread ROIs and give the same boxes. */
static void
test_opencl_async(void)
{
    tu_rng rng;
    uint8_t *px;
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_hog *h[2] = {NULL, NULL};
    votecl_hog_rect rois[3] = {{0, 0, 100, 160}, {50, 20, 120, 180}, {100, 60, 100, 140}};
    votecl_hog_detection d1[256], d2[256];
    size_t n1 = 0, n2 = 0;
    votecl_image view;

    if (device() == NULL)
        return;
    tu_rng_init(&rng, 99);
    px = random_image(&rng, 200, 200, 3);
    view = (votecl_image){px, 200, 200, 600, 3, VOTECL_DTYPE_U8};
    votecl_hog_params_init(&params);
    params.fusion = VOTECL_HOG_FUSION_NONE;
    params.hit_threshold = -1e30;
    g_assert_cmpint(votecl_hog_model_people(device(), &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(device(), &params, model, &h[0]), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(device(), &params, model, &h[1]), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect_begin(h[0], &view, rois, 3), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect_begin(h[0], &view, rois, 3), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_hog_detect_end(h[0], d1, 256, &n1), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect_end(h[0], d1, 256, &n1), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_hog_detect(h[0], &view, rois, 3, d1, 256, &n1), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect_multi(h, 2, &view, rois, 3, d2, 256, &n2), ==,
                    VOTECL_OK);
    g_assert_cmpuint(n1, ==, n2);
    g_assert_cmpuint(n1, >, 0);
    for (size_t i = 0; i < n1 && i < 256; i++)
        g_assert_cmpfloat(fabs(d1[i].score - d2[i].score), <=, 1e-6);
    votecl_hog_free(h[0]);
    votecl_hog_free(h[1]);
    votecl_hog_model_free(model);
    g_free(px);
}

/* One detector over a changing sequence (sizes, channels, regions, descriptors between)
 * gives what a fresh detector gives for each call: its plan memo (jobs and tables kept
 * while the image size and regions repeat, as in a video) never serves a stale plan. */
static void
detect_fresh(const votecl_hog_params *params, const votecl_hog_model *model,
             const votecl_image *view, const votecl_hog_rect *rois, size_t nrois,
             votecl_hog_detection *out, size_t *n)
{
    votecl_hog *h = NULL;

    g_assert_cmpint(votecl_hog_new(device(), params, model, &h), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect(h, view, rois, nrois, out, 512, n), ==, VOTECL_OK);
    votecl_hog_free(h);
}

static void
test_opencl_plan_reuse(void)
{
    tu_rng rng;
    uint8_t *pa, *pb;
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_hog *h = NULL;
    votecl_hog_rect rois[2] = {{0, 0, 100, 160}, {60, 30, 120, 170}};
    votecl_hog_detection *got, *want;
    votecl_image a, b;
    size_t ng, nw, length, found, wx = 0, wy = 0;
    float *desc;

    if (device() == NULL)
        return;
    got = g_malloc(512 * sizeof *got);
    want = g_malloc(512 * sizeof *want);
    tu_rng_init(&rng, 4321);
    pa = random_image(&rng, 200, 200, 3);
    pb = random_image(&rng, 160, 230, 1);
    a = (votecl_image){pa, 200, 200, 600, 3, VOTECL_DTYPE_U8};
    b = (votecl_image){pb, 160, 230, 160, 1, VOTECL_DTYPE_U8};
    votecl_hog_params_init(&params);
    params.fusion = VOTECL_HOG_FUSION_NONE;
    params.hit_threshold = -1e30;
    g_assert_cmpint(votecl_hog_model_people(device(), &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(device(), &params, model, &h), ==, VOTECL_OK);
    votecl_hog_descriptor_length(&params, &length);
    g_assert_cmpint(votecl_hog_windows(h, 200, 200, &wx, &wy), ==, VOTECL_OK);
    desc = g_malloc(wx * wy * length * sizeof *desc);
    for (int step = 0; step < 8; step++) {
        const votecl_image *v = step == 2 || step == 5 ? &b : &a;
        size_t nr = step == 1 || step == 3 ? 2 : step == 4 ? 1 : 0;

        if (step == 6) /* descriptors plan the jobs differently: the next detect re-plans */
            g_assert_cmpint(votecl_hog_compute(h, &a, desc, wx * wy * length, &found), ==, VOTECL_OK);
        g_assert_cmpint(votecl_hog_detect(h, v, nr ? rois : NULL, nr, got, 512, &ng), ==,
                        VOTECL_OK);
        detect_fresh(&params, model, v, nr ? rois : NULL, nr, want, &nw);
        g_assert_cmpuint(ng, ==, nw);
        g_assert_cmpuint(ng, >, 0);
        for (size_t i = 0; i < ng && i < 512; i++) {
            g_assert_cmpint(got[i].box.x, ==, want[i].box.x);
            g_assert_cmpint(got[i].box.y, ==, want[i].box.y);
            g_assert_cmpint(got[i].box.width, ==, want[i].box.width);
            g_assert_cmpfloat(got[i].score, ==, want[i].score);
        }
    }
    votecl_hog_free(h);
    votecl_hog_model_free(model);
    g_free(desc), g_free(got), g_free(want), g_free(pa), g_free(pb);
}

/* --- boxes clipped to the image (issue 23 item 6) --- */

/* A model that scores every window 1 (zero weights, bias 1) with 32 px of padding: windows
 * reach past every border, and the detections are their parts inside the image, as OpenCV's
 * detectMultiScale clips them (clipObjects); the raw windows keep their padding. */
static void
check_clipped(votecl_context *ctx)
{
    enum { W = 100, H = 150, CAP = 1024 };
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_hog *h = NULL;
    votecl_hog_detection *got = g_malloc(CAP * sizeof *got), *raw = g_malloc(CAP * sizeof *raw);
    uint8_t *px = g_malloc(W * H);
    votecl_image view = {px, W, H, W, 1, VOTECL_DTYPE_U8};
    size_t length, found, nraw, corner = 0, outside = 0;
    float *zeros;
    tu_rng rng;

    tu_rng_init(&rng, 23);
    tu_fill_u8(&rng, px, W * H);
    votecl_hog_params_init(&params);
    params.padding_x = params.padding_y = 32;
    params.scale = 1.0;
    params.fusion = VOTECL_HOG_FUSION_NONE;
    g_assert_cmpint(votecl_hog_descriptor_length(&params, &length), ==, VOTECL_OK);
    zeros = g_malloc0(length * sizeof *zeros);
    g_assert_cmpint(votecl_hog_model_new(ctx, &params, zeros, length, 1.0f, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(ctx, &params, model, &h), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect(h, &view, NULL, 0, got, CAP, &found), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_last_windows(h, raw, CAP, &nraw), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, nraw); /* every window overlaps the image: none dropped */
    g_assert_cmpuint(found, <=, CAP);
    for (size_t i = 0; i < nraw; i++)
        outside += raw[i].box.x < 0 || raw[i].box.y < 0 || raw[i].box.x + raw[i].box.width > W ||
                   raw[i].box.y + raw[i].box.height > H;
    g_assert_cmpuint(outside, >, 0);
    for (size_t i = 0; i < found; i++) {
        const votecl_hog_rect *b = &got[i].box;
        g_assert_cmpint(b->x, >=, 0);
        g_assert_cmpint(b->y, >=, 0);
        g_assert_cmpint(b->width, >, 0);
        g_assert_cmpint(b->height, >, 0);
        g_assert_cmpint(b->x + b->width, <=, W);
        g_assert_cmpint(b->y + b->height, <=, H);
        /* the first window, (-32, -32, 64, 128), clipped */
        corner += b->x == 0 && b->y == 0 && b->width == 32 && b->height == 96;
    }
    g_assert_cmpuint(corner, ==, 1);
    votecl_hog_free(h);
    votecl_hog_model_free(model);
    g_free(zeros), g_free(px), g_free(got), g_free(raw);
}

static void
test_ref_clipped(void)
{
    check_clipped(tu_ref_context);
}

static void
test_opencl_clipped(void)
{
    if (device() != NULL)
        check_clipped(device());
}

/* --- models --- */

static votecl_status
load_text(const char *text, votecl_hog_model **m)
{
    char *dir = tu_mkdtemp(), *path = g_build_filename(dir, "m.model", NULL);
    votecl_status s;

    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    s = votecl_hog_model_load(tu_ref_context, path, m);
    tu_rmtree(dir);
    g_free(path);
    g_free(dir);
    return s;
}

static void
test_ref_model(void)
{
    static const char head[] = "votecl-hog-model 1\nwindow 16 16\nblock 16 16\n"
                               "block-stride 8 8\ncell 8 8\nbins 2\n";
    votecl_hog_model *m = NULL, *m2 = NULL;
    votecl_hog_params params;
    votecl_hog *hog = NULL;
    const float *w, *w2;
    size_t n, n2;
    float bias, bias2;
    char *dir, *path, text[512];

    g_assert_cmpint(votecl_hog_model_people(tu_ref_context, &m), ==, VOTECL_OK);
    votecl_hog_model_get(m, &n, &w, &bias);
    g_assert_cmpuint(n, ==, 3780);
    g_assert_cmpfloat(fabs(bias + 6.6657915), <, 1e-5);
    dir = tu_mkdtemp();
    path = g_build_filename(dir, "people.model", NULL);
    g_assert_cmpint(votecl_hog_model_save(tu_ref_context, m, path), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_model_load(tu_ref_context, path, &m2), ==, VOTECL_OK);
    votecl_hog_model_get(m2, &n2, &w2, &bias2);
    g_assert_cmpuint(n2, ==, n);
    g_assert_true(bias2 == bias && memcmp(w, w2, n * sizeof *w) == 0);
    votecl_hog_model_free(m2);
    g_assert_cmpint(votecl_hog_model_load(tu_ref_context, "/nonexistent/x.model", &m2), ==,
                    VOTECL_IO_ERROR);
    g_assert_null(m2);
    g_assert_cmpint(load_text("hello 1\n", &m2), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(load_text("votecl-hog-model 2\n", &m2), ==, VOTECL_UNSUPPORTED);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "version"));
    snprintf(text, sizeof text, "%slength 8\nbias 1\nweights\n1 2 3 4 5 6 7 8\nend\n", head);
    g_assert_cmpint(load_text(text, &m2), ==, VOTECL_OK);
    votecl_hog_model_free(m2);
    m2 = NULL;
    snprintf(text, sizeof text, "%slength 8\nbias 1\nweights\n1 2 3 4 5 6 7\nend\n", head);
    g_assert_cmpint(load_text(text, &m2), ==, VOTECL_INVALID_ARGUMENT);
    snprintf(text, sizeof text, "%slength 9\nbias 1\nweights\n1 2 3 4 5 6 7 8 9\nend\n", head);
    g_assert_cmpint(load_text(text, &m2), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(tu_ref_context), "length"));
    snprintf(text, sizeof text, "%slength 8\nbias x\nweights\n1 2 3 4 5 6 7 8\nend\n", head);
    g_assert_cmpint(load_text(text, &m2), ==, VOTECL_INVALID_ARGUMENT);
    snprintf(text, sizeof text, "%slength 8\nbias 1\nweights\n1 2 3 nan 5 6 7 8\nend\n", head);
    g_assert_cmpint(load_text(text, &m2), ==, VOTECL_INVALID_ARGUMENT);
    snprintf(text, sizeof text, "%slength 8\nbias 1\nweights\n1 2 3 4 5 6 7 8\n", head);
    g_assert_cmpint(load_text(text, &m2), ==, VOTECL_INVALID_ARGUMENT);
    /* a model of another geometry for the people params */
    snprintf(text, sizeof text, "%slength 8\nbias 1\nweights\n1 2 3 4 5 6 7 8\nend\n", head);
    g_assert_cmpint(load_text(text, &m2), ==, VOTECL_OK);
    votecl_hog_params_init(&params);
    g_assert_cmpint(votecl_hog_new(tu_ref_context, &params, m2, &hog), ==, VOTECL_INCOMPATIBLE);
    g_assert_null(hog);
    votecl_hog_model_free(m2); /* a failing constructor sets m2 to NULL */
    g_assert_cmpint(votecl_hog_model_new(tu_ref_context, &params, w, 100, 0, &m2), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_null(m2);
    votecl_hog_model_free(m);
    tu_rmtree(dir);
    g_free(path);
    g_free(dir);
}

/* --- bad input --- */

static void
bad_input(votecl_context *ctx)
{
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = NULL;
    uint8_t px[200 * 300 * 3];
    votecl_image view = {px, 1, 1, 3, 3, VOTECL_DTYPE_U8};
    votecl_hog_detection det[16];
    votecl_hog_rect out_roi = {150, 0, 100, 100}, neg = {-1, 0, 64, 128}, empty = {0, 0, 0, 5};
    float d[4];
    size_t n = 7;

    memset(px, 90, sizeof px);
    for (size_t i = 0; i < sizeof px; i += 7)
        px[i] = (uint8_t)(i * 13);
    votecl_hog_params_init(&params);
    g_assert_cmpint(votecl_hog_model_people(ctx, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(ctx, &params, model, &hog), ==, VOTECL_OK);
    /* 1x1 and smaller than a window: no windows */
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, det, 16, &n), ==, VOTECL_OK);
    g_assert_cmpuint(n, ==, 0);
    g_assert_cmpint(votecl_hog_compute(hog, &view, d, 4, &n), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "image.width"));
    view.width = 63;
    view.height = 300;
    view.stride = 63 * 3;
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, det, 16, &n), ==, VOTECL_OK);
    g_assert_cmpuint(n, ==, 0);
    /* odd sizes work; a capacity too small is reported */
    view.width = 67;
    view.height = 131;
    view.stride = 200 * 3;
    g_assert_cmpint(votecl_hog_compute(hog, &view, d, 4, &n), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpuint(n, ==, 1);
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, det, 16, &n), ==, VOTECL_OK);
    /* ROIs outside the image */
    view.width = 200;
    view.height = 200;
    g_assert_cmpint(votecl_hog_detect(hog, &view, &out_roi, 1, det, 16, &n), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "rois"));
    g_assert_cmpint(votecl_hog_detect(hog, &view, &neg, 1, det, 16, &n), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_hog_detect(hog, &view, &empty, 1, det, 16, &n), ==,
                    VOTECL_INVALID_ARGUMENT);
    /* two channels, NULL data */
    view.channels = 2;
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, det, 16, &n), ==,
                    VOTECL_INVALID_ARGUMENT);
    view.channels = 3;
    view.data = NULL;
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, det, 16, &n), ==,
                    VOTECL_INVALID_ARGUMENT);
    votecl_hog_free(hog);
    /* bad params name the field */
    params.block_width = 12;
    g_assert_cmpint(votecl_hog_new(ctx, &params, NULL, &hog), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "block_width"));
    votecl_hog_params_init(&params);
    params.nbins = 0;
    g_assert_cmpint(votecl_hog_new(ctx, &params, NULL, &hog), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "nbins"));
    votecl_hog_params_init(&params);
    params.block_norm = (votecl_hog_block_norm)4;
    g_assert_cmpint(votecl_hog_new(ctx, &params, NULL, &hog), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "block_norm"));
    params.block_norm = (votecl_hog_block_norm)-1;
    g_assert_cmpint(votecl_hog_descriptor_length(&params, &n), ==, VOTECL_INVALID_ARGUMENT);
    votecl_hog_params_init(&params);
    params.binning = (votecl_hog_binning)2;
    g_assert_cmpint(votecl_hog_new(ctx, &params, NULL, &hog), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "binning"));
    /* a detector without a model cannot detect */
    votecl_hog_params_init(&params);
    g_assert_cmpint(votecl_hog_new(ctx, &params, NULL, &hog), ==, VOTECL_OK);
    view.data = px;
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, det, 16, &n), ==,
                    VOTECL_INVALID_ARGUMENT);
    votecl_hog_free(hog);
    votecl_hog_free(NULL);
    votecl_hog_model_free(model);
}

/* Reference against a hand-computed case: a vertical step edge gives horizontal gradients,
 * all in bin 0 and 8 (angle 0, bin centres at 10 and 170 degrees). */
static void
test_ref_gradient_truth(void)
{
    votecl__hog_geom g;
    votecl_hog_params p;
    votecl__hog_level l;
    char msg[256];
    uint8_t img[8 * 8], pad[10 * 10];
    float lut[256], grad[128];
    uint8_t bins[128];

    votecl_hog_params_init(&p);
    p.window_width = p.window_height = 8;
    p.block_width = p.block_height = 8;
    p.cell_width = p.cell_height = 4;
    g_assert_cmpint(votecl__hog_geom_init(&g, &p, msg, sizeof msg), ==, VOTECL_OK);
    g_assert_true(votecl__hog_level_init(&g, &p, 8, 8, 1.0, &l));
    for (int i = 0; i < 64; i++)
        img[i] = (i % 8) < 4 ? 0 : 64;
    votecl__hog_gamma_table(1, lut);
    votecl__hog_ref_pad(img, &l, 1, pad);
    votecl__hog_ref_gradient(&g, pad, &l, 1, lut, grad, bins);
    /* pixel (3, 0): dx = sqrt(64) - 0 = 8, angle 0 -> bins 8 and 0, weights 4 and 4 */
    g_assert_cmpuint(bins[2 * 3], ==, 8);
    g_assert_cmpuint(bins[2 * 3 + 1], ==, 0);
    g_assert_cmpfloat(fabs(grad[2 * 3] - 4.f), <, 1e-4);
    g_assert_cmpfloat(fabs(grad[2 * 3 + 1] - 4.f), <, 1e-4);
    g_assert_cmpfloat(grad[0] + grad[1], ==, 0.f);
    g_assert_cmpint(votecl__hog_reflect101(-1, 5), ==, 1);
    g_assert_cmpint(votecl__hog_reflect101(5, 5), ==, 3);
    g_assert_cmpint(votecl__hog_reflect101(-3, 1), ==, 0);
}

/* Hard binning against scikit-image's rule, b pi / n <= angle mod pi < (b + 1) pi / n: an
 * angle on a boundary opens the bin above (axes and diagonals, where scikit-image's angles
 * and boundaries are exact), the lower half-plane folds onto the upper, and directions just
 * either side of a boundary fall either side. */
static void
test_ref_hard_bins(void)
{
    static const struct {
        unsigned nbins;
        float dx, dy;
        unsigned bin;
    } cases[] = {
        {4, 1, 0, 0},      {4, -3, 0, 0},   {4, 0, 0, 0},
        {4, 0, 5, 2},      {4, 0, -5, 2},   {4, 2, 2, 1},
        {4, -2, -2, 1},    {4, -2, 2, 3},   {4, 2, -2, 3},
        {4, 10, 9, 0},     {4, 9, 10, 1},   {4, -9, 10, 2},
        {9, 0, 7, 4},      {9, 7, 7, 2},    {9, -7, 7, 6},
        {9, -7, -1, 0},    {9, 100, 36, 0}, /* 19.8 degrees */ {9, 100, 37, 1}, /* 20.3 */
        {9, -100, -37, 1}, {9, 1, -100, 4}, {9, 18, -100, 5},
        {9, 18, 100, 3},   {6, 0, 3, 3},    {6, 1, 1, 1},
        {6, -1, 1, 4},     {1, 3, -4, 0},   {2, 0, 1, 1},
        {2, 1, -1, 1},     {2, 1, 1, 0},
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        votecl__hog_geom g;
        votecl_hog_params p;
        char msg[256];

        votecl_hog_params_init(&p);
        p.nbins = cases[i].nbins;
        p.binning = VOTECL_HOG_BINNING_HARD;
        g_assert_cmpint(votecl__hog_geom_init(&g, &p, msg, sizeof msg), ==, VOTECL_OK);
        g_assert_cmpuint(votecl__hog_hard_bin(&g, cases[i].dx, cases[i].dy), ==, cases[i].bin);
    }
}

/* Each block norm against its formula in double (scikit-image's _hog_normalize_block for L1,
 * L1-sqrt and L2; OpenCV's L2-Hys), on a block with a zero bin. */
static void
test_ref_block_norms(void)
{
    static const float v[8] = {0, 3, 1.5f, 40, 2, 0.25f, 7, 11};
    votecl__hog_geom g;
    votecl_hog_params p;
    char msg[256];

    votecl_hog_params_init(&p);
    p.window_width = p.window_height = p.block_width = p.block_height = 8;
    p.cell_width = p.cell_height = 4;
    p.nbins = 2; /* 4 cells of 2 bins: 8 values */
    for (int norm = VOTECL_HOG_NORM_L2HYS; norm <= VOTECL_HOG_NORM_L2; norm++) {
        double l1 = 0, l2 = 0, want[8], l2c = 0;
        float h[8];

        p.block_norm = (votecl_hog_block_norm)norm;
        g_assert_cmpint(votecl__hog_geom_init(&g, &p, msg, sizeof msg), ==, VOTECL_OK);
        g_assert_cmpuint(g.block_len, ==, 8);
        memcpy(h, v, sizeof h);
        votecl__hog_ref_normalise(&g, h, 1);
        for (int i = 0; i < 8; i++)
            l1 += fabs(v[i]), l2 += (double)v[i] * v[i];
        for (int i = 0; i < 8; i++) {
            double t = v[i] / (sqrt(l2) + 0.8);

            want[i] = norm == VOTECL_HOG_NORM_L1        ? v[i] / (l1 + 1e-5)
                      : norm == VOTECL_HOG_NORM_L1_SQRT ? sqrt(v[i] / (l1 + 1e-5))
                      : norm == VOTECL_HOG_NORM_L2      ? v[i] / sqrt(l2 + 1e-10)
                                                        : fmin(t, 0.2);
            l2c += want[i] * want[i];
        }
        for (int i = 0; i < 8; i++) {
            double w = norm == VOTECL_HOG_NORM_L2HYS ? want[i] / (sqrt(l2c) + 1e-3) : want[i];

            g_assert_cmpfloat(fabs(h[i] - w), <, 1e-6);
        }
    }
}

/* scikit-image's test_hog_odd_cell_size: a 3x3 image, one bright corner pixel, one cell and
 * block of 3x3, L1 and hard binning: half the weight at 0 degrees and half at 90 (bin 4 of
 * 9), through the whole reference. */
static void
test_ref_hard_odd_cell(void)
{
    uint8_t px[9] = {0, 0, 0, 0, 0, 0, 0, 0, 255};
    votecl_image view = {px, 3, 3, 3, 1, VOTECL_DTYPE_U8};
    votecl_hog_params p;
    votecl_hog *hog = NULL;
    float d[9];
    size_t n = 0;

    votecl_hog_params_init(&p);
    p.window_width = p.window_height = p.block_width = p.block_height = 3;
    p.cell_width = p.cell_height = p.block_stride_x = p.block_stride_y = 3;
    p.window_stride_x = p.window_stride_y = 3;
    p.block_norm = VOTECL_HOG_NORM_L1;
    p.binning = VOTECL_HOG_BINNING_HARD;
    g_assert_cmpint(votecl_hog_new(tu_ref_context, &p, NULL, &hog), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_compute(hog, &view, d, 9, &n), ==, VOTECL_OK);
    g_assert_cmpuint(n, ==, 1);
    for (int i = 0; i < 9; i++)
        g_assert_cmpfloat(fabs(d[i] - (i == 0 || i == 4 ? 0.5 : 0.0)), <, 1e-5);
    votecl_hog_free(hog);
}

/* OpenCV's channel choice on ties (R, G, B = 0, 1, 2; OpenCV sees B, G, R). */
static void
test_ref_pick_channel(void)
{
    static const struct {
        float m[3];
        unsigned vector, tail;
    } cases[] = {
        {{1, 1, 1}, 2, 0}, /* all equal: B in the vector loop, R in the tail */
        {{4, 4, 1}, 1, 0}, /* R and G tie above B: G, R in the tail */
        {{1, 4, 4}, 2, 1}, /* G and B tie: B, G in the tail (B not strictly larger) */
        {{4, 1, 4}, 2, 0}, /* R and B tie: B, R in the tail */
        {{1, 5, 4}, 1, 1}, /* a strict maximum wins everywhere */
        {{0, 0, 0}, 2, 0},
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_assert_cmpuint(votecl__hog_pick_channel(cases[i].m, 0), ==, cases[i].vector);
        g_assert_cmpuint(votecl__hog_pick_channel(cases[i].m, 1), ==, cases[i].tail);
    }
}

static void
test_opencl_bad_input(void)
{
    if (device() != NULL)
        bad_input(device());
}

static void
test_ref_bad_input(void)
{
    bad_input(tu_ref_context);
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/hog/gradient-truth", {test_ref_gradient_truth}},
    {TU_PATH, "/ref/hog/pick-channel", {test_ref_pick_channel}},
    {TU_PATH, "/ref/hog/hard-bins", {test_ref_hard_bins}},
    {TU_PATH, "/ref/hog/block-norms", {test_ref_block_norms}},
    {TU_PATH, "/ref/hog/hard-odd-cell", {test_ref_hard_odd_cell}},
    {TU_PATH, "/ref/hog/model", {test_ref_model}},
    {TU_PATH, "/ref/hog/clipped", {test_ref_clipped}},
    {TU_PATH, "/ref/hog/bad-input", {test_ref_bad_input}},
    {TU_PATH, "/ref/hog/opencv-descriptors", {test_ref_descriptors}},
    {TU_PATH, "/ref/hog/opencv-detect", {test_ref_detect}},
    {TU_DEVICE, "hog/stages", {test_opencl_stages}},
    {TU_DEVICE, "hog/norms", {test_opencl_norms}},
    {TU_DEVICE, "hog/stages-other-shape", {test_opencl_stages_other_shape}},
    {TU_DEVICE, "hog/norms-other-shape", {test_opencl_norms_other_shape}},
    {TU_DEVICE, "hog/svm-order", {test_opencl_svm_order}},
    {TU_DEVICE, "hog/bad-input", {test_opencl_bad_input}},
    {TU_DEVICE, "hog/async-multi", {test_opencl_async}},
    {TU_DEVICE, "hog/plan-reuse", {test_opencl_plan_reuse}},
    {TU_DEVICE, "hog/clipped", {test_opencl_clipped}},
    {TU_DEVICE, "hog/opencv-descriptors", {test_opencl_descriptors}},
    {TU_DEVICE, "hog/opencv-detect", {test_opencl_detect}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
