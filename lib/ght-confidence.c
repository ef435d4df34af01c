/* A pose's confidence: the share of the template's edge points that the image confirms at
 * that pose. Votes cannot be compared across templates, scales or images: Guil's D votes grow
 * with the square of the edges (pairings), Ballard's with the template's edges times the
 * image's, and a square whose sides each match a straight stretch of the template gathers as
 * many votes as a true match. A confirmed point is what a user means by "the template is
 * there": template edge point q, mapped to p = (x, y) + s R(a) (q - centre), has an image
 * edge point within GHT_CONF_RADIUS pixels whose gradient bin is within GHT_CONF_BINS of q's
 * bin turned by a. The share lies in [0, 1] for any template, scale and image; a partly
 * occluded instance keeps the share it shows. It depends only on the edges and the pose,
 * which every backend gives alike, so the device's confidences equal the reference's. */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ght-private.h"
#include "parallel.h"

#define GHT_PI 3.14159265358979323846
#define GHT_CONF_RADIUS 2         /* pixels (Chebyshev): the fit's error and the edges' jitter */
#define GHT_CONF_DEGREES 10.0     /* gradient tolerance: Sobel on anti-aliased, blurred edges */
#define GHT_REFINE_ROUNDS 2
#define GHT_REFINE_DEGREES 3.0    /* a refinement may turn a pose by at most this... */
#define GHT_REFINE_SCALE 0.05     /* ...and scale it by at most this fraction */
#define GHT_REFINE_REACH 0.25     /* refined: poses within this of min_confidence or above */
#define GHT_HIDDEN_MAX 0.3        /* most of the template an accepted pose may hide... */
#define GHT_HIDDEN_ROUNDS 4       /* ...and the rounds of judging the poses not accepted */

/* What a model keeps between its detections' confidences: the tables of its bin count and
 * tolerance, and per-pixel maps for images up to pixels, which are all zero between calls
 * (each call clears the entries it set, at its image's edges: no pass over every pixel). */
struct votecl__ght_conf_memo {
    uint32_t L, tol, group; /* the tables': bins, tolerance, bins per group */
    uint64_t *sure, *maybe; /* per bin (conf_map) */
    double *normals;        /* per bin: cos and sin of its centre, 360 b / L degrees */
    uint16_t *bins;         /* per pixel: the edge's bin + 1, 0: no edge */
    uint8_t *claimed;       /* per pixel */
    uint64_t *near;         /* per pixel (conf_map) */
    size_t pixels;
    uint8_t *edges; /* a bit per pixel, rows of edge_stride bytes (conf_map) */
    size_t edge_bytes;
    votecl__ght_conf_stats last; /* the last call's */
};

votecl__ght_conf_stats
votecl__ght_conf_last(const votecl__ght_conf_memo *memo)
{
    votecl__ght_conf_stats none = {0, 0, 0};

    return memo != NULL ? memo->last : none;
}

void
votecl__ght_conf_memo_free(votecl__ght_conf_memo *memo)
{
    if (memo == NULL)
        return;
    VOTECL__FREE_ALL(memo->sure, memo->maybe, memo->normals, memo->bins, memo->claimed, memo->near,
                     memo->edges, memo);
}

/* The bytes of a row of the edges' bits of a w pixels wide image: a byte a spare, as row_bits
 * reads two from any column's. */
static size_t
edge_stride(uint32_t w)
{
    return ((size_t)w + 7) / 8 + 1;
}

/* Zeroed per-pixel maps for w * h pixels in memo; 0 when out of memory. */
static int
memo_maps(votecl__ght_conf_memo *memo, uint32_t w, uint32_t h)
{
    size_t pixels = (size_t)w * h > 0 ? (size_t)w * h : 1;
    size_t bytes = edge_stride(w) * h;

    if (bytes > memo->edge_bytes) {
        free(memo->edges);
        memo->edge_bytes = 0;
        if ((memo->edges = votecl__calloc(bytes, 1)) == NULL)
            return 0;
        memo->edge_bytes = bytes;
    }

    if (pixels <= memo->pixels)
        return 1;
    free(memo->bins);
    free(memo->claimed);
    free(memo->near);
    memo->pixels = 0;
    memo->bins = votecl__calloc(pixels, sizeof *memo->bins);
    memo->claimed = votecl__calloc(pixels, 1);
    memo->near = votecl__calloc(pixels, sizeof *memo->near);
    if (memo->bins == NULL || memo->claimed == NULL || memo->near == NULL)
        return 0;
    memo->pixels = pixels;
    return 1;
}

/* The image's edge bins by pixel into memo->bins (bin + 1; 0: no edge), their bits into
 * memo->edges. */
static void
edge_map(const votecl__ght_edges *image, uint32_t w, uint32_t h, uint16_t *map, uint8_t *bits)
{
    size_t stride = edge_stride(w);

    for (size_t i = 0; i < image->n; i++) {
        const votecl__ght_point *p = &image->points[i];
        if ((uint32_t)p->x < w && (uint32_t)p->y < h) {
            map[(size_t)p->y * w + p->x] = (uint16_t)(p->bin + 1);
            bits[(size_t)p->y * stride + (uint32_t)p->x / 8] |= (uint8_t)(1u << (p->x % 8));
        }
    }
}

/* Bins a and b are within tol of each other on the circle of L bins. */
static int
bins_near(uint32_t a, uint32_t b, uint32_t L, uint32_t tol)
{
    uint32_t d = a > b ? a - b : b - a;
    return (d < L - d ? d : L - d) <= tol;
}

/* What the confirmations look at: the image's edge map and the edges claimed by the poses
 * accepted so far (NULL: none), and the map's summary (below; NULL: none). */
typedef struct conf_map {
    const uint16_t *bins;
    const uint8_t *edges; /* a bit per pixel: an edge there; rows of edge_stride(w) bytes */
    uint8_t *claimed;
    uint32_t w, h, L, tol;
    const uint64_t *near;  /* per pixel: the groups of bins of the edges within the radius */
    const uint64_t *sure;  /* per bin: the groups whose bins are all within tol of it */
    const uint64_t *maybe; /* per bin: the groups with some bins within tol of it */
    uint32_t group;        /* bins per group (64 groups at most) */
    const double *normals; /* per bin: cos and sin of its centre */
} conf_map;

/* The summary that answers most unclaimed look-ups with one read: per pixel, a bit per group
 * of GROUP consecutive bins that some edge within GHT_CONF_RADIUS has; a look-up for bin is
 * confirmed when a group all of whose bins are near bin is present, refused when no group
 * with a bin near it is, and decided by the scan of the neighbourhood otherwise (the same
 * answer as the scan: the groups only sort the edges the scan would look at). The per-bin
 * tables (sure, maybe) and the bins' normals depend only on L and tol: made once per memo.
 * Returns 0 when out of memory. */
static int
memo_tables(votecl__ght_conf_memo *memo, uint32_t L, uint32_t tol)
{
    uint32_t g = (L + 63) / 64, count[64];

    if (memo->sure != NULL && memo->L == L && memo->tol == tol)
        return 1;
    free(memo->sure);
    free(memo->maybe);
    free(memo->normals);
    memo->sure = votecl__calloc(L, sizeof *memo->sure);
    memo->maybe = votecl__calloc(L, sizeof *memo->maybe);
    memo->normals = votecl__malloc((size_t)L * 2 * sizeof *memo->normals);
    if (memo->sure == NULL || memo->maybe == NULL || memo->normals == NULL) {
        free(memo->sure); /* made again next time */
        memo->sure = NULL;
        return 0;
    }
    for (uint32_t b = 0; b < L; b++) {
        double nb = 2.0 * GHT_PI * b / L;
        memset(count, 0, sizeof count);
        if (2 * (uint64_t)tol + 1 >= L)
            for (uint32_t k = 0; k < L; k++)
                count[k / g]++;
        else /* the 2 tol + 1 distinct bins within tol of b */
            for (uint32_t d = 0; d <= 2 * tol; d++)
                count[((uint64_t)b + L - tol + d) % L / g]++;
        for (uint32_t j = 0; j * g < L; j++) {
            uint32_t size = (j + 1) * g <= L ? g : L - j * g;
            if (count[j] == size)
                memo->sure[b] |= (uint64_t)1 << j;
            else if (count[j] > 0)
                memo->maybe[b] |= (uint64_t)1 << j;
        }
        memo->normals[2 * b] = cos(nb);
        memo->normals[2 * b + 1] = sin(nb);
    }
    memo->L = L;
    memo->tol = tol;
    memo->group = g;
    return 1;
}

/* The per-pixel summary of the image's edges into near (set), or its entries back to zero. */
static void
near_map(const votecl__ght_edges *image, uint32_t w, uint32_t h, uint32_t group, uint64_t *near,
         int set)
{
    for (size_t i = 0; i < image->n; i++) {
        const votecl__ght_point *p = &image->points[i];
        uint64_t bit = (uint64_t)1 << (p->bin / group);
        long x0 = (long)p->x - GHT_CONF_RADIUS, x1 = (long)p->x + GHT_CONF_RADIUS;
        long y0 = (long)p->y - GHT_CONF_RADIUS, y1 = (long)p->y + GHT_CONF_RADIUS;
        if ((uint32_t)p->x >= w || (uint32_t)p->y >= h)
            continue; /* as edge_map */
        x0 = x0 > 0 ? x0 : 0;
        y0 = y0 > 0 ? y0 : 0;
        x1 = x1 < (long)w ? x1 : (long)w - 1;
        y1 = y1 < (long)h ? y1 : (long)h - 1;
        for (long y = y0; y <= y1; y++)
            for (long x = x0; x <= x1; x++)
                near[(size_t)y * w + (size_t)x] = set ? near[(size_t)y * w + (size_t)x] | bit : 0;
    }
}

/* What scan_window does with the image edges near (x, y) whose gradient bin is near bin. */
typedef enum scan_mode {
    SCAN_FIRST,  /* the first unclaimed one (raster order of the neighbourhood) */
    SCAN_CLAIM,  /* claims them all (m->claimed set); returns an unclaimed one before */
    SCAN_NEAREST /* the nearest one (ties: raster order), claimed or not */
} scan_mode;

/* lround(x) (halves away from zero) without the library call where |x| < 2^62: x less its
 * truncation is exact. */
static long
round_half_away(double x)
{
    long t;
    double f;

    if (!(fabs(x) < 4.6e18))
        return lround(x);
    t = (long)x;
    f = x - (double)t;
    return f >= 0.5 ? t + 1 : f <= -0.5 ? t - 1 : t;
}

/* The edge bits of row y from column x0 to x1 (0 <= x0, x1 < w, at most 9 apart; none when
 * x0 > x1: a window beside the image), bit 0 for x0: the two bytes from x0's hold them, with
 * no branch on where the window falls. */
static uint64_t
row_bits(const conf_map *m, long y, long x0, long x1)
{
    const uint8_t *row = m->edges + (size_t)y * edge_stride(m->w) + (size_t)x0 / 8;

    if (x0 > x1)
        return 0;
    return (((unsigned)row[0] | (unsigned)row[1] << 8) >> (x0 % 8)) & ((1u << (x1 - x0 + 1)) - 1);
}

/* Bits a row of the window takes in scan_window's mask: its side and more (the rows' loops
 * end where the window's pixels have no edge, hard to predict; one loop over the mask ends
 * once). */
#define WIN_COLS 8u
_Static_assert(2 * GHT_CONF_RADIUS + 1 <= WIN_COLS && (2 * GHT_CONF_RADIUS + 1) * WIN_COLS <= 64 &&
                   2 * GHT_CONF_RADIUS + 1 <= 9,
               "the window's rows fit a mask of 64 bits, each two bytes of the edges' bits");

/* The neighbourhood of GHT_CONF_RADIUS pixels around (x, y) rounded: the index the mode
 * asks for, or SIZE_MAX. Raster order within the image. */
static size_t
scan_window(const conf_map *m, double x, double y, uint32_t bin, scan_mode mode)
{
    long cx, cy, x0, x1, y0, y1;
    size_t best = SIZE_MAX;
    uint64_t bits = 0;
    double bd = 0;

    if (!(fabs(x) < 1e9 && fabs(y) < 1e9)) /* far outside any image (or NaN): no window */
        return SIZE_MAX;
    cx = round_half_away(x);
    cy = round_half_away(y);
    x0 = cx - GHT_CONF_RADIUS;
    x1 = cx + GHT_CONF_RADIUS;
    y0 = cy - GHT_CONF_RADIUS;
    y1 = cy + GHT_CONF_RADIUS;
    x0 = x0 > 0 ? x0 : 0;
    y0 = y0 > 0 ? y0 : 0;
    x1 = x1 < (long)m->w ? x1 : (long)m->w - 1;
    y1 = y1 < (long)m->h ? y1 : (long)m->h - 1;
    /* the window's edges only (most of its pixels have none), its rows WIN_COLS bits apart:
     * one loop over them in raster order */
    for (long yy = y0; yy <= y1; yy++)
        bits |= row_bits(m, yy, x0, x1) << (WIN_COLS * (yy - y0));
    for (; bits != 0; bits &= bits - 1) {
        unsigned k = (unsigned)__builtin_ctzll(bits);
        long xx = x0 + (long)(k % WIN_COLS), yy = y0 + (long)(k / WIN_COLS);
        size_t i = (size_t)yy * m->w + (size_t)xx;
        double d;
        if (!bins_near(m->bins[i] - 1u, bin, m->L, m->tol))
            continue;
        if (mode == SCAN_FIRST && (m->claimed == NULL || !m->claimed[i]))
            return i;
        if (mode == SCAN_CLAIM) {
            best = m->claimed[i] ? best : i;
            m->claimed[i] = 1;
            continue;
        }
        d = (xx - x) * (xx - x) + (yy - y) * (yy - y);
        if (mode == SCAN_NEAREST && (best == SIZE_MAX || d < bd)) {
            best = i;
            bd = d;
        }
    }
    return best;
}

/* Whether an unclaimed image edge near (x, y) has a gradient bin near bin: confirming, mostly
 * answered by the summary. */
static int
confirmed(const conf_map *m, double x, double y, uint32_t bin)
{
    long cx = round_half_away(x), cy = round_half_away(y);

    if (m->near != NULL && m->claimed == NULL && cx >= 0 && cy >= 0 && cx < (long)m->w &&
        cy < (long)m->h) {
        uint64_t at = m->near[(size_t)cy * m->w + (size_t)cx];
        if ((at & m->sure[bin]) != 0)
            return 1;
        if ((at & m->maybe[bin]) == 0)
            return 0;
    }
    return scan_window(m, x, y, bin, SCAN_FIRST) != SIZE_MAX;
}

/* A pose accepted before: where it maps the template's frame, as the inverse similarity
 * (c, s: cos and sin of its angle over its scale) and the frame (the box of the template's
 * edge points, grown by GHT_CONF_RADIUS). */
typedef struct occluder {
    double x, y, c, s;
} occluder;

typedef struct frame {
    double x0, y0, x1, y1;
} frame;

/* Image point (x, y) lies within an accepted pose's frame: a later instance drawn over an
 * earlier one hides its edges there. */
static int
occluded(const votecl__ght_desc *desc, const frame *f, const occluder *occ, size_t nocc, double x,
         double y)
{
    for (size_t k = 0; k < nocc; k++) {
        double dx = x - occ[k].x, dy = y - occ[k].y;
        double u = occ[k].c * dx + occ[k].s * dy + desc->cx,
               v = -occ[k].s * dx + occ[k].c * dy + desc->cy;
        if (u >= f->x0 && u <= f->x1 && v >= f->y0 && v <= f->y1)
            return 1;
    }
    return 0;
}

/* The share of the template's points confirmed at pose; with claim (m->claimed set), the
 * confirming edges become claimed. The count stops once the share cannot reach floor (> 0), and the
 * share so far is returned: a lower bound, below floor. A point that is not confirmed where an
 * occluder (nocc of them) covers it is left out of the share (hidden, not missing), up to
 * GHT_HIDDEN_MAX of the template's points. */
static double
pose_confidence_hidden(const votecl__ght_desc *desc, const votecl__ght_edges *templ, conf_map *m,
                       const votecl_ght_pose *pose, int claim, double floor, const frame *f,
                       const occluder *occ, size_t nocc)
{
    uint32_t L = desc->levels, shift = (uint32_t)lround(pose->angle * L / 360.0) % L;
    double a = pose->angle * GHT_PI / 180.0, c = cos(a) * pose->scale, s = sin(a) * pose->scale;
    size_t hits = 0, hidden = 0, need = floor > 0 ? (size_t)ceil(floor * (double)templ->n) : 0;
    size_t most = (size_t)(GHT_HIDDEN_MAX * (double)templ->n);

    if (templ->n == 0)
        return 0;
    for (size_t i = 0; i < templ->n && hits + (templ->n - i) >= need; i++) {
        const votecl__ght_point *q = &templ->points[i];
        double u = q->x - desc->cx, v = q->y - desc->cy;
        double x = pose->x + c * u - s * v, y = pose->y + s * u + c * v;
        /* a claim takes every edge that could confirm the point (and tells whether one
         * does, in the same walk): at a scale above 1 the template's points are sparser
         * than the image's, and one edge per point would leave the instance's other edges
         * to a pose over it at another scale */
        if (!(claim ? scan_window(m, x, y, (q->bin + shift) % L, SCAN_CLAIM) != SIZE_MAX
                    : confirmed(m, x, y, (q->bin + shift) % L))) {
            hidden += nocc > 0 && hidden < most && occluded(desc, f, occ, nocc, x, y);
            continue;
        }
        hits++;
    }
    return (double)hits / (double)(templ->n - hidden);
}

static double
pose_confidence(const votecl__ght_desc *desc, const votecl__ght_edges *templ, conf_map *m,
                const votecl_ght_pose *pose, int claim, double floor)
{
    return pose_confidence_hidden(desc, templ, m, pose, claim, floor, NULL, NULL, 0);
}

/* The nearest confirming image edge of every template point at pose (claims ignored: refine
 * looks at every edge) into c, 6 doubles each (the point, the edge, the normal of the edge's
 * bin), *count of them; returns the share they make, pose_confidence's with floor (a point is
 * confirmed exactly when it has a nearest confirming edge; the walk stops where the share
 * cannot reach floor, the share so far a lower bound below it, c then incomplete). One walk
 * gives a refinement its confidence and the next round's correspondences. */
static double
nearest_share(const votecl__ght_desc *desc, const votecl__ght_edges *templ, const conf_map *m,
              const votecl_ght_pose *pose, double floor, double *c, size_t *count)
{
    uint32_t L = desc->levels, shift = (uint32_t)lround(pose->angle * L / 360.0) % L;
    double a = pose->angle * GHT_PI / 180.0, co = cos(a) * pose->scale, si = sin(a) * pose->scale;
    size_t n = 0, need = floor > 0 ? (size_t)ceil(floor * (double)templ->n) : 0;

    *count = 0;
    if (templ->n == 0)
        return 0;
    for (size_t i = 0; i < templ->n && n + (templ->n - i) >= need; i++) {
        const votecl__ght_point *q = &templ->points[i];
        double u = q->x - desc->cx, v = q->y - desc->cy;
        size_t at = scan_window(m, pose->x + co * u - si * v, pose->y + si * u + co * v,
                                (q->bin + shift) % L, SCAN_NEAREST);
        if (at == SIZE_MAX)
            continue;
        c[6 * n] = u;
        c[6 * n + 1] = v;
        c[6 * n + 2] = (double)(at % m->w);
        c[6 * n + 3] = (double)(at / m->w);
        c[6 * n + 4] = m->normals[2 * (m->bins[at] - 1u)]; /* the edge's bin's centre */
        c[6 * n + 5] = m->normals[2 * (m->bins[at] - 1u) + 1];
        n++;
    }
    *count = n;
    return (double)n / (double)templ->n;
}

/* One refinement of pose: the point-to-line similarity of the n correspondences c of
 * nearest_share at pose. The Hough pose and its fit to the matched pairings are within a
 * degree and a few percent; fitted to the whole template's confirmed outline, it lands within
 * a fraction of both. Kept only near the pose it refines. Returns 0 when there was nothing to
 * fit. */
static int
refine_once(double *c, size_t n, double *scratch, votecl_ght_pose *pose)
{
    double fit[4], scale, angle, da;

    if (!votecl__ght_fit_points(c, n, scratch, fit))
        return 0;
    scale = hypot(fit[0], fit[1]);
    angle = votecl__ght_degrees(atan2(fit[1], fit[0]) * 180.0 / GHT_PI);
    da = fmod(fabs(angle - pose->angle), 360.0);
    da = da > 180 ? 360 - da : da;
    if (da > GHT_REFINE_DEGREES || fabs(scale / pose->scale - 1) > GHT_REFINE_SCALE ||
        hypot(fit[2] - pose->x, fit[3] - pose->y) > GHT_CONF_RADIUS + 1)
        return 0;
    pose->x = fit[2];
    pose->y = fit[3];
    pose->angle = angle;
    pose->scale = scale;
    return 1;
}

/* The frame of the template's edge points, grown by GHT_CONF_RADIUS. */
static frame
template_frame(const votecl__ght_edges *templ)
{
    frame f = {0, 0, 0, 0};

    for (size_t i = 0; i < templ->n; i++) {
        const votecl__ght_point *q = &templ->points[i];
        f.x0 = i == 0 || q->x < f.x0 ? q->x : f.x0;
        f.y0 = i == 0 || q->y < f.y0 ? q->y : f.y0;
        f.x1 = i == 0 || q->x > f.x1 ? q->x : f.x1;
        f.y1 = i == 0 || q->y > f.y1 ? q->y : f.y1;
    }
    f.x0 -= GHT_CONF_RADIUS;
    f.y0 -= GHT_CONF_RADIUS;
    f.x1 += GHT_CONF_RADIUS;
    f.y1 += GHT_CONF_RADIUS;
    return f;
}

static occluder
occluder_of(const votecl_ght_pose *pose)
{
    double a = pose->angle * GHT_PI / 180.0;
    return (occluder){pose->x, pose->y, cos(a) / pose->scale, sin(a) / pose->scale};
}

/* Pose i judged against the edges no accepted pose claimed, the accepted ones (occ) hiding
 * what they cover; accepted (its edges claimed, itself an occluder) when its share reaches
 * min_confidence. Returns whether it was accepted. */
static int
judge(const votecl__ght_desc *desc, const votecl__ght_edges *templ, conf_map *m, const frame *f,
      votecl_ght_pose *pose, occluder *occ, size_t *nocc)
{
    /* before the first acceptance nothing is claimed or hidden: a share refine counted to the
     * end (at or above its screen: a walk stops only below it) is this one, bit for bit */
    double share = *nocc == 0 && pose->confidence >= desc->p.min_confidence - GHT_REFINE_REACH
                       ? pose->confidence
                       : pose_confidence_hidden(desc, templ, m, pose, 0, 0, f, occ, *nocc);

    if (!(share >= desc->p.min_confidence && share > 0))
        return 0;
    pose->confidence = share;
    /* (the claims themselves lower the count of the points after them: not a share) */
    pose_confidence_hidden(desc, templ, m, pose, 1, 0, f, occ, *nocc);
    occ[(*nocc)++] = occluder_of(pose);
    return 1;
}

/* The poses best first; then each one's confidence counts only the edges no better accepted
 * pose claimed (a pose is accepted when that share reaches min_confidence, and claims its
 * edges): a second pose over the same instance (another scale, a neighbouring place) or a
 * pose made of pieces of accepted instances is explained away, whatever its distance.
 * Instances overlap: a later copy drawn over an earlier one hides part of it, so a point
 * that no edge confirms within an accepted pose's frame counts as hidden, not as missing
 * (at most GHT_HIDDEN_MAX of the template). The one covered may rank above the one that
 * covers it only in part (both are incomplete), so the poses not accepted are judged again
 * while a round accepts one (opencv_contrib's GeneralizedHough scene: three copies of
 * templ.png, each covered in part by the next; issue 23). */
static votecl_status
explain(const votecl__ght_desc *desc, const votecl__ght_edges *templ, conf_map *m,
        votecl_ght_pose *poses, size_t n)
{
    double screen = desc->p.min_confidence * (1 - GHT_HIDDEN_MAX);
    frame f = template_frame(templ);
    occluder *occ = votecl__malloc((n > 0 ? n : 1) * sizeof *occ);
    uint8_t *done = votecl__calloc(n > 0 ? n : 1, 1);
    size_t nocc = 0;
    int more = 1;

    if (occ == NULL || done == NULL) {
        free(occ);
        free(done);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    if (n > 1)
        qsort(poses, n, sizeof *poses, votecl__ght_pose_cmp);
    for (int round = 0; more && round < GHT_HIDDEN_ROUNDS; round++) {
        more = 0;
        for (size_t i = 0; i < n; i++) {
            /* claims only lower a share, hidden points raise it at most this far */
            if (done[i] || poses[i].confidence < screen)
                continue;
            if (judge(desc, templ, m, &f, &poses[i], occ, &nocc))
                more = done[i] = 1;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!done[i] && poses[i].confidence >= screen)
            poses[i].confidence =
                pose_confidence_hidden(desc, templ, m, &poses[i], 0, 0, &f, occ, nocc);
    free(occ);
    free(done);
    return VOTECL_OK;
}

/* Pose refined GHT_REFINE_ROUNDS times, while its confidence does not drop, and its
 * confidence (no claims: m only read). c, scratch: 6 and VOTECL__GHT_FIT_SCRATCH doubles a
 * template point. */
static void
refine_pose(const votecl__ght_desc *desc, const votecl__ght_edges *templ, conf_map *m, double *c,
            double *scratch, votecl_ght_pose *pose)
{
    double screen = desc->p.min_confidence - GHT_REFINE_REACH;
    size_t nc = 0;
    /* with the summary the first share is mostly one read a point, and most poses stop
     * there: their nearest edges only when refined */
    int have = m->near == NULL;
    double now = have ? nearest_share(desc, templ, m, pose, screen, c, &nc)
                      : pose_confidence(desc, templ, m, pose, 0, screen);

    for (int r = 0; r < GHT_REFINE_ROUNDS && !(now < screen); r++) {
        votecl_ght_pose next = *pose;
        double after;
        if (!have)
            nearest_share(desc, templ, m, pose, 0, c, &nc);
        have = 1;
        if (!refine_once(c, nc, scratch, &next))
            break;
        /* the last round's share needs no correspondences: the first edge found will do */
        after = r + 1 < GHT_REFINE_ROUNDS ? nearest_share(desc, templ, m, &next, 0, c, &nc)
                                          : pose_confidence(desc, templ, m, &next, 0, 0);
        if (after < now)
            break;
        *pose = next;
        now = after;
    }
    pose->confidence = now;
}

/* What the refinement's team shares: each pose is refined in place by one worker, against
 * the map with no claims (read only), with its worker's scratch. */
typedef struct refine_work {
    const votecl__ght_desc *desc;
    const votecl__ght_edges *templ;
    const conf_map *open;
    votecl_ght_pose *poses;
    double *c, *scratch; /* per worker: 6 and VOTECL__GHT_FIT_SCRATCH doubles a point */
    size_t points;       /* template points, at least 1 */
} refine_work;

static votecl_status
refine_range(void *user, size_t begin, size_t end, unsigned worker)
{
    const refine_work *r = user;
    conf_map open = *r->open;
    double *c = r->c + (size_t)worker * 6 * r->points,
           *scratch = r->scratch + (size_t)worker * VOTECL__GHT_FIT_SCRATCH * r->points;

    for (size_t i = begin; i < end; i++)
        refine_pose(r->desc, r->templ, &open, c, scratch, &r->poses[i]);
    return VOTECL_OK;
}

/* Template points a claim of the refinement's team looks up at least (a pose's first count
 * looks each up once, most stop early: 0.15 ms on one core for the sample pair's Hough poses,
 * 25 claims; poses that refine take a few times more): Ballard's few poses and a small
 * template stay on the caller's thread. */
#define GHT_REFINE_CLAIM 8192u

/* Every pose refined (refine_pose) on the host's threads, each pose by one worker: the same
 * confidences for any threads. A pose whose confidence before refinement is below
 * min_confidence - GHT_REFINE_REACH is not refined and keeps that share (a lower bound: the
 * count stops there): on the suite a refinement raised a pose's share by at most a few
 * hundredths, and most Hough poses (a square's sides, clutter) are such, so this is where
 * the stage's time goes otherwise. */
static votecl_status
refine(const votecl__ght_desc *desc, const votecl__ght_edges *templ, const conf_map *m,
       votecl_ght_pose *poses, size_t n, unsigned threads, unsigned *workers)
{
    conf_map open = *m; /* refinement looks at every edge: none is claimed yet */
    refine_work r = {desc, templ, &open, poses, NULL, NULL, templ->n > 0 ? templ->n : 1};
    votecl__team team;
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    open.claimed = NULL;
    votecl__team_open(&team, threads, n, (GHT_REFINE_CLAIM + r.points - 1) / r.points);
    *workers = team.workers;
    if (r.points <= SIZE_MAX / sizeof(double) / (6 + VOTECL__GHT_FIT_SCRATCH) / team.workers) {
        r.c = votecl__malloc((size_t)team.workers * 6 * r.points * sizeof *r.c);
        r.scratch = votecl__malloc((size_t)team.workers * VOTECL__GHT_FIT_SCRATCH * r.points *
                                   sizeof *r.scratch);
    }
    if (r.c != NULL && r.scratch != NULL)
        status = votecl__team_run(&team, refine_range, &r);
    votecl__team_close(&team);
    free(r.c);
    free(r.scratch);
    return status;
}

/* Whether the summary pays: building and clearing it writes 2 (2 GHT_CONF_RADIUS + 1)^2
 * words per image edge, and it spares most of a neighbourhood's scan (as many reads) to each
 * of the about n templ look-ups of a refinement's confidences. Either way the answers are
 * the same. */
static int
summary_pays(size_t poses, size_t templ, size_t image)
{
    return 3.0 * (double)poses * (double)templ > 2.0 * (double)image;
}

votecl_status
votecl__ght_confidence(const votecl__ght_desc *desc, const votecl__ght_edges *templ,
                       const votecl__ght_edges *image, uint32_t width, uint32_t height,
                       votecl_ght_pose *poses, size_t n, int summary, unsigned threads,
                       votecl__ght_conf_memo **memo)
{
    votecl__ght_conf_memo *c = *memo;
    double t0;
    votecl_status status;
    conf_map m = {.w = width,
                  .h = height,
                  .L = desc->levels,
                  .tol = (uint32_t)ceil(GHT_CONF_DEGREES * desc->levels / 360.0)};

    if (n == 0)
        return VOTECL_OK;
    if (c == NULL && (c = *memo = votecl__calloc(1, sizeof *c)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    if (!memo_tables(c, m.L, m.tol) || !memo_maps(c, width, height))
        return VOTECL_OUT_OF_HOST_MEMORY;
    m.bins = c->bins;
    m.edges = c->edges;
    m.claimed = c->claimed;
    m.sure = c->sure;
    m.maybe = c->maybe;
    m.group = c->group;
    m.normals = c->normals;
    edge_map(image, width, height, c->bins, c->edges);
    if (summary > 0 || (summary < 0 && summary_pays(n, templ->n, image->n))) {
        near_map(image, width, height, m.group, c->near, 1);
        m.near = c->near;
    }
    c->last = (votecl__ght_conf_stats){0, 1, 0};
    t0 = votecl__now_seconds();
    if ((status = refine(desc, templ, &m, poses, n, threads, &c->last.workers)) == VOTECL_OK) {
        c->last.refine_seconds = votecl__now_seconds() - t0;
        status = explain(desc, templ, &m, poses, n);
        c->last.explain_seconds = votecl__now_seconds() - t0 - c->last.refine_seconds;
    }
    /* the maps back to zero: only the image's edges were set or claimed */
    for (size_t i = 0; i < image->n; i++) {
        const votecl__ght_point *p = &image->points[i];
        if ((uint32_t)p->x < width && (uint32_t)p->y < height) {
            c->bins[(size_t)p->y * width + p->x] = 0;
            c->claimed[(size_t)p->y * width + p->x] = 0;
            c->edges[(size_t)p->y * edge_stride(width) + (uint32_t)p->x / 8] = 0;
        }
    }
    if (m.near != NULL)
        near_map(image, width, height, m.group, c->near, 0);
    return status;
}
