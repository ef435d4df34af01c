/* The HOG detector's state and its implementation table: lib/hog.c validates, plans and
 * reads the results back; the table it chooses once per detector (votecl__hog_impl_choose)
 * runs the stages: the reference's on the 'ref' backend (lib/hog-ref-run.c), else on the
 * device cl/hog.cl's block kernels or, on a CPU-shaped OpenCL device, cl/hog-cpu.cl's row
 * kernels (lib/hog-pipeline.c and lib/hog-device.c, and a file per stage of cl/hog.cl:
 * lib/hog-gradient.c, lib/hog-blocks.c, lib/hog-svm.c). Included only by those files.
 *
 * The files and what each calls (no loop; keep it so):
 *   hog.c (validation, the detector, detection and descriptors) -> hog-jobs, hog-geometry,
 *       hog-ref (the source's conversion), hog-fuse, the table's parts
 *   hog-jobs.c (the levels of every region, the job table, the layouts, the windows kept in
 *       hog->raw) -> hog-geometry
 *   hog-pipeline.c (the device runner: the stages in turn) -> hog-gradient, hog-blocks,
 *       hog-svm (through the table), hog-device, hog-jobs (the layout's size)
 *   hog-gradient.c, hog-blocks.c, hog-svm.c -> hog-device (launch_rows); hog-svm also
 *       hog-jobs (the windows kept)
 *   hog-device.c (kernels, constants, buffers, launches) -> hog-jobs (the layout's size),
 *       hog-geometry
 *   hog-ref-run.c (the host runner: the reference's stages) -> hog-ref, hog-geometry,
 *       hog-jobs (the windows kept) */
#ifndef VOTECL_HOG_DETECTOR_H
#define VOTECL_HOG_DETECTOR_H

#include "hog-private.h"

/* Kernels of both kernel sets: the block kernels use the first three. */
enum { K_GRADIENT, K_BLOCKS, K_SVM, K_LEVEL, K_LEVEL3, K_GRADIENT3, K_ROWHIST, K_COUNT };

/* Work-items per work-group along a row (row kernels): per-pixel kernels (a loop PoCL
 * vectorises, or groups of 8 pixels), row histograms, groups of HOG_BLOCK_LANES blocks and of
 * HOG_SVM_LANES windows (hog_blocks_px, hog_svm_px) */
#define HOG_PX_LOCAL 64u
#define HOG_BLOCK_LOCAL 16u
#define HOG_SVM_LOCAL 4u
#define HOG_BLOCK_LANES 8u
#define HOG_SVM_LANES 16u

/* The block kernels' hits: hog_svm_all counts the windows at or above the threshold and keeps
 * the first HOG_HITS (window, score) pairs after the count, so that one read of
 * HOG_HITS_BYTES brings a frame's windows back (the scores of every window only when more
 * are kept). */
#define HOG_HITS 1024u

/* Windows hog_svm_all scores together, each weight load and index step serving all (a power
 * of two; 1: one window at a time, the kernel before them). A build-time switch so that both
 * can be timed on a GPU: -DVOTECL_HOG_SVM_WINDOWS=1 in CPPFLAGS. */
#ifndef VOTECL_HOG_SVM_WINDOWS
#define VOTECL_HOG_SVM_WINDOWS 8u
#endif
/* hog_blocks_all's L2-Hys: 2 passes over the block (the clipped values stored by every
 * lane, 5 barriers) or 1 (lane 0 recomputes them, 3 barriers); the same floats either way.
 * A build-time switch as above: -DVOTECL_HOG_L2HYS_PASSES=1. */
#ifndef VOTECL_HOG_L2HYS_PASSES
#define VOTECL_HOG_L2HYS_PASSES 2u
#endif
#define HOG_HITS_BYTES ((1 + 2 * (size_t)HOG_HITS) * sizeof(uint32_t))

/* The job table of cl/hog.cl: HOG_JOB ints a job, then the resize tables. */
/* clang-format off */
enum {
    J_RX, J_RY, J_RW, J_RH, J_W, J_H, J_PX, J_PY, J_GW, J_GH, J_NBX, J_NBY, J_NWX, J_NWY,
    J_TAB, J_PIX, J_BLK, J_WIN, J_PAD, J_ROW, J_PROW, J_RB, HOG_JOB = 22
};
/* clang-format on */

/* One pyramid level of one region. Every level has its own part of the device buffers, so
 * that one launch per stage does all the levels. */
typedef struct hog_job {
    votecl__hog_level level;
    votecl_hog_rect roi;
    size_t tab;        /* offset of its resize tables after the job table */
    size_t pix;        /* its first gradient pixel */
    size_t pad;        /* its first padded level pixel (row kernels) */
    size_t row, prow;  /* its first gradient row and padded level row (row kernels) */
    size_t brow, wrow; /* its first block row and window row (row kernels) */
    size_t rb;         /* its first row partial histogram (row kernels: gh nbx of them) */
    size_t blk;        /* its first block */
    size_t score;      /* offset of its window scores */
} hog_job;

/* Device buffers: the source, job and resize tables, every level's gradients and blocks, all
 * scores, and the constant tables. */
typedef struct hog_buffers {
    votecl_buffer *image, *tab, *grad, *bins, *hist, *scores, *hits, *level;
    votecl_buffer *lut, *weights, *svm;
    votecl_buffer *rh, *histt, *wx, *wy; /* rows: row histograms, transposed blocks, weights */
} hog_buffers;

/* The detector's own profile (seconds summed over its detections), measured only in a
 * -DVOTECL_HOG_PROFILE build and told through the debug log when it is freed. */
typedef struct votecl__hog_stats {
    double upload, gradient, blocks, svm;
    unsigned long detections;
} votecl__hog_stats;

typedef struct votecl__hog_impl votecl__hog_impl;

struct votecl_hog {
    votecl_context *context;
    votecl_hog_params params;
    votecl__hog_geom geom;
    votecl_hog_model *model;      /* own copy; NULL: descriptors only */
    const votecl__hog_impl *impl; /* the stages (votecl__hog_impl_choose) */
    float lut[256];
    float *block_weights;
    void *kernels[K_COUNT];
    hog_buffers buf;
    votecl__staging conv;  /* the converted source (host; page-locked where the backend
                              offers it, kept between calls) */
    votecl_buffer *source; /* borrowed: the caller's device image in conv's layout
                              (votecl_hog_detect_buffer); NULL: conv is uploaded */
    unsigned ch;           /* its channels: 1 or 3 */
    size_t conv_w, conv_h;
    hog_job *jobs;
    size_t njobs, jobs_cap;
    int32_t *tabs;
    size_t ntabs;
    float *scores;              /* host copy of every job's scores (scores_mem's) */
    votecl__staging scores_mem; /* page-locked where the backend offers it: the read-back
                                   (every score, or the block kernels' hits) */
    size_t nscores;
    size_t npix, nblk;               /* gradient pixels and blocks of every job */
    size_t npad;                     /* padded level pixels of every job (row kernels) */
    size_t nrows, nprows;            /* gradient rows and padded level rows of every job */
    size_t nbrows, nwrows;           /* block rows and window rows of every job */
    size_t nrh;                      /* row partial histograms of every job */
    size_t max_pw, max_nbx, max_nwx; /* the widest padded level, block and window rows */
    size_t rowtab;                   /* rows: the row tables' first pair in tabs */
    /* the jobs and tables above were planned for these (plan(): a video's frames reuse
     * them), and whether buf.tab holds the tables */
    int planned, tabs_on_device;
    size_t plan_w, plan_h, plan_nrois;
    unsigned plan_ch;
    int plan_pyramid;
    votecl_hog_rect *plan_rois;
    unsigned tile;  /* the impl's: buffer rows are whole multiples of it (rows: HOG_TILE) */
    unsigned local; /* HOG_LOCAL: work-group of hog_blocks_all and hog_svm_all */
    int begun;
    votecl_hog_detection *raw;
    size_t nraw, raw_cap;
    votecl__hog_stats stats;
};

/* How an implementation lays its tables out after the job table (lib/hog-jobs.c): the ints
 * of a level's resize tables, all the tables' ints, the resize (and row) tables filled. */
typedef struct votecl__hog_layout {
    size_t (*level_tables)(const votecl_hog *hog, const votecl__hog_level *level);
    size_t (*size)(const votecl_hog *hog);
    votecl_status (*fill)(votecl_hog *hog);
} votecl__hog_layout;

/* Where the stages run (lib/hog-ref-run.c, lib/hog-pipeline.c): every job's window scores
 * begun; job 0's normalised blocks (*hist caller-owned); the windows at or above the
 * threshold waited for and kept in hog->raw (votecl__hog_jobs_keep). */
typedef struct votecl__hog_runner {
    votecl_status (*detect)(votecl_hog *hog);
    votecl_status (*descriptor_blocks)(votecl_hog *hog, float **hist);
    votecl_status (*read_windows)(votecl_hog *hog);
} votecl__hog_runner;

/* One kernel set's stages of every job: kernels built and constant tables uploaded
 * (lib/hog-device.c), the intermediates' buffers beyond the shared ones (NULL: none), stages
 * 1-3 (lib/hog-gradient.c), 4-5 (lib/hog-blocks.c; aos: the blocks in hog.cl's layout too,
 * for descriptors), 6 (lib/hog-svm.c), and the windows at or above the threshold read back
 * into hog->raw (lib/hog-svm.c). */
typedef struct votecl__hog_stages {
    votecl_status (*prepare)(votecl_hog *hog);
    votecl_status (*buffers)(votecl_hog *hog);
    votecl_status (*gradient)(votecl_hog *hog);
    votecl_status (*blocks)(votecl_hog *hog, int aos);
    votecl_status (*svm)(votecl_hog *hog);
    votecl_status (*windows)(votecl_hog *hog);
} votecl__hog_stages;

/* One implementation; a detector's is chosen once (votecl__hog_impl_choose). */
struct votecl__hog_impl {
    const char *name; /* "reference", "block" or "row" */
    unsigned tile;    /* its buffer rows' multiple (1: packed) */
    const votecl__hog_layout *layout;
    const votecl__hog_runner *run;
    const votecl__hog_stages *stages; /* NULL: on the host, where the source and scores stay */
};

extern const votecl__hog_impl votecl__hog_ref_impl, votecl__hog_block_impl, votecl__hog_row_impl;

/* lib/hog.c: the implementation for context (its backend and shape). */
const votecl__hog_impl *votecl__hog_impl_choose(const votecl_context *context);

/* lib/hog-jobs.c: the levels of the regions (none: the whole image) as jobs; the tables; the
 * layouts of the block kernels and the reference (packed) and of the row kernels. */
votecl_status votecl__hog_jobs_plan(votecl_hog *hog, const votecl_hog_rect *rois, size_t nrois,
                                    int pyramid);
votecl_status votecl__hog_jobs_tables(votecl_hog *hog);
/* Window win of every job's windows (jobs in turn, each row after row) kept in hog->raw with
 * its score (OpenCV's box); every window of hog->scores at or above the threshold kept, in
 * that order. */
votecl_status votecl__hog_jobs_keep(votecl_hog *hog, size_t win, float score);
votecl_status votecl__hog_jobs_keep_scores(votecl_hog *hog);
extern const votecl__hog_layout votecl__hog_layout_packed, votecl__hog_layout_rows;

/* lib/hog-device.c: construction for either kernel set; every job's intermediates
 * (allocated once, grown when needed; then the stages' buffers), the source and the tables
 * uploaded; the row kernels' own intermediates; a 2-D launch of the row kernels (n
 * work-items along each of rows rows, work-groups of local items along a row, at most the
 * device's); an upload. */
votecl_status votecl__hog_prepare_block(votecl_hog *hog);
votecl_status votecl__hog_prepare_rows(votecl_hog *hog);
votecl_status votecl__hog_device_buffers(votecl_hog *hog);
votecl_status votecl__hog_buffers_block(votecl_hog *hog);
votecl_status votecl__hog_buffers_rows(votecl_hog *hog);
votecl_status votecl__hog_launch_rows(votecl_hog *hog, int k, size_t n, size_t local, size_t rows,
                                      const votecl__arg *args, unsigned nargs);
votecl_status votecl__hog_upload(votecl_hog *hog, votecl_buffer **buffer, const void *data,
                                 size_t size);

/* The stages of cl/hog.cl, each in the block kernels' and the row kernels' form. */
votecl_status votecl__hog_gradient_block(votecl_hog *hog);
votecl_status votecl__hog_gradient_rows(votecl_hog *hog);
votecl_status votecl__hog_blocks_block(votecl_hog *hog, int aos);
votecl_status votecl__hog_blocks_rows(votecl_hog *hog, int aos);
votecl_status votecl__hog_svm_block(votecl_hog *hog);
votecl_status votecl__hog_svm_rows(votecl_hog *hog);
votecl_status votecl__hog_windows_block(votecl_hog *hog);
votecl_status votecl__hog_windows_rows(votecl_hog *hog);

/* The runners: on the host, the reference's stages (lib/hog-ref-run.c); on the device, the
 * kernel set's stages in turn (lib/hog-pipeline.c). */
extern const votecl__hog_runner votecl__hog_run_host, votecl__hog_run_device;

#endif
