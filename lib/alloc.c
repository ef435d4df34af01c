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
