/* The algorithms as the votecl tool sees them: one descriptor per algorithm
 * (tools/algo-<name>.c) and one list, tool_algorithms[] (tools/algorithms.c), which
 * `votecl demo`, `votecl bench`, `votecl batch` and `votecl eval` iterate.
 *
 * A descriptor holds the algorithm's hooks into each of those commands; a hook it lacks is
 * NULL (or a count of 0) and that command passes it by. Adding an algorithm to the tool is one
 * file tools/algo-<name>.c defining its tool_algorithm, one line in tool_algorithms[] and one
 * in Makefile.am (docs/adding-an-algorithm.md). The tests' side of the same algorithm is
 * tests/cases.h; the library's warm-up is lib/warmup.c's list.
 *
 * Why three lists and not one: the library cannot see the tests or the tool, and the tests
 * do not link the tool's image, JSON and PNG code; each layer lists what it can call. */
#ifndef VOTECL_TOOL_ALGORITHMS_H
#define VOTECL_TOOL_ALGORITHMS_H

#include "eval.h"
#include "json.h"
#include "tool.h"

/* --- votecl demo: steps run on every image of the demo's directory --- */

typedef struct tool_demo {
    tool_options *options;
    votecl_context *ctx;
    const char *image_dir;
    const char *out_dir;
} tool_demo;

typedef struct tool_demo_image {
    const char *file; /* file name inside the image directory */
    char stem[128];   /* file name without extension, for output names */
    tool_image image; /* as read */
    tool_image gray;  /* one channel */
} tool_demo_image;

typedef enum tool_demo_result {
    TOOL_DEMO_DONE,
    TOOL_DEMO_SKIPPED,
    TOOL_DEMO_FAILED
} tool_demo_result;

typedef struct tool_demo_step {
    const char *name;
    const char *help; /* one line for "votecl demo --help" */
    /* Prints its summary lines ("    ...") on stdout and writes its annotated images. */
    tool_demo_result (*run)(tool_demo *d, const tool_demo_image *im);
} tool_demo_step;

/* Writes canvas as <out_dir>/<stem>-<step>.png into path; -1 (said on stderr) on failure. */
int tool_demo_write_image(const tool_demo *d, const tool_image *canvas, const char *stem,
                          const char *step, char *path, size_t size);
/* Captions canvas, which a tool_*_annotate() or tool_plot_*_render() call returning made
 * filled (its message in error), with note (NULL: none), writes it as <stem>-<step>.png,
 * prints "    wrote PATH" and frees it; the call's failure is said on stderr
 * (TOOL_DEMO_FAILED). */
tool_demo_result tool_demo_write_captioned(const tool_demo *d, int made, tool_image *canvas,
                                           const char *error, const char *stem, const char *step,
                                           const char *note);

/* --- votecl batch: one algorithm over a collection --- */

typedef struct tool_batch_case {
    const char *options; /* its options, for the usage text */
    size_t args_size;    /* bytes of its argument struct, which init fills */
    void (*init)(void *args);
    tool_option_fn option;
    int (*prepare)(void *args, char *error, size_t size); /* after parsing; may be NULL */
    void (*cleanup)(void *args);                          /* may be NULL */
    int colour;                                           /* video frames as RGB */
    /* The results of image as members of the open object j; *seconds the timed run. state:
     * the worker's own, NULL at first, for what outlives one image (plans, models). */
    votecl_status (*compute)(const void *args, votecl_context *ctx, void **state,
                             const tool_image *image, tool_json *j, double *seconds,
                             tool_image *annotated);
    void (*state_free)(void *state); /* may be NULL */
} tool_batch_case;

/* The status of a tool_*_annotate() call: its only failure is memory. */
votecl_status tool_annotate_status(int rc);

/* --- votecl bench: timed cases on the current device (tools/bench.h) --- */

typedef struct tool_bench tool_bench;

typedef struct tool_bench_group {
    const char *name; /* the word after --only */
    /* Appends its cases, each one JSON object, to the open "cases" array. */
    void (*run)(tool_bench *b);
} tool_bench_group;

/* --- the descriptor --- */

typedef struct tool_algorithm {
    const char *name;
    const tool_demo_step *demo; /* votecl demo's steps, in order */
    size_t ndemo;
    const tool_bench_group *bench; /* votecl bench's groups, in order */
    size_t nbench;
    const tool_batch_case *batch; /* votecl batch NAME */
    const tool_eval_suite *eval;  /* votecl eval SUITE (its own name) */
} tool_algorithm;

/* A descriptor of name from its arrays of demo steps and bench groups (their counts taken
 * from the arrays), its batch case and eval suite (either may be NULL). */
#define TOOL_ALGORITHM(name, demo, bench, batch, eval)                                             \
    {                                                                                              \
        name, demo, sizeof(demo) / sizeof((demo)[0]), bench, sizeof(bench) / sizeof((bench)[0]),   \
            batch, eval                                                                            \
    }

/* The batch hooks <stem>_init, <stem>_option and <stem>_compute, for a tool_batch_case. */
#define TOOL_BATCH_HOOKS(stem)                                                                     \
    .init = stem##_init, .option = stem##_option, .compute = stem##_compute

/* Defines tool_algo_<stem>, the descriptor of an algorithm with one demo step and one bench
 * group, both named <stem> and run by demo_<stem> and bench_<stem>; its eval suite (or NULL)
 * and its batch case, the tool_batch_case the remaining arguments initialise. */
#define TOOL_ALGORITHM_ONE(stem, help, eval, ...)                                                  \
    static const tool_demo_step stem##_demo[] = {{#stem, help, demo_##stem}};                      \
    static const tool_bench_group stem##_bench[] = {{#stem, bench_##stem}};                        \
    static const tool_batch_case stem##_batch = {__VA_ARGS__};                                     \
    const tool_algorithm tool_algo_##stem =                                                        \
        TOOL_ALGORITHM(#stem, stem##_demo, stem##_bench, &stem##_batch, eval)

/* NULL-terminated, in the order the commands run and list them. */
extern const tool_algorithm *const tool_algorithms[];

/* The algorithm called name, NULL when none. */
const tool_algorithm *tool_algorithm_find(const char *name);

extern const tool_algorithm tool_algo_hist, tool_algo_hough, tool_algo_lines, tool_algo_subsample,
    tool_algo_hog, tool_algo_ght, tool_algo_circles;

#endif
