/* The truth suite for HOG: seeded colour scenes on which OpenCV's HOGDescriptor is the truth
 * (descriptors within 1e-3 element for element; detectMultiScale's boxes, box for box), and
 * the metric that scores boxes against OpenCV's. Shared by tests/test-hog.c and
 * `votecl eval hog` (tools/eval-hog.c, tools/eval-hog.py); plain C, no GLib.
 *
 * A case is a packed u8 RGB image (R, G, B: libvotecl's order). Families
 * (truth_hog_families()):
 *   saturated  blocks of fully saturated colours (each channel 0 or 255), 203x161 (odd
 *              widths: OpenCV's last width % 4 pixels of a row break channel ties otherwise)
 *   equal-mag  three channels that are the same pattern flipped and transposed, so that
 *              channels tie in magnitude with different directions everywhere, 133x150
 *   gray-rgb   a textured gray image stored in all three channels, 257x190
 *   people     640x480 scenes: a flat background, saturated rectangles, mild noise and 2 to
 *              4 copies of a person cut from a source photograph (given by the caller; the
 *              family is skipped without one), scaled by 0.4 to 0.85
 *
 * The metric (truth_hog_score): OpenCV's boxes are the truth. A box is equal when x, y,
 * width and height are the same; a detection matches when its IoU with a not yet matched
 * truth box is at least TRUTH_HOG_IOU (greedy, in the detector's order). Recall is matched
 * truths / truths, precision matched detections / detections. */
#ifndef VOTECL_TRUTH_HOG_H
#define VOTECL_TRUTH_HOG_H

#include <stddef.h>
#include "truth-common.h"

#include <stdint.h>

#define TRUTH_HOG_IOU 0.5

/* A person in a source photograph: packed RGB pixels (borrowed) and the person's rectangle. */
typedef struct truth_hog_source {
    const uint8_t *rgb;
    uint32_t width, height;
    uint32_t x, y, w, h;
} truth_hog_source;

typedef struct truth_hog_case {
    const char *family; /* static */
    char name[64];      /* family-index, unique in the suite */
    uint32_t width, height;
    uint8_t *rgb; /* owned: width * height * 3 bytes, packed */
} truth_hog_case;

typedef struct truth_hog_family {
    const char *name;
    size_t count;  /* cases */
    int people;    /* 1: needs a source person */
    /* Fills case i of the family from seed and src (NULL for the other families): 0, or -1
     * when out of memory. */
    int (*make)(truth_hog_case *c, size_t i, uint64_t seed, const truth_hog_source *src);
} truth_hog_family;

TRUTH_FAMILIES_DECLARE(truth_hog_family, truth_hog);
/* Frees c's pixels (c itself is the caller's); NULL pixels are fine. */
void truth_hog_case_clear(truth_hog_case *c);

/* Boxes as x, y, width, height. */
typedef struct truth_hog_box {
    int32_t x, y, width, height;
} truth_hog_box;

typedef struct truth_hog_score_t {
    size_t truths, found;
    size_t equal;   /* truth boxes found with the same x, y, width and height */
    size_t matched; /* truth boxes matched at IoU >= TRUTH_HOG_IOU */
} truth_hog_score_t;

/* Scores found[0 .. nfound) (the detector's order) against truth[0 .. ntruth); adds to s. */
void truth_hog_score(const truth_hog_box *truth, size_t ntruth, const truth_hog_box *found,
                     size_t nfound, truth_hog_score_t *s);

#endif
