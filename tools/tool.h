/* The votecl command-line tool: what the subcommands share.
 *
 * Each subcommand is one function registered in the table in votecl.c. It receives the
 * common options parsed before the subcommand's name and its own arguments (argv[0] is the
 * subcommand's name); options common to all subcommands may also follow the name, and the
 * subcommand hands those to tool_common_option(). */
#ifndef VOTECL_TOOL_H
#define VOTECL_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <votecl.h>

#include "image-io.h"

enum {
    TOOL_EXIT_OK = 0,
    TOOL_EXIT_FAILURE = 1,
    TOOL_EXIT_USAGE = 2
};

typedef struct tool_options {
    votecl_backend backend; /* --backend; DEFAULT when not given */
    const char *device;     /* --device; NULL when not given */
    int quiet;              /* -q */
    int json;               /* --json */
    int help;               /* -h, --help */
    double start_seconds;   /* tool_now() at the top of main, for bench --startup */
} tool_options;

typedef int (*tool_command_fn)(tool_options *options, int argc, char **argv);

/* The subcommands (cmd-*.c). Each returns a TOOL_EXIT_* code. */
int tool_cmd_info(tool_options *options, int argc, char **argv);
int tool_cmd_hist(tool_options *options, int argc, char **argv);
int tool_cmd_bench(tool_options *options, int argc, char **argv);
int tool_cmd_demo(tool_options *options, int argc, char **argv);
int tool_cmd_hough(tool_options *options, int argc, char **argv);
int tool_cmd_calibrate(tool_options *options, int argc, char **argv);
int tool_cmd_vote(tool_options *options, int argc, char **argv);
int tool_cmd_lines(tool_options *options, int argc, char **argv);
int tool_cmd_hog(tool_options *options, int argc, char **argv);
int tool_cmd_ght(tool_options *options, int argc, char **argv);
int tool_cmd_circles(tool_options *options, int argc, char **argv);
int tool_cmd_edges(tool_options *options, int argc, char **argv);
int tool_cmd_eval(tool_options *options, int argc, char **argv);
int tool_cmd_batch(tool_options *options, int argc, char **argv);
int tool_cmd_warmup(tool_options *options, int argc, char **argv);

/* Consumes argv[*i] (and its value) when it is a common option, advancing *i past the value.
 * Returns 1 when consumed, 0 when argv[*i] is not a common option, -1 on a usage error (the
 * message is printed). */
int tool_common_option(tool_options *options, int argc, char **argv, int *i);

/* Matches argv[*i] against an option with a value, as "--name VALUE" or "--name=VALUE".
 * Returns 1 with *value set (and *i advanced past a separate value), 0 when argv[*i] is
 * another option, -1 when the value is missing (the message is printed). */
int tool_option_value(int argc, char **argv, int *i, const char *name, const char **value);

/* Parses a whole decimal number in [min, max]; prints a message naming option on failure.
 * Returns 0 or -1. */
int tool_parse_ulong(const char *option, const char *text, unsigned long min, unsigned long max,
                     unsigned long *out);
int tool_parse_double(const char *option, const char *text, double *out);

/* tool_option_value() and the parse of its value: 1 with *out set, 0 when argv[*i] is another
 * option, -1 when the value is missing or not a number in range (the message is printed). */
int tool_option_ulong(int argc, char **argv, int *i, const char *name, unsigned long max,
                      unsigned long *out);
/* The same for a number in [min, max]. */
int tool_option_range(int argc, char **argv, int *i, const char *name, unsigned long min,
                      unsigned long max, unsigned long *out);
int tool_option_double(int argc, char **argv, int *i, const char *name, double *out);

/* Applies command's image limits (its largest side, its memory per pixel for the budget)
 * to the images read from now on: the single command and batch of one algorithm alike. */
void tool_image_limits(const char *command);

/* Prints "votecl <command>: message" to stderr and returns TOOL_EXIT_USAGE. */
int tool_usage_error(const char *command, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "votecl: what: status text: context message" and returns TOOL_EXIT_FAILURE. */
int tool_fail(const votecl_context *context, votecl_status status, const char *what);

/* Progress on stderr, only when stderr is a terminal and -q was not given. */
void tool_progress(const tool_options *options, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Creates the context the common options ask for; on failure prints the library's message
 * and returns TOOL_EXIT_FAILURE (*out NULL), else TOOL_EXIT_OK. */
int tool_context_open(const tool_options *options, votecl_context **out);
/* On a terminal and without -q: "compiling kernels for DEVICE ..." on stderr while one of
 * ctx's kernel builds lasts over a second (tools/build-progress.c; tool_context_open does it). */
void tool_build_progress_attach(const tool_options *options, votecl_context *ctx);

/* Seconds on the monotonic clock. */
double tool_now(void);
/* qsort's comparison of doubles (times). */
int tool_compare_doubles(const void *a, const void *b);

/* The directory holding the shipped images: dir when not NULL, else the installed
 * VOTECL_IMAGEDIR when it holds building.png, else tools/images beside the build-tree binary.
 * Transfer none (static storage). */
const char *tool_image_dir(const char *dir);

/* Joins dir and name into buffer (capacity size); returns buffer, or NULL when too long. */
char *tool_path_join(char *buffer, size_t size, const char *dir, const char *name);

/* mkdir -p path (mode 0777 before the umask); 0 when it exists then, else -1. */
int tool_make_directories(const char *path);

/* Summary statistics of a histogram, values taken at bin centres (for integer data the
 * middle of the integers a bin holds). */
typedef struct tool_hist_stats {
    uint64_t total;      /* votes */
    double mean;
    double median;       /* the centre of the bin where the cumulative count reaches half */
    size_t mode;         /* the most frequent bin */
    uint32_t mode_count;
} tool_hist_stats;

void tool_hist_stats_compute(const uint32_t *counts, size_t nbins, double min, double max,
                             int integer, tool_hist_stats *out);

/* The value at the centre of bin i of nbins over [min, max) (see tool_hist_stats). */
double tool_hist_bin_value(size_t i, size_t nbins, double min, double max, int integer);

/* A 1-D histogram of one channel of an image: plans, runs and describes.
 * counts: caller-owned output of nbins entries; info: the plan's description (may be NULL);
 * seconds: when not NULL, the wall time of a second run (the first may include the device's
 * lazy set-up), host transfers included.
 * On failure the context holds the message. */
/* The histograms of nchannels channels of an image from first (several: one pass, per_channel,
 * counts holding nchannels * nbins), nbins + 1 uneven edges (NULL: even over [min, max)),
 * over the pixels where mask (NULL: all; width x height
 * bytes) is nonzero. Otherwise as tool_hist_image_channel(). */
votecl_status tool_hist_image(votecl_context *context, const tool_image *image, unsigned first,
                              unsigned nchannels, uint32_t nbins, double min, double max,
                              const double *edges, const uint8_t *mask, uint32_t *counts,
                              votecl_vote_plan_info *info, double *seconds);
votecl_status tool_hist_image_channel(votecl_context *context, const tool_image *image,
                                      unsigned channel, uint32_t nbins, double min, double max,
                                      uint32_t *counts, votecl_vote_plan_info *info,
                                      double *seconds);

/* An 8-bit copy (16-bit samples shifted down; gray+alpha to gray), as votecl hog reads
 * (algorithms.c). */
int tool_image_u8(const tool_image *image, tool_image *out, char *error, size_t size);
/* The image as u8 gray (tool_image_to_gray; 16-bit gray taken as its high byte). gray:
 * caller-owned output. 0, or -1 with the message in error. */
int tool_gray_u8(const tool_image *image, tool_image *gray, char *error, size_t size);

/* One line describing a plan: "local S'=7 S=7 P=8 passes=1 wg=256". */
void tool_plan_summary(const votecl_vote_plan_info *info, char *buffer, size_t size);

/* The colour of channel c of an image with channels channels, for plots. */
void tool_channel_colour(unsigned channels, unsigned c, unsigned char rgb[3]);
/* "gray", "red", ..., "alpha", or "channel" for others. */
const char *tool_channel_name(unsigned channels, unsigned c);

/* A subcommand's own option: 1 when argv[*i] (and its value, advancing *i) was taken, 0 when
 * it is not this command's, -1 after a usage error was printed. */
typedef int (*tool_option_fn)(void *args, int argc, char **argv, int *i);

/* The arguments (argv[1] on) of a command that takes only options: each the command's own
 * (option(args, ...)) or one every command takes (tool_common_option); anything else is a
 * usage error "votecl COMMAND: WHAT 'ARG'" (what: "unknown option", "unexpected argument").
 * Returns TOOL_EXIT_OK, or TOOL_EXIT_USAGE after the first error was printed. */
int tool_parse_options(tool_options *options, const char *command, const char *what,
                       tool_option_fn option, void *args, int argc, char **argv);

/* Argument *i of a command's line when it is an option ('-' and more): the command's own
 * (option(args, ...)), else one every command takes (tool_common_option). Returns 1 when it
 * was one (*i at its last word), 0 when argv[*i] is no option (a positional argument), -1
 * after a usage error was printed (the option's own, or "unknown option"). */
int tool_command_option(tool_options *options, const char *command, tool_option_fn option,
                        void *args, int argc, char **argv, int *i);

/* The argument loop of a command taking one IMAGE: its own options through option, then the
 * common ones; usage errors for unknown options, a second image or none (unless --help).
 * Returns TOOL_EXIT_OK or TOOL_EXIT_USAGE. */
int tool_parse_image_command(tool_options *options, const char *command, tool_option_fn option,
                             void *args, int argc, char **argv, const char **image_path);
/* tool_parse_image_command, then what every such command does next: --help prints usage
 * (and returns TOOL_EXIT_OK with options->help set), else the command's image limits
 * (tool_image_limits) and its IMAGE read into image (caller-owned; free with
 * tool_image_free). Returns TOOL_EXIT_OK, TOOL_EXIT_USAGE, or TOOL_EXIT_FAILURE after a
 * message naming the file. */
int tool_image_command_start(tool_options *options, const char *command, tool_option_fn option,
                             void *args, void (*usage)(FILE *), int argc, char **argv,
                             const char **image_path, tool_image *image);

/* A command of one IMAGE: its arguments (tool_parse_image_command), --help, check, the image
 * read within the command's limits, load, the context, then run. */
typedef struct tool_image_command {
    const char *name; /* "lines" */
    tool_option_fn option;
    void (*usage)(FILE *f);
    size_t max_side; /* the image's largest side; 0: tool_image_limits(name) */
    /* After the arguments (not with --help): a usage error's TOOL_EXIT_USAGE, or OK; may be
     * NULL. */
    int (*check)(void *args);
    /* After the image is read, before the context: what the command derives from it (says
     * its failures on stderr); may be NULL. */
    int (*load)(void *args, tool_image *image);
    /* Computes and writes the command's outputs; returns a TOOL_EXIT_* code. */
    int (*run)(tool_options *options, votecl_context *ctx, void *args, const tool_image *image);
} tool_image_command;

/* Runs c with args (initialised by the caller; *image_path set from the arguments). Returns
 * a TOOL_EXIT_* code. */
int tool_image_command_run(tool_options *options, const tool_image_command *c, void *args,
                           const char **image_path, int argc, char **argv);

/* Writes out, an annotated image that a tool_*_annotate() call returning made (its message
 * in error) filled, to path and frees it; says the failure as "votecl COMMAND: ...".
 * Returns a TOOL_EXIT_* code. */
int tool_write_annotated(const char *command, const char *path, tool_image *out, int made,
                         char *error, size_t size);

/* "cpu", "gpu", "accelerator", "other". */
const char *tool_device_type_name(votecl_device_type type);

/* Writes a plan description as a JSON object (the value of a key just written). */
struct tool_json;

/* The fields every command's JSON document starts with, written right after its top-level
 * object is begun, so that all commands share one shape (schema TOOL_JSON_SCHEMA; the shape
 * is documented once, in docs/man/votecl.1, JSON OUTPUT):
 *   "schema", "votecl" (tool version), "library" (library version), "command",
 *   "backend" and "device" (of the context tool_context_open made; null without one),
 *   "inputs": [{"path", "width", "height", "channels", "dtype"}] (the images read),
 * followed by "parameters" (tool_json_parameters) and "results" (tool_json_results), the only
 * other top-level keys. A command writes no image path or size of its own: they are in
 * "inputs". */
void tool_json_header(struct tool_json *j, const char *command);
/* A command's document on file: its top-level object begun and the header written (the
 * command then opens "parameters"); _end closes "results", the top level and the output. */
void tool_json_document(struct tool_json *j, FILE *file, const char *command);
void tool_json_document_end(struct tool_json *j);
/* The header's parts, for documents that are not one command's run on the images read (the
 * records of votecl batch): its first fields; one entry of "inputs". */
void tool_json_header_fields(struct tool_json *j, const char *command, const char *backend,
                             const char *device);
void tool_json_input(struct tool_json *j, const char *path, size_t width, size_t height,
                     unsigned channels, votecl_dtype dtype);
/* Records ctx's backend and device for tool_json_header (tool_context_open does it; for a
 * context made otherwise, as votecl info does). */
void tool_context_note(votecl_context *ctx);
/* Opens the "parameters" object (the values used, defaults included). */
void tool_json_parameters(struct tool_json *j);
/* Closes "parameters" and opens "results"; the command closes it before its top level. */
void tool_json_results(struct tool_json *j);
/* Opens "parameters" with the theta-rho Hough values used (votecl hough and its batch case);
 * sobel_threshold: with sobel only; angles and rho bins: r's. */
struct tool_hough_result;
void tool_json_hough_parameters(struct tool_json *j, int sobel, unsigned long sobel_threshold,
                                const votecl_hough_params *params,
                                const struct tool_hough_result *r);
/* Opens "parameters" with the HOG or GHT values used (votecl hog / ght and their batch case
 * share the keys); pairing: the one the run used. */
void tool_json_hog_parameters(struct tool_json *j, const char *model_path,
                              const votecl_hog_params *params);
void tool_json_ght_parameters(struct tool_json *j, const votecl_ght_params *params,
                              votecl_ght_pairing pairing);
void tool_json_plan_info(struct tool_json *j, const votecl_vote_plan_info *info);

/* Every segment of a line detector's run (votecl_hough_plan_segments(),
 * votecl_lines_plan_segments()), copied out of the plan (line-output.c). */
typedef struct tool_segments {
    votecl_segment *items; /* owned: n entries */
    size_t n;
} tool_segments;

/* The Hough transform of a u8 edge image (cmd-hough.c, shared with the demo). */
#define TOOL_HOUGH_MAX_SHOWN 1000 /* lines kept when params.max_lines is 0 */
typedef struct tool_hough_result {
    votecl_hough_line *lines; /* owned: shown entries, most votes first */
    size_t found, shown;      /* peaks found; lines kept */
    votecl_vote_stats stats;  /* kept: edge pixels */
    votecl_vote_plan_info info;
    unsigned angles;
    uint32_t nbins;
    uint32_t *acc;            /* owned: angles * nbins counts */
    double seconds;           /* wall time of the second run (vote and peaks) */
    double bench_median, bench_min; /* votecl hough --repeat: device-buffer votes */
    int gray_sobel;           /* input: the image is gray; votecl_hough_run_gray() */
    unsigned sobel_threshold; /* input: its Sobel threshold */
    tool_segments segments;   /* with params.segments: every segment of the shown lines */
} tool_hough_result;

/* Plans, runs twice (timing the second) and describes. r: caller-owned output, freed with
 * tool_hough_result_free() also after a failure. */
votecl_status tool_hough_compute(votecl_context *context, const votecl_hough_params *params,
                                 const tool_image *edges, tool_hough_result *r);
void tool_hough_result_free(tool_hough_result *r);
/* The theta-rho parameters votecl hough and its batch case both take (--bins, --threshold,
 * --window, --edge-threshold, --max-lines, --thin-edges), as a tool_option_fn. */
int tool_hough_param_option(votecl_hough_params *params, int argc, char **argv, int *i);
/* A u8 edge image: 255 where the Sobel magnitude of gray (u8 or u16, taken as its high byte)
 * reaches threshold and, with thin, is a ridge across the edge, else 0 (the one-pixel border
 * is 0): votecl_hough_sobel_edges(), the edges of votecl_hough_run_gray(). edges:
 * caller-owned output. */
int tool_hough_sobel(const tool_image *gray, unsigned threshold, int thin, tool_image *edges,
                     char *error, size_t error_size);
/* An RGB copy of image, dimmed, with the lines drawn and numbered from 1 (where a line has its
 * longest segment, along it, else across the image). out: caller-owned output. */
int tool_hough_annotate(const tool_image *image, const votecl_hough_line *lines, size_t n,
                        tool_image *out, char *error, size_t error_size);
/* The same with each line drawn along each of its segments (a line without one is not
 * drawn); segments NULL (none asked for): tool_hough_annotate(). */
int tool_hough_annotate_segments(const tool_image *image, const votecl_hough_line *lines, size_t n,
                                 const tool_segments *segments, tool_image *out, char *error,
                                 size_t error_size);

/* PClines of an image (cmd-lines.c, shared with the demo). */
typedef struct tool_lines_result {
    votecl_lines_line *lines;   /* owned: shown entries, most votes first */
    size_t found, shown;        /* lines found; lines kept */
    votecl_lines_stats stats;
    votecl_lines_params params; /* resolved */
    uint32_t columns, rows;
    uint32_t *space;            /* owned: columns * rows counts, column after column */
    double seconds;             /* wall time of the second run, gray image in to lines out;
                                   with repeat: the median of repeat timed runs */
    unsigned long repeat;       /* in: timed runs after the first (0: one) */
    tool_segments segments;     /* with params.segments: every segment of the shown lines */
} tool_lines_result;

/* Converts image to u8 gray, plans, runs twice (timing the second) and reads the TS space
 * back. r: caller-owned output, freed with tool_lines_result_free() also after a failure. */
votecl_status tool_lines_compute(votecl_context *context, const votecl_lines_params *params,
                                 const tool_image *image, tool_lines_result *r);
void tool_lines_result_free(tool_lines_result *r);
/* The plan's segments of its last run, copied into r->segments. */
votecl_status tool_lines_keep_segments(const votecl_lines_plan *plan, tool_lines_result *r);
/* The PClines parameters votecl lines and its batch case both take (--distance, --rows,
 * --window, --threshold, --radius, --edge-threshold, --max-lines), as a tool_option_fn. */
int tool_lines_param_option(votecl_lines_params *params, int argc, char **argv, int *i);
/* tool_hough_annotate() for PClines lines. */
int tool_lines_annotate(const tool_image *image, const votecl_lines_line *lines, size_t n,
                        const tool_segments *segments, tool_image *out, char *error,
                        size_t error_size);

/* What votecl hough and votecl lines share in their output (line-output.c). */
/* A line detector's result arrays: *shown (max_lines, or TOOL_HOUGH_MAX_SHOWN when 0) lines
 * of line_size bytes zeroed, returned, and *space, cells counts of its vote space; NULL (and
 * *space NULL) when either is out of memory. */
void *tool_line_result_alloc(size_t max_lines, size_t line_size, size_t cells, uint32_t **space,
                             size_t *shown);
/* Frees what tool_line_result_alloc() and tool_segments_keep() gave a result (segments
 * left empty). */
void tool_line_result_free(void *lines, uint32_t *space, tool_segments *segments);
/* A line's theta, theta_degrees, rho and votes as members of the open JSON object j. */
void tool_json_line(struct tool_json *j, double theta, double rho, unsigned votes);
/* "found" and the "lines" array of the theta-rho Hough's lines (votecl hough, its batch case). */
void tool_json_hough_lines(struct tool_json *j, const votecl_hough_line *lines, size_t found,
                           size_t shown);
/* "parameters" and "results" of votecl lines and its batch case, the run's seconds with
 * seconds. */
void tool_lines_json(struct tool_json *j, const tool_lines_result *r, int seconds);
/* Ends a line of text: " segment x0 y0 x1 y1" when it has one, then the newline. */
void tool_print_segment(int has_segment, double x0, double y0, double x1, double y1);
/* Keeps a copy of the n segments from (the plan's, borrowed) in s; VOTECL_OUT_OF_HOST_MEMORY
 * when it cannot. */
votecl_status tool_segments_keep(tool_segments *s, const votecl_segment *from, size_t n);
void tool_segments_free(tool_segments *s);
/* The segments as text: a "# N segment(s)" header, then one "x0 y0 x1 y1 line hits" each. */
void tool_print_segments(const tool_segments *s);
/* The "segments" array of the open JSON object j: x0, y0, x1, y1, line and hits each. */
void tool_json_segments(struct tool_json *j, const tool_segments *s);

/* A line detector's images: the annotated input and the vote space with the lines ringed. */
typedef struct tool_line_output {
    const char *command;    /* "hough": messages say "votecl hough: ..." */
    const char *out_path;   /* the annotated image; NULL: none */
    const char *space_path; /* the vote space; NULL: none */
    const char *space_name; /* for messages: "accumulator" */
    const uint32_t *space;  /* columns x rows counts (tool_plot_space) */
    size_t columns, rows;
    int column_major;
    const votecl_hough_line *hough;   /* the lines: the theta-rho Hough's (bin, angle), */
    const votecl_lines_line *pclines; /* or PClines' (column, row) */
    size_t shown;
    const tool_segments *segments; /* NULL: none asked for (lines drawn across the image) */
} tool_line_output;

/* Writes the images o asks for; reports failures on stderr. Returns a TOOL_EXIT_* code. */
int tool_line_output_write(const tool_line_output *o, const tool_image *image);

/* votecl hog's --block-norm N and --binning B (cmd-hog.c, shared with votecl batch hog) into
 * params: 1 when argv[*i] is one (*i moved past its value), 0 when not, -1 after telling a
 * bad value. */
int tool_hog_mode_option(votecl_hog_params *params, int argc, char **argv, int *i);
/* A HOG model (cmd-hog.c): the people detector when path is NULL, else a votecl-hog-model
 * file or one OpenCV saved (HOGDescriptor::save, YAML or XML), whose window geometry then
 * replaces params' (in/out). model: caller-owned. */
votecl_status tool_hog_model_load(votecl_context *context, const char *path,
                                  votecl_hog_params *params, votecl_hog_model **model);
/* HOG detection of an image (cmd-hog.c, shared with the demo and the bench): the people
 * detector or the model file model_path (may be NULL); the second of two runs is timed. */
votecl_status tool_hog_detect(votecl_context *context, const votecl_hog_params *params,
                              const char *model_path, const tool_image *image,
                              votecl_hog_detection *detections, size_t capacity, size_t *found,
                              double *seconds);
/* An RGB copy of a u8 image with the boxes drawn in green. out: caller-owned. */
int tool_hog_annotate(const tool_image *image, const votecl_hog_detection *detections,
                      size_t n, tool_image *out, char *error, size_t error_size);

/* The generalized Hough transform (cmd-ght.c, shared with the demo and the bench): a model of
 * templ (converted to u8 gray), two detections in image, the second timed (seconds); stats
 * may be NULL. */
votecl_status tool_ght_detect(votecl_context *context, const votecl_ght_params *params,
                              const tool_image *templ, const tool_image *image,
                              votecl_ght_pose *poses, size_t capacity, size_t *found,
                              votecl_ght_stats *stats, double *seconds);
/* The library's memory limit for a detection of templ in image within the tool's memory
 * budget (docs/reliability.md): the budget (one worker's share in batch) less the decoded
 * images and their gray copies, which the tool holds meanwhile (at least 1 byte). */
/* The GHT parameters votecl ght and its batch case both take (the search's range and steps,
 * --min-dist, --levels, --dp, --max), as a tool_option_fn. */
int tool_ght_param_option(votecl_ght_params *params, int argc, char **argv, int *i);
uint64_t tool_ght_memory_limit(const tool_image *templ, const tool_image *image);
/* A dimmed RGB copy of image with the template's tw x th box drawn at every pose. out:
 * caller-owned output. */
int tool_ght_annotate(const tool_image *image, const votecl_ght_pose *poses, size_t n,
                      double tw, double th, tool_image *out, char *error, size_t error_size);

#endif
