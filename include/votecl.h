/** @file
 * libvotecl: fast voting algorithms (histograms, Hough transforms, HOG) on any OpenCL device.
 *
 * This is the only header applications include. Start with votecl-context.h (contexts,
 * devices, buffers), then the algorithm headers. The manual: votecl(3) (the library),
 * votecl(1) (the command-line tool); the guides installed in $(docdir), usually
 * /usr/local/share/doc/libvotecl (env.md: environment variables; hog-model.md: the HOG model
 * file; performance.md and accuracy.md: measured figures); one example program per module in
 * $(docdir)/examples, each built with cc FILE.c $(pkg-config --cflags --libs votecl) -lm.
 *
 * The papers the modules implement, cited by title in each header:
 *  - G.-J. van den Braak, C. Nugteren, B. Mesman, H. Corporaal, "GPU-vote: a framework for
 *    accelerating voting algorithms on GPU": the engine, histograms, the
 *    theta-rho Hough, sum, sub-sampling and the execution-time model;
 *  - J. Havel, M. Dubska, A. Herout, R. Josth, "Real-time detection of lines using parallel
 *    coordinates and CUDA" (Journal of Real-Time Image Processing, 2012): PClines;
 *  - J. Gomez-Luna, J. M. Gonzalez-Linares, J. I. Benavides, E. L. Zapata, N. Guil,
 *    "Parallelization of the generalized Hough transform on GPU": the fast GHT (Guil);
 *  - Y. Chen, Y. Xu, "Generalized Hough transform on GPU": Ballard's R-table GHT;
 *  - V. Prisacariu, I. Reid, "fastHOG - a real-time GPU implementation of HOG" (Technical
 *    Report 2310/09, Oxford, 2009), after N. Dalal, B. Triggs, "Histograms of oriented
 *    gradients for human detection" (CVPR 2005): HOG. Conventions shared by every module:
 *  - functions that can fail return votecl_status; the message of the last failure is
 *    votecl_context_get_error();
 *  - constructors fill an out-parameter with a caller-owned object; _free(NULL) is a no-op;
 *  - parameters are a struct filled with defaults by `votecl_<algo>_params_init()` (or
 *    _options_init(), votecl_vote_spec_init()); always start from it. The struct's first
 *    member, struct_size, is set there to the size of the struct the program was compiled
 *    with, and every call that reads the struct checks it: 0 (never initialized) is
 *    VOTECL_INVALID_ARGUMENT, a size larger than the library's (a program built against
 *    newer headers) VOTECL_UNSUPPORTED. New fields are only ever appended, so a later
 *    library accepts every earlier release's size and gives the fields that size lacks
 *    their defaults: programs built against this release keep working unchanged;
 *  - ownership words: borrowed (the library reads it during the call only), caller-owned
 *    output (the library writes it; the caller frees it), transfer full/none for returned
 *    pointers;
 *  - a context and its objects are used by one thread at a time; a call from a second
 *    thread while one is inside a call on the same context is refused at once with
 *    VOTECL_INVALID_ARGUMENT, "context used by two threads at once" (the refused thread's
 *    votecl_context_get_error()), never run on state the other is changing;
 *  - the library never prints (except under VOTECL_DEBUG), aborts or exits.
 *
 * Limits. One step beyond any of them a call returns VOTECL_INVALID_ARGUMENT naming the
 * field, before it reads or allocates (a test sits at each boundary); 32-bit counts never wrap
 * unless said so:
 * @code{.unparsed}
 *   image views   width x height <= VOTECL_IMAGE_MAX_PIXELS (2^31 - 1); row bytes and the
 *                 span of the rows within the address space (votecl-image.h)
 *   histograms    N <= VOTECL_HIST_MAX_BINS (2^28) bins; n <= VOTECL_VOTE_MAX_ELEMENTS
 *                 (2^31 - 1) elements per frame, so a u32 bin gets at most 2^31 - 1 votes;
 *                 frames x N x 4 bytes within the address space
 *   generic vote  G x N <= VOTECL_VOTE_MAX_BINS (2^28); images 65535 a side; 2^31 - 1
 *                 elements per run (unity bins never wrap; u32 number votes add modulo
 *                 2^32); table <= VOTECL_VOTE_MAX_TABLE floats; source <= 1 MiB
 *   Hough         sides <= VOTECL_HOUGH_MAX_SIDE (65535), 2^31 - 1 pixels; G <= 4096;
 *                 G x N <= 2^28; peak window <= VOTECL_HOUGH_MAX_WINDOW (99); one vote per
 *                 edge and angle
 *   PClines       sides <= 65535; d <= 65536, V <= 65536, 2d x V <= 2^31 - 1 cells;
 *                 <= 2^31 - 1 edges, one vote per edge and column
 *   sum           any n: u8 data in runs of VOTECL_SUM_U8_RUN_MAX elements per u32 bin,
 *                 added in 64 bits on the host: exact
 *   sub-sampling  sides <= 65535, output <= 2^28 pixels; u8 block sums exact for f <= 256
 *   GHT           sides <= VOTECL_GHT_MAX_SIDE (32767); levels <= 1024; <= 100000
 *                 rotations and scales; <= 2^32 - 1 pairings of a template or image
 *                 (VOTECL_UNSUPPORTED beyond); a Ballard cell gets one vote per (image edge,
 *                 R-table entry) pair, so it would wrap only past 2^32 - 1 such pairs
 *   HOG           image and window sides <= VOTECL_HOG_MAX_SIDE (32768); bins <= 64;
 *                 levels <= 64; f32 throughout; fusion costs time quadratic in the windows
 *                 above hit_threshold
 * @endcode */

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
#include <votecl/votecl-circles.h>
#include <votecl/votecl-edges.h>
#include <votecl/votecl-reduce.h>
#include <votecl/votecl-lines.h>
#include <votecl/votecl-ght.h>
#include <votecl/votecl-hog.h>
#include <votecl/votecl-batch.h>

#endif
