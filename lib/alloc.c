/* Host allocation: every allocation of the library goes through these, so that one place
 * can account for and (in debug builds) fail them. */
#include "votecl-private.h"

#include <stdlib.h>

void *
votecl__malloc(size_t size)
{
    return malloc(size);
}

void *
votecl__calloc(size_t count, size_t size)
{
    return calloc(count, size);
}

void *
votecl__realloc(void *p, size_t size)
{
    return realloc(p, size);
}
