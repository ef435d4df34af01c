/* Finding a shape with the generalized Hough transform: a template's pose in a scene.
 *
 * Ballard's GHT (on the GPU: Chen and Xu, "Generalized Hough transform on GPU") stores the
 * template's edges as vectors to its centre, indexed by gradient angle (the R-table); every
 * edge of the scene votes for the centres it could belong to. Guil's fast GHT (Gomez-Luna et
 * al., "Parallelization of the generalized Hough transform on GPU") also finds rotation and
 * scale: the same calls with VOTECL_GHT_GUIL.
 *
 * Build: cc ght.c $(pkg-config --cflags --libs votecl) -lm
 * Run:   ./ght   (exit status 0: the shape was found where it was put; 77: no device) */
#include <votecl.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define TW 48
#define TH 40
#define SW 200
#define SH 150
#define PUT_X 120 /* where the template's top-left corner goes in the scene */
#define PUT_Y 70

/* An L-shaped bright figure: no symmetry, so one pose only. */
static int
in_shape(int x, int y)
{
    return (x >= 8 && x < 20 && y >= 6 && y < 34) || (x >= 8 && x < 40 && y >= 24 && y < 34);
}

static void
make_images(uint8_t *templ, uint8_t *scene)
{
    for (int y = 0; y < TH; y++)
        for (int x = 0; x < TW; x++)
            templ[y * TW + x] = in_shape(x, y) ? 220 : 20;
    for (int y = 0; y < SH; y++)
        for (int x = 0; x < SW; x++) {
            int tx = x - PUT_X, ty = y - PUT_Y;
            int inside = tx >= 0 && tx < TW && ty >= 0 && ty < TH && in_shape(tx, ty);
            scene[y * SW + x] = inside ? 220 : 20;
        }
    /* a distractor: a bright square */
    for (int y = 20; y < 50; y++)
        for (int x = 20; x < 50; x++)
            scene[y * SW + x] = 220;
}

int
main(void)
{
    static uint8_t templ[TW * TH], scene[SW * SH];
    votecl_image template_view = {templ, TW, TH, TW, 1, VOTECL_DTYPE_U8};
    votecl_image scene_view = {scene, SW, SH, SW, 1, VOTECL_DTYPE_U8};
    votecl_context *ctx = NULL;
    votecl_ght_params params;
    votecl_ght_model *model = NULL;
    votecl_ght_pose poses[4];
    size_t found = 0;
    votecl_status status;
    int started;
    /* the template's centre is its middle, ((W - 1) / 2, (H - 1) / 2) */
    double want_x = PUT_X + (TW - 1) / 2.0, want_y = PUT_Y + (TH - 1) / 2.0;

    make_images(templ, scene);
    if ((started = example_context("ght", &ctx)) != 0)
        return started;
    votecl_ght_params_init(&params, VOTECL_GHT_BALLARD); /* position only: no rotation, scale 1 */
    params.max_detections = 1;
    status = votecl_ght_model_new(ctx, &params, &template_view, &model);
    if (status == VOTECL_OK)
        status = votecl_ght_detect(model, &scene_view, poses, 4, &found);
    if (status != VOTECL_OK) {
        example_fail("ght", ctx, NULL, status);
        votecl_ght_model_free(model);
        votecl_context_free(ctx);
        return 1;
    }
    for (size_t i = 0; i < found && i < 4; i++)
        printf("pose %zu: centre (%.1f, %.1f), angle %.1f, scale %.2f, %u votes\n", i, poses[i].x,
               poses[i].y, poses[i].angle, poses[i].scale, poses[i].votes);
    printf("put at (%.1f, %.1f)\n", want_x, want_y);
    votecl_ght_model_free(model);
    votecl_context_free(ctx);
    return found >= 1 && fabs(poses[0].x - want_x) <= 2 && fabs(poses[0].y - want_y) <= 2 ? 0 : 1;
}
