/* PClines line detection: validate, plan (defines, ring size, column ranges), launch the
 * four-kernel pipeline of cl/pclines.cl, read the maxima back and turn them into lines. The
 * plan takes the context's shape (context.c): the GPU shape (local-memory ring, atomics) or
 * the CPU shape (row bands, column blocks, no atomics per vote); VOTECL_FORCE_SHAPE forces
 * one. The 'ref' backend runs
 * lib/pclines-ref.c instead. */
#include "votecl-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pclines-private.h"

/* Local memory the ring may take: no more than 64 KiB whatever the device reports (PoCL
 * reports its whole emulated memory), and never more than a group ever holds. */
#define PCLINES_RING_BYTES_MAX 65536u
#define PCLINES_RING_MAX 64u
/* CPU shape: a worker's scratch of whole columns stays within a core's L2 (the votes of a
 * block scatter over it; on the 2-core EPYC development machine 512 KiB blocks were a few
 * per cent faster than 256 KiB ones, 128 KiB and 1 MiB slower: docs/performance.md), row
 * bands and workers a few per core so that uneven work balances. */
#define PCLINES_CPU_SCRATCH_BYTES (512u * 1024u)
#define PCLINES_CPU_SLOTS_MAX 256u
#define PCLINES_CPU_PER_CORE 4u
/* GPU shape: the maxima's count and the first this many maxima come back in one read (a
 * read waits for the queue to drain, the call's largest fixed cost on a GPU); a space with
 * more maxima (a threshold far below the default) takes a second read for the rest. */
#define PCLINES_READ_AHEAD 1024u
/* GPU shape: the words before the maxima in their buffer: the maxima's count, the edges'. */
#define PCLINES_HEAD_WORDS 4u
/* GPU shape: a fit's pass sums each line's pixels in PCLINES_FIT_GROUPS groups of
 * PCLINES_FIT_WG work-items (cl/pclines.cl's PCL_FIT_*; a pixel a work-item, groups enough
 * for a GPU's cores from a frame's few dozen lines), their sums added on the host. */
#define PCLINES_FIT_WG 128u
#define PCLINES_FIT_GROUPS 16u

enum {
    K_COUNT_U8,
    K_SCATTER_U8,
    K_COUNT_F32,
    K_SCATTER_F32,
    K_COUNT_LIST,
    K_SCATTER_LIST,
    K_SCAN,
    K_ACCUMULATE,
    K_EDGES_U8,
    K_EDGES_F32,
    K_SCAN_BANDS,
    K_SCATTER_BANDS,
    K_ACCUMULATE_ROWS,
    K_GRAY,
    K_FIT_U8,
    K_FIT_F32,
    K_COUNT
};

static const char *const kernel_names[K_COUNT] = {"pclines_count_u8",
                                                  "pclines_scatter_u8",
                                                  "pclines_count_f32",
                                                  "pclines_scatter_f32",
                                                  "pclines_count_list",
                                                  "pclines_scatter_list",
                                                  "pclines_scan",
                                                  "pclines_accumulate",
                                                  "pclines_edges_rows_u8",
                                                  "pclines_edges_rows_f32",
                                                  "pclines_scan_bands",
                                                  "pclines_scatter_bands",
                                                  "pclines_accumulate_rows",
                                                  "pclines_gray_u8",
                                                  "pclines_fit_u8",
                                                  "pclines_fit_f32"};

struct votecl_lines_plan {
    votecl_context *context;
    votecl_lines_params params; /* resolved */
    votecl__pclines_desc desc;
    unsigned wg, ring;
    uint32_t per, groups; /* columns per group, column groups */
    uint32_t tile, trows, tiles; /* rows a group owns, rows of a ring column, row tiles */
    size_t max_capacity;  /* maxima the device may store */
    int cpu;              /* the CPU shape */
    uint32_t bands, band_rows;             /* CPU: row bands of the edge kernels */
    uint32_t block, slots, workers;        /* CPU: owned columns, scratch columns, workers */
    uint32_t stride;                       /* CPU: counts from one scratch column to the next */
    int space_stored;     /* CPU: the TS space of the last run is in 'space' */
    int counts_zero;      /* GPU: the last run left 'counts' and the scan's ticket zero */
    void *kernels[K_COUNT];
    votecl_buffer *input, *counts, *offsets, *totals, *sorted, *space, *maxima;
    votecl_buffer *gray; /* a colour image's gray levels, made on the device */
    votecl_buffer *fit_params, *fit_moments; /* GPU: the fit's words and sums, a line each */
    votecl_buffer *fit_image; /* GPU: the run's image on the device (borrowed; NULL: the
                                 lines are fitted on the host) */
    votecl_dtype fit_dtype;
    int fitted_on_device; /* the last run's fit ran there */
    uint8_t *host_gray;  /* owned: the same on the host, for the fit and segments */
    votecl_buffer *band_counts, *band_lists, *band_sizes, *band_flags, *scratch; /* CPU */
    votecl__pclines_max *host_maxima; /* host_block after its head */
    uint32_t *host_block; /* owned: the GPU shape's read, PCLINES_HEAD_WORDS then maxima */
    uint32_t *host_space;            /* ref backend */
    votecl__pclines_point *points;   /* ref backend */
    size_t points_capacity;
    int have_space;
    votecl_lines_stats last;
    unsigned fit_workers;          /* the threads the last run's fit had (0: no refine) */
    unsigned walk_workers;         /* and its segment walk (0: none) */
    votecl__segment_list segments; /* every segment of the last run's lines */
};

void
votecl_lines_params_init(votecl_lines_params *params)
{
    VOTECL__PARAMS_INIT_OR_RETURN(params);
    params->neighbourhood = 5;
    params->radius = VOTECL_LINES_RADIUS_AUTO;
    params->edge_threshold = 128;
    params->orientation_kernel = 7;
    params->max_gap = 5;
    params->merge_distance = 3.0;
    params->refine = 1;
}

#define BAD(...) (snprintf(msg, msg_size, __VA_ARGS__), VOTECL_INVALID_ARGUMENT)

static votecl_status
check_params(const void *params, size_t width, size_t height, char *msg, size_t msg_size)
{
    const votecl_lines_params *p = params;

    if (width < 1 || width > VOTECL_LINES_MAX_SIDE)
        return BAD("width: %zu is not between 1 and %u", width, VOTECL_LINES_MAX_SIDE);
    if (height < 1 || height > VOTECL_LINES_MAX_SIDE)
        return BAD("height: %zu is not between 1 and %u", height, VOTECL_LINES_MAX_SIDE);
    if (p->neighbourhood < 1 || p->neighbourhood % 2 == 0 || p->neighbourhood > 99)
        return BAD("neighbourhood: %u is not an odd number from 1 to 99", p->neighbourhood);
    if (p->distance > VOTECL_LINES_MAX_DISTANCE)
        return BAD("distance: %u exceeds %u", p->distance, VOTECL_LINES_MAX_DISTANCE);
    if (p->distance != 0 && p->neighbourhood > 2 * (uint64_t)p->distance)
        return BAD("neighbourhood: %u exceeds the 2d = %llu columns of distance %u",
                   p->neighbourhood, 2ULL * p->distance, p->distance);
    if (p->rows > VOTECL_LINES_MAX_ROWS)
        return BAD("rows: %u exceeds %u", p->rows, VOTECL_LINES_MAX_ROWS);
    if (p->orientation_kernel != 3 && p->orientation_kernel != 5 && p->orientation_kernel != 7)
        return BAD("orientation_kernel: %u is not 3, 5 or 7", p->orientation_kernel);
    if (!(p->merge_distance >= 0 && p->merge_distance <= 1e6))
        return BAD("merge_distance: must be between 0 and 1e6 pixels");
    if (p->edge_threshold < 1)
        return BAD("edge_threshold: must be at least 1");
    if (p->work_group_size != 0 &&
        (p->work_group_size & (p->work_group_size - 1)) != 0)
        return BAD("work_group_size: %u is not a power of two", p->work_group_size);
    return VOTECL_OK;
}

/* Ring columns and row tiles for a local-memory budget: whole columns when n of them fit,
 * else n columns of tiles of rows (each with n / 2 rows of halo on either side), so that the
 * image's size never decides whether a device can run. */
static votecl_status
plan_tiles(votecl_lines_plan *plan, uint64_t budget, uint32_t n)
{
    const votecl__pclines_desc *d = &plan->desc;
    uint64_t trows;

    if ((uint64_t)n * d->rows * 4 <= budget) {
        plan->tiles = 1;
        plan->tile = plan->trows = d->rows;
        plan->ring = (unsigned)(budget / ((uint64_t)d->rows * 4));
        if (plan->ring > plan->per + n - 1)
            plan->ring = plan->per + n - 1;
        if (plan->ring > PCLINES_RING_MAX)
            plan->ring = PCLINES_RING_MAX;
        return VOTECL_OK;
    }
    plan->ring = n;
    trows = budget / ((uint64_t)n * 4);
    if (trows < (uint64_t)n) /* a tile of one row needs n rows: the device's memory is tiny */
        return votecl__fail(plan->context, VOTECL_UNSUPPORTED,
                            "neighbourhood: %u x %u counts need %llu bytes of local memory, the "
                            "device has %llu",
                            n, n, (unsigned long long)n * n * 4, (unsigned long long)budget);
    plan->tiles = (uint32_t)((d->rows + (trows - 2 * d->half) - 1) / (trows - 2 * d->half));
    plan->tile = (d->rows + plan->tiles - 1) / plan->tiles; /* even tiles */
    plan->trows = plan->tile + 2 * d->half < d->rows ? plan->tile + 2 * d->half : d->rows;
    return VOTECL_OK;
}

/* Work-group size, ring columns and column ranges for the device. */
static votecl_status
plan_layout(votecl_lines_plan *plan)
{
    const votecl_device_info *info = &plan->context->info;
    const votecl__pclines_desc *d = &plan->desc;
    uint32_t columns = 2 * d->d, n = 2 * d->half + 1, target;
    uint64_t budget = info->local_mem_bytes < PCLINES_RING_BYTES_MAX ? info->local_mem_bytes
                                                                     : PCLINES_RING_BYTES_MAX;
    /* GPUs: 1024 work-items share each column's edges (measured on an H200, 1920x1080:
     * accumulation 490 / 262 / 163 / 109 us with 128 / 256 / 512 / 1024). */
    size_t wg = plan->params.work_group_size != 0 ? plan->params.work_group_size
                : !plan->context->shape.cpu       ? 1024
                                                  : 256;

    while (wg > 1 && wg > info->max_work_group_size)
        wg /= 2;
    plan->wg = (unsigned)wg;
    /* Enough groups to fill the device; a group accumulates n - 1 columns beyond its own. */
    target = info->compute_units > 0 ? 4 * info->compute_units : 4;
    plan->per = (columns + target - 1) / target;
    plan->per = plan->per < n ? n : plan->per;
    plan->per = plan->per > columns ? columns : plan->per;
    plan->groups = (columns + plan->per - 1) / plan->per;
    return plan_tiles(plan, budget, n);
}

/* Whether the plan takes the CPU shape (work-item-owned columns) rather than the GPU shape
 * (the local-memory ring): the context's shape (VOTECL_FORCE_SHAPE, profiles). */
static int
plan_cpu_shaped(const votecl_lines_plan *plan)
{
    return plan->context->shape.cpu;
}

/* Row bands, column blocks and workers of the CPU shape. */
static void
plan_layout_cpu(votecl_lines_plan *plan)
{
    const votecl__pclines_desc *d = &plan->desc;
    uint32_t units = plan->context->info.compute_units > 0 ? plan->context->info.compute_units
                                                           : 1;
    uint32_t interior = d->height > 2 ? d->height - 2 : 0, columns = 2 * d->d;
    uint32_t halo = 2 * d->half, blocks, fit;

    plan->bands = interior < PCLINES_CPU_PER_CORE * units ? interior : PCLINES_CPU_PER_CORE * units;
    plan->bands = plan->bands > 0 ? plan->bands : 1;
    plan->band_rows = interior > 0 ? (interior + plan->bands - 1) / plan->bands : 1;
    /* columns an odd number of 64-byte lines apart: the same row of successive columns falls
     * in different L1 sets */
    plan->stride = (d->rows + 15) / 16 * 16;
    plan->stride += plan->stride / 16 % 2 == 0 ? 16 : 0;
    fit = (uint32_t)(PCLINES_CPU_SCRATCH_BYTES / ((uint64_t)plan->stride * 4));
    /* at least 8 owned columns a block, so that the halo's share stays bounded */
    plan->block = fit > halo + 8 ? fit - halo : 8;
    plan->block = plan->block > PCLINES_CPU_SLOTS_MAX - halo ? PCLINES_CPU_SLOTS_MAX - halo
                                                             : plan->block;
    plan->block = plan->block > columns ? columns : plan->block;
    plan->slots = plan->block + halo;
    blocks = (columns + plan->block - 1) / plan->block;
    plan->workers = blocks < PCLINES_CPU_PER_CORE * units ? blocks : PCLINES_CPU_PER_CORE * units;
}

/* The CPU shape's defines: none follows the image's size (cl/pclines.cl's PCL_SIZE_ARGS;
 * size_args below), so that one program serves every size: after `votecl warmup` a new size
 * compiles nothing (on PoCL a program took 1.6 s to build). */
static size_t
plan_defines_cpu(const votecl_lines_plan *plan, char defs[][64])
{
    const votecl__pclines_desc *d = &plan->desc;
    size_t n = 0;

    snprintf(defs[n++], 64, "PCL_WG=%u", plan->wg);
    snprintf(defs[n++], 64, "PCL_HALF=%u", d->half);
    snprintf(defs[n++], 64, "PCL_KERNEL=%u", d->kernel);
    snprintf(defs[n++], 64, "PCL_EDGE_T2=%lldL", (long long)d->edge_t2);
    snprintf(defs[n++], 64, "PCL_FUSED_SCAN=0");
    snprintf(defs[n++], 64, "PCL_SIZE_ARGS=1");
    snprintf(defs[n++], 64, "PCL_CPU_SLOTS_MAX=%u", PCLINES_CPU_SLOTS_MAX);
    return n;
}

/* The CPU shape's sizes after a kernel's own n arguments (PCL_SZ_DECL, in its order and
 * types); the GPU shape's are defines. Returns the count of arguments. */
static unsigned
size_args(const votecl_lines_plan *plan, votecl__arg *args, unsigned n)
{
    const votecl__pclines_desc *d = &plan->desc;

    if (!plan->cpu)
        return n;
    args[n++] = VOTECL__ARG_INT(d->width);
    args[n++] = VOTECL__ARG_INT(d->height);
    args[n++] = VOTECL__ARG_INT(d->d);
    args[n++] = VOTECL__ARG_INT(d->rows);
    args[n++] = VOTECL__ARG_INT(d->m);
    args[n++] = VOTECL__ARG_ULONG(d->k);
    args[n++] = VOTECL__ARG_INT(d->radius);
    args[n++] = VOTECL__ARG_INT(plan->block);
    args[n++] = VOTECL__ARG_INT(plan->stride);
    return n;
}

/* A kernel's arguments with the CPU shape's sizes appended (room for them). */
#define PCL_SIZE_ARGS_MAX 9
#define LAUNCH_SIZED(plan, kernel, global, local, ...)                                             \
    launch_sized(plan, kernel, global, local, (votecl__arg[]){__VA_ARGS__},                        \
                 sizeof((votecl__arg[]){__VA_ARGS__}) / sizeof(votecl__arg))

static votecl_status
launch_sized(const votecl_lines_plan *plan, int kernel, size_t global, size_t local,
             const votecl__arg *own, unsigned n)
{
    votecl__arg args[16 + PCL_SIZE_ARGS_MAX];

    memcpy(args, own, n * sizeof *args);
    return votecl__launch(plan->context, plan->kernels[kernel], 1, &global, &local, args,
                          size_args(plan, args, n));
}

static size_t
plan_defines(const votecl_lines_plan *plan, char defs[][64])
{
    const votecl__pclines_desc *d = &plan->desc;
    size_t n = 0;

    if (plan->cpu)
        return plan_defines_cpu(plan, defs);
    snprintf(defs[n++], 64, "PCL_WG=%u", plan->wg);
    snprintf(defs[n++], 64, "PCL_W=%u", d->width);
    snprintf(defs[n++], 64, "PCL_H=%u", d->height);
    snprintf(defs[n++], 64, "PCL_D=%u", d->d);
    snprintf(defs[n++], 64, "PCL_ROWS=%u", d->rows);
    snprintf(defs[n++], 64, "PCL_M=%u", d->m);
    snprintf(defs[n++], 64, "PCL_K=%lluUL", (unsigned long long)d->k);
    /* |num| <= 4 M D: when that and K fit 32 bits, a row is one 32-bit mul_hi (same value) */
    snprintf(defs[n++], 64, "PCL_NARROW=%d",
             4ull * d->m * d->d < 0x80000000ull && d->k <= 0xffffffffull);
    snprintf(defs[n++], 64, "PCL_HALF=%u", d->half);
    snprintf(defs[n++], 64, "PCL_RING=%u", plan->ring);
    snprintf(defs[n++], 64, "PCL_TILE=%u", plan->tile);
    snprintf(defs[n++], 64, "PCL_TROWS=%u", plan->trows);
    snprintf(defs[n++], 64, "PCL_RADIUS=%u", d->radius);
    snprintf(defs[n++], 64, "PCL_KERNEL=%u", d->kernel);
    snprintf(defs[n++], 64, "PCL_EDGE_T2=%lldL", (long long)d->edge_t2);
    snprintf(defs[n++], 64, "PCL_FUSED_SCAN=1");
    snprintf(defs[n++], 64, "PCL_FIT_GROUPS=%u", PCLINES_FIT_GROUPS);
    return n;
}

static votecl_status
plan_compile(votecl_lines_plan *plan)
{
    static const char *const files[] = {"pclines.cl", NULL};
    char defs[24][64];
    const char *ptrs[24];
    size_t n;
    votecl__program *program;
    votecl_status status = plan_layout(plan);

    if (status != VOTECL_OK)
        return status;
    if ((plan->cpu = plan_cpu_shaped(plan)))
        plan_layout_cpu(plan);
    if (plan->cpu)
        votecl__log(plan->context, "plan: pclines CPU shape, %u bands, %u workers of %u columns",
                    plan->bands, plan->workers, plan->block);
    else
        votecl__log(plan->context,
                    "plan: pclines GPU shape, wg %u, %u groups of %u columns, %u row tiles of %u",
                    plan->wg, plan->groups, plan->per, plan->tiles, plan->tile);
    n = plan_defines(plan, defs);
    for (size_t i = 0; i < n; i++)
        ptrs[i] = defs[i];
    status = votecl__program_get(plan->context, files, ptrs, n, NULL, &program);
    /* the GPU shape's kernels (its scan fused into the counts) and fit, or the CPU shape's
     * and the edge list's sort; colour in both */
    for (int k = 0; k < K_COUNT && status == VOTECL_OK; k++)
        if (k == K_GRAY || (k >= K_FIT_U8 && !plan->cpu) ||
            (plan->cpu ? k >= K_COUNT_LIST && k != K_ACCUMULATE && k < K_GRAY
                       : k < K_EDGES_U8 && k != K_SCAN))
            status = votecl__program_kernel(plan->context, program, kernel_names[k],
                                            &plan->kernels[k]);
    return status;
}

static votecl_status
plan_init(void *plan_, votecl_context *context, const void *params, size_t width, size_t height)
{
    votecl_lines_plan *plan = plan_;
    votecl__pclines_desc *d = &plan->desc;
    size_t cells;

    plan->context = context;
    plan->params = *(const votecl_lines_params *)params;
    votecl__pclines_desc_init(d, &plan->params, (uint32_t)width, (uint32_t)height);
    plan->params.distance = d->d;
    plan->params.rows = d->rows;
    plan->params.threshold = d->threshold;
    plan->params.radius = d->radius;
    if (plan->params.neighbourhood > 2 * (uint64_t)d->d)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "neighbourhood: %u exceeds the %u columns", plan->params.neighbourhood,
                            2 * d->d);
    if (votecl__mul_overflow(2 * (size_t)d->d, d->rows, &cells) || cells > (size_t)INT32_MAX)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "distance, rows: %u x %u cells exceed %d", 2 * d->d, d->rows,
                            INT32_MAX);
    plan->max_capacity = votecl__pclines_max_bound(d);
    plan->host_block =
        votecl__malloc(PCLINES_HEAD_WORDS * 4 + plan->max_capacity * sizeof *plan->host_maxima);
    if (plan->host_block == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    plan->host_maxima = (votecl__pclines_max *)(plan->host_block + PCLINES_HEAD_WORDS);
    if (plan->context->backend == VOTECL_BACKEND_REF) {
        if ((plan->host_space = votecl__malloc(cells * sizeof *plan->host_space)) == NULL)
            return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                                "out of memory for %zu cells", cells);
        return VOTECL_OK;
    }
    return plan_compile(plan);
}

VOTECL__PLAN_OPS(votecl_lines_plan, votecl_lines_plan_free, .check = check_params,
                 .init = plan_init);

votecl_status
votecl_lines_plan_new(votecl_context *context, const votecl_lines_params *params, size_t width,
                      size_t height, votecl_lines_plan **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    return votecl__plan_new_of(&plan_ops, context, params, width, height, out);
}

void
votecl_lines_plan_free(votecl_lines_plan *plan)
{
    if (plan == NULL)
        return;
    VOTECL__FREE_BUFFERS(plan->input, plan->gray, plan->fit_params, plan->fit_moments, plan->counts,
                         plan->offsets, plan->totals, plan->sorted, plan->space, plan->maxima,
                         plan->band_counts, plan->band_lists, plan->band_sizes, plan->band_flags,
                         plan->scratch);
    VOTECL__FREE_ALL(plan->host_block, plan->host_gray, plan->host_space, plan->points,
                     plan->segments.items, plan);
}

void
votecl_lines_plan_params(const votecl_lines_plan *plan, votecl_lines_params *params)
{
    if (plan != NULL && params != NULL)
        *params = plan->params;
}

void
votecl_lines_plan_shape(const votecl_lines_plan *plan, uint32_t *columns, uint32_t *rows)
{
    if (columns != NULL)
        *columns = plan != NULL ? 2 * plan->desc.d : 0;
    if (rows != NULL)
        *rows = plan != NULL ? plan->desc.rows : 0;
}

static size_t
space_cells(const votecl_lines_plan *plan)
{
    return 2 * (size_t)plan->desc.d * plan->desc.rows;
}

/* --- the reference backend --- */

static votecl_status
ref_points(votecl_lines_plan *plan, size_t n)
{
    votecl__pclines_point *p;

    if (n <= plan->points_capacity)
        return VOTECL_OK;
    if ((p = votecl__realloc(plan->points, (n > 0 ? n : 1) * sizeof *p)) == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    plan->points = p;
    plan->points_capacity = n;
    return VOTECL_OK;
}

static void
ref_vote(votecl_lines_plan *plan, size_t n)
{
    votecl__pclines_ref_accumulate(&plan->desc, plan->points, n, plan->host_space);
    plan->last.edges = n;
    plan->last.maxima = votecl__pclines_ref_maxima(&plan->desc, plan->host_space,
                                                   plan->host_maxima, plan->max_capacity);
}

static votecl_status
ref_run_image(votecl_lines_plan *plan, const void *data, votecl_dtype dtype)
{
    votecl_status status = ref_points(plan, (size_t)plan->desc.width * plan->desc.height);

    if (status == VOTECL_OK)
        ref_vote(plan, votecl__pclines_ref_edges(&plan->desc, data, dtype, plan->points));
    return status;
}

static votecl_status
ref_run_edges(votecl_lines_plan *plan, const votecl_lines_edge *edges, size_t n)
{
    votecl_status status = ref_points(plan, n);

    if (status != VOTECL_OK)
        return status;
    for (size_t i = 0; i < n; i++) {
        plan->points[i].location = edges[i].x | edges[i].y << 16;
        plan->points[i].key = votecl__pclines_key(&plan->desc, edges[i].gx, edges[i].gy);
    }
    ref_vote(plan, n);
    return VOTECL_OK;
}

/* --- the device pipeline --- */

/* The CPU shape's buffers: the bands' counts, edge lists and sizes, the workers' scratch
 * (the TS space only when read back). */
static votecl_status
device_buffers_cpu(votecl_lines_plan *plan)
{
    votecl_context *ctx = plan->context;
    const votecl__pclines_desc *d = &plan->desc;
    size_t counts, lists, scratch;
    votecl_status status;

    if (votecl__mul_overflow((size_t)plan->bands * 2 * d->d, 4, &counts) ||
        votecl__mul_overflow((size_t)plan->bands * plan->band_rows, (size_t)d->width * 8,
                             &lists) ||
        votecl__mul_overflow((size_t)plan->workers * plan->slots, (size_t)plan->stride * 4,
                             &scratch))
        return votecl__fail(ctx, VOTECL_OUT_OF_DEVICE_MEMORY,
                            "width, height: the CPU plan's buffers overflow size_t");
    if ((status = votecl__buffer_ensure(ctx, &plan->band_counts, counts)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->band_lists, lists)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->band_sizes, plan->bands * 4)) !=
            VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->band_flags,
                                        (size_t)plan->bands * d->width)) != VOTECL_OK)
        return status;
    return votecl__buffer_ensure(ctx, &plan->scratch, scratch);
}

/* The GPU shape's buffers: the TS space, and the maxima after their head (the maxima's
 * count and the edges', written by pclines_scan and pclines_accumulate: no fill). */
static votecl_status
device_buffers_gpu(votecl_lines_plan *plan)
{
    votecl_context *ctx = plan->context;
    votecl_status status = votecl__buffer_ensure(ctx, &plan->space, space_cells(plan) * 4);

    if (status != VOTECL_OK)
        return status;
    return votecl__buffer_ensure(ctx, &plan->maxima,
                                 PCLINES_HEAD_WORDS * 4 + plan->max_capacity * 8);
}

/* The counts: the CPU shape's own 12-byte buffer (zeroed here), the GPU shape's the head of
 * its maxima. */
static votecl_buffer *
totals_of(votecl_lines_plan *plan)
{
    return plan->cpu ? plan->totals : plan->maxima;
}

static votecl_status
device_buffers(votecl_lines_plan *plan, size_t edges)
{
    votecl_context *ctx = plan->context;
    size_t keys = 2 * (size_t)plan->desc.d;
    votecl_status status;

    plan->space_stored = 0;
    if ((status = votecl__buffer_ensure(ctx, &plan->counts, keys * 4)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->offsets, (keys + 1) * 4)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->sorted, (edges > 0 ? edges : 1) * 4)) !=
            VOTECL_OK ||
        (!plan->cpu && (status = device_buffers_gpu(plan)) != VOTECL_OK) ||
        (plan->cpu && (status = votecl__buffer_ensure(ctx, &plan->totals, 12)) != VOTECL_OK) ||
        (plan->cpu && (status = device_buffers_cpu(plan)) != VOTECL_OK) ||
        (plan->cpu &&
         (status = votecl__buffer_ensure(ctx, &plan->maxima, plan->max_capacity * 8)) != VOTECL_OK))
        return status;
    /* until the run has read its maxima, the counts may hold its votes and the fused scan's
     * ticket (the maxima's head) may be set */
    if (!plan->counts_zero &&
        ((status = votecl__buffer_zero(plan->counts, 0, keys * 4)) != VOTECL_OK ||
         (!plan->cpu &&
          (status = votecl__buffer_zero(plan->maxima, 0, PCLINES_HEAD_WORDS * 4)) != VOTECL_OK)))
        return status;
    plan->counts_zero = 0;
    return plan->cpu ? votecl__buffer_zero(plan->totals, 0, 12) : VOTECL_OK;
}

/* The CPU shape's edges of an image: Sobel once per pixel in row bands, then the counting
 * sort's scan and scatter over the bands' own counts. (u8 bands take a row of flags.) */
static votecl_status
device_edges_cpu(votecl_lines_plan *plan, int k_edges, votecl_buffer *image)
{
    votecl__arg args[] = {VOTECL__ARG_BUF(image),
                          VOTECL__ARG_UINT(plan->band_rows),
                          VOTECL__ARG_BUF(plan->band_counts),
                          VOTECL__ARG_BUF(plan->band_lists),
                          VOTECL__ARG_BUF(plan->band_sizes),
                          VOTECL__ARG_BUF(plan->band_flags)};
    votecl_status status =
        launch_sized(plan, k_edges, plan->bands, 1, args, k_edges == K_EDGES_U8 ? 6 : 5);

    if (status == VOTECL_OK)
        status = LAUNCH_SIZED(plan, K_SCAN_BANDS, 1, 1, VOTECL__ARG_BUF(plan->band_counts),
                              VOTECL__ARG_UINT(plan->bands), VOTECL__ARG_BUF(plan->offsets),
                              VOTECL__ARG_BUF(plan->totals));
    if (status == VOTECL_OK)
        status =
            LAUNCH_SIZED(plan, K_SCATTER_BANDS, plan->bands, 1, VOTECL__ARG_BUF(plan->band_lists),
                         VOTECL__ARG_UINT(plan->band_rows), VOTECL__ARG_BUF(plan->band_sizes),
                         VOTECL__ARG_BUF(plan->band_counts), VOTECL__ARG_BUF(plan->sorted));
    return status;
}

/* The CPU shape's accumulation and maxima; store: also write the TS space. */
static votecl_status
device_accumulate_cpu(votecl_lines_plan *plan, uint32_t store)
{
    return LAUNCH_SIZED(plan, K_ACCUMULATE_ROWS, plan->workers, 1, VOTECL__ARG_BUF(plan->sorted),
                        VOTECL__ARG_BUF(plan->offsets), VOTECL__ARG_UINT(plan->desc.threshold),
                        VOTECL__ARG_UINT(store),
                        VOTECL__ARG_BUF(store ? plan->space : plan->maxima),
                        VOTECL__ARG_BUF(plan->maxima), VOTECL__ARG_BUF(plan->totals),
                        VOTECL__ARG_UINT(plan->max_capacity), VOTECL__ARG_BUF(plan->scratch));
}

/* The TS space of the CPU shape's last run, on demand: the sorted edges are still on the
 * device, so the accumulation runs again, storing (the maxima come out the same). */
static votecl_status
device_store_space(votecl_lines_plan *plan)
{
    votecl_status status;

    if (!plan->cpu || plan->space_stored)
        return VOTECL_OK;
    if ((status = votecl__buffer_ensure(plan->context, &plan->space,
                                        space_cells(plan) * 4)) != VOTECL_OK ||
        (status = votecl__buffer_zero(plan->totals, 0, 4)) != VOTECL_OK ||
        (status = votecl__buffer_zero(plan->totals, 8, 4)) != VOTECL_OK ||
        (status = device_accumulate_cpu(plan, 1)) != VOTECL_OK)
        return status;
    plan->space_stored = 1;
    return VOTECL_OK;
}

/* Counting sort of the edges by key: count, scan, scatter (the GPU shape's count kernel
 * ends with the scan: PCL_FUSED_SCAN). args: the input's arguments. */
static votecl_status
device_sort(votecl_lines_plan *plan, int k_count, size_t items, const votecl__arg *in,
            unsigned nin)
{
    size_t local = plan->wg, global = votecl__round_up(items > 0 ? items : 1, local);
    votecl__arg args[5];
    votecl_status status;

    memcpy(args, in, nin * sizeof *args);
    args[nin] = VOTECL__ARG_BUF(plan->counts);
    args[nin + 1] = VOTECL__ARG_BUF(plan->offsets);
    args[nin + 2] = VOTECL__ARG_BUF(totals_of(plan));
    status = launch_sized(plan, k_count, global, local, args, plan->cpu ? nin + 1 : nin + 3);
    if (status == VOTECL_OK && plan->cpu)
        status = LAUNCH_SIZED(plan, K_SCAN, local, local, VOTECL__ARG_BUF(plan->counts),
                              VOTECL__ARG_BUF(plan->offsets), VOTECL__ARG_BUF(totals_of(plan)));
    args[nin + 1] = VOTECL__ARG_BUF(plan->sorted);
    if (status == VOTECL_OK)
        status = launch_sized(plan, k_count + 1, global, local, args, nin + 2);
    return status;
}

/* The edges of an image on the device, sorted by key, in either shape. */
static votecl_status
device_sort_image(votecl_lines_plan *plan, votecl_buffer *image, votecl_dtype dtype)
{
    size_t pixels = (size_t)plan->desc.width * plan->desc.height;

    if (plan->cpu)
        return device_edges_cpu(plan, dtype == VOTECL_DTYPE_U8 ? K_EDGES_U8 : K_EDGES_F32,
                                image);
    return device_sort(plan, dtype == VOTECL_DTYPE_U8 ? K_COUNT_U8 : K_COUNT_F32, pixels,
                       (votecl__arg[]){VOTECL__ARG_BUF(image)}, 1);
}

/* The maxima's count, the edges' and the maxima once pclines_accumulate ran: the CPU shape's
 * counts, then its maxima; the GPU shape's head and first maxima in one read. */
static votecl_status
device_read_maxima(votecl_lines_plan *plan)
{
    uint32_t *head = plan->host_block;
    size_t ahead = plan->cpu                                 ? 0
                   : plan->max_capacity < PCLINES_READ_AHEAD ? plan->max_capacity
                                                             : PCLINES_READ_AHEAD;
    size_t first = plan->cpu ? 0 : PCLINES_HEAD_WORDS * 4, take;
    votecl_status status = plan->cpu ? votecl_buffer_read(plan->totals, 0, head, 8)
                                     : votecl_buffer_read(plan->maxima, 0, head, first + ahead * 8);

    if (status != VOTECL_OK)
        return status;
    plan->last.maxima = head[0];
    plan->last.edges = head[1];
    take = head[0] < plan->max_capacity ? head[0] : plan->max_capacity;
    if (take <= ahead)
        return VOTECL_OK;
    return votecl_buffer_read(plan->maxima, first + ahead * 8, plan->host_maxima + ahead,
                              (take - ahead) * 8);
}

/* Algorithm 2 and the maxima, then the host round trip. */
static votecl_status
device_accumulate(votecl_lines_plan *plan)
{
    votecl_context *ctx = plan->context;
    size_t local = plan->wg, global = (size_t)plan->groups * plan->tiles * plan->wg;
    votecl_status status =
        plan->cpu
            ? device_accumulate_cpu(plan, 0)
            : votecl__launch(
                  ctx, plan->kernels[K_ACCUMULATE], 1, &global, &local,
                  (votecl__arg[]){VOTECL__ARG_BUF(plan->sorted), VOTECL__ARG_BUF(plan->offsets),
                                  VOTECL__ARG_UINT(plan->per), VOTECL__ARG_UINT(plan->groups),
                                  VOTECL__ARG_UINT(plan->desc.threshold),
                                  VOTECL__ARG_BUF(plan->space), VOTECL__ARG_BUF(plan->maxima),
                                  VOTECL__ARG_UINT(plan->max_capacity),
                                  VOTECL__ARG_BUF(plan->counts)},
                  9);

    if (status == VOTECL_OK)
        status = device_read_maxima(plan);
    plan->counts_zero = status == VOTECL_OK && !plan->cpu;
    return status;
}

/* The run's image stays on the device for the fit (buffer, borrowed): the GPU shape sums
 * each pass there, the CPU shape (and params.fit_on_host) fits on the host. */
static void
fit_on_device(votecl_lines_plan *plan, votecl_buffer *image, votecl_dtype dtype)
{
    plan->fit_image = plan->cpu || plan->params.fit_on_host ? NULL : image;
    plan->fit_dtype = dtype;
}

static votecl_status
device_run_image(votecl_lines_plan *plan, const void *data, votecl_dtype dtype)
{
    size_t pixels = (size_t)plan->desc.width * plan->desc.height;
    size_t bytes = pixels * votecl_dtype_size(dtype);
    votecl_status status;

    if ((status = device_buffers(plan, pixels)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(plan->context, &plan->input, bytes)) != VOTECL_OK ||
        (status = votecl_buffer_write(plan->input, 0, data, bytes)) != VOTECL_OK ||
        (status = device_sort_image(plan, plan->input, dtype)) != VOTECL_OK)
        return status;
    fit_on_device(plan, plan->input, dtype);
    return device_accumulate(plan);
}

/* plan->host_gray, allocated at the first colour image. */
static votecl_status
host_gray_ensure(votecl_lines_plan *plan)
{
    size_t pixels = (size_t)plan->desc.width * plan->desc.height;

    if (plan->host_gray == NULL && (plan->host_gray = votecl__malloc(pixels)) == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    return VOTECL_OK;
}

/* A u8 colour image uploaded as it is (channels 3 or 4), its gray levels made on the device
 * (pclines_gray_u8): the host converts nothing. The GPU shape fits the lines there; the
 * segments (and the CPU shape's fit) read those levels back (one 1-byte-a-pixel transfer
 * after the maxima's: cheaper than converting the frame on the host, or the nine pixels
 * around each of thousands on the fly). */
static votecl_status
device_run_colour(votecl_lines_plan *plan, const void *data, unsigned channels)
{
    votecl_context *ctx = plan->context;
    size_t pixels = (size_t)plan->desc.width * plan->desc.height, local = plan->wg;
    size_t global = votecl__round_up(pixels, local);
    votecl_status status;

    if ((status = device_buffers(plan, pixels)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->input, pixels * channels)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->gray, pixels)) != VOTECL_OK ||
        (status = votecl_buffer_write(plan->input, 0, data, pixels * channels)) != VOTECL_OK ||
        (status = LAUNCH_SIZED(plan, K_GRAY, global, local, VOTECL__ARG_BUF(plan->input),
                               VOTECL__ARG_UINT(channels), VOTECL__ARG_BUF(plan->gray))) !=
            VOTECL_OK ||
        (status = device_sort_image(plan, plan->gray, VOTECL_DTYPE_U8)) != VOTECL_OK ||
        (fit_on_device(plan, plan->gray, VOTECL_DTYPE_U8),
         (status = device_accumulate(plan)) != VOTECL_OK) ||
        !((plan->params.refine && plan->fit_image == NULL) || plan->params.segments) ||
        (status = host_gray_ensure(plan)) != VOTECL_OK)
        return status;
    return votecl_buffer_read(plan->gray, 0, plan->host_gray, pixels);
}

/* The reference backend's colour run: the gray image on the host. */
static votecl_status
ref_run_colour(votecl_lines_plan *plan, const void *data, unsigned channels)
{
    votecl_status status = host_gray_ensure(plan);

    if (status != VOTECL_OK)
        return status;
    votecl__pclines_gray(data, channels, (size_t)plan->desc.width * plan->desc.height,
                         plan->host_gray);
    return ref_run_image(plan, plan->host_gray, VOTECL_DTYPE_U8);
}

/* The image already on the device (the caller's buffer): no upload. */
static votecl_status
device_run_buffer(votecl_lines_plan *plan, votecl_buffer *image, votecl_dtype dtype)
{
    size_t pixels = (size_t)plan->desc.width * plan->desc.height;
    votecl_status status;

    if ((status = device_buffers(plan, pixels)) != VOTECL_OK ||
        (status = device_sort_image(plan, image, dtype)) != VOTECL_OK)
        return status;
    fit_on_device(plan, image, dtype);
    return device_accumulate(plan);
}

static votecl_status
device_run_edges(votecl_lines_plan *plan, const votecl_lines_edge *edges, size_t n)
{
    size_t bytes = (n > 0 ? n : 1) * sizeof *edges;
    votecl_status status;

    if ((status = device_buffers(plan, n)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(plan->context, &plan->input, bytes)) != VOTECL_OK ||
        (n > 0 && (status = votecl_buffer_write(plan->input, 0, edges, n * sizeof *edges)) !=
                      VOTECL_OK) ||
        (status = device_sort(plan, K_COUNT_LIST, n,
                              (votecl__arg[]){VOTECL__ARG_BUF(plan->input),
                                              VOTECL__ARG_UINT(n)},
                              2)) != VOTECL_OK)
        return status;
    return device_accumulate(plan);
}

/* --- the fit on the device (GPU shape) --- */

/* One pass of n lines: their words up, each line's sums in PCLINES_FIT_GROUPS groups, the
 * groups' sums back (the pass's only wait; part: room for them) and added into m. */
static votecl_status
device_fit_pass(votecl_lines_plan *plan, const int64_t *p, uint64_t *part, uint64_t *m, size_t n)
{
    size_t local = PCLINES_FIT_WG, global = n * PCLINES_FIT_GROUPS * local;
    size_t words = VOTECL__PCLINES_FIT_MOMENTS;
    int k = plan->fit_dtype == VOTECL_DTYPE_U8 ? K_FIT_U8 : K_FIT_F32;
    votecl_status status =
        votecl_buffer_write(plan->fit_params, 0, p, n * VOTECL__PCLINES_FIT_WORDS * 8);

    if (status == VOTECL_OK)
        status = votecl__launch(plan->context, plan->kernels[k], 1, &global, &local,
                                (votecl__arg[]){VOTECL__ARG_BUF(plan->fit_image),
                                                VOTECL__ARG_BUF(plan->fit_params),
                                                VOTECL__ARG_BUF(plan->fit_moments)},
                                3);
    if (status == VOTECL_OK)
        status = votecl_buffer_read(plan->fit_moments, 0, part, n * PCLINES_FIT_GROUPS * words * 8);
    for (size_t i = 0; i < n && status == VOTECL_OK; i++)
        for (size_t j = 0; j < words; j++) {
            m[i * words + j] = 0;
            for (size_t g = 0; g < PCLINES_FIT_GROUPS; g++) /* modulo 2^64: any order */
                m[i * words + j] += part[(i * PCLINES_FIT_GROUPS + g) * words + j];
        }
    return status;
}

/* The fitter of the GPU shape (votecl__pclines_fitter): lines[0, n) fitted as
 * votecl__pclines_refine() fits them, each pass's sums made on the device from the image
 * there and solved here. */
static votecl_status
device_fit(void *user, votecl_lines_line *lines, size_t n)
{
    votecl_lines_plan *plan = user;
    votecl_context *ctx = plan->context;
    int64_t *p = votecl__calloc(n, VOTECL__PCLINES_FIT_WORDS * sizeof *p);
    uint64_t *m =
        votecl__calloc(n * (1 + PCLINES_FIT_GROUPS), VOTECL__PCLINES_FIT_MOMENTS * sizeof *m);
    votecl__segment_line *first = votecl__calloc(n, 2 * sizeof *first), *fit = first + n;
    votecl_status status = VOTECL_OK;

    if (p == NULL || m == NULL || first == NULL)
        status = votecl__fail(ctx, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for the lines");
    if (status == VOTECL_OK &&
        ((status = votecl__buffer_ensure(ctx, &plan->fit_params,
                                         n * VOTECL__PCLINES_FIT_WORDS * 8)) != VOTECL_OK ||
         (status = votecl__buffer_ensure(
              ctx, &plan->fit_moments, n * PCLINES_FIT_GROUPS * VOTECL__PCLINES_FIT_MOMENTS * 8)) !=
             VOTECL_OK))
        status = votecl__fail(ctx, status, "no device memory for the lines' fit");
    for (size_t i = 0; i < n && status == VOTECL_OK; i++) {
        votecl__pclines_fit_first(&plan->desc, &lines[i], &first[i],
                                  p + i * VOTECL__PCLINES_FIT_WORDS);
        fit[i] = first[i];
    }
    for (unsigned k = 0; k < votecl__pclines_fit_passes() && status == VOTECL_OK; k++) {
        for (size_t i = 0; i < n; i++)
            votecl__pclines_fit_pass(&fit[i], p + i * VOTECL__PCLINES_FIT_WORDS);
        status = device_fit_pass(plan, p, m + n * VOTECL__PCLINES_FIT_MOMENTS, m, n);
        for (size_t i = 0; i < n && status == VOTECL_OK; i++) {
            int64_t *live = &p[i * VOTECL__PCLINES_FIT_WORDS + 14];
            if (*live && !votecl__pclines_fit_solve(&plan->desc,
                                                    m + i * VOTECL__PCLINES_FIT_MOMENTS, &fit[i]))
                *live = 0;
        }
    }
    for (size_t i = 0; i < n && status == VOTECL_OK; i++)
        if (p[i * VOTECL__PCLINES_FIT_WORDS + 14])
            votecl__pclines_fit_finish(&first[i], &fit[i], &lines[i]);
    free(p);
    free(m);
    free(first);
    return status;
}

/* --- runs --- */

static votecl_status
check_output(votecl_lines_plan *plan, const votecl_lines_line *lines, size_t capacity,
             const size_t *found)
{
    if (found == NULL || (lines == NULL && capacity > 0))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            found == NULL ? "found" : "lines");
    return VOTECL_OK;
}

static votecl_status
check_image(votecl_lines_plan *plan, const votecl_image *image, size_t *row_bytes)
{
    size_t pixels;
    votecl_status status;

    if (image != NULL && image->dtype != VOTECL_DTYPE_U8 && image->dtype != VOTECL_DTYPE_F32)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image.dtype: lines are detected in u8 or f32 images");
    if (image != NULL && image->channels != 1 &&
        !(image->dtype == VOTECL_DTYPE_U8 && (image->channels == 3 || image->channels == 4)))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image.channels: %u; lines are detected in gray images (u8 or f32) "
                            "and u8 colour ones (3 or 4 channels)",
                            image->channels);
    status = votecl__image_check(plan->context, image, image != NULL ? image->dtype : 0,
                                 image != NULL ? image->channels : 1, row_bytes, &pixels);
    if (status == VOTECL_OK &&
        (image->width != plan->desc.width || image->height != plan->desc.height))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image.width, image.height: %zu x %zu is not the plan's %u x %u",
                            image->width, image->height, plan->desc.width, plan->desc.height);
    return status;
}

/* The process's CPU time in seconds (the debug log's figure for the fit's threads together). */
static double
cpu_seconds(void)
{
    struct timespec t;

    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0
               ? (double)t.tv_sec + 1e-9 * (double)t.tv_nsec
               : 0;
}

/* The lines of the run's maxima (the fit from map where refine is set); logs the fit's
 * threads and times. */
static votecl_status
find_lines(votecl_lines_plan *plan, votecl__pclines_edge_map *map, votecl_lines_line *lines,
           size_t capacity, size_t *found)
{
    size_t n = plan->last.maxima < plan->max_capacity ? plan->last.maxima : plan->max_capacity;
    votecl__pclines_threads threads = {0, 0};
    votecl__pclines_fitter device = {device_fit, plan};
    int on_device = plan->fitted_on_device = plan->params.refine && plan->fit_image != NULL;
    double t0 = votecl__now_seconds(), c0 = cpu_seconds();
    votecl_status status = votecl__pclines_lines(
        &plan->desc, plan->host_maxima, n, plan->params.max_lines, plan->params.merge_distance,
        plan->params.refine && !on_device ? map : NULL, on_device ? &device : NULL,
        plan->context->host_threads, &threads, lines, capacity, found);

    plan->fit_workers = plan->params.refine ? threads.workers : 0;
    votecl__log(plan->context, "lines: %zu maxima %s %s %u threads (%u busy) %.3f ms (CPU %.3f ms)",
                n, plan->params.refine ? "fitted" : "set", on_device ? "on the device and" : "on",
                threads.workers, threads.busy, 1e3 * (votecl__now_seconds() - t0),
                1e3 * (cpu_seconds() - c0));
    /* the device's failures are recorded already; the host's is out of memory */
    return status == VOTECL_OK || on_device
               ? status
               : votecl__fail(plan->context, status, "out of memory for the lines");
}

/* The segments of lines[0, n) from map; logs the walk's time. */
static votecl_status
find_segments(votecl_lines_plan *plan, votecl__pclines_edge_map *map, votecl_lines_line *lines,
              size_t n)
{
    double t0 = votecl__now_seconds(), c0 = cpu_seconds();
    votecl_status status = votecl__pclines_segments(
        map, plan->params.min_length, plan->params.max_gap, plan->context->host_threads,
        &plan->walk_workers, lines, n, &plan->segments);

    votecl__log(plan->context, "lines: segments of %zu lines on %u threads %.3f ms (CPU %.3f ms)",
                n, plan->walk_workers, 1e3 * (votecl__now_seconds() - t0),
                1e3 * (cpu_seconds() - c0));
    return status == VOTECL_OK ? VOTECL_OK : votecl__segment_failed(plan->context, &plan->segments);
}

/* source: the packed image (for the host's fit and segments) or the edge list (for the fit).
 * The map of its edges serves both, each pixel tested once a run. */
static votecl_status
finish_lines(votecl_lines_plan *plan, const votecl__pclines_source *source,
             votecl_lines_line *lines, size_t capacity, size_t *found)
{
    int segments = source->data != NULL && plan->params.segments;
    /* the map serves the host's fit (the CPU shape's, an edge list's) and the segments */
    int mapped = (plan->params.refine && plan->fit_image == NULL) || segments;
    votecl__pclines_edge_map map;
    votecl_status status;

    plan->have_space = 1;
    if (mapped && votecl__pclines_edge_map_init(&map, &plan->desc, source) != VOTECL_OK)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for the lines");
    status = find_lines(plan, mapped ? &map : NULL, lines, capacity, found);
    if (status == VOTECL_OK && segments)
        status = find_segments(plan, &map, lines, *found < capacity ? *found : capacity);
    if (mapped)
        votecl__pclines_edge_map_free(&map);
    return status;
}

votecl_status
votecl_lines_plan_segments(const votecl_lines_plan *plan, const votecl_segment **segments,
                           size_t *count)
{
    return plan == NULL ? VOTECL_INVALID_ARGUMENT
                        : votecl__segment_get(&plan->segments, segments, count);
}

votecl_status
votecl_lines_run(votecl_lines_plan *plan, const votecl_image *image, votecl_lines_line *lines,
                 size_t capacity, size_t *found)
{
    size_t row_bytes = 0;
    const void *data = NULL;
    void *copy = NULL;
    votecl_status status;

    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(plan->context);
    plan->have_space = 0;
    plan->fit_workers = plan->walk_workers = 0;
    plan->segments.n = 0;
    plan->fit_image = NULL;
    plan->fitted_on_device = 0;
    if ((status = check_output(plan, lines, capacity, found)) != VOTECL_OK ||
        (status = check_image(plan, image, &row_bytes)) != VOTECL_OK ||
        (status = votecl__image_packed(plan->context, image, row_bytes, &data, &copy)) !=
            VOTECL_OK)
        goto out;
    if (image->channels > 1)
        status = plan->context->backend == VOTECL_BACKEND_REF
                     ? ref_run_colour(plan, data, image->channels)
                     : device_run_colour(plan, data, image->channels);
    else if (plan->context->backend == VOTECL_BACKEND_REF)
        status = ref_run_image(plan, data, image->dtype);
    else
        status = device_run_image(plan, data, image->dtype);
    if (status == VOTECL_OK) {
        /* a colour image's fit and segments read its gray levels (NULL when neither runs) */
        votecl__pclines_source source = {image->channels > 1 ? plan->host_gray : data,
                                         image->channels > 1 ? VOTECL_DTYPE_U8 : image->dtype, NULL,
                                         0};
        status = finish_lines(plan, &source, lines, capacity, found);
    }
out:
    free(copy);
    return status;
}

/* The checks of a device image: the plan's size, u8 or f32, within the buffer. */
static votecl_status
check_buffer(votecl_lines_plan *plan, const votecl_buffer *image, size_t width, size_t height,
             votecl_dtype dtype, size_t *bytes)
{
    if (image == NULL || image->context != plan->context)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "image: %s",
                            image == NULL ? "NULL buffer" : "a buffer of another context");
    if (dtype != VOTECL_DTYPE_U8 && dtype != VOTECL_DTYPE_F32)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "dtype: lines are detected in u8 or f32 images");
    if (width != plan->desc.width || height != plan->desc.height)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "width, height: %zu x %zu is not the plan's %u x %u", width, height,
                            plan->desc.width, plan->desc.height);
    *bytes = width * height * votecl_dtype_size(dtype);
    if (*bytes > image->size)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image: %zu bytes needed, the buffer has %zu", *bytes, image->size);
    return VOTECL_OK;
}

votecl_status
votecl_lines_run_buffer(votecl_lines_plan *plan, votecl_buffer *image, size_t width,
                        size_t height, votecl_dtype dtype, votecl_lines_line *lines,
                        size_t capacity, size_t *found)
{
    size_t bytes = 0;
    void *host = NULL;
    votecl_status status;

    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(plan->context);
    plan->have_space = 0;
    plan->fit_workers = plan->walk_workers = 0;
    plan->segments.n = 0;
    plan->fit_image = NULL;
    plan->fitted_on_device = 0;
    if ((status = check_output(plan, lines, capacity, found)) != VOTECL_OK ||
        (status = check_buffer(plan, image, width, height, dtype, &bytes)) != VOTECL_OK)
        return status;
    if (plan->context->backend != VOTECL_BACKEND_REF)
        status = device_run_buffer(plan, image, dtype);
    else if ((host = votecl__malloc(bytes)) == NULL)
        status = votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    else if ((status = votecl_buffer_read(image, 0, host, bytes)) == VOTECL_OK)
        status = ref_run_image(plan, host, dtype);
    /* the host's fit and the segments are measured on the image: a device image is read back
     * only when one of them is asked for */
    if (status == VOTECL_OK &&
        (plan->params.segments || (plan->params.refine && plan->fit_image == NULL)) &&
        host == NULL) {
        if ((host = votecl__malloc(bytes)) == NULL)
            status = votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
        else
            status = votecl_buffer_read(image, 0, host, bytes);
    }
    if (status == VOTECL_OK) {
        votecl__pclines_source source = {host, dtype, NULL, 0};
        status = finish_lines(plan, &source, lines, capacity, found);
    }
    free(host);
    return status;
}

static votecl_status
check_edges(votecl_lines_plan *plan, const votecl_lines_edge *edges, size_t n)
{
    if (n > 0 && edges == NULL)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "edges: NULL pointer");
    if (n > UINT32_MAX / 2)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "n: %zu edges are too many",
                            n);
    for (size_t i = 0; i < n; i++) {
        const votecl_lines_edge *e = &edges[i];
        if (e->x >= plan->desc.width || e->y >= plan->desc.height)
            return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                                "edges[%zu].x, edges[%zu].y: (%u, %u) lies outside %u x %u", i,
                                i, e->x, e->y, plan->desc.width, plan->desc.height);
        if (e->gx < -(1 << 20) || e->gx > (1 << 20) || e->gy < -(1 << 20) || e->gy > (1 << 20))
            return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                                "edges[%zu].gx, edges[%zu].gy: beyond +-2^20", i, i);
    }
    return VOTECL_OK;
}

votecl_status
votecl_lines_run_edges(votecl_lines_plan *plan, const votecl_lines_edge *edges, size_t n,
                       votecl_lines_line *lines, size_t capacity, size_t *found)
{
    votecl_status status;

    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(plan->context);
    plan->have_space = 0;
    plan->fit_workers = plan->walk_workers = 0;
    plan->segments.n = 0;
    plan->fit_image = NULL;
    plan->fitted_on_device = 0;
    if ((status = check_output(plan, lines, capacity, found)) != VOTECL_OK ||
        (status = check_edges(plan, edges, n)) != VOTECL_OK)
        return status;
    if (plan->context->backend == VOTECL_BACKEND_REF)
        status = ref_run_edges(plan, edges, n);
    else
        status = device_run_edges(plan, edges, n);
    if (status == VOTECL_OK) {
        votecl__pclines_source source = {NULL, VOTECL_DTYPE_U8, edges, n};
        status = finish_lines(plan, &source, lines, capacity, found);
    }
    return status;
}

votecl_status
votecl_lines_plan_read_space(votecl_lines_plan *plan, uint32_t *space, size_t capacity)
{
    size_t cells;
    votecl_status status;

    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(plan->context);
    cells = space_cells(plan);
    if (!plan->have_space)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "plan: no TS space before a successful run");
    if (space == NULL || capacity < cells)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "space, capacity: %zu counts needed", cells);
    if (plan->host_space != NULL) {
        memcpy(space, plan->host_space, cells * sizeof *space);
        return VOTECL_OK;
    }
    if ((status = device_store_space(plan)) != VOTECL_OK)
        return status;
    return votecl_buffer_read(plan->space, 0, space, cells * sizeof *space);
}

int
votecl__lines_plan_fit_on_device(const votecl_lines_plan *plan)
{
    return plan->fitted_on_device;
}

void
votecl__lines_plan_threads(const votecl_lines_plan *plan, unsigned *fit, unsigned *walk)
{
    *fit = plan->fit_workers;
    *walk = plan->walk_workers;
}

votecl_status
votecl_lines_plan_last_stats(const votecl_lines_plan *plan, votecl_lines_stats *stats)
{
    if (plan == NULL || stats == NULL)
        return VOTECL_INVALID_ARGUMENT;
    *stats = plan->last;
    return VOTECL_OK;
}
