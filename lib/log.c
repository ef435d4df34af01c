/* Per-context error messages, build logs and the VOTECL_DEBUG log. The library writes to
 * stderr only here, and only when the context was created with VOTECL_DEBUG set. */
#include "votecl-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

votecl_status
votecl__fail(votecl_context *context, votecl_status status, const char *format, ...)
{
    va_list ap;

    if (context == NULL)
        return status;
    va_start(ap, format);
    vsnprintf(context->error, sizeof context->error, format, ap);
    va_end(ap);
    votecl__log(context, "error %s: %s", votecl_status_name(status), context->error);
    return status;
}

votecl_status
votecl__new_begin_sized(votecl_context *context, const void *params, const char *params_name,
                        size_t size, const void *out)
{
    if (context == NULL)
        return VOTECL_INVALID_ARGUMENT;
    votecl__clear_error(context);
    if (params == NULL || out == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            params == NULL ? params_name : "out");
    return votecl__struct_size_check(context, params, params_name, size);
}

votecl_status
votecl__struct_size_message(const void *params, const char *name, size_t size, char *msg,
                            size_t msg_size)
{
    size_t given;

    /* struct_size is the first member of every parameter struct (votecl.h) */
    memcpy(&given, params, sizeof given);
    if (given == size)
        return VOTECL_OK;
    if (given == 0) {
        snprintf(msg, msg_size, "%s.struct_size: 0: fill %s with its _init function first", name,
                 name);
        return VOTECL_INVALID_ARGUMENT;
    }
    if (given > size) {
        snprintf(msg, msg_size,
                 "%s.struct_size: %zu bytes, this library's struct has %zu: the program was "
                 "built against a newer votecl.h than the library it runs with",
                 name, given, size);
        return VOTECL_UNSUPPORTED;
    }
    snprintf(msg, msg_size,
             "%s.struct_size: %zu bytes is no size this library's struct ever had (%zu now)",
             name, given, size);
    return VOTECL_INVALID_ARGUMENT;
}

votecl_status
votecl__struct_size_check(votecl_context *context, const void *params, const char *name,
                          size_t size)
{
    char msg[256];
    votecl_status status = votecl__struct_size_message(params, name, size, msg, sizeof msg);

    return status == VOTECL_OK ? status : votecl__fail(context, status, "%s", msg);
}

void
votecl__clear_error(votecl_context *context)
{
    if (context != NULL)
        context->error[0] = '\0';
}

void
votecl__set_build_log(votecl_context *context, const char *text)
{
    free(context->build_log);
    context->build_log = votecl__strdup(text != NULL ? text : "");
}

void
votecl__log(const votecl_context *context, const char *format, ...)
{
    va_list ap;

    if (context == NULL || !context->debug)
        return;
    va_start(ap, format);
    fputs("votecl: ", stderr);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
}

char *
votecl__strdup(const char *s)
{
    size_t n;
    char *copy;

    if (s == NULL)
        return NULL;
    n = strlen(s) + 1;
    copy = votecl__malloc(n);
    if (copy != NULL)
        memcpy(copy, s, n);
    return copy;
}

/* This thread's identity (the address of a thread-local) and the context that last refused
 * it, with the message. */
static _Thread_local char self;
static _Thread_local const votecl_context *refused_by;

votecl__guard
votecl__enter(votecl_context *context)
{
    votecl__guard guard = {NULL, 0};
    uintptr_t me = (uintptr_t)&self, none = 0;

    if (context == NULL)
        return guard;
    if (atomic_load_explicit(&context->busy, memory_order_relaxed) != me &&
        !atomic_compare_exchange_strong_explicit(&context->busy, &none, me,
                                                 memory_order_acquire, memory_order_relaxed)) {
        refused_by = context;
        guard.refused = 1;
        return guard;
    }
    if (refused_by == context)
        refused_by = NULL;
    context->busy_depth++;
    guard.context = context;
    votecl__clear_error(context);
    return guard;
}

void
votecl__leave(votecl__guard *guard)
{
    if (guard->context != NULL && --guard->context->busy_depth == 0)
        atomic_store_explicit(&guard->context->busy, 0, memory_order_release);
}

const char *
votecl__refused_error(const votecl_context *context)
{
    return context != NULL && refused_by == context ? "context used by two threads at once"
                                                    : NULL;
}
