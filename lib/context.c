/* Contexts: option and environment resolution, backend selection. This is the only file
 * that reads environment variables; everything below it receives resolved values. */
#include "votecl-private.h"

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
    if (options == NULL)
        return;
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

const char *
votecl_backend_name(votecl_backend backend)
{
    switch (backend) {
    case VOTECL_BACKEND_DEFAULT:
        return "default";
    case VOTECL_BACKEND_OPENCL:
        return "opencl";
    case VOTECL_BACKEND_CUDA:
        return "cuda";
    case VOTECL_BACKEND_REF:
        return "ref";
    }
    return NULL;
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
static char *
resolve_cache_dir(const votecl_context *context, const votecl_context_options *options)
{
    const char *base;
    char buf[4096];
    int n;

    if (options->disable_disk_cache || env_nonempty("VOTECL_DISABLE_DISK_CACHE") != NULL)
        return NULL;
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

/* VOTECL_LOCAL_MEM_BYTES: less local memory than the device has, so that tests reach the
 * paths of small devices (tiles, passes) on any device. */
static votecl_status
cap_local_memory(votecl_context *context)
{
    const char *env = env_nonempty("VOTECL_LOCAL_MEM_BYTES");
    char *end = NULL;
    unsigned long long bytes;

    if (env == NULL)
        return VOTECL_OK;
    bytes = strtoull(env, &end, 10);
    if (*end != '\0' || env[0] == '-' || bytes < 1024)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "VOTECL_LOCAL_MEM_BYTES: '%s' is not a number of bytes >= 1024", env);
    if (bytes < context->info.local_mem_bytes)
        context->info.local_mem_bytes = bytes;
    return VOTECL_OK;
}

votecl_status
votecl_context_new_with_error(const votecl_context_options *options, votecl_context **out,
                              char *error, size_t error_size)
{
    votecl_context_options defaults;
    votecl_context *context;
    const char *selector = NULL;
    votecl_status status;

    copy_message(error, error_size, "");
    if (out == NULL) {
        copy_message(error, error_size, "out: NULL pointer");
        return VOTECL_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (options == NULL) {
        votecl_context_options_init(&defaults);
        options = &defaults;
    }
    status = votecl__struct_size_message(options, "options", sizeof *options, error, error_size);
    if (status != VOTECL_OK)
        return status;
    context = votecl__calloc(1, sizeof *context);
    if (context == NULL) {
        copy_message(error, error_size, "out of host memory for the context");
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    context->debug = env_nonempty("VOTECL_DEBUG") != NULL;
    status = context_resolve(context, options, &selector);
    if (status == VOTECL_OK && context->backend == VOTECL_BACKEND_DEFAULT)
        status = context_init_default(context, selector);
    else if (status == VOTECL_OK)
        status = context->ops->context_init(context, selector);
    if (status == VOTECL_OK)
        status = cap_local_memory(context);
    if (status != VOTECL_OK) {
        copy_message(error, error_size, context->error);
        votecl_context_free(context);
        return status;
    }
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
    free(context->kernel_path);
    free(context->cache_dir);
    free(context->dump_dir);
    free(context->build_log);
    free(context);
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
    votecl_context_options resolved;
    votecl_context *context;
    const char *selector = NULL;
    votecl_status status;

    copy_message(error, error_size, "");
    if (out == NULL) {
        copy_message(error, error_size, "out: NULL pointer");
        return VOTECL_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (options != NULL)
        resolved = *options;
    else
        votecl_context_options_init(&resolved);
    resolved.backend = backend;
    context = votecl__calloc(1, sizeof *context);
    if (context == NULL) {
        copy_message(error, error_size, "out of host memory for the context");
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    context->debug = env_nonempty("VOTECL_DEBUG") != NULL;
    status = context_resolve(context, &resolved, &selector);
    if (status == VOTECL_OK && context->ops->context_adopt == NULL)
        status = votecl__fail(context, VOTECL_UNSUPPORTED, "backend %s: no interop",
                              votecl_backend_name(backend));
    if (status == VOTECL_OK)
        status = context->ops->context_adopt(context, native_context, native_device,
                                             native_queue, selector);
    if (status != VOTECL_OK) {
        copy_message(error, error_size, context->error);
        votecl_context_free(context);
        return status;
    }
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
