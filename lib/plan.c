/* The one constructor of every plan module (histogram, sum, subsample, vote, and the frame
 * plans hough, lines, circles): the caller's arguments and struct size checked, the module's
 * own check, allocation, the module's init, and the plan freed through its release on any
 * failure. Each module describes itself in a votecl__plan_ops (votecl-private.h). */
#include "votecl-private.h"

#include <stdio.h>

static votecl_status
plan_check(const votecl__plan_ops *ops, votecl_context *context, const void *params, size_t width,
           size_t height)
{
    char msg[256];
    votecl_status status;

    if (ops->check_in != NULL)
        return ops->check_in(context, params);
    if (ops->check == NULL)
        return VOTECL_OK;
    if ((status = ops->check(params, width, height, msg, sizeof msg)) != VOTECL_OK)
        return votecl__fail(context, status, "%s", msg);
    return VOTECL_OK;
}

votecl_status
votecl__frame_check(size_t width, size_t height, unsigned max_side, char *msg, size_t msg_size)
{
    if (width < 1 || width > max_side)
        snprintf(msg, msg_size, "width: %zu is not between 1 and %u", width, max_side);
    else if (height < 1 || height > max_side)
        snprintf(msg, msg_size, "height: %zu is not between 1 and %u", height, max_side);
    else if (width * height > VOTECL__MAX_IMAGE_PIXELS) /* both <= 65535: no overflow */
        snprintf(msg, msg_size, "width x height: %zu x %zu is above %zu pixels", width, height,
                 VOTECL__MAX_IMAGE_PIXELS);
    else
        return VOTECL_OK;
    return VOTECL_INVALID_ARGUMENT;
}

votecl_status
votecl__results_check(votecl_context *context, const size_t *found, const void *items,
                      size_t capacity, const char *name)
{
    if (found == NULL || (items == NULL && capacity > 0))
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            found == NULL ? "found" : name);
    return VOTECL_OK;
}

votecl_status
votecl__plan_new(const votecl__plan_ops *ops, votecl_context *context, const void *params,
                 size_t params_size, size_t width, size_t height, void **out)
{
    const char *name = ops->params_name != NULL ? ops->params_name : "params";
    votecl_status status = votecl__new_begin_sized(context, params, name, params_size, out);
    void *plan;

    if (status != VOTECL_OK)
        return status;
    *out = NULL;
    if ((status = plan_check(ops, context, params, width, height)) != VOTECL_OK)
        return status;
    if ((plan = votecl__calloc(1, ops->size)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a plan");
    if ((status = ops->init(plan, context, params, width, height)) != VOTECL_OK) {
        ops->release(plan);
        return status;
    }
    *out = plan;
    return VOTECL_OK;
}
