/* HOG in the tests that call every algorithm (tests/cases.h): the model file loader, the
 * detector with the people model (detect and compute), the descriptors of scikit-image's
 * options (hard binning, L1 blocks: their tables composed into the program), and the
 * descriptors of the default parameters without a model (what test-concurrency's threads
 * run). */
#include "cases.h"

#include <math.h>

/* 80 x 144 at window stride 8: 3 x 3 windows of 3780 values */
#define HOG_FLOATS (9 * 3780)

static votecl_status
hog_model_make(votecl_context *context, void **object)
{
    return votecl_hog_model_load(context, tc_hog_model_file, (votecl_hog_model **)object);
}

static votecl_status
hog_model_run(void *object, void *out)
{
    size_t length;
    float bias;
    votecl_hog_model_get(object, &length, NULL, &bias);
    memcpy(out, &length, sizeof length);
    memcpy((char *)out + sizeof length, &bias, sizeof bias);
    return VOTECL_OK;
}

TC_DESTROY(hog_model_destroy, votecl_hog_model_free);

typedef struct hog_out {
    size_t found;
    votecl_hog_detection detections[16];
} hog_out;

static votecl_status
hog_make(votecl_context *context, void **object)
{
    votecl_hog_model *model = NULL;
    votecl_hog_params p;
    votecl_status status = votecl_hog_model_people(context, &model);

    *object = NULL;
    if (status != VOTECL_OK)
        return status;
    votecl_hog_params_init(&p);
    p.hit_threshold = -1; /* random pixels: some windows, so fusion runs too */
    p.scale = 1.2;
    status = votecl_hog_new(context, &p, model, (votecl_hog **)object);
    votecl_hog_model_free(model);
    return status;
}

TC_RUN(hog_run, hog_out,
       votecl_hog_detect(object, &tc_view_people, NULL, 0, o->detections, 16, &o->found));

/* out: the count (size_t), then HOG_FLOATS floats */
static votecl_status
hog_compute_run(void *object, void *out)
{
    return votecl_hog_compute(object, &tc_view_people, (float *)((char *)out + sizeof(size_t)),
                              HOG_FLOATS, (size_t *)out);
}

TC_DESTROY(hog_destroy, votecl_hog_free);

TC_ITEMS_FN(hog_differ, TC_DIFFER, hog_out, detections,
            TC_FIELD_DIFFERS(x, y, box.x) || TC_FIELD_DIFFERS(x, y, box.y) ||
                TC_FIELD_DIFFERS(x, y, box.width) || TC_FIELD_DIFFERS(x, y, box.height) ||
                TC_FIELD_DIFFERS(x, y, score) || TC_FIELD_DIFFERS(x, y, scale));

/* The descriptors without a model: the defaults, or scikit-image's options. */
static votecl_status
hog_descriptors_make(votecl_context *context, int skimage, void **object)
{
    votecl_hog_params p;

    votecl_hog_params_init(&p);
    if (skimage) {
        p.binning = VOTECL_HOG_BINNING_HARD;
        p.block_norm = VOTECL_HOG_NORM_L1;
    }
    return votecl_hog_new(context, &p, NULL, (votecl_hog **)object);
}

static votecl_status
hog_plain_make(votecl_context *context, void **object)
{
    return hog_descriptors_make(context, 0, object);
}

static votecl_status
hog_skimage_make(votecl_context *context, void **object)
{
    return hog_descriptors_make(context, 1, object);
}

/* Against the reference: the count, and every value within float rounding. */
static int
hog_compute_matches(const void *pa, const void *pb)
{
    const float *a = (const float *)((const char *)pa + sizeof(size_t));
    const float *b = (const float *)((const char *)pb + sizeof(size_t));

    if (*(const size_t *)pa != *(const size_t *)pb)
        return 0;
    for (size_t i = 0; i < HOG_FLOATS; i++)
        if (fabs(a[i] - b[i]) > 1e-4)
            return 0;
    return 1;
}

TC_PARAMS_INIT(hog_params_init, votecl_hog_params_init(p));

TC_PARAMS_CALL(hog_call, votecl_hog, votecl_hog_new(context, p, NULL, &plan));

static votecl_status
hog_length_call(votecl_context *context, void *p)
{
    size_t length;
    return votecl_hog_descriptor_length(p, &length);
}

static const tc_params hog_params[] = {
    {sizeof(votecl_hog_params), hog_params_init, hog_call, 0},
    {sizeof(votecl_hog_params), hog_params_init, hog_length_call,
     TC_PARAMS_NO_CONTEXT | TC_PARAMS_OK},
};

static const tc_case hog_cases[] = {
    {TC_CASE("hog-model", sizeof(size_t) + sizeof(float), hog_model_make, hog_model_run,
             hog_model_destroy)},
    {TC_CASE("hog-detect", sizeof(hog_out), hog_make, hog_run, hog_destroy), .differ = hog_differ},
    {TC_CASE("hog-compute", sizeof(size_t) + HOG_FLOATS * 4, hog_make, hog_compute_run,
             hog_destroy)},
    {TC_CASE("hog-skimage", sizeof(size_t) + HOG_FLOATS * 4, hog_skimage_make, hog_compute_run,
             hog_destroy)},
};

static const tc_case hog_concurrent = {
    TC_CASE("hog", sizeof(size_t) + HOG_FLOATS * 4, hog_plain_make, hog_compute_run, hog_destroy),
    .matches = hog_compute_matches};

TC_ALGORITHM(hog, &hog_concurrent);
