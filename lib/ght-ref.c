/* The generalized Hough transform, sequentially: the specification of every stage (edges,
 * sorted lists, pairings, O, S and D spaces of Guil's fast GHT; the R-table and 4-D
 * accumulator of Ballard's), the test oracle and the 'ref' backend. */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ght-private.h"

#define GHT_PI 3.14159265358979323846

/* --- quantisation --- */

void
votecl__ght_desc_init(votecl__ght_desc *desc, const votecl_ght_params *params)
{
    const votecl_ght_params *p = params;
    double span = p->max_angle - p->min_angle;

    memset(desc, 0, sizeof *desc);
    desc->p = *p;
    desc->levels = p->levels;
    desc->xi_bins = (uint32_t)lround(p->xi * p->levels / 360.0) % p->levels;
    desc->eps = p->angle_epsilon;
    desc->rotations = (uint32_t)ceil(span / p->angle_step - 1e-9);
    desc->rotations = desc->rotations < 1 ? 1 : desc->rotations;
    desc->full_circle = desc->rotations * p->angle_step >= 360.0 - 1e-9;
    desc->scales = (uint32_t)floor((p->max_scale - p->min_scale) / p->scale_step + 1e-9) + 1;
    for (uint32_t b = 0; b < desc->levels; b++) {
        double a = 2.0 * GHT_PI * (b + 0.5) / desc->levels, c = cos(a), s = sin(a);
        desc->dirs[2 * b] = (float)(fabs(c) < 1e-12 ? 0.0 : c);
        desc->dirs[2 * b + 1] = (float)(fabs(s) < 1e-12 ? 0.0 : s);
    }
}

/* (gx, gy) in the upper half-plane [0, 180) degrees (boundary b: 2 b < L). */
static int
upper_half(int32_t gx, int32_t gy)
{
    return gy > 0 || (gy == 0 && gx > 0);
}

/* (gx, gy) is at or past boundary b ((b + 1/2) 360 / L degrees) counterclockwise from 0
 * degrees: exact, each product a float times an integer below 2^29 (cl/ght.cl's ght_past). */
static int
past_boundary(const float *dirs, uint32_t levels, uint32_t b, int upper, int32_t gx,
              int32_t gy)
{
    int b_upper = 2 * b + 1 < levels;

    if (b_upper != upper)
        return b_upper;
    return (double)dirs[2 * b] * (double)gy >= (double)dirs[2 * b + 1] * (double)gx;
}

uint32_t
votecl__ght_bin(const votecl__ght_desc *desc, int32_t gx, int32_t gy)
{
    uint32_t lo = 0, hi = desc->levels;
    int upper = upper_half(gx, gy);

    /* Bins are centred on 360 b / L degrees: flooring at boundaries 360 b / L put the many
     * exactly axis-aligned (and diagonal) gradients and pairing directions of a template on
     * a bin's lower edge, so a rotation by n + f bins moved them by n, never n + 1, and the
     * rotation correlation peaked low (a mean angle error of -0.7 bins). */
    if (!past_boundary(desc->dirs, desc->levels, 0, upper, gx, gy))
        return 0;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (past_boundary(desc->dirs, desc->levels, mid, upper, gx, gy))
            lo = mid;
        else
            hi = mid;
    }
    return (lo + 1) % desc->levels;
}

float
votecl__ght_scale_bound(const votecl__ght_desc *desc, uint32_t k)
{
    return (float)(desc->p.min_scale + ((double)k - 0.5) * desc->p.scale_step);
}

void
votecl__ght_rs(double c, double s, double scale, float rs[2])
{
    rs[0] = (float)(scale * c);
    rs[1] = (float)(scale * s);
}

double
votecl__ght_angle(const votecl__ght_desc *desc, double k)
{
    double a = fmod(desc->p.min_angle + k * desc->p.angle_step, 360.0);
    return a < 0 ? a + 360.0 : a;
}

double
votecl__ght_scale(const votecl__ght_desc *desc, double k)
{
    return desc->p.min_scale + k * desc->p.scale_step;
}

void
votecl__ght_grid(const votecl__ght_desc *desc, uint32_t width, uint32_t height, uint32_t *gw,
                 uint32_t *gh)
{
    *gw = width / desc->p.dp + 1;
    *gh = height / desc->p.dp + 1;
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

votecl_status
votecl__ght_poses_push(votecl__ght_poses *poses, const votecl_ght_pose *pose)
{
    if (poses->n == poses->capacity) {
        size_t cap = poses->capacity > 0 ? 2 * poses->capacity : 64;
        votecl_ght_pose *v = votecl__realloc(poses->v, cap * sizeof *v);
        if (v == NULL)
            return VOTECL_OUT_OF_HOST_MEMORY;
        poses->v = v;
        poses->capacity = cap;
    }
    poses->v[poses->n++] = *pose;
    return VOTECL_OK;
}

/* --- edges --- */

static void
sobel(const uint8_t *d, uint32_t w, uint32_t x, uint32_t y, int32_t *gx, int32_t *gy)
{
    const uint8_t *r0 = d + (size_t)(y - 1) * w + x, *r1 = r0 + w, *r2 = r1 + w;

    *gx = (r0[1] + 2 * r1[1] + r2[1]) - (r0[-1] + 2 * r1[-1] + r2[-1]);
    *gy = (r2[-1] + 2 * r2[0] + r2[1]) - (r0[-1] + 2 * r0[0] + r0[1]);
}

/* Non-maximum suppression in one of four directions (tan 22.5 and tan 67.5 as integer
 * ratios): strictly above the neighbour behind, at least the one ahead. */
static int
is_ridge(const int32_t *mag, uint32_t w, size_t i, int32_t gx, int32_t gy)
{
    int64_t ax = gx < 0 ? -(int64_t)gx : gx, ay = gy < 0 ? -(int64_t)gy : gy;
    ptrdiff_t step;

    if (ay * 100000 <= ax * 41421)
        step = 1;
    else if (ay * 100000 >= ax * 241421)
        step = (ptrdiff_t)w;
    else
        step = ((gx < 0) == (gy < 0)) ? (ptrdiff_t)w + 1 : (ptrdiff_t)w - 1;
    return mag[i] > mag[i - step] && mag[i] >= mag[i + step];
}

/* Hysteresis: state 2 (strong) spreads to 8-connected state 1 (weak). */
static int
hysteresis(uint8_t *state, uint32_t w, uint32_t h)
{
    size_t n = (size_t)w * h, top = 0;
    uint32_t *stack = votecl__malloc((n > 0 ? n : 1) * sizeof *stack);

    if (stack == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (state[i] == 2)
            stack[top++] = (uint32_t)i;
    while (top > 0) {
        size_t i = stack[--top];
        uint32_t x = (uint32_t)(i % w), y = (uint32_t)(i / w);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                size_t j;
                if ((dx == 0 && dy == 0) || x + dx >= w || y + dy >= h)
                    continue;
                j = (size_t)(y + dy) * w + (x + dx);
                if (state[j] == 1) {
                    state[j] = 2;
                    stack[top++] = (uint32_t)j;
                }
            }
    }
    free(stack);
    return 0;
}

size_t
votecl__ght_ref_canny(const votecl__ght_desc *desc, const uint8_t *data, uint32_t width,
                      uint32_t height, unsigned low, unsigned high, votecl__ght_point *out)
{
    size_t n = (size_t)width * height, count = 0;
    int32_t *mag = votecl__calloc(n > 0 ? n : 1, sizeof *mag), *g = votecl__malloc((n > 0 ? n : 1) * 8);
    uint8_t *state = votecl__calloc(n > 0 ? n : 1, 1);

    if (mag == NULL || g == NULL || state == NULL) {
        count = (size_t)-1;
        goto out;
    }
    for (uint32_t y = 1; y + 1 < height; y++)
        for (uint32_t x = 1; x + 1 < width; x++) {
            size_t i = (size_t)y * width + x;
            sobel(data, width, x, y, &g[2 * i], &g[2 * i + 1]);
            mag[i] = abs(g[2 * i]) + abs(g[2 * i + 1]);
        }
    for (uint32_t y = 1; y + 1 < height; y++)
        for (uint32_t x = 1; x + 1 < width; x++) {
            size_t i = (size_t)y * width + x;
            if (mag[i] > (int32_t)low && is_ridge(mag, width, i, g[2 * i], g[2 * i + 1]))
                state[i] = mag[i] > (int32_t)high ? 2 : 1;
        }
    if (low < high && hysteresis(state, width, height) != 0) {
        count = (size_t)-1;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (state[i] == 2 || (low >= high && state[i] == 1)) {
            out[count].x = (int32_t)(i % width);
            out[count].y = (int32_t)(i / width);
            out[count++].bin = votecl__ght_bin(desc, g[2 * i], g[2 * i + 1]);
        }
out:
    free(mag);
    free(g);
    free(state);
    return count;
}

/* --- sorted lists --- */

votecl_status
votecl__ght_edges_sort(const votecl__ght_point *points, size_t n, uint32_t levels,
                       votecl__ght_edges *edges)
{
    uint32_t *next;

    memset(edges, 0, sizeof *edges);
    edges->points = votecl__malloc((n > 0 ? n : 1) * sizeof *points);
    edges->offsets = votecl__calloc((size_t)levels + 1, sizeof *edges->offsets);
    next = votecl__malloc((size_t)levels * sizeof *next);
    if (edges->points == NULL || edges->offsets == NULL || next == NULL) {
        free(next);
        votecl__ght_edges_clear(edges);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        edges->offsets[points[i].bin + 1]++;
    for (uint32_t b = 0; b < levels; b++)
        edges->offsets[b + 1] += edges->offsets[b];
    memcpy(next, edges->offsets, (size_t)levels * sizeof *next);
    for (size_t i = 0; i < n; i++)
        edges->points[next[points[i].bin]++] = points[i];
    edges->n = n;
    free(next);
    return VOTECL_OK;
}

void
votecl__ght_edges_clear(votecl__ght_edges *edges)
{
    free(edges->points);
    free(edges->offsets);
    memset(edges, 0, sizeof *edges);
}

void
votecl__ght_pairs_clear(votecl__ght_pairs *pairs)
{
    free(pairs->pairs);
    free(pairs->offsets);
    free(pairs->keys);
    memset(pairs, 0, sizeof *pairs);
}

/* The partner bin of bin t for tolerance step k in [0, 2 eps]. */
static uint32_t
partner_bin(const votecl__ght_desc *desc, uint32_t t, uint32_t k)
{
    uint32_t L = desc->levels;
    return (uint32_t)(((uint64_t)t + desc->xi_bins + L * (uint64_t)(desc->eps + 1) + k -
                       desc->eps) %
                      L);
}

/* Pairing of points a (theta) and b: key theta L + alpha, alpha the bin of (b - a) minus
 * theta (the same quantiser as gradients, so rotations shift both alike). */
static votecl__ght_pair
make_pair(const votecl__ght_desc *desc, const votecl__ght_point *a, const votecl__ght_point *b)
{
    uint32_t levels = desc->levels;
    int32_t dx = b->x - a->x, dy = b->y - a->y;
    uint32_t dir = votecl__ght_bin(desc, dx, dy);
    uint32_t alpha = (dir + levels - a->bin) % levels;
    votecl__ght_pair p = {a->bin * levels + alpha, a->x, a->y, b->x, b->y,
                          sqrtf((float)(dx * dx + dy * dy))};
    return p;
}

/* Counts the pairings, bin by bin (i in bin t, j in the partner bins), and writes them to
 * out unless NULL. */
static size_t
pairs_visit(const votecl__ght_desc *desc, const votecl__ght_edges *e, votecl__ght_pair *out)
{
    size_t n = 0;

    for (uint32_t t = 0; t < desc->levels; t++)
        for (uint32_t k = 0; k <= 2 * desc->eps; k++) {
            uint32_t u = partner_bin(desc, t, k);
            for (uint32_t i = e->offsets[t]; i < e->offsets[t + 1]; i++)
                for (uint32_t j = e->offsets[u]; j < e->offsets[u + 1]; j++) {
                    if (e->points[i].x == e->points[j].x && e->points[i].y == e->points[j].y)
                        continue;
                    if (out != NULL)
                        out[n] = make_pair(desc, &e->points[i], &e->points[j]);
                    n++;
                }
        }
    return n;
}

uint32_t
votecl__ght_pair_hash(uint32_t key, int32_t xi, int32_t yi, int32_t xj, int32_t yj)
{
    uint32_t w[5] = {key, (uint32_t)xi, (uint32_t)yi, (uint32_t)xj, (uint32_t)yj};

    return votecl__ght_hash(w, 5);
}

void
votecl__ght_pairs_cap(const votecl__ght_desc *desc, votecl__ght_pairs *pairs)
{
    size_t keys = (size_t)desc->levels * desc->levels;
    uint32_t kept = 0;

    if (pairs->offsets == NULL)
        return;
    for (size_t k = 0; k < keys; k++) {
        uint32_t first = pairs->offsets[k], end = pairs->offsets[k + 1];
        uint32_t thr = votecl__ght_keep_threshold(end - first, VOTECL__GHT_KEY_CAP);
        pairs->offsets[k] = kept;
        for (uint32_t i = first; i < end; i++) {
            const votecl__ght_pair *q = &pairs->pairs[i];
            if (thr == UINT32_MAX ||
                votecl__ght_pair_hash(q->key, q->xi, q->yi, q->xj, q->yj) <= thr)
                pairs->pairs[kept++] = *q;
        }
    }
    pairs->offsets[keys] = kept;
    pairs->n = kept;
    pairs->nkeys = 0; /* fewer keys, maybe: keys has room */
    for (size_t k = 0; k < keys; k++)
        if (pairs->offsets[k + 1] > pairs->offsets[k])
            pairs->keys[pairs->nkeys++] = (uint32_t)k;
}

votecl_status
votecl__ght_ref_pairs(const votecl__ght_desc *desc, const votecl__ght_edges *edges,
                      votecl__ght_pairs *pairs)
{
    size_t keys = (size_t)desc->levels * desc->levels, n = pairs_visit(desc, edges, NULL);
    votecl__ght_pair *raw;
    uint32_t *next;

    memset(pairs, 0, sizeof *pairs);
    if (n > UINT32_MAX)
        return VOTECL_UNSUPPORTED;
    raw = votecl__malloc((n > 0 ? n : 1) * sizeof *raw);
    pairs->pairs = votecl__malloc((n > 0 ? n : 1) * sizeof *raw);
    pairs->offsets = votecl__calloc(keys + 1, sizeof *pairs->offsets);
    next = votecl__malloc(keys * sizeof *next);
    if (raw == NULL || pairs->pairs == NULL || pairs->offsets == NULL || next == NULL) {
        free(raw);
        free(next);
        votecl__ght_pairs_clear(pairs);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    pairs_visit(desc, edges, raw);
    for (size_t i = 0; i < n; i++)
        pairs->offsets[raw[i].key + 1]++;
    for (size_t k = 0; k < keys; k++)
        pairs->offsets[k + 1] += pairs->offsets[k];
    memcpy(next, pairs->offsets, keys * sizeof *next);
    for (size_t i = 0; i < n; i++)
        pairs->pairs[next[raw[i].key]++] = raw[i];
    pairs->n = n;
    free(raw);
    for (size_t k = 0; k < keys; k++)
        if (pairs->offsets[k + 1] > pairs->offsets[k])
            next[pairs->nkeys++] = (uint32_t)k;
    pairs->keys = next;
    return VOTECL_OK;
}

void
votecl__ght_ref_ospace(const votecl__ght_desc *desc, const votecl__ght_pairs *pairs,
                       uint32_t *space)
{
    size_t keys = (size_t)desc->levels * desc->levels;

    for (size_t k = 0; k < keys; k++)
        space[k] = pairs->offsets[k + 1] - pairs->offsets[k];
}

/* --- Guil: scale and position --- */

/* Runs BODY for every (template pairing T, image pairing I) that agree under bin shift b. */
#define FOR_AGREEING(desc, tp, ip, b, T, I, ...)                                          \
    for (size_t n_ = 0; n_ < (tp)->nkeys; n_++) {                                         \
        uint32_t key_ = (tp)->keys[n_], L_ = (desc)->levels;                              \
        uint32_t k2_ = ((key_ / L_ + (b)) % L_) * L_ + key_ % L_;                         \
        for (uint32_t i_ = (tp)->offsets[key_]; i_ < (tp)->offsets[key_ + 1]; i_++)       \
            for (uint32_t j_ = (ip)->offsets[k2_]; j_ < (ip)->offsets[k2_ + 1]; j_++) {   \
                const votecl__ght_pair *T = &(tp)->pairs[i_], *I = &(ip)->pairs[j_];      \
                __VA_ARGS__                                                               \
            }                                                                             \
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

static void
scale_hist(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
           const votecl__ght_pairs *ip, uint32_t b, uint64_t *hist)
{
    memset(hist, 0, desc->scales * sizeof *hist);
    FOR_AGREEING(desc, tp, ip, b, T, I, {
        int32_t k = scale_bin(desc, I->d, T->d);
        if (k >= 0)
            hist[k]++;
    })
}

/* The cell of the centre that point (px, py) votes for given template point (tx, ty), or -1
 * outside the grid: the template offset (exact in double) turned by the float factors rs
 * (exact products, one rounding). */
static int64_t
position_cell(const votecl__ght_desc *desc, uint32_t gw, uint32_t gh, const float rs[2],
              int32_t px, int32_t py, int32_t tx, int32_t ty)
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
               const votecl__ght_pairs *ip, uint32_t b, uint32_t tol, double angle,
               double scale, uint32_t gw, uint32_t gh, uint32_t *space)
{
    float rs[2];

    angle_factors(angle, scale, rs);
    memset(space, 0, (size_t)gw * gh * sizeof *space);
    for (uint32_t k = 0; k <= 2 * tol; k++)
        FOR_AGREEING(desc, tp, ip, shift_of(desc, b, tol, k), T, I, {
            vote_position(desc, space, gw, gh, rs, I->xi, I->yi, T->xi, T->yi);
            vote_position(desc, space, gw, gh, rs, I->xj, I->yj, T->xj, T->yj);
        })
}

votecl_status
votecl__ght_ref_matches(const votecl__ght_desc *desc, const votecl__ght_pairs *tp,
                        const votecl__ght_pairs *ip, uint32_t b, uint32_t tol, double angle,
                        double scale, uint32_t gw, uint32_t gh, const uint32_t *labels,
                        votecl__ght_matches *out)
{
    float rs[2];

    angle_factors(angle, scale, rs);
    for (uint32_t k = 0; k <= 2 * tol; k++)
        FOR_AGREEING(desc, tp, ip, shift_of(desc, b, tol, k), T, I, {
            int64_t ci = position_cell(desc, gw, gh, rs, I->xi, I->yi, T->xi, T->yi);
            int64_t cj = position_cell(desc, gw, gh, rs, I->xj, I->yj, T->xj, T->yj);
            votecl__ght_match m = {0, I->key, {T->xi, T->yi, T->xj, T->yj},
                                   {I->xi, I->yi, I->xj, I->yj}};
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

/* --- Ballard --- */

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
    free(table->dx);
    free(table->dy);
    free(table->offsets);
    memset(table, 0, sizeof *table);
}

size_t
votecl__ght_ballard_cells(const votecl__ght_desc *desc, uint32_t width, uint32_t height)
{
    uint32_t gw, gh;
    size_t cells;

    votecl__ght_grid(desc, width, height, &gw, &gh);
    if (votecl__mul_overflow((size_t)gw, gh, &cells) ||
        votecl__mul_overflow(cells, desc->rotations, &cells) ||
        votecl__mul_overflow(cells, desc->scales, &cells))
        return 0;
    return cells;
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

/* Cell (si, k, y, x) is a maximum of its 3x3x3x3 neighbourhood (rotation wraps on a full
 * circle; ties go to the lower index). */
static int
is_peak4d(const votecl__ght_desc *desc, const uint32_t *s, uint32_t gw, uint32_t gh,
          uint32_t si, uint32_t k, uint32_t y, uint32_t x)
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

votecl_status
votecl__ght_ref_ballard_peaks(const votecl__ght_desc *desc, const uint32_t *space,
                              uint32_t width, uint32_t height, votecl__ght_poses *out)
{
    uint32_t gw, gh, best = 0, thr;
    size_t cells = votecl__ght_ballard_cells(desc, width, height), plane;

    votecl__ght_grid(desc, width, height, &gw, &gh);
    plane = (size_t)gw * gh;
    for (size_t i = 0; i < cells; i++)
        best = space[i] > best ? space[i] : best;
    thr = (uint32_t)ceil(desc->p.votes_ratio * best);
    thr = thr > desc->p.votes_threshold ? thr : desc->p.votes_threshold;
    thr = thr > 0 ? thr : 1;
    for (size_t i = 0; i < cells; i++) {
        uint32_t x = (uint32_t)(i % gw), y = (uint32_t)(i / gw % gh);
        uint32_t k = (uint32_t)(i / plane % desc->rotations);
        uint32_t si = (uint32_t)(i / plane / desc->rotations);
        votecl_ght_pose pose = {0};
        if (space[i] < thr || !is_peak4d(desc, space, gw, gh, si, k, y, x))
            continue;
        pose.votes = space[i];
        pose.angle = votecl__ght_angle(desc, k);
        pose.scale = votecl__ght_scale(desc, si);
        centroid(desc, space + (i - i % plane), gw, gh, x, y, &pose.x, &pose.y);
        if (votecl__ght_poses_push(out, &pose) != VOTECL_OK)
            return VOTECL_OUT_OF_HOST_MEMORY;
    }
    return VOTECL_OK;
}

/* --- ranking --- */

int
votecl__ght_pose_cmp(const void *a, const void *b)
{
    const votecl_ght_pose *x = a, *y = b;

    if (x->confidence != y->confidence)
        return x->confidence > y->confidence ? -1 : 1;
    if (x->votes != y->votes)
        return x->votes > y->votes ? -1 : 1;
    if (x->angle_votes != y->angle_votes)
        return x->angle_votes > y->angle_votes ? -1 : 1;
    if (x->scale_votes != y->scale_votes)
        return x->scale_votes > y->scale_votes ? -1 : 1;
    if (x->y != y->y)
        return x->y < y->y ? -1 : 1;
    if (x->x != y->x)
        return x->x < y->x ? -1 : 1;
    if (x->angle != y->angle)
        return x->angle < y->angle ? -1 : 1;
    return (x->scale > y->scale) - (x->scale < y->scale);
}

size_t
votecl__ght_finish(const votecl__ght_desc *desc, votecl_ght_pose *poses, size_t n)
{
    double d2 = desc->p.min_dist * desc->p.min_dist;
    size_t kept = 0;

    if (n > 0) /* poses may be NULL when there is nothing */
        qsort(poses, n, sizeof *poses, votecl__ght_pose_cmp);
    for (size_t i = 0; i < n; i++) {
        int near = poses[i].confidence < desc->p.min_confidence;
        for (size_t j = 0; j < kept && !near; j++) {
            double dx = poses[i].x - poses[j].x, dy = poses[i].y - poses[j].y;
            near = dx * dx + dy * dy < d2;
        }
        if (!near)
            poses[kept++] = poses[i];
    }
    return kept;
}
