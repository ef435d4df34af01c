/* votecl warmup: builds and caches the kernels of every module's default plans for the
 * selected device (votecl_context_warmup), so that a package's post-install or a service's
 * start pays compilation once and later processes load the programs from the disk cache. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "tool.h"

typedef struct warm_state {
    const tool_options *options;
    double step_start;
    const char *step;
} warm_state;

static void
warm_usage(FILE *f)
{
    fprintf(f, "usage: votecl warmup [--all] [--json]\n"
               "Builds the kernels of every module's default plans (histograms of each element\n"
               "type and of RGB images, Hough and PClines at 1920x1080, HOG people, GHT Guil and\n"
               "Ballard) for the selected device and stores them in the disk cache (on PoCL,\n"
               "in PoCL's own kernel cache). Progress on stderr when it is a terminal (-q: none).\n"
               "  --all  also every forced histogram strategy of every element type, and RGBA\n"
               "  --json the shared JSON document (votecl(1), JSON OUTPUT) instead of a line\n");
}

/* Names the step that finished when it took over a second, then the one starting. */
static void
warm_finish_step(warm_state *s)
{
    double now = tool_now();
    if (s->step != NULL && now - s->step_start > 1.0)
        tool_progress(s->options, "warmup: %s took %.1f s\n", s->step, now - s->step_start);
    s->step_start = now;
}

static void
warm_progress(const char *step, unsigned index, unsigned steps, void *user)
{
    warm_state *s = user;
    warm_finish_step(s);
    s->step = step;
    tool_progress(s->options, "warmup: [%u/%u] %s\n", index + 1, steps, step);
}

int
tool_cmd_warmup(tool_options *options, int argc, char **argv)
{
    unsigned flags = 0;
    votecl_context *ctx = NULL;
    warm_state state = {options, 0.0, NULL};
    double t0;
    votecl_status st;
    int rc;

    if (options->help) {
        warm_usage(stdout);
        return TOOL_EXIT_OK;
    }
    for (int i = 1; i < argc; i++) {
        int r = tool_common_option(options, argc, argv, &i); /* --json after the command */
        if (r < 0)
            return TOOL_EXIT_USAGE;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--all") == 0)
            flags |= VOTECL_WARMUP_ALL;
        else
            return tool_usage_error("warmup", "unexpected argument '%s'", argv[i]);
    }
    t0 = tool_now();
    if ((rc = tool_context_open(options, &ctx)) != TOOL_EXIT_OK)
        return rc;
    state.step_start = tool_now();
    st = votecl_context_warmup(ctx, flags, warm_progress, &state);
    warm_finish_step(&state);
    if (st == VOTECL_OK && options->json) {
        tool_json j;
        const char *cache = votecl_context_get_cache_dir(ctx);
        tool_json_document(&j, stdout, "warmup");
        tool_json_parameters(&j);
        tool_json_kv_bool(&j, "all", (flags & VOTECL_WARMUP_ALL) != 0);
        tool_json_results(&j);
        tool_json_kv_double(&j, "seconds", tool_now() - t0);
        tool_json_kv_string(&j, "cache_dir", cache[0] ? cache : NULL);
        tool_json_document_end(&j);
        rc = TOOL_EXIT_OK;
    } else if (st == VOTECL_OK) {
        printf("warmup: kernels built for %s in %.1f s; cache %s\n",
               votecl_backend_name(votecl_context_get_backend(ctx)), tool_now() - t0,
               votecl_context_get_cache_dir(ctx)[0] ? votecl_context_get_cache_dir(ctx) : "(off)");
        rc = TOOL_EXIT_OK;
    } else {
        rc = tool_fail(ctx, st, "warmup");
    }
    votecl_context_free(ctx);
    return rc;
}
