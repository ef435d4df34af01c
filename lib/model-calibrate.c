/* Training and held-out runs of the execution-time model (GPU-vote section 5.1): a
 * Hough-like location-based vote and its value-based twin, timed on the context's device
 * with each strategy forced in turn. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* clock_gettime */
#endif

#include "model-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPEATS 32
/* Within a round, short runs repeat for this long (at most MAX_ROUND_RUNS times). */
#define MIN_ROUND_SECONDS 0.001
#define MAX_ROUND_RUNS 8
#define MAX_LIST 8

/* Theta-rho lines (GPU-vote Eq. 1-2) at one pixel per bin, wrapped into the N bins so that
 * every N is reachable at every image size: neighbouring pixels vote into neighbouring bins,
 * the contention that bin stretching exists for. vote_table holds cos, sin per space. */
static const char calibrate_source[] =
    "bool vote_test(uint x, uint y, uchar value) { return value != 0; }\n"
    "uint vote_index(uint space, uint index, uchar value, uint nbins)\n"
    "{\n"
    "    float x = (float)vote_x(index), y = (float)vote_y(index);\n"
    "    float rho = x * vote_table[2 * space] + y * vote_table[2 * space + 1];\n"
    "    return (uint)((int)rho + 65536) % nbins;\n"
    "}\n";

/* The value-based twin: every pixel votes, no stage 1. */
static const char calibrate_value_source[] =
    "uint vote_index(uint space, uint index, uchar value, uint nbins)\n"
    "{\n"
    "    float x = (float)vote_x(index), y = (float)vote_y(index);\n"
    "    float rho = x * vote_table[2 * space] + y * vote_table[2 * space + 1];\n"
    "    return (uint)((int)rho + 65536) % nbins;\n"
    "}\n";

typedef struct size2 {
    unsigned width, height;
} size2;

/* One case set: the (G, N) pairs are the products of the lists (a plan each); each pair
 * times 'located' location-based (size, eta) combinations and, on every other pair, one
 * value-based run. */
typedef struct case_set {
    unsigned spaces[MAX_LIST], nspaces;
    uint32_t nbins[MAX_LIST], nnbins;
    size2 sizes[MAX_LIST];
    unsigned nsizes;
    double etas[MAX_LIST];
    unsigned netas;
    unsigned located;
    int diagonal; /* nonzero: pair spaces[i] with nbins[i] only, not the whole product */
    int vary_local; /* nonzero: local cases vary P and S' (training) */
} case_set;

typedef struct cal_case {
    votecl_variant variant;
    unsigned spaces;
    uint32_t nbins;
    int location;
    size2 size;
    double eta;
    unsigned groups;  /* local, training: work-groups per compute unit (0: the plan's) */
    unsigned stretch; /* local, training: a cap on S' (0: the plan's) */
} cal_case;

typedef struct case_list {
    cal_case *items;
    size_t count, capacity;
} case_list;

typedef struct runner {
    votecl_context *context;
    const votecl_calibrate_options *options;
    unsigned repeats;
    votecl_buffer *image;
    uint8_t *host;
    size_t image_bytes;
    votecl_model_sample *samples; /* one per case */
    size_t nsamples;              /* cases done */
    size_t done;                  /* runs of cases done, for the progress callback */
} runner;

typedef struct plan_slot {
    votecl_vote_plan *plan;
    votecl_buffer *bins;
} plan_slot;

void
votecl_calibrate_options_init(votecl_calibrate_options *options)
{
    VOTECL__PARAMS_INIT_OR_RETURN(options);
    options->store = 1;
}

static double
now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- the case sets --- */

static void
add_unique(unsigned *list, unsigned *n, unsigned value)
{
    for (unsigned i = 0; i < *n; i++)
        if (list[i] == value)
            return;
    if (*n < MAX_LIST)
        list[(*n)++] = value;
}

static uint32_t
nmax_of(const votecl_context *context)
{
    uint64_t nmax = context->info.local_mem_bytes / 4;
    return (uint32_t)(nmax < VOTECL_VOTE_MAX_BINS / 4 ? nmax : VOTECL_VOTE_MAX_BINS / 4);
}

/* Training: G in {1, 8, SM / 3, SM, 5 SM / 4, 2 SM} (and 64 beyond 2 SM), N from 32 to
 * 1.5 Nmax (two passes), E from 160x120 to 1024x768 (1920x1080 on GPUs), eta from 0.01 to
 * 0.5. Quick: three (G, N) pairs. */
static void
training_set(const votecl_context *context, int quick, case_set *cs)
{
    static const size2 sizes[] = {{160, 120}, {320, 240}, {640, 480}, {1024, 768}, {1920, 1080}};
    static const double etas[] = {0.01, 0.05, 0.2, 0.5};
    unsigned sm = context->info.compute_units > 0 ? context->info.compute_units : 1;
    uint32_t nmax = nmax_of(context);

    memset(cs, 0, sizeof *cs);
    add_unique(cs->spaces, &cs->nspaces, 1);
    add_unique(cs->spaces, &cs->nspaces, sm);
    add_unique(cs->spaces, &cs->nspaces, 2 * sm);
    cs->nbins[cs->nnbins++] = 32;
    cs->nbins[cs->nnbins++] = 256;
    cs->nbins[cs->nnbins++] = 4096;
    if (!quick && nmax >= 64)
        cs->nbins[cs->nnbins++] = nmax + nmax / 2;
    /* More G and N than Eq. 9's corners: the wave rounding (G not a multiple of SM, k groups
     * resident per SM) and the footprints (S' N of local memory, G N copies in the cache)
     * change between them. */
    if (!quick) {
        add_unique(cs->spaces, &cs->nspaces, 8);
        add_unique(cs->spaces, &cs->nspaces, sm / 3 > 0 ? sm / 3 : 1);
        add_unique(cs->spaces, &cs->nspaces, sm + sm / 4);
        /* a Hough's angles (64) where the compute units are few (CPUs): G beyond 2 SM */
        if (2 * sm < 64)
            add_unique(cs->spaces, &cs->nspaces, 64);
        cs->nbins[cs->nnbins++] = 700;
        cs->nbins[cs->nnbins++] = 2048;
        if (nmax >= 64)
            cs->nbins[cs->nnbins++] = nmax - nmax / 4;
    }
    cs->nsizes = !context->shape.cpu ? 5 : 4;
    memcpy(cs->sizes, sizes, cs->nsizes * sizeof sizes[0]);
    cs->netas = 4;
    memcpy(cs->etas, etas, sizeof etas);
    cs->located = quick ? 3 : 4;
    cs->diagonal = quick;
    cs->vary_local = 1;
}

/* Held out: other G (SM / 2, SM + 1, 3 SM / 2, and 48 beyond 2 SM), N, sizes and eta than
 * training's. */
static void
evaluation_set(const votecl_context *context, int quick, case_set *cs)
{
    static const size2 sizes[] = {{200, 150}, {480, 360}, {800, 600}, {1280, 720}};
    static const double etas[] = {0.03, 0.08, 0.15, 0.35};
    unsigned sm = context->info.compute_units > 0 ? context->info.compute_units : 1;
    uint32_t nmax = nmax_of(context);

    memset(cs, 0, sizeof *cs);
    add_unique(cs->spaces, &cs->nspaces, sm / 2 > 0 ? sm / 2 : 1);
    add_unique(cs->spaces, &cs->nspaces, sm + 1);
    add_unique(cs->spaces, &cs->nspaces, (3 * sm + 1) / 2);
    if (!quick && 2 * sm < 48) /* as training's 64: a Hough's G on a CPU */
        add_unique(cs->spaces, &cs->nspaces, 48);
    cs->nbins[cs->nnbins++] = 64;
    cs->nbins[cs->nnbins++] = 1000;
    cs->nbins[cs->nnbins++] = 10000;
    if (!quick && nmax >= 64)
        cs->nbins[cs->nnbins++] = nmax + nmax / 3;
    cs->nsizes = 4;
    memcpy(cs->sizes, sizes, sizeof sizes);
    cs->netas = 4;
    memcpy(cs->etas, etas, sizeof etas);
    cs->located = quick ? 2 : 3;
    cs->diagonal = quick;
}

static int
list_push(case_list *list, const cal_case *c)
{
    if (votecl__grow((void **)&list->items, &list->capacity, list->count + 1, sizeof *list->items,
                     64) != 0)
        return -1;
    list->items[list->count++] = *c;
    return 0;
}

/* The cases of one (strategy, G, N) pair, number p of the set: the (size, eta) combinations
 * rotate with p so that every size meets every eta somewhere. Large vote spaces stay within
 * a budget of bins. */
static int
pair_cases(const case_set *cs, votecl_variant v, unsigned g, uint32_t n, unsigned p,
           case_list *list)
{
    static const unsigned groups[] = {4, 1, 2, 8};
    cal_case c = {.variant = v, .spaces = g, .nbins = n, .location = 1};

    if ((uint64_t)g * n > VOTECL_VOTE_MAX_BINS / 16 || 2 * (size_t)g + 2 > VOTECL_VOTE_MAX_TABLE)
        return 0;
    for (unsigned k = 0; k < cs->located; k++) {
        c.size = cs->sizes[(p + k) % cs->nsizes];
        c.eta = cs->etas[(p + 3 * k) % cs->netas];
        /* The local plans the model chooses among (tune_local in vote.c): P through the
         * groups per compute unit, and a smaller S' on every fourth case. */
        if (cs->vary_local && v == VOTECL_VARIANT_LOCAL) {
            c.groups = groups[(p + k) % 4];
            c.stretch = k == 3 ? 2u << (p % 3) : 0;
        }
        if (list_push(list, &c) != 0)
            return -1;
    }
    if (p % 2 == 1)
        return 0;
    c.groups = cs->vary_local && v == VOTECL_VARIANT_LOCAL ? 4 : 0;
    c.stretch = 0;
    c.location = 0;
    c.size = cs->sizes[(p / 2) % cs->nsizes];
    c.eta = 1.0;
    return list_push(list, &c);
}

static int
build_cases(const case_set *cs, unsigned variants, case_list *list)
{
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++) {
        unsigned p = 0;
        if (!(variants & (1u << v)))
            continue;
        for (unsigned i = 0; i < cs->nspaces; i++)
            for (unsigned j = 0; j < cs->nnbins; j++) {
                if (cs->diagonal && i != j % cs->nspaces)
                    continue;
                if (pair_cases(cs, (votecl_variant)v, cs->spaces[i], cs->nbins[j], p++, list))
                    return -1;
            }
    }
    return 0;
}

static unsigned
supported_variants(const votecl_context *context, unsigned requested)
{
    const votecl_device_info *info = &context->info;
    unsigned mask = 1u << VOTECL_VARIANT_PRIVATE;

    if (info->local_atomics && info->local_mem_bytes >= 4)
        mask |= 1u << VOTECL_VARIANT_LOCAL;
    if (info->global_atomics)
        mask |= 1u << VOTECL_VARIANT_GLOBAL;
    return requested != 0 ? mask & requested : mask;
}

/* --- running the cases --- */

/* A u8 image whose pixels are set (non-zero) with probability eta; xorshift64* with a fixed
 * seed, so that every calibration sees the same images. */
static void
synth_image(uint8_t *pixels, size_t count, double eta, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    uint64_t threshold = (uint64_t)(eta * 4294967296.0);

    for (size_t i = 0; i < count; i++) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        uint64_t r = x * 0x2545F4914F6CDD1Dull;
        pixels[i] = (r >> 32) < threshold ? (uint8_t)(r | 1) : 0;
    }
}

/* cos and sin of G angles over [0, pi). table: 2 G floats. */
static void
angle_table(float *table, unsigned spaces)
{
    for (unsigned g = 0; g < spaces; g++) {
        double theta = 3.14159265358979323846 * g / spaces;
        table[2 * g] = (float)cos(theta);
        table[2 * g + 1] = (float)sin(theta);
    }
}

static votecl_status
plan_for(runner *r, const cal_case *c, votecl_vote_plan **plan)
{
    votecl_vote_spec spec;
    float *table = votecl__malloc(2 * (size_t)c->spaces * sizeof *table);
    votecl_status status;
    int saved_groups;

    if (table == NULL)
        return votecl__fail(r->context, VOTECL_OUT_OF_HOST_MEMORY, "calibration table");
    angle_table(table, c->spaces);
    votecl_vote_spec_init(&spec);
    spec.dtype = VOTECL_DTYPE_U8;
    spec.channels = 1;
    spec.bin_type = VOTECL_BINS_UNITY;
    spec.spaces = c->spaces;
    spec.nbins = c->nbins;
    spec.source = c->location ? calibrate_source : calibrate_value_source;
    spec.table = table;
    spec.table_size = 2 * (size_t)c->spaces;
    spec.variant = c->variant;
    spec.stretch = c->stretch;
    /* Training times the configurations it names, never ones an earlier model tuned: the
     * groups per compute unit are fixed (VOTECL_LOCAL_GROUPS's field, which also keeps
     * tune_local out). Held-out runs take the plan's own choice, as an application would. */
    saved_groups = r->context->local_groups;
    if (c->groups > 0)
        r->context->local_groups = (int)c->groups + 1;
    status = votecl_vote_plan_new(r->context, &spec, plan);
    r->context->local_groups = saved_groups;
    free(table);
    return status;
}

/* One warm-up (the image just changed), then runs until MIN_ROUND_SECONDS have passed (at
 * most MAX_ROUND_RUNS); the fastest counts. */
static votecl_status
time_round(runner *r, votecl_vote_plan *plan, const cal_case *c, votecl_buffer *bins,
           double *seconds)
{
    double best = INFINITY, total = 0.0;
    votecl_status status;

    for (unsigned i = 0; i < 2 || (total < MIN_ROUND_SECONDS && i <= MAX_ROUND_RUNS); i++) {
        double t0 = now_seconds(), t;
        status = votecl_vote_run_buffers(plan, r->image, c->size.width, c->size.height, bins);
        if (status == VOTECL_OK)
            status = votecl_context_finish(r->context);
        if (status != VOTECL_OK)
            return status;
        t = now_seconds() - t0;
        if (i == 0)
            continue;
        total += t;
        best = t < best ? t : best;
    }
    *seconds = best;
    return VOTECL_OK;
}

/* Times case c once more; the first round also records what the plan did. */
static votecl_status
run_case(runner *r, const plan_slot *slot, const cal_case *c, int first_round,
         votecl_model_sample *sample)
{
    size_t e = (size_t)c->size.width * c->size.height;
    votecl_vote_stats stats;
    votecl_vote_plan_info info;
    double seconds = 0.0;
    votecl_status status;

    synth_image(r->host, e, c->eta, e * 31 + c->spaces * 7 + c->nbins);
    status = votecl_buffer_write(r->image, 0, r->host, e);
    if (status == VOTECL_OK)
        status = time_round(r, slot->plan, c, slot->bins, &seconds);
    if (status != VOTECL_OK || !first_round) {
        sample->seconds = seconds < sample->seconds ? seconds : sample->seconds;
        return status;
    }
    status = votecl_vote_plan_last_stats(slot->plan, &stats);
    if (status == VOTECL_OK)
        status = votecl_vote_plan_describe(slot->plan, e, &info);
    if (status != VOTECL_OK)
        return status;
    votecl_model_sample_from_info(&info, r->context->info.compute_units, c->location,
                                  (double)e, c->location ? stats.eta : 1.0, sample);
    sample->seconds = seconds;
    return VOTECL_OK;
}

static int
same_plan(const cal_case *a, const cal_case *b)
{
    return a->variant == b->variant && a->spaces == b->spaces && a->nbins == b->nbins &&
           a->location == b->location && a->groups == b->groups && a->stretch == b->stretch;
}

/* Plans (and bins) for the cases [first, end), which come grouped by plan; slot[i - first]
 * serves case i. */
static votecl_status
open_slots(runner *r, const case_list *list, size_t first, size_t end, plan_slot *slots)
{
    votecl_status status = VOTECL_OK;

    for (size_t i = first; i < end && status == VOTECL_OK; i++) {
        const cal_case *c = &list->items[i];
        if (i > first && same_plan(c, &list->items[i - 1])) {
            slots[i - first] = slots[i - first - 1];
            continue;
        }
        status = plan_for(r, c, &slots[i - first].plan);
        if (status == VOTECL_OK)
            status = votecl_buffer_new(r->context, (size_t)c->spaces * c->nbins * 4,
                                       &slots[i - first].bins);
    }
    return status;
}

static void
close_slots(const case_list *list, size_t first, size_t end, plan_slot *slots)
{
    for (size_t i = first; i < end; i++) {
        if (i > first && same_plan(&list->items[i], &list->items[i - 1]))
            continue;
        votecl_buffer_free(slots[i - first].bins);
        votecl_vote_plan_free(slots[i - first].plan);
    }
}

/* The cases of one strategy, [first, end), in rounds: every case once per round, so that a
 * spell of load from other processes slows one round of many cases rather than every run of
 * a few; the fastest round counts. */
static votecl_status
run_strategy(runner *r, const case_list *list, size_t first, size_t end)
{
    plan_slot *slots = votecl__calloc(end - first, sizeof *slots);
    votecl_status status;

    if (slots == NULL)
        return votecl__fail(r->context, VOTECL_OUT_OF_HOST_MEMORY, "calibration plans");
    status = open_slots(r, list, first, end, slots);
    for (unsigned round = 0; round < r->repeats && status == VOTECL_OK; round++)
        for (size_t i = first; i < end && status == VOTECL_OK; i++) {
            status = run_case(r, &slots[i - first], &list->items[i], round == 0,
                              &r->samples[i]);
            r->done++;
            if (status == VOTECL_OK && r->options->progress != NULL)
                r->options->progress(r->options->progress_user, (unsigned)r->done,
                                     (unsigned)(list->count * r->repeats));
        }
    if (status == VOTECL_OK)
        r->nsamples = end;
    close_slots(list, first, end, slots);
    free(slots);
    return status;
}

static size_t
largest_image(const case_list *list)
{
    size_t most = 1;
    for (size_t i = 0; i < list->count; i++) {
        size_t e = (size_t)list->items[i].size.width * list->items[i].size.height;
        most = e > most ? e : most;
    }
    return most;
}

static votecl_status
run_cases(runner *r, const case_list *list)
{
    votecl_status status = VOTECL_OK;

    r->image_bytes = largest_image(list);
    r->samples = votecl__calloc(list->count > 0 ? list->count : 1, sizeof *r->samples);
    r->host = votecl__malloc(r->image_bytes);
    if (r->samples == NULL || r->host == NULL)
        return votecl__fail(r->context, VOTECL_OUT_OF_HOST_MEMORY, "calibration samples");
    status = votecl_buffer_new(r->context, r->image_bytes, &r->image);
    for (size_t i = 0, end; status == VOTECL_OK && i < list->count; i = end) {
        for (end = i + 1; end < list->count && list->items[end].variant == list->items[i].variant;)
            end++;
        status = run_strategy(r, list, i, end);
    }
    return status;
}

static void
runner_release(runner *r)
{
    votecl_buffer_free(r->image);
    free(r->host);
    free(r->samples);
}

static void
copy_samples(const runner *r, const votecl_calibrate_options *options,
             votecl_calibrate_report *report)
{
    size_t n = r->nsamples < options->samples_capacity ? r->nsamples : options->samples_capacity;
    if (options->samples != NULL && n > 0)
        memcpy(options->samples, r->samples, n * sizeof *r->samples);
    report->cases = r->nsamples;
}

/* Validates and resolves the options; builds the case list of set for the strategies. */
static votecl_status
prepare(votecl_context *context, const votecl_calibrate_options *options, unsigned variants,
        int evaluate, runner *r, case_list *list)
{
    case_set cs;

    memset(r, 0, sizeof *r);
    memset(list, 0, sizeof *list);
    r->context = context;
    r->options = options;
    r->repeats = options->repeats > 0 ? options->repeats : options->quick ? 3 : 5;
    if (r->repeats > MAX_REPEATS)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "repeats: at most %d",
                            MAX_REPEATS);
    if (options->samples == NULL && options->samples_capacity > 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "samples: NULL with samples_capacity %zu", options->samples_capacity);
    if (evaluate)
        evaluation_set(context, options->quick, &cs);
    else
        training_set(context, options->quick, &cs);
    if (build_cases(&cs, variants, list) != 0)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "calibration cases");
    return VOTECL_OK;
}

static votecl_status
fit_all(votecl_context *context, const runner *r, unsigned variants, votecl_model *model)
{
    int fitted = 0;

    memset(model, 0, sizeof *model);
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++) {
        votecl_status status;
        if (!(variants & (1u << v)))
            continue;
        status = votecl_model_fit(r->samples, r->nsamples, (votecl_variant)v,
                                  &model->strategy[v]);
        if (status == VOTECL_OUT_OF_HOST_MEMORY)
            return votecl__fail(context, status, "out of memory fitting the model");
        fitted += status == VOTECL_OK;
    }
    if (fitted == 0)
        return votecl__fail(context, VOTECL_UNSUPPORTED,
                            "calibration: no strategy could be fitted from %zu runs",
                            r->nsamples);
    return VOTECL_OK;
}

/* The opening of calibrate and evaluate: the arguments checked, the report cleared, the
 * options (the defaults, in *defaults, for NULL) checked. */
static votecl_status
begin_report(votecl_context *context, const votecl_calibrate_options **options,
             votecl_calibrate_options *defaults, votecl_calibrate_report *report)
{
    if (context == NULL || report == NULL)
        return context ? votecl__fail(context, VOTECL_INVALID_ARGUMENT, "report: NULL")
                       : VOTECL_INVALID_ARGUMENT;
    memset(report, 0, sizeof *report);
    if (*options == NULL) {
        votecl_calibrate_options_init(defaults);
        *options = defaults;
    }
    return votecl__struct_size_check(context, *options, "options", sizeof **options);
}

votecl_status
votecl_model_calibrate(votecl_context *context, const votecl_calibrate_options *options,
                       votecl_calibrate_report *report)
{
    votecl_calibrate_options defaults;
    double t0 = now_seconds();
    unsigned variants;
    runner r;
    case_list list;
    votecl_status status;

    if ((status = begin_report(context, &options, &defaults, report)) != VOTECL_OK)
        return status;
    variants = supported_variants(context, options->variants);
    status = prepare(context, options, variants, 0, &r, &list);
    if (status == VOTECL_OK)
        status = run_cases(&r, &list);
    if (status == VOTECL_OK)
        status = fit_all(context, &r, variants, &report->model);
    if (status == VOTECL_OK && options->store) {
        status = votecl_model_store(context, &report->model);
        report->stored = status == VOTECL_OK;
    }
    copy_samples(&r, options, report);
    report->seconds = now_seconds() - t0;
    runner_release(&r);
    free(list.items);
    return status;
}

/* Accumulated relative errors, overall (index 0) and per strategy. */
typedef struct error_sums {
    double sum[4], max;
    size_t count[4], within[4];
} error_sums;

static void
add_error(error_sums *e, votecl_variant v, double err)
{
    for (int k = 0; k < 2; k++) {
        int i = k == 0 ? 0 : (int)v;
        e->sum[i] += err;
        e->count[i]++;
        e->within[i] += err <= 0.10;
    }
    e->max = err > e->max ? err : e->max;
}

/* Whether s ran the strategy that the model picks for its G, N, E and eta. */
static int
picked(votecl_context *context, const votecl_model *model, const votecl_model_sample *s)
{
    return votecl__model_choose_with(context, model, s->nbins, s->spaces, (size_t)s->elements,
                                     s->location_based ? s->eta : 1.0) == s->variant;
}

static void
summarise(const runner *r, const votecl_model *model, votecl_calibrate_report *report)
{
    error_sums e;
    double picked_sum = 0.0;
    size_t picked_within = 0;

    memset(&e, 0, sizeof e);
    for (size_t i = 0; i < r->nsamples; i++) {
        double predicted, err;
        const votecl_model_sample *s = &r->samples[i];
        if (votecl_model_predict(model, s, &predicted) != VOTECL_OK)
            continue;
        err = fabs(predicted - s->seconds) / s->seconds;
        add_error(&e, s->variant, err);
        if (picked(r->context, model, s)) {
            report->picked_cases++;
            picked_sum += err;
            picked_within += err <= 0.10;
        }
    }
    if (report->picked_cases > 0) {
        report->picked_mean_abs_error = picked_sum / (double)report->picked_cases;
        report->picked_within_10 = (double)picked_within / (double)report->picked_cases;
    }
    for (int i = 0; i < 4; i++) {
        double mean = e.count[i] ? e.sum[i] / (double)e.count[i] : 0.0;
        double within = e.count[i] ? (double)e.within[i] / (double)e.count[i] : 0.0;
        if (i == 0) {
            report->mean_abs_error = mean;
            report->within_10 = within;
        } else {
            report->strategy_mean_abs_error[i] = mean;
            report->strategy_within_10[i] = within;
        }
    }
    report->max_abs_error = e.max;
}

static unsigned
fitted_variants(const votecl_model *model, unsigned requested)
{
    unsigned mask = 0;
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++)
        if (model->strategy[v].fitted)
            mask |= 1u << v;
    return requested != 0 ? mask & requested : mask;
}

votecl_status
votecl_model_evaluate(votecl_context *context, const votecl_model *model,
                      const votecl_calibrate_options *options, votecl_calibrate_report *report)
{
    votecl_calibrate_options defaults;
    double t0 = now_seconds();
    unsigned variants;
    runner r;
    case_list list;
    votecl_status status;

    if ((status = begin_report(context, &options, &defaults, report)) != VOTECL_OK)
        return status;
    if (model != NULL)
        report->model = *model;
    else if ((status = votecl_model_load(context, &report->model)) != VOTECL_OK)
        return status;
    variants = supported_variants(context, fitted_variants(&report->model, options->variants));
    if (variants == 0)
        return votecl__fail(context, VOTECL_UNSUPPORTED, "model: no strategy is fitted");
    status = prepare(context, options, variants, 1, &r, &list);
    if (status == VOTECL_OK)
        status = run_cases(&r, &list);
    if (status == VOTECL_OK)
        summarise(&r, &report->model, report);
    copy_samples(&r, options, report);
    report->seconds = now_seconds() - t0;
    runner_release(&r);
    free(list.items);
    return status;
}
