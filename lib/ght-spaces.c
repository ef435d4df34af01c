/* The generalized Hough transform's vote stages, in their two implementations: the reference
 * (the specification: Guil's O space of the pairings' keys, the S histograms of a rotation's
 * bin shift, the D spaces of a rotation and scale and the pairings that voted next to their
 * maxima, paper 001; Ballard's R-table and 4-D accumulator, paper 002) and the device
 * (cl/ght.cl: all candidates of a stage at once, D's maxima found there, the S and D stages
 * reading the pairings the pairing stage left in place), every space equal to the reference's
 * exactly. lib/ght-search.c calls the S, D and match stages through its table. */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ght-device.h"
#include "ght-private.h"

#define GHT_PI 3.14159265358979323846
#define GHT_WG VOTECL__GHT_WG

/* --- the reference --- */

void
votecl__ght_ref_ospace(const votecl__ght_desc *desc, const votecl__ght_pairs *pairs,
                       uint32_t *space)
{
    size_t keys = (size_t)desc->levels * desc->levels;

    for (size_t k = 0; k < keys; k++)
        space[k] = pairs->offsets[k + 1] - pairs->offsets[k];
}

/* Runs BODY for every (template pairing T, image pairing I) that agree under bin shift b and
 * whose I lies in the window of the image key's pairings [j0, j1) that WINDOW(ctx, T, ip,
 * j0, j1, &lo, &hi) leaves (NULL: all of them). */
#define FOR_AGREEING(desc, tp, ip, b, WINDOW, ctx, T, I, ...)                                      \
    for (size_t n_ = 0; n_ < (tp)->nkeys; n_++) {                                                  \
        uint32_t key_ = (tp)->keys[n_], L_ = (desc)->levels;                                       \
        uint32_t k2_ = ((key_ / L_ + (b)) % L_) * L_ + key_ % L_;                                  \
        for (uint32_t i_ = (tp)->offsets[key_]; i_ < (tp)->offsets[key_ + 1]; i_++) {              \
            const votecl__ght_pair *T = &(tp)->pairs[i_];                                          \
            uint32_t lo_ = (ip)->offsets[k2_], hi_ = (ip)->offsets[k2_ + 1];                       \
            if ((WINDOW) != NULL)                                                                  \
                (WINDOW)((ctx), T, (ip), lo_, hi_, &lo_, &hi_);                                    \
            for (uint32_t j_ = lo_; j_ < hi_; j_++) {                                              \
                const votecl__ght_pair *I = &(ip)->pairs[j_];                                      \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        }                                                                                          \
    }

/* A window of a key's pairings (FOR_AGREEING) for template pairing T. */
typedef void (*window_fn)(const void *ctx, const votecl__ght_pair *T, const votecl__ght_pairs *ip,
                          uint32_t j0, uint32_t j1, uint32_t *lo, uint32_t *hi);

/* The first j in [j0, j1) whose length is at least x (above: more than x), j1 when none: the
 * image pairings of a key are sorted by length (votecl__ght_ref_pairs, the device's
 * ght_sort_length), so the test holds from there on. */
static uint32_t
first_length(const votecl__ght_pairs *ip, uint32_t j0, uint32_t j1, double x, int above)
{
    while (j0 < j1) {
        uint32_t mid = j0 + (j1 - j0) / 2;
        double d = (double)ip->pairs[mid].d;
        if (above ? d > x : d >= x)
            j1 = mid;
        else
            j0 = mid + 1;
    }
    return j0;
}

/* The dI / dT ratio is at or above scale boundary k: exact (float times float in double). */
static int
at_or_above(const votecl__ght_desc *desc, uint32_t k, float di, float dt)
{
    return (double)di >= (double)votecl__ght_scale_bound(desc, k) * (double)dt;
}

/* The scale bin of dI / dT (dt > 0), or -1 outside the search (cl/ght.cl's ght_scale_bin). */
static int32_t
scale_bin(const votecl__ght_desc *desc, float di, float dt)
{
    uint32_t lo = 0, hi = desc->scales;

    if (!at_or_above(desc, 0, di, dt) || at_or_above(desc, hi, di, dt))
        return -1;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (at_or_above(desc, mid, di, dt))
            lo = mid;
        else
            hi = mid;
    }
    return (int32_t)lo;
}

/* S's window: the image pairings whose ratio to T's length is in the search, [bound(0),
 * bound(S)); scale_bin rejects every other (at_or_above is monotone in dI: the same double
 * comparison against one product), so S's counts are unchanged. */
static void
ratio_window(const void *ctx, const votecl__ght_pair *T, const votecl__ght_pairs *ip, uint32_t j0,
             uint32_t j1, uint32_t *lo, uint32_t *hi)
{
    const votecl__ght_desc *desc = ctx;
    double dt = (double)T->d;

    *lo = first_length(ip, j0, j1, (double)votecl__ght_scale_bound(desc, 0) * dt, 0);
    *hi = first_length(ip, *lo, j1, (double)votecl__ght_scale_bound(desc, desc->scales) * dt, 0);
}

static void
scale_hist(const votecl__ght_desc *desc, const votecl__ght_pairs *tp, const votecl__ght_pairs *ip,
           uint32_t b, uint64_t *hist)
{
    memset(hist, 0, desc->scales * sizeof *hist);
    FOR_AGREEING(desc, tp, ip, b, ratio_window, desc, T, I, {
        int32_t k = scale_bin(desc, I->d, T->d);
        if (k >= 0)
            hist[k]++;
    })
}

/* The grid cell of coordinate c: floor(c / dp + 0.5), two correctly rounded operations. */
static int32_t
grid_cell(double c, uint32_t dp)
{
    double cell = floor(c / (double)dp + 0.5);

    /* Beyond int32_t (a huge scale or centre) lies no grid: a cell every caller skips, not
     * the undefined conversion. */
    return cell >= INT32_MIN && cell <= INT32_MAX ? (int32_t)cell : -1;
}

/* The cell of the centre that point (px, py) votes for given template point (tx, ty), or -1
 * outside the grid: the template offset (exact in double) turned by the float factors rs
 * (exact products, one rounding). */
static int64_t
position_cell(const votecl__ght_desc *desc, uint32_t gw, uint32_t gh, const float rs[2], int32_t px,
              int32_t py, int32_t tx, int32_t ty)
{
    double rx = (double)tx - (double)(float)desc->cx;
    double ry = (double)ty - (double)(float)desc->cy;
    double qx = (double)rs[0] * rx - (double)rs[1] * ry;
    double qy = (double)rs[1] * rx + (double)rs[0] * ry;
    int32_t cx = grid_cell((double)px - qx, desc->p.dp);
    int32_t cy = grid_cell((double)py - qy, desc->p.dp);

    if (cx >= 0 && cy >= 0 && (uint32_t)cx < gw && (uint32_t)cy < gh)
        return (int64_t)cy * gw + cx;
    return -1;
}

static void
vote_position(const votecl__ght_desc *desc, uint32_t *space, uint32_t gw, uint32_t gh,
              const float rs[2], int32_t px, int32_t py, int32_t tx, int32_t ty)
{
    int64_t cell = position_cell(desc, gw, gh, rs, px, py, tx, ty);

    if (cell >= 0)
        space[cell]++;
}

static void
angle_factors(double angle, double scale, float rs[2])
{
    votecl__ght_rs(cos(angle * GHT_PI / 180.0), sin(angle * GHT_PI / 180.0), scale, rs);
}

/* The bin shift of step k of b - tol .. b + tol. */
static uint32_t
shift_of(const votecl__ght_desc *desc, uint32_t b, uint32_t tol, uint32_t k)
{
    return (b + desc->levels * (tol + 1) + k - tol) % desc->levels;
}

/* D for a rotation and scale from the pairings that agree under bin shifts b - tol .. b + tol
 * (tolerance for the gradient bins' own quantisation). */
static void
position_space(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
               const votecl__ght_pairs *ip, uint32_t b, uint32_t tol, double angle, double scale,
               uint32_t gw, uint32_t gh, uint32_t *space)
{
    float rs[2];

    angle_factors(angle, scale, rs);
    memset(space, 0, (size_t)gw * gh * sizeof *space);
    for (uint32_t k = 0; k <= 2 * tol; k++)
        FOR_AGREEING(desc, tp, ip, shift_of(desc, b, tol, k), (window_fn)NULL, NULL, T, I, {
            vote_position(desc, space, gw, gh, rs, I->xi, I->yi, T->xi, T->yi);
            vote_position(desc, space, gw, gh, rs, I->xj, I->yj, T->xj, T->yj);
        })
}

/* position_cell's offsets of template pairing T's points subtracted (i minus j): the
 * vector an image pairing matching it has, within votecl__ght_match_span on each axis. */
static void
turned_vector(const votecl__ght_desc *desc, const float rs[2], const votecl__ght_pair *T,
              double v[2])
{
    double cx = (double)(float)desc->cx, cy = (double)(float)desc->cy;
    double rxi = (double)T->xi - cx, ryi = (double)T->yi - cy;
    double rxj = (double)T->xj - cx, ryj = (double)T->yj - cy;

    v[0] =
        ((double)rs[0] * rxi - (double)rs[1] * ryi) - ((double)rs[0] * rxj - (double)rs[1] * ryj);
    v[1] =
        ((double)rs[1] * rxi + (double)rs[0] * ryi) - ((double)rs[1] * rxj + (double)rs[0] * ryj);
}

/* Image pairing I's vector is within span of v on both axes (cl/ght.cl's ght_vector_fits). */
static int
vector_fits(double span, const double v[2], const votecl__ght_pair *I)
{
    return fabs((double)(I->xi - I->xj) - v[0]) <= span &&
           fabs((double)(I->yi - I->yj) - v[1]) <= span;
}

/* The matches' window: an image pairing I whose vector fits T's turned one v within span on
 * both axes is within span sqrt(2) of it, so its length within span sqrt(2) of |v|; I's
 * length d is that of its integer vector rounded twice to float (relative error below
 * 2^-22). The window, span 1.5 wide and 10^-6 of the length more on each side, keeps every
 * pairing vector_fits can accept: the same matches. An infinite span keeps all. */
typedef struct match_window {
    const votecl__ght_desc *desc;
    const float *rs;
    double span;
} match_window;

static void
length_window(const void *ctx, const votecl__ght_pair *T, const votecl__ght_pairs *ip, uint32_t j0,
              uint32_t j1, uint32_t *lo, uint32_t *hi)
{
    const match_window *w = ctx;
    double v[2], len, r = 1.5 * w->span;

    turned_vector(w->desc, w->rs, T, v);
    len = sqrt(v[0] * v[0] + v[1] * v[1]);
    *lo = first_length(ip, j0, j1, (len - r) * (1 - 1e-6), 0);
    *hi = first_length(ip, *lo, j1, (len + r) * (1 + 1e-6), 1);
}

votecl_status
votecl__ght_ref_matches(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                        const votecl__ght_pairs *ip, uint32_t b, uint32_t tol, double angle,
                        double scale, uint32_t gw, uint32_t gh, const uint32_t *labels, double span,
                        votecl__ght_matches *out)
{
    float rs[2];
    match_window w = {desc, rs, span};

    angle_factors(angle, scale, rs);
    for (uint32_t k = 0; k <= 2 * tol; k++)
        FOR_AGREEING(desc, tp, ip, shift_of(desc, b, tol, k), length_window, &w, T, I, {
            int64_t ci, cj;
            double v[2];
            votecl__ght_match m = {
                0, I->key, {T->xi, T->yi, T->xj, T->yj}, {I->xi, I->yi, I->xj, I->yj}};
            turned_vector(desc, rs, T, v);
            if (!vector_fits(span, v, I))
                continue;
            ci = position_cell(desc, gw, gh, rs, I->xi, I->yi, T->xi, T->yi);
            cj = position_cell(desc, gw, gh, rs, I->xj, I->yj, T->xj, T->yj);
            if (ci < 0 || cj < 0 || labels[ci] == UINT32_MAX || labels[ci] != labels[cj])
                continue;
            m.peak = labels[ci];
            if (votecl__ght_matches_push(out, &m) != VOTECL_OK)
                return VOTECL_OUT_OF_HOST_MEMORY;
        })
    return VOTECL_OK;
}

void
votecl__ght_ref_sspace(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                       const votecl__ght_pairs *ip, uint32_t b, uint64_t *hist)
{
    scale_hist(desc, tp, ip, b, hist);
}

void
votecl__ght_ref_dspace(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                       const votecl__ght_pairs *ip, uint32_t b, uint32_t tol, double angle,
                       double scale, uint32_t gw, uint32_t gh, uint32_t *space)
{
    position_space(desc, tp, ip, b, tol, angle, scale, gw, gh, space);
}

votecl_status
votecl__ght_rtable_build(const votecl__ght_edges *edges, uint32_t levels, double cx, double cy,
                         votecl__ght_rtable *table)
{
    size_t n = edges->n;

    memset(table, 0, sizeof *table);
    table->dx = votecl__malloc((n > 0 ? n : 1) * sizeof *table->dx);
    table->dy = votecl__malloc((n > 0 ? n : 1) * sizeof *table->dy);
    table->offsets = votecl__malloc(((size_t)levels + 1) * sizeof *table->offsets);
    if (table->dx == NULL || table->dy == NULL || table->offsets == NULL) {
        votecl__ght_rtable_clear(table);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    memcpy(table->offsets, edges->offsets, ((size_t)levels + 1) * sizeof *table->offsets);
    for (size_t i = 0; i < n; i++) {
        table->dx[i] = (float)(cx - edges->points[i].x);
        table->dy[i] = (float)(cy - edges->points[i].y);
    }
    table->n = n;
    return VOTECL_OK;
}

void
votecl__ght_rtable_clear(votecl__ght_rtable *table)
{
    VOTECL__FREE_ALL(table->dx, table->dy, table->offsets);
    memset(table, 0, sizeof *table);
}

/* The R-table bin shift of rotation step k. */
static uint32_t
rotation_shift(const votecl__ght_desc *desc, uint32_t k)
{
    return (uint32_t)lround(votecl__ght_angle(desc, k) * desc->levels / 360.0) % desc->levels;
}

void
votecl__ght_ref_ballard_vote(const votecl__ght_desc *desc, const votecl__ght_rtable *table,
                             const votecl__ght_edges *edges, uint32_t width, uint32_t height,
                             uint32_t *space)
{
    uint32_t gw, gh, L = desc->levels;

    votecl__ght_grid(desc, width, height, &gw, &gh);
    memset(space, 0, votecl__ght_ballard_cells(desc, width, height) * sizeof *space);
    for (uint32_t k = 0; k < desc->rotations; k++) {
        double a = votecl__ght_angle(desc, k) * GHT_PI / 180.0, c = cos(a), s = sin(a);
        uint32_t shift = rotation_shift(desc, k);
        for (size_t e = 0; e < edges->n; e++) {
            const votecl__ght_point *p = &edges->points[e];
            uint32_t t = (p->bin + L - shift) % L;
            for (uint32_t r = table->offsets[t]; r < table->offsets[t + 1]; r++)
                for (uint32_t si = 0; si < desc->scales; si++) {
                    float rs[2];
                    double dx = table->dx[r], dy = table->dy[r];
                    int32_t x, y;
                    votecl__ght_rs(c, s, votecl__ght_scale(desc, si), rs);
                    x = grid_cell((double)p->x + ((double)rs[0] * dx - (double)rs[1] * dy),
                                  desc->p.dp);
                    y = grid_cell((double)p->y + ((double)rs[1] * dx + (double)rs[0] * dy),
                                  desc->p.dp);
                    if (x < 0 || y < 0 || (uint32_t)x >= gw || (uint32_t)y >= gh)
                        continue;
                    space[(((size_t)si * desc->rotations + k) * gh + y) * gw + x]++;
                }
        }
    }
}

/* --- the device (cl/ght.cl) --- */

enum {
    K_OSPACE_LB,
    K_OSPACE_SSM,
    K_SSPACE,
    K_DSPACE,
    K_MERGE,
    K_BALLARD,
    K_SPACE_MAX,
    K_SPACE_PEAKS,
    K_PEAKS_PACK,
    K_LABELS,
    K_MATCHES,
    K_COUNT
};

static const char *const kernel_names[K_COUNT] = {
    "ght_ospace_lb",  "ght_ospace_ssm", "ght_sspace",    "ght_dspace",
    "ght_merge",      "ght_ballard",    "ght_space_max", "ght_space_peaks",
    "ght_peaks_pack", "ght_labels",     "ght_matches",
};

static const char *const files[] = {"ght-common.cl", "ght.cl", NULL};

static const votecl__ght_program program = {VOTECL__GHT_SPACES, files,
                                            VOTECL__GHT_DEF_L | VOTECL__GHT_DEF_XI |
                                                VOTECL__GHT_DEF_M | VOTECL__GHT_DEF_G |
                                                VOTECL__GHT_DEF_S,
                                            kernel_names, K_COUNT};

static votecl_status
launch(votecl__ght_device *dev, int k, unsigned dims, const size_t *global, const size_t *local,
       const votecl__arg *args, unsigned nargs)
{
    return votecl__ght_launch(dev, &program, k, dims, global, local, args, nargs);
}

static votecl_status
upload(votecl__ght_device *dev, int b, const void *host, size_t size)
{
    return votecl__ght_device_upload(dev, b, host, size);
}

/* Room for size bytes in buffer b (grown, contents lost). */
static votecl_status
room(votecl__ght_device *dev, int b, size_t size)
{
    return votecl__ght_ensure(dev->context, &dev->buf[b], size);
}

static votecl_status
fail_memory(votecl__ght_device *dev)
{
    return votecl__fail(dev->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for tasks");
}

/* Zeroed global copies of cells counts, and the merged output. */
static votecl_status
copies_zero(votecl__ght_device *dev, size_t cells)
{
    size_t bytes = cells * dev->g * 4;
    votecl_status status = votecl__buffer_ensure(dev->context, &dev->buf[GHT_B_COPIES], bytes);

    if (status == VOTECL_OK)
        status = votecl__buffer_ensure(dev->context, &dev->buf[GHT_B_OUT], cells * 4);
    if (status == VOTECL_OK)
        status = votecl__buffer_zero(dev->buf[GHT_B_COPIES], 0, bytes);
    return status;
}

/* Merges the copies into GHT_B_OUT. */
static votecl_status
merge(votecl__ght_device *dev, size_t cells)
{
    size_t local = GHT_WG, global = votecl__round_up(cells, local);

    return launch(dev, K_MERGE, 1, &global, &local,
                  (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[GHT_B_COPIES]), VOTECL__ARG_UINT(cells),
                                  VOTECL__ARG_BUF(dev->buf[GHT_B_OUT])},
                  3);
}

/* Merges the copies and reads cells counts back. */
static votecl_status
merge_read(votecl__ght_device *dev, size_t cells, uint32_t *out)
{
    votecl_status status = merge(dev, cells);

    return status == VOTECL_OK ? votecl_buffer_read(dev->buf[GHT_B_OUT], 0, out, cells * 4)
                               : status;
}

votecl_status
votecl__ght_device_ospace(votecl__ght_device *dev, const votecl__ght_edges *edges,
                          votecl_ght_pairing pairing, uint32_t *space)
{
    uint32_t L = dev->desc.levels;
    size_t ntasks, cells = (size_t)L * L, local = GHT_WG, global;
    uint32_t *tasks = votecl__ght_make_tasks(edges->offsets, NULL, L, &ntasks);
    int k = pairing == VOTECL_GHT_PAIRING_SSM ? K_OSPACE_SSM : K_OSPACE_LB;
    votecl_status status;

    if (tasks == NULL)
        return fail_memory(dev);
    if ((status = upload(dev, GHT_B_A, edges->points, edges->n * sizeof *edges->points)) !=
            VOTECL_OK ||
        (status = upload(dev, GHT_B_B, edges->offsets, ((size_t)L + 1) * 4)) != VOTECL_OK ||
        (status = upload(dev, GHT_B_C, tasks, ntasks * 12)) != VOTECL_OK ||
        (status = copies_zero(dev, cells)) != VOTECL_OK)
        goto out;
    global = ntasks * GHT_WG;
    if (ntasks > 0)
        status = launch(dev, k, 1, &global, &local,
                        (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[GHT_B_A]),
                                        VOTECL__ARG_BUF(dev->buf[GHT_B_B]),
                                        VOTECL__ARG_BUF(dev->buf[GHT_B_C]),
                                        VOTECL__ARG_BUF(dev->buf[GHT_B_DIRS]),
                                        VOTECL__ARG_BUF(dev->buf[GHT_B_COPIES])},
                        5);
    if (status == VOTECL_OK)
        status = merge_read(dev, cells, space);
out:
    free(tasks);
    return status;
}

/* The template's pairings and tasks go to GHT_B_A and GHT_B_C, the image's pairings and offsets to
 * GHT_B_D and GHT_B_E. */
votecl_status
votecl__ght_device_bind(votecl__ght_device *dev, const votecl__ght_pairs *tp,
                        const votecl__ght_pairs *ip)
{
    size_t *ntasks = &dev->bound_tasks;
    size_t keys = (size_t)dev->desc.levels * dev->desc.levels;
    uint32_t *tasks = votecl__ght_make_tasks(tp->offsets, tp->keys, tp->nkeys, ntasks);
    votecl_status status;

    if (tasks == NULL)
        return fail_memory(dev);
    if ((status = upload(dev, GHT_B_A, tp->pairs, tp->n * sizeof *tp->pairs)) == VOTECL_OK &&
        (status = upload(dev, GHT_B_C, tasks, *ntasks * 12)) == VOTECL_OK &&
        (status = upload(dev, GHT_B_D, ip->pairs, ip->n * sizeof *ip->pairs)) == VOTECL_OK)
        status = upload(dev, GHT_B_E, ip->offsets, (keys + 1) * 4);
    free(tasks);
    return status;
}

#define GHT_CAND 3u             /* words per candidate in GHT_B_CANDS (cl/ght.cl) */
#define GHT_PEAKS_HEAD 32u      /* a D space's maxima: the count, the maximum, padding */
#define GHT_PEAKS_CAP 1024u     /* maxima a batch keeps per candidate (more: alone, all) */
#define GHT_MATCHES_HEAD 16u    /* ght_matches' head: the count */
#define GHT_MATCHES_GUESS 4096u /* matches read with the head */
#define GHT_PEAKS_GUESS 128u    /* D maxima per candidate read with the heads, at least */

/* The candidates' bin shifts and factors (GHT_CAND words each) into GHT_B_CANDS. */
static votecl_status
upload_cands(votecl__ght_device *dev, size_t n, const votecl__ght_cand *c, const uint32_t *b)
{
    uint32_t *w = votecl__malloc((n > 0 ? n : 1) * GHT_CAND * sizeof *w);
    votecl_status status;

    if (w == NULL)
        return fail_memory(dev);
    for (size_t k = 0; k < n; k++) {
        float rs[2] = {0, 0};
        if (c != NULL)
            votecl__ght_rs(cos(c[k].angle * GHT_PI / 180.0), sin(c[k].angle * GHT_PI / 180.0),
                           c[k].scale, rs);
        w[GHT_CAND * k] = c != NULL ? c[k].b : b[k];
        memcpy(&w[GHT_CAND * k + 1], &rs[0], 4);
        memcpy(&w[GHT_CAND * k + 2], &rs[1], 4);
    }
    status = upload(dev, GHT_B_CANDS, w, n * GHT_CAND * sizeof *w);
    free(w);
    return status;
}

/* The first six arguments of the pairing walks (S, D, matches): the bound pairings, the
 * tasks, the candidates. */
static void
walk_args(votecl__ght_device *dev, votecl__arg *args)
{
    args[0] = VOTECL__ARG_BUF(dev->buf[GHT_B_A]);
    args[1] = VOTECL__ARG_BUF(dev->buf[GHT_B_C]);
    args[2] = VOTECL__ARG_BUF(dev->buf[GHT_B_E]);
    args[3] = VOTECL__ARG_BUF(dev->buf[GHT_B_D]);
    args[4] = VOTECL__ARG_BUF(dev->buf[GHT_B_CANDS]);
}

/* The first eleven arguments of the position walks (D, matches): walk_args, then the bin
 * tolerance, the template's centre, the cell size and the grid. */
static void
position_args(votecl__ght_device *dev, uint32_t tol, uint32_t gw, uint32_t gh, votecl__arg *args)
{
    const votecl__ght_desc *d = &dev->desc;

    walk_args(dev, args);
    args[5] = VOTECL__ARG_UINT(tol);
    args[6] = VOTECL__ARG_FLOAT((float)d->cx);
    args[7] = VOTECL__ARG_FLOAT((float)d->cy);
    args[8] = VOTECL__ARG_UINT(d->p.dp);
    args[9] = VOTECL__ARG_UINT(gw);
    args[10] = VOTECL__ARG_UINT(gh);
}

/* A walk over the bound template tasks for n candidates (2-D: tasks x candidates). */
static votecl_status
walk(votecl__ght_device *dev, int kernel, size_t n, const votecl__arg *args, unsigned nargs)
{
    size_t local[2] = {GHT_WG, 1}, global[2] = {dev->bound_tasks * GHT_WG, n};

    if (dev->bound_tasks == 0 || n == 0)
        return VOTECL_OK;
    return launch(dev, kernel, 2, global, local, args, nargs);
}

votecl_status
votecl__ght_device_sspace(void *user, size_t n, const uint32_t *b, uint64_t *hists)
{
    votecl__ght_device *dev = user;
    size_t cells = n * dev->desc.scales;
    uint32_t *h = votecl__malloc((cells > 0 ? cells : 1) * sizeof *h);
    votecl__arg args[7];
    votecl_status status;

    if (h == NULL)
        return fail_memory(dev);
    if ((status = upload_cands(dev, n, NULL, b)) != VOTECL_OK ||
        (status = copies_zero(dev, cells)) != VOTECL_OK)
        goto out;
    walk_args(dev, args);
    args[5] = VOTECL__ARG_BUF(dev->buf[GHT_B_BOUNDS]);
    args[6] = VOTECL__ARG_BUF(dev->buf[GHT_B_COPIES]);
    if ((status = walk(dev, K_SSPACE, n, args, 7)) == VOTECL_OK &&
        (status = merge_read(dev, cells, h)) == VOTECL_OK)
        for (size_t k = 0; k < cells; k++)
            hists[k] = h[k];
out:
    free(h);
    return status;
}

/* The D spaces of n candidates into GHT_B_OUT (merged, candidate c's at c gw gh). */
static votecl_status
dspace_build(votecl__ght_device *dev, size_t n, const votecl__ght_cand *c, uint32_t tol,
             uint32_t gw, uint32_t gh)
{
    size_t cells = n * gw * gh;
    votecl__arg args[12];
    votecl_status status;

    if ((status = upload_cands(dev, n, c, NULL)) != VOTECL_OK ||
        (status = copies_zero(dev, cells)) != VOTECL_OK)
        return status;
    position_args(dev, tol, gw, gh, args);
    args[11] = VOTECL__ARG_BUF(dev->buf[GHT_B_COPIES]);
    if ((status = walk(dev, K_DSPACE, n, args, 12)) != VOTECL_OK)
        return status;
    return merge(dev, cells);
}

votecl_status
votecl__ght_device_dspace(void *user, uint32_t b, uint32_t tol, double angle, double scale,
                          uint32_t gw, uint32_t gh, uint32_t *space)
{
    votecl__ght_device *dev = user;
    votecl__ght_cand c = {b, angle, scale};
    votecl_status status = dspace_build(dev, 1, &c, tol, gw, gh);

    return status == VOTECL_OK
               ? votecl_buffer_read(dev->buf[GHT_B_OUT], 0, space, (size_t)gw * gh * 4)
               : status;
}

/* The maxima kept of a head's count (at most cap). */
static size_t
head_kept(const unsigned char *head, size_t cap)
{
    uint32_t n;

    memcpy(&n, head, 4);
    return n < cap ? n : cap;
}

/* Copies the n maxima at v into out (grown as needed), ranked. */
static votecl_status
take_peaks(votecl__ght_device *dev, const unsigned char *at, size_t n, votecl__ght_dpeaks *out)
{
    if (n > out->capacity) {
        votecl__ght_dpeak *v = votecl__realloc(out->v, n * sizeof *v);
        if (v == NULL)
            return fail_memory(dev);
        out->v = v;
        out->capacity = n;
    }
    if (n > 0) /* out->v may still be NULL: memcpy(NULL, .., 0) is undefined */
        memcpy(out->v, at, n * sizeof *out->v);
    out->n = n;
    votecl__ght_dpeaks_rank(out);
    return VOTECL_OK;
}

/* Reads the n packed heads (GHT_B_PACKED) and a guess of the maxima after them (the last
 * read's count: a plan mostly sees like images; at least GHT_PEAKS_GUESS a candidate) in one
 * read, the rest in a second; the maxima into out, over[c]: candidate c had more than cap
 * (NULL: none can). */
static votecl_status
peaks_read(votecl__ght_device *dev, size_t n, size_t cap, votecl__ght_dpeaks *out,
           unsigned char *over)
{
    size_t heads = n * GHT_PEAKS_HEAD, size = sizeof *out->v, total = 0;
    size_t guess = dev->peaks_last > n * GHT_PEAKS_GUESS ? dev->peaks_last : n * GHT_PEAKS_GUESS;
    unsigned char *all = votecl__malloc(heads + n * cap * size), *at;
    votecl_status status;

    guess = guess < n * cap ? guess : n * cap;
    if (all == NULL)
        return fail_memory(dev);
    status = votecl_buffer_read(dev->buf[GHT_B_PACKED], 0, all, heads + guess * size);
    for (size_t c = 0; c < n && status == VOTECL_OK; c++)
        total += head_kept(all + c * GHT_PEAKS_HEAD, cap);
    if (status == VOTECL_OK && total > guess)
        status = votecl_buffer_read(dev->buf[GHT_B_PACKED], heads + guess * size,
                                    all + heads + guess * size, (total - guess) * size);
    dev->peaks_last = total;
    at = all + heads;
    for (size_t c = 0; c < n && status == VOTECL_OK; c++) {
        size_t kept = head_kept(all + c * GHT_PEAKS_HEAD, cap);
        uint32_t count;
        memcpy(&count, all + c * GHT_PEAKS_HEAD, 4);
        if (over != NULL)
            over[c] = count > cap;
        status = take_peaks(dev, at, kept, &out[c]);
        at += kept * size;
    }
    free(all);
    return status;
}

/* The maxima of the n D spaces in GHT_B_OUT with room for cap per candidate (ght_space_max,
 * ght_space_peaks), packed on the device (ght_peaks_pack) so that the read takes only the
 * maxima found, not each candidate's room; over as peaks_read. */
static votecl_status
space_peaks(votecl__ght_device *dev, size_t n, uint32_t gw, uint32_t gh, size_t cap,
            votecl__ght_dpeaks *out, unsigned char *over)
{
    size_t cells = (size_t)gw * gh, region = GHT_PEAKS_HEAD + cap * sizeof(votecl__ght_dpeak);
    size_t local[2] = {GHT_WG, 1}, gmax[2] = {64 * GHT_WG, n};
    size_t global[2] = {votecl__round_up(cells, GHT_WG), n};
    size_t gpack[2] = {votecl__round_up(cap > 4 ? cap : 4, GHT_WG), n};
    votecl_status status;

    if ((status = room(dev, GHT_B_PEAKS, n * region)) != VOTECL_OK ||
        (status = room(dev, GHT_B_PACKED, n * region)) != VOTECL_OK ||
        (status = votecl__buffer_zero(dev->buf[GHT_B_PEAKS], 0, n * region)) != VOTECL_OK ||
        (status = launch(dev, K_SPACE_MAX, 2, gmax, local,
                         (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[GHT_B_OUT]),
                                         VOTECL__ARG_UINT(cells), VOTECL__ARG_ULONG(region / 8),
                                         VOTECL__ARG_BUF(dev->buf[GHT_B_PEAKS])},
                         4)) != VOTECL_OK ||
        (status = launch(
             dev, K_SPACE_PEAKS, 2, global, local,
             (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[GHT_B_OUT]), VOTECL__ARG_UINT(gw),
                             VOTECL__ARG_UINT(gh), VOTECL__ARG_UINT(dev->desc.p.position_threshold),
                             VOTECL__ARG_UINT(cap), VOTECL__ARG_BUF(dev->buf[GHT_B_PEAKS])},
             6)) != VOTECL_OK ||
        (status =
             launch(dev, K_PEAKS_PACK, 2, gpack, local,
                    (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[GHT_B_PEAKS]), VOTECL__ARG_UINT(cap),
                                    VOTECL__ARG_UINT(n), VOTECL__ARG_BUF(dev->buf[GHT_B_PACKED])},
                    4)) != VOTECL_OK)
        return status;
    return peaks_read(dev, n, cap, out, over);
}

votecl_status
votecl__ght_device_dpeaks(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol,
                          uint32_t gw, uint32_t gh, votecl__ght_dpeaks *out)
{
    votecl__ght_device *dev = user;
    size_t full = ((size_t)gw + 1) / 2 * (((size_t)gh + 1) / 2);
    size_t cap = full < GHT_PEAKS_CAP ? full : GHT_PEAKS_CAP;
    unsigned char *over = votecl__calloc(n > 0 ? n : 1, 1);
    votecl_status status = over != NULL ? dspace_build(dev, n, c, tol, gw, gh) : fail_memory(dev);

    if (status == VOTECL_OK)
        status = space_peaks(dev, n, gw, gh, cap, out, over);
    /* a candidate with more maxima than the batch keeps: alone, with room for all (a 3x3
     * maximum has no equal neighbour before it, so there is at most one per 2 x 2 cells) */
    for (size_t k = 0; status == VOTECL_OK && k < n; k++)
        if (over[k] && (status = dspace_build(dev, 1, &c[k], tol, gw, gh)) == VOTECL_OK)
            status = space_peaks(dev, 1, gw, gh, full, &out[k], NULL);
    free(over);
    return status;
}

/* The label maps of the selected maxima of n candidates into GHT_B_LABELS. */
static votecl_status
label_maps(votecl__ght_device *dev, size_t n, uint32_t gw, uint32_t gh, const votecl__ght_sel *sel,
           size_t nsel)
{
    uint32_t radius = votecl__ght_match_radius(&dev->desc);
    size_t side = 2 * (size_t)radius + 1, local = GHT_WG, bytes = n * gw * gh * 4;
    size_t global = votecl__round_up(nsel * side * side, local);
    votecl_status status;

    if ((status = room(dev, GHT_B_LABELS, bytes)) != VOTECL_OK ||
        (status = votecl__buffer_zero(dev->buf[GHT_B_LABELS], 0, bytes)) != VOTECL_OK ||
        (status = upload(dev, GHT_B_CELLS, sel, nsel * sizeof *sel)) != VOTECL_OK || nsel == 0)
        return status;
    return launch(dev, K_LABELS, 1, &global, &local,
                  (votecl__arg[]){VOTECL__ARG_BUF(dev->buf[GHT_B_CELLS]), VOTECL__ARG_UINT(nsel),
                                  VOTECL__ARG_UINT(radius), VOTECL__ARG_UINT(gw),
                                  VOTECL__ARG_UINT(gh), VOTECL__ARG_BUF(dev->buf[GHT_B_LABELS])},
                  6);
}

/* ght_matches' pass over n candidates (pass 1 into GHT_B_MATCHES with room for cap); args: the
 * walk's first 11 (cands uploaded), room for 19. */
static votecl_status
matches_walk(votecl__ght_device *dev, size_t n, votecl__arg *args, size_t nsel, unsigned pass,
             size_t cap)
{
    votecl_status status;

    if ((status = room(dev, GHT_B_MATCHES, GHT_MATCHES_HEAD + cap * sizeof(votecl__ght_match))) !=
            VOTECL_OK ||
        (status = votecl__buffer_zero(dev->buf[GHT_B_MATCHES], 0, GHT_MATCHES_HEAD)) != VOTECL_OK)
        return status;
    args[11] = VOTECL__ARG_BUF(dev->buf[GHT_B_LABELS]);
    args[12] = VOTECL__ARG_UINT(nsel);
    args[13] = VOTECL__ARG_UINT(pass);
    args[14] = VOTECL__ARG_BUF(dev->buf[GHT_B_SELCOUNT]);
    args[15] = VOTECL__ARG_BUF(dev->buf[GHT_B_THRESH]);
    args[16] = VOTECL__ARG_UINT(cap);
    args[17] = VOTECL__ARG_BUF(dev->buf[GHT_B_MATCHES]); /* after room: it may be new */
    args[18] = VOTECL__ARG_FLOAT((float)votecl__ght_match_span(&dev->desc));
    return walk(dev, K_MATCHES, n, args, 19);
}

/* Pass 0: the matches per maximum, turned into the sample's thresholds in GHT_B_THRESH. */
static votecl_status
matches_thresholds(votecl__ght_device *dev, size_t n, votecl__arg *args, size_t nsel)
{
    uint32_t *count = votecl__malloc(nsel * sizeof *count);
    votecl_status status;

    if (count == NULL)
        return fail_memory(dev);
    if ((status = room(dev, GHT_B_SELCOUNT, nsel * 4)) == VOTECL_OK &&
        (status = room(dev, GHT_B_THRESH, nsel * 4)) == VOTECL_OK &&
        (status = votecl__buffer_zero(dev->buf[GHT_B_SELCOUNT], 0, nsel * 4)) == VOTECL_OK &&
        (status = matches_walk(dev, n, args, nsel, 0, 1)) == VOTECL_OK &&
        (status = votecl_buffer_read(dev->buf[GHT_B_SELCOUNT], 0, count, nsel * 4)) == VOTECL_OK) {
        for (size_t k = 0; k < nsel; k++)
            count[k] = votecl__ght_sample_threshold(count[k]);
        status = upload(dev, GHT_B_THRESH, count, nsel * 4);
    }
    free(count);
    return status;
}

/* Reads the matches' head and up to a guess of them in one read, the rest (up to cap) in a
 * second; *n: how many there were (may exceed cap). The guess is the last call's count (a plan
 * mostly sees like images: one read), at least GHT_MATCHES_GUESS. */
static votecl_status
matches_read(votecl__ght_device *dev, size_t cap, votecl__ght_matches *out, uint32_t *n)
{
    size_t guess = dev->matches_last > GHT_MATCHES_GUESS ? dev->matches_last : GHT_MATCHES_GUESS;
    size_t first = guess < cap ? guess : cap, have, size = sizeof *out->v;
    unsigned char *buf = votecl__malloc(GHT_MATCHES_HEAD + first * size);
    votecl_status status;

    if (buf == NULL)
        return fail_memory(dev);
    if ((status = votecl_buffer_read(dev->buf[GHT_B_MATCHES], 0, buf,
                                     GHT_MATCHES_HEAD + first * size)) != VOTECL_OK)
        goto out;
    memcpy(n, buf, 4);
    dev->matches_last = *n;
    have = *n < cap ? *n : cap;
    if (have > out->capacity) {
        votecl__ght_match *v = votecl__realloc(out->v, have * size);
        if (v == NULL) {
            status = fail_memory(dev);
            goto out;
        }
        out->v = v;
        out->capacity = have;
    }
    if (have > 0) /* out->v may still be NULL: memcpy(NULL, .., 0) is undefined */
        memcpy(out->v, buf + GHT_MATCHES_HEAD, (have < first ? have : first) * size);
    if (have > first)
        status = votecl_buffer_read(dev->buf[GHT_B_MATCHES], GHT_MATCHES_HEAD + first * size,
                                    out->v + first, (have - first) * size);
    out->n = have;
out:
    free(buf);
    return status;
}

votecl_status
votecl__ght_device_matches(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol,
                           uint32_t gw, uint32_t gh, const votecl__ght_sel *sel, size_t nsel,
                           votecl__ght_matches *out)
{
    votecl__ght_device *dev = user;
    size_t cap = dev->matches_cap > 65536 ? dev->matches_cap : 65536;
    uint32_t count = 0;
    votecl__arg args[19];
    votecl_status status;

    out->n = 0;
    if ((status = upload_cands(dev, n, c, NULL)) != VOTECL_OK ||
        (status = label_maps(dev, n, gw, gh, sel, nsel)) != VOTECL_OK || nsel == 0)
        return status;
    position_args(dev, tol, gw, gh, args);
    if ((status = matches_thresholds(dev, n, args, nsel)) == VOTECL_OK &&
        (status = matches_walk(dev, n, args, nsel, 1, cap)) == VOTECL_OK)
        status = matches_read(dev, cap, out, &count);
    if (status == VOTECL_OK && count > cap) { /* too many for the room: once more, enough */
        dev->matches_cap = cap = count;
        if ((status = matches_walk(dev, n, args, nsel, 1, cap)) == VOTECL_OK)
            status = matches_read(dev, cap, out, &count);
    }
    return status;
}

/* The factors (votecl__ght_rs) of every rotation and scale step, the R-table bin shift of
 * every rotation step. */
static votecl_status
ballard_tables(votecl__ght_device *dev)
{
    const votecl__ght_desc *d = &dev->desc;
    size_t steps = (size_t)d->rotations * d->scales;
    float *rs = votecl__malloc(steps * 2 * sizeof *rs);
    uint32_t *shift = votecl__malloc((size_t)d->rotations * sizeof *shift);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (rs == NULL || shift == NULL)
        goto out;
    for (uint32_t k = 0; k < d->rotations; k++) {
        double a = votecl__ght_angle(d, k) * GHT_PI / 180.0, c = cos(a), sn = sin(a);
        for (uint32_t s = 0; s < d->scales; s++)
            votecl__ght_rs(c, sn, votecl__ght_scale(d, s), &rs[2 * ((size_t)k * d->scales + s)]);
        shift[k] = (uint32_t)lround(votecl__ght_angle(d, k) * d->levels / 360.0) % d->levels;
    }
    if ((status = upload(dev, GHT_B_E, rs, steps * 8)) == VOTECL_OK)
        status = upload(dev, GHT_B_F, shift, (size_t)d->rotations * 4);
out:
    free(rs);
    free(shift);
    return status == VOTECL_OUT_OF_HOST_MEMORY ? fail_memory(dev) : status;
}

votecl_status
votecl__ght_device_ballard_bind(votecl__ght_device *dev, const votecl__ght_rtable *table)
{
    size_t L1 = (size_t)dev->desc.levels + 1;
    votecl_status status;

    if ((status = upload(dev, GHT_B_B, table->offsets, L1 * 4)) == VOTECL_OK &&
        (status = upload(dev, GHT_B_C, table->dx, table->n * 4)) == VOTECL_OK &&
        (status = upload(dev, GHT_B_D, table->dy, table->n * 4)) == VOTECL_OK)
        status = ballard_tables(dev);
    return status;
}

votecl_status
votecl__ght_device_ballard_vote(votecl__ght_device *dev, const votecl_buffer *points, size_t n,
                                uint32_t width, uint32_t height, votecl_buffer *space)
{
    const votecl__ght_desc *d = &dev->desc;
    size_t cells = votecl__ght_ballard_cells(d, width, height);
    size_t local[2] = {GHT_WG, 1}, global[2];
    uint32_t gw, gh;
    votecl_status status = votecl__buffer_zero(space, 0, cells * 4);

    votecl__ght_grid(d, width, height, &gw, &gh);
    if (status != VOTECL_OK || n == 0)
        return status;
    global[0] = votecl__round_up(n, GHT_WG);
    global[1] = d->rotations;
    return launch(
        dev, K_BALLARD, 2, global, local,
        (votecl__arg[]){VOTECL__ARG_BUF(points), VOTECL__ARG_UINT(n),
                        VOTECL__ARG_BUF(dev->buf[GHT_B_B]), VOTECL__ARG_BUF(dev->buf[GHT_B_C]),
                        VOTECL__ARG_BUF(dev->buf[GHT_B_D]), VOTECL__ARG_BUF(dev->buf[GHT_B_E]),
                        VOTECL__ARG_BUF(dev->buf[GHT_B_F]), VOTECL__ARG_UINT(d->rotations),
                        VOTECL__ARG_UINT(d->p.dp), VOTECL__ARG_UINT(gw), VOTECL__ARG_UINT(gh),
                        VOTECL__ARG_BUF(space)},
        12);
}

votecl_status
votecl__ght_device_ballard(votecl__ght_device *dev, const votecl__ght_rtable *table,
                           const votecl__ght_edges *edges, uint32_t width, uint32_t height,
                           uint32_t *space)
{
    size_t cells = votecl__ght_ballard_cells(&dev->desc, width, height);
    votecl_status status;

    if ((status = votecl__ght_device_ballard_bind(dev, table)) != VOTECL_OK ||
        (status = upload(dev, GHT_B_A, edges->points, edges->n * sizeof *edges->points)) !=
            VOTECL_OK ||
        (status = votecl__buffer_ensure(dev->context, &dev->buf[GHT_B_OUT], cells * 4)) !=
            VOTECL_OK ||
        (status = votecl__ght_device_ballard_vote(dev, dev->buf[GHT_B_A], edges->n, width, height,
                                                  dev->buf[GHT_B_OUT])) != VOTECL_OK)
        return status;
    return votecl_buffer_read(dev->buf[GHT_B_OUT], 0, space, cells * 4);
}

/* --- the host plan of CPU devices --- */

/* votecl__ght_ref_ballard_vote's counts, the same arithmetic in another order: per rotation
 * and scale the R-table's offsets turned once (q), then bin by bin the image's edges (sorted
 * by bin) against the R-table's row; a coordinate c lands in cell floor(c / dp + 1/2), which is
 * in [0, n) exactly when c / dp + 1/2 is, so the test needs no floor. Returns -1 when out of
 * memory. */
int
votecl__ght_host_ballard_vote(const votecl__ght_desc *desc, const votecl__ght_rtable *table,
                              const votecl__ght_edges *edges, uint32_t width, uint32_t height,
                              uint32_t *space)
{
    uint32_t gw, gh, L = desc->levels;
    double dp = (double)desc->p.dp, *q = votecl__malloc((table->n > 0 ? table->n : 1) * 2 * 8);
    double inv = (desc->p.dp & (desc->p.dp - 1)) == 0 ? 1.0 / dp : 0;

    if (q == NULL)
        return -1;
    votecl__ght_grid(desc, width, height, &gw, &gh);
    memset(space, 0, votecl__ght_ballard_cells(desc, width, height) * sizeof *space);
    for (uint32_t k = 0; k < desc->rotations; k++) {
        double a = votecl__ght_angle(desc, k) * GHT_PI / 180.0, c = cos(a), s = sin(a);
        uint32_t shift = rotation_shift(desc, k);
        for (uint32_t si = 0; si < desc->scales; si++) {
            uint32_t *plane = space + ((size_t)si * desc->rotations + k) * gh * gw;
            float rs[2];
            votecl__ght_rs(c, s, votecl__ght_scale(desc, si), rs);
            for (size_t r = 0; r < table->n; r++) {
                double dx = table->dx[r], dy = table->dy[r];
                q[2 * r] = (double)rs[0] * dx - (double)rs[1] * dy;
                q[2 * r + 1] = (double)rs[1] * dx + (double)rs[0] * dy;
            }
            for (uint32_t b = 0; b < L; b++) {
                uint32_t t = (b + L - shift) % L, r0 = table->offsets[t],
                         r1 = table->offsets[t + 1];
                for (uint32_t e = edges->offsets[b]; e < edges->offsets[b + 1] && r0 < r1; e++) {
                    double px = edges->points[e].x, py = edges->points[e].y;
                    for (uint32_t r = r0; r < r1; r++) {
                        double x = px + q[2 * r], y = py + q[2 * r + 1];
                        /* / dp; a power of two's reciprocal is exact, so is the product */
                        x = (inv > 0 ? x * inv : x / dp) + 0.5;
                        y = (inv > 0 ? y * inv : y / dp) + 0.5;
                        if (x >= 0 && y >= 0 && x < gw && y < gh)
                            plane[(size_t)(uint32_t)y * gw + (uint32_t)x]++;
                    }
                }
            }
        }
    }
    free(q);
    return 0;
}

/* Ballard on a CPU device runs on the host: its vote is a few thousand increments and its
 * maxima a pass over the accumulator, where each of PoCL's launches costs tens of
 * microseconds of scheduling and the first call the code generation of the vote and maxima
 * kernels (docs/performance.md, "Every algorithm against OpenCV on PoCL"). */
int
votecl__ght_host_plan(const votecl_context *context, const votecl__ght_desc *desc)
{
    return votecl__ght_cpu_shape(context) && desc->p.method == VOTECL_GHT_BALLARD;
}

/* --- the stage table's vote stages (lib/ght-private.h) --- */

const votecl__ght_stages *
votecl__ght_stages_ref(votecl__ght_run *run, votecl__ght_stages *room)
{
    (void)run;
    (void)room;
    return NULL; /* votecl__ght_guil's own: the reference's over the host pairings */
}

const votecl__ght_stages *
votecl__ght_stages_device(votecl__ght_run *run, votecl__ght_stages *room)
{
    room->sspace = votecl__ght_device_sspace;
    room->dpeaks = votecl__ght_device_dpeaks;
    room->matches = votecl__ght_device_matches;
    room->user = run->dev;
    return room;
}

votecl_status
votecl__ght_bind_ref(votecl__ght_run *run, const votecl__ght_rtable *table)
{
    run->rtable = table;
    return VOTECL_OK;
}

votecl_status
votecl__ght_bind_device(votecl__ght_run *run, const votecl__ght_rtable *table)
{
    return votecl__ght_device_ballard_bind(run->dev, table);
}

/* The host's accumulator of a width x height image, grown as needed. */
static votecl_status
run_space(votecl__ght_run *run, uint32_t width, uint32_t height)
{
    size_t cells = votecl__ght_ballard_cells(run->desc, width, height);

    if (cells > run->space_cells) {
        uint32_t *space = votecl__realloc(run->space, cells * sizeof *space);
        if (space == NULL)
            return votecl__fail(run->context, VOTECL_OUT_OF_HOST_MEMORY,
                                "out of memory for %zu cells", cells);
        run->space = space;
        run->space_cells = cells;
    }
    return VOTECL_OK;
}

votecl_status
votecl__ght_vote_ref(votecl__ght_run *run, uint32_t width, uint32_t height)
{
    votecl_status status = run_space(run, width, height);

    if (status == VOTECL_OK)
        votecl__ght_ref_ballard_vote(run->desc, run->rtable, &run->edges, width, height,
                                     run->space);
    return status;
}

votecl_status
votecl__ght_vote_host(votecl__ght_run *run, uint32_t width, uint32_t height)
{
    votecl_status status = run_space(run, width, height);

    if (status == VOTECL_OK && votecl__ght_host_ballard_vote(run->desc, run->rtable, &run->edges,
                                                             width, height, run->space) != 0)
        status = votecl__fail(run->context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    return status;
}

votecl_status
votecl__ght_vote_device(votecl__ght_run *run, uint32_t width, uint32_t height)
{
    votecl__ght_front *f = run->front;
    size_t cells = votecl__ght_ballard_cells(run->desc, width, height);
    votecl_status status = votecl__ght_ensure(f->context, &f->buf[GHT_F_SPACE], cells * 4);

    if (status != VOTECL_OK)
        return status;
    return votecl__ght_device_ballard_vote(run->dev, f->buf[GHT_F_POINTS],
                                           votecl__ght_front_count(f, NULL), width, height,
                                           f->buf[GHT_F_SPACE]);
}
