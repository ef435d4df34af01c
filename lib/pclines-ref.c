/* PClines, sequential: Algorithm 1 of the paper in integer arithmetic, the maxima of the
 * n x n neighbourhood around the strip's ends, and the conversion of cells into lines. This
 * is the specification cl/pclines.cl follows and the test oracle; also the 'ref' backend. */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "edges-private.h"
#include "pclines-private.h"
#include "segment-private.h"

/* The fit: edges within 3 px of the line (a 3 px wide line's flanks lie 2.5 px from its
 * middle), three passes (each around the last one's line, so a cell 1.5 px off is
 * recentred), and no turn beyond 10 degrees (a cell is at most half a column off). */
#define VOTECL__PCLINES_FIT_BAND 3.0
#define VOTECL__PCLINES_FIT_PASSES 3u
#define VOTECL__PCLINES_FIT_TURN (10.0 * M_PI / 180.0)

/* The fit's view of its source (all borrowed). */
typedef struct pclines_fit_source {
    const votecl__pclines_desc *desc;
    const votecl__pclines_source *source;
    const votecl_lines_edge *sorted;
} pclines_fit_source;

void
votecl__pclines_desc_init(votecl__pclines_desc *desc, const votecl_lines_params *p,
                          uint32_t width, uint32_t height)
{
    uint32_t big = width > height ? width : height, small = width < height ? width : height;

    memset(desc, 0, sizeof *desc);
    desc->width = width;
    desc->height = height;
    desc->half = p->neighbourhood / 2;
    desc->d = p->distance != 0 ? p->distance : (big + 1) / 2;
    if (p->distance == 0 && desc->d < p->neighbourhood)
        desc->d = p->neighbourhood;
    desc->rows = p->rows != 0 ? p->rows : big;
    desc->m = big - 1;
    desc->k = ((uint64_t)desc->rows << 32) / ((uint64_t)(2 * desc->m + 1) * desc->d);
    desc->threshold = p->threshold != 0 ? p->threshold : (small / 4 > 2 ? small / 4 : 2);
    desc->radius = p->radius;
    desc->kernel = p->orientation_kernel;
    if (p->radius == VOTECL_LINES_RADIUS_AUTO)
        desc->radius = 3 * desc->d / 20 > 2 ? 3 * desc->d / 20 : 2;
    if (desc->radius != 0 && 2 * (uint64_t)desc->radius + 1 >= 2 * (uint64_t)desc->d)
        desc->radius = 0; /* the window covers every column */
    /* Gradients are at most 2^20 a side, so thresholds above 2^22 all find no edge; the
     * clamp keeps the square within int64_t. */
    desc->edge_t2 = (int64_t)(p->edge_threshold < (1u << 22) ? p->edge_threshold : 1u << 22) *
                    (p->edge_threshold < (1u << 22) ? p->edge_threshold : 1u << 22);
}

/* Eq. 4 on doubled, centred coordinates: ((X + M) d + s u) K >> 32. */
uint32_t
votecl__pclines_row(const votecl__pclines_desc *desc, uint32_t px, uint32_t py, uint32_t c)
{
    int64_t x = 2 * (int64_t)px - (desc->width - 1), y = 2 * (int64_t)py - (desc->height - 1);
    int64_t u = (int64_t)c - desc->d;
    int64_t slope = u >= 0 ? y - x : x + y;
    int64_t num = (x + desc->m) * desc->d + slope * u;

    return (uint32_t)(((uint64_t)num * desc->k) >> 32);
}

/* Eq. 9, rounded half up: u = floor((2 d Gy + den) / (2 den)) with den > 0. */
uint32_t
votecl__pclines_key(const votecl__pclines_desc *desc, int32_t gx, int32_t gy)
{
    int64_t s = (gx >= 0) == (gy >= 0) ? 1 : -1;
    int64_t den = (int64_t)gx + s * gy, num = (int64_t)desc->d * gy, q, two_d = 2 * desc->d;

    if (den == 0)
        return desc->d; /* no gradient: u = 0 */
    if (den < 0) {
        den = -den;
        num = -num;
    }
    num = 2 * num + den;
    q = num / (2 * den);
    if (num < 0 && q * 2 * den != num)
        q--;
    return (uint32_t)(((q + desc->d) % two_d + two_d) % two_d);
}

/* du/dphi = d / (|cos phi| + |sin phi|)^2 = d (a^2 + b^2) / d^2 with a = |u|, b = d - |u|: a
 * column spans twice the angle at the diagonals that it spans at the axes, so a window of
 * one angle is r (a^2 + b^2) / d^2 columns, rounded, at least 1. */
uint32_t
votecl__pclines_radius_at(const votecl__pclines_desc *desc, uint32_t c)
{
    uint64_t d = desc->d, a = c >= d ? c - d : d - c, b = d - a;
    uint64_t r = (desc->radius * (a * a + b * b) + d * d / 2) / (d * d);

    return r > 0 ? (uint32_t)r : 1;
}

int
votecl__pclines_in_window(const votecl__pclines_desc *desc, uint32_t key, uint32_t c)
{
    uint32_t two_d = 2 * desc->d, delta, r;

    if (desc->radius == 0)
        return 1;
    r = votecl__pclines_radius_at(desc, c % two_d);
    delta = (c % two_d + two_d - key) % two_d;
    return delta <= r || two_d - delta <= r;
}

static int32_t
to_int_gradient(float g)
{
    g = isnan(g) ? 0.0f : g * 255.0f;
    g = g < -1048576.0f ? -1048576.0f : g > 1048576.0f ? 1048576.0f : g;
    return (int32_t)rintf(g);
}

void
votecl__pclines_sobel(const void *data, votecl_dtype dtype, uint32_t width, uint32_t x,
                      uint32_t y, int32_t *gx, int32_t *gy)
{
    size_t w = width;

    if (dtype == VOTECL_DTYPE_U8) {
        votecl__sobel3((const uint8_t *)data + (size_t)y * w + x, w, gx, gy);
        return;
    }
    const float *r1 = (const float *)data + (size_t)y * w, *r0 = r1 - w, *r2 = r1 + w;
    *gx = to_int_gradient(VOTECL__SOBEL3_GX(r0, r1, r2, x));
    *gy = to_int_gradient(VOTECL__SOBEL3_GY(r0, r1, r2, x));
}

void
votecl__pclines_gray(const uint8_t *colour, unsigned channels, size_t pixels, uint8_t *gray)
{
    for (size_t i = 0; i < pixels; i++)
        gray[i] = votecl__pclines_gray_of(colour + i * channels);
}

static uint32_t
clamp_coord(int64_t v, uint32_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : (uint32_t)v;
}

void
votecl__pclines_orientation(const votecl__pclines_desc *desc, const void *data,
                            votecl_dtype dtype, uint32_t x, uint32_t y, int32_t *gx,
                            int32_t *gy)
{
    int k = (int)desc->kernel / 2 - 1, h = (int)desc->kernel / 2;
    const uint8_t *p = data;
    const float *f = data;
    int32_t ix = 0, iy = 0;
    float fx = 0.0f, fy = 0.0f;

    if (desc->kernel == 3) {
        votecl__pclines_sobel(data, dtype, desc->width, x, y, gx, gy);
        return;
    }
    /* Row by row, left to right, the same order as the kernel (float sums are rounded). */
    for (int dy = -h; dy <= h; dy++) {
        size_t row = (size_t)clamp_coord((int64_t)y + dy, desc->height) * desc->width;
        for (int dx = -h; dx <= h; dx++) {
            size_t at = row + clamp_coord((int64_t)x + dx, desc->width);
            int32_t cx = votecl__sobel_deriv[k][3 + dx] * votecl__sobel_smooth[k][3 + dy];
            int32_t cy = votecl__sobel_smooth[k][3 + dx] * votecl__sobel_deriv[k][3 + dy];
            if (dtype == VOTECL_DTYPE_U8) {
                ix += cx * p[at];
                iy += cy * p[at];
            } else {
                fx += (float)cx * f[at];
                fy += (float)cy * f[at];
            }
        }
    }
    if (dtype == VOTECL_DTYPE_U8) {
        *gx = ix;
        *gy = iy;
        return;
    }
    *gx = to_int_gradient(fx);
    *gy = to_int_gradient(fy);
}

size_t
votecl__pclines_ref_edges(const votecl__pclines_desc *desc, const void *data, votecl_dtype dtype,
                          votecl__pclines_point *points)
{
    size_t n = 0;
    int32_t gx, gy;

    for (uint32_t y = 1; y + 1 < desc->height; y++)
        for (uint32_t x = 1; x + 1 < desc->width; x++) {
            votecl__pclines_sobel(data, dtype, desc->width, x, y, &gx, &gy);
            if ((int64_t)gx * gx + (int64_t)gy * gy < desc->edge_t2)
                continue;
            if (desc->radius != 0)
                votecl__pclines_orientation(desc, data, dtype, x, y, &gx, &gy);
            points[n].location = x | y << 16;
            points[n++].key = votecl__pclines_key(desc, gx, gy);
        }
    return n;
}

void
votecl__pclines_ref_accumulate(const votecl__pclines_desc *desc,
                               const votecl__pclines_point *points, size_t n, uint32_t *space)
{
    uint32_t columns = 2 * desc->d;

    memset(space, 0, (size_t)columns * desc->rows * sizeof *space);
    for (size_t i = 0; i < n; i++) {
        uint32_t x = points[i].location & 0xffffu, y = points[i].location >> 16;
        for (uint32_t c = 0; c < columns; c++)
            if (votecl__pclines_in_window(desc, points[i].key, c))
                space[(size_t)c * desc->rows + votecl__pclines_row(desc, x, y, c)]++;
    }
}

/* The cell of virtual column j (-2d < j < 4d) and row r: past the strip's ends the column
 * wraps and the row is mirrored. */
static uint32_t
virtual_cell(const votecl__pclines_desc *desc, int64_t j, uint32_t r)
{
    int64_t two_d = 2 * (int64_t)desc->d;

    if (j < 0 || j >= two_d) {
        j = j < 0 ? j + two_d : j - two_d;
        r = desc->rows - 1 - r;
    }
    return (uint32_t)j * desc->rows + r;
}

int
votecl__pclines_is_max(const votecl__pclines_desc *desc, const uint32_t *space, uint32_t c,
                       uint32_t r)
{
    uint32_t cell = c * desc->rows + r, value = space[cell];
    int64_t h = desc->half;

    if (value < desc->threshold)
        return 0;
    for (int64_t dc = -h; dc <= h; dc++)
        for (int64_t dr = -h; dr <= h; dr++) {
            int64_t rr = (int64_t)r + dr;
            if (rr < 0 || rr >= desc->rows)
                continue;
            uint32_t other = virtual_cell(desc, (int64_t)c + dc, (uint32_t)rr);
            if (space[other] > value || (space[other] == value && other < cell))
                return 0;
        }
    return 1;
}

size_t
votecl__pclines_ref_maxima(const votecl__pclines_desc *desc, const uint32_t *space,
                           votecl__pclines_max *out, size_t capacity)
{
    size_t n = 0;

    for (uint32_t c = 0; c < 2 * desc->d; c++)
        for (uint32_t r = 0; r < desc->rows; r++)
            if (votecl__pclines_is_max(desc, space, c, r)) {
                if (n < capacity)
                    out[n] = (votecl__pclines_max){c * desc->rows + r, space[c * desc->rows + r]};
                n++;
            }
    return n;
}

size_t
votecl__pclines_max_bound(const votecl__pclines_desc *desc)
{
    size_t block = desc->half + 1;

    return (2 * (size_t)desc->d / block + 1) * (desc->rows / block + 1);
}

VOTECL__RANK_COMPARE(max_compare, votecl__pclines_max, votes, cell)

/* The line of a cell: a x + b y + c = 0 in centred coordinates is (d - |u|) x + u y - d v = 0;
 * moved to pixel coordinates, normalised, and written as (theta, rho) with theta in [0, pi). */
static void
line_set(const votecl__pclines_desc *desc, const votecl__pclines_max *mx, votecl_lines_line *l)
{
    uint32_t column = mx->cell / desc->rows, row = mx->cell % desc->rows;
    double d = desc->d, u = (double)column - d;
    double v = ((row + 0.5) * (2.0 * desc->m + 1.0) / desc->rows - desc->m) / 2.0;
    double cx = (desc->width - 1) / 2.0, cy = (desc->height - 1) / 2.0;
    double a = d - fabs(u), b = u, c = -d * v - a * cx - b * cy, norm = hypot(a, b);

    a /= norm;
    b /= norm;
    c /= norm;
    if (b < 0 || (b == 0 && a < 0)) {
        a = -a;
        b = -b;
        c = -c;
    }
    /* every byte set, padding included: callers compare lines with memcmp */
    memset(l, 0, sizeof *l);
    l->a = a;
    l->b = b;
    l->c = c;
    l->theta = atan2(b, a);
    l->rho = -c;
    l->votes = mx->votes;
    l->u = (int32_t)column - (int32_t)desc->d;
    l->v = v;
    l->column = column;
    l->row = row;
    if (l->theta >= M_PI)
        l->theta -= M_PI;
}

/* The ends of line l's extent in the image (the box of pixel centres); 0 when it misses. */
static int
line_extent(const votecl__pclines_desc *desc, const votecl_lines_line *l, double e[4])
{
    double px = -l->c * l->a, py = -l->c * l->b, dx = -l->b, dy = l->a, t0, t1;
    votecl__segment_line line = {px, py, l->a, l->b, desc->width, desc->height};

    if (!votecl__segment_clip(&line, &t0, &t1))
        return 0;
    e[0] = px + t0 * dx;
    e[1] = py + t0 * dy;
    e[2] = px + t1 * dx;
    e[3] = py + t1 * dy;
    return 1;
}

/* Whether l repeats a line of kept (n lines (a, b, c)): both ends of its extent in the image
 * lie within merge px of that line. */
static int
is_duplicate(const votecl__pclines_desc *desc, const votecl_lines_line *l, const double *kept,
             size_t n, double merge)
{
    double e[4];

    if (merge <= 0 || !line_extent(desc, l, e))
        return 0;
    for (size_t k = 0; k < n; k++) {
        const double *q = &kept[3 * k];
        if (fabs(q[0] * e[0] + q[1] * e[1] + q[2]) <= merge &&
            fabs(q[0] * e[2] + q[1] * e[3] + q[2]) <= merge)
            return 1;
    }
    return 0;
}

static int
edge_compare(const void *pa, const void *pb)
{
    const votecl_lines_edge *a = pa, *b = pb;
    uint32_t ka = a->x | a->y << 16, kb = b->x | b->y << 16;

    return ka < kb ? -1 : ka > kb;
}

/* source's edges sorted by location for the fit's look-ups (*sorted NULL when there are none);
 * -1 when out of memory. */
static int
sort_edges(const votecl__pclines_source *source, votecl_lines_edge **sorted)
{
    *sorted = NULL;
    if (source == NULL || source->data != NULL || source->edges == NULL || source->n == 0)
        return 0;
    if ((*sorted = votecl__malloc(source->n * sizeof **sorted)) == NULL)
        return -1;
    memcpy(*sorted, source->edges, source->n * sizeof **sorted);
    qsort(*sorted, source->n, sizeof **sorted, edge_compare);
    return 0;
}

votecl_status
votecl__pclines_lines(const votecl__pclines_desc *desc, votecl__pclines_max *maxima, size_t n,
                      size_t max_lines, double merge, const votecl__pclines_source *source,
                      votecl_lines_line *lines, size_t capacity, size_t *found)
{
    double *kept = NULL;
    size_t taken = 0, room = 0, out_room = 0;
    /* the lines gathered here and copied to the caller's array only when all went well: a
     * failure (out of memory in the fit or the list) leaves the caller's output untouched */
    votecl_lines_line *out = NULL;
    votecl_lines_edge *sorted = NULL;
    votecl__segment_points scratch = {0};
    votecl_status status = VOTECL_OK;
    votecl_lines_line l;

    if (n > 1)
        qsort(maxima, n, sizeof *maxima, max_compare);
    if (sort_edges(source, &sorted) != 0)
        return VOTECL_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < n && (max_lines == 0 || taken < max_lines); i++) {
        line_set(desc, &maxima[i], &l);
        if (source != NULL && votecl__pclines_refine(desc, source, sorted, &scratch, &l) < 0) {
            status = VOTECL_OUT_OF_HOST_MEMORY;
            break;
        }
        if (is_duplicate(desc, &l, kept, taken, merge))
            continue;
        if (votecl__grow((void **)&kept, &room, taken + 1, 3 * sizeof *kept, 64) != 0 ||
            (taken < capacity &&
             votecl__grow((void **)&out, &out_room, taken + 1, sizeof *out, 64) != 0)) {
            status = VOTECL_OUT_OF_HOST_MEMORY;
            break;
        }
        kept[3 * taken] = l.a;
        kept[3 * taken + 1] = l.b;
        kept[3 * taken + 2] = l.c;
        if (taken < capacity)
            out[taken] = l;
        taken++;
    }
    if (status == VOTECL_OK && taken > 0 && capacity > 0)
        memcpy(lines, out, (taken < capacity ? taken : capacity) * sizeof *lines);
    free(out);
    free(kept);
    free(sorted);
    free(scratch.xyw);
    if (status == VOTECL_OK)
        *found = taken;
    return status;
}

/* --- refinement: a fit to the edges near the cell's line, on the host for every backend --- */

/* The TS space's cells are about a pixel and a column wide, and a thin line's votes fall on
 * its two Sobel flanks, one pixel either side: the best cell lies on a flank, up to 1.5 px
 * and half a column off. The edge pixels around the cell's line locate the line itself:
 * their gradient-weighted total least-squares line is centred between the flanks (a step
 * edge's two flank pixels meet at the step), and its direction comes from the whole length
 * rather than from the column grid. */

/* The weight of an image pixel: its Sobel magnitude when it is an edge whose gradient lies
 * within about 26 degrees of the normal (|g . n| >= 0.9 |g|, as the segment walk's). */
static double
image_weight(const void *arg, long x, long y, double nx, double ny)
{
    const pclines_fit_source *fs = arg;
    const votecl__pclines_desc *desc = fs->desc;
    int32_t gx, gy;
    double dot, mag2;

    if (x < 1 || y < 1 || x + 2 > (long)desc->width || y + 2 > (long)desc->height)
        return 0;
    votecl__pclines_sobel(fs->source->data, fs->source->dtype, desc->width, (uint32_t)x,
                          (uint32_t)y, &gx, &gy);
    if ((int64_t)gx * gx + (int64_t)gy * gy < desc->edge_t2)
        return 0;
    mag2 = (double)gx * gx + (double)gy * gy;
    dot = gx * nx + gy * ny;
    return dot * dot >= 0.81 * mag2 ? sqrt(mag2) : 0;
}

/* The weight of a pixel of an edge list: 1 when it is an edge (with a gradient given, one
 * within about 26 degrees of the normal), else 0. */
static double
list_weight(const void *arg, long x, long y, double nx, double ny)
{
    const pclines_fit_source *fs = arg;
    votecl_lines_edge key = {(uint32_t)x, (uint32_t)y, 0, 0};
    const votecl_lines_edge *e = bsearch(&key, fs->sorted, fs->source->n, sizeof key, edge_compare);
    double dot;

    if (e == NULL)
        return 0;
    if (e->gx == 0 && e->gy == 0)
        return 1;
    dot = e->gx * nx + e->gy * ny;
    return dot * dot >= 0.81 * ((double)e->gx * e->gx + (double)e->gy * e->gy) ? 1 : 0;
}

int
votecl__pclines_refine(const votecl__pclines_desc *desc, const votecl__pclines_source *source,
                       const votecl_lines_edge *sorted, votecl__segment_points *scratch,
                       votecl_lines_line *l)
{
    votecl__segment_line line = {-l->c * l->a, -l->c * l->b, l->a, l->b, desc->width, desc->height};
    pclines_fit_source fs = {desc, source, sorted};
    votecl__segment_weight weight = source->data != NULL ? image_weight : list_weight;
    int fitted;

    if (source->data == NULL && sorted == NULL)
        return 0;
    fitted = votecl__segment_fit(&line, weight, &fs, VOTECL__PCLINES_FIT_BAND,
                                 VOTECL__PCLINES_FIT_PASSES, VOTECL__PCLINES_FIT_TURN, scratch);
    if (fitted <= 0)
        return fitted;
    l->a = line.nx;
    l->b = line.ny;
    l->c = -(line.nx * line.px + line.ny * line.py);
    if (l->b < 0 || (l->b == 0 && l->a < 0)) {
        l->a = -l->a;
        l->b = -l->b;
        l->c = -l->c;
    }
    l->theta = atan2(l->b, l->a);
    if (l->theta >= M_PI) { /* b a rounding error above 0: the line at theta 0 */
        l->theta -= M_PI;
        l->a = -l->a;
        l->b = -l->b;
        l->c = -l->c;
    }
    l->rho = -l->c;
    return 1;
}

/* --- segments: a walk along the line on the host, the same for every backend --- */

/* Whether (x, y) is an edge pixel whose gradient lies within about 26 degrees of the normal
 * (nx, ny): |g . n| >= 0.9 |g|, so that crossing lines and clutter do not extend a segment. */
static int
is_edge_along(const votecl__pclines_desc *desc, const void *data, votecl_dtype dtype, long x,
              long y, double nx, double ny)
{
    int32_t gx, gy;
    double dot, mag2;

    if (x < 1 || y < 1 || x + 2 > (long)desc->width || y + 2 > (long)desc->height)
        return 0;
    votecl__pclines_sobel(data, dtype, desc->width, (uint32_t)x, (uint32_t)y, &gx, &gy);
    mag2 = (double)gx * gx + (double)gy * gy;
    if ((int64_t)gx * gx + (int64_t)gy * gy < desc->edge_t2)
        return 0;
    dot = gx * nx + gy * ny;
    return dot * dot >= 0.81 * mag2;
}

/* The image a segment is looked for in (borrowed). */
typedef struct pclines_segment_image {
    const votecl__pclines_desc *desc;
    const void *data;
    votecl_dtype dtype;
} pclines_segment_image;

/* The segment walk's hit test (lib/segment.c). */
static int
pclines_hit(const void *arg, long x, long y, double nx, double ny)
{
    const pclines_segment_image *im = arg;
    return is_edge_along(im->desc, im->data, im->dtype, x, y, nx, ny);
}

/* One line's runs: its has_segment and ends, and the runs appended to w's list. */
static int
pclines_segment(const votecl__pclines_desc *desc, const votecl__segment_walker *w,
                votecl_lines_line *line)
{
    votecl__segment_line walk = {-line->c * line->a, -line->c * line->b, line->a, line->b,
                                 desc->width, desc->height};

    return votecl__segment_report(&walk, w, &line->has_segment, &line->x0, &line->y0, &line->x1,
                                  &line->y1);
}

votecl_status
votecl__pclines_segments(const votecl__pclines_desc *desc, const void *data, votecl_dtype dtype,
                         uint32_t min_length, uint32_t max_gap, votecl_lines_line *lines, size_t n,
                         votecl__segment_list *list)
{
    pclines_segment_image im = {desc, data, dtype};
    votecl__segment_walker w = {pclines_hit, &im, min_length, max_gap, 0, list};

    for (w.index = 0; w.index < n; w.index++)
        if (pclines_segment(desc, &w, &lines[w.index]) != 0)
            return VOTECL_OUT_OF_HOST_MEMORY;
    return VOTECL_OK;
}
