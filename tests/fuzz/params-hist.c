/* fuzz-params: histograms (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
fuzz_hist(reader *r)
{
    votecl_hist_params p;
    votecl_hist_plan *plan = (votecl_hist_plan *)&plan;
    votecl_status status;
    uint64_t nbins;
    size_t n, frames, es;
    void *bins;

    votecl_hist_params_init(&p, (votecl_dtype)(1 + take8(r) % 4));
    if (take8(r) & 1)
        votecl_hist_params_set_2d(&p, take_u32(r), take_double(r), take_double(r), take_u32(r),
                                  take_double(r), take_double(r));
    mutate(r, &p, &hist_fields);
    status = votecl_hist_plan_new(ctx, &p, &plan);
    CHECK_NEW_OR_RETURN(status, plan);
    nbins = votecl_hist_plan_nbins(plan);
    FUZZ_CHECK(nbins >= 1 && nbins <= VOTECL_HIST_MAX_BINS);
    es = votecl_dtype_size(p.dtype);
    n = take_size(r);
    frames = take8(r) < 200 ? 1 : take_size(r);
    bins = take_output(r, nbins * (frames < 4 ? frames : 4), 4);
    switch (take8(r) % 4) {
    case 0:
    case 1: {
        /* n elements per frame, frames frames, all from the pool */
        size_t total, bytes;
        int fits = !__builtin_mul_overflow(n, frames, &total) &&
                   !__builtin_mul_overflow(total, (size_t)p.channels * 4, &bytes) &&
                   bytes <= POOL && total <= WORK;
        if (n > UINT32_MAX && frames > 0) {
            status = votecl_hist_run_batch(plan, pool, pool, (const float *)pool, n, frames, bins);
            check_status(status);
            FUZZ_CHECK(status != VOTECL_OK);
        } else if (fits && bins != NULL && frames <= 4) {
            status =
                votecl_hist_run_batch(plan, pool, p.two_arrays ? pool : NULL,
                                      p.weighted ? (const float *)pool : NULL, n, frames, bins);
            check_status(status);
        }
        break;
    }
    case 2: {
        votecl_image v = take_view(r, p.dtype, p.channels, 1 + take8(r) % 64, take8(r) % 64);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) <= WORK && bins != NULL))
            check_view_call(&v, votecl_hist_run_image(plan, &v, bins));
        break;
    }
    case 3: {
        votecl_vote_plan_info info;
        check_status(votecl_hist_plan_describe(plan, take_size(r), take_size(r), &info));
        break;
    }
    }
    (void)es;
    free(bins);
    votecl_hist_plan_free(plan);
}
