/* The histogram in the tests that call every algorithm (tests/cases.h): 100 bins of u8. */
#include "cases.h"

#define HIST_BINS 100

static votecl_status
hist_make(votecl_context *context, void **object)
{
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.nbins[0] = HIST_BINS;
    return votecl_hist_plan_new(context, &p, (votecl_hist_plan **)object);
}

TC_RUN(hist_run, uint32_t, votecl_hist_run(object, tc_in.image, NULL, NULL, sizeof tc_in.image, o));

TC_DESTROY(hist_destroy, votecl_hist_plan_free);

TC_PARAMS_INIT(hist_params_init, votecl_hist_params_init(p, VOTECL_DTYPE_U8));

TC_PARAMS_CALL(hist_call, votecl_hist_plan, votecl_hist_plan_new(context, p, &plan));

static const tc_params hist_params[] = {
    {sizeof(votecl_hist_params), hist_params_init, hist_call, TC_PARAMS_OK},
};

static const tc_case hist_cases[] = {
    {TC_CASE("hist", HIST_BINS * 4, hist_make, hist_run, hist_destroy)},
};

TC_ALGORITHM(hist, &hist_cases[0]);
