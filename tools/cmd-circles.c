/* votecl circles: circles of an image by the Hough transform (votecl-circles.h), as text or
 * JSON and an annotated PNG. Shared with the descriptor (tools/algo-circles.c):
 * tool_circles_compute(), tool_circles_json(), tool_circles_annotate(). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "circles-tool.h"
#include "plot.h"

typedef struct circles_args {
    const char *image_path;
    const char *out_path;
    votecl_circles_params params;
} circles_args;

static void
circles_usage(FILE *f)
{
    fprintf(
        f,
        "usage: votecl circles IMAGE [--method gradient|radii] [--min-radius R]\n"
        "                     [--max-radius R] [--max-circles K] [--canny T]\n"
        "                     [--dp D] [--min-dist D] [--votes V]\n"
        "                     [--radius-step S] [--threshold T] [--raw]\n"
        "                     [--min-xdistance X] [--min-ydistance Y] [--json] [--out OUT.png]\n"
        "Circles of a PNG, PGM or PPM image by the Hough transform, as text or JSON (centre\n"
        "x y and radius in pixels, y down).\n"
        "  --method M      gradient: OpenCV's HOUGH_GRADIENT (default); radii: scikit-image's\n"
        "                  hough_circle, one accumulator per radius, on the Canny edges\n"
        "  --min-radius R  least radius (default 0 gradient, 5 radii)\n"
        "  --max-radius R  largest radius (default: max(W, H) gradient, 50 radii)\n"
        "  --max-circles K most circles reported (default %d)\n"
        "  --canny T       Canny's high threshold, the low one T / 2 (default 100)\n"
        "gradient (OpenCV's names: dp, minDist, param2):\n"
        "  --dp D          image pixels per accumulator cell (default 1)\n"
        "  --min-dist D    least distance between centres (default min(W, H) / 8)\n"
        "  --votes V       a centre needs more votes, its radius more edge pixels (default 100)\n"
        "radii (scikit-image's names):\n"
        "  --radius-step S radii from min to max in steps of S (default 1)\n"
        "  --threshold T   least peak value (default: half of each radius's largest)\n"
        "  --raw           counts, not normalised by the circle's points\n"
        "  --min-xdistance X, --min-ydistance Y  peak window half-widths (default 1)\n",
        TOOL_CIRCLES_MAX_SHOWN);
}

void
tool_circles_params_init(votecl_circles_params *params, votecl_circles_method method)
{
    votecl_circles_params_init(params, method);
    params->max_circles = TOOL_CIRCLES_MAX_SHOWN;
}

static int
circles_method(votecl_circles_params *p, const char *v)
{
    votecl_circles_params fresh;
    votecl_circles_method m =
        strcmp(v, "radii") == 0 ? VOTECL_CIRCLES_RADII : VOTECL_CIRCLES_GRADIENT;

    if (strcmp(v, "gradient") != 0 && strcmp(v, "radii") != 0)
        return tool_usage_error("circles", "--method wants gradient or radii"), -1;
    /* the method's own defaults for the radii; what was given stays */
    tool_circles_params_init(&fresh, m);
    p->method = m;
    if (p->min_radius == 0 && p->max_radius == 0) {
        p->min_radius = fresh.min_radius;
        p->max_radius = fresh.max_radius;
    }
    return 1;
}

int
tool_circles_option(votecl_circles_params *p, int argc, char **argv, int *i)
{
    const char *v = NULL;
    unsigned long x = 0;
    int r;

    if (strcmp(argv[*i], "--raw") == 0)
        return p->normalize = 0, 1;
    if ((r = tool_option_value(argc, argv, i, "--method", &v)) != 0)
        return r < 0 ? r : circles_method(p, v);
    if ((r = tool_option_ulong(argc, argv, i, "--min-radius", 65535, &x)) != 0)
        return r < 0 ? r : (p->min_radius = (unsigned)x, 1);
    if ((r = tool_option_ulong(argc, argv, i, "--max-radius", 65535, &x)) != 0)
        return r < 0 ? r : (p->max_radius = (unsigned)x, 1);
    if ((r = tool_option_ulong(argc, argv, i, "--max-circles", 1000000, &x)) != 0)
        return r < 0 ? r : (p->max_circles = x, 1);
    if ((r = tool_option_ulong(argc, argv, i, "--canny", VOTECL_CIRCLES_MAX_CANNY, &x)) != 0)
        return r < 0 ? r : (p->canny_high = (unsigned)x, 1);
    if ((r = tool_option_ulong(argc, argv, i, "--votes", UINT32_MAX, &x)) != 0)
        return r < 0 ? r : (p->votes = (unsigned)x, 1);
    if ((r = tool_option_ulong(argc, argv, i, "--radius-step", 65535, &x)) != 0)
        return r < 0 ? r : (p->radius_step = (unsigned)x, 1);
    if ((r = tool_option_ulong(argc, argv, i, "--min-xdistance", 65535, &x)) != 0)
        return r < 0 ? r : (p->min_xdistance = (unsigned)x, 1);
    if ((r = tool_option_ulong(argc, argv, i, "--min-ydistance", 65535, &x)) != 0)
        return r < 0 ? r : (p->min_ydistance = (unsigned)x, 1);
    if ((r = tool_option_double(argc, argv, i, "--dp", &p->dp)) != 0)
        return r;
    if ((r = tool_option_double(argc, argv, i, "--min-dist", &p->min_dist)) != 0)
        return r;
    return tool_option_double(argc, argv, i, "--threshold", &p->threshold);
}

static int
circles_option(void *args, int argc, char **argv, int *i)
{
    circles_args *a = args;
    const char *v = NULL;
    int r;

    if ((r = tool_option_value(argc, argv, i, "--out", &v)) != 0)
        return r < 0 ? r : (a->out_path = v, 1);
    return tool_circles_option(&a->params, argc, argv, i);
}

/* --- the work, shared with the descriptor --- */

/* The u8 image the method takes: the gray image, or its Canny edges for the radii method. */
static votecl_status
method_input(votecl_context *ctx, const votecl_circles_params *p, const tool_image *image,
             tool_image *out)
{
    tool_image gray = {0};
    char error[300];
    votecl_status st = VOTECL_OUT_OF_HOST_MEMORY;

    if (tool_image_to_gray(image, &gray, error, sizeof error) < 0 ||
        tool_image_u8(&gray, out, error, sizeof error) < 0)
        goto out;
    st = VOTECL_OK;
    if (p->method == VOTECL_CIRCLES_RADII) {
        votecl_image v = tool_image_view(out);
        st = votecl_hough_edges(ctx, &v, p->canny_high / 2, p->canny_high, out->data, out->stride);
    }
out:
    tool_image_free(&gray);
    return st;
}

votecl_status
tool_circles_compute(votecl_context *ctx, const votecl_circles_params *params,
                     const tool_image *image, tool_circles_result *r)
{
    votecl_circles_plan *plan = NULL;
    tool_image input = {0};
    votecl_image view;
    size_t capacity = params->max_circles ? params->max_circles : TOOL_CIRCLES_MAX_SHOWN;
    votecl_status st = method_input(ctx, params, image, &input);
    double t0;

    if (st == VOTECL_OK && (r->circles = calloc(capacity, sizeof *r->circles)) == NULL)
        st = VOTECL_OUT_OF_HOST_MEMORY;
    if (st == VOTECL_OK)
        st = votecl_circles_plan_new(ctx, params, input.width, input.height, &plan);
    view = tool_image_view(&input);
    /* timed is the second run: the first may set the device up */
    if (st == VOTECL_OK)
        st = votecl_circles_run(plan, &view, r->circles, capacity, &r->found, &r->stats);
    t0 = tool_now();
    if (st == VOTECL_OK)
        st = votecl_circles_run(plan, &view, r->circles, capacity, &r->found, &r->stats);
    r->seconds = tool_now() - t0;
    r->shown = r->found < capacity ? r->found : capacity;
    votecl_circles_plan_free(plan);
    tool_image_free(&input);
    return st;
}

void
tool_circles_result_free(tool_circles_result *r)
{
    free(r->circles);
    memset(r, 0, sizeof *r);
}

void
tool_circles_json(tool_json *j, const votecl_circles_params *p, const tool_circles_result *r)
{
    tool_json_parameters(j);
    tool_json_kv_string(j, "method", p->method == VOTECL_CIRCLES_RADII ? "radii" : "gradient");
    tool_json_kv_uint(j, "min_radius", p->min_radius);
    tool_json_kv_uint(j, "max_radius", p->max_radius);
    tool_json_kv_uint(j, "canny", p->canny_high);
    tool_json_results(j);
    tool_json_kv_uint(j, "edges", r->stats.kept);
    tool_json_kv_uint(j, "found", r->found);
    tool_json_key(j, "circles");
    tool_json_begin_array(j);
    for (size_t i = 0; i < r->shown; i++) {
        tool_json_begin_object(j);
        tool_json_kv_double(j, "x", r->circles[i].x);
        tool_json_kv_double(j, "y", r->circles[i].y);
        tool_json_kv_double(j, "radius", r->circles[i].radius);
        tool_json_kv_double(j, "score", r->circles[i].score);
        tool_json_kv_uint(j, "votes", r->circles[i].votes);
        tool_json_end_object(j);
    }
    tool_json_end_array(j);
}

static void
put_pixel(tool_image *out, long x, long y, const unsigned char rgb[3])
{
    if (x >= 0 && y >= 0 && (size_t)x < out->width && (size_t)y < out->height)
        memcpy(out->data + (size_t)y * out->stride + (size_t)x * 3, rgb, 3);
}

int
tool_circles_annotate(const tool_image *image, const votecl_circle *circles, size_t n,
                      tool_image *out, char *error, size_t error_size)
{
    static const unsigned char palette[4][3] = {
        {255, 64, 64}, {64, 255, 64}, {64, 160, 255}, {255, 220, 64}};
    char label[32];

    /* the dimmed RGB copy the line detectors draw on: theirs with no line */
    if (tool_hough_annotate(image, NULL, 0, out, error, error_size) < 0)
        return -1;
    for (size_t i = n; i-- > 0;) { /* the first circle on top */
        const unsigned char *rgb = palette[i % 4];
        double r = circles[i].radius > 0.5 ? circles[i].radius : 0.5;
        long steps = (long)ceil(2 * M_PI * r * 2) + 8;
        for (long k = 0; k < steps; k++) {
            double a = 2 * M_PI * (double)k / (double)steps;
            put_pixel(out, lround(circles[i].x + r * cos(a)), lround(circles[i].y + r * sin(a)),
                      rgb);
        }
        put_pixel(out, lround(circles[i].x), lround(circles[i].y), rgb);
        snprintf(label, sizeof label, "%zu", i + 1);
        tool_plot_text(out, lround(circles[i].x) + 2, lround(circles[i].y) + 2, label, 1, rgb);
    }
    return 0;
}

/* --- output --- */

static void
print_text(const circles_args *a, const tool_image *image, const tool_circles_result *r)
{
    printf("# %s: %zux%zu; %zu edges; %s method; %.2f ms\n", a->image_path, image->width,
           image->height, r->stats.kept,
           a->params.method == VOTECL_CIRCLES_RADII ? "radii" : "gradient", r->seconds * 1e3);
    printf("# %zu circle(s): x y radius score votes\n", r->found);
    for (size_t i = 0; i < r->shown; i++)
        printf("%.2f %.2f %.2f %.4g %u\n", r->circles[i].x, r->circles[i].y, r->circles[i].radius,
               r->circles[i].score, r->circles[i].votes);
}

static int
circles_run(tool_options *options, votecl_context *ctx, void *args, const tool_image *image)
{
    const circles_args *a = args;
    tool_circles_result r = {0};
    char error[600];
    tool_image out = {0};
    votecl_status st = tool_circles_compute(ctx, &a->params, image, &r);
    int rc = TOOL_EXIT_OK;

    if (st != VOTECL_OK)
        rc = tool_fail(ctx, st, "circles");
    else if (options->json) {
        tool_json j;
        tool_json_document(&j, stdout, "circles");
        tool_circles_json(&j, &a->params, &r);
        tool_json_kv_double(&j, "seconds", r.seconds);
        tool_json_document_end(&j);
    } else
        print_text(a, image, &r);
    if (st == VOTECL_OK && a->out_path != NULL)
        rc = tool_write_annotated(
            "circles", a->out_path, &out,
            tool_circles_annotate(image, r.circles, r.shown, &out, error, sizeof error), error,
            sizeof error);
    tool_circles_result_free(&r);
    return rc;
}

static const tool_image_command circles_command = {"circles", circles_option, circles_usage,
                                                   VOTECL_CIRCLES_MAX_SIDE, .run = circles_run};

int
tool_cmd_circles(tool_options *options, int argc, char **argv)
{
    circles_args a = {0};
    tool_circles_params_init(&a.params, VOTECL_CIRCLES_GRADIENT);
    return tool_image_command_run(options, &circles_command, &a, &a.image_path, argc, argv);
}
