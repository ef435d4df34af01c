/* votecl_batch (lib/batch.c): argument checks, device selection, and the pipeline's promises
 * (input order whatever finishes first, every item handed back exactly once, a failed load or
 * emit stopping the run with its status) on the ref backend, whose contexts need no device;
 * and on each device backend, colour frames through PClines equal to single calls. */
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

/* --- a batch of colour frames through PClines against single calls --- */

#define FRAMES 6
#define FRAME_W 151
#define FRAME_H 97
#define FRAME_LINES 16

typedef struct lines_frame {
    uint8_t colour[FRAME_W * FRAME_H * 3], gray[FRAME_W * FRAME_H];
    votecl_lines_line lines[FRAME_LINES]; /* the single call's, on the gray frame */
    size_t found;
} lines_frame;

typedef struct lines_batch {
    votecl_batch *batch;
    lines_frame *frames;
    votecl_lines_params params;
    votecl_lines_plan *plans[VOTECL_BATCH_MAX_WORKERS]; /* each worker's, kept across frames */
    unsigned plans_made;
    uint64_t emitted;
} lines_batch;

/* Frames of filled rectangles on a ramp; gray by votecl's rounding (lib/pclines-private.h). */
static void
lines_frames_fill(lines_frame *frames)
{
    tu_rng rng;
    tu_rng_init(&rng, 27);
    for (unsigned f = 0; f < FRAMES; f++) {
        uint8_t *c = frames[f].colour;
        for (unsigned i = 0; i < FRAME_W * FRAME_H * 3; i++)
            c[i] = (uint8_t)((i / 3 % FRAME_W + i % 3 * 40 + f * 9) % 90);
        for (unsigned k = 0; k < 4; k++) {
            unsigned x0 = tu_rng_below(&rng, FRAME_W - 40), y0 = tu_rng_below(&rng, FRAME_H - 30);
            unsigned w = 20 + tu_rng_below(&rng, 20), h = 15 + tu_rng_below(&rng, 15);
            uint8_t rgb[3] = {(uint8_t)tu_rng_below(&rng, 256), (uint8_t)tu_rng_below(&rng, 256),
                              (uint8_t)(150 + tu_rng_below(&rng, 100))};
            for (unsigned y = y0; y < y0 + h; y++)
                for (unsigned x = x0; x < x0 + w; x++)
                    memcpy(c + 3 * (y * FRAME_W + x), rgb, 3);
        }
        for (unsigned i = 0; i < FRAME_W * FRAME_H; i++)
            frames[f].gray[i] =
                (uint8_t)((299u * c[3 * i] + 587u * c[3 * i + 1] + 114u * c[3 * i + 2] + 500u) /
                          1000u);
    }
}

static votecl_status
lines_load(void *user, uint64_t index, void **item)
{
    lines_batch *r = user;
    *item = index < FRAMES ? &r->frames[index] : NULL;
    return VOTECL_OK;
}

/* The colour frame as it is, on the worker's own plan (made at its first frame). */
static votecl_status
lines_process(void *user, votecl_context *context, unsigned worker, uint64_t index, void *item,
              void **result)
{
    lines_batch *r = user;
    lines_frame *f = item;
    votecl_image view = {f->colour, FRAME_W, FRAME_H, FRAME_W * 3, 3, VOTECL_DTYPE_U8};
    votecl_lines_line *lines = g_new0(votecl_lines_line, FRAME_LINES + 1);
    size_t found = 0;
    votecl_status st = VOTECL_OK;
    (void)index;
    *result = lines;
    if (r->plans[worker] == NULL) {
        st = votecl_lines_plan_new(context, &r->params, FRAME_W, FRAME_H, &r->plans[worker]);
        g_atomic_int_inc((gint *)&r->plans_made);
    }
    if (st == VOTECL_OK)
        st = votecl_lines_run(r->plans[worker], &view, lines, FRAME_LINES, &found);
    lines[FRAME_LINES].votes = (uint32_t)found; /* the count, after the lines */
    return st;
}

static votecl_status
lines_emit(void *user, uint64_t index, void *item, void *result, votecl_status status,
           unsigned worker)
{
    lines_batch *r = user;
    const lines_frame *f = item;
    votecl_lines_line *lines = result;
    (void)worker;
    g_assert_cmpint(status, ==, VOTECL_OK);
    g_assert_true(f == &r->frames[index]);
    g_assert_cmpuint(lines[FRAME_LINES].votes, ==, f->found);
    g_assert_cmpint(memcmp(lines, f->lines, MIN(f->found, FRAME_LINES) * sizeof *lines), ==, 0);
    r->emitted++;
    g_free(lines);
    return VOTECL_OK;
}

/* The frames' lines by single calls on their gray images (host-converted). */
static void
lines_singles(votecl_context *context, const votecl_lines_params *params, lines_frame *frames)
{
    votecl_lines_plan *plan = NULL;
    g_assert_cmpint(votecl_lines_plan_new(context, params, FRAME_W, FRAME_H, &plan), ==, VOTECL_OK);
    for (unsigned f = 0; f < FRAMES; f++) {
        votecl_image view = {frames[f].gray, FRAME_W, FRAME_H, FRAME_W, 1, VOTECL_DTYPE_U8};
        g_assert_cmpint(
            votecl_lines_run(plan, &view, frames[f].lines, FRAME_LINES, &frames[f].found), ==,
            VOTECL_OK);
        g_assert_cmpuint(frames[f].found, >, 0);
    }
    votecl_lines_plan_free(plan);
}

/* Colour frames through a batch (two workers, each its plan kept across frames, the frames
 * uploaded as they are) give exactly the single calls' lines on their gray images. */
static void
test_lines_colour(votecl_context *single)
{
    lines_batch r = {0};
    votecl_batch_options o;
    char error[1024];
    uint64_t items = 0;
    r.frames = g_new0(lines_frame, FRAMES);
    lines_frames_fill(r.frames);
    votecl_lines_params_init(&r.params);
    r.params.threshold = 20;
    r.params.segments = 1;
    lines_singles(single, &r.params, r.frames);
    votecl_batch_options_init(&o);
    o.backend = votecl_context_get_backend(single);
    o.devices = ":"; /* any device of the backend */
    o.max_devices = 1;
    o.streams_per_device = 2;
    g_assert_cmpint(votecl_batch_new(&o, &r.batch, error, sizeof error), ==, VOTECL_OK);
    g_assert_cmpint(
        votecl_batch_run(r.batch, lines_load, lines_process, lines_emit, NULL, &r, &items), ==,
        VOTECL_OK);
    g_assert_cmpuint(items, ==, FRAMES);
    g_assert_cmpuint(r.emitted, ==, FRAMES);
    g_assert_cmpuint(r.plans_made, <=, votecl_batch_workers(r.batch)); /* one per worker */
    for (unsigned w = 0; w < votecl_batch_workers(r.batch); w++)
        votecl_lines_plan_free(r.plans[w]);
    votecl_batch_free(r.batch);
    g_free(r.frames);
}

static const tu_test tests[] = {
    {TU_PATH, "/nodevice/batch/arguments", {test_arguments}},
    {TU_PATH, "/ref/batch/devices", {test_ref_devices}},
    {TU_PATH, "/ref/batch/order", {test_order}},
    {TU_PATH, "/ref/batch/load-fails", {test_load_fails}},
    {TU_PATH, "/ref/batch/emit-fails", {test_emit_fails}},
    {TU_PATH, "/opencl/batch/devices", {test_opencl_devices}},
    {TU_DEVICE_ON, "batch/lines-colour", {.on = test_lines_colour}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
