/* HOG's device pipeline: the stages of the detector's implementation (lib/hog-gradient.c,
 * lib/hog-blocks.c, lib/hog-svm.c) launched in turn over every job, each timed into the
 * detector's profile in a -DVOTECL_HOG_PROFILE build. */
#include "hog-detector.h"

#include <stdlib.h>

#ifdef VOTECL_HOG_PROFILE
#include <time.h>
static double
hog_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
/* stmt timed between two waits for the device, added to the detector's stats.field */
#define TIMED(hog, field, stmt)                                                                    \
    do {                                                                                           \
        double t0_ = ((void)(hog)->context->ops->finish((hog)->context), hog_now());               \
        stmt;                                                                                      \
        (void)(hog)->context->ops->finish((hog)->context);                                         \
        (hog)->stats.field += hog_now() - t0_;                                                     \
    } while (0)
#else
#define TIMED(hog, field, stmt) stmt
#endif

/* Stages 1-3 and 4-5 of every job (aos: the blocks in hog.cl's layout), then 6 when svm. */
static votecl_status
device_stages(votecl_hog *hog, int aos, int svm)
{
    votecl_status s;

    TIMED(hog, gradient, s = hog->impl->stages->gradient(hog));
    if (s == VOTECL_OK)
        TIMED(hog, blocks, s = hog->impl->stages->blocks(hog, aos));
    if (s == VOTECL_OK && svm)
        TIMED(hog, svm, s = hog->impl->stages->svm(hog));
    return s;
}

/* The kernels index pixels, blocks and windows with 32 bits. */
static votecl_status
check_sizes(votecl_hog *hog)
{
    if (hog->npix > INT32_MAX || hog->nblk * hog->geom.block_len > INT32_MAX ||
        hog->nscores > INT32_MAX || hog->impl->layout->size(hog) > INT32_MAX ||
        hog->npad * hog->ch > INT32_MAX || hog->nrh > INT32_MAX)
        return votecl__fail(hog->context, VOTECL_OUT_OF_DEVICE_MEMORY,
                            "image: %zu gradient pixels over its levels and regions exceed "
                            "2^31",
                            hog->npix);
    return VOTECL_OK;
}

static votecl_status
device_detect(votecl_hog *hog)
{
    votecl_status s;

    if ((s = check_sizes(hog)) != VOTECL_OK)
        return s;
    TIMED(hog, upload, s = votecl__hog_device_buffers(hog));
    if (s == VOTECL_OK && hog->nscores > 0)
        s = device_stages(hog, 0, 1);
    return s;
}

static votecl_status
device_blocks(votecl_hog *hog, float **hist)
{
    const hog_job *j = &hog->jobs[0];
    size_t n = (size_t)j->level.nbx * j->level.nby * hog->geom.block_len;
    votecl_status s;

    if ((*hist = votecl__malloc(n * sizeof(float))) == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if ((s = votecl__hog_device_buffers(hog)) || (s = device_stages(hog, 1, 0)) ||
        (s = votecl_buffer_read(hog->buf.hist, 0, *hist, n * sizeof(float)))) {
        free(*hist);
        *hist = NULL;
    }
    return s;
}

static votecl_status
read_windows(votecl_hog *hog)
{
    return hog->njobs > 0 ? hog->impl->stages->windows(hog) : VOTECL_OK;
}

const votecl__hog_runner votecl__hog_run_device = {
    .detect = device_detect,
    .descriptor_blocks = device_blocks,
    .read_windows = read_windows,
};
