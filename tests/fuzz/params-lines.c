/* fuzz-params: PClines (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
fuzz_lines(reader *r)
{
    votecl_lines_params p;
    votecl_lines_plan *plan = (votecl_lines_plan *)&plan;
    size_t w = 1 + take8(r) % 64, h = 1 + take8(r) % 64, capacity, found = 0;
    uint32_t columns, rows;
    votecl_status status;
    votecl_lines_line *lines;

    votecl_lines_params_init(&p);
    mutate(r, &p, &lines_fields);
    take_any_sides(r, &w, &h);
    /* The TS space is allocated with the plan: valid but huge ones (up to 2^31 cells) are
     * not what is fuzzed; those past the limit must be refused. */
    if (w <= VOTECL_LINES_MAX_SIDE && h <= VOTECL_LINES_MAX_SIDE) {
        uint64_t big = w > h ? w : h;
        uint64_t d = p.distance != 0 ? p.distance : (big + 1) / 2;
        uint64_t cells = 2 * (d > p.neighbourhood || p.distance != 0 ? d : p.neighbourhood) *
                         (p.rows != 0 ? p.rows : big);
        if (cells > (1u << 24) && cells <= INT32_MAX)
            return;
    }
    status = votecl_lines_plan_new(ctx, &p, w, h, &plan);
    CHECK_NEW_OR_RETURN(status, plan);
    votecl_lines_plan_shape(plan, &columns, &rows);
    capacity = take_count(r, 64);
    lines = take_items(r, &capacity, sizeof *lines);
    switch (take8(r) % 3) {
    case 0: {
        votecl_image v = take_view(r, take8(r) & 1 ? VOTECL_DTYPE_F32 : VOTECL_DTYPE_U8, 1, w, h);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) * columns <= 4 * WORK))
            check_view_call(&v, votecl_lines_run(plan, &v, lines, capacity, &found));
        break;
    }
    case 1: {
        size_t n = take_count(r, 4096);
        if (n <= POOL / sizeof(votecl_lines_edge) && n * columns <= 4 * WORK)
            check_status(votecl_lines_run_edges(plan, (const votecl_lines_edge *)pool, n, lines,
                                                capacity, &found));
        break;
    }
    case 2: {
        size_t cap = take_size(r);
        uint32_t *space = take_output(r, cap, 4);
        check_status(votecl_lines_plan_read_space(plan, space, space != NULL ? cap : 0));
        free(space);
        break;
    }
    }
    free(lines);
    votecl_lines_plan_free(plan);
}
