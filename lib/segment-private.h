/* The segment walk of the line detectors (lib/segment.c). */
#ifndef VOTECL_SEGMENT_PRIVATE_H
#define VOTECL_SEGMENT_PRIVATE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <votecl/votecl-context.h>
#include <votecl/votecl-image.h>
#include <votecl/votecl-status.h>

/* A line through (px, py) with unit normal (nx, ny), in a width x height image; it runs
 * along (-ny, nx). */
typedef struct votecl__segment_line {
    double px, py, nx, ny;
    double width, height;
} votecl__segment_line;

/* Whether pixel (x, y), inside the image, is an edge pixel of a line of normal (nx, ny); arg
 * is the detector's own state, borrowed. */
typedef int (*votecl__segment_hit)(const void *arg, long x, long y, double nx, double ny);

/* The range [*t0, *t1] of t for which p + t (-ny, nx) lies in the box of pixel centres
 * [0, W-1] x [0, H-1] (Liang-Barsky); 0 when the line misses the box. */
int votecl__segment_clip(const votecl__segment_line *line, double *t0, double *t1);

/* Segments found so far (owned, free items): n of room. */
typedef struct votecl__segment_list {
    votecl_segment *items;
    size_t n, room;
} votecl__segment_list;

/* What a walk looks for: hit (with arg, the detector's state, borrowed) says what an edge
 * pixel is; runs shorter than min_length px are not reported; gaps of at most max_gap steps
 * are bridged; list (NULL: none kept) gets every reported run, tagged with index. */
typedef struct votecl__segment_walker {
    votecl__segment_hit hit;
    const void *arg;
    uint32_t min_length, max_gap;
    size_t index;
    votecl__segment_list *list;
} votecl__segment_walker;

/* Walks line through the image one pixel step along its major axis at a time (an edge pixel
 * within 2 px along the minor axis is a hit) and finds its runs of hits with gaps of at most
 * max_gap steps, in the order of the line's direction (-ny, nx); each run from the foot on the
 * line of its first edge pixel to the farthest foot of its edge pixels. Appends to w->list the
 * runs spanning at least min_length px; when the longest run does, writes its ends (x0, y0, x1,
 * y1) to ends and returns 1; otherwise writes zeros and returns 0; -1 when out of memory (the
 * list keeps what it had). */
int votecl__segment_runs(const votecl__segment_line *line, const votecl__segment_walker *w,
                         double ends[4]);

/* votecl__segment_runs() for a detector's line: *has (its has_segment) and the longest run's
 * ends (0 when none) written where it keeps them; 0, or -1 when out of memory. */
int votecl__segment_report(const votecl__segment_line *line, const votecl__segment_walker *w,
                           int *has, double *x0, double *y0, double *x1, double *y1);

/* A detector's segments could not be kept: list emptied, the failure recorded in context;
 * returns VOTECL_OUT_OF_HOST_MEMORY. */
votecl_status votecl__segment_failed(votecl_context *context, votecl__segment_list *list);

/* What votecl_hough_plan_segments() and votecl_lines_plan_segments() return of list. */
votecl_status votecl__segment_get(const votecl__segment_list *list, const votecl_segment **segments,
                                  size_t *count);

/* Pixels gathered by the fit (x, y, weight triples; owned, free xyw). */
typedef struct votecl__segment_points {
    int32_t *xyw;
    size_t n, room;
} votecl__segment_points;

/* Makes room in pts for one more pixel; -1 when out of memory. */
int votecl__segment_grow(votecl__segment_points *pts);

/* Appends pixel (x, y) (each below 2^31) of weight w (below 2^31) to pts; -1 when out of
 * memory. Inline: the fit pushes thousands of pixels a line. */
static inline int
votecl__segment_push(votecl__segment_points *pts, long x, long y, uint32_t w)
{
    if (pts->n >= pts->room && votecl__segment_grow(pts) != 0)
        return -1;
    pts->xyw[3 * pts->n] = (int32_t)x;
    pts->xyw[3 * pts->n + 1] = (int32_t)y;
    pts->xyw[3 * pts->n + 2] = (int32_t)w;
    pts->n++;
    return 0;
}

#endif
