/* Circles in the tests that call every algorithm (tests/cases.h): the gradient method on the
 * 64 x 48 gray image and the per-radius method on the 96 x 72 edge image, small radii and
 * low thresholds so that both find circles in random data. Every backend's circles equal the
 * reference's exactly (the votes are integers; the float steps run on the host). */
#include "cases.h"

typedef struct circles_out {
    size_t found;
    votecl_circle circles[8];
} circles_out;

static void
small_params(votecl_circles_params *p, votecl_circles_method method)
{
    votecl_circles_params_init(p, method);
    p->min_radius = 3;
    p->max_radius = 12;
    p->votes = 4;
    p->min_xdistance = p->min_ydistance = 4;
}

static votecl_status
gradient_make(votecl_context *context, void **object)
{
    votecl_circles_params p;
    small_params(&p, VOTECL_CIRCLES_GRADIENT);
    return votecl_circles_plan_new(context, &p, 64, 48, (votecl_circles_plan **)object);
}

static votecl_status
radii_make(votecl_context *context, void **object)
{
    votecl_circles_params p;
    small_params(&p, VOTECL_CIRCLES_RADII);
    return votecl_circles_plan_new(context, &p, 96, 72, (votecl_circles_plan **)object);
}

TC_RUN(gradient_run, circles_out,
       votecl_circles_run(object, &tc_view_gray, o->circles, 8, &o->found, NULL));

TC_RUN(radii_run, circles_out,
       votecl_circles_run(object, &tc_view_edges, o->circles, 8, &o->found, NULL));

TC_DESTROY(circles_destroy, votecl_circles_plan_free);

TC_ITEMS_FN(circles_differ, TC_DIFFER, circles_out, circles,
            TC_FIELD_DIFFERS(x, y, x) || TC_FIELD_DIFFERS(x, y, y) ||
                TC_FIELD_DIFFERS(x, y, radius) || TC_FIELD_DIFFERS(x, y, score) ||
                TC_FIELD_DIFFERS(x, y, votes));

TC_PARAMS_INIT(circles_params_init, votecl_circles_params_init(p, VOTECL_CIRCLES_GRADIENT));

TC_PARAMS_CALL(circles_call, votecl_circles_plan,
               votecl_circles_plan_new(context, p, 32, 32, &plan));

static const tc_params circles_params[] = {
    {sizeof(votecl_circles_params), circles_params_init, circles_call, TC_PARAMS_OK},
};

static const tc_case circles_cases[] = {
    {TC_CASE("circles", sizeof(circles_out), gradient_make, gradient_run, circles_destroy),
     .differ = circles_differ},
    {TC_CASE("circles-radii", sizeof(circles_out), radii_make, radii_run, circles_destroy),
     .differ = circles_differ},
};

TC_ALGORITHM(circles, &circles_cases[0]);
