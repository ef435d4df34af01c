/* Fault injection (lib/fault.h, a build with --enable-fault-injection; skipped otherwise).
 *
 * For every algorithm's constructor and run call, on the 'ref' context and on an OpenCL
 * context, the k-th event of each kind fails for k = 1, 2, ... until the call no longer
 * reaches a k-th event:
 *   alloc         a host allocation (votecl__malloc, votecl__calloc, votecl__realloc);
 *   device-alloc  a device buffer (votecl_buffer_new, the zero-copy wrap);
 *   build         a program build (the in-memory program cache is emptied before each call);
 *   read          a read-back (votecl_buffer_read);
 *   launch        a kernel launch (what a lost device looks like).
 * Each failing call must return a status other than VOTECL_OK with a message, leave the
 * caller's outputs as they were (they are filled with a sentinel first) and set a
 * constructor's out-parameter to NULL; a call that absorbs the fault (a cache or a fallback)
 * must return the right result. After every failure the same call, unarmed, on the same
 * context (and the same plan, for runs) must give the result of a clean run. Leaks on the
 * error paths are LeakSanitizer's to find: CI runs this test under ASan (.ci/run).
 *
 * Per case and kind the test prints the events counted, failures and absorbed faults, the
 * figures of docs/reliability.md. */
#include "votecl-private.h"

#include "fault.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define SENTINEL 0xA5
#define MAX_K 100000

/* One call under test. make builds the object (constructor); run uses it (run call). */
typedef struct fault_case {
    const char *name;
    int device_only;       /* needs a device context (the generic engine, calibration) */
    int report_on_failure; /* the output is documented as a report of what was done also
                              on failure (calibration): not checked for the sentinel */
    size_t out_size;       /* bytes of the run's output, found counts included */
    votecl_status (*make)(votecl_context *context, void **object);
    votecl_status (*run)(void *object, void *out);
    void (*destroy)(void *object);
    /* Nonzero when two outputs of run differ (NULL: bytewise); structs compare by field,
     * as the library need not copy their padding. */
    int (*differ)(const void *a, const void *b);
} fault_case;

#define FIELD_DIFFERS(a, b, f) (memcmp(&(a)->f, &(b)->f, sizeof(a)->f) != 0)

/* --- inputs, made once --- */

static tu_inputs in;
static char *hog_model_file;

/* --- histogram --- */

static votecl_status
hist_make(votecl_context *context, void **object)
{
    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.nbins[0] = 100;
    return votecl_hist_plan_new(context, &p, (votecl_hist_plan **)object);
}

static votecl_status
hist_run(void *object, void *out)
{
    return votecl_hist_run(object, in.image, NULL, NULL, sizeof in.image, out);
}

static void
hist_destroy(void *object)
{
    votecl_hist_plan_free(object);
}

/* --- Hough --- */

typedef struct hough_out {
    size_t found;
    votecl_hough_line lines[8];
} hough_out;

static votecl_status
hough_make(votecl_context *context, void **object)
{
    votecl_hough_params p;
    votecl_hough_params_init(&p);
    p.angles = 90;
    return votecl_hough_plan_new(context, &p, 96, 72, (votecl_hough_plan **)object);
}

static votecl_status
hough_run(void *object, void *out)
{
    hough_out *o = out;
    votecl_image v = tu_view_u8(in.edges, 96, 72);
    return votecl_hough_run(object, &v, o->lines, 8, &o->found, NULL);
}

static void
hough_destroy(void *object)
{
    votecl_hough_plan_free(object);
}

static int
hough_differ(const void *pa, const void *pb)
{
    const hough_out *a = pa, *b = pb;

    if (a->found != b->found)
        return 1;
    for (size_t i = 0; i < a->found && i < G_N_ELEMENTS(a->lines); i++) {
        const votecl_hough_line *x = &a->lines[i], *y = &b->lines[i];
        if (FIELD_DIFFERS(x, y, theta) || FIELD_DIFFERS(x, y, rho) || FIELD_DIFFERS(x, y, votes) ||
            FIELD_DIFFERS(x, y, angle) || FIELD_DIFFERS(x, y, bin))
            return 1;
    }
    return 0;
}

/* --- sum --- */

static votecl_status
sum_make(votecl_context *context, void **object)
{
    votecl_sum_params p;
    votecl_sum_params_init(&p, VOTECL_DTYPE_U8);
    return votecl_sum_plan_new(context, &p, (votecl_sum_plan **)object);
}

static votecl_status
sum_run(void *object, void *out)
{
    return votecl_sum_run(object, in.image, sizeof in.image, out);
}

static void
sum_destroy(void *object)
{
    votecl_sum_plan_free(object);
}

/* --- sub-sampling --- */

static votecl_status
subsample_make(votecl_context *context, void **object)
{
    votecl_subsample_params p;
    votecl_subsample_params_init(&p, 64, 48, 4, VOTECL_DTYPE_U8);
    return votecl_subsample_plan_new(context, &p, (votecl_subsample_plan **)object);
}

static votecl_status
subsample_run(void *object, void *out)
{
    votecl_image v = tu_view_u8(in.image, 64, 48);
    return votecl_subsample_run(object, &v, out, 16 * 12);
}

static void
subsample_destroy(void *object)
{
    votecl_subsample_plan_free(object);
}

/* --- the generic engine, location-based (stage 1 and 2) --- */

static const char user_source[] =
    "bool vote_test(uint x, uint y, VALUE_T value) { return value >= 100; }\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{ return (value + vote_x(index) + space) % nbins; }\n";

static votecl_status
vote_make(votecl_context *context, void **object)
{
    votecl_vote_spec s;
    votecl_vote_spec_init(&s);
    s.spaces = 3;
    s.nbins = 50;
    s.source = user_source;
    return votecl_vote_plan_new(context, &s, (votecl_vote_plan **)object);
}

static votecl_status
vote_run(void *object, void *out)
{
    votecl_image v = tu_view_u8(in.image, 64, 48);
    return votecl_vote_run_image(object, &v, out, NULL);
}

static void
vote_destroy(void *object)
{
    votecl_vote_plan_free(object);
}

/* --- PClines --- */

typedef struct pclines_out {
    size_t found;
    votecl_lines_line lines[8];
} pclines_out;

static votecl_status
lines_make(votecl_context *context, void **object)
{
    votecl_lines_params p;
    votecl_lines_params_init(&p);
    p.threshold = 20;
    return votecl_lines_plan_new(context, &p, 96, 72, (votecl_lines_plan **)object);
}

static votecl_status
lines_run(void *object, void *out)
{
    pclines_out *o = out;
    votecl_image v = tu_view_u8(in.edges, 96, 72);
    return votecl_lines_run(object, &v, o->lines, 8, &o->found);
}

static void
lines_destroy(void *object)
{
    votecl_lines_plan_free(object);
}

static int
lines_differ(const void *pa, const void *pb)
{
    const pclines_out *a = pa, *b = pb;

    if (a->found != b->found)
        return 1;
    for (size_t i = 0; i < a->found && i < G_N_ELEMENTS(a->lines); i++) {
        const votecl_lines_line *x = &a->lines[i], *y = &b->lines[i];
        if (FIELD_DIFFERS(x, y, a) || FIELD_DIFFERS(x, y, b) || FIELD_DIFFERS(x, y, c) ||
            FIELD_DIFFERS(x, y, theta) || FIELD_DIFFERS(x, y, rho) || FIELD_DIFFERS(x, y, votes) ||
            FIELD_DIFFERS(x, y, u) || FIELD_DIFFERS(x, y, v) || FIELD_DIFFERS(x, y, column) ||
            FIELD_DIFFERS(x, y, row))
            return 1;
    }
    return 0;
}

/* --- HOG: the model file loader, the detector with the people model --- */

static votecl_status
hog_model_make(votecl_context *context, void **object)
{
    return votecl_hog_model_load(context, hog_model_file, (votecl_hog_model **)object);
}

static votecl_status
hog_model_run(void *object, void *out)
{
    size_t length;
    float bias;
    votecl_hog_model_get(object, &length, NULL, &bias);
    memcpy(out, &length, sizeof length);
    memcpy((char *)out + sizeof length, &bias, sizeof bias);
    return VOTECL_OK;
}

static void
hog_model_destroy(void *object)
{
    votecl_hog_model_free(object);
}

typedef struct hog_out {
    size_t found;
    votecl_hog_detection detections[16];
} hog_out;

static votecl_status
hog_make(votecl_context *context, void **object)
{
    votecl_hog_model *model = NULL;
    votecl_hog_params p;
    votecl_status status = votecl_hog_model_people(context, &model);

    *object = NULL;
    if (status != VOTECL_OK)
        return status;
    votecl_hog_params_init(&p);
    p.hit_threshold = -1; /* random pixels: some windows, so fusion runs too */
    p.scale = 1.2;
    status = votecl_hog_new(context, &p, model, (votecl_hog **)object);
    votecl_hog_model_free(model);
    return status;
}

static votecl_status
hog_run(void *object, void *out)
{
    hog_out *o = out;
    votecl_image v = tu_view_u8(in.people, 80, 144);
    return votecl_hog_detect(object, &v, NULL, 0, o->detections, 16, &o->found);
}

static votecl_status
hog_compute_run(void *object, void *out)
{
    votecl_image v = tu_view_u8(in.people, 80, 144);
    /* 80 x 144 at window stride 8: 3 x 3 windows of 3780 values */
    return votecl_hog_compute(object, &v, (float *)((char *)out + sizeof(size_t)), 9 * 3780,
                              (size_t *)out);
}

static void
hog_destroy(void *object)
{
    votecl_hog_free(object);
}

static int
hog_differ(const void *pa, const void *pb)
{
    const hog_out *a = pa, *b = pb;

    if (a->found != b->found)
        return 1;
    for (size_t i = 0; i < a->found && i < G_N_ELEMENTS(a->detections); i++) {
        const votecl_hog_detection *x = &a->detections[i], *y = &b->detections[i];
        if (FIELD_DIFFERS(x, y, box.x) || FIELD_DIFFERS(x, y, box.y) ||
            FIELD_DIFFERS(x, y, box.width) || FIELD_DIFFERS(x, y, box.height) ||
            FIELD_DIFFERS(x, y, score) || FIELD_DIFFERS(x, y, scale))
            return 1;
    }
    return 0;
}

/* --- generalized Hough, both methods, on a narrow search --- */

typedef struct ght_out {
    size_t found;
    votecl_ght_pose poses[4];
} ght_out;

static votecl_status
ght_make_method(votecl_context *context, votecl_ght_method method, void **object)
{
    votecl_ght_params p;
    votecl_image t = tu_view_u8(in.ght_template, 48, 40);

    votecl_ght_params_init(&p, method);
    p.levels = 90;
    if (method == VOTECL_GHT_GUIL) {
        p.min_angle = 0;
        p.max_angle = 20;
        p.angle_step = 5;
        p.min_scale = 0.9;
        p.max_scale = 1.1;
        p.scale_step = 0.1;
        p.max_rotations = 2;
        p.max_scales = 1;
    }
    return votecl_ght_model_new(context, &p, &t, (votecl_ght_model **)object);
}

static votecl_status
guil_make(votecl_context *context, void **object)
{
    return ght_make_method(context, VOTECL_GHT_GUIL, object);
}

static votecl_status
ballard_make(votecl_context *context, void **object)
{
    return ght_make_method(context, VOTECL_GHT_BALLARD, object);
}

static votecl_status
ght_run(void *object, void *out)
{
    ght_out *o = out;
    votecl_image v = tu_view_u8(in.ght_scene, 96, 80);
    return votecl_ght_detect(object, &v, o->poses, 4, &o->found);
}

static void
ght_destroy(void *object)
{
    votecl_ght_model_free(object);
}

static int
ght_differ(const void *pa, const void *pb)
{
    const ght_out *a = pa, *b = pb;

    if (a->found != b->found)
        return 1;
    for (size_t i = 0; i < a->found && i < G_N_ELEMENTS(a->poses); i++) {
        const votecl_ght_pose *x = &a->poses[i], *y = &b->poses[i];
        if (FIELD_DIFFERS(x, y, x) || FIELD_DIFFERS(x, y, y) || FIELD_DIFFERS(x, y, angle) ||
            FIELD_DIFFERS(x, y, scale) || FIELD_DIFFERS(x, y, votes) ||
            FIELD_DIFFERS(x, y, angle_votes) || FIELD_DIFFERS(x, y, scale_votes))
            return 1;
    }
    return 0;
}

/* --- contexts themselves --- */

static votecl_backend context_backend;

static votecl_status
context_make(votecl_context *unused, void **object)
{
    votecl_context_options o;
    votecl_context_options_init(&o);
    o.backend = context_backend;
    o.disable_disk_cache = 1;
    return votecl_context_new(&o, (votecl_context **)object);
}

static votecl_status
context_run(void *object, void *out)
{
    return votecl_context_get_device_info(object, out);
}

static void
context_destroy(void *object)
{
    votecl_context_free(object);
}

static int
context_differ(const void *pa, const void *pb)
{
    const votecl_device_info *a = pa, *b = pb;
    return a->backend != b->backend || strcmp(a->name, b->name) != 0;
}

/* --- model calibration: the quick training set, one strategy, one round --- */

static votecl_status
calibrate_run(void *object, void *out)
{
    votecl_calibrate_options o;

    votecl_calibrate_options_init(&o);
    o.quick = 1;
    o.repeats = 1;
    o.store = 0;
    o.variants = 1u << VOTECL_VARIANT_GLOBAL;
    return votecl_model_calibrate(object, &o, out);
}

/* Timings differ from run to run: only what must not is compared. */
static int
calibrate_differ(const void *pa, const void *pb)
{
    const votecl_calibrate_report *a = pa, *b = pb;
    return a->cases != b->cases || a->model.strategy[VOTECL_VARIANT_GLOBAL].samples !=
                                       b->model.strategy[VOTECL_VARIANT_GLOBAL].samples;
}

static votecl_status
borrow_context(votecl_context *context, void **object)
{
    *object = context;
    return VOTECL_OK;
}

static void
no_destroy(void *object)
{
}

static const fault_case cases[] = {
    {"context", 0, 0, sizeof(votecl_device_info), context_make, context_run, context_destroy,
     context_differ},
    {"hist", 0, 0, 100 * 4, hist_make, hist_run, hist_destroy, NULL},
    {"hough", 0, 0, sizeof(hough_out), hough_make, hough_run, hough_destroy, hough_differ},
    {"sum", 0, 0, sizeof(double), sum_make, sum_run, sum_destroy, NULL},
    {"subsample", 0, 0, 16 * 12 * 4, subsample_make, subsample_run, subsample_destroy, NULL},
    {"vote", 1, 0, 3 * 50 * 4, vote_make, vote_run, vote_destroy, NULL},
    {"lines", 0, 0, sizeof(pclines_out), lines_make, lines_run, lines_destroy, lines_differ},
    {"hog-model", 0, 0, sizeof(size_t) + sizeof(float), hog_model_make, hog_model_run,
     hog_model_destroy, NULL},
    {"hog-detect", 0, 0, sizeof(hog_out), hog_make, hog_run, hog_destroy, hog_differ},
    {"hog-compute", 0, 0, sizeof(size_t) + 9 * 3780 * 4, hog_make, hog_compute_run, hog_destroy,
     NULL},
    {"ght-guil", 0, 0, sizeof(ght_out), guil_make, ght_run, ght_destroy, ght_differ},
    {"ght-ballard", 0, 0, sizeof(ght_out), ballard_make, ght_run, ght_destroy, ght_differ},
    {"calibrate", 1, 1, sizeof(votecl_calibrate_report), borrow_context, calibrate_run, no_destroy,
     calibrate_differ},
};

static int
outputs_differ(const fault_case *c, const void *a, const void *b)
{
    return c->differ != NULL ? c->differ(a, b) : memcmp(a, b, c->out_size) != 0;
}

/* --- the sweep --- */

typedef struct sweep_stats {
    unsigned long events;   /* events of the kind in one clean call */
    unsigned long failed;   /* k for which the call failed cleanly */
    unsigned long absorbed; /* k for which the call succeeded all the same */
} sweep_stats;

/* The first byte of p that is not the sentinel, n when none. */
static size_t
first_written(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != SENTINEL)
            return i;
    return n;
}

static void
check_failure(votecl_context *context, const fault_case *c, const char *what,
              votecl__fault_kind kind, unsigned long k, votecl_status status)
{
    if (status == VOTECL_OK || votecl_status_name(status) == NULL) {
        g_test_message("%s %s, %s:%lu: status %d", c->name, what, votecl__fault_kind_name(kind), k,
                       (int)status);
        g_test_fail();
    } else if (context != NULL && votecl_context_get_error(context)[0] == '\0') {
        g_test_message("%s %s, %s:%lu: %s without a message", c->name, what,
                       votecl__fault_kind_name(kind), k, votecl_status_name(status));
        g_test_fail();
    }
}

/* Fails the k-th event of kind in c->make for k = 1, 2, ...; after each failure the
 * constructor and a run, unarmed, must give expected. */
static void
sweep_make(votecl_context *context, const fault_case *c, votecl__fault_kind kind,
           const void *expected, sweep_stats *stats)
{
    void *out = g_malloc(c->out_size);

    for (unsigned long k = 1; k < MAX_K; k++) {
        void *object = (void *)&object; /* not NULL: a failure must clear it */
        votecl_status status;
        int fired;

        if (kind == VOTECL__FAULT_BUILD)
            votecl__program_cache_clear(context);
        votecl__fault_arm(kind, k);
        status = c->make(context, &object);
        fired = votecl__fault_fired();
        votecl__fault_disarm();
        if (!fired) {
            g_assert_cmpint(status, ==, VOTECL_OK);
            c->destroy(object);
            stats->events = k - 1;
            break;
        }
        if (status == VOTECL_OK) {
            stats->absorbed++;
        } else {
            check_failure(c->make == context_make ? NULL : context, c, "constructor", kind, k,
                          status);
            if (object != NULL) {
                g_test_message("%s constructor, %s:%lu: out not NULL", c->name,
                               votecl__fault_kind_name(kind), k);
                g_test_fail();
                object = NULL;
            }
            stats->failed++;
            g_assert_cmpint(c->make(context, &object), ==, VOTECL_OK);
        }
        /* The object (and the context) work. */
        memset(out, SENTINEL, c->out_size);
        g_assert_cmpint(c->run(object, out), ==, VOTECL_OK);
        if (outputs_differ(c, out, expected)) {
            g_test_message("%s after a constructor fault %s:%lu: wrong result", c->name,
                           votecl__fault_kind_name(kind), k);
            g_test_fail();
        }
        c->destroy(object);
    }
    g_free(out);
}

/* Fails the k-th event of kind in c->run on one object; after each failure the output must
 * be untouched and the same run, unarmed, must give expected. */
static void
sweep_run(votecl_context *context, void *object, const fault_case *c, votecl__fault_kind kind,
          const void *expected, sweep_stats *stats)
{
    void *out = g_malloc(c->out_size);

    for (unsigned long k = 1; k < MAX_K; k++) {
        votecl_status status;
        int fired;

        memset(out, SENTINEL, c->out_size);
        votecl__fault_arm(kind, k);
        status = c->run(object, out);
        fired = votecl__fault_fired();
        votecl__fault_disarm();
        if (!fired) {
            g_assert_cmpint(status, ==, VOTECL_OK);
            stats->events = k - 1;
            break;
        }
        if (status == VOTECL_OK) {
            stats->absorbed++;
        } else {
            stats->failed++;
            check_failure(c->make == context_make ? NULL : context, c, "run", kind, k, status);
            size_t at = first_written(out, c->out_size);
            if (at < c->out_size && !c->report_on_failure) {
                g_test_message("%s run, %s:%lu: %s, output written at byte %zu", c->name,
                               votecl__fault_kind_name(kind), k, votecl_status_name(status), at);
                g_test_fail();
            }
            memset(out, SENTINEL, c->out_size);
            g_assert_cmpint(c->run(object, out), ==, VOTECL_OK);
        }
        if (outputs_differ(c, out, expected)) {
            g_test_message("%s run, %s:%lu: wrong result after the fault", c->name,
                           votecl__fault_kind_name(kind), k);
            g_test_fail();
        }
    }
    g_free(out);
}

static void
report(const char *backend, const fault_case *c, const char *call, votecl__fault_kind kind,
       const sweep_stats *s)
{
    /* "# fault <backend> <case> <call> <kind> events N failed N absorbed N" */
    g_test_message("fault %s %s %s %s events %lu failed %lu absorbed %lu", backend, c->name, call,
                   votecl__fault_kind_name(kind), s->events, s->failed, s->absorbed);
}

static void
run_case(votecl_context *context, const char *backend, const fault_case *c,
         const votecl__fault_kind *kinds, size_t nkinds)
{
    void *object = NULL;
    void *expected = g_malloc(c->out_size);

    context_backend = votecl_context_get_backend(context);
    /* A clean run gives the expected output, and warms the caches. */
    memset(expected, SENTINEL, c->out_size);
    g_assert_cmpint(c->make(context, &object), ==, VOTECL_OK);
    g_assert_cmpint(c->run(object, expected), ==, VOTECL_OK);
    c->destroy(object);
    /* Constructors first: build sweeps empty the program cache, which no live object may
     * use. */
    for (size_t i = 0; i < nkinds; i++) {
        sweep_stats s = {0};
        sweep_make(context, c, kinds[i], expected, &s);
        report(backend, c, "new", kinds[i], &s);
    }
    g_assert_cmpint(c->make(context, &object), ==, VOTECL_OK);
    for (size_t i = 0; i < nkinds; i++) {
        sweep_stats s = {0};
        if (kinds[i] == VOTECL__FAULT_BUILD)
            continue; /* runs find their programs built */
        sweep_run(context, object, c, kinds[i], expected, &s);
        report(backend, c, "run", kinds[i], &s);
    }
    c->destroy(object);
    g_free(expected);
}

static void
test_ref(gconstpointer data)
{
    const fault_case *c = data;
    static const votecl__fault_kind kinds[] = {VOTECL__FAULT_ALLOC};
    votecl_context *context;

    if (!votecl__fault_enabled()) {
        g_test_skip("built without --enable-fault-injection");
        return;
    }
    if ((context = tu_ref_context_new()) == NULL)
        return;
    run_case(context, "ref", c, kinds, G_N_ELEMENTS(kinds));
    votecl_context_free(context);
}

static void
test_opencl(gconstpointer data)
{
    const fault_case *c = data;
    static const votecl__fault_kind kinds[] = {VOTECL__FAULT_ALLOC, VOTECL__FAULT_DEVICE_ALLOC,
                                               VOTECL__FAULT_BUILD, VOTECL__FAULT_READ,
                                               VOTECL__FAULT_LAUNCH};
    votecl_context_options o;
    votecl_context *context;

    if (!votecl__fault_enabled()) {
        g_test_skip("built without --enable-fault-injection");
        return;
    }
    /* Without the disk cache every program of a build sweep really is built. */
    votecl_context_options_init(&o);
    o.disable_disk_cache = 1;
    if ((context = tu_opencl_context_new(&o)) == NULL)
        return;
    run_case(context, "opencl", c, kinds, G_N_ELEMENTS(kinds));
    votecl_context_free(context);
}

/* The disk cache's load and store paths under host allocation failures: a cache failure
 * is a miss, never a failed call. */
static void
test_opencl_disk_cache(void)
{
    static const votecl__fault_kind kinds[] = {VOTECL__FAULT_ALLOC};
    char *dir;
    votecl_context_options o;
    votecl_context *context;

    if (!votecl__fault_enabled()) {
        g_test_skip("built without --enable-fault-injection");
        return;
    }
    dir = tu_mkdtemp();
    votecl_context_options_init(&o);
    o.cache_dir = dir;
    if ((context = tu_opencl_context_new(&o)) != NULL) {
        /* hist: build and store cold, then with the memory cache emptied before every call
         * the sweep runs through the disk cache's load path */
        const fault_case *c = &cases[1];
        void *expected = g_malloc(c->out_size);
        void *object = NULL;
        sweep_stats s = {0};

        g_assert_cmpint(c->make(context, &object), ==, VOTECL_OK);
        g_assert_cmpint(c->run(object, expected), ==, VOTECL_OK);
        c->destroy(object);
        for (unsigned long k = 1; k < MAX_K; k++) {
            votecl_status status;
            int fired;

            votecl__program_cache_clear(context);
            votecl__fault_arm(VOTECL__FAULT_ALLOC, k);
            object = &object;
            status = c->make(context, &object);
            fired = votecl__fault_fired();
            votecl__fault_disarm();
            if (status == VOTECL_OK)
                c->destroy(object);
            else
                g_assert_null(object);
            if (!fired) {
                g_assert_cmpint(status, ==, VOTECL_OK);
                s.events = k - 1;
                break;
            }
            if (status == VOTECL_OK)
                s.absorbed++;
            else
                s.failed++;
        }
        report("opencl", c, "new-disk-cache", kinds[0], &s);
        g_free(expected);
    }
    votecl_context_free(context);
    tu_rmtree(dir);
    g_free(dir);
}

/* VOTECL_FAULT is read once per process, at the first counted event; here the arming
 * function stands in for it, and the counters must add up over threads. */
static gpointer
count_allocations(gpointer data)
{
    for (int i = 0; i < 1000; i++)
        free(votecl__malloc(16));
    return NULL;
}

static void
test_counters_threads(void)
{
    GThread *threads[8];

    if (!votecl__fault_enabled()) {
        g_test_skip("built without --enable-fault-injection");
        return;
    }
    votecl__fault_arm(VOTECL__FAULT_ALLOC, 0);
    for (int i = 0; i < 8; i++)
        threads[i] = g_thread_new("count", count_allocations, NULL);
    for (int i = 0; i < 8; i++)
        g_thread_join(threads[i]);
    g_assert_cmpuint(votecl__fault_events(VOTECL__FAULT_ALLOC), ==, 8000);
    votecl__fault_arm(VOTECL__FAULT_ALLOC, 3);
    void *p[4];
    for (int i = 0; i < 4; i++)
        p[i] = votecl__malloc(1);
    g_assert_nonnull(p[0]);
    g_assert_nonnull(p[1]);
    g_assert_null(p[2]); /* the third fails, once */
    g_assert_nonnull(p[3]);
    g_assert_true(votecl__fault_fired());
    for (int i = 0; i < 4; i++)
        free(p[i]);
    votecl__fault_disarm();
}

/* VOTECL_FAULT itself: a child of this program with VOTECL_FAULT=alloc:1 must fail its first
 * context with VOTECL_OUT_OF_HOST_MEMORY, and one with build:1 its first program build. */
static const char *self;

static int
environment_child(const char *kind)
{
    votecl_context_options o;
    votecl_context *context = NULL;
    votecl_hist_params p;
    votecl_hist_plan *plan = NULL;
    votecl_status status;

    votecl_context_options_init(&o);
    o.backend = strcmp(kind, "alloc") == 0 ? VOTECL_BACKEND_REF : VOTECL_BACKEND_OPENCL;
    o.disable_disk_cache = 1;
    status = votecl_context_new(&o, &context);
    if (strcmp(kind, "alloc") == 0)
        return status == VOTECL_OUT_OF_HOST_MEMORY && context == NULL ? 0 : 1;
    if (status != VOTECL_OK)
        return 77; /* no device */
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    status = votecl_hist_plan_new(context, &p, &plan);
    votecl_context_free(context);
    return status == VOTECL_BUILD_FAILED && plan == NULL ? 0 : 1;
}

static void
test_environment(void)
{
    static const char *const kinds[] = {"alloc", "build"};

    if (!votecl__fault_enabled()) {
        g_test_skip("built without --enable-fault-injection");
        return;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
        char *argv[] = {(char *)self, (char *)"--fault-environment-child", (char *)kinds[i],
                        NULL};
        char *value = g_strdup_printf("%s:1", kinds[i]);
        char **envp = g_environ_setenv(g_get_environ(), "VOTECL_FAULT", value, TRUE);
        GError *error = NULL;
        int wait_status = -1;

        g_assert_true(g_spawn_sync(NULL, argv, envp, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                                   &wait_status, &error));
        g_assert_no_error(error);
        g_assert_true(WIFEXITED(wait_status));
        if (WEXITSTATUS(wait_status) != 77)
            g_assert_cmpint(WEXITSTATUS(wait_status), ==, 0);
        g_strfreev(envp);
        g_free(value);
    }
}

int
main(int argc, char **argv)
{
    char *dir;

    if (argc == 3 && strcmp(argv[1], "--fault-environment-child") == 0)
        return environment_child(argv[2]);
    self = argv[0];
    g_test_init(&argc, &argv, NULL);
    tu_inputs_make(&in, 8);
    dir = g_strdup(g_getenv("VOTECL_KERNEL_PATH"));
    hog_model_file = g_build_filename(dir != NULL ? dir : "cl", VOTECL_HOG_PEOPLE_MODEL, NULL);
    g_free(dir);
    g_test_add_func("/nodevice/fault/counters", test_counters_threads);
    /* Each top-level suite registered in one go: GLib's -p /ref finds them then. */
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        if (!cases[i].device_only) {
            char *path = g_strdup_printf("/ref/fault/%s", cases[i].name);
            g_test_add_data_func(path, &cases[i], test_ref);
            g_free(path);
        }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *path = g_strdup_printf("/opencl/fault/%s", cases[i].name);
        g_test_add_data_func(path, &cases[i], test_opencl);
        g_free(path);
    }
    g_test_add_func("/opencl/fault/disk-cache", test_opencl_disk_cache);
    g_test_add_func("/opencl/fault/environment", test_environment);
    int status = g_test_run();
    g_free(hog_model_file);
    return status;
}
