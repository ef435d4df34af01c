/* The generalized Hough transform's truth suite: seeded scenes whose poses are known.
 *
 * A template is a dark silhouette on a light background (as tools/images/templ.png): the
 * shipped template given by the caller, or one generated here (letters, irregular polygons,
 * tool-like silhouettes). A scene is a light background holding instances of one template,
 * each placed by the similarity p = c + s R(a) (q - t) of template pixel q (t: the template's
 * centre ((W - 1) / 2, (H - 1) / 2), R(a) the library's rotation: (u, v) to
 * (u cos a - v sin a, u sin a + v cos a)), with a uniform in [0, 360) and s in [0.5, 2],
 * among distractors with rotational symmetry (squares, rectangles, circles, regular polygons)
 * and other shapes (the other templates), with partial occlusion, noise and blur as the case
 * family asks. Instances and distractors never overlap, except in the overlap families, where
 * instances are drawn over each other (each hiding at most TRUTH_GHT_MAX_HIDDEN of the
 * silhouette of every instance under it); an occluder covers up to 20% of an instance's extent
 * along a random direction with background.
 *
 * The metric (truth_ght_score): a pose matches a planted pose when its centre is within
 * TRUTH_GHT_POS pixels, its angle within TRUTH_GHT_ANGLE degrees (on the circle) and its
 * scale within TRUTH_GHT_SCALE of the planted one (relative); each planted pose is matched
 * at most once, the best-ranked pose first. tools/eval-ght.py applies the same rule. */
#ifndef VOTECL_TRUTH_GHT_H
#define VOTECL_TRUTH_GHT_H

#include <stddef.h>
#include <stdint.h>

#define TRUTH_GHT_POS 2.0
#define TRUTH_GHT_ANGLE 1.0
#define TRUTH_GHT_SCALE 0.02
#define TRUTH_GHT_MAX_INSTANCES 5
/* Most of an instance's silhouette that instances drawn after it cover (overlap families). */
#define TRUTH_GHT_MAX_HIDDEN 0.25

/* A packed u8 gray image (owned by its holder; free with truth_ght_image_free). */
typedef struct truth_ght_image {
    uint8_t *data;
    uint32_t width, height;
} truth_ght_image;

typedef struct truth_ght_pose {
    double x, y, angle, scale;
} truth_ght_pose;

/* The case families. */
typedef enum truth_ght_family {
    TRUTH_GHT_CLEAN,     /* one instance, nothing else */
    TRUTH_GHT_SYMMETRIC, /* one instance among symmetric distractors */
    TRUTH_GHT_CLUTTER,   /* one or two instances, symmetric and other shapes, occlusion, noise, blur
                          */
    TRUTH_GHT_MULTI,     /* three instances among distractors, noise */
    TRUTH_GHT_ABSENT,    /* no instance: symmetric and other shapes, noise, blur */
    TRUTH_GHT_OVERLAP,   /* 2-5 instances (scales 0.6-1.4), each later one drawn over earlier
                          * ones, hiding at most TRUTH_GHT_MAX_HIDDEN of each; symmetric
                          * distractors, noise */
    TRUTH_GHT_OVERLAP_UPRIGHT, /* the same, every instance unrotated at scale 1 (Ballard's
                                * default search) */
    TRUTH_GHT_FAMILIES
} truth_ght_family;

/* The family's name ("clean", ...). */
const char *truth_ght_family_name(truth_ght_family family);
/* Whether every instance of the family is unrotated at scale 1 (what Ballard's default search
 * finds). */
int truth_ght_family_upright(truth_ght_family family);

/* The generated templates. */
typedef enum truth_ght_shape {
    TRUTH_GHT_SHIPPED,  /* the caller's template (tools/images/templ.png) */
    TRUTH_GHT_LETTER_F,
    TRUTH_GHT_LETTER_R, /* an R of strokes, with its bowl */
    TRUTH_GHT_POLYGON,  /* an irregular star-shaped polygon */
    TRUTH_GHT_WRENCH,   /* handle and an open jaw */
    TRUTH_GHT_HAMMER,
    TRUTH_GHT_SHAPES
} truth_ght_shape;

const char *truth_ght_shape_name(truth_ght_shape shape);

/* The template of shape (TRUTH_GHT_SHIPPED: a copy of shipped, which may be NULL, then the
 * shape is not available). out: caller-owned. Returns 0, or -1 when out of memory or
 * unavailable. */
int truth_ght_template(truth_ght_shape shape, const truth_ght_image *shipped,
                       truth_ght_image *out);

typedef struct truth_ght_scene {
    truth_ght_image image;
    truth_ght_shape shape; /* the template searched for */
    truth_ght_pose truth[TRUTH_GHT_MAX_INSTANCES];
    size_t n;              /* planted instances (0 in TRUTH_GHT_ABSENT) */
} truth_ght_scene;

/* Scene `index` of family (width x height, seeded by seed, family and index) with instances
 * of templates[shape] (templates: TRUTH_GHT_SHAPES entries; an entry with data NULL is not
 * used, neither as the searched shape nor as a distractor). The shape cycles over the
 * available ones with index. out: caller-owned. Returns 0, or -1 when out of memory. */
int truth_ght_scene_make(truth_ght_family family, uint64_t seed, size_t index,
                         const truth_ght_image *templates, uint32_t width, uint32_t height,
                         truth_ght_scene *out);
void truth_ght_scene_free(truth_ght_scene *scene);

/* Issue 13's scene: a white 400x300 image holding templ (black on white, as templ.png) at
 * (140, 150) under angle and scale, a circle outline (centre (320, 80), radius 40) and a square
 * outline ((280, 180) to (360, 260)), two pixels wide. out: caller-owned; -1 when out of
 * memory. */
int truth_ght_issue_scene(const truth_ght_image *templ, double angle, double scale,
                          truth_ght_scene *out);
void truth_ght_image_free(truth_ght_image *image);

/* opencv_contrib's GeneralizedHough scene (modules/cudaimgproc/test/test_hough.cpp): three
 * copies of templ (W x H, as templ.png) in a black 3W x 3H image, pasted whole with their
 * top-left corners at (10, 10), (W / 2 + 40, 10), (W / 2 + 40, H / 2 + 40) (integer halves:
 * the test's centres (cx + 10, cy + 10), (2 cx + 40, cy + 10), (2 cx + 40, 2 cy + 40) with
 * cx = W / 2, cy = H / 2), each over the ones before. The third copy is turned by angle and
 * scaled by scale about its centre (the library's sense; bilinear) and pasted with the whole
 * axis-aligned box around it, black where the template is not (as cv2.warpAffine into a
 * canvas of that box would give); angle 0 and scale 1 paste it unchanged. The truth holds the
 * copies' centres in the library's convention (x0 + (W - 1) / 2, y0 + (H - 1) / 2), half a
 * pixel from the test's for even sides. out: caller-owned; -1 when out of memory. */
int truth_ght_contrib_scene(const truth_ght_image *templ, double angle, double scale,
                            truth_ght_scene *out);

/* A detector's poses (ranked, best first) scored against a scene's truth. */
typedef struct truth_ght_score {
    size_t found;      /* planted poses matched */
    size_t false_poses; /* poses matching no planted pose */
    size_t first_true;  /* 1-based rank of the first matching pose, 0: none */
    double pos_err, angle_err, scale_err; /* summed over the matched poses */
} truth_ght_score;

/* Scores n poses (borrowed, best first) against scene's truth. */
void truth_ght_score_poses(const truth_ght_scene *scene, const truth_ght_pose *poses, size_t n,
                           truth_ght_score *out);

#endif
