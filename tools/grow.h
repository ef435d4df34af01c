/* grow.h: the tools' growable arrays, as the library's votecl__grow (lib/alloc.c), header-only
 * because the readers (image-io.c, batch-source.c) are also linked alone into tests and
 * fuzzers. */
#ifndef VOTECL_TOOLS_GROW_H
#define VOTECL_TOOLS_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* Makes *items (room for *capacity elements of size bytes) hold at least need elements,
 * doubling and never fewer than first. 0, or -1 on overflow or out of memory (then nothing
 * changed). */
static inline int
tool_grow(void **items, size_t *capacity, size_t need, size_t size, size_t first)
{
    void *grown;
    size_t n;

    if (need <= *capacity && *items != NULL)
        return 0;
    n = need > 2 * *capacity ? need : 2 * *capacity; /* doubling: amortised constant pushes */
    n = n > first ? n : first;
    if (n > SIZE_MAX / size || (grown = realloc(*items, n * size)) == NULL)
        return -1;
    *items = grown;
    *capacity = n;
    return 0;
}

#endif
