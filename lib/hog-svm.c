/* HOG's SVM stage (cl/hog.cl's hog_svm_all; cl/hog-cpu.cl's hog_svm_px): stage 6 of every
 * job, each window's score, the bias plus the model's weights dotted with its descriptor;
 * then the windows at or above the threshold read back. */
#include "hog-detector.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static float
bias(const votecl_hog *hog)
{
    float b;

    votecl_hog_model_get(hog->model, NULL, NULL, &b);
    return b;
}

/* The least float at or above the threshold (a double): a float score v is kept, v >= it,
 * exactly when the host's test (double)v >= hit_threshold holds. */
static float
float_threshold(double t)
{
    float f = (float)t;

    if ((double)f < t)
        f = nextafterf(f, INFINITY);
    return f == -INFINITY ? -FLT_MAX : f;
}

/* Windows a work-group of the block kernels scores: one batch of VOTECL_HOG_SVM_WINDOWS
 * (HOG_LOCAL at most, as the kernel's HOG_SVM_W), scored together. One window at a time
 * (VOTECL_HOG_SVM_WINDOWS 1, or HOG_LOCAL 1): HOG_SVM_RUN in turn where the runs still give
 * every compute unit HOG_SVM_GROUPS_PER_CU work-groups (a 1080p frame's pyramid on a GPU),
 * so that a run's later windows find their blocks and the weights in the compute unit's
 * cache; else 1 (a VGA frame: more work-groups keep the device busier). */
#define HOG_SVM_RUN 4u
#define HOG_SVM_GROUPS_PER_CU 64u

static unsigned
svm_run(const votecl_hog *hog)
{
    size_t cu = hog->context->info.compute_units ? hog->context->info.compute_units : 1;

    if (VOTECL_HOG_SVM_WINDOWS > 1 && hog->local > 1) /* one batch of windows a work-group */
        return VOTECL_HOG_SVM_WINDOWS < hog->local ? VOTECL_HOG_SVM_WINDOWS : hog->local;
    return hog->nscores / HOG_SVM_RUN >= cu * HOG_SVM_GROUPS_PER_CU ? HOG_SVM_RUN : 1;
}

/* The block kernels: one work-group per run of windows, the windows kept counted
 * (hog_gradient_all zeroed the count). */
votecl_status
votecl__hog_svm_block(votecl_hog *hog)
{
    unsigned run = svm_run(hog);
    size_t local = hog->local, global = (hog->nscores + run - 1) / run * local;
    votecl__arg args[] = {VOTECL__ARG_BUF(hog->buf.hist),
                          VOTECL__ARG_BUF(hog->buf.tab),
                          VOTECL__ARG_UINT(hog->njobs),
                          VOTECL__ARG_BUF(hog->buf.svm),
                          VOTECL__ARG_FLOAT(bias(hog)),
                          VOTECL__ARG_FLOAT(float_threshold(hog->params.hit_threshold)),
                          VOTECL__ARG_BUF(hog->buf.scores),
                          VOTECL__ARG_BUF(hog->buf.hits),
                          VOTECL__ARG_UINT(hog->nscores),
                          VOTECL__ARG_UINT(run)};

    return votecl__launch(hog->context, hog->kernels[K_SVM], 1, &global, &local, args, 10);
}

/* The row kernels: a work-item per HOG_SVM_LANES windows of a window row, from the
 * transposed blocks. */
votecl_status
votecl__hog_svm_rows(votecl_hog *hog)
{
    votecl__arg px[] = {VOTECL__ARG_BUF(hog->buf.histt),
                        VOTECL__ARG_BUF(hog->buf.tab),
                        VOTECL__ARG_BUF(hog->buf.tab),
                        VOTECL__ARG_UINT(hog->rowtab + hog->nprows + hog->nrows + hog->nbrows),
                        VOTECL__ARG_BUF(hog->buf.svm),
                        VOTECL__ARG_FLOAT(bias(hog)),
                        VOTECL__ARG_BUF(hog->buf.scores)};

    return votecl__hog_launch_rows(hog, K_SVM, (hog->max_nwx + HOG_SVM_LANES - 1) / HOG_SVM_LANES,
                                   HOG_SVM_LOCAL, hog->nwrows, px, 7);
}

/* --- the windows read back --- */

static int
by_window(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

/* Every score read back, the windows kept in their order. */
static votecl_status
keep_scores(votecl_hog *hog)
{
    votecl_status s =
        votecl_buffer_read(hog->buf.scores, 0, hog->scores, hog->nscores * sizeof(float));

    return s == VOTECL_OK ? votecl__hog_jobs_keep_scores(hog) : s;
}

/* The block kernels: the count and the first HOG_HITS windows in one read; sorted, they are
 * kept in the order of the scores' scan (the device's atomics ordered them by chance). More
 * than HOG_HITS: every score read back instead. */
votecl_status
votecl__hog_windows_block(votecl_hog *hog)
{
    uint32_t *h = hog->scores_mem.ptr, n;
    votecl_status s = votecl_buffer_read(hog->buf.hits, 0, h, HOG_HITS_BYTES);

    if (s != VOTECL_OK)
        return s;
    if ((n = h[0]) > HOG_HITS)
        return keep_scores(hog);
    qsort(h + 1, n, 2 * sizeof *h, by_window);
    for (uint32_t i = 0; i < n && s == VOTECL_OK; i++) {
        float v;

        memcpy(&v, &h[2 + 2 * i], sizeof v);
        s = votecl__hog_jobs_keep(hog, h[1 + 2 * i], v);
    }
    return s;
}

/* The row kernels (hog_svm_px counts nothing): every score. */
votecl_status
votecl__hog_windows_rows(votecl_hog *hog)
{
    return keep_scores(hog);
}
