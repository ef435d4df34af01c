/* Histograms with libvotecl: a 256-bin histogram of an 8-bit image, the same image's
 * weighted histogram, and a 2-D histogram of two channels.
 *
 * A histogram is the simplest vote (van den Braak et al., "GPU-vote: a framework for
 * accelerating voting algorithms on GPU"): every element votes for the bin its value falls
 * into. The plan chooses how the device counts (votecl_hist_plan_describe() says which);
 * the typed calls (_u32 for counts, _f32 for weighted sums) take bins of the plan's type.
 *
 * Build: cc histogram.c $(pkg-config --cflags --libs votecl)
 * Run:   ./histogram   (exit status 0: the counts are right; 77: no device; 1: an error) */
#include <votecl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define WIDTH 640
#define HEIGHT 480

/* A gradient image: pixel (x, y) has value (x + y) % 256, so every value's count is known. */
static uint8_t *
make_image(void)
{
    uint8_t *pixels = malloc((size_t)WIDTH * HEIGHT * 2);

    if (pixels != NULL)
        for (size_t y = 0; y < HEIGHT; y++)
            for (size_t x = 0; x < WIDTH; x++) {
                pixels[(y * WIDTH + x) * 2] = (uint8_t)((x + y) % 256);
                pixels[(y * WIDTH + x) * 2 + 1] = (uint8_t)(y % 256); /* second channel */
            }
    return pixels;
}

/* How many pixels have value v: the pairs (x, y) with (x + y) % 256 == v. */
static uint32_t
expected(unsigned v)
{
    uint32_t n = 0;

    for (unsigned y = 0; y < HEIGHT; y++)
        for (unsigned x = 0; x < WIDTH; x++)
            n += (x + y) % 256 == v;
    return n;
}

int
main(void)
{
    votecl_context *ctx = NULL;
    votecl_hist_params params;
    votecl_hist_plan *plan = NULL;
    votecl_vote_plan_info info;
    static uint32_t counts[256], joint[16 * 16];
    static float weights[WIDTH * HEIGHT], sums[256];
    uint8_t *pixels = make_image();
    votecl_status status;
    int bad = 0, started;

    if (pixels == NULL)
        return 1;
    if ((started = example_context("histogram", &ctx)) != 0) {
        free(pixels);
        return started;
    }

    /* 1. Counts: 256 bins over [0, 256) of channel 0 of the two-channel pixels. */
    votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
    params.channels = 2;
    if ((status = votecl_hist_plan_new(ctx, &params, &plan)) != VOTECL_OK)
        return example_fail("histogram", ctx, "plan", status);
    if ((status = votecl_hist_run_u32(plan, pixels, NULL, WIDTH * HEIGHT, counts)) != VOTECL_OK)
        return example_fail("histogram", ctx, "run", status);
    if (votecl_hist_plan_describe(plan, WIDTH * HEIGHT, 1, &info) == VOTECL_OK)
        printf("strategy: %s\n", votecl_variant_name(info.variant));
    for (unsigned v = 0; v < 256; v++)
        bad |= counts[v] != expected(v);
    printf("counts: bin 0 %u, bin 255 %u (%s)\n", counts[0], counts[255], bad ? "WRONG" : "right");
    votecl_hist_plan_free(plan);

    /* 2. Weighted: each pixel adds its weight (here 0.5) instead of 1. */
    params.weighted = 1;
    for (size_t i = 0; i < WIDTH * HEIGHT; i++)
        weights[i] = 0.5f;
    if ((status = votecl_hist_plan_new(ctx, &params, &plan)) != VOTECL_OK)
        return example_fail("histogram", ctx, "weighted plan", status);
    status = votecl_hist_run_f32(plan, pixels, NULL, weights, WIDTH * HEIGHT, sums);
    if (status != VOTECL_OK)
        return example_fail("histogram", ctx, "weighted run", status);
    for (unsigned v = 0; v < 256; v++)
        bad |= sums[v] != 0.5f * (float)expected(v);
    printf("weighted: bin 0 %.1f\n", sums[0]);
    votecl_hist_plan_free(plan);

    /* 3. 2-D: 16 x 16 bins of (channel 0, channel 1). */
    votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
    params.channels = 2;
    votecl_hist_params_set_2d(&params, 16, 0, 256, 16, 0, 256);
    if ((status = votecl_hist_plan_new(ctx, &params, &plan)) != VOTECL_OK)
        return example_fail("histogram", ctx, "2-D plan", status);
    if ((status = votecl_hist_run_u32(plan, pixels, NULL, WIDTH * HEIGHT, joint)) != VOTECL_OK)
        return example_fail("histogram", ctx, "2-D run", status);
    uint64_t total = 0;
    for (unsigned b = 0; b < 16 * 16; b++)
        total += joint[b];
    bad |= total != (uint64_t)WIDTH * HEIGHT;
    printf("2-D: %llu votes in 16 x 16 bins\n", (unsigned long long)total);
    votecl_hist_plan_free(plan);

    votecl_context_free(ctx);
    free(pixels);
    return bad;
}
