/* HOG in the votecl tool (tools/algorithms.h): its demo step, votecl batch hog, the bench
 * group hog and votecl eval hog (tools/eval-hog.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bench.h"
#include "plot.h"

#define BATCH_MAX_SHOWN 1000

/* --- demo: HOG people detection --- */

static tool_demo_result
demo_hog(tool_demo *d, const tool_demo_image *im)
{
    votecl_hog_params params;
    votecl_hog_detection found[32];
    size_t n = 0;
    double seconds = 0;
    tool_image canvas = {0};
    char error[600], note[200];
    tool_demo_result result = TOOL_DEMO_FAILED;
    votecl_status st;

    if (im->image.dtype != VOTECL_DTYPE_U8 || im->image.width < 64 || im->image.height < 128)
        return TOOL_DEMO_SKIPPED;
    votecl_hog_params_init(&params);
    st = tool_hog_detect(d->ctx, &params, NULL, &im->image, found, 32, &n, &seconds);
    if (st != VOTECL_OK) {
        tool_fail(d->ctx, st, "HOG");
        return TOOL_DEMO_FAILED;
    }
    snprintf(note, sizeof note, "%zu people; %.2f ms (all scales, fusion included)", n,
             seconds * 1e3);
    printf("  hog: %s\n", note);
    for (size_t k = 0; k < n && k < 32 && k < 3; k++)
        printf("    box %zu: (%d, %d) %dx%d, score %.2f\n", k + 1, (int)found[k].box.x,
               (int)found[k].box.y, (int)found[k].box.width, (int)found[k].box.height,
               found[k].score);
    result = tool_demo_write_captioned(
        d, tool_hog_annotate(&im->image, found, n < 32 ? n : 32, &canvas, error, sizeof error),
        &canvas, error, im->stem, "hog", note);
    return result;
}

/* --- batch --- */

typedef struct hog_case {
    votecl_hog_params params;
    const char *model_path;
} hog_case;

static void
hog_init(void *args)
{
    hog_case *h = args;
    votecl_hog_params_init(&h->params);
}

static int
hog_option(void *args, int argc, char **argv, int *i)
{
    hog_case *h = args;
    votecl_hog_params *p = &h->params;
    const char *v = NULL;
    unsigned long x = 0;
    int r;
    if (strcmp(argv[*i], "--group") == 0)
        return p->fusion = VOTECL_HOG_FUSION_GROUP, 1;
    if (strcmp(argv[*i], "--gray") == 0)
        return p->colour = 0, 1;
    if ((r = tool_hog_mode_option(p, argc, argv, i)) != 0)
        return r;
    if ((r = tool_option_value(argc, argv, i, "--model", &v)) != 0)
        return r < 0 ? r : (h->model_path = v, 1);
    if ((r = tool_option_double(argc, argv, i, "--scale", &p->scale)) != 0 ||
        (r = tool_option_double(argc, argv, i, "--threshold", &p->hit_threshold)) != 0)
        return r;
    if ((r = tool_option_range(argc, argv, i, "--stride", 1, 1024, &x)) != 0)
        return r < 0 ? r : (p->window_stride_x = p->window_stride_y = (unsigned)x, 1);
    if ((r = tool_option_range(argc, argv, i, "--padding", 0, 1024, &x)) != 0)
        return r < 0 ? r : (p->padding_x = p->padding_y = (unsigned)x, 1);
    return 0;
}

/* The worker's detector: the model loaded and the detector made once. */
typedef struct hog_state {
    votecl_hog_model *model;
    votecl_hog *hog;
} hog_state;

static void
hog_state_free(void *state)
{
    hog_state *h = state;
    if (h != NULL) {
        votecl_hog_free(h->hog);
        votecl_hog_model_free(h->model);
    }
    free(h);
}

static votecl_status
hog_detector(const hog_case *c, votecl_context *ctx, void **state, hog_state **out)
{
    hog_state *h = *state;
    votecl_status st;
    if (h == NULL && (h = *state = calloc(1, sizeof *h)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    *out = h;
    if (h->hog != NULL)
        return VOTECL_OK;
    /* votecl's model files or OpenCV's (whose window geometry then applies), as votecl hog */
    votecl_hog_params params = c->params;
    st = tool_hog_model_load(ctx, c->model_path, &params, &h->model);
    return st == VOTECL_OK ? votecl_hog_new(ctx, &params, h->model, &h->hog) : st;
}

/* What tool_hog_detect() gives, from the worker's detector and one run. */
static votecl_status
hog_compute(const void *args, votecl_context *ctx, void **state, const tool_image *image,
            tool_json *j, double *seconds, tool_image *annotated)
{
    const hog_case *c = args;
    votecl_hog_detection *det = calloc(BATCH_MAX_SHOWN, sizeof *det);
    tool_image u8 = {0};
    hog_state *h = NULL;
    votecl_image view;
    char error[300];
    size_t found = 0, shown;
    double t0 = tool_now();
    /* u8 gray, RGB or RGBA goes as it is (video frames); others as votecl hog converts them */
    int as_is = image->dtype == VOTECL_DTYPE_U8 && image->channels != 2;
    votecl_status st = VOTECL_OUT_OF_HOST_MEMORY;
    if (det == NULL || (!as_is && tool_image_u8(image, &u8, error, sizeof error) < 0) ||
        (st = hog_detector(c, ctx, state, &h)) != VOTECL_OK)
        goto out;
    view = tool_image_view(as_is ? image : &u8);
    if ((st = votecl_hog_detect(h->hog, &view, NULL, 0, det, BATCH_MAX_SHOWN, &found)) != VOTECL_OK)
        goto out;
    *seconds = tool_now() - t0;
    shown = found < BATCH_MAX_SHOWN ? found : BATCH_MAX_SHOWN;
    tool_json_hog_parameters(j, c->model_path, &c->params);
    tool_json_results(j);
    tool_json_kv_uint(j, "found", found);
    tool_json_key(j, "detections");
    tool_json_begin_array(j);
    for (size_t i = 0; i < shown; i++) {
        tool_json_begin_object(j);
        tool_json_kv_int(j, "x", det[i].box.x);
        tool_json_kv_int(j, "y", det[i].box.y);
        tool_json_kv_int(j, "width", det[i].box.width);
        tool_json_kv_int(j, "height", det[i].box.height);
        tool_json_kv_double(j, "score", det[i].score);
        tool_json_kv_double(j, "scale", det[i].scale);
        tool_json_end_object(j);
    }
    tool_json_end_array(j);
    if (annotated != NULL)
        st = tool_annotate_status(
            tool_hog_annotate(as_is ? image : &u8, det, shown, annotated, error, sizeof error));
out:
    tool_image_free(&u8);
    free(det);
    return st;
}

/* --- bench --- */

typedef struct hog_op {
    votecl_hog *hog;
    votecl_image image;
    votecl_hog_detection found[64];
    size_t n;
} hog_op;

static votecl_status
run_hog_op(void *arg)
{
    hog_op *op = arg;
    return votecl_hog_detect(op->hog, &op->image, NULL, 0, op->found, 64, &op->n);
}

/* Full multi-scale people detection (scale 1.05, stride 8, fusion on the host included) of
 * an image in host memory with OpenCV's default detector. */
static void
bench_hog_case(tool_bench *b, const char *name, const tool_image *image)
{
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    hog_op op = {.image = tool_image_view(image)};
    double seconds = 0;
    votecl_status st;

    votecl_hog_params_init(&params);
    st = votecl_hog_model_people(b->ctx, &model);
    if (st == VOTECL_OK)
        st = votecl_hog_new(b->ctx, &params, model, &op.hog);
    if (st == VOTECL_OK)
        st = tool_bench_time(b->ctx, run_hog_op, &op, b->args.quick ? 1 : 5, 1, &seconds);
    tool_bench_case_begin(b, name, st);
    tool_json_kv_uint(&b->json, "width", image->width);
    tool_json_kv_uint(&b->json, "height", image->height);
    if (tool_bench_case_result(b, name, st, seconds, 1)) {
        tool_json_kv_uint(&b->json, "detections", op.n);
        tool_bench_queued(b, run_hog_op, &op);
    }
    tool_json_end_object(&b->json);
    tool_progress(b->options, "bench: %-12s %8.2f ms, %zu detections\n", name, seconds * 1e3, op.n);
    votecl_hog_free(op.hog);
    votecl_hog_model_free(model);
}

/* The shipped image name as it is (name_small, skipped when NULL) and stretched to 1920x1080
 * by nearest neighbour (name_big, skipped by --quick). */
static void
bench_hog_image(tool_bench *b, const char *file, const char *name_small, const char *name_big)
{
    tool_image image = {0}, big = {0};
    char path[4096], error[256];

    if (!tool_path_join(path, sizeof path, tool_image_dir(b->args.images), file) ||
        tool_image_read(path, &image, error, sizeof error) < 0 || image.dtype != VOTECL_DTYPE_U8)
        goto out;
    if (name_small != NULL)
        bench_hog_case(b, name_small, &image);
    if (b->args.quick || tool_image_alloc(&big, 1920, 1080, image.channels, VOTECL_DTYPE_U8, error,
                                          sizeof error) != 0)
        goto out;
    for (size_t y = 0; y < big.height; y++)
        for (size_t x = 0; x < big.width; x++)
            memcpy(big.data + y * big.stride + x * big.channels,
                   image.data + (y * image.height / big.height) * image.stride +
                       (x * image.width / big.width) * image.channels,
                   image.channels);
    bench_hog_case(b, name_big, &big);
out:
    tool_image_free(&image);
    tool_image_free(&big);
}

/* basketball1.png (640x480 gray, one person) as it is and at 1080p; astronaut.jpg (colour)
 * at 1080p for the colour gradient's cost (the channel of largest magnitude per pixel). */
static void
bench_hog(tool_bench *b)
{
    bench_hog_image(b, "basketball1.png", "hog640x480", "hog1920x1080");
    bench_hog_image(b, "astronaut.jpg", NULL, "hog1920x1080rgb");
}

/* --- the descriptor --- */

TOOL_ALGORITHM_ONE(
    hog, "people by HOG (OpenCV's default detector, scale 1.05, stride 8)", &tool_eval_hog,
    .options = "[--model FILE] [--scale s] [--stride n] [--padding n] [--threshold t] "
               "[--group] [--gray] [--block-norm N] [--binning B]",
    .args_size = sizeof(hog_case), TOOL_BATCH_HOOKS(hog), .colour = 1,
    .state_free = hog_state_free);
