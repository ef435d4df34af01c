/* HOG models in OpenCV's files: what HOGDescriptor::save() (cv2.HOGDescriptor.save) writes
 * through cv::FileStorage, in YAML or XML. The file is one map, the first top-level node (as
 * HOGDescriptor::load() with no object name reads it), of scalars and flat number lists:
 * winSize, blockSize, blockStride, cellSize, nbins, derivAperture, winSigma,
 * histogramNormType, L2HysThreshold, gammaCorrection, nlevels, signedGradient and
 * SVMDetector. Only that shape is read, not YAML or XML in general: a key is found by its
 * name at the start of a line (YAML) or as an element (XML) within the first map. */
#include "hog-private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD(status, ...) (snprintf(msg, msg_size, __VA_ARGS__), (status))

typedef struct span {
    const char *begin, *end;
} span;

/* The value text of key in the map body (YAML: "key:" after indentation at a line start, up
 * to the line's end or, for a flow list, its closing bracket). */
static int
yaml_value(span body, const char *key, span *value)
{
    size_t n = strlen(key);

    for (const char *p = body.begin; p < body.end; p++) {
        const char *q = p;
        if (p != body.begin && p[-1] != '\n')
            continue;
        while (q < body.end && *q == ' ')
            q++;
        if (q == p || (size_t)(body.end - q) <= n || strncmp(q, key, n) != 0 || q[n] != ':')
            continue;
        value->begin = q + n + 1;
        while (value->begin < body.end && *value->begin == ' ')
            value->begin++;
        value->end = value->begin;
        if (value->begin < body.end && *value->begin == '[') {
            while (value->end < body.end && *value->end != ']')
                value->end++;
            return value->end < body.end;
        }
        while (value->end < body.end && *value->end != '\n')
            value->end++;
        return 1;
    }
    return 0;
}

/* The first top-level map of a YAML file: the lines after the first unindented "name:". */
static int
yaml_body(span file, span *body)
{
    const char *p = file.begin;

    for (; p < file.end; p = memchr(p, '\n', (size_t)(file.end - p)) + 1) {
        const char *eol = memchr(p, '\n', (size_t)(file.end - p));
        if (eol == NULL)
            return 0;
        if (*p != ' ' && *p != '%' && *p != '#' && *p != '-' && *p != '\n' && *p != '\r' &&
            memchr(p, ':', (size_t)(eol - p)) != NULL) {
            body->begin = eol + 1;
            body->end = file.end;
            /* the map ends at the next unindented line */
            for (const char *q = body->begin; q < file.end; q++)
                if (q[-1] == '\n' && *q != ' ' && *q != '\n' && *q != '\r') {
                    body->end = q;
                    break;
                }
            return 1;
        }
    }
    return 0;
}

/* XML: the content of <key>...</key> within the body. */
static int
xml_value(span body, const char *key, span *value)
{
    size_t n = strlen(key);

    for (const char *p = body.begin; p + n + 2 < body.end; p++) {
        if (*p != '<' || strncmp(p + 1, key, n) != 0 || (p[n + 1] != '>' && p[n + 1] != ' '))
            continue;
        if ((value->begin = memchr(p, '>', (size_t)(body.end - p))) == NULL)
            return 0;
        value->begin++;
        for (value->end = value->begin; value->end < body.end && *value->end != '<';)
            value->end++;
        return value->end + n + 2 < body.end && value->end[1] == '/' &&
               strncmp(value->end + 2, key, n) == 0;
    }
    return 0;
}

/* The first element inside <opencv_storage>. */
static int
xml_body(span file, span *body)
{
    const char *root = strstr(file.begin, "<opencv_storage>");
    const char *p;

    if (root == NULL)
        return 0;
    for (p = root + 16; p < file.end && *p != '<'; p++)
        ;
    if (p + 1 >= file.end || p[1] == '/')
        return 0;
    if ((body->begin = memchr(p, '>', (size_t)(file.end - p))) == NULL)
        return 0;
    body->begin++;
    body->end = file.end;
    return 1;
}

/* Numbers of a value: separated by spaces, commas, line breaks, within optional brackets.
 * values may be NULL to count them; returns -1 for a token that is no finite number. */
static long
numbers(span v, double *values, size_t capacity)
{
    char token[64];
    long count = 0;
    const char *p = v.begin;

    while (p < v.end) {
        size_t n = 0;
        char *end;
        while (p < v.end && strchr(" ,[]\r\n\t", *p) != NULL)
            p++;
        if (p == v.end)
            break;
        while (p < v.end && strchr(" ,[]\r\n\t", *p) == NULL && n + 1 < sizeof token)
            token[n++] = *p++;
        token[n] = '\0';
        errno = 0;
        double x = strtod(token, &end);
        if (end == token || *end != '\0' || errno != 0 || !isfinite(x))
            return -1;
        if (values != NULL && (size_t)count < capacity)
            values[count] = x;
        count++;
    }
    return count;
}

typedef struct opencv_file {
    span body;
    int xml;
} opencv_file;

/* The count numbers of key into out; 0 when the key is absent (optional keys). */
static votecl_status
read_key(const opencv_file *f, const char *key, double *out, size_t count, int required, char *msg,
         size_t msg_size)
{
    span v;
    long n;

    if (!(f->xml ? xml_value(f->body, key, &v) : yaml_value(f->body, key, &v)))
        return required ? BAD(VOTECL_INVALID_ARGUMENT, "%s: missing", key) : VOTECL_OK;
    n = numbers(v, out, count);
    if (n < 0 || (size_t)n != count)
        return BAD(VOTECL_INVALID_ARGUMENT, "%s: expected %zu number%s", key, count,
                   count > 1 ? "s" : "");
    return VOTECL_OK;
}

static int
as_side(double x, unsigned *out)
{
    if (!(x >= 0 && x <= VOTECL_HOG_MAX_SIDE) || x != floor(x))
        return 0;
    *out = (unsigned)x;
    return 1;
}

/* winSize, blockSize, blockStride, cellSize, nbins into p. */
static votecl_status
read_geometry(const opencv_file *f, votecl_hog_params *p, char *msg, size_t msg_size)
{
    static const char *const keys[] = {"winSize", "blockSize", "blockStride", "cellSize"};
    unsigned *fields[][2] = {{&p->window_width, &p->window_height},
                             {&p->block_width, &p->block_height},
                             {&p->block_stride_x, &p->block_stride_y},
                             {&p->cell_width, &p->cell_height}};
    double v[2];
    votecl_status s;

    for (size_t k = 0; k < 4; k++) {
        if ((s = read_key(f, keys[k], v, 2, 1, msg, msg_size)) != VOTECL_OK)
            return s;
        if (!as_side(v[0], fields[k][0]) || !as_side(v[1], fields[k][1]))
            return BAD(VOTECL_INVALID_ARGUMENT, "%s: not two sizes in pixels", keys[k]);
    }
    if ((s = read_key(f, "nbins", v, 1, 1, msg, msg_size)) != VOTECL_OK)
        return s;
    if (!as_side(v[0], &p->nbins))
        return BAD(VOTECL_INVALID_ARGUMENT, "nbins: not a count");
    /* OpenCV's defaults for keys an older writer left out */
    p->gamma = 1;
    p->l2hys_threshold = 0.2f;
    return VOTECL_OK;
}

/* The options OpenCV can save that this library computes one way only, and the rest. */
static votecl_status
read_options(const opencv_file *f, votecl_hog_params *p, char *msg, size_t msg_size)
{
    double norm = 0, sign = 0, sigma = -1, gamma = 1, threshold = 0.2, levels = p->max_levels;
    votecl_status s;

    if ((s = read_key(f, "histogramNormType", &norm, 1, 0, msg, msg_size)) ||
        (s = read_key(f, "signedGradient", &sign, 1, 0, msg, msg_size)) ||
        (s = read_key(f, "winSigma", &sigma, 1, 0, msg, msg_size)) ||
        (s = read_key(f, "gammaCorrection", &gamma, 1, 0, msg, msg_size)) ||
        (s = read_key(f, "L2HysThreshold", &threshold, 1, 0, msg, msg_size)) ||
        (s = read_key(f, "nlevels", &levels, 1, 0, msg, msg_size)))
        return s;
    if (norm != 0)
        return BAD(VOTECL_UNSUPPORTED, "histogramNormType: %g: only L2Hys (0) is computed", norm);
    if (sign != 0)
        return BAD(VOTECL_UNSUPPORTED, "signedGradient: only unsigned gradients are computed");
    /* OpenCV's -1 means its default, the one width this library uses: (bw + bh) / 8 */
    if (sigma >= 0 && sigma != (p->block_width + p->block_height) / 8.0)
        return BAD(VOTECL_UNSUPPORTED,
                   "winSigma: %g: blocks are weighted with sigma (block width + height) / 8 "
                   "= %g only",
                   sigma, (p->block_width + p->block_height) / 8.0);
    if (!(threshold > 0 && threshold <= 1) || !(levels >= 1 && levels <= VOTECL_HOG_MAX_LEVELS))
        return BAD(VOTECL_INVALID_ARGUMENT, "%s: out of range",
                   levels >= 1 && levels <= VOTECL_HOG_MAX_LEVELS ? "L2HysThreshold" : "nlevels");
    p->gamma = gamma != 0;
    p->l2hys_threshold = (float)threshold;
    p->max_levels = (unsigned)levels;
    return VOTECL_OK;
}

/* SVMDetector: the descriptor's weights, then optionally the bias (OpenCV's rho). */
static votecl_status
read_detector(votecl_context *context, const opencv_file *f, const votecl_hog_params *p,
              votecl_hog_model **out, char *msg, size_t msg_size)
{
    size_t length;
    long n;
    double *v = NULL;
    float *w = NULL;
    span value;
    votecl_status s;

    if ((s = votecl_hog_descriptor_length(p, &length)) != VOTECL_OK)
        return BAD(s, "winSize, blockSize, blockStride, cellSize, nbins: not a HOG geometry "
                      "this library computes");
    if (!(f->xml ? xml_value(f->body, "SVMDetector", &value)
                 : yaml_value(f->body, "SVMDetector", &value)))
        return BAD(VOTECL_INVALID_ARGUMENT, "SVMDetector: missing (a descriptor without a "
                                            "detector is no model)");
    n = numbers(value, NULL, 0);
    if (n < 0 || ((size_t)n != length && (size_t)n != length + 1))
        return BAD(VOTECL_INVALID_ARGUMENT,
                   "SVMDetector: %ld finite numbers, the descriptor has %zu (and a bias)", n,
                   length);
    v = votecl__malloc((size_t)n * sizeof *v);
    w = votecl__malloc(length * sizeof *w);
    if (v == NULL || w == NULL) {
        s = BAD(VOTECL_OUT_OF_HOST_MEMORY, "out of memory for %ld weights", n);
        goto out;
    }
    numbers(value, v, (size_t)n);
    for (size_t i = 0; i < length; i++)
        w[i] = (float)v[i];
    s = votecl_hog_model_new(context, p, w, length, (size_t)n > length ? (float)v[length] : 0, out);
    if (s != VOTECL_OK)
        snprintf(msg, msg_size, "%s", context != NULL ? votecl_context_get_error(context) : "");
out:
    free(v);
    free(w);
    return s;
}

static votecl_status
parse(votecl_context *context, const char *text, size_t size, votecl_hog_params *p,
      votecl_hog_model **out, char *msg, size_t msg_size)
{
    span file = {text, text + size};
    opencv_file f = {{NULL, NULL}, 0};
    votecl_status s;

    f.xml = strncmp(text, "<?xml", 5) == 0 || strstr(text, "<opencv_storage>") != NULL;
    if (!(f.xml ? xml_body(file, &f.body)
                : strncmp(text, "%YAML", 5) == 0 && yaml_body(file, &f.body)))
        return BAD(VOTECL_INVALID_ARGUMENT,
                   "not an OpenCV FileStorage file in YAML or XML with a map in it");
    votecl_hog_params_init(p);
    if ((s = read_geometry(&f, p, msg, msg_size)) != VOTECL_OK ||
        (s = read_options(&f, p, msg, msg_size)) != VOTECL_OK)
        return s;
    return read_detector(context, &f, p, out, msg, msg_size);
}

votecl_status
votecl_hog_model_load_opencv(votecl_context *context, const char *filename,
                             votecl_hog_params *params, votecl_hog_model **out)
{
    char *text = NULL, msg[512] = "";
    size_t size;
    votecl_hog_params p;
    votecl_status status;

    VOTECL__ENTER_OR_RETURN(context);
    if (filename == NULL || out == NULL)
        return context != NULL
                   ? votecl__fail(context, VOTECL_INVALID_ARGUMENT, "filename, out: NULL pointer")
                   : VOTECL_INVALID_ARGUMENT;
    *out = NULL;
    if ((status = votecl__read_file(filename, &text, &size)) != VOTECL_OK)
        return context != NULL
                   ? votecl__fail(context, status, "filename: %s '%s'",
                                  status == VOTECL_OUT_OF_HOST_MEMORY ? "out of memory reading"
                                                                      : "cannot read",
                                  filename)
                   : status;
    status = parse(context, text, size, &p, out, msg, sizeof msg);
    free(text);
    if (status != VOTECL_OK)
        return context != NULL ? votecl__fail(context, status, "%s: %s", filename, msg) : status;
    if (params != NULL)
        *params = p;
    return VOTECL_OK;
}
