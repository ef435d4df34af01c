/* votecl eval: accuracy suites, one descriptor per algorithm.
 *
 * A suite generates seeded cases whose truth is known (tests/truth-*.c), runs the library with
 * its defaults on the chosen backend, and scores recall, precision and error per case family.
 * Adding a suite is one file (tools/eval-<name>.c defining its descriptor) and one line in the
 * table of cmd-eval.c. The OpenCV comparison runs in Python on the cases the suite dumps with
 * --dump DIR (tools/eval-<name>.py). */
#ifndef VOTECL_TOOL_EVAL_H
#define VOTECL_TOOL_EVAL_H

#include <stdio.h>

#include "tool.h"

struct tool_json;

typedef struct tool_eval_suite {
    const char *name; /* the word after "votecl eval" */
    const char *help; /* one line for "votecl eval --help" */
    /* Runs the suite: argv[0] is the suite's name, its own options follow (the common ones are
     * handed to tool_common_option()). Returns a TOOL_EXIT_* code. */
    int (*run)(tool_options *options, int argc, char **argv);
} tool_eval_suite;

/* --- what the suites of one image per case share (eval-lines.c, eval-circles.c) --- */

/* The options every such suite takes: --family, --large, --cases, --seed, --dump, --verbose. */
typedef struct tool_eval_args {
    const char *family; /* NULL: all but the large ones */
    const char *dump;
    unsigned long seed, cases;
    int large, verbose;
} tool_eval_args;

typedef struct tool_eval_family {
    const char *name;
    size_t count; /* cases */
    int large;    /* 1: only with --large or --family */
} tool_eval_family;

typedef struct tool_eval_runner {
    const char *suite;      /* "lines": the JSON's suite, messages' "votecl eval lines: " */
    tool_eval_args *common; /* the shared options, inside args */
    void *args;             /* the suite's own, handed to option and run_family */
    tool_option_fn option;  /* the suite's own options, after the shared ones */
    void (*usage)(FILE *f); /* ends with "families:"; the runner lists them */
    /* Family k as the runner sees it; 0 past the last. */
    int (*family)(size_t k, tool_eval_family *out);
    /* The members of --dump's cases.json after "suite" (", \"key\": value"); may be NULL. */
    void (*dump_head)(FILE *index);
    /* The members of "parameters" after "suite" and "seed"; may be NULL. */
    void (*parameters)(struct tool_json *j);
    /* Runs family k, appending its object to the open "families" array; index: cases.json
     * (NULL without --dump), first: no case written in it yet. Returns a TOOL_EXIT_* code. */
    int (*run_family)(votecl_context *ctx, void *args, size_t k, struct tool_json *j, FILE *index,
                      int *first);
} tool_eval_runner;

/* A suite's whole run: the arguments, --help, the dump's index, the context, the JSON
 * document with one object a family run. Returns a TOOL_EXIT_* code. */
int tool_eval_run(tool_options *options, const tool_eval_runner *s, int argc, char **argv);

/* Writes a case's u8 image as DUMP/NAME.pgm and opens its entry in index ("family", "name",
 * "file", "width", "height"; the suite adds its members and closes it). 0, or -1 after a
 * message on stderr. */
int tool_eval_dump_case(const tool_eval_runner *s, const char *family, const char *name,
                        const uint8_t *pixels, uint32_t width, uint32_t height, FILE *index,
                        int first);

/* One family's object: "family" and the opened "detectors" array, which _end closes. */
void tool_eval_family_begin(struct tool_json *j, const char *family);
void tool_eval_family_end(struct tool_json *j);

/* The counts every score reports, the same members in truth_lines_score and
 * truth_circles_score. */
typedef struct tool_eval_counts {
    size_t cases, cases_all_found, truths, matched, detections, duplicates, false_positives;
    double recall, precision;
} tool_eval_counts;

#define TOOL_EVAL_COUNTS(s, recall, precision)                                                     \
    ((tool_eval_counts){(s)->cases, (s)->cases_all_found, (s)->truths, (s)->matched,               \
                        (s)->detections, (s)->duplicates, (s)->false_positives, recall(s),         \
                        precision(s)})

/* Opens a detector's score object with its counts; the suite adds its errors, then _end
 * writes "failures" and "seconds_per_case" and closes it. */
void tool_eval_score_begin(struct tool_json *j, const char *detector, const tool_eval_counts *c);
void tool_eval_score_end(struct tool_json *j, size_t failures, double seconds, size_t cases);

extern const tool_eval_suite tool_eval_hog;
extern const tool_eval_suite tool_eval_lines;
extern const tool_eval_suite tool_eval_ght;
extern const tool_eval_suite tool_eval_circles;

#endif
