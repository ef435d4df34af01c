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

/* --- the sub-pixel fit's scratch (PClines' fit, lib/pclines-ref.c) --- */

int
votecl__segment_grow(votecl__segment_points *pts)
{
    return votecl__grow((void **)&pts->xyw, &pts->room, pts->n + 1, 3 * sizeof(int32_t), 256);
}
