/* The sum in the tests that call every algorithm (tests/cases.h). */
#include "cases.h"

static votecl_status
sum_make(votecl_context *context, void **object)
{
    votecl_sum_params p;
    votecl_sum_params_init(&p, VOTECL_DTYPE_U8);
    return votecl_sum_plan_new(context, &p, (votecl_sum_plan **)object);
}

TC_RUN(sum_run, double, votecl_sum_run(object, tc_in.image, sizeof tc_in.image, o));

TC_DESTROY(sum_destroy, votecl_sum_plan_free);

TC_PARAMS_INIT(sum_params_init, votecl_sum_params_init(p, VOTECL_DTYPE_U32));

TC_PARAMS_CALL(sum_call, votecl_sum_plan, votecl_sum_plan_new(context, p, &plan));

static const tc_params sum_params[] = {
    {sizeof(votecl_sum_params), sum_params_init, sum_call, 0},
};

static const tc_case sum_cases[] = {
    {TC_CASE("sum", sizeof(double), sum_make, sum_run, sum_destroy)},
};

TC_ALGORITHM(sum, &sum_cases[0]);
