/* The generalized Hough transform's internal interface: the quantisation shared by the model
 * (lib/ght.c), the sequential reference (lib/ght-ref.c) and the tests. Every stage is a
 * function over plain arrays so that a device stage can be compared with it array for
 * array: edges sorted by gradient bin with start offsets, pairings sorted by their
 * (theta, alpha) key with start offsets, integer Hough spaces.
 *
 * Every bin index is decided by operations that are correctly rounded on any conforming
 * OpenCL device, and immune to contraction: angle bins by exact cross-product signs against
 * the host's table of boundary directions (floats times integers, exact in double), scale bins
 * by exact comparisons against the host's table of boundaries (float times float, exact in
 * double), grid cells from double sums of exact products, one division and one addition.
 * No transcendental function runs on the device. */
#ifndef VOTECL_GHT_PRIVATE_H
#define VOTECL_GHT_PRIVATE_H

#include "votecl-private.h"

/* Resolved parameters and the sizes derived from them. */
typedef struct votecl__ght_desc {
    votecl_ght_params p;
    uint32_t levels;       /* L gradient bins, also L alpha bins */
    uint32_t xi_bins;      /* round(xi L / 360) */
    uint32_t eps;          /* angle_epsilon */
    uint32_t rotations;    /* steps of the rotation search */
    uint32_t scales;       /* steps of the scale search */
    int full_circle;       /* the rotation search covers 360 degrees (wraps) */
    double cx, cy;         /* the template's centre */
    /* (cos, sin) of the upper boundary of bin b, 360 (b + 1/2) / L degrees, rounded to float
     * (bin b is centred on 360 b / L degrees) */
    float dirs[2 * VOTECL_GHT_MAX_LEVELS];
} votecl__ght_desc;

/* A growing array of poses. */
typedef struct votecl__ght_poses {
    votecl_ght_pose *v;
    size_t n, capacity;
} votecl__ght_poses;

/* Appends a pose; VOTECL_OUT_OF_HOST_MEMORY when it cannot grow. */
votecl_status votecl__ght_poses_push(votecl__ght_poses *poses, const votecl_ght_pose *pose);

/* An edge point: pixel and gradient bin. */
typedef struct votecl__ght_point {
    int32_t x, y;
    uint32_t bin;
} votecl__ght_point;

/* Edges sorted by bin: points[offsets[b] .. offsets[b + 1]) have bin b (L + 1 offsets). */
typedef struct votecl__ght_edges {
    votecl__ght_point *points;
    uint32_t *offsets;
    size_t n;
} votecl__ght_edges;

/* A Guil pairing: key theta L + alpha, its two points (i then j) and distance. */
typedef struct votecl__ght_pair {
    uint32_t key;
    int32_t xi, yi, xj, yj;
    float d;
} votecl__ght_pair;

/* Pairings sorted by key with L * L + 1 start offsets. */
typedef struct votecl__ght_pairs {
    votecl__ght_pair *pairs;
    uint32_t *offsets;
    size_t n;
    uint32_t *keys; /* the non-empty keys, ascending */
    size_t nkeys;
} votecl__ght_pairs;

/* Resolves defaults (params validated) into desc. */
void votecl__ght_desc_init(votecl__ght_desc *desc, const votecl_ght_params *params);

/* The gradient bin of (gx, gy) != (0, 0) (|gx|, |gy| < 2^29): one past the last boundary
 * direction of desc->dirs at or before it counterclockwise from 0 degrees, mod L (the
 * angle's round-half-up(atan2(gy, gx) L / 360) mod L up to the float boundaries). */
uint32_t votecl__ght_bin(const votecl__ght_desc *desc, int32_t gx, int32_t gy);

/* The lower boundary of scale bin k (k in [0, S]; S: the upper end of the last bin),
 * min_scale + (k - 1/2) scale_step rounded to float. A ratio dI / dT is in bin k when
 * bound(k) dT <= dI < bound(k + 1) dT (products exact in double). */
float votecl__ght_scale_bound(const votecl__ght_desc *desc, uint32_t k);

/* The rotation-and-scale factors (scale cos, scale sin) rounded to float, of cos and sin
 * of the rotation: D and Ballard's votes multiply them by floats, exactly in double. */
void votecl__ght_rs(double c, double s, double scale, float rs[2]);

/* Edge points of a packed u8 image, raster order: 3x3 Sobel, L1 magnitude, non-maximum
 * suppression, hysteresis between low and high (low == high: a single threshold). Returns
 * how many (out: at least W * H entries); VOTECL_OUT_OF_HOST_MEMORY as (size_t)-1. */
size_t votecl__ght_ref_canny(const votecl__ght_desc *desc, const uint8_t *data, uint32_t width,
                             uint32_t height, unsigned low, unsigned high,
                             votecl__ght_point *out);

/* Counting sort of n points by bin into edges (allocates; free with _edges_clear). */
votecl_status votecl__ght_edges_sort(const votecl__ght_point *points, size_t n, uint32_t levels,
                                     votecl__ght_edges *edges);
void votecl__ght_edges_clear(votecl__ght_edges *edges);

/* Guil's pairings of sorted edges, sorted by key (allocates; free with _pairs_clear). */
votecl_status votecl__ght_ref_pairs(const votecl__ght_desc *desc, const votecl__ght_edges *edges,
                                    votecl__ght_pairs *pairs);
void votecl__ght_pairs_clear(votecl__ght_pairs *pairs);

/* The O space of sorted pairings: L * L counts (key order). */
void votecl__ght_ref_ospace(const votecl__ght_desc *desc, const votecl__ght_pairs *pairs,
                            uint32_t *space);

/* Guil detection of image pairings against the template's: appends the candidate poses of
 * every examined rotation and scale (unsorted). */
votecl_status votecl__ght_ref_guil(const votecl__ght_desc *desc, const votecl__ght_pairs *templ,
                                   const votecl__ght_pairs *image, uint32_t width,
                                   uint32_t height, votecl__ght_poses *out);

/* Stages a detection may run elsewhere (the device): S and D of pairings bound beforehand,
 * as votecl__ght_ref_sspace and votecl__ght_ref_dspace compute them. */
typedef struct votecl__ght_stages {
    votecl_status (*sspace)(void *user, uint32_t b, uint64_t *hist);
    votecl_status (*dspace)(void *user, uint32_t b, uint32_t tol, double angle, double scale,
                            uint32_t gw, uint32_t gh, uint32_t *space);
    void *user;
} votecl__ght_stages;

/* votecl__ght_ref_guil from the O spaces ot and oi (L * L counts each) with the S and D
 * stages of stages (NULL: the reference's). Statuses: the stages', out of host memory. */
votecl_status votecl__ght_guil(const votecl__ght_desc *desc, const votecl__ght_stages *stages,
                               const uint32_t *ot, const uint32_t *oi,
                               const votecl__ght_pairs *templ, const votecl__ght_pairs *image,
                               uint32_t width, uint32_t height, votecl__ght_poses *out);

/* The R-table: template edges sorted by bin, as vectors to the centre. */
typedef struct votecl__ght_rtable {
    float *dx, *dy;
    uint32_t *offsets; /* L + 1 */
    size_t n;
} votecl__ght_rtable;

votecl_status votecl__ght_rtable_build(const votecl__ght_edges *edges, uint32_t levels, double cx,
                                       double cy, votecl__ght_rtable *table);
void votecl__ght_rtable_clear(votecl__ght_rtable *table);

/* Cells of Ballard's accumulator for a width x height image (0 on overflow). */
size_t votecl__ght_ballard_cells(const votecl__ght_desc *desc, uint32_t width, uint32_t height);

/* Ballard's accumulator (cells counts, overwritten), cell ((s R + r) H' + y) W' + x. */
void votecl__ght_ref_ballard_vote(const votecl__ght_desc *desc, const votecl__ght_rtable *table,
                                  const votecl__ght_edges *edges, uint32_t width,
                                  uint32_t height, uint32_t *space);

/* Ballard's detections from a complete accumulator (appended, unsorted). */
votecl_status votecl__ght_ref_ballard_peaks(const votecl__ght_desc *desc, const uint32_t *space,
                                            uint32_t width, uint32_t height,
                                            votecl__ght_poses *out);

/* Sorts poses best first (votes, then angle votes, scale votes) and drops those within
 * min_dist of a better one; returns how many remain. */
size_t votecl__ght_finish(const votecl__ght_desc *desc, votecl_ght_pose *poses, size_t n);

/* The rotation of step k of the search, and the scale of step k. */
double votecl__ght_angle(const votecl__ght_desc *desc, double k);
double votecl__ght_scale(const votecl__ght_desc *desc, double k);
/* Width and height of the position grid of a width x height image (cells of dp pixels). */
void votecl__ght_grid(const votecl__ght_desc *desc, uint32_t width, uint32_t height,
                      uint32_t *gw, uint32_t *gh);

/* The S histogram of bin shift b (desc->scales counts) and the D space of bin shifts
 * b - tol .. b + tol at angle and scale (gw * gh counts), as the reference's detection
 * computes them (exposed for the device's tests). */
void votecl__ght_ref_sspace(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                            const votecl__ght_pairs *ip, uint32_t b, uint64_t *hist);
void votecl__ght_ref_dspace(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                            const votecl__ght_pairs *ip, uint32_t b, uint32_t tol, double angle,
                            double scale, uint32_t gw, uint32_t gh, uint32_t *space);

/* --- the device stages (lib/ght-device.c, cl/ght.cl) --- */

typedef struct votecl__ght_device votecl__ght_device;

/* Compiles the vote kernels for desc on an OpenCL context (out: free with _device_free). */
votecl_status votecl__ght_device_new(votecl_context *context, const votecl__ght_desc *desc,
                                     votecl__ght_device **out);
void votecl__ght_device_free(votecl__ght_device *dev);
/* The local and global replication factors in use. */
void votecl__ght_device_replication(const votecl__ght_device *dev, unsigned *m, unsigned *g);
/* Guil's O space of sorted edges (L * L counts, key order) with pairing LB or SSM. */
votecl_status votecl__ght_device_ospace(votecl__ght_device *dev, const votecl__ght_edges *edges,
                                        votecl_ght_pairing pairing, uint32_t *space);
/* Uploads the template's and the image's sorted pairings for the S and D stages. */
votecl_status votecl__ght_device_bind(votecl__ght_device *dev, const votecl__ght_pairs *tp,
                                      const votecl__ght_pairs *ip);
/* votecl__ght_ref_sspace and votecl__ght_ref_dspace on the device, of the bound pairings
 * (dev as void *: they are votecl__ght_stages' callbacks). */
votecl_status votecl__ght_device_sspace(void *dev, uint32_t b, uint64_t *hist);
votecl_status votecl__ght_device_dspace(void *dev, uint32_t b, uint32_t tol, double angle,
                                        double scale, uint32_t gw, uint32_t gh,
                                        uint32_t *space);
/* votecl__ght_ref_ballard_vote on the device. */
votecl_status votecl__ght_device_ballard(votecl__ght_device *dev,
                                         const votecl__ght_rtable *table,
                                         const votecl__ght_edges *edges, uint32_t width,
                                         uint32_t height, uint32_t *space);

/* --- the device front end (lib/ght-front.c; cl/ght-edges.cl, ght-pairs.cl, ght-peaks.cl):
 * edges, sorted lists, pairings and Ballard's maxima built and kept on the device --- */

/* The work-group size of every GHT kernel. */
#define VOTECL__GHT_WG 64u

/* The front end's -D defines for the program (at most 4 of 64 characters); returns how many. */
size_t votecl__ght_front_defines(char defs[][64]);

/* Tasks (list, first, end) of at most VOTECL__GHT_WG entries over the sub-lists of the lists
 * named by ids (n of them; NULL: 0 .. n - 1) with the given offsets (malloc'd, *count tasks;
 * NULL when out of memory). */
uint32_t *votecl__ght_make_tasks(const uint32_t *offsets, const uint32_t *ids, size_t n,
                                 size_t *count);

/* The buffers of the vote stages the front end fills in place: the template's pairings and
 * the tasks over their keys (bind's B_A, B_C), the image's pairings and offsets (B_D, B_E),
 * the angle bins' boundary directions. */
typedef enum votecl__ght_slot {
    VOTECL__GHT_SLOT_TPAIRS,
    VOTECL__GHT_SLOT_TTASKS,
    VOTECL__GHT_SLOT_IPAIRS,
    VOTECL__GHT_SLOT_IOFFSETS,
    VOTECL__GHT_SLOT_DIRS
} votecl__ght_slot;

votecl_buffer **votecl__ght_device_slot(votecl__ght_device *dev, votecl__ght_slot slot);
/* The number of tasks in VOTECL__GHT_SLOT_TTASKS. */
void votecl__ght_device_set_tasks(votecl__ght_device *dev, size_t ntasks);
/* A kernel of the device's program (transfer none). */
votecl_status votecl__ght_device_kernel(votecl__ght_device *dev, const char *name, void **kernel);
/* Ballard's vote split in two: the R-table uploaded once, then the n edges of a device buffer
 * (x, y, bin each) voted into space (a device buffer of at least the cells; zeroed here). */
votecl_status votecl__ght_device_ballard_bind(votecl__ght_device *dev,
                                              const votecl__ght_rtable *table);
votecl_status votecl__ght_device_ballard_vote(votecl__ght_device *dev, const votecl_buffer *points,
                                              size_t n, uint32_t width, uint32_t height,
                                              votecl_buffer *space);

typedef struct votecl__ght_front votecl__ght_front;

/* The front end of a device's model (dev: borrowed, outlives it; out: free with _front_free). */
votecl_status votecl__ght_front_new(votecl_context *context, votecl__ght_device *dev,
                                    const votecl__ght_desc *desc, votecl__ght_front **out);
void votecl__ght_front_free(votecl__ght_front *front);

/* The current edges become those of a packed u8 image, found and sorted on the device as
 * votecl__ght_ref_canny (low, high) then votecl__ght_edges_sort find and sort them. */
votecl_status votecl__ght_front_canny(votecl__ght_front *front, const uint8_t *data, uint32_t width,
                                      uint32_t height, unsigned low, unsigned high);
/* The current edges become edges sorted on the host (uploaded). */
votecl_status votecl__ght_front_set_edges(votecl__ght_front *front, const votecl__ght_edges *edges);
/* The current edges: their number and L + 1 offsets (borrowed until the next change). */
size_t votecl__ght_front_count(const votecl__ght_front *front, const uint32_t **offsets);
/* A host copy of the current edges (allocates; free with votecl__ght_edges_clear). */
votecl_status votecl__ght_front_read_edges(votecl__ght_front *front, votecl__ght_edges *edges);

/* Which list of pairings: the template's (built once per model) or the image's. */
typedef enum votecl__ght_list { VOTECL__GHT_TEMPLATE, VOTECL__GHT_IMAGE } votecl__ght_list;

/* Guil's pairings of the current edges with pairing LB or SSM, as votecl__ght_ref_pairs
 * (within a key in another order), left in the vote stages' buffers of list (the template's
 * with tasks over their keys); out gets the offsets, keys and count on the host, pairs NULL
 * (free with votecl__ght_pairs_clear). VOTECL_UNSUPPORTED when they could exceed 2^32. */
votecl_status votecl__ght_front_pairs(votecl__ght_front *front, votecl_ght_pairing pairing,
                                      votecl__ght_list list, votecl__ght_pairs *out);
/* Reads list's pairings into pairs->pairs (pairs as _front_pairs left it; for the tests). */
votecl_status votecl__ght_front_read_pairs(votecl__ght_front *front, votecl__ght_list list,
                                           votecl__ght_pairs *pairs);

/* Ballard on the device: the current edges voted (R-table bound with
 * votecl__ght_device_ballard_bind), the accumulator's maxima found there; appends the poses
 * votecl__ght_ref_ballard_peaks would. */
votecl_status votecl__ght_front_ballard(votecl__ght_front *front, uint32_t width, uint32_t height,
                                        votecl__ght_poses *out);

/* Seconds of the last edge stage (upload to sorted offsets read back) and pairing stage
 * (tasks to offsets read back). */
void votecl__ght_front_seconds(const votecl__ght_front *front, double *edges, double *pairing);

#endif
