/* votecl eval circles: the circle truth suite (tests/truth-circles.h) through both methods of
 * votecl-circles.h with one parameter rule for every case (below), recall, precision and
 * centre and radius error per case family as JSON. --dump DIR writes every case as
 * DIR/NAME.pgm plus DIR/cases.json (size, radius range, truth) for tools/eval-circles.py,
 * which scores cv2.HoughCircles on the same cases with the same rule, beside these figures.
 *
 * The rule (the gradient method's is what eval-circles.py gives cv2.HoughCircles): the
 * case's radius range; gradient: dp 1, min_dist 20, Canny 100 (param1), votes 40 (param2);
 * radii: the library's Canny (50, 100) as the edge image, radii in steps of 2, values
 * normalised, threshold 0.4, min_xdistance = min_ydistance = 10. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "json.h"
#include "options.h"
#include "truth-circles.h"

#define EVAL_CIRCLES_MAX 256 /* detections kept per case */

static const char *const method_names[2] = {"gradient", "radii"};

typedef struct eval_args {
    tool_eval_args common;
    int use[2];
} eval_args;

typedef struct eval_method {
    truth_circles_score score;
    double seconds;
    size_t failures;
} eval_method;

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: votecl eval circles [--family NAME] [--large] [--method gradient|radii|both]\n"
            "                           [--cases N] [--seed S] [--dump DIR] [--verbose]\n"
            "Circle truth suite: recall, precision, centre and radius error per family (a\n"
            "circle matches within max(2, r / 10) px in centre and radius), as JSON.\n"
            "families:");
}

static int
option(void *args, int argc, char **argv, int *i)
{
    eval_args *a = args;
    const char *v = NULL;
    int r;

    if ((r = tool_option_value(argc, argv, i, "--method", &v)) != 0) {
        if (r < 0)
            return r;
        a->use[0] = strcmp(v, "radii") != 0;
        a->use[1] = strcmp(v, "gradient") != 0;
        if (strcmp(v, "gradient") != 0 && strcmp(v, "radii") != 0 && strcmp(v, "both") != 0)
            return tool_usage_error("eval circles", "--method wants gradient, radii or both"), -1;
        return 1;
    }
    return 0;
}

/* The suite's rule (the file's head). */
static void
rule(votecl_circles_params *p, int m, const truth_circles_case *c)
{
    votecl_circles_params_init(p, (votecl_circles_method)m);
    p->min_radius = (unsigned)c->min_radius;
    p->max_radius = (unsigned)c->max_radius;
    if (m == VOTECL_CIRCLES_GRADIENT) {
        p->min_dist = 20;
        p->votes = 40;
    } else {
        p->radius_step = 2;
        p->threshold = 0.4;
        p->min_xdistance = p->min_ydistance = 10;
    }
}

static votecl_status
detect(votecl_context *ctx, int m, const truth_circles_case *c, truth_circle *out, size_t *n,
       double *seconds)
{
    votecl_circles_params p;
    votecl_circles_plan *plan = NULL;
    votecl_circle *found = calloc(EVAL_CIRCLES_MAX, sizeof *found);
    votecl_image image = {c->pixels, c->width, c->height, c->width, 1, VOTECL_DTYPE_U8};
    uint8_t *edges = NULL;
    size_t k = 0;
    votecl_status st = found != NULL ? VOTECL_OK : VOTECL_OUT_OF_HOST_MEMORY;
    double t0 = tool_now();

    rule(&p, m, c);
    if (st == VOTECL_OK && m == VOTECL_CIRCLES_RADII) {
        if ((edges = malloc((size_t)c->width * c->height)) == NULL)
            st = VOTECL_OUT_OF_HOST_MEMORY;
        else if ((st = votecl_hough_edges(ctx, &image, 50, 100, edges, c->width)) == VOTECL_OK)
            image.data = edges;
    }
    if (st == VOTECL_OK)
        st = votecl_circles_plan_new(ctx, &p, c->width, c->height, &plan);
    if (st == VOTECL_OK)
        st = votecl_circles_run(plan, &image, found, EVAL_CIRCLES_MAX, &k, NULL);
    *seconds += tool_now() - t0;
    *n = st == VOTECL_OK ? (k < EVAL_CIRCLES_MAX ? k : EVAL_CIRCLES_MAX) : 0;
    for (size_t i = 0; i < *n; i++)
        out[i] = (truth_circle){found[i].x, found[i].y, found[i].radius};
    votecl_circles_plan_free(plan);
    free(edges);
    free(found);
    return st;
}

static const tool_eval_runner eval_circles_runner;

static int
dump_case(const truth_circles_case *c, FILE *index, int first)
{
    if (tool_eval_dump_case(&eval_circles_runner, c->family, c->name, c->pixels, c->width,
                            c->height, index, first) < 0)
        return -1;
    fprintf(index, ", \"min_radius\": %.0f, \"max_radius\": %.0f, \"truth\": [", c->min_radius,
            c->max_radius);
    for (size_t t = 0; t < c->n; t++)
        fprintf(index, "%s[%.3f, %.3f, %.3f]", t ? ", " : "", c->truth[t].x, c->truth[t].y,
                c->truth[t].r);
    fprintf(index, "]}");
    return 0;
}

static void
write_score(tool_json *j, const char *name, const eval_method *m)
{
    const truth_circles_score *s = &m->score;

    tool_eval_counts counts = TOOL_EVAL_COUNTS(s, truth_circles_recall, truth_circles_precision);

    tool_eval_score_begin(j, name, &counts);
    tool_json_kv_double(j, "centre_error_mean",
                        s->matched ? s->centre_error_sum / (double)s->matched : 0.0);
    tool_json_kv_double(j, "radius_error_mean",
                        s->matched ? s->radius_error_sum / (double)s->matched : 0.0);
    tool_eval_score_end(j, m->failures, m->seconds, s->cases);
}

static int
run_case(votecl_context *ctx, const eval_args *a, const truth_circles_case *c, eval_method *m,
         truth_circle *found)
{
    for (int d = 0; d < 2; d++) {
        size_t n = 0, before = m[d].score.matched;
        votecl_status st;
        if (!a->use[d])
            continue;
        if ((st = detect(ctx, d, c, found, &n, &m[d].seconds)) != VOTECL_OK) {
            /* a failure scores as finding nothing, and is counted */
            fprintf(stderr, "votecl eval circles: %s %s: %s: %s\n", method_names[d], c->name,
                    votecl_status_string(st), votecl_context_get_error(ctx));
            m[d].failures++;
        }
        truth_circles_score_case(c, found, n, &m[d].score);
        if (a->common.verbose && (m[d].score.matched - before < c->n || n > c->n))
            fprintf(stderr, "%s %s: %zu of %zu found, %zu detections\n", method_names[d], c->name,
                    m[d].score.matched - before, c->n, n);
    }
    return TOOL_EXIT_OK;
}

static int
run_family(votecl_context *ctx, void *args, size_t k, tool_json *j, FILE *index, int *first)
{
    const eval_args *a = args;
    const truth_circles_family *fam = truth_circles_families() + k;
    eval_method m[2];
    truth_circle *found = calloc(EVAL_CIRCLES_MAX, sizeof *found);
    size_t count = a->common.cases && a->common.cases < fam->count ? a->common.cases : fam->count;
    int rc = found != NULL ? TOOL_EXIT_OK : TOOL_EXIT_FAILURE;

    memset(m, 0, sizeof m);
    for (size_t i = 0; i < count && rc == TOOL_EXIT_OK; i++) {
        truth_circles_case c;
        if (truth_circles_case_make(fam, i * fam->count / count, a->common.seed, &c) < 0) {
            rc = TOOL_EXIT_FAILURE;
            break;
        }
        if (index != NULL && dump_case(&c, index, *first) < 0)
            rc = TOOL_EXIT_FAILURE;
        *first = 0;
        if (rc == TOOL_EXIT_OK)
            rc = run_case(ctx, a, &c, m, found);
        truth_circles_case_clear(&c);
    }
    tool_eval_family_begin(j, fam->name);
    for (int d = 0; d < 2; d++)
        if (a->use[d])
            write_score(j, method_names[d], &m[d]);
    tool_eval_family_end(j);
    free(found);
    return rc;
}

static int
family(size_t k, tool_eval_family *out)
{
    const truth_circles_family *f = truth_circles_families() + k;
    *out = (tool_eval_family){f->name, f->count, f->large};
    return f->name != NULL;
}

static eval_args eval_circles_args;

static const tool_eval_runner eval_circles_runner = {
    .suite = "circles",
    .common = &eval_circles_args.common,
    .args = &eval_circles_args,
    .option = option,
    .usage = usage,
    .family = family,
    .run_family = run_family,
};

static int
eval_circles_run(tool_options *options, int argc, char **argv)
{
    eval_circles_args = (eval_args){.common.seed = 1, .use = {1, 1}};
    return tool_eval_run(options, &eval_circles_runner, argc, argv);
}

const tool_eval_suite tool_eval_circles = {
    "circles", "circle truth suite: HOUGH_GRADIENT and per-radius Hough against known circles",
    eval_circles_run};
