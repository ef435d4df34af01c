/* Sub-sampling in the tests that call every algorithm (tests/cases.h): 64 x 48 by 4. */
#include "cases.h"

#include <math.h>

#define SUB_OUT (16 * 12)

static votecl_status
subsample_make(votecl_context *context, void **object)
{
    votecl_subsample_params p;
    votecl_subsample_params_init(&p, 64, 48, 4, VOTECL_DTYPE_U8);
    return votecl_subsample_plan_new(context, &p, (votecl_subsample_plan **)object);
}

TC_RUN(subsample_run, float, votecl_subsample_run(object, &tc_view_gray, o, SUB_OUT));

TC_DESTROY(subsample_destroy, votecl_subsample_plan_free);

/* The documented margin: a few units in the last place. */
static int
subsample_matches(const void *pa, const void *pb)
{
    const float *a = pa, *b = pb;
    for (size_t i = 0; i < SUB_OUT; i++)
        if (fabs(a[i] - b[i]) > 1e-6 * fmax(1.0, fabs(b[i])))
            return 0;
    return 1;
}

TC_PARAMS_INIT(subsample_params_init, votecl_subsample_params_init(p, 8, 8, 2, VOTECL_DTYPE_U8));

static const tc_params subsample_params[] = {
    {sizeof(votecl_subsample_params), subsample_params_init, NULL, 0},
};

static const tc_case subsample_cases[] = {
    {TC_CASE("subsample", SUB_OUT * 4, subsample_make, subsample_run, subsample_destroy),
     .matches = subsample_matches},
};

TC_ALGORITHM(subsample, &subsample_cases[0]);
