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
#include "cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define SENTINEL 0xA5
#define MAX_K 100000

/* The cases are the algorithms' (tests/cases.h), plus the two below that are no algorithm:
 * contexts themselves and model calibration. */

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

static const tc_case context_case = {
    TC_CASE("context", sizeof(votecl_device_info), context_make, context_run, context_destroy),
    .differ = context_differ};

static const tc_case calibrate_case = {.name = "calibrate",
                                       .flags = TC_DEVICE_ONLY | TC_REPORT_ON_FAILURE,
                                       .out_size = sizeof(votecl_calibrate_report),
                                       .make = borrow_context,
                                       .run = calibrate_run,
                                       .destroy = no_destroy,
                                       .differ = calibrate_differ};

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
check_failure(votecl_context *context, const tc_case *c, const char *what, votecl__fault_kind kind,
              unsigned long k, votecl_status status)
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

/* The output of a run after the fault named by kind and k (when: which) equals expected. */
static void
check_result(const tc_case *c, const void *out, const void *expected, const char *when,
             votecl__fault_kind kind, unsigned long k)
{
    if (tc_differ(c, out, expected)) {
        g_test_message("%s %s %s:%lu: wrong result", c->name, when, votecl__fault_kind_name(kind),
                       k);
        g_test_fail();
    }
}

/* Fails the k-th event of kind in c->make for k = 1, 2, ...; after each failure the
 * constructor and a run, unarmed, must give expected. */
static void
sweep_make(votecl_context *context, const tc_case *c, votecl__fault_kind kind, const void *expected,
           sweep_stats *stats)
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
        check_result(c, out, expected, "after a constructor fault", kind, k);
        c->destroy(object);
    }
    g_free(out);
}

/* Fails the k-th event of kind in c->run on one object; after each failure the output must
 * be untouched and the same run, unarmed, must give expected. */
static void
sweep_run(votecl_context *context, void *object, const tc_case *c, votecl__fault_kind kind,
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
            if (at < c->out_size && !(c->flags & TC_REPORT_ON_FAILURE)) {
                g_test_message("%s run, %s:%lu: %s, output written at byte %zu", c->name,
                               votecl__fault_kind_name(kind), k, votecl_status_name(status), at);
                g_test_fail();
            }
            memset(out, SENTINEL, c->out_size);
            g_assert_cmpint(c->run(object, out), ==, VOTECL_OK);
        }
        check_result(c, out, expected, "run after the fault", kind, k);
    }
    g_free(out);
}

static void
report(const char *backend, const tc_case *c, const char *call, votecl__fault_kind kind,
       const sweep_stats *s)
{
    /* "# fault <backend> <case> <call> <kind> events N failed N absorbed N" */
    g_test_message("fault %s %s %s %s events %lu failed %lu absorbed %lu", backend, c->name, call,
                   votecl__fault_kind_name(kind), s->events, s->failed, s->absorbed);
}

static void
run_case(votecl_context *context, const char *backend, const tc_case *c,
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
    const tc_case *c = data;
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
    const tc_case *c = data;
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
        const tc_case *c = &tc_hist.cases[0];
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
        char *argv[] = {(char *)self, (char *)"--fault-environment-child", (char *)kinds[i], NULL};
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

/* Registers c under prefix (/ref/fault or /opencl/fault) unless it needs a device on 'ref'. */
static void
add_case(const char *prefix, const tc_case *c, GTestDataFunc func)
{
    char *path;

    if (func == test_ref && (c->flags & TC_DEVICE_ONLY))
        return;
    path = g_strdup_printf("%s/%s", prefix, c->name);
    g_test_add_data_func(path, c, func);
    g_free(path);
}

/* The context, every case of every algorithm, calibration: in this order under prefix. */
static void
add_cases(const char *prefix, GTestDataFunc func)
{
    add_case(prefix, &context_case, func);
    for (size_t a = 0; tc_algorithms[a] != NULL; a++)
        for (size_t i = 0; i < tc_algorithms[a]->ncases; i++)
            add_case(prefix, &tc_algorithms[a]->cases[i], func);
    add_case(prefix, &calibrate_case, func);
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--fault-environment-child") == 0)
        return environment_child(argv[2]);
    self = argv[0];
    g_test_init(&argc, &argv, NULL);
    tc_init(8);
    g_test_add_func("/nodevice/fault/counters", test_counters_threads);
    /* Each top-level suite registered in one go: GLib's -p /ref finds them then. */
    add_cases("/ref/fault", test_ref);
    add_cases("/opencl/fault", test_opencl);
    g_test_add_func("/opencl/fault/disk-cache", test_opencl_disk_cache);
    g_test_add_func("/opencl/fault/environment", test_environment);
    int status = g_test_run();
    tc_free();
    return status;
}
