/* Host allocation: every allocation of the library goes through these, so that one place
 * can account for and (in debug builds) fail them. */
#include "votecl-private.h"

#include "fault.h"

#include <stdlib.h>

void *
votecl__malloc(size_t size)
{
    if (votecl__fault_hit(VOTECL__FAULT_ALLOC))
        return NULL;
    return malloc(size);
}

void *
votecl__calloc(size_t count, size_t size)
{
    if (votecl__fault_hit(VOTECL__FAULT_ALLOC))
        return NULL;
    return calloc(count, size);
}

void *
votecl__realloc(void *p, size_t size)
{
    if (votecl__fault_hit(VOTECL__FAULT_ALLOC))
        return NULL;
    return realloc(p, size);
}

void
votecl__free_all(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

int
votecl__grow(void **items, size_t *capacity, size_t need, size_t size, size_t first)
{
    void *grown;
    size_t n, total;

    if (need <= *capacity && *items != NULL)
        return 0;
    n = need > 2 * *capacity ? need : 2 * *capacity; /* doubling: amortised constant pushes */
    n = n > first ? n : first;
    if (votecl__mul_overflow(n, size, &total) || (grown = votecl__realloc(*items, total)) == NULL)
        return -1;
    *items = grown;
    *capacity = n;
    return 0;
}
