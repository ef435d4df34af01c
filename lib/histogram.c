/* Histograms, built on the voting engine: validate, plan, upload, vote, read back. */
#include "votecl-private.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram-private.h"
#include "model-private.h"
#include "vote-private.h"

struct votecl_hist_plan {
    votecl_context *context;
    votecl__hist_desc desc;
    votecl__vote_engine engine; /* unused on the ref backend */
    votecl_buffer *x, *y, *w, *out; /* staging for host-memory calls */
    votecl_buffer *edges; /* f32 data: the float edges of both dimensions (cl/histogram.cl) */
};

void
votecl_hist_params_init(votecl_hist_params *params, votecl_dtype dtype)
{
    if (params == NULL)
        return;
    memset(params, 0, sizeof *params);
    params->struct_size = sizeof *params;
    params->dtype = dtype;
    params->channels = 1;
    params->dims = 1;
    for (int d = 0; d < 2; d++) {
        switch (dtype) {
        case VOTECL_DTYPE_U16:
            params->nbins[d] = 65536;
            params->max[d] = 65536.0;
            break;
        case VOTECL_DTYPE_U32:
            params->nbins[d] = 256;
            params->max[d] = 4294967296.0;
            break;
        case VOTECL_DTYPE_F32:
            params->nbins[d] = 256;
            params->max[d] = 1.0;
            break;
        default:
            params->nbins[d] = 256;
            params->max[d] = 256.0;
            break;
        }
    }
}

void
votecl_hist_params_set_2d(votecl_hist_params *params, uint32_t nx, double xmin, double xmax,
                          uint32_t ny, double ymin, double ymax)
{
    if (params == NULL)
        return;
    params->dims = 2;
    params->channel[1] = params->channels >= 2 && !params->two_arrays ? 1 : 0;
    params->nbins[0] = nx;
    params->min[0] = xmin;
    params->max[0] = xmax;
    params->nbins[1] = ny;
    params->min[1] = ymin;
    params->max[1] = ymax;
}

#define BAD(...) (snprintf(msg, msg_size, __VA_ARGS__), VOTECL_INVALID_ARGUMENT)

/* Rounds x up to a float (the kernels' error bounds must not shrink). */
static float
float_up(double x)
{
    float f = (float)x;

    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* The kernels' first guess of f32 value v's bin, t = (v * fpre - foff) * fscale, and a bound
 * on its distance from the bin's true position (in bins): fdc0 + fdc1 * |t|. fpre, a power of
 * two, is 1 for ordinary ranges, else brings the width into [1, 2), so that neither
 * v * fpre - foff nor fscale leaves float range even for a range wider than FLT_MAX. Three roundings of at most 2^-24 each, the
 * double-precision rule's own 2^-51 and the rounding of t -/+ the bound make fdc1; foff's
 * rounding and flushed subnormals make fdc0 (NumPy's edges add their own float32 rounding);
 * fdelta bounds it over the range, where |t| <= nbins + fdc0, so that a guess farther from
 * an integer needs no edge.
 * Where no float guess fits, the guess is 0 and the bound covers every bin: the kernels then
 * bisect the edges. */
static void
guess_init(votecl__hist_desc *desc, unsigned d)
{
    double n = desc->nbins[d], w = desc->width[d];
    int e = ilogb(w);
    /* 1 where plain v - min is safe (then the kernels' multiplication by it vanishes) */
    int plain = e >= -60 && e <= 60 && fmax(fabs(desc->min[d]), fabs(desc->max[d])) <= 0x1p100;
    double pre = plain ? 1.0 : ldexp(1.0, -(e < -127 ? -127 : e > 126 ? 126 : e));
    double scale = n / (w * pre), off = desc->min[d] * pre, c0;
    float foff = (float)off;

    c0 = ((fabs((double)foff - off) + 0x1p-125) * scale + 0x1p-120) * 1.01;
    if (desc->numpy_edges)
        c0 += (fmax(fabs(desc->min[d]), fabs(desc->max[d])) * 0x1p-23 + 0x1p-149) * n / w * 1.01;
    if (!(scale >= FLT_MIN && scale <= FLT_MAX / 2) || !isfinite(foff) || !(c0 < 0x1p29)) {
        pre = 1.0, scale = 0.0, foff = 0.0f, c0 = 0x1p30; /* > every bin count */
    }
    desc->fpre[d] = (float)pre;
    desc->foff[d] = foff;
    desc->fscale[d] = (float)scale;
    desc->fdc0[d] = float_up(c0);
    desc->fdc1[d] = scale > 0.0 ? 5 * 0x1p-24f : 0.0f;
    desc->fdelta[d] = float_up((double)desc->fdc0[d] +
                               (double)desc->fdc1[d] * (n + desc->fdc0[d] + 1.0) + 0x1p-23);
}

/* f32 data: the rule's range, edge ends and first guess. */
static votecl_status
f32_range_init(votecl__hist_desc *desc, unsigned d, double lo, double hi, char *msg,
               size_t msg_size)
{
    desc->min[d] = lo;
    desc->max[d] = hi;
    desc->width[d] = hi - lo;
    if (!isfinite(desc->width[d] * desc->nbins[d]))
        return BAD("min[%u], max[%u]: the range's width (max - min) times nbins[%u] overflows "
                   "double precision",
                   d, d, d);
    desc->flo[d] = votecl__hist_edge(desc, d, 0);
    desc->fhi[d] = votecl__hist_edge(desc, d, desc->nbins[d]);
    guess_init(desc, d);
    return VOTECL_OK;
}

static votecl_status
range_init(const votecl_hist_params *p, unsigned d, votecl__hist_desc *desc, char *msg,
           size_t msg_size)
{
    double lo = p->min[d], hi = p->max[d];

    if (!isfinite(lo) || !isfinite(hi))
        return BAD("%s[%u]: must be finite", !isfinite(lo) ? "min" : "max", d);
    if (!(lo < hi))
        return BAD("min[%u], max[%u]: min (%g) must be below max (%g)", d, d, lo, hi);
    if (p->dtype == VOTECL_DTYPE_F32)
        return f32_range_init(desc, d, lo, hi, msg, msg_size);
    if (lo != floor(lo) || hi != floor(hi))
        return BAD("%s[%u]: must be an integer for integer data",
                   lo != floor(lo) ? "min" : "max", d);
    if (lo < 0.0 || hi > 4294967296.0)
        return BAD("%s[%u]: integer data ranges lie within [0, 2^32]", lo < 0.0 ? "min" : "max",
                   d);
    desc->imin[d] = (uint64_t)lo;
    desc->irange[d] = (uint64_t)hi - (uint64_t)lo;
    desc->ident[d] = desc->irange[d] == p->nbins[d];
    return VOTECL_OK;
}

votecl_status
votecl__hist_desc_init(const votecl_hist_params *p, votecl__hist_desc *desc, char *msg,
                       size_t msg_size)
{
    votecl_status status;

    memset(desc, 0, sizeof *desc);
    if ((desc->value_bytes = votecl_dtype_size(p->dtype)) == 0)
        return BAD("dtype: unknown element type %d", (int)p->dtype);
    if (p->channels < 1 || p->channels > 4)
        return BAD("channels: %u is not between 1 and 4", p->channels);
    if (p->dims != 1 && p->dims != 2)
        return BAD("dims: %u is neither 1 nor 2", p->dims);
    if (p->two_arrays && p->dims != 2)
        return BAD("two_arrays: only 2-D histograms read a second array");
    if (votecl_variant_name(p->variant) == NULL)
        return BAD("variant: unknown value %d", (int)p->variant);
    desc->dtype = p->dtype;
    desc->channels = p->channels;
    desc->dims = p->dims;
    desc->two_arrays = p->two_arrays != 0;
    desc->weighted = p->weighted != 0;
    if (p->edges != VOTECL_HIST_EDGES_EXACT && p->edges != VOTECL_HIST_EDGES_NUMPY)
        return BAD("edges: unknown value %d", (int)p->edges);
    if (p->edges == VOTECL_HIST_EDGES_NUMPY && p->dtype != VOTECL_DTYPE_F32)
        return BAD("edges: NumPy's edges are for f32 data (integer data are binned exactly)");
    desc->numpy_edges = p->edges == VOTECL_HIST_EDGES_NUMPY;
    desc->nbins[1] = 1;
    desc->nbins_total = 1;
    for (unsigned d = 0; d < p->dims; d++) {
        if (p->channel[d] >= p->channels)
            return BAD("channel[%u]: %u is not below channels (%u)", d, p->channel[d],
                       p->channels);
        if (p->nbins[d] < 1 || p->nbins[d] > VOTECL_HIST_MAX_BINS)
            return BAD("nbins[%u]: %u is not between 1 and %u", d, p->nbins[d],
                       VOTECL_HIST_MAX_BINS);
        desc->channel[d] = p->channel[d];
        desc->nbins[d] = p->nbins[d];
        desc->nbins_total *= p->nbins[d];
        if ((status = range_init(p, d, desc, msg, msg_size)) != VOTECL_OK)
            return status;
    }
    if (desc->nbins_total > VOTECL_HIST_MAX_BINS)
        return BAD("nbins: %u x %u bins exceed %u", p->nbins[0], p->nbins[1],
                   VOTECL_HIST_MAX_BINS);
    return VOTECL_OK;
}

static const char *
c_type(votecl_dtype dtype)
{
    return dtype == VOTECL_DTYPE_U8    ? "uchar"
           : dtype == VOTECL_DTYPE_U16 ? "ushort"
           : dtype == VOTECL_DTYPE_U32 ? "uint"
                                       : "float";
}

static uint32_t
float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The histogram's defines for cl/histogram.cl; returns how many. */
static size_t
hist_defines(const votecl__hist_desc *d, char defs[][64])
{
    size_t n = 0;

    snprintf(defs[n++], 64, "X_T=%s", c_type(d->dtype));
    snprintf(defs[n++], 64, "CHANNELS=%u", d->channels);
    snprintf(defs[n++], 64, "DIMS=%u", d->dims);
    snprintf(defs[n++], 64, "TWO_ARRAYS=%d", d->two_arrays);
    snprintf(defs[n++], 64, "HIST_FLOAT=%d", d->dtype == VOTECL_DTYPE_F32);
    for (unsigned k = 0; k < 2; k++) {
        snprintf(defs[n++], 64, "CH%u=%u", k, d->channel[k]);
        snprintf(defs[n++], 64, "NB%u=%uu", k, d->nbins[k]);
        if (d->dtype == VOTECL_DTYPE_F32) {
            const float f[] = {d->flo[k],    d->fhi[k],  d->fpre[k], d->foff[k],
                               d->fscale[k], d->fdc0[k], d->fdc1[k], d->fdelta[k]};
            static const char *const names[] = {"FLO",    "FHI",   "FPRE",  "FOFF",
                                                "FSCALE", "FDC0_", "FDC1_", "FDELTA"};
            for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
                snprintf(defs[n++], 64, "%s%u=as_float(0x%08xu)", names[i], k, float_bits(f[i]));
        } else {
            snprintf(defs[n++], 64, "MIN%u=%lluUL", k, (unsigned long long)d->imin[k]);
            snprintf(defs[n++], 64, "RANGE%u=%lluUL", k, (unsigned long long)d->irange[k]);
            snprintf(defs[n++], 64, "IDENT%u=%d", k, d->ident[k]);
        }
    }
    if (d->dtype == VOTECL_DTYPE_F32) /* dimension 1's edges follow dimension 0's */
        snprintf(defs[n++], 64, "EDGES1=%uu", d->nbins[0] + 1);
    return n;
}

/* f32 data: the kernels settle bins near edges against the float edges themselves, so that
 * they need no double precision: edges 0..nbins of dimension 0, then of dimension 1. */
static votecl_status
edges_upload(votecl_hist_plan *plan)
{
    const votecl__hist_desc *d = &plan->desc;
    size_t count = (size_t)d->nbins[0] + 1 + (d->dims == 2 ? (size_t)d->nbins[1] + 1 : 0), i = 0;
    float *edges = malloc(count * sizeof *edges); /* at most 2^29 + 2 floats: no overflow */
    votecl_status status;

    if (edges == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for %zu bin edges", count);
    for (unsigned dim = 0; dim < d->dims; dim++)
        for (uint32_t k = 0; k <= d->nbins[dim]; k++)
            edges[i++] = votecl__hist_edge(d, dim, k);
    status = votecl__buffer_ensure(plan->context, &plan->edges, count * sizeof *edges);
    if (status == VOTECL_OK)
        status = votecl_buffer_write(plan->edges, 0, edges, count * sizeof *edges);
    free(edges);
    return status;
}

static votecl_status
plan_compile(votecl_hist_plan *plan, const votecl_hist_params *params)
{
    const votecl__hist_desc *d = &plan->desc;
    static const char *const files[] = {"histogram.cl", "vote.cl", NULL};
    unsigned vec = d->dims == 1 && d->channels == 1 ? (unsigned)(16 / d->value_bytes) : 1;
    char defs[48][64];
    const char *ptrs[48];
    size_t n;
    votecl__vote_config cfg;
    votecl__program *program;
    votecl_status status;

    votecl__vote_shape shape = {.nbins = d->nbins_total,
                                .kind = d->weighted ? 2 : 0,
                                .frames = 1,
                                .spaces = 1,
                                .vec = vec,
                                .elem_bytes = d->channels * d->value_bytes,
                                .unpack = 1};

    status = votecl__vote_configure(plan->context, params->variant, params->stretch,
                                    params->work_group_size, &shape, &cfg);
    if (status != VOTECL_OK)
        return status;
    n = hist_defines(d, defs);
    n += votecl__vote_defines(&cfg, defs + n);
    for (size_t i = 0; i < n; i++)
        ptrs[i] = defs[i];
    status = votecl__program_get(plan->context, files, ptrs, n, NULL, &program);
    if (status == VOTECL_OK)
        status = votecl__vote_engine_init(&plan->engine, plan->context, &cfg, program);
    if (status == VOTECL_OK && d->dtype == VOTECL_DTYPE_F32)
        status = edges_upload(plan);
    return status;
}

static votecl_status
plan_new_init(void *plan_, votecl_context *context, const void *params, size_t width, size_t height)
{
    votecl_hist_plan *plan = plan_;
    char msg[256];
    votecl_status status;

    plan->context = context;
    status = votecl__hist_desc_init(params, &plan->desc, msg, sizeof msg);
    if (status != VOTECL_OK)
        return votecl__fail(context, status, "%s", msg);
    return context->backend != VOTECL_BACKEND_REF ? plan_compile(plan, params) : VOTECL_OK;
}

VOTECL__PLAN_OPS(votecl_hist_plan, votecl_hist_plan_free, .init = plan_new_init);

votecl_status
votecl_hist_plan_new(votecl_context *context, const votecl_hist_params *params,
                     votecl_hist_plan **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    return votecl__plan_new_of(&plan_ops, context, params, 0, 0, out);
}

void
votecl_hist_plan_free(votecl_hist_plan *plan)
{
    if (plan == NULL)
        return;
    votecl__vote_engine_release(&plan->engine);
    votecl_buffer_free(plan->x);
    votecl_buffer_free(plan->y);
    votecl_buffer_free(plan->w);
    votecl_buffer_free(plan->out);
    votecl_buffer_free(plan->edges);
    free(plan);
}

uint64_t
votecl_hist_plan_nbins(const votecl_hist_plan *plan)
{
    return plan != NULL ? plan->desc.nbins_total : 0;
}

votecl_status
votecl_hist_plan_describe(const votecl_hist_plan *plan, size_t elements, size_t frames,
                          votecl_vote_plan_info *info)
{
    if (plan == NULL || info == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (plan->context->backend == VOTECL_BACKEND_REF) {
        memset(info, 0, sizeof *info);
        info->nbins = plan->desc.nbins_total;
        info->spaces = (unsigned)(frames > 0 ? frames : 1);
        info->stretch = info->stretch_s = info->parts = info->passes = info->copies = 1;
        info->work_group_size = 1;
        return VOTECL_OK;
    }
    votecl__vote_describe(&plan->engine, elements, frames, info);
    if (votecl__model_predict_info(plan->context, info, 0, elements, 1.0,
                                   &info->predicted_seconds) != VOTECL_OK)
        info->predicted_seconds = 0.0;
    return VOTECL_OK;
}

/* Byte sizes of one call's arrays, checked for overflow. */
typedef struct sizes {
    size_t x, w, bins;
} sizes;

static votecl_status
call_sizes(votecl_hist_plan *plan, size_t n, size_t frames, sizes *s)
{
    const votecl__hist_desc *d = &plan->desc;
    size_t elements;

    if (n > VOTECL__MAX_FRAME_ELEMENTS)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "n: %zu elements per frame exceed %zu", n,
                            VOTECL__MAX_FRAME_ELEMENTS);
    if (votecl__mul_overflow(n, frames, &elements) ||
        votecl__mul_overflow(elements, d->channels * d->value_bytes, &s->x) ||
        votecl__mul_overflow(elements, sizeof(float), &s->w) ||
        votecl__mul_overflow(frames, (size_t)d->nbins_total * 4, &s->bins))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "n, frames: %zu x %zu elements overflow the address space", n,
                            frames);
    return VOTECL_OK;
}

static votecl_status
check_arrays(votecl_hist_plan *plan, const void *x, const void *y, const void *w, size_t n,
             const void *bins)
{
    const votecl__hist_desc *d = &plan->desc;

    if (bins == NULL)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "bins: NULL pointer");
    if (n == 0)
        return VOTECL_OK;
    if (x == NULL)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "x: NULL pointer");
    if (d->two_arrays && y == NULL)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "y: NULL pointer for a 2-D histogram of two arrays");
    if (d->weighted && w == NULL)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "weights: NULL pointer for a weighted histogram");
    return VOTECL_OK;
}

/* Makes *use a device buffer holding host's size bytes: a zero-copy wrap (kept in *wrapped
 * until the call ends) where the device shares host memory, else the staging buffer. */
static votecl_status
upload(votecl_hist_plan *plan, votecl_buffer **staging, votecl_buffer **wrapped,
       const void *host, size_t size, votecl_buffer **use)
{
    votecl_status status = votecl__buffer_wrap(plan->context, host, size, wrapped);

    if (status != VOTECL_OK || *wrapped != NULL) {
        *use = *wrapped;
        return status;
    }
    status = votecl__buffer_ensure(plan->context, staging, size);
    if (status == VOTECL_OK)
        status = votecl_buffer_write(*staging, 0, host, size);
    *use = *staging;
    return status;
}

static votecl_status
run_host(votecl_hist_plan *plan, const void *x, const void *y, const float *w, size_t n,
         size_t frames, void *bins)
{
    const votecl__hist_desc *d = &plan->desc;
    votecl_buffer *wx = NULL, *wy = NULL, *ww = NULL, *bx = NULL, *by = NULL, *bw = NULL;
    sizes s;
    votecl_status status = call_sizes(plan, n, frames, &s);

    if (status == VOTECL_OK)
        status = check_arrays(plan, x, y, w, n, bins);
    if (status != VOTECL_OK || frames == 0)
        return status;
    if (plan->context->backend == VOTECL_BACKEND_REF) {
        votecl__hist_ref(d, x, y, w, n, frames, bins);
        return VOTECL_OK;
    }
    if (n == 0)
        status = votecl__buffer_ensure(plan->context, &plan->x, 16);
    else if ((status = upload(plan, &plan->x, &wx, x, s.x, &bx)) == VOTECL_OK &&
             (!d->two_arrays || (status = upload(plan, &plan->y, &wy, y, s.x, &by)) == VOTECL_OK))
        if (d->weighted)
            status = upload(plan, &plan->w, &ww, w, s.w, &bw);
    if (status == VOTECL_OK)
        status = votecl__buffer_ensure(plan->context, &plan->out, s.bins);
    if (status == VOTECL_OK)
        status = votecl__vote_run(&plan->engine,
                                  &(votecl__vote_input){.x = bx != NULL ? bx : plan->x,
                                                        .y = by,
                                                        .w = bw,
                                                        .aux = plan->edges,
                                                        .n = n,
                                                        .spaces = frames},
                                  plan->out);
    if (status == VOTECL_OK)
        status = votecl_buffer_read(plan->out, 0, bins, s.bins);
    if (wx != NULL || wy != NULL || ww != NULL)
        votecl_context_finish(plan->context); /* the wrapped memory is the caller's */
    votecl_buffer_free(wx);
    votecl_buffer_free(wy);
    votecl_buffer_free(ww);
    return status;
}

votecl_status
votecl_hist_run(votecl_hist_plan *plan, const void *x, const void *y, const float *weights,
                size_t n, void *bins)
{
    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(plan->context);
    return run_host(plan, x, y, weights, n, 1, bins);
}

votecl_status
votecl_hist_run_batch(votecl_hist_plan *plan, const void *x, const void *y,
                      const float *weights, size_t n, size_t frames, void *bins)
{
    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(plan->context);
    return run_host(plan, x, y, weights, n, frames, bins);
}

votecl_status
votecl_hist_run_image(votecl_hist_plan *plan, const votecl_image *image, void *bins)
{
    size_t row_bytes = 0, pixels = 0;
    const void *data;
    void *copy = NULL;
    votecl_status status;

    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(plan->context);
    if (plan->desc.two_arrays)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image: a 2-D histogram of two arrays needs votecl_hist_run");
    status = votecl__image_check(plan->context, image, plan->desc.dtype, plan->desc.channels,
                                 &row_bytes, &pixels);
    if (status == VOTECL_OK)
        status = votecl__image_packed(plan->context, image, row_bytes, &data, &copy);
    if (status == VOTECL_OK)
        status = run_host(plan, data, NULL, NULL, pixels, 1, bins);
    free(copy);
    return status;
}

/* The typed entry points: the same runs, refused when the bins' type is not the plan's. */
static votecl_status
check_typed(votecl_hist_plan *plan, int weighted)
{
    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    VOTECL__ENTER_OR_RETURN(plan->context);
    if (!plan->desc.weighted == !weighted)
        return VOTECL_OK;
    return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                        plan->desc.weighted
                            ? "bins: the plan is weighted (float bins): use votecl_hist_run_f32"
                            : "bins: the plan counts (uint32_t bins): use votecl_hist_run_u32");
}

votecl_status
votecl_hist_run_u32(votecl_hist_plan *plan, const void *x, const void *y, size_t n,
                    uint32_t *bins)
{
    votecl_status status = check_typed(plan, 0);

    return status != VOTECL_OK ? status : run_host(plan, x, y, NULL, n, 1, bins);
}

votecl_status
votecl_hist_run_f32(votecl_hist_plan *plan, const void *x, const void *y, const float *weights,
                    size_t n, float *bins)
{
    votecl_status status = check_typed(plan, 1);

    return status != VOTECL_OK ? status : run_host(plan, x, y, weights, n, 1, bins);
}

votecl_status
votecl_hist_run_batch_u32(votecl_hist_plan *plan, const void *x, const void *y, size_t n,
                          size_t frames, uint32_t *bins)
{
    votecl_status status = check_typed(plan, 0);

    return status != VOTECL_OK ? status : run_host(plan, x, y, NULL, n, frames, bins);
}

votecl_status
votecl_hist_run_batch_f32(votecl_hist_plan *plan, const void *x, const void *y,
                          const float *weights, size_t n, size_t frames, float *bins)
{
    votecl_status status = check_typed(plan, 1);

    return status != VOTECL_OK ? status : run_host(plan, x, y, weights, n, frames, bins);
}

votecl_status
votecl_hist_run_image_u32(votecl_hist_plan *plan, const votecl_image *image, uint32_t *bins)
{
    votecl_status status = check_typed(plan, 0);

    return status != VOTECL_OK ? status : votecl_hist_run_image(plan, image, bins);
}

votecl_status
votecl_hist_run_buffers(votecl_hist_plan *plan, votecl_buffer *x, votecl_buffer *y,
                        votecl_buffer *weights, size_t n, size_t frames, votecl_buffer *bins)
{
    const votecl__hist_desc *d;
    sizes s;
    votecl_status status;

    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    d = &plan->desc;
    VOTECL__ENTER_OR_RETURN(plan->context);
    if ((status = call_sizes(plan, n, frames, &s)) != VOTECL_OK ||
        (status = votecl__buffer_check(plan->context, bins, s.bins, "bins")) != VOTECL_OK ||
        (status = votecl__buffer_check(plan->context, x, s.x, "x")) != VOTECL_OK ||
        (d->two_arrays &&
         (status = votecl__buffer_check(plan->context, y, s.x, "y")) != VOTECL_OK) ||
        (d->weighted &&
         (status = votecl__buffer_check(plan->context, weights, s.w, "weights")) != VOTECL_OK))
        return status;
    if (frames == 0)
        return VOTECL_OK;
    if (plan->context->backend == VOTECL_BACKEND_REF) {
        votecl__hist_ref(d, x->handle, d->two_arrays ? y->handle : NULL,
                         d->weighted ? weights->handle : NULL, n, frames, bins->handle);
        return VOTECL_OK;
    }
    return votecl__vote_run(&plan->engine,
                            &(votecl__vote_input){.x = x,
                                                  .y = d->two_arrays ? y : NULL,
                                                  .w = d->weighted ? weights : NULL,
                                                  .aux = plan->edges,
                                                  .n = n,
                                                  .spaces = frames},
                            bins);
}
