/* HOG's block stage (cl/hog.cl's hog_blocks_all; cl/hog-cpu.cl's hog_rowhist_rows and
 * hog_blocks_px): stages 4-5 of every job, each block's histogram (trilinear weights: the
 * Gaussian times the bilinear cell weight), then its L2-Hys normalisation. */
#include "hog-detector.h"

/* The block kernels: one work-group per block. */
votecl_status
votecl__hog_blocks_block(votecl_hog *hog, int aos)
{
    hog_buffers *b = &hog->buf;
    size_t local = hog->local, global = hog->nblk * local;
    votecl__arg args[] = {VOTECL__ARG_BUF(b->grad),    VOTECL__ARG_BUF(b->bins),
                          VOTECL__ARG_BUF(b->tab),     VOTECL__ARG_UINT(hog->njobs),
                          VOTECL__ARG_BUF(b->weights), VOTECL__ARG_BUF(b->hist)};

    (void)aos; /* hog_blocks_all writes hog.cl's layout, the only one it has */
    return votecl__launch(hog->context, hog->kernels[K_BLOCKS], 1, &global, &local, args, 6);
}

/* The row kernels: each block's partial histogram of each of its pixel rows, then stages
 * 4-5 from those, a work-item per 8 blocks; the blocks in hog.cl's layout too when aos
 * (descriptors), else only transposed for the SVM. */
votecl_status
votecl__hog_blocks_rows(votecl_hog *hog, int aos)
{
    hog_buffers *b = &hog->buf;
    votecl__arg rows[] = {VOTECL__ARG_BUF(b->grad),
                          VOTECL__ARG_BUF(b->bins),
                          VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_BUF(b->tab),
                          VOTECL__ARG_UINT(hog->rowtab + hog->nprows),
                          VOTECL__ARG_UINT(hog->npix),
                          VOTECL__ARG_BUF(b->wx),
                          VOTECL__ARG_BUF(b->rh)};
    votecl__arg blocks[] = {
        VOTECL__ARG_BUF(b->rh),    VOTECL__ARG_BUF(b->tab),
        VOTECL__ARG_BUF(b->tab),   VOTECL__ARG_UINT(hog->rowtab + hog->nprows + hog->nrows),
        VOTECL__ARG_BUF(b->wy),    VOTECL__ARG_BUF(b->hist),
        VOTECL__ARG_BUF(b->histt), VOTECL__ARG_UINT(aos)};
    votecl_status s;

    s = votecl__hog_launch_rows(hog, K_ROWHIST, hog->max_nbx, HOG_BLOCK_LOCAL, hog->nrows, rows, 8);
    if (s == VOTECL_OK)
        s = votecl__hog_launch_rows(hog, K_BLOCKS,
                                    (hog->max_nbx + HOG_BLOCK_LANES - 1) / HOG_BLOCK_LANES,
                                    HOG_SVM_LOCAL, hog->nbrows, blocks, 8);
    return s;
}
