/* The segment checks the two line detectors share (tests/test-hough.c, tests/test-pclines.c):
 * both find segments along their lines (params.segments = 1) on the same scenes, and both
 * must report the same runs of tests/truth-lines.h's dashed scene. A detector enters through
 * a small table of calls. */
#ifndef VOTECL_TEST_SEGMENTS_H
#define VOTECL_TEST_SEGMENTS_H

#include "testutil.h"

#include <stddef.h>
#include <stdint.h>

/* scikit-image's test_probabilistic_hough scene, TU_SEGMENTS_SIDE pixels square (rows packed):
 * two 8-connected 45-degree lines, a horizontal and a vertical one; tu_segments_whole_want
 * holds their end pixels {x0, y0, x1, y1} (TU_CHECK_SEGMENTS' want). */
#define TU_SEGMENTS_SIDE 100
extern const double tu_segments_whole_want[4][4];
void tu_segments_whole_draw(uint8_t *pixels);

/* A detector finding segments, as tu_check_dashed drives it; plan is the detector's plan. */
typedef struct tu_segment_detector {
    /* A plan with segments on, max_gap and min_length, for width x height; NULL (the test
     * failed) when it cannot be made. */
    void *(*plan_new)(votecl_context *context, uint32_t max_gap, uint32_t min_length, size_t width,
                      size_t height);
    /* Runs view for at most 2 lines: *n found, has_segment[i] their has_segment fields. */
    votecl_status (*run)(void *plan, const votecl_image *view, size_t *n, int has_segment[2]);
    /* The plan's _segments call. */
    votecl_status (*segments)(void *plan, const votecl_segment **found, size_t *count);
    void (*free)(void *plan);
} tu_segment_detector;

/* Defines name, the tu_segment_detector of the detector votecl_<algo>_plan: plans from
 * votecl_<algo>_params_init with segments on (a failure fails the test), run by run (an
 * expression of plan, view, lines (line_type[2]) and n), read by votecl_<algo>_plan_segments
 * and freed by votecl_<algo>_plan_free. */
#define TU_SEGMENT_DETECTOR(name, algo, line_type, run)                                            \
    static void *name##_plan_new(votecl_context *ctx, uint32_t max_gap, uint32_t min_length,       \
                                 size_t width, size_t height)                                      \
    {                                                                                              \
        votecl_##algo##_plan *plan = NULL;                                                         \
        votecl_##algo##_params p;                                                                  \
        votecl_##algo##_params_init(&p);                                                           \
        p.segments = 1;                                                                            \
        p.max_gap = max_gap;                                                                       \
        p.min_length = min_length;                                                                 \
        tu_check_ok(ctx, votecl_##algo##_plan_new(ctx, &p, width, height, &plan), "plan %zux%zu",  \
                    width, height);                                                                \
        return plan;                                                                               \
    }                                                                                              \
    static votecl_status name##_run(void *plan, const votecl_image *view, size_t *n,               \
                                    int has_segment[2])                                            \
    {                                                                                              \
        line_type lines[2];                                                                        \
        votecl_status status = run;                                                                \
        for (size_t i = 0; i < *n && i < 2; i++)                                                   \
            has_segment[i] = lines[i].has_segment;                                                 \
        return status;                                                                             \
    }                                                                                              \
    static votecl_status name##_segments(void *plan, const votecl_segment **found, size_t *count)  \
    {                                                                                              \
        return votecl_##algo##_plan_segments(plan, found, count);                                  \
    }                                                                                              \
    static void name##_free(void *plan)                                                            \
    {                                                                                              \
        votecl_##algo##_plan_free(plan);                                                           \
    }                                                                                              \
    static const tu_segment_detector name = {name##_plan_new, name##_run, name##_segments,         \
                                             name##_free}

/* Issue 26 item 3: every run along each line of the dashed scene (tests/truth-lines.h) for
 * each max_gap and min_length of the table, two collinear separate segments both reported, the
 * lines they lie on marked as having one; segments are none before the first run and a NULL
 * pointer is refused. segs, counts: caller-owned output, each case's segments (at most 6). */
void tu_check_dashed(const tu_segment_detector *d, votecl_context *context,
                     votecl_segment (*segs)[6], size_t *counts);
/* tu_check_dashed on the 'ref' context. */
void tu_check_dashed_ref(const tu_segment_detector *d);
/* The device's segments equal the reference's (the runs are found on the host); nothing when
 * device is NULL. */
void tu_check_dashed_device(const tu_segment_detector *d, votecl_context *device);

#endif
