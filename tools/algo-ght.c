/* The generalized Hough transform in the votecl tool (tools/algorithms.h): its demo step,
 * votecl batch ght, the bench group ght (detection and the pairing stage) and votecl eval ght
 * (tools/eval-ght.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bench.h"
#include "plot.h"

/* --- demo: generalized Hough: OpenCV's own sample pair, templ.png found in pic1.png --- */

static tool_demo_result
demo_ght(tool_demo *d, const tool_demo_image *im)
{
    votecl_ght_params params;
    votecl_ght_pose poses[32];
    votecl_ght_stats stats;
    tool_image templ = {0}, canvas = {0};
    size_t n = 0;
    double seconds = 0;
    char error[600], note[200], path[4096];
    tool_demo_result result = TOOL_DEMO_FAILED;
    votecl_status st;

    if (strcmp(im->file, "pic1.png") != 0)
        return TOOL_DEMO_SKIPPED;
    if (!tool_path_join(path, sizeof path, d->image_dir, "templ.png") ||
        tool_image_read(path, &templ, error, sizeof error) < 0)
        return TOOL_DEMO_SKIPPED;
    votecl_ght_params_init(&params, VOTECL_GHT_GUIL);
    st = tool_ght_detect(d->ctx, &params, &templ, &im->image, poses, 32, &n, &stats, &seconds);
    if (st != VOTECL_OK) {
        /* e.g. a device without double precision: say so, the demo goes on */
        tool_fail(d->ctx, st, "generalized Hough");
        result = TOOL_DEMO_SKIPPED;
        goto out;
    }
    snprintf(note, sizeof note, "%zu poses of templ.png; %.1f ms", n, seconds * 1e3);
    printf("  ght: %s\n", note);
    for (size_t k = 0; k < n && k < 3; k++)
        printf("    pose %zu: (%.1f, %.1f), %.1f deg, scale %.2f, %u votes\n", k + 1, poses[k].x,
               poses[k].y, poses[k].angle, poses[k].scale, (unsigned)poses[k].votes);
    /* the three strongest poses: the sample's real instances lead, clutter follows */
    result = tool_demo_write_captioned(d,
                                       tool_ght_annotate(&im->image, poses, n < 3 ? n : 3,
                                                         (double)templ.width, (double)templ.height,
                                                         &canvas, error, sizeof error),
                                       &canvas, error, im->stem, "ght", note);
out:
    tool_image_free(&templ);
    return result;
}

/* --- batch --- */

typedef struct ght_case {
    votecl_ght_params params;
    const char *template_path;
    tool_image templ;
} ght_case;

static void
ght_init(void *args)
{
    ght_case *g = args;
    votecl_ght_params_init(&g->params, VOTECL_GHT_GUIL);
}

static int
ght_option(void *args, int argc, char **argv, int *i)
{
    ght_case *g = args;
    votecl_ght_params *p = &g->params;
    const char *v = NULL;
    int r;
    if ((r = tool_option_value(argc, argv, i, "--template", &v)) != 0)
        return r < 0 ? r : (g->template_path = v, 1);
    if ((r = tool_option_value(argc, argv, i, "--method", &v)) != 0) {
        if (r > 0 && strcmp(v, "guil") != 0 && strcmp(v, "ballard") != 0)
            return tool_usage_error("batch", "--method: guil or ballard"), -1;
        if (r > 0)
            votecl_ght_params_init(p, v[0] == 'g' ? VOTECL_GHT_GUIL : VOTECL_GHT_BALLARD);
        return r;
    }
    return tool_ght_param_option(p, argc, argv, i);
}

static int
ght_prepare(void *args, char *error, size_t size)
{
    ght_case *g = args;
    if (g->template_path == NULL) {
        snprintf(error, size, "ght needs --template FILE");
        return -1;
    }
    return tool_image_read(g->template_path, &g->templ, error, size);
}

static void
ght_cleanup(void *args)
{
    tool_image_free(&((ght_case *)args)->templ);
}

static votecl_status
ght_compute(const void *args, votecl_context *ctx, void **state, const tool_image *image,
            tool_json *j, double *seconds, tool_image *annotated)
{
    const ght_case *g = args;
    votecl_ght_params params = g->params;
    votecl_ght_pose poses[64];
    votecl_ght_stats stats = {0};
    char error[300];
    size_t found = 0, shown;
    votecl_status st;

    params.memory_limit = tool_ght_memory_limit(&g->templ, image); /* the worker's share */
    st = tool_ght_detect(ctx, &params, &g->templ, image, poses, 64, &found, &stats, seconds);
    if (st != VOTECL_OK)
        return st;
    shown = found < 64 ? found : 64;
    tool_json_ght_parameters(j, &g->params, stats.pairing);
    tool_json_results(j);
    tool_json_kv_uint(j, "template_edges", stats.template_edges);
    tool_json_kv_uint(j, "edges", stats.image_edges);
    tool_json_kv_uint(j, "found", found);
    tool_json_key(j, "poses");
    tool_json_begin_array(j);
    for (size_t i = 0; i < shown; i++) {
        tool_json_begin_object(j);
        tool_json_kv_double(j, "x", poses[i].x);
        tool_json_kv_double(j, "y", poses[i].y);
        tool_json_kv_double(j, "angle", poses[i].angle);
        tool_json_kv_double(j, "scale", poses[i].scale);
        tool_json_kv_uint(j, "votes", poses[i].votes);
        tool_json_kv_uint(j, "angle_votes", poses[i].angle_votes);
        tool_json_kv_uint(j, "scale_votes", poses[i].scale_votes);
        tool_json_end_object(j);
    }
    tool_json_end_array(j);
    if (annotated == NULL)
        return VOTECL_OK;
    return tool_annotate_status(tool_ght_annotate(image, poses, shown, (double)g->templ.width,
                                                  (double)g->templ.height, annotated, error,
                                                  sizeof error));
}

/* hist: every channel, as votecl hist without --gray / --channel */

/* --- bench --- */

/* The generalized Hough transform on OpenCV's sample pair (templ.png in pic1.png), full
 * rotation and scale search: Guil with each pairing mechanism, and Ballard. The tool's
 * detection times its second run (model built, device set up). */
static void
bench_ght_case(tool_bench *b, const char *name, votecl_ght_method method,
               votecl_ght_pairing pairing, const tool_image *templ, const tool_image *image)
{
    votecl_ght_params params;
    votecl_ght_pose poses[64];
    votecl_ght_stats stats;
    size_t n = 0;
    double seconds = 0;
    votecl_status st;

    votecl_ght_params_init(&params, method);
    params.pairing = pairing;
    st = tool_ght_detect(b->ctx, &params, templ, image, poses, 64, &n, &stats, &seconds);
    tool_bench_case_begin(b, name, st);
    /* a device without double precision is no failure of the bench */
    if (tool_bench_case_result(b, name, st, seconds, 0))
        tool_json_kv_uint(&b->json, "poses", n);
    tool_json_end_object(&b->json);
    tool_progress(b->options, "bench: %-14s %8.2f ms, %zu poses\n", name, seconds * 1e3, n);
}

static void
bench_ght_detect(tool_bench *b)
{
    tool_image templ = {0}, image = {0};
    char path[4096], error[256];
    const char *dir = tool_image_dir(b->args.images);

    if (b->args.quick || !tool_path_join(path, sizeof path, dir, "templ.png") ||
        tool_image_read(path, &templ, error, sizeof error) < 0 ||
        !tool_path_join(path, sizeof path, dir, "pic1.png") ||
        tool_image_read(path, &image, error, sizeof error) < 0)
        goto out;
    bench_ght_case(b, "ght_guil_auto", VOTECL_GHT_GUIL, VOTECL_GHT_PAIRING_AUTO, &templ, &image);
    bench_ght_case(b, "ght_guil_lb", VOTECL_GHT_GUIL, VOTECL_GHT_PAIRING_LB, &templ, &image);
    bench_ght_case(b, "ght_guil_ssm", VOTECL_GHT_GUIL, VOTECL_GHT_PAIRING_SSM, &templ, &image);
    bench_ght_case(b, "ght_ballard", VOTECL_GHT_BALLARD, VOTECL_GHT_PAIRING_AUTO, &templ, &image);
out:
    tool_image_free(&templ);
    tool_image_free(&image);
}

/* --- the pairing stage of Guil's GHT, LB against SSM (paper 001, Table II) --- */

#define PAIRING_W 352 /* the paper's video frames */
#define PAIRING_H 288

/* The gray u8 image of file resized to 352x288 (nearest pixel); 0 on success. */
static int
pairing_frame(const char *dir, const char *file, tool_image *frame)
{
    tool_image rgb = {0}, g = {0};
    char path[4096], error[600];
    int rc = -1;

    if (!tool_path_join(path, sizeof path, dir, file) ||
        tool_image_read(path, &rgb, error, sizeof error) < 0 || rgb.dtype != VOTECL_DTYPE_U8 ||
        tool_image_to_gray(&rgb, &g, error, sizeof error) < 0 ||
        tool_image_alloc(frame, PAIRING_W, PAIRING_H, 1, VOTECL_DTYPE_U8, error, sizeof error) < 0)
        goto out;
    for (size_t y = 0; y < PAIRING_H; y++)
        for (size_t x = 0; x < PAIRING_W; x++)
            frame->data[y * frame->stride + x] =
                g.data[(y * g.height / PAIRING_H) * g.stride + x * g.width / PAIRING_W];
    rc = 0;
out:
    tool_image_free(&rgb);
    tool_image_free(&g);
    return rc;
}

/* The median stage times of reps calls of votecl_ght_pairings with each of the two models,
 * calls alternating so that a drift of the machine's load favours neither. */
static votecl_status
pairing_time(tool_bench *b, votecl_ght_model *const models[2], const tool_image *frame,
             votecl_ght_stats out[2])
{
    votecl_image view = tool_image_view(frame);
    unsigned long reps = b->args.reps;
    double *t = calloc(4 * reps, sizeof *t); /* edges and pairing seconds of each model */
    votecl_status st = t != NULL ? VOTECL_OK : VOTECL_OUT_OF_HOST_MEMORY;

    for (int m = 0; m < 2 && st == VOTECL_OK; m++) /* warm-up */
        st = votecl_ght_pairings(models[m], &view, &out[m]);
    for (unsigned long r = 0; r < reps && st == VOTECL_OK; r++)
        for (int m = 0; m < 2 && st == VOTECL_OK; m++) {
            st = votecl_ght_pairings(models[m], &view, &out[m]);
            t[(2 * m) * reps + r] = out[m].edges_seconds;
            t[(2 * m + 1) * reps + r] = out[m].pairing_seconds;
        }
    for (int k = 0; k < 4 && st == VOTECL_OK; k++)
        qsort(t + k * reps, reps, sizeof *t, tool_compare_doubles);
    for (int m = 0; m < 2 && st == VOTECL_OK; m++) {
        out[m].edges_seconds = t[(2 * m) * reps + reps / 2];
        out[m].pairing_seconds = t[(2 * m + 1) * reps + reps / 2];
    }
    free(t);
    return st;
}

/* AUTO's choice after its trials on this frame (the model is fresh: it learns from its
 * first calls). */
static votecl_status
pairing_auto(votecl_ght_model *model, const votecl_image *frame, votecl_ght_stats *chosen)
{
    votecl_status st = VOTECL_OK;

    for (int k = 0; k < 6 && st == VOTECL_OK; k++)
        st = votecl_ght_pairings(model, frame, chosen);
    return st;
}

typedef struct pairing_row {
    const char *frame;
    unsigned levels;
    double xi;
    votecl_ght_stats mech[2], chosen; /* LB, SSM; AUTO */
} pairing_row;

static void
pairing_json(tool_bench *b, const pairing_row *r)
{
    tool_json *j = &b->json;

    tool_json_begin_object(j);
    tool_json_kv_string(j, "case", "ght_pairing");
    tool_json_kv_string(j, "frame", r->frame);
    tool_json_kv_uint(j, "width", PAIRING_W);
    tool_json_kv_uint(j, "height", PAIRING_H);
    tool_json_kv_uint(j, "levels", r->levels);
    tool_json_kv_double(j, "xi", r->xi);
    tool_json_kv_uint(j, "edges", r->mech[0].image_edges);
    tool_json_kv_uint(j, "pairings", r->mech[0].image_pairings);
    tool_json_kv_double(j, "edges_seconds", r->mech[0].edges_seconds);
    tool_json_kv_double(j, "lb_seconds", r->mech[0].pairing_seconds);
    tool_json_kv_double(j, "ssm_seconds", r->mech[1].pairing_seconds);
    tool_json_kv_string(j, "auto", r->chosen.pairing == VOTECL_GHT_PAIRING_LB ? "lb" : "ssm");
    tool_json_kv_string(j, "faster",
                        r->mech[0].pairing_seconds <= r->mech[1].pairing_seconds ? "lb" : "ssm");
    tool_json_end_object(j);
    tool_progress(b->options,
                  "bench: ght_pairing %-15s L %3u xi %3g: %5zu edges %7zu pairings, "
                  "edges %7.3f ms, LB %7.3f ms, SSM %7.3f ms, auto %s\n",
                  r->frame, r->levels, r->xi, r->mech[0].image_edges, r->mech[0].image_pairings,
                  r->mech[0].edges_seconds * 1e3, r->mech[0].pairing_seconds * 1e3,
                  r->mech[1].pairing_seconds * 1e3,
                  r->chosen.pairing == VOTECL_GHT_PAIRING_LB ? "LB" : "SSM");
}

/* The frames' rows of one (L, xi): a model per mechanism (one program: the mechanism is no
 * define). */
static votecl_status
pairing_rows(tool_bench *b, const tool_image *templ, const tool_image *frames, const char **names,
             size_t nframes, unsigned levels, double xi)
{
    votecl_ght_model *models[3] = {NULL, NULL, NULL};
    votecl_image tv = tool_image_view(templ);
    votecl_status st = VOTECL_OK;

    for (int m = 0; m < 3 && st == VOTECL_OK; m++) {
        votecl_ght_params params;
        votecl_ght_params_init(&params, VOTECL_GHT_GUIL);
        params.levels = levels;
        params.xi = xi;
        params.pairing = m == 0   ? VOTECL_GHT_PAIRING_LB
                         : m == 1 ? VOTECL_GHT_PAIRING_SSM
                                  : VOTECL_GHT_PAIRING_AUTO;
        st = votecl_ght_model_new(b->ctx, &params, &tv, &models[m]);
    }
    for (size_t f = 0; f < nframes && st == VOTECL_OK; f++) {
        pairing_row r = {.frame = names[f], .levels = levels, .xi = xi};
        votecl_image fv = tool_image_view(&frames[f]);
        votecl_ght_params params;
        votecl_ght_model_params(models[2], &params);
        votecl_ght_model_free(models[2]); /* AUTO learns afresh on each frame */
        models[2] = NULL;
        if ((st = votecl_ght_model_new(b->ctx, &params, &tv, &models[2])) == VOTECL_OK &&
            (st = pairing_time(b, models, &frames[f], r.mech)) == VOTECL_OK)
            st = pairing_auto(models[2], &fv, &r.chosen);
        if (st == VOTECL_OK)
            pairing_json(b, &r);
    }
    for (int m = 0; m < 3; m++)
        votecl_ght_model_free(models[m]);
    return st;
}

/* Table II of paper 001 on this device: the pairing stage (sorted edges to the sorted list
 * of pairings) with LB and with SSM on 352x288 frames made from the shipped images, for
 * several L and xi; the median over --reps calls of votecl_ght_pairings. */
static void
bench_ght_pairing(tool_bench *b)
{
    static const char *names[] = {"pic1.png", "basketball1.png", "building.png"};
    static const unsigned levels[] = {90, 180, 360};
    static const double xis[] = {45, 90};
    tool_image frames[3] = {{0}}, raw = {0}, templ = {0};
    const char *dir = tool_image_dir(b->args.images);
    char path[4096], error[256];
    votecl_status st = VOTECL_OK;
    size_t n = 0;

    if (b->args.quick || !tool_path_join(path, sizeof path, dir, "templ.png") ||
        tool_image_read(path, &raw, error, sizeof error) < 0 ||
        tool_image_to_gray(&raw, &templ, error, sizeof error) < 0)
        goto out;
    for (size_t f = 0; f < 3; f++)
        if (pairing_frame(dir, names[f], &frames[n]) == 0)
            names[n++] = names[f];
    for (size_t l = 0; l < 3 && st == VOTECL_OK; l++)
        for (size_t x = 0; x < 2 && st == VOTECL_OK; x++)
            st = pairing_rows(b, &templ, frames, names, n, levels[l], xis[x]);
    if (st != VOTECL_OK) {
        tool_bench_case_begin(b, "ght_pairing", st);
        tool_json_kv_string(&b->json, "error", votecl_context_get_error(b->ctx));
        tool_json_end_object(&b->json);
    }
out:
    for (size_t f = 0; f < 3; f++)
        tool_image_free(&frames[f]);
    tool_image_free(&raw);
    tool_image_free(&templ);
}

/* --- the descriptor --- */

static void
bench_ght(tool_bench *b)
{
    bench_ght_detect(b);
    bench_ght_pairing(b);
}

TOOL_ALGORITHM_ONE(
    ght, "templ.png in pic1.png by the generalized Hough transform (Guil)", &tool_eval_ght,
    .options = "--template FILE [--method guil|ballard] [--levels n] [--dp n] [--max n] "
               "[--min-angle a] [--max-angle a] [--angle-step a] [--min-scale s] "
               "[--max-scale s] [--scale-step s] [--min-dist d]",
    .args_size = sizeof(ght_case), TOOL_BATCH_HOOKS(ght), .prepare = ght_prepare,
    .cleanup = ght_cleanup);
