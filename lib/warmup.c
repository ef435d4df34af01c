/* Compilation paid ahead of time (votecl_context_warmup): every module's default plan is
 * made and run once on a small synthetic input, through the public API only, so that exactly
 * the programs a later call composes reach the caches (and PoCL, which generates a kernel's
 * work-group code at its first launch, caches that too). */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM_WIDTH 1920
#define WARM_HEIGHT 1080
#define WARM_SIDE 96 /* the synthetic GHT template and HOG image are this many pixels high */

/* A square outline of side/2 on a black side x side image: edges in every direction. */
static unsigned char *
square_image(size_t side)
{
    unsigned char *p = calloc(side * side, 1);

    if (p == NULL)
        return NULL;
    for (size_t y = side / 4; y < 3 * side / 4; y++)
        for (size_t x = side / 4; x < 3 * side / 4; x++)
            p[y * side + x] = 200;
    return p;
}

/* An asymmetric blob with soft edges (an ellipse and a disc) on a black side x side image,
 * shifted by (dx, dy): in the scene it is found as a pose of the template, which takes a
 * detection through every stage and so launches every kernel a real one does (a square
 * outline was never found, and left six of Guil's kernels to the first real call). */
static unsigned char *
blob_image(size_t side, int dx, int dy)
{
    unsigned char *p = malloc(side * side);

    if (p == NULL)
        return NULL;
    for (size_t y = 0; y < side; y++) {
        for (size_t x = 0; x < side; x++) {
            double u = (double)x - dx, v = (double)y - dy;
            double e = (u - 40) * (u - 40) / 676.0 + (v - 48) * (v - 48) / 256.0;
            double c = ((u - 64) * (u - 64) + (v - 30) * (v - 30)) / 100.0;
            p[y * side + x] = (unsigned char)(200.0 / (1.0 + exp(((e < c ? e : c) - 1.0) * 12.0)));
        }
    }
    return p;
}

static votecl_image
gray_view(const unsigned char *p, size_t width, size_t height)
{
    votecl_image image = {p, width, height, width, 1, VOTECL_DTYPE_U8};
    return image;
}

typedef struct warm_step warm_step;

/* What runs on a frame: the line and circle detectors, the edges. */
typedef votecl_status (*warm_frame_fn)(votecl_context *context, const votecl_image *frame);

/* One algorithm's warm-up: its default plan made and run once on a small synthetic input. */
typedef votecl_status (*warm_fn)(votecl_context *context, const warm_step *step);

/* The library's list of algorithms, as far as warm-up goes (the tests' list is
 * tests/cases.h, the tools' tools/algorithms.h): a new algorithm adds its warm function and
 * its steps here. */
struct warm_step {
    const char *name;
    warm_fn warm;
    int arg; /* hist: dtype; ght: method; frame: 1 for a grey block */
    votecl_variant variant;
    int all_only;      /* only with VOTECL_WARMUP_ALL */
    unsigned channels; /* hist: interleaved channels */
    warm_frame_fn frame; /* a frame step's run on the frame */
};

/* The histogram of channel `channel` of `channels` interleaved ones (a channel is a define). */
static votecl_status
warm_hist_channel(votecl_context *context, votecl_dtype dtype, votecl_variant variant,
                  unsigned channels, unsigned channel)
{
    votecl_hist_params params;
    votecl_hist_plan *plan = NULL;
    votecl_status status;

    const size_t n = 1u << 16;
    void *data = NULL, *bins = NULL;

    votecl_hist_params_init(&params, dtype);
    params.variant = variant;
    params.channels = channels;
    params.channel[0] = channel;
    status = votecl_hist_plan_new(context, &params, &plan);
    /* one run too: PoCL generates each kernel's work-group code at its first launch */
    if (status == VOTECL_OK && ((data = calloc(n * channels, votecl_dtype_size(dtype))) == NULL ||
                                (bins = calloc(votecl_hist_plan_nbins(plan), 4)) == NULL))
        status = votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if (status == VOTECL_OK)
        status = votecl_hist_run(plan, data, NULL, NULL, n, bins);
    free(data);
    free(bins);
    votecl_hist_plan_free(plan);
    return status;
}

/* Every channel's histogram of elements of `channels` channels (one plan per channel, as
 * `votecl hist` of an RGB or RGBA image makes them). */
static votecl_status
warm_hist(votecl_context *context, const warm_step *s)
{
    votecl_status status = VOTECL_OK;

    for (unsigned k = 0; k < s->channels && status == VOTECL_OK; k++)
        status = warm_hist_channel(context, (votecl_dtype)s->arg, s->variant, s->channels, k);
    return status;
}

/* A black WARM_WIDTH x WARM_HEIGHT frame holding a horizontal line (edges, for the Hough) or
 * a grey block (a gray image, for PClines), run through run. */
static votecl_status
warm_on_frame(votecl_context *context, int block, warm_frame_fn run)
{
    unsigned char *pixels = calloc((size_t)WARM_WIDTH * WARM_HEIGHT, 1);
    votecl_image image = gray_view(pixels, WARM_WIDTH, WARM_HEIGHT);
    votecl_status status;

    if (pixels == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    for (size_t x = WARM_WIDTH / 4; !block && x < WARM_WIDTH / 2; x++)
        pixels[(WARM_HEIGHT / 2) * WARM_WIDTH + x] = 255;
    for (size_t y = WARM_HEIGHT / 4; block && y < 3 * WARM_HEIGHT / 4; y++)
        memset(pixels + y * WARM_WIDTH + WARM_WIDTH / 4, 200, WARM_WIDTH / 2);
    status = run(context, &image);
    free(pixels);
    return status;
}

static votecl_status
hough_frame(votecl_context *context, const votecl_image *image)
{
    votecl_hough_params params;
    votecl_hough_plan *plan = NULL;
    votecl_hough_line lines[4];
    size_t n = 0;
    votecl_status status;

    votecl_hough_params_init(&params);
    status = votecl_hough_plan_new(context, &params, WARM_WIDTH, WARM_HEIGHT, &plan);
    if (status == VOTECL_OK)
        status = votecl_hough_run(plan, image, lines, 4, &n, NULL);
    /* and from a gray image, edges found on the device (cl/hough.cl): `votecl hough`'s default */
    if (status == VOTECL_OK)
        status = votecl_hough_run_gray(plan, image, 100, lines, 4, &n, NULL);
    votecl_hough_plan_free(plan);
    return status;
}

static votecl_status
lines_frame(votecl_context *context, const votecl_image *image)
{
    votecl_lines_params params;
    votecl_lines_plan *plan = NULL;
    votecl_lines_line lines[4];
    size_t n = 0;
    votecl_status status;

    votecl_lines_params_init(&params);
    status = votecl_lines_plan_new(context, &params, WARM_WIDTH, WARM_HEIGHT, &plan);
    if (status == VOTECL_OK)
        status = votecl_lines_run(plan, image, lines, 4, &n);
    votecl_lines_plan_free(plan);
    return status;
}

static votecl_status
warm_hog(votecl_context *context, const warm_step *step)
{
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = NULL;
    unsigned char *pixels = square_image(2 * WARM_SIDE);
    votecl_image image = gray_view(pixels, 2 * WARM_SIDE, 2 * WARM_SIDE);
    votecl_hog_detection found[4];
    size_t n = 0;
    votecl_status status;

    if (pixels == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    votecl_hog_params_init(&params);
    status = votecl_hog_model_people(context, &model);
    if (status == VOTECL_OK)
        status = votecl_hog_new(context, &params, model, &hog);
    if (status == VOTECL_OK)
        status = votecl_hog_detect(hog, &image, NULL, 0, found, 4, &n);
    votecl_hog_free(hog);
    votecl_hog_model_free(model);
    free(pixels);
    return status;
}

static votecl_status
warm_ght(votecl_context *context, const warm_step *step)
{
    votecl_ght_params params;
    votecl_ght_model *model = NULL;
    unsigned char *templ = blob_image(WARM_SIDE, 0, 0), *scene = blob_image(2 * WARM_SIDE, 50, 40);
    votecl_image t = gray_view(templ, WARM_SIDE, WARM_SIDE);
    votecl_image s = gray_view(scene, 2 * WARM_SIDE, 2 * WARM_SIDE);
    votecl_ght_pose poses[4];
    size_t n = 0;
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    votecl_ght_params_init(&params, (votecl_ght_method)step->arg);
    if (templ != NULL && scene != NULL &&
        (status = votecl_ght_model_new(context, &params, &t, &model)) == VOTECL_OK)
        status = votecl_ght_detect(model, &s, poses, 4, &n);
    votecl_ght_model_free(model);
    free(templ);
    free(scene);
    return status;
}

/* Both methods (the gradient one's vote and centre kernels, the radii one's vote) on the grey
 * block: its Canny edges for the first, its pixels as edges for the second. */
static votecl_status
circles_frame(votecl_context *context, const votecl_image *image)
{
    votecl_circles_params params;
    votecl_circles_plan *plan = NULL;
    votecl_circle circles[4];
    size_t n = 0;
    votecl_status status = VOTECL_OK;

    for (int m = VOTECL_CIRCLES_GRADIENT; m <= VOTECL_CIRCLES_RADII && status == VOTECL_OK; m++) {
        votecl_circles_params_init(&params, (votecl_circles_method)m);
        params.min_radius = 3;
        params.max_radius = 5;
        /* a few peaks per radius: every pixel of the block is an edge for the radii method,
         * and its greedy peak pass scans the peaks kept so far for each of its ~1.5 million
         * candidates (the programs are the same whatever the peak count) */
        params.num_peaks = 4;
        status = votecl_circles_plan_new(context, &params, WARM_WIDTH, WARM_HEIGHT, &plan);
        if (status == VOTECL_OK)
            status = votecl_circles_run(plan, image, circles, 4, &n, NULL);
        votecl_circles_plan_free(plan);
        plan = NULL;
    }
    return status;
}

/* A frame step: its frame function run on the frame (arg: 1 for the grey block). */
static votecl_status
warm_frame(votecl_context *context, const warm_step *step)
{
    return warm_on_frame(context, step->arg, step->frame);
}

/* The public Canny (default parameters) on the grey block: its kernels on a GPU-shaped
 * device (cl/edges.cl, one program for every aperture and norm). */
static votecl_status
edges_frame(votecl_context *context, const votecl_image *image)
{
    votecl_canny_params params;
    uint8_t *edges = malloc(image->width * image->height);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    votecl_canny_params_init(&params);
    if (edges != NULL)
        status = votecl_edges_canny(context, image, &params, edges, image->width);
    free(edges);
    return status;
}

static const warm_step steps[] = {
    {"histogram u8", warm_hist, VOTECL_DTYPE_U8, VOTECL_VARIANT_AUTO, 0, 1, NULL},
    {"histogram u8 RGB", warm_hist, VOTECL_DTYPE_U8, VOTECL_VARIANT_AUTO, 0, 3, NULL},
    {"histogram u8 RGBA", warm_hist, VOTECL_DTYPE_U8, VOTECL_VARIANT_AUTO, 1, 4, NULL},
    {"histogram u16", warm_hist, VOTECL_DTYPE_U16, VOTECL_VARIANT_AUTO, 0, 1, NULL},
    {"histogram u32", warm_hist, VOTECL_DTYPE_U32, VOTECL_VARIANT_AUTO, 0, 1, NULL},
    {"histogram f32", warm_hist, VOTECL_DTYPE_F32, VOTECL_VARIANT_AUTO, 0, 1, NULL},
    {"hough", warm_frame, 0, VOTECL_VARIANT_AUTO, 0, 1, hough_frame},
    {"lines", warm_frame, 1, VOTECL_VARIANT_AUTO, 0, 1, lines_frame},
    {"hog", warm_hog, 0, VOTECL_VARIANT_AUTO, 0, 1, NULL},
    {"ght guil", warm_ght, VOTECL_GHT_GUIL, VOTECL_VARIANT_AUTO, 0, 1, NULL},
    {"ght ballard", warm_ght, VOTECL_GHT_BALLARD, VOTECL_VARIANT_AUTO, 0, 1, NULL},
    {"circles", warm_frame, 1, VOTECL_VARIANT_AUTO, 0, 1, circles_frame},
    {"edges", warm_frame, 1, VOTECL_VARIANT_AUTO, 0, 1, edges_frame},
};

/* VOTECL_WARMUP_ALL's sweep after the steps: every histogram strategy for every dtype. */
static const votecl_dtype sweep_dtypes[] = {VOTECL_DTYPE_U8, VOTECL_DTYPE_U16, VOTECL_DTYPE_U32,
                                            VOTECL_DTYPE_F32};
static const votecl_variant sweep_variants[] = {VOTECL_VARIANT_LOCAL, VOTECL_VARIANT_GLOBAL,
                                                VOTECL_VARIANT_PRIVATE};
#define COUNT(a) (sizeof(a) / sizeof(a)[0])
#define SWEEP (COUNT(sweep_dtypes) * COUNT(sweep_variants))

/* The steps, then the sweep's ("histogram u16 global"), named in names; their count. */
static size_t
all_steps(warm_step *all, char (*names)[32])
{
    size_t n = 0;

    for (size_t i = 0; i < COUNT(steps); i++)
        all[n++] = steps[i];
    for (size_t k = 0; k < SWEEP; k++, n++) {
        votecl_dtype dtype = sweep_dtypes[k / COUNT(sweep_variants)];
        votecl_variant variant = sweep_variants[k % COUNT(sweep_variants)];

        snprintf(names[k], sizeof names[k], "histogram %s %s", votecl_dtype_name(dtype),
                 votecl_variant_name(variant));
        all[n] = (warm_step){names[k], warm_hist, (int)dtype, variant, 1, 1, NULL};
    }
    return n;
}

votecl_status
votecl_context_warmup(votecl_context *context, unsigned flags, votecl_warmup_progress progress,
                      void *user)
{
    warm_step all[COUNT(steps) + SWEEP];
    char names[SWEEP][32];
    size_t count = all_steps(all, names);
    unsigned total = 0, index = 0;
    votecl_status first = VOTECL_OK;
    char failed[sizeof context->error] = "";

    if (context == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (context->backend == VOTECL_BACKEND_REF)
        return VOTECL_OK; /* nothing is compiled there */
    for (size_t i = 0; i < count; i++)
        total += !all[i].all_only || (flags & VOTECL_WARMUP_ALL);
    for (size_t i = 0; i < count; i++) {
        votecl_status status;
        if (all[i].all_only && !(flags & VOTECL_WARMUP_ALL))
            continue;
        if (progress != NULL)
            progress(all[i].name, index, total, user);
        index++;
        status = all[i].warm(context, &all[i]);
        /* a strategy the device lacks (local atomics) is no failure of the warm-up */
        if (status != VOTECL_OK && status != VOTECL_UNSUPPORTED && first == VOTECL_OK) {
            first = status;
            snprintf(failed, sizeof failed, "warm-up step '%s': %.900s", all[i].name,
                     context->error);
        }
    }
    votecl__clear_error(context);
    if (first != VOTECL_OK)
        return votecl__fail(context, first, "%s", failed);
    return VOTECL_OK;
}
