/* HOG's internal interface: the geometry and host tables (lib/hog-geometry.c) shared by the
 * detector (lib/hog.c and its implementations, lib/hog-detector.h), the sequential reference
 * (lib/hog-ref.c, the specification cl/hog.cl follows stage for stage) and the tests. */
#ifndef VOTECL_HOG_PRIVATE_H
#define VOTECL_HOG_PRIVATE_H

#include "votecl-private.h"

/* Cells of a block at most (the weight table has one column per cell). */
#define VOTECL__HOG_MAX_CELLS 16u

/* The window geometry, resolved from validated params. */
typedef struct votecl__hog_geom {
    unsigned win_w, win_h, block_w, block_h, bstride_x, bstride_y, cell_w, cell_h, nbins;
    unsigned wstride_x, wstride_y;
    unsigned cells_x, cells_y, ncells; /* cells per block */
    unsigned block_len;                /* ncells * nbins */
    unsigned blocks_x, blocks_y;       /* blocks per window */
    unsigned grid_x, grid_y;           /* block grid step: gcd(window, block stride) */
    size_t desc_len;
    float l2hys;
    int gamma, colour;
    votecl_hog_block_norm norm;
    int hard; /* VOTECL_HOG_BINNING_HARD */
    /* hard binning: the boundary k pi / nbins of bins k - 1 and k as a direction (cos, sin)
     * for k = 1 .. nbins - 1, and the bins of the directions on an axis or a diagonal, at 0,
     * 45, 90 and 135 degrees modulo 180 (votecl__hog_hard_bin) */
    float bound_c[VOTECL_HOG_MAX_BINS], bound_s[VOTECL_HOG_MAX_BINS];
    uint8_t tie_bin[4];
} votecl__hog_geom;

/* One image level: its size, padding and the block and window grids of the padded image. */
typedef struct votecl__hog_level {
    double scale;
    uint32_t width, height;   /* the (resized) image */
    uint32_t pad_x, pad_y;    /* padding, a multiple of the grid */
    uint32_t gw, gh;          /* gradient image: width + 2 pad_x, height + 2 pad_y */
    uint32_t nbx, nby;        /* blocks of the grid */
    uint32_t nwx, nwy;        /* windows */
} votecl__hog_level;

/* Checks params and fills geom (lib/hog.c); msg names the field on failure. */
votecl_status votecl__hog_geom_init(votecl__hog_geom *geom, const votecl_hog_params *params,
                                    char *msg, size_t msg_size);
/* The level of a width x height image at scale; returns 0 when a window does not fit. */
int votecl__hog_level_init(const votecl__hog_geom *geom, const votecl_hog_params *params,
                           uint32_t width, uint32_t height, double scale,
                           votecl__hog_level *level);

/* The geometry of validated params (lib/hog-geometry.c; votecl__hog_geom_init validates). */
void votecl__hog_geom_derive(votecl__hog_geom *geom, const votecl_hog_params *params);

/* The gamma table: sqrt(v) or v for v = 0..255. */
void votecl__hog_gamma_table(int gamma, float lut[256]);
/* The block weights: for pixel (i, j) of the block (row i), ncells weights (Gaussian times
 * the bilinear cell weight, OpenCV's HOGCache::init; hard binning: 1 / cell area for the
 * pixel's own cell, 0 for the others), cell c = cx * cells_y + cy. */
void votecl__hog_block_weights(const votecl__hog_geom *geom, float *weights);
/* The block weights as the product of two factors (the Gaussian of each axis times that
 * axis' bilinear cell weight): wx[j * cells_x + cx] for block column j, wy[i * cells_y + cy]
 * for block row i; wx * wy equals votecl__hog_block_weights up to rounding. */
void votecl__hog_block_weights_split(const votecl__hog_geom *geom, float *wx, float *wy);
/* The weight of a whole pixel in the resize tables (8 fraction bits, INTER_LINEAR_EXACT). */
#define VOTECL__HOG_RESIZE_ONE 256

/* Destination pixel d of n from a source of length src: the index of its left (top) source
 * pixel and the 8-bit weight of the right one (OpenCV's INTER_LINEAR_EXACT). */
void votecl__hog_resize_coord(uint32_t d, uint32_t src, uint32_t n, int32_t *index,
                              int32_t *alpha);
/* Resize tables for n destination pixels from a source of length src: index of the left
 * (top) source pixel and the 8-bit weight of the right one. */
void votecl__hog_resize_table(uint32_t src, uint32_t n, int32_t *index, int32_t *alpha);
/* OpenCV's reflect-101 border: an index in [0, len). */
int32_t votecl__hog_reflect101(int64_t p, int32_t len);

/* Stage 0: a u8 image of channels to gray (colour 0) or to 3 channels; dst packed. */
void votecl__hog_ref_convert(const uint8_t *src, size_t row_bytes, uint32_t width,
                             uint32_t height, unsigned channels, int colour, uint8_t *dst);
/* Stage 1: bilinear downscale of a packed image of ch channels to dw x dh. */
void votecl__hog_ref_resize(const uint8_t *src, uint32_t sw, uint32_t sh, unsigned ch,
                            uint8_t *dst, uint32_t dw, uint32_t dh);
/* Stage 2: the padded image, (gw + 2) x (gh + 2) x ch, reflect-101 around the level. */
void votecl__hog_ref_pad(const uint8_t *src, const votecl__hog_level *level, unsigned ch,
                         uint8_t *dst);
/* Stage 3: gradients of the gw x gh inner pixels of the padded image: two weighted
 * magnitudes and two bins per pixel. */
void votecl__hog_ref_gradient(const votecl__hog_geom *geom, const uint8_t *padded,
                              const votecl__hog_level *level, unsigned ch, const float *lut,
                              float *grad, uint8_t *bins);
/* Stage 4: the histogram of every block of the grid (nbx * nby blocks, row after row, each
 * block_len floats). */
void votecl__hog_ref_blocks(const votecl__hog_geom *geom, const votecl__hog_level *level,
                            const float *grad, const uint8_t *bins, const float *weights,
                            float *hist);
/* Hard binning (geom->hard): the orientation bin of the gradient (dx, dy), scikit-image's
 * hog_histograms' rule, decided by exact comparisons so that every implementation agrees. */
unsigned votecl__hog_hard_bin(const votecl__hog_geom *geom, float dx, float dy);
/* Stage 5: normalisation of n blocks in place (geom->norm). */
void votecl__hog_ref_normalise(const votecl__hog_geom *geom, float *hist, size_t n);
/* Stage 6: the SVM score of every window (nwx * nwy, row after row). */
void votecl__hog_ref_svm(const votecl__hog_geom *geom, const votecl__hog_level *level,
                         const float *hist, const float *weights, float bias, float *scores);
/* The grid block (in hist, the level's normalised blocks) holding block (j, i) of window
 * (wx, wy). */
const float *votecl__hog_window_block(const votecl__hog_geom *geom, const votecl__hog_level *level,
                                      const float *hist, uint32_t wx, uint32_t wy, unsigned j,
                                      unsigned i);
/* The descriptor of window (wx, wy) gathered from the normalised blocks. */
void votecl__hog_gather(const votecl__hog_geom *geom, const votecl__hog_level *level,
                        const float *hist, uint32_t wx, uint32_t wy, float *desc);

/* Whether model's geometry (window, block, stride, cell, bins) is params'. */
int votecl__hog_model_fits(const votecl_hog_model *model, const votecl_hog_params *params);

/* The channel (R, G, B = 0, 1, 2) whose squared magnitude m[c] OpenCV's colour gradient
 * takes: its vector rule, or its scalar rule for the last gw % 4 pixels of a row (tail). */
unsigned votecl__hog_pick_channel(const float m[3], int tail);

/* OpenCV's atan2 polynomial in degrees [0, 360) (fastAtan2). */
float votecl__hog_atan_deg(float y, float x);

/* Windows params' fusion takes (hog-fuse.c): VOTECL_HOG_MAX_GROUP_WINDOWS,
 * VOTECL_HOG_MAX_MEANSHIFT_WINDOWS, or SIZE_MAX when nothing is fused. */
size_t votecl__hog_fuse_limit(const votecl_hog_params *params);
/* votecl_hog_fuse() with its failures told in context's error (n above the limit names
 * hit_threshold), the fused boxes then clipped to the width x height image as OpenCV's
 * detectMultiScale clips them (boxes left empty dropped); width 0 clips nothing. */
votecl_status votecl__hog_fuse_checked(votecl_context *context, const votecl_hog_params *params,
                                       const votecl_hog_detection *windows, size_t n, size_t width,
                                       size_t height, votecl_hog_detection *detections,
                                       size_t capacity, size_t *found);

/* 1 when hog runs the CPU shape's row kernels (cl/hog-cpu.cl), 0 for the GPU shape's block
 * kernels and on the ref backend (tests check that VOTECL_FORCE_SHAPE reached HOG). */
int votecl__hog_cpu_rows(const votecl_hog *hog);

#endif
