/* The histogram in the votecl tool (tools/algorithms.h): demo steps gray, rgb and chroma,
 * votecl batch hist, and the bench groups hist, hist16 and histf32 (the bench's core, in
 * cmd-bench.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "bench.h"
#include "plot.h"

/* --- demo --- */

#define DEMO_CHROMA_BINS 30

/* Histograms of some channels of one image, one series each, plotted together. */
typedef struct demo_hist {
    const tool_image *image;
    unsigned first, count; /* channels */
    double min, max;
    uint32_t counts[4][256];
    votecl_vote_plan_info info;
    double seconds;
} demo_hist;

static votecl_status
demo_hist_run(tool_demo *d, demo_hist *h)
{
    votecl_hist_params defaults;
    votecl_hist_params_init(&defaults, h->image->dtype);
    h->min = defaults.min[0];
    h->max = defaults.max[0];
    h->seconds = 0;
    for (unsigned k = 0; k < h->count; k++) {
        double seconds = 0;
        votecl_status st = tool_hist_image_channel(d->ctx, h->image, h->first + k, 256, h->min,
                                                   h->max, h->counts[k], &h->info, &seconds);
        if (st != VOTECL_OK)
            return st;
        h->seconds += seconds;
    }
    return VOTECL_OK;
}

static void
describe_stats(const demo_hist *h, unsigned k, char *buffer, size_t size)
{
    tool_hist_stats s;
    int integer = h->image->dtype != VOTECL_DTYPE_F32;
    tool_hist_stats_compute(h->counts[k], 256, h->min, h->max, integer, &s);
    snprintf(buffer, size, "mean %.1f median %g mode %g (%u px)", s.mean, s.median,
             tool_hist_bin_value(s.mode, 256, h->min, h->max, integer), s.mode_count);
}

static tool_demo_result
demo_hist_plot(tool_demo *d, const tool_demo_image *im, const demo_hist *h, const char *step,
               const char *note)
{
    tool_plot_series series[4];
    char title[256], error[600];
    tool_image canvas = {0};
    int single = h->count == 1;
    for (unsigned k = 0; k < h->count; k++) {
        series[k].counts = h->counts[k];
        tool_channel_colour(single ? 1 : h->image->channels, single ? 0 : h->first + k,
                            series[k].rgb);
        series[k].label = single ? step : tool_channel_name(h->image->channels, h->first + k);
    }
    snprintf(title, sizeof title, "%s %s histogram", im->file, step);
    tool_plot_bars bars = {series, h->count, 256, h->min, h->max, title, note};
    /* the plot carries its titles: no caption */
    return tool_demo_write_captioned(d, tool_plot_bars_render(&bars, &canvas, error, sizeof error),
                                     &canvas, error, im->stem, step, NULL);
}

static tool_demo_result
demo_gray(tool_demo *d, const tool_demo_image *im)
{
    demo_hist h = {.image = &im->gray, .first = 0, .count = 1};
    char plan[160], stats[160], note[400];
    votecl_status st = demo_hist_run(d, &h);
    if (st != VOTECL_OK) {
        tool_fail(d->ctx, st, "gray histogram");
        return TOOL_DEMO_FAILED;
    }
    tool_plan_summary(&h.info, plan, sizeof plan);
    describe_stats(&h, 0, stats, sizeof stats);
    printf("  gray: %s; %.2f ms; plan %s\n", stats, h.seconds * 1e3, plan);
    snprintf(note, sizeof note, "%s | %.2f ms | %s", stats, h.seconds * 1e3, plan);
    return demo_hist_plot(d, im, &h, "gray", note);
}

static tool_demo_result
demo_rgb(tool_demo *d, const tool_demo_image *im)
{
    demo_hist h = {.image = &im->image, .first = 0, .count = 3};
    char plan[160], stats[160], note[400];
    votecl_status st;
    if (im->image.channels < 3) {
        printf("  rgb: skipped (gray image)\n");
        return TOOL_DEMO_SKIPPED;
    }
    if ((st = demo_hist_run(d, &h)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "RGB histograms");
        return TOOL_DEMO_FAILED;
    }
    tool_plan_summary(&h.info, plan, sizeof plan);
    printf("  rgb: %.2f ms for 3 channels; plan %s\n", h.seconds * 1e3, plan);
    for (unsigned k = 0; k < 3; k++) {
        describe_stats(&h, k, stats, sizeof stats);
        printf("    %-5s %s\n", tool_channel_name(3, k), stats);
    }
    snprintf(note, sizeof note, "%.2f ms for 3 channels | %s", h.seconds * 1e3, plan);
    return demo_hist_plot(d, im, &h, "rgb", note);
}

/* --- 2-D chromaticity histogram --- */

static double
sample_at(const tool_image *image, size_t x, size_t y, unsigned c)
{
    const unsigned char *row = image->data + y * image->stride;
    size_t i = x * image->channels + c;
    return image->dtype == VOTECL_DTYPE_U16 ? ((const uint16_t *)row)[i] : row[i];
}

/* r and g per pixel; black pixels get NaN, which casts no vote. r = 1 (pure red) moves just
 * below 1 so that it stays in [0, 1). Returns the number of pixels that vote. */
static size_t
chromaticity(const tool_image *image, float *r, float *g)
{
    size_t voting = 0;
    for (size_t y = 0; y < image->height; y++) {
        for (size_t x = 0; x < image->width; x++) {
            size_t i = y * image->width + x;
            double R = sample_at(image, x, y, 0), G = sample_at(image, x, y, 1);
            double sum = R + G + sample_at(image, x, y, 2);
            r[i] = sum > 0 ? fminf((float)(R / sum), nextafterf(1.0f, 0.0f)) : NAN;
            g[i] = sum > 0 ? fminf((float)(G / sum), nextafterf(1.0f, 0.0f)) : NAN;
            voting += sum > 0;
        }
    }
    return voting;
}

typedef struct demo_chroma_result {
    uint32_t counts[DEMO_CHROMA_BINS * DEMO_CHROMA_BINS];
    votecl_vote_plan_info info;
    double seconds;
    size_t voting;
} demo_chroma_result;

static votecl_status
chroma_run(tool_demo *d, const tool_image *image, demo_chroma_result *out)
{
    size_t n = image->width * image->height;
    float *r = malloc(n * sizeof *r), *g = malloc(n * sizeof *g);
    votecl_hist_params params;
    votecl_hist_plan *plan = NULL;
    votecl_status st = VOTECL_OUT_OF_HOST_MEMORY;
    if (!r || !g)
        goto out;
    out->voting = chromaticity(image, r, g);
    votecl_hist_params_init(&params, VOTECL_DTYPE_F32);
    votecl_hist_params_set_2d(&params, DEMO_CHROMA_BINS, 0, 1, DEMO_CHROMA_BINS, 0, 1);
    params.two_arrays = 1;
    params.channel[0] = params.channel[1] = 0;
    if ((st = votecl_hist_plan_new(d->ctx, &params, &plan)) != VOTECL_OK)
        goto out;
    /* Timed is the second run: the first may include the device's lazy set-up. */
    st = votecl_hist_run(plan, r, g, NULL, n, out->counts);
    double t0 = tool_now();
    if (st == VOTECL_OK)
        st = votecl_hist_run(plan, r, g, NULL, n, out->counts);
    out->seconds = tool_now() - t0;
    if (st == VOTECL_OK)
        st = votecl_hist_plan_describe(plan, n, 1, &out->info);
out:
    votecl_hist_plan_free(plan);
    free(r);
    free(g);
    return st;
}

/* Means of r and g from the bin centres, and the most frequent cell. */
static void
chroma_stats(const demo_chroma_result *c, char *buffer, size_t size)
{
    const size_t n = DEMO_CHROMA_BINS;
    double sum_r = 0, sum_g = 0, total = 0;
    size_t mode = 0;
    for (size_t i = 0; i < n * n; i++) {
        double w = c->counts[i];
        sum_r += w * ((double)(i / n) + 0.5) / n;
        sum_g += w * ((double)(i % n) + 0.5) / n;
        total += w;
        if (c->counts[i] > c->counts[mode])
            mode = i;
    }
    snprintf(buffer, size, "mean r %.3f g %.3f | mode r [%.3f,%.3f) g [%.3f,%.3f) (%u px)",
             total ? sum_r / total : NAN, total ? sum_g / total : NAN, (double)(mode / n) / n,
             (double)(mode / n + 1) / n, (double)(mode % n) / n, (double)(mode % n + 1) / n,
             c->counts[mode]);
}

static tool_demo_result
chroma_plot(tool_demo *d, const tool_demo_image *im, const demo_chroma_result *c, const char *note)
{
    char title[256], error[600];
    tool_image canvas = {0};
    snprintf(title, sizeof title, "%s r,g chromaticity", im->file);
    tool_plot_heat heat = {c->counts, DEMO_CHROMA_BINS, DEMO_CHROMA_BINS, 0,     1,   0,
                           1,         "R/(R+G+B)",      "G/(R+G+B)",      title, note};
    return tool_demo_write_captioned(d, tool_plot_heat_render(&heat, &canvas, error, sizeof error),
                                     &canvas, error, im->stem, "chroma", NULL);
}

static tool_demo_result
demo_chroma(tool_demo *d, const tool_demo_image *im)
{
    demo_chroma_result *c;
    char plan[160], stats[200], note[400];
    tool_demo_result result;
    if (im->image.channels < 3) {
        printf("  chroma: skipped (gray image)\n");
        return TOOL_DEMO_SKIPPED;
    }
    if (!(c = calloc(1, sizeof *c)))
        return TOOL_DEMO_FAILED;
    votecl_status st = chroma_run(d, &im->image, c);
    if (st != VOTECL_OK) {
        tool_fail(d->ctx, st, "chromaticity histogram");
        free(c);
        return TOOL_DEMO_FAILED;
    }
    tool_plan_summary(&c->info, plan, sizeof plan);
    chroma_stats(c, stats, sizeof stats);
    printf("  chroma: %s; %zu of %zu pixels vote; %.2f ms; plan %s\n", stats, c->voting,
           im->image.width * im->image.height, c->seconds * 1e3, plan);
    snprintf(note, sizeof note, "%s | %.2f ms | %s", stats, c->seconds * 1e3, plan);
    result = chroma_plot(d, im, c, note);
    free(c);
    return result;
}

/* --- batch --- */

typedef struct hist_case {
    unsigned long bins;
    double min, max;
    int have_min, have_max;
} hist_case;

static void
hist_init(void *args)
{
    ((hist_case *)args)->bins = 256;
}

static int
hist_option(void *args, int argc, char **argv, int *i)
{
    hist_case *h = args;
    int r;
    if ((r = tool_option_range(argc, argv, i, "--bins", 1, VOTECL_HIST_MAX_BINS, &h->bins)) != 0)
        return r;
    if ((r = tool_option_double(argc, argv, i, "--min", &h->min)) != 0)
        return r < 0 ? r : (h->have_min = 1);
    if ((r = tool_option_double(argc, argv, i, "--max", &h->max)) != 0)
        return r < 0 ? r : (h->have_max = 1);
    return 0;
}

static votecl_status
hist_compute(const void *args, votecl_context *ctx, void **state, const tool_image *image,
             tool_json *j, double *seconds, tool_image *annotated)
{
    const hist_case *h = args;
    votecl_hist_params defaults;
    votecl_vote_plan_info info;
    uint32_t *counts = calloc(h->bins, sizeof *counts);
    votecl_status st = counts ? VOTECL_OK : VOTECL_OUT_OF_HOST_MEMORY;
    double min, max;
    votecl_hist_params_init(&defaults, image->dtype);
    min = h->have_min ? h->min : defaults.min[0];
    max = h->have_max ? h->max : defaults.max[0];
    tool_json_parameters(j);
    tool_json_kv_bool(j, "gray", 0);
    tool_json_kv_uint(j, "bins", h->bins);
    tool_json_kv_double(j, "min", min);
    tool_json_kv_double(j, "max", max);
    tool_json_results(j);
    tool_json_key(j, "histograms");
    tool_json_begin_array(j);
    *seconds = 0;
    for (unsigned c = 0; st == VOTECL_OK && c < image->channels; c++) {
        double s = 0;
        st = tool_hist_image_channel(ctx, image, c, (uint32_t)h->bins, min, max, counts, &info, &s);
        *seconds += s;
        tool_json_begin_object(j);
        tool_json_kv_uint(j, "channel", c);
        tool_json_kv_string(j, "name", tool_channel_name(image->channels, c));
        tool_json_key(j, "counts");
        tool_json_begin_array_compact(j);
        for (uint32_t b = 0; st == VOTECL_OK && b < h->bins; b++)
            tool_json_uint(j, counts[b]);
        tool_json_end_array(j);
        tool_json_end_object(j);
    }
    tool_json_end_array(j);
    free(counts);
    return st;
}

/* --- the descriptor --- */

static const tool_demo_step hist_demo[] = {
    {"gray", "256-bin histogram of the gray image", demo_gray},
    {"rgb", "256-bin histograms of the red, green and blue channels", demo_rgb},
    {"chroma", "30x30 histogram of r = R/(R+G+B), g = G/(R+G+B)", demo_chroma},
};

static const tool_bench_group hist_bench[] = {
    {"hist", tool_bench_hist},
    {"hist16", tool_bench_hist16},
    {"histf32", tool_bench_histf32},
};

static const tool_batch_case hist_batch = {
    .options = "[--bins N] [--min a] [--max b]",
    .args_size = sizeof(hist_case),
    .init = hist_init,
    .option = hist_option,
    .colour = 1,
    .compute = hist_compute,
};

const tool_algorithm tool_algo_hist =
    TOOL_ALGORITHM("hist", hist_demo, hist_bench, &hist_batch, NULL);
