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
