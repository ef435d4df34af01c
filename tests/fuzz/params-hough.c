/* fuzz-params: the theta-rho Hough transform (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
fuzz_hough(reader *r)
{
    votecl_hough_params p;
    votecl_hough_plan *plan = (votecl_hough_plan *)&plan;
    size_t w = 1 + take8(r) % 64, h = 1 + take8(r) % 64;
    unsigned angles;
    uint32_t rho;
    votecl_status status;

    votecl_hough_params_init(&p);
    mutate(r, &p, &hough_fields);
    take_any_sides(r, &w, &h);
    status = votecl_hough_plan_new(ctx, &p, w, h, &plan);
    CHECK_NEW_OR_RETURN(status, plan);
    votecl_hough_plan_shape(plan, &angles, &rho);
    FUZZ_CHECK(angles >= 1 && rho >= 1 && (uint64_t)angles * rho <= VOTECL_VOTE_MAX_BINS);
    (void)votecl_hough_plan_theta(plan, take_u32(r));
    (void)votecl_hough_plan_rho(plan, take_u32(r));
    size_t capacity = take_count(r, 64), found = 0;
    votecl_hough_line *lines = take_items(r, &capacity, sizeof *lines);
    /* the peak search costs G N n^2: only affordable ones run */
    if ((uint64_t)angles * rho * p.peak_window * p.peak_window > 64 * (uint64_t)WORK) {
        free(lines);
        votecl_hough_plan_free(plan);
        return;
    }
    if (take8(r) & 1) {
        votecl_image v = take_view(r, VOTECL_DTYPE_U8, 1, w, h);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) * angles <= 4 * WORK)) {
            status = votecl_hough_run(plan, &v, lines, capacity, &found, NULL);
            check_view_call(&v, status);
        }
    } else if ((uint64_t)angles * rho * 4 <= POOL) {
        status = votecl_hough_plan_peaks(plan, (const uint32_t *)pool, lines, capacity, &found);
        check_status(status);
    }
    free(lines);
    votecl_hough_plan_free(plan);
}
