/* HOG on the device, either kernel set: the program built with the geometry's defines, the
 * constant tables, the intermediates' buffers, and the row kernels' launches. */
#include "hog-detector.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The block kernels (cl/hog.cl) and the row kernels (cl/hog-cpu.cl, composed after it):
 * 2-D launches, a row of a level per work-group. */
static const char *const files_block[] = {"hog.cl", NULL};
static const char *const files_rows[] = {"hog.cl", "hog-cpu.cl", NULL};
static const char *const kernels_block[K_COUNT] = {"hog_gradient_all", "hog_blocks_all",
                                                   "hog_svm_all"};
static const char *const kernels_rows[K_COUNT] = {
    "hog_gradient_px1", "hog_blocks_px",    "hog_svm_px",      "hog_level_px1",
    "hog_level_px3",    "hog_gradient_px3", "hog_rowhist_rows"};

/* A float as an OpenCL C literal that round-trips (%.9g, made a floating constant). */
static void
float_literal(char *out, size_t size, float v)
{
    int n = snprintf(out, size, "%.9g", v);

    if (n > 0 && (size_t)n + 3 < size && strpbrk(out, ".en") == NULL)
        strcat(out, ".0");
    if (n > 0 && strlen(out) + 2 < size)
        strcat(out, "f");
}

/* Appends "CONSTANT float name[n] = {...};" to src (size bytes, used of them so far; room
 * for 24 bytes a value and the rest). The new used. */
static size_t
append_table(char *src, size_t size, size_t used, const char *name, const float *v, unsigned n)
{
    char lit[32];

    used += (size_t)snprintf(src + used, size - used, "CONSTANT float %s[%u] = {", name, n);
    for (unsigned k = 0; k < n; k++) {
        float_literal(lit, sizeof lit, v[k]);
        used += (size_t)snprintf(src + used, size - used, "%s%s", k > 0 ? ", " : "", lit);
    }
    return used + (size_t)snprintf(src + used, size - used, "};\n");
}

/* Hard binning's tables (votecl__hog_geom; entry 0 of the boundaries unused), composed before
 * hog.cl; the trilinear program has none and keeps its text. Caller-owned; NULL when out of
 * memory. */
static char *
hard_tables_source(const votecl__hog_geom *g)
{
    size_t size = 2 * (size_t)g->nbins * 24 + 256, used = 0;
    char *src = votecl__malloc(size);

    if (src == NULL)
        return NULL;
    used = append_table(src, size, used, "hog_bound_c", g->bound_c, g->nbins);
    used = append_table(src, size, used, "hog_bound_s", g->bound_s, g->nbins);
    snprintf(src + used, size - used, "CONSTANT uchar hog_tie_bin[4] = {%u, %u, %u, %u};\n",
             g->tie_bin[0], g->tie_bin[1], g->tie_bin[2], g->tie_bin[3]);
    return src;
}

static size_t
hog_defines(const votecl__hog_geom *g, unsigned local, char defs[][64])
{
    size_t n = 0;
    char lit[32];

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
    snprintf(defs[n++], 64, "HOG_HITS=%u", HOG_HITS);
    snprintf(defs[n++], 64, "HOG_SVM_WINS=%u", (unsigned)VOTECL_HOG_SVM_WINDOWS);
    snprintf(defs[n++], 64, "HOG_L2HYS_PASSES=%u", (unsigned)VOTECL_HOG_L2HYS_PASSES);
    /* %.9g round-trips a float: the device sees the host's constants bit for bit (a whole
     * threshold such as 1 written 1.0f) */
    float_literal(lit, sizeof lit, g->l2hys);
    snprintf(defs[n++], 64, "HOG_L2HYS=%s", lit);
    snprintf(defs[n++], 64, "HOG_ANGLE_SCALE=%.9gf", (float)(g->nbins / M_PI));
    snprintf(defs[n++], 64, "HOG_DEG2RAD=%.9gf", (float)(M_PI / 180));
    snprintf(defs[n++], 64, "HOG_P1=%.9gf", 0.9997878412794807f * (float)(180 / M_PI));
    snprintf(defs[n++], 64, "HOG_P3=%.9gf", -0.3258083974640975f * (float)(180 / M_PI));
    snprintf(defs[n++], 64, "HOG_P5=%.9gf", 0.1555786518463281f * (float)(180 / M_PI));
    snprintf(defs[n++], 64, "HOG_P7=%.9gf", -0.04432655554792128f * (float)(180 / M_PI));
    snprintf(defs[n++], 64, "HOG_EPS=%.9gf", (float)2.220446049250313e-16);
    /* the defaults' program keeps its text: these only when asked for */
    if (g->norm != VOTECL_HOG_NORM_L2HYS)
        snprintf(defs[n++], 64, "HOG_NORM=%d", (int)g->norm);
    if (g->hard)
        snprintf(defs[n++], 64, "HOG_HARD=1");
    return n;
}

/* The row kernels' defines beyond hog.cl's. */
static size_t
hog_defines_rows(const votecl_hog *hog, char defs[][64])
{
    size_t n = 0;

    snprintf(defs[n++], 64, "HOG_TILE=%u", hog->tile);
    snprintf(defs[n++], 64, "HOG_GAMMA=%d", hog->geom.gamma);
    snprintf(defs[n++], 64, "HOG_CELLS_X=%u", hog->geom.cells_x);
    snprintf(defs[n++], 64, "HOG_CELLS_Y=%u", hog->geom.cells_y);
    return n;
}

/* Builds files with the geometry's defines (and the row kernels' when rows) and creates the
 * kernels named; hog->local is HOG_LOCAL: local at most, halved while the per-work-item block
 * histograms (block_len (local + 2) floats) exceed the local memory or the work-group. */
static votecl_status
hog_compile(votecl_hog *hog, const char *const *files, const char *const *names, unsigned local,
            int rows)
{
    char defs[32][64];
    const char *ptrs[32];
    char *tables = NULL;
    const votecl_device_info *info = &hog->context->info;
    size_t n, lmem = info->local_mem_bytes > 2048 ? info->local_mem_bytes - 1024 : 1024;
    votecl__program *program;
    votecl_status status;

    while (local > 1 && (local > info->max_work_group_size ||
                         (size_t)hog->geom.block_len * (local + 2) * sizeof(float) > lmem))
        local /= 2;
    hog->local = local;
    votecl__log(hog->context, "plan: hog %s kernels, work-groups of %u", hog->impl->name,
                rows ? hog->tile : local);
    n = hog_defines(&hog->geom, local, defs);
    if (rows)
        n += hog_defines_rows(hog, defs + n);
    for (size_t i = 0; i < n; i++)
        ptrs[i] = defs[i];
    if (hog->geom.hard && (tables = hard_tables_source(&hog->geom)) == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    status = votecl__program_get(hog->context, files, ptrs, n, tables, &program);
    free(tables);
    for (int k = 0; k < K_COUNT && status == VOTECL_OK; k++)
        if (names[k] != NULL)
            status = votecl__program_kernel(hog->context, program, names[k], &hog->kernels[k]);
    return status;
}

votecl_status
votecl__hog_upload(votecl_hog *hog, votecl_buffer **buffer, const void *data, size_t size)
{
    votecl_status status = votecl__buffer_ensure(hog->context, buffer, size);

    if (status == VOTECL_OK)
        status = votecl_buffer_write(*buffer, 0, data, size);
    return status;
}

/* The constant tables both kernel sets read: gamma and the SVM weights. */
static votecl_status
upload_shared(votecl_hog *hog)
{
    votecl_status status = votecl__hog_upload(hog, &hog->buf.lut, hog->lut, sizeof hog->lut);

    if (status == VOTECL_OK && hog->model != NULL) {
        size_t length;
        const float *w;

        votecl_hog_model_get(hog->model, &length, &w, NULL);
        status = votecl__hog_upload(hog, &hog->buf.svm, w, length * sizeof(float));
    }
    return status;
}

/* The block kernels: work-groups of 64 at most, the block weights whole. */
votecl_status
votecl__hog_prepare_block(votecl_hog *hog)
{
    const votecl__hog_geom *g = &hog->geom;
    size_t wsize = (size_t)g->block_w * g->block_h * g->ncells * sizeof(float);
    votecl_status status = hog_compile(hog, files_block, kernels_block, 64, 0);

    if (status == VOTECL_OK)
        status = votecl__hog_upload(hog, &hog->buf.weights, hog->block_weights, wsize);
    return status == VOTECL_OK ? upload_shared(hog) : status;
}

/* The row kernels: no local memory or barriers, the block weights as two factors. */
votecl_status
votecl__hog_prepare_rows(votecl_hog *hog)
{
    const votecl__hog_geom *g = &hog->geom;
    size_t nx = (size_t)g->block_w * g->cells_x, ny = (size_t)g->block_h * g->cells_y;
    votecl_status status = hog_compile(hog, files_rows, kernels_rows, 1, 1);
    float *w;

    if (status != VOTECL_OK)
        return status;
    if ((w = votecl__malloc((nx + ny) * sizeof *w)) == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    votecl__hog_block_weights_split(g, w, w + nx);
    status = votecl__hog_upload(hog, &hog->buf.wx, w, nx * sizeof *w);
    if (status == VOTECL_OK)
        status = votecl__hog_upload(hog, &hog->buf.wy, w + nx, ny * sizeof *w);
    free(w);
    return status == VOTECL_OK ? upload_shared(hog) : status;
}

/* The block kernels' intermediate beyond the shared ones: the windows kept (count, pairs). */
votecl_status
votecl__hog_buffers_block(votecl_hog *hog)
{
    return votecl__buffer_ensure(hog->context, &hog->buf.hits, HOG_HITS_BYTES);
}

/* The row kernels' intermediates: the padded levels, the row histograms, the transposed
 * blocks (room for the last lanes of hog_svm_px past a row). */
votecl_status
votecl__hog_buffers_rows(votecl_hog *hog)
{
    hog_buffers *b = &hog->buf;
    size_t blk = hog->nblk ? hog->nblk : 1;
    votecl_status s;

    if ((s = votecl__buffer_ensure(hog->context, &b->level,
                                   (hog->npad + 2 * (size_t)hog->tile) * hog->ch *
                                       sizeof(float))) ||
        (s = votecl__buffer_ensure(
             hog->context, &b->rh,
             ((hog->nrh ? hog->nrh : 1) * hog->geom.cells_x * hog->geom.nbins + HOG_BLOCK_LANES) *
                 sizeof(float))))
        return s;
    return votecl__buffer_ensure(
        hog->context, &b->histt,
        (blk * hog->geom.block_len + HOG_SVM_LANES * (hog->geom.wstride_x / hog->geom.grid_x + 1)) *
            sizeof(float));
}

/* Every job's intermediates, allocated once (grown when needed), the source and the tables
 * uploaded (the tables once per plan). */
votecl_status
votecl__hog_device_buffers(votecl_hog *hog)
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
    if (hog->impl->stages->buffers != NULL && (s = hog->impl->stages->buffers(hog)) != VOTECL_OK)
        return s;
    if (hog->source == NULL && (s = votecl__hog_upload(hog, &b->image, hog->conv.ptr,
                                                       hog->conv_w * hog->conv_h * hog->ch)))
        return s;
    if (hog->tabs_on_device)
        return VOTECL_OK;
    s = votecl__hog_upload(hog, &b->tab, hog->tabs, hog->impl->layout->size(hog) * sizeof(int32_t));
    if (s == VOTECL_OK)
        hog->tabs_on_device = 1;
    return s;
}

votecl_status
votecl__hog_launch_rows(votecl_hog *hog, int k, size_t n, size_t local, size_t rows,
                        const votecl__arg *args, unsigned nargs)
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
