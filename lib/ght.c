/* The generalized Hough transform: validate, build the model (template edges, sorted lists,
 * pairings or R-table) once, detect many times. One path calls the stages through the stage
 * table (lib/ght-private.h): the reference's on the 'ref' backend, on a CPU device Ballard's
 * host plan (host_impl below), else the device's, which keeps the work there (edges,
 * pairings, spaces, Ballard's maxima), the host reading back small arrays and running only
 * Guil's rotation correlation and peak picking (lib/ght-search.c), the fits and the
 * confidences. */
#include "votecl-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ght-private.h"

struct votecl_ght_model {
    votecl_context *context;
    votecl__ght_desc desc;
    votecl__ght_edges edges;      /* the template's, sorted by bin */
    votecl__ght_pairs pairs;      /* Guil */
    votecl__ght_rtable rtable;    /* Ballard */
    const votecl__ght_impl *impl; /* the stages: reference, host plan or device (model_impl) */
    votecl__ght_run run;          /* their state */
    uint32_t *ospace;             /* Guil: the template's O space (L * L) */
    votecl_ght_stats last;
    double tried[2]; /* AUTO: the fastest image pairing seen with LB, with SSM */
    unsigned trials; /* AUTO: detections timed so far */
    /* the memory limit's figures (params.memory_limit): the template's pixels, and what the
     * model keeps between detections (Guil: its pairings' figure; Ballard: its R-table) */
    uint64_t template_pixels, resident;
};

/* The default confidence floor (docs/accuracy.md: chosen on the truth suite). */
#define GHT_MIN_CONFIDENCE 0.7
/* Guil's rotations: every maximum of the O correlation explaining at least this share of the
 * template's pairings, at most GHT_MAX_ROTATIONS of them (a bound on the S and D work: a
 * circle's flat correlation has many small maxima). docs/accuracy.md has the figures. */
#define GHT_ANGLE_SHARE 0.15
#define GHT_MAX_ROTATIONS 16

/* The stage table's three implementations (each stage's versions in its file). */
static const votecl__ght_impl ref_impl = {
    .canny = votecl__ght_canny_ref,
    .points = votecl__ght_points_ref,
    .count = votecl__ght_count_ref,
    .read_edges = votecl__ght_read_edges_ref,
    .seconds = votecl__ght_seconds_ref,
    .pairs = votecl__ght_pairs_ref,
    .cap = votecl__ght_cap_ref,
    .stages = votecl__ght_stages_ref,
    .bind = votecl__ght_bind_ref,
    .vote = votecl__ght_vote_ref,
    .peaks = votecl__ght_peaks_ref,
};

static const votecl__ght_impl device_impl = {
    .canny = votecl__ght_canny_device,
    .points = votecl__ght_points_device,
    .count = votecl__ght_count_device,
    .read_edges = votecl__ght_read_edges_device,
    .seconds = votecl__ght_seconds_device,
    .pairs = votecl__ght_pairs_device,
    .cap = votecl__ght_cap_device,
    .stages = votecl__ght_stages_device,
    .bind = votecl__ght_bind_device,
    .vote = votecl__ght_vote_device,
    .peaks = votecl__ght_peaks_device,
};

/* Ballard on a GPU-shaped device: edges, vote and maxima in three launches and one read
 * back from the second image on (lib/ght-ballard.c). */
static const votecl__ght_impl ballard_impl = {
    .canny = votecl__ght_canny_ballard,
    .points = votecl__ght_points_ballard,
    .count = votecl__ght_count_ballard,
    .read_edges = votecl__ght_read_edges_ballard,
    .seconds = votecl__ght_seconds_device,
    .pairs = votecl__ght_pairs_device,
    .cap = votecl__ght_cap_device,
    .stages = votecl__ght_stages_device,
    .bind = votecl__ght_bind_ballard,
    .vote = votecl__ght_vote_ballard,
    .peaks = votecl__ght_peaks_ballard,
};

/* A CPU device's Ballard plan (votecl__ght_host_plan): the host's Canny, then the reference's
 * stages on the host, the vote and maxima in their faster form; nothing runs on the device. */
static const votecl__ght_impl host_impl = {
    .canny = votecl__ght_canny_host,
    .points = votecl__ght_points_ref,
    .count = votecl__ght_count_ref,
    .read_edges = votecl__ght_read_edges_ref,
    .seconds = votecl__ght_seconds_host,
    .pairs = votecl__ght_pairs_ref,
    .cap = votecl__ght_cap_ref,
    .stages = votecl__ght_stages_ref,
    .bind = votecl__ght_bind_ref,
    .vote = votecl__ght_vote_host,
    .peaks = votecl__ght_peaks_host,
};

void
votecl_ght_params_init(votecl_ght_params *params, votecl_ght_method method)
{
    VOTECL__PARAMS_INIT_OR_RETURN(params);
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
    params->min_confidence = GHT_MIN_CONFIDENCE;
    params->xi = 90;
    params->angle_epsilon = 1;
    params->angle_share = GHT_ANGLE_SHARE;
    params->max_rotations = GHT_MAX_ROTATIONS;
    params->max_scales = 2;
    params->pairing = VOTECL_GHT_PAIRING_AUTO;
    /* low: votes differ tenfold between instances of one scene (contrast, hidden parts, the
     * gradient bins' quantisation), and the confidence tells instances from clutter */
    params->votes_ratio = 0.1;
    params->memory_limit = VOTECL_GHT_MEMORY_LIMIT_DEFAULT;
}

/* --- the memory limit (params.memory_limit): every figure is checked before the stage it
 * counts allocates anything --- */

/* Megabytes, for messages. */
static double
megabytes(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

/* a + b, saturated */
static uint64_t
add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* VOTECL_OUT_OF_RESOURCES, naming what (a printf format) and the figure, when bytes exceed
 * the model's limit. */
static votecl_status
within_limit(votecl_ght_model *m, uint64_t bytes, const char *what, ...)
{
    uint64_t limit = m->desc.p.memory_limit;
    char head[192];
    va_list ap;

    if (limit == 0 || bytes <= limit)
        return VOTECL_OK;
    va_start(ap, what);
    vsnprintf(head, sizeof head, what, ap);
    va_end(ap);
    return votecl__fail(m->context, VOTECL_OUT_OF_RESOURCES,
                        "%s need about %.1f MB, over the memory limit of %.1f MB "
                        "(params.memory_limit)",
                        head, megabytes(bytes), megabytes(limit));
}

/* The pixels of a width x height template (what: "template") or image, beside what the model
 * keeps. */
static votecl_status
pixels_fit(votecl_ght_model *m, size_t width, size_t height, const char *what)
{
    uint64_t pixels = (uint64_t)width * height; /* sides below 2^15 (checked before) */

    return within_limit(m, add_sat(m->resident, pixels * VOTECL_GHT_PIXEL_BYTES),
                        "%s: %zu x %zu pixels (%u bytes each)", what, width, height,
                        VOTECL_GHT_PIXEL_BYTES);
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
    if (!(p->min_confidence >= 0 && p->min_confidence <= 1))
        return BAD("min_confidence: must lie in [0, 1]");
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
    if (!(p->angle_share >= 0 && p->angle_share <= 1))
        return BAD("angle_share: must lie in [0, 1]");
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
        if (edges[i].x >= width || edges[i].y >= height || (edges[i].gx == 0 && edges[i].gy == 0))
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

/* The packed u8 pixels of image (*copy: malloc'd when the rows had to be packed), within
 * the memory limit (what: "template" or "image"). */
static votecl_status
image_pixels(votecl_ght_model *m, const votecl_image *image, const char *what, const void **data,
             void **copy)
{
    votecl_context *ctx = m->context;
    size_t row_bytes, pixels;
    votecl_status status = votecl__image_check(ctx, image, VOTECL_DTYPE_U8, 1, &row_bytes, &pixels);

    *copy = NULL;
    if (status != VOTECL_OK)
        return status;
    if (image->width > VOTECL_GHT_MAX_SIDE || image->height > VOTECL_GHT_MAX_SIDE)
        return votecl__fail(ctx, VOTECL_INVALID_ARGUMENT, "image.width, image.height: above %u",
                            VOTECL_GHT_MAX_SIDE);
    if ((status = pixels_fit(m, image->width, image->height, what)) != VOTECL_OK)
        return status;
    return votecl__image_packed(ctx, image, row_bytes, data, copy);
}

/* Canny's low threshold: Ballard has only the high one. */
static unsigned
edge_low(const votecl__ght_desc *desc)
{
    return desc->p.method == VOTECL_GHT_GUIL ? desc->p.canny_low : desc->p.canny_high;
}

/* The current edges become Canny's (Guil) or Sobel + NMS + threshold's (Ballard) of a u8
 * image. */
static votecl_status
image_edges(votecl_ght_model *m, const votecl_image *image, const char *what)
{
    const void *data;
    void *copy = NULL;
    votecl_status status = image_pixels(m, image, what, &data, &copy);

    if (status == VOTECL_OK)
        status = m->impl->canny(&m->run, data, (uint32_t)image->width, (uint32_t)image->height,
                                edge_low(&m->desc), m->desc.p.canny_high);
    free(copy);
    return status;
}

static votecl_status
too_few_edges(votecl_ght_model *m, size_t n)
{
    return votecl__fail(m->context, VOTECL_INVALID_ARGUMENT,
                        "template: %zu edge points, at least 2 are needed", n);
}

static votecl_status
no_pairings(votecl_ght_model *m)
{
    return votecl__fail(m->context, VOTECL_INVALID_ARGUMENT,
                        "template: no two edge points have gradients xi apart");
}

/* The R-table of the template's sorted edges (m->edges). */
static votecl_status
model_rtable(votecl_ght_model *m)
{
    votecl_status status =
        votecl__ght_rtable_build(&m->edges, m->desc.levels, m->desc.cx, m->desc.cy, &m->rtable);

    if (status != VOTECL_OK)
        return votecl__fail(m->context, status, "out of memory for the R-table");
    /* the template's edges and R-table, host and device */
    m->resident = (uint64_t)m->edges.n * 36 + 8 * ((uint64_t)m->desc.levels + 1);
    return m->impl->bind(&m->run, &m->rtable);
}

/* The template's O space from its whole list of pairings (before the cap). */
static votecl_status
model_ospace(votecl_ght_model *m)
{
    size_t keys = (size_t)m->desc.levels * m->desc.levels;

    if ((m->ospace = votecl__malloc(keys * sizeof *m->ospace)) == NULL)
        return votecl__fail(m->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    votecl__ght_ref_ospace(&m->desc, &m->pairs, m->ospace);
    return VOTECL_OK;
}

/* The pairing mechanism for edges sorted by bin (L + 1 offsets): the parameter, or for AUTO
 * (paper 001, Sec. VI-A: LB deals a task's comparisons evenly to its work-items at the price
 * of local memory and barriers, SSM gives each work-item one point of the task and idles the
 * rest; tasks are chunks of at most VOTECL__GHT_WG points of one bin):
 *  - on a CPU device, SSM. Measured on PoCL (2 cores, `votecl bench --only ght`: 352x288
 *    frames of pic1, basketball1 and building, L 90/180/360, xi 45/90, LB and SSM calls
 *    alternating): in each of two runs SSM was faster in 17 of 18 rows (by up to 53%) and
 *    2-3% slower in the other (building, L 90, xi 90: the run-to-run spread); a CPU
 *    work-group is a loop over its work-items, so SSM's idle items cost little while every
 *    LB barrier splits that loop;
 *  - on a GPU, LB when fewer than half of SSM's work-items would hold a point (the points
 *    over VOTECL__GHT_WG times the tasks: short sub-lists), SSM otherwise: the paper's Fig. 5
 *    criterion (SSM loses while its blocks are mostly idle, wins once sub-lists fill them),
 *    its Table II (LB for the search for pairings in three of four videos, whose sub-lists are
 *    short). On the H200 this picked the faster mechanism in 10 of 18 rows of that bench
 *    (LB was at most 4.5% slower, SSM up to 1.5x slower): it chooses only the template's
 *    pairings; the image's are measured (image_pairing below). */
#define GHT_AUTO_FILL 0.5

static votecl_ght_pairing
choose_pairing(const votecl_ght_model *m, const uint32_t *offsets)
{
    uint32_t L = m->desc.levels;
    uint64_t tasks = 0;
    double fill;

    if (m->desc.p.pairing != VOTECL_GHT_PAIRING_AUTO)
        return m->desc.p.pairing;
    for (uint32_t b = 0; b < L; b++)
        tasks += (offsets[b + 1] - offsets[b] + VOTECL__GHT_WG - 1) / VOTECL__GHT_WG;
    fill = tasks > 0 ? (double)offsets[L] / ((double)VOTECL__GHT_WG * (double)tasks) : 1.0;
    votecl__log(m->context, "ght: %u edges in %llu tasks, SSM's work-items %.0f%% busy", offsets[L],
                (unsigned long long)tasks, 100 * fill);
    if (votecl__ght_cpu_shape(m->context))
        return VOTECL_GHT_PAIRING_SSM;
    return fill < GHT_AUTO_FILL ? VOTECL_GHT_PAIRING_LB : VOTECL_GHT_PAIRING_SSM;
}

/* AUTO for the image's pairings: on a GPU measured. The first GHT_AUTO_TRIALS detections
 * alternate LB and SSM and keep each one's fastest pairing stage; later ones take the faster.
 * The rule above predicts the faster one only roughly (on the H200, 10 of 18 rows of the
 * 352x288 table; LB and SSM differ by up to 1.5x there), and both give the same pairings, so
 * trying costs nothing but the slower stage twice. The template's pairings use the rule. */
#define GHT_AUTO_TRIALS 4u

static votecl_ght_pairing
image_pairing(votecl_ght_model *m, const uint32_t *offsets)
{
    if (m->desc.p.pairing != VOTECL_GHT_PAIRING_AUTO)
        return m->desc.p.pairing;
    /* on a CPU device, SSM as for the template (choose_pairing's measurement): a trial of LB
     * there cost PoCL's first call the code generation of two more kernels, 1 s of a 5 s
     * cold `votecl ght` (docs/performance.md, "Start-up on PoCL") */
    if (votecl__ght_cpu_shape(m->context))
        return VOTECL_GHT_PAIRING_SSM;
    if (m->trials < GHT_AUTO_TRIALS)
        return m->trials % 2 == 0 ? VOTECL_GHT_PAIRING_LB : VOTECL_GHT_PAIRING_SSM;
    (void)offsets;
    return m->tried[0] <= m->tried[1] ? VOTECL_GHT_PAIRING_LB : VOTECL_GHT_PAIRING_SSM;
}

/* Records the pairing stage just timed for AUTO's trials. */
static void
image_pairing_timed(votecl_ght_model *m)
{
    int k = m->last.pairing == VOTECL_GHT_PAIRING_SSM;

    if (m->desc.p.pairing != VOTECL_GHT_PAIRING_AUTO || m->trials >= GHT_AUTO_TRIALS)
        return;
    if (m->tried[k] == 0 || m->last.pairing_seconds < m->tried[k])
        m->tried[k] = m->last.pairing_seconds;
    m->trials++;
}

/* The stages: the reference's on the 'ref' backend, the host plan where
 * votecl__ght_host_plan chooses it (a CPU device's Ballard), else the device's. */
static votecl_status
model_impl(votecl_ght_model *m)
{
    votecl_status status;

    m->run.context = m->context;
    m->run.desc = &m->desc;
    m->impl = &ref_impl;
    if (m->context->backend == VOTECL_BACKEND_REF)
        return VOTECL_OK;
    if (votecl__ght_host_plan(m->context, &m->desc)) {
        votecl__log(m->context, "plan: ght host plan (Ballard, CPU shape)");
        m->impl = &host_impl;
        return VOTECL_OK;
    }
    votecl__log(m->context, "plan: ght device stages, %s edges, %s shape, groups of %u",
                votecl__ght_host_edges(m->context) ? "host" : "device",
                votecl__ght_cpu_shape(m->context) ? "CPU" : "GPU", VOTECL__GHT_WG);
    m->impl = m->desc.p.method == VOTECL_GHT_BALLARD ? &ballard_impl : &device_impl;
    if ((status = votecl__ght_device_new(m->context, &m->desc, &m->run.dev)) != VOTECL_OK)
        return status;
    return votecl__ght_front_new(m->context, m->run.dev, &m->desc, &m->run.front);
}

/* The template's pairings (left where the S and D stages read them), its O space. */
static votecl_status
model_pairs(votecl_ght_model *m, const uint32_t *offsets)
{
    uint64_t bytes = votecl__ght_pairs_bytes(&m->desc, offsets);
    votecl_status status =
        within_limit(m, add_sat(bytes, m->template_pixels * VOTECL_GHT_PIXEL_BYTES),
                     "template: %u edge points and up to %llu pairings", offsets[m->desc.levels],
                     (unsigned long long)votecl__ght_pairs_bound(&m->desc, offsets));

    if (status != VOTECL_OK ||
        (status = m->impl->pairs(&m->run, choose_pairing(m, offsets), VOTECL__GHT_TEMPLATE,
                                 &m->pairs)) != VOTECL_OK)
        return status;
    m->resident = bytes; /* the lists stay for the detections */
    m->last.template_pairings = m->pairs.n;
    if (m->pairs.n == 0)
        return no_pairings(m);
    if ((status = model_ospace(m)) != VOTECL_OK)
        return status;
    return m->impl->cap(&m->run, VOTECL__GHT_TEMPLATE, &m->pairs);
}

/* Pairings or the R-table from the template's current edges. */
static votecl_status
model_build(votecl_ght_model *m)
{
    const uint32_t *offsets;
    size_t n = m->impl->count(&m->run, &offsets);
    votecl_status status;

    if (n < 2)
        return too_few_edges(m, n);
    m->last.template_edges = n;
    /* the template's edges on the host: the poses' confidences, Ballard's R-table */
    if ((status = m->impl->read_edges(&m->run, &m->edges)) != VOTECL_OK)
        return status;
    if (m->desc.p.method == VOTECL_GHT_GUIL)
        return model_pairs(m, offsets);
    return model_rtable(m);
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
model_end(votecl_ght_model *model, votecl_status status, votecl_ght_model **out)
{
    if (status != VOTECL_OK) {
        votecl_ght_model_free(model);
        return status;
    }
    *out = model;
    return VOTECL_OK;
}

/* The model of the template image's edges. */
static votecl_status
model_image(votecl_ght_model *m, const votecl_image *image)
{
    votecl_status status = image_edges(m, image, "template");

    if (status != VOTECL_OK)
        return status;
    m->template_pixels = (uint64_t)image->width * image->height;
    return model_build(m);
}

votecl_status
votecl_ght_model_new(votecl_context *context, const votecl_ght_params *params,
                     const votecl_image *image, votecl_ght_model **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    votecl_ght_model *model = NULL;
    votecl_status status = model_start(context, params, out, &model);

    if (status != VOTECL_OK)
        return status;
    if (image != NULL) {
        model->desc.cx = ((double)image->width - 1) / 2;
        model->desc.cy = ((double)image->height - 1) / 2;
    }
    if ((status = model_impl(model)) == VOTECL_OK)
        status = model_image(model, image);
    return model_end(model, status, out);
}

votecl_status
votecl_ght_model_new_edges(votecl_context *context, const votecl_ght_params *params,
                           const votecl_ght_edge *edges, size_t n, size_t width, size_t height,
                           double cx, double cy, votecl_ght_model **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    votecl_ght_model *model = NULL;
    votecl__ght_point *points = NULL;
    votecl_status status = model_start(context, params, out, &model);

    if (status != VOTECL_OK)
        return status;
    model->desc.cx = cx;
    model->desc.cy = cy;
    if (!isfinite(cx) || !isfinite(cy))
        status = votecl__fail(context, VOTECL_INVALID_ARGUMENT, "cx, cy: not finite");
    else if ((status = check_edges(context, edges, n, width, height)) == VOTECL_OK &&
             (status = pixels_fit(model, width, height, "template")) == VOTECL_OK &&
             (status = edge_points(context, &model->desc, edges, n, &points)) == VOTECL_OK &&
             (status = model_impl(model)) == VOTECL_OK) {
        if (n < 2)
            status = too_few_edges(model, n);
        else if ((status = model->impl->points(&model->run, points, n)) == VOTECL_OK) {
            model->template_pixels = (uint64_t)width * height;
            status = model_build(model);
        }
    }
    free(points);
    return model_end(model, status, out);
}

void
votecl_ght_model_free(votecl_ght_model *model)
{
    if (model == NULL)
        return;
    votecl__ght_edges_clear(&model->edges);
    votecl__ght_pairs_clear(&model->pairs);
    votecl__ght_rtable_clear(&model->rtable);
    votecl__ght_edges_clear(&model->run.edges);
    free(model->run.space);
    votecl__ght_canny_memo_free(model->run.canny_memo);
    votecl__ght_conf_memo_free(model->run.conf_memo);
    votecl__ght_front_free(model->run.front);
    votecl__ght_device_free(model->run.dev);
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

static votecl_status
fail_memory(votecl_ght_model *m, votecl_status status)
{
    return status != VOTECL_OUT_OF_HOST_MEMORY ? status
                                               : votecl__fail(m->context, status, "out of memory");
}

/* Ballard's accumulator for a width x height image: its cells, or 0 and a failure. */
static size_t
ballard_cells(votecl_ght_model *m, uint32_t w, uint32_t h)
{
    size_t cells = votecl__ght_ballard_cells(&m->desc, w, h);

    if (cells == 0 || cells > ((size_t)1 << 31)) {
        votecl__fail(m->context, VOTECL_INVALID_ARGUMENT,
                     "image, rotations, scales: the accumulator is too large");
        return 0;
    }
    return cells;
}

/* A detection of Guil's within the memory limit: the model's lists, the image's pixels, its
 * pairings of the current edges (L + 1 offsets) and, unless only the pairings are asked for
 * (search 0), the search's spaces of at least one candidate at a time; *spare: what is left
 * for the candidates' spaces (0: no limit), *copies: the device's D copies (0: the host). */
static votecl_status
guil_fits(votecl_ght_model *m, const uint32_t *offsets, uint32_t w, uint32_t h, int search,
          uint64_t *spare, unsigned *copies)
{
    uint64_t limit = m->desc.p.memory_limit, pixels = (uint64_t)w * h * VOTECL_GHT_PIXEL_BYTES;
    uint64_t need =
        add_sat(add_sat(m->resident, pixels), votecl__ght_pairs_bytes(&m->desc, offsets));
    uint64_t fixed = 0, one = 0;
    unsigned local = 0;
    votecl_status status;

    *copies = 0;
    if (m->run.dev != NULL)
        votecl__ght_device_replication(m->run.dev, &local, copies);
    if (search) {
        fixed = votecl__ght_search_bytes(&m->desc, w, h, *copies, 0);
        one = votecl__ght_search_bytes(&m->desc, w, h, *copies, 1);
    }
    status = within_limit(
        m, add_sat(need, one), "image: %u edge points, up to %llu pairings, the template's%s",
        offsets[m->desc.levels], (unsigned long long)votecl__ght_pairs_bound(&m->desc, offsets),
        search ? " and the search's spaces (a candidate at a time)" : "");
    *spare = limit > 0 && status == VOTECL_OK ? limit - add_sat(need, fixed) : 0;
    return status;
}

/* The search over the capped lists; under VOTECL_DEBUG its phases' times and visits logged. */
static votecl_status
guil_search(votecl_ght_model *m, const votecl__ght_stages *stages, const uint32_t *oi,
            const votecl__ght_pairs *pairs, uint32_t w, uint32_t h, uint64_t spare, unsigned copies,
            votecl__ght_poses *poses)
{
    votecl__ght_search_stats st;
    votecl_status status =
        votecl__ght_guil(&m->desc, stages, m->ospace, oi, &m->pairs, pairs, w, h, spare, copies,
                         m->context->host_threads, poses, m->context->debug ? &st : NULL);

    if (status == VOTECL_OK && m->context->debug)
        votecl__log(
            m->context,
            "ght: search %.2f ms (rotations %.2f on %u threads, S %.2f, D %.2f, matches %.2f, "
            "fits %.2f on %u); %llu candidates, %llu maxima kept on %llu; visits S %llu D %llu "
            "matches %llu",
            1e3 * (st.seconds[0] + st.seconds[1] + st.seconds[2] + st.seconds[3] + st.seconds[4]),
            1e3 * st.seconds[0], st.rotation_workers, 1e3 * st.seconds[1], 1e3 * st.seconds[2],
            1e3 * st.seconds[3], 1e3 * st.seconds[4], st.fit_workers,
            (unsigned long long)st.candidates, (unsigned long long)st.kept,
            (unsigned long long)st.matched, (unsigned long long)st.s_visits,
            (unsigned long long)st.d_visits, (unsigned long long)st.m_visits);
    return status;
}

/* Guil's image pairings, then the rotation, scale and position searches over the capped lists
 * (poses NULL: only the pairings). The image's O space is taken from its whole pairings. */
static votecl_status
detect_guil(votecl_ght_model *m, const uint32_t *offsets, uint32_t w, uint32_t h,
            votecl__ght_poses *poses)
{
    size_t keys = (size_t)m->desc.levels * m->desc.levels;
    votecl__ght_stages room;
    votecl__ght_pairs pairs;
    uint32_t *oi = NULL;
    uint64_t spare;
    unsigned copies;
    votecl_status status;

    if ((status = guil_fits(m, offsets, w, h, poses != NULL, &spare, &copies)) != VOTECL_OK)
        return status;
    m->last.pairing = image_pairing(m, offsets);
    if ((status = m->impl->pairs(&m->run, m->last.pairing, VOTECL__GHT_IMAGE, &pairs)) != VOTECL_OK)
        return status;
    m->last.image_pairings = pairs.n;
    if (poses != NULL && (oi = votecl__malloc(keys * sizeof *oi)) == NULL)
        status = VOTECL_OUT_OF_HOST_MEMORY;
    else if (poses != NULL) {
        votecl__ght_ref_ospace(&m->desc, &pairs, oi);
        status = m->impl->cap(&m->run, VOTECL__GHT_IMAGE, &pairs);
        if (status == VOTECL_OK)
            status = guil_search(m, m->impl->stages(&m->run, &room), oi, &pairs, w, h, spare,
                                 copies, poses);
    }
    free(oi);
    votecl__ght_pairs_clear(&pairs);
    return fail_memory(m, status);
}

/* Ballard: the current edges voted, the accumulator's maxima. */
static votecl_status
detect_ballard(votecl_ght_model *m, uint32_t w, uint32_t h, votecl__ght_poses *poses)
{
    size_t cells = ballard_cells(m, w, h);
    unsigned local = 0, copies = 0;
    votecl_status status;

    if (cells == 0)
        return VOTECL_INVALID_ARGUMENT;
    if (m->run.dev != NULL)
        votecl__ght_device_replication(m->run.dev, &local, &copies);
    /* the accumulator, a device's global copies, the maxima's room and poses */
    if ((status = within_limit(
             m,
             add_sat(add_sat(m->resident, (uint64_t)w * h * VOTECL_GHT_PIXEL_BYTES),
                     (uint64_t)cells * 4 * (3 + (uint64_t)copies)),
             "image: Ballard's accumulator of %zu cells and the pixels", cells)) != VOTECL_OK ||
        (status = m->impl->vote(&m->run, w, h)) != VOTECL_OK)
        return status;
    return fail_memory(m, m->impl->peaks(&m->run, w, h, poses));
}

/* The poses' confidences against the current edges, read back. */
static votecl_status
detect_confidence(votecl_ght_model *m, uint32_t w, uint32_t h, votecl__ght_poses *poses)
{
    votecl__ght_edges edges;
    votecl__ght_conf_stats last;
    double t0 = votecl__now_seconds(), t1;
    votecl_status status = m->impl->read_edges(&m->run, &edges);

    if (status != VOTECL_OK)
        return status;
    t1 = votecl__now_seconds();
    status =
        fail_memory(m, votecl__ght_confidence(&m->desc, &m->edges, &edges, w, h, poses->v, poses->n,
                                              -1, m->context->host_threads, &m->run.conf_memo));
    votecl__ght_edges_clear(&edges);
    last = votecl__ght_conf_last(m->run.conf_memo);
    votecl__log(m->context,
                "ght: confidences of %zu poses %.2f ms (refinement %.2f on %u threads, claims "
                "%.2f; edges read %.2f ms)",
                poses->n, 1e3 * (votecl__now_seconds() - t1), 1e3 * last.refine_seconds,
                last.workers, 1e3 * last.explain_seconds, 1e3 * (t1 - t0));
    return status;
}

/* The detection of the current edges (poses NULL: stop after the pairings). */
static votecl_status
detect_edges(votecl_ght_model *m, uint32_t w, uint32_t h, votecl__ght_poses *poses)
{
    const uint32_t *offsets;
    size_t n = m->impl->count(&m->run, &offsets);
    votecl_status status = VOTECL_OK;

    m->last.image_edges = n;
    if (n > 0 && m->desc.p.method == VOTECL_GHT_GUIL)
        status = detect_guil(m, offsets, w, h, poses);
    else if (n > 0 && poses != NULL)
        status = detect_ballard(m, w, h, poses);
    m->impl->seconds(&m->run, &m->last.edges_seconds, &m->last.pairing_seconds);
    votecl__log(m->context, "ght: %zu image edges %.2f ms, %zu pairings %.2f ms", n,
                1e3 * m->last.edges_seconds, m->last.image_pairings, 1e3 * m->last.pairing_seconds);
    if (status == VOTECL_OK && poses != NULL && poses->n > 0)
        status = detect_confidence(m, w, h, poses);
    if (status == VOTECL_OK && n > 0 && m->desc.p.method == VOTECL_GHT_GUIL)
        image_pairing_timed(m);
    return status;
}

/* A fresh detection's stats. */
static void
stats_reset(votecl_ght_model *m)
{
    m->last.image_edges = 0;
    m->last.image_pairings = 0;
    m->last.candidates = 0;
    m->last.edges_seconds = 0;
    m->last.pairing_seconds = 0;
}

/* Ranks the poses and copies the best out. */
static void
detect_finish(votecl_ght_model *m, votecl__ght_poses *poses, votecl_ght_pose *out, size_t capacity,
              size_t *found)
{
    size_t kept = votecl__ght_finish(&m->desc, poses->v, poses->n);

    m->last.candidates = kept;
    if (m->desc.p.max_detections > 0 && kept > m->desc.p.max_detections)
        kept = m->desc.p.max_detections;
    *found = kept;
    if (kept > 0 && capacity > 0)
        memcpy(out, poses->v, (kept < capacity ? kept : capacity) * sizeof *out);
}

/* The image's edges (found on the device, or by the reference), then poses (NULL: stop
 * after the pairings). */
static votecl_status
detect_image(votecl_ght_model *m, const votecl_image *image, votecl__ght_poses *poses)
{
    votecl_status status;

    stats_reset(m);
    if ((status = image_edges(m, image, "image")) != VOTECL_OK)
        return status;
    return detect_edges(m, (uint32_t)image->width, (uint32_t)image->height, poses);
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
    votecl__ght_poses all = {0};
    votecl_status status;

    if (model == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(model->context);
    if ((status = check_output(model, poses, capacity, found)) != VOTECL_OK)
        return status;
    if ((status = detect_image(model, image, &all)) == VOTECL_OK)
        detect_finish(model, &all, poses, capacity, found);
    free(all.v);
    return status;
}

votecl_status
votecl_ght_detect_edges(votecl_ght_model *model, const votecl_ght_edge *edges, size_t n,
                        size_t width, size_t height, votecl_ght_pose *poses, size_t capacity,
                        size_t *found)
{
    votecl__ght_point *points = NULL;
    votecl__ght_poses all = {0};
    votecl_status status;

    if (model == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(model->context);
    if ((status = check_output(model, poses, capacity, found)) != VOTECL_OK)
        return status;
    stats_reset(model);
    if ((status = check_edges(model->context, edges, n, width, height)) != VOTECL_OK ||
        (status = pixels_fit(model, width, height, "image")) != VOTECL_OK ||
        (status = edge_points(model->context, &model->desc, edges, n, &points)) != VOTECL_OK)
        return status;
    if ((status = model->impl->points(&model->run, points, n)) == VOTECL_OK)
        status = detect_edges(model, (uint32_t)width, (uint32_t)height, &all);
    if (status == VOTECL_OK)
        detect_finish(model, &all, poses, capacity, found);
    free(points);
    free(all.v);
    return status;
}

votecl_status
votecl_ght_pairings(votecl_ght_model *model, const votecl_image *image, votecl_ght_stats *stats)
{
    votecl_status status;

    if (model == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(model->context);
    if (stats == NULL)
        return votecl__fail(model->context, VOTECL_INVALID_ARGUMENT, "stats: NULL pointer");
    status = detect_image(model, image, NULL);
    *stats = model->last;
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
