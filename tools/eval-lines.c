/* votecl eval lines: the line truth suite (tests/truth-lines.h) through PClines and the
 * theta-rho Hough with their defaults (the tool's edge step for the Hough: Sobel magnitude
 * >= 200, as `votecl hough`), recall and precision per case family as JSON. --dump DIR writes
 * every case as DIR/NAME.pgm plus DIR/cases.json (size and truth segments) for
 * tools/eval-lines.py, which scores OpenCV's HoughLines / HoughLinesP on the same cases. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "json.h"
#include "options.h"
#include "truth-lines.h"

#define EVAL_LINES_SOBEL 200 /* votecl hough's default edge step */
#define EVAL_LINES_MAX 1000  /* detections kept per case */

enum { DET_PCLINES, DET_HOUGH, DET_COUNT };
static const char *const detector_names[DET_COUNT] = {"pclines", "hough"};

typedef struct eval_args {
    tool_eval_args common;
    unsigned long radius, kernel, window, max_gap;
    int max_gap_set;
    int no_refine;               /* PClines: the cells' lines (params.refine 0), to measure */
    int hough_grid, hough_peaks; /* votecl_hough_grid, votecl_hough_peak_rule */
    int hough_thick;             /* theta-rho: params.thin_edges 0, to measure */
    int segments;
    int radius_set;
    int use[DET_COUNT];
} eval_args;

/* One detector's plan, kept while the image size stays the same. */
typedef struct eval_detector {
    votecl_lines_plan *pclines;
    votecl_hough_plan *hough;
    uint32_t width, height;
    truth_lines_score score;
    double seconds;
    size_t failures;
} eval_detector;

static void
eval_lines_usage(FILE *f)
{
    fprintf(f,
            "usage: votecl eval lines [--family NAME] [--large] [--detector pclines|hough|both]\n"
            "                         [--cases N] [--seed S] [--radius r]\n"
            "                         [--orientation-kernel K] [--hough-window n] [--segments]\n"
            "                         [--dump DIR] [--verbose]\n"
            "Line truth suite: recall and precision per case family (a line matches a truth\n"
            "segment within %.1f degrees and %.0f px of both its ends), as JSON.\n"
            "  --family NAME   one family (default: all but 'large')\n"
            "  --large         also the large images (up to 8192x8192)\n"
            "  --detector D    pclines, hough or both (default both)\n"
            "  --cases N       at most N cases per family (default all)\n"
            "  --seed S        generator seed (default 1)\n"
            "  --radius r      PClines orientation radius instead of the default (to measure)\n"
            "  --orientation-kernel K  PClines orientation operator 3, 5 or 7 (to measure)\n"
            "  --hough-window n  theta-rho peak window instead of the default (to measure)\n"
            "  --dump DIR      write each case (NAME.pgm) and DIR/cases.json for eval-lines.py\n"
            "  --verbose       name the cases with missed lines on stderr\n"
            "  --segments      segments too, scored by end-point error\n"
            "  --max-gap G     segments' largest gap instead of the default (to measure)\n"
            "  --no-refine     PClines: the cells' lines, without the fit (to measure)\n"
            "  --hough-grid opencv|span  theta-rho rho grid (default span)\n"
            "  --hough-peaks opencv|window  theta-rho peak rule (default window)\n"
            "  --hough-edges thin|thick  theta-rho Sobel edges thinned across the edge\n"
            "                  (params.thin_edges, the default) or every pixel over the threshold\n"
            "families:",
            TRUTH_LINES_ANGLE_DEG, TRUTH_LINES_DIST_PX);
}

static const tool_option_spec eval_lines_options[] = {
    TOOL_OPT_FLAG(eval_args, segments, "--segments"),
    TOOL_OPT_FLAG(eval_args, no_refine, "--no-refine"),
    TOOL_OPT_RANGE(eval_args, window, "--hough-window", 1, VOTECL_HOUGH_MAX_WINDOW),
    TOOL_OPT_RANGE(eval_args, kernel, "--orientation-kernel", 3, 7),
};

/* A choice between two words: *out 1 for the first. */
static int
two_words(const char *option, const char *first, const char *second, int argc, char **argv, int *i,
          int *out)
{
    const char *v = NULL;
    int r = tool_option_value(argc, argv, i, option, &v);
    if (r > 0 && strcmp(v, first) != 0 && strcmp(v, second) != 0)
        return tool_usage_error("eval lines", "%s wants %s or %s", option, first, second), -1;
    return r <= 0 ? r : (*out = strcmp(v, first) == 0, 1);
}

static int
eval_lines_option(void *args, int argc, char **argv, int *i)
{
    eval_args *a = args;
    const char *v = NULL;
    int r;

    if ((r = two_words("--hough-grid", "opencv", "span", argc, argv, i, &a->hough_grid)) != 0 ||
        (r = two_words("--hough-peaks", "opencv", "window", argc, argv, i, &a->hough_peaks)) != 0 ||
        (r = two_words("--hough-edges", "thick", "thin", argc, argv, i, &a->hough_thick)) != 0)
        return r;
    if ((r = tool_option_value(argc, argv, i, "--detector", &v)) != 0) {
        if (r < 0)
            return r;
        a->use[DET_PCLINES] = strcmp(v, "hough") != 0;
        a->use[DET_HOUGH] = strcmp(v, "pclines") != 0;
        if (strcmp(v, "pclines") != 0 && strcmp(v, "hough") != 0 && strcmp(v, "both") != 0)
            return tool_usage_error("eval lines", "--detector wants pclines, hough or both"), -1;
        return 1;
    }
    if ((r = tool_option_table(eval_lines_options, TOOL_OPTION_COUNT(eval_lines_options), a, argc,
                               argv, i)) != 0)
        return r;
    if ((r = tool_option_ulong(argc, argv, i, "--max-gap", UINT32_MAX, &a->max_gap)) != 0)
        return a->max_gap_set = 1, r;
    if ((r = tool_option_ulong(argc, argv, i, "--radius", VOTECL_LINES_MAX_DISTANCE, &a->radius)) !=
        0)
        return a->radius_set = 1, r;
    return 0;
}

/* --- the detectors --- */

/* A line of either detector (PClines' and the theta-rho Hough's have these members alike) as
 * the suite scores it. */
#define EVAL_DETECTION(l)                                                                          \
    ((truth_lines_detection){.theta = (l).theta,                                                   \
                             .rho = (l).rho,                                                       \
                             .has_ends = (l).has_segment,                                          \
                             .x0 = (l).x0,                                                         \
                             .y0 = (l).y0,                                                         \
                             .x1 = (l).x1,                                                         \
                             .y1 = (l).y1})

/* Whether det's plan (plan) does not fit case c: none yet, or another size. */
static int
eval_stale(const eval_detector *det, const void *plan, const truth_lines_case *c)
{
    return plan == NULL || det->width != c->width || det->height != c->height;
}

static votecl_status
run_pclines(votecl_context *ctx, const eval_args *a, eval_detector *det, const truth_lines_case *c,
            truth_lines_detection *out, size_t *n)
{
    votecl_lines_line *lines = calloc(EVAL_LINES_MAX, sizeof *lines);
    votecl_image image = {c->pixels, c->width, c->height, c->width, 1, VOTECL_DTYPE_U8};
    size_t found = 0;
    votecl_status st = lines != NULL ? VOTECL_OK : VOTECL_OUT_OF_HOST_MEMORY;

    if (st == VOTECL_OK && eval_stale(det, det->pclines, c)) {
        votecl_lines_params p;
        votecl_lines_params_init(&p);
        if (a->radius_set)
            p.radius = (unsigned)a->radius;
        if (a->kernel != 0)
            p.orientation_kernel = (unsigned)a->kernel;
        p.segments = a->segments;
        p.refine = !a->no_refine;
        if (a->max_gap_set)
            p.max_gap = (uint32_t)a->max_gap;
        votecl_lines_plan_free(det->pclines);
        det->pclines = NULL;
        st = votecl_lines_plan_new(ctx, &p, c->width, c->height, &det->pclines);
    }
    double t0 = tool_now();
    if (st == VOTECL_OK)
        st = votecl_lines_run(det->pclines, &image, lines, EVAL_LINES_MAX, &found);
    det->seconds += tool_now() - t0;
    *n = found < EVAL_LINES_MAX ? found : EVAL_LINES_MAX;
    for (size_t k = 0; st == VOTECL_OK && k < *n; k++)
        out[k] = EVAL_DETECTION(lines[k]);
    free(lines);
    return st;
}

static votecl_status
run_hough(votecl_context *ctx, const eval_args *a, eval_detector *det, const truth_lines_case *c,
          truth_lines_detection *out, size_t *n)
{
    votecl_hough_line *lines = calloc(EVAL_LINES_MAX, sizeof *lines);
    size_t found = 0;
    votecl_status st = lines != NULL ? VOTECL_OK : VOTECL_OUT_OF_HOST_MEMORY;

    if (st == VOTECL_OK && eval_stale(det, det->hough, c)) {
        votecl_hough_params p;
        votecl_hough_params_init(&p);
        if (a->window != 0)
            p.peak_window = (unsigned)a->window;
        p.rho_grid = a->hough_grid ? VOTECL_HOUGH_GRID_OPENCV : VOTECL_HOUGH_GRID_SPAN;
        p.peak_rule = a->hough_peaks ? VOTECL_HOUGH_PEAKS_OPENCV : VOTECL_HOUGH_PEAKS_WINDOW;
        p.thin_edges = !a->hough_thick;
        p.segments = a->segments;
        if (a->max_gap_set)
            p.max_gap = (uint32_t)a->max_gap;
        votecl_hough_plan_free(det->hough);
        det->hough = NULL;
        st = votecl_hough_plan_new(ctx, &p, c->width, c->height, &det->hough);
    }
    double t0 = tool_now();
    if (st == VOTECL_OK) { /* votecl hough's edge step: the library's Sobel rule */
        votecl_image image = {c->pixels, c->width, c->height, c->width, 1, VOTECL_DTYPE_U8};
        st = votecl_hough_run_gray(det->hough, &image, EVAL_LINES_SOBEL, lines, EVAL_LINES_MAX,
                                   &found, NULL);
    }
    det->seconds += tool_now() - t0;
    *n = found < EVAL_LINES_MAX ? found : EVAL_LINES_MAX;
    for (size_t k = 0; st == VOTECL_OK && k < *n; k++)
        out[k] = EVAL_DETECTION(lines[k]);
    free(lines);
    return st;
}

static void
detector_free(eval_detector *det)
{
    votecl_lines_plan_free(det->pclines);
    votecl_hough_plan_free(det->hough);
    memset(det, 0, sizeof *det);
}

/* --- the dump --- */

static const tool_eval_runner eval_lines_runner;

static int
dump_case(const truth_lines_case *c, FILE *index, int first)
{
    if (tool_eval_dump_case(&eval_lines_runner, c->family, c->name, c->pixels, c->width, c->height,
                            index, first) < 0)
        return -1;
    fprintf(index, ", \"truth\": [");
    for (size_t t = 0; t < c->n; t++)
        fprintf(index, "%s[%.3f, %.3f, %.3f, %.3f]", t ? ", " : "", c->truth[t].x0, c->truth[t].y0,
                c->truth[t].x1, c->truth[t].y1);
    fprintf(index, "]}");
    return 0;
}

static void
dump_head(FILE *f)
{
    fprintf(f, ", \"angle_deg\": %.2f, \"distance_px\": %.2f", TRUTH_LINES_ANGLE_DEG,
            TRUTH_LINES_DIST_PX);
}

/* --- the suite --- */

/* Runs detector d on case c and scores it (a failure scores as finding nothing, and is
 * counted). */
static void
run_detector(votecl_context *ctx, const eval_args *a, int d, eval_detector *det,
             const truth_lines_case *c, truth_lines_detection *found)
{
    size_t n = 0, before = det->score.matched;
    votecl_status st = d == DET_PCLINES ? run_pclines(ctx, a, det, c, found, &n)
                                        : run_hough(ctx, a, det, c, found, &n);
    det->width = c->width;
    det->height = c->height;
    if (st != VOTECL_OK) {
        fprintf(stderr, "votecl eval lines: %s %s: %s: %s\n", detector_names[d], c->name,
                votecl_status_string(st), votecl_context_get_error(ctx));
        det->failures++;
        n = 0;
    }
    truth_lines_score_case(c, found, n, &det->score);
    if (a->common.verbose && det->score.matched - before < c->n)
        fprintf(stderr, "%s %s: %zu of %zu found, %zu detections; first %.2f deg %.1f\n",
                detector_names[d], c->name, det->score.matched - before, c->n, n,
                n ? found[0].theta * 180 / 3.14159265358979 : 0.0, n ? found[0].rho : 0.0);
}

static void
write_score(tool_json *j, const char *name, const eval_detector *det)
{
    const truth_lines_score *s = &det->score;

    tool_eval_counts counts = TOOL_EVAL_COUNTS(s, truth_lines_recall, truth_lines_precision);

    tool_eval_score_begin(j, name, &counts);
    if (s->matched > 0) {
        tool_json_kv_double(j, "theta_error_mean_deg", s->theta_error_sum / s->matched);
        tool_json_kv_double(j, "theta_error_max_deg", s->theta_error_max);
        tool_json_kv_double(j, "rho_error_mean_px", s->rho_error_sum / s->matched);
        tool_json_kv_double(j, "rho_error_max_px", s->rho_error_max);
    }
    if (s->ends > 0) {
        tool_json_kv_uint(j, "segments", s->ends);
        tool_json_kv_double(j, "ends_within_fraction", (double)s->ends_within / s->ends);
        tool_json_kv_double(j, "end_error_mean", s->end_error_sum / s->ends);
    }
    tool_eval_score_end(j, det->failures, det->seconds, s->cases);
}

static int
run_family(votecl_context *ctx, void *args, size_t k, tool_json *j, FILE *index, int *first)
{
    const eval_args *a = args;
    const truth_lines_family *fam = truth_lines_families() + k;
    eval_detector det[DET_COUNT] = {{0}};
    truth_lines_detection *found = calloc(EVAL_LINES_MAX, sizeof *found);
    size_t count = a->common.cases && a->common.cases < fam->count ? a->common.cases : fam->count;
    int rc = TOOL_EXIT_OK;

    if (found == NULL)
        return TOOL_EXIT_FAILURE;
    for (size_t i = 0; i < count && rc == TOOL_EXIT_OK; i++) {
        truth_lines_case c;
        if (truth_lines_case_make(fam, i, a->common.seed, &c) < 0) {
            rc = TOOL_EXIT_FAILURE;
            break;
        }
        if (index != NULL && dump_case(&c, index, *first) < 0)
            rc = TOOL_EXIT_FAILURE;
        *first = 0;
        for (int d = 0; d < DET_COUNT && rc == TOOL_EXIT_OK; d++)
            if (a->use[d])
                run_detector(ctx, a, d, &det[d], &c, found);
        truth_lines_case_clear(&c);
    }
    tool_eval_family_begin(j, fam->name);
    for (int d = 0; d < DET_COUNT; d++)
        if (a->use[d])
            write_score(j, detector_names[d], &det[d]);
    tool_eval_family_end(j);
    for (int d = 0; d < DET_COUNT; d++)
        detector_free(&det[d]);
    free(found);
    return rc;
}

static int
family(size_t k, tool_eval_family *out)
{
    const truth_lines_family *f = truth_lines_families() + k;
    *out = (tool_eval_family){f->name, f->count, f->large};
    return f->name != NULL;
}

static void
parameters(tool_json *j)
{
    tool_json_kv_double(j, "angle_deg", TRUTH_LINES_ANGLE_DEG);
    tool_json_kv_double(j, "distance_px", TRUTH_LINES_DIST_PX);
}

static eval_args eval_lines_args;

static const tool_eval_runner eval_lines_runner = {
    .suite = "lines",
    .common = &eval_lines_args.common,
    .args = &eval_lines_args,
    .option = eval_lines_option,
    .usage = eval_lines_usage,
    .family = family,
    .dump_head = dump_head,
    .parameters = parameters,
    .run_family = run_family,
};

static int
eval_lines_run(tool_options *options, int argc, char **argv)
{
    eval_lines_args = (eval_args){.common.seed = 1, .use = {1, 1}};
    return tool_eval_run(options, &eval_lines_runner, argc, argv);
}

const tool_eval_suite tool_eval_lines = {
    "lines", "line truth suite: PClines and theta-rho Hough against known lines", eval_lines_run};
