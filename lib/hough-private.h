/* The theta-rho Hough transform's internal interface: the geometry shared by the plan
 * (lib/hough.c), the reference (lib/hough-ref.c) and the tests. */
#ifndef VOTECL_HOUGH_PRIVATE_H
#define VOTECL_HOUGH_PRIVATE_H

#include "votecl-private.h"
#include "segment-private.h"

/* Everything the bin arithmetic of GPU-vote Eq. 2 needs, in the precision the device uses. */
typedef struct votecl__hough_desc {
    uint32_t width, height;
    unsigned angles; /* G */
    uint32_t nbins;  /* N */
    unsigned edge_threshold;
    float w;      /* W */
    float d;      /* D = sqrt(W^2 + H^2), rounded to float */
    float scale;  /* N / (D + W), rounded to float */
    float *table; /* 2 G floats: cos(theta_g), sin(theta_g); owned */
    int opencv;   /* VOTECL_HOUGH_GRID_OPENCV: bin = rint(rho) + offset */
    int32_t offset;   /* OpenCV grid: the bin of rho 0 (W) */
    float theta_step; /* OpenCV grid: (float)(pi / G) */
    int opencv_peaks; /* VOTECL_HOUGH_PEAKS_OPENCV (set by the plan) */
} votecl__hough_desc;

/* Fills desc for a width x height image (sizes validated by the caller; rho_bins 0 means
 * one bin per pixel) on grid (a votecl_hough_grid). Returns VOTECL_OUT_OF_HOST_MEMORY or
 * VOTECL_OK. */
votecl_status votecl__hough_desc_init(votecl__hough_desc *desc, uint32_t width, uint32_t height,
                                      unsigned angles, uint32_t rho_bins, unsigned edge_threshold,
                                      int grid);

/* N = W + ceil(D) + 2 for the OpenCV grid: rint(x cos + y sin) lies in [-(W - 1), ceil(D)]. */
uint32_t votecl__hough_opencv_bins(uint32_t width, uint32_t height);
void votecl__hough_desc_release(votecl__hough_desc *desc);

/* N = ceil(W + D) for one bin per pixel. */
uint32_t votecl__hough_default_bins(uint32_t width, uint32_t height);

/* The bin of pixel (x, y) at angle g: Eq. 2 in single precision, as the kernel source. */
uint32_t votecl__hough_bin(const votecl__hough_desc *desc, uint32_t x, uint32_t y, unsigned g);

/* The reference: votes the edges of a u8 image (rows stride bytes apart) into acc (G * N
 * counts, overwritten); returns the number of edge pixels. */
size_t votecl__hough_ref(const votecl__hough_desc *desc, const uint8_t *data, size_t stride,
                         uint32_t *acc);

/* The OpenCL C text of the vote (vote_test and vote_index) for desc, malloc'd; NULL when out
 * of memory. */
char *votecl__hough_source(const votecl__hough_desc *desc);

/* Peak extraction (lib/hough-peaks.c): local maxima in a window x window neighbourhood with
 * the angle axis wrapping (mirrored rho), at least threshold votes (0: max(2, min(W, H) / 4)),
 * greedy suppression, leaving out a peak whose line's extent in the image has both ends
 * within merge px of a kept line (merge 0: none), at most max_lines (0: no limit). lines may
 * be NULL when capacity is 0; *found is the number of peaks. */
votecl_status votecl__hough_peaks(const votecl__hough_desc *desc, const uint32_t *acc,
                                  unsigned window, uint32_t threshold, size_t max_lines,
                                  double merge, votecl_hough_line *lines, size_t capacity,
                                  size_t *found);

/* The least votes of a peak: threshold, or for 0 max(2, min(W, H) / 4). */
uint32_t votecl__hough_peak_threshold(const votecl__hough_desc *desc, uint32_t threshold);

/* The bin of -rho(b) (b may lie outside [0, N)), where the angle axis wraps. */
long votecl__hough_mirror_bin(const votecl__hough_desc *desc, long b);

/* As votecl__hough_peaks() from the local maxima already found: n (cell, votes) pairs of
 * uint32_t (borrowed; any order), each a local maximum with at least the threshold. mask:
 * G * N zeroed bytes (borrowed; zeroed again on return) for the suppression, or NULL for a
 * fresh one each call. */
votecl_status votecl__hough_peaks_from(const votecl__hough_desc *desc, const uint32_t *pairs,
                                       size_t n, unsigned window, size_t max_lines, double merge,
                                       uint8_t *mask, votecl_hough_line *lines, size_t capacity,
                                       size_t *found);

/* The edge image of a packed width x height u8 gray image: 255 where the Euclidean 3x3 Sobel
 * magnitude floor(sqrt(gx^2 + gy^2)) is at least threshold and, with thin, gx^2 + gy^2 is a
 * ridge across the edge (votecl_hough_run_gray()'s rule), 0 elsewhere and on the one-pixel
 * border (lib/hough-edges.c; cl/hough.cl's hough_sobel is the device's). edges:
 * caller-owned, rows edges_stride bytes apart. */
void votecl__hough_sobel(const uint8_t *gray, size_t stride, uint32_t width, uint32_t height,
                         unsigned threshold, int thin, uint8_t *edges, size_t edges_stride);

/* The segments of lines[0, n) in a u8 edge image (rows stride bytes apart): each line's runs
 * of edge pixels (>= desc->edge_threshold) within 2 px of it, gaps of at most max_gap steps.
 * Sets each line's has_segment and ends to its longest run (votecl-hough.h) and appends to
 * list every run of at least min_length px; VOTECL_OUT_OF_HOST_MEMORY when list cannot grow. */
votecl_status votecl__hough_segments(const votecl__hough_desc *desc, const uint8_t *data,
                                     size_t stride, uint32_t min_length, uint32_t max_gap,
                                     votecl_hough_line *lines, size_t n,
                                     votecl__segment_list *list);

/* theta_g and the rho at the centre of bin b, in double. */
double votecl__hough_theta(const votecl__hough_desc *desc, unsigned g);
double votecl__hough_rho(const votecl__hough_desc *desc, uint32_t b);

/* Refuses (VOTECL_INVALID_ARGUMENT naming image) a checked u8 view holding more than 0 and
 * one other value when edge_threshold is 1 (the default) (lib/hough-edges.c). */
votecl_status votecl__hough_check_binary(votecl_context *context, const votecl_image *image,
                                         unsigned edge_threshold);

/* The CPU shape's vote (lib/hough-rows.c, cl/hough.cl): sizes as kernel arguments, one
 * writer per accumulator row. */
typedef struct votecl__hough_rows {
    votecl_context *context;
    const votecl__hough_desc *desc; /* borrowed from the plan */
    void *k_points, *k_vote;
    votecl_buffer *points, *counts, *tab; /* edge locations per band, their counts, cos/sin */
    uint32_t stride;                      /* angles rounded up to whole work-items */
    uint32_t band_rows;                   /* image rows per band of hough_points */
    uint32_t bands;
    int pending; /* the last vote's edge count is still on the device */
    size_t kept;
} votecl__hough_rows;

/* Compiles cl/hough.cl (once per context) and allocates the buffers for desc's image size.
 * On failure the caller still releases rows. */
votecl_status votecl__hough_rows_init(votecl__hough_rows *rows, votecl_context *context,
                                      const votecl__hough_desc *desc);
void votecl__hough_rows_release(votecl__hough_rows *rows);

/* Votes the u8 image in image (packed) into acc (G * N counts, overwritten). */
votecl_status votecl__hough_rows_vote(votecl__hough_rows *rows, votecl_buffer *image,
                                      votecl_buffer *acc);

/* The gray path's vote (votecl_hough_run_gray()): the Sobel edges of the packed u8 image in
 * gray (threshold, thinned with thin) into edges and their locations in one pass
 * (hough_points with sobel), then the vote into acc; out[1] (zeroed by the caller) gains the
 * edge count, as hough_sobel's. */
votecl_status votecl__hough_rows_vote_gray(votecl__hough_rows *rows, votecl_buffer *gray,
                                           unsigned threshold, int thin, votecl_buffer *edges,
                                           votecl_buffer *out, votecl_buffer *acc);

/* The last vote's edge pixels (read from the device once). */
votecl_status votecl__hough_rows_kept(votecl__hough_rows *rows, size_t *kept);

/* The plan description of the rows vote. */
void votecl__hough_rows_describe(const votecl__hough_rows *rows, votecl_vote_plan_info *info);

#endif
