/** @file
 * libvotecl: HOG descriptors and the sliding-window people detector (Dalal and Triggs,
 * "Histograms of oriented gradients for human detection", 2005, through Prisacariu and Reid,
 * "fastHOG - a real-time GPU implementation of HOG", Technical Report 2310/09, Oxford, 2009).
 *
 * Stages, each a kernel of hog.cl (installed with the kernels) and a function of the
 * sequential reference (the 'ref' backend):
 *   1. downscale: for every pyramid level s = scale^k, the image resized to
 *      (round(W / s), round(H / s)) with OpenCV's INTER_LINEAR_EXACT bilinear interpolation
 *      (pixel centres, fixed-point weights of 8 bits, so device, reference and OpenCV agree
 *      exactly);
 *   2. padding: the level extended by padding (rounded up to the gcd of the window and block
 *      strides) plus one pixel, mirrored without repeating the edge (OpenCV's
 *      BORDER_REFLECT_101);
 *   3. gradients: gamma correction (square root of the u8 value), centred [-1 0 1]
 *      differences; for colour images the channel with the largest magnitude, ties broken as
 *      OpenCV breaks them on the same image in its B, G, R order (B first, then G, then R,
 *      except in the last width % 4 pixels of a padded row: R, then G, then B); magnitude and an
 *      unsigned
 *      orientation split linearly between its two nearest bins (bin centres at
 *      (b + 0.5) pi / nbins), with OpenCV's polynomial arctangent;
 *   4. block histograms: trilinear interpolation in x, y and orientation over the block's
 *      cells, each pixel weighted by a Gaussian of sigma = (block width + height) / 8 centred
 *      on the block (binning VOTECL_HOG_BINNING_HARD: scikit-image's hard binning instead);
 *   5. normalisation: L2-Hys, v / (|v| + 0.1 n), clipped at l2hys_threshold, then
 *      v / (|v| + 0.001) (block_norm: scikit-image's L1, L1-sqrt and L2 instead);
 *   6. linear SVM: score = bias + weights . descriptor for every window.
 * Windows whose score is at least hit_threshold are scaled back to the image and fused on the
 * host: OpenCV's groupRectangles (the default: with the default parameters the boxes equal
 * detectMultiScale's, 44 of 44 over `votecl eval hog`'s people scenes and shipped images,
 * where mean-shift matched all 44 at IoU 0.5 but added 18 boxes, precision 0.71; figures in
 * docs/accuracy.md) or mean-shift in (x, y, log scale) (Dalal's thesis). Both cost time quadratic
 * in those windows (mean-shift up to 100 n^2 kernel evaluations): more windows than
 * VOTECL_HOG_MAX_GROUP_WINDOWS or VOTECL_HOG_MAX_MEANSHIFT_WINDOWS (a hit_threshold far below the
 * model's scores) are refused with VOTECL_INVALID_ARGUMENT naming hit_threshold;
 * VOTECL_HOG_FUSION_NONE costs n log n and has no limit.
 *
 * The descriptor of a window has OpenCV's HOGDescriptor::compute layout: blocks column after
 * column (x outer, y inner), inside a block its cells the same way, then nbins values per
 * cell. For the same parameters its values equal OpenCV's within float rounding, so models
 * trained with OpenCV work unchanged.
 *
 * Images are u8 with 1 channel (gray), 3 or 4 channels (colour: R, G, B, then alpha, unused;
 * with colour = 0 they are first turned to gray with OpenCV's RGB to gray weights). A BGR
 * image from OpenCV must have its channels swapped first, or ties between channels are
 * broken differently from OpenCV's. */
#ifndef VOTECL_HOG_H
#define VOTECL_HOG_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-image.h>
#include <votecl/votecl-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest image side and window side. */
#define VOTECL_HOG_MAX_SIDE 32768u
/** Most orientation bins (nbins). */
#define VOTECL_HOG_MAX_BINS 64u
/** Most pyramid levels (OpenCV's nlevels). */
#define VOTECL_HOG_MAX_LEVELS 64u
/** Most windows fusion takes (both cost time quadratic in them): more windows at or above
 * hit_threshold are refused with VOTECL_INVALID_ARGUMENT rather than fused for minutes.
 * Grouping: 32768 windows, at most 5.4e8 similarity tests (25 132 windows took 2.6 s on
 * the CPU measured in docs/reliability.md); mean-shift: 2048, at most 100 n^2 = 4.2e8
 * kernel evaluations. VOTECL_HOG_FUSION_NONE has no limit. */
#define VOTECL_HOG_MAX_GROUP_WINDOWS 32768u
/** Most windows mean-shift fusion takes: see VOTECL_HOG_MAX_GROUP_WINDOWS. */
#define VOTECL_HOG_MAX_MEANSHIFT_WINDOWS 2048u
/** The model file format's version (hog-model.md in $(docdir), e.g.
 * /usr/local/share/doc/libvotecl/hog-model.md). */
#define VOTECL_HOG_MODEL_VERSION 1
/** The people detector's file, found beside the kernels (the kernel search path). */
#define VOTECL_HOG_PEOPLE_MODEL "hog-people.model"

/** How the windows at or above hit_threshold become detections. */
typedef enum votecl_hog_fusion {
    VOTECL_HOG_FUSION_NONE = 0,      /**< every window at or above hit_threshold */
    VOTECL_HOG_FUSION_MEANSHIFT = 1, /**< mean-shift in (x, y, log scale) */
    VOTECL_HOG_FUSION_GROUP = 2      /**< OpenCV's HOGDescriptor::groupRectangles (default) */
} votecl_hog_fusion;

/** How a block's histogram v of n values is normalised (votecl_hog_params.block_norm).
 * L1, L1-sqrt and L2 are scikit-image's block_norm (skimage.feature.hog, eps = 1e-5 in the
 * histogram's units); L2-Hys is OpenCV's, whose epsilons differ from scikit-image's. */
typedef enum votecl_hog_block_norm {
    VOTECL_HOG_NORM_L2HYS = 0,   /**< OpenCV's: v / (|v|_2 + 0.1 n), clipped at l2hys_threshold,
                                    then v / (|v|_2 + 0.001) (default) */
    VOTECL_HOG_NORM_L1 = 1,      /**< v / (|v|_1 + 1e-5) */
    VOTECL_HOG_NORM_L1_SQRT = 2, /**< sqrt(v / (|v|_1 + 1e-5)) */
    VOTECL_HOG_NORM_L2 = 3       /**< v / sqrt(|v|_2^2 + 1e-10) */
} votecl_hog_block_norm;

/** How a pixel's gradient votes into its block's cells (votecl_hog_params.binning). */
typedef enum votecl_hog_binning {
    /** OpenCV's (Dalal and Triggs'): the magnitude split linearly between the two nearest
     * orientation bins and bilinearly between the four nearest cells, weighted by the
     * block's Gaussian (default) */
    VOTECL_HOG_BINNING_TRILINEAR = 0,
    /** scikit-image's (hog_histograms): the whole magnitude to the pixel's own cell and the
     * one bin b with b pi / nbins <= orientation < (b + 1) pi / nbins (orientations of 0,
     * 45, 90 and 135 degrees, exact in scikit-image too, in the bin they open), no Gaussian,
     * a cell the mean over its pixels. With gamma = 0 (transform_sqrt=False), window = the
     * image's whole cells, block stride = one cell and padding 0, the descriptor holds
     * skimage.feature.hog's values of the same uint8 gray image (block_norm L1, L1-sqrt or
     * L2; within float rounding) in OpenCV's order: blocks column after column, cells
     * likewise. With gamma = 1 a gradient exactly on a boundary in exact arithmetic (60
     * degrees from square roots) may fall in the other bin than scikit-image's double
     * rounding puts it in */
    VOTECL_HOG_BINNING_HARD = 1
} votecl_hog_binning;

/** Parameters of a HOG detector (defaults after each field: OpenCV's people detector); fill
 * with votecl_hog_params_init() first. */
typedef struct votecl_hog_params {
    size_t struct_size;           /**< set by the _init function: see votecl.h */
    unsigned window_width;        /**< 64: detection window width, pixels */
    unsigned window_height;       /**< 128: detection window height */
    unsigned block_width;         /**< 16, a multiple of the cell width */
    unsigned block_height;        /**< 16, a multiple of the cell height */
    unsigned block_stride_x;      /**< 8 */
    unsigned block_stride_y;      /**< 8 */
    unsigned cell_width;          /**< 8 */
    unsigned cell_height;         /**< 8 */
    unsigned nbins;               /**< 9 unsigned orientation bins (0 to pi) */
    unsigned window_stride_x;     /**< 8: a multiple of the block stride's gcd */
    unsigned window_stride_y;     /**< 8: a multiple of the block stride's gcd */
    unsigned padding_x;           /**< 0: pixels added on the left and right */
    unsigned padding_y;           /**< 0: pixels added on the top and bottom */
    int gamma;                    /**< 1: square root of the pixel values */
    int colour;                   /**< 1: largest channel gradient; 0: gray first */
    float l2hys_threshold;        /**< 0.2 */
    double scale;                 /**< 1.05: pyramid ratio; 1 or less: one level */
    double min_scale;             /**< 1: first level's scale */
    double max_scale;             /**< 0: until the level is smaller than a window */
    unsigned max_levels;          /**< 64 */
    double hit_threshold;         /**< 0: least SVM score of a detection */
    votecl_hog_fusion fusion;     /**< VOTECL_HOG_FUSION_GROUP */
    unsigned group_threshold;     /**< 2: GROUP keeps groups of more windows */
    double meanshift_sigma_x;     /**< 8: mean-shift bandwidth in x */
    double meanshift_sigma_y;     /**< 16: mean-shift bandwidth in y */
    double meanshift_sigma_scale; /**< log(1.3): mean-shift bandwidth in log scale */
    votecl_hog_block_norm block_norm; /**< VOTECL_HOG_NORM_L2HYS */
    votecl_hog_binning binning;       /**< VOTECL_HOG_BINNING_TRILINEAR */
} votecl_hog_params;

/** Sets the people detector's defaults above. NULL is a no-op. */
VOTECL_API void votecl_hog_params_init(votecl_hog_params *params);

/** The length of one window's descriptor for params (borrowed) into *length.
 * Returns VOTECL_INVALID_ARGUMENT naming the field when params are inconsistent. */
VOTECL_API votecl_status votecl_hog_descriptor_length(const votecl_hog_params *params,
                                                      size_t *length);

/** --- linear SVM models ---
 * A model is the window geometry, length weights and a bias; a window's score is
 * bias + weights . descriptor. Files are text (hog-model.md in $(docdir)); OpenCV's saved
 * detectors load with votecl_hog_model_load_opencv() (at the end of this header):
 * @code{.unparsed}
 *   votecl-hog-model 1
 *   window 64 128
 *   block 16 16
 *   block-stride 8 8
 *   cell 8 8
 *   bins 9
 *   length 3780
 *   bias <float>
 *   weights
 *   <length floats, any whitespace between them>
 *   end
 * @endcode
 * Lines starting with '#' are comments. */

typedef struct votecl_hog_model votecl_hog_model;

/** A model from memory: the geometry of params (borrowed), length weights (borrowed, copied),
 * bias. out: caller-owned. context: for the error message (may be NULL).
 * Returns VOTECL_INVALID_ARGUMENT when length is not params' descriptor length or a weight is
 * not finite, VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_hog_model_new(votecl_context *context,
                                              const votecl_hog_params *params,
                                              const float *weights, size_t length, float bias,
                                              votecl_hog_model **out);

/** Reads a model file (filename borrowed); out: caller-owned. Returns VOTECL_IO_ERROR when it
 * cannot be read, VOTECL_UNSUPPORTED for another format version, VOTECL_INVALID_ARGUMENT for
 * a malformed file (the context's message names the line and field),
 * VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_hog_model_load(votecl_context *context, const char *filename,
                                               votecl_hog_model **out);

/** OpenCV's default people detector (64 x 128, 3780 weights), read from
 * VOTECL_HOG_PEOPLE_MODEL in the context's kernel search path.
 * Returns VOTECL_KERNEL_NOT_FOUND when no directory has it, and the loader's statuses. */
VOTECL_API votecl_status votecl_hog_model_people(votecl_context *context,
                                                 votecl_hog_model **out);

/** Writes model to filename in the format above. Returns VOTECL_IO_ERROR. */
VOTECL_API votecl_status votecl_hog_model_save(votecl_context *context,
                                               const votecl_hog_model *model,
                                               const char *filename);

/** The model's length, weights (transfer none) and bias (any pointer may be NULL). */
VOTECL_API void votecl_hog_model_get(const votecl_hog_model *model, size_t *length,
                                     const float **weights, float *bias);

/** Frees a model; NULL is a no-op. */
VOTECL_API void votecl_hog_model_free(votecl_hog_model *model);

/* --- detectors --- */

/** A rectangle in image pixels. */
typedef struct votecl_hog_rect {
    int32_t x;      /**< left column */
    int32_t y;      /**< top row */
    int32_t width;  /**< columns */
    int32_t height; /**< rows */
} votecl_hog_rect;

/** One detection: its box in the image, its score and the scale it was found at. */
typedef struct votecl_hog_detection {
    votecl_hog_rect box; /**< the window (after fusion, the fused box) in image pixels */
    double score;        /**< the SVM score, bias + weights . descriptor */
    double scale;        /**< the pyramid scale the window was found at */
} votecl_hog_detection;

/** A HOG detector for one geometry and model (opaque). */
typedef struct votecl_hog votecl_hog;

/** Validates params (borrowed), copies model (borrowed; NULL: descriptors only) and compiles
 * the kernels. out: caller-owned. Returns VOTECL_INVALID_ARGUMENT naming the field,
 * VOTECL_INCOMPATIBLE when the model's geometry is not params', and build statuses. */
VOTECL_API votecl_status votecl_hog_new(votecl_context *context, const votecl_hog_params *params,
                                        const votecl_hog_model *model, votecl_hog **out);

/** Frees a detector (waiting for work begun); NULL is a no-op. */
VOTECL_API void votecl_hog_free(votecl_hog *hog);

/** The number of windows of an image at scale 1: columns and rows of window positions, the
 * first at (-padding) and then every window stride (either pointer may be NULL).
 * Returns VOTECL_INVALID_ARGUMENT when the padded image is smaller than a window. */
VOTECL_API votecl_status votecl_hog_windows(const votecl_hog *hog, size_t width, size_t height,
                                            size_t *columns, size_t *rows);

/** A window position: its top-left corner in image coordinates. */
typedef struct votecl_hog_point {
    int32_t x; /**< column of the window's top-left corner */
    int32_t y; /**< row of the window's top-left corner */
} votecl_hog_point;

/** Descriptors of windows at caller-chosen positions of image (scale 1), as OpenCV's
 * HOGDescriptor::compute(img, winStride, padding, locations): a position need not lie on the
 * window-stride grid, and pixels beyond the image's edges are its BORDER_REFLECT_101
 * extension, as OpenCV's gradients see them. params: borrowed (padding and window stride are
 * not used); image: u8, 1, 3 or 4 channels; locations: borrowed, n positions within
 * [-65535, 65535]; descriptors: caller-owned output of capacity floats, n descriptors in the
 * order of locations. Runs on the context's device (the positions' surroundings are
 * gathered on the host and the descriptors computed there in one batch per 64 windows).
 * Returns VOTECL_INVALID_ARGUMENT naming the field, device and build statuses. */
VOTECL_API votecl_status votecl_hog_compute_at(votecl_context *context,
                                               const votecl_hog_params *params,
                                               const votecl_image *image,
                                               const votecl_hog_point *locations, size_t n,
                                               float *descriptors, size_t capacity);

/** Descriptors of every window of image at scale 1, rows of windows, each row left to right,
 * as OpenCV's HOGDescriptor::compute(img, winStride, padding). descriptors: caller-owned
 * output of capacity floats; *count: windows (also when they did not fit, then nothing is
 * written and VOTECL_INVALID_ARGUMENT is returned).
 * Returns VOTECL_INVALID_ARGUMENT naming the field (image smaller than a window included),
 * device statuses. */
VOTECL_API votecl_status votecl_hog_compute(votecl_hog *hog, const votecl_image *image,
                                            float *descriptors, size_t capacity,
                                            size_t *count);

/** Detects in image (borrowed) within nrois regions of interest (borrowed; NULL and 0: the
 * whole image). A region is treated as an image of its own (its borders mirrored) and its
 * boxes are moved back into the image. The fused boxes are clipped to the image as OpenCV's
 * detectMultiScale clips them (clipObjects): each becomes its intersection with (0, 0, width,
 * height) and one left empty is dropped, so a window that reached into the padding gives a
 * box inside the image. detections: caller-owned output of capacity entries, best score
 * first; *found: the detections, also when more than capacity.
 * Returns VOTECL_INVALID_ARGUMENT when a region leaves the image, is empty, or the detector
 * has no model; a region or image smaller than a window gives no detections and VOTECL_OK. */
VOTECL_API votecl_status votecl_hog_detect(votecl_hog *hog, const votecl_image *image,
                                           const votecl_hog_rect *rois, size_t nrois,
                                           votecl_hog_detection *detections, size_t capacity,
                                           size_t *found);

/** The asynchronous halves of votecl_hog_detect: begin validates, uploads and queues every
 * level's kernels and returns without waiting; image and rois stay borrowed until end.
 * end waits, reads the scores and fuses. One detection at a time per detector.
 * begin returns VOTECL_INVALID_ARGUMENT as detect does (and when work is already begun);
 * end returns VOTECL_INVALID_ARGUMENT when nothing was begun, and device statuses. */
VOTECL_API votecl_status votecl_hog_detect_begin(votecl_hog *hog, const votecl_image *image,
                                                 const votecl_hog_rect *rois, size_t nrois);
/** Waits for the detection votecl_hog_detect_begin() queued, reads the scores and fuses them
 * into detections as votecl_hog_detect() does. */
VOTECL_API votecl_status votecl_hog_detect_end(votecl_hog *hog, votecl_hog_detection *detections,
                                               size_t capacity, size_t *found);

/** Detection over n detectors (borrowed, each on its own context or device, same params and
 * model): region i goes to detector i mod n (no regions: one region, the whole image), all
 * are begun before any is waited for, and the windows of all are fused together with the
 * first detector's params. Statuses as votecl_hog_detect. */
VOTECL_API votecl_status votecl_hog_detect_multi(votecl_hog *const *hogs, size_t n,
                                                 const votecl_image *image,
                                                 const votecl_hog_rect *rois, size_t nrois,
                                                 votecl_hog_detection *detections,
                                                 size_t capacity, size_t *found);

/** The raw windows of the last detection before fusion and clipping (detections:
 * caller-owned output of capacity entries; *found: how many). */
VOTECL_API votecl_status votecl_hog_last_windows(const votecl_hog *hog,
                                                 votecl_hog_detection *detections,
                                                 size_t capacity, size_t *found);

/** Fuses n windows (borrowed) as params (borrowed) say into detections (caller-owned output,
 * capacity entries, best first); *found also when more than capacity. Host only; it knows
 * no image, so it clips nothing (votecl_hog_detect() clips its boxes to the image).
 * VOTECL_INVALID_ARGUMENT when n exceeds the fusion's limit (VOTECL_HOG_MAX_GROUP_WINDOWS,
 * VOTECL_HOG_MAX_MEANSHIFT_WINDOWS). */
VOTECL_API votecl_status votecl_hog_fuse(const votecl_hog_params *params,
                                         const votecl_hog_detection *windows, size_t n,
                                         votecl_hog_detection *detections, size_t capacity,
                                         size_t *found);

/** As votecl_hog_detect() with the image in a device buffer of the detector's context
 * (borrowed: width x height pixels of u8, rows packed from byte 0, such as a frame that
 * votecl_buffer_wrap_device() wraps where it already lies): no host copy of the image.
 * channels: 1 (gray), or 3 when params.colour is on (used in the order given, e.g. BGR).
 * Waits for the detections (host memory). Statuses as votecl_hog_detect(). */
VOTECL_API votecl_status votecl_hog_detect_buffer(votecl_hog *hog, votecl_buffer *image,
                                                  size_t width, size_t height,
                                                  unsigned channels, const votecl_hog_rect *rois,
                                                  size_t nrois, votecl_hog_detection *detections,
                                                  size_t capacity, size_t *found);
/** Reads a HOG detector that OpenCV saved (HOGDescriptor::save(), cv2.HOGDescriptor.save(),
 * or a file written the same way through cv::FileStorage) in YAML or XML: the first
 * top-level map, as HOGDescriptor::load() with no object name. filename: borrowed;
 * params: caller-owned output or NULL, set to votecl_hog_params_init()'s defaults with the
 * file's winSize, blockSize, blockStride, cellSize, nbins, gammaCorrection, L2HysThreshold
 * and nlevels (the detection settings, such as hit_threshold, stay to be chosen); out:
 * caller-owned, SVMDetector's descriptor-length weights and, when present, its last entry as
 * the bias. Give the same params to votecl_hog_new(). context: for the error message (may
 * be NULL).
 * Returns VOTECL_IO_ERROR when the file cannot be read, VOTECL_UNSUPPORTED for what OpenCV
 * can save and this library does not compute (signedGradient, a histogramNormType other
 * than L2Hys, a winSigma other than (block width + height) / 8; params' block_norm is
 * VOTECL_HOG_NORM_L2HYS and binning VOTECL_HOG_BINNING_TRILINEAR, OpenCV's only ones),
 * VOTECL_INVALID_ARGUMENT for another file or a malformed one (the message names the file and
 * the key: SVMDetector of the wrong length, a missing winSize, ...),
 * VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_hog_model_load_opencv(votecl_context *context,
                                                      const char *filename,
                                                      votecl_hog_params *params,
                                                      votecl_hog_model **out);

#ifdef __cplusplus
}
#endif

#endif
