/* votecl bench: copy bandwidth and histogram throughput of the current device, then every
 * algorithm's groups of cases (tool_bench_group, tools/algo-<name>.c; tools/bench.h), as JSON.
 *
 * The histogram cases time device-resident data (votecl_hist_run_buffers), so no host
 * transfer is counted: 3 warm-up runs, then 5 batches of `reps` runs back to back closed by
 * votecl_context_finish(); the median batch gives the time per run. Strategies are judged by
 * their worst case over the data distributions (DESIGN.md). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "json.h"
#include "tool.h"

typedef tool_bench bench;
typedef tool_bench_args bench_args;
typedef tool_bench_plan bench_plan;
typedef tool_bench_record bench_record;
typedef tool_bench_op_fn bench_op_fn;

/* A data distribution: fills n bytes. */
typedef void (*bench_fill_fn)(const bench *b, unsigned char *p, size_t n, unsigned k);

typedef struct bench_distribution {
    const char *name;
    bench_fill_fn fill;
    unsigned k;
} bench_distribution;

static void
bench_usage(FILE *f)
{
    fprintf(f, "usage: votecl bench [--json [FILE]] [--mib N] [--reps N]\n"
               "                    [--variants local,global,private|all] [--startup] [--quick]\n"
               "                    [--images DIR] [--backend opencl|cuda|ref|both]\n"
               "                    [--only GROUP] [--work-group-size N]\n"
               "Measures the device: copy bandwidth, 256-bin u8 histograms of N MiB (default 64)\n"
               "already on the device for each strategy and data distribution, one 1920x1080\n"
               "frame's latency and a batch of 64 frames. Prints JSON to stdout or FILE.\n"
               "  --startup   only time process start to the first histogram of a 1920x1080\n"
               "              frame, context and plan creation included (run twice: disk cache)\n"
               "  --quick     tiny sizes, for smoke tests\n"
               "  --images    directory holding building.png (default: the installed images)\n"
               "  --backend both  run everything on OpenCL, then on CUDA, and compare each case's\n"
               "              time (JSON 'runs' and 'comparison'; a table on stdout with --json\n"
               "              FILE, else on stderr unless -q)\n"
               "  --only      only one group of cases: hist, hist16 (u16, 4096 bins), histf32 (f32,\n"
               "              256 and 256085 bins), hough,\n"
               "              lines, hog or ght\n"
               "  --work-group-size N  the histogram plans' vote work-group size\n");
}

/* --- distributions --- */

static void
fill_random(const bench *b, unsigned char *p, size_t n, unsigned k)
{
    uint64_t s = 1; /* xorshift64, seed 1 */
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        p[i] = (unsigned char)(s >> 32);
    }
}

static void
fill_constant(const bench *b, unsigned char *p, size_t n, unsigned k)
{
    memset(p, 0x55, n);
}

/* Each 16-byte chunk (what one work-item reads) is one value; k distinct values across
 * consecutive work-items: the paper's worst case for bins without stretching. */
static void
fill_distinct(const bench *b, unsigned char *p, size_t n, unsigned k)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((((i >> 4) % k) * 61 + 7) & 255);
}

static void
fill_image(const bench *b, unsigned char *p, size_t n, unsigned k)
{
    size_t size = b->building.width * b->building.height;
    for (size_t i = 0; i < n; i += size)
        memcpy(p + i, b->building.data, n - i < size ? n - i : size);
}

static const bench_distribution bench_distributions[] = {
    {"random", fill_random, 0},      {"constant", fill_constant, 0},
    {"distinct2", fill_distinct, 2}, {"distinct4", fill_distinct, 4},
    {"distinct8", fill_distinct, 8}, {"distinct16", fill_distinct, 16},
    {"image", fill_image, 0},
};

/* --- timing --- */

#define HISTF32_MAX_BINS 256085 /* the widest histf32 case (OpenCV's accuracy test) */

typedef struct hist_op {
    votecl_hist_plan *plan;
    votecl_buffer *x, *bins;
    size_t n, frames;
} hist_op;

typedef struct copy_op {
    votecl_buffer *dst, *src;
    size_t size;
} copy_op;

static votecl_status
run_hist_op(void *arg)
{
    hist_op *op = arg;
    return votecl_hist_run_buffers(op->plan, op->x, NULL, NULL, op->n, op->frames, op->bins);
}

static votecl_status
run_copy_op(void *arg)
{
    copy_op *op = arg;
    return votecl_buffer_copy(op->dst, 0, op->src, 0, op->size);
}

/* One batch: reps runs, each finished when sync_each (latency), else back to back. */
static votecl_status
time_batch(votecl_context *ctx, bench_op_fn op, void *arg, unsigned long reps, int sync_each,
           double *seconds)
{
    votecl_status st = VOTECL_OK;
    double t0 = tool_now();
    for (unsigned long r = 0; r < reps && st == VOTECL_OK; r++) {
        st = op(arg);
        if (st == VOTECL_OK && sync_each)
            st = votecl_context_finish(ctx);
    }
    if (st == VOTECL_OK)
        st = votecl_context_finish(ctx);
    *seconds = tool_now() - t0;
    return st;
}

/* Seconds per run: the median of BENCH_BATCHES batches after BENCH_WARMUP runs. */
votecl_status
tool_bench_time(votecl_context *ctx, bench_op_fn op, void *arg, unsigned long reps, int sync_each,
                double *seconds)
{
    double batches[BENCH_BATCHES], warm;
    votecl_status st = time_batch(ctx, op, arg, BENCH_WARMUP, 1, &warm);
    for (int i = 0; i < BENCH_BATCHES && st == VOTECL_OK; i++)
        st = time_batch(ctx, op, arg, reps, sync_each, &batches[i]);
    if (st != VOTECL_OK)
        return st;
    qsort(batches, BENCH_BATCHES, sizeof batches[0], tool_compare_doubles);
    *seconds = batches[BENCH_BATCHES / 2] / (double)reps;
    return VOTECL_OK;
}

/* Notes a case's time per run under "case" or "case/variant" for the comparison. */
void
tool_bench_note(bench *b, const char *name, const char *variant, double seconds)
{
    bench_record *r;
    if (b->nrecords == BENCH_MAX_RECORDS || seconds <= 0)
        return;
    r = &b->records[b->nrecords++];
    snprintf(r->name, sizeof r->name, "%s%s%s", name, variant ? "/" : "", variant ? variant : "");
    r->seconds = seconds;
}

/* Reads the frames' bins back and compares them with counts made here from the same bytes
 * (host, frames of n): every bin must be exact. */
static votecl_status
check_counts(votecl_buffer *bins, const unsigned char *host, size_t n, size_t frames, int *ok)
{
    uint32_t *counts = malloc(frames * BENCH_BINS * sizeof *counts);
    uint32_t want[BENCH_BINS];
    votecl_status st;
    if (!counts)
        return VOTECL_OUT_OF_HOST_MEMORY;
    st = votecl_buffer_read(bins, 0, counts, frames * BENCH_BINS * sizeof *counts);
    *ok = st == VOTECL_OK;
    for (size_t f = 0; f < frames && *ok; f++) {
        memset(want, 0, sizeof want);
        for (size_t i = 0; i < n; i++)
            want[host[f * n + i]]++;
        *ok = memcmp(want, counts + f * BENCH_BINS, sizeof want) == 0;
    }
    free(counts);
    return st;
}

/* --- JSON pieces --- */

static void
json_device(tool_json *j, votecl_context *ctx)
{
    votecl_device_info d;
    votecl_context_get_device_info(ctx, &d);
    tool_json_kv_string(j, "backend", votecl_backend_name(votecl_context_get_backend(ctx)));
    tool_json_key(j, "device_info"); /* "device" is the header's name */
    tool_json_begin_object(j);
    tool_json_kv_string(j, "name", d.name);
    tool_json_kv_string(j, "type", tool_device_type_name(d.type));
    tool_json_kv_string(j, "vendor", d.vendor);
    tool_json_kv_string(j, "platform", d.platform);
    tool_json_kv_string(j, "version", d.version);
    tool_json_kv_uint(j, "compute_units", d.compute_units);
    tool_json_kv_uint(j, "local_mem_bytes", d.local_mem_bytes);
    tool_json_kv_uint(j, "nmax", d.local_mem_bytes / 4);
    tool_json_kv_uint(j, "max_work_group_size", d.max_work_group_size);
    tool_json_end_object(j);
}

/* The results' first member: when they were taken. */
static void
json_date(tool_json *j)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    tool_json_kv_string(j, "date", date);
}

/* The shared header (written last: the context is known once the run opened it), the
 * options as parameters, then results, the body the run wrote. */
static void
json_document(FILE *out, const bench_args *a, const char *results)
{
    tool_json j;
    tool_json_document(&j, out, "bench");
    tool_json_parameters(&j);
    tool_json_kv_uint(&j, "mib", a->mib);
    tool_json_kv_uint(&j, "reps", a->reps);
    tool_json_kv_uint(&j, "work_group_size", a->wg);
    tool_json_kv_bool(&j, "quick", a->quick);
    tool_json_kv_bool(&j, "startup", a->startup);
    tool_json_kv_bool(&j, "both", a->both);
    tool_json_kv_string(&j, "only", a->only);
    tool_json_kv_string(&j, "images", a->images);
    tool_json_end_object(&j);
    tool_json_key(&j, "results");
    tool_json_raw(&j, results);
    tool_json_end_object(&j);
    tool_json_finish(&j);
}

static void
json_config(bench *b)
{
    tool_json *j = &b->json;
    tool_json_key(j, "config");
    tool_json_begin_object(j);
    tool_json_kv_uint(j, "bytes", b->bytes);
    tool_json_kv_uint(j, "bins", BENCH_BINS);
    tool_json_kv_uint(j, "reps", b->args.reps);
    tool_json_kv_uint(j, "warmup", BENCH_WARMUP);
    tool_json_kv_uint(j, "batches", BENCH_BATCHES);
    tool_json_kv_uint(j, "frame_width", b->frame_width);
    tool_json_kv_uint(j, "frame_height", b->frame_height);
    tool_json_kv_uint(j, "batch_frames", b->frames);
    tool_json_kv_bool(j, "quick", b->args.quick);
    tool_json_end_object(j);
}

/* --- arguments --- */

static int
parse_variants(const char *text, unsigned *mask)
{
    char buffer[128];
    *mask = 0;
    if (strcmp(text, "all") == 0) {
        *mask =
            1u << VOTECL_VARIANT_LOCAL | 1u << VOTECL_VARIANT_GLOBAL | 1u << VOTECL_VARIANT_PRIVATE;
        return 0;
    }
    snprintf(buffer, sizeof buffer, "%s", text);
    for (char *save = NULL, *t = strtok_r(buffer, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        votecl_variant v = VOTECL_VARIANT_LOCAL;
        for (; v <= VOTECL_VARIANT_PRIVATE; v++)
            if (strcmp(t, votecl_variant_name(v)) == 0)
                break;
        if (v > VOTECL_VARIANT_PRIVATE) {
            fprintf(stderr, "votecl bench: unknown variant '%s' (local, global, private, all)\n",
                    t);
            return -1;
        }
        *mask |= 1u << v;
    }
    return 0;
}

static int
bench_option(void *args, int argc, char **argv, int *i)
{
    bench_args *a = args;
    const char *v = NULL;
    int r;
    if (strcmp(argv[*i], "--json") == 0) {
        /* The file is optional: a following word that is not an option names it. */
        if (*i + 1 < argc && argv[*i + 1][0] != '-')
            a->json_path = argv[++*i];
        return 1;
    }
    if (strncmp(argv[*i], "--json=", 7) == 0)
        return (a->json_path = argv[*i] + 7), 1;
    if (strcmp(argv[*i], "--startup") == 0)
        return (a->startup = 1);
    if (strcmp(argv[*i], "--quick") == 0)
        return (a->quick = 1);
    if (strcmp(argv[*i], "--backend") == 0 && *i + 1 < argc && strcmp(argv[*i + 1], "both") == 0)
        return ++*i, (a->both = 1);
    if (strcmp(argv[*i], "--backend=both") == 0)
        return (a->both = 1);
    if ((r = tool_option_value(argc, argv, i, "--work-group-size", &v)) != 0)
        return r < 0 || tool_parse_ulong("--work-group-size", v, 1, 4096, &a->wg) < 0 ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--mib", &v)) != 0)
        return r < 0 || tool_parse_ulong("--mib", v, 1, 1ul << 20, &a->mib) < 0 ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--reps", &v)) != 0)
        return r < 0 || tool_parse_ulong("--reps", v, 1, 1000000, &a->reps) < 0 ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--variants", &v)) != 0)
        return r < 0 || parse_variants(v, &a->variants) < 0 ? -1 : 1;
    if ((r = tool_option_value(argc, argv, i, "--images", &v)) != 0)
        return r < 0 ? -1 : ((a->images = v), 1);
    if ((r = tool_option_value(argc, argv, i, "--only", &v)) != 0)
        return r < 0 ? -1 : ((a->only = v), 1);
    return 0;
}

static int
bench_parse(tool_options *options, bench_args *a, int argc, char **argv)
{
    if (tool_parse_options(options, "bench", "unexpected argument", bench_option, a, argc, argv) !=
        TOOL_EXIT_OK)
        return TOOL_EXIT_USAGE;
    if (!a->variants)
        parse_variants("all", &a->variants);
    if (!a->mib)
        a->mib = a->quick ? 1 : 64;
    if (!a->reps)
        a->reps = a->quick ? 2 : 10;
    return TOOL_EXIT_OK;
}

/* --- set-up --- */

static int
load_building(bench *b)
{
    char path[4096], error[600] = "path too long";
    tool_image rgb;
    if (!tool_path_join(path, sizeof path, tool_image_dir(b->args.images), "building.png") ||
        tool_image_read(path, &rgb, error, sizeof error) < 0 || rgb.dtype != VOTECL_DTYPE_U8) {
        fprintf(stderr, "votecl bench: the 'image' case is skipped: %s\n", error);
        return -1;
    }
    int r = tool_image_to_gray(&rgb, &b->building, error, sizeof error);
    tool_image_free(&rgb);
    return r;
}

/* Words of the bins buffer: the frames' u8 bins, hist16's 4096, histf32's widest. */
static size_t
bench_bins_words(const bench *b)
{
    size_t words = b->frames * BENCH_BINS;
    return words > HISTF32_MAX_BINS ? words : HISTF32_MAX_BINS;
}

static int
bench_alloc(bench *b)
{
    size_t frame_bytes = b->frame_width * b->frame_height * b->frames;
    size_t host_bytes = b->bytes > frame_bytes ? b->bytes : frame_bytes;
    votecl_status st;
    b->host = malloc(host_bytes);
    if (!b->host) {
        fprintf(stderr, "votecl bench: out of host memory for %zu bytes\n", host_bytes);
        return TOOL_EXIT_FAILURE;
    }
    if ((st = votecl_buffer_new(b->ctx, host_bytes, &b->x)) != VOTECL_OK ||
        (st = votecl_buffer_new(b->ctx, b->bytes, &b->dst)) != VOTECL_OK ||
        (st = votecl_buffer_new(b->ctx, bench_bins_words(b) * sizeof(uint32_t), &b->bins)) !=
            VOTECL_OK)
        return tool_fail(b->ctx, st, "device buffers");
    return TOOL_EXIT_OK;
}

static void
bench_plan_new(bench *b, votecl_variant variant)
{
    bench_plan *p = &b->plans[b->nplans++];
    votecl_hist_params params;
    votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
    params.variant = variant;
    params.work_group_size = (unsigned)b->args.wg;
    p->requested = variant;
    p->status = votecl_hist_plan_new(b->ctx, &params, &p->plan);
    if (p->status != VOTECL_OK)
        snprintf(p->error, sizeof p->error, "%s", votecl_context_get_error(b->ctx));
}

static void
bench_plans_new(bench *b)
{
    bench_plan_new(b, VOTECL_VARIANT_AUTO);
    for (votecl_variant v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++)
        if (b->args.variants & 1u << v)
            bench_plan_new(b, v);
}

/* One object a plan under key: its variant, then what write adds (a plan it refuses, with
 * 0, is left out). */
static void
json_plan_list(bench *b, const char *key, int (*write)(tool_json *j, const bench_plan *p))
{
    tool_json *j = &b->json;
    tool_json_key(j, key);
    tool_json_begin_array(j);
    for (size_t i = 0; i < b->nplans; i++) {
        const bench_plan *p = &b->plans[i];
        if (write(NULL, p) == 0)
            continue;
        tool_json_begin_object(j);
        tool_json_kv_string(j, "variant", votecl_variant_name(p->requested));
        write(j, p);
        tool_json_end_object(j);
    }
    tool_json_end_array(j);
}

/* A plan's status (j NULL: every plan is listed). */
static int
json_plan_status(tool_json *j, const bench_plan *p)
{
    if (j == NULL)
        return 1;
    tool_json_kv_string(j, "status", votecl_status_name(p->status));
    if (p->status != VOTECL_OK)
        tool_json_kv_string(j, "error", p->error);
    return 1;
}

/* A plan's slowest case (j NULL: listed when it ran one). */
static int
json_plan_worst(tool_json *j, const bench_plan *p)
{
    if (j == NULL)
        return p->worst_case != NULL;
    tool_json_kv_double(j, "gbps", p->worst_gbps);
    tool_json_kv_string(j, "case", p->worst_case);
    return 1;
}

/* --- the cases --- */

static int
bench_copy(bench *b)
{
    copy_op op = {b->dst, b->x, b->bytes};
    double seconds = 0;
    votecl_status st = tool_bench_time(b->ctx, run_copy_op, &op, b->args.reps, 0, &seconds);
    tool_json *j = &b->json;
    tool_json_key(j, "copy");
    tool_json_begin_object(j);
    tool_json_kv_uint(j, "bytes", b->bytes);
    tool_json_kv_string(j, "status", votecl_status_name(st));
    if (st == VOTECL_OK) {
        tool_json_kv_double(j, "seconds", seconds);
        tool_json_kv_double(j, "gbps", 2.0 * (double)b->bytes / seconds / 1e9);
        tool_bench_note(b, "copy", NULL, seconds);
        tool_progress(b->options, "bench: copy %.2f GB/s (read + write)\n",
                      2.0 * (double)b->bytes / seconds / 1e9);
    } else {
        tool_json_kv_string(j, "error", votecl_context_get_error(b->ctx));
    }
    tool_json_end_object(j);
    return st == VOTECL_OK ? TOOL_EXIT_OK : tool_fail(b->ctx, st, "copy");
}

/* What one timed case measured. */
typedef struct case_result {
    votecl_status status;
    double seconds; /* per run */
    int ok;
    votecl_vote_plan_info info;
} case_result;

static void
run_case(bench *b, bench_plan *p, size_t n, size_t frames, int sync_each, case_result *r)
{
    hist_op op = {p->plan, b->x, b->bins, n, frames};
    memset(r, 0, sizeof *r);
    r->status = votecl_hist_plan_describe(p->plan, n, frames, &r->info);
    if (r->status == VOTECL_OK)
        r->status = tool_bench_time(b->ctx, run_hist_op, &op, b->args.reps, sync_each, &r->seconds);
    if (r->status == VOTECL_OK)
        r->status = check_counts(b->bins, b->host, n, frames, &r->ok);
    if (!r->ok)
        b->all_ok = 0;
}

/* Opens a case's JSON object and writes what every case has; the caller closes it. */
static void
json_case_open(bench *b, const char *name, const bench_plan *p, size_t n, size_t frames,
               const case_result *r)
{
    tool_json *j = &b->json;
    tool_json_begin_object(j);
    tool_json_kv_string(j, "case", name);
    tool_json_kv_string(j, "variant", votecl_variant_name(p->requested));
    tool_json_kv_uint(j, "elements", n);
    tool_json_kv_uint(j, "frames", frames);
    tool_json_kv_uint(j, "bytes", n * frames);
    tool_json_kv_string(j, "status", votecl_status_name(r->status));
    if (r->status != VOTECL_OK)
        tool_json_kv_string(j, "error", votecl_context_get_error(b->ctx));
    tool_json_kv_bool(j, "ok", r->ok);
    tool_json_key(j, "plan");
    tool_json_plan_info(j, &r->info);
    if (r->status == VOTECL_OK) {
        tool_json_kv_double(j, "seconds", r->seconds);
        tool_json_kv_double(j, "gbps", (double)(n * frames) / r->seconds / 1e9);
        tool_bench_note(b, name, votecl_variant_name(p->requested), r->seconds);
    }
}

static void
note_worst(bench_plan *p, const char *name, double gbps)
{
    if (p->worst_case == NULL || gbps < p->worst_gbps) {
        p->worst_gbps = gbps;
        p->worst_case = name;
    }
}

/* The first bytes of b->host into b->x; 0, or -1 (said, and the run marked failed). */
static int
bench_upload(bench *b, size_t bytes)
{
    votecl_status st = votecl_buffer_write(b->x, 0, b->host, bytes);
    if (st == VOTECL_OK)
        return 0;
    tool_fail(b->ctx, st, "upload");
    b->all_ok = 0;
    return -1;
}

static void
bench_distribution_case(bench *b, const bench_distribution *d)
{
    d->fill(b, b->host, b->bytes, d->k);
    if (bench_upload(b, b->bytes) != 0)
        return;
    for (size_t i = 0; i < b->nplans; i++) {
        bench_plan *p = &b->plans[i];
        case_result r;
        if (!p->plan)
            continue;
        run_case(b, p, b->bytes, 1, 0, &r);
        json_case_open(b, d->name, p, b->bytes, 1, &r);
        tool_json_end_object(&b->json);
        if (r.status == VOTECL_OK)
            note_worst(p, d->name, (double)b->bytes / r.seconds / 1e9);
        tool_progress(b->options, "bench: %-10s %-7s %8.3f GB/s %s\n", d->name,
                      votecl_variant_name(p->requested),
                      r.status == VOTECL_OK ? (double)b->bytes / r.seconds / 1e9 : 0.0,
                      r.ok ? "ok" : "FAILED");
    }
}

/* frame1080: one frame per call, calls back to back (as CUB's figure is timed);
 * frame1080_sync: the same with a finish after every call (what a caller waiting for each
 * frame sees); batch64: frames in one call. */
/* The frame cases: one frame, one frame waited for, a batch of b->frames. */
static const struct {
    const char *name, *key, *progress;
    int batch, sync;
} frame_cases[] = {
    {"frame1080", "us_per_frame", "bench: frame1080  %-7s %8.1f us/frame\n", 0, 0},
    {"frame1080_sync", "latency_us", "bench: frame1080_sync %-7s %8.1f us\n", 0, 1},
    {"batch64", "us_per_frame", "bench: batch64    %-7s %8.1f us/frame\n", 1, 0},
};

static void
bench_frame_cases(bench *b)
{
    size_t n = b->frame_width * b->frame_height;
    fill_random(b, b->host, n * b->frames, 0);
    if (bench_upload(b, n * b->frames) != 0)
        return;
    for (size_t i = 0; i < b->nplans; i++)
        for (size_t c = 0; b->plans[i].plan && c < sizeof frame_cases / sizeof frame_cases[0];
             c++) {
            bench_plan *p = &b->plans[i];
            size_t frames = frame_cases[c].batch ? b->frames : 1;
            case_result r;
            run_case(b, p, n, frames, frame_cases[c].sync, &r);
            json_case_open(b, frame_cases[c].name, p, n, frames, &r);
            tool_json_kv_double(&b->json, frame_cases[c].key, r.seconds * 1e6 / (double)frames);
            tool_json_end_object(&b->json);
            tool_progress(b->options, frame_cases[c].progress, votecl_variant_name(p->requested),
                          r.seconds * 1e6 / (double)frames);
        }
}

/* --- the generic engine: a histogram as user functions --- */

typedef struct vote_op {
    votecl_vote_plan *plan;
    votecl_buffer *x, *bins;
    size_t width, height;
} vote_op;

static votecl_status
run_vote_op(void *arg)
{
    vote_op *op = arg;
    return votecl_vote_run_buffers(op->plan, op->x, op->width, op->height, op->bins);
}

/* The 256-bin histogram of the random case written as one user function, next to the
 * built-in in the same run (issue: within 10%). */
static void
bench_user_histogram(bench *b)
{
    votecl_vote_spec spec;
    vote_op op = {.x = b->x, .bins = b->bins, .width = b->bytes};
    hist_op hop = {.x = b->x, .bins = b->bins, .n = b->bytes, .frames = 1};
    votecl_hist_params params;
    double user = 0, builtin = 0;
    votecl_status st;

    votecl_vote_spec_init(&spec);
    spec.source = "uint vote_index(uint space, uint index, uchar value, uint nbins)\n"
                  "{ return value; }\n";
    votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
    fill_random(b, b->host, b->bytes, 0);
    st = votecl_buffer_write(b->x, 0, b->host, b->bytes);
    if (st == VOTECL_OK)
        st = votecl_vote_plan_new(b->ctx, &spec, &op.plan);
    if (st == VOTECL_OK)
        st = votecl_hist_plan_new(b->ctx, &params, &hop.plan);
    if (st == VOTECL_OK)
        st = tool_bench_time(b->ctx, run_vote_op, &op, b->args.reps, 0, &user);
    if (st == VOTECL_OK)
        st = tool_bench_time(b->ctx, run_hist_op, &hop, b->args.reps, 0, &builtin);
    tool_bench_case_begin(b, "user_histogram", st);
    if (st == VOTECL_OK) {
        tool_json_kv_double(&b->json, "gbps", (double)b->bytes / user / 1e9);
        tool_json_kv_double(&b->json, "builtin_gbps", (double)b->bytes / builtin / 1e9);
        tool_json_kv_double(&b->json, "user_over_builtin_time", user / builtin);
        tool_bench_note(b, "user_histogram", NULL, user);
    } else {
        tool_json_kv_string(&b->json, "error", votecl_context_get_error(b->ctx));
        b->all_ok = 0;
    }
    tool_json_end_object(&b->json);
    votecl_vote_plan_free(op.plan);
    votecl_hist_plan_free(hop.plan);
}

/* --- colour frames (issue 26): N-D and per-channel histograms of one frame --- */

/* The frame cases of interleaved u8 colour data: a plan per pass, its channels, dimensions,
 * bins per dimension and whether it counts each channel (per_channel); passes > 1 time one
 * single-channel plan per channel (channel k on pass k). */
static const struct colour_case {
    const char *name;
    unsigned channels, dims, nbins, per_channel, passes;
} colour_cases[] = {
    {"frame_gray_256", 1, 1, 256, 0, 1},
    {"frame_rgb_16x16x16", 3, 3, 16, 0, 1},
    {"frame_rgba_per_channel", 4, 1, 256, 1, 1},
    {"frame_rgba_4_passes", 4, 1, 256, 0, 4},
};

typedef struct colour_op {
    votecl_hist_plan *plan[4];
    unsigned passes;
    votecl_buffer *x, *bins;
    size_t n;
} colour_op;

static votecl_status
run_colour_op(void *arg)
{
    colour_op *op = arg;
    votecl_status st = VOTECL_OK;
    for (unsigned k = 0; k < op->passes && st == VOTECL_OK; k++)
        st = votecl_hist_run_buffers(op->plan[k], op->x, NULL, NULL, op->n, 1,
                                     op->bins);
    return st;
}

static votecl_status
colour_plans(bench *b, const struct colour_case *c, colour_op *op)
{
    votecl_status st = VOTECL_OK;
    for (unsigned k = 0; k < c->passes && st == VOTECL_OK; k++) {
        votecl_hist_params params;
        votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
        params.channels = c->channels;
        params.dims = c->dims;
        params.per_channel = (int)c->per_channel;
        for (unsigned d = 0; d < c->dims; d++) {
            params.channel[d] = c->passes > 1 ? k : d;
            params.nbins[d] = c->nbins;
            params.min[d] = 0;
            params.max[d] = 256;
        }
        st = votecl_hist_plan_new(b->ctx, &params, &op->plan[k]);
    }
    op->passes = c->passes;
    return st;
}

/* Each colour case on one random frame (the 1-D gray frame first, for the ratios). */
static void
bench_colour_cases(bench *b)
{
    size_t n = b->frame_width * b->frame_height;
    double gray = 0, per_channel = 0;
    if (4 * n > b->bytes)
        return; /* --mib too small for an RGBA frame */
    fill_random(b, b->host, 4 * n, 0);
    votecl_status up = votecl_buffer_write(b->x, 0, b->host, 4 * n);
    for (size_t i = 0; i < sizeof colour_cases / sizeof colour_cases[0]; i++) {
        const struct colour_case *c = &colour_cases[i];
        colour_op op = {.x = b->x, .bins = b->bins, .n = n};
        double seconds = 0;
        votecl_status st = up;
        if (st == VOTECL_OK)
            st = colour_plans(b, c, &op);
        if (st == VOTECL_OK)
            st = tool_bench_time(b->ctx, run_colour_op, &op, b->args.reps, 0, &seconds);
        tool_bench_case_begin(b, c->name, st);
        if (st == VOTECL_OK) {
            tool_json_kv_uint(&b->json, "width", b->frame_width);
            tool_json_kv_uint(&b->json, "height", b->frame_height);
            tool_json_kv_double(&b->json, "us_per_frame", seconds * 1e6);
            if (i == 0)
                gray = seconds;
            else if (gray > 0)
                tool_json_kv_double(&b->json, "over_gray_frame", seconds / gray);
            if (c->per_channel)
                per_channel = seconds;
            else if (c->passes > 1 && per_channel > 0)
                tool_json_kv_double(&b->json, "per_channel_speedup", seconds / per_channel);
            tool_bench_note(b, c->name, NULL, seconds);
        } else {
            tool_json_kv_string(&b->json, "error", votecl_context_get_error(b->ctx));
            b->all_ok = 0;
        }
        tool_json_end_object(&b->json);
        for (unsigned k = 0; k < 4; k++)
            votecl_hist_plan_free(op.plan[k]);
    }
}

/* --- 16-bit data, 4096 bins (issue 17: against CUB's HistogramEven on the same data) --- */

#define HIST16_BINS 4096

/* n u16 values: random (xorshift64), constant, or each 16-byte chunk (8 values) one value
 * with k distinct values across consecutive work-items, as the u8 distinctK. */
static void
hist16_fill(uint16_t *p, size_t n, const char *name, unsigned k)
{
    uint64_t s = 1;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(name, "random") == 0) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            p[i] = (uint16_t)(s >> 32);
        } else if (k == 0) {
            p[i] = 0x5555;
        } else {
            p[i] = (uint16_t)((((i >> 3) % k) * 4099 + 7) & 0xffff);
        }
    }
}

/* The counts of host's n values that votecl-vote.h's rule gives, for the u16 cases: 16 values
 * a bin. */
static void
hist16_want(uint32_t *want, const void *host, size_t n, const void *shape)
{
    const uint16_t *v = host;
    for (size_t i = 0; i < n; i++)
        want[v[i] >> 4]++;
}

/* What the u16 and f32 cases differ in: their values, their plan's dtype, bins and range, and
 * the counts they expect. */
typedef struct typed_case {
    const char *label;
    size_t value_size; /* bytes a value */
    votecl_hist_params params;
    void (*want)(uint32_t *want, const void *host, size_t n, const void *shape);
    const void *shape; /* want's */
} typed_case;

/* The bins against the counts made here from the values in b->host. */
static votecl_status
typed_check(bench *b, const typed_case *c, size_t n, int *ok)
{
    uint32_t nbins = c->params.nbins[0];
    uint32_t *counts = malloc(2 * (size_t)nbins * sizeof *counts), *want = counts + nbins;
    votecl_status st;
    if (!counts)
        return VOTECL_OUT_OF_HOST_MEMORY;
    memset(want, 0, nbins * sizeof *want);
    c->want(want, b->host, n, c->shape);
    st = votecl_buffer_read(b->bins, 0, counts, nbins * sizeof *counts);
    *ok = st == VOTECL_OK && memcmp(want, counts, nbins * sizeof *want) == 0;
    free(counts);
    return st;
}

/* One case: the auto plan (or a forced strategy) over the b->bytes of values the caller wrote
 * in b->host, sent to the device; the bins are checked against counts made here. */
static void
bench_typed_case(bench *b, votecl_variant variant, typed_case *c)
{
    size_t n = b->bytes / c->value_size;
    hist_op op = {.x = b->x, .bins = b->bins, .n = n, .frames = 1};
    case_result r = {0};
    bench_plan p = {.requested = variant};

    c->params.variant = variant;
    c->params.work_group_size = (unsigned)b->args.wg;
    r.status = votecl_buffer_write(b->x, 0, b->host, n * c->value_size);
    if (r.status == VOTECL_OK)
        r.status = votecl_hist_plan_new(b->ctx, &c->params, &op.plan);
    if (r.status == VOTECL_OK)
        r.status = votecl_hist_plan_describe(op.plan, n, 1, &r.info);
    if (r.status == VOTECL_OK)
        r.status = tool_bench_time(b->ctx, run_hist_op, &op, b->args.reps, 0, &r.seconds);
    if (r.status == VOTECL_OK)
        r.status = typed_check(b, c, n, &r.ok);
    if (!r.ok)
        b->all_ok = 0;
    json_case_open(b, c->label, &p, n, 1, &r);
    tool_json_end_object(&b->json);
    tool_progress(b->options, "bench: %-22s %-7s %8.3f GB/s %s\n", c->label,
                  votecl_variant_name(variant),
                  r.status == VOTECL_OK ? (double)(n * c->value_size) / r.seconds / 1e9 : 0.0,
                  r.ok ? "ok" : "FAILED");
    votecl_hist_plan_free(op.plan);
}

/* One case over b->bytes / 2 u16 values of the distribution name. */
static void
bench_hist16_case(bench *b, votecl_variant variant, const char *name, unsigned k)
{
    char label[64];
    typed_case c = {label, 2, .want = hist16_want};

    votecl_hist_params_init(&c.params, VOTECL_DTYPE_U16);
    c.params.nbins[0] = HIST16_BINS; /* over [0, 65536): 16 values per bin */
    hist16_fill((uint16_t *)b->host, b->bytes / 2, name, k);
    snprintf(label, sizeof label, "u16_4096_%s", name);
    bench_typed_case(b, variant, &c);
}

void
tool_bench_hist16(bench *b)
{
    static const struct {
        const char *name;
        unsigned k;
    } dists[] = {{"random", 0},    {"constant", 0},  {"distinct2", 2},
                 {"distinct4", 4}, {"distinct8", 8}, {"distinct16", 16}};
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++) {
        bench_hist16_case(b, VOTECL_VARIANT_AUTO, dists[d].name, dists[d].k);
        for (votecl_variant v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++)
            if (b->args.variants & 1u << v)
                bench_hist16_case(b, v, dists[d].name, dists[d].k);
    }
}

/* --- f32 data (issue 23: bins near edges follow calcHist's double-precision rule) --- */

typedef struct histf32_shape {
    const char *name;
    uint32_t nbins;
    double lo, hi;
} histf32_shape;

/* n floats over the shape's range: random (xorshift64, 24 bits), constant, or each 16-byte
 * chunk (4 values) one value with k distinct values across consecutive work-items. */
static void
histf32_fill(float *p, size_t n, const histf32_shape *s, const char *name, unsigned k)
{
    uint64_t x = 1;
    double span = s->hi - s->lo;
    for (size_t i = 0; i < n; i++) {
        double u;
        if (strcmp(name, "random") == 0) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            u = (double)(x >> 40) * 0x1p-24;
        } else {
            u = k == 0 ? 1.0 / 3 : (double)((i >> 2) % k) / k + 0.5 / k;
        }
        p[i] = (float)(s->lo + span * u);
    }
}

/* The counts against the rule of votecl-vote.h computed here in double precision. */
static void
histf32_want(uint32_t *want, const void *host, size_t n, const void *shape)
{
    const histf32_shape *s = shape;
    const float *f = host;
    for (size_t i = 0; i < n; i++) {
        double v = f[i], t = floor((v - s->lo) * s->nbins / (s->hi - s->lo));
        if (v >= s->lo && v < s->hi)
            want[t < s->nbins ? (uint32_t)t : s->nbins - 1]++;
    }
}

/* One case over b->bytes / 4 floats of the distribution name over shape's range. */
static void
bench_histf32_case(bench *b, votecl_variant variant, const histf32_shape *shape,
                   const char *name, unsigned k)
{
    char label[64];
    typed_case c = {label, 4, .want = histf32_want, .shape = shape};

    votecl_hist_params_init(&c.params, VOTECL_DTYPE_F32);
    c.params.nbins[0] = shape->nbins;
    c.params.min[0] = shape->lo;
    c.params.max[0] = shape->hi;
    histf32_fill((float *)b->host, b->bytes / 4, shape, name, k);
    snprintf(label, sizeof label, "f32_%s_%s", shape->name, name);
    bench_typed_case(b, variant, &c);
}

void
tool_bench_histf32(bench *b)
{
    static const histf32_shape shapes[] = {{"256", 256, 0.0, 1.0},
                                           {"256085", 256085, -1000.0, 1000.0}};
    static const struct {
        const char *name;
        unsigned k;
    } dists[] = {{"random", 0}, {"constant", 0}, {"distinct16", 16}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++) {
            if (s > 0 && d > 0)
                continue; /* the wide histogram: random data only */
            bench_histf32_case(b, VOTECL_VARIANT_AUTO, &shapes[s], dists[d].name, dists[d].k);
            for (votecl_variant v = VOTECL_VARIANT_LOCAL; v <= VOTECL_VARIANT_PRIVATE; v++)
                if (b->args.variants & 1u << v)
                    bench_histf32_case(b, v, &shapes[s], dists[d].name, dists[d].k);
        }
}

/* Whether the cases of group run (--only). */
static int
bench_wants(const bench *b, const char *group)
{
    return b->args.only == NULL || strcmp(b->args.only, group) == 0;
}

/* The histogram's u8 cases: every data distribution, frames, and the same as a user vote. */
void
tool_bench_hist(bench *b)
{
    for (size_t i = 0; i < sizeof bench_distributions / sizeof bench_distributions[0]; i++)
        if (bench_distributions[i].fill != fill_image || b->building.data)
            bench_distribution_case(b, &bench_distributions[i]);
    bench_frame_cases(b);
    bench_colour_cases(b);
    bench_user_histogram(b);
}

/* Copy bandwidth and the histogram plans (for "hist"), then every algorithm's groups. */
static int
bench_cases(bench *b)
{
    int hist = bench_wants(b, "hist"), rc = hist ? bench_copy(b) : TOOL_EXIT_OK;
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (hist) {
        bench_plans_new(b);
        json_plan_list(b, "plans", json_plan_status);
    }
    tool_json_key(&b->json, "cases");
    tool_json_begin_array(&b->json);
    for (size_t a = 0; tool_algorithms[a] != NULL; a++)
        for (size_t g = 0; g < tool_algorithms[a]->nbench; g++)
            if (bench_wants(b, tool_algorithms[a]->bench[g].name))
                tool_algorithms[a]->bench[g].run(b);
    tool_json_end_array(&b->json);
    if (hist)
        json_plan_list(b, "worst", json_plan_worst);
    return TOOL_EXIT_OK;
}

/* --- what the groups share --- */

void
tool_bench_case_begin(bench *b, const char *name, votecl_status status)
{
    tool_json_begin_object(&b->json);
    tool_json_kv_string(&b->json, "case", name);
    tool_json_kv_string(&b->json, "status", votecl_status_name(status));
}

int
tool_bench_case_result(bench *b, const char *name, votecl_status status, double seconds, int counts)
{
    if (status != VOTECL_OK) {
        tool_json_kv_string(&b->json, "error", votecl_context_get_error(b->ctx));
        if (counts)
            b->all_ok = 0;
        return 0;
    }
    tool_json_kv_double(&b->json, "seconds", seconds);
    tool_bench_note(b, name, NULL, seconds);
    return 1;
}

votecl_status
tool_bench_queued(bench *b, tool_bench_op_fn op, void *arg)
{
    votecl_queue_counts before, after;
    votecl_status st;
    if ((st = votecl_context_get_queue_counts(b->ctx, &before)) != VOTECL_OK ||
        (st = op(arg)) != VOTECL_OK ||
        (st = votecl_context_get_queue_counts(b->ctx, &after)) != VOTECL_OK)
        return st;
    tool_json_key(&b->json, "queued");
    tool_json_begin_object(&b->json);
    tool_json_kv_uint(&b->json, "launches", after.launches - before.launches);
    tool_json_kv_uint(&b->json, "fills", after.fills - before.fills);
    tool_json_kv_uint(&b->json, "copies", after.copies - before.copies);
    tool_json_kv_uint(&b->json, "writes", after.writes - before.writes);
    tool_json_kv_uint(&b->json, "reads", after.reads - before.reads);
    tool_json_end_object(&b->json);
    tool_progress(b->options, "bench: %llu launches, %llu fills, %llu writes, %llu reads a call\n",
                  (unsigned long long)(after.launches - before.launches),
                  (unsigned long long)(after.fills - before.fills),
                  (unsigned long long)(after.writes - before.writes),
                  (unsigned long long)(after.reads - before.reads));
    return VOTECL_OK;
}

/* --- frames from building.png, for the groups of the line detectors --- */

/* src stretched over dst (nearest neighbour), both one-channel u8. */
void
tool_bench_stretch(const tool_image *src, tool_image *dst)
{
    for (size_t y = 0; y < dst->height; y++)
        for (size_t x = 0; x < dst->width; x++)
            dst->data[y * dst->stride + x] =
                src->data[(y * src->height / dst->height) * src->stride +
                          x * src->width / dst->width];
}

/* building.png stretched to the frame size (nearest neighbour), then Sobel edges as
 * votecl_hough_run_gray() makes them at its defaults (thinned or not by params.thin_edges). */
int
tool_bench_edge_frame(tool_bench *b, tool_image *edges)
{
    tool_image big = {0};
    votecl_hough_params defaults;
    char error[256];
    int r;

    if (b->building.data == NULL || tool_image_alloc(&big, b->frame_width, b->frame_height, 1,
                                                     VOTECL_DTYPE_U8, error, sizeof error) != 0)
        return -1;
    tool_bench_stretch(&b->building, &big);
    votecl_hough_params_init(&defaults);
    r = tool_hough_sobel(&big, BENCH_SOBEL_THRESHOLD, defaults.thin_edges, edges, error,
                         sizeof error);
    tool_image_free(&big);
    return r;
}

/* --- startup --- */

/* The frame an application would already have; its making is subtracted from startup. */
static int
bench_startup_frame(bench *b)
{
    double t0 = tool_now();
    if (!(b->host = malloc(b->frame_width * b->frame_height)))
        return TOOL_EXIT_FAILURE;
    fill_random(b, b->host, b->frame_width * b->frame_height, 0);
    b->untimed_seconds = tool_now() - t0;
    return TOOL_EXIT_OK;
}

/* Process start to the first histogram of one frame, context and plan creation included. */
static int
bench_startup(bench *b)
{
    votecl_hist_params params;
    votecl_hist_plan *plan = NULL;
    uint32_t counts[BENCH_BINS];
    size_t n = b->frame_width * b->frame_height;
    double t0 = b->options->start_seconds + b->untimed_seconds;
    double t_context = tool_now(), t_plan, t_run, t_end;
    votecl_status st;
    int ok = 0;
    votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
    t_plan = tool_now();
    if ((st = votecl_hist_plan_new(b->ctx, &params, &plan)) != VOTECL_OK)
        goto out;
    t_run = tool_now();
    st = votecl_hist_run(plan, b->host, NULL, NULL, n, counts);
    t_end = tool_now();
    if (st == VOTECL_OK) {
        uint64_t sum = 0;
        for (size_t i = 0; i < BENCH_BINS; i++)
            sum += counts[i];
        ok = sum == n;
    }
    tool_json *j = &b->json;
    tool_json_key(j, "startup");
    tool_json_begin_object(j);
    tool_json_kv_uint(j, "elements", n);
    tool_json_kv_double(j, "seconds", t_end - t0);
    tool_json_kv_double(j, "until_context_seconds", t_context - t0);
    tool_json_kv_double(j, "plan_seconds", t_run - t_plan);
    tool_json_kv_double(j, "run_seconds", t_end - t_run);
    tool_json_kv_string(j, "cache_dir", votecl_context_get_cache_dir(b->ctx));
    tool_json_kv_bool(j, "ok", ok);
    tool_bench_note(b, "startup", NULL, t_end - t0);
    tool_bench_note(b, "startup_plan", NULL, t_run - t_plan);
    tool_json_end_object(j);
    tool_progress(b->options, "bench: startup %.3f s\n", t_end - t0);
    b->all_ok = ok;
out:
    votecl_hist_plan_free(plan);
    return st == VOTECL_OK ? TOOL_EXIT_OK : tool_fail(b->ctx, st, "startup histogram");
}

/* --- the command --- */

static void
bench_sizes(bench *b)
{
    b->bytes = b->args.mib << 20;
    b->frame_width = b->args.quick ? 240 : 1920;
    b->frame_height = b->args.quick ? 135 : 1080;
    b->frames = b->args.quick ? 8 : 64;
}

static int
bench_body(bench *b)
{
    if (b->args.startup)
        return bench_startup(b);
    load_building(b);
    json_config(b);
    int rc = bench_alloc(b);
    return rc != TOOL_EXIT_OK ? rc : bench_cases(b);
}

static void
bench_free(bench *b)
{
    for (size_t i = 0; i < b->nplans; i++)
        votecl_hist_plan_free(b->plans[i].plan);
    votecl_buffer_free(b->x);
    votecl_buffer_free(b->dst);
    votecl_buffer_free(b->bins);
    free(b->host);
    tool_image_free(&b->building);
    votecl_context_free(b->ctx);
}

/* The JSON output: written whole through tool_output, stdout when path is NULL. */
static FILE *
open_output(const char *path, tool_output *output)
{
    char error[1200];
    if (tool_output_open(output, path ? path : "-", error, sizeof error) < 0) {
        fprintf(stderr, "votecl bench: %s\n", error);
        return NULL;
    }
    return output->file;
}

/* One backend's run into the open JSON object: device, cases, ok. Frees what it made. */
static int
bench_run(bench *b)
{
    int rc = tool_context_open(b->options, &b->ctx);
    if (rc == TOOL_EXIT_OK) {
        tool_progress(b->options, "bench: %s backend\n",
                      votecl_backend_name(votecl_context_get_backend(b->ctx)));
        json_device(&b->json, b->ctx);
        rc = bench_body(b);
    }
    tool_json_kv_bool(&b->json, "ok", rc == TOOL_EXIT_OK && b->all_ok);
    if (rc == TOOL_EXIT_OK && !b->all_ok)
        rc = TOOL_EXIT_FAILURE;
    bench_free(b);
    return rc;
}

static const bench_record *
find_record(const bench *b, const char *name)
{
    for (size_t i = 0; i < b->nrecords; i++)
        if (strcmp(b->records[i].name, name) == 0)
            return &b->records[i];
    return NULL;
}

/* Every case both runs timed: seconds on each and OpenCL's time over CUDA's. */
static void
bench_compare(tool_json *j, const bench *ocl, const bench *cuda, FILE *text)
{
    tool_json_key(j, "comparison");
    tool_json_begin_array(j);
    if (text)
        fprintf(text, "%-28s %14s %14s %8s\n", "case", "opencl us", "cuda us", "speedup");
    for (size_t i = 0; i < ocl->nrecords; i++) {
        const bench_record *a = &ocl->records[i], *c = find_record(cuda, a->name);
        if (!c)
            continue;
        tool_json_begin_object(j);
        tool_json_kv_string(j, "case", a->name);
        tool_json_kv_double(j, "opencl_seconds", a->seconds);
        tool_json_kv_double(j, "cuda_seconds", c->seconds);
        tool_json_kv_double(j, "cuda_speedup", a->seconds / c->seconds);
        tool_json_end_object(j);
        if (text)
            fprintf(text, "%-28s %14.1f %14.1f %8.2f\n", a->name, a->seconds * 1e6,
                    c->seconds * 1e6, a->seconds / c->seconds);
    }
    tool_json_end_array(j);
}

/* --backend both: the two runs in "runs", then "comparison". */
static int
bench_both(bench *first, tool_json *j, FILE *text)
{
    static const votecl_backend backends[] = {VOTECL_BACKEND_OPENCL, VOTECL_BACKEND_CUDA};
    bench *runs = calloc(2, sizeof *runs);
    tool_options options[2];
    int rc = TOOL_EXIT_OK;
    if (!runs)
        return TOOL_EXIT_FAILURE;
    tool_json_key(j, "runs");
    tool_json_begin_array(j);
    for (size_t i = 0; i < 2; i++) {
        options[i] = *first->options;
        options[i].backend = backends[i];
        if (i > 0) /* startup counts from here, not from the first run's start */
            options[i].start_seconds = tool_now();
        runs[i] = (bench){.options = &options[i],
                          .args = first->args,
                          .all_ok = 1,
                          .json = *j,
                          .untimed_seconds = first->untimed_seconds};
        runs[i].frame_width = first->frame_width;
        runs[i].frame_height = first->frame_height;
        runs[i].frames = first->frames;
        runs[i].bytes = first->bytes;
        if (first->args.startup &&
            (runs[i].host = malloc(first->frame_width * first->frame_height)))
            memcpy(runs[i].host, first->host, first->frame_width * first->frame_height);
        tool_json_begin_object(&runs[i].json);
        if (bench_run(&runs[i]) != TOOL_EXIT_OK)
            rc = TOOL_EXIT_FAILURE;
        tool_json_end_object(&runs[i].json);
        *j = runs[i].json;
    }
    tool_json_end_array(j);
    bench_compare(j, &runs[0], &runs[1], text);
    tool_json_kv_bool(j, "ok", rc == TOOL_EXIT_OK);
    free(runs);
    return rc;
}

int
tool_cmd_bench(tool_options *options, int argc, char **argv)
{
    tool_output output;
    char error[1200];
    bench b = {.options = options, .all_ok = 1};
    FILE *out = NULL, *text = NULL, *body = NULL;
    char *results = NULL;
    size_t results_size = 0;
    int rc = bench_parse(options, &b.args, argc, argv);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (options->help) {
        bench_usage(stdout);
        return TOOL_EXIT_OK;
    }
    bench_sizes(&b);
    if (b.args.startup && bench_startup_frame(&b) != TOOL_EXIT_OK)
        return TOOL_EXIT_FAILURE;
    if (!(out = open_output(b.args.json_path, &output)) ||
        !(body = open_memstream(&results, &results_size))) {
        if (out)
            tool_output_close(&output, 0, error, sizeof error);
        free(b.host);
        return TOOL_EXIT_FAILURE;
    }
    if (b.args.both)
        text = b.args.json_path ? stdout : options->quiet ? NULL : stderr;
    tool_json_init(&b.json, body);
    tool_json_begin_object(&b.json);
    json_date(&b.json);
    if (b.args.both) {
        rc = bench_both(&b, &b.json, text);
        free(b.host);
    } else {
        rc = bench_run(&b);
    }
    tool_json_end_object(&b.json);
    if (fclose(body) == 0)
        json_document(out, &b.args, results);
    else
        rc = TOOL_EXIT_FAILURE;
    free(results);
    if (tool_output_close(&output, 1, error, sizeof error) < 0) {
        fprintf(stderr, "votecl bench: %s\n", error);
        rc = TOOL_EXIT_FAILURE;
    }
    return rc;
}
