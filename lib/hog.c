/* HOG detector: validate, plan the pyramid levels of every region of interest
 * (lib/hog-jobs.c), run the stages of cl/hog.cl on every level through the implementation
 * chosen once per detector (lib/hog-detector.h: the reference on the 'ref' backend, cl/hog.cl's
 * block kernels, or cl/hog-cpu.cl's row kernels on a CPU-shaped OpenCL device), read the
 * windows at or above the threshold back and fuse them on the host (lib/hog-fuse.c). */
#include "hog-detector.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the implementations --- */

static const votecl__hog_stages block_stages = {
    .prepare = votecl__hog_prepare_block,
    .buffers = votecl__hog_buffers_block,
    .gradient = votecl__hog_gradient_block,
    .blocks = votecl__hog_blocks_block,
    .svm = votecl__hog_svm_block,
    .windows = votecl__hog_windows_block,
};

static const votecl__hog_stages row_stages = {
    .prepare = votecl__hog_prepare_rows,
    .buffers = votecl__hog_buffers_rows,
    .gradient = votecl__hog_gradient_rows,
    .blocks = votecl__hog_blocks_rows,
    .svm = votecl__hog_svm_rows,
    .windows = votecl__hog_windows_rows,
};

const votecl__hog_impl votecl__hog_ref_impl = {
    .name = "reference",
    .tile = 1,
    .layout = &votecl__hog_layout_packed,
    .run = &votecl__hog_run_host,
};

const votecl__hog_impl votecl__hog_block_impl = {
    .name = "block",
    .tile = 1,
    .layout = &votecl__hog_layout_packed,
    .run = &votecl__hog_run_device,
    .stages = &block_stages,
};

/* Rows of HOG_PX_LOCAL pixels: the per-pixel kernels' work-group along a row (HOG_TILE). */
const votecl__hog_impl votecl__hog_row_impl = {
    .name = "row",
    .tile = HOG_PX_LOCAL,
    .layout = &votecl__hog_layout_rows,
    .run = &votecl__hog_run_device,
    .stages = &row_stages,
};

/* The reference on the 'ref' backend; CPU-shaped devices (the context's shape) the row
 * kernels: no local memory or barriers, work-groups of HOG_PX_LOCAL along a row. They use
 * 8-wide vectors (vload8, convert_float8), outside cl/prelude.h's portable subset, so they are
 * OpenCL's only: a CPU shape forced on CUDA keeps the block kernels. */
const votecl__hog_impl *
votecl__hog_impl_choose(const votecl_context *context)
{
    if (context->backend == VOTECL_BACKEND_REF)
        return &votecl__hog_ref_impl;
    if (context->shape.cpu && context->backend == VOTECL_BACKEND_OPENCL &&
        context->info.max_work_group_size >= HOG_PX_LOCAL)
        return &votecl__hog_row_impl;
    return &votecl__hog_block_impl;
}

void
votecl_hog_params_init(votecl_hog_params *p)
{
    VOTECL__PARAMS_INIT_OR_RETURN(p);
    p->window_width = 64;
    p->window_height = 128;
    p->block_width = p->block_height = 16;
    p->block_stride_x = p->block_stride_y = 8;
    p->cell_width = p->cell_height = 8;
    p->nbins = 9;
    p->window_stride_x = p->window_stride_y = 8;
    p->gamma = 1;
    p->colour = 1;
    p->l2hys_threshold = 0.2f;
    p->scale = 1.05;
    p->min_scale = 1.0;
    p->max_levels = VOTECL_HOG_MAX_LEVELS;
    /* detectMultiScale's boxes exactly; mean-shift adds boxes OpenCV drops (docs/accuracy.md) */
    p->fusion = VOTECL_HOG_FUSION_GROUP;
    p->group_threshold = 2;
    /* Dalal's thesis, section 5.1: sigma_x = 8, sigma_y = 16 pixels, sigma_s = log(1.3) */
    p->meanshift_sigma_x = 8;
    p->meanshift_sigma_y = 16;
    p->meanshift_sigma_scale = log(1.3);
}

votecl_status
votecl_hog_descriptor_length(const votecl_hog_params *params, size_t *length)
{
    votecl__hog_geom g;
    char msg[256];
    votecl_status status;

    if (params == NULL || length == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if ((status = votecl__hog_geom_init(&g, params, msg, sizeof msg)) != VOTECL_OK)
        return status;
    *length = g.desc_len;
    return VOTECL_OK;
}

/* --- validation --- */

#define BAD(...) (snprintf(msg, msg_size, __VA_ARGS__), VOTECL_INVALID_ARGUMENT)

static votecl_status
check_sizes(const votecl_hog_params *p, char *msg, size_t msg_size)
{
    if (p->window_width < 1 || p->window_height < 1 || p->window_width > VOTECL_HOG_MAX_SIDE ||
        p->window_height > VOTECL_HOG_MAX_SIDE)
        return BAD("window_width, window_height: %ux%u is not within 1 to %u", p->window_width,
                   p->window_height, VOTECL_HOG_MAX_SIDE);
    if (p->cell_width < 1 || p->cell_height < 1)
        return BAD("cell_width, cell_height: must be at least 1");
    if (p->block_width < p->cell_width || p->block_height < p->cell_height ||
        p->block_width % p->cell_width != 0 || p->block_height % p->cell_height != 0)
        return BAD("block_width, block_height: %ux%u is not a multiple of the %ux%u cell",
                   p->block_width, p->block_height, p->cell_width, p->cell_height);
    if (p->block_width > p->window_width || p->block_height > p->window_height)
        return BAD("block_width, block_height: the block exceeds the window");
    if (p->block_stride_x < 1 || p->block_stride_y < 1 ||
        (p->window_width - p->block_width) % p->block_stride_x != 0 ||
        (p->window_height - p->block_height) % p->block_stride_y != 0)
        return BAD("block_stride_x, block_stride_y: %ux%u does not tile the window",
                   p->block_stride_x, p->block_stride_y);
    if (p->window_stride_x < 1 || p->window_stride_y < 1)
        return BAD("window_stride_x, window_stride_y: must be at least 1");
    if (p->padding_x > VOTECL_HOG_MAX_SIDE || p->padding_y > VOTECL_HOG_MAX_SIDE)
        return BAD("padding_x, padding_y: exceeds %u", VOTECL_HOG_MAX_SIDE);
    return VOTECL_OK;
}

/* The enumerated fields. */
static votecl_status
check_modes(const votecl_hog_params *p, char *msg, size_t msg_size)
{
    if ((int)p->block_norm < (int)VOTECL_HOG_NORM_L2HYS ||
        (int)p->block_norm > (int)VOTECL_HOG_NORM_L2)
        return BAD("block_norm: %d is not a votecl_hog_block_norm (L2-Hys 0, L1 1, L1-sqrt 2, "
                   "L2 3)",
                   (int)p->block_norm);
    if (p->binning != VOTECL_HOG_BINNING_TRILINEAR && p->binning != VOTECL_HOG_BINNING_HARD)
        return BAD("binning: %d is not a votecl_hog_binning (trilinear 0, hard 1)",
                   (int)p->binning);
    if (p->fusion != VOTECL_HOG_FUSION_NONE && p->fusion != VOTECL_HOG_FUSION_MEANSHIFT &&
        p->fusion != VOTECL_HOG_FUSION_GROUP)
        return BAD("fusion: %d is not a votecl_hog_fusion", (int)p->fusion);
    return VOTECL_OK;
}

static votecl_status
check_rest(const votecl_hog_params *p, char *msg, size_t msg_size)
{
    unsigned cells = (p->block_width / p->cell_width) * (p->block_height / p->cell_height);

    if (cells > VOTECL__HOG_MAX_CELLS)
        return BAD("cell_width, cell_height: %u cells per block exceed %u", cells,
                   VOTECL__HOG_MAX_CELLS);
    if (p->nbins < 1 || p->nbins > VOTECL_HOG_MAX_BINS)
        return BAD("nbins: %u is not within 1 to %u", p->nbins, VOTECL_HOG_MAX_BINS);
    if (!(p->l2hys_threshold > 0.0f) || !isfinite(p->l2hys_threshold))
        return BAD("l2hys_threshold: must be positive");
    if (!isfinite(p->scale) || !isfinite(p->min_scale) || p->min_scale <= 0.0 ||
        !isfinite(p->max_scale) || p->max_scale < 0.0)
        return BAD("scale, min_scale, max_scale: must be finite, min_scale positive");
    if (p->max_levels < 1 || p->max_levels > VOTECL_HOG_MAX_LEVELS)
        return BAD("max_levels: %u is not within 1 to %u", p->max_levels, VOTECL_HOG_MAX_LEVELS);
    if (!isfinite(p->hit_threshold))
        return BAD("hit_threshold: must be finite");
    if (!(p->meanshift_sigma_x > 0) || !(p->meanshift_sigma_y > 0) ||
        !(p->meanshift_sigma_scale > 0))
        return BAD("meanshift_sigma_x, meanshift_sigma_y, meanshift_sigma_scale: must be "
                   "positive");
    return VOTECL_OK;
}

votecl_status
votecl__hog_geom_init(votecl__hog_geom *g, const votecl_hog_params *p, char *msg, size_t msg_size)
{
    votecl_status status = votecl__struct_size_message(p, "params", sizeof *p, msg, msg_size);

    if (status == VOTECL_OK)
        status = check_sizes(p, msg, msg_size);
    if (status == VOTECL_OK)
        status = check_rest(p, msg, msg_size);
    if (status == VOTECL_OK)
        status = check_modes(p, msg, msg_size);
    if (status != VOTECL_OK)
        return status;
    votecl__hog_geom_derive(g, p);
    return VOTECL_OK;
}

/* --- construction --- */

static votecl_status
hog_init(votecl_hog *hog, const votecl_hog_model *model)
{
    const votecl__hog_geom *g = &hog->geom;
    size_t length;
    const float *w;
    float bias;
    votecl_status status;

    hog->impl = votecl__hog_impl_choose(hog->context);
    hog->tile = hog->impl->tile;
    if (model != NULL) {
        if (!votecl__hog_model_fits(model, &hog->params))
            return votecl__fail(hog->context, VOTECL_INCOMPATIBLE,
                                "model: its window, block or bins differ from params'");
        votecl_hog_model_get(model, &length, &w, &bias);
        status = votecl_hog_model_new(hog->context, &hog->params, w, length, bias, &hog->model);
        if (status != VOTECL_OK)
            return status;
    }
    votecl__hog_gamma_table(g->gamma, hog->lut);
    hog->block_weights =
        votecl__malloc((size_t)g->block_w * g->block_h * g->ncells * sizeof(float));
    if (hog->block_weights == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    votecl__hog_block_weights(g, hog->block_weights);
    return hog->impl->stages != NULL ? hog->impl->stages->prepare(hog) : VOTECL_OK;
}

votecl_status
votecl_hog_new(votecl_context *context, const votecl_hog_params *params,
               const votecl_hog_model *model, votecl_hog **out)
{
    votecl_hog *hog;
    char msg[256];
    votecl_status status;

    if (context == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(context);
    if (params == NULL || out == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "params, out: NULL pointer");
    *out = NULL;
    /* before the copy below: a smaller struct_size means a smaller struct to read from */
    if ((status = votecl__struct_size_check(context, params, "params", sizeof *params)) !=
        VOTECL_OK)
        return status;
    if ((hog = votecl__calloc(1, sizeof *hog)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    hog->context = context;
    hog->params = *params;
    status = votecl__hog_geom_init(&hog->geom, params, msg, sizeof msg);
    if (status != VOTECL_OK)
        status = votecl__fail(context, status, "%s", msg);
    else
        status = hog_init(hog, model);
    if (status != VOTECL_OK) {
        votecl_hog_free(hog);
        return status;
    }
    *out = hog;
    return VOTECL_OK;
}

int
votecl__hog_cpu_rows(const votecl_hog *hog)
{
    return hog != NULL && hog->impl == &votecl__hog_row_impl;
}

#ifdef VOTECL_HOG_PROFILE
/* The detector's profile through the debug log: printed only when VOTECL_DEBUG is set. */
static void
log_stats(const votecl_hog *hog)
{
    const votecl__hog_stats *st = &hog->stats;
    double n = st->detections ? (double)st->detections : 1;

    votecl__log(hog->context,
                "hog profile (ms per detect, %lu calls): upload %.3f gradient %.3f blocks %.3f "
                "svm %.3f",
                st->detections, 1e3 * st->upload / n, 1e3 * st->gradient / n, 1e3 * st->blocks / n,
                1e3 * st->svm / n);
}
#endif

void
votecl_hog_free(votecl_hog *hog)
{
    votecl_buffer **b;

    if (hog == NULL)
        return;
#ifdef VOTECL_HOG_PROFILE
    log_stats(hog);
#endif
    b = (votecl_buffer **)&hog->buf;
    if (hog->begun && hog->impl->stages != NULL)
        (void)hog->context->ops->finish(hog->context);
    for (size_t i = 0; i < sizeof hog->buf / sizeof *b; i++)
        votecl_buffer_free(b[i]);
    votecl_hog_model_free(hog->model);
    free(hog->block_weights);
    votecl__staging_free(hog->context, &hog->conv);
    free(hog->plan_rois);
    free(hog->jobs);
    free(hog->tabs);
    votecl__staging_free(hog->context, &hog->scores_mem);
    free(hog->raw);
    free(hog);
}

votecl_status
votecl_hog_windows(const votecl_hog *hog, size_t width, size_t height, size_t *columns,
                   size_t *rows)
{
    votecl__hog_level l;

    if (hog == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (width > VOTECL_HOG_MAX_SIDE || height > VOTECL_HOG_MAX_SIDE ||
        !votecl__hog_level_init(&hog->geom, &hog->params, (uint32_t)width, (uint32_t)height, 1.0,
                                &l))
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "image.width, image.height: %zux%zu padded by %ux%u holds no "
                            "%ux%u window",
                            width, height, hog->params.padding_x, hog->params.padding_y,
                            hog->geom.win_w, hog->geom.win_h);
    if (columns != NULL)
        *columns = l.nwx;
    if (rows != NULL)
        *rows = l.nwy;
    return VOTECL_OK;
}

/* --- the source image --- */

static votecl_status
hog_take_image(votecl_hog *hog, const votecl_image *image)
{
    size_t row_bytes, pixels, size;
    votecl_status status =
        votecl__image_check(hog->context, image, VOTECL_DTYPE_U8, 0, &row_bytes, &pixels);

    if (status != VOTECL_OK)
        return status;
    if (image->channels == 2)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "image.channels: 2 is not 1, 3 or 4");
    if (image->width < 1 || image->height < 1 || image->width > VOTECL_HOG_MAX_SIDE ||
        image->height > VOTECL_HOG_MAX_SIDE)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "image.width, image.height: %zux%zu is not within 1 to %u a side",
                            image->width, image->height, VOTECL_HOG_MAX_SIDE);
    hog->ch = image->channels >= 3 && hog->geom.colour ? 3 : 1;
    hog->source = NULL;
    size = pixels * hog->ch;
    if ((status = votecl__staging_ensure(hog->context, &hog->conv, size)) != VOTECL_OK)
        return status;
    votecl__hog_ref_convert(image->data, image->height > 1 ? image->stride : row_bytes,
                            (uint32_t)image->width, (uint32_t)image->height, image->channels,
                            hog->geom.colour, (uint8_t *)hog->conv.ptr);
    hog->conv_w = image->width;
    hog->conv_h = image->height;
    return VOTECL_OK;
}

/* --- planning: the levels of every region --- */

/* The jobs and their tables for the image taken, skipped when its size and channels, the
 * regions and the pyramid flag are the last plan's (a video's frames): the jobs, the tables
 * and the tables on the device are then current. */
static votecl_status
plan(votecl_hog *hog, const votecl_hog_rect *rois, size_t nrois, int pyramid)
{
    votecl_status status;

    if (hog->planned && hog->plan_w == hog->conv_w && hog->plan_h == hog->conv_h &&
        hog->plan_ch == hog->ch && hog->plan_pyramid == pyramid && hog->plan_nrois == nrois &&
        (nrois == 0 || (rois != NULL && memcmp(hog->plan_rois, rois, nrois * sizeof *rois) == 0)))
        return VOTECL_OK;
    if ((status = votecl__hog_jobs_plan(hog, rois, nrois, pyramid)) != VOTECL_OK ||
        (status = votecl__hog_jobs_tables(hog)) != VOTECL_OK)
        return status;
    free(hog->plan_rois);
    hog->plan_rois = NULL;
    /* the memo is only a saving: without room for the regions, the next call plans again */
    if (nrois > 0 && (nrois > SIZE_MAX / sizeof *rois ||
                      (hog->plan_rois = votecl__malloc(nrois * sizeof *rois)) == NULL))
        return VOTECL_OK;
    if (nrois > 0)
        memcpy(hog->plan_rois, rois, nrois * sizeof *rois);
    hog->plan_w = hog->conv_w;
    hog->plan_h = hog->conv_h;
    hog->plan_ch = hog->ch;
    hog->plan_pyramid = pyramid;
    hog->plan_nrois = nrois;
    hog->planned = 1;
    return VOTECL_OK;
}

/* --- descriptors --- */

votecl_status
votecl_hog_compute(votecl_hog *hog, const votecl_image *image, float *descriptors, size_t capacity,
                   size_t *count)
{
    const votecl__hog_level *l;
    float *hist = NULL;
    size_t need, windows;
    votecl_status s;

    if (hog == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(hog->context);
    if (count == NULL || hog->begun)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            count == NULL ? "count: NULL pointer" : "hog: a detection is begun");
    if ((s = hog_take_image(hog, image)) || (s = votecl__hog_jobs_plan(hog, NULL, 0, 0)))
        return s;
    if (hog->njobs == 0)
        return votecl_hog_windows(hog, image->width, image->height, NULL, NULL);
    l = &hog->jobs[0].level;
    windows = (size_t)l->nwx * l->nwy;
    if (votecl__mul_overflow(windows, hog->geom.desc_len, &need) || need > capacity ||
        descriptors == NULL) {
        *count = windows;
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "capacity: %zu windows need %zu floats", windows,
                            windows * hog->geom.desc_len);
    }
    /* Nothing reaches the caller's memory until every step has succeeded. */
    if ((s = votecl__hog_jobs_tables(hog)) || (s = hog->impl->run->descriptor_blocks(hog, &hist)))
        return s;
    for (uint32_t wy = 0; wy < l->nwy; wy++)
        for (uint32_t wx = 0; wx < l->nwx; wx++)
            votecl__hog_gather(&hog->geom, l, hist, wx, wy,
                               descriptors + ((size_t)wy * l->nwx + wx) * hog->geom.desc_len);
    free(hist);
    *count = windows;
    return VOTECL_OK;
}

/* --- detection --- */

/* A detection's output arguments. */
static votecl_status
check_output(votecl_hog *hog, const votecl_hog_detection *detections, size_t capacity,
             const size_t *found)
{
    if (found == NULL || (detections == NULL && capacity > 0))
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "found, detections: NULL pointer");
    return VOTECL_OK;
}

votecl_status
votecl_hog_detect_begin(votecl_hog *hog, const votecl_image *image, const votecl_hog_rect *rois,
                        size_t nrois)
{
    votecl_status s;

    if (hog == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(hog->context);
    if (hog->begun)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "hog: a detection is already begun");
    if (hog->model == NULL)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "model: the detector was made without a model");
    if ((s = hog_take_image(hog, image)) || (s = plan(hog, rois, nrois, 1)))
        return s;
    hog->stats.detections++;
    if (hog->njobs > 0)
        s = hog->impl->run->detect(hog);
    hog->begun = s == VOTECL_OK;
    return s;
}

/* The caller's device image as the source: used where it lies when its layout is the one the
 * kernels read (gray, or three colour channels with colour on); read back to the host on the
 * ref backend. */
static votecl_status
hog_take_buffer(votecl_hog *hog, votecl_buffer *image, size_t width, size_t height,
                unsigned channels)
{
    votecl_image view = {NULL, width, height, width * channels, channels, VOTECL_DTYPE_U8};
    size_t bytes = width * height * channels;
    void *host;
    votecl_status s;

    if (image == NULL || image->context != hog->context)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT, "image: %s",
                            image == NULL ? "NULL buffer" : "a buffer of another context");
    if (channels != 1 && !(channels == 3 && hog->geom.colour))
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "channels: a device image is gray (1) or, with colour on, 3 "
                            "channels (other conversions run on the host: votecl_hog_detect)");
    if (width < 1 || height < 1 || width > VOTECL_HOG_MAX_SIDE || height > VOTECL_HOG_MAX_SIDE)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "width, height: %zux%zu is not within 1 to %u a side", width, height,
                            VOTECL_HOG_MAX_SIDE);
    if (bytes > image->size)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "image: %zu bytes needed, the buffer has %zu", bytes, image->size);
    if (hog->impl->stages != NULL) {
        hog->ch = channels;
        hog->conv_w = width;
        hog->conv_h = height;
        hog->source = image;
        return VOTECL_OK;
    }
    if ((host = votecl__malloc(bytes)) == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    view.data = host;
    if ((s = votecl_buffer_read(image, 0, host, bytes)) == VOTECL_OK)
        s = hog_take_image(hog, &view);
    free(host);
    return s;
}

votecl_status
votecl_hog_detect_buffer(votecl_hog *hog, votecl_buffer *image, size_t width, size_t height,
                         unsigned channels, const votecl_hog_rect *rois, size_t nrois,
                         votecl_hog_detection *detections, size_t capacity, size_t *found)
{
    votecl_status s;

    if (hog == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(hog->context);
    if ((s = check_output(hog, detections, capacity, found)) != VOTECL_OK)
        return s;
    if (hog->begun || hog->model == NULL)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT, "%s",
                            hog->begun ? "hog: a detection is already begun"
                                       : "model: the detector was made without a model");
    if ((s = hog_take_buffer(hog, image, width, height, channels)) ||
        (s = plan(hog, rois, nrois, 1)))
        return s;
    if (hog->njobs > 0)
        s = hog->impl->run->detect(hog);
    hog->begun = s == VOTECL_OK;
    return s == VOTECL_OK ? votecl_hog_detect_end(hog, detections, capacity, found) : s;
}

/* Waits for the begun work and keeps the windows at or above the threshold in hog->raw. */
static votecl_status
end_raw(votecl_hog *hog)
{
    if (!hog->begun)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT, "hog: nothing was begun");
    hog->begun = 0;
    hog->nraw = 0;
    return hog->impl->run->read_windows(hog);
}

votecl_status
votecl_hog_detect_end(votecl_hog *hog, votecl_hog_detection *detections, size_t capacity,
                      size_t *found)
{
    votecl_status s;

    if (hog == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if ((s = check_output(hog, detections, capacity, found)) != VOTECL_OK)
        return s;
    VOTECL__ENTER_OR_RETURN(hog->context);
    if ((s = end_raw(hog)) != VOTECL_OK)
        return s;
    return votecl__hog_fuse_checked(hog->context, &hog->params, hog->raw, hog->nraw, hog->conv_w,
                                    hog->conv_h, detections, capacity, found);
}

votecl_status
votecl_hog_detect(votecl_hog *hog, const votecl_image *image, const votecl_hog_rect *rois,
                  size_t nrois, votecl_hog_detection *detections, size_t capacity, size_t *found)
{
    votecl_status s;

    if (hog == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if ((s = check_output(hog, detections, capacity, found)) != VOTECL_OK)
        return s;
    VOTECL__ENTER_OR_RETURN(hog->context); /* begin and end as one call */
    s = votecl_hog_detect_begin(hog, image, rois, nrois);
    return s == VOTECL_OK ? votecl_hog_detect_end(hog, detections, capacity, found) : s;
}

votecl_status
votecl_hog_last_windows(const votecl_hog *hog, votecl_hog_detection *detections, size_t capacity,
                        size_t *found)
{
    if (hog == NULL || found == NULL || (detections == NULL && capacity > 0))
        return VOTECL_INVALID_ARGUMENT;
    *found = hog->nraw;
    if (capacity > 0 && hog->nraw > 0) /* raw is NULL before any window was kept */
        memcpy(detections, hog->raw,
               (capacity < hog->nraw ? capacity : hog->nraw) * sizeof *detections);
    return VOTECL_OK;
}

/* Regions round-robin over the detectors: begin them all, then wait for each. */
static votecl_status
multi_begin(votecl_hog *const *hogs, size_t n, const votecl_image *image,
            const votecl_hog_rect *rois, size_t nrois, votecl_hog_rect *mine)
{
    votecl_status s = VOTECL_OK;

    for (size_t h = 0; h < n && s == VOTECL_OK; h++) {
        size_t k = 0;

        for (size_t i = h; i < nrois; i += n)
            mine[k++] = rois[i];
        if (nrois == 0 && h > 0)
            continue;
        if (nrois > 0 && k == 0)
            continue;
        s = votecl_hog_detect_begin(hogs[h], image, mine, k);
    }
    return s;
}

votecl_status
votecl_hog_detect_multi(votecl_hog *const *hogs, size_t n, const votecl_image *image,
                        const votecl_hog_rect *rois, size_t nrois, votecl_hog_detection *detections,
                        size_t capacity, size_t *found)
{
    votecl_hog_rect *mine;
    votecl_hog_detection *all = NULL;
    size_t nall = 0;
    votecl_status s, e = VOTECL_OK;

    if (hogs == NULL || n == 0 || found == NULL || (rois == NULL && nrois > 0))
        return VOTECL_INVALID_ARGUMENT;
    for (size_t h = 0; h < n; h++)
        if (hogs[h] == NULL)
            return votecl__fail(hogs[0] != NULL ? hogs[0]->context : NULL, VOTECL_INVALID_ARGUMENT,
                                "hogs[%zu]: NULL pointer", h);
    if ((mine = votecl__malloc((nrois / n + 1) * sizeof *mine)) == NULL)
        return votecl__fail(hogs[0]->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    s = multi_begin(hogs, n, image, rois, nrois, mine);
    for (size_t h = 0; h < n; h++) {
        votecl_hog_detection *grown;

        if (!hogs[h]->begun)
            continue;
        e = end_raw(hogs[h]);
        s = s == VOTECL_OK ? e : s;
        grown = votecl__realloc(all, (nall + hogs[h]->nraw + 1) * sizeof *all);
        if (grown == NULL) {
            s = votecl__fail(hogs[0]->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
            continue;
        }
        all = grown;
        memcpy(all + nall, hogs[h]->raw, hogs[h]->nraw * sizeof *all);
        nall += hogs[h]->nraw;
    }
    if (s == VOTECL_OK)
        s = votecl__hog_fuse_checked(hogs[0]->context, &hogs[0]->params, all, nall, hogs[0]->conv_w,
                                     hogs[0]->conv_h, detections, capacity, found);
    free(all);
    free(mine);
    return s;
}
