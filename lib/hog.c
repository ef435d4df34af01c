/* HOG detector: validate, plan the pyramid levels of every region of interest, run the six
 * stages of cl/hog.cl per level (CPU devices: cl/hog-cpu.cl; lib/hog-ref.c on the 'ref'
 * backend), read the window scores back and fuse them on the host (lib/hog-fuse.c). */
#include "hog-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_GRADIENT, K_BLOCKS, K_SVM, K_LEVEL, K_LEVEL3, K_GRADIENT3, K_ROWHIST, K_COUNT };

static const char *const kernel_names[K_COUNT] = {"hog_gradient_all", "hog_blocks_all",
                                                  "hog_svm_all"};
/* CPUs (cl/hog-cpu.cl): 2-D launches, a row of a level per work-group */
static const char *const kernel_names_cpu[K_COUNT] = {
    "hog_gradient_px1", "hog_blocks_px",     "hog_svm_px",      "hog_level_px1",
    "hog_level_px3",    "hog_gradient_px3", "hog_rowhist_rows"};
/* Work-items per work-group along a row: per-pixel kernels (a loop PoCL vectorises, or
 * groups of 8 pixels), row histograms, groups of HOG_BLOCK_LANES blocks and of
 * HOG_SVM_LANES windows (hog_blocks_px, hog_svm_px) */
#define HOG_PX_LOCAL 64u
#define HOG_BLOCK_LOCAL 16u
#define HOG_SVM_LOCAL 4u
#define HOG_BLOCK_LANES 8u
#define HOG_SVM_LANES 16u

/* The job table of cl/hog.cl: HOG_JOB ints a job, then the resize tables. */
enum {
    J_RX, J_RY, J_RW, J_RH, J_W, J_H, J_PX, J_PY, J_GW, J_GH, J_NBX, J_NBY, J_NWX, J_NWY,
    J_TAB, J_PIX, J_BLK, J_WIN, J_PAD, J_ROW, J_PROW, J_RB, HOG_JOB = 22
};

/* One pyramid level of one region. Every level has its own part of the device buffers, so
 * that one launch per stage does all the levels. */
typedef struct hog_job {
    votecl__hog_level level;
    votecl_hog_rect roi;
    size_t tab;   /* offset of its resize tables (2 dw + 2 dh ints) after the job table */
    size_t pix;   /* its first gradient pixel */
    size_t pad;   /* its first padded level pixel (CPUs) */
    size_t row, prow; /* its first gradient row and padded level row (CPUs) */
    size_t brow, wrow; /* its first block row and window row (CPUs) */
    size_t rb;    /* its first row partial histogram (CPUs: gh nbx of them) */
    size_t blk;   /* its first block */
    size_t score; /* offset of its window scores */
} hog_job;

/* Device buffers: the source, job and resize tables, every level's gradients and blocks, all
 * scores, and the constant tables. */
typedef struct hog_buffers {
    votecl_buffer *image, *tab, *grad, *bins, *hist, *scores, *level;
    votecl_buffer *lut, *weights, *svm;
    votecl_buffer *rh, *histt, *wx, *wy; /* CPUs: row histograms, transposed blocks, weights */
} hog_buffers;

#ifdef VOTECL_HOG_PROFILE
#include <time.h>
static double hog_prof[8];
static unsigned long hog_prof_n;
static double
hog_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
#define PROF_BEGIN(hog) double prof_t0 = (hog->context->ops->finish(hog->context), hog_now())
#define PROF_END(hog, k)                                                                       \
    do {                                                                                       \
        (void)hog->context->ops->finish(hog->context);                                         \
        hog_prof[k] += hog_now() - prof_t0;                                                    \
    } while (0)
#else
#define PROF_BEGIN(hog) (void)0
#define PROF_END(hog, k) (void)0
#endif

struct votecl_hog {
    votecl_context *context;
    votecl_hog_params params;
    votecl__hog_geom geom;
    votecl_hog_model *model; /* own copy; NULL: descriptors only */
    float lut[256];
    float *block_weights;
    void *kernels[K_COUNT];
    int rows; /* the CPU kernels (cl/hog-cpu.cl) */
    hog_buffers buf;
    votecl__staging conv;    /* the converted source (host; page-locked where the backend
                                offers it, kept between calls) */
    votecl_buffer *source;   /* borrowed: the caller's device image in conv's layout
                                (votecl_hog_detect_buffer); NULL: conv is uploaded */
    unsigned ch;             /* its channels: 1 or 3 */
    size_t conv_w, conv_h;
    hog_job *jobs;
    size_t njobs, jobs_cap;
    int32_t *tabs;
    size_t ntabs;
    float *scores;           /* host copy of every job's scores (scores_mem's) */
    votecl__staging scores_mem; /* page-locked where the backend offers it: the read-back */
    size_t nscores;
    size_t npix, nblk;       /* gradient pixels and blocks of every job */
    size_t npad;             /* padded level pixels of every job (CPUs) */
    size_t nrows, nprows;    /* gradient rows and padded level rows of every job (CPUs) */
    size_t nbrows, nwrows;   /* block rows and window rows of every job (CPUs) */
    size_t nrh;              /* row partial histograms of every job (CPUs) */
    size_t max_pw, max_nbx, max_nwx; /* the widest padded level, block and window rows */
    size_t rowtab;           /* CPUs: the row tables' first pair in tabs */
    /* the jobs and tables above were planned for these (plan(): a video's frames reuse
     * them), and whether buf.tab holds the tables */
    int planned, tabs_on_device;
    size_t plan_w, plan_h, plan_nrois;
    unsigned plan_ch;
    int plan_pyramid;
    votecl_hog_rect *plan_rois;
    unsigned tile;           /* CPUs: HOG_TILE, the per-pixel kernels' local size */
    unsigned local;          /* HOG_LOCAL: work-group of hog_blocks_all and hog_svm_all */
    int begun;
    votecl_hog_detection *raw;
    size_t nraw, raw_cap;
};

void
votecl_hog_params_init(votecl_hog_params *p)
{
    if (p == NULL)
        return;
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
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

/* --- construction --- */

static size_t
hog_defines(const votecl__hog_geom *g, unsigned local, char defs[][64])
{
    size_t n = 0;

    snprintf(defs[n++], 64, "HOG_LOCAL=%u", local);
    snprintf(defs[n++], 64, "HOG_BLOCK_W=%u", g->block_w);
    snprintf(defs[n++], 64, "HOG_BLOCK_H=%u", g->block_h);
    snprintf(defs[n++], 64, "HOG_NCELLS=%u", g->ncells);
    snprintf(defs[n++], 64, "HOG_NBINS=%u", g->nbins);
    snprintf(defs[n++], 64, "HOG_BLOCK_LEN=%u", g->block_len);
    snprintf(defs[n++], 64, "HOG_BLOCKS_X=%u", g->blocks_x);
    snprintf(defs[n++], 64, "HOG_BLOCKS_Y=%u", g->blocks_y);
    snprintf(defs[n++], 64, "HOG_BSTRIDE_X=%u", g->bstride_x);
    snprintf(defs[n++], 64, "HOG_BSTRIDE_Y=%u", g->bstride_y);
    snprintf(defs[n++], 64, "HOG_WSTRIDE_X=%u", g->wstride_x);
    snprintf(defs[n++], 64, "HOG_WSTRIDE_Y=%u", g->wstride_y);
    snprintf(defs[n++], 64, "HOG_GRID_X=%u", g->grid_x);
    snprintf(defs[n++], 64, "HOG_GRID_Y=%u", g->grid_y);
    /* %.9g round-trips a float: the device sees the host's constants bit for bit */
    snprintf(defs[n++], 64, "HOG_L2HYS=%.9gf", g->l2hys);
    snprintf(defs[n++], 64, "HOG_ANGLE_SCALE=%.9gf", (float)(g->nbins / M_PI));
    snprintf(defs[n++], 64, "HOG_DEG2RAD=%.9gf", (float)(M_PI / 180));
    snprintf(defs[n++], 64, "HOG_P1=%.9gf", 0.9997878412794807f * (float)(180 / M_PI));
    snprintf(defs[n++], 64, "HOG_P3=%.9gf", -0.3258083974640975f * (float)(180 / M_PI));
    snprintf(defs[n++], 64, "HOG_P5=%.9gf", 0.1555786518463281f * (float)(180 / M_PI));
    snprintf(defs[n++], 64, "HOG_P7=%.9gf", -0.04432655554792128f * (float)(180 / M_PI));
    snprintf(defs[n++], 64, "HOG_EPS=%.9gf", (float)2.220446049250313e-16);
    return n;
}

static votecl_status
hog_compile(votecl_hog *hog)
{
    static const char *const files[] = {"hog.cl", NULL};
    static const char *const files_cpu[] = {"hog.cl", "hog-cpu.cl", NULL};
    char defs[28][64];
    const char *ptrs[28];
    const votecl_device_info *info = &hog->context->info;
    size_t n, lmem = info->local_mem_bytes > 2048 ? info->local_mem_bytes - 1024 : 1024;
    /* CPU-shaped devices (the context's shape): the row kernels, no local memory or
     * barriers, work-groups of HOG_PX_LOCAL along a row. They use 8-wide vectors (vload8,
     * convert_float8), outside cl/prelude.h's portable subset, so they are OpenCL's only: a
     * CPU shape forced on CUDA keeps the block kernels. */
    int rows = hog->context->shape.cpu && hog->context->backend == VOTECL_BACKEND_OPENCL &&
               info->max_work_group_size >= HOG_PX_LOCAL;
    unsigned local = rows ? 1 : 64;
    const char *const *names = rows ? kernel_names_cpu : kernel_names;

    /* per-work-item block histograms in local memory: block_len (local + 1) floats */
    while (local > 1 && (local > info->max_work_group_size ||
                         (size_t)hog->geom.block_len * (local + 2) * sizeof(float) > lmem))
        local /= 2;
    hog->local = local;
    hog->rows = rows;
    votecl__log(hog->context, "plan: hog %s kernels, work-groups of %u", rows ? "row" : "block",
                rows ? HOG_PX_LOCAL : local);
    n = hog_defines(&hog->geom, local, defs);
    if (hog->rows) {
        hog->tile = HOG_PX_LOCAL;
        snprintf(defs[n++], 64, "HOG_TILE=%u", hog->tile);
        snprintf(defs[n++], 64, "HOG_GAMMA=%d", hog->geom.gamma);
        snprintf(defs[n++], 64, "HOG_CELLS_X=%u", hog->geom.cells_x);
        snprintf(defs[n++], 64, "HOG_CELLS_Y=%u", hog->geom.cells_y);
    }
    votecl__program *program;
    votecl_status status;

    for (size_t i = 0; i < n; i++)
        ptrs[i] = defs[i];
    status = votecl__program_get(hog->context, hog->rows ? files_cpu : files, ptrs, n, NULL,
                                 &program);
    for (int k = 0; k < K_COUNT && status == VOTECL_OK; k++)
        if (names[k] != NULL)
            status = votecl__program_kernel(hog->context, program, names[k],
                                        &hog->kernels[k]);
    return status;
}

static votecl_status
upload(votecl_hog *hog, votecl_buffer **buffer, const void *data, size_t size)
{
    votecl_status status = votecl__buffer_ensure(hog->context, buffer, size);

    if (status == VOTECL_OK)
        status = votecl_buffer_write(*buffer, 0, data, size);
    return status;
}

/* The constant tables on the device: gamma, block weights, SVM weights. */
static votecl_status
hog_upload_constants(votecl_hog *hog)
{
    const votecl__hog_geom *g = &hog->geom;
    size_t wsize = (size_t)g->block_w * g->block_h * g->ncells * sizeof(float);
    votecl_status status = upload(hog, &hog->buf.lut, hog->lut, sizeof hog->lut);

    if (status == VOTECL_OK && !hog->rows)
        status = upload(hog, &hog->buf.weights, hog->block_weights, wsize);
    if (status == VOTECL_OK && hog->rows) {
        float *w;
        size_t nx = (size_t)g->block_w * g->cells_x, ny = (size_t)g->block_h * g->cells_y;

        if ((w = votecl__malloc((nx + ny) * sizeof *w)) == NULL)
            return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
        votecl__hog_block_weights_split(g, w, w + nx);
        status = upload(hog, &hog->buf.wx, w, nx * sizeof *w);
        if (status == VOTECL_OK)
            status = upload(hog, &hog->buf.wy, w + nx, ny * sizeof *w);
        free(w);
    }
    if (status == VOTECL_OK && hog->model != NULL) {
        size_t length;
        const float *w;

        votecl_hog_model_get(hog->model, &length, &w, NULL);
        status = upload(hog, &hog->buf.svm, w, length * sizeof(float));
    }
    return status;
}

static votecl_status
hog_init(votecl_hog *hog, const votecl_hog_model *model)
{
    const votecl__hog_geom *g = &hog->geom;
    size_t length;
    const float *w;
    float bias;
    votecl_status status;

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
    hog->block_weights = votecl__malloc((size_t)g->block_w * g->block_h * g->ncells * sizeof(float));
    if (hog->block_weights == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    votecl__hog_block_weights(g, hog->block_weights);
    if (hog->context->backend == VOTECL_BACKEND_REF)
        return VOTECL_OK;
    status = hog_compile(hog);
    return status == VOTECL_OK ? hog_upload_constants(hog) : status;
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
    return hog != NULL && hog->rows;
}

void
votecl_hog_free(votecl_hog *hog)
{
    votecl_buffer **b;

    if (hog == NULL)
        return;
#ifdef VOTECL_HOG_PROFILE
    /* through the debug log: printed only when VOTECL_DEBUG is set */
    votecl__log(hog->context,
                "hog profile (ms per detect, %lu calls): upload %.3f gradient %.3f blocks %.3f "
                "svm %.3f",
            hog_prof_n, 1e3 * hog_prof[3] / (hog_prof_n ? hog_prof_n : 1),
            1e3 * hog_prof[0] / (hog_prof_n ? hog_prof_n : 1),
            1e3 * hog_prof[1] / (hog_prof_n ? hog_prof_n : 1),
            1e3 * hog_prof[2] / (hog_prof_n ? hog_prof_n : 1));
    memset(hog_prof, 0, sizeof hog_prof);
    hog_prof_n = 0;
#endif
    b = (votecl_buffer **)&hog->buf;
    if (hog->begun && hog->context->backend != VOTECL_BACKEND_REF)
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
        !votecl__hog_level_init(&hog->geom, &hog->params, (uint32_t)width, (uint32_t)height,
                                1.0, &l))
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

/* The row length of n pixels in the CPU kernels' buffers: whole work-groups of tile. */
static size_t
pitch(const votecl_hog *hog, size_t n)
{
    return hog->rows ? (n + hog->tile - 1) / hog->tile * hog->tile : n;
}

static votecl_status
add_job(votecl_hog *hog, const votecl_hog_rect *roi, const votecl__hog_level *l)
{
    hog_job *j;

    if (votecl__grow((void **)&hog->jobs, &hog->jobs_cap, hog->njobs + 1, sizeof *hog->jobs, 64))
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    j = &hog->jobs[hog->njobs++];
    j->level = *l;
    j->roi = *roi;
    j->tab = hog->ntabs;
    j->pix = hog->npix;
    j->pad = hog->npad;
    j->row = hog->nrows;
    j->prow = hog->nprows;
    j->brow = hog->nbrows;
    j->wrow = hog->nwrows;
    j->rb = hog->nrh;
    j->blk = hog->nblk;
    j->score = hog->nscores;
    /* CPUs: the resize tables in padded coordinates (hog-cpu.cl) */
    if (hog->rows)
        hog->ntabs += 2 * pitch(hog, (size_t)l->gw + 2) + 2 * ((size_t)l->gh + 2);
    else
        hog->ntabs += 2 * (size_t)l->width + 2 * (size_t)l->height;
    hog->nbrows += l->nby;
    hog->nwrows += l->nwy;
    hog->nrh += (size_t)l->gh * l->nbx;
    hog->max_pw = hog->max_pw > l->gw + 2 ? hog->max_pw : l->gw + 2;
    hog->max_nbx = hog->max_nbx > l->nbx ? hog->max_nbx : l->nbx;
    hog->max_nwx = hog->max_nwx > l->nwx ? hog->max_nwx : l->nwx;
    /* CPUs: rows of pitch() pixels (cl/hog-cpu.cl's HOG_PITCH) */
    hog->npix += pitch(hog, l->gw) * l->gh;
    hog->npad += pitch(hog, (size_t)l->gw + 2) * (l->gh + 2);
    hog->nrows += l->gh;
    hog->nprows += (size_t)l->gh + 2;
    hog->nblk += (size_t)l->nbx * l->nby;
    hog->nscores += (size_t)l->nwx * l->nwy;
    return VOTECL_OK;
}

/* OpenCV's detectMultiScale levels: scale^k from min_scale while the resized region still
 * holds a window (before padding), at most max_levels, only the first when scale <= 1. */
static votecl_status
plan_region(votecl_hog *hog, const votecl_hog_rect *roi, int pyramid)
{
    const votecl_hog_params *p = &hog->params;
    double s = pyramid ? p->min_scale : 1.0;
    votecl__hog_level l;
    votecl_status status = VOTECL_OK;

    for (unsigned k = 0; k < (pyramid ? p->max_levels : 1u) && status == VOTECL_OK; k++) {
        double dw = nearbyint(roi->width / s), dh = nearbyint(roi->height / s);

        if (pyramid && (dw < hog->geom.win_w || dh < hog->geom.win_h))
            break;
        if (pyramid && p->max_scale > 0 && s > p->max_scale * (1 + 1e-9))
            break;
        /* min_scale below 1 enlarges: never beyond what a level may be (nor past uint32_t) */
        if (dw > VOTECL_HOG_MAX_SIDE || dh > VOTECL_HOG_MAX_SIDE)
            return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                                "min_scale: a level of %.0f x %.0f pixels exceeds %u a side", dw,
                                dh, VOTECL_HOG_MAX_SIDE);
        if (dw >= 1 && dh >= 1 &&
            votecl__hog_level_init(&hog->geom, p, (uint32_t)dw, (uint32_t)dh, s, &l))
            status = add_job(hog, roi, &l);
        if (p->scale <= 1.0)
            break;
        s *= p->scale;
    }
    return status;
}

static votecl_status
check_roi(votecl_hog *hog, const votecl_hog_rect *r, size_t i)
{
    if (r->width < 1 || r->height < 1 || r->x < 0 || r->y < 0 ||
        (int64_t)r->x + r->width > (int64_t)hog->conv_w ||
        (int64_t)r->y + r->height > (int64_t)hog->conv_h)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "rois[%zu]: (%d, %d) %dx%d is empty or leaves the %zux%zu image", i,
                            r->x, r->y, r->width, r->height, hog->conv_w, hog->conv_h);
    return VOTECL_OK;
}

static votecl_status
plan_jobs(votecl_hog *hog, const votecl_hog_rect *rois, size_t nrois, int pyramid)
{
    votecl_hog_rect whole = {0, 0, (int32_t)hog->conv_w, (int32_t)hog->conv_h};
    votecl_status status = VOTECL_OK;

    hog->planned = 0;
    hog->njobs = hog->ntabs = hog->nscores = hog->npix = hog->nblk = hog->npad = hog->nrows =
        hog->nprows = hog->nbrows = hog->nwrows = hog->nrh = 0;
    hog->max_pw = hog->max_nbx = hog->max_nwx = 0;
    if (nrois > 0 && rois == NULL)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT, "rois: NULL pointer");
    for (size_t i = 0; i < nrois && status == VOTECL_OK; i++)
        status = check_roi(hog, &rois[i], i);
    for (size_t i = 0; i < (nrois > 0 ? nrois : 1) && status == VOTECL_OK; i++)
        status = plan_region(hog, nrois > 0 ? &rois[i] : &whole, pyramid);
    return status;
}

/* CPUs: the resize tables of job j in padded coordinates (reflect-101 applied): index and
 * weight of each of the pitch(gw + 2) columns, then of the gh + 2 rows; scratch holds
 * 2 max(width, height) ints. */
static void
fill_padded_tables(const votecl_hog *hog, const hog_job *j, int32_t *t, int32_t *scratch)
{
    const votecl__hog_level *l = &j->level;
    uint32_t n[2] = {(uint32_t)pitch(hog, l->gw + 2), l->gh + 2}, side[2] = {l->width, l->height};
    uint32_t last[2] = {l->gw + 1, l->gh + 1};
    uint32_t pad[2] = {l->pad_x, l->pad_y}, src[2] = {(uint32_t)j->roi.width,
                                                      (uint32_t)j->roi.height};

    for (int axis = 0; axis < 2; axis++) {
        votecl__hog_resize_table(src[axis], side[axis], scratch, scratch + side[axis]);
        for (uint32_t p = 0; p < n[axis]; p++) {
            /* columns past the padded level (pitch) repeat its last one */
            int32_t s = votecl__hog_reflect101((int64_t)(p < last[axis] ? p : last[axis]) - 1 -
                                                   pad[axis],
                                               (int32_t)side[axis]);

            t[p] = scratch[s];
            t[n[axis] + p] = scratch[side[axis] + s];
        }
        t += 2 * (size_t)n[axis];
    }
}

/* CPUs: for every row of a kind (padded level, gradient, block, window rows in turn), its
 * job and its row in the job, as pairs after the resize tables. */
static void
fill_row_tables(votecl_hog *hog, int32_t *t)
{
    for (int kind = 0; kind < 4; kind++)
        for (size_t i = 0; i < hog->njobs; i++) {
            const votecl__hog_level *l = &hog->jobs[i].level;
            size_t n = kind == 0 ? (size_t)l->gh + 2 : kind == 1 ? l->gh : kind == 2 ? l->nby
                                                                                    : l->nwy;

            for (size_t r = 0; r < n; r++) {
                *t++ = (int32_t)i;
                *t++ = (int32_t)r;
            }
        }
}

static votecl_status
fill_tables(votecl_hog *hog)
{
    size_t head = hog->njobs * HOG_JOB, total;
    votecl_status status;

    /* CPUs: the row tables start at an even int (pairs) */
    hog->rowtab = (head + hog->ntabs + 1) / 2;
    total = hog->rows ? 2 * (hog->rowtab + hog->nprows + hog->nrows + hog->nbrows + hog->nwrows)
                      : head + hog->ntabs;
    hog->tabs_on_device = 0;
    free(hog->tabs);
    hog->tabs = votecl__malloc((total > 0 ? total : 1) * sizeof *hog->tabs);
    if (hog->tabs == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if (hog->nscores > SIZE_MAX / sizeof *hog->scores)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory: %zu scores",
                            hog->nscores);
    status = votecl__staging_ensure(hog->context, &hog->scores_mem,
                                    hog->nscores * sizeof *hog->scores);
    if (status != VOTECL_OK)
        return status;
    hog->scores = hog->scores_mem.ptr;
    if (hog->rows) {
        int32_t *scratch = votecl__malloc(2 * (size_t)VOTECL_HOG_MAX_SIDE * sizeof *scratch);

        if (scratch == NULL)
            return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
        for (size_t i = 0; i < hog->njobs; i++)
            fill_padded_tables(hog, &hog->jobs[i], hog->tabs + head + hog->jobs[i].tab, scratch);
        free(scratch);
        fill_row_tables(hog, hog->tabs + 2 * hog->rowtab);
    }
    for (size_t i = 0; i < hog->njobs; i++) {
        const hog_job *j = &hog->jobs[i];
        const votecl__hog_level *l = &j->level;
        int32_t *x = hog->tabs + head + j->tab, *y = x + 2 * (size_t)j->level.width;
        int32_t *t = hog->tabs + i * HOG_JOB;

        memset(t, 0, HOG_JOB * sizeof *t);
        t[J_RX] = j->roi.x;
        t[J_RY] = j->roi.y;
        t[J_RW] = j->roi.width;
        t[J_RH] = j->roi.height;
        t[J_W] = (int32_t)l->width;
        t[J_H] = (int32_t)l->height;
        t[J_PX] = (int32_t)l->pad_x;
        t[J_PY] = (int32_t)l->pad_y;
        t[J_GW] = (int32_t)l->gw;
        t[J_GH] = (int32_t)l->gh;
        t[J_NBX] = (int32_t)l->nbx;
        t[J_NBY] = (int32_t)l->nby;
        t[J_NWX] = (int32_t)l->nwx;
        t[J_NWY] = (int32_t)l->nwy;
        t[J_TAB] = (int32_t)(head + j->tab);
        t[J_PIX] = (int32_t)j->pix;
        t[J_BLK] = (int32_t)j->blk;
        t[J_WIN] = (int32_t)j->score;
        t[J_PAD] = (int32_t)j->pad;
        t[J_ROW] = (int32_t)j->row;
        t[J_PROW] = (int32_t)j->prow;
        t[J_RB] = (int32_t)j->rb;
        if (hog->rows)
            continue;
        votecl__hog_resize_table((uint32_t)j->roi.width, j->level.width, x,
                                 x + j->level.width);
        votecl__hog_resize_table((uint32_t)j->roi.height, j->level.height, y,
                                 y + j->level.height);
    }
    return VOTECL_OK;
}

/* plan_jobs and fill_tables for the image taken, skipped when its size and channels, the
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
    if ((status = plan_jobs(hog, rois, nrois, pyramid)) != VOTECL_OK ||
        (status = fill_tables(hog)) != VOTECL_OK)
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

/* --- the reference backend: every stage on the host --- */

typedef struct ref_level {
    uint8_t *crop, *level, *padded, *bins;
    float *grad, *hist;
} ref_level;

static void
ref_level_free(ref_level *r)
{
    free(r->crop);
    free(r->level);
    free(r->padded);
    free(r->bins);
    free(r->grad);
    free(r->hist);
}

/* Stages 1-5 of job j into r->hist (normalised blocks). */
static votecl_status
ref_run_level(votecl_hog *hog, const hog_job *j, ref_level *r)
{
    const votecl__hog_level *l = &j->level;
    unsigned ch = hog->ch;
    size_t g = (size_t)l->gw * l->gh, blocks = (size_t)l->nbx * l->nby;

    memset(r, 0, sizeof *r);
    r->crop = votecl__malloc((size_t)j->roi.width * j->roi.height * ch);
    r->level = votecl__malloc((size_t)l->width * l->height * ch);
    r->padded = votecl__malloc((size_t)(l->gw + 2) * (l->gh + 2) * ch);
    r->bins = votecl__malloc(2 * g);
    r->grad = votecl__malloc(2 * g * sizeof(float));
    r->hist = votecl__malloc(blocks * hog->geom.block_len * sizeof(float));
    if (!r->crop || !r->level || !r->padded || !r->bins || !r->grad || !r->hist) {
        ref_level_free(r);
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    }
    for (int32_t y = 0; y < j->roi.height; y++)
        memcpy(r->crop + (size_t)y * j->roi.width * ch,
               (const uint8_t *)hog->conv.ptr +
                   (((size_t)j->roi.y + y) * hog->conv_w + j->roi.x) * ch,
               (size_t)j->roi.width * ch);
    votecl__hog_ref_resize(r->crop, (uint32_t)j->roi.width, (uint32_t)j->roi.height, ch,
                           r->level, l->width, l->height);
    votecl__hog_ref_pad(r->level, l, ch, r->padded);
    votecl__hog_ref_gradient(&hog->geom, r->padded, l, ch, hog->lut, r->grad, r->bins);
    votecl__hog_ref_blocks(&hog->geom, l, r->grad, r->bins, hog->block_weights, r->hist);
    votecl__hog_ref_normalise(&hog->geom, r->hist, blocks);
    return VOTECL_OK;
}

static votecl_status
ref_detect(votecl_hog *hog)
{
    const float *w;
    float bias;
    votecl_status status = VOTECL_OK;

    votecl_hog_model_get(hog->model, NULL, &w, &bias);
    for (size_t i = 0; i < hog->njobs && status == VOTECL_OK; i++) {
        ref_level r;

        status = ref_run_level(hog, &hog->jobs[i], &r);
        if (status != VOTECL_OK)
            break;
        votecl__hog_ref_svm(&hog->geom, &hog->jobs[i].level, r.hist, w, bias,
                            hog->scores + hog->jobs[i].score);
        ref_level_free(&r);
    }
    return status;
}

/* --- the device pipeline --- */

/* Ints of the job and row tables (fill_tables). */
static size_t
tables_size(const votecl_hog *hog)
{
    size_t n = hog->rows ? 2 * (hog->rowtab + hog->nprows + hog->nrows + hog->nbrows +
                                hog->nwrows)
                         : hog->njobs * HOG_JOB + hog->ntabs;

    return n > 0 ? n : 1;
}

/* Every job's intermediates, allocated once (grown when needed). */
static votecl_status
device_buffers(votecl_hog *hog)
{
    hog_buffers *b = &hog->buf;
    size_t pix = hog->npix ? hog->npix : 1, blk = hog->nblk ? hog->nblk : 1;
    votecl_status s;

    if ((s = votecl__buffer_ensure(hog->context, &b->grad, 2 * pix * sizeof(float))) ||
        (s = votecl__buffer_ensure(hog->context, &b->bins, 2 * pix)) ||
        (s = votecl__buffer_ensure(hog->context, &b->hist,
                                   blk * hog->geom.block_len * sizeof(float))) ||
        (s = votecl__buffer_ensure(hog->context, &b->scores,
                                   (hog->nscores ? hog->nscores : 1) * sizeof(float))))
        return s;
    /* CPUs: the padded levels, the row histograms, the transposed blocks (room for the
     * last lanes of hog_svm_px past a row) */
    if (hog->rows &&
        ((s = votecl__buffer_ensure(hog->context, &b->level,
                                    (hog->npad + 2 * (size_t)hog->tile) * hog->ch *
                                        sizeof(float))) ||
         (s = votecl__buffer_ensure(hog->context, &b->rh,
                                    ((hog->nrh ? hog->nrh : 1) * hog->geom.cells_x *
                                         hog->geom.nbins + HOG_BLOCK_LANES) * sizeof(float))) ||
         (s = votecl__buffer_ensure(hog->context, &b->histt,
                                    (blk * hog->geom.block_len +
                                     HOG_SVM_LANES * (hog->geom.wstride_x / hog->geom.grid_x + 1)) *
                                        sizeof(float)))))
        return s;
    if (hog->source == NULL &&
        (s = upload(hog, &b->image, hog->conv.ptr, hog->conv_w * hog->conv_h * hog->ch)))
        return s;
    if (hog->tabs_on_device)
        return VOTECL_OK;
    if ((s = upload(hog, &b->tab, hog->tabs, tables_size(hog) * sizeof(int32_t))) == VOTECL_OK)
        hog->tabs_on_device = 1;
    return s;
}

/* A 2-D launch of the CPU kernels: n work-items along each of rows rows, work-groups of
 * local items along a row (at most the device's). */
static votecl_status
launch_rows(votecl_hog *hog, int k, size_t n, size_t local, size_t rows, const votecl__arg *args,
            unsigned nargs)
{
    size_t max = hog->context->info.max_work_group_size;
    size_t l[2], g[2];

    l[0] = max >= local ? local : max > 0 ? max : 1;
    l[1] = 1;
    g[0] = votecl__round_up(n > 0 ? n : 1, l[0]);
    g[1] = rows;
    return rows > 0 ? votecl__launch(hog->context, hog->kernels[k], 2, g, l, args, nargs)
                    : VOTECL_OK;
}

/* CPUs: stages 1-2 (the padded level of every job, each pixel resized once), then stage 3
 * from it, a work-item per pixel. */
static votecl_status
device_gradient_rows(votecl_hog *hog)
{
    hog_buffers *b = &hog->buf;
    int three = hog->ch == 3;
    votecl__arg level[] = {VOTECL__ARG_BUF(hog->source ? hog->source : b->image),
                           VOTECL__ARG_UINT(hog->conv_w), VOTECL__ARG_UINT(hog->conv_h),
                           VOTECL__ARG_BUF(b->tab),
                           VOTECL__ARG_BUF(b->tab),       VOTECL__ARG_UINT(hog->rowtab),
                           VOTECL__ARG_BUF(b->level)};
    votecl__arg grad[] = {VOTECL__ARG_BUF(b->level),
                          VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_UINT(hog->rowtab + hog->nprows),
                          VOTECL__ARG_UINT(hog->npix),
                          VOTECL__ARG_BUF(b->grad),
                          VOTECL__ARG_BUF(b->bins)};
    votecl_status s;

    /* hog_level_px*: 8 columns a work-item (the tile is a multiple of 8) */
    s = launch_rows(hog, three ? K_LEVEL3 : K_LEVEL, (hog->max_pw + 7) / 8, hog->tile / 8,
                    hog->nprows, level, 7);
    /* gray: 8 pixels a work-item (hog_gradient_px1) */
    if (s == VOTECL_OK && three)
        s = launch_rows(hog, K_GRADIENT3, hog->max_pw - 2, hog->tile, hog->nrows, grad, 7);
    else if (s == VOTECL_OK)
        s = launch_rows(hog, K_GRADIENT, (hog->max_pw - 2 + 7) / 8, hog->tile / 8, hog->nrows,
                        grad, 7);
    return s;
}

/* Stages 1-3 of every job: one work-item per gradient pixel. */
static votecl_status
device_gradient(votecl_hog *hog)
{
    hog_buffers *b = &hog->buf;
    size_t local = hog->context->info.max_work_group_size >= 128 ? 128 : 1, global;
    votecl__arg args[] = {VOTECL__ARG_BUF(hog->source ? hog->source : b->image),
                          VOTECL__ARG_UINT(hog->conv_w),
                          VOTECL__ARG_UINT(hog->ch),  VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_UINT(hog->njobs), VOTECL__ARG_UINT(hog->npix),
                          VOTECL__ARG_BUF(b->tab),    VOTECL__ARG_BUF(b->lut),
                          VOTECL__ARG_BUF(b->grad),   VOTECL__ARG_BUF(b->bins)};
    votecl_status s;
    PROF_BEGIN(hog);

    global = votecl__round_up(hog->npix, local);
    if (hog->rows)
        s = device_gradient_rows(hog);
    else
        s = votecl__launch(hog->context, hog->kernels[K_GRADIENT], 1, &global, &local, args, 10);
    PROF_END(hog, 0);
    return s;
}

/* CPUs: stage 4 as each block's partial histogram of each of its pixel rows, then stages
 * 4-5 from those, a work-item per 8 blocks; the blocks in hog.cl's layout too when aos
 * (descriptors), else only transposed for the SVM. */
static votecl_status
device_blocks_rows(votecl_hog *hog, int aos)
{
    hog_buffers *b = &hog->buf;
    votecl__arg rows[] = {VOTECL__ARG_BUF(b->grad),
                          VOTECL__ARG_BUF(b->bins),
                          VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_UINT(hog->rowtab + hog->nprows),
                          VOTECL__ARG_UINT(hog->npix),
                          VOTECL__ARG_BUF(b->wx),
                          VOTECL__ARG_BUF(b->rh)};
    votecl__arg blocks[] = {VOTECL__ARG_BUF(b->rh),
                            VOTECL__ARG_BUF(b->tab),
                            VOTECL__ARG_BUF(b->tab),
                            VOTECL__ARG_UINT(hog->rowtab + hog->nprows + hog->nrows),
                            VOTECL__ARG_BUF(b->wy),
                            VOTECL__ARG_BUF(b->hist),
                            VOTECL__ARG_BUF(b->histt),
                            VOTECL__ARG_UINT(aos)};
    votecl_status s;

    s = launch_rows(hog, K_ROWHIST, hog->max_nbx, HOG_BLOCK_LOCAL, hog->nrows, rows, 8);
    if (s == VOTECL_OK)
        s = launch_rows(hog, K_BLOCKS, (hog->max_nbx + HOG_BLOCK_LANES - 1) / HOG_BLOCK_LANES,
                        HOG_SVM_LOCAL, hog->nbrows, blocks, 8);
    return s;
}

/* Stages 4-5 of every job: one work-group per block (CPUs: device_blocks_rows). */
static votecl_status
device_blocks(votecl_hog *hog, int aos)
{
    hog_buffers *b = &hog->buf;
    size_t local = hog->local, global = hog->nblk * local;
    votecl__arg args[] = {VOTECL__ARG_BUF(b->grad),    VOTECL__ARG_BUF(b->bins),
                          VOTECL__ARG_BUF(b->tab),     VOTECL__ARG_UINT(hog->njobs),
                          VOTECL__ARG_BUF(b->weights), VOTECL__ARG_BUF(b->hist)};
    votecl_status s;
    PROF_BEGIN(hog);

    if (hog->rows)
        s = device_blocks_rows(hog, aos);
    else
        s = votecl__launch(hog->context, hog->kernels[K_BLOCKS], 1, &global, &local, args, 6);
    PROF_END(hog, 1);
    return s;
}

/* Stage 6 of every job: one work-group per window. */
static votecl_status
device_svm(votecl_hog *hog)
{
    size_t local = hog->local, global = hog->nscores * local;
    float bias;
    votecl__arg args[] = {VOTECL__ARG_BUF(hog->buf.hist), VOTECL__ARG_BUF(hog->buf.tab),
                          VOTECL__ARG_UINT(hog->njobs),   VOTECL__ARG_BUF(hog->buf.svm),
                          VOTECL__ARG_FLOAT(0),           VOTECL__ARG_BUF(hog->buf.scores)};
    votecl__arg px[] = {VOTECL__ARG_BUF(hog->buf.histt),
                        VOTECL__ARG_BUF(hog->buf.tab),
                        VOTECL__ARG_BUF(hog->buf.tab),
                        VOTECL__ARG_UINT(hog->rowtab + hog->nprows + hog->nrows + hog->nbrows),
                        VOTECL__ARG_BUF(hog->buf.svm),
                        VOTECL__ARG_FLOAT(0),
                        VOTECL__ARG_BUF(hog->buf.scores)};
    votecl_status s;
    PROF_BEGIN(hog);

    votecl_hog_model_get(hog->model, NULL, NULL, &bias);
    args[4] = VOTECL__ARG_FLOAT(bias);
    px[5] = VOTECL__ARG_FLOAT(bias);
    if (hog->rows)
        s = launch_rows(hog, K_SVM, (hog->max_nwx + HOG_SVM_LANES - 1) / HOG_SVM_LANES,
                        HOG_SVM_LOCAL, hog->nwrows, px, 7);
    else
        s = votecl__launch(hog->context, hog->kernels[K_SVM], 1, &global, &local, args, 6);
    PROF_END(hog, 2);
    return s;
}

static votecl_status
device_detect(votecl_hog *hog)
{
    votecl_status s;
    PROF_BEGIN(hog);

    /* the kernels index pixels, blocks and windows with 32 bits */
    if (hog->npix > INT32_MAX || hog->nblk * hog->geom.block_len > INT32_MAX ||
        hog->nscores > INT32_MAX || tables_size(hog) > INT32_MAX ||
        hog->npad * hog->ch > INT32_MAX || hog->nrh > INT32_MAX)
        return votecl__fail(hog->context, VOTECL_OUT_OF_DEVICE_MEMORY,
                            "image: %zu gradient pixels over its levels and regions exceed "
                            "2^31", hog->npix);
    s = device_buffers(hog);
    PROF_END(hog, 3);
    if (s == VOTECL_OK && hog->nscores > 0 && (s = device_gradient(hog)) == VOTECL_OK &&
        (s = device_blocks(hog, 0)) == VOTECL_OK)
        s = device_svm(hog);
    return s;
}

/* --- descriptors --- */

static votecl_status
compute_blocks(votecl_hog *hog, float **hist)
{
    const hog_job *j = &hog->jobs[0];
    size_t n = (size_t)j->level.nbx * j->level.nby * hog->geom.block_len;
    ref_level r;
    votecl_status s;

    if (hog->context->backend == VOTECL_BACKEND_REF) {
        if ((s = ref_run_level(hog, j, &r)) != VOTECL_OK)
            return s;
        *hist = r.hist;
        r.hist = NULL;
        ref_level_free(&r);
        return VOTECL_OK;
    }
    if ((*hist = votecl__malloc(n * sizeof(float))) == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if ((s = device_buffers(hog)) || (s = device_gradient(hog)) || (s = device_blocks(hog, 1)) ||
        (s = votecl_buffer_read(hog->buf.hist, 0, *hist, n * sizeof(float)))) {
        free(*hist);
        *hist = NULL;
    }
    return s;
}

votecl_status
votecl_hog_compute(votecl_hog *hog, const votecl_image *image, float *descriptors,
                   size_t capacity, size_t *count)
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
    if ((s = hog_take_image(hog, image)) || (s = plan_jobs(hog, NULL, 0, 0)))
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
    if ((s = fill_tables(hog)) || (s = compute_blocks(hog, &hist)))
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
#ifdef VOTECL_HOG_PROFILE
    hog_prof_n++;
#endif
    if (hog->njobs > 0)
        s = hog->context->backend == VOTECL_BACKEND_REF ? ref_detect(hog) : device_detect(hog);
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
    if (hog->context->backend != VOTECL_BACKEND_REF) {
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
    if (found == NULL || (detections == NULL && capacity > 0))
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "found, detections: NULL pointer");
    if (hog->begun || hog->model == NULL)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT, "%s",
                            hog->begun ? "hog: a detection is already begun"
                                       : "model: the detector was made without a model");
    if ((s = hog_take_buffer(hog, image, width, height, channels)) ||
        (s = plan(hog, rois, nrois, 1)))
        return s;
    if (hog->njobs > 0)
        s = hog->context->backend == VOTECL_BACKEND_REF ? ref_detect(hog) : device_detect(hog);
    hog->begun = s == VOTECL_OK;
    return s == VOTECL_OK ? votecl_hog_detect_end(hog, detections, capacity, found) : s;
}

static votecl_status
push_raw(votecl_hog *hog, const hog_job *j, uint32_t wx, uint32_t wy, float score)
{
    const votecl__hog_level *l = &j->level;
    votecl_hog_detection *d;

    if (votecl__grow((void **)&hog->raw, &hog->raw_cap, hog->nraw + 1, sizeof *hog->raw, 256))
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    d = &hog->raw[hog->nraw++];
    /* OpenCV's detectMultiScale: the level's window corner and size times the scale, rounded */
    d->box.x = (int32_t)lrint(((double)wx * hog->geom.wstride_x - l->pad_x) * l->scale) +
               j->roi.x;
    d->box.y = (int32_t)lrint(((double)wy * hog->geom.wstride_y - l->pad_y) * l->scale) +
               j->roi.y;
    d->box.width = (int32_t)lrint(hog->geom.win_w * l->scale);
    d->box.height = (int32_t)lrint(hog->geom.win_h * l->scale);
    d->score = score;
    d->scale = l->scale;
    return VOTECL_OK;
}

/* Waits for the begun work and keeps the windows at or above the threshold in hog->raw. */
static votecl_status
end_raw(votecl_hog *hog)
{
    votecl_status s = VOTECL_OK;

    if (!hog->begun)
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT, "hog: nothing was begun");
    hog->begun = 0;
    hog->nraw = 0;
    if (hog->context->backend != VOTECL_BACKEND_REF && hog->njobs > 0)
        s = votecl_buffer_read(hog->buf.scores, 0, hog->scores, hog->nscores * sizeof(float));
    for (size_t i = 0; i < hog->njobs && s == VOTECL_OK; i++) {
        const hog_job *j = &hog->jobs[i];

        for (uint32_t wy = 0; wy < j->level.nwy && s == VOTECL_OK; wy++)
            for (uint32_t wx = 0; wx < j->level.nwx && s == VOTECL_OK; wx++) {
                float v = hog->scores[j->score + (size_t)wy * j->level.nwx + wx];

                if (v >= hog->params.hit_threshold)
                    s = push_raw(hog, j, wx, wy, v);
            }
    }
    return s;
}

votecl_status
votecl_hog_detect_end(votecl_hog *hog, votecl_hog_detection *detections, size_t capacity,
                      size_t *found)
{
    votecl_status s;

    if (hog == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (found == NULL || (detections == NULL && capacity > 0))
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "found, detections: NULL pointer");
    VOTECL__ENTER_OR_RETURN(hog->context);
    if ((s = end_raw(hog)) != VOTECL_OK)
        return s;
    return votecl__hog_fuse_checked(hog->context, &hog->params, hog->raw, hog->nraw, hog->conv_w,
                                    hog->conv_h, detections, capacity, found);
}

votecl_status
votecl_hog_detect(votecl_hog *hog, const votecl_image *image, const votecl_hog_rect *rois,
                  size_t nrois, votecl_hog_detection *detections, size_t capacity,
                  size_t *found)
{
    votecl_status s;

    if (hog == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (found == NULL || (detections == NULL && capacity > 0))
        return votecl__fail(hog->context, VOTECL_INVALID_ARGUMENT,
                            "found, detections: NULL pointer");
    VOTECL__ENTER_OR_RETURN(hog->context); /* begin and end as one call */
    s = votecl_hog_detect_begin(hog, image, rois, nrois);
    return s == VOTECL_OK ? votecl_hog_detect_end(hog, detections, capacity, found) : s;
}

votecl_status
votecl_hog_last_windows(const votecl_hog *hog, votecl_hog_detection *detections,
                        size_t capacity, size_t *found)
{
    if (hog == NULL || found == NULL || (detections == NULL && capacity > 0))
        return VOTECL_INVALID_ARGUMENT;
    *found = hog->nraw;
    if (capacity > 0 && hog->nraw > 0) /* raw is NULL before any window was kept */
        memcpy(detections, hog->raw, (capacity < hog->nraw ? capacity : hog->nraw) *
                                         sizeof *detections);
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
                        const votecl_hog_rect *rois, size_t nrois,
                        votecl_hog_detection *detections, size_t capacity, size_t *found)
{
    votecl_hog_rect *mine;
    votecl_hog_detection *all = NULL;
    size_t nall = 0;
    votecl_status s, e = VOTECL_OK;

    if (hogs == NULL || n == 0 || found == NULL || (rois == NULL && nrois > 0))
        return VOTECL_INVALID_ARGUMENT;
    for (size_t h = 0; h < n; h++)
        if (hogs[h] == NULL)
            return votecl__fail(hogs[0] != NULL ? hogs[0]->context : NULL,
                                VOTECL_INVALID_ARGUMENT, "hogs[%zu]: NULL pointer", h);
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
