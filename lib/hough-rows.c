/* The theta-rho Hough transform's vote on CPU-shaped devices (cl/hough.cl: hough_points,
 * hough_vote_rows), in place of the generic engine's. The engine's program is specialised
 * by the vote space's size (NBINS and the grid's W and scale are defines), so every image
 * size compiled a program of its own, 1.35-1.72 s on PoCL even after `votecl warmup`; here
 * every size is a kernel argument and one program serves them all. Each work-item owns
 * whole accumulator rows (eight angles), so the vote needs no private copies to zero and
 * merge: on dense edge images the engine's copies of G x N counts cost as much as the votes
 * (docs/performance.md). The bins are votecl__hough_bin()'s: results equal the reference. */
#include "hough-private.h"

#include <stdlib.h>
#include <string.h>

/* Bands of image rows for hough_points: more work-items than any CPU has cores. */
#define ROWS_BANDS 64u
/* Angles per work-item: HOUGH_ROWS of cl/hough.cl. */
#define ROWS_ANGLES 8u

/* The cos column then the sin column, each padded to whole groups of ROWS_ANGLES. */
static votecl_status
write_table(votecl__hough_rows *rows, const votecl__hough_desc *desc)
{
    size_t bytes = 2 * (size_t)rows->stride * sizeof(float);
    float *tab = votecl__calloc(2 * (size_t)rows->stride, sizeof *tab);
    votecl_status status;

    if (tab == NULL)
        return votecl__fail(rows->context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of memory for the cos/sin table");
    for (unsigned g = 0; g < desc->angles; g++) {
        tab[g] = desc->table[2 * g];
        tab[rows->stride + g] = desc->table[2 * g + 1];
    }
    status = votecl_buffer_new(rows->context, bytes, &rows->tab);
    if (status == VOTECL_OK)
        status = votecl_buffer_write(rows->tab, 0, tab, bytes);
    free(tab);
    return status;
}

votecl_status
votecl__hough_rows_init(votecl__hough_rows *rows, votecl_context *context,
                        const votecl__hough_desc *desc)
{
    static const char *const files[] = {"hough.cl", NULL};
    size_t pixels = (size_t)desc->width * desc->height; /* checked by the plan: no overflow */
    votecl__program *program = NULL;
    votecl_status status;

    memset(rows, 0, sizeof *rows);
    rows->context = context;
    rows->desc = desc;
    rows->stride = (uint32_t)votecl__round_up(desc->angles, ROWS_ANGLES);
    rows->band_rows = (desc->height + ROWS_BANDS - 1) / ROWS_BANDS;
    rows->bands = (desc->height + rows->band_rows - 1) / rows->band_rows;
    if ((status = votecl__program_get(context, files, NULL, 0, NULL, &program)) != VOTECL_OK ||
        (status = votecl__program_kernel(context, program, "hough_points", &rows->k_points)) !=
            VOTECL_OK ||
        (status = votecl__program_kernel(context, program, "hough_vote_rows", &rows->k_vote)) !=
            VOTECL_OK ||
        (status = votecl_buffer_new(context, pixels * 4, &rows->points)) != VOTECL_OK ||
        (status = votecl_buffer_new(context, (size_t)rows->bands * 4, &rows->counts)) != VOTECL_OK)
        return status;
    return write_table(rows, desc);
}

void
votecl__hough_rows_release(votecl__hough_rows *rows)
{
    VOTECL__FREE_BUFFERS(rows->points, rows->counts, rows->tab);
    memset(rows, 0, sizeof *rows);
}

/* hough_vote_rows over the points hough_points listed. */
static votecl_status
launch_vote(votecl__hough_rows *rows, votecl_buffer *acc)
{
    const votecl__hough_desc *d = rows->desc;
    size_t one = 1, items = rows->stride / ROWS_ANGLES;
    votecl_status status = votecl__launch(
        rows->context, rows->k_vote, 1, &items, &one,
        (votecl__arg[]){
            VOTECL__ARG_BUF(rows->points), VOTECL__ARG_BUF(rows->counts),
            VOTECL__ARG_UINT(rows->bands), VOTECL__ARG_UINT(rows->band_rows * d->width),
            VOTECL__ARG_BUF(rows->tab), VOTECL__ARG_UINT(rows->stride), VOTECL__ARG_UINT(d->angles),
            VOTECL__ARG_UINT(d->nbins), VOTECL__ARG_FLOAT(d->w), VOTECL__ARG_FLOAT(d->scale),
            VOTECL__ARG_INT(d->offset), VOTECL__ARG_UINT(d->opencv), VOTECL__ARG_BUF(acc)},
        13);

    rows->pending = status == VOTECL_OK;
    return status;
}

/* hough_points over image (the edge image; with sobel, the gray image whose edges it writes
 * into edges and counts into out[1]), then the vote. */
static votecl_status
points_and_vote(votecl__hough_rows *rows, votecl_buffer *image, int sobel, unsigned threshold,
                int thin, votecl_buffer *edges, votecl_buffer *out, votecl_buffer *acc)
{
    const votecl__hough_desc *d = rows->desc;
    size_t one = 1, bands = rows->bands;
    votecl_status status = votecl__launch(
        rows->context, rows->k_points, 1, &bands, &one,
        (votecl__arg[]){VOTECL__ARG_BUF(image), VOTECL__ARG_UINT(d->width),
                        VOTECL__ARG_UINT(d->height), VOTECL__ARG_UINT(rows->band_rows),
                        VOTECL__ARG_UINT(d->edge_threshold), VOTECL__ARG_UINT(sobel != 0),
                        VOTECL__ARG_UINT(threshold), VOTECL__ARG_UINT(thin != 0),
                        VOTECL__ARG_BUF(edges), VOTECL__ARG_BUF(rows->points),
                        VOTECL__ARG_BUF(rows->counts), VOTECL__ARG_BUF(out)},
        12);

    return status == VOTECL_OK ? launch_vote(rows, acc) : status;
}

votecl_status
votecl__hough_rows_vote(votecl__hough_rows *rows, votecl_buffer *image, votecl_buffer *acc)
{
    /* without sobel the kernel touches neither edges nor out: any buffer stands for them */
    return points_and_vote(rows, image, 0, 0, 0, image, rows->counts, acc);
}

votecl_status
votecl__hough_rows_vote_gray(votecl__hough_rows *rows, votecl_buffer *gray, unsigned threshold,
                             int thin, votecl_buffer *edges, votecl_buffer *out, votecl_buffer *acc)
{
    return points_and_vote(rows, gray, 1, threshold, thin, edges, out, acc);
}

votecl_status
votecl__hough_rows_kept(votecl__hough_rows *rows, size_t *kept)
{
    uint32_t counts[ROWS_BANDS];
    votecl_status status;

    if (!rows->pending) {
        *kept = rows->kept;
        return VOTECL_OK;
    }
    status = votecl_buffer_read(rows->counts, 0, counts, (size_t)rows->bands * 4);
    if (status != VOTECL_OK)
        return status;
    rows->kept = 0;
    for (uint32_t i = 0; i < rows->bands; i++)
        rows->kept += counts[i];
    rows->pending = 0;
    *kept = rows->kept;
    return VOTECL_OK;
}

void
votecl__hough_rows_describe(const votecl__hough_rows *rows, votecl_vote_plan_info *info)
{
    memset(info, 0, sizeof *info);
    /* each work-item owns its rows, as the private strategy's work-items own their copies */
    info->variant = VOTECL_VARIANT_PRIVATE;
    info->nbins = rows->desc->nbins;
    info->spaces = rows->desc->angles;
    info->stretch = info->stretch_s = info->parts = info->passes = info->copies = 1;
    info->work_group_size = 1;
    info->launches = 2;
    info->resident = 1;
    info->footprint = (uint64_t)rows->desc->angles * rows->desc->nbins * 4;
}
