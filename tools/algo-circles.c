/* The circle Hough transform in the votecl tool (tools/algorithms.h): its demo step,
 * votecl batch circles, the bench group circles and votecl eval circles
 * (tools/eval-circles.c). Each calls what votecl circles calls (tools/circles-tool.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bench.h"
#include "circles-tool.h"
#include "truth-circles.h"

/* --- demo --- */

static tool_demo_result
demo_circles(tool_demo *d, const tool_demo_image *im)
{
    votecl_circles_params params;
    tool_circles_result r = {0};
    tool_image canvas = {0};
    char error[600], note[200];
    tool_demo_result result = TOOL_DEMO_FAILED;
    votecl_status st;

    tool_circles_params_init(&params, VOTECL_CIRCLES_GRADIENT);
    params.max_circles = 10;
    if ((st = tool_circles_compute(d->ctx, &params, &im->gray, &r)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "circles");
        goto out;
    }
    snprintf(note, sizeof note, "%zu circles; %zu edge px; %.2f ms", r.found, r.stats.kept,
             r.seconds * 1e3);
    printf("  circles: %s\n", note);
    for (size_t i = 0; i < r.shown && i < 3; i++)
        printf("    circle %zu: (%.1f, %.1f) radius %.1f px, %.0f edge px\n", i + 1, r.circles[i].x,
               r.circles[i].y, r.circles[i].radius, r.circles[i].score);
    result = tool_demo_write_captioned(
        d, tool_circles_annotate(&im->image, r.circles, r.shown, &canvas, error, sizeof error),
        &canvas, error, im->stem, "circles", note);
out:
    tool_circles_result_free(&r);
    return result;
}

/* --- batch --- */

static void
circles_init(void *args)
{
    tool_circles_params_init(args, VOTECL_CIRCLES_GRADIENT);
}

static int
circles_option(void *args, int argc, char **argv, int *i)
{
    return tool_circles_option(args, argc, argv, i);
}

static votecl_status
circles_compute(const void *args, votecl_context *ctx, void **state, const tool_image *image,
                tool_json *j, double *seconds, tool_image *annotated)
{
    const votecl_circles_params *p = args;
    tool_circles_result r = {0};
    char error[300];
    votecl_status st = tool_circles_compute(ctx, p, image, &r);

    (void)state;
    if (st == VOTECL_OK) {
        tool_circles_json(j, p, &r);
        *seconds = r.seconds;
        if (annotated != NULL)
            st = tool_annotate_status(
                tool_circles_annotate(image, r.circles, r.shown, annotated, error, sizeof error));
    }
    tool_circles_result_free(&r);
    return st;
}

/* --- bench --- */

typedef struct circles_op {
    votecl_circles_plan *plan;
    votecl_image image;
    votecl_circle circles[64];
    size_t found;
} circles_op;

static votecl_status
run_circles_op(void *arg)
{
    circles_op *op = arg;
    return votecl_circles_run(op->plan, &op->image, op->circles, 64, &op->found, NULL);
}

/* One whole detection (gray image in, circles out: on a GPU-shaped device Canny, the votes,
 * the centre test and the radius histograms there, the rays and the selection on the host;
 * on a CPU the host plan) of a truth case, timed, with its recall. VOTECL_DEBUG=1 logs each
 * run's stages (lib/circles.c). */
static void
bench_circles_case(tool_bench *b, const char *name, const truth_circles_case *c,
                   votecl_circles_method method)
{
    votecl_circles_params p;
    circles_op op = {.image = {c->pixels, c->width, c->height, c->width, 1, VOTECL_DTYPE_U8}};
    truth_circles_score score = {0};
    truth_circle found[64];
    double seconds = 0;
    votecl_status st;

    votecl_circles_params_init(&p, method);
    p.min_radius = (unsigned)c->min_radius;
    p.max_radius = (unsigned)c->max_radius;
    p.min_dist = 20; /* the truth suite's rule (tools/eval-circles.c) */
    p.votes = 40;
    st = votecl_circles_plan_new(b->ctx, &p, c->width, c->height, &op.plan);
    if (st == VOTECL_OK)
        st = tool_bench_time(b->ctx, run_circles_op, &op, b->args.reps, 1, &seconds);
    for (size_t i = 0; st == VOTECL_OK && i < op.found && i < 64; i++)
        found[i] = (truth_circle){op.circles[i].x, op.circles[i].y, op.circles[i].radius};
    if (st == VOTECL_OK)
        truth_circles_score_case(c, found, op.found < 64 ? op.found : 64, &score);
    tool_bench_case_begin(b, name, st);
    tool_json_kv_uint(&b->json, "width", c->width);
    tool_json_kv_uint(&b->json, "height", c->height);
    tool_json_kv_uint(&b->json, "min_radius", p.min_radius);
    tool_json_kv_uint(&b->json, "max_radius", p.max_radius);
    tool_json_kv_uint(&b->json, "found", op.found);
    tool_json_kv_double(&b->json, "recall", truth_circles_recall(&score));
    tool_bench_case_result(b, name, st, seconds, 1);
    tool_json_end_object(&b->json);
    tool_progress(b->options, "bench: %-14s %8.1f us, %zu circles\n", name, seconds * 1e6,
                  op.found);
    votecl_circles_plan_free(op.plan);
}

/* The truth suite's first 1920 x 1080 scene (discs of radius 20 to 200 under noise). */
static void
bench_circles(tool_bench *b)
{
    truth_circles_case c;

    if (truth_circles_case_make(truth_circles_family_find("large"), 0, 1, &c) != 0)
        return;
    bench_circles_case(b, "circles1080p", &c, VOTECL_CIRCLES_GRADIENT);
    truth_circles_case_clear(&c);
}

/* --- the descriptor --- */

TOOL_ALGORITHM_ONE(
    circles, "circles of the Canny edges (OpenCV's HOUGH_GRADIENT)", &tool_eval_circles,
    .options = "[--method gradient|radii] [--min-radius R] [--max-radius R] [--max-circles K] "
               "[--canny T] [--dp D] [--min-dist D] [--votes V] [--radius-step S] "
               "[--threshold T] [--raw] [--min-xdistance X] [--min-ydistance Y]",
    .args_size = sizeof(votecl_circles_params), TOOL_BATCH_HOOKS(circles));
