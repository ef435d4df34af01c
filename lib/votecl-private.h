/* Internal umbrella header: never installed. Internal non-static symbols use votecl__. */
#ifndef VOTECL_PRIVATE_H
#define VOTECL_PRIVATE_H

#include "config.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <votecl.h>

#include "backend.h"

typedef struct votecl__program votecl__program;

/* --- the device's shape (context.c): one decision per context, read by every module ---
 *
 * The facts a context sees (context->info) are the device's, shrunk by the overrides and
 * the named profiles (docs/profiles.md): local memory per work-group, the work-group limit and
 * the SIMD width (info.preferred_work_group_multiple). Beside them, the decisions that modules
 * used to take each on their own: whether the device is CPU-shaped and which optional
 * features the kernels may use. */

/* Optional device features; 32-bit local and global atomics are required, not listed. */
#define VOTECL__FEATURE_WARP_MATCH 0x1u /* warp vote/match/shuffle: NVIDIA warps of 32 */
#define VOTECL__FEATURE_SUBGROUPS 0x2u  /* cl_khr_subgroups or cl_intel_subgroups; CUDA warps */
#define VOTECL__FEATURE_FP64 0x4u       /* double precision (cl_khr_fp64) */
#define VOTECL__FEATURE_ATOMICS64 0x8u  /* 64-bit atomics (cl_khr_int64_base_atomics) */
#define VOTECL__FEATURES_ALL 0xfu

typedef enum votecl__shape_kind {
    VOTECL__SHAPE_AUTO = 0, /* from the device: CPU-shaped when a CPU or local memory is emulated */
    VOTECL__SHAPE_CPU = 1,  /* work-item-owned data, no local-memory atomics, host steps */
    VOTECL__SHAPE_GPU = 2   /* local memory with atomics, work-groups of SIMD multiples */
} votecl__shape_kind;

/* A device profile: what a context may see at most. Zero fields leave the device's value. A
 * profile only shrinks the device (the minimum with the real value); the SIMD width, a
 * property rather than a resource, is taken as given. */
typedef struct votecl__profile {
    const char *name;         /* VOTECL_DEVICE_PROFILE's name; NULL for the overrides alone */
    votecl__shape_kind shape; /* AUTO: the device's */
    uint64_t local_mem_bytes; /* per work-group */
    size_t max_work_group_size;
    unsigned simd;         /* 32 or 64 (1 for a CPU's scalar lanes) */
    unsigned features_off; /* VOTECL__FEATURE_* taken away */
    /* One compute unit's residency, which no API reports (0: unknown): work-items and local
     * memory shared by its resident groups. */
    unsigned unit_threads;
    uint64_t unit_local_mem;
} votecl__profile;

/* The decisions of one context (context->shape). */
typedef struct votecl__shape {
    int cpu;                 /* CPU-shaped: the modules' CPU implementations */
    unsigned simd;           /* lanes in lock step (= info.preferred_work_group_multiple) */
    unsigned banks;          /* local memory banks: 32 on NVIDIA and AMD GPUs, 1 on CPU shapes */
    unsigned features;       /* VOTECL__FEATURE_* the device has and the profile leaves */
    unsigned unit_threads;   /* the profile's residency per compute unit; 0: unknown */
    uint64_t unit_local_mem; /* (votecl__vote_resident assumes NVIDIA's since Volta) */
    char profile[16];        /* the named profile, "" when none */
} votecl__shape;

/* The named profiles (device-profile.c): fermi, gcn, rdna, ocl-min, cpu; NULL for another name. */
const votecl__profile *votecl__profile_named(const char *name);
/* Applies profile p (may be NULL) to the facts info of a device whose optional features are
 * features, and fills shape; pure, so that tools can compose a profile's kernels with no
 * device (context.c). */
void votecl__shape_resolve(const votecl__profile *p, unsigned features, votecl_device_info *info,
                           votecl__shape *shape);

struct votecl_buffer {
    votecl_context *context;
    void *handle;
    size_t size;
    int borrowed; /* wraps the caller's device memory (votecl_buffer_wrap_device) */
};

struct votecl_context {
    votecl_backend backend;
    const votecl__backend_ops *ops;
    void *impl;                  /* backend state */
    votecl_device_info info;
    char *kernel_path;           /* colon-separated, resolved by context.c */
    char *cache_dir;             /* NULL: disk cache off */
    votecl_variant force_variant; /* from VOTECL_FORCE_VARIANT; AUTO when unset */
    int local_agg;               /* VOTECL_LOCAL_AGG + 1 (vote_local's LOCAL_AGG bits); 0 unset */
    int fused_merge;             /* VOTECL_FUSED_MERGE + 1; 0 unset */
    int local_loads;             /* VOTECL_LOCAL_LOADS + 1; 0 unset */
    int local_groups;            /* VOTECL_LOCAL_GROUPS (groups per compute unit) + 1; 0 unset */
    int debug;                   /* VOTECL_DEBUG set */
    unsigned host_threads;       /* VOTECL_HOST_THREADS; 0: the host's cores (parallel.h) */
    unsigned features;           /* VOTECL__FEATURE_* of the device (set by the backend) */
    votecl__shape shape;         /* resolved once in context.c; modules read only this */
    /* the execution-time model the engine asks (vote-private.h; model.c's, set by context.c) */
    const struct votecl__model_hooks *model;
    char error[1024];
    char *build_log;
    /* The thread inside a public call (votecl__enter), 0 when none: the header allows one
     * thread at a time, and a second one is refused rather than let corrupt the plans' state.
     * Zero (calloc) is the free state for every constructor, the adopting one included. */
    _Atomic uintptr_t busy;
    unsigned busy_depth; /* nested public calls of that thread; only it touches this */
    votecl__program *programs;   /* in-memory program cache */
    votecl_build_callback build_callback; /* votecl_context_set_build_callback; NULL: none */
    void *build_user;
    unsigned long builds; /* programs compiled from source (a count the tests read) */
    int pocl_binaries;    /* VOTECL_POCL_BINARIES: store PoCL's binaries too (program.c) */
    char *dump_dir;       /* VOTECL_DUMP_PROGRAMS: composed programs written here; NULL: off */
    /* what buffer.c put on the queue, for votecl_context_get_queue_counts and the plans'
     * VOTECL_DEBUG lines (what one run cost in round trips and bytes) */
    votecl_queue_counts queued;
};

/* --- errors and the debug log (log.c) --- */

/* The opening of every constructor: a NULL context is VOTECL_INVALID_ARGUMENT (with nowhere
 * to put a message); otherwise the context's error is cleared, a NULL params (named
 * params_name) or out pointer is VOTECL_INVALID_ARGUMENT naming it, and params' struct_size
 * is checked against size (votecl__struct_size_check). */
votecl_status votecl__new_begin_sized(votecl_context *context, const void *params,
                                      const char *params_name, size_t size, const void *out);
/* The same for a public parameter struct *params: its size is taken from its type, and a
 * type without struct_size as its first member does not compile. */
#define votecl__new_begin(context, params, params_name, out)                                  \
    votecl__new_begin_sized((context), (params), (params_name),                                \
                            sizeof *(params) + VOTECL__STRUCT_SIZE_FIRST(params), (out))
/* How a plan is checked, built and freed, so that one constructor, votecl__plan_new(),
 * serves them all. A plan without a frame size gets 0 x 0. */
typedef struct votecl__plan_ops {
    size_t size;             /* of the plan */
    const char *params_name; /* in messages; NULL: "params" */
    /* the parameters' own check for a width x height frame, its message in msg (or NULL) */
    votecl_status (*check)(const void *params, size_t width, size_t height, char *msg,
                           size_t msg_size);
    /* or a check that records its own message in context (or NULL) */
    votecl_status (*check_in)(votecl_context *context, const void *params);
    /* builds the zeroed plan for context; on failure the plan goes to release */
    votecl_status (*init)(void *plan, votecl_context *context, const void *params, size_t width,
                          size_t height);
    void (*release)(void *plan);
} votecl__plan_ops;

/* A frame plan's width x height: each side 1 to max_side (at most 65535), the pixels at most
 * VOTECL__MAX_IMAGE_PIXELS; VOTECL_INVALID_ARGUMENT with the message in msg otherwise. */
votecl_status votecl__frame_check(size_t width, size_t height, unsigned max_side, char *msg,
                                  size_t msg_size);
/* A run's results: found not NULL, nor the array items (called name in the message) unless
 * its capacity is 0; VOTECL_INVALID_ARGUMENT naming the NULL one otherwise. */
votecl_status votecl__results_check(votecl_context *context, const size_t *found, const void *items,
                                    size_t capacity, const char *name);
/* The constructor of a plan: votecl__new_begin's checks (params_size as it computes it),
 * *out cleared, the parameters checked, the plan allocated, built and handed out. */
votecl_status votecl__plan_new(const votecl__plan_ops *ops, votecl_context *context,
                               const void *params, size_t params_size, size_t width, size_t height,
                               void **out);
/* Defines a module's plan_ops for plans of type T freed by free_fn (through plan_release,
 * which takes the void pointer); the rest are designated initializers (.check or .check_in,
 * .init, .params_name). */
#define VOTECL__PLAN_OPS(T, free_fn, ...)                                                          \
    static void plan_release(void *plan)                                                           \
    {                                                                                              \
        free_fn(plan);                                                                             \
    }                                                                                              \
    static const votecl__plan_ops plan_ops = {                                                     \
        .size = sizeof(T), .release = plan_release, __VA_ARGS__}
#define votecl__plan_new_of(ops, context, params, width, height, out)                              \
    votecl__plan_new((ops), (context), (params),                                                   \
                     sizeof *(params) + VOTECL__STRUCT_SIZE_FIRST(params), (width), (height),      \
                     (void **)(out))
/* 0, or a compile error when *p's first member is not struct_size. */
#define VOTECL__STRUCT_SIZE_FIRST(p)                                                           \
    (0 * sizeof(char[offsetof(__typeof__(*(p)), struct_size) == 0 ? 1 : -1]))
/* The opening of every public *_init(p) (votecl.h's struct_size scheme): a NULL p returns
 * from the caller at once; otherwise *p is zeroed and its struct_size set, the caller's own
 * defaults following. */
#define VOTECL__PARAMS_INIT_OR_RETURN(p)                                                           \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return;                                                                                \
        memset((p), 0, sizeof *(p));                                                               \
        (p)->struct_size = sizeof *(p) + VOTECL__STRUCT_SIZE_FIRST(p);                             \
    } while (0)

/* The forward-compatible parameter scheme (votecl.h): params' first member, struct_size,
 * must be size, the size of the struct this library was built with. A library that appends
 * fields will also accept the sizes of its earlier releases and default the missing fields;
 * until then there is one size. 0 (a struct never initialized) is VOTECL_INVALID_ARGUMENT,
 * a larger size (a program built against newer headers) VOTECL_UNSUPPORTED; the message names
 * name.struct_size and goes to msg, or to the context's error. */
votecl_status votecl__struct_size_message(const void *params, const char *name, size_t size,
                                          char *msg, size_t msg_size);
votecl_status votecl__struct_size_check(votecl_context *context, const void *params,
                                        const char *name, size_t size);

/* Records a formatted message as the context's error and returns status. */
votecl_status votecl__fail(votecl_context *context, votecl_status status, const char *format,
                           ...) __attribute__((format(printf, 3, 4)));
void votecl__clear_error(votecl_context *context);

/* --- one thread at a time (log.c) ---
 *
 * Every public call that works on a context or its objects opens with
 * VOTECL__ENTER_OR_RETURN(context) in place of votecl__clear_error(): it marks the context
 * busy with the calling thread until the function returns (a cleanup variable), and a call
 * from a second thread meanwhile returns VOTECL_INVALID_ARGUMENT at once ("context used by
 * two threads at once", kept per thread: votecl_context_get_error() shows it to the refused
 * thread without touching the other's message). The same thread may nest public calls. A
 * NULL context passes (the function's own check refuses it). */
typedef struct votecl__guard {
    votecl_context *context; /* held, or NULL */
    int refused;
} votecl__guard;

votecl__guard votecl__enter(votecl_context *context);
void votecl__leave(votecl__guard *guard);
/* The refused thread's message for context, or NULL (votecl_context_get_error()). */
const char *votecl__refused_error(const votecl_context *context);

#define VOTECL__ENTER_OR_RETURN(context)                                                       \
    votecl__guard votecl__guard_ __attribute__((cleanup(votecl__leave))) =                     \
        votecl__enter(context);                                                                \
    if (votecl__guard_.refused)                                                                \
    return VOTECL_INVALID_ARGUMENT
/* The same for a public call that refuses a NULL context, or a NULL object of a context (a
 * plan, a model): VOTECL_INVALID_ARGUMENT, else the guard is taken for the whole call (in the
 * entry point itself: the guard is released when the function holding it returns). */
#define VOTECL__ENTER_NONNULL_OR_RETURN(p, context)                                                \
    if ((p) == NULL)                                                                               \
        return VOTECL_INVALID_ARGUMENT;                                                            \
    VOTECL__ENTER_OR_RETURN(context)
#define VOTECL__ENTER_CONTEXT_OR_RETURN(context) VOTECL__ENTER_NONNULL_OR_RETURN(context, context)
#define VOTECL__ENTER_OBJ_OR_RETURN(obj) VOTECL__ENTER_NONNULL_OR_RETURN(obj, (obj)->context)
/* Replaces the build log (text may be NULL). */
void votecl__set_build_log(votecl_context *context, const char *text);
/* Writes to stderr only when VOTECL_DEBUG was set for the context. */
void votecl__log(const votecl_context *context, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* --- ranked peaks --- */

/* Defines the qsort comparator `name` of the struct type T that ranks peaks everywhere: the
 * most `votes` first, equal votes by the lower `key` (both unsigned fields). */
#define VOTECL__RANK_COMPARE(name, T, votes, key)                                                  \
    static int name(const void *pa, const void *pb)                                                \
    {                                                                                              \
        const T *a = pa, *b = pb;                                                                  \
        if (a->votes != b->votes)                                                                  \
            return a->votes > b->votes ? -1 : 1;                                                   \
        return a->key < b->key ? -1 : a->key > b->key;                                             \
    }

/* --- size arithmetic --- */

/* a * b into out; returns nonzero on overflow. */
static inline int
votecl__mul_overflow(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

static inline int
votecl__add_overflow(size_t a, size_t b, size_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

static inline size_t
votecl__round_up(size_t x, size_t multiple)
{
    return (x + multiple - 1) / multiple * multiple;
}

/* A float's bit pattern, and the float of one: kernels get exact float constants as
 * as_float(0x...u), and a bisection over floats steps through their patterns. */
static inline uint32_t
votecl__float_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float
votecl__bits_float(uint32_t u)
{
    float f;

    memcpy(&f, &u, sizeof f);
    return f;
}

/* --- host allocation (alloc.c): the library's only calls of malloc, calloc and realloc;
 * release with free --- */
void *votecl__malloc(size_t size);
void *votecl__calloc(size_t count, size_t size);
void *votecl__realloc(void *p, size_t size);
/* The library's growable arrays: makes *items (room for *capacity elements of size bytes)
 * hold at least need elements, doubling and never fewer than first; allocates when *items
 * is NULL even for need 0. 0, or -1 on overflow or out of memory (then nothing changed). */
int votecl__grow(void **items, size_t *capacity, size_t need, size_t size, size_t first);

/* free() on each of the n pointers: a destructor lists what it owns once, through
 * VOTECL__FREE_ALL(obj->a, obj->b, ..., obj). */
void votecl__free_all(void *const *ptrs, size_t n);
#define VOTECL__FREE_ALL(...)                                                                      \
    votecl__free_all((void *const[]){__VA_ARGS__},                                                 \
                     sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

/* Duplicates a string with votecl__malloc; NULL for NULL or on failure. */
char *votecl__strdup(const char *s);

/* --- image views (image.c) --- */

/* Pixels an image view may have: kernels index elements with 32-bit arithmetic. */
#define VOTECL__MAX_IMAGE_PIXELS ((size_t)VOTECL_IMAGE_MAX_PIXELS)

/* dtype's name, or "unknown dtype N" written into buf, for messages. */
#define VOTECL__DTYPE_TEXT 32
const char *votecl__dtype_text(votecl_dtype dtype, char buf[VOTECL__DTYPE_TEXT]);

/* Checks a view against the plan's element type and channels (0: any of 1-4); fills the
 * bytes of a row and the number of pixels. Failures name the field. */
votecl_status votecl__image_check(votecl_context *context, const votecl_image *image,
                                  votecl_dtype dtype, unsigned channels, size_t *row_bytes,
                                  size_t *pixels);
/* The view's pixels as packed rows: its own data when the rows touch (*copy NULL), else a
 * malloc'd packed copy in both *pixels and *copy, which the caller frees. */
votecl_status votecl__image_packed(votecl_context *context, const votecl_image *image,
                                   size_t row_bytes, const void **pixels, void **copy);

/* --- device selectors (device-select.c) --- */

/* The device that selector (OpenCV's "platform:type:name-or-index"; NULL or "" for the first
 * GPU, else the first device) picks among n device facts, the i-th at (char *)first +
 * i * stride. Returns its index, -1 when none matches, -2 for a malformed selector. */
long votecl__device_select(const votecl_device_info *first, size_t stride, size_t n,
                           const char *selector);

/* --- hashing (hash.c): SHA-256 --- */

typedef struct votecl__sha256 {
    uint32_t state[8];
    uint64_t length;
    uint8_t block[64];
    size_t used;
} votecl__sha256;

void votecl__sha256_init(votecl__sha256 *h);
void votecl__sha256_update(votecl__sha256 *h, const void *data, size_t size);
void votecl__sha256_final(votecl__sha256 *h, uint8_t digest[32]);
void votecl__sha256_hex(const uint8_t digest[32], char hex[65]);

/* --- kernel lookup (kernel-path.c) --- */

/* The search list: env_path (VOTECL_KERNEL_PATH), then option_path, then installed; each may
 * be NULL or itself colon-separated; empty entries are dropped. Never the current
 * directory. Returns malloc'd text or NULL when out of memory. */
char *votecl__kernel_path_join(const char *env_path, const char *option_path,
                               const char *installed);
/* Finds file in the first directory of path that has it; *found is malloc'd. Relative
 * directories in path are ignored. A first match that others can change
 * (votecl__path_trusted) is refused: VOTECL_KERNEL_NOT_FOUND, and
 * votecl__kernel_path_untrusted names it. Returns VOTECL_OK, VOTECL_KERNEL_NOT_FOUND or
 * VOTECL_OUT_OF_HOST_MEMORY. */
votecl_status votecl__kernel_path_find(const char *path, const char *file, char **found);
/* The untrusted first match votecl__kernel_path_find refused (malloc'd), else NULL. */
char *votecl__kernel_path_untrusted(const char *path, const char *file);
/* Reads a whole file into malloc'd, NUL-terminated memory. */
votecl_status votecl__read_file(const char *filename, char **text, size_t *size);

/* --- disk cache (diskcache.c) --- */

/* Looks up key in dir. On a hit returns 0 and a malloc'd payload; a missing, short,
 * corrupt or mismatched file is a miss (-1). Never fails otherwise. */
int votecl__diskcache_load(const char *dir, const uint8_t key[32], void **payload, size_t *size);
/* Stores payload under key: temporary file, then rename. Returns 0 or -1; a failure
 * leaves no partial entry behind. */
int votecl__diskcache_store(const char *dir, const uint8_t key[32], const void *payload,
                            size_t size);
/* Around handing a loaded entry to the driver: _loading() leaves this process's "being
 * loaded" marker beside the entry, _loaded() removes it. A later load that finds the marker
 * of a dead process deletes the entry (it crashed the driver; see diskcache.c). */
void votecl__diskcache_loading(const char *dir, const uint8_t key[32]);
void votecl__diskcache_loaded(const char *dir, const uint8_t key[32]);
/* 1 when dir is a directory owned by the effective user and not writable by group or
 * others (the cache's trust rule, docs/env.md). */
int votecl__diskcache_dir_trusted(const char *dir);
/* 1 when path (a file or directory, symbolic links resolved) and every directory above it
 * can be changed by no one but the effective user and root: each owned by one of them and
 * writable by no one else, a sticky directory above the end (/tmp) excepted. For what is
 * loaded as code: PoCL's kernel cache, VOTECL_KERNEL_PATH's files (docs/env.md). */
int votecl__path_trusted(const char *path);
/* mkdir -p with mode 0700 for what it creates; 0 when dir is then a trusted directory
 * (votecl__diskcache_dir_trusted), else -1. */
int votecl__diskcache_make_dir(const char *dir);
/* The file name an entry for key has in dir (malloc'd). */
char *votecl__diskcache_filename(const char *dir, const uint8_t key[32]);

/* --- programs (program.c) --- */

/* A monotonic clock in seconds, for the build times and stage times the debug log gives. */
double votecl__now_seconds(void);

/* Composes and builds (or finds in the caches) the program made of sorted defines
 * ("NAME" or "NAME=VALUE"), cl/prelude.h, cl/common.h, extra_source (may be NULL; it sets
 * its own #line), then each file of files (NULL-terminated list). The program belongs to the context's
 * cache and lives as long as the context. */
votecl_status votecl__program_get(votecl_context *context, const char *const *files,
                                  const char *const *defines, size_t ndefines,
                                  const char *extra_source, votecl__program **out);
/* The kernel called name in program; owned by the program. */
votecl_status votecl__program_kernel(votecl_context *context, votecl__program *program,
                                     const char *name, void **kernel);
/* The n kernels called names[] of the program votecl__program_get() gives for files and
 * defines (no extra source), into kernels[]. */
votecl_status votecl__program_kernels(votecl_context *context, const char *const *files,
                                      const char *const *defines, size_t ndefines,
                                      const char *const *names, size_t n, void **kernels);
/* Frees every cached program of the context. */
void votecl__program_cache_clear(votecl_context *context);
/* The programs in the context's memory cache (tests: what a warm-up composed). */
size_t votecl__program_cache_count(const votecl_context *context);
/* The composed source of program (transfer none), for tests and debugging. */
const char *votecl__program_source(const votecl__program *program);
/* 1 when the program came from the disk cache, for tests. */
int votecl__program_from_disk(const votecl__program *program);
/* A build log whose "<kernel>:LINE" locations (compilers that ignore #line file names, as
 * NVIDIA's OpenCL does) are rewritten to the composed file and its line ("user:3"), found
 * from the #line directives of source; malloc'd, NULL when there is nothing to rewrite or
 * no memory. */
char *votecl__relocate_log(const char *source, const char *log);

/* --- launches (buffer.c) --- */

votecl_status votecl__launch(votecl_context *context, void *kernel, unsigned dims,
                             const size_t *global, const size_t *local, const votecl__arg *args,
                             unsigned nargs);
votecl_status votecl__buffer_zero(votecl_buffer *buffer, size_t offset, size_t size);
/* A read-only buffer over host memory without a copy where the device shares host memory
 * (*buffer NULL and VOTECL_OK otherwise: the caller then uploads). Free with
 * votecl_buffer_free() once the work using it has finished. */
votecl_status votecl__buffer_wrap(votecl_context *context, const void *host, size_t size,
                                  votecl_buffer **buffer);
/* A caller's buffer argument `name`: not NULL, of context, at least need bytes; else
 * VOTECL_INVALID_ARGUMENT (VOTECL_INCOMPATIBLE for another context's) naming it. */
votecl_status votecl__buffer_check(votecl_context *context, const votecl_buffer *b, size_t need,
                                   const char *name);
/* votecl_buffer_free() on each of the n buffers (NULLs skipped): a destructor lists its
 * buffers once, through VOTECL__FREE_BUFFERS(plan->a, plan->b, ...). */
void votecl__buffers_free(votecl_buffer *const *buffers, size_t n);
#define VOTECL__FREE_BUFFERS(...)                                                                  \
    votecl__buffers_free((votecl_buffer *const[]){__VA_ARGS__},                                    \
                         sizeof((votecl_buffer *const[]){__VA_ARGS__}) / sizeof(votecl_buffer *))
/* Makes *buffer hold at least size bytes, reallocating when smaller (contents lost). */
votecl_status votecl__buffer_ensure(votecl_context *context, votecl_buffer **buffer,
                                    size_t size);

/* Host memory that uploads are written from: page-locked where the backend offers it (an
 * upload from it runs at the bus's speed, not a pageable copy's), plain memory otherwise.
 * Zero-initialise; kept between calls so that its cost is paid once. */
typedef struct votecl__staging {
    void *ptr;
    void *handle; /* the backend's; NULL for plain memory */
    size_t size;
} votecl__staging;

/* Makes s hold at least size bytes (contents lost when it grows). */
votecl_status votecl__staging_ensure(votecl_context *context, votecl__staging *s, size_t size);
void votecl__staging_free(votecl_context *context, votecl__staging *s);

/* --- reference device profiles (device-profile.c) --- */

/* A device as a paper describes it: the facts a context would report, plus the residency
 * limits of one compute unit that the paper's occupancy arithmetic uses. */
typedef struct votecl__device_profile {
    votecl_device_info info;
    unsigned banks;              /* local memory banks */
    uint64_t local_mem_per_unit; /* local memory of one compute unit, shared by its groups */
    unsigned threads_per_unit;   /* resident work-items per compute unit */
    unsigned groups_per_unit;    /* resident work-groups per compute unit */
} votecl__device_profile;

/* The GPU-vote paper's NVIDIA GTX 470 (Fermi): 14 multiprocessors, 48 KiB of shared memory,
 * 32 banks, 1536 resident threads and 8 blocks per multiprocessor, warps of 32. */
void votecl__device_profile_gtx470(votecl__device_profile *profile);
/* Work-groups of wg work-items, each with local_bytes of local memory, that one compute unit
 * of profile holds at once (0 when wg exceeds it). */
unsigned votecl__profile_resident_groups(const votecl__device_profile *profile, unsigned wg,
                                         uint64_t local_bytes);

/* --- the voting engine (vote.c) --- */

/* GPU-vote Eq. 3 and Eq. 5: S = max(floor(nmax / n), 1); S' = S for S < 64, else the
 * largest odd number <= S. */
void votecl__stretch_factors(uint64_t nmax, uint64_t n, unsigned *s, unsigned *s_prime);

#endif
