/* votecl batch's list files (tools/batch-source.c, batch_list_read). Properties: every path
 * handed on is a whole line's content: non-empty, not a comment, without a line break, at
 * most BATCH_LIST_MAX_LINE bytes; a line longer than that is an error, never two paths; the
 * reader stops at the first failing add. */
#include "config.h"

#include "batch-source.h"
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

typedef struct seen {
    size_t paths;
    size_t stop_at; /* add fails at this path (0: never) */
} seen;

static int
add(void *user, const char *path)
{
    seen *s = user;
    size_t n = strlen(path);
    FUZZ_CHECK(n > 0 && n <= BATCH_LIST_MAX_LINE);
    FUZZ_CHECK(path[0] != '#');
    FUZZ_CHECK(strchr(path, '\n') == NULL && strchr(path, '\r') == NULL);
    s->paths++;
    return s->stop_at != 0 && s->paths == s->stop_at ? -1 : 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    seen s = {0, 0};
    char error[256] = "";
    FILE *f;
    int rc;
    if (size < 2)
        return 0;
    s.stop_at = data[0] % 4; /* the first byte: which path's add fails, if any */
    if ((f = fmemopen((void *)(data + 1), size - 1, "r")) == NULL)
        return 0;
    rc = batch_list_read(f, "fuzz", add, &s, error, sizeof error);
    fclose(f);
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc == 0)
        FUZZ_CHECK(s.stop_at == 0 || s.paths < s.stop_at);
    if (rc < 0 && !(s.stop_at != 0 && s.paths == s.stop_at))
        FUZZ_CHECK(strstr(error, "longer than") != NULL);
    return 0;
}
