/* Helpers shared by the GLib test programs. */
#include "testutil.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
tu_rng_init(tu_rng *rng, uint64_t seed)
{
    /* xorshift must never hold zero; mix the seed so that small seeds differ a lot. */
    rng->state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (rng->state == 0)
        rng->state = 1;
    for (int i = 0; i < 4; i++)
        tu_rng_next(rng);
}

uint64_t
tu_rng_next(tu_rng *rng)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

uint32_t
tu_rng_u32(tu_rng *rng)
{
    return (uint32_t)(tu_rng_next(rng) >> 32);
}

uint32_t
tu_rng_below(tu_rng *rng, uint32_t n)
{
    return (uint32_t)(((uint64_t)tu_rng_u32(rng) * n) >> 32);
}

float
tu_rng_float(tu_rng *rng, float lo, float hi)
{
    /* 24 random bits: every value is exact in single precision. */
    float unit = (float)(tu_rng_u32(rng) >> 8) * (1.0f / 16777216.0f);
    float v = lo + (hi - lo) * unit;
    return v < hi ? v : lo;
}

void
tu_fill_u8(tu_rng *rng, uint8_t *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        x[i] = (uint8_t)(tu_rng_next(rng) >> 56);
}

void
tu_fill_u16(tu_rng *rng, uint16_t *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        x[i] = (uint16_t)(tu_rng_next(rng) >> 48);
}

void
tu_fill_u32(tu_rng *rng, uint32_t *x, size_t count, uint32_t below)
{
    for (size_t i = 0; i < count; i++)
        x[i] = below == 0 ? tu_rng_u32(rng) : tu_rng_below(rng, below);
}

void
tu_fill_f32(tu_rng *rng, float *x, size_t count, float lo, float hi)
{
    for (size_t i = 0; i < count; i++)
        x[i] = tu_rng_float(rng, lo, hi);
}

void
tu_fill(tu_rng *rng, votecl_dtype dtype, void *x, size_t count, float lo, float hi)
{
    switch (dtype) {
    case VOTECL_DTYPE_U8:
        tu_fill_u8(rng, x, count);
        break;
    case VOTECL_DTYPE_U16:
        tu_fill_u16(rng, x, count);
        break;
    case VOTECL_DTYPE_U32:
        tu_fill_u32(rng, x, count, 0);
        break;
    case VOTECL_DTYPE_F32:
        tu_fill_f32(rng, x, count, lo, hi);
        break;
    }
}

const char *
tu_dtype_name(votecl_dtype dtype)
{
    switch (dtype) {
    case VOTECL_DTYPE_U8:
        return "u8";
    case VOTECL_DTYPE_U16:
        return "u16";
    case VOTECL_DTYPE_U32:
        return "u32";
    case VOTECL_DTYPE_F32:
        return "f32";
    }
    return "?";
}

votecl_context *
tu_ref_context_new(void)
{
    votecl_context_options options;
    votecl_context_options_init(&options);
    options.backend = VOTECL_BACKEND_REF;
    votecl_context *context = NULL;
    char error[1024] = "";
    votecl_status status = votecl_context_new_with_error(&options, &context, error, sizeof error);
    if (status != VOTECL_OK) {
        g_test_message("ref context: %s: %s", votecl_status_string(status), error);
        g_test_fail();
        return NULL;
    }
    return context;
}

static votecl_context *
backend_context_new(votecl_backend backend, const votecl_context_options *options)
{
    const char *what = backend == VOTECL_BACKEND_CUDA ? "CUDA" : "OpenCL";
    votecl_context_options opts;
    if (options != NULL)
        opts = *options;
    else
        votecl_context_options_init(&opts);
    opts.backend = backend;

    votecl_context *context = NULL;
    char error[1024] = "";
    votecl_status status = votecl_context_new_with_error(&opts, &context, error, sizeof error);
    if (status == VOTECL_NO_DEVICE || status == VOTECL_BACKEND_UNAVAILABLE) {
        char *why = g_strdup_printf("no %s device: %s", what, error);
        g_test_skip(why);
        g_free(why);
        return NULL;
    }
    if (status != VOTECL_OK) {
        g_test_message("%s context: %s: %s", what, votecl_status_string(status), error);
        g_test_fail();
        return NULL;
    }
    return context;
}

votecl_context *
tu_opencl_context_new(const votecl_context_options *options)
{
    return backend_context_new(VOTECL_BACKEND_OPENCL, options);
}

/* --- device tests per backend --- */

static const votecl_backend device_backends[] = {VOTECL_BACKEND_OPENCL, VOTECL_BACKEND_CUDA};
static votecl_backend running_backend = VOTECL_BACKEND_OPENCL;
static votecl_context *shared_contexts[4];

typedef struct shared_data {
    gconstpointer data;
    GDestroyNotify destroy;
    int refs;
} shared_data;

typedef struct device_case {
    votecl_backend backend;
    GTestFunc func;
    GTestDataFunc data_func;
    shared_data *shared;
} device_case;

static void
run_device_case(gconstpointer p)
{
    const device_case *c = p;
    running_backend = c->backend;
    if (c->func != NULL)
        c->func();
    else
        c->data_func(c->shared->data);
    running_backend = VOTECL_BACKEND_OPENCL;
}

/* Every registered case, freed by tu_device_contexts_free: GLib frees a case's data only
 * when the case runs, so cases a -p filter skips would leak (valgrind's leak check runs the
 * /ref and /nodevice paths of each program alone). */
static GPtrArray *device_cases;

/* Frees a case; the shared data goes with the last case that holds it. */
static void
free_device_case(gpointer p)
{
    device_case *c = p;
    if (c->shared != NULL && --c->shared->refs == 0) {
        if (c->shared->destroy != NULL)
            c->shared->destroy((gpointer)c->shared->data);
        g_free(c->shared);
    }
    g_free(c);
}

static void
add_device_cases(const char *suffix, GTestFunc func, GTestDataFunc data_func, shared_data *shared)
{
    for (size_t i = 0; i < G_N_ELEMENTS(device_backends); i++) {
        device_case *c = g_new0(device_case, 1);
        *c = (device_case){device_backends[i], func, data_func, shared};
        char *path = g_strdup_printf("/%s/%s", votecl_backend_name(device_backends[i]),
                                     suffix[0] == '/' ? suffix + 1 : suffix);
        if (device_cases == NULL)
            device_cases = g_ptr_array_new_with_free_func(free_device_case);
        g_ptr_array_add(device_cases, c);
        g_test_add_data_func(path, c, run_device_case);
        g_free(path);
    }
}

void
tu_add_device_test(const char *suffix, GTestFunc func)
{
    add_device_cases(suffix, func, NULL, NULL);
}

void
tu_add_device_data_test(const char *suffix, gconstpointer data, GTestDataFunc func,
                        GDestroyNotify destroy)
{
    shared_data *shared = g_new0(shared_data, 1);
    *shared = (shared_data){data, destroy, (int)G_N_ELEMENTS(device_backends)};
    add_device_cases(suffix, NULL, func, shared);
}

typedef struct context_case {
    void (*func)(votecl_context *context);
} context_case;

static void
run_context_case(gconstpointer data)
{
    votecl_context *context = tu_device_shared();
    if (context != NULL)
        ((const context_case *)data)->func(context);
}

void
tu_add_device_context_test(const char *suffix, void (*func)(votecl_context *context))
{
    context_case *c = g_new(context_case, 1);
    c->func = func;
    tu_add_device_data_test(suffix, c, run_context_case, g_free);
}

typedef struct variant_run {
    tu_variant_case c;
    const tu_variant_test *test;
} variant_run;

static void
run_variant_case(gconstpointer data)
{
    const variant_run *r = data;
    votecl_context *context = tu_device_shared();
    if (context != NULL)
        r->test->func(context, &r->c);
}

void
tu_add_variant_tests(const votecl_dtype *dtypes, size_t ndtypes, const tu_variant_test *tests,
                     size_t ntests)
{
    static const votecl_variant variants[] = {VOTECL_VARIANT_LOCAL, VOTECL_VARIANT_GLOBAL,
                                              VOTECL_VARIANT_PRIVATE};
    for (size_t d = 0; d < ndtypes; d++)
        for (size_t v = 0; v < G_N_ELEMENTS(variants); v++)
            for (size_t t = 0; t < ntests; t++) {
                variant_run *r = g_new(variant_run, 1);
                *r = (variant_run){{dtypes[d], variants[v]}, &tests[t]};
                char *path = g_strdup_printf("%s/%s/%s", tests[t].prefix, tu_dtype_name(dtypes[d]),
                                             votecl_variant_name(variants[v]));
                tu_add_device_data_test(path, r, run_variant_case, g_free);
                g_free(path);
            }
}

votecl_backend
tu_device_backend(void)
{
    return running_backend;
}

votecl_context *
tu_device_context_new(const votecl_context_options *options)
{
    return backend_context_new(running_backend, options);
}

votecl_context *
tu_device_shared(void)
{
    votecl_context **slot = &shared_contexts[running_backend];
    if (*slot == NULL)
        *slot = tu_device_context_new(NULL);
    return *slot;
}

void
tu_device_contexts_free(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(shared_contexts); i++) {
        votecl_context_free(shared_contexts[i]);
        shared_contexts[i] = NULL;
    }
    if (device_cases != NULL)
        g_ptr_array_free(device_cases, TRUE);
    device_cases = NULL;
}

void
tu_add_tests(const tu_test *tests, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const tu_test *t = &tests[i];
        if (t->kind == TU_PATH)
            g_test_add_func(t->path, t->run.func);
        else if (t->kind == TU_DEVICE || (t->kind == TU_SLOW_DEVICE && g_test_slow()))
            tu_add_device_test(t->path, t->run.func);
        else if (t->kind == TU_DEVICE_ON)
            tu_add_device_context_test(t->path, t->run.on);
        else if (t->kind == TU_CALL)
            t->run.func();
    }
}

int
tu_run(votecl_context *also)
{
    int status = g_test_run();
    tu_device_contexts_free();
    votecl_context_free(also);
    return status;
}

votecl_context *tu_ref_context;

int
tu_main(int *argc, char ***argv, const tu_test *tests, size_t count, int mode)
{
    g_test_init(argc, argv, NULL);
    if (mode == TU_NONFATAL)
        g_test_set_nonfatal_assertions();
    tu_ref_context = tu_ref_context_new();
    if (tu_ref_context == NULL) {
        fprintf(stderr, "cannot create a reference context\n");
        return 1;
    }
    tu_add_tests(tests, count);
    int status = tu_run(tu_ref_context);
    tu_ref_context = NULL;
    return status;
}

char *
tu_mkdtemp(void)
{
    GError *error = NULL;
    char *dir = g_dir_make_tmp("votecl-test-XXXXXX", &error);
    if (dir == NULL) {
        g_test_message("g_dir_make_tmp: %s", error->message);
        g_error_free(error);
        g_test_fail();
    }
    return dir;
}

void
tu_rmtree(const char *dir)
{
    if (dir == NULL)
        return;
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d != NULL) {
        const char *name;
        while ((name = g_dir_read_name(d)) != NULL) {
            char *path = g_build_filename(dir, name, NULL);
            if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
                tu_rmtree(path);
            else
                g_unlink(path);
            g_free(path);
        }
        g_dir_close(d);
    }
    g_rmdir(dir);
}

int
tu_count_entries(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return -1;
    int count = 0;
    while (g_dir_read_name(d) != NULL)
        count++;
    g_dir_close(d);
    return count;
}

static int
is_word_char(char c)
{
    return g_ascii_isalnum(c) || c == '_';
}

int
tu_message_names(const char *message, const char *field)
{
    if (message == NULL || field == NULL || field[0] == '\0')
        return 0;
    size_t len = strlen(field);
    for (const char *p = strstr(message, field); p != NULL; p = strstr(p + 1, field)) {
        int starts = p == message || !is_word_char(p[-1]);
        int ends = !is_word_char(p[len]);
        if (starts && ends)
            return 1;
    }
    return 0;
}

int
tu_check_ok(votecl_context *context, votecl_status status, const char *what, ...)
{
    if (status == VOTECL_OK)
        return 1;
    va_list args;
    va_start(args, what);
    char *where = g_strdup_vprintf(what, args);
    va_end(args);
    g_test_message("%s: %s: %s", where, votecl_status_string(status),
                   votecl_context_get_error(context));
    g_free(where);
    const char *log = votecl_context_get_build_log(context);
    if (log != NULL && log[0] != '\0')
        g_test_message("build log:\n%s", log);
    g_test_fail();
    return 0;
}

void
tu_expect_invalid(votecl_context *context, votecl_status status, const char *field)
{
    const char *msg = votecl_context_get_error(context);
    int named = tu_message_names(msg, field);

    g_assert_cmpint(status, ==, VOTECL_INVALID_ARGUMENT);
    if (!named)
        g_test_message("message '%s' does not name '%s'", msg, field);
    g_assert_true(named);
}

char *
tu_env_set(const char *name, const char *value)
{
    const char *old = g_getenv(name);
    char *saved = old != NULL ? g_strdup(old) : NULL;
    if (value != NULL)
        g_setenv(name, value, TRUE);
    else
        g_unsetenv(name);
    return saved;
}

void
tu_env_restore(const char *name, char *saved)
{
    if (saved != NULL)
        g_setenv(name, saved, TRUE);
    else
        g_unsetenv(name);
    g_free(saved);
}

size_t
tu_first_difference(const void *a, const void *b, size_t count, size_t size)
{
    const unsigned char *pa = a, *pb = b;
    if (memcmp(pa, pb, count * size) == 0)
        return (size_t)-1;
    for (size_t i = 0; i < count; i++)
        if (memcmp(pa + i * size, pb + i * size, size) != 0)
            return i;
    return (size_t)-1;
}

void
tu_inputs_make(tu_inputs *in, uint64_t seed)
{
    tu_rng rng;

    tu_rng_init(&rng, seed);
    tu_fill_u8(&rng, in->image, sizeof in->image);
    tu_fill_u8(&rng, in->people, sizeof in->people);
    memset(in->edges, 0, sizeof in->edges);
    for (unsigned x = 0; x < 96; x++) {
        in->edges[(x * 72 / 96) * 96 + x] = 255;
        in->edges[20 * 96 + x] = 255;
    }
    for (unsigned i = 0; i < 30; i++)
        in->edges[tu_rng_below(&rng, sizeof in->edges)] = 255;
    memset(in->ght_template, 30, sizeof in->ght_template);
    for (unsigned y = 8; y < 32; y++)
        for (unsigned x = 10; x < 38; x++)
            if (x < 20 || y > 24 || (x - 30) * (x - 30) + (y - 14) * (y - 14) < 20)
                in->ght_template[y * 48 + x] = 220;
    memset(in->ght_scene, 30, sizeof in->ght_scene);
    for (unsigned y = 0; y < 40; y++)
        memcpy(&in->ght_scene[(y + 25) * 96 + 30], &in->ght_template[y * 48], 48);
}

votecl_image
tu_view_u8(const uint8_t *data, size_t width, size_t height)
{
    votecl_image v = {data, width, height, width, 1, VOTECL_DTYPE_U8};
    return v;
}
