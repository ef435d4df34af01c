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
votecl__new_begin(votecl_context *context, const void *params, const char *params_name,
                  const void *out)
{
    if (context == NULL)
        return VOTECL_INVALID_ARGUMENT;
    votecl__clear_error(context);
    if (params == NULL || out == NULL)
        return votecl__fail(context, VOTECL_INVALID_ARGUMENT, "%s: NULL pointer",
                            params == NULL ? params_name : "out");
    return VOTECL_OK;
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
