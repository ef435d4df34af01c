/* fuzz-params: the generalized Hough transform (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Edges from the pool: n of them with coordinates wrapped into w x h most of the time. */
static votecl_ght_edge *
take_edges(reader *r, size_t n, size_t w, size_t h)
{
    votecl_ght_edge *e = (votecl_ght_edge *)(pool + POOL / 2);
    int wrap = take8(r) < 230;

    if (n > POOL / 2 / sizeof *e)
        return NULL;
    for (size_t i = 0; i < n && wrap && w > 0 && h > 0; i++) {
        e[i].x %= (uint32_t)(w < UINT32_MAX ? w : UINT32_MAX);
        e[i].y %= (uint32_t)(h < UINT32_MAX ? h : UINT32_MAX);
        e[i].gx = e[i].gx % 2048;
        e[i].gy = e[i].gy % 2048;
    }
    return e;
}

void
fuzz_ght(reader *r)
{
    votecl_ght_params p;
    votecl_ght_model *model = (votecl_ght_model *)&model;
    votecl_status status;
    size_t w = 1 + take8(r) % 48, h = 1 + take8(r) % 48, n, capacity, found = 0;

    votecl_ght_params_init(&p, take8(r) & 1 ? VOTECL_GHT_BALLARD : VOTECL_GHT_GUIL);
    /* a narrow search, so that detection stays cheap */
    p.angle_step = 30;
    p.scale_step = 0.5;
    mutate(r, &p, &ght_fields);
    /* Detection costs pairings x rotations and scales examined x the tolerance: valid but
     * large searches are validated, not run. */
    int cheap = p.max_rotations <= 4 && p.max_scales <= 4 && p.angle_epsilon <= 4 &&
                (p.max_angle - p.min_angle) / p.angle_step <= 400 &&
                (p.max_scale - p.min_scale) / p.scale_step <= 40;
    if (take8(r) & 1) {
        votecl_image v = take_view(r, VOTECL_DTYPE_U8, 1, w, h);
        view_kind k = classify(&v);
        if (k == VIEW_TOO_BIG || (k == VIEW_FITS && pixels_of(&v) > 4096))
            return;
        status = votecl_ght_model_new(ctx, &p, &v, &model);
        if (k == VIEW_BAD || v.data == NULL)
            FUZZ_CHECK(status != VOTECL_OK);
    } else {
        n = take_count(r, 512);
        if (n > 256)
            return;
        votecl_ght_edge *e = take_edges(r, n, w, h);
        status = votecl_ght_model_new_edges(ctx, &p, e, n, take8(r) > 240 ? take_size(r) : w, h,
                                            take_double(r), take_double(r), &model);
    }
    CHECK_NEW_OR_RETURN(status, model);
    if (!cheap) {
        votecl_ght_model_free(model);
        return;
    }
    capacity = take_count(r, 16);
    votecl_ght_pose *poses = take_items(r, &capacity, sizeof *poses);
    if (take8(r) & 1) {
        votecl_image v = take_view(r, VOTECL_DTYPE_U8, 1, 1 + take8(r) % 64, 1 + take8(r) % 64);
        view_kind k = classify(&v);
        if (k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) <= 4096))
            check_view_call(&v, votecl_ght_detect(model, &v, poses, capacity, &found));
    } else {
        size_t iw = 1 + take8(r) % 64, ih = 1 + take8(r) % 64;
        n = take_count(r, 512);
        votecl_ght_edge *e = n <= 64 ? take_edges(r, n, iw, ih) : NULL; /* n^2 pairings */
        if (e != NULL)
            check_status(votecl_ght_detect_edges(model, e, n, iw, ih, poses, capacity, &found));
    }
    free(poses);
    votecl_ght_model_free(model);
}
