/* HOG linear SVM models: memory, the versioned text format of docs/hog-model.md, and the
 * shipped people detector found beside the kernels. */
#include "hog-private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct votecl_hog_model {
    votecl_hog_params geometry; /* window, block, block stride, cell, bins */
    size_t length;
    float bias;
    float *weights;
};

static votecl_status
fail(votecl_context *context, votecl_status status, const char *what)
{
    if (context == NULL)
        return status;
    return votecl__fail(context, status, "%s", what);
}

votecl_status
votecl_hog_model_new(votecl_context *context, const votecl_hog_params *params,
                     const float *weights, size_t length, float bias, votecl_hog_model **out)
{
    votecl__hog_geom g;
    votecl_hog_model *m;
    char msg[256];

    if (out == NULL || params == NULL || (weights == NULL && length > 0))
        return fail(context, VOTECL_INVALID_ARGUMENT, "out, params, weights: NULL pointer");
    *out = NULL;
    if (votecl__hog_geom_init(&g, params, msg, sizeof msg) != VOTECL_OK)
        return fail(context, VOTECL_INVALID_ARGUMENT, msg);
    if (length != g.desc_len) {
        snprintf(msg, sizeof msg, "length: %zu weights, the descriptor has %zu", length,
                 g.desc_len);
        return fail(context, VOTECL_INVALID_ARGUMENT, msg);
    }
    for (size_t i = 0; i < length; i++)
        if (!isfinite(weights[i]))
            return fail(context, VOTECL_INVALID_ARGUMENT, "weights: not finite");
    if (!isfinite(bias))
        return fail(context, VOTECL_INVALID_ARGUMENT, "bias: not finite");
    if ((m = votecl__calloc(1, sizeof *m)) == NULL || (m->weights = votecl__malloc(length * sizeof(float))) == NULL) {
        free(m);
        return fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    }
    m->geometry = *params;
    m->length = length;
    m->bias = bias;
    memcpy(m->weights, weights, length * sizeof(float));
    *out = m;
    return VOTECL_OK;
}

void
votecl_hog_model_free(votecl_hog_model *model)
{
    if (model == NULL)
        return;
    free(model->weights);
    free(model);
}

void
votecl_hog_model_get(const votecl_hog_model *model, size_t *length, const float **weights,
                     float *bias)
{
    if (length != NULL)
        *length = model != NULL ? model->length : 0;
    if (weights != NULL)
        *weights = model != NULL ? model->weights : NULL;
    if (bias != NULL)
        *bias = model != NULL ? model->bias : 0.f;
}

/* --- the text format --- */

typedef struct reader {
    char *p;        /* next character */
    unsigned line;
} reader;

/* The next token (comments and whitespace skipped), NUL-terminated in place; NULL at the
 * end. */
static char *
next_token(reader *r)
{
    char *start;

    for (;;) {
        while (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n') {
            r->line += *r->p == '\n';
            r->p++;
        }
        if (*r->p != '#')
            break;
        while (*r->p != '\0' && *r->p != '\n')
            r->p++;
    }
    if (*r->p == '\0')
        return NULL;
    start = r->p;
    while (*r->p != '\0' && *r->p != ' ' && *r->p != '\t' && *r->p != '\r' && *r->p != '\n')
        r->p++;
    if (*r->p != '\0') {
        r->line += *r->p == '\n';
        *r->p++ = '\0';
    }
    return start;
}

static int
parse_unsigned(const char *s, unsigned *v)
{
    char *end;
    unsigned long x;

    if (s == NULL || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    x = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || x > VOTECL_HOG_MAX_SIDE)
        return 0;
    *v = (unsigned)x;
    return 1;
}

static int
parse_float(const char *s, float *v)
{
    char *end;

    if (s == NULL)
        return 0;
    errno = 0;
    *v = strtof(s, &end);
    return errno == 0 && end != s && *end == '\0' && isfinite(*v);
}

#define MALFORMED(...)                                                                         \
    (snprintf(msg, msg_size, __VA_ARGS__), VOTECL_INVALID_ARGUMENT)

/* "key a b": the two numbers after key. */
static votecl_status
read_pair(reader *r, const char *key, unsigned *a, unsigned *b, char *msg, size_t msg_size)
{
    const char *t = next_token(r);

    if (t == NULL || strcmp(t, key) != 0)
        return MALFORMED("line %u: expected '%s'", r->line, key);
    if (!parse_unsigned(next_token(r), a) || (b != NULL && !parse_unsigned(next_token(r), b)))
        return MALFORMED("line %u: %s: expected %s non-negative integer%s", r->line, key,
                         b != NULL ? "two" : "a", b != NULL ? "s" : "");
    return VOTECL_OK;
}

static votecl_status
read_header(reader *r, votecl_hog_params *p, unsigned *length, float *bias, char *msg,
            size_t msg_size)
{
    const char *t = next_token(r);
    unsigned version;
    votecl_status s;

    if (t == NULL || strcmp(t, "votecl-hog-model") != 0)
        return MALFORMED("line %u: not a votecl-hog-model file", r->line);
    if (!parse_unsigned(next_token(r), &version))
        return MALFORMED("line %u: version: expected an integer", r->line);
    if (version != VOTECL_HOG_MODEL_VERSION) {
        snprintf(msg, msg_size, "version: %u is not the supported %d", version,
                 VOTECL_HOG_MODEL_VERSION);
        return VOTECL_UNSUPPORTED;
    }
    votecl_hog_params_init(p);
    if ((s = read_pair(r, "window", &p->window_width, &p->window_height, msg, msg_size)) ||
        (s = read_pair(r, "block", &p->block_width, &p->block_height, msg, msg_size)) ||
        (s = read_pair(r, "block-stride", &p->block_stride_x, &p->block_stride_y, msg,
                       msg_size)) ||
        (s = read_pair(r, "cell", &p->cell_width, &p->cell_height, msg, msg_size)) ||
        (s = read_pair(r, "bins", &p->nbins, NULL, msg, msg_size)) ||
        (s = read_pair(r, "length", length, NULL, msg, msg_size)))
        return s;
    t = next_token(r);
    if (t == NULL || strcmp(t, "bias") != 0 || !parse_float(next_token(r), bias))
        return MALFORMED("line %u: bias: expected 'bias' and a finite number", r->line);
    t = next_token(r);
    if (t == NULL || strcmp(t, "weights") != 0)
        return MALFORMED("line %u: expected 'weights'", r->line);
    return VOTECL_OK;
}

static votecl_status
read_weights(reader *r, float *w, size_t length, char *msg, size_t msg_size)
{
    const char *t;

    for (size_t i = 0; i < length; i++) {
        t = next_token(r);
        if (t == NULL || strcmp(t, "end") == 0)
            return MALFORMED("line %u: weights: %zu found, length says %zu", r->line, i,
                             length);
        if (!parse_float(t, &w[i]))
            return MALFORMED("line %u: weights[%zu]: '%.32s' is not a finite number", r->line,
                             i, t);
    }
    t = next_token(r);
    if (t == NULL || strcmp(t, "end") != 0)
        return MALFORMED("line %u: weights: more than length %zu, or no 'end'", r->line,
                         length);
    if (next_token(r) != NULL)
        return MALFORMED("line %u: text after 'end'", r->line);
    return VOTECL_OK;
}

static votecl_status
parse_model(votecl_context *context, char *text, votecl_hog_model **out, char *msg,
            size_t msg_size)
{
    reader r = {text, 1};
    votecl_hog_params p;
    unsigned length = 0;
    float bias = 0, *w = NULL;
    votecl_status status = read_header(&r, &p, &length, &bias, msg, msg_size);

    if (status != VOTECL_OK)
        return status;
    if (length == 0)
        return MALFORMED("length: must be positive");
    if ((w = votecl__malloc((size_t)length * sizeof *w)) == NULL)
        return (snprintf(msg, msg_size, "out of memory for %u weights", length),
                VOTECL_OUT_OF_HOST_MEMORY);
    status = read_weights(&r, w, length, msg, msg_size);
    if (status == VOTECL_OK)
        status = votecl_hog_model_new(context, &p, w, length, bias, out);
    free(w);
    return status;
}

votecl_status
votecl_hog_model_load(votecl_context *context, const char *filename, votecl_hog_model **out)
{
    char *text = NULL, msg[512] = "", detail[700];
    size_t size;
    votecl_status status;

    if (out == NULL || filename == NULL)
        return fail(context, VOTECL_INVALID_ARGUMENT, "filename, out: NULL pointer");
    *out = NULL;
    if ((status = votecl__read_file(filename, &text, &size)) != VOTECL_OK) {
        snprintf(detail, sizeof detail, "filename: %s '%s'",
                 status == VOTECL_OUT_OF_HOST_MEMORY ? "out of memory reading" : "cannot read",
                 filename);
        return fail(context, status, detail);
    }
    status = parse_model(context, text, out, msg, sizeof msg);
    if (status != VOTECL_OK && msg[0] != '\0') {
        snprintf(detail, sizeof detail, "%s: %s", filename, msg);
        fail(context, status, detail);
    }
    free(text);
    return status;
}

votecl_status
votecl_hog_model_people(votecl_context *context, votecl_hog_model **out)
{
    char *path = NULL;
    votecl_status status;

    if (context == NULL || out == NULL)
        return VOTECL_INVALID_ARGUMENT;
    *out = NULL;
    status = votecl__kernel_path_find(context->kernel_path, VOTECL_HOG_PEOPLE_MODEL, &path);
    if (status != VOTECL_OK)
        return votecl__fail(context, status, "%s: not found in the kernel path '%s'",
                            VOTECL_HOG_PEOPLE_MODEL,
                            context->kernel_path != NULL ? context->kernel_path : "");
    status = votecl_hog_model_load(context, path, out);
    free(path);
    return status;
}

votecl_status
votecl_hog_model_save(votecl_context *context, const votecl_hog_model *m, const char *filename)
{
    const votecl_hog_params *p;
    FILE *f;
    int bad;

    if (m == NULL || filename == NULL)
        return fail(context, VOTECL_INVALID_ARGUMENT, "model, filename: NULL pointer");
    if ((f = fopen(filename, "w")) == NULL)
        return fail(context, VOTECL_IO_ERROR, "filename: cannot be written");
    p = &m->geometry;
    fprintf(f, "votecl-hog-model %d\nwindow %u %u\nblock %u %u\nblock-stride %u %u\n"
               "cell %u %u\nbins %u\nlength %zu\nbias %.9g\nweights\n",
            VOTECL_HOG_MODEL_VERSION, p->window_width, p->window_height, p->block_width,
            p->block_height, p->block_stride_x, p->block_stride_y, p->cell_width,
            p->cell_height, p->nbins, m->length, m->bias);
    for (size_t i = 0; i < m->length; i++)
        fprintf(f, "%.9g\n", m->weights[i]);
    fprintf(f, "end\n");
    bad = ferror(f);
    bad |= fclose(f) != 0;
    return bad ? fail(context, VOTECL_IO_ERROR, "filename: write failed") : VOTECL_OK;
}

/* Whether model's geometry is params'. */
int
votecl__hog_model_fits(const votecl_hog_model *m, const votecl_hog_params *p)
{
    const votecl_hog_params *g = &m->geometry;

    return g->window_width == p->window_width && g->window_height == p->window_height &&
           g->block_width == p->block_width && g->block_height == p->block_height &&
           g->block_stride_x == p->block_stride_x && g->block_stride_y == p->block_stride_y &&
           g->cell_width == p->cell_width && g->cell_height == p->cell_height &&
           g->nbins == p->nbins;
}
