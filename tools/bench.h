/* votecl bench's state and helpers, for the bench groups of the algorithms
 * (tool_bench_group in tools/algorithms.h, each algorithm's in tools/algo-<name>.c).
 *
 * A group appends its cases to the open JSON array b->json, one object each with at least
 * "case" and "status" (and "seconds" when timed), notes each timed case with
 * tool_bench_note() for the --backend both comparison, clears b->all_ok when a result is
 * wrong, and says its figures with tool_progress(). */
#ifndef VOTECL_TOOL_BENCH_H
#define VOTECL_TOOL_BENCH_H

#include "algorithms.h"
#include "json.h"
#include "tool.h"

#define BENCH_WARMUP 3
#define BENCH_BATCHES 5
#define BENCH_BINS 256
#define BENCH_MAX_PLANS 4
#define BENCH_MAX_RECORDS 128
/* Sobel magnitude threshold of the Hough cases' edge image (building.png at 1920x1080) */
#define BENCH_SOBEL_THRESHOLD 200

typedef struct tool_bench_args {
    const char *json_path;
    const char *images;
    unsigned long mib;
    unsigned long wg; /* --work-group-size: the histogram plans' (0: the plan's choice) */
    unsigned long reps;
    unsigned variants; /* bit per votecl_variant besides AUTO */
    int startup;
    int quick;
    int both;         /* --backend both: OpenCL and CUDA, side by side */
    const char *only; /* one group of cases (tool_bench_group.name), NULL: all */
} tool_bench_args;

typedef struct tool_bench_plan {
    votecl_variant requested;
    votecl_hist_plan *plan; /* NULL when creation failed */
    votecl_status status;
    char error[512];
    double worst_gbps; /* over the distributions; 0 before the first */
    const char *worst_case;
} tool_bench_plan;

/* One timed case of a run, for the side-by-side comparison of backends. */
typedef struct tool_bench_record {
    char name[64];
    double seconds;
} tool_bench_record;

struct tool_bench {
    tool_options *options;
    tool_bench_args args;
    votecl_context *ctx;
    tool_json json;
    size_t bytes; /* size of the distribution cases */
    size_t frame_width, frame_height, frames;
    unsigned char *host; /* max(bytes, frames * frame) bytes */
    votecl_buffer *x, *dst, *bins;
    tool_image building; /* gray; data NULL when not found */
    tool_bench_plan plans[BENCH_MAX_PLANS];
    size_t nplans;
    int all_ok;
    double untimed_seconds; /* making the startup frame: not part of the startup cost */
    tool_bench_record records[BENCH_MAX_RECORDS];
    size_t nrecords;
};

/* One timed operation: a run of whatever arg holds. */
typedef votecl_status (*tool_bench_op_fn)(void *arg);

/* Seconds per run: the median of BENCH_BATCHES batches of reps runs after BENCH_WARMUP runs;
 * sync_each: each run finished (latency), else back to back. */
votecl_status tool_bench_time(votecl_context *ctx, tool_bench_op_fn op, void *arg,
                              unsigned long reps, int sync_each, double *seconds);
/* One more run of op, counting what it queued (votecl_context_get_queue_counts) as the open
 * case's "queued" object: launches, fills, copies, writes and reads per call. Returns the
 * run's status. */
votecl_status tool_bench_queued(tool_bench *b, tool_bench_op_fn op, void *arg);
/* Notes a case's time per run under "case" or "case/variant" for the comparison. */
void tool_bench_note(tool_bench *b, const char *name, const char *variant, double seconds);
/* A case's JSON object: tool_bench_case_begin() opens it with "case" and "status"; after the
 * case's own fields, tool_bench_case_result() adds "seconds" (noted for the comparison) when
 * status is VOTECL_OK and returns 1, else the context's "error" (a failure of the run, clearing
 * b->all_ok, when counts) and returns 0; the caller adds what follows a time and closes the
 * object. */
void tool_bench_case_begin(tool_bench *b, const char *name, votecl_status status);
int tool_bench_case_result(tool_bench *b, const char *name, votecl_status status, double seconds,
                           int counts);
/* src stretched over dst (nearest neighbour), both one-channel u8. */
void tool_bench_stretch(const tool_image *src, tool_image *dst);
/* building.png stretched to the frame size (nearest neighbour), then Sobel edges; 0 on
 * success, -1 when there is no building.png or no memory. */
int tool_bench_edge_frame(tool_bench *b, tool_image *edges);

/* The histogram's groups, the bench's own core (cmd-bench.c): "hist" (u8, 256 bins, every
 * strategy and data distribution; the copy bandwidth and the plans come before the cases)
 * and "hist16" (u16, 4096 bins). */
void tool_bench_hist(tool_bench *b);
void tool_bench_hist16(tool_bench *b);
void tool_bench_histf32(tool_bench *b);

#endif
