/* votecl_batch (lib/batch.c): argument checks, device selection, and the pipeline's promises
 * (input order whatever finishes first, every item handed back exactly once, a failed load or
 * emit stopping the run with its status) on the ref backend, whose contexts need no device. */
#include "testutil.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <votecl.h>

typedef struct order_run {
    votecl_batch *batch;
    uint64_t n;         /* items in the collection */
    uint64_t fail_load; /* load() fails at this index (n or more: never) */
    uint64_t fail_emit; /* emit() fails at this index */
    uint64_t next_emit;
    gint live;         /* items and results allocated and not yet freed */
    gint workers_seen; /* bit per worker that processed an item */
} order_run;

static votecl_status
order_load(void *user, uint64_t index, void **item)
{
    order_run *r = user;
    uint64_t *x;
    *item = NULL;
    if (index == r->fail_load)
        return VOTECL_INVALID_ARGUMENT;
    if (index >= r->n)
        return VOTECL_OK;
    x = g_new(uint64_t, 1);
    *x = index;
    g_atomic_int_inc(&r->live);
    *item = x;
    return VOTECL_OK;
}

static votecl_status
order_process(void *user, votecl_context *context, unsigned worker, uint64_t index, void *item,
              void **result)
{
    order_run *r = user;
    uint64_t *y = g_new(uint64_t, 1);
    g_assert_true(context == votecl_batch_context(r->batch, worker));
    g_assert_cmpuint(*(uint64_t *)item, ==, index);
    /* uneven work, so later items often finish first */
    g_usleep((gulong)((index * 7919u) % 5u) * 200u);
    *y = index * 3 + 1;
    g_atomic_int_inc(&r->live);
    g_atomic_int_or((guint *)&r->workers_seen, 1u << worker);
    *result = y;
    return index % 10 == 9 ? VOTECL_DEVICE_ERROR : VOTECL_OK; /* failures go to emit */
}

static void
order_discard(void *user, void *item, void *result)
{
    order_run *r = user;
    if (item != NULL)
        g_atomic_int_add(&r->live, -1);
    if (result != NULL)
        g_atomic_int_add(&r->live, -1);
    g_free(item);
    g_free(result);
}

static votecl_status
order_emit(void *user, uint64_t index, void *item, void *result, votecl_status status,
           unsigned worker)
{
    order_run *r = user;
    g_assert_cmpuint(index, ==, r->next_emit);
    g_assert_cmpuint(*(uint64_t *)item, ==, index);
    g_assert_cmpuint(*(uint64_t *)result, ==, index * 3 + 1);
    g_assert_cmpint(status, ==, index % 10 == 9 ? VOTECL_DEVICE_ERROR : VOTECL_OK);
    g_assert_cmpuint(worker, <, votecl_batch_workers(r->batch));
    r->next_emit++;
    order_discard(user, item, result);
    return index == r->fail_emit ? VOTECL_OUT_OF_HOST_MEMORY : VOTECL_OK;
}

static votecl_batch *
ref_batch(unsigned streams, unsigned depth)
{
    votecl_batch_options o;
    votecl_batch *b = NULL;
    char error[256];
    votecl_batch_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    o.streams_per_device = streams;
    o.queue_depth = depth;
    g_assert_cmpint(votecl_batch_new(&o, &b, error, sizeof error), ==, VOTECL_OK);
    g_assert_cmpuint(votecl_batch_workers(b), ==, streams);
    return b;
}

static void
run_order(unsigned streams, unsigned depth, uint64_t n, uint64_t fail_load, uint64_t fail_emit,
          votecl_status want, uint64_t want_items)
{
    order_run r = {.n = n, .fail_load = fail_load, .fail_emit = fail_emit};
    uint64_t items = 0;
    r.batch = ref_batch(streams, depth);
    g_assert_cmpint(
        votecl_batch_run(r.batch, order_load, order_process, order_emit, order_discard, &r, &items),
        ==, want);
    g_assert_cmpuint(items, ==, want_items);
    g_assert_cmpuint(r.next_emit, ==, want_items);
    g_assert_cmpint(r.live, ==, 0);
    if (streams > 1 && want == VOTECL_OK && n >= 100)
        g_assert_cmpint(r.workers_seen, !=, 1); /* the work was shared */
    votecl_batch_free(r.batch);
}

static void
test_order(void)
{
    run_order(4, 3, 200, G_MAXUINT64, G_MAXUINT64, VOTECL_OK, 200);
    run_order(3, 0, 100, G_MAXUINT64, G_MAXUINT64, VOTECL_OK, 100);
    run_order(1, 1, 17, G_MAXUINT64, G_MAXUINT64, VOTECL_OK, 17);
    run_order(2, 0, 0, G_MAXUINT64, G_MAXUINT64, VOTECL_OK, 0);
}

static void
test_load_fails(void)
{
    /* what was loaded is still emitted, then the load's status comes back */
    run_order(4, 5, 100, 30, G_MAXUINT64, VOTECL_INVALID_ARGUMENT, 30);
}

static void
test_emit_fails(void)
{
    /* the run stops after the failed emit; loaded items go to discard() */
    run_order(4, 9, 100, G_MAXUINT64, 50, VOTECL_OUT_OF_HOST_MEMORY, 51);
}

static void
test_arguments(void)
{
    votecl_batch_options o;
    votecl_batch *b = (votecl_batch *)&o;
    char error[256];
    uint64_t items = 7;
    size_t found = 0;
    votecl_batch_free(NULL);
    g_assert_cmpuint(votecl_batch_workers(NULL), ==, 0);
    g_assert_null(votecl_batch_context(NULL, 0));
    g_assert_cmpint(votecl_batch_new(NULL, NULL, NULL, 0), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(
        votecl_batch_run(NULL, order_load, order_process, order_emit, NULL, NULL, &items), ==,
        VOTECL_INVALID_ARGUMENT);
    g_assert_cmpuint(items, ==, 0);
    votecl_batch_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    o.streams_per_device = 17;
    g_assert_cmpint(votecl_batch_new(&o, &b, error, sizeof error), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_null(b);
    g_assert_nonnull(strstr(error, "streams_per_device"));
    o.streams_per_device = 0;
    o.struct_size = 0; /* never initialized */
    g_assert_cmpint(votecl_batch_new(&o, &b, error, sizeof error), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(error, "options.struct_size"));
    g_assert_cmpint(votecl_batch_devices(&o, NULL, 0, &found), ==, VOTECL_INVALID_ARGUMENT);
    votecl_batch_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    o.devices = "a:GPU:3"; /* the batch counts devices itself: no index */
    g_assert_cmpint(votecl_batch_new(&o, &b, error, sizeof error), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(error, "devices"));
}

static void
test_ref_devices(void)
{
    votecl_batch_options o;
    votecl_device_info info;
    votecl_batch *b = NULL;
    char error[256];
    size_t found = 0;
    votecl_batch_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    g_assert_cmpint(votecl_batch_devices(&o, &info, 1, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 1);
    g_assert_cmpint(info.backend, ==, VOTECL_BACKEND_REF);
    o.first_device = 1; /* an MPI rank beyond the host's devices */
    g_assert_cmpint(votecl_batch_devices(&o, NULL, 0, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 0);
    g_assert_cmpint(votecl_batch_new(&o, &b, error, sizeof error), ==, VOTECL_NO_DEVICE);
    g_assert_nonnull(strstr(error, "no ref device"));
}

/* Every OpenCL device the selector names gets its contexts, each on its own device. */
static void
test_opencl_devices(void)
{
    votecl_batch_options o;
    votecl_device_info infos[16], got;
    votecl_batch *b = NULL;
    char error[1024];
    size_t found = 0;
    votecl_batch_options_init(&o);
    o.backend = VOTECL_BACKEND_OPENCL;
    if (votecl_batch_devices(&o, infos, 16, &found) != VOTECL_OK || found == 0) {
        g_test_skip("no OpenCL device");
        return;
    }
    if (found > 16)
        found = 16;
    g_assert_cmpint(votecl_batch_new(&o, &b, error, sizeof error), ==, VOTECL_OK);
    g_assert_cmpuint(votecl_batch_workers(b), ==, 2 * found);
    for (unsigned w = 0; w < votecl_batch_workers(b); w++) {
        g_assert_cmpint(votecl_context_get_device_info(votecl_batch_context(b, w), &got), ==,
                        VOTECL_OK);
        g_assert_cmpstr(got.name, ==, infos[w / 2].name);
        g_assert_cmpuint(got.platform_index, ==, infos[w / 2].platform_index);
        g_assert_cmpuint(got.device_index, ==, infos[w / 2].device_index);
    }
    votecl_batch_free(b);
}

static const tu_test tests[] = {
    {TU_PATH, "/nodevice/batch/arguments", {test_arguments}},
    {TU_PATH, "/ref/batch/devices", {test_ref_devices}},
    {TU_PATH, "/ref/batch/order", {test_order}},
    {TU_PATH, "/ref/batch/load-fails", {test_load_fails}},
    {TU_PATH, "/ref/batch/emit-fails", {test_emit_fails}},
    {TU_PATH, "/opencl/batch/devices", {test_opencl_devices}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
