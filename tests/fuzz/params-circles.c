/* fuzz-params: the circle Hough transform (tests/fuzz/params.h). */
#include "params.h"

#include <stdlib.h>

/* Runs only what a ref execution affords: the votes are edges x radii x circle points. */
static int
affordable(const votecl_circles_plan *plan, const votecl_circles_params *p, size_t pixels)
{
    unsigned spaces;
    uint32_t cols, rows;
    uint64_t radii = (uint64_t)(p->max_radius > p->min_radius ? p->max_radius - p->min_radius : 0);

    votecl_circles_plan_shape(plan, &spaces, &cols, &rows);
    if ((uint64_t)spaces * cols * rows > WORK)
        return 0;
    if (p->method == VOTECL_CIRCLES_RADII)
        return (uint64_t)pixels * spaces * (8 * (uint64_t)p->max_radius + 8) <= 16 * (uint64_t)WORK;
    /* gradient: a max_radius of 0 means the larger side */
    return (uint64_t)pixels * 2 * (radii + cols + rows + 3) <= 16 * (uint64_t)WORK;
}

void
fuzz_circles(reader *r)
{
    votecl_circles_params p;
    votecl_circles_plan *plan = (votecl_circles_plan *)&plan;
    size_t w = 1 + take8(r) % 64, h = 1 + take8(r) % 64;
    votecl_status status;

    votecl_circles_params_init(&p, (votecl_circles_method)(take8(r) & 1));
    mutate(r, &p, &circles_fields);
    take_any_sides(r, &w, &h);
    status = votecl_circles_plan_new(ctx, &p, w, h, &plan);
    CHECK_NEW_OR_RETURN(status, plan);
    (void)votecl_circles_plan_radius(plan, take_u32(r));
    size_t capacity = take_count(r, 64), found = 0;
    votecl_circle *circles = take_items(r, &capacity, sizeof *circles);
    votecl_image v = take_view(r, VOTECL_DTYPE_U8, 1, w, h);
    view_kind k = classify(&v);
    if (k == VIEW_BAD || (k == VIEW_FITS && affordable(plan, &p, pixels_of(&v)))) {
        status = votecl_circles_run(plan, &v, circles, capacity, &found, NULL);
        check_view_call(&v, status);
        if (status == VOTECL_OK && p.max_circles != 0)
            FUZZ_CHECK(found <= p.max_circles);
    }
    (void)votecl_circles_plan_accumulator(plan);
    free(circles);
    votecl_circles_plan_free(plan);
}
