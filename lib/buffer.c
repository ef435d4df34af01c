/* Device buffers and launches: thin checks in front of the backend vtable. */
#include "votecl-private.h"

#include "fault.h"

#include <stdlib.h>

static int
range_ok(const votecl_buffer *buffer, size_t offset, size_t size)
{
    size_t end;
    return !votecl__add_overflow(offset, size, &end) && end <= buffer->size;
}

votecl_status
votecl_buffer_new(votecl_context *context, size_t size, votecl_buffer **out)
{
    votecl_buffer *buffer;
    votecl_status status;

    if (context == NULL || out == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            context == NULL ? "context" : "out");
    *out = NULL;
    if (size == 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "size: must be at least 1 byte");
    if (size > context->info.max_alloc_bytes)
        return votecl__fail(context, VOTECL_OUT_OF_DEVICE_MEMORY,
                            "size: %zu bytes exceed the device's largest allocation (%llu)", size,
                            (unsigned long long)context->info.max_alloc_bytes);
    buffer = votecl__calloc(1, sizeof *buffer);
    if (buffer == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a buffer");
    if (votecl__fault_hit(VOTECL__FAULT_DEVICE_ALLOC))
        status = votecl__fail(context, VOTECL_OUT_OF_DEVICE_MEMORY, "injected fault: buffer");
    else
        status = context->ops->buffer_alloc(context, size, &buffer->handle);
    if (status != VOTECL_OK) {
        free(buffer);
        return status;
    }
    buffer->context = context;
    buffer->size = size;
    *out = buffer;
    return VOTECL_OK;
}

void
votecl_buffer_free(votecl_buffer *buffer)
{
    if (buffer == NULL)
        return;
    if (buffer->borrowed)
        buffer->context->ops->buffer_disown(buffer->context, buffer->handle);
    else
        buffer->context->ops->buffer_release(buffer->context, buffer->handle);
    free(buffer);
}

void
votecl__buffers_free(votecl_buffer *const *buffers, size_t n)
{
    for (size_t i = 0; i < n; i++)
        votecl_buffer_free(buffers[i]);
}

size_t
votecl_buffer_size(const votecl_buffer *buffer)
{
    return buffer != NULL ? buffer->size : 0;
}

/* The checks every host transfer makes before it reaches the backend. */
static votecl_status
check_transfer(votecl_buffer *buffer, size_t offset, const void *host, size_t size)
{
    if (buffer == NULL)
        return VOTECL_INVALID_ARGUMENT;
    if (host == NULL && size > 0)
        return votecl__fail(buffer->context, VOTECL_INVALID_ARGUMENT, "host: NULL pointer");
    if (!range_ok(buffer, offset, size))
        return votecl__fail(buffer->context, VOTECL_INVALID_ARGUMENT,
                            "offset, size: %zu + %zu bytes outside a buffer of %zu", offset,
                            size, buffer->size);
    return VOTECL_OK;
}

votecl_status
votecl_context_get_queue_counts(const votecl_context *context, votecl_queue_counts *counts)
{
    if (context == NULL || counts == NULL)
        return VOTECL_INVALID_ARGUMENT;
    *counts = context->queued;
    return VOTECL_OK;
}

votecl_status
votecl_buffer_write(votecl_buffer *buffer, size_t offset, const void *host, size_t size)
{
    votecl_status status = check_transfer(buffer, offset, host, size);

    if (status != VOTECL_OK || size == 0)
        return status;
    buffer->context->queued.writes++;
    buffer->context->queued.bytes_up += size;
    return buffer->context->ops->buffer_write(buffer->context, buffer->handle, offset, host,
                                              size);
}

votecl_status
votecl_buffer_read(votecl_buffer *buffer, size_t offset, void *host, size_t size)
{
    votecl_status status = check_transfer(buffer, offset, host, size);

    if (status != VOTECL_OK || size == 0)
        return status;
    if (votecl__fault_hit(VOTECL__FAULT_READ))
        return votecl__fail(buffer->context, VOTECL_DEVICE_ERROR, "injected fault: read-back");
    buffer->context->queued.reads++;
    buffer->context->queued.bytes_down += size;
    return buffer->context->ops->buffer_read(buffer->context, buffer->handle, offset, host,
                                             size);
}

votecl_status
votecl__buffer_check(votecl_context *context, const votecl_buffer *b, size_t need, const char *name)
{
    if (b == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: NULL buffer", name);
    if (b->context != context)
        return votecl__fail(context, VOTECL_INCOMPATIBLE, "%s: buffer belongs to another context",
                            name);
    if (b->size < need)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT,
                            "%s: buffer of %zu bytes is smaller than the %zu needed", name, b->size,
                            need);
    return VOTECL_OK;
}

votecl_status
votecl_buffer_copy(votecl_buffer *dst, size_t dst_offset, votecl_buffer *src, size_t src_offset,
                   size_t size)
{
    if (dst == NULL || src == NULL)
        return votecl__fail(dst != NULL ? dst->context : src != NULL ? src->context : NULL,
                            VOTECL_INVALID_ARGUMENT, "%s: NULL buffer", dst ? "src" : "dst");
    if (dst->context != src->context)
        return votecl__fail(dst->context, VOTECL_INCOMPATIBLE,
                            "src: buffer belongs to another context");
    if (!range_ok(dst, dst_offset, size) || !range_ok(src, src_offset, size))
        return votecl__fail(dst->context, VOTECL_INVALID_ARGUMENT,
                            "size: %zu bytes outside a buffer", size);
    if (size == 0)
        return VOTECL_OK;
    dst->context->queued.copies++;
    return dst->context->ops->buffer_copy(dst->context, dst->handle, dst_offset, src->handle,
                                          src_offset, size);
}

votecl_status
votecl__buffer_zero(votecl_buffer *buffer, size_t offset, size_t size)
{
    if (size == 0)
        return VOTECL_OK;
    buffer->context->queued.fills++;
    return buffer->context->ops->buffer_zero(buffer->context, buffer->handle, offset, size);
}

votecl_status
votecl__buffer_wrap(votecl_context *context, const void *host, size_t size,
                    votecl_buffer **buffer)
{
    votecl_buffer *b;

    *buffer = NULL;
    /* Kernels read 16-byte vectors: wrap only memory aligned for them. */
    if (!context->info.host_unified_memory || context->ops->buffer_wrap == NULL || size == 0 ||
        (uintptr_t)host % 16 != 0)
        return VOTECL_OK;
    b = votecl__calloc(1, sizeof *b);
    if (b == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a buffer");
    if (votecl__fault_hit(VOTECL__FAULT_DEVICE_ALLOC) ||
        context->ops->buffer_wrap(context, host, size, &b->handle) != VOTECL_OK) {
        free(b); /* not fatal: the caller uploads instead */
        votecl__clear_error(context);
        return VOTECL_OK;
    }
    b->context = context;
    b->size = size;
    *buffer = b;
    return VOTECL_OK;
}

votecl_status
votecl__buffer_ensure(votecl_context *context, votecl_buffer **buffer, size_t size)
{
    if (*buffer != NULL && (*buffer)->size >= size)
        return VOTECL_OK;
    votecl_buffer_free(*buffer);
    *buffer = NULL;
    return votecl_buffer_new(context, size > 0 ? size : 1, buffer);
}

votecl_status
votecl__staging_ensure(votecl_context *context, votecl__staging *s, size_t size)
{
    if (size == 0)
        size = 1;
    if (s->ptr != NULL && s->size >= size)
        return VOTECL_OK;
    votecl__staging_free(context, s);
    if (votecl__fault_hit(VOTECL__FAULT_ALLOC))
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of host memory: %zu bytes of upload staging", size);
    /* page-locked memory only speeds uploads to a device's own memory up: plain memory on a
     * device that shares the host's, where the backend has none or where the system refuses
     * it (a locked-memory limit) */
    if (!context->info.host_unified_memory && context->ops->host_alloc != NULL) {
        if (context->ops->host_alloc(context, size, &s->ptr, &s->handle) == VOTECL_OK) {
            s->size = size;
            return VOTECL_OK;
        }
        votecl__clear_error(context);
    }
    s->ptr = NULL;
    s->handle = NULL;
    if ((s->ptr = malloc(size)) == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY,
                            "out of host memory: %zu bytes of upload staging", size);
    s->size = size;
    return VOTECL_OK;
}

void
votecl__staging_free(votecl_context *context, votecl__staging *s)
{
    if (s->ptr != NULL) {
        if (s->handle != NULL)
            context->ops->host_free(context, s->ptr, s->handle);
        else
            free(s->ptr);
    }
    s->ptr = NULL;
    s->handle = NULL;
    s->size = 0;
}

votecl_status
votecl__launch(votecl_context *context, void *kernel, unsigned dims, const size_t *global,
               const size_t *local, const votecl__arg *args, unsigned nargs)
{
    for (unsigned d = 0; d < dims; d++) {
        if (global[d] == 0)
            return VOTECL_OK; /* nothing to do */
        if (local[d] == 0 || global[d] % local[d] != 0)
            return votecl__fail(context, VOTECL_DEVICE_ERROR,
                                "launch: global size %zu is not a multiple of local size %zu",
                                global[d], local[d]);
    }
    if (votecl__fault_hit(VOTECL__FAULT_LAUNCH))
        return votecl__fail(context, VOTECL_DEVICE_ERROR, "injected fault: kernel launch");
    context->queued.launches++;
    return context->ops->launch(context, kernel, dims, global, local, args, nargs);
}

votecl_status
votecl_buffer_wrap_device(votecl_context *context, void *handle, size_t size,
                          votecl_buffer **out)
{
    votecl_buffer *buffer;
    votecl_status status;

    if (context == NULL || out == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            context == NULL ? "context" : "out");
    *out = NULL;
    votecl__clear_error(context);
    if (context->ops->buffer_adopt == NULL)
        return votecl__fail(context, VOTECL_UNSUPPORTED,
                            "backend %s: no device memory to wrap (use opencl or cuda)",
                            votecl_backend_name(context->backend));
    if (handle == NULL || size == 0)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s",
                            handle == NULL ? "handle: NULL" : "size: must be at least 1 byte");
    buffer = votecl__calloc(1, sizeof *buffer);
    if (buffer == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory for a buffer");
    status = context->ops->buffer_adopt(context, handle, size, &buffer->handle);
    if (status != VOTECL_OK) {
        free(buffer);
        return status;
    }
    buffer->context = context;
    buffer->size = size;
    buffer->borrowed = 1;
    *out = buffer;
    return VOTECL_OK;
}

void *
votecl_buffer_get_native(const votecl_buffer *buffer)
{
    return buffer != NULL ? buffer->handle : NULL;
}
