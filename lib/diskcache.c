/* The on-disk program cache: one file per key, written to a temporary file and renamed so
 * that concurrent processes only ever see whole entries.
 *
 * Trust (docs/env.md): an entry is code the driver runs in the caller's process, so it is
 * loaded only from a directory owned by the effective user and not writable by group or
 * others, and only when the file itself is a regular file with the same owner and no group
 * or other write bit; anything else is a miss (and nothing is stored there). Opening never
 * blocks (O_NONBLOCK: a FIFO planted at an entry's name is a miss, not a hang).
 *
 * Poisoned entries: while a process hands an entry to the driver, a marker
 * "<hex>.loading-<pid>" sits beside it; a marker whose process is gone means that process
 * died while loading, and the entry is deleted instead of crashing every later run.
 * Temporaries ".tmp-<hex>-<pid>-XXXXXX" of processes that are gone (kill -9 during a store)
 * are deleted by the next store.
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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int make_directories(const char *dir);

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

/* Owned by the effective user and writable by nobody else (see the top of the file). */
static int
trusted_stat(const struct stat *st)
{
    return st->st_uid == geteuid() && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* 1 when dir is a directory the cache may use. */
int
votecl__diskcache_dir_trusted(const char *dir)
{
    struct stat st;
    return dir != NULL && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && trusted_stat(&st);
}

/* 1 when gid is this user's private group (Debian's and Ubuntu's user groups, under which a
 * umask of 002 makes every checkout group-writable): the user's primary group with no other
 * member listed. Group write there gives no one else the file, as OpenSSH's StrictModes
 * reasons too. */
static int
group_is_private(gid_t gid)
{
    char buf[4096];
    struct passwd pw, *pwp = NULL;
    struct group gr, *grp = NULL;

    if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &pwp) != 0 || pwp == NULL ||
        pw.pw_gid != gid)
        return 0;
    char gbuf[4096];
    if (getgrgid_r(gid, &gr, gbuf, sizeof gbuf, &grp) != 0 || grp == NULL)
        return 0;
    for (char **m = gr.gr_mem; m != NULL && *m != NULL; m++)
        if (strcmp(*m, pw.pw_name) != 0)
            return 0;
    return 1;
}

/* One step of a trusted path: owned by this user or root; writable by no one else (group
 * write is fine in the user's private group), except a directory above the end with the
 * sticky bit (/tmp: its entries belong to their owners). */
static int
trusted_step(const struct stat *st, int last)
{
    int others_write = (st->st_mode & S_IWOTH) != 0 ||
                       ((st->st_mode & S_IWGRP) != 0 && !group_is_private(st->st_gid));
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return 0;
    return !others_write || (!last && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX));
}

int
votecl__path_trusted(const char *path)
{
    char *real = path != NULL ? realpath(path, NULL) : NULL; /* absolute, no links */
    struct stat st;
    int ok = real != NULL, last = 1;
    /* the path, then each directory above it, cutting at the last '/'; "" stands for "/" */
    while (ok) {
        ok = lstat(real[0] != '\0' ? real : "/", &st) == 0 && trusted_step(&st, last);
        if (real[0] == '\0')
            break;
        *strrchr(real, '/') = '\0';
        last = 0;
    }
    free(real);
    return ok;
}

int
votecl__diskcache_make_dir(const char *dir)
{
    return make_directories(dir);
}

/* 1 when the process pid is known to be gone (another host's pid cannot be told apart:
 * old age decides there, see is_stale). */
static int
process_gone(long pid)
{
    return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* A temporary or marker left by a dead process, or older than a day. */
static int
is_stale(int dirfd, const char *name, long pid)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    return process_gone(pid) || time(NULL) - st.st_mtime > 24 * 3600;
}

/* The pid in "...-<pid>-XXXXXX" (temporaries) or "...-<pid>" (markers); -1 when malformed. */
static long
name_pid(const char *p)
{
    char *end;
    long pid = strtol(p, &end, 10);
    return end != p && (*end == '\0' || *end == '-') ? pid : -1;
}

/* Deletes the temporaries of dead processes in dir. */
static void
remove_stale_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        /* ".tmp-" 64 hex '-' pid '-' XXXXXX */
        if (strncmp(e->d_name, ".tmp-", 5) != 0 || strlen(e->d_name) < 5 + 64 + 2)
            continue;
        if (is_stale(dirfd(d), e->d_name, name_pid(e->d_name + 5 + 64 + 1)))
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* The marker's name for key and pid (malloc'd). */
static char *
marker_name(const char *dir, const uint8_t key[32], long pid)
{
    char hex[65];
    votecl__sha256_hex(key, hex);
    size_t cap = strlen(dir) + 1 + 64 + 9 + 21 + 1;
    char *name = votecl__malloc(cap);
    if (name != NULL)
        snprintf(name, cap, "%s/%s.loading-%ld", dir, hex, pid);
    return name;
}

/* 1 when a process died while loading key's entry: its markers are deleted (the caller
 * deletes the entry). Markers of live processes are left alone. */
static int
entry_poisoned(const char *dir, const uint8_t key[32])
{
    char prefix[64 + 10];
    int poisoned = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL)
        return 0;
    votecl__sha256_hex(key, prefix);
    memcpy(prefix + 64, ".loading-", 10);
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, 64 + 9) != 0)
            continue;
        long pid = name_pid(e->d_name + 64 + 9);
        if (pid == (long)getpid() || !is_stale(dirfd(d), e->d_name, pid))
            continue;
        unlinkat(dirfd(d), e->d_name, 0);
        poisoned = 1;
    }
    closedir(d);
    return poisoned;
}

void
votecl__diskcache_loading(const char *dir, const uint8_t key[32])
{
    char *name = dir != NULL && key != NULL ? marker_name(dir, key, (long)getpid()) : NULL;
    int fd = name != NULL ? open(name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
    if (fd >= 0)
        close(fd);
    free(name);
}

void
votecl__diskcache_loaded(const char *dir, const uint8_t key[32])
{
    char *name = dir != NULL && key != NULL ? marker_name(dir, key, (long)getpid()) : NULL;
    if (name != NULL)
        unlink(name);
    free(name);
}

/* read() (or write() when writing; p is then only read) until size bytes moved; 0 on
 * success, -1 on error or early end of file. */
static int
move_full(int fd, uint8_t *p, size_t size, int writing)
{
    while (size > 0) {
        ssize_t moved = writing ? write(fd, p, size) : read(fd, p, size);
        if (moved < 0 && errno == EINTR)
            continue;
        if (moved <= 0)
            return -1;
        p += moved;
        size -= (size_t)moved;
    }
    return 0;
}

static int
read_full(int fd, void *data, size_t size)
{
    return move_full(fd, data, size, 0);
}

static int
write_full(int fd, const void *data, size_t size)
{
    return move_full(fd, (uint8_t *)data, size, 1);
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
    if (payload_size < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !trusted_stat(&st) ||
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
    int fd = -1;
    struct stat st;
    if (!votecl__diskcache_dir_trusted(dir))
        goto out;
    if (entry_poisoned(dir, key)) {
        unlink(filename);
        goto out;
    }
    /* O_NONBLOCK: opening a FIFO would wait for a writer; load_entry refuses it anyway. */
    do
        fd = open(filename, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    while (fd < 0 && errno == EINTR);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        goto out;
    result = load_entry(fd, key, payload, size);
out:
    if (fd >= 0)
        close(fd);
    if (result != 0) {
        free(*payload);
        *payload = NULL;
        *size = 0;
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
        return S_ISDIR(st.st_mode) && trusted_stat(&st) ? 0 : -1;

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
    if (result == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !trusted_stat(&st)))
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
    remove_stale_temporaries(dir);
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
