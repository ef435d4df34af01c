/** @file
 * libvotecl: collections over every device of a host.
 *
 * A batch holds one context per worker: every device of the chosen backend that matches a
 * selector, times streams_per_device. Two streams on one device are two contexts with their
 * own queues, so while one uploads or reads back an item the other computes: the double
 * buffering of a pipeline built from the library's blocking calls.
 *
 * votecl_batch_run() drives three kinds of threads over one shared work queue:
 * - one loader thread calls load() for the items in input order (reading, decoding), staying
 *   at most queue_depth items ahead of what has been emitted;
 * - one thread per worker takes the oldest loaded item and calls process() on its context;
 * - the calling thread calls emit() in input order, as soon as the next item is done.
 * So reading and decoding overlap device work, every device stays busy while any item is
 * waiting, and the output is in input order whatever device finished first.
 *
 * Threads: load() runs on one thread, emit() on the caller's, process() on the workers' (one
 * item at a time per worker, each with its own context; the worker index tells the callback
 * which per-worker state to use). A batch is used by one thread at a time. */
#ifndef VOTECL_BATCH_H
#define VOTECL_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most workers (devices x streams_per_device) of one batch. */
#define VOTECL_BATCH_MAX_WORKERS 256

/** Options of a batch; fill with votecl_batch_options_init() first. */
typedef struct votecl_batch_options {
    size_t struct_size;          /**< set by the _init function: see votecl.h */
    votecl_backend backend;      /**< DEFAULT: as votecl_context_new() chooses (VOTECL_BACKEND
                                    and the build), resolved once */
    const char *devices;         /**< borrowed; "platform:type" of votecl_context_new()'s
                                    selector without the index part; NULL or "": every GPU of
                                    the backend, else every device */
    unsigned first_device;       /**< skip this many matching devices (an MPI rank's share) */
    unsigned max_devices;        /**< 0: every matching device from first_device on */
    unsigned streams_per_device; /**< contexts per device; 0: 2 (double buffering) */
    unsigned queue_depth;        /**< items loaded ahead of the output; 0: 2 per worker + 1 */
    const char *kernel_path;     /**< borrowed; as votecl_context_options */
    const char *cache_dir;       /**< borrowed; as votecl_context_options */
} votecl_batch_options;

/** A pipeline of loader, worker and output threads over a collection (opaque). */
typedef struct votecl_batch votecl_batch;

/** Loader thread, input order: the item of index (transfer full to the batch, handed back to
 * emit()), or *item = NULL when the collection has ended. A status other than VOTECL_OK stops
 * the run, which returns it. */
typedef votecl_status (*votecl_batch_load_fn)(void *user, uint64_t index, void **item);
/** Worker thread: the work of one item on context (borrowed, the worker's own); *result
 * (transfer full) goes to emit(). A failure does not stop the run: emit() receives it. */
typedef votecl_status (*votecl_batch_process_fn)(void *user, votecl_context *context,
                                                 unsigned worker, uint64_t index, void *item,
                                                 void **result);
/** The calling thread, input order: item and result (transfer full: emit frees them), status
 * what process() returned. A status other than VOTECL_OK stops the run, which returns it. */
typedef votecl_status (*votecl_batch_emit_fn)(void *user, uint64_t index, void *item, void *result,
                                              votecl_status status, unsigned worker);
/** Frees an item that was loaded but never emitted (a stopped run); may be NULL. */
typedef void (*votecl_batch_discard_fn)(void *user, void *item, void *result);

/** Sets struct_size and the defaults: backend DEFAULT, every GPU (else every device), two streams
 * each. */
VOTECL_API void votecl_batch_options_init(votecl_batch_options *options);

/** The devices a batch with these options would use. infos: caller-owned output of capacity
 * entries (may be NULL when capacity is 0); found: their number, also when more than capacity.
 * Returns VOTECL_OK (also with none), VOTECL_INVALID_ARGUMENT (a bad selector) or
 * VOTECL_BACKEND_UNAVAILABLE. */
VOTECL_API votecl_status votecl_batch_devices(const votecl_batch_options *options,
                                              votecl_device_info *infos, size_t capacity,
                                              size_t *found);

/** Creates the contexts. options may be NULL for the defaults. out: caller-owned (free with
 * votecl_batch_free()); NULL on failure, with a message in error (caller-owned, capacity
 * error_size; may be NULL). Returns VOTECL_OK, VOTECL_INVALID_ARGUMENT, VOTECL_NO_DEVICE (no
 * device matches), VOTECL_BACKEND_UNAVAILABLE, VOTECL_DEVICE_ERROR or
 * VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_batch_new(const votecl_batch_options *options, votecl_batch **out,
                                          char *error, size_t error_size);

/** Frees the contexts. NULL is a no-op. */
VOTECL_API void votecl_batch_free(votecl_batch *batch);

/** Workers: devices times streams. */
VOTECL_API unsigned votecl_batch_workers(const votecl_batch *batch);

/** The context of a worker (index below votecl_batch_workers()), NULL for another index.
 * Transfer none; use it only outside votecl_batch_run() or from that worker's process(). */
VOTECL_API votecl_context *votecl_batch_context(votecl_batch *batch, unsigned worker);

/** Runs the collection (see the top of this header) through load, process and emit
 * (required) and discard (may be NULL), each called with user, and returns when every item
 * was emitted, or when load() or emit() failed (their status), or VOTECL_OUT_OF_HOST_MEMORY
 * when threads cannot be started. items: when not NULL, the items emitted. Items loaded and
 * not emitted are given to discard(). */
VOTECL_API votecl_status votecl_batch_run(votecl_batch *batch, votecl_batch_load_fn load,
                                          votecl_batch_process_fn process,
                                          votecl_batch_emit_fn emit,
                                          votecl_batch_discard_fn discard, void *user,
                                          uint64_t *items);

#ifdef __cplusplus
}
#endif

#endif
