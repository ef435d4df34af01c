/* The on-disk program cache: one file per key, written to a temporary file and renamed so
 * that concurrent processes only ever see whole entries.
 *
 * Entry layout, little-endian:
 *   0  8  magic "VOTECLBC"
 *   8  4  format version (1)
 *  12  4  header size (88)
 *  16 32  key
 *  48  8  payload size
 *  56 32  SHA-256 of the payload
 *  88     payload */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* mkostemp, O_CLOEXEC */
#endif

#include "votecl-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "VOTECLBC"
#define FORMAT_VERSION 1u
#define HEADER_SIZE 88u
/* Program binaries are megabytes; a bigger size field is corruption, not a program. */
#define MAX_PAYLOAD ((uint64_t)1 << 30)

static void
put_le32(uint8_t *p, uint32_t x)
{
    for (unsigned i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

static void
put_le64(uint8_t *p, uint64_t x)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

static uint32_t
get_le32(const uint8_t *p)
{
    uint32_t x = 0;
    for (unsigned i = 0; i < 4; i++)
        x |= (uint32_t)p[i] << (8 * i);
    return x;
}

static uint64_t
get_le64(const uint8_t *p)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < 8; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

static void
sha256(const void *data, size_t size, uint8_t digest[32])
{
    votecl__sha256 h;
    votecl__sha256_init(&h);
    votecl__sha256_update(&h, data, size);
    votecl__sha256_final(&h, digest);
}

char *
votecl__diskcache_filename(const char *dir, const uint8_t key[32])
{
    if (dir == NULL || key == NULL)
        return NULL;
    char hex[65];
    votecl__sha256_hex(key, hex);
    size_t dir_len = strlen(dir);
    /* dir, '/', 64 hex digits, ".bin", NUL */
    char *name = votecl__malloc(dir_len + 1 + 64 + 4 + 1);
    if (name == NULL)
        return NULL;
    memcpy(name, dir, dir_len);
    size_t used = dir_len;
    if (used == 0 || name[used - 1] != '/')
        name[used++] = '/';
    memcpy(name + used, hex, 64);
    memcpy(name + used + 64, ".bin", 5);
    return name;
}

/* read() until size bytes arrived; 0 on success, -1 on error or early end of file. */
static int
read_full(int fd, void *data, size_t size)
{
    uint8_t *p = data;
    while (size > 0) {
        ssize_t got = read(fd, p, size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        size -= (size_t)got;
    }
    return 0;
}

static int
write_full(int fd, const void *data, size_t size)
{
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t put = write(fd, p, size);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return -1;
        p += put;
        size -= (size_t)put;
    }
    return 0;
}

/* Checks the header against key; returns the payload size or -1 for anything unexpected. */
static int64_t
parse_header(const uint8_t header[HEADER_SIZE], const uint8_t key[32])
{
    if (memcmp(header, MAGIC, 8) != 0 || get_le32(header + 8) != FORMAT_VERSION ||
        get_le32(header + 12) != HEADER_SIZE || memcmp(header + 16, key, 32) != 0)
        return -1;
    uint64_t size = get_le64(header + 48);
    if (size > MAX_PAYLOAD || size > SIZE_MAX - 1)
        return -1;
    return (int64_t)size;
}

/* Reads and checks the entry open on fd; 0 and a malloc'd payload on success. */
static int
load_entry(int fd, const uint8_t key[32], void **payload, size_t *size)
{
    uint8_t header[HEADER_SIZE];
    if (read_full(fd, header, sizeof header) != 0)
        return -1;
    int64_t payload_size = parse_header(header, key);
    struct stat st;
    /* The file must be exactly header plus payload: a longer one is not ours either. */
    if (payload_size < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size != HEADER_SIZE + (uint64_t)payload_size)
        return -1;

    size_t n = (size_t)payload_size;
    uint8_t *data = votecl__malloc(n > 0 ? n : 1);
    if (data == NULL)
        return -1;
    uint8_t digest[32];
    if (read_full(fd, data, n) != 0)
        goto fail;
    sha256(data, n, digest);
    if (memcmp(digest, header + 56, 32) != 0)
        goto fail;
    *payload = data;
    *size = n;
    return 0;

fail:
    free(data);
    return -1;
}

int
votecl__diskcache_load(const char *dir, const uint8_t key[32], void **payload, size_t *size)
{
    if (payload != NULL)
        *payload = NULL;
    if (size != NULL)
        *size = 0;
    if (payload == NULL || size == NULL)
        return -1;
    char *filename = votecl__diskcache_filename(dir, key);
    if (filename == NULL)
        return -1;

    int result = -1;
    int fd;
    do
        fd = open(filename, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd >= 0) {
        result = load_entry(fd, key, payload, size);
        close(fd);
    }
    free(filename);
    return result;
}

/* mkdir -p with mode 0700 for the directories it creates; 0 when dir is a directory. */
static int
make_directories(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : -1;

    char *path = votecl__strdup(dir);
    if (path == NULL)
        return -1;
    int result = 0;
    for (char *p = path + 1; result == 0; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        /* EEXIST: there already, or another process just made it. */
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            result = -1;
        *p = saved;
        if (saved == '\0')
            break;
    }
    free(path);
    if (result == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        result = -1;
    return result;
}

/* A unique temporary file next to the final name, so rename() stays within one file
 * system; *temp_name is malloc'd. Returns the descriptor or -1. */
static int
open_temporary(const char *dir, const uint8_t key[32], char **temp_name)
{
    char hex[65];
    votecl__sha256_hex(key, hex);
    size_t dir_len = strlen(dir);
    /* dir '/' ".tmp-" hex '-' pid '-' "XXXXXX" NUL; a pid has at most 20 digits. */
    size_t cap = dir_len + 1 + 5 + 64 + 1 + 20 + 1 + 6 + 1;
    char *name = votecl__malloc(cap);
    if (name == NULL)
        return -1;
    snprintf(name, cap, "%s%s.tmp-%s-%ld-XXXXXX", dir,
             dir_len > 0 && dir[dir_len - 1] == '/' ? "" : "/", hex, (long)getpid());
#ifdef HAVE_MKOSTEMP
    int fd = mkostemp(name, O_CLOEXEC);
#else
    int fd = mkstemp(name);
#endif
    if (fd < 0) {
        free(name);
        return -1;
    }
    *temp_name = name;
    return fd;
}

static int
write_entry(int fd, const uint8_t key[32], const void *payload, size_t size)
{
    uint8_t header[HEADER_SIZE];
    memcpy(header, MAGIC, 8);
    put_le32(header + 8, FORMAT_VERSION);
    put_le32(header + 12, HEADER_SIZE);
    memcpy(header + 16, key, 32);
    put_le64(header + 48, (uint64_t)size);
    sha256(payload, size, header + 56);
    if (write_full(fd, header, sizeof header) != 0 || write_full(fd, payload, size) != 0)
        return -1;
    return 0;
}

int
votecl__diskcache_store(const char *dir, const uint8_t key[32], const void *payload, size_t size)
{
    if (dir == NULL || dir[0] == '\0' || key == NULL || (payload == NULL && size > 0) ||
        (uint64_t)size > MAX_PAYLOAD)
        return -1;
    static const uint8_t empty[1];
    if (payload == NULL)
        payload = empty;

    char *filename = NULL;
    char *temp_name = NULL;
    int fd = -1;
    int result = -1;
    int written, closed;
    if (make_directories(dir) != 0)
        goto out;
    filename = votecl__diskcache_filename(dir, key);
    if (filename == NULL)
        goto out;
    fd = open_temporary(dir, key, &temp_name);
    if (fd < 0)
        goto out;
    written = write_entry(fd, key, payload, size);
    closed = close(fd);
    fd = -1;
    if (written != 0 || closed != 0)
        goto out;
    /* Atomic: readers see the old entry, no entry or the new one, never a partial one. */
    if (rename(temp_name, filename) != 0)
        goto out;
    result = 0;

out:
    if (fd >= 0)
        close(fd);
    if (result != 0 && temp_name != NULL)
        unlink(temp_name);
    free(temp_name);
    free(filename);
    return result;
}
