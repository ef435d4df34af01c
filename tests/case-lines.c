/* PClines in the tests that call every algorithm (tests/cases.h): threshold 20 on the
 * 96 x 72 edge image. */
#include "cases.h"

typedef struct pclines_out {
    size_t found;
    votecl_lines_line lines[8];
} pclines_out;

static votecl_status
lines_make(votecl_context *context, void **object)
{
    votecl_lines_params p;
    votecl_lines_params_init(&p);
    p.threshold = 20;
    return votecl_lines_plan_new(context, &p, 96, 72, (votecl_lines_plan **)object);
}

TC_RUN(lines_run, pclines_out, votecl_lines_run(object, &tc_view_edges, o->lines, 8, &o->found));

TC_DESTROY(lines_destroy, votecl_lines_plan_free);

TC_ITEMS_FN(lines_differ, TC_DIFFER, pclines_out, lines,
            TC_FIELD_DIFFERS(x, y, a) || TC_FIELD_DIFFERS(x, y, b) || TC_FIELD_DIFFERS(x, y, c) ||
                TC_FIELD_DIFFERS(x, y, theta) || TC_FIELD_DIFFERS(x, y, rho) ||
                TC_FIELD_DIFFERS(x, y, votes) || TC_FIELD_DIFFERS(x, y, u) ||
                TC_FIELD_DIFFERS(x, y, v) || TC_FIELD_DIFFERS(x, y, column) ||
                TC_FIELD_DIFFERS(x, y, row));

/* Against the reference: the accumulator cell and its votes exactly. */
TC_ITEMS_FN(lines_matches, TC_MATCH, pclines_out, lines,
            x->column != y->column || x->row != y->row || x->votes != y->votes);

TC_PARAMS_INIT(lines_params_init, votecl_lines_params_init(p));

TC_PARAMS_CALL(lines_call, votecl_lines_plan, votecl_lines_plan_new(context, p, 32, 32, &plan));

static const tc_params lines_params[] = {
    {sizeof(votecl_lines_params), lines_params_init, lines_call, 0},
};

static const tc_case lines_cases[] = {
    {TC_CASE("lines", sizeof(pclines_out), lines_make, lines_run, lines_destroy),
     .differ = lines_differ, .matches = lines_matches},
};

TC_ALGORITHM(lines, &lines_cases[0]);
