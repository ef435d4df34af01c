/* The circle Hough transform's internal interface: the geometry and the steps shared by the
 * plan (lib/circles.c), the reference (lib/circles-ref.c) and the tests. Every step is a
 * function over plain arrays so that a device's result can be compared with it array for
 * array: rays and edge points, integer accumulators, (cell, votes) candidates. */
#ifndef VOTECL_CIRCLES_PRIVATE_H
#define VOTECL_CIRCLES_PRIVATE_H

#include "votecl-private.h"

/* OpenCV's fixed point for the rays: 1/1024 px. */
#define VOTECL__CIRCLES_SHIFT 10
/* OpenCV's radius histogram: bins of dp / 10, windows of 10 bins. */
#define VOTECL__CIRCLES_BINS_PER_DR 10

/* Resolved parameters and the sizes derived from them. */
typedef struct votecl__circles_desc {
    votecl_circles_params p; /* max_radius and min_dist resolved */
    uint32_t width, height;
    uint32_t cols, rows; /* one accumulator space */
    unsigned spaces;     /* 1 (gradient) or the number of radii */
    float dr, idp;       /* dp and 1 / dp in float, as OpenCV */
    unsigned low, high;  /* Canny's thresholds */
    unsigned *radii;     /* spaces radii (radii method); owned */
    int32_t *offsets;    /* radii method: (dx, dy) of each radius's circle, concatenated; owned */
    uint32_t *starts;    /* spaces + 1 indices of the first pair of each circle; owned */
} votecl__circles_desc;

/* A voting edge pixel of the gradient method: its pixel and OpenCV's fixed-point ray
 * (start x0, y0 and step sx, sy, 1/1024 accumulator cells). */
typedef struct votecl__circles_ray {
    int32_t x0, y0, sx, sy;
} votecl__circles_ray;

/* Fills desc from validated params (defaults resolved). Returns VOTECL_OUT_OF_HOST_MEMORY or
 * VOTECL_OK; release with _desc_release. */
votecl_status votecl__circles_desc_init(votecl__circles_desc *desc,
                                        const votecl_circles_params *params, uint32_t width,
                                        uint32_t height);
void votecl__circles_desc_release(votecl__circles_desc *desc);

/* The cells of one space and of all of them. */
size_t votecl__circles_cells(const votecl__circles_desc *desc);

/* --- the gradient method --- */

/* The rays of the Canny edge pixels points[0 .. n) (x, y pairs, raster order) of a u8 gray
 * image (rows stride bytes apart): OpenCV's steps from the 3x3 Sobel gradient, a pixel whose
 * gradient is shorter than 1 left out. rays and xy (the pixels kept, x, y pairs; may be
 * NULL): at least n entries. Returns how many were kept. */
size_t votecl__circles_rays(const votecl__circles_desc *desc, const uint8_t *gray, size_t stride,
                            const int32_t *points, size_t n, votecl__circles_ray *rays,
                            int32_t *xy);

/* The rays' votes into acc (cols * rows counts, zeroed here). */
void votecl__circles_ref_gradient_vote(const votecl__circles_desc *desc,
                                       const votecl__circles_ray *rays, size_t n, uint32_t *acc);

/* The centre candidates of acc as (cell, votes) pairs into pairs (at least cols * rows
 * pairs); returns how many, in raster order. */
size_t votecl__circles_ref_centres(const votecl__circles_desc *desc, const uint32_t *acc,
                                   uint32_t *pairs);

/* The circles of n centre candidates (pairs: (cell, votes), any order; sorted here) with the
 * voting pixels xy (nxy x, y pairs): OpenCV's radius histogram per centre, its order and
 * min_dist. circles may be NULL when capacity is 0. Returns VOTECL_OUT_OF_HOST_MEMORY or
 * VOTECL_OK. */
votecl_status votecl__circles_gradient_circles(const votecl__circles_desc *desc, uint32_t *pairs,
                                               size_t n, const int32_t *xy, size_t nxy,
                                               votecl_circle *circles, size_t capacity,
                                               size_t *found);

/* The pieces of the above that a device's radius histograms share with it. */
/* OpenCV's number of radius bins, round((max_radius - min_radius) / dp * 10). */
int votecl__circles_nbins(const votecl__circles_desc *desc);
/* bounds (nbins - 1 floats; NULL: not wanted): the least squared distance of [min_radius^2,
 * max_radius^2] in each bin 1 .. nbins - 1 (infinity for a bin none reaches), so that a
 * distance's bin is the number of bounds at or below it, equal to OpenCV's rounding of its
 * square root without a square root; window_radii (2 nbins + 2 floats): the radius OpenCV
 * gives the window whose bins up + j sum to m, at m + 1. */
void votecl__circles_radius_tables(const votecl__circles_desc *desc, int nbins, float *bounds,
                                   float *window_radii);
/* rows (height + 1 entries): row y's voting pixels are xy's rows[y] .. rows[y + 1] - 1. */
void votecl__circles_row_index(const votecl__circles_desc *desc, const int32_t *xy, size_t n,
                               uint32_t *rows);
/* OpenCV's scan of one centre's histogram: the winning window's radius and count. */
void votecl__circles_window_scan(const int *bins, int nbins, const float *window_radii,
                                 float *radius, int *count);
/* The centre of accumulator cell cell in image pixels. */
void votecl__circles_centre(const votecl__circles_desc *desc, uint32_t cell, float *cx, float *cy);
/* (cell, votes) pairs in OpenCV's order: most votes first, then raster order. */
void votecl__circles_sort_centres(uint32_t *pairs, size_t n);
/* The circles of n centres (any order: the circles are sorted, by a total order) with their
 * radius and count (the histograms' results): those with more than `votes`, in OpenCV's
 * order, min_dist applied. */
votecl_status votecl__circles_gradient_finish(const votecl__circles_desc *desc,
                                              const uint32_t *pairs, size_t n, const float *radius,
                                              const int32_t *count, votecl_circle *circles,
                                              size_t capacity, size_t *found);

/* The radius stage on a device (lib/circles-radius.c, cl/circles-radius.cl). */
typedef struct votecl__circles_radius votecl__circles_radius;
/* The stage for desc (borrowed; outlives it) on context's device; *out NULL (and VOTECL_OK)
 * where the histogram does not fit local memory: the host computes it then. */
votecl_status votecl__circles_radius_new(votecl_context *context, const votecl__circles_desc *desc,
                                         votecl__circles_radius **out);
void votecl__circles_radius_free(votecl__circles_radius *r);
/* radius and count (n entries) of the n centres the device holds in cand (the centre test's
 * list: (cell, votes) at words 1 + 2 i, 2 + 2 i), as the reference's histograms give them,
 * from the nxy voting pixels xy (raster order): one upload of the pixels, one read of the
 * results. */
votecl_status votecl__circles_radius_run(votecl__circles_radius *r, votecl_buffer *cand, size_t n,
                                         const int32_t *xy, size_t nxy, float *radius,
                                         int32_t *count);

/* The gradient method's Canny on a device (lib/circles-edges.c, cl/circles-edges.cl). */
typedef struct votecl__circles_edges votecl__circles_edges;
/* The stage for desc's image size and thresholds (desc borrowed; outlives it) on context's
 * device, its buffers allocated. */
votecl_status votecl__circles_edges_new(votecl_context *context, const votecl__circles_desc *desc,
                                        votecl__circles_edges **out);
void votecl__circles_edges_free(votecl__circles_edges *e);
/* votecl__canny_ref's edges of the packed image data (width x height of desc) as (x, y) pairs
 * into xy (room for width x height pairs), raster order; *n: how many. */
votecl_status votecl__circles_edges_run(votecl__circles_edges *e, const uint8_t *data, int32_t *xy,
                                        size_t *n);

/* --- the radii method --- */

/* The edge pixels (nonzero) of a u8 image, raster order, packed x | y << 16 into out (at
 * least W * H entries). Returns how many. */
size_t votecl__circles_edge_points(const votecl__circles_desc *desc, const uint8_t *data,
                                   size_t stride, uint32_t *out);

/* The points' votes into acc (spaces * cols * rows counts, zeroed here). */
void votecl__circles_ref_radii_vote(const votecl__circles_desc *desc, const uint32_t *points,
                                    size_t n, uint32_t *acc);

/* The least count of space s whose value exceeds its threshold (threshold, or for 0 half
 * the value of most, the space's largest count): a cell is a candidate when its count is at
 * least this and the largest of its window. */
uint32_t votecl__circles_radii_least(const votecl__circles_desc *desc, unsigned s, uint32_t most);
/* The candidates of acc as (space, cell, votes) triples, space by space in raster order
 * (*triples malloc'd, *n of them). Returns VOTECL_OUT_OF_HOST_MEMORY or VOTECL_OK. */
votecl_status votecl__circles_radii_candidates(const votecl__circles_desc *desc,
                                               const uint32_t *acc, uint32_t **triples, size_t *n);
/* The peaks of n candidates (triples, any order): each radius's greedy pass, the distant
 * points across radii, max_circles. Returns VOTECL_OUT_OF_HOST_MEMORY or VOTECL_OK. */
votecl_status votecl__circles_radii_peaks_from(const votecl__circles_desc *desc,
                                               const uint32_t *triples, size_t n,
                                               votecl_circle *circles, size_t capacity,
                                               size_t *found);
/* The peaks of a radii accumulator (scikit-image's rules, votecl-circles.h): the two above.
 * Returns VOTECL_OUT_OF_HOST_MEMORY or VOTECL_OK. */
votecl_status votecl__circles_radii_peaks(const votecl__circles_desc *desc, const uint32_t *acc,
                                          votecl_circle *circles, size_t capacity, size_t *found);

#endif
