/* votecl info: version, backends, devices and the default context's paths. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tool.h"

static const votecl_backend info_backends[] = {VOTECL_BACKEND_OPENCL, VOTECL_BACKEND_CUDA,
                                               VOTECL_BACKEND_REF};
#define INFO_N_BACKENDS (sizeof info_backends / sizeof info_backends[0])

static void
info_usage(FILE *f)
{
    fprintf(f, "usage: votecl info [--json] [--backend B] [--device SELECTOR]\n"
               "Lists the library version, the backends built, every device with the facts the\n"
               "plans use (Nmax = local memory / 4: 32-bit bins in local memory), and the kernel\n"
               "path and cache directory of the default context.\n");
}

/* The devices of a backend, malloc'ed (caller frees); *n 0 with NULL when there are none. */
static votecl_status
list_devices(votecl_backend backend, votecl_device_info **out, size_t *n)
{
    size_t found = 0;
    votecl_status st = votecl_devices_list(backend, NULL, 0, &found);
    *out = NULL;
    *n = 0;
    if (st != VOTECL_OK || found == 0)
        return st;
    *out = calloc(found, sizeof **out);
    if (!*out)
        return VOTECL_OUT_OF_HOST_MEMORY;
    st = votecl_devices_list(backend, *out, found, n);
    if (*n > found)
        *n = found;
    return st;
}

static void
device_text(const votecl_device_info *d, size_t index)
{
    printf("  device %zu: %s\n", index, d->name);
    printf("    type %s, vendor %s, platform %s (#%u, device #%u)\n",
           tool_device_type_name(d->type), d->vendor, d->platform, d->platform_index,
           d->device_index);
    printf("    version %s\n", d->version);
    printf("    compute units %u, max work-group %zu, preferred multiple %zu\n", d->compute_units,
           d->max_work_group_size, d->preferred_work_group_multiple);
    printf("    local memory %llu bytes (%s), Nmax %llu bins\n",
           (unsigned long long)d->local_mem_bytes, d->local_mem_dedicated ? "on chip" : "emulated",
           (unsigned long long)(d->local_mem_bytes / 4));
    printf("    global memory %llu MiB, largest buffer %llu MiB\n",
           (unsigned long long)(d->global_mem_bytes >> 20),
           (unsigned long long)(d->max_alloc_bytes >> 20));
    printf("    atomics: local %s, global %s\n", d->local_atomics ? "yes" : "no",
           d->global_atomics ? "yes" : "no");
}

static void
device_json(tool_json *j, const votecl_device_info *d)
{
    tool_json_begin_object(j);
    tool_json_kv_string(j, "name", d->name);
    tool_json_kv_string(j, "backend", votecl_backend_name(d->backend));
    tool_json_kv_string(j, "type", tool_device_type_name(d->type));
    tool_json_kv_string(j, "vendor", d->vendor);
    tool_json_kv_string(j, "platform", d->platform);
    tool_json_kv_string(j, "version", d->version);
    tool_json_kv_uint(j, "platform_index", d->platform_index);
    tool_json_kv_uint(j, "device_index", d->device_index);
    tool_json_kv_uint(j, "compute_units", d->compute_units);
    tool_json_kv_uint(j, "max_work_group_size", d->max_work_group_size);
    tool_json_kv_uint(j, "preferred_work_group_multiple", d->preferred_work_group_multiple);
    tool_json_kv_uint(j, "local_mem_bytes", d->local_mem_bytes);
    tool_json_kv_uint(j, "nmax", d->local_mem_bytes / 4);
    tool_json_kv_uint(j, "global_mem_bytes", d->global_mem_bytes);
    tool_json_kv_uint(j, "max_alloc_bytes", d->max_alloc_bytes);
    tool_json_kv_bool(j, "local_mem_dedicated", d->local_mem_dedicated);
    tool_json_kv_bool(j, "local_atomics", d->local_atomics);
    tool_json_kv_bool(j, "global_atomics", d->global_atomics);
    tool_json_end_object(j);
}

/* Why a built backend lists no device: the message of a context asked for on it (CUDA: no
 * driver, no NVRTC, no GPU). */
static void
backend_why(votecl_backend b, char *why, size_t size)
{
    votecl_context_options co;
    votecl_context *ctx = NULL;
    votecl_context_options_init(&co);
    co.backend = b;
    why[0] = '\0';
    if (votecl_context_new_with_error(&co, &ctx, why, size) == VOTECL_OK)
        votecl_context_free(ctx);
}

static void
backend_text(votecl_backend b)
{
    votecl_device_info *devices = NULL;
    size_t n = 0;
    int built = votecl_backend_is_built(b);
    printf("backend %s: %s\n", votecl_backend_name(b), built ? "built" : "not built");
    if (!built)
        return;
    votecl_status st = list_devices(b, &devices, &n);
    if (st != VOTECL_OK)
        printf("  unavailable: %s\n", votecl_status_string(st));
    else if (n == 0) {
        char why[1024];
        backend_why(b, why, sizeof why);
        printf("  no devices%s%s\n", why[0] ? ": " : "", why);
    }
    for (size_t i = 0; i < n; i++)
        device_text(&devices[i], i);
    if (b == VOTECL_BACKEND_OPENCL && (st != VOTECL_OK || n == 0))
        printf("  hint: install an OpenCL driver (apt-get install pocl-opencl-icd for CPUs)\n"
               "        or run with --backend ref\n");
    free(devices);
}

static void
backend_json(tool_json *j, votecl_backend b)
{
    votecl_device_info *devices = NULL;
    size_t n = 0;
    int built = votecl_backend_is_built(b);
    votecl_status st = built ? list_devices(b, &devices, &n) : VOTECL_BACKEND_UNAVAILABLE;
    tool_json_begin_object(j);
    tool_json_kv_string(j, "name", votecl_backend_name(b));
    tool_json_kv_bool(j, "built", built);
    tool_json_kv_string(j, "status", votecl_status_name(st));
    if (built && st == VOTECL_OK && n == 0) {
        char why[1024];
        backend_why(b, why, sizeof why);
        tool_json_kv_string(j, "why", why);
    }
    tool_json_key(j, "devices");
    tool_json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        device_json(j, &devices[i]);
    tool_json_end_array(j);
    tool_json_end_object(j);
    free(devices);
}

static void
context_text(votecl_context *ctx, const char *error)
{
    votecl_device_info d;
    if (!ctx) {
        printf("default context: none: %s\n", error);
        printf("  hint: apt-get install pocl-opencl-icd, or use --backend ref\n");
        return;
    }
    votecl_context_get_device_info(ctx, &d);
    printf("default context: %s on %s\n", votecl_backend_name(votecl_context_get_backend(ctx)),
           d.name);
    /* the context's facts: the device's, shrunk by VOTECL_DEVICE_PROFILE and the overrides */
    printf("  as the plans see it: local memory %llu bytes, work-groups of at most %zu, SIMD %zu\n",
           (unsigned long long)d.local_mem_bytes, d.max_work_group_size,
           d.preferred_work_group_multiple);
    printf("  kernel path: %s\n", votecl_context_get_kernel_path(ctx));
    const char *cache = votecl_context_get_cache_dir(ctx);
    printf("  cache directory: %s\n", cache[0] ? cache : "(disk cache off)");
}

static void
context_json(tool_json *j, votecl_context *ctx, const char *error)
{
    votecl_device_info d;
    tool_json_key(j, "context");
    if (!ctx) {
        tool_json_begin_object(j);
        tool_json_kv_string(j, "error", error);
        tool_json_kv_string(j, "hint", "apt-get install pocl-opencl-icd, or use --backend ref");
        tool_json_end_object(j);
        return;
    }
    votecl_context_get_device_info(ctx, &d);
    tool_json_begin_object(j);
    tool_json_kv_string(j, "backend", votecl_backend_name(votecl_context_get_backend(ctx)));
    tool_json_kv_string(j, "device", d.name);
    tool_json_kv_uint(j, "local_mem_bytes", d.local_mem_bytes);
    tool_json_kv_uint(j, "max_work_group_size", d.max_work_group_size);
    tool_json_kv_uint(j, "preferred_work_group_multiple", d.preferred_work_group_multiple);
    tool_json_kv_string(j, "kernel_path", votecl_context_get_kernel_path(ctx));
    tool_json_kv_string(j, "cache_dir", votecl_context_get_cache_dir(ctx));
    tool_json_end_object(j);
}

static void
info_json(votecl_context *ctx, const char *error)
{
    tool_json j;
    tool_json_document(&j, stdout, "info");
    tool_json_parameters(&j);
    tool_json_results(&j);
    tool_json_kv_string(&j, "header_version", VOTECL_VERSION_STRING);
    tool_json_key(&j, "backends");
    tool_json_begin_array(&j);
    for (size_t i = 0; i < INFO_N_BACKENDS; i++)
        backend_json(&j, info_backends[i]);
    tool_json_end_array(&j);
    context_json(&j, ctx, error);
    tool_json_document_end(&j);
}

static void
info_text(votecl_context *ctx, const char *error)
{
    printf("libvotecl %s (header %s)\n", votecl_version_string(), VOTECL_VERSION_STRING);
    for (size_t i = 0; i < INFO_N_BACKENDS; i++)
        backend_text(info_backends[i]);
    context_text(ctx, error);
}

int
tool_cmd_info(tool_options *options, int argc, char **argv)
{
    votecl_context_options co;
    votecl_context *ctx = NULL;
    char error[1024] = "";
    for (int i = 1; i < argc; i++)
        if (tool_common_option(options, argc, argv, &i) <= 0)
            return tool_usage_error("info", "unexpected argument '%s'", argv[i]);
    if (options->help) {
        info_usage(stdout);
        return TOOL_EXIT_OK;
    }
    votecl_context_options_init(&co);
    co.backend = options->backend;
    co.device = options->device;
    /* No device is an answer here, not a failure: info exists to diagnose it. */
    votecl_status st = votecl_context_new_with_error(&co, &ctx, error, sizeof error);
    if (st != VOTECL_OK && !error[0])
        snprintf(error, sizeof error, "%s", votecl_status_string(st));
    if (st == VOTECL_OK)
        tool_context_note(ctx);
    if (options->json)
        info_json(ctx, error);
    else
        info_text(ctx, error);
    votecl_context_free(ctx);
    return TOOL_EXIT_OK;
}
