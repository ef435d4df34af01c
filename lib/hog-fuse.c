/* Fusion of HOG windows on the host: mean-shift in (x, y, log scale) (Dalal's thesis, section
 * 5.1) or OpenCV's HOGDescriptor::groupRectangles (partition by similarity, average, drop
 * small groups and small rectangles inside bigger ones). */
#include "hog-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
by_score(const void *a, const void *b)
{
    double x = ((const votecl_hog_detection *)a)->score;
    double y = ((const votecl_hog_detection *)b)->score;

    return x > y ? -1 : x < y ? 1 : 0;
}

static void
emit(votecl_hog_detection *all, size_t n, votecl_hog_detection *out, size_t capacity,
     size_t *found)
{
    /* all and out may be NULL when there is nothing, and memcpy takes no NULL even for
     * zero bytes */
    if (n > 0 && capacity > 0) {
        qsort(all, n, sizeof *all, by_score);
        memcpy(out, all, (n < capacity ? n : capacity) * sizeof *out);
    }
    *found = n;
}

/* --- OpenCV's groupRectangles --- */

static int
similar(const votecl_hog_rect *a, const votecl_hog_rect *b, double eps)
{
    /* in double: boxes given by the caller may hold any int32_t */
    double delta = eps * ((double)(a->width < b->width ? a->width : b->width) +
                          (double)(a->height < b->height ? a->height : b->height)) * 0.5;

    return fabs((double)a->x - b->x) <= delta && fabs((double)a->y - b->y) <= delta &&
           fabs((double)a->x + a->width - b->x - b->width) <= delta &&
           fabs((double)a->y + a->height - b->y - b->height) <= delta;
}

static size_t
find(size_t *parent, size_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

typedef struct group {
    double x, y, w, h, best;
    size_t n;
    votecl_hog_rect r;
} group;

/* Classes of the similarity's transitive closure; fills g (one per class), returns count. */
static size_t
partition(const votecl_hog_detection *w, size_t n, size_t *parent, group *g, size_t *label)
{
    size_t classes = 0;

    for (size_t i = 0; i < n; i++)
        parent[i] = i;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (similar(&w[i].box, &w[j].box, 0.2))
                parent[find(parent, i)] = find(parent, j);
    for (size_t i = 0; i < n; i++)
        label[i] = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t r = find(parent, i);

        if (label[r] == (size_t)-1) {
            label[r] = classes;
            memset(&g[classes], 0, sizeof *g);
            g[classes++].best = -HUGE_VAL;
        }
        label[i] = label[r];
    }
    return classes;
}

static int
inside_bigger(const group *g, size_t classes, size_t i, unsigned threshold)
{
    for (size_t j = 0; j < classes; j++) {
        const votecl_hog_rect *a = &g[i].r, *b = &g[j].r;
        /* int64_t: sums of caller boxes overflow int */
        int64_t dx = lrint(b->width * 0.2), dy = lrint(b->height * 0.2);
        int64_t ax = a->x, ay = a->y, bx = b->x, by = b->y;
        size_t n1 = g[i].n, n2 = g[j].n;

        if (j == i || n2 <= threshold)
            continue;
        if (ax >= bx - dx && ay >= by - dy && ax + a->width <= bx + b->width + dx &&
            ay + a->height <= by + b->height + dy && (n2 > (n1 > 3 ? n1 : 3) || n1 < 3))
            return 1;
    }
    return 0;
}

static size_t
group_rectangles(const votecl_hog_detection *w, size_t n, unsigned threshold,
                 votecl_hog_detection *out, size_t *parent, group *g, size_t *label)
{
    size_t classes = partition(w, n, parent, g, label), k = 0;

    for (size_t i = 0; i < n; i++) {
        group *c = &g[label[i]];

        c->x += w[i].box.x;
        c->y += w[i].box.y;
        c->w += w[i].box.width;
        c->h += w[i].box.height;
        c->n++;
        if (w[i].score > c->best) {
            c->best = w[i].score;
            out[label[i]].scale = w[i].scale;
        }
    }
    for (size_t i = 0; i < classes; i++) {
        double s = 1.0 / g[i].n;
        votecl_hog_rect r = {(int32_t)lrint(g[i].x * s), (int32_t)lrint(g[i].y * s),
                             (int32_t)lrint(g[i].w * s), (int32_t)lrint(g[i].h * s)};
        g[i].r = r;
    }
    for (size_t i = 0; i < classes; i++) {
        if (g[i].n <= threshold || inside_bigger(g, classes, i, threshold))
            continue;
        out[k].box = g[i].r;
        out[k].score = g[i].best;
        out[k].scale = out[i].scale;
        k++;
    }
    return k;
}

/* --- mean-shift --- */

typedef struct point {
    double x, y, z, w; /* centre, log scale, weight */
} point;

/* One mean-shift step from m: Dalal's Eq. 5.3 with per-point bandwidths H_i =
 * diag((e^z_i sx)^2, (e^z_i sy)^2, sz^2). */
static void
shift(const point *p, size_t n, const votecl_hog_params *par, point *m)
{
    double sx = 0, sy = 0, sz = 0, sw = 0;

    for (size_t i = 0; i < n; i++) {
        double e = exp(p[i].z);
        double hx = e * par->meanshift_sigma_x, hy = e * par->meanshift_sigma_y;
        double hz = par->meanshift_sigma_scale;
        double dx = (m->x - p[i].x) / hx, dy = (m->y - p[i].y) / hy, dz = (m->z - p[i].z) / hz;
        double k = p[i].w * exp(-0.5 * (dx * dx + dy * dy + dz * dz)) / (hx * hy * hz);

        sx += k * p[i].x;
        sy += k * p[i].y;
        sz += k * p[i].z;
        sw += k;
    }
    if (sw > 0) {
        m->x = sx / sw;
        m->y = sy / sw;
        m->z = sz / sw;
    }
}

static double
mode_distance(const point *a, const point *b, const votecl_hog_params *par)
{
    double e = exp(a->z);
    double dx = (a->x - b->x) / (e * par->meanshift_sigma_x);
    double dy = (a->y - b->y) / (e * par->meanshift_sigma_y);
    double dz = (a->z - b->z) / par->meanshift_sigma_scale;

    return dx * dx + dy * dy + dz * dz;
}

static size_t
meanshift(const votecl_hog_params *par, const votecl_hog_detection *w, size_t n,
          votecl_hog_detection *out, point *p, point *modes)
{
    double ww = 0, wh = 0;
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        p[i].z = log(w[i].scale);
        p[i].x = w[i].box.x + w[i].box.width * 0.5;
        p[i].y = w[i].box.y + w[i].box.height * 0.5;
        /* Dalal's hard clipping t(w) = max(w - threshold, 0), kept positive */
        p[i].w = fmax(w[i].score - par->hit_threshold, 0.0) + 1e-3;
        ww = w[i].box.width / w[i].scale;
        wh = w[i].box.height / w[i].scale;
    }
    for (size_t i = 0; i < n; i++) {
        point m = p[i], prev;
        size_t j;

        for (int it = 0; it < 100; it++) {
            prev = m;
            shift(p, n, par, &m);
            if (mode_distance(&m, &prev, par) < 1e-6)
                break;
        }
        for (j = 0; j < k; j++)
            if (mode_distance(&modes[j], &m, par) < 1.0)
                break;
        if (j == k) {
            modes[k] = m;
            out[k].score = -HUGE_VAL;
            k++;
        }
        if (w[i].score > out[j].score)
            out[j].score = w[i].score;
    }
    for (size_t j = 0; j < k; j++) {
        double s = exp(modes[j].z);
        votecl_hog_rect r = {(int32_t)lrint(modes[j].x - ww * s * 0.5),
                             (int32_t)lrint(modes[j].y - wh * s * 0.5),
                             (int32_t)lrint(ww * s), (int32_t)lrint(wh * s)};
        out[j].box = r;
        out[j].scale = s;
    }
    return k;
}

size_t
votecl__hog_fuse_limit(const votecl_hog_params *params)
{
    if (params->fusion == VOTECL_HOG_FUSION_GROUP)
        return VOTECL_HOG_MAX_GROUP_WINDOWS;
    if (params->fusion == VOTECL_HOG_FUSION_MEANSHIFT)
        return VOTECL_HOG_MAX_MEANSHIFT_WINDOWS;
    return SIZE_MAX;
}

/* OpenCV's clipObjects, which detectMultiScale applies after either grouping: each box becomes
 * its intersection with the image (0, 0, width, height), and boxes left empty are dropped;
 * the rest keep their order. Returns how many are kept. */
static size_t
clip_boxes(votecl_hog_detection *d, size_t n, size_t width, size_t height)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        /* in int64_t: fused boxes of caller windows may hold any int32_t */
        int64_t x0 = d[i].box.x > 0 ? d[i].box.x : 0, y0 = d[i].box.y > 0 ? d[i].box.y : 0;
        int64_t x1 = (int64_t)d[i].box.x + d[i].box.width;
        int64_t y1 = (int64_t)d[i].box.y + d[i].box.height;
        x1 = x1 < (int64_t)width ? x1 : (int64_t)width;
        y1 = y1 < (int64_t)height ? y1 : (int64_t)height;
        if (x1 <= x0 || y1 <= y0)
            continue;
        d[k] = d[i];
        d[k].box =
            (votecl_hog_rect){(int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0), (int32_t)(y1 - y0)};
        k++;
    }
    return k;
}

/* Fuses n windows into out (n entries) by params' fusion; returns how many came out. */
static size_t
fuse(const votecl_hog_params *params, const votecl_hog_detection *windows, size_t n,
     votecl_hog_detection *out, size_t *parent, size_t *label, group *g, point *p)
{
    if (params->fusion == VOTECL_HOG_FUSION_GROUP)
        return group_rectangles(windows, n, params->group_threshold, out, parent, g, label);
    if (params->fusion == VOTECL_HOG_FUSION_MEANSHIFT)
        return meanshift(params, windows, n, out, p, p + n);
    memcpy(out, windows, n * sizeof *out);
    return n;
}

/* votecl_hog_fuse(), its boxes then clipped to a width x height image when width > 0. */
static votecl_status
fuse_clipped(const votecl_hog_params *params, const votecl_hog_detection *windows, size_t n,
             size_t width, size_t height, votecl_hog_detection *detections, size_t capacity,
             size_t *found)
{
    votecl_hog_detection *out;
    size_t *parent, *label, k;
    group *g;
    point *p;

    if (n == 0) {
        *found = 0;
        return VOTECL_OK;
    }
    out = votecl__malloc(n * sizeof *out);
    parent = votecl__malloc(n * sizeof *parent);
    label = votecl__malloc(n * sizeof *label);
    g = votecl__malloc(n * sizeof *g);
    p = votecl__malloc(2 * n * sizeof *p);
    if (out == NULL || parent == NULL || label == NULL || g == NULL || p == NULL) {
        free(out), free(parent), free(label), free(g), free(p);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    k = fuse(params, windows, n, out, parent, label, g, p);
    if (width > 0)
        k = clip_boxes(out, k, width, height);
    emit(out, k, detections, capacity, found);
    free(out), free(parent), free(label), free(g), free(p);
    return VOTECL_OK;
}

votecl_status
votecl__hog_fuse_checked(votecl_context *context, const votecl_hog_params *params,
                         const votecl_hog_detection *windows, size_t n, size_t width, size_t height,
                         votecl_hog_detection *detections, size_t capacity, size_t *found)
{
    size_t limit = votecl__hog_fuse_limit(params);

    if (n > limit)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "hit_threshold: %g keeps %zu windows, more than the %zu %s fuses "
                            "(its time is quadratic in them): raise hit_threshold or fuse none",
                            params->hit_threshold, n, limit,
                            params->fusion == VOTECL_HOG_FUSION_GROUP ? "grouping" : "mean-shift");
    if (fuse_clipped(params, windows, n, width, height, detections, capacity, found) != VOTECL_OK)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory fusing %zu windows",
                            n);
    return VOTECL_OK;
}

votecl_status
votecl_hog_fuse(const votecl_hog_params *params, const votecl_hog_detection *windows, size_t n,
                votecl_hog_detection *detections, size_t capacity, size_t *found)
{
    if (params == NULL || found == NULL || (windows == NULL && n > 0) ||
        (detections == NULL && capacity > 0))
        return VOTECL_INVALID_ARGUMENT;
    if (votecl__struct_size_message(params, "params", sizeof *params, NULL, 0) != VOTECL_OK)
        return VOTECL_INVALID_ARGUMENT;
    if (n > votecl__hog_fuse_limit(params))
        return VOTECL_INVALID_ARGUMENT;
    return fuse_clipped(params, windows, n, 0, 0, detections, capacity, found);
}
