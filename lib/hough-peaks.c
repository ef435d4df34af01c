/* Peaks of a theta-rho accumulator: local maxima in an n x n window whose angle axis wraps
 * around pi with rho mirrored, taken greedily from the most votes down, each suppressing its
 * window. Host code: the accumulator is small next to the image, and the result must not
 * depend on the device. */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hough-private.h"
#include "segment-private.h"

typedef struct peak {
    uint32_t votes;
    size_t cell; /* g * N + b */
} peak;

/* The bin of -rho(b): rho(b) = (b + 0.5) R / N - W, so the bin of -rho is
 * floor(2 W N / R - b - 0.5). b may lie outside [0, N): its mirror may still be inside. */
long
votecl__hough_mirror_bin(const votecl__hough_desc *d, long b)
{
    double r = (double)d->d + d->w;

    if (d->opencv) /* rho(b) = b - offset */
        return 2 * (long)d->offset - b;

    return (long)floor(2.0 * d->w * d->nbins / r - (double)b - 0.5);
}

/* The cell at angle g + dg and bin b + db. Angles wrap: angle -1 is angle G - 1 at the
 * mirrored rho (theta - pi, -rho is the same line), and so is every further wrap. Returns 0
 * when the cell falls outside the rho range. */
static int
neighbour(const votecl__hough_desc *d, long g, long b, long dg, long db, size_t *cell)
{
    long angles = (long)d->angles, gg = g + dg, bb = b + db;
    int flips = 0;

    for (; gg < 0; gg += angles)
        flips++;
    for (; gg >= angles; gg -= angles)
        flips++;
    if (flips & 1)
        bb = votecl__hough_mirror_bin(d, bb);
    if (bb < 0 || bb >= (long)d->nbins)
        return 0;
    *cell = (size_t)gg * d->nbins + (size_t)bb;
    return 1;
}

/* No cell of the window holds more votes (equal counts are settled by the suppression). */
static int
is_local_max(const votecl__hough_desc *d, const uint32_t *acc, size_t cell, long half)
{
    long g = (long)(cell / d->nbins), b = (long)(cell % d->nbins);
    size_t other;

    for (long dg = -half; dg <= half; dg++)
        for (long db = -half; db <= half; db++)
            if (neighbour(d, g, b, dg, db, &other) && acc[other] > acc[cell])
                return 0;
    return 1;
}

static void
suppress(const votecl__hough_desc *d, uint8_t *mask, size_t cell, long half, uint8_t value)
{
    long g = (long)(cell / d->nbins), b = (long)(cell % d->nbins);
    size_t other;

    for (long dg = -half; dg <= half; dg++)
        for (long db = -half; db <= half; db++)
            if (neighbour(d, g, b, dg, db, &other))
                mask[other] = value;
}

/* Most votes first; equal votes: the lower angle, then the lower bin. */
VOTECL__RANK_COMPARE(peak_compare, peak, votes, cell)

/* OpenCV's HoughLines rule (findLocalMaximums): more than threshold votes, more than the left
 * and upper neighbours, at least the right and lower ones; outside the accumulator counts 0
 * (OpenCV's border of zeros: the angle axis does not wrap). */
static int
is_opencv_max(const votecl__hough_desc *d, const uint32_t *acc, size_t cell, uint32_t threshold)
{
    size_t n = d->nbins, g = cell / n, b = cell % n;
    uint32_t v = acc[cell];

    return v > threshold && (b == 0 || v > acc[cell - 1]) && (b + 1 == n || v >= acc[cell + 1]) &&
           (g == 0 || v > acc[cell - n]) && (g + 1 == d->angles || v >= acc[cell + n]);
}

/* The default (threshold 0): a line is at least a quarter of the image's shorter side long,
 * max(2, min(W, H) / 4) votes, PClines' rule; chosen on the line truth suite
 * (docs/accuracy.md) where half the largest count, the former default, hid every line but
 * the strongest few. */
uint32_t
votecl__hough_peak_threshold(const votecl__hough_desc *d, uint32_t threshold)
{
    uint32_t small = d->width < d->height ? d->width : d->height;

    if (threshold != 0)
        return threshold;
    return small / 4 > 2 ? small / 4 : 2;
}

/* The local maxima with at least threshold votes, in a growing array (*out, owned by the
 * caller): few cells pass, so a cells-sized array would only cost its allocation. Returns
 * the count, or (size_t)-1 when out of memory. */
static size_t
find_candidates(const votecl__hough_desc *d, const uint32_t *acc, uint32_t threshold, long half,
                peak **out)
{
    size_t cells = (size_t)d->angles * d->nbins, n = 0, room = 0;
    peak *c = NULL;

    for (size_t i = 0; i < cells; i++) {
        if (d->opencv_peaks ? !is_opencv_max(d, acc, i, threshold)
                            : acc[i] < threshold || !is_local_max(d, acc, i, half))
            continue;
        if (votecl__grow((void **)&c, &room, n + 1, sizeof *c, 256) != 0) {
            free(c);
            *out = NULL;
            return (size_t)-1;
        }
        c[n++] = (peak){acc[i], i};
    }
    *out = c;
    return n;
}

static void
line_set(const votecl__hough_desc *d, const peak *p, votecl_hough_line *line)
{
    memset(line, 0, sizeof *line); /* no segment until asked for */
    line->angle = (unsigned)(p->cell / d->nbins);
    line->bin = (uint32_t)(p->cell % d->nbins);
    line->theta = votecl__hough_theta(d, line->angle);
    line->rho = votecl__hough_rho(d, line->bin);
    line->votes = p->votes;
}

/* The parameter range [*t0, *t1] of the line x cos + y sin = rho (points rho n + t dir) inside
 * the box of pixel centres (Liang-Barsky); 0 when it misses. */
static int
line_clip(const votecl__hough_desc *d, double theta, double rho, double *t0, double *t1)
{
    double nx = cos(theta), ny = sin(theta), dx = -ny, dy = nx, px = rho * nx, py = rho * ny;
    double p[4] = {-dx, dx, -dy, dy}, q[4] = {px, d->width - 1 - px, py, d->height - 1 - py};

    *t0 = -1e18;
    *t1 = 1e18;
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return 0;
            continue;
        }
        if (p[k] < 0)
            *t0 = fmax(*t0, q[k] / p[k]);
        else
            *t1 = fmin(*t1, q[k] / p[k]);
    }
    return *t0 <= *t1;
}

/* Whether the line of peak p repeats one of the n kept lines (cos, sin, rho triples): both
 * ends of its extent in the image within merge px of that line. */
static int
is_duplicate(const votecl__hough_desc *d, const peak *p, const double *kept, size_t n,
             double merge)
{
    unsigned g = (unsigned)(p->cell / d->nbins);
    double theta = votecl__hough_theta(d, g);
    double rho = votecl__hough_rho(d, (uint32_t)(p->cell % d->nbins));
    double t0, t1, e[4];

    if (merge <= 0 || !line_clip(d, theta, rho, &t0, &t1))
        return 0;
    e[0] = rho * cos(theta) - t0 * sin(theta);
    e[1] = rho * sin(theta) + t0 * cos(theta);
    e[2] = rho * cos(theta) - t1 * sin(theta);
    e[3] = rho * sin(theta) + t1 * cos(theta);
    for (size_t k = 0; k < n; k++) {
        const double *q = &kept[3 * k];
        if (fabs(e[0] * q[0] + e[1] * q[1] - q[2]) <= merge &&
            fabs(e[2] * q[0] + e[3] * q[1] - q[2]) <= merge)
            return 1;
    }
    return 0;
}

/* The greedy selection over n candidates (owned by the caller, sorted here). mask: G * N
 * zeroed bytes to use and leave zeroed (a plan's, so its pages stay mapped from run to run),
 * or NULL for one of its own. */
static votecl_status
select_peaks(const votecl__hough_desc *d, peak *candidates, size_t n, long half, size_t max_lines,
             double merge, uint8_t *shared_mask, votecl_hough_line *lines, size_t capacity,
             size_t *found)
{
    size_t cells = (size_t)d->angles * d->nbins, taken = 0;
    uint8_t *mask = shared_mask;
    double *kept = NULL;
    size_t *taken_cells = NULL;
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if ((mask == NULL && (mask = votecl__calloc(cells, 1)) == NULL) ||
        (kept = votecl__malloc((n > 0 ? n : 1) * 3 * sizeof *kept)) == NULL ||
        (taken_cells = votecl__malloc((n > 0 ? n : 1) * sizeof *taken_cells)) == NULL)
        goto out;
    if (n > 1) /* candidates is NULL when there are none, and qsort wants a valid pointer */
        qsort(candidates, n, sizeof *candidates, peak_compare);
    if (d->opencv_peaks)
        half = -1; /* OpenCV keeps every candidate: no window to suppress */
    for (size_t i = 0; i < n && (max_lines == 0 || taken < max_lines); i++) {
        if (mask[candidates[i].cell] || is_duplicate(d, &candidates[i], kept, taken, merge))
            continue;
        suppress(d, mask, candidates[i].cell, half, 1);
        taken_cells[taken] = candidates[i].cell;
        double theta = votecl__hough_theta(d, (unsigned)(candidates[i].cell / d->nbins));
        kept[3 * taken] = cos(theta);
        kept[3 * taken + 1] = sin(theta);
        kept[3 * taken + 2] = votecl__hough_rho(d, (uint32_t)(candidates[i].cell % d->nbins));
        if (taken < capacity)
            line_set(d, &candidates[i], &lines[taken]);
        taken++;
    }
    *found = taken;
    status = VOTECL_OK;
out:
    for (size_t i = 0; shared_mask != NULL && taken_cells != NULL && i < taken; i++)
        suppress(d, mask, taken_cells[i], half, 0);
    if (mask != shared_mask)
        free(mask);
    free(kept);
    free(taken_cells);
    return status;
}

votecl_status
votecl__hough_peaks(const votecl__hough_desc *d, const uint32_t *acc, unsigned window,
                    uint32_t threshold, size_t max_lines, double merge, votecl_hough_line *lines,
                    size_t capacity, size_t *found)
{
    long half = (long)(window / 2);
    peak *candidates = NULL;
    size_t n = find_candidates(d, acc, votecl__hough_peak_threshold(d, threshold), half,
                               &candidates);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (n != (size_t)-1)
        status =
            select_peaks(d, candidates, n, half, max_lines, merge, NULL, lines, capacity, found);
    free(candidates);
    return status;
}

votecl_status
votecl__hough_peaks_from(const votecl__hough_desc *d, const uint32_t *pairs, size_t n,
                         unsigned window, size_t max_lines, double merge, uint8_t *mask,
                         votecl_hough_line *lines, size_t capacity, size_t *found)
{
    peak *candidates = votecl__malloc((n > 0 ? n : 1) * sizeof *candidates);
    votecl_status status = VOTECL_OUT_OF_HOST_MEMORY;

    if (candidates == NULL)
        return status;
    for (size_t i = 0; i < n; i++)
        candidates[i] = (peak){pairs[2 * i + 1], pairs[2 * i]};
    status = select_peaks(d, candidates, n, (long)(window / 2), max_lines, merge, mask, lines,
                          capacity, found);
    free(candidates);
    return status;
}

/* --- segments: a walk along the line on the host --- */

/* The edge image a segment is looked for in (borrowed). */
typedef struct hough_segment_image {
    const votecl__hough_desc *desc;
    const uint8_t *data;
    size_t stride;
} hough_segment_image;

/* The segment walk's hit test (lib/segment.c): an edge pixel. */
static int
hough_hit(const void *arg, long x, long y, double nx, double ny)
{
    const hough_segment_image *im = arg;
    (void)nx;
    (void)ny;
    return im->data[(size_t)y * im->stride + (size_t)x] >= im->desc->edge_threshold;
}

/* One line's runs: its has_segment and ends, and the runs appended to w's list. */
static int
hough_segment(const votecl__hough_desc *d, const votecl__segment_walker *w, votecl_hough_line *line)
{
    double nx = cos(line->theta), ny = sin(line->theta);
    votecl__segment_line walk = {line->rho * nx, line->rho * ny, nx, ny, d->width, d->height};

    return votecl__segment_report(&walk, w, &line->has_segment, &line->x0, &line->y0, &line->x1,
                                  &line->y1);
}

votecl_status
votecl__hough_segments(const votecl__hough_desc *d, const uint8_t *data, size_t stride,
                       uint32_t min_length, uint32_t max_gap, votecl_hough_line *lines, size_t n,
                       votecl__segment_list *list)
{
    hough_segment_image im = {d, data, stride};
    votecl__segment_walker w = {hough_hit, &im, min_length, max_gap, 0, list};

    for (w.index = 0; w.index < n; w.index++)
        if (hough_segment(d, &w, &lines[w.index]) != 0)
            return VOTECL_OUT_OF_HOST_MEMORY;
    return VOTECL_OK;
}
