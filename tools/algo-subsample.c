/* Sub-sampling and the sum in the votecl tool (tools/algorithms.h): the demo step. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bench.h"
#include "plot.h"

/* --- demo: reductions as votes: sub-sampling and sum --- */

#define DEMO_SUBSAMPLE_FACTOR 4

/* The means of 4 x 4 blocks into small (u8, rounded), and the sum of all pixels. */
static votecl_status
demo_subsample_run(tool_demo *d, const tool_image *gray, tool_image *small, double *sum,
                   double *seconds)
{
    votecl_subsample_params params;
    votecl_subsample_plan *plan = NULL;
    votecl_sum_params sum_params;
    votecl_sum_plan *sum_plan = NULL;
    votecl_image view = tool_image_view(gray);
    size_t count = small->width * small->height;
    float *means = malloc((count ? count : 1) * sizeof *means);
    votecl_status st = VOTECL_OUT_OF_HOST_MEMORY;
    double t0;

    votecl_subsample_params_init(&params, gray->width, gray->height, DEMO_SUBSAMPLE_FACTOR,
                                 VOTECL_DTYPE_U8);
    votecl_sum_params_init(&sum_params, VOTECL_DTYPE_U8);
    if (means == NULL || (st = votecl_subsample_plan_new(d->ctx, &params, &plan)) != VOTECL_OK ||
        (st = votecl_sum_plan_new(d->ctx, &sum_params, &sum_plan)) != VOTECL_OK ||
        (st = votecl_subsample_run(plan, &view, means, count)) != VOTECL_OK ||
        (st = votecl_sum_run_image(sum_plan, &view, sum)) != VOTECL_OK)
        goto out;
    t0 = tool_now(); /* the second run: the first may include the device's lazy set-up */
    if ((st = votecl_subsample_run(plan, &view, means, count)) == VOTECL_OK)
        st = votecl_sum_run_image(sum_plan, &view, sum);
    *seconds = tool_now() - t0;
    for (size_t i = 0; i < count && st == VOTECL_OK; i++)
        small->data[i] = (unsigned char)lrintf(means[i]);
out:
    votecl_subsample_plan_free(plan);
    votecl_sum_plan_free(sum_plan);
    free(means);
    return st;
}

static tool_demo_result
demo_subsample(tool_demo *d, const tool_demo_image *im)
{
    const tool_image *gray = &im->gray;
    tool_image small = {0};
    char error[600], path[4096];
    double sum = 0, seconds = 0;
    tool_demo_result result = TOOL_DEMO_FAILED;
    votecl_status st;
    if (gray->dtype != VOTECL_DTYPE_U8 || gray->width < DEMO_SUBSAMPLE_FACTOR ||
        gray->height < DEMO_SUBSAMPLE_FACTOR) {
        printf("  subsample: skipped (not an 8-bit image of at least %u x %u)\n",
               DEMO_SUBSAMPLE_FACTOR, DEMO_SUBSAMPLE_FACTOR);
        return TOOL_DEMO_SKIPPED;
    }
    if (tool_image_alloc(&small, gray->width / DEMO_SUBSAMPLE_FACTOR,
                         gray->height / DEMO_SUBSAMPLE_FACTOR, 1, VOTECL_DTYPE_U8, error,
                         sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        return TOOL_DEMO_FAILED;
    }
    if ((st = demo_subsample_run(d, gray, &small, &sum, &seconds)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "sub-sampling");
        goto out;
    }
    printf("  subsample: %zux%zu -> %zux%zu (4x4 means), gray mean %.2f (sum as a one-bin vote); "
           "%.2f ms for both\n",
           gray->width, gray->height, small.width, small.height,
           sum / ((double)gray->width * gray->height), seconds * 1e3);
    if (tool_demo_write_image(d, &small, im->stem, "subsample", path, sizeof path) == 0)
        result = TOOL_DEMO_DONE;
out:
    tool_image_free(&small);
    return result;
}

/* --- the descriptor --- */

static const tool_demo_step subsample_demo[] = {
    {"subsample", "4x sub-sampling and the sum of the gray image, both as votes", demo_subsample},
};

const tool_algorithm tool_algo_subsample = {
    .name = "subsample",
    .demo = subsample_demo,
    .ndemo = 1,
};
