/* What the truth suites of one image per case share (eval.h): their options, their run from
 * the arguments to the JSON document, the dump's entries and the scores' common members. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "eval.h"
#include "json.h"
#include "options.h"

static const tool_option_spec eval_options[] = {
    TOOL_OPT_FLAG(tool_eval_args, large, "--large"),
    TOOL_OPT_FLAG(tool_eval_args, verbose, "--verbose"),
    TOOL_OPT_STRING(tool_eval_args, dump, "--dump"),
    TOOL_OPT_RANGE(tool_eval_args, cases, "--cases", 1, 1000000),
    TOOL_OPT_NUMBER(tool_eval_args, seed, "--seed", UINT32_MAX),
};

static int
family_find(const tool_eval_runner *s, const char *name, tool_eval_family *out)
{
    for (size_t k = 0; s->family(k, out); k++)
        if (strcmp(out->name, name) == 0)
            return 1;
    return 0;
}

static int
eval_option(const tool_eval_runner *s, const char *command, int argc, char **argv, int *i)
{
    tool_eval_family fam;
    const char *v = NULL;
    int r;

    if ((r = tool_option_value(argc, argv, i, "--family", &v)) != 0) {
        if (r > 0 && !family_find(s, v, &fam))
            return tool_usage_error(command, "unknown family '%s'", v), -1;
        return r < 0 ? r : (s->common->family = v, 1);
    }
    r = tool_option_table(eval_options, TOOL_OPTION_COUNT(eval_options), s->common, argc, argv, i);
    return r != 0 ? r : s->option(s->args, argc, argv, i);
}

static int
eval_parse(tool_options *options, const tool_eval_runner *s, const char *command, int argc,
           char **argv)
{
    for (int i = 1; i < argc; i++) {
        int r = tool_common_option(options, argc, argv, &i);
        if (r == 0)
            r = eval_option(s, command, argc, argv, &i);
        if (r < 0)
            return TOOL_EXIT_USAGE;
        if (r == 0)
            return tool_usage_error(command, "unknown argument '%s'", argv[i]);
    }
    return TOOL_EXIT_OK;
}

static void
eval_usage(const tool_eval_runner *s)
{
    tool_eval_family fam;

    s->usage(stdout);
    for (size_t k = 0; s->family(k, &fam); k++)
        printf(" %s", fam.name);
    printf("\n");
}

static FILE *
dump_open(const tool_eval_runner *s)
{
    char path[4096];
    FILE *f;

    if (tool_make_directories(s->common->dump) != 0)
        return NULL;
    if (snprintf(path, sizeof path, "%s/cases.json", s->common->dump) >= (int)sizeof path)
        return NULL;
    if ((f = fopen(path, "w")) != NULL) {
        fprintf(f, "{\"suite\": \"%s\"", s->suite);
        if (s->dump_head != NULL)
            s->dump_head(f);
        fprintf(f, ", \"cases\": [");
    }
    return f;
}

/* The document: the header, the parameters, one object a family chosen. */
static int
eval_families(tool_options *options, const tool_eval_runner *s, votecl_context *ctx, FILE *index)
{
    const tool_eval_args *a = s->common;
    tool_eval_family fam;
    tool_json j;
    int rc = TOOL_EXIT_OK, first = 1;

    tool_json_document(&j, stdout, "eval");
    tool_json_parameters(&j);
    tool_json_kv_string(&j, "suite", s->suite);
    tool_json_kv_uint(&j, "seed", a->seed);
    if (s->parameters != NULL)
        s->parameters(&j);
    tool_json_results(&j);
    tool_json_key(&j, "families");
    tool_json_begin_array(&j);
    for (size_t k = 0; s->family(k, &fam) && rc == TOOL_EXIT_OK; k++) {
        if (a->family != NULL ? strcmp(a->family, fam.name) != 0 : (fam.large && !a->large))
            continue;
        tool_progress(options, "%s: %s\n", s->suite, fam.name);
        rc = s->run_family(ctx, s->args, k, &j, index, &first);
    }
    tool_json_end_array(&j);
    tool_json_document_end(&j);
    return rc;
}

int
tool_eval_run(tool_options *options, const tool_eval_runner *s, int argc, char **argv)
{
    char command[64];
    votecl_context *ctx = NULL;
    FILE *index = NULL;
    int rc;

    snprintf(command, sizeof command, "eval %s", s->suite);
    if ((rc = eval_parse(options, s, command, argc, argv)) != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        eval_usage(s);
        return TOOL_EXIT_OK;
    }
    if (s->common->dump != NULL && (index = dump_open(s)) == NULL) {
        fprintf(stderr, "votecl %s: cannot write %s/cases.json\n", command, s->common->dump);
        return TOOL_EXIT_FAILURE;
    }
    if ((rc = tool_context_open(options, &ctx)) == TOOL_EXIT_OK)
        rc = eval_families(options, s, ctx, index);
    if (index != NULL) {
        fprintf(index, "\n]}\n");
        if (fclose(index) != 0)
            rc = TOOL_EXIT_FAILURE;
    }
    votecl_context_free(ctx);
    return rc;
}

int
tool_eval_dump_case(const tool_eval_runner *s, const char *family, const char *name,
                    const uint8_t *pixels, uint32_t width, uint32_t height, FILE *index, int first)
{
    char path[4096], error[256];
    tool_image im = {(unsigned char *)pixels, width, height, width, 1, VOTECL_DTYPE_U8};

    if (snprintf(path, sizeof path, "%s/%s.pgm", s->common->dump, name) >= (int)sizeof path)
        return -1;
    if (tool_image_write(path, &im, error, sizeof error) < 0) {
        fprintf(stderr, "votecl eval %s: %s\n", s->suite, error);
        return -1;
    }
    fprintf(index,
            "%s\n  {\"family\": \"%s\", \"name\": \"%s\", \"file\": \"%s.pgm\", \"width\": %u, "
            "\"height\": %u",
            first ? "" : ",", family, name, name, width, height);
    return 0;
}

void
tool_eval_family_begin(tool_json *j, const char *family)
{
    tool_json_begin_object(j);
    tool_json_kv_string(j, "family", family);
    tool_json_key(j, "detectors");
    tool_json_begin_array(j);
}

void
tool_eval_family_end(tool_json *j)
{
    tool_json_end_array(j);
    tool_json_end_object(j);
}

void
tool_eval_score_begin(tool_json *j, const char *detector, const tool_eval_counts *c)
{
    tool_json_begin_object(j);
    tool_json_kv_string(j, "detector", detector);
    tool_json_kv_uint(j, "cases", c->cases);
    tool_json_kv_uint(j, "cases_all_found", c->cases_all_found);
    tool_json_kv_uint(j, "truths", c->truths);
    tool_json_kv_uint(j, "matched", c->matched);
    tool_json_kv_uint(j, "detections", c->detections);
    tool_json_kv_uint(j, "duplicates", c->duplicates);
    tool_json_kv_uint(j, "false_positives", c->false_positives);
    tool_json_kv_double(j, "recall", c->recall);
    tool_json_kv_double(j, "precision", c->precision);
}

void
tool_eval_score_end(tool_json *j, size_t failures, double seconds, size_t cases)
{
    tool_json_kv_uint(j, "failures", failures);
    tool_json_kv_double(j, "seconds_per_case", cases ? seconds / (double)cases : 0.0);
    tool_json_end_object(j);
}
