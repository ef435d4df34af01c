/* The disk cache's reader (lib/diskcache.c) on crafted entry files. The first input byte
 * says which header fields to make right so that the fuzzer gets past each check (bit 0:
 * magic, version and header size; 1: the key; 2: the payload size; 3: the payload's
 * SHA-256); the rest is the file. Properties: a hit returns exactly the file's payload and
 * only when every field is right; an entry stored with the payload of the input loads back
 * unchanged; nothing is left but whole entries. */
#include "votecl-private.h"

#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER 88

static char dir[64];
static const uint8_t key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const uint8_t other_key[32] = {42};

static void
remove_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    while (d != NULL && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
}

static void
put_le(uint8_t *p, uint64_t x, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

static void
write_file(const char *name, const uint8_t *data, size_t size)
{
    FILE *f = fopen(name, "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
}

/* Only whole entries: names of 64 hex digits and ".bin". */
static void
check_directory(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    FUZZ_CHECK(d != NULL);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || strcmp(e->d_name, "..") == 0))
            continue;
        FUZZ_CHECK(strlen(e->d_name) == 68 && strcmp(e->d_name + 64, ".bin") == 0);
    }
    closedir(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    uint8_t *file;
    size_t n;
    char *name;
    void *payload = NULL;
    size_t got = 0;
    int hit, fix;

    if (!ready) {
        const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%.30s/votecl-fuzz-XXXXXX", tmp);
        FUZZ_CHECK(mkdtemp(dir) != NULL);
        atexit(remove_dir);
        ready = 1;
    }
    if (size == 0)
        return 0;
    fix = data[0];
    n = size - 1;
    file = malloc(n > 0 ? n : 1);
    FUZZ_CHECK(file != NULL);
    memcpy(file, data + 1, n);
    if (n >= HEADER) {
        if (fix & 1) {
            memcpy(file, "VOTECLBC", 8);
            put_le(file + 8, 1, 4);
            put_le(file + 12, HEADER, 4);
        }
        if (fix & 2)
            memcpy(file + 16, key, 32);
        if (fix & 4)
            put_le(file + 48, n - HEADER, 8);
        if (fix & 8) {
            votecl__sha256 h;
            votecl__sha256_init(&h);
            votecl__sha256_update(&h, file + HEADER, n - HEADER);
            votecl__sha256_final(&h, file + 56);
        }
    }
    name = votecl__diskcache_filename(dir, key);
    FUZZ_CHECK(name != NULL);
    write_file(name, file, n);
    hit = votecl__diskcache_load(dir, key, &payload, &got) == 0;
    if (hit) {
        FUZZ_CHECK(n >= HEADER);
        FUZZ_CHECK(got == n - HEADER && memcmp(payload, file + HEADER, got) == 0);
        FUZZ_CHECK(memcmp(file, "VOTECLBC", 8) == 0 && memcmp(file + 16, key, 32) == 0);
    } else {
        FUZZ_CHECK(payload == NULL && got == 0);
    }
    free(payload);
    /* The same file under another key is a miss. */
    FUZZ_CHECK(votecl__diskcache_load(dir, other_key, &payload, &got) != 0);
    unlink(name);
    free(name);

    /* The input as a payload: stored, then loaded back unchanged. */
    FUZZ_CHECK(votecl__diskcache_store(dir, other_key, data, size) == 0);
    FUZZ_CHECK(votecl__diskcache_load(dir, other_key, &payload, &got) == 0);
    FUZZ_CHECK(got == size && memcmp(payload, data, size) == 0);
    free(payload);
    check_directory();
    name = votecl__diskcache_filename(dir, other_key);
    unlink(name);
    free(name);
    free(file);
    return 0;
}
