/* Hough lines in the tests that call every algorithm (tests/cases.h): 90 angles on the
 * 96 x 72 edge image. */
#include "cases.h"

typedef struct hough_out {
    size_t found;
    votecl_hough_line lines[8];
} hough_out;

static votecl_status
hough_make(votecl_context *context, void **object)
{
    votecl_hough_params p;
    votecl_hough_params_init(&p);
    p.angles = 90;
    return votecl_hough_plan_new(context, &p, 96, 72, (votecl_hough_plan **)object);
}

TC_RUN(hough_run, hough_out,
       votecl_hough_run(object, &tc_view_edges, o->lines, 8, &o->found, NULL));

TC_DESTROY(hough_destroy, votecl_hough_plan_free);

TC_ITEMS_FN(hough_differ, TC_DIFFER, hough_out, lines,
            TC_FIELD_DIFFERS(x, y, theta) || TC_FIELD_DIFFERS(x, y, rho) ||
                TC_FIELD_DIFFERS(x, y, votes) || TC_FIELD_DIFFERS(x, y, angle) ||
                TC_FIELD_DIFFERS(x, y, bin));

/* Against the reference: the integer fields (bins and votes) exactly. */
TC_ITEMS_FN(hough_matches, TC_MATCH, hough_out, lines,
            x->angle != y->angle || x->bin != y->bin || x->votes != y->votes);

TC_PARAMS_INIT(hough_params_init, votecl_hough_params_init(p));

TC_PARAMS_CALL(hough_call, votecl_hough_plan, votecl_hough_plan_new(context, p, 32, 32, &plan));

static const tc_params hough_params[] = {
    {sizeof(votecl_hough_params), hough_params_init, hough_call, TC_PARAMS_OK},
};

static const tc_case hough_cases[] = {
    {TC_CASE("hough", sizeof(hough_out), hough_make, hough_run, hough_destroy),
     .differ = hough_differ, .matches = hough_matches},
};

TC_ALGORITHM(hough, &hough_cases[0]);
