/* The generalized Hough transform's truth suite (tests/truth-ght.h): templates, scenes and
 * the metric. Everything is drawn from one seeded generator, so a (seed, family, index)
 * names a scene on every machine. */
#include "truth-ght.h"
#include "truth-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TG_PI 3.14159265358979323846
#define TG_HALF 36.0   /* pixels per unit of a generated shape's [-1, 1] box */
#define TG_MARGIN 4    /* background pixels around a generated template */
#define TG_SUPER 3     /* supersampling per axis when drawing */
#define TG_GAP 6.0     /* least gap between the bounding circles of two objects */

/* --- random numbers (splitmix64) --- */

typedef truth_rng rng;

/* --- names --- */

const char *
truth_ght_family_name(truth_ght_family family)
{
    static const char *const names[] = {"clean",  "symmetric", "clutter",        "multi",
                                        "absent", "overlap",   "overlap-upright"};
    return family < TRUTH_GHT_FAMILIES ? names[family] : "?";
}

int
truth_ght_family_upright(truth_ght_family family)
{
    return family == TRUTH_GHT_OVERLAP_UPRIGHT;
}

const char *
truth_ght_shape_name(truth_ght_shape shape)
{
    static const char *const names[] = {"templ", "letter-f", "letter-r", "polygon", "wrench",
                                        "hammer"};
    return shape < TRUTH_GHT_SHAPES ? names[shape] : "?";
}

void
truth_ght_image_free(truth_ght_image *image)
{
    if (image == NULL)
        return;
    free(image->data);
    memset(image, 0, sizeof *image);
}

void
truth_ght_scene_free(truth_ght_scene *scene)
{
    if (scene != NULL)
        truth_ght_image_free(&scene->image);
}

static int
image_alloc(truth_ght_image *im, uint32_t w, uint32_t h, uint8_t fill)
{
    return truth_pixels_new(&im->data, &im->width, &im->height, w, h, fill);
}

/* --- generated shapes: primitives in a [-1, 1] box, added or cut in order --- */

typedef struct prim {
    int cut;       /* 1: removes what it covers */
    int kind;      /* 0: polygon, 1: circle */
    double c[3];   /* circle: x, y, r */
    int n;         /* polygon: vertices */
    double v[24];  /* x0, y0, x1, y1, ... */
} prim;

static int
in_polygon(const double *v, int n, double x, double y)
{
    int in = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double xi = v[2 * i], yi = v[2 * i + 1], xj = v[2 * j], yj = v[2 * j + 1];
        if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi)
            in = !in;
    }
    return in;
}

static int
in_prims(const prim *p, int n, double x, double y)
{
    int in = 0;
    for (int k = 0; k < n; k++) {
        int hit = p[k].kind == 1 ? hypot(x - p[k].c[0], y - p[k].c[1]) <= p[k].c[2]
                                 : in_polygon(p[k].v, p[k].n, x, y);
        if (hit)
            in = !p[k].cut;
    }
    return in;
}

static prim
poly(int cut, int n, const double *v)
{
    prim p = {cut, 0, {0, 0, 0}, n, {0}};
    memcpy(p.v, v, 2 * (size_t)n * sizeof *v);
    return p;
}

static prim
circle(int cut, double x, double y, double r)
{
    prim p = {cut, 1, {x, y, r}, 0, {0}};
    return p;
}

static prim
rect(int cut, double x0, double y0, double x1, double y1)
{
    double v[8] = {x0, y0, x1, y0, x1, y1, x0, y1};
    return poly(cut, 4, v);
}

/* The primitives of a generated shape; returns how many. */
static int
shape_prims(truth_ght_shape shape, prim *p)
{
    static const double f[] = {-0.6, -1,   0.6,  -1,   0.6,  -0.6, -0.2, -0.6, -0.2, -0.15,
                               0.35, -0.15, 0.35, 0.25, -0.2, 0.25, -0.2, 1,    -0.6, 1};
    static const double leg[] = {-0.15, -0.05, 0.2, -0.05, 0.7, 1, 0.3, 1};
    static const double head[] = {-0.85, -1, 0.35, -1, 0.95, -0.8, 0.9, -0.62, 0.35, -0.55,
                                  -0.85, -0.55};
    switch (shape) {
    case TRUTH_GHT_LETTER_F:
        p[0] = poly(0, 10, f);
        return 1;
    case TRUTH_GHT_LETTER_R:
        p[0] = rect(0, -0.6, -1, -0.2, 1);
        p[1] = rect(0, -0.6, -1, 0.05, -0.05);
        p[2] = circle(0, 0.05, -0.52, 0.48);
        p[3] = circle(1, 0.02, -0.52, 0.17);
        p[4] = poly(0, 4, leg);
        return 5;
    case TRUTH_GHT_POLYGON: {
        /* fixed once: the same polygon in every scene */
        static const double r[9] = {0.95, 0.55, 0.8, 0.62, 1.0, 0.5, 0.85, 0.7, 0.6};
        static const double j[9] = {0.1, -0.2, 0.15, 0.05, -0.1, 0.2, -0.05, 0.12, -0.15};
        double v[18];
        for (int k = 0; k < 9; k++) {
            double a = 2 * TG_PI * (k + j[k]) / 9;
            v[2 * k] = r[k] * cos(a);
            v[2 * k + 1] = r[k] * sin(a);
        }
        p[0] = poly(0, 9, v);
        return 1;
    }
    case TRUTH_GHT_WRENCH:
        p[0] = rect(0, -0.14, -0.3, 0.14, 1);
        p[1] = circle(0, 0, -0.55, 0.42);
        p[2] = rect(1, -0.15, -1.1, 0.15, -0.5);
        p[3] = circle(1, 0, 0.82, 0.07);
        p[4] = circle(0, 0.0, 1.0, 0.14);
        p[5] = circle(1, 0.0, 1.0, 0.07);
        return 6;
    case TRUTH_GHT_HAMMER:
        p[0] = rect(0, -0.1, -0.6, 0.12, 1);
        p[1] = poly(0, 6, head);
        return 2;
    default:
        return 0;
    }
}

static int
generated_template(truth_ght_shape shape, truth_ght_image *out)
{
    prim p[8];
    int np = shape_prims(shape, p);
    uint32_t side = 2 * (uint32_t)TG_HALF + 2 * TG_MARGIN;
    double c = (side - 1) / 2.0;

    if (np == 0 || image_alloc(out, side, side, 255) != 0)
        return -1;
    for (uint32_t y = 0; y < side; y++)
        for (uint32_t x = 0; x < side; x++) {
            int hits = 0;
            for (int sy = 0; sy < TG_SUPER; sy++)
                for (int sx = 0; sx < TG_SUPER; sx++) {
                    double u = (x - c + (sx + 0.5) / TG_SUPER - 0.5) / TG_HALF;
                    double v = (y - c + (sy + 0.5) / TG_SUPER - 0.5) / TG_HALF;
                    hits += in_prims(p, np, u, v);
                }
            out->data[(size_t)y * side + x] =
                (uint8_t)lround(255.0 * (1.0 - (double)hits / (TG_SUPER * TG_SUPER)));
        }
    return 0;
}

int
truth_ght_template(truth_ght_shape shape, const truth_ght_image *shipped, truth_ght_image *out)
{
    memset(out, 0, sizeof *out);
    if (shape != TRUTH_GHT_SHIPPED)
        return generated_template(shape, out);
    if (shipped == NULL || shipped->data == NULL ||
        image_alloc(out, shipped->width, shipped->height, 255) != 0)
        return -1;
    memcpy(out->data, shipped->data, (size_t)shipped->width * shipped->height);
    return 0;
}

/* --- drawing --- */

/* The coverage in [0, 1] of a template's silhouette (dark on 255) at template point (u, v),
 * bilinear, 0 outside. */
static double
coverage(const truth_ght_image *t, double u, double v)
{
    int x0 = (int)floor(u), y0 = (int)floor(v);
    double fx = u - x0, fy = v - y0, acc = 0;

    for (int dy = 0; dy <= 1; dy++)
        for (int dx = 0; dx <= 1; dx++) {
            int x = x0 + dx, y = y0 + dy;
            double w = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy), c = 0;
            if (x >= 0 && y >= 0 && (uint32_t)x < t->width && (uint32_t)y < t->height)
                c = (255.0 - t->data[(size_t)y * t->width + x]) / 255.0;
            acc += w * c;
        }
    return acc;
}

/* The radius of a template's silhouette around its centre, in template pixels. */
static double
template_radius(const truth_ght_image *t)
{
    double cx = (t->width - 1) / 2.0, cy = (t->height - 1) / 2.0, r = 1;

    for (uint32_t y = 0; y < t->height; y++)
        for (uint32_t x = 0; x < t->width; x++)
            if (t->data[(size_t)y * t->width + x] < 250)
                r = fmax(r, hypot(x - cx, y - cy) + 1);
    return r;
}

/* A placed object: centre, bounding radius. */
typedef struct placed {
    double x, y, r;
} placed;

typedef struct canvas {
    truth_ght_image *im;
    rng *r;
    double bg;
    placed obj[64];
    int nobj;
} canvas;

/* A free spot of radius r (within the frame, apart from every placed object); 0 if none. */
static int
find_spot(canvas *cv, double r, double *x, double *y)
{
    double w = cv->im->width, h = cv->im->height;

    if (2 * r + 2 > w || 2 * r + 2 > h)
        return 0;
    for (int tries = 0; tries < 200; tries++) {
        int ok = 1;
        *x = truth_rng_uniform(cv->r, r + 1, w - r - 1);
        *y = truth_rng_uniform(cv->r, r + 1, h - r - 1);
        for (int k = 0; k < cv->nobj && ok; k++)
            ok = hypot(*x - cv->obj[k].x, *y - cv->obj[k].y) > r + cv->obj[k].r + TG_GAP;
        if (ok)
            return 1;
    }
    return 0;
}

static void
blend(canvas *cv, uint32_t x, uint32_t y, double cov, double colour)
{
    uint8_t *p = &cv->im->data[(size_t)y * cv->im->width + x];
    *p = (uint8_t)lround(*p * (1 - cov) + colour * cov);
}

/* Draws template t at pose (x, y, a, s) in colour. */
static void
draw_template(canvas *cv, const truth_ght_image *t, const truth_ght_pose *pose, double r,
              double colour)
{
    double a = pose->angle * TG_PI / 180, c = cos(a), s = sin(a);
    double tcx = (t->width - 1) / 2.0, tcy = (t->height - 1) / 2.0;
    int x0 = (int)floor(pose->x - r - 1), x1 = (int)ceil(pose->x + r + 1);
    int y0 = (int)floor(pose->y - r - 1), y1 = (int)ceil(pose->y + r + 1);

    for (int y = y0 < 0 ? 0 : y0; y <= y1 && (uint32_t)y < cv->im->height; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && (uint32_t)x < cv->im->width; x++) {
            double cov = 0;
            for (int sy = 0; sy < 2; sy++)
                for (int sx = 0; sx < 2; sx++) {
                    /* the inverse similarity: q = t + R(-a) (p - c) / s */
                    double dx = x + (sx + 0.5) / 2 - 0.5 - pose->x;
                    double dy = y + (sy + 0.5) / 2 - 0.5 - pose->y;
                    double u = (c * dx + s * dy) / pose->scale + tcx;
                    double v = (-s * dx + c * dy) / pose->scale + tcy;
                    cov += coverage(t, u, v) / 4;
                }
            if (cov > 0)
                blend(cv, (uint32_t)x, (uint32_t)y, cov, colour);
        }
}

/* Covers the part of the disc (x, y, r) beyond a chord: a fraction f of its extent along a
 * random direction, in the background colour. */
static void
occlude(canvas *cv, double px, double py, double r, double f)
{
    double a = truth_rng_uniform(cv->r, 0, 2 * TG_PI), ux = cos(a), uy = sin(a),
           lim = r * (1 - 2 * f);

    for (int y = (int)(py - r) - 1; y <= (int)(py + r) + 1; y++)
        for (int x = (int)(px - r) - 1; x <= (int)(px + r) + 1; x++) {
            double dx = x - px, dy = y - py;
            if (x < 0 || y < 0 || (uint32_t)x >= cv->im->width || (uint32_t)y >= cv->im->height ||
                hypot(dx, dy) > r + 1)
                continue;
            double t = dx * ux + dy * uy - lim;
            if (t > -0.5)
                blend(cv, (uint32_t)x, (uint32_t)y, t > 0.5 ? 1.0 : t + 0.5, cv->bg);
        }
}

/* A symmetric distractor: square, rectangle, circle or regular polygon. */
static void
draw_symmetric(canvas *cv)
{
    double r = truth_rng_uniform(cv->r, 15, 60), x, y, a = truth_rng_uniform(cv->r, 0, 2 * TG_PI);
    double colour = truth_rng_uniform(cv->r, 0, 70);
    int kind = (int)truth_rng_below(cv->r, 4),
        sides = kind == 3 ? (int)(3 + truth_rng_below(cv->r, 6)) : 4;
    double aspect = kind == 1 ? truth_rng_uniform(cv->r, 0.3, 0.7) : 1.0;
    prim p;

    if (!find_spot(cv, r, &x, &y))
        return;
    cv->obj[cv->nobj++] = (placed){x, y, r};
    if (kind == 2) {
        p = circle(0, 0, 0, 1);
    } else {
        double v[24];
        for (int k = 0; k < sides; k++) {
            double t = a + 2 * TG_PI * (k + 0.5) / sides, u = cos(t), w = sin(t) * aspect;
            v[2 * k] = u * cos(a) - w * sin(a);
            v[2 * k + 1] = u * sin(a) + w * cos(a);
        }
        p = poly(0, sides, v);
    }
    for (int py = (int)(y - r) - 1; py <= (int)(y + r) + 1; py++)
        for (int px = (int)(x - r) - 1; px <= (int)(x + r) + 1; px++) {
            int hits = 0;
            if (px < 0 || py < 0 || (uint32_t)px >= cv->im->width ||
                (uint32_t)py >= cv->im->height)
                continue;
            for (int sy = 0; sy < TG_SUPER; sy++)
                for (int sx = 0; sx < TG_SUPER; sx++)
                    hits += in_prims(&p, 1, (px + (sx + 0.5) / TG_SUPER - 0.5 - x) / r,
                                     (py + (sy + 0.5) / TG_SUPER - 0.5 - y) / r);
            if (hits > 0)
                blend(cv, (uint32_t)px, (uint32_t)py, (double)hits / (TG_SUPER * TG_SUPER),
                      colour);
        }
}

/* One template at a random pose (scale drawn again while it cannot fit); 0 when it found no
 * room. */
static int
place_template(canvas *cv, const truth_ght_image *t, truth_ght_pose *pose)
{
    double r0 = template_radius(t);

    for (int tries = 0; tries < 20; tries++) {
        pose->angle = truth_rng_uniform(cv->r, 0, 360);
        pose->scale = truth_rng_uniform(cv->r, 0.5, 2.0);
        if (find_spot(cv, r0 * pose->scale, &pose->x, &pose->y)) {
            cv->obj[cv->nobj++] = (placed){pose->x, pose->y, r0 * pose->scale};
            draw_template(cv, t, pose, r0 * pose->scale, truth_rng_uniform(cv->r, 0, 60));
            return 1;
        }
    }
    return 0;
}

static void
blur(truth_ght_image *im)
{
    size_t n = (size_t)im->width * im->height;
    uint8_t *src = malloc(n > 0 ? n : 1);

    if (src == NULL)
        return;
    memcpy(src, im->data, n);
    for (uint32_t y = 1; y + 1 < im->height; y++)
        for (uint32_t x = 1; x + 1 < im->width; x++) {
            const uint8_t *p = src + (size_t)y * im->width + x;
            int w = im->width;
            int acc = p[-w - 1] + 2 * p[-w] + p[-w + 1] + 2 * p[-1] + 4 * p[0] + 2 * p[1] +
                      p[w - 1] + 2 * p[w] + p[w + 1];
            im->data[(size_t)y * im->width + x] = (uint8_t)((acc + 8) / 16);
        }
    free(src);
}

static void
noise(truth_ght_image *im, rng *r, double sigma)
{
    for (size_t i = 0; i < (size_t)im->width * im->height; i++) {
        double v = im->data[i] + sigma * truth_rng_gauss(r);
        im->data[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
    }
}

/* What a family holds. */
typedef struct family_spec {
    int instances, symmetric, others, occlusion, blur;
    double noise;
} family_spec;

static const family_spec specs[TRUTH_GHT_FAMILIES] = {
    [TRUTH_GHT_CLEAN] = {1, 0, 0, 0, 0, 0},
    [TRUTH_GHT_SYMMETRIC] = {1, 5, 0, 0, 0, 0},
    [TRUTH_GHT_CLUTTER] = {2, 4, 2, 1, 1, 4},
    [TRUTH_GHT_MULTI] = {3, 3, 0, 0, 0, 3},
    [TRUTH_GHT_ABSENT] = {0, 5, 2, 0, 1, 4},
    [TRUTH_GHT_OVERLAP] = {0, 2, 0, 0, 0, 3}, /* instances: overlapped() */
    [TRUTH_GHT_OVERLAP_UPRIGHT] = {0, 2, 0, 0, 0, 3},
};

/* --- overlapping instances --- */

/* What the overlap families track: per pixel the instance on top (-1: none), per instance its
 * silhouette's pixels and how many of them later instances cover. */
typedef struct layers {
    int8_t *top;
    size_t area[TRUTH_GHT_MAX_INSTANCES], hidden[TRUTH_GHT_MAX_INSTANCES];
} layers;

/* Calls back for every pixel of the silhouette of t at pose (coverage of its centre >= 1/2). */
#define FOR_SILHOUETTE(im, t, pose, r, X, Y, BODY)                                                 \
    do {                                                                                           \
        double a_ = (pose)->angle * TG_PI / 180, c_ = cos(a_), s_ = sin(a_);                       \
        double tcx_ = ((t)->width - 1) / 2.0, tcy_ = ((t)->height - 1) / 2.0;                      \
        for (int Y = (int)floor((pose)->y - (r)) - 1; Y <= (int)ceil((pose)->y + (r)) + 1; Y++)    \
            for (int X = (int)floor((pose)->x - (r)) - 1; X <= (int)ceil((pose)->x + (r)) + 1;     \
                 X++) {                                                                            \
                double dx_ = X - (pose)->x, dy_ = Y - (pose)->y;                                   \
                if (X < 0 || Y < 0 || (uint32_t)X >= (im)->width || (uint32_t)Y >= (im)->height || \
                    coverage(t, (c_ * dx_ + s_ * dy_) / (pose)->scale + tcx_,                      \
                             (-s_ * dx_ + c_ * dy_) / (pose)->scale + tcy_) < 0.5)                 \
                    continue;                                                                      \
                BODY                                                                               \
            }                                                                                      \
    } while (0)

/* Whether instance k at pose would hide at most TRUTH_GHT_MAX_HIDDEN of every instance
 * under it. */
static int
overlap_fits(const canvas *cv, const layers *ly, const truth_ght_image *t,
             const truth_ght_pose *pose, double r, size_t k)
{
    size_t cover[TRUTH_GHT_MAX_INSTANCES] = {0};

    FOR_SILHOUETTE(cv->im, t, pose, r, x, y, {
        int8_t j = ly->top[(size_t)y * cv->im->width + x];
        if (j >= 0)
            cover[j]++;
    });
    for (size_t j = 0; j < k; j++)
        if ((double)(ly->hidden[j] + cover[j]) > TRUTH_GHT_MAX_HIDDEN * (double)ly->area[j])
            return 0;
    return 1;
}

/* A pose for instance k: beside a random earlier instance, overlapping it (centres 0.55 to
 * 1.05 of their radii's sum apart), within the frame; 0 when none fits. */
static int
overlap_pose(canvas *cv, const layers *ly, const truth_ght_image *t, double r0, size_t k,
             int upright, truth_ght_pose *pose)
{
    double w = cv->im->width, h = cv->im->height;

    for (int tries = 0; tries < 60; tries++) {
        double r, a, d;
        pose->angle = upright ? 0 : truth_rng_uniform(cv->r, 0, 360);
        pose->scale = upright ? 1 : truth_rng_uniform(cv->r, 0.6, 1.4);
        r = r0 * pose->scale;
        if (k == 0) {
            pose->x = truth_rng_uniform(cv->r, r + 1, w - r - 1);
            pose->y = truth_rng_uniform(cv->r, r + 1, h - r - 1);
        } else {
            const placed *o = &cv->obj[truth_rng_below(cv->r, (uint32_t)k)];
            a = truth_rng_uniform(cv->r, 0, 2 * TG_PI);
            d = truth_rng_uniform(cv->r, 0.55, 1.05) * (r + o->r);
            pose->x = o->x + d * cos(a);
            pose->y = o->y + d * sin(a);
        }
        if (2 * r + 2 <= w && 2 * r + 2 <= h && pose->x >= r + 1 && pose->x <= w - r - 1 &&
            pose->y >= r + 1 && pose->y <= h - r - 1 && overlap_fits(cv, ly, t, pose, r, k))
            return 1;
    }
    return 0;
}

/* 2 to 5 instances of t drawn over each other (the overlap families); returns how many.
 * Each has its own grey, TG_GREY_STEP levels from the others' (a permutation of the steps):
 * two instances of one grey merge, and the one on top loses its outline over the other. */
#define TG_GREY_STEP 35

static size_t
overlapped(canvas *cv, const truth_ght_image *t, int upright, truth_ght_pose *truth)
{
    size_t want = 2 + truth_rng_below(cv->r, 4), n = 0;
    double r0 = template_radius(t);
    int grey[TRUTH_GHT_MAX_INSTANCES];
    layers ly;

    for (int k = 0; k < TRUTH_GHT_MAX_INSTANCES; k++)
        grey[k] = k * TG_GREY_STEP;
    for (int k = TRUTH_GHT_MAX_INSTANCES - 1; k > 0; k--) {
        int j = (int)truth_rng_below(cv->r, (uint32_t)k + 1), g = grey[k];
        grey[k] = grey[j];
        grey[j] = g;
    }

    memset(&ly, 0, sizeof ly);
    ly.top = malloc((size_t)cv->im->width * cv->im->height);
    if (ly.top == NULL)
        return 0;
    memset(ly.top, -1, (size_t)cv->im->width * cv->im->height);
    for (; n < want && overlap_pose(cv, &ly, t, r0, n, upright, &truth[n]); n++) {
        double r = r0 * truth[n].scale;
        FOR_SILHOUETTE(cv->im, t, &truth[n], r, x, y, {
            int8_t *top = &ly.top[(size_t)y * cv->im->width + x];
            if (*top >= 0)
                ly.hidden[*top]++;
            *top = (int8_t)n;
            ly.area[n]++;
        });
        cv->obj[cv->nobj++] = (placed){truth[n].x, truth[n].y, r};
        draw_template(cv, t, &truth[n], r, grey[n]);
    }
    free(ly.top);
    return n;
}

/* The available shape of the index-th scene, and another one for a distractor. */
static truth_ght_shape
pick_shape(const truth_ght_image *templates, size_t index)
{
    size_t avail = 0, k = 0;

    for (int s = 0; s < TRUTH_GHT_SHAPES; s++)
        avail += templates[s].data != NULL;
    if (avail == 0)
        return TRUTH_GHT_SHAPES;
    index %= avail;
    for (int s = 0; s < TRUTH_GHT_SHAPES; s++)
        if (templates[s].data != NULL && k++ == index)
            return (truth_ght_shape)s;
    return TRUTH_GHT_SHAPES;
}

static void
draw_others(canvas *cv, const truth_ght_image *templates, truth_ght_shape shape, int n)
{
    for (int k = 0; k < n; k++) {
        truth_ght_shape o = pick_shape(templates, truth_rng_below(cv->r, 64));
        truth_ght_pose pose;
        if (o == shape || o == TRUTH_GHT_SHAPES)
            continue;
        place_template(cv, &templates[o], &pose);
    }
}

int
truth_ght_scene_make(truth_ght_family family, uint64_t seed, size_t index,
                     const truth_ght_image *templates, uint32_t width, uint32_t height,
                     truth_ght_scene *out)
{
    rng r = {seed * 0x100000001b3u ^ ((uint64_t)family << 40) ^ (uint64_t)index, 1};
    const family_spec *sp = &specs[family];
    canvas cv;

    memset(&cv, 0, sizeof cv);
    cv.im = &out->image;
    cv.r = &r;

    memset(out, 0, sizeof *out);
    out->shape = pick_shape(templates, index);
    if (out->shape == TRUTH_GHT_SHAPES)
        return -1;
    truth_rng_next(&r);
    cv.bg = truth_rng_uniform(&r, 190, 245);
    if (image_alloc(&out->image, width, height, (uint8_t)lround(cv.bg)) != 0)
        return -1;
    /* instances first: they get the room, distractors fill what is left */
    for (int k = 0; k < sp->instances && out->n < TRUTH_GHT_MAX_INSTANCES; k++) {
        truth_ght_pose *pose = &out->truth[out->n];
        if (!place_template(&cv, &templates[out->shape], pose))
            break;
        if (sp->occlusion && truth_rng_below(&r, 2) == 0)
            occlude(&cv, pose->x, pose->y, cv.obj[cv.nobj - 1].r, truth_rng_uniform(&r, 0.05, 0.2));
        out->n++;
    }
    if (family == TRUTH_GHT_OVERLAP || family == TRUTH_GHT_OVERLAP_UPRIGHT)
        out->n =
            overlapped(&cv, &templates[out->shape], truth_ght_family_upright(family), out->truth);
    for (int k = 0; k < sp->symmetric; k++)
        draw_symmetric(&cv);
    draw_others(&cv, templates, out->shape, sp->others);
    if (sp->blur)
        blur(&out->image);
    if (sp->noise > 0)
        noise(&out->image, &r, sp->noise);
    return 0;
}

int
truth_ght_issue_scene(const truth_ght_image *templ, double angle, double scale,
                      truth_ght_scene *out)
{
    rng r = {13, 1};
    canvas cv;

    memset(out, 0, sizeof *out);
    memset(&cv, 0, sizeof cv);
    cv.im = &out->image;
    cv.r = &r;
    cv.bg = 255;
    if (image_alloc(&out->image, 400, 300, 255) != 0)
        return -1;
    out->shape = TRUTH_GHT_SHIPPED;
    out->truth[0] = (truth_ght_pose){140, 150, angle, scale};
    out->n = 1;
    draw_template(&cv, templ, &out->truth[0], template_radius(templ) * scale, 0);
    for (uint32_t y = 0; y < 300; y++)
        for (uint32_t x = 0; x < 400; x++) {
            double dc = fabs(hypot(x - 320.0, y - 80.0) - 40);
            double ds = fmax(fabs(x - 320.0), fabs(y - 220.0)) - 40;
            if (dc <= 1 || (ds <= 1 && ds > -1))
                out->image.data[(size_t)y * 400 + x] = 0;
        }
    return 0;
}

/* --- opencv_contrib's scene --- */

/* The template's value at (u, v), bilinear; -1 outside. */
static double
sample(const truth_ght_image *t, double u, double v)
{
    int x0 = (int)floor(u), y0 = (int)floor(v);
    double fx = u - x0, fy = v - y0, acc = 0;

    if (x0 < 0 || y0 < 0 || (uint32_t)x0 >= t->width || (uint32_t)y0 >= t->height)
        return -1;
    for (int dy = 0; dy <= 1; dy++)
        for (int dx = 0; dx <= 1; dx++) {
            int x = x0 + dx < (int)t->width ? x0 + dx : x0,
                y = y0 + dy < (int)t->height ? y0 + dy : y0;
            acc += (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy) * t->data[(size_t)y * t->width + x];
        }
    return acc;
}

/* Pastes t turned by angle and scaled about its centre, which lands on (X, Y), with the box
 * around it (black outside t). */
static void
paste_turned(truth_ght_image *im, const truth_ght_image *t, double X, double Y, double angle,
             double scale)
{
    double a = angle * TG_PI / 180, c = cos(a), s = sin(a);
    double tcx = (t->width - 1) / 2.0, tcy = (t->height - 1) / 2.0;
    double hw = (fabs(c) * t->width + fabs(s) * t->height) * scale / 2;
    double hh = (fabs(s) * t->width + fabs(c) * t->height) * scale / 2;

    for (long y = lround(Y - hh); y <= lround(Y + hh); y++)
        for (long x = lround(X - hw); x <= lround(X + hw); x++) {
            double dx = x - X, dy = y - Y, v;
            if (x < 0 || y < 0 || (uint32_t)x >= im->width || (uint32_t)y >= im->height)
                continue;
            v = sample(t, (c * dx + s * dy) / scale + tcx, (-s * dx + c * dy) / scale + tcy);
            im->data[(size_t)y * im->width + x] = (uint8_t)(v < 0 ? 0 : lround(v));
        }
}

int
truth_ght_contrib_scene(const truth_ght_image *templ, double angle, double scale,
                        truth_ght_scene *out)
{
    uint32_t w = templ->width, h = templ->height;
    const uint32_t x0[3] = {10, w / 2 + 40, w / 2 + 40}, y0[3] = {10, 10, h / 2 + 40};

    memset(out, 0, sizeof *out);
    if (image_alloc(&out->image, 3 * w, 3 * h, 0) != 0)
        return -1;
    out->shape = TRUTH_GHT_SHIPPED;
    out->n = 3;
    for (int k = 0; k < 3; k++) {
        out->truth[k] = (truth_ght_pose){x0[k] + (w - 1) / 2.0, y0[k] + (h - 1) / 2.0, 0, 1};
        if (k < 2 || (angle == 0 && scale == 1))
            for (uint32_t y = 0; y < h; y++)
                memcpy(out->image.data + (size_t)(y0[k] + y) * 3 * w + x0[k],
                       templ->data + (size_t)y * w, w);
    }
    if (angle != 0 || scale != 1) {
        out->truth[2].angle = angle;
        out->truth[2].scale = scale;
        paste_turned(&out->image, templ, out->truth[2].x, out->truth[2].y, angle, scale);
    }
    return 0;
}

/* --- the metric --- */

static double
angle_diff(double a, double b)
{
    double d = fmod(fabs(a - b), 360.0);
    return d > 180 ? 360 - d : d;
}

void
truth_ght_score_poses(const truth_ght_scene *scene, const truth_ght_pose *poses, size_t n,
                      truth_ght_score *out)
{
    int used[TRUTH_GHT_MAX_INSTANCES] = {0};

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        int hit = -1;
        for (size_t k = 0; k < scene->n && hit < 0; k++) {
            const truth_ght_pose *t = &scene->truth[k];
            if (!used[k] && hypot(poses[i].x - t->x, poses[i].y - t->y) <= TRUTH_GHT_POS &&
                angle_diff(poses[i].angle, t->angle) <= TRUTH_GHT_ANGLE &&
                fabs(poses[i].scale / t->scale - 1) <= TRUTH_GHT_SCALE)
                hit = (int)k;
        }
        if (hit < 0) {
            out->false_poses++;
            continue;
        }
        used[hit] = 1;
        out->found++;
        if (out->first_true == 0)
            out->first_true = i + 1;
        out->pos_err += hypot(poses[i].x - scene->truth[hit].x, poses[i].y - scene->truth[hit].y);
        out->angle_err += angle_diff(poses[i].angle, scene->truth[hit].angle);
        out->scale_err += fabs(poses[i].scale / scene->truth[hit].scale - 1);
    }
}
