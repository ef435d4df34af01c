/** @file
 * libvotecl: contexts, devices and device buffers.
 *
 * A context binds one backend and one device. Everything created from a context (plans,
 * buffers) belongs to it and must be freed before it. A context and the objects created
 * from it are used by one thread at a time; distinct contexts are independent and may be
 * used from different threads at once.
 *
 * Backend selection happens once, in votecl_context_new(): the explicit option, else the
 * environment variable VOTECL_BACKEND, else CUDA when this libvotecl was built with it
 * (./configure --enable-cuda) and a CUDA device answers, else OpenCL. The 'ref' backend runs
 * the sequential C references; it is used only when asked for, never as a silent fallback.
 *
 * Device selection (OpenCL, and CUDA, whose one platform is "NVIDIA CUDA"): the option, else
 * VOTECL_DEVICE, in OpenCV's format "platform:type:name-or-index" where each part may be
 * empty. platform and name match case-insensitive substrings; type is one of CPU, GPU,
 * ACCELERATOR (or empty); a number as the last part is an index among the matching devices.
 * Examples: "NVIDIA:GPU:0", ":CPU:", "Portable". With no selection the first GPU is taken,
 * else the first device. */
#ifndef VOTECL_CONTEXT_H
#define VOTECL_CONTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The backend a context runs on (chosen once, in votecl_context_new()). */
typedef enum votecl_backend {
    /** VOTECL_BACKEND, else cuda if built and present, else opencl */
    VOTECL_BACKEND_DEFAULT = 0,
    VOTECL_BACKEND_OPENCL = 1, /**< any OpenCL device (PoCL on CPUs) */
    VOTECL_BACKEND_CUDA = 2,   /**< NVIDIA GPUs through NVRTC (./configure --enable-cuda) */
    VOTECL_BACKEND_REF = 3     /**< the sequential C references, only when asked for */
} votecl_backend;

/** The kind of a device, as OpenCL reports it. */
typedef enum votecl_device_type {
    VOTECL_DEVICE_OTHER = 0,      /**< none of the kinds below */
    VOTECL_DEVICE_CPU = 1,        /**< a CPU (PoCL, the ref backend's host device) */
    VOTECL_DEVICE_GPU = 2,        /**< a GPU */
    VOTECL_DEVICE_ACCELERATOR = 3 /**< an accelerator card */
} votecl_device_type;

/** Facts about a device, as the plans use them. */
typedef struct votecl_device_info {
    votecl_backend backend;               /**< the backend that lists the device */
    votecl_device_type type;              /**< CPU, GPU, accelerator or other */
    char name[128];                       /**< the device's name, NUL-terminated */
    char vendor[128];                     /**< the device's vendor, NUL-terminated */
    char platform[128];                   /**< the platform's name ("NVIDIA CUDA" on CUDA) */
    char version[128];                    /**< device and driver version */
    unsigned platform_index;              /**< position in the backend's enumeration */
    unsigned device_index;                /**< position within the platform */
    unsigned compute_units;               /**< compute units (OpenCL) or multiprocessors (CUDA) */
    size_t max_work_group_size;           /**< most work-items of one work-group */
    size_t preferred_work_group_multiple; /**< warp / wavefront / SIMD width */
    uint64_t local_mem_bytes;             /**< per work-group */
    uint64_t global_mem_bytes;            /**< device memory */
    uint64_t max_alloc_bytes;             /**< largest single buffer */
    int local_mem_dedicated;              /**< 1: on-chip local memory; 0: emulated in global */
    int host_unified_memory;              /**< device and host share memory (CPU devices) */
    int local_atomics;                    /**< 32-bit atomics on local memory */
    int global_atomics;                   /**< 32-bit atomics on global memory */
} votecl_device_info;

/** Options of votecl_context_new(); fill with votecl_context_options_init() first. */
typedef struct votecl_context_options {
    size_t struct_size;      /**< set by the _init function: see votecl.h */
    votecl_backend backend;  /**< DEFAULT: see above */
    const char *device;      /**< borrowed; NULL: VOTECL_DEVICE, else the first GPU, else any */
    const char *kernel_path; /**< borrowed; colon-separated directories searched after
                                VOTECL_KERNEL_PATH and before the installed kernels */
    const char *cache_dir;   /**< borrowed; NULL: VOTECL_CACHE_DIR, XDG_CACHE_HOME/votecl or
                                ~/.cache/votecl */
    int disable_disk_cache;  /**< nonzero: keep compiled programs in memory only */
} votecl_context_options;

/** A backend and one device (opaque); made by votecl_context_new(), freed by
 * votecl_context_free(). */
typedef struct votecl_context votecl_context;

/** Sets struct_size and the defaults: backend DEFAULT, every string NULL, disk cache on. */
VOTECL_API void votecl_context_options_init(votecl_context_options *options);

/** Creates a context. options may be NULL for the defaults.
 * out: caller-owned on success (free with votecl_context_free()); set to NULL on failure.
 * When a context cannot be made, the reason is lost with it: use
 * votecl_context_new_with_error() to receive the message.
 * Returns VOTECL_OK, VOTECL_INVALID_ARGUMENT, VOTECL_BACKEND_UNAVAILABLE, VOTECL_NO_DEVICE,
 * VOTECL_DEVICE_ERROR or VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_context_new(const votecl_context_options *options,
                                            votecl_context **out);

/** As votecl_context_new(), and on failure writes a message naming the cause (and the fix,
 * such as installing pocl-opencl-icd) into error (caller-owned, capacity error_size). */
VOTECL_API votecl_status votecl_context_new_with_error(const votecl_context_options *options,
                                                       votecl_context **out, char *error,
                                                       size_t error_size);

/** Frees a context. NULL is a no-op. */
VOTECL_API void votecl_context_free(votecl_context *context);

/** The message of the last failed call on this context, "" when none. Transfer none: valid
 * until the next call on the context. */
VOTECL_API const char *votecl_context_get_error(const votecl_context *context);

/** The log of the last kernel build on this context, "" when none. Transfer none. */
VOTECL_API const char *votecl_context_get_build_log(const votecl_context *context);

/** The device of the context. info: caller-owned output. */
VOTECL_API votecl_status votecl_context_get_device_info(const votecl_context *context,
                                                        votecl_device_info *info);

/** The backend the context runs on. */
VOTECL_API votecl_backend votecl_context_get_backend(const votecl_context *context);

/** "opencl", "cuda", "ref"; NULL for an unknown value. Transfer none. */
VOTECL_API const char *votecl_backend_name(votecl_backend backend);

/** Whether a backend was compiled into this build (ref and opencl always are). */
VOTECL_API int votecl_backend_is_built(votecl_backend backend);

/** The kernel directories the context searches, colon-separated, in order. Transfer none. */
VOTECL_API const char *votecl_context_get_kernel_path(const votecl_context *context);

/** The disk cache directory ("" when the disk cache is off). Transfer none. */
VOTECL_API const char *votecl_context_get_cache_dir(const votecl_context *context);

/** Lists the devices of a backend (OPENCL, CUDA; REF lists one host device; DEFAULT lists
 * OPENCL's). A CUDA build on a machine without the NVIDIA driver finds no CUDA device.
 * infos: caller-owned output of capacity entries (may be NULL when capacity is 0);
 * found: the number of devices, also when more than capacity.
 * Returns VOTECL_OK (also with zero devices), VOTECL_INVALID_ARGUMENT or
 * VOTECL_BACKEND_UNAVAILABLE. */
VOTECL_API votecl_status votecl_devices_list(votecl_backend backend, votecl_device_info *infos,
                                             size_t capacity, size_t *found);

/** Blocks until all work queued on the context has finished. */
VOTECL_API votecl_status votecl_context_finish(votecl_context *context);

/** What the library has put on a context's queue since the context was made: the cost of a
 * call beyond its kernels' time (every launch, fill, copy and transfer has a fixed cost on a
 * GPU; a read also waits for the queue to drain). Counted on the host, for every backend ('ref'
 * puts nothing on a queue). */
typedef struct votecl_queue_counts {
    uint64_t launches; /**< kernel launches */
    uint64_t fills;    /**< buffer zero fills */
    uint64_t copies;   /**< device-to-device copies */
    uint64_t writes;   /**< host-to-device transfers */
    uint64_t reads;    /**< device-to-host transfers (each blocks until the queue drains) */
    uint64_t bytes_up;   /**< bytes of the host-to-device transfers */
    uint64_t bytes_down; /**< bytes of the device-to-host transfers */
} votecl_queue_counts;

/** The counts of what the library queued on context so far (subtract two of them to count one
 * call's). counts: caller-owned output. Returns VOTECL_OK, or VOTECL_INVALID_ARGUMENT for a
 * NULL argument. */
VOTECL_API votecl_status votecl_context_get_queue_counts(const votecl_context *context,
                                                         votecl_queue_counts *counts);

/** Device buffers: memory on the context's device that stays there between calls, for
 * input that is already on the device and results that feed further device work. */
typedef struct votecl_buffer votecl_buffer;

/** Allocates size bytes (size > 0). out: caller-owned. */
VOTECL_API votecl_status votecl_buffer_new(votecl_context *context, size_t size,
                                           votecl_buffer **out);
/** Frees a buffer; NULL is a no-op. */
VOTECL_API void votecl_buffer_free(votecl_buffer *buffer);
/** The buffer's size in bytes. */
VOTECL_API size_t votecl_buffer_size(const votecl_buffer *buffer);
/** Copies size bytes from host (borrowed) to the buffer at offset; blocking. */
VOTECL_API votecl_status votecl_buffer_write(votecl_buffer *buffer, size_t offset,
                                             const void *host, size_t size);
/** Copies size bytes from the buffer at offset into host (caller-owned); blocking. */
VOTECL_API votecl_status votecl_buffer_read(votecl_buffer *buffer, size_t offset, void *host,
                                            size_t size);
/** Copies size bytes between two buffers of one context on the device; asynchronous. */
VOTECL_API votecl_status votecl_buffer_copy(votecl_buffer *dst, size_t dst_offset,
                                            votecl_buffer *src, size_t src_offset, size_t size);

/** @file
 * @par Interop: the caller's own OpenCL or CUDA objects, without copies.
 *
 * Native handles are passed as void * so that this header needs neither `<CL/cl.h>` nor
 * `<cuda.h>`: cast a cl_context, cl_device_id, cl_command_queue or cl_mem, a CUcontext or
 * CUstream, and a CUdeviceptr ((void *)(uintptr_t)ptr) to void *.
 *
 * Ownership stays with the caller: OpenCL objects are retained while votecl uses them and
 * released when the votecl object is freed (the caller's references stay valid); CUDA
 * contexts, streams and memory are used, never destroyed or freed. Free the votecl objects
 * before the native ones they use.
 *
 * Ordering: a context made from a queue or stream queues all its work there, in order with
 * the caller's own work on it, so a kernel of the caller that fills a buffer before a votecl
 * call needs no synchronisation. Calls that return results into device buffers are
 * asynchronous (the caller's later work on the queue sees the result; votecl_context_finish
 * waits on the host): votecl_hist_run_buffers(), votecl_vote_run_buffers(),
 * votecl_hough_run_buffers(). Calls that take a device image and return their results in
 * host memory wait for them: votecl_lines_run_buffer() (PClines) and
 * votecl_hog_detect_buffer() (HOG). The GHT takes host images only. */


/** A context on the caller's OpenCL cl_context (cl_context), device (cl_device_id, a device of
 * that context) and in-order queue (cl_command_queue on them; NULL: votecl creates its own
 * queue on cl_context). options may be NULL; its backend and device fields are ignored.
 * error: caller-owned, error_size bytes, receives the message on failure (may be NULL).
 * out: caller-owned. Returns VOTECL_OK, VOTECL_INVALID_ARGUMENT (a NULL or mismatched
 * handle, named), VOTECL_INCOMPATIBLE (an out-of-order queue), VOTECL_DEVICE_ERROR,
 * VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_context_new_from_opencl(void *cl_context, void *cl_device,
                                                        void *cl_queue,
                                                        const votecl_context_options *options,
                                                        votecl_context **out, char *error,
                                                        size_t error_size);

/** A context on the caller's CUDA context (CUcontext; NULL: the calling thread's current
 * context, else the primary context of the device that options->device or VOTECL_DEVICE
 * selects, which CuPy and PyTorch also use) and stream (CUstream; NULL is the legacy default
 * stream, the one CuPy and PyTorch use unless told otherwise). Requires a libvotecl built
 * with --enable-cuda and the NVIDIA driver. Other arguments and statuses as
 * votecl_context_new_from_opencl(), plus VOTECL_BACKEND_UNAVAILABLE. */
VOTECL_API votecl_status votecl_context_new_from_cuda(void *cu_context, void *cu_stream,
                                                      const votecl_context_options *options,
                                                      votecl_context **out, char *error,
                                                      size_t error_size);

/** A buffer of size bytes over the caller's device memory, without a copy: a cl_mem of the
 * context's cl_context (retained; at least size bytes) on OpenCL, a device pointer of the
 * context's CUDA context (16-byte aligned, as the kernels read vectors) on CUDA. Usable
 * wherever a votecl_buffer is, for input and output. votecl_buffer_free() lets go of it
 * without freeing the memory. out: caller-owned. Returns VOTECL_INVALID_ARGUMENT (NULL
 * handle, zero size, a cl_mem smaller than size or of another context, a misaligned
 * pointer), VOTECL_UNSUPPORTED on the ref backend, VOTECL_OUT_OF_HOST_MEMORY. */
VOTECL_API votecl_status votecl_buffer_wrap_device(votecl_context *context, void *handle,
                                                   size_t size, votecl_buffer **out);

/** The buffer's native handle: its cl_mem on OpenCL, its device pointer on CUDA (host
 * memory on ref). Transfer none. NULL for NULL. */
VOTECL_API void *votecl_buffer_get_native(const votecl_buffer *buffer);

/** The queue or stream the context's work goes to: cl_command_queue on OpenCL, CUstream on
 * CUDA (NULL: the legacy default stream), NULL on ref. Transfer none. */
VOTECL_API void *votecl_context_get_native_queue(const votecl_context *context);
/** Flag of votecl_context_warmup(): also builds every forced histogram strategy of every
 * element type. */
#define VOTECL_WARMUP_ALL 1u
/** Called by votecl_context_warmup() before each step with the step's name (transfer none),
 * its index, the number of steps and the caller's user pointer. */
typedef void (*votecl_warmup_progress)(const char *step, unsigned index, unsigned steps,
                                       void *user);
/** Paying compilation ahead of time (a package's post-install, a service's start): builds
 * the kernels that the default plans of every module use on this context's device, so that
 * they land in the disk cache (and the context's memory cache) and a later process's first
 * call loads them instead of compiling. Flags: VOTECL_WARMUP_ALL also builds every forced
 * histogram strategy of every element type. progress (may be NULL) is called before each
 * step with its name, its index and the number of steps; user is passed through. Returns
 * VOTECL_OK, or the first failing step's status (later steps still run; the context's error
 * names the step). The histograms are those of u8 gray and RGB images (RGBA too with
 * VOTECL_WARMUP_ALL, `votecl hist` making one plan per channel) and of u16, u32 and f32
 * data; Hough runs both from an edge image and from a gray image. Programs whose defines
 * depend on a problem's size (the Hough vote and PClines, by the image; GHT, by the
 * template) are built for 1920x1080 images and small templates only. */
VOTECL_API votecl_status votecl_context_warmup(votecl_context *context, unsigned flags,
                                               votecl_warmup_progress progress, void *user);

/** The two moments of a kernel compilation reported to a votecl_build_callback. */
typedef enum votecl_build_event {
    VOTECL_BUILD_STARTED = 0, /**< before the compilation (seconds 0) */
    VOTECL_BUILD_FINISHED = 1 /**< after it (seconds: how long it took) */
} votecl_build_event;
/** Receives kernel compilations: see votecl_context_set_build_callback(). */
typedef void (*votecl_build_callback)(votecl_build_event event, const char *what, double seconds,
                                      void *user);
/** Kernel compilation as it happens, for an application that shows progress (the library
 * itself never prints). A program is compiled when neither the context's memory cache nor
 * the disk cache holds it, that is on a device's first use or after a library or driver
 * update: a second or more on PoCL (CPUs), a fraction of one on GPUs; see
 * votecl_context_warmup() to pay it ahead of time.
 * The callback runs on the thread that made the library call, inside that call, twice per
 * compilation: VOTECL_BUILD_STARTED before it (seconds 0) and VOTECL_BUILD_FINISHED after it
 * (seconds: how long it took, whether it succeeded or not). what names the kernel files
 * compiled, such as "hog.cl"; transfer none, valid during the callback only. user is
 * borrowed and passed through. The callback must not call into this context or the objects
 * created from it (a compilation is under way inside it); it may use other contexts, and may
 * start a timer to say something only when a compilation lasts (as `votecl` does after a
 * second). Programs loaded from the disk cache are not reported, nor is the code PoCL
 * generates for a kernel's work-group size at the kernel's first launch.
 * callback NULL removes it. Returns VOTECL_OK, or VOTECL_INVALID_ARGUMENT for a NULL
 * context. */
VOTECL_API
votecl_status votecl_context_set_build_callback(votecl_context *context,
                                                votecl_build_callback callback, void *user);

#ifdef __cplusplus
}
#endif

#endif
