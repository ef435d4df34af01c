/* The theta-rho Hough transform in the votecl tool (tools/algorithms.h): its demo step,
 * votecl batch hough and the bench group hough. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bench.h"
#include "options.h"
#include "plot.h"

/* --- demo: straight lines: the theta-rho Hough transform of the Sobel edges --- */

static void
hough_summary(const tool_hough_result *r, char *buffer, size_t size)
{
    char plan[160];
    tool_plan_summary(&r->info, plan, sizeof plan);
    snprintf(buffer, size, "%zu lines; %zu edge px (%.1f%%); %ux%u bins; %.2f ms; plan %s",
             r->found, r->stats.kept, 100.0 * r->stats.eta, r->angles, r->nbins, r->seconds * 1e3,
             plan);
}

static tool_demo_result
demo_hough_write(tool_demo *d, const tool_demo_image *im, const tool_hough_result *r,
                 const char *note)
{
    tool_image canvas = {0};
    char error[600];
    return tool_demo_write_captioned(d,
                                     tool_hough_annotate_segments(&im->image, r->lines, r->shown,
                                                                  &r->segments, &canvas, error,
                                                                  sizeof error),
                                     &canvas, error, im->stem, "hough", note);
}

static tool_demo_result
demo_hough(tool_demo *d, const tool_demo_image *im)
{
    tool_image edges = {0};
    tool_hough_result r = {0};
    votecl_hough_params params;
    char error[600], note[400];
    tool_demo_result result = TOOL_DEMO_FAILED;
    votecl_status st;
    votecl_hough_params_init(&params);
    params.max_lines = 10;
    params.segments = 1;    /* the lines are drawn where they lie, */
    params.min_length = 10; /* not as dots where they cross clutter */
    if (tool_hough_sobel(&im->gray, 200, params.thin_edges, &edges, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        goto out;
    }
    if ((st = tool_hough_compute(d->ctx, &params, &edges, &r)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "Hough transform");
        goto out;
    }
    hough_summary(&r, note, sizeof note);
    printf("  hough: %s\n", note);
    for (size_t i = 0; i < r.shown && i < 3; i++)
        printf("    line %zu: theta %.1f deg, rho %.1f px, %u votes\n", i + 1,
               r.lines[i].theta * 180.0 / M_PI, r.lines[i].rho, r.lines[i].votes);
    result = demo_hough_write(d, im, &r, note);
out:
    tool_hough_result_free(&r);
    tool_image_free(&edges);
    return result;
}

/* --- batch --- */

typedef struct hough_case {
    votecl_hough_params params;
    unsigned long sobel_threshold; /* 0 with sobel off: the image is an edge image */
    int sobel;
} hough_case;

static void
hough_init(void *args)
{
    hough_case *h = args;
    votecl_hough_params_init(&h->params);
    h->params.max_lines = 20;
    h->sobel = 1;
    h->sobel_threshold = 200;
}

/* The batch case's own (its --angles is at least 1); the rest are votecl hough's. */
static const tool_option_spec hough_options[] = {
    TOOL_OPT_RANGE(hough_case, params.angles, "--angles", 1, VOTECL_HOUGH_MAX_ANGLES),
    TOOL_OPT_NUMBER(hough_case, sobel_threshold, "--sobel-threshold", 100000),
};

static int
hough_option(void *args, int argc, char **argv, int *i)
{
    hough_case *h = args;
    const char *v = NULL;
    int r;
    if ((r = tool_option_value(argc, argv, i, "--edges", &v)) != 0) {
        if (r > 0 && strcmp(v, "sobel") != 0 && strcmp(v, "none") != 0)
            return tool_usage_error("batch", "--edges: sobel or none"), -1;
        return r < 0 ? r : (h->sobel = strcmp(v, "sobel") == 0, 1);
    }
    if ((r = tool_option_table(hough_options, TOOL_OPTION_COUNT(hough_options), h, argc, argv,
                               i)) != 0)
        return r;
    return tool_hough_param_option(&h->params, argc, argv, i);
}

/* The worker's plan, kept while the images keep their size (as the lines case's), and what
 * describes it in the records. */
typedef struct hough_state {
    votecl_hough_plan *plan;
    size_t width, height;
    tool_hough_result shape; /* angles, nbins: the parameters' */
} hough_state;

static void
hough_state_free(void *state)
{
    hough_state *h = state;
    if (h != NULL)
        votecl_hough_plan_free(h->plan);
    free(h);
}

static votecl_status
hough_plan(const hough_case *h, votecl_context *ctx, void **state, const tool_image *gray,
           hough_state **out)
{
    hough_state *hs = *state;
    if (hs == NULL && (hs = *state = calloc(1, sizeof *hs)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    *out = hs;
    if (hs->plan != NULL && hs->width == gray->width && hs->height == gray->height)
        return VOTECL_OK;
    votecl_hough_plan_free(hs->plan);
    hs->plan = NULL;
    hs->width = gray->width;
    hs->height = gray->height;
    votecl_status st = votecl_hough_plan_new(ctx, &h->params, gray->width, gray->height, &hs->plan);
    if (st == VOTECL_OK)
        votecl_hough_plan_shape(hs->plan, &hs->shape.angles, &hs->shape.nbins);
    return st;
}

/* votecl hough's results from the worker's plan and one run: the Sobel edges made on the
 * device from the gray image (votecl_hough_run_gray, the same edges as the host's Sobel of
 * votecl hough --edges sobel-host), or the gray image voted as an edge image. */
static votecl_status
hough_compute(const void *args, votecl_context *ctx, void **state, const tool_image *image,
              tool_json *j, double *seconds, tool_image *annotated)
{
    const hough_case *h = args;
    tool_hough_result r = {0};
    tool_image gray = {0};
    hough_state *hs = NULL;
    votecl_image view;
    char error[300];
    double t0 = tool_now();
    votecl_status st = VOTECL_OUT_OF_HOST_MEMORY;
    if (tool_gray_u8(image, &gray, error, sizeof error) < 0)
        goto out;
    if ((st = hough_plan(h, ctx, state, &gray, &hs)) != VOTECL_OK)
        goto out;
    r.shown = h->params.max_lines ? h->params.max_lines : TOOL_HOUGH_MAX_SHOWN;
    if ((r.lines = calloc(r.shown, sizeof *r.lines)) == NULL) {
        st = VOTECL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    view = tool_image_view(&gray);
    st = h->sobel ? votecl_hough_run_gray(hs->plan, &view, (unsigned)h->sobel_threshold, r.lines,
                                          r.shown, &r.found, &r.stats)
                  : votecl_hough_run(hs->plan, &view, r.lines, r.shown, &r.found, &r.stats);
    if (st != VOTECL_OK)
        goto out;
    *seconds = tool_now() - t0;
    r.shown = r.found < r.shown ? r.found : r.shown;
    tool_json_hough_parameters(j, h->sobel, h->sobel_threshold, &h->params, &hs->shape);
    tool_json_results(j);
    tool_json_kv_uint(j, "edges", r.stats.kept);
    tool_json_hough_lines(j, r.lines, r.found, r.shown);
    if (h->params.segments) {
        const votecl_segment *segments;
        size_t n;
        if ((st = votecl_hough_plan_segments(hs->plan, &segments, &n)) != VOTECL_OK ||
            (st = tool_segments_keep(&r.segments, segments, n)) != VOTECL_OK)
            goto out;
        tool_json_segments(j, &r.segments);
    }
    if (annotated != NULL)
        st = tool_annotate_status(tool_hough_annotate_segments(
            image, r.lines, r.shown, h->params.segments ? &r.segments : NULL, annotated, error,
            sizeof error));
out:
    tool_hough_result_free(&r);
    tool_image_free(&gray);
    return st;
}

/* --- bench --- */

typedef struct hough_op {
    votecl_hough_plan *plan;
    votecl_buffer *x, *bins;
} hough_op;

static votecl_status
run_hough_op(void *arg)
{
    hough_op *op = arg;
    return votecl_hough_run_buffers(op->plan, op->x, op->bins);
}

static void
bench_hough_case(tool_bench *b, const tool_image *edges, unsigned angles, uint32_t rho_bins)
{
    votecl_hough_params params;
    hough_op op = {.x = b->x};
    votecl_vote_stats stats = {0};
    votecl_vote_plan_info info = {0};
    double seconds = 0;
    char name[64];
    votecl_status st;

    votecl_hough_params_init(&params);
    params.angles = angles;
    params.rho_bins = rho_bins;
    st = votecl_hough_plan_new(b->ctx, &params, edges->width, edges->height, &op.plan);
    if (st == VOTECL_OK)
        st = votecl_buffer_new(b->ctx, (size_t)angles * rho_bins * 4, &op.bins);
    if (st == VOTECL_OK)
        st = tool_bench_time(b->ctx, run_hough_op, &op, b->args.reps, 0, &seconds);
    if (st == VOTECL_OK)
        st = votecl_hough_plan_last_stats(op.plan, &stats);
    if (st == VOTECL_OK)
        st = votecl_hough_plan_describe(op.plan, stats.kept, &info);
    snprintf(name, sizeof name, "hough%ux%u", angles, rho_bins);
    tool_bench_case_begin(b, name, st);
    tool_json_kv_uint(&b->json, "width", edges->width);
    tool_json_kv_uint(&b->json, "height", edges->height);
    tool_json_kv_uint(&b->json, "edges", stats.kept);
    tool_json_kv_double(&b->json, "eta", stats.eta);
    if (tool_bench_case_result(b, name, st, seconds, 1)) {
        tool_json_key(&b->json, "plan");
        tool_json_plan_info(&b->json, &info);
    }
    tool_json_end_object(&b->json);
    tool_progress(b->options, "bench: %-14s %8.1f us, %zu edges\n", name, seconds * 1e6,
                  stats.kept);
    votecl_hough_plan_free(op.plan);
    votecl_buffer_free(op.bins);
}

/* Theta-rho Hough of a frame-sized edge image from a real photograph, stage 1 included:
 * the paper's 64 x 4200 and 180 angles x one-pixel bins. */
static void
bench_hough(tool_bench *b)
{
    tool_image edges = {0};
    size_t bytes;

    if (tool_bench_edge_frame(b, &edges) != 0)
        return;
    bytes = edges.width * edges.height;
    if (votecl_buffer_write(b->x, 0, edges.data, bytes) == VOTECL_OK) {
        double d = sqrt((double)edges.width * edges.width + (double)edges.height * edges.height);
        bench_hough_case(b, &edges, 64, 4200);
        bench_hough_case(b, &edges, 180, (uint32_t)ceil((double)edges.width + d));
    }
    tool_image_free(&edges);
}

/* --- the descriptor --- */

TOOL_ALGORITHM_ONE(hough, "straight lines of the Sobel edges, 180 angles x 1-pixel rho bins", NULL,
                   .options = "[--edges sobel|none] [--sobel-threshold S] [--thin-edges 0|1] "
                              "[--angles A] [--bins B] "
                              "[--threshold T] [--window n] [--edge-threshold E] [--max-lines K]",
                   .args_size = sizeof(hough_case), TOOL_BATCH_HOOKS(hough),
                   .state_free = hough_state_free);
