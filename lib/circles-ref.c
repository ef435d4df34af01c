/* The sequential reference for the circle Hough transform: the specification of the device
 * votes and candidates, the test oracle and the 'ref' backend, and the host steps every
 * backend shares (the rays, the radius histogram, the peaks). libc only. The float
 * arithmetic of the rays and of the radius histogram is OpenCV's, operation for operation
 * (this file is compiled with -ffp-contract=off), and runs on the host for every backend:
 * the device only adds integers. */
#include "votecl-private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "circles-private.h"
#include "edges-private.h"

/* scikit-image's circle_perimeter(0, 0, r) (Bresenham's midpoint circle), points appended
 * as (dx, dy) to out when it is not NULL; returns their number, 8 per step, duplicates kept
 * because each of them votes. */
static uint32_t
perimeter(unsigned radius, int32_t *out)
{
    long r = (long)radius, c = 0, d = 3 - 2 * (long)radius;
    uint32_t n = 0;

    while (r >= c) {
        const long rows[8] = {r, -r, r, -r, c, -c, c, -c}, cols[8] = {c, c, -c, -c, r, r, -r, -r};
        for (int k = 0; k < 8; k++, n++)
            if (out != NULL) {
                out[2 * n] = (int32_t)cols[k];
                out[2 * n + 1] = (int32_t)rows[k];
            }
        if (d < 0) {
            d += 4 * c + 6;
        } else {
            d += 4 * (c - r) + 10;
            r--;
        }
        c++;
    }
    return n;
}

static votecl_status
radii_tables(votecl__circles_desc *desc)
{
    const votecl_circles_params *p = &desc->p;
    size_t total = 0;

    desc->spaces = (p->max_radius - p->min_radius) / p->radius_step + 1;
    desc->radii = votecl__malloc(desc->spaces * sizeof *desc->radii);
    desc->starts = votecl__malloc((desc->spaces + 1) * sizeof *desc->starts);
    if (desc->radii == NULL || desc->starts == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    for (unsigned s = 0; s < desc->spaces; s++) {
        desc->radii[s] = p->min_radius + s * p->radius_step;
        desc->starts[s] = (uint32_t)total;
        total += perimeter(desc->radii[s], NULL);
    }
    desc->starts[desc->spaces] = (uint32_t)total;
    if ((desc->offsets = votecl__malloc(2 * total * sizeof *desc->offsets)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    for (unsigned s = 0; s < desc->spaces; s++)
        perimeter(desc->radii[s], desc->offsets + 2 * (size_t)desc->starts[s]);
    return VOTECL_OK;
}

/* OpenCV's HoughCircles resolves its radii so: max 0 is the larger side, a max at or below
 * the min is min + 2. */
static void
resolve_gradient(votecl__circles_desc *desc, uint32_t width, uint32_t height)
{
    votecl_circles_params *p = &desc->p;

    if (p->max_radius == 0)
        p->max_radius = width > height ? width : height;
    else if (p->max_radius <= p->min_radius)
        p->max_radius = p->min_radius + 2;
    if (p->min_dist == 0)
        p->min_dist = (double)(width < height ? width : height) / 8.0;
    desc->dr = (float)p->dp;
    desc->idp = 1.f / desc->dr;
    desc->cols = (uint32_t)ceilf((float)width * desc->idp);
    desc->rows = (uint32_t)ceilf((float)height * desc->idp);
    desc->spaces = 1;
    desc->high = p->canny_high;
    desc->low = p->canny_high / 2 > 1 ? p->canny_high / 2 : 1;
}

votecl_status
votecl__circles_desc_init(votecl__circles_desc *desc, const votecl_circles_params *params,
                          uint32_t width, uint32_t height)
{
    memset(desc, 0, sizeof *desc);
    desc->p = *params;
    desc->width = width;
    desc->height = height;
    if (params->method == VOTECL_CIRCLES_GRADIENT) {
        resolve_gradient(desc, width, height);
        return VOTECL_OK;
    }
    desc->cols = width;
    desc->rows = height;
    return radii_tables(desc);
}

void
votecl__circles_desc_release(votecl__circles_desc *desc)
{
    VOTECL__FREE_ALL(desc->radii, desc->offsets, desc->starts);
    desc->radii = NULL;
    desc->offsets = NULL;
    desc->starts = NULL;
}

size_t
votecl__circles_cells(const votecl__circles_desc *desc)
{
    return (size_t)desc->cols * desc->rows;
}

/* --- the gradient method --- */

/* OpenCV's cvRound: to nearest, ties to even (the default rounding mode). */
static int32_t
round_even(float v)
{
    return (int32_t)lrintf(v);
}

size_t
votecl__circles_rays(const votecl__circles_desc *desc, const uint8_t *gray, size_t stride,
                     const int32_t *points, size_t n, votecl__circles_ray *rays, int32_t *xy)
{
    size_t kept = 0;
    const float one = (float)(1 << VOTECL__CIRCLES_SHIFT);

    for (size_t i = 0; i < n; i++) {
        int32_t x = points[2 * i], y = points[2 * i + 1];
        /* Canny leaves the one-pixel border out: the 3x3 window is inside */
        int32_t gx, gy;
        float vx, vy, mag;

        votecl__sobel3(gray + (size_t)y * stride + x, stride, &gx, &gy);
        vx = (float)gx;
        vy = (float)gy;
        mag = sqrtf(vx * vx + vy * vy);

        if (mag < 1.0f)
            continue;
        rays[kept].sx = round_even(vx * desc->idp * one / mag);
        rays[kept].sy = round_even(vy * desc->idp * one / mag);
        rays[kept].x0 = round_even((float)x * desc->idp * one);
        rays[kept].y0 = round_even((float)y * desc->idp * one);
        if (xy != NULL) {
            xy[2 * kept] = x;
            xy[2 * kept + 1] = y;
        }
        kept++;
    }
    return kept;
}

void
votecl__circles_ref_gradient_vote(const votecl__circles_desc *desc, const votecl__circles_ray *rays,
                                  size_t n, uint32_t *acc)
{
    const long lo = desc->p.min_radius, hi = desc->p.max_radius;

    memset(acc, 0, votecl__circles_cells(desc) * sizeof *acc);
    for (size_t i = 0; i < n; i++)
        for (int side = -1; side <= 1; side += 2) {
            int64_t sx = side * (int64_t)rays[i].sx, sy = side * (int64_t)rays[i].sy;
            int64_t x1 = rays[i].x0 + lo * sx, y1 = rays[i].y0 + lo * sy;
            for (long r = lo; r <= hi; r++, x1 += sx, y1 += sy) {
                int64_t cx = x1 >> VOTECL__CIRCLES_SHIFT, cy = y1 >> VOTECL__CIRCLES_SHIFT;
                if (cx < 0 || cy < 0 || cx >= desc->cols || cy >= desc->rows)
                    break;
                acc[(size_t)cy * desc->cols + (size_t)cx]++;
            }
        }
}

/* OpenCV's centre test: more than the threshold, than the left and the upper neighbour, at
 * least the right and the lower one (0 past the accumulator's right and lower edges); the
 * first row and column are never centres. */
static int
is_centre(const votecl__circles_desc *desc, const uint32_t *acc, uint32_t x, uint32_t y)
{
    size_t i = (size_t)y * desc->cols + x;
    uint32_t v = acc[i];
    uint32_t right = x + 1 < desc->cols ? acc[i + 1] : 0;
    uint32_t down = y + 1 < desc->rows ? acc[i + desc->cols] : 0;

    return v > desc->p.votes && v > acc[i - 1] && v >= right && v > acc[i - desc->cols] &&
           v >= down;
}

size_t
votecl__circles_ref_centres(const votecl__circles_desc *desc, const uint32_t *acc, uint32_t *pairs)
{
    size_t n = 0;

    for (uint32_t y = 1; y < desc->rows; y++)
        for (uint32_t x = 1; x < desc->cols; x++)
            if (is_centre(desc, acc, x, y)) {
                pairs[2 * n] = y * desc->cols + x;
                pairs[2 * n + 1] = acc[(size_t)y * desc->cols + x];
                n++;
            }
    return n;
}

/* Most votes first, then raster order (OpenCV's hough_cmp_gt). */
static int
cmp_pairs(const void *a, const void *b)
{
    const uint32_t *p = a, *q = b;

    if (p[1] != q[1])
        return p[1] > q[1] ? -1 : 1;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

/* OpenCV's radius estimate for one centre: the distances of the voting pixels between the
 * radii in bins of dr / 10, scanned from the largest radius down in windows of 10 bins; a
 * window wins when its count per radius is at least the best's. bins: nbins ints. */
/* cvRound of 0 <= |v| < 2^22 without a call: adding 1.5 * 2^23 leaves no fraction bit, so the
 * float addition rounds to an integer, to even on a tie, as lrintf does. */
static int32_t
round_small(float v)
{
    return (int32_t)((v + 0x1.8p23f) - 0x1.8p23f);
}

int
votecl__circles_nbins(const votecl__circles_desc *desc)
{
    return round_even((float)(desc->p.max_radius - desc->p.min_radius) / desc->dr *
                      (float)VOTECL__CIRCLES_BINS_PER_DR);
}

/* OpenCV's bin of a squared distance r2 between the radii: round((sqrt(r2) - min) / dr * 10),
 * clamped. Monotonic in r2: every step is. */
static int
host_bin(const votecl__circles_desc *desc, float r2, int nbins)
{
    int b = round_small((sqrtf(r2) - (float)desc->p.min_radius) / desc->dr *
                        (float)VOTECL__CIRCLES_BINS_PER_DR);
    return b < 0 ? 0 : b > nbins - 1 ? nbins - 1 : b;
}

void
votecl__circles_radius_tables(const votecl__circles_desc *desc, int nbins, float *bounds,
                              float *window_radii)
{
    const float lo = (float)desc->p.min_radius, lo2 = lo * lo,
                hi2 = (float)desc->p.max_radius * (float)desc->p.max_radius;

    /* positive floats are ordered as their bit patterns: a binary search over them finds the
     * least r2 of [lo2, hi2] whose bin reaches k */
    for (int k = 1; bounds != NULL && k < nbins; k++) {
        uint32_t a = votecl__float_bits(lo2), b = votecl__float_bits(hi2) + 1;
        while (a < b) {
            uint32_t mid = a + (b - a) / 2;
            if (host_bin(desc, votecl__bits_float(mid), nbins) >= k)
                b = mid;
            else
                a = mid + 1;
        }
        bounds[k - 1] = a <= votecl__float_bits(hi2) ? votecl__bits_float(a) : INFINITY;
    }
    for (int m = -1; m <= 2 * nbins; m++)
        window_radii[m + 1] = (float)m / 2.f / (float)VOTECL__CIRCLES_BINS_PER_DR * desc->dr + lo;
}

/* The first of xy's pixels lo .. hi - 1 (one row, x ascending) with an x of at least x. */
static size_t
lower_x(const int32_t *xy, size_t lo, size_t hi, int32_t x)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (xy[2 * mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void
votecl__circles_row_index(const votecl__circles_desc *desc, const int32_t *xy, size_t n,
                          uint32_t *rows)
{
    for (size_t y = 0, k = 0; y <= desc->height; y++) {
        while (k < n && xy[2 * k + 1] < (int32_t)y)
            k++;
        rows[y] = (uint32_t)k;
    }
}

/* Adds the distance of each voting pixel between the radii to bins. Only the square of side
 * 2 (max_radius + 2) around the centre is visited: a pixel 2 px further away in x or y has a
 * squared distance above max_radius^2 by 4 max_radius + 4, far beyond float rounding. */
static void
distance_bins(const votecl__circles_desc *desc, float cx, float cy, const int32_t *xy,
              const uint32_t *rows, int *bins, int nbins)
{
    const float lo = (float)desc->p.min_radius, lo2 = lo * lo,
                hi2 = (float)desc->p.max_radius * (float)desc->p.max_radius;
    long reach = (long)desc->p.max_radius + 2;
    long y0 = (long)cy - reach, y1 = (long)cy + reach;

    for (long y = y0 < 0 ? 0 : y0; y <= y1 && y < (long)desc->height; y++) {
        size_t k = lower_x(xy, rows[y], rows[y + 1], (int32_t)((long)cx - reach));
        for (; k < rows[y + 1] && xy[2 * k] <= (long)cx + reach; k++) {
            float dx = cx - (float)xy[2 * k], dy = cy - (float)xy[2 * k + 1];
            float r2 = dx * dx + dy * dy;
            if (lo2 <= r2 && r2 <= hi2)
                bins[host_bin(desc, r2, nbins)]++;
        }
    }
}

void
votecl__circles_window_scan(const int *bins, int nbins, const float *window_radii, float *radius,
                            int *count)
{
    const int per = VOTECL__CIRCLES_BINS_PER_DR;
    float best = 0;
    int most = 0;

    for (int j = nbins - 1; j > 0; j--) {
        int up = j, sum = 0;
        float r;
        if (bins[j] == 0)
            continue;
        for (; j > up - per && j >= 0; j--)
            sum += bins[j];
        /* OpenCV's loop steps j once more past the window: the next window starts a bin
         * lower, and so does this one's middle, (up + j) / 2 / 10 dr + min_radius */
        r = window_radii[up + j + 1];
        if ((float)sum * best >= (float)most * r || (best < FLT_EPSILON && sum >= most)) {
            best = r;
            most = sum;
        }
    }
    *radius = best;
    *count = most;
}

void
votecl__circles_centre(const votecl__circles_desc *desc, uint32_t cell, float *cx, float *cy)
{
    *cx = ((float)(cell % desc->cols) + 0.5f) * desc->dr;
    *cy = ((float)(cell / desc->cols) + 0.5f) * desc->dr;
}

void
votecl__circles_sort_centres(uint32_t *pairs, size_t n)
{
    qsort(pairs, n, 2 * sizeof *pairs, cmp_pairs);
}

/* Most support first, then the larger radius, the smaller x, the smaller y (OpenCV's
 * cmpAccum). */
static int
cmp_circles(const void *a, const void *b)
{
    const votecl_circle *p = a, *q = b;

    if (p->score != q->score)
        return p->score > q->score ? -1 : 1;
    if (p->radius != q->radius)
        return p->radius > q->radius ? -1 : 1;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

/* OpenCV's RemoveOverlaps: a circle closer than min_dist to one kept before it goes. */
static size_t
remove_overlaps(const votecl__circles_desc *desc, votecl_circle *c, size_t n)
{
    float d2 = (float)desc->p.min_dist * (float)desc->p.min_dist;
    size_t kept = 0;

    for (size_t i = 0; i < n; i++) {
        int ok = 1;
        for (size_t j = 0; j < kept && ok; j++) {
            float dx = (float)c[i].x - (float)c[j].x, dy = (float)c[i].y - (float)c[j].y;
            ok = dx * dx + dy * dy >= d2;
        }
        if (ok)
            c[kept++] = c[i];
    }
    return kept;
}

static void
copy_out(const votecl_circle *all, size_t n, size_t max, votecl_circle *circles, size_t capacity,
         size_t *found)
{
    if (max != 0 && n > max)
        n = max;
    *found = n;
    if (n > 0 && capacity > 0)
        memcpy(circles, all, (n < capacity ? n : capacity) * sizeof *circles);
}

votecl_status
votecl__circles_gradient_finish(const votecl__circles_desc *desc, const uint32_t *pairs, size_t n,
                                const float *radius, const int32_t *count, votecl_circle *circles,
                                size_t capacity, size_t *found)
{
    votecl_circle *all = votecl__malloc((n > 0 ? n : 1) * sizeof *all);
    size_t m = 0;

    if (all == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < n; i++) {
        float cx, cy;
        votecl__circles_centre(desc, pairs[2 * i], &cx, &cy);
        if (count[i] > (int32_t)desc->p.votes)
            all[m++] = (votecl_circle){.x = cx,
                                       .y = cy,
                                       .radius = radius[i],
                                       .score = count[i],
                                       .votes = pairs[2 * i + 1]};
    }
    qsort(all, m, sizeof *all, cmp_circles);
    copy_out(all, remove_overlaps(desc, all, m), desc->p.max_circles, circles, capacity, found);
    free(all);
    return VOTECL_OK;
}

/* The radius of each of the n sorted centres (radius, count: n entries). */
static votecl_status
estimate_radii(const votecl__circles_desc *desc, const uint32_t *pairs, size_t n, const int32_t *xy,
               size_t nxy, float *radius, int32_t *count)
{
    int nbins = votecl__circles_nbins(desc);
    int *bins = votecl__malloc((size_t)(nbins > 0 ? nbins : 1) * sizeof *bins);
    float *window_radii = votecl__malloc((2 * (size_t)(nbins > 0 ? nbins : 0) + 2) * sizeof(float));
    uint32_t *rows = votecl__malloc(((size_t)desc->height + 1) * sizeof *rows);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (bins == NULL || window_radii == NULL || rows == NULL)
        goto out;
    votecl__circles_radius_tables(desc, nbins, NULL, window_radii);
    votecl__circles_row_index(desc, xy, nxy, rows);
    for (size_t i = 0; i < n; i++) {
        float cx, cy;
        int c = 0;
        radius[i] = 0;
        if (nbins > 0) {
            votecl__circles_centre(desc, pairs[2 * i], &cx, &cy);
            memset(bins, 0, (size_t)nbins * sizeof *bins);
            distance_bins(desc, cx, cy, xy, rows, bins, nbins);
            votecl__circles_window_scan(bins, nbins, window_radii, &radius[i], &c);
        }
        count[i] = c;
    }
    status = VOTECL_OK;
out:
    free(bins);
    free(window_radii);
    free(rows);
    return status;
}

votecl_status
votecl__circles_gradient_circles(const votecl__circles_desc *desc, uint32_t *pairs, size_t n,
                                 const int32_t *xy, size_t nxy, votecl_circle *circles,
                                 size_t capacity, size_t *found)
{
    float *radius = votecl__malloc((n > 0 ? n : 1) * sizeof *radius);
    int32_t *count = votecl__malloc((n > 0 ? n : 1) * sizeof *count);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (radius != NULL && count != NULL) {
        votecl__circles_sort_centres(pairs, n);
        status = estimate_radii(desc, pairs, n, xy, nxy, radius, count);
    }
    if (status == VOTECL_OK)
        status = votecl__circles_gradient_finish(desc, pairs, n, radius, count, circles, capacity,
                                                 found);
    free(radius);
    free(count);
    return status;
}

/* --- the radii method --- */

size_t
votecl__circles_edge_points(const votecl__circles_desc *desc, const uint8_t *data, size_t stride,
                            uint32_t *out)
{
    size_t n = 0;

    for (uint32_t y = 0; y < desc->height; y++) {
        const uint8_t *row = data + (size_t)y * stride;
        for (uint32_t x = 0; x < desc->width; x++)
            if (row[x] != 0)
                out[n++] = x | y << 16;
    }
    return n;
}

void
votecl__circles_ref_radii_vote(const votecl__circles_desc *desc, const uint32_t *points, size_t n,
                               uint32_t *acc)
{
    size_t cells = votecl__circles_cells(desc);

    memset(acc, 0, cells * desc->spaces * sizeof *acc);
    for (unsigned s = 0; s < desc->spaces; s++) {
        uint32_t *space = acc + s * cells;
        for (size_t i = 0; i < n; i++) {
            int64_t px = points[i] & 0xffff, py = points[i] >> 16;
            for (uint32_t k = desc->starts[s]; k < desc->starts[s + 1]; k++) {
                int64_t x = px + desc->offsets[2 * k], y = py + desc->offsets[2 * k + 1];
                if (x >= 0 && y >= 0 && x < desc->cols && y < desc->rows)
                    space[(size_t)y * desc->cols + (size_t)x]++;
            }
        }
    }
}

/* A peak candidate of the radii method. */
typedef struct peak {
    double value;
    uint32_t votes, cell;
    unsigned space;
} peak;

static double
value_of(const votecl__circles_desc *desc, unsigned s, uint32_t votes)
{
    uint32_t points = desc->starts[s + 1] - desc->starts[s];

    return desc->p.normalize ? (double)votes / (double)points : (double)votes;
}

/* Largest value first, then the lower radius, then raster order. */
static int
cmp_peaks(const void *a, const void *b)
{
    const peak *p = a, *q = b;

    if (p->value != q->value)
        return p->value > q->value ? -1 : 1;
    if (p->space != q->space)
        return p->space < q->space ? -1 : 1;
    return (p->cell > q->cell) - (p->cell < q->cell);
}

/* Whether cell i of space holds the largest count of its window (scikit-image's
 * maximum_filter; cells outside count 0, which no count is below). */
static int
is_window_max(const votecl__circles_desc *desc, const uint32_t *space, uint32_t i)
{
    long x = i % desc->cols, y = i / desc->cols, mx = desc->p.min_xdistance,
         my = desc->p.min_ydistance;
    uint32_t v = space[i];

    for (long yy = y - my > 0 ? y - my : 0; yy <= y + my && yy < (long)desc->rows; yy++)
        for (long xx = x - mx > 0 ? x - mx : 0; xx <= x + mx && xx < (long)desc->cols; xx++)
            if (space[(size_t)yy * desc->cols + (size_t)xx] > v)
                return 0;
    return 1;
}

static int
near(const votecl__circles_desc *desc, uint32_t a, uint32_t b)
{
    long dx = (long)(a % desc->cols) - (long)(b % desc->cols),
         dy = (long)(a / desc->cols) - (long)(b / desc->cols);

    return labs(dx) <= (long)desc->p.min_xdistance && labs(dy) <= (long)desc->p.min_ydistance;
}

uint32_t
votecl__circles_radii_least(const votecl__circles_desc *desc, unsigned s, uint32_t most)
{
    double threshold = desc->p.threshold != 0 ? desc->p.threshold : 0.5 * value_of(desc, s, most);
    uint64_t lo = 1, hi = (uint64_t)UINT32_MAX;

    /* value_of grows with the count: the least count above the threshold by bisection (no
     * cell reaches UINT32_MAX votes: two per edge pixel at most) */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (value_of(desc, s, (uint32_t)mid) > threshold)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (uint32_t)lo;
}

/* Appends (space, cell, votes) to a growing list; -1 when out of memory. */
static int
push_triple(uint32_t **list, size_t *n, size_t *cap, uint32_t s, uint32_t cell, uint32_t votes)
{
    if (*n == *cap) {
        size_t grown = *cap > 0 ? 2 * *cap : 256;
        uint32_t *p = votecl__realloc(*list, 3 * grown * sizeof *p);
        if (p == NULL)
            return -1;
        *list = p;
        *cap = grown;
    }
    (*list)[3 * *n] = s;
    (*list)[3 * *n + 1] = cell;
    (*list)[3 * *n + 2] = votes;
    (*n)++;
    return 0;
}

votecl_status
votecl__circles_radii_candidates(const votecl__circles_desc *desc, const uint32_t *acc,
                                 uint32_t **triples, size_t *n)
{
    size_t cells = votecl__circles_cells(desc), cap = 0;

    *triples = NULL;
    *n = 0;
    for (unsigned s = 0; s < desc->spaces; s++) {
        const uint32_t *space = acc + s * cells;
        uint32_t most = 0, least;
        for (size_t i = 0; i < cells; i++)
            most = space[i] > most ? space[i] : most;
        least = votecl__circles_radii_least(desc, s, most);
        for (uint32_t i = 0; i < cells; i++)
            if (space[i] >= least && is_window_max(desc, space, i) &&
                push_triple(triples, n, &cap, s, i, space[i]) != 0) {
                free(*triples);
                *triples = NULL;
                return VOTECL_OUT_OF_HOST_MEMORY;
            }
    }
    return VOTECL_OK;
}

/* The peaks kept so far, found by their window: a hash of (space, cell / window) to chains of
 * kept indices, so that the greedy passes test a candidate against the kept peaks of its
 * own and the 8 neighbouring window tiles instead of every kept peak (the passes were
 * O(candidates x kept): minutes for an edge-dense frame). Collisions only lengthen a chain:
 * every entry is still tested with near(). */
typedef struct {
    size_t *head, *next, mask;
} kept_grid;

static int
kept_grid_init(kept_grid *g, size_t n)
{
    size_t slots = 16, bytes;

    while (slots < n && slots <= SIZE_MAX / 4) /* between 2 n and 4 n slots */
        slots *= 2;
    slots *= 2;
    if (votecl__mul_overflow(slots, sizeof *g->head, &bytes))
        return 0;
    g->mask = slots - 1;
    g->head = votecl__malloc(bytes);
    g->next = votecl__malloc((n > 0 ? n : 1) * sizeof *g->next);
    if (g->head == NULL || g->next == NULL) {
        free(g->head);
        free(g->next);
        return 0;
    }
    memset(g->head, 0xff, bytes); /* SIZE_MAX: empty */
    return 1;
}

static size_t
kept_slot(const kept_grid *g, uint32_t space, long tx, long ty)
{
    uint64_t h = (uint64_t)space * 0x9E3779B97F4A7C15u ^ (uint64_t)tx * 0xC2B2AE3D27D4EB4Fu ^
                 (uint64_t)ty * 0x165667B19E3779F9u;

    return (size_t)((h ^ (h >> 29)) & g->mask);
}

/* Whether a kept peak (of the same space unless any_space) lies within the window of cell. */
static int
kept_near(const votecl__circles_desc *desc, const kept_grid *g, const peak *p, uint32_t space,
          uint32_t cell, int any_space)
{
    long tw = (long)desc->p.min_xdistance + 1, th = (long)desc->p.min_ydistance + 1,
         tx = (long)(cell % desc->cols) / tw, ty = (long)(cell / desc->cols) / th;

    for (long dy = -1; dy <= 1; dy++)
        for (long dx = -1; dx <= 1; dx++)
            for (size_t j = g->head[kept_slot(g, any_space ? 0 : space, tx + dx, ty + dy)];
                 j != SIZE_MAX; j = g->next[j])
                if ((any_space || p[j].space == space) && near(desc, cell, p[j].cell))
                    return 1;
    return 0;
}

static void
kept_add(const votecl__circles_desc *desc, kept_grid *g, size_t j, uint32_t space, uint32_t cell,
         int any_space)
{
    long tx = (long)(cell % desc->cols) / ((long)desc->p.min_xdistance + 1),
         ty = (long)(cell / desc->cols) / ((long)desc->p.min_ydistance + 1);
    size_t slot = kept_slot(g, any_space ? 0 : space, tx, ty);

    g->next[j] = g->head[slot];
    g->head[slot] = j;
}

/* The greedy pass of each radius over the sorted candidates: one within the window of a peak
 * kept before it in its radius goes, and so does one past num_peaks. */
static size_t
space_greedy(const votecl__circles_desc *desc, kept_grid *g, peak *p, size_t n,
             size_t *per_space)
{
    size_t kept = 0;

    for (size_t i = 0; i < n; i++) {
        peak c = p[i];

        if (desc->p.num_peaks != 0 && per_space[c.space] >= desc->p.num_peaks)
            continue;
        if (kept_near(desc, g, p, c.space, c.cell, 0))
            continue;
        per_space[c.space]++;
        p[kept] = c;
        kept_add(desc, g, kept++, c.space, c.cell, 0);
    }
    return kept;
}

/* scikit-image's label_distant_points: across radii, only when a distance exceeds 1. */
static size_t
distant(const votecl__circles_desc *desc, kept_grid *g, peak *p, size_t n)
{
    size_t kept = 0, max = desc->p.max_circles;

    if (desc->p.min_xdistance == 1 && desc->p.min_ydistance == 1)
        return max != 0 && n > max ? max : n;
    memset(g->head, 0xff, (g->mask + 1) * sizeof *g->head);
    for (size_t i = 0; i < n && (max == 0 || kept < max); i++) {
        peak c = p[i];

        if (kept_near(desc, g, p, 0, c.cell, 1))
            continue;
        p[kept] = c;
        kept_add(desc, g, kept++, 0, c.cell, 1);
    }
    return kept;
}

votecl_status
votecl__circles_radii_peaks_from(const votecl__circles_desc *desc, const uint32_t *triples,
                                 size_t n, votecl_circle *circles, size_t capacity, size_t *found)
{
    peak *list = votecl__malloc((n > 0 ? n : 1) * sizeof *list);
    size_t *per_space = votecl__calloc(desc->spaces, sizeof *per_space);
    kept_grid grid = {0};

    if (list == NULL || per_space == NULL || !kept_grid_init(&grid, n)) {
        free(list);
        free(per_space);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        list[i] = (peak){value_of(desc, triples[3 * i], triples[3 * i + 2]), triples[3 * i + 2],
                         triples[3 * i + 1], triples[3 * i]};
    /* the order of every radius's candidates is its own sort's: the greedy passes can run
     * over the whole sorted list */
    qsort(list, n, sizeof *list, cmp_peaks);
    n = distant(desc, &grid, list, space_greedy(desc, &grid, list, n, per_space));
    *found = n;
    for (size_t i = 0; i < n && i < capacity; i++)
        circles[i] = (votecl_circle){.x = list[i].cell % desc->cols,
                                     .y = list[i].cell / desc->cols,
                                     .radius = desc->radii[list[i].space],
                                     .score = list[i].value,
                                     .votes = list[i].votes};
    free(list);
    free(per_space);
    free(grid.head);
    free(grid.next);
    return VOTECL_OK;
}

votecl_status
votecl__circles_radii_peaks(const votecl__circles_desc *desc, const uint32_t *acc,
                            votecl_circle *circles, size_t capacity, size_t *found)
{
    uint32_t *triples = NULL;
    size_t n = 0;
    votecl_status status = votecl__circles_radii_candidates(desc, acc, &triples, &n);

    if (status == VOTECL_OK)
        status = votecl__circles_radii_peaks_from(desc, triples, n, circles, capacity, found);
    free(triples);
    return status;
}
