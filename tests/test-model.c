/* The execution-time model (GPU-vote section 5).
 *
 * /nodevice/...  the least-squares fit recovers known parameters from samples generated with
 *                them (plus 1% noise); degenerate sample sets give VOTECL_UNSUPPORTED; Eq. 9.
 * /ref/...       the model file: store and load round trip, a corrupt, truncated, foreign or
 *                missing file means "not calibrated", never a failed call.
 * /opencl/...    a quick calibration through the API stores a fit, after which plans predict
 *                a positive time and the model chooses a strategy. Times are never asserted. */
#include "votecl-private.h"
#include "model-private.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Plausible magnitudes for a GPU: seconds per unit of each term. */
static const double true_params[VOTECL_MODEL_NTERMS] = {
    1.0e-9, 4.0e-9, 2.0e-5, 3.0e-8, 2.0e-9, 1.0e-5, 1.0e-10, 2.0e-10, 2.0e-7, 5.0e-10,
    4.0e-6, 1.0e-9, 3.0e-10};

/* A design like calibrate's: E, eta, G, N vary; S' and P follow a local-like plan on a
 * device of sm compute units with Nmax = 4096. Private samples are serial (one work-item per
 * part, 64 to a work-group). Launches, resident groups and footprints as vote.c reports them
 * (16 KiB of local memory per group, 64 KiB per compute unit). */
static void
make_sample(tu_rng *rng, votecl_variant v, unsigned sm, votecl_model_sample *s)
{
    static const double sizes[] = {160 * 120, 320 * 240, 640 * 480, 1024 * 768, 1920 * 1080};
    static const double etas[] = {0.01, 0.05, 0.2, 0.5};
    static const unsigned nbins[] = {32, 256, 1024, 4096, 6000};
    unsigned g_choice[4] = {1, 5, sm, 2 * sm};
    uint64_t n = nbins[tu_rng_below(rng, 5)], nmax = 4096;

    memset(s, 0, sizeof *s);
    s->variant = v;
    s->location_based = tu_rng_below(rng, 4) != 0;
    s->elements = sizes[tu_rng_below(rng, 5)];
    s->eta = s->location_based ? etas[tu_rng_below(rng, 4)] : 1.0;
    s->spaces = g_choice[tu_rng_below(rng, 4)];
    s->nbins = n;
    s->passes = v == VOTECL_VARIANT_LOCAL ? (unsigned)((n + nmax - 1) / nmax) : 1;
    s->stretch = v == VOTECL_VARIANT_LOCAL && n < nmax ? (unsigned)(nmax / n > 32 ? 32 : nmax / n)
                                                       : 1;
    /* the calibration varies the groups per compute unit (hence P) and caps S' */
    unsigned groups = 1u << tu_rng_below(rng, 4);
    if (s->stretch > 1 && tu_rng_below(rng, 3) == 0)
        s->stretch = 1 + tu_rng_below(rng, s->stretch);
    s->parts = groups * sm / (s->spaces * s->passes) > 0 ? groups * sm / (s->spaces * s->passes)
                                                         : 1;
    s->copies = v == VOTECL_VARIANT_LOCAL ? s->parts : 8;
    s->compute_units = sm;
    s->work_group_size = v == VOTECL_VARIANT_PRIVATE ? 64 : 256;
    s->serial = v == VOTECL_VARIANT_PRIVATE;
    if (v == VOTECL_VARIANT_LOCAL) {
        uint64_t local = (uint64_t)s->stretch * (n < nmax ? n : nmax) * 4;
        s->launches = 1 + (s->parts > 1 && n > 1024);
        s->resident = (unsigned)(65536 / local < 8 ? (65536 / local > 0 ? 65536 / local : 1) : 8);
    } else {
        s->launches = 2 + (s->copies > 1);
        s->resident = 2048 / s->work_group_size;
        s->footprint = (double)s->spaces * (double)n * s->copies * 4;
    }
}

static double
true_seconds(const votecl_model_sample *s)
{
    votecl_model model;
    double t = 0;
    memset(&model, 0, sizeof model);
    model.strategy[s->variant].fitted = 1;
    memcpy(model.strategy[s->variant].param, true_params, sizeof true_params);
    g_assert_cmpint(votecl_model_predict(&model, s, &t), ==, VOTECL_OK);
    return t;
}

static votecl_model_sample *
make_samples(votecl_variant v, size_t count, double noise, uint64_t seed)
{
    votecl_model_sample *samples = g_new0(votecl_model_sample, count);
    tu_rng rng;
    tu_rng_init(&rng, seed);
    for (size_t i = 0; i < count; i++) {
        make_sample(&rng, v, 16, &samples[i]);
        samples[i].seconds = true_seconds(&samples[i]) * (1.0 + tu_rng_float(&rng, -noise, noise));
    }
    return samples;
}

static void
test_factor(void)
{
    /* Eq. 9 with Eq. 8's P: SM = 16, G = 4 -> P = 4, F = ceil(16 / 16) / 4 */
    g_assert_cmpfloat(votecl_model_factor(4, 1, 4, 16), ==, 0.25);
    /* G = 20 > SM: P = 1, F = ceil(20 / 16) = 2 */
    g_assert_cmpfloat(votecl_model_factor(20, 1, 1, 16), ==, 2.0);
    /* two passes double the groups */
    g_assert_cmpfloat(votecl_model_factor(10, 2, 1, 16), ==, 2.0);
    /* zeros count as one */
    g_assert_cmpfloat(votecl_model_factor(0, 0, 0, 0), ==, 1.0);
}

static void
test_fit_recovers(void)
{
    const size_t count = 600;
    votecl_model_sample *samples = make_samples(VOTECL_VARIANT_LOCAL, count, 0.01, 7);
    votecl_model_params p;

    g_assert_cmpint(votecl_model_fit(samples, count, VOTECL_VARIANT_LOCAL, &p), ==, VOTECL_OK);
    g_assert_true(p.fitted);
    g_assert_cmpuint(p.samples, ==, count);
    g_assert_cmpfloat(p.mean_abs_error, <, 0.01);
    /* no local run is serial nor votes in global memory: i and m stay 0 */
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_I], ==, 0.0);
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_M], ==, 0.0);
    for (int j = 0; j < VOTECL_MODEL_NTERMS; j++) {
        if (j == VOTECL_MODEL_TERM_I || j == VOTECL_MODEL_TERM_M)
            continue;
        double rel = fabs(p.param[j] - true_params[j]) / true_params[j];
        g_test_message("%s: fitted %.4g, true %.4g (%.1f%%)",
                       votecl_model_term_name((votecl_model_term)j), p.param[j], true_params[j],
                       100 * rel);
        /* k, l and m move a run by a few percent each: 1% noise leaves them known to ~20% */
        g_assert_cmpfloat(rel, <, j >= VOTECL_MODEL_TERM_K ? 0.3 : 0.15);
    }
    g_free(samples);
}

/* Noise-free samples: the fit is exact to rounding. */
static void
test_fit_exact(void)
{
    const size_t count = 60;
    votecl_model_sample *samples = make_samples(VOTECL_VARIANT_LOCAL, count, 0.0, 11);
    votecl_model_params p;

    g_assert_cmpint(votecl_model_fit(samples, count, VOTECL_VARIANT_LOCAL, &p), ==, VOTECL_OK);
    for (int j = 0; j < VOTECL_MODEL_NTERMS; j++)
        if (j != VOTECL_MODEL_TERM_I && j != VOTECL_MODEL_TERM_M)
            g_assert_cmpfloat(fabs(p.param[j] - true_params[j]) / true_params[j], <, 1e-6);
    g_free(samples);
}

/* Serial private runs: i (and j on top of it) carry the votes; d, e and h stay 0. Every run
 * launches a fill, the vote and the merge (f absorbs k), and all groups are resident at once
 * (i absorbs l). */
static void
test_fit_serial(void)
{
    static const int fitted[] = {VOTECL_MODEL_TERM_A, VOTECL_MODEL_TERM_B, VOTECL_MODEL_TERM_C,
                                 VOTECL_MODEL_TERM_G, VOTECL_MODEL_TERM_J, VOTECL_MODEL_TERM_M};
    const size_t count = 80;
    votecl_model_sample *samples = make_samples(VOTECL_VARIANT_PRIVATE, count, 0.0, 29);
    votecl_model_params p;
    double f = true_params[VOTECL_MODEL_TERM_F] + 3 * true_params[VOTECL_MODEL_TERM_K];
    double i = true_params[VOTECL_MODEL_TERM_I] + true_params[VOTECL_MODEL_TERM_L];

    g_assert_cmpint(votecl_model_fit(samples, count, VOTECL_VARIANT_PRIVATE, &p), ==,
                    VOTECL_OK);
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_D], ==, 0.0);
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_E], ==, 0.0);
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_H], ==, 0.0);
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_K], ==, 0.0);
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_L], ==, 0.0);
    g_assert_cmpfloat(fabs(p.param[VOTECL_MODEL_TERM_F] - f) / f, <, 1e-6);
    g_assert_cmpfloat(fabs(p.param[VOTECL_MODEL_TERM_I] - i) / i, <, 1e-6);
    for (size_t k = 0; k < sizeof fitted / sizeof fitted[0]; k++)
        g_assert_cmpfloat(fabs(p.param[fitted[k]] - true_params[fitted[k]]) /
                              true_params[fitted[k]], <, 1e-6);
    g_free(samples);
}

/* Eq. 9 for the serial kernel: 64 parts to a work-group. */
static void
test_serial_factor(void)
{
    votecl_model_sample s;
    votecl_model model;
    double t = 0.0;

    memset(&s, 0, sizeof s);
    memset(&model, 0, sizeof model);
    s.variant = VOTECL_VARIANT_PRIVATE;
    s.serial = 1;
    s.elements = 1000.0;
    s.eta = 1.0;
    s.spaces = 100;
    s.nbins = 1;
    s.parts = 4;
    s.work_group_size = 64;
    s.compute_units = 2;
    model.strategy[VOTECL_VARIANT_PRIVATE].fitted = 1;
    model.strategy[VOTECL_VARIANT_PRIVATE].param[VOTECL_MODEL_TERM_I] = 1.0;
    /* ceil(400 / 64) = 7 groups, ceil(7 / 2) = 4 waves of 1000 / 4 elements */
    g_assert_cmpint(votecl_model_predict(&model, &s, &t), ==, VOTECL_OK);
    g_assert_cmpfloat(t, ==, 1000.0);
}

/* Without stretching (global, private) d and e cannot be told apart: e absorbs d. */
static void
test_fit_no_stretch(void)
{
    const size_t count = 80;
    votecl_model_sample *samples = make_samples(VOTECL_VARIANT_GLOBAL, count, 0.0, 13);
    votecl_model_params p;

    g_assert_cmpint(votecl_model_fit(samples, count, VOTECL_VARIANT_GLOBAL, &p), ==, VOTECL_OK);
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_D], ==, 0.0);
    g_assert_cmpfloat(fabs(p.param[VOTECL_MODEL_TERM_E] - (true_params[VOTECL_MODEL_TERM_D] +
                                                      true_params[VOTECL_MODEL_TERM_E])),
                      <, 1e-6 * true_params[VOTECL_MODEL_TERM_D]);
    g_assert_cmpfloat(p.mean_abs_error, <, 1e-9);
    /* samples of other strategies are ignored: none for private */
    g_assert_cmpint(votecl_model_fit(samples, count, VOTECL_VARIANT_PRIVATE, &p), ==,
                    VOTECL_UNSUPPORTED);
    g_free(samples);
}

static void
test_fit_degenerate(void)
{
    const size_t count = 40;
    votecl_model_sample *samples = make_samples(VOTECL_VARIANT_LOCAL, count, 0.0, 17);
    votecl_model_params p;

    /* every sample the same case: nothing varies */
    for (size_t i = 1; i < count; i++)
        samples[i] = samples[0];
    g_assert_cmpint(votecl_model_fit(samples, count, VOTECL_VARIANT_LOCAL, &p), ==,
                    VOTECL_UNSUPPORTED);
    g_assert_false(p.fitted);
    g_assert_cmpfloat(p.param[VOTECL_MODEL_TERM_E], ==, 0.0);
    g_free(samples);

    /* eta never varies among location-based runs: E and eta E are collinear */
    samples = make_samples(VOTECL_VARIANT_LOCAL, count, 0.0, 19);
    for (size_t i = 0; i < count; i++) {
        samples[i].location_based = 1;
        samples[i].eta = 0.1;
        samples[i].seconds = true_seconds(&samples[i]);
    }
    g_assert_cmpint(votecl_model_fit(samples, count, VOTECL_VARIANT_LOCAL, &p), ==,
                    VOTECL_UNSUPPORTED);

    /* fewer samples than terms */
    g_free(samples);
    samples = make_samples(VOTECL_VARIANT_LOCAL, 4, 0.0, 23);
    g_assert_cmpint(votecl_model_fit(samples, 4, VOTECL_VARIANT_LOCAL, &p), ==,
                    VOTECL_UNSUPPORTED);

    /* a time that is not positive */
    samples[2].seconds = 0.0;
    g_assert_cmpint(votecl_model_fit(samples, 4, VOTECL_VARIANT_LOCAL, &p), ==,
                    VOTECL_UNSUPPORTED);

    /* no samples at all, NULL pointers, AUTO */
    g_assert_cmpint(votecl_model_fit(NULL, 0, VOTECL_VARIANT_LOCAL, &p), ==, VOTECL_UNSUPPORTED);
    g_assert_cmpint(votecl_model_fit(NULL, 3, VOTECL_VARIANT_LOCAL, &p), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_model_fit(samples, 4, VOTECL_VARIANT_LOCAL, NULL), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(votecl_model_fit(samples, 4, VOTECL_VARIANT_AUTO, &p), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_free(samples);
}

static void
test_predict_unfitted(void)
{
    votecl_model model;
    votecl_model_sample s;
    tu_rng rng;
    double t = 1.0;

    memset(&model, 0, sizeof model);
    tu_rng_init(&rng, 3);
    make_sample(&rng, VOTECL_VARIANT_PRIVATE, 2, &s);
    g_assert_cmpint(votecl_model_predict(&model, &s, &t), ==, VOTECL_UNSUPPORTED);
    g_assert_cmpfloat(t, ==, 0.0);
    g_assert_cmpint(votecl_model_predict(NULL, &s, &t), ==, VOTECL_INVALID_ARGUMENT);
}

/* --- the model file --- */

static votecl_context *
ref_context_in(const char *cache_dir)
{
    votecl_context_options o;
    votecl_context *ctx = NULL;
    votecl_context_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    o.cache_dir = cache_dir;
    g_assert_cmpint(votecl_context_new(&o, &ctx), ==, VOTECL_OK);
    return ctx;
}

static void
example_model(votecl_model *model)
{
    memset(model, 0, sizeof *model);
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v += 2) {
        model->strategy[v].fitted = 1;
        model->strategy[v].samples = 40 + v;
        model->strategy[v].mean_abs_error = 0.0123 * v;
        for (int j = 0; j < VOTECL_MODEL_NTERMS; j++)
            model->strategy[v].param[j] = true_params[j] * (1.0 + v) / 3.0;
    }
}

static void
write_text(const char *path, const char *text)
{
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
}

static void
assert_not_calibrated(votecl_context *ctx)
{
    votecl_model model;
    g_assert_cmpint(votecl_model_load(ctx, &model), ==, VOTECL_UNSUPPORTED);
    g_assert_false(model.strategy[VOTECL_VARIANT_LOCAL].fitted);
    g_assert_cmpint(votecl__model_choose(ctx, 256, 1, 0, 0.0), ==, VOTECL_VARIANT_AUTO);
}

/* The stored file with line 'from' replaced by 'to'. */
static void
rewrite(const char *path, const char *original, const char *from, const char *to)
{
    char *copy = g_strdup(original);
    char *at = strstr(copy, from);
    g_assert_nonnull(at);
    GString *s = g_string_new_len(copy, at - copy);
    g_string_append(s, to);
    g_string_append(s, at + strlen(from));
    write_text(path, s->str);
    g_string_free(s, TRUE);
    g_free(copy);
}

static void
test_store_load(void)
{
    char *dir = tu_mkdtemp();
    char *cache = g_build_filename(dir, "sub", "cache", NULL);
    votecl_context *ctx = ref_context_in(cache);
    votecl_model model, loaded;
    char path[4096], *text = NULL;

    example_model(&model);
    assert_not_calibrated(ctx);
    g_assert_cmpint(votecl_model_store(ctx, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_model_path(ctx, path, sizeof path), ==, VOTECL_OK);
    g_assert_true(g_str_has_prefix(path, cache));
    g_assert_cmpint(tu_count_entries(cache), ==, 1); /* no temporary file left behind */
    g_assert_cmpint(votecl_model_load(ctx, &loaded), ==, VOTECL_OK);
    g_assert_cmpmem(&loaded, sizeof loaded, &model, sizeof model);
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));

    rewrite(path, text, "votecl-model 3", "votecl-model 2"); /* another version */
    assert_not_calibrated(ctx);
    rewrite(path, text, "\nend\n", "\n"); /* truncated */
    assert_not_calibrated(ctx);
    rewrite(path, text, "identity ", "identity 0"); /* another device */
    assert_not_calibrated(ctx);
    rewrite(path, text, "local 1 ", "local 1 x"); /* a malformed number */
    assert_not_calibrated(ctx);
    rewrite(path, text, "terms a b c d e f g h i j k l m", "terms a b c d e f g h i j");
    assert_not_calibrated(ctx); /* version 2's terms */
    write_text(path, "");
    assert_not_calibrated(ctx);
    write_text(path, "\x7f" "ELF garbage\n");
    assert_not_calibrated(ctx);
    write_text(path, text); /* intact again */
    g_assert_cmpint(votecl_model_load(ctx, &loaded), ==, VOTECL_OK);

    g_free(text);
    votecl_context_free(ctx);
    tu_rmtree(dir);
    g_free(cache);
    g_free(dir);
}

static void
test_no_cache_dir(void)
{
    votecl_context_options o;
    votecl_context *ctx = NULL;
    votecl_model model;
    char path[64];

    votecl_context_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    o.disable_disk_cache = 1;
    g_assert_cmpint(votecl_context_new(&o, &ctx), ==, VOTECL_OK);
    example_model(&model);
    g_assert_cmpint(votecl_model_store(ctx, &model), ==, VOTECL_UNSUPPORTED);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "cache"));
    g_assert_cmpint(votecl_model_path(ctx, path, sizeof path), ==, VOTECL_UNSUPPORTED);
    assert_not_calibrated(ctx);
    votecl_context_free(ctx);
}

/* --- calibration on the device --- */

static const char hough_source[] =
    "bool vote_test(uint x, uint y, uchar value) { return value > 200; }\n"
    "uint vote_index(uint space, uint index, uchar value, uint nbins)\n"
    "{ return (vote_x(index) * 7u + vote_y(index) * 13u + space * 29u) % nbins; }\n";

static void
check_plan_predicts(votecl_context *ctx)
{
    votecl_vote_spec spec;
    votecl_vote_plan *plan = NULL;
    double t = 0.0;

    votecl_vote_spec_init(&spec);
    spec.spaces = 3;
    spec.nbins = 500;
    spec.source = hough_source;
    g_assert_cmpint(votecl_vote_plan_new(ctx, &spec, &plan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_vote_plan_predict(plan, 640 * 480, 0.1, &t), ==, VOTECL_OK);
    g_test_message("predicted %.3g s for 640x480, eta 0.1", t);
    g_assert_cmpfloat(t, >, 0.0);
    g_assert_cmpint(votecl_vote_plan_predict(plan, 640 * 480, 1.5, &t), ==,
                    VOTECL_INVALID_ARGUMENT);
    votecl_vote_plan_free(plan);
}

static void
test_calibrate_quick(void)
{
    char *dir = tu_mkdtemp();
    votecl_context_options o;
    votecl_context_options_init(&o);
    o.cache_dir = dir;
    votecl_context *ctx = tu_device_context_new(&o);
    votecl_calibrate_options co;
    votecl_calibrate_report report;
    votecl_model loaded;

    if (ctx == NULL)
        goto out;
    assert_not_calibrated(ctx);
    votecl_calibrate_options_init(&co);
    co.quick = 1;
    co.repeats = 1;
    votecl_status st = votecl_model_calibrate(ctx, &co, &report);
    if (st != VOTECL_OK)
        g_test_message("calibrate: %s: %s", votecl_status_string(st),
                       votecl_context_get_error(ctx));
    g_assert_cmpint(st, ==, VOTECL_OK);
    g_test_message("%zu runs in %.1f s", report.cases, report.seconds);
    g_assert_cmpuint(report.cases, >, 0);
    g_assert_true(report.stored);
    g_assert_cmpint(votecl_model_load(ctx, &loaded), ==, VOTECL_OK);
    g_assert_cmpmem(&loaded, sizeof loaded, &report.model, sizeof report.model);
    g_assert_cmpint(votecl__model_choose(ctx, 256, 1, 0, 0.0), !=, VOTECL_VARIANT_AUTO);
    check_plan_predicts(ctx);

out:
    votecl_context_free(ctx);
    tu_rmtree(dir);
    g_free(dir);
}

static const tu_test tests[] = {
    {TU_PATH, "/nodevice/model/factor", {test_factor}},
    {TU_PATH, "/nodevice/model/fit-recovers", {test_fit_recovers}},
    {TU_PATH, "/nodevice/model/fit-exact", {test_fit_exact}},
    {TU_PATH, "/nodevice/model/fit-no-stretch", {test_fit_no_stretch}},
    {TU_PATH, "/nodevice/model/fit-serial", {test_fit_serial}},
    {TU_PATH, "/nodevice/model/serial-factor", {test_serial_factor}},
    {TU_PATH, "/nodevice/model/fit-degenerate", {test_fit_degenerate}},
    {TU_PATH, "/nodevice/model/predict-unfitted", {test_predict_unfitted}},
    {TU_PATH, "/ref/model/store-load", {test_store_load}},
    {TU_PATH, "/ref/model/no-cache-dir", {test_no_cache_dir}},
    {TU_DEVICE, "model/calibrate-quick", {test_calibrate_quick}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
