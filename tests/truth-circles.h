/* The truth suite for circle detectors: seeded gray images of discs and rings whose truth is
 * known, and the metric that scores detected circles against it. Shared by
 * tests/test-circles.c and `votecl eval circles` (tools/eval-circles.c, tools/eval-circles.py
 * scores cv2.HoughCircles on the same cases); plain C, no GLib.
 *
 * A case is a u8 gray image and its truth circles (centre in pixel coordinates, pixel centres
 * at integers, y down; radius in pixels). Shapes are drawn anti-aliased (4 x 4 samples per
 * pixel). Families (truth_circles_families()):
 *   single   one filled disc, radius 5 to 200 (log-spaced over the cases), sub-pixel centre,
 *            in an image 2 r + 60 px on a side (at least 64), random gray levels
 *   arcs     one ring (3 px stroke) of which only an arc of 180 to 300 degrees is drawn,
 *            radius 10 to 120
 *   noise    one disc, radius 10 to 120, under Gaussian noise of sigma 10 to 30 gray levels
 *   overlap  two or three discs of radius 15 to 80 whose centres are 0.6 to 1.2 radii apart
 *            (drawn over each other, distinct gray levels), 400 x 300
 *   multi    three to six separate discs and rings of radius 8 to 60 in 640 x 480
 *   empty    no circle: a noisy background with bars, rectangles and triangles
 *   large    three to eight discs of radius 20 to 200 in 1920 x 1080 (asked for explicitly)
 *
 * The metric: a detected circle matches a truth circle when its centre is within
 * max(2, 0.1 r) px of the truth's and its radius within max(2, 0.1 r) px (r: the truth's
 * radius). Detections are taken in the detector's order; each matches the nearest unmatched
 * truth, else counts as a duplicate when it matches a truth already taken, else as a false
 * positive. Recall: matched truths / truths; precision: matched detections / detections
 * (duplicates count against it). Errors are averaged over the matched circles. */
#ifndef VOTECL_TRUTH_CIRCLES_H
#define VOTECL_TRUTH_CIRCLES_H

#include <stddef.h>
#include "truth-common.h"

#include <stdint.h>

#define TRUTH_CIRCLES_MAX 8

typedef struct truth_circle {
    double x, y, r;
} truth_circle;

typedef struct truth_circles_case {
    const char *family; /* static */
    char name[64];      /* family-index, unique in the suite */
    uint32_t width, height;
    uint8_t *pixels; /* owned: width * height bytes, packed */
    size_t n;
    truth_circle truth[TRUTH_CIRCLES_MAX];
    double min_radius, max_radius; /* the radii a detector is told to search */
} truth_circles_case;

typedef struct truth_circles_family {
    const char *name;
    size_t count; /* cases */
    int large;    /* 1: only when asked for */
    /* Fills case i of the family from seed (0, or -1 when out of memory). */
    int (*make)(truth_circles_case *c, size_t i, uint64_t seed);
} truth_circles_family;

TRUTH_FAMILIES_DECLARE(truth_circles_family, truth_circles);

/* Makes case i of family (pixels allocated; free with truth_circles_case_clear). Returns 0,
 * or -1 when out of memory. */
int truth_circles_case_make(const truth_circles_family *family, size_t i, uint64_t seed,
                            truth_circles_case *c);
void truth_circles_case_clear(truth_circles_case *c);

/* The score of one case or the sum over many. */
typedef struct truth_circles_score {
    size_t truths, matched;
    size_t detections, duplicates, false_positives;
    size_t cases, cases_all_found;
    double centre_error_sum, radius_error_sum; /* over the matched circles */
} truth_circles_score;

/* Scores n detections (x, y, r; the detector's order) against c's truth, adding to score. */
void truth_circles_score_case(const truth_circles_case *c, const truth_circle *d, size_t n,
                              truth_circles_score *score);

double truth_circles_recall(const truth_circles_score *s);
double truth_circles_precision(const truth_circles_score *s);

#endif
