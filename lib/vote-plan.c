/* The generic engine's public face: vote specs with user functions in OpenCL C, compiled
 * into plans; stage 1 compaction (cl/compact.cl) and stage 2 voting (cl/vote.cl) on the
 * device. The built-ins (histograms excepted, which plug their own element function into
 * the same vote.cl) are specs with source text. */
#include "vote-private.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Images are indexed by packed x | y << 16 locations. */
#define MAX_SIDE 65535

struct votecl_vote_plan {
    votecl_context *context;
    votecl_vote_spec spec; /* source and table pointers cleared: not kept */
    int has_test;
    votecl__vote_engine engine;
    /* Stage 1 shape: GPUs scan 256 work-items x 16 elements per group with local prefix
     * sums; CPUs (PoCL runs a group's work-items as a loop, barriers are costly) give each
     * one-item group a long chunk to scan sequentially. */
    unsigned scan_wg, scan_items;
    void *k_count, *k_scan, *k_compact;
    votecl_buffer *input, *locations, *values, *counts, *total, *out;
    size_t last_elements;   /* E of the last run */
    int last_pending;       /* the last run's kept count is still on the device */
    size_t last_kept;
};

void
votecl_vote_spec_init(votecl_vote_spec *spec)
{
    VOTECL__PARAMS_INIT_OR_RETURN(spec);
    spec->dtype = VOTECL_DTYPE_U8;
    spec->channels = 1;
    spec->bin_type = VOTECL_BINS_UNITY;
    spec->spaces = 1;
    spec->nbins = 256;
}

/* --- which user functions the source defines --- */

/* A copy of source with comments, string and character literals blanked out. */
static char *
strip_comments(const char *source)
{
    size_t n = strlen(source);
    char *s = votecl__malloc(n + 1);

    if (s == NULL)
        return NULL;
    memcpy(s, source, n + 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                s[i++] = ' ';
        } else if (s[i] == '/' && s[i + 1] == '*') {
            s[i] = s[i + 1] = ' ';
            for (i += 2; i < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
                if (s[i] != '\n')
                    s[i] = ' ';
            if (i < n)
                s[i] = s[i + 1] = ' ';
            i++;
        } else if (s[i] == '"' || s[i] == '\'') {
            char quote = s[i];
            for (i++; i < n && s[i] != quote; i++) {
                if (s[i] == '\\' && i + 1 < n)
                    s[i++] = ' '; /* an escaped character, quote included */
                s[i] = ' ';
            }
        }
    }
    return s;
}

/* Whether name( appears as an identifier in text. */
static int
mentions_function(const char *text, const char *name)
{
    size_t len = strlen(name);

    for (const char *p = strstr(text, name); p != NULL; p = strstr(p + 1, name)) {
        const char *q = p + len;
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        if (*q == '(')
            return 1;
    }
    return 0;
}

/* --- validation --- */

static votecl_status
check_spec(votecl_context *context, const votecl_vote_spec *s)
{
    size_t source_len = s->source != NULL ? strnlen(s->source, VOTECL_VOTE_MAX_SOURCE + 1) : 0;

    if (votecl_dtype_size(s->dtype) == 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "dtype: unknown element type %d",
                            (int)s->dtype);
    if (s->channels != 1 && s->channels != 2 && s->channels != 4)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "channels: %u is not 1, 2 or 4", s->channels);
    if (s->bin_type > VOTECL_BINS_F32)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "bin_type: unknown value %d",
                            (int)s->bin_type);
    if (s->spaces < 1 || s->nbins < 1)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: must be at least 1",
                            s->spaces < 1 ? "spaces" : "nbins");
    if ((uint64_t)s->spaces * s->nbins > VOTECL_VOTE_MAX_BINS)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "spaces, nbins: %u x %u bins exceed %u", s->spaces, s->nbins,
                            VOTECL_VOTE_MAX_BINS);
    if (source_len > VOTECL_VOTE_MAX_SOURCE)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "source: longer than %u bytes",
                            VOTECL_VOTE_MAX_SOURCE);
    if (s->table_size > VOTECL_VOTE_MAX_TABLE || (s->table_size > 0 && s->table == NULL))
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "table, table_size: %zu floats (at most %u, and table not NULL)",
                            s->table_size, VOTECL_VOTE_MAX_TABLE);
    for (size_t i = 0; i < s->table_size; i++)
        if (!isfinite(s->table[i]))
            return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                                "table[%zu]: not a finite number", i);
    if (votecl_variant_name(s->variant) == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "variant: unknown value %d",
                            (int)s->variant);
    return VOTECL_OK;
}

/* --- program text --- */

static const char *
value_type(const votecl_vote_spec *s, char *buf, size_t size)
{
    static const char *const names[] = {"", "uchar", "ushort", "uint", "float"};
    if (s->channels == 1)
        snprintf(buf, size, "%s", names[s->dtype]);
    else
        snprintf(buf, size, "%s%u", names[s->dtype], s->channels);
    return buf;
}

/* The table as a constant array of exact hexadecimal floats, then the user's text under
 * its own file name and line numbers. */
static char *
user_text(const votecl_vote_spec *s)
{
    size_t cap = 128 + s->table_size * 24 + (s->source != NULL ? strlen(s->source) : 0);
    char *text = votecl__malloc(cap), *p = text;

    if (text == NULL)
        return NULL;
    p += sprintf(p, "#define vote_table_size %zuu\n", s->table_size);
    if (s->table_size > 0) {
        p += sprintf(p, "CONSTANT float vote_table[%zu] = {", s->table_size);
        for (size_t i = 0; i < s->table_size; i++)
            p += sprintf(p, "%s%af", i ? "," : "", (double)s->table[i]);
        p += sprintf(p, "};\n");
    }
    p += sprintf(p, "#line 1 \"user\"\n%s\n", s->source != NULL ? s->source : "");
    return text;
}

static votecl_status
compile(votecl_vote_plan *plan, const votecl_vote_spec *s)
{
    static const char *const files[] = {"generic.cl", "compact.cl", "vote.cl", NULL};
    static const char *const functions[] = {"vote_test", "vote_index", "vote_value",
                                            "vote_finish"};
    static const char *const flags[] = {"VOTE_HAS_TEST", "VOTE_HAS_INDEX", "VOTE_HAS_VALUE",
                                        "VOTE_HAS_FINISH"};
    char defs[32][64], vt[16];
    const char *ptrs[32];
    size_t n = 0;
    char *stripped = strip_comments(s->source != NULL ? s->source : "");
    char *text = user_text(s);
    votecl__vote_shape shape = {.nbins = s->nbins, .kind = (int)s->bin_type, .frames = 0,
                                .spaces = s->spaces, .vec = 1,
                                .elem_bytes = votecl_dtype_size(s->dtype) * s->channels};
    int value_based;
    votecl__vote_config cfg;
    votecl__program *program;
    votecl_status status = VOTECL_OK;

    if (stripped == NULL || text == NULL) {
        status = votecl__fail(plan->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < 4; i++)
        if (mentions_function(stripped, functions[i]))
            snprintf(defs[n++], 64, "%s", flags[i]);
    plan->has_test = mentions_function(stripped, "vote_test");
    shape.finish = mentions_function(stripped, "vote_finish");
    /* Value-based one-channel unity votes read 16 bytes at a time, as histograms do. */
    value_based = !plan->has_test && s->channels == 1 && s->bin_type == VOTECL_BINS_UNITY;
    shape.vec = value_based ? (unsigned)(16 / shape.elem_bytes) : 1;
    snprintf(defs[n++], 64, "VALUE_T=%s", value_type(s, vt, sizeof vt));
    snprintf(defs[n++], 64, "VALUE_CHANNELS=%u", s->channels);
    plan->scan_wg = plan->context->shape.cpu ? 1 : 256;
    plan->scan_items = plan->scan_wg == 1 ? 16384 : 16;
    if (plan->scan_wg > plan->context->info.max_work_group_size)
        plan->scan_wg = 1;
    snprintf(defs[n++], 64, "SCAN_WG=%u", plan->scan_wg);
    snprintf(defs[n++], 64, "SCAN_ITEMS=%u", plan->scan_items);
    status = votecl__vote_configure(plan->context, s->variant, s->stretch, s->work_group_size,
                                    &shape, &cfg);
    if (status != VOTECL_OK)
        goto out;
    n += votecl__vote_defines(&cfg, defs + n);
    for (size_t i = 0; i < n; i++)
        ptrs[i] = defs[i];
    status = votecl__program_get(plan->context, files, ptrs, n, text, &program);
    if (status == VOTECL_OK)
        status = votecl__vote_engine_init(&plan->engine, plan->context, &cfg, program);
    if (status == VOTECL_OK && plan->has_test &&
        ((status = votecl__program_kernel(plan->context, program, "vote_count",
                                          &plan->k_count)) != VOTECL_OK ||
         (status = votecl__program_kernel(plan->context, program, "vote_scan",
                                          &plan->k_scan)) != VOTECL_OK))
        goto out;
    if (status == VOTECL_OK && plan->has_test)
        status = votecl__program_kernel(plan->context, program, "vote_compact",
                                        &plan->k_compact);
out:
    free(stripped);
    free(text);
    return status;
}

/* The spec's checks, then the backend's: user functions are OpenCL C. */
static votecl_status
check_new(votecl_context *context, const void *spec)
{
    votecl_status status = check_spec(context, spec);

    if (status != VOTECL_OK)
        return status;
    if (context->backend == VOTECL_BACKEND_REF)
        return votecl__fail(context, VOTECL_UNSUPPORTED,
                            "the ref backend cannot run user functions written in OpenCL C; "
                            "the built-ins run their sequential references there");
    return VOTECL_OK;
}

static votecl_status
plan_new_init(void *plan_, votecl_context *context, const void *spec, size_t width, size_t height)
{
    votecl_vote_plan *plan = plan_;

    plan->context = context;
    plan->spec = *(const votecl_vote_spec *)spec;
    plan->spec.source = NULL;
    plan->spec.table = NULL;
    return compile(plan, spec);
}

VOTECL__PLAN_OPS(votecl_vote_plan, votecl_vote_plan_free, .params_name = "spec",
                 .check_in = check_new, .init = plan_new_init);

votecl_status
votecl_vote_plan_new(votecl_context *context, const votecl_vote_spec *spec, votecl_vote_plan **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    return votecl__plan_new_of(&plan_ops, context, spec, 0, 0, out);
}

void
votecl_vote_plan_free(votecl_vote_plan *plan)
{
    if (plan == NULL)
        return;
    votecl__vote_engine_release(&plan->engine);
    VOTECL__FREE_BUFFERS(plan->input, plan->locations, plan->values, plan->counts, plan->total,
                         plan->out);
    free(plan);
}

/* --- running --- */

static size_t
element_bytes(const votecl_vote_plan *plan)
{
    return votecl_dtype_size(plan->spec.dtype) * plan->spec.channels;
}

static size_t
bins_bytes(const votecl_vote_plan *plan)
{
    return (size_t)plan->spec.spaces * plan->spec.nbins * 4;
}

/* Stage 1: the elements of data passing vote_test into plan->locations / plan->values, the
 * count into plan->total. */
static votecl_status
stage1(votecl_vote_plan *plan, votecl_buffer *data, size_t e, size_t width)
{
    votecl_context *ctx = plan->context;
    size_t chunk = (size_t)plan->scan_wg * plan->scan_items;
    size_t groups = (e + chunk - 1) / chunk;
    size_t local = plan->scan_wg, global = (groups > 0 ? groups : 1) * local, one = local;
    votecl_status status;

    if ((status = votecl__buffer_ensure(ctx, &plan->counts, (groups + 1) * 4)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->total, 4)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->locations, (e + 1) * 4)) != VOTECL_OK ||
        (status = votecl__buffer_ensure(ctx, &plan->values, (e + 1) * element_bytes(plan))) !=
            VOTECL_OK)
        return status;
    if (e == 0)
        return votecl__buffer_zero(plan->total, 0, 4);
    status = votecl__launch(ctx, plan->k_count, 1, &global, &local,
                            (votecl__arg[]){VOTECL__ARG_BUF(data), VOTECL__ARG_UINT(e),
                                            VOTECL__ARG_UINT(width), VOTECL__ARG_BUF(plan->counts)},
                            4);
    if (status == VOTECL_OK)
        status = votecl__launch(ctx, plan->k_scan, 1, &one, &local,
                                (votecl__arg[]){VOTECL__ARG_BUF(plan->counts),
                                                VOTECL__ARG_UINT(groups),
                                                VOTECL__ARG_BUF(plan->total)},
                                3);
    if (status == VOTECL_OK)
        status = votecl__launch(
            ctx, plan->k_compact, 1, &global, &local,
            (votecl__arg[]){VOTECL__ARG_BUF(data), VOTECL__ARG_UINT(e), VOTECL__ARG_UINT(width),
                            VOTECL__ARG_BUF(plan->counts), VOTECL__ARG_BUF(plan->locations),
                            VOTECL__ARG_BUF(plan->values)},
            6);
    return status;
}

/* Both stages over e elements of data (width: image width, 0 for 1-D) into out. */
static votecl_status
run_device(votecl_vote_plan *plan, votecl_buffer *data, size_t e, size_t width,
           votecl_buffer *out)
{
    votecl__vote_input in = {.x = data, .n = e, .width = width, .spaces = plan->spec.spaces};
    votecl_status status;

    plan->last_elements = e;
    plan->last_kept = e;
    plan->last_pending = 0;
    if (plan->has_test) {
        if ((status = stage1(plan, data, e, width)) != VOTECL_OK)
            return status;
        in.x = plan->values;
        in.y = plan->locations;
        in.count = plan->total;
        in.width = 0;
        plan->last_pending = 1;
    }
    return votecl__vote_run(&plan->engine, &in, out);
}

static votecl_status
check_size(votecl_vote_plan *plan, size_t width, size_t height, size_t *elements)
{
    if (height > 0 && (width > MAX_SIDE || height > MAX_SIDE))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "width, height: %zu x %zu exceeds %u on a side", width, height,
                            MAX_SIDE);
    *elements = height > 0 ? width * height : width;
    if (*elements > VOTECL__MAX_FRAME_ELEMENTS)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "n: %zu elements exceed %zu", *elements, VOTECL__MAX_FRAME_ELEMENTS);
    return VOTECL_OK;
}

static votecl_status
fill_stats(votecl_vote_plan *plan, votecl_vote_stats *stats)
{
    uint32_t kept;
    votecl_status status;

    if (plan->last_pending) {
        if ((status = votecl_buffer_read(plan->total, 0, &kept, 4)) != VOTECL_OK)
            return status;
        plan->last_kept = kept;
        plan->last_pending = 0;
    }
    if (stats != NULL) {
        stats->elements = plan->last_elements;
        stats->kept = plan->last_kept;
        stats->eta = plan->last_elements > 0
                         ? (double)plan->last_kept / (double)plan->last_elements
                         : 0.0;
    }
    return VOTECL_OK;
}

/* Host memory in, host bins out: upload (or wrap), both stages, read back. */
static votecl_status
run_host(votecl_vote_plan *plan, const void *data, size_t width, size_t height, void *bins,
         votecl_vote_stats *stats)
{
    size_t e = 0, bytes;
    votecl_buffer *wrapped = NULL, *in;
    votecl_status status = check_size(plan, width, height, &e);

    if (status != VOTECL_OK)
        return status;
    if (bins == NULL || (data == NULL && e > 0))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            bins == NULL ? "bins" : "data");
    bytes = e * element_bytes(plan);
    status = votecl__buffer_wrap(plan->context, data, bytes, &wrapped);
    if (status == VOTECL_OK && wrapped == NULL &&
        (status = votecl__buffer_ensure(plan->context, &plan->input, bytes + 16)) ==
            VOTECL_OK &&
        bytes > 0)
        status = votecl_buffer_write(plan->input, 0, data, bytes);
    in = wrapped != NULL ? wrapped : plan->input;
    if (status == VOTECL_OK)
        status = votecl__buffer_ensure(plan->context, &plan->out, bins_bytes(plan));
    if (status == VOTECL_OK)
        status = run_device(plan, in, e, height > 0 ? width : 0, plan->out);
    /* Stage 1's count is read first: the caller's bins are the last thing written. */
    if (status == VOTECL_OK)
        status = fill_stats(plan, NULL);
    if (status == VOTECL_OK)
        status = votecl_buffer_read(plan->out, 0, bins, bins_bytes(plan));
    if (status == VOTECL_OK)
        status = fill_stats(plan, stats);
    if (wrapped != NULL) {
        votecl_context_finish(plan->context); /* the wrapped memory is the caller's */
        votecl_buffer_free(wrapped);
    }
    return status;
}

votecl_status
votecl_vote_run(votecl_vote_plan *plan, const void *data, size_t n, void *bins,
                votecl_vote_stats *stats)
{
    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    return run_host(plan, data, n, 0, bins, stats);
}

votecl_status
votecl_vote_run_image(votecl_vote_plan *plan, const votecl_image *image, void *bins,
                      votecl_vote_stats *stats)
{
    size_t row = 0, pixels = 0, e;
    const void *data;
    void *copy = NULL;
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    status = votecl__image_check(plan->context, image, plan->spec.dtype, plan->spec.channels,
                                 &row, &pixels);
    if (status == VOTECL_OK && pixels == 0)
        return run_host(plan, NULL, 0, 0, bins, stats);
    if (status == VOTECL_OK)
        status = check_size(plan, image->width, image->height, &e);
    if (status == VOTECL_OK)
        status = votecl__image_packed(plan->context, image, row, &data, &copy);
    if (status == VOTECL_OK)
        status = run_host(plan, data, image->width, image->height, bins, stats);
    free(copy);
    return status;
}

votecl_status
votecl_vote_run_buffers(votecl_vote_plan *plan, votecl_buffer *data, size_t width,
                        size_t height, votecl_buffer *bins)
{
    size_t e = 0;
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    if ((status = check_size(plan, width, height, &e)) != VOTECL_OK)
        return status;
    if (data == NULL || bins == NULL)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "%s: NULL buffer",
                            data == NULL ? "data" : "bins");
    if (data->context != plan->context || bins->context != plan->context)
        return votecl__fail(plan->context, VOTECL_INCOMPATIBLE,
                            "data, bins: buffer of another context");
    if (data->size < e * element_bytes(plan) || bins->size < bins_bytes(plan))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "%s: buffer too small", bins->size < bins_bytes(plan) ? "bins" : "data");
    return run_device(plan, data, e, height > 0 ? width : 0, bins);
}

votecl_status
votecl_vote_plan_last_stats(votecl_vote_plan *plan, votecl_vote_stats *stats)
{
    if (plan == NULL || stats == NULL)
        return VOTECL_INVALID_ARGUMENT;
    return fill_stats(plan, stats);
}

votecl_status
votecl_vote_plan_describe(const votecl_vote_plan *plan, size_t elements,
                          votecl_vote_plan_info *info)
{
    double eta;

    if (plan == NULL || info == NULL)
        return VOTECL_INVALID_ARGUMENT;
    votecl__vote_describe(&plan->engine, elements, plan->spec.spaces, info);
    /* the last run's eta stands for the next one; 1 before any run */
    eta = plan->last_elements > 0 && !plan->last_pending
              ? (double)plan->last_kept / (double)plan->last_elements
              : 1.0;
    if (plan->context->model->predict_info(plan->context, info, plan->has_test, elements, eta,
                                           &info->predicted_seconds) != VOTECL_OK)
        info->predicted_seconds = 0.0;
    return VOTECL_OK;
}

votecl_status
votecl__vote_plan_describe_of(votecl_context *context, const votecl_vote_plan *vote,
                              const char *why, size_t elements, votecl_vote_plan_info *info)
{
    if (info == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "info: NULL pointer");
    if (vote == NULL)
        return votecl__fail(context, VOTECL_UNSUPPORTED, "%s", why);
    return votecl_vote_plan_describe(vote, elements, info);
}

votecl_status
votecl_vote_plan_predict(const votecl_vote_plan *plan, size_t elements, double eta, double *seconds)
{
    votecl_context *context = plan != NULL ? plan->context : NULL;
    votecl_vote_plan_info info;
    votecl_status status;

    if (seconds != NULL)
        *seconds = 0.0;
    if (context == NULL || seconds == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (!(eta >= 0.0 && eta <= 1.0))
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "eta: %g is not in [0, 1]", eta);
    status = votecl_vote_plan_describe(plan, elements, &info);
    if (status != VOTECL_OK)
        return status;
    status = context->model->predict_info(context, &info, plan->has_test, elements, eta, seconds);
    if (status != VOTECL_OK)
        return votecl__fail(context, status,
                            "the device is not calibrated for the %s strategy:"
                            " run votecl calibrate",
                            votecl_variant_name(info.variant));
    return VOTECL_OK;
}
