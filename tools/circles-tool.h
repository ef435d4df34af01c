/* What votecl circles shares with its descriptor (tools/algo-circles.c: demo, batch, bench):
 * the options, the run and the output, so that a batch record equals the command's output. */
#ifndef VOTECL_TOOL_CIRCLES_H
#define VOTECL_TOOL_CIRCLES_H

#include "json.h"
#include "tool.h"

/* Circles shown at most (the command's default max_circles). */
#define TOOL_CIRCLES_MAX_SHOWN 100

typedef struct tool_circles_result {
    votecl_circle *circles; /* owned: shown entries, in the method's order */
    size_t found, shown;
    votecl_vote_stats stats;
    double seconds; /* the second run, gray image in to circles out */
} tool_circles_result;

/* Initialises params with the command's defaults for method. */
void tool_circles_params_init(votecl_circles_params *params, votecl_circles_method method);
/* One of the command's options into params (tool_option_fn's contract: 1 taken, 0 not
 * mine, -1 a usage error said). */
int tool_circles_option(votecl_circles_params *params, int argc, char **argv, int *i);
/* The image (any tool_image; converted to u8 gray, its Canny edges for the radii method) run
 * twice, the second timed. r: caller-owned, freed with tool_circles_result_free() also after
 * a failure. */
votecl_status tool_circles_compute(votecl_context *ctx, const votecl_circles_params *params,
                                   const tool_image *image, tool_circles_result *r);
void tool_circles_result_free(tool_circles_result *r);
/* The parameters (the "parameters" object) and the results (the "results" object, left open
 * for the caller's additions, its time not among them: a batch record equals the command's
 * output) as members of the open object j. */
void tool_circles_json(tool_json *j, const votecl_circles_params *params,
                       const tool_circles_result *r);
/* A dimmed RGB copy of image with the circles drawn and numbered. out: caller-owned. */
int tool_circles_annotate(const tool_image *image, const votecl_circle *circles, size_t n,
                          tool_image *out, char *error, size_t error_size);

#endif
