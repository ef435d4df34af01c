/* The segment walk both line detectors share (theta-rho Hough and PClines): every run of edge
 * hits along a line inside the image, gaps of at most max_gap px bridged, and the longest.
 * Each detector says what a hit is (its own edge test, 2 px either side of the line). */
#include "votecl-private.h"

#include <math.h>

#include "segment-private.h"

int
votecl__segment_clip(const votecl__segment_line *line, double *t0, double *t1)
{
    double px = line->px, py = line->py, dx = -line->ny, dy = line->nx;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {px, line->width - 1 - px, py, line->height - 1 - py};

    *t0 = -1e18;
    *t1 = 1e18;
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return 0;
            continue;
        }
        double r = q[k] / p[k];
        if (p[k] < 0)
            *t0 = r > *t0 ? r : *t0;
        else
            *t1 = r < *t1 ? r : *t1;
    }
    return *t0 <= *t1;
}

/* The edge pixel the walk finds at the step where the line crosses pixel (x, y): that pixel or
 * one up to 2 px either side along the minor axis, nearest first, inside the image. */
static int
probe(const votecl__segment_line *line, votecl__segment_hit hit, const void *arg, int major_x,
      long x, long y, long pix[2])
{
    static const int order[] = {0, -1, 1, -2, 2};

    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        long cx = major_x ? x : x + order[k], cy = major_x ? y + order[k] : y;
        if (cx < 0 || cy < 0 || cx >= (long)line->width || cy >= (long)line->height ||
            !hit(arg, cx, cy, line->nx, line->ny))
            continue;
        pix[0] = cx;
        pix[1] = cy;
        return 1;
    }
    return 0;
}

/* The position along the line of the foot of pixel pix's centre. */
static double
foot(const votecl__segment_line *line, const long pix[2])
{
    return (pix[0] - line->px) * -line->ny + (pix[1] - line->py) * line->nx;
}

/* The point of the line at position t along it. */
static void
point_at(const votecl__segment_line *line, double t, double *x, double *y)
{
    *x = line->px + t * -line->ny;
    *y = line->py + t * line->nx;
}

/* A run closed: appended to list when it spans at least min_length (list NULL: not kept), and
 * made the longest when strictly longer than the longest so far (the first of equals stays).
 * -1 when out of memory. */
static int
close_run(const votecl__segment_line *line, const votecl__segment_walker *w, double t0, double t1,
          uint32_t hits, double best[2])
{
    if (t1 - t0 > best[1] - best[0]) {
        best[0] = t0;
        best[1] = t1;
    }
    if (w->list == NULL || t1 - t0 < w->min_length)
        return 0;
    votecl__segment_list *l = w->list;
    if (votecl__grow((void **)&l->items, &l->room, l->n + 1, sizeof *l->items, 64) != 0)
        return -1;
    votecl_segment *s = &l->items[l->n++];
    point_at(line, t0, &s->x0, &s->y0);
    point_at(line, t1, &s->x1, &s->y1);
    s->line = w->index;
    s->hits = hits;
    return 0;
}

/* The walk goes one pixel step at a time along the major axis (OpenCV's HoughLinesP and
 * scikit-image's probabilistic_hough_line do the same), so a gap is a count of steps without
 * an edge pixel and a diagonal neighbour is no gap; a run's ends are the feet of its first and
 * farthest edge pixels, so they lie on the extreme pixels, not a step inside. */
int
votecl__segment_runs(const votecl__segment_line *line, const votecl__segment_walker *w,
                     double ends[4])
{
    double dx = -line->ny, dy = line->nx, t0, t1, run0 = 0, run1 = 0, best[2] = {0, -1};
    int major_x = fabs(dx) >= fabs(dy), open = 0;
    double pm = major_x ? line->px : line->py, dm = major_x ? dx : dy;
    long c0, c1, last = 0, pix[2];
    uint32_t hits = 0;

    c0 = 1;
    c1 = 0; /* a line that misses the image: no step */
    if (votecl__segment_clip(line, &t0, &t1)) {
        /* the integer major coordinates inside the clipped line, in the order of increasing t */
        c0 = (long)ceil(fmin(pm + t0 * dm, pm + t1 * dm) - 1e-9);
        c1 = (long)floor(fmax(pm + t0 * dm, pm + t1 * dm) + 1e-9);
    }
    for (long i = 0; i <= c1 - c0; i++) {
        double t = ((dm > 0 ? c0 + i : c1 - i) - pm) / dm;
        if (!probe(line, w->hit, w->arg, major_x, lround(line->px + t * dx),
                   lround(line->py + t * dy), pix))
            continue;
        if (open && i - last > (long)w->max_gap + 1) {
            if (close_run(line, w, run0, run1, hits, best) != 0)
                return -1;
            open = 0;
        }
        if (!open) {
            open = 1;
            run0 = run1 = foot(line, pix);
            hits = 0;
        }
        last = i;
        hits++;
        run1 = fmax(run1, foot(line, pix));
    }
    if (open && close_run(line, w, run0, run1, hits, best) != 0)
        return -1;
    if (best[1] < best[0] || best[1] - best[0] < w->min_length) {
        ends[0] = ends[1] = ends[2] = ends[3] = 0;
        return 0;
    }
    point_at(line, best[0], &ends[0], &ends[1]);
    point_at(line, best[1], &ends[2], &ends[3]);
    return 1;
}

int
votecl__segment_report(const votecl__segment_line *line, const votecl__segment_walker *w, int *has,
                       double *x0, double *y0, double *x1, double *y1)
{
    double ends[4] = {0, 0, 0, 0};
    int r = votecl__segment_runs(line, w, ends);

    *has = r == 1;
    *x0 = ends[0];
    *y0 = ends[1];
    *x1 = ends[2];
    *y1 = ends[3];
    return r < 0 ? -1 : 0;
}

votecl_status
votecl__segment_failed(votecl_context *context, votecl__segment_list *list)
{
    list->n = 0;
    return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for the segments");
}

votecl_status
votecl__segment_get(const votecl__segment_list *list, const votecl_segment **segments,
                    size_t *count)
{
    if (segments == NULL || count == NULL)
        return VOTECL_INVALID_ARGUMENT;
    *segments = list->n > 0 ? list->items : NULL;
    *count = list->n;
    return VOTECL_OK;
}

/* --- the sub-pixel fit --- */

int
votecl__segment_grow(votecl__segment_points *pts)
{
    return votecl__grow((void **)&pts->xyw, &pts->room, pts->n + 1, 3 * sizeof(double), 256);
}

/* Gathers into pts the edge pixels within reach px of line, asking gather for the pixels of
 * the band that cross each step along its major axis. A pixel within reach lies at most
 * reach / |dm| from the line's crossing of its step; the span reaches 1/16 px further, far
 * beyond the rounding of the crossing, and its ends, truncated, still hold every pixel within
 * it: the span changes which pixels are tested but never which pass. -1 when out of memory. */
static int
fit_collect(const votecl__segment_line *line, votecl__segment_gather gather, void *arg,
            double reach, votecl__segment_points *pts)
{
    double dx = -line->ny, dy = line->nx;
    int major_x = fabs(dx) >= fabs(dy);
    double dm = major_x ? dx : dy, dn = major_x ? dy : dx, pm = major_x ? line->px : line->py;
    double pn = major_x ? line->py : line->px, across = reach / fabs(dm) + 0.0625, slope = dn / dm;
    long last_m = major_x ? (long)line->width - 1 : (long)line->height - 1;
    long last_n = major_x ? (long)line->height - 1 : (long)line->width - 1;

    pts->n = 0;
    for (long a = 0; a <= last_m; a++) {
        double centre = pn + (a - pm) * slope;
        long lo = (long)(centre - across), hi = (long)(centre + across);
        lo = lo < 0 ? 0 : lo;
        hi = hi < last_n ? hi : last_n;
        if (lo <= hi && gather(arg, line, major_x, a, lo, hi, reach, pts) != 0)
            return -1;
    }
    return 0;
}

/* One pass: the weighted principal axis of the gathered pixels within band px of line becomes
 * the line (moments about line's point, for precision); 0 when fewer than three. */
static int
fit_pass(votecl__segment_line *line, const votecl__segment_points *pts, double band)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, mx, my, cxx, cxy, cyy, phi;
    double nx, ny;
    size_t n = 0;

    /* a pixel beyond band adds weight 0, which leaves each sum as it was (none is -0: they
     * start at +0), without a branch the pixels' order makes unpredictable */
    for (size_t i = 0; i < pts->n; i++) {
        double rx = pts->xyw[3 * i] - line->px, ry = pts->xyw[3 * i + 1] - line->py;
        double w = pts->xyw[3 * i + 2];
        int in = !(fabs(rx * line->nx + ry * line->ny) > band);
        w = in ? w : 0.0;
        sw += w;
        sx += w * rx;
        sy += w * ry;
        sxx += w * rx * rx;
        sxy += w * rx * ry;
        syy += w * ry * ry;
        n += (size_t)in;
    }
    if (n < 3 || !(sw > 0))
        return 0;
    mx = sx / sw;
    my = sy / sw;
    cxx = sxx / sw - mx * mx;
    cxy = sxy / sw - mx * my;
    cyy = syy / sw - my * my;
    /* the direction of most spread; the normal is across it */
    phi = 0.5 * atan2(2.0 * cxy, cxx - cyy);
    nx = -sin(phi);
    ny = cos(phi);
    if (nx * line->nx + ny * line->ny < 0) {
        nx = -nx;
        ny = -ny;
    }
    line->px += mx;
    line->py += my;
    line->nx = nx;
    line->ny = ny;
    return 1;
}

int
votecl__segment_fit(votecl__segment_line *line, votecl__segment_gather gather, void *arg,
                    double band, unsigned passes, double max_turn, votecl__segment_points *pts)
{
    votecl__segment_line fit = *line;

    /* every pass looks around the last one's line, which moves by at most a pixel or two */
    if (fit_collect(line, gather, arg, band + VOTECL__SEGMENT_FIT_MARGIN, pts) != 0)
        return -1;
    for (unsigned k = 0; k < passes; k++)
        if (!fit_pass(&fit, pts, band))
            return 0;
    if (fit.nx * line->nx + fit.ny * line->ny < cos(max_turn))
        return 0;
    *line = fit;
    return 1;
}
