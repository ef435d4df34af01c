/* votecl demo: the README's main job. For every image of a directory, runs the demo steps of
 * every algorithm (tools/algorithms.h, each algorithm's in tools/algo-<name>.c) on the default
 * device, prints a short summary per step and writes annotated PNGs. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "algorithms.h"
#include "plot.h"
#include "tool.h"

#define DEMO_MAX_IMAGES 256

typedef tool_demo demo;
typedef tool_demo_image demo_image;

static void
demo_usage(FILE *f)
{
    fprintf(f,
            "usage: votecl demo [--images DIR] [--out DIR]\n"
            "Runs every step on every PNG/PGM/PPM image of DIR (default: the installed\n"
            "images, %s) on the default device, prints a summary and writes annotated\n"
            "PNGs into --out (default ./votecl-demo). Steps:\n",
            VOTECL_IMAGEDIR);
    for (size_t a = 0; tool_algorithms[a] != NULL; a++)
        for (size_t i = 0; i < tool_algorithms[a]->ndemo; i++)
            fprintf(f, "  %-8s %s\n", tool_algorithms[a]->demo[i].name,
                    tool_algorithms[a]->demo[i].help);
}

/* --- small helpers --- */

static int
is_image_name(const char *name)
{
    static const char *const suffixes[] = {".png", ".pgm", ".ppm", ".pnm"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (n > 4 && strcasecmp(name + n - 4, suffixes[i]) == 0)
            return 1;
    return 0;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The image file names of dir, sorted; malloc'ed strings in names (caller frees). */
static int
list_images(const char *dir, char **names, size_t capacity, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    *n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) && *n < capacity)
        if (is_image_name(e->d_name) && (names[*n] = strdup(e->d_name)))
            *n += 1;
    closedir(d);
    qsort(names, *n, sizeof names[0], compare_names);
    return 0;
}

int
tool_demo_write_image(const demo *d, const tool_image *canvas, const char *stem, const char *step,
                      char *path, size_t size)
{
    char name[256], error[600] = "";
    snprintf(name, sizeof name, "%s-%s.png", stem, step);
    if (!tool_path_join(path, size, d->out_dir, name))
        snprintf(error, sizeof error, "output path too long (over %zu bytes): %s/%s", size - 1,
                 d->out_dir, name);
    if (error[0] || tool_image_write(path, canvas, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        return -1;
    }
    return 0;
}

/* Captions an annotated image with note, writes it as <stem>-<step>.png, says so and frees
 * it. */
tool_demo_result
tool_demo_write_captioned(const demo *d, int made, tool_image *canvas, const char *error,
                          const char *stem, const char *step, const char *note)
{
    static const unsigned char white[3] = {255, 255, 255};
    char path[4096];
    tool_demo_result result = TOOL_DEMO_FAILED;

    if (made < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
    } else {
        if (note != NULL)
            tool_plot_text(canvas, 4, 4, note, 1, white);
        if (tool_demo_write_image(d, canvas, stem, step, path, sizeof path) == 0) {
            printf("    wrote %s\n", path);
            result = TOOL_DEMO_DONE;
        }
    }
    tool_image_free(canvas);
    return result;
}

/* --- 1-D histogram steps --- */

/* --- the driver --- */

static int
demo_image_load(demo *d, const char *file, demo_image *im)
{
    char path[4096], error[600] = "path too long";
    memset(im, 0, sizeof *im);
    im->file = file;
    snprintf(im->stem, sizeof im->stem, "%s", file);
    char *dot = strrchr(im->stem, '.');
    if (dot)
        *dot = '\0';
    if (!tool_path_join(path, sizeof path, d->image_dir, file) ||
        tool_image_read(path, &im->image, error, sizeof error) < 0 ||
        tool_image_to_gray(&im->image, &im->gray, error, sizeof error) < 0) {
        fprintf(stderr, "votecl demo: %s\n", error);
        tool_image_free(&im->image);
        return -1;
    }
    return 0;
}

/* Runs every step on one image; returns the number of failed steps. */
static int
demo_one_image(demo *d, const char *file)
{
    demo_image im;
    int failures = 0;
    if (demo_image_load(d, file, &im) < 0)
        return 1;
    printf("%s: %zux%zu, %u channel(s), %s\n", file, im.image.width, im.image.height,
           im.image.channels, tool_dtype_name(im.image.dtype));
    for (size_t a = 0; tool_algorithms[a] != NULL; a++) {
        for (size_t s = 0; s < tool_algorithms[a]->ndemo; s++) {
            const tool_demo_step *step = &tool_algorithms[a]->demo[s];
            tool_progress(d->options, "votecl demo: %s: %s\n", file, step->name);
            failures += step->run(d, &im) == TOOL_DEMO_FAILED;
        }
    }
    tool_image_free(&im.image);
    tool_image_free(&im.gray);
    return failures;
}

static int
demo_option(void *args, int argc, char **argv, int *i)
{
    demo *d = args;
    const char *v = NULL;
    int r = tool_option_value(argc, argv, i, "--images", &v);
    if (r > 0)
        d->image_dir = v;
    if (r == 0 && (r = tool_option_value(argc, argv, i, "--out", &v)) > 0)
        d->out_dir = v;
    return r;
}


static void
print_device(votecl_context *ctx)
{
    votecl_device_info info;
    votecl_context_get_device_info(ctx, &info);
    printf("device: %s (%s, %s backend, %u compute units, Nmax %llu)\n", info.name,
           tool_device_type_name(info.type), votecl_backend_name(votecl_context_get_backend(ctx)),
           info.compute_units, (unsigned long long)(info.local_mem_bytes / 4));
}

static int
same_directory(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int
demo_run(demo *d)
{
    char *names[DEMO_MAX_IMAGES];
    size_t n = 0;
    int failures = 0;
    if (list_images(d->image_dir, names, DEMO_MAX_IMAGES, &n) < 0 || n == 0) {
        fprintf(stderr, "votecl demo: no PNG/PGM/PPM images in %s (try --images DIR)\n",
                d->image_dir);
        return TOOL_EXIT_FAILURE;
    }
    if (tool_make_directories(d->out_dir) < 0) {
        fprintf(stderr, "votecl demo: cannot create %s: %s\n", d->out_dir, strerror(errno));
        failures = 1;
        goto out;
    }
    if (same_directory(d->image_dir, d->out_dir)) {
        fprintf(stderr,
                "votecl demo: --out %s is the --images directory: its images would be "
                "overwritten\n",
                d->out_dir);
        failures = -1;
        goto out;
    }
    /* Outputs never replace an input, also one reached another way (a link) */
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        if (tool_path_join(path, sizeof path, d->image_dir, names[i]))
            tool_input_note(path);
    }
    print_device(d->ctx);
    printf("images: %s\noutput: %s\n", d->image_dir, d->out_dir);
    for (size_t i = 0; i < n; i++)
        failures += demo_one_image(d, names[i]);
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    if (failures < 0)
        return TOOL_EXIT_USAGE;
    if (failures)
        fprintf(stderr, "votecl demo: %d step(s) failed\n", failures);
    return failures ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
}

int
tool_cmd_demo(tool_options *options, int argc, char **argv)
{
    demo d = {.options = options, .out_dir = "votecl-demo"};
    int rc =
        tool_parse_options(options, "demo", "unexpected argument", demo_option, &d, argc, argv);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        demo_usage(stdout);
        return TOOL_EXIT_OK;
    }
    d.image_dir = tool_image_dir(d.image_dir);
    if ((rc = tool_context_open(options, &d.ctx)) != TOOL_EXIT_OK)
        return rc;
    rc = demo_run(&d);
    votecl_context_free(d.ctx);
    return rc;
}
