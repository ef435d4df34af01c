/* votecl lines: straight lines of an image by PClines (Sobel edges, TS space, maxima), as text
 * or JSON, an annotated PNG and the TS space as an image. Shared with the demo:
 * tool_lines_compute() and tool_lines_annotate(). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "options.h"
#include "plot.h"
#include "tool.h"

#define LINES_DEFAULT_MAX 20

typedef struct lines_args {
    const char *image_path;
    const char *out_path;
    const char *space_path;
    unsigned long repeat;
    votecl_lines_params params;
} lines_args;

static void
lines_usage(FILE *f)
{
    fprintf(f,
            "usage: votecl lines IMAGE [--distance d] [--rows V] [--window n] [--threshold T]\n"
            "                   [--radius r] [--orientation-kernel K] [--edge-threshold E]\n"
            "                   [--max-lines K] [--segments [--min-length L] [--max-gap G]]\n"
            "                   [--fit-on-host]\n"
            "                   [--repeat R] [--json]\n"
            "                   [--out OUT.png] [--space TS.png]\n"
            "Straight lines of a PNG, PGM or PPM image by PClines (parallel coordinates): Sobel\n"
            "edges of the gray image voting in the TS space, most votes first, as text or JSON\n"
            "(a x + b y + c = 0 and x cos(theta) + y sin(theta) = rho, pixels, y down).\n"
            "  --distance d        the TS space has 2d columns (default max(W, H) / 2)\n"
            "  --rows V            rows of v (default max(W, H))\n"
            "  --window n          odd side of the maxima neighbourhood (default 5)\n"
            "  --threshold T       least votes of a line (default min(W, H) / 4)\n"
            "  --radius r          orientation window in columns at the axes, half at the\n"
            "                      diagonals (one angle); 0: none (default 3 d / 20)\n"
            "  --orientation-kernel K  Sobel operator giving the orientation: 3, 5 or 7\n"
            "                      (default 7)\n"
            "  --edge-threshold E  least Sobel magnitude of an edge (default 128)\n"
            "  --max-lines K       at most K lines (default %d; 0: all)\n"
            "  --fit-on-host       fit the lines on the host's cores even on a GPU (the same\n"
            "                      lines; for many contexts a GPU in votecl batch)\n"
            "  --segments          also each line's segments: every run of edge pixels along\n"
            "                      it, listed after the lines (HoughLinesP's result; each\n"
            "                      line's longest on its own row), drawn with --out\n"
            "  --min-length L      segments shorter than L px are not reported (default 0)\n"
            "  --repeat R          time R runs after the first and report the median\n"
            "  --max-gap G         gaps up to G px are bridged inside a segment (default 5)\n"
            "  --out FILE          the image with the lines drawn (PNG, or PPM for .ppm)\n"
            "  --space FILE        the TS space: u across (T then S), v down, maxima ringed\n",
            LINES_DEFAULT_MAX);
}

/* --- arguments --- */

/* The options votecl lines shares with its batch case (members of votecl_lines_params). */
static const tool_option_spec lines_param_options[] = {
    TOOL_OPT_NUMBER(votecl_lines_params, distance, "--distance", VOTECL_LINES_MAX_DISTANCE),
    TOOL_OPT_NUMBER(votecl_lines_params, rows, "--rows", VOTECL_LINES_MAX_ROWS),
    TOOL_OPT_NUMBER(votecl_lines_params, neighbourhood, "--window", 99),
    TOOL_OPT_NUMBER(votecl_lines_params, threshold, "--threshold", UINT32_MAX),
    TOOL_OPT_NUMBER(votecl_lines_params, radius, "--radius", VOTECL_LINES_MAX_DISTANCE),
    TOOL_OPT_NUMBER(votecl_lines_params, edge_threshold, "--edge-threshold", 100000),
    TOOL_OPT_NUMBER(votecl_lines_params, max_lines, "--max-lines", 1000000),
    TOOL_OPT_FLAG(votecl_lines_params, fit_on_host, "--fit-on-host"),
};

/* The single command's own. */
static const tool_option_spec lines_options[] = {
    TOOL_OPT_FLAG(lines_args, params.segments, "--segments"),
    TOOL_OPT_NUMBER(lines_args, repeat, "--repeat", 100000),
    TOOL_OPT_NUMBER(lines_args, params.min_length, "--min-length", UINT32_MAX),
    TOOL_OPT_NUMBER(lines_args, params.max_gap, "--max-gap", UINT32_MAX),
    TOOL_OPT_STRING(lines_args, out_path, "--out"),
    TOOL_OPT_STRING(lines_args, space_path, "--space"),
    TOOL_OPT_NUMBER(lines_args, params.orientation_kernel, "--orientation-kernel", 7),
};

int
tool_lines_param_option(votecl_lines_params *params, int argc, char **argv, int *i)
{
    return tool_option_table(lines_param_options, TOOL_OPTION_COUNT(lines_param_options), params,
                             argc, argv, i);
}

static int
lines_option(void *args, int argc, char **argv, int *i)
{
    lines_args *a = args;
    int r = tool_option_table(lines_options, TOOL_OPTION_COUNT(lines_options), a, argc, argv, i);
    return r != 0 ? r : tool_lines_param_option(&a->params, argc, argv, i);
}

/* --- the work, shared with the demo --- */

static votecl_status
lines_run_twice(votecl_lines_plan *plan, const tool_image *gray, tool_lines_result *r)
{
    votecl_image view = tool_image_view(gray);
    size_t capacity = r->shown;
    votecl_status st = votecl_lines_run(plan, &view, r->lines, capacity, &r->found);
    size_t runs = r->repeat > 0 ? r->repeat : 1, done = 0;
    double *t = calloc(runs, sizeof *t);
    /* timed are the runs after the first: the first may set the device up */
    for (; st == VOTECL_OK && t != NULL && done < runs; done++) {
        double t0 = tool_now();
        st = votecl_lines_run(plan, &view, r->lines, capacity, &r->found);
        t[done] = tool_now() - t0;
    }
    if (t == NULL)
        st = VOTECL_OUT_OF_HOST_MEMORY;
    if (st == VOTECL_OK) {
        qsort(t, runs, sizeof *t, tool_compare_doubles);
        r->seconds = t[runs / 2];
    }
    free(t);
    r->shown = r->found < capacity ? r->found : capacity;
    return st;
}

votecl_status
tool_lines_keep_segments(const votecl_lines_plan *plan, tool_lines_result *r)
{
    const votecl_segment *segments;
    size_t n;
    votecl_status st = votecl_lines_plan_segments(plan, &segments, &n);
    return st == VOTECL_OK ? tool_segments_keep(&r->segments, segments, n) : st;
}

votecl_status
tool_lines_compute(votecl_context *ctx, const votecl_lines_params *params, const tool_image *image,
                   tool_lines_result *r)
{
    votecl_lines_plan *plan = NULL;
    tool_image gray = {0};
    char error[600];
    size_t cells;
    votecl_status st = VOTECL_INVALID_ARGUMENT;
    if (tool_gray_u8(image, &gray, error, sizeof error) < 0)
        goto out;
    if ((st = votecl_lines_plan_new(ctx, params, gray.width, gray.height, &plan)) != VOTECL_OK)
        goto out;
    votecl_lines_plan_shape(plan, &r->columns, &r->rows);
    votecl_lines_plan_params(plan, &r->params);
    cells = (size_t)r->columns * r->rows;
    r->lines =
        tool_line_result_alloc(params->max_lines, sizeof *r->lines, cells, &r->space, &r->shown);
    st = r->lines != NULL ? lines_run_twice(plan, &gray, r) : VOTECL_OUT_OF_HOST_MEMORY;
    if (st == VOTECL_OK && (st = votecl_lines_plan_read_space(plan, r->space, cells)) == VOTECL_OK)
        st = votecl_lines_plan_last_stats(plan, &r->stats);
    if (st == VOTECL_OK)
        st = tool_lines_keep_segments(plan, r);
out:
    votecl_lines_plan_free(plan);
    tool_image_free(&gray);
    return st;
}

void
tool_lines_result_free(tool_lines_result *r)
{
    tool_line_result_free(r->lines, r->space, &r->segments);
    memset(r, 0, sizeof *r);
}

int
tool_lines_annotate(const tool_image *image, const votecl_lines_line *lines, size_t n,
                    const tool_segments *segments, tool_image *out, char *error, size_t error_size)
{
    votecl_hough_line *h = calloc(n > 0 ? n : 1, sizeof *h);
    int rc;
    if (h == NULL) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        h[i] = (votecl_hough_line){.theta = lines[i].theta,
                                   .rho = lines[i].rho,
                                   .votes = lines[i].votes,
                                   .has_segment = lines[i].has_segment,
                                   .x0 = lines[i].x0,
                                   .y0 = lines[i].y0,
                                   .x1 = lines[i].x1,
                                   .y1 = lines[i].y1};
    rc = tool_hough_annotate_segments(image, h, n, segments, out, error, error_size);
    free(h);
    return rc;
}

/* --- output --- */

static void
print_text(const lines_args *a, const tool_image *image, const tool_lines_result *r)
{
    printf("# %s: %zux%zu; %zu edges; TS space %u x %u (d %u, radius %u, threshold %u); "
           "%.2f ms\n",
           a->image_path, image->width, image->height, r->stats.edges, r->columns, r->rows,
           r->params.distance, r->params.radius, r->params.threshold, r->seconds * 1e3);
    printf("# %zu line(s): a b c theta_degrees rho votes\n", r->found);
    for (size_t i = 0; i < r->shown; i++) {
        const votecl_lines_line *l = &r->lines[i];
        printf("%.6f %.6f %.3f %.3f %.3f %u", l->a, l->b, l->c, l->theta * 180.0 / M_PI, l->rho,
               l->votes);
        tool_print_segment(l->has_segment, l->x0, l->y0, l->x1, l->y1);
    }
    if (r->params.segments)
        tool_print_segments(&r->segments);
}

static void
print_json(const tool_lines_result *r)
{
    tool_json j;
    tool_json_document(&j, stdout, "lines");
    tool_lines_json(&j, r, 1);
    tool_json_document_end(&j);
}

static int
lines_run(tool_options *options, votecl_context *ctx, void *args, const tool_image *image)
{
    lines_args *a = args;
    tool_lines_result r = {.repeat = a->repeat};
    votecl_status st = tool_lines_compute(ctx, &a->params, image, &r);
    /* the TS space: u across, v down */
    tool_line_output o = {.command = "lines",
                          .out_path = a->out_path,
                          .space_path = a->space_path,
                          .space_name = "TS space",
                          .space = r.space,
                          .columns = r.columns,
                          .rows = r.rows,
                          .column_major = 1,
                          .pclines = r.lines,
                          .shown = r.shown,
                          .segments = a->params.segments ? &r.segments : NULL};
    int rc;
    if (st != VOTECL_OK)
        rc = tool_fail(ctx, st, "lines");
    else if (options->json)
        print_json(&r);
    else
        print_text(a, image, &r);
    if (st == VOTECL_OK)
        rc = tool_line_output_write(&o, image);
    tool_lines_result_free(&r);
    return rc;
}

static const tool_image_command lines_command = {"lines", lines_option, lines_usage,
                                                 .run = lines_run};

int
tool_cmd_lines(tool_options *options, int argc, char **argv)
{
    lines_args a = {0};
    votecl_lines_params_init(&a.params);
    a.params.max_lines = LINES_DEFAULT_MAX;
    return tool_image_command_run(options, &lines_command, &a, &a.image_path, argc, argv);
}
