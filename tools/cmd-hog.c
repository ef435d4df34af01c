/* votecl hog: people (or a given model's objects) in an image by HOG and a linear SVM, boxes
 * and scores as text or JSON, an annotated PNG, and the descriptors of every window. Shared
 * with the demo and the bench: tool_hog_detect(). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "options.h"
#include "tool.h"

#define HOG_MAX_SHOWN 20000

typedef struct hog_args {
    const char *image_path, *out_path, *model_path, *descriptors_path;
    int group, gray, fusion, fusion_set;
    votecl_hog_params params;
} hog_args;

static void
hog_usage(FILE *f)
{
    fprintf(f, "usage: votecl hog IMAGE [--model FILE] [--scale s] [--stride n] [--padding n]\n"
               "                 [--threshold t] [--group] [--fusion F] [--gray] [--json]\n"
               "                 [--block-norm N] [--binning B] [--out OUT.png]\n"
               "                 [--descriptors FILE]\n"
               "People in a PNG, PGM or PPM image: HOG descriptors (64x128 windows, OpenCV's\n"
               "layout) scored by a linear SVM at every pyramid level, grouped as OpenCV does.\n"
               "  --model FILE        a votecl-hog-model file or OpenCV's (YAML or XML)\n"
               "                      (default: the people detector)\n"
               "  --scale s           pyramid ratio (default 1.05)\n"
               "  --stride n          window stride in pixels (default 8)\n"
               "  --padding n         pixels added on each side (default 0)\n"
               "  --threshold t       least SVM score (default 0)\n"
               "  --group             OpenCV's groupRectangles (the default)\n"
               "  --fusion F          group (default), meanshift or none (every window)\n"
               "  --gray              gray gradients instead of the largest colour channel\n"
               "  --block-norm N      L2-Hys (default, OpenCV's), or scikit-image's L1, L1-sqrt\n"
               "                      or L2 (block_norm)\n"
               "  --binning B         trilinear (default, OpenCV's) or hard (scikit-image's:\n"
               "                      one cell and one orientation bin per pixel)\n"
               "  --out FILE          the image with the boxes drawn\n"
               "  --descriptors FILE  the descriptors of every window at scale 1: NumPy .npy\n"
               "                      (windows x length float32) when FILE ends in .npy, else\n"
               "                      raw float32\n");
}

/* The command's plain options. */
static const tool_option_spec hog_options[] = {
    TOOL_OPT_FLAG(hog_args, group, "--group"),
    TOOL_OPT_FLAG(hog_args, gray, "--gray"),
    TOOL_OPT_STRING(hog_args, out_path, "--out"),
    TOOL_OPT_STRING(hog_args, model_path, "--model"),
    TOOL_OPT_STRING(hog_args, descriptors_path, "--descriptors"),
    TOOL_OPT_DOUBLE(hog_args, params.scale, "--scale"),
    TOOL_OPT_DOUBLE(hog_args, params.hit_threshold, "--threshold"),
};

static int
fusion_option(hog_args *a, int argc, char **argv, int *i)
{
    const char *v = NULL;
    int r = tool_option_value(argc, argv, i, "--fusion", &v);
    if (r <= 0)
        return r;
    if (strcmp(v, "none") == 0)
        a->fusion = VOTECL_HOG_FUSION_NONE;
    else if (strcmp(v, "meanshift") == 0)
        a->fusion = VOTECL_HOG_FUSION_MEANSHIFT;
    else if (strcmp(v, "group") == 0)
        a->fusion = VOTECL_HOG_FUSION_GROUP;
    else {
        fprintf(stderr, "votecl hog: --fusion: '%s' is not none, meanshift or group\n", v);
        return -1;
    }
    return a->group = 0, a->fusion_set = 1, 1;
}

/* --name N: both members (x and y) set to N in [min, 1024]. */
static int
pair_option(const char *name, unsigned long min, unsigned *x, unsigned *y, int argc, char **argv,
            int *i)
{
    unsigned long v;
    int r = tool_option_range(argc, argv, i, name, min, 1024, &v);
    if (r > 0)
        *x = *y = (unsigned)v;
    return r;
}

/* A named value of an option (scikit-image's block_norm names; the binnings). */
typedef struct hog_name {
    const char *name;
    int value;
} hog_name;

static const hog_name block_norms[] = {{"L2-Hys", VOTECL_HOG_NORM_L2HYS},
                                       {"L1", VOTECL_HOG_NORM_L1},
                                       {"L1-sqrt", VOTECL_HOG_NORM_L1_SQRT},
                                       {"L2", VOTECL_HOG_NORM_L2}};
static const hog_name binnings[] = {{"trilinear", VOTECL_HOG_BINNING_TRILINEAR},
                                    {"hard", VOTECL_HOG_BINNING_HARD}};

/* The value named v of option's table of n names into *out; -1 after telling the names. */
static int
hog_named(const char *option, const char *v, const hog_name *table, size_t n, int *out)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(v, table[k].name) == 0)
            return *out = table[k].value, 1;
    fprintf(stderr, "votecl hog: %s: '%s' is not", option, v);
    for (size_t k = 0; k < n; k++)
        fprintf(stderr, "%s %s", k == 0 ? "" : k + 1 < n ? "," : " or", table[k].name);
    fprintf(stderr, "\n");
    return -1;
}

/* The name of value in table (n names), "?" for none. */
static const char *
hog_name_of(const hog_name *table, size_t n, int value)
{
    for (size_t k = 0; k < n; k++)
        if (table[k].value == value)
            return table[k].name;
    return "?";
}

int
tool_hog_mode_option(votecl_hog_params *params, int argc, char **argv, int *i)
{
    const char *v = NULL;
    int r, x;

    if ((r = tool_option_value(argc, argv, i, "--block-norm", &v)) != 0) {
        if (r < 0 || hog_named("--block-norm", v, block_norms, 4, &x) < 0)
            return -1;
        return params->block_norm = (votecl_hog_block_norm)x, 1;
    }
    if ((r = tool_option_value(argc, argv, i, "--binning", &v)) != 0) {
        if (r < 0 || hog_named("--binning", v, binnings, 2, &x) < 0)
            return -1;
        return params->binning = (votecl_hog_binning)x, 1;
    }
    return 0;
}

static int
hog_option(void *args, int argc, char **argv, int *i)
{
    hog_args *a = args;
    votecl_hog_params *p = &a->params;
    int r;

    if ((r = fusion_option(a, argc, argv, i)) != 0 ||
        (r = pair_option("--stride", 1, &p->window_stride_x, &p->window_stride_y, argc, argv, i)) !=
            0 ||
        (r = pair_option("--padding", 0, &p->padding_x, &p->padding_y, argc, argv, i)) != 0)
        return r;
    if ((r = tool_hog_mode_option(p, argc, argv, i)) != 0)
        return r;
    return tool_option_table(hog_options, TOOL_OPTION_COUNT(hog_options), a, argc, argv, i);
}

votecl_status
tool_hog_model_load(votecl_context *ctx, const char *path, votecl_hog_params *params,
                    votecl_hog_model **model)
{
    votecl_hog_params file;
    votecl_status st;

    if (path == NULL)
        return votecl_hog_model_people(ctx, model);
    st = votecl_hog_model_load(ctx, path, model);
    if (st != VOTECL_INVALID_ARGUMENT ||
        strstr(votecl_context_get_error(ctx), "not a votecl-hog-model file") == NULL)
        return st;
    if ((st = votecl_hog_model_load_opencv(ctx, path, &file, model)) != VOTECL_OK)
        return st;
    /* OpenCV's file gives the window geometry; the detection settings stay the caller's */
    params->window_width = file.window_width;
    params->window_height = file.window_height;
    params->block_width = file.block_width;
    params->block_height = file.block_height;
    params->block_stride_x = file.block_stride_x;
    params->block_stride_y = file.block_stride_y;
    params->cell_width = file.cell_width;
    params->cell_height = file.cell_height;
    params->nbins = file.nbins;
    params->gamma = file.gamma;
    params->l2hys_threshold = file.l2hys_threshold;
    return VOTECL_OK;
}

votecl_status
tool_hog_detect(votecl_context *ctx, const votecl_hog_params *params, const char *model_path,
                const tool_image *image, votecl_hog_detection *det, size_t capacity,
                size_t *found, double *seconds)
{
    votecl_hog_params p = *params;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = NULL;
    votecl_image view = tool_image_view(image);
    votecl_status st;
    double t0;

    st = tool_hog_model_load(ctx, model_path, &p, &model);
    if (st == VOTECL_OK)
        st = votecl_hog_new(ctx, &p, model, &hog);
    /* timed is the second run: the first may set the device up */
    if (st == VOTECL_OK)
        st = votecl_hog_detect(hog, &view, NULL, 0, det, capacity, found);
    t0 = tool_now();
    if (st == VOTECL_OK)
        st = votecl_hog_detect(hog, &view, NULL, 0, det, capacity, found);
    *seconds = tool_now() - t0;
    votecl_hog_free(hog);
    votecl_hog_model_free(model);
    return st;
}

static int
write_descriptors(votecl_context *ctx, const hog_args *a, const tool_image *image)
{
    votecl_hog *hog = NULL;
    votecl_image view = tool_image_view(image);
    size_t cols = 0, rows = 0, len = 0, n = 0;
    float *d = NULL;
    char error[1200];
    votecl_status st = votecl_hog_new(ctx, &a->params, NULL, &hog);
    int rc = TOOL_EXIT_FAILURE;

    if (st == VOTECL_OK && (st = votecl_hog_windows(hog, image->width, image->height, &cols,
                                                     &rows)) == VOTECL_OK) {
        votecl_hog_descriptor_length(&a->params, &len);
        d = malloc(cols * rows * len * sizeof *d);
        st = d ? votecl_hog_compute(hog, &view, d, cols * rows * len, &n)
               : VOTECL_OUT_OF_HOST_MEMORY;
    }
    if (st != VOTECL_OK)
        rc = tool_fail(ctx, st, "hog descriptors");
    else if (tool_array_write(a->descriptors_path, d, n, len, error, sizeof error) < 0)
        fprintf(stderr, "votecl hog: %s\n", error);
    else
        rc = TOOL_EXIT_OK;
    free(d);
    votecl_hog_free(hog);
    return rc;
}

void
tool_json_hog_parameters(tool_json *j, const char *model_path, const votecl_hog_params *p)
{
    tool_json_parameters(j);
    tool_json_kv_string(j, "model", model_path);
    tool_json_kv_bool(j, "gray", !p->colour);
    tool_json_kv_double(j, "scale", p->scale);
    tool_json_kv_uint(j, "stride", p->window_stride_x);
    tool_json_kv_uint(j, "padding", p->padding_x);
    tool_json_kv_double(j, "threshold", p->hit_threshold);
    tool_json_kv_string(j, "fusion",
                        p->fusion == VOTECL_HOG_FUSION_GROUP       ? "group"
                        : p->fusion == VOTECL_HOG_FUSION_MEANSHIFT ? "meanshift"
                                                                   : "none");
    tool_json_kv_string(j, "block_norm", hog_name_of(block_norms, 4, (int)p->block_norm));
    tool_json_kv_string(j, "binning", hog_name_of(binnings, 2, (int)p->binning));
}

static void
print_boxes(tool_options *o, const hog_args *a, const votecl_hog_detection *det, size_t shown,
            size_t found, double seconds)
{
    tool_json j;

    if (!o->json) {
        printf("# %s: %zu detection(s), %.2f ms: x y width height score scale\n",
               a->image_path, found, seconds * 1e3);
        for (size_t i = 0; i < shown; i++)
            printf("%d %d %d %d %.4f %.4f\n", det[i].box.x, det[i].box.y, det[i].box.width,
                   det[i].box.height, det[i].score, det[i].scale);
        return;
    }
    tool_json_document(&j, stdout, "hog");
    tool_json_hog_parameters(&j, a->model_path, &a->params);
    tool_json_results(&j);
    tool_json_kv_double(&j, "seconds", seconds);
    tool_json_kv_uint(&j, "found", found);
    tool_json_key(&j, "detections");
    tool_json_begin_array(&j);
    for (size_t i = 0; i < shown; i++) {
        tool_json_begin_object(&j);
        tool_json_kv_int(&j, "x", det[i].box.x);
        tool_json_kv_int(&j, "y", det[i].box.y);
        tool_json_kv_int(&j, "width", det[i].box.width);
        tool_json_kv_int(&j, "height", det[i].box.height);
        tool_json_kv_double(&j, "score", det[i].score);
        tool_json_kv_double(&j, "scale", det[i].scale);
        tool_json_end_object(&j);
    }
    tool_json_end_array(&j);
    tool_json_document_end(&j);
}

static void
put(tool_image *o, long x, long y)
{
    static const unsigned char green[3] = {0, 255, 0};

    if (x >= 0 && y >= 0 && (size_t)x < o->width && (size_t)y < o->height)
        memcpy(o->data + (size_t)y * o->stride + (size_t)x * 3, green, 3);
}

int
tool_hog_annotate(const tool_image *image, const votecl_hog_detection *det, size_t n,
                  tool_image *o, char *error, size_t size)
{
    if (tool_image_alloc(o, image->width, image->height, 3, VOTECL_DTYPE_U8, error, size) < 0)
        return -1;
    for (size_t y = 0; y < image->height; y++)
        for (size_t x = 0; x < image->width; x++)
            for (unsigned c = 0; c < 3; c++)
                o->data[y * o->stride + 3 * x + c] =
                    image->data[y * image->stride + x * image->channels +
                                (image->channels >= 3 ? c : 0)];
    for (size_t i = 0; i < n; i++) {
        const votecl_hog_rect *b = &det[i].box;

        for (long t = 0; t < 2; t++) {
            for (long x = b->x; x < (long)b->x + b->width; x++) {
                put(o, x, b->y + t);
                put(o, x, (long)b->y + b->height - 1 - t);
            }
            for (long y = b->y; y < (long)b->y + b->height; y++) {
                put(o, b->x + t, y);
                put(o, (long)b->x + b->width - 1 - t, y);
            }
        }
    }
    return 0;
}

static int
hog_output(tool_options *o, votecl_context *ctx, const hog_args *a, const tool_image *image)
{
    votecl_hog_detection *det = calloc(HOG_MAX_SHOWN, sizeof *det);
    size_t found = 0, shown;
    double seconds = 0;
    tool_image out = {0};
    char error[600];
    votecl_status st;
    int rc = TOOL_EXIT_OK;

    if (det == NULL)
        return TOOL_EXIT_FAILURE;
    st = tool_hog_detect(ctx, &a->params, a->model_path, image, det, HOG_MAX_SHOWN, &found,
                         &seconds);
    if (st != VOTECL_OK) {
        free(det);
        return tool_fail(ctx, st, "hog");
    }
    shown = found < HOG_MAX_SHOWN ? found : HOG_MAX_SHOWN;
    print_boxes(o, a, det, shown, found, seconds);
    if (a->out_path != NULL &&
        (tool_hog_annotate(image, det, shown, &out, error, sizeof error) < 0 ||
         tool_image_write(a->out_path, &out, error, sizeof error) < 0)) {
        fprintf(stderr, "votecl hog: %s\n", error);
        rc = TOOL_EXIT_FAILURE;
    }
    tool_image_free(&out);
    free(det);
    return rc;
}

/* "-", or another name of what standard output is (/dev/stdout, the file it was redirected
 * to; /dev/null aside, where nothing mixes): the report goes there. */
static int
is_stdout(const char *path)
{
    struct stat a, b;
    if (strcmp(path, "-") == 0)
        return 1;
    return stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino && !(S_ISCHR(b.st_mode) && !isatty(STDOUT_FILENO));
}

int
tool_cmd_hog(tool_options *options, int argc, char **argv)
{
    hog_args a = {0};
    tool_image raw = {0}, image = {0};
    votecl_context *ctx = NULL;
    char error[600];
    int rc;

    votecl_hog_params_init(&a.params);
    rc = tool_parse_image_command(options, "hog", hog_option, &a, argc, argv, &a.image_path);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        hog_usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (a.group)
        a.params.fusion = VOTECL_HOG_FUSION_GROUP;
    else if (a.fusion_set)
        a.params.fusion = (votecl_hog_fusion)a.fusion;
    a.params.colour = !a.gray;
    if (a.descriptors_path != NULL && is_stdout(a.descriptors_path))
        return tool_usage_error("hog",
                                "--descriptors %s: standard output carries the report; "
                                "name a file for the binary descriptors",
                                a.descriptors_path);
    tool_image_limits("hog"); /* an image over them is refused from its header */
    if (tool_image_read(a.image_path, &raw, error, sizeof error) < 0 ||
        tool_image_u8(&raw, &image, error, sizeof error) < 0) {
        fprintf(stderr, "votecl hog: %s\n", error);
        tool_image_free(&raw);
        return TOOL_EXIT_FAILURE;
    }
    if ((rc = tool_context_open(options, &ctx)) == TOOL_EXIT_OK) {
        rc = hog_output(options, ctx, &a, &image);
        if (rc == TOOL_EXIT_OK && a.descriptors_path != NULL)
            rc = write_descriptors(ctx, &a, &image);
    }
    votecl_context_free(ctx);
    tool_image_free(&raw);
    tool_image_free(&image);
    return rc;
}
