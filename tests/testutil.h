/* Helpers shared by the GLib test programs: a seeded generator, contexts that turn a missing
 * device into a skip, temporary directories and message checks. */
#ifndef VOTECL_TESTUTIL_H
#define VOTECL_TESTUTIL_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <votecl.h>

/* xorshift64* (Vigna): fixed seeds make every run see the same data. */
typedef struct tu_rng {
    uint64_t state;
} tu_rng;

void tu_rng_init(tu_rng *rng, uint64_t seed);
uint64_t tu_rng_next(tu_rng *rng);
uint32_t tu_rng_u32(tu_rng *rng);
/* Uniform in [0, n) for n >= 1 (the tiny modulo bias does not matter for tests). */
uint32_t tu_rng_below(tu_rng *rng, uint32_t n);
/* Uniform in [lo, hi). */
float tu_rng_float(tu_rng *rng, float lo, float hi);

void tu_fill_u8(tu_rng *rng, uint8_t *x, size_t count);
void tu_fill_u16(tu_rng *rng, uint16_t *x, size_t count);
/* Values in [0, below); below == 0 means the whole 32-bit range. */
void tu_fill_u32(tu_rng *rng, uint32_t *x, size_t count, uint32_t below);
void tu_fill_f32(tu_rng *rng, float *x, size_t count, float lo, float hi);
/* count random elements of dtype (full range for integers, [lo, hi) for f32). */
void tu_fill(tu_rng *rng, votecl_dtype dtype, void *x, size_t count, float lo, float hi);

const char *tu_dtype_name(votecl_dtype dtype);

/* Small inputs for tests that call every algorithm (fault injection, concurrency): random
 * bytes, an edge image with two lines and stray points, an off-centre L-shaped template and
 * a scene holding it shifted. */
typedef struct tu_inputs {
    uint8_t image[64 * 48];
    uint8_t edges[96 * 72];
    uint8_t people[80 * 144];
    uint8_t ght_template[48 * 40];
    uint8_t ght_scene[96 * 80];
} tu_inputs;

void tu_inputs_make(tu_inputs *in, uint64_t seed);
/* A packed u8 single-channel view of width x height bytes. */
votecl_image tu_view_u8(const uint8_t *data, size_t width, size_t height);

/* A context on the reference backend; fails the test when it cannot be made. */
votecl_context *tu_ref_context_new(void);

/* A context on the OpenCL backend with options (NULL for the defaults; backend is forced to
 * OPENCL). When the machine has no device (VOTECL_NO_DEVICE, VOTECL_BACKEND_UNAVAILABLE)
 * the test is skipped with the library's message and NULL is returned; any other failure
 * fails the test and returns NULL. */
votecl_context *tu_opencl_context_new(const votecl_context_options *options);

/* Device tests run once per device backend: registered as /opencl/<suffix> and as
 * /cuda/<suffix>, they reach their contexts through the helpers below, which take the backend
 * of the running test (OPENCL outside these registrations). A /cuda test skips with the
 * library's message where there is no CUDA device, driver or build. */
void tu_add_device_test(const char *suffix, GTestFunc func);
/* The same with data, shared by both registrations; destroy (may be NULL) runs once, after
 * the last of them. */
void tu_add_device_data_test(const char *suffix, gconstpointer data, GTestDataFunc func,
                             GDestroyNotify destroy);
/* One row of a test program's table: TU_PATH registers func at path (g_test_add_func),
 * TU_DEVICE once per device backend with path as the suffix (tu_add_device_test),
 * TU_SLOW_DEVICE the same only for the longer run (-m slow: make check never skips it),
 * TU_DEVICE_ON on as tu_add_device_context_test does, and TU_CALL calls func (path NULL),
 * which registers tests of its own there. */
enum { TU_PATH, TU_DEVICE, TU_SLOW_DEVICE, TU_DEVICE_ON, TU_CALL };
typedef struct tu_test {
    int kind;
    const char *path;
    union {
        GTestFunc func;                      /* every kind but TU_DEVICE_ON */
        void (*on)(votecl_context *context); /* TU_DEVICE_ON */
    } run;
} tu_test;

/* Registers the rows in order. */
void tu_add_tests(const tu_test *tests, size_t count);
/* Runs the registered tests, then frees the device contexts and cases
 * (tu_device_contexts_free) and also (may be NULL); returns g_test_run's result. */
int tu_run(votecl_context *also);
/* The 'ref' context of a program run by tu_main, made before its tests register (NULL
 * outside tu_main). */
extern votecl_context *tu_ref_context;
/* The main of a program whose tests are one table: g_test_init (with nonfatal assertions
 * when mode is TU_NONFATAL), tu_ref_context made (exit status 1 when it cannot be), the rows
 * registered, then tu_run(tu_ref_context). */
enum { TU_FATAL, TU_NONFATAL };
int tu_main(int *argc, char ***argv, const tu_test *tests, size_t count, int mode);
#define TU_MAIN(tests, mode) tu_main(&argc, &argv, tests, G_N_ELEMENTS(tests), mode)
/* The same for a function of the program's shared device context (tu_device_shared), not
 * called when the test was skipped. */
void tu_add_device_context_test(const char *suffix, void (*func)(votecl_context *context));
/* A strategy forced on a dtype, for the programs that test every pair. */
typedef struct tu_variant_case {
    votecl_dtype dtype;
    votecl_variant variant;
} tu_variant_case;
/* A device test of such a pair, registered as <prefix>/<dtype>/<strategy>; func runs on the
 * shared device context (not called when the test was skipped). */
typedef struct tu_variant_test {
    const char *prefix;
    void (*func)(votecl_context *context, const tu_variant_case *c);
} tu_variant_test;
/* Registers each of tests for each dtype of dtypes (outer) and each of the local, global and
 * private strategies. */
void tu_add_variant_tests(const votecl_dtype *dtypes, size_t ndtypes, const tu_variant_test *tests,
                          size_t ntests);
/* The backend of the running device test. */
votecl_backend tu_device_backend(void);
/* As tu_opencl_context_new, on the backend of the running device test. */
votecl_context *tu_device_context_new(const votecl_context_options *options);
/* The test program's shared context on the running test's backend, made on first use (NULL:
 * the test was skipped or failed); tu_device_contexts_free() frees them, and the registered
 * device cases, at the end of main. */
votecl_context *tu_device_shared(void);
void tu_device_contexts_free(void);

/* A new empty directory under the system's temporary directory (g_free it after
 * tu_rmtree). */
char *tu_mkdtemp(void);
/* Removes dir and everything below it (files and directories only). */
void tu_rmtree(const char *dir);
/* The number of directory entries of dir (excluding . and ..), -1 when unreadable. */
int tu_count_entries(const char *dir);

/* Nonzero when field occurs in message as a whole word: not preceded or followed by a
 * letter, digit or underscore ("channel" is found in "channel[1] >= channels" but not in
 * "channels"). */
int tu_message_names(const char *message, const char *field);

/* Nonzero when status is VOTECL_OK; otherwise fails the test, showing what (a printf
 * format and its arguments), the status, the context's message and its build log. */
int tu_check_ok(votecl_context *context, votecl_status status, const char *what, ...)
    G_GNUC_PRINTF(3, 4);

/* Asserts that status is VOTECL_INVALID_ARGUMENT and that context's message names field
 * (tu_message_names), showing the message when it does not. */
void tu_expect_invalid(votecl_context *context, votecl_status status, const char *field);

/* Saves an environment variable (NULL when unset) and sets it (value NULL unsets it);
 * tu_env_restore puts the saved value back and frees it. */
char *tu_env_set(const char *name, const char *value);
void tu_env_restore(const char *name, char *saved);

/* Index of the first element where a and b differ (count elements of size bytes), or
 * (size_t)-1 when they are equal. */
size_t tu_first_difference(const void *a, const void *b, size_t count, size_t size);

/* Checks a line detector's segments (test-hough.c and test-pclines.c; their line structs differ,
 * hence a macro): shows every line found (at most max), asserts that each want[w] = {x0, y0, x1,
 * y1} is the segment of exactly one line (ends_at(line, x0, y0, x1, y1)) and that no other line
 * has a segment. */
#define TU_CHECK_SEGMENTS(lines, found, max, want, ends_at)                                        \
    do {                                                                                           \
        size_t with_segment_ = 0, n_ = MIN((found), (max));                                        \
        for (size_t k_ = 0; k_ < n_; k_++) {                                                       \
            g_test_message("line %zu: theta %.4f rho %.2f votes %u segment %d (%.2f, %.2f)-"       \
                           "(%.2f, %.2f)",                                                         \
                           k_, (lines)[k_].theta, (lines)[k_].rho, (lines)[k_].votes,              \
                           (lines)[k_].has_segment, (lines)[k_].x0, (lines)[k_].y0,                \
                           (lines)[k_].x1, (lines)[k_].y1);                                        \
            with_segment_ += (lines)[k_].has_segment != 0;                                         \
        }                                                                                          \
        for (size_t w_ = 0; w_ < G_N_ELEMENTS(want); w_++) {                                       \
            size_t hits_ = 0;                                                                      \
            for (size_t k_ = 0; k_ < n_; k_++)                                                     \
                hits_ += ends_at(&(lines)[k_], (want)[w_][0], (want)[w_][1], (want)[w_][2],        \
                                 (want)[w_][3]);                                                   \
            g_assert_cmpuint(hits_, ==, 1);                                                        \
        }                                                                                          \
        g_assert_cmpuint(with_segment_, ==, G_N_ELEMENTS(want));                                   \
    } while (0)

#endif
