/* The truth suite for line detectors: seeded images of straight lines whose truth is known,
 * and the metric that scores detected lines against it. Shared by tests/test-pclines.c,
 * tests/test-hough.c and `votecl eval lines` (tools/eval-lines.c); plain C, no GLib.
 *
 * A case is a u8 gray image (black background, white lines) and its truth segments in pixel
 * coordinates (pixel centres at integers, y down). Families (truth_lines_families()):
 *   single-8conn  one line per whole degree 0..179 drawn like cv2.line(LINE_8): Bresenham,
 *                 one pixel per major-axis step, 400 px long through the centre of 600x600
 *   single-4conn  the same drawn 4-connected (cv2.LINE_4: each step moves x or y, not both)
 *   single-aa     the same anti-aliased (coverage of a 1 px wide bar, cv2.LINE_AA-like)
 *   single-wide   random sub-degree angles, 2 or 3 px wide (solid), random lengths and offsets
 *                 through and off the centre, sizes 64x64 to 1024x768, non-square
 *   single-subdeg random sub-degree angles, 8-connected, random offsets, lengths and sizes
 *   multi-clutter 3..8 lines of any style per 640x480 scene with circles, text-like blobs,
 *                 salt-and-pepper and Gaussian noise
 *   large         one to four lines in 1920x1080, 3840x2160, 4096x1024 and 8192x8192 images
 *                 (slow on a CPU; asked for explicitly)
 *
 * The metric: a detected line (x cos(theta) + y sin(theta) = rho) matches a truth segment
 * when their directions differ by at most 1.5 degrees and both ends of the segment lie
 * within 3 px of the line along its normal. Detections are taken in the detector's order
 * (strongest first); each one matches the nearest still-unmatched truth, else counts as a
 * duplicate when it matches a truth already taken, else as a false positive. Recall is
 * matched truths / truths; precision is matched detections / detections (duplicates count
 * against precision: a user sees two lines where there is one). */
#ifndef VOTECL_TRUTH_LINES_H
#define VOTECL_TRUTH_LINES_H

#include <stddef.h>
#include "truth-common.h"

#include <stdint.h>
#include <votecl.h>

#define TRUTH_LINES_MAX 16

/* Tolerances of the metric. */
#define TRUTH_LINES_ANGLE_DEG 1.5
#define TRUTH_LINES_DIST_PX 3.0

typedef enum truth_lines_style {
    TRUTH_LINES_8CONN,
    TRUTH_LINES_4CONN,
    TRUTH_LINES_AA,
    TRUTH_LINES_SOLID /* a bar of the segment's width, no anti-aliasing */
} truth_lines_style;

typedef struct truth_lines_segment {
    double x0, y0, x1, y1;
    double width; /* pixels */
    truth_lines_style style;
} truth_lines_segment;

typedef struct truth_lines_case {
    const char *family; /* static */
    char name[64];      /* family-index, unique in the suite */
    uint32_t width, height;
    uint8_t *pixels; /* owned: width * height bytes, packed */
    size_t n;
    truth_lines_segment truth[TRUTH_LINES_MAX];
} truth_lines_case;

typedef struct truth_lines_family {
    const char *name;
    size_t count; /* cases */
    int large;    /* 1: large images, only when asked for */
    /* Fills case i of the family from seed (0 or -1 when out of memory). */
    int (*make)(truth_lines_case *c, size_t i, uint64_t seed);
} truth_lines_family;

TRUTH_FAMILIES_DECLARE(truth_lines_family, truth_lines);

/* Makes case i of family (pixels allocated; free with truth_lines_case_clear). Returns 0, or
 * -1 when out of memory. */
int truth_lines_case_make(const truth_lines_family *family, size_t i, uint64_t seed,
                          truth_lines_case *c);
void truth_lines_case_clear(truth_lines_case *c);

/* Draws one segment into a packed width x height u8 image (max with what is there). */
void truth_lines_draw(uint8_t *pixels, uint32_t width, uint32_t height,
                      const truth_lines_segment *s);

/* A detected line in the theta-rho form. */
typedef struct truth_lines_detection {
    double theta, rho;
    /* Optional segment end points (has_ends 1), scored by end-point error. */
    int has_ends;
    double x0, y0, x1, y1;
} truth_lines_detection;

/* The score of one case or the sum over many. */
typedef struct truth_lines_score {
    size_t truths, matched;   /* truth segments, those found */
    size_t detections, duplicates, false_positives;
    size_t cases, cases_all_found; /* cases, cases whose every truth was found */
    size_t ends, ends_within;      /* matched segments with ends; ends within 3 px */
    double end_error_sum;          /* sum of the larger end error of matched segments */
    /* Over matched detections: the direction error (degrees) and the position error (px: the
     * distance of the truth segment's midpoint from the detected line, the rho error with
     * the origin at the segment, so that it does not grow with the distance from (0, 0)). */
    double theta_error_sum, theta_error_max;
    double rho_error_sum, rho_error_max;
} truth_lines_score;

/* Whether detection d matches truth t; *error is the larger normal distance of t's ends. */
int truth_lines_match(const truth_lines_detection *d, const truth_lines_segment *t,
                      double *error);

/* The direction error of d against t in degrees, and the distance of t's midpoint from d's
 * line in pixels (either pointer may be NULL). */
void truth_lines_errors(const truth_lines_detection *d, const truth_lines_segment *t,
                        double *theta_deg, double *rho_px);

/* Scores n detections (strongest first) against c's truth and adds to score. */
void truth_lines_score_case(const truth_lines_case *c, const truth_lines_detection *d, size_t n,
                            truth_lines_score *score);

double truth_lines_recall(const truth_lines_score *s);
double truth_lines_precision(const truth_lines_score *s);

/* --- every segment (issue 26 item 3) --- */

/* The dashed scene: a black TRUTH_LINES_DASHED_W x TRUTH_LINES_DASHED_H image with white
 * dashes one pixel wide: row 30 at columns 10-29, 33-52, 60-69 and 90-94 (gaps of 3, 7 and 20
 * steps), column 100 at rows 5-25 and 40-55 (a gap of 14). */
#define TRUTH_LINES_DASHED_W 120u
#define TRUTH_LINES_DASHED_H 60u

/* The runs a segment finder must report in the dashed scene for max_gap and min_length: n
 * segments, each ends (x0, y0, x1, y1) at the extreme pixels of its dashes. */
typedef struct truth_lines_dashed_case {
    uint32_t max_gap, min_length;
    size_t n;
    double ends[6][4];
} truth_lines_dashed_case;

extern const truth_lines_dashed_case truth_lines_dashed_cases[];
extern const size_t truth_lines_dashed_count;

/* Draws the dashed scene into pixels (W x H bytes, packed). */
void truth_lines_dashed_draw(uint8_t *pixels);

/* Whether the n segments found are exactly c's: as many, each of c's matched by one found
 * segment whose ends (either way round) lie within tol px of its ends. */
int truth_lines_dashed_check(const truth_lines_dashed_case *c, const votecl_segment *found,
                             size_t n, double tol);

/* Whether a[0, n) and b[0, n) are equal field by field (ends bit for bit). */
int truth_lines_segments_equal(const votecl_segment *a, const votecl_segment *b, size_t n);

#endif
