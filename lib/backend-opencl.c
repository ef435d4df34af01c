/* The OpenCL backend: the only file that includes <CL/cl.h>. */
#include "votecl-private.h"

#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#endif
#ifndef CL_DEVICE_WAVEFRONT_WIDTH_AMD
#define CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043
#endif
#ifndef CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
#define CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE 0x1067
#endif

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

typedef struct opencl_impl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl;
    cl_command_queue queue;
    char build_id[1024];
} opencl_impl;

static const char *
cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) \
    case x:  \
        return #x;
        E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
        E(CL_BUILD_PROGRAM_FAILURE) E(CL_INVALID_VALUE) E(CL_INVALID_PLATFORM)
        E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT) E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS)
        E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME)
        E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE)
        E(CL_INVALID_ARG_SIZE) E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
        E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
        E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_GLOBAL_WORK_SIZE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef E
    }
    return "unknown OpenCL error";
}

/* Turns an OpenCL error into a status with the call named in the context's message. */
static votecl_status
cl_fail(votecl_context *context, cl_int err, const char *call)
{
    votecl_status status = VOTECL_DEVICE_ERROR;

    if (err == CL_OUT_OF_HOST_MEMORY)
        status = VOTECL_OUT_OF_HOST_MEMORY;
    else if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_INVALID_BUFFER_SIZE)
        status = VOTECL_OUT_OF_DEVICE_MEMORY;
    return votecl__fail(context, status, "%s failed: %s (%d)", call, cl_error_name(err), err);
}

static opencl_impl *
impl_of(const votecl_context *context)
{
    return (opencl_impl *)context->impl;
}

static void
device_string(cl_device_id device, cl_device_info what, char *out, size_t size)
{
    out[0] = '\0';
    if (clGetDeviceInfo(device, what, size, out, NULL) != CL_SUCCESS)
        out[0] = '\0';
    out[size - 1] = '\0';
}

static uint64_t
device_ulong(cl_device_id device, cl_device_info what)
{
    cl_ulong v = 0;
    return clGetDeviceInfo(device, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static unsigned
device_uint(cl_device_id device, cl_device_info what)
{
    cl_uint v = 0;
    return clGetDeviceInfo(device, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static size_t
device_size(cl_device_id device, cl_device_info what)
{
    size_t v = 0;
    return clGetDeviceInfo(device, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static size_t
preferred_multiple(cl_device_id device, votecl_device_type type)
{
    size_t v = device_size(device, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    if (v == 0)
        v = device_uint(device, CL_DEVICE_WARP_SIZE_NV);
    if (v == 0)
        v = device_uint(device, CL_DEVICE_WAVEFRONT_WIDTH_AMD);
    if (v == 0)
        v = type == VOTECL_DEVICE_GPU ? 32 : 1;
    return v;
}

static void
device_facts(cl_platform_id platform, cl_device_id device, votecl_device_info *info)
{
    cl_device_type cl_type = 0;
    cl_device_local_mem_type mem_type = CL_GLOBAL;
    char extensions[8192], driver[64];

    memset(info, 0, sizeof *info);
    info->backend = VOTECL_BACKEND_OPENCL;
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof cl_type, &cl_type, NULL);
    info->type = (cl_type & CL_DEVICE_TYPE_GPU)           ? VOTECL_DEVICE_GPU
                 : (cl_type & CL_DEVICE_TYPE_CPU)         ? VOTECL_DEVICE_CPU
                 : (cl_type & CL_DEVICE_TYPE_ACCELERATOR) ? VOTECL_DEVICE_ACCELERATOR
                                                          : VOTECL_DEVICE_OTHER;
    device_string(device, CL_DEVICE_NAME, info->name, sizeof info->name);
    device_string(device, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    device_string(device, CL_DEVICE_VERSION, info->version, sizeof info->version);
    device_string(device, CL_DRIVER_VERSION, driver, sizeof driver);
    if (strlen(info->version) + strlen(driver) + 4 < sizeof info->version)
        strcat(strcat(info->version, " / "), driver);
    if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform, info->platform,
                          NULL) != CL_SUCCESS)
        info->platform[0] = '\0';
    info->platform[sizeof info->platform - 1] = '\0';
    info->compute_units = device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
    info->max_work_group_size = device_size(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    info->preferred_work_group_multiple = preferred_multiple(device, info->type);
    info->local_mem_bytes = device_ulong(device, CL_DEVICE_LOCAL_MEM_SIZE);
    info->global_mem_bytes = device_ulong(device, CL_DEVICE_GLOBAL_MEM_SIZE);
    info->max_alloc_bytes = device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_TYPE, sizeof mem_type, &mem_type, NULL);
    info->local_mem_dedicated = mem_type == CL_LOCAL;
    {
        cl_bool unified = CL_FALSE;
        clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
        info->host_unified_memory = unified == CL_TRUE;
    }
    device_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
    /* 32-bit local and global atomics are core since OpenCL 1.1. */
    info->local_atomics = strncmp(info->version, "OpenCL 1.0", 10) != 0 ||
                          strstr(extensions, "cl_khr_local_int32_base_atomics") != NULL;
    info->global_atomics = strncmp(info->version, "OpenCL 1.0", 10) != 0 ||
                           strstr(extensions, "cl_khr_global_int32_base_atomics") != NULL;
}

/* cl_nv_device_attribute_query's CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV; 0 when unknown. */
static cl_uint
nvidia_compute_major(cl_device_id device, const char *extensions)
{
    cl_uint major = 0;

    if (strstr(extensions, "cl_nv_device_attribute_query") == NULL ||
        clGetDeviceInfo(device, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */,
                        sizeof major, &major, NULL) != CL_SUCCESS)
        return 0;
    return major;
}

/* The optional features of votecl-private.h the device has (the shape's features). */
static unsigned
device_features(cl_device_id device, const votecl_device_info *info)
{
    char extensions[8192];
    unsigned features = 0;

    device_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
    if (strstr(extensions, "cl_khr_fp64") != NULL)
        features |= VOTECL__FEATURE_FP64;
    if (strstr(extensions, "cl_khr_int64_base_atomics") != NULL)
        features |= VOTECL__FEATURE_ATOMICS64;
    if (strstr(extensions, "cl_khr_subgroups") != NULL ||
        strstr(extensions, "cl_intel_subgroups") != NULL)
        features |= VOTECL__FEATURE_SUBGROUPS;
    /* cl/prelude.h's inline PTX: match.any.sync needs sm_70, as the CUDA backend checks */
    if (strstr(info->vendor, "NVIDIA") != NULL && nvidia_compute_major(device, extensions) >= 7)
        features |= VOTECL__FEATURE_WARP_MATCH;
    return features;
}

typedef struct device_entry {
    cl_platform_id platform;
    cl_device_id device;
    votecl_device_info info;
} device_entry;

/* Platform and device enumeration and context creation, process-wide one at a time: ICD
 * loaders and drivers (PoCL among them) initialise themselves lazily inside these calls,
 * and eight threads creating their first contexts at once crashed inside PoCL or lost
 * devices. The header promises distinct contexts on distinct threads; this lock keeps it. */
static pthread_mutex_t enumerate_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every device of every platform, in enumeration order. */
static size_t
enumerate(device_entry *entries, size_t capacity)
{
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint nplatforms = 0;
    size_t n = 0;

    if (clGetPlatformIDs(MAX_PLATFORMS, platforms, &nplatforms) != CL_SUCCESS)
        return 0;
    if (nplatforms > MAX_PLATFORMS)
        nplatforms = MAX_PLATFORMS;
    for (cl_uint p = 0; p < nplatforms; p++) {
        cl_device_id devices[MAX_DEVICES];
        cl_uint ndevices = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &ndevices) !=
            CL_SUCCESS)
            continue;
        if (ndevices > MAX_DEVICES)
            ndevices = MAX_DEVICES;
        for (cl_uint d = 0; d < ndevices && n < capacity; d++, n++) {
            entries[n].platform = platforms[p];
            entries[n].device = devices[d];
            device_facts(platforms[p], devices[d], &entries[n].info);
            entries[n].info.platform_index = p;
            entries[n].info.device_index = d;
        }
    }
    return n;
}

static votecl_status
opencl_devices_list(votecl_device_info *infos, size_t capacity, size_t *found)
{
    device_entry *entries = votecl__calloc(MAX_DEVICES, sizeof *entries);
    size_t n;

    if (entries == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&enumerate_lock);
    n = enumerate(entries, MAX_DEVICES);
    pthread_mutex_unlock(&enumerate_lock);
    for (size_t i = 0; i < n && i < capacity; i++)
        infos[i] = entries[i].info;
    *found = n;
    free(entries);
    return VOTECL_OK;
}

static votecl_status
open_device(votecl_context *context, opencl_impl *impl, const device_entry *entry)
{
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)entry->platform,
                                     0};

    impl->platform = entry->platform;
    impl->device = entry->device;
    impl->cl = clCreateContext(props, 1, &impl->device, NULL, NULL, &err);
    if (impl->cl == NULL)
        return cl_fail(context, err, "clCreateContext");
    impl->queue = clCreateCommandQueue(impl->cl, impl->device, 0, &err);
    if (impl->queue == NULL)
        return cl_fail(context, err, "clCreateCommandQueue");
    context->info = entry->info;
    context->features = device_features(entry->device, &entry->info);
    snprintf(impl->build_id, sizeof impl->build_id, "opencl|%s|%s|%s|%s|libvotecl %s",
             entry->info.platform, entry->info.name, entry->info.vendor, entry->info.version,
             VOTECL_VERSION_STRING);
    return VOTECL_OK;
}

static void
opencl_context_release(votecl_context *context)
{
    opencl_impl *impl = impl_of(context);

    if (impl->queue != NULL)
        clReleaseCommandQueue(impl->queue);
    if (impl->cl != NULL)
        clReleaseContext(impl->cl);
    free(impl);
    context->impl = NULL;
}

static votecl_status
opencl_context_init(votecl_context *context, const char *selector)
{
    device_entry *entries = votecl__calloc(MAX_DEVICES, sizeof *entries);
    opencl_impl *impl = votecl__calloc(1, sizeof *impl);
    votecl_status status = VOTECL_OK;
    size_t n;
    long chosen;

    if (entries == NULL || impl == NULL) {
        status = votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
        goto out;
    }
    pthread_mutex_lock(&enumerate_lock);
    n = enumerate(entries, MAX_DEVICES);
    chosen = votecl__device_select(&entries[0].info, sizeof *entries, n, selector);
    if (n == 0)
        status = votecl__fail(context, VOTECL_NO_DEVICE,
                              "no OpenCL device found: install an OpenCL driver (on Debian: "
                              "apt-get install pocl-opencl-icd for the CPU) or choose the ref "
                              "backend (VOTECL_BACKEND=ref)");
    else if (chosen == -2)
        status = votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                              "device: malformed selector '%s'; expected platform:type:name-or-index "
                              "with type CPU, GPU or ACCELERATOR",
                              selector);
    else if (chosen < 0)
        status = votecl__fail(context, VOTECL_NO_DEVICE,
                              "device: no OpenCL device matches '%s' (votecl info lists them)",
                              selector);
    else {
        context->impl = impl;
        status = open_device(context, impl, &entries[chosen]);
        if (status != VOTECL_OK)
            opencl_context_release(context);
        impl = NULL;
    }
    pthread_mutex_unlock(&enumerate_lock);
out:
    free(impl);
    free(entries);
    return status;
}

static const char *
opencl_build_id(const votecl_context *context)
{
    return impl_of(context)->build_id;
}

static votecl_status
opencl_buffer_alloc(votecl_context *context, size_t size, void **handle)
{
    cl_int err;
    cl_mem mem = clCreateBuffer(impl_of(context)->cl, CL_MEM_READ_WRITE, size, NULL, &err);

    if (mem == NULL)
        return cl_fail(context, err, "clCreateBuffer");
    *handle = mem;
    return VOTECL_OK;
}

static void
opencl_buffer_release(votecl_context *context, void *handle)
{
    if (handle != NULL)
        clReleaseMemObject((cl_mem)handle);
}

/* A host-allocated buffer kept mapped: NVIDIA's driver pins it, and writes from the mapped
 * pointer are then DMA transfers. */
static votecl_status
opencl_host_alloc(votecl_context *context, size_t size, void **ptr, void **handle)
{
    cl_int err;
    cl_mem mem = clCreateBuffer(impl_of(context)->cl, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                                size, NULL, &err);
    void *p;

    if (mem == NULL)
        return cl_fail(context, err, "clCreateBuffer (host staging)");
    p = clEnqueueMapBuffer(impl_of(context)->queue, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                           size, 0, NULL, NULL, &err);
    if (p == NULL) {
        clReleaseMemObject(mem);
        return cl_fail(context, err, "clEnqueueMapBuffer (host staging)");
    }
    *ptr = p;
    *handle = mem;
    return VOTECL_OK;
}

static void
opencl_host_free(votecl_context *context, void *ptr, void *handle)
{
    cl_command_queue queue = impl_of(context)->queue;

    clEnqueueUnmapMemObject(queue, (cl_mem)handle, ptr, 0, NULL, NULL);
    clFinish(queue);
    clReleaseMemObject((cl_mem)handle);
}

static votecl_status
opencl_buffer_write(votecl_context *context, void *handle, size_t offset, const void *src,
                    size_t size)
{
    cl_int err = clEnqueueWriteBuffer(impl_of(context)->queue, (cl_mem)handle, CL_TRUE, offset,
                                      size, src, 0, NULL, NULL);
    return err == CL_SUCCESS ? VOTECL_OK : cl_fail(context, err, "clEnqueueWriteBuffer");
}

static votecl_status
opencl_buffer_read(votecl_context *context, void *handle, size_t offset, void *dst, size_t size)
{
    cl_int err = clEnqueueReadBuffer(impl_of(context)->queue, (cl_mem)handle, CL_TRUE, offset,
                                     size, dst, 0, NULL, NULL);
    return err == CL_SUCCESS ? VOTECL_OK : cl_fail(context, err, "clEnqueueReadBuffer");
}

static votecl_status
opencl_buffer_zero(votecl_context *context, void *handle, size_t offset, size_t size)
{
    cl_uint zero = 0;
    size_t pattern = (offset % 4 == 0 && size % 4 == 0) ? 4 : 1;
    cl_int err = clEnqueueFillBuffer(impl_of(context)->queue, (cl_mem)handle, &zero, pattern,
                                     offset, size, 0, NULL, NULL);
    return err == CL_SUCCESS ? VOTECL_OK : cl_fail(context, err, "clEnqueueFillBuffer");
}

static votecl_status
opencl_buffer_wrap(votecl_context *context, const void *host, size_t size, void **handle)
{
    cl_int err;
    /* CL_MEM_READ_ONLY: the kernels never write through this buffer, so the cast is safe. */
    cl_mem mem = clCreateBuffer(impl_of(context)->cl, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                size, (void *)(uintptr_t)host, &err);

    if (mem == NULL)
        return cl_fail(context, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    *handle = mem;
    return VOTECL_OK;
}

static votecl_status
opencl_buffer_copy(votecl_context *context, void *dst, size_t dst_offset, void *src,
                   size_t src_offset, size_t size)
{
    cl_int err = clEnqueueCopyBuffer(impl_of(context)->queue, (cl_mem)src, (cl_mem)dst,
                                     src_offset, dst_offset, size, 0, NULL, NULL);
    return err == CL_SUCCESS ? VOTECL_OK : cl_fail(context, err, "clEnqueueCopyBuffer");
}

static void
store_build_log(votecl_context *context, cl_program program)
{
    opencl_impl *impl = impl_of(context);
    size_t size = 0;
    char *log;

    if (clGetProgramBuildInfo(program, impl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        (log = votecl__calloc(1, size + 1)) == NULL) {
        votecl__set_build_log(context, "");
        return;
    }
    if (clGetProgramBuildInfo(program, impl->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
        CL_SUCCESS)
        log[0] = '\0';
    votecl__set_build_log(context, log);
    free(log);
}

static votecl_status
finish_build(votecl_context *context, cl_program program, const char *options, void **out)
{
    cl_int err = clBuildProgram(program, 1, &impl_of(context)->device, options, NULL, NULL);

    store_build_log(context, program);
    if (err != CL_SUCCESS) {
        clReleaseProgram(program);
        if (err == CL_BUILD_PROGRAM_FAILURE)
            return votecl__fail(context, VOTECL_BUILD_FAILED,
                                "kernel build failed; votecl_context_get_build_log() has the log");
        return cl_fail(context, err, "clBuildProgram");
    }
    *out = program;
    return VOTECL_OK;
}

static votecl_status
opencl_program_build(votecl_context *context, const char *source, const char *options,
                     void **program)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(impl_of(context)->cl, 1, &source, NULL, &err);

    if (p == NULL)
        return cl_fail(context, err, "clCreateProgramWithSource");
    return finish_build(context, p, options, program);
}

static votecl_status
opencl_program_load(votecl_context *context, const void *binary, size_t size,
                    const char *options, void **program)
{
    opencl_impl *impl = impl_of(context);
    const unsigned char *bin = binary;
    cl_int err, binary_status = CL_SUCCESS;
    cl_program p = clCreateProgramWithBinary(impl->cl, 1, &impl->device, &size, &bin,
                                             &binary_status, &err);

    if (p == NULL || binary_status != CL_SUCCESS) {
        if (p != NULL)
            clReleaseProgram(p);
        return votecl__fail(context, VOTECL_DEVICE_ERROR, "cached binary rejected (%d)",
                            err != CL_SUCCESS ? err : binary_status);
    }
    return finish_build(context, p, options, program);
}

static votecl_status
opencl_program_binary(votecl_context *context, void *program, void **binary, size_t *size)
{
    size_t n = 0;
    unsigned char *bin;
    cl_int err = clGetProgramInfo((cl_program)program, CL_PROGRAM_BINARY_SIZES, sizeof n, &n,
                                  NULL);

    if (err != CL_SUCCESS || n == 0)
        return votecl__fail(context, VOTECL_UNSUPPORTED, "program has no binary");
    bin = votecl__malloc(n);
    if (bin == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a binary");
    err = clGetProgramInfo((cl_program)program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    if (err != CL_SUCCESS) {
        free(bin);
        return cl_fail(context, err, "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    }
    *binary = bin;
    *size = n;
    return VOTECL_OK;
}

static void
opencl_program_release(votecl_context *context, void *program)
{
    if (program != NULL)
        clReleaseProgram((cl_program)program);
}

static votecl_status
opencl_kernel_create(votecl_context *context, void *program, const char *name, void **kernel)
{
    cl_int err;
    cl_kernel k = clCreateKernel((cl_program)program, name, &err);

    if (k == NULL)
        return cl_fail(context, err, name);
    *kernel = k;
    return VOTECL_OK;
}

static void
opencl_kernel_release(votecl_context *context, void *kernel)
{
    if (kernel != NULL)
        clReleaseKernel((cl_kernel)kernel);
}

static cl_int
set_arg(cl_kernel kernel, cl_uint index, const votecl__arg *arg)
{
    cl_mem mem;

    switch (arg->kind) {
    case VOTECL__ARG_BUFFER:
        mem = arg->v.buffer != NULL ? (cl_mem)arg->v.buffer->handle : NULL;
        return clSetKernelArg(kernel, index, sizeof mem, &mem);
    case VOTECL__ARG_U32:
        return clSetKernelArg(kernel, index, sizeof(cl_uint), &arg->v.u32);
    case VOTECL__ARG_I32:
        return clSetKernelArg(kernel, index, sizeof(cl_int), &arg->v.i32);
    case VOTECL__ARG_U64:
        return clSetKernelArg(kernel, index, sizeof(cl_ulong), &arg->v.u64);
    case VOTECL__ARG_F32:
        return clSetKernelArg(kernel, index, sizeof(cl_float), &arg->v.f32);
    }
    return CL_INVALID_ARG_VALUE;
}

static votecl_status
opencl_launch(votecl_context *context, void *kernel, unsigned dims, const size_t *global,
              const size_t *local, const votecl__arg *args, unsigned nargs)
{
    cl_kernel k = (cl_kernel)kernel;
    cl_int err;

    for (unsigned i = 0; i < nargs; i++) {
        err = set_arg(k, i, &args[i]);
        if (err != CL_SUCCESS)
            return cl_fail(context, err, "clSetKernelArg");
    }
    err = clEnqueueNDRangeKernel(impl_of(context)->queue, k, dims, NULL, global, local, 0, NULL,
                                 NULL);
    return err == CL_SUCCESS ? VOTECL_OK : cl_fail(context, err, "clEnqueueNDRangeKernel");
}

static votecl_status
opencl_finish(votecl_context *context)
{
    cl_int err = clFinish(impl_of(context)->queue);
    return err == CL_SUCCESS ? VOTECL_OK : cl_fail(context, err, "clFinish");
}

/* --- interop --- */

/* The checks that the caller's objects belong together, then retains them. */
static votecl_status
adopt_objects(votecl_context *context, opencl_impl *impl, cl_context cl, cl_device_id device,
              cl_command_queue queue)
{
    cl_context queue_context = NULL;
    cl_device_id queue_device = NULL;
    cl_command_queue_properties props = 0;
    cl_int err;

    if (queue != NULL &&
        ((err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof queue_context,
                                      &queue_context, NULL)) != CL_SUCCESS ||
         (err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof queue_device, &queue_device,
                                      NULL)) != CL_SUCCESS ||
         (err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL)) !=
             CL_SUCCESS))
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "cl_queue: not a command queue (%s)", cl_error_name(err));
    if (queue != NULL && (queue_context != cl || queue_device != device))
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "cl_queue: belongs to another %s",
                            queue_context != cl ? "cl_context" : "device");
    /* The launch contract: launches, fills and copies run in the order they were queued. */
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return votecl__fail(context, VOTECL_INCOMPATIBLE,
                            "cl_queue: out-of-order queues are not supported (votecl queues "
                            "dependent work without events)");
    if ((err = clRetainContext(cl)) != CL_SUCCESS)
        return cl_fail(context, err, "clRetainContext");
    impl->cl = cl;
    if (queue == NULL) {
        impl->queue = clCreateCommandQueue(cl, device, 0, &err);
        return impl->queue != NULL ? VOTECL_OK : cl_fail(context, err, "clCreateCommandQueue");
    }
    if ((err = clRetainCommandQueue(queue)) != CL_SUCCESS)
        return cl_fail(context, err, "clRetainCommandQueue");
    impl->queue = queue;
    return VOTECL_OK;
}

/* A device of the caller's context: it must be one of cl's devices. */
static votecl_status
check_device(votecl_context *context, cl_context cl, cl_device_id device)
{
    cl_device_id devices[MAX_DEVICES];
    size_t size = 0;
    cl_int err = clGetContextInfo(cl, CL_CONTEXT_DEVICES, sizeof devices, devices, &size);

    if (err != CL_SUCCESS)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "cl_context: not a context (%s)",
                            cl_error_name(err));
    for (size_t i = 0; i < size / sizeof devices[0]; i++)
        if (devices[i] == device)
            return VOTECL_OK;
    return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                        "cl_device: not a device of cl_context");
}

static votecl_status
opencl_context_adopt(votecl_context *context, void *native_context, void *native_device,
                     void *native_queue, const char *selector)
{
    device_entry entry;
    opencl_impl *impl;
    votecl_status status;

    (void)selector;
    if (native_context == NULL || native_device == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: NULL",
                            native_context == NULL ? "cl_context" : "cl_device");
    status = check_device(context, native_context, native_device);
    if (status != VOTECL_OK)
        return status;
    memset(&entry, 0, sizeof entry);
    entry.device = native_device;
    if (clGetDeviceInfo(entry.device, CL_DEVICE_PLATFORM, sizeof entry.platform, &entry.platform,
                        NULL) != CL_SUCCESS)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "cl_device: no platform");
    if ((impl = votecl__calloc(1, sizeof *impl)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    context->impl = impl;
    impl->platform = entry.platform;
    impl->device = entry.device;
    status = adopt_objects(context, impl, native_context, native_device, native_queue);
    if (status != VOTECL_OK) {
        opencl_context_release(context);
        return status;
    }
    device_facts(entry.platform, entry.device, &context->info);
    context->features = device_features(entry.device, &context->info);
    snprintf(impl->build_id, sizeof impl->build_id, "opencl|%s|%s|%s|%s|libvotecl %s",
             context->info.platform, context->info.name, context->info.vendor,
             context->info.version, VOTECL_VERSION_STRING);
    return VOTECL_OK;
}

static votecl_status
opencl_buffer_adopt(votecl_context *context, void *native, size_t size, void **handle)
{
    cl_mem mem = native;
    cl_context owner = NULL;
    size_t mem_size = 0;
    cl_int err;

    if ((err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL)) !=
            CL_SUCCESS ||
        (err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof mem_size, &mem_size, NULL)) !=
            CL_SUCCESS)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "handle: not a cl_mem (%s)",
                            cl_error_name(err));
    if (owner != impl_of(context)->cl)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "handle: the cl_mem belongs to another cl_context");
    if (mem_size < size)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "size: %zu bytes exceed the cl_mem's %zu", size, mem_size);
    if ((err = clRetainMemObject(mem)) != CL_SUCCESS)
        return cl_fail(context, err, "clRetainMemObject");
    *handle = mem;
    return VOTECL_OK;
}

/* The reference taken by opencl_buffer_adopt; the caller's own stays. */
static void
opencl_buffer_disown(votecl_context *context, void *handle)
{
    (void)context;
    clReleaseMemObject((cl_mem)handle);
}

static void *
opencl_native_queue(const votecl_context *context)
{
    return impl_of(context)->queue;
}

const votecl__backend_ops votecl__backend_opencl = {
    .name = "opencl",
    .context_init = opencl_context_init,
    .context_release = opencl_context_release,
    .devices_list = opencl_devices_list,
    .build_id = opencl_build_id,
    .buffer_alloc = opencl_buffer_alloc,
    .buffer_release = opencl_buffer_release,
    .buffer_write = opencl_buffer_write,
    .buffer_read = opencl_buffer_read,
    .buffer_zero = opencl_buffer_zero,
    .buffer_wrap = opencl_buffer_wrap,
    .buffer_copy = opencl_buffer_copy,
    .host_alloc = opencl_host_alloc,
    .host_free = opencl_host_free,
    .program_build = opencl_program_build,
    .program_load = opencl_program_load,
    .program_binary = opencl_program_binary,
    .program_release = opencl_program_release,
    .kernel_create = opencl_kernel_create,
    .kernel_release = opencl_kernel_release,
    .launch = opencl_launch,
    .finish = opencl_finish,
    .context_adopt = opencl_context_adopt,
    .buffer_adopt = opencl_buffer_adopt,
    .buffer_disown = opencl_buffer_disown,
    .native_queue = opencl_native_queue,
};
