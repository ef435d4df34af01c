/* Interop: contexts on the caller's native objects and buffers over the caller's device
 * memory (votecl_context_new_from_opencl/_cuda, votecl_buffer_wrap_device).
 *
 * /nodevice/interop/...  argument checks that need no device; the ref backend refuses wraps;
 * /ref/interop/...       PClines and HOG from a (host-memory) ref buffer equal the host path;
 * /opencl/interop/...    a cl_context, queue and cl_mem made here with raw OpenCL: the context
 *                        adopts them, wrapped buffers give the histogram, PClines and HOG
 *                        results of the ordinary host path exactly, the work lands on the
 *                        caller's queue, and the caller's objects keep their reference counts
 *                        after votecl lets go; mismatched handles are refused naming them;
 * /cuda/interop/...      the same through the CUDA path: a context on the current (primary)
 *                        context and the legacy default stream, device pointers of memory that
 *                        another context allocated, wrapped and freed without freeing them. */
#include "testutil.h"

#include <CL/cl.h>
#include <stdlib.h>
#include <string.h>

/* --- the caller's side: native objects made without votecl where possible --- */

typedef struct native {
    votecl_backend backend;
    cl_context cl;
    cl_device_id device;
    cl_command_queue queue;
    votecl_context *owner; /* CUDA: a plain context whose buffers play the caller's memory */
    cl_uint queue_refs, context_refs; /* before votecl took them */
} native;

/* The OpenCL device votecl would pick by default, found again with raw OpenCL. */
static int
find_cl_device(const char *name, cl_device_id *out)
{
    cl_platform_id platforms[16];
    cl_uint np = 0;

    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS)
        return 0;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devices[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 64; d++) {
            char n[256] = "";
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof n, n, NULL);
            if (strcmp(n, name) == 0) {
                *out = devices[d];
                return 1;
            }
        }
    }
    return 0;
}

static cl_uint
refs_of_queue(void *q)
{
    cl_uint n = 0;
    clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}

static cl_uint
refs_of_context(void *c)
{
    cl_uint n = 0;
    clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}

static cl_uint
refs_of_mem(void *m)
{
    cl_uint n = 0;
    clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}

/* The caller's objects and a votecl context adopting them; NULL (skipped) without a device. */
static votecl_context *
native_open(native *nat)
{
    votecl_context *probe = tu_device_context_new(NULL), *context = NULL;
    votecl_device_info info;
    char error[1024] = "";
    cl_int err;

    memset(nat, 0, sizeof *nat);
    nat->backend = tu_device_backend();
    if (probe == NULL)
        return NULL;
    if (nat->backend == VOTECL_BACKEND_CUDA) {
        nat->owner = probe;
        g_assert_cmpint(
            votecl_context_new_from_cuda(NULL, NULL, NULL, &context, error, sizeof error), ==,
            VOTECL_OK);
        g_assert_null(votecl_context_get_native_queue(context));
        return context;
    }
    votecl_context_get_device_info(probe, &info);
    votecl_context_free(probe);
    g_assert_true(find_cl_device(info.name, &nat->device));
    nat->cl = clCreateContext(NULL, 1, &nat->device, NULL, NULL, &err);
    g_assert_nonnull(nat->cl);
    nat->queue = clCreateCommandQueue(nat->cl, nat->device, 0, &err);
    g_assert_nonnull(nat->queue);
    nat->queue_refs = refs_of_queue(nat->queue);
    nat->context_refs = refs_of_context(nat->cl);
    if (votecl_context_new_from_opencl(nat->cl, nat->device, nat->queue, NULL, &context, error,
                                       sizeof error) != VOTECL_OK)
        g_error("votecl_context_new_from_opencl: %s", error);
    g_assert_true(votecl_context_get_native_queue(context) == nat->queue);
    g_assert_cmpstr(votecl_backend_name(votecl_context_get_backend(context)), ==, "opencl");
    return context;
}

/* A reference count once the driver has let go of finished commands: PoCL releases the
 * objects of a completed command from its own thread a little later, so wait up to 2 s for
 * the count expected; a reference votecl kept would never go. */
static cl_uint
settled(cl_uint (*refs)(void *), void *object, cl_uint expected)
{
    cl_uint n = refs(object);

    for (int i = 0; i < 2000 && n != expected; i++) {
        g_usleep(1000);
        n = refs(object);
    }
    return n;
}

/* Device memory of the caller holding size bytes of data: a cl_mem, or a device pointer. */
static void *
native_alloc(native *nat, const void *data, size_t size, votecl_buffer **keeper)
{
    cl_int err;
    cl_mem mem;

    *keeper = NULL;
    if (nat->backend == VOTECL_BACKEND_CUDA) {
        g_assert_cmpint(votecl_buffer_new(nat->owner, size, keeper), ==, VOTECL_OK);
        if (data != NULL)
            g_assert_cmpint(votecl_buffer_write(*keeper, 0, data, size), ==, VOTECL_OK);
        return votecl_buffer_get_native(*keeper);
    }
    mem = clCreateBuffer(nat->cl, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), size,
                         (void *)data, &err);
    g_assert_nonnull(mem);
    return mem;
}

/* Reads the caller's memory back with the caller's own means. */
static void
native_read(native *nat, votecl_context *ctx, void *handle, votecl_buffer *keeper, void *out,
            size_t size)
{
    if (nat->backend == VOTECL_BACKEND_CUDA) {
        /* the owner's stream is non-blocking: it does not wait for the default stream */
        g_assert_cmpint(votecl_context_finish(ctx), ==, VOTECL_OK);
        g_assert_cmpint(votecl_buffer_read(keeper, 0, out, size), ==, VOTECL_OK);
        return;
    }
    /* In order after votecl's work on the same queue: no finish needed. */
    g_assert_cmpint(clEnqueueReadBuffer(nat->queue, handle, CL_TRUE, 0, size, out, 0, NULL, NULL),
                    ==, CL_SUCCESS);
}

static void
native_free(native *nat, void *handle, votecl_buffer *keeper)
{
    if (nat->backend == VOTECL_BACKEND_CUDA) {
        votecl_buffer_free(keeper);
        return;
    }
    /* votecl's references are gone once the commands that used the memory have (drivers hold
     * a command's memory objects until it completes) */
    g_assert_cmpint(clFinish(nat->queue), ==, CL_SUCCESS);
    g_assert_cmpuint(settled(refs_of_mem, handle, 1), ==, 1);
    clReleaseMemObject(handle);
}

static void
native_close(native *nat, votecl_context *context)
{
    votecl_context_free(context);
    if (nat->backend == VOTECL_BACKEND_CUDA) {
        votecl_context_free(nat->owner);
        return;
    }
    /* The caller's objects are still valid and only the caller holds them. */
    g_assert_cmpuint(settled(refs_of_queue, nat->queue, nat->queue_refs), ==, nat->queue_refs);
    g_assert_cmpuint(settled(refs_of_context, nat->cl, nat->context_refs), ==, nat->context_refs);
    g_assert_cmpint(clFinish(nat->queue), ==, CL_SUCCESS);
    clReleaseCommandQueue(nat->queue);
    clReleaseContext(nat->cl);
}

/* --- the modules through wrapped memory against the host path --- */

static void
test_histogram(void)
{
    enum { N = 100003, BINS = 256 };
    native nat;
    votecl_context *ctx = native_open(&nat);
    votecl_hist_params params;
    votecl_hist_plan *plan = NULL;
    votecl_buffer *x = NULL, *bins = NULL, *kx, *kb;
    uint8_t *data;
    uint32_t host[BINS], device[BINS];
    void *hx, *hb;
    tu_rng rng;

    if (ctx == NULL)
        return;
    data = g_malloc(N);
    tu_rng_init(&rng, 15);
    tu_fill_u8(&rng, data, N);
    votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_hist_plan_new(ctx, &params, &plan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hist_run(plan, data, NULL, NULL, N, host), ==, VOTECL_OK);
    hx = native_alloc(&nat, data, N, &kx);
    hb = native_alloc(&nat, NULL, sizeof device, &kb);
    g_assert_cmpint(votecl_buffer_wrap_device(ctx, hx, N, &x), ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_wrap_device(ctx, hb, sizeof device, &bins), ==, VOTECL_OK);
    g_assert_true(votecl_buffer_get_native(x) == hx);
    g_assert_cmpint(votecl_hist_run_buffers(plan, x, NULL, NULL, N, 1, bins), ==, VOTECL_OK);
    native_read(&nat, ctx, hb, kb, device, sizeof device);
    g_assert_cmpmem(device, sizeof device, host, sizeof host);
    votecl_buffer_free(x);
    votecl_buffer_free(bins);
    votecl_hist_plan_free(plan);
    native_free(&nat, hx, kx);
    native_free(&nat, hb, kb);
    native_close(&nat, ctx);
    g_free(data);
}

/* A frame with a few bright lines on noise. */
static void
make_frame(uint8_t *im, size_t w, size_t h, unsigned channels, uint64_t seed)
{
    tu_rng rng;

    tu_rng_init(&rng, seed);
    for (size_t i = 0; i < w * h * channels; i++)
        im[i] = (uint8_t)tu_rng_below(&rng, 40);
    for (size_t y = 0; y < h; y++)
        for (size_t c = 0; c < channels; c++) {
            im[(y * w + (y * 2 / 3) % w) * channels + c] = 250;
            im[(y * w + w / 3) * channels + c] = 200;
        }
    for (size_t x = 0; x < w; x++)
        for (size_t c = 0; c < channels; c++)
            im[((h / 2) * w + x) * channels + c] = 220;
}

static void
test_lines(void)
{
    enum { W = 97, H = 71, CAP = 64 };
    native nat;
    votecl_context *ctx = native_open(&nat);
    votecl_lines_params params;
    votecl_lines_plan *plan = NULL;
    votecl_lines_line host[CAP], device[CAP];
    size_t nh = 0, nd = 0;
    uint8_t im[W * H];
    votecl_image view = {im, W, H, W, 1, VOTECL_DTYPE_U8};
    votecl_buffer *b = NULL, *keeper;
    void *handle;

    if (ctx == NULL)
        return;
    make_frame(im, W, H, 1, 4);
    votecl_lines_params_init(&params);
    g_assert_cmpint(votecl_lines_plan_new(ctx, &params, W, H, &plan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_lines_run(plan, &view, host, CAP, &nh), ==, VOTECL_OK);
    g_assert_cmpuint(nh, >=, 2);
    handle = native_alloc(&nat, im, sizeof im, &keeper);
    g_assert_cmpint(votecl_buffer_wrap_device(ctx, handle, sizeof im, &b), ==, VOTECL_OK);
    g_assert_cmpint(votecl_lines_run_buffer(plan, b, W, H, VOTECL_DTYPE_U8, device, CAP, &nd), ==,
                    VOTECL_OK);
    g_assert_cmpuint(nd, ==, nh);
    g_assert_cmpmem(device, MIN(nd, CAP) * sizeof *device, host, MIN(nh, CAP) * sizeof *host);
    /* a size other than the plan's, a dtype it cannot take, a buffer too small: named */
    g_assert_cmpint(votecl_lines_run_buffer(plan, b, W + 1, H, VOTECL_DTYPE_U8, device, CAP, &nd),
                    ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "width"));
    g_assert_cmpint(votecl_lines_run_buffer(plan, b, W, H, VOTECL_DTYPE_U16, device, CAP, &nd), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "dtype"));
    g_assert_cmpint(votecl_lines_run_buffer(plan, b, W, H, VOTECL_DTYPE_F32, device, CAP, &nd), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "image"));
    votecl_buffer_free(b);
    votecl_lines_plan_free(plan);
    native_free(&nat, handle, keeper);
    native_close(&nat, ctx);
}

static void
hog_compare(votecl_context *ctx, native *nat, unsigned channels)
{
    enum { W = 96, H = 160, CAP = 256 };
    votecl_hog_params params;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = NULL;
    votecl_hog_detection host[CAP], device[CAP];
    size_t nh = 0, nd = 0, rh = 0, rd = 0;
    uint8_t *im = g_malloc((size_t)W * H * channels);
    votecl_image view = {im, W, H, (size_t)W * channels, channels, VOTECL_DTYPE_U8};
    votecl_buffer *b = NULL, *keeper;
    void *handle;

    make_frame(im, W, H, channels, 7 + channels);
    votecl_hog_params_init(&params);
    params.hit_threshold = -100.0; /* every window, so the comparison sees real scores */
    params.fusion = VOTECL_HOG_FUSION_NONE;
    g_assert_cmpint(votecl_hog_model_people(ctx, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(ctx, &params, model, &hog), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, host, CAP, &nh), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_last_windows(hog, NULL, 0, &rh), ==, VOTECL_OK);
    g_assert_cmpuint(nh, >, 0);
    handle = native_alloc(nat, im, (size_t)W * H * channels, &keeper);
    g_assert_cmpint(votecl_buffer_wrap_device(ctx, handle, (size_t)W * H * channels, &b), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect_buffer(hog, b, W, H, channels, NULL, 0, device, CAP, &nd), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl_hog_last_windows(hog, NULL, 0, &rd), ==, VOTECL_OK);
    g_assert_cmpuint(nd, ==, nh);
    g_assert_cmpuint(rd, ==, rh);
    g_assert_cmpmem(device, MIN(nd, CAP) * sizeof *device, host, MIN(nh, CAP) * sizeof *host);
    /* four channels need the host's conversion: refused, naming the field */
    g_assert_cmpint(votecl_hog_detect_buffer(hog, b, W / 2, H / 2, 4, NULL, 0, device, CAP, &nd),
                    ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "channels"));
    votecl_buffer_free(b);
    votecl_hog_free(hog);
    votecl_hog_model_free(model);
    native_free(nat, handle, keeper);
    g_free(im);
}

static void
test_hog(void)
{
    native nat;
    votecl_context *ctx = native_open(&nat);

    if (ctx == NULL)
        return;
    hog_compare(ctx, &nat, 1);
    hog_compare(ctx, &nat, 3);
    native_close(&nat, ctx);
}

/* --- refusals --- */

static void
test_opencl_mismatch(void)
{
    native nat, other;
    votecl_context *ctx = native_open(&nat), *ctx2;
    votecl_buffer *b = NULL;
    char error[1024] = "";
    votecl_context *out = NULL;
    cl_mem mem;
    cl_int err;

    if (ctx == NULL)
        return;
    ctx2 = native_open(&other);
    /* a cl_mem of another cl_context, and one smaller than asked */
    mem = clCreateBuffer(other.cl, CL_MEM_READ_WRITE, 64, NULL, &err);
    g_assert_cmpint(votecl_buffer_wrap_device(ctx, mem, 64, &b), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_null(b);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "handle"));
    g_assert_cmpint(votecl_buffer_wrap_device(ctx2, mem, 65, &b), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx2), "size"));
    g_assert_cmpuint(settled(refs_of_mem, mem, 1), ==, 1);
    clReleaseMemObject(mem);
    /* a queue of another context */
    g_assert_cmpint(votecl_context_new_from_opencl(nat.cl, nat.device, other.queue, NULL, &out,
                                                   error, sizeof error),
                    ==, VOTECL_INVALID_ARGUMENT);
    g_assert_null(out);
    g_assert_true(tu_message_names(error, "cl_queue"));
    g_assert_cmpint(
        votecl_context_new_from_opencl(NULL, nat.device, NULL, NULL, &out, error, sizeof error), ==,
        VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(error, "cl_context"));
    /* no queue: votecl makes its own on the caller's context */
    g_assert_cmpint(
        votecl_context_new_from_opencl(nat.cl, nat.device, NULL, NULL, &out, error, sizeof error),
        ==, VOTECL_OK);
    g_assert_true(votecl_context_get_native_queue(out) != nat.queue);
    votecl_context_free(out);
    native_close(&other, ctx2);
    native_close(&nat, ctx);
}

/* The device-image entry points on the ref backend, whose buffers are host memory: the same
 * lines and detections as from the host image. */
static void
test_ref_buffers(void)
{
    enum { W = 96, H = 160, CAP = 256 };
    votecl_context *ctx = tu_ref_context_new();
    uint8_t *im = g_malloc(W * H);
    votecl_image view = {im, W, H, W, 1, VOTECL_DTYPE_U8};
    votecl_lines_params lp;
    votecl_lines_plan *plan = NULL;
    votecl_lines_line lh[CAP], ld[CAP];
    votecl_hog_params hp;
    votecl_hog_model *model = NULL;
    votecl_hog *hog = NULL;
    votecl_hog_detection dh[CAP], dd[CAP];
    votecl_buffer *b = NULL;
    size_t nh = 0, nd = 0;

    make_frame(im, W, H, 1, 11);
    g_assert_cmpint(votecl_buffer_new(ctx, W * H, &b), ==, VOTECL_OK);
    g_assert_cmpint(votecl_buffer_write(b, 0, im, W * H), ==, VOTECL_OK);
    votecl_lines_params_init(&lp);
    g_assert_cmpint(votecl_lines_plan_new(ctx, &lp, W, H, &plan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_lines_run(plan, &view, lh, CAP, &nh), ==, VOTECL_OK);
    g_assert_cmpint(votecl_lines_run_buffer(plan, b, W, H, VOTECL_DTYPE_U8, ld, CAP, &nd), ==,
                    VOTECL_OK);
    g_assert_cmpuint(nh, >, 0);
    g_assert_cmpuint(nd, ==, nh);
    g_assert_cmpmem(ld, MIN(nd, CAP) * sizeof *ld, lh, MIN(nh, CAP) * sizeof *lh);
    votecl_hog_params_init(&hp);
    hp.hit_threshold = -100.0;
    hp.fusion = VOTECL_HOG_FUSION_NONE;
    hp.scale = 1.0;
    g_assert_cmpint(votecl_hog_model_people(ctx, &model), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(ctx, &hp, model, &hog), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect(hog, &view, NULL, 0, dh, CAP, &nh), ==, VOTECL_OK);
    g_assert_cmpint(votecl_hog_detect_buffer(hog, b, W, H, 1, NULL, 0, dd, CAP, &nd), ==,
                    VOTECL_OK);
    g_assert_cmpuint(nh, >, 0);
    g_assert_cmpuint(nd, ==, nh);
    g_assert_cmpmem(dd, MIN(nd, CAP) * sizeof *dd, dh, MIN(nh, CAP) * sizeof *dh);
    /* a buffer smaller than the image */
    g_assert_cmpint(votecl_hog_detect_buffer(hog, b, W, H + 1, 1, NULL, 0, dd, CAP, &nd), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(votecl_context_get_error(ctx), "image"));
    votecl_hog_free(hog);
    votecl_hog_model_free(model);
    votecl_lines_plan_free(plan);
    votecl_buffer_free(b);
    votecl_context_free(ctx);
    g_free(im);
}

static void
test_nodevice_args(void)
{
    votecl_context *ctx = tu_ref_context_new();
    votecl_buffer *b = (votecl_buffer *)&b;
    char error[256] = "";
    uint8_t host[64];

    g_assert_cmpint(
        votecl_context_new_from_opencl(NULL, NULL, NULL, NULL, NULL, error, sizeof error), ==,
        VOTECL_INVALID_ARGUMENT);
    g_assert_true(tu_message_names(error, "out"));
    /* the ref backend has no device memory */
    g_assert_cmpint(votecl_buffer_wrap_device(ctx, host, sizeof host, &b), ==, VOTECL_UNSUPPORTED);
    g_assert_null(b);
    g_assert_cmpint(votecl_buffer_wrap_device(NULL, host, sizeof host, &b), ==,
                    VOTECL_INVALID_ARGUMENT);
    g_assert_null(votecl_buffer_get_native(NULL));
    g_assert_null(votecl_context_get_native_queue(ctx));
    g_assert_null(votecl_context_get_native_queue(NULL));
    votecl_context_free(ctx);
}

static const tu_test tests[] = {
    {TU_PATH, "/nodevice/interop/args", {test_nodevice_args}},
    {TU_PATH, "/ref/interop/buffers", {test_ref_buffers}},
    {TU_DEVICE, "/interop/histogram", {test_histogram}},
    {TU_DEVICE, "/interop/lines", {test_lines}},
    {TU_DEVICE, "/interop/hog", {test_hog}},
    {TU_PATH, "/opencl/interop/mismatch", {test_opencl_mismatch}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_FATAL);
}
