/** @file
 * libvotecl: the theta-rho Hough transform for lines, a built-in of the generic engine.
 *
 * Every edge pixel (x, y) of a one-channel u8 image, an edge being a pixel whose value is at
 * least the edge threshold, votes in each of G angle spaces for the lines through it
 * (van den Braak et al., "GPU-vote: a framework for accelerating voting algorithms on GPU",
 * section 2.2, Eq. 1-2):
 *
 *   theta_g = g * pi / G                       g = 0 .. G-1 (pi itself is not included)
 *   rho     = x cos(theta_g) + y sin(theta_g)  in [-W, D], D = sqrt(W^2 + H^2)
 *   bin     = floor((rho + W) * N / (D + W))   clamped to N - 1
 *
 * The bin is computed in single precision, without contraction into fma, from a cos/sin
 * table computed once on the host in double and rounded to float, with W, D and
 * scale = N / (D + W) rounded to float; the device and the sequential reference
 * (the 'ref' backend) do exactly the same arithmetic, so their
 * accumulators are equal bit for bit. Reported lines are at bin centres,
 * rho(b) = (b + 0.5) * (D + W) / N - W, so an even N has no half-bin bias.
 *
 * Peaks are local maxima of the accumulator in an n x n window of (angle, rho bin) with at
 * least the peak threshold of votes, taken greedily from the most votes down; each taken
 * peak suppresses its window (ties: the lower angle, then the lower bin, comes first). The
 * angle axis wraps: the line (theta_0 - pi/G, rho) is the line (theta_{G-1}, -rho), so the
 * neighbours of angle 0 across the wrap are those of angle G-1 at the mirrored rho, and one
 * line is never reported both near theta = 0 and near theta = pi.
 *
 * The voting runs on the generic engine (votecl-vote.h): the plan is a votecl_vote_plan
 * whose spec defines vote_test (the edge test: stage 1 compacts the edges) and vote_index
 * (Eq. 2) over G spaces of N bins. On the 'ref' backend, where the engine cannot run OpenCL C,
 * the plan runs the sequential reference instead. */
#ifndef VOTECL_HOUGH_H
#define VOTECL_HOUGH_H

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

/** The rho grid (votecl_hough_params.rho_grid). */
typedef enum votecl_hough_grid {
    /** N bins spanning [-W, D] (GPU-vote Eq. 2, above): bin = floor((rho + W) N / (D + W)),
     * reported at the bin's centre */
    VOTECL_HOUGH_GRID_SPAN = 0,
    /** OpenCV's HoughLines grid (rho step 1, theta step pi / G): bins one pixel wide centred on
     * integer distances, bin = cvRound(x cos + y sin) + W (round half to even, in single
     * precision), N = W + ceil(D) + 2; the cos/sin table of OpenCV's createTrigTable (the
     * angle accumulated in single precision, theta_{g+1} = theta_g + (float)(pi / G)); lines
     * reported at rho = bin - W, an integer, and theta = (float)g * (float)(pi / G), as
     * cv2.HoughLines reports them. rho_bins must be 0. */
    VOTECL_HOUGH_GRID_OPENCV = 1
} votecl_hough_grid;

/** The peak rule (votecl_hough_params.peak_rule). */
typedef enum votecl_hough_peak_rule {
    /** the n x n window above, greedy suppression, at least peak_threshold votes */
    VOTECL_HOUGH_PEAKS_WINDOW = 0,
    /** OpenCV's HoughLines rule: every bin with more than peak_threshold votes (OpenCV's
     * threshold), more than its left (rho - 1) and upper (angle - 1) neighbours and at least
     * its right and lower ones, the angle axis not wrapping (peak_window unused); no
     * suppression. With VOTECL_HOUGH_GRID_OPENCV and merge_distance 0, the lines are
     * cv2.HoughLines(edges, 1, pi / G, peak_threshold)'s, in its order (most votes first, then
     * the lower angle, then the lower rho), with its votes (HoughLinesWithAccumulator). */
    VOTECL_HOUGH_PEAKS_OPENCV = 1
} votecl_hough_peak_rule;

/** Largest number of angles: the cos/sin table holds 2 G floats. */
#define VOTECL_HOUGH_MAX_ANGLES (VOTECL_VOTE_MAX_TABLE / 2)
/** Largest image side (locations are packed as x | y << 16). */
#define VOTECL_HOUGH_MAX_SIDE 65535u
/** Largest peak window (the search costs G N n^2). */
#define VOTECL_HOUGH_MAX_WINDOW 99u

/** Parameters of a theta-rho Hough plan; fill with votecl_hough_params_init() first. */
typedef struct votecl_hough_params {
    size_t struct_size;         /**< set by the _init function: see votecl.h */
    unsigned angles;            /**< G >= 1 (default 180: one degree) */
    uint32_t rho_bins;          /**< N >= 1; 0 (default): one bin per pixel, N = ceil(W + D) */
    unsigned edge_threshold;    /**< a pixel with value >= this is an edge, 0-255 (default 1:
                                   every nonzero pixel of a binary edge image; any other
                                   image is refused: see the edge step below) */
    unsigned peak_window;       /**< n: odd side of the peak window in angles and bins, at most
                                   VOTECL_HOUGH_MAX_WINDOW (default 13: with 180 angles and one
                                   bin per pixel, a peak hides the others within 6 degrees and
                                   6 px, the two sides of one edge included) */
    uint32_t peak_threshold;    /**< least votes of a peak; 0 (default): max(2, min(W, H) / 4), a
                                   line at least a quarter of the shorter side long */
    size_t max_lines;           /**< most peaks reported; 0 (default): no limit but capacity */
    /* With all three left at their defaults, CPU-shaped devices vote with the Hough's own
     * kernel (one writer per accumulator row, every size a kernel argument) instead of the
     * engine; setting any of them asks the engine. Results are equal either way. */
    votecl_variant variant;     /**< passed to the engine's spec (AUTO by default) */
    unsigned stretch;           /**< passed to the engine's spec (0: chosen for the device) */
    unsigned work_group_size;   /**< passed to the engine's spec (0: chosen for the device) */
    int segments;               /**< nonzero: votecl_hough_run() and votecl_hough_run_gray()
                                   also find the segments of each reported line: every run of
                                   edge pixels along it (votecl_hough_plan_segments(), OpenCV's
                                   HoughLinesP result) and the longest in the line's own fields
                                   (default 0) */
    uint32_t min_length;        /**< with segments: least length of a segment, in pixels from
                                   end to end (default 0: any) */
    uint32_t max_gap;           /**< with segments: longest gap bridged, in pixel steps along the
                                   line's major axis, so a diagonal neighbour is no gap (OpenCV's
                                   HoughLinesP maxLineGap, scikit-image's line_gap; default 5) */
    double merge_distance;      /**< a peak whose line's extent in the image has both ends within
                                   this many pixels of a stronger reported line is the same line,
                                   not reported (default 3); 0: keep every peak */
    votecl_hough_grid rho_grid; /**< default VOTECL_HOUGH_GRID_SPAN */
    votecl_hough_peak_rule peak_rule; /**< default VOTECL_HOUGH_PEAKS_WINDOW */
    int thin_edges; /**< votecl_hough_run_gray() only: nonzero (default 1) keeps an
                       edge pixel only where its Sobel magnitude is a maximum across
                       the edge (Canny's non-maximum suppression: see
                       votecl_hough_run_gray()), so a thick ridge votes once per
                       line; 0 votes every pixel at or above the threshold (the
                       default until 2026-11-27) */
} votecl_hough_params;

/** Sets the defaults above. */
VOTECL_API void votecl_hough_params_init(votecl_hough_params *params);

/** One detected line: the points (x, y) with x cos(theta) + y sin(theta) = rho. */
typedef struct votecl_hough_line {
    double theta;   /**< radians in [0, pi): theta_g */
    double rho;     /**< pixels: the centre of the rho bin (see rho_grid) */
    uint32_t votes; /**< the accumulator's count */
    unsigned angle; /**< g */
    uint32_t bin;   /**< rho bin */
    /** With params.segments, after votecl_hough_run(): the longest run of edge pixels within
     * 2 px of the line along its minor axis (gaps of at most max_gap steps), from (x0, y0) to
     * (x1, y1), the points of the line nearest its first and farthest edge pixels, and
     * has_segment 1; 0 when no run reaches min_length. Every run is in
     * votecl_hough_plan_segments(). */
    int has_segment;
    double x0; /**< the segment's first end, column */
    double y0; /**< the segment's first end, row */
    double x1; /**< the segment's last end, column */
    double y1; /**< the segment's last end, row */
} votecl_hough_line;

/** A theta-rho Hough transform for one image size (opaque). */
typedef struct votecl_hough_plan votecl_hough_plan;

/** Validates params and the image size (1 to 65535 on a side) and compiles the vote (or
 * finds it in the caches). params: borrowed. out: caller-owned.
 * Returns VOTECL_INVALID_ARGUMENT (the context's message names the field), and the
 * statuses of votecl_vote_plan_new(). */
VOTECL_API votecl_status votecl_hough_plan_new(votecl_context *context,
                                               const votecl_hough_params *params, size_t width,
                                               size_t height, votecl_hough_plan **out);

/** Frees a plan; NULL is a no-op. */
VOTECL_API void votecl_hough_plan_free(votecl_hough_plan *plan);

/** The plan's G and N (either pointer may be NULL). */
VOTECL_API void votecl_hough_plan_shape(const votecl_hough_plan *plan, unsigned *angles,
                                        uint32_t *rho_bins);

/** theta of angle g in radians. */
VOTECL_API double votecl_hough_plan_theta(const votecl_hough_plan *plan, unsigned g);
/** The rho (pixels) at the centre of bin b. */
VOTECL_API double votecl_hough_plan_rho(const votecl_hough_plan *plan, uint32_t b);

/** Votes the edges of image (u8, one channel, the plan's width and height, any stride) and
 * extracts the peaks. lines: caller-owned output of capacity entries (may be NULL when
 * capacity is 0), most votes first; found: the number of peaks (at most max_lines when set),
 * also when more than capacity; stats: caller-owned output or NULL (kept = edge pixels).
 * Returns VOTECL_INVALID_ARGUMENT naming the field (image too when, under edge_threshold 1,
 * it is no binary edge image: see votecl_hough_edges() below), and the statuses of the
 * engine. */
VOTECL_API votecl_status votecl_hough_run(votecl_hough_plan *plan, const votecl_image *image,
                                          votecl_hough_line *lines, size_t capacity, size_t *found,
                                          votecl_vote_stats *stats);

/** As votecl_hough_run() from a gray image (u8, one channel, the plan's size, any stride;
 * borrowed): its edges are the pixels whose Euclidean 3x3 Sobel magnitude
 * floor(sqrt(gx^2 + gy^2)) reaches sobel_threshold (255, else 0; the one-pixel border 0), and
 * those are voted. With params.thin_edges (the default), an edge must also be a ridge of
 * m = gx^2 + gy^2 across the edge, as in Canny's non-maximum suppression: with
 * a = |gx|, b = |gy|, the neighbours compared are left and right when
 * 100000 b <= 41421 a (tan 22.5 degrees), above and below when 100000 b >= 241421 a
 * (tan 67.5), else the diagonal pair (x - 1, y - 1), (x + 1, y + 1) when gx and gy have the
 * same sign, (x + 1, y - 1), (x - 1, y + 1) otherwise; m must exceed the first neighbour's
 * (the one above, or to the left in a row) and be at least the second's, a neighbour on the
 * border or outside the image counting 0. So of two equal magnitudes side by side one is
 * kept, and a ridge two or three pixels thick votes one pixel per line. On a device the image
 * is uploaded once, the edges and the vote stay on the device and only the peak candidates
 * (the local maxima above the peak threshold) come back; the lines equal the 'ref' backend's
 * exactly. The accumulator (votecl_hough_plan_accumulator()) is read back only when asked
 * for; with params.segments the edge image is read back too. stats: kept = edge pixels.
 * Returns as votecl_hough_run() (no binary-image check: the edges are binary by
 * construction). */
VOTECL_API votecl_status votecl_hough_run_gray(votecl_hough_plan *plan, const votecl_image *image,
                                               unsigned sobel_threshold, votecl_hough_line *lines,
                                               size_t capacity, size_t *found,
                                               votecl_vote_stats *stats);

/** The accumulator of the last votecl_hough_run() or votecl_hough_run_gray() (read back from
 * the device on the first call after the latter; NULL when that read fails): G * N counts, angle by
 * angle (bin g * N + b). Transfer none: valid until the next run or votecl_hough_plan_free(); NULL
 * before the first run. */
VOTECL_API const uint32_t *votecl_hough_plan_accumulator(const votecl_hough_plan *plan);

/** The peaks of an accumulator of the plan's shape (accumulator: borrowed, G * N counts),
 * as votecl_hough_run() extracts them. */
VOTECL_API votecl_status votecl_hough_plan_peaks(votecl_hough_plan *plan,
                                                 const uint32_t *accumulator,
                                                 votecl_hough_line *lines, size_t capacity,
                                                 size_t *found);

/** Every segment of the lines of the last votecl_hough_run() or votecl_hough_run_gray() with
 * params.segments, as OpenCV's HoughLinesP returns them: each reported line's runs of edge
 * pixels within 2 px of it along its minor axis, gaps of at most max_gap steps bridged, of at
 * least min_length px from end to end (see votecl_segment), line by line in the order of the
 * lines array and along each line in its direction; a run's pixels count for every line they
 * lie near (HoughLinesP gives a pixel to the first line that takes it). Only the lines that
 * fit the run's capacity have segments. The same on every backend: the runs are found on the
 * host from the edge image. segments: transfer none, a plan-owned array valid until the next
 * run or votecl_hough_plan_free() (NULL when count is 0); count: the number of segments, 0
 * before the first run, after a failed one and without params.segments. Returns
 * VOTECL_INVALID_ARGUMENT for a NULL pointer. */
VOTECL_API votecl_status votecl_hough_plan_segments(const votecl_hough_plan *plan,
                                                    const votecl_segment **segments, size_t *count);

/** Votes a packed width x height u8 image in a device buffer of the plan's context (borrowed)
 * into accumulator (a device buffer of at least G * N * 4 bytes). Asynchronous, for
 * benchmarks: votecl_hough_plan_last_stats() waits and reports. */
VOTECL_API votecl_status votecl_hough_run_buffers(votecl_hough_plan *plan, votecl_buffer *image,
                                                  votecl_buffer *accumulator);

/** The stats of the last run; waits for it. stats: caller-owned output. */
VOTECL_API votecl_status votecl_hough_plan_last_stats(votecl_hough_plan *plan,
                                                      votecl_vote_stats *stats);

/** The engine's strategy for an image of 'elements' pixels (the Hough's own CPU vote is
 * described as the private strategy: one copy, each work-item owning its rows). info:
 * caller-owned output. */
VOTECL_API votecl_status votecl_hough_plan_describe(const votecl_hough_plan *plan, size_t elements,
                                                    votecl_vote_plan_info *info);

/** @file
 * @par The edge step
 * The transform
 votes for the pixels of a binary edge image: with edge_threshold 1 (the
 * default) votecl_hough_run() refuses an image holding more than 0 and one other value,
 * because a gray image would make every pixel an edge (VOTECL_INVALID_ARGUMENT naming
 * image); any other edge_threshold thresholds a gray image explicitly. A photo goes
 * through votecl_hough_edges() first. */

/** Largest Canny threshold: |gx| + |gy| of the 3x3 Sobel of a u8 image is at most 2040. */
#define VOTECL_HOUGH_EDGES_MAX 2040u

/** Canny's edges of image (u8, one channel, borrowed) on the host, as OpenCV's
 * Canny(image, edges, low, high) with its defaults (3x3 Sobel, |gx| + |gy|, non-maximum
 * suppression, hysteresis between low and high; low == high: one threshold): edges
 * (caller-owned, image.height rows of image.width bytes, edges_stride apart) gets 255 at
 * each edge and 0 elsewhere, the one-pixel border 0. context: for the error message.
 * Returns VOTECL_INVALID_ARGUMENT naming the field (low > high, high above
 * VOTECL_HOUGH_EDGES_MAX, a side above VOTECL_HOUGH_MAX_SIDE), VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_hough_edges(votecl_context *context, const votecl_image *image,
                                            unsigned low, unsigned high, uint8_t *edges,
                                            size_t edges_stride);

/** The edge image votecl_hough_run_gray() votes, on the host: 255 where the Euclidean 3x3
 * Sobel magnitude of image (u8, one channel, borrowed) reaches threshold and, with thin
 * nonzero, is a ridge across the edge (the rule of votecl_hough_run_gray() under
 * params.thin_edges), 0 elsewhere and on the one-pixel border. edges: caller-owned,
 * image.height rows of image.width bytes, edges_stride apart. context: for the error
 * message. Returns VOTECL_INVALID_ARGUMENT naming the field (a side above
 * VOTECL_HOUGH_MAX_SIDE), VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_hough_sobel_edges(votecl_context *context,
                                                  const votecl_image *image, unsigned threshold,
                                                  int thin, uint8_t *edges, size_t edges_stride);

#ifdef __cplusplus
}
#endif

#endif
