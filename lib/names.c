/* The names of the public enums' values that several engine files print or parse (backends,
 * strategies): a leaf, so that naming a value needs none of the files that use it. */
#include "votecl-private.h"

const char *
votecl_backend_name(votecl_backend backend)
{
    switch (backend) {
    case VOTECL_BACKEND_DEFAULT:
        return "default";
    case VOTECL_BACKEND_OPENCL:
        return "opencl";
    case VOTECL_BACKEND_CUDA:
        return "cuda";
    case VOTECL_BACKEND_REF:
        return "ref";
    }
    return NULL;
}

const char *
votecl_variant_name(votecl_variant variant)
{
    switch (variant) {
    case VOTECL_VARIANT_AUTO:
        return "auto";
    case VOTECL_VARIANT_LOCAL:
        return "local";
    case VOTECL_VARIANT_GLOBAL:
        return "global";
    case VOTECL_VARIANT_PRIVATE:
        return "private";
    }
    return NULL;
}
