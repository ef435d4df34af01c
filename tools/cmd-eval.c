/* votecl eval SUITE: runs one accuracy suite (tools/eval.h), an algorithm's (tools/algorithms.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "algorithms.h"
#include "eval.h"

static void
eval_usage(FILE *f)
{
    fprintf(f, "usage: votecl eval SUITE [OPTIONS]   (votecl eval SUITE --help for details)\n\n"
               "suites:\n");
    for (size_t i = 0; tool_algorithms[i] != NULL; i++)
        if (tool_algorithms[i]->eval != NULL)
            fprintf(f, "  %-8s %s\n", tool_algorithms[i]->eval->name,
                    tool_algorithms[i]->eval->help);
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
    for (size_t s = 0; tool_algorithms[s] != NULL; s++)
        if (tool_algorithms[s]->eval != NULL &&
            strcmp(tool_algorithms[s]->eval->name, argv[i]) == 0)
            return tool_algorithms[s]->eval->run(options, argc - i, argv + i);
    return tool_usage_error("eval", "unknown suite '%s'", argv[i]);
}
