/* Run-time version getters: the library actually loaded may be newer than the header. */
#include "votecl-private.h"

int
votecl_version(void)
{
    return VOTECL_VERSION;
}

const char *
votecl_version_string(void)
{
    return VOTECL_VERSION_STRING;
}
