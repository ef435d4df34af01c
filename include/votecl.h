/* libvotecl: fast voting algorithms (histograms, Hough transforms, HOG) on any OpenCL device.
 *
 * This is the only header applications include. Start with votecl-context.h (contexts,
 * devices, buffers), then the algorithm headers. Conventions shared by every module:
 *  - functions that can fail return votecl_status; the message of the last failure is
 *    votecl_context_get_error();
 *  - constructors fill an out-parameter with a caller-owned object; _free(NULL) is a no-op;
 *  - parameters are a struct filled with defaults by votecl_<algo>_params_init();
 *  - ownership words: borrowed (the library reads it during the call only), caller-owned
 *    output (the library writes it; the caller frees it), transfer full/none for returned
 *    pointers;
 *  - a context and its objects are used by one thread at a time;
 *  - the library never prints (except under VOTECL_DEBUG), aborts or exits. */
#ifndef VOTECL_H
#define VOTECL_H

#include <votecl/votecl-export.h>
#include <votecl/votecl-version.h>
#include <votecl/votecl-status.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-image.h>
#include <votecl/votecl-vote.h>
#include <votecl/votecl-model.h>
#include <votecl/votecl-hough.h>
#include <votecl/votecl-reduce.h>
#include <votecl/votecl-lines.h>
#include <votecl/votecl-ght.h>
#include <votecl/votecl-hog.h>

#endif
