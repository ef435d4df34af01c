/* Sum of all elements as a one-bin vote (GPU-vote section 4): a spec of two user functions
 * on the generic engine, run in chunks small enough that a u32 bin cannot wrap. */
#include "votecl-private.h"

#include <stdlib.h>
#include <string.h>

#include "sum-private.h"
#include "vote-private.h"

/* f32 runs are chunked too, so that the engine's 32-bit element indices never overflow. */
#define SUM_F32_RUN_MAX ((size_t)1 << 30)
/* The engine's image runs pack locations into 16 bits per coordinate. */
#define SUM_IMAGE_MAX_SIDE 65535u

struct votecl_sum_plan {
    votecl_context *context;
    votecl_dtype dtype;
    votecl_vote_plan *vote; /* NULL on the ref backend */
};

/* Every element votes its value into bin 0. */
static const char sum_source_u8[] =
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins) { return 0u; }\n"
    "uint vote_value(uint space, uint index, VALUE_T value) { return (uint)value; }\n";
static const char sum_source_f32[] =
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins) { return 0u; }\n"
    "float vote_value(uint space, uint index, VALUE_T value) { return value; }\n";

/* Partial sums of the engine's runs: u8 in 64-bit integers (exact), f32 in double. */
typedef struct sum_acc {
    uint64_t u;
    double f;
} sum_acc;

void
votecl_sum_params_init(votecl_sum_params *params, votecl_dtype dtype)
{
    VOTECL__PARAMS_INIT_OR_RETURN(params);
    params->dtype = dtype;
    params->variant = VOTECL_VARIANT_AUTO;
}

static votecl_status
check_params(votecl_context *context, const void *params_)
{
    const votecl_sum_params *params = params_;

    if (params->dtype != VOTECL_DTYPE_U8 && params->dtype != VOTECL_DTYPE_F32)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "dtype: sums take u8 or f32 data, not %s",
                            votecl__dtype_text(params->dtype, (char[VOTECL__DTYPE_TEXT]){0}));
    if (votecl_variant_name(params->variant) == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "variant: unknown value %d",
                            (int)params->variant);
    return VOTECL_OK;
}

static votecl_status
plan_compile(votecl_sum_plan *plan, const votecl_sum_params *params)
{
    votecl_vote_spec spec;

    votecl_vote_spec_init(&spec);
    spec.dtype = params->dtype;
    spec.channels = 1;
    spec.spaces = 1;
    spec.nbins = 1;
    spec.variant = params->variant;
    if (params->dtype == VOTECL_DTYPE_U8) {
        spec.bin_type = VOTECL_BINS_U32;
        spec.source = sum_source_u8;
    } else {
        spec.bin_type = VOTECL_BINS_F32;
        spec.source = sum_source_f32;
    }
    return votecl_vote_plan_new(plan->context, &spec, &plan->vote);
}

static votecl_status
plan_new_init(void *plan_, votecl_context *context, const void *params_, size_t width,
              size_t height)
{
    votecl_sum_plan *plan = plan_;
    const votecl_sum_params *params = params_;

    plan->context = context;
    plan->dtype = params->dtype;
    return context->backend != VOTECL_BACKEND_REF ? plan_compile(plan, params) : VOTECL_OK;
}

VOTECL__PLAN_OPS(votecl_sum_plan, votecl_sum_plan_free, .check_in = check_params,
                 .init = plan_new_init);

votecl_status
votecl_sum_plan_new(votecl_context *context, const votecl_sum_params *params,
                    votecl_sum_plan **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    return votecl__plan_new_of(&plan_ops, context, params, 0, 0, out);
}

void
votecl_sum_plan_free(votecl_sum_plan *plan)
{
    if (plan == NULL)
        return;
    votecl_vote_plan_free(plan->vote);
    free(plan);
}

votecl_status
votecl_sum_plan_describe(const votecl_sum_plan *plan, size_t elements,
                         votecl_vote_plan_info *info)
{
    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    return votecl__vote_plan_describe_of(
        plan->context, plan->vote, "the ref backend runs the sequential reference, not the engine",
        elements, info);
}

static size_t
run_max(votecl_dtype dtype)
{
    return dtype == VOTECL_DTYPE_U8 ? VOTECL_SUM_U8_RUN_MAX : SUM_F32_RUN_MAX;
}

static void
acc_add(sum_acc *acc, votecl_dtype dtype, const void *bin)
{
    if (dtype == VOTECL_DTYPE_U8) {
        uint32_t u;
        memcpy(&u, bin, sizeof u);
        acc->u += u;
    } else {
        float f;
        memcpy(&f, bin, sizeof f);
        acc->f += f;
    }
}

static double
acc_value(const sum_acc *acc, votecl_dtype dtype)
{
    return dtype == VOTECL_DTYPE_U8 ? (double)acc->u : acc->f;
}

/* n elements as 1-D runs of at most run_max() elements each. */
static votecl_status
run_array(votecl_sum_plan *plan, const unsigned char *data, size_t n, sum_acc *acc)
{
    size_t size = votecl_dtype_size(plan->dtype), max = run_max(plan->dtype);
    unsigned char bin[4];
    votecl_status status = VOTECL_OK;

    for (size_t done = 0, chunk; done < n && status == VOTECL_OK; done += chunk) {
        chunk = n - done < max ? n - done : max;
        status = votecl_vote_run(plan->vote, data + done * size, chunk, bin, NULL);
        if (status == VOTECL_OK)
            acc_add(acc, plan->dtype, bin);
    }
    return status;
}

/* A strided image whose rows have at most SUM_IMAGE_MAX_SIDE elements (its channels are
 * viewed as one-channel elements), as image runs of whole rows. */
static votecl_status
run_rows(votecl_sum_plan *plan, const votecl_image *image, sum_acc *acc)
{
    size_t row_elements = image->width * image->channels;
    size_t rows_max = run_max(plan->dtype) / row_elements;
    votecl_image view = *image;
    unsigned char bin[4];
    votecl_status status = VOTECL_OK;

    if (rows_max > SUM_IMAGE_MAX_SIDE)
        rows_max = SUM_IMAGE_MAX_SIDE;
    view.width = row_elements;
    view.channels = 1;
    for (size_t y = 0; y < image->height && status == VOTECL_OK; y += view.height) {
        view.data = (const unsigned char *)image->data + y * image->stride;
        view.height = image->height - y < rows_max ? image->height - y : rows_max;
        status = votecl_vote_run_image(plan->vote, &view, bin, NULL);
        if (status == VOTECL_OK)
            acc_add(acc, plan->dtype, bin);
    }
    return status;
}

/* Packed rows are one array; strided rows go row-chunk by row-chunk, or one by one when a
 * row is too wide for an image run. */
static votecl_status
run_image(votecl_sum_plan *plan, const votecl_image *image, size_t row_bytes, sum_acc *acc)
{
    size_t row_elements = image->width * image->channels;
    votecl_status status = VOTECL_OK;

    if (image->stride == row_bytes || image->height == 1)
        return run_array(plan, image->data, row_elements * image->height, acc);
    if (row_elements <= SUM_IMAGE_MAX_SIDE)
        return run_rows(plan, image, acc);
    for (size_t y = 0; y < image->height && status == VOTECL_OK; y++)
        status = run_array(plan, (const unsigned char *)image->data + y * image->stride,
                           row_elements, acc);
    return status;
}

votecl_status
votecl_sum_run(votecl_sum_plan *plan, const void *data, size_t n, double *sum)
{
    sum_acc acc = {0, 0.0};
    size_t bytes;
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    if (sum == NULL || (data == NULL && n > 0))
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            sum == NULL ? "sum" : "data");
    /* n elements from data must fit in the address space (n = SIZE_MAX of u8 does not
     * overflow the multiplication but cannot exist). */
    if (votecl__mul_overflow(n, votecl_dtype_size(plan->dtype), &bytes) ||
        bytes > (size_t)PTRDIFF_MAX || (uintptr_t)data > UINTPTR_MAX - bytes)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT,
                            "n: %zu elements overflow the address space", n);
    if (plan->vote == NULL) {
        *sum = votecl__sum_ref(plan->dtype, data, n);
        return VOTECL_OK;
    }
    if ((status = run_array(plan, data, n, &acc)) == VOTECL_OK)
        *sum = acc_value(&acc, plan->dtype);
    return status;
}

static votecl_status
check_image(votecl_sum_plan *plan, const votecl_image *image, size_t *row_bytes)
{
    size_t pixels;

    /* any of 1-4 channels: the sum adds every element */
    return votecl__image_check(plan->context, image, plan->dtype, 0, row_bytes, &pixels);
}

votecl_status
votecl_sum_run_image(votecl_sum_plan *plan, const votecl_image *image, double *sum)
{
    sum_acc acc = {0, 0.0};
    size_t row_bytes = 0;
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    if (sum == NULL)
        return votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, "sum: NULL pointer");
    if ((status = check_image(plan, image, &row_bytes)) != VOTECL_OK)
        return status;
    if (image->width == 0 || image->height == 0) {
        *sum = 0.0;
        return VOTECL_OK;
    }
    if (plan->vote == NULL) {
        *sum = votecl__sum_ref_image(image);
        return VOTECL_OK;
    }
    if ((status = run_image(plan, image, row_bytes, &acc)) == VOTECL_OK)
        *sum = acc_value(&acc, plan->dtype);
    return status;
}
