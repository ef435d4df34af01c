/** @file
 * libvotecl: the generalized Hough transform, two methods.
 *
 * Guil's fast GHT (Guil, Gonzalez-Linares, Zapata 1999; on the GPU: Gomez-Luna et al.,
 * "Parallelization of the generalized Hough transform on GPU").
 * Edge points carry a gradient angle quantised into `levels` bins over 360 degrees. Two edge
 * points p_i, p_j whose angle bins differ by xi (theta_j = theta_i + xi, within
 * angle_epsilon bins) form a pairing with
 *   theta = theta_i (bin),  alpha = angle of (p_j - p_i) minus theta_i (bin),
 *   d = |p_j - p_i|,  r_i = p_i - centre,  r_j = p_j - centre.
 * Pairings are invariant: alpha does not change with rotation or scale, theta shifts by the
 * rotation and d scales. Three Hough spaces follow, one after the other:
 *  - O: the template's and the image's pairings counted over (theta, alpha); the rotation
 *    beta is a maximum of their correlation corr(beta) = sum min(O_T(t, a), O_I'(t + beta, a))
 *    (a histogram intersection: the paper's product lets straight segments outvote the
 *    shape; O_I' sums O_I over the 3x3 neighbouring keys, as a rotated instance's bins move
 *    by a bin or two); every maximum explaining at least angle_share of the template's
 *    pairings is examined (corr / template pairings, in [0, 1] for any template), the best
 *    max_rotations of them at most;
 *  - S: for a rotation, each such agreeing pair votes the scale d_image / d_template;
 *  - D: for a rotation and scale, each agreeing pair votes the position p_i - s R(beta) r_i
 *    (and the same for p_j) in cells of dp pixels; each maximum's pose is then fitted to the
 *    pairings that voted for it (least squares, lib/ght-pose.c).
 * Every pose of either method is then refined against the image's edges and gets a
 * confidence: the share of the template's edge points that an image edge of matching gradient
 * confirms within 2 px, counting only edges no better pose claimed; where an accepted pose
 * covers a point that nothing confirms, the point is hidden (an instance drawn over another),
 * not missing, and left out of the share (at most 30% of the template). Poses are ranked by
 * it and reported from min_confidence (docs/accuracy.md has the suite behind the defaults).
 * Edges come from Canny (3x3 Sobel, L1 magnitude |gx| + |gy|, non-maximum suppression,
 * hysteresis between low and high).
 *
 * Ballard's R-table GHT (Ballard 1981; on the GPU: Chen and Xu, "Generalized Hough
 * transform on GPU"). The R-table maps the gradient
 * bin of each template edge to its vector to the centre. Every image edge votes, for every
 * rotation and scale of the search, p + s R(rot) r for every r of the bin (theta - rot) into
 * a 4-D accumulator (x / dp, y / dp, scale, rotation). Edges: Sobel, non-maximum suppression
 * and the single threshold `high` (no hysteresis). Detections are the accumulator's local
 * maxima with at least votes_threshold votes and at least votes_ratio times the largest.
 *
 * Angles are in degrees in image coordinates (x right, y down; OpenCV's convention): a
 * rotation by a maps a template offset (u, v) to (u cos a - v sin a, u sin a + v cos a),
 * clockwise as seen on the screen: the opposite sense of cv2.getRotationMatrix2D, whose
 * positive angle turns counter-clockwise, so a template turned by getRotationMatrix2D(c, A, 1)
 * is reported at 360 - A (and A = 0 at 0). Reported angles lie in [0, 360); one a rounding
 * error below 360 (1e-9 degrees) is reported as 0, so an unrotated pose never prints as 360.
 * A pose places the
 * template's centre ((W - 1) / 2, (H - 1) / 2 of the template by default) at (x, y).
 *
 * The model is built once from a template image (or its edges) and detects many times, in
 * images of any size. On the ref backend everything runs in the sequential reference, the
 * specification the device paths are tested against. On a device context the image is uploaded once
 * and the work stays on the device: edges, their compaction and sorting by gradient bin, Guil's
 * pairings with the chosen mechanism (their O space), the S and D spaces, Ballard's accumulator and
 * its maxima, every list and space equal to the reference's, so the poses are the same. The host
 * reads back small arrays and runs Guil's rotation correlation, peak picking and the confidences
 * (from the edges read back), which therefore equal the reference's bit for bit. */
#ifndef VOTECL_GHT_H
#define VOTECL_GHT_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-image.h>
#include <votecl/votecl-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest template or image side (edges are packed as x | y << 16). */
#define VOTECL_GHT_MAX_SIDE 32767u
/** Largest number of gradient angle bins. */
#define VOTECL_GHT_MAX_LEVELS 1024u

/** The generalized Hough transform's method. */
typedef enum votecl_ght_method {
    VOTECL_GHT_GUIL = 0,   /**< fast GHT: rotation, then scale, then position */
    VOTECL_GHT_BALLARD = 1 /**< R-table, 4-D accumulator */
} votecl_ght_method;

/** How a Guil pairing stage deals two sorted lists to work-items (Gomez-Luna et al., Sec. IV). */
typedef enum votecl_ght_pairing {
    VOTECL_GHT_PAIRING_AUTO = 0, /**< chosen from the sub-list sizes */
    VOTECL_GHT_PAIRING_LB = 1,   /**< load balancing: both chunks in local memory */
    VOTECL_GHT_PAIRING_SSM = 2   /**< save shared memory: one tuple per work-item */
} votecl_ght_pairing;

/** Parameters of a GHT (defaults in brackets); fill with votecl_ght_params_init() first. */
typedef struct votecl_ght_params {
    size_t struct_size;       /**< set by the _init function: see votecl.h */
    votecl_ght_method method; /**< default VOTECL_GHT_GUIL */
    unsigned levels;          /**< gradient (and alpha) angle bins over 360 degrees (360) */
    unsigned canny_low;       /**< hysteresis low threshold on |gx| + |gy| (50) */
    unsigned canny_high;      /**< high threshold; Ballard's only threshold (100) */
    double min_angle;         /**< rotation search in degrees, [min, max) (0) */
    double max_angle;         /**< (360; Ballard default: min + angle_step, no rotation) */
    double angle_step;        /**< rotation step in degrees (1) */
    double min_scale;         /**< scale search [min, max] (0.5; Ballard: 1) */
    double max_scale;         /**< (2; Ballard: 1) */
    double scale_step;        /**< (0.05) */
    unsigned dp;              /**< position cell side in pixels, >= 1 (2) */
    double min_dist;          /**< least distance between two detections in pixels (10) */
    size_t max_detections;    /**< most poses reported; 0: no limit but capacity (0) */
    double min_confidence;    /**< least confidence of a reported pose, [0, 1] (0.7) */
    /* Guil */
    double xi;                   /**< angle between the gradients of a pairing, degrees (90) */
    unsigned angle_epsilon;      /**< tolerance on xi in bins (1) */
    uint32_t angle_threshold;    /**< least O correlation of a rotation (0: angle_share) */
    double angle_share;          /**< least O correlation of a rotation as a share of the
                                  * template's pairings, [0, 1] (0.15) */
    uint32_t scale_threshold;    /**< least S votes of a scale (0: 1/4 of the best) */
    uint32_t position_threshold; /**< least D votes of a position (0: 1/8 of the best) */
    unsigned max_rotations;      /**< at most this many rotations examined, best first (16) */
    unsigned max_scales;         /**< scales examined per rotation, best first (2) */
    votecl_ght_pairing pairing;  /**< (AUTO) */
    unsigned replication;        /**< local sub-histogram copies M per work-group, 0: auto */
    unsigned global_replication; /**< global vote space copies, 0: auto */
    /* Ballard */
    uint32_t votes_threshold; /**< least votes of a detection (0: none beyond the ratio) */
    double votes_ratio;       /**< least fraction of the largest count (0.1) */
    /** Both: the most bytes a model or a detection may allocate, host and device together
     * (VOTECL_GHT_MEMORY_LIMIT_DEFAULT; 0: no limit). Checked from sizes before anything is
     * allocated for them: the pixels (VOTECL_GHT_PIXEL_BYTES each: image copies, edge maps,
     * edge lists, the confidences' maps), Guil's lists of pairings (48 bytes a pairing at
     * most, the image's and the template's: they grow with the square of the edges of a
     * gradient bin), its O, S and D spaces, Ballard's accumulator. Over it:
     * VOTECL_OUT_OF_RESOURCES with a message naming the figure and the limit. */
    uint64_t memory_limit;
} votecl_ght_params;

/** memory_limit's default: 4 GiB. */
#define VOTECL_GHT_MEMORY_LIMIT_DEFAULT ((uint64_t)4 << 30)
/** Bytes a pixel of a template or image counts against memory_limit (its copies, gradients,
 * edge states and lists, and the confidences' maps: 52 on the reference, fewer on a
 * device). */
#define VOTECL_GHT_PIXEL_BYTES 64u

/** Sets the defaults above for method. */
VOTECL_API void votecl_ght_params_init(votecl_ght_params *params, votecl_ght_method method);

/** An edge point given by the caller: pixel (x, y) and its gradient (gx, gy) (gx = gy = 0 is
 * not an edge). */
typedef struct votecl_ght_edge {
    uint32_t x; /**< column */
    uint32_t y; /**< row */
    int32_t gx; /**< horizontal gradient */
    int32_t gy; /**< vertical gradient */
} votecl_ght_edge;

/** One detection. */
typedef struct votecl_ght_pose {
    double x;             /**< the template's centre in the image, column in pixels */
    double y;             /**< the template's centre in the image, row in pixels */
    double angle;         /**< rotation in degrees, [0, 360), clockwise on screen (see above) */
    double scale;         /**< the template's scale in the image */
    uint32_t votes;       /**< position votes (Guil: D, Ballard: the accumulator) */
    uint32_t angle_votes; /**< Guil: O correlation of the rotation; Ballard: 0 */
    uint32_t scale_votes; /**< Guil: S votes of the scale; Ballard: 0 */
    double confidence;    /**< in [0, 1]: the share of the template the pose explains */
} votecl_ght_pose;

/** What the last detection saw. */
typedef struct votecl_ght_stats {
    size_t template_edges;      /**< edge points of the template */
    size_t template_pairings;   /**< pairings of the template (Guil only) */
    size_t image_edges;         /**< edge points of the image */
    size_t image_pairings;      /**< pairings of the image (Guil only) */
    votecl_ght_pairing pairing; /**< the mechanism used (Guil on a device) */
    size_t candidates;          /**< poses found before max_detections */
    /** On a device (0 on the ref backend): seconds of the image's edge stage (upload, edges,
     * compaction and sorting; Ballard on a GPU-shaped device from a model's second image on:
     * also the vote and maxima, which follow the edges in the same round trip) */
    double edges_seconds;
    /** On a device (0 on the ref backend): seconds of the image's pairing stage (Guil: the
     * sorted list of pairings) */
    double pairing_seconds;
} votecl_ght_stats;

/** A template's model for one method and parameters (opaque). */
typedef struct votecl_ght_model votecl_ght_model;

/** Builds a model from a template image (one channel, u8) whose centre is the template's
 * middle ((W - 1) / 2, (H - 1) / 2). params, image: borrowed; out: caller-owned, free with
 * votecl_ght_model_free(). Returns VOTECL_INVALID_ARGUMENT naming the field (also for a
 * template with fewer than two edge points), VOTECL_OUT_OF_RESOURCES when the template's
 * pixels or pairings need more than params.memory_limit, and the statuses of builds and
 * allocations. */
VOTECL_API votecl_status votecl_ght_model_new(votecl_context *context,
                                              const votecl_ght_params *params,
                                              const votecl_image *image,
                                              votecl_ght_model **out);

/** The same from n edge points (borrowed) of a width x height template, centre (cx, cy). */
VOTECL_API votecl_status votecl_ght_model_new_edges(votecl_context *context,
                                                    const votecl_ght_params *params,
                                                    const votecl_ght_edge *edges, size_t n,
                                                    size_t width, size_t height, double cx,
                                                    double cy, votecl_ght_model **out);

/** Frees a model; NULL is a no-op. */
VOTECL_API void votecl_ght_model_free(votecl_ght_model *model);

/** The resolved parameters (params: caller-owned output). */
VOTECL_API void votecl_ght_model_params(const votecl_ght_model *model, votecl_ght_params *params);

/** Detects the template in image (one channel, u8, any size and stride). poses: caller-owned
 * output of capacity entries (NULL when capacity is 0), best first; found: the number of
 * poses (at most max_detections when set), also when more than capacity. An image without
 * edges, or smaller than nothing of the search could fit in, gives found = 0 and VOTECL_OK.
 * Returns VOTECL_INVALID_ARGUMENT naming the field, VOTECL_OUT_OF_RESOURCES (nothing
 * allocated for the stage at fault, the model still usable) when the image's pixels,
 * pairings or spaces need more than params.memory_limit, and device statuses. */
VOTECL_API votecl_status votecl_ght_detect(votecl_ght_model *model, const votecl_image *image,
                                           votecl_ght_pose *poses, size_t capacity,
                                           size_t *found);

/** The same from n edge points (borrowed) of a width x height image. */
VOTECL_API votecl_status votecl_ght_detect_edges(votecl_ght_model *model,
                                                 const votecl_ght_edge *edges, size_t n,
                                                 size_t width, size_t height,
                                                 votecl_ght_pose *poses, size_t capacity,
                                                 size_t *found);

/** Only the first stages of a detection of image: its edges and, for Guil, its pairings with
 * the model's pairing mechanism; no pose is searched. stats (caller-owned output) receives
 * what votecl_ght_model_last_stats() reports afterwards (candidates 0). For choosing
 * parameters (the pairings grow with the square of the edges in a bin) and for timing the
 * stages. Returns VOTECL_INVALID_ARGUMENT naming the field, VOTECL_OUT_OF_RESOURCES when the
 * pixels or pairings need more than params.memory_limit, and device statuses. */
VOTECL_API votecl_status votecl_ght_pairings(votecl_ght_model *model, const votecl_image *image,
                                             votecl_ght_stats *stats);

/** The stats of the last detection (stats: caller-owned output). */
VOTECL_API votecl_status votecl_ght_model_last_stats(const votecl_ght_model *model,
                                                     votecl_ght_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
