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

static const tc_case sum_cases[] = {
    {.name = "sum",
     .out_size = sizeof(double),
     .make = sum_make,
     .run = sum_run,
     .destroy = sum_destroy},
};

const tc_algorithm tc_sum = {"sum", sum_cases, G_N_ELEMENTS(sum_cases), &sum_cases[0]};
