/* fuzz-params: sub-sampling (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
fuzz_subsample(reader *r)
{
    votecl_subsample_params p;
    votecl_subsample_plan *plan = (votecl_subsample_plan *)&plan;
    votecl_status status;
    size_t ow, oh, capacity;
    float *out;

    votecl_subsample_params_init(&p, take_size(r), take_size(r), take_u32(r),
                                 (votecl_dtype)(take8(r) % 6));
    p.variant = (votecl_variant)(take8(r) % 5);
    mutate(r, &p, &subsample_fields);
    status = votecl_subsample_plan_new(ctx, &p, &plan);
    CHECK_NEW_OR_RETURN(status, plan);
    votecl_subsample_plan_output_size(plan, &ow, &oh);
    FUZZ_CHECK(ow == p.width / p.factor && oh == p.height / p.factor);
    capacity = take8(r) < 128 ? ow * oh : take_size(r);
    out = take_items(r, &capacity, sizeof *out);
    votecl_image v = take_view(r, p.dtype, 1, p.width, p.height);
    view_kind k = classify(&v);
    if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) <= WORK))
        check_view_call(&v, votecl_subsample_run(plan, &v, out, capacity));
    free(out);
    votecl_subsample_plan_free(plan);
}
