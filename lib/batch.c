/* Collections over every device of a host (votecl-batch.h): contexts per device and stream,
 * and the ordered pipeline of a loader thread, worker threads and the caller's emitter.
 *
 * The queue is a ring of queue_depth slots indexed by item index modulo the depth: the loader
 * fills slot i only once item i - depth has been emitted, so the slots never collide and the
 * emitter finds item i in one place. Workers take the lowest loaded index, which keeps the
 * order of completion close to the order of output and the ring from stalling on one slow
 * early item more than the depth allows. */
#include "votecl-private.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <votecl/votecl-batch.h>

enum slot_state { SLOT_FREE, SLOT_LOADED, SLOT_RUNNING, SLOT_DONE };

typedef struct batch_slot {
    enum slot_state state;
    uint64_t index;
    void *item, *result;
    votecl_status status;
    unsigned worker;
} batch_slot;

struct votecl_batch {
    unsigned workers;
    unsigned queue_depth;
    votecl_context **contexts; /* owned, workers entries */
};

/* The caller's functions (votecl_batch_run's arguments). */
typedef struct batch_callbacks {
    votecl_batch_load_fn load;
    votecl_batch_process_fn process;
    votecl_batch_emit_fn emit;
    votecl_batch_discard_fn discard;
} batch_callbacks;

typedef struct batch_run {
    votecl_batch *batch;
    const batch_callbacks *cb;
    void *user;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* any slot or flag changed: every waiter rechecks */
    batch_slot *slots;
    uint64_t loaded;  /* items loaded so far (the next index to load) */
    uint64_t emitted; /* items emitted so far (the next index to emit) */
    int ended;        /* load() reported the end */
    int stop;         /* a failure: everybody leaves */
    votecl_status load_status;
} batch_run;

typedef struct batch_worker {
    batch_run *run;
    unsigned index;
} batch_worker;

void
votecl_batch_options_init(votecl_batch_options *options)
{
    VOTECL__PARAMS_INIT_OR_RETURN(options);
}

/* "platform:type:index" for the k-th device the options select; gpu_default: no selector was
 * given and the backend has a GPU. */
static int
selector_for(const votecl_batch_options *o, int gpu_default, unsigned k, char *buf, size_t size)
{
    const char *d = o->devices != NULL ? o->devices : "";
    int n;
    if (d[0] == '\0')
        n = snprintf(buf, size, "%s:%u", gpu_default ? ":GPU" : ":", k);
    else if (strchr(d, ':') == NULL)
        n = snprintf(buf, size, "%s::%u", d, k);
    else
        n = snprintf(buf, size, "%s:%u", d, k);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static int
has_gpu(const votecl_device_info *infos, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (infos[i].type == VOTECL_DEVICE_GPU)
            return 1;
    return 0;
}

/* The matching devices' positions in infos (n entries): positions[] of capacity entries. */
static votecl_status
match_devices(const votecl_batch_options *o, const votecl_device_info *infos, size_t n,
              long *positions, size_t capacity, size_t *found)
{
    int gpu = has_gpu(infos, n);
    char sel[300];
    size_t count = 0;
    *found = 0;
    if (o->devices != NULL && strchr(o->devices, ':') != NULL &&
        strchr(strchr(o->devices, ':') + 1, ':') != NULL)
        return VOTECL_INVALID_ARGUMENT; /* an index part: the batch counts devices itself */
    for (unsigned k = 0; k < n; k++) {
        long p;
        if (selector_for(o, gpu, k, sel, sizeof sel) < 0)
            return VOTECL_INVALID_ARGUMENT;
        if ((p = votecl__device_select(infos, sizeof *infos, n, sel)) == -2)
            return VOTECL_INVALID_ARGUMENT;
        if (p < 0)
            break;
        if (k < o->first_device)
            continue;
        if (o->max_devices != 0 && count >= o->max_devices)
            break;
        if (count < capacity)
            positions[count] = p;
        count++;
    }
    *found = count;
    return VOTECL_OK;
}

/* The backend a context with these options gets: DEFAULT resolved by making one. */
static votecl_status
resolve_backend(const votecl_batch_options *o, votecl_backend *backend, char *error,
                size_t error_size)
{
    votecl_context_options co;
    votecl_context *probe = NULL;
    votecl_status st;
    *backend = o->backend;
    if (o->backend != VOTECL_BACKEND_DEFAULT)
        return VOTECL_OK;
    votecl_context_options_init(&co);
    co.kernel_path = o->kernel_path;
    co.cache_dir = o->cache_dir;
    st = votecl_context_new_with_error(&co, &probe, error, error_size);
    if (st == VOTECL_OK)
        *backend = votecl_context_get_backend(probe);
    votecl_context_free(probe);
    return st;
}

static votecl_status
list_devices(votecl_backend backend, votecl_device_info **infos, size_t *n)
{
    size_t found = 0;
    votecl_status st = votecl_devices_list(backend, NULL, 0, &found);
    *infos = NULL;
    *n = 0;
    if (st != VOTECL_OK || found == 0)
        return st;
    if ((*infos = calloc(found, sizeof **infos)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    st = votecl_devices_list(backend, *infos, found, n);
    if (*n > found)
        *n = found;
    return st;
}

votecl_status
votecl_batch_devices(const votecl_batch_options *options, votecl_device_info *out, size_t capacity,
                     size_t *found)
{
    votecl_batch_options defaults;
    votecl_device_info *infos = NULL;
    long *pos = NULL;
    size_t n = 0;
    votecl_backend backend;
    char error[256];
    votecl_status st;
    if (found == NULL || (out == NULL && capacity > 0))
        return VOTECL_INVALID_ARGUMENT;
    *found = 0;
    if (options == NULL) {
        votecl_batch_options_init(&defaults);
        options = &defaults;
    }
    if ((st = votecl__struct_size_message(options, "options", sizeof *options, error,
                                          sizeof error)) != VOTECL_OK ||
        (st = resolve_backend(options, &backend, error, sizeof error)) != VOTECL_OK ||
        (st = list_devices(backend, &infos, &n)) != VOTECL_OK)
        goto out;
    if ((pos = calloc(n + 1, sizeof *pos)) == NULL) {
        st = VOTECL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    if ((st = match_devices(options, infos, n, pos, n, found)) != VOTECL_OK)
        goto out;
    for (size_t i = 0; i < *found && i < capacity; i++)
        out[i] = infos[pos[i]];
out:
    free(pos);
    free(infos);
    return st;
}

static votecl_status
batch_check(const votecl_batch_options *o, char *error, size_t error_size)
{
    if (o->streams_per_device > 16) {
        snprintf(error, error_size, "streams_per_device %u: at most 16", o->streams_per_device);
        return VOTECL_INVALID_ARGUMENT;
    }
    if (o->queue_depth > 65536) {
        snprintf(error, error_size, "queue_depth %u: at most 65536", o->queue_depth);
        return VOTECL_INVALID_ARGUMENT;
    }
    return VOTECL_OK;
}

/* One context per (device, stream), devices chosen by their selector with an index. */
static votecl_status
open_contexts(votecl_batch *b, const votecl_batch_options *o, votecl_backend backend, int gpu,
              unsigned devices, unsigned streams, char *error, size_t error_size)
{
    votecl_context_options co;
    char sel[300];
    votecl_context_options_init(&co);
    co.backend = backend;
    co.kernel_path = o->kernel_path;
    co.cache_dir = o->cache_dir;
    co.device = sel;
    for (unsigned d = 0; d < devices; d++) {
        if (selector_for(o, gpu, o->first_device + d, sel, sizeof sel) < 0)
            return VOTECL_INVALID_ARGUMENT;
        for (unsigned s = 0; s < streams; s++) {
            votecl_status st = votecl_context_new_with_error(&co, &b->contexts[d * streams + s],
                                                             error, error_size);
            if (st != VOTECL_OK)
                return st;
        }
    }
    return VOTECL_OK;
}

votecl_status
votecl_batch_new(const votecl_batch_options *options, votecl_batch **out, char *error,
                 size_t error_size)
{
    votecl_batch_options o;
    votecl_device_info *infos = NULL;
    votecl_batch *b = NULL;
    size_t n = 0, devices = 0;
    votecl_backend backend;
    unsigned streams;
    char dummy[8];
    votecl_status st;
    if (error == NULL || error_size == 0)
        error = dummy, error_size = sizeof dummy;
    error[0] = '\0';
    if (out == NULL)
        return VOTECL_INVALID_ARGUMENT;
    *out = NULL;
    votecl_batch_options_init(&o);
    if (options != NULL && (st = votecl__struct_size_message(options, "options", sizeof *options,
                                                             error, error_size)) != VOTECL_OK)
        return st;
    if (options != NULL)
        o = *options;
    streams = o.streams_per_device ? o.streams_per_device : 2;
    if ((st = batch_check(&o, error, error_size)) != VOTECL_OK ||
        (st = resolve_backend(&o, &backend, error, error_size)) != VOTECL_OK ||
        (st = list_devices(backend, &infos, &n)) != VOTECL_OK)
        goto out;
    if ((st = match_devices(&o, infos, n, NULL, 0, &devices)) != VOTECL_OK) {
        snprintf(error, error_size, "devices \"%s\": expected \"platform:type\"", o.devices);
        goto out;
    }
    if (devices == 0) {
        snprintf(error, error_size, "no %s device matches \"%s\" from device %u on",
                 votecl_backend_name(backend), o.devices ? o.devices : "", o.first_device);
        st = VOTECL_NO_DEVICE;
        goto out;
    }
    if (devices * streams > VOTECL_BATCH_MAX_WORKERS)
        devices = VOTECL_BATCH_MAX_WORKERS / streams;
    if ((b = calloc(1, sizeof *b)) == NULL ||
        (b->contexts = calloc(devices * streams, sizeof *b->contexts)) == NULL) {
        st = VOTECL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    b->workers = (unsigned)(devices * streams);
    b->queue_depth = o.queue_depth ? o.queue_depth : 2 * b->workers + 1;
    st = open_contexts(b, &o, backend, has_gpu(infos, n), (unsigned)devices, streams, error,
                       error_size);
out:
    free(infos);
    if (st != VOTECL_OK)
        votecl_batch_free(b);
    else
        *out = b;
    return st;
}

void
votecl_batch_free(votecl_batch *batch)
{
    if (batch == NULL)
        return;
    for (unsigned i = 0; batch->contexts != NULL && i < batch->workers; i++)
        votecl_context_free(batch->contexts[i]);
    free(batch->contexts);
    free(batch);
}

unsigned
votecl_batch_workers(const votecl_batch *batch)
{
    return batch != NULL ? batch->workers : 0;
}

votecl_context *
votecl_batch_context(votecl_batch *batch, unsigned worker)
{
    return batch != NULL && worker < batch->workers ? batch->contexts[worker] : NULL;
}

/* --- the run --- */

static batch_slot *
slot_of(batch_run *r, uint64_t index)
{
    return &r->slots[index % r->batch->queue_depth];
}

static void *
loader_main(void *arg)
{
    batch_run *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!r->stop) {
        uint64_t index = r->loaded;
        void *item = NULL;
        votecl_status st;
        if (index - r->emitted >= r->batch->queue_depth) {
            pthread_cond_wait(&r->changed, &r->lock);
            continue;
        }
        pthread_mutex_unlock(&r->lock);
        st = r->cb->load(r->user, index, &item);
        pthread_mutex_lock(&r->lock);
        if (st != VOTECL_OK || item == NULL) {
            /* what was loaded is still processed and emitted; the run then returns st */
            r->ended = 1;
            r->load_status = st;
            pthread_cond_broadcast(&r->changed);
            break;
        }
        *slot_of(r, index) = (batch_slot){.state = SLOT_LOADED, .index = index, .item = item};
        r->loaded++;
        pthread_cond_broadcast(&r->changed);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* The lowest loaded index waiting for a worker, or NULL. */
static batch_slot *
next_loaded(batch_run *r)
{
    for (uint64_t i = r->emitted; i < r->loaded; i++) {
        batch_slot *s = slot_of(r, i);
        if (s->state == SLOT_LOADED)
            return s;
    }
    return NULL;
}

static void *
worker_main(void *arg)
{
    batch_worker *w = arg;
    batch_run *r = w->run;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        batch_slot *s = next_loaded(r);
        void *result = NULL;
        votecl_status st;
        if (r->stop || (s == NULL && r->ended))
            break;
        if (s == NULL) {
            pthread_cond_wait(&r->changed, &r->lock);
            continue;
        }
        s->state = SLOT_RUNNING;
        pthread_mutex_unlock(&r->lock);
        st = r->cb->process(r->user, r->batch->contexts[w->index], w->index, s->index, s->item,
                            &result);
        pthread_mutex_lock(&r->lock);
        s->result = result;
        s->status = st;
        s->worker = w->index;
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&r->changed);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* The caller's loop: emits items in order until the end or a failure. */
static votecl_status
emit_loop(batch_run *r)
{
    votecl_status st = VOTECL_OK;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        batch_slot *s = slot_of(r, r->emitted);
        batch_slot copy;
        if (r->stop)
            break;
        if (r->emitted == r->loaded && r->ended)
            break;
        if (r->emitted == r->loaded || s->state != SLOT_DONE) {
            pthread_cond_wait(&r->changed, &r->lock);
            continue;
        }
        copy = *s;
        pthread_mutex_unlock(&r->lock);
        st = r->cb->emit(r->user, copy.index, copy.item, copy.result, copy.status, copy.worker);
        pthread_mutex_lock(&r->lock);
        s->state = SLOT_FREE;
        r->emitted++;
        if (st != VOTECL_OK)
            r->stop = 1;
        pthread_cond_broadcast(&r->changed);
    }
    if (st == VOTECL_OK && r->load_status != VOTECL_OK)
        st = r->load_status;
    pthread_mutex_unlock(&r->lock);
    return st;
}

static void
discard_left(batch_run *r)
{
    for (uint64_t i = r->emitted; i < r->loaded; i++) {
        batch_slot *s = slot_of(r, i);
        if (r->cb->discard != NULL && s->state != SLOT_FREE)
            r->cb->discard(r->user, s->item, s->result);
        s->state = SLOT_FREE;
    }
}

static void
stop_all(batch_run *r)
{
    pthread_mutex_lock(&r->lock);
    r->stop = 1;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
}

/* Starts the loader and the workers; *started: threads made (loader first). */
static votecl_status
start_threads(batch_run *r, pthread_t *threads, batch_worker *w, unsigned *started)
{
    *started = 0;
    if (pthread_create(&threads[0], NULL, loader_main, r) != 0)
        return VOTECL_OUT_OF_HOST_MEMORY;
    *started = 1;
    for (unsigned i = 0; i < r->batch->workers; i++) {
        w[i] = (batch_worker){.run = r, .index = i};
        if (pthread_create(&threads[i + 1], NULL, worker_main, &w[i]) != 0)
            return VOTECL_OUT_OF_HOST_MEMORY;
        (*started)++;
    }
    return VOTECL_OK;
}

votecl_status
votecl_batch_run(votecl_batch *batch, votecl_batch_load_fn load, votecl_batch_process_fn process,
                 votecl_batch_emit_fn emit, votecl_batch_discard_fn discard, void *user,
                 uint64_t *items)
{
    const batch_callbacks cb = {load, process, emit, discard};
    batch_run r = {.batch = batch, .cb = &cb, .user = user, .load_status = VOTECL_OK};
    pthread_t *threads = NULL;
    batch_worker *w = NULL;
    unsigned started = 0;
    votecl_status st;
    if (items != NULL)
        *items = 0;
    if (batch == NULL || load == NULL || process == NULL || emit == NULL)
        return VOTECL_INVALID_ARGUMENT;
    r.slots = calloc(batch->queue_depth, sizeof *r.slots);
    threads = calloc(batch->workers + 1, sizeof *threads);
    w = calloc(batch->workers, sizeof *w);
    if (r.slots == NULL || threads == NULL || w == NULL) {
        st = VOTECL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.changed, NULL);
    st = start_threads(&r, threads, w, &started);
    if (st == VOTECL_OK)
        st = emit_loop(&r);
    stop_all(&r);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    discard_left(&r);
    pthread_cond_destroy(&r.changed);
    pthread_mutex_destroy(&r.lock);
    if (items != NULL)
        *items = r.emitted;
out:
    free(w);
    free(threads);
    free(r.slots);
    return st;
}
