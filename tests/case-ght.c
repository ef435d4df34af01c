/* The generalized Hough in the tests that call every algorithm (tests/cases.h): both
 * methods on a narrow search, the template found shifted in the scene. */
#include "cases.h"

typedef struct ght_out {
    size_t found;
    votecl_ght_pose poses[4];
} ght_out;

static votecl_status
ght_make_method(votecl_context *context, votecl_ght_method method, void **object)
{
    votecl_ght_params p;

    votecl_ght_params_init(&p, method);
    p.levels = 90;
    if (method == VOTECL_GHT_GUIL) {
        p.min_angle = 0;
        p.max_angle = 20;
        p.angle_step = 5;
        p.min_scale = 0.9;
        p.max_scale = 1.1;
        p.scale_step = 0.1;
        p.max_rotations = 2;
        p.max_scales = 1;
    }
    return votecl_ght_model_new(context, &p, &tc_view_template, (votecl_ght_model **)object);
}

static votecl_status
guil_make(votecl_context *context, void **object)
{
    return ght_make_method(context, VOTECL_GHT_GUIL, object);
}

static votecl_status
ballard_make(votecl_context *context, void **object)
{
    return ght_make_method(context, VOTECL_GHT_BALLARD, object);
}

TC_RUN(ght_run, ght_out, votecl_ght_detect(object, &tc_view_scene, o->poses, 4, &o->found));

TC_DESTROY(ght_destroy, votecl_ght_model_free);

TC_ITEMS_FN(ght_differ, TC_DIFFER, ght_out, poses,
            TC_FIELD_DIFFERS(x, y, x) || TC_FIELD_DIFFERS(x, y, y) ||
                TC_FIELD_DIFFERS(x, y, angle) || TC_FIELD_DIFFERS(x, y, scale) ||
                TC_FIELD_DIFFERS(x, y, votes) || TC_FIELD_DIFFERS(x, y, angle_votes) ||
                TC_FIELD_DIFFERS(x, y, scale_votes));

/* Against the reference: the pose and its votes exactly. */
TC_ITEMS_FN(ght_matches, TC_MATCH, ght_out, poses,
            x->x != y->x || x->y != y->y || x->angle != y->angle || x->scale != y->scale ||
                x->votes != y->votes);

TC_PARAMS_INIT(ght_params_init, votecl_ght_params_init(p, VOTECL_GHT_BALLARD));

static votecl_status
ght_call(votecl_context *context, void *p)
{
    static const uint8_t templ[8 * 8] = {0};
    votecl_image image = tu_view_u8(templ, 8, 8);
    votecl_ght_model *model = NULL;
    votecl_status status = votecl_ght_model_new(context, p, &image, &model);

    votecl_ght_model_free(model);
    return status;
}

static const tc_params ght_params[] = {
    {sizeof(votecl_ght_params), ght_params_init, ght_call, 0},
};

static const tc_case ght_cases[] = {
    {TC_CASE("ght-guil", sizeof(ght_out), guil_make, ght_run, ght_destroy), .differ = ght_differ,
     .matches = ght_matches},
    {TC_CASE("ght-ballard", sizeof(ght_out), ballard_make, ght_run, ght_destroy),
     .differ = ght_differ, .matches = ght_matches},
};

TC_ALGORITHM(ght, &ght_cases[0]);
