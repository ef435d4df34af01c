/* votecl vote: runs a user-defined vote (OpenCL C in a file) on an image and prints the
 * bins, for people writing their own voting algorithm. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tool.h"

typedef struct vote_args {
    const char *source_path;
    const char *table_path;
    const char *image_path;
    votecl_dtype dtype;       /* 0: the image's */
    unsigned long channels;   /* 0: all of the image's (RGB becomes RGBA) */
    unsigned long spaces;
    unsigned long bins;
    votecl_bin_type bin_type;
    int gray;
} vote_args;

/* The vote's input: the image's samples as dtype, channels per pixel, rows packed. */
typedef struct vote_input {
    void *data;
    size_t width, height;
    unsigned channels;
    votecl_dtype dtype;
} vote_input;

typedef struct vote_result {
    void *bins; /* spaces * nbins uint32_t or float */
    votecl_vote_stats stats;
    votecl_vote_plan_info info;
    double seconds;
} vote_result;

static void
vote_usage(FILE *f)
{
    fprintf(f,
            "usage: votecl vote --source FILE.cl [--dtype u8|u16|u32|f32] [--channels C]\n"
            "                   [--spaces G] [--bins N] [--bin-type unity|u32|f32]\n"
            "                   [--table FILE] [--gray] [--json] IMAGE\n"
            "Runs the voting algorithm defined in FILE.cl on a PNG, PGM or PPM image and\n"
            "prints every bin as 'space bin value' lines (or JSON) with the fraction of\n"
            "pixels that passed vote_test (eta). FILE.cl defines any of\n"
            "  bool   vote_test(uint x, uint y, VALUE_T value)\n"
            "  uint   vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
            "  VOTE_T vote_value(uint space, uint index, VALUE_T value)\n"
            "  VOTE_T vote_finish(uint space, uint bin, VOTE_T total)\n"
            "where index is the pixel's location (vote_x(index), vote_y(index)), VALUE_T the\n"
            "pixel (uchar, ..., float4) and VOTE_T uint or float; see votecl-vote.h.\n"
            "  --dtype T      element type the samples are converted to, keeping their\n"
            "                 values (default: the image's, u8 or u16)\n"
            "  --channels C   vote the first C channels of each pixel: 1, 2 or 4 (default:\n"
            "                 all; RGB gets an opaque alpha channel to make 4)\n"
            "  --gray         vote the gray conversion (one channel)\n"
            "  --spaces G     independent vote spaces (default 1)\n"
            "  --bins N       bins per space (default 256)\n"
            "  --bin-type T   unity (default: u32 counts), u32 or f32 number votes\n"
            "  --table FILE   whitespace-separated floats, read as vote_table[]\n");
}

/* --- arguments --- */

static int
parse_dtype(const char *text, votecl_dtype *out)
{
    static const votecl_dtype all[] = {VOTECL_DTYPE_U8, VOTECL_DTYPE_U16, VOTECL_DTYPE_U32,
                                       VOTECL_DTYPE_F32};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(text, tool_dtype_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    fprintf(stderr, "votecl vote: --dtype wants u8, u16, u32 or f32, not '%s'\n", text);
    return -1;
}

static int
parse_bin_type(const char *text, votecl_bin_type *out)
{
    static const char *const names[] = {"unity", "u32", "f32"};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (votecl_bin_type)i;
            return 0;
        }
    fprintf(stderr, "votecl vote: --bin-type wants unity, u32 or f32, not '%s'\n", text);
    return -1;
}

static const char *
bin_type_name(votecl_bin_type type)
{
    return type == VOTECL_BINS_F32 ? "f32" : type == VOTECL_BINS_U32 ? "u32" : "unity";
}

static int
vote_option(vote_args *a, int argc, char **argv, int *i)
{
    const char *v = NULL;
    int r;
    if (strcmp(argv[*i], "--gray") == 0)
        return a->gray = 1;
    if ((r = tool_option_value(argc, argv, i, "--source", &v)) != 0)
        return r < 0 ? -1 : (a->source_path = v, 1);
    if ((r = tool_option_value(argc, argv, i, "--table", &v)) != 0)
        return r < 0 ? -1 : (a->table_path = v, 1);
    if ((r = tool_option_value(argc, argv, i, "--dtype", &v)) != 0)
        return r < 0 || parse_dtype(v, &a->dtype) < 0 ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--bin-type", &v)) != 0)
        return r < 0 || parse_bin_type(v, &a->bin_type) < 0 ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--channels", &v)) != 0)
        return r < 0 || tool_parse_ulong("--channels", v, 1, 4, &a->channels) < 0 ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--spaces", &v)) != 0)
        return r < 0 || tool_parse_ulong("--spaces", v, 1, VOTECL_VOTE_MAX_BINS, &a->spaces) < 0
                   ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--bins", &v)) != 0)
        return r < 0 || tool_parse_ulong("--bins", v, 1, VOTECL_VOTE_MAX_BINS, &a->bins) < 0
                   ? -1 : 1;
    return 0;
}

static int
vote_option_fn(void *a, int argc, char **argv, int *i)
{
    return vote_option(a, argc, argv, i);
}

static int
vote_parse(tool_options *options, vote_args *a, int argc, char **argv)
{
    int r = tool_parse_image_command(options, "vote", vote_option_fn, a, argc, argv,
                                     &a->image_path);
    if (r != TOOL_EXIT_OK)
        return r;
    if (options->help)
        return TOOL_EXIT_OK;
    if (!a->source_path)
        return tool_usage_error("vote", "--source FILE.cl missing");
    if (a->channels == 3)
        return tool_usage_error("vote", "--channels takes 1, 2 or 4 (OpenCL has no 3-vectors "
                                        "in buffers)");
    if (a->spaces * a->bins > VOTECL_VOTE_MAX_BINS)
        return tool_usage_error("vote", "--spaces x --bins exceed %u bins",
                                VOTECL_VOTE_MAX_BINS);
    return TOOL_EXIT_OK;
}

/* --- files --- */

/* Reads a whole text file (at most limit bytes) into malloc'd, NUL-terminated memory. */
static int
read_text(const char *path, size_t limit, char **text)
{
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    *text = malloc(limit + 2);
    if (f == NULL || *text == NULL) {
        fprintf(stderr, "votecl vote: %s: %s\n", path, f ? "out of memory" : strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    n = fread(*text, 1, limit + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n > limit) {
        fprintf(stderr, "votecl vote: %s: %s\n", path,
                bad ? "read error" : "file too large");
        return -1;
    }
    (*text)[n] = '\0';
    return 0;
}

/* Whitespace-separated floats into a malloc'd table. */
static int
read_table(const char *path, float **table, size_t *size)
{
    char *text = NULL, *p, *end;
    int rc = -1;
    *size = 0;
    if (read_text(path, 64u << 20, &text) < 0)
        goto out;
    if ((*table = malloc(VOTECL_VOTE_MAX_TABLE * sizeof **table)) == NULL)
        goto out;
    for (p = text;; p = end) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '\0')
            break;
        float v = strtof(p, &end);
        if (end == p || (*end && !strchr(" \t\r\n", *end))) {
            fprintf(stderr, "votecl vote: %s: not a number at '%.20s'\n", path, p);
            goto out;
        }
        if (*size == VOTECL_VOTE_MAX_TABLE) {
            fprintf(stderr, "votecl vote: %s: more than %u numbers\n", path,
                    VOTECL_VOTE_MAX_TABLE);
            goto out;
        }
        (*table)[(*size)++] = v;
    }
    rc = 0;
out:
    free(text);
    return rc;
}

/* --- the image as the vote's input --- */

static double
sample(const tool_image *image, size_t x, size_t y, unsigned c)
{
    const unsigned char *row = image->data + y * image->stride;
    double max = image->dtype == VOTECL_DTYPE_U16 ? 65535.0 : 255.0;
    if (c >= image->channels)
        return max; /* the opaque alpha of RGB made RGBA */
    size_t i = x * image->channels + c;
    return image->dtype == VOTECL_DTYPE_U16 ? ((const uint16_t *)(const void *)row)[i] : row[i];
}

static void
store(vote_input *in, size_t at, double v)
{
    switch (in->dtype) {
    case VOTECL_DTYPE_U8: ((uint8_t *)in->data)[at] = (uint8_t)(v > 255 ? 255 : v); break;
    case VOTECL_DTYPE_U16: ((uint16_t *)in->data)[at] = (uint16_t)v; break;
    case VOTECL_DTYPE_U32: ((uint32_t *)in->data)[at] = (uint32_t)v; break;
    default: ((float *)in->data)[at] = (float)v; break;
    }
}

static int
make_input(const vote_args *a, const tool_image *image, vote_input *in)
{
    unsigned all = image->channels == 3 ? 4 : image->channels;
    in->width = image->width;
    in->height = image->height;
    in->channels = a->channels ? (unsigned)a->channels : all;
    in->dtype = a->dtype ? a->dtype : image->dtype;
    if (in->channels > all) {
        fprintf(stderr, "votecl vote: --channels %u, but %s has %u channel(s)\n", in->channels,
                a->image_path, image->channels);
        return TOOL_EXIT_USAGE;
    }
    in->data = malloc(in->width * in->height * in->channels * votecl_dtype_size(in->dtype));
    if (in->data == NULL) {
        fprintf(stderr, "votecl vote: out of memory for the image\n");
        return TOOL_EXIT_FAILURE;
    }
    for (size_t y = 0, at = 0; y < in->height; y++)
        for (size_t x = 0; x < in->width; x++)
            for (unsigned c = 0; c < in->channels; c++)
                store(in, at++, sample(image, x, y, c));
    return TOOL_EXIT_OK;
}

static int
load_image(const vote_args *a, vote_input *in)
{
    char error[600];
    tool_image image = {0}, gray = {0};
    int rc = TOOL_EXIT_FAILURE;
    tool_image_limits("vote"); /* an image over them is refused from its header */
    if (tool_image_read(a->image_path, &image, error, sizeof error) < 0)
        goto fail;
    if (a->gray && image.channels > 1) {
        if (tool_image_to_gray(&image, &gray, error, sizeof error) < 0)
            goto fail;
        tool_image_free(&image);
        image = gray;
    }
    rc = make_input(a, &image, in);
    tool_image_free(&image);
    return rc;
fail:
    fprintf(stderr, "votecl vote: %s\n", error);
    tool_image_free(&image);
    return rc;
}

/* --- the vote --- */

static int
build_failed(votecl_context *ctx, const vote_args *a)
{
    fprintf(stderr, "votecl vote: %s does not compile (lines as in the file, named 'user'):\n%s\n",
            a->source_path, votecl_context_get_build_log(ctx));
    return TOOL_EXIT_FAILURE;
}

/* The spec the arguments describe; source and table stay borrowed. */
static void
vote_spec(const vote_args *a, const vote_input *in, const char *source, const float *table,
          size_t table_size, votecl_vote_spec *spec)
{
    votecl_vote_spec_init(spec);
    spec->dtype = in->dtype;
    spec->channels = in->channels;
    spec->bin_type = a->bin_type;
    spec->spaces = (unsigned)a->spaces;
    spec->nbins = (uint32_t)a->bins;
    spec->source = source;
    spec->table = table;
    spec->table_size = table_size;
}

static int
vote_run(votecl_context *ctx, const vote_args *a, const votecl_vote_spec *spec,
         const vote_input *in, vote_result *r)
{
    votecl_vote_plan *plan = NULL;
    size_t esize = votecl_dtype_size(in->dtype) * in->channels;
    votecl_image view = {in->data, in->width, in->height, in->width * esize, in->channels,
                         in->dtype};
    votecl_status st = votecl_vote_plan_new(ctx, spec, &plan);
    double t0;
    if (st == VOTECL_BUILD_FAILED)
        return build_failed(ctx, a);
    if (st != VOTECL_OK)
        return tool_fail(ctx, st, "vote plan");
    r->bins = calloc((size_t)spec->spaces * spec->nbins, 4);
    if (r->bins == NULL) {
        votecl_vote_plan_free(plan);
        fprintf(stderr, "votecl vote: out of memory for the bins\n");
        return TOOL_EXIT_FAILURE;
    }
    /* The timed run is the second: the first may include the device's lazy set-up. */
    st = votecl_vote_run_image(plan, &view, r->bins, &r->stats);
    t0 = tool_now();
    if (st == VOTECL_OK)
        st = votecl_vote_run_image(plan, &view, r->bins, &r->stats);
    r->seconds = tool_now() - t0;
    if (st == VOTECL_OK)
        st = votecl_vote_plan_describe(plan, in->width * in->height, &r->info);
    votecl_vote_plan_free(plan);
    return st == VOTECL_OK ? TOOL_EXIT_OK : tool_fail(ctx, st, "vote");
}

/* --- output --- */

static void
print_value(const votecl_vote_spec *spec, const void *bins, size_t i)
{
    if (spec->bin_type == VOTECL_BINS_F32)
        printf("%.9g\n", (double)((const float *)bins)[i]);
    else
        printf("%u\n", ((const uint32_t *)bins)[i]);
}

static void
print_text(const vote_args *a, const votecl_vote_spec *spec, const vote_input *in,
           const vote_result *r)
{
    char plan[160];
    tool_plan_summary(&r->info, plan, sizeof plan);
    printf("# %s on %s: %zux%zu, %u channel(s), %s; %u space(s) x %u %s bins\n", a->source_path,
           a->image_path, in->width, in->height, in->channels, tool_dtype_name(in->dtype),
           spec->spaces, spec->nbins, bin_type_name(spec->bin_type));
    printf("# elements %zu, kept %zu, eta %.6f; %.3f ms; plan %s\n", r->stats.elements,
           r->stats.kept, r->stats.eta, r->seconds * 1e3, plan);
    printf("# space bin value\n");
    for (size_t i = 0; i < (size_t)spec->spaces * spec->nbins; i++) {
        printf("%zu %zu ", i / spec->nbins, i % spec->nbins);
        print_value(spec, r->bins, i);
    }
}

static void
json_bins(tool_json *j, const votecl_vote_spec *spec, const void *bins)
{
    tool_json_begin_array(j);
    for (unsigned s = 0; s < spec->spaces; s++) {
        tool_json_begin_array_compact(j);
        for (size_t b = 0, at = (size_t)s * spec->nbins; b < spec->nbins; b++, at++)
            if (spec->bin_type == VOTECL_BINS_F32)
                tool_json_double(j, ((const float *)bins)[at]);
            else
                tool_json_uint(j, ((const uint32_t *)bins)[at]);
        tool_json_end_array(j);
    }
    tool_json_end_array(j);
}

static void
print_json(const vote_args *a, const votecl_vote_spec *spec, const vote_input *in,
           const vote_result *r)
{
    tool_json j;
    tool_json_document(&j, stdout, "vote");
    tool_json_parameters(&j);
    tool_json_kv_string(&j, "source", a->source_path);
    tool_json_kv_string(&j, "dtype", tool_dtype_name(in->dtype)); /* as voted */
    tool_json_kv_uint(&j, "channels", in->channels);
    tool_json_kv_string(&j, "bin_type", bin_type_name(spec->bin_type));
    tool_json_kv_uint(&j, "spaces", spec->spaces);
    tool_json_kv_uint(&j, "nbins", spec->nbins);
    tool_json_kv_uint(&j, "table_size", spec->table_size);
    tool_json_results(&j);
    tool_json_key(&j, "stats");
    tool_json_begin_object(&j);
    tool_json_kv_uint(&j, "elements", r->stats.elements);
    tool_json_kv_uint(&j, "kept", r->stats.kept);
    tool_json_kv_double(&j, "eta", r->stats.eta);
    tool_json_end_object(&j);
    tool_json_kv_double(&j, "seconds", r->seconds);
    tool_json_key(&j, "plan");
    tool_json_plan_info(&j, &r->info);
    tool_json_key(&j, "bins");
    json_bins(&j, spec, r->bins);
    tool_json_document_end(&j);
}

int
tool_cmd_vote(tool_options *options, int argc, char **argv)
{
    vote_args a = {.spaces = 1, .bins = 256, .bin_type = VOTECL_BINS_UNITY};
    vote_input in = {0};
    vote_result r = {0};
    votecl_vote_spec spec;
    votecl_context *ctx = NULL;
    char *source = NULL;
    float *table = NULL;
    size_t table_size = 0;
    int rc = vote_parse(options, &a, argc, argv);
    if (rc != TOOL_EXIT_OK || options->help) {
        vote_usage(options->help ? stdout : stderr);
        return rc;
    }
    if (read_text(a.source_path, VOTECL_VOTE_MAX_SOURCE, &source) < 0 ||
        (a.table_path && read_table(a.table_path, &table, &table_size) < 0)) {
        rc = TOOL_EXIT_FAILURE;
        goto out;
    }
    if ((rc = load_image(&a, &in)) != TOOL_EXIT_OK ||
        (rc = tool_context_open(options, &ctx)) != TOOL_EXIT_OK)
        goto out;
    vote_spec(&a, &in, source, table, table_size, &spec);
    tool_progress(options, "votecl vote: %s on %s\n", a.source_path, a.image_path);
    if ((rc = vote_run(ctx, &a, &spec, &in, &r)) != TOOL_EXIT_OK)
        goto out;
    if (options->json)
        print_json(&a, &spec, &in, &r);
    else
        print_text(&a, &spec, &in, &r);
out:
    free(r.bins);
    free(in.data);
    free(table);
    free(source);
    votecl_context_free(ctx);
    return rc;
}
