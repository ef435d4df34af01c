/* The segment walk both line detectors share (theta-rho Hough and PClines): the longest run
 * of edge hits along a line inside the image, gaps of at most max_gap px bridged. Each
 * detector says what a hit is (its own edge test, 2 px either side of the line). */
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

int
votecl__segment_walk(const votecl__segment_line *line, votecl__segment_hit hit, const void *arg,
                     uint32_t min_length, uint32_t max_gap, double ends[4])
{
    double dx = -line->ny, dy = line->nx, t0, t1;
    double run0 = 0, last = 0, best0 = 0, best1 = -1;
    int open = 0;

    if (!votecl__segment_clip(line, &t0, &t1))
        return 0;
    for (double t = ceil(t0); t <= t1; t += 1.0) {
        if (!hit(arg, line->px + t * dx, line->py + t * dy, line->nx, line->ny))
            continue;
        if (!open || t - last > max_gap + 1.0) {
            open = 1;
            run0 = t;
        }
        last = t;
        if (last - run0 > best1 - best0) {
            best0 = run0;
            best1 = last;
        }
    }
    if (best1 < best0 || best1 - best0 < min_length)
        return 0;
    ends[0] = line->px + best0 * dx;
    ends[1] = line->py + best0 * dy;
    ends[2] = line->px + best1 * dx;
    ends[3] = line->py + best1 * dy;
    return 1;
}
