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
    votecl_buffer *x, *y, *w, *mask, *out; /* staging for host-memory calls */
    votecl_buffer *edges;                  /* the edges the kernels read (edges_upload), or NULL */
};

void
votecl_hist_params_init(votecl_hist_params *params, votecl_dtype dtype)
{
    VOTECL__PARAMS_INIT_OR_RETURN(params);
    params->dtype = dtype;
    params->channels = 1;
    params->dims = 1;
    for (int d = 0; d < VOTECL_HIST_MAX_DIMS; d++) {
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

/* Uneven bins: copies edges[0..nbins] of dimension d into mem (finite, strictly
 * increasing). */
static votecl_status
uneven_init(const votecl_hist_params *p, unsigned d, double *mem, votecl__hist_desc *desc,
            char *msg, size_t msg_size)
{
    const double *e = p->bin_edges[d];

    for (uint32_t k = 0; k <= p->nbins[d]; k++) {
        if (!isfinite(e[k]))
            return BAD("bin_edges[%u][%u]: must be finite", d, k);
        if (k > 0 && !(e[k] > e[k - 1]))
            return BAD("bin_edges[%u][%u]: %g does not increase on the edge before it (%g)", d, k,
                       e[k], e[k - 1]);
    }
    memcpy(mem, e, ((size_t)p->nbins[d] + 1) * sizeof *mem);
    desc->uneven[d] = mem;
    desc->min[d] = e[0];
    desc->max[d] = e[p->nbins[d]];
    return VOTECL_OK;
}

static votecl_status
range_init(const votecl_hist_params *p, unsigned d, votecl__hist_desc *desc, char *msg,
           size_t msg_size)
{
    double lo = p->min[d], hi = p->max[d];

    if (p->bin_edges[d] != NULL) { /* the kernels' even-bin defines stay harmless */
        desc->irange[d] = 1;
        return VOTECL_OK;
    }
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

/* The dimensions' sizes, checked before anything is allocated: the bins' product (per
 * channel: sum) within VOTECL_HIST_MAX_BINS, and the uneven edges' count. */
static votecl_status
dims_init(const votecl_hist_params *p, votecl__hist_desc *desc, size_t *nedges, char *msg,
          size_t msg_size)
{
    *nedges = 0;
    desc->nbins_total = desc->per_channel ? 0 : 1;
    for (unsigned d = 0; d < HD; d++)
        desc->nbins[d] = 1;
    for (unsigned d = 0; d < desc->dims; d++) {
        unsigned ch = desc->per_channel ? d : p->channel[d];
        if (ch >= p->channels)
            return BAD("channel[%u]: %u is not below channels (%u)", d, ch, p->channels);
        if (p->nbins[d] < 1 || p->nbins[d] > VOTECL_HIST_MAX_BINS)
            return BAD("nbins[%u]: %u is not between 1 and %u", d, p->nbins[d],
                       VOTECL_HIST_MAX_BINS);
        desc->channel[d] = ch;
        desc->nbins[d] = p->nbins[d];
        desc->offset[d] = desc->nbins_total;
        /* both stay below 2^28 * 2^28 before the check: no overflow */
        desc->nbins_total =
            desc->per_channel ? desc->nbins_total + p->nbins[d] : desc->nbins_total * p->nbins[d];
        if (desc->nbins_total > VOTECL_HIST_MAX_BINS)
            return BAD("nbins: the bins of dimensions 0 to %u (%llu so far) exceed %u", d,
                       (unsigned long long)desc->nbins_total, VOTECL_HIST_MAX_BINS);
        if (p->bin_edges[d] != NULL)
            *nedges += (size_t)p->nbins[d] + 1;
    }
    return VOTECL_OK;
}

/* The fields beside the dimensions, checked. */
static votecl_status
kind_init(const votecl_hist_params *p, votecl__hist_desc *desc, char *msg, size_t msg_size)
{
    if ((desc->value_bytes = votecl_dtype_size(p->dtype)) == 0)
        return BAD("dtype: unknown element type %d", (int)p->dtype);
    if (p->channels < 1 || p->channels > VOTECL_HIST_MAX_DIMS)
        return BAD("channels: %u is not between 1 and %u", p->channels, VOTECL_HIST_MAX_DIMS);
    if (!p->per_channel && (p->dims < 1 || p->dims > VOTECL_HIST_MAX_DIMS))
        return BAD("dims: %u is not between 1 and %u", p->dims, VOTECL_HIST_MAX_DIMS);
    if (p->two_arrays && (p->dims != 2 || p->per_channel))
        return BAD("two_arrays: only 2-D histograms read a second array");
    if (p->two_arrays && p->weighted && p->masked)
        return BAD("masked: a weighted 2-D histogram of two arrays has no slot for a mask "
                   "(interleave x and y into two channels)");
    if (votecl_variant_name(p->variant) == NULL)
        return BAD("variant: unknown value %d", (int)p->variant);
    if (p->edges != VOTECL_HIST_EDGES_EXACT && p->edges != VOTECL_HIST_EDGES_NUMPY)
        return BAD("edges: unknown value %d", (int)p->edges);
    desc->dtype = p->dtype;
    desc->channels = p->channels;
    desc->per_channel = p->per_channel != 0;
    desc->dims = desc->per_channel ? p->channels : p->dims;
    desc->two_arrays = p->two_arrays != 0;
    desc->weighted = p->weighted != 0;
    desc->masked = p->masked != 0;
    desc->numpy_edges = p->edges == VOTECL_HIST_EDGES_NUMPY;
    for (unsigned d = 0; d < desc->dims; d++)
        if (p->bin_edges[d] != NULL)
            return VOTECL_OK;
    if (p->edges == VOTECL_HIST_EDGES_NUMPY && p->dtype != VOTECL_DTYPE_F32)
        return BAD("edges: NumPy's edges are for f32 data or bin_edges (integer data are "
                   "binned exactly)");
    return VOTECL_OK;
}

votecl_status
votecl__hist_desc_init(const votecl_hist_params *p, votecl__hist_desc *desc, char *msg,
                       size_t msg_size)
{
    votecl_status status;
    size_t nedges, at = 0;

    memset(desc, 0, sizeof *desc);
    if ((status = kind_init(p, desc, msg, msg_size)) != VOTECL_OK ||
        (status = dims_init(p, desc, &nedges, msg, msg_size)) != VOTECL_OK)
        return status;
    if (nedges > 0 && (desc->edge_mem = malloc(nedges * sizeof *desc->edge_mem)) == NULL) {
        snprintf(msg, msg_size, "bin_edges: out of memory for %zu edges", nedges);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    for (unsigned d = 0; d < desc->dims; d++) {
        if (p->bin_edges[d] != NULL) {
            status = uneven_init(p, d, desc->edge_mem + at, desc, msg, msg_size);
            at += (size_t)desc->nbins[d] + 1;
        }
        if (status == VOTECL_OK)
            status = range_init(p, d, desc, msg, msg_size);
        if (status != VOTECL_OK)
            return status;
    }
    return VOTECL_OK;
}

void
votecl__hist_desc_release(votecl__hist_desc *desc)
{
    free(desc->edge_mem);
    desc->edge_mem = NULL;
}

static const char *
c_type(votecl_dtype dtype)
{
    return dtype == VOTECL_DTYPE_U8    ? "uchar"
           : dtype == VOTECL_DTYPE_U16 ? "ushort"
           : dtype == VOTECL_DTYPE_U32 ? "uint"
                                       : "float";
}

/* Where dimension d's edges start in the aux buffer (floats for f32 data, 64-bit words for
 * integer data, whose even bins need none); sets *total to the buffer's length. */
static size_t
edge_offset(const votecl__hist_desc *d, unsigned dim, size_t *total)
{
    size_t at = 0, here = 0;

    for (unsigned k = 0; k < d->dims; k++) {
        if (k == dim)
            here = at;
        if (d->dtype == VOTECL_DTYPE_F32 || d->uneven[k] != NULL)
            at += (size_t)d->nbins[k] + 1;
    }
    if (total != NULL)
        *total = at;
    return here;
}

/* Dimension k's defines; returns how many (at most 12). */
static size_t
dim_defines(const votecl__hist_desc *d, unsigned k, char defs[][64])
{
    size_t n = 0;

    snprintf(defs[n++], 64, "CH%u=%u", k, d->channel[k]);
    snprintf(defs[n++], 64, "NB%u=%uu", k, d->nbins[k]);
    snprintf(defs[n++], 64, "UNEVEN%u=%d", k, d->uneven[k] != NULL);
    snprintf(defs[n++], 64, "EOFF%u=%zu", k, edge_offset(d, k, NULL));
    if (d->per_channel)
        snprintf(defs[n++], 64, "OFF%u=%lluu", k, (unsigned long long)d->offset[k]);
    if (d->dtype == VOTECL_DTYPE_F32) {
        const float f[] = {d->flo[k],    d->fhi[k],  d->fpre[k], d->foff[k],
                           d->fscale[k], d->fdc0[k], d->fdc1[k], d->fdelta[k]};
        static const char *const names[] = {"FLO",    "FHI",   "FPRE",  "FOFF",
                                            "FSCALE", "FDC0_", "FDC1_", "FDELTA"};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            snprintf(defs[n++], 64, "%s%u=as_float(0x%08xu)", names[i], k,
                     votecl__float_bits(f[i]));
    } else {
        snprintf(defs[n++], 64, "MIN%u=%lluUL", k, (unsigned long long)d->imin[k]);
        snprintf(defs[n++], 64, "RANGE%u=%lluUL", k, (unsigned long long)d->irange[k]);
        snprintf(defs[n++], 64, "IDENT%u=%d", k, d->ident[k]);
    }
    return n;
}

/* The histogram's defines for cl/histogram.cl; returns how many (at most 8 + 13 * dims). */
/* Whether an N-D histogram of u8 pixels reads 16 pixels through CHANNELS 16-byte loads
 * (HIST_PIXVEC in cl/histogram.cl) instead of a byte load per channel value: unmasked,
 * unweighted, one interleaved array. */
static int
hist_pixel_vectors(const votecl__hist_desc *d)
{
    return d->dims >= 2 && !d->per_channel && !d->two_arrays && !d->masked && !d->weighted &&
           d->dtype == VOTECL_DTYPE_U8;
}

static size_t
hist_defines(const votecl__hist_desc *d, char defs[][64])
{
    size_t n = 0;

    snprintf(defs[n++], 64, "X_T=%s", c_type(d->dtype));
    snprintf(defs[n++], 64, "CHANNELS=%u", d->channels);
    snprintf(defs[n++], 64, "DIMS=%u", d->dims);
    snprintf(defs[n++], 64, "TWO_ARRAYS=%d", d->two_arrays);
    snprintf(defs[n++], 64, "HIST_FLOAT=%d", d->dtype == VOTECL_DTYPE_F32);
    snprintf(defs[n++], 64, "MASKED=%d", d->masked);
    snprintf(defs[n++], 64, "PER_CHANNEL=%d", d->per_channel);
    snprintf(defs[n++], 64, "HIST_PIXVEC=%d", hist_pixel_vectors(d));
    for (unsigned k = 0; k < d->dims; k++)
        n += dim_defines(d, k, defs + n);
    return n;
}

/* The edges the kernels read (cl/histogram.cl): f32 data: every dimension's nbins + 1 float
 * edges (even bins: edge k is the least float of bin k, so that the kernels need no double
 * precision), one dimension after another; integer data: the 64-bit edges of the uneven
 * dimensions. None for integer data in even bins. */
static votecl_status
edges_upload(votecl_hist_plan *plan)
{
    const votecl__hist_desc *d = &plan->desc;
    int f32 = d->dtype == VOTECL_DTYPE_F32;
    size_t count, word = f32 ? sizeof(float) : sizeof(uint64_t), i = 0;
    void *edges;
    votecl_status status;

    edge_offset(d, 0, &count); /* at most 2^28 + 8 edges: no overflow */
    if (count == 0)
        return VOTECL_OK;
    if ((edges = malloc(count * word)) == NULL)
        return votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for %zu bin edges", count);
    for (unsigned dim = 0; dim < d->dims; dim++)
        for (uint32_t k = 0; k <= d->nbins[dim] && (f32 || d->uneven[dim] != NULL); k++, i++)
            if (!f32)
                ((uint64_t *)edges)[i] = votecl__hist_uneven_int(d, dim, k);
            else
                ((float *)edges)[i] = d->uneven[dim] != NULL ? votecl__hist_uneven_float(d, dim, k)
                                                             : votecl__hist_edge(d, dim, k);
    status = votecl__buffer_ensure(plan->context, &plan->edges, count * word);
    if (status == VOTECL_OK)
        status = votecl_buffer_write(plan->edges, 0, edges, count * word);
    free(edges);
    return status;
}

/* The engine's view of the data: per channel, every channel value is an element of its
 * own (one read of each pixel votes in every channel's histogram); vector loads where the
 * elements are single values and no mask needs reading (and per channel where a load's
 * values start at channel 0). */
static votecl__vote_shape
hist_shape(const votecl__hist_desc *d)
{
    unsigned per_load = (unsigned)(16 / d->value_bytes);
    int scalar =
        (d->dims == 1 && d->channels == 1) || (d->per_channel && per_load % d->channels == 0);
    int pixels = hist_pixel_vectors(d);

    return (votecl__vote_shape){.nbins = d->nbins_total,
                                .kind = d->weighted ? 2 : 0,
                                .frames = 1,
                                .spaces = 1,
                                .vec = pixels ? 16 : scalar && !d->masked ? per_load : 1,
                                .elem_bytes = (d->per_channel ? 1 : d->channels) * d->value_bytes,
                                .unpack = !pixels};
}

static votecl_status
plan_compile(votecl_hist_plan *plan, const votecl_hist_params *params)
{
    const votecl__hist_desc *d = &plan->desc;
    static const char *const files[] = {"histogram.cl", "vote.cl", NULL};
    char defs[128][64];
    const char *ptrs[128];
    size_t n;
    votecl__vote_config cfg;
    votecl__program *program;
    votecl__vote_shape shape = hist_shape(d);
    votecl_status status;

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
    if (status == VOTECL_OK)
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
    VOTECL__FREE_BUFFERS(plan->x, plan->y, plan->w, plan->mask, plan->out, plan->edges);
    votecl__hist_desc_release(&plan->desc);
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

/* Byte sizes of one call's arrays, checked for overflow, and the engine's elements per
 * frame (per channel: every channel value). */
typedef struct sizes {
    size_t x, w, mask, bins, votes;
} sizes;

static votecl_status
call_sizes(votecl_hist_plan *plan, size_t n, size_t frames, sizes *s)
{
    const votecl__hist_desc *d = &plan->desc;
    size_t elements;

    if (n > VOTECL__MAX_FRAME_ELEMENTS ||
        (d->per_channel && n * d->channels > VOTECL__MAX_FRAME_ELEMENTS))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "n: %zu elements per frame exceed %zu", n,
                            VOTECL__MAX_FRAME_ELEMENTS / (d->per_channel ? d->channels : 1));
    s->votes = d->per_channel ? n * d->channels : n;
    if (votecl__mul_overflow(n, frames, &elements) ||
        votecl__mul_overflow(elements, d->channels * d->value_bytes, &s->x) ||
        votecl__mul_overflow(elements, sizeof(float), &s->w) ||
        votecl__mul_overflow(frames, (size_t)d->nbins_total * 4, &s->bins))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "n, frames: %zu x %zu elements overflow the address space", n,
                            frames);
    s->mask = elements;
    return VOTECL_OK;
}

/* A masked plan takes a mask and only a masked plan does. */
static votecl_status
check_mask(votecl_hist_plan *plan, int given)
{
    if (!plan->desc.masked == !given)
        return VOTECL_OK;
    return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                        plan->desc.masked
                            ? "mask: the plan is masked: every run needs a mask "
                              "(votecl_hist_run_masked)"
                            : "mask: the plan was made without params.masked: it takes no mask");
}

static votecl_status
check_arrays(votecl_hist_plan *plan, const void *x, const void *y, const void *w, const void *mask,
             size_t n, const void *bins)
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
    if (d->masked && mask == NULL)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "mask: NULL pointer for a masked plan");
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

/* One run's device buffers: the kernels read a mask where the plan has no second array, else
 * where it has no weights (cl/histogram.cl). */
static votecl_status
device_run(votecl_hist_plan *plan, votecl_buffer *x, votecl_buffer *y, votecl_buffer *w,
           votecl_buffer *mask, const sizes *s, size_t frames, votecl_buffer *bins)
{
    const votecl__hist_desc *d = &plan->desc;

    if (d->masked && d->two_arrays)
        w = mask;
    else if (d->masked)
        y = mask;
    return votecl__vote_run(
        &plan->engine,
        &(votecl__vote_input){
            .x = x, .y = y, .w = w, .aux = plan->edges, .n = s->votes, .spaces = frames},
        bins);
}

/* A host call's arrays made device buffers (up[0..3]: x, y, weights, mask; wrapped ones in
 * wrapped[], freed by the caller). */
static votecl_status
uploads(votecl_hist_plan *plan, const void *const host[4], const sizes *s, votecl_buffer *up[4],
        votecl_buffer *wrapped[4])
{
    const votecl__hist_desc *d = &plan->desc;
    votecl_buffer **staging[4] = {&plan->x, &plan->y, &plan->w, &plan->mask};
    const size_t size[4] = {s->x, s->x, s->w, s->mask};
    const int used[4] = {1, d->two_arrays, d->weighted, d->masked};
    votecl_status status = VOTECL_OK;

    for (int k = 0; k < 4 && status == VOTECL_OK; k++)
        if (used[k])
            status = upload(plan, staging[k], &wrapped[k], host[k], size[k], &up[k]);
    return status;
}

static votecl_status
run_host(votecl_hist_plan *plan, const void *x, const void *y, const float *w, const uint8_t *mask,
         size_t n, size_t frames, void *bins)
{
    const void *const host[4] = {x, y, w, mask};
    votecl_buffer *up[4] = {NULL}, *wrapped[4] = {NULL};
    sizes s;
    votecl_status status = call_sizes(plan, n, frames, &s);

    if (status == VOTECL_OK)
        status = check_arrays(plan, x, y, w, mask, n, bins);
    if (status != VOTECL_OK || frames == 0)
        return status;
    if (plan->context->backend == VOTECL_BACKEND_REF) {
        votecl__hist_ref(&plan->desc, x, y, w, mask, n, frames, bins);
        return VOTECL_OK;
    }
    if (n == 0)
        status = votecl__buffer_ensure(plan->context, &plan->x, 16);
    else
        status = uploads(plan, host, &s, up, wrapped);
    if (status == VOTECL_OK)
        status = votecl__buffer_ensure(plan->context, &plan->out, s.bins);
    if (status == VOTECL_OK)
        status = device_run(plan, up[0] != NULL ? up[0] : plan->x, up[1], up[2], up[3], &s, frames,
                            plan->out);
    if (status == VOTECL_OK)
        status = votecl_buffer_read(plan->out, 0, bins, s.bins);
    if (wrapped[0] != NULL || wrapped[1] != NULL || wrapped[2] != NULL || wrapped[3] != NULL)
        votecl_context_finish(plan->context); /* the wrapped memory is the caller's */
    for (int k = 0; k < 4; k++)
        votecl_buffer_free(wrapped[k]);
    return status;
}

votecl_status
votecl_hist_run(votecl_hist_plan *plan, const void *x, const void *y, const float *weights,
                size_t n, void *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_mask(plan, 0);

    return status != VOTECL_OK ? status : run_host(plan, x, y, weights, NULL, n, 1, bins);
}

votecl_status
votecl_hist_run_batch(votecl_hist_plan *plan, const void *x, const void *y,
                      const float *weights, size_t n, size_t frames, void *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_mask(plan, 0);

    return status != VOTECL_OK ? status : run_host(plan, x, y, weights, NULL, n, frames, bins);
}

votecl_status
votecl_hist_run_masked(votecl_hist_plan *plan, const void *x, const void *y, const float *weights,
                       const uint8_t *mask, size_t n, size_t frames, void *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_mask(plan, 1);

    return status != VOTECL_OK ? status : run_host(plan, x, y, weights, mask, n, frames, bins);
}

votecl_status
votecl_hist_run_image(votecl_hist_plan *plan, const votecl_image *image, void *bins)
{
    size_t row_bytes = 0, pixels = 0;
    const void *data;
    void *copy = NULL;
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_mask(plan, 0);

    if (status != VOTECL_OK)
        return status;
    if (plan->desc.two_arrays)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "image: a 2-D histogram of two arrays needs votecl_hist_run");
    status = votecl__image_check(plan->context, image, plan->desc.dtype, plan->desc.channels,
                                 &row_bytes, &pixels);
    if (status == VOTECL_OK)
        status = votecl__image_packed(plan->context, image, row_bytes, &data, &copy);
    if (status == VOTECL_OK)
        status = run_host(plan, data, NULL, NULL, NULL, pixels, 1, bins);
    free(copy);
    return status;
}

/* The typed entry points: the same runs, refused when the bins' type is not the plan's. */
static votecl_status
check_typed(votecl_hist_plan *plan, int weighted)
{
    if (!plan->desc.weighted == !weighted)
        return check_mask(plan, 0);
    return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                        plan->desc.weighted
                            ? "bins: the plan is weighted (float bins): use votecl_hist_run_f32"
                            : "bins: the plan counts (uint32_t bins): use votecl_hist_run_u32");
}

votecl_status
votecl_hist_run_u32(votecl_hist_plan *plan, const void *x, const void *y, size_t n,
                    uint32_t *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_typed(plan, 0);

    return status != VOTECL_OK ? status : run_host(plan, x, y, NULL, NULL, n, 1, bins);
}

votecl_status
votecl_hist_run_f32(votecl_hist_plan *plan, const void *x, const void *y, const float *weights,
                    size_t n, float *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_typed(plan, 1);

    return status != VOTECL_OK ? status : run_host(plan, x, y, weights, NULL, n, 1, bins);
}

votecl_status
votecl_hist_run_batch_u32(votecl_hist_plan *plan, const void *x, const void *y, size_t n,
                          size_t frames, uint32_t *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_typed(plan, 0);

    return status != VOTECL_OK ? status : run_host(plan, x, y, NULL, NULL, n, frames, bins);
}

votecl_status
votecl_hist_run_batch_f32(votecl_hist_plan *plan, const void *x, const void *y,
                          const float *weights, size_t n, size_t frames, float *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_typed(plan, 1);

    return status != VOTECL_OK ? status : run_host(plan, x, y, weights, NULL, n, frames, bins);
}

votecl_status
votecl_hist_run_image_u32(votecl_hist_plan *plan, const votecl_image *image, uint32_t *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_typed(plan, 0);

    return status != VOTECL_OK ? status : votecl_hist_run_image(plan, image, bins);
}

/* The buffer calls' checks; sizes into *s. */
static votecl_status
check_buffers(votecl_hist_plan *plan, votecl_buffer *x, votecl_buffer *y, votecl_buffer *w,
              votecl_buffer *mask, size_t n, size_t frames, votecl_buffer *bins, sizes *s)
{
    const votecl__hist_desc *d = &plan->desc;
    votecl_status status;

    if ((status = call_sizes(plan, n, frames, s)) != VOTECL_OK ||
        (status = votecl__buffer_check(plan->context, bins, s->bins, "bins")) != VOTECL_OK ||
        (status = votecl__buffer_check(plan->context, x, s->x, "x")) != VOTECL_OK ||
        (d->two_arrays &&
         (status = votecl__buffer_check(plan->context, y, s->x, "y")) != VOTECL_OK) ||
        (d->weighted &&
         (status = votecl__buffer_check(plan->context, w, s->w, "weights")) != VOTECL_OK) ||
        (d->masked &&
         (status = votecl__buffer_check(plan->context, mask, s->mask, "mask")) != VOTECL_OK))
        return status;
    return VOTECL_OK;
}

static votecl_status
run_buffers(votecl_hist_plan *plan, votecl_buffer *x, votecl_buffer *y, votecl_buffer *weights,
            votecl_buffer *mask, size_t n, size_t frames, votecl_buffer *bins)
{
    const votecl__hist_desc *d = &plan->desc;
    sizes s;
    votecl_status status = check_buffers(plan, x, y, weights, mask, n, frames, bins, &s);

    if (status != VOTECL_OK || frames == 0)
        return status;
    if (plan->context->backend == VOTECL_BACKEND_REF) {
        votecl__hist_ref(d, x->handle, d->two_arrays ? y->handle : NULL,
                         d->weighted ? weights->handle : NULL, d->masked ? mask->handle : NULL, n,
                         frames, bins->handle);
        return VOTECL_OK;
    }
    return device_run(plan, x, d->two_arrays ? y : NULL, d->weighted ? weights : NULL,
                      d->masked ? mask : NULL, &s, frames, bins);
}

votecl_status
votecl_hist_run_buffers(votecl_hist_plan *plan, votecl_buffer *x, votecl_buffer *y,
                        votecl_buffer *weights, size_t n, size_t frames, votecl_buffer *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_mask(plan, 0);

    return status != VOTECL_OK ? status : run_buffers(plan, x, y, weights, NULL, n, frames, bins);
}

votecl_status
votecl_hist_run_masked_buffers(votecl_hist_plan *plan, votecl_buffer *x, votecl_buffer *y,
                               votecl_buffer *weights, votecl_buffer *mask, size_t n, size_t frames,
                               votecl_buffer *bins)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    votecl_status status = check_mask(plan, 1);

    return status != VOTECL_OK ? status : run_buffers(plan, x, y, weights, mask, n, frames, bins);
}
