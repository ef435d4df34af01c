/* The circle Hough transform's plan: validate, plan, launch, read back. The host computes the
 * rays (OpenCV's float directions) of Canny's edges, which a GPU-shaped device finds for the
 * gradient method (lib/circles-edges.c: only the edge list comes back) and the host
 * elsewhere (the library's Canny, lib/edges.c); a GPU-shaped device adds the votes
 * (cl/circles.cl) and, for the gradient method, picks
 * the centre candidates so only those come back and computes their radius histograms
 * (lib/circles-radius.c) where local memory holds them, and for the radii method picks the
 * peak candidates (each radius's threshold from its largest count, reduced there); the greedy
 * passes over the candidates run on the host (lib/circles-ref.c). A CPU-shaped device takes the
 * host plan (the reference's steps with the host's Canny), and the 'ref' backend runs the reference
 * for every step. */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circles-private.h"
#include "edges-private.h"

/* Candidate pairs read with the count in one transfer; more only when more were found (a
 * 1080p scene's centre test passes about 800). */
#define FIRST_READ 1024u

/* The stages of a run that its VOTECL_DEBUG line times (the radii method's edge points count
 * as its edges, its peaks as its centres). */
enum { STAGE_EDGES, STAGE_RAYS, STAGE_VOTE, STAGE_CENTRES, STAGE_RADII, STAGE_SELECT, STAGES };
static const char *const stage_names[STAGES] = {"edges",   "rays",  "vote",
                                                "centres", "radii", "select"};

typedef struct stage_clock {
    double t0, seconds[STAGES];
    votecl_queue_counts at_start; /* the context's counts when the run began */
    size_t candidates;
} stage_clock;

struct votecl_circles_plan {
    votecl_context *context;
    votecl__circles_desc desc;
    votecl__canny_memo *memo;      /* the host's Canny between runs (devices) */
    votecl__edge *ref_points;      /* the reference's Canny output (ref backend) */
    int device;                    /* votes on the device: its kernels built */
    int host_canny;                /* the host's row-by-row Canny, not the reference's */
    void *k_vote, *k_centres, *k_radii, *k_radii_max, *k_radii_candidates;
    votecl__circles_radius *radius; /* the radius stage on the device; NULL: the host's */
    votecl__circles_edges *canny_dev; /* Canny on the device (gradient method's device plan) */
    votecl_buffer *d_in, *d_acc, *d_cand, *d_offsets, *d_starts, *d_maxes,
        *d_least; /* device buffers */
    size_t cand_cap;
    int32_t *edges;            /* Canny's pixels, x, y pairs */
    int32_t *xy;               /* the voting pixels, x, y pairs */
    votecl__circles_ray *rays; /* their rays */
    uint32_t *points;          /* the radii method's edge points */
    uint32_t *acc;             /* the host accumulator */
    uint32_t *pairs;           /* centre candidates */
    void *packed_copy;         /* the image packed, when its rows do not touch */
    int have_acc, acc_on_device;
    votecl_vote_stats last;
    stage_clock clock; /* only under VOTECL_DEBUG */
};

void
votecl_circles_params_init(votecl_circles_params *params, votecl_circles_method method)
{
    VOTECL__PARAMS_INIT_OR_RETURN(params);
    params->method = method;
    /* OpenCV's HoughCircles defaults (cv2: dp and minDist have none; 1 and rows / 8 are
     * its documentation's example) */
    params->dp = 1.0;
    params->canny_high = 100;
    params->votes = 100;
    /* scikit-image's hough_circle and hough_circle_peaks */
    params->radius_step = 1;
    params->normalize = 1;
    params->min_xdistance = 1;
    params->min_ydistance = 1;
    if (method == VOTECL_CIRCLES_RADII) {
        params->min_radius = 5;
        params->max_radius = 50;
    }
}

#define BAD(...) (snprintf(msg, msg_size, __VA_ARGS__), VOTECL_INVALID_ARGUMENT)

static votecl_status
check_gradient(const votecl_circles_params *p, char *msg, size_t msg_size)
{
    /* the rays' fixed point holds 65535 px of radius at any step in 32 bits */
    if (!(p->dp >= 1.0 && p->dp <= 65535.0))
        return BAD("dp: must be between 1 and 65535 image pixels per cell");
    if (!(p->min_dist >= 0.0 && p->min_dist <= 1e6))
        return BAD("min_dist: must be between 0 (the default) and 1e6 pixels");
    if (p->canny_high < 1 || p->canny_high > VOTECL_CIRCLES_MAX_CANNY)
        return BAD("canny_high: %u is not between 1 and %u", p->canny_high,
                   VOTECL_CIRCLES_MAX_CANNY);
    return VOTECL_OK;
}

static votecl_status
check_radii(const votecl_circles_params *p, size_t width, size_t height, char *msg, size_t msg_size)
{
    uint64_t spaces;

    if (p->radius_step < 1)
        return BAD("radius_step: must be at least 1");
    if (p->max_radius < p->min_radius)
        return BAD("max_radius: %u is below min_radius %u", p->max_radius, p->min_radius);
    spaces = (p->max_radius - p->min_radius) / p->radius_step + 1;
    if (spaces > VOTECL_CIRCLES_MAX_RADII)
        return BAD("min_radius, max_radius, radius_step: %llu radii exceed %u",
                   (unsigned long long)spaces, VOTECL_CIRCLES_MAX_RADII);
    if (spaces * width * height > VOTECL_CIRCLES_MAX_CELLS)
        return BAD("max_radius: %llu radii of %zu x %zu cells exceed %llu cells",
                   (unsigned long long)spaces, width, height,
                   (unsigned long long)VOTECL_CIRCLES_MAX_CELLS);
    if (p->min_xdistance < 1 || p->min_ydistance < 1)
        return BAD("%s: must be at least 1",
                   p->min_xdistance < 1 ? "min_xdistance" : "min_ydistance");
    if (!(p->threshold >= 0.0 && p->threshold <= 1e12))
        return BAD("threshold: must be between 0 (the default) and 1e12");
    return VOTECL_OK;
}

static votecl_status
check_params(const void *params, size_t width, size_t height, char *msg, size_t msg_size)
{
    const votecl_circles_params *p = params;
    votecl_status status =
        votecl__frame_check(width, height, VOTECL_CIRCLES_MAX_SIDE, msg, msg_size);

    if (status != VOTECL_OK)
        return status;
    if (p->method != VOTECL_CIRCLES_GRADIENT && p->method != VOTECL_CIRCLES_RADII)
        return BAD("method: unknown value %d", (int)p->method);
    if (p->min_radius > VOTECL_CIRCLES_MAX_SIDE || p->max_radius > VOTECL_CIRCLES_MAX_SIDE)
        return BAD("%s: above %u pixels",
                   p->min_radius > VOTECL_CIRCLES_MAX_SIDE ? "min_radius" : "max_radius",
                   VOTECL_CIRCLES_MAX_SIDE);
    if (p->method == VOTECL_CIRCLES_GRADIENT)
        return check_gradient(p, msg, msg_size);
    return check_radii(p, width, height, msg, msg_size);
}

/* Host arrays sized by the image, allocated once per plan. */
static votecl_status
plan_host(votecl_circles_plan *plan)
{
    const votecl__circles_desc *d = &plan->desc;
    size_t pixels = (size_t)d->width * d->height;

    if (d->p.method == VOTECL_CIRCLES_RADII)
        plan->points = votecl__malloc(pixels * sizeof *plan->points);
    else {
        plan->edges = votecl__malloc(2 * pixels * sizeof *plan->edges);
        plan->xy = votecl__malloc(2 * pixels * sizeof *plan->xy);
        plan->rays = votecl__malloc(pixels * sizeof *plan->rays);
        if (!plan->host_canny)
            plan->ref_points = votecl__malloc(pixels * sizeof *plan->ref_points);
    }
    if (d->p.method == VOTECL_CIRCLES_RADII
            ? plan->points == NULL
            : plan->edges == NULL || plan->xy == NULL || plan->rays == NULL ||
                  (!plan->host_canny && plan->ref_points == NULL))
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for the edges of a %u x %u image", d->width, d->height);
    return VOTECL_OK;
}

/* The kernels and the buffers that do not depend on the image's content. */
static votecl_status
plan_device(votecl_circles_plan *plan)
{
    static const char *const files[] = {"circles.cl", NULL};
    const votecl__circles_desc *d = &plan->desc;
    votecl__program *program = NULL;
    size_t cells = votecl__circles_cells(d) * d->spaces;
    votecl_status status;

    if ((status = votecl__program_get(plan->context, files, NULL, 0, NULL, &program)) !=
            VOTECL_OK ||
        (status = votecl__program_kernel(plan->context, program, "circles_gradient_vote",
                                         &plan->k_vote)) != VOTECL_OK ||
        (status = votecl__program_kernel(plan->context, program, "circles_centres",
                                         &plan->k_centres)) != VOTECL_OK ||
        (status = votecl__program_kernel(plan->context, program, "circles_radii_vote",
                                         &plan->k_radii)) != VOTECL_OK ||
        (status = votecl__program_kernel(plan->context, program, "circles_radii_max",
                                         &plan->k_radii_max)) != VOTECL_OK ||
        (status = votecl__program_kernel(plan->context, program, "circles_radii_candidates",
                                         &plan->k_radii_candidates)) != VOTECL_OK)
        return status;
    if ((status = votecl_buffer_new(plan->context, cells * 4, &plan->d_acc)) != VOTECL_OK)
        return status;
    if (d->p.method == VOTECL_CIRCLES_GRADIENT) {
        plan->cand_cap = 4096;
        if ((status = votecl_buffer_new(plan->context, 4 + 8 * plan->cand_cap, &plan->d_cand)) !=
                VOTECL_OK ||
            (status = votecl__circles_edges_new(plan->context, d, &plan->canny_dev)) != VOTECL_OK)
            return status;
        return votecl__circles_radius_new(plan->context, d, &plan->radius);
    }
    plan->cand_cap = 4096;
    if ((status = votecl_buffer_new(plan->context, 4 + 12 * plan->cand_cap, &plan->d_cand)) !=
            VOTECL_OK ||
        (status = votecl_buffer_new(plan->context, 4 * (size_t)d->spaces, &plan->d_maxes)) !=
            VOTECL_OK ||
        (status = votecl_buffer_new(plan->context, 4 * (size_t)d->spaces, &plan->d_least)) !=
            VOTECL_OK ||
        (status = votecl_buffer_new(plan->context, 8 * (size_t)d->starts[d->spaces],
                                    &plan->d_offsets)) != VOTECL_OK ||
        (status = votecl_buffer_new(plan->context, 4 * ((size_t)d->spaces + 1), &plan->d_starts)) !=
            VOTECL_OK ||
        (status = votecl_buffer_write(plan->d_offsets, 0, d->offsets,
                                      8 * (size_t)d->starts[d->spaces])) != VOTECL_OK)
        return status;
    return votecl_buffer_write(plan->d_starts, 0, d->starts, 4 * ((size_t)d->spaces + 1));
}

static votecl_status
plan_init(void *plan_, votecl_context *context, const void *params, size_t width, size_t height)
{
    votecl_circles_plan *plan = plan_;
    votecl_status status;

    plan->context = context;
    status = votecl__circles_desc_init(&plan->desc, params, (uint32_t)width, (uint32_t)height);
    if (status != VOTECL_OK)
        return votecl__fail(plan->context, status, "out of memory for the radii's circles");
    /* A CPU-shaped device (the context's shape: a CPU, or as VOTECL_FORCE_SHAPE forces)
     * takes the host plan, as the GHT's Ballard does: the votes are millions of increments
     * of an accumulator too large to copy per work-item, which a CPU does faster in one
     * plain loop than as global atomics (PoCL: 40 of 110 ms of a 1080p frame were the
     * atomics); the results are the reference's either way. */
    plan->host_canny = plan->context->backend != VOTECL_BACKEND_REF;
    plan->device = plan->host_canny && !plan->context->shape.cpu;
    if ((status = plan_host(plan)) != VOTECL_OK)
        return status;
    return plan->device ? plan_device(plan) : VOTECL_OK;
}

VOTECL__PLAN_OPS(votecl_circles_plan, votecl_circles_plan_free, .check = check_params,
                 .init = plan_init);

votecl_status
votecl_circles_plan_new(votecl_context *context, const votecl_circles_params *params, size_t width,
                        size_t height, votecl_circles_plan **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    return votecl__plan_new_of(&plan_ops, context, params, width, height, out);
}

void
votecl_circles_plan_free(votecl_circles_plan *plan)
{
    if (plan == NULL)
        return;
    VOTECL__FREE_BUFFERS(plan->d_in, plan->d_acc, plan->d_cand, plan->d_offsets, plan->d_starts,
                         plan->d_maxes, plan->d_least);
    votecl__circles_radius_free(plan->radius);
    votecl__circles_edges_free(plan->canny_dev);
    votecl__canny_memo_free(plan->memo);
    VOTECL__FREE_ALL(plan->ref_points, plan->edges, plan->xy, plan->rays, plan->points, plan->acc,
                     plan->pairs, plan->packed_copy);
    votecl__circles_desc_release(&plan->desc);
    free(plan);
}

void
votecl_circles_plan_shape(const votecl_circles_plan *plan, unsigned *spaces, uint32_t *columns,
                          uint32_t *rows)
{
    if (spaces != NULL)
        *spaces = plan != NULL ? plan->desc.spaces : 0;
    if (columns != NULL)
        *columns = plan != NULL ? plan->desc.cols : 0;
    if (rows != NULL)
        *rows = plan != NULL ? plan->desc.rows : 0;
}

unsigned
votecl_circles_plan_radius(const votecl_circles_plan *plan, unsigned s)
{
    if (plan == NULL || plan->desc.radii == NULL || s >= plan->desc.spaces)
        return 0;
    return plan->desc.radii[s];
}

static votecl_status
ensure_acc(votecl_circles_plan *plan)
{
    size_t cells = votecl__circles_cells(&plan->desc) * plan->desc.spaces;

    if (plan->acc == NULL && (plan->acc = votecl__malloc(cells * sizeof *plan->acc)) == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for %zu accumulator cells", cells);
    return VOTECL_OK;
}

const uint32_t *
votecl_circles_plan_accumulator(votecl_circles_plan *plan)
{
    if (plan == NULL)
        return NULL;
    if (plan->acc_on_device) {
        /* read back on demand: a run that only wants its circles never moves the cells */
        size_t bytes = votecl__circles_cells(&plan->desc) * plan->desc.spaces * 4;
        plan->acc_on_device = 0;
        plan->have_acc = ensure_acc(plan) == VOTECL_OK &&
                         votecl_buffer_read(plan->d_acc, 0, plan->acc, bytes) == VOTECL_OK;
    }
    return plan->have_acc ? plan->acc : NULL;
}

/* --- the stages' VOTECL_DEBUG line --- */

static void
stage_begin(votecl_circles_plan *plan)
{
    if (!plan->context->debug)
        return;
    memset(&plan->clock, 0, sizeof plan->clock);
    plan->clock.at_start = plan->context->queued;
    plan->clock.t0 = votecl__now_seconds();
}

/* Under VOTECL_DEBUG, the time since the last mark goes to stage; the device's queue is
 * finished first so that each stage's time is its own (a plain run never waits here). */
static void
stage_mark(votecl_circles_plan *plan, int stage)
{
    double now;

    if (!plan->context->debug)
        return;
    if (plan->device)
        (void)plan->context->ops->finish(plan->context);
    now = votecl__now_seconds();
    plan->clock.seconds[stage] += now - plan->clock.t0;
    plan->clock.t0 = now;
}

/* One line per run: each stage's milliseconds, then the launches and transfers it made. */
static void
stage_log(const votecl_circles_plan *plan, size_t found)
{
    const stage_clock *c = &plan->clock;
    const votecl_queue_counts *t = &plan->context->queued, *t0 = &c->at_start;
    char line[400];
    size_t used = 0;
    double total = 0;

    if (!plan->context->debug)
        return;
    for (int s = 0; s < STAGES; s++) {
        total += c->seconds[s];
        used += (size_t)snprintf(line + used, sizeof line - used, " %s %.3f", stage_names[s],
                                 c->seconds[s] * 1e3);
    }
    votecl__log(plan->context,
                "circles %ux%u %s (%s): ms%s total %.3f; %zu edge px, %zu candidates, %zu "
                "circles; %llu launches, %llu fills, %llu writes %llu B, %llu reads %llu B",
                plan->desc.width, plan->desc.height,
                plan->desc.p.method == VOTECL_CIRCLES_RADII ? "radii" : "gradient",
                plan->device ? "device" : "host", line, total * 1e3, plan->last.kept, c->candidates,
                found, (unsigned long long)(t->launches - t0->launches),
                (unsigned long long)(t->fills - t0->fills),
                (unsigned long long)(t->writes - t0->writes),
                (unsigned long long)(t->bytes_up - t0->bytes_up),
                (unsigned long long)(t->reads - t0->reads),
                (unsigned long long)(t->bytes_down - t0->bytes_down));
}

/* --- the gradient method --- */

/* Canny's pixels of the packed image into plan->edges: the reference's on the ref backend,
 * the host's row-by-row equal on a CPU-shaped device's plan. Returns how many, (size_t)-1
 * when out of memory. */
static size_t
canny_on_host(votecl_circles_plan *plan, const uint8_t *data)
{
    const votecl__circles_desc *d = &plan->desc;
    const votecl__edge *points = plan->ref_points;
    size_t n;

    if (plan->host_canny)
        n = votecl__canny_host(data, d->width, d->height, d->low, d->high, &plan->memo, &points);
    else
        n = votecl__canny_ref(data, d->width, d->height, d->low, d->high, plan->ref_points);
    for (size_t i = 0; n != (size_t)-1 && i < n; i++) {
        plan->edges[2 * i] = points[i].x;
        plan->edges[2 * i + 1] = points[i].y;
    }
    return n;
}

static votecl_status
device_vote(votecl_circles_plan *plan, size_t n)
{
    const votecl__circles_desc *d = &plan->desc;
    size_t local = 64, global = votecl__round_up(2 * n, 64);
    votecl_status status;

    if ((status = votecl__buffer_ensure(plan->context, &plan->d_in, 16 * n)) != VOTECL_OK ||
        (status = votecl_buffer_write(plan->d_in, 0, plan->rays, 16 * n)) != VOTECL_OK ||
        (status = votecl__buffer_zero(plan->d_acc, 0, votecl__circles_cells(d) * 4)) != VOTECL_OK)
        return status;
    return votecl__launch(plan->context, plan->k_vote, 1, &global, &local,
                          (votecl__arg[]){VOTECL__ARG_BUF(plan->d_in), VOTECL__ARG_UINT(n),
                                          VOTECL__ARG_INT(d->p.min_radius),
                                          VOTECL__ARG_INT(d->p.max_radius),
                                          VOTECL__ARG_UINT(d->cols), VOTECL__ARG_UINT(d->rows),
                                          VOTECL__ARG_BUF(plan->d_acc)},
                          7);
}

static votecl_status
launch_centres(votecl_circles_plan *plan)
{
    const votecl__circles_desc *d = &plan->desc;
    size_t local = 256, global = votecl__round_up(votecl__circles_cells(d), 256);
    votecl_status status = votecl__buffer_zero(plan->d_cand, 0, 4);

    if (status != VOTECL_OK)
        return status;
    return votecl__launch(plan->context, plan->k_centres, 1, &global, &local,
                          (votecl__arg[]){VOTECL__ARG_BUF(plan->d_acc), VOTECL__ARG_UINT(d->cols),
                                          VOTECL__ARG_UINT(d->rows), VOTECL__ARG_UINT(d->p.votes),
                                          VOTECL__ARG_UINT(plan->cand_cap),
                                          VOTECL__ARG_BUF(plan->d_cand)},
                          6);
}

static votecl_status
grow_pairs(votecl_circles_plan *plan, size_t n)
{
    uint32_t *p = votecl__realloc(plan->pairs, 8 * (n > 0 ? n : 1));

    if (p == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    plan->pairs = p;
    return VOTECL_OK;
}

/* The device's candidates of `words` words each (2: the centres' pairs; 3: the radii's
 * (space, cell, votes)) into plan->pairs: the count and the first ones in one read, the rest
 * in a second, and a relaunch with room for all when they overflowed the buffer. */
static votecl_status
device_candidates(votecl_circles_plan *plan, unsigned words,
                  votecl_status (*launch)(votecl_circles_plan *plan), size_t *n)
{
    uint32_t head[1 + 3 * FIRST_READ];
    size_t first = FIRST_READ, head_bytes = 4 * (1 + words * FIRST_READ);
    votecl_status status = launch(plan);

    if (status == VOTECL_OK)
        status = votecl_buffer_read(plan->d_cand, 0, head, head_bytes);
    if (status == VOTECL_OK && head[0] > plan->cand_cap) {
        plan->cand_cap = head[0];
        if ((status = votecl__buffer_ensure(plan->context, &plan->d_cand,
                                            4 + 4 * words * plan->cand_cap)) == VOTECL_OK &&
            (status = launch(plan)) == VOTECL_OK)
            status = votecl_buffer_read(plan->d_cand, 0, head, head_bytes);
    }
    /* grow_pairs holds pairs of words: words n words fit in words n / 2 (+1 when odd) */
    if (status != VOTECL_OK ||
        (status = grow_pairs(plan, words * (size_t)head[0] / 2 + words % 2)) != VOTECL_OK)
        return status;
    *n = head[0];
    memcpy(plan->pairs, head + 1, 4 * words * (*n < first ? *n : first));
    if (*n > first)
        status = votecl_buffer_read(plan->d_cand, 4 + 4 * words * first,
                                    plan->pairs + words * first, 4 * words * (*n - first));
    return status;
}

static votecl_status
ref_centres(votecl_circles_plan *plan, size_t nrays, size_t *n)
{
    votecl_status status;

    if ((status = ensure_acc(plan)) != VOTECL_OK ||
        (status = grow_pairs(plan, votecl__circles_cells(&plan->desc))) != VOTECL_OK)
        return status;
    votecl__circles_ref_gradient_vote(&plan->desc, plan->rays, nrays, plan->acc);
    plan->have_acc = 1;
    stage_mark(plan, STAGE_VOTE);
    *n = votecl__circles_ref_centres(&plan->desc, plan->acc, plan->pairs);
    return VOTECL_OK;
}

/* The circles of the candidates with their radii from the device's histograms, which read the
 * candidates' cells where the centre test left them (no sort, no upload: the circles are
 * sorted by a total order at the end). */
static votecl_status
device_circles(votecl_circles_plan *plan, size_t n, size_t nrays, votecl_circle *circles,
               size_t capacity, size_t *found)
{
    float *radius = votecl__malloc((n > 0 ? n : 1) * sizeof *radius);
    int32_t *count = votecl__malloc((n > 0 ? n : 1) * sizeof *count);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (radius == NULL || count == NULL)
        goto out;
    status =
        votecl__circles_radius_run(plan->radius, plan->d_cand, n, plan->xy, nrays, radius, count);
    if (status != VOTECL_OK) /* the device's, with its message */
        goto done;
    stage_mark(plan, STAGE_RADII);
    status = votecl__circles_gradient_finish(&plan->desc, plan->pairs, n, radius, count, circles,
                                             capacity, found);
out:
    if (status != VOTECL_OK)
        status = votecl__fail(plan->context, status, "out of memory for the circles");
done:
    free(radius);
    free(count);
    return status;
}

/* Canny's pixels into plan->edges, *n of them: a GPU-shaped device's own (only the list
 * comes back), else the host's. */
static votecl_status
canny(votecl_circles_plan *plan, const uint8_t *data, size_t *n)
{
    if (plan->canny_dev != NULL)
        return votecl__circles_edges_run(plan->canny_dev, data, plan->edges, n);
    if ((*n = canny_on_host(plan, data)) == (size_t)-1)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for the edges");
    return VOTECL_OK;
}

static votecl_status
run_gradient(votecl_circles_plan *plan, const uint8_t *data, votecl_circle *circles,
             size_t capacity, size_t *found)
{
    const votecl__circles_desc *d = &plan->desc;
    size_t n = 0, nrays, ncand = 0;
    votecl_status status;

    if ((status = canny(plan, data, &n)) != VOTECL_OK)
        return status;
    stage_mark(plan, STAGE_EDGES);
    nrays = votecl__circles_rays(d, data, d->width, plan->edges, n, plan->rays, plan->xy);
    plan->last.kept = nrays;
    stage_mark(plan, STAGE_RAYS);
    if (nrays == 0) { /* OpenCV returns no circle without an edge */
        *found = 0;
        return VOTECL_OK;
    }
    if (plan->device) {
        if ((status = device_vote(plan, nrays)) != VOTECL_OK)
            return status;
        stage_mark(plan, STAGE_VOTE);
        if ((status = device_candidates(plan, 2, launch_centres, &ncand)) != VOTECL_OK)
            return status;
        plan->acc_on_device = 1;
    } else if ((status = ref_centres(plan, nrays, &ncand)) != VOTECL_OK)
        return status;
    stage_mark(plan, STAGE_CENTRES);
    plan->clock.candidates = ncand;
    if (plan->radius != NULL)
        return device_circles(plan, ncand, nrays, circles, capacity, found);
    /* the host's radii and selection in one call: their time is the radii's */
    status = votecl__circles_gradient_circles(d, plan->pairs, ncand, plan->xy, nrays, circles,
                                              capacity, found);
    stage_mark(plan, STAGE_RADII);
    if (status != VOTECL_OK)
        return votecl__fail(plan->context, status, "out of memory for the radius histograms");
    return VOTECL_OK;
}

/* --- the radii method --- */

/* kernel over n items (in work-groups of wg) of every radius's space. */
static votecl_status
launch_spaces(votecl_circles_plan *plan, void *kernel, size_t n, size_t wg, const votecl__arg *args,
              unsigned nargs)
{
    size_t local[2] = {wg, 1}, global[2] = {votecl__round_up(n, wg), plan->desc.spaces};

    return votecl__launch(plan->context, kernel, 2, global, local, args, nargs);
}

/* Each radius's largest count (a reduction on the device, read back), made into the least
 * count of a candidate on the host (votecl__circles_radii_least) and uploaded. */
static votecl_status
device_least(votecl_circles_plan *plan)
{
    const votecl__circles_desc *d = &plan->desc;
    uint32_t *host = votecl__malloc(4 * (size_t)d->spaces);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (host == NULL)
        return votecl__fail(plan->context, status, "out of memory");
    if ((status = votecl__buffer_zero(plan->d_maxes, 0, 4 * (size_t)d->spaces)) != VOTECL_OK ||
        (status = launch_spaces(plan, plan->k_radii_max, votecl__circles_cells(d), 256,
                                (votecl__arg[]){VOTECL__ARG_BUF(plan->d_acc),
                                                VOTECL__ARG_UINT(votecl__circles_cells(d)),
                                                VOTECL__ARG_BUF(plan->d_maxes)},
                                3)) != VOTECL_OK ||
        (status = votecl_buffer_read(plan->d_maxes, 0, host, 4 * (size_t)d->spaces)) != VOTECL_OK)
        goto out;
    for (unsigned s = 0; s < d->spaces; s++)
        host[s] = votecl__circles_radii_least(d, s, host[s]);
    status = votecl_buffer_write(plan->d_least, 0, host, 4 * (size_t)d->spaces);
out:
    free(host);
    return status;
}

static votecl_status
launch_radii_candidates(votecl_circles_plan *plan)
{
    const votecl__circles_desc *d = &plan->desc;
    votecl_status status = votecl__buffer_zero(plan->d_cand, 0, 4);

    if (status != VOTECL_OK)
        return status;
    return launch_spaces(
        plan, plan->k_radii_candidates, votecl__circles_cells(d), 64,
        (votecl__arg[]){VOTECL__ARG_BUF(plan->d_acc), VOTECL__ARG_UINT(d->cols),
                        VOTECL__ARG_UINT(d->rows), VOTECL__ARG_BUF(plan->d_least),
                        VOTECL__ARG_INT(d->p.min_xdistance), VOTECL__ARG_INT(d->p.min_ydistance),
                        VOTECL__ARG_UINT(plan->cand_cap), VOTECL__ARG_BUF(plan->d_cand)},
        8);
}

static votecl_status
device_radii(votecl_circles_plan *plan, size_t n)
{
    const votecl__circles_desc *d = &plan->desc;
    size_t cells = votecl__circles_cells(d) * d->spaces;
    votecl_status status;

    if ((status = votecl__buffer_ensure(plan->context, &plan->d_in, 4 * n)) != VOTECL_OK ||
        (status = votecl_buffer_write(plan->d_in, 0, plan->points, 4 * n)) != VOTECL_OK ||
        (status = votecl__buffer_zero(plan->d_acc, 0, cells * 4)) != VOTECL_OK ||
        (status = launch_spaces(
             plan, plan->k_radii, n, 64,
             (votecl__arg[]){VOTECL__ARG_BUF(plan->d_in), VOTECL__ARG_UINT(n),
                             VOTECL__ARG_BUF(plan->d_offsets), VOTECL__ARG_BUF(plan->d_starts),
                             VOTECL__ARG_UINT(d->spaces), VOTECL__ARG_UINT(d->cols),
                             VOTECL__ARG_UINT(d->rows), VOTECL__ARG_BUF(plan->d_acc)},
             8)) != VOTECL_OK)
        return status;
    return device_least(plan);
}

static votecl_status
run_radii(votecl_circles_plan *plan, const uint8_t *data, size_t stride, votecl_circle *circles,
          size_t capacity, size_t *found)
{
    const votecl__circles_desc *d = &plan->desc;
    size_t n = votecl__circles_edge_points(d, data, stride, plan->points), ncand = 0;
    votecl_status status;

    plan->last.kept = n;
    stage_mark(plan, STAGE_EDGES);
    if (n > 0 && plan->device) {
        /* the votes and the candidates on the device; the accumulator read only when asked */
        if ((status = device_radii(plan, n)) != VOTECL_OK)
            return status;
        stage_mark(plan, STAGE_VOTE);
        if ((status = device_candidates(plan, 3, launch_radii_candidates, &ncand)) != VOTECL_OK)
            return status;
        plan->acc_on_device = 1;
        plan->clock.candidates = ncand;
        stage_mark(plan, STAGE_CENTRES);
        status = votecl__circles_radii_peaks_from(d, plan->pairs, ncand, circles, capacity, found);
    } else {
        if ((status = ensure_acc(plan)) != VOTECL_OK)
            return status;
        votecl__circles_ref_radii_vote(d, plan->points, n, plan->acc);
        plan->have_acc = 1;
        stage_mark(plan, STAGE_VOTE);
        status = votecl__circles_radii_peaks(d, plan->acc, circles, capacity, found);
        stage_mark(plan, STAGE_CENTRES);
    }
    if (status != VOTECL_OK)
        return votecl__fail(plan->context, status, "out of memory for the peaks");
    return VOTECL_OK;
}

static votecl_status
check_run(votecl_circles_plan *plan, const votecl_image *image, const votecl_circle *circles,
          size_t capacity, const size_t *found)
{
    const votecl__circles_desc *d = &plan->desc;
    size_t row_bytes, pixels;
    votecl_status status;

    if ((status = votecl__results_check(plan->context, found, circles, capacity, "circles")) !=
        VOTECL_OK)
        return status;
    status = votecl__image_check(plan->context, image, VOTECL_DTYPE_U8, 1, &row_bytes, &pixels);
    if (status == VOTECL_OK && (image->width != d->width || image->height != d->height))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image.width, image.height: %zu x %zu is not the plan's %u x %u",
                            image->width, image->height, d->width, d->height);
    return status;
}

votecl_status
votecl_circles_run(votecl_circles_plan *plan, const votecl_image *image, votecl_circle *circles,
                   size_t capacity, size_t *found, votecl_vote_stats *stats)
{
    const void *packed;
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    if ((status = check_run(plan, image, circles, capacity, found)) != VOTECL_OK)
        return status;
    plan->have_acc = plan->acc_on_device = 0;
    plan->last = (votecl_vote_stats){.elements = (size_t)plan->desc.width * plan->desc.height};
    free(plan->packed_copy);
    plan->packed_copy = NULL;
    stage_begin(plan);
    if (plan->desc.p.method == VOTECL_CIRCLES_RADII)
        status = run_radii(plan, image->data, image->height > 1 ? image->stride : image->width,
                           circles, capacity, found);
    else if ((status = votecl__image_packed(plan->context, image, plan->desc.width, &packed,
                                            &plan->packed_copy)) == VOTECL_OK)
        status = run_gradient(plan, packed, circles, capacity, found);
    if (status != VOTECL_OK)
        return status;
    stage_mark(plan, STAGE_SELECT);
    stage_log(plan, *found);
    plan->last.eta = (double)plan->last.kept / (double)plan->last.elements;
    if (stats != NULL)
        *stats = plan->last;
    return VOTECL_OK;
}
