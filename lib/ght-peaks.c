/* The generalized Hough transform's maxima stage (Ballard's), in its two implementations: the
 * reference (the specification: every cell of the 4-D accumulator at or above the threshold
 * that is the maximum of its 3x3x3x3 neighbourhood, its position the centroid of its 3x3
 * plane neighbourhood) and the device (cl/ght-peaks.cl: the maxima found in the accumulator
 * the vote left on the device, only the candidates read back), whose poses are the
 * reference's, in its order. */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ght-device.h"
#include "ght-private.h"

/* Groups of the accumulator's maximum. */
#define MAX_GROUPS 1024u
/* Ballard candidates read back with the first try. */
#define CAND_FIRST 256u
#define CAND_WORDS 6u
#define HEAD_WORDS 4u
#define WG VOTECL__GHT_WG

/* --- the reference --- */

/* The vote-weighted centre of the 3x3 cells around (x, y), in pixels. */
static void
centroid(const votecl__ght_desc *desc, const uint32_t *s, uint32_t gw, uint32_t gh, uint32_t x,
         uint32_t y, double *px, double *py)
{
    double sw = 0, sx = 0, sy = 0;

    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            uint32_t nx = x + dx, ny = y + dy;
            double w;
            if (nx >= gw || ny >= gh)
                continue;
            w = s[(size_t)ny * gw + nx];
            sw += w;
            sx += w * nx;
            sy += w * ny;
        }
    *px = desc->p.dp * (sw > 0 ? sx / sw : x);
    *py = desc->p.dp * (sw > 0 ? sy / sw : y);
}

/* Cell (si, k, y, x) is a maximum of its 3x3x3x3 neighbourhood (rotation wraps on a full
 * circle; ties go to the lower index). */
static int
is_peak4d(const votecl__ght_desc *desc, const uint32_t *s, uint32_t gw, uint32_t gh, uint32_t si,
          uint32_t k, uint32_t y, uint32_t x)
{
    uint32_t R = desc->rotations;
    size_t me = (((size_t)si * R + k) * gh + y) * gw + x;

    for (int ds = -1; ds <= 1; ds++)
        for (int dk = -1; dk <= 1; dk++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    uint32_t ns = si + ds, nk = k + dk, ny = y + dy, nx = x + dx;
                    size_t j;
                    if (desc->full_circle && R > 2)
                        nk = (k + R + dk) % R;
                    if (ns >= desc->scales || nk >= R || ny >= gh || nx >= gw)
                        continue;
                    j = (((size_t)ns * R + nk) * gh + ny) * gw + nx;
                    if (j != me && (s[j] > s[me] || (s[j] == s[me] && j < me)))
                        return 0;
                }
    return 1;
}

/* The threshold of the maxima: votes_ratio of the best count, at least votes_threshold and 1. */
static uint32_t
peak_threshold(const votecl__ght_desc *desc, uint32_t best)
{
    uint32_t thr = (uint32_t)ceil(desc->p.votes_ratio * best);

    thr = thr > desc->p.votes_threshold ? thr : desc->p.votes_threshold;
    return thr > 0 ? thr : 1;
}

/* Cell i's pose appended when it reaches thr and is a maximum; VOTECL_OUT_OF_HOST_MEMORY when
 * the poses cannot grow. */
static votecl_status
peak_at(const votecl__ght_desc *desc, const uint32_t *space, uint32_t gw, uint32_t gh, uint32_t thr,
        size_t i, votecl__ght_poses *out)
{
    size_t plane = (size_t)gw * gh;
    uint32_t x = (uint32_t)(i % gw), y = (uint32_t)(i / gw % gh);
    uint32_t k = (uint32_t)(i / plane % desc->rotations);
    uint32_t si = (uint32_t)(i / plane / desc->rotations);
    votecl_ght_pose pose = {0};

    if (space[i] < thr || !is_peak4d(desc, space, gw, gh, si, k, y, x))
        return VOTECL_OK;
    pose.votes = space[i];
    pose.angle = votecl__ght_angle(desc, k);
    pose.scale = votecl__ght_scale(desc, si);
    centroid(desc, space + (i - i % plane), gw, gh, x, y, &pose.x, &pose.y);
    return votecl__ght_poses_push(out, &pose);
}

votecl_status
votecl__ght_ref_ballard_peaks(const votecl__ght_desc *desc, const uint32_t *space, uint32_t width,
                              uint32_t height, votecl__ght_poses *out)
{
    uint32_t gw, gh, best = 0, thr;
    size_t cells = votecl__ght_ballard_cells(desc, width, height);
    votecl_status status = VOTECL_OK;

    votecl__ght_grid(desc, width, height, &gw, &gh);
    for (size_t i = 0; i < cells; i++)
        best = space[i] > best ? space[i] : best;
    thr = peak_threshold(desc, best);
    for (size_t i = 0; i < cells && status == VOTECL_OK; i++)
        status = peak_at(desc, space, gw, gh, thr, i, out);
    return status;
}

/* --- the host plan of CPU devices --- */

/* The largest of n counts, in blocks that the compiler vectorises. */
#define HOST_BLOCK 64u
#if defined(__GNUC__) && !defined(__clang__)
#define VECTOR_LOOP _Pragma("GCC unroll 1")
#else
#define VECTOR_LOOP
#endif

static uint32_t
host_max(const uint32_t *restrict s, size_t n)
{
    uint32_t best = 0;
    size_t i = 0;

    for (; i + HOST_BLOCK <= n; i += HOST_BLOCK) {
        uint32_t top = 0;
        VECTOR_LOOP
        for (size_t k = 0; k < HOST_BLOCK; k++)
            top = s[i + k] > top ? s[i + k] : top;
        best = top > best ? top : best;
    }
    for (; i < n; i++)
        best = s[i] > best ? s[i] : best;
    return best;
}

votecl_status
votecl__ght_host_ballard_peaks(const votecl__ght_desc *desc, const uint32_t *space, uint32_t width,
                               uint32_t height, votecl__ght_poses *out)
{
    uint32_t gw, gh, thr;
    size_t cells = votecl__ght_ballard_cells(desc, width, height);
    votecl_status status = VOTECL_OK;

    votecl__ght_grid(desc, width, height, &gw, &gh);
    thr = peak_threshold(desc, host_max(space, cells));
    /* the reference's cells ascending, a block skipped when none reaches the threshold */
    for (size_t i = 0, end; i < cells && status == VOTECL_OK; i = end) {
        uint32_t top = thr;
        end = i + HOST_BLOCK <= cells ? i + HOST_BLOCK : cells;
        if (end - i == HOST_BLOCK) {
            top = 0;
            VECTOR_LOOP
            for (size_t k = 0; k < HOST_BLOCK; k++)
                top = space[i + k] > top ? space[i + k] : top;
        }
        for (size_t j = i; j < end && top >= thr && status == VOTECL_OK; j++)
            status = peak_at(desc, space, gw, gh, thr, j, out);
    }
    return status;
}

/* --- the device (cl/ght-peaks.cl) --- */

enum { K_MAX_BLOCKS, K_THRESHOLD, K_PEAKS, K_COUNT };

static const char *const kernel_names[K_COUNT] = {"ght_max_blocks", "ght_peaks_threshold",
                                                  "ght_ballard_peaks"};

static const char *const files[] = {"ght-peaks.cl", NULL};

static const votecl__ght_program program = {VOTECL__GHT_PEAKS, files, VOTECL__GHT_DEF_S,
                                            kernel_names, K_COUNT};

static votecl_status
launch1(votecl__ght_front *f, int k, size_t items, const votecl__arg *args, unsigned nargs)
{
    return votecl__ght_launch1(f->dev, &program, k, items, args, nargs);
}

/* The threshold and the peaks at or above it into the candidate buffer (capacity). */
static votecl_status
peaks_find(votecl__ght_front *f, uint32_t gw, uint32_t gh, size_t cells, size_t groups)
{
    const votecl__ght_desc *d = &f->desc;
    uint64_t ratio;
    votecl_status status;

    memcpy(&ratio, &d->p.votes_ratio, sizeof ratio);
    if ((status = launch1(f, K_THRESHOLD, WG,
                          (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_SUMS]),
                                          VOTECL__ARG_UINT(groups), VOTECL__ARG_ULONG(ratio),
                                          VOTECL__ARG_UINT(d->p.votes_threshold),
                                          VOTECL__ARG_BUF(f->buf[GHT_F_CAND])},
                          5)) != VOTECL_OK)
        return status;
    return launch1(f, K_PEAKS, cells,
                   (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_SPACE]), VOTECL__ARG_UINT(gw),
                                   VOTECL__ARG_UINT(gh), VOTECL__ARG_UINT(d->rotations),
                                   VOTECL__ARG_INT(d->full_circle && d->rotations > 2),
                                   VOTECL__ARG_UINT(d->p.dp), VOTECL__ARG_BUF(f->buf[GHT_F_CAND]),
                                   VOTECL__ARG_UINT(f->cand_capacity)},
                   8);
}

/* Room for capacity candidates on both sides. */
static votecl_status
cand_reserve(votecl__ght_front *f, size_t capacity)
{
    uint32_t *cand;

    if (capacity <= f->cand_capacity && f->cand != NULL)
        return VOTECL_OK;
    if ((cand = votecl__realloc(f->cand, (HEAD_WORDS + CAND_WORDS * capacity) * 4)) == NULL)
        return votecl__fail(f->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    f->cand = cand;
    f->cand_capacity = capacity;
    return votecl__ght_ensure(f->context, &f->buf[GHT_F_CAND],
                              (HEAD_WORDS + CAND_WORDS * capacity) * 4);
}

/* The maxima of the voted accumulator read back into f->cand; returns their number in *n. */
static votecl_status
peaks_read(votecl__ght_front *f, uint32_t gw, uint32_t gh, size_t cells, size_t *n)
{
    size_t groups = (cells + 16 * WG - 1) / (16 * WG), per;
    votecl_status status;

    groups = groups > MAX_GROUPS ? MAX_GROUPS : groups;
    per = (cells + groups - 1) / groups;
    if ((status = votecl__ght_ensure(f->context, &f->buf[GHT_F_SUMS], groups * 4)) != VOTECL_OK ||
        (status = cand_reserve(f, CAND_FIRST)) != VOTECL_OK ||
        (status =
             launch1(f, K_MAX_BLOCKS, groups * WG,
                     (votecl__arg[]){VOTECL__ARG_BUF(f->buf[GHT_F_SPACE]), VOTECL__ARG_ULONG(cells),
                                     VOTECL__ARG_ULONG(per), VOTECL__ARG_BUF(f->buf[GHT_F_SUMS])},
                     4)) != VOTECL_OK)
        return status;
    for (;;) {
        size_t bytes = (HEAD_WORDS + CAND_WORDS * f->cand_capacity) * 4;
        if ((status = peaks_find(f, gw, gh, cells, groups)) != VOTECL_OK ||
            (status = votecl_buffer_read(f->buf[GHT_F_CAND], 0, f->cand, bytes)) != VOTECL_OK)
            return status;
        *n = f->cand[1];
        if (*n <= f->cand_capacity)
            return VOTECL_OK;
        if ((status = cand_reserve(f, *n)) != VOTECL_OK)
            return status;
    }
}

static int
cell_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

/* Candidate c as a pose (its padding zero, as the reference's: the poses compare as bytes). */
static void
cand_pose(const votecl__ght_desc *d, const uint32_t *c, uint32_t gw, uint32_t gh,
          votecl_ght_pose *pose)
{
    size_t plane = (size_t)gw * gh;

    memset(pose, 0, sizeof *pose);
    pose->votes = c[1];
    pose->angle = votecl__ght_angle(d, (double)(c[0] / plane % d->rotations));
    pose->scale = votecl__ght_scale(d, (double)(c[0] / plane / d->rotations));
    memcpy(&pose->x, &c[2], sizeof pose->x);
    memcpy(&pose->y, &c[4], sizeof pose->y);
}

votecl_status
votecl__ght_cand_poses(const votecl__ght_desc *desc, uint32_t *c, size_t n, uint32_t width,
                       uint32_t height, votecl__ght_poses *out)
{
    uint32_t gw, gh;
    votecl_status status = VOTECL_OK;

    votecl__ght_grid(desc, width, height, &gw, &gh);
    /* the reference's order (cells ascending), so the poses are the same array */
    qsort(c, n, CAND_WORDS * 4, cell_cmp);
    for (size_t i = 0; i < n && status == VOTECL_OK; i++) {
        votecl_ght_pose pose;
        cand_pose(desc, c + CAND_WORDS * i, gw, gh, &pose);
        status = votecl__ght_poses_push(out, &pose);
    }
    return status;
}

votecl_status
votecl__ght_peaks_device(votecl__ght_run *run, uint32_t width, uint32_t height,
                         votecl__ght_poses *out)
{
    votecl__ght_front *f = run->front;
    size_t cells = votecl__ght_ballard_cells(&f->desc, width, height), n = 0;
    uint32_t gw, gh;
    votecl_status status;

    votecl__ght_grid(&f->desc, width, height, &gw, &gh);
    if ((status = peaks_read(f, gw, gh, cells, &n)) != VOTECL_OK)
        return status;
    status = votecl__ght_cand_poses(&f->desc, f->cand + HEAD_WORDS, n, width, height, out);
    return status == VOTECL_OK ? status
                               : votecl__fail(f->context, status, "out of memory for poses");
}

/* --- the stage table's maxima (lib/ght-private.h) --- */

votecl_status
votecl__ght_peaks_host(votecl__ght_run *run, uint32_t width, uint32_t height,
                       votecl__ght_poses *out)
{
    return votecl__ght_host_ballard_peaks(run->desc, run->space, width, height, out);
}

votecl_status
votecl__ght_peaks_ref(votecl__ght_run *run, uint32_t width, uint32_t height,
                      votecl__ght_poses *out)
{
    return votecl__ght_ref_ballard_peaks(run->desc, run->space, width, height, out);
}
