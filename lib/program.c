/* Program composition and the two program caches.
 *
 * The host composes the text the compiler sees: the sorted defines (the caller's and the
 * device facts), cl/prelude.h, cl/common.h, optional extra source (a user's functions, with
 * their own #line), then the algorithm files.
 * There is no #include and no -I: the hashed text is exactly what is compiled. The cache key
 * is SHA-256 over (backend build id, build options, composed text). Programs live in the
 * context's memory cache; their binaries in the disk cache, where any failure is only a miss
 * and never fails the call. */
#include "votecl-private.h"

#include "fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Conservative build options: no fast-math, no mad, so bin boundaries agree with the
 * C reference (cl/prelude.h also turns FP_CONTRACT off). */
#define BUILD_OPTIONS "-cl-std=CL1.2"

typedef struct kernel_entry {
    char *name;
    void *handle;
    struct kernel_entry *next;
} kernel_entry;

struct votecl__program {
    uint8_t key[32];
    void *handle;
    char *source;
    int from_disk;
    kernel_entry *kernels;
    votecl__program *next;
};

/* A growing string; on allocation failure it stays failed and reports it once. */
typedef struct text {
    char *data;
    size_t len, cap;
    int failed;
} text;

static void
text_append(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *data = votecl__realloc(t->data, cap);
        if (data == NULL) {
            t->failed = 1;
            return;
        }
        t->data = data;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void
text_puts(text *t, const char *s)
{
    text_append(t, s, strlen(s));
}

static int
compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
append_define(text *t, const char *define)
{
    const char *eq = strchr(define, '=');

    text_puts(t, "#define ");
    if (eq == NULL) {
        text_puts(t, define);
    } else {
        text_append(t, define, (size_t)(eq - define));
        text_puts(t, " ");
        text_puts(t, eq + 1);
    }
    text_puts(t, "\n");
}

/* The message of a kernel file not found, or found where others could change it. */
static votecl_status
kernel_not_found(votecl_context *context, const char *file)
{
    char *untrusted = votecl__kernel_path_untrusted(context->kernel_path, file);
    votecl_status status;

    if (untrusted == NULL)
        return votecl__fail(context, VOTECL_KERNEL_NOT_FOUND, "kernel file %s not found in '%s'",
                            file, context->kernel_path);
    status = votecl__fail(context, VOTECL_KERNEL_NOT_FOUND,
                          "kernel file %s: not loaded, since another user could change it (owned "
                          "by neither this user nor root, or writable by group or others, or a "
                          "directory above it is): kernel files are code (docs/env.md)",
                          untrusted);
    free(untrusted);
    return status;
}

/* Device facts as defines, so kernels can adapt without hard-coded device names. */
static size_t
device_defines(const votecl_context *context, char defs[][96])
{
    static const struct {
        unsigned bit;
        const char *name;
    } features[] = {{VOTECL__FEATURE_WARP_MATCH, "WARP_MATCH"},
                    {VOTECL__FEATURE_SUBGROUPS, "SUBGROUPS"},
                    {VOTECL__FEATURE_FP64, "FP64"},
                    {VOTECL__FEATURE_ATOMICS64, "ATOMICS64"}};
    const votecl_device_info *info = &context->info;
    size_t n = 0;

    snprintf(defs[n++], 96, "VOTECL_LOCAL_MEM_BYTES=%llu",
             (unsigned long long)info->local_mem_bytes);
    snprintf(defs[n++], 96, "VOTECL_DEVICE_%s",
             info->type == VOTECL_DEVICE_GPU   ? "GPU"
             : info->type == VOTECL_DEVICE_CPU ? "CPU"
                                               : "OTHER");
    snprintf(defs[n++], 96, "VOTECL_BACKEND_%s",
             context->backend == VOTECL_BACKEND_CUDA ? "CUDA" : "OPENCL");
    if (strcasestr(info->vendor, "NVIDIA") != NULL)
        snprintf(defs[n++], 96, "VOTECL_VENDOR_NVIDIA");
    else if (strcasestr(info->vendor, "Advanced Micro") != NULL ||
             strcasestr(info->vendor, "AMD") != NULL)
        snprintf(defs[n++], 96, "VOTECL_VENDOR_AMD");
    else if (strcasestr(info->vendor, "Intel") != NULL)
        snprintf(defs[n++], 96, "VOTECL_VENDOR_INTEL");
    if (strcasestr(info->platform, "Portable Computing") != NULL)
        snprintf(defs[n++], 96, "VOTECL_PLATFORM_POCL");
    /* The shape and what the profile left (context.c), so that a profile's kernels are
     * composed, cached and compiled as that device's. */
    snprintf(defs[n++], 96, "VOTECL_SHAPE_%s", context->shape.cpu ? "CPU" : "GPU");
    snprintf(defs[n++], 96, "VOTECL_SIMD_WIDTH=%u", context->shape.simd);
    snprintf(defs[n++], 96, "VOTECL_MAX_WORK_GROUP_SIZE=%zu", info->max_work_group_size);
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
        if (context->shape.features & features[i].bit)
            snprintf(defs[n++], 96, "VOTECL_FEATURE_%s", features[i].name);
    return n;
}

static votecl_status
append_file(votecl_context *context, text *t, const char *file)
{
    char *path = NULL, *body = NULL;
    size_t size;
    votecl_status status = votecl__kernel_path_find(context->kernel_path, file, &path);

    if (status == VOTECL_KERNEL_NOT_FOUND)
        return kernel_not_found(context, file);
    if (status != VOTECL_OK)
        return votecl__fail(context, status, "looking up kernel file %s", file);
    status = votecl__read_file(path, &body, &size);
    if (status != VOTECL_OK) {
        votecl__fail(context, status, "cannot read kernel file %s", path);
        free(path);
        return status;
    }
    text_puts(t, "#line 1 \"");
    text_puts(t, file);
    text_puts(t, "\"\n");
    text_append(t, body, size);
    text_puts(t, "\n");
    free(body);
    free(path);
    return VOTECL_OK;
}

static votecl_status
compose(votecl_context *context, const char *const *files, const char *const *defines,
        size_t ndefines, const char *extra_source, text *t)
{
    char devdefs[16][96];
    size_t ndev = device_defines(context, devdefs);
    const char **all = votecl__malloc((ndefines + ndev + 1) * sizeof *all);
    static const char *const base[] = {"prelude.h", "common.h"};
    votecl_status status = VOTECL_OK;

    if (all == NULL)
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    for (size_t i = 0; i < ndefines; i++)
        all[i] = defines[i];
    for (size_t i = 0; i < ndev; i++)
        all[ndefines + i] = devdefs[i];
    qsort(all, ndefines + ndev, sizeof *all, compare_strings);
    for (size_t i = 0; i < ndefines + ndev; i++)
        append_define(t, all[i]);
    free(all);
    for (size_t i = 0; i < 2 && status == VOTECL_OK; i++)
        status = append_file(context, t, base[i]);
    if (status == VOTECL_OK && extra_source != NULL) {
        text_puts(t, extra_source);
        text_puts(t, "\n");
    }
    for (size_t i = 0; files[i] != NULL && status == VOTECL_OK; i++)
        status = append_file(context, t, files[i]);
    if (status == VOTECL_OK && t->failed)
        status = votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory composing");
    return status;
}

/* Where absolute line line of the composed source came from: the name and line of the
 * last #line directive before it (name: at most size - 1 bytes). 0 when none. */
static uint32_t
source_line(const char *source, uint32_t line, char *name, size_t size)
{
    uint32_t at = 1, local = 0;

    name[0] = '\0';
    for (const char *p = source; *p != '\0' && at < line; at++) {
        const char *end = strchr(p, '\n');
        unsigned long n;
        int used = 0;
        if (sscanf(p, "#line %lu \"%n", &n, &used) == 1 && used > 0) {
            const char *q = p + used, *close = strchr(q, '"');
            size_t len = close != NULL && (end == NULL || close < end) ? (size_t)(close - q) : 0;
            len = len < size - 1 ? len : size - 1;
            memcpy(name, q, len);
            name[len] = '\0';
            local = (uint32_t)n - 1; /* the directive names the next line */
        } else if (name[0] != '\0') {
            local++;
        }
        if (end == NULL)
            break;
        p = end + 1;
    }
    return name[0] != '\0' ? local + 1 : 0;
}

char *
votecl__relocate_log(const char *source, const char *log)
{
    static const char tag[] = "<kernel>:";
    text out = {0};

    if (log == NULL || strstr(log, tag) == NULL)
        return NULL;
    for (const char *p = log; *p != '\0';) {
        const char *hit = strstr(p, tag);
        char name[64], num[32];
        unsigned long line;
        int used = 0;
        uint32_t local;
        if (hit == NULL) {
            text_puts(&out, p);
            break;
        }
        text_append(&out, p, (size_t)(hit - p));
        p = hit + sizeof tag - 1;
        if (sscanf(p, "%lu%n", &line, &used) == 1 && line <= UINT32_MAX &&
            (local = source_line(source, (uint32_t)line, name, sizeof name)) > 0) {
            snprintf(num, sizeof num, ":%u", (unsigned)local);
            text_puts(&out, name);
            text_puts(&out, num);
            p += used;
        } else {
            text_puts(&out, tag);
        }
    }
    if (out.failed) {
        free(out.data);
        return NULL;
    }
    return out.data;
}

/* The build log with its locations relocated (votecl__relocate_log), when it has any. */
static void
relocate_log(votecl_context *context, const char *source)
{
    char *log = votecl__relocate_log(source, context->build_log);

    if (log != NULL)
        votecl__set_build_log(context, log);
    free(log);
}

static void
program_key(const votecl_context *context, const char *source, uint8_t key[32])
{
    votecl__sha256 h;
    const char *id = context->ops->build_id(context);

    votecl__sha256_init(&h);
    votecl__sha256_update(&h, id, strlen(id) + 1);
    votecl__sha256_update(&h, BUILD_OPTIONS, sizeof BUILD_OPTIONS);
    votecl__sha256_update(&h, source, strlen(source));
    votecl__sha256_final(&h, key);
}

double
votecl__now_seconds(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Loads from the disk cache; any failure is a miss and leaves no error behind. */
static int
load_from_disk(votecl_context *context, const uint8_t key[32], void **handle)
{
    void *binary = NULL;
    size_t size = 0;
    char saved[sizeof context->error];
    int hit = 0;

    if (context->cache_dir == NULL ||
        votecl__diskcache_load(context->cache_dir, key, &binary, &size) != 0)
        return 0;
    memcpy(saved, context->error, sizeof saved);
    votecl__diskcache_loading(context->cache_dir, key);
    hit = context->ops->program_load(context, binary, size, BUILD_OPTIONS, handle) == VOTECL_OK;
    votecl__diskcache_loaded(context->cache_dir, key);
    memcpy(context->error, saved, sizeof saved);
    votecl__log(context, "program %02x%02x%02x%02x: disk cache %s for a %zu-byte binary", key[0],
                key[1], key[2], key[3], hit ? "hit" : "reject", size);
    free(binary);
    return hit;
}

/* PoCL is left to its own kernel cache (POCL_CACHE_DIR, else ~/.cache/pocl/kcache, keyed by
 * the same source and options): asking it for a binary makes it generate the work-group code
 * of every kernel in the program for a generic work-group size (7 s for the GHT program on
 * the 2-core machine, more than the whole build), code that a launch does not use since PoCL
 * specialises each kernel for its launch's work-group size anyway, and its own cache already
 * holds the program and those specialised kernels. VOTECL_POCL_BINARIES stores them anyway
 * (make check sets it, so that the disk cache's paths are tested on PoCL too). */
static int
store_binaries(const votecl_context *context)
{
    return context->backend != VOTECL_BACKEND_OPENCL || context->pocl_binaries ||
           strcasestr(context->info.platform, "Portable Computing") == NULL;
}

static void
store_to_disk(votecl_context *context, const uint8_t key[32], void *handle)
{
    void *binary = NULL;
    size_t size = 0;
    char saved[sizeof context->error];
    double t0 = votecl__now_seconds();

    if (context->cache_dir == NULL || !store_binaries(context))
        return;
    memcpy(saved, context->error, sizeof saved);
    if (context->ops->program_binary(context, handle, &binary, &size) == VOTECL_OK &&
        votecl__diskcache_store(context->cache_dir, key, binary, size) != 0)
        votecl__log(context, "disk cache: could not store in %s", context->cache_dir);
    votecl__log(context, "program %02x%02x%02x%02x: %zu-byte binary stored in %.2f s", key[0],
                key[1], key[2], key[3], size, votecl__now_seconds() - t0);
    memcpy(context->error, saved, sizeof saved);
    free(binary);
}

/* Writes body to dir/name through a temporary file renamed into place, so that processes
 * dumping the same program at once never leave a partial file. 0 on success. */
static int
dump_file(const char *dir, const char *name, const char *body)
{
    char path[4096], temp[4160];
    FILE *f;
    int ok;

    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        snprintf(temp, sizeof temp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof temp)
        return -1;
    if ((f = fopen(temp, "w")) == NULL)
        return -1;
    ok = fputs(body, f) >= 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(temp, path) != 0) {
        remove(temp);
        return -1;
    }
    return 0;
}

/* VOTECL_DUMP_PROGRAMS (docs/env.md): writes <key><suffix> into the dump directory, for
 * offline compilers (tools/offline-compile.py). A debugging aid: a failure is only logged. */
static void
dump_text(votecl_context *context, const uint8_t key[32], const char *suffix, const char *body)
{
    char name[96];

    if (context->dump_dir == NULL)
        return;
    for (int i = 0; i < 32; i++)
        snprintf(name + 2 * i, 3, "%02x", key[i]);
    snprintf(name + 64, sizeof name - 64, "%s", suffix);
    if ((mkdir(context->dump_dir, 0777) != 0 && access(context->dump_dir, W_OK) != 0) ||
        dump_file(context->dump_dir, name, body) != 0)
        votecl__log(context, "VOTECL_DUMP_PROGRAMS: cannot write %s/%s", context->dump_dir, name);
}

/* The options first: a reader that finds <key>.cl also finds them. */
static void
dump_program(votecl_context *context, const uint8_t key[32], const char *source)
{
    dump_text(context, key, ".options", BUILD_OPTIONS "\n");
    dump_text(context, key, ".cl", source);
}

/* The files of a program, space-separated, for the debug log and the build callback. */
static void
files_label(const char *const *files, char *label, size_t size)
{
    size_t at = 0;

    label[0] = '\0';
    for (size_t i = 0; files[i] != NULL && at < size; i++) {
        int n = snprintf(label + at, size - at, "%s%s", i > 0 ? " " : "", files[i]);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

static votecl__program *
cache_find(votecl_context *context, const uint8_t key[32])
{
    for (votecl__program *p = context->programs; p != NULL; p = p->next)
        if (memcmp(p->key, key, 32) == 0)
            return p;
    return NULL;
}

/* Compiles the composed source; the debug log and the context's build callback see it. */
static votecl_status
build(votecl_context *context, const char *const *files, const uint8_t key[32], const char *source,
      void **handle)
{
    char label[256];
    double t0 = votecl__now_seconds(), seconds;
    votecl_status status;

    files_label(files, label, sizeof label);
    context->builds++;
    if (context->build_callback != NULL)
        context->build_callback(VOTECL_BUILD_STARTED, label, 0.0, context->build_user);
    status = votecl__fault_hit(VOTECL__FAULT_BUILD)
                 ? votecl__fail(context, VOTECL_BUILD_FAILED, "injected fault: program build")
                 : context->ops->program_build(context, source, BUILD_OPTIONS, handle);
    seconds = votecl__now_seconds() - t0;
    if (status != VOTECL_OK)
        relocate_log(context, source);
    votecl__log(context, "program %02x%02x%02x%02x (%s): compiled in %.2f s%s", key[0], key[1],
                key[2], key[3], label, seconds, status == VOTECL_OK ? "" : ", failed");
    if (context->build_callback != NULL)
        context->build_callback(VOTECL_BUILD_FINISHED, label, seconds, context->build_user);
    return status;
}

votecl_status
votecl__program_get(votecl_context *context, const char *const *files,
                    const char *const *defines, size_t ndefines, const char *extra_source,
                    votecl__program **out)
{
    text t = {0};
    uint8_t key[32];
    votecl__program *program;
    votecl_status status = compose(context, files, defines, ndefines, extra_source, &t);

    if (status != VOTECL_OK)
        goto out;
    program_key(context, t.data, key);
    if ((*out = cache_find(context, key)) != NULL)
        goto out;
    program = votecl__calloc(1, sizeof *program);
    if (program == NULL) {
        status = votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
        goto out;
    }
    memcpy(program->key, key, 32);
    dump_program(context, key, t.data);
    program->from_disk = load_from_disk(context, key, &program->handle);
    if (!program->from_disk) {
        status = build(context, files, key, t.data, &program->handle);
        if (status != VOTECL_OK) {
            /* Marks a program the device rejected (the tests' deliberately broken ones). */
            dump_text(context, key, ".log", context->build_log ? context->build_log : "");
            free(program);
            goto out;
        }
        store_to_disk(context, key, program->handle);
    }
    program->source = t.data;
    t.data = NULL;
    program->next = context->programs;
    context->programs = program;
    *out = program;
out:
    free(t.data);
    return status;
}

votecl_status
votecl__program_kernel(votecl_context *context, votecl__program *program, const char *name,
                       void **kernel)
{
    kernel_entry *k;
    votecl_status status;

    for (k = program->kernels; k != NULL; k = k->next) {
        if (strcmp(k->name, name) == 0) {
            *kernel = k->handle;
            return VOTECL_OK;
        }
    }
    k = votecl__calloc(1, sizeof *k);
    if (k == NULL || (k->name = votecl__strdup(name)) == NULL) {
        free(k);
        return votecl__fail(context, VOTECL_OUT_OF_HOST_MEMORY, "out of memory");
    }
    status = context->ops->kernel_create(context, program->handle, name, &k->handle);
    if (status != VOTECL_OK) {
        free(k->name);
        free(k);
        return status;
    }
    k->next = program->kernels;
    program->kernels = k;
    *kernel = k->handle;
    return VOTECL_OK;
}

votecl_status
votecl__program_kernels(votecl_context *context, const char *const *files,
                        const char *const *defines, size_t ndefines, const char *const *names,
                        size_t n, void **kernels)
{
    votecl__program *program = NULL;
    votecl_status status = votecl__program_get(context, files, defines, ndefines, NULL, &program);

    for (size_t k = 0; status == VOTECL_OK && k < n; k++)
        status = votecl__program_kernel(context, program, names[k], &kernels[k]);
    return status;
}

void
votecl__program_cache_clear(votecl_context *context)
{
    while (context->programs != NULL) {
        votecl__program *p = context->programs;
        context->programs = p->next;
        while (p->kernels != NULL) {
            kernel_entry *k = p->kernels;
            p->kernels = k->next;
            context->ops->kernel_release(context, k->handle);
            free(k->name);
            free(k);
        }
        context->ops->program_release(context, p->handle);
        free(p->source);
        free(p);
    }
}

size_t
votecl__program_cache_count(const votecl_context *context)
{
    size_t n = 0;

    for (const votecl__program *p = context->programs; p != NULL; p = p->next)
        n++;
    return n;
}

const char *
votecl__program_source(const votecl__program *program)
{
    return program->source;
}

int
votecl__program_from_disk(const votecl__program *program)
{
    return program->from_disk;
}

votecl_status
votecl_context_set_build_callback(votecl_context *context, votecl_build_callback callback,
                                  void *user)
{
    VOTECL__ENTER_OR_RETURN(context);
    if (context == NULL)
        return VOTECL_INVALID_ARGUMENT;
    context->build_callback = callback;
    context->build_user = callback != NULL ? user : NULL;
    return VOTECL_OK;
}
