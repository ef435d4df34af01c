/* The theta-rho Hough transform for lines, a built-in of the generic voting engine: the plan
 * is a votecl_vote_spec (vote_test: the edge test; vote_index: GPU-vote Eq. 2 with a cos/sin
 * table) compiled into a votecl_vote_plan, plus peak extraction on the host. CPU-shaped
 * devices vote through lib/hough-rows.c instead unless a strategy is asked for, and the
 * 'ref' backend runs lib/hough-ref.c. */
#include "votecl-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hough-private.h"

struct votecl_hough_plan {
    votecl_context *context;
    votecl_hough_params params;
    votecl__hough_desc desc;
    votecl_vote_plan *vote;  /* the engine's; NULL on the ref backend and with rows */
    votecl__hough_rows rows; /* the CPU shape's vote, where use_rows */
    int use_rows;
    uint32_t *acc; /* G * N counts of the last run */
    int have_acc;
    votecl_vote_stats last; /* the ref backend's last stats */
    /* the gray path (votecl_hough_run_gray), set up on its first run */
    votecl__program *program; /* cl/hough.cl; owned by the context's cache */
    void *k_sobel, *k_candidates;
    int gray_ready;
    votecl_buffer *gray, *edges, *dacc, *mirror, *cand; /* device buffers */
    size_t cand_cap;                                    /* candidate pairs cand holds */
    uint8_t *edges_host;           /* the ref backend's edge image, and segments' */
    uint8_t *mask;                 /* G * N zeroed bytes for the peaks' suppression, kept mapped */
    int acc_on_device;             /* the last run's accumulator is dacc's, not yet read back */
    votecl__segment_list segments; /* every segment of the last run's lines */
};

void
votecl_hough_params_init(votecl_hough_params *params)
{
    VOTECL__PARAMS_INIT_OR_RETURN(params);
    params->angles = 180;
    params->edge_threshold = 1;
    params->peak_window = 13;
    params->max_gap = 5;
    params->merge_distance = 3.0;
    params->rho_grid = VOTECL_HOUGH_GRID_SPAN;
    params->peak_rule = VOTECL_HOUGH_PEAKS_WINDOW;
    params->thin_edges = 1;
}

#define BAD(...) (snprintf(msg, msg_size, __VA_ARGS__), VOTECL_INVALID_ARGUMENT)

static votecl_status
check_params(const void *params, size_t width, size_t height, char *msg, size_t msg_size)
{
    const votecl_hough_params *p = params;
    votecl_status status = votecl__frame_check(width, height, VOTECL_HOUGH_MAX_SIDE, msg, msg_size);
    uint64_t n;

    if (status != VOTECL_OK)
        return status;
    /* only now are width and height known to fit the default's arithmetic */
    if (p->rho_grid != VOTECL_HOUGH_GRID_SPAN && p->rho_grid != VOTECL_HOUGH_GRID_OPENCV)
        return BAD("rho_grid: unknown value %d", (int)p->rho_grid);
    if (p->peak_rule != VOTECL_HOUGH_PEAKS_WINDOW && p->peak_rule != VOTECL_HOUGH_PEAKS_OPENCV)
        return BAD("peak_rule: unknown value %d", (int)p->peak_rule);
    if (p->rho_grid == VOTECL_HOUGH_GRID_OPENCV && p->rho_bins != 0)
        return BAD("rho_bins: must be 0 on the OpenCV grid (one bin per pixel), not %u",
                   p->rho_bins);
    n = p->rho_grid == VOTECL_HOUGH_GRID_OPENCV
            ? votecl__hough_opencv_bins((uint32_t)width, (uint32_t)height)
        : p->rho_bins != 0 ? p->rho_bins
                           : votecl__hough_default_bins((uint32_t)width, (uint32_t)height);
    if (p->angles < 1 || p->angles > VOTECL_HOUGH_MAX_ANGLES)
        return BAD("angles: %u is not between 1 and %u", p->angles, VOTECL_HOUGH_MAX_ANGLES);
    if (p->edge_threshold > 255)
        return BAD("edge_threshold: %u is above 255, no u8 pixel reaches it", p->edge_threshold);
    /* The search costs G N n^2: beyond 99 (as PClines' neighbourhood) a window only hangs
     * the caller. */
    if (p->peak_window < 1 || p->peak_window % 2 == 0 || p->peak_window > VOTECL_HOUGH_MAX_WINDOW)
        return BAD("peak_window: %u is not an odd number from 1 to %u", p->peak_window,
                   VOTECL_HOUGH_MAX_WINDOW);
    if (votecl_variant_name(p->variant) == NULL)
        return BAD("variant: unknown value %d", (int)p->variant);
    if (!(p->merge_distance >= 0 && p->merge_distance <= 1e6))
        return BAD("merge_distance: must be between 0 and 1e6 pixels");
    if (n * p->angles > VOTECL_VOTE_MAX_BINS)
        return BAD("angles, rho_bins: %u x %llu bins exceed %u", p->angles, (unsigned long long)n,
                   VOTECL_VOTE_MAX_BINS);
    return VOTECL_OK;
}

static votecl_status
plan_compile(votecl_hough_plan *plan)
{
    votecl_vote_spec spec;
    char *source = votecl__hough_source(&plan->desc);
    votecl_status status;

    if (source == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    votecl_vote_spec_init(&spec);
    spec.dtype = VOTECL_DTYPE_U8;
    spec.channels = 1;
    spec.bin_type = VOTECL_BINS_UNITY;
    spec.spaces = plan->desc.angles;
    spec.nbins = plan->desc.nbins;
    spec.source = source;
    spec.table = plan->desc.table;
    spec.table_size = 2 * (size_t)plan->desc.angles;
    spec.variant = plan->params.variant;
    spec.stretch = plan->params.stretch;
    spec.work_group_size = plan->params.work_group_size;
    status = votecl_vote_plan_new(plan->context, &spec, &plan->vote);
    free(source);
    return status;
}

/* The rows vote on a CPU shape, unless the caller asks the engine for a strategy, stretch or
 * work-group size (VOTECL_FORCE_VARIANT included: tests reach every strategy). */
static int
wants_rows(const votecl_hough_plan *plan)
{
    const votecl_hough_params *p = &plan->params;

    return plan->context->shape.cpu && p->variant == VOTECL_VARIANT_AUTO &&
           plan->context->force_variant == VOTECL_VARIANT_AUTO && p->stretch == 0 &&
           p->work_group_size == 0;
}

static votecl_status
plan_init(void *plan_, votecl_context *context, const void *params, size_t width, size_t height)
{
    votecl_hough_plan *plan = plan_;
    const votecl_hough_params *p = &plan->params;
    votecl_status status;

    plan->context = context;
    plan->params = *(const votecl_hough_params *)params;
    status = votecl__hough_desc_init(&plan->desc, (uint32_t)width, (uint32_t)height, p->angles,
                                     p->rho_bins, p->edge_threshold, (int)p->rho_grid);
    if (status != VOTECL_OK)
        return votecl__fail(plan->context, status, "out of memory for the cos/sin table");
    plan->desc.opencv_peaks = p->peak_rule == VOTECL_HOUGH_PEAKS_OPENCV;
    if (plan->context->backend == VOTECL_BACKEND_REF)
        return VOTECL_OK;
    if (wants_rows(plan)) {
        plan->use_rows = 1;
        return votecl__hough_rows_init(&plan->rows, context, &plan->desc);
    }
    return plan_compile(plan);
}

VOTECL__PLAN_OPS(votecl_hough_plan, votecl_hough_plan_free, .check = check_params,
                 .init = plan_init);

votecl_status
votecl_hough_plan_new(votecl_context *context, const votecl_hough_params *params, size_t width,
                      size_t height, votecl_hough_plan **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    return votecl__plan_new_of(&plan_ops, context, params, width, height, out);
}

void
votecl_hough_plan_free(votecl_hough_plan *plan)
{
    if (plan == NULL)
        return;
    votecl_vote_plan_free(plan->vote);
    votecl__hough_rows_release(&plan->rows);
    VOTECL__FREE_BUFFERS(plan->gray, plan->edges, plan->dacc, plan->mirror, plan->cand);
    votecl__hough_desc_release(&plan->desc);
    VOTECL__FREE_ALL(plan->edges_host, plan->mask, plan->segments.items, plan->acc, plan);
}

void
votecl_hough_plan_shape(const votecl_hough_plan *plan, unsigned *angles, uint32_t *rho_bins)
{
    if (angles != NULL)
        *angles = plan != NULL ? plan->desc.angles : 0;
    if (rho_bins != NULL)
        *rho_bins = plan != NULL ? plan->desc.nbins : 0;
}

double
votecl_hough_plan_theta(const votecl_hough_plan *plan, unsigned g)
{
    return plan != NULL ? votecl__hough_theta(&plan->desc, g) : 0.0;
}

double
votecl_hough_plan_rho(const votecl_hough_plan *plan, uint32_t b)
{
    return plan != NULL ? votecl__hough_rho(&plan->desc, b) : 0.0;
}

/* The host accumulator, allocated at its first use: a plan whose runs keep theirs on the
 * device (votecl_hough_run_gray) holds no G * N host counts until they are asked for. */
static votecl_status
ensure_acc(votecl_hough_plan *plan)
{
    size_t cells = (size_t)plan->desc.angles * plan->desc.nbins;

    if (plan->acc == NULL && (plan->acc = votecl__malloc(cells * sizeof *plan->acc)) == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for %zu accumulator bins", cells);
    return VOTECL_OK;
}

const uint32_t *
votecl_hough_plan_accumulator(const votecl_hough_plan *plan)
{
    if (plan != NULL && plan->acc_on_device) {
        /* after votecl_hough_run_gray(): read back on demand, so a run that only wants its
         * lines never moves the G * N counts (the plan is the caller's, not constant) */
        votecl_hough_plan *p = (votecl_hough_plan *)plan;
        p->acc_on_device = 0;
        p->have_acc = ensure_acc(p) == VOTECL_OK &&
                      votecl_buffer_read(p->dacc, 0, p->acc,
                                         (size_t)p->desc.angles * p->desc.nbins * 4) == VOTECL_OK;
    }
    return plan != NULL && plan->have_acc ? plan->acc : NULL;
}

static votecl_status
check_image(votecl_hough_plan *plan, const votecl_image *image)
{
    const votecl__hough_desc *d = &plan->desc;
    size_t row_bytes, pixels;
    votecl_status status =
        votecl__image_check(plan->context, image, VOTECL_DTYPE_U8, 1, &row_bytes, &pixels);

    if (status == VOTECL_OK && (image->width != d->width || image->height != d->height))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image.width, image.height: %zu x %zu is not the plan's %u x %u",
                            image->width, image->height, d->width, d->height);
    if (status == VOTECL_OK)
        status = votecl__hough_check_binary(plan->context, image, d->edge_threshold);
    return status;
}

static void
ref_vote(votecl_hough_plan *plan, const uint8_t *data, size_t stride, uint32_t *acc)
{
    size_t elements = (size_t)plan->desc.width * plan->desc.height;

    plan->last.elements = elements;
    plan->last.kept = votecl__hough_ref(&plan->desc, data, stride, acc);
    plan->last.eta = (double)plan->last.kept / (double)elements;
}

/* The rows vote of a host image: uploaded into the gray path's edge buffer, counts read
 * back into plan->acc. */
static votecl_status
rows_run_image(votecl_hough_plan *plan, const votecl_image *image)
{
    const votecl__hough_desc *d = &plan->desc;
    size_t pixels = (size_t)d->width * d->height, cells = (size_t)d->angles * d->nbins;
    const void *packed;
    void *copy = NULL;
    votecl_status status = votecl__image_packed(plan->context, image, d->width, &packed, &copy);

    if (status == VOTECL_OK &&
        (status = votecl__buffer_ensure(plan->context, &plan->edges, pixels)) == VOTECL_OK &&
        (status = votecl__buffer_ensure(plan->context, &plan->dacc, cells * 4)) == VOTECL_OK &&
        (status = votecl_buffer_write(plan->edges, 0, packed, pixels)) == VOTECL_OK &&
        (status = votecl__hough_rows_vote(&plan->rows, plan->edges, plan->dacc)) == VOTECL_OK &&
        (status = votecl_buffer_read(plan->dacc, 0, plan->acc, cells * 4)) == VOTECL_OK)
        status = votecl_hough_plan_last_stats(plan, &plan->last);
    free(copy);
    return status;
}

static votecl_status
vote(votecl_hough_plan *plan, const votecl_image *image, votecl_vote_stats *stats)
{
    votecl_status status = VOTECL_OK;

    plan->have_acc = 0;
    plan->acc_on_device = 0;
    if ((status = ensure_acc(plan)) != VOTECL_OK)
        return status;
    if (plan->use_rows)
        status = rows_run_image(plan, image);
    else if (plan->vote == NULL)
        ref_vote(plan, image->data, image->height > 1 ? image->stride : image->width, plan->acc);
    else
        status = votecl_vote_run_image(plan->vote, image, plan->acc, &plan->last);
    if (status != VOTECL_OK)
        return status;
    plan->have_acc = 1;
    if (stats != NULL)
        *stats = plan->last;
    return VOTECL_OK;
}

votecl_status
votecl_hough_plan_peaks(votecl_hough_plan *plan, const uint32_t *accumulator,
                        votecl_hough_line *lines, size_t capacity, size_t *found)
{
    const votecl_hough_params *p;
    votecl_status status;

    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    p = &plan->params;
    if (accumulator == NULL || found == NULL || (lines == NULL && capacity > 0))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            accumulator == NULL ? "accumulator"
                            : found == NULL     ? "found"
                                                : "lines");
    status = votecl__hough_peaks(&plan->desc, accumulator, p->peak_window, p->peak_threshold,
                                 p->max_lines, p->merge_distance, lines, capacity, found);
    if (status != VOTECL_OK)
        return votecl__fail(plan->context, status, "out of memory for peak extraction");
    return VOTECL_OK;
}

/* With params.segments: every segment of lines[0, n) in the edge image data. */
static votecl_status
find_segments(votecl_hough_plan *plan, const uint8_t *data, size_t stride, votecl_hough_line *lines,
              size_t n)
{
    const votecl_hough_params *p = &plan->params;

    if (!p->segments)
        return VOTECL_OK;
    if (votecl__hough_segments(&plan->desc, data, stride, p->min_length, p->max_gap, lines, n,
                               &plan->segments) != VOTECL_OK)
        return votecl__segment_failed(plan->context, &plan->segments);
    return VOTECL_OK;
}

votecl_status
votecl_hough_plan_segments(const votecl_hough_plan *plan, const votecl_segment **segments,
                           size_t *count)
{
    return plan == NULL ? VOTECL_INVALID_ARGUMENT
                        : votecl__segment_get(&plan->segments, segments, count);
}

votecl_status
votecl_hough_run(votecl_hough_plan *plan, const votecl_image *image, votecl_hough_line *lines,
                 size_t capacity, size_t *found, votecl_vote_stats *stats)
{
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    if ((status = votecl__results_check(plan->context, found, lines, capacity, "lines")) !=
        VOTECL_OK)
        return status;
    plan->segments.n = 0;
    if ((status = check_image(plan, image)) != VOTECL_OK ||
        (status = vote(plan, image, stats)) != VOTECL_OK ||
        (status = votecl_hough_plan_peaks(plan, plan->acc, lines, capacity, found)) != VOTECL_OK)
        return status;
    return find_segments(plan, image->data, image->height > 1 ? image->stride : image->width, lines,
                         *found < capacity ? *found : capacity);
}

votecl_status
votecl_hough_run_buffers(votecl_hough_plan *plan, votecl_buffer *image, votecl_buffer *accumulator)
{
    const votecl__hough_desc *d;
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    d = &plan->desc;
    if ((status = votecl__buffer_check(plan->context, image, (size_t)d->width * d->height,
                                       "image")) != VOTECL_OK ||
        (status = votecl__buffer_check(plan->context, accumulator, (size_t)d->angles * d->nbins * 4,
                                       "accumulator")) != VOTECL_OK)
        return status;
    if (plan->use_rows)
        return votecl__hough_rows_vote(&plan->rows, image, accumulator);
    if (plan->vote != NULL)
        return votecl_vote_run_buffers(plan->vote, image, d->width, d->height, accumulator);
    ref_vote(plan, image->handle, d->width, accumulator->handle);
    return VOTECL_OK;
}

votecl_status
votecl_hough_plan_last_stats(votecl_hough_plan *plan, votecl_vote_stats *stats)
{
    votecl_status status;

    if (plan == NULL || stats == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (plan->use_rows) {
        size_t elements = (size_t)plan->desc.width * plan->desc.height;
        if ((status = votecl__hough_rows_kept(&plan->rows, &plan->last.kept)) != VOTECL_OK)
            return status;
        plan->last.elements = elements;
        plan->last.eta = (double)plan->last.kept / (double)elements;
    }
    if (plan->vote != NULL)
        return votecl_vote_plan_last_stats(plan->vote, stats);
    *stats = plan->last;
    return VOTECL_OK;
}

votecl_status
votecl_hough_plan_describe(const votecl_hough_plan *plan, size_t elements,
                           votecl_vote_plan_info *info)
{
    if (plan == NULL || info == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (plan->vote != NULL)
        return votecl_vote_plan_describe(plan->vote, elements, info);
    if (plan->use_rows) {
        votecl__hough_rows_describe(&plan->rows, info);
        return VOTECL_OK;
    }
    memset(info, 0, sizeof *info);
    info->nbins = plan->desc.nbins;
    info->spaces = plan->desc.angles;
    info->stretch = info->stretch_s = info->parts = info->passes = info->copies = 1;
    info->work_group_size = 1;
    return VOTECL_OK;
}

/* --- the gray path: edges, vote and peak candidates on the device --- */

/* Candidate pairs read with the count in one transfer; more only when more were found. */
#define GRAY_FIRST_READ 512u

/* Compiles cl/hough.cl and allocates the buffers, once per plan. */
static votecl_status
gray_setup(votecl_hough_plan *plan)
{
    static const char *const files[] = {"hough.cl", NULL};
    const votecl__hough_desc *d = &plan->desc;
    long half = (long)(plan->params.peak_window / 2), n = (long)d->nbins + 2 * half;
    size_t pixels = (size_t)d->width * d->height, cells = (size_t)d->angles * d->nbins;
    int32_t *mirror;
    votecl_status status;

    if (plan->gray_ready)
        return VOTECL_OK;
    if (plan->mask == NULL && (plan->mask = votecl__calloc(cells, 1)) == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if ((mirror = votecl__malloc((size_t)n * sizeof *mirror)) == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    for (long b = -half; b < (long)d->nbins + half; b++)
        mirror[b + half] = (int32_t)votecl__hough_mirror_bin(d, b);
    plan->cand_cap = 4096;
    if ((status = votecl_buffer_new(plan->context, pixels, &plan->gray)) != VOTECL_OK ||
        /* a host run on the rows vote may have made these two already */
        (status = votecl__buffer_ensure(plan->context, &plan->edges, pixels)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(plan->context, &plan->dacc, cells * 4)) != VOTECL_OK ||
        (status = votecl_buffer_new(plan->context, (size_t)n * 4, &plan->mirror)) != VOTECL_OK ||
        (status = votecl_buffer_new(plan->context, 8 + 8 * plan->cand_cap, &plan->cand)) !=
            VOTECL_OK ||
        (status = votecl_buffer_write(plan->mirror, 0, mirror, (size_t)n * 4)) != VOTECL_OK)
        goto out;
    {
        votecl__program *program = NULL;
        if ((status = votecl__program_get(plan->context, files, NULL, 0, NULL, &program)) !=
                VOTECL_OK ||
            (status = votecl__program_kernel(plan->context, program, "hough_sobel",
                                             &plan->k_sobel)) != VOTECL_OK ||
            (status = votecl__program_kernel(plan->context, program, "hough_candidates",
                                             &plan->k_candidates)) != VOTECL_OK)
            goto out;
        plan->program = program;
        plan->gray_ready = 1;
    }
out:
    free(mirror);
    return status;
}

/* The GPU shape's edges and vote: hough_sobel, then the engine over the edge image. */
static votecl_status
gray_vote_engine(votecl_hough_plan *plan, unsigned threshold)
{
    const votecl__hough_desc *d = &plan->desc;
    /* 16 x 16 where the device allows (the kernel takes any size: one count per group) */
    size_t wg = plan->context->info.max_work_group_size, ly = wg >= 256  ? 16
                                                              : wg >= 16 ? wg / 16
                                                                         : 1;
    size_t local[2] = {wg >= 16 ? 16 : wg, ly},
           global[2] = {votecl__round_up(d->width, local[0]), votecl__round_up(d->height, ly)};
    votecl_status status =
        votecl__launch(plan->context, plan->k_sobel, 2, global, local,
                       (votecl__arg[]){VOTECL__ARG_BUF(plan->gray), VOTECL__ARG_UINT(d->width),
                                       VOTECL__ARG_UINT(d->height), VOTECL__ARG_UINT(threshold),
                                       VOTECL__ARG_UINT(d->edge_threshold),
                                       VOTECL__ARG_UINT(plan->params.thin_edges != 0),
                                       VOTECL__ARG_BUF(plan->edges), VOTECL__ARG_BUF(plan->cand)},
                       8);

    if (status == VOTECL_OK)
        status = votecl_vote_run_buffers(plan->vote, plan->edges, d->width, d->height, plan->dacc);
    return status;
}

/* Uploads the gray image, computes its edges and votes them into dacc: on a CPU shape the
 * edges are found as the rows vote lists its points (one pass over the image). */
static votecl_status
gray_vote(votecl_hough_plan *plan, const votecl_image *image, unsigned threshold)
{
    const votecl__hough_desc *d = &plan->desc;
    const void *packed;
    void *copy = NULL;
    votecl_status status = votecl__image_packed(plan->context, image, d->width, &packed, &copy);

    if (status == VOTECL_OK)
        status = votecl_buffer_write(plan->gray, 0, packed, (size_t)d->width * d->height);
    free(copy);
    if (status == VOTECL_OK) /* the candidate count and the edge count */
        status = votecl__buffer_zero(plan->cand, 0, 8);
    if (status != VOTECL_OK)
        return status;
    if (plan->use_rows)
        return votecl__hough_rows_vote_gray(&plan->rows, plan->gray, threshold,
                                            plan->params.thin_edges, plan->edges, plan->cand,
                                            plan->dacc);
    return gray_vote_engine(plan, threshold);
}

static votecl_status
gray_launch_candidates(votecl_hough_plan *plan)
{
    const votecl__hough_desc *d = &plan->desc;
    size_t wg = plan->context->info.max_work_group_size, local = wg < 256 ? wg : 256;
    size_t global = votecl__round_up((size_t)d->angles * d->nbins, local);
    votecl_status status = votecl__buffer_zero(plan->cand, 0, 4);

    if (status != VOTECL_OK)
        return status;
    return votecl__launch(
        plan->context, plan->k_candidates, 1, &global, &local,
        (votecl__arg[]){
            VOTECL__ARG_BUF(plan->dacc), VOTECL__ARG_UINT(d->angles), VOTECL__ARG_UINT(d->nbins),
            VOTECL__ARG_INT(plan->params.peak_window / 2),
            VOTECL__ARG_UINT(votecl__hough_peak_threshold(d, plan->params.peak_threshold)),
            VOTECL__ARG_BUF(plan->mirror), VOTECL__ARG_UINT(plan->cand_cap),
            VOTECL__ARG_UINT(d->opencv_peaks), VOTECL__ARG_BUF(plan->cand)},
        9);
}

/* The candidates of dacc into *pairs (malloc'd, caller frees) and their number into *n, the
 * edge count into *kept: one read of the counts and the first pairs, a second for the rest,
 * and a relaunch with room for all when they overflowed the buffer. */
static votecl_status
gray_candidates(votecl_hough_plan *plan, uint32_t **pairs, size_t *n, size_t *kept)
{
    size_t first = GRAY_FIRST_READ < plan->cand_cap ? GRAY_FIRST_READ : plan->cand_cap;
    uint32_t *head = NULL;
    votecl_status status = gray_launch_candidates(plan);

    *pairs = NULL;
    if (status == VOTECL_OK && (head = votecl__malloc(8 + 8 * first)) == NULL)
        status = votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if (status == VOTECL_OK)
        status = votecl_buffer_read(plan->cand, 0, head, 8 + 8 * first);
    if (status == VOTECL_OK)
        *kept = head[1];
    if (status == VOTECL_OK && head[0] > plan->cand_cap) { /* overflowed: room for all, again */
        plan->cand_cap = head[0];
        if ((status = votecl__buffer_ensure(plan->context, &plan->cand, 8 + 8 * plan->cand_cap)) ==
                VOTECL_OK &&
            (status = gray_launch_candidates(plan)) == VOTECL_OK)
            status = votecl_buffer_read(plan->cand, 0, head, 8 + 8 * first);
    }
    if (status == VOTECL_OK) {
        *n = head[0];
        if ((*pairs = votecl__malloc(8 * (*n > 0 ? *n : 1))) == NULL)
            status = votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    }
    if (status == VOTECL_OK) {
        memcpy(*pairs, head + 2, 8 * (*n < first ? *n : first));
        if (*n > first)
            status =
                votecl_buffer_read(plan->cand, 8 + 8 * first, *pairs + 2 * first, 8 * (*n - first));
    }
    free(head);
    return status;
}

/* The device's run: lines from the candidates; the edges come back only for segments. */
static votecl_status
gray_device(votecl_hough_plan *plan, const votecl_image *image, unsigned threshold,
            votecl_hough_line *lines, size_t capacity, size_t *found)
{
    const votecl_hough_params *p = &plan->params;
    uint32_t *pairs = NULL;
    size_t n = 0, kept = 0, elements = (size_t)plan->desc.width * plan->desc.height;
    votecl_status status;

    if ((status = gray_setup(plan)) != VOTECL_OK ||
        (status = gray_vote(plan, image, threshold)) != VOTECL_OK ||
        (status = gray_candidates(plan, &pairs, &n, &kept)) != VOTECL_OK)
        goto out;
    /* the engine's stage 1 keeps the same pixels hough_sobel counted: its own count would
     * cost a transfer of its own */
    plan->last.elements = elements;
    plan->last.kept = kept;
    plan->last.eta = (double)kept / (double)elements;
    plan->rows.kept = kept;
    plan->rows.pending = 0;
    plan->acc_on_device = 1;
    if ((status = votecl__hough_peaks_from(&plan->desc, pairs, n, p->peak_window, p->max_lines,
                                           p->merge_distance, plan->mask, lines, capacity,
                                           found)) != VOTECL_OK) {
        status = votecl__fail(plan->context, status, "out of memory for peak extraction");
        goto out;
    }
    if (p->segments && *found > 0)
        status = votecl_buffer_read(plan->edges, 0, plan->edges_host,
                                    (size_t)plan->desc.width * plan->desc.height);
out:
    free(pairs);
    return status;
}

/* The ref backend's run: the same steps on the host. */
static votecl_status
gray_ref(votecl_hough_plan *plan, const votecl_image *image, unsigned threshold,
         votecl_hough_line *lines, size_t capacity, size_t *found)
{
    const votecl__hough_desc *d = &plan->desc;
    votecl_status status = ensure_acc(plan);

    if (status != VOTECL_OK)
        return status;
    votecl__hough_sobel(image->data, image->height > 1 ? image->stride : image->width, d->width,
                        d->height, threshold, plan->params.thin_edges != 0, plan->edges_host,
                        d->width);
    ref_vote(plan, plan->edges_host, d->width, plan->acc);
    plan->have_acc = 1;
    return votecl_hough_plan_peaks(plan, plan->acc, lines, capacity, found);
}

votecl_status
votecl_hough_run_gray(votecl_hough_plan *plan, const votecl_image *image, unsigned sobel_threshold,
                      votecl_hough_line *lines, size_t capacity, size_t *found,
                      votecl_vote_stats *stats)
{
    const votecl__hough_desc *d;
    size_t row_bytes, pixels;
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    d = &plan->desc;
    if ((status = votecl__results_check(plan->context, found, lines, capacity, "lines")) !=
        VOTECL_OK)
        return status;
    if ((status = votecl__image_check(plan->context, image, VOTECL_DTYPE_U8, 1, &row_bytes,
                                      &pixels)) != VOTECL_OK)
        return status;
    if (image->width != d->width || image->height != d->height)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image.width, image.height: %zu x %zu is not the plan's %u x %u",
                            image->width, image->height, d->width, d->height);
    if (plan->edges_host == NULL &&
        (plan->edges_host = votecl__malloc((size_t)d->width * d->height)) == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for the edge image");
    plan->have_acc = 0;
    plan->acc_on_device = 0;
    plan->segments.n = 0;
    status = plan->vote == NULL && !plan->use_rows
                 ? gray_ref(plan, image, sobel_threshold, lines, capacity, found)
                 : gray_device(plan, image, sobel_threshold, lines, capacity, found);
    if (status == VOTECL_OK)
        status = find_segments(plan, plan->edges_host, d->width, lines,
                               *found < capacity ? *found : capacity);
    if (status != VOTECL_OK)
        return status;
    if (stats != NULL)
        *stats = plan->last;
    return VOTECL_OK;
}
