/* votecl demo: the README's main job. For every image of a directory, runs a list of steps
 * (histograms now; lines, ght and hog later add one line each to demo_steps) on the default
 * device, prints a short summary per step and writes annotated PNGs. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "plot.h"
#include "tool.h"

#define DEMO_MAX_IMAGES 256
#define DEMO_CHROMA_BINS 30

typedef struct demo {
    tool_options *options;
    votecl_context *ctx;
    const char *image_dir;
    const char *out_dir;
} demo;

typedef struct demo_image {
    const char *file;   /* file name inside the image directory */
    char stem[128];     /* file name without extension, for output names */
    tool_image image;   /* as read */
    tool_image gray;    /* one channel */
} demo_image;

typedef enum demo_result { DEMO_DONE, DEMO_SKIPPED, DEMO_FAILED } demo_result;

typedef demo_result (*demo_step_fn)(demo *d, const demo_image *im);

typedef struct demo_step {
    const char *name;
    const char *help;
    demo_step_fn run;
} demo_step;

static demo_result demo_gray(demo *d, const demo_image *im);
static demo_result demo_rgb(demo *d, const demo_image *im);
static demo_result demo_chroma(demo *d, const demo_image *im);
static demo_result demo_hough(demo *d, const demo_image *im);
static demo_result demo_lines(demo *d, const demo_image *im);
static demo_result demo_subsample(demo *d, const demo_image *im);
static demo_result demo_hog(demo *d, const demo_image *im);
static demo_result demo_ght(demo *d, const demo_image *im);

/* The demo's steps, in order; adding one is one line here. */
static const demo_step demo_steps[] = {
    {"gray", "256-bin histogram of the gray image", demo_gray},
    {"rgb", "256-bin histograms of the red, green and blue channels", demo_rgb},
    {"chroma", "30x30 histogram of r = R/(R+G+B), g = G/(R+G+B)", demo_chroma},
    {"hough", "straight lines of the Sobel edges, 180 angles x 1-pixel rho bins", demo_hough},
    {"lines", "straight lines by PClines: Sobel, orientation, TS space in local memory",
     demo_lines},
    {"subsample", "4x sub-sampling and the sum of the gray image, both as votes", demo_subsample},
    {"hog", "people by HOG (OpenCV's default detector, scale 1.05, stride 8)", demo_hog},
    {"ght", "templ.png in pic1.png by the generalized Hough transform (Guil)", demo_ght},
};

static void
demo_usage(FILE *f)
{
    fprintf(f, "usage: votecl demo [--images DIR] [--out DIR]\n"
               "Runs every step on every PNG/PGM/PPM image of DIR (default: the installed\n"
               "images, %s) on the default device, prints a summary and writes annotated\n"
               "PNGs into --out (default ./votecl-demo). Steps:\n",
            VOTECL_IMAGEDIR);
    for (size_t i = 0; i < sizeof demo_steps / sizeof demo_steps[0]; i++)
        fprintf(f, "  %-8s %s\n", demo_steps[i].name, demo_steps[i].help);
}

/* --- small helpers --- */

static int
make_dirs(const char *path)
{
    char buffer[4096];
    if (snprintf(buffer, sizeof buffer, "%s", path) >= (int)sizeof buffer)
        return -1;
    for (char *p = buffer + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buffer, 0777) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buffer, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

static int
is_image_name(const char *name)
{
    static const char *const suffixes[] = {".png", ".pgm", ".ppm", ".pnm"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (n > 4 && strcasecmp(name + n - 4, suffixes[i]) == 0)
            return 1;
    return 0;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The image file names of dir, sorted; malloc'ed strings in names (caller frees). */
static int
list_images(const char *dir, char **names, size_t capacity, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    *n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) && *n < capacity)
        if (is_image_name(e->d_name) && (names[*n] = strdup(e->d_name)))
            *n += 1;
    closedir(d);
    qsort(names, *n, sizeof names[0], compare_names);
    return 0;
}

static int
write_image(const demo *d, const tool_image *canvas, const char *stem, const char *step,
            char *path, size_t size)
{
    char name[256], error[600] = "";
    snprintf(name, sizeof name, "%s-%s.png", stem, step);
    if (!tool_path_join(path, size, d->out_dir, name))
        snprintf(error, sizeof error, "output path too long (over %zu bytes): %s/%s", size - 1,
                 d->out_dir, name);
    if (error[0] || tool_image_write(path, canvas, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        return -1;
    }
    return 0;
}

/* Captions an annotated image with note, writes it as <stem>-<step>.png and says so. */
static demo_result
write_captioned(const demo *d, tool_image *canvas, const char *stem, const char *step,
                const char *note)
{
    static const unsigned char white[3] = {255, 255, 255};
    char path[4096];

    tool_plot_text(canvas, 4, 4, note, 1, white);
    if (write_image(d, canvas, stem, step, path, sizeof path) != 0)
        return DEMO_FAILED;
    printf("    wrote %s\n", path);
    return DEMO_DONE;
}

/* --- 1-D histogram steps --- */

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
demo_hist_run(demo *d, demo_hist *h)
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

static demo_result
demo_hist_plot(demo *d, const demo_image *im, const demo_hist *h, const char *step,
               const char *note)
{
    tool_plot_series series[4];
    char title[256], path[4096], error[600];
    tool_image canvas;
    int single = h->count == 1;
    for (unsigned k = 0; k < h->count; k++) {
        series[k].counts = h->counts[k];
        tool_channel_colour(single ? 1 : h->image->channels, single ? 0 : h->first + k,
                            series[k].rgb);
        series[k].label = single ? step : tool_channel_name(h->image->channels, h->first + k);
    }
    snprintf(title, sizeof title, "%s %s histogram", im->file, step);
    tool_plot_bars bars = {series, h->count, 256, h->min, h->max, title, note};
    if (tool_plot_bars_render(&bars, &canvas, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        return DEMO_FAILED;
    }
    int r = write_image(d, &canvas, im->stem, step, path, sizeof path);
    tool_image_free(&canvas);
    if (r == 0)
        printf("    wrote %s\n", path);
    return r == 0 ? DEMO_DONE : DEMO_FAILED;
}

static demo_result
demo_gray(demo *d, const demo_image *im)
{
    demo_hist h = {.image = &im->gray, .first = 0, .count = 1};
    char plan[160], stats[160], note[400];
    votecl_status st = demo_hist_run(d, &h);
    if (st != VOTECL_OK) {
        tool_fail(d->ctx, st, "gray histogram");
        return DEMO_FAILED;
    }
    tool_plan_summary(&h.info, plan, sizeof plan);
    describe_stats(&h, 0, stats, sizeof stats);
    printf("  gray: %s; %.2f ms; plan %s\n", stats, h.seconds * 1e3, plan);
    snprintf(note, sizeof note, "%s | %.2f ms | %s", stats, h.seconds * 1e3, plan);
    return demo_hist_plot(d, im, &h, "gray", note);
}

static demo_result
demo_rgb(demo *d, const demo_image *im)
{
    demo_hist h = {.image = &im->image, .first = 0, .count = 3};
    char plan[160], stats[160], note[400];
    votecl_status st;
    if (im->image.channels < 3) {
        printf("  rgb: skipped (gray image)\n");
        return DEMO_SKIPPED;
    }
    if ((st = demo_hist_run(d, &h)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "RGB histograms");
        return DEMO_FAILED;
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
chroma_run(demo *d, const tool_image *image, demo_chroma_result *out)
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

static demo_result
chroma_plot(demo *d, const demo_image *im, const demo_chroma_result *c, const char *note)
{
    char title[256], path[4096], error[600];
    tool_image canvas;
    snprintf(title, sizeof title, "%s r,g chromaticity", im->file);
    tool_plot_heat heat = {c->counts, DEMO_CHROMA_BINS, DEMO_CHROMA_BINS, 0, 1, 0, 1,
                           "R/(R+G+B)", "G/(R+G+B)", title, note};
    if (tool_plot_heat_render(&heat, &canvas, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        return DEMO_FAILED;
    }
    int r = write_image(d, &canvas, im->stem, "chroma", path, sizeof path);
    tool_image_free(&canvas);
    if (r == 0)
        printf("    wrote %s\n", path);
    return r == 0 ? DEMO_DONE : DEMO_FAILED;
}

static demo_result
demo_chroma(demo *d, const demo_image *im)
{
    demo_chroma_result *c;
    char plan[160], stats[200], note[400];
    demo_result result;
    if (im->image.channels < 3) {
        printf("  chroma: skipped (gray image)\n");
        return DEMO_SKIPPED;
    }
    if (!(c = calloc(1, sizeof *c)))
        return DEMO_FAILED;
    votecl_status st = chroma_run(d, &im->image, c);
    if (st != VOTECL_OK) {
        tool_fail(d->ctx, st, "chromaticity histogram");
        free(c);
        return DEMO_FAILED;
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

/* --- straight lines: the theta-rho Hough transform of the Sobel edges --- */

static void
hough_summary(const tool_hough_result *r, char *buffer, size_t size)
{
    char plan[160];
    tool_plan_summary(&r->info, plan, sizeof plan);
    snprintf(buffer, size, "%zu lines; %zu edge px (%.1f%%); %ux%u bins; %.2f ms; plan %s",
             r->found, r->stats.kept, 100.0 * r->stats.eta, r->angles, r->nbins,
             r->seconds * 1e3, plan);
}

static demo_result
demo_hough_write(demo *d, const demo_image *im, const tool_hough_result *r, const char *note)
{
    tool_image canvas = {0};
    char path[4096], error[600];
    static const unsigned char white[3] = {255, 255, 255};
    int ok = tool_hough_annotate(&im->image, r->lines, r->shown, &canvas, error,
                                 sizeof error) == 0;
    if (!ok)
        fprintf(stderr, "votecl demo: %s\n", error);
    if (ok) {
        tool_plot_text(&canvas, 4, 4, note, 1, white);
        ok = write_image(d, &canvas, im->stem, "hough", path, sizeof path) == 0;
    }
    if (ok)
        printf("    wrote %s\n", path);
    tool_image_free(&canvas);
    return ok ? DEMO_DONE : DEMO_FAILED;
}

static demo_result
demo_hough(demo *d, const demo_image *im)
{
    tool_image edges = {0};
    tool_hough_result r = {0};
    votecl_hough_params params;
    char error[600], note[400];
    demo_result result = DEMO_FAILED;
    votecl_status st;
    votecl_hough_params_init(&params);
    params.max_lines = 10;
    if (tool_hough_sobel(&im->gray, 200, &edges, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        goto out;
    }
    if ((st = tool_hough_compute(d->ctx, &params, &edges, &r)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "Hough transform");
        goto out;
    }
    hough_summary(&r, note, sizeof note);
    printf("  hough: %s\n", note);
    for (size_t i = 0; i < r.shown && i < 3; i++)
        printf("    line %zu: theta %.1f deg, rho %.1f px, %u votes\n", i + 1,
               r.lines[i].theta * 180.0 / M_PI, r.lines[i].rho, r.lines[i].votes);
    result = demo_hough_write(d, im, &r, note);
out:
    tool_hough_result_free(&r);
    tool_image_free(&edges);
    return result;
}

/* --- straight lines: PClines --- */

static demo_result
demo_lines(demo *d, const demo_image *im)
{
    tool_lines_result r = {0};
    tool_image canvas = {0};
    votecl_lines_params params;
    char error[600], note[400];
    demo_result result = DEMO_FAILED;
    votecl_status st;
    votecl_lines_params_init(&params);
    params.max_lines = 10;
    if ((st = tool_lines_compute(d->ctx, &params, &im->image, &r)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "PClines");
        goto out;
    }
    snprintf(note, sizeof note, "%zu lines; %zu edges; TS %ux%u, radius %u; %.2f ms", r.found,
             r.stats.edges, r.columns, r.rows, r.params.radius, r.seconds * 1e3);
    printf("  lines: %s\n", note);
    if (tool_lines_annotate(&im->image, r.lines, r.shown, &canvas, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        goto out;
    }
    result = write_captioned(d, &canvas, im->stem, "lines", note);
out:
    tool_image_free(&canvas);
    tool_lines_result_free(&r);
    return result;
}

/* --- reductions as votes: sub-sampling and sum --- */

#define DEMO_SUBSAMPLE_FACTOR 4

/* The means of 4 x 4 blocks into small (u8, rounded), and the sum of all pixels. */
static votecl_status
demo_subsample_run(demo *d, const tool_image *gray, tool_image *small, double *sum,
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
    if (means == NULL ||
        (st = votecl_subsample_plan_new(d->ctx, &params, &plan)) != VOTECL_OK ||
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

static demo_result
demo_subsample(demo *d, const demo_image *im)
{
    const tool_image *gray = &im->gray;
    tool_image small = {0};
    char error[600], path[4096];
    double sum = 0, seconds = 0;
    demo_result result = DEMO_FAILED;
    votecl_status st;
    if (gray->dtype != VOTECL_DTYPE_U8 || gray->width < DEMO_SUBSAMPLE_FACTOR ||
        gray->height < DEMO_SUBSAMPLE_FACTOR) {
        printf("  subsample: skipped (not an 8-bit image of at least %u x %u)\n",
               DEMO_SUBSAMPLE_FACTOR, DEMO_SUBSAMPLE_FACTOR);
        return DEMO_SKIPPED;
    }
    if (tool_image_alloc(&small, gray->width / DEMO_SUBSAMPLE_FACTOR,
                         gray->height / DEMO_SUBSAMPLE_FACTOR, 1, VOTECL_DTYPE_U8, error,
                         sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        return DEMO_FAILED;
    }
    if ((st = demo_subsample_run(d, gray, &small, &sum, &seconds)) != VOTECL_OK) {
        tool_fail(d->ctx, st, "sub-sampling");
        goto out;
    }
    printf("  subsample: %zux%zu -> %zux%zu (4x4 means), gray mean %.2f (sum as a one-bin vote); "
           "%.2f ms for both\n", gray->width, gray->height, small.width, small.height,
           sum / ((double)gray->width * gray->height), seconds * 1e3);
    if (write_image(d, &small, im->stem, "subsample", path, sizeof path) == 0)
        result = DEMO_DONE;
out:
    tool_image_free(&small);
    return result;
}

/* --- the driver --- */

static int
demo_image_load(demo *d, const char *file, demo_image *im)
{
    char path[4096], error[600] = "path too long";
    memset(im, 0, sizeof *im);
    im->file = file;
    snprintf(im->stem, sizeof im->stem, "%s", file);
    char *dot = strrchr(im->stem, '.');
    if (dot)
        *dot = '\0';
    if (!tool_path_join(path, sizeof path, d->image_dir, file) ||
        tool_image_read(path, &im->image, error, sizeof error) < 0 ||
        tool_image_to_gray(&im->image, &im->gray, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        tool_image_free(&im->image);
        return -1;
    }
    return 0;
}

/* Runs every step on one image; returns the number of failed steps. */
static int
demo_one_image(demo *d, const char *file)
{
    demo_image im;
    int failures = 0;
    if (demo_image_load(d, file, &im) < 0)
        return 1;
    printf("%s: %zux%zu, %u channel(s), %s\n", file, im.image.width, im.image.height,
           im.image.channels, tool_dtype_name(im.image.dtype));
    for (size_t s = 0; s < sizeof demo_steps / sizeof demo_steps[0]; s++) {
        tool_progress(d->options, "votecl demo: %s: %s\n", file, demo_steps[s].name);
        failures += demo_steps[s].run(d, &im) == DEMO_FAILED;
    }
    tool_image_free(&im.image);
    tool_image_free(&im.gray);
    return failures;
}

static int
demo_parse(tool_options *options, demo *d, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r = tool_option_value(argc, argv, &i, "--images", &v);
        if (r > 0)
            d->image_dir = v;
        if (r == 0 && (r = tool_option_value(argc, argv, &i, "--out", &v)) > 0)
            d->out_dir = v;
        if (r == 0)
            r = tool_common_option(options, argc, argv, &i);
        if (r < 0)
            return TOOL_EXIT_USAGE;
        if (r == 0)
            return tool_usage_error("demo", "unexpected argument '%s'", argv[i]);
    }
    return TOOL_EXIT_OK;
}

static void
print_device(votecl_context *ctx)
{
    votecl_device_info info;
    votecl_context_get_device_info(ctx, &info);
    printf("device: %s (%s, %s backend, %u compute units, Nmax %llu)\n", info.name,
           tool_device_type_name(info.type), votecl_backend_name(votecl_context_get_backend(ctx)),
           info.compute_units, (unsigned long long)(info.local_mem_bytes / 4));
}

static int
same_directory(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int
demo_run(demo *d)
{
    char *names[DEMO_MAX_IMAGES];
    size_t n = 0;
    int failures = 0;
    if (list_images(d->image_dir, names, DEMO_MAX_IMAGES, &n) < 0 || n == 0) {
        fprintf(stderr, "votecl demo: no PNG/PGM/PPM images in %s (try --images DIR)\n",
                d->image_dir);
        return TOOL_EXIT_FAILURE;
    }
    if (make_dirs(d->out_dir) < 0) {
        fprintf(stderr, "votecl demo: cannot create %s: %s\n", d->out_dir, strerror(errno));
        failures = 1;
        goto out;
    }
    if (same_directory(d->image_dir, d->out_dir)) {
        fprintf(stderr, "votecl demo: --out %s is the --images directory: its images would be "
                        "overwritten\n", d->out_dir);
        failures = -1;
        goto out;
    }
    /* Outputs never replace an input, also one reached another way (a link) */
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        if (tool_path_join(path, sizeof path, d->image_dir, names[i]))
            tool_input_note(path);
    }
    print_device(d->ctx);
    printf("images: %s\noutput: %s\n", d->image_dir, d->out_dir);
    for (size_t i = 0; i < n; i++)
        failures += demo_one_image(d, names[i]);
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    if (failures < 0)
        return TOOL_EXIT_USAGE;
    if (failures)
        fprintf(stderr, "votecl demo: %d step(s) failed\n", failures);
    return failures ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
}

int
tool_cmd_demo(tool_options *options, int argc, char **argv)
{
    demo d = {.options = options, .out_dir = "votecl-demo"};
    int rc = demo_parse(options, &d, argc, argv);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        demo_usage(stdout);
        return TOOL_EXIT_OK;
    }
    d.image_dir = tool_image_dir(d.image_dir);
    if ((rc = tool_context_open(options, &d.ctx)) != TOOL_EXIT_OK)
        return rc;
    rc = demo_run(&d);
    votecl_context_free(d.ctx);
    return rc;
}

/* --- HOG people detection --- */

static demo_result
demo_hog(demo *d, const demo_image *im)
{
    votecl_hog_params params;
    votecl_hog_detection found[32];
    size_t n = 0;
    double seconds = 0;
    tool_image canvas = {0};
    char error[600], note[200];
    demo_result result = DEMO_FAILED;
    votecl_status st;

    if (im->image.dtype != VOTECL_DTYPE_U8 || im->image.width < 64 || im->image.height < 128)
        return DEMO_SKIPPED;
    votecl_hog_params_init(&params);
    st = tool_hog_detect(d->ctx, &params, NULL, &im->image, found, 32, &n, &seconds);
    if (st != VOTECL_OK) {
        tool_fail(d->ctx, st, "HOG");
        return DEMO_FAILED;
    }
    snprintf(note, sizeof note, "%zu people; %.2f ms (all scales, fusion included)", n,
             seconds * 1e3);
    printf("  hog: %s\n", note);
    for (size_t k = 0; k < n && k < 32 && k < 3; k++)
        printf("    box %zu: (%d, %d) %dx%d, score %.2f\n", k + 1, (int)found[k].box.x,
               (int)found[k].box.y, (int)found[k].box.width, (int)found[k].box.height,
               found[k].score);
    if (tool_hog_annotate(&im->image, found, n < 32 ? n : 32, &canvas, error, sizeof error) <
        0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        goto out;
    }
    result = write_captioned(d, &canvas, im->stem, "hog", note);
out:
    tool_image_free(&canvas);
    return result;
}

/* --- generalized Hough: OpenCV's own sample pair, templ.png found in pic1.png --- */

static demo_result
demo_ght(demo *d, const demo_image *im)
{
    votecl_ght_params params;
    votecl_ght_pose poses[32];
    votecl_ght_stats stats;
    tool_image templ = {0}, canvas = {0};
    size_t n = 0;
    double seconds = 0;
    char error[600], note[200], path[4096];
    demo_result result = DEMO_FAILED;
    votecl_status st;

    if (strcmp(im->file, "pic1.png") != 0)
        return DEMO_SKIPPED;
    if (!tool_path_join(path, sizeof path, d->image_dir, "templ.png") ||
        tool_image_read(path, &templ, error, sizeof error) < 0)
        return DEMO_SKIPPED;
    votecl_ght_params_init(&params, VOTECL_GHT_GUIL);
    st = tool_ght_detect(d->ctx, &params, &templ, &im->image, poses, 32, &n, &stats, &seconds);
    if (st != VOTECL_OK) {
        /* e.g. a device without double precision: say so, the demo goes on */
        tool_fail(d->ctx, st, "generalized Hough");
        result = DEMO_SKIPPED;
        goto out;
    }
    snprintf(note, sizeof note, "%zu poses of templ.png; %.1f ms", n, seconds * 1e3);
    printf("  ght: %s\n", note);
    for (size_t k = 0; k < n && k < 3; k++)
        printf("    pose %zu: (%.1f, %.1f), %.1f deg, scale %.2f, %u votes\n", k + 1, poses[k].x,
               poses[k].y, poses[k].angle, poses[k].scale, (unsigned)poses[k].votes);
    /* the three strongest poses: the sample's real instances lead, clutter follows */
    if (tool_ght_annotate(&im->image, poses, n < 3 ? n : 3, (double)templ.width,
                          (double)templ.height, &canvas, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        goto out;
    }
    result = write_captioned(d, &canvas, im->stem, "ght", note);
out:
    tool_image_free(&templ);
    tool_image_free(&canvas);
    return result;
}
