/* votecl ght: a template found in an image by the generalized Hough transform (Guil's fast
 * GHT or Ballard's R-table), poses as text or JSON and an annotated PNG. Shared with the
 * demo and the bench: tool_ght_detect() and tool_ght_annotate(). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "options.h"
#include "tool.h"

#define GHT_MAX_SHOWN 64

typedef struct ght_args {
    const char *paths[2]; /* template, image */
    const char *out_path;
    votecl_ght_params params;
} ght_args;

static void
ght_usage(FILE *f)
{
    fprintf(f,
            "usage: votecl ght TEMPLATE IMAGE [--method guil|ballard] [--pairing auto|lb|ssm]\n"
            "                  [--levels L] [--dp P] [--min-dist D] [--min-angle A]\n"
            "                  [--max-angle A] [--angle-step A] [--min-scale S] [--max-scale S]\n"
            "                  [--scale-step S] [--min-confidence C] [--max N] [--json]\n"
            "                  [--angle-share A] [--max-rotations N] [--max-scales N]\n"
            "                  [--out OUT.png]\n"
            "Finds the template (PNG, PGM or PPM) in the image: the template's centre (x, y),\n"
            "rotation in degrees and scale of every pose, most votes first, as text or JSON.\n"
            "  --method M       guil (fast GHT, default) or ballard (R-table); sets that\n"
            "                   method's defaults, so give it before the other options\n"
            "  --pairing P      Guil on a device: auto (default), lb or ssm\n"
            "  --levels L       gradient angle bins over 360 degrees (default 360)\n"
            "  --dp P           position cell side in pixels (default 2)\n"
            "  --min-dist D     least distance between two poses (default 10)\n"
            "  --min-angle, --max-angle, --angle-step   the rotation search, degrees\n"
            "  --min-scale, --max-scale, --scale-step   the scale search\n"
            "  --min-confidence C  least share of the template's edges a pose must find in\n"
            "                   the image, [0, 1] (default 0.7; 0 reports every candidate)\n"
            "  --angle-share A  Guil: least share of the template's pairings a rotation's O\n"
            "                   correlation explains (default 0.15)\n"
            "  --max-rotations N, --max-scales N   Guil: rotations examined at most, scales\n"
            "                   per rotation (defaults 16, 2)\n"
            "  --max N          at most N poses (default 0: all, shown up to %d)\n"
            "  --out FILE       the image with the poses drawn (PNG, or PPM for .ppm)\n",
            GHT_MAX_SHOWN);
}

/* --- arguments --- */

static int
method_option(ght_args *a, int argc, char **argv, int *i)
{
    const char *v = NULL;
    int r;
    if ((r = tool_option_value(argc, argv, i, "--method", &v)) > 0) {
        votecl_ght_params keep = a->params;
        if (strcmp(v, "guil") != 0 && strcmp(v, "ballard") != 0)
            return (tool_usage_error("ght", "--method: '%s' is neither guil nor ballard", v), -1);
        votecl_ght_params_init(&a->params,
                               v[0] == 'g' ? VOTECL_GHT_GUIL : VOTECL_GHT_BALLARD);
        a->params.pairing = keep.pairing;
        return 1;
    }
    if (r == 0 && (r = tool_option_value(argc, argv, i, "--pairing", &v)) > 0) {
        if (strcmp(v, "auto") == 0)
            a->params.pairing = VOTECL_GHT_PAIRING_AUTO;
        else if (strcmp(v, "lb") == 0)
            a->params.pairing = VOTECL_GHT_PAIRING_LB;
        else if (strcmp(v, "ssm") == 0)
            a->params.pairing = VOTECL_GHT_PAIRING_SSM;
        else
            return (tool_usage_error("ght", "--pairing: '%s' is not auto, lb or ssm", v), -1);
    }
    return r;
}

/* The options votecl ght shares with its batch case (members of votecl_ght_params). */
static const tool_option_spec ght_param_options[] = {
    TOOL_OPT_DOUBLE(votecl_ght_params, min_angle, "--min-angle"),
    TOOL_OPT_DOUBLE(votecl_ght_params, max_angle, "--max-angle"),
    TOOL_OPT_DOUBLE(votecl_ght_params, angle_step, "--angle-step"),
    TOOL_OPT_DOUBLE(votecl_ght_params, min_scale, "--min-scale"),
    TOOL_OPT_DOUBLE(votecl_ght_params, max_scale, "--max-scale"),
    TOOL_OPT_DOUBLE(votecl_ght_params, scale_step, "--scale-step"),
    TOOL_OPT_DOUBLE(votecl_ght_params, min_dist, "--min-dist"),
    TOOL_OPT_NUMBER(votecl_ght_params, levels, "--levels", VOTECL_GHT_MAX_LEVELS),
    TOOL_OPT_NUMBER(votecl_ght_params, dp, "--dp", 1000),
    TOOL_OPT_NUMBER(votecl_ght_params, max_detections, "--max", 1000000),
};

/* The single command's own. */
static const tool_option_spec ght_options[] = {
    TOOL_OPT_STRING(ght_args, out_path, "--out"),
    TOOL_OPT_DOUBLE(ght_args, params.min_confidence, "--min-confidence"),
    TOOL_OPT_DOUBLE(ght_args, params.angle_share, "--angle-share"),
    TOOL_OPT_NUMBER(ght_args, params.max_rotations, "--max-rotations", 100000),
    TOOL_OPT_NUMBER(ght_args, params.max_scales, "--max-scales", 100000),
};

int
tool_ght_param_option(votecl_ght_params *params, int argc, char **argv, int *i)
{
    return tool_option_table(ght_param_options, TOOL_OPTION_COUNT(ght_param_options), params, argc,
                             argv, i);
}

static int
ght_option(void *args, int argc, char **argv, int *i)
{
    ght_args *a = args;
    int r;
    if ((r = method_option(a, argc, argv, i)) != 0 ||
        (r = tool_option_table(ght_options, TOOL_OPTION_COUNT(ght_options), a, argc, argv, i)) != 0)
        return r;
    return tool_ght_param_option(&a->params, argc, argv, i);
}

/* TEMPLATE and IMAGE with the options around them (--method first resets the others). */
static int
ght_parse(tool_options *options, ght_args *a, int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        int r = tool_command_option(options, "ght", ght_option, a, argc, argv, &i);
        if (r < 0)
            return TOOL_EXIT_USAGE;
        if (r > 0)
            continue;
        if (n == 2)
            return tool_usage_error("ght", "TEMPLATE and IMAGE only ('%s')", argv[i]);
        a->paths[n++] = argv[i];
    }
    if (!options->help && n < 2)
        return tool_usage_error("ght", "%s missing", n == 0 ? "TEMPLATE" : "IMAGE");
    return TOOL_EXIT_OK;
}

/* --- the work, shared with the demo and the bench --- */

static int
gray_u8(const tool_image *image, tool_image *gray)
{
    char error[600];
    return tool_gray_u8(image, gray, error, sizeof error);
}

/* The bytes the tool holds for an image: its decoded pixels and a gray u8 copy. */
static uint64_t
held_bytes(const tool_image *image)
{
    return (uint64_t)image->stride * image->height + (uint64_t)image->width * image->height;
}

uint64_t
tool_ght_memory_limit(const tool_image *templ, const tool_image *image)
{
    uint64_t budget = tool_memory_budget(), held = held_bytes(templ) + held_bytes(image);

    return budget > held ? budget - held : 1;
}

votecl_status
tool_ght_detect(votecl_context *ctx, const votecl_ght_params *params, const tool_image *templ,
                const tool_image *image, votecl_ght_pose *poses, size_t capacity,
                size_t *found, votecl_ght_stats *stats, double *seconds)
{
    tool_image tg = {0}, ig = {0};
    votecl_ght_model *model = NULL;
    votecl_image tv, iv;
    votecl_status st = VOTECL_INVALID_ARGUMENT;
    double t0;

    if (gray_u8(templ, &tg) < 0 || gray_u8(image, &ig) < 0)
        goto out;
    tv = tool_image_view(&tg);
    iv = tool_image_view(&ig);
    if ((st = votecl_ght_model_new(ctx, params, &tv, &model)) != VOTECL_OK ||
        (st = votecl_ght_detect(model, &iv, poses, capacity, found)) != VOTECL_OK)
        goto out;
    t0 = tool_now(); /* timed is the second detection: the first may set the device up */
    st = votecl_ght_detect(model, &iv, poses, capacity, found);
    *seconds = tool_now() - t0;
    if (st == VOTECL_OK && stats != NULL)
        st = votecl_ght_model_last_stats(model, stats);
out:
    votecl_ght_model_free(model);
    tool_image_free(&tg);
    tool_image_free(&ig);
    return st;
}

static void
put(tool_image *o, long x, long y)
{
    static const unsigned char rgb[3] = {255, 40, 40};
    if (x < 0 || y < 0 || (size_t)x >= o->width || (size_t)y >= o->height)
        return;
    memcpy(&o->data[(size_t)y * o->stride + 3 * (size_t)x], rgb, 3);
}

static void
segment(tool_image *o, double x0, double y0, double x1, double y1)
{
    long n = (long)ceil(fmax(fabs(x1 - x0), fabs(y1 - y0))) + 1;
    for (long k = 0; k <= n; k++)
        put(o, lround(x0 + (x1 - x0) * k / n), lround(y0 + (y1 - y0) * k / n));
}

/* The template's box at a pose, its top edge doubled to show the rotation. */
static void
draw_pose(tool_image *o, const votecl_ght_pose *p, double tw, double th)
{
    double c = cos(p->angle * M_PI / 180) * p->scale, s = sin(p->angle * M_PI / 180) * p->scale;
    double u[4] = {-tw / 2, tw / 2, tw / 2, -tw / 2}, v[4] = {-th / 2, -th / 2, th / 2, th / 2};
    double x[4], y[4];
    for (int k = 0; k < 4; k++) {
        x[k] = p->x + c * u[k] - s * v[k];
        y[k] = p->y + s * u[k] + c * v[k];
    }
    for (int k = 0; k < 4; k++)
        segment(o, x[k], y[k], x[(k + 1) % 4], y[(k + 1) % 4]);
    segment(o, x[0] + s, y[0] - c, x[1] + s, y[1] - c);
    segment(o, p->x - 3, p->y, p->x + 3, p->y);
    segment(o, p->x, p->y - 3, p->x, p->y + 3);
}

int
tool_ght_annotate(const tool_image *image, const votecl_ght_pose *poses, size_t n, double tw,
                  double th, tool_image *o, char *error, size_t size)
{
    tool_image g = {0};
    if (gray_u8(image, &g) < 0 ||
        tool_image_alloc(o, image->width, image->height, 3, VOTECL_DTYPE_U8, error, size) < 0) {
        tool_image_free(&g);
        return -1;
    }
    for (size_t y = 0; y < image->height; y++)
        for (size_t x = 0; x < image->width; x++)
            memset(&o->data[y * o->stride + 3 * x], g.data[y * g.stride + x] * 3 / 4, 3);
    for (size_t i = 0; i < n; i++)
        draw_pose(o, &poses[i], tw, th);
    tool_image_free(&g);
    return 0;
}

/* --- output --- */

static const char *
pairing_name(votecl_ght_pairing p)
{
    return p == VOTECL_GHT_PAIRING_LB ? "lb" : p == VOTECL_GHT_PAIRING_SSM ? "ssm" : "auto";
}

void
tool_json_ght_parameters(tool_json *j, const votecl_ght_params *p, votecl_ght_pairing pairing)
{
    tool_json_parameters(j);
    tool_json_kv_string(j, "method", p->method == VOTECL_GHT_GUIL ? "guil" : "ballard");
    tool_json_kv_string(j, "pairing", pairing_name(pairing));
    tool_json_kv_uint(j, "levels", p->levels);
    tool_json_kv_uint(j, "dp", p->dp);
    tool_json_kv_double(j, "min_dist", p->min_dist);
    tool_json_kv_double(j, "min_angle", p->min_angle);
    tool_json_kv_double(j, "max_angle", p->max_angle);
    tool_json_kv_double(j, "angle_step", p->angle_step);
    tool_json_kv_double(j, "min_scale", p->min_scale);
    tool_json_kv_double(j, "max_scale", p->max_scale);
    tool_json_kv_double(j, "scale_step", p->scale_step);
}

static void
print_json(const ght_args *a, const votecl_ght_pose *poses, size_t shown, size_t found,
           const votecl_ght_stats *stats, double seconds)
{
    tool_json j;
    tool_json_document(&j, stdout, "ght");
    tool_json_ght_parameters(&j, &a->params, stats->pairing);
    tool_json_results(&j);
    tool_json_kv_uint(&j, "template_edges", stats->template_edges);
    tool_json_kv_uint(&j, "edges", stats->image_edges);
    tool_json_kv_uint(&j, "image_pairings", stats->image_pairings);
    tool_json_kv_double(&j, "seconds", seconds);
    tool_json_kv_double(&j, "edges_seconds", stats->edges_seconds);
    tool_json_kv_double(&j, "pairing_seconds", stats->pairing_seconds);
    tool_json_kv_uint(&j, "found", found);
    tool_json_key(&j, "poses");
    tool_json_begin_array(&j);
    for (size_t i = 0; i < shown; i++) {
        tool_json_begin_object(&j);
        tool_json_kv_double(&j, "x", poses[i].x);
        tool_json_kv_double(&j, "y", poses[i].y);
        tool_json_kv_double(&j, "angle", poses[i].angle);
        tool_json_kv_double(&j, "scale", poses[i].scale);
        tool_json_kv_double(&j, "confidence", poses[i].confidence);
        tool_json_kv_uint(&j, "votes", poses[i].votes);
        tool_json_kv_uint(&j, "angle_votes", poses[i].angle_votes);
        tool_json_kv_uint(&j, "scale_votes", poses[i].scale_votes);
        tool_json_end_object(&j);
    }
    tool_json_end_array(&j);
    tool_json_document_end(&j);
}

static void
print_text(const ght_args *a, const votecl_ght_pose *poses, size_t shown, size_t found,
           const votecl_ght_stats *stats, double seconds)
{
    printf("%s: %zu poses in %.3f ms (template %zu edges; image %zu edges, %zu pairings%s%s)\n",
           a->params.method == VOTECL_GHT_GUIL ? "guil" : "ballard", found, seconds * 1e3,
           stats->template_edges, stats->image_edges, stats->image_pairings,
           a->params.method == VOTECL_GHT_GUIL ? ", pairing " : "",
           a->params.method == VOTECL_GHT_GUIL ? pairing_name(stats->pairing) : "");
    for (size_t i = 0; i < shown; i++)
        printf("%3zu  x %8.2f  y %8.2f  angle %7.2f  scale %5.3f  confidence %.3f  votes %u\n",
               i + 1, poses[i].x, poses[i].y, poses[i].angle, poses[i].scale,
               poses[i].confidence, poses[i].votes);
}

static int
ght_output(tool_options *o, const ght_args *a, const tool_image *images,
           const votecl_ght_pose *poses, size_t found, const votecl_ght_stats *stats,
           double seconds)
{
    size_t shown = found < GHT_MAX_SHOWN ? found : GHT_MAX_SHOWN;
    tool_image out = {0};
    char error[600];
    int rc = TOOL_EXIT_OK;

    if (o->json)
        print_json(a, poses, shown, found, stats, seconds);
    else
        print_text(a, poses, shown, found, stats, seconds);
    if (a->out_path == NULL)
        return rc;
    if (tool_ght_annotate(&images[1], poses, shown, (double)images[0].width,
                          (double)images[0].height, &out, error, sizeof error) < 0 ||
        tool_image_write(a->out_path, &out, error, sizeof error) < 0) {
        fprintf(stderr, "votecl ght: %s\n", error);
        rc = TOOL_EXIT_FAILURE;
    }
    tool_image_free(&out);
    return rc;
}

int
tool_cmd_ght(tool_options *options, int argc, char **argv)
{
    ght_args a = {0};
    tool_image images[2] = {{0}, {0}};
    votecl_ght_pose poses[GHT_MAX_SHOWN];
    votecl_ght_stats stats = {0};
    votecl_context *ctx = NULL;
    char error[600];
    size_t found = 0;
    double seconds = 0;
    votecl_status st;
    int rc;

    votecl_ght_params_init(&a.params, VOTECL_GHT_GUIL);
    if ((rc = ght_parse(options, &a, argc, argv)) != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        ght_usage(stdout);
        return TOOL_EXIT_OK;
    }
    tool_image_limits("ght"); /* an image over them is refused from its header */
    for (int k = 0; k < 2; k++)
        if (tool_image_read(a.paths[k], &images[k], error, sizeof error) < 0) {
            fprintf(stderr, "votecl ght: %s\n", error);
            rc = TOOL_EXIT_FAILURE;
            goto out;
        }
    if ((rc = tool_context_open(options, &ctx)) != TOOL_EXIT_OK)
        goto out;
    a.params.memory_limit = tool_ght_memory_limit(&images[0], &images[1]);
    st = tool_ght_detect(ctx, &a.params, &images[0], &images[1], poses, GHT_MAX_SHOWN, &found,
                         &stats, &seconds);
    rc = st != VOTECL_OK ? tool_fail(ctx, st, "ght")
                         : ght_output(options, &a, images, poses, found, &stats, seconds);
out:
    votecl_context_free(ctx);
    tool_image_free(&images[0]);
    tool_image_free(&images[1]);
    return rc;
}
