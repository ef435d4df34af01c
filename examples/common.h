/* common.h: what the examples share, beside them (an example's `#include "common.h"` finds it
 * in the example's own directory, so `cc hough.c ...` still builds it): the context on the
 * default device and the report of a failed call. */
#ifndef VOTECL_EXAMPLES_COMMON_H
#define VOTECL_EXAMPLES_COMMON_H

#include <stdio.h>
#include <votecl.h>

/* The exit status of an example on a machine without a device: a skip, for make check. */
#define EXAMPLE_NO_DEVICE 77

/* *ctx on the default device (VOTECL_BACKEND and VOTECL_DEVICE may choose another). Returns
 * 0, EXAMPLE_NO_DEVICE (said on stdout) or 1 (said on stderr), each message starting with
 * the example's name. */
static inline int
example_context(const char *name, votecl_context **ctx)
{
    char error[1024] = "";
    votecl_status status = votecl_context_new_with_error(NULL, ctx, error, sizeof error);

    if (status == VOTECL_NO_DEVICE || status == VOTECL_BACKEND_UNAVAILABLE) {
        printf("%s: no device (%s)\n", name, error);
        return EXAMPLE_NO_DEVICE;
    }
    if (status != VOTECL_OK) {
        fprintf(stderr, "%s: %s\n", name, error);
        return 1;
    }
    return 0;
}

/* Says on stderr that a call failed: the example's name, what failed (NULL: left out), the
 * status and the context's message. Returns 1, the example's exit status. */
static inline int
example_fail(const char *name, votecl_context *ctx, const char *what, votecl_status status)
{
    fprintf(stderr, "%s: %s%s%s: %s\n", name, what != NULL ? what : "", what != NULL ? ": " : "",
            votecl_status_string(status), votecl_context_get_error(ctx));
    return 1;
}

#endif
