/* Image views and element types. */
#include "votecl-private.h"

size_t
votecl_dtype_size(votecl_dtype dtype)
{
    switch (dtype) {
    case VOTECL_DTYPE_U8:
        return 1;
    case VOTECL_DTYPE_U16:
        return 2;
    case VOTECL_DTYPE_U32:
    case VOTECL_DTYPE_F32:
        return 4;
    }
    return 0;
}
