/* The 'ref' backend: one host "device" whose buffers are host memory. It compiles no kernels:
 * the algorithm modules run their sequential references (lib/<algo>-ref.c) on it. */
#include "votecl-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
ref_facts(votecl_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->backend = VOTECL_BACKEND_REF;
    info->type = VOTECL_DEVICE_CPU;
    snprintf(info->name, sizeof info->name, "sequential reference");
    snprintf(info->vendor, sizeof info->vendor, "libvotecl");
    snprintf(info->platform, sizeof info->platform, "ref");
    snprintf(info->version, sizeof info->version, "libvotecl %s", VOTECL_VERSION_STRING);
    info->compute_units = 1;
    info->max_work_group_size = 1;
    info->preferred_work_group_multiple = 1;
    info->max_alloc_bytes = SIZE_MAX / 2;
    info->global_mem_bytes = SIZE_MAX / 2;
}

static votecl_status
ref_context_init(votecl_context *context, const char *selector)
{
    ref_facts(&context->info);
    context->features = VOTECL__FEATURES_ALL; /* the references run on the host */
    context->impl = context; /* no state; non-NULL marks the context as initialised */
    return VOTECL_OK;
}

static void
ref_context_release(votecl_context *context)
{
    context->impl = NULL;
}

static votecl_status
ref_devices_list(votecl_device_info *infos, size_t capacity, size_t *found)
{
    if (capacity > 0)
        ref_facts(&infos[0]);
    *found = 1;
    return VOTECL_OK;
}

static const char *
ref_build_id(const votecl_context *context)
{
    return "ref";
}

static votecl_status
ref_buffer_alloc(votecl_context *context, size_t size, void **handle)
{
    *handle = votecl__calloc(1, size);
    return *handle != NULL ? VOTECL_OK
                           : votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY,
                                          "out of memory for a %zu-byte buffer", size);
}

static void
ref_buffer_release(votecl_context *context, void *handle)
{
    free(handle);
}

static votecl_status
ref_buffer_write(votecl_context *context, void *handle, size_t offset, const void *src,
                 size_t size)
{
    memcpy((char *)handle + offset, src, size);
    return VOTECL_OK;
}

static votecl_status
ref_buffer_read(votecl_context *context, void *handle, size_t offset, void *dst, size_t size)
{
    memcpy(dst, (const char *)handle + offset, size);
    return VOTECL_OK;
}

static votecl_status
ref_buffer_zero(votecl_context *context, void *handle, size_t offset, size_t size)
{
    memset((char *)handle + offset, 0, size);
    return VOTECL_OK;
}

static votecl_status
ref_buffer_copy(votecl_context *context, void *dst, size_t dst_offset, void *src,
                size_t src_offset, size_t size)
{
    memmove((char *)dst + dst_offset, (const char *)src + src_offset, size);
    return VOTECL_OK;
}

static votecl_status
ref_no_kernels(votecl_context *context)
{
    return votecl__fail(context, VOTECL_UNSUPPORTED, "the ref backend runs no kernels");
}

static votecl_status
ref_program_build(votecl_context *context, const char *source, const char *options,
                  void **program)
{
    return ref_no_kernels(context);
}

static votecl_status
ref_program_load(votecl_context *context, const void *binary, size_t size, const char *options,
                 void **program)
{
    return ref_no_kernels(context);
}

static votecl_status
ref_program_binary(votecl_context *context, void *program, void **binary, size_t *size)
{
    return ref_no_kernels(context);
}

static void
ref_release(votecl_context *context, void *object)
{
}

static votecl_status
ref_kernel_create(votecl_context *context, void *program, const char *name, void **kernel)
{
    return ref_no_kernels(context);
}

static votecl_status
ref_launch(votecl_context *context, void *kernel, unsigned dims, const size_t *global,
           const size_t *local, const votecl__arg *args, unsigned nargs)
{
    return ref_no_kernels(context);
}

static votecl_status
ref_finish(votecl_context *context)
{
    return VOTECL_OK;
}

const votecl__backend_ops votecl__backend_ref = {
    .name = "ref",
    .context_init = ref_context_init,
    .context_release = ref_context_release,
    .devices_list = ref_devices_list,
    .build_id = ref_build_id,
    .buffer_alloc = ref_buffer_alloc,
    .buffer_release = ref_buffer_release,
    .buffer_write = ref_buffer_write,
    .buffer_read = ref_buffer_read,
    .buffer_zero = ref_buffer_zero,
    .buffer_copy = ref_buffer_copy,
    .program_build = ref_program_build,
    .program_load = ref_program_load,
    .program_binary = ref_program_binary,
    .program_release = ref_release,
    .kernel_create = ref_kernel_create,
    .kernel_release = ref_release,
    .launch = ref_launch,
    .finish = ref_finish,
};
