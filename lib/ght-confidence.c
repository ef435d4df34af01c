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
#include <string.h>

#include "ght-private.h"

#define GHT_PI 3.14159265358979323846
#define GHT_CONF_RADIUS 2         /* pixels (Chebyshev): the fit's error and the edges' jitter */
#define GHT_CONF_DEGREES 10.0     /* gradient tolerance: Sobel on anti-aliased, blurred edges */

/* The image's edge bins by pixel (bin + 1; 0: no edge), w * h entries (malloc'd). */
static uint16_t *
edge_map(const votecl__ght_edges *image, uint32_t w, uint32_t h)
{
    uint16_t *map = votecl__calloc((size_t)w * h > 0 ? (size_t)w * h : 1, sizeof *map);

    if (map == NULL)
        return NULL;
    for (size_t i = 0; i < image->n; i++) {
        const votecl__ght_point *p = &image->points[i];
        if ((uint32_t)p->x < w && (uint32_t)p->y < h)
            map[(size_t)p->y * w + p->x] = (uint16_t)(p->bin + 1);
    }
    return map;
}

/* Bins a and b are within tol of each other on the circle of L bins. */
static int
bins_near(uint32_t a, uint32_t b, uint32_t L, uint32_t tol)
{
    uint32_t d = a > b ? a - b : b - a;
    return (d < L - d ? d : L - d) <= tol;
}

/* An image edge near (x, y) with a gradient bin near bin. */
static int
confirmed(const uint16_t *map, uint32_t w, uint32_t h, double x, double y, uint32_t bin,
          uint32_t L, uint32_t tol)
{
    long cx = lround(x), cy = lround(y);

    for (long yy = cy - GHT_CONF_RADIUS; yy <= cy + GHT_CONF_RADIUS; yy++)
        for (long xx = cx - GHT_CONF_RADIUS; xx <= cx + GHT_CONF_RADIUS; xx++) {
            uint16_t v;
            if (xx < 0 || yy < 0 || xx >= (long)w || yy >= (long)h)
                continue;
            v = map[(size_t)yy * w + (size_t)xx];
            if (v != 0 && bins_near(v - 1u, bin, L, tol))
                return 1;
        }
    return 0;
}

static double
pose_confidence(const votecl__ght_desc *desc, const votecl__ght_edges *templ,
                const uint16_t *map, uint32_t w, uint32_t h, const votecl_ght_pose *pose)
{
    uint32_t L = desc->levels, tol = (uint32_t)ceil(GHT_CONF_DEGREES * L / 360.0);
    uint32_t shift = (uint32_t)lround(pose->angle * L / 360.0) % L;
    double a = pose->angle * GHT_PI / 180.0, c = cos(a) * pose->scale, s = sin(a) * pose->scale;
    size_t hits = 0;

    if (templ->n == 0)
        return 0;
    for (size_t i = 0; i < templ->n; i++) {
        const votecl__ght_point *q = &templ->points[i];
        double u = q->x - desc->cx, v = q->y - desc->cy;
        hits += confirmed(map, w, h, pose->x + c * u - s * v, pose->y + s * u + c * v,
                          (q->bin + shift) % L, L, tol);
    }
    return (double)hits / (double)templ->n;
}

votecl_status
votecl__ght_confidence(const votecl__ght_desc *desc, const votecl__ght_edges *templ,
                       const votecl__ght_edges *image, uint32_t width, uint32_t height,
                       votecl_ght_pose *poses, size_t n)
{
    uint16_t *map;

    if (n == 0)
        return VOTECL_OK;
    if ((map = edge_map(image, width, height)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < n; i++)
        poses[i].confidence = pose_confidence(desc, templ, map, width, height, &poses[i]);
    free(map);
    return VOTECL_OK;
}
