/* The voting engine, stage 2 (GPU-vote sections 3.2-3.3): strategy choice from device facts,
 * bin stretching, input split, passes, and the launches of cl/vote.cl. */
#include "vote-private.h"

#include <stdio.h>
#include <string.h>

/* Host-side ceiling on replicated copies, so that big vote spaces stay within memory. */
#define COPY_BUDGET_BYTES ((uint64_t)256 << 20)

void
votecl__stretch_factors(uint64_t nmax, uint64_t n, unsigned *s, unsigned *s_prime)
{
    /* GPU-vote Eq. 3 */
    uint64_t stretch = n > 0 && nmax / n > 1 ? nmax / n : 1;

    if (stretch > UINT32_MAX)
        stretch = UINT32_MAX;
    *s = (unsigned)stretch;
    /* Eq. 5: odd stretch factors avoid bank conflicts once S >= 64 */
    *s_prime = *s < 64 ? *s : *s - (1 - *s % 2);
}

static unsigned
min_u(uint64_t a, uint64_t b)
{
    return (unsigned)(a < b ? a : b);
}

static votecl_variant
auto_variant(const votecl_context *context, uint64_t nbins)
{
    const votecl_device_info *info = &context->info;
    uint64_t nmax = info->local_mem_bytes / 4;

    /* On CPUs local memory is ordinary memory and atomics are slow: every work-item owns
     * its bins instead, as long as the copies stay small. */
    if (context->shape.cpu)
        return nbins <= (1u << 20) ? VOTECL_VARIANT_PRIVATE : VOTECL_VARIANT_GLOBAL;
    /* GPU-vote Fig. 3: on-chip voting wins until the passes pile up; global atomics win
     * for very large vote spaces. */
    if (info->local_atomics && nmax > 0 && (nbins + nmax - 1) / nmax <= 4)
        return VOTECL_VARIANT_LOCAL;
    return VOTECL_VARIANT_GLOBAL;
}

/* Warp-level match (inline PTX or CUDA's __match_any_sync) needs NVIDIA warps of 32; the
 * shape says whether the device has it and the profile left it. */
static int
has_warp_match(const votecl_context *context)
{
    return (context->shape.features & VOTECL__FEATURE_WARP_MATCH) != 0;
}

/* vote_local's refinements: aggregated votes (LOCAL_AGG, unity vector votes only) and the
 * merge fused into the last group. VOTECL_LOCAL_AGG / VOTECL_FUSED_MERGE override the
 * defaults, which come from the H200 measurements in docs/performance.md. */
static votecl_status
configure_refinements(votecl_context *context, votecl__vote_config *cfg)
{
    int vector_unity = cfg->kind == 0 && cfg->vec > 1;

    cfg->local_agg = 0;
    if (context->local_agg > 0)
        cfg->local_agg = vector_unity ? context->local_agg - 1 : 0;
    if ((cfg->local_agg & 2) && !has_warp_match(context))
        return votecl__fail(context, VOTECL_UNSUPPORTED,
                            "VOTECL_LOCAL_AGG: warp aggregation (2) needs warp match (an "
                            "NVIDIA device of sm_70 or later, warp-match not disabled)");
    /* The last group merges alone: worth a launch only while each of its work-items folds
     * a few bins (a histogram's 256); the merge kernel spreads Hough's thousands of bins
     * per space over the whole device (Hough 64 x 4200 on an H200: 46.9 us fused, 40.1 us
     * with the merge kernel in an earlier run). */
    cfg->fused = cfg->nbins <= 4 * (uint64_t)cfg->wg;
    if (context->fused_merge > 0)
        cfg->fused = context->fused_merge - 1;
    /* Measured on an H200 (docs/performance.md): with the loads software-pipelined, 4 in
     * flight per work-item, one group of 512 per compute unit beats 2-6 groups of 256 (fewer
     * copies to zero, fold and merge) and every other (loads, groups, size) tried. */
    cfg->loads = cfg->pipelined ? 4 : 0;
    cfg->groups_per_cu = cfg->pipelined ? 1 : 4;
    if (context->local_loads > 0)
        cfg->loads = (unsigned)context->local_loads - 1;
    if (context->local_groups > 1)
        cfg->groups_per_cu = (unsigned)context->local_groups - 1;
    return VOTECL_OK;
}

/* Whether the fused merge's flag fits beside S' copies of a pass's bins in local memory (u16
 * with 4096 bins and S' 3 on a 48 KiB device: CUDA refused 0xc004 bytes of 0xc000); where
 * it does not, the merge kernel folds the copies instead. */
static int
fused_fits(const votecl_context *context, const votecl__vote_config *cfg)
{
    return ((uint64_t)cfg->npass * cfg->stretch + 1) * 4 <= context->info.local_mem_bytes;
}

/* S' and the groups per compute unit (hence P) that the device's model predicts fastest,
 * among powers of two up to stretch_max and 1, 2, 4 or 8 groups, for a local plan whose S'
 * the caller left to the library. Uncalibrated devices keep the rules above, and so do the
 * histograms' pipelined vector votes: their settings were measured over adversarial data
 * (a warp of equal values), which the model's Hough-like training votes do not contain. */
static void
tune_local(votecl_context *context, unsigned spaces, unsigned stretch_max,
           votecl__vote_config *cfg)
{
    static const unsigned groups[] = {1, 2, 4, 8};
    int fused_wanted = cfg->fused;
    votecl__vote_config best = *cfg, c;
    votecl_model model;
    double best_seconds, t;

    if (!fused_fits(context, cfg))
        best.fused = 0;
    if (context->model->get(context, &model) != 0 ||
        context->model->predict_config(context, &model, &best, spaces, &best_seconds) != 0)
        return;
    for (unsigned s = 1; s <= stretch_max; s = 2 * s > stretch_max ? stretch_max : 2 * s) {
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
            c = *cfg;
            c.stretch = s;
            c.groups_per_cu = groups[g];
            c.fused = fused_wanted && fused_fits(context, &c);
            if (context->model->predict_config(context, &model, &c, spaces, &t) == 0 &&
                t < best_seconds) {
                best_seconds = t;
                best = c;
            }
        }
        if (s == stretch_max)
            break;
    }
    *cfg = best;
}

static votecl_status
configure_local(votecl_context *context, unsigned stretch_cap, unsigned spaces,
                votecl__vote_config *cfg)
{
    uint64_t nmax;
    unsigned s, s_prime, eff, eff_max;
    votecl_status status;

    if ((status = configure_refinements(context, cfg)) != VOTECL_OK)
        return status;
    nmax = context->info.local_mem_bytes / 4;
    if (!context->info.local_atomics || nmax == 0)
        return votecl__fail(context, VOTECL_UNSUPPORTED,
                            "variant: the local strategy needs local memory atomics");
    if (nmax > UINT32_MAX)
        nmax = UINT32_MAX;
    votecl__stretch_factors(nmax, cfg->nbins, &s, &s_prime);
    /* Work-item t votes into copy t mod S mod S': no more than WG copies are ever used. */
    eff = eff_max = min_u(s_prime, cfg->wg);
    if (stretch_cap > 0) {
        eff = min_u(eff, stretch_cap); /* the caller's S', taken as given */
    } else if (!context->shape.cpu && eff > context->shape.banks) {
        /* Measured on an H200 (docs/performance.md): S' = 32 = the bank count puts work-item
         * t's copy of every bin in bank t mod 32, so neither equal nor random values
         * conflict; the paper's odd S' (tuned on Fermi) leaves random data conflicting and
         * larger S' only costs occupancy and merge time. */
        eff = context->shape.banks;
    } else if (eff >= 64 && eff % 2 == 0) {
        eff--;
    }
    cfg->nmax = (uint32_t)nmax;
    cfg->stretch_s = s;
    cfg->stretch = eff;
    cfg->npass = (uint32_t)(cfg->nbins <= nmax ? cfg->nbins : nmax);
    cfg->passes = (unsigned)((cfg->nbins + cfg->npass - 1) / cfg->npass);
    if (stretch_cap == 0 && !cfg->pipelined && context->local_groups == 0)
        tune_local(context, spaces, eff_max, cfg);
    if (cfg->fused && !fused_fits(context, cfg))
        cfg->fused = 0;
    return VOTECL_OK;
}

/* Private copies live in local memory where it is on chip and holds at least 32 work-items'
 * copies of 16-bit counters (unity votes only): work-item t's counters sit in bank t mod 32,
 * so no data distribution conflicts and no atomics are needed. Elsewhere (CPUs) every
 * work-item owns PRIV_COPIES sub-histograms in global memory. */
static votecl_status
configure_private(votecl_context *context, unsigned wg, votecl__vote_config *cfg)
{
    const votecl_device_info *info = &context->info;
    uint64_t words = (cfg->nbins + 1) / 2, fit = words > 0 ? info->local_mem_bytes / (words * 4) : 0;
    size_t max_wg = info->max_work_group_size > 0 ? info->max_work_group_size : 1;

    cfg->priv_local = !context->shape.cpu && cfg->kind == 0 && cfg->vec > 1 && fit >= 32;
    if (cfg->priv_local) {
        /* whole wavefronts where they fit (GCN's 64: a group of 96 leaves half of one idle) */
        unsigned granule =
            context->shape.simd > 32 && fit >= context->shape.simd ? context->shape.simd : 32;
        cfg->wg = min_u(min_u(fit - fit % granule, 256), max_wg);
        if (wg > 0 && wg <= cfg->wg)
            cfg->wg = wg;
        return VOTECL_OK;
    }
    cfg->wg = min_u(max_wg, wg > 0 ? wg : !context->shape.cpu ? 64 : 1);
    cfg->priv_copies = cfg->vec > 1 && cfg->nbins <= 4096 ? 4 : 1;
    return VOTECL_OK;
}

/* The plan under VOTECL_DEBUG, one line per configuration (docs/profiles.md collects them). */
static void
log_config(const votecl_context *context, const votecl__vote_config *cfg)
{
    votecl__log(context,
                "plan: vote %s, N %llu, wg %u, merge wg %u, Nmax %u, S %u, S' %u, passes %u, "
                "private copies %u%s%s, loads %u, groups/CU %u",
                votecl_variant_name(cfg->variant), (unsigned long long)cfg->nbins, cfg->wg,
                cfg->merge_wg, cfg->nmax, cfg->stretch_s, cfg->stretch, cfg->passes,
                cfg->priv_copies, cfg->priv_local ? " (local)" : "", cfg->fused ? ", fused" : "",
                cfg->loads, cfg->groups_per_cu);
}

votecl_status
votecl__vote_configure(votecl_context *context, votecl_variant requested, unsigned stretch_cap,
                       unsigned wg, const votecl__vote_shape *shape, votecl__vote_config *cfg)
{
    const votecl_device_info *info = &context->info;
    size_t max_wg = info->max_work_group_size > 0 ? info->max_work_group_size : 1;
    int gpu = !context->shape.cpu;
    votecl_status status = VOTECL_OK;

    memset(cfg, 0, sizeof *cfg);
    cfg->nbins = shape->nbins;
    cfg->kind = shape->kind;
    cfg->frames = shape->frames;
    cfg->finish = shape->finish;
    cfg->vec = shape->vec;
    cfg->elem_bytes = shape->elem_bytes;
    cfg->variant = requested != VOTECL_VARIANT_AUTO ? requested : context->force_variant;
    if (cfg->variant == VOTECL_VARIANT_AUTO) /* a calibrated device: the model decides */
        cfg->variant = context->model->choose(context, shape->nbins,
                                              shape->spaces > 0 ? shape->spaces : 1, 0, 0.0);
    if (cfg->variant == VOTECL_VARIANT_AUTO)
        cfg->variant = auto_variant(context, shape->nbins);
    cfg->stretch = cfg->stretch_s = cfg->passes = cfg->priv_copies = 1;
    cfg->merge_wg = min_u(max_wg, 256);
    switch (cfg->variant) {
    case VOTECL_VARIANT_LOCAL:
        /* 256, or 512 when pipelined: the best worst cases over data distributions on an
         * H200 (docs/performance.md) */
        cfg->pipelined = shape->unpack && shape->kind == 0 && shape->vec > 1 && gpu;
        cfg->wg = min_u(max_wg, wg > 0 ? wg : gpu ? (cfg->pipelined ? 512 : 256) : 64);
        status = configure_local(context, stretch_cap, shape->spaces > 0 ? shape->spaces : 1, cfg);
        break;
    case VOTECL_VARIANT_GLOBAL:
        cfg->wg = min_u(max_wg, wg > 0 ? wg : gpu ? 256 : 64);
        break;
    case VOTECL_VARIANT_PRIVATE:
        status = configure_private(context, wg, cfg);
        break;
    default:
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "variant: unknown value %d",
                            (int)cfg->variant);
    }
    if (status == VOTECL_OK)
        log_config(context, cfg);
    return status;
}

size_t
votecl__vote_defines(const votecl__vote_config *cfg, char defs[][64])
{
    size_t n = 0;

    snprintf(defs[n++], 64, "WG=%u", cfg->wg);
    snprintf(defs[n++], 64, "MERGE_WG=%u", cfg->merge_wg);
    snprintf(defs[n++], 64, "NBINS=%lluu", (unsigned long long)cfg->nbins);
    snprintf(defs[n++], 64, "VOTE_KIND=%d", cfg->kind);
    snprintf(defs[n++], 64, "VOTE_FRAMES=%d", cfg->frames);
    snprintf(defs[n++], 64, "VOTE_VEC=%u", cfg->vec);
    snprintf(defs[n++], 64, "PRIV_COPIES=%uu", cfg->priv_copies);
    if (cfg->priv_local)
        snprintf(defs[n++], 64, "PRIV_LOCAL=1");
    if (cfg->variant == VOTECL_VARIANT_LOCAL) {
        snprintf(defs[n++], 64, "NPASS=%uu", cfg->npass);
        snprintf(defs[n++], 64, "STRETCH=%uu", cfg->stretch);
        snprintf(defs[n++], 64, "STRETCH_S=%uu", cfg->stretch_s);
        snprintf(defs[n++], 64, "ONE_PASS=%d", cfg->passes == 1);
        snprintf(defs[n++], 64, "LOCAL_AGG=%d", cfg->local_agg);
        snprintf(defs[n++], 64, "FUSED_MERGE=%d", cfg->fused);
        snprintf(defs[n++], 64, "LOCAL_LOADS=%u", cfg->loads);
    }
    return n;
}

static const char *
vote_kernel_name(votecl_variant variant)
{
    return variant == VOTECL_VARIANT_LOCAL    ? "vote_local"
           : variant == VOTECL_VARIANT_GLOBAL ? "vote_global"
                                              : "vote_private";
}

static const char *
engine_kernel_name(const votecl__vote_config *cfg)
{
    return cfg->priv_local ? "vote_private_local" : vote_kernel_name(cfg->variant);
}

votecl_status
votecl__vote_engine_init(votecl__vote_engine *engine, votecl_context *context,
                         const votecl__vote_config *cfg, votecl__program *program)
{
    votecl_status status;

    memset(engine, 0, sizeof *engine);
    engine->context = context;
    engine->cfg = *cfg;
    status = votecl__program_kernel(context, program, engine_kernel_name(cfg), &engine->k_vote);
    if (status == VOTECL_OK)
        status = votecl__program_kernel(context, program, "vote_merge", &engine->k_merge);
    return status;
}

void
votecl__vote_engine_release(votecl__vote_engine *engine)
{
    votecl_buffer_free(engine->partials);
    engine->partials = NULL;
    votecl_buffer_free(engine->tickets);
    engine->tickets = NULL;
}

typedef struct layout {
    int use_vec;
    size_t nvec;    /* vectors per frame */
    unsigned parts; /* P: input parts per vote space (and pass) */
    unsigned copies; /* partial vote spaces per space that the merge folds */
} layout;

static unsigned
clamp_parts(uint64_t want, uint64_t most)
{
    if (want > most)
        want = most;
    if (want < 1)
        want = 1;
    return (unsigned)(want > 65535 ? 65535 : want);
}

/* GPU-vote Eq. 8, generalised: enough work-groups per space and pass to fill the compute
 * units a few times over, but never more than there is input for. */
static layout
plan_layout(const votecl__vote_engine *engine, size_t n, size_t frames)
{
    const votecl__vote_config *cfg = &engine->cfg;
    const votecl_device_info *info = &engine->context->info;
    uint64_t cu = info->compute_units > 0 ? info->compute_units : 1;
    uint64_t spaces = frames > 0 ? frames : 1, items, copy_bytes;
    layout l = {0};

    /* frames after the first start at a 16-byte boundary and at a whole vector */
    l.use_vec = cfg->vec > 1 && cfg->kind == 0 &&
                (frames <= 1 || ((n * cfg->elem_bytes) % 16 == 0 && n % cfg->vec == 0));
    l.nvec = l.use_vec ? n / cfg->vec : 0;
    items = l.use_vec ? l.nvec + n % cfg->vec : n;
    copy_bytes = spaces * cfg->nbins * 4;
    switch (cfg->variant) {
    case VOTECL_VARIANT_LOCAL:
        /* Four groups per compute unit measured best on an H200: more resident groups only
         * contend for the local atomic units. Each work-item gets at least 4 loads, so that
         * small inputs do not pay for zeroing, folding and merging hundreds of copies. */
        l.parts = clamp_parts(cu * cfg->groups_per_cu / (spaces * cfg->passes),
                              (items + 4 * cfg->wg - 1) / (4 * cfg->wg));
        l.copies = l.parts;
        break;
    case VOTECL_VARIANT_GLOBAL:
        l.parts = clamp_parts(cu * 4 / spaces, (items + cfg->wg - 1) / cfg->wg);
        l.copies = clamp_parts(COPY_BUDGET_BYTES / copy_bytes, l.parts < 8 ? l.parts : 8);
        break;
    default:
        if (cfg->priv_local) {
            /* As local; and at most 65535 elements per work-item, so that no 16-bit
             * counter can wrap. */
            l.parts = clamp_parts(cu * 4 / spaces, (items + 4 * cfg->wg - 1) / (4 * cfg->wg));
            if ((uint64_t)l.parts * cfg->wg * 65535 < n)
                l.parts = clamp_parts((n + (uint64_t)cfg->wg * 65535 - 1) /
                                          ((uint64_t)cfg->wg * 65535), 65535);
            l.copies = l.parts;
            break;
        }
        /* Each part owns a copy: fill the cores, with at least 4096 elements each. */
        l.parts = clamp_parts(cu * 4 / spaces, (n + 4095) / 4096);
        l.parts = clamp_parts(COPY_BUDGET_BYTES / (copy_bytes * cfg->priv_copies), l.parts);
        l.copies = l.parts * cfg->priv_copies;
        break;
    }
    return l;
}

static votecl_status
launch_vote(votecl__vote_engine *engine, const layout *l, const votecl__vote_input *in,
            votecl_buffer *target, votecl_buffer *result)
{
    const votecl__vote_config *cfg = &engine->cfg;
    unsigned nargs = 11;
    votecl__arg args[13] = {
        VOTECL__ARG_BUF(in->x),    VOTECL__ARG_BUF(in->y),      VOTECL__ARG_BUF(in->w),
        VOTECL__ARG_BUF(in->aux),  VOTECL__ARG_BUF(in->count),  VOTECL__ARG_UINT(in->n),
        VOTECL__ARG_UINT(l->nvec), VOTECL__ARG_UINT(in->width), VOTECL__ARG_UINT(l->parts)};
    size_t local = cfg->wg, global, spaces = in->spaces;

    switch (cfg->variant) {
    case VOTECL_VARIANT_LOCAL:
        global = spaces * cfg->passes * l->parts * local;
        args[9] = VOTECL__ARG_UINT(cfg->passes);
        args[11] = VOTECL__ARG_BUF(result != NULL ? engine->tickets : NULL);
        args[12] = VOTECL__ARG_BUF(result);
        nargs = 13;
        break;
    case VOTECL_VARIANT_GLOBAL:
        global = spaces * l->parts * local;
        args[9] = VOTECL__ARG_UINT(l->copies);
        break;
    default:
        /* one work-group (private in local memory) or one work-item per part */
        global = cfg->priv_local ? spaces * l->parts * local
                                 : votecl__round_up(spaces * l->parts, local);
        args[9] = VOTECL__ARG_UINT(spaces);
        break;
    }
    args[10] = VOTECL__ARG_BUF(target);
    return votecl__launch(engine->context, engine->k_vote, 1, &global, &local, args, nargs);
}

static votecl_status
launch_merge(votecl__vote_engine *engine, unsigned copies, size_t spaces, votecl_buffer *out)
{
    votecl__arg args[4] = {VOTECL__ARG_BUF(engine->partials), VOTECL__ARG_UINT(copies),
                           VOTECL__ARG_UINT(spaces), VOTECL__ARG_BUF(out)};
    size_t local = engine->cfg.merge_wg;
    size_t global = votecl__round_up(spaces * engine->cfg.nbins, local);

    return votecl__launch(engine->context, engine->k_merge, 1, &global, &local, args, 4);
}

/* The fused merge's tickets, zero when new (each run's last group leaves them zero). */
static votecl_status
ensure_tickets(votecl__vote_engine *engine, size_t spaces)
{
    size_t bytes = spaces * engine->cfg.passes * 4; /* below the partials' size: no overflow */
    votecl_status status;

    if (engine->tickets != NULL && engine->tickets->size >= bytes)
        return VOTECL_OK;
    status = votecl__buffer_ensure(engine->context, &engine->tickets, bytes);
    if (status == VOTECL_OK)
        status = votecl__buffer_zero(engine->tickets, 0, engine->tickets->size);
    return status;
}

votecl_status
votecl__vote_run(votecl__vote_engine *engine, const votecl__vote_input *in, votecl_buffer *out)
{
    layout l = plan_layout(engine, in->n, in->spaces);
    size_t words, bytes;
    /* vote_finish runs in the merge, so a spec with one merges even a single copy */
    int merge = l.copies > 1 || engine->cfg.finish;
    votecl_buffer *target = out;
    int fused;
    votecl_status status;

    if (votecl__mul_overflow(in->spaces, l.copies, &words) ||
        votecl__mul_overflow(words, engine->cfg.nbins, &words) ||
        votecl__mul_overflow(words, 4, &bytes))
        return votecl__fail(engine->context, VOTECL_INVALID_ARGUMENT,
                            "spaces: %zu vote spaces of %llu bins overflow", in->spaces,
                            (unsigned long long)engine->cfg.nbins);
    if (merge) {
        status = votecl__buffer_ensure(engine->context, &engine->partials, bytes);
        if (status != VOTECL_OK)
            return status;
        target = engine->partials;
    }
    fused = merge && engine->cfg.variant == VOTECL_VARIANT_LOCAL && engine->cfg.fused;
    if (fused && (status = ensure_tickets(engine, in->spaces)) != VOTECL_OK)
        return status;
    if (engine->cfg.variant != VOTECL_VARIANT_LOCAL && !engine->cfg.priv_local) {
        status = votecl__buffer_zero(target, 0, bytes);
        if (status != VOTECL_OK)
            return status;
    }
    status = launch_vote(engine, &l, in, target, fused ? out : NULL);
    if (status == VOTECL_OK && merge && !fused)
        status = launch_merge(engine, l.copies, in->spaces, out);
    return status;
}

/* What votecl__vote_run launches: a fill of the copies (global, private in global memory),
 * the vote kernel, and the merge kernel unless the last group merges (local, fused) or there
 * is nothing to merge. */
static unsigned
launches(const votecl__vote_config *cfg, const layout *l)
{
    int merge = l->copies > 1 || cfg->finish;
    int fill = cfg->variant != VOTECL_VARIANT_LOCAL && !cfg->priv_local;
    int fused = cfg->variant == VOTECL_VARIANT_LOCAL && cfg->fused;

    return (unsigned)(fill + 1 + (merge && !fused));
}

/* Local memory of one vote work-group: the S' copies of a pass's bins (and the fused
 * merge's flag), or the private kernel's 16-bit counters of every work-item. */
static uint64_t
group_local_bytes(const votecl__vote_config *cfg)
{
    if (cfg->variant == VOTECL_VARIANT_LOCAL)
        return ((uint64_t)cfg->npass * cfg->stretch + (cfg->fused ? 1 : 0)) * 4;
    if (cfg->priv_local)
        return (cfg->nbins + 1) / 2 * 4 * cfg->wg;
    return 0;
}

unsigned
votecl__vote_resident(const votecl_context *context, const votecl__vote_config *cfg)
{
    const votecl_device_info *info = &context->info;
    uint64_t local = group_local_bytes(cfg), r, threads, unit_local;

    /* A CPU runs one work-group per core at a time. */
    if (context->shape.cpu)
        return 1;
    /* Neither API reports a compute unit's threads or local memory (the per-group limit is
     * what OpenCL tells): a profile's figures, else 2048 threads and 4x the per-group local
     * memory, NVIDIA's since Volta (Hopper: 228 KiB per SM, 48 KiB per group), and at most 32
     * groups. */
    threads = context->shape.unit_threads > 0 ? context->shape.unit_threads : 2048;
    unit_local = context->shape.unit_local_mem > 0 ? context->shape.unit_local_mem
                                                   : 4 * info->local_mem_bytes;
    r = threads / (cfg->wg > 0 ? cfg->wg : 1);
    if (local > 0 && unit_local / local < r)
        r = unit_local / local;
    r = r < 32 ? r : 32;
    return (unsigned)(r > 0 ? r : 1);
}

void
votecl__vote_describe(const votecl__vote_engine *engine, size_t n, size_t frames,
                      votecl_vote_plan_info *info)
{
    const votecl__vote_config *cfg = &engine->cfg;
    layout l = plan_layout(engine, n, frames);

    memset(info, 0, sizeof *info);
    info->variant = cfg->variant;
    info->nbins = cfg->nbins;
    info->spaces = (unsigned)(frames > 0 ? frames : 1);
    info->nmax = cfg->variant == VOTECL_VARIANT_LOCAL ? cfg->nmax : 0;
    info->stretch = cfg->stretch;
    info->stretch_s = cfg->stretch_s;
    info->parts = l.parts;
    info->passes = cfg->passes;
    info->copies = cfg->variant == VOTECL_VARIANT_LOCAL ? 1 : l.copies;
    info->work_group_size = cfg->wg;
    info->predicted_seconds = 0.0;
    info->launches = launches(cfg, &l);
    info->resident = votecl__vote_resident(engine->context, cfg);
    info->footprint = cfg->variant == VOTECL_VARIANT_GLOBAL ||
                              (cfg->variant == VOTECL_VARIANT_PRIVATE && !cfg->priv_local)
                          ? (uint64_t)info->spaces * cfg->nbins * l.copies * 4
                          : 0;
}
