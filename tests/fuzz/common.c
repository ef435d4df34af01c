/* Shared by the fuzz targets. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

void
fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: property violated: %s\n", file, line, what);
    abort();
}
