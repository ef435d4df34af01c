/* The API's conventions as a user meets them: the struct_size scheme of every parameter
 * struct (votecl.h), dtype names in messages, the theta-rho Hough refusing a gray image and
 * its explicit edge step, the typed histogram entry points, and OpenCV's HOG model files. */
#include "cases.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* --- struct_size --- */

/* Every _init sets struct_size to the size of its struct: the algorithms' (tests/cases.h) and
 * the options of contexts and calibration. */
static void
test_struct_size_init(void)
{
    votecl_context_options co;
    votecl_calibrate_options cal;

    for (size_t a = 0; tc_algorithms[a] != NULL; a++) {
        for (size_t k = 0; k < tc_algorithms[a]->nparams; k++) {
            const tc_params *t = &tc_algorithms[a]->params[k];
            void *p = g_malloc(t->size);

            memset(p, 0xff, t->size);
            t->init(p);
            g_assert_cmpuint(*(size_t *)p, ==, t->size);
            g_free(p);
        }
    }
    memset(&co, 0xff, sizeof co), votecl_context_options_init(&co);
    memset(&cal, 0xff, sizeof cal), votecl_calibrate_options_init(&cal);
    g_assert_cmpuint(co.struct_size, ==, sizeof co);
    g_assert_cmpuint(cal.struct_size, ==, sizeof cal);
}

/* The three answers of the check, for a struct: status and message for 0, larger, smaller. */
static void
expect_sizes(votecl_context *ctx, size_t *field, size_t good,
             votecl_status (*call)(votecl_context *, void *), void *data)
{
    const size_t bad[] = {0, good + 8, good - 1};
    const votecl_status want[] = {VOTECL_INVALID_ARGUMENT, VOTECL_UNSUPPORTED,
                                  VOTECL_INVALID_ARGUMENT};

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        *field = bad[i];
        g_assert_cmpint(call(ctx, data), ==, want[i]);
        if (ctx != NULL)
            g_assert_nonnull(strstr(votecl_context_get_error(ctx), ".struct_size: "));
    }
    *field = good;
}

static votecl_status
call_context(votecl_context *ctx, void *p)
{
    votecl_context *c = NULL;
    char error[256];
    votecl_status status = votecl_context_new_with_error(p, &c, error, sizeof error);

    (void)ctx;
    if (status != VOTECL_OK)
        g_assert_nonnull(strstr(error, "options.struct_size: "));
    votecl_context_free(c);
    return status;
}

/* One algorithm's parameter struct through its call: every wrong struct_size refused. */
static void
check_params(votecl_context *ctx, const tc_params *t)
{
    void *p = g_malloc(t->size);
    votecl_context *c = (t->flags & TC_PARAMS_NO_CONTEXT) ? NULL : ctx;

    t->init(p);
    expect_sizes(c, (size_t *)p, t->size, t->call, p);
    if (t->flags & TC_PARAMS_OK)
        g_assert_cmpint(t->call(c, p), ==, VOTECL_OK);
    g_free(p);
}

static void
test_struct_size_checked(void)
{
    votecl_context *ctx = tu_ref_context_new();
    votecl_context_options co;

    for (size_t a = 0; tc_algorithms[a] != NULL; a++)
        for (size_t k = 0; k < tc_algorithms[a]->nparams; k++)
            if (tc_algorithms[a]->params[k].call != NULL)
                check_params(ctx, &tc_algorithms[a]->params[k]);
    votecl_context_options_init(&co);
    co.backend = VOTECL_BACKEND_REF;
    expect_sizes(NULL, &co.struct_size, sizeof co, call_context, &co);
    g_assert_cmpint(call_context(NULL, &co), ==, VOTECL_OK);
    votecl_context_free(ctx);
}

/* A struct_size smaller than the struct is refused before a byte past it is read (issue 28
 * item 9: votecl_hog_new copied the whole struct first). The short struct ends where an
 * inaccessible page starts, so a read past it crashes in any build, not only under ASan. */
static void
test_struct_size_short_hog(void)
{
    votecl_context *ctx = tu_ref_context_new();
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *map =
        mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    votecl_hog_params og;

    g_assert_true(map != MAP_FAILED);
    g_assert_cmpint(mprotect(map + page, page, PROT_NONE), ==, 0);
    votecl_hog_params_init(&og);
    for (size_t size = sizeof og.struct_size; size < sizeof og; size += 8) {
        unsigned char *start = map + page - size;
        votecl_hog *hog = NULL;

        og.struct_size = size;
        memcpy(start, &og, size);
        g_assert_cmpint(votecl_hog_new(ctx, (const votecl_hog_params *)(void *)start, NULL, &hog),
                        ==, VOTECL_INVALID_ARGUMENT);
        g_assert_null(hog);
        g_assert_nonnull(strstr(votecl_context_get_error(ctx), "params.struct_size: "));
    }
    munmap(map, 2 * page);
    votecl_context_free(ctx);
}

/* --- dtype names --- */

static void
test_dtype_names(void)
{
    votecl_context *ctx = tu_ref_context_new();
    votecl_hist_params p;
    votecl_hist_plan *plan = NULL;
    uint16_t pixels[4] = {0};
    uint32_t bins[256];
    votecl_image image = {pixels, 4, 1, 8, 1, VOTECL_DTYPE_U16};

    g_assert_cmpstr(votecl_dtype_name(VOTECL_DTYPE_U8), ==, "u8");
    g_assert_cmpstr(votecl_dtype_name(VOTECL_DTYPE_U16), ==, "u16");
    g_assert_cmpstr(votecl_dtype_name(VOTECL_DTYPE_U32), ==, "u32");
    g_assert_cmpstr(votecl_dtype_name(VOTECL_DTYPE_F32), ==, "f32");
    g_assert_null(votecl_dtype_name((votecl_dtype)0));
    g_assert_null(votecl_dtype_name((votecl_dtype)99));
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_hist_plan_new(ctx, &p, &plan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hist_run_image(plan, &image, bins), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpstr(votecl_context_get_error(ctx), ==,
                    "image.dtype: u16 does not match the plan's u8");
    image.dtype = (votecl_dtype)7;
    g_assert_cmpint(votecl_hist_run_image(plan, &image, bins), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpstr(votecl_context_get_error(ctx), ==,
                    "image.dtype: unknown dtype 7 does not match the plan's u8");
    votecl_hist_plan_free(plan);
    votecl_context_free(ctx);
}

/* --- typed histograms --- */

static void
test_hist_typed(void)
{
    votecl_context *ctx = tu_ref_context_new();
    votecl_hist_params p;
    votecl_hist_plan *counts = NULL, *sums = NULL;
    const uint8_t x[6] = {0, 1, 1, 255, 255, 255};
    const float w[6] = {0.5f, 1, 2, 0.25f, 0.25f, 0.25f};
    uint32_t c[2 * 256], c_old[2 * 256];
    float f[2 * 256];
    votecl_image image = {x, 6, 1, 6, 1, VOTECL_DTYPE_U8};

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_hist_plan_new(ctx, &p, &counts), ==, VOTECL_OK);
    p.weighted = 1;
    g_assert_cmpint(votecl_hist_plan_new(ctx, &p, &sums), ==, VOTECL_OK);

    g_assert_cmpint(votecl_hist_run_u32(counts, x, NULL, 6, c), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hist_run(counts, x, NULL, NULL, 6, c_old), ==, VOTECL_OK);
    g_assert_cmpmem(c, 256 * sizeof *c, c_old, 256 * sizeof *c_old);
    g_assert_cmpuint(c[0], ==, 1);
    g_assert_cmpuint(c[1], ==, 2);
    g_assert_cmpuint(c[255], ==, 3);
    g_assert_cmpint(votecl_hist_run_batch_u32(counts, x, NULL, 3, 2, c), ==, VOTECL_OK);
    g_assert_cmpuint(c[0], ==, 1);
    g_assert_cmpuint(c[1], ==, 2);
    g_assert_cmpuint(c[256 + 255], ==, 3);
    g_assert_cmpint(votecl_hist_run_image_u32(counts, &image, c), ==, VOTECL_OK);
    g_assert_cmpuint(c[255], ==, 3);

    g_assert_cmpint(votecl_hist_run_f32(sums, x, NULL, w, 6, f), ==, VOTECL_OK);
    g_assert_cmpfloat(f[0], ==, 0.5f);
    g_assert_cmpfloat(f[1], ==, 3.0f);
    g_assert_cmpfloat(f[255], ==, 0.75f);
    g_assert_cmpint(votecl_hist_run_batch_f32(sums, x, NULL, w, 3, 2, f), ==, VOTECL_OK);
    g_assert_cmpfloat(f[1], ==, 3.0f);
    g_assert_cmpfloat(f[256 + 255], ==, 0.75f);

    /* the bins' type is not the plan's: refused, the bins untouched */
    memset(c, 0xee, sizeof c);
    g_assert_cmpint(votecl_hist_run_u32(sums, x, NULL, 6, c), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "votecl_hist_run_f32"));
    g_assert_cmpint(votecl_hist_run_image_u32(sums, &image, c), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpuint(c[0], ==, 0xeeeeeeeeu);
    g_assert_cmpint(votecl_hist_run_f32(counts, x, NULL, w, 6, f), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "votecl_hist_run_u32"));
    g_assert_cmpint(votecl_hist_run_batch_f32(counts, x, NULL, w, 3, 2, f), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_hist_run_batch_u32(sums, x, NULL, 3, 2, c), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_hist_run_u32(NULL, x, NULL, 6, c), ==, VOTECL_INVALID_ARGUMENT);
    votecl_hist_plan_free(counts);
    votecl_hist_plan_free(sums);
    votecl_context_free(ctx);
}

/* --- the Hough's input and its edge step --- */

#define HW 96
#define HH 72

/* A gray picture: a bright rectangle over a shaded background. The rectangle's sides
 * (x = 20, x = 70, y = 15, y = 50) are the lines it holds. */
static void
gray_picture(uint8_t *im)
{
    for (int y = 0; y < HH; y++)
        for (int x = 0; x < HW; x++) {
            int inside = x >= 20 && x < 70 && y >= 15 && y < 50;
            im[y * HW + x] = (uint8_t)(inside ? 180 : 40 + x / 4 + y / 8);
        }
}

static votecl_status
hough_lines(votecl_context *ctx, unsigned threshold, const uint8_t *im, votecl_hough_line *lines,
            size_t capacity, size_t *found)
{
    votecl_hough_params p;
    votecl_hough_plan *plan = NULL;
    votecl_image view = tu_view_u8(im, HW, HH);
    votecl_status status;

    votecl_hough_params_init(&p);
    p.edge_threshold = threshold;
    p.max_lines = 4;
    g_assert_cmpint(votecl_hough_plan_new(ctx, &p, HW, HH, &plan), ==, VOTECL_OK);
    status = votecl_hough_run(plan, &view, lines, capacity, found, NULL);
    votecl_hough_plan_free(plan);
    return status;
}

static void
test_hough_gray_refused(void)
{
    votecl_context *ctx = tu_ref_context_new();
    static uint8_t im[HW * HH], edges[HW * HH];
    votecl_hough_line lines[4];
    size_t found = 0;

    gray_picture(im);
    g_assert_cmpint(hough_lines(ctx, 1, im, lines, 4, &found), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "image: not a binary edge image"));
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "votecl_hough_edges()"));
    /* two values neither of them 0: every pixel would vote as well */
    for (size_t i = 0; i < sizeof im; i++)
        edges[i] = i % 7 == 0 ? 255 : 3;
    g_assert_cmpint(hough_lines(ctx, 1, edges, lines, 4, &found), ==, VOTECL_INVALID_ARGUMENT);
    /* an explicit threshold takes a gray image */
    g_assert_cmpint(hough_lines(ctx, 128, im, lines, 4, &found), ==, VOTECL_OK);
    /* 0 and one other value are an edge image, whatever the value */
    for (size_t i = 0; i < sizeof im; i++)
        edges[i] = i % 97 == 0 ? 1 : 0;
    g_assert_cmpint(hough_lines(ctx, 1, edges, lines, 4, &found), ==, VOTECL_OK);
    memset(edges, 0, sizeof edges);
    g_assert_cmpint(hough_lines(ctx, 1, edges, lines, 4, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 0);
    votecl_context_free(ctx);
}

/* The explicit edge step, then the transform: the four sides of the rectangle. */
static void
test_hough_edges(void)
{
    votecl_context *ctx = tu_ref_context_new();
    static uint8_t im[HW * HH], edges[HW * (HH + 1)];
    votecl_image view = tu_view_u8(im, HW, HH);
    votecl_hough_line lines[4];
    size_t found = 0, count = 0;
    int sides[4] = {0};

    gray_picture(im);
    memset(edges, 0x5a, sizeof edges);
    g_assert_cmpint(votecl_hough_edges(ctx, &view, 50, 100, edges, HW), ==, VOTECL_OK);
    for (int y = 0; y < HH; y++)
        for (int x = 0; x < HW; x++) {
            uint8_t e = edges[y * HW + x];
            int near_side = ((x == 19 || x == 20 || x == 69 || x == 70) && y >= 14 && y <= 50) ||
                            ((y == 14 || y == 15 || y == 49 || y == 50) && x >= 19 && x <= 70);
            g_assert_true(e == 0 || e == 255);
            if (e == 255)
                g_assert_true(near_side);
            count += e == 255;
        }
    g_assert_cmpuint(count, >=, 2 * (50 + 35) - 8); /* a corner pixel or two suppressed */
    g_assert_cmpuint(edges[HW * HH], ==, 0x5a);     /* nothing written past the rows */
    g_assert_cmpint(hough_lines(ctx, 1, edges, lines, 4, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 4);
    for (size_t i = 0; i < found; i++) {
        double deg = lines[i].theta * 180 / G_PI, rho = lines[i].rho;
        if (fabs(deg) < 1 && fabs(rho - 19.5) <= 1)
            sides[0]++;
        else if (fabs(deg) < 1 && fabs(rho - 69.5) <= 1)
            sides[1]++;
        else if (fabs(deg - 90) < 1 && fabs(rho - 14.5) <= 1)
            sides[2]++;
        else if (fabs(deg - 90) < 1 && fabs(rho - 49.5) <= 1)
            sides[3]++;
        else
            g_test_message("line theta %.1f deg rho %.1f", deg, rho);
    }
    for (int k = 0; k < 4; k++)
        g_assert_cmpint(sides[k], ==, 1);

    g_assert_cmpint(votecl_hough_edges(ctx, &view, 100, 50, edges, HW), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "low, high"));
    g_assert_cmpint(votecl_hough_edges(ctx, &view, 50, VOTECL_HOUGH_EDGES_MAX + 1, edges, HW), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_hough_edges(ctx, &view, 50, 100, edges, HW - 1), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "edges_stride"));
    g_assert_cmpint(votecl_hough_edges(ctx, &view, 50, 100, NULL, HW), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_hough_edges(NULL, &view, 50, 100, edges, HW), ==,
                    VOTECL_INVALID_ARGUMENT);
    votecl_context_free(ctx);
}

/* --- OpenCV's HOG files --- */

/* The people model as OpenCV's FileStorage writes a HOGDescriptor (floats "%.8e", doubles
 * "%.16e", whole doubles as "4."), in YAML (xml 0) or XML; extra: one more line in the map
 * (NULL for none). */
static void
write_opencv_hog(const char *path, int xml, const float *w, size_t n, float bias, const char *extra)
{
    FILE *f = fopen(path, "w");

    g_assert_nonnull(f);
    if (xml)
        fputs("<?xml version=\"1.0\"?>\n<opencv_storage>\n"
              "<people type_id=\"opencv-object-detector-hog\">\n"
              "  <winSize>\n    64 128</winSize>\n  <blockSize>\n    16 16</blockSize>\n"
              "  <blockStride>\n    8 8</blockStride>\n  <cellSize>\n    8 8</cellSize>\n"
              "  <nbins>9</nbins>\n  <derivAperture>1</derivAperture>\n"
              "  <winSigma>4.</winSigma>\n  <histogramNormType>0</histogramNormType>\n"
              "  <L2HysThreshold>2.0000000000000001e-01</L2HysThreshold>\n"
              "  <gammaCorrection>1</gammaCorrection>\n  <nlevels>64</nlevels>\n"
              "  <signedGradient>0</signedGradient>\n  <SVMDetector>\n   ",
              f);
    else
        fputs("%YAML:1.0\n---\npeople: !!opencv-object-detector-hog\n"
              "   winSize: [ 64, 128 ]\n   blockSize: [ 16, 16 ]\n   blockStride: [ 8, 8 ]\n"
              "   cellSize: [ 8, 8 ]\n   nbins: 9\n   derivAperture: 1\n   winSigma: 4.\n"
              "   histogramNormType: 0\n   L2HysThreshold: 2.0000000000000001e-01\n"
              "   gammaCorrection: 1\n   nlevels: 64\n   signedGradient: 0\n"
              "   SVMDetector: [",
              f);
    for (size_t i = 0; i <= n; i++)
        fprintf(f, "%s%s%.8e", i % 4 == 0 ? (xml ? "\n    " : "\n       ") : "",
                i > 0 && !xml ? ", " : " ", i < n ? (double)w[i] : (double)bias);
    fputs(xml ? "</SVMDetector>\n" : " ]\n", f);
    if (extra != NULL)
        fputs(extra, f);
    fputs(xml ? "</people>\n</opencv_storage>\n" : "", f);
    g_assert_cmpint(fclose(f), ==, 0);
}

/* The file cv2 writes, when Python has cv2: 1 written, 0 not. */
static int
write_cv2_hog(const char *path)
{
    char *argv[] = {"python3", "-c",
                    "import sys, cv2\n"
                    "h = cv2.HOGDescriptor()\n"
                    "h.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())\n"
                    "h.save(sys.argv[1])\n",
                    (char *)path, NULL};
    int status = -1;

    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                      NULL, NULL, NULL, &status, NULL))
        return 0;
    return g_spawn_check_wait_status(status, NULL);
}

static void
expect_same_model(const votecl_hog_model *a, const votecl_hog_model *b)
{
    size_t na, nb;
    const float *wa, *wb;
    float ba, bb;

    votecl_hog_model_get(a, &na, &wa, &ba);
    votecl_hog_model_get(b, &nb, &wb, &bb);
    g_assert_cmpuint(na, ==, nb);
    g_assert_cmpmem(wa, na * sizeof *wa, wb, nb * sizeof *wb);
    g_assert_cmpfloat(ba, ==, bb);
}

static votecl_status
load_with_extra(votecl_context *ctx, const char *path, int xml, const char *extra)
{
    votecl_hog_model *people = NULL, *m = NULL;
    size_t n;
    const float *w;
    float bias;
    votecl_status status;

    g_assert_cmpint(votecl_hog_model_people(ctx, &people), ==, VOTECL_OK);
    votecl_hog_model_get(people, &n, &w, &bias);
    write_opencv_hog(path, xml, w, extra != NULL && strcmp(extra, "short") == 0 ? n - 2 : n, bias,
                     extra != NULL && strcmp(extra, "short") != 0 ? extra : NULL);
    status = votecl_hog_model_load_opencv(ctx, path, NULL, &m);
    if (status == VOTECL_OK)
        expect_same_model(people, m);
    else
        g_assert_null(m);
    votecl_hog_model_free(m);
    votecl_hog_model_free(people);
    return status;
}

static void
test_hog_opencv(void)
{
    votecl_context *ctx = tu_ref_context_new();
    char *dir = tu_mkdtemp();
    char *path = g_build_filename(dir, "people.yml", NULL);
    char *xml_path = g_build_filename(dir, "people.xml", NULL);
    char *cv2_path = g_build_filename(dir, "cv2-people.yml", NULL);
    votecl_hog_model *people = NULL, *m = NULL;
    votecl_hog_params p, want;
    votecl_hog *hog = NULL;

    g_assert_cmpint(votecl_hog_model_people(ctx, &people), ==, VOTECL_OK);
    votecl_hog_params_init(&want);
    for (int xml = 0; xml < 2; xml++) {
        g_assert_cmpint(load_with_extra(ctx, xml ? xml_path : path, xml, NULL), ==, VOTECL_OK);
        memset(&p, 0xee, sizeof p);
        g_assert_cmpint(votecl_hog_model_load_opencv(ctx, xml ? xml_path : path, &p, &m), ==,
                        VOTECL_OK);
        g_assert_cmpmem(&p, sizeof p, &want, sizeof want); /* the people detector's defaults */
        g_assert_cmpint(votecl_hog_new(ctx, &p, m, &hog), ==, VOTECL_OK);
        votecl_hog_free(hog), hog = NULL;
        votecl_hog_model_free(m), m = NULL;
    }
    if (write_cv2_hog(cv2_path)) {
        g_assert_cmpint(votecl_hog_model_load_opencv(ctx, cv2_path, &p, &m), ==, VOTECL_OK);
        expect_same_model(people, m);
        votecl_hog_model_free(m), m = NULL;
    } else {
        g_test_message("python3 cannot import cv2: the OpenCV files are written by the test");
    }

    /* what OpenCV can save and this library does not compute, and broken files */
    g_assert_cmpint(load_with_extra(ctx, path, 0, "   signedGradient: 1\n"), ==,
                    VOTECL_OK); /* the first key of a name wins, as in the file OpenCV reads */
    g_assert_cmpint(load_with_extra(ctx, path, 0, "short"), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "SVMDetector: 3779 finite numbers"));
    g_assert_cmpint(load_with_extra(ctx, xml_path, 1, "short"), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "people.xml: SVMDetector"));
    g_assert_cmpint(votecl_hog_model_load_opencv(ctx, "/nonexistent/hog.yml", NULL, &m), ==,
                    VOTECL_IO_ERROR);
    g_assert_cmpint(votecl_hog_model_load_opencv(NULL, "/nonexistent/hog.yml", NULL, &m), ==,
                    VOTECL_IO_ERROR);
    g_assert_cmpint(votecl_hog_model_save(ctx, people, path), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_model_load_opencv(ctx, path, NULL, &m), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(votecl_context_get_error(ctx), "not an OpenCV FileStorage file"));
    g_assert_cmpint(votecl_hog_model_load_opencv(ctx, NULL, NULL, &m), ==, VOTECL_INVALID_ARGUMENT);

    g_unlink(path), g_unlink(xml_path), g_unlink(cv2_path);
    tu_rmtree(dir);
    g_free(path), g_free(xml_path), g_free(cv2_path), g_free(dir);
    votecl_hog_model_free(people);
    votecl_context_free(ctx);
}

/* Settings OpenCV saves that this library does not compute are refused by name. */
static void
test_hog_opencv_unsupported(void)
{
    static const struct {
        const char *key, *line;
    } cases[] = {{"signedGradient", "signedGradient: 1"},
                 {"histogramNormType", "histogramNormType: 1"},
                 {"winSigma", "winSigma: 2."}};
    votecl_context *ctx = tu_ref_context_new();
    char *dir = tu_mkdtemp();
    char *path = g_build_filename(dir, "hog.yml", NULL);
    votecl_hog_model *m = NULL;

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GString *text = g_string_new("%YAML:1.0\n---\nhog:\n   winSize: [ 16, 16 ]\n"
                                     "   blockSize: [ 16, 16 ]\n   blockStride: [ 8, 8 ]\n"
                                     "   cellSize: [ 8, 8 ]\n   nbins: 9\n");
        g_string_append_printf(text, "   %s\n   SVMDetector: [", cases[i].line);
        for (int k = 0; k < 36; k++)
            g_string_append(text, k ? ", 1." : " 1.");
        g_string_append(text, " ]\n");
        g_assert_true(g_file_set_contents(path, text->str, -1, NULL));
        g_string_free(text, TRUE);
        g_assert_cmpint(votecl_hog_model_load_opencv(ctx, path, NULL, &m), ==, VOTECL_UNSUPPORTED);
        g_assert_nonnull(strstr(votecl_context_get_error(ctx), cases[i].key));
        g_assert_null(m);
    }
    g_unlink(path);
    tu_rmtree(dir);
    g_free(path), g_free(dir);
    votecl_context_free(ctx);
}

static const tu_test tests[] = {
    {TU_PATH, "/nodevice/struct-size/init", {test_struct_size_init}},
    {TU_PATH, "/nodevice/struct-size/checked", {test_struct_size_checked}},
    {TU_PATH, "/ref/struct-size/short-hog", {test_struct_size_short_hog}},
    {TU_PATH, "/ref/api/dtype-names", {test_dtype_names}},
    {TU_PATH, "/ref/api/hist-typed", {test_hist_typed}},
    {TU_PATH, "/ref/api/hough-gray-refused", {test_hough_gray_refused}},
    {TU_PATH, "/ref/api/hough-edges", {test_hough_edges}},
    {TU_PATH, "/ref/api/hog-opencv", {test_hog_opencv}},
    {TU_PATH, "/ref/api/hog-opencv-unsupported", {test_hog_opencv_unsupported}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
