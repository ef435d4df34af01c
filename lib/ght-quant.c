/* The generalized Hough transform's quantisation, shared by every stage and both of their
 * implementations: the resolved parameters, the gradient and scale bins (exact on any device:
 * lib/ght-private.h), the rotation and scale steps, the position grid, Ballard's accumulator
 * size, and the ranking of the poses. */
#include "votecl-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ght-private.h"

#define GHT_PI 3.14159265358979323846

/* --- quantisation --- */

void
votecl__ght_desc_init(votecl__ght_desc *desc, const votecl_ght_params *params)
{
    const votecl_ght_params *p = params;
    double span = p->max_angle - p->min_angle;

    memset(desc, 0, sizeof *desc);
    desc->p = *p;
    desc->levels = p->levels;
    desc->xi_bins = (uint32_t)lround(p->xi * p->levels / 360.0) % p->levels;
    desc->eps = p->angle_epsilon;
    desc->rotations = (uint32_t)ceil(span / p->angle_step - 1e-9);
    desc->rotations = desc->rotations < 1 ? 1 : desc->rotations;
    desc->full_circle = desc->rotations * p->angle_step >= 360.0 - 1e-9;
    desc->scales = (uint32_t)floor((p->max_scale - p->min_scale) / p->scale_step + 1e-9) + 1;
    for (uint32_t b = 0; b < desc->levels; b++) {
        double a = 2.0 * GHT_PI * (b + 0.5) / desc->levels, c = cos(a), s = sin(a);
        desc->dirs[2 * b] = (float)(fabs(c) < 1e-12 ? 0.0 : c);
        desc->dirs[2 * b + 1] = (float)(fabs(s) < 1e-12 ? 0.0 : s);
    }
}

/* (gx, gy) in the upper half-plane [0, 180) degrees (boundary b: 2 b < L). */
static int
upper_half(int32_t gx, int32_t gy)
{
    return gy > 0 || (gy == 0 && gx > 0);
}

/* (gx, gy) is at or past boundary b ((b + 1/2) 360 / L degrees) counterclockwise from 0
 * degrees: exact, each product a float times an integer below 2^29 (cl/ght.cl's ght_past). */
static int
past_boundary(const float *dirs, uint32_t levels, uint32_t b, int upper, int32_t gx, int32_t gy)
{
    int b_upper = 2 * b + 1 < levels;

    if (b_upper != upper)
        return b_upper;
    return (double)dirs[2 * b] * (double)gy >= (double)dirs[2 * b + 1] * (double)gx;
}

uint32_t
votecl__ght_bin(const votecl__ght_desc *desc, int32_t gx, int32_t gy)
{
    uint32_t lo = 0, hi = desc->levels;
    int upper = upper_half(gx, gy);

    /* Bins are centred on 360 b / L degrees: flooring at boundaries 360 b / L put the many
     * exactly axis-aligned (and diagonal) gradients and pairing directions of a template on
     * a bin's lower edge, so a rotation by n + f bins moved them by n, never n + 1, and the
     * rotation correlation peaked low (a mean angle error of -0.7 bins). */
    if (!past_boundary(desc->dirs, desc->levels, 0, upper, gx, gy))
        return 0;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (past_boundary(desc->dirs, desc->levels, mid, upper, gx, gy))
            lo = mid;
        else
            hi = mid;
    }
    return (lo + 1) % desc->levels;
}

float
votecl__ght_scale_bound(const votecl__ght_desc *desc, uint32_t k)
{
    return (float)(desc->p.min_scale + ((double)k - 0.5) * desc->p.scale_step);
}

void
votecl__ght_rs(double c, double s, double scale, float rs[2])
{
    rs[0] = (float)(scale * c);
    rs[1] = (float)(scale * s);
}

double
votecl__ght_degrees(double a)
{
    a = fmod(a, 360.0);
    a = a < 0 ? a + 360.0 : a;
    /* rounding in atan2 and the fit leaves an unrotated pose a hair below 0, which wraps to
     * a hair below 360, and every output (%.2f, JSON's %.10g) rounds that to 360 */
    return a >= 360.0 - VOTECL__GHT_DEGREES_EPS ? 0.0 : a;
}

double
votecl__ght_angle(const votecl__ght_desc *desc, double k)
{
    return votecl__ght_degrees(desc->p.min_angle + k * desc->p.angle_step);
}

double
votecl__ght_scale(const votecl__ght_desc *desc, double k)
{
    return desc->p.min_scale + k * desc->p.scale_step;
}

void
votecl__ght_grid(const votecl__ght_desc *desc, uint32_t width, uint32_t height, uint32_t *gw,
                 uint32_t *gh)
{
    *gw = width / desc->p.dp + 1;
    *gh = height / desc->p.dp + 1;
}

votecl_status
votecl__ght_poses_push(votecl__ght_poses *poses, const votecl_ght_pose *pose)
{
    if (votecl__grow((void **)&poses->v, &poses->capacity, poses->n + 1, sizeof *poses->v, 64))
        return VOTECL_OUT_OF_HOST_MEMORY;
    poses->v[poses->n++] = *pose;
    return VOTECL_OK;
}

size_t
votecl__ght_ballard_cells(const votecl__ght_desc *desc, uint32_t width, uint32_t height)
{
    uint32_t gw, gh;
    size_t cells;

    votecl__ght_grid(desc, width, height, &gw, &gh);
    if (votecl__mul_overflow((size_t)gw, gh, &cells) ||
        votecl__mul_overflow(cells, desc->rotations, &cells) ||
        votecl__mul_overflow(cells, desc->scales, &cells))
        return 0;
    return cells;
}

/* --- ranking --- */

int
votecl__ght_pose_cmp(const void *a, const void *b)
{
    const votecl_ght_pose *x = a, *y = b;

    if (x->confidence != y->confidence)
        return x->confidence > y->confidence ? -1 : 1;
    if (x->votes != y->votes)
        return x->votes > y->votes ? -1 : 1;
    if (x->angle_votes != y->angle_votes)
        return x->angle_votes > y->angle_votes ? -1 : 1;
    if (x->scale_votes != y->scale_votes)
        return x->scale_votes > y->scale_votes ? -1 : 1;
    if (x->y != y->y)
        return x->y < y->y ? -1 : 1;
    if (x->x != y->x)
        return x->x < y->x ? -1 : 1;
    if (x->angle != y->angle)
        return x->angle < y->angle ? -1 : 1;
    return (x->scale > y->scale) - (x->scale < y->scale);
}

size_t
votecl__ght_finish(const votecl__ght_desc *desc, votecl_ght_pose *poses, size_t n)
{
    double d2 = desc->p.min_dist * desc->p.min_dist;
    size_t kept = 0;

    if (n > 0) /* poses may be NULL when there is nothing */
        qsort(poses, n, sizeof *poses, votecl__ght_pose_cmp);
    for (size_t i = 0; i < n; i++) {
        int near = poses[i].confidence < desc->p.min_confidence;
        for (size_t j = 0; j < kept && !near; j++) {
            double dx = poses[i].x - poses[j].x, dy = poses[i].y - poses[j].y;
            near = dx * dx + dy * dy < d2;
        }
        if (!near)
            poses[kept++] = poses[i];
    }
    return kept;
}
