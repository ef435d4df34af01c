/* The API's conventions as a user meets them: the struct_size scheme of every parameter
 * struct (votecl.h), dtype names in messages, the theta-rho Hough refusing a gray image and
 * its explicit edge step, the typed histogram entry points, and OpenCV's HOG model files. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- struct_size --- */

/* Every _init sets struct_size to the size of its struct. */
static void
test_struct_size_init(void)
{
    votecl_context_options co;
    votecl_hist_params hp;
    votecl_vote_spec vs;
    votecl_hough_params hg;
    votecl_lines_params lp;
    votecl_sum_params sp;
    votecl_subsample_params ss;
    votecl_ght_params gp;
    votecl_hog_params og;
    votecl_calibrate_options cal;

    memset(&co, 0xff, sizeof co), votecl_context_options_init(&co);
    memset(&hp, 0xff, sizeof hp), votecl_hist_params_init(&hp, VOTECL_DTYPE_U8);
    memset(&vs, 0xff, sizeof vs), votecl_vote_spec_init(&vs);
    memset(&hg, 0xff, sizeof hg), votecl_hough_params_init(&hg);
    memset(&lp, 0xff, sizeof lp), votecl_lines_params_init(&lp);
    memset(&sp, 0xff, sizeof sp), votecl_sum_params_init(&sp, VOTECL_DTYPE_U8);
    memset(&ss, 0xff, sizeof ss), votecl_subsample_params_init(&ss, 8, 8, 2, VOTECL_DTYPE_U8);
    memset(&gp, 0xff, sizeof gp), votecl_ght_params_init(&gp, VOTECL_GHT_GUIL);
    memset(&og, 0xff, sizeof og), votecl_hog_params_init(&og);
    memset(&cal, 0xff, sizeof cal), votecl_calibrate_options_init(&cal);
    g_assert_cmpuint(co.struct_size, ==, sizeof co);
    g_assert_cmpuint(hp.struct_size, ==, sizeof hp);
    g_assert_cmpuint(vs.struct_size, ==, sizeof vs);
    g_assert_cmpuint(hg.struct_size, ==, sizeof hg);
    g_assert_cmpuint(lp.struct_size, ==, sizeof lp);
    g_assert_cmpuint(sp.struct_size, ==, sizeof sp);
    g_assert_cmpuint(ss.struct_size, ==, sizeof ss);
    g_assert_cmpuint(gp.struct_size, ==, sizeof gp);
    g_assert_cmpuint(og.struct_size, ==, sizeof og);
    g_assert_cmpuint(cal.struct_size, ==, sizeof cal);
}

/* The three answers of the check, for a struct: status and message for 0, larger, smaller. */
static void
expect_sizes(votecl_context *ctx, size_t *field, size_t good,
             votecl_status (*call)(votecl_context *, void *), void *data)
{
    const size_t bad[] = {0, good + 8, good - 1};
    const votecl_status want[] = {VOTECL_INVALID_ARGUMENT, VOTECL_UNSUPPORTED,
                                  VOTECL_INVALID_ARGUMENT};

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        *field = bad[i];
        g_assert_cmpint(call(ctx, data), ==, want[i]);
        if (ctx != NULL)
            g_assert_nonnull(strstr(votecl_context_get_error(ctx), ".struct_size: "));
    }
    *field = good;
}

static votecl_status
call_hough(votecl_context *ctx, void *p)
{
    votecl_hough_plan *plan = NULL;
    votecl_status status = votecl_hough_plan_new(ctx, p, 32, 32, &plan);

    votecl_hough_plan_free(plan);
    return status;
}

static votecl_status
call_hist(votecl_context *ctx, void *p)
{
    votecl_hist_plan *plan = NULL;
    votecl_status status = votecl_hist_plan_new(ctx, p, &plan);

    votecl_hist_plan_free(plan);
    return status;
}

static votecl_status
call_lines(votecl_context *ctx, void *p)
{
    votecl_lines_plan *plan = NULL;
    votecl_status status = votecl_lines_plan_new(ctx, p, 32, 32, &plan);

    votecl_lines_plan_free(plan);
    return status;
}

static votecl_status
call_ght(votecl_context *ctx, void *p)
{
    static const uint8_t templ[8 * 8] = {0};
    votecl_image image = tu_view_u8(templ, 8, 8);
    votecl_ght_model *model = NULL;
    votecl_status status = votecl_ght_model_new(ctx, p, &image, &model);

    votecl_ght_model_free(model);
    return status;
}

static votecl_status
call_hog(votecl_context *ctx, void *p)
{
    votecl_hog *hog = NULL;
    votecl_status status = votecl_hog_new(ctx, p, NULL, &hog);

    votecl_hog_free(hog);
    return status;
}

static votecl_status
call_hog_length(votecl_context *ctx, void *p)
{
    size_t length;

    (void)ctx;
    return votecl_hog_descriptor_length(p, &length);
}

static votecl_status
call_sum(votecl_context *ctx, void *p)
{
    votecl_sum_plan *plan = NULL;
    votecl_status status = votecl_sum_plan_new(ctx, p, &plan);

    votecl_sum_plan_free(plan);
    return status;
}

static votecl_status
call_context(votecl_context *ctx, void *p)
{
    votecl_context *c = NULL;
    char error[256];
    votecl_status status = votecl_context_new_with_error(p, &c, error, sizeof error);

    (void)ctx;
    if (status != VOTECL_OK)
        g_assert_nonnull(strstr(error, "options.struct_size: "));
    votecl_context_free(c);
    return status;
}

static void
test_struct_size_checked(void)
{
    votecl_context *ctx = tu_ref_context_new();
    votecl_hough_params hg;
    votecl_hist_params hp;
    votecl_lines_params lp;
    votecl_ght_params gp;
    votecl_hog_params og;
    votecl_sum_params sp;
    votecl_context_options co;

    votecl_hough_params_init(&hg);
    expect_sizes(ctx, &hg.struct_size, sizeof hg, call_hough, &hg);
    g_assert_cmpint(call_hough(ctx, &hg), ==, VOTECL_OK);
    votecl_hist_params_init(&hp, VOTECL_DTYPE_U8);
    expect_sizes(ctx, &hp.struct_size, sizeof hp, call_hist, &hp);
    g_assert_cmpint(call_hist(ctx, &hp), ==, VOTECL_OK);
    votecl_lines_params_init(&lp);
    expect_sizes(ctx, &lp.struct_size, sizeof lp, call_lines, &lp);
    votecl_ght_params_init(&gp, VOTECL_GHT_BALLARD);
    expect_sizes(ctx, &gp.struct_size, sizeof gp, call_ght, &gp);
    votecl_hog_params_init(&og);
    expect_sizes(ctx, &og.struct_size, sizeof og, call_hog, &og);
    expect_sizes(NULL, &og.struct_size, sizeof og, call_hog_length, &og);
    g_assert_cmpint(call_hog_length(NULL, &og), ==, VOTECL_OK);
    votecl_sum_params_init(&sp, VOTECL_DTYPE_U32);
    expect_sizes(ctx, &sp.struct_size, sizeof sp, call_sum, &sp);
    votecl_context_options_init(&co);
    co.backend = VOTECL_BACKEND_REF;
    expect_sizes(NULL, &co.struct_size, sizeof co, call_context, &co);
    g_assert_cmpint(call_context(NULL, &co), ==, VOTECL_OK);
    votecl_context_free(ctx);
}

int
main(int argc, char **argv)
{
    int rc;

    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/nodevice/struct-size/init", test_struct_size_init);
    g_test_add_func("/nodevice/struct-size/checked", test_struct_size_checked);
    rc = g_test_run();
    tu_device_contexts_free();
    return rc;
}
