/** @file
 * libvotecl: symbol export macro.
 *
 * The library is built with -fvisibility=hidden; only declarations marked VOTECL_API are
 * exported from the shared object. */
#ifndef VOTECL_EXPORT_H
#define VOTECL_EXPORT_H

#if defined(_WIN32) && defined(VOTECL_BUILDING)
#define VOTECL_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define VOTECL_API __attribute__((visibility("default")))
#else
#define VOTECL_API
#endif

#endif
