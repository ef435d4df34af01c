/* votecl hist: histograms of an image's channels as text, JSON or a bar chart. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "plot.h"
#include "tool.h"

typedef struct hist_args {
    const char *image_path;
    const char *plot_path;
    unsigned long bins;
    int have_min, have_max;
    double min, max;
    long channel; /* -1: all */
    int gray;
    const char *mask_path; /* --mask: an 8-bit image of the same size, or NULL */
    int joint;             /* --joint: one N-D histogram over every channel */
    double *edges;         /* --edges: nedges uneven bin edges (owned), or NULL */
    size_t nedges;
} hist_args;

/* What a run produced: one histogram per selected channel. */
typedef struct hist_result {
    unsigned first_channel, nchannels;
    uint32_t nbins;      /* per histogram (--joint: bins^channels, one histogram) */
    unsigned joint_dims; /* --joint: the histogram's dimensions (the image's channels), else 0 */
    double min, max;
    uint32_t *counts; /* nchannels * nbins */
    votecl_vote_plan_info info;
    double seconds;
} hist_result;

static void
hist_usage(FILE *f)
{
    fprintf(f, "usage: votecl hist IMAGE [--bins N] [--min A --max B] [--channel C | --gray]\n"
               "                  [--edges E0,E1,...] [--joint] [--mask MASK] [--json]\n"
               "                  [--plot OUT.png]\n"
               "Histograms of a PNG, PGM or PPM image: one per channel, all from one pass over\n"
               "the data (or of channel C, or of the gray conversion), printed as 'bin count'\n"
               "lines per channel or as JSON.\n"
               "  --bins N       bins (default 256)\n"
               "  --min, --max   value range [A, B) (default: the whole range of the type)\n"
               "  --edges LIST   uneven bins: E0 <= v < E1, ... (cv2.calcHist's uniform=False)\n"
               "  --joint        one N-D histogram over every channel (--bins each, channel 0\n"
               "                 the slowest; cv2.calcHist over all channels)\n"
               "  --mask MASK    an 8-bit gray image of the same size: only pixels where it is\n"
               "                 nonzero count (cv2.calcHist's mask)\n"
               "  --plot FILE    also write a bar chart (PNG, or PPM when FILE ends in .ppm)\n");
}

/* --- helpers shared with the demo --- */

double
tool_hist_bin_value(size_t i, size_t nbins, double min, double max, int integer)
{
    double width = (max - min) / (double)nbins;
    if (integer)
        return min + (double)i * width + (ceil(width) - 1) / 2;
    return min + ((double)i + 0.5) * width;
}

void
tool_hist_stats_compute(const uint32_t *counts, size_t nbins, double min, double max, int integer,
                        tool_hist_stats *out)
{
    double sum = 0;
    uint64_t seen = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < nbins; i++) {
        out->total += counts[i];
        sum += (double)counts[i] * tool_hist_bin_value(i, nbins, min, max, integer);
        if (counts[i] > out->mode_count) {
            out->mode_count = counts[i];
            out->mode = i;
        }
    }
    out->mean = out->total ? sum / (double)out->total : NAN;
    out->median = NAN;
    for (size_t i = 0; i < nbins && out->total; i++) {
        seen += counts[i];
        if (2 * seen >= out->total) {
            out->median = tool_hist_bin_value(i, nbins, min, max, integer);
            break;
        }
    }
}

votecl_status
tool_hist_image(votecl_context *context, const tool_image *image, unsigned first,
                unsigned nchannels, uint32_t nbins, double min, double max, const double *edges,
                const uint8_t *mask, uint32_t *counts, votecl_vote_plan_info *info, double *seconds)
{
    votecl_hist_params params;
    votecl_hist_plan *plan = NULL;
    votecl_image view = tool_image_view(image);
    size_t n = image->width * image->height;
    votecl_status st;
    double t0;
    votecl_hist_params_init(&params, image->dtype);
    params.channels = image->channels;
    params.channel[0] = first;
    params.per_channel = nchannels > 1;
    params.masked = mask != NULL;
    for (unsigned d = 0; d < (nchannels > 1 ? nchannels : 1); d++) {
        params.nbins[d] = nbins;
        params.min[d] = min;
        params.max[d] = max;
        params.bin_edges[d] = edges; /* NULL: even bins */
    }
    st = votecl_hist_plan_new(context, &params, &plan);
    /* A timed run is the second one: the first may finish the device's lazy set-up. */
    for (int run = 0; run < (seconds ? 2 : 1) && st == VOTECL_OK; run++) {
        t0 = tool_now();
        st = mask != NULL
                 ? votecl_hist_run_masked(plan, image->data, NULL, NULL, mask, n, 1, counts)
                 : votecl_hist_run_image(plan, &view, counts);
        if (seconds)
            *seconds = tool_now() - t0;
    }
    if (st == VOTECL_OK && info)
        st = votecl_hist_plan_describe(plan, n, 1, info);
    votecl_hist_plan_free(plan);
    return st;
}

votecl_status
tool_hist_image_channel(votecl_context *context, const tool_image *image, unsigned channel,
                        uint32_t nbins, double min, double max, uint32_t *counts,
                        votecl_vote_plan_info *info, double *seconds)
{
    return tool_hist_image(context, image, channel, 1, nbins, min, max, NULL, NULL, counts, info,
                           seconds);
}

void
tool_plan_summary(const votecl_vote_plan_info *info, char *buffer, size_t size)
{
    int n = snprintf(buffer, size, "%s S'=%u S=%u P=%u passes=%u copies=%u wg=%zu",
                     votecl_variant_name(info->variant), info->stretch, info->stretch_s,
                     info->parts, info->passes, info->copies, info->work_group_size);
    /* the execution-time model's figure, beside the measured time the callers print */
    if (info->predicted_seconds > 0 && n > 0 && (size_t)n < size)
        snprintf(buffer + n, size - (size_t)n, " predicted=%.3f ms", info->predicted_seconds * 1e3);
}

void
tool_channel_colour(unsigned channels, unsigned c, unsigned char rgb[3])
{
    static const unsigned char colours[4][3] = {
        {220, 40, 40}, {40, 170, 60}, {40, 80, 220}, {150, 150, 150}};
    if (channels < 3) {
        memset(rgb, c == 0 ? 60 : 170, 3);
        return;
    }
    memcpy(rgb, colours[c < 4 ? c : 3], 3);
}

const char *
tool_channel_name(unsigned channels, unsigned c)
{
    static const char *const gray_names[] = {"gray", "alpha"};
    static const char *const colour_names[] = {"red", "green", "blue", "alpha"};
    if (channels < 3)
        return c < 2 ? gray_names[c] : "channel";
    return c < 4 ? colour_names[c] : "channel";
}

/* --- arguments --- */

/* --edges e0,e1,...: at least two values (the library checks that they increase); the bins
 * become their count less one. */
static int
parse_edges(hist_args *a, const char *text)
{
    size_t n = 1;
    for (const char *c = text; *c; c++)
        n += *c == ',';
    free(a->edges);
    if (n < 2 || n > (size_t)VOTECL_HIST_MAX_BINS + 1 ||
        (a->edges = calloc(n, sizeof *a->edges)) == NULL) {
        a->edges = NULL;
        fprintf(stderr, "votecl hist: --edges %s: give 2 to %u comma-separated values\n", text,
                VOTECL_HIST_MAX_BINS + 1);
        return -1;
    }
    char *copy = strdup(text), *save = NULL;
    a->nedges = 0;
    if (copy == NULL)
        return -1;
    for (char *t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save))
        if (tool_parse_double("--edges", t, &a->edges[a->nedges++]) < 0) {
            free(copy);
            return -1;
        }
    free(copy);
    if (a->nedges != n) {
        fprintf(stderr, "votecl hist: --edges %s: an empty value\n", text);
        return -1;
    }
    a->bins = (unsigned long)(n - 1);
    return 0;
}

static int
hist_option(hist_args *a, int argc, char **argv, int *i)
{
    const char *v = NULL;
    int r;
    if (strcmp(argv[*i], "--gray") == 0) {
        a->gray = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--joint") == 0) {
        a->joint = 1;
        return 1;
    }
    if ((r = tool_option_value(argc, argv, i, "--bins", &v)) != 0)
        return r < 0 || tool_parse_ulong("--bins", v, 1, VOTECL_HIST_MAX_BINS, &a->bins) < 0 ? -1
                                                                                             : 1;
    if ((r = tool_option_value(argc, argv, i, "--min", &v)) != 0)
        return r < 0 || tool_parse_double("--min", v, &a->min) < 0 ? -1 : (a->have_min = 1);
    if ((r = tool_option_value(argc, argv, i, "--max", &v)) != 0)
        return r < 0 || tool_parse_double("--max", v, &a->max) < 0 ? -1 : (a->have_max = 1);
    if ((r = tool_option_value(argc, argv, i, "--plot", &v)) != 0) {
        a->plot_path = v;
        return r;
    }
    if ((r = tool_option_value(argc, argv, i, "--mask", &v)) != 0) {
        a->mask_path = v;
        return r;
    }
    if ((r = tool_option_value(argc, argv, i, "--edges", &v)) != 0)
        return r < 0 || parse_edges(a, v) < 0 ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--channel", &v)) != 0) {
        unsigned long c;
        if (r < 0 || tool_parse_ulong("--channel", v, 0, 3, &c) < 0)
            return -1;
        a->channel = (long)c;
        return 1;
    }
    return 0;
}

static int
hist_option_fn(void *a, int argc, char **argv, int *i)
{
    return hist_option(a, argc, argv, i);
}

static int
hist_parse(tool_options *options, hist_args *a, int argc, char **argv)
{
    int r =
        tool_parse_image_command(options, "hist", hist_option_fn, a, argc, argv, &a->image_path);
    if (r != TOOL_EXIT_OK)
        return r;
    if (options->help)
        return TOOL_EXIT_OK;
    if (a->gray && a->channel >= 0)
        return tool_usage_error("hist", "--gray and --channel exclude each other");
    if (a->joint && (a->gray || a->channel >= 0 || a->plot_path))
        return tool_usage_error("hist", "--joint excludes --gray, --channel and --plot");
    if (a->edges && (a->have_min || a->have_max || a->plot_path))
        return tool_usage_error("hist", "--edges excludes --min, --max and --plot");
    return TOOL_EXIT_OK;
}

/* --- the work --- */

/* --mask: an 8-bit gray image of the image's size (calcHist's mask: a nonzero byte counts
 * the pixel); both stored without row padding, as the masked run reads them. */
static int
load_mask(const hist_args *a, const tool_image *image, tool_image *mask)
{
    char error[600];
    size_t row = image->width * image->channels * votecl_dtype_size(image->dtype);
    if (tool_image_read(a->mask_path, mask, error, sizeof error) < 0) {
        fprintf(stderr, "votecl hist: --mask: %s\n", error);
        return TOOL_EXIT_FAILURE;
    }
    if (mask->channels != 1 || mask->dtype != VOTECL_DTYPE_U8 || mask->width != image->width ||
        mask->height != image->height) {
        fprintf(stderr,
                "votecl hist: --mask %s: %zux%zu, %u channel(s), %s; the mask must be 8-bit "
                "gray of the image's %zux%zu\n",
                a->mask_path, mask->width, mask->height, mask->channels,
                tool_dtype_name(mask->dtype), image->width, image->height);
        return TOOL_EXIT_USAGE;
    }
    if (mask->stride != mask->width || image->stride != row) {
        fprintf(stderr, "votecl hist: --mask: padded image rows are not supported\n");
        return TOOL_EXIT_FAILURE;
    }
    return TOOL_EXIT_OK;
}

static int
load_image(const hist_args *a, tool_image *image)
{
    char error[600];
    tool_image gray;
    tool_image_limits("hist"); /* an image over them is refused from its header */
    if (tool_image_read(a->image_path, image, error, sizeof error) < 0) {
        fprintf(stderr, "votecl hist: %s\n", error);
        return TOOL_EXIT_FAILURE;
    }
    if (a->channel >= (long)image->channels) {
        fprintf(stderr, "votecl hist: --channel %ld, but %s has %u channel(s)\n", a->channel,
                a->image_path, image->channels);
        return TOOL_EXIT_USAGE;
    }
    if (!a->gray || image->channels == 1)
        return TOOL_EXIT_OK;
    if (tool_image_to_gray(image, &gray, error, sizeof error) < 0) {
        fprintf(stderr, "votecl hist: %s\n", error);
        return TOOL_EXIT_FAILURE;
    }
    tool_image_free(image);
    *image = gray;
    return TOOL_EXIT_OK;
}

static void
hist_range(const hist_args *a, votecl_dtype dtype, double *min, double *max)
{
    votecl_hist_params defaults;
    votecl_hist_params_init(&defaults, dtype);
    *min = a->have_min ? a->min : defaults.min[0];
    *max = a->have_max ? a->max : defaults.max[0];
}

/* --joint: one histogram of image->channels dimensions (channel 0 the slowest), r->nbins
 * bins each over [r->min, r->max) (or --edges), from one pass; the plan checks the bins'
 * product. */
static int
hist_joint(votecl_context *ctx, const hist_args *a, const tool_image *image, const uint8_t *mask,
           hist_result *r)
{
    votecl_hist_params params;
    votecl_hist_plan *plan = NULL;
    votecl_image view = tool_image_view(image);
    votecl_status st;
    double t0;
    votecl_hist_params_init(&params, image->dtype);
    params.channels = params.dims = image->channels;
    params.masked = mask != NULL;
    for (unsigned d = 0; d < image->channels; d++) {
        params.channel[d] = d;
        params.nbins[d] = r->nbins;
        params.min[d] = r->min;
        params.max[d] = r->max;
        params.bin_edges[d] = a->edges; /* NULL: even bins */
    }
    if ((st = votecl_hist_plan_new(ctx, &params, &plan)) != VOTECL_OK)
        return tool_fail(ctx, st, "histogram");
    r->joint_dims = image->channels;
    r->nchannels = 1;
    r->nbins = (uint32_t)votecl_hist_plan_nbins(plan);
    if ((r->counts = calloc(r->nbins, sizeof *r->counts)) == NULL) {
        votecl_hist_plan_free(plan);
        fprintf(stderr, "votecl hist: out of memory for %u bins\n", r->nbins);
        return TOOL_EXIT_FAILURE;
    }
    t0 = tool_now();
    st = mask != NULL ? votecl_hist_run_masked(plan, image->data, NULL, NULL, mask,
                                               image->width * image->height, 1, r->counts)
                      : votecl_hist_run_image(plan, &view, r->counts);
    r->seconds = tool_now() - t0;
    if (st == VOTECL_OK)
        st = votecl_hist_plan_describe(plan, image->width * image->height, 1, &r->info);
    votecl_hist_plan_free(plan);
    return st == VOTECL_OK ? TOOL_EXIT_OK : tool_fail(ctx, st, "histogram");
}

static int
hist_compute(votecl_context *ctx, const hist_args *a, const tool_image *image, const uint8_t *mask,
             hist_result *r)
{
    r->first_channel = a->channel >= 0 ? (unsigned)a->channel : 0;
    r->nchannels = a->channel >= 0 ? 1 : image->channels;
    r->nbins = (uint32_t)a->bins;
    hist_range(a, image->dtype, &r->min, &r->max);
    if (a->edges) {
        r->min = a->edges[0];
        r->max = a->edges[a->nedges - 1];
    }
    if (a->joint)
        return hist_joint(ctx, a, image, mask, r);
    r->counts = calloc((size_t)r->nchannels * r->nbins, sizeof *r->counts);
    if (!r->counts) {
        fprintf(stderr, "votecl hist: out of memory for %u bins\n", r->nbins);
        return TOOL_EXIT_FAILURE;
    }
    /* every channel in one pass (per_channel), or the one asked for */
    votecl_status st = tool_hist_image(ctx, image, r->first_channel, r->nchannels, r->nbins, r->min,
                                       r->max, a->edges, mask, r->counts, &r->info, &r->seconds);
    if (st != VOTECL_OK)
        return tool_fail(ctx, st, "histogram");
    return TOOL_EXIT_OK;
}

static void
print_text(const hist_args *a, const tool_image *image, const hist_result *r)
{
    char plan[160];
    tool_plan_summary(&r->info, plan, sizeof plan);
    printf("# %s: %zux%zu, %u channel(s), %s; plan %s\n", a->image_path, image->width,
           image->height, image->channels, tool_dtype_name(image->dtype), plan);
    if (r->joint_dims) {
        printf("# joint histogram of %u channels, %lu bins each over [%g, %g), row-major "
               "(channel 0 the slowest): 'bin count' per bin\n",
               r->joint_dims, a->bins, r->min, r->max);
        for (uint32_t b = 0; b < r->nbins; b++)
            printf("%u %u\n", b, r->counts[b]);
        return;
    }
    for (unsigned k = 0; k < r->nchannels; k++) {
        unsigned c = r->first_channel + k;
        const uint32_t *counts = r->counts + (size_t)k * r->nbins;
        printf("%s# channel %u (%s): %u bins over [%g, %g)\n", k ? "\n" : "", c,
               a->gray ? "gray" : tool_channel_name(image->channels, c), r->nbins, r->min, r->max);
        for (uint32_t b = 0; b < r->nbins; b++)
            printf("%u %u\n", b, counts[b]);
    }
}

static void
print_json(const hist_args *a, const tool_image *image, const hist_result *r)
{
    tool_json j;
    tool_json_document(&j, stdout, "hist");
    tool_json_parameters(&j);
    tool_json_kv_bool(&j, "gray", a->gray);
    tool_json_kv_uint(&j, "bins", r->nbins);
    tool_json_kv_double(&j, "min", r->min);
    tool_json_kv_double(&j, "max", r->max);
    if (a->edges) {
        tool_json_key(&j, "edges");
        tool_json_begin_array_compact(&j);
        for (size_t k = 0; k < a->nedges; k++)
            tool_json_double(&j, a->edges[k]);
        tool_json_end_array(&j);
    }
    tool_json_results(&j);
    tool_json_key(&j, "plan");
    tool_json_plan_info(&j, &r->info);
    tool_json_key(&j, "histograms");
    tool_json_begin_array(&j);
    for (unsigned k = 0; k < r->nchannels; k++) {
        unsigned c = r->first_channel + k;
        tool_json_begin_object(&j);
        if (r->joint_dims) { /* one N-D histogram: its shape, channels 0.. in order */
            tool_json_key(&j, "shape");
            tool_json_begin_array_compact(&j);
            for (unsigned d = 0; d < r->joint_dims; d++)
                tool_json_uint(&j, a->bins);
            tool_json_end_array(&j);
        } else {
            tool_json_kv_uint(&j, "channel", c);
            tool_json_kv_string(&j, "name",
                                a->gray ? "gray" : tool_channel_name(image->channels, c));
        }
        tool_json_key(&j, "counts");
        tool_json_begin_array_compact(&j);
        for (uint32_t b = 0; b < r->nbins; b++)
            tool_json_uint(&j, r->counts[(size_t)k * r->nbins + b]);
        tool_json_end_array(&j);
        tool_json_end_object(&j);
    }
    tool_json_end_array(&j);
    tool_json_document_end(&j);
}

static int
write_plot(const hist_args *a, const tool_image *image, const hist_result *r)
{
    tool_plot_series series[4];
    tool_plot_bars bars = {series, r->nchannels, r->nbins, r->min, r->max, a->image_path, NULL};
    tool_image canvas;
    char note[200], plan[160], error[600];
    int rc = TOOL_EXIT_OK;
    for (unsigned k = 0; k < r->nchannels; k++) {
        unsigned c = r->first_channel + k;
        series[k].counts = r->counts + (size_t)k * r->nbins;
        tool_channel_colour(a->gray ? 1 : image->channels, a->gray ? 0 : c, series[k].rgb);
        series[k].label = a->gray ? "gray" : tool_channel_name(image->channels, c);
    }
    tool_plan_summary(&r->info, plan, sizeof plan);
    snprintf(note, sizeof note, "%zux%zu %s, %u bins | plan %s", image->width, image->height,
             tool_dtype_name(image->dtype), r->nbins, plan);
    bars.note = note;
    if (tool_plot_bars_render(&bars, &canvas, error, sizeof error) < 0 ||
        tool_image_write(a->plot_path, &canvas, error, sizeof error) < 0) {
        fprintf(stderr, "votecl hist: plot: %s\n", error);
        rc = TOOL_EXIT_FAILURE;
    }
    tool_image_free(&canvas);
    return rc;
}

int
tool_cmd_hist(tool_options *options, int argc, char **argv)
{
    hist_args a = {.bins = 256, .channel = -1};
    hist_result r = {0};
    tool_image image = {0}, mask = {0};
    votecl_context *ctx = NULL;
    int rc = hist_parse(options, &a, argc, argv);
    if (rc != TOOL_EXIT_OK || options->help) {
        if (rc == TOOL_EXIT_OK)
            hist_usage(stdout);
        free(a.edges);
        return rc;
    }
    if ((rc = load_image(&a, &image)) != TOOL_EXIT_OK)
        goto out;
    if (a.mask_path != NULL && (rc = load_mask(&a, &image, &mask)) != TOOL_EXIT_OK)
        goto out;
    if ((rc = tool_context_open(options, &ctx)) != TOOL_EXIT_OK)
        goto out;
    tool_progress(options, "votecl hist: %s, %zux%zu\n", a.image_path, image.width, image.height);
    if ((rc = hist_compute(ctx, &a, &image, a.mask_path ? mask.data : NULL, &r)) != TOOL_EXIT_OK)
        goto out;
    if (options->json)
        print_json(&a, &image, &r);
    else
        print_text(&a, &image, &r);
    if (a.plot_path)
        rc = write_plot(&a, &image, &r);
out:
    free(r.counts);
    votecl_context_free(ctx);
    tool_image_free(&image);
    tool_image_free(&mask);
    free(a.edges);
    return rc;
}
