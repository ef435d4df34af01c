/* votecl eval SUITE: runs one accuracy suite (tools/eval.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "eval.h"

/* Adding a suite is one line here (its descriptor lives in tools/eval-<name>.c). */
static const tool_eval_suite *const tool_eval_suites[] = {
    &tool_eval_hog,
    &tool_eval_lines,
    &tool_eval_ght,
    &tool_eval_circles,
    NULL,
};

static void
eval_usage(FILE *f)
{
    fprintf(f, "usage: votecl eval SUITE [OPTIONS]   (votecl eval SUITE --help for details)\n\n"
               "suites:\n");
    for (size_t i = 0; tool_eval_suites[i]; i++)
        fprintf(f, "  %-8s %s\n", tool_eval_suites[i]->name, tool_eval_suites[i]->help);
}

int
tool_cmd_eval(tool_options *options, int argc, char **argv)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        int r = tool_common_option(options, argc, argv, &i);
        if (r < 0)
            return TOOL_EXIT_USAGE;
        if (r == 0)
            return tool_usage_error("eval", "unknown option '%s'", argv[i]);
    }
    if (i >= argc) {
        eval_usage(options->help ? stdout : stderr);
        return options->help ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
    }
    for (size_t s = 0; tool_eval_suites[s]; s++)
        if (strcmp(tool_eval_suites[s]->name, argv[i]) == 0)
            return tool_eval_suites[s]->run(options, argc - i, argv + i);
    return tool_usage_error("eval", "unknown suite '%s'", argv[i]);
}
