/* The CUDA backend (./configure --enable-cuda): the kernel sources of cl/, composed as for
 * OpenCL, compiled by NVRTC to CUBIN for the device's own architecture after cl/prelude.h has
 * mapped OpenCL C to CUDA.
 *
 * The driver API (libcuda.so.1) and NVRTC are loaded with dlopen when a context asks for
 * CUDA, so a library built with CUDA loads and runs OpenCL where no NVIDIA driver exists,
 * and the build needs no CUDA headers: the few declarations used are below, with the values
 * of cuda.h and nvrtc.h (stable since CUDA 11), in the manner of FFmpeg's dynlink loaders.
 * Each context holds its own handles to the two libraries (opened RTLD_NODELETE, so that
 * closing them never unmaps the driver), so the backend keeps no process-global state. */
#include "votecl-private.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the subset of the CUDA driver API and NVRTC used here --- */

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUlinkState_st *CUlinkState;
typedef int CUjit_option;
typedef int CUjitInputType;
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NO_DEVICE = 100,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_STREAM_NON_BLOCKING = 1,
    CU_POINTER_ATTRIBUTE_CONTEXT = 1,
    CU_JIT_INPUT_PTX = 1,
    NVRTC_SUCCESS = 0,
    NVRTC_ERROR_COMPILATION = 6
};

/* X(return type, name, parameters, required): every entry point, by its exported name
 * (the _v2 ones where the ABI has them). */
#define DRIVER_FUNCTIONS(X)                                                                        \
    X(CUresult, cuInit, (unsigned flags), 1)                                                       \
    X(CUresult, cuDriverGetVersion, (int *version), 1)                                             \
    X(CUresult, cuGetErrorName, (CUresult error, const char **name), 1)                            \
    X(CUresult, cuGetErrorString, (CUresult error, const char **text), 1)                          \
    X(CUresult, cuDeviceGetCount, (int *count), 1)                                                 \
    X(CUresult, cuDeviceGet, (CUdevice * device, int ordinal), 1)                                  \
    X(CUresult, cuDeviceGetName, (char *name, int size, CUdevice device), 1)                       \
    X(CUresult, cuDeviceGetAttribute, (int *value, int attribute, CUdevice device), 1)             \
    X(CUresult, cuDeviceTotalMem_v2, (size_t * bytes, CUdevice device), 1)                         \
    X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext * context, CUdevice device), 1)               \
    X(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice device), 1)                                \
    X(CUresult, cuCtxSetCurrent, (CUcontext context), 1)                                           \
    X(CUresult, cuCtxGetCurrent, (CUcontext * context), 1)                                         \
    X(CUresult, cuCtxGetDevice, (CUdevice * device), 1)                                            \
    X(CUresult, cuPointerGetAttribute, (void *data, int attribute, CUdeviceptr ptr), 0)            \
    X(CUresult, cuStreamCreate, (CUstream * stream, unsigned flags), 1)                            \
    X(CUresult, cuStreamDestroy_v2, (CUstream stream), 1)                                          \
    X(CUresult, cuStreamSynchronize, (CUstream stream), 1)                                         \
    X(CUresult, cuMemAlloc_v2, (CUdeviceptr * ptr, size_t size), 1)                                \
    X(CUresult, cuMemFree_v2, (CUdeviceptr ptr), 1)                                                \
    X(CUresult, cuMemHostAlloc, (void **ptr, size_t size, unsigned flags), 0)                      \
    X(CUresult, cuMemFreeHost, (void *ptr), 0)                                                     \
    X(CUresult, cuMemcpyHtoDAsync_v2,                                                              \
      (CUdeviceptr dst, const void *src, size_t size, CUstream stream), 1)                         \
    X(CUresult, cuMemcpyDtoHAsync_v2, (void *dst, CUdeviceptr src, size_t size, CUstream stream),  \
      1)                                                                                           \
    X(CUresult, cuMemcpyDtoDAsync_v2,                                                              \
      (CUdeviceptr dst, CUdeviceptr src, size_t size, CUstream stream), 1)                         \
    X(CUresult, cuMemsetD8Async, (CUdeviceptr dst, unsigned char value, size_t n, CUstream s), 1)  \
    X(CUresult, cuMemsetD32Async, (CUdeviceptr dst, unsigned value, size_t n, CUstream s), 1)      \
    X(CUresult, cuModuleLoadData, (CUmodule * module, const void *image), 1)                       \
    X(CUresult, cuModuleUnload, (CUmodule module), 1)                                              \
    X(CUresult, cuModuleGetFunction, (CUfunction * function, CUmodule module, const char *name),   \
      1)                                                                                           \
    X(CUresult, cuLaunchKernel,                                                                    \
      (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
       unsigned shared_bytes, CUstream stream, void **params, void **extra),                       \
      1)                                                                                           \
    X(CUresult, cuLinkCreate_v2,                                                                   \
      (unsigned n, CUjit_option *options, void **values, CUlinkState *state), 0)                   \
    X(CUresult, cuLinkAddData_v2,                                                                  \
      (CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name,          \
       unsigned n, CUjit_option *options, void **values),                                          \
      0)                                                                                           \
    X(CUresult, cuLinkComplete, (CUlinkState state, void **cubin, size_t *size), 0)                \
    X(CUresult, cuLinkDestroy, (CUlinkState state), 0)

#define NVRTC_FUNCTIONS(X)                                                                         \
    X(const char *, nvrtcGetErrorString, (nvrtcResult result), 1)                                  \
    X(nvrtcResult, nvrtcVersion, (int *major, int *minor), 1)                                      \
    X(nvrtcResult, nvrtcCreateProgram,                                                             \
      (nvrtcProgram * program, const char *source, const char *name, int nheaders,                 \
       const char *const *headers, const char *const *include_names),                              \
      1)                                                                                           \
    X(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram * program), 1)                               \
    X(nvrtcResult, nvrtcCompileProgram,                                                            \
      (nvrtcProgram program, int noptions, const char *const *options), 1)                         \
    X(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram program, size_t * size), 1)               \
    X(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram program, char *log), 1)                       \
    X(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram program, size_t * size), 1)                      \
    X(nvrtcResult, nvrtcGetPTX, (nvrtcProgram program, char *ptx), 1)                              \
    X(nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram program, size_t * size), 0)                    \
    X(nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram program, char *cubin), 0)                          \
    X(nvrtcResult, nvrtcGetNumSupportedArchs, (int *count), 0)                                     \
    X(nvrtcResult, nvrtcGetSupportedArchs, (int *archs), 0)

#define MEMBER(ret, name, params, required) ret(*name) params;

typedef struct cuda_api {
    void *libcuda, *libnvrtc;
    DRIVER_FUNCTIONS(MEMBER)
    NVRTC_FUNCTIONS(MEMBER)
} cuda_api;

#undef MEMBER

/* NVRTC is versioned per CUDA major release (11.2 and later keep one soname per major). */
static const char *const nvrtc_names[] = {"libnvrtc.so",      "libnvrtc.so.13",
                                          "libnvrtc.so.12",   "libnvrtc.so.11.2",
                                          "libnvrtc.so.11.1", "libnvrtc.so.11.0"};

#define NVRTC_TRIED "libnvrtc.so, libnvrtc.so.13, .12, .11.2, .11.1, .11.0"
#ifdef VOTECL_CUDA_PREFIX
#define NVRTC_WHERE NVRTC_TRIED " (also in " VOTECL_CUDA_PREFIX "/lib64)"
#else
#define NVRTC_WHERE NVRTC_TRIED
#endif

#define MAX_DEVICES 64
#define MAX_ARGS 32
#define MAX_OPTIONS 64

typedef struct cuda_impl {
    cuda_api api;
    CUdevice device;
    CUcontext ctx; /* the device's primary context, shared with the rest of the process */
    CUstream stream;
    int owns_context; /* 1: the primary context was retained here and is released */
    int owns_stream;  /* 0: the caller's stream (interop), never destroyed */
    int arch;         /* compute capability, major * 10 + minor */
    int grid_max[3];
    char build_id[512];
} cuda_impl;

typedef struct cuda_program {
    CUmodule module;
    void *cubin; /* what the disk cache stores */
    size_t size;
} cuda_program;

static void *
open_library(const char *name)
{
    return dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

static void *
open_nvrtc(void)
{
    void *lib = NULL;

    for (size_t i = 0; lib == NULL && i < sizeof nvrtc_names / sizeof nvrtc_names[0]; i++)
        lib = open_library(nvrtc_names[i]);
#ifdef VOTECL_CUDA_PREFIX
    for (size_t i = 0; lib == NULL && i < sizeof nvrtc_names / sizeof nvrtc_names[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/lib64/%s", VOTECL_CUDA_PREFIX, nvrtc_names[i]);
        lib = open_library(path);
    }
#endif
    return lib;
}

/* Resolves every entry point of one library; the first missing required one is named. */
static const char *
resolve(void *lib, cuda_api *api, int driver)
{
#define RESOLVE(ret, name, params, required)                                                       \
    *(void **)&api->name = dlsym(lib, #name);                                                      \
    if (api->name == NULL && (required))                                                           \
        return #name;
    if (driver) {
        DRIVER_FUNCTIONS(RESOLVE)
    } else {
        NVRTC_FUNCTIONS(RESOLVE)
    }
#undef RESOLVE
    return NULL;
}

static void
api_close(cuda_api *api)
{
    if (api->libnvrtc != NULL)
        dlclose(api->libnvrtc);
    if (api->libcuda != NULL)
        dlclose(api->libcuda);
    memset(api, 0, sizeof *api);
}

/* Loads the driver, and NVRTC when with_nvrtc; context may be NULL (no message kept). */
static votecl_status
api_open(votecl_context *context, cuda_api *api, int with_nvrtc)
{
    const char *missing;

    memset(api, 0, sizeof *api);
    if ((api->libcuda = open_library("libcuda.so.1")) == NULL) {
        const char *why = dlerror();
        return votecl__fail(context, VOTECL_BACKEND_UNAVAILABLE,
                            "CUDA backend: cannot load the NVIDIA driver library libcuda.so.1 "
                            "(%s); install the NVIDIA driver, or use VOTECL_BACKEND=opencl",
                            why != NULL ? why : "not found");
    }
    if ((missing = resolve(api->libcuda, api, 1)) != NULL) {
        api_close(api);
        return votecl__fail(context, VOTECL_BACKEND_UNAVAILABLE,
                            "CUDA backend: libcuda.so.1 has no %s (driver too old?)", missing);
    }
    if (!with_nvrtc)
        return VOTECL_OK;
    if ((api->libnvrtc = open_nvrtc()) == NULL) {
        api_close(api);
        return votecl__fail(context, VOTECL_BACKEND_UNAVAILABLE,
                            "CUDA backend: cannot load NVRTC (tried " NVRTC_WHERE "); install "
                            "the CUDA toolkit's NVRTC or add its lib64 to LD_LIBRARY_PATH");
    }
    if ((missing = resolve(api->libnvrtc, api, 0)) != NULL) {
        api_close(api);
        return votecl__fail(context, VOTECL_BACKEND_UNAVAILABLE,
                            "CUDA backend: NVRTC has no %s (NVRTC older than CUDA 11?)", missing);
    }
    return VOTECL_OK;
}

static cuda_impl *
impl_of(const votecl_context *context)
{
    return (cuda_impl *)context->impl;
}

/* The context's CUDA context becomes the calling thread's: a votecl context may move
 * between threads (one at a time). */
static cuda_impl *
bind(const votecl_context *context)
{
    cuda_impl *impl = impl_of(context);

    impl->api.cuCtxSetCurrent(impl->ctx);
    return impl;
}

static votecl_status
cu_fail(votecl_context *context, const cuda_api *api, CUresult err, const char *call)
{
    const char *name = NULL, *text = NULL;

    if (api->cuGetErrorName(err, &name) != CUDA_SUCCESS || name == NULL)
        name = "unknown CUDA error";
    if (api->cuGetErrorString(err, &text) != CUDA_SUCCESS || text == NULL)
        text = "";
    return votecl__fail(context,
                        err == CUDA_ERROR_OUT_OF_MEMORY ? VOTECL_OUT_OF_DEVICE_MEMORY
                                                        : VOTECL_DEVICE_ERROR,
                        "%s failed: %s (%d): %s", call, name, err, text);
}

static votecl_status
cu_check(votecl_context *context, CUresult err, const char *call)
{
    return err == CUDA_SUCCESS ? VOTECL_OK : cu_fail(context, &impl_of(context)->api, err, call);
}

/* --- devices --- */

static int
attribute(const cuda_api *api, CUdevice device, int what)
{
    int v = 0;
    return api->cuDeviceGetAttribute(&v, what, device) == CUDA_SUCCESS ? v : 0;
}

/* The facts the plans use, as the OpenCL backend reports them for the same GPU: local memory
 * is the static shared memory a block may have, compute units are multiprocessors. */
static void
device_facts(const cuda_api *api, CUdevice device, int ordinal, votecl_device_info *info)
{
    int driver = 0;
    size_t total = 0;

    memset(info, 0, sizeof *info);
    info->backend = VOTECL_BACKEND_CUDA;
    info->type = VOTECL_DEVICE_GPU;
    if (api->cuDeviceGetName(info->name, (int)sizeof info->name, device) != CUDA_SUCCESS)
        info->name[0] = '\0';
    info->name[sizeof info->name - 1] = '\0';
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA Corporation");
    snprintf(info->platform, sizeof info->platform, "NVIDIA CUDA");
    api->cuDriverGetVersion(&driver);
    snprintf(info->version, sizeof info->version, "compute capability %d.%d / CUDA driver %d.%d",
             attribute(api, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
             attribute(api, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), driver / 1000,
             driver % 1000 / 10);
    info->device_index = (unsigned)ordinal;
    info->compute_units =
        (unsigned)attribute(api, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info->max_work_group_size =
        (size_t)attribute(api, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    info->preferred_work_group_multiple =
        (size_t)attribute(api, device, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    info->local_mem_bytes =
        (uint64_t)attribute(api, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    if (api->cuDeviceTotalMem_v2(&total, device) == CUDA_SUCCESS)
        info->global_mem_bytes = total;
    info->max_alloc_bytes = info->global_mem_bytes;
    info->local_mem_dedicated = 1;
    info->host_unified_memory = 0; /* no zero-copy wrap: buffers are device memory */
    info->local_atomics = 1;
    info->global_atomics = 1;
}

/* Every CUDA device, in the driver's order; cuInit must have succeeded. */
static size_t
enumerate(const cuda_api *api, votecl_device_info *infos, size_t capacity)
{
    int count = 0;
    size_t n = 0;

    if (api->cuDeviceGetCount(&count) != CUDA_SUCCESS)
        return 0;
    for (int i = 0; i < count && n < capacity; i++) {
        CUdevice device;
        if (api->cuDeviceGet(&device, i) == CUDA_SUCCESS)
            device_facts(api, device, i, &infos[n++]);
    }
    return n;
}

static votecl_status
init_driver(votecl_context *context, const cuda_api *api)
{
    CUresult err = api->cuInit(0);

    if (err == CUDA_ERROR_NO_DEVICE)
        return votecl__fail(context, VOTECL_NO_DEVICE, "no CUDA device found (cuInit)");
    if (err != CUDA_SUCCESS) {
        const char *name = NULL;
        if (api->cuGetErrorName(err, &name) != CUDA_SUCCESS || name == NULL)
            name = "unknown CUDA error";
        return votecl__fail(context, VOTECL_BACKEND_UNAVAILABLE,
                            "CUDA backend: cuInit failed: %s (%d); is the NVIDIA driver loaded?",
                            name, err);
    }
    return VOTECL_OK;
}

static votecl_status
cuda_devices_list(votecl_device_info *infos, size_t capacity, size_t *found)
{
    cuda_api api;
    votecl_device_info *all;
    votecl_status status = api_open(NULL, &api, 0);

    *found = 0;
    if (status != VOTECL_OK)
        return VOTECL_OK; /* no driver: no CUDA device */
    if (init_driver(NULL, &api) != VOTECL_OK) {
        api_close(&api);
        return VOTECL_OK;
    }
    all = votecl__calloc(MAX_DEVICES, sizeof *all);
    if (all == NULL) {
        api_close(&api);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    *found = enumerate(&api, all, MAX_DEVICES);
    for (size_t i = 0; i < *found && i < capacity; i++)
        infos[i] = all[i];
    free(all);
    api_close(&api);
    return VOTECL_OK;
}

/* --- contexts --- */

static int
nvrtc_version(const cuda_api *api)
{
    int major = 0, minor = 0;
    api->nvrtcVersion(&major, &minor);
    return major * 10 + minor;
}

/* The facts of impl->device kept for launches and cache keys; impl->ctx is current. */
static void
device_ready(votecl_context *context, cuda_impl *impl, const votecl_device_info *info)
{
    cuda_api *api = &impl->api;
    int driver = 0, nvrtc = nvrtc_version(api);

    impl->arch = attribute(api, impl->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                 attribute(api, impl->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    impl->grid_max[0] = attribute(api, impl->device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    impl->grid_max[1] = attribute(api, impl->device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    impl->grid_max[2] = attribute(api, impl->device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    api->cuDriverGetVersion(&driver);
    context->info = *info;
    /* Warps of 32 with shuffles; __match_any_sync needs sm_70. */
    context->features = VOTECL__FEATURE_SUBGROUPS | VOTECL__FEATURE_FP64 |
                        VOTECL__FEATURE_ATOMICS64 |
                        (impl->arch >= 70 ? VOTECL__FEATURE_WARP_MATCH : 0u);
    /* Everything a CUBIN depends on: the compiler, the target and the driver that loads it. */
    snprintf(impl->build_id, sizeof impl->build_id,
             "cuda|%s|sm_%d|driver %d|nvrtc %d.%d|libvotecl %s", info->name, impl->arch, driver,
             nvrtc / 10, nvrtc % 10, VOTECL_VERSION_STRING);
}

static votecl_status
open_device(votecl_context *context, cuda_impl *impl, const votecl_device_info *info)
{
    cuda_api *api = &impl->api;
    votecl_status status =
        cu_check(context, api->cuDeviceGet(&impl->device, (int)info->device_index), "cuDeviceGet");

    if (status == VOTECL_OK)
        status = cu_check(context, api->cuDevicePrimaryCtxRetain(&impl->ctx, impl->device),
                          "cuDevicePrimaryCtxRetain");
    if (status != VOTECL_OK) {
        impl->ctx = NULL;
        return status;
    }
    impl->owns_context = 1;
    status = cu_check(context, api->cuCtxSetCurrent(impl->ctx), "cuCtxSetCurrent");
    if (status == VOTECL_OK)
        status = cu_check(context, api->cuStreamCreate(&impl->stream, CU_STREAM_NON_BLOCKING),
                          "cuStreamCreate");
    if (status != VOTECL_OK)
        return status;
    impl->owns_stream = 1;
    device_ready(context, impl, info);
    return VOTECL_OK;
}

static void
cuda_context_release(votecl_context *context)
{
    cuda_impl *impl = impl_of(context);

    if (impl->ctx != NULL) {
        impl->api.cuCtxSetCurrent(impl->ctx);
        if (impl->stream != NULL && impl->owns_stream)
            impl->api.cuStreamDestroy_v2(impl->stream);
        if (impl->owns_context)
            impl->api.cuDevicePrimaryCtxRelease_v2(impl->device);
    }
    api_close(&impl->api);
    free(impl);
    context->impl = NULL;
}

static votecl_status
select_and_open(votecl_context *context, cuda_impl *impl, const char *selector)
{
    votecl_device_info *infos = votecl__calloc(MAX_DEVICES, sizeof *infos);
    votecl_status status = VOTECL_OK;
    size_t n;
    long chosen;

    if (infos == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    n = enumerate(&impl->api, infos, MAX_DEVICES);
    chosen = votecl__device_select(infos, sizeof *infos, n, selector);
    if (n == 0)
        status = votecl__fail(context, VOTECL_NO_DEVICE,
                              "no CUDA device found; use VOTECL_BACKEND=opencl or ref");
    else if (chosen == -2)
        status =
            votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                         "device: malformed selector '%s'; expected platform:type:name-or-index "
                         "with type CPU, GPU or ACCELERATOR",
                         selector);
    else if (chosen < 0)
        status =
            votecl__fail(context, VOTECL_NO_DEVICE,
                         "device: no CUDA device matches '%s' (votecl info lists them)", selector);
    else
        status = open_device(context, impl, &infos[chosen]);
    free(infos);
    return status;
}

/* The opening of init and adopt: the backend state, its driver API loaded, made the
 * context's (*out, or NULL when neither memory nor the API was there) and the driver
 * initialised (the status). */
static votecl_status
impl_open(votecl_context *context, cuda_impl **out)
{
    cuda_impl *impl = votecl__calloc(1, sizeof *impl);
    votecl_status status;

    *out = NULL;
    if (impl == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    status = api_open(context, &impl->api, 1);
    if (status != VOTECL_OK) {
        free(impl);
        return status;
    }
    context->impl = impl;
    *out = impl;
    return init_driver(context, &impl->api);
}

static votecl_status
cuda_context_init(votecl_context *context, const char *selector)
{
    cuda_impl *impl;
    votecl_status status = impl_open(context, &impl);

    if (impl == NULL)
        return status;
    if (status == VOTECL_OK)
        status = select_and_open(context, impl, selector);
    if (status != VOTECL_OK)
        cuda_context_release(context);
    return status;
}

static const char *
cuda_build_id(const votecl_context *context)
{
    return impl_of(context)->build_id;
}

/* --- buffers: the handle is the device address --- */

static CUdeviceptr
dptr(const void *handle)
{
    return (CUdeviceptr)(uintptr_t)handle;
}

static votecl_status
cuda_buffer_alloc(votecl_context *context, size_t size, void **handle)
{
    cuda_impl *impl = bind(context);
    CUdeviceptr p = 0;
    CUresult err = impl->api.cuMemAlloc_v2(&p, size);

    if (err != CUDA_SUCCESS)
        return cu_fail(context, &impl->api, err, "cuMemAlloc");
    *handle = (void *)(uintptr_t)p;
    return VOTECL_OK;
}

static void
cuda_buffer_release(votecl_context *context, void *handle)
{
    if (handle != NULL)
        bind(context)->api.cuMemFree_v2(dptr(handle));
}

static votecl_status
cuda_host_alloc(votecl_context *context, size_t size, void **ptr, void **handle)
{
    cuda_impl *impl = bind(context);
    CUresult err;

    if (impl->api.cuMemHostAlloc == NULL || impl->api.cuMemFreeHost == NULL)
        return votecl__fail(context, VOTECL_UNSUPPORTED, "cuMemHostAlloc: not in this driver");
    if ((err = impl->api.cuMemHostAlloc(ptr, size, 0)) != CUDA_SUCCESS)
        return cu_fail(context, &impl->api, err, "cuMemHostAlloc");
    *handle = *ptr;
    return VOTECL_OK;
}

static void
cuda_host_free(votecl_context *context, void *ptr, void *handle)
{
    (void)handle;
    bind(context)->api.cuMemFreeHost(ptr);
}

/* Waits for the stream: transfers block, as the launch contract says. */
static votecl_status
sync_after(votecl_context *context, CUresult err, const char *call)
{
    cuda_impl *impl = impl_of(context);

    if (err != CUDA_SUCCESS)
        return cu_fail(context, &impl->api, err, call);
    return cu_check(context, impl->api.cuStreamSynchronize(impl->stream), "cuStreamSynchronize");
}

static votecl_status
cuda_buffer_write(votecl_context *context, void *handle, size_t offset, const void *src,
                  size_t size)
{
    cuda_impl *impl = bind(context);
    return sync_after(
        context, impl->api.cuMemcpyHtoDAsync_v2(dptr(handle) + offset, src, size, impl->stream),
        "cuMemcpyHtoDAsync");
}

static votecl_status
cuda_buffer_read(votecl_context *context, void *handle, size_t offset, void *dst, size_t size)
{
    cuda_impl *impl = bind(context);
    return sync_after(
        context, impl->api.cuMemcpyDtoHAsync_v2(dst, dptr(handle) + offset, size, impl->stream),
        "cuMemcpyDtoHAsync");
}

static votecl_status
cuda_buffer_zero(votecl_context *context, void *handle, size_t offset, size_t size)
{
    cuda_impl *impl = bind(context);
    CUdeviceptr p = dptr(handle) + offset;

    if (p % 4 == 0 && size % 4 == 0)
        return cu_check(context, impl->api.cuMemsetD32Async(p, 0, size / 4, impl->stream),
                        "cuMemsetD32Async");
    return cu_check(context, impl->api.cuMemsetD8Async(p, 0, size, impl->stream),
                    "cuMemsetD8Async");
}

static votecl_status
cuda_buffer_copy(votecl_context *context, void *dst, size_t dst_offset, void *src,
                 size_t src_offset, size_t size)
{
    cuda_impl *impl = bind(context);
    return cu_check(context,
                    impl->api.cuMemcpyDtoDAsync_v2(dptr(dst) + dst_offset, dptr(src) + src_offset,
                                                   size, impl->stream),
                    "cuMemcpyDtoDAsync");
}

/* --- programs --- */

/* OpenCL build options become NVRTC's: -D, -U and -w pass, OpenCL-only -cl-* options are
 * dropped (the prelude and --fmad=false give their meaning), anything else is refused. */
static votecl_status
translate_options(votecl_context *context, const char *options, char *buf, size_t size,
                  const char **out, size_t *n)
{
    char *save = NULL, *word;

    if (strlen(options) >= size)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "build options too long");
    strcpy(buf, options);
    for (word = strtok_r(buf, " \t", &save); word != NULL; word = strtok_r(NULL, " \t", &save)) {
        if (strncmp(word, "-cl-", 4) == 0)
            continue;
        if (strncmp(word, "-D", 2) != 0 && strncmp(word, "-U", 2) != 0 && strcmp(word, "-w") != 0)
            return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                                "build option '%s' has no CUDA equivalent", word);
        if (*n >= MAX_OPTIONS)
            return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "too many build options");
        out[(*n)++] = word;
    }
    return VOTECL_OK;
}

/* The architecture NVRTC compiles for: the device's own when NVRTC knows it (CUBIN), else the
 * newest older one it knows (PTX, which the driver then compiles); 0 when none. */
static int
target_arch(const cuda_api *api, int device_arch, int *cubin)
{
    int count = 0, best = 0, archs[128];

    *cubin = api->nvrtcGetCUBIN != NULL;
    if (api->nvrtcGetNumSupportedArchs == NULL || api->nvrtcGetSupportedArchs == NULL ||
        api->nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0 || count > 128 ||
        api->nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS)
        return device_arch; /* NVRTC 11.0 and 11.1 cannot tell: try the device's own */
    for (int i = 0; i < count; i++) {
        if (archs[i] == device_arch)
            return device_arch;
        if (archs[i] < device_arch && archs[i] > best)
            best = archs[i];
    }
    *cubin = 0;
    return best;
}

/* Length of "name(123)" at the start of line when it is followed by ": ", else 0. */
static size_t
nvrtc_location(const char *line, size_t *paren)
{
    const char *p = line;

    while (*p != '\0' && *p != '(' && *p != ' ' && *p != '\n')
        p++;
    if (p == line || *p != '(' || !isdigit((unsigned char)p[1]))
        return 0;
    *paren = (size_t)(p - line);
    for (p++; isdigit((unsigned char)*p); p++)
        ;
    return p[0] == ')' && p[1] == ':' && p[2] == ' ' ? (size_t)(p + 1 - line) : 0;
}

/* NVRTC writes "file(line): error: ..."; the build log gets the "file:line: error: ..." of
 * the OpenCL compilers, so both backends' logs read (and parse) alike. In place: shorter. */
static void
clang_style_locations(char *log)
{
    char *out = log;

    for (const char *in = log; *in != '\0';) {
        size_t paren = 0, n = nvrtc_location(in, &paren);
        if (n > 0) {
            memmove(out, in, paren);
            out[paren] = ':';
            memmove(out + paren + 1, in + paren + 1, n - paren - 2);
            out += n - 1;
            *out++ = ':';
            in += n + 1; /* past "):" */
        }
        while (*in != '\0' && *in != '\n')
            *out++ = *in++;
        if (*in == '\n')
            *out++ = *in++;
    }
    *out = '\0';
}

static void
store_nvrtc_log(votecl_context *context, nvrtcProgram program)
{
    const cuda_api *api = &impl_of(context)->api;
    size_t size = 0;
    char *log;

    if (api->nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS ||
        (log = votecl__calloc(1, size + 1)) == NULL) {
        votecl__set_build_log(context, "");
        return;
    }
    if (api->nvrtcGetProgramLog(program, log) != NVRTC_SUCCESS)
        log[0] = '\0';
    clang_style_locations(log);
    votecl__set_build_log(context, log);
    free(log);
}

static votecl_status
nvrtc_fail(votecl_context *context, nvrtcResult err, const char *call)
{
    return votecl__fail(context, VOTECL_DEVICE_ERROR, "%s failed: %s (%d)", call,
                        impl_of(context)->api.nvrtcGetErrorString(err), err);
}

/* The compiled image: CUBIN, or PTX with its size. */
static votecl_status
nvrtc_output(votecl_context *context, nvrtcProgram program, int cubin, void **image, size_t *size)
{
    const cuda_api *api = &impl_of(context)->api;
    nvrtcResult err =
        cubin ? api->nvrtcGetCUBINSize(program, size) : api->nvrtcGetPTXSize(program, size);

    if (err != NVRTC_SUCCESS)
        return nvrtc_fail(context, err, cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize");
    if ((*image = votecl__malloc(*size)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a CUBIN");
    err = cubin ? api->nvrtcGetCUBIN(program, *image) : api->nvrtcGetPTX(program, *image);
    if (err != NVRTC_SUCCESS) {
        free(*image);
        *image = NULL;
        return nvrtc_fail(context, err, cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX");
    }
    return VOTECL_OK;
}

/* Compiles source for arch into *image (CUBIN when *cubin, else PTX). */
static votecl_status
nvrtc_compile(votecl_context *context, const char *source, const char *options, int arch, int cubin,
              void **image, size_t *size)
{
    const cuda_api *api = &impl_of(context)->api;
    char target[48], buf[4096];
    /* --fmad=false: no contraction, as OpenCL's FP_CONTRACT OFF; -default-device: the
     * kernels' helper functions carry no __device__. */
    const char *opts[MAX_OPTIONS + 4] = {target, "--fmad=false",
                                         "--device-as-default-execution-space", "--std=c++17"};
    size_t n = 4;
    nvrtcProgram program = NULL;
    nvrtcResult err;
    votecl_status status = translate_options(context, options, buf, sizeof buf, opts, &n);

    if (status != VOTECL_OK)
        return status;
    snprintf(target, sizeof target, "--gpu-architecture=%s_%d", cubin ? "sm" : "compute", arch);
    err = api->nvrtcCreateProgram(&program, source, "votecl.cu", 0, NULL, NULL);
    if (err != NVRTC_SUCCESS)
        return nvrtc_fail(context, err, "nvrtcCreateProgram");
    err = api->nvrtcCompileProgram(program, (int)n, opts);
    store_nvrtc_log(context, program);
    if (err == NVRTC_ERROR_COMPILATION)
        status = votecl__fail(context, VOTECL_BUILD_FAILED,
                              "kernel build failed; votecl_context_get_build_log() has the log");
    else if (err != NVRTC_SUCCESS)
        status = nvrtc_fail(context, err, "nvrtcCompileProgram");
    else
        status = nvrtc_output(context, program, cubin, image, size);
    api->nvrtcDestroyProgram(&program);
    return status;
}

/* PTX to CUBIN through the driver's own compiler, so that the disk cache holds CUBIN even
 * where NVRTC does not know the device. */
static votecl_status
link_ptx(votecl_context *context, void *ptx, size_t size, void **cubin, size_t *cubin_size)
{
    const cuda_api *api = &impl_of(context)->api;
    CUlinkState state = NULL;
    void *out = NULL;
    votecl_status status;

    if (api->cuLinkCreate_v2 == NULL || api->cuLinkAddData_v2 == NULL ||
        api->cuLinkComplete == NULL || api->cuLinkDestroy == NULL)
        return votecl__fail(context, VOTECL_UNSUPPORTED, "the CUDA driver cannot link PTX");
    status = cu_check(context, api->cuLinkCreate_v2(0, NULL, NULL, &state), "cuLinkCreate");
    if (status == VOTECL_OK)
        status = cu_check(
            context,
            api->cuLinkAddData_v2(state, CU_JIT_INPUT_PTX, ptx, size, "votecl.ptx", 0, NULL, NULL),
            "cuLinkAddData(PTX)");
    if (status == VOTECL_OK)
        status = cu_check(context, api->cuLinkComplete(state, &out, cubin_size), "cuLinkComplete");
    if (status == VOTECL_OK && (*cubin = votecl__malloc(*cubin_size)) == NULL)
        status = votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a CUBIN");
    if (status == VOTECL_OK)
        memcpy(*cubin, out, *cubin_size);
    if (state != NULL)
        api->cuLinkDestroy(state);
    return status;
}

/* Loads a CUBIN into a program, which takes it over. */
static votecl_status
load_cubin(votecl_context *context, void *cubin, size_t size, void **out)
{
    cuda_impl *impl = impl_of(context);
    cuda_program *p = votecl__calloc(1, sizeof *p);
    CUresult err;

    if (p == NULL) {
        free(cubin);
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a program");
    }
    err = impl->api.cuModuleLoadData(&p->module, cubin);
    if (err != CUDA_SUCCESS) {
        free(cubin);
        free(p);
        return cu_fail(context, &impl->api, err, "cuModuleLoadData");
    }
    p->cubin = cubin;
    p->size = size;
    *out = p;
    return VOTECL_OK;
}

static votecl_status
cuda_program_build(votecl_context *context, const char *source, const char *options, void **program)
{
    cuda_impl *impl = bind(context);
    int cubin, arch = target_arch(&impl->api, impl->arch, &cubin);
    void *image = NULL, *linked = NULL;
    size_t size = 0, linked_size = 0;
    votecl_status status;

    if (arch == 0)
        return votecl__fail(context, VOTECL_BACKEND_UNAVAILABLE,
                            "NVRTC knows no architecture up to the device's sm_%d", impl->arch);
    status = nvrtc_compile(context, source, options, arch, cubin, &image, &size);
    if (status != VOTECL_OK || cubin)
        return status == VOTECL_OK ? load_cubin(context, image, size, program) : status;
    votecl__log(context, "NVRTC has no sm_%d: PTX for compute_%d, linked by the driver", impl->arch,
                arch);
    status = link_ptx(context, image, size, &linked, &linked_size);
    free(image);
    return status == VOTECL_OK ? load_cubin(context, linked, linked_size, program) : status;
}

static votecl_status
cuda_program_load(votecl_context *context, const void *binary, size_t size, const char *options,
                  void **program)
{
    void *copy = votecl__malloc(size);

    bind(context);
    if (copy == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a CUBIN");
    memcpy(copy, binary, size);
    return load_cubin(context, copy, size, program);
}

static votecl_status
cuda_program_binary(votecl_context *context, void *program, void **binary, size_t *size)
{
    const cuda_program *p = program;

    if ((*binary = votecl__malloc(p->size)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a binary");
    memcpy(*binary, p->cubin, p->size);
    *size = p->size;
    return VOTECL_OK;
}

static void
cuda_program_release(votecl_context *context, void *program)
{
    cuda_program *p = program;

    if (p == NULL)
        return;
    bind(context)->api.cuModuleUnload(p->module);
    free(p->cubin);
    free(p);
}

static votecl_status
cuda_kernel_create(votecl_context *context, void *program, const char *name, void **kernel)
{
    cuda_impl *impl = bind(context);
    CUfunction f = NULL;
    CUresult err = impl->api.cuModuleGetFunction(&f, ((cuda_program *)program)->module, name);

    if (err != CUDA_SUCCESS)
        return cu_fail(context, &impl->api, err, name);
    *kernel = f;
    return VOTECL_OK;
}

static void
cuda_kernel_release(votecl_context *context, void *kernel)
{
    /* functions belong to their module */
}

/* --- launches --- */

static votecl_status
grid_of(votecl_context *context, unsigned dims, const size_t *global, const size_t *local,
        unsigned grid[3], unsigned block[3])
{
    const cuda_impl *impl = impl_of(context);

    if (dims < 1 || dims > 3)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "launch: %u dimensions", dims);
    for (unsigned d = 0; d < 3; d++) {
        size_t g = d < dims ? global[d] : 1, l = d < dims ? local[d] : 1;
        if (l == 0 || g % l != 0)
            return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                                "launch: global size %zu is no multiple of local size %zu", g, l);
        if (g / l > (size_t)impl->grid_max[d])
            return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                                "launch: %zu blocks in dimension %u exceed the device's %d", g / l,
                                d, impl->grid_max[d]);
        grid[d] = (unsigned)(g / l);
        block[d] = (unsigned)l;
    }
    return VOTECL_OK;
}

static votecl_status
cuda_launch(votecl_context *context, void *kernel, unsigned dims, const size_t *global,
            const size_t *local, const votecl__arg *args, unsigned nargs)
{
    cuda_impl *impl = bind(context);
    CUdeviceptr ptrs[MAX_ARGS];
    void *params[MAX_ARGS];
    unsigned grid[3], block[3];
    votecl_status status = grid_of(context, dims, global, local, grid, block);

    if (status != VOTECL_OK)
        return status;
    if (nargs > MAX_ARGS)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "launch: %u arguments", nargs);
    /* cuLaunchKernel reads each argument through a pointer to its value. */
    for (unsigned i = 0; i < nargs; i++) {
        if (args[i].kind == VOTECL__ARG_BUFFER) {
            ptrs[i] = args[i].v.buffer != NULL ? dptr(args[i].v.buffer->handle) : 0;
            params[i] = &ptrs[i];
        } else {
            params[i] = (void *)&args[i].v;
        }
    }
    return cu_check(context,
                    impl->api.cuLaunchKernel((CUfunction)kernel, grid[0], grid[1], grid[2],
                                             block[0], block[1], block[2], 0, impl->stream, params,
                                             NULL),
                    "cuLaunchKernel");
}

static votecl_status
cuda_finish(votecl_context *context)
{
    cuda_impl *impl = bind(context);
    return cu_check(context, impl->api.cuStreamSynchronize(impl->stream), "cuStreamSynchronize");
}

/* --- interop --- */

/* The caller's context (or the current one) made the impl's, its device's facts read. */
static votecl_status
adopt_context(votecl_context *context, cuda_impl *impl, CUcontext ctx)
{
    cuda_api *api = &impl->api;
    votecl_device_info info;
    votecl_status status;

    impl->ctx = ctx;
    status = cu_check(context, api->cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    if (status == VOTECL_OK)
        status = cu_check(context, api->cuCtxGetDevice(&impl->device), "cuCtxGetDevice");
    if (status != VOTECL_OK)
        return status;
    device_facts(api, impl->device, (int)impl->device, &info);
    device_ready(context, impl, &info);
    return VOTECL_OK;
}

static votecl_status
cuda_context_adopt(votecl_context *context, void *native_context, void *native_device,
                   void *native_queue, const char *selector)
{
    cuda_impl *impl;
    CUcontext ctx = native_context;
    votecl_status status = impl_open(context, &impl);

    (void)native_device;
    if (impl == NULL)
        return status;
    if (status == VOTECL_OK && ctx == NULL && impl->api.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
        ctx = NULL;
    if (status == VOTECL_OK && ctx != NULL)
        status = adopt_context(context, impl, ctx);
    else if (status == VOTECL_OK)
        status = select_and_open(context, impl, selector);
    if (status == VOTECL_OK && impl->owns_stream) {
        impl->api.cuStreamDestroy_v2(impl->stream);
        impl->owns_stream = 0;
    }
    impl->stream = native_queue;
    if (status != VOTECL_OK)
        cuda_context_release(context);
    return status;
}

static votecl_status
cuda_buffer_adopt(votecl_context *context, void *native, size_t size, void **handle)
{
    cuda_impl *impl = bind(context);
    CUcontext owner = NULL;

    (void)size; /* a device pointer carries no size to check */
    /* Kernels read 16-byte vectors from their inputs. */
    if ((uintptr_t)native % 16 != 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "handle: device pointer %p is not 16-byte aligned", native);
    if (impl->api.cuPointerGetAttribute != NULL &&
        impl->api.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, dptr(native)) !=
            CUDA_SUCCESS)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "handle: %p is not CUDA device memory", native);
    if (owner != NULL && owner != impl->ctx)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "handle: %p belongs to another CUDA context", native);
    *handle = native;
    return VOTECL_OK;
}

/* The memory is the caller's: nothing to release. */
static void
cuda_buffer_disown(votecl_context *context, void *handle)
{
    (void)context;
    (void)handle;
}

static void *
cuda_native_queue(const votecl_context *context)
{
    return impl_of(context)->stream;
}

const votecl__backend_ops votecl__backend_cuda = {
    .name = "cuda",
    .context_init = cuda_context_init,
    .context_release = cuda_context_release,
    .devices_list = cuda_devices_list,
    .build_id = cuda_build_id,
    .buffer_alloc = cuda_buffer_alloc,
    .buffer_release = cuda_buffer_release,
    .buffer_write = cuda_buffer_write,
    .buffer_read = cuda_buffer_read,
    .buffer_zero = cuda_buffer_zero,
    .buffer_copy = cuda_buffer_copy,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .program_build = cuda_program_build,
    .program_load = cuda_program_load,
    .program_binary = cuda_program_binary,
    .program_release = cuda_program_release,
    .kernel_create = cuda_kernel_create,
    .kernel_release = cuda_kernel_release,
    .launch = cuda_launch,
    .finish = cuda_finish,
    .context_adopt = cuda_context_adopt,
    .buffer_adopt = cuda_buffer_adopt,
    .buffer_disown = cuda_buffer_disown,
    .native_queue = cuda_native_queue,
};
