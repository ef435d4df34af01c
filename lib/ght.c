/* The generalized Hough transform: validate, build the model (template edges, sorted lists,
 * pairings or R-table) once, detect many times. So far only the 'ref' backend runs it
 * (lib/ght-ref.c); OpenCL contexts get VOTECL_UNSUPPORTED until the device stages
 * (cl/ght.cl: pairing LB/SSM, replicated votes, maxima) exist. Work in progress: issue 6. */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ght-private.h"

struct votecl_ght_model {
    votecl_context *context;
    votecl__ght_desc desc;
    votecl__ght_edges edges;   /* the template's, sorted by bin */
    votecl__ght_pairs pairs;   /* Guil */
    votecl__ght_rtable rtable; /* Ballard */
    votecl__ght_device *dev;   /* the vote stages on an OpenCL context, else NULL */
    uint32_t *ospace;          /* Guil on a device: the template's O space (L * L) */
    votecl_ght_stats last;
};

void
votecl_ght_params_init(votecl_ght_params *params, votecl_ght_method method)
{
    if (params == NULL)
        return;
    memset(params, 0, sizeof *params);
    params->method = method;
    params->levels = 360;
    params->canny_low = 50;
    params->canny_high = 100;
    params->min_angle = 0;
    params->max_angle = method == VOTECL_GHT_BALLARD ? 1 : 360;
    params->angle_step = 1;
    params->min_scale = method == VOTECL_GHT_BALLARD ? 1 : 0.5;
    params->max_scale = method == VOTECL_GHT_BALLARD ? 1 : 2;
    params->scale_step = 0.05;
    params->dp = 2;
    params->min_dist = 10;
    params->xi = 90;
    params->angle_epsilon = 1;
    params->max_rotations = 4;
    params->max_scales = 2;
    params->pairing = VOTECL_GHT_PAIRING_AUTO;
    params->votes_ratio = 0.5;
}

#define BAD(...) (snprintf(msg, msg_size, __VA_ARGS__), VOTECL_INVALID_ARGUMENT)

static votecl_status
check_search(const votecl_ght_params *p, char *msg, size_t msg_size)
{
    if (!(p->angle_step > 0) || !(p->max_angle > p->min_angle) ||
        p->max_angle - p->min_angle > 360 || fabs(p->min_angle) > 360)
        return BAD("min_angle, max_angle, angle_step: need step > 0, min < max <= min + 360");
    if ((p->max_angle - p->min_angle) / p->angle_step > 100000)
        return BAD("angle_step: more than 100000 rotations");
    if (!(p->scale_step > 0) || !(p->min_scale > 0) || !(p->max_scale >= p->min_scale))
        return BAD("min_scale, max_scale, scale_step: need step > 0, 0 < min <= max");
    if ((p->max_scale - p->min_scale) / p->scale_step > 100000)
        return BAD("scale_step: more than 100000 scales");
    if (p->dp < 1)
        return BAD("dp: must be at least 1");
    if (!(p->min_dist >= 0))
        return BAD("min_dist: must not be negative");
    return VOTECL_OK;
}

static votecl_status
check_params(const votecl_ght_params *p, char *msg, size_t msg_size)
{
    if (p->method != VOTECL_GHT_GUIL && p->method != VOTECL_GHT_BALLARD)
        return BAD("method: %d is neither GUIL nor BALLARD", (int)p->method);
    if (p->levels < 4 || p->levels > VOTECL_GHT_MAX_LEVELS)
        return BAD("levels: %u is not between 4 and %u", p->levels, VOTECL_GHT_MAX_LEVELS);
    if (p->canny_low > p->canny_high)
        return BAD("canny_low: %u exceeds canny_high %u", p->canny_low, p->canny_high);
    if (p->method == VOTECL_GHT_GUIL && (!(p->xi > 0) || !(p->xi < 360)))
        return BAD("xi: must lie in (0, 360) degrees");
    if (p->angle_epsilon > (p->levels - 1) / 2) /* 2 eps + 1 bins; no overflow */
        return BAD("angle_epsilon: %u bins cover more than the %u levels", p->angle_epsilon,
                   p->levels);
    if (p->pairing > VOTECL_GHT_PAIRING_SSM)
        return BAD("pairing: %d is not AUTO, LB or SSM", (int)p->pairing);
    if (!(p->votes_ratio >= 0 && p->votes_ratio <= 1))
        return BAD("votes_ratio: must lie in [0, 1]");
    if (p->max_rotations < 1 || p->max_scales < 1)
        return BAD("%s: must be at least 1", p->max_rotations < 1 ? "max_rotations" : "max_scales");
    return check_search(p, msg, msg_size);
}

static votecl_status
check_edges(votecl_context *ctx, const votecl_ght_edge *edges, size_t n, size_t width,
            size_t height)
{
    if (width < 1 || height < 1 || width > VOTECL_GHT_MAX_SIDE || height > VOTECL_GHT_MAX_SIDE)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT,
                            "width, height: %zu x %zu is not between 1 and %u a side", width,
                            height, VOTECL_GHT_MAX_SIDE);
    if (n > 0 && edges == NULL)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT, "edges: NULL pointer");
    if (n > (size_t)width * height)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT, "n: %zu edges exceed the pixels", n);
    for (size_t i = 0; i < n; i++)
        if (edges[i].x >= width || edges[i].y >= height ||
            (edges[i].gx == 0 && edges[i].gy == 0))
            return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT,
                                "edges[%zu]: outside %zu x %zu or without a gradient", i, width,
                                height);
    return VOTECL_OK;
}

/* The points of caller edges (malloc'd). */
static votecl_status
edge_points(votecl_context *ctx, const votecl__ght_desc *desc, const votecl_ght_edge *edges,
            size_t n, votecl__ght_point **out)
{
    votecl__ght_point *p = votecl__malloc((n > 0 ? n : 1) * sizeof *p);

    if (p == NULL)
        return votecl__fail(ctx, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for %zu edges", n);
    for (size_t i = 0; i < n; i++) {
        p[i].x = (int32_t)edges[i].x;
        p[i].y = (int32_t)edges[i].y;
        p[i].bin = votecl__ght_bin(desc, edges[i].gx, edges[i].gy);
    }
    *out = p;
    return VOTECL_OK;
}

/* Canny (Guil) or Sobel + NMS + threshold (Ballard) points of a u8 image (malloc'd). */
static votecl_status
image_points(votecl_context *ctx, const votecl__ght_desc *desc, const votecl_image *image,
             votecl__ght_point **out, size_t *n)
{
    size_t row_bytes, pixels;
    const void *data;
    void *copy = NULL;
    unsigned low = desc->p.method == VOTECL_GHT_GUIL ? desc->p.canny_low : desc->p.canny_high;
    votecl_status status = votecl__image_check(ctx, image, VOTECL_DTYPE_U8, 1, &row_bytes,
                                               &pixels);

    if (status != VOTECL_OK)
        return status;
    if (image->width > VOTECL_GHT_MAX_SIDE || image->height > VOTECL_GHT_MAX_SIDE)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT, "image.width, image.height: above %u",
                            VOTECL_GHT_MAX_SIDE);
    if ((status = votecl__image_packed(ctx, image, row_bytes, &data, &copy)) != VOTECL_OK)
        return status;
    if ((*out = votecl__malloc((pixels > 0 ? pixels : 1) * sizeof **out)) == NULL)
        status = votecl__fail(ctx, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for edges");
    else if ((*n = votecl__ght_ref_canny(desc, data, (uint32_t)image->width,
                                         (uint32_t)image->height, low, desc->p.canny_high,
                                         *out)) ==
             (size_t)-1)
        status = votecl__fail(ctx, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for edges");
    free(copy);
    return status;
}

/* Sorted lists, then pairings or the R-table, from the template's points. */
static votecl_status
model_build(votecl_ght_model *m, const votecl__ght_point *points, size_t n)
{
    votecl_context *ctx = m->context;
    votecl_status status;

    if (n < 2)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT,
                            "template: %zu edge points, at least 2 are needed", n);
    if ((status = votecl__ght_edges_sort(points, n, m->desc.levels, &m->edges)) != VOTECL_OK)
        return votecl__fail(ctx, status, "out of memory for the template's edges");
    m->last.template_edges = n;
    if (m->desc.p.method == VOTECL_GHT_BALLARD) {
        status = votecl__ght_rtable_build(&m->edges, m->desc.levels, m->desc.cx, m->desc.cy,
                                          &m->rtable);
        return status == VOTECL_OK ? status
                                   : votecl__fail(ctx, status, "out of memory for the R-table");
    }
    if ((status = votecl__ght_ref_pairs(&m->desc, &m->edges, &m->pairs)) != VOTECL_OK)
        return votecl__fail(ctx, status, "template: pairings do not fit memory");
    m->last.template_pairings = m->pairs.n;
    if (m->pairs.n == 0)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT,
                            "template: no two edge points have gradients xi apart");
    return VOTECL_OK;
}

/* The pairing mechanism for sorted edges: the parameter, or for AUTO, LB when the non-empty
 * bins hold at least GHT_AUTO_LB points on average (chunks fill the work-groups: the
 * comparisons dealt evenly pay for the local copies), SSM otherwise (short sub-lists: one
 * point per work-item, no chunk staging). */
#define GHT_AUTO_LB 32u

static votecl_ght_pairing
choose_pairing(const votecl_ght_model *m, const votecl__ght_edges *edges)
{
    uint32_t used = 0;

    if (m->desc.p.pairing != VOTECL_GHT_PAIRING_AUTO)
        return m->desc.p.pairing;
    for (uint32_t b = 0; b < m->desc.levels; b++)
        used += edges->offsets[b + 1] > edges->offsets[b];
    return used > 0 && edges->n / used >= GHT_AUTO_LB ? VOTECL_GHT_PAIRING_LB
                                                       : VOTECL_GHT_PAIRING_SSM;
}

/* On an OpenCL context: the vote kernels, and Guil's template O space on the device. */
static votecl_status
model_device(votecl_ght_model *m)
{
    size_t keys = (size_t)m->desc.levels * m->desc.levels;
    votecl_status status;

    if (m->context->backend == VOTECL_BACKEND_REF)
        return VOTECL_OK;
    if ((status = votecl__ght_device_new(m->context, &m->desc, &m->dev)) != VOTECL_OK ||
        m->desc.p.method != VOTECL_GHT_GUIL)
        return status;
    if ((m->ospace = votecl__malloc(keys * sizeof *m->ospace)) == NULL)
        return votecl__fail(m->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    return votecl__ght_device_ospace(m->dev, &m->edges, choose_pairing(m, &m->edges),
                                     m->ospace);
}

static votecl_status
model_start(votecl_context *context, const votecl_ght_params *params, votecl_ght_model **out,
            votecl_ght_model **model)
{
    char msg[256];
    votecl_status status;

    if ((status = votecl__new_begin(context, params, "params", out)) != VOTECL_OK)
        return status;
    *out = NULL;
    if ((status = check_params(params, msg, sizeof msg)) != VOTECL_OK)
        return votecl__fail(context, status, "%s", msg);
    if ((*model = votecl__calloc(1, sizeof **model)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a model");
    (*model)->context = context;
    votecl__ght_desc_init(&(*model)->desc, params);
    return VOTECL_OK;
}

static votecl_status
model_end(votecl_ght_model *model, votecl__ght_point *points, size_t n, votecl_status status,
          votecl_ght_model **out)
{
    if (status == VOTECL_OK)
        status = model_build(model, points, n);
    if (status == VOTECL_OK)
        status = model_device(model);
    free(points);
    if (status != VOTECL_OK) {
        votecl_ght_model_free(model);
        return status;
    }
    *out = model;
    return VOTECL_OK;
}

votecl_status
votecl_ght_model_new(votecl_context *context, const votecl_ght_params *params,
                     const votecl_image *image, votecl_ght_model **out)
{
    votecl_ght_model *model = NULL;
    votecl__ght_point *points = NULL;
    size_t n = 0;
    votecl_status status = model_start(context, params, out, &model);

    if (status != VOTECL_OK)
        return status;
    if (image != NULL) {
        model->desc.cx = ((double)image->width - 1) / 2;
        model->desc.cy = ((double)image->height - 1) / 2;
    }
    status = image_points(context, &model->desc, image, &points, &n);
    return model_end(model, points, n, status, out);
}

votecl_status
votecl_ght_model_new_edges(votecl_context *context, const votecl_ght_params *params,
                           const votecl_ght_edge *edges, size_t n, size_t width, size_t height,
                           double cx, double cy, votecl_ght_model **out)
{
    votecl_ght_model *model = NULL;
    votecl__ght_point *points = NULL;
    votecl_status status = model_start(context, params, out, &model);

    if (status != VOTECL_OK)
        return status;
    model->desc.cx = cx;
    model->desc.cy = cy;
    if (!isfinite(cx) || !isfinite(cy))
        status = votecl__fail(context, VOTECL_INVALID_ARGUMENT, "cx, cy: not finite");
    else if ((status = check_edges(context, edges, n, width, height)) == VOTECL_OK)
        status = edge_points(context, &model->desc, edges, n, &points);
    return model_end(model, points, n, status, out);
}

void
votecl_ght_model_free(votecl_ght_model *model)
{
    if (model == NULL)
        return;
    votecl__ght_edges_clear(&model->edges);
    votecl__ght_pairs_clear(&model->pairs);
    votecl__ght_rtable_clear(&model->rtable);
    votecl__ght_device_free(model->dev);
    free(model->ospace);
    free(model);
}

void
votecl_ght_model_params(const votecl_ght_model *model, votecl_ght_params *params)
{
    if (model != NULL && params != NULL)
        *params = model->desc.p;
}

/* --- detection --- */

/* Guil's O, S and D on the device over the pairings the host sorted. */
static votecl_status
device_guil(votecl_ght_model *m, const votecl__ght_edges *edges, const votecl__ght_pairs *pairs,
            uint32_t w, uint32_t h, votecl__ght_poses *poses)
{
    size_t keys = (size_t)m->desc.levels * m->desc.levels;
    votecl__ght_stages stages = {votecl__ght_device_sspace, votecl__ght_device_dspace, m->dev};
    uint32_t *oi = votecl__malloc(keys * sizeof *oi);
    votecl_status status;

    if (oi == NULL)
        return votecl__fail(m->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    m->last.pairing = choose_pairing(m, edges);
    if ((status = votecl__ght_device_ospace(m->dev, edges, m->last.pairing, oi)) == VOTECL_OK &&
        (status = votecl__ght_device_bind(m->dev, &m->pairs, pairs)) == VOTECL_OK)
        status = votecl__ght_guil(&m->desc, &stages, m->ospace, oi, &m->pairs, pairs, w, h,
                                  poses);
    free(oi);
    if (status == VOTECL_OUT_OF_HOST_MEMORY)
        return votecl__fail(m->context, status, "out of memory");
    return status;
}

static votecl_status
detect_guil(votecl_ght_model *m, const votecl__ght_edges *edges, uint32_t w, uint32_t h,
            votecl__ght_poses *poses)
{
    votecl__ght_pairs pairs;
    votecl_status status = votecl__ght_ref_pairs(&m->desc, edges, &pairs);

    if (status != VOTECL_OK)
        return votecl__fail(m->context, status, "image: pairings do not fit memory");
    m->last.image_pairings = pairs.n;
    if (m->dev != NULL) {
        status = device_guil(m, edges, &pairs, w, h, poses);
        votecl__ght_pairs_clear(&pairs);
        return status;
    }
    status = votecl__ght_ref_guil(&m->desc, &m->pairs, &pairs, w, h, poses);
    votecl__ght_pairs_clear(&pairs);
    return status == VOTECL_OK ? status : votecl__fail(m->context, status, "out of memory");
}

static votecl_status
detect_ballard(votecl_ght_model *m, const votecl__ght_edges *edges, uint32_t w, uint32_t h,
               votecl__ght_poses *poses)
{
    size_t cells = votecl__ght_ballard_cells(&m->desc, w, h);
    uint32_t *space;
    votecl_status status = VOTECL_OK;

    if (cells == 0 || cells > ((size_t)1 << 31))
        return votecl__fail(m->context, VOTECL_INVALID_ARGUMENT,
                            "image, rotations, scales: the accumulator is too large");
    if ((space = votecl__malloc(cells * sizeof *space)) == NULL)
        return votecl__fail(m->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for %zu cells", cells);
    if (m->dev != NULL)
        status = votecl__ght_device_ballard(m->dev, &m->rtable, edges, w, h, space);
    else
        votecl__ght_ref_ballard_vote(&m->desc, &m->rtable, edges, w, h, space);
    if (status == VOTECL_OK)
        status = votecl__ght_ref_ballard_peaks(&m->desc, space, w, h, poses);
    free(space);
    return status != VOTECL_OUT_OF_HOST_MEMORY ? status
                                               : votecl__fail(m->context, status, "out of memory");
}

/* Everything after the image's points: sort, vote, rank, copy out. */
static votecl_status
detect_points(votecl_ght_model *m, const votecl__ght_point *points, size_t n, uint32_t w,
              uint32_t h, votecl_ght_pose *out, size_t capacity, size_t *found)
{
    votecl__ght_edges edges;
    votecl__ght_poses poses = {0};
    size_t kept;
    votecl_status status = votecl__ght_edges_sort(points, n, m->desc.levels, &edges);

    if (status != VOTECL_OK)
        return votecl__fail(m->context, status, "out of memory for the image's edges");
    m->last.image_edges = n;
    m->last.image_pairings = 0;
    if (n > 0 && m->desc.p.method == VOTECL_GHT_GUIL)
        status = detect_guil(m, &edges, w, h, &poses);
    else if (n > 0)
        status = detect_ballard(m, &edges, w, h, &poses);
    votecl__ght_edges_clear(&edges);
    if (status != VOTECL_OK)
        goto out;
    kept = votecl__ght_finish(&m->desc, poses.v, poses.n);
    m->last.candidates = kept;
    if (m->desc.p.max_detections > 0 && kept > m->desc.p.max_detections)
        kept = m->desc.p.max_detections;
    *found = kept;
    if (kept > 0 && capacity > 0)
        memcpy(out, poses.v, (kept < capacity ? kept : capacity) * sizeof *out);
out:
    free(poses.v);
    return status;
}

static votecl_status
check_output(votecl_ght_model *m, const votecl_ght_pose *poses, size_t capacity,
             const size_t *found)
{
    if (found == NULL || (poses == NULL && capacity > 0))
        return votecl__fail(m->context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            found == NULL ? "found" : "poses");
    return VOTECL_OK;
}

votecl_status
votecl_ght_detect(votecl_ght_model *model, const votecl_image *image, votecl_ght_pose *poses,
                  size_t capacity, size_t *found)
{
    votecl__ght_point *points = NULL;
    size_t n = 0;
    votecl_status status;

    if (model == NULL)
        return VOTECL_INVALID_ARGUMENT;
    votecl__clear_error(model->context);
    if ((status = check_output(model, poses, capacity, found)) != VOTECL_OK)
        return status;
    if ((status = image_points(model->context, &model->desc, image, &points, &n)) == VOTECL_OK)
        status = detect_points(model, points, n, (uint32_t)image->width,
                               (uint32_t)image->height, poses, capacity, found);
    free(points);
    return status;
}

votecl_status
votecl_ght_detect_edges(votecl_ght_model *model, const votecl_ght_edge *edges, size_t n,
                        size_t width, size_t height, votecl_ght_pose *poses, size_t capacity,
                        size_t *found)
{
    votecl__ght_point *points = NULL;
    votecl_status status;

    if (model == NULL)
        return VOTECL_INVALID_ARGUMENT;
    votecl__clear_error(model->context);
    if ((status = check_output(model, poses, capacity, found)) != VOTECL_OK)
        return status;
    if ((status = check_edges(model->context, edges, n, width, height)) != VOTECL_OK ||
        (status = edge_points(model->context, &model->desc, edges, n, &points)) !=
            VOTECL_OK)
        return status;
    status = detect_points(model, points, n, (uint32_t)width, (uint32_t)height, poses, capacity,
                           found);
    free(points);
    return status;
}

votecl_status
votecl_ght_model_last_stats(const votecl_ght_model *model, votecl_ght_stats *stats)
{
    if (model == NULL || stats == NULL)
        return VOTECL_INVALID_ARGUMENT;
    *stats = model->last;
    return VOTECL_OK;
}
