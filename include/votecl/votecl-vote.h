/** @file
 * libvotecl: the voting engine and its histograms (GPU-vote).
 *
 * Every input element casts a vote into a bin; the engine counts the votes on the device
 * with one of three strategies (van den Braak, Nugteren, Mesman, Corporaal, "GPU-vote: a
 * framework for accelerating voting algorithms on GPU", sections 3.2-3.3):
 *
 *   local    bins in on-chip local memory, stretched S' times (Eq. 3-6) so that neighbouring
 *            work-items vote into different copies; the input split into P parts over the
 *            compute units; several passes when the bins exceed local memory; a merge kernel
 *            folds the copies and parts.
 *   global   atomics straight into R replicated copies in global memory, for vote spaces too
 *            large for local memory.
 *   private  every work-item owns a copy of the bins and votes without atomics; for CPU
 *            devices, where atomics are slow.
 *
 * The plan picks the strategy from the device's facts; VOTECL_FORCE_VARIANT (local, global,
 * private) or the params' variant force one.
 *
 * Histogram semantics. A 1-D histogram has nbins equal bins over [min, max): element v
 * falls into bin floor((v - min) * nbins / (max - min)). Values outside [min, max), NaN and
 * infinities cast no vote. For u8, u16 and u32 data min and max must be integers with
 * 0 <= min < max <= 2^32, and the bin is computed exactly in integer arithmetic. For f32
 * data the rule is that of OpenCV's cv::calcHist (the double-precision reference of its
 * accuracy test, which calcHist meets): v votes when min <= v < max (compared in double),
 * into bin floor(((double)v - min) * nbins / (max - min)) evaluated in double precision in
 * that order, clamped to nbins - 1. Every backend gives these bins exactly, also on devices
 * without double precision: the kernels compare values near an edge with float edges the
 * host computes (edge k is the least float in bin k). With edges = VOTECL_HIST_EDGES_NUMPY
 * the bins are NumPy's np.histogram's for float32 data instead: float32 edges
 * E_k = (float)(k * ((max - min) / nbins) + min) computed in double as np.linspace does
 * (E_nbins = (float)max), v votes when E_0 <= v <= E_nbins (NumPy's last bin holds its upper
 * edge) into the last bin k with E_k <= v. The two differ only for a value equal to a
 * float32 edge that lies below the real edge min + k * (max - min) / nbins: NumPy counts it
 * in bin k, calcHist in bin k - 1. A range whose width times nbins overflows double
 * precision is refused; any narrower one is binned by the rule, ranges wider than FLT_MAX
 * included.
 * A 2-D histogram has nbins[0] x nbins[1] bins, row-major: bin = bx * nbins[1] + by.
 *
 * Counts are 32-bit and never wrap: a frame holds at most VOTECL_VOTE_MAX_ELEMENTS
 * (2^31 - 1) elements, each casting one vote, and calls with more return
 * VOTECL_INVALID_ARGUMENT naming n. Weighted histograms sum f32 weights
 * into f32 bins; the order of the additions differs between strategies, so float sums
 * agree with the reference only to rounding (exactly when every partial sum is an integer
 * below 2^24). */
#ifndef VOTECL_VOTE_H
#define VOTECL_VOTE_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-image.h>
#include <votecl/votecl-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The engine's voting strategies (GPU-vote section 3). */
typedef enum votecl_variant {
    VOTECL_VARIANT_AUTO = 0,   /**< the plan chooses (the model, else rules) */
    VOTECL_VARIANT_LOCAL = 1,  /**< sub-histograms in local memory, merged */
    VOTECL_VARIANT_GLOBAL = 2, /**< replicated copies in global memory, atomics */
    VOTECL_VARIANT_PRIVATE = 3 /**< a private histogram per work-item */
} votecl_variant;

/** "auto", "local", "global", "private"; NULL for unknown values. Transfer none. */
VOTECL_API const char *votecl_variant_name(votecl_variant variant);

/** What a plan does on its device. */
typedef struct votecl_vote_plan_info {
    votecl_variant variant;   /**< the strategy chosen */
    uint64_t nbins;           /**< N: bins per vote space */
    unsigned spaces;          /**< G: independent vote spaces per run (frames in a batch) */
    uint32_t nmax;            /**< bins that fit in local memory at once (local), else 0 */
    unsigned stretch;         /**< S' (local), 1 otherwise */
    unsigned stretch_s;       /**< S = max(floor(Nmax / N), 1) of Eq. 3 (local), 1 otherwise */
    unsigned parts;           /**< P: input parts per vote space per pass (local, private) */
    unsigned passes;          /**< ceil(N / Nmax) (local), 1 otherwise */
    unsigned copies;          /**< replicated copies of the bins (global, private) */
    size_t work_group_size;   /**< work-items per work-group of the vote kernel */
    double predicted_seconds; /**< model estimate for 'elements' (0 when not calibrated) */
    unsigned launches;        /**< kernel launches and buffer fills of the vote per run (the
                                 vote kernel, a fill of the copies, the merge kernel) */
    unsigned resident;        /**< vote work-groups resident per compute unit at once, as
                                 estimated from the work-group size and its local memory */
    uint64_t footprint;       /**< bytes of global memory the votes go to (copies the vote kernel
                                 writes with atomics or read-modify-writes; 0 when on chip) */
} votecl_vote_plan_info;

/** @file
 * @par The generic engine: a new voting algorithm in a few lines of OpenCL C.
 *
 * A spec names the input element type and channels, the bin type, G independent vote
 * spaces of N bins each, and OpenCL C source text defining any of four user functions
 * (GPU-vote section 3.4). Those left out take the defaults shown:
 * @code{.unparsed}
 *   bool   vote_test(uint x, uint y, VALUE_T value)             default: no stage 1
 *   uint   vote_index(uint space, uint index, VALUE_T value, uint nbins)
 *                                                   default: the value's first channel
 *   VOTE_T vote_value(uint space, uint index, VALUE_T value)    default: 1
 *   VOTE_T vote_finish(uint space, uint bin, VOTE_T total)      default: total
 * @endcode
 * VALUE_T is the element: uchar, ushort, uint or float for one channel, the OpenCL vector
 * type (uchar2, float4, ...) for 2 or 4 channels. VOTE_T is uint (unity and u32 number
 * votes) or float (f32 number votes). For images, index is the element's location packed
 * as x | y << 16 (vote_x(index), vote_y(index) unpack it; images are at most 65535 on a
 * side); for 1-D arrays it is the position. The constant table the caller supplies is
 * float vote_table[], and vote_table_size its length. Every element votes once in each of
 * the G spaces: vote_index is called with space = 0 .. G-1.
 *
 * Location-based voting (vote_test given): stage 1 compacts the elements that pass the test
 * into arrays of locations and values with a prefix sum on the device (section 3.1), and
 * stage 2 votes from those arrays; the fraction kept (eta) is reported. Value-based voting
 * (no vote_test): every element votes directly.
 *
 * An index at or above nbins (VOTE_SKIP included) casts no vote: it is skipped, never
 * written. vote_finish runs once per bin after all votes are merged. */


/** The type of a spec's bins and its votes. */
typedef enum votecl_bin_type {
    VOTECL_BINS_UNITY = 0, /**< u32 bins, every vote adds 1 (vote_value is not called) */
    VOTECL_BINS_U32 = 1,   /**< u32 bins, number votes: vote_value returns uint */
    VOTECL_BINS_F32 = 2    /**< f32 bins, number votes: vote_value returns float */
} votecl_bin_type;

/** Largest constant table (floats) a spec may carry. */
#define VOTECL_VOTE_MAX_TABLE 8192
/** Largest source text (bytes) a spec may carry. */
#define VOTECL_VOTE_MAX_SOURCE (1u << 20)
/** Largest G x N of a spec (2^28 bins). */
#define VOTECL_VOTE_MAX_BINS (1u << 28)
/** Most elements of one run (per frame, per vote space): unity votes into u32 bins never
 * wrap. U32 number votes add modulo 2^32: their range is the spec's to keep. */
#define VOTECL_VOTE_MAX_ELEMENTS 2147483647u

/** A generic vote: elements, bins and the user functions (see above); fill with
 * votecl_vote_spec_init() first. */
typedef struct votecl_vote_spec {
    size_t struct_size;       /**< set by the _init function: see votecl.h */
    votecl_dtype dtype;       /**< element type */
    unsigned channels;        /**< 1, 2 or 4 */
    votecl_bin_type bin_type; /**< the bins' type and how votes add */
    unsigned spaces;          /**< G >= 1 */
    uint32_t nbins;           /**< N >= 1 per space */
    const char *source;       /**< borrowed; NULL: every function takes its default */
    const float *table;       /**< borrowed; table_size floats, or NULL */
    size_t table_size;        /**< floats in table, at most VOTECL_VOTE_MAX_TABLE */
    votecl_variant variant;   /**< AUTO: the plan chooses (VOTECL_FORCE_VARIANT overrides) */
    unsigned stretch;         /**< as votecl_hist_params */
    unsigned work_group_size; /**< as votecl_hist_params */
} votecl_vote_spec;

/** Defaults: u8, one channel, unity votes, G = 1, N = 256, no source, no table. */
VOTECL_API void votecl_vote_spec_init(votecl_vote_spec *spec);

/** A generic vote compiled for a context's device (opaque). */
typedef struct votecl_vote_plan votecl_vote_plan;

/** What a run saw. */
typedef struct votecl_vote_stats {
    size_t elements; /**< E: elements examined */
    size_t kept;     /**< elements that passed vote_test (E without stage 1) */
    double eta;      /**< kept / E (0 for E = 0) */
} votecl_vote_stats;

/** Validates the spec and compiles it (or finds it in the caches). spec: borrowed.
 * out: caller-owned. A build error in the user's source returns VOTECL_BUILD_FAILED, and
 * votecl_context_get_build_log() then refers to the user's text as file "user" with its
 * own line numbers. Returns VOTECL_INVALID_ARGUMENT naming the field, VOTECL_BUILD_FAILED,
 * VOTECL_KERNEL_NOT_FOUND, VOTECL_OUT_OF_*_MEMORY, VOTECL_DEVICE_ERROR. */
VOTECL_API votecl_status votecl_vote_plan_new(votecl_context *context,
                                              const votecl_vote_spec *spec,
                                              votecl_vote_plan **out);
/** Frees a plan; NULL is a no-op. */
VOTECL_API void votecl_vote_plan_free(votecl_vote_plan *plan);

/** Votes the elements of an image view (dtype and channels as the spec's). bins:
 * caller-owned output of G * N entries (uint32_t, or float for VOTECL_BINS_F32), space by
 * space, overwritten. stats: caller-owned output or NULL. */
VOTECL_API votecl_status votecl_vote_run_image(votecl_vote_plan *plan, const votecl_image *image,
                                               void *bins, votecl_vote_stats *stats);

/** Votes n elements of a 1-D array (index = position). data: borrowed. */
VOTECL_API votecl_status votecl_vote_run(votecl_vote_plan *plan, const void *data, size_t n,
                                         void *bins, votecl_vote_stats *stats);

/** As votecl_vote_run_image() with a width x height image (rows packed) in a device buffer
 * of the plan's context, bins into a device buffer; height 0 means a 1-D array of width
 * elements. Asynchronous: votecl_vote_plan_last_stats() waits and reports. */
VOTECL_API votecl_status votecl_vote_run_buffers(votecl_vote_plan *plan, votecl_buffer *data,
                                                 size_t width, size_t height,
                                                 votecl_buffer *bins);

/** The stats of the plan's last run; waits for it to finish. stats: caller-owned. */
VOTECL_API votecl_status votecl_vote_plan_last_stats(votecl_vote_plan *plan,
                                                     votecl_vote_stats *stats);

/** Reports the strategy for runs over 'elements' elements. info: caller-owned output. */
VOTECL_API votecl_status votecl_vote_plan_describe(const votecl_vote_plan *plan,
                                                   size_t elements, votecl_vote_plan_info *info);

/** The execution-time model (GPU-vote Eq. 7-10) for 'elements' elements of which the
 * fraction eta passes stage 1, with the device's fitted parameters (votecl calibrate).
 * Returns VOTECL_UNSUPPORTED when the device has not been calibrated. */
VOTECL_API votecl_status votecl_vote_plan_predict(const votecl_vote_plan *plan, size_t elements,
                                                  double eta, double *seconds);

/** Where f32 values fall near bin edges (see Histogram semantics above). */
typedef enum votecl_hist_edges {
    VOTECL_HIST_EDGES_EXACT = 0, /**< cv::calcHist's double-precision rule (the default) */
    VOTECL_HIST_EDGES_NUMPY = 1  /**< np.histogram's float32 edges, the last bin closed */
} votecl_hist_edges;

/** Largest number of bins a histogram may have (2^28). */
#define VOTECL_HIST_MAX_BINS (1u << 28)
/** Histogram sizes fixed by the API (an enum, so that bindings see the array sizes). */
typedef enum votecl_hist_limit {
    VOTECL_HIST_MAX_DIMS = 8 /**< most dimensions of one histogram, and most interleaved
                                channels of its data */
} votecl_hist_limit;

/** Parameters of a histogram plan; fill with votecl_hist_params_init() first.
 *
 * N-D histograms (dims 3 to VOTECL_HIST_MAX_DIMS) extend the 2-D layout row-major: the bin of
 * (b0, b1, ..., b{D-1}) is ((b0 * nbins[1] + b1) * nbins[2] + b2) ...; an element votes only
 * when every dimension's value falls in a bin.
 *
 * Uneven bins: bin_edges[d] (borrowed during votecl_hist_plan_new(), copied) gives the
 * nbins[d] + 1 strictly increasing finite edges of dimension d, replacing min[d] and max[d]:
 * value v (compared in double precision, exactly) falls into bin k when
 * edges[k] <= v < edges[k + 1] (cv::calcHist's uniform=false); with edges =
 * VOTECL_HIST_EDGES_NUMPY the last bin also holds edges[nbins] (np.histogram's bins=edges);
 * values outside, NaN and infinities cast no vote. The device finds the bin by binary search
 * over the edges.
 *
 * Masks: a masked plan takes an 8-bit mask of one byte per element (pixel) with every run
 * (votecl_hist_run_masked(), votecl_hist_run_masked_buffers()); an element votes only where
 * its mask byte is nonzero (cv::calcHist's mask).
 *
 * Per channel (CUB's MultiHistogramEven): per_channel nonzero makes one histogram for each
 * of the channels of x from one read of the data: channel c is binned by dimension c's
 * nbins[c], min[c], max[c] (or bin_edges[c]); dims and channel[] are ignored. The result
 * holds the channels' histograms one after another: nbins[0] + ... + nbins[channels - 1]
 * bins. */
typedef struct votecl_hist_params {
    size_t struct_size;     /**< set by the _init function: see votecl.h */
    votecl_dtype dtype;     /**< element type of the data */
    unsigned channels;      /**< interleaved channels per element of x (1-8) */
    unsigned dims;          /**< 1 to VOTECL_HIST_MAX_DIMS */
    unsigned channel[VOTECL_HIST_MAX_DIMS]; /**< channel of x for each dimension; for a 2-D
                                               histogram of two arrays the second dimension
                                               reads channel[1] of y */
    int two_arrays;         /**< 2-D only: nonzero: the second dimension comes from array y */
    uint32_t nbins[VOTECL_HIST_MAX_DIMS]; /**< bins per dimension (>= 1) */
    double min[VOTECL_HIST_MAX_DIMS];     /**< lower edge, included */
    double max[VOTECL_HIST_MAX_DIMS];     /**< upper edge, excluded */
    int weighted;           /**< nonzero: each element votes its f32 weight into f32 bins */
    votecl_variant variant; /**< AUTO lets the plan choose (VOTECL_FORCE_VARIANT overrides AUTO) */
    unsigned stretch;       /**< local strategy's S' (at most the paper's S' of Eq. 5 and the
                               work-group size); 0: chosen for the device */
    unsigned work_group_size; /**< vote kernel's work-group size; 0: chosen for the device */
    votecl_hist_edges edges; /**< f32 data and bin_edges: the edge convention (EXACT: calcHist's) */
    int masked;              /**< nonzero: every run takes an 8-bit mask (see above) */
    const double *bin_edges[VOTECL_HIST_MAX_DIMS]; /**< uneven bins of dimension d (see above),
                                                      or NULL: nbins[d] even bins */
    int per_channel; /**< nonzero: a histogram of each channel, one pass (see above) */
} votecl_hist_params;

/** Defaults for dtype: one channel, channel[] = {0, ...}, 1-D, no mask, even bins; every
 * dimension: u8: 256 bins over [0, 256); u16: 65536 bins over [0, 65536); u32: 256 bins over
 * [0, 2^32); f32: 256 bins over [0, 1). */
VOTECL_API void votecl_hist_params_init(votecl_hist_params *params, votecl_dtype dtype);

/** Sets a 2-D histogram of two channels of x (two_arrays 0) or of x and y (two_arrays 1),
 * with nx x ny bins; ranges as for 1-D. Set channels and two_arrays first: channel[1]
 * becomes 1 for two channels of x, else 0. */
VOTECL_API void votecl_hist_params_set_2d(votecl_hist_params *params, uint32_t nx, double xmin,
                                          double xmax, uint32_t ny, double ymin, double ymax);

/** A histogram compiled for a context's device (opaque). */
typedef struct votecl_hist_plan votecl_hist_plan;

/** Validates params, chooses the strategy and compiles (or loads from the caches) the
 * kernels. params: borrowed. out: caller-owned.
 * Returns VOTECL_INVALID_ARGUMENT (the context's message names the field),
 * VOTECL_KERNEL_NOT_FOUND, VOTECL_BUILD_FAILED, VOTECL_OUT_OF_*_MEMORY, VOTECL_DEVICE_ERROR. */
VOTECL_API votecl_status votecl_hist_plan_new(votecl_context *context,
                                              const votecl_hist_params *params,
                                              votecl_hist_plan **out);

/** Frees a plan; NULL is a no-op. */
VOTECL_API void votecl_hist_plan_free(votecl_hist_plan *plan);

/** Number of bins of the histogram (product over the dimensions). */
VOTECL_API uint64_t votecl_hist_plan_nbins(const votecl_hist_plan *plan);

/** Reports the strategy for frames of 'elements' elements, 'frames' at a time.
 * info: caller-owned output. */
VOTECL_API votecl_status votecl_hist_plan_describe(const votecl_hist_plan *plan,
                                                   size_t elements, size_t frames,
                                                   votecl_vote_plan_info *info);

/** Computes the histogram of n elements from host memory.
 * x: borrowed, n * channels elements of dtype (may be NULL when n == 0);
 * y: borrowed, second array for two_arrays 2-D histograms, else NULL;
 * weights: borrowed, n floats when weighted, else NULL;
 * bins: caller-owned output of nbins uint32_t (float when weighted), overwritten; the typed
 * calls below say which in their signature.
 * On failure bins is left untouched. */
VOTECL_API votecl_status votecl_hist_run(votecl_hist_plan *plan, const void *x, const void *y,
                                         const float *weights, size_t n, void *bins);

/** Histograms of frames equal-size frames stored one after another (each n elements; y and
 * weights likewise when used) into frames consecutive histograms in bins (caller-owned,
 * frames * nbins entries). Each frame is an independent vote space. */
VOTECL_API votecl_status votecl_hist_run_batch(votecl_hist_plan *plan, const void *x,
                                               const void *y, const float *weights, size_t n,
                                               size_t frames, void *bins);

/** The histogram of an image view (any stride). The image's dtype and channels must match
 * the plan's; 2-D histograms of two arrays are not possible here. */
VOTECL_API votecl_status votecl_hist_run_image(votecl_hist_plan *plan, const votecl_image *image,
                                               void *bins);

/** Typed forms of the calls above: the bins' C type says what the plan computes, and a plan
 * of the other kind is VOTECL_INVALID_ARGUMENT naming bins (the untyped calls stay for
 * callers that choose at run time). _u32: counts, the plan not weighted; _f32: sums of the
 * f32 weights (borrowed, n per frame), the plan weighted. Arguments otherwise as in
 * votecl_hist_run(), votecl_hist_run_batch() and votecl_hist_run_image(). */
VOTECL_API votecl_status votecl_hist_run_u32(votecl_hist_plan *plan, const void *x,
                                             const void *y, size_t n, uint32_t *bins);
/** votecl_hist_run() of a weighted plan into f32 bins: see votecl_hist_run_u32(). */
VOTECL_API votecl_status votecl_hist_run_f32(votecl_hist_plan *plan, const void *x,
                                             const void *y, const float *weights, size_t n,
                                             float *bins);
/** votecl_hist_run_batch() of a plan not weighted into u32 bins: see votecl_hist_run_u32(). */
VOTECL_API votecl_status votecl_hist_run_batch_u32(votecl_hist_plan *plan, const void *x,
                                                   const void *y, size_t n, size_t frames,
                                                   uint32_t *bins);
/** votecl_hist_run_batch() of a weighted plan into f32 bins: see votecl_hist_run_u32(). */
VOTECL_API votecl_status votecl_hist_run_batch_f32(votecl_hist_plan *plan, const void *x,
                                                   const void *y, const float *weights,
                                                   size_t n, size_t frames, float *bins);
/** votecl_hist_run_image() of a plan not weighted into u32 bins: see votecl_hist_run_u32(). */
VOTECL_API votecl_status votecl_hist_run_image_u32(votecl_hist_plan *plan,
                                                   const votecl_image *image, uint32_t *bins);

/** As votecl_hist_run_batch() with everything in device buffers of the plan's context:
 * x (n * frames elements from byte 0), y and weights (NULL when unused) are borrowed;
 * bins receives frames * nbins entries from byte 0. Asynchronous: the call queues the work
 * and returns; votecl_buffer_read() or votecl_context_finish() waits for it. */
VOTECL_API votecl_status votecl_hist_run_buffers(votecl_hist_plan *plan, votecl_buffer *x,
                                                 votecl_buffer *y, votecl_buffer *weights,
                                                 size_t n, size_t frames, votecl_buffer *bins);

/** Histograms of a masked plan (params.masked): as votecl_hist_run_batch() with mask
 * (borrowed, n bytes per frame, frames one after another): element i votes only where
 * mask[i] is nonzero. The calls without a mask refuse a masked plan, and these an unmasked
 * one, with VOTECL_INVALID_ARGUMENT naming mask; a NULL mask (n > 0) likewise. */
VOTECL_API votecl_status votecl_hist_run_masked(votecl_hist_plan *plan, const void *x,
                                                const void *y, const float *weights,
                                                const uint8_t *mask, size_t n, size_t frames,
                                                void *bins);

/** votecl_hist_run_masked() with everything in device buffers (as votecl_hist_run_buffers()):
 * mask holds n * frames bytes from byte 0. A masked weighted 2-D histogram of two arrays is
 * refused when the plan is made (its mask has no slot: interleave x and y). Asynchronous. */
VOTECL_API votecl_status votecl_hist_run_masked_buffers(votecl_hist_plan *plan, votecl_buffer *x,
                                                        votecl_buffer *y, votecl_buffer *weights,
                                                        votecl_buffer *mask, size_t n,
                                                        size_t frames, votecl_buffer *bins);

#ifdef __cplusplus
}
#endif

#endif
