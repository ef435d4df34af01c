/* votecl eval hog: the HOG truth suite (tests/truth-hog.h) through the library's defaults.
 *
 * Every case runs the people detector twice (OpenCV-style grouping and mean-shift fusion;
 * winStride 8, padding 0, scale 1.05, threshold 0) and, for the descriptor families, computes
 * every window's descriptor at stride 8. OpenCV is the truth here, so the scoring happens in
 * tools/eval-hog.py on what --dump DIR writes: each case's image (NAME.ppm, R, G, B), its
 * descriptors (NAME.f32, float32, windows row after row) and cases.json (this command's
 * JSON). Without --dump the JSON alone reports boxes and times. The people family pastes the
 * left player of tools/images/basketball1.png (x 15, y 60, 160 x 420); the shipped images
 * (basketball1.png, building.png) are cases of their own ("shipped"). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "json.h"
#include "../tests/truth-hog.h"

#define EVAL_HOG_MAX_BOXES 256

typedef struct eval_hog {
    const char *family, *dump, *images;
    unsigned long seed;
    votecl_context *ctx;
    votecl_hog_model *model;
    tool_image source; /* basketball1.png as RGB */
    tool_json json;
} eval_hog;

static void
eval_hog_usage(FILE *f)
{
    fprintf(f, "usage: votecl eval hog [--family NAME] [--seed N] [--images DIR] [--dump DIR]\n"
               "The HOG suite: saturated, equal-mag, gray-rgb (descriptors), people and shipped\n"
               "(boxes with grouping and mean-shift). tools/eval-hog.py DIR scores them\n"
               "against OpenCV on what --dump DIR wrote.\n");
}

static int
eval_hog_option(void *args, int argc, char **argv, int *i)
{
    eval_hog *e = args;
    const char *v = NULL;
    int r;

    if ((r = tool_option_value(argc, argv, i, "--family", &v)) != 0)
        return r < 0 ? r : (e->family = v, 1);
    if ((r = tool_option_value(argc, argv, i, "--dump", &v)) != 0)
        return r < 0 ? r : (e->dump = v, 1);
    if ((r = tool_option_value(argc, argv, i, "--images", &v)) != 0)
        return r < 0 ? r : (e->images = v, 1);
    if ((r = tool_option_value(argc, argv, i, "--seed", &v)) != 0)
        return r < 0 ? r : tool_parse_ulong("--seed", v, 0, 0xffffffffUL, &e->seed) < 0 ? -1 : 1;
    return 0;
}

static int
write_ppm(const char *dir, const char *name, const uint8_t *rgb, uint32_t w, uint32_t h)
{
    char path[4096];
    FILE *f;
    int ok;

    snprintf(path, sizeof path, "%s/%s.ppm", dir, name);
    if ((f = fopen(path, "wb")) == NULL)
        return -1;
    ok = fprintf(f, "P6\n%u %u\n255\n", w, h) > 0 && fwrite(rgb, 3, (size_t)w * h, f) == (size_t)w * h;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static void
json_boxes(tool_json *j, const char *key, const votecl_hog_detection *d, size_t n)
{
    tool_json_key(j, key);
    tool_json_begin_array(j);
    for (size_t i = 0; i < n && i < EVAL_HOG_MAX_BOXES; i++) {
        tool_json_begin_array_compact(j);
        tool_json_int(j, d[i].box.x);
        tool_json_int(j, d[i].box.y);
        tool_json_int(j, d[i].box.width);
        tool_json_int(j, d[i].box.height);
        tool_json_end_array(j);
    }
    tool_json_end_array(j);
}

/* Detects with fusion; writes "<key>" boxes and "<key>_seconds". */
static votecl_status
detect(eval_hog *e, const votecl_image *view, votecl_hog_fusion fusion, const char *key)
{
    votecl_hog_params p;
    votecl_hog *hog = NULL;
    votecl_hog_detection det[EVAL_HOG_MAX_BOXES];
    size_t found = 0;
    char k[64];
    double t0 = 0;
    votecl_status st;

    votecl_hog_params_init(&p);
    p.fusion = fusion;
    st = votecl_hog_new(e->ctx, &p, e->model, &hog);
    if (st == VOTECL_OK) {
        t0 = tool_now();
        st = votecl_hog_detect(hog, view, NULL, 0, det, EVAL_HOG_MAX_BOXES, &found);
    }
    if (st == VOTECL_OK) {
        snprintf(k, sizeof k, "%s_seconds", key);
        tool_json_kv_double(&e->json, k, tool_now() - t0);
        json_boxes(&e->json, key, det, found);
    }
    votecl_hog_free(hog);
    return st;
}

/* The descriptors of every window at stride 8, dumped as NAME.f32 when dumping. */
static votecl_status
descriptors(eval_hog *e, const char *name, const votecl_image *view)
{
    votecl_hog_params p;
    votecl_hog *hog = NULL;
    size_t cols = 0, rows = 0, len = 0, n = 0;
    float *d = NULL;
    votecl_status st;

    votecl_hog_params_init(&p);
    st = votecl_hog_new(e->ctx, &p, NULL, &hog);
    if (st == VOTECL_OK)
        st = votecl_hog_windows(hog, view->width, view->height, &cols, &rows);
    if (st == VOTECL_OK) {
        votecl_hog_descriptor_length(&p, &len);
        d = malloc((cols * rows * len > 0 ? cols * rows * len : 1) * sizeof *d);
        st = d ? votecl_hog_compute(hog, view, d, cols * rows * len, &n)
               : VOTECL_OUT_OF_HOST_MEMORY;
    }
    if (st == VOTECL_OK) {
        tool_json_kv_uint(&e->json, "windows", n);
        if (e->dump != NULL) {
            char path[4096];
            FILE *f;

            snprintf(path, sizeof path, "%s/%s.f32", e->dump, name);
            if ((f = fopen(path, "wb")) == NULL || fwrite(d, sizeof *d, n * len, f) != n * len)
                fprintf(stderr, "votecl eval hog: cannot write %s\n", path);
            if (f != NULL)
                fclose(f);
        }
    }
    free(d);
    votecl_hog_free(hog);
    return st;
}

static int
run_case(eval_hog *e, const char *family, const char *name, const uint8_t *rgb, uint32_t w,
         uint32_t h, int desc)
{
    votecl_image view = {rgb, w, h, (size_t)w * 3, 3, VOTECL_DTYPE_U8};
    votecl_status st = VOTECL_OK;

    if (e->dump != NULL && write_ppm(e->dump, name, rgb, w, h) < 0) {
        fprintf(stderr, "votecl eval hog: cannot write %s/%s.ppm\n", e->dump, name);
        return -1;
    }
    tool_json_begin_object(&e->json);
    tool_json_kv_string(&e->json, "name", name);
    tool_json_kv_string(&e->json, "family", family);
    tool_json_kv_uint(&e->json, "width", w);
    tool_json_kv_uint(&e->json, "height", h);
    if (desc)
        st = descriptors(e, name, &view);
    if (st == VOTECL_OK)
        st = detect(e, &view, VOTECL_HOG_FUSION_GROUP, "group");
    if (st == VOTECL_OK)
        st = detect(e, &view, VOTECL_HOG_FUSION_MEANSHIFT, "meanshift");
    tool_json_end_object(&e->json);
    if (st != VOTECL_OK) {
        tool_fail(e->ctx, st, name);
        return -1;
    }
    return 0;
}

static int
run_families(eval_hog *e)
{
    /* the left player of basketball1.png, head to feet */
    truth_hog_source src = {e->source.data, (uint32_t)e->source.width,
                            (uint32_t)e->source.height, 15, 60, 160, 420};
    int has_src = e->source.data != NULL && e->source.width >= 175 && e->source.height >= 480;

    for (const truth_hog_family *f = truth_hog_families(); f->name; f++) {
        if ((e->family && strcmp(e->family, f->name) != 0) || (f->people && !has_src))
            continue;
        for (size_t i = 0; i < f->count; i++) {
            truth_hog_case c;
            int r;

            if (f->make(&c, i, e->seed * 1000003u + i, &src) < 0) {
                truth_hog_case_clear(&c);
                return -1;
            }
            r = run_case(e, f->name, c.name, c.rgb, c.width, c.height, !f->people);
            truth_hog_case_clear(&c);
            if (r < 0)
                return -1;
        }
    }
    return 0;
}

/* An RGB copy of a shipped image (gray replicated); 0 or -1. */
static int
load_rgb(const char *dir, const char *name, tool_image *out)
{
    char path[4096], error[600];
    tool_image raw = {0};
    int r = -1;

    if (tool_path_join(path, sizeof path, dir, name) && tool_image_read(path, &raw, error,
                                                                         sizeof error) == 0 &&
        raw.dtype == VOTECL_DTYPE_U8 &&
        tool_image_alloc(out, raw.width, raw.height, 3, VOTECL_DTYPE_U8, error, sizeof error) ==
            0) {
        for (size_t y = 0; y < raw.height; y++)
            for (size_t x = 0; x < raw.width; x++)
                for (unsigned c = 0; c < 3; c++)
                    out->data[y * out->stride + 3 * x + c] =
                        raw.data[y * raw.stride + x * raw.channels + (raw.channels >= 3 ? c : 0)];
        r = 0;
    }
    tool_image_free(&raw);
    return r;
}

static int
run_shipped(eval_hog *e)
{
    static const char *const names[] = {"basketball1.png", "building.png"};

    if (e->family && strcmp(e->family, "shipped") != 0)
        return 0;
    for (size_t i = 0; i < 2; i++) {
        tool_image im = {0};
        char name[64];
        int r;

        if (load_rgb(tool_image_dir(e->images), names[i], &im) < 0)
            continue;
        snprintf(name, sizeof name, "shipped-%zu", i);
        r = run_case(e, "shipped", name, im.data, (uint32_t)im.width, (uint32_t)im.height, 0);
        tool_image_free(&im);
        if (r < 0)
            return -1;
    }
    return 0;
}

static int
eval_hog_run(tool_options *options, int argc, char **argv)
{
    eval_hog e = {0};
    FILE *out = stdout;
    char path[4096];
    int rc = TOOL_EXIT_FAILURE;

    if (tool_parse_options(options, "eval hog", "unknown option", eval_hog_option, &e, argc,
                           argv) != TOOL_EXIT_OK)
        return TOOL_EXIT_USAGE;
    if (options->help) {
        eval_hog_usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (e.family && strcmp(e.family, "shipped") != 0 && !truth_hog_family_find(e.family))
        return tool_usage_error("eval hog", "--family: no family '%s'", e.family);
    if (e.dump != NULL) {
        snprintf(path, sizeof path, "%s/cases.json", e.dump);
        if ((out = fopen(path, "w")) == NULL) {
            fprintf(stderr, "votecl eval hog: cannot write %s\n", path);
            return TOOL_EXIT_FAILURE;
        }
    }
    if (load_rgb(tool_image_dir(e.images), "basketball1.png", &e.source) < 0)
        fprintf(stderr, "votecl eval hog: no basketball1.png: the people family is skipped\n");
    if (tool_context_open(options, &e.ctx) != TOOL_EXIT_OK)
        goto out;
    {
        votecl_status st = votecl_hog_model_people(e.ctx, &e.model);

        if (st != VOTECL_OK) {
            rc = tool_fail(e.ctx, st, "people model");
            goto out;
        }
    }
    tool_json_document(&e.json, out, "eval");
    tool_json_parameters(&e.json);
    tool_json_kv_string(&e.json, "suite", "hog");
    tool_json_kv_uint(&e.json, "seed", e.seed);
    tool_json_results(&e.json);
    tool_json_key(&e.json, "cases");
    tool_json_begin_array(&e.json);
    if (run_families(&e) == 0 && run_shipped(&e) == 0)
        rc = TOOL_EXIT_OK;
    tool_json_end_array(&e.json);
    tool_json_document_end(&e.json);
out:
    if (out != stdout && fclose(out) != 0)
        rc = TOOL_EXIT_FAILURE;
    if (e.dump != NULL && rc == TOOL_EXIT_OK)
        printf("votecl eval hog: wrote %s; score with tools/eval-hog.py %s\n", path, e.dump);
    votecl_hog_model_free(e.model);
    votecl_context_free(e.ctx);
    tool_image_free(&e.source);
    return rc;
}

const tool_eval_suite tool_eval_hog = {"hog", "HOG descriptors and boxes against OpenCV's",
                                       eval_hog_run};
