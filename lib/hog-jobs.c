/* HOG's jobs: the pyramid levels of every region (OpenCV's detectMultiScale levels), each
 * with its part of the shared buffers, and the tables cl/hog.cl's kernels read: the job
 * table (HOG_JOB ints a job), then each level's resize tables in the form its implementation
 * reads (the block kernels' and the reference's, or the row kernels' with their row tables);
 * and a window of a job kept with OpenCV's box. */
#include "hog-detector.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The row length of n pixels in the implementation's buffers: whole multiples of its tile
 * (the row kernels' work-groups; 1 elsewhere: packed). */
static size_t
pitch(const votecl_hog *hog, size_t n)
{
    return (n + hog->tile - 1) / hog->tile * hog->tile;
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
    hog->ntabs += hog->impl->layout->level_tables(hog, l);
    hog->nbrows += l->nby;
    hog->nwrows += l->nwy;
    hog->nrh += (size_t)l->gh * l->nbx;
    hog->max_pw = hog->max_pw > l->gw + 2 ? hog->max_pw : l->gw + 2;
    hog->max_nbx = hog->max_nbx > l->nbx ? hog->max_nbx : l->nbx;
    hog->max_nwx = hog->max_nwx > l->nwx ? hog->max_nwx : l->nwx;
    /* rows of pitch() pixels (cl/hog-cpu.cl's HOG_PITCH) */
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

votecl_status
votecl__hog_jobs_plan(votecl_hog *hog, const votecl_hog_rect *rois, size_t nrois, int pyramid)
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

/* --- the block kernels' and the reference's tables: resize tables of the level --- */

static size_t
level_tables_block(const votecl_hog *hog, const votecl__hog_level *l)
{
    (void)hog;
    return 2 * (size_t)l->width + 2 * (size_t)l->height;
}

static size_t
tables_size_block(const votecl_hog *hog)
{
    size_t n = hog->njobs * HOG_JOB + hog->ntabs;

    return n > 0 ? n : 1;
}

static votecl_status
fill_tables_block(votecl_hog *hog)
{
    for (size_t i = 0; i < hog->njobs; i++) {
        const hog_job *j = &hog->jobs[i];
        int32_t *x = hog->tabs + hog->njobs * HOG_JOB + j->tab, *y = x + 2 * (size_t)j->level.width;

        votecl__hog_resize_table((uint32_t)j->roi.width, j->level.width, x, x + j->level.width);
        votecl__hog_resize_table((uint32_t)j->roi.height, j->level.height, y, y + j->level.height);
    }
    return VOTECL_OK;
}

/* --- the row kernels' tables: resize tables in padded coordinates, then row tables --- */

static size_t
level_tables_rows(const votecl_hog *hog, const votecl__hog_level *l)
{
    return 2 * pitch(hog, (size_t)l->gw + 2) + 2 * ((size_t)l->gh + 2);
}

/* The row tables' first pair: after the job and resize tables, at an even int. */
static size_t
row_tables_start(const votecl_hog *hog)
{
    return (hog->njobs * HOG_JOB + hog->ntabs + 1) / 2;
}

static size_t
tables_size_rows(const votecl_hog *hog)
{
    size_t n = 2 * (row_tables_start(hog) + hog->nprows + hog->nrows + hog->nbrows + hog->nwrows);

    return n > 0 ? n : 1;
}

/* The resize tables of job j in padded coordinates (reflect-101 applied): index and weight
 * of each of the pitch(gw + 2) columns, then of the gh + 2 rows; scratch holds
 * 2 max(width, height) ints. */
static void
fill_padded_tables(const votecl_hog *hog, const hog_job *j, int32_t *t, int32_t *scratch)
{
    const votecl__hog_level *l = &j->level;
    uint32_t n[2] = {(uint32_t)pitch(hog, l->gw + 2), l->gh + 2}, side[2] = {l->width, l->height};
    uint32_t last[2] = {l->gw + 1, l->gh + 1};
    uint32_t pad[2] = {l->pad_x, l->pad_y},
             src[2] = {(uint32_t)j->roi.width, (uint32_t)j->roi.height};

    for (int axis = 0; axis < 2; axis++) {
        votecl__hog_resize_table(src[axis], side[axis], scratch, scratch + side[axis]);
        for (uint32_t p = 0; p < n[axis]; p++) {
            /* columns past the padded level (pitch) repeat its last one */
            int32_t s = votecl__hog_reflect101(
                (int64_t)(p < last[axis] ? p : last[axis]) - 1 - pad[axis], (int32_t)side[axis]);

            t[p] = scratch[s];
            t[n[axis] + p] = scratch[side[axis] + s];
        }
        t += 2 * (size_t)n[axis];
    }
}

/* For every row of a kind (padded level, gradient, block, window rows in turn), its job and
 * its row in the job, as pairs after the resize tables. */
static void
fill_row_tables(votecl_hog *hog, int32_t *t)
{
    for (int kind = 0; kind < 4; kind++)
        for (size_t i = 0; i < hog->njobs; i++) {
            const votecl__hog_level *l = &hog->jobs[i].level;
            size_t n = kind == 0   ? (size_t)l->gh + 2
                       : kind == 1 ? l->gh
                       : kind == 2 ? l->nby
                                   : l->nwy;

            for (size_t r = 0; r < n; r++) {
                *t++ = (int32_t)i;
                *t++ = (int32_t)r;
            }
        }
}

static votecl_status
fill_tables_rows(votecl_hog *hog)
{
    size_t head = hog->njobs * HOG_JOB;
    int32_t *scratch = votecl__malloc(2 * (size_t)VOTECL_HOG_MAX_SIDE * sizeof *scratch);

    if (scratch == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    for (size_t i = 0; i < hog->njobs; i++)
        fill_padded_tables(hog, &hog->jobs[i], hog->tabs + head + hog->jobs[i].tab, scratch);
    free(scratch);
    hog->rowtab = row_tables_start(hog);
    fill_row_tables(hog, hog->tabs + 2 * hog->rowtab);
    return VOTECL_OK;
}

const votecl__hog_layout votecl__hog_layout_packed = {
    .level_tables = level_tables_block,
    .size = tables_size_block,
    .fill = fill_tables_block,
};

const votecl__hog_layout votecl__hog_layout_rows = {
    .level_tables = level_tables_rows,
    .size = tables_size_rows,
    .fill = fill_tables_rows,
};

/* --- the job table --- */

static void
fill_job(const votecl_hog *hog, const hog_job *j, int32_t *t)
{
    const votecl__hog_level *l = &j->level;

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
    t[J_TAB] = (int32_t)(hog->njobs * HOG_JOB + j->tab);
    t[J_PIX] = (int32_t)j->pix;
    t[J_BLK] = (int32_t)j->blk;
    t[J_WIN] = (int32_t)j->score;
    t[J_PAD] = (int32_t)j->pad;
    t[J_ROW] = (int32_t)j->row;
    t[J_PROW] = (int32_t)j->prow;
    t[J_RB] = (int32_t)j->rb;
}

votecl_status
votecl__hog_jobs_tables(votecl_hog *hog)
{
    size_t total = hog->impl->layout->size(hog);
    votecl_status status;

    hog->tabs_on_device = 0;
    free(hog->tabs);
    hog->tabs = votecl__malloc(total * sizeof *hog->tabs);
    if (hog->tabs == NULL)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if (hog->nscores > SIZE_MAX / sizeof *hog->scores)
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory: %zu scores",
                            hog->nscores);
    /* every score, or the block kernels' hits (HOG_HITS_BYTES) read into the same memory */
    status = votecl__staging_ensure(hog->context, &hog->scores_mem,
                                    hog->nscores * sizeof *hog->scores > HOG_HITS_BYTES
                                        ? hog->nscores * sizeof *hog->scores
                                        : HOG_HITS_BYTES);
    if (status != VOTECL_OK)
        return status;
    hog->scores = hog->scores_mem.ptr;
    for (size_t i = 0; i < hog->njobs; i++)
        fill_job(hog, &hog->jobs[i], hog->tabs + i * HOG_JOB);
    return hog->impl->layout->fill(hog);
}

/* --- the windows kept --- */

static votecl_status
push_raw(votecl_hog *hog, const hog_job *j, uint32_t wx, uint32_t wy, float score)
{
    const votecl__hog_level *l = &j->level;
    votecl_hog_detection *d;

    if (votecl__grow((void **)&hog->raw, &hog->raw_cap, hog->nraw + 1, sizeof *hog->raw, 256))
        return votecl__fail(hog->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    d = &hog->raw[hog->nraw++];
    /* OpenCV's detectMultiScale: the level's window corner and size times the scale, rounded */
    d->box.x = (int32_t)lrint(((double)wx * hog->geom.wstride_x - l->pad_x) * l->scale) + j->roi.x;
    d->box.y = (int32_t)lrint(((double)wy * hog->geom.wstride_y - l->pad_y) * l->scale) + j->roi.y;
    d->box.width = (int32_t)lrint(hog->geom.win_w * l->scale);
    d->box.height = (int32_t)lrint(hog->geom.win_h * l->scale);
    d->score = score;
    d->scale = l->scale;
    return VOTECL_OK;
}

votecl_status
votecl__hog_jobs_keep(votecl_hog *hog, size_t win, float score)
{
    size_t lo = 0, hi = hog->njobs, r;
    const hog_job *j;

    /* a device's window index is checked before it picks a box */
    if (win >= hog->nscores)
        return votecl__fail(hog->context, VOTECL_DEVICE_ERROR,
                            "hog: the device kept window %zu of %zu", win, hog->nscores);
    while (hi - lo > 1) { /* the last job whose windows start at or before win */
        size_t mid = lo + (hi - lo) / 2;

        if (hog->jobs[mid].score <= win)
            lo = mid;
        else
            hi = mid;
    }
    j = &hog->jobs[lo];
    r = win - j->score;
    return push_raw(hog, j, (uint32_t)(r % j->level.nwx), (uint32_t)(r / j->level.nwx), score);
}

votecl_status
votecl__hog_jobs_keep_scores(votecl_hog *hog)
{
    votecl_status s = VOTECL_OK;

    for (size_t i = 0; i < hog->njobs; i++) {
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
