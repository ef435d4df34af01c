/* Guil's poses from a D space: its maxima, the pairings that voted for each, and the
 * least-squares similarity of those pairings' points (sequential; the device computes the
 * maxima and the matched pairings, the host fits them).
 *
 * Why a fit: the O and S spaces give the rotation and scale only to a fraction of their bins,
 * and the D maximum is flat over about a degree (a refinement that searched angles and
 * scales for the sharpest D peak scattered by 0.9 degrees rms and needed 45 D spaces per
 * candidate). The pairings whose two votes both land next to a maximum are correspondences
 * between template and image points; the similarity that maps the template points onto the
 * image points best (least squares of the distances along the image edges' normals, trimmed
 * twice) resolves the rotation by the lever arm of the whole shape. Its sums run over the
 * correspondences in a canonical order, not the order in which a device appends the
 * matches, so every device gives the reference's result bit for bit. */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ght-private.h"

#define GHT_PI 3.14159265358979323846
#define GHT_TRIM 2.5     /* kept residuals: at most this many medians... */
#define GHT_TRIM_MIN 1.0 /* ...or this many pixels */
#define GHT_FIT_SCALE 0.1 /* a fit may move the scale by less than this fraction */
#define GHT_TRIM_ROUNDS 2

/* --- maxima --- */

/* Cell (x, y) of a gw x gh grid is a 3x3 maximum (ties go to the lower index). */
static int
is_peak(const uint32_t *s, uint32_t gw, uint32_t gh, uint32_t x, uint32_t y)
{
    uint32_t v = s[(size_t)y * gw + x];

    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            uint32_t nx = x + dx, ny = y + dy, w;
            if ((dx == 0 && dy == 0) || nx >= gw || ny >= gh)
                continue;
            w = s[(size_t)ny * gw + nx];
            if (w > v || (w == v && (dy < 0 || (dy == 0 && dx < 0))))
                return 0;
        }
    return 1;
}

/* The maximum at (x, y) with the vote sums of its 3x3 neighbourhood. */
static votecl__ght_dpeak
make_peak(const uint32_t *s, uint32_t gw, uint32_t gh, uint32_t x, uint32_t y)
{
    votecl__ght_dpeak p = {(uint32_t)((size_t)y * gw + x), s[(size_t)y * gw + x], 0, 0, 0};

    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            uint32_t nx = x + dx, ny = y + dy;
            uint64_t w;
            if (nx >= gw || ny >= gh)
                continue;
            w = s[(size_t)ny * gw + nx];
            p.sw += w;
            p.sx += (int64_t)w * dx;
            p.sy += (int64_t)w * dy;
        }
    return p;
}

/* An eighth of the best, not half: the instances of one rotation and scale share a D space,
 * and their votes grow with the square of the edges they show, so an instance a quarter
 * hidden, of lower contrast or smaller gathers a fraction of the best one's (the truth
 * suite's upright overlap family lost one instance in six at half); the confidence, not the
 * votes, decides which maxima are instances (cl/ght.cl's ght_space_peaks divides alike). */
uint32_t
votecl__ght_peak_threshold(uint32_t param, uint32_t best)
{
    if (param > 0)
        return param;
    return best / 8 > 0 ? best / 8 : 1;
}

VOTECL__RANK_COMPARE(dpeak_cmp, votecl__ght_dpeak, votes, cell)

void
votecl__ght_dpeaks_rank(votecl__ght_dpeaks *peaks)
{
    if (peaks->n > 1)
        qsort(peaks->v, peaks->n, sizeof *peaks->v, dpeak_cmp);
    if (peaks->n > VOTECL__GHT_MAX_DPEAKS)
        peaks->n = VOTECL__GHT_MAX_DPEAKS;
}

votecl_status
votecl__ght_space_peaks(const votecl__ght_desc *desc, const uint32_t *space, uint32_t gw,
                        uint32_t gh, votecl__ght_dpeaks *out)
{
    uint32_t best = 0, thr;
    size_t cells = (size_t)gw * gh;

    out->n = 0;
    for (size_t i = 0; i < cells; i++)
        best = space[i] > best ? space[i] : best;
    thr = votecl__ght_peak_threshold(desc->p.position_threshold, best);
    for (uint32_t y = 0; y < gh; y++)
        for (uint32_t x = 0; x < gw; x++) {
            if (space[(size_t)y * gw + x] < thr || !is_peak(space, gw, gh, x, y))
                continue;
            if (votecl__grow((void **)&out->v, &out->capacity, out->n + 1, sizeof *out->v, 64))
                return VOTECL_OUT_OF_HOST_MEMORY;
            out->v[out->n++] = make_peak(space, gw, gh, x, y);
        }
    votecl__ght_dpeaks_rank(out);
    return VOTECL_OK;
}

/* --- matched pairings --- */

uint32_t
votecl__ght_match_radius(const votecl__ght_desc *desc)
{
    return (VOTECL__GHT_MATCH_PIXELS + desc->p.dp - 1) / desc->p.dp;
}

/* Two cells labelled for one maximum lie within 2 r cells of each other on each axis, so the
 * two votes' unrounded positions (floor(c / dp + 1/2) is a cell) within (2 r + 1) dp pixels:
 * on each axis the image pairing's vector within (2 r + 1) dp of the template pairing's
 * turned and scaled (the difference of its points' offsets). A sixteenth of a pixel more for
 * the roundings of the cells' double arithmetic (a few, of coordinates far below 2^20). */
double
votecl__ght_match_span(const votecl__ght_desc *desc)
{
    return (2.0 * votecl__ght_match_radius(desc) + 1.0) * desc->p.dp + 1.0 / 16;
}

void
votecl__ght_label_maps(const votecl__ght_sel *sel, size_t nsel, size_t n, uint32_t gw,
                       uint32_t gh, uint32_t radius, uint32_t *labels)
{
    size_t cells = (size_t)gw * gh;
    int32_t r = (int32_t)radius;

    for (size_t i = 0; i < n * cells; i++)
        labels[i] = UINT32_MAX;
    for (size_t k = nsel; k-- > 0;) { /* the better maximum (lower k) paints last */
        uint32_t *map = labels + sel[k].cand * cells;
        int32_t px = (int32_t)(sel[k].cell % gw), py = (int32_t)(sel[k].cell / gw);
        for (int32_t y = py - r; y <= py + r; y++)
            for (int32_t x = px - r; x <= px + r; x++)
                if (x >= 0 && y >= 0 && (uint32_t)x < gw && (uint32_t)y < gh)
                    map[(size_t)y * gw + x] = (uint32_t)k;
    }
}

votecl_status
votecl__ght_matches_push(votecl__ght_matches *m, const votecl__ght_match *match)
{
    if (votecl__grow((void **)&m->v, &m->capacity, m->n + 1, sizeof *m->v, 256) != 0)
        return VOTECL_OUT_OF_HOST_MEMORY;
    m->v[m->n++] = *match;
    return VOTECL_OK;
}

static int
match_cmp(const void *a, const void *b)
{
    const votecl__ght_match *x = a, *y = b;

    if (x->peak != y->peak)
        return x->peak < y->peak ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    for (int k = 0; k < 4; k++) {
        if (x->t[k] != y->t[k])
            return x->t[k] < y->t[k] ? -1 : 1;
        if (x->i[k] != y->i[k])
            return x->i[k] < y->i[k] ? -1 : 1;
    }
    return 0;
}

void
votecl__ght_matches_sort(votecl__ght_matches *m)
{
    if (m->n > 1)
        qsort(m->v, m->n, sizeof *m->v, match_cmp);
}

void
votecl__ght_matches_clear(votecl__ght_matches *m)
{
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* --- the least-squares similarity --- */

/* One correspondence: a template point relative to the template's centre, an image point
 * and the image edge's normal (its gradient direction). */
typedef struct corr {
    double tx, ty, ix, iy, nx, ny;
} corr;

/* The similarity I = (a x - b y + x0, b x + a y + y0) of template offsets (x, y). */
typedef struct similarity {
    double a, b, x0, y0;
} similarity;

/* The distance of c's image point from its mapped template point along the normal: the
 * residual of a point-to-line fit. Sliding along the edge (a neighbouring point with the
 * same gradient bin answering for the template's point) costs nothing, so such near-miss
 * correspondences do not bias the rotation as they bias a point-to-point fit. */
static double
residual(const corr *c, const similarity *s)
{
    double mx = s->a * c->tx - s->b * c->ty + s->x0, my = s->b * c->tx + s->a * c->ty + s->y0;
    return c->nx * (c->ix - mx) + c->ny * (c->iy - my);
}

/* Solves the 4 x 4 system m p = v by Gaussian elimination with partial pivoting; 0 when it
 * is singular. */
static int
solve4(double m[4][4], double v[4], double p[4])
{
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++)
            piv = fabs(m[r][c]) > fabs(m[piv][c]) ? r : piv;
        if (!(fabs(m[piv][c]) > 1e-9))
            return 0;
        for (int k = 0; k < 4; k++) {
            double t = m[c][k];
            m[c][k] = m[piv][k];
            m[piv][k] = t;
        }
        double t = v[c];
        v[c] = v[piv];
        v[piv] = t;
        for (int r = c + 1; r < 4; r++) {
            double f = m[r][c] / m[c][c];
            for (int k = c; k < 4; k++)
                m[r][k] -= f * m[c][k];
            v[r] -= f * v[c];
        }
    }
    for (int r = 3; r >= 0; r--) {
        double acc = v[r];
        for (int k = r + 1; k < 4; k++)
            acc -= m[r][k] * p[k];
        p[r] = acc / m[r][r];
    }
    return 1;
}

/* The normal equations are summed in double in the correspondences' canonical order (sorted
 * by corr_sort before the fit), so the sums (and the fit) do not depend on the order in
 * which a device appends the matches. Terms rounded to a fixed point of 1/256 would bias the
 * fit: the normals come from a few bins, so their rounding errors add up rather than cancel,
 * and an exact copy of the template came back rotated by -0.018 degrees and 0.02 px off.
 * GHT_FIT_MAX bounds the scratch. */
#define GHT_FIT_MAX ((size_t)1 << 23)

/* The 14 terms of correspondence c in the normal equations: the upper triangle of r r^T (10)
 * and r times the target (4), r the row of the point-to-line equation. */
static void
fit_terms(const corr *c, double t[VOTECL__GHT_FIT_TERMS])
{
    double r0 = c->nx * c->tx + c->ny * c->ty;
    double r1 = c->ny * c->tx - c->nx * c->ty, r2 = c->nx, r3 = c->ny;
    double target = c->nx * c->ix + c->ny * c->iy;

    t[0] = r0 * r0;
    t[1] = r0 * r1;
    t[2] = r0 * r2;
    t[3] = r0 * r3;
    t[4] = r1 * r1;
    t[5] = r1 * r2;
    t[6] = r1 * r3;
    t[7] = r2 * r2;
    t[8] = r2 * r3;
    t[9] = r3 * r3;
    t[10] = r0 * target;
    t[11] = r1 * target;
    t[12] = r2 * target;
    t[13] = r3 * target;
}

/* The canonical order of correspondences: lexicographic in their six numbers. */
static inline int
corr_less(const corr *x, const corr *y)
{
    if (x->tx != y->tx)
        return x->tx < y->tx;
    if (x->ty != y->ty)
        return x->ty < y->ty;
    if (x->ix != y->ix)
        return x->ix < y->ix;
    if (x->iy != y->iy)
        return x->iy < y->iy;
    if (x->nx != y->nx)
        return x->nx < y->nx;
    return x->ny < y->ny;
}

/* The canonical order without comparisons. Correspondence k of matches m (k = 2 q + h: match
 * q's point h) has an integer template point less the template's centre and an integer image
 * point, so the order of its first four numbers is that of the integers (t[2h], t[2h+1],
 * i[2h], i[2h+1]) (integers less one centre keep their order and their ties). Those
 * four, less their least values, are packed into two 64-bit words (most fits: the low one
 * alone), their indices ordered by a stable least-significant-digit radix sort of 8 bits a
 * pass (a pass whose digit all share is skipped), the correspondences made in that order, and
 * an insertion sort by all six numbers orders each run of equal keys (one point with several
 * normals). The order is total on the values (equal entries are equal in all six numbers), so
 * any sort gives the same sequence, the one qsort gave. qsort's comparisons, then a merge
 * sort's, were the largest part of the fits on the sample pair. */
#define GHT_RADIX_BITS 8u
#define GHT_RADIX (1u << GHT_RADIX_BITS)

/* The four key fields of correspondence k of matches m, the most significant first. */
static void
key_fields(const votecl__ght_match *m, size_t k, uint32_t v[4])
{
    const votecl__ght_match *q = &m[k / 2];
    size_t h = 2 * (k % 2);

    v[0] = (uint32_t)q->t[h];
    v[1] = (uint32_t)q->t[h + 1];
    v[2] = (uint32_t)q->i[h];
    v[3] = (uint32_t)q->i[h + 1];
}

static unsigned
bit_width(uint32_t v)
{
    unsigned b = 0;

    for (; v != 0; v >>= 1)
        b++;
    return b;
}

/* The least value of each key field of the n correspondences of m into lo, the span (the
 * greatest less the least, in unsigned arithmetic) into span: fields compared as int32. */
static void
key_ranges(const votecl__ght_match *m, size_t n, uint32_t lo[4], uint32_t span[4])
{
    int32_t least[4], most[4];
    uint32_t v[4];

    key_fields(m, 0, v);
    for (int f = 0; f < 4; f++)
        least[f] = most[f] = (int32_t)v[f];
    for (size_t k = 1; k < n; k++) {
        key_fields(m, k, v);
        for (int f = 0; f < 4; f++) {
            least[f] = (int32_t)v[f] < least[f] ? (int32_t)v[f] : least[f];
            most[f] = (int32_t)v[f] > most[f] ? (int32_t)v[f] : most[f];
        }
    }
    for (int f = 0; f < 4; f++) {
        lo[f] = (uint32_t)least[f];
        span[f] = (uint32_t)most[f] - lo[f];
    }
}

/* The keys of the n correspondences of m into word[0] (low) and word[1] (high), the bits
 * each word uses into bits: the fields from the least significant, each less its least value
 * in as many bits as its span needs (two fields always fit a word). */
static void
corr_keys(const votecl__ght_match *m, size_t n, uint64_t *word[2], unsigned bits[2])
{
    uint32_t lo[4], span[4], v[4];
    unsigned shift[4], in[4], w = 0;

    key_ranges(m, n, lo, span);
    bits[0] = bits[1] = 0;
    for (int f = 3; f >= 0; f--) {
        unsigned b = bit_width(span[f]);
        w = bits[w] + b > 64 ? 1 : w;
        in[f] = w;
        shift[f] = b > 0 ? bits[w] : 0; /* a field of one value adds 0 */
        bits[w] += b;
    }
    for (size_t k = 0; k < n; k++) {
        uint64_t key[2] = {0, 0};
        key_fields(m, k, v);
        for (int f = 0; f < 4; f++)
            key[in[f]] |= (uint64_t)(v[f] - lo[f]) << shift[f];
        word[0][k] = key[0];
        word[1][k] = key[1];
    }
}

/* One stable pass of the radix sort: src's indices into dst by the digit of key at shift;
 * 0 (dst untouched) when every key has the same digit. */
static int
radix_pass(const uint64_t *key, unsigned shift, const uint32_t *src, uint32_t *dst, size_t n)
{
    size_t count[GHT_RADIX] = {0}, sum = 0;

    for (size_t k = 0; k < n; k++)
        count[(key[k] >> shift) & (GHT_RADIX - 1)]++;
    if (count[(key[0] >> shift) & (GHT_RADIX - 1)] == n)
        return 0;
    for (unsigned d = 0; d < GHT_RADIX; d++) {
        size_t c = count[d];
        count[d] = sum;
        sum += c;
    }
    for (size_t k = 0; k < n; k++)
        dst[count[(key[src[k]] >> shift) & (GHT_RADIX - 1)]++] = src[k];
    return 1;
}

/* Correspondence k of matches m: point i's normal is its gradient bin's direction (the image
 * pairing's key), point j's that of the bin xi on. */
static corr
correspondence(const votecl__ght_desc *desc, const double *normals, const votecl__ght_match *m,
               size_t k)
{
    const votecl__ght_match *q = &m[k / 2];
    double cx = (double)(float)desc->cx, cy = (double)(float)desc->cy;
    uint32_t L = desc->levels, b = q->key / L, h = (uint32_t)(k % 2);

    b = (b + h * desc->xi_bins) % L;
    return (corr){q->t[2 * h] - cx, q->t[2 * h + 1] - cy, q->i[2 * h],
                  q->i[2 * h + 1],  normals[2 * b],       normals[2 * b + 1]};
}

/* Sorts each run of out[0..n) whose keys (by index, idx) are equal by all six numbers (the
 * runs share the first four: a point with several normals). */
static void
corr_ties(uint64_t *const word[2], const uint32_t *idx, corr *out, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        corr x;
        size_t j = i;
        if (word[0][idx[i]] != word[0][idx[i - 1]] || word[1][idx[i]] != word[1][idx[i - 1]])
            continue;
        x = out[i];
        for (; j > 0 && corr_less(&x, &out[j - 1]); j--)
            out[j] = out[j - 1];
        out[j] = x;
    }
}

/* The n = 2 q correspondences of matches m[0..q) into out in the canonical order; scratch:
 * 3 n doubles (the keys, then the indices). */
static void
corr_sort(const votecl__ght_desc *desc, const double *normals, const votecl__ght_match *m, size_t n,
          double *scratch, corr *out)
{
    uint64_t *word[2] = {(uint64_t *)scratch, (uint64_t *)scratch + n};
    uint32_t *src = (uint32_t *)(word[1] + n), *dst = src + n, *t;
    unsigned bits[2];

    corr_keys(m, n, word, bits);
    for (size_t k = 0; k < n; k++)
        src[k] = (uint32_t)k;
    for (int w = 0; w < 2; w++)
        for (unsigned shift = 0; shift < bits[w]; shift += GHT_RADIX_BITS)
            if (radix_pass(word[w], shift, src, dst, n)) {
                t = src;
                src = dst;
                dst = t;
            }
    for (size_t k = 0; k < n; k++)
        out[k] = correspondence(desc, normals, m, src[k]);
    corr_ties(word, src, out, n);
}

/* The point-to-line least-squares similarity of the n correspondences (terms: their
 * fit_terms) whose absolute residual res[k] is at most limit (res NULL: all). The terms are
 * computed once per fit, not once per round. Returns how many were used (0: no fit). */
static size_t
fit_once(const double *terms, size_t n, const double *res, double limit, similarity *out)
{
    double sum[VOTECL__GHT_FIT_TERMS] = {0};
    double m[4][4], v[4], p[4];
    size_t used = 0;

    if (n > GHT_FIT_MAX)
        return 0;
    for (size_t k = 0; k < n; k++) {
        const double *t = terms + k * VOTECL__GHT_FIT_TERMS;
        if (res != NULL && res[k] > limit)
            continue;
        for (int j = 0; j < (int)VOTECL__GHT_FIT_TERMS; j++)
            sum[j] += t[j];
        used++;
    }
    for (int r = 0, t = 0; r < 4; r++) {
        for (int q = r; q < 4; q++, t++)
            m[r][q] = m[q][r] = sum[t];
        v[r] = sum[10 + r];
    }
    if (used < 8 || !solve4(m, v, p))
        return 0;
    *out = (similarity){p[0], p[1], p[2], p[3]};
    return used;
}

/* The k-th smallest of x[0..n) (k < n; x is reordered): Hoare's selection. */
static double
select_kth(double *x, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;

    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return x[k];
}

/* Whether the residuals res within limit (those fit_once sums) are the ones of prev within
 * prev_limit (prev NULL: all of them). */
static int
same_selection(const double *res, double limit, const double *prev, double prev_limit, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!(res[k] > limit) != (prev == NULL || !(prev[k] > prev_limit)))
            return 0;
    return 1;
}

/* The trimmed fit: all correspondences, then GHT_TRIM_ROUNDS times those within GHT_TRIM
 * median absolute residuals (at least GHT_TRIM_MIN pixels). A round that keeps the previous
 * fit's correspondences ends the rounds: it would sum the same terms in the same order, so it
 * and every later round would give that fit again, bit for bit. Returns 0 when there is no
 * fit. */
static int
fit_trimmed(const corr *c, size_t n, double *scratch, similarity *s)
{
    double *sel = scratch, *res = scratch + n, *prev_res = NULL, *t;
    double *terms = scratch + 3 * n, prev_limit = 0;
    similarity prev;

    if (n > GHT_FIT_MAX)
        return 0;
    for (size_t k = 0; k < n; k++)
        fit_terms(&c[k], terms + k * VOTECL__GHT_FIT_TERMS);
    if (fit_once(terms, n, NULL, 0, s) == 0)
        return 0;
    for (int round = 0; round < GHT_TRIM_ROUNDS; round++) {
        double limit;
        for (size_t k = 0; k < n; k++)
            sel[k] = res[k] = fabs(residual(&c[k], s));
        limit = GHT_TRIM * select_kth(sel, n, n / 2);
        limit = limit > GHT_TRIM_MIN ? limit : GHT_TRIM_MIN;
        if (same_selection(res, limit, prev_res, prev_limit, n))
            break;
        prev = *s;
        if (fit_once(terms, n, res, limit, s) == 0) {
            *s = prev;
            break;
        }
        t = prev_res != NULL ? prev_res : scratch + 2 * n; /* res and prev_res swap */
        prev_res = res;
        prev_limit = limit;
        res = t;
    }
    return 1;
}

int
votecl__ght_fit_points(const double *c, size_t n, double *scratch, double out[4])
{
    similarity s;

    if (!fit_trimmed((const corr *)c, n, scratch, &s))
        return 0;
    out[0] = s.a;
    out[1] = s.b;
    out[2] = s.x0;
    out[3] = s.y0;
    return 1;
}

void
votecl__ght_normals(const votecl__ght_desc *desc, double *normals)
{
    for (uint32_t b = 0; b < desc->levels; b++) {
        double a = 2.0 * GHT_PI * b / desc->levels;
        normals[2 * b] = cos(a);
        normals[2 * b + 1] = sin(a);
    }
}

/* The doubles a fit of n matches uses: the sort's keys and indices (3 doubles a
 * correspondence, in room for 6), the 2 n correspondences sorted (6 doubles each), the fit's
 * scratch (VOTECL__GHT_FIT_SCRATCH a correspondence); 0 when too many. */
static size_t
fit_doubles(size_t n)
{
    size_t each = 2 * (12 + VOTECL__GHT_FIT_SCRATCH);

    return n <= SIZE_MAX / sizeof(double) / each ? n * each : 0;
}

votecl_status
votecl__ght_fit_reserve(votecl__ght_fit_buf *buf, size_t n)
{
    size_t need = fit_doubles(n);

    if (n < 4)
        return VOTECL_OK;
    if (need == 0 || votecl__grow((void **)&buf->v, &buf->capacity, need, sizeof *buf->v, 0))
        return VOTECL_OUT_OF_HOST_MEMORY;
    return VOTECL_OK;
}

votecl_status
votecl__ght_fit(const votecl__ght_desc *desc, const double *normals, const votecl__ght_match *m,
                size_t n, votecl__ght_fit_buf *buf, votecl_ght_pose *pose)
{
    double *scratch;
    corr *sorted;
    similarity s;

    if (n < 4 || n > GHT_FIT_MAX / 2) /* more: no fit (fit_trimmed) */
        return VOTECL_OK;
    if (votecl__ght_fit_reserve(buf, n) != VOTECL_OK)
        return VOTECL_OUT_OF_HOST_MEMORY;
    sorted = (corr *)buf->v + 2 * n;
    scratch = buf->v + 24 * n;
    corr_sort(desc, normals, m, 2 * n, buf->v, sorted);
    if (fit_trimmed(sorted, 2 * n, scratch, &s)) {
        double scale = hypot(s.a, s.b);
        double angle = votecl__ght_degrees(atan2(s.b, s.a) * 180.0 / GHT_PI);
        /* a fit far from the Hough estimate followed clutter: keep the Hough pose */
        if (fabs(scale / pose->scale - 1) < GHT_FIT_SCALE &&
            hypot(s.x0 - pose->x, s.y0 - pose->y) < VOTECL__GHT_MATCH_PIXELS + desc->p.dp) {
            pose->scale = scale;
            pose->angle = angle;
            pose->x = s.x0;
            pose->y = s.y0;
        }
    }
    return VOTECL_OK;
}

votecl_status
votecl__ght_matches_group(votecl__ght_matches *m, size_t npeaks, size_t *first)
{
    votecl__ght_match *sorted;

    if (m->n == 0) {
        memset(first, 0, (npeaks + 1) * sizeof *first);
        return VOTECL_OK;
    }
    if ((sorted = votecl__malloc(m->n * sizeof *sorted)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    memset(first, 0, (npeaks + 1) * sizeof *first);
    for (size_t k = 0; k < m->n; k++)
        first[m->v[k].peak + 1]++;
    for (size_t k = 0; k < npeaks; k++)
        first[k + 1] += first[k];
    for (size_t k = 0; k < m->n; k++) /* first[p] runs through group p, then is restored */
        sorted[first[m->v[k].peak]++] = m->v[k];
    for (size_t k = npeaks; k > 0; k--)
        first[k] = first[k - 1];
    first[0] = 0;
    free(m->v);
    m->v = sorted;
    m->capacity = m->n;
    return VOTECL_OK;
}

uint32_t
votecl__ght_hash(const uint32_t *w, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15u;

    for (int k = 0; k < n; k++) {
        h = (h ^ w[k]) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    return (uint32_t)h;
}

uint32_t
votecl__ght_keep_threshold(uint32_t count, uint32_t keep)
{
    if (count <= keep)
        return UINT32_MAX;
    return (uint32_t)(((uint64_t)keep << 32) / count);
}

uint32_t
votecl__ght_match_hash(const votecl__ght_match *m)
{
    uint32_t w[9] = {m->key, (uint32_t)m->t[0], (uint32_t)m->t[1], (uint32_t)m->t[2],
                     (uint32_t)m->t[3], (uint32_t)m->i[0], (uint32_t)m->i[1],
                     (uint32_t)m->i[2], (uint32_t)m->i[3]};

    return votecl__ght_hash(w, 9);
}

uint32_t
votecl__ght_sample_threshold(uint32_t count)
{
    return votecl__ght_keep_threshold(count, VOTECL__GHT_FIT_SAMPLE);
}

votecl_status
votecl__ght_matches_sample(votecl__ght_matches *m, size_t nsel)
{
    uint32_t *count = votecl__calloc(nsel > 0 ? nsel : 1, sizeof *count);
    size_t kept = 0;

    if (count == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    for (size_t k = 0; k < m->n; k++)
        count[m->v[k].peak]++;
    for (size_t k = 0; k < nsel; k++)
        count[k] = votecl__ght_sample_threshold(count[k]);
    for (size_t k = 0; k < m->n; k++)
        if (votecl__ght_match_hash(&m->v[k]) <= count[m->v[k].peak])
            m->v[kept++] = m->v[k];
    m->n = kept;
    free(count);
    return VOTECL_OK;
}
