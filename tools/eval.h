/* votecl eval: accuracy suites, one descriptor per algorithm.
 *
 * A suite generates seeded cases whose truth is known (tests/truth-*.c), runs the library with
 * its defaults on the chosen backend, and scores recall, precision and error per case family.
 * Adding a suite is one file (tools/eval-<name>.c defining its descriptor) and one line in the
 * table of cmd-eval.c. The OpenCV comparison runs in Python on the cases the suite dumps with
 * --dump DIR (tools/eval-<name>.py). */
#ifndef VOTECL_TOOL_EVAL_H
#define VOTECL_TOOL_EVAL_H

#include "tool.h"

typedef struct tool_eval_suite {
    const char *name; /* the word after "votecl eval" */
    const char *help; /* one line for "votecl eval --help" */
    /* Runs the suite: argv[0] is the suite's name, its own options follow (the common ones are
     * handed to tool_common_option()). Returns a TOOL_EXIT_* code. */
    int (*run)(tool_options *options, int argc, char **argv);
} tool_eval_suite;

extern const tool_eval_suite tool_eval_hog;
extern const tool_eval_suite tool_eval_lines;
extern const tool_eval_suite tool_eval_ght;
extern const tool_eval_suite tool_eval_circles;

#endif
