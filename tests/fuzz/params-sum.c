/* fuzz-params: the sum (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
fuzz_sum(reader *r)
{
    votecl_sum_params p;
    votecl_sum_plan *plan = (votecl_sum_plan *)&plan;
    votecl_status status;
    double sum = 0;

    votecl_sum_params_init(&p, (votecl_dtype)(take8(r) % 6));
    p.variant = (votecl_variant)(take8(r) % 5);
    mutate(r, &p, &sum_fields);
    status = votecl_sum_plan_new(ctx, &p, &plan);
    CHECK_NEW_OR_RETURN(status, plan);
    if (take8(r) & 1) {
        size_t n = take_size(r);
        if (n <= POOL / 4 && n <= WORK)
            check_status(votecl_sum_run(plan, take8(r) == 0 ? NULL : pool, n, &sum));
        else if (n > POOL && take8(r) == 0) {
            status = votecl_sum_run(plan, NULL, n, &sum); /* NULL data: refused */
            check_status(status);
            FUZZ_CHECK(status != VOTECL_OK);
        }
    } else {
        votecl_image v =
            take_view(r, p.dtype, 1 + take8(r) % 4, 1 + take8(r) % 64, 1 + take8(r) % 64);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) * v.channels <= WORK))
            check_view_call(&v, votecl_sum_run_image(plan, &v, &sum));
    }
    votecl_sum_plan_free(plan);
}
