/* PClines' line fit in integers: which pixels a pass counts and their moments, exact on
 * every backend, so that the GPU shape's kernels (cl/pclines.cl, pclines_fit_*) and the
 * host's fit over the edge map (lib/pclines-ref.c) give the same sums in any order; only
 * the solve of each pass (a few doubles, atan2, sin and cos) runs on the host. */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>

#include "pclines-private.h"

/* The fit: edges within 3 px of the line (a 3 px wide line's flanks lie 2.5 px from its
 * middle), gathered within 2 px more of the cell's line for the passes that move it, three
 * passes (each around the last one's line, so a cell 1.5 px off is recentred), and no turn
 * beyond 10 degrees (a cell is at most half a column off). */
#define FIT_BAND 3.0
#define FIT_MARGIN 2.0
#define FIT_PASSES 3u
#define FIT_TURN (10.0 * M_PI / 180.0)
/* The distance tests' fixed point (2^20: a line's terms stay below 2^38 for any image side
 * up to 2^16) and the gradient test's normal (2^14: the squares below stay under 2^64). */
#define FIT_Q 1048576.0
#define FIT_NQ 16384.0
#define FIT_G_MAX 16384
/* A pixel's weight: its Sobel magnitude's integer part, at most this (u8 images reach 1443) */
#define FIT_W_MAX 65535u

int64_t
votecl__pclines_fit_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return q - (a % b != 0 && (a < 0) != (b < 0));
}

uint64_t
votecl__pclines_fit_isqrt(uint64_t m)
{
    uint64_t r = (uint64_t)sqrt((double)m);

    while (r > 0 && r * r > m)
        r--;
    while ((r + 1) * (r + 1) <= m)
        r++;
    return r;
}

/* The line through p of normal n as |nx x + ny y - c| <= reach (FIT_Q fixed point). */
static void
fit_qline(const votecl__segment_line *l, double reach, int64_t *out)
{
    out[0] = llround(l->nx * FIT_Q);
    out[1] = llround(l->ny * FIT_Q);
    out[2] = llround((l->nx * l->px + l->ny * l->py) * FIT_Q);
    out[3] = llround(reach * FIT_Q);
}

void
votecl__pclines_fit_first(const votecl__pclines_desc *desc, const votecl_lines_line *l,
                          votecl__segment_line *first, int64_t p[VOTECL__PCLINES_FIT_WORDS])
{
    int major_x;

    *first =
        (votecl__segment_line){-l->c * l->a, -l->c * l->b, l->a, l->b, desc->width, desc->height};
    for (unsigned i = 0; i < VOTECL__PCLINES_FIT_WORDS; i++)
        p[i] = 0;
    fit_qline(first, FIT_BAND + FIT_MARGIN, p);
    p[4] = llround(l->a * FIT_NQ);
    p[5] = llround(l->b * FIT_NQ);
    p[6] = p[4] * p[4] + p[5] * p[5];
    /* steps along x when the line is nearer horizontal: its y coefficient is then at least
     * 2^20 / sqrt(2), never 0 */
    major_x = llabs(p[1]) >= llabs(p[0]);
    p[11] = major_x;
    p[12] = 1;
    p[13] = (int64_t)(major_x ? desc->width : desc->height) - 2;
    p[14] = 1;
    p[15] = (int64_t)(major_x ? desc->height : desc->width) - 2;
    votecl__pclines_fit_pass(first, p);
}

void
votecl__pclines_fit_pass(const votecl__segment_line *line, int64_t p[VOTECL__PCLINES_FIT_WORDS])
{
    fit_qline(line, FIT_BAND, p + 7);
}

int
votecl__pclines_fit_span(const int64_t *p, int64_t a, int64_t *lo, int64_t *hi)
{
    int64_t qm = p[11] ? p[0] : p[1], qn = p[11] ? p[1] : p[0], t = p[2] - qm * a;

    if (qn < 0) {
        qn = -qn;
        t = -t;
    }
    *lo = -votecl__pclines_fit_floor_div(p[3] - t, qn);
    *hi = votecl__pclines_fit_floor_div(t + p[3], qn);
    *lo = *lo < 1 ? 1 : *lo;
    *hi = *hi > p[15] ? p[15] : *hi;
    return *lo <= *hi;
}

uint32_t
votecl__pclines_fit_weight(const int64_t *p, int32_t gx, int32_t gy, int list)
{
    int64_t ax = llabs((int64_t)gx), ay = llabs((int64_t)gy), x, y;
    uint64_t dot, w;
    unsigned s = 0;

    if (list && gx == 0 && gy == 0)
        return 1;
    while ((ax >> s) >= FIT_G_MAX || (ay >> s) >= FIT_G_MAX)
        s++;
    x = gx < 0 ? -(ax >> s) : ax >> s;
    y = gy < 0 ? -(ay >> s) : ay >> s;
    dot = (uint64_t)(x * p[4] + y * p[5]);
    if (100 * (dot * dot) < 81 * (uint64_t)(x * x + y * y) * (uint64_t)p[6])
        return 0;
    if (list)
        return 1;
    w = votecl__pclines_fit_isqrt((uint64_t)(ax * ax + ay * ay));
    return (uint32_t)(w < FIT_W_MAX ? w : FIT_W_MAX);
}

int
votecl__pclines_fit_solve(const votecl__pclines_desc *desc,
                          const uint64_t m[VOTECL__PCLINES_FIT_MOMENTS], votecl__segment_line *line)
{
    double sw = (double)m[1], mx, my, cxx, cxy, cyy, phi, nx, ny;

    if (m[0] < 3 || m[1] == 0)
        return 0;
    /* the sums are two's complement: a sum of signed terms is read back as signed */
    mx = (double)(int64_t)m[2] / sw;
    my = (double)(int64_t)m[3] / sw;
    cxx = (double)(int64_t)m[4] / sw - mx * mx;
    cxy = (double)(int64_t)m[5] / sw - mx * my;
    cyy = (double)(int64_t)m[6] / sw - my * my;
    /* the direction of most spread; the normal is across it */
    phi = 0.5 * atan2(2.0 * cxy, cxx - cyy);
    nx = -sin(phi);
    ny = cos(phi);
    if (nx * line->nx + ny * line->ny < 0) {
        nx = -nx;
        ny = -ny;
    }
    line->px = (double)(desc->width / 2) + mx;
    line->py = (double)(desc->height / 2) + my;
    line->nx = nx;
    line->ny = ny;
    return 1;
}

int
votecl__pclines_fit_finish(const votecl__segment_line *first, const votecl__segment_line *fit,
                           votecl_lines_line *l)
{
    if (fit->nx * first->nx + fit->ny * first->ny < cos(FIT_TURN))
        return 0;
    l->a = fit->nx;
    l->b = fit->ny;
    l->c = -(fit->nx * fit->px + fit->ny * fit->py);
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

unsigned
votecl__pclines_fit_passes(void)
{
    return FIT_PASSES;
}
