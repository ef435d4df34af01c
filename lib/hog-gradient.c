/* HOG's gradient stage (cl/hog.cl's hog_gradient_all; cl/hog-cpu.cl's hog_level_px* and
 * hog_gradient_px*): stages 1-3 of every job, the level resized from the source, padded
 * (reflect-101) and its gradients' two weighted magnitudes and two bins per pixel. */
#include "hog-detector.h"

/* The block kernels: one work-item per gradient pixel; the first zeroes the count of the
 * windows hog_svm_all keeps (no fill queued). */
votecl_status
votecl__hog_gradient_block(votecl_hog *hog)
{
    hog_buffers *b = &hog->buf;
    size_t local = hog->context->info.max_work_group_size >= 128 ? 128 : 1;
    size_t global = votecl__round_up(hog->npix, local);
    votecl__arg args[] = {VOTECL__ARG_BUF(hog->source ? hog->source : b->image),
                          VOTECL__ARG_UINT(hog->conv_w),
                          VOTECL__ARG_UINT(hog->ch),
                          VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_UINT(hog->njobs),
                          VOTECL__ARG_UINT(hog->npix),
                          VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_BUF(b->lut),
                          VOTECL__ARG_BUF(b->grad),
                          VOTECL__ARG_BUF(b->bins),
                          VOTECL__ARG_BUF(b->hits)};

    return votecl__launch(hog->context, hog->kernels[K_GRADIENT], 1, &global, &local, args, 11);
}

/* The row kernels: stages 1-2 (the padded level of every job, each pixel resized once),
 * then stage 3 from it, a work-item per pixel. */
votecl_status
votecl__hog_gradient_rows(votecl_hog *hog)
{
    hog_buffers *b = &hog->buf;
    int three = hog->ch == 3;
    votecl__arg level[] = {VOTECL__ARG_BUF(hog->source ? hog->source : b->image),
                           VOTECL__ARG_UINT(hog->conv_w),
                           VOTECL__ARG_UINT(hog->conv_h),
                           VOTECL__ARG_BUF(b->tab),
                           VOTECL__ARG_BUF(b->tab),
                           VOTECL__ARG_UINT(hog->rowtab),
                           VOTECL__ARG_BUF(b->level)};
    votecl__arg grad[] = {VOTECL__ARG_BUF(b->level),   VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_BUF(b->tab),     VOTECL__ARG_UINT(hog->rowtab + hog->nprows),
                          VOTECL__ARG_UINT(hog->npix), VOTECL__ARG_BUF(b->grad),
                          VOTECL__ARG_BUF(b->bins)};
    votecl_status s;

    /* hog_level_px*: 8 columns a work-item (the tile is a multiple of 8) */
    s = votecl__hog_launch_rows(hog, three ? K_LEVEL3 : K_LEVEL, (hog->max_pw + 7) / 8,
                                hog->tile / 8, hog->nprows, level, 7);
    /* gray: 8 pixels a work-item (hog_gradient_px1) */
    if (s == VOTECL_OK && three)
        s = votecl__hog_launch_rows(hog, K_GRADIENT3, hog->max_pw - 2, hog->tile, hog->nrows, grad,
                                    7);
    else if (s == VOTECL_OK)
        s = votecl__hog_launch_rows(hog, K_GRADIENT, (hog->max_pw - 2 + 7) / 8, hog->tile / 8,
                                    hog->nrows, grad, 7);
    return s;
}
