/* votecl edges: the edge step of its own (votecl-edges.h): Canny's edges of an image as
 * cv2.Canny finds them, or a Sobel derivative as cv2.Sobel gives it, counted as text or
 * JSON and written as an 8-bit image. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "tool.h"

typedef struct edges_args {
    const char *image_path;
    const char *out_path;
    votecl_canny_params canny;
    int sobel;           /* --sobel given: the derivative instead of Canny */
    unsigned dx, dy;     /* --sobel DX,DY */
    unsigned long ksize; /* --ksize */
} edges_args;

/* What a run found: the 8-bit image written by --out and its figures. */
typedef struct edges_result {
    tool_image map;   /* Canny: 255 at an edge; Sobel: |derivative| saturated to 255 */
    size_t edges;     /* Canny: edge pixels; Sobel: nonzero derivatives */
    int32_t min, max; /* Sobel: the derivative's range */
    double seconds;
} edges_result;

static void
edges_usage(FILE *f)
{
    fprintf(f, "usage: votecl edges IMAGE [--low T] [--high T] [--aperture 3|5|7] [--l2]\n"
               "                   [--sobel DX,DY] [--ksize 3|5|7] [--json] [--out OUT.png]\n"
               "Canny's edges of a PNG, PGM, PPM or JPEG image (its gray: a colour image's luma,\n"
               "16-bit samples' high byte) as cv2.Canny(gray, low, high, apertureSize,\n"
               "L2gradient) finds them, the border replicated; prints how many pixels are edges.\n"
               "  --low T         threshold1: a candidate's magnitude exceeds the smaller\n"
               "                  threshold (default 50)\n"
               "  --high T        threshold2: a strong edge's exceeds the larger (default 150)\n"
               "  --aperture N    the Sobel's side: 3 (default), 5 or 7\n"
               "  --l2            the magnitude sqrt(gx^2 + gy^2) for |gx| + |gy| (L2gradient)\n"
               "  --sobel DX,DY   instead, the derivative cv2.Sobel(gray, CV_32S, DX, DY, ksize)\n"
               "                  (DX, DY 0 or 1, not both 0); prints its range and how many\n"
               "                  pixels are not 0\n"
               "  --ksize K       the Sobel's side for --sobel: 3 (default), 5 or 7\n"
               "  --out OUT       the edges (255 at an edge, 0 elsewhere), or with --sobel the\n"
               "                  derivative's absolute value saturated to 255\n"
               "                  (cv2.convertScaleAbs), as PNG (.pgm: PGM)\n");
}

static int
parse_sobel(edges_args *a, const char *v)
{
    char tail;

    if (sscanf(v, "%u,%u%c", &a->dx, &a->dy, &tail) != 2)
        return tool_usage_error("edges", "--sobel wants DX,DY (e.g. 1,0), not '%s'", v), -1;
    a->sobel = 1;
    return 1;
}

static int
edges_option(void *args, int argc, char **argv, int *i)
{
    edges_args *a = args;
    const char *v = NULL;
    unsigned long x = 0;
    int r;

    if (strcmp(argv[*i], "--l2") == 0)
        return a->canny.l2_gradient = 1, 1;
    if ((r = tool_option_value(argc, argv, i, "--out", &v)) != 0)
        return r < 0 ? r : (a->out_path = v, 1);
    if ((r = tool_option_value(argc, argv, i, "--sobel", &v)) != 0)
        return r < 0 ? r : parse_sobel(a, v);
    if ((r = tool_option_ulong(argc, argv, i, "--aperture", 255, &x)) != 0)
        return r < 0 ? r : (a->canny.aperture_size = (unsigned)x, 1);
    if ((r = tool_option_ulong(argc, argv, i, "--ksize", 255, &a->ksize)) != 0)
        return r;
    if ((r = tool_option_double(argc, argv, i, "--low", &a->canny.threshold1)) != 0)
        return r;
    return tool_option_double(argc, argv, i, "--high", &a->canny.threshold2);
}

/* --- the work --- */

static votecl_status
run_canny(votecl_context *ctx, const edges_args *a, const tool_image *gray, edges_result *r)
{
    votecl_image view = tool_image_view(gray);
    double t0 = tool_now();
    votecl_status st = votecl_edges_canny(ctx, &view, &a->canny, r->map.data, r->map.stride);

    r->seconds = tool_now() - t0;
    for (size_t y = 0; st == VOTECL_OK && y < gray->height; y++)
        for (size_t x = 0; x < gray->width; x++)
            r->edges += r->map.data[y * r->map.stride + x] != 0;
    return st;
}

static votecl_status
run_sobel(votecl_context *ctx, const edges_args *a, const tool_image *gray, edges_result *r)
{
    size_t n = gray->width * gray->height;
    int32_t *g = malloc((n > 0 ? n : 1) * sizeof *g);
    votecl_image view = tool_image_view(gray);
    votecl_status st = VOTECL_OUT_OF_HOST_MEMORY;
    double t0 = tool_now();

    if (g != NULL)
        st = votecl_edges_sobel(ctx, &view, a->dx, a->dy, (unsigned)a->ksize, g, gray->width);
    r->seconds = tool_now() - t0;
    for (size_t i = 0; st == VOTECL_OK && i < n; i++) {
        int64_t m = g[i] < 0 ? -(int64_t)g[i] : g[i];
        r->map.data[(i / gray->width) * r->map.stride + i % gray->width] =
            (unsigned char)(m > 255 ? 255 : m);
        r->edges += g[i] != 0;
        r->min = i == 0 || g[i] < r->min ? g[i] : r->min;
        r->max = i == 0 || g[i] > r->max ? g[i] : r->max;
    }
    free(g);
    return st;
}

/* The gray u8 image of image, and the step on it into r. */
static int
edges_compute(votecl_context *ctx, const edges_args *a, const tool_image *image, edges_result *r)
{
    tool_image gray = {0}, u8 = {0};
    char error[300];
    votecl_status st;
    int rc = TOOL_EXIT_FAILURE;

    if (tool_image_to_gray(image, &gray, error, sizeof error) < 0 ||
        tool_image_u8(&gray, &u8, error, sizeof error) < 0 ||
        tool_image_alloc(&r->map, u8.width, u8.height, 1, VOTECL_DTYPE_U8, error, sizeof error) <
            0) {
        fprintf(stderr, "votecl edges: %s\n", error);
        goto out;
    }
    st = a->sobel ? run_sobel(ctx, a, &u8, r) : run_canny(ctx, a, &u8, r);
    rc = st == VOTECL_OK ? TOOL_EXIT_OK : tool_fail(ctx, st, a->sobel ? "sobel" : "canny");
out:
    tool_image_free(&gray);
    tool_image_free(&u8);
    return rc;
}

/* --- output --- */

static void
print_json(const edges_args *a, const edges_result *r)
{
    tool_json j;

    tool_json_init(&j, stdout);
    tool_json_begin_object(&j);
    tool_json_header(&j, "edges");
    tool_json_parameters(&j);
    if (a->sobel) {
        tool_json_kv_uint(&j, "dx", a->dx);
        tool_json_kv_uint(&j, "dy", a->dy);
        tool_json_kv_uint(&j, "ksize", a->ksize);
    } else {
        tool_json_kv_double(&j, "low", a->canny.threshold1);
        tool_json_kv_double(&j, "high", a->canny.threshold2);
        tool_json_kv_uint(&j, "aperture", a->canny.aperture_size);
        tool_json_kv_bool(&j, "l2", a->canny.l2_gradient);
    }
    tool_json_results(&j);
    if (a->sobel) {
        tool_json_kv_uint(&j, "nonzero", r->edges);
        tool_json_kv_int(&j, "min", r->min);
        tool_json_kv_int(&j, "max", r->max);
    } else
        tool_json_kv_uint(&j, "edges", r->edges);
    tool_json_kv_double(&j, "seconds", r->seconds);
    tool_json_end_object(&j); /* results */
    tool_json_end_object(&j);
    tool_json_finish(&j);
}

static void
print_text(const edges_args *a, const tool_image *image, const edges_result *r)
{
    if (a->sobel) {
        printf("# %s: %zux%zu; sobel dx %u dy %u ksize %lu; %.2f ms\n", a->image_path, image->width,
               image->height, a->dx, a->dy, a->ksize, r->seconds * 1e3);
        printf("# nonzero min max\n%zu %d %d\n", r->edges, (int)r->min, (int)r->max);
        return;
    }
    printf("# %s: %zux%zu; canny low %g high %g aperture %u %s; %.2f ms\n", a->image_path,
           image->width, image->height, a->canny.threshold1, a->canny.threshold2,
           a->canny.aperture_size, a->canny.l2_gradient ? "L2" : "L1", r->seconds * 1e3);
    printf("# edge pixels\n%zu\n", r->edges);
}

static int
edges_output(const tool_options *options, const edges_args *a, const tool_image *image,
             const edges_result *r)
{
    char error[600];

    if (options->json)
        print_json(a, r);
    else
        print_text(a, image, r);
    if (a->out_path != NULL && tool_image_write(a->out_path, &r->map, error, sizeof error) < 0) {
        fprintf(stderr, "votecl edges: %s\n", error);
        return TOOL_EXIT_FAILURE;
    }
    return TOOL_EXIT_OK;
}

int
tool_cmd_edges(tool_options *options, int argc, char **argv)
{
    edges_args a = {.ksize = 3};
    edges_result r = {0};
    tool_image image = {0};
    votecl_context *ctx = NULL;
    int rc;

    votecl_canny_params_init(&a.canny);
    rc = tool_image_command_start(options, "edges", edges_option, &a, edges_usage, argc, argv,
                                  &a.image_path, &image);
    if (rc != TOOL_EXIT_OK || options->help)
        return rc;
    if ((rc = tool_context_open(options, &ctx)) == TOOL_EXIT_OK &&
        (rc = edges_compute(ctx, &a, &image, &r)) == TOOL_EXIT_OK)
        rc = edges_output(options, &a, &image, &r);
    votecl_context_free(ctx);
    tool_image_free(&r.map);
    tool_image_free(&image);
    return rc;
}
