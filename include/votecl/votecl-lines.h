/** @file
 * libvotecl: PClines line detection (Havel, Dubska, Herout, Josth: "Real-time detection of
 * lines using parallel coordinates and CUDA", Journal of Real-Time Image Processing, 2012).
 *
 * A line is a point of the TS space (Eq. 1-3): two parallel-coordinate spaces, straight (S,
 * lines of negative slope) and twisted (T, positive slope), glued into one strip of 2d
 * columns u = -d .. d-1 (T: u < 0, S: u >= 0) and V rows of v. Coordinates are centred on the
 * image: x = px - (W-1)/2, y = py - (H-1)/2 for the pixel (px, py). An edge (x, y) votes once
 * in every column for the v where its two-segment polyline (-d, -y), (0, x), (d, y) crosses it
 * (Algorithm 1, Eq. 4):
 *
 *   S (u >= 0): v = x + (y - x) u / d        T (u < 0): v = x + (x + y) u / d
 *
 * and the cell (u, v) is the line (d - |u|) x + u y - d v = 0 (T) or (d - u) x + u y - d v = 0
 * (S). Vertical lines lie at u = 0, horizontal ones at u = -d (the strip's ends are one
 * column: (d, v) is (-d, -v), a Moebius strip), the diagonals at u = +-d/2.
 *
 * Integer arithmetic only (the paper's point): with doubled coordinates X = 2 px - (W-1),
 * Y = 2 py - (H-1) and M = max(W, H) - 1, the row is
 *   row = ((X + M) d + s u) * K >> 32,  s = Y - X (S) or X + Y (T),
 *   K = floor(2^32 V / ((2M + 1) d)),
 * the same 64-bit products on the device and in the sequential reference (the 'ref'
 * backend), so their TS spaces are equal exactly.
 *
 * Edges of an image are pixels (not on the border) whose Sobel gradient (Gx, Gy) has
 * Gx^2 + Gy^2 >= edge_threshold^2; for f32 images the float gradient is multiplied by 255 and
 * rounded to an integer first (pixel values in [0, 1] weigh like u8 values). With an
 * orientation radius r > 0 an edge votes only in the columns near its own u, Eq. 9:
 *   u = round(d Gy / (Gx + s Gy)),  s = +1 when Gx and Gy have the same sign (0 counted as
 *   positive), else -1,
 * where (Gx, Gy) comes from the orientation operator, OpenCV's Sobel kernel of side
 * orientation_kernel (3, 5 or 7; image coordinates clamped at the border): the 3 x 3 one
 * follows the staircase of a digital line (its steps, not the line), the 7 x 7 one averages
 * over several steps. Column c takes the edges whose u lies within
 *   r(c) = round(r (a^2 + b^2) / d^2), at least 1,  a = |c - d|, b = d - a
 * of it, around the strip (period 2d): r columns at the axes and r / 2 at the diagonals,
 * where a column spans twice the angle, so the window is one angle (about r / d radians)
 * everywhere. Radius 0 votes in every column.
 *
 * Lines are the cells with at least threshold votes that are maxima of their n x n
 * neighbourhood, the strip's ends included (the column after d-1 is -d with v mirrored; rows
 * do not wrap). Equal counts go to the cell with the lower index (column * V + row), so two
 * reported lines never lie in each other's neighbourhood. They are reported most votes first
 * (ties: lower index first), leaving out near-duplicates (merge_distance). */
#ifndef VOTECL_LINES_H
#define VOTECL_LINES_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-image.h>
#include <votecl/votecl-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest image side (edges are packed as x | y << 16 on the device). */
#define VOTECL_LINES_MAX_SIDE 65535u
/** Largest d (distance). */
#define VOTECL_LINES_MAX_DISTANCE 65536u
/** Largest V (rows). */
#define VOTECL_LINES_MAX_ROWS 65536u
/** radius value that asks for the default: max(2, 3 d / 20), about 8.6 degrees (chosen on the
 * line truth suite, docs/accuracy.md). */
#define VOTECL_LINES_RADIUS_AUTO UINT_MAX

/** Parameters of a PClines plan; fill with votecl_lines_params_init() first. */
typedef struct votecl_lines_params {
    size_t struct_size;       /**< set by the _init function: see votecl.h */
    uint32_t distance;        /**< d >= 1: 2d columns; 0 (default): max(ceil(max(W, H) / 2), n) */
    uint32_t rows;            /**< V >= 1 rows of v; 0 (default): max(W, H), one per pixel */
    unsigned neighbourhood;   /**< n: odd, 1 <= n <= 2d, side of the maxima window (default 5) */
    uint32_t threshold;       /**< least votes of a line; 0 (default): max(2, min(W, H) / 4) */
    unsigned radius;          /**< orientation radius r in columns at the axes (half as many at
                                 the diagonals); 0: no orientation, every edge votes in every
                                 column (default VOTECL_LINES_RADIUS_AUTO) */
    unsigned edge_threshold;  /**< least Sobel magnitude of an edge, >= 1 (default 128);
                                 gradients are clamped to 2^20 a side, so above 2^21 no pixel
                                 is an edge */
    size_t max_lines;         /**< most lines reported; 0 (default): no limit but capacity */
    unsigned work_group_size; /**< 0 (default): chosen for the device; else a power of two */
    unsigned orientation_kernel; /**< 3, 5 or 7: side of the Sobel operator whose gradient gives
                                    an edge's orientation (with radius > 0; default 7) */
    int segments;                /**< nonzero: votecl_lines_run() and votecl_lines_run_buffer()
                                    also find the segments of each reported line: every run of
                                    edge pixels along it (votecl_lines_plan_segments(), OpenCV's
                                    HoughLinesP result) and the longest in the line's own fields
                                    (default 0: infinite lines only) */
    uint32_t min_length;         /**< with segments: least length of a segment in pixels from
                                    end to end (default 0: any) */
    uint32_t max_gap;            /**< with segments: longest gap bridged inside a segment, in pixel
                                    steps along the line's major axis, so a diagonal neighbour is
                                    no gap (OpenCV's maxLineGap; default 5) */
    double merge_distance;       /**< a line whose extent in the image has both ends within this
                                    many pixels of a stronger line is the same line, not reported
                                    (default 3: the truth suite's tolerance); 0: keep all maxima */
    int refine;                  /**< nonzero (default): each line is moved from its cell onto the
                                    total least-squares line of the edges within 3 px of it
                                    (see votecl_lines_line); 0: the cell's line.
                                    GPU-shaped devices sum the fit's pixels on the device;
                                    others fit on the host, with the same results */
    int fit_on_host;             /**< nonzero: the fit runs on the host's cores even on a
                                    GPU-shaped device (the same lines bit for bit): for many
                                    contexts sharing one GPU, where each frame's three fit
                                    round trips queue behind the others' work
                                    (docs/batch.md); default 0 */

} votecl_lines_params;

/** Sets the defaults above. */
VOTECL_API void votecl_lines_params_init(votecl_lines_params *params);

/** An edge given by the caller: pixel (x, y) and its gradient (used only when radius > 0). */
typedef struct votecl_lines_edge {
    uint32_t x; /**< column */
    uint32_t y; /**< row */
    int32_t gx; /**< horizontal gradient, |gx| <= 2^20 */
    int32_t gy; /**< vertical gradient, |gy| <= 2^20 */
} votecl_lines_edge;

/** One detected line in pixel coordinates (origin at the top-left pixel, pixel centres at
 * integers, y down). With params.refine (the default) a, b, c, theta and rho are the line
 * fitted to the edges near the cell's line: the Sobel edge pixels within 3 px of it whose
 * gradient lies within about 26 degrees of its normal, weighted by the integer part of their
 * Sobel magnitude (an edge list's edges weigh 1), three passes of total least squares, each
 * around the last one's line among the pixels within 5 px of the cell's; so a thin line is
 * found on its middle, not on one of the two flanks Sobel marks, and a step edge on the step,
 * half-way between two pixel centres. The distances are tested in 2^-20 px fixed point and
 * the sums are exact integers, so every backend and device gives the same lines bit for bit.
 * Where fewer than three such edges lie near it, or the fit turns by more than 10 degrees,
 * the line is the cell's. u, v, column and row are always the cell's. */
typedef struct votecl_lines_line {
    double a;        /**< a x + b y + c = 0 with a^2 + b^2 = 1 */
    double b;        /**< see a */
    double c;        /**< see a */
    double theta;    /**< x cos(theta) + y sin(theta) = rho, theta in [0, pi) */
    double rho;      /**< see theta */
    uint32_t votes;  /**< the cell's votes */
    int32_t u;       /**< TS column - d, in [-d, d) */
    double v;        /**< v at the centre of the row, in pixels (centred coordinates) */
    uint32_t column; /**< u + d */
    uint32_t row;    /**< the cell's row of v */
    /** With params.segments, after votecl_lines_run(): the longest run of edge pixels along the
     * line (pixels within 2 px of it along its minor axis, gaps of at most max_gap steps), from
     * (x0, y0) to (x1, y1), the points of the line nearest its first and farthest edge
     * pixels, and has_segment 1; 0 when no run reaches min_length (and for edge lists). Every
     * run is in votecl_lines_plan_segments(). */
    int has_segment;
    double x0; /**< the segment's first end, column */
    double y0; /**< the segment's first end, row */
    double x1; /**< the segment's last end, column */
    double y1; /**< the segment's last end, row */
} votecl_lines_line;

/** What the last run saw. */
typedef struct votecl_lines_stats {
    size_t edges;  /**< edge points that voted */
    size_t maxima; /**< lines found before max_lines */
} votecl_lines_stats;

/** A PClines line detector for one image size (opaque). */
typedef struct votecl_lines_plan votecl_lines_plan;

/** Validates params for a width x height image (1 to 65535 a side), resolves the defaults and
 * compiles the kernels (or finds them in the caches). params: borrowed; out: caller-owned.
 * Returns VOTECL_INVALID_ARGUMENT (the context's message names the field),
 * VOTECL_UNSUPPORTED when not even n x n counts fit the device's local memory (the TS space's
 * rows are tiled to fit: any image size runs), and the statuses of program builds and
 * allocations. */
VOTECL_API votecl_status votecl_lines_plan_new(votecl_context *context,
                                               const votecl_lines_params *params, size_t width,
                                               size_t height, votecl_lines_plan **out);

/** Frees a plan; NULL is a no-op. */
VOTECL_API void votecl_lines_plan_free(votecl_lines_plan *plan);

/** The resolved parameters (params: caller-owned output). */
VOTECL_API void votecl_lines_plan_params(const votecl_lines_plan *plan,
                                         votecl_lines_params *params);

/** The TS space's shape: 2d columns and V rows (either pointer may be NULL). */
VOTECL_API void votecl_lines_plan_shape(const votecl_lines_plan *plan, uint32_t *columns,
                                        uint32_t *rows);

/** Detects the lines of image (the plan's width and height, any stride): one channel, u8 or
 * f32, or a u8 colour image of 3 or 4 channels (R, G, B first; a fourth is ignored), uploaded
 * as it is and turned into gray levels (299 R + 587 G + 114 B + 500) / 1000 on the device, so
 * its lines are exactly those of that gray image (the rounding of `votecl`'s own conversion).
 * lines: caller-owned output of capacity entries (NULL when capacity is 0);
 * found: the number of lines (at most max_lines when set), also when more than capacity.
 * Returns VOTECL_INVALID_ARGUMENT naming the field, and device statuses. */
VOTECL_API votecl_status votecl_lines_run(votecl_lines_plan *plan, const votecl_image *image,
                                          votecl_lines_line *lines, size_t capacity,
                                          size_t *found);

/** The same from n edge points (borrowed; x < width, y < height, gradients within 2^20). */
VOTECL_API votecl_status votecl_lines_run_edges(votecl_lines_plan *plan,
                                                const votecl_lines_edge *edges, size_t n,
                                                votecl_lines_line *lines, size_t capacity,
                                                size_t *found);

/** Reads the TS space of the last run: 2d * V counts, column after column (cell
 * column * V + row). space: caller-owned output of capacity counts.
 * Returns VOTECL_INVALID_ARGUMENT before the first run or when capacity is too small. */
VOTECL_API votecl_status votecl_lines_plan_read_space(votecl_lines_plan *plan, uint32_t *space,
                                                      size_t capacity);

/** The stats of the last run (stats: caller-owned output). */
VOTECL_API votecl_status votecl_lines_plan_last_stats(const votecl_lines_plan *plan,
                                                      votecl_lines_stats *stats);

/** Every segment of the lines of the last votecl_lines_run() or votecl_lines_run_buffer()
 * with params.segments, as OpenCV's HoughLinesP returns them: each reported line's runs of
 * edge pixels within 2 px of it along its minor axis (Sobel edges whose gradient lies within
 * about 26 degrees of the line's normal), gaps of at most max_gap steps bridged, of at least
 * min_length px from end to end (see votecl_segment), line by line in the order of the lines
 * array and along each line in its direction; a pixel counts for every line it lies near
 * (HoughLinesP gives a pixel to the first line that takes it). Only the lines that fit the
 * run's capacity have segments; edge lists (votecl_lines_run_edges()) have none. The same on
 * every backend: the runs are found on the host from the image. segments: transfer none, a
 * plan-owned array valid until the next run or votecl_lines_plan_free() (NULL when count is
 * 0); count: the number of segments, 0 before the first run, after a failed one and without
 * params.segments. Returns VOTECL_INVALID_ARGUMENT for a NULL pointer. */
VOTECL_API votecl_status votecl_lines_plan_segments(const votecl_lines_plan *plan,
                                                    const votecl_segment **segments, size_t *count);

/** As votecl_lines_run() with the image in a device buffer of the plan's context (borrowed:
 * width x height elements of dtype, u8 or f32, rows packed from byte 0), such as a frame
 * that votecl_buffer_wrap_device() wraps where it already lies: the vote (and on GPU-shaped
 * devices the fit) reads it there; the image is read back to the host only for
 * params.segments, or params.refine (the default) on a CPU-shaped device, which look at the
 * pixels near each line (otherwise no host copy at all).
 * width and height must be the plan's. Waits for the lines (host memory, as above).
 * Returns VOTECL_INVALID_ARGUMENT naming the field, and device statuses. */
VOTECL_API votecl_status votecl_lines_run_buffer(votecl_lines_plan *plan, votecl_buffer *image,
                                                 size_t width, size_t height, votecl_dtype dtype,
                                                 votecl_lines_line *lines, size_t capacity,
                                                 size_t *found);

#ifdef __cplusplus
}
#endif

#endif
