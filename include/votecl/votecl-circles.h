/** @file
 * libvotecl: the Hough transform for circles, in the two forms users know.
 *
 * VOTECL_CIRCLES_GRADIENT is OpenCV's HoughCircles(HOUGH_GRADIENT): the Canny edges of a
 * gray image (3x3 Sobel, |gx| + |gy|, thresholds max(1, canny_high / 2) and canny_high),
 * each edge pixel with gradient (gx, gy) voting for the centres along its gradient line, on
 * both sides, at every radius from min_radius to max_radius, in an accumulator of
 * ceil(W / dp) x ceil(H / dp) cells. The steps are OpenCV's fixed-point ones (1/1024 px):
 * step = round(1024 (g / dp) / |g|) per axis, start = round(1024 p / dp), cell = position >> 10,
 * a ray stops at the accumulator's edge. A centre is a cell (x, y), x, y >= 1, with more than
 * `votes` votes, more than its left and upper neighbours and at least its right and lower
 * ones; centres are taken in order of votes (ties: raster order). Each centre, at
 * ((x + 0.5) dp, (y + 0.5) dp), gets its radius from a histogram of the distances of every
 * edge pixel between min_radius and max_radius in bins of dp / 10: the window of 10 bins
 * whose count per radius is largest wins (OpenCV's rule, scanned from the largest radius
 * down), and the circle is kept when that count exceeds `votes`. Circles are ordered by that
 * count (ties: the larger radius, then the smaller x, then y), and one whose centre lies
 * closer than min_dist to a circle before it is dropped.
 *
 * VOTECL_CIRCLES_RADII is scikit-image's hough_circle and hough_circle_peaks: one
 * accumulator of the image's size per radius (min_radius, min_radius + radius_step, ... up to
 * max_radius); every edge pixel (any nonzero pixel of the input) adds a vote to each pixel of
 * the Bresenham circle of that radius around itself (scikit-image's circle_perimeter,
 * duplicated octant points included), with `normalize` dividing a radius's counts by the
 * number of points of its circle. Peaks per radius: the cells above the threshold (0: half
 * of that radius's largest value) that hold the largest value of their (2 min_ydistance + 1)
 * x (2 min_xdistance + 1) window, taken from the largest down (ties: raster order), each
 * suppressing its window, at most num_peaks per radius; then over all radii from the largest
 * value down, with a circle dropped when a circle before it has its centre within
 * min_xdistance in x and min_ydistance in y (as scikit-image, only when either distance
 * exceeds 1), at most max_circles. A plateau gives its first cell in raster order where
 * scikit-image gives its centroid, and ties between radii go to the
 * smaller radius where scikit-image's order is its sort's.
 *
 * Integer votes are equal on every backend; the 'ref' backend runs the sequential reference
 * (lib/circles-ref.c), the specification. */
#ifndef VOTECL_CIRCLES_H
#define VOTECL_CIRCLES_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-image.h>
#include <votecl/votecl-status.h>
#include <votecl/votecl-vote.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest image side (edge points are packed as x | y << 16). */
#define VOTECL_CIRCLES_MAX_SIDE 65535u
/** Most radii of the per-radius accumulator. */
#define VOTECL_CIRCLES_MAX_RADII 1024u
/** Largest accumulator of the per-radius method, in cells (radii x W x H: 4 bytes each). */
#define VOTECL_CIRCLES_MAX_CELLS ((uint64_t)1 << 30)
/** Largest Canny threshold: |gx| + |gy| of the 3x3 Sobel of a u8 image is at most 2040. */
#define VOTECL_CIRCLES_MAX_CANNY 2040u

/** The circle detector's method. */
typedef enum votecl_circles_method {
    VOTECL_CIRCLES_GRADIENT = 0, /**< OpenCV's HOUGH_GRADIENT: a gray image in */
    VOTECL_CIRCLES_RADII = 1     /**< scikit-image's hough_circle: an edge image in */
} votecl_circles_method;

/** Parameters of a circles plan; fill with votecl_circles_params_init() first. */
typedef struct votecl_circles_params {
    size_t struct_size;           /**< set by the _init function: see votecl.h */
    votecl_circles_method method; /**< the method the defaults were set for */
    unsigned min_radius;          /**< least radius, pixels (default 0 gradient, 5 radii) */
    unsigned max_radius;          /**< largest radius; gradient: 0 is max(W, H) and one at or below
                                     min_radius is min_radius + 2, as OpenCV (default 0); radii: at
                                     least min_radius (default 50) */
    size_t max_circles;           /**< most circles reported; 0 (default): no limit but capacity */
    /* VOTECL_CIRCLES_GRADIENT (OpenCV's names in brackets) */
    double dp;           /**< [dp] image pixels per accumulator cell, >= 1 (default 1) */
    double min_dist;     /**< [minDist] least distance between centres, > 0 (default 0: min(W,
                            H) / 8) */
    unsigned canny_high; /**< [param1] Canny's high threshold, 1 to VOTECL_CIRCLES_MAX_CANNY
                            (default 100) */
    unsigned votes;      /**< [param2] a centre needs more votes than this, and its radius more
                            edge pixels (default 100) */
    /* VOTECL_CIRCLES_RADII (scikit-image's names) */
    unsigned radius_step;   /**< radii min_radius, + step, ... <= max_radius (default 1) */
    int normalize;          /**< values are counts / circle points (default 1, as
                               hough_circle) */
    double threshold;       /**< a peak's value must exceed this; 0 (default): half of each
                               radius's largest value */
    unsigned min_xdistance; /**< window half-width of the peaks in x, >= 1 (default 1) */
    unsigned min_ydistance; /**< window half-width of the peaks in y, >= 1 (default 1) */
    size_t num_peaks;       /**< most peaks per radius; 0 (default): no limit */
} votecl_circles_params;

/** Sets the defaults above for method (an unknown method leaves it for _plan_new to refuse). */
VOTECL_API void votecl_circles_params_init(votecl_circles_params *params,
                                           votecl_circles_method method);

/** One detected circle. */
typedef struct votecl_circle {
    double x;       /**< centre, pixels (x to the right) */
    double y;       /**< centre, pixels (y down) */
    double radius;  /**< pixels */
    double score;   /**< gradient: the edge pixels of the radius's window (OpenCV's count);
                       radii: the peak's value (normalised when asked) */
    uint32_t votes; /**< gradient: the centre's accumulator votes; radii: the peak's count */
} votecl_circle;

/** A circle detector for one image size (opaque). */
typedef struct votecl_circles_plan votecl_circles_plan;

/** Validates params and the image size (1 to 65535 on a side; the radii method's
 * accumulator at most VOTECL_CIRCLES_MAX_CELLS) and compiles the kernels (or finds them in
 * the caches). params: borrowed. out: caller-owned.
 * Returns VOTECL_INVALID_ARGUMENT (the context's message names the field),
 * VOTECL_OUT_OF_HOST_MEMORY, and the statuses of the build. */
VOTECL_API votecl_status votecl_circles_plan_new(votecl_context *context,
                                                 const votecl_circles_params *params, size_t width,
                                                 size_t height, votecl_circles_plan **out);

/** Frees a plan; NULL is a no-op. */
VOTECL_API void votecl_circles_plan_free(votecl_circles_plan *plan);

/** The accumulator's shape: spaces (1 for the gradient method, the number of radii for the
 * radii method) of columns x rows cells (any pointer may be NULL). */
VOTECL_API void votecl_circles_plan_shape(const votecl_circles_plan *plan, unsigned *spaces,
                                          uint32_t *columns, uint32_t *rows);

/** The radius of space s of the radii method (0 past the last or for the gradient method). */
VOTECL_API unsigned votecl_circles_plan_radius(const votecl_circles_plan *plan, unsigned s);

/** Finds the circles of image (u8, one channel, the plan's width and height, any stride;
 * borrowed): for the gradient method a gray image, for the radii method an edge image (every
 * nonzero pixel an edge). circles: caller-owned output of capacity entries (may be NULL when
 * capacity is 0), in the method's order; found: the number of circles (at most max_circles
 * when set), also when more than capacity; stats: caller-owned output or NULL (elements =
 * pixels, kept = edge pixels that voted). On a failure circles, found and stats are left as
 * they were.
 * Returns VOTECL_INVALID_ARGUMENT naming the field, VOTECL_OUT_OF_HOST_MEMORY and the
 * device's statuses. */
VOTECL_API votecl_status votecl_circles_run(votecl_circles_plan *plan, const votecl_image *image,
                                            votecl_circle *circles, size_t capacity, size_t *found,
                                            votecl_vote_stats *stats);

/** The accumulator of the last votecl_circles_run() (read back from a device on the first
 * call after it; NULL when that read fails, before the first run, and after a gradient run
 * that found no edge, which votes nothing): spaces x rows x columns counts, space by space,
 * row by row. Transfer none: valid until the next run or votecl_circles_plan_free(). */
VOTECL_API const uint32_t *votecl_circles_plan_accumulator(votecl_circles_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
