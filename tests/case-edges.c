/* The edge step in the tests that call every algorithm (tests/cases.h): cv2.Canny's
 * semantics on the 64 x 48 gray image. The step has no plan: its object is the context. */
#include "cases.h"

static votecl_status
edges_make(votecl_context *context, void **object)
{
    *object = context;
    return VOTECL_OK;
}

static votecl_status
edges_run(void *object, void *out)
{
    votecl_canny_params p;

    votecl_canny_params_init(&p);
    return votecl_edges_canny(object, &tc_view_gray, &p, out, 64);
}

static void
edges_destroy(void *object)
{
    (void)object; /* the context is the caller's */
}

TC_PARAMS_INIT(edges_params_init, votecl_canny_params_init(p));

static votecl_status
edges_call(votecl_context *context, void *p)
{
    static uint8_t im[8 * 8], out[8 * 8];
    votecl_image v = tu_view_u8(im, 8, 8);

    return votecl_edges_canny(context, &v, p, out, 8);
}

static const tc_params edges_params[] = {
    {sizeof(votecl_canny_params), edges_params_init, edges_call, TC_PARAMS_OK},
};

static const tc_case edges_cases[] = {
    {TC_CASE("edges-canny", 64 * 48, edges_make, edges_run, edges_destroy)},
};

TC_ALGORITHM(edges, &edges_cases[0]);
