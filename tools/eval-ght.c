/* votecl eval ght: the GHT (Guil's, or Ballard's on the families it can find) with the
 * library's defaults on the truth suite of
 * tests/truth-ght.h (templates under any rotation in [0, 360) and scale in [0.5, 2], among
 * symmetric distractors and other shapes, occluded, noisy, blurred; scenes without an
 * instance), scored per family as JSON. --dump DIR writes every scene, template and truth for
 * tools/eval-ght.py, which runs OpenCV's GeneralizedHoughGuil on them with the same metric. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "json.h"
#include "tool.h"
#include "../tests/truth-ght.h"

#define EG_MAX_POSES 256

typedef struct eg_args {
    unsigned long scenes; /* per family */
    unsigned long seed;
    unsigned long width, height;
    const char *dump;
    const char *images;
    unsigned long max_rotations; /* 0: the library's default */
    votecl_ght_method method;
} eg_args;

/* What a family adds up to. */
typedef struct eg_tally {
    size_t scenes, instances, found, false_poses, with_instances, strongest_true, first_sum,
        first_count, no_pose;
    double pos_err, angle_err, scale_err, seconds;
} eg_tally;

static void
eg_usage(FILE *f)
{
    fprintf(f,
            "usage: votecl eval ght [--scenes N] [--seed S] [--size WxH] [--dump DIR]\n"
            "                       [--images DIR] [--max-rotations N] [--method M]\n"
            "                       [--backend B] [--json]\n"
            "The GHT with its defaults on seeded scenes of known poses, per family:\n"
            "planted poses found (%.0f px, %.0f degree, %.0f%% scale), false poses per scene,\n"
            "the share of scenes whose strongest pose is planted, the rank of the first\n"
            "planted pose, scenes without an instance that gave no pose. JSON on stdout.\n"
            "  --scenes N   scenes per family (default 12)\n"
            "  --seed S     (default 1)\n"
            "  --size WxH   scene size (default 400x300)\n"
            "  --dump DIR   writes the scenes (PGM), templates and cases.json for\n"
            "               tools/eval-ght.py (OpenCV's Guil on the same scenes)\n"
            "  --images DIR where templ.png is (default: the shipped images)\n"
            "  --max-rotations N   Guil's bound on the rotations examined (default: the\n"
            "               library's)\n"
            "  --method M   guil (default) or ballard (only the families whose instances\n"
            "               are unrotated at scale 1: Ballard's default search)\n",
            TRUTH_GHT_POS, TRUTH_GHT_ANGLE, 100 * TRUTH_GHT_SCALE);
}

static int
eg_parse(tool_options *o, eg_args *a, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if ((r = tool_option_value(argc, argv, &i, "--scenes", &v)) != 0) {
            if (r < 0 || tool_parse_ulong("--scenes", v, 1, 100000, &a->scenes) < 0)
                return TOOL_EXIT_USAGE;
        } else if ((r = tool_option_value(argc, argv, &i, "--seed", &v)) != 0) {
            if (r < 0 || tool_parse_ulong("--seed", v, 0, ~0ul, &a->seed) < 0)
                return TOOL_EXIT_USAGE;
        } else if ((r = tool_option_value(argc, argv, &i, "--size", &v)) != 0) {
            if (r < 0 || sscanf(v, "%lux%lu", &a->width, &a->height) != 2 || a->width < 64 ||
                a->height < 64 || a->width > 8192 || a->height > 8192)
                return tool_usage_error("eval ght", "--size: WxH between 64 and 8192 a side");
        } else if ((r = tool_option_value(argc, argv, &i, "--max-rotations", &v)) != 0) {
            if (r < 0 || tool_parse_ulong("--max-rotations", v, 1, 100000, &a->max_rotations) < 0)
                return TOOL_EXIT_USAGE;
        } else if ((r = tool_option_value(argc, argv, &i, "--method", &v)) != 0) {
            if (r < 0)
                return TOOL_EXIT_USAGE;
            if (strcmp(v, "guil") == 0 || strcmp(v, "ballard") == 0)
                a->method = strcmp(v, "guil") == 0 ? VOTECL_GHT_GUIL : VOTECL_GHT_BALLARD;
            else
                return tool_usage_error("eval ght", "--method: guil or ballard");
        } else if ((r = tool_option_value(argc, argv, &i, "--dump", &v)) != 0) {
            if (r < 0)
                return TOOL_EXIT_USAGE;
            a->dump = v;
        } else if ((r = tool_option_value(argc, argv, &i, "--images", &v)) != 0) {
            if (r < 0)
                return TOOL_EXIT_USAGE;
            a->images = v;
        } else if ((r = tool_common_option(o, argc, argv, &i)) != 0) {
            if (r < 0)
                return TOOL_EXIT_USAGE;
        } else
            return tool_usage_error("eval ght", "unknown option '%s'", argv[i]);
    }
    return TOOL_EXIT_OK;
}

/* The templates: the shipped one (when readable) and the generated ones. */
static int
eg_templates(const eg_args *a, truth_ght_image *t)
{
    char path[4096], error[600];
    tool_image im = {0}, g = {0};
    truth_ght_image shipped = {0};

    memset(t, 0, TRUTH_GHT_SHAPES * sizeof *t);
    if (tool_path_join(path, sizeof path, tool_image_dir(a->images), "templ.png") != NULL &&
        tool_image_read(path, &im, error, sizeof error) == 0 &&
        tool_image_to_gray(&im, &g, error, sizeof error) == 0 && g.dtype == VOTECL_DTYPE_U8 &&
        (shipped.data = malloc(g.width * g.height)) != NULL) {
        shipped.width = (uint32_t)g.width;
        shipped.height = (uint32_t)g.height;
        for (size_t y = 0; y < g.height; y++)
            memcpy(shipped.data + y * g.width, g.data + y * g.stride, g.width);
    } else
        fprintf(stderr, "votecl eval ght: no templ.png (%s); generated templates only\n", path);
    for (int s = 0; s < TRUTH_GHT_SHAPES; s++)
        if (truth_ght_template((truth_ght_shape)s, &shipped, &t[s]) != 0 &&
            s != TRUTH_GHT_SHIPPED)
            return -1;
    truth_ght_image_free(&shipped);
    tool_image_free(&im);
    tool_image_free(&g);
    return 0;
}

static int
eg_write_pgm(const char *dir, const char *name, const truth_ght_image *im)
{
    char path[4096];
    FILE *f;
    int ok;

    if (tool_path_join(path, sizeof path, dir, name) == NULL || (f = fopen(path, "wb")) == NULL)
        return -1;
    fprintf(f, "P5\n%u %u\n255\n", im->width, im->height);
    ok = fwrite(im->data, 1, (size_t)im->width * im->height, f) ==
         (size_t)im->width * im->height;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static void
eg_view(const truth_ght_image *im, votecl_image *v)
{
    memset(v, 0, sizeof *v);
    v->data = im->data;
    v->width = im->width;
    v->height = im->height;
    v->stride = im->width;
    v->dtype = VOTECL_DTYPE_U8;
    v->channels = 1;
}

/* One scene detected and scored into tally; the case written to the dump's JSON. */
static votecl_status
eg_scene(votecl_context *ctx, votecl_ght_model *model, const truth_ght_scene *sc,
         eg_tally *t, tool_json *dump, const char *scene_name)
{
    votecl_ght_pose poses[EG_MAX_POSES];
    truth_ght_pose tp[EG_MAX_POSES];
    truth_ght_score score;
    votecl_image view;
    size_t found = 0, n;
    double t0 = tool_now();
    votecl_status st;

    (void)ctx;
    eg_view(&sc->image, &view);
    if ((st = votecl_ght_detect(model, &view, poses, EG_MAX_POSES, &found)) != VOTECL_OK)
        return st;
    t->seconds += tool_now() - t0;
    n = found < EG_MAX_POSES ? found : EG_MAX_POSES;
    for (size_t i = 0; i < n; i++)
        tp[i] = (truth_ght_pose){poses[i].x, poses[i].y, poses[i].angle, poses[i].scale};
    truth_ght_score_poses(sc, tp, n, &score);
    t->scenes++;
    t->instances += sc->n;
    t->found += score.found;
    t->false_poses += score.false_poses;
    t->pos_err += score.pos_err;
    t->angle_err += score.angle_err;
    t->scale_err += score.scale_err;
    if (sc->n > 0) {
        t->with_instances++;
        t->strongest_true += score.first_true == 1;
        if (score.first_true > 0) {
            t->first_sum += score.first_true;
            t->first_count++;
        }
    } else
        t->no_pose += found == 0;
    if (dump != NULL) {
        tool_json_begin_object(dump);
        tool_json_kv_string(dump, "scene", scene_name);
        tool_json_kv_string(dump, "template", truth_ght_shape_name(sc->shape));
        tool_json_key(dump, "truth");
        tool_json_begin_array(dump);
        for (size_t k = 0; k < sc->n; k++) {
            tool_json_begin_array_compact(dump);
            tool_json_double(dump, sc->truth[k].x);
            tool_json_double(dump, sc->truth[k].y);
            tool_json_double(dump, sc->truth[k].angle);
            tool_json_double(dump, sc->truth[k].scale);
            tool_json_end_array(dump);
        }
        tool_json_end_array(dump);
        tool_json_key(dump, "votecl");
        tool_json_begin_array(dump);
        for (size_t i = 0; i < n; i++) {
            tool_json_begin_array_compact(dump);
            tool_json_double(dump, tp[i].x);
            tool_json_double(dump, tp[i].y);
            tool_json_double(dump, tp[i].angle);
            tool_json_double(dump, tp[i].scale);
            tool_json_double(dump, poses[i].confidence);
            tool_json_end_array(dump);
        }
        tool_json_end_array(dump);
        tool_json_end_object(dump);
    }
    return VOTECL_OK;
}

static void
eg_print_tally(tool_json *j, const char *name, const eg_tally *t)
{
    tool_json_key(j, name);
    tool_json_begin_object(j);
    tool_json_kv_uint(j, "scenes", t->scenes);
    tool_json_kv_uint(j, "instances", t->instances);
    tool_json_kv_uint(j, "found", t->found);
    tool_json_kv_double(j, "recall", t->instances ? (double)t->found / t->instances : 0);
    tool_json_kv_double(j, "strongest_true",
                        t->with_instances ? (double)t->strongest_true / t->with_instances : 0);
    tool_json_kv_double(j, "false_per_scene", t->scenes ? (double)t->false_poses / t->scenes : 0);
    tool_json_kv_double(j, "mean_first_true_rank",
                        t->first_count ? (double)t->first_sum / t->first_count : 0);
    if (t->with_instances < t->scenes)
        tool_json_kv_double(j, "no_pose_share",
                            (double)t->no_pose / (double)(t->scenes - t->with_instances));
    tool_json_kv_double(j, "pos_err", t->found ? t->pos_err / t->found : 0);
    tool_json_kv_double(j, "angle_err", t->found ? t->angle_err / t->found : 0);
    tool_json_kv_double(j, "scale_err", t->found ? t->scale_err / t->found : 0);
    tool_json_kv_double(j, "seconds_per_scene", t->scenes ? t->seconds / t->scenes : 0);
    tool_json_end_object(j);
}

static void
eg_add(eg_tally *all, const eg_tally *t)
{
    all->scenes += t->scenes;
    all->instances += t->instances;
    all->found += t->found;
    all->false_poses += t->false_poses;
    all->with_instances += t->with_instances;
    all->strongest_true += t->strongest_true;
    all->first_sum += t->first_sum;
    all->first_count += t->first_count;
    all->no_pose += t->no_pose;
    all->pos_err += t->pos_err;
    all->angle_err += t->angle_err;
    all->scale_err += t->scale_err;
    all->seconds += t->seconds;
}

/* The models of every available template (NULL where a template is missing). */
static votecl_status
eg_models(votecl_context *ctx, const eg_args *a, const truth_ght_image *t,
          votecl_ght_model **models)
{
    votecl_ght_params p;
    votecl_status st = VOTECL_OK;

    votecl_ght_params_init(&p, a->method);
    if (a->max_rotations > 0)
        p.max_rotations = (unsigned)a->max_rotations;
    for (int s = 0; s < TRUTH_GHT_SHAPES && st == VOTECL_OK; s++) {
        votecl_image v;
        models[s] = NULL;
        if (t[s].data == NULL)
            continue;
        eg_view(&t[s], &v);
        st = votecl_ght_model_new(ctx, &p, &v, &models[s]);
    }
    return st;
}

static int
eg_run(tool_options *o, const eg_args *a, votecl_context *ctx, const truth_ght_image *t,
       votecl_ght_model **models, FILE *cases)
{
    tool_json j, dj, *dump = NULL;
    eg_tally all = {0};
    char name[64];

    if (cases != NULL) {
        tool_json_init(&dj, cases);
        tool_json_begin_object(&dj);
        tool_json_kv_uint(&dj, "seed", a->seed);
        tool_json_key(&dj, "cases");
        tool_json_begin_array(&dj);
        dump = &dj;
    }
    tool_json_document(&j, stdout, "eval");
    tool_json_parameters(&j);
    tool_json_kv_string(&j, "suite", "ght");
    tool_json_kv_string(&j, "method", a->method == VOTECL_GHT_GUIL ? "guil" : "ballard");
    tool_json_kv_uint(&j, "seed", a->seed);
    tool_json_kv_uint(&j, "scenes_per_family", a->scenes);
    tool_json_results(&j);
    tool_json_key(&j, "families");
    tool_json_begin_object(&j);
    for (int f = 0; f < TRUTH_GHT_FAMILIES; f++) {
        eg_tally tally = {0};
        if (a->method == VOTECL_GHT_BALLARD && !truth_ght_family_upright((truth_ght_family)f))
            continue;
        for (size_t i = 0; i < a->scenes; i++) {
            truth_ght_scene sc;
            votecl_status st;
            if (truth_ght_scene_make((truth_ght_family)f, a->seed, i, t, (uint32_t)a->width,
                                     (uint32_t)a->height, &sc) != 0)
                return (fprintf(stderr, "votecl eval ght: out of memory\n"), TOOL_EXIT_FAILURE);
            snprintf(name, sizeof name, "%s-%03zu.pgm", truth_ght_family_name((truth_ght_family)f),
                     i);
            tool_progress(o, "\r%s %zu/%lu", truth_ght_family_name((truth_ght_family)f), i + 1,
                          a->scenes);
            if (a->dump != NULL && eg_write_pgm(a->dump, name, &sc.image) != 0)
                fprintf(stderr, "votecl eval ght: cannot write %s in %s\n", name, a->dump);
            st = eg_scene(ctx, models[sc.shape], &sc, &tally, dump, name);
            truth_ght_scene_free(&sc);
            if (st != VOTECL_OK)
                return tool_fail(ctx, st, "eval ght");
        }
        eg_print_tally(&j, truth_ght_family_name((truth_ght_family)f), &tally);
        eg_add(&all, &tally);
    }
    tool_json_end_object(&j);
    eg_print_tally(&j, "all", &all);
    tool_json_document_end(&j);
    if (dump != NULL) {
        tool_json_end_array(dump);
        tool_json_end_object(dump);
        tool_json_finish(dump);
    }
    return TOOL_EXIT_OK;
}

static int
eg_dump_templates(const char *dir, const truth_ght_image *t)
{
    char name[64];

    if (tool_make_directories(dir) != 0)
        return -1;
    for (int s = 0; s < TRUTH_GHT_SHAPES; s++) {
        snprintf(name, sizeof name, "templ-%s.pgm", truth_ght_shape_name((truth_ght_shape)s));
        if (t[s].data != NULL && eg_write_pgm(dir, name, &t[s]) != 0)
            return -1;
    }
    return 0;
}

static int
eg_main(tool_options *o, int argc, char **argv)
{
    eg_args a = {12, 1, 400, 300, NULL, NULL, 0, VOTECL_GHT_GUIL};
    truth_ght_image t[TRUTH_GHT_SHAPES];
    votecl_ght_model *models[TRUTH_GHT_SHAPES] = {NULL};
    votecl_context *ctx = NULL;
    FILE *cases = NULL;
    char path[4096];
    int rc;
    votecl_status st;

    if ((rc = eg_parse(o, &a, argc, argv)) != TOOL_EXIT_OK || o->help) {
        if (o->help)
            eg_usage(stdout);
        return rc;
    }
    if (eg_templates(&a, t) != 0)
        return (fprintf(stderr, "votecl eval ght: out of memory\n"), TOOL_EXIT_FAILURE);
    if (a.dump != NULL && (eg_dump_templates(a.dump, t) != 0 ||
                           tool_path_join(path, sizeof path, a.dump, "cases.json") == NULL ||
                           (cases = fopen(path, "w")) == NULL)) {
        fprintf(stderr, "votecl eval ght: cannot write in %s\n", a.dump);
        rc = TOOL_EXIT_FAILURE;
        goto out;
    }
    if ((rc = tool_context_open(o, &ctx)) != TOOL_EXIT_OK)
        goto out;
    if ((st = eg_models(ctx, &a, t, models)) != VOTECL_OK) {
        rc = tool_fail(ctx, st, "eval ght: template");
        goto out;
    }
    rc = eg_run(o, &a, ctx, t, models, cases);
out:
    if (cases != NULL)
        fclose(cases);
    for (int s = 0; s < TRUTH_GHT_SHAPES; s++) {
        votecl_ght_model_free(models[s]);
        truth_ght_image_free(&t[s]);
    }
    votecl_context_free(ctx);
    return rc;
}

const tool_eval_suite tool_eval_ght = {
    "ght", "Guil's GHT: shapes under any rotation and scale among distractors", eg_main};
