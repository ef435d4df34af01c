/* Guil's search (paper 001, section 3) through its stages: the rotations from the
 * correlation of the template's and the image's O spaces, for each the scales from S, for
 * each candidate (rotation, scale) the maxima of D, and for the strongest poses over all
 * candidates the least-squares fit of their matched pairings (lib/ght-pose.c). Every stage
 * takes all candidates at once, so a device answers each in a few launches and one read;
 * the reference's table (below; stages NULL) loops over them. The search itself has one
 * path: it only calls the table. */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ght-private.h"
#include "parallel.h"

/* --- rotation --- */

/* O_I summed over the (2 GHT_O_TOL + 1)^2 keys around each key (theta and alpha wrap): a
 * rotated instance's gradient and pairing-direction bins move by a bin or two against the
 * template's (the quantisation of Sobel directions on a resampled grid), so exact keys miss
 * most of its pairings and the correlation at the true rotation fell to 0.1-0.35 of the
 * template's pairings, under a square's. */
#define GHT_O_TOL 1

#define GHT_O_KEYS (2 * GHT_O_TOL + 1)

/* A row of O_I summed over the alpha bins cols (a column's and its neighbours', wrapped). */
static uint64_t
alpha_sum(const uint32_t *row, const uint32_t *cols)
{
    uint64_t acc = 0;

    for (int k = 0; k < GHT_O_KEYS; k++)
        acc += row[cols[k]];
    return acc;
}

/* Sums of rows the smoothing's window holds: the row leaving it, those inside, the one
 * entering. */
#define GHT_O_RING (2 * GHT_O_TOL + 2)

/* Column a of the smoothed O_I (col[t], t over the L theta bins): the GHT_O_KEYS^2 sum
 * around each key (a window sliding over theta), exact in 64 bits, saturated to 32. Row e of
 * the walk is O_I's row e - GHT_O_TOL (wrapping); each row's sum over the column's alpha
 * bins is taken once and kept while the window holds it (ring), the first GHT_O_TOL rows'
 * to the end, where the window wraps onto them (first): a row's sum taken again when it
 * left the window doubled the walk down a column of O_I, a cache line a key and most of the
 * smoothing. Returns the column's least count. */
static uint32_t
smooth_column(uint32_t L, const uint32_t *oi, uint32_t a, uint32_t *col)
{
    uint32_t cols[GHT_O_KEYS];
    uint64_t ring[GHT_O_RING], first[GHT_O_TOL + 1], acc = 0, least = UINT64_MAX;

    for (int k = 0; k < GHT_O_KEYS; k++)
        cols[k] = (a + L + (uint32_t)k - GHT_O_TOL) % L;
    for (uint32_t e = 0; e < GHT_O_KEYS; e++) {
        ring[e] = alpha_sum(oi + (size_t)((e + L - GHT_O_TOL) % L) * L, cols);
        acc += ring[e];
        if (e >= GHT_O_TOL)
            first[e - GHT_O_TOL] = ring[e];
    }
    for (uint32_t t = 0; t < L; t++) {
        if (t > 0) { /* L > GHT_O_KEYS: the row leaving is not the one entering */
            uint32_t e = t + 2 * GHT_O_TOL, r = e - GHT_O_TOL;
            uint64_t in = r >= L ? first[r - L] : alpha_sum(oi + (size_t)r * L, cols);
            acc += in - ring[(t - 1) % GHT_O_RING];
            ring[e % GHT_O_RING] = in;
        }
        col[t] = acc > UINT32_MAX ? UINT32_MAX : (uint32_t)acc;
        least = acc < least ? acc : least;
    }
    return least > UINT32_MAX ? UINT32_MAX : (uint32_t)least;
}

/* Lowers a column of the smoothed O_I (one alpha bin over theta) by its least count: a count
 * that every rotation sees tells no rotation apart. Where the image's pairings are dense (a
 * large template in a scene of many edges: building.png's 324x223 crop in its 512x384
 * frame), each key of the shifted O_I held at least the template's count at every rotation,
 * so that every rotation's intersection equalled the template's total and the search
 * examined 16 arbitrary ones (not 0 degrees, where the crop lies); in a sparse image the
 * least count is 0 and nothing changes. least: the column's least count (smooth_column). */
static void
floor_column(uint32_t L, uint32_t *col, uint32_t least)
{
    for (uint32_t t = 0; t < L && least > 0; t++)
        col[t] -= least;
}

/* corr[b] += min(nt, col[t + b mod L]) for every b: col a column of the smoothed O_I. */
static void
correlate_key(uint32_t L, uint32_t t, uint32_t nt, const uint32_t *col, uint64_t *corr)
{
    uint32_t head = L - t;

    for (uint32_t b = 0; b < head; b++)
        corr[b] += nt < col[t + b] ? nt : col[t + b];
    for (uint32_t b = head; b < L; b++)
        corr[b] += nt < col[b - head] ? nt : col[b - head];
}

/* What the rotation search's team shares: corr[b] = sum over keys (t, a) of min(O_T(t, a),
 * O_I'(t + b, a)), over the template's non-empty keys only, O_I' the smoothed and floored
 * O_I; a worker takes whole alpha columns and sums into its own corr (2 L words of scratch
 * each: corr and the column), added up afterwards (integers: the same in any order).
 * The paper's product lets the quadratic counts of straight segments (every pair of a
 * segment falls into one cell) outvote the shape; the minimum, a histogram intersection,
 * counts the image pairings a rotated template explains. */
typedef struct corr_work {
    uint32_t L;
    const uint32_t *ot, *oi;
    uint64_t *scratch; /* per worker */
} corr_work;

static votecl_status
correlate_columns(void *user, size_t begin, size_t end, unsigned worker)
{
    const corr_work *c = user;
    uint32_t L = c->L;
    uint64_t *corr = c->scratch + (size_t)worker * 2 * L;
    uint32_t *col = (uint32_t *)(corr + L);

    for (uint32_t a = (uint32_t)begin; a < end; a++) {
        floor_column(L, col, smooth_column(L, c->oi, a, col));
        for (uint32_t t = 0; t < L; t++)
            if (c->ot[(size_t)t * L + a] != 0)
                correlate_key(L, t, c->ot[(size_t)t * L + a], col, corr);
    }
    return VOTECL_OK;
}

/* Word operations a claim of the rotation search's team does at least (about 0.07 ms on one
 * core; 22 claims on the sample pair): smoothing 8 a key, correlating L a template key. */
#define GHT_CORR_CLAIM ((uint64_t)1 << 16)

/* Alpha columns a claim of the rotation search's team: GHT_CORR_CLAIM operations at the
 * columns' mean (nt: the template's non-empty keys). */
static size_t
corr_grain(uint32_t L, uint64_t nt)
{
    uint64_t per = (8 * (uint64_t)L * L + nt * L) / L;

    return (size_t)((GHT_CORR_CLAIM + per - 1) / per);
}

/* The correlation of every bin shift (corr: L counts) on the host's threads. */
static votecl_status
correlate(const votecl__ght_desc *desc, const uint32_t *ot, const uint32_t *oi, unsigned threads,
          uint64_t *corr, unsigned *workers)
{
    uint32_t L = desc->levels;
    uint64_t nt = 0;
    votecl__team team;
    corr_work c = {L, ot, oi, NULL};
    votecl_status status;

    for (size_t k = 0; k < (size_t)L * L; k++)
        nt += ot[k] != 0;
    votecl__team_open(&team, threads, L, corr_grain(L, nt));
    *workers = team.workers;
    if ((c.scratch = votecl__calloc((size_t)team.workers * 2 * L, sizeof *c.scratch)) == NULL) {
        votecl__team_close(&team);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    if ((status = votecl__team_run(&team, correlate_columns, &c)) == VOTECL_OK)
        for (uint32_t b = 0; b < L; b++) {
            corr[b] = 0;
            for (unsigned w = 0; w < team.workers; w++)
                corr[b] += c.scratch[(size_t)w * 2 * L + b];
        }
    free(c.scratch);
    return status;
}

/* Parabolic refinement of a peak at c between l and r: an offset in (-0.5, 0.5). */
static double
parabola(double l, double c, double r)
{
    double den = l - 2 * c + r;
    return den < 0 ? 0.5 * (l - r) / den : 0.0;
}

/* Index k of the n-entry histogram h is a local maximum (ties go to the lower index). */
static int
is_peak64(const uint64_t *h, uint32_t n, uint32_t k, int wrap)
{
    int has_l = k > 0 || wrap, has_r = k + 1 < n || wrap;
    uint64_t l = has_l ? h[(k + n - 1) % n] : 0, r = has_r ? h[(k + 1) % n] : 0;

    if (n == 1)
        return 1;
    return h[k] > l && h[k] >= r;
}

typedef struct peak {
    uint32_t k;
    uint64_t v;
} peak;

VOTECL__RANK_COMPARE(peak_cmp, peak, v, k)

/* The best up to max peaks of h at or above thr (0: fraction of the best); returns count. */
static uint32_t
best_peaks(const uint64_t *h, uint32_t n, int wrap, uint64_t thr, unsigned divisor, peak *out,
           uint32_t max)
{
    uint64_t best = 0;
    uint32_t count = 0;

    for (uint32_t k = 0; k < n; k++)
        best = h[k] > best ? h[k] : best;
    if (thr == 0)
        thr = best / divisor > 0 ? best / divisor : 1;
    for (uint32_t k = 0; k < n; k++)
        if (h[k] >= thr && is_peak64(h, n, k, wrap))
            out[count++] = (peak){k, h[k]};
    if (count > 1)
        qsort(out, count, sizeof *out, peak_cmp);
    return count < max ? count : max;
}

/* The rotation histogram over the steps of the search from corr over bins. */
static void
rotation_hist(const votecl__ght_desc *desc, const uint64_t *corr, uint64_t *hist)
{
    memset(hist, 0, desc->rotations * sizeof *hist);
    for (uint32_t b = 0; b < desc->levels; b++) {
        double rel = fmod(b * 360.0 / desc->levels - desc->p.min_angle + 720.0, 360.0);
        uint32_t k = (uint32_t)floor(rel / desc->p.angle_step + 1e-9);
        if (k < desc->rotations)
            hist[k] += corr[b];
    }
}

/* The bin shift b of the best bin of rotation step k and its refined angle. */
static uint32_t
rotation_bin(const votecl__ght_desc *desc, const uint64_t *corr, uint32_t k, double *angle)
{
    uint32_t L = desc->levels, best = UINT32_MAX;

    for (uint32_t b = 0; b < L; b++) {
        double rel = fmod(b * 360.0 / L - desc->p.min_angle + 720.0, 360.0);
        if ((uint32_t)floor(rel / desc->p.angle_step + 1e-9) == k &&
            (best == UINT32_MAX || corr[b] > corr[best]))
            best = b;
    }
    if (best == UINT32_MAX)
        best = (uint32_t)lround(votecl__ght_angle(desc, k) * L / 360.0) % L;
    *angle = (best + parabola((double)corr[(best + L - 1) % L], (double)corr[best],
                              (double)corr[(best + 1) % L])) *
             360.0 / L;
    *angle = votecl__ght_degrees(*angle);
    return best;
}

/* --- the reference's stages: the stage table's other implementation (the device's is
 * lib/ght-spaces.c's) --- */

/* What the reference's stages read: the lists and a scratch of a D space or label map per
 * candidate. */
typedef struct ref_user {
    const votecl__ght_desc *desc;
    const votecl__ght_pairs *tp, *ip;
    uint32_t *scratch;
} ref_user;

static votecl_status
ref_sspace(void *user, size_t n, const uint32_t *b, uint64_t *hists)
{
    const ref_user *r = user;

    for (size_t c = 0; c < n; c++)
        votecl__ght_ref_sspace(r->desc, r->tp, r->ip, b[c], hists + c * r->desc->scales);
    return VOTECL_OK;
}

static votecl_status
ref_dpeaks(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol, uint32_t gw,
           uint32_t gh, votecl__ght_dpeaks *out)
{
    const ref_user *r = user;
    votecl_status status = VOTECL_OK;

    for (size_t k = 0; k < n && status == VOTECL_OK; k++) {
        votecl__ght_ref_dspace(r->desc, r->tp, r->ip, c[k].b, tol, c[k].angle, c[k].scale, gw,
                               gh, r->scratch);
        status = votecl__ght_space_peaks(r->desc, r->scratch, gw, gh, &out[k]);
    }
    return status;
}

static votecl_status
ref_matches(void *user, size_t n, const votecl__ght_cand *c, uint32_t tol, uint32_t gw,
            uint32_t gh, const votecl__ght_sel *sel, size_t nsel, votecl__ght_matches *out)
{
    const ref_user *r = user;
    size_t cells = (size_t)gw * gh;
    votecl_status status = VOTECL_OK;

    votecl__ght_label_maps(sel, nsel, n, gw, gh, votecl__ght_match_radius(r->desc), r->scratch);
    out->n = 0;
    for (size_t k = 0; k < n && status == VOTECL_OK; k++)
        status = votecl__ght_ref_matches(r->desc, r->tp, r->ip, c[k].b, tol, c[k].angle, c[k].scale,
                                         gw, gh, r->scratch + k * cells,
                                         votecl__ght_match_span(r->desc), out);
    return status == VOTECL_OK ? votecl__ght_matches_sample(out, nsel) : status;
}

/* --- the search --- */

/* A Hough pose and the maximum it came from. */
typedef struct hough {
    votecl_ght_pose pose;
    votecl__ght_sel sel;
} hough;

static int
hough_cmp(const void *a, const void *b)
{
    const hough *x = a, *y = b;
    int c = votecl__ght_pose_cmp(&x->pose, &y->pose);

    if (c != 0)
        return c;
    if (x->sel.cand != y->sel.cand)
        return x->sel.cand < y->sel.cand ? -1 : 1;
    return x->sel.cell < y->sel.cell ? -1 : x->sel.cell > y->sel.cell;
}

/* Everything one search holds. */
typedef struct search {
    const votecl__ght_desc *desc;
    const votecl__ght_stages *st;
    const votecl__ght_pairs *tp, *ip;
    uint32_t gw, gh;
    uint32_t nr;              /* rotations */
    uint32_t *b;              /* their bin shifts */
    votecl_ght_pose *rot;     /* their angles and angle votes */
    uint64_t *hists;          /* their S histograms */
    size_t nc;                /* candidates */
    size_t batch;             /* candidates per D and match stage call */
    uint64_t room;            /* bytes for the candidates' spaces (0: no limit) */
    unsigned copies;          /* the device's copies of a D space (0: the reference) */
    votecl__ght_cand *cand;
    votecl_ght_pose *cpose;   /* the candidates' angle, scale and their votes */
    votecl__ght_dpeaks *peaks; /* D maxima per candidate */
    hough *h;                 /* the Hough poses, ranked, kept first */
    size_t nh, kept;
    votecl__ght_sel *sel;     /* the kept poses' maxima */
    votecl__ght_matches matches, part; /* part: one batch's */
    size_t *first;
    double *normals;
    ref_user *ref;            /* the reference's stages' data (NULL on a device) */
    unsigned threads;         /* the host stages' threads (votecl__team_open) */
} search;

static uint32_t
sat32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static votecl_status
search_alloc(search *s)
{
    const votecl__ght_desc *d = s->desc;
    size_t nr = d->p.max_rotations, nc = nr * (size_t)d->p.max_scales;

    s->b = votecl__calloc(nr + 1, sizeof *s->b);
    s->rot = votecl__calloc(nr + 1, sizeof *s->rot);
    s->hists = votecl__calloc((nr + 1) * (size_t)d->scales, sizeof *s->hists);
    s->cand = votecl__calloc(nc + 1, sizeof *s->cand);
    s->cpose = votecl__calloc(nc + 1, sizeof *s->cpose);
    s->peaks = votecl__calloc(nc + 1, sizeof *s->peaks);
    s->h = votecl__calloc(nc * VOTECL__GHT_MAX_DPEAKS + 1, sizeof *s->h);
    s->sel = votecl__calloc(2 * nc * VOTECL__GHT_MAX_DPEAKS + 1, sizeof *s->sel); /* 2: batches */
    s->first = votecl__calloc(nc * VOTECL__GHT_MAX_DPEAKS + 1, sizeof *s->first);
    s->normals = votecl__malloc(2 * (size_t)d->levels * sizeof *s->normals);
    if (s->b == NULL || s->rot == NULL || s->hists == NULL || s->cand == NULL || s->cpose == NULL ||
        s->peaks == NULL || s->h == NULL || s->sel == NULL || s->first == NULL ||
        s->normals == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    return VOTECL_OK;
}

/* Bytes a candidate's spaces take per grid cell: on a device its D space's copies, the
 * merged space, its label map, room for its maxima (a 32-byte maximum per 2 x 2 cells at
 * most) and for their packed copy, which is read back; on the host (copies 0) one D space or
 * label map. */
static uint64_t
cell_bytes(unsigned copies)
{
    return copies > 0 ? 4 * ((uint64_t)copies + 2) + 16 : 4;
}

/* The batch of candidates the room allows (all of them, or as many as fit, at least one),
 * and the reference's scratch for it (one more candidate's). */
static votecl_status
batch_alloc(search *s)
{
    size_t cells = (size_t)s->gw * s->gh;
    uint64_t per = cell_bytes(s->copies) * cells;

    s->batch = s->nc > 0 ? s->nc : 1;
    if (s->room > 0 && per > 0 && s->room / per < s->batch)
        s->batch = s->room / per > 0 ? (size_t)(s->room / per) : 1;
    if (s->ref != NULL && (s->ref->scratch = votecl__malloc((s->batch + 1) * cells *
                                                            sizeof *s->ref->scratch)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    return VOTECL_OK;
}

static void
search_free(search *s)
{
    for (size_t k = 0; s->peaks != NULL && k <= s->nc; k++)
        free(s->peaks[k].v);
    free(s->b);
    free(s->rot);
    free(s->hists);
    free(s->cand);
    free(s->cpose);
    free(s->peaks);
    free(s->h);
    free(s->sel);
    free(s->first);
    free(s->normals);
    if (s->ref != NULL)
        free(s->ref->scratch);
    votecl__ght_matches_clear(&s->matches);
    votecl__ght_matches_clear(&s->part);
}

/* The candidates of the batch from c0. */
static size_t
batch_of(const search *s, size_t c0)
{
    return s->nc - c0 < s->batch ? s->nc - c0 : s->batch;
}

/* The least correlation of a rotation: the parameter, else angle_share of the template's
 * pairings (the most a rotation can explain: corr sums min(O_T, O_I) over O_T's keys), so
 * that one share means the same for every template. */
static uint64_t
angle_threshold(const votecl__ght_desc *d, const uint32_t *ot)
{
    uint64_t total = 0;

    if (d->p.angle_threshold > 0)
        return d->p.angle_threshold;
    for (size_t k = 0; k < (size_t)d->levels * d->levels; k++)
        total += ot[k];
    total = (uint64_t)ceil(d->p.angle_share * (double)total);
    return total > 0 ? total : 1;
}

/* The rotations: the best peaks of the correlation over the search's steps. */
static votecl_status
rotations(search *s, const uint32_t *ot, const uint32_t *oi, votecl__ght_search_stats *stats)
{
    const votecl__ght_desc *d = s->desc;
    uint32_t L = d->levels, nr;
    size_t big = L > d->rotations ? L : d->rotations;
    uint64_t *corr = votecl__malloc(L * sizeof *corr), *hist = votecl__malloc(big * sizeof *hist);
    peak *rp = votecl__malloc(big * sizeof *rp);
    unsigned workers = 1;
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (corr != NULL && hist != NULL && rp != NULL &&
        (status = correlate(d, ot, oi, s->threads, corr, &workers)) == VOTECL_OK) {
        rotation_hist(d, corr, hist);
        nr = best_peaks(hist, d->rotations, d->full_circle, angle_threshold(d, ot), 8, rp,
                        d->p.max_rotations);
        for (uint32_t i = 0; i < nr; i++) {
            s->b[i] = rotation_bin(d, corr, rp[i].k, &s->rot[i].angle);
            s->rot[i].angle_votes = sat32(rp[i].v);
        }
        s->nr = nr;
    }
    if (stats != NULL)
        stats->rotation_workers = workers;
    free(corr);
    free(hist);
    free(rp);
    return status;
}

/* The S histogram of every rotation: the sum of the histograms of its bin shifts b - TOL ..
 * b + TOL, as D takes them. The O correlation places an exact copy of the template a bin
 * off (the smoothed O_I' counts its neighbours' keys), and S from that one shift alone lost
 * most of the copy's pairings: with a second, rotated instance in the scene, the copies'
 * scale was no longer among the rotation's best (opencv_contrib's GeneralizedHough scene with
 * its third copy turned by 30 degrees, issue 23). */
static votecl_status
scale_hists(search *s)
{
    const votecl__ght_desc *d = s->desc;
    size_t w = 2 * VOTECL__GHT_TOL + 1, ns = d->scales;
    uint32_t *b = votecl__malloc((s->nr * w + 1) * sizeof *b);
    uint64_t *h = votecl__malloc((s->nr * w * ns + 1) * sizeof *h);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (b != NULL && h != NULL) {
        for (size_t i = 0; i < s->nr; i++)
            for (size_t k = 0; k < w; k++)
                b[i * w + k] =
                    (s->b[i] + d->levels * (VOTECL__GHT_TOL + 1) + (uint32_t)k - VOTECL__GHT_TOL) %
                    d->levels;
        status = s->st->sspace(s->st->user, s->nr * w, b, h);
        for (size_t i = 0; i < s->nr && status == VOTECL_OK; i++)
            for (size_t j = 0; j < ns; j++) {
                uint64_t sum = 0;
                for (size_t k = 0; k < w; k++)
                    sum += h[(i * w + k) * ns + j];
                s->hists[i * ns + j] = sum;
            }
    }
    free(b);
    free(h);
    return status;
}

/* The candidates: for every rotation the best peaks of its S histogram. */
static votecl_status
scales(search *s)
{
    const votecl__ght_desc *d = s->desc;
    peak *sp = votecl__malloc(((size_t)d->scales + 1) * sizeof *sp);
    votecl_status status = VOTECL_OK;

    if (sp == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    status = scale_hists(s);
    for (uint32_t i = 0; i < s->nr && status == VOTECL_OK; i++) {
        const uint64_t *h = s->hists + (size_t)i * d->scales;
        uint32_t ns = best_peaks(h, d->scales, 0, d->p.scale_threshold, 4, sp, d->p.max_scales);
        for (uint32_t j = 0; j < ns; j++) {
            uint32_t k = sp[j].k;
            double l = k > 0 ? (double)h[k - 1] : 0.0;
            double r = k + 1 < d->scales ? (double)h[k + 1] : 0.0;
            votecl_ght_pose *p = &s->cpose[s->nc];
            *p = s->rot[i];
            p->scale = votecl__ght_scale(d, k + parabola(l, (double)h[k], r));
            p->scale_votes = sat32(sp[j].v);
            s->cand[s->nc++] = (votecl__ght_cand){s->b[i], p->angle, p->scale};
        }
    }
    free(sp);
    return status;
}

/* Two Hough poses are one when their centres are within min_dist (d2: its square) and their
 * rotations and scales nearly agree. Votes do not compare across rotations and scales (a
 * smaller scale or a straight stretch gathers more), so a pose at the right place with the
 * wrong scale must not hide the right one: the confidence decides between them after the
 * fit (votecl__ght_finish). */
#define GHT_SAME_DEGREES 5.0
#define GHT_SAME_SCALE 0.06

static int
same_pose(const votecl_ght_pose *a, const votecl_ght_pose *b, double d2)
{
    double dx = a->x - b->x, dy = a->y - b->y, da;

    /* the distance first: most pairs of a search's poses are far apart, and the angle's
     * fmod was most of the ranking's time (a thousand poses against five hundred kept) */
    if (!(dx * dx + dy * dy < d2))
        return 0;
    da = fmod(fabs(a->angle - b->angle), 360.0);
    da = da > 180 ? 360 - da : da;
    return da < GHT_SAME_DEGREES && fabs(a->scale / b->scale - 1) < GHT_SAME_SCALE;
}

/* The Hough poses of every candidate's D maxima, ranked; the first s->kept survive
 * min_dist (and max_detections) and are the ones fitted. */
static votecl_status
positions(search *s)
{
    const votecl__ght_desc *d = s->desc;
    double d2 = d->p.min_dist * d->p.min_dist, dp = d->p.dp;
    size_t cap = d->p.max_detections > 0 ? d->p.max_detections : SIZE_MAX;
    votecl_status status;

    for (size_t c0 = 0; c0 < s->nc; c0 += s->batch)
        if ((status = s->st->dpeaks(s->st->user, batch_of(s, c0), s->cand + c0, VOTECL__GHT_TOL,
                                    s->gw, s->gh, s->peaks + c0)) != VOTECL_OK)
            return status;
    for (size_t c = 0; c < s->nc; c++)
        for (size_t k = 0; k < s->peaks[c].n; k++) {
            const votecl__ght_dpeak *p = &s->peaks[c].v[k];
            hough *h = &s->h[s->nh++];
            h->pose = s->cpose[c];
            h->pose.votes = p->votes;
            h->pose.x = dp * ((double)(p->cell % s->gw) + (double)p->sx / (double)p->sw);
            h->pose.y = dp * ((double)(p->cell / s->gw) + (double)p->sy / (double)p->sw);
            h->sel = (votecl__ght_sel){(uint32_t)c, p->cell};
        }
    if (s->nh > 1)
        qsort(s->h, s->nh, sizeof *s->h, hough_cmp);
    for (size_t i = 0; i < s->nh && s->kept < cap; i++) {
        int near = 0;
        for (size_t j = 0; j < s->kept && !near; j++)
            near = same_pose(&s->h[i].pose, &s->h[j].pose, d2);
        if (!near)
            s->h[s->kept++] = s->h[i];
    }
    return VOTECL_OK;
}

/* The matches of the kept maxima of the candidates from c0 (a batch), appended to
 * s->matches with their maxima's indices: the batch's maxima renumbered from 0 (their order
 * kept) for the stage, back afterwards (s->first: room for the indices). */
static votecl_status
batch_matches(search *s, size_t c0)
{
    size_t n = batch_of(s, c0), m = 0;
    votecl_status status = VOTECL_OK;
    votecl__ght_sel *sel = s->sel + s->kept; /* room for kept more */

    for (size_t k = 0; k < s->kept; k++)
        if (s->sel[k].cand >= c0 && s->sel[k].cand - c0 < n) {
            sel[m] = (votecl__ght_sel){(uint32_t)(s->sel[k].cand - c0), s->sel[k].cell};
            s->first[m++] = k;
        }
    if (m > 0)
        status = s->st->matches(s->st->user, n, s->cand + c0, VOTECL__GHT_TOL, s->gw, s->gh, sel, m,
                                &s->part);
    for (size_t i = 0; m > 0 && i < s->part.n && status == VOTECL_OK; i++) {
        votecl__ght_match match = s->part.v[i];
        match.peak = (uint32_t)s->first[match.peak];
        status = votecl__ght_matches_push(&s->matches, &match);
    }
    return status;
}

/* The sampled matches of the kept maxima: in one call, or batch by batch (a maximum's
 * matches come from its own candidate alone, and each is sampled within its group, so the
 * batches give the same set). */
static votecl_status
all_matches(search *s)
{
    votecl_status status = VOTECL_OK;

    if (s->batch >= s->nc)
        return s->st->matches(s->st->user, s->nc, s->cand, VOTECL__GHT_TOL, s->gw, s->gh, s->sel,
                              s->kept, &s->matches);
    s->matches.n = 0;
    for (size_t c0 = 0; c0 < s->nc && status == VOTECL_OK; c0 += s->batch)
        status = batch_matches(s, c0);
    return status;
}

/* Seconds since *t0 into *slot (when stats are kept), *t0 moved to now. */
static void
lap(votecl__ght_search_stats *st, int slot, double *t0)
{
    double now;

    if (st == NULL)
        return;
    now = votecl__now_seconds();
    st->seconds[slot] = now - *t0;
    *t0 = now;
}

/* Matches a claim of the fits' team holds at least (about 0.2 ms of fitting on one core, a
 * few times a helper's start; 35 claims on the sample pair, for 16 cores): a search with
 * fewer matches in all fits on the caller's thread alone. */
#define GHT_FIT_CLAIM 1024u

/* What the fits' team shares: each kept maximum's fit goes to its own slot of poses, each
 * worker grows its own scratch. */
typedef struct fit_work {
    const search *s;
    votecl_ght_pose *poses;    /* per kept maximum */
    votecl__ght_fit_buf *bufs; /* per worker */
} fit_work;

static votecl_status
fit_range(void *user, size_t begin, size_t end, unsigned worker)
{
    const fit_work *f = user;
    const search *s = f->s;
    votecl_status status = VOTECL_OK;

    for (size_t k = begin; k < end && status == VOTECL_OK; k++) {
        size_t n = s->first[k + 1] - s->first[k];
        f->poses[k] = s->h[k].pose;
        status = votecl__ght_fit(s->desc, s->normals, n > 0 ? &s->matches.v[s->first[k]] : NULL, n,
                                 &f->bufs[worker], &f->poses[k]);
    }
    return status;
}

/* Kept maxima a claim of the fits' team: GHT_FIT_CLAIM matches at their mean count. */
static size_t
fit_grain(const search *s)
{
    size_t mean = s->matches.n / s->kept;

    return mean > 0 ? (GHT_FIT_CLAIM + mean - 1) / mean : s->kept;
}

/* Every worker's scratch grown for the largest group of matches beforehand: the workers
 * allocate nothing (the allocations are as many whichever worker fits which maximum). */
static votecl_status
fit_bufs(const search *s, votecl__ght_fit_buf *bufs, unsigned workers)
{
    size_t most = 0;
    votecl_status status = VOTECL_OK;

    for (size_t k = 0; k < s->kept; k++)
        most = s->first[k + 1] - s->first[k] > most ? s->first[k + 1] - s->first[k] : most;
    for (unsigned w = 0; w < workers && status == VOTECL_OK; w++)
        status = votecl__ght_fit_reserve(&bufs[w], most);
    return status;
}

/* The kept maxima's fits on the host's threads (each fit reads only its own matches), then
 * appended to out in the maxima's order: the same poses whatever the threads. */
static votecl_status
fit_all(search *s, votecl__ght_poses *out, votecl__ght_search_stats *stats)
{
    votecl__team team;
    fit_work f = {s, votecl__malloc(s->kept * sizeof *f.poses), NULL};
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    votecl__team_open(&team, s->threads, s->kept, fit_grain(s));
    f.bufs = votecl__calloc(team.workers, sizeof *f.bufs);
    if (f.poses != NULL && f.bufs != NULL &&
        (status = fit_bufs(s, f.bufs, team.workers)) == VOTECL_OK)
        status = votecl__team_run(&team, fit_range, &f);
    votecl__team_close(&team);
    for (size_t k = 0; k < s->kept && status == VOTECL_OK; k++)
        status = votecl__ght_poses_push(out, &f.poses[k]);
    for (unsigned w = 0; f.bufs != NULL && w < team.workers; w++)
        free(f.bufs[w].v);
    if (stats != NULL)
        stats->fit_workers = team.workers;
    free(f.bufs);
    free(f.poses);
    return status;
}

/* The kept poses fitted to their matches, appended to out. */
static votecl_status
fits(search *s, votecl__ght_poses *out, votecl__ght_search_stats *stats, double *t0)
{
    votecl_status status;

    for (size_t k = 0; k < s->kept; k++)
        s->sel[k] = s->h[k].sel;
    status = all_matches(s);
    lap(stats, 3, t0);
    if (status != VOTECL_OK ||
        (status = votecl__ght_matches_group(&s->matches, s->kept, s->first)) != VOTECL_OK)
        return status;
    votecl__ght_normals(s->desc, s->normals);
    status = fit_all(s, out, stats);
    lap(stats, 4, t0);
    return status;
}

uint64_t
votecl__ght_search_bytes(const votecl__ght_desc *desc, uint32_t width, uint32_t height,
                         unsigned copies, uint64_t batch)
{
    uint32_t gw, gh;
    uint64_t L = desc->levels, cell = cell_bytes(copies), cells;

    votecl__ght_grid(desc, width, height, &gw, &gh);
    cells = (uint64_t)gw * gh; /* below 2^30 */
    if (batch >= UINT64_MAX / 4 / cell / (cells + 1))
        return UINT64_MAX;
    /* the rotation search's columns (16 L bytes a thread, at most L threads: 16 L^2), the S
     * histograms (scales below 2^17), the reference's
     * scratch of one more candidate */
    return (batch + (copies == 0)) * cell * cells + 16 * L * L +
           8 * ((uint64_t)desc->p.max_rotations + 1) * desc->scales;
}

/* --- the debug log's figures --- */

/* The pairs of pairings a walk visits for a candidate of bin shift b (its shifts b - TOL ..
 * b + TOL, or b alone when tol is 0), from the lists' offsets. */
static uint64_t
visits(const votecl__ght_desc *d, const votecl__ght_pairs *tp, const votecl__ght_pairs *ip,
       uint32_t b, uint32_t tol)
{
    uint32_t L = d->levels;
    uint64_t v = 0;

    for (uint32_t k = 0; k <= 2 * tol; k++) {
        uint32_t bk = (b + L * (tol + 1) + k - tol) % L;
        for (size_t n = 0; n < tp->nkeys; n++) {
            uint32_t key = tp->keys[n], k2 = ((key / L + bk) % L) * L + key % L;
            v += (uint64_t)(tp->offsets[key + 1] - tp->offsets[key]) *
                 (ip->offsets[k2 + 1] - ip->offsets[k2]);
        }
    }
    return v;
}

/* The search's candidates, kept maxima and visits into st (walks: the match stage's walks
 * per candidate). */
static void
search_counts(const search *s, unsigned walks, votecl__ght_search_stats *st)
{
    st->candidates = s->nc;
    st->kept = s->kept;
    for (uint32_t i = 0; i < s->nr; i++)
        st->s_visits += visits(s->desc, s->tp, s->ip, s->b[i], VOTECL__GHT_TOL);
    for (size_t c = 0; c < s->nc; c++) {
        uint64_t v = visits(s->desc, s->tp, s->ip, s->cand[c].b, VOTECL__GHT_TOL);
        int held = 0;
        for (size_t k = 0; k < s->kept && !held; k++)
            held = s->h[k].sel.cand == c;
        st->matched += held;
        st->d_visits += v;
        st->m_visits += s->kept > 0 ? walks * v : 0;
    }
}

votecl_status
votecl__ght_guil(const votecl__ght_desc *desc, const votecl__ght_stages *stages, const uint32_t *ot,
                 const uint32_t *oi, const votecl__ght_pairs *templ, const votecl__ght_pairs *image,
                 uint32_t width, uint32_t height, uint64_t room, unsigned copies, unsigned threads,
                 votecl__ght_poses *out, votecl__ght_search_stats *stats)
{
    ref_user ru = {desc, templ, image, NULL};
    const votecl__ght_stages ref = {ref_sspace, ref_dpeaks, ref_matches, &ru};
    search s = {.desc = desc,
                .st = stages != NULL ? stages : &ref,
                .ref = stages != NULL ? NULL : &ru,
                .tp = templ,
                .ip = image,
                .room = room,
                .copies = copies,
                .threads = threads};
    double t0 = stats != NULL ? votecl__now_seconds() : 0;
    votecl_status status;

    if (stats != NULL)
        memset(stats, 0, sizeof *stats);
    votecl__ght_grid(desc, width, height, &s.gw, &s.gh);
    if ((status = search_alloc(&s)) == VOTECL_OK &&
        (status = rotations(&s, ot, oi, stats)) == VOTECL_OK && s.nr > 0) {
        lap(stats, 0, &t0);
        if ((status = scales(&s)) == VOTECL_OK && s.nc > 0 &&
            (status = batch_alloc(&s)) == VOTECL_OK) {
            lap(stats, 1, &t0);
            status = positions(&s);
            lap(stats, 2, &t0);
        }
        if (status == VOTECL_OK && s.kept > 0)
            status = fits(&s, out, stats, &t0);
    }
    if (stats != NULL && status == VOTECL_OK)
        search_counts(&s, stages != NULL ? 2 : 1, stats);
    search_free(&s);
    return status;
}
