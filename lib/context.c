/* Contexts: option and environment resolution, backend selection. This is the only file
 * that reads environment variables; everything below it receives resolved values. */
#include "votecl-private.h"

#include "model-private.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef VOTECL_KERNELDIR
#define VOTECL_KERNELDIR "/usr/local/share/libvotecl/kernels"
#endif

static const char *
env_nonempty(const char *name)
{
    const char *value = getenv(name);
    return value != NULL && value[0] != '\0' ? value : NULL;
}

void
votecl_context_options_init(votecl_context_options *options)
{
    VOTECL__PARAMS_INIT_OR_RETURN(options);
}

static const votecl__backend_ops *
backend_ops(votecl_backend backend)
{
    switch (backend) {
    case VOTECL_BACKEND_OPENCL:
        return &votecl__backend_opencl;
    case VOTECL_BACKEND_REF:
        return &votecl__backend_ref;
#ifdef VOTECL_WITH_CUDA
    case VOTECL_BACKEND_CUDA:
        return &votecl__backend_cuda;
#endif
    default:
        return NULL;
    }
}

int
votecl_backend_is_built(votecl_backend backend)
{
    return backend != VOTECL_BACKEND_DEFAULT && backend_ops(backend) != NULL;
}

/* Options first, then VOTECL_BACKEND; DEFAULT when neither names one (the built-in order,
 * context_init_default). Returns -1 for an unknown name. */
static int
resolve_backend(const votecl_context_options *options, votecl_backend *out)
{
    const char *env = env_nonempty("VOTECL_BACKEND");
    static const votecl_backend all[] = {VOTECL_BACKEND_OPENCL, VOTECL_BACKEND_CUDA,
                                         VOTECL_BACKEND_REF};

    if (options->backend != VOTECL_BACKEND_DEFAULT) {
        *out = options->backend;
        return votecl_backend_name(options->backend) != NULL ? 0 : -1;
    }
    if (env == NULL) {
        *out = VOTECL_BACKEND_DEFAULT;
        return 0;
    }
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcasecmp(env, votecl_backend_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    }
    return -1;
}

static int
resolve_variant(votecl_variant *out)
{
    const char *env = env_nonempty("VOTECL_FORCE_VARIANT");

    *out = VOTECL_VARIANT_AUTO;
    if (env == NULL)
        return 0;
    for (int v = VOTECL_VARIANT_AUTO; v <= VOTECL_VARIANT_PRIVATE; v++) {
        if (strcasecmp(env, votecl_variant_name((votecl_variant)v)) == 0) {
            *out = (votecl_variant)v;
            return 0;
        }
    }
    return -1;
}

/* A small non-negative integer from the environment (at most max); -1 when unset, -2 when
 * not such a number. Measurement knobs of the local strategy (docs/env.md). */
static int
env_small_int(const char *name, int max)
{
    const char *env = env_nonempty(name);
    char *end;
    long v;

    if (env == NULL)
        return -1;
    v = strtol(env, &end, 10);
    return *end != '\0' || v < 0 || v > max ? -2 : (int)v;
}

/* An environment variable naming a directory: set, non-empty and absolute. A relative one
 * would put the cache in whatever the current directory is (the XDG base directory
 * specification says to ignore it); it is skipped with a debug message. */
static const char *
env_absolute_dir(const votecl_context *context, const char *name)
{
    const char *value = env_nonempty(name);
    if (value != NULL && value[0] != '/') {
        votecl__log(context, "context: %s='%s' is not an absolute path: ignored", name, value);
        return NULL;
    }
    return value;
}

/* The option, VOTECL_CACHE_DIR, $XDG_CACHE_HOME/votecl, ~/.cache/votecl (environment values
 * only when absolute); NULL when the disk cache is off or no directory can be named. */
static char *resolve_cache_dir_any(const votecl_context *context,
                                   const votecl_context_options *options);

static char *
resolve_cache_dir(const votecl_context *context, const votecl_context_options *options)
{
    if (options->disable_disk_cache || env_nonempty("VOTECL_DISABLE_DISK_CACHE") != NULL)
        return NULL;
    return resolve_cache_dir_any(context, options);
}

/* resolve_cache_dir without the switches that turn the cache off. */
static char *
resolve_cache_dir_any(const votecl_context *context, const votecl_context_options *options)
{
    const char *base;
    char buf[4096];
    int n;

    if (options->cache_dir != NULL)
        return options->cache_dir[0] != '\0' ? votecl__strdup(options->cache_dir) : NULL;
    if ((base = env_absolute_dir(context, "VOTECL_CACHE_DIR")) != NULL)
        return votecl__strdup(base);
    if ((base = env_absolute_dir(context, "XDG_CACHE_HOME")) != NULL)
        n = snprintf(buf, sizeof buf, "%s/votecl", base);
    else if ((base = env_absolute_dir(context, "HOME")) != NULL)
        n = snprintf(buf, sizeof buf, "%s/.cache/votecl", base);
    else
        return NULL;
    /* A truncated name would be some other directory. */
    return n > 0 && (size_t)n < sizeof buf ? votecl__strdup(buf) : NULL;
}

/* --- PoCL's kernel cache: under the library's trust rules (docs/env.md) --- */

/* PoCL dlopen()s the kernels it compiled from its own cache, with no check of who wrote
 * them; by default under $XDG_CACHE_HOME (a relative one: the current directory). So before
 * the OpenCL platform first loads, POCL_CACHE_DIR names a directory only this user and root
 * can change: the user's own POCL_CACHE_DIR when it is such a directory, else "pocl" in the
 * library's cache directory (made 0700), else a fresh private temporary directory with
 * PoCL's cache off. It is process-wide and read by PoCL once: the first context (or device
 * list) decides; a program that loaded OpenCL itself first keeps what PoCL chose then. */
static pthread_mutex_t pocl_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int pocl_cache_done;

static int
pocl_cache_under_library(const votecl_context *context, const votecl_context_options *options)
{
    votecl_context_options o = *options;
    char dir[4096], *base;
    int n;
    o.disable_disk_cache = 0; /* PoCL caches anyway: where it does is what matters */
    o.cache_dir =
        options->cache_dir != NULL && options->cache_dir[0] != '\0' ? options->cache_dir : NULL;
    if ((base = resolve_cache_dir_any(context, &o)) == NULL)
        return -1;
    n = snprintf(dir, sizeof dir, "%s/pocl", base);
    free(base);
    if (n <= 0 || (size_t)n >= sizeof dir || votecl__diskcache_make_dir(dir) != 0 ||
        !votecl__path_trusted(dir))
        return -1;
    return setenv("POCL_CACHE_DIR", dir, 1);
}

static void
pocl_cache_private(const votecl_context *context)
{
    const char *tmp = env_absolute_dir(context, "TMPDIR");
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s/votecl-pocl-XXXXXX", tmp ? tmp : "/tmp") >= (int)sizeof dir ||
        mkdtemp(dir) == NULL || !votecl__path_trusted(dir)) {
        snprintf(dir, sizeof dir, "/nonexistent/votecl-pocl"); /* PoCL then fails to cache */
    }
    setenv("POCL_KERNEL_CACHE", "0", 1);
    setenv("POCL_CACHE_DIR", dir, 1);
}

static void
pocl_cache_setup(const votecl_context *context, const votecl_context_options *options)
{
    const char *user = env_nonempty("POCL_CACHE_DIR");
    pthread_mutex_lock(&pocl_cache_lock);
    if (!pocl_cache_done) {
        pocl_cache_done = 1;
        if (user != NULL && votecl__path_trusted(user))
            votecl__log(context, "context: PoCL's cache: POCL_CACHE_DIR=%s (trusted)", user);
        else if (pocl_cache_under_library(context, options) == 0)
            votecl__log(context, "context: PoCL's cache: %s%s", getenv("POCL_CACHE_DIR"),
                        user ? " (POCL_CACHE_DIR was not a trusted directory)" : "");
        else
            pocl_cache_private(context);
    }
    pthread_mutex_unlock(&pocl_cache_lock);
}

static void
copy_message(char *error, size_t error_size, const char *text)
{
    if (error != NULL && error_size > 0)
        snprintf(error, error_size, "%s", text);
}

static votecl_status
context_resolve(votecl_context *context, const votecl_context_options *options,
                const char **selector)
{
    const char *dump;

    context->model = &votecl__model_hooks;
    if (resolve_backend(options, &context->backend) != 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "backend: unknown backend (VOTECL_BACKEND=%s); use opencl, cuda or ref",
                            getenv("VOTECL_BACKEND") ? getenv("VOTECL_BACKEND") : "");
    context->ops = backend_ops(context->backend);
    if (context->ops == NULL && context->backend != VOTECL_BACKEND_DEFAULT)
        return votecl__fail(context, VOTECL_BACKEND_UNAVAILABLE,
                            "backend %s was not built into this libvotecl (configure --enable-%s)",
                            votecl_backend_name(context->backend),
                            votecl_backend_name(context->backend));
    if (resolve_variant(&context->force_variant) != 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_FORCE_VARIANT: unknown variant '%s'; use local, global or private",
                            getenv("VOTECL_FORCE_VARIANT"));
    context->local_agg = env_small_int("VOTECL_LOCAL_AGG", 3) + 1;
    context->fused_merge = env_small_int("VOTECL_FUSED_MERGE", 1) + 1;
    context->local_loads = env_small_int("VOTECL_LOCAL_LOADS", 16) + 1;
    context->local_groups = env_small_int("VOTECL_LOCAL_GROUPS", 32) + 1;
    if (context->local_agg < 0 || context->fused_merge < 0 || context->local_loads < 0 ||
        context->local_groups < 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_LOCAL_AGG (0-3), VOTECL_FUSED_MERGE (0-1), "
                            "VOTECL_LOCAL_LOADS (0-16), VOTECL_LOCAL_GROUPS (0-32): not an "
                            "integer in range");
    context->kernel_path = votecl__kernel_path_join(env_nonempty("VOTECL_KERNEL_PATH"),
                                                    options->kernel_path, VOTECL_KERNELDIR);
    context->cache_dir = resolve_cache_dir(context, options);
    context->pocl_binaries = env_nonempty("VOTECL_POCL_BINARIES") != NULL;
    if ((dump = env_absolute_dir(context, "VOTECL_DUMP_PROGRAMS")) != NULL &&
        (context->dump_dir = votecl__strdup(dump)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    if (context->kernel_path == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for the kernel path");
    *selector = options->device != NULL ? options->device : env_nonempty("VOTECL_DEVICE");
    return VOTECL_OK;
}

/* The built-in order when nothing names a backend: CUDA where it is built and has a device,
 * else OpenCL. */
static votecl_status
context_init_default(votecl_context *context, const char *selector)
{
#ifdef VOTECL_WITH_CUDA
    votecl_status status;

    context->backend = VOTECL_BACKEND_CUDA;
    context->ops = &votecl__backend_cuda;
    status = context->ops->context_init(context, selector);
    if (status != VOTECL_NO_DEVICE && status != VOTECL_BACKEND_UNAVAILABLE)
        return status;
    votecl__log(context, "context: no CUDA (%s); trying OpenCL", context->error);
#endif
    context->backend = VOTECL_BACKEND_OPENCL;
    context->ops = &votecl__backend_opencl;
    return context->ops->context_init(context, selector);
}

/* --- the device's shape: profiles and overrides (docs/profiles.md) --- */

static uint64_t
shrink(uint64_t have, uint64_t cap)
{
    return cap > 0 && cap < have ? cap : have;
}

void
votecl__shape_resolve(const votecl__profile *p, unsigned features, votecl_device_info *info,
                      votecl__shape *shape)
{
    static const votecl__profile none = {0};

    if (p == NULL)
        p = &none;
    memset(shape, 0, sizeof *shape);
    info->local_mem_bytes = shrink(info->local_mem_bytes, p->local_mem_bytes);
    info->max_work_group_size = (size_t)shrink(info->max_work_group_size, p->max_work_group_size);
    if (p->simd > 0)
        info->preferred_work_group_multiple = p->simd;
    /* Where local memory is ordinary memory, local atomics and barriers buy nothing: the
     * CPU implementations own their data per work-item instead. */
    shape->cpu = p->shape == VOTECL__SHAPE_AUTO
                     ? info->type == VOTECL_DEVICE_CPU || !info->local_mem_dedicated
                     : p->shape == VOTECL__SHAPE_CPU;
    shape->simd =
        info->preferred_work_group_multiple > 0 ? (unsigned)info->preferred_work_group_multiple : 1;
    /* NVIDIA's warps of 32 and AMD's LDS (wave64 is served in halves of 32) both have 32 banks
     * of 4 bytes: GPU-vote Eq. 5's odd S' holds for either width. */
    shape->banks = !shape->cpu && shape->simd >= 16 ? 32 : 1;
    shape->features = features & ~p->features_off;
    if (shape->simd != 32) /* match.any over a warp of 32 lanes */
        shape->features &= ~VOTECL__FEATURE_WARP_MATCH;
    shape->unit_threads = p->unit_threads;
    shape->unit_local_mem = p->unit_local_mem;
    if (p->name != NULL)
        snprintf(shape->profile, sizeof shape->profile, "%s", p->name);
}

/* A size from the environment, at least min: 0 when unset, -1 when not such a number. */
static int
env_size(const char *name, uint64_t min, uint64_t *out)
{
    const char *env = env_nonempty(name);
    char *end = NULL;

    *out = 0;
    if (env == NULL)
        return 0;
    *out = strtoull(env, &end, 10);
    return *end != '\0' || env[0] == '-' || *out < min ? -1 : 0;
}

/* VOTECL_DISABLE_FEATURES: a comma-separated list of feature names; -1 for an unknown one. */
static int
env_features_off(unsigned *off)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"warp-match", VOTECL__FEATURE_WARP_MATCH},
                 {"subgroups", VOTECL__FEATURE_SUBGROUPS},
                 {"fp64", VOTECL__FEATURE_FP64},
                 {"atomics64", VOTECL__FEATURE_ATOMICS64},
                 {"all", VOTECL__FEATURES_ALL}};
    const char *env = env_nonempty("VOTECL_DISABLE_FEATURES");

    for (const char *at = env; at != NULL && *at != '\0';) {
        size_t len = strcspn(at, ","), i;

        for (i = 0; i < sizeof names / sizeof names[0]; i++)
            if (len > 0 && strlen(names[i].name) == len && strncasecmp(at, names[i].name, len) == 0)
                break;
        if (len > 0 && i == sizeof names / sizeof names[0])
            return -1;
        if (len > 0)
            *off |= names[i].bit;
        at += len + (at[len] == ',');
    }
    return 0;
}

/* VOTECL_FORCE_SHAPE, else the profile's, else (as before VOTECL_FORCE_SHAPE existed)
 * VOTECL_FORCE_VARIANT's: local the GPU shape, global or private the CPU shape. */
static int
env_shape(const votecl_context *context, votecl__shape_kind *shape)
{
    const char *env = env_nonempty("VOTECL_FORCE_SHAPE");

    if (env != NULL && strcasecmp(env, "cpu") == 0)
        *shape = VOTECL__SHAPE_CPU;
    else if (env != NULL && strcasecmp(env, "gpu") == 0)
        *shape = VOTECL__SHAPE_GPU;
    else if (env != NULL)
        return -1;
    else if (*shape == VOTECL__SHAPE_AUTO && context->force_variant != VOTECL_VARIANT_AUTO)
        *shape =
            context->force_variant == VOTECL_VARIANT_LOCAL ? VOTECL__SHAPE_GPU : VOTECL__SHAPE_CPU;
    return 0;
}

/* VOTECL_DEVICE_PROFILE, then the single overrides, which shrink it further. */
static votecl_status
resolve_profile(votecl_context *context, votecl__profile *p)
{
    const char *name = env_nonempty("VOTECL_DEVICE_PROFILE");
    const votecl__profile *named = name != NULL ? votecl__profile_named(name) : NULL;
    uint64_t bytes, wg, simd;

    if (name != NULL && named == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_DEVICE_PROFILE: unknown profile '%s'; use fermi, gcn, rdna, "
                            "ocl-min or cpu",
                            name);
    *p = named != NULL ? *named : (votecl__profile){0};
    if (env_size("VOTECL_LOCAL_MEM_BYTES", 1024, &bytes) != 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_LOCAL_MEM_BYTES: '%s' is not a number of bytes >= 1024",
                            getenv("VOTECL_LOCAL_MEM_BYTES"));
    if (env_size("VOTECL_MAX_WORK_GROUP_SIZE", 1, &wg) != 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_MAX_WORK_GROUP_SIZE: '%s' is not a number of work-items >= 1",
                            getenv("VOTECL_MAX_WORK_GROUP_SIZE"));
    if (env_size("VOTECL_SIMD_WIDTH", 1, &simd) != 0 || simd > 64 || (simd & (simd - 1)) != 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_SIMD_WIDTH: '%s' is not a power of two from 1 to 64 (32: "
                            "NVIDIA warps and RDNA, 64: GCN wavefronts)",
                            getenv("VOTECL_SIMD_WIDTH"));
    p->local_mem_bytes = shrink(p->local_mem_bytes > 0 ? p->local_mem_bytes : bytes, bytes);
    p->max_work_group_size =
        (size_t)shrink(p->max_work_group_size > 0 ? p->max_work_group_size : wg, wg);
    p->simd = simd > 0 ? (unsigned)simd : p->simd;
    if (env_features_off(&p->features_off) != 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_DISABLE_FEATURES: '%s' names an unknown feature; use a comma-"
                            "separated list of warp-match, subgroups, fp64, atomics64, all",
                            getenv("VOTECL_DISABLE_FEATURES"));
    if (env_shape(context, &p->shape) != 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_FORCE_SHAPE: unknown shape '%s'; use cpu or gpu",
                            getenv("VOTECL_FORCE_SHAPE"));
    return VOTECL_OK;
}

/* The facts the context sees and its shape, once the backend has filled the device's. */
static votecl_status
resolve_shape(votecl_context *context)
{
    votecl__profile p;
    votecl_status status = resolve_profile(context, &p);

    if (status != VOTECL_OK)
        return status;
    votecl__shape_resolve(&p, context->features, &context->info, &context->shape);
    votecl__log(context,
                "context: profile '%s', %s-shaped, local memory %llu bytes, work-groups of at "
                "most %zu, SIMD %u, features 0x%x",
                context->shape.profile, context->shape.cpu ? "CPU" : "GPU",
                (unsigned long long)context->info.local_mem_bytes,
                context->info.max_work_group_size, context->shape.simd, context->shape.features);
    return VOTECL_OK;
}

/* The opening of both constructors: the caller's message cleared, out checked and cleared. */
static votecl_status
begin_out(votecl_context **out, char *error, size_t error_size)
{
    copy_message(error, error_size, "");
    if (out == NULL) {
        copy_message(error, error_size, "out: NULL pointer");
        return VOTECL_INVALID_ARGUMENT;
    }
    *out = NULL;
    return VOTECL_OK;
}

/* A new context with its options resolved (context_resolve's status in *status), or NULL
 * when there is no memory for one. */
static votecl_context *
context_alloc(const votecl_context_options *options, const char **selector, char *error,
              size_t error_size, votecl_status *status)
{
    votecl_context *context = votecl__calloc(1, sizeof *context);

    if (context == NULL) {
        copy_message(error, error_size, "out of host memory for the context");
        *status = VOTECL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    context->debug = env_nonempty("VOTECL_DEBUG") != NULL;
    *status = context_resolve(context, options, selector);
    return context;
}

/* options, or the defaults written to *defaults when options is NULL. */
static const votecl_context_options *
options_or_defaults(const votecl_context_options *options, votecl_context_options *defaults)
{
    if (options != NULL)
        return options;
    votecl_context_options_init(defaults);
    return defaults;
}

/* VOTECL_HOST_THREADS: the threads a host stage may run on (parallel.h); unset: 0, the
 * host's cores shared by the process's contexts. */
static votecl_status
resolve_host_threads(votecl_context *context)
{
    uint64_t threads;

    if (env_size("VOTECL_HOST_THREADS", 1, &threads) != 0 || threads > 1024)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_HOST_THREADS: '%s' is not a number of threads from 1 to 1024",
                            getenv("VOTECL_HOST_THREADS"));
    context->host_threads = (unsigned)threads;
    return VOTECL_OK;
}

/* The end of both constructors after the backend's start (status): the device's shape
 * and the host's threads resolved; on failure the context's message goes to error and the context is freed. */
static votecl_status
context_end(votecl_context *context, votecl_status status, char *error, size_t error_size)
{
    if (status == VOTECL_OK)
        status = resolve_shape(context);
    if (status == VOTECL_OK)
        status = resolve_host_threads(context);
    if (status != VOTECL_OK) {
        copy_message(error, error_size, context->error);
        votecl_context_free(context);
    }
    return status;
}

votecl_status
votecl_context_new_with_error(const votecl_context_options *options, votecl_context **out,
                              char *error, size_t error_size)
{
    votecl_context_options defaults;
    votecl_context *context;
    const char *selector = NULL;
    votecl_status status;

    if ((status = begin_out(out, error, error_size)) != VOTECL_OK)
        return status;
    options = options_or_defaults(options, &defaults);
    status = votecl__struct_size_message(options, "options", sizeof *options, error, error_size);
    if (status != VOTECL_OK)
        return status;
    if ((context = context_alloc(options, &selector, error, error_size, &status)) == NULL)
        return status;
    if (status == VOTECL_OK && context->backend != VOTECL_BACKEND_REF)
        pocl_cache_setup(context, options); /* before the OpenCL platform loads */
    if (status == VOTECL_OK && context->backend == VOTECL_BACKEND_DEFAULT)
        status = context_init_default(context, selector);
    else if (status == VOTECL_OK)
        status = context->ops->context_init(context, selector);
    if ((status = context_end(context, status, error, error_size)) != VOTECL_OK)
        return status;
    votecl__log(context, "context: backend %s, device '%s', kernel path '%s', cache '%s'",
                votecl_backend_name(context->backend), context->info.name, context->kernel_path,
                context->cache_dir ? context->cache_dir : "(off)");
    if (context->cache_dir != NULL && access(context->cache_dir, F_OK) == 0 &&
        !votecl__diskcache_dir_trusted(context->cache_dir))
        votecl__log(context, "disk cache: %s is not owned by this user or is writable by "
                             "others: not used (docs/env.md)",
                    context->cache_dir);
    votecl__clear_error(context);
    *out = context;
    return VOTECL_OK;
}

votecl_status
votecl_context_new(const votecl_context_options *options, votecl_context **out)
{
    return votecl_context_new_with_error(options, out, NULL, 0);
}

void
votecl_context_free(votecl_context *context)
{
    if (context == NULL)
        return;
    votecl__program_cache_clear(context);
    if (context->ops != NULL && context->impl != NULL)
        context->ops->context_release(context);
    VOTECL__FREE_ALL(context->kernel_path, context->cache_dir, context->dump_dir,
                     context->build_log, context);
}

const char *
votecl_context_get_error(const votecl_context *context)
{
    const char *refused = votecl__refused_error(context);

    return refused != NULL ? refused : context != NULL ? context->error : "";
}

const char *
votecl_context_get_build_log(const votecl_context *context)
{
    return context != NULL && context->build_log != NULL ? context->build_log : "";
}

votecl_status
votecl_context_get_device_info(const votecl_context *context, votecl_device_info *info)
{
    if (context == NULL || info == NULL)
        return VOTECL_INVALID_ARGUMENT;
    *info = context->info;
    return VOTECL_OK;
}

votecl_backend
votecl_context_get_backend(const votecl_context *context)
{
    return context != NULL ? context->backend : VOTECL_BACKEND_DEFAULT;
}

const char *
votecl_context_get_kernel_path(const votecl_context *context)
{
    return context != NULL && context->kernel_path != NULL ? context->kernel_path : "";
}

const char *
votecl_context_get_cache_dir(const votecl_context *context)
{
    return context != NULL && context->cache_dir != NULL ? context->cache_dir : "";
}

votecl_status
votecl_devices_list(votecl_backend backend, votecl_device_info *infos, size_t capacity,
                    size_t *found)
{
    const votecl__backend_ops *ops;

    if (found == NULL || (infos == NULL && capacity > 0))
        return VOTECL_INVALID_ARGUMENT;
    *found = 0;
    if (backend == VOTECL_BACKEND_DEFAULT)
        backend = VOTECL_BACKEND_OPENCL;
    if (backend == VOTECL_BACKEND_OPENCL) {
        votecl_context_options defaults;
        votecl_context_options_init(&defaults);
        pocl_cache_setup(NULL, &defaults); /* before the OpenCL platform loads */
    }
    ops = backend_ops(backend);
    if (ops == NULL)
        return votecl_backend_name(backend) != NULL ? VOTECL_BACKEND_UNAVAILABLE
                                                     : VOTECL_INVALID_ARGUMENT;
    return ops->devices_list(infos, capacity, found);
}

votecl_status
votecl_context_finish(votecl_context *context)
{
    if (context == NULL)
        return VOTECL_INVALID_ARGUMENT;
    return context->ops->finish(context);
}

/* --- interop: contexts on the caller's native objects --- */

/* votecl_context_new_with_error() with the backend fixed and the device given by the caller's
 * handles (the selector matters only to CUDA without a context). */
static votecl_status
context_new_adopted(votecl_backend backend, void *native_context, void *native_device,
                    void *native_queue, const votecl_context_options *options,
                    votecl_context **out, char *error, size_t error_size)
{
    votecl_context_options defaults, resolved;
    votecl_context *context;
    const char *selector = NULL;
    votecl_status status;

    if ((status = begin_out(out, error, error_size)) != VOTECL_OK)
        return status;
    resolved = *options_or_defaults(options, &defaults);
    resolved.backend = backend;
    if ((context = context_alloc(&resolved, &selector, error, error_size, &status)) == NULL)
        return status;
    if (status == VOTECL_OK && context->ops->context_adopt == NULL)
        status = votecl__fail(context, VOTECL_UNSUPPORTED, "backend %s: no interop",
                              votecl_backend_name(backend));
    if (status == VOTECL_OK)
        status = context->ops->context_adopt(context, native_context, native_device,
                                             native_queue, selector);
    if ((status = context_end(context, status, error, error_size)) != VOTECL_OK)
        return status;
    votecl__log(context, "context: adopted %s device '%s'", votecl_backend_name(backend),
                context->info.name);
    votecl__clear_error(context);
    *out = context;
    return VOTECL_OK;
}

votecl_status
votecl_context_new_from_opencl(void *cl_context, void *cl_device, void *cl_queue,
                               const votecl_context_options *options, votecl_context **out,
                               char *error, size_t error_size)
{
    return context_new_adopted(VOTECL_BACKEND_OPENCL, cl_context, cl_device, cl_queue, options,
                               out, error, error_size);
}

votecl_status
votecl_context_new_from_cuda(void *cu_context, void *cu_stream,
                             const votecl_context_options *options, votecl_context **out,
                             char *error, size_t error_size)
{
    return context_new_adopted(VOTECL_BACKEND_CUDA, cu_context, NULL, cu_stream, options, out,
                               error, error_size);
}

void *
votecl_context_get_native_queue(const votecl_context *context)
{
    if (context == NULL || context->impl == NULL || context->ops->native_queue == NULL)
        return NULL;
    return context->ops->native_queue(context);
}
