/* The generalized Hough transform's internal interface: the quantisation shared by the model
 * (lib/ght.c), the stages and the tests, and the stages themselves. The GHT is laid out by
 * stage, as its kernels are: one host file per kernel file, holding the stage's reference
 * (the specification, the test oracle and the 'ref' backend) and its device implementation
 * side by side, both entries of the stage table (votecl__ght_impl, at the end) through which
 * lib/ght.c's one detection path runs. Every reference stage is a function over plain arrays
 * so that a device stage can be compared with it array for array: edges sorted by gradient
 * bin with start offsets, pairings sorted by their (theta, alpha) key with start offsets,
 * integer Hough spaces.
 *
 * Every bin index is decided by operations that are correctly rounded on any conforming
 * OpenCL device, and immune to contraction: angle bins by exact cross-product signs against
 * the host's table of boundary directions (floats times integers, exact in double), scale bins
 * by exact comparisons against the host's table of boundaries (float times float, exact in
 * double), grid cells from double sums of exact products, one division and one addition.
 * No transcendental function runs on the device.
 *
 * The files and what each calls (no loop; keep it so):
 *   ght.c (the model, the one detection path) -> ght-search, ght-confidence, ght-edges,
 *       ght-pairs, ght-spaces, ght-peaks, ght-device, ght-quant
 *   ght-search.c (Guil's search over its S, D and match stages) -> ght-spaces, ght-pose,
 *       ght-quant
 *   ght-confidence.c (the poses' confidences) -> ght-pose, ght-quant
 *   ght-edges.c (edges; cl/canny.cl, cl/ght-edges.cl) -> edges, ght-device, ght-quant
 *   ght-pairs.c (Guil's pairings; cl/ght-pairs.cl) -> ght-edges (the device's scan),
 *       ght-device, ght-pose, ght-quant
 *   ght-spaces.c (O, S, D, matches, Ballard's votes; cl/ght.cl) -> ght-device, ght-pose,
 *       ght-quant
 *   ght-peaks.c (Ballard's maxima; cl/ght-peaks.cl) -> ght-device, ght-quant
 *   ght-device.c (the device state the stages share: programs, kernels, buffers) -> ght-quant
 *   ght-pose.c (D's maxima, matches, the fits) -> nothing of the GHT's
 *   ght-quant.c (quantisation, ranking) -> nothing of the GHT's
 * cl/ght-common.cl is composed into every stage program but the peaks'. */
#ifndef VOTECL_GHT_PRIVATE_H
#define VOTECL_GHT_PRIVATE_H

#include "votecl-private.h"

/* Resolved parameters and the sizes derived from them. */
typedef struct votecl__ght_desc {
    votecl_ght_params p;
    uint32_t levels;    /* L gradient bins, also L alpha bins */
    uint32_t xi_bins;   /* round(xi L / 360) */
    uint32_t eps;       /* angle_epsilon */
    uint32_t rotations; /* steps of the rotation search */
    uint32_t scales;    /* steps of the scale search */
    int full_circle;    /* the rotation search covers 360 degrees (wraps) */
    double cx, cy;      /* the template's centre */
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

/* Pairings sorted by key with L * L + 1 start offsets; the reference's (and in the GPU shapes
 * the device's image list after the cap) each key's by length d, so that the S and match
 * stages visit only the lengths that can count (lib/ght-spaces.c's windows). */
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

/* Edge points of a packed u8 image, raster order: votecl__canny_ref's (lib/edges.c) with
 * their bins. Returns how many (out: at least W * H entries); VOTECL_OUT_OF_HOST_MEMORY as
 * (size_t)-1. */
size_t votecl__ght_ref_canny(const votecl__ght_desc *desc, const uint8_t *data, uint32_t width,
                             uint32_t height, unsigned low, unsigned high, votecl__ght_point *out);

/* The same points as votecl__ght_ref_canny, in the same order, from votecl__canny_host
 * (CPU devices' edges): memo holds its rows and lists between calls (NULL at
 * first; free with _canny_memo_free); *out: the points, borrowed from memo until its next
 * call. Returns how many; (size_t)-1 when out of memory. votecl__ght_bin_host: votecl__ght_bin
 * from an estimate and two of its boundary tests. */
typedef struct votecl__ght_canny_memo votecl__ght_canny_memo;
size_t votecl__ght_host_canny(const votecl__ght_desc *desc, const uint8_t *data, uint32_t width,
                              uint32_t height, unsigned low, unsigned high,
                              votecl__ght_canny_memo **memo, const votecl__ght_point **out);
void votecl__ght_canny_memo_free(votecl__ght_canny_memo *memo);
uint32_t votecl__ght_bin_host(const votecl__ght_desc *desc, int32_t gx, int32_t gy);

/* Counting sort of n points by bin into edges (allocates; free with _edges_clear). */
votecl_status votecl__ght_edges_sort(const votecl__ght_point *points, size_t n, uint32_t levels,
                                     votecl__ght_edges *edges);
void votecl__ght_edges_clear(votecl__ght_edges *edges);

/* At least the number of Guil's pairings of edges sorted by bin (L + 1 offsets): every point
 * of bin t times those of its partner bins, only coincident points left out. */
uint64_t votecl__ght_pairs_bound(const votecl__ght_desc *desc, const uint32_t *offsets);
/* The most bytes that building one list of pairings of those edges allocates, host and
 * device together, before and after the cap (the reference's unsorted and sorted copies, or
 * the device's list and its capped copy: 48 bytes a pairing of the bound), with their
 * offsets, keys, the device's counts and tasks and the list's O space; saturates at
 * UINT64_MAX. The memory limit's figure (lib/ght.c). */
uint64_t votecl__ght_pairs_bytes(const votecl__ght_desc *desc, const uint32_t *offsets);

/* Guil's pairings of sorted edges, sorted by key, then by length within a key (allocates;
 * free with _pairs_clear). */
votecl_status votecl__ght_ref_pairs(const votecl__ght_desc *desc, const votecl__ght_edges *edges,
                                    votecl__ght_pairs *pairs);
/* Pairings kept per key by the S, D and match stages, about: after the O space is taken
 * from the whole list, a key with more pairings keeps those whose votecl__ght_pair_hash (by
 * content, so the kept set does not depend on the order a device writes in) is at most
 * votecl__ght_keep_threshold of its count and the cap. Every later stage visits, per key and bin
 * shift, at most about cap^2 pairs of pairings: without it a large template's straight stretches
 * (every pair of a segment falls into one key) make the visits grow with the square of the
 * pairings per key (docs/performance.md). */
#define VOTECL__GHT_KEY_CAP 64u
uint32_t votecl__ght_pair_hash(uint32_t key, int32_t xi, int32_t yi, int32_t xj, int32_t yj);
/* The content hash of n words (lib/ght-pose.c; cl/ght-pairs.cl's ght_pair_hash), and the
 * threshold that keeps about keep of count hashed items: UINT32_MAX for a count within keep,
 * else keep 2^32 / count. */
uint32_t votecl__ght_hash(const uint32_t *w, int n);
uint32_t votecl__ght_keep_threshold(uint32_t count, uint32_t keep);
/* Applies the cap to sorted pairings in place (offsets, n and keys follow). */
void votecl__ght_pairs_cap(const votecl__ght_desc *desc, votecl__ght_pairs *pairs);
void votecl__ght_pairs_clear(votecl__ght_pairs *pairs);

/* The O space of sorted pairings: L * L counts (key order). */
void votecl__ght_ref_ospace(const votecl__ght_desc *desc, const votecl__ght_pairs *pairs,
                            uint32_t *space);

/* --- Guil's poses from D (lib/ght-pose.c) --- */

/* D maxima kept per D space (the best by votes), and the distance in pixels around a
 * maximum within which both votes of a pairing make it a match. */
#define VOTECL__GHT_MAX_DPEAKS 32u
#define VOTECL__GHT_MATCH_PIXELS 4u

/* D and matches take the bin shifts b - VOTECL__GHT_TOL .. b + VOTECL__GHT_TOL: tolerance
 * for the gradient bins' own quantisation. */
#define VOTECL__GHT_TOL 2u

/* A candidate of the search: a rotation's bin shift, its angle, a scale. */
typedef struct votecl__ght_cand {
    uint32_t b;
    double angle, scale;
} votecl__ght_cand;

/* A maximum chosen for fitting: its candidate and cell. */
typedef struct votecl__ght_sel {
    uint32_t cand, cell;
} votecl__ght_sel;

/* A 3x3 maximum of a D space: its cell, votes and the votes of its 3x3 neighbourhood (sw)
 * with their sums times the column and row offsets -1..1 (sx, sy). Device layout. */
typedef struct votecl__ght_dpeak {
    uint32_t cell, votes;
    uint64_t sw;
    int64_t sx, sy;
} votecl__ght_dpeak;

typedef struct votecl__ght_dpeaks {
    votecl__ght_dpeak *v;
    size_t n, capacity;
} votecl__ght_dpeaks;

/* A pairing whose two votes land within the match radius of selected maximum peak: the image
 * pairing's key, the template's and the image's points (xi, yi, xj, yj). Device layout (10
 * words). */
typedef struct votecl__ght_match {
    uint32_t peak, key;
    int32_t t[4], i[4];
} votecl__ght_match;

typedef struct votecl__ght_matches {
    votecl__ght_match *v;
    size_t n, capacity;
} votecl__ght_matches;

/* The least votes of a D maximum: param, or an eighth of the best (at least 1). */
uint32_t votecl__ght_peak_threshold(uint32_t param, uint32_t best);
/* The maxima of a D space at or above the threshold, ranked (below). */
votecl_status votecl__ght_space_peaks(const votecl__ght_desc *desc, const uint32_t *space,
                                      uint32_t gw, uint32_t gh, votecl__ght_dpeaks *out);
/* Sorts maxima by votes (descending) then cell and keeps the best VOTECL__GHT_MAX_DPEAKS. */
void votecl__ght_dpeaks_rank(votecl__ght_dpeaks *peaks);
/* The match radius in cells. */
uint32_t votecl__ght_match_radius(const votecl__ght_desc *desc);
/* The most by which a match's image pairing's vector (point i minus point j) differs on
 * either axis from its template pairing's turned and scaled by the candidate's factors, in
 * pixels: a pairing of another vector cannot put both votes on one maximum's label, so the
 * match stages skip it (lib/ght-spaces.c's vector_fits, cl/ght.cl's ght_vector_fits) and
 * find the same matches. */
double votecl__ght_match_span(const votecl__ght_desc *desc);
/* The label maps of n candidates (n * gw * gh entries, candidate c's at c gw gh): the cell of
 * candidate c within radius cells (Chebyshev) of a maximum sel[k] of c gets the lowest such
 * k, UINT32_MAX when there is none. */
void votecl__ght_label_maps(const votecl__ght_sel *sel, size_t nsel, size_t n, uint32_t gw,
                            uint32_t gh, uint32_t radius, uint32_t *labels);
votecl_status votecl__ght_matches_push(votecl__ght_matches *m, const votecl__ght_match *match);
/* Sorts matches by peak, then points (a canonical order for comparisons). */
void votecl__ght_matches_sort(votecl__ght_matches *m);
void votecl__ght_matches_clear(votecl__ght_matches *m);
/* Matches fitted per maximum, about: a larger group is sampled by votecl__ght_match_hash,
 * keeping the matches whose hash is at most votecl__ght_sample_threshold of the group's
 * size (by content, so the sample does not depend on the order a device appends in). */
#define VOTECL__GHT_FIT_SAMPLE 256u
uint32_t votecl__ght_match_hash(const votecl__ght_match *m);
uint32_t votecl__ght_sample_threshold(uint32_t count);
/* Keeps the sample of every group of matches (nsel maximum indices) in place. */
votecl_status votecl__ght_matches_sample(votecl__ght_matches *m, size_t nsel);
/* Groups matches by maximum (counting sort, order within a group as given): group p is
 * m->v[first[p] .. first[p + 1]) (first: npeaks + 1 entries). Out of host memory. */
votecl_status votecl__ght_matches_group(votecl__ght_matches *m, size_t npeaks, size_t *first);
/* The unit normals (cos, sin) of the L gradient bins' centres (2 L doubles). */
void votecl__ght_normals(const votecl__ght_desc *desc, double *normals);
/* The trimmed point-to-line least-squares similarity (a, b, x0, y0: image point
 * (a u - b v + x0, b u + a v + y0) of template offset (u, v)) of n correspondences, six
 * doubles each: template offset u, v, image point x, y, the image edge's unit normal;
 * scratch: VOTECL__GHT_FIT_SCRATCH n doubles (three per correspondence and its
 * VOTECL__GHT_FIT_TERMS terms). The sums follow the order of c: give them in an order that
 * does not depend on the device. Returns 0 when there is no fit (fewer than 8, singular). */
#define VOTECL__GHT_FIT_TERMS 14u
#define VOTECL__GHT_FIT_SCRATCH (3u + VOTECL__GHT_FIT_TERMS)
int votecl__ght_fit_points(const double *c, size_t n, double *scratch, double out[4]);
/* The scratch of votecl__ght_fit, grown as needed and kept over the fits of a search (a
 * malloc and free a fit cost page faults); release v with free. _reserve grows it for a fit
 * of n matches beforehand (out of host memory). */
typedef struct votecl__ght_fit_buf {
    double *v;
    size_t capacity;
} votecl__ght_fit_buf;
votecl_status votecl__ght_fit_reserve(votecl__ght_fit_buf *buf, size_t n);
/* Replaces the angle, scale and position of pose (the Hough estimate) by the trimmed
 * least-squares similarity of the n matches of one maximum, unless it strays from it; the
 * result does not depend on the order of the matches. Statuses: out of host memory. */
votecl_status votecl__ght_fit(const votecl__ght_desc *desc, const double *normals,
                              const votecl__ght_match *m, size_t n, votecl__ght_fit_buf *buf,
                              votecl_ght_pose *pose);
/* The matches of the pairings that agree under bin shifts b - tol .. b + tol at angle and
 * scale, against the label map of a gw x gh grid (appended, unsorted); only the pairings
 * whose vectors fit within span (votecl__ght_match_span; INFINITY: all) are examined. */
votecl_status votecl__ght_ref_matches(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                                      const votecl__ght_pairs *ip, uint32_t b, uint32_t tol,
                                      double angle, double scale, uint32_t gw, uint32_t gh,
                                      const uint32_t *labels, double span,
                                      votecl__ght_matches *out);

/* Stages a detection may run elsewhere (the device), over pairings bound beforehand, each
 * for all rotations or candidates at once (lib/ght-search.c has the reference's). */
typedef struct votecl__ght_stages {
    /* the S histograms of bin shifts b[0..n) (n * scales counts: votecl__ght_ref_sspace) */
    votecl_status (*sspace)(void *user, size_t n, const uint32_t *b, uint64_t *hists);
    /* the ranked maxima (votecl__ght_space_peaks) of the D spaces of candidates c[0..n)
     * (votecl__ght_ref_dspace with bin shifts c.b +- tol) into out[0..n) */
    votecl_status (*dpeaks)(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol,
                            uint32_t gw, uint32_t gh, votecl__ght_dpeaks *out);
    /* the sampled matches (votecl__ght_ref_matches, votecl__ght_matches_sample) of the
     * maxima sel[0..nsel) over their candidates' label maps (votecl__ght_label_maps), into
     * out (emptied first) */
    votecl_status (*matches)(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol,
                             uint32_t gw, uint32_t gh, const votecl__ght_sel *sel, size_t nsel,
                             votecl__ght_matches *out);
    void *user;
} votecl__ght_stages;

/* What one search did, for the debug log (lib/ght.c): the seconds of its phases (the
 * rotation search, S, D with its maxima, the matches, the fits), its candidates, the kept
 * maxima and the candidates holding one, and the pairs of pairings (template, image) its S, D
 * and match stages visit, counted from the lists' offsets (the match stage walks every
 * candidate of a call, twice on a device: counts, then matches); the threads its rotation
 * search and fits ran on (parallel.h's team.workers). */
typedef struct votecl__ght_search_stats {
    double seconds[5];
    uint64_t candidates, kept, matched, s_visits, d_visits, m_visits;
    unsigned rotation_workers, fit_workers;
} votecl__ght_search_stats;

/* Guil's detection (lib/ght-search.c) from the O spaces ot and oi (L * L counts each, of
 * the whole lists) over the capped pairings templ and image, with the S and D stages of
 * stages (NULL: the reference's): appends the candidate poses of every examined rotation and
 * scale (unsorted). room: bytes for the candidates' spaces (0: no limit): the D and match
 * stages take as many candidates at a time as fit in it (votecl__ght_search_bytes), at
 * least one; the candidates are independent, so any batch gives the same poses. copies: as
 * for votecl__ght_search_bytes. threads: the host stages' (the rotation search's and the
 * fits'), a context's host_threads (votecl__team_open); the poses are the same for any.
 * stats: filled when not NULL. Statuses: the stages', out of host memory. */
votecl_status votecl__ght_guil(const votecl__ght_desc *desc, const votecl__ght_stages *stages,
                               const uint32_t *ot, const uint32_t *oi,
                               const votecl__ght_pairs *templ, const votecl__ght_pairs *image,
                               uint32_t width, uint32_t height, uint64_t room, unsigned copies,
                               unsigned threads, votecl__ght_poses *out,
                               votecl__ght_search_stats *stats);
/* The most bytes votecl__ght_guil allocates for a width x height image with batch
 * candidates at a time, host and device together (saturates at UINT64_MAX). copies: the
 * device's global copies of a D space, 0 for the reference's stages. Per candidate and grid
 * cell: on a device its D space's copies, the merged space, its label map and room for its
 * maxima; on the host a D space or label map, and one more candidate's scratch. Beside them
 * (batch 0): the rotation search's L * L arrays and the S histograms. */
uint64_t votecl__ght_search_bytes(const votecl__ght_desc *desc, uint32_t width, uint32_t height,
                                  unsigned copies, uint64_t batch);

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

/* The host plan's vote and maxima (lib/ght-spaces.c, lib/ght-peaks.c): the reference's
 * accumulator and poses, computed faster on one core (the vote returns -1 when out of
 * memory). */
int votecl__ght_host_ballard_vote(const votecl__ght_desc *desc, const votecl__ght_rtable *table,
                                  const votecl__ght_edges *edges, uint32_t width, uint32_t height,
                                  uint32_t *space);
votecl_status votecl__ght_host_ballard_peaks(const votecl__ght_desc *desc, const uint32_t *space,
                                             uint32_t width, uint32_t height,
                                             votecl__ght_poses *out);

/* Ballard's accumulator (cells counts, overwritten), cell ((s R + r) H' + y) W' + x. */
void votecl__ght_ref_ballard_vote(const votecl__ght_desc *desc, const votecl__ght_rtable *table,
                                  const votecl__ght_edges *edges, uint32_t width, uint32_t height,
                                  uint32_t *space);

/* Ballard's detections from a complete accumulator (appended, unsorted). */
votecl_status votecl__ght_ref_ballard_peaks(const votecl__ght_desc *desc, const uint32_t *space,
                                            uint32_t width, uint32_t height,
                                            votecl__ght_poses *out);

/* The confidence of poses[0..n) (lib/ght-confidence.c): the share of the template's edges
 * templ that the image's edges confirm at each pose. summary: whether look-ups go through a
 * per-pixel summary of the image's edges (1 always, 0 never, -1 where it pays; the same
 * confidences either way). threads: the refinement's, a context's host_threads
 * (votecl__team_open); the same confidences for any. memo keeps its tables and maps between
 * calls (NULL at first; free with _conf_memo_free). Statuses: out of host memory. */
typedef struct votecl__ght_conf_memo votecl__ght_conf_memo;
votecl_status votecl__ght_confidence(const votecl__ght_desc *desc, const votecl__ght_edges *templ,
                                     const votecl__ght_edges *image, uint32_t width,
                                     uint32_t height, votecl_ght_pose *poses, size_t n, int summary,
                                     unsigned threads, votecl__ght_conf_memo **memo);
void votecl__ght_conf_memo_free(votecl__ght_conf_memo *memo);
/* What the last votecl__ght_confidence of a memo did (the debug log): the seconds of its
 * refinement and of its explanation (the claims, sequential), the refinement's threads
 * (team.workers; 0 before any call with poses). */
typedef struct votecl__ght_conf_stats {
    double refine_seconds, explain_seconds;
    unsigned workers;
} votecl__ght_conf_stats;
votecl__ght_conf_stats votecl__ght_conf_last(const votecl__ght_conf_memo *memo);

/* Sorts poses best first (votes, then angle votes, scale votes) and drops those within
 * min_dist of a better one; returns how many remain. votecl__ght_pose_cmp: that order. */
int votecl__ght_pose_cmp(const void *a, const void *b);
size_t votecl__ght_finish(const votecl__ght_desc *desc, votecl_ght_pose *poses, size_t n);

/* Angles within this many degrees below 360 are reported as 0: they are rounding noise
 * around an unrotated pose (1e-9 is far below any angle the search resolves). */
#define VOTECL__GHT_DEGREES_EPS 1e-9
/* Angle a in degrees wrapped into [0, 360), a hair below 360 made 0: every angle a pose
 * reports goes through it. */
double votecl__ght_degrees(double a);
/* The rotation of step k of the search, and the scale of step k. */
double votecl__ght_angle(const votecl__ght_desc *desc, double k);
double votecl__ght_scale(const votecl__ght_desc *desc, double k);
/* Width and height of the position grid of a width x height image (cells of dp pixels). */
void votecl__ght_grid(const votecl__ght_desc *desc, uint32_t width, uint32_t height, uint32_t *gw,
                      uint32_t *gh);

/* The S histogram of bin shift b (desc->scales counts) and the D space of bin shifts
 * b - tol .. b + tol at angle and scale (gw * gh counts), as the reference's detection
 * computes them (exposed for the device's tests). */
void votecl__ght_ref_sspace(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                            const votecl__ght_pairs *ip, uint32_t b, uint64_t *hist);
void votecl__ght_ref_dspace(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                            const votecl__ght_pairs *ip, uint32_t b, uint32_t tol, double angle,
                            double scale, uint32_t gw, uint32_t gh, uint32_t *space);

/* --- the device state (lib/ght-device.c) and the vote stages on it (lib/ght-spaces.c,
 * cl/ght.cl) --- */

typedef struct votecl__ght_device votecl__ght_device;

/* The device programs, one per stage (kernel file), each built on the first launch of one of
 * its kernels and holding only its file and cl/ght-common.cl, with only the defines they use
 * (so the cache keys of a stage do not change with parameters it does not read): a detection
 * compiles only what it runs (Ballard never builds Guil's pairing kernels, nor Guil Ballard's
 * maxima). On PoCL each launched kernel costs 0.2-0.4 s of code generation once. */
typedef enum votecl__ght_stage {
    VOTECL__GHT_EDGES,   /* cl/canny.cl, cl/ght-edges.cl */
    VOTECL__GHT_PAIRS,   /* cl/ght-pairs.cl */
    VOTECL__GHT_SPACES,  /* cl/ght.cl */
    VOTECL__GHT_PEAKS,   /* cl/ght-peaks.cl */
    VOTECL__GHT_BALLARD, /* cl/canny.cl, cl/ght-peaks.cl, cl/ght-ballard.cl */
    VOTECL__GHT_STAGES
} votecl__ght_stage;

/* The defines a program's files use (bits of votecl__ght_program.defines): GHT_L, GHT_EPS
 * and GHT_XI, GHT_M, GHT_G, GHT_S, the edge stage's sizes (GHT_TX, GHT_TY, GHT_SCAN_BLOCK,
 * GHT_SORT_K); GHT_WG always. */
enum {
    VOTECL__GHT_DEF_L = 1,
    VOTECL__GHT_DEF_XI = 2,
    VOTECL__GHT_DEF_M = 4,
    VOTECL__GHT_DEF_G = 8,
    VOTECL__GHT_DEF_S = 16,
    VOTECL__GHT_DEF_EDGES = 32
};

#define VOTECL__GHT_MAX_KERNELS 12

/* A stage's program: its files (NULL-terminated), the defines they use, its kernels' names
 * (count of them, at most VOTECL__GHT_MAX_KERNELS). */
typedef struct votecl__ght_program {
    votecl__ght_stage stage;
    const char *const *files;
    unsigned defines;
    const char *const *kernels;
    int count;
} votecl__ght_program;

/* Creates the device state for desc on an OpenCL context; compiles nothing (out: free with
 * _device_free). */
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
/* The stages on the device (votecl__ght_stages' callbacks, dev as void *): S, D's maxima
 * and the matches of all candidates at once (D stays on the device). */
votecl_status votecl__ght_device_sspace(void *dev, size_t n, const uint32_t *b, uint64_t *hists);
votecl_status votecl__ght_device_dpeaks(void *dev, size_t n, const votecl__ght_cand *c,
                                        uint32_t tol, uint32_t gw, uint32_t gh,
                                        votecl__ght_dpeaks *out);
votecl_status votecl__ght_device_matches(void *dev, size_t n, const votecl__ght_cand *c,
                                         uint32_t tol, uint32_t gw, uint32_t gh,
                                         const votecl__ght_sel *sel, size_t nsel,
                                         votecl__ght_matches *out);
/* votecl__ght_ref_dspace on the device (one candidate, read back). */
votecl_status votecl__ght_device_dspace(void *dev, uint32_t b, uint32_t tol, double angle,
                                        double scale, uint32_t gw, uint32_t gh, uint32_t *space);
/* votecl__ght_ref_ballard_vote on the device. */
votecl_status votecl__ght_device_ballard(votecl__ght_device *dev, const votecl__ght_rtable *table,
                                         const votecl__ght_edges *edges, uint32_t width,
                                         uint32_t height, uint32_t *space);

/* --- the device front end (lib/ght-device.c; its stages in lib/ght-edges.c, ght-pairs.c,
 * ght-peaks.c): edges, sorted lists, pairings and Ballard's maxima built and kept on the
 * device --- */

/* The work-group size of every GHT kernel. */
#define VOTECL__GHT_WG 64u

/* The edge stage's sizes, compiled into its program by lib/ght-device.c: hysteresis tiles
 * (rows of 32 pixels for coalesced loads, 256 work-items), scanned entries per work-group (16
 * per work-item), pixels per work-item of the sort's scatter (one scan per batch: on PoCL, 16
 * pixels per scan instead of one took pic1's edge stage from 2.1 to 1.1 ms). */
#define VOTECL__GHT_TILE_X 32u
#define VOTECL__GHT_TILE_Y 8u
#define VOTECL__GHT_SCAN_BLOCK (16u * VOTECL__GHT_WG)
#define VOTECL__GHT_SORT_K 16u

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
/* Kernel k of program prog (transfer none), the program built and the kernel created on
 * first use; a failure is not remembered (the next call tries again). */
votecl_status votecl__ght_device_kernel(votecl__ght_device *dev, const votecl__ght_program *prog,
                                        int k, void **kernel);
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
/* votecl__ght_pairs_cap on the device: list's pairings (as _front_pairs left them, their
 * host offsets and keys in pairs) capped in place, the template's tasks rebuilt. */
votecl_status votecl__ght_front_cap(votecl__ght_front *front, votecl__ght_list list,
                                    votecl__ght_pairs *pairs);
/* Reads list's pairings into pairs->pairs (pairs as _front_pairs left it; for the tests). */
votecl_status votecl__ght_front_read_pairs(votecl__ght_front *front, votecl__ght_list list,
                                           votecl__ght_pairs *pairs);

/* Seconds of the last edge stage (upload to sorted offsets read back) and pairing stage
 * (tasks to offsets read back). */
void votecl__ght_front_seconds(const votecl__ght_front *front, double *edges, double *pairing);

/* --- the stage table: one detection path (lib/ght.c), two implementations of each stage
 * (the reference's and the device's, side by side in the stage's file) --- */

/* What a model's stages keep between calls: the current edges (on the reference sorted on
 * the host, on a device in the front end), Ballard's R-table and accumulator. */
typedef struct votecl__ght_run {
    votecl_context *context;
    const votecl__ght_desc *desc;
    votecl__ght_device *dev;          /* a device's vote stages (NULL on the reference) */
    votecl__ght_front *front;         /* a device's front end (NULL on the reference) */
    votecl__ght_edges edges;          /* the reference's current edges */
    const votecl__ght_rtable *rtable; /* the reference's bound R-table */
    uint32_t *space;                  /* the reference's accumulator, space_cells counts */
    size_t space_cells;
    votecl__ght_canny_memo *canny_memo; /* the host's Canny (CPU devices) */
    votecl__ght_conf_memo *conf_memo;   /* the confidences' tables and maps */
    double host_seconds;                /* the host plan's last edge stage */
} votecl__ght_run;

typedef struct votecl__ght_impl {
    /* edges (lib/ght-edges.c): the current edges become those of a packed u8 image (Canny's
     * low and high thresholds; votecl__ght_ref_canny), or n caller points (sorted); their
     * count and L + 1 offsets (borrowed until the next change); a host copy (free with
     * votecl__ght_edges_clear); the seconds of the last edge and pairing stages (0 where
     * not measured) */
    votecl_status (*canny)(votecl__ght_run *run, const uint8_t *data, uint32_t width,
                           uint32_t height, unsigned low, unsigned high);
    votecl_status (*points)(votecl__ght_run *run, const votecl__ght_point *points, size_t n);
    size_t (*count)(const votecl__ght_run *run, const uint32_t **offsets);
    votecl_status (*read_edges)(votecl__ght_run *run, votecl__ght_edges *out);
    void (*seconds)(const votecl__ght_run *run, double *edges, double *pairing);
    /* pairings (lib/ght-pairs.c): Guil's pairings of the current edges as list's, with the
     * mechanism pairing where there is a choice (out: offsets, keys and count; the pairings
     * themselves on the reference only; free with votecl__ght_pairs_clear); the cap per key
     * applied to them (votecl__ght_pairs_cap) */
    votecl_status (*pairs)(votecl__ght_run *run, votecl_ght_pairing pairing, votecl__ght_list list,
                           votecl__ght_pairs *out);
    votecl_status (*cap)(votecl__ght_run *run, votecl__ght_list list, votecl__ght_pairs *pairs);
    /* vote stages (lib/ght-spaces.c): Guil's S, D and match stages for votecl__ght_guil over
     * the capped pairings (in room; NULL: the reference's); Ballard's R-table bound (borrowed
     * until the next bind), the current edges voted into the accumulator */
    const votecl__ght_stages *(*stages)(votecl__ght_run *run, votecl__ght_stages *room);
    votecl_status (*bind)(votecl__ght_run *run, const votecl__ght_rtable *table);
    votecl_status (*vote)(votecl__ght_run *run, uint32_t width, uint32_t height);
    /* maxima (lib/ght-peaks.c): Ballard's poses of the voted accumulator, appended in the
     * reference's order */
    votecl_status (*peaks)(votecl__ght_run *run, uint32_t width, uint32_t height,
                           votecl__ght_poses *out);
} votecl__ght_impl;

/* The two implementations (the reference first, each stage's pair in its file). */
votecl_status votecl__ght_canny_ref(votecl__ght_run *run, const uint8_t *data, uint32_t width,
                                    uint32_t height, unsigned low, unsigned high);
votecl_status votecl__ght_canny_device(votecl__ght_run *run, const uint8_t *data, uint32_t width,
                                       uint32_t height, unsigned low, unsigned high);
/* Whether the stages take their CPU shapes (lib/ght-device.c): the context's shape
 * (context.c: the device, VOTECL_FORCE_SHAPE, a profile). */
int votecl__ght_cpu_shape(const votecl_context *context);
/* Whether the device sorts each key's image pairings by length and S and the matches visit
 * only their windows of lengths (lib/ght-device.c: the GPU shapes); the reference always does. */
int votecl__ght_length_windows(const votecl_context *context);
/* Whether the edges are the host's Canny, uploaded: on CPU shapes, and where a work-group
 * cannot hold an edge tile (VOTECL__GHT_TILE_X x VOTECL__GHT_TILE_Y work-items). */
int votecl__ght_host_edges(const votecl_context *context);
/* Whether a model of desc on context's device takes the host plan (below): Ballard in the CPU
 * shape (lib/ght-spaces.c). */
int votecl__ght_host_plan(const votecl_context *context, const votecl__ght_desc *desc);
/* The host plan of a CPU device (votecl__ght_host_plan): the reference's stages but the
 * edges, which are the host's Canny (votecl__ght_host_canny), and their time. */
votecl_status votecl__ght_canny_host(votecl__ght_run *run, const uint8_t *data, uint32_t width,
                                     uint32_t height, unsigned low, unsigned high);
void votecl__ght_seconds_host(const votecl__ght_run *run, double *edges, double *pairing);
votecl_status votecl__ght_vote_host(votecl__ght_run *run, uint32_t width, uint32_t height);
votecl_status votecl__ght_peaks_host(votecl__ght_run *run, uint32_t width, uint32_t height,
                                     votecl__ght_poses *out);
votecl_status votecl__ght_points_ref(votecl__ght_run *run, const votecl__ght_point *points,
                                     size_t n);
votecl_status votecl__ght_points_device(votecl__ght_run *run, const votecl__ght_point *points,
                                        size_t n);
size_t votecl__ght_count_ref(const votecl__ght_run *run, const uint32_t **offsets);
size_t votecl__ght_count_device(const votecl__ght_run *run, const uint32_t **offsets);
votecl_status votecl__ght_read_edges_ref(votecl__ght_run *run, votecl__ght_edges *out);
votecl_status votecl__ght_read_edges_device(votecl__ght_run *run, votecl__ght_edges *out);
void votecl__ght_seconds_ref(const votecl__ght_run *run, double *edges, double *pairing);
void votecl__ght_seconds_device(const votecl__ght_run *run, double *edges, double *pairing);
votecl_status votecl__ght_pairs_ref(votecl__ght_run *run, votecl_ght_pairing pairing,
                                    votecl__ght_list list, votecl__ght_pairs *out);
votecl_status votecl__ght_pairs_device(votecl__ght_run *run, votecl_ght_pairing pairing,
                                       votecl__ght_list list, votecl__ght_pairs *out);
votecl_status votecl__ght_cap_ref(votecl__ght_run *run, votecl__ght_list list,
                                  votecl__ght_pairs *pairs);
votecl_status votecl__ght_cap_device(votecl__ght_run *run, votecl__ght_list list,
                                     votecl__ght_pairs *pairs);
const votecl__ght_stages *votecl__ght_stages_ref(votecl__ght_run *run, votecl__ght_stages *room);
const votecl__ght_stages *votecl__ght_stages_device(votecl__ght_run *run, votecl__ght_stages *room);
votecl_status votecl__ght_bind_ref(votecl__ght_run *run, const votecl__ght_rtable *table);
votecl_status votecl__ght_bind_device(votecl__ght_run *run, const votecl__ght_rtable *table);
votecl_status votecl__ght_vote_ref(votecl__ght_run *run, uint32_t width, uint32_t height);
votecl_status votecl__ght_vote_device(votecl__ght_run *run, uint32_t width, uint32_t height);
votecl_status votecl__ght_peaks_ref(votecl__ght_run *run, uint32_t width, uint32_t height,
                                    votecl__ght_poses *out);
votecl_status votecl__ght_peaks_device(votecl__ght_run *run, uint32_t width, uint32_t height,
                                       votecl__ght_poses *out);

/* Ballard's stages on a GPU-shaped device (lib/ght-ballard.c): the edges, vote and maxima of
 * the device's in three launches and two read backs, the edges compacted unsorted on the
 * device (count's offsets NULL); read_edges sorts the host copy as the reference does until
 * the R-table is bound (the template's edges), then gives the image's in the device's order
 * (offsets NULL: the confidences depend on neither); the rest is the device's. The poses
 * equal the reference's. */
votecl_status votecl__ght_canny_ballard(votecl__ght_run *run, const uint8_t *data, uint32_t width,
                                        uint32_t height, unsigned low, unsigned high);
votecl_status votecl__ght_points_ballard(votecl__ght_run *run, const votecl__ght_point *points,
                                         size_t n);
size_t votecl__ght_count_ballard(const votecl__ght_run *run, const uint32_t **offsets);
votecl_status votecl__ght_bind_ballard(votecl__ght_run *run, const votecl__ght_rtable *table);
votecl_status votecl__ght_read_edges_ballard(votecl__ght_run *run, votecl__ght_edges *out);
votecl_status votecl__ght_vote_ballard(votecl__ght_run *run, uint32_t width, uint32_t height);
votecl_status votecl__ght_peaks_ballard(votecl__ght_run *run, uint32_t width, uint32_t height,
                                        votecl__ght_poses *out);
/* Ballard's n candidates (cell, votes, x and y as doubles: 6 words each, in any order) as
 * poses appended to out in the reference's order (cells ascending; c is sorted in place;
 * lib/ght-peaks.c). */
votecl_status votecl__ght_cand_poses(const votecl__ght_desc *desc, uint32_t *c, size_t n,
                                     uint32_t width, uint32_t height, votecl__ght_poses *out);

#endif
