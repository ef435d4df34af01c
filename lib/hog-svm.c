/* HOG's SVM stage (cl/hog.cl's hog_svm_all; cl/hog-cpu.cl's hog_svm_px): stage 6 of every
 * job, each window's score, the bias plus the model's weights dotted with its descriptor. */
#include "hog-detector.h"

static float
bias(const votecl_hog *hog)
{
    float b;

    votecl_hog_model_get(hog->model, NULL, NULL, &b);
    return b;
}

/* The block kernels: one work-group per window. */
votecl_status
votecl__hog_svm_block(votecl_hog *hog)
{
    size_t local = hog->local, global = hog->nscores * local;
    votecl__arg args[] = {VOTECL__ARG_BUF(hog->buf.hist), VOTECL__ARG_BUF(hog->buf.tab),
                          VOTECL__ARG_UINT(hog->njobs),   VOTECL__ARG_BUF(hog->buf.svm),
                          VOTECL__ARG_FLOAT(bias(hog)),   VOTECL__ARG_BUF(hog->buf.scores)};

    return votecl__launch(hog->context, hog->kernels[K_SVM], 1, &global, &local, args, 6);
}

/* The row kernels: a work-item per HOG_SVM_LANES windows of a window row, from the
 * transposed blocks. */
votecl_status
votecl__hog_svm_rows(votecl_hog *hog)
{
    votecl__arg px[] = {VOTECL__ARG_BUF(hog->buf.histt),
                        VOTECL__ARG_BUF(hog->buf.tab),
                        VOTECL__ARG_BUF(hog->buf.tab),
                        VOTECL__ARG_UINT(hog->rowtab + hog->nprows + hog->nrows + hog->nbrows),
                        VOTECL__ARG_BUF(hog->buf.svm),
                        VOTECL__ARG_FLOAT(bias(hog)),
                        VOTECL__ARG_BUF(hog->buf.scores)};

    return votecl__hog_launch_rows(hog, K_SVM, (hog->max_nwx + HOG_SVM_LANES - 1) / HOG_SVM_LANES,
                                   HOG_SVM_LOCAL, hog->nwrows, px, 7);
}
