/* The sum in the tests that call every algorithm (tests/cases.h). */
#include "cases.h"

static votecl_status
sum_make(votecl_context *context, void **object)
{
    votecl_sum_params p;
    votecl_sum_params_init(&p, VOTECL_DTYPE_U8);
    return votecl_sum_plan_new(context, &p, (votecl_sum_plan **)object);
}

static votecl_status
sum_run(void *object, void *out)
{
    return votecl_sum_run(object, tc_in.image, sizeof tc_in.image, out);
}

static void
sum_destroy(void *object)
{
    votecl_sum_plan_free(object);
}

static void
sum_params_init(void *p)
{
    votecl_sum_params_init(p, VOTECL_DTYPE_U32);
}

static votecl_status
sum_call(votecl_context *context, void *p)
{
    votecl_sum_plan *plan = NULL;
    votecl_status status = votecl_sum_plan_new(context, p, &plan);

    votecl_sum_plan_free(plan);
    return status;
}

static const tc_params sum_params[] = {
    {sizeof(votecl_sum_params), sum_params_init, sum_call, 0},
};

static const tc_case sum_cases[] = {
    {.name = "sum",
     .out_size = sizeof(double),
     .make = sum_make,
     .run = sum_run,
     .destroy = sum_destroy},
};

const tc_algorithm tc_sum = {
    .name = "sum",
    .cases = sum_cases,
    .ncases = G_N_ELEMENTS(sum_cases),
    .concurrent = &sum_cases[0],
    .params = sum_params,
    .nparams = G_N_ELEMENTS(sum_params),
};
