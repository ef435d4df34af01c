/* The backend vtable and the launch contract.
 *
 * Algorithm modules never see cl_mem or CUdeviceptr: they hold votecl_buffer pointers and
 * launch kernels through these operations. The contract, identical for every backend:
 *  - the local size is always given; global sizes are multiples of it (the caller rounds up)
 *    and kernels guard excess work-items without returning before a barrier;
 *  - arguments are a tagged array (buffer or scalar);
 *  - local arrays have compile-time sizes through -D defines, never __local arguments;
 *  - launches and zero fills are asynchronous and in order; reads, writes and finish block.
 * Every failing operation records its detail in the context and returns a status. */
#ifndef VOTECL_BACKEND_H
#define VOTECL_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <votecl.h>

typedef enum votecl__arg_kind {
    VOTECL__ARG_BUFFER,
    VOTECL__ARG_U32,
    VOTECL__ARG_I32,
    VOTECL__ARG_U64,
    VOTECL__ARG_F32
} votecl__arg_kind;

typedef struct votecl__arg {
    votecl__arg_kind kind;
    union {
        const votecl_buffer *buffer; /* NULL passes a null buffer */
        uint32_t u32;
        int32_t i32;
        uint64_t u64;
        float f32;
    } v;
} votecl__arg;

#define VOTECL__ARG_BUF(b) ((votecl__arg){.kind = VOTECL__ARG_BUFFER, .v.buffer = (b)})
#define VOTECL__ARG_UINT(x) ((votecl__arg){.kind = VOTECL__ARG_U32, .v.u32 = (uint32_t)(x)})
#define VOTECL__ARG_INT(x) ((votecl__arg){.kind = VOTECL__ARG_I32, .v.i32 = (int32_t)(x)})
#define VOTECL__ARG_ULONG(x) ((votecl__arg){.kind = VOTECL__ARG_U64, .v.u64 = (uint64_t)(x)})
#define VOTECL__ARG_FLOAT(x) ((votecl__arg){.kind = VOTECL__ARG_F32, .v.f32 = (float)(x)})

typedef struct votecl__backend_ops {
    const char *name;
    /* Fills context->impl and context->info for the device chosen by selector (may be NULL). */
    votecl_status (*context_init)(votecl_context *context, const char *selector);
    void (*context_release)(votecl_context *context);
    votecl_status (*devices_list)(votecl_device_info *infos, size_t capacity, size_t *found);
    /* A string that changes whenever compiled binaries could differ: platform, device,
     * driver versions. Part of every program cache key. Transfer none. */
    const char *(*build_id)(const votecl_context *context);

    votecl_status (*buffer_alloc)(votecl_context *context, size_t size, void **handle);
    void (*buffer_release)(votecl_context *context, void *handle);
    votecl_status (*buffer_write)(votecl_context *context, void *handle, size_t offset,
                                  const void *src, size_t size);
    votecl_status (*buffer_read)(votecl_context *context, void *handle, size_t offset, void *dst,
                                 size_t size);
    votecl_status (*buffer_zero)(votecl_context *context, void *handle, size_t offset,
                                 size_t size);
    /* A buffer over caller memory without a copy, for devices sharing host memory; the
     * kernels only read it. UNSUPPORTED when the backend cannot. */
    votecl_status (*buffer_wrap)(votecl_context *context, const void *host, size_t size,
                                 void **handle);
    votecl_status (*buffer_copy)(votecl_context *context, void *dst, size_t dst_offset,
                                 void *src, size_t src_offset, size_t size);
    /* Page-locked host memory, which buffer_write reads at the bus's full speed: *ptr its
     * address, *handle what host_free takes. NULL: the backend has none (plain memory). */
    votecl_status (*host_alloc)(votecl_context *context, size_t size, void **ptr,
                                void **handle);
    void (*host_free)(votecl_context *context, void *ptr, void *handle);

    /* Builds source with options; the log goes to the context (votecl__set_build_log). */
    votecl_status (*program_build)(votecl_context *context, const char *source,
                                   const char *options, void **program);
    /* Loads a binary produced by program_binary on the same build_id; a failure is a miss. */
    votecl_status (*program_load)(votecl_context *context, const void *binary, size_t size,
                                  const char *options, void **program);
    /* The program's binary in malloc'd memory (caller frees). */
    votecl_status (*program_binary)(votecl_context *context, void *program, void **binary,
                                    size_t *size);
    void (*program_release)(votecl_context *context, void *program);
    votecl_status (*kernel_create)(votecl_context *context, void *program, const char *name,
                                   void **kernel);
    void (*kernel_release)(votecl_context *context, void *kernel);
    votecl_status (*launch)(votecl_context *context, void *kernel, unsigned dims,
                            const size_t *global, const size_t *local, const votecl__arg *args,
                            unsigned nargs);
    votecl_status (*finish)(votecl_context *context);

    /* Interop (NULL where a backend has none). context_adopt fills context->impl and
     * context->info from the caller's native objects instead of creating its own: OpenCL
     * takes (cl_context, cl_device_id, cl_command_queue; a NULL queue: one of its own), CUDA
     * (CUcontext, ignored, CUstream; a NULL CUcontext: the calling thread's current one,
     * else the primary context of the device selector picks). The caller's objects are
     * retained or merely used, never destroyed; context_release undoes only that. Work is
     * queued on the caller's queue or stream, in order with the caller's own work there. */
    votecl_status (*context_adopt)(votecl_context *context, void *native_context,
                                   void *native_device, void *native_queue,
                                   const char *selector);
    /* A handle over the caller's device memory (cl_mem, CUDA device pointer) of at least size
     * bytes without a copy; buffer_disown lets go of it (never frees the memory). */
    votecl_status (*buffer_adopt)(votecl_context *context, void *native, size_t size,
                                  void **handle);
    void (*buffer_disown)(votecl_context *context, void *handle);
    /* The queue or stream the context's work goes to (cl_command_queue, CUstream). */
    void *(*native_queue)(const votecl_context *context);
} votecl__backend_ops;

extern const votecl__backend_ops votecl__backend_opencl;
extern const votecl__backend_ops votecl__backend_ref;
#ifdef VOTECL_WITH_CUDA
extern const votecl__backend_ops votecl__backend_cuda;
#endif

#endif
