/* The reference's entry of HOG's implementation table (the 'ref' backend): every stage of
 * every job on the host through lib/hog-ref.c, level after level. */
#include "hog-detector.h"

#include <stdlib.h>
#include <string.h>

typedef struct ref_level {
    uint8_t *crop, *level, *padded, *bins;
    float *grad, *hist;
} ref_level;

static void
ref_level_free(ref_level *r)
{
    VOTECL__FREE_ALL(r->crop, r->level, r->padded, r->bins, r->grad, r->hist);
}

/* Job j's region of the converted source into r->crop. */
static void
crop(const votecl_hog *hog, const hog_job *j, ref_level *r)
{
    unsigned ch = hog->ch;

    for (int32_t y = 0; y < j->roi.height; y++)
        memcpy(r->crop + (size_t)y * j->roi.width * ch,
               (const uint8_t *)hog->conv.ptr +
                   (((size_t)j->roi.y + y) * hog->conv_w + j->roi.x) * ch,
               (size_t)j->roi.width * ch);
}

/* Stages 1-5 of job j into r->hist (normalised blocks). */
static votecl_status
ref_run_level(votecl_hog *hog, const hog_job *j, ref_level *r)
{
    const votecl__hog_level *l = &j->level;
    unsigned ch = hog->ch;
    size_t g = (size_t)l->gw * l->gh, blocks = (size_t)l->nbx * l->nby;

    memset(r, 0, sizeof *r);
    r->crop = votecl__malloc((size_t)j->roi.width * j->roi.height * ch);
    r->level = votecl__malloc((size_t)l->width * l->height * ch);
    r->padded = votecl__malloc((size_t)(l->gw + 2) * (l->gh + 2) * ch);
    r->bins = votecl__malloc(2 * g);
    r->grad = votecl__malloc(2 * g * sizeof(float));
    r->hist = votecl__malloc(blocks * hog->geom.block_len * sizeof(float));
    if (!r->crop || !r->level || !r->padded || !r->bins || !r->grad || !r->hist) {
        ref_level_free(r);
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    }
    crop(hog, j, r);
    votecl__hog_ref_resize(r->crop, (uint32_t)j->roi.width, (uint32_t)j->roi.height, ch, r->level,
                           l->width, l->height);
    votecl__hog_ref_pad(r->level, l, ch, r->padded);
    votecl__hog_ref_gradient(&hog->geom, r->padded, l, ch, hog->lut, r->grad, r->bins);
    votecl__hog_ref_blocks(&hog->geom, l, r->grad, r->bins, hog->block_weights, r->hist);
    votecl__hog_ref_normalise(&hog->geom, r->hist, blocks);
    return VOTECL_OK;
}

static votecl_status
host_detect(votecl_hog *hog)
{
    const float *w;
    float bias;
    votecl_status status = VOTECL_OK;

    votecl_hog_model_get(hog->model, NULL, &w, &bias);
    for (size_t i = 0; i < hog->njobs && status == VOTECL_OK; i++) {
        ref_level r;

        status = ref_run_level(hog, &hog->jobs[i], &r);
        if (status != VOTECL_OK)
            break;
        votecl__hog_ref_svm(&hog->geom, &hog->jobs[i].level, r.hist, w, bias,
                            hog->scores + hog->jobs[i].score);
        ref_level_free(&r);
    }
    return status;
}

static votecl_status
host_blocks(votecl_hog *hog, float **hist)
{
    ref_level r;
    votecl_status s;

    if ((s = ref_run_level(hog, &hog->jobs[0], &r)) != VOTECL_OK)
        return s;
    *hist = r.hist;
    r.hist = NULL;
    ref_level_free(&r);
    return VOTECL_OK;
}

const votecl__hog_runner votecl__hog_run_host = {
    .detect = host_detect,
    .descriptor_blocks = host_blocks,
    .read_windows = votecl__hog_jobs_keep_scores, /* host_detect wrote the scores */
};
