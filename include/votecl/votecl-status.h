/** @file
 * libvotecl: status codes.
 *
 * Every function that can fail returns a votecl_status. The values are pinned: a code keeps
 * its number forever and new codes are only appended. The detailed message of the last
 * failure is kept per context (votecl_context_get_error()). */
#ifndef VOTECL_STATUS_H
#define VOTECL_STATUS_H

#include <votecl/votecl-export.h>

#ifdef __cplusplus
extern "C" {
#endif

/** X(name, value, description) */
#define VOTECL_STATUS_LIST(X)                                                                  \
    X(VOTECL_OK, 0, "success")                                                                 \
    X(VOTECL_INVALID_ARGUMENT, 1, "invalid argument")                                          \
    X(VOTECL_OUT_OF_HOST_MEMORY, 2, "out of host memory")                                      \
    X(VOTECL_OUT_OF_DEVICE_MEMORY, 3, "out of device memory")                                  \
    X(VOTECL_NO_DEVICE, 4, "no usable device")                                                 \
    X(VOTECL_BACKEND_UNAVAILABLE, 5, "backend not available")                                  \
    X(VOTECL_KERNEL_NOT_FOUND, 6, "kernel source not found")                                   \
    X(VOTECL_BUILD_FAILED, 7, "kernel build failed")                                           \
    X(VOTECL_DEVICE_ERROR, 8, "device error")                                                  \
    X(VOTECL_UNSUPPORTED, 9, "not supported by this device or backend")                        \
    X(VOTECL_IO_ERROR, 10, "input/output error")                                               \
    X(VOTECL_INCOMPATIBLE, 11, "object belongs to another context or has the wrong size")      \
    X(VOTECL_OUT_OF_RESOURCES, 12, "needs more memory than the limit the caller set")

/** The result of every call that can fail: VOTECL_OK (0) or a failure; the names, pinned
 * values and descriptions are those of VOTECL_STATUS_LIST. */
typedef enum votecl_status {

#define VOTECL__STATUS_ENUM(name, value, text) name = value,
    VOTECL_STATUS_LIST(VOTECL__STATUS_ENUM)
#undef VOTECL__STATUS_ENUM
} votecl_status;

/** A static English description of status; "unknown status" for values not in the list.
 * Never NULL; transfer none. */
VOTECL_API const char *votecl_status_string(votecl_status status);

/** The code's name as written in C, e.g. "VOTECL_BUILD_FAILED"; NULL for unknown values. */
VOTECL_API const char *votecl_status_name(votecl_status status);

#ifdef __cplusplus
}
#endif

#endif
