/* The execution-time model (GPU-vote section 5, Eq. 7-10): the regressors, the least-squares
 * fit, predictions, the per-device model file and the hooks the engine calls. The training
 * runs are in model-calibrate.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* mkostemp */
#endif

#include "model-private.h"
#include "vote-private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MODEL_MAGIC "votecl-model 3"
#define MODEL_TERMS_LINE "terms a b c d e f g h i j k l m"
/* A model file is a few hundred bytes; anything much bigger is not one of ours. */
#define MODEL_MAX_FILE_BYTES 65536
/* Columns are scaled to unit norm before the QR; a column whose part outside the span of
 * the earlier ones is shorter than this cannot be told apart from them. */
#define RANK_TOLERANCE 1e-8
#define NTERMS VOTECL_MODEL_NTERMS

static const char *const term_names[NTERMS] = {"a", "b", "c", "d", "e", "f", "g",
                                                "h", "i", "j", "k", "l", "m"};

const char *
votecl_model_term_name(votecl_model_term term)
{
    return (unsigned)term < NTERMS ? term_names[term] : NULL;
}

static int
variant_valid(votecl_variant v)
{
    return v == VOTECL_VARIANT_LOCAL || v == VOTECL_VARIANT_GLOBAL ||
           v == VOTECL_VARIANT_PRIVATE;
}

static double
at_least_one(double x)
{
    return x >= 1.0 ? x : 1.0;
}

double
votecl_model_factor(unsigned spaces, unsigned passes, unsigned parts, unsigned compute_units)
{
    double p = at_least_one(parts);
    double groups = at_least_one(spaces) * at_least_one(passes) * p;

    /* Eq. 9 with the plan's P: the waves of G x passes x P work-groups over SM compute units,
     * each group voting 1/P of the elements. Equals Eq. 9 when P is Eq. 8's. */
    return ceil(groups / at_least_one(compute_units)) / p;
}

/* Whether a private plan runs the on-chip kernel (lib/vote.c, configure_private): only
 * value-based unity votes with 16-bit counters of at most 4096 bins per work-item fit, in
 * work-groups of a multiple of 32, one copy per part; the global-memory kernel keeps 4 copies
 * per part of so few bins (or runs 1 or 64 work-items to a group off GPUs). */
static int
private_on_chip(const votecl_vote_plan_info *info, int location_based)
{
    return !location_based && info->copies == info->parts && info->nbins <= 4096 &&
           info->work_group_size >= 32 && info->work_group_size % 32 == 0;
}

void
votecl_model_sample_from_info(const votecl_vote_plan_info *info, unsigned compute_units,
                              int location_based, double elements, double eta,
                              votecl_model_sample *sample)
{
    memset(sample, 0, sizeof *sample);
    sample->variant = info->variant;
    sample->location_based = location_based != 0;
    sample->elements = elements;
    sample->eta = location_based ? eta : 1.0;
    sample->spaces = info->spaces;
    sample->nbins = info->nbins;
    sample->stretch = info->stretch;
    sample->parts = info->parts;
    sample->passes = info->passes;
    /* The local strategy's merge folds its P partial spaces (the plan reports copies = 1:
     * the S' copies are folded on chip). */
    sample->copies = info->variant == VOTECL_VARIANT_LOCAL ? info->parts : info->copies;
    sample->compute_units = compute_units;
    sample->work_group_size = (unsigned)(info->work_group_size < UINT32_MAX
                                             ? info->work_group_size : UINT32_MAX);
    sample->serial =
        info->variant == VOTECL_VARIANT_PRIVATE && !private_on_chip(info, location_based);
    sample->launches = info->launches;
    sample->resident = info->resident;
    sample->footprint = (double)info->footprint;
}

/* Eq. 9 for the serial private kernel: ceil(G P / WG) work-groups of WG parts each, in
 * waves over the SM compute units, each part voting 1/P of the elements. */
static double
serial_factor(const votecl_model_sample *s)
{
    double p = at_least_one(s->parts);
    double groups = ceil(at_least_one(s->spaces) * p / at_least_one(s->work_group_size));

    return ceil(groups / at_least_one(s->compute_units)) / p;
}

/* The words zeroed before the votes (global, private) and folded by the merge: G N copies.
 * The local strategy zeroes on chip and skips the merge when P = 1. */
static double
merged_words(const votecl_model_sample *s)
{
    if (s->variant == VOTECL_VARIANT_LOCAL && s->copies <= 1)
        return 0.0;
    return at_least_one(s->spaces) * (double)s->nbins * at_least_one(s->copies);
}

/* Local bins a work-group zeroes and folds per wave: S' min(N, Nmax) stretched copies
 * (local), or WG work-items' 16-bit counters of N bins (private on chip). */
static double
setup_term(const votecl_model_sample *s, double f)
{
    double per_group;

    if (s->variant == VOTECL_VARIANT_LOCAL)
        per_group = at_least_one(s->stretch) * ceil((double)s->nbins / at_least_one(s->passes));
    else if (s->variant == VOTECL_VARIANT_PRIVATE && !s->serial)
        per_group = ceil((double)s->nbins / 2.0) * at_least_one(s->work_group_size);
    else
        return 0.0;
    return f * at_least_one(s->parts) * per_group;
}

/* Waves of work-groups with k resident per compute unit, over the elements a group votes:
 * ceil(T / (SM k)) / P for the T = G passes P groups (serial private: ceil(G P / WG) groups,
 * P parts each). */
static double
wave_factor(const votecl_model_sample *s)
{
    double p = at_least_one(s->parts), groups;

    if (s->serial)
        groups = ceil(at_least_one(s->spaces) * p / at_least_one(s->work_group_size));
    else
        groups = at_least_one(s->spaces) * at_least_one(s->passes) * p;
    return ceil(groups / (at_least_one(s->compute_units) * at_least_one(s->resident))) / p;
}

/* log2 of the votes' footprint in global memory in units of 64 KiB (a first-level cache),
 * plus one: 0 on chip, then growing as the copies spill from cache level to cache level. */
static double
footprint_factor(const votecl_model_sample *s)
{
    return s->footprint > 0.0 ? log2(1.0 + s->footprint / 65536.0) : 0.0;
}

/* The terms of Eq. 7 and Eq. 10 for one sample, plus the merge (g), local set-up (h),
 * serial private (i), value-based vote (j), launch (k), wave (l) and footprint (m) terms. */
static void
regressors(const votecl_model_sample *s, double x[NTERMS])
{
    double stage1 = s->location_based ? 1.0 : 0.0;
    double kept = (s->location_based ? s->eta : 1.0) * s->elements;
    double f = votecl_model_factor(s->spaces, s->passes, s->parts, s->compute_units);
    double fs = s->serial ? serial_factor(s) : 0.0;
    double groupwise = s->serial ? 0.0 : 1.0;

    x[VOTECL_MODEL_TERM_A] = stage1 * s->elements;
    x[VOTECL_MODEL_TERM_B] = stage1 * kept;
    x[VOTECL_MODEL_TERM_C] = stage1;
    x[VOTECL_MODEL_TERM_D] = groupwise * kept / at_least_one(s->stretch) * f;
    x[VOTECL_MODEL_TERM_E] = groupwise * kept * f;
    x[VOTECL_MODEL_TERM_F] = 1.0;
    x[VOTECL_MODEL_TERM_G] = merged_words(s);
    x[VOTECL_MODEL_TERM_H] = setup_term(s, f);
    x[VOTECL_MODEL_TERM_I] = kept * fs;
    x[VOTECL_MODEL_TERM_J] = (1.0 - stage1) * kept * (s->serial ? fs : f);
    x[VOTECL_MODEL_TERM_K] = at_least_one(s->launches);
    x[VOTECL_MODEL_TERM_L] = kept * wave_factor(s);
    x[VOTECL_MODEL_TERM_M] = kept * (s->serial ? fs : f) * footprint_factor(s);
}

/* --- the least-squares fit --- */

/* x -= 2 (v.x / v.v) v over rows k..m-1: one Householder reflection. */
static void
reflect(const double *v, double vv, double *x, size_t k, size_t m)
{
    double s = 0.0;

    for (size_t i = k; i < m; i++)
        s += v[i] * x[i];
    s = 2.0 * s / vv;
    for (size_t i = k; i < m; i++)
        x[i] -= s * v[i];
}

/* min |A z - y| by Householder QR (Golub and Van Loan, 5.3). a: m x n column-major with
 * columns of unit norm, overwritten; y: m entries, overwritten. Returns -1 when a column is
 * (nearly) a combination of the earlier ones, its index in *bad. */
static int
householder_solve(double *a, double *y, size_t m, size_t n, double *z, size_t *bad)
{
    double diag[NTERMS];

    for (size_t k = 0; k < n; k++) {
        double *v = a + k * m, norm = 0.0, vv = 0.0;
        for (size_t i = k; i < m; i++)
            norm += v[i] * v[i];
        norm = sqrt(norm);
        if (!(norm > RANK_TOLERANCE)) {
            *bad = k;
            return -1;
        }
        diag[k] = v[k] > 0 ? -norm : norm;
        v[k] -= diag[k];
        for (size_t i = k; i < m; i++)
            vv += v[i] * v[i];
        for (size_t j = k + 1; j < n; j++)
            reflect(v, vv, a + j * m, k, m);
        reflect(v, vv, y, k, m);
    }
    for (size_t k = n; k-- > 0;) {
        double s = y[k];
        for (size_t j = k + 1; j < n; j++)
            s -= a[j * m + k] * z[j];
        z[k] = s / diag[k];
    }
    return 0;
}

typedef struct fit_data {
    size_t m;          /* samples */
    double *x;         /* m x NTERMS regressors, row-major */
    double *t;         /* m measured seconds */
    double *a, *y;     /* scratch of solve_active: m x NTERMS and m, allocated with x */
} fit_data;

/* Solves for the active terms, minimising the relative error: row i is divided by t_i, so
 * that a 10 us run counts as much as a 10 ms one (the paper's accuracy figures are relative).
 * The columns are scaled to unit norm first, since E and 1 differ by six orders. Returns -1
 * when the design is degenerate, with the term that is (nearly) a combination of the earlier
 * ones in *bad (-1 when there are too few samples). */
static int
solve_active(const fit_data *d, const int active[NTERMS], double param[NTERMS], int *bad)
{
    size_t n = 0, m = d->m, cols[NTERMS], k_bad = 0;
    double scale[NTERMS], z[NTERMS];
    double *a = d->a, *y = d->y;

    *bad = -1;
    for (size_t j = 0; j < NTERMS; j++)
        if (active[j])
            cols[n++] = j;
    if (n == 0 || m < n)
        return -1;
    for (size_t k = 0; k < n; k++) {
        double norm = 0.0;
        for (size_t i = 0; i < m; i++) {
            a[k * m + i] = d->x[i * NTERMS + cols[k]] / d->t[i];
            norm += a[k * m + i] * a[k * m + i];
        }
        scale[k] = sqrt(norm);
        if (!(scale[k] > 0.0)) {
            *bad = (int)cols[k];
            return -1;
        }
        for (size_t i = 0; i < m; i++)
            a[k * m + i] /= scale[k];
    }
    for (size_t i = 0; i < m; i++)
        y[i] = 1.0;
    if (householder_solve(a, y, m, n, z, &k_bad) != 0) {
        *bad = (int)cols[k_bad];
        return -1;
    }
    memset(param, 0, NTERMS * sizeof *param);
    for (size_t k = 0; k < n; k++)
        param[cols[k]] = z[k] / scale[k];
    return 0;
}

/* The term with the most negative mean contribution, or -1 when none is negative. */
static int
most_negative(const fit_data *d, const double param[NTERMS])
{
    int worst = -1;
    double worst_value = 0.0;

    for (int j = 0; j < NTERMS; j++) {
        double mean = 0.0;
        for (size_t i = 0; i < d->m; i++)
            mean += d->x[i * NTERMS + j] / d->t[i];
        if (param[j] * mean < worst_value) {
            worst_value = param[j] * mean;
            worst = j;
        }
    }
    return worst;
}

/* Whether S' = e's term / d's term differs between samples. */
static int
stretch_varies(const fit_data *d)
{
    double first = 0.0;

    for (size_t i = 0; i < d->m; i++) {
        double xd = d->x[i * NTERMS + VOTECL_MODEL_TERM_D], xe = d->x[i * NTERMS + VOTECL_MODEL_TERM_E];
        if (!(xd > 0.0))
            continue;
        if (first == 0.0)
            first = xe / xd;
        else if (fabs(xe / xd - first) > 1e-9 * first)
            return 1;
    }
    return 0;
}

/* Terms the design cannot identify are left out: stage 1's without location-based samples,
 * c without value-based ones (then f is c + f: the constants of both stages merge), d when S'
 * never varies (then e absorbs d / S'), j unless both kinds of run are there (then e or i
 * absorbs it), and any term that is constant (f absorbs it). */
static void
structural_terms(const fit_data *d, int active[NTERMS])
{
    for (int j = 0; j < NTERMS; j++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < d->m; i++) {
            double v = d->x[i * NTERMS + j];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        active[j] = hi > 0.0 && (j == VOTECL_MODEL_TERM_F || hi > lo);
    }
    if (!stretch_varies(d))
        active[VOTECL_MODEL_TERM_D] = 0;
    if (!active[VOTECL_MODEL_TERM_C])
        active[VOTECL_MODEL_TERM_J] = 0;
}

/* Active-set loop: a negative cost has no physical meaning (it comes from noise or from two
 * nearly collinear terms), so the most negative term is dropped and the rest refitted. */
static int
fit_nonnegative(const fit_data *d, double param[NTERMS])
{
    int active[NTERMS];

    structural_terms(d, active);
    /* without a varying number of votes there is no model, only an average */
    if (!active[VOTECL_MODEL_TERM_E] && !active[VOTECL_MODEL_TERM_I])
        return -1;
    for (int round = 0; round < 2 * NTERMS; round++) {
        int bad;
        if (solve_active(d, active, param, &bad) != 0) {
            /* The hardware terms coincide with the paper's on some designs (all groups
             * resident at once make l's waves e's F, or i's): such a term is left out. A
             * degenerate design of the paper's terms has no fit. */
            if (bad < VOTECL_MODEL_TERM_K)
                return -1;
            active[bad] = 0;
            continue;
        }
        int j = most_negative(d, param);
        if (j < 0)
            return 0;
        active[j] = 0;
    }
    return -1;
}

static double
mean_abs_error(const fit_data *d, const double param[NTERMS])
{
    double sum = 0.0;

    for (size_t i = 0; i < d->m; i++) {
        double p = 0.0;
        for (int j = 0; j < NTERMS; j++)
            p += param[j] * d->x[i * NTERMS + j];
        sum += fabs(p - d->t[i]) / d->t[i];
    }
    return d->m > 0 ? sum / (double)d->m : 0.0;
}

/* The samples of variant as regressor rows; -1 for a non-positive or non-finite time. */
static int
collect(const votecl_model_sample *samples, size_t count, votecl_variant variant, fit_data *d)
{
    for (size_t i = 0; i < count; i++) {
        const votecl_model_sample *s = &samples[i];
        if (s->variant != variant)
            continue;
        if (!(s->seconds > 0.0) || !isfinite(s->seconds) || !(s->elements >= 0.0))
            return -1;
        regressors(s, d->x + d->m * NTERMS);
        d->t[d->m++] = s->seconds;
    }
    return 0;
}

votecl_status
votecl_model_fit(const votecl_model_sample *samples, size_t count, votecl_variant variant,
                 votecl_model_params *params)
{
    fit_data d = {0};
    votecl_status status = VOTECL_UNSUPPORTED;

    if (params == NULL || (samples == NULL && count > 0) || !variant_valid(variant))
        return VOTECL_INVALID_ARGUMENT;
    memset(params, 0, sizeof *params);
    if (count > SIZE_MAX / (NTERMS * sizeof(double)))
        return VOTECL_INVALID_ARGUMENT;
    d.x = votecl__malloc((count > 0 ? count : 1) * NTERMS * sizeof *d.x);
    d.t = votecl__malloc((count > 0 ? count : 1) * sizeof *d.t);
    /* The solver's scratch too, so that running out of memory is never taken for a
     * degenerate design (VOTECL_UNSUPPORTED). */
    d.a = votecl__malloc((count > 0 ? count : 1) * NTERMS * sizeof *d.a);
    d.y = votecl__malloc((count > 0 ? count : 1) * sizeof *d.y);
    if (d.x == NULL || d.t == NULL || d.a == NULL || d.y == NULL) {
        status = VOTECL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    if (collect(samples, count, variant, &d) != 0 || fit_nonnegative(&d, params->param) != 0)
        goto out;
    params->fitted = 1;
    params->samples = (unsigned)(d.m < UINT32_MAX ? d.m : UINT32_MAX);
    params->mean_abs_error = mean_abs_error(&d, params->param);
    status = VOTECL_OK;

out:
    if (status != VOTECL_OK)
        memset(params->param, 0, sizeof params->param);
    free(d.x);
    free(d.t);
    free(d.a);
    free(d.y);
    return status;
}

votecl_status
votecl_model_predict(const votecl_model *model, const votecl_model_sample *sample,
                     double *seconds)
{
    double x[NTERMS], t = 0.0;
    const votecl_model_params *p;

    if (seconds != NULL)
        *seconds = 0.0;
    if (model == NULL || sample == NULL || seconds == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (!variant_valid(sample->variant))
        return VOTECL_UNSUPPORTED;
    p = &model->strategy[sample->variant];
    if (!p->fitted)
        return VOTECL_UNSUPPORTED;
    regressors(sample, x);
    for (int j = 0; j < NTERMS; j++)
        t += p->param[j] * x[j];
    *seconds = t > 0.0 ? t : 0.0;
    return VOTECL_OK;
}

/* --- the model file --- */

/* SHA-256 of what makes a device's timings: backend, name, vendor, platform, and the device
 * and driver version (an update means new timings). */
static void
device_identity(const votecl_context *context, char hex[65])
{
    const votecl_device_info *info = &context->info;
    const char *backend = votecl_backend_name(context->backend);
    const char *parts[5] = {backend ? backend : "?", info->name, info->vendor, info->platform,
                            info->version};
    votecl__sha256 h;
    uint8_t digest[32];

    votecl__sha256_init(&h);
    for (size_t i = 0; i < 5; i++)
        votecl__sha256_update(&h, parts[i], strlen(parts[i]) + 1);
    votecl__sha256_final(&h, digest);
    votecl__sha256_hex(digest, hex);
}

votecl_status
votecl_model_path(const votecl_context *context, char *path, size_t size)
{
    char hex[65];
    const char *dir;
    int n;

    if (context == NULL || path == NULL || size == 0)
        return VOTECL_INVALID_ARGUMENT;
    path[0] = '\0';
    dir = context->cache_dir;
    if (dir == NULL || dir[0] == '\0')
        return VOTECL_UNSUPPORTED;
    device_identity(context, hex);
    /* 16 hex digits name the file; the full identity inside it is checked on loading */
    n = snprintf(path, size, "%s%smodel-%.16s.txt", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
                 hex);
    if (n < 0 || (size_t)n >= size) {
        path[0] = '\0';
        return VOTECL_INVALID_ARGUMENT;
    }
    return VOTECL_OK;
}

typedef struct parse_state {
    const char *identity;
    int seen_identity, seen_terms, seen_end;
} parse_state;

/* "<strategy> <fitted> <samples> <mae> a b c ... m"; -1 when malformed. */
static int
parse_strategy(const char *line, votecl_model *model)
{
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++) {
        const char *name = votecl_variant_name((votecl_variant)v);
        size_t len = strlen(name);
        if (strncmp(line, name, len) != 0 || line[len] != ' ')
            continue;
        votecl_model_params *p = &model->strategy[v];
        double values[NTERMS + 3];
        const char *s = line + len;
        for (int i = 0; i < NTERMS + 3; i++) {
            char *end;
            errno = 0;
            values[i] = strtod(s, &end);
            if (end == s || errno != 0 || !isfinite(values[i]) || values[i] < 0.0)
                return -1;
            s = end;
        }
        if (*s != '\0' || (values[0] != 0.0 && values[0] != 1.0) || values[1] > UINT32_MAX)
            return -1;
        p->fitted = values[0] == 1.0;
        p->samples = (unsigned)values[1];
        p->mean_abs_error = values[2];
        memcpy(p->param, values + 3, sizeof p->param);
        return 0;
    }
    return -1;
}

static int
parse_line(const char *line, parse_state *st, votecl_model *model)
{
    if (line[0] == '\0' || line[0] == '#')
        return 0;
    if (strncmp(line, "identity ", 9) == 0) {
        st->seen_identity = strcmp(line + 9, st->identity) == 0;
        return st->seen_identity ? 0 : -1;
    }
    if (strcmp(line, MODEL_TERMS_LINE) == 0) {
        st->seen_terms = 1;
        return 0;
    }
    if (strcmp(line, "end") == 0) {
        st->seen_end = 1;
        return 0;
    }
    /* informative only: the identity decides */
    if (strncmp(line, "backend ", 8) == 0 || strncmp(line, "device ", 7) == 0 ||
        strncmp(line, "platform ", 9) == 0 || strncmp(line, "version ", 8) == 0)
        return 0;
    return parse_strategy(line, model);
}

/* 0 when text is a complete model file of this version for identity. */
static int
parse_model(char *text, const char *identity, votecl_model *model)
{
    parse_state st = {.identity = identity};
    char *save = NULL, *line;

    if (strncmp(text, MODEL_MAGIC "\n", sizeof MODEL_MAGIC) != 0)
        return -1;
    for (line = strtok_r(text + sizeof MODEL_MAGIC, "\n", &save); line != NULL && !st.seen_end;
         line = strtok_r(NULL, "\n", &save))
        if (parse_line(line, &st, model) != 0)
            return -1;
    return st.seen_identity && st.seen_terms && st.seen_end ? 0 : -1;
}

/* Silent: 0 with the model, -1 when the device is not calibrated (whatever the reason). */
static int
load_model(const votecl_context *context, votecl_model *model)
{
    char path[4096], hex[65];
    char *text = NULL;
    size_t size = 0;
    struct stat sb;
    int result = -1;

    memset(model, 0, sizeof *model);
    if (votecl_model_path(context, path, sizeof path) != VOTECL_OK)
        return -1;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > MODEL_MAX_FILE_BYTES)
        return -1;
    if (votecl__read_file(path, &text, &size) != VOTECL_OK)
        return -1;
    device_identity(context, hex);
    if (strlen(text) == size)
        result = parse_model(text, hex, model);
    free(text);
    if (result != 0)
        memset(model, 0, sizeof *model);
    return result;
}

votecl_status
votecl_model_load(votecl_context *context, votecl_model *model)
{
    if (model != NULL)
        memset(model, 0, sizeof *model);
    if (context == NULL || model == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (load_model(context, model) != 0)
        return votecl__fail(context, VOTECL_UNSUPPORTED,
                            "the device is not calibrated: run votecl calibrate");
    return VOTECL_OK;
}

static int
write_model(FILE *f, const votecl_context *context, const votecl_model *model)
{
    const votecl_device_info *info = &context->info;
    const char *backend = votecl_backend_name(context->backend);
    char hex[65];

    device_identity(context, hex);
    fprintf(f, "%s\n# GPU-vote Eq. 7-10 fitted by votecl calibrate; delete the file to forget it.\n"
               "# <strategy> <fitted> <samples> <mean abs error> a b c ... m (seconds)\n",
            MODEL_MAGIC);
    fprintf(f, "identity %s\nbackend %s\ndevice %s\nplatform %s\nversion %s\n%s\n", hex,
            backend ? backend : "?", info->name, info->platform, info->version,
            MODEL_TERMS_LINE);
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++) {
        const votecl_model_params *p = &model->strategy[v];
        fprintf(f, "%s %d %u %.17g", votecl_variant_name((votecl_variant)v), p->fitted ? 1 : 0,
                p->samples, p->mean_abs_error);
        for (int j = 0; j < NTERMS; j++)
            fprintf(f, " %.17g", p->param[j]);
        fputc('\n', f);
    }
    fputs("end\n", f);
    return ferror(f) ? -1 : 0;
}

/* Writes the model to a temporary file beside path and renames it over path, so that
 * readers see the old file, none or the new one, never a partial one. */
static votecl_status
write_atomically(votecl_context *context, const char *path, const votecl_model *model)
{
    char temp[4200];
    FILE *f = NULL;
    int fd, written;

    snprintf(temp, sizeof temp, "%s.tmp-%ld-XXXXXX", path, (long)getpid());
#ifdef HAVE_MKOSTEMP
    fd = mkostemp(temp, O_CLOEXEC);
#else
    fd = mkstemp(temp);
#endif
    if (fd < 0)
        return votecl__fail(context, VOTECL_IO_ERROR, "model file %s: %s", temp,
                            strerror(errno));
    f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        unlink(temp);
        return votecl__fail(context, VOTECL_IO_ERROR, "model file %s: %s", temp,
                            strerror(errno));
    }
    written = write_model(f, context, model);
    if (fclose(f) != 0 || written != 0 || rename(temp, path) != 0) {
        int saved = errno;
        unlink(temp);
        return votecl__fail(context, VOTECL_IO_ERROR, "model file %s: %s", path,
                            strerror(saved));
    }
    return VOTECL_OK;
}

votecl_status
votecl_model_store(votecl_context *context, const votecl_model *model)
{
    char path[4096];
    votecl_status status;

    if (context == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (model == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "model: NULL");
    status = votecl_model_path(context, path, sizeof path);
    if (status == VOTECL_UNSUPPORTED)
        return votecl__fail(context, status,
                            "the disk cache is off: no directory to keep the model in");
    if (status != VOTECL_OK)
        return votecl__fail(context, status, "cache directory: path too long");
    if (votecl__diskcache_make_dir(context->cache_dir) != 0)
        return votecl__fail(context, VOTECL_IO_ERROR, "cannot create the cache directory %s",
                            context->cache_dir);
    return write_atomically(context, path, model);
}

/* --- what the engine calls --- */

votecl_status
votecl__model_predict_info(votecl_context *context, const votecl_vote_plan_info *info,
                           int location_based, size_t elements, double eta, double *seconds)
{
    votecl_model model;
    votecl_model_sample sample;

    *seconds = 0.0;
    if (load_model(context, &model) != 0)
        return VOTECL_UNSUPPORTED;
    votecl_model_sample_from_info(info, context->info.compute_units, location_based,
                                  (double)elements, eta, &sample);
    return votecl_model_predict(&model, &sample, seconds);
}

static int
variant_supported(const votecl_context *context, votecl_variant v)
{
    if (v == VOTECL_VARIANT_LOCAL)
        return context->info.local_atomics && context->info.local_mem_bytes >= 4;
    if (v == VOTECL_VARIANT_GLOBAL)
        return context->info.global_atomics;
    return 1;
}

/* Stage 2's predicted seconds for kept value-based votes of a plan configured as cfg. */
static int
config_seconds(votecl_context *context, const votecl_model *model,
               const votecl__vote_config *cfg, unsigned spaces, double kept, double *seconds)
{
    votecl__vote_engine engine;
    votecl_vote_plan_info info;
    votecl_model_sample sample;

    memset(&engine, 0, sizeof engine);
    engine.context = context;
    engine.cfg = *cfg;
    votecl__vote_describe(&engine, (size_t)kept, spaces, &info);
    votecl_model_sample_from_info(&info, context->info.compute_units, 0, kept, 1.0, &sample);
    /* the configuration says which private kernel runs; the description only hints at it */
    sample.serial = cfg->variant == VOTECL_VARIANT_PRIVATE && !cfg->priv_local;
    return votecl_model_predict(model, &sample, seconds) == VOTECL_OK ? 0 : -1;
}

static int
predict_config(votecl_context *context, const votecl_model *model, const votecl__vote_config *cfg,
               unsigned spaces, double *seconds)
{
    return config_seconds(context, model, cfg, spaces, 1920.0 * 1080.0, seconds);
}

/* Stage 2's predicted seconds for kept elements under v; -1 when v cannot be configured. */
static int
stage2_seconds(votecl_context *context, const votecl_model *model, votecl_variant v,
               uint64_t nbins, unsigned spaces, double kept, double *seconds)
{
    votecl__vote_config cfg;

    /* the generic engine's shape: unity votes, every space reads all elements */
    votecl__vote_shape shape = {.nbins = nbins, .spaces = spaces, .kind = 0, .frames = 0,
                                .finish = 0, .vec = 1, .elem_bytes = 1};

    if (votecl__vote_configure(context, v, 0, 0, &shape, &cfg) != VOTECL_OK)
        return -1;
    return config_seconds(context, model, &cfg, spaces, kept, seconds);
}

votecl_variant
votecl__model_choose(votecl_context *context, uint64_t nbins, unsigned spaces,
                     size_t elements_hint, double eta_hint)
{
    votecl_model model;

    if (load_model(context, &model) != 0)
        return VOTECL_VARIANT_AUTO;
    return votecl__model_choose_with(context, &model, nbins, spaces, elements_hint, eta_hint);
}

votecl_variant
votecl__model_choose_with(votecl_context *context, const votecl_model *model, uint64_t nbins,
                          unsigned spaces, size_t elements_hint, double eta_hint)
{
    votecl_variant best = VOTECL_VARIANT_AUTO;
    double best_seconds = INFINITY, kept, t;
    char saved_error[sizeof context->error];

    kept = (double)(elements_hint > 0 ? elements_hint : 1920 * 1080) *
           (eta_hint > 0.0 && eta_hint <= 1.0 ? eta_hint : 1.0);
    /* configuring may record a message; choosing must leave the context's error alone */
    memcpy(saved_error, context->error, sizeof saved_error);
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++) {
        if (!model->strategy[v].fitted || !variant_supported(context, (votecl_variant)v))
            continue;
        if (stage2_seconds(context, model, (votecl_variant)v, nbins, spaces, kept, &t) == 0 &&
            t < best_seconds) {
            best_seconds = t;
            best = (votecl_variant)v;
        }
    }
    memcpy(context->error, saved_error, sizeof saved_error);
    return best;
}

/* The engine reaches the model only through this table (context->model, set by context.c):
 * the model configures plans to predict them, so the engine cannot call it by name. */
const struct votecl__model_hooks votecl__model_hooks = {
    .choose = votecl__model_choose,
    .get = load_model,
    .predict_config = predict_config,
    .predict_info = votecl__model_predict_info,
};
