/* votecl calibrate: fits the execution-time model (GPU-vote Eq. 7-10) on the device, stores
 * it, and with --evaluate measures its accuracy on held-out cases. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tool.h"

#define CAL_MAX_SAMPLES 4096

typedef struct cal_args {
    int evaluate;     /* --evaluate */
    int no_train;     /* --stored: evaluate the stored model, no training */
    int quick;        /* --quick */
    unsigned long repeats;
    unsigned variants; /* --variants */
} cal_args;

/* What one call produced, with its cases. */
typedef struct cal_result {
    votecl_calibrate_report report;
    votecl_model_sample *samples;
    size_t nsamples;
} cal_result;

static void
cal_usage(FILE *f)
{
    fprintf(f, "usage: votecl calibrate [--evaluate] [--stored] [--quick] [--repeats N]\n"
               "                        [--variants local,global,private] [--json]\n"
               "Times a Hough-like vote on the device over a range of image sizes, edge\n"
               "fractions (eta), vote spaces (G) and bins (N) with each strategy, fits the\n"
               "parameters a-m of the execution-time model (GPU-vote Eq. 7-10) by least squares\n"
               "and stores them beside the kernel cache; plans then choose their strategy by it.\n"
               "  --evaluate     then time held-out cases and report the model's accuracy\n"
               "  --stored       with --evaluate: evaluate the stored model, do not train\n"
               "  --quick        a small training set (smoke tests)\n"
               "  --repeats N    rounds over the cases, the fastest counts (default 5, quick 3)\n"
               "  --variants L   strategies to calibrate (default: all the device supports)\n");
}

static int
parse_variants(const char *text, unsigned *mask)
{
    char buffer[128];
    char *save = NULL;
    snprintf(buffer, sizeof buffer, "%s", text);
    *mask = 0;
    for (char *name = strtok_r(buffer, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++)
            if (strcmp(name, votecl_variant_name((votecl_variant)v)) == 0) {
                *mask |= 1u << v;
                found = 1;
            }
        if (!found)
            return -1;
    }
    return *mask ? 0 : -1;
}

static int
cal_parse(tool_options *options, int argc, char **argv, cal_args *args)
{
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int r;
        if (strcmp(argv[i], "--evaluate") == 0)
            args->evaluate = 1;
        else if (strcmp(argv[i], "--stored") == 0)
            args->no_train = 1;
        else if (strcmp(argv[i], "--quick") == 0)
            args->quick = 1;
        else if ((r = tool_option_value(argc, argv, &i, "--repeats", &value)) != 0) {
            if (r < 0 || tool_parse_ulong("--repeats", value, 1, 32, &args->repeats) < 0)
                return TOOL_EXIT_USAGE;
        } else if ((r = tool_option_value(argc, argv, &i, "--variants", &value)) != 0) {
            if (r < 0 || parse_variants(value, &args->variants) < 0)
                return tool_usage_error("calibrate", "--variants wants local, global, private");
        } else if ((r = tool_common_option(options, argc, argv, &i)) <= 0)
            return r < 0 ? TOOL_EXIT_USAGE
                         : tool_usage_error("calibrate", "unexpected argument '%s'", argv[i]);
    }
    if (args->no_train && !args->evaluate)
        return tool_usage_error("calibrate", "--stored goes with --evaluate");
    return TOOL_EXIT_OK;
}

typedef struct progress_state {
    const tool_options *options;
    const char *what;
} progress_state;

static void
on_progress(void *user, unsigned done, unsigned total)
{
    const progress_state *p = user;
    tool_progress(p->options, "\r%s: %u/%u cases%s", p->what, done, total,
                  done == total ? "\n" : "");
}

static void
cal_options(const cal_args *args, progress_state *progress, cal_result *result,
            votecl_calibrate_options *o)
{
    votecl_calibrate_options_init(o);
    o->quick = args->quick;
    o->repeats = (unsigned)args->repeats;
    o->variants = args->variants;
    o->progress = on_progress;
    o->progress_user = progress;
    o->samples = result->samples;
    o->samples_capacity = CAL_MAX_SAMPLES;
}

static int
cal_run(votecl_context *ctx, const tool_options *options, const cal_args *args, int evaluate,
        const votecl_model *model, cal_result *result)
{
    progress_state progress = {options, evaluate ? "evaluate" : "calibrate"};
    votecl_calibrate_options o;
    votecl_status st;

    result->samples = calloc(CAL_MAX_SAMPLES, sizeof *result->samples);
    if (result->samples == NULL)
        return tool_fail(NULL, VOTECL_OUT_OF_HOST_MEMORY, "calibrate");
    cal_options(args, &progress, result, &o);
    st = evaluate ? votecl_model_evaluate(ctx, model, &o, &result->report)
                  : votecl_model_calibrate(ctx, &o, &result->report);
    result->nsamples = result->report.cases < CAL_MAX_SAMPLES ? result->report.cases
                                                               : CAL_MAX_SAMPLES;
    if (st != VOTECL_OK)
        return tool_fail(ctx, st, evaluate ? "evaluate" : "calibrate");
    return TOOL_EXIT_OK;
}

/* --- text output --- */

static void
print_params(const votecl_model *model)
{
    printf("%-8s %7s %9s", "strategy", "samples", "fit err");
    for (int j = 0; j < VOTECL_MODEL_NTERMS; j++)
        printf(" %11s", votecl_model_term_name((votecl_model_term)j));
    printf("\n");
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++) {
        const votecl_model_params *p = &model->strategy[v];
        printf("%-8s ", votecl_variant_name((votecl_variant)v));
        if (!p->fitted) {
            printf("%7s\n", "-");
            continue;
        }
        printf("%7u %8.1f%%", p->samples, 100 * p->mean_abs_error);
        for (int j = 0; j < VOTECL_MODEL_NTERMS; j++)
            printf(" %11.4g", p->param[j]);
        printf("\n");
    }
}

static void
print_training(const cal_result *train, const char *path)
{
    const votecl_calibrate_report *r = &train->report;
    printf("training: %zu runs in %.1f s; parameters in seconds per unit of their term\n",
           r->cases, r->seconds);
    print_params(&r->model);
    if (r->stored)
        printf("stored in %s\n", path);
}

/* Held-out runs of strategy v among the cases kept. */
static size_t
strategy_runs(const cal_result *res, votecl_variant v)
{
    size_t n = 0;
    for (size_t i = 0; i < res->nsamples; i++)
        n += res->samples[i].variant == v;
    return n;
}

static void
print_evaluation(const cal_result *eval)
{
    const votecl_calibrate_report *r = &eval->report;
    printf("held-out: %zu runs in %.1f s: mean absolute error %.1f%%, within +-10%%: %.1f%%"
           " (paper: 5%%, 95%%), worst %.1f%%\n",
           r->cases, r->seconds, 100 * r->mean_abs_error, 100 * r->within_10,
           100 * r->max_abs_error);
    printf("  %-8s %4zu runs: mean absolute error %.1f%%, within +-10%%: %.1f%%"
           " (the strategy the model picks for each case's G, N, E and eta)\n",
           "picked", r->picked_cases, 100 * r->picked_mean_abs_error, 100 * r->picked_within_10);
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++)
        if (r->model.strategy[v].fitted)
            printf("  %-8s %4zu runs: mean absolute error %.1f%%, within +-10%%: %.1f%%\n",
                   votecl_variant_name((votecl_variant)v),
                   strategy_runs(eval, (votecl_variant)v), 100 * r->strategy_mean_abs_error[v],
                   100 * r->strategy_within_10[v]);
}

/* --- JSON output --- */

static void
json_model(tool_json *j, const votecl_model *model)
{
    tool_json_begin_object(j);
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++) {
        const votecl_model_params *p = &model->strategy[v];
        tool_json_key(j, votecl_variant_name((votecl_variant)v));
        tool_json_begin_object(j);
        tool_json_kv_bool(j, "fitted", p->fitted);
        tool_json_kv_uint(j, "samples", p->samples);
        tool_json_kv_double(j, "fit_mean_abs_error", p->mean_abs_error);
        for (int t = 0; t < VOTECL_MODEL_NTERMS; t++)
            tool_json_kv_double(j, votecl_model_term_name((votecl_model_term)t), p->param[t]);
        tool_json_end_object(j);
    }
    tool_json_end_object(j);
}

static void
json_cases(tool_json *j, const cal_result *res, const votecl_model *model)
{
    tool_json_key(j, "cases");
    tool_json_begin_array(j);
    for (size_t i = 0; i < res->nsamples; i++) {
        const votecl_model_sample *s = &res->samples[i];
        double predicted = 0;
        int have = votecl_model_predict(model, s, &predicted) == VOTECL_OK;
        j->compact_depth = j->depth;
        tool_json_begin_object(j);
        tool_json_kv_string(j, "variant", votecl_variant_name(s->variant));
        tool_json_kv_bool(j, "location_based", s->location_based);
        tool_json_kv_double(j, "E", s->elements);
        tool_json_kv_double(j, "eta", s->eta);
        tool_json_kv_uint(j, "G", s->spaces);
        tool_json_kv_uint(j, "N", s->nbins);
        tool_json_kv_uint(j, "S_prime", s->stretch);
        tool_json_kv_uint(j, "P", s->parts);
        tool_json_kv_uint(j, "passes", s->passes);
        tool_json_kv_uint(j, "copies", s->copies);
        tool_json_kv_uint(j, "work_group_size", s->work_group_size);
        tool_json_kv_bool(j, "serial", s->serial);
        tool_json_kv_uint(j, "launches", s->launches);
        tool_json_kv_uint(j, "resident", s->resident);
        tool_json_kv_double(j, "footprint", s->footprint);
        tool_json_kv_double(j, "seconds", s->seconds);
        tool_json_key(j, "predicted_seconds");
        if (have)
            tool_json_double(j, predicted);
        else
            tool_json_null(j);
        tool_json_end_object(j);
        j->compact_depth = 0;
    }
    tool_json_end_array(j);
}

/* Per strategy: held-out runs, mean absolute error, share within +-10%. */
static void
json_strategies(tool_json *j, const cal_result *res)
{
    const votecl_calibrate_report *r = &res->report;
    tool_json_key(j, "strategies");
    tool_json_begin_object(j);
    for (int v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++) {
        if (!r->model.strategy[v].fitted)
            continue;
        tool_json_key(j, votecl_variant_name((votecl_variant)v));
        tool_json_begin_object(j);
        tool_json_kv_uint(j, "runs", strategy_runs(res, (votecl_variant)v));
        tool_json_kv_double(j, "mean_abs_error", r->strategy_mean_abs_error[v]);
        tool_json_kv_double(j, "within_10_percent", r->strategy_within_10[v]);
        tool_json_end_object(j);
    }
    tool_json_end_object(j);
}

static void
json_report(tool_json *j, const char *key, const cal_result *res, int evaluate)
{
    const votecl_calibrate_report *r = &res->report;
    tool_json_key(j, key);
    tool_json_begin_object(j);
    tool_json_kv_uint(j, "runs", r->cases);
    tool_json_kv_double(j, "seconds", r->seconds);
    if (evaluate) {
        tool_json_kv_double(j, "mean_abs_error", r->mean_abs_error);
        tool_json_kv_double(j, "within_10_percent", r->within_10);
        tool_json_kv_double(j, "max_abs_error", r->max_abs_error);
        tool_json_key(j, "picked");
        tool_json_begin_object(j);
        tool_json_kv_uint(j, "runs", r->picked_cases);
        tool_json_kv_double(j, "mean_abs_error", r->picked_mean_abs_error);
        tool_json_kv_double(j, "within_10_percent", r->picked_within_10);
        tool_json_end_object(j);
        json_strategies(j, res);
    } else {
        tool_json_kv_bool(j, "stored", r->stored);
        tool_json_key(j, "model");
        json_model(j, &r->model);
    }
    json_cases(j, res, &r->model);
    tool_json_end_object(j);
}

static void
print_json(const votecl_device_info *dev, const char *path, const cal_result *train,
           const cal_result *eval)
{
    tool_json j;
    tool_json_document(&j, stdout, "calibrate"); /* "device": dev's name, from tool_context_open */
    tool_json_parameters(&j);
    tool_json_kv_string(&j, "model_file", path);
    tool_json_results(&j);
    tool_json_kv_string(&j, "platform", dev->platform);
    tool_json_kv_uint(&j, "compute_units", dev->compute_units);
    if (train->samples)
        json_report(&j, "training", train, 0);
    if (eval->samples)
        json_report(&j, "evaluation", eval, 1);
    tool_json_document_end(&j);
}

static int
cal_main(votecl_context *ctx, const tool_options *options, const cal_args *args)
{
    cal_result train = {0}, eval = {0};
    votecl_device_info dev;
    char path[4096] = "";
    int rc = TOOL_EXIT_OK;

    votecl_context_get_device_info(ctx, &dev);
    votecl_model_path(ctx, path, sizeof path);
    tool_progress(options, "calibrating %s (%s)\n", dev.name, dev.platform);
    if (!args->no_train)
        rc = cal_run(ctx, options, args, 0, NULL, &train);
    if (rc == TOOL_EXIT_OK && args->evaluate)
        rc = cal_run(ctx, options, args, 1, args->no_train ? NULL : &train.report.model, &eval);
    if (rc == TOOL_EXIT_OK && options->json)
        print_json(&dev, path, &train, &eval);
    else if (rc == TOOL_EXIT_OK) {
        printf("device: %s (%s), %u compute units\n", dev.name, dev.platform, dev.compute_units);
        if (train.samples)
            print_training(&train, path);
        if (eval.samples)
            print_evaluation(&eval);
    }
    free(train.samples);
    free(eval.samples);
    return rc;
}

int
tool_cmd_calibrate(tool_options *options, int argc, char **argv)
{
    cal_args args = {0};
    votecl_context *ctx = NULL;
    int rc = cal_parse(options, argc, argv, &args);

    if (rc != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        cal_usage(stdout);
        return TOOL_EXIT_OK;
    }
    rc = tool_context_open(options, &ctx);
    if (rc == TOOL_EXIT_OK)
        rc = cal_main(ctx, options, &args);
    votecl_context_free(ctx);
    return rc;
}
