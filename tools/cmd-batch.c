/* votecl batch: one algorithm over a collection (images, directories, list files, videos),
 * every device of the host through votecl_batch (lib/batch.c), MPI ranks across hosts when
 * built with Open MPI and started by mpirun. Output: JSON Lines in input order, one record an
 * item, flushed as written, so a rerun with the same --out continues where the last stopped.
 *
 * Each algorithm's case is in its descriptor (tool_batch_case, tools/algo-<name>.c): its
 * options, the image form it wants and its work, which calls the same shared helper as its
 * single-image command (tool_lines_compute, tool_hog_detect, ...), so a record's results are
 * that command's for the same image. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <votecl/votecl-batch.h>

#ifdef HAVE_MPI
#include <mpi.h>
#endif

#include "batch-out.h"
#include "batch-source.h"
#include "grow.h"
#include "algorithms.h"
#include "json.h"
#include "options.h"
#include "tool.h"

#define BATCH_MAX_SHOWN 1000

/* --- the cases: one per algorithm (tools/algorithms.h, each in tools/algo-<name>.c) --- */

/* Room for any case's arguments (tool_batch_case.args_size, checked). */
#define BATCH_ARGS_MAX 1024

typedef tool_batch_case batch_case;

/* The batch case of the algorithm called name, NULL when none has one. */
static const tool_algorithm *
find_case(const char *name)
{
    const tool_algorithm *algo = tool_algorithm_find(name);
    if (algo == NULL || algo->batch == NULL || algo->batch->args_size > BATCH_ARGS_MAX)
        return NULL;
    return algo;
}

/* "hist, hough, ...": the algorithms with a batch case. */
static const char *
case_names(void)
{
    static char names[256];
    size_t n = 0;

    for (size_t i = 0; tool_algorithms[i] != NULL && n < sizeof names; i++)
        if (tool_algorithms[i]->batch != NULL)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                                  tool_algorithms[i]->name);
    return names;
}

/* --- arguments --- */

typedef struct batch_args {
    const char *name; /* the algorithm's */
    const batch_case *c;
    union {
        max_align_t align;
        unsigned char bytes[BATCH_ARGS_MAX];
    } case_args;
    char **inputs;
    int ninputs;
    const char *list_path, *out_path, *frames_dir, *annotate_dir, *devices;
    batch_source_options source;
    unsigned long streams, max_devices, depth;
    unsigned long repeat; /* --repeat: the preloaded collection this many times */
    int overwrite, features, preload;
    char *run; /* owned: the algorithm and its options as given, in every record */
    size_t run_size;
} batch_args;

static void
batch_usage(FILE *f)
{
    fprintf(
        f,
        "usage: votecl batch ALGORITHM [its options] [--out FILE.jsonl] [--overwrite]\n"
        "                    [--list FILE] [--video] [--every N] [--start S] [--end S]\n"
        "                    [--decode-threads N]\n"
        "                    [--devices platform:type] [--max-devices N] [--streams N]\n"
        "                    [--depth N] [--preload] [--repeat N] [--annotate DIR] [--frames DIR]\n"
        "                    [--features] INPUT...\n"
        "One algorithm over a collection on every device of the host (and every MPI\n"
        "rank under mpirun): INPUT is an image (PNG, JPEG, PGM, PPM), a directory of images\n"
        "and videos (sorted by name) or a video file (FFmpeg). JSON Lines out, one\n"
        "record an image or frame, in input order: source, frame, timestamp, results\n"
        "(the single-image command's), seconds, worker. With --out, a rerun continues\n"
        "after the records already there.\n"
        "  --out FILE          the records (default: standard output, no resuming)\n"
        "  --overwrite         start --out afresh instead of continuing it\n"
        "  --list FILE         more inputs, one path a line\n"
        "  --video             every file is a video, whatever its name\n"
        "  --every N           video: frames whose index is a multiple of N\n"
        "  --start S, --end S  video: frames with S <= timestamp < E (seconds)\n"
        "  --decode-threads N  video decoder threads (default 0: one a core)\n"
        "  --devices SEL       devices \"platform:type\" (default: every GPU, else all)\n"
        "  --max-devices N     at most N devices (0: all)\n"
        "  --streams N         contexts per device overlapping transfers (default 2)\n"
        "  --depth N           items read ahead (default 2 per context + 1)\n"
        "  --preload           decode the whole collection into memory first (its rate\n"
        "                      on stderr), then run from memory\n"
        "  --repeat N          run the preloaded collection N times (throughput; 0:\n"
        "                      decode only)\n"
        "  --annotate DIR      the results drawn on each image, DIR/NNNNNN.png (not hist)\n"
        "  --frames DIR        also write every processed image as DIR/NNNNNN.pgm|ppm\n"
        "  --features          print what this build can do (video, mpi) and exit\n"
        "Algorithms and their options:\n");
    for (size_t i = 0; tool_algorithms[i] != NULL; i++)
        if (tool_algorithms[i]->batch != NULL)
            fprintf(f, "  %-6s %s\n", tool_algorithms[i]->name, tool_algorithms[i]->batch->options);
}

/* The command's own plain options. */
static const tool_option_spec batch_options[] = {
    TOOL_OPT_FLAG(batch_args, preload, "--preload"),
    TOOL_OPT_FLAG(batch_args, overwrite, "--overwrite"),
    TOOL_OPT_FLAG(batch_args, source.force_video, "--video"),
    TOOL_OPT_FLAG(batch_args, features, "--features"),
    TOOL_OPT_STRING(batch_args, out_path, "--out"),
    TOOL_OPT_STRING(batch_args, list_path, "--list"),
    TOOL_OPT_STRING(batch_args, annotate_dir, "--annotate"),
    TOOL_OPT_STRING(batch_args, frames_dir, "--frames"),
    TOOL_OPT_STRING(batch_args, devices, "--devices"),
    TOOL_OPT_RANGE(batch_args, source.every, "--every", 1, 1000000),
    TOOL_OPT_RANGE(batch_args, streams, "--streams", 1, 16),
    TOOL_OPT_NUMBER(batch_args, source.decode_threads, "--decode-threads", 256),
    TOOL_OPT_NUMBER(batch_args, max_devices, "--max-devices", 256),
    TOOL_OPT_NUMBER(batch_args, depth, "--depth", 4096),
    TOOL_OPT_DOUBLE(batch_args, source.start, "--start"),
    TOOL_OPT_DOUBLE(batch_args, source.end, "--end"),
};

static int
batch_own_option(batch_args *a, int argc, char **argv, int *i)
{
    int r;
    if ((r = tool_option_range(argc, argv, i, "--repeat", 0, 1000000, &a->repeat)) != 0)
        return r < 0 ? r : (a->preload = 1); /* --repeat runs the preloaded collection */
    return tool_option_table(batch_options, TOOL_OPTION_COUNT(batch_options), a, argc, argv, i);
}

/* Appends an argument to a->run, "--x=v" as "--x v" (one spelling of the same options). */
static int
run_append(batch_args *a, const char *arg)
{
    size_t used = a->run ? strlen(a->run) : 0, n = strlen(arg);
    char *eq;
    if (used + n + 2 > a->run_size) {
        size_t grown = 2 * (used + n + 2);
        char *p = realloc(a->run, grown);
        if (p == NULL)
            return -1;
        a->run = p;
        a->run_size = grown;
    }
    snprintf(a->run + used, a->run_size - used, "%s%s", used ? " " : "", arg);
    eq = strncmp(arg, "--", 2) == 0 ? strchr(a->run + used, '=') : NULL;
    if (eq != NULL)
        *eq = ' ';
    return 0;
}

/* The algorithm's option argv[first..last] (its value included) into a->run: 1, or -1. */
static int
run_append_from(batch_args *a, char **argv, int first, int last)
{
    for (int k = first; k <= last; k++)
        if (run_append(a, argv[k]) < 0)
            return -1;
    return 1;
}

static int
batch_parse(tool_options *options, batch_args *a, int argc, char **argv)
{
    a->source.every = 1;
    a->source.end = -1;
    a->repeat = 1;
    if (argc < 2 || argv[1][0] == '-') {
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "--features") == 0)
                return a->features = 1, TOOL_EXIT_OK;
            if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
                return options->help = 1, TOOL_EXIT_OK;
        }
        return tool_usage_error("batch", "ALGORITHM missing (%s)", case_names());
    }
    const tool_algorithm *algo = find_case(argv[1]);
    if (algo == NULL)
        return tool_usage_error("batch", "unknown algorithm '%s'", argv[1]);
    a->name = algo->name;
    a->c = algo->batch;
    a->c->init(&a->case_args);
    if ((a->inputs = calloc((size_t)argc, sizeof *a->inputs)) == NULL)
        return TOOL_EXIT_FAILURE;
    if (run_append(a, argv[1]) < 0)
        return TOOL_EXIT_FAILURE;
    for (int i = 2; i < argc; i++) {
        int r = 0, first = i;
        if (argv[i][0] != '-' || argv[i][1] == '\0') {
            a->inputs[a->ninputs++] = argv[i];
            continue;
        }
        if ((r = batch_own_option(a, argc, argv, &i)) == 0) {
            if ((r = a->c->option(&a->case_args, argc, argv, &i)) > 0)
                r = run_append_from(a, argv, first, i);
            else if (r == 0)
                r = tool_common_option(options, argc, argv, &i);
        }
        if (r < 0)
            return TOOL_EXIT_USAGE;
        if (r == 0)
            return tool_usage_error("batch", "unknown option '%s' for %s", argv[i], a->name);
    }
    if (!options->help && !a->features && a->ninputs == 0 && a->list_path == NULL)
        return tool_usage_error("batch", "no INPUT");
    return TOOL_EXIT_OK;
}

/* --- ranks: one process, or MPI --- */

typedef struct batch_ranks {
    int rank, size;
    int mpi; /* MPI_Init was called here */
} batch_ranks;

static int
ranks_init(batch_ranks *r, int *argc, char ***argv)
{
    r->rank = 0;
    r->size = 1;
    r->mpi = 0;
#ifdef HAVE_MPI
    /* under mpirun only: a plain run never starts MPI's run time */
    if (getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL) {
        int provided = 0;
        if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return -1;
        r->mpi = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
        MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    }
#endif
    return 0;
}

/* This rank's index among the ranks of its host: its device. */
static int
ranks_local(const batch_ranks *r)
{
#ifdef HAVE_MPI
    if (r->mpi) {
        MPI_Comm local;
        int rank = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &local);
        MPI_Comm_rank(local, &rank);
        MPI_Comm_free(&local);
        return rank;
    }
#endif
    (void)r;
    return 0;
}

static void
ranks_finish(batch_ranks *r, int failed)
{
#ifdef HAVE_MPI
    if (r->mpi) {
        if (failed && r->size > 1)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Finalize();
    }
#endif
    (void)r;
    (void)failed;
}

static uint64_t
ranks_broadcast(const batch_ranks *r, uint64_t value)
{
#ifdef HAVE_MPI
    if (r->mpi && r->size > 1) {
        unsigned long long v = value;
        MPI_Bcast(&v, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        return v;
    }
#endif
    (void)r;
    return value;
}

/* --- the run --- */

typedef struct batch_item {
    batch_item_meta meta;
    char *source;    /* owned copy of meta.source */
    uint64_t global; /* index among the items this run does (all ranks) */
    tool_image image;
    int borrowed;    /* image belongs to the preloaded item this copies */
    char error[600]; /* reading failed: the record carries this */
} batch_item;

typedef struct batch_result {
    char *json; /* owned: header, inputs, parameters and results, one line in braces */
    char error[600];
    double seconds;
    double finished; /* tool_now() when the worker finished it */
} batch_result;

typedef struct batch_state {
    batch_args *a;
    const tool_options *options;
    batch_ranks ranks;
    batch_source *source;
    batch_out out;         /* rank 0: --out, locked, and the records already there */
    uint64_t done;         /* records already in --out */
    uint64_t seen;         /* items walked by the loader, done ones included */
    uint64_t global_total; /* items of this run, all ranks (known when the loader ends) */
    uint64_t written;      /* records of this run written (rank 0) */
    double t0;
    double open_seconds; /* opening the devices (contexts): start-up included counts it */
    /* start-up excluded: the items a worker finished after every worker had finished its first
     * (its plans built, its kernels compiled or loaded), over the time from then to the last
     * item finished. Finish times, not emission: records leave in input order, so a worker
     * slow to start holds back the items the others finished meanwhile and would release them
     * at once (a rate of tens of thousands a second). A worker's first item is the first it
     * finishes (workers take items in order), so the start-up's end is known once each
     * worker's first item is emitted; the finish times of the items emitted before that are
     * kept until then (a few: their indices are below the last worker's first). */
    unsigned char *warm; /* owned: 1 for each worker that emitted an item */
    unsigned warmed;     /* workers that did */
    double t_warm;       /* the latest of their first items' finish times */
    double t_last;       /* the latest finish time of an item emitted */
    double *early;       /* owned: finish times of items emitted before every worker's first */
    size_t nearly, early_cap;
    int early_lost;      /* out of memory for early: no start-up excluded rate */
    uint64_t emitted;    /* this process's items emitted */
    uint64_t after_warm; /* ... finished after t_warm (counted once t_warm is known) */
    uint64_t failed;     /* this process's items emitted with an error */
    int loader_ended;
    votecl_batch *batch;
    void **states;          /* owned: each worker's state for the case */
    batch_item **preloaded; /* owned: --preload's items */
    size_t npreloaded, next_preloaded;
} batch_state;

/* {"source":"...","frame":N,"batch":"ALGORITHM OPTIONS", : the start of a record, its key
 * for resuming (the same item by the same algorithm with the same options). run NULL: only
 * the source and frame. */
static char *
record_key(const batch_item_meta *m, const char *run)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    tool_json j;
    if (f == NULL)
        return NULL;
    tool_json_init(&j, f);
    fputs("{\"source\":", f);
    tool_json_string(&j, m->source);
    fprintf(f, ",\"frame\":%ld,", m->frame);
    if (run != NULL) {
        fputs("\"batch\":", f);
        tool_json_string(&j, run);
        fputc(',', f);
    }
    fclose(f);
    return buf;
}

static void
item_free(batch_item *it)
{
    if (it == NULL)
        return;
    if (!it->borrowed)
        tool_image_free(&it->image);
    free(it->source);
    free(it);
}

static int
mine(const batch_state *s, uint64_t global)
{
    return (int)(global % (uint64_t)s->ranks.size) == s->ranks.rank;
}

/* Whether record k of --out starts with key. */
static int
record_starts_with(batch_state *s, uint64_t k, const char *key)
{
    size_t n = strlen(key);
    char *buf = malloc(n + 1);
    int same = buf != NULL && batch_out_record(&s->out, k, buf, n + 1) == (long)n &&
               memcmp(buf, key, n) == 0;
    free(buf);
    return same;
}

/* A record already in --out must name the same item as the walk, made by the same algorithm
 * with the same options (docs/batch.md, "Resuming"). */
static votecl_status
check_done(batch_state *s, const batch_item_meta *m, uint64_t k)
{
    char *item = record_key(m, NULL), *key = record_key(m, s->a->run);
    int same_item = item != NULL && record_starts_with(s, k, item);
    int same = same_item && key != NULL && record_starts_with(s, k, key);
    if (!same_item)
        fprintf(stderr,
                "votecl batch: %s: record %llu is not %s frame %ld: this output belongs to "
                "another collection (use --overwrite or another --out)\n",
                s->a->out_path, (unsigned long long)k + 1, m->source, m->frame);
    else if (!same)
        fprintf(stderr,
                "votecl batch: %s: record %llu was not made by \"%s\": this output belongs to "
                "another algorithm or options, or an older votecl (use --overwrite or another "
                "--out)\n",
                s->a->out_path, (unsigned long long)k + 1, s->a->run);
    free(item);
    free(key);
    return same ? VOTECL_OK : VOTECL_INVALID_ARGUMENT;
}

static votecl_status walk_next(batch_state *s, batch_item **out);

/* --preload: the next copy of a preloaded item, its image borrowed. */
static votecl_status
replay_next(batch_state *s, batch_item **out)
{
    size_t n = s->npreloaded, k = s->next_preloaded;
    const batch_item *p;
    batch_item *it;
    *out = NULL;
    if (n == 0 || k / n >= s->a->repeat)
        return VOTECL_OK;
    p = s->preloaded[k % n];
    if ((it = calloc(1, sizeof *it)) == NULL || (it->source = strdup(p->source)) == NULL) {
        free(it);
        return VOTECL_OUT_OF_HOST_MEMORY;
    }
    it->meta = p->meta;
    it->meta.source = it->source;
    it->global = (uint64_t)(k / n) * s->global_total + p->global;
    it->image = p->image;
    it->borrowed = 1;
    memcpy(it->error, p->error, sizeof it->error);
    s->next_preloaded++;
    *out = it;
    return VOTECL_OK;
}

static votecl_status
batch_load(void *user, uint64_t index, void **out)
{
    batch_state *s = user;
    (void)index;
    if (s->preloaded != NULL)
        return replay_next(s, (batch_item **)out);
    return walk_next(s, (batch_item **)out);
}

/* Reads the whole collection (this rank's share) before the run: decoding's own rate. */
static votecl_status
preload(batch_state *s)
{
    size_t cap = 0;
    double t0 = tool_now();
    /* every image is held at once: all of them within the process's memory budget */
    uint64_t held = 0, budget = tool_memory_budget() * votecl_batch_workers(s->batch);
    for (;;) {
        batch_item *it = NULL;
        votecl_status st = walk_next(s, &it);
        if (st == VOTECL_OK && it != NULL && !it->borrowed &&
            (held += (uint64_t)it->image.stride * it->image.height) > budget) {
            fprintf(stderr,
                    "votecl batch: --preload: the collection's images take over the memory "
                    "budget of %llu MB (--memory-budget MB raises it)\n",
                    (unsigned long long)(budget >> 20));
            item_free(it);
            return VOTECL_INVALID_ARGUMENT;
        }
        if (st != VOTECL_OK || it == NULL) {
            if (s->preloaded == NULL && st == VOTECL_OK)
                s->preloaded = calloc(1, sizeof *s->preloaded); /* none: an empty replay */
            if (!s->options->quiet)
                fprintf(stderr,
                        "votecl batch: read and decoded %zu item(s) in %.3f s: %.1f "
                        "items/s\n",
                        s->npreloaded, tool_now() - t0, (double)s->npreloaded / (tool_now() - t0));
            s->loader_ended = 0;
            /* replays number their items on: item k of replay r is r * total + k */
            return st == VOTECL_OK && s->preloaded == NULL ? VOTECL_OUT_OF_HOST_MEMORY : st;
        }
        size_t need = s->npreloaded + 1;
        if (tool_grow((void **)&s->preloaded, &cap, need, sizeof *s->preloaded, 64) != 0) {
            item_free(it);
            return VOTECL_OUT_OF_HOST_MEMORY;
        }
        s->preloaded[s->npreloaded++] = it;
    }
}

static votecl_status
walk_next(batch_state *s, batch_item **out)
{
    *out = NULL;
    for (;;) {
        batch_item *it = calloc(1, sizeof *it);
        uint64_t seen = s->seen;
        int want, rc;
        if (it == NULL)
            return VOTECL_OUT_OF_HOST_MEMORY;
        want = seen >= s->done && mine(s, seen - s->done);
        rc = batch_source_next(s->source, want, &it->meta, &it->image, it->error, sizeof it->error);
        if (rc == 0) {
            item_free(it);
            s->global_total = s->seen > s->done ? s->seen - s->done : 0;
            s->loader_ended = 1;
            return VOTECL_OK;
        }
        s->seen++;
        if (seen < s->done && s->ranks.rank == 0 && check_done(s, &it->meta, seen) != VOTECL_OK) {
            item_free(it);
            return VOTECL_INVALID_ARGUMENT;
        }
        if (!want) {
            item_free(it);
            continue;
        }
        if (rc < 0 && it->error[0] == '\0')
            snprintf(it->error, sizeof it->error, "unreadable");
        it->global = seen - s->done;
        it->source = strdup(it->meta.source);
        it->meta.source = it->source;
        *out = it;
        return it->source != NULL ? VOTECL_OK : VOTECL_OUT_OF_HOST_MEMORY;
    }
}

/* The shared JSON header of one item (the document votecl ALGO would write for it, its command
 * the case's), then the case's parameters and results. */
static votecl_status
compute_json(const batch_args *a, votecl_context *ctx, void **state, const batch_item *it,
             batch_result *r, tool_image *annotated)
{
    const tool_image *image = &it->image;
    const char *backend = votecl_backend_name(votecl_context_get_backend(ctx));
    votecl_device_info info;
    size_t size = 0;
    FILE *f = open_memstream(&r->json, &size);
    tool_json j;
    votecl_status st;
    if (f == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    tool_json_init(&j, f);
    j.compact_depth = 1; /* one line: JSON Lines */
    tool_json_begin_object(&j);
    tool_json_header_fields(&j, a->name, backend,
                            votecl_context_get_device_info(ctx, &info) == VOTECL_OK ? info.name
                                                                                    : NULL);
    tool_json_key(&j, "inputs");
    tool_json_begin_array(&j);
    tool_json_input(&j, it->source, image->width, image->height, image->channels, image->dtype);
    tool_json_end_array(&j);
    st = a->c->compute(&a->case_args, ctx, state, image, &j, &r->seconds, annotated);
    while (j.depth > 0) /* "results" and the record; fewer where the case failed early */
        tool_json_end_object(&j);
    fclose(f);
    return st;
}

/* --annotate: the picture the case drew, as DIR/NNNNNN.png (the item's number in --out). */
static votecl_status
write_annotated(const batch_state *s, const batch_item *it, const tool_image *image,
                batch_result *r)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%06llu.png", s->a->annotate_dir,
                 (unsigned long long)(s->done + it->global)) >= (int)sizeof path) {
        snprintf(r->error, sizeof r->error, "--annotate: path too long");
        return VOTECL_INVALID_ARGUMENT;
    }
    if (tool_image_write(path, image, r->error, sizeof r->error) < 0)
        return VOTECL_INVALID_ARGUMENT;
    return VOTECL_OK;
}

static votecl_status
batch_process(void *user, votecl_context *ctx, unsigned worker, uint64_t index, void *item,
              void **out)
{
    batch_state *s = user;
    batch_item *it = item;
    batch_result *r = calloc(1, sizeof *r);
    tool_image annotated = {0};
    int annotate = s->a->annotate_dir != NULL;
    votecl_status st;
    (void)index;
    if ((*out = r) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    if (it->error[0] != '\0')
        return VOTECL_INVALID_ARGUMENT;
    st = compute_json(s->a, ctx, &s->states[worker], it, r, annotate ? &annotated : NULL);
    r->finished = tool_now();
    if (st != VOTECL_OK)
        snprintf(r->error, sizeof r->error, "%s: %s", votecl_status_string(st),
                 votecl_context_get_error(ctx));
    else if (annotated.data != NULL) /* hist draws nothing */
        st = write_annotated(s, it, &annotated, r);
    tool_image_free(&annotated);
    return st;
}

/* The whole record, one line with its newline. Transfer full. */
static char *
record_line(const batch_item *it, const batch_result *r, const char *run, unsigned worker, int rank)
{
    char *key = record_key(&it->meta, run), *buf = NULL;
    size_t size = 0;
    FILE *f = key ? open_memstream(&buf, &size) : NULL;
    tool_json j;
    if (f == NULL) {
        free(key);
        return NULL;
    }
    tool_json_init(&j, f);
    fputs(key, f);
    if (it->meta.frame >= 0)
        fprintf(f, "\"timestamp\":%.6f,", it->meta.timestamp);
    else
        fputs("\"timestamp\":null,", f);
    if (it->error[0] != '\0' || (r != NULL && r->error[0] != '\0')) {
        fprintf(f, "\"schema\":%d,\"error\":", TOOL_JSON_SCHEMA);
        tool_json_string(&j, it->error[0] ? it->error : r->error);
    } else { /* the members of r->json, without its braces */
        fprintf(f, "%.*s", (int)strlen(r->json) - 2, r->json + 1);
    }
    fprintf(f, ",\"seconds\":%.6f,\"worker\":%u,\"rank\":%d}\n", r ? r->seconds : 0.0, worker,
            rank);
    fclose(f);
    free(key);
    return buf;
}

static void
result_free(batch_result *r)
{
    if (r != NULL)
        free(r->json);
    free(r);
}

static votecl_status
write_line(batch_state *s, const char *line)
{
    if (fputs(line, s->out.file) == EOF || fflush(s->out.file) != 0) {
        fprintf(stderr, "votecl batch: %s: %s\n", s->a->out_path ? s->a->out_path : "stdout",
                strerror(errno));
        return VOTECL_INVALID_ARGUMENT;
    }
    s->written++;
    if (s->written % 16 == 0)
        tool_progress(s->options, "\rvotecl batch: %llu done, %.1f items/s ",
                      (unsigned long long)(s->done + s->written),
                      (double)s->written / (tool_now() - s->t0));
    return VOTECL_OK;
}

#ifdef HAVE_MPI
/* Rank 0: the records of other ranks up to global index upto (excluded), in order. */
static votecl_status
receive_upto(batch_state *s, uint64_t upto)
{
    while (s->written < upto) {
        int from = (int)(s->written % (uint64_t)s->ranks.size), count = 0;
        MPI_Status status;
        char *line;
        votecl_status st;
        if (from == 0)
            return VOTECL_INVALID_ARGUMENT; /* rank 0's own record: the caller's to write */
        MPI_Probe(from, 0, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, MPI_CHAR, &count);
        if ((line = malloc((size_t)count + 1)) == NULL)
            return VOTECL_OUT_OF_HOST_MEMORY;
        MPI_Recv(line, count, MPI_CHAR, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        line[count] = '\0';
        st = write_line(s, line);
        free(line);
        if (st != VOTECL_OK)
            return st;
    }
    return VOTECL_OK;
}
#endif

static votecl_status
write_frame(batch_state *s, const batch_item *it)
{
    char path[4096], error[600];
    tool_image u8 = {0};
    int rc;
    rc = tool_image_u8(&it->image, &u8, error, sizeof error) < 0;
    if (!rc && snprintf(path, sizeof path, "%s/%06llu.%s", s->a->frames_dir,
                        (unsigned long long)(s->done + it->global),
                        u8.channels == 1 ? "pgm" : "ppm") >= (int)sizeof path)
        snprintf(error, sizeof error, "--frames: path too long"), rc = 1;
    rc = rc || tool_image_write(path, &u8, error, sizeof error) < 0;
    tool_image_free(&u8);
    if (rc)
        fprintf(stderr, "votecl batch: --frames: %s\n", error);
    return rc ? VOTECL_INVALID_ARGUMENT : VOTECL_OK;
}

/* Items of early finished after t_warm, counted into after_warm; early emptied. */
static void
count_early(batch_state *s)
{
    for (size_t i = 0; i < s->nearly; i++)
        s->after_warm += s->early[i] > s->t_warm;
    s->nearly = 0;
}

/* One item emitted, finished at `finished` by worker: the start-up's end is the latest first
 * item's finish time of the workers (see batch_state). */
static void
note_warm(batch_state *s, unsigned worker, int failed, double finished)
{
    unsigned workers = votecl_batch_workers(s->batch);

    s->emitted++;
    s->failed += failed != 0;
    s->t_last = finished > s->t_last ? finished : s->t_last;
    if (s->warm == NULL)
        return;
    if (s->warmed == workers) {
        s->after_warm += finished > s->t_warm;
        return;
    }
    if (s->nearly == s->early_cap && !s->early_lost) {
        size_t cap = s->early_cap ? 2 * s->early_cap : 64;
        double *grown = realloc(s->early, cap * sizeof *grown);
        s->early_lost = grown == NULL;
        s->early = grown ? grown : s->early;
        s->early_cap = grown ? cap : s->early_cap;
    }
    if (!s->early_lost)
        s->early[s->nearly++] = finished;
    if (!s->warm[worker]) {
        s->warm[worker] = 1;
        s->warmed++;
        s->t_warm = finished > s->t_warm ? finished : s->t_warm;
    }
    if (s->warmed == workers)
        count_early(s);
}

static votecl_status
batch_emit(void *user, uint64_t index, void *item, void *result, votecl_status status,
           unsigned worker)
{
    batch_state *s = user;
    batch_item *it = item;
    char *line = record_line(it, result, s->a->run, worker, s->ranks.rank);
    votecl_status st = line ? VOTECL_OK : VOTECL_OUT_OF_HOST_MEMORY;
    (void)index;
    (void)status;
    note_warm(s, worker, status != VOTECL_OK || it->error[0] != '\0',
              result ? ((batch_result *)result)->finished : tool_now());
    if (st == VOTECL_OK && s->a->frames_dir && it->image.data)
        st = write_frame(s, it);
#ifdef HAVE_MPI
    if (st == VOTECL_OK && s->ranks.rank != 0) {
        MPI_Send(line, (int)strlen(line), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        goto out;
    }
    if (st == VOTECL_OK)
        st = receive_upto(s, it->global);
#endif
    if (st == VOTECL_OK)
        st = write_line(s, line);
    goto out;
out:
    free(line);
    item_free(it);
    result_free(result);
    return st;
}

static void
batch_discard(void *user, void *item, void *result)
{
    (void)user;
    item_free(item);
    result_free(result);
}

/* --- the output --- */

/* --out: never an input of the run (the same file by device and inode, whatever its name),
 * checked before anything is opened for writing; then locked and its records counted. */
static int
open_output(batch_state *s)
{
    const char *path = s->a->out_path;
    char error[600];
    if (s->ranks.rank != 0)
        return 0;
    if (path == NULL || strcmp(path, "-") == 0) {
        s->out.file = stdout;
        return 0;
    }
    if (tool_is_input(path)) {
        fprintf(stderr, "votecl batch: --out %s: is an input of this run; not overwritten\n", path);
        return -1;
    }
    if (batch_out_open(&s->out, path, s->a->overwrite, error, sizeof error) < 0) {
        fprintf(stderr, "votecl batch: %s\n", error);
        return -1;
    }
    s->done = s->out.done.n;
    return 0;
}

/* --- devices --- */

static int
open_batch(tool_options *options, batch_state *s)
{
    votecl_batch_options o;
    char error[1024] = "";
    votecl_status st;
    votecl_batch_options_init(&o);
    o.backend = options->backend;
    o.devices = s->a->devices ? s->a->devices : options->device;
    o.streams_per_device = (unsigned)s->a->streams;
    o.queue_depth = (unsigned)s->a->depth;
    o.max_devices = (unsigned)s->a->max_devices;
    if (s->ranks.size > 1) {
        /* one rank per device: ranks of a host take its devices in turn */
        size_t n = 0;
        if (votecl_batch_devices(&o, NULL, 0, &n) == VOTECL_OK && n > 0)
            o.first_device = (unsigned)((size_t)ranks_local(&s->ranks) % n);
        o.max_devices = 1;
    }
    st = votecl_batch_new(&o, &s->batch, error, sizeof error);
    if (st == VOTECL_OK &&
        (s->states = calloc(votecl_batch_workers(s->batch), sizeof *s->states)) != NULL &&
        (s->warm = calloc(votecl_batch_workers(s->batch), 1)) != NULL) {
        /* the workers compute at once: the process's budget is theirs to share */
        tool_memory_budget_share(votecl_batch_workers(s->batch));
        return 0;
    }
    if (st == VOTECL_OK)
        st = VOTECL_OUT_OF_HOST_MEMORY;
    fprintf(stderr, "votecl batch: cannot open the devices: %s%s%s\n", votecl_status_string(st),
            error[0] ? ": " : "", error);
    return -1;
}

static int
batch_features(void)
{
    printf("video %s\nmpi %s\n", batch_source_has_video() ? "yes" : "no",
#ifdef HAVE_MPI
           "yes"
#else
           "no"
#endif
    );
    return TOOL_EXIT_OK;
}

/* This process's rates, start-up included (from opening the devices; --preload's reading
 * excluded) and excluded (after every worker's first item), on stderr. */
static void
report_rates(batch_state *s, double t_end)
{
    double open = s->open_seconds, run = t_end - s->t0, warm;
    uint64_t after;

    count_early(s); /* fewer items than workers: the start-up ends with the last first item */
    warm = s->t_last - s->t_warm;
    after = s->early_lost ? 0 : s->after_warm;
    fprintf(stderr,
            "votecl batch: rank %d: %llu item(s) in %.3f s, devices opened in %.3f s: %.1f "
            "items/s start-up included (%.1f from the run's start)",
            s->ranks.rank, (unsigned long long)s->emitted, run, open,
            (double)s->emitted / (run + open), (double)s->emitted / run);
    if (s->warmed > 0 && after > 0 && warm > 0)
        fprintf(stderr,
                "; %.1f items/s start-up excluded (%llu item(s) in %.3f s after %u "
                "worker(s)' first)\n",
                (double)after / warm, (unsigned long long)after, warm, s->warmed);
    else
        fprintf(stderr, "; start-up excluded: too few items\n");
    if (s->failed > 0)
        fprintf(stderr,
                "votecl batch: rank %d: %llu of those item(s) failed (their records say "
                "why): the rates count them\n",
                s->ranks.rank, (unsigned long long)s->failed);
}

static votecl_status
batch_go(batch_state *s)
{
    uint64_t items = 0;
    votecl_status st;
    s->done = ranks_broadcast(&s->ranks, s->done);
    if (s->a->repeat > 1 && s->ranks.size > 1) {
        fprintf(stderr, "votecl batch: --repeat is for one process, not MPI ranks\n");
        return VOTECL_INVALID_ARGUMENT;
    }
    if (s->a->preload && (st = preload(s)) != VOTECL_OK)
        return st;
    s->t0 = tool_now();
    st =
        votecl_batch_run(s->batch, batch_load, batch_process, batch_emit, batch_discard, s, &items);
#ifdef HAVE_MPI
    if (st == VOTECL_OK && s->ranks.rank == 0 && s->ranks.size > 1) {
        /* the records after rank 0's last, and a rank 0 without any */
        while (st == VOTECL_OK && s->written < s->global_total)
            st = s->written % (uint64_t)s->ranks.size == 0 ? VOTECL_INVALID_ARGUMENT
                                                           : receive_upto(s, s->written + 1);
    }
#endif
    if (s->ranks.rank == 0 && !s->options->quiet)
        fprintf(stderr, "\rvotecl batch: %llu record(s) written, %llu before; %.2f s\n",
                (unsigned long long)s->written, (unsigned long long)s->done, tool_now() - s->t0);
    if (!s->options->quiet)
        report_rates(s, tool_now());
    return st;
}

static int
batch_main(tool_options *options, batch_args *a, batch_state *s)
{
    char error[600];
    votecl_status st;
    tool_image_limits(a->name); /* the single command's, from each image's header */
    if (a->c->prepare && a->c->prepare(&a->case_args, error, sizeof error) < 0) {
        fprintf(stderr, "votecl batch: %s\n", error);
        return TOOL_EXIT_FAILURE;
    }
    a->source.colour = a->c->colour;
    a->source.quiet = options->quiet;
    if (batch_source_open(a->inputs, a->ninputs, a->list_path, &a->source, &s->source, error,
                          sizeof error) < 0) {
        fprintf(stderr, "votecl batch: %s\n", error);
        return TOOL_EXIT_FAILURE;
    }
    if (open_output(s) < 0)
        return tool_is_input(a->out_path ? a->out_path : "-") ? TOOL_EXIT_USAGE : TOOL_EXIT_FAILURE;
    s->open_seconds = tool_now();
    if (open_batch(options, s) < 0)
        return TOOL_EXIT_FAILURE;
    s->open_seconds = tool_now() - s->open_seconds;
    st = batch_go(s);
    if (st != VOTECL_OK && st != VOTECL_INVALID_ARGUMENT)
        fprintf(stderr, "votecl batch: %s\n", votecl_status_string(st));
    return st == VOTECL_OK ? TOOL_EXIT_OK : TOOL_EXIT_FAILURE;
}

int
tool_cmd_batch(tool_options *options, int argc, char **argv)
{
    batch_args a = {0};
    batch_state s = {.a = &a, .options = options};
    int rc = batch_parse(options, &a, argc, argv);
    if (rc == TOOL_EXIT_OK && options->help)
        batch_usage(stdout);
    else if (rc == TOOL_EXIT_OK && a.features)
        rc = batch_features();
    else if (rc == TOOL_EXIT_OK) {
        if (ranks_init(&s.ranks, &argc, &argv) < 0) {
            fprintf(stderr, "votecl batch: MPI_Init failed\n");
            rc = TOOL_EXIT_FAILURE;
        } else {
            rc = batch_main(options, &a, &s);
            ranks_finish(&s.ranks, rc != TOOL_EXIT_OK);
        }
    }
    if (a.c && a.c->cleanup)
        a.c->cleanup(&a.case_args);
    for (unsigned w = 0; s.states && w < votecl_batch_workers(s.batch); w++)
        if (a.c->state_free)
            a.c->state_free(s.states[w]);
    free(s.states);
    free(s.warm);
    free(s.early);
    votecl_batch_free(s.batch);
    batch_source_free(s.source);
    batch_out_close(&s.out);
    for (size_t i = 0; i < s.npreloaded; i++)
        item_free(s.preloaded[i]);
    free(s.preloaded);
    free(a.inputs);
    free(a.run);
    return rc;
}
