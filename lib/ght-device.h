/* The device state the generalized Hough transform's stages share (lib/ght-device.c): the
 * stage programs and their kernels, built and created on first use, and the buffers through
 * which one stage hands its results to the next without a round trip to the host. Included
 * only by the GHT's host files that run kernels. */
#ifndef VOTECL_GHT_DEVICE_H
#define VOTECL_GHT_DEVICE_H

#include "ght-private.h"

/* The vote stages' buffers: GHT_B_A .. GHT_B_F the bound lists (the template's pairings
 * and the tasks over their keys, the image's pairings and offsets; Ballard's R-table and
 * tables), the angle bins' boundary directions and the scale bins' boundaries, the
 * replicated copies of a space and its merge, GHT_B_CANDS: the candidates (bin shift,
 * factors), GHT_B_PEAKS: D's maxima (per candidate a head, then 4 ulongs each),
 * GHT_B_PACKED: the same packed (the heads, then the maxima one candidate after another),
 * GHT_B_CELLS: the selected maxima, GHT_B_LABELS: their label maps, GHT_B_MATCHES: matches
 * (a head, then 10 words each), GHT_B_SELCOUNT and GHT_B_THRESH: the matches of each
 * selected maximum and the thresholds of their sample. */
enum {
    GHT_B_A,
    GHT_B_B,
    GHT_B_C,
    GHT_B_D,
    GHT_B_E,
    GHT_B_F,
    GHT_B_DIRS,
    GHT_B_BOUNDS,
    GHT_B_COPIES,
    GHT_B_OUT,
    GHT_B_CANDS,
    GHT_B_PEAKS,
    GHT_B_PACKED,
    GHT_B_CELLS,
    GHT_B_LABELS,
    GHT_B_MATCHES,
    GHT_B_SELCOUNT,
    GHT_B_THRESH,
    GHT_B_COUNT
};

struct votecl__ght_device {
    votecl_context *context;
    votecl__ght_desc desc;
    unsigned m, g;                                              /* local and global replication */
    votecl__program *programs[VOTECL__GHT_STAGES];              /* built on first use */
    void *kernels[VOTECL__GHT_STAGES][VOTECL__GHT_MAX_KERNELS]; /* created on first use */
    votecl_buffer *buf[GHT_B_COUNT];
    size_t bound_tasks;  /* tasks of the bound template pairings */
    size_t matches_cap;  /* the room for matches the last overflow asked for */
    size_t matches_last; /* the matches the last call found: the next read's guess */
    size_t peaks_last;   /* the D maxima the last read found: the next read's guess */
};

/* The front end's buffers (edges, pairings, Ballard's maxima): the image and its per-pixel
 * states, the hysteresis flag, counts to scan and their block sums, the sorted points and
 * offsets, pairing tasks, the template pairings' offsets, Ballard's accumulator and
 * candidates, the capped pairings (then the spare). */
enum {
    GHT_F_IMAGE,
    GHT_F_STATE,
    GHT_F_FLAG,
    GHT_F_COUNTS,
    GHT_F_SUMS,
    GHT_F_POINTS,
    GHT_F_OFFSETS,
    GHT_F_TASKS,
    GHT_F_TOFFSETS,
    GHT_F_SPACE,
    GHT_F_CAND,
    GHT_F_CAPPED,
    GHT_F_COUNT
};

struct votecl__ght_front {
    votecl_context *context;
    votecl__ght_device *dev;
    votecl__ght_desc desc;
    votecl_buffer *buf[GHT_F_COUNT];
    uint32_t *offsets; /* the current edges' L + 1 offsets */
    uint32_t *cand;    /* Ballard's candidates read back */
    size_t cand_capacity;
    double seconds[2]; /* the last edge and pairing stages */
    /* Ballard's stages (lib/ght-ballard.c): the host mirror of the work buffer (GHT_F_CAND:
     * head, candidates' room, points), the current edges' number, whether the mirror holds
     * their points and whether the device lacks them (caller points), the accumulator cells
     * the edge kernel cleared (0: none), whether the R-table is bound (later edges are the
     * image's: read back in the device's order), whether the points are the caller's (which
     * may put two on one pixel: then their order decides which one the confidences' map
     * keeps, and they are sorted as the reference's), whether the vote and maxima ran and
     * were read back with the edges, whether the device's head[0] is 0 (the maxima's kernel
     * ran last: the edge kernel needs no fill) */
    uint32_t *mirror;
    size_t mirror_words, n, cleared;
    int have_points, pending, bound, caller, done, head_clear;
};

/* Launches kernel k of prog (built on first use) over dims dimensions; _launch1: 1-D over
 * items work-items rounded up to VOTECL__GHT_WG, local VOTECL__GHT_WG. */
votecl_status votecl__ght_launch(votecl__ght_device *dev, const votecl__ght_program *prog, int k,
                                 unsigned dims, const size_t *global, const size_t *local,
                                 const votecl__arg *args, unsigned nargs);
votecl_status votecl__ght_launch1(votecl__ght_device *dev, const votecl__ght_program *prog, int k,
                                  size_t items, const votecl__arg *args, unsigned nargs);
/* Makes *b hold at least size bytes (4 at least). */
votecl_status votecl__ght_ensure(votecl_context *context, votecl_buffer **b, size_t size);
/* Uploads size bytes (at least 4 allocated) into the vote stages' buffer b. */
votecl_status votecl__ght_device_upload(votecl__ght_device *dev, int b, const void *host,
                                        size_t size);
/* a[0 .. n) (n + 1 entries) becomes its exclusive prefix sum, a[n] the total (lib/ght-edges.c;
 * on a CPU device on the host). */
votecl_status votecl__ght_front_scan(votecl__ght_front *f, votecl_buffer *a, size_t n);
/* A monotonic clock in seconds, for the stages' timings. */
double votecl__ght_now(void);

#endif
