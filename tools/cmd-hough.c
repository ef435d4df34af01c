/* votecl hough: straight lines of an image by the theta-rho Hough transform, as text or
 * JSON, an annotated PNG and the accumulator as an image. Also the Sobel edges and the
 * drawing the demo shares. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "options.h"
#include "plot.h"
#include "tool.h"

#define HOUGH_DEFAULT_SOBEL 200
#define HOUGH_DEFAULT_LINES 20

typedef struct hough_args {
    const char *image_path;
    const char *out_path;
    const char *acc_path;
    int sobel; /* 1: Sobel edges on the device; 2: on the host; 0: the image is the edges */
    unsigned long sobel_threshold;
    unsigned long repeat;  /* --repeat: timed device-buffer runs */
    unsigned long size[2]; /* --size WxH: nearest-neighbour resize first; 0: none */
    double edge_seconds;   /* --edges sobel-host: the host's Sobel pass */
    votecl_hough_params params;
    tool_image edges; /* owned: what the transform votes on (load_edges) */
} hough_args;

typedef tool_hough_result hough_result;

static void
hough_usage(FILE *f)
{
    fprintf(f,
            "usage: votecl hough IMAGE [--angles G] [--bins N] [--threshold T] [--window n]\n"
            "                   [--edges sobel|sobel-host|none] [--sobel-threshold S]\n"
            "                   [--edge-threshold E]\n"
            "                   [--max-lines K] [--segments [--min-length L] [--max-gap G]]\n"
            "                   [--json] [--out OUT.png] [--accumulator ACC.png]\n"
            "Straight lines of a PNG, PGM or PPM image by the theta-rho Hough transform\n"
            "(x cos(theta) + y sin(theta) = rho), most votes first, as text or JSON.\n"
            "  --angles G           angles over [0, 180) degrees (default 180)\n"
            "  --bins N             rho bins over [-W, sqrt(W^2 + H^2)] (default: one per pixel)\n"
            "  --threshold T        least votes of a line (default: min(W, H) / 4)\n"
            "  --window n           odd side of the peak window (default 13)\n"
            "  --opencv             cv2.HoughLines' lines: OpenCV's rho grid (bins centred on\n"
            "                       integer distances) and peak rule (4-neighbour maxima above\n"
            "                       T), no merging; with --edges none, cv2.HoughLines(image,\n"
            "                       1, pi / G, T) exactly\n"
            "  --edges sobel|sobel-host|none\n"
            "                       sobel (default): edges where the Sobel magnitude of the\n"
            "                       gray image reaches S, computed where the vote runs (the\n"
            "                       gray image uploaded once: votecl_hough_run_gray);\n"
            "                       sobel-host: the same edges on the host, then uploaded;\n"
            "                       none: the image is an edge image\n"
            "  --sobel-threshold S  default %d\n"
            "  --thin-edges 0|1     1 (default): of the Sobel edges, only the ridges across the\n"
            "                       edge (Canny's non-maximum suppression); 0: every pixel\n"
            "                       reaching S\n"
            "  --edge-threshold E   with --edges none: pixels >= E are edges (default 1)\n"
            "  --max-lines K        at most K lines (default %d; 0: all)\n"
            "  --segments           also each line's segments: every run of edge pixels along\n"
            "                       it, listed after the lines (HoughLinesP's result; each\n"
            "                       line's longest on its own row), drawn with --out\n"
            "  --min-length L       segments shorter than L px are not reported (default 0)\n"
            "  --max-gap G          gaps up to G px are bridged inside a segment (default 5)\n"
            "  --out FILE           the image with the lines drawn (PNG, or PPM for .ppm)\n"
            "  --accumulator FILE   the accumulator: angles down, rho across\n"
            "  --size WxH           resize the image first (nearest neighbour)\n"
            "  --repeat R           also time R votes of the edge image already on the device\n"
            "                       (stage 1 included, no transfers); report the median\n",
            HOUGH_DEFAULT_SOBEL, HOUGH_DEFAULT_LINES);
}

/* --- edges and drawing, shared with the demo --- */

static unsigned
gray_at(const tool_image *g, size_t x, size_t y)
{
    const unsigned char *row = g->data + y * g->stride;
    return g->dtype == VOTECL_DTYPE_U16 ? ((const uint16_t *)row)[x] >> 8 : row[x];
}

int
tool_hough_sobel(const tool_image *gray, unsigned threshold, int thin, tool_image *edges,
                 char *error, size_t error_size)
{
    votecl_context_options options;
    votecl_context *ctx = NULL;
    tool_image u8 = {0};
    const tool_image *g = gray;
    votecl_status st;

    if (tool_image_alloc(edges, gray->width, gray->height, 1, VOTECL_DTYPE_U8, error, error_size) <
        0)
        return -1;
    if (gray->dtype == VOTECL_DTYPE_U16) { /* the high byte */
        if (tool_image_alloc(&u8, gray->width, gray->height, 1, VOTECL_DTYPE_U8, error,
                             error_size) < 0)
            return -1;
        for (size_t y = 0; y < gray->height; y++)
            for (size_t x = 0; x < gray->width; x++)
                u8.data[y * u8.stride + x] = (unsigned char)gray_at(gray, x, y);
        g = &u8;
    }
    /* the library's host step (votecl_hough_run_gray()'s edges); a 'ref' context only carries
     * its message */
    votecl_context_options_init(&options);
    options.backend = VOTECL_BACKEND_REF;
    st = votecl_context_new(&options, &ctx);
    if (st == VOTECL_OK) {
        votecl_image view = {g->data, g->width, g->height, g->stride, 1, VOTECL_DTYPE_U8};
        st = votecl_hough_sobel_edges(ctx, &view, threshold, thin, edges->data, edges->stride);
    }
    if (st != VOTECL_OK)
        snprintf(error, error_size, "Sobel edges: %s",
                 ctx != NULL ? votecl_context_get_error(ctx) : votecl_status_string(st));
    votecl_context_free(ctx);
    tool_image_free(&u8);
    return st == VOTECL_OK ? 0 : -1;
}

static void
put_rgb(tool_image *im, long x, long y, const unsigned char rgb[3])
{
    if (x < 0 || y < 0 || (size_t)x >= im->width || (size_t)y >= im->height)
        return;
    memcpy(im->data + (size_t)y * im->stride + (size_t)x * 3, rgb, 3);
}

/* The line two pixels wide: its segment where the result has one (the ends' positions along
 * the line), else across the whole image; the label at the drawn part's point nearest the
 * centre. */
static void
draw_line(tool_image *im, const votecl_hough_line *l, const unsigned char rgb[3], const char *label)
{
    double c = cos(l->theta), s = sin(l->theta);
    double cx = im->width / 2.0, cy = im->height / 2.0;
    double t0 = -s * cx + c * cy; /* the centre's position along the line */
    double from = -hypot((double)im->width, (double)im->height), to = -from;
    if (l->has_segment) {
        double a = -s * l->x0 + c * l->y0, b = -s * l->x1 + c * l->y1;
        from = fmin(a, b);
        to = fmax(a, b);
    }
    t0 = fmin(fmax(t0, from), to);
    for (double t = from; t <= to; t += 0.5) {
        double x = l->rho * c - t * s, y = l->rho * s + t * c;
        put_rgb(im, lround(x), lround(y), rgb);
        put_rgb(im, lround(x + c), lround(y + s), rgb);
    }
    double lx = l->rho * c - t0 * s, ly = l->rho * s + t0 * c;
    if (lx >= 0 && ly >= 0 && lx < im->width && ly < im->height)
        tool_plot_text(im, lround(lx) + 3, lround(ly) + 3, label, 2, rgb);
}

static void
line_colour(size_t i, unsigned char rgb[3])
{
    static const unsigned char colours[][3] = {{255, 40, 40},  {40, 220, 60},  {60, 120, 255},
                                               {255, 200, 0},  {255, 60, 255}, {0, 220, 220},
                                               {255, 130, 30}, {160, 90, 255}};
    memcpy(rgb, colours[i % (sizeof colours / sizeof colours[0])], 3);
}

/* Line i drawn along each of its segments, labelled on the first. */
static void
draw_segments(tool_image *im, const votecl_hough_line *l, size_t i, const tool_segments *segments,
              const unsigned char rgb[3], const char *label)
{
    votecl_hough_line part = *l;
    for (size_t k = 0; k < segments->n; k++) {
        const votecl_segment *g = &segments->items[k];
        if (g->line != i)
            continue;
        part.has_segment = 1;
        part.x0 = g->x0;
        part.y0 = g->y0;
        part.x1 = g->x1;
        part.y1 = g->y1;
        draw_line(im, &part, rgb, label);
        label = "";
    }
}

int
tool_hough_annotate(const tool_image *image, const votecl_hough_line *lines, size_t n,
                    tool_image *out, char *error, size_t error_size)
{
    return tool_hough_annotate_segments(image, lines, n, NULL, out, error, error_size);
}

int
tool_hough_annotate_segments(const tool_image *image, const votecl_hough_line *lines, size_t n,
                             const tool_segments *segments, tool_image *out, char *error,
                             size_t error_size)
{
    char label[32];
    unsigned char rgb[3];
    if (tool_image_alloc(out, image->width, image->height, 3, VOTECL_DTYPE_U8, error, error_size) <
        0)
        return -1;
    for (size_t y = 0; y < image->height; y++)
        for (size_t x = 0; x < image->width; x++)
            for (unsigned k = 0; k < 3; k++) {
                const unsigned char *row = image->data + y * image->stride;
                size_t i = x * image->channels + (image->channels >= 3 ? k : 0);
                unsigned v =
                    image->dtype == VOTECL_DTYPE_U16 ? ((const uint16_t *)row)[i] >> 8 : row[i];
                out->data[y * out->stride + x * 3 + k] = (unsigned char)(v * 3 / 5);
            }
    for (size_t i = n; i-- > 0;) { /* the strongest line on top */
        line_colour(i, rgb);
        snprintf(label, sizeof label, "%zu", i + 1);
        if (segments == NULL)
            draw_line(out, &lines[i], rgb, label);
        else
            draw_segments(out, &lines[i], i, segments, rgb, label);
    }
    return 0;
}

/* --- arguments --- */

/* The options votecl hough shares with its batch case (members of votecl_hough_params). */
static const tool_option_spec hough_param_options[] = {
    TOOL_OPT_NUMBER(votecl_hough_params, rho_bins, "--bins", VOTECL_VOTE_MAX_BINS),
    TOOL_OPT_NUMBER(votecl_hough_params, peak_threshold, "--threshold", UINT32_MAX),
    TOOL_OPT_NUMBER(votecl_hough_params, peak_window, "--window", 999),
    TOOL_OPT_NUMBER(votecl_hough_params, edge_threshold, "--edge-threshold", 255),
    TOOL_OPT_NUMBER(votecl_hough_params, max_lines, "--max-lines", 1000000),
    TOOL_OPT_NUMBER(votecl_hough_params, thin_edges, "--thin-edges", 1),
};

/* The single command's own. */
static const tool_option_spec hough_options[] = {
    TOOL_OPT_FLAG(hough_args, params.segments, "--segments"),
    TOOL_OPT_STRING(hough_args, out_path, "--out"),
    TOOL_OPT_STRING(hough_args, acc_path, "--accumulator"),
    TOOL_OPT_NUMBER(hough_args, params.angles, "--angles", VOTECL_HOUGH_MAX_ANGLES),
    TOOL_OPT_NUMBER(hough_args, params.min_length, "--min-length", UINT32_MAX),
    TOOL_OPT_NUMBER(hough_args, params.max_gap, "--max-gap", UINT32_MAX),
    TOOL_OPT_NUMBER(hough_args, repeat, "--repeat", 100000),
    TOOL_OPT_NUMBER(hough_args, sobel_threshold, "--sobel-threshold", 100000),
};

int
tool_hough_param_option(votecl_hough_params *params, int argc, char **argv, int *i)
{
    return tool_option_table(hough_param_options, TOOL_OPTION_COUNT(hough_param_options), params,
                             argc, argv, i);
}

static int
parse_size(hough_args *a, const char *v)
{
    char *end = NULL;
    a->size[0] = strtoul(v, &end, 10);
    if (end == v || *end != 'x' || (a->size[1] = strtoul(end + 1, &end, 10)) == 0 || *end != '\0' ||
        a->size[0] == 0 || a->size[0] > 65535 || a->size[1] > 65535)
        return tool_usage_error("hough", "--size wants WxH (1 to 65535 each), not '%s'", v), -1;
    return 1;
}

static int
hough_option(hough_args *a, int argc, char **argv, int *i)
{
    const char *v = NULL;
    int r;
    if (strcmp(argv[*i], "--opencv") == 0) {
        a->params.rho_grid = VOTECL_HOUGH_GRID_OPENCV;
        a->params.peak_rule = VOTECL_HOUGH_PEAKS_OPENCV;
        a->params.merge_distance = 0;
        return 1;
    }
    if ((r = tool_option_value(argc, argv, i, "--size", &v)) != 0)
        return r < 0 ? r : parse_size(a, v);
    if ((r = tool_option_value(argc, argv, i, "--edges", &v)) != 0) {
        if (r < 0)
            return r;
        if (strcmp(v, "sobel") != 0 && strcmp(v, "sobel-host") != 0 && strcmp(v, "none") != 0)
            return tool_usage_error("hough", "--edges is sobel, sobel-host or none, not '%s'", v),
                   -1;
        a->sobel = strcmp(v, "sobel") == 0 ? 1 : strcmp(v, "sobel-host") == 0 ? 2 : 0;
        return 1;
    }
    if ((r = tool_option_table(hough_options, TOOL_OPTION_COUNT(hough_options), a, argc, argv,
                               i)) != 0)
        return r;
    return tool_hough_param_option(&a->params, argc, argv, i);
}

static int
hough_option_fn(void *a, int argc, char **argv, int *i)
{
    return hough_option(a, argc, argv, i);
}

static int
hough_check(void *args)
{
    const hough_args *a = args;
    if (a->params.peak_window % 2 == 0)
        return tool_usage_error("hough", "--window must be odd");
    return TOOL_EXIT_OK;
}

/* --- the work --- */

/* Nearest-neighbour resize of image in place (any channels and dtype). */
static int
resize(tool_image *image, size_t width, size_t height, char *error, size_t error_size)
{
    tool_image out;
    size_t px = image->channels * (image->dtype == VOTECL_DTYPE_U16 ? 2 : 1);
    if (tool_image_alloc(&out, width, height, image->channels, image->dtype, error, error_size) < 0)
        return -1;
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++)
            memcpy(out.data + y * out.stride + x * px,
                   image->data + (y * image->height / height) * image->stride +
                       (x * image->width / width) * px,
                   px);
    tool_image_free(image);
    *image = out;
    return 0;
}

/* image as read, resized with --size, and a->edges, the u8 image the transform votes on: the
 * edge image, or with --edges sobel the gray image whose edges the library finds. */
static int
load_edges(void *args, tool_image *image)
{
    hough_args *a = args;
    char error[600];
    tool_image gray = {0}, *edges = &a->edges;
    int rc = TOOL_EXIT_FAILURE;
    if ((a->size[0] && resize(image, a->size[0], a->size[1], error, sizeof error) < 0) ||
        tool_image_to_gray(image, &gray, error, sizeof error) < 0)
        goto out;
    if (a->sobel == 2) {
        double t0 = tool_now();
        if (tool_hough_sobel(&gray, (unsigned)a->sobel_threshold, a->params.thin_edges, edges,
                             error, sizeof error) < 0)
            goto out;
        a->edge_seconds = tool_now() - t0;
    } else if (gray.dtype == VOTECL_DTYPE_U16) { /* the u8 values tool_hough_sobel reads */
        if (tool_image_alloc(edges, gray.width, gray.height, 1, VOTECL_DTYPE_U8, error,
                             sizeof error) < 0)
            goto out;
        for (size_t y = 0; y < gray.height; y++)
            for (size_t x = 0; x < gray.width; x++)
                edges->data[y * edges->stride + x] = (unsigned char)gray_at(&gray, x, y);
    } else {
        *edges = gray;
        gray = (tool_image){0};
    }
    rc = TOOL_EXIT_OK;
out:
    if (rc != TOOL_EXIT_OK)
        fprintf(stderr, "votecl hough: %s\n", error);
    tool_image_free(&gray);
    return rc;
}

static votecl_status
hough_vote(votecl_hough_plan *plan, const tool_image *edges, hough_result *r)
{
    votecl_image view = tool_image_view(edges);
    size_t capacity = r->shown;
    votecl_status st = VOTECL_OK;
    double t0 = 0;
    for (int k = 0; k < 2 && st == VOTECL_OK; k++) { /* timed is the second: the first may set
                                                      the device up */
        t0 = tool_now();
        st = r->gray_sobel
                 ? votecl_hough_run_gray(plan, &view, r->sobel_threshold, r->lines, capacity,
                                         &r->found, &r->stats)
                 : votecl_hough_run(plan, &view, r->lines, capacity, &r->found, &r->stats);
    }
    r->seconds = tool_now() - t0;
    r->shown = r->found < capacity ? r->found : capacity;
    return st;
}

/* The plan's segments of its last run, copied into r. */
static votecl_status
keep_segments(const votecl_hough_plan *plan, hough_result *r)
{
    const votecl_segment *segments;
    size_t n;
    votecl_status st = votecl_hough_plan_segments(plan, &segments, &n);
    return st == VOTECL_OK ? tool_segments_keep(&r->segments, segments, n) : st;
}

votecl_status
tool_hough_compute(votecl_context *ctx, const votecl_hough_params *params, const tool_image *edges,
                   tool_hough_result *r)
{
    votecl_hough_plan *plan = NULL;
    size_t cells;
    votecl_status st = votecl_hough_plan_new(ctx, params, edges->width, edges->height, &plan);
    if (st != VOTECL_OK)
        goto out;
    votecl_hough_plan_shape(plan, &r->angles, &r->nbins);
    cells = (size_t)r->angles * r->nbins;
    r->lines =
        tool_line_result_alloc(params->max_lines, sizeof *r->lines, cells, &r->acc, &r->shown);
    st = r->lines != NULL ? hough_vote(plan, edges, r) : VOTECL_OUT_OF_HOST_MEMORY;
    if (st != VOTECL_OK)
        goto out;
    if (votecl_hough_plan_accumulator(plan) == NULL) { /* a failed read-back */
        st = VOTECL_DEVICE_ERROR;
        goto out;
    }
    memcpy(r->acc, votecl_hough_plan_accumulator(plan), cells * sizeof *r->acc);
    st = votecl_hough_plan_describe(plan, edges->width * edges->height, &r->info);
    if (st == VOTECL_OK)
        st = keep_segments(plan, r);
out:
    votecl_hough_plan_free(plan);
    return st;
}

void
tool_hough_result_free(tool_hough_result *r)
{
    tool_line_result_free(r->lines, r->acc, &r->segments);
    memset(r, 0, sizeof *r);
}

/* Votes of the edge image already in a device buffer into a device accumulator, each call
 * waited for: stage 1 and stage 2, no transfers, no peak extraction. */
static votecl_status
time_buffers(votecl_context *ctx, votecl_hough_plan *plan, const tool_image *edges,
             unsigned long repeat, double *times)
{
    votecl_buffer *in = NULL, *acc = NULL;
    votecl_vote_stats stats;
    size_t bytes = edges->width * edges->height;
    unsigned angles;
    uint32_t nbins;
    votecl_status st;
    votecl_hough_plan_shape(plan, &angles, &nbins);
    if ((st = votecl_buffer_new(ctx, bytes, &in)) != VOTECL_OK ||
        (st = votecl_buffer_new(ctx, (size_t)angles * nbins * 4, &acc)) != VOTECL_OK)
        goto out;
    for (size_t y = 0; y < edges->height && st == VOTECL_OK; y++)
        st = votecl_buffer_write(in, y * edges->width, edges->data + y * edges->stride,
                                 edges->width);
    for (unsigned long k = 0; k <= repeat && st == VOTECL_OK; k++) { /* k = 0: warm-up */
        double t0 = tool_now();
        if ((st = votecl_hough_run_buffers(plan, in, acc)) == VOTECL_OK)
            st = votecl_hough_plan_last_stats(plan, &stats);
        if (k > 0)
            times[k - 1] = tool_now() - t0;
    }
out:
    votecl_buffer_free(in);
    votecl_buffer_free(acc);
    return st;
}

static votecl_status
hough_bench(votecl_context *ctx, const votecl_hough_params *params, const tool_image *edges,
            long sobel_threshold, unsigned long repeat, tool_hough_result *r)
{
    tool_image host_edges = {0};
    votecl_hough_plan *plan = NULL;
    double *times = calloc(repeat, sizeof *times);
    votecl_status st = times ? VOTECL_OK : VOTECL_OUT_OF_HOST_MEMORY;
    if (st == VOTECL_OK)
        st = votecl_hough_plan_new(ctx, params, edges->width, edges->height, &plan);
    if (st == VOTECL_OK && sobel_threshold >= 0) { /* edges is the gray image */
        char error[600];
        if (tool_hough_sobel(edges, (unsigned)sobel_threshold, params->thin_edges, &host_edges,
                             error, sizeof error) < 0)
            st = VOTECL_OUT_OF_HOST_MEMORY;
        else
            edges = &host_edges;
    }
    if (st == VOTECL_OK)
        st = time_buffers(ctx, plan, edges, repeat, times);
    if (st == VOTECL_OK) {
        qsort(times, repeat, sizeof *times, tool_compare_doubles);
        r->bench_median = times[repeat / 2];
        r->bench_min = times[0];
    }
    votecl_hough_plan_free(plan);
    tool_image_free(&host_edges);
    free(times);
    return st;
}

static void
print_text(const hough_args *a, const tool_image *image, const hough_result *r)
{
    char plan[160];
    tool_plan_summary(&r->info, plan, sizeof plan);
    printf("# %s: %zux%zu; %zu edge pixels (%.2f%%); %u angles x %u rho bins; %.2f ms; plan %s\n",
           a->image_path, image->width, image->height, r->stats.kept, 100.0 * r->stats.eta,
           r->angles, r->nbins, r->seconds * 1e3, plan);
    if (a->repeat)
        printf("# device-buffer vote (stage 1 + 2), %lu runs: median %.3f ms, min %.3f ms\n",
               a->repeat, r->bench_median * 1e3, r->bench_min * 1e3);
    printf("# %zu line(s): theta_degrees rho votes\n", r->found);
    for (size_t i = 0; i < r->shown; i++) {
        const votecl_hough_line *l = &r->lines[i];
        printf("%.3f %.3f %u", l->theta * 180.0 / M_PI, l->rho, l->votes);
        tool_print_segment(l->has_segment, l->x0, l->y0, l->x1, l->y1);
    }
    if (a->params.segments)
        tool_print_segments(&r->segments);
}

void
tool_json_hough_parameters(tool_json *j, int sobel, unsigned long sobel_threshold,
                           const votecl_hough_params *p, const tool_hough_result *r)
{
    tool_json_parameters(j);
    tool_json_kv_string(j, "edge_method",
                        sobel == 1   ? "sobel"
                        : sobel == 2 ? "sobel-host"
                                     : "none");
    if (sobel) {
        tool_json_kv_uint(j, "sobel_threshold", sobel_threshold);
        tool_json_kv_uint(j, "thin_edges", p->thin_edges != 0);
    }
    tool_json_kv_uint(j, "edge_threshold", p->edge_threshold);
    tool_json_kv_uint(j, "angles", r->angles);
    tool_json_kv_uint(j, "rho_bins", r->nbins);
    tool_json_kv_uint(j, "window", p->peak_window);
    tool_json_kv_uint(j, "threshold", p->peak_threshold);
    tool_json_kv_uint(j, "max_lines", p->max_lines);
}

static void
print_json(const hough_args *a, const tool_image *image, const hough_result *r)
{
    tool_json j;
    tool_json_document(&j, stdout, "hough");
    tool_json_hough_parameters(&j, a->sobel, a->sobel_threshold, &a->params, r);
    if (a->repeat)
        tool_json_kv_uint(&j, "repeat", a->repeat);
    tool_json_results(&j);
    tool_json_kv_uint(&j, "edges", r->stats.kept);
    tool_json_kv_double(&j, "eta", r->stats.eta);
    tool_json_kv_double(&j, "seconds", r->seconds);
    if (a->sobel == 2) /* seconds has the edges in it with --edges sobel only */
        tool_json_kv_double(&j, "edge_seconds", a->edge_seconds);
    if (a->repeat) {
        tool_json_kv_double(&j, "vote_seconds_median", r->bench_median);
        tool_json_kv_double(&j, "vote_seconds_min", r->bench_min);
    }
    tool_json_key(&j, "plan");
    tool_json_plan_info(&j, &r->info);
    tool_json_hough_lines(&j, r->lines, r->found, r->shown);
    if (a->params.segments)
        tool_json_segments(&j, &r->segments);
    tool_json_document_end(&j);
}

static int
hough_run(tool_options *options, votecl_context *ctx, void *args, const tool_image *image)
{
    const hough_args *a = args;
    hough_result r = {.gray_sobel = a->sobel == 1, .sobel_threshold = (unsigned)a->sobel_threshold};
    votecl_status st = tool_hough_compute(ctx, &a->params, &a->edges, &r);
    /* the accumulator: angles down, rho bins across */
    tool_line_output o = {.command = "hough",
                          .out_path = a->out_path,
                          .space_path = a->acc_path,
                          .space_name = "accumulator",
                          .space = r.acc,
                          .columns = r.nbins,
                          .rows = r.angles,
                          .hough = r.lines,
                          .shown = r.shown,
                          .segments = a->params.segments ? &r.segments : NULL};
    int rc = TOOL_EXIT_OK;
    if (st == VOTECL_OK && a->repeat)
        st = hough_bench(ctx, &a->params, &a->edges, a->sobel == 1 ? (long)a->sobel_threshold : -1,
                         a->repeat, &r);
    if (st != VOTECL_OK)
        rc = tool_fail(ctx, st, "hough");
    else if (options->json)
        print_json(a, image, &r);
    else
        print_text(a, image, &r);
    if (st == VOTECL_OK)
        rc = tool_line_output_write(&o, image);
    tool_hough_result_free(&r);
    return rc;
}

static const tool_image_command hough_command = {
    "hough",         hough_option_fn, hough_usage, .check = hough_check, .load = load_edges,
    .run = hough_run};

int
tool_cmd_hough(tool_options *options, int argc, char **argv)
{
    hough_args a = {.sobel = 1, .sobel_threshold = HOUGH_DEFAULT_SOBEL};
    int rc;
    votecl_hough_params_init(&a.params);
    a.params.max_lines = HOUGH_DEFAULT_LINES;
    rc = tool_image_command_run(options, &hough_command, &a, &a.image_path, argc, argv);
    tool_image_free(&a.edges);
    return rc;
}
