/* PClines in the votecl tool (tools/algorithms.h): its demo step, votecl batch lines, the
 * bench group lines and votecl eval lines (tools/eval-lines.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bench.h"
#include "plot.h"

/* --- demo: straight lines: PClines --- */

static tool_demo_result
demo_lines(tool_demo *d, const tool_demo_image *im)
{
    tool_lines_result r = {0};
    tool_image canvas = {0};
    votecl_lines_params params;
    char error[600], note[400];
    tool_demo_result result = TOOL_DEMO_FAILED;
    votecl_status st;
    votecl_lines_params_init(&params);
    params.max_lines = 10;
    params.segments = 1;    /* the lines are drawn where they lie, */
    params.min_length = 10; /* not as dots where they cross clutter */
    if ((st = tool_lines_compute(d->ctx, &params, &im->image, &r)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "PClines");
        goto out;
    }
    snprintf(note, sizeof note, "%zu lines; %zu edges; TS %ux%u, radius %u; %.2f ms", r.found,
             r.stats.edges, r.columns, r.rows, r.params.radius, r.seconds * 1e3);
    printf("  lines: %s\n", note);
    result =
        tool_demo_write_captioned(d,
                                  tool_lines_annotate(&im->image, r.lines, r.shown, &r.segments,
                                                      &canvas, error, sizeof error),
                                  &canvas, error, im->stem, "lines", note);
out:
    tool_lines_result_free(&r);
    return result;
}

/* --- batch --- */

static void
lines_init(void *args)
{
    votecl_lines_params *p = args;
    votecl_lines_params_init(p);
    p->max_lines = 20;
}

static int
lines_option(void *args, int argc, char **argv, int *i)
{
    return tool_lines_param_option(args, argc, argv, i);
}

/* The worker's plan, kept while the images keep their size (a video's frames): planning
 * once is what makes a collection faster than single runs. */
typedef struct lines_state {
    votecl_lines_plan *plan;
    size_t width, height;
} lines_state;

static void
lines_state_free(void *state)
{
    lines_state *l = state;
    if (l != NULL)
        votecl_lines_plan_free(l->plan);
    free(l);
}

/* What the plan reads: u8 gray, as votecl lines reads (16-bit gray taken as its high byte),
 * or a u8 colour image as it is (the library converts it on the device with the same
 * rounding as tool_gray_u8, so the lines are those of votecl lines). *borrowed: 1 when gray
 * is image itself (u8 gray or colour), not to be freed. */
static int
gray_u8(const tool_image *image, tool_image *gray, int *borrowed, char *error, size_t size)
{
    *borrowed = image->dtype == VOTECL_DTYPE_U8 &&
                (image->channels == 1 || image->channels == 3 || image->channels == 4);
    if (*borrowed) {
        *gray = *image;
        return 0;
    }
    return tool_gray_u8(image, gray, error, size);
}

static votecl_status
lines_plan(const votecl_lines_params *params, votecl_context *ctx, void **state,
           const tool_image *gray, lines_state **out)
{
    lines_state *l = *state;
    if (l == NULL && (l = *state = calloc(1, sizeof *l)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    *out = l;
    if (l->plan != NULL && l->width == gray->width && l->height == gray->height)
        return VOTECL_OK;
    votecl_lines_plan_free(l->plan);
    l->plan = NULL;
    l->width = gray->width;
    l->height = gray->height;
    return votecl_lines_plan_new(ctx, params, gray->width, gray->height, &l->plan);
}

/* What tool_lines_compute() gives, from the worker's plan and one run. */
static votecl_status
lines_compute(const void *args, votecl_context *ctx, void **state, const tool_image *image,
              tool_json *j, double *seconds, tool_image *annotated)
{
    const votecl_lines_params *params = args;
    tool_lines_result r = {0};
    tool_image gray = {0};
    lines_state *l = NULL;
    votecl_image view;
    char error[300];
    int borrowed = 0;
    double t0 = tool_now();
    votecl_status st = VOTECL_INVALID_ARGUMENT;
    if (gray_u8(image, &gray, &borrowed, error, sizeof error) < 0 ||
        (st = lines_plan(params, ctx, state, &gray, &l)) != VOTECL_OK)
        goto out;
    r.shown = params->max_lines ? params->max_lines : TOOL_HOUGH_MAX_SHOWN;
    if ((r.lines = calloc(r.shown, sizeof *r.lines)) == NULL) {
        st = VOTECL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    view = tool_image_view(&gray);
    if ((st = votecl_lines_run(l->plan, &view, r.lines, r.shown, &r.found)) != VOTECL_OK ||
        (st = votecl_lines_plan_last_stats(l->plan, &r.stats)) != VOTECL_OK)
        goto out;
    *seconds = tool_now() - t0;
    r.shown = r.found < r.shown ? r.found : r.shown;
    votecl_lines_plan_shape(l->plan, &r.columns, &r.rows);
    votecl_lines_plan_params(l->plan, &r.params);
    if ((st = tool_lines_keep_segments(l->plan, &r)) != VOTECL_OK)
        goto out;
    tool_lines_json(j, &r, 0);
    if (annotated != NULL)
        st = tool_annotate_status(tool_lines_annotate(image, r.lines, r.shown,
                                                      params->segments ? &r.segments : NULL,
                                                      annotated, error, sizeof error));
out:
    tool_lines_result_free(&r);
    if (!borrowed)
        tool_image_free(&gray);
    return st;
}

/* --- bench --- */

typedef struct lines_op {
    votecl_lines_plan *plan;
    votecl_image image;
    votecl_lines_line lines[64];
    size_t found;
} lines_op;

static votecl_status
run_lines_op(void *arg)
{
    lines_op *op = arg;
    return votecl_lines_run(op->plan, &op->image, op->lines, 64, &op->found);
}

/* PClines on building.png stretched to the frame size: a gray image in host memory in,
 * lines out (upload, Sobel, edges, sort, accumulation, maxima, the fit, read-backs all
 * timed); case "lines1080" at the defaults (each line fitted to its edges), "lines1080_cells"
 * with refine 0 (the cells' lines: the vote alone, as before the fit was the default). */
static void
bench_lines_case(tool_bench *b, const tool_image *big, const char *name, int refine)
{
    votecl_lines_params params;
    lines_op op = {0};
    double seconds = 0;
    votecl_status st;

    op.image = tool_image_view(big);
    votecl_lines_params_init(&params);
    params.refine = refine;
    st = votecl_lines_plan_new(b->ctx, &params, big->width, big->height, &op.plan);
    if (st == VOTECL_OK)
        st = tool_bench_time(b->ctx, run_lines_op, &op, b->args.reps, 1, &seconds);
    tool_bench_case_begin(b, name, st);
    tool_json_kv_uint(&b->json, "width", big->width);
    tool_json_kv_uint(&b->json, "height", big->height);
    tool_json_kv_uint(&b->json, "refine", (unsigned)refine);
    if (tool_bench_case_result(b, name, st, seconds, 1)) {
        tool_json_kv_uint(&b->json, "lines", op.found);
        tool_bench_queued(b, run_lines_op, &op);
    }
    tool_json_end_object(&b->json);
    tool_progress(b->options, "bench: %s %8.1f us, %zu lines\n", name, seconds * 1e6, op.found);
    votecl_lines_plan_free(op.plan);
}

static void
bench_lines(tool_bench *b)
{
    tool_image big = {0};
    char error[256];

    if (b->building.data == NULL || tool_image_alloc(&big, b->frame_width, b->frame_height, 1,
                                                     VOTECL_DTYPE_U8, error, sizeof error) != 0)
        return;
    tool_bench_stretch(&b->building, &big);
    bench_lines_case(b, &big, "lines1080", 1);
    bench_lines_case(b, &big, "lines1080_cells", 0);
    tool_image_free(&big);
}

/* --- the descriptor --- */

TOOL_ALGORITHM_ONE(lines, "straight lines by PClines: Sobel, orientation, TS space in local memory",
                   &tool_eval_lines,
                   .options = "[--distance d] [--rows V] [--window n] [--threshold T] [--radius r] "
                              "[--edge-threshold E] [--max-lines K] [--fit-on-host]",
                   .args_size = sizeof(votecl_lines_params), TOOL_BATCH_HOOKS(lines),
                   .state_free = lines_state_free);
