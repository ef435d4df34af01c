/** @file
 * libvotecl: sum and image sub-sampling, two reductions written as votes ("GPU-vote: a
 * framework for accelerating voting algorithms on GPU", section 4).
 *
 * Both are thin layers over the generic engine of votecl-vote.h: each builds a
 * votecl_vote_spec of a few lines of OpenCL C and runs it; neither has kernels of its own.
 * They show how far the voting model reaches, not the fastest way to reduce: the paper
 * measures the sum 12-14% and sub-sampling 2.6x slower than hand-written kernels.
 *
 * Sum: every element casts its value as a number vote into a single bin.
 *   u8 data votes u32 numbers into a u32 bin. One bin wraps after 2^32 - 1, which more than
 *   (2^32 - 1) / 255 = 16843009 elements can reach, so the library votes at most that many
 *   elements per engine run and adds the runs' bins on the host in 64-bit integers: the
 *   sum of u8 data is exact for any n.
 *   f32 data votes f32 numbers into an f32 bin. The order of the additions depends on the
 *   strategy, so the result differs from the exact sum by rounding: at most
 *   (n - 1) * 2^-24 * sum |x_i| (the worst-case bound of any summation order), usually far
 *   less; exact when every partial sum is an integer below 2^24. NaN and infinities
 *   propagate as in IEEE arithmetic.
 *
 * Sub-sampling by an integer factor f: location-based number voting finished to means.
 *   Pixel (x, y) of a W x H image votes its value into bin (y / f) * (W / f) + x / f of
 *   (W / f) x (H / f) f32 bins; vote_finish divides each bin by f * f. Pixels of the partial
 *   blocks at the right and bottom edges (x >= (W / f) * f or y >= (H / f) * f) cast no vote.
 *   A factor larger than the image gives an empty output (0 columns or rows): the plan is
 *   valid and a run writes nothing. Output pixel values: for u8 input with f <= 256 the block
 *   sums are exact integers, and the mean agrees with the reference's (float)sum / (f * f)
 *   to a few units in the last place (OpenCL C does not round division correctly); for f32
 *   input the block sum carries the rounding of the sum above, over f * f terms. */
#ifndef VOTECL_REDUCE_H
#define VOTECL_REDUCE_H

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

/** Largest number of u8 elements one engine run sums into a u32 bin without wrapping. */
#define VOTECL_SUM_U8_RUN_MAX ((size_t)(UINT32_MAX / 255u))

/* --- sum --------------------------------------------------------------------------- */

/** Parameters of a sum plan; fill with votecl_sum_params_init() first. */
typedef struct votecl_sum_params {
    size_t struct_size;     /**< set by the _init function: see votecl.h */
    votecl_dtype dtype;     /**< VOTECL_DTYPE_U8 or VOTECL_DTYPE_F32 */
    votecl_variant variant; /**< AUTO: the plan chooses (VOTECL_FORCE_VARIANT overrides) */
} votecl_sum_params;

/** Defaults for dtype: variant AUTO. */
VOTECL_API void votecl_sum_params_init(votecl_sum_params *params, votecl_dtype dtype);

/** A sum of elements of one dtype on the device (opaque). */
typedef struct votecl_sum_plan votecl_sum_plan;

/** Validates params and compiles the vote (or finds it in the caches). params: borrowed.
 * out: caller-owned. On a 'ref' context the plan runs the sequential reference.
 * Returns VOTECL_INVALID_ARGUMENT naming the field, VOTECL_BUILD_FAILED,
 * VOTECL_KERNEL_NOT_FOUND, VOTECL_OUT_OF_*_MEMORY, VOTECL_DEVICE_ERROR. */
VOTECL_API votecl_status votecl_sum_plan_new(votecl_context *context,
                                             const votecl_sum_params *params,
                                             votecl_sum_plan **out);

/** Frees a plan; NULL is a no-op. */
VOTECL_API void votecl_sum_plan_free(votecl_sum_plan *plan);

/** The sum of n elements of the plan's dtype. data: borrowed (may be NULL when n is 0).
 * sum: caller-owned output, 0 for n = 0; untouched on failure. */
VOTECL_API votecl_status votecl_sum_run(votecl_sum_plan *plan, const void *data, size_t n,
                                        double *sum);

/** The sum of every element of an image view (any stride, any number of channels: all
 * channels are summed). The image's dtype must be the plan's. sum: caller-owned output. */
VOTECL_API votecl_status votecl_sum_run_image(votecl_sum_plan *plan, const votecl_image *image,
                                              double *sum);

/** The engine's strategy for sums of 'elements' elements. info: caller-owned output.
 * Returns VOTECL_UNSUPPORTED on a 'ref' context. */
VOTECL_API votecl_status votecl_sum_plan_describe(const votecl_sum_plan *plan, size_t elements,
                                                  votecl_vote_plan_info *info);

/* --- sub-sampling ------------------------------------------------------------------ */

/** Largest image side (the engine packs locations into 16 bits per coordinate). */
#define VOTECL_SUBSAMPLE_MAX_SIDE 65535u

/** Parameters of a sub-sampling plan; fill with votecl_subsample_params_init() first. */
typedef struct votecl_subsample_params {
    size_t struct_size;     /**< set by the _init function: see votecl.h */
    size_t width;           /**< of the input image, 1 .. VOTECL_SUBSAMPLE_MAX_SIDE */
    size_t height;          /**< of the input image, 1 .. VOTECL_SUBSAMPLE_MAX_SIDE */
    unsigned factor;        /**< f >= 1 */
    votecl_dtype dtype;     /**< VOTECL_DTYPE_U8 or VOTECL_DTYPE_F32; one channel */
    votecl_variant variant; /**< AUTO: the plan chooses (VOTECL_FORCE_VARIANT overrides) */
} votecl_subsample_params;

/** Defaults: the given size, factor and dtype, variant AUTO. */
VOTECL_API void votecl_subsample_params_init(votecl_subsample_params *params, size_t width,
                                             size_t height, unsigned factor,
                                             votecl_dtype dtype);

/** A sub-sampling by block sums for one image size and factor (opaque). */
typedef struct votecl_subsample_plan votecl_subsample_plan;

/** Validates params and compiles the vote (or finds it in the caches). params: borrowed.
 * out: caller-owned. An empty output (factor above width or height) needs no device work
 * and compiles nothing. On a 'ref' context the plan runs the sequential reference.
 * Returns VOTECL_INVALID_ARGUMENT naming the field, VOTECL_BUILD_FAILED,
 * VOTECL_KERNEL_NOT_FOUND, VOTECL_OUT_OF_*_MEMORY, VOTECL_DEVICE_ERROR. */
VOTECL_API votecl_status votecl_subsample_plan_new(votecl_context *context,
                                                   const votecl_subsample_params *params,
                                                   votecl_subsample_plan **out);

/** Frees a plan; NULL is a no-op. */
VOTECL_API void votecl_subsample_plan_free(votecl_subsample_plan *plan);

/** The output size, width / factor by height / factor. width, height: caller-owned outputs
 * (either may be NULL). */
VOTECL_API void votecl_subsample_plan_output_size(const votecl_subsample_plan *plan,
                                                  size_t *width, size_t *height);

/** Sub-samples an image view (any stride) of the plan's size and dtype, one channel.
 * out: caller-owned output of capacity floats, of which the (W / f) * (H / f) means are
 * written row by row (row r at out + r * (W / f)). Returns VOTECL_INVALID_ARGUMENT naming
 * the field when the image does not match the plan or capacity is too small; out is then
 * untouched. */
VOTECL_API votecl_status votecl_subsample_run(votecl_subsample_plan *plan,
                                              const votecl_image *image, float *out,
                                              size_t capacity);

/** The engine's strategy for one run. info: caller-owned output. Returns VOTECL_UNSUPPORTED
 * on a 'ref' context or for an empty output. */
VOTECL_API votecl_status votecl_subsample_plan_describe(const votecl_subsample_plan *plan,
                                                        votecl_vote_plan_info *info);

#ifdef __cplusplus
}
#endif

#endif
