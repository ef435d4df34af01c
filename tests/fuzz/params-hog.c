/* fuzz-params: HOG (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A small geometry most of the time, so that runs stay cheap. */
static void
small_hog(votecl_hog_params *p)
{
    p->window_width = 16;
    p->window_height = 32;
    p->block_width = p->block_height = 8;
    p->block_stride_x = p->block_stride_y = 4;
    p->cell_width = p->cell_height = 4;
    p->window_stride_x = p->window_stride_y = 4;
}

void
fuzz_hog(reader *r)
{
    votecl_hog_params p;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = (votecl_hog *)&hog;
    votecl_status status;
    size_t length = 0, w, h, capacity, found = 0, count = 0;

    votecl_hog_params_init(&p);
    if (take8(r) < 200)
        small_hog(&p);
    mutate(r, &p, &hog_fields);
    status = votecl_hog_descriptor_length(&p, &length);
    FUZZ_CHECK(votecl_status_name(status) != NULL);
    if (status == VOTECL_OK && take8(r) < 200) {
        size_t n = take8(r) < 200 ? length : take_size(r);
        if (n <= POOL / 4) {
            model = (votecl_hog_model *)&model;
            status = votecl_hog_model_new(ctx, &p, (const float *)pool, n, take_float(r), &model);
            CHECK_NEW(status, model);
        }
    }
    status = votecl_hog_new(ctx, &p, model, &hog);
    CHECK_NEW(status, hog);
    votecl_hog_model_free(model);
    if (status != VOTECL_OK)
        return;
    w = take_size(r), h = take_size(r);
    check_status(votecl_hog_windows(hog, w, h, NULL, NULL));
    capacity = take_count(r, 1 << 16);
    votecl_image v =
        take_view(r, VOTECL_DTYPE_U8, take8(r) & 1 ? 1 : 3, 16 + take8(r) % 48, 32 + take8(r) % 48);
    view_kind k = classify(&v);
    int run = k == VIEW_BAD || (k == VIEW_FITS && pixels_of(&v) <= WORK / 16);
    switch (take8(r) % 4) {
    case 0: {
        float *d = take_output(r, capacity, sizeof(float));
        if (run)
            check_view_call(&v, votecl_hog_compute(hog, &v, d, d != NULL ? capacity : 0, &count));
        free(d);
        break;
    }
    case 1: {
        votecl_hog_detection *det = take_output(r, capacity % 64, sizeof *det);
        size_t nrois = take8(r) % 4;
        votecl_hog_rect rois[4];
        for (size_t i = 0; i < nrois; i++) {
            rois[i].x = (int32_t)take(r, 4);
            rois[i].y = (int32_t)take(r, 4);
            rois[i].width = (int32_t)take(r, 4);
            rois[i].height = (int32_t)take(r, 4);
            if (take8(r) & 1) {
                rois[i].x %= 64, rois[i].y %= 64;
                rois[i].width %= 80, rois[i].height %= 80;
            }
        }
        /* fusion costs n^2 in the windows (documented): at most about 2000 of them here;
         * levels below scale 1 enlarge the image by 1 / min_scale a side */
        double side = p.min_scale < 1 ? 1 / p.min_scale : 1;
        double stride =
            p.window_stride_x < p.window_stride_y ? p.window_stride_x : p.window_stride_y;
        double windows = ((double)v.width * side / (stride > 0 ? stride : 1) + 1) *
                         ((double)v.height * side / (stride > 0 ? stride : 1) + 1) *
                         (p.max_levels < 64 ? p.max_levels : 64) * (nrois + 1);
        if (p.fusion != VOTECL_HOG_FUSION_NONE && !(windows <= 2000))
            run = k == VIEW_BAD;
        votecl__clear_error(ctx);
        if (run)
            check_view_call(&v, votecl_hog_detect(hog, &v, nrois ? rois : NULL, nrois, det,
                                                  det != NULL ? capacity % 64 : 0, &found));
        free(det);
        break;
    }
    case 2: {
        size_t n = take_count(r, 256);
        votecl_hog_detection *det = take_output(r, capacity % 64, sizeof *det);
        if (n <= 512) /* fusion costs n^2 (mean-shift: 100 n^2 steps) */
            FUZZ_CHECK(votecl_status_name(votecl_hog_fuse(&p, (const votecl_hog_detection *)pool, n,
                                                          det, det != NULL ? capacity % 64 : 0,
                                                          &found)) != NULL);
        free(det);
        break;
    }
    case 3: {
        size_t n = take_count(r, 16);
        float *d = take_output(r, capacity, sizeof(float));
        if (run && n <= 16 && n <= POOL / sizeof(votecl_hog_point))
            check_view_call(&v, votecl_hog_compute_at(ctx, &p, &v,
                                                      (const votecl_hog_point *)(pool + POOL / 2),
                                                      n, d, d != NULL ? capacity : 0));
        free(d);
        break;
    }
    }
    votecl_hog_free(hog);
}
