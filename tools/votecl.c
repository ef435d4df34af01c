/* votecl: the command-line tool. One table of subcommands; options shared by all of them. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "tool.h"

typedef struct tool_command {
    const char *name;
    const char *help;
    tool_command_fn run;
} tool_command;

/* Adding a subcommand is one line here. */
static const tool_command tool_commands[] = {
    {"info", "backends, devices, Nmax, kernel path and cache directory", tool_cmd_info},
    {"hist", "histograms of a PNG/PGM/PPM image as text, JSON or a plot", tool_cmd_hist},
    {"bench", "bandwidth and histogram throughput of the device, as JSON", tool_cmd_bench},
    {"calibrate", "fits the execution-time model (--evaluate: its accuracy)", tool_cmd_calibrate},
    {"hough", "straight lines of an image (theta-rho Hough transform), text, JSON, PNGs",
     tool_cmd_hough},
    {"lines", "straight lines of an image (PClines), text, JSON, annotated and TS-space PNGs",
     tool_cmd_lines},
    {"hog", "people in an image (HOG + linear SVM), boxes as text or JSON, annotated PNG",
     tool_cmd_hog},
    {"ght", "a template in an image (generalized Hough: Guil or Ballard), poses, annotated PNG",
     tool_cmd_ght},
    {"circles", "circles of an image (Hough: OpenCV's gradient or per radius), text, JSON, PNG",
     tool_cmd_circles},
    {"edges", "Canny's edges (cv2.Canny) or a Sobel derivative of an image, counts, PNG",
     tool_cmd_edges},
    {"vote", "a user-defined vote (OpenCL C in a file) on an image", tool_cmd_vote},
    {"eval", "accuracy suites (recall, precision, error per case family) as JSON", tool_cmd_eval},
    {"batch",
     "one algorithm over images, directories and videos on every device (and MPI "
     "rank), JSON Lines",
     tool_cmd_batch},
    {"demo", "histograms of the shipped images with annotated PNGs", tool_cmd_demo},
    {"warmup", "builds and caches the kernels of every module for the device (--all: more)",
     tool_cmd_warmup},
};

#define TOOL_N_COMMANDS (sizeof tool_commands / sizeof tool_commands[0])

static void
print_usage(FILE *f)
{
    fprintf(f, "usage: votecl [OPTIONS] COMMAND [ARGS]   (votecl COMMAND --help for details)\n\n"
               "commands:\n");
    for (size_t i = 0; i < TOOL_N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", tool_commands[i].name, tool_commands[i].help);
    fprintf(f, "\noptions (before or after the command):\n"
               "  --backend opencl|cuda|ref   backend (default: VOTECL_BACKEND, else cuda where\n"
               "                              built and present, else opencl)\n"
               "  --device SELECTOR           device, e.g. NVIDIA:GPU:0 or :CPU: (VOTECL_DEVICE)\n"
               "  -q                          no progress messages (FFmpeg's log too)\n"
               "  --memory-budget MB          memory for one image or video frame, checked\n"
               "                              from its header (default 256)\n"
               "  --json                      JSON output\n"
               "  -h, --help                  this help\n"
               "  --version                   the tool's and the library's versions\n"
               "\n'-' as a file name reads standard input or writes standard output; '--' ends\n"
               "the options. Outputs are written whole (a temporary renamed) and never over an\n"
               "input.\n"
               "\nexit status: 0 success, 1 run-time failure (including write errors), 2 invalid\n"
               "arguments (wherever they are found: by the tool or by the library)\n");
}

static const tool_command *
find_command(const char *name)
{
    for (size_t i = 0; i < TOOL_N_COMMANDS; i++)
        if (strcmp(tool_commands[i].name, name) == 0)
            return &tool_commands[i];
    return NULL;
}

static int
parse_backend(const char *text, votecl_backend *out)
{
    static const votecl_backend all[] = {VOTECL_BACKEND_OPENCL, VOTECL_BACKEND_CUDA,
                                         VOTECL_BACKEND_REF};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *name = votecl_backend_name(all[i]);
        if (name && strcmp(name, text) == 0) {
            *out = all[i];
            return 0;
        }
    }
    fprintf(stderr, "votecl: unknown backend '%s' (opencl, cuda, ref)\n", text);
    return -1;
}

int
tool_option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "votecl: option %s needs a value\n", name);
        return -1;
    }
    *i += 1;
    *value = argv[*i];
    return 1;
}

int
tool_option_range(int argc, char **argv, int *i, const char *name, unsigned long min,
                  unsigned long max, unsigned long *out)
{
    const char *v = NULL;
    int r = tool_option_value(argc, argv, i, name, &v);
    if (r <= 0)
        return r;
    return tool_parse_ulong(name, v, min, max, out) < 0 ? -1 : 1;
}

int
tool_option_ulong(int argc, char **argv, int *i, const char *name, unsigned long max,
                  unsigned long *out)
{
    return tool_option_range(argc, argv, i, name, 0, max, out);
}

int
tool_option_double(int argc, char **argv, int *i, const char *name, double *out)
{
    const char *v = NULL;
    int r = tool_option_value(argc, argv, i, name, &v);
    if (r <= 0)
        return r;
    return tool_parse_double(name, v, out) < 0 ? -1 : 1;
}

/* What each command that reads an image takes: the library call's largest side, and the
 * command's memory per pixel of the image beyond its decoded pixels: peak RSS less PoCL's
 * 110 MB over the pixels, measured with /usr/bin/time on PoCL (the library's and the
 * device's buffers are host memory there) at the largest image the default budget allows,
 * rounded up (docs/reliability.md, "The memory budget"). One row a command; batch uses its
 * algorithm's row. The GHT's is the library's own figure a pixel: its pairings and spaces,
 * which grow with the edges, are bounded by the budget passed as its memory_limit. */
static const struct {
    const char *command;
    size_t side;
    unsigned cost;
} image_limits[] = {
    {"hist", TOOL_IMAGE_MAX_SIDE, 4},                     /* 1 (8900 x 8900 gray: 185 MB) */
    {"vote", 65535, 16},                                  /* its compaction: locations and values */
    {"hough", VOTECL_HOUGH_MAX_SIDE, 12},                 /* 9.6 (5400 x 5400: 389 MB) */
    {"lines", VOTECL_LINES_MAX_SIDE, 20},                 /* 18.5 (4270 x 4270: 447 MB) */
    {"ght", VOTECL_GHT_MAX_SIDE, VOTECL_GHT_PIXEL_BYTES}, /* the library's figure */
    {"hog", VOTECL_HOG_MAX_SIDE, 400},                    /* 354 (970 x 970 RGB: 443 MB) */
    {"edges", VOTECL_EDGES_MAX_SIDE, 28},                 /* reckoned: Canny's arrays, stack */
};

void
tool_image_limits(const char *command)
{
    for (size_t i = 0; i < sizeof image_limits / sizeof image_limits[0]; i++)
        if (strcmp(image_limits[i].command, command) == 0) {
            tool_image_limit_side(image_limits[i].side);
            tool_image_cost(image_limits[i].cost);
        }
}

int
tool_common_option(tool_options *options, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    const char *value = NULL;
    int r;
    if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0)
        options->quiet = 1;
    else if (strcmp(arg, "--json") == 0)
        options->json = 1;
    else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
        options->help = 1;
    else if ((r = tool_option_value(argc, argv, i, "--backend", &value)) != 0)
        return r < 0 || parse_backend(value, &options->backend) < 0 ? -1 : 1;
    else if ((r = tool_option_value(argc, argv, i, "--device", &value)) != 0) {
        options->device = value;
        return r;
    } else if ((r = tool_option_value(argc, argv, i, "--memory-budget", &value)) != 0) {
        unsigned long mb = 0;
        if (r < 0 || tool_parse_ulong("--memory-budget", value, 16, 1ul << 24, &mb) < 0)
            return -1;
        tool_memory_budget_set((uint64_t)mb << 20);
        return 1;
    } else
        return 0;
    return 1;
}

int
tool_parse_ulong(const char *option, const char *text, unsigned long min, unsigned long max,
                 unsigned long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end != '\0' || text[0] == '-' || v < min || v > max) {
        fprintf(stderr, "votecl: %s wants a whole number in [%lu, %lu], not '%s'\n", option, min,
                max, text);
        return -1;
    }
    *out = v;
    return 0;
}

int
tool_parse_double(const char *option, const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || v != v) {
        fprintf(stderr, "votecl: %s wants a number, not '%s'\n", option, text);
        return -1;
    }
    *out = v;
    return 0;
}

int
tool_usage_error(const char *command, const char *format, ...)
{
    va_list ap;
    fprintf(stderr, "votecl %s: ", command);
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fprintf(stderr, " (votecl %s --help)\n", command);
    return TOOL_EXIT_USAGE;
}

int
tool_fail(const votecl_context *context, votecl_status status, const char *what)
{
    const char *detail = context ? votecl_context_get_error(context) : "";
    /* the library's memory limit is the tool's budget (tool_ght_memory_limit) */
    fprintf(stderr, "votecl: %s: %s%s%s%s\n", what, votecl_status_string(status),
            detail[0] ? ": " : "", detail,
            status == VOTECL_OUT_OF_RESOURCES ? " (--memory-budget MB raises it)" : "");
    /* A value the library refused is an invalid argument like one the tool refused: main()
     * turns the command's failure into TOOL_EXIT_USAGE. */
    if (status == VOTECL_INVALID_ARGUMENT) {
        tool_invalid_argument = 1;
        return TOOL_EXIT_USAGE;
    }
    return TOOL_EXIT_FAILURE;
}

void
tool_progress(const tool_options *options, const char *format, ...)
{
    va_list ap;
    if (options->quiet || !isatty(STDERR_FILENO))
        return;
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
}

/* What tool_json_header reports about the context. */
static char context_backend[32];
static char context_device[256];

void
tool_context_note(votecl_context *ctx)
{
    votecl_device_info info;
    const char *backend = votecl_backend_name(votecl_context_get_backend(ctx));
    snprintf(context_backend, sizeof context_backend, "%s", backend ? backend : "");
    if (votecl_context_get_device_info(ctx, &info) == VOTECL_OK)
        snprintf(context_device, sizeof context_device, "%s", info.name);
}

int
tool_context_open(const tool_options *options, votecl_context **out)
{
    votecl_context_options co;
    char error[1024] = "";
    votecl_context_options_init(&co);
    co.backend = options->backend;
    co.device = options->device;
    votecl_status st = votecl_context_new_with_error(&co, out, error, sizeof error);
    if (st == VOTECL_OK) {
        tool_context_note(*out);
        tool_build_progress_attach(options, *out);
        return TOOL_EXIT_OK;
    }
    fprintf(stderr, "votecl: cannot create a context: %s%s%s\n", votecl_status_string(st),
            error[0] ? ": " : "", error);
    if (st == VOTECL_INVALID_ARGUMENT) { /* --device or VOTECL_* naming nothing valid */
        tool_invalid_argument = 1;
        return TOOL_EXIT_USAGE;
    }
    return TOOL_EXIT_FAILURE;
}

double
tool_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

char *
tool_path_join(char *buffer, size_t size, const char *dir, const char *name)
{
    int n = snprintf(buffer, size, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= size ? NULL : buffer;
}

int
tool_make_directories(const char *path)
{
    char buffer[4096];
    if (snprintf(buffer, sizeof buffer, "%s", path) >= (int)sizeof buffer)
        return -1;
    for (char *p = buffer + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buffer, 0777) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buffer, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

static int
dir_has_images(const char *dir)
{
    char path[PATH_MAX];
    return tool_path_join(path, sizeof path, dir, "building.png") && access(path, R_OK) == 0;
}

/* The build-tree binary is tools/votecl, or tools/.libs/lt-votecl behind libtool's wrapper. */
static int
image_dir_beside_binary(char *out, size_t size)
{
    static const char *const relative[] = {"images", "../images"};
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    for (size_t i = 0; i < sizeof relative / sizeof relative[0]; i++)
        if (tool_path_join(out, size, exe, relative[i]) && dir_has_images(out))
            return 0;
    return -1;
}

const char *
tool_image_dir(const char *dir)
{
    static char found[PATH_MAX];
    if (dir)
        return dir;
    if (dir_has_images(VOTECL_IMAGEDIR))
        return VOTECL_IMAGEDIR;
    if (image_dir_beside_binary(found, sizeof found) == 0)
        return found;
    return VOTECL_IMAGEDIR;
}

const char *
tool_device_type_name(votecl_device_type type)
{
    switch (type) {
    case VOTECL_DEVICE_CPU: return "cpu";
    case VOTECL_DEVICE_GPU: return "gpu";
    case VOTECL_DEVICE_ACCELERATOR: return "accelerator";
    default: return "other";
    }
}

/* Argument *i, an option: the command's own (option), else a common one; neither is a usage
 * error "votecl COMMAND: WHAT 'ARG'". Returns TOOL_EXIT_OK or TOOL_EXIT_USAGE (said). */
static int
option_step(tool_options *options, const char *command, const char *what, tool_option_fn option,
            void *args, int argc, char **argv, int *i)
{
    int r = option(args, argc, argv, i);
    if (r == 0)
        r = tool_common_option(options, argc, argv, i);
    if (r == 0)
        return tool_usage_error(command, "%s '%s'", what, argv[*i]);
    return r > 0 ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
}

int
tool_parse_options(tool_options *options, const char *command, const char *what,
                   tool_option_fn option, void *args, int argc, char **argv)
{
    int rc = TOOL_EXIT_OK;
    for (int i = 1; i < argc && rc == TOOL_EXIT_OK; i++)
        rc = option_step(options, command, what, option, args, argc, argv, &i);
    return rc;
}

int
tool_command_option(tool_options *options, const char *command, tool_option_fn option, void *args,
                    int argc, char **argv, int *i)
{
    if (argv[*i][0] != '-' || argv[*i][1] == '\0')
        return 0;
    int rc = option_step(options, command, "unknown option", option, args, argc, argv, i);
    return rc == TOOL_EXIT_OK ? 1 : -1;
}

int
tool_parse_image_command(tool_options *options, const char *command, tool_option_fn option,
                         void *args, int argc, char **argv, const char **image_path)
{
    int positional = 0; /* after "--" */
    for (int i = 1; i < argc; i++) {
        if (!positional && strcmp(argv[i], "--") == 0) {
            positional = 1;
            continue;
        }
        if (positional) {
            if (*image_path)
                return tool_usage_error(command, "one image only ('%s')", argv[i]);
            *image_path = argv[i];
            continue;
        }
        int r = tool_command_option(options, command, option, args, argc, argv, &i);
        if (r < 0)
            return TOOL_EXIT_USAGE;
        if (r > 0)
            continue;
        if (*image_path)
            return tool_usage_error(command, "one image only ('%s')", argv[i]);
        *image_path = argv[i];
    }
    if (!options->help && !*image_path)
        return tool_usage_error(command, "IMAGE missing");
    return TOOL_EXIT_OK;
}

int
tool_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int
tool_image_command_run(tool_options *options, const tool_image_command *c, void *args,
                       const char **image_path, int argc, char **argv)
{
    tool_image image = {0};
    votecl_context *ctx = NULL;
    char error[600];
    int rc = tool_parse_image_command(options, c->name, c->option, args, argc, argv, image_path);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        c->usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (c->check != NULL && (rc = c->check(args)) != TOOL_EXIT_OK)
        return rc;
    if (c->max_side != 0)
        tool_image_limit_side(c->max_side); /* larger is refused before decoding */
    else
        tool_image_limits(c->name); /* an image over them is refused from its header */
    if (tool_image_read(*image_path, &image, error, sizeof error) < 0) {
        fprintf(stderr, "votecl %s: %s\n", c->name, error);
        return TOOL_EXIT_FAILURE;
    }
    if (c->load != NULL && (rc = c->load(args, &image)) != TOOL_EXIT_OK)
        goto out;
    if ((rc = tool_context_open(options, &ctx)) == TOOL_EXIT_OK) {
        tool_progress(options, "votecl %s: %s, %zux%zu\n", c->name, *image_path, image.width,
                      image.height);
        rc = c->run(options, ctx, args, &image);
    }
out:
    votecl_context_free(ctx);
    tool_image_free(&image);
    return rc;
}

int
tool_write_annotated(const char *command, const char *path, tool_image *out, int made, char *error,
                     size_t size)
{
    int rc = TOOL_EXIT_OK;
    if (made < 0 || tool_image_write(path, out, error, size) < 0) {
        fprintf(stderr, "votecl %s: %s\n", command, error);
        rc = TOOL_EXIT_FAILURE;
    }
    tool_image_free(out);
    return rc;
}

int
tool_image_command_start(tool_options *options, const char *command, tool_option_fn option,
                         void *args, void (*usage)(FILE *), int argc, char **argv,
                         const char **image_path, tool_image *image)
{
    char error[600];
    int rc = tool_parse_image_command(options, command, option, args, argc, argv, image_path);

    if (rc != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        usage(stdout);
        return TOOL_EXIT_OK;
    }
    tool_image_limits(command); /* an image over them is refused from its header */
    if (tool_image_read(*image_path, image, error, sizeof error) < 0) {
        fprintf(stderr, "votecl %s: %s\n", command, error);
        return TOOL_EXIT_FAILURE;
    }
    return TOOL_EXIT_OK;
}

/* A plan description as a JSON object. */
void
tool_json_plan_info(tool_json *j, const votecl_vote_plan_info *info)
{
    tool_json_begin_object(j);
    tool_json_kv_string(j, "variant", votecl_variant_name(info->variant));
    tool_json_kv_uint(j, "nbins", info->nbins);
    tool_json_kv_uint(j, "spaces", info->spaces);
    tool_json_kv_uint(j, "nmax", info->nmax);
    tool_json_kv_uint(j, "stretch", info->stretch);
    tool_json_kv_uint(j, "stretch_s", info->stretch_s);
    tool_json_kv_uint(j, "parts", info->parts);
    tool_json_kv_uint(j, "passes", info->passes);
    tool_json_kv_uint(j, "copies", info->copies);
    tool_json_kv_uint(j, "work_group_size", info->work_group_size);
    tool_json_kv_double(j, "predicted_seconds", info->predicted_seconds);
    tool_json_kv_uint(j, "launches", info->launches);
    tool_json_kv_uint(j, "resident", info->resident);
    tool_json_kv_uint(j, "footprint", info->footprint);
    tool_json_end_object(j);
}

/* Standard output must have reached its file: "votecl hist x.png > /dev/full" fails. */
static int
finish_stdout(int code)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int saved = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        fprintf(stderr, "votecl: write error on standard output: %s\n", strerror(saved));
        return code == TOOL_EXIT_OK ? TOOL_EXIT_FAILURE : code;
    }
    return code;
}

static int
run_command(const tool_command *command, tool_options *options, int argc, char **argv)
{
    int code = command->run(options, argc, argv);
    if (code == TOOL_EXIT_FAILURE && tool_invalid_argument)
        code = TOOL_EXIT_USAGE;
    return finish_stdout(code);
}

void
tool_json_header_fields(tool_json *j, const char *command, const char *backend, const char *device)
{
    tool_json_kv_int(j, "schema", TOOL_JSON_SCHEMA);
    tool_json_kv_string(j, "votecl", PACKAGE_VERSION);
    tool_json_kv_string(j, "library", votecl_version_string());
    tool_json_kv_string(j, "command", command);
    tool_json_kv_string(j, "backend", backend);
    tool_json_kv_string(j, "device", device);
}

void
tool_json_input(tool_json *j, const char *path, size_t width, size_t height, unsigned channels,
                votecl_dtype dtype)
{
    tool_json_begin_object(j);
    tool_json_kv_string(j, "path", path);
    tool_json_kv_uint(j, "width", width);
    tool_json_kv_uint(j, "height", height);
    tool_json_kv_uint(j, "channels", channels);
    tool_json_kv_string(j, "dtype", tool_dtype_name(dtype));
    tool_json_end_object(j);
}

void
tool_json_header(tool_json *j, const char *command)
{
    const tool_image_record *images;
    size_t n = tool_images_read(&images);
    tool_json_header_fields(j, command, context_backend[0] ? context_backend : NULL,
                            context_backend[0] ? context_device : NULL);
    tool_json_key(j, "inputs");
    tool_json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        tool_json_input(j, images[i].path, images[i].width, images[i].height, images[i].channels,
                        images[i].dtype);
    tool_json_end_array(j);
}

void
tool_json_document(tool_json *j, FILE *file, const char *command)
{
    tool_json_init(j, file);
    tool_json_begin_object(j);
    tool_json_header(j, command);
}

void
tool_json_document_end(tool_json *j)
{
    tool_json_end_object(j); /* results */
    tool_json_end_object(j);
    tool_json_finish(j);
}

void
tool_json_parameters(tool_json *j)
{
    tool_json_key(j, "parameters");
    tool_json_begin_object(j);
}

void
tool_json_results(tool_json *j)
{
    tool_json_end_object(j);
    tool_json_key(j, "results");
    tool_json_begin_object(j);
}

int
main(int argc, char **argv)
{
    tool_options options = {.backend = VOTECL_BACKEND_DEFAULT};
    options.start_seconds = tool_now();
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--version") == 0) {
            printf("votecl %s (libvotecl %s, JSON schema %d)\n", PACKAGE_VERSION,
                   votecl_version_string(), TOOL_JSON_SCHEMA);
            return finish_stdout(TOOL_EXIT_OK);
        }
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        int r = tool_common_option(&options, argc, argv, &i);
        if (r < 0)
            return TOOL_EXIT_USAGE;
        if (r == 0) {
            fprintf(stderr, "votecl: unknown option '%s'\n", argv[i]);
            print_usage(stderr);
            return TOOL_EXIT_USAGE;
        }
    }
    if (i >= argc) {
        print_usage(options.help ? stdout : stderr);
        return options.help ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
    }
    const tool_command *command = find_command(argv[i]);
    if (!command) {
        fprintf(stderr, "votecl: unknown command '%s'\n", argv[i]);
        print_usage(stderr);
        return TOOL_EXIT_USAGE;
    }
    return run_command(command, &options, argc - i, argv + i);
}
