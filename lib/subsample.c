/* Image sub-sampling by an integer factor as location-based number voting finished to means
 * (GPU-vote section 4): three user functions on the generic engine, reading the output width
 * and the factor from the constant table. */
#include "votecl-private.h"

#include <stdlib.h>
#include <string.h>

#include "subsample-private.h"
#include "vote-private.h"

struct votecl_subsample_plan {
    votecl_context *context;
    votecl_subsample_params params;
    size_t out_width, out_height;
    float table[3];          /* W / f, f, f * f */
    votecl_vote_plan *vote;  /* NULL on the ref backend and for an empty output */
};

/* Pixel (x, y) votes into bin (y / f) * (W / f) + x / f; x beyond the last whole block is
 * skipped here, y beyond it by the engine's index range. Both fit in 32 bits unwrapped:
 * coordinates are below 2^16. */
static const char subsample_source[] =
    "/* vote_table: W / f, f, f * f */\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    uint ow = (uint)vote_table[0], f = (uint)vote_table[1];\n"
    "    uint bx = vote_x(index) / f;\n"
    "    return bx < ow ? vote_y(index) / f * ow + bx : VOTE_SKIP;\n"
    "}\n"
    "float vote_value(uint space, uint index, VALUE_T value) { return (float)value; }\n"
    "float vote_finish(uint space, uint bin, float total) { return total / vote_table[2]; }\n";

void
votecl_subsample_params_init(votecl_subsample_params *params, size_t width, size_t height,
                             unsigned factor, votecl_dtype dtype)
{
    VOTECL__PARAMS_INIT_OR_RETURN(params);
    params->width = width;
    params->height = height;
    params->factor = factor;
    params->dtype = dtype;
    params->variant = VOTECL_VARIANT_AUTO;
}

#define BAD(...) votecl__fail(context, VOTECL_INVALID_ARGUMENT, __VA_ARGS__)

static votecl_status
check_params(votecl_context *context, const void *params)
{
    const votecl_subsample_params *p = params;

    if (p->dtype != VOTECL_DTYPE_U8 && p->dtype != VOTECL_DTYPE_F32)
        return BAD("dtype: sub-sampling takes u8 or f32 images, not %s",
                   votecl__dtype_text(p->dtype, (char[VOTECL__DTYPE_TEXT]){0}));
    if (p->width < 1 || p->width > VOTECL_SUBSAMPLE_MAX_SIDE)
        return BAD("width: %zu is not between 1 and %u", p->width, VOTECL_SUBSAMPLE_MAX_SIDE);
    if (p->height < 1 || p->height > VOTECL_SUBSAMPLE_MAX_SIDE)
        return BAD("height: %zu is not between 1 and %u", p->height,
                   VOTECL_SUBSAMPLE_MAX_SIDE);
    if (p->factor < 1)
        return BAD("factor: must be at least 1");
    if (votecl_variant_name(p->variant) == NULL)
        return BAD("variant: unknown value %d", (int)p->variant);
    if ((p->width / p->factor) * (p->height / p->factor) > VOTECL_VOTE_MAX_BINS)
        return BAD("factor: %zu x %zu output pixels exceed %u bins", p->width / p->factor,
                   p->height / p->factor, VOTECL_VOTE_MAX_BINS);
    return VOTECL_OK;
}

static votecl_status
plan_compile(votecl_subsample_plan *plan)
{
    votecl_vote_spec spec;

    votecl_vote_spec_init(&spec);
    spec.dtype = plan->params.dtype;
    spec.channels = 1;
    spec.bin_type = VOTECL_BINS_F32;
    spec.spaces = 1;
    spec.nbins = (uint32_t)(plan->out_width * plan->out_height);
    spec.source = subsample_source;
    spec.table = plan->table;
    spec.table_size = 3;
    spec.variant = plan->params.variant;
    return votecl_vote_plan_new(plan->context, &spec, &plan->vote);
}

static void
plan_init(votecl_subsample_plan *plan, votecl_context *context,
          const votecl_subsample_params *params)
{
    unsigned f = params->factor;

    plan->context = context;
    plan->params = *params;
    plan->out_width = params->width / f;
    plan->out_height = params->height / f;
    /* Whole numbers below 2^24 are exact floats; f * f above that only for empty outputs or
     * f > 4096, where the divisor's rounding stays within the stated margin. */
    plan->table[0] = (float)plan->out_width;
    plan->table[1] = (float)f;
    plan->table[2] = (float)((double)f * f);
}

static votecl_status
plan_new_init(void *plan_, votecl_context *context, const void *params, size_t width, size_t height)
{
    votecl_subsample_plan *plan = plan_;

    plan_init(plan, context, params);
    if (context->backend != VOTECL_BACKEND_REF && plan->out_width * plan->out_height > 0)
        return plan_compile(plan);
    return VOTECL_OK;
}

VOTECL__PLAN_OPS(votecl_subsample_plan, votecl_subsample_plan_free, .check_in = check_params,
                 .init = plan_new_init);

votecl_status
votecl_subsample_plan_new(votecl_context *context, const votecl_subsample_params *params,
                          votecl_subsample_plan **out)
{
    VOTECL__ENTER_OR_RETURN(context);
    return votecl__plan_new_of(&plan_ops, context, params, 0, 0, out);
}

void
votecl_subsample_plan_free(votecl_subsample_plan *plan)
{
    if (plan == NULL)
        return;
    votecl_vote_plan_free(plan->vote);
    free(plan);
}

void
votecl_subsample_plan_output_size(const votecl_subsample_plan *plan, size_t *width,
                                  size_t *height)
{
    if (width != NULL)
        *width = plan != NULL ? plan->out_width : 0;
    if (height != NULL)
        *height = plan != NULL ? plan->out_height : 0;
}

votecl_status
votecl_subsample_plan_describe(const votecl_subsample_plan *plan, votecl_vote_plan_info *info)
{
    if (plan == NULL)
        return VOTECL_INVALID_ARGUMENT;
    return votecl__vote_plan_describe_of(plan->context, plan->vote,
                                         plan->context->backend == VOTECL_BACKEND_REF
                                             ? "the ref backend runs the sequential reference"
                                             : "an empty output runs nothing",
                                         plan->params.width * plan->params.height, info);
}

#undef BAD
#define BAD(...) votecl__fail(plan->context, VOTECL_INVALID_ARGUMENT, __VA_ARGS__)

static votecl_status
check_image(votecl_subsample_plan *plan, const votecl_image *image)
{
    const votecl_subsample_params *p = &plan->params;
    size_t row_bytes, pixels;
    votecl_status status =
        votecl__image_check(plan->context, image, p->dtype, 1, &row_bytes, &pixels);

    if (status == VOTECL_OK && (image->width != p->width || image->height != p->height))
        return BAD("image.width, image.height: %zu x %zu is not the plan's %zu x %zu",
                   image->width, image->height, p->width, p->height);
    return status;
}

votecl_status
votecl_subsample_run(votecl_subsample_plan *plan, const votecl_image *image, float *out,
                     size_t capacity)
{
    size_t count;
    votecl_status status;

    VOTECL__ENTER_OBJ_OR_RETURN(plan);
    if ((status = check_image(plan, image)) != VOTECL_OK)
        return status;
    count = plan->out_width * plan->out_height;
    if (count == 0)
        return VOTECL_OK;
    if (out == NULL)
        return BAD("out: NULL pointer");
    if (capacity < count)
        return BAD("capacity: %zu floats is less than the %zu x %zu output", capacity,
                   plan->out_width, plan->out_height);
    if (plan->vote == NULL) {
        votecl__subsample_ref(image, plan->params.factor, out);
        return VOTECL_OK;
    }
    return votecl_vote_run_image(plan->vote, image, out, NULL);
}
